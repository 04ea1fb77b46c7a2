# ONNX Runtime's quantization recipes, as its users apply them (tests and benchmarks).
"""Quantize float ONNX models the way ONNX Runtime users do (issue 18).

* :func:`quantize_static_qdq`: ``quant_pre_process`` (BatchNormalization folded into
  Conv), then ``quantize_static`` to the QDQ format: s8 weights per output channel (or per
  tensor), u8 (or s8) activations, min-max calibration on :data:`CALIBRATION_INPUTS`
  random inputs drawn like the model's input (the CNN recipe);
* :func:`quantize_dynamic_int8`: ``quantize_dynamic``, s8 MatMul weights and activations
  quantized per call (DynamicQuantizeLinear, MatMulInteger): the transformer recipe.

Used by test/e2e/quant_models.py and bench/quant_models.py; needs only onnx, numpy and
onnxruntime.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

import numpy as np
import onnx

CALIBRATION_INPUTS = 8


def calibration(inputs: dict[str, np.ndarray], seed: int) -> list[dict[str, np.ndarray]]:
    """Random inputs like the test input: floats standard normal, integer inputs (token
    ids, masks) as given."""
    rng = np.random.default_rng(seed + 1000)
    return [{k: (rng.standard_normal(v.shape).astype(v.dtype) if v.dtype.kind == "f" else v)
             for k, v in inputs.items()} for _ in range(CALIBRATION_INPUTS)]


def quantize_static_qdq(model: onnx.ModelProto, inputs: dict[str, np.ndarray], seed: int,
                        per_channel: bool = True, signed_activations: bool = False,
                        ) -> onnx.ModelProto:
    """ORT's CNN recipe: quant_pre_process, then quantize_static to QDQ."""
    from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                          quantize_static)
    from onnxruntime.quantization.shape_inference import quant_pre_process

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.it = iter(calibration(inputs, seed))

        def get_next(self):
            return next(self.it, None)

    with tempfile.TemporaryDirectory() as tmp:
        src, pre, out = (Path(tmp) / n for n in ("f32.onnx", "pre.onnx", "int8.onnx"))
        onnx.save(model, src)
        # skip_symbolic_shape: that pass needs sympy, and every shape here is static.
        quant_pre_process(str(src), str(pre), skip_symbolic_shape=True)
        quantize_static(str(pre), str(out), Reader(), quant_format=QuantFormat.QDQ,
                        per_channel=per_channel,
                        activation_type=QuantType.QInt8 if signed_activations else QuantType.QUInt8,
                        weight_type=QuantType.QInt8)
        return onnx.load(out)


def quantize_dynamic_int8(model: onnx.ModelProto) -> onnx.ModelProto:
    """ORT's transformer recipe: quantize_dynamic (s8 MatMul weights)."""
    from onnxruntime.quantization import QuantType, quantize_dynamic
    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp) / "f32.onnx", Path(tmp) / "int8.onnx"
        onnx.save(model, src)
        quantize_dynamic(str(src), str(out), weight_type=QuantType.QInt8)
        return onnx.load(out)

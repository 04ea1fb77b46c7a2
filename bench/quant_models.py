# Quantized (int8) benchmark models for bench/run: bench models quantized by ONNX Runtime's tool.
"""int8 models timed by ``bench/run`` (issue 18).

Each entry of :data:`QUANT_MODELS` is a float model of :mod:`models` quantized the way a user
of ONNX Runtime would: the CNNs by ``quantize_static`` (QDQ format, per-channel int8 weights,
uint8 activations, min-max calibration on random inputs drawn like the benchmark input), the
BERT-style layer by ``quantize_dynamic`` (int8 MatMul weights, DynamicQuantizeLinear +
MatMulInteger at run time). ``build(seed)`` returns ``(onnx.ModelProto, inputs)`` like the
float models, so bench/run times dlc and ONNX Runtime on the same file.

``python bench/quant_models.py [NAME ...] [--out DIR]`` writes the models (and prints a
summary of their quantized ops).
"""
from __future__ import annotations

import sys
import tempfile
from collections import Counter
from pathlib import Path

import numpy as np
import onnx

from models import BENCH_MODELS, BenchModel

CALIBRATION_INPUTS = 8


def _calibration(inputs: dict[str, np.ndarray], seed: int) -> list[dict[str, np.ndarray]]:
    """Random inputs like the benchmark's: floats standard normal, integer inputs
    (token ids, masks) kept as given."""
    rng = np.random.default_rng(seed + 1000)
    return [{k: (rng.standard_normal(v.shape).astype(v.dtype) if v.dtype.kind == "f" else v)
             for k, v in inputs.items()} for _ in range(CALIBRATION_INPUTS)]


def quantize_static_qdq(model: onnx.ModelProto, inputs: dict[str, np.ndarray],
                        seed: int) -> onnx.ModelProto:
    """ORT's recommended CNN recipe: quant_pre_process (BatchNorm folded into Conv), then
    quantize_static with QDQ, per-channel s8 weights and u8 activations."""
    from onnxruntime.quantization import (CalibrationDataReader, QuantFormat, QuantType,
                                          quantize_static)
    from onnxruntime.quantization.shape_inference import quant_pre_process

    class Reader(CalibrationDataReader):
        def __init__(self):
            self.it = iter(_calibration(inputs, seed))

        def get_next(self):
            return next(self.it, None)

    with tempfile.TemporaryDirectory() as tmp:
        src, pre, out = (Path(tmp) / n for n in ("f32.onnx", "pre.onnx", "int8.onnx"))
        onnx.save(model, src)
        # skip_symbolic_shape: the symbolic pass needs sympy, and every shape is static.
        quant_pre_process(str(src), str(pre), skip_symbolic_shape=True)
        quantize_static(str(pre), str(out), Reader(), quant_format=QuantFormat.QDQ,
                        per_channel=True, activation_type=QuantType.QUInt8,
                        weight_type=QuantType.QInt8)
        return onnx.load(out)


def quantize_dynamic_int8(model: onnx.ModelProto) -> onnx.ModelProto:
    """ORT's recommended transformer recipe: quantize_dynamic (s8 MatMul weights)."""
    from onnxruntime.quantization import QuantType, quantize_dynamic
    with tempfile.TemporaryDirectory() as tmp:
        src, out = Path(tmp) / "f32.onnx", Path(tmp) / "int8.onnx"
        onnx.save(model, src)
        quantize_dynamic(str(src), str(out), weight_type=QuantType.QInt8)
        return onnx.load(out)


def _static(name: str):
    def build(seed: int):
        model, inputs = BENCH_MODELS[name].build(seed)
        return quantize_static_qdq(model, inputs, seed), inputs
    return build


def _dynamic(name: str):
    def build(seed: int):
        model, inputs = BENCH_MODELS[name].build(seed)
        return quantize_dynamic_int8(model), inputs
    return build


def _matmul_int8(n: int):
    """QDQ MatMul n^3: u8 activations, s8 weights per column, u8 output (QUANT-NOTES §4)."""
    def build(seed: int):
        model, inputs = BENCH_MODELS[f"matmul{n}"].build(seed)
        return quantize_static_qdq(model, inputs, seed), inputs
    return build


QUANT_MODELS: dict[str, BenchModel] = {
    "matmul1024_int8": BenchModel(_matmul_int8(1024),
                                  "MatMul 1024^3, QDQ u8 x s8 (per column) -> u8, ORT-quantized"),
    "resnet18_int8": BenchModel(_static("resnet18"),
                                "ResNet-18, ORT quantize_static (QDQ, per-channel s8 weights)"),
    "mobilenetv2_int8": BenchModel(_static("mobilenetv2"),
                                   "MobileNetV2, ORT quantize_static (QDQ, per-channel)"),
    "bert_layer_int8": BenchModel(_dynamic("bert_layer"),
                                  "BERT-style layer, ORT quantize_dynamic (MatMulInteger)"),
}


if __name__ == "__main__":
    import argparse
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("names", nargs="*")
    p.add_argument("--out", type=Path, help="write NAME.onnx and NAME.input.npz there")
    args = p.parse_args()
    for model_name in args.names or QUANT_MODELS:
        m, ins = QUANT_MODELS[model_name].build(0)
        ops = Counter(n.op_type for n in m.graph.node)
        print(f"{model_name}: {len(m.graph.node)} nodes: "
              + ", ".join(f"{k} {v}" for k, v in ops.most_common()))
        if args.out:
            args.out.mkdir(parents=True, exist_ok=True)
            onnx.save(m, args.out / f"{model_name}.onnx")
            np.savez(args.out / f"{model_name}.input.npz", **ins)
    sys.exit(0)

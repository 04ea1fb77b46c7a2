# Quantized end-to-end models: networks of models.py quantized by ONNX Runtime's own tool.
"""int8 test models for dlc (issue 18).

Each entry of :data:`QUANT_MODELS` is ``build(seed) -> (model, inputs)`` like
:data:`models.MODELS`: a float network of ``models.py`` quantized the way an ONNX Runtime
user quantizes it, so dlc is checked on the QDQ and integer-op graphs real tools write:

* ``quantize_static`` (QDQ format, s8 weights per output channel or per tensor, u8 or s8
  activations, min-max calibration on a few random inputs drawn like the test input),
  after ``quant_pre_process`` (BatchNormalization folded into Conv);
* ``quantize_dynamic`` (s8 MatMul weights, activations quantized per call by
  DynamicQuantizeLinear, MatMulInteger), the transformer recipe.

The reference is ONNX Runtime with graph optimizations disabled, which runs each
DequantizeLinear, float op and QuantizeLinear as written (the QDQ model's meaning);
dlc's integer products are exact, so outputs differ by float rounding of the reference's
products, a quantum of an output here and there (the tolerance of the e2e-quant test).
"""
from __future__ import annotations

import numpy as np
import onnx
from onnx import helper, numpy_helper

from models import MODELS
from quantize import quantize_dynamic_int8, quantize_static_qdq


def static(name: str, **options):
    """MODELS[name] quantized by quantize_static (options: per_channel, signed_activations)."""
    def build(seed: int):
        model, inputs = MODELS[name](seed)
        return quantize_static_qdq(model, inputs, seed, **options), inputs
    return build


def dynamic(name: str):
    """MODELS[name] quantized by quantize_dynamic."""
    def build(seed: int):
        model, inputs = MODELS[name](seed)
        return quantize_dynamic_int8(model), inputs
    return build


def _pack(codes: np.ndarray, bits: int) -> np.ndarray:
    """Codes (last axis) packed low bits first, as MatMulNBits stores them."""
    per = 8 // bits
    c = codes.reshape(*codes.shape[:-1], -1, per).astype(np.uint16)
    return sum(c[..., i] << (i * bits) for i in range(per)).astype(np.uint8)


def matmul_nbits(bits: int, block: int, K: int, N: int, a_shape, zero_points: str = "packed",
                 bias: bool = False):
    """com.microsoft MatMulNBits (ONNX Runtime's blocked low-bit weights, as its int4 LLM
    exports write them): random codes, scales and zero points ("packed" uint8, "float", or
    "none": the default 2^(bits-1)), A random normal."""
    def build(seed: int):
        rng = np.random.default_rng(seed)
        k_blocks = -(-K // block)
        codes = rng.integers(0, 1 << bits, size=(N, k_blocks * block), dtype=np.uint8)
        b = _pack(codes, bits).reshape(N, k_blocks, block * bits // 8)
        scales = (rng.random(N * k_blocks) * 0.05 + 0.01).astype(np.float32)
        inits = [numpy_helper.from_array(b, "B"), numpy_helper.from_array(scales, "scales")]
        inputs = ["A", "B", "scales"]
        if zero_points == "packed":
            zps = rng.integers(0, 1 << bits, size=(N, k_blocks), dtype=np.uint8)
            per_row = -(-k_blocks * bits // 8)
            padded = np.zeros((N, per_row * 8 // bits), np.uint8)
            padded[:, :k_blocks] = zps
            inits.append(numpy_helper.from_array(_pack(padded, bits).reshape(-1), "zp"))
            inputs.append("zp")
        elif zero_points == "float":
            zps = (rng.random(N * k_blocks) * (1 << bits)).astype(np.float32)
            inits.append(numpy_helper.from_array(zps, "zp"))
            inputs.append("zp")
        if bias:
            inputs += [""] * (5 - len(inputs)) + ["bias"]
            inits.append(numpy_helper.from_array(rng.standard_normal(N).astype(np.float32),
                                                 "bias"))
        node = helper.make_node("MatMulNBits", inputs, ["Y"], domain="com.microsoft", K=K, N=N,
                                bits=bits, block_size=block)
        graph = helper.make_graph(
            [node], f"matmul_nbits_{bits}", [helper.make_tensor_value_info(
                "A", onnx.TensorProto.FLOAT, list(a_shape))],
            [helper.make_tensor_value_info("Y", onnx.TensorProto.FLOAT,
                                           list(a_shape[:-1]) + [N])], inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17),
                                                        helper.make_opsetid("com.microsoft", 1)])
        return model, {"A": rng.standard_normal(a_shape).astype(np.float32)}
    return build


QUANT_MODELS = {
    "q_mlp_b64": static("mlp_b64"),
    "q_mlp_b64_per_tensor_s8": static("mlp_b64", per_channel=False, signed_activations=True),
    "q_lenet5": static("lenet5"),
    "q_lenet5_s8": static("lenet5", signed_activations=True),
    "q_resnet18": static("resnet18"),
    "q_mobilenetv2": static("mobilenetv2"),
    "q_bert_layer_dynamic": dynamic("bert_layer"),
    "nbits4_packed_zp_bias": matmul_nbits(4, 32, 64, 48, (2, 5, 64), "packed", bias=True),
    "nbits4_default_zp_partial_block": matmul_nbits(4, 16, 40, 24, (3, 40), "none"),
    "nbits4_float_zp": matmul_nbits(4, 32, 96, 16, (4, 96), "float"),
    "nbits8": matmul_nbits(8, 32, 64, 16, (2, 64), "packed"),
    "nbits2": matmul_nbits(2, 16, 48, 8, (2, 48), "packed"),
}

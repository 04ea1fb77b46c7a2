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


def blocked_weights(K: int, N: int, block: int, a_shape, codes_type=np.int8):
    """MatMul(A, DequantizeLinear(W)) with W [K, N] 8-bit codes blocked along K (opset 21:
    scale and zero point [ceil(K / block), N]): weight-only quantization written as QDQ."""
    def build(seed: int):
        rng = np.random.default_rng(seed)
        info = np.iinfo(codes_type)
        kb = -(-K // block)
        w = rng.integers(info.min, info.max + 1, size=(K, N), dtype=codes_type)
        zp = rng.integers(info.min // 4, info.max // 4, size=(kb, N), dtype=codes_type)
        scale = (rng.random((kb, N)) * 0.05 + 0.01).astype(np.float32)
        inits = [numpy_helper.from_array(w, "W"), numpy_helper.from_array(scale, "s"),
                 numpy_helper.from_array(zp, "z")]
        nodes = [helper.make_node("DequantizeLinear", ["W", "s", "z"], ["Wf"], axis=0,
                                  block_size=block),
                 helper.make_node("MatMul", ["A", "Wf"], ["Y"])]
        graph = helper.make_graph(
            nodes, "blocked_weights",
            [helper.make_tensor_value_info("A", onnx.TensorProto.FLOAT, list(a_shape))],
            [helper.make_tensor_value_info("Y", onnx.TensorProto.FLOAT,
                                           list(a_shape[:-1]) + [N])], inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 21)])
        return model, {"A": rng.standard_normal(a_shape).astype(np.float32)}
    return build


def depthwise_integer(op: str, x_type=np.uint8, w_type=np.int8, x_zp=3, w_zp="none",
                      weights="constant", stride=1, pads=1, dilation=1, C=24, H=9,
                      scales="channel"):
    """A depthwise (group = C) ConvInteger or QLinearConv: 8-bit activations of `x_type` with
    zero point `x_zp`, 3x3 weights of `w_type` as an initializer ("constant") or an input
    ("input"), weight zero points "none", "tensor" or "channel" (ONNX Runtime honours
    neither ConvInteger's nor QLinearConv's per-channel ones: dlc's equal NumPy's exact sums
    there), QLinearConv's weight scales per "channel" or "tensor"."""
    def build(seed: int):
        rng = np.random.default_rng(seed)
        info = np.iinfo(x_type)
        x = rng.integers(info.min, info.max + 1, size=(1, C, H, H + 2)).astype(x_type)
        winfo = np.iinfo(w_type)
        w = rng.integers(winfo.min, winfo.max + 1, size=(C, 1, 3, 3)).astype(w_type)
        inits, inputs, feeds = [], {"x": x}, ["x"]
        elem = helper.np_dtype_to_tensor_dtype
        ins = [helper.make_tensor_value_info("x", elem(x.dtype), list(x.shape))]
        if weights == "input":
            ins.append(helper.make_tensor_value_info("w", elem(w.dtype), list(w.shape)))
            inputs["w"] = w
        else:
            inits.append(numpy_helper.from_array(w, "w"))
        xz = numpy_helper.from_array(np.array(x_zp, x_type), "xz")
        wz_value = {"none": None, "tensor": np.array(5, w_type),
                    "channel": rng.integers(-4, 5, size=C).astype(w_type) if w_type == np.int8
                    else rng.integers(0, 9, size=C).astype(w_type)}[w_zp]
        attrs = dict(group=C, pads=[pads] * 4, strides=[stride] * 2, dilations=[dilation] * 2)
        if op == "ConvInteger":
            inits.append(xz)
            names = ["x", "w", "xz"]
            if wz_value is not None:
                inits.append(numpy_helper.from_array(wz_value, "wz"))
                names.append("wz")
            out_type = onnx.TensorProto.INT32
        else:
            ws = (rng.random(C if scales == "channel" else 1) * 0.02 + 0.005).astype(np.float32)
            wz = wz_value if wz_value is not None else np.zeros(1, w_type)
            inits += [xz, numpy_helper.from_array(np.array(0.05, np.float32), "xs"),
                      numpy_helper.from_array(ws.reshape(-1) if ws.size > 1 else ws[0], "ws"),
                      numpy_helper.from_array(wz.reshape(-1) if np.size(wz) > 1
                                              else np.array(wz).reshape(()), "wz"),
                      numpy_helper.from_array(np.array(0.1, np.float32), "ys"),
                      numpy_helper.from_array(np.array(0 if info.min < 0 else 128, x_type),
                                              "yz"),
                      numpy_helper.from_array(rng.integers(-500, 500, C).astype(np.int32), "b")]
            names = ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"]
            out_type = elem(np.dtype(x_type))
        node = helper.make_node(op, names, ["y"], name="dw", **attrs)
        graph = helper.make_graph([node], "depthwise_integer", ins,
                                  [helper.make_tensor_value_info("y", out_type, None)], inits)
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
        return model, inputs
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
    "nbits4_row_zp_bias": matmul_nbits(4, 32, 64, 48, (1, 1, 64), "packed", bias=True),
    "nbits4_row_partial_block": matmul_nbits(4, 16, 40, 24, (1, 40), "none"),
    "nbits8": matmul_nbits(8, 32, 64, 16, (2, 64), "packed"),
    "blocked_s8_weights_row": blocked_weights(72, 40, 32, (1, 72)),
    "blocked_u8_weights_rows": blocked_weights(64, 24, 16, (2, 64), np.uint8),
    "nbits2": matmul_nbits(2, 16, 48, 8, (2, 48), "packed"),
    # Depthwise integer convs (dlc's integer depthwise kernel, QuantizeContractions for QDQ).
    "dw_convinteger_u8": depthwise_integer("ConvInteger"),
    "dw_convinteger_stride2_dil": depthwise_integer("ConvInteger", stride=2, dilation=2, pads=2),
    "dw_convinteger_s8_wzp": depthwise_integer("ConvInteger", x_type=np.int8, x_zp=-7,
                                                w_zp="tensor"),
    "dw_convinteger_u8w_runtime": depthwise_integer("ConvInteger", w_type=np.uint8,
                                                     weights="input", w_zp="tensor"),
    "dw_convinteger_runtime_w": depthwise_integer("ConvInteger", weights="input", pads=0),
    "dw_qlinearconv_channel": depthwise_integer("QLinearConv", x_zp=100),
    "dw_qlinearconv_s8_wzp": depthwise_integer("QLinearConv", x_type=np.int8, x_zp=-20,
                                               w_zp="tensor", scales="tensor", stride=2),
}

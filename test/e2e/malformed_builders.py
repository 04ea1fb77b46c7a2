# Malformed-model cases for the op builders' preconditions (registered into malformed_models).
"""Inputs of too small a rank, constant inputs of the wrong length or type, and attribute
values the builders once used unchecked. Imported by malformed_models.py."""
from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from malformed_common import BOOL, I64, case, model, unary, vi

# ---------------------------------------------------------------------------- builder preconditions
# Inputs of too small a rank, constant inputs of the wrong length or type, and attribute
# values the builders once used unchecked (reading out of bounds, dividing by zero or
# converting NaN to an integer): each is one error line naming the node.
def consts(values: dict):
    return [numpy_helper.from_array(np.asarray(v), k) for k, v in values.items()]


@case("Squeeze of a scalar along axis 0", "sq_scalar", "rank >= 1")
def m_squeeze_scalar(d):
    n = helper.make_node("Squeeze", ["x"], ["y"], name="sq_scalar", axes=[0])
    return model([n], [vi("x", [])], [vi("y", None)], opset=11)


@case("Hardmax (opset 13) of a scalar along axis 0", "hm_scalar", "rank >= 1")
def m_hardmax_scalar(d):
    return model([helper.make_node("Hardmax", ["x"], ["y"], name="hm_scalar", axis=0)],
                 [vi("x", [])], [vi("y", None)], opset=13)


@case("CumSum of a scalar along axis 0", "cs_scalar", "rank >= 1")
def m_cumsum_scalar(d):
    return model([helper.make_node("CumSum", ["x", "ax"], ["y"], name="cs_scalar")],
                 [vi("x", [])], [vi("y", None)], consts({"ax": np.int64(0)}))


@case("Dropout with an empty training_mode tensor", "drop_empty", "training_mode")
def m_dropout_empty_training_mode(d):
    return unary("Dropout", "drop_empty", [2, 3], None, consts({"t": np.zeros([0], bool)}),
                 ["x", "", "t"])


@case("Compress with a float condition", "compress_float", "condition must be a bool tensor")
def m_compress_float_condition(d):
    return unary("Compress", "compress_float", [3], None,
                 consts({"c": np.array([1, 0, 1], np.float32)}), ["x", "c"], axis=0)


@case("Attention with a rank-2 past_key and past_value", "attn_past",
      "past_key and past_value must be 4-D")
def m_attention_past_rank(d):
    qkv = [vi(k, [1, 1, 2, 4]) for k in ("q", "k", "v")]
    n = helper.make_node("Attention", ["q", "k", "v", "", "pk", "pv"], ["y"], name="attn_past")
    return model([n], qkv + [vi("pk", [2, 4]), vi("pv", [2, 4])], [vi("y", None)], opset=23)


@case("RotaryEmbedding with scalar cos/sin caches", "rope_scalar", "cos_cache and sin_cache")
def m_rotary_scalar_cache(d):
    n = helper.make_node("RotaryEmbedding", ["x", "cos", "sin"], ["y"], name="rope_scalar")
    return model([n], [vi("x", [1, 1, 2, 4]), vi("cos", []), vi("sin", [])], [vi("y", None)],
                 opset=23)


@case("CausalConvWithState with a kernel of width 0", "causal_k0", "k >= 1")
def m_causal_conv_empty_kernel(d):
    n = helper.make_node("CausalConvWithState", ["x", "w"], ["y"], name="causal_k0")
    return model([n], [vi("x", [1, 2, 3])], [vi("y", None)],
                 consts({"w": np.zeros([2, 1, 0], np.float32)}), opset=27)


@case("Einsum equation with a digit label", "einsum_digit", "invalid character")
def m_einsum_digit_label(d):
    return unary("Einsum", "einsum_digit", [2, 3], None,
                 consts({"w": np.ones([3], np.float32)}), ["x", "w"], equation="ij,j1->i")


@case("DFT with an empty dft_length tensor", "dft_len", "dft_length must hold one value")
def m_dft_empty_length(d):
    n = helper.make_node("DFT", ["x", "len"], ["y"], name="dft_len")
    return model([n], [vi("x", [1, 4, 1])], [vi("y", None)],
                 consts({"len": np.zeros([0], np.int64)}), opset=20)


@case("Loop with an empty trip count M", "loop_m", "must hold one value")
def m_loop_empty_trip_count(d):
    body = helper.make_graph(
        [helper.make_node("Identity", ["c"], ["c_out"]), helper.make_node("Identity", ["v"], ["v_out"])],
        "body", [vi("i", [], I64), vi("c", [], BOOL), vi("v", [2])],
        [vi("c_out", [], BOOL), vi("v_out", [2])])
    n = helper.make_node("Loop", ["M", "", "x"], ["y"], name="loop_m", body=body)
    return model([n], [vi("x", [2])], [vi("y", None)], consts({"M": np.zeros([0], np.int64)}))


@case("ConvInteger with a 1-D weight", "convint_1d", "only 2-D integer convolutions")
def m_conv_integer_1d_weight(d):
    n = helper.make_node("ConvInteger", ["x", "w"], ["y"], name="convint_1d")
    return model([n], [vi("x", [1, 1, 3, 3], TensorProto.UINT8)], [vi("y", None)],
                 consts({"w": np.ones([3], np.uint8)}))


@case("QuantizeLinear of a scalar with a 2-element scale", "q_scalar",
      "a scalar input needs a one-element scale")
def m_quantize_scalar_per_axis(d):
    return unary("QuantizeLinear", "q_scalar", [], None,
                 consts({"s": np.array([0.5, 0.25], np.float32)}), ["x", "s"])


@case("DeformConv with strides 0", "dconv_s0", "strides and dilations must be positive")
def m_deform_conv_zero_stride(d):
    n = helper.make_node("DeformConv", ["x", "w", "off"], ["y"], name="dconv_s0",
                         strides=[0, 0])
    return model([n], [vi("x", [1, 1, 3, 3])], [vi("y", None)],
                 consts({"w": np.ones([1, 1, 1, 1], np.float32),
                         "off": np.zeros([1, 2, 3, 3], np.float32)}), opset=19)


@case("MelWeightMatrix with a NaN upper edge", "mel_nan", "edges must be finite")
def m_mel_nan_edge(d):
    n = helper.make_node("MelWeightMatrix", ["bins", "dft", "sr", "lo", "hi"], ["y"],
                         name="mel_nan")
    return model([n], [], [vi("y", None)],
                 consts({"bins": np.int64(2), "dft": np.int64(8), "sr": np.int64(8000),
                         "lo": np.float32(0), "hi": np.float32(np.nan)}))


@case("a graph input of 2^39 floats (2 TB, over any --max-memory default) feeding Hardmax, "
      "whose builder allocates in proportion to the input's dims (a fuzzer's find)",
      "input 'x'", "would take")
def m_input_over_memory(d):
    n = helper.make_node("Hardmax", ["x"], ["y"], name="hm_huge", axis=0)
    return model([n], [vi("x", [1 << 19, 1 << 20])], [vi("y", None)], opset=13)

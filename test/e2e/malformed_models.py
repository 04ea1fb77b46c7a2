#!/usr/bin/env python3
# Negative e2e tests: a directory of deliberately broken ONNX models, each rejected with one error line.
"""Generate deliberately malformed ONNX models and check that dlc rejects each cleanly.

Usage::

    malformed_models.py --generate DIR          # write DIR/<case>.onnx (+ side files) and DIR/expected.txt
    malformed_models.py --dlc build/bin/dlc [--jit] [--keep] [--timeout S] [CASE ...]
    malformed_models.py --list                  # cases, what is broken, expected substrings

Nothing binary is committed: every model is built here with onnx.helper (or as raw
bytes) and written without the ONNX checker. Side files (external data, symlinks)
live in ``DIR/<case>_data/``.

With ``--dlc``, the models are generated into a temporary directory and each one is
compiled with ``dlc compile DIR/<case>.onnx -o OUT.so`` (and, when ``dlc check --help``
exits 0, also checked with ``dlc check DIR/<case>.onnx``; with ``--jit``, also run with
``dlc run DIR/<case>.onnx``, no inputs given). Every call must:

* exit with code exactly 1 (no signal, no abort, not 0 or 2);
* write exactly one stderr line, starting with ``error:``;
* show no crash marker (stack dump, assertion, sanitizer report: see cli_errors.py);
* name the model file (``<case>.onnx``) and contain the case's expected substrings
  (kept loose: node, op, attribute, input or initializer names; looked for with the
  model's path blanked out, so a name inside the file name does not count); for ``dlc check``,
  which lists the problems on stdout, the substrings may be on stdout or stderr;
* leave no output file behind (compile only).

Prints one line per case and command; exits 1 if any case fails.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cli_errors import Fail, check_error, save  # noqa: E402
from models import IR_VERSION  # noqa: E402
from malformed_common import (BOOL, CASES, F, PASSWD, case, conv_inputs,  # noqa: E402
                              data_file, external_model, floats, ints, model, relu_model, unary,
                              vi, with_attr)
import malformed_builders  # noqa: E402,F401  (registers the builder-precondition cases)


# ---------------------------------------------------------------------------- file-level cases
@case("first half of a model with a 4 KiB initializer: the cut lands inside the graph", "protobuf")
def m_truncated_protobuf(d):
    data = relu_model([floats("big", [32, 32])]).SerializeToString()
    return data[: len(data) // 2]


@case("4 KiB of random bytes", "protobuf")
def m_garbage_bytes(d):
    return np.random.default_rng(1234).bytes(4096)


@case("zero-byte file (parses as an empty ModelProto: no graph)", "graph")
def m_empty_file(d):
    return b""


@case("a PNG header and random bytes instead of a protobuf", "protobuf")
def m_png_magic(d):
    return b"\x89PNG\r\n\x1a\n" + np.random.default_rng(7).bytes(256)


@case("graph field present but zero bytes long (no nodes, inputs or outputs)", "output")
def m_zero_length_graph(d):
    m = onnx.ModelProto(ir_version=IR_VERSION, producer_name="dlc-e2e-malformed")
    m.opset_import.add().version = 17
    m.graph.SetInParent()
    return m


@case("ir_version not set", "ir_version")
def m_ir_version_missing(d):
    m = relu_model()
    m.ClearField("ir_version")
    return m


@case("ir_version 1000000", "ir_version")
def m_ir_version_absurd(d):
    m = relu_model()
    m.ir_version = 1_000_000
    return m


@case("no opset_import at all", "domain")
def m_opset_missing(d):
    m = relu_model()
    del m.opset_import[:]
    return m


@case("opset_import names only a custom domain; nodes use the default one", "domain")
def m_opset_only_custom_domain(d):
    m = relu_model()
    del m.opset_import[:]
    m.opset_import.append(helper.make_opsetid("com.example.custom", 1))
    return m


@case("default-domain opset version 9999", "9999")
def m_opset_version_absurd(d):
    m = relu_model()
    m.opset_import[0].version = 9999
    return m


# ---------------------------------------------------------------------------- graph structure
@case("cycle: node_a reads b_out, which node_b computes from a_out", "node_a", "b_out")
def m_cycle_two_nodes(d):
    nodes = [helper.make_node("Add", ["x", "b_out"], ["a_out"], name="node_a"),
             helper.make_node("Relu", ["a_out"], ["b_out"], name="node_b")]
    return model(nodes, [vi("x", [2, 3])], [vi("b_out", [2, 3])])


@case("self-loop: node_loop reads its own output loop_out", "node_loop", "loop_out")
def m_self_loop(d):
    return model([helper.make_node("Add", ["x", "loop_out"], ["loop_out"], name="node_loop")],
                 [vi("x", [2, 3])], [vi("loop_out", [2, 3])])


@case("nodes in reverse topological order: use_a and use_b both read values defined later",
      "use_a")
def m_unsorted_nodes(d):
    nodes = [helper.make_node("Relu", ["a"], ["y1"], name="use_a"),
             helper.make_node("Relu", ["b"], ["y2"], name="use_b"),
             helper.make_node("Neg", ["x"], ["a"], name="def_a"),
             helper.make_node("Neg", ["x"], ["b"], name="def_b")]
    return model(nodes, [vi("x", [2, 3])], [vi("y1", [2, 3]), vi("y2", [2, 3])])


@case("Relu reads no_such_tensor, which nothing defines", "relu_dangling", "no_such_tensor")
def m_dangling_input(d):
    return unary("Relu", "relu_dangling", [2, 3], inputs=["no_such_tensor"])


@case("graph output ghost_output is produced by no node", "ghost_output")
def m_output_not_produced(d):
    return model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                 [vi("x", [2, 3])], [vi("ghost_output", [2, 3])])


@case("two nodes both write dup_out", "dup_out")
def m_duplicate_node_outputs(d):
    nodes = [helper.make_node("Relu", ["x"], ["dup_out"], name="first"),
             helper.make_node("Neg", ["x"], ["dup_out"], name="second")]
    return model(nodes, [vi("x", [2, 3])], [vi("dup_out", [2, 3])])


@case("two initializers named dup_weight (shapes [2,3] and [3])", "dup_weight")
def m_duplicate_initializer_names(d):
    return model([helper.make_node("Add", ["x", "dup_weight"], ["y"], name="add")],
                 [vi("x", [2, 3])], [vi("y", [2, 3])],
                 [floats("dup_weight", [2, 3]), floats("dup_weight", [3], 2.0)])


@case("graph input dup_input declared twice", "dup_input")
def m_duplicate_graph_inputs(d):
    return model([helper.make_node("Relu", ["dup_input"], ["y"], name="relu")],
                 [vi("dup_input", [2, 3]), vi("dup_input", [4])], [vi("y", [2, 3])])


@case("graph with a node but an empty output list", "output")
def m_no_outputs(d):
    return model([helper.make_node("Relu", ["x"], ["y"], name="relu")], [vi("x", [2, 3])], [])


@case("If (constant cond=true) whose then_branch reads a name defined nowhere",
      "missing_in_branch")
def m_if_broken_body(d):
    then_g = helper.make_graph([helper.make_node("Relu", ["missing_in_branch"], ["t"])],
                               "then", [], [vi("t", [2, 3])])
    else_g = helper.make_graph([helper.make_node("Identity", ["x"], ["e"])],
                               "else", [], [vi("e", [2, 3])])
    n = helper.make_node("If", ["cond"], ["y"], name="if_node",
                         then_branch=then_g, else_branch=else_g)
    cond = numpy_helper.from_array(np.array(True), "cond")
    return model([n], [vi("x", [2, 3])], [vi("y", [2, 3])], [cond])


@case("If on a graph-input cond whose then_branch reads a name defined nowhere", "if_node")
def m_if_input_cond_broken_body(d):
    m = m_if_broken_body(d)
    del m.graph.initializer[:]
    m.graph.input.insert(0, vi("cond", [], BOOL))
    return m


@case("Relu with three inputs", "relu_three")
def m_relu_three_inputs(d):
    return unary("Relu", "relu_three", [2, 3], inputs=["x", "x", "x"])


@case("Add with one input", "add_one")
def m_add_one_input(d):
    return unary("Add", "add_one", [2, 3], inputs=["x"])


@case("Frobnicate in domain com.example.custom (declared in opset_import)",
      "frob_node", "com.example.custom")
def m_custom_domain_op(d):
    n = helper.make_node("Frobnicate", ["x"], ["y"], name="frob_node", domain="com.example.custom")
    return model([n], [vi("x", [2, 3])], [vi("y", [2, 3])],
                 extra_opsets=[("com.example.custom", 1)])


@case("node with an empty op_type", "no_op_type")
def m_empty_op_type(d):
    return unary("", "no_op_type", [2, 3])


# ---------------------------------------------------------------------------- attributes
@case("Conv strides given as FLOAT", "conv_strides", "strides")
def m_attr_conv_strides_float(d):
    shape, ins, inits = conv_inputs()
    return with_attr("Conv", "conv_strides", shape, ins, inits, helper.make_attribute("strides", 1.0))


@case("Transpose perm given as STRING", "transpose_perm", "perm")
def m_attr_transpose_perm_string(d):
    return with_attr("Transpose", "transpose_perm", [2, 3], ["x"], [],
                     helper.make_attribute("perm", "1,0"))


@case("Gemm alpha given as INTS", "gemm_alpha", "alpha")
def m_attr_gemm_alpha_ints(d):
    return with_attr("Gemm", "gemm_alpha", [2, 3], ["x", "gemm_b"], [floats("gemm_b", [3, 4])],
                     helper.make_attribute("alpha", [1, 2]))


@case("Softmax with axis given twice (1, then 0)", "softmax_dup", "'axis' is given twice")
def m_attr_duplicate(d):
    n = helper.make_node("Softmax", ["x"], ["y"], name="softmax_dup", axis=1)
    n.attribute.append(helper.make_attribute("axis", 0))
    return model([n], [vi("x", [2, 3])], [vi("y", [2, 3])])


@case("Relu with an attribute 'alpha' it does not have", "relu_alpha", "no attribute 'alpha'")
def m_attr_unknown(d):
    return unary("Relu", "relu_alpha", [2, 3], alpha=0.1)


@case("LeakyRelu alpha given as INT (never read as such by a builder)", "leaky_int", "alpha",
      "must be FLOAT")
def m_attr_wrong_type_schema(d):
    return with_attr("LeakyRelu", "leaky_int", [2, 3], ["x"], [],
                     helper.make_attribute("alpha", 1))


@case("Softmax axis referring to a function attribute at top level", "softmax_ref",
      "refers to a function attribute")
def m_attr_ref_outside_function(d):
    n = helper.make_node("Softmax", ["x"], ["y"], name="softmax_ref")
    a = onnx.AttributeProto(name="axis", ref_attr_name="my_axis", type=onnx.AttributeProto.INT)
    n.attribute.append(a)
    return model([n], [vi("x", [2, 3])], [vi("y", [2, 3])])


@case("Cast without its required 'to'", "cast_no_to", "'to'")
def m_cast_missing_to(d):
    return unary("Cast", "cast_no_to", [2, 3])


@case("Cast to=12345 (no such data type)", "cast_bad_to", "12345")
def m_cast_to_invalid(d):
    return unary("Cast", "cast_bad_to", [2, 3], to=12345)


@case("Conv auto_pad='BOGUS'", "conv_auto_pad", "auto_pad")
def m_conv_auto_pad_bogus(d):
    shape, ins, inits = conv_inputs()
    return with_attr("Conv", "conv_auto_pad", shape, ins, inits,
                     helper.make_attribute("auto_pad", "BOGUS"))


@case("Transpose perm=[0,0] (not a permutation)", "transpose_dup", "perm")
def m_transpose_perm_duplicate(d):
    return unary("Transpose", "transpose_dup", [2, 3], perm=[0, 0])


@case("Softmax axis=5 on a rank-2 input", "softmax_axis", "axis")
def m_softmax_axis_out_of_range(d):
    return unary("Softmax", "softmax_axis", [2, 3], axis=5)


@case("MaxPool kernel_shape=[0,0]", "pool_zero", "kernel")
def m_maxpool_kernel_zero(d):
    return unary("MaxPool", "pool_zero", [1, 1, 4, 4], kernel_shape=[0, 0])


# ---------------------------------------------------------------------------- shapes and ranks
@case("MatMul of [2,3] x [4,5]", "matmul_bad")
def m_matmul_rank_mismatch(d):
    return unary("MatMul", "matmul_bad", [2, 3], inputs=["x", "mm_b"],
                 inits=[floats("mm_b", [4, 5])])


@case("Conv on a 2-D input", "conv_2d")
def m_conv_2d_input(d):
    return unary("Conv", "conv_2d", [5, 5], inputs=["x", "conv_w"],
                 inits=[floats("conv_w", [1, 1, 3, 3])])


@case("Conv weight with a zero-size kernel [1,1,0,3]", "conv_zero_kernel")
def m_conv_zero_kernel(d):
    return unary("Conv", "conv_zero_kernel", [1, 1, 5, 5], inputs=["x", "conv_w"],
                 inits=[floats("conv_w", [1, 1, 0, 3])])


@case("Add of [3] and [4] (not broadcastable)", "add_bcast")
def m_add_broadcast_incompatible(d):
    return unary("Add", "add_bcast", [3], inputs=["x", "add_b"], inits=[floats("add_b", [4])])


@case("Concat of [2,3] and [2,3,1]", "concat_ranks")
def m_concat_rank_mismatch(d):
    return unary("Concat", "concat_ranks", [2, 3], inputs=["x", "cat_b"],
                 inits=[floats("cat_b", [2, 3, 1])], axis=0)


@case("Reshape with shape [-1,-1]", "reshape_two_neg")
def m_reshape_two_minus_one(d):
    return unary("Reshape", "reshape_two_neg", [2, 3], inputs=["x", "shape"],
                 inits=[ints("shape", [-1, -1])])


@case("Reshape [2,3] to [4,2]", "reshape_count")
def m_reshape_incompatible(d):
    return unary("Reshape", "reshape_count", [2, 3], inputs=["x", "shape"],
                 inits=[ints("shape", [4, 2])])


@case("Gather with float32 indices", "gather_float")
def m_gather_float_indices(d):
    return unary("Gather", "gather_float", [4, 3], inputs=["x", "idx"],
                 inits=[floats("idx", [2], 1.0)])


@case("Slice with steps=[0]", "slice_zero_step")
def m_slice_steps_zero(d):
    inits = [ints("starts", [0]), ints("ends", [4]), ints("axes", [0]), ints("steps", [0])]
    return unary("Slice", "slice_zero_step", [4, 4],
                 inputs=["x", "starts", "ends", "axes", "steps"], inits=inits)


@case("Split of a [6] tensor with split=[2,2]", "split_sum")
def m_split_sizes_bad_sum(d):
    n = helper.make_node("Split", ["x", "split"], ["y0", "y1"], name="split_sum", axis=0)
    return model([n], [vi("x", [6])], [vi("y0", [2]), vi("y1", [2])], [ints("split", [2, 2])])


@case("graph input neg_dim_input with dim -3", "neg_dim_input")
def m_negative_input_dim(d):
    return model([helper.make_node("Relu", ["neg_dim_input"], ["y"], name="relu")],
                 [vi("neg_dim_input", [-3, 2])], [vi("y", None)])


@case("graph input huge_input float[2^40, 2^40] (4 EiB): must be refused, not allocated",
      "huge_input")
def m_huge_input_dims(d):
    return model([helper.make_node("Relu", ["huge_input"], ["y"], name="relu")],
                 [vi("huge_input", [2**40, 2**40])], [vi("y", None)])


@case("graph input undef_dtype_input with elem_type 0 (UNDEFINED)", "undef_dtype_input")
def m_input_dtype_undefined(d):
    return model([helper.make_node("Relu", ["undef_dtype_input"], ["y"], name="relu")],
                 [vi("undef_dtype_input", [2, 3], TensorProto.UNDEFINED)], [vi("y", None)])


@case("graph input seq_input is a sequence, not a tensor", "seq_input")
def m_input_not_tensor(d):
    seq = helper.make_tensor_sequence_value_info("seq_input", F, [2, 3])
    return model([helper.make_node("Identity", ["seq_input"], ["y"], name="ident")],
                 [seq], [vi("y", None)])


# ---------------------------------------------------------------------------- initializers
@case("initializer short_raw float[2,3] with 10 bytes of raw_data", "short_raw")
def m_init_raw_size_mismatch(d):
    t = TensorProto(name="short_raw", data_type=F, dims=[2, 3], raw_data=b"\0" * 10)
    return relu_model([t])


@case("initializer short_floats float[2,3] with 5 float_data values", "short_floats")
def m_init_float_data_count(d):
    t = TensorProto(name="short_floats", data_type=F, dims=[2, 3], float_data=[1.0] * 5)
    return relu_model([t])


@case("initializer neg_dims_init with dims [-2,3]", "neg_dims_init")
def m_init_negative_dims(d):
    t = TensorProto(name="neg_dims_init", data_type=F, dims=[-2, 3], raw_data=b"\0" * 24)
    return relu_model([t])


@case("initializer huge_init with dims [2^40, 2^40] and no data, read by a Relu", "huge_init")
def m_init_huge_dims(d):
    t = TensorProto(name="huge_init", data_type=F, dims=[2**40, 2**40])
    return model([helper.make_node("Relu", ["huge_init"], ["y"], name="relu_huge")], [],
                 [vi("y", None)], [t])


@case("initializer undef_dtype_init with data_type 0 (UNDEFINED)", "undef_dtype_init")
def m_init_dtype_undefined(d):
    return relu_model([TensorProto(name="undef_dtype_init", data_type=0, dims=[2],
                                   raw_data=b"\0" * 8)])


@case("external data at ../../(...)/etc/passwd (escapes the model directory)", "ext_w")
def m_ext_escape_dotdot(d):
    return external_model("../" * 32 + PASSWD.lstrip("/"))


@case("external data at the absolute path /etc/passwd", "ext_w")
def m_ext_escape_absolute(d):
    return external_model(PASSWD)


@case("external data through a symlink in <case>_data/ that points to /etc/passwd", "ext_w")
def m_ext_symlink_escape(d):
    d.mkdir(exist_ok=True)
    (d / "link.bin").unlink(missing_ok=True)
    (d / "link.bin").symlink_to(PASSWD)
    return external_model(f"{d.name}/link.bin")


@case("external data file <case>_data/missing.bin does not exist", "ext_w")
def m_ext_missing_file(d):
    d.mkdir(exist_ok=True)
    return external_model(f"{d.name}/missing.bin")


@case("external data offset 16 + length 24 beyond a 24-byte file", "ext_w")
def m_ext_range_beyond_file(d):
    return external_model(data_file(d, "w.bin"), offset=16, length=24)


@case("external data with offset -8", "ext_w")
def m_ext_negative_offset(d):
    return external_model(data_file(d, "w.bin"), offset=-8, length=24)


# ---------------------------------------------------------------------------- constant indices
def indexed(op: str, node: str, idx, with_updates: bool = False, **attrs):
    """`op` on x float[3,4] with constant indices (and constant ones as updates)."""
    idx = np.array(idx, np.int64)
    inits = [numpy_helper.from_array(idx, "idx")]
    inputs = ["x", "idx"]
    if with_updates:
        shape = idx.shape if op != "ScatterND" else idx.shape[:-1] + (4,) * (2 - idx.shape[-1])
        inits.append(numpy_helper.from_array(np.ones(shape, np.float32), "upd"))
        inputs.append("upd")
    return unary(op, node, [3, 4], None, inits, inputs, **attrs)


@case("Gather of constant index 3 from a dimension of size 3", "gather_oob", "index 3",
      "[-3, 3)")
def m_gather_index_out_of_range(d):
    return indexed("Gather", "gather_oob", [0, 3], axis=0)


@case("Gather of constant index -5 along axis 1 (size 4)", "gather_neg_oob", "index -5")
def m_gather_negative_index_out_of_range(d):
    return indexed("Gather", "gather_neg_oob", [[-5]], axis=1)


@case("GatherElements with a constant index 4 along axis 1 (size 4)", "gel_oob", "index 4")
def m_gather_elements_index_out_of_range(d):
    return indexed("GatherElements", "gel_oob", [[0, 4], [1, 1], [2, 2]], axis=1)


@case("GatherND with the constant tuple (0, 9) into float[3,4]", "gnd_oob", "index 9")
def m_gather_nd_index_out_of_range(d):
    return indexed("GatherND", "gnd_oob", [[0, 1], [0, 9]])


@case("ScatterElements writing at constant index -9 along axis 0 (size 3)", "sel_oob",
      "index -9")
def m_scatter_elements_index_out_of_range(d):
    return indexed("ScatterElements", "sel_oob", [[-9, 0]], with_updates=True, axis=0)


@case("ScatterND writing at the constant tuple (3,) into float[3,4]", "snd_oob", "index 3")
def m_scatter_nd_index_out_of_range(d):
    return indexed("ScatterND", "snd_oob", [[3]], with_updates=True)


# ---------------------------------------------------------------------------- absurd sizes
# Each would need terabytes (or overflows 2^63): one error line naming the node, in
# seconds and without allocating it (the driver runs dlc under --timeout).
def on_x(op: str, node: str, consts: dict, inputs, **attrs):
    inits = [numpy_helper.from_array(np.array(v), k) for k, v in consts.items()]
    return unary(op, node, [2], None, inits, inputs, **attrs)


@case("Range(0, 1e18, 1) of int64", "range_huge", "bytes", "--max-memory")
def m_range_huge(d):
    return on_x("Range", "range_huge", {"s": np.int64(0), "l": np.int64(10**18),
                                        "dl": np.int64(1)}, ["s", "l", "dl"])


@case("Range(0, NaN, 1) of float", "range_nan", "countable")
def m_range_nan(d):
    return on_x("Range", "range_nan", {"s": np.float32(0), "l": np.float32(np.nan),
                                       "dl": np.float32(1)}, ["s", "l", "dl"])


@case("OneHot with depth 10^12", "onehot_huge", "--max-memory")
def m_onehot_huge_depth(d):
    return on_x("OneHot", "onehot_huge", {"i": np.array([1], np.int64),
                                          "depth": np.int64(10**12),
                                          "v": np.array([0, 1], np.float32)}, ["i", "depth", "v"])


@case("Resize of float[2] by scale 1e12", "resize_huge", "bytes")
def m_resize_huge_scale(d):
    return on_x("Resize", "resize_huge", {"sc": np.array([1e12], np.float32)}, ["x", "", "sc"])


@case("Resize of float[2] by scale NaN", "resize_nan", "scales must be positive and finite")
def m_resize_nan_scale(d):
    return on_x("Resize", "resize_nan", {"sc": np.array([np.nan], np.float32)}, ["x", "", "sc"])


@case("Tile of float[2] repeated 10^12 times", "tile_huge", "--max-memory")
def m_tile_huge(d):
    return on_x("Tile", "tile_huge", {"r": np.array([10**12], np.int64)}, ["x", "r"])


@case("ConstantOfShape [10^6, 10^6]", "cos_huge", "--max-memory")
def m_constant_of_shape_huge(d):
    return on_x("ConstantOfShape", "cos_huge", {"sh": np.array([10**6, 10**6], np.int64)},
                ["sh"])


@case("Pad of float[2] by 10^12 at the end", "pad_huge", "--max-memory")
def m_pad_huge(d):
    return on_x("Pad", "pad_huge", {"p": np.array([0, 10**12], np.int64)}, ["x", "p"])


@case("Reshape to [2^32, 2^32, 2] (the element count wraps to 0 mod 2^64)", "reshape_wrap",
      "overflows")
def m_reshape_overflow(d):
    return on_x("Reshape", "reshape_wrap", {"sh": np.array([2**32, 2**32, 2], np.int64)},
                ["x", "sh"])


@case("Range with an empty start tensor (a fuzzer's crash)", "range_empty",
      "Range start must be a scalar")
def m_range_empty_start(d):
    return on_x("Range", "range_empty", {"s": np.zeros([0], np.int64), "l": np.int64(4),
                                         "dl": np.int64(1)}, ["s", "l", "dl"])


def linear_attention(rule: str, past_shape=None, decay_shape=None):
    """LinearAttention (opset 27) on q, k, v float[1, 2, 4], one head."""
    ins, vis = ["q", "k", "v"], [vi("q", [1, 2, 4]), vi("k", [1, 2, 4]), vi("v", [1, 2, 4])]
    for name, shape in (("past", past_shape), ("decay", decay_shape)):
        ins.append(name if shape else "")
        if shape:
            vis.append(vi(name, shape))
    n = helper.make_node("LinearAttention", ins, ["y", "state"], name="lin_attn",
                         update_rule=rule, q_num_heads=1, kv_num_heads=1)
    return model([n], vis, [vi("y", None), vi("state", None)], opset=27)


@case("LinearAttention with past_state [1,1,3,3] for dk = dv = 4 (a fuzzer's crash)",
      "lin_attn", "past_state must be [B, kv_num_heads, dk, dv] = [1, 1, 4, 4]")
def m_linear_attention_past_shape(d):
    return linear_attention("linear", past_shape=[1, 1, 3, 3])


@case("LinearAttention (gated) with a rank-2 decay", "lin_attn", "decay and beta must be")
def m_linear_attention_decay_rank(d):
    return linear_attention("gated", decay_shape=[1, 2])


# ---------------------------------------------------------------------------- driver
def generate(out_dir: Path, names=None) -> list[Path]:
    """Writes out_dir/<case>.onnx for each case and out_dir/expected.txt; returns the model paths."""
    out_dir.mkdir(parents=True, exist_ok=True)
    paths, manifest = [], []
    for name in names or CASES:
        c = CASES[name]
        built = c.build(out_dir / f"{name}_data")
        path = out_dir / f"{name}.onnx"
        if isinstance(built, bytes):
            path.write_bytes(built)
        else:
            save(built, path)
        paths.append(path)
        manifest.append(f"{name}.onnx\t{' | '.join(c.needles)}\t{c.doc}")
    (out_dir / "expected.txt").write_text(
        "# model\texpected stderr substrings (all of them, plus the model's file name)\twhat is broken\n"
        + "\n".join(manifest) + "\n")
    return paths


def has_check_command(dlc: str) -> bool:
    try:
        return subprocess.run([dlc, "check", "--help"], stdout=subprocess.DEVNULL,
                              stderr=subprocess.DEVNULL, timeout=60).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def run_cases(dlc: str, names: list[str], timeout: float, keep: bool, jit: bool) -> int:
    with_check = has_check_command(dlc)
    if not with_check:
        print("note: `dlc check --help` does not exit 0; testing `dlc compile` only", flush=True)
    tmp = Path(tempfile.mkdtemp(prefix="dlc_malformed_"))
    failures = total = 0
    try:
        models_dir = tmp / "models"
        generate(models_dir, names)
        (tmp / "out").mkdir()
        for name in names:
            path = models_dir / f"{name}.onnx"
            needles = CASES[name].needles
            out = tmp / "out" / f"{name}.so"
            cmds = [("compile", [dlc, "compile", str(path), "-o", str(out)])]
            if with_check:
                cmds.append(("check", [dlc, "check", str(path)]))
            if jit:
                cmds.append(("run", [dlc, "run", str(path)]))
            for what, cmd in cmds:
                total += 1
                try:
                    line = check_error(cmd, tmp, needles, timeout, one_line=True,
                                       needles_in_stdout=what == "check", model=path)
                    if what == "compile" and out.exists():
                        raise Fail(f"failed but left {out.name} behind")
                    print(f"PASS {name:<30} {what:<7} {line}", flush=True)
                except Fail as e:
                    failures += 1
                    print(f"FAIL {name:<30} {what:<7} {e}\n     command: {' '.join(cmd)}", flush=True)
    finally:
        if keep:
            print(f"kept {tmp}", flush=True)
        else:
            shutil.rmtree(tmp, ignore_errors=True)
    print(f"{total - failures}/{total} passed ({len(names)} malformed models)", flush=True)
    return 1 if failures else 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    mode = ap.add_mutually_exclusive_group(required=True)
    mode.add_argument("--generate", metavar="DIR", help="write the malformed models into DIR")
    mode.add_argument("--dlc", help="path to the dlc binary: generate into a temp dir and check")
    mode.add_argument("--list", action="store_true", help="list the cases")
    ap.add_argument("--timeout", type=float, default=120.0, help="seconds per dlc call")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directory")
    ap.add_argument("--jit", action="store_true",
                    help="also require the same of `dlc run MODEL.onnx` (JIT, no inputs given)")
    ap.add_argument("cases", nargs="*", metavar="CASE", help="cases (default: all)")
    args = ap.parse_args(argv)

    unknown = [c for c in args.cases if c not in CASES]
    if unknown:
        print(f"error: unknown case(s): {', '.join(unknown)}", file=sys.stderr)
        return 2
    names = args.cases or list(CASES)
    if args.list:
        for n in names:
            print(f"{n:<30} {CASES[n].doc}  [{' | '.join(CASES[n].needles)}]")
        return 0
    if args.generate:
        paths = generate(Path(args.generate), names)
        print(f"wrote {len(paths)} malformed models to {args.generate}")
        return 0
    dlc = os.path.abspath(args.dlc)
    if not (os.path.isfile(dlc) and os.access(dlc, os.X_OK)):
        print(f"error: dlc binary not found or not executable: {args.dlc}", file=sys.stderr)
        return 2
    return run_cases(dlc, names, args.timeout, args.keep, args.jit)


if __name__ == "__main__":
    sys.exit(main())

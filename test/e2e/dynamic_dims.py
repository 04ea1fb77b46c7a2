#!/usr/bin/env python3
# Dynamic dims end to end: models with symbolic dims compiled once (dlc compile --dims), run at
# several sizes and thread counts against ONNX Runtime; and the errors of out-of-range runs.
"""Check `dlc compile --dims` against ONNX Runtime.

Usage::

    dynamic_dims.py --dlc build/bin/dlc [--keep] [CASE ...]

Each model below declares symbolic dims (ONNX ``dim_param``s). It is compiled once with
``--dims NAME=MIN..MAX,...`` into one ``.so``; ``dlc info`` must list the dims; then for
every size set of the case and 1, 2 and 4 threads, ``dlc run`` on random inputs must match
ONNX Runtime within ``max|dlc - ref| / max(max|ref|, 1e-12) <= 1e-4`` with the exact
output shape. ``train``: a classifier with a symbolic batch compiled once with ``--train``
(its batch stays dynamic) trains at two batch sizes (check_train). The error cases require exit code 1 and one
``error:`` line naming what is wrong (the input and dim of an out-of-range run, the option,
the node).
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

RTOL = 1e-4
THREADS = (1, 2, 4)


def init(rng, name, shape, scale=0.2):
    return numpy_helper.from_array((rng.standard_normal(shape) * scale).astype(np.float32), name)


def model(nodes, inputs, outputs, inits, opset=17):
    g = helper.make_graph(nodes, "g", inputs, outputs, inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    onnx.checker.check_model(m)
    return m


def mlp(rng):
    """Gemm, Relu, Gemm, Softmax over a dynamic batch."""
    nodes = [helper.make_node("Gemm", ["x", "w1", "b1"], ["h"]),
             helper.make_node("Relu", ["h"], ["r"]),
             helper.make_node("Gemm", ["r", "w2", "b2"], ["z"], transB=1),
             helper.make_node("Softmax", ["z"], ["y"], axis=1)]
    return model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", 48])],
                 [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", 10])],
                 [init(rng, "w1", (48, 96)), init(rng, "b1", (96,)), init(rng, "w2", (10, 96)),
                  init(rng, "b2", (10,))])


def encoder_like(rng):
    """Batch and sequence dynamic: projections, a residual, LayerNorm, a mean over the
    sequence, a transpose and a reshape that splits heads."""
    nodes = [helper.make_node("MatMul", ["x", "wq"], ["q"]),
             helper.make_node("MatMul", ["m", "wk"], ["k"]),
             helper.make_node("Add", ["q", "k"], ["s"]),
             helper.make_node("Tanh", ["s"], ["t"]),
             helper.make_node("Add", ["t", "x"], ["res"]),
             helper.make_node("LayerNormalization", ["res", "g", "b"], ["ln"], axis=-1),
             helper.make_node("ReduceMean", ["ln"], ["pooled"], axes=[1], keepdims=0),
             helper.make_node("Transpose", ["ln"], ["tr"], perm=[1, 0, 2]),
             helper.make_node("Reshape", ["ln", "heads"], ["split"])]
    inits = [init(rng, "wq", (32, 32)), init(rng, "wk", (32, 32)),
             numpy_helper.from_array((1 + rng.standard_normal(32) * 0.1).astype(np.float32), "g"),
             init(rng, "b", (32,)),
             numpy_helper.from_array(np.array([0, 0, 4, 8], np.int64), "heads")]
    dims = ["batch", "seq", 32]
    return model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, dims),
                         helper.make_tensor_value_info("m", TensorProto.FLOAT, dims)],
                 [helper.make_tensor_value_info("pooled", TensorProto.FLOAT, ["batch", 32]),
                  helper.make_tensor_value_info("tr", TensorProto.FLOAT, ["seq", "batch", 32]),
                  helper.make_tensor_value_info("split", TensorProto.FLOAT,
                                                ["batch", "seq", 4, 8])],
                 inits)


def flatten_head(rng):
    """A [batch, 4, 6] input flattened (Flatten and Reshape with -1) into a classifier."""
    nodes = [helper.make_node("Flatten", ["x"], ["f"], axis=1),
             helper.make_node("MatMul", ["f", "w"], ["z"]),
             helper.make_node("Reshape", ["x", "shape"], ["flat"]),
             helper.make_node("ReduceMax", ["flat"], ["mx"], axes=[1], keepdims=1),
             helper.make_node("Sub", ["flat", "mx"], ["centered"]),
             helper.make_node("Exp", ["centered"], ["e"])]
    return model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 4, 6])],
                 [helper.make_tensor_value_info("z", TensorProto.FLOAT, ["n", 5]),
                  helper.make_tensor_value_info("e", TensorProto.FLOAT, ["n", 24])],
                 [init(rng, "w", (24, 5)),
                  numpy_helper.from_array(np.array([-1, 24], np.int64), "shape")])


def cnn(rng):
    """A small ResNet-like CNN over a dynamic batch: convs (3x3 implicit GEMM, strided and
    small-image im2col, 1x1, depthwise, grouped), a residual, pools, a global average pool,
    Flatten and Gemm."""
    nodes = [helper.make_node("Conv", ["x", "w0", "b0"], ["c0"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["c0"], ["r0"]),
             helper.make_node("MaxPool", ["r0"], ["p0"], kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("Conv", ["p0", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
             helper.make_node("Add", ["c1", "p0"], ["res"]),
             helper.make_node("Relu", ["res"], ["r1"]),
             helper.make_node("Conv", ["r1", "w2"], ["c2"], pads=[1, 1, 1, 1], strides=[2, 2]),
             helper.make_node("Conv", ["c2", "wd"], ["dw"], pads=[1, 1, 1, 1], group=32),
             helper.make_node("Conv", ["dw", "wg"], ["gc"], group=4),
             helper.make_node("AveragePool", ["gc"], ["ap"], kernel_shape=[3, 3],
                              pads=[1, 1, 1, 1], count_include_pad=0),
             helper.make_node("GlobalAveragePool", ["ap"], ["gap"]),
             helper.make_node("Flatten", ["gap"], ["f"]),
             helper.make_node("Gemm", ["f", "wf", "bf"], ["y"], transB=1)]
    inits = [init(rng, "w0", (16, 3, 3, 3)), init(rng, "b0", (16,)),
             init(rng, "w1", (16, 16, 3, 3)), init(rng, "b1", (16,)),
             init(rng, "w2", (32, 16, 3, 3)), init(rng, "wd", (32, 1, 3, 3)),
             init(rng, "wg", (32, 8, 1, 1)), init(rng, "wf", (10, 32)), init(rng, "bf", (10,))]
    return model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3, 24, 24])],
                 [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 10])], inits)


def ops_mix(rng):
    """The other ops the importer lets dynamic dims reach: activations, comparisons,
    Where, Clip, Cast, variadic Sum/Max, Pow, BatchNormalization, GlobalMaxPool, an
    opset-11 Softmax (which flattens to 2-D around its axis), Pads (constant, edge) of
    the static dims, and a per-tensor QuantizeLinear/DequantizeLinear round trip."""
    nodes = [helper.make_node("Sigmoid", ["x"], ["a"]),
             helper.make_node("HardSigmoid", ["x"], ["b"], alpha=0.3),
             helper.make_node("Softplus", ["x"], ["c"]),
             helper.make_node("Elu", ["x"], ["d"], alpha=0.7),
             helper.make_node("Clip", ["x", "lo", "hi"], ["e"]),
             helper.make_node("Erf", ["x"], ["f"]),
             helper.make_node("Sum", ["a", "b", "c"], ["s"]),
             helper.make_node("Max", ["d", "e", "f"], ["m"]),
             helper.make_node("Less", ["s", "m"], ["lt"]),
             helper.make_node("Where", ["lt", "s", "m"], ["w"]),
             helper.make_node("Abs", ["w"], ["aw"]),
             helper.make_node("Pow", ["aw", "two"], ["p"]),
             helper.make_node("BatchNormalization", ["p", "g", "bb", "mu", "var"], ["bn"]),
             helper.make_node("GlobalMaxPool", ["bn"], ["gmp"]),
             helper.make_node("Softmax", ["bn"], ["sm"], axis=2),
             helper.make_node("Cast", ["lt"], ["mask"], to=TensorProto.FLOAT),
             helper.make_node("Pad", ["sm", "pads"], ["padded"], mode="constant"),
             helper.make_node("Pad", ["sm", "pads"], ["edged"], mode="edge"),
             helper.make_node("QuantizeLinear", ["bn", "qs", "qz"], ["q"]),
             helper.make_node("DequantizeLinear", ["q", "qs", "qz"], ["dq"])]
    inits = [numpy_helper.from_array(np.array(-0.5, np.float32), "lo"),
             numpy_helper.from_array(np.array(0.8, np.float32), "hi"),
             numpy_helper.from_array(np.array(2.0, np.float32), "two"),
             init(rng, "g", (6,)), init(rng, "bb", (6,)), init(rng, "mu", (6,)),
             numpy_helper.from_array((1 + rng.random(6)).astype(np.float32), "var"),
             numpy_helper.from_array(np.array([0, 0, 1, 0, 0, 1, 0, 2], np.int64), "pads"),
             numpy_helper.from_array(np.array(0.05, np.float32), "qs"),
             numpy_helper.from_array(np.array(100, np.uint8), "qz")]
    return model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 6, 4, 5])],
                 [helper.make_tensor_value_info("gmp", TensorProto.FLOAT, ["n", 6, 1, 1]),
                  helper.make_tensor_value_info("sm", TensorProto.FLOAT, ["n", 6, 4, 5]),
                  helper.make_tensor_value_info("mask", TensorProto.FLOAT, ["n", 6, 4, 5]),
                  helper.make_tensor_value_info("padded", TensorProto.FLOAT, ["n", 7, 5, 7]),
                  helper.make_tensor_value_info("edged", TensorProto.FLOAT, ["n", 7, 5, 7]),
                  helper.make_tensor_value_info("dq", TensorProto.FLOAT, ["n", 6, 4, 5])],
                 inits, opset=11)


def head_targets():
    """The Reshape targets torch exports compute from x's shape: B and S read back (Gather,
    Unsqueeze) into [B, S, H, D] ("heads") and [B, S, E] ("merged")."""
    return [helper.make_node("Shape", ["x"], ["shape"]),
            helper.make_node("Gather", ["shape", "i0"], ["B"], axis=0),
            helper.make_node("Gather", ["shape", "i1"], ["S"], axis=0),
            helper.make_node("Unsqueeze", ["B", "ax0"], ["B1"]),
            helper.make_node("Unsqueeze", ["S", "ax0"], ["S1"]),
            helper.make_node("Concat", ["B1", "S1", "hd"], ["heads"], axis=0),
            helper.make_node("Concat", ["B1", "S1", "e"], ["merged"], axis=0)]


def attention(rng):
    """A BERT-style attention layer as torch exports it with dynamic axes: the batch and
    sequence read back from Shape (Gather, Unsqueeze, Concat) into Reshape targets, a
    padding mask, softmax, LayerNorm, and GPT-2's Conv1D pattern (flattened to [B*S, E],
    multiplied, viewed back as [B, S, E], which only the symbolic target can size)."""
    E, H = 32, 4
    D = E // H
    c = lambda name, v: numpy_helper.from_array(np.array(v, np.int64), name)
    nodes = [*head_targets(),
             helper.make_node("Mul", ["B", "S"], ["BS"]),
             helper.make_node("Unsqueeze", ["BS", "ax0"], ["BS1"]),
             helper.make_node("Concat", ["BS1", "e"], ["flat"], axis=0)]
    for n in "qkv":
        nodes += [helper.make_node("MatMul", ["x", f"w{n}"], [f"{n}0"]),
                  helper.make_node("Add", [f"{n}0", f"b{n}"], [f"{n}1"]),
                  helper.make_node("Reshape", [f"{n}1", "heads"], [f"{n}2"]),
                  helper.make_node("Transpose", [f"{n}2"], [f"{n}3"],
                                   perm=[0, 2, 3, 1] if n == "k" else [0, 2, 1, 3])]
    nodes += [helper.make_node("MatMul", ["q3", "k3"], ["sc0"]),
              helper.make_node("Div", ["sc0", "scale"], ["sc1"]),
              helper.make_node("Unsqueeze", ["mask", "ax12"], ["m1"]),
              helper.make_node("Sub", ["one", "m1"], ["m2"]),
              helper.make_node("Mul", ["m2", "neg"], ["m3"]),
              helper.make_node("Add", ["sc1", "m3"], ["sc2"]),
              helper.make_node("Softmax", ["sc2"], ["p"], axis=-1),
              helper.make_node("MatMul", ["p", "v3"], ["ctx0"]),
              helper.make_node("Transpose", ["ctx0"], ["ctx1"], perm=[0, 2, 1, 3]),
              helper.make_node("Reshape", ["ctx1", "merged"], ["ctx2"]),
              helper.make_node("MatMul", ["ctx2", "wo"], ["o"]),
              helper.make_node("Add", ["o", "x"], ["r"]),
              helper.make_node("LayerNormalization", ["r", "g", "bb"], ["ln"], axis=-1),
              helper.make_node("Reshape", ["ln", "flat"], ["ln2d"]),
              helper.make_node("MatMul", ["ln2d", "wc"], ["proj"]),
              helper.make_node("Reshape", ["proj", "merged"], ["y"]),
              # A narrow head (5 columns, not packed): its rows fold batch and sequence.
              helper.make_node("MatMul", ["ln", "wh"], ["head"])]
    inits = [c("i0", 0), c("i1", 1), c("ax0", [0]), c("ax12", [1, 2]), c("hd", [H, D]),
             c("e", [E]), numpy_helper.from_array(np.array(np.sqrt(D), np.float32), "scale"),
             numpy_helper.from_array(np.array(1.0, np.float32), "one"),
             numpy_helper.from_array(np.array(-10000.0, np.float32), "neg"),
             init(rng, "wo", (E, E)), init(rng, "wc", (E, E)), init(rng, "wh", (E, 5)),
             numpy_helper.from_array((1 + rng.standard_normal(E) * 0.1).astype(np.float32), "g"),
             init(rng, "bb", (E,))]
    for n in "qkv":
        inits += [init(rng, f"w{n}", (E, E)), init(rng, f"b{n}", (E,))]
    return model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", E]),
                         helper.make_tensor_value_info("mask", TensorProto.FLOAT, ["batch", "seq"])],
                 [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "seq", E]),
                  helper.make_tensor_value_info("head", TensorProto.FLOAT, ["batch", "seq", 5])],
                 inits)


def causal(rng, max_seq=64):
    """A GPT-2-style causal attention as torch exports it: one qkv MatMul cut by Split, the
    causal mask a [1, 1, M, M] constant sliced to [:seq, :seq] by ends read from Shape, the
    mask turned into -inf by Equal/Where; plus a Concat along a static axis of dynamic
    tensors and a first-token slice x[:, :1] (static size from a dynamic dim)."""
    E, H = 32, 4
    D = E // H
    c = lambda name, v: numpy_helper.from_array(np.array(v, np.int64), name)
    tril = np.tril(np.ones((max_seq, max_seq), np.float32))[None, None]
    nodes = [*head_targets(),
             helper.make_node("MatMul", ["x", "wqkv"], ["qkv"]),
             helper.make_node("Split", ["qkv", "split"], ["q0", "k0", "v0"], axis=2)]
    for n in "qkv":
        nodes += [helper.make_node("Reshape", [f"{n}0", "heads"], [f"{n}2"]),
                  helper.make_node("Transpose", [f"{n}2"], [f"{n}3"],
                                   perm=[0, 2, 3, 1] if n == "k" else [0, 2, 1, 3])]
    nodes += [helper.make_node("MatMul", ["q3", "k3"], ["sc0"]),
              helper.make_node("Mul", ["sc0", "scale"], ["sc1"]),
              helper.make_node("Slice", ["tril", "z1", "S1", "ax2", "one1"], ["m0"], name="mask_rows"),
              helper.make_node("Slice", ["m0", "z1", "S1", "ax3", "one1"], ["m1"]),
              helper.make_node("Equal", ["m1", "zero"], ["m2"]),
              helper.make_node("Where", ["m2", "ninf", "sc1"], ["sc2"]),
              helper.make_node("Softmax", ["sc2"], ["p"], axis=-1),
              helper.make_node("MatMul", ["p", "v3"], ["ctx0"]),
              helper.make_node("Transpose", ["ctx0"], ["ctx1"], perm=[0, 2, 1, 3]),
              helper.make_node("Reshape", ["ctx1", "merged"], ["ctx2"]),
              helper.make_node("Concat", ["ctx2", "x"], ["cat"], axis=2),
              helper.make_node("MatMul", ["cat", "wo"], ["y"]),
              helper.make_node("Slice", ["y", "z1", "one1", "ax1"], ["first"])]
    inits = [c("i0", 0), c("i1", 1), c("ax0", [0]), c("ax1", [1]), c("ax2", [2]), c("ax3", [3]),
             c("hd", [H, D]), c("e", [E]), c("split", [E, E, E]), c("z1", [0]), c("one1", [1]),
             numpy_helper.from_array(tril, "tril"),
             numpy_helper.from_array(np.array(1 / np.sqrt(D), np.float32), "scale"),
             numpy_helper.from_array(np.array(0.0, np.float32), "zero"),
             numpy_helper.from_array(np.array(-np.inf, np.float32), "ninf"),
             init(rng, "wqkv", (E, 3 * E)), init(rng, "wo", (2 * E, E))]
    return model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", E])],
                 [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "seq", E]),
                  helper.make_tensor_value_info("first", TensorProto.FLOAT, ["batch", 1, E])],
                 inits)


def matmul_ranks(rng):
    """MatMuls whose leading dims are several dynamic ones (the rows fold as one group):
    [n, h, s, k] x [k] (a vector), x [k, 8] (a narrow matrix) and x [k, 32] (packed), with
    k itself dynamic for the first two."""
    nodes = [helper.make_node("MatMul", ["x", "v"], ["y_vec"]),
             helper.make_node("MatMul", ["x", "w"], ["y_mat"]),
             helper.make_node("MatMul", ["z", "p"], ["y_packed"])]
    return model(nodes,
                 [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, "h", "s", "k"]),
                  helper.make_tensor_value_info("v", TensorProto.FLOAT, ["k"]),
                  helper.make_tensor_value_info("w", TensorProto.FLOAT, ["k", 8]),
                  helper.make_tensor_value_info("z", TensorProto.FLOAT, ["h", "s", 16])],
                 [helper.make_tensor_value_info("y_vec", TensorProto.FLOAT, [1, "h", "s"]),
                  helper.make_tensor_value_info("y_mat", TensorProto.FLOAT, [1, "h", "s", 8]),
                  helper.make_tensor_value_info("y_packed", TensorProto.FLOAT, ["h", "s", 32])],
                 [init(rng, "p", (16, 32))])


def gather_rows(rng):
    """Gather with indices computed at run time along a dynamic axis (their range check
    reads the axis's size when the model runs): rows of a [n, 6] table picked by
    int64 indices, then columns of the result by a constant pair; GatherND and
    GatherElements over the same dynamic dims."""
    nodes = [helper.make_node("Gather", ["table", "idx"], ["rows"], axis=0),
             helper.make_node("Gather", ["rows", "cols"], ["y"], axis=1),
             # The same rows as GatherND tuples of length 1, and GatherElements along them.
             helper.make_node("Unsqueeze", ["idx", "ax1"], ["tuples"]),
             helper.make_node("GatherND", ["table", "tuples"], ["y_nd"]),
             helper.make_node("Shape", ["rows"], ["rows_shape"]),
             helper.make_node("Expand", ["picks", "rows_shape"], ["picks_k"]),
             helper.make_node("GatherElements", ["rows", "picks_k"], ["y_el"], axis=1)]
    return model(nodes,
                 [helper.make_tensor_value_info("table", TensorProto.FLOAT, ["n", 6]),
                  helper.make_tensor_value_info("idx", TensorProto.INT64, ["k"])],
                 [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["k", 2]),
                  helper.make_tensor_value_info("y_nd", TensorProto.FLOAT, ["k", 6]),
                  helper.make_tensor_value_info("y_el", TensorProto.FLOAT, ["k", 6])],
                 [numpy_helper.from_array(np.array([5, -1], np.int64), "cols"),
                  numpy_helper.from_array(np.array([1], np.int64), "ax1"),
                  numpy_helper.from_array(np.array([[5, 0, 1, 2, 3, -6]], np.int64), "picks")])


def positions(rng, start=0):
    """Learned position embeddings as exporters write them: Range(0, seq, 1) over the
    sequence length read from Shape, gathered from a [64, E] table and added to x."""
    E = 16
    c = lambda name, v: numpy_helper.from_array(np.array(v, np.int64), name)
    nodes = [helper.make_node("Shape", ["x"], ["shape"]),
             helper.make_node("Gather", ["shape", "i1"], ["S"], axis=0),
             helper.make_node("Range", ["r0", "S", "r1"], ["pos"], name="positions"),
             helper.make_node("Gather", ["table", "pos"], ["emb"], axis=0),
             helper.make_node("Add", ["x", "emb"], ["y"])]
    return model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "seq", E])],
                 [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["batch", "seq", E])],
                 [c("i1", 1), c("r0", start), c("r1", 1), init(rng, "table", (64, E))])


# name: (builder, --dims, list of {symbol: size} to run)
CASES = {
    "mlp": (mlp, "batch=1..64", [{"batch": 1}, {"batch": 3}, {"batch": 17}, {"batch": 64}]),
    "encoder_like": (encoder_like, "batch=1..8,seq=1..512",
                     [{"batch": 1, "seq": 1}, {"batch": 3, "seq": 7}, {"batch": 1, "seq": 128},
                      {"batch": 8, "seq": 500}]),
    "flatten_head": (flatten_head, "n=1..32", [{"n": 1}, {"n": 5}, {"n": 32}]),
    "cnn": (cnn, "n=1..16", [{"n": 1}, {"n": 3}, {"n": 16}]),
    "ops_mix": (ops_mix, "n=1..9", [{"n": 1}, {"n": 2}, {"n": 9}]),
    "attention": (attention, "batch=1..8,seq=1..512",
                  [{"batch": 1, "seq": 1}, {"batch": 1, "seq": 7}, {"batch": 3, "seq": 128},
                   {"batch": 8, "seq": 500}]),
    "matmul_ranks": (matmul_ranks, "h=1..4,s=1..9,k=1..5",
                     [{"h": 1, "s": 1, "k": 1}, {"h": 2, "s": 9, "k": 3},
                      {"h": 4, "s": 5, "k": 5}]),
    "gather_rows": (gather_rows, "n=1..8,k=1..4", [{"n": 1, "k": 1}, {"n": 8, "k": 4},
                                                    {"n": 3, "k": 2}]),
    "positions": (positions, "batch=1..4,seq=1..64",
                  [{"batch": 1, "seq": 1}, {"batch": 2, "seq": 37}, {"batch": 4, "seq": 64}]),
    "causal": (causal, "batch=1..4,seq=1..64",
               [{"batch": 1, "seq": 1}, {"batch": 1, "seq": 7}, {"batch": 3, "seq": 33},
                {"batch": 4, "seq": 64}]),
}


def run(cmd, cwd):
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=600)


def shape_of(vi, sizes):
    return [sizes[d.dim_param] if d.dim_param else d.dim_value
            for d in vi.type.tensor_type.shape.dim]


def check_case(dlc, name, work):
    build, dims, size_sets = CASES[name]
    rng = np.random.default_rng(0)
    m = build(rng)
    d = work / name
    d.mkdir()
    onnx.save(m, d / "model.onnx")
    r = run([dlc, "compile", "model.onnx", "--dims", dims, "-o", "model.so"], d)
    if r.returncode:
        return f"compile failed: {r.stderr.strip()}"
    info = run([dlc, "info", "model.so"], d).stdout
    for spec in dims.split(","):
        sym, rng_text = spec.split("=")
        if f"dim '{sym}' {rng_text}" not in info:
            return f"dlc info does not list dim '{sym}' {rng_text}:\n{info}"
    sess = ort.InferenceSession(str(d / "model.onnx"), providers=["CPUExecutionProvider"])
    worst = 0.0
    for sizes in size_sets:
        feeds = {vi.name: rng.standard_normal(shape_of(vi, sizes)).astype(np.float32)
                 for vi in m.graph.input}
        for vi in m.graph.input:  # int64 inputs: class indices in [0, c), else in [-5, 5)
            if vi.type.tensor_type.elem_type == TensorProto.INT64:
                lo, hi = (0, sizes["c"]) if "c" in sizes else (-5, 5)
                feeds[vi.name] = rng.integers(lo, hi, feeds[vi.name].shape).astype(np.int64)
        if "idx" in feeds:  # row indices of the table, negative ones too
            n = feeds["table"].shape[0]
            feeds["idx"] = rng.integers(-n, n, feeds["idx"].shape).astype(np.int64)
        for vi in m.graph.input:  # uint8 inputs: any byte
            if vi.type.tensor_type.elem_type == TensorProto.UINT8:
                feeds[vi.name] = rng.integers(0, 256, feeds[vi.name].shape).astype(np.uint8)
        if "wi" in feeds:  # write positions that keep the update inside the cache
            room = feeds["past"].shape[2] - feeds["upd"].shape[2]
            feeds["wi"] = rng.integers(0, room + 1, feeds["wi"].shape).astype(np.int64)
        if "pos" in feeds:  # positions in the caches (12 rows)
            feeds["pos"] = rng.integers(0, 12, feeds["pos"].shape).astype(np.int64)
        if "lens" in feeds:  # each batch's sequence length, 0..s (int32 or int64)
            wide = any(vi.name == "lens" and vi.type.tensor_type.elem_type == TensorProto.INT64
                       for vi in m.graph.input)
            feeds["lens"] = rng.integers(0 if wide else 1, feeds["x"].shape[0] + 1,
                                         feeds["lens"].shape).astype(np.int64 if wide else np.int32)
        if "kv_lens" in feeds:  # each batch's key length, 1..t
            feeds["kv_lens"] = rng.integers(1, feeds["k"].shape[2] + 1,
                                            feeds["kv_lens"].shape).astype(np.int64)
        if "mask" in feeds:  # a padding mask: ones, then zeros
            seq = feeds["mask"].shape[1]
            feeds["mask"] = (np.arange(seq) <= seq // 2).astype(np.float32)[None].repeat(
                feeds["mask"].shape[0], 0)
        refs = sess.run(None, feeds)
        args = []
        for k, v in feeds.items():
            np.save(d / f"{k}.npy", v)
            args += ["--input", f"{k}={k}.npy"]
        for threads in THREADS:
            out = d / f"out_{threads}"
            shutil.rmtree(out, ignore_errors=True)
            r = run([dlc, "run", "model.so", *args, "--threads", str(threads), "--output-dir",
                     str(out)], d)
            if r.returncode:
                return f"run {sizes} at {threads} threads failed: {r.stderr.strip()}"
            for vi, ref in zip(m.graph.output, refs):
                got = np.load(out / f"{vi.name}.npy")
                if got.shape != ref.shape:
                    return f"{vi.name} at {sizes}: shape {got.shape}, expected {ref.shape}"
                err = float(np.max(np.abs(got - ref)) / max(float(np.max(np.abs(ref))), 1e-12))
                worst = max(worst, err)
                if not err <= RTOL:
                    return f"{vi.name} at {sizes}, {threads} threads: error {err:.3g} > {RTOL}"
    print(f"  worst relative error {worst:.3g}")
    return None


def expect_error(dlc, cwd, args, needles):
    r = run([dlc, *args], cwd)
    lines = [line for line in r.stderr.splitlines() if line.startswith("error:")]
    if r.returncode != 1 or len(lines) != 1 or not r.stderr.startswith("error:"):
        return f"dlc {' '.join(args)}: exit {r.returncode}, stderr {r.stderr!r}"
    missing = [n for n in needles if n not in r.stderr]
    return f"dlc {' '.join(args)}: {r.stderr.strip()!r} lacks {missing}" if missing else None


def losses(text):
    return [float(line.split()[3]) for line in text.splitlines() if line.startswith("step ")]


def check_train(dlc, work):
    """A classifier with a symbolic batch, compiled once with --train, trains with
    --batch 60 and --batch 7 (the set's last batch partial); at batch 60 its first 16 steps
    (before any partial batch) match a step compiled for batches of 60 within 1e-5; the
    saved model keeps the symbolic dim."""
    d = work / "train"
    d.mkdir()
    rng = np.random.default_rng(3)
    n, classes = 1000, 10
    centers = rng.standard_normal((classes, 24)).astype(np.float32)
    labels = rng.integers(0, classes, n)
    x = (0.5 * centers[labels] + rng.standard_normal((n, 24))).astype(np.float32)
    np.savez(d / "data.npz", x=x, labels=labels.astype(np.int64))
    nodes = [helper.make_node("Gemm", ["x", "w0", "b0"], ["h"], transB=1),
             helper.make_node("Relu", ["h"], ["r"]),
             helper.make_node("Gemm", ["r", "w1", "b1"], ["y"], transB=1)]
    m = model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 24])],
              [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", classes])],
              [init(rng, "w0", (32, 24)), init(rng, "b0", (32,)), init(rng, "w1", (classes, 32)),
               init(rng, "b1", (classes,))])
    onnx.save(m, d / "cls.onnx")
    common = ["--train", "--loss=xent:y", "--optimizer=sgd:lr=0.05,momentum=0.9"]
    # Without --dims a training step keeps the symbolic batch dynamic (1..65536).
    for args, out in [([], "dyn.so"), (["--input-shape", "x=60x24"], "s60.so"),
                      (["--dims", "N=1..128"], "dyn128.so")]:
        r = run([dlc, "compile", "cls.onnx", *common, *args, "-o", out], d)
        if r.returncode:
            return f"compile {args}: {r.stderr.strip()}"
    got = {}
    for so, batch, extra in [("dyn.so", 60, ["--save-onnx", "trained.onnx"]), ("s60.so", 60, []),
                             ("dyn.so", 7, [])]:
        r = run([dlc, "train", so, "--data", "data.npz", "--steps", "40", "--batch", str(batch),
                 *extra], d)
        if r.returncode:
            return f"train {so} --batch {batch}: {r.stderr.strip()}"
        got[(so, batch)] = losses(r.stdout)
    for key, l in got.items():
        if len(l) != 40 or not np.mean(l[-5:]) < 0.8 * np.mean(l[:5]):
            return f"{key}: the loss did not decrease ({l[:3]} ... {l[-3:]})"
    diff = np.max(np.abs(np.array(got[("dyn.so", 60)][:16]) - np.array(got[("s60.so", 60)][:16])))
    if diff > 1e-5:
        return f"batch-60 losses differ from the static step's by {diff:.2e}"
    dims = [dd.dim_param or dd.dim_value
            for dd in onnx.load(d / "trained.onnx").graph.input[0].type.tensor_type.shape.dim]
    if dims != ["N", 24]:
        return f"the saved model's input dims are {dims}, expected ['N', 24]"
    info = run([dlc, "info", "dyn.so"], d).stdout
    if "dim 'N' 1..65536" not in info:
        return f"a training step without --dims should keep N dynamic:\n{info}"
    r = run([dlc, "train", "dyn128.so", "--data", "data.npz", "--steps", "1", "--batch", "200"], d)
    if r.returncode != 1 or "takes batches of N in [1, 128]" not in r.stderr:
        return f"--batch 200: exit {r.returncode}, {r.stderr.strip()!r}"
    print(f"  batch 60: loss {got[('dyn.so', 60)][0]:.3f} -> {got[('dyn.so', 60)][-1]:.3f}; "
          f"batch 7: {got[('dyn.so', 7)][0]:.3f} -> {got[('dyn.so', 7)][-1]:.3f}; "
          f"static-batch difference {diff:.1e}")
    return None


def check_errors(dlc, work):
    d = work / "errors"
    d.mkdir()
    rng = np.random.default_rng(1)
    onnx.save(encoder_like(rng), d / "enc.onnx")
    onnx.save(mlp(rng), d / "mlp.onnx")
    if run([dlc, "compile", "enc.onnx", "--dims", "batch=1..8,seq=2..16", "-o", "enc.so"],
           d).returncode:
        return "compiling enc.onnx failed"
    np.save(d / "x_long.npy", np.zeros((2, 17, 32), np.float32))
    np.save(d / "x_short.npy", np.zeros((2, 1, 32), np.float32))
    np.save(d / "x.npy", np.zeros((2, 5, 32), np.float32))
    np.save(d / "m_other.npy", np.zeros((3, 5, 32), np.float32))
    np.save(d / "x_wide.npy", np.zeros((2, 5, 31), np.float32))
    cases = [
        (["run", "enc.so", "--input", "x=x_long.npy", "--input", "m=x.npy"],
         ["input 'x'", "dim 1 (seq) is 17", "[2, 16]"]),
        (["run", "enc.so", "--input", "x=x_short.npy", "--input", "m=x_short.npy"],
         ["input 'x'", "dim 1 (seq) is 1", "[2, 16]"]),
        (["run", "enc.so", "--input", "x=x.npy", "--input", "m=m_other.npy"],
         ["input 'm'", "dim 0 (batch) is 3", "input 'x' set batch to 2"]),
        (["run", "enc.so", "--input", "x=x_wide.npy", "--input", "m=x.npy"],
         ["input 'x'", "[batch,seq,32]", "[2,5,31]"]),
        (["compile", "mlp.onnx", "--dims", "bogus=1..4", "-o", "m.so"],
         ["no input of the model has a symbolic dim named 'bogus'"]),
        (["compile", "mlp.onnx", "--dims", "batch=4..1", "-o", "m.so"],
         ["invalid --dims 'batch=4..1'"]),
        (["compile", "mlp.onnx", "--dims", "batch=1-4", "-o", "m.so"],
         ["invalid --dims 'batch=1-4'", "NAME=MIN..MAX"]),
        (["compile", "mlp.onnx", "--dims", "batch=1..4,batch=1..8", "-o", "m.so"],
         ["--dims names 'batch' twice"]),
    ]
    # An index past a dynamic axis: the run fails naming the node and the symbolic range.
    onnx.save(gather_rows(rng), d / "gather.onnx")
    if run([dlc, "compile", "gather.onnx", "--dims", "n=1..8,k=1..4", "-o", "gather.so"],
           d).returncode:
        return "compiling gather.onnx failed"
    np.save(d / "table.npy", np.zeros((3, 6), np.float32))
    np.save(d / "idx.npy", np.array([0, 3], np.int64))
    cases.append((["run", "gather.so", "--input", "table=table.npy", "--input", "idx=idx.npy"],
                  ["(Gather): an index of input 1 is out of range; expected [-n, n)"]))
    # A Range to the sequence length must start at 0 (its length is then the symbol).
    onnx.save(positions(rng, start=1), d / "positions.onnx")
    cases.append((["compile", "positions.onnx", "--dims", "batch=1..4,seq=1..64", "-o", "r.so"],
                  ["node 'positions'", "a Range to a size of the dynamic dims (seq) must start "
                   "at 0 with step 1"]))
    # A causal mask of 64 rows sliced to [:seq] meets the scores' seq rows: compiled as
    # equal, a run with seq 65 fails before it starts.
    onnx.save(causal(rng), d / "causal.onnx")
    if run([dlc, "compile", "causal.onnx", "--dims", "batch=1..4,seq=1..65", "-o", "c.so"],
           d).returncode:
        return "compiling causal.onnx for seq up to 65 failed"
    np.save(d / "x65.npy", np.zeros((1, 65, 32), np.float32))
    cases.append((["run", "c.so", "--input", "x=x65.npy"],
                  ["(Where): dim 2 of input 0 (min(seq,64)) and dim 2 of input 2 (seq) differ",
                   "(here 64 and 65)"]))
    c = lambda name, v: numpy_helper.from_array(np.array(v, np.int64), name)
    x_n = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 6])]
    # A dim_param that reads as a size expression cannot stay dynamic.
    odd = model([helper.make_node("Relu", ["x"], ["y"])],
                [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n+1", 6])],
                [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n+1", 6])], [])
    onnx.save(odd, d / "odd.onnx")
    cases.append((["compile", "odd.onnx", "--dims", "n+1=1..4", "-o", "o.so"],
                  ["input 'x' dim 0: symbolic dim 'n+1' cannot stay dynamic"]))
    # Split sizes along a dynamic dim must sum to its size when the model runs.
    split = model([helper.make_node("Split", ["x", "halves"], ["y", "y2"], axis=0, name="split_n")],
                  x_n, [helper.make_tensor_value_info(o, TensorProto.FLOAT, [None, 6])
                        for o in ("y", "y2")], [c("halves", [1, 1])])
    onnx.save(split, d / "split.onnx")
    r = run([dlc, "compile", "split.onnx", "--dims", "n=1..8", "-o", "split.so"], d)
    if r.returncode:
        return f"split.onnx: {r.stderr.strip()}"
    np.save(d / "x3.npy", np.zeros((3, 6), np.float32))
    cases.append((["run", "split.so", "--input", "x=x3.npy"],
                  ["node 'split_n' (Split): split sizes [1,1] do not sum to dim 0 (n)"]))
    # A window larger than a dynamic image dim fails the run before it starts; SAME pads
    # of a strided window over one are not supported.
    img = [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, "h", 4])]
    pool = model([helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[3, 3], name="pool_h")],
                 img, [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1, None, 2])], [])
    onnx.save(pool, d / "pool.onnx")
    r = run([dlc, "compile", "pool.onnx", "--dims", "h=1..8", "-o", "pool.so"], d)
    if r.returncode:
        return f"pool.onnx: {r.stderr.strip()}"
    np.save(d / "img2.npy", np.zeros((1, 1, 2, 4), np.float32))
    cases.append((["run", "pool.so", "--input", "x=img2.npy"],
                  ["node 'pool_h' (MaxPool): image dim h of input 0 is smaller than the window: "
                   "it must be at least 3", "(here 2 and 3)"]))
    # A constant computed from a graph input's value names that input.
    tail = model([helper.make_node("Add", ["len", "one"], ["len1"]),
                  helper.make_node("Range", ["zero", "len1", "one"], ["y"], name="ramp")],
                 [helper.make_tensor_value_info("len", TensorProto.INT64, [])],
                 [helper.make_tensor_value_info("y", TensorProto.INT64, [None])],
                 [c("zero", 0), c("one", 1)])
    onnx.save(tail, d / "ramp.onnx")
    cases.append((["compile", "ramp.onnx", "-o", "ramp.so"],
                  ["node 'ramp' (Range", "it is computed from graph input 'len', whose value "
                   "must then be known when compiling (dlc compile --input-value len=FILE)"]))
    # TopK's k larger than a dynamic axis fails the run.
    top = model([helper.make_node("TopK", ["x", "k3"], ["v", "i"], axis=1, name="top3")],
                [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, "m"])],
                [helper.make_tensor_value_info("v", TensorProto.FLOAT, [2, 3]),
                 helper.make_tensor_value_info("i", TensorProto.INT64, [2, 3])], [c("k3", [3])])
    onnx.save(top, d / "top.onnx")
    r = run([dlc, "compile", "top.onnx", "--dims", "m=1..8", "-o", "top.so"], d)
    if r.returncode:
        return f"top.onnx: {r.stderr.strip()}"
    np.save(d / "m2.npy", np.zeros((2, 2), np.float32))
    cases.append((["run", "top.so", "--input", "x=m2.npy"],
                  ["node 'top3' (TopK)", "k - 1 (k = 3, at most the size of dim 1)"]))
    wide = model([helper.make_node("Conv", ["x", "w"], ["y"], name="wide_k")],
                 [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 1, 99]),
                  helper.make_tensor_value_info("w", TensorProto.FLOAT, [1, 1, "k"])],
                 [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1, None])], [])
    onnx.save(wide, d / "wide.onnx")
    cases.append((["compile", "wide.onnx", "--dims", "k=1..99", "-o", "wide.so"],
                  ["node 'wide_k' (Conv", "a kernel dim of dynamic size (k) must be bounded by 1 "
                   "to 64"]))
    # GatherND's tuple length sets the result's rank: compiled for its greatest size, a run
    # with a shorter one fails (one with that size gives NumPy's answer).
    gnd = model([helper.make_node("GatherND", ["x", "i"], ["y"], name="pick")],
                [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3]),
                 helper.make_tensor_value_info("i", TensorProto.INT64, ["k", "t"])],
                [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["k"])], [])
    onnx.save(gnd, d / "gnd.onnx")
    if run([dlc, "compile", "gnd.onnx", "--dims", "n=1..4,k=1..3,t=1..2", "-o", "gnd.so"],
           d).returncode:
        return "compiling gnd.onnx failed"
    table = np.arange(12, dtype=np.float32).reshape(4, 3)
    np.save(d / "gx.npy", table)
    np.save(d / "i2.npy", np.array([[1, 2], [3, 0]], np.int64))
    np.save(d / "i1.npy", np.array([[1], [2]], np.int64))
    r = run([dlc, "run", "gnd.so", "--input", "x=gx.npy", "--input", "i=i2.npy",
             "--output-dir", "gout"], d)
    if r.returncode or not np.array_equal(np.load(d / "gout" / "y.npy"), table[[1, 3], [2, 0]]):
        return f"gnd.so: {r.stderr.strip() or 'differs from NumPy'}"
    cases.append((["run", "gnd.so", "--input", "x=gx.npy", "--input", "i=i1.npy"],
                  ["node 'pick' (GatherND)", "(t) and the size 2 differ"]))
    for args, needles in cases:
        if msg := expect_error(dlc, d, args, needles):
            return msg
    # An op without dynamic-dim support yet: a clear error naming the node.
    tril = model([helper.make_node("RoiAlign", ["x", "rois", "bi"], ["y"], name="lower",
                                   output_height=2, output_width=2, sampling_ratio=2)],
                 [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 1, 5, 5])],
                 [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 1, 2, 2])],
                 [numpy_helper.from_array(np.array([[0, 0, 3, 3]], np.float32), "rois"),
                  numpy_helper.from_array(np.zeros(1, np.int64), "bi")])
    onnx.save(tril, d / "tril.onnx")
    if msg := expect_error(dlc, d, ["compile", "tril.onnx", "--dims", "n=1..4", "-o", "p.so"],
                           ["lower", "has dynamic dims (--dims), which this op does not support"]):
        return msg
    return None


def run_main(description, names, check, prefix):
    """Parses --dlc/--keep/CASE..., runs check(dlc, name, work) for the given cases (all of
    `names` by default) and exits 1 if any failed."""
    ap = argparse.ArgumentParser(description=description)
    ap.add_argument("--dlc", required=True)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("cases", nargs="*")
    args = ap.parse_args()
    dlc = str(Path(args.dlc).resolve())
    work = Path(tempfile.mkdtemp(prefix=prefix))
    failures = 0
    try:
        for name in args.cases or names:
            msg = check(dlc, name, work)
            print(f"{'FAIL' if msg else 'ok  '} {name}" + (f": {msg}" if msg else ""), flush=True)
            failures += bool(msg)
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if failures else 0)


def main():
    run_main(__doc__.split("\n")[0], [*CASES, "train", "errors"],
             lambda dlc, name, work: (check_errors(dlc, work) if name == "errors"
                                      else check_train(dlc, work) if name == "train"
                                      else check_case(dlc, name, work)),
             "dlc-dynamic-")


if __name__ == "__main__":
    main()

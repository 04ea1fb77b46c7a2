#!/usr/bin/env python3
# Dynamic dims, part 2: the sizes exporters compute from shapes (heads checks that pick a
# branch, ConstantOfShape, Expand) and sizes that are sums and quotients of the symbolic dims
# (Concat and Pad along a dynamic dim, slices, pools and convolutions over dynamic image dims).
"""Check more `dlc compile --dims` models against ONNX Runtime.

Usage::

    dynamic_sizes.py --dlc build/bin/dlc [--keep] [CASE ...]

Same contract as dynamic_dims.py (whose runner this reuses): each model is compiled once
with ``--dims``, ``dlc info`` must list the dims, and every size set at 1, 2 and 4 threads
must match ONNX Runtime within a relative error of 1e-4 with the exact output shape.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, str(Path(__file__).resolve().parent))
import dynamic_dims as dd  # noqa: E402


def ints(name, v):
    return numpy_helper.from_array(np.array(v, np.int64), name)


def heads_logic(rng, kv_heads="h"):
    """What ONNX's Attention function body computes from shapes: the query and key heads
    compared (Equal, Not, Mod, And, Where pick the repeat count 1), K expanded to
    [B, H, 1, S, D] by a shape from Concat and reshaped back; a zero bias from
    ConstantOfShape([S, S]) added to the scores. With `kv_heads` another symbol (grouped
    query attention), the Where's condition is decided only when the model runs."""
    dim = lambda t, a: helper.make_node("Shape", [t], [f"{t}{a}"], start=a, end=a + 1)
    nodes = [dim("q", 0), dim("q", 1), dim("k", 1), dim("q", 2), dim("q", 3),
             helper.make_node("Equal", ["q1", "k1"], ["same"]),
             helper.make_node("Not", ["same"], ["gqa1"]),
             helper.make_node("Div", ["q1", "k1"], ["ratio"]),
             helper.make_node("Mod", ["q1", "k1"], ["rem"]),
             helper.make_node("Equal", ["rem", "zero"], ["gqa2"]),
             helper.make_node("And", ["gqa1", "gqa2"], ["gqa"]),
             helper.make_node("Where", ["gqa", "ratio", "one"], ["rep"]),
             helper.make_node("Unsqueeze", ["k", "two"], ["ku"]),
             helper.make_node("Concat", ["q0", "k1", "rep", "q2", "q3"], ["kshape"], axis=0),
             helper.make_node("Expand", ["ku", "kshape"], ["kx"]),
             helper.make_node("Concat", ["q0", "q1", "q2", "q3"], ["qshape"], axis=0),
             helper.make_node("Reshape", ["kx", "qshape"], ["kr"]),
             helper.make_node("Transpose", ["kr"], ["kt"], perm=[0, 1, 3, 2]),
             helper.make_node("MatMul", ["q", "kt"], ["scores"]),
             helper.make_node("Concat", ["q2", "q2"], ["bshape"], axis=0),
             helper.make_node("ConstantOfShape", ["bshape"], ["bias"],
                              value=numpy_helper.from_array(np.array([0.5], np.float32))),
             helper.make_node("Add", ["scores", "bias"], ["y"])]
    shape = ["b", "h", "s", "d"]
    nodes[-1].name = "scores_bias"
    nodes[7].name = "repeats"
    return dd.model(nodes, [helper.make_tensor_value_info("q", TensorProto.FLOAT, shape),
                            helper.make_tensor_value_info("k", TensorProto.FLOAT,
                                                          ["b", kv_heads, "s", "d"])],
                    [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["b", "h", "s", "s"])],
                    [ints("zero", [0]), ints("one", [1]), ints("two", [2])], opset=18)


def losses(rng):
    """SoftmaxCrossEntropyLoss (mean, with its log-probabilities) and
    NegativeLogLikelihoodLoss (none, ignore_index 0) over [n, c, k] scores: the classes,
    the mean's element count and the target range check read at run time."""
    nodes = [helper.make_node("SoftmaxCrossEntropyLoss", ["x", "t"], ["loss", "logp"]),
             helper.make_node("NegativeLogLikelihoodLoss", ["logp", "t"], ["each"],
                              reduction="none", ignore_index=0)]
    return dd.model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", "c", "k"]),
                            helper.make_tensor_value_info("t", TensorProto.INT64, ["n", "k"])],
                    [helper.make_tensor_value_info("loss", TensorProto.FLOAT, []),
                     helper.make_tensor_value_info("logp", TensorProto.FLOAT, ["n", "c", "k"]),
                     helper.make_tensor_value_info("each", TensorProto.FLOAT, ["n", "k"])],
                    [], opset=13)


def sums(rng):
    """Sizes that are sums and quotients of the symbols: a Concat along a dynamic dim, Pads
    (constant with a crop, reflect, edge) of dynamic dims, a Split of one into
    num_outputs=2 pieces (ceil(b/2) and the rest), a Reshape with -1 and a Flatten; the
    outputs' dims are derived sizes the run sets."""
    nodes = [helper.make_node("Concat", ["x", "y"], ["xy"], axis=1),
             helper.make_node("Pad", ["xy", "pads"], ["padded"]),
             helper.make_node("Pad", ["x", "reflect_pads"], ["mirrored"], mode="reflect"),
             helper.make_node("Pad", ["y", "edge_pads"], ["edged"], mode="edge"),
             helper.make_node("Split", ["x"], ["left", "right"], axis=1, num_outputs=2),
             helper.make_node("Concat", ["right", "left", "y"], ["swapped"], axis=1),
             helper.make_node("Reshape", ["swapped", "flat"], ["row"]),
             helper.make_node("Flatten", ["xy"], ["flattened"], axis=0)]
    f = lambda name, dims: helper.make_tensor_value_info(name, TensorProto.FLOAT, dims)
    return dd.model(nodes, [f("x", ["a", "b"]), f("y", ["a", "c"])],
                    [f("padded", [None, None]), f("mirrored", [None, None]), f("edged", [None, None]),
                     f("row", [1, None]), f("flattened", [1, None])],
                    [ints("pads", [1, 2, 0, -1]), ints("reflect_pads", [0, 1, 0, 1]),
                     ints("edge_pads", [2, 0, 1, 3]), ints("flat", [1, -1])], opset=18)


def slices(rng):
    """Slices of dynamic dims with ONNX's clamping: x[1:], x[-2:], x[:-1], x[::2],
    x[::-1], x[1:-1], x[-3:-1], x[:3] and a slice to a size computed from another
    input's shape (x[:, :k]), concatenated back so every result is compared."""
    specs = [([1], [2**62], [1]), ([-2], [2**62], [1]), ([0], [-1], [1]), ([0], [2**62], [2]),
             ([-1], [-2**62], [-1]), ([1], [-1], [1]), ([-3], [-1], [1]), ([0], [3], [1])]
    nodes, inits, parts = [], [ints("ax1", [1])], []
    for i, (st, en, sp) in enumerate(specs):
        inits += [ints(f"st{i}", st), ints(f"en{i}", en), ints(f"sp{i}", sp)]
        nodes.append(helper.make_node("Slice", ["x", f"st{i}", f"en{i}", "ax1", f"sp{i}"], [f"p{i}"]))
        parts.append(f"p{i}")
    nodes += [helper.make_node("Concat", parts, ["y"], axis=1),
              helper.make_node("Shape", ["k"], ["kshape"], start=0, end=1),
              helper.make_node("Slice", ["x", "zero", "kshape", "ax1"], ["upto_k"])]
    inits.append(ints("zero", [0]))
    f = lambda name, dims: helper.make_tensor_value_info(name, TensorProto.FLOAT, dims)
    return dd.model(nodes, [f("x", ["a", "b"]), f("k", ["k"])],
                    [f("y", ["a", None]), f("upto_k", ["a", None])], inits, opset=18)


def meet(rng):
    """Dims of different symbols that meet (an Add of [n, k] and [n, m], a MatMul over k
    and m, a Concat whose other dims are k and m): compiled as equal, run with k == m
    (a run where they differ fails before it starts: e2e-dynamic errors)."""
    nodes = [helper.make_node("Add", ["x", "y"], ["s"]),
             helper.make_node("Transpose", ["y"], ["yt"], perm=[1, 0]),
             helper.make_node("MatMul", ["s", "yt"], ["p"]),
             helper.make_node("Concat", ["x", "y"], ["c"], axis=0)]
    f = lambda name, dims: helper.make_tensor_value_info(name, TensorProto.FLOAT, dims)
    return dd.model(nodes, [f("x", ["n", "k"]), f("y", ["n", "m"])],
                    [f("p", ["n", "n"]), f("c", [None, "k"])], [], opset=18)


def windows(rng):
    """Convolutions and pools over dynamic image dims (h, w): a padded conv, a ceil-mode
    max pool whose last window would start in the padding, a strided conv with
    asymmetric pads, an average pool not counting the pads, grouped and depthwise convs,
    a ceil-mode average pool counting them, a 1-D conv and a 3-D max pool; the numbers
    of windows are derived sizes the run sets."""
    w = lambda name, shape: numpy_helper.from_array(
        (rng.standard_normal(shape) * 0.3).astype(np.float32), name)
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[3, 3], strides=[2, 2],
                         pads=[0, 0, 1, 1], ceil_mode=1),
        helper.make_node("Conv", ["p1", "w2"], ["c2"], kernel_shape=[3, 3], strides=[2, 2],
                         pads=[1, 0, 1, 0]),
        helper.make_node("AveragePool", ["c2"], ["p2"], kernel_shape=[3, 2], pads=[1, 1, 1, 0],
                         strides=[1, 2], count_include_pad=0),
        helper.make_node("Conv", ["p2", "w3"], ["c3"], group=4, kernel_shape=[3, 3],
                         pads=[1, 1, 1, 1]),
        helper.make_node("Conv", ["c3", "w4"], ["c4"], group=8, kernel_shape=[3, 3],
                         pads=[1, 1, 1, 1], dilations=[2, 1]),
        helper.make_node("AveragePool", ["c4"], ["y"], kernel_shape=[2, 2], pads=[1, 1, 1, 1],
                         count_include_pad=1, ceil_mode=1, strides=[2, 2]),
        helper.make_node("Conv", ["s", "w5"], ["z"], kernel_shape=[3], strides=[2], pads=[1, 1]),
        helper.make_node("MaxPool", ["v"], ["u"], kernel_shape=[2, 3, 2], strides=[1, 2, 1])]
    f = lambda name, dims: helper.make_tensor_value_info(name, TensorProto.FLOAT, dims)
    return dd.model(nodes, [f("x", ["n", 3, "h", "w"]), f("s", ["n", 2, "h"]),
                            f("v", ["n", 2, "h", "w", "h"])],
                    [f("y", ["n", 8, None, None]), f("z", ["n", 4, None]),
                     f("u", ["n", 2, None, None, None])],
                    [w("w1", [8, 3, 3, 3]), w("b1", [8]), w("w2", [8, 8, 3, 3]),
                     w("w3", [8, 2, 3, 3]), w("w4", [8, 1, 3, 3]), w("w5", [4, 2, 3])], opset=18)


def resize(rng):
    """Resize over dynamic image dims (h, w): nearest x2 (asymmetric, floor), linear x0.5
    (half_pixel), nearest x1.5 (round_prefer_ceil), cubic x3 with exclude_outside
    (align_corners), linear to fixed sizes
    (pytorch_half_pixel: the scale out/in read when the model runs), tf_crop_and_resize
    with an roi and an extrapolation value, antialiased linear x0.6 and cubic to fixed
    sizes (the kernel's taps at the smallest scale the ranges allow); the resampling
    weights are computed from the sizes when the model runs."""
    f32 = lambda name, v: numpy_helper.from_array(np.array(v, np.float32), name)
    r = lambda out, mode, scales=None, sizes=None, roi="", **kw: helper.make_node(
        "Resize", ["x", roi, scales or "", sizes or ""], [out], mode=mode, **kw)
    nodes = [r("a", "nearest", "s2", coordinate_transformation_mode="asymmetric",
               nearest_mode="floor"),
             r("b", "linear", "s_half"),
             r("g", "nearest", "s15", nearest_mode="round_prefer_ceil"),
             r("c", "cubic", "s3", coordinate_transformation_mode="align_corners",
               exclude_outside=1),
             r("d", "linear", sizes="sz", coordinate_transformation_mode="pytorch_half_pixel",
               axes=[2, 3]),
             r("e", "linear", "s2", roi="roi", coordinate_transformation_mode="tf_crop_and_resize",
               extrapolation_value=-2.0),
             r("p", "linear", "s06", antialias=1),
             r("q", "cubic", sizes="sz", axes=[2, 3], antialias=1)]
    f = lambda name, dims: helper.make_tensor_value_info(name, TensorProto.FLOAT, dims)
    return dd.model(nodes, [f("x", ["n", 2, "h", "w"])],
                    [f(o, ["n", 2, None, None]) for o in "abcdegpq"],
                    [f32("s2", [1, 1, 2, 2]), f32("s_half", [1, 1, 0.5, 0.5]),
                     f32("s06", [1, 1, 0.6, 0.6]),
                     f32("s15", [1, 1, 1.5, 1.5]), f32("s3", [1, 1, 3, 3]), ints("sz", [7, 5]),
                     f32("roi", [0, 0, -0.2, 0.1, 1, 1, 0.9, 1.3])],
                    opset=19)


def rearrange(rng):
    """Ops built from positions and layout changes over dynamic dims: TopK (k = 3 of a
    dynamic axis, largest and smallest), Hardmax (opset 11: flattened at the axis),
    OneHot of indices [n, m], EyeLike, Tile, DepthToSpace and SpaceToDepth (H and W
    even), and Size."""
    nodes = [helper.make_node("TopK", ["x", "k3"], ["top_v", "top_i"], axis=1),
             helper.make_node("TopK", ["x", "k3"], ["low_v", "low_i"], axis=1, largest=0),
             helper.make_node("Hardmax", ["x"], ["hard"], axis=1),
             helper.make_node("OneHot", ["cls", "depth", "onoff"], ["hot"], axis=1),
             helper.make_node("EyeLike", ["x"], ["eye"], k=1),
             helper.make_node("Tile", ["x", "reps"], ["tiled"]),
             helper.make_node("DepthToSpace", ["img"], ["d2s"], blocksize=2, mode="CRD"),
             helper.make_node("SpaceToDepth", ["img"], ["s2d"], blocksize=2),
             helper.make_node("Size", ["img"], ["count"])]
    f = lambda name, dims, t=TensorProto.FLOAT: helper.make_tensor_value_info(name, t, dims)
    return dd.model(nodes, [f("x", ["n", "m"]), f("cls", ["n", "m"], TensorProto.INT64),
                            f("img", ["n", 4, "h2", "w2"])],
                    [f("top_v", ["n", 3]), f("top_i", ["n", 3], TensorProto.INT64),
                     f("low_v", ["n", 3]), f("low_i", ["n", 3], TensorProto.INT64),
                     f("hard", ["n", "m"]), f("hot", ["n", 5, "m"]), f("eye", ["n", "m"]),
                     f("tiled", [None, None]), f("d2s", ["n", 1, None, None]),
                     f("s2d", ["n", 16, None, None]), f("count", [], TensorProto.INT64)],
                    [ints("k3", [3]), ints("depth", [5]),
                     numpy_helper.from_array(np.array([-1, 2], np.float32), "onoff"),
                     ints("reps", [2, 3])], opset=11)


def scatter(rng):
    """ScatterElements (axis 1, add) of updates [n, k] into data [n, m] and ScatterND (add)
    of rows [p, w] into data [m, w] by indices [p, 1], over dynamic dims; the index
    values lie in [-5, 5) (negative ones wrap)."""
    nodes = [helper.make_node("ScatterElements", ["data", "cols", "upd"], ["y"], axis=1,
                              reduction="add"),
             helper.make_node("ScatterND", ["rows", "at", "new"], ["z"], reduction="add")]
    f = lambda name, dims, t=TensorProto.FLOAT: helper.make_tensor_value_info(name, t, dims)
    return dd.model(nodes, [f("data", ["n", "m"]), f("cols", ["n", "k"], TensorProto.INT64),
                            f("upd", ["n", "k"]), f("rows", ["m", "w"]),
                            f("at", ["p", 1], TensorProto.INT64), f("new", ["p", "w"])],
                    [f("y", ["n", "m"]), f("z", ["m", "w"])], [], opset=18)


def einsum(rng):
    """Einsum over dynamic dims: a batched product (bij,bjk->bik), attention scores
    (bhid,bhjd->bhij), a transpose with a sum (ij->j) and an outer product (i,j->ij);
    the products' rows and columns are products of the symbols."""
    e = lambda eq, ins, out: helper.make_node("Einsum", ins, [out], equation=eq)
    nodes = [e("bij,bjk->bik", ["a", "b"], "ab"), e("bhid,bhjd->bhij", ["q", "k"], "s"),
             e("ij->j", ["m"], "colsum"), e("i,j->ij", ["u", "v"], "outer")]
    f = lambda name, dims: helper.make_tensor_value_info(name, TensorProto.FLOAT, dims)
    return dd.model(nodes, [f("a", ["b", "i", "j"]), f("b", ["b", "j", "k"]),
                            f("q", ["b", 2, "i", "d"]), f("k", ["b", 2, "j", "d"]),
                            f("m", ["i", "j"]), f("u", ["i"]), f("v", ["j"])],
                    [f("ab", ["b", "i", "k"]), f("s", ["b", 2, "i", "j"]), f("colsum", ["j"]),
                     f("outer", ["i", "j"])], [], opset=12)


def grid_sample(rng):
    """GridSample over dynamic dims: bilinear with zero padding, nearest with border
    padding and bicubic with reflection (align_corners); the coordinates are scaled by
    the input's sizes read when the model runs."""
    g = lambda out, **kw: helper.make_node("GridSample", ["x", "grid"], [out], **kw)
    nodes = [g("lin", mode="linear"), g("near", mode="nearest", padding_mode="border"),
             g("cub", mode="cubic", padding_mode="reflection", align_corners=1)]
    f = lambda name, dims: helper.make_tensor_value_info(name, TensorProto.FLOAT, dims)
    return dd.model(nodes, [f("x", ["n", "c", "h", "w"]), f("grid", ["n", "oh", "ow", 2])],
                    [f(o, ["n", "c", "oh", "ow"]) for o in ("lin", "near", "cub")], [], opset=20)


def pads(rng):
    """Pads by amounts computed from dynamic shapes: x [a, b] padded on the right up to at
    least [5, 12] (Max of its Shape and a constant, minus the Shape; a no-op where it is
    larger already), with an axes input; CenterCropPad to [4, 6] (crops or pads
    each dim depending on its size); and a wrap Pad (indices (i - before) mod the dim's
    size, wrapping more than once where the pads exceed it)."""
    nodes = [helper.make_node("Shape", ["x"], ["shape"]),
             helper.make_node("Max", ["shape", "at_least"], ["target"]),
             helper.make_node("Sub", ["target", "shape"], ["grow"]),
             helper.make_node("Concat", ["zeros", "grow"], ["amounts"], axis=0),
             helper.make_node("Pad", ["x", "amounts", "fill", "axes"], ["padded"]),
             helper.make_node("CenterCropPad", ["x", "crop"], ["centered"]),
             helper.make_node("Pad", ["x", "wraps"], ["wrapped"], mode="wrap")]
    f = lambda name, dims: helper.make_tensor_value_info(name, TensorProto.FLOAT, dims)
    return dd.model(nodes, [f("x", ["a", "b"])],
                    [f("padded", [None, None]), f("centered", [4, 6]), f("wrapped", [None, None])],
                    [ints("at_least", [5, 12]), ints("zeros", [0, 0]), ints("axes", [0, 1]),
                     ints("wraps", [3, 1, 2, 4]),
                     numpy_helper.from_array(np.array(-1.5, np.float32), "fill"),
                     ints("crop", [4, 6])], opset=18)


def nonpad(rng):
    """Attention (opset 24) over dynamic dims with nonpad_kv_seqlen (each batch's key
    length, read when the model runs) and an additive mask, causal and not (a mask shorter
    than the keys, padded to them, is a conformance case ORT does not run); and
    grouped-query attention of 2 query heads over 1 key/value head, and of hq query heads
    over hk (different symbols: a gather of the key/value heads, hq % hk checked when the
    model runs)."""
    a = lambda out, causal: helper.make_node(
        "Attention", ["q", "k", "v", "bias", "", "", "kv_lens"], [out], is_causal=causal)
    f = lambda name, dims, t=TensorProto.FLOAT: helper.make_tensor_value_info(name, t, dims)
    gqa = helper.make_node("Attention", ["q", "kg", "vg"], ["yg"], is_causal=1)
    heads = helper.make_node("Attention", ["qh", "kh", "vh"], ["yh"])
    return dd.model([a("y", 0), a("yc", 1), gqa, heads],
                    [f("q", ["b", 2, "s", "d"]), f("k", ["b", 2, "t", "d"]),
                     f("v", ["b", 2, "t", "d"]), f("bias", ["b", 2, "s", "t"]),
                     f("kv_lens", ["b"], TensorProto.INT64),
                     f("kg", ["b", 1, "t", "d"]), f("vg", ["b", 1, "t", "d"]),
                     f("qh", ["b", "hq", "s", "d"]), f("kh", ["b", "hk", "t", "d"]),
                     f("vh", ["b", "hk", "t", "d"])],
                    [f("y", ["b", 2, "s", "d"]), f("yc", ["b", 2, "s", "d"]),
                     f("yg", ["b", 2, "s", "d"]), f("yh", ["b", "hq", "s", "d"])], [], opset=24)


def cumprod(rng):
    """CumProd along a dynamic axis (inclusive, and exclusive reversed): log-step shifts
    up to the axis' greatest size, each a crop and a block of ones."""
    c = lambda out, **kw: helper.make_node("CumProd", ["x", "ax1"], [out], **kw)
    f = lambda name, dims: helper.make_tensor_value_info(name, TensorProto.FLOAT, dims)
    return dd.model([c("prod"), c("prod_rx", exclusive=1, reverse=1)], [f("x", ["n", "m"])],
                    [f("prod", ["n", "m"]), f("prod_rx", ["n", "m"])], [ints("ax1", 1)],
                    opset=26)


# name: (builder, --dims, list of {symbol: size} to run)
def recurrent(rng):
    """A bidirectional LSTM (with peepholes and initial states) over a dynamic sequence and
    batch, a GRU over per-batch sequence_lens, and an RNN in reverse: unrolled
    up to the sequence's greatest length, each step masked when the model runs."""
    w = lambda name, *shape: dd.init(rng, name, shape, 0.5)
    nodes = [helper.make_node("LSTM", ["x", "lw", "lr", "lb", "", "h0", "c0", "lp"],
                              ["ly", "lyh", "lyc"], hidden_size=3, direction="bidirectional"),
             helper.make_node("GRU", ["x", "gw", "gr", "gb", "lens"], ["gy", "gyh"],
                              hidden_size=4, linear_before_reset=1),
             helper.make_node("RNN", ["x", "rw", "rr"], ["ry", "ryh"], hidden_size=2,
                              direction="reverse", activations=["Relu"])]
    ins = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["s", "b", 5]),
           helper.make_tensor_value_info("h0", TensorProto.FLOAT, [2, "b", 3]),
           helper.make_tensor_value_info("c0", TensorProto.FLOAT, [2, "b", 3]),
           helper.make_tensor_value_info("lens", TensorProto.INT32, ["b"])]
    outs = [helper.make_tensor_value_info(n, TensorProto.FLOAT, shape) for n, shape in (
        ("ly", ["s", 2, "b", 3]), ("lyh", [2, "b", 3]), ("lyc", [2, "b", 3]),
        ("gy", ["s", 1, "b", 4]), ("gyh", [1, "b", 4]), ("ry", ["s", 1, "b", 2]),
        ("ryh", [1, "b", 2]))]
    return dd.model(nodes, ins, outs, [w("lw", 2, 12, 5), w("lr", 2, 12, 3), w("lb", 2, 24),
                                       w("lp", 2, 9), w("gw", 1, 12, 5), w("gr", 1, 12, 4),
                                       w("gb", 1, 24), w("rw", 1, 2, 5), w("rr", 1, 2, 2)],
                    opset=14)


def scan(rng):
    """Scan over a dynamic length: a running sum state, one input scanned backwards along
    axis 1, two scan outputs (one reversed, one stacked along axis 1)."""
    body = helper.make_graph(
        [helper.make_node("Add", ["acc_in", "a_t"], ["acc_out"]),
         helper.make_node("Mul", ["acc_out", "b_t"], ["y1"]),
         helper.make_node("Identity", ["a_t"], ["y2"])], "body",
        [helper.make_tensor_value_info("acc_in", TensorProto.FLOAT, ["n", 3]),
         helper.make_tensor_value_info("a_t", TensorProto.FLOAT, ["n", 3]),
         helper.make_tensor_value_info("b_t", TensorProto.FLOAT, ["n", 3])],
        [helper.make_tensor_value_info("acc_out", TensorProto.FLOAT, ["n", 3]),
         helper.make_tensor_value_info("y1", TensorProto.FLOAT, ["n", 3]),
         helper.make_tensor_value_info("y2", TensorProto.FLOAT, ["n", 3])])
    nodes = [helper.make_node("Scan", ["acc", "a", "b"], ["total", "ys1", "ys2"], body=body,
                              num_scan_inputs=2, scan_input_axes=[0, 1],
                              scan_input_directions=[0, 1], scan_output_directions=[1, 0],
                              scan_output_axes=[0, 1])]
    return dd.model(nodes, [helper.make_tensor_value_info("acc", TensorProto.FLOAT, ["n", 3]),
                            helper.make_tensor_value_info("a", TensorProto.FLOAT, ["t", "n", 3]),
                            helper.make_tensor_value_info("b", TensorProto.FLOAT, ["n", "t", 3])],
                    [helper.make_tensor_value_info(n, TensorProto.FLOAT, shape) for n, shape in
                     (("total", ["n", 3]), ("ys1", ["t", "n", 3]), ("ys2", ["n", "t", 3]))],
                    [], opset=16)


def quantized(rng):
    """MatMulInteger (uint8 x uint8 with zero points) and QLinearMatMul over dynamic M, K
    and N: integer products over dynamic dims."""
    u8 = lambda name, v: numpy_helper.from_array(np.array(v, np.uint8), name)
    f32 = lambda name, v: numpy_helper.from_array(np.array(v, np.float32), name)
    nodes = [helper.make_node("MatMulInteger", ["a", "b", "az", "bz"], ["p"]),
             helper.make_node("Cast", ["p"], ["pf"], to=TensorProto.FLOAT),
             helper.make_node("QLinearMatMul", ["a", "as", "az", "b", "bs", "bz", "ys", "yz"],
                              ["q"]),
             helper.make_node("Cast", ["q"], ["qf"], to=TensorProto.FLOAT)]
    return dd.model(nodes, [helper.make_tensor_value_info("a", TensorProto.UINT8, ["m", "k"]),
                            helper.make_tensor_value_info("b", TensorProto.UINT8, ["k", "n"])],
                    [helper.make_tensor_value_info("pf", TensorProto.FLOAT, ["m", "n"]),
                     helper.make_tensor_value_info("qf", TensorProto.FLOAT, ["m", "n"])],
                    [u8("az", 113), u8("bz", 97), f32("as", 0.02), f32("bs", 0.03),
                     f32("ys", 1.7), u8("yz", 120)], opset=21)


def rotary(rng):
    """RotaryEmbedding over dynamic batch, sequence and head width: 4-D input with
    position_ids (halves), and 3-D input interleaved over a partial rotary_embedding_dim."""
    nodes = [helper.make_node("RotaryEmbedding", ["x", "cos", "sin", "pos"], ["y"]),
             helper.make_node("RotaryEmbedding", ["x3", "cos2", "sin2"], ["y3"], interleaved=1,
                              num_heads=2, rotary_embedding_dim=4)]
    ins = [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", 3, "s", "d"]),
           helper.make_tensor_value_info("cos", TensorProto.FLOAT, [12, "h"]),
           helper.make_tensor_value_info("sin", TensorProto.FLOAT, [12, "h"]),
           helper.make_tensor_value_info("pos", TensorProto.INT64, ["b", "s"]),
           helper.make_tensor_value_info("x3", TensorProto.FLOAT, ["b", "s", 12]),
           helper.make_tensor_value_info("cos2", TensorProto.FLOAT, ["b", "s", 2]),
           helper.make_tensor_value_info("sin2", TensorProto.FLOAT, ["b", "s", 2])]
    return dd.model(nodes, ins, [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["b", 3, "s", "d"]),
                                 helper.make_tensor_value_info("y3", TensorProto.FLOAT, ["b", "s", 12])],
                    [], opset=23)


def quotient(rng):
    """A reshape target that divides one dim by another input's (Div of two shape values):
    [n, m] -> [n, k, m / k] (the floor quotient "(m//k)", exact when the model runs), then a
    sum over the k groups."""
    nodes = [helper.make_node("Shape", ["x"], ["n"], start=0, end=1),
             helper.make_node("Shape", ["x"], ["m"], start=1, end=2),
             helper.make_node("Shape", ["g"], ["k"]),
             helper.make_node("Div", ["m", "k"], ["w"]),
             helper.make_node("Concat", ["n", "k", "w"], ["shape"], axis=0),
             helper.make_node("Reshape", ["x", "shape"], ["r"]),
             helper.make_node("ReduceSum", ["r", "one"], ["y"], keepdims=0),
             helper.make_node("Mul", ["y", "y"], ["z"])]
    return dd.model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", "m"]),
                            helper.make_tensor_value_info("g", TensorProto.FLOAT, ["k"])],
                    [helper.make_tensor_value_info("z", TensorProto.FLOAT, ["n", "w"])],
                    [ints("one", [1])], opset=18)


def group_norm(rng):
    """GroupNormalization (per-channel scale and bias, opset 21), InstanceNormalization and
    LRN over dynamic batch, channels and image dims: [n, 2, c/2, h, w] groups, the scale and
    bias [c] inputs, LRN's window across the channels."""
    nodes = [helper.make_node("GroupNormalization", ["x", "s", "b"], ["g"], num_groups=2,
                              epsilon=1e-3),
             helper.make_node("InstanceNormalization", ["x", "s", "b"], ["i"]),
             helper.make_node("LRN", ["x"], ["l"], size=3, alpha=0.01)]
    shape = ["n", "c", "h", "w"]
    return dd.model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape),
                            helper.make_tensor_value_info("s", TensorProto.FLOAT, ["c"]),
                            helper.make_tensor_value_info("b", TensorProto.FLOAT, ["c"])],
                    [helper.make_tensor_value_info("g", TensorProto.FLOAT, shape),
                     helper.make_tensor_value_info("i", TensorProto.FLOAT, shape),
                     helper.make_tensor_value_info("l", TensorProto.FLOAT, shape)], [], opset=21)


def reverse(rng):
    """ReverseSequence over a dynamic time and batch (both layouts): the index map from the
    lengths when the model runs."""
    nodes = [helper.make_node("ReverseSequence", ["x", "lens"], ["y"], time_axis=0, batch_axis=1),
             helper.make_node("Transpose", ["x"], ["xt"], perm=[1, 0, 2]),
             helper.make_node("ReverseSequence", ["xt", "lens"], ["z"], time_axis=1, batch_axis=0)]
    return dd.model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["t", "b", 3]),
                            helper.make_tensor_value_info("lens", TensorProto.INT64, ["b"])],
                    [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["t", "b", 3]),
                     helper.make_tensor_value_info("z", TensorProto.FLOAT, ["b", "t", 3])],
                    [], opset=13)


def affine(rng):
    """AffineGrid with theta's dims all dynamic (the matrix dims follow from the size, checked
    when the model runs; the batch stays symbolic)."""
    nodes = [helper.make_node("AffineGrid", ["theta", "size"], ["grid"], align_corners=0)]
    return dd.model(nodes, [helper.make_tensor_value_info("theta", TensorProto.FLOAT, ["n", "r", "c"])],
                    [helper.make_tensor_value_info("grid", TensorProto.FLOAT, ["n", 5, 7, 2])],
                    [ints("size", [1, 3, 5, 7])], opset=20)


def kv_update(rng):
    """TensorScatter (a KV-cache update) over a dynamic batch, cache length and update
    length, linear and circular, write positions given per batch."""
    nodes = [helper.make_node("TensorScatter", ["past", "upd", "wi"], ["y"], axis=2),
             helper.make_node("TensorScatter", ["past", "upd", "wi"], ["z"], axis=2,
                              mode="circular")]
    return dd.model(nodes, [helper.make_tensor_value_info("past", TensorProto.FLOAT, ["b", 2, "l", 4]),
                            helper.make_tensor_value_info("upd", TensorProto.FLOAT, ["b", 2, "s", 4]),
                            helper.make_tensor_value_info("wi", TensorProto.INT64, ["b"])],
                    [helper.make_tensor_value_info(n, TensorProto.FLOAT, ["b", 2, "l", 4])
                     for n in ("y", "z")], [], opset=24)


def kernels(rng):
    """Convolutions whose weights are inputs with dynamic dims: a depthwise 1-D conv (the
    channels from the group, the kernel length dynamic) and a strided, dilated 2-D conv
    (kernel height and width dynamic, padded, with a bias)."""
    nodes = [helper.make_node("Conv", ["x", "w"], ["y"], group=4),
             helper.make_node("Conv", ["img", "k", "bias"], ["z"], strides=[2, 1],
                              dilations=[1, 2], pads=[1, 0, 0, 1])]
    return dd.model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", "c", 12]),
                            helper.make_tensor_value_info("w", TensorProto.FLOAT, ["c", 1, "k"]),
                            helper.make_tensor_value_info("img", TensorProto.FLOAT, ["n", 2, 9, 11]),
                            helper.make_tensor_value_info("k", TensorProto.FLOAT, [3, 2, "kh", "kw"]),
                            helper.make_tensor_value_info("bias", TensorProto.FLOAT, [3])],
                    [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", "c", "ly"]),
                     helper.make_tensor_value_info("z", TensorProto.FLOAT, ["n", 3, "h", "w"])],
                    [], opset=17)


CASES = {
    "kernels": (kernels, "n=1..3,c=1..4,k=1..5,kh=1..4,kw=1..3",
                [{"n": 1, "c": 4, "k": 1, "kh": 1, "kw": 1}, {"n": 3, "c": 4, "k": 5, "kh": 4, "kw": 3},
                 {"n": 2, "c": 4, "k": 3, "kh": 2, "kw": 2}]),
    "kv_update": (kv_update, "b=1..3,l=1..9,s=1..4",
                  [{"b": 1, "l": 1, "s": 1}, {"b": 3, "l": 9, "s": 4}, {"b": 2, "l": 5, "s": 2}]),
    "affine": (affine, "n=1..4,r=1..2,c=1..3",
               [{"n": 1, "r": 2, "c": 3}]),
    "reverse": (reverse, "t=1..9,b=1..4",
                [{"t": 1, "b": 1}, {"t": 9, "b": 4}, {"t": 5, "b": 3}]),
    "group_norm": (group_norm, "n=1..3,c=2..8,h=1..9,w=2..7",
                   [{"n": 1, "c": 2, "h": 1, "w": 2}, {"n": 3, "c": 8, "h": 9, "w": 7},
                    {"n": 2, "c": 6, "h": 4, "w": 5}]),
    "quotient": (quotient, "n=1..4,m=1..24,k=1..6",
                 [{"n": 1, "m": 1, "k": 1}, {"n": 3, "m": 24, "k": 6}, {"n": 4, "m": 12, "k": 4}]),
    "rotary": (rotary, "b=1..3,s=1..9,d=2..16,h=1..8",
               [{"b": 1, "s": 1, "d": 2, "h": 1}, {"b": 3, "s": 9, "d": 16, "h": 8},
                {"b": 2, "s": 4, "d": 6, "h": 3}]),
    "quantized": (quantized, "m=1..9,k=1..40,n=1..7",
                  [{"m": 1, "k": 1, "n": 1}, {"m": 9, "k": 40, "n": 7}, {"m": 4, "k": 13, "n": 3}]),
    "recurrent": (recurrent, "s=1..7,b=1..4",
                  [{"s": 1, "b": 1}, {"s": 7, "b": 3}, {"s": 4, "b": 4}, {"s": 2, "b": 2}]),
    "scan": (scan, "t=1..6,n=1..4", [{"t": 1, "n": 1}, {"t": 6, "n": 3}, {"t": 3, "n": 4}]),
    "heads_logic": (heads_logic, "b=1..3,h=1..4,s=1..9,d=1..8",
                    [{"b": 1, "h": 1, "s": 1, "d": 1}, {"b": 2, "h": 3, "s": 9, "d": 8},
                     {"b": 3, "h": 4, "s": 5, "d": 2}]),
    "sums": (sums, "a=1..6,b=2..9,c=1..4",
             [{"a": 1, "b": 2, "c": 1}, {"a": 3, "b": 5, "c": 4}, {"a": 6, "b": 9, "c": 2}]),
    "slices": (slices, "a=1..4,b=1..9,k=1..12",
               [{"a": 1, "b": 1, "k": 1}, {"a": 2, "b": 2, "k": 5}, {"a": 3, "b": 7, "k": 12},
                {"a": 4, "b": 9, "k": 3}]),
    "meet": (meet, "n=1..6,k=1..9,m=1..9",
             [{"n": 1, "k": 1, "m": 1}, {"n": 4, "k": 7, "m": 7}, {"n": 6, "k": 9, "m": 9}]),
    "losses": (losses, "n=1..8,c=1..10,k=1..6",
               [{"n": 1, "c": 1, "k": 1}, {"n": 3, "c": 10, "k": 2}, {"n": 8, "c": 4, "k": 6}]),
    "resize": (resize, "n=1..3,h=2..24,w=2..17",
               [{"n": 1, "h": 2, "w": 2}, {"n": 2, "h": 5, "w": 7}, {"n": 3, "h": 24, "w": 17}]),
    "rearrange": (rearrange, "n=1..5,m=3..9,h2=2..12,w2=2..8",
                  [{"n": 1, "m": 3, "h2": 2, "w2": 2}, {"n": 3, "m": 7, "h2": 6, "w2": 4},
                   {"n": 5, "m": 9, "h2": 12, "w2": 8}]),
    "scatter": (scatter, "n=1..4,m=5..9,k=1..6,w=1..7,p=1..8",
                [{"n": 1, "m": 5, "k": 1, "w": 1, "p": 1}, {"n": 3, "m": 7, "k": 6, "w": 4, "p": 8},
                 {"n": 4, "m": 9, "k": 2, "w": 7, "p": 3}]),
    "einsum": (einsum, "b=1..3,i=1..9,j=1..7,k=1..5,d=1..8",
               [{"b": 1, "i": 1, "j": 1, "k": 1, "d": 1}, {"b": 2, "i": 9, "j": 4, "k": 5, "d": 8},
                {"b": 3, "i": 5, "j": 7, "k": 2, "d": 3}]),
    "grid_sample": (grid_sample, "n=1..3,c=1..4,h=1..9,w=1..8,oh=1..6,ow=1..7",
                    [{"n": 1, "c": 1, "h": 1, "w": 1, "oh": 1, "ow": 1},
                     {"n": 2, "c": 3, "h": 9, "w": 5, "oh": 6, "ow": 2},
                     {"n": 3, "c": 4, "h": 4, "w": 8, "oh": 3, "ow": 7}]),
    "pads": (pads, "a=1..9,b=1..16",
             [{"a": 1, "b": 1}, {"a": 5, "b": 12}, {"a": 9, "b": 7}, {"a": 3, "b": 16}]),
    "nonpad": (nonpad, "b=1..3,s=1..6,t=1..9,d=1..8,hq=1..8,hk=1..4",
               [{"b": 1, "s": 1, "t": 1, "d": 1, "hq": 1, "hk": 1},
                {"b": 2, "s": 6, "t": 9, "d": 8, "hq": 8, "hk": 2},
                {"b": 3, "s": 4, "t": 7, "d": 3, "hq": 3, "hk": 3}]),
    "cumprod": (cumprod, "n=1..4,m=1..11",
                [{"n": 1, "m": 1}, {"n": 3, "m": 11}, {"n": 4, "m": 6}]),
    "windows": (windows, "n=1..4,h=10..40,w=5..33",
                [{"n": 1, "h": 10, "w": 5}, {"n": 2, "h": 13, "w": 9}, {"n": 4, "h": 40, "w": 33}]),
}


def check_sequences(dlc, work):
    """A sequence input whose elements have dynamic dims (--input-shape 'xs[i]=n,4' with
    --dims): SequenceInsert, ConcatFromSequence, SplitToSequence (by sizes, along a static
    axis of dynamic rows and along a dynamic axis), SequenceAt, against ONNX Runtime at 1,
    2 and 4 threads; then the errors: a symbol --dims does not give and split sizes that
    do not fit the run; and one piece per index of a dynamic dim, compiled for its
    greatest size: right at that size, an error at another."""
    import onnx
    import onnxruntime as ort
    d = work / "sequences"
    d.mkdir()
    seq = helper.make_tensor_sequence_value_info("xs", TensorProto.FLOAT, ["r", 4])
    nodes = [helper.make_node("SequenceInsert", ["xs", "x"], ["s2"]),
             helper.make_node("ConcatFromSequence", ["s2"], ["cat"], axis=0),
             helper.make_node("SplitToSequence", ["cat", "cols"], ["parts"], axis=1),
             helper.make_node("SequenceAt", ["parts", "one"], ["y"]),
             helper.make_node("SplitToSequence", ["x", "rows"], ["pieces"], axis=0),
             helper.make_node("SequenceAt", ["pieces", "one"], ["z"])]
    m = dd.model(nodes, [seq, helper.make_tensor_value_info("x", TensorProto.FLOAT, ["k", 4])],
                 [helper.make_tensor_value_info("cat", TensorProto.FLOAT, ["t", 4]),
                  helper.make_tensor_value_info("y", TensorProto.FLOAT, ["t", 3]),
                  helper.make_tensor_value_info("z", TensorProto.FLOAT, [2, 4])],
                 [ints("cols", [1, 3]), ints("rows", [1, 2]), ints("one", 1)], opset=17)
    onnx.save(m, d / "model.onnx")
    shapes = ["--input-shape", "xs[0]=n,4", "--input-shape", "xs[1]=m,4"]
    r = dd.run([dlc, "compile", "model.onnx", *shapes, "--dims", "n=1..5,m=1..6,k=1..3",
                "-o", "model.so"], d)
    if r.returncode:
        return f"compile failed: {r.stderr.strip()}"
    sess = ort.InferenceSession(str(d / "model.onnx"), providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(0)
    for n, mm in ((1, 1), (5, 2), (3, 6)):
        xs = [rng.standard_normal((n, 4)).astype(np.float32),
              rng.standard_normal((mm, 4)).astype(np.float32)]
        x = rng.standard_normal((3, 4)).astype(np.float32)
        refs = sess.run(None, {"xs": xs, "x": x})
        (d / "xs.pb").write_bytes(numpy_helper.from_list(xs, "xs").SerializeToString())
        np.save(d / "x.npy", x)
        for threads in dd.THREADS:
            out = d / f"out_{threads}"
            r = dd.run([dlc, "run", "model.so", "--input", "xs=xs.pb", "--input", "x=x.npy",
                        "--threads", str(threads), "--output-dir", str(out)], d)
            if r.returncode:
                return f"run n={n} m={mm} at {threads} threads failed: {r.stderr.strip()}"
            for name, ref in zip(("cat", "y", "z"), refs):
                got = np.load(out / f"{name}.npy")
                if got.shape != ref.shape or not np.array_equal(got, ref):
                    return f"{name} at n={n} m={mm}: {got.shape} differs from {ref.shape}"
    np.save(d / "x2.npy", np.zeros((2, 4), np.float32))
    if msg := dd.expect_error(dlc, d, ["run", "model.so", "--input", "xs=xs.pb", "--input",
                                       "x=x2.npy"], ["split sizes sum to 3, not to dim 0"]):
        return msg
    if msg := dd.expect_error(dlc, d, ["compile", "model.onnx", "--input-shape", "xs[0]=q,4",
                                       "--dims", "k=1..3", "-o", "e.so"],
                              ["--input-shape of 'xs[0]': dim 0 names 'q'", "--dims"]):
        return msg
    whole = dd.model([helper.make_node("SplitToSequence", ["x"], ["p"], axis=0),
                      helper.make_node("SequenceAt", ["p", "one"], ["y"])],
                     [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["k", 4])],
                     [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])],
                     [ints("one", 1)], opset=17)
    onnx.save(whole, d / "whole.onnx")
    # One piece per index of a dynamic dim: compiled for its greatest size, another fails.
    r = dd.run([dlc, "compile", "whole.onnx", "--dims", "k=1..3", "-o", "whole.so"], d)
    if r.returncode:
        return f"whole.onnx: {r.stderr.strip()}"
    x3 = rng.standard_normal((3, 4)).astype(np.float32)
    np.save(d / "x3.npy", x3)
    r = dd.run([dlc, "run", "whole.so", "--input", "x=x3.npy", "--output-dir", "wout"], d)
    if r.returncode or not np.array_equal(np.load(d / "wout" / "y.npy"), x3[1:2]):
        return f"whole.so at k=3: {r.stderr.strip() or 'not x[1:2]'}"
    return dd.expect_error(dlc, d, ["run", "whole.so", "--input", "x=x2.npy"],
                           ["SplitToSequence", "(k) and the size 3 differ"])


def main():
    dd.CASES.update(CASES)
    checks = {"sequences": check_sequences}
    dd.run_main(__doc__.split("\n")[0], [*CASES, "sequences"],
                lambda dlc, name, work: (checks[name](dlc, work) if name in checks
                                         else dd.check_case(dlc, name, work)),
                "dlc-dynamic-sizes-")


if __name__ == "__main__":
    main()

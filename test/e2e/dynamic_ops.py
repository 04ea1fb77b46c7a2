#!/usr/bin/env python3
# Dynamic dims, part 3: ops whose kernels, windows, matrices or tap counts follow from
# dynamic sizes (ConvTranspose, integer convs, SAME strides, pool indices and unpooling,
# DFT/STFT, Det, Col2Im, TfIdfVectorizer, TreeEnsemble) and a head ratio computed by a
# Where whose condition only the run decides.
"""Check `dlc compile --dims` models of kernel-shaped ops against ONNX Runtime.

Usage::

    dynamic_ops.py --dlc build/bin/dlc [--keep] [CASE ...]

Same contract as dynamic_dims.py (whose runner this reuses): each model is compiled once
with ``--dims``, ``dlc info`` must list the dims, and every size set at 1, 2 and 4 threads
must match ONNX Runtime within a relative error of 1e-4 with the exact output shape; gqa
and trees then check their run-time errors.
"""
from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, str(Path(__file__).resolve().parent))
import dynamic_dims as dd  # noqa: E402
from dynamic_sizes import heads_logic, ints  # noqa: E402


def transposed(rng):
    """ConvTranspose over dynamic dims: a 2-D one with static weights over dynamic image dims
    (stride 2, output_padding, asymmetric pads, a bias), a grouped 1-D one whose weights'
    channels and kernel length are dynamic (zeros up to their bounds, the output cut back),
    and a SAME_UPPER one with a dynamic 2-D kernel and stride (2, 1) (kernel height >= 2:
    ONNX Runtime clamps a negative total padding where the ONNX spec does not)."""
    w = numpy_helper.from_array(rng.standard_normal((3, 2, 3, 2)).astype(np.float32), "w")
    b = numpy_helper.from_array(rng.standard_normal(2).astype(np.float32), "b")
    nodes = [helper.make_node("ConvTranspose", ["img", "w", "b"], ["y"], strides=[2, 2],
                              output_padding=[1, 0], pads=[1, 0, 0, 1]),
             helper.make_node("ConvTranspose", ["x", "k", "kb"], ["z"], group=2, strides=[3],
                              dilations=[2]),
             helper.make_node("ConvTranspose", ["img", "k2"], ["u"], strides=[2, 1],
                              auto_pad="SAME_UPPER")]
    f = TensorProto.FLOAT
    return dd.model(nodes, [helper.make_tensor_value_info("img", f, ["n", 3, "h", "wd"]),
                            helper.make_tensor_value_info("x", f, ["n", 4, "l"]),
                            helper.make_tensor_value_info("k", f, [4, "c", "k"]),
                            helper.make_tensor_value_info("kb", f, ["c2"]),
                            helper.make_tensor_value_info("k2", f, [3, 1, "kh", "kw"])],
                    [helper.make_tensor_value_info("y", f, ["n", 2, "oh", "ow"]),
                     helper.make_tensor_value_info("z", f, ["n", "c2", "lz"]),
                     helper.make_tensor_value_info("u", f, ["n", 1, "uh", "uw"])],
                    [w, b], opset=17)


def signals(rng):
    """DFT and STFT over dynamic lengths (their cos/sin matrices computed when the model
    runs): a complex DFT along a dynamic axis, a one-sided real DFT (n // 2 + 1 bins), an
    inverse DFT of a dynamic length, and an STFT of a dynamic signal (hop 3, a Hann window
    of 8, 5 one-sided bins) whose frame count follows from the length."""
    f = TensorProto.FLOAT
    nodes = [helper.make_node("DFT", ["x", "", "one"], ["y"]),
             helper.make_node("DFT", ["r", "", "one"], ["h"], onesided=1),
             helper.make_node("DFT", ["x", "", "one"], ["inv"], inverse=1),
             helper.make_node("STFT", ["sig", "hop", "win"], ["spec"])]
    win = numpy_helper.from_array((0.5 - 0.5 * np.cos(2 * np.pi * np.arange(8) / 8))
                                  .astype(np.float32), "win")
    return dd.model(nodes, [helper.make_tensor_value_info("x", f, ["b", "n", 2]),
                            helper.make_tensor_value_info("r", f, ["b", "n", 1]),
                            helper.make_tensor_value_info("sig", f, ["b", "l", 1])],
                    [helper.make_tensor_value_info("y", f, ["b", "n", 2]),
                     helper.make_tensor_value_info("h", f, ["b", None, 2]),
                     helper.make_tensor_value_info("inv", f, ["b", "n", 2]),
                     helper.make_tensor_value_info("spec", f, ["b", None, 5, 2])],
                    [ints("one", 1), ints("hop", 3), win], opset=20)


def tfidf(rng):
    """TfIdfVectorizer over a dynamic batch and row length: unigrams and bigrams with up to
    2 skipped tokens (TFIDF weights), windows at every position masked past the row's end."""
    node = helper.make_node("TfIdfVectorizer", ["x"], ["y"], mode="TFIDF", min_gram_length=1,
                            max_gram_length=2, max_skip_count=2, ngram_counts=[0, 4],
                            ngram_indexes=[0, 1, 2, 3, 4, 5, 6],
                            pool_int64s=[2, 3, 5, 4, 5, 6, 7, 8, 6, 7],
                            weights=[1.0, 0.5, 2.0, 1.5, 1.0, 3.0, 0.25])
    return dd.model([node], [helper.make_tensor_value_info("x", TensorProto.INT64, ["b", "c"])],
                    [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["b", 7])], [],
                    opset=17)


def col2im(rng):
    """Col2Im over a dynamic batch and channel count: blocks [n, c*6, 12] of a 2x3 kernel
    (stride 2, dilation (1, 2), pads) summed back into [n, c, 5, 7] images."""
    node = helper.make_node("Col2Im", ["x", "image", "block"], ["y"], strides=[2, 1],
                            dilations=[1, 2], pads=[1, 0, 0, 1])
    return dd.model([node], [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", "ck", 12])],
                    [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", None, 5, 7])],
                    [ints("image", [5, 7]), ints("block", [2, 3])], opset=18)


def trees(rng):
    """TreeEnsemble (ai.onnx.ml 5) over a dynamic batch and feature count: two trees
    testing features 0..2 (LEQ, LT, GTE and a set membership), summed per target. A run
    with fewer features than the trees test fails (check_trees)."""
    import onnx
    t = lambda name, v, dt: helper.make_tensor(name, dt, [len(v)], v)
    node = helper.make_node(
        "TreeEnsemble", ["x"], ["y"], domain="ai.onnx.ml", aggregate_function=1, n_targets=2,
        tree_roots=[0, 3], nodes_featureids=[0, 1, 2, 2, 1],
        nodes_modes=t("nodes_modes", [0, 1, 2, 6, 0], TensorProto.UINT8),
        nodes_splits=t("nodes_splits", [0.1, -0.3, 0.5, 0.0, 0.2], TensorProto.FLOAT),
        nodes_truenodeids=[1, 0, 1, 0, 2], nodes_trueleafs=[0, 1, 1, 1, 1],
        nodes_falsenodeids=[2, 2, 3, 4, 3], nodes_falseleafs=[0, 1, 1, 0, 1],
        membership_values=t("membership_values", [0.0, 1.0, 2.0, float("nan")], TensorProto.FLOAT),
        leaf_targetids=[0, 1, 0, 1, 0], leaf_weights=t("leaf_weights", [1.5, -2.0, 0.25, 3.0, -1.0],
                                                        TensorProto.FLOAT))
    g = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", "f"])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["n", 2])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 21),
                                            helper.make_opsetid("ai.onnx.ml", 5)])
    onnx.checker.check_model(m)
    return m


def determinants(rng):
    """Det over a dynamic batch and matrix size: elimination unrolled to the greatest size,
    the matrices extended by an identity block past the run's."""
    return dd.model([helper.make_node("Det", ["x"], ["y"])],
                    [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["b", "n", "n"])],
                    [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["b"])], [], opset=17)


def pool_indices(rng):
    """MaxPool's Indices output over dynamic batch, channels and image dims: a padded,
    strided, ceil-mode 3x2 window (row-major indices), a dilated one (column-major), and a
    2x2 stride-2 pool unpooled again by MaxUnpool to the input's shape (a scatter into
    sizes of the symbols, output_shape computed from them; even sizes, where ONNX Runtime
    and ONNX's reference agree: for an output_shape past the inferred one ONNX Runtime
    indexes the larger shape, the reference the inferred one, as dlc does)."""
    nodes = [helper.make_node("MaxPool", ["x"], ["y", "i"], kernel_shape=[3, 2], strides=[2, 2],
                              pads=[1, 0, 1, 1], ceil_mode=1),
             helper.make_node("MaxPool", ["x"], ["z", "j"], kernel_shape=[2, 2], dilations=[2, 1],
                              storage_order=1),
             helper.make_node("MaxPool", ["x"], ["p", "pi"], kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("Shape", ["x"], ["xs"]),
             helper.make_node("MaxUnpool", ["p", "pi", "xs"], ["u"], kernel_shape=[2, 2],
                              strides=[2, 2])]
    f, i = TensorProto.FLOAT, TensorProto.INT64
    return dd.model(nodes, [helper.make_tensor_value_info("x", f, ["n", "c", "h", "w"])],
                    [helper.make_tensor_value_info("y", f, ["n", "c", None, None]),
                     helper.make_tensor_value_info("i", i, ["n", "c", None, None]),
                     helper.make_tensor_value_info("z", f, ["n", "c", None, None]),
                     helper.make_tensor_value_info("j", i, ["n", "c", None, None]),
                     helper.make_tensor_value_info("u", f, ["n", "c", None, None]),
                     helper.make_tensor_value_info("p", f, ["n", "c", None, None])], [], opset=12)


def same_strided(rng):
    """auto_pad SAME with strides over dynamic image dims (the pads depend on the size, made
    when the model runs): a conv (SAME_UPPER, stride (2, 3)), a max pool (SAME_LOWER,
    stride 2, its pads -inf), average pools excluding and including the pads, and a 1-D
    conv (stride 3, a kernel narrower than the stride)."""
    k = numpy_helper.from_array(rng.standard_normal((2, 3, 3, 2)).astype(np.float32), "k")
    k1 = numpy_helper.from_array(rng.standard_normal((1, 3, 2)).astype(np.float32), "k1")
    nodes = [helper.make_node("Conv", ["x", "k"], ["c"], auto_pad="SAME_UPPER", strides=[2, 3]),
             helper.make_node("MaxPool", ["x"], ["m"], auto_pad="SAME_LOWER", strides=[2, 2],
                              kernel_shape=[3, 3]),
             helper.make_node("AveragePool", ["x"], ["a"], auto_pad="SAME_UPPER", strides=[3, 2],
                              kernel_shape=[3, 3]),
             helper.make_node("AveragePool", ["x"], ["ai"], auto_pad="SAME_UPPER", strides=[2, 2],
                              kernel_shape=[3, 3], count_include_pad=1),
             helper.make_node("Conv", ["s", "k1"], ["c1"], auto_pad="SAME_LOWER", strides=[3])]
    f = lambda name, dims: helper.make_tensor_value_info(name, TensorProto.FLOAT, dims)
    return dd.model(nodes, [f("x", ["n", 3, "h", "w"]), f("s", ["n", 3, "l"])],
                    [f("c", ["n", 2, None, None]), f("m", ["n", 3, None, None]),
                     f("a", ["n", 3, None, None]), f("ai", ["n", 3, None, None]),
                     f("c1", ["n", 1, None])], [k, k1], opset=17)


def quantized_conv(rng):
    """ConvInteger (uint8, zero points, a padded strided kernel) and QLinearConv (per-channel
    weight scales, an int32 bias) over a dynamic batch and image dims; and ConvInteger whose
    kernel is an input with dynamic dims: exact f64 convolutions of the centered operands."""
    u8 = lambda name, v: numpy_helper.from_array(np.array(v, np.uint8), name)
    f32 = lambda name, v: numpy_helper.from_array(np.array(v, np.float32), name)
    w = numpy_helper.from_array(rng.integers(0, 256, (3, 2, 3, 3)).astype(np.uint8), "w")
    bias = numpy_helper.from_array(rng.integers(-500, 500, 3).astype(np.int32), "bias")
    nodes = [helper.make_node("ConvInteger", ["x", "w", "xz", "wz"], ["p"], pads=[1, 0, 1, 2],
                              strides=[2, 1]),
             helper.make_node("Cast", ["p"], ["pf"], to=TensorProto.FLOAT),
             helper.make_node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wzs", "ys", "yz", "bias"],
                              ["q"], pads=[1, 1, 1, 1]),
             helper.make_node("Cast", ["q"], ["qf"], to=TensorProto.FLOAT),
             helper.make_node("ConvInteger", ["x", "k"], ["r"]),
             helper.make_node("Cast", ["r"], ["rf"], to=TensorProto.FLOAT)]
    f = lambda name: helper.make_tensor_value_info(name, TensorProto.FLOAT, ["n", None, None, None])
    return dd.model(nodes, [helper.make_tensor_value_info("x", TensorProto.UINT8, ["n", 2, "h", "w"]),
                            helper.make_tensor_value_info("k", TensorProto.UINT8, [1, 2, "kh", "kw"])],
                    [f("pf"), f("qf"), f("rf")],
                    [w, bias, u8("xz", 121), u8("wz", 130), u8("wzs", [128, 128, 128]),
                     f32("xs", 0.05), f32("ws", [0.01, 0.02, 0.015]), f32("ys", 2.5),
                     u8("yz", 100)], opset=21)

CASES = {
    "gqa": (lambda rng: heads_logic(rng, "hk"), "b=1..3,h=1..8,hk=1..4,s=1..9,d=1..8",
            [{"b": 1, "h": 1, "hk": 1, "s": 1, "d": 1}, {"b": 2, "h": 8, "hk": 2, "s": 9, "d": 8},
             {"b": 3, "h": 3, "hk": 3, "s": 5, "d": 2}, {"b": 2, "h": 6, "hk": 3, "s": 4, "d": 3}]),
    "transposed": (transposed, "n=1..3,h=1..7,wd=1..6,l=1..9,c=1..3,c2=2..6,k=1..4,kh=2..3,kw=1..4",
                   [{"n": 1, "h": 1, "wd": 1, "l": 1, "c": 1, "c2": 2, "k": 1, "kh": 2, "kw": 1},
                    {"n": 3, "h": 7, "wd": 6, "l": 9, "c": 3, "c2": 6, "k": 4, "kh": 3, "kw": 4},
                    {"n": 2, "h": 4, "wd": 3, "l": 5, "c": 2, "c2": 4, "k": 2, "kh": 2, "kw": 3}]),
    "signals": (signals, "b=1..3,n=1..12,l=8..40",
                [{"b": 1, "n": 1, "l": 8}, {"b": 3, "n": 12, "l": 40}, {"b": 2, "n": 7, "l": 23}]),
    "tfidf": (tfidf, "b=1..4,c=1..12",
              [{"b": 1, "c": 1}, {"b": 4, "c": 12}, {"b": 2, "c": 3}, {"b": 3, "c": 7}]),
    "col2im": (col2im, "n=1..3,ck=6..24", [{"n": 1, "ck": 6}, {"n": 3, "ck": 24}, {"n": 2, "ck": 12}]),
    "trees": (trees, "n=1..5,f=1..6", [{"n": 1, "f": 3}, {"n": 5, "f": 6}, {"n": 3, "f": 4}]),
    "determinants": (determinants, "b=1..4,n=1..6",
                     [{"b": 1, "n": 1}, {"b": 4, "n": 6}, {"b": 3, "n": 3}, {"b": 2, "n": 2}]),
    "pool_indices": (pool_indices, "n=1..3,c=1..4,h=3..9,w=2..8",
                     [{"n": 1, "c": 1, "h": 4, "w": 2}, {"n": 3, "c": 4, "h": 8, "w": 8},
                      {"n": 2, "c": 3, "h": 6, "w": 4}]),
    "same_strided": (same_strided, "n=1..3,h=1..13,w=1..11,l=1..10",
                     [{"n": 1, "h": 1, "w": 1, "l": 1}, {"n": 3, "h": 13, "w": 11, "l": 10},
                      {"n": 2, "h": 6, "w": 7, "l": 5}, {"n": 1, "h": 4, "w": 2, "l": 3}]),
    "quantized_conv": (quantized_conv, "n=1..3,h=3..9,w=3..8,kh=1..3,kw=1..3",
                       [{"n": 1, "h": 3, "w": 3, "kh": 1, "kw": 1},
                        {"n": 3, "h": 9, "w": 8, "kh": 3, "kw": 3},
                        {"n": 2, "h": 5, "w": 6, "kh": 2, "kw": 3}]),
}


def check_gqa(dlc, work):
    """The gqa case against ONNX Runtime; then an Expand by Where(n == m, m, 1): compiled for
    the first branch, a run where n != m (the branches differ) fails, naming the Where, and
    a run where n == m matches ONNX Runtime."""
    if msg := dd.check_case(dlc, "gqa", work):
        return msg
    import onnx
    import onnxruntime as ort
    d = work / "gqa"
    dim = lambda t, a: helper.make_node("Shape", [t], [f"{t}{a}"], start=a, end=a + 1)
    m = dd.model([dim("x", 1), dim("z", 0),
                  helper.make_node("Equal", ["x1", "z0"], ["same"]),
                  helper.make_node("Where", ["same", "z0", "one"], ["rep"], name="pick"),
                  helper.make_node("Concat", ["rep", "one"], ["shape"], axis=0),
                  helper.make_node("Expand", ["x", "shape"], ["y"])],
                 [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, "n"]),
                  helper.make_tensor_value_info("z", TensorProto.FLOAT, ["m"])],
                 [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None, "n"])],
                 [ints("one", [1])], opset=17)
    onnx.save(m, d / "pick.onnx")
    r = dd.run([dlc, "compile", "pick.onnx", "--dims", "n=1..4,m=1..4", "-o", "pick.so"], d)
    if r.returncode:
        return f"pick.onnx: {r.stderr.strip()}"
    x = np.arange(3, dtype=np.float32).reshape(1, 3)
    np.save(d / "x.npy", x)
    np.save(d / "z3.npy", np.zeros(3, np.float32))
    np.save(d / "z2.npy", np.zeros(2, np.float32))
    r = dd.run([dlc, "run", "pick.so", "--input", "x=x.npy", "--input", "z=z3.npy",
                "--output-dir", "out"], d)
    ref = ort.InferenceSession(str(d / "pick.onnx")).run(None, {"x": x, "z": np.zeros(3, np.float32)})[0]
    if r.returncode or not np.array_equal(np.load(d / "out" / "y.npy"), ref):
        return f"pick.so with n == m: {r.stderr.strip() or 'differs from ONNX Runtime'}"
    return dd.expect_error(dlc, d, ["run", "pick.so", "--input", "x=x.npy", "--input", "z=z2.npy"],
                           ["Where node 'pick'", "compiled for its first branch"])


def check_trees(dlc, work):
    """The trees case against ONNX Runtime, then a run with 2 features (the trees test 3)."""
    if msg := dd.check_case(dlc, "trees", work):
        return msg
    d = work / "trees"
    np.save(d / "x2.npy", np.zeros((2, 2), np.float32))
    return dd.expect_error(dlc, d, ["run", "model.so", "--input", "x=x2.npy"],
                           ["TreeEnsemble", "fewer features than the trees test (3)"])


def main():
    dd.CASES.update(CASES)
    checks = {"gqa": check_gqa, "trees": check_trees}
    dd.run_main(__doc__.split("\n")[0], list(CASES),
                lambda dlc, name, work: (checks[name](dlc, work) if name in checks
                                         else dd.check_case(dlc, name, work)),
                "dlc-dynamic-ops-")


if __name__ == "__main__":
    main()

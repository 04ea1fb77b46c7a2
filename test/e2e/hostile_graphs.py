# Hostile graphs for hostile.py: deep, wide and deeply nested graphs, and attribute values at
# the ends of int64 (overflow, division by zero in shape inference).
"""Cases of the hostile corpus about graph structure and extreme attributes (see hostile.py).

Importing this module registers its cases in hostile_models.CASES.
"""
from __future__ import annotations

import numpy as np
from onnx import helper

from hostile_models import (add, case, const, either, err, model, ok, one_node, put, run_args,
                            same, varint, vi)

I64_MAX, I64_MIN = 2**63 - 1, -2**63


# ---------------------------------------------------------------------------- 3. graph shapes
def _chain(op, n, x_shape=(4,)):
    nodes, prev = [], "x"
    for i in range(n):
        ins = [prev, "x"] if op == "Add" else [prev]
        nodes.append(helper.make_node(op, ins, [f"t{i}" if i < n - 1 else "y"], name=f"n{i}"))
        prev = f"t{i}"
    return model(nodes, [vi("x", list(x_shape))], [vi("y", list(x_shape))])


def _deep_case(op, n, ref, rtol=0.0):
    def build(dlc, d):
        x = np.array([0.5, -1.0, 2.0, 3.0], np.float32)
        put(d, "model.onnx", _chain(op, n))
        return ok(run_args(dlc, "model.onnx", {"x": put(d, "x.npy", x)}),
                  same(d / "out" / "y.npy", ref(x), rtol=rtol, atol=rtol))
    return build


def _sigmoid_n(x, n):
    x = x.astype(np.float64)
    for _ in range(n):
        x = 1 / (1 + np.exp(-x))
    return x.astype(np.float32)


add("deep_neg_20000", "hang", _deep_case("Neg", 20000, lambda x: x), quick=True,
    doc="a chain of 20000 Neg nodes (JIT): exit 0, exact")
add("deep_add_20000", "hang", _deep_case("Add", 20000, lambda x: x * np.float32(20001)),
    doc="a chain of 20000 Add(prev, x) nodes (JIT): exit 0, exact")
add("deep_sigmoid_8000", "hang", _deep_case("Sigmoid", 8000, lambda x: _sigmoid_n(x, 8000),
                                            1e-5),
    doc="a chain of 8000 Sigmoid nodes (one fused kernel) within 60 s: rtol 1e-5")


@case("hang", quick=True)
def c_wide_concat_5000(dlc, d):
    """Concat of 5000 copies of x[1,3]: exit 0, exact"""
    n = helper.make_node("Concat", ["x"] * 5000, ["y"], name="concat", axis=0)
    put(d, "model.onnx", model([n], [vi("x", [1, 3])], [vi("y", [5000, 3])]))
    x = np.array([[1, 2, 3]], np.float32)
    return ok(run_args(dlc, "model.onnx", {"x": put(d, "x.npy", x)}),
              same(d / "out" / "y.npy", np.repeat(x, 5000, axis=0)))


@case("hang")
def c_wide_sum_1000_inputs(dlc, d):
    """Sum of 1000 graph inputs, each given with --input: exit 0, rtol 1e-6"""
    names = [f"in{i}" for i in range(1000)]
    put(d, "model.onnx", model([helper.make_node("Sum", names, ["y"], name="sum")],
                               [vi(n, [3]) for n in names], [vi("y", [3])]))
    vals = [np.full(3, i, np.float32) for i in range(1000)]
    feeds = {n: put(d, f"{n}.npy", v) for n, v in zip(names, vals)}
    return ok(run_args(dlc, "model.onnx", feeds),
              same(d / "out" / "y.npy", np.full(3, 499500, np.float32), rtol=1e-6))


@case("hang")
def c_wide_outputs_2000(dlc, d):
    """2000 outputs y_i = x * i: exit 0, every file exact"""
    nodes = [helper.make_node("Mul", ["x", f"c{i}"], [f"y_{i}"], name=f"mul{i}")
             for i in range(2000)]
    put(d, "model.onnx", model(nodes, [vi("x", [2])], [vi(f"y_{i}", [2]) for i in range(2000)],
                               [const(f"c{i}", np.float32(i)) for i in range(2000)]))
    x = np.array([1.5, -2], np.float32)
    checks = [same(d / "out" / f"y_{i}.npy", x * np.float32(i)) for i in range(0, 2000, 1)]
    return ok(run_args(dlc, "model.onnx", {"x": put(d, "x.npy", x)}),
              lambda: next((w for c in checks if (w := c())), None))


@case("hang")
def c_many_initializers_5000(dlc, d):
    """Sum of x and 5000 distinct constant initializers: exit 0, rtol 1e-6"""
    names = [f"k{i}" for i in range(5000)]
    put(d, "model.onnx", model([helper.make_node("Sum", ["x", *names], ["y"], name="sum")],
                               [vi("x", [3])], [vi("y", [3])],
                               [const(n, np.full(3, 1, np.float32)) for n in names]))
    x = np.array([0, 1, 2], np.float32)
    return ok(run_args(dlc, "model.onnx", {"x": put(d, "x.npy", x)}),
              same(d / "out" / "y.npy", x + 5000, rtol=1e-6))


def _ld(field: int, payload: bytes) -> bytes:
    """A length-delimited protobuf field."""
    return varint(field << 3 | 2) + varint(len(payload)) + payload


def _nested_if_bytes(depth: int) -> bytes:
    """A model of `depth` nested If nodes (cond true) around Neg(x), serialized by hand:
    onnx's own Python parser refuses to build one this deep."""
    def vi_bytes(name):
        return vi(name, [2]).SerializeToString()

    def graph(name, node, out):
        return _ld(1, node) + _ld(2, name.encode()) + _ld(12, vi_bytes(out))

    g = graph("g0", helper.make_node("Neg", ["x"], ["o0"]).SerializeToString(), "o0")
    for k in range(1, depth + 1):
        other = graph(f"e{k}", helper.make_node("Identity", ["x"], [f"e{k}"]).SerializeToString(),
                      f"e{k}")
        attrs = b"".join(_ld(5, _ld(1, name) + varint(20 << 3) + varint(5) + _ld(6, body))
                         for name, body in ((b"then_branch", g), (b"else_branch", other)))
        node = _ld(1, b"cond") + _ld(2, f"o{k}".encode()) + _ld(3, f"if{k}".encode()) + \
            _ld(4, b"If") + attrs
        g = graph(f"g{k}", node, f"o{k}")
    top = model([], [vi("x", [2])], [vi(f"o{depth}", [2])], [const("cond", np.array(True))])
    top_graph = top.graph.SerializeToString() + b"".join(
        _ld(1, n) for n in _split_nodes(g))
    top.ClearField("graph")
    return top.SerializeToString() + _ld(7, top_graph)


def _split_nodes(graph_bytes: bytes) -> list[bytes]:
    """The node fields (1) of a hand-made GraphProto."""
    out, at = [], 0
    while at < len(graph_bytes):
        tag, at = _read_varint(graph_bytes, at)
        n, at = _read_varint(graph_bytes, at)
        if tag >> 3 == 1:
            out.append(graph_bytes[at:at + n])
        at += n
    return out


def _read_varint(b: bytes, at: int):
    shift = value = 0
    while True:
        value |= (b[at] & 0x7F) << shift
        shift += 7
        at += 1
        if not b[at - 1] & 0x80:
            return value, at


for _depth in (30, 300):
    add(f"nested_if_{_depth}", "hang", lambda dlc, d, _k=_depth: either(
        run_args(dlc, put(d, "model.onnx", _nested_if_bytes(_k)),
                 {"x": put(d, "x.npy", np.array([1, -2], np.float32))}),
        same(d / "out" / f"o{_k}.npy", np.array([-1, 2], np.float32)), "model.onnx"),
        f"{_depth} nested If (cond true) around Neg: exit 0 exact, or one error line")


@case("hang")
def c_node_name_1mb(dlc, d):
    """a node named with 1 MiB of characters: exit 0, exact"""
    put(d, "model.onnx", model([helper.make_node("Neg", ["x"], ["y"], name="n" * (1 << 20))],
                               [vi("x", [2])], [vi("y", [2])]))
    x = np.array([1, -2], np.float32)
    return ok(run_args(dlc, "model.onnx", {"x": put(d, "x.npy", x)}),
              same(d / "out" / "y.npy", -x))


# ------------------------------------------------------------------------ 2, 5. extreme attributes
def _i(v):
    return np.array(v, np.int64)


W33 = np.ones((1, 1, 3, 3), np.float32)
# name: (op, x shape, {constants}, input order, attributes, reference of x for a valid model
# (exit 0, or one error line: "either") or None (an error naming the node is required))
ATTRS = {
    "conv_pads_int64_max": ("Conv", [1, 1, 5, 5], {"w": W33}, None, {"pads": [I64_MAX] * 4}),
    "conv_dilations_2p62": ("Conv", [1, 1, 5, 5], {"w": W33}, None, {"dilations": [2**62] * 2}),
    "conv_strides_zero": ("Conv", [1, 1, 5, 5], {"w": W33}, None, {"strides": [0, 0]}),
    "conv_dilations_zero": ("Conv", [1, 1, 5, 5], {"w": W33}, None, {"dilations": [0, 0]}),
    "conv_group_zero": ("Conv", [1, 2, 3, 3], {"w": np.ones((2, 1, 1, 1), np.float32)}, None,
                        {"group": 0}),
    "conv_group_int64_min": ("Conv", [1, 2, 3, 3], {"w": np.ones((2, 1, 1, 1), np.float32)},
                             None, {"group": I64_MIN}),
    "maxpool_kernel_int64_max": ("MaxPool", [1, 1, 4], {}, None, {"kernel_shape": [I64_MAX]}),
    "maxpool_strides_zero": ("MaxPool", [1, 1, 4], {}, None, {"kernel_shape": [2],
                                                              "strides": [0]}),
    "avgpool_pads_2p62": ("AveragePool", [1, 1, 4], {}, None, {"kernel_shape": [1],
                                                               "pads": [2**62, 2**62]}),
    "pad_2p62_twice": ("Pad", [1], {"p": _i([2**62, 2**62])}, None, {}),
    "resize_sizes_int64_max": ("Resize", [2], {"sz": _i([I64_MAX])}, ["x", "", "", "sz"], {}),
    "tile_repeats_int64_max": ("Tile", [2], {"r": _i([I64_MAX])}, None, {}),
    "expand_int64_max": ("Expand", [1], {"sh": _i([I64_MAX])}, None, {}),
    "split_sizes_wrap_to_total": ("Split", [6], {"s": _i([I64_MAX, I64_MIN + 7])}, None,
                                  {"_n_out": 2}),
    "concat_axis_int64_min": ("Concat", [2], {}, ["x", "x"], {"axis": I64_MIN}),
    "gather_axis_int64_min": ("Gather", [2], {"i": _i([0])}, None, {"axis": I64_MIN}),
    "flatten_axis_int64_min": ("Flatten", [2, 2], {}, None, {"axis": I64_MIN}),
    "unsqueeze_axes_int64_min": ("Unsqueeze", [2], {"a": _i([I64_MIN])}, None, {}),
    "softmax_axis_int64_max": ("Softmax", [2], {}, None, {"axis": I64_MAX}),
    "cumsum_axis_int64_min": ("CumSum", [2], {"a": _i(I64_MIN)}, None, {}),
    "depth_to_space_blocksize_2p32": ("DepthToSpace", [1, 4, 1, 1], {}, None,
                                      {"blocksize": 2**32}),
    "space_to_depth_blocksize_2p32": ("SpaceToDepth", [1, 1, 2, 2], {}, None,
                                      {"blocksize": 2**32}),
    "topk_k_negative": ("TopK", [2], {"k": _i([-1])}, None, {"_n_out": 2}),
    "onehot_depth_int64_max": ("OneHot", None, {"i": _i([1]), "depth": _i(I64_MAX),
                                                "v": np.array([0, 1], np.float32)}, None, {}),
    "depth_to_space_blocksize_zero": ("DepthToSpace", [1, 4, 1, 1], {}, None, {"blocksize": 0}),
    "space_to_depth_blocksize_zero": ("SpaceToDepth", [1, 1, 2, 2], {}, None, {"blocksize": 0}),
    "split_num_outputs_zero": ("Split", [6], {}, None, {"num_outputs": 0, "_n_out": 2}),
    "split_num_outputs_int64_max": ("Split", [6], {}, None, {"num_outputs": I64_MAX,
                                                             "_n_out": 2}),
    "group_norm_num_groups_zero": ("GroupNormalization", [1, 4, 2],
                                   {"sc": np.ones(4, np.float32), "b": np.zeros(4, np.float32)},
                                   None, {"num_groups": 0}),
    "conv_transpose_strides_2p62": ("ConvTranspose", [1, 1, 2, 2],
                                    {"w": np.ones((1, 1, 1, 1), np.float32)}, None,
                                    {"strides": [2**62] * 2}),
    "maxpool_dilations_2p62": ("MaxPool", [1, 1, 4], {}, None, {"kernel_shape": [2],
                                                                "dilations": [2**62]}),
    "transpose_perm_int64_min": ("Transpose", [2, 2], {}, None, {"perm": [I64_MIN, 0]}),
    "reduce_sum_axes_int64_min": ("ReduceSum", [2], {"a": _i([I64_MIN])}, None, {}),
    "pad_int64_min": ("Pad", [2], {"p": _i([I64_MIN, 0])}, None, {}),
    # valid models whose arithmetic meets the ends of int64
    "slice_ends_int64_min": ("Slice", [4], {"s": _i([0]), "e": _i([I64_MIN])}, None, {},
                             lambda x: x[:0]),
    "slice_starts_int64_min": ("Slice", [4], {"s": _i([I64_MIN]), "e": _i([I64_MAX])}, None, {},
                               lambda x: x),
    "slice_steps_int64_min": ("Slice", [4], {"s": _i([I64_MAX]), "e": _i([I64_MIN]),
                                             "a": _i([0]), "st": _i([I64_MIN])}, None, {},
                              lambda x: x[3:4]),
    "trilu_k_int64_min": ("Trilu", [3, 3], {"k": _i(I64_MIN)}, None, {"upper": 1},
                          lambda x: x),
    "trilu_k_int64_max": ("Trilu", [3, 3], {"k": _i(I64_MAX)}, None, {"upper": 1},
                          lambda x: np.zeros_like(x)),
    "conv_strides_int64_max": ("Conv", [1, 1, 5, 5], {"w": W33}, None,
                               {"strides": [I64_MAX] * 2},
                               lambda x: x[:, :, :3, :3].sum(keepdims=True)),
}


def _attr_case(op, shape, consts, order, attrs, ref=None):
    def build(dlc, d):
        put(d, "model.onnx", one_node(op, {"x": (np.float32, shape)} if shape else {}, consts,
                                      node="attr_node", _order=order, opset=18, **attrs))
        x = np.arange(np.prod(shape or [1]), dtype=np.float32).reshape(shape or [1]) - 1
        cmd = run_args(dlc, "model.onnx", {"x": put(d, "x.npy", x)} if shape else {})
        if ref is None:
            return err(cmd, "attr_node")
        return either(cmd, same(d / "out" / "y.npy", ref(x).astype(np.float32)), "attr_node")
    return build


for _n, (_op, _sh, _c, _o, _a, *_ref) in ATTRS.items():
    add(f"attr_{_n}", "memory" if not _ref and any(k in _n for k in ("max", "2p")) else "wrong",
        _attr_case(_op, _sh, _c, _o, _a, *_ref),
        f"{_op} {_n.replace('_', ' ')}: " + ("exit 0 exact or one error line" if _ref
                                             else "one error line"),
        quick=_n in ("conv_group_zero", "split_sizes_wrap_to_total", "slice_steps_int64_min",
                     "depth_to_space_blocksize_2p32"))


@case("wrong")
def c_attr_range_int64_extreme_span(dlc, d):
    """Range(INT64_MAX, INT64_MIN, INT64_MIN): limit - start overflows; the 2 elements are
    [INT64_MAX, -1] (exit 0 exact) or one error line"""
    put(d, "model.onnx", one_node("Range", {}, {"s": _i(I64_MAX), "l": _i(I64_MIN),
                                                "dl": _i(I64_MIN)}, node="attr_node",
                                  _out_dtype=7))
    return either(run_args(dlc, "model.onnx", {}), same(d / "out" / "y.npy",
                                                       _i([I64_MAX, -1])), "attr_node")

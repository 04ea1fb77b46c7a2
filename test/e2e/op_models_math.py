# Single-op ONNX test cases for dlc, part 1: elementwise math, MatMul/Gemm, Conv, pooling,
# normalization, softmax and reductions (see op_models.py for the shape ops and OP_MODELS).
"""Small single-op models (one op, or 2-3 ops where the op alone would be degenerate).

Every entry of :data:`MATH_MODELS` is a callable ``build(seed) -> (model, inputs)`` like
``models.MODELS``.  A case is written as ``_op(name, op, spec, opset=..., **attrs)`` where
``spec(rng)`` returns the node's inputs in order: ``In(array)`` for a graph input,
``K(array)`` for an initializer, ``None`` for an omitted optional input.  Output types and
shapes are filled in by ONNX shape inference (and must come out fully static).
"""
from __future__ import annotations

from typing import Callable

import numpy as np
import onnx
from onnx import helper, numpy_helper

from models import _NP_TO_ONNX

Builder = Callable[[int], tuple[onnx.ModelProto, dict[str, np.ndarray]]]
MATH_MODELS: dict[str, Builder] = {}

INT64_MAX = np.iinfo(np.int64).max
INT64_MIN = np.iinfo(np.int64).min


class In:
    """A graph input with this value."""
    def __init__(self, arr):
        self.arr = np.asarray(arr)


class K:
    """An initializer (constant) with this value."""
    def __init__(self, arr):
        self.arr = np.asarray(arr)


class G:
    """Tiny graph builder for the multi-op cases: inputs, initializers and nodes."""

    def __init__(self, rng):
        self.r = rng
        self.nodes, self.ins, self.inits, self.data = [], [], [], {}

    def add(self, v) -> str:
        """Register In/K/None (or a plain value name) and return its value name."""
        if v is None:
            return ""
        if isinstance(v, str):
            return v
        if isinstance(v, In):
            name = f"x{len(self.ins)}"
            self.ins.append(helper.make_tensor_value_info(
                name, _NP_TO_ONNX[v.arr.dtype], list(v.arr.shape)))
            self.data[name] = v.arr
            return name
        name = f"c{len(self.inits)}"
        self.inits.append(numpy_helper.from_array(v.arr, name))
        return name

    def node(self, op, inputs, n_out=1, **attrs):
        names = [self.add(v) for v in inputs]
        k = len(self.nodes)
        outs = [f"n{k}_y{i}" for i in range(n_out)]
        self.nodes.append(helper.make_node(op, names, outs, name=f"{op}_{k}", **attrs))
        return outs[0] if n_out == 1 else outs


def finish(g: G, outs, name: str, opset: int):
    """Make the model; graph outputs get the statically inferred type of each value."""
    outs = [outs] if isinstance(outs, str) else list(outs)
    vis = []
    for i, o in enumerate(outs):
        y = f"y{i}" if len(outs) > 1 else "y"
        for n in g.nodes:  # rename the produced value, like exporters (no Identity)
            n.output[:] = [y if v == o else v for v in n.output]
            n.input[:] = [y if v == o else v for v in n.input]
        vi = onnx.ValueInfoProto()
        vi.name = y
        vis.append(vi)
    graph = helper.make_graph(g.nodes, name, g.ins, vis, initializer=g.inits)
    # Nodes of other domains (make_node's domain=...) import that domain's newest opset.
    domains = sorted({n.domain for n in g.nodes if n.domain not in ("", "ai.onnx")})
    versions = {"ai.onnx.ml": 5, "ai.onnx.preview.training": 1}
    model = helper.make_model(graph, producer_name="dlc-e2e-ops",
                              opset_imports=[helper.make_opsetid("", opset)] +
                              [helper.make_opsetid(d, versions.get(d, 1)) for d in domains])
    model.ir_version = 8 if opset <= 17 else 9
    inferred = onnx.shape_inference.infer_shapes(model, strict_mode=True, data_prop=True)
    for vi in inferred.graph.output:
        tt = vi.type.tensor_type
        if not tt.elem_type or not tt.HasField("shape") or any(
                not d.HasField("dim_value") for d in tt.shape.dim):
            raise ValueError(f"{name}: output {vi.name} has no static type: {vi.type}")
    model.graph.ClearField("output")
    model.graph.output.extend(inferred.graph.output)
    return model, g.data


def case(name: str, opset: int = 17, table: dict | None = None):
    """Decorator for a multi-op case ``fn(g: G) -> output value(s)``."""
    def reg(fn):
        def build(seed: int):
            g = G(np.random.default_rng(seed))
            return finish(g, fn(g), name, opset)
        build.__doc__ = fn.__doc__
        (MATH_MODELS if table is None else table)[name] = build
        return fn
    return reg


def op(name: str, op_type: str, spec, opset: int = 17, n_out: int = 1,
       table: dict | None = None, **attrs):
    """Register a single-node case: ``spec(rng)`` gives the node inputs (In/K/None)."""
    def fn(g):
        return g.node(op_type, spec(g.r), n_out=n_out, **attrs)
    fn.__doc__ = f"{op_type} (opset {opset}) {attrs or ''}"
    case(name, opset, table)(fn)


# ---- random data helpers ----------------------------------------------------
def f32(r, *shape, lo=-2.0, hi=2.0):
    return r.uniform(lo, hi, shape).astype(np.float32)


def pos(r, *shape):
    return f32(r, *shape, lo=0.1, hi=3.0)


def nrm(r, *shape, dtype=np.float32):
    return r.standard_normal(shape).astype(dtype)


def i64(r, *shape, lo=-9, hi=10):
    return r.integers(lo, hi, shape, dtype=np.int64)


def nz_i64(r, *shape):
    """Non-zero int64 in [-7, 7]."""
    v = r.integers(1, 8, shape, dtype=np.int64)
    return v * np.where(r.random(shape) < 0.5, -1, 1).astype(np.int64)


def bools(r, *shape):
    return r.random(shape) < 0.5


def small_int_f32(r, *shape):
    """Floats with many exact ties, for Equal / <= / >= tests."""
    return r.integers(-2, 3, shape).astype(np.float32)


# ---------------------------------------------------------------------------
# Elementwise binary / variadic
# ---------------------------------------------------------------------------
op("add_f32", "Add", lambda r: [In(nrm(r, 2, 3, 4)), In(nrm(r, 3, 1))])
op("sub_f32", "Sub", lambda r: [In(nrm(r, 2, 3, 4)), In(nrm(r, 2, 1, 4))])
op("mul_f32", "Mul", lambda r: [In(nrm(r, 2, 3, 4)), K(nrm(r, 4))])
op("div_f32", "Div", lambda r: [In(nrm(r, 2, 3, 4)), In(f32(r, 3, 4, lo=0.5, hi=2.0)
                                                       * np.float32(r.choice([-1, 1])))])
op("add_i64", "Add", lambda r: [In(i64(r, 2, 3, 4)), In(i64(r, 4))])
op("sub_i64", "Sub", lambda r: [In(i64(r, 2, 3, 4)), In(i64(r, 3, 1))])
op("mul_i64", "Mul", lambda r: [In(i64(r, 2, 3, 4)), In(i64(r, 2, 3, 4))])
# Integer Div truncates toward zero (C semantics); both operands take both signs.
op("div_i64", "Div", lambda r: [In(i64(r, 3, 8, lo=-50, hi=51)), In(nz_i64(r, 3, 8))])
op("pow_f32_f32", "Pow", lambda r: [In(pos(r, 3, 4)), In(f32(r, 3, 4, lo=-2.0, hi=3.0))])
op("pow_f32_i64", "Pow", lambda r: [In(f32(r, 3, 4)), In(i64(r, 4, lo=-2, hi=4))])
op("pow_f32_scalar2", "Pow", lambda r: [In(f32(r, 2, 5)), K(np.float32(2.0))])
op("max_3in", "Max", lambda r: [In(nrm(r, 2, 3, 4)), In(nrm(r, 4)), In(nrm(r, 3, 1))])
op("min_3in", "Min", lambda r: [In(nrm(r, 2, 3, 4)), In(nrm(r, 4)), In(nrm(r, 3, 1))])
op("max_i64", "Max", lambda r: [In(i64(r, 3, 4)), In(i64(r, 3, 4))])
op("sum_3in", "Sum", lambda r: [In(nrm(r, 2, 3, 4)), In(nrm(r, 3, 4)), In(nrm(r, 1))])
op("mean_3in", "Mean", lambda r: [In(nrm(r, 2, 3, 4)), In(nrm(r, 3, 4)), In(nrm(r, 2, 1, 1))])
op("add_f64", "Add", lambda r: [In(nrm(r, 3, 4, dtype=np.float64)),
                                In(nrm(r, 4, dtype=np.float64))])
# Broadcasting edge cases: rank-0 inputs, [1] vs [3,1,4] vs [2,1,1,4].
op("add_scalar_rank0", "Add", lambda r: [In(nrm(r, 2, 3)), In(np.float32(r.standard_normal()))])
op("mul_rank0_rank0", "Mul", lambda r: [In(np.float32(1.5)), In(np.float32(r.standard_normal()))])
op("add_1_vs_314", "Add", lambda r: [In(nrm(r, 1)), In(nrm(r, 3, 1, 4))])
op("add_314_vs_2114", "Add", lambda r: [In(nrm(r, 3, 1, 4)), In(nrm(r, 2, 1, 1, 4))])
op("sub_rank0_lhs_i64", "Sub", lambda r: [K(np.int64(5)), In(i64(r, 2, 3))])

# ---------------------------------------------------------------------------
# Elementwise unary
# ---------------------------------------------------------------------------
for _name, _gen in [("Neg", nrm), ("Abs", nrm), ("Exp", f32), ("Log", pos), ("Sqrt", pos),
                    ("Reciprocal", pos), ("Tanh", f32), ("Sigmoid", lambda r, *s: f32(r, *s) * 4),
                    ("Relu", nrm), ("Erf", f32), ("Floor", lambda r, *s: f32(r, *s) * 3),
                    ("Ceil", lambda r, *s: f32(r, *s) * 3), ("Sin", lambda r, *s: f32(r, *s) * 3),
                    ("Cos", lambda r, *s: f32(r, *s) * 3)]:
    op(_name.lower(), _name, lambda r, _g=_gen: [In(_g(r, 2, 3, 5))])
op("neg_i64", "Neg", lambda r: [In(i64(r, 3, 4))])
op("abs_i64", "Abs", lambda r: [In(i64(r, 3, 4))])
op("leaky_relu", "LeakyRelu", lambda r: [In(nrm(r, 2, 3, 5))], alpha=0.2)
op("leaky_relu_default", "LeakyRelu", lambda r: [In(nrm(r, 2, 3, 5))])
op("prelu_per_channel", "PRelu",
   lambda r: [In(nrm(r, 2, 3, 4, 5)), K(f32(r, 3, 1, 1, lo=0, hi=0.5))])
op("prelu_scalar_slope", "PRelu", lambda r: [In(nrm(r, 2, 6)), K(np.array([0.25], np.float32))])
op("gelu_op20", "Gelu", lambda r: [In(f32(r, 2, 3, 8) * 2)], opset=20)
op("gelu_tanh_op20", "Gelu", lambda r: [In(f32(r, 2, 3, 8) * 2)], opset=20, approximate="tanh")
# Clip, opset 13 (min/max as optional inputs) and opset 6 (attributes).
op("clip_min_only", "Clip", lambda r: [In(nrm(r, 3, 4)), K(np.float32(-0.5))], opset=13)
op("clip_max_only", "Clip", lambda r: [In(nrm(r, 3, 4)), None, K(np.float32(0.5))], opset=13)
op("clip_both", "Clip", lambda r: [In(nrm(r, 3, 4)), K(np.float32(-0.5)), K(np.float32(0.7))],
   opset=13)
op("clip_none", "Clip", lambda r: [In(nrm(r, 3, 4))], opset=13)
op("clip_i64", "Clip", lambda r: [In(i64(r, 3, 4)), K(np.int64(-3)), K(np.int64(4))], opset=13)
op("clip_op10_attrs", "Clip", lambda r: [In(nrm(r, 3, 4))], opset=10, min=-0.3, max=0.6)
op("where_bcast3", "Where", lambda r: [In(bools(r, 2, 1, 4)), In(nrm(r, 3, 1)), In(nrm(r, 4))])
op("where_i64", "Where", lambda r: [In(bools(r, 3, 4)), In(i64(r, 3, 4)), K(np.int64(-1))])

# ---------------------------------------------------------------------------
# Comparisons, logic, Cast
# ---------------------------------------------------------------------------
for _cmp in ["Equal", "Less", "Greater", "LessOrEqual", "GreaterOrEqual"]:
    op(f"{_cmp.lower()}_f32", _cmp, lambda r: [In(small_int_f32(r, 2, 3, 4)),
                                               In(small_int_f32(r, 3, 4))])
    op(f"{_cmp.lower()}_i64", _cmp, lambda r: [In(i64(r, 2, 3, 4, lo=-2, hi=3)),
                                               In(i64(r, 4, lo=-2, hi=3))])
for _lg in ["And", "Or", "Xor"]:
    op(_lg.lower(), _lg, lambda r: [In(bools(r, 2, 3, 4)), In(bools(r, 3, 1))])
op("not", "Not", lambda r: [In(bools(r, 3, 4))])


def _frac_f32(r, *shape):
    """Values like -2.7, -0.5, 0.4, 3.9: negatives and fractions (and exact 0 / ints)."""
    v = np.round(r.uniform(-5, 5, shape), 1).astype(np.float32)
    v.flat[:4] = [0.0, -0.5, 2.0, -3.0]
    return v


_T = onnx.TensorProto
op("cast_f32_i64", "Cast", lambda r: [In(_frac_f32(r, 3, 5))], to=_T.INT64)
op("cast_i64_f32", "Cast", lambda r: [In(i64(r, 3, 5, lo=-1000, hi=1000))], to=_T.FLOAT)
op("cast_f32_bool", "Cast", lambda r: [In(_frac_f32(r, 3, 5))], to=_T.BOOL)
op("cast_bool_f32", "Cast", lambda r: [In(bools(r, 3, 5))], to=_T.FLOAT)
op("cast_f32_f64", "Cast", lambda r: [In(nrm(r, 3, 5))], to=_T.DOUBLE)
op("cast_f64_f32", "Cast", lambda r: [In(nrm(r, 3, 5, dtype=np.float64))], to=_T.FLOAT)
op("cast_i32_i64", "Cast", lambda r: [In(r.integers(-2**31, 2**31 - 1, (3, 5), dtype=np.int32))],
   to=_T.INT64)
op("cast_i64_i32", "Cast", lambda r: [In(i64(r, 3, 5, lo=-70000, hi=70000))], to=_T.INT32)
op("mod_i64", "Mod", lambda r: [In(i64(r, 3, 5, lo=-20, hi=20)),
                                 In(np.array([3, -3, 7, -7, 5], np.int64))])
op("fmod_i64", "Mod", lambda r: [In(i64(r, 3, 5, lo=-20, hi=20)),
                                  In(np.array([3, -3, 7, -7, 5], np.int64))], fmod=1)
op("fmod_f32", "Mod", lambda r: [In(f32(r, 3, 5, lo=-9, hi=9)),
                                  In(np.array([2.5, -2.5, 1.5, -4.0, 3.0], np.float32))], fmod=1)
# Unsigned sources: dlc integers are signless, so 200 must not turn into -56.
op("cast_u8_f32", "Cast", lambda r: [In(r.integers(0, 256, (3, 5), dtype=np.uint8))], to=_T.FLOAT)
op("cast_u8_i32", "Cast", lambda r: [In(r.integers(0, 256, (3, 5), dtype=np.uint8))], to=_T.INT32)
op("cast_u16_f32", "Cast", lambda r: [In(r.integers(0, 65536, (3, 5), dtype=np.uint16))],
   to=_T.FLOAT)
op("cast_u8_init_f32", "Cast", lambda r: [K(r.integers(128, 256, (4,), dtype=np.uint8))],
   to=_T.FLOAT)


@case("reshape_cast_u8")
def _reshape_cast_u8(g):
    """uint8 image -> Reshape -> Transpose -> Cast(float): unsignedness flows through."""
    x = g.node("Reshape", [In(g.r.integers(0, 256, (2, 12), dtype=np.uint8)),
                           K(np.array([2, 3, 4], np.int64))])
    t = g.node("Transpose", [x], perm=[0, 2, 1])
    return g.node("Cast", [t], to=_T.FLOAT)

# ---------------------------------------------------------------------------
# MatMul / Gemm
# ---------------------------------------------------------------------------
op("matmul_2d", "MatMul", lambda r: [In(nrm(r, 5, 8)), In(nrm(r, 8, 6))])
op("matmul_1d_2d", "MatMul", lambda r: [In(nrm(r, 8)), In(nrm(r, 8, 6))])
op("matmul_2d_1d", "MatMul", lambda r: [In(nrm(r, 5, 8)), In(nrm(r, 8))])
op("matmul_1d_1d", "MatMul", lambda r: [In(nrm(r, 8)), In(nrm(r, 8))])
op("matmul_3d_3d", "MatMul", lambda r: [In(nrm(r, 3, 4, 8)), In(nrm(r, 3, 8, 5))])
op("matmul_4d_2d", "MatMul", lambda r: [In(nrm(r, 2, 3, 4, 8)), K(nrm(r, 8, 5))])
op("matmul_bcast_batch", "MatMul", lambda r: [In(nrm(r, 2, 1, 4, 8)), In(nrm(r, 3, 8, 5))])
op("matmul_2d_3d", "MatMul", lambda r: [In(nrm(r, 4, 8)), In(nrm(r, 3, 8, 5))])
op("matmul_f64", "MatMul", lambda r: [In(nrm(r, 4, 8, dtype=np.float64)),
                                      In(nrm(r, 8, 3, dtype=np.float64))])
op("matmul_i32", "MatMul", lambda r: [In(r.integers(-5, 6, (4, 8), dtype=np.int32)),
                                      In(r.integers(-5, 6, (8, 3), dtype=np.int32))])
op("matmul_i64", "MatMul", lambda r: [In(i64(r, 4, 8)), In(i64(r, 8, 3))])
# Gemm: A [M,K] (or [K,M] with transA), B [K,N] (or [N,K] with transB), M=4 K=6 N=5.
op("gemm_tA_tB_C_n", "Gemm", lambda r: [In(nrm(r, 6, 4)), K(nrm(r, 5, 6)), K(nrm(r, 5))],
   transA=1, transB=1, alpha=0.5, beta=2.0)
op("gemm_C_1n", "Gemm", lambda r: [In(nrm(r, 4, 6)), K(nrm(r, 6, 5)), K(nrm(r, 1, 5))],
   alpha=1.5, beta=0.5)
op("gemm_C_m1", "Gemm", lambda r: [In(nrm(r, 4, 6)), In(nrm(r, 5, 6)), In(nrm(r, 4, 1))],
   transB=1, beta=-1.0)
op("gemm_C_scalar", "Gemm", lambda r: [In(nrm(r, 6, 4)), K(nrm(r, 6, 5)), K(np.float32(0.75))],
   transA=1)
op("gemm_C_mn", "Gemm", lambda r: [In(nrm(r, 4, 6)), K(nrm(r, 6, 5)), In(nrm(r, 4, 5))],
   alpha=2.0, beta=0.25)
op("gemm_no_C", "Gemm", lambda r: [In(nrm(r, 4, 6)), K(nrm(r, 5, 6))], transB=1, alpha=0.3)

# ---------------------------------------------------------------------------
# Conv
# ---------------------------------------------------------------------------
def _w(r, *shape):
    return (nrm(r, *shape) / np.sqrt(np.prod(shape[1:]))).astype(np.float32)


op("conv_pads_strides_dil", "Conv", lambda r: [In(nrm(r, 2, 3, 11, 11)), K(_w(r, 4, 3, 3, 3)),
                                               K(nrm(r, 4))],
   pads=[1, 1, 1, 1], strides=[2, 2], dilations=[2, 2], kernel_shape=[3, 3])
op("conv_asym_pads_nobias", "Conv", lambda r: [In(nrm(r, 1, 3, 9, 10)), K(_w(r, 4, 3, 3, 2))],
   pads=[0, 1, 2, 0], strides=[1, 2])
op("conv_same_upper", "Conv", lambda r: [In(nrm(r, 1, 3, 10, 9)), K(_w(r, 4, 3, 4, 3)),
                                         K(nrm(r, 4))], auto_pad="SAME_UPPER", strides=[2, 2])
op("conv_same_lower", "Conv", lambda r: [In(nrm(r, 1, 3, 10, 9)), K(_w(r, 4, 3, 4, 3)),
                                         K(nrm(r, 4))], auto_pad="SAME_LOWER", strides=[2, 2])
op("conv_valid", "Conv", lambda r: [In(nrm(r, 1, 3, 10, 9)), K(_w(r, 4, 3, 3, 3))],
   auto_pad="VALID", strides=[2, 1])
op("conv_group2", "Conv", lambda r: [In(nrm(r, 1, 4, 8, 8)), K(_w(r, 6, 2, 3, 3)), K(nrm(r, 6))],
   group=2, pads=[1, 1, 1, 1])
op("conv_depthwise_s2", "Conv", lambda r: [In(nrm(r, 2, 6, 8, 8)), K(_w(r, 6, 1, 3, 3)),
                                        K(nrm(r, 6))], group=6, pads=[1, 1, 1, 1], strides=[2, 2])
op("conv_depthwise_mult2", "Conv", lambda r: [In(nrm(r, 1, 4, 8, 8)), K(_w(r, 8, 1, 3, 3)),
                                              K(nrm(r, 8))], group=4, pads=[1, 1, 1, 1])
op("conv_1d", "Conv", lambda r: [In(nrm(r, 2, 3, 16)), K(_w(r, 5, 3, 3)), K(nrm(r, 5))],
   pads=[1, 1], strides=[2])
op("conv_1x1_weight_input", "Conv", lambda r: [In(nrm(r, 1, 8, 5, 5)), In(_w(r, 4, 8, 1, 1))])


# Grouped convs (1 < group < channels) with a bias, then an activation fused as their
# epilogue: the bias was dropped (ResNeXt, RegNet) when the accumulator became the output.
def _grouped_conv_act(g, act, shape=(1, 8, 9, 9), cout=8, group=2, **attrs):
    k = [3] * (len(shape) - 2)
    c = g.node("Conv", [In(nrm(g.r, *shape)), K(_w(g.r, cout, shape[1] // group, *k)),
                        K(nrm(g.r, cout))], group=group, pads=[1] * (2 * len(k)), **attrs)
    if act == "silu":
        return g.node("Mul", [c, g.node("Sigmoid", [c])])
    if act == "Clip":
        return g.node(act, [c, K(np.float32(0)), K(np.float32(6))])
    return g.node(act, [c])


for _act in ("Relu", "Clip", "Sigmoid", "silu"):
    case(f"conv_group2_bias_{_act.lower()}")(lambda g, a=_act: _grouped_conv_act(g, a))
case("conv_group4_bias_relu_s2")(
    lambda g: _grouped_conv_act(g, "Relu", (2, 16, 11, 11), 32, 4, strides=[2, 2]))
case("conv1d_group2_bias_relu")(lambda g: _grouped_conv_act(g, "Relu", (1, 8, 17)))
case("conv3d_group2_bias_relu")(lambda g: _grouped_conv_act(g, "Relu", (1, 8, 5, 6, 7)))

# 3-D convs (video, medical): built as one 2-D conv with the depth taps as channels.
op("conv3d_stem", "Conv", lambda r: [In(nrm(r, 1, 3, 6, 13, 13)), K(_w(r, 8, 3, 3, 7, 7)),
                                     K(nrm(r, 8))],
   pads=[1, 3, 3, 1, 3, 3], strides=[1, 2, 2])
op("conv3d_temporal_s2", "Conv", lambda r: [In(nrm(r, 2, 6, 7, 5, 4)), K(_w(r, 5, 6, 3, 1, 1))],
   pads=[1, 0, 0, 1, 0, 0], strides=[2, 1, 1])
op("conv3d_group3_dil_asym", "Conv", lambda r: [In(nrm(r, 1, 6, 9, 8, 10)),
                                                K(_w(r, 9, 2, 2, 3, 3)), K(nrm(r, 9))],
   group=3, dilations=[2, 1, 2], strides=[2, 1, 3], pads=[0, 1, 2, 1, 0, 1])
op("conv3d_depthwise", "Conv", lambda r: [In(nrm(r, 1, 4, 5, 6, 6)), K(_w(r, 4, 1, 3, 3, 3)),
                                          K(nrm(r, 4))], group=4, pads=[1] * 6)
op("conv3d_same_upper", "Conv", lambda r: [In(nrm(r, 1, 3, 5, 7, 6)), K(_w(r, 4, 3, 2, 3, 4))],
   auto_pad="SAME_UPPER", strides=[2, 2, 1])
op("convtranspose3d_s2_group2", "ConvTranspose",
   lambda r: [In(nrm(r, 1, 4, 3, 4, 5)), K(_w(r, 4, 3, 3, 3, 2)), K(nrm(r, 6))],
   group=2, strides=[2, 1, 2], pads=[1, 0, 1, 0, 1, 0], output_padding=[1, 0, 1])

# ---------------------------------------------------------------------------
# Pooling
# ---------------------------------------------------------------------------
_x4 = lambda r: [In(nrm(r, 1, 2, 9, 9))]  # noqa: E731
_x4e = lambda r: [In(nrm(r, 1, 2, 10, 10))]  # noqa: E731
op("maxpool_pads_strides", "MaxPool", _x4, kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
op("maxpool_dilations", "MaxPool", _x4, kernel_shape=[2, 2], dilations=[2, 2])
op("maxpool_ceil", "MaxPool", _x4e, kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)
op("maxpool_asym_pads", "MaxPool", lambda r: [In(nrm(r, 1, 2, 9, 9) - 5.0)],
   kernel_shape=[3, 3], strides=[2, 2], pads=[0, 1, 2, 0])
op("maxpool_same_upper", "MaxPool", _x4e, kernel_shape=[3, 3], strides=[2, 2],
   auto_pad="SAME_UPPER")
op("maxpool_1d", "MaxPool", lambda r: [In(nrm(r, 2, 3, 15))], kernel_shape=[3], strides=[2],
   pads=[1, 1])
op("avgpool_pads_cip0", "AveragePool", _x4, kernel_shape=[3, 3], strides=[2, 2],
   pads=[1, 1, 1, 1], count_include_pad=0)
op("avgpool_pads_cip1", "AveragePool", _x4, kernel_shape=[3, 3], strides=[2, 2],
   pads=[1, 1, 1, 1], count_include_pad=1)
op("avgpool_ceil", "AveragePool", _x4e, kernel_shape=[3, 3], strides=[2, 2], ceil_mode=1)
op("avgpool_ceil_pads_cip1", "AveragePool", _x4e, kernel_shape=[3, 3], strides=[2, 2],
   pads=[1, 1, 1, 1], ceil_mode=1, count_include_pad=1)
op("avgpool_same_upper", "AveragePool", _x4e, kernel_shape=[3, 3], strides=[2, 2],
   auto_pad="SAME_UPPER")
op("avgpool_1d", "AveragePool", lambda r: [In(nrm(r, 2, 3, 15))], kernel_shape=[4], strides=[3])
op("global_avgpool", "GlobalAveragePool", lambda r: [In(nrm(r, 2, 3, 5, 7))])
op("global_maxpool", "GlobalMaxPool", lambda r: [In(nrm(r, 2, 3, 5, 7))])
op("global_avgpool_1d", "GlobalAveragePool", lambda r: [In(nrm(r, 2, 3, 9))])

# ---------------------------------------------------------------------------
# Normalization, softmax
# ---------------------------------------------------------------------------
def _bn_params(r, c):
    return [K(f32(r, c, lo=0.5, hi=1.5)), K(f32(r, c, lo=-0.5, hi=0.5)),
            K(f32(r, c, lo=-0.5, hi=0.5)), K(f32(r, c, lo=0.5, hi=2.0))]


op("batchnorm_rank4", "BatchNormalization", lambda r: [In(nrm(r, 2, 3, 4, 5)), *_bn_params(r, 3)],
   epsilon=1e-3)
op("batchnorm_rank2", "BatchNormalization", lambda r: [In(nrm(r, 4, 3)), *_bn_params(r, 3)])
op("batchnorm_rank3", "BatchNormalization", lambda r: [In(nrm(r, 2, 3, 5)), *_bn_params(r, 3)])
op("layernorm_last", "LayerNormalization",
   lambda r: [In(nrm(r, 2, 3, 8) * 2 + 1), K(f32(r, 8, lo=0.5, hi=1.5)), K(f32(r, 8))],
   axis=-1, epsilon=1e-5)
op("layernorm_axis1_rank3", "LayerNormalization",
   lambda r: [In(nrm(r, 2, 4, 5) * 2 + 1), K(f32(r, 4, 5, lo=0.5, hi=1.5)), K(f32(r, 4, 5))],
   axis=1)
op("layernorm_nobias", "LayerNormalization",
   lambda r: [In(nrm(r, 3, 16) * 3), K(f32(r, 16, lo=0.5, hi=1.5))], axis=-1)
op("layernorm_bcast_scale", "LayerNormalization",
   lambda r: [In(nrm(r, 2, 4, 6)), K(f32(r, 1, 6, lo=0.5, hi=1.5)), K(f32(r, 6))], axis=1)
_sm_in = lambda r: [In(nrm(r, 3, 4, 5) * 3)]  # noqa: E731
op("softmax_last", "Softmax", _sm_in, axis=-1)
op("softmax_axis0", "Softmax", _sm_in, axis=0)
op("softmax_axis1", "Softmax", _sm_in, axis=1)
op("softmax_default_axis", "Softmax", _sm_in)
op("logsoftmax_last", "LogSoftmax", _sm_in, axis=-1)
op("logsoftmax_axis1", "LogSoftmax", _sm_in, axis=1)
# Opset 11: the input is coerced to 2-D [prod(:axis), prod(axis:)] and normalized per row.
op("softmax_op11_axis1", "Softmax", _sm_in, opset=11, axis=1)
op("softmax_op11_default", "Softmax", _sm_in, opset=11)
op("logsoftmax_op11_axis0", "LogSoftmax", _sm_in, opset=11, axis=0)

# ---------------------------------------------------------------------------
# Reductions
# ---------------------------------------------------------------------------
_rx = lambda r: [In(nrm(r, 2, 3, 4, 5))]  # noqa: E731
op("reducesum_op13_axes_input", "ReduceSum", lambda r: [In(nrm(r, 2, 3, 4)), K(np.array([1]))],
   opset=13, keepdims=1)
op("reducesum_op13_neg_axes_kd0", "ReduceSum",
   lambda r: [In(nrm(r, 2, 3, 4, 5)), K(np.array([-1, 0]))], opset=13, keepdims=0)
op("reducesum_op13_all", "ReduceSum", _rx, opset=13, keepdims=0)
op("reducesum_op13_all_kd1", "ReduceSum", _rx, opset=13)
op("reducesum_noop_empty_axes", "ReduceSum", _rx, opset=13, noop_with_empty_axes=1)
op("reducesum_i64", "ReduceSum", lambda r: [In(i64(r, 2, 3, 4)), K(np.array([0, 2]))],
   opset=13, keepdims=0)
op("reducemean_op13_attr", "ReduceMean", _rx, opset=13, axes=[-1], keepdims=0)
op("reducemean_op13_all", "ReduceMean", _rx, opset=13)
op("reducemean_op18_input", "ReduceMean", lambda r: [In(nrm(r, 2, 3, 4, 5)), K(np.array([0, 2]))],
   opset=18, keepdims=1)
op("reducemax_op13_attr", "ReduceMax", _rx, opset=13, axes=[1], keepdims=1)
op("reducemax_op18_all_kd0", "ReduceMax", _rx, opset=18, keepdims=0)
op("reducemax_op18_noop", "ReduceMax", _rx, opset=18, noop_with_empty_axes=1)
op("reducemin_op13_all", "ReduceMin", _rx, opset=13, keepdims=1)
op("reducemin_op18_neg_axes", "ReduceMin", lambda r: [In(nrm(r, 2, 3, 4, 5)),
                                                      K(np.array([-2, -1]))], opset=18, keepdims=0)
op("reducemax_i64_op13", "ReduceMax", lambda r: [In(i64(r, 3, 4))], opset=13, axes=[0], keepdims=0)

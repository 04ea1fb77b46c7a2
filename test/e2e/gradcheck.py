#!/usr/bin/env python3
"""Gradient check of dlc's reverse-mode autodiff against central finite differences.

Each case is a small float64 ONNX graph with inputs of random (seeded) shapes; its loss
is ``sum(y * R)`` for a fixed random ``R`` (a plain sum would hide errors, e.g. softmax's
rows always sum to 1).  ``dlc compile --grad-of=loss`` builds a module that also outputs
``grad_<input>`` for every input; ``dlc run`` evaluates it once.  For every input and a few
random directions ``v`` the directional derivative ``<grad, v>`` is compared with the
central difference ``(L(x + h v) - L(x - h v)) / 2h`` (h = 1e-5) of the same graph run by
ONNX Runtime in float64 (an independent forward), and must agree within a relative error
of 1e-6: |fd - ad| <= 1e-6 * max(|fd|, |ad|, 1e-3 * scale) where scale is the norm of the
gradient times the norm of v (so a direction almost orthogonal to the gradient is judged
against the gradient's size, not against round-off in a near-zero difference).

Usage: gradcheck.py --dlc build/bin/dlc [--keep DIR] [NAME ...]
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

TOL = 1e-6
H = 1e-5
DIRECTIONS = 3

CASES: dict = {}


def case(name):
    def register(fn):
        CASES[name] = fn
        return fn
    return register


class Graph:
    """Builds a float64 ONNX graph: inputs, initializers, nodes, one output y."""

    def __init__(self, rng, opset=17):
        self.rng, self.opset = rng, opset
        self.inputs, self.values, self.inits, self.nodes = [], {}, [], []
        self.count = 0

    def input(self, *shape, low=None, high=None, away_from_zero=False):
        name = f"x{len(self.inputs)}"
        if low is not None:
            a = self.rng.uniform(low, high, size=shape)
        else:
            a = self.rng.standard_normal(shape)
        if away_from_zero:
            a = np.sign(a) * (0.5 + np.abs(a))
        self.inputs.append(helper.make_tensor_value_info(name, TensorProto.DOUBLE, list(shape)))
        self.values[name] = np.asarray(a, dtype=np.float64)
        return name

    def const(self, array, dtype=None):
        name = f"k{len(self.inits)}"
        arr = np.asarray(array, dtype=dtype if dtype is not None else np.float64)
        self.inits.append(numpy_helper.from_array(arr, name))
        return name

    def op(self, op_type, *inputs, n_out=1, **attrs):
        outs = [f"t{self.count}_{i}" for i in range(n_out)]
        self.count += 1
        self.nodes.append(helper.make_node(op_type, list(inputs), outs, **attrs))
        return outs[0] if n_out == 1 else outs

    def model(self, y, y_shape):
        r = self.const(self.rng.standard_normal(y_shape))
        weighted = self.op("Mul", y, r)
        self.nodes.append(helper.make_node("ReduceSum", [weighted], ["loss"], keepdims=0))
        out = helper.make_tensor_value_info("loss", TensorProto.DOUBLE, [])
        g = helper.make_graph(self.nodes, "gradcheck", self.inputs, [out], self.inits)
        m = helper.make_model(g, opset_imports=[helper.make_opsetid("", self.opset)])
        m.ir_version = 8
        return m


def shape(rng, rank, lo=2, hi=5):
    return tuple(int(d) for d in rng.integers(lo, hi + 1, size=rank))


def unary(op_type, **kw):
    def build(rng):
        g = Graph(rng)
        s = shape(rng, int(rng.integers(1, 4)))
        x = g.input(*s, **{k: v for k, v in kw.items() if k in ("low", "high", "away_from_zero")})
        attrs = {k: v for k, v in kw.items() if k not in ("low", "high", "away_from_zero")}
        return g, g.op(op_type, x, **attrs), s
    return build


for _op, _kw in [("Neg", {}), ("Abs", {"away_from_zero": True}), ("Exp", {}),
                 ("Log", {"low": 0.5, "high": 3.0}), ("Sqrt", {"low": 0.5, "high": 3.0}),
                 ("Reciprocal", {"away_from_zero": True}), ("Tanh", {}), ("Sigmoid", {}),
                 ("Relu", {"away_from_zero": True}), ("Erf", {}), ("Sin", {}), ("Cos", {}),
                 ("Tan", {"low": -1.0, "high": 1.0}), ("Asin", {"low": -0.8, "high": 0.8}),
                 ("Acos", {"low": -0.8, "high": 0.8}), ("Atan", {}), ("Sinh", {}), ("Cosh", {}),
                 ("Asinh", {}), ("Acosh", {"low": 1.2, "high": 3.0}),
                 ("Atanh", {"low": -0.8, "high": 0.8}), ("Identity", {}),
                 ("Floor", {"low": 0.1, "high": 0.9}), ("Softplus", {}), ("Elu", {"away_from_zero": True}),
                 ("Selu", {"away_from_zero": True}), ("HardSigmoid", {"low": -1.5, "high": 1.5}),
                 ("LeakyRelu", {"away_from_zero": True, "alpha": 0.1})]:
    CASES[_op.lower()] = unary(_op, **_kw)


def binary(op_type, broadcast, positive_lhs=False):
    def build(rng):
        g = Graph(rng)
        s = shape(rng, 3)
        t = (1, s[1], s[2]) if broadcast == "lead" else (s[2],) if broadcast == "rank" else s
        a = g.input(*s, low=0.5, high=2.0) if positive_lhs else g.input(*s)
        b = g.input(*t, away_from_zero=True)
        return g, g.op(op_type, a, b), s
    return build


for _op in ["Add", "Sub", "Mul", "Div"]:
    for _b in ["same", "lead", "rank"]:
        CASES[f"{_op.lower()}_{_b}"] = binary(_op, _b)
CASES["pow_same"] = binary("Pow", "same", positive_lhs=True)
CASES["pow_rank"] = binary("Pow", "rank", positive_lhs=True)
CASES["max_lead"] = binary("Max", "lead")
CASES["min_rank"] = binary("Min", "rank")


@case("reuse_polynomial")
def _(rng):
    g = Graph(rng)
    s = shape(rng, 2)
    x = g.input(*s)
    y = g.op("Add", g.op("Mul", x, x), g.op("Mul", g.op("Sin", x), x))
    return g, y, s


@case("where")
def _(rng):
    g = Graph(rng)
    s = shape(rng, 2)
    x, z = g.input(*s), g.input(s[1])
    cond = g.op("Greater", x, g.const(0.0))
    return g, g.op("Where", cond, x, z), s


@case("matmul_2d")
def _(rng):
    g = Graph(rng)
    m, k, n = shape(rng, 3)
    return g, g.op("MatMul", g.input(m, k), g.input(k, n)), (m, k and n)[:0] + (m, n)


@case("matmul_batched_broadcast")
def _(rng):
    g = Graph(rng)
    b, m, k, n = shape(rng, 4)
    return g, g.op("MatMul", g.input(b, m, k), g.input(k, n)), (b, m, n)


@case("matmul_vector")
def _(rng):
    g = Graph(rng)
    k, n = shape(rng, 2)
    return g, g.op("MatMul", g.input(k), g.input(k, n)), (n,)


@case("gemm_trans_bias")
def _(rng):
    g = Graph(rng)
    m, k, n = shape(rng, 3)
    y = g.op("Gemm", g.input(k, m), g.input(n, k), g.input(n), transA=1, transB=1, alpha=0.7,
             beta=1.3)
    return g, y, (m, n)


def reduce(op_type, keepdims, positive=False):
    def build(rng):
        g = Graph(rng, opset=18)
        s = shape(rng, 3)
        x = g.input(*s, low=0.5, high=1.5) if positive else g.input(*s)
        axes = g.const(np.array([0, 2], dtype=np.int64), dtype=np.int64)
        out = (1, s[1], 1) if keepdims else (s[1],)
        return g, g.op(op_type, x, axes, keepdims=keepdims), out
    return build


for _op in ["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL2",
            "ReduceLogSumExp", "ReduceSumSquare"]:
    for _k in [0, 1]:
        CASES[f"{_op.lower()}_keep{_k}"] = reduce(_op, _k, positive=_op in ("ReduceProd",))


@case("softmax")
def _(rng):
    g = Graph(rng, opset=13)
    s = shape(rng, 3)
    return g, g.op("Softmax", g.input(*s), axis=1), s


@case("log_softmax")
def _(rng):
    g = Graph(rng, opset=13)
    s = shape(rng, 2)
    return g, g.op("LogSoftmax", g.input(*s), axis=-1), s


@case("layer_norm")
def _(rng):
    g = Graph(rng, opset=17)
    s = shape(rng, 3, 3, 6)
    y = g.op("LayerNormalization", g.input(*s), g.input(s[2]), g.input(s[2]), axis=-1)
    return g, y, s


@case("gelu")
def _(rng):
    g = Graph(rng, opset=20)
    s = shape(rng, 2)
    return g, g.op("Gelu", g.input(*s)), s


@case("clip")
def _(rng):
    g = Graph(rng, opset=13)
    s = shape(rng, 2)
    x = g.input(*s)
    return g, g.op("Clip", x, g.const(-0.5), g.const(0.6)), s


@case("reshape_transpose")
def _(rng):
    g = Graph(rng)
    a, b, c = shape(rng, 3)
    x = g.input(a, b, c)
    r = g.op("Reshape", x, g.const(np.array([a * b, c], dtype=np.int64), dtype=np.int64))
    return g, g.op("Transpose", r, perm=[1, 0]), (c, a * b)


@case("concat_split")
def _(rng):
    g = Graph(rng, opset=13)
    a, b, c = shape(rng, 3)
    cat = g.op("Concat", g.input(a, b), g.input(a, c), axis=1)
    p, q = g.op("Split", cat, g.const(np.array([1, b + c - 1], dtype=np.int64), dtype=np.int64),
                axis=1, n_out=2)
    return g, g.op("Mul", q, q), (a, b + c - 1)


@case("slice_pad")
def _(rng):
    g = Graph(rng, opset=13)
    a, b = shape(rng, 2, 4, 7)
    x = g.input(a, b)
    i64 = lambda *v: g.const(np.array(v, dtype=np.int64), dtype=np.int64)  # noqa: E731
    s = g.op("Slice", x, i64(1, 1), i64(a, b - 1))
    y = g.op("Pad", s, i64(0, 2, 1, 0))
    return g, y, (a - 1 + 1, b - 2 + 2)


@case("expand_flatten")
def _(rng):
    g = Graph(rng, opset=13)
    a, b = shape(rng, 2)
    x = g.input(a, 1)
    e = g.op("Expand", x, g.const(np.array([3, a, b], dtype=np.int64), dtype=np.int64))
    return g, g.op("Flatten", e, axis=1), (3, a * b)


def conv(strides, pads, dilations, bias):
    def build(rng):
        g = Graph(rng)
        n, c, f = int(rng.integers(1, 3)), int(rng.integers(1, 4)), int(rng.integers(1, 4))
        k = int(rng.integers(1, 4))
        h, w = int(rng.integers(k + 3, k + 7)), int(rng.integers(k + 3, k + 7))
        ins = [g.input(n, c, h, w), g.input(f, c, k, k)] + ([g.input(f)] if bias else [])
        y = g.op("Conv", *ins, strides=strides, pads=pads, dilations=dilations)
        span = lambda size, i: (size + pads[i] + pads[i + 2] - (k - 1) * dilations[i] - 1) // strides[i] + 1  # noqa: E731
        return g, y, (n, f, span(h, 0), span(w, 1))
    return build


CASES["conv_plain"] = conv([1, 1], [0, 0, 0, 0], [1, 1], True)
CASES["conv_padded"] = conv([1, 1], [1, 2, 1, 0], [1, 1], False)
CASES["conv_strided"] = conv([2, 3], [1, 1, 1, 1], [1, 1], True)
CASES["conv_dilated"] = conv([1, 2], [2, 0, 1, 1], [2, 1], True)


def pool(op_type, kernel, strides, pads, **attrs):
    def build(rng):
        g = Graph(rng)
        n, c = int(rng.integers(1, 3)), int(rng.integers(1, 4))
        h, w = int(rng.integers(6, 10)), int(rng.integers(6, 10))
        y = g.op(op_type, g.input(n, c, h, w), kernel_shape=kernel, strides=strides, pads=pads,
                 **attrs)
        ceil = attrs.get("ceil_mode", 0)
        dil = attrs.get("dilations", [1, 1])
        def span(size, i):
            room = size + pads[i] + pads[i + 2] - ((kernel[i] - 1) * dil[i] + 1)
            out = (room + (strides[i] - 1 if ceil else 0)) // strides[i] + 1
            return out - 1 if ceil and (out - 1) * strides[i] >= size + pads[i] else out
        return g, y, (n, c, span(h, 0), span(w, 1))
    return build


CASES["maxpool_2x2"] = pool("MaxPool", [2, 2], [2, 2], [0, 0, 0, 0])
CASES["maxpool_3x3_s2_pad"] = pool("MaxPool", [3, 3], [2, 2], [1, 1, 1, 1])
CASES["maxpool_ceil"] = pool("MaxPool", [3, 2], [2, 2], [0, 0, 0, 0], ceil_mode=1)
CASES["maxpool_dilated_s3"] = pool("MaxPool", [2, 3], [3, 2], [1, 0, 0, 1], dilations=[2, 2])
CASES["avgpool_2x2"] = pool("AveragePool", [2, 2], [2, 2], [0, 0, 0, 0])
CASES["avgpool_pad_excl"] = pool("AveragePool", [3, 3], [2, 1], [1, 1, 1, 1])
CASES["avgpool_pad_incl"] = pool("AveragePool", [3, 2], [1, 2], [1, 0, 0, 1], count_include_pad=1)


@case("maxpool_after_relu_ties")
def _(rng):
    # ReLU zeros make whole windows tie: the gradient must go to one element per window.
    g = Graph(rng)
    x = g.input(1, 2, 6, 6, away_from_zero=True)
    y = g.op("MaxPool", g.op("Relu", x), kernel_shape=[2, 2], strides=[2, 2])
    return g, y, (1, 2, 3, 3)


@case("lenet_like")
def _(rng):
    g = Graph(rng)
    x = g.input(2, 1, 12, 12)
    c1 = g.op("Relu", g.op("Conv", x, g.input(3, 1, 3, 3), g.input(3)))
    p1 = g.op("MaxPool", c1, kernel_shape=[2, 2], strides=[2, 2])
    c2 = g.op("Relu", g.op("Conv", p1, g.input(4, 3, 3, 3), g.input(4), pads=[1, 1, 1, 1]))
    p2 = g.op("AveragePool", c2, kernel_shape=[2, 2], strides=[2, 2])
    flat = g.op("Flatten", p2, axis=1)
    y = g.op("Gemm", flat, g.input(5, 16), g.input(5), transB=1)
    return g, g.op("LogSoftmax", y, axis=1), (2, 5)


@case("gather_embedding")
def _(rng):
    g = Graph(rng)
    v, d, n = int(rng.integers(5, 9)), int(rng.integers(2, 5)), int(rng.integers(3, 7))
    table = g.input(v, d)
    ids = g.const(rng.integers(0, v, (2, n)).astype(np.int64), dtype=np.int64)  # repeats add up
    return g, g.op("Gather", table, ids, axis=0), (2, n, d)


@case("gather_axis1_negative")
def _(rng):
    g = Graph(rng)
    x = g.input(3, 5, 2)
    ids = g.const(np.array([-1, 0, 2, 0], dtype=np.int64), dtype=np.int64)
    return g, g.op("Gather", x, ids, axis=1), (3, 4, 2)


@case("gather_elements")
def _(rng):
    g = Graph(rng)
    x = g.input(3, 4)
    ids = g.const(rng.integers(0, 4, (3, 6)).astype(np.int64), dtype=np.int64)
    return g, g.op("GatherElements", x, ids, axis=1), (3, 6)


@case("mlp")
def _(rng):
    g = Graph(rng)
    n, i, h, o = shape(rng, 4, 3, 6)
    x = g.input(n, i)
    hdn = g.op("Relu", g.op("Add", g.op("MatMul", x, g.input(i, h)), g.input(h)))
    y = g.op("Softmax", g.op("Add", g.op("MatMul", hdn, g.input(h, o)), g.input(o)), axis=-1)
    return g, y, (n, o)


def run(cmd, timeout=300):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       timeout=timeout)
    return p.returncode, p.stdout + p.stderr


def check(name, dlc, work, seed):
    rng = np.random.default_rng(seed)
    g, y, y_shape = CASES[name](rng)
    model = g.model(y, y_shape)
    onnx.checker.check_model(model, full_check=True)
    d = work / name
    d.mkdir(parents=True, exist_ok=True)
    path = d / "model.onnx"
    onnx.save(model, path)
    so = d / "grad.so"
    rc, out = run([dlc, "compile", str(path), "--grad-of=loss", "-o", str(so)])
    if rc != 0:
        return f"dlc compile failed: {out.strip()}"
    args = []
    for k, v in g.values.items():
        np.save(d / f"{k}.npy", v)
        args += ["--input", f"{k}={d / f'{k}.npy'}"]
    rc, out = run([dlc, "run", str(so), *args, "--output-dir", str(d / "out")])
    if rc != 0:
        return f"dlc run failed: {out.strip()}"
    try:
        sess = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        loss = lambda feeds: float(sess.run(["loss"], feeds)[0])  # noqa: E731
    except Exception:  # no float64 kernel in ONNX Runtime: dlc's own forward (loss output)
        def loss(feeds):
            args = []
            for k, v in feeds.items():
                np.save(d / f"p_{k}.npy", v)
                args += ["--input", f"{k}={d / f'p_{k}.npy'}"]
            rc, out = run([dlc, "run", str(so), *args, "--output-dir", str(d / "p")])
            if rc != 0:
                raise RuntimeError(out)
            return float(np.load(d / "p" / "loss.npy"))
    ad_loss = float(np.load(d / "out" / "loss.npy"))
    ref_loss = loss(g.values)
    if abs(ad_loss - ref_loss) > 1e-9 * max(1.0, abs(ref_loss)):
        return f"loss {ad_loss} differs from ONNX Runtime's {ref_loss}"
    worst = 0.0
    for k, x in g.values.items():
        grad = np.load(d / "out" / f"grad_{k}.npy")
        if grad.shape != x.shape:
            return f"grad_{k} has shape {grad.shape}, expected {x.shape}"
        for _ in range(DIRECTIONS):
            v = rng.standard_normal(x.shape)
            plus, minus = dict(g.values), dict(g.values)
            plus[k], minus[k] = x + H * v, x - H * v
            fd = (loss(plus) - loss(minus)) / (2 * H)
            ad = float(np.sum(grad * v))
            scale = np.linalg.norm(grad) * np.linalg.norm(v)
            err = abs(fd - ad) / max(abs(fd), abs(ad), 1e-3 * scale, 1e-12)
            worst = max(worst, err)
            if err > TOL:
                return f"d loss/d {k} along a random direction: autodiff {ad:.12g}, " \
                       f"finite differences {fd:.12g} (relative error {err:.2e})"
    return worst


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dlc", required=True)
    ap.add_argument("--keep", help="keep the models and outputs in this directory")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("names", nargs="*")
    a = ap.parse_args()
    names = a.names or list(CASES)
    unknown = [n for n in names if n not in CASES]
    if unknown:
        sys.exit(f"unknown case(s): {', '.join(unknown)}")
    tmp = None if a.keep else tempfile.TemporaryDirectory()
    work = Path(a.keep or tmp.name)
    failures = 0
    for i, name in enumerate(names):
        result = check(name, a.dlc, work, a.seed * 1000 + i)
        if isinstance(result, str):
            failures += 1
            print(f"FAIL {name}: {result}")
        else:
            print(f"ok   {name} (max relative error {result:.1e})")
    print(f"{len(names) - failures}/{len(names)} gradients agree with finite differences "
          f"(relative error <= {TOL:g})")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()

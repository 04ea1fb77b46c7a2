# Random valid ONNX graphs for differential testing: a JSON-able spec, valid shapes by construction.
"""Random graph generator for scripts/difftest (NNSmith's approach, in-house).

A graph is a *spec*: a JSON-able dict (inputs, constants, nodes, outputs) that `build()` turns
into an ONNX model deterministically (constants are stored as shape + seed + distribution, so a
spec saved as a regression case is a few hundred bytes and no binary blob). `generate()` grows a
spec op by op; every op is drawn with attributes valid for the shapes it is given (shapes are
tracked here, by construction), so almost every graph is valid ONNX. The op mix leans on what
fusion and tiling touch: convs with groups / strides / dilations / pads, epilogue chains of
activations and broadcast binaries, reductions over any axes, reshapes / transposes between
fused ops, matmuls, pooling and normalizations, with sizes around tile and vector widths.
Ops that would make NaN or inf are guarded (Log(|x| + 1), x / (|x| + 0.5), ...).
"""
from __future__ import annotations

import math

import numpy as np

OPSET = 17
SIZES = [1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33]
MAX_ELEMS = 150_000


class Gen:
    def __init__(self, seed: int):
        self.rng = np.random.default_rng(seed)
        self.spec = {"inputs": [], "consts": [], "nodes": [], "outputs": [], "opset": OPSET}
        self.shapes: dict[str, list[int]] = {}
        self.uses: dict[str, int] = {}
        self.count = 0

    # -- helpers -------------------------------------------------------------
    def r(self, lo, hi):
        """Integer in [lo, hi]."""
        return int(self.rng.integers(lo, hi + 1))

    def pick(self, xs, p=None):
        return xs[int(self.rng.choice(len(xs), p=p))]

    def size(self, hi=33):
        return self.pick([s for s in SIZES if s <= hi])

    def name(self, prefix="t"):
        self.count += 1
        return f"{prefix}{self.count}"

    def const(self, shape, dist="normal", scale=1.0):
        n = self.name("c")
        self.spec["consts"].append({"name": n, "shape": [int(s) for s in shape], "dist": dist,
                                    "scale": float(scale), "seed": self.r(0, 2**31 - 1)})
        self.shapes[n] = list(shape)
        return n

    def ints(self, values):
        n = self.name("c")
        self.spec["consts"].append({"name": n, "shape": [len(values)], "dist": "ints",
                                    "values": [int(v) for v in values]})
        return n

    def node(self, op, inputs, out_shape, **attrs):
        out = self.name()
        self.spec["nodes"].append({"op": op, "inputs": list(inputs), "outputs": [out],
                                   "attrs": attrs, "name": f"n{self.count}_{op}"})
        for i in inputs:
            self.uses[i] = self.uses.get(i, 0) + 1
        self.shapes[out] = [int(s) for s in out_shape]
        return out

    def live(self, rank=None, min_rank=1):
        """A float tensor to build on: recent ones most often (chains), older ones sometimes
        (fan-out: one value with several consumers)."""
        cands = [n for n in self.order if (rank is None or len(self.shapes[n]) in rank)
                 and len(self.shapes[n]) >= min_rank]
        if not cands:
            return None
        w = np.array([2.0 ** min(i, 12) for i in range(len(cands))])
        return self.pick(cands, w / w.sum())

    # -- ops -----------------------------------------------------------------
    def op_conv(self):
        x = self.live(rank=(3, 4, 5))
        if x is None:
            return None
        shp = self.shapes[x]
        N, C, sp = shp[0], shp[1], shp[2:]
        divisors = [d for d in range(1, C + 1) if C % d == 0]
        g = self.pick([1, C, self.pick(divisors)], p=[0.5, 0.25, 0.25])
        F = C if g == C and self.rng.random() < 0.5 else g * self.r(1, max(1, 24 // g))
        k, s, d, pb, pe, out = [], [], [], [], [], []
        for L in sp:
            kk = self.r(1, min(5, L + 2))
            dd = self.pick([1, 1, 2]) if kk > 1 else 1
            reach = (kk - 1) * dd + 1
            p0, p1 = self.r(0, kk - 1), self.r(0, kk - 1)
            if L + p0 + p1 < reach:
                p1 += reach - (L + p0 + p1)
                if p1 >= reach:
                    return None
            ss = self.pick([1, 1, 2, 3])
            k.append(kk); d.append(dd); s.append(ss); pb.append(p0); pe.append(p1)
            out.append((L + p0 + p1 - reach) // ss + 1)
        w = self.const([F, C // g, *k], scale=1.0 / math.sqrt(C // g * int(np.prod(k))))
        ins = [x, w] + ([self.const([F], scale=0.5)] if self.rng.random() < 0.7 else [])
        if self.rng.random() < 0.15 and len(sp) <= 3:  # transposed conv, stride 1 pads 0..k-1
            wt = self.const([C, F // g, *k], scale=1.0 / math.sqrt(C // g * int(np.prod(k))))
            op_s = [self.pick([1, 2]) for _ in sp]
            op_p = [self.r(0, kk - 1) for kk in k]
            o = [(L - 1) * st + kk - 2 * p for L, st, kk, p in zip(sp, op_s, k, op_p)]
            if min(o) < 1:
                return None
            return self.node("ConvTranspose", [x, wt] + ins[2:], [N, F, *o], group=g,
                             kernel_shape=k, strides=op_s, pads=op_p + op_p)
        return self.node("Conv", ins, [N, F, *out], group=g, kernel_shape=k, strides=s,
                         dilations=d, pads=pb + pe)

    UNARY = ["Relu", "Sigmoid", "Tanh", "LeakyRelu", "Clip", "HardSigmoid", "HardSwish", "Elu",
             "Softplus", "Abs", "Neg", "Erf", "gelu", "silu", "log1p_abs", "sqrt_abs", "exp_tanh",
             "recip_guard", "Selu", "Softsign", "Sin", "Cos"]

    def op_unary(self):
        x = self.live()
        if x is None:
            return None
        shp = self.shapes[x]
        kind = self.pick(self.UNARY)
        if kind == "LeakyRelu":
            return self.node(kind, [x], shp, alpha=float(self.pick([0.01, 0.2, 1.5])))
        if kind == "Clip":
            lo = float(self.pick([0.0, -1.0, -0.5]))
            return self.node(kind, [x, self.scalar(lo), self.scalar(lo + self.pick([1.0, 6.0]))],
                             shp)
        if kind == "gelu":
            h = self.node("Div", [x, self.scalar(math.sqrt(2))], shp)
            e = self.node("Erf", [h], shp)
            a = self.node("Add", [e, self.scalar(1.0)], shp)
            m = self.node("Mul", [x, a], shp)
            return self.node("Mul", [m, self.scalar(0.5)], shp)
        if kind == "silu":
            return self.node("Mul", [x, self.node("Sigmoid", [x], shp)], shp)
        if kind == "log1p_abs":
            return self.node("Log", [self.node("Add", [self.node("Abs", [x], shp),
                                                       self.scalar(1.0)], shp)], shp)
        if kind == "sqrt_abs":
            return self.node("Sqrt", [self.node("Abs", [x], shp)], shp)
        if kind == "exp_tanh":
            return self.node("Exp", [self.node("Mul", [self.node("Tanh", [x], shp),
                                                       self.scalar(3.0)], shp)], shp)
        if kind == "recip_guard":
            d = self.node("Add", [self.node("Abs", [x], shp), self.scalar(0.5)], shp)
            return self.node("Reciprocal", [d], shp)
        return self.node(kind, [x], shp)

    def scalar(self, v):
        n = self.name("c")
        self.spec["consts"].append({"name": n, "shape": [], "dist": "value", "value": float(v)})
        self.shapes[n] = []
        return n

    def bcast_shape(self, shp):
        """A shape broadcastable to shp: some dims set to 1, leading dims maybe dropped."""
        out = [1 if self.rng.random() < 0.4 else s for s in shp]
        drop = self.r(0, len(shp)) if self.rng.random() < 0.3 else 0
        return out[drop:]

    def op_binary(self):
        x = self.live()
        if x is None:
            return None
        shp = self.shapes[x]
        op = self.pick(["Add", "Sub", "Mul", "Div", "Max", "Min"], p=[.3, .15, .25, .1, .1, .1])
        same = [n for n in self.order if n != x and self.shapes[n] == shp]
        if same and self.rng.random() < 0.5:
            y = self.pick(same)
        else:
            y = self.const(self.bcast_shape(shp), scale=self.pick([0.5, 1.0, 2.0]))
        a, b = (x, y) if self.rng.random() < 0.8 else (y, x)
        if op == "Div":  # denominator kept away from 0
            b = self.node("Add", [self.node("Abs", [b], self.shapes[b]), self.scalar(0.5)],
                          self.shapes[b])
        return self.node(op, [a, b], np.broadcast_shapes(tuple(self.shapes[a]),
                                                         tuple(self.shapes[b])))

    def op_matmul(self):
        x = self.live(min_rank=2)
        if x is None:
            return None
        shp = self.shapes[x]
        K, Nn = shp[-1], self.size()
        if len(shp) == 2 and self.rng.random() < 0.4:
            tb = int(self.rng.random() < 0.5)
            w = self.const([Nn, K] if tb else [K, Nn], scale=1 / math.sqrt(K))
            ins = [x, w] + ([self.const([Nn], scale=0.5)] if self.rng.random() < 0.6 else [])
            return self.node("Gemm", ins, [shp[0], Nn], transB=tb,
                             alpha=float(self.pick([1.0, 0.5])))
        lead = [1 if self.rng.random() < 0.5 else s for s in shp[:-2]]
        if self.rng.random() < 0.3:
            lead = []
        w = self.const([*lead, K, Nn], scale=1 / math.sqrt(K))
        return self.node("MatMul", [x, w], [*shp[:-1], Nn])

    def op_reduce(self):
        x = self.live()
        if x is None:
            return None
        shp = self.shapes[x]
        r = len(shp)
        axes = sorted(int(a) for a in self.rng.choice(r, size=self.r(1, r), replace=False))
        keep = int(self.rng.random() < 0.5)
        op = self.pick(["ReduceSum", "ReduceMean", "ReduceMax", "ReduceMin", "ReduceL2",
                        "ReduceLogSumExp"])
        out = [1 if i in axes else s for i, s in enumerate(shp)] if keep else \
            [s for i, s in enumerate(shp) if i not in axes]
        neg = [a - r if self.rng.random() < 0.3 else a for a in axes]
        if op == "ReduceSum":
            return self.node(op, [x, self.ints(neg)], out, keepdims=keep)
        return self.node(op, [x], out, axes=neg, keepdims=keep)

    def op_softmax(self):
        x = self.live()
        if x is None:
            return None
        r = len(self.shapes[x])
        return self.node(self.pick(["Softmax", "LogSoftmax"]), [x], self.shapes[x],
                         axis=self.r(-r, r - 1))

    def op_layout(self):
        x = self.live()
        if x is None:
            return None
        shp = self.shapes[x]
        r = len(shp)
        kind = self.pick(["Transpose", "Reshape", "Flatten", "Slice", "Pad", "Concat",
                          "Unsqueeze"])
        if kind == "Transpose" and r >= 2:
            perm = [int(p) for p in self.rng.permutation(r)]
            return self.node(kind, [x], [shp[p] for p in perm], perm=perm)
        if kind == "Reshape" and r >= 2:
            i = self.r(0, r - 2)  # merge dims i, i+1, or split one
            if self.rng.random() < 0.5:
                new = shp[:i] + [shp[i] * shp[i + 1]] + shp[i + 2:]
            else:
                facs = [f for f in range(2, shp[i]) if shp[i] % f == 0]
                if not facs:
                    return None
                f = self.pick(facs)
                new = shp[:i] + [f, shp[i] // f] + shp[i + 1:]
            spec = list(new)
            if self.rng.random() < 0.3:
                spec[self.r(0, len(spec) - 1)] = -1
            return self.node(kind, [x, self.ints(spec)], new)
        if kind == "Flatten" and r >= 2:
            a = self.r(0, r)
            return self.node(kind, [x], [int(np.prod(shp[:a])), int(np.prod(shp[a:]))], axis=a)
        if kind == "Slice":
            ax = self.r(0, r - 1)
            L = shp[ax]
            st = self.pick([1, 1, 2, -1])
            if st > 0:
                b = self.r(0, L - 1)
                e = self.r(b + 1, L)
                n = (e - b + st - 1) // st
            else:
                b = self.r(0, L - 1)
                e = self.r(-1, b - 1)
                n = b - e
                e = e if e >= 0 else -L - 1
            return self.node(kind, [x, self.ints([b]), self.ints([e]), self.ints([ax]),
                                    self.ints([st])],
                             shp[:ax] + [n] + shp[ax + 1:])
        if kind == "Pad":
            pads = [self.r(0, 2) if self.rng.random() < 0.4 else 0 for _ in range(2 * r)]
            out = [s + pads[i] + pads[r + i] for i, s in enumerate(shp)]
            return self.node(kind, [x, self.ints(pads), self.scalar(self.pick([0.0, -1.0]))], out,
                             mode="constant")
        if kind == "Concat":
            ax = self.r(0, r - 1)
            other = [n for n in self.order if len(self.shapes[n]) == r and all(
                a == b for i, (a, b) in enumerate(zip(self.shapes[n], shp)) if i != ax)]
            y = self.pick(other)
            out = list(shp)
            out[ax] += self.shapes[y][ax]
            return self.node(kind, [x, y], out, axis=ax)
        if kind == "Unsqueeze" and r < 5:
            a = self.r(0, r)
            return self.node(kind, [x, self.ints([a])], shp[:a] + [1] + shp[a:])
        return None

    def op_pool(self):
        x = self.live(rank=(3, 4, 5))
        if x is None:
            return None
        shp = self.shapes[x]
        if self.rng.random() < 0.2:
            return self.node(self.pick(["GlobalAveragePool", "GlobalMaxPool"]), [x],
                             shp[:2] + [1] * (len(shp) - 2))
        op = self.pick(["MaxPool", "AveragePool"])
        k, s, pb, pe, out = [], [], [], [], []
        ceil = int(self.rng.random() < 0.3)
        for L in shp[2:]:
            kk = self.r(1, min(4, L))
            ss = self.r(1, 3)
            p0, p1 = self.r(0, kk - 1), self.r(0, kk - 1)
            span = L + p0 + p1 - kk
            o = (-(-span // ss) if ceil else span // ss) + 1
            if ceil and (o - 1) * ss >= L + p0:  # the last window must start inside
                o -= 1
            k.append(kk); s.append(ss); pb.append(p0); pe.append(p1); out.append(o)
        attrs = dict(kernel_shape=k, strides=s, pads=pb + pe, ceil_mode=ceil)
        if op == "AveragePool":
            attrs["count_include_pad"] = int(self.rng.random() < 0.5)
        return self.node(op, [x], shp[:2] + out, **attrs)

    def op_norm(self):
        x = self.live(min_rank=2)
        if x is None:
            return None
        shp = self.shapes[x]
        kind = self.pick(["BatchNormalization", "LayerNormalization", "InstanceNormalization"])
        C = shp[1]
        if kind == "BatchNormalization":
            ins = [x, self.const([C]), self.const([C], scale=0.5), self.const([C], scale=0.5),
                   self.const([C], dist="positive")]
            return self.node(kind, ins, shp, epsilon=1e-5)
        if kind == "InstanceNormalization" and len(shp) >= 3:
            return self.node(kind, [x, self.const([C]), self.const([C])], shp, epsilon=1e-5)
        ax = self.r(1, len(shp) - 1)
        return self.node("LayerNormalization", [x, self.const(shp[ax:]), self.const(shp[ax:])],
                         shp, axis=ax, epsilon=1e-5)

    OPS = {"conv": 3, "unary": 4, "binary": 4, "matmul": 1.5, "reduce": 1.5, "softmax": 1,
           "layout": 3, "pool": 1.2, "norm": 1}

    # -- driver --------------------------------------------------------------
    @property
    def order(self):
        return [n for n in self.shapes if not n.startswith("c")]

    def generate(self, max_ops=10):
        domain = self.pick(["image", "image", "seq", "mat", "video"])
        n_in = self.pick([1, 1, 2])
        for _ in range(n_in):
            if domain == "image":
                shp = [self.pick([1, 1, 2]), self.size(17), self.size(), self.size()]
            elif domain == "video":
                shp = [1, self.size(8), self.size(9), self.size(17), self.size(17)]
            elif domain == "seq":
                shp = [self.pick([1, 2]), self.size(), self.size()]
            else:
                shp = [self.size(), self.size()]
            if self.spec["inputs"] and self.rng.random() < 0.7:
                shp = list(self.shapes[self.spec["inputs"][0]["name"]])
            n = self.name("x")
            self.spec["inputs"].append({"name": n, "shape": shp})
            self.shapes[n] = shp
        kinds, weights = zip(*self.OPS.items())
        p = np.array(weights) / sum(weights)
        target = self.r(2, max_ops)
        made, tries = 0, 0
        while made < target and tries < 10 * target:
            tries += 1
            before = (len(self.spec["nodes"]), len(self.spec["consts"]), self.count,
                      dict(self.shapes), dict(self.uses))
            out = getattr(self, "op_" + self.pick(list(kinds), p))()
            if out is None or int(np.prod(self.shapes[out])) > MAX_ELEMS or \
                    int(np.prod(self.shapes[out])) == 0:
                n_nodes, n_consts, self.count, self.shapes, self.uses = before
                del self.spec["nodes"][n_nodes:]
                del self.spec["consts"][n_consts:]
                continue
            made += 1
        sinks = [n for n in self.order if self.uses.get(n, 0) == 0
                 and n not in {i["name"] for i in self.spec["inputs"]}]
        if not sinks:
            return None
        extra = [n for n in self.order if n not in sinks and n.startswith("t")]
        if extra and self.rng.random() < 0.3:  # an intermediate that is also fused onward
            sinks.append(self.pick(extra))
        self.spec["outputs"] = [{"name": n} for n in sinks]
        return self.spec


def generate(seed: int, max_ops: int = 10):
    """A random graph spec (None when the draw produced no op: draw again)."""
    return Gen(seed).generate(max_ops)

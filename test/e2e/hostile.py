#!/usr/bin/env python3
# The hostile-input corpus: ~500 inputs meant to crash, exhaust, hang or fool dlc; each must end
# in exit 0 with a correct result or exit 1 with one error line, within 60 s and 4 GiB.
"""Hostile inputs through the dlc CLI: every case ends in a verified result or one error line.

Usage::

    hostile.py --dlc build/bin/dlc [--quick] [--keep] [CASE ...]
    hostile.py --list [--quick]            # the cases, their class and what each does
    hostile.py --count                     # cases here + bad_inputs.py + malformed_models.py

Every input is generated here (onnx.helper, NumPy, raw bytes) into a fresh temporary
directory per case; nothing binary is committed. Each case runs one dlc command (after
setup commands, e.g. a `dlc compile` whose success is a precondition) and requires either

* exit code 1, exactly one stderr line, starting with ``error:``, naming the case's
  culprit (node, op, file, flag), no crash marker (cli_errors.CRASH_MARKERS), and no new
  regular file left anywhere in the case's directory (no partial output); or
* exit code 0 and an output equal to an independent reference (NumPy, or the rule the
  docs state: integer x / 0 = 0, INT_MIN / -1 = INT_MIN, out-of-range run-time indices
  clamped), compared exactly for integers and at the stated tolerance for floats;

a few cases accept either (NumPy reads the file, dlc may refuse it). In every case dlc must
finish within 60 s and stay under 4 GiB resident (hostile_models.run_dlc polls /proc and
reads the child's ru_maxrss from os.wait4); a signal, another exit code, a hang or more
memory fails the case. Classes (the issue's list): 1 crashes from user input, 2 runaway
memory, 3 hangs and blow-ups, 4 unsafe or failing writes, 5 silently wrong results, and
CLI flags. The cases are in this file (integers, indices, sizes), hostile_files.py (.npy,
.pb, .npz, external data, modules, devices), hostile_graphs.py (deep and wide graphs,
attributes at the ends of int64) and hostile_cli.py (outputs, flags); hostile_models.py has
the runner and the generators.

``--quick`` runs the CI-sized subset (a few of each family; ~15 s, ~25 s under ASan). Prints one
line per case; exits 1 if any case fails.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from onnx import TensorProto, helper

sys.path.insert(0, str(Path(__file__).resolve().parent))
from hostile_models import (CASES, CLASSES, Fail, NP2ONNX, add, case, compile_so,  # noqa: E402
                            const, err, judge, model, ok, one_node, put, run_args, same, vi)
import hostile_files  # noqa: E402,F401  (registers the file cases)
import hostile_cli  # noqa: E402,F401  (registers the output and flag cases)
import hostile_graphs  # noqa: E402,F401  (registers the graph and attribute cases)
from hostile_files import BYTES_WRAP, WRAP1, sym_relu  # noqa: E402

I64 = TensorProto.INT64


# ---------------------------------------------------------------------------- 1, 5. integers
SIGNED = {"i8": np.int8, "i16": np.int16, "i32": np.int32, "i64": np.int64}
UNSIGNED = {"u8": np.uint8, "u16": np.uint16, "u32": np.uint32, "u64": np.uint64}
DIV_OPS = {"div": ("Div", {}), "mod": ("Mod", {"fmod": 0}), "fmod": ("Mod", {"fmod": 1})}


def int_ref(op: str, attrs: dict, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """docs/Architecture.md: x / 0 = 0, x % 0 = 0, INT_MIN / -1 = INT_MIN, INT_MIN % -1 = 0;
    otherwise Div truncates, Mod takes the divisor's sign (fmod=1: the dividend's)."""
    info = np.iinfo(x.dtype)
    out = []
    for a, b in zip(x.tolist(), y.tolist()):
        if b == 0:
            r = 0
        elif op == "Div":
            r = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)
        elif attrs.get("fmod"):
            r = abs(a) % abs(b) * (-1 if a < 0 else 1)
        else:
            r = a % b
        out.append((r - info.min) % (1 << info.bits) + info.min)
    return np.array(out, x.dtype)


def div_operands(t, kind: str, n: int = 37):
    """n pairs (a vector tail included): every third divisor 0 (kind zero), or every third
    pair INT_MIN / -1 (kind intmin); the others random, nonzero, both signs."""
    info, rng = np.iinfo(t), np.random.default_rng(11)
    x = rng.integers(info.min, info.max, n, dtype=t, endpoint=True)
    y = rng.integers(1, min(int(info.max), 1000), n, endpoint=True).astype(t)
    if info.min < 0:
        y[rng.random(n) < 0.5] *= -1
    if kind in ("zero", "mixed"):
        y[::3] = 0
        x[:12:3] = [info.min, info.max, 0, info.max // 2 if info.min == 0 else -1]
    if kind in ("intmin", "mixed"):
        x[1::3], y[1::3] = info.min, -1
        x[2], y[2] = info.max, -1
    return x, y


def _div_model(op, attrs, t, const_a=None, const_b=None):
    dt = NP2ONNX[np.dtype(t)]
    names = ["a", "b"]
    inputs = [vi(n, [37], dt) for n, c in zip(names, (const_a, const_b)) if c is None]
    inits = [const(n, c) for n, c in zip(names, (const_a, const_b)) if c is not None]
    nodes = [helper.make_node(op, names, ["q" if const_a is not None else "y"],
                              name="div_node", **attrs)]
    if const_a is not None:  # both folded: y = q + z keeps a run-time input
        inputs = [vi("z", [37], dt)]
        nodes.append(helper.make_node("Add", ["q", "z"], ["y"], name="add_z"))
    return model(nodes, inputs, [vi("y", [37], dt)], inits)


def _div_case(op, attrs, t, kind, mode):
    def build(dlc, d):
        x, y = div_operands(t, kind)
        if mode == "const":  # a run-time dividend over a constant scalar divisor (0 or -1)
            y = np.full(37, 0 if kind == "zero" else -1, t)
            put(d, "model.onnx", one_node(op, {"a": (t, [37])}, {"b": np.array(y[0], t)},
                                          node="div_node", _out_dtype=NP2ONNX[np.dtype(t)],
                                          **attrs))
            feeds = {"a": put(d, "a.npy", x)}
        elif mode == "folded":
            put(d, "model.onnx", _div_model(op, attrs, t, x, y))
            feeds = {"z": put(d, "z.npy", np.zeros(37, t))}
        else:
            put(d, "model.onnx", _div_model(op, attrs, t))
            feeds = {"a": put(d, "a.npy", x), "b": put(d, "b.npy", y)}
        target = "model.onnx" if mode in ("jit", "folded") else compile_so(dlc, d)
        return ok(run_args(dlc, target, feeds), same(d / "out" / "y.npy",
                                                     int_ref(op, attrs, x, y)))
    return build


for _tn, _t in {**SIGNED, **UNSIGNED}.items():
    for _on, (_op, _at) in DIV_OPS.items():
        if _on == "fmod" and _tn in UNSIGNED:
            continue
        for _kind in ("zero", "intmin") if _tn in SIGNED else ("zero",):
            for _mode in ("aot", "jit"):
                add(f"intdiv_{_on}_{_tn}_{_kind}_{_mode}", "crash", _div_case(_op, _at, _t, _kind,
                                                                              _mode),
                    f"run-time {_op}{'(fmod=1)' if _at.get('fmod') else ''} {_tn}: "
                    f"{'x / 0' if _kind == 'zero' else 'INT_MIN / -1'} ({_mode.upper()})",
                    quick=_mode == "aot" and _tn in ("i8", "i64", "u32") and _on != "fmod")
for _tn in ("i32", "i64"):
    for _on in ("div", "mod"):
        for _kind in ("zero", "intmin"):
            add(f"intdiv_{_on}_{_tn}_by_const_{'0' if _kind == 'zero' else 'minus1'}", "crash",
                _div_case(*DIV_OPS[_on], SIGNED[_tn], _kind, "const"),
                f"run-time {_tn} dividend {DIV_OPS[_on][0]} a constant "
                f"{'0' if _kind == 'zero' else '-1'} (AOT)", quick=_tn == "i64")
for _tn, _on in (("i16", "div"), ("i16", "mod"), ("i16", "fmod"), ("u16", "div"),
                 ("u16", "mod"), ("u64", "div"), ("u64", "mod")):
    _t = {**SIGNED, **UNSIGNED}[_tn]
    add(f"intfold_{_on}_{_tn}", "wrong",
        _div_case(*DIV_OPS[_on], _t, "mixed" if _tn in SIGNED else "zero", "folded"),
        f"{DIV_OPS[_on][0]} of two {_tn} constants with x / 0 and INT_MIN / -1: folded",
        quick=_tn == "u64" and _on == "div")


# Unsigned values with the top bit set: ordered as unsigned (NumPy), not as two's complement.
UNSIGNED_OPS = {"less": ("Less", np.less), "greater": ("Greater", np.greater),
                "max": ("Max", np.maximum), "min": ("Min", np.minimum),
                "reduce_max": ("ReduceMax", lambda a: np.max(a, keepdims=True)),
                "reduce_min": ("ReduceMin", lambda a: np.min(a, keepdims=True))}


def _unsigned_case(op, ref, t, folded=False):
    def build(dlc, d):
        m = int(np.iinfo(t).max)
        a = np.array([0, 1, m, m // 2 + 1, m // 2, 7, m - 1, 128], t)
        b = np.array([m, m // 2 + 1, 1, 5, m // 2 + 2, 7, m, 3], t)
        dt, unary = NP2ONNX[np.dtype(t)], op.startswith("Reduce")
        want = ref(a) if unary else ref(a, b)
        out_dt = NP2ONNX[want.dtype]
        ins = ["a"] if unary else ["a", "b"]
        if folded:  # constants, then And/Max with a run-time input that changes nothing
            nodes = [helper.make_node(op, ins, ["r"], name="uop"),
                     helper.make_node("And" if want.dtype == bool else "Max", ["r", "z"], ["y"],
                                      name="keep")]
            put(d, "model.onnx", model(nodes, [vi("z", [1], out_dt)], [vi("y", None, out_dt)],
                                       [const("a", a), const("b", b)][:len(ins)]))
            z = np.array([True]) if want.dtype == bool else np.zeros(1, t)
            return ok(run_args(dlc, "model.onnx", {"z": put(d, "z.npy", z)}),
                      same(d / "out" / "y.npy", want))
        put(d, "model.onnx", model([helper.make_node(op, ins, ["y"], name="uop")],
                                   [vi(n, [8], dt) for n in ins], [vi("y", None, out_dt)]))
        feeds = {"a": put(d, "a.npy", a), "b": put(d, "b.npy", b)}
        return ok(run_args(dlc, "model.onnx", {k: feeds[k] for k in ins}),
                  same(d / "out" / "y.npy", want))
    return build


for _tn, _t in UNSIGNED.items():
    for _on, (_op, _ref) in UNSIGNED_OPS.items():
        add(f"unsigned_{_on}_{_tn}", "wrong", _unsigned_case(_op, _ref, _t),
            f"{_op} of {_tn} values with the top bit set (JIT): unsigned order, exact",
            quick=(_tn, _on) in (("u8", "less"), ("u64", "max")))
add("unsigned_fold_less_u8", "wrong", _unsigned_case("Less", np.less, np.uint8, True),
    "Less of two u8 constants with the top bit set: folded, exact")
add("unsigned_fold_max_u32", "wrong", _unsigned_case("Max", np.maximum, np.uint32, True),
    "Max of two u32 constants with the top bit set: folded, exact")


@case("wrong", quick=True)
def c_intfold_div0_reshape_shape(dlc, d):
    """Reshape whose shape is the folded Div([6, 1], [0, 1]) = [0, 1]: a shape error"""
    n = [helper.make_node("Div", ["six", "zero"], ["sh"], name="div_shape"),
         helper.make_node("Reshape", ["x", "sh"], ["y"], name="reshape_node")]
    put(d, "model.onnx", model(n, [vi("x", [2, 3])], [vi("y", None)],
                               [const("six", np.array([6, 1], np.int64)),
                                const("zero", np.array([0, 1], np.int64))]))
    return err([dlc, "compile", "model.onnx", "-o", "x.so"], "reshape_node")


# ---------------------------------------------------------------------------- 5. indices
def _clamp(i, n):
    i = np.asarray(i, np.int64)
    i = np.where(i < 0, i + n, i)
    return np.clip(i, 0, n - 1)


XD = np.arange(12, dtype=np.float32).reshape(3, 4)
UPD = {"ScatterElements": np.full((1, 2), 100, np.float32),
       "ScatterND": np.full((1, 4), 100, np.float32)}


def _index_ref(op, idx, axis):
    if op == "Gather":
        return XD[_clamp(idx, 3)]
    if op == "GatherElements":
        return np.take_along_axis(XD, _clamp(idx, 4), axis=1)
    if op == "GatherND":
        return np.array([XD[_clamp(a, 3), _clamp(b, 4)] for a, b in idx])
    out = XD.copy()
    if op == "ScatterElements":
        for j, i in enumerate(idx[0]):
            out[_clamp(i, 3), j] = 100
    else:
        out[_clamp(idx[0][0], 3)] = 100
    return out


INDEX = {  # name: (op, attrs, too large, too negative)
    "gather": ("Gather", {"axis": 0}, [0, 3], [0, -1000000]),
    "gather_elements": ("GatherElements", {"axis": 1}, [[0, 4, 1, 2], [3, 3, 9, 0], [1] * 4],
                        [[-9, 0, 0, 0], [-5, -1, 2, 3], [0] * 4]),
    "gather_nd": ("GatherND", {}, [[0, 1], [0, 9]], [[-7, 0], [2, -1]]),
    "scatter_elements": ("ScatterElements", {"axis": 0}, [[5, 0]], [[-9, 1]]),
    "scatter_nd": ("ScatterND", {}, [[3]], [[-8]]),
}


def _index_model(op, attrs, idx_shape, idx_dtype=np.int64, const_idx=None):
    ins = {"x": (np.float32, [3, 4])}
    if const_idx is None:
        ins["idx"] = (idx_dtype, idx_shape)
    consts = {"idx": np.array(const_idx, idx_dtype)} if const_idx is not None else {}
    order = ["x", "idx"]
    if op in UPD:
        consts["upd"] = UPD[op]
        order.append("upd")
    return one_node(op, ins, consts, node="index_node", _order=order, **attrs)


def _index_case(op, attrs, idx, mode, idx_dtype=np.int64):
    def build(dlc, d):
        a = np.array(idx, idx_dtype)
        put(d, "model.onnx", _index_model(op, attrs, list(a.shape), idx_dtype))
        feeds = {"x": put(d, "x.npy", XD), "idx": put(d, "idx.npy", a)}
        if mode == "jit":  # the JIT sees the value: a compile-time error
            return err(run_args(dlc, "model.onnx", feeds), "index_node", op, "out of range")
        if mode == "aot":  # a compiled module checks at run time
            return err(run_args(dlc, compile_so(dlc, d), feeds), "index_node", op,
                       "out of range")
        return ok(run_args(dlc, compile_so(dlc, d), feeds),
                  same(d / "out" / "y.npy", _index_ref(op, a.tolist(), attrs.get("axis"))))
    return build


INDEX_OK = {  # in range, the extremes included: the run-time check must not fire
    "gather": [2, -3], "gather_elements": [[0, 3, -4, -1]] * 3, "gather_nd": [[2, 3], [-3, -4]],
    "scatter_elements": [[2, -3]], "scatter_nd": [[-1]],
}
for _n, (_op, _at, _big, _neg) in INDEX.items():
    for _which, _idx in (("too_large", _big), ("too_negative", _neg)):
        add(f"index_{_n}_{_which}_aot", "wrong", _index_case(_op, _at, _idx, "aot"),
            f"{_op} with run-time indices {_which.replace('_', ' ')}: the run fails naming "
            "the node", quick=_n == "gather_nd")
    add(f"index_{_n}_in_range_aot", "wrong", _index_case(_op, _at, INDEX_OK[_n], "ok"),
        f"{_op} with run-time indices at the ends of the range: exit 0, exact",
        quick=_n == "gather_elements")
    add(f"index_{_n}_too_large_jit", "wrong", _index_case(_op, _at, _big, "jit"),
        f"{_op} with indices too large, JIT (the given value is seen): one error line")
add("index_gather_int64_extremes_aot", "wrong",
    _index_case("Gather", {"axis": 0}, [-2**63, 2**63 - 1, 2**32 + 1, -2**32 - 1], "aot"),
    "Gather with run-time int64 indices INT64_MIN, INT64_MAX, 2^32+1, -2^32-1: the run fails",
    quick=True)
add("index_gather_int32_extremes_aot", "wrong",
    _index_case("Gather", {"axis": 0}, [-2**31, 2**31 - 1, 1], "aot", np.int32),
    "Gather with run-time int32 indices INT32_MIN, INT32_MAX: the run fails")
add("index_gather_int32_in_range_aot", "wrong",
    _index_case("Gather", {"axis": 0}, [-3, 2, 0], "ok", np.int32),
    "Gather with run-time int32 indices at the ends of the range: exit 0, exact")

@case("wrong", quick=True)
def c_index_if_branch_not_taken(dlc, d):
    """If with a run-time condition: its untaken branch gathers out of range (both branches
    run, selected elementwise): no run-time check there, exit 0, the taken branch's value"""
    then_g = helper.make_graph([helper.make_node("Gather", ["x", "idx"], ["t"], name="g", axis=0)],
                               "then", [], [vi("t", [2, 4])])
    else_g = helper.make_graph([helper.make_node("Slice", ["x", "s", "e"], ["f"], name="sl")],
                               "else", [], [vi("f", [2, 4])])
    node = helper.make_node("If", ["c"], ["y"], name="if_node", then_branch=then_g,
                            else_branch=else_g)
    put(d, "model.onnx", model([node], [vi("x", [3, 4]), vi("idx", [2], TensorProto.INT64),
                                        vi("c", [], TensorProto.BOOL)],
                               [vi("y", [2, 4])], [const("s", np.array([0], np.int64)),
                                                   const("e", np.array([2], np.int64))]))
    feeds = {"x": put(d, "x.npy", XD), "idx": put(d, "idx.npy", np.array([0, 7], np.int64)),
             "c": put(d, "c.npy", np.array(False))}
    return ok(run_args(dlc, compile_so(dlc, d), feeds), same(d / "out" / "y.npy", XD[:2]))


def _nll_case(target, ignore=None):
    def build(dlc, d):
        attrs = {} if ignore is None else {"ignore_index": ignore}
        n = helper.make_node("NegativeLogLikelihoodLoss", ["x", "t"], ["y"], name="loss_node",
                             **attrs)
        put(d, "model.onnx", model([n], [vi("x", [2, 3]), vi("t", [2], TensorProto.INT64)],
                                   [vi("y", [])]))
        lp = np.log(np.array([[0.2, 0.3, 0.5], [0.1, 0.6, 0.3]], np.float32))
        feeds = {"x": put(d, "x.npy", lp), "t": put(d, "t.npy", np.array(target, np.int64))}
        kept = [i for i, t in enumerate(target) if t != ignore]
        if any(not 0 <= target[i] < 3 for i in kept):
            return err(run_args(dlc, compile_so(dlc, d), feeds), "loss_node", "out of range")
        ref = np.float32(-np.mean([lp[i, target[i]] for i in kept]))
        return ok(run_args(dlc, compile_so(dlc, d), feeds), same(d / "out" / "y.npy", ref, 1e-6))
    return build


add("nll_target_too_large_aot", "wrong", _nll_case([0, 3]),
    "NegativeLogLikelihoodLoss with a run-time target of C: the run fails naming the node",
    quick=True)
add("nll_target_negative_aot", "wrong", _nll_case([-1, 2]),
    "NegativeLogLikelihoodLoss with a run-time target of -1 (no ignore_index): the run fails")
add("nll_target_ignored_aot", "wrong", _nll_case([1, 3], ignore=3),
    "NegativeLogLikelihoodLoss with a target equal to ignore_index (out of range): exit 0, "
    "the mean over the others")


CONST_INDEX = {  # name: (op, attrs, constant indices, index dtype, needles)
    "gather_int32": ("Gather", {"axis": 0}, [7], np.int32, ["index 7"]),
    "gather_2p62": ("Gather", {"axis": 0}, [2**62], np.int64, [str(2**62)]),
    "gather_elements_negative": ("GatherElements", {"axis": 1}, [[-5] * 4] * 3, np.int64,
                                 ["index -5"]),
    "gather_nd_negative": ("GatherND", {}, [[-4, 0]], np.int64, ["index -4"]),
    "gather_nd_tuple_too_long": ("GatherND", {}, [[0, 0, 0]], np.int64, []),
    "scatter_elements_too_large": ("ScatterElements", {"axis": 0}, [[3, 0]], np.int64,
                                   ["index 3"]),
    "scatter_nd_negative": ("ScatterND", {}, [[-4]], np.int64, ["index -4"]),
}
for _n, (_op, _at, _idx, _dt, _nd) in CONST_INDEX.items():
    add(f"const_index_{_n}", "wrong",
        lambda dlc, d, _op=_op, _at=_at, _idx=_idx, _dt=_dt, _nd=_nd: (
            put(d, "model.onnx", _index_model(_op, _at, None, _dt, _idx)),
            err([dlc, "compile", "model.onnx", "-o", "x.so"], "index_node", _op, *_nd))[1],
        f"{_op} with constant indices: {_n.replace('_', ' ')}")


def _onehot_case(mode):
    def build(dlc, d):
        idx = np.array([0, 5, -1, -7, 2], np.int64)
        ref = np.zeros((5, 3), np.float32)
        for r, i in enumerate(idx):
            if -3 <= i < 3:
                ref[r, i % 3] = 1
        consts = {"depth": np.array(3, np.int64), "vals": np.array([0, 1], np.float32)}
        ins = {}
        if mode == "const":
            consts = {"idx": idx, **consts}
        else:
            ins = {"idx": (np.int64, [5])}
        put(d, "model.onnx", one_node("OneHot", ins, consts, node="onehot_node",
                                      _order=["idx", "depth", "vals"]))
        put(d, "z.npy", idx)
        target = compile_so(dlc, d) if mode == "aot" else "model.onnx"
        return ok(run_args(dlc, target, {"idx": "z.npy"} if ins else {}),
                  same(d / "out" / "y.npy", ref))
    return build


add("onehot_out_of_range_aot", "wrong", _onehot_case("aot"),
    "OneHot with run-time indices 5 and -7 for depth 3: all-off rows (ONNX), exact")
add("onehot_out_of_range_const", "wrong", _onehot_case("const"),
    "OneHot with constant indices 5 and -7 for depth 3: all-off rows, folded")


# ---------------------------------------------------------------------------- 2. sizes
def _i(v):
    return np.array(v, np.int64)


def _f(v):
    return np.array(v, np.float32)


MEMORY = {  # name: (op, x shape or None, {constants}, input order, attrs, opset)
    "range_tiny_delta": ("Range", None, {"s": _f(0), "l": _f(1), "dl": _f(1e-30)}, None, {}),
    "range_zero_delta": ("Range", None, {"s": _i(0), "l": _i(10), "dl": _i(0)}, None, {}),
    "range_int64_span": ("Range", None, {"s": _i(-2**63), "l": _i(2**63 - 1), "dl": _i(1)},
                         None, {}),
    "range_descending_1e18": ("Range", None, {"s": _i(10**18), "l": _i(0), "dl": _i(-1)},
                              None, {}),
    "range_inf_limit": ("Range", None, {"s": _f(0), "l": _f(np.inf), "dl": _f(1)}, None, {}),
    "onehot_negative_depth": ("OneHot", None, {"i": _i([1]), "depth": _i(-5),
                                               "v": _f([0, 1])}, None, {}),
    "onehot_float_depth_1e12": ("OneHot", None, {"i": _i([1]), "depth": _f(1e12),
                                                 "v": _f([0, 1])}, None, {}),
    "resize_scale_inf": ("Resize", [2], {"sc": _f([np.inf])}, ["x", "", "sc"], {}),
    "resize_scale_negative": ("Resize", [2], {"sc": _f([-2])}, ["x", "", "sc"], {}),
    "resize_scales_1e9_2d": ("Resize", [2, 2], {"sc": _f([1e9, 1e9])}, ["x", "", "sc"], {}),
    "resize_sizes_1e12": ("Resize", [2], {"sz": _i([10**12])}, ["x", "", "", "sz"], {}),
    "upsample_1e12": ("Upsample", [2], {"sc": _f([1e12])}, ["x", "sc"], {"_opset": 9}),
    "expand_1e12": ("Expand", [1], {"sh": _i([10**6, 10**6])}, None, {}),
    "tile_negative": ("Tile", [2], {"r": _i([-1])}, None, {}),
    "pad_negative_1e12": ("Pad", [2], {"p": _i([0, -10**12])}, None, {}),
    "constant_of_shape_negative": ("ConstantOfShape", None, {"sh": _i([-1])}, None, {}),
    "topk_k_1e12": ("TopK", [2], {"k": _i([10**12])}, None, {"_n_out": 2}),
    "conv_transpose_output_1e10": ("ConvTranspose", [1, 1, 2, 2],
                                   {"w": np.ones((1, 1, 1, 1), np.float32)}, None,
                                   {"output_shape": [100000, 100000]}),
    "maxpool_pads_1e12": ("MaxPool", [1, 1, 2], {}, None, {"kernel_shape": [1],
                                                           "pads": [0, 10**12]}),
    # element counts that wrap modulo 2^64 to the right count: a wrapped check would pass
    "reshape_count_wraps_to_2": ("Reshape", [2], {"sh": _i([44118, 418122854021251])}, None,
                                 {}),
    "reshape_neg1_times_2p62": ("Reshape", [2], {"sh": _i([-1, 2**62])}, None, {}),
    "reshape_two_neg1": ("Reshape", [2], {"sh": _i([-1, -1])}, None, {}),
    "reshape_minus2": ("Reshape", [2], {"sh": _i([-2, -1])}, None, {}),
    "constant_of_shape_wraps_to_1": ("ConstantOfShape", None, {"sh": _i(WRAP1)}, None, {}),
    "expand_wraps_to_1": ("Expand", [1], {"sh": _i(WRAP1)}, None, {}),
    "tile_wraps_to_1": ("Tile", [1, 1], {"r": _i(WRAP1)}, None, {}),
    "pad_wraps": ("Pad", [1], {"p": _i([2**63 - 1, 2**63 - 1])}, None, {}),
}


def _memory_case(op, shape, consts, order, attrs):
    def build(dlc, d):
        attrs2 = dict(attrs)
        opset = attrs2.pop("_opset", 17)
        ins = {"x": (np.float32, shape)} if shape else {}
        put(d, "model.onnx", one_node(op, ins, consts, node="huge_node", opset=opset,
                                      _order=order, **attrs2))
        return err([dlc, "compile", "model.onnx", "-o", "x.so"], "huge_node")
    return build


for _n, (_op, _sh, _c, _o, _a) in MEMORY.items():
    add(_n, "wrong" if "wrap" in _n or "reshape" in _n else "memory",
        _memory_case(_op, _sh, _c, _o, _a), f"{_op} {_n.replace('_', ' ')}: one error line",
        quick=_n in ("range_int64_span", "reshape_count_wraps_to_2", "resize_scales_1e9_2d",
                     "constant_of_shape_wraps_to_1"))


def _init_case(dims, raw: bytes):
    def build(dlc, d):
        t = TensorProto(name="huge_init", data_type=TensorProto.FLOAT, dims=dims, raw_data=raw)
        put(d, "model.onnx", model([helper.make_node("Add", ["x", "huge_init"], ["y"],
                                                     name="add")],
                                   [vi("x", [1])], [vi("y", None)], [t]))
        return err([dlc, "compile", "model.onnx", "-o", "x.so"], "huge_init")
    return build


add("init_dims_count_wraps", "memory", _init_case(WRAP1, b"\0" * 4),
    "initializer float[274177, 67280421310721] (2^64+1 elements) with 4 bytes", quick=True)
add("init_dims_bytes_wrap", "memory", _init_case([BYTES_WRAP], b"\0" * 4),
    "initializer float[2^62+1] (2^64+4 bytes) with 4 bytes of data")
add("init_dims_int64_max", "memory", _init_case([2**63 - 1], b""),
    "initializer float[2^63-1] without data")
add("init_dims_1tib_no_data", "memory", _init_case([1 << 18, 1 << 20], b""),
    "initializer float[2^18, 2^20] (1 TiB) without data")


def _jit_value_case(op, inputs, consts, order, value_name, value, **attrs):
    def build(dlc, d):
        put(d, "model.onnx", one_node(op, inputs, consts, node="huge_node", _order=order,
                                      **attrs))
        feeds = {value_name: put(d, "v.npy", value)}
        for k, (t, s) in inputs.items():
            if k != value_name:
                feeds[k] = put(d, f"{k}.npy", np.ones(s, t))
        return err(run_args(dlc, "model.onnx", feeds), "huge_node")
    return build


add("jit_onehot_depth_1e12", "memory",
    _jit_value_case("OneHot", {"depth": (np.int64, [])}, {"i": _i([1]), "v": _f([0, 1])},
                    ["i", "depth", "v"], "depth", _i(10**12)),
    "JIT: OneHot depth given at run time as 10^12")
add("jit_range_limit_1e18", "memory",
    _jit_value_case("Range", {"l": (np.int64, [])}, {"s": _i(0), "dl": _i(1)},
                    ["s", "l", "dl"], "l", _i(10**18)), "JIT: Range limit given as 10^18",
    quick=True)
add("jit_constant_of_shape_1e12", "memory",
    _jit_value_case("ConstantOfShape", {"sh": (np.int64, [2])}, {}, None, "sh",
                    _i([10**6, 10**6])), "JIT: ConstantOfShape shape given as [1e6, 1e6]")
add("jit_resize_scales_nan", "memory",
    _jit_value_case("Resize", {"x": (np.float32, [2]), "sc": (np.float32, [1])}, {},
                    ["x", "", "sc"], "sc", _f([np.nan])), "JIT: Resize scales given as NaN")
add("jit_reshape_wraps_to_2", "wrong",
    _jit_value_case("Reshape", {"x": (np.float32, [2]), "sh": (np.int64, [2])}, {}, None,
                    "sh", _i([44118, 418122854021251])),
    "JIT: Reshape shape given as [44118, 418122854021251] (wraps to 2 elements)")


@case("memory")
def c_aot_input_value_huge(dlc, d):
    """dlc compile --input-value sh=[1e6,1e6] for a ConstantOfShape"""
    put(d, "model.onnx", one_node("ConstantOfShape", {"sh": (np.int64, [2])}, node="huge_node"))
    put(d, "sh.npy", _i([10**6, 10**6]))
    return err([dlc, "compile", "model.onnx", "--input-value", "sh=sh.npy", "-o", "x.so"],
               "huge_node")


@case("memory")
def c_jit_max_memory_1k(dlc, d):
    """--max-memory 1K with a 4 KiB intermediate: the node is named"""
    n = [helper.make_node("Tile", ["x", "r"], ["t"], name="tile_node"),
         helper.make_node("ReduceSum", ["t"], ["y"], name="sum_node", keepdims=0)]
    put(d, "model.onnx", model(n, [vi("x", [4])], [vi("y", None)], [const("r", _i([256]))]))
    put(d, "x.npy", np.ones(4, np.float32))
    return err(run_args(dlc, "model.onnx", {"x": "x.npy"}, extra=["--max-memory", "1K"]),
               "tile_node", "--max-memory")


for _n, _shape in (("input_shape_1e18", "1000000000x1000000000"),
                   ("input_shape_wraps", f"{WRAP1[0]}x{WRAP1[1]}")):
    add(_n, "memory", lambda dlc, d, _s=_shape: (
        put(d, "model.onnx", sym_relu(2)),
        err([dlc, "compile", "model.onnx", "--input-shape", f"x={_s}", "-o", "x.so"], "x"))[1],
        f"dlc compile --input-shape x=<{_n[12:]}> for a symbolic input")


# ---------------------------------------------------------------------------- driver
# --quick: the cases marked quick where they are registered (a few of each family), plus these.
QUICK_ALSO = """
npy_fortran npy_header_v2_4gib npy_shape_huge npy_trailing_bytes npy_fortran_so
npy_shape_count_wraps_so pb_dtype_999 pb_dims_negative pb_raw_short pb_typed_float16
npz_bomb_honest_sizes npz_lzma npz_count_mismatch npz_duplicate_member ext_sparse_1tib_length
ext_offset_not_number ext_inner_dotdot ext_offset_plus_length_wraps desc_rank_huge
desc_nul_escape mod_seal_only mod_sealed_foreign_elf train_state_larger_than_blob
train_state_dims_count_wrap dev_zero_data fifo_input_value proc_file_model symlink_save_onnx
hardlink_output output_fifo_planted names_dotdot stdout_full_run cli_threads_100000_so
cli_batch_given_twice cli_no_command cli_input_twice cli_max_memory_too_small
cli_loss_unknown_output cli_verify_rtol_text intdiv_div_i32_intmin_jit intdiv_fmod_i16_zero_jit
unsigned_reduce_max_u16 unsigned_fold_less_u8 index_scatter_elements_too_large_aot
index_gather_too_large_jit const_index_gather_2p62 onehot_out_of_range_aot resize_sizes_1e12
onehot_float_depth_1e12 upsample_1e12 expand_wraps_to_1 init_dims_bytes_wrap
jit_onehot_depth_1e12 jit_reshape_wraps_to_2 input_shape_wraps nested_if_300 node_name_1mb
attr_conv_pads_int64_max attr_range_int64_extreme_span attr_tile_repeats_int64_max
attr_pad_2p62_twice ext_offset_2p64
""".split()
for _n in QUICK_ALSO:
    CASES[_n].quick = True

def count_all() -> dict:
    import bad_inputs
    import malformed_models
    counts = {"hostile.py": len(CASES), "bad_inputs.py": len(bad_inputs.CASES),
              "malformed_models.py": len(malformed_models.CASES)}
    counts["total"] = sum(counts.values())
    return counts


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dlc", help="path to the dlc binary")
    ap.add_argument("--list", action="store_true", help="list the cases")
    ap.add_argument("--count", action="store_true",
                    help="print the number of cases here, in bad_inputs.py and malformed_models.py")
    ap.add_argument("--quick", action="store_true", help="the CI-sized subset")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directories")
    ap.add_argument("cases", nargs="*", metavar="CASE", help="cases to run (default: all)")
    args = ap.parse_args(argv)

    unknown = [c for c in args.cases if c not in CASES]
    if unknown:
        print(f"error: unknown case(s): {', '.join(unknown)}", file=sys.stderr)
        return 2
    names = args.cases or [n for n, c in CASES.items() if c.quick or not args.quick]
    if args.count:
        by_class = {k: sum(1 for c in CASES.values() if c.cls == k) for k in CLASSES}
        for k, v in by_class.items():
            print(f"hostile.py class {CLASSES[k]:<28} {v:4d}")
        for k, v in count_all().items():
            print(f"{k:<44} {v:4d}")
        return 0
    if args.list:
        for n in names:
            print(f"{n:<40} {CASES[n].cls:<7} {CASES[n].doc}")
        return 0
    if not args.dlc:
        ap.error("--dlc is required (or --list / --count)")
    dlc = os.path.abspath(args.dlc)
    if not (os.path.isfile(dlc) and os.access(dlc, os.X_OK)):
        print(f"error: dlc binary not found or not executable: {args.dlc}", file=sys.stderr)
        return 2

    failures, start = [], time.monotonic()
    for name in names:
        d = Path(tempfile.mkdtemp(prefix=f"dlc_hostile_{re.sub(r'[^A-Za-z0-9_]', '_', name)}_"))
        spec = None
        try:
            spec = CASES[name].build(dlc, d)
            line = judge(spec, d)
            print(f"PASS {name:<40} {line}", flush=True)
        except (Fail, Exception) as e:
            if not isinstance(e, Fail):
                e = Fail(f"harness error in the case's setup: {e!r}")
            failures.append(name)
            cmd = " ".join(repr(a) if (not a or re.search(r"[^\w@%+=:,./-]", a)) else a
                           for a in spec.cmd) if spec else "(setup)"
            print(f"FAIL {name:<40} {e}\n     in {d}: {cmd}", flush=True)
        finally:
            if spec and spec.cleanup:
                spec.cleanup()
            if args.keep:
                print(f"     kept {d}", flush=True)
            else:
                shutil.rmtree(d, ignore_errors=True)
    print(f"{len(names) - len(failures)}/{len(names)} passed in {time.monotonic() - start:.0f}s"
          + (f"; failed: {' '.join(failures)}" if failures else ""), flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

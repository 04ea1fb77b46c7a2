#!/usr/bin/env python3
"""Special values through every elementwise op, folded and at run time, against ONNX Runtime.

For each op, the same values (+-0, +-inf, NaN, denormals, the largest and smallest normal
floats, huge and ordinary arguments) go through it twice: as a graph input (the compiled
kernel computes it) and as an initializer (dlc's constant folder computes it at compile
time; the test checks that no op is left in the compiled graph). Both must agree with ONNX Runtime: NaN where it gives NaN, the same infinity, the
same sign of zero, and finite values within the tolerance below.

Tolerance: |dlc - ort| <= 1e-5 * max(1, |ort|) elementwise (float32 transcendental
functions differ by a few ulp between libm, ORT's kernels and dlc's polynomials); for
|ort| >= 1e30 the relative error 1e-5 alone (huge finite results must not become inf).

Integer Div and Mod (fmod 0 and 1) get the values that trap a hardware divide: x / 0,
x % 0, INT_MIN / -1 and INT_MIN % -1 (ONNX leaves them undefined, ORT's kernels raise
SIGFPE). dlc defines them as NumPy does: x / 0 = 0, x % 0 = 0, INT_MIN / -1 = INT_MIN
(wraps), INT_MIN % -1 = 0; those entries are checked against NumPy, every other pair
against ONNX Runtime, exactly.

usage: special_values.py --dlc build/bin/dlc [OP ...]
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

F32 = np.float32
DENORM = np.float32(1e-40)
# The values every float op sees, as x (and as y for binary ops, all pairs).
VALUES = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, DENORM, -DENORM, 1.17549435e-38,
                   3.4e38, -3.4e38, 1e10, -1e10, 1.0, -1.0, 0.5, -0.5, 2.0, 88.5, -88.5, 100.0,
                   -103.0, 1e5, -1e5, 0.9999, 1e-7], dtype=F32)
SMALL = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, DENORM, 1.0, -1.0, 0.5, 2.5, -2.5, 3.4e38,
                  -3.4e38, 7.0, -7.0], dtype=F32)

# (op, arity, attributes, opset)
UNARY = ["Abs", "Neg", "Exp", "Log", "Sqrt", "Reciprocal", "Tanh", "Sigmoid", "Relu", "Erf",
         "Floor", "Ceil", "Sin", "Cos", "Tan", "Asin", "Acos", "Atan", "Sinh", "Cosh", "Asinh",
         "Acosh", "Atanh", "Sign", "Round", "Softplus", "Softsign", "Elu", "Selu", "Celu",
         "HardSigmoid", "HardSwish", "Mish", "ThresholdedRelu", "LeakyRelu", "Gelu", "IsNaN",
         "IsInf"]
BINARY = ["Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Mod", "Equal", "Less", "Greater",
          "LessOrEqual", "GreaterOrEqual", "PRelu"]
ATTRS = {"Mod": {"fmod": 1}}
# Max(+0, -0) and Min(-0, +0): which zero comes out is unspecified (ONNX says nothing; IEEE
# maximum gives +0, ONNX Runtime the second operand). Every other zero must keep its sign.
ZERO_SIGN_FREE = {"Max", "Min"}
OPSET = {"Gelu": 20}
# Integer division: (name, op, attributes), over these element types.
INT_DIVISION = [("IntDiv", "Div", {}), ("IntMod", "Mod", {"fmod": 0}),
                ("IntFMod", "Mod", {"fmod": 1})]
INT_TYPES = {np.int8: TensorProto.INT8, np.int32: TensorProto.INT32,
             np.int64: TensorProto.INT64}


def model(op: str, operands: list[np.ndarray], constant: bool,
          attrs: dict | None = None) -> onnx.ModelProto:
    """One node on `operands`: graph inputs, or initializers (then a dummy input passes through)."""
    names = [f"v{i}" for i in range(len(operands))]
    inputs, inits = [], []
    for n, a in zip(names, operands):
        if constant:
            inits.append(numpy_helper.from_array(a, n))
        else:
            inputs.append(helper.make_tensor_value_info(
                n, INT_TYPES.get(a.dtype.type, TensorProto.FLOAT), list(a.shape)))
    nodes = [helper.make_node(op, names, ["y"], **(ATTRS.get(op, {}) if attrs is None else attrs))]
    outputs = [helper.make_tensor_value_info("y", TensorProto.UNDEFINED, None)]
    if constant:
        inputs.append(helper.make_tensor_value_info("dummy", TensorProto.FLOAT, [1]))
        nodes.append(helper.make_node("Identity", ["dummy"], ["dummy_out"]))
        outputs.append(helper.make_tensor_value_info("dummy_out", TensorProto.FLOAT, [1]))
    g = helper.make_graph(nodes, f"{op}_{'folded' if constant else 'runtime'}", inputs, outputs,
                          inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", OPSET.get(op, 18))])
    m.ir_version = 8 if OPSET.get(op, 18) <= 17 else 9
    return onnx.shape_inference.infer_shapes(m, strict_mode=True)


def operands_of(op: str) -> list[np.ndarray]:
    if op in BINARY:
        x, y = np.meshgrid(SMALL, SMALL, indexing="ij")
        return [x.reshape(-1).astype(F32), y.reshape(-1).astype(F32)]
    return [VALUES.copy()]


def int_division_operands(t) -> list[np.ndarray]:
    info = np.iinfo(t)
    v = np.array([0, 1, -1, 2, -2, 7, -7, info.min, info.max, info.min + 1], dtype=t)
    x, y = np.meshgrid(v, v, indexing="ij")
    return [x.reshape(-1), y.reshape(-1)]


def int_division_reference(op: str, attrs: dict, x: np.ndarray, y: np.ndarray,
                           ort_ref) -> np.ndarray:
    """ORT where the division is defined; NumPy's answer where it traps in hardware."""
    trap = (y == 0) | ((x == np.iinfo(x.dtype).min) & (y == -1))
    safe_y = np.where(trap, 1, y).astype(x.dtype)
    ref = np.array(ort_ref(x, safe_y))
    with np.errstate(all="ignore"):
        if op == "Div":  # floor_divide = trunc division here: y is 0 or -1
            edge = np.floor_divide(x, y)
        else:
            edge = np.fmod(x, y) if attrs["fmod"] else np.remainder(x, y)
    return np.where(trap, edge, ref).astype(x.dtype)


def mismatch(got: np.ndarray, ref: np.ndarray, x: list[np.ndarray], op: str) -> str | None:
    got, ref = np.asarray(got), np.asarray(ref)
    if got.shape != ref.shape or got.dtype != ref.dtype:
        return f"shape/dtype {got.shape} {got.dtype}, ORT {ref.shape} {ref.dtype}"
    if ref.dtype == np.bool_ or np.issubdtype(ref.dtype, np.integer):
        bad = got != ref
    else:
        g, r = got.astype(np.float64), ref.astype(np.float64)
        np.seterr(invalid="ignore")
        nan_ok = np.isnan(g) == np.isnan(r)
        inf_ok = (np.isinf(r) == np.isinf(g)) & (~np.isinf(r) | (g == r))
        zero_sign = ((r != 0) | (np.signbit(g) == np.signbit(r)) | np.isnan(g)
                     | (op in ZERO_SIGN_FREE))
        fin = np.isfinite(r) & np.isfinite(g)
        tol = np.where(np.abs(r) >= 1e30, 1e-5 * np.abs(r), 1e-5 * np.maximum(1.0, np.abs(r)))
        close = ~fin | (np.abs(g - r) <= tol)
        bad = ~(nan_ok & inf_ok & zero_sign & close)
    if not bad.any():
        return None
    i = int(np.flatnonzero(bad)[0])
    args = ", ".join(repr(float(a[i])) for a in x)
    return (f"{int(bad.sum())} of {bad.size} values differ, first: {args} -> dlc "
            f"{got.reshape(-1)[i]!r}, ORT {ref.reshape(-1)[i]!r}")


def run_dlc(dlc: str, path: Path, feeds: dict[str, np.ndarray], work: Path) -> np.ndarray:
    args = []
    for k, v in feeds.items():
        np.save(work / f"{k}.npy", v)
        args += ["--input", f"{k}={work / f'{k}.npy'}"]
    out = work / "out"
    p = subprocess.run([dlc, "run", str(path), *args, "--output-dir", str(out)],
                       capture_output=True, text=True, timeout=300)
    if p.returncode != 0:
        raise RuntimeError(f"exit {p.returncode}: {p.stderr.strip()}")
    return np.load(out / "y.npy")


def unfolded(dlc: str, path: Path) -> str | None:
    """None when the compiled graph has no dlc_graph op left (all folded), else which are."""
    p = subprocess.run([dlc, "compile", str(path), "--emit=graph", "-o", "-"],
                       capture_output=True, text=True, timeout=300)
    ops = sorted({w.split("(")[0] for line in p.stdout.splitlines() for w in line.split()
                  if w.startswith("dlc_graph.")})
    return f"not folded: {', '.join(ops)} left in the graph" if ops else None


def check_both(dlc: str, work: Path, label: str, op: str, x: list[np.ndarray],
               ref: np.ndarray, attrs: dict | None = None, tag: str = "") -> int:
    """Runs `op` on `x` as graph inputs and as folded initializers against `ref`; prints a
    line for each and returns the number that failed."""
    failures = 0
    for constant in (False, True):
        how = tag + ("folded " if constant else "runtime")
        path = work / f"{label}_{how.strip().replace(' ', '_')}.onnx"
        onnx.save(model(op, x, constant, attrs), path)
        feeds = ({"dummy": np.zeros(1, F32)} if constant
                 else {f"v{i}": a for i, a in enumerate(x)})
        try:
            err = mismatch(run_dlc(dlc, path, feeds, work), ref, x, op)
            if constant and err is None:
                err = unfolded(dlc, path)
        except (RuntimeError, subprocess.TimeoutExpired) as e:
            err = f"dlc failed: {e}"
        print(f"{'PASS' if err is None else 'FAIL'} {label:16s} {how}"
              + ("" if err is None else f"  {err}"), flush=True)
        failures += err is not None
    return failures


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dlc", required=True)
    ap.add_argument("ops", nargs="*")
    args = ap.parse_args()
    import onnxruntime as ort

    named = {name for name, _, _ in INT_DIVISION}
    ops = [o for o in args.ops if o not in named] if args.ops else UNARY + BINARY
    failures, total = 0, 2 * len(ops)
    with tempfile.TemporaryDirectory(prefix="dlc-special-") as tmp:
        work = Path(tmp)
        for op in ops:
            x = operands_of(op)
            ref_model = model(op, x, constant=False)
            sess = ort.InferenceSession(ref_model.SerializeToString(),
                                        providers=["CPUExecutionProvider"])
            ref = sess.run(["y"], {f"v{i}": a for i, a in enumerate(x)})[0]
            failures += check_both(args.dlc, work, op, op, x, ref)
        for name, op, attrs in INT_DIVISION:
            if args.ops and name not in args.ops:
                continue
            for t in INT_TYPES:
                x = int_division_operands(t)
                sess = ort.InferenceSession(model(op, x, False, attrs).SerializeToString(),
                                            providers=["CPUExecutionProvider"])
                ref = int_division_reference(
                    op, attrs, *x, lambda a, b: sess.run(["y"], {"v0": a, "v1": b})[0])
                failures += check_both(args.dlc, work, name, op, x, ref, attrs,
                                       np.dtype(t).name + " ")
                total += 2
    print(f"{total - failures} passed, {failures} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

# Helpers shared by bench/run.py and its workers: FLOP/byte counts, output checks, child rusage.
"""Shared helpers for the benchmark harness.

Kept free of heavy imports at module level: the IREE worker imports it from bench/.venv-bench
and the timing workers should not pay for onnx in their peak RSS.
"""
from __future__ import annotations

import os
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass


def sanitize_name(name: str) -> str:
    """Output file stem used by `dlc run`: chars outside [A-Za-z0-9_.-] become '_'."""
    return "".join(ch if (ch.isascii() and (ch.isalnum() or ch in "_.-")) else "_" for ch in name)


# ---------------------------------------------------------------------------
# Work counts from the ONNX graph
# ---------------------------------------------------------------------------

def _static_shapes(model) -> dict[str, list]:
    """Name -> shape (ints, or None for an unknown dim) of every value, after shape inference."""
    from onnx import shape_inference
    inferred = shape_inference.infer_shapes(model, data_prop=True)
    g = inferred.graph
    shapes = {t.name: list(t.dims) for t in g.initializer}
    for vi in list(g.input) + list(g.value_info) + list(g.output):
        dims = vi.type.tensor_type.shape.dim
        shapes[vi.name] = [d.dim_value if d.HasField("dim_value") else None for d in dims]
    return shapes


def _prod(xs) -> int:
    p = 1
    for x in xs:
        p *= x
    return p


def count_flops(model) -> tuple[float | None, dict[str, float]]:
    """FLOPs of MatMul/Gemm/Conv nodes (2 per multiply-add); elementwise work is ignored.

    MatMul: 2*prod(out)*K (= 2*M*N*K per batch); Gemm: 2*M*N*K;
    Conv: 2*prod(out)*Cin/group*KH*KW (= 2*N*Cout*OH*OW*Cin/group*KH*KW).
    The integer forms count the same (MatMulInteger, QLinearMatMul: B is input 3 of the
    latter; ConvInteger, QLinearConv: W is input 3 of the latter).
    Returns (total or None when a shape is unknown, {op_type: flops}).
    """
    shapes = _static_shapes(model)
    total, by_op = 0.0, {}
    for node in model.graph.node:
        kind = {"MatMulInteger": "MatMul", "QLinearMatMul": "MatMul", "ConvInteger": "Conv",
                "QLinearConv": "Conv"}.get(node.op_type, node.op_type)
        if kind not in ("MatMul", "Gemm", "Conv"):
            continue
        second = 3 if node.op_type.startswith("QLinear") else 1
        a, w, out = (shapes.get(node.input[0]), shapes.get(node.input[second]),
                     shapes.get(node.output[0]))
        if not a or not w or not out or None in a + w + out:
            return None, by_op
        if kind == "MatMul":
            k = a[-1]
        elif kind == "Gemm":
            trans_a = next((at.i for at in node.attribute if at.name == "transA"), 0)
            k = a[0] if trans_a else a[1]
        else:  # Conv: weight [Cout, Cin/group, KH, KW]
            k = _prod(w[1:])
        f = 2.0 * _prod(out) * k
        total += f
        by_op[node.op_type] = by_op.get(node.op_type, 0.0) + f
    return total, by_op


def count_bytes(model) -> int:
    """Minimum memory traffic: bytes of graph inputs + outputs + initializers (read once/written once)."""
    from onnx import helper
    shapes = _static_shapes(model)
    total = 0
    inits = {t.name for t in model.graph.initializer}
    values = [(t.name, t.data_type) for t in model.graph.initializer]
    values += [(v.name, v.type.tensor_type.elem_type) for v in model.graph.input
               if v.name not in inits]
    values += [(v.name, v.type.tensor_type.elem_type) for v in model.graph.output]
    for name, elem in values:
        dims = shapes.get(name) or []
        if None in dims:
            continue
        itemsize = helper.tensor_dtype_to_np_dtype(elem).itemsize
        total += _prod(dims) * itemsize
    return total


# ---------------------------------------------------------------------------
# Output check
# ---------------------------------------------------------------------------

def rel_error(got, ref) -> float:
    """max|got-ref| / max|ref| (inf on shape mismatch or NaN/Inf mismatch)."""
    import numpy as np
    got, ref = np.asarray(got), np.asarray(ref)
    if got.shape != ref.shape:
        return float("inf")
    if ref.dtype.kind not in "fc":  # integer/bool outputs must match exactly
        return 0.0 if np.array_equal(got, ref) else float("inf")
    g, r = got.astype(np.float64), ref.astype(np.float64)
    if not np.array_equal(np.isfinite(g), np.isfinite(r)):
        return float("inf")
    fin = np.isfinite(r)
    if not fin.any():
        return 0.0
    diff = np.abs(g[fin] - r[fin]).max()
    return float(diff / max(np.abs(r[fin]).max(), 1e-12))


# ---------------------------------------------------------------------------
# Child processes with their own peak RSS
# ---------------------------------------------------------------------------

@dataclass
class ChildResult:
    rc: int            # exit code; negative = killed by that signal; 124 = timed out
    stdout: str
    stderr: str
    wall_s: float
    maxrss_mb: float | None  # peak resident set size of the command (None: not measured)

    def error_line(self) -> str:
        """The most telling line of a failed run, for the report."""
        if self.rc == 124:
            return "timed out"
        lines = [ln.strip() for ln in (self.stderr + "\n" + self.stdout).splitlines() if ln.strip()]
        errs = [ln for ln in lines if "error" in ln.lower()]
        line = (errs or lines or [""])[-1]
        how = f"signal {-self.rc}" if self.rc < 0 else f"exit {self.rc}"
        return f"{how}: {line[:300]}" if line else how


# bench/rusage.c, built by bench/run.py. Without it peak RSS is not measured (None): os.wait4
# from this process would report at least the driver's own RSS (see rusage.c).
RUSAGE_LAUNCHER: str | None = None


def run_child(cmd: list, timeout: float, cwd=None, env=None) -> ChildResult:
    """Run cmd in a fresh process (session); return its output, wall time and peak RSS."""
    cmd = [str(c) for c in cmd]
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err, \
            tempfile.NamedTemporaryFile("r", suffix=".rusage") as rus:
        if RUSAGE_LAUNCHER:
            cmd = [RUSAGE_LAUNCHER, rus.name] + cmd
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdout=out, stderr=err, cwd=cwd, env=env,
                             start_new_session=True, text=True)
        timed_out = False
        try:
            p.wait(timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)  # the child's own session: launcher + command
            p.wait()
            timed_out = True
        except BaseException:  # interrupted: do not leave the child running on its own
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
            raise
        wall = time.perf_counter() - t0
        rc, maxrss_mb = p.returncode, None
        fields = rus.read().split() if RUSAGE_LAUNCHER else []
        if len(fields) == 2:
            maxrss_mb = float(fields[0]) / 1024.0
            rc = os.waitstatus_to_exitcode(int(fields[1]))
        out.seek(0)
        err.seek(0)
        return ChildResult(124 if timed_out else rc, out.read(), err.read(), wall, maxrss_mb)


def latency_stats(times_s: list[float]) -> dict:
    """min / median / p90 in milliseconds."""
    import numpy as np
    t = np.sort(np.asarray(times_s)) * 1e3
    return {"min_ms": float(t[0]), "median_ms": float(np.median(t)),
            "p90_ms": float(np.percentile(t, 90)), "runs": len(t)}

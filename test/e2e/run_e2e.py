#!/usr/bin/env python3
# End-to-end driver: runs each test model through the dlc CLI (AOT and/or JIT) and compares with ONNX Runtime.
"""Compare the `dlc` CLI against ONNX Runtime on the models of models.py.

Usage::

    run_e2e.py --dlc build/bin/dlc [--mode aot|jit|both] [--rtol 1e-4]
               [--seed 0] [--timeout 600] [--keep] [--suite models|ops|all] [MODEL ...]

``--suite`` picks the models: ``models`` (default) is ``models.MODELS``, ``ops`` the
single-op cases of ``op_models.OP_MODELS``, ``all`` both; ``quant`` the networks quantized
by ONNX Runtime's tool (``quant_models.QUANT_MODELS``, run with a tolerance of a few
output quanta).  For every model (default: all
of the suite) the driver writes
``model.onnx`` and one ``<input>.npy`` per graph input into a temporary
directory, computes the reference outputs with ONNX Runtime
(CPUExecutionProvider, graph optimisations disabled), then

* ``aot``: ``dlc compile model.onnx -o model.so`` and
  ``dlc run model.so --input NAME=FILE ... --output-dir out_aot``
* ``jit``: ``dlc run model.onnx --input NAME=FILE ... --output-dir out_jit``

and loads ``<dir>/<sanitized output name>.npy`` for every graph output.
Each output must have exactly the reference shape and dtype, and

    err = max|dlc - ref| / max(max|ref|, 1e-12)

must be <= rtol (NaN/Inf mismatches count as infinite error).  One line is
printed per (model, mode); the exit status is 1 if anything failed (wrong
result, non-zero exit, crash/signal, timeout, missing output), else 0.
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from models import MODELS, sanitize_name  # noqa: E402
from op_models import OP_MODELS  # noqa: E402
from quant_models import QUANT_MODELS  # noqa: E402

SUITES = {"models": MODELS, "ops": OP_MODELS, "all": {**MODELS, **OP_MODELS},
          "quant": QUANT_MODELS}


class Failure(Exception):
    """A (model, mode) check failed; the message says why."""


def ort_reference(model_path: Path, inputs: dict[str, np.ndarray]):
    """Run ONNX Runtime on CPU; return ([(name, array)] in graph output order, seconds per run)."""
    import onnxruntime as ort

    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(str(model_path), so, providers=["CPUExecutionProvider"])
    sess.run(None, inputs)  # warm-up, so the reported time is steady-state
    t0 = time.perf_counter()
    outs = sess.run(None, inputs)
    dt = time.perf_counter() - t0
    return [(o.name, np.asarray(v)) for o, v in zip(sess.get_outputs(), outs)], dt


def run_cmd(cmd: list[str], timeout: float, what: str) -> float:
    """Run a dlc command; raise Failure on timeout, signal or non-zero exit. Returns seconds."""
    t0 = time.perf_counter()
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                           timeout=timeout, text=True, errors="replace")
    except subprocess.TimeoutExpired:
        raise Failure(f"{what}: timed out after {timeout:.0f}s: {' '.join(cmd)}")
    dt = time.perf_counter() - t0
    if p.returncode != 0:
        how = (f"killed by signal {-p.returncode}" if p.returncode < 0
               else f"exit code {p.returncode}")
        stderr = p.stderr.strip()
        if len(stderr) > 4000:
            stderr = "...\n" + stderr[-4000:]
        shown = "".join("\n    | " + line for line in stderr.splitlines())
        raise Failure(f"{what}: {how}: {' '.join(cmd)}{shown or ' (no stderr)'}")
    return dt


def rel_error(got: np.ndarray, ref: np.ndarray) -> float:
    """max|got - ref| / max(max|ref|, 1e-12); inf on any NaN/Inf disagreement."""
    if ref.size == 0:
        return 0.0
    g = got.astype(np.float64)
    r = ref.astype(np.float64)
    ref_nonfinite = ~np.isfinite(r)
    if (~np.isfinite(g) != ref_nonfinite).any():
        return float("inf")
    if ref_nonfinite.any():
        # Non-finite values must agree exactly (same inf sign / both NaN).
        same = (g[ref_nonfinite] == r[ref_nonfinite]) | (np.isnan(g[ref_nonfinite])
                                                         & np.isnan(r[ref_nonfinite]))
        if not same.all():
            return float("inf")
        g, r = g[~ref_nonfinite], r[~ref_nonfinite]
        if r.size == 0:
            return 0.0
    denom = max(float(np.max(np.abs(r))), 1e-12)
    return float(np.max(np.abs(g - r))) / denom


def compare(out_dir: Path, refs, rtol: float) -> float:
    """Check every reference output against out_dir/<sanitized>.npy; return the worst error."""
    worst = 0.0
    problems = []
    for name, ref in refs:
        path = out_dir / f"{sanitize_name(name)}.npy"
        if not path.is_file():
            present = sorted(p.name for p in out_dir.glob("*")) if out_dir.is_dir() else []
            problems.append(f"output '{name}': missing {path.name} (found: {present})")
            continue
        try:
            got = np.load(path, allow_pickle=False)
        except Exception as e:  # noqa: BLE001 - any unreadable file is a failure
            problems.append(f"output '{name}': cannot load {path.name}: {e}")
            continue
        if got.shape != ref.shape or got.dtype != ref.dtype:
            problems.append(f"output '{name}': got {got.dtype}{list(got.shape)}, "
                            f"expected {ref.dtype}{list(ref.shape)}")
            continue
        err = rel_error(got, ref)
        worst = max(worst, err)
        if not err <= rtol:
            with np.errstate(invalid="ignore", over="ignore"):
                diff = np.abs(got.astype(np.float64) - ref.astype(np.float64))
            diff[np.isnan(diff)] = np.inf  # point at NaN mismatches first
            idx = np.unravel_index(int(np.argmax(diff)), ref.shape) if ref.ndim else ()
            problems.append(f"output '{name}': rel err {err:.3e} > {rtol:g} "
                            f"(worst at {tuple(int(j) for j in idx)}: dlc={got[idx].item()!r} "
                            f"ref={ref[idx].item()!r}, max|ref|={np.max(np.abs(ref)).item():.4g})")
    if problems:
        raise Failure("; ".join(problems))
    return worst


def input_args(input_files: dict[str, Path]) -> list[str]:
    args = []
    for name, path in input_files.items():
        args += ["--input", f"{name}={path}"]
    return args


def run_mode(dlc: str, mode: str, work: Path, input_files, refs, rtol: float,
             timeout: float, threads: int = 1, target: str = "") -> tuple[float, str]:
    """Run one mode; return (worst error, timing text). Raises Failure."""
    model = work / "model.onnx"
    out_dir = work / f"out_{mode}"
    if out_dir.exists():
        shutil.rmtree(out_dir)
    if mode == "aot":
        so = work / "model.so"
        t_c = run_cmd([dlc, "compile", str(model), "-o", str(so),
                       *([f"--target={target}"] if target else [])], timeout, "dlc compile")
        if not so.is_file():
            raise Failure(f"dlc compile exited 0 but did not write {so}")
        t_r = run_cmd([dlc, "run", str(so), *input_args(input_files), "--output-dir",
                       str(out_dir), "--threads", str(threads)], timeout, "dlc run (aot)")
        timing = f"compile {t_c:6.2f}s run {t_r:6.2f}s"
    else:
        t_r = run_cmd([dlc, "run", str(model), *input_args(input_files), "--output-dir",
                       str(out_dir), "--threads", str(threads)], timeout, "dlc run (jit)")
        timing = f"jit-run {t_r:6.2f}s"
    return compare(out_dir, refs, rtol), timing


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dlc", required=True, help="path to the dlc binary")
    ap.add_argument("--mode", choices=["aot", "jit", "both"], default="both")
    ap.add_argument("--rtol", type=float, default=1e-4,
                    help="max allowed max|dlc-ref|/max|ref| per output (default 1e-4)")
    ap.add_argument("--seed", type=int, default=0, help="seed for weights and inputs")
    ap.add_argument("--threads", type=int, default=1,
                    help="threads for dlc run (parallel loops split over them; default 1)")
    ap.add_argument("--target", default="",
                    help="dlc compile --target (x86-64-v3: the AVX2 kernels); AOT mode only, "
                         "the JIT compiles for the host")
    ap.add_argument("--timeout", type=float, default=600.0,
                    help="timeout per dlc invocation in seconds (default 600)")
    ap.add_argument("--keep", action="store_true",
                    help="keep the temporary directories and print their paths")
    ap.add_argument("--suite", choices=list(SUITES), default="models",
                    help="models.py networks (default), op_models.py single-op cases, all "
                         "of these, or quant (quant_models.py)")
    ap.add_argument("models", nargs="*", metavar="MODEL",
                    help=f"models of the suite to run (default: all); models: {', '.join(MODELS)}"
                         f"; ops: see op_models.py")
    args = ap.parse_args(argv)
    suite = SUITES[args.suite]

    dlc = os.path.abspath(args.dlc)
    if not (os.path.isfile(dlc) and os.access(dlc, os.X_OK)):
        print(f"error: dlc binary not found or not executable: {args.dlc}", file=sys.stderr)
        return 2
    unknown = [m for m in args.models if m not in suite]
    if unknown:
        print(f"error: unknown model(s): {', '.join(unknown)}; known: {', '.join(suite)}",
              file=sys.stderr)
        return 2
    names = args.models or list(suite)
    modes = ["aot", "jit"] if args.mode == "both" else [args.mode]
    if args.target and "jit" in modes:
        if args.mode == "jit":
            print("error: --target applies to dlc compile (--mode aot)", file=sys.stderr)
            return 2
        modes = ["aot"]

    failures = 0
    total = 0
    for name in names:
        work = Path(tempfile.mkdtemp(prefix=f"dlc_e2e_{name}_"))
        try:
            model, inputs = suite[name](args.seed)
            model_path = work / "model.onnx"
            onnx.save(model, str(model_path))
            input_files = {}
            for in_name, arr in inputs.items():
                path = work / f"in_{sanitize_name(in_name)}.npy"
                np.save(path, arr)
                input_files[in_name] = path
            refs, t_ort = ort_reference(model_path, inputs)
        except Exception as e:  # noqa: BLE001 - report and keep going
            for mode in modes:
                total += 1
                failures += 1
                print(f"FAIL {name:<18} {mode:<3}  reference setup failed: {e}", flush=True)
            continue
        for mode in modes:
            total += 1
            t0 = time.perf_counter()
            try:
                err, timing = run_mode(dlc, mode, work, input_files, refs, args.rtol,
                                       args.timeout, args.threads, args.target)
                dt = time.perf_counter() - t0
                print(f"PASS {name:<18} {mode:<3}  err {err:9.3e}  time {dt:7.2f}s "
                      f"({timing}; ort {t_ort * 1000:8.2f}ms)", flush=True)
            except Failure as e:
                dt = time.perf_counter() - t0
                failures += 1
                print(f"FAIL {name:<18} {mode:<3}  time {dt:7.2f}s  {e}", flush=True)
        if args.keep:
            print(f"     kept {work}", flush=True)
        else:
            shutil.rmtree(work, ignore_errors=True)

    print(f"{total - failures}/{total} passed", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

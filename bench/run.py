#!/usr/bin/env python3
# By hand (never in CI): times dlc against ONNX Runtime and IREE on the bench models; writes
# bench/results/*.json and regenerates docs/Performance.md. Use the bench/run wrapper.
"""Benchmark dlc against ONNX Runtime and IREE.

Run it as bench/run (the wrapper picks the Python environments).

For every model of bench/models.py (random weights, fixed seed 0) and every thread count:

* reference: ONNX Runtime, graph optimizations disabled, in this process;
* dlc:  `dlc compile` (wall time and peak RSS measured), output checked with `dlc run
  MODEL.so --threads N`, timed through the C runtime alone by bench/dlc_runner.c (built
  against the runtime of the dlc under test; `dlc bench` if it cannot be built);
* ORT:  bench/engine_ort.py in a fresh process (CPU EP, ORT_ENABLE_ALL, intra-op threads N,
  sequential); compile time = session creation;
* IREE: `iree-import-onnx` + `iree-compile --iree-hal-target-backends=llvm-cpu
  --iree-llvmcpu-target-cpu=host` (from bench/.venv-bench), timed by bench/engine_iree.py
  (local-task driver, --task_topology_group_count=N).

Every engine's output must be within max|a-b|/max|ref| <= 1e-4 of the reference (int8
rows: 0.2, see quant_models.py); one that is not is reported as WRONG (with its error), one
that fails as FAIL (with the error line). The int8 rows (bench/quant_models.py) are bench
models quantized by ONNX Runtime's own tool, timed in every engine on the same file.
Each engine+model+thread count runs in its own process; peak RSS is that process's.
Timing runs in --rounds rounds (default 3) that interleave the engines, each round starting
with the next engine; each engine's reported latency is its lowest round median (every
round median is kept in the JSON as round_medians_ms).
The machine's fp32 FMA peak and stream bandwidth come from bench/machine.c (clang-22 -O2
-march=native).  Results go to OUT/<timestamp>.json and OUT/latest.json; docs/Performance.md
is regenerated after a full run (all models, not --quick), or with --doc / --doc-from.
"""
from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import platform
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
sys.path.insert(0, str(BENCH))
from common import (count_bytes, count_flops, latency_stats, rel_error,  # noqa: E402
                    run_child, sanitize_name)
from models import BENCH_MODELS as FLOAT_MODELS  # noqa: E402
from quant_models import QUANT_MODELS  # noqa: E402
import common  # noqa: E402
import report  # noqa: E402

RTOL = 1e-4
BENCH_MODELS = {**FLOAT_MODELS, **QUANT_MODELS}
IREE_VENV = BENCH / ".venv-bench"


def log(msg: str) -> None:
    print(msg, flush=True)


# ---------------------------------------------------------------------------
# Machine figures
# ---------------------------------------------------------------------------

def build_c(name: str, work: Path, timeout: float) -> tuple[Path | None, str]:
    """Compile bench/NAME.c with clang-22 -O2 -march=native; returns (executable, error)."""
    cc = shutil.which("clang-22") or shutil.which("clang")
    if not cc:
        return None, "clang-22 not found"
    exe = work / name
    r = run_child([cc, "-O2", "-march=native", "-pthread", "-o", exe, BENCH / f"{name}.c"], timeout)
    if r.rc != 0:
        return None, f"{Path(cc).name} {name}.c: {r.error_line()}"
    return exe, Path(cc).name


def build_runner(prefix: Path, work: Path, timeout: float) -> tuple[Path | None, str]:
    """Build bench/dlc_runner.c against PREFIX/lib/libdlc_runtime.so (the dlc snapshot's)."""
    cc = shutil.which("clang-22") or shutil.which("clang")
    lib = prefix / "lib"
    if not cc or not (lib / "libdlc_runtime.so").exists():
        return None, "no clang or no libdlc_runtime.so next to dlc"
    exe = work / "dlc_runner"
    r = run_child([cc, "-O2", "-I", ROOT / "runtime", "-o", exe, BENCH / "dlc_runner.c",
                   "-L", lib, "-ldlc_runtime", f"-Wl,-rpath,{lib}"], timeout)
    if r.rc != 0:
        return None, r.error_line()
    return exe, ""


def measure_machine(threads: list[int], work: Path, timeout: float) -> dict:
    """Build bench/machine.c and run it at each thread count: FMA GFLOP/s, copy/triad GB/s."""
    exe, cc = build_c("machine", work, timeout)
    if exe is None:
        return {"error": cc}
    out = {"compiler": cc, "by_threads": {}}
    for n in sorted(set([1] + threads)):
        r = run_child([exe, str(n)], timeout)
        if r.rc != 0:
            return {"error": f"machine {n}: {r.error_line()}"}
        m = json.loads(r.stdout.strip().splitlines()[-1])
        out["isa"] = m.pop("isa")
        out["by_threads"][str(n)] = m
        log(f"machine, {n} thread(s): FMA {m['fma_gflops']:.1f} GFLOP/s, int8 "
            f"{m.get('int8_gops') or 0:.1f} GOP/s, copy {m['copy_gbs']:.1f} "
            f"GB/s, triad {m['triad_gbs']:.1f} GB/s")
    out["peak_gflops_per_core"] = out["by_threads"]["1"]["fma_gflops"]
    out["peak_int8_gops_per_core"] = out["by_threads"]["1"].get("int8_gops")
    out["peak_bf16_gflops_per_core"] = out["by_threads"]["1"].get("bf16_gflops")
    return out


# ---------------------------------------------------------------------------
# Engines
# ---------------------------------------------------------------------------

def check_outputs(out_dir: Path, ref: list[tuple[str, np.ndarray]], rtol: float = RTOL) -> dict:
    """Compare DIR/<name>.npy with the reference outputs; status ok or wrong."""
    worst = 0.0
    for name, want in ref:
        path = out_dir / f"{sanitize_name(name)}.npy"
        if not path.exists():
            return {"status": "wrong", "rel_err": float("inf"), "error": f"no output {name}"}
        worst = max(worst, rel_error(np.load(path), want))
    if worst <= rtol:
        return {"status": "ok", "rel_err": worst}
    return {"status": "wrong", "rel_err": worst,
            "error": f"output differs from ONNX Runtime: rel. error {worst:.3g} > {rtol:g}"}


def parse_dlc_bench(text: str) -> dict | None:
    """'min 49.8 us  median 55.7 us  p90 59.2 us' -> {min_ms, median_ms, p90_ms}."""
    import re
    scale = {"us": 1e-3, "µs": 1e-3, "ms": 1.0, "s": 1e3}
    got = {}
    for key in ("min", "median", "p90"):
        m = re.search(rf"\b{key} ([0-9.eE+-]+) (us|µs|ms|s)\b", text)
        if not m:
            return None
        got[f"{key}_ms"] = float(m.group(1)) * scale[m.group(2)]
    return got


def snapshot_dlc(dlc: Path, work: Path) -> Path:
    """Copy dlc (and ../lib/libdlc_runtime.so, which it loads via $ORIGIN) into the work dir,
    so that rebuilding build/ during a long run does not mix two builds in one result."""
    dst = work / "dlc-snapshot"
    (dst / "bin").mkdir(parents=True, exist_ok=True)
    shutil.copy2(dlc, dst / "bin" / "dlc")
    lib = dlc.parent.parent / "lib" / "libdlc_runtime.so"
    if lib.exists():
        (dst / "lib").mkdir(exist_ok=True)
        shutil.copy2(lib, dst / "lib" / lib.name)
    return dst / "bin" / "dlc"


class Bench:
    def __init__(self, args, work: Path):
        self.args, self.work = args, work
        self.rtol = RTOL
        self.dlc = str(snapshot_dlc(Path(args.dlc).resolve(), work))
        self.runner, why = build_runner(Path(self.dlc).parent.parent, work, args.timeout)
        if self.runner is None:
            log(f"note: bench/dlc_runner.c did not build ({why}); timing with `dlc bench`")
        self.iree_reason = None if args.iree else "disabled with --no-iree"
        if args.iree and not (IREE_VENV / "bin" / "iree-compile").exists():
            self.iree_reason = (f"{IREE_VENV.relative_to(ROOT)} has no iree-compile "
                                "(pip install failed?)")

    # -- compile steps (once per model) -----------------------------------------
    def compile_dlc(self, d: Path, shapes_args: list[str]) -> dict:
        r = run_child([self.dlc, "compile", d / "model.onnx", "-o", d / "model.so", *shapes_args],
                      self.args.timeout)
        if r.rc != 0:
            return {"status": "error", "error": "dlc compile: " + r.error_line()}
        return {"status": "ok", "time_s": r.wall_s, "rss_mb": r.maxrss_mb}

    def compile_iree(self, d: Path) -> dict:
        if self.iree_reason:
            return {"status": "unavailable", "error": self.iree_reason}
        vb = IREE_VENV / "bin"
        imp = run_child([vb / "iree-import-onnx", d / "model.onnx", "-o", d / "model.mlir"],
                        self.args.timeout)
        if imp.rc != 0:
            return {"status": "error", "error": "iree-import-onnx: " + imp.error_line()}
        comp = run_child([vb / "iree-compile", d / "model.mlir",
                          "--iree-hal-target-backends=llvm-cpu", "--iree-llvmcpu-target-cpu=host",
                          "-o", d / "model.vmfb"], self.args.timeout)
        if comp.rc != 0:
            return {"status": "error", "error": "iree-compile: " + comp.error_line()}
        return {"status": "ok", "time_s": imp.wall_s + comp.wall_s, "import_s": imp.wall_s,
                "compile_s": comp.wall_s,
                "rss_mb": max(imp.maxrss_mb or 0, comp.maxrss_mb or 0) or None,
                "import_rss_mb": imp.maxrss_mb, "compile_rss_mb": comp.maxrss_mb}

    # -- timed runs (per thread count, each in a fresh process) ---------------------
    def run_dlc(self, d: Path, n: int, in_args: list[str], ref) -> dict:
        out_dir = d / f"out_dlc_t{n}"
        r = run_child([self.dlc, "run", d / "model.so", "--threads", str(n), *in_args,
                       "--output-dir", out_dir], self.args.timeout)
        if r.rc != 0:
            return {"status": "error", "error": "dlc run: " + r.error_line()}
        res = check_outputs(out_dir, ref, self.rtol)
        # Timed through the runtime alone (bench/dlc_runner.c), as an application would run
        # the model: no compiler libraries in the process, so its peak RSS is the model's.
        if self.runner:
            inputs = [a for a in in_args if a != "--input"]
            r = run_child([self.runner, d / "model.so", str(n), str(self.args.runs),
                           str(self.args.warmup), *inputs], self.args.timeout)
        else:
            r = run_child([self.dlc, "bench", d / "model.so", "--threads", str(n), "--runs",
                           str(self.args.runs), "--warmup", str(self.args.warmup), *in_args],
                          self.args.timeout)
        stats = parse_dlc_bench(r.stdout) if r.rc == 0 else None
        if stats is None:
            why = r.error_line() if r.rc else "unparsable output: " + r.stdout[-200:]
            return {"status": "error", "error": "dlc timing: " + why}
        return {**res, **stats, "runs": self.args.runs, "rss_mb": r.maxrss_mb}

    def run_worker(self, engine: str, cmd: list, n: int, out_dir: Path, ref) -> dict:
        """Run a bench/engine_*.py worker; check its outputs; latency stats and peak RSS."""
        r = run_child(cmd + ["--threads", str(n), "--runs", str(self.args.runs),
                             "--warmup", str(self.args.warmup), "--output-dir", out_dir],
                      self.args.timeout)
        if r.rc != 0:
            return {"status": "error", "error": r.error_line()}
        info = json.loads(r.stdout.strip().splitlines()[-1])
        res = {**check_outputs(out_dir, ref, self.rtol), **latency_stats(info.pop("times_s")),
               "rss_mb": r.maxrss_mb}
        if "compile_s" in info:
            res["compile_s"] = info["compile_s"]
        self.versions[engine] = info.get("version")
        return res

    def run_ort(self, d: Path, n: int, in_args: list[str], ref) -> dict:
        cmd = [sys.executable, BENCH / "engine_ort.py", d / "model.onnx", *in_args]
        return self.run_worker("onnxruntime", cmd, n, d / f"out_ort_t{n}", ref)

    def run_iree(self, d: Path, n: int, in_args: list[str], ref, fn: str, compiled: dict) -> dict:
        if compiled["status"] != "ok":
            return {"status": compiled["status"], "error": compiled["error"]}
        cmd = [IREE_VENV / "bin" / "python", BENCH / "engine_iree.py", d / "model.vmfb",
               "--function", fn, *in_args]
        for name, _ in ref:
            cmd += ["--output-name", name]
        return self.run_worker("iree", cmd, n, d / f"out_iree_t{n}", ref)

    def warm_up(self) -> None:
        """Compile tiny_add once with each compiler, untimed: the first compile otherwise pays
        for loading the compilers' libraries from disk (seconds), the others do not."""
        d = self.work / "warm-up"
        d.mkdir(parents=True, exist_ok=True)
        onnx.save(BENCH_MODELS["tiny_add"].build(0)[0], d / "model.onnx")
        self.compile_dlc(d, [])
        self.compile_iree(d)
        shutil.rmtree(d, ignore_errors=True)

    # -- one model ------------------------------------------------------------------
    def model(self, name: str) -> dict:
        bm = BENCH_MODELS[name]
        self.rtol = bm.rtol  # the outputs' tolerance while this model runs
        model, inputs = bm.build(0)
        d = self.work / name
        d.mkdir(parents=True, exist_ok=True)
        onnx.save(model, d / "model.onnx")
        in_args = []
        for k, v in inputs.items():  # graph input order
            path = d / f"in_{sanitize_name(k)}.npy"
            np.save(path, v)
            in_args += ["--input", f"{k}={path}"]
        flops, _ = count_flops(model)
        res = {"about": bm.about, "memory_bound": bm.memory_bound, "int8": bm.int8,
               "bf16": bm.bf16, "flops": flops,
               "bytes": count_bytes(model), "compile": {}, "runs": {}}
        ref = reference(d / "model.onnx", inputs)

        log(f"== {name}: {bm.about}; {flops / 1e9 if flops else 0:.3f} GFLOP")
        res["compile"]["dlc"] = self.compile_dlc(d, list(bm.dlc_flags))
        res["compile"]["iree"] = self.compile_iree(d)
        for eng, c in res["compile"].items():
            log(f"   compile {eng:4}: " + (f"{c['time_s']:.2f} s, {report.fmt_mb(c['rss_mb'])} MB"
                                           if c["status"] == "ok" else c["error"]))
        dlc_ok = res["compile"]["dlc"]["status"] == "ok"
        timers = {
            "dlc": lambda n: (self.run_dlc(d, n, in_args, ref) if dlc_ok
                              else dict(res["compile"]["dlc"])),
            "ort": lambda n: self.run_ort(d, n, in_args, ref),
            "iree": lambda n: self.run_iree(d, n, in_args, ref, model.graph.name,
                                            res["compile"]["iree"]),
        }
        for n in self.args.threads:
            runs = {}
            # Rounds interleave the engines (each round starts with the next engine), and
            # each engine keeps its least disturbed round: load from elsewhere on a shared
            # host only ever adds time, to whichever engine runs during it.
            for k in range(self.args.rounds):
                order = list(timers)[k % len(timers):] + list(timers)[:k % len(timers)]
                for eng in order:
                    r = timers[eng](n)
                    medians = runs.get(eng, {}).get("round_medians_ms", [])
                    if "median_ms" in r:
                        medians = medians + [r["median_ms"]]
                    best = runs.get(eng)
                    if best is None or ("median_ms" in r and ("median_ms" not in best or
                                                              r["median_ms"] < best["median_ms"])):
                        best = r
                    runs[eng] = {**best, "round_medians_ms": medians}
                    if "median_ms" not in r:  # an error does not get better with rounds
                        timers[eng] = lambda n, r=r: dict(r)
            for eng, r in runs.items():
                log(f"   {n} thread(s) {eng:4}: " + describe(r))
            res["runs"][str(n)] = runs
        if not self.args.keep:
            shutil.rmtree(d, ignore_errors=True)
        return res


def describe(r: dict) -> str:
    if "median_ms" not in r:
        return f"{r['status'].upper()}: {r.get('error', '')}"
    s = f"median {report.fmt_ms(r['median_ms'])}, peak RSS {report.fmt_mb(r['rss_mb'])} MB"
    if r["status"] == "ok":
        return s + f", rel. error {r['rel_err']:.1e}"
    return s + f"  {r['status'].upper()}: {r.get('error', '')}"


def reference(model_path: Path, inputs: dict) -> list[tuple[str, np.ndarray]]:
    """ONNX Runtime outputs with graph optimizations disabled (the reference for every engine)."""
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(str(model_path), so, providers=["CPUExecutionProvider"])
    outs = sess.run(None, inputs)
    return [(o.name, np.asarray(v)) for o, v in zip(sess.get_outputs(), outs)]


# ---------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------

def host_info() -> dict:
    cpu = "unknown"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    git = lambda *a: subprocess.run(["git", "-C", str(ROOT), *a], capture_output=True,  # noqa: E731
                                    text=True).stdout.strip()
    return {"cpu": cpu, "cores": os.cpu_count(), "kernel": platform.release(),
            "python": platform.python_version(), "dlc_commit": git("rev-parse", "--short", "HEAD"),
            "dlc_dirty": bool(git("status", "--porcelain", "--untracked-files=no"))}


def parse_args(argv):
    ap = argparse.ArgumentParser(prog="bench/run", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default=",".join(BENCH_MODELS),
                    help="comma-separated models (default: all): " + ", ".join(BENCH_MODELS))
    ap.add_argument("--threads", default="1,2", help="comma-separated thread counts (default 1,2)")
    ap.add_argument("--runs", type=int, default=50, help="timed runs per measurement (default 50)")
    ap.add_argument("--warmup", type=int, default=10, help="untimed runs first (default 10; every engine also warms up for at least 0.2 s)")
    ap.add_argument("--rounds", type=int, default=3,
                    help="timing rounds per engine, interleaved across engines; each engine's "
                         "latency is its lowest round median (default 3)")
    ap.add_argument("--quick", action="store_true",
                    help="smoke test: 5 runs, 1 warm-up, 1 round; docs/Performance.md is not rewritten")
    ap.add_argument("--no-iree", dest="iree", action="store_false", help="skip IREE")
    ap.add_argument("--out", default=str(BENCH / "results"),
                    help="where the JSON results go (default bench/results)")
    ap.add_argument("--dlc", default=str(ROOT / "build" / "bin" / "dlc"), help="dlc binary")
    ap.add_argument("--timeout", type=float, default=1200, help="seconds per compile/run step")
    ap.add_argument("--work", help="directory for models and artifacts (default: a temp dir)")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    ap.add_argument("--doc", action="store_true",
                    help="rewrite docs/Performance.md even after a partial or --quick run")
    ap.add_argument("--no-doc", action="store_true", help="never rewrite docs/Performance.md")
    ap.add_argument("--doc-from", metavar="JSON",
                    help="only regenerate docs/Performance.md from a results file")
    args = ap.parse_args(argv)
    args.models = [m for m in args.models.split(",") if m]
    unknown = [m for m in args.models if m not in BENCH_MODELS]
    if unknown:
        ap.error(f"unknown model(s) {', '.join(unknown)}; known: {', '.join(BENCH_MODELS)}")
    args.threads = [int(t) for t in args.threads.split(",") if t]
    if args.quick:
        args.runs, args.warmup, args.rounds = 5, 1, 1
    return args


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    args = parse_args(argv)
    # Stop cleanly on kill/Ctrl-C (also when started in the background, where SIGINT is
    # ignored): the running child is killed and the partial results are still written.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("bench/run: terminated"))
    signal.signal(signal.SIGINT, lambda *_: sys.exit("bench/run: interrupted"))
    doc_path = ROOT / "docs" / "Performance.md"
    if args.doc_from:
        data = json.loads(Path(args.doc_from).read_text())
        doc_path.write_text(report.markdown(data))
        log(f"wrote {doc_path.relative_to(ROOT)} from {args.doc_from}")
        return 0
    if not os.access(args.dlc, os.X_OK):
        sys.exit(f"error: {args.dlc} is not an executable (build dlc first: scripts/setup)")

    work = Path(args.work) if args.work else Path(tempfile.mkdtemp(prefix="dlc-bench-"))
    work.mkdir(parents=True, exist_ok=True)
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    started = dt.datetime.now()
    stamp = started.strftime("%Y%m%d-%H%M%S")
    import onnxruntime
    data = {"schema": 1, "command": " ".join(["bench/run", *argv]),
            "started": started.isoformat(timespec="seconds"), "host": host_info(),
            "loadavg_start": list(os.getloadavg()),
            "settings": {"runs": args.runs, "warmup": args.warmup, "rounds": args.rounds,
                         "threads": args.threads,
                         "quick": args.quick, "rtol": RTOL},
            "versions": {"onnxruntime": onnxruntime.__version__}, "models": {}}
    dlc_mtime = os.stat(args.dlc).st_mtime
    data["host"]["dlc_binary_mtime"] = dt.datetime.fromtimestamp(dlc_mtime).isoformat(
        timespec="seconds")
    bench = Bench(args, work)
    bench.versions = data["versions"]
    data["iree_unavailable"] = bench.iree_reason
    log(f"work directory {work}; results in {out}")
    launcher, err = build_c("rusage", work, args.timeout)
    if launcher is None:
        log(f"warning: peak RSS not measured: {err}")
    common.RUSAGE_LAUNCHER = str(launcher) if launcher else None
    data["machine"] = measure_machine(args.threads, work, args.timeout)
    result_file = out / f"{stamp}.json"
    bench.warm_up()
    try:
        for name in args.models:
            data["models"][name] = bench.model(name)
            result_file.write_text(json.dumps(data, indent=1))  # keep partial results
    finally:
        data["finished"] = dt.datetime.now().isoformat(timespec="seconds")
        data["loadavg_end"] = list(os.getloadavg())
        if os.path.exists(args.dlc) and os.stat(args.dlc).st_mtime != dlc_mtime:
            log(f"note: {args.dlc} was rebuilt during the run; the run used a copy of the "
                f"build from {data['host']['dlc_binary_mtime']}")
        result_file.write_text(json.dumps(data, indent=1))
        shutil.copyfile(result_file, out / "latest.json")
        if not args.keep and not args.work:
            shutil.rmtree(work, ignore_errors=True)
    log(f"\nwrote {result_file} and {out / 'latest.json'}")

    text = report.markdown(data)
    full = set(args.models) == set(BENCH_MODELS) and not args.quick
    if not args.no_doc and (full or args.doc):
        doc_path.write_text(text)
        log(f"wrote {doc_path.relative_to(ROOT)}")
    print("\n" + report.tables_only(data))
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# Before/after: two dlc binaries on the bench models, timed in the same run, rounds interleaved.
"""Compare two dlc builds (e.g. a commit and its parent) on bench/models.py, same run.

Usage::

    .venv/bin/python bench/ab.py --old /work/base/build/bin/dlc --new build/bin/dlc \\
        [--models resnet18,bert_layer] [--threads 1] [--rounds 5] [--runs 50]

Each model is generated once (bench/models.py, seed 0), compiled by both binaries, and run
by both with the same inputs: the outputs must agree within 1e-4 (max|a-b| / max|old|).
Timing: `dlc bench OUT.so` (each binary times its own module with its own runtime), in
--rounds rounds that alternate which binary goes first; each binary's latency is its lowest
round median. Prints one line per model with both latencies and new/old; exits 1 if an
output differs or a step fails. By hand only (timings are noisy on a shared machine).
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from models import BENCH_MODELS  # noqa: E402

MEDIAN = re.compile(r"median ([0-9.]+) (us|ms)")


def run(cmd, timeout):
    p = subprocess.run([str(c) for c in cmd], capture_output=True, text=True, timeout=timeout)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))}: exit {p.returncode}: "
                           f"{(p.stderr or p.stdout).strip().splitlines()[-1:]}")
    return p.stdout


def median_ms(out: str) -> float:
    m = MEDIAN.search(out)
    if not m:
        raise RuntimeError(f"no median in dlc bench output: {out!r}")
    return float(m.group(1)) / (1000.0 if m.group(2) == "us" else 1.0)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--old", required=True, help="the dlc binary before")
    ap.add_argument("--new", required=True, help="the dlc binary after")
    ap.add_argument("--models", default=",".join(BENCH_MODELS),
                    help="comma-separated models (default: all of bench/models.py)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--timeout", type=int, default=600)
    args = ap.parse_args(argv)
    names = [m for m in args.models.split(",") if m]
    unknown = [m for m in names if m not in BENCH_MODELS]
    if unknown:
        ap.error(f"unknown models: {', '.join(unknown)}")
    failed = False
    print(f"{'model':<16} {'old ms':>10} {'new ms':>10} {'new/old':>8}")
    with tempfile.TemporaryDirectory(prefix="dlc_ab_") as tmp:
        for name in names:
            d = Path(tmp) / name
            d.mkdir()
            try:
                model, inputs = BENCH_MODELS[name].build(0)
                onnx.save(model, d / "model.onnx")
                feeds = []
                for k, v in inputs.items():
                    np.save(d / f"{k}.npy", v)
                    feeds += ["--input", f"{k}={d / f'{k}.npy'}"]
                outs = {}
                for tag, dlc in (("old", args.old), ("new", args.new)):
                    run([dlc, "compile", d / "model.onnx", "-o", d / f"{tag}.so"], args.timeout)
                    run([dlc, "run", d / f"{tag}.so", *feeds, "--output-dir", d / tag,
                         "--threads", args.threads], args.timeout)
                    outs[tag] = {p.name: np.load(p) for p in sorted((d / tag).glob("*.npy"))}
                for k, a in outs["old"].items():
                    b = outs["new"].get(k)
                    err = (np.max(np.abs(a.astype(np.float64) - b)) /
                           max(np.max(np.abs(a.astype(np.float64))), 1e-30)) if b is not None \
                        and a.size else (0.0 if b is not None else np.inf)
                    if err > 1e-4:
                        raise RuntimeError(f"output {k} differs: {err:.3g}")
                best = {"old": np.inf, "new": np.inf}
                for r in range(args.rounds):
                    order = ("old", "new") if r % 2 == 0 else ("new", "old")
                    for tag in order:
                        dlc = args.old if tag == "old" else args.new
                        out = run([dlc, "bench", d / f"{tag}.so", *feeds, "--threads",
                                   args.threads, "--runs", args.runs, "--warmup", args.warmup],
                                  args.timeout)
                        best[tag] = min(best[tag], median_ms(out))
                print(f"{name:<16} {best['old']:>10.4f} {best['new']:>10.4f} "
                      f"{best['new'] / best['old']:>8.3f}", flush=True)
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                failed = True
                print(f"{name:<16} FAIL {e}", flush=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

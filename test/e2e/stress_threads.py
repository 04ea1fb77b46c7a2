#!/usr/bin/env python3
"""Thread stress: parallel models run many times at 2-8 threads under load, every run's
outputs bit-identical to the first run's (``dlc bench --check``).

A data race in generated parallel loops or in the runtime's pool shows up as outputs that
change from run to run (MaxViT's window softmax shared one scratch buffer between threads:
wrong in 0 to 28 of 30 runs depending on machine load). The runs are deterministic by
construction (static tiles, each output element written by one thread), so any difference
is a failure. While the models run, ``--load`` busy processes compete for the cores, so the
pool's threads are preempted at random points as on a loaded server.

usage: stress_threads.py --dlc build/bin/dlc [--runs 300] [--threads 2,4,8] [--load 2]
                         [--seed 0] [MODEL ...]   (models of models.MODELS; default: a set)
"""
from __future__ import annotations

import argparse
import multiprocessing
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from models import MODELS  # noqa: E402

# Models with parallel loops of every kind: row blocks (softmax, layernorm), packed
# contractions with epilogues, convs (grouped, depthwise), pools, transposes.
DEFAULT = ["window_softmax", "mlp_b64", "lenet5", "bert_layer", "mobilenetv2", "conv_depthwise",
           "softmax", "reduce_mean"]


def _burn(stop_at: float):
    x = 0
    while time.time() < stop_at:
        x = (x * 1103515245 + 12345) % 2147483648


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dlc", required=True)
    ap.add_argument("--runs", type=int, default=300, help="runs per model and thread count")
    ap.add_argument("--threads", default="2,4,8", help="thread counts (comma-separated)")
    ap.add_argument("--load", type=int, default=2, help="busy processes running alongside")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("models", nargs="*", metavar="MODEL")
    args = ap.parse_args()
    names = args.models or DEFAULT
    unknown = [m for m in names if m not in MODELS]
    if unknown:
        print(f"error: unknown model(s): {', '.join(unknown)}", file=sys.stderr)
        return 1
    threads = [int(t) for t in args.threads.split(",")]
    failures = []
    with tempfile.TemporaryDirectory(prefix="dlc-stress-") as tmp:
        work = Path(tmp)
        compiled = {}
        for name in names:
            model, inputs = MODELS[name](args.seed)
            onnx.save(model, work / f"{name}.onnx")
            so = work / f"{name}.so"
            p = subprocess.run([args.dlc, "compile", str(work / f"{name}.onnx"), "-o", str(so)],
                               capture_output=True, text=True)
            if p.returncode != 0:
                failures.append(f"{name}: compile failed: {p.stderr.strip()}")
                continue
            feeds = []
            for k, v in inputs.items():
                path = work / f"{name}.{len(feeds)}.npy"
                np.save(path, v)
                feeds += ["--input", f"{k}={path}"]
            compiled[name] = (so, feeds)
        # Load: busy processes for as long as the checks take (bounded by a deadline).
        deadline = time.time() + 1800
        load = [multiprocessing.Process(target=_burn, args=(deadline,), daemon=True)
                for _ in range(args.load)]
        for proc in load:
            proc.start()
        try:
            for name, (so, feeds) in compiled.items():
                for t in threads:
                    t0 = time.perf_counter()
                    p = subprocess.run([args.dlc, "bench", str(so), "--threads", str(t), "--runs",
                                        str(args.runs), "--warmup", "1", "--check", *feeds],
                                       capture_output=True, text=True, timeout=900)
                    ok = p.returncode == 0
                    print(f"{'PASS' if ok else 'FAIL'} {name:16s} {t} threads, {args.runs} runs "
                          f"({time.perf_counter() - t0:.1f}s)", flush=True)
                    if not ok:
                        failures.append(f"{name} at {t} threads: {p.stderr.strip()}")
        finally:
            for proc in load:
                proc.terminate()
    for f in failures:
        print(f"FAIL {f}")
    total = len(compiled) * len(threads)
    print(f"{total - len(failures)} passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

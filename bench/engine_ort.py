#!/usr/bin/env python3
# bench/run worker: times one model with ONNX Runtime (CPU EP) in a fresh process; prints one JSON line.
"""ONNX Runtime timing worker for bench/run.py (one model, one thread count per process).

usage: engine_ort.py MODEL.onnx --threads N --runs R --warmup W --input NAME=FILE.npy ...
                     --output-dir DIR

Session: CPUExecutionProvider, ORT_ENABLE_ALL graph optimizations, intra_op_num_threads N,
inter_op_num_threads 1, ORT_SEQUENTIAL.  "Compile time" is the session creation time.
Timed: R calls of ``sess.run(None, feeds)`` (after W untimed ones) with the same numpy
inputs, each timed with perf_counter (so a few microseconds of Python call overhead are
included).  Writes the outputs of the last call to DIR/<sanitized output name>.npy and
prints ``{"compile_s": .., "times_s": [..], "version": ..}`` as the last stdout line.
"""
import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

MIN_WARMUP_S = 0.2


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("model")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--input", action="append", default=[], metavar="NAME=FILE")
    ap.add_argument("--output-dir", required=True)
    args = ap.parse_args()

    import onnxruntime as ort
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from common import sanitize_name

    feeds = {}
    for spec in args.input:
        name, _, path = spec.rpartition("=")
        feeds[name] = np.load(path)

    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    so.intra_op_num_threads = args.threads
    so.inter_op_num_threads = 1
    so.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
    t0 = time.perf_counter()
    sess = ort.InferenceSession(args.model, so, providers=["CPUExecutionProvider"])
    compile_s = time.perf_counter() - t0

    # Warm-up: the given runs, and at least MIN_WARMUP_S (a few runs of a µs model
    # leave the threads and the CPU cold; the same rule in every engine's runner).
    end, done = time.perf_counter() + MIN_WARMUP_S, 0
    while done < args.warmup or time.perf_counter() < end:
        sess.run(None, feeds)
        done += 1
    times = []
    for _ in range(args.runs):
        t = time.perf_counter()
        outs = sess.run(None, feeds)
        times.append(time.perf_counter() - t)

    out_dir = Path(args.output_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    for meta, value in zip(sess.get_outputs(), outs):
        np.save(out_dir / f"{sanitize_name(meta.name)}.npy", np.asarray(value))
    print(json.dumps({"compile_s": compile_s, "times_s": times, "version": ort.__version__}))
    return 0


if __name__ == "__main__":
    sys.exit(main())

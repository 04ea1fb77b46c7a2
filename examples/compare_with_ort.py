#!/usr/bin/env python3
# Compares the .npy outputs written by `dlc run` with ONNX Runtime for one model (used by scripts/demo).
"""Print dlc's outputs and their difference from ONNX Runtime.

Usage::

    compare_with_ort.py MODEL.onnx NAME=INPUT.npy [NAME=INPUT.npy ...] OUTDIR [--rtol 1e-4]

Runs MODEL.onnx in ONNX Runtime (CPU) on the given inputs and, for every graph
output, loads ``OUTDIR/<name>.npy`` (the name with every character outside
``[A-Za-z0-9_.-]`` replaced by ``_``, as `dlc run` writes it).  Prints the
values, the max absolute difference and the relative difference
``max|dlc - ort| / max|ort|``.  Exits 1 if an output is missing, has another
shape/dtype, or its relative difference exceeds ``--rtol``.
"""
from __future__ import annotations

import argparse
import os
import re
import sys

import numpy as np


def main() -> int:
    ap = argparse.ArgumentParser(description="Compare dlc outputs with ONNX Runtime.")
    ap.add_argument("model", help="the .onnx model")
    ap.add_argument("args", nargs="+", metavar="NAME=INPUT.npy ... OUTDIR")
    ap.add_argument("--rtol", type=float, default=1e-4, help="max relative difference (default 1e-4)")
    a = ap.parse_args()
    *specs, out_dir = a.args
    if not specs or any("=" not in s for s in specs):
        ap.error("expected NAME=INPUT.npy arguments followed by OUTDIR")

    import onnxruntime as ort

    feeds = {}
    for spec in specs:
        name, path = spec.split("=", 1)
        feeds[name] = np.load(path)
    so = ort.SessionOptions()
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(a.model, so, providers=["CPUExecutionProvider"])
    refs = sess.run(None, feeds)

    ok = True
    np.set_printoptions(precision=4, suppress=True, linewidth=100, threshold=64)
    for meta, ref in zip(sess.get_outputs(), refs):
        path = os.path.join(out_dir, re.sub(r"[^A-Za-z0-9_.\-]", "_", meta.name) + ".npy")
        if not os.path.isfile(path):
            print(f"{meta.name}: MISSING {path}")
            ok = False
            continue
        got = np.load(path)
        print(f"{meta.name} ({path}): {got.dtype}{list(got.shape)}\n{got}")
        if got.shape != ref.shape or got.dtype != ref.dtype:
            print(f"  MISMATCH: expected {ref.dtype}{list(ref.shape)} from ONNX Runtime")
            ok = False
            continue
        abs_diff = float(np.max(np.abs(got.astype(np.float64) - ref))) if ref.size else 0.0
        rel = abs_diff / max(float(np.max(np.abs(ref))) if ref.size else 0.0, 1e-12)
        good = rel <= a.rtol  # False for NaN
        ok &= good
        print(f"  vs ONNX Runtime: max abs diff {abs_diff:.3e}, relative {rel:.3e} "
              f"({'OK' if good else 'FAIL'}, tolerance {a.rtol:g})")
    print("dlc matches ONNX Runtime" if ok else "dlc does NOT match ONNX Runtime")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

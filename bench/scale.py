#!/usr/bin/env python3
# Compile-time scale check: huge but simple graphs must compile in <= 60 s and <= 4 GB (issue 16).
"""Time `dlc compile` on graphs that are large in one dimension.

Usage::

    .venv/bin/python bench/scale.py [--dlc build/bin/dlc] [--cases add_chain,concat,split,rank24]
                                    [--n add_chain=100000,concat=1000,split=10000] [--check]

Cases (N is the size):

  add_chain   x -> Add(c_i) -> ... N Add nodes in a chain (each with its own constant)
  concat      Concat of N graph inputs [1, 4] along axis 1
  split       Split of a [N, 4] input into N outputs along axis 0
  rank24      Relu of a rank-24 input of 2s (N ignored)

For each it prints the wall time and peak RSS of `dlc compile` (os.wait4 of that
process alone) and whether both are within the limits. With --check it also runs
the model once with `dlc run` and compares every output with NumPy (max abs error
<= 1e-5). Exits 1 when a limit is exceeded or a check fails. Not part of CI: timing
belongs in benchmarks.
"""
from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

LIMIT_S, LIMIT_BYTES = 60.0, 4 << 30
DEFAULT_N = {"add_chain": 100000, "concat": 1000, "split": 10000, "rank24": 0}


def model(nodes, inputs, outputs, inits=()):
    g = helper.make_graph(nodes, "scale", inputs, outputs, list(inits))
    return helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def vi(name, shape):
    return helper.make_tensor_value_info(name, TensorProto.FLOAT, shape)


def add_chain(n):
    rng = np.random.default_rng(0)
    consts = rng.standard_normal((n, 8)).astype(np.float32) * 1e-3
    nodes, inits = [], []
    prev = "x"
    for i in range(n):
        inits.append(numpy_helper.from_array(consts[i], f"c{i}"))
        out = "y" if i == n - 1 else f"t{i}"
        nodes.append(helper.make_node("Add", [prev, f"c{i}"], [out], name=f"add{i}"))
        prev = out
    x = rng.standard_normal(8).astype(np.float32)
    ref = x.copy()
    for i in range(n):
        ref = ref + consts[i]
    return model(nodes, [vi("x", [8])], [vi("y", [8])], inits), {"x": x}, {"y": ref}


def concat(n):
    rng = np.random.default_rng(0)
    xs = {f"x{i}": rng.standard_normal((1, 4)).astype(np.float32) for i in range(n)}
    node = helper.make_node("Concat", list(xs), ["y"], name="cat", axis=1)
    return (model([node], [vi(k, [1, 4]) for k in xs], [vi("y", [1, 4 * n])]), xs,
            {"y": np.concatenate(list(xs.values()), axis=1)})


def split(n):
    x = np.random.default_rng(0).standard_normal((n, 4)).astype(np.float32)
    outs = [f"y{i}" for i in range(n)]
    node = helper.make_node("Split", ["x"], outs, name="split", axis=0)
    return (model([node], [vi("x", [n, 4])], [vi(o, [1, 4]) for o in outs]), {"x": x},
            {o: x[i:i + 1] for i, o in enumerate(outs)})


def rank24(_):
    shape = [2] * 24
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    node = helper.make_node("Relu", ["x"], ["y"], name="relu")
    return model([node], [vi("x", shape)], [vi("y", shape)]), {"x": x}, {"y": np.maximum(x, 0)}


CASES = {"add_chain": add_chain, "concat": concat, "split": split, "rank24": rank24}


def timed(cmd, cwd):
    start = time.monotonic()
    p = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - start
    err = p.stderr.read().decode(errors="replace")
    p.stderr.close()
    p.returncode = os.waitstatus_to_exitcode(status)
    return p.returncode, wall, ru.ru_maxrss * 1024, err


def check(dlc, d: Path, inputs, expected):
    args = [dlc, "run", "model.so", "--output-dir", "out"]
    for name, value in inputs.items():
        np.save(d / f"{name}.npy", value)
        args += ["--input", f"{name}={name}.npy"]
    p = subprocess.run(args, cwd=d, capture_output=True, text=True)
    if p.returncode != 0:
        return f"dlc run failed: {p.stderr.strip()}"
    worst = 0.0
    for name, ref in expected.items():
        got = np.load(d / "out" / f"{name}.npy")
        worst = max(worst, float(np.max(np.abs(got - ref))) if ref.size else 0.0)
    return None if worst <= 1e-5 else f"max abs error {worst:g} > 1e-5"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dlc", default="build/bin/dlc")
    ap.add_argument("--cases", default=",".join(CASES))
    ap.add_argument("--n", default="", help="sizes, e.g. add_chain=20000,split=2000")
    ap.add_argument("--check", action="store_true", help="also run each model and compare")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directories")
    args = ap.parse_args(argv)
    sizes = dict(DEFAULT_N)
    for item in filter(None, args.n.split(",")):
        k, v = item.split("=")
        sizes[k] = int(v)
    dlc = os.path.abspath(args.dlc)
    failed = 0
    for name in args.cases.split(","):
        d = Path(tempfile.mkdtemp(prefix=f"dlc_scale_{name}_"))
        m, inputs, expected = CASES[name](sizes[name])
        onnx.save(m, d / "model.onnx")
        rc, wall, rss, err = timed([dlc, "compile", "model.onnx", "-o", "model.so"], d)
        ok = rc == 0 and wall <= LIMIT_S and rss <= LIMIT_BYTES
        note = "" if rc == 0 else f"  exit {rc}: {err.strip().splitlines()[-1] if err.strip() else ''}"
        if ok and args.check:
            why = check(dlc, d, inputs, expected)
            ok = why is None
            note += "  check: " + (why or "outputs match NumPy")
        failed += not ok
        print(f"{'PASS' if ok else 'FAIL'} {name:<10} N={sizes[name]:<7} compile {wall:6.1f} s "
              f"peak RSS {rss / 2**20:7.0f} MiB{note}", flush=True)
        if not args.keep:
            subprocess.run(["rm", "-rf", str(d)])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

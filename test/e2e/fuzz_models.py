#!/usr/bin/env python3
# Robustness: mutated ONNX models must make `dlc compile` exit 0 or 1 with a one-line error, never crash.
"""Mutation fuzzing of the ONNX importer and compiler through the dlc CLI.

Two kinds of mutants of the small models in models.py, with a fixed seed:
  * byte-level: flipped bytes, truncation, inserted garbage (the protobuf parser's job);
  * structural: valid protobuf with wrong attribute types/values, negative or huge dims,
    shuffled node order, dangling or duplicated names, wrong initializer sizes.
Each mutant is compiled with `dlc compile`; the run fails if dlc dies from a signal,
exits with a code other than 0/1, or exits 1 without exactly one `error:` line.

usage: fuzz_models.py --dlc build/bin/dlc [--count N] [--seed S]
"""
import argparse
import random
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnx import helper as h

sys.path.insert(0, str(Path(__file__).resolve().parent))
import models  # noqa: E402
from cli_errors import crash_markers  # noqa: E402

BASES = ["add_broadcast", "softmax", "conv_depthwise", "transpose_reshape", "reduce_mean",
         "reduce_mean_op18", "mlp_b1", "lenet5"]


def mutate_bytes(data: bytes, rng: random.Random) -> bytes:
    b = bytearray(data)
    kind = rng.randrange(3)
    if kind == 0:
        for _ in range(rng.randint(1, 8)):
            b[rng.randrange(len(b))] = rng.randrange(256)
    elif kind == 1:
        b = b[: rng.randrange(len(b))]
    else:
        pos = rng.randrange(len(b))
        b[pos:pos] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 16)))
    return bytes(b)


def mutate_structure(m: onnx.ModelProto, rng: random.Random) -> onnx.ModelProto:
    m = onnx.ModelProto.FromString(m.SerializeToString())
    g = m.graph
    kind = rng.randrange(8)
    if kind == 0 and g.node:  # attribute of the wrong type or a wild value
        n = rng.choice(list(g.node))
        if n.attribute:
            a = rng.choice(list(n.attribute))
            a.type = rng.choice([1, 2, 3, 6, 7])
            a.i = rng.choice([-(2**40), -7, -1, 0, 2**40])
            del a.ints[:]
            a.ints.extend(rng.choice([[], [-1], [0, 0, 0, 0, 0], [2**31] * 3]))
        else:
            n.attribute.append(h.make_attribute("axis", rng.choice([-100, 100])))
    elif kind == 1 and g.input:  # negative, zero or huge input dims
        t = rng.choice(list(g.input)).type.tensor_type
        if t.shape.dim:
            rng.choice(list(t.shape.dim)).dim_value = rng.choice([-5, 0, 2**40])
    elif kind == 2 and len(g.node) > 1:  # break the topological order
        nodes = list(g.node)
        rng.shuffle(nodes)
        del g.node[:]
        g.node.extend(nodes)
    elif kind == 3 and g.node:  # dangling input name
        n = rng.choice(list(g.node))
        if n.input:
            n.input[rng.randrange(len(n.input))] = "no_such_value"
    elif kind == 4 and g.initializer:  # initializer data of the wrong size
        t = rng.choice(list(g.initializer))
        if t.raw_data:
            t.raw_data = t.raw_data[: len(t.raw_data) // 2]
        else:
            t.dims.append(3)
    elif kind == 5 and g.node:  # op type swapped for another (arity/semantics mismatch)
        rng.choice(list(g.node)).op_type = rng.choice(
            ["Conv", "MatMul", "Reshape", "Gather", "Concat", "Split", "Slice", "Pad",
             "MaxPool", "Softmax", "LayerNormalization", "Gemm", "Transpose", "NoSuchOp"])
    elif kind == 6 and g.initializer:  # wrong element type on an initializer
        t = rng.choice(list(g.initializer))
        t.data_type = rng.choice([0, 2, 7, 8, 9, 17, 100])
    else:  # outputs: removed, duplicated or renamed
        if g.output:
            g.output[0].name = rng.choice(["", "no_such_value", g.input[0].name if g.input else "x"])
    return m


def check(dlc: str, path: Path, out: Path) -> str:
    try:
        r = subprocess.run([dlc, "compile", str(path), "-o", str(out)], capture_output=True,
                           text=True, errors="replace", timeout=120)
    except subprocess.TimeoutExpired:
        return "timeout"
    if r.returncode < 0:
        return f"killed by signal {-r.returncode}: {r.stderr.strip()[:300]}"
    crash = crash_markers(r.stderr)
    if crash:  # e.g. a sanitizer report (scripts/test --sanitize), whatever the exit code
        return f"crash ({', '.join(crash)}), exit code {r.returncode}: {r.stderr.strip()[:2000]}"
    if r.returncode not in (0, 1):
        return f"exit code {r.returncode}: {r.stderr.strip()[:300]}"
    if r.returncode == 1:
        lines = [l for l in r.stderr.splitlines() if l.strip()]
        if len(lines) != 1 or not lines[0].startswith("error: "):
            return f"expected one 'error:' line, got: {r.stderr.strip()[:300]}"
    return ""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dlc", required=True)
    ap.add_argument("--count", type=int, default=120)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    rng = random.Random(args.seed)
    bases = {name: models.MODELS[name](0)[0] for name in BASES}
    failures = 0
    with tempfile.TemporaryDirectory(prefix="dlc_fuzz_") as tmp:
        tmp = Path(tmp)
        for i in range(args.count):
            name = rng.choice(BASES)
            path = tmp / f"m{i}.onnx"
            if i % 2:
                path.write_bytes(mutate_bytes(bases[name].SerializeToString(), rng))
            else:
                path.write_bytes(mutate_structure(bases[name], rng).SerializeToString())
            problem = check(args.dlc, path, tmp / "out.so")
            if problem:
                failures += 1
                keep = Path(tempfile.gettempdir()) / f"dlc_fuzz_fail_{args.seed}_{i}.onnx"
                keep.write_bytes(path.read_bytes())
                print(f"FAIL mutant {i} of {name}: {problem} (kept as {keep})")
    print(f"{args.count - failures}/{args.count} mutants handled cleanly")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

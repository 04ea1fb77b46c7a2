#!/usr/bin/env python3
# Seed corpora for the libFuzzer targets of test/fuzz, generated (nothing binary is committed).
"""Write seed inputs for every fuzz target into OUTDIR/<target>/.

Usage:  make_seeds.py OUTDIR [--conformance-data build/conformance/data]

  fuzz-npy          .npy files of every dtype the reader takes, ranks 0-4, versions 1-3
  fuzz-npz          np.savez and np.savez_compressed archives
  fuzz-tensorproto  TensorProto / SequenceProto / OptionalProto files (first byte: kind)
  fuzz-module       module descriptors, and a sealed tiny body
  fuzz-onnx         the ONNX node-test models (conformance data) and test/e2e models
  fuzz-dlc-opt      every .mlir file under test/
"""
from __future__ import annotations

import argparse
import io
import sys
from pathlib import Path

import numpy as np
import onnx
from onnx import helper, numpy_helper

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "test" / "e2e"))

DTYPES = [np.float32, np.float64, np.float16, np.int8, np.int16, np.int32, np.int64,
          np.uint8, np.uint16, np.uint32, np.uint64, np.bool_]
SHAPES = [(), (0,), (3,), (2, 3), (1, 2, 0, 2), (2, 1, 2, 3)]


def arrays():
    rng = np.random.default_rng(0)
    for dt in DTYPES:
        for shape in SHAPES:
            yield (rng.standard_normal(shape) * 10).astype(dt)


def npy_bytes(a, version=None) -> bytes:
    f = io.BytesIO()
    if version is None:
        np.save(f, a)
    else:
        np.lib.format.write_array(f, a, version=version)
    return f.getvalue()


def write(out: Path, target: str, name: str, data: bytes):
    d = out / target
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_bytes(data)


def seed_npy(out):
    for i, a in enumerate(arrays()):
        write(out, "fuzz-npy", f"a{i}.npy", npy_bytes(a))
    for v in [(1, 0), (2, 0), (3, 0)]:
        write(out, "fuzz-npy", f"v{v[0]}.npy", npy_bytes(np.arange(6, dtype=np.float32), v))


def seed_npz(out):
    a = list(arrays())
    for i in range(0, len(a), 7):
        for compressed in (False, True):
            f = io.BytesIO()
            (np.savez_compressed if compressed else np.savez)(
                f, features=a[i], labels=a[(i + 1) % len(a)])
            write(out, "fuzz-npz", f"z{i}_{int(compressed)}.npz", f.getvalue())


def seed_tensorproto(out):
    for i, a in enumerate(arrays()):
        t = numpy_helper.from_array(a, f"t{i}")
        write(out, "fuzz-tensorproto", f"t{i}.pb", b"\0" + t.SerializeToString())
        if i % 5 == 0:
            seq = numpy_helper.from_list([a, a], f"s{i}")
            write(out, "fuzz-tensorproto", f"s{i}.pb", b"\1" + seq.SerializeToString())
            opt = numpy_helper.from_optional(a, f"o{i}")
            write(out, "fuzz-tensorproto", f"o{i}.pb", b"\2" + opt.SerializeToString())
    write(out, "fuzz-tensorproto", "none.pb",
          b"\2" + numpy_helper.from_optional(None, "n").SerializeToString())


def seed_module(out):
    import module_seal
    texts = [
        "dlc-module 1\ninput x 1 2 1 784\noutput logits 1 2 1 10\n",
        "dlc-module 1\ninput a%20b 7 0\nvalue 0100000000000000\noutput y 9 1 3\n",
        "dlc-module 1\ninput x 1 1 2\noutput loss 1 0\nstate fc.weight 1 2 2 3\nstate fc.bias 1 1 2\n",
        "dlc-module 1\ninput e 1 1 0\nvalue -\noutput o 16 3 1 2 3\noutput p 10 0\n",
    ]
    for i, t in enumerate(texts):
        write(out, "fuzz-module", f"d{i}.txt", t.encode())
    write(out, "fuzz-module", "sealed.bin", module_seal.seal(b"\x7fELF" + bytes(60)))


def seed_onnx(out, conformance: Path):
    n = 0
    if conformance.is_dir():
        for model in sorted(conformance.glob("*/model.onnx")):
            if model.stat().st_size <= 64 << 10:
                write(out, "fuzz-onnx", f"{model.parent.name}.onnx", model.read_bytes())
                n += 1
    try:
        from models import MODELS
        for name, build in MODELS.items():
            try:
                m = build()
                m = m[0] if isinstance(m, tuple) else m
                data = m.SerializeToString()
            except Exception:
                continue
            if len(data) <= 256 << 10:
                write(out, "fuzz-onnx", f"e2e_{name}.onnx", data)
                n += 1
    except ImportError:
        pass
    if n == 0:  # at least one model
        x = helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [2, 3])
        g = helper.make_graph([helper.make_node("Relu", ["x"], ["y"])], "g", [x],
                              [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [2, 3])])
        write(out, "fuzz-onnx", "relu.onnx", helper.make_model(g).SerializeToString())


def seed_dlc_opt(out):
    for i, f in enumerate(sorted((ROOT / "test").rglob("*.mlir"))):
        write(out, "fuzz-dlc-opt", f"{i}_{f.name}", f.read_bytes())


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("outdir", type=Path)
    ap.add_argument("--conformance-data", type=Path, default=ROOT / "build" / "conformance" / "data")
    args = ap.parse_args(argv)
    seed_npy(args.outdir)
    seed_npz(args.outdir)
    seed_tensorproto(args.outdir)
    seed_module(args.outdir)
    seed_onnx(args.outdir, args.conformance_data)
    seed_dlc_opt(args.outdir)
    for d in sorted(args.outdir.iterdir()):
        print(f"{d.name}: {sum(1 for _ in d.iterdir())} seeds")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# Negative end-to-end tests: bad models / bad inputs must make the dlc CLI fail cleanly (exit 1, one "error:" line).
"""Check that the `dlc` CLI rejects bad models and bad inputs cleanly.

Usage::

    bad_inputs.py --dlc build/bin/dlc [--timeout 300] [--keep] [CASE ...]

Each case builds its files in a fresh temporary directory, runs dlc there and
requires:

* exit code exactly 1 (not a signal, not an abort, not 0 or 2),
* the first stderr line starts with ``error:`` and exactly one line does,
* nothing in stderr looks like a crash (stack dumps, "Assertion", "terminate
  called", "Segmentation fault", "LLVM ERROR", ...),
* stderr contains the case's substrings (kept loose: file names, input names,
  and for the unsupported-op cases the node name and op type).

Cases (``*_so`` variants run the same check against an AOT-compiled model,
which needs a working ``dlc compile`` of a trivial model):

  a_missing_file        dlc compile missing.onnx -o x.so
  b_truncated           first half of a valid model's bytes
  c_garbage             4 KiB of random bytes
  d_unsupported_op      Multinomial node named weird_node
  d2_unknown_op         made-up op FrobnicateTensor (default domain) named weird_node
  e_wrong_shape         dlc run model.onnx --input features=<[3,2] array, expects [2,3]>
  f_wrong_dtype         same with a float64 array instead of float32
  g_external_escape     initializer external data at ../escape.bin
  g2_external_absolute  initializer external data at an absolute path
  h_unknown_input       dlc run model.onnx --input bogus_input=x.npy
  e_so, f_so, h_so      e, f, h against model.so
  i_fifo_*              a FIFO (no writer: opening it for reading would block) as the
                        model, an input (.npy, .pb), external data, a module, --data
                        (each must fail within 60 s: "not a regular file")
  m_*                   compiled modules: truncated, bit-flipped, extended, another ABI
                        version, descriptor edited (with and without a recomputed seal),
                        a 2^40-byte embedded-ONNX claim, a foreign library whose
                        constructor must not run
  k_npz_crc, k_npz_bomb  dlc train --data: a member whose CRC-32 fails; members that
                        inflate past --max-memory
  j_*                   outputs: a symlink planted at DIR/out.npy or at -o (its target
                        must stay as it was), -o naming a FIFO (it must stay a FIFO),
                        stdout on /dev/full (the write error is reported)

Prints one line per case; exits 1 if any case fails.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cli_errors import Fail, check_error, save  # noqa: E402
import module_seal  # noqa: E402
from models import IR_VERSION, MODELS  # noqa: E402


def _model(nodes, inputs, outputs, inits=(), opset=17) -> onnx.ModelProto:
    g = helper.make_graph(nodes, "bad_inputs", inputs, outputs, initializer=list(inits))
    m = helper.make_model(g, producer_name="dlc-e2e-bad",
                          opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = IR_VERSION
    return m


def simple_model() -> onnx.ModelProto:
    """features float32[2,3] -> Relu(features + w) -> out float32[2,3]."""
    w = numpy_helper.from_array(np.full((2, 3), 0.5, np.float32), "w")
    nodes = [helper.make_node("Add", ["features", "w"], ["s"], name="add"),
             helper.make_node("Relu", ["s"], ["out"], name="relu")]
    return _model(nodes, [helper.make_tensor_value_info("features", TensorProto.FLOAT, [2, 3])],
                  [helper.make_tensor_value_info("out", TensorProto.FLOAT, [2, 3])], [w])


def nms_model() -> onnx.ModelProto:
    """A valid model whose only node is Multinomial (named weird_node), an ONNX op dlc does
    not implement (random sampling)."""
    f = TensorProto.FLOAT
    node = helper.make_node("Multinomial", ["logits"], ["samples"], name="weird_node",
                            sample_size=3)
    return _model([node], [helper.make_tensor_value_info("logits", f, [1, 10])],
                  [helper.make_tensor_value_info("samples", TensorProto.INT32, [1, 3])], [])


def unknown_op_model() -> onnx.ModelProto:
    """Relu followed by a made-up op FrobnicateTensor in the default domain (named weird_node)."""
    f = TensorProto.FLOAT
    nodes = [helper.make_node("Relu", ["x"], ["r"], name="relu"),
             helper.make_node("FrobnicateTensor", ["r"], ["y"], name="weird_node")]
    return _model(nodes, [helper.make_tensor_value_info("x", f, [2, 3])],
                  [helper.make_tensor_value_info("y", f, [2, 3])])


def external_data_model(location: str) -> onnx.ModelProto:
    """simple_model() whose initializer 'w' is stored as external data at ``location``."""
    m = simple_model()
    w = m.graph.initializer[0]
    w.ClearField("raw_data")
    w.ClearField("float_data")
    w.data_location = TensorProto.EXTERNAL
    for k, v in (("location", location), ("offset", "0"), ("length", str(2 * 3 * 4))):
        e = w.external_data.add()
        e.key, e.value = k, v
    return m


def compile_so(dlc: str, d: Path, timeout: float) -> Path:
    """AOT-compile simple_model() into d/model.so (a precondition of the *_so cases)."""
    onnx_path = save(simple_model(), d / "model.onnx")
    p = subprocess.run([dlc, "compile", str(onnx_path), "-o", str(d / "model.so")], cwd=d,
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       errors="replace", timeout=timeout)
    if p.returncode != 0 or not (d / "model.so").is_file():
        raise Fail(f"precondition: dlc compile of a trivial model failed (exit {p.returncode})\n"
                   + "\n".join("    | " + line for line in p.stderr.strip().splitlines()[:30]))
    return d / "model.so"


def good_input(d: Path) -> Path:
    path = d / "x.npy"
    np.save(path, np.ones((2, 3), np.float32))
    return path


# Each case: (dlc, temp dir, timeout) -> (argv, needles). Files are created in the temp dir.
def case_a(dlc, d, t):
    return [dlc, "compile", "missing.onnx", "-o", "x.so"], ["missing.onnx"]


def case_b(dlc, d, t):
    model, _ = MODELS["lenet5"](0)
    data = model.SerializeToString()
    (d / "truncated.onnx").write_bytes(data[: len(data) // 2])
    return [dlc, "compile", "truncated.onnx", "-o", "x.so"], ["truncated.onnx"]


def case_c(dlc, d, t):
    (d / "garbage.onnx").write_bytes(np.random.default_rng(1234).bytes(4096))
    return [dlc, "compile", "garbage.onnx", "-o", "x.so"], ["garbage.onnx"]


def case_d(dlc, d, t):
    save(nms_model(), d / "nms.onnx")
    return [dlc, "compile", "nms.onnx", "-o", "x.so"], ["weird_node", "Multinomial"]


def case_d2(dlc, d, t):
    save(unknown_op_model(), d / "unknown_op.onnx")
    return [dlc, "compile", "unknown_op.onnx", "-o", "x.so"], ["weird_node", "FrobnicateTensor"]


def _wrong_shape(model_arg, d):
    np.save(d / "wrong_shape.npy", np.ones((3, 2), np.float32))
    return ["run", model_arg, "--input", "features=wrong_shape.npy", "--output-dir", "out"]


def _wrong_dtype(model_arg, d):
    np.save(d / "wrong_dtype.npy", np.ones((2, 3), np.float64))
    return ["run", model_arg, "--input", "features=wrong_dtype.npy", "--output-dir", "out"]


def _unknown_input(model_arg, d):
    good_input(d)
    return ["run", model_arg, "--input", "bogus_input=x.npy", "--output-dir", "out"]


def case_e(dlc, d, t):
    save(simple_model(), d / "model.onnx")
    return [dlc, *_wrong_shape("model.onnx", d)], ["features"]


def case_f(dlc, d, t):
    save(simple_model(), d / "model.onnx")
    return [dlc, *_wrong_dtype("model.onnx", d)], ["features"]


def case_g(dlc, d, t):
    (d / "escape.bin").write_bytes(np.full((2, 3), 0.5, np.float32).tobytes())
    (d / "sub").mkdir()
    save(external_data_model("../escape.bin"), d / "sub" / "model.onnx")
    good_input(d)
    return [dlc, "run", "sub/model.onnx", "--input", "features=x.npy", "--output-dir", "out"], \
        ["escape.bin"]


def case_g2(dlc, d, t):
    target = d / "escape.bin"
    target.write_bytes(np.full((2, 3), 0.5, np.float32).tobytes())
    (d / "sub").mkdir()
    save(external_data_model(str(target.resolve())), d / "sub" / "model.onnx")
    return [dlc, "compile", "sub/model.onnx", "-o", "x.so"], ["escape.bin"]


def case_h(dlc, d, t):
    save(simple_model(), d / "model.onnx")
    return [dlc, *_unknown_input("model.onnx", d)], ["bogus_input"]


def case_e_so(dlc, d, t):
    compile_so(dlc, d, t)
    return [dlc, *_wrong_shape("model.so", d)], ["features"]


def case_f_so(dlc, d, t):
    compile_so(dlc, d, t)
    return [dlc, *_wrong_dtype("model.so", d)], ["features"]


def case_h_so(dlc, d, t):
    compile_so(dlc, d, t)
    return [dlc, *_unknown_input("model.so", d)], ["bogus_input"]


FIFO = {"timeout": 60}  # a hang fails the case in a minute, not after --timeout


def fifo(d: Path, name: str) -> str:
    os.mkfifo(d / name)
    return name


def case_i_fifo_model(dlc, d, t):
    return [dlc, "compile", fifo(d, "fifo.onnx"), "-o", "x.so"], ["fifo.onnx",
                                                                 "not a regular file"], FIFO


def case_i_fifo_npy(dlc, d, t):
    save(simple_model(), d / "model.onnx")
    return [dlc, "run", "model.onnx", "--input", f"features={fifo(d, 'x.npy')}"], \
        ["x.npy", "not a regular file"], FIFO


def case_i_fifo_pb(dlc, d, t):
    save(simple_model(), d / "model.onnx")
    return [dlc, "run", "model.onnx", "--input", f"features={fifo(d, 'x.pb')}"], \
        ["x.pb", "not a regular file"], FIFO


def case_i_fifo_external(dlc, d, t):
    save(external_data_model(fifo(d, "w.bin")), d / "model.onnx")
    return [dlc, "compile", "model.onnx", "-o", "x.so"], ["w.bin", "not a regular file"], FIFO


def case_i_fifo_module(dlc, d, t):
    return [dlc, "run", fifo(d, "fifo.so")], ["fifo.so", "not a regular file"], FIFO


def train_step(dlc, d: Path, t) -> str:
    """simple_model() compiled as a training step (mse on `out`): d/step.so."""
    save(simple_model(), d / "model.onnx")
    subprocess.run([dlc, "compile", "model.onnx", "--train", "--loss=mse:out", "-o", "step.so"],
                   cwd=d, capture_output=True, timeout=t, check=True)
    return "step.so"


def case_i_fifo_data(dlc, d, t):
    return [dlc, "train", train_step(dlc, d, t), "--data", fifo(d, "data.npz"), "--steps", "1"], \
        ["data.npz", "not a regular file"], FIFO


def case_k_npz_crc(dlc, d, t):
    """A data byte of the first member flipped: the zip's CRC-32 no longer matches."""
    arrays = {"features": np.ones((4, 3), np.float32), "labels": np.ones((4, 3), np.float32)}
    np.savez(d / "data.npz", **arrays)
    b = bytearray((d / "data.npz").read_bytes())
    b[b.find(b"\x93NUMPY") + 130] ^= 0xFF
    (d / "data.npz").write_bytes(bytes(b))
    return [dlc, "train", train_step(dlc, d, t), "--data", "data.npz", "--steps", "1",
            "--batch", "2"], \
        ["data.npz", "features.npy", "CRC-32"]


def case_k_npz_bomb(dlc, d, t):
    """100 KB that inflate to 96 MiB, read with --max-memory 16M."""
    zeros = np.zeros((4 << 20, 3), np.float32)
    np.savez_compressed(d / "data.npz", features=zeros, labels=zeros)
    return [dlc, "train", train_step(dlc, d, t), "--data", "data.npz", "--steps", "1",
            "--max-memory", "16M"], ["data.npz", "memory limit"]


def unchanged(path: Path, content: bytes):
    def check():
        if path.read_bytes() != content:
            return f"{path.name} (the symlink's target) was overwritten"
    return check


def case_j_symlink_output(dlc, d, t):
    save(simple_model(), d / "model.onnx")
    (d / "target").write_bytes(b"keep me")
    (d / "out").mkdir()
    (d / "out" / "out.npy").symlink_to("../target")
    return [dlc, "run", "model.onnx", "--input", f"features={good_input(d).name}",
            "--output-dir", "out"], ["out.npy", "symbolic link"], \
        {"after": unchanged(d / "target", b"keep me")}


def case_j_symlink_so(dlc, d, t):
    save(simple_model(), d / "model.onnx")
    (d / "target").write_bytes(b"keep me")
    (d / "link.so").symlink_to("target")
    return [dlc, "compile", "model.onnx", "-o", "link.so"], ["link.so", "symbolic link"], \
        {"after": unchanged(d / "target", b"keep me")}


def case_j_fifo_output(dlc, d, t):
    save(simple_model(), d / "model.onnx")

    def still_fifo():
        if not stat.S_ISFIFO(os.lstat(d / "out.so").st_mode):
            return "out.so (a FIFO) was replaced"
    return [dlc, "compile", "model.onnx", "-o", fifo(d, "out.so")], \
        ["out.so", "not a regular file"], {"after": still_fifo, **FIFO}


def case_j_stdout_full(dlc, d, t):
    save(simple_model(), d / "model.onnx")
    return [dlc, "compile", "model.onnx", "--emit=graph", "-o", "-"], ["standard output"], \
        {"stdout_file": "/dev/full"}


# ---- compiled modules: the seal (runtime/dlc_abi.h) is checked before dlopen ----

def _module_case(dlc, d, t, edit, needles):
    """dlc run on model.so after edit(bytes) -> bytes."""
    so = compile_so(dlc, d, t)
    so.write_bytes(edit(so.read_bytes()))
    return [dlc, "run", "model.so", "--input", f"features={good_input(d).name}"], \
        ["model.so", *needles]


def _flip(at):
    def edit(b):
        b = bytearray(b)
        b[at(len(b))] ^= 0x01
        return bytes(b)
    return edit


def case_m_truncated(dlc, d, t):
    return _module_case(dlc, d, t, lambda b: b[:len(b) // 2], ["not a dlc module"])


def case_m_truncated_seal(dlc, d, t):
    return _module_case(dlc, d, t, lambda b: b[:-1], ["not a dlc module"])


def case_m_bitflip_code(dlc, d, t):
    return _module_case(dlc, d, t, _flip(lambda n: n // 2), ["checksum mismatch"])


def case_m_bitflip_header(dlc, d, t):
    return _module_case(dlc, d, t, _flip(lambda n: 5), ["checksum mismatch"])


def case_m_appended(dlc, d, t):
    return _module_case(dlc, d, t, lambda b: b + b"\0" * 100, ["not a dlc module"])


def case_m_prepended(dlc, d, t):
    return _module_case(dlc, d, t, lambda b: b"\0" + b, ["truncated or extended"])


def case_m_abi_version(dlc, d, t):
    return _module_case(dlc, d, t, lambda b: module_seal.seal(b[:-32], abi_version=7),
                        ["ABI version 7", "recompile"])


def _edit_descriptor(old: bytes, new: bytes):
    def edit(b):
        assert old in b
        return module_seal.reseal(b.replace(old, new, 1))
    return edit


def case_m_descriptor_edited(dlc, d, t):
    """The descriptor edited and the seal recomputed: the descriptor's own checks still hold."""
    return _module_case(dlc, d, t, _edit_descriptor(b"input features 1 2", b"input features 1 X"),
                        ["descriptor line 2", "invalid rank"])


def case_m_descriptor_unedited_seal(dlc, d, t):
    """The same edit without a new seal: the checksum catches it."""
    return _module_case(dlc, d, t, lambda b: b.replace(b"input features 1 2", b"input features 1 X"),
                        ["checksum mismatch"])


def case_m_onnx_claim(dlc, d, t):
    """A training step whose dlc_module_onnx_size claims 2^40 bytes (resealed)."""
    so = d / train_step(dlc, d, t)
    at = module_seal.symbol_offset(so, "dlc_module_onnx_size")
    b = bytearray(so.read_bytes())
    b[at:at + 8] = (1 << 40).to_bytes(8, "little")
    so.write_bytes(module_seal.reseal(bytes(b)))
    return [dlc, "run", so.name, "--input", f"features={good_input(d).name}"], \
        ["step.so", "1099511627776", "more than the whole file"]


def case_m_foreign_library(dlc, d, t):
    """A shared library that is not a dlc module and whose constructor would leave a file:
    it is refused before dlopen could run it."""
    cc = shutil.which("clang-22") or shutil.which("clang") or shutil.which("cc")
    if cc is None:
        raise Fail("no C compiler to build the foreign library")
    (d / "evil.c").write_text('#include <stdio.h>\n'
                              '__attribute__((constructor)) static void ran(void) {\n'
                              '  FILE *f = fopen("constructor_ran", "w"); if (f) fclose(f);\n}\n'
                              'const char dlc_module_descriptor[] = "dlc-module 1\\noutput y 1 0\\n";\n'
                              'int dlc_module_entry(void **b, void *c) { return 0; }\n')
    subprocess.run([cc, "-shared", "-fPIC", "-o", "evil.so", "evil.c"], cwd=d, check=True,
                   capture_output=True, timeout=t)

    def not_run():
        if (d / "constructor_ran").exists():
            return "the foreign library's constructor ran"
    return [dlc, "run", "evil.so"], ["evil.so", "not a dlc module"], {"after": not_run}


CASES = {
    "a_missing_file": case_a,
    "b_truncated": case_b,
    "c_garbage": case_c,
    "d_unsupported_op": case_d,
    "d2_unknown_op": case_d2,
    "e_wrong_shape": case_e,
    "f_wrong_dtype": case_f,
    "g_external_escape": case_g,
    "g2_external_absolute": case_g2,
    "h_unknown_input": case_h,
    "e_so": case_e_so,
    "f_so": case_f_so,
    "h_so": case_h_so,
    **{name[len("case_"):]: fn for name, fn in globals().items()
       if name.startswith(("case_i_", "case_j_", "case_k_", "case_m_"))},
}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dlc", required=True, help="path to the dlc binary")
    ap.add_argument("--timeout", type=float, default=300.0, help="seconds per dlc call")
    ap.add_argument("--keep", action="store_true", help="keep the temporary directories")
    ap.add_argument("cases", nargs="*", metavar="CASE",
                    help=f"cases to run (default: all): {', '.join(CASES)}")
    args = ap.parse_args(argv)

    dlc = os.path.abspath(args.dlc)
    if not (os.path.isfile(dlc) and os.access(dlc, os.X_OK)):
        print(f"error: dlc binary not found or not executable: {args.dlc}", file=sys.stderr)
        return 2
    unknown = [c for c in args.cases if c not in CASES]
    if unknown:
        print(f"error: unknown case(s): {', '.join(unknown)}", file=sys.stderr)
        return 2

    failures = 0
    names = args.cases or list(CASES)
    for name in names:
        d = Path(tempfile.mkdtemp(prefix=f"dlc_bad_{re.sub(r'[^A-Za-z0-9_]', '_', name)}_"))
        try:
            cmd, needles, *rest = CASES[name](dlc, d, args.timeout)
            opts = dict(rest[0]) if rest else {}
            after = opts.pop("after", None)
            timeout = min(args.timeout, opts.pop("timeout", args.timeout))
            line = check_error(cmd, d, needles, timeout, **opts)
            if after and (why := after()):
                raise Fail(why)
            print(f"PASS {name:<22} {line}", flush=True)
        except Fail as e:
            failures += 1
            print(f"FAIL {name:<22} {e}", flush=True)
        finally:
            if args.keep:
                print(f"     kept {d}", flush=True)
            else:
                shutil.rmtree(d, ignore_errors=True)
    print(f"{len(names) - failures}/{len(names)} passed", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())

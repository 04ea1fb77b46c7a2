#!/usr/bin/env python3
# String tensors end to end: models with string inputs, constants and outputs through the
# string ops and data movement, against ONNX Runtime.
"""Check string tensors against ONNX Runtime.

Usage::

    strings.py --dlc build/bin/dlc [--keep]

Each model is compiled once and run on string inputs given as NumPy ``.npy`` files
(UTF-8 text with non-ASCII characters, empty strings) at 1 and 2 threads; every output must
equal ONNX Runtime's exactly (strings compared as Python str). ``errors``: an invalid
regular expression fails the compile naming the node; a number where a string is expected
fails the run naming the input.
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper

S = TensorProto.STRING


def vi(name, dtype, shape):
    return helper.make_tensor_value_info(name, dtype, shape)


def model(nodes, inputs, outputs, inits=(), opset=20):
    g = helper.make_graph(nodes, "m", inputs, outputs, list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    onnx.checker.check_model(m)
    return m


def text_ops():
    """Strings moved (Transpose, Reshape, Gather, Concat, Where) and computed on
    (StringConcat with a constant suffix, Equal against a constant, RegexFullMatch)."""
    suffix = helper.make_tensor("suffix", S, [1], [".txt".encode()])
    target = helper.make_tensor("target", S, [], ["b\u00e9b\u00e9".encode()])
    idx = helper.make_tensor("idx", TensorProto.INT64, [2], [2, 0])
    nodes = [helper.make_node("Transpose", ["words"], ["t"], perm=[1, 0]),
             helper.make_node("Reshape", ["t", "shape"], ["flat"]),
             helper.make_node("Gather", ["flat", "idx"], ["picked"]),
             helper.make_node("StringConcat", ["words", "suffix"], ["files"]),
             helper.make_node("Equal", ["words", "target"], ["is_target"]),
             helper.make_node("RegexFullMatch", ["words"], ["has_digits"], pattern=r"\w*\d+\w*"),
             helper.make_node("Where", ["has_digits", "words", "suffix"], ["chosen"]),
             helper.make_node("Concat", ["picked", "picked"], ["twice"], axis=0)]
    shape = helper.make_tensor("shape", TensorProto.INT64, [1], [-1])
    return model(nodes, [vi("words", S, [2, 3])],
                 [vi("flat", S, [6]), vi("files", S, [2, 3]), vi("is_target", TensorProto.BOOL, [2, 3]),
                  vi("has_digits", TensorProto.BOOL, [2, 3]), vi("chosen", S, [2, 3]),
                  vi("twice", S, [4])],
                 [suffix, target, idx, shape])


def encoders():
    """LabelEncoder both ways: words to ids (unknown words to the default) and ids back to
    words (unknown ids to the default string)."""
    nodes = [helper.make_node("LabelEncoder", ["words"], ["ids"], domain="ai.onnx.ml",
                              keys_strings=["alpha", "b\u00e9b\u00e9", "x42", ""],
                              values_int64s=[10, 20, 30, 40], default_int64=-7),
             helper.make_node("LabelEncoder", ["ids"], ["back"], domain="ai.onnx.ml",
                              keys_int64s=[10, 20, 40], values_strings=["A", "\u00c9", "empty"],
                              default_string="?")]
    g = helper.make_graph(nodes, "m", [vi("words", S, [2, 3])],
                          [vi("ids", TensorProto.INT64, [2, 3]), vi("back", S, [2, 3])])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 20),
                                            helper.make_opsetid("ai.onnx.ml", 3)])
    onnx.checker.check_model(m)
    return m


def normalizer():
    """StringNormalizer: case-insensitive stopwords, then upper case (non-ASCII letters
    included), over a [1, C] input."""
    nodes = [helper.make_node("StringNormalizer", ["row"], ["norm"], case_change_action="UPPER",
                              is_case_sensitive=0, stopwords=["ALPHA", "\u00fc"], locale="C")]
    return model(nodes, [vi("row", S, [1, 6])], [vi("norm", S, [1, None])], opset=17)


def splitter():
    """StringSplit on whitespace (its count without a bound: the runtime grows the output),
    on a delimiter with maxsplit, and the parts joined back with StringConcat."""
    nodes = [helper.make_node("StringSplit", ["words"], ["parts", "counts"]),
             helper.make_node("StringSplit", ["words"], ["halves", "hcounts"], delimiter="\u00e9",
                              maxsplit=1),
             helper.make_node("StringConcat", ["halves", "parts_sep"], ["marked"])]
    sep = helper.make_tensor("parts_sep", S, [1], ["|".encode()])
    return model(nodes, [vi("words", S, [2, 3])],
                 [vi("parts", S, [2, 3, None]), vi("counts", TensorProto.INT64, [2, 3]),
                  vi("halves", S, [2, 3, None]), vi("marked", S, [2, 3, None])], [sep])


def dynamic():
    """Over dynamic dims (--dims n=1..3,m=1..6): StringSplit, LabelEncoder, and
    StringNormalizer with stopwords over the words as one [1, n*m] row."""
    shape = helper.make_tensor("row_shape", TensorProto.INT64, [2], [1, -1])
    nodes = [helper.make_node("StringSplit", ["words"], ["parts", "counts"]),
             helper.make_node("LabelEncoder", ["words"], ["ids"], domain="ai.onnx.ml",
                              keys_strings=["x42", "", "zz"], values_int64s=[7, 8, 9],
                              default_int64=-3),
             helper.make_node("Reshape", ["words", "row_shape"], ["row"]),
             helper.make_node("StringNormalizer", ["row"], ["norm"], case_change_action="LOWER",
                              stopwords=["a1", "x"], locale="C")]
    g = helper.make_graph(nodes, "m", [vi("words", S, ["n", "m"])],
                          [vi("parts", S, ["n", "m", None]), vi("counts", TensorProto.INT64, ["n", "m"]),
                           vi("ids", TensorProto.INT64, ["n", "m"]), vi("norm", S, [1, None])],
                          [shape])
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 20),
                                            helper.make_opsetid("ai.onnx.ml", 4)])
    onnx.checker.check_model(m)
    return m


INPUTS = [
    np.array([["alpha", "b\u00e9b\u00e9", "x42"], ["", "\u65e5\u672c\u8a9e", "b\u00e9b\u00e9"]]),
    np.array([["a1", "", "zz"], ["9", "b\u00e9b\u00e9 ", "\u00fc"]]),
    # Runs of spaces, more parts. (Only spaces: ONNX Runtime splits on ' ' alone, where
    # ONNX's reference, and dlc, split on all whitespace as Python's str.split does.)
    np.array([[" one  two   three ", "a b  c d e f", "  "],
              ["\u00e9\u00e9x\u00e9", "x", "long text with many many words in it"]]),
]


DYNAMIC_SHAPES = [(2, 3), (3, 2), (1, 6)]


def run(cmd, cwd):
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=600)


def check_model(dlc, work, name, m, dims=None):
    """`dims`: compile with --dims and run each input in the shapes of `DYNAMIC_SHAPES`."""
    d = work / name
    d.mkdir()
    onnx.save(m, d / "model.onnx")
    r = run([dlc, "compile", "model.onnx", "-o", "model.so", *(["--dims", dims] if dims else [])], d)
    if r.returncode:
        return f"compile failed: {r.stderr.strip()}"
    sess = ort.InferenceSession(str(d / "model.onnx"), providers=["CPUExecutionProvider"])
    shaped = [w.reshape(shape) for w in INPUTS for shape in DYNAMIC_SHAPES] if dims else [
        w.reshape([x.dim_value for x in m.graph.input[0].type.tensor_type.shape.dim])
        for w in INPUTS]
    for k, words in enumerate(shaped):
        name = m.graph.input[0].name
        refs = sess.run(None, {name: words.astype(object)})
        np.save(d / "words.npy", words)
        for threads in (1, 2):
            out = d / f"out_{k}_{threads}"
            r = run([dlc, "run", "model.so", "--input", f"{name}=words.npy", "--threads",
                     str(threads), "--output-dir", str(out)], d)
            if r.returncode:
                return f"run {k} failed: {r.stderr.strip()}"
            for o, ref in zip(m.graph.output, refs):
                got = np.load(out / f"{o.name}.npy")
                ref = np.asarray(ref)
                if ref.dtype == object:
                    ref = ref.astype(str)
                if got.shape != ref.shape or not np.array_equal(got, ref):
                    return f"{o.name} on input {k}: got {got!r}, expected {ref!r}"
    return None


def check_errors(dlc, work):
    d = work / "errors"
    d.mkdir()
    bad = model([helper.make_node("RegexFullMatch", ["s"], ["y"], pattern="a(b", name="matcher")],
                [vi("s", S, [2])], [vi("y", TensorProto.BOOL, [2])])
    onnx.save(bad, d / "bad.onnx")
    r = run([dlc, "compile", "bad.onnx", "-o", "bad.so"], d)
    want = ["node 'matcher'", "invalid pattern 'a(b'"]
    if r.returncode != 1 or any(w not in r.stderr for w in want):
        return f"bad pattern: exit {r.returncode}, stderr {r.stderr!r}, expected {want}"
    onnx.save(text_ops(), d / "ok.onnx")
    if run([dlc, "compile", "ok.onnx", "-o", "ok.so"], d).returncode:
        return "compiling ok.onnx failed"
    np.save(d / "numbers.npy", np.zeros((2, 3), np.float32))
    r = run([dlc, "run", "ok.so", "--input", "words=numbers.npy"], d)
    want = ["input 'words'", "expected dtype string, got f32"]
    if r.returncode != 1 or any(w not in r.stderr for w in want):
        return f"numbers for strings: exit {r.returncode}, stderr {r.stderr!r}, expected {want}"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dlc", required=True)
    ap.add_argument("--keep", action="store_true")
    args = ap.parse_args()
    dlc = str(Path(args.dlc).resolve())
    work = Path(tempfile.mkdtemp(prefix="dlc-strings-"))
    failures = 0
    try:
        for name, check in [("text_ops", lambda dlc, work: check_model(dlc, work, "text_ops",
                                                                       text_ops())),
                            ("encoders", lambda dlc, work: check_model(dlc, work, "encoders",
                                                                       encoders())),
                            ("normalizer", lambda dlc, work: check_model(dlc, work, "normalizer",
                                                                         normalizer())),
                            ("splitter", lambda dlc, work: check_model(dlc, work, "splitter",
                                                                       splitter())),
                            ("dynamic", lambda dlc, work: check_model(
                                dlc, work, "dynamic", dynamic(), dims="n=1..3,m=1..6")),
                            ("errors", check_errors)]:
            msg = check(dlc, work)
            print(f"{'FAIL' if msg else 'ok  '} {name}" + (f": {msg}" if msg else ""), flush=True)
            failures += bool(msg)
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()

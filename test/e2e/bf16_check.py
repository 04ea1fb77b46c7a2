#!/usr/bin/env python3
# dlc compile --precision=bf16 against ONNX Runtime running the same model with each
# contraction input cast to bf16 and back (the meaning of "bf16 inputs, f32 accumulation").
"""Check ``dlc compile --precision=bf16`` on networks of models.py.

usage: bf16_check.py --dlc build/bin/dlc [MODEL ...]

The reference is the model with ``Cast(to=BFLOAT16) -> Cast(to=FLOAT)`` inserted before
both inputs of every MatMul, Gemm (A and B) and Conv (X and W) that reads a constant weight,
run by ONNX Runtime with graph optimizations off: round to nearest even, as dlc's
``dlc-bf16-contractions`` rounds. (Products of two activations, attention's, stay f32 in
both: dlc keeps attention f32.) Per model:

* dlc bf16 vs dlc running that reference model (its Casts through the importer, not the
  pass): <= 1e-5 (the same kernels). On a CPU with AVX512-BF16, dlc bf16 runs vdpbf16ps,
  which adds each pair of products in its own order (20 % of a plain product's results
  differ from the f32 kernels' in the last bit), so the bound there is 2e-3, as against
  another engine (below);
* dlc bf16 vs ONNX Runtime on it: <= 2e-3. Not ~1e-6: a value that float differences
  between the engines (accumulation order, GELU's erf) move across a bf16 rounding
  boundary rounds one bf16 ulp (2^-8) apart in the next layer's input (`dlc verify`
  names such single elements), and that propagates;
* dlc bf16 vs ORT fp32: the rounding shows (> 1e-4) but stays small (< 0.05);
* ``--precision`` with another value is an error (exit 1, one line).

``--forms M,...`` also compiles each listed model (CNNs with BatchNorm and strided convs
too: whose folded weights the reference above cannot round the same way) with
``DLC_BF16_DOT_FORM=dot`` (vdpbf16ps's weight form, any x86) and ``=none`` (f32 kernels
over bf16 weights): the dot form must be chosen (``--dump-config``) and both must agree
within 1e-5 at 2 threads (2e-3 where vdpbf16ps runs natively, as above).
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
from onnx import helper

sys.path.insert(0, str(Path(__file__).resolve().parent))
from models import MODELS, sanitize_name  # noqa: E402

CASES = ["mlp_b64", "lenet5", "bert_layer", "gpt2_block"]
RTOL_REF = 2e-3


def native_bf16_dot() -> bool:
    """Whether this CPU runs vdpbf16ps itself (AVX512-BF16) rather than dlc's f32 emulation
    of it, whose sums follow the f32 kernels' order."""
    try:
        return any(line.startswith("flags") and " avx512_bf16" in line
                   for line in Path("/proc/cpuinfo").read_text().splitlines())
    except OSError:
        return False


RTOL_SAME = RTOL_REF if native_bf16_dot() else 1e-5


def rounded_reference(model: onnx.ModelProto) -> onnx.ModelProto:
    m = onnx.ModelProto()
    m.CopyFrom(model)
    inits = {t.name for t in m.graph.initializer}
    nodes = []
    for n in m.graph.node:
        if n.op_type in ("MatMul", "Gemm", "Conv") and len(n.input) > 1 and (
                n.input[0] in inits or n.input[1] in inits):
            for i in (0, 1):
                src = n.input[i]
                narrow, wide = f"{src}_{n.name}_bf16", f"{src}_{n.name}_rounded"
                nodes.append(helper.make_node("Cast", [src], [narrow],
                                              to=onnx.TensorProto.BFLOAT16))
                nodes.append(helper.make_node("Cast", [narrow], [wide], to=onnx.TensorProto.FLOAT))
                n.input[i] = wide
        nodes.append(n)
    del m.graph.node[:]
    m.graph.node.extend(nodes)
    return m


def ort_run(model: onnx.ModelProto, feeds):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.log_severity_level = 3
    so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    sess = ort.InferenceSession(model.SerializeToString(), so, providers=["CPUExecutionProvider"])
    return sess.run(None, feeds)


def rel(a, b) -> float:
    a, b = a.astype(np.float64), b.astype(np.float64)
    return float(np.abs(a - b).max() / max(np.abs(b).max(), 1e-12))


def prepare(d: Path, name: str):
    """MODELS[name] and its inputs saved in a new folder `d`: (model, inputs, model file,
    `dlc run` --input arguments)."""
    model, inputs = MODELS[name](0)
    d.mkdir()
    src = d / "model.onnx"
    onnx.save(model, src)
    files = []
    for k, v in inputs.items():
        f = d / f"in_{sanitize_name(k)}.npy"
        np.save(f, v)
        files += ["--input", f"{k}={f}"]
    return model, inputs, src, files


def check(dlc: str, work: Path, name: str) -> str:
    d = work / name
    model, inputs, src, files = prepare(d, name)
    so = d / "bf16.so"
    p = subprocess.run([dlc, "compile", str(src), "--precision=bf16", "-o", str(so)],
                       capture_output=True, text=True, timeout=900)
    if p.returncode:
        raise RuntimeError(f"dlc compile --precision=bf16 exited {p.returncode}: {p.stderr[-300:]}")
    p = subprocess.run([dlc, "run", str(so), *files, "--output-dir", str(d / "out")],
                       capture_output=True, text=True, timeout=900)
    if p.returncode:
        raise RuntimeError(f"dlc run exited {p.returncode}: {p.stderr[-300:]}")
    reference = rounded_reference(model)
    onnx.save(reference, d / "reference.onnx")
    p = subprocess.run([dlc, "run", str(d / "reference.onnx"), *files, "--output-dir",
                        str(d / "ref")], capture_output=True, text=True, timeout=900)
    if p.returncode:
        raise RuntimeError(f"dlc run of the reference exited {p.returncode}: {p.stderr[-300:]}")
    ref = ort_run(reference, inputs)
    fp32 = ort_run(model, inputs)
    worst_same = worst_ref = worst_fp32 = 0.0
    for o, r, f in zip(model.graph.output, ref, fp32):
        got = np.load(d / "out" / f"{sanitize_name(o.name)}.npy")
        same = np.load(d / "ref" / f"{sanitize_name(o.name)}.npy")
        worst_same = max(worst_same, rel(got, same))
        worst_ref, worst_fp32 = max(worst_ref, rel(got, r)), max(worst_fp32, rel(got, f))
    if worst_same > RTOL_SAME:
        raise RuntimeError(f"vs dlc on the bf16-rounded reference {worst_same:.3g} > {RTOL_SAME}")
    if worst_ref > RTOL_REF:
        raise RuntimeError(f"vs ORT on the bf16-rounded reference {worst_ref:.3g} > {RTOL_REF}")
    if not 1e-4 < worst_fp32 < 0.05:
        raise RuntimeError(f"vs fp32 {worst_fp32:.3g}: the rounding does not show, or too much")
    return (f"vs dlc on the rounded reference {worst_same:.1e}, vs ORT on it {worst_ref:.2e}, "
            f"vs fp32 ORT {worst_fp32:.2e}")


def form_check(dlc: str, work: Path, name: str) -> str:
    d = work / f"forms_{name}"
    model, _, src, files = prepare(d, name)
    outs = {}
    for form in ("dot", "none"):
        env = dict(os.environ, DLC_BF16_DOT_FORM=form)
        so = d / f"{form}.so"
        p = subprocess.run([dlc, "compile", str(src), "--precision=bf16", "--dump-config",
                            "-o", str(so)], capture_output=True, text=True, timeout=900, env=env)
        if p.returncode:
            raise RuntimeError(f"dlc compile (form {form}) exited {p.returncode}: "
                               f"{p.stderr[-300:]}")
        kernels = p.stderr.count("(bf16 pairs, vdpbf16ps)")
        if (kernels > 0) != (form == "dot"):
            raise RuntimeError(f"form {form}: {kernels} vdpbf16ps kernels in --dump-config")
        p = subprocess.run([dlc, "run", str(so), *files, "--threads", "2", "--output-dir",
                            str(d / form)], capture_output=True, text=True, timeout=900)
        if p.returncode:
            raise RuntimeError(f"dlc run (form {form}) exited {p.returncode}: {p.stderr[-300:]}")
        outs[form] = [np.load(d / form / f"{sanitize_name(o.name)}.npy")
                      for o in model.graph.output]
        if form == "dot":
            count = kernels
    worst = max(rel(a, b) for a, b in zip(outs["dot"], outs["none"]))
    if worst > RTOL_SAME:
        raise RuntimeError(f"dot form vs f32 kernels {worst:.3g} > {RTOL_SAME}")
    return f"{count} vdpbf16ps-form kernels, vs the f32 kernels over bf16 weights {worst:.1e}"


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dlc", required=True)
    p.add_argument("--forms", default="", help="models to check in both weight forms")
    p.add_argument("models", nargs="*")
    args = p.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="dlc-bf16-"))
    failed = 0
    try:
        for name in args.models or CASES:
            try:
                print(f"ok   {name}: {check(args.dlc, work, name)}", flush=True)
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                failed += 1
                print(f"FAIL {name}: {e}", flush=True)
        for name in filter(None, args.forms.split(",")):
            try:
                print(f"ok   {name} forms: {form_check(args.dlc, work, name)}", flush=True)
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                failed += 1
                print(f"FAIL {name} forms: {e}", flush=True)
        model, _ = MODELS["mlp_b64"](0)
        onnx.save(model, work / "m.onnx")
        p = subprocess.run([args.dlc, "compile", str(work / "m.onnx"), "--precision=fp16", "-o",
                            str(work / "m.so")], capture_output=True, text=True)
        lines = [l for l in p.stderr.splitlines() if l.strip()]
        if p.returncode != 1 or len(lines) != 1 or "--precision expects fp32 or bf16" not in lines[0]:
            failed += 1
            print(f"FAIL --precision=fp16: exit {p.returncode}, {p.stderr!r}")
        else:
            print("ok   --precision=fp16 rejected")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

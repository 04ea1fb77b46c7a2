#!/usr/bin/env python3
"""dlc quantize against ONNX Runtime's quantize_static, side by side on one float model.

``python bench/ptq_agreement.py MODEL.onnx [--dlc build/bin/dlc] [--calib 64] [--inputs 500]
[--method minmax] [--dlc-runs 100]``

Draws ``--calib`` calibration inputs and ``--inputs`` evaluation inputs (standard normal,
the model's input shape, different seeds), then quantizes MODEL twice with the same
calibration set:

* ``dlc quantize --per-channel`` (u8 activations per tensor, s8 weights per channel);
* ONNX Runtime's recipe of test/e2e/quantize.py (quant_pre_process, quantize_static to
  QDQ, per-channel s8 weights, u8 activations, min-max).

It prints each quantized model's top-1 agreement with the float model (ONNX Runtime, all
optimizations: the int8 kernels a user gets) over the evaluation inputs, and, on the
first ``--dlc-runs`` of them, how dlc's own run of the dlc-quantized model agrees with
ONNX Runtime's run of it (top-1 and max |dlc - ORT| / max |ORT|). By hand, like the rest
of bench/ (issue 18's dlc quantize line); torchvision exports: bench/quant_exports.py.
"""
import argparse
import importlib.util
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort

ROOT = Path(__file__).resolve().parent.parent


def session(path, optimize=True):
    so = ort.SessionOptions()
    so.log_severity_level = 3
    if not optimize:
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    return ort.InferenceSession(str(path), so, providers=["CPUExecutionProvider"])


def top1(y):
    return np.argmax(y.reshape(-1, y.shape[-1]), -1)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("model")
    p.add_argument("--dlc", default=str(ROOT / "build/bin/dlc"))
    p.add_argument("--calib", type=int, default=64)
    p.add_argument("--inputs", type=int, default=500)
    p.add_argument("--method", default="minmax")
    p.add_argument("--dlc-runs", type=int, default=100)
    args = p.parse_args()
    spec = importlib.util.spec_from_file_location("e2e_quantize", ROOT / "test/e2e/quantize.py")
    recipes = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(recipes)

    fp32 = session(args.model)
    inp = fp32.get_inputs()[0]
    shape = [d if isinstance(d, int) else 1 for d in inp.shape]
    rng = np.random.default_rng(1000)
    calib = np.stack([rng.standard_normal(shape).astype(np.float32) for _ in range(args.calib)])
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        np.savez(tmp / "calib.npz", **{inp.name: calib})
        dlc_q, ort_q = tmp / "dlc_int8.onnx", tmp / "ort_int8.onnx"
        t0 = time.perf_counter()
        subprocess.run([args.dlc, "quantize", args.model, "--calib", str(tmp / "calib.npz"),
                        "-o", str(dlc_q), "--per-channel", f"--method={args.method}", "-q"],
                       check=True)
        t_dlc = time.perf_counter() - t0
        recipes.CALIBRATION_INPUTS = args.calib
        # quantize_static's reader over exactly this calibration set
        recipes.calibration = lambda inputs, seed: [{inp.name: c} for c in calib]
        t0 = time.perf_counter()
        model = recipes.quantize_static_qdq(onnx.load(args.model), {inp.name: calib[0]}, seed=0)
        t_ort = time.perf_counter() - t0
        onnx.save(model, ort_q)
        sess_dlc_q, sess_ort_q = session(dlc_q), session(ort_q)
        so = tmp / "dlc_int8.so"
        subprocess.run([args.dlc, "compile", str(dlc_q), "-o", str(so)], check=True)
        agree = {"ort_tool": 0, "dlc_tool": 0}
        dlc_agree, dlc_worst, dlc_runs = 0, 0.0, 0
        for i in range(args.inputs):
            x = np.random.default_rng(i).standard_normal(shape).astype(np.float32)
            ref = top1(fp32.run(None, {inp.name: x})[0])
            y_ort = sess_ort_q.run(None, {inp.name: x})[0]
            y_dlc = sess_dlc_q.run(None, {inp.name: x})[0]
            agree["ort_tool"] += int((top1(y_ort) == ref).all())
            agree["dlc_tool"] += int((top1(y_dlc) == ref).all())
            if i < args.dlc_runs:
                np.save(tmp / "x.npy", x)
                subprocess.run([args.dlc, "run", str(so), "--input", f"{inp.name}={tmp / 'x.npy'}",
                                "--output-dir", str(tmp / "out")], check=True,
                               stdout=subprocess.DEVNULL)
                out = next((tmp / "out").glob("*.npy"))
                got = np.load(out).astype(np.float64)
                dlc_agree += int((top1(got) == top1(y_dlc)).all())
                dlc_worst = max(dlc_worst, float(np.abs(got - y_dlc).max() /
                                                 np.abs(y_dlc).max()))
                dlc_runs += 1
        n = args.inputs
        print(f"{args.model}: {args.calib} calibration inputs, {n} evaluation inputs")
        print(f"  top-1 agreement with fp32, ORT quantize_static model (ORT int8): "
              f"{agree['ort_tool']}/{n} ({100.0 * agree['ort_tool'] / n:.1f} %), {t_ort:.1f} s")
        print(f"  top-1 agreement with fp32, dlc quantize --method={args.method} model "
              f"(ORT int8): {agree['dlc_tool']}/{n} ({100.0 * agree['dlc_tool'] / n:.1f} %), "
              f"{t_dlc:.1f} s")
        print(f"  dlc on the dlc-quantized model vs ORT on it: top-1 {dlc_agree}/{dlc_runs}, "
              f"max relative error {dlc_worst:.3g}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

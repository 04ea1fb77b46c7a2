#!/usr/bin/env python3
# By hand (never in CI): dlc --target=cuda against PyTorch (cuBLAS/cuDNN) and ONNX Runtime's CUDA
# provider, on one GPU; see `bench/run --target=cuda --help`.
"""GPU benchmark: ``bench/run --target=cuda [--models a,b] [--runs N] [--arch sm_XX]``.

Each model is a PyTorch module with random weights (torchvision ResNet-18 and MobileNetV2,
a BERT-sized encoder layer, a GPT-2-small-sized encoder layer), exported to ONNX (the
dynamo exporter), compiled with ``dlc compile --target=cuda:ARCH`` (ARCH from the device: sm_80, sm_86,
sm_89, sm_90a for compute capability 9.0) and timed with ``dlc bench``. Peers, measured in
the same run on the same inputs:

* **torch**: the module in eager mode on the GPU (cuBLAS/cuDNN; TF32 matmuls and
  convolutions allowed, as dlc's tensor-core kernels use TF32);
* **ort-cuda**: ONNX Runtime's CUDAExecutionProvider on the exported file, where the
  installed onnxruntime has it (onnxruntime-gpu).

Every engine's latency includes copying the inputs to the device and the outputs back
(what ``dlc bench`` measures through ``dlc_session_run``). dlc's outputs must agree with
torch's within ``max|a-b| / max(max|b|, 1) <= 1e-2`` (TF32 inputs). The table gives medians
and dlc's ratio to each peer (below 1: dlc is faster).

Without a GPU the models are still exported and compiled for ``--arch`` (default sm_80),
which checks the compile path, and the timing is reported as skipped (exit 0).
"""
from __future__ import annotations

import argparse
import ctypes
import json
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
TOL = 1e-2


def gpu_arch() -> tuple[str | None, str]:
    """The device's dlc architecture, or None and why there is none."""
    try:
        cuda = ctypes.CDLL("libcuda.so.1")
    except OSError as e:
        return None, f"cannot load the CUDA driver ({e})"
    count, major, minor = ctypes.c_int(0), ctypes.c_int(0), ctypes.c_int(0)
    if cuda.cuInit(0) != 0 or cuda.cuDeviceGetCount(ctypes.byref(count)) != 0 or count.value == 0:
        return None, "the CUDA driver reports no device"
    dev = ctypes.c_int(0)
    cuda.cuDeviceGet(ctypes.byref(dev), 0)
    cuda.cuDeviceGetAttribute(ctypes.byref(major), 75, dev)  # COMPUTE_CAPABILITY_MAJOR
    cuda.cuDeviceGetAttribute(ctypes.byref(minor), 76, dev)  # COMPUTE_CAPABILITY_MINOR
    cc = major.value * 10 + minor.value
    arch = {80: "sm_80", 86: "sm_86", 87: "sm_86", 89: "sm_89", 90: "sm_90a"}.get(cc)
    if arch is None:
        return ("sm_90", f"compute capability {cc / 10:.1f}: using sm_90 (no wgmma)") if cc > 90 \
            else (None, f"compute capability {cc / 10:.1f} is below sm_80")
    return arch, f"compute capability {cc / 10:.1f}"


def build_models(names: list[str]):
    """name -> (torch module, example input), random weights (seed 0)."""
    import torch
    import torchvision
    torch.manual_seed(0)
    # (The fused encoder-layer kernel of eval mode has no ONNX export.)
    torch.backends.mha.set_fastpath_enabled(False)
    makers = {
        "resnet18": lambda: (torchvision.models.resnet18(), torch.randn(1, 3, 224, 224)),
        "mobilenetv2": lambda: (torchvision.models.mobilenet_v2(), torch.randn(1, 3, 224, 224)),
        "bert_layer": lambda: (torch.nn.TransformerEncoderLayer(256, 4, 1024, dropout=0.0,
                                                                batch_first=True),
                               torch.randn(1, 128, 256)),
        "gpt2_layer": lambda: (torch.nn.TransformerEncoderLayer(768, 12, 3072, dropout=0.0,
                                                                activation="gelu",
                                                                batch_first=True, norm_first=True),
                               torch.randn(1, 128, 768)),
    }
    unknown = [n for n in names if n not in makers]
    if unknown:
        raise SystemExit(f"bench/cuda.py: unknown model(s) {', '.join(unknown)} "
                         f"(known: {', '.join(makers)})")
    return {n: makers[n]() for n in names}


def median_ms(fn, runs: int, warmup: int) -> float:
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1e3)
    return float(np.median(times))


def dlc_bench_ms(text: str) -> float:
    m = re.search(r"median\s+([\d.]+)\s*(us|ms)", text)
    if not m:
        raise RuntimeError(f"cannot read dlc bench's output: {text.strip()[-300:]!r}")
    return float(m.group(1)) / (1e3 if m.group(2) == "us" else 1.0)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--target", default="cuda", help="cuda (what bench/run passes on)")
    ap.add_argument("--models", default="resnet18,mobilenetv2,bert_layer,gpt2_layer")
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--arch", help="dlc architecture (default: the device's; sm_80 without one)")
    ap.add_argument("--dlc", default=str(ROOT / "build" / "bin" / "dlc"))
    ap.add_argument("--work", help="directory for models and artifacts (default: a temp dir)")
    args = ap.parse_args(argv)
    if args.target != "cuda":
        raise SystemExit(f"bench/cuda.py: --target={args.target}: only cuda")
    import onnxruntime as ort
    import torch
    arch, why = gpu_arch()
    device = arch is not None
    arch = args.arch or arch or "sm_80"
    print(f"device: {why}; dlc --target=cuda:{arch}", flush=True)
    work = Path(args.work or tempfile.mkdtemp(prefix="dlc-bench-cuda-"))
    work.mkdir(parents=True, exist_ok=True)
    rows = []
    for name, (module, x) in build_models(args.models.split(",")).items():
        module.eval()
        d = work / name
        d.mkdir(exist_ok=True)
        onnx_path = d / "model.onnx"
        with torch.no_grad():
            torch.onnx.export(module, (x,), str(onnx_path), input_names=["x"],
                              output_names=["y"], dynamo=True, external_data=False)
        so = d / "model.so"
        t = time.perf_counter()
        r = subprocess.run([args.dlc, "compile", str(onnx_path), f"--target=cuda:{arch}", "-o",
                            str(so)], capture_output=True, text=True)
        compile_s = time.perf_counter() - t
        if r.returncode:
            print(f"FAIL {name}: dlc compile: {r.stderr.strip()}")
            rows.append({"model": name, "error": "compile"})
            continue
        row = {"model": name, "compile_s": compile_s}
        if not device:
            print(f"SKIP {name}: compiled in {compile_s:.1f} s; no CUDA device to time on")
            rows.append(row)
            continue
        np.save(d / "x.npy", x.numpy())
        out = d / "out"
        r = subprocess.run([args.dlc, "run", str(so), "--input", f"x={d / 'x.npy'}",
                            "--output-dir", str(out)], capture_output=True, text=True)
        torch.backends.cuda.matmul.allow_tf32 = True
        torch.backends.cudnn.allow_tf32 = True
        gm, gx = module.cuda(), x.cuda()
        with torch.no_grad():
            ref = gm(gx).cpu().numpy()
            if r.returncode == 0:
                y = np.load(out / "y.npy")
                row["err"] = float(np.max(np.abs(y - ref)) / max(np.max(np.abs(ref)), 1.0))
            b = subprocess.run([args.dlc, "bench", str(so), "--input", f"x={d / 'x.npy'}",
                                "--runs", str(args.runs), "--warmup", str(args.warmup)],
                               capture_output=True, text=True)
            row["dlc_ms"] = dlc_bench_ms(b.stdout + b.stderr) if b.returncode == 0 else None
            row["torch_ms"] = median_ms(lambda: gm(x.cuda()).cpu(), args.runs, args.warmup)
        if "CUDAExecutionProvider" in ort.get_available_providers():
            sess = ort.InferenceSession(str(onnx_path), providers=["CUDAExecutionProvider"])
            feed = {"x": x.numpy()}
            row["ort_cuda_ms"] = median_ms(lambda: sess.run(None, feed), args.runs, args.warmup)
        ok = row.get("err") is not None and row["err"] <= TOL and row["dlc_ms"] is not None
        print(f"{'PASS' if ok else 'FAIL'} {name}: {json.dumps(row)}", flush=True)
        rows.append(row)
    print("\n| model | compile s | dlc ms | torch ms | ort-cuda ms | dlc/torch | dlc/ort | err |")
    print("|---|---|---|---|---|---|---|---|")
    fmt = lambda v, f="{:.3f}": "-" if v is None else f.format(v)
    for r in rows:
        ratio = lambda peer: (r["dlc_ms"] / r[peer]) if r.get("dlc_ms") and r.get(peer) else None
        print(f"| {r['model']} | {fmt(r.get('compile_s'), '{:.1f}')} | {fmt(r.get('dlc_ms'))} | "
              f"{fmt(r.get('torch_ms'))} | {fmt(r.get('ort_cuda_ms'))} | "
              f"{fmt(ratio('torch_ms'), '{:.2f}')} | {fmt(ratio('ort_cuda_ms'), '{:.2f}')} | "
              f"{fmt(r.get('err'), '{:.1e}')} |")
    failed = [r for r in rows if r.get("error") or (device and (r.get("err") is None or r["err"] > TOL))]
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# The CUDA target without a GPU: schedules run on the CPU, PTX checked by ptxas, runs on a GPU
# where one exists.
"""Checks ``dlc compile --target=cuda:ARCH`` on the networks of models.py.

Usage::

    cuda.py --dlc build/bin/dlc [--arch sm_80 --arch sm_90a] [--table] [MODEL ...]

For every model (default: all of ``models.MODELS``):

* **schedules on the CPU**: ``--target=cuda:ARCH --cuda-schedule-on-cpu`` compiles the
  kernels' block, warp/warpgroup and thread foralls as CPU loops, the IR the GPU mapping
  starts from, once per lowering family among the ``--arch`` values: sm_80's (ldmatrix +
  mma.sync, also sm_86/89/90's) and sm_90a's (wgmma); both lower the same warpgroup schedule
  today, so the two runs guard against the schedules drifting apart.
  Its outputs must match the CPU target's (``dlc compile`` for this machine) within
  ``err = max|cuda - cpu| / max(max|cpu|, 1) <= 1e-4``, and ONNX Runtime's (CPU provider,
  graph optimizations off) within the model's tolerance of run_e2e.py (1e-4).
* **PTX**: ``--emit=ptx`` for each ``--arch`` (default sm_80 and sm_90a); ``ptxas
  -arch=ARCH -v`` must accept every kernel with 0 spill bytes, at most 255 registers and
  at most 48 KiB of shared memory. ``--table`` prints, per model and arch, the kernel
  count, the most registers and shared memory of any kernel, and instruction counts.
  Without the CUDA toolkit (ptxas, libdevice) this part and the next say so and are
  skipped.
* **On a GPU**: the .so runs (``dlc run``) and must match ONNX Runtime within 1e-4 where a
  device is present; without one, ``dlc run`` must exit 1 with one line ``error: no CUDA
  device: ...`` (checked), and the GPU comparison is reported as skipped.

Exit status 1 if anything failed.
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from models import MODELS, sanitize_name  # noqa: E402
from run_e2e import ort_reference  # noqa: E402

TOL = 1e-4
INSTRUCTIONS = {  # PTX instruction -> the regex that counts it
    "mma.sync": r"\bmma\.sync\b", "wgmma": r"\bwgmma\.mma_async\b",
    "ldmatrix": r"\bldmatrix\b", "shfl.sync": r"\bshfl\.sync\b",
    "ld.global.v4": r"\bld\.global(\.nc)?\.v4\b",
}


def ptxas_path() -> str | None:
    """The toolkit's ptxas, where the toolkit dlc uses ($CUDA_HOME, $CUDA_PATH, $CUDA_ROOT,
    else /usr/local/cuda) has it and libdevice."""
    d = next((os.environ[v] for v in ("CUDA_HOME", "CUDA_PATH", "CUDA_ROOT")
              if os.environ.get(v)), "/usr/local/cuda")
    if Path(d, "bin", "ptxas").is_file() and Path(d, "nvvm", "libdevice", "libdevice.10.bc").is_file():
        return str(Path(d, "bin", "ptxas"))
    return None


def run(cmd: list[str], what: str) -> subprocess.CompletedProcess:
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       errors="replace", timeout=900)
    if p.returncode != 0:
        raise RuntimeError(f"{what}: exit {p.returncode}: {p.stderr.strip()[-600:]}")
    return p


def dlc_outputs(dlc: str, so: Path, inputs: dict, out: Path, names: list[str],
                env=None) -> list[np.ndarray]:
    cmd = [dlc, "run", str(so), "--output-dir", str(out)]
    for k in inputs:
        cmd += ["--input", f"{k}={out.parent / (sanitize_name(k) + '.npy')}"]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       errors="replace", timeout=900, env=env)
    if p.returncode != 0:
        raise RuntimeError(f"dlc run {so.name}: exit {p.returncode}: {p.stderr.strip()}")
    return [np.load(out / f"{sanitize_name(n)}.npy") for n in names]


def error(a: np.ndarray, ref: np.ndarray) -> float:
    if a.shape != ref.shape:
        return float("inf")
    a64, r64 = a.astype(np.float64), ref.astype(np.float64)
    return float(np.max(np.abs(a64 - r64), initial=0.0) / max(np.max(np.abs(r64), initial=0.0), 1.0))


def ptx_stats(ptxas: str, ptx: Path, arch: str) -> dict:
    """ptxas -v over every kernel: count, worst registers/shared/spills; instruction counts."""
    p = subprocess.run([ptxas, f"-arch={arch}", "-v", str(ptx), "-o", os.devnull],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"ptxas -arch={arch} rejected {ptx.name}: {p.stdout.strip()[-800:]}")
    regs = [int(x) for x in re.findall(r"Used (\d+) registers", p.stdout)]
    smem = [int(x) for x in re.findall(r"(\d+) bytes smem", p.stdout)] or [0]
    spills = [int(a) + int(b) for a, b in
              re.findall(r"(\d+) bytes spill stores, (\d+) bytes spill loads", p.stdout)]
    text = ptx.read_text()
    stats = {"kernels": len(re.findall(r"^\.visible \.entry", text, re.M)), "regs": max(regs),
             "smem": max(smem), "spill": sum(spills)}
    stats.update({k: len(re.findall(r, text)) for k, r in INSTRUCTIONS.items()})
    if stats["kernels"] != len(regs):
        raise RuntimeError(f"ptxas reported {len(regs)} kernels of {stats['kernels']}")
    return stats


def schedule_archs(archs: list[str]) -> list[str]:
    """One arch per lowering family among `archs`: sm_90a (wgmma), else sm_80 (mma.sync)."""
    return sorted({"sm_90a" if a == "sm_90a" else "sm_80" for a in archs})


def check_model(name: str, dlc: str, archs: list[str], ptxas: str | None, work: Path,
                table: list) -> list[str]:
    problems = []
    model, inputs = MODELS[name](0)
    d = work / name
    d.mkdir()
    path = d / "model.onnx"
    onnx.save(model, str(path))
    for k, v in inputs.items():
        np.save(d / f"{sanitize_name(k)}.npy", v)
    refs, _ = ort_reference(path, inputs)
    names = [n for n, _ in refs]
    # The CPU target, and the cuda schedules run as CPU loops: for mma.sync (every arch but
    # sm_90a) and for wgmma (sm_90a).
    run([dlc, "compile", str(path), "-o", str(d / "cpu.so")], f"{name}: compile (cpu)")
    cpu = dlc_outputs(dlc, d / "cpu.so", inputs, d / "out_cpu", names)
    for arch in schedule_archs(archs):
        so = d / f"sched-{arch}.so"
        run([dlc, "compile", str(path), f"--target=cuda:{arch}", "--cuda-schedule-on-cpu",
             "-o", str(so)], f"{name}: compile --target=cuda:{arch} --cuda-schedule-on-cpu")
        sched = dlc_outputs(dlc, so, inputs, d / f"out_sched_{arch}", names)
        worst_cpu = max(error(s, c) for s, c in zip(sched, cpu))
        worst_ort = max(error(s, r) for s, (_, r) in zip(sched, refs))
        ok = worst_cpu <= TOL and worst_ort <= TOL
        print(f"{'PASS' if ok else 'FAIL'} {name}: {arch} schedules on the CPU vs CPU target "
              f"{worst_cpu:.2e}, vs ONNX Runtime {worst_ort:.2e} (tolerance {TOL:g})")
        if not ok:
            problems.append(f"{name}: {arch} schedules on the CPU differ (cpu {worst_cpu:.2e}, "
                            f"ort {worst_ort:.2e})")
    if not ptxas:
        return problems  # no toolkit: no PTX (said once, in main)
    # PTX for each architecture, through ptxas.
    for arch in archs:
        ptx = d / f"{arch}.ptx"
        run([dlc, "compile", str(path), f"--target=cuda:{arch}", "--emit=ptx", "-o", str(ptx)],
            f"{name}: --emit=ptx {arch}")
        s = ptx_stats(ptxas, ptx, arch)
        table.append((name, arch, s))
        bad = s["spill"] > 0 or s["regs"] > 255 or s["smem"] > 48 * 1024
        print(f"{'FAIL' if bad else 'PASS'} {name}: ptxas -arch={arch}: {s['kernels']} kernels, "
              f"<= {s['regs']} registers, <= {s['smem']} B shared, {s['spill']} B spilled")
        if bad:
            problems.append(f"{name}: ptxas {arch}: {s}")
    # The module itself: on a GPU it must match; without one it must say so in one line.
    so = d / "cuda.so"
    run([dlc, "compile", str(path), "--target=cuda:sm_80", "-o", str(so)],
        f"{name}: compile --target=cuda:sm_80")
    cmd = [dlc, "run", str(so), "--output-dir", str(d / "out_gpu")]
    for k in inputs:
        cmd += ["--input", f"{k}={d / (sanitize_name(k) + '.npy')}"]
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       errors="replace", timeout=900)
    lines = p.stderr.strip().splitlines()
    if p.returncode == 1 and len(lines) == 1 and lines[0].startswith("error: no CUDA device: "):
        print(f"SKIP {name}: GPU run: {lines[0][len('error: '):]}")
    elif p.returncode == 0:
        gpu = [np.load(d / "out_gpu" / f"{sanitize_name(n)}.npy") for n in names]
        worst = max(error(g, r) for g, (_, r) in zip(gpu, refs))
        print(f"{'PASS' if worst <= TOL else 'FAIL'} {name}: on the GPU vs ONNX Runtime {worst:.2e}")
        if worst > TOL:
            problems.append(f"{name}: GPU results differ ({worst:.2e})")
    else:
        problems.append(f"{name}: dlc run of the cuda module: exit {p.returncode}, "
                        f"stderr {p.stderr.strip()[-400:]!r}")
        print(f"FAIL {name}: dlc run of the cuda module: exit {p.returncode}: {p.stderr.strip()}")
    return problems


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dlc", required=True)
    ap.add_argument("--arch", action="append", help="PTX architectures (default sm_80, sm_90a)")
    ap.add_argument("--table", action="store_true", help="print the per-model kernel table")
    ap.add_argument("--keep", action="store_true", help="keep the work directory")
    ap.add_argument("models", nargs="*")
    args = ap.parse_args()
    archs = args.arch or ["sm_80", "sm_90a"]
    unknown = [m for m in args.models if m not in MODELS]
    if unknown:
        print(f"unknown model(s): {', '.join(unknown)}", file=sys.stderr)
        return 2
    ptxas = ptxas_path()
    if not ptxas:
        print("SKIP PTX, ptxas and GPU checks: no CUDA toolkit (ptxas and libdevice in "
              "$CUDA_HOME or /usr/local/cuda)")
    work = Path(tempfile.mkdtemp(prefix="dlc-cuda-"))
    problems, table = [], []
    try:
        for name in args.models or list(MODELS):
            try:
                problems += check_model(name, args.dlc, archs, ptxas, work, table)
            except (RuntimeError, subprocess.TimeoutExpired) as e:
                print(f"FAIL {name}: {e}")
                problems.append(f"{name}: {e}")
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    if args.table and table:
        cols = list(INSTRUCTIONS)
        print("| model | arch | kernels | max regs | max smem B | spill B | " +
              " | ".join(cols) + " |")
        print("|---" * (6 + len(cols)) + "|")
        for name, arch, s in table:
            print(f"| {name} | {arch} | {s['kernels']} | {s['regs']} | {s['smem']} | "
                  f"{s['spill']} | " + " | ".join(str(s[c]) for c in cols) + " |")
    for p in problems:
        print(f"problem: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())

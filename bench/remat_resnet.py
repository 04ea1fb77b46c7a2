#!/usr/bin/env python3
"""By hand (never in CI): what --remat saves on a ResNet-18 training step at batch 8.

For each policy (store-all, recompute-all, auto:MIB) it compiles the step (softmax
cross-entropy, SGD with momentum, BatchNorm running statistics frozen) with
--dump-config and reports the compiler's memory report (saved activations), the step's
planned arena, and, measured through the C runtime alone (bench/dlc_runner.c, each run
one step): the median step time and the peak RSS of the process. Losses of the first
steps are checked to be the same for every policy.

    .venv/bin/python bench/remat_resnet.py --dlc build/bin/dlc [--threads 2] [--auto 120]
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "test" / "e2e"))
import models as e2e  # noqa: E402  (test/e2e/models.py: the e2e networks)

BATCH = 8


def build_model(work: Path) -> tuple[Path, str]:
    model, _ = e2e.resnet18(0)
    model.graph.input[0].type.tensor_type.shape.dim[0].dim_value = BATCH
    model.graph.output[0].type.tensor_type.shape.dim[0].dim_value = BATCH
    path = work / "resnet18_b8.onnx"
    onnx.save(model, path)
    frozen = ",".join(i.name for i in model.graph.initializer if "running_" in i.name)
    rng = np.random.default_rng(0)
    np.save(work / "input.npy", rng.standard_normal((BATCH, 3, 224, 224)).astype(np.float32))
    np.save(work / "labels.npy", rng.integers(0, 1000, BATCH).astype(np.int64))
    np.savez(work / "data.npz", input=np.load(work / "input.npy"), labels=np.load(work / "labels.npy"))
    return path, frozen


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dlc", required=True)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--runs", type=int, default=10, help="timed steps (after 2 warm-up steps)")
    ap.add_argument("--auto", type=int, default=120, help="MiB budget of the auto policy")
    a = ap.parse_args()
    dlc = Path(a.dlc).resolve()
    work = Path(tempfile.mkdtemp(prefix="dlc_remat_"))
    runner = work / "dlc_runner"
    lib = dlc.parent.parent / "lib"
    subprocess.run(["clang-22", "-O2", "-I", ROOT / "runtime", "-o", runner,
                    ROOT / "bench/dlc_runner.c", "-L", lib, "-ldlc_runtime",
                    f"-Wl,-rpath,{lib}"], check=True)
    onnx_path, frozen = build_model(work)
    print(f"ResNet-18, batch {BATCH}, SGD momentum, {a.threads} threads ({work})")
    print("| policy | saved activations (compiler) | arena | step (median) | peak RSS | losses |")
    print("|---|--:|--:|--:|--:|---|")
    for policy in ["store-all", "recompute-all", f"auto:{a.auto}"]:
        so = work / f"step_{policy.replace(':', '_')}.so"
        c = subprocess.run([dlc, "compile", onnx_path, "--train", "--loss=xent:logits",
                            "--optimizer=sgd:lr=0.01,momentum=0.9", f"--freeze={frozen}",
                            f"--remat={policy}", "--dump-config", "-o", so],
                           capture_output=True, text=True, check=True).stderr
        saved = re.search(r"saved activations ([0-9.]+ \w+)", c).group(1)
        arena = re.search(r"arena: ([0-9.]+ MiB)", c).group(1)
        losses = subprocess.run([dlc, "train", so, "--data", work / "data.npz", "--steps", "3"],
                                capture_output=True, text=True, check=True).stdout.split()[3::4]
        r = subprocess.run(["/usr/bin/time", "-f", "maxrss %M", runner, so, str(a.threads),
                            str(a.runs), "2", f"input={work / 'input.npy'}",
                            f"labels={work / 'labels.npy'}"], capture_output=True, text=True,
                           check=True)
        step = re.search(r"median ([0-9.]+) ms", r.stdout).group(1)
        rss = int(re.search(r"maxrss (\d+)", r.stderr).group(1)) / 1024
        print(f"| {policy} | {saved} | {arena} | {float(step):.1f} ms | {rss:.0f} MB | "
              f"{' '.join(losses)} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

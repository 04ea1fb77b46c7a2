#!/usr/bin/env python3
"""By hand (never in CI): one training step (forward, backward, Adam) of dlc vs PyTorch eager.

Models: the MLP 784-512-512-10 and LeNet-5 (conv 5x5 / max-pool / conv 5x5 / avg-pool / 3 FC)
at batch 64, softmax cross-entropy, Adam lr 1e-3. Both engines start from the same weights
(the PyTorch model exported with torch.onnx.export is what `dlc compile --train` gets). dlc's
step is timed through the C runtime alone (bench/dlc_runner.c: each run is one step, the
parameters update in place); PyTorch's as zero_grad + forward + loss + backward + Adam.step,
torch.set_num_threads(N). Median of 50 steps after 10 warm-up steps, at 1 and 2 threads.
The first-step losses of both are printed as a sanity check.

    bench/.venv-torch/bin/python bench/train_vs_torch.py --dlc build/bin/dlc
"""
from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

ROOT = Path(__file__).resolve().parent.parent


class LeNet5(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1, self.conv2 = torch.nn.Conv2d(1, 6, 5), torch.nn.Conv2d(6, 16, 5)
        self.fc1, self.fc2, self.fc3 = (torch.nn.Linear(400, 120), torch.nn.Linear(120, 84),
                                        torch.nn.Linear(84, 10))

    def forward(self, x):
        x = torch.nn.functional.max_pool2d(torch.relu(self.conv1(x)), 2)
        x = torch.nn.functional.avg_pool2d(torch.relu(self.conv2(x)), 2)
        x = torch.flatten(x, 1)
        return self.fc3(torch.relu(self.fc2(torch.relu(self.fc1(x)))))


def models():
    torch.manual_seed(0)
    yield "mlp_b64", torch.nn.Sequential(torch.nn.Linear(784, 512), torch.nn.ReLU(),
                                         torch.nn.Linear(512, 512), torch.nn.ReLU(),
                                         torch.nn.Linear(512, 10)), torch.randn(64, 784)
    yield "lenet5_b64", LeNet5(), torch.randn(64, 1, 32, 32)


def torch_step_ms(model, x, labels, threads, runs=50, warmup=10):
    torch.set_num_threads(threads)
    model = model.train()
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = torch.nn.CrossEntropyLoss()
    times, first = [], None
    for i in range(warmup + runs):
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        loss = loss_fn(model(x), labels)
        loss.backward()
        opt.step()
        dt = (time.perf_counter() - t0) * 1e3
        if first is None:
            first = float(loss)
        if i >= warmup:
            times.append(dt)
    return statistics.median(times), first


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dlc", required=True)
    ap.add_argument("--threads", default="1,2")
    a = ap.parse_args()
    work = Path(tempfile.mkdtemp())
    runner = work / "dlc_runner"
    subprocess.run(["clang-22", "-O2", "-I", ROOT / "runtime", "-o", runner, ROOT / "bench/dlc_runner.c",
                    "-L", Path(a.dlc).resolve().parent.parent / "lib", "-ldlc_runtime",
                    f"-Wl,-rpath,{Path(a.dlc).resolve().parent.parent / 'lib'}"], check=True)
    print("| model | threads | dlc step | PyTorch eager step | dlc/PyTorch | first loss dlc / PyTorch |")
    print("|---|--:|--:|--:|--:|--:|")
    for name, model, x in models():
        labels = torch.randint(0, 10, (x.shape[0],))
        onnx_path = work / f"{name}.onnx"
        torch.onnx.export(model, (x,), str(onnx_path), input_names=["x"], output_names=["y"],
                          opset_version=17, dynamo=False, do_constant_folding=False)
        so = work / f"{name}.so"
        subprocess.run([a.dlc, "compile", str(onnx_path), "--train", "--loss=xent:y",
                        "--optimizer=adam:lr=0.001", "-o", str(so)], check=True,
                       stderr=subprocess.DEVNULL)
        np.save(work / "x.npy", x.numpy())
        np.save(work / "labels.npy", labels.numpy().astype(np.int64))
        np.savez(work / "d.npz", x=x.numpy(), labels=labels.numpy().astype(np.int64))
        out = subprocess.run([a.dlc, "train", str(so), "--data", str(work / "d.npz"), "--steps", "1"],
                             capture_output=True, text=True, check=True).stdout
        dlc_first = float(out.split()[3])
        for threads in [int(t) for t in a.threads.split(",")]:
            r = subprocess.run([runner, str(so), str(threads), "50", "10", f"x={work / 'x.npy'}",
                                f"labels={work / 'labels.npy'}"], capture_output=True, text=True,
                               check=True).stdout
            dlc_ms = float(re.search(r"median ([0-9.]+) ms", r).group(1))
            state = {k: v.clone() for k, v in model.state_dict().items()}
            torch_ms, torch_first = torch_step_ms(model, x, labels, threads)
            model.load_state_dict(state)
            print(f"| {name} | {threads} | {dlc_ms:.2f} ms | {torch_ms:.2f} ms | {dlc_ms / torch_ms:.2f}x | "
                  f"{dlc_first:.5f} / {torch_first:.5f} |")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""By hand (never in CI): dlc's gradients against PyTorch autograd on whole networks.

For an MLP, LeNet-5 and a transformer encoder layer (self-attention, 4 heads, LayerNorm,
GELU feed-forward), each built in PyTorch with fixed seeds and exported with torch.onnx.export,
the loss sum(output * R) (R a fixed random tensor) is differentiated by PyTorch autograd and by
dlc (`dlc compile --grad-of=loss --grad-initializers`: gradients of the input and of every
float initializer, i.e. every parameter). Each gradient tensor must agree within 1e-5 relative
error, measured as ||g_dlc - g_torch|| / ||g_torch|| (float32 on both sides).

Run it with bench/.venv-torch (bench/torch_exports.sh creates it):
    bench/.venv-torch/bin/python bench/grad_vs_torch.py --dlc build/bin/dlc
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
import torch
from onnx import helper, numpy_helper

TOL = 1e-5


class LeNet5(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = torch.nn.Conv2d(1, 6, 5)
        self.conv2 = torch.nn.Conv2d(6, 16, 5)
        self.fc1 = torch.nn.Linear(16 * 5 * 5, 120)
        self.fc2 = torch.nn.Linear(120, 84)
        self.fc3 = torch.nn.Linear(84, 10)

    def forward(self, x):
        x = torch.nn.functional.max_pool2d(torch.relu(self.conv1(x)), 2)
        x = torch.nn.functional.avg_pool2d(torch.relu(self.conv2(x)), 2)
        x = torch.flatten(x, 1)
        return self.fc3(torch.relu(self.fc2(torch.relu(self.fc1(x)))))


class EncoderLayer(torch.nn.Module):
    """A post-norm transformer encoder layer written out (multi-head self-attention, GELU FFN),
    as nn.TransformerEncoderLayer computes it."""

    def __init__(self, d=64, heads=4, ff=128):
        super().__init__()
        self.heads = heads
        self.qkv = torch.nn.Linear(d, 3 * d)
        self.proj = torch.nn.Linear(d, d)
        self.norm1, self.norm2 = torch.nn.LayerNorm(d), torch.nn.LayerNorm(d)
        self.ff1, self.ff2 = torch.nn.Linear(d, ff), torch.nn.Linear(ff, d)
        # Distinct norm parameters (equal initializers would be merged by the exporter).
        with torch.no_grad():
            for p in [*self.norm1.parameters(), *self.norm2.parameters()]:
                p.add_(0.1 * torch.randn_like(p))

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(x).split(d, dim=-1)
        split = lambda z: z.reshape(b, t, self.heads, d // self.heads).transpose(1, 2)  # noqa: E731
        q, k, v = split(q), split(k), split(v)
        att = torch.softmax(q @ k.transpose(-1, -2) / (d // self.heads) ** 0.5, dim=-1)
        a = (att @ v).transpose(1, 2).reshape(b, t, d)
        x = self.norm1(x + self.proj(a))
        return self.norm2(x + self.ff2(torch.nn.functional.gelu(self.ff1(x))))


def models():
    torch.manual_seed(0)
    mlp = torch.nn.Sequential(torch.nn.Linear(784, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))
    yield "mlp", mlp, torch.randn(8, 784)
    yield "lenet5", LeNet5(), torch.randn(4, 1, 32, 32)
    yield "transformer_layer", EncoderLayer(), torch.randn(2, 16, 64)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dlc", required=True)
    a = ap.parse_args()
    work = Path(tempfile.mkdtemp())
    failures = 0
    for name, model, x in models():
        model.eval()
        path = work / f"{name}.onnx"
        torch.onnx.export(model, (x,), str(path), input_names=["x"], output_names=["y"],
                          opset_version=17, dynamo=False, do_constant_folding=False)
        m = onnx.load(path)
        y = model(x)
        r = torch.randn_like(y)
        # The loss sum(y * R) appended to the exported graph.
        m.graph.initializer.append(numpy_helper.from_array(r.detach().numpy(), "loss_weights"))
        m.graph.node.extend([helper.make_node("Mul", ["y", "loss_weights"], ["weighted"]),
                             helper.make_node("ReduceSum", ["weighted"], ["loss"], keepdims=0)])
        m.graph.output.append(helper.make_tensor_value_info("loss", onnx.TensorProto.FLOAT, []))
        onnx.save(m, path)
        so = work / f"{name}.so"
        subprocess.run([a.dlc, "compile", str(path), "--grad-of=loss", "--grad-initializers",
                        "-o", str(so)], check=True)
        np.save(work / "x.npy", x.numpy())
        out = work / f"{name}_out"
        subprocess.run([a.dlc, "run", str(so), "--input", f"x={work / 'x.npy'}", "--output-dir",
                        str(out)], check=True, stdout=subprocess.DEVNULL)
        xg = x.clone().requires_grad_(True)
        model.zero_grad()
        (model(xg) * r).sum().backward()
        reference = {"x": xg.grad}
        # ONNX initializer names follow the parameter names when not folded.
        params = dict(model.named_parameters())
        inits = {i.name for i in m.graph.initializer}
        for pname, p in params.items():
            if pname in inits:
                reference[pname] = p.grad
        missing = [p for p in params if p not in inits]
        worst = 0.0
        for tname, ref in reference.items():
            file = out / f"grad_{tname.replace('/', '_')}.npy"
            got = np.load(file)
            err = float(np.linalg.norm(got - ref.numpy()) / max(np.linalg.norm(ref.numpy()), 1e-30))
            worst = max(worst, err)
            if err > TOL:
                failures += 1
                print(f"FAIL {name}: d loss / d {tname}: relative error {err:.2e} > {TOL:g}")
        note = f" ({len(missing)} parameters renamed by the exporter, not compared)" if missing else ""
        print(f"{name}: {len(reference)} gradients (input + {len(reference) - 1} parameters), "
              f"max relative error {worst:.2e}{note}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
# By hand (not CI): exports torchvision ResNet-18 / MobileNetV2, a transformer encoder layer and
# HuggingFace's BertLayer (eager and SDPA attention, with an attention mask) with both torch.onnx
# exporters, compiles them with dlc (AOT and JIT) and compares with ONNX Runtime.
"""Real-exporter check.

usage: bench/torch_exports.sh      (creates bench/.venv-torch with torch, torchvision,
                                     transformers, onnx, onnxscript, onnxruntime on first use)
   or: PY bench/torch_exports.py --dlc build/bin/dlc [--out DIR]   with a Python that has torch
"""
import argparse
import re
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np


def export_all(out: Path):
    import torch
    import torchvision
    warnings.filterwarnings("ignore")
    torch.manual_seed(0)

    class EncoderLayer(torch.nn.Module):
        """Pre-norm encoder layer: LayerNorm, nn.MultiheadAttention, GELU FFN (BERT-sized d=256)."""

        def __init__(self, d=256, heads=4):
            super().__init__()
            self.ln1 = torch.nn.LayerNorm(d)
            self.att = torch.nn.MultiheadAttention(d, heads, batch_first=True)
            self.ln2 = torch.nn.LayerNorm(d)
            self.ff = torch.nn.Sequential(torch.nn.Linear(d, 4 * d), torch.nn.GELU(),
                                          torch.nn.Linear(4 * d, d))

        def forward(self, x):
            y = self.ln1(x)
            a, _ = self.att(y, y, y, need_weights=False)
            x = x + a
            return x + self.ff(self.ln2(x))

    class HFBertLayer(torch.nn.Module):
        """transformers' BertLayer (random weights, d=256, 4 heads) behind BertModel's
        extended attention mask: (1 - mask) * finfo.min added to the scores."""

        def __init__(self, attn):
            super().__init__()
            from transformers import BertConfig
            from transformers.models.bert.modeling_bert import BertLayer
            cfg = BertConfig(hidden_size=256, num_attention_heads=4, intermediate_size=1024,
                             attn_implementation=attn)
            self.layer = BertLayer(cfg)

        def forward(self, hidden, mask):
            ext = (1.0 - mask[:, None, None, :].to(hidden.dtype)) * torch.finfo(hidden.dtype).min
            return self.layer(hidden, attention_mask=ext)[0]

    mask = torch.ones(2, 64, dtype=torch.int64)
    mask[1, 40:] = 0  # the second sequence is padded
    models = {
        "resnet18": (torchvision.models.resnet18(weights=None).eval(), (torch.randn(1, 3, 224, 224),)),
        "mobilenet_v2": (torchvision.models.mobilenet_v2(weights=None).eval(),
                         (torch.randn(1, 3, 224, 224),)),
        "encoder_layer": (EncoderLayer().eval(), (torch.randn(1, 128, 256),)),
    }
    try:
        for attn in ("eager", "sdpa"):
            models[f"hf_bert_layer_{attn}"] = (HFBertLayer(attn).eval(),
                                               (torch.randn(2, 64, 256), mask))
    except ImportError:
        print("note: transformers is not installed: skipping the HuggingFace BertLayer")
    tags = []
    for name, (model, xs) in models.items():
        names = ["x"] if len(xs) == 1 else ["hidden", "mask"]
        for dynamo in (False, True):
            tag = f"{name}_{'dynamo' if dynamo else 'torchscript'}"
            path = out / f"{tag}.onnx"
            if dynamo:
                torch.onnx.export(model, xs, str(path), dynamo=True, input_names=names,
                                  output_names=["y"])
            else:
                # Dynamic batch, as exporters usually write it: dlc specializes it.
                torch.onnx.export(model, xs, str(path), dynamo=False, opset_version=17,
                                  input_names=names, output_names=["y"],
                                  dynamic_axes={**{n: {0: "batch"} for n in names}, "y": {0: "batch"}})
            for n, x in zip(names, xs):
                np.save(out / f"{tag}_{n}.npy", x.numpy())
            tags.append(tag)
    return tags


def check(dlc: str, out: Path, tags) -> int:
    import onnxruntime as ort
    failures = 0
    for tag in tags:
        sess = ort.InferenceSession(str(out / f"{tag}.onnx"))
        inames = [i.name for i in sess.get_inputs()]
        oname = sess.get_outputs()[0].name
        feeds = {n: np.load(out / f"{tag}_{n}.npy") for n in inames}
        ref = sess.run(None, feeds)[0]
        inputs = [a for n in inames for a in ("--input", f"{n}={out / f'{tag}_{n}.npy'}")]
        for mode in ("aot", "jit"):
            target = out / f"{tag}.onnx"
            if mode == "aot":
                target = out / f"{tag}.so"
                shapes = [a for n, v in feeds.items()
                          for a in ("--input-shape", f"{n}={'x'.join(map(str, v.shape))}")]
                r = subprocess.run([dlc, "compile", str(out / f"{tag}.onnx"), "-o", str(target),
                                    *shapes], capture_output=True, text=True)
                if r.returncode:
                    print(f"FAIL {tag} {mode}: {r.stderr.strip()}")
                    failures += 1
                    continue
            od = out / f"out_{tag}_{mode}"
            r = subprocess.run([dlc, "run", str(target), *inputs, "--output-dir", str(od)],
                               capture_output=True, text=True)
            if r.returncode:
                print(f"FAIL {tag} {mode}: {r.stderr.strip()}")
                failures += 1
                continue
            got = np.load(od / (re.sub(r"[^A-Za-z0-9_.-]", "_", oname) + ".npy"))
            err = float(np.abs(got - ref).max() / max(np.abs(ref).max(), 1e-12))
            ok = err <= 1e-4
            failures += not ok
            print(f"{'PASS' if ok else 'FAIL'} {tag:28s} {mode}  rel err {err:.2e}")
    return failures


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--dlc", default=str(Path(__file__).resolve().parent.parent / "build/bin/dlc"))
    ap.add_argument("--out", default="build/torch_exports")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    tags = export_all(out)
    return 1 if check(args.dlc, out, tags) else 0


if __name__ == "__main__":
    sys.exit(main())

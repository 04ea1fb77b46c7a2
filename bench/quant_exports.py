#!/usr/bin/env python3
# By hand (not CI): torchvision ResNet-18 and MobileNetV2 (random weights) exported and quantized
# by ONNX Runtime's quantize_static, for bench/quant_agreement.py (issue 18's accuracy lines).
"""Export torchvision models and quantize them with ONNX Runtime's own tool.

usage: test/.venv-torch/bin/python bench/quant_exports.py --out DIR [--calib N]

Writes DIR/<name>.onnx (float, torch.onnx.export, opset 17) and DIR/<name>_int8.onnx
(test/e2e/quantize.py's quantize_static recipe: QDQ, per-channel s8 weights, u8 activations,
min-max calibration on N standard-normal inputs, default 64) for resnet18 and mobilenet_v2,
seed 0. Then e.g. `python bench/quant_agreement.py DIR/resnet18_int8.onnx --inputs 100`.
Needs torch and torchvision (test/.venv-torch, made by scripts/zoo --setup).
"""
import argparse
import importlib.util
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent


def recipes():
    spec = importlib.util.spec_from_file_location("e2e_quantize", ROOT / "test/e2e/quantize.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", type=Path, required=True)
    p.add_argument("--calib", type=int, default=64, help="calibration inputs (default 64)")
    args = p.parse_args()
    import onnx
    import torch
    import torchvision
    q = recipes()
    q.CALIBRATION_INPUTS = args.calib
    args.out.mkdir(parents=True, exist_ok=True)
    for name in ("resnet18", "mobilenet_v2"):
        torch.manual_seed(0)
        model = getattr(torchvision.models, name)(weights=None).eval()
        x = torch.randn(1, 3, 224, 224)
        path = args.out / f"{name}.onnx"
        torch.onnx.export(model, (x,), str(path), input_names=["input"], output_names=["logits"],
                          opset_version=17, dynamo=False)
        fp32 = onnx.load(path)
        int8 = q.quantize_static_qdq(fp32, {"input": x.numpy().astype(np.float32)}, seed=0)
        onnx.save(int8, args.out / f"{name}_int8.onnx")
        print(f"wrote {path} and {args.out / (name + '_int8.onnx')}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

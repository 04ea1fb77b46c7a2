# Quantized (int8) benchmark models for bench/run: bench models quantized by ONNX Runtime's tool.
"""int8 models timed by ``bench/run`` (issue 18).

Each entry of :data:`QUANT_MODELS` is a float model of :mod:`models` quantized the way a user
of ONNX Runtime would (test/e2e/quantize.py): the CNNs and the MatMul by ``quantize_static``
(QDQ, per-channel s8 weights, u8 activations, min-max calibration on random inputs drawn
like the benchmark input), the BERT-style layer by ``quantize_dynamic`` (s8 MatMul
weights, DynamicQuantizeLinear + MatMulInteger). ``matmul1024_bf16`` is the float MatMul
that dlc compiles with ``--precision=bf16`` (its "% peak" is of the bf16 dot-product peak
where the CPU has one). ``build(seed)`` returns
``(onnx.ModelProto, inputs)`` like the float models, so bench/run times dlc and ONNX Runtime
on the same file.

``python bench/quant_models.py [NAME ...] [--out DIR]`` prints each model's ops (and writes
NAME.onnx and NAME.input.npz to DIR).
"""
from __future__ import annotations

import importlib.util
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import onnx

from models import BENCH_MODELS, BenchModel


def _load_recipes():
    """test/e2e/quantize.py, ONNX Runtime's quantization recipes."""
    path = Path(__file__).resolve().parent.parent / "test" / "e2e" / "quantize.py"
    spec = importlib.util.spec_from_file_location("e2e_quantize", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


recipes = _load_recipes()


def _static(name: str):
    def build(seed: int):
        model, inputs = BENCH_MODELS[name].build(seed)
        return recipes.quantize_static_qdq(model, inputs, seed), inputs
    return build


def _dynamic(name: str):
    def build(seed: int):
        model, inputs = BENCH_MODELS[name].build(seed)
        return recipes.quantize_dynamic_int8(model), inputs
    return build


# Outputs within 0.2 of max|ref| of the reference (ORT running the QDQ graph as written):
# ONNX Runtime's own int8 kernels without VNNI (AVX2's vpmaddubsw) saturate i16 pair sums,
# measured 0.08-0.16 off on a Zen 3. dlc's integer kernels are exact: the e2e-quant test
# holds them to 0.02 (a quantum or two of the outputs).
INT8_RTOL = 0.2

QUANT_MODELS: dict[str, BenchModel] = {
    "matmul1024_int8": BenchModel(_static("matmul1024"),
                                  "MatMul 1024^3, QDQ u8 x s8 (per column) -> u8, ORT-quantized",
                                  rtol=INT8_RTOL, int8=True),
    "resnet18_int8": BenchModel(_static("resnet18"),
                                "ResNet-18, ORT quantize_static (QDQ, per-channel s8 weights)",
                                rtol=INT8_RTOL, int8=True),
    "mobilenetv2_int8": BenchModel(_static("mobilenetv2"),
                                   "MobileNetV2, ORT quantize_static (QDQ, per-channel)",
                                   rtol=INT8_RTOL, int8=True),
    "bert_layer_int8": BenchModel(_dynamic("bert_layer"),
                                  "BERT-style layer, ORT quantize_dynamic (MatMulInteger)",
                                  rtol=INT8_RTOL, int8=True),
    # dlc compile --precision=bf16 (inputs rounded to bf16, f32 accumulation; the other
    # engines run the fp32 model): 2^-8 input rounding over K = 1024 stays within 2e-2.
    "matmul1024_bf16": BenchModel(BENCH_MODELS["matmul1024"].build,
                                  "MatMul 1024^3, dlc --precision=bf16 (others fp32)",
                                  rtol=2e-2, bf16=True, dlc_flags=("--precision=bf16",)),
}


if __name__ == "__main__":
    import argparse
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("names", nargs="*")
    p.add_argument("--out", type=Path, help="write NAME.onnx and NAME.input.npz there")
    args = p.parse_args()
    for model_name in args.names or QUANT_MODELS:
        m, ins = QUANT_MODELS[model_name].build(0)
        ops = Counter(n.op_type for n in m.graph.node)
        print(f"{model_name}: {len(m.graph.node)} nodes: "
              + ", ".join(f"{k} {v}" for k, v in ops.most_common()))
        if args.out:
            args.out.mkdir(parents=True, exist_ok=True)
            onnx.save(m, args.out / f"{model_name}.onnx")
            np.savez(args.out / f"{model_name}.input.npz", **ins)
    sys.exit(0)

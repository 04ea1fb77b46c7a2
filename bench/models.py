# Benchmark models for bench/run: the e2e models of test/e2e/models.py plus the bench-only ones.
"""Models timed by ``bench/run``.

:data:`BENCH_MODELS` maps a name to a :class:`BenchModel`, whose ``build(seed)`` returns
``(onnx.ModelProto, {input_name: np.ndarray})`` like the e2e generators (random weights,
fixed seeds, static shapes).  The networks come from ``test/e2e/models.py``; the models
only the benchmark needs (``tiny_add``, the large MatMuls, GPT-2-small-sized block and the
memory-bound ``layernorm_gelu``) are defined here with the same ``GraphBuilder``.

``python bench/models.py [NAME ...]`` prints a summary of each model.
"""
from __future__ import annotations

import importlib.util
import math
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np


def _load_e2e_models():
    """Import test/e2e/models.py as module ``e2e_models`` (this file is ``models`` too)."""
    path = Path(__file__).resolve().parent.parent / "test" / "e2e" / "models.py"
    spec = importlib.util.spec_from_file_location("e2e_models", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["e2e_models"] = module
    spec.loader.exec_module(module)
    return module


e2e = _load_e2e_models()
GraphBuilder = e2e.GraphBuilder


@dataclass
class BenchModel:
    build: Callable            # seed -> (onnx.ModelProto, {name: np.ndarray})
    about: str                 # one line for the docs
    memory_bound: bool = False  # report share of memory bandwidth instead of FLOP peak
    rtol: float = 1e-4          # every engine's outputs within this of the reference
    int8: bool = False          # "% peak" of the int8 dot-product peak instead of fp32 FMA
    bf16: bool = False          # "% peak" of the bf16 dot-product peak (fp32 FMA's without one)
    dlc_flags: tuple = ()       # extra `dlc compile` flags (e.g. --precision=bf16)


def tiny_add(seed: int):
    """x + 1 on 16 floats: measures per-call overhead."""
    b = GraphBuilder("tiny_add", seed)
    x = b.input("x", np.float32, [16])
    y = b.node("Add", [x, b.f32(1.0, "one")], out="y", name="add")
    b.output(y, np.float32, [16])
    return b.build(), {"x": b.rng.standard_normal(16).astype(np.float32)}


def _matmul(n: int):
    def build(seed: int):
        b = GraphBuilder(f"matmul{n}", seed)
        a = b.input("a", np.float32, [n, n])
        w = b.weight((n, n), n, "b")  # constant B: an initializer
        b.output(b.node("MatMul", [a, w], out="y", name="matmul"), np.float32, [n, n])
        return b.build(), {"a": b.rng.standard_normal((n, n)).astype(np.float32)}
    return build


def gpt2_small_block(seed: int):
    """The e2e GPT-2 block at GPT-2-small size: seq 128, hidden 768, 12 heads, FFN 3072."""
    return e2e.gpt2_block(seed, S=128, D=768, H=12, F=3072, name="gpt2_block")


def layernorm_gelu(seed: int):
    """LayerNorm(gelu(x*2+1)) on [4096,1024]: opset-17 LayerNormalization, erf-GELU as ONNX ops."""
    R, C = 4096, 1024
    b = GraphBuilder("layernorm_gelu", seed)
    x = b.input("x", np.float32, [R, C])
    y = b.node("Add", [b.node("Mul", [x, b.f32(2.0, "two")], name="mul2"), b.f32(1.0, "one")],
               name="add1")
    # gelu(y) = y * 0.5 * (1 + erf(y / sqrt(2)))
    e = b.node("Erf", [b.node("Div", [y, b.f32(math.sqrt(2.0), "sqrt2")], name="gelu/Div")],
               name="gelu/Erf")
    g = b.node("Mul", [b.node("Mul", [y, b.node("Add", [e, "one"], name="gelu/Add")],
                              name="gelu/Mul"), b.f32(0.5, "half")], name="gelu/Mul_half")
    gamma = b.f32(b.rng.uniform(0.9, 1.1, C), "ln.weight")
    beta = b.f32(b.rng.normal(0.0, 0.02, C), "ln.bias")
    out = b.node("LayerNormalization", [g, gamma, beta], out="y", name="ln", axis=-1,
                 epsilon=1e-5)
    b.output(out, np.float32, [R, C])
    return b.build(17), {"x": b.rng.standard_normal((R, C)).astype(np.float32)}


BENCH_MODELS: dict[str, BenchModel] = {
    "tiny_add": BenchModel(tiny_add, "x+1 on 16 floats (per-call overhead)"),
    "mlp_b1": BenchModel(e2e.MODELS["mlp_b1"], "MLP 784-512-512-10, batch 1 (MatMul+Add)"),
    "mlp_b64": BenchModel(e2e.MODELS["mlp_b64"], "MLP 784-512-512-10, batch 64 (Gemm)"),
    "matmul512": BenchModel(_matmul(512), "MatMul 512x512x512, B constant"),
    "matmul1024": BenchModel(_matmul(1024), "MatMul 1024x1024x1024, B constant"),
    "lenet5": BenchModel(e2e.MODELS["lenet5"], "LeNet-5, batch 2, 32x32"),
    "resnet18": BenchModel(e2e.MODELS["resnet18"], "ResNet-18, 1x3x224x224, BatchNorm kept"),
    "mobilenetv2": BenchModel(e2e.MODELS["mobilenetv2"], "MobileNetV2, 1x3x224x224"),
    "bert_layer": BenchModel(e2e.MODELS["bert_layer"],
                             "embeddings + BERT encoder layer, seq 128, hidden 256, 4 heads"),
    "gpt2_block": BenchModel(gpt2_small_block,
                             "GPT-2 block, seq 128, hidden 768, 12 heads, FFN 3072"),
    "layernorm_gelu": BenchModel(layernorm_gelu, "LayerNorm(gelu(x*2+1)) on 4096x1024",
                                 memory_bound=True),
}


if __name__ == "__main__":
    import onnx
    for model_name in sys.argv[1:] or BENCH_MODELS:
        m, ins = BENCH_MODELS[model_name].build(0)
        onnx.checker.check_model(m, full_check=True)
        print(f"{model_name}: {len(m.graph.node)} nodes, "
              f"{sum(int(np.prod(t.dims)) for t in m.graph.initializer)} params, "
              f"inputs={[(k, v.shape, str(v.dtype)) for k, v in ins.items()]}")

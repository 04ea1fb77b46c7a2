#!/usr/bin/env python3
# Exports one zoo architecture with one torch.onnx exporter, with its example inputs as .npy.
"""Export one zoo architecture (run by zoo.py in a fresh process, in the zoo's torch venv).

usage: export.py NAME EXPORTER OUTDIR

Writes OUTDIR/model.onnx, OUTDIR/input_<i>.npy (the example inputs, in graph input order)
and OUTDIR/export.json ({"ok": true, "seconds": .., "inputs": [names], "torch": version});
on failure export.json holds {"ok": false, "error": "<one line>"} and the exit code is 2.
EXPORTER is 'torchscript' (torch.onnx.export(dynamo=False), opset 17) or 'dynamo'
(torch.onnx.export(dynamo=True), its default opset).
"""
import json
import sys
import time
import traceback
import warnings
from pathlib import Path


def calibrate_batchnorm(model, inputs):
    """Fresh BatchNorm running statistics (mean 0, variance 1) with small random weights make
    activations vanish layer by layer: GoogLeNet's output stops depending on its input. A few
    forward passes in training mode on random batches (the BatchNorm layers only) set running
    statistics that keep every layer's activations O(1), as trained weights would."""
    import torch
    bns = [m for m in model.modules() if isinstance(m, torch.nn.modules.batchnorm._BatchNorm)]
    if not bns or not all(x.is_floating_point() for x in inputs):
        return
    for bn in bns:
        bn.reset_running_stats()
        bn.momentum = None  # cumulative average
        bn.train()
    try:
        with torch.no_grad():
            for _ in range(3):
                model(*[torch.cat([x, torch.randn_like(x)]) for x in inputs])
    except Exception:  # a model that cannot take a batch of 2: keep the fresh statistics
        for bn in bns:
            bn.reset_running_stats()
    finally:
        for bn in bns:
            bn.eval()


def reference64(model, inputs, out: Path):
    """The model's outputs in float64 (torch), saved as ref64_<i>.npy: the ground truth that
    tells float32 rounding (ORT is as far from it as dlc) from a wrong answer."""
    import copy

    import numpy as np
    import torch
    try:
        m64 = copy.deepcopy(model).double()
        with torch.no_grad():
            y = m64(*[x.double() if x.is_floating_point() else x for x in inputs])
    except Exception:  # an op without a float64 kernel: no ground truth
        return
    for i, t in enumerate([y] if isinstance(y, torch.Tensor) else list(y)):
        if isinstance(t, torch.Tensor):
            np.save(out / f"ref64_{i}.npy", t.numpy())


def export(name: str, exporter: str, out: Path) -> dict:
    import numpy as np
    import torch

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from architectures import by_name

    warnings.filterwarnings("ignore")
    # nn.MultiheadAttention's fused inference path is one aten op the torchscript exporter
    # cannot write (ViT); the composite path exports as MatMul / Softmax.
    torch.backends.mha.set_fastpath_enabled(False)
    torch.manual_seed(0)
    arch = by_name()[name]
    model, inputs, names = arch.build()
    calibrate_batchnorm(model, inputs)
    reference64(model, inputs, out)
    path = out / "model.onnx"
    t0 = time.perf_counter()
    with torch.no_grad():
        if exporter == "dynamo":
            torch.onnx.export(model, inputs, str(path), dynamo=True, input_names=names,
                              external_data=False, verbose=False)
        else:
            torch.onnx.export(model, inputs, str(path), dynamo=False, opset_version=17,
                              input_names=names)
    seconds = time.perf_counter() - t0
    import onnx
    graph_inputs = [i.name for i in onnx.load(str(path), load_external_data=False).graph.input]
    # The exporter may drop an input the graph does not use (or keep it under its name).
    kept = [(n, x) for n, x in zip(names, inputs) if n in graph_inputs]
    for n, x in kept:
        np.save(out / f"input_{n}.npy", x.numpy())
    return {"ok": True, "seconds": round(seconds, 2), "inputs": [n for n, _ in kept],
            "torch": torch.__version__}


def main() -> int:
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 1
    name, exporter, out = sys.argv[1], sys.argv[2], Path(sys.argv[3])
    out.mkdir(parents=True, exist_ok=True)
    try:
        meta = export(name, exporter, out)
        code = 0
    except Exception as e:  # report any exporter failure as one line
        traceback.print_exc()
        msg = f"{type(e).__name__}: {e}".strip().splitlines()
        meta = {"ok": False, "error": (msg[0] if msg else type(e).__name__)[:300]}
        code = 2
    (out / "export.json").write_text(json.dumps(meta))
    return code


if __name__ == "__main__":
    sys.exit(main())

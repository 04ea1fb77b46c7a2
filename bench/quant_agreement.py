#!/usr/bin/env python3
"""dlc against ONNX Runtime on a quantized (QDQ) model: top-1 agreement and output error.

``python bench/quant_agreement.py MODEL.onnx [--dlc build/bin/dlc] [--inputs 100]``
compiles MODEL with dlc once, then for each of N random inputs (standard normal, seed
0.., the model's input shape) runs it in dlc and in ONNX Runtime (CPU EP, all graph
optimizations: its int8 kernels) and prints the share of inputs whose top-1 class (argmax
over the last axis of the first output) agrees, the largest relative error
(max |dlc - ORT| / max |ORT| over an input) and the lowest cosine similarity. By hand,
like the rest of bench/ (issue 18's accuracy lines).
"""
import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnxruntime as ort


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("model")
    p.add_argument("--dlc", default=str(Path(__file__).resolve().parent.parent / "build/bin/dlc"))
    p.add_argument("--inputs", type=int, default=100)
    args = p.parse_args()
    sess = ort.InferenceSession(args.model, providers=["CPUExecutionProvider"])
    inp = sess.get_inputs()[0]
    out = sess.get_outputs()[0].name
    shape = [d if isinstance(d, int) else 1 for d in inp.shape]
    with tempfile.TemporaryDirectory() as tmp:
        so = Path(tmp) / "model.so"
        subprocess.run([args.dlc, "compile", args.model, "-o", str(so)], check=True)
        agree, worst_rel, worst_cos = 0, 0.0, 1.0
        for i in range(args.inputs):
            x = np.random.default_rng(i).standard_normal(shape).astype(np.float32)
            xf = Path(tmp) / "x.npy"
            np.save(xf, x)
            subprocess.run([args.dlc, "run", str(so), "--input", f"{inp.name}={xf}",
                            "--output-dir", tmp], check=True, stdout=subprocess.DEVNULL)
            got = np.load(Path(tmp) / f"{out}.npy").astype(np.float64)
            ref = sess.run(None, {inp.name: x})[0].astype(np.float64)
            agree += int(np.argmax(got.reshape(-1, got.shape[-1]), -1).tolist() ==
                         np.argmax(ref.reshape(-1, ref.shape[-1]), -1).tolist())
            worst_rel = max(worst_rel, float(np.abs(got - ref).max() / np.abs(ref).max()))
            g, r = got.ravel(), ref.ravel()
            worst_cos = min(worst_cos, float(g @ r / (np.linalg.norm(g) * np.linalg.norm(r))))
    print(f"{args.model}: top-1 agrees on {agree}/{args.inputs} inputs "
          f"({100.0 * agree / args.inputs:.1f} %), max relative error {worst_rel:.3g}, "
          f"min cosine {worst_cos:.6f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
# Writes the README quick-start example: a tiny ONNX MLP classifier plus a matching input .npy.
"""Generate the quick-start example model for dlc.

The model is a tiny fully connected classifier, built with ``onnx.helper``
from fixed-seed random weights (nothing binary is committed)::

    input  float32[4, 64]            (graph input, name "input")
      -> MatMul [64, 32] + Add bias -> Relu
      -> Gemm   [32, 10] (transB=1)
      -> Softmax(axis=-1)
    probabilities float32[4, 10]     (graph output)

Usage::

    make_example_model.py -o build/examples/model.onnx [-i build/examples/input.npy] [--seed 0]

``-o`` is the model path; ``-i`` is where the input array (float32[4, 64]) is
written, by default ``input.npy`` next to the model.  Feed it to dlc with
``--input input=<that file>``.
"""
from __future__ import annotations

import argparse
import os

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

INPUT_NAME = "input"
OUTPUT_NAME = "probabilities"
BATCH, IN_FEATURES, HIDDEN, CLASSES = 4, 64, 32, 10


def make_model(seed: int = 0) -> tuple[onnx.ModelProto, np.ndarray]:
    """Return (model, input array) for the example MLP."""
    rng = np.random.default_rng(seed)

    def init(name, arr):
        return numpy_helper.from_array(np.asarray(arr, dtype=np.float32), name)

    inits = [
        init("fc1.weight", rng.standard_normal((IN_FEATURES, HIDDEN)) * np.sqrt(2.0 / IN_FEATURES)),
        init("fc1.bias", rng.standard_normal(HIDDEN) * 0.05),
        init("fc2.weight", rng.standard_normal((CLASSES, HIDDEN)) / np.sqrt(HIDDEN)),
        init("fc2.bias", rng.standard_normal(CLASSES) * 0.05),
    ]
    nodes = [
        helper.make_node("MatMul", [INPUT_NAME, "fc1.weight"], ["h0"], name="fc1/MatMul"),
        helper.make_node("Add", ["h0", "fc1.bias"], ["h1"], name="fc1/Add"),
        helper.make_node("Relu", ["h1"], ["h2"], name="relu"),
        helper.make_node("Gemm", ["h2", "fc2.weight", "fc2.bias"], ["logits"], name="fc2",
                         transB=1),
        helper.make_node("Softmax", ["logits"], [OUTPUT_NAME], name="softmax", axis=-1),
    ]
    graph = helper.make_graph(
        nodes, "example_mlp",
        [helper.make_tensor_value_info(INPUT_NAME, TensorProto.FLOAT, [BATCH, IN_FEATURES])],
        [helper.make_tensor_value_info(OUTPUT_NAME, TensorProto.FLOAT, [BATCH, CLASSES])],
        initializer=inits)
    model = helper.make_model(graph, producer_name="dlc-example",
                              opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    onnx.checker.check_model(model, full_check=True)
    x = rng.standard_normal((BATCH, IN_FEATURES)).astype(np.float32)
    return model, x


def main() -> None:
    ap = argparse.ArgumentParser(description="Write the dlc quick-start example model and input.")
    ap.add_argument("-o", "--output", required=True, help="path of the .onnx model to write")
    ap.add_argument("-i", "--input", help="path of the input .npy (default: input.npy next to the model)")
    ap.add_argument("--seed", type=int, default=0, help="seed for weights and input (default 0)")
    args = ap.parse_args()

    input_path = args.input or os.path.join(os.path.dirname(os.path.abspath(args.output)), "input.npy")
    for path in (args.output, input_path):
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    model, x = make_model(args.seed)
    onnx.save(model, args.output)
    np.save(input_path, x)
    print(f"wrote {args.output}: {INPUT_NAME} float32{list(x.shape)} -> "
          f"{OUTPUT_NAME} float32[{BATCH}, {CLASSES}]")
    print(f"wrote {input_path} (use: --input {INPUT_NAME}={input_path})")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Training steps end to end: dlc compile --train, dlc train, --save-onnx, against NumPy.

* xor: the classic 2-2-1 network (ReLU, MSE, SGD lr 0.1, full batch) from a fixed
  initialization: the loss of each of the first 100 steps is within 1e-3 relative of a
  float64 NumPy reference of the same updates, and after 1000 steps the loss is < 1e-4.
* adam: a 6-8-3 tanh MLP with softmax cross-entropy and Adam (weight decay): the loss
  trajectory over 50 steps is within 1e-3 relative of a float64 NumPy Adam.
* mlp: 784-128-10 on a synthetic 10-class set (1024 examples, batches of 128): after 40
  steps of SGD with momentum the saved ONNX model (run by ONNX Runtime) classifies >= 95 %
  of the training set correctly.
* remat: --remat=recompute-all and auto:MIB give the same losses as store-all with fewer
  saved-activation bytes in the compiler's memory report.
* freeze: a frozen initializer keeps its value in the saved model; the others change.

* cpp (with --example): the same XOR and MLP training through the C++ API (JIT), with the
  XOR trajectory equal to dlc train's and the MLP at >= 95 % accuracy.

Usage: train_check.py --dlc build/bin/dlc [--example build/bin/dlc-example-train] [--keep DIR]
"""
from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper


def run(cmd):
    p = subprocess.run([str(c) for c in cmd], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=600)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(map(str, cmd))} failed: {p.stderr.strip()}")
    return p.stdout


def losses(stdout):
    return [float(line.split()[3]) for line in stdout.splitlines() if line.startswith("step ")]


def mlp_model(path, sizes, act, weights, batch):
    """Gemm (transB) layers with `act` between them; initializers fc{i}.weight/bias."""
    nodes, inits, prev = [], [], "x"
    for i, (w, b) in enumerate(weights):
        inits += [numpy_helper.from_array(w, f"fc{i}.weight"), numpy_helper.from_array(b, f"fc{i}.bias")]
        out = "y" if i == len(weights) - 1 else f"h{i}"
        nodes.append(helper.make_node("Gemm", [prev, f"fc{i}.weight", f"fc{i}.bias"], [out], transB=1))
        if i < len(weights) - 1:
            nodes.append(helper.make_node(act, [out], [f"a{i}"]))
            out = f"a{i}"
        prev = out
    g = helper.make_graph(nodes, "mlp", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [batch, sizes[0]])],
                          [helper.make_tensor_value_info("y", TensorProto.FLOAT, [batch, sizes[-1]])], inits)
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", 17)])
    m.ir_version = 8
    onnx.save(m, path)


def init(rng, sizes):
    return [((rng.uniform(-1, 1, (o, i)) / np.sqrt(i)).astype(np.float32),
             (rng.uniform(-1, 1, (o,)) / np.sqrt(i)).astype(np.float32)) for i, o in zip(sizes, sizes[1:])]


def forward_backward(params, x, act, dact):
    """float64 forward + backward of the Gemm MLP; returns logits and a backprop closure."""
    hs, a = [], x
    for i, (w, b) in enumerate(params):
        z = a @ w.T + b
        hs.append((a, z))
        a = act(z) if i < len(params) - 1 else z

    def backward(gy):
        grads = [None] * len(params)
        g = gy
        for i in reversed(range(len(params))):
            a_in, z = hs[i]
            if i < len(params) - 1:
                g = g * dact(z)
            grads[i] = (g.T @ a_in, g.sum(0))
            g = g @ params[i][0]
        return grads
    return a, backward


def rel(a, b):
    return abs(a - b) / max(abs(b), 1e-12)


def check_xor(dlc, d):
    rng = np.random.default_rng(0)
    weights = init(rng, [2, 2, 1])
    mlp_model(d / "xor.onnx", [2, 2, 1], "Relu", weights, 4)
    x = np.array([[0, 0], [0, 1], [1, 0], [1, 1]], np.float32)
    t = np.array([[0], [1], [1], [0]], np.float32)
    np.savez(d / "xor.npz", x=x, labels=t)
    run([dlc, "compile", d / "xor.onnx", "--train", "--loss=mse:y", "--optimizer=sgd:lr=0.1",
         "-o", d / "xor.so"])
    got = losses(run([dlc, "train", d / "xor.so", "--data", d / "xor.npz", "--steps", 1000]))
    params = [(w.astype(np.float64), b.astype(np.float64)) for w, b in weights]
    relu, drelu = (lambda z: np.maximum(z, 0)), (lambda z: (z > 0).astype(np.float64))
    ref = []
    for _ in range(100):
        y, back = forward_backward(params, x.astype(np.float64), relu, drelu)
        ref.append(np.mean((y - t) ** 2))
        grads = back(2 * (y - t) / y.size)
        params = [(w - 0.1 * gw, b - 0.1 * gb) for (w, b), (gw, gb) in zip(params, grads)]
    worst = max(rel(a, b) for a, b in zip(got[:100], ref))
    assert len(got) == 1000, f"expected 1000 step lines, got {len(got)}"
    assert worst <= 1e-3, f"xor: loss trajectory differs from float64 NumPy by {worst:.2e} (> 1e-3)"
    assert got[-1] < 1e-4, f"xor: final loss {got[-1]} is not < 1e-4"
    return f"first 100 losses within {worst:.1e} of float64 NumPy; loss at step 1000 {got[-1]:.2e}"


def check_adam(dlc, d):
    rng = np.random.default_rng(1)
    sizes, n = [6, 8, 3], 16
    weights = init(rng, sizes)
    mlp_model(d / "adam.onnx", sizes, "Tanh", weights, n)
    x = rng.standard_normal((n, 6)).astype(np.float32)
    labels = rng.integers(0, 3, n).astype(np.int64)
    np.savez_compressed(d / "adam.npz", x=x, labels=labels)
    lr, b1, b2, eps, wd = 0.01, 0.8, 0.95, 1e-6, 0.01
    run([dlc, "compile", d / "adam.onnx", "--train", "--loss=xent:y",
         f"--optimizer=adam:lr={lr},beta1={b1},beta2={b2},eps={eps},weight_decay={wd}", "-o", d / "adam.so"])
    got = losses(run([dlc, "train", d / "adam.so", "--data", d / "adam.npz", "--steps", 50]))
    params = [(w.astype(np.float64), b.astype(np.float64)) for w, b in weights]
    state = [[np.zeros_like(p) for p in layer] for layer in params]
    state2 = [[np.zeros_like(p) for p in layer] for layer in params]
    ref = []
    for step in range(1, 51):
        y, back = forward_backward(params, x.astype(np.float64), np.tanh, lambda z: 1 - np.tanh(z) ** 2)
        z = y - y.max(1, keepdims=True)
        logp = z - np.log(np.exp(z).sum(1, keepdims=True))
        ref.append(-logp[np.arange(n), labels].mean())
        gy = np.exp(logp)
        gy[np.arange(n), labels] -= 1
        grads = back(gy / n)
        new = []
        for li, ((w, b), (gw, gb)) in enumerate(zip(params, grads)):
            layer = []
            for pi, (p, g) in enumerate(((w, gw), (b, gb))):
                g = g + wd * p
                state[li][pi] = b1 * state[li][pi] + (1 - b1) * g
                state2[li][pi] = b2 * state2[li][pi] + (1 - b2) * g * g
                mhat = state[li][pi] / (1 - b1 ** step)
                vhat = state2[li][pi] / (1 - b2 ** step)
                layer.append(p - lr * mhat / (np.sqrt(vhat) + eps))
            new.append(tuple(layer))
        params = new
    worst = max(rel(a, b) for a, b in zip(got, ref))
    assert worst <= 1e-3, f"adam: loss trajectory differs from float64 NumPy Adam by {worst:.2e} (> 1e-3)"
    return f"50 losses within {worst:.1e} of float64 NumPy Adam (final {got[-1]:.4f})"


def check_mlp(dlc, d):
    rng = np.random.default_rng(2)
    n, batch, classes = 1024, 128, 10
    centers = rng.standard_normal((classes, 784)).astype(np.float32)
    labels = rng.integers(0, classes, n)
    x = (0.25 * centers[labels] + rng.standard_normal((n, 784))).astype(np.float32)
    np.savez(d / "mlp.npz", x=x, labels=labels.astype(np.int64))
    mlp_model(d / "mlp.onnx", [784, 128, 10], "Relu", init(rng, [784, 128, 10]), batch)
    run([dlc, "compile", d / "mlp.onnx", "--train", "--loss=xent:y",
         "--optimizer=sgd:lr=0.02,momentum=0.9", "-o", d / "mlp.so"])
    got = losses(run([dlc, "train", d / "mlp.so", "--data", d / "mlp.npz", "--steps", 40,
                      "--batch", batch, "--log-every", 10, "--save-onnx", d / "mlp_trained.onnx"]))
    assert len(got) == 4, f"expected 4 logged steps (every 10 of 40), got {len(got)}"
    sess = ort.InferenceSession(str(d / "mlp_trained.onnx"), providers=["CPUExecutionProvider"])
    correct = 0
    for s in range(0, n, batch):
        correct += int((sess.run(None, {"x": x[s:s + batch]})[0].argmax(1) == labels[s:s + batch]).sum())
    acc = correct / n
    assert acc >= 0.95, f"mlp: training accuracy {acc:.3f} < 0.95 (losses {got})"
    return f"training accuracy {acc:.3f} after 40 steps (loss {got[0]:.3f} -> {got[-1]:.3f})"


def check_remat(dlc, d):
    """Recomputing activations changes memory, not results: the same losses, fewer saved bytes."""
    got, saved = {}, {}
    for policy in ["store-all", "recompute-all", "auto:0.1"]:
        p = subprocess.run([dlc, "compile", d / "mlp.onnx", "--train", "--loss=xent:y",
                            "--optimizer=adam:lr=0.01", f"--remat={policy}", "-o",
                            d / f"remat_{policy}.so"], stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, text=True, check=True)
        line = [l for l in p.stderr.splitlines() if "saved activations" in l][0]
        value, unit = line.split("saved activations ")[1].split()[:2]
        saved[policy] = float(value) * {"B": 1, "KiB": 1024, "MiB": 1 << 20}[unit]
        got[policy] = losses(run([dlc, "train", d / f"remat_{policy}.so", "--data", d / "mlp.npz",
                                  "--steps", 10, "--batch", 128]))
    for policy in ["recompute-all", "auto:0.1"]:
        worst = max(rel(a, b) for a, b in zip(got[policy], got["store-all"]))
        assert worst <= 1e-6, f"remat {policy}: losses differ from store-all by {worst:.2e}"
        assert saved[policy] < saved["store-all"], f"remat {policy}: saves no memory"
    return (f"same losses; saved activations {saved['store-all'] / 1024:.0f} KiB (store-all), "
            f"{saved['recompute-all'] / 1024:.0f} KiB (recompute-all), {saved['auto:0.1'] / 1024:.0f} KiB (auto:0.1)")


def check_freeze(dlc, d):
    rng = np.random.default_rng(3)
    weights = init(rng, [3, 4, 2])
    mlp_model(d / "freeze.onnx", [3, 4, 2], "Sigmoid", weights, 8)
    np.savez(d / "freeze.npz", x=rng.standard_normal((8, 3)).astype(np.float32),
             labels=rng.standard_normal((8, 2)).astype(np.float32))
    run([dlc, "compile", d / "freeze.onnx", "--train", "--loss=mse:y", "--optimizer=adamw:lr=0.01,weight_decay=0.1",
         "--freeze=fc0.weight,fc1.bias", "-o", d / "freeze.so"])
    run([dlc, "train", d / "freeze.so", "--data", d / "freeze.npz", "--steps", 5,
         "--save-onnx", d / "freeze_trained.onnx"])
    trained = {i.name: numpy_helper.to_array(i) for i in onnx.load(d / "freeze_trained.onnx").graph.initializer}
    original = {"fc0.weight": weights[0][0], "fc0.bias": weights[0][1], "fc1.weight": weights[1][0],
                "fc1.bias": weights[1][1]}
    for name, value in original.items():
        same = np.array_equal(trained[name], value)
        assert same == (name in ("fc0.weight", "fc1.bias")), \
            f"freeze: '{name}' {'changed' if not same else 'did not change'}"
    return "frozen initializers unchanged, the others trained"


def check_cpp(example, d):
    """The same training through the C++ API (examples/train_onnx.cpp, JIT)."""
    out = run([example, d / "xor.onnx", "xor", "mse:y", "sgd:lr=0.1", 1000, d / "xor_cpp.onnx"])
    cpp = losses(out)
    cli = losses(run([DLC, "train", d / "xor.so", "--data", d / "xor.npz", "--steps", 1000]))
    worst = max(rel(a, b) for a, b in zip(cpp[:100], cli[:100]))
    assert worst <= 1e-6, f"cpp xor: loss trajectory differs from dlc train's by {worst:.2e}"
    assert cpp[-1] < 1e-4, f"cpp xor: final loss {cpp[-1]} is not < 1e-4"
    assert "accuracy 1.0000" in out, "cpp xor: the saved model does not compute XOR"
    out = run([example, d / "mlp.onnx", "classes", "xent:y", "sgd:lr=0.02,momentum=0.9", 40,
               d / "mlp_cpp.onnx"])
    acc = float(out.split("accuracy")[1])
    assert acc >= 0.95, f"cpp mlp: training accuracy {acc} < 0.95"
    return f"xor trajectory = dlc train's (within {worst:.0e}), final {cpp[-1]:.1e}; mlp accuracy {acc:.3f}"


DLC = None


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dlc", required=True)
    ap.add_argument("--keep")
    ap.add_argument("--example", help="examples/train_onnx.cpp's binary: also train from C++")
    a = ap.parse_args()
    global DLC
    DLC = a.dlc
    tmp = None if a.keep else tempfile.TemporaryDirectory()
    d = Path(a.keep or tmp.name)
    d.mkdir(parents=True, exist_ok=True)
    failures = 0
    checks = [("xor", check_xor), ("adam", check_adam), ("mlp", check_mlp), ("remat", check_remat),
              ("freeze", check_freeze)]
    if a.example:
        checks.append(("cpp", lambda dlc, d: check_cpp(a.example, d)))
    for name, check in checks:
        try:
            print(f"ok   {name}: {check(a.dlc, d)}")
        except (AssertionError, RuntimeError) as e:
            failures += 1
            print(f"FAIL {name}: {e}")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()

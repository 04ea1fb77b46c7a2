# ONNX model generators for the dlc end-to-end tests (built with onnx.helper, random weights, fixed seeds).
"""End-to-end test models for dlc.

Every entry of :data:`MODELS` is a callable ``build(seed) -> (model, inputs)``
where ``model`` is an ``onnx.ModelProto`` and ``inputs`` maps each graph input
name to a numpy array of the exact declared shape and dtype.  All shapes are
static, all floating point data is float32, and weights are small random
initializers (scaled by ~1/sqrt(fan_in)) so that outputs stay O(1).

Models are built with ``onnx.helper`` only: no binary files are committed, the
same seed always produces byte-identical models and inputs.

Usage::

    from models import MODELS
    model, inputs = MODELS["lenet5"](0)
"""
from __future__ import annotations

import math
from typing import Callable

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

DEFAULT_OPSET = 17
IR_VERSION = 8

_NP_TO_ONNX = {
    np.dtype(np.float32): TensorProto.FLOAT,
    np.dtype(np.float64): TensorProto.DOUBLE,
    np.dtype(np.int64): TensorProto.INT64,
    np.dtype(np.int32): TensorProto.INT32,
    np.dtype(np.bool_): TensorProto.BOOL,
    np.dtype(np.int8): TensorProto.INT8,
    np.dtype(np.uint8): TensorProto.UINT8,
    np.dtype(np.int16): TensorProto.INT16,
    np.dtype(np.uint16): TensorProto.UINT16,
}


class GraphBuilder:
    """Small helper around onnx.helper that names nodes/values automatically.

    ``b.node(op, inputs, **attrs)`` appends a node and returns its output name
    (or a list of names when ``n_out > 1``).  ``b.init(array)`` registers an
    initializer and returns its name.  ``b.build(...)`` makes the ModelProto.
    """

    def __init__(self, name: str, seed: int):
        self.name = name
        self.rng = np.random.default_rng(seed)
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []
        self.inputs: list[onnx.ValueInfoProto] = []
        self.outputs: list[onnx.ValueInfoProto] = []
        self._counts: dict[str, int] = {}

    def _fresh(self, prefix: str) -> str:
        n = self._counts.get(prefix, 0)
        self._counts[prefix] = n + 1
        return f"{prefix}_{n}"

    # -- values ---------------------------------------------------------------
    def input(self, name: str, dtype, shape) -> str:
        elem = _NP_TO_ONNX[np.dtype(dtype)]
        self.inputs.append(helper.make_tensor_value_info(name, elem, list(shape)))
        return name

    def output(self, value: str, dtype, shape, name: str | None = None) -> str:
        """Declare ``value`` as a graph output, renaming the value to ``name`` if given."""
        if name is not None and name != value:
            for n in self.nodes:  # rename in place: no Identity node, like real exporters
                n.output[:] = [name if o == value else o for o in n.output]
                n.input[:] = [name if i == value else i for i in n.input]
            value = name
        elem = _NP_TO_ONNX[np.dtype(dtype)]
        self.outputs.append(helper.make_tensor_value_info(value, elem, list(shape)))
        return value

    def init(self, array, name: str | None = None) -> str:
        array = np.asarray(array)
        name = name or self._fresh("const")
        self.inits.append(numpy_helper.from_array(array, name))
        return name

    def weight(self, shape, fan_in: int, name: str, gain: float = 1.0) -> str:
        """Random normal float32 weight with std = gain / sqrt(fan_in)."""
        w = self.rng.standard_normal(shape) * (gain / math.sqrt(fan_in))
        return self.init(w.astype(np.float32), name)

    def bias(self, n: int, name: str, scale: float = 0.05) -> str:
        return self.init((self.rng.standard_normal(n) * scale).astype(np.float32), name)

    def i64(self, values, name: str | None = None) -> str:
        return self.init(np.asarray(values, dtype=np.int64), name)

    def f32(self, values, name: str | None = None) -> str:
        return self.init(np.asarray(values, dtype=np.float32), name)

    # -- nodes ----------------------------------------------------------------
    def node(self, op: str, inputs, out=None, name: str | None = None,
             n_out: int = 1, domain: str = "", **attrs):
        name = name or self._fresh(op)
        if out is None:
            outs = [f"{name}_out{i}" if n_out > 1 else f"{name}_out" for i in range(n_out)]
        elif isinstance(out, str):
            outs = [out]
        else:
            outs = list(out)
        self.nodes.append(helper.make_node(op, list(inputs), outs, name=name,
                                           domain=domain or None, **attrs))
        return outs[0] if len(outs) == 1 else outs

    # -- model ----------------------------------------------------------------
    def build(self, opset: int = DEFAULT_OPSET) -> onnx.ModelProto:
        graph = helper.make_graph(self.nodes, self.name, self.inputs, self.outputs,
                                  initializer=self.inits)
        model = helper.make_model(graph, producer_name="dlc-e2e",
                                  opset_imports=[helper.make_opsetid("", opset)])
        model.ir_version = IR_VERSION
        return model


# ---------------------------------------------------------------------------
# Shared building blocks
# ---------------------------------------------------------------------------

def _conv(b: GraphBuilder, x: str, cin: int, cout: int, k: int, stride: int = 1,
          pad: int = 0, group: int = 1, bias: bool = True, name: str = "conv",
          gain: float = math.sqrt(2.0)) -> str:
    fan_in = (cin // group) * k * k
    w = b.weight((cout, cin // group, k, k), fan_in, f"{name}.weight", gain)
    ins = [x, w]
    if bias:
        ins.append(b.bias(cout, f"{name}.bias"))
    return b.node("Conv", ins, name=name, kernel_shape=[k, k], strides=[stride, stride],
                  pads=[pad] * 4, group=group, dilations=[1, 1])


def _bn(b: GraphBuilder, x: str, c: int, name: str) -> str:
    """Inference-mode BatchNormalization with random (positive-var) statistics."""
    r = b.rng
    scale = b.f32(r.uniform(0.8, 1.2, c), f"{name}.weight")
    shift = b.f32(r.normal(0.0, 0.05, c), f"{name}.bias")
    mean = b.f32(r.normal(0.0, 0.05, c), f"{name}.running_mean")
    var = b.f32(r.uniform(0.8, 1.2, c), f"{name}.running_var")
    return b.node("BatchNormalization", [x, scale, shift, mean, var], name=name,
                  epsilon=1e-5, momentum=0.9)


def _linear(b: GraphBuilder, x: str, fin: int, fout: int, name: str,
            gemm: bool = False, gain: float = 1.0) -> str:
    """Fully connected layer: Gemm(transB=1) or MatMul + Add (exporter forms)."""
    if gemm:
        w = b.weight((fout, fin), fin, f"{name}.weight", gain)
        return b.node("Gemm", [x, w, b.bias(fout, f"{name}.bias")], name=name,
                      alpha=1.0, beta=1.0, transB=1)
    w = b.weight((fin, fout), fin, f"{name}.weight", gain)
    y = b.node("MatMul", [x, w], name=f"{name}/MatMul")
    return b.node("Add", [y, b.bias(fout, f"{name}.bias")], name=f"{name}/Add")


def _layer_norm(b: GraphBuilder, x: str, d: int, name: str, eps: float) -> str:
    r = b.rng
    g = b.f32(r.uniform(0.9, 1.1, d), f"{name}.weight")
    beta = b.f32(r.normal(0.0, 0.02, d), f"{name}.bias")
    return b.node("LayerNormalization", [x, g, beta], name=name, axis=-1, epsilon=eps)


def _normal(rng, shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


# ---------------------------------------------------------------------------
# MLPs, LeNet-5
# ---------------------------------------------------------------------------

def _mlp(batch: int, gemm: bool) -> Callable:
    def build(seed: int):
        b = GraphBuilder(f"mlp_b{batch}", seed)
        x = b.input("input", np.float32, [batch, 784])
        dims = [784, 512, 512, 10]
        for i in range(3):
            last = i == 2
            x = _linear(b, x, dims[i], dims[i + 1], f"fc{i + 1}", gemm=gemm,
                        gain=1.0 if last else math.sqrt(2.0))
            if not last:
                x = b.node("Relu", [x], name=f"relu{i + 1}")
        b.output(x, np.float32, [batch, 10], name="logits")
        data = {"input": b.rng.uniform(0.0, 1.0, (batch, 784)).astype(np.float32)}
        return b.build(), data
    build.__doc__ = (f"MLP 784-512-512-10, batch {batch}, "
                     f"{'Gemm(transB=1)' if gemm else 'MatMul+Add'} layers, Relu between.")
    return build


def lenet5(seed: int):
    """LeNet-5 on [2,1,32,32]: Conv-Relu-MaxPool-Conv-Relu-AveragePool-Reshape-3xGemm."""
    b = GraphBuilder("lenet5", seed)
    x = b.input("image", np.float32, [2, 1, 32, 32])
    x = _conv(b, x, 1, 6, 5, name="conv1")                          # 2x6x28x28
    x = b.node("Relu", [x], name="relu1")
    x = b.node("MaxPool", [x], name="pool1", kernel_shape=[2, 2], strides=[2, 2])
    x = _conv(b, x, 6, 16, 5, name="conv2")                         # 2x16x10x10
    x = b.node("Relu", [x], name="relu2")
    x = b.node("AveragePool", [x], name="pool2", kernel_shape=[2, 2], strides=[2, 2])
    x = b.node("Reshape", [x, b.i64([-1, 400], "flat_shape")], name="flatten")  # torch .view(-1, 400)
    x = b.node("Relu", [_linear(b, x, 400, 120, "fc1", gemm=True, gain=math.sqrt(2))], name="relu3")
    x = b.node("Relu", [_linear(b, x, 120, 84, "fc2", gemm=True, gain=math.sqrt(2))], name="relu4")
    x = _linear(b, x, 84, 10, "fc3", gemm=True)
    b.output(x, np.float32, [2, 10], name="logits")
    return b.build(), {"image": _normal(b.rng, (2, 1, 32, 32))}


# ---------------------------------------------------------------------------
# ResNet-18 (torchvision architecture)
# ---------------------------------------------------------------------------

def resnet18(seed: int):
    """torchvision ResNet-18 on [1,3,224,224], BatchNormalization kept, random weights."""
    b = GraphBuilder("resnet18", seed)
    x = b.input("input", np.float32, [1, 3, 224, 224])
    x = _conv(b, x, 3, 64, 7, stride=2, pad=3, bias=False, name="conv1")
    x = b.node("Relu", [_bn(b, x, 64, "bn1")], name="relu")
    x = b.node("MaxPool", [x], name="maxpool", kernel_shape=[3, 3], strides=[2, 2],
               pads=[1, 1, 1, 1])
    cin = 64
    for stage, cout in enumerate([64, 128, 256, 512], start=1):
        for blk in range(2):
            stride = 2 if (stage > 1 and blk == 0) else 1
            p = f"layer{stage}.{blk}"
            identity = x
            y = _conv(b, x, cin, cout, 3, stride=stride, pad=1, bias=False, name=f"{p}.conv1")
            y = b.node("Relu", [_bn(b, y, cout, f"{p}.bn1")], name=f"{p}.relu1")
            y = _conv(b, y, cout, cout, 3, stride=1, pad=1, bias=False, name=f"{p}.conv2",
                      gain=0.5)  # damp the residual branch so activations stay O(1)
            y = _bn(b, y, cout, f"{p}.bn2")
            if stride != 1 or cin != cout:
                identity = _conv(b, x, cin, cout, 1, stride=stride, bias=False,
                                 name=f"{p}.downsample.0", gain=1.0)
                identity = _bn(b, identity, cout, f"{p}.downsample.1")
            y = b.node("Add", [y, identity], name=f"{p}.add")
            x = b.node("Relu", [y], name=f"{p}.relu2")
            cin = cout
    x = b.node("GlobalAveragePool", [x], name="avgpool")
    x = b.node("Flatten", [x], name="flatten", axis=1)
    x = _linear(b, x, 512, 1000, "fc", gemm=True)
    b.output(x, np.float32, [1, 1000], name="logits")
    return b.build(), {"input": _normal(b.rng, (1, 3, 224, 224))}


# ---------------------------------------------------------------------------
# MobileNetV2
# ---------------------------------------------------------------------------

# (expansion t, output channels c, repeats n, first stride s) -- the paper's table.
MOBILENETV2_CONFIG = [(1, 16, 1, 1), (6, 24, 2, 2), (6, 32, 3, 2), (6, 64, 4, 2),
                      (6, 96, 3, 1), (6, 160, 3, 2), (6, 320, 1, 1)]


def mobilenetv2(seed: int):
    """Full MobileNetV2 (all 7 block configs, width 1.0) on [1,3,224,224].

    Conv+BN kept separate, ReLU6 as Clip with min/max inputs (opset 11+ form),
    depthwise convs with group = channels, residual Add on stride-1 equal-width blocks.
    """
    b = GraphBuilder("mobilenetv2", seed)
    lo, hi = b.f32(0.0, "clip_min"), b.f32(6.0, "clip_max")

    def conv_bn(x, cin, cout, k, stride, group, name, relu6, gain=math.sqrt(2.0)):
        y = _conv(b, x, cin, cout, k, stride=stride, pad=k // 2, group=group, bias=False,
                  name=f"{name}.conv", gain=gain)
        y = _bn(b, y, cout, f"{name}.bn")
        return b.node("Clip", [y, lo, hi], name=f"{name}.relu6") if relu6 else y

    x = b.input("input", np.float32, [1, 3, 224, 224])
    x = conv_bn(x, 3, 32, 3, 2, 1, "features.0", True)
    cin, idx = 32, 1
    for t, c, n, s in MOBILENETV2_CONFIG:
        for i in range(n):
            stride = s if i == 0 else 1
            p = f"features.{idx}"
            hidden = cin * t
            y = x
            if t != 1:
                y = conv_bn(y, cin, hidden, 1, 1, 1, f"{p}.expand", True)
            y = conv_bn(y, hidden, hidden, 3, stride, hidden, f"{p}.dw", True)
            y = conv_bn(y, hidden, c, 1, 1, 1, f"{p}.project", False, gain=0.7)
            if stride == 1 and cin == c:
                y = b.node("Add", [x, y], name=f"{p}.add")
            x, cin, idx = y, c, idx + 1
    x = conv_bn(x, cin, 1280, 1, 1, 1, f"features.{idx}", True)
    x = b.node("GlobalAveragePool", [x], name="avgpool")
    x = b.node("Flatten", [x], name="flatten", axis=1)
    x = _linear(b, x, 1280, 1000, "classifier", gemm=True)
    b.output(x, np.float32, [1, 1000], name="logits")
    return b.build(), {"input": _normal(b.rng, (1, 3, 224, 224))}


# ---------------------------------------------------------------------------
# BERT encoder layer
# ---------------------------------------------------------------------------

def bert_layer(seed: int):
    """Embeddings + one BERT encoder layer, seq 128, hidden 256, 4 heads, FFN 1024.

    Mimics a PyTorch export: Gather embeddings, position embeddings sliced with an
    end computed by Shape->Gather->Unsqueeze, LayerNormalization (opset 17), Reshape
    targets built by Shape->Gather->Unsqueeze->Concat, extended attention mask
    (1-mask)*-10000, Erf-form GELU.
    """
    S, D, H, DH, F, V = 128, 256, 4, 64, 1024, 1000
    b = GraphBuilder("bert_layer", seed)
    ids = b.input("input_ids", np.int64, [1, S])
    mask = b.input("attention_mask", np.float32, [1, S])
    r = b.rng

    # Embeddings.
    word = b.f32(r.normal(0.0, 0.5, (V, D)), "embeddings.word_embeddings.weight")
    pos = b.f32(r.normal(0.0, 0.5, (512, D)), "embeddings.position_embeddings.weight")
    e = b.node("Gather", [word, ids], name="embeddings/word/Gather", axis=0)  # [1,S,D]
    ids_shape = b.node("Shape", [ids], name="embeddings/Shape")
    seq_len = b.node("Gather", [ids_shape, b.i64(1, "const_one_scalar")],
                     name="embeddings/Gather_seq", axis=0)                   # scalar
    seq_len_1d = b.node("Unsqueeze", [seq_len, b.i64([0], "axes_0")], name="embeddings/Unsqueeze")
    pos_e = b.node("Slice", [pos, b.i64([0], "slice_start"), seq_len_1d, b.i64([0], "slice_axes")],
                   name="embeddings/position/Slice")                         # [S,D]
    e = b.node("Add", [e, pos_e], name="embeddings/Add")
    h = _layer_norm(b, e, D, "embeddings/LayerNorm", 1e-12)

    # Reshape target [batch, seq, H, DH] built from the runtime shape, like exporters do.
    hs = b.node("Shape", [h], name="attn/Shape")
    batch = b.node("Unsqueeze", [b.node("Gather", [hs, b.i64(0, "const_zero_scalar")],
                                        name="attn/Gather_batch", axis=0), "axes_0"],
                   name="attn/Unsqueeze_batch")
    seq = b.node("Unsqueeze", [b.node("Gather", [hs, "const_one_scalar"],
                                      name="attn/Gather_seq", axis=0), "axes_0"],
                 name="attn/Unsqueeze_seq")
    heads_shape = b.node("Concat", [batch, seq, b.i64([H, DH], "heads_dims")],
                         name="attn/Concat_heads", axis=0)
    merged_shape = b.node("Concat", [batch, seq, b.i64([D], "hidden_dim")],
                          name="attn/Concat_merged", axis=0)

    def heads(name, perm):
        y = _linear(b, h, D, D, f"attn.{name}")
        y = b.node("Reshape", [y, heads_shape], name=f"attn.{name}/Reshape")
        return b.node("Transpose", [y], name=f"attn.{name}/Transpose", perm=perm)

    q = heads("query", [0, 2, 1, 3])                                        # [1,H,S,DH]
    k = heads("key", [0, 2, 1, 3])
    v = heads("value", [0, 2, 1, 3])
    kt = b.node("Transpose", [k], name="attn/Transpose_kT", perm=[0, 1, 3, 2])
    scores = b.node("MatMul", [q, kt], name="attn/MatMul_qk")               # [1,H,S,S]
    scores = b.node("Div", [scores, b.f32(math.sqrt(DH), "sqrt_head_dim")], name="attn/Div")
    ext = b.node("Unsqueeze", [mask, b.i64([1, 2], "axes_1_2")], name="mask/Unsqueeze")  # [1,1,1,S]
    ext = b.node("Sub", [b.f32(1.0, "one_f"), ext], name="mask/Sub")
    ext = b.node("Mul", [ext, b.f32(-10000.0, "neg_10000")], name="mask/Mul")
    scores = b.node("Add", [scores, ext], name="attn/Add_mask")
    probs = b.node("Softmax", [scores], name="attn/Softmax", axis=-1)
    ctx = b.node("MatMul", [probs, v], name="attn/MatMul_v")                # [1,H,S,DH]
    ctx = b.node("Transpose", [ctx], name="attn/Transpose_ctx", perm=[0, 2, 1, 3])
    ctx = b.node("Reshape", [ctx, merged_shape], name="attn/Reshape_ctx")   # [1,S,D]
    a = _linear(b, ctx, D, D, "attn.output.dense")
    h = _layer_norm(b, b.node("Add", [a, h], name="attn/Add_residual"), D,
                    "attn.output.LayerNorm", 1e-12)

    # Feed-forward with Erf GELU: x * 0.5 * (1 + erf(x / sqrt(2))) as exported by torch.
    f = _linear(b, h, D, F, "intermediate.dense")
    g = b.node("Div", [f, b.f32(math.sqrt(2.0), "sqrt_2")], name="gelu/Div")
    g = b.node("Erf", [g], name="gelu/Erf")
    g = b.node("Add", [g, "one_f"], name="gelu/Add")
    g = b.node("Mul", [f, g], name="gelu/Mul")
    g = b.node("Mul", [g, b.f32(0.5, "half_f")], name="gelu/Mul_half")
    o = _linear(b, g, F, D, "output.dense")
    h = _layer_norm(b, b.node("Add", [o, h], name="output/Add_residual"), D,
                    "output.LayerNorm", 1e-12)
    b.output(h, np.float32, [1, S, D], name="last_hidden_state")

    attn = np.ones((1, S), np.float32)
    attn[:, 100:] = 0.0  # padded tail
    data = {"input_ids": r.integers(0, V, (1, S), dtype=np.int64), "attention_mask": attn}
    return b.build(), data


# ---------------------------------------------------------------------------
# GPT-2 block
# ---------------------------------------------------------------------------

def gpt2_block(seed: int, S: int = 64, D: int = 256, H: int = 4, F: int = 1024,
               name: str = "gpt2_block"):
    """GPT-2 decoder block on hidden states [1,64,256]: pre-LN causal attention + MLP.

    Fused QKV MatMul [256,768] + Split (sizes as input, opset 13+), 4 heads,
    causal mask via Where(tril, scores, -1e4), tanh-form GELU written out with Pow.
    The keyword arguments resize it (bench/models.py: GPT-2 small, S=128, D=768, H=12, F=3072).
    """
    DH = D // H
    b = GraphBuilder(name, seed)
    x = b.input("hidden_states", np.float32, [1, S, D])

    h = _layer_norm(b, x, D, "ln_1", 1e-5)
    qkv = _linear(b, h, D, 3 * D, "attn.c_attn")                           # [1,S,3D]
    q, k, v = b.node("Split", [qkv, b.i64([D, D, D], "split_sizes")], name="attn/Split",
                     n_out=3, axis=2)
    heads_shape = b.i64([1, S, H, DH], "heads_shape")
    q = b.node("Transpose", [b.node("Reshape", [q, heads_shape], name="attn/Reshape_q")],
               name="attn/Transpose_q", perm=[0, 2, 1, 3])                  # [1,H,S,DH]
    k = b.node("Transpose", [b.node("Reshape", [k, heads_shape], name="attn/Reshape_k")],
               name="attn/Transpose_k", perm=[0, 2, 3, 1])                  # [1,H,DH,S]
    v = b.node("Transpose", [b.node("Reshape", [v, heads_shape], name="attn/Reshape_v")],
               name="attn/Transpose_v", perm=[0, 2, 1, 3])
    scores = b.node("MatMul", [q, k], name="attn/MatMul_qk")
    scores = b.node("Div", [scores, b.f32(math.sqrt(DH), "sqrt_head_dim")], name="attn/Div")
    tril = b.init(np.tril(np.ones((S, S), dtype=np.bool_)).reshape(1, 1, S, S), "attn.bias")
    scores = b.node("Where", [tril, scores, b.f32(-1e4, "masked_bias")], name="attn/Where")
    probs = b.node("Softmax", [scores], name="attn/Softmax", axis=-1)
    ctx = b.node("MatMul", [probs, v], name="attn/MatMul_v")
    ctx = b.node("Transpose", [ctx], name="attn/Transpose_ctx", perm=[0, 2, 1, 3])
    ctx = b.node("Reshape", [ctx, b.i64([1, S, D], "merged_shape")], name="attn/Reshape_ctx")
    a = _linear(b, ctx, D, D, "attn.c_proj")
    x = b.node("Add", [x, a], name="attn/Add_residual")

    h = _layer_norm(b, x, D, "ln_2", 1e-5)
    f = _linear(b, h, D, F, "mlp.c_fc")
    # gelu_new: 0.5 * x * (1 + tanh(sqrt(2/pi) * (x + 0.044715 * x^3)))
    c = b.node("Pow", [f, b.f32(3.0, "three_f")], name="gelu/Pow")
    c = b.node("Mul", [c, b.f32(0.044715, "gelu_coef")], name="gelu/Mul_coef")
    c = b.node("Add", [f, c], name="gelu/Add_x")
    c = b.node("Mul", [c, b.f32(math.sqrt(2.0 / math.pi), "sqrt_2_over_pi")], name="gelu/Mul_scale")
    c = b.node("Tanh", [c], name="gelu/Tanh")
    c = b.node("Add", [c, b.f32(1.0, "one_f")], name="gelu/Add_one")
    g = b.node("Mul", [b.node("Mul", [f, b.f32(0.5, "half_f")], name="gelu/Mul_half"), c],
               name="gelu/Mul")
    m = _linear(b, g, F, D, "mlp.c_proj")
    x = b.node("Add", [x, m], name="mlp/Add_residual")
    b.output(x, np.float32, [1, S, D], name="output")
    return b.build(), {"hidden_states": _normal(b.rng, (1, S, D))}


# ---------------------------------------------------------------------------
# Small single-op smoke tests
# ---------------------------------------------------------------------------

def add_broadcast(seed: int):
    """Add of [2,3,4] and [4] (numpy broadcasting), two graph inputs."""
    b = GraphBuilder("add_broadcast", seed)
    a = b.input("a", np.float32, [2, 3, 4])
    c = b.input("b", np.float32, [4])
    b.output(b.node("Add", [a, c], out="sum", name="add"), np.float32, [2, 3, 4])
    return b.build(), {"a": _normal(b.rng, (2, 3, 4)), "b": _normal(b.rng, (4,))}


def softmax(seed: int):
    """Softmax over the last axis of [2,8,32] (inputs scaled x4 to exercise max-subtraction)."""
    b = GraphBuilder("softmax", seed)
    x = b.input("x", np.float32, [2, 8, 32])
    b.output(b.node("Softmax", [x], out="y", name="softmax", axis=-1), np.float32, [2, 8, 32])
    return b.build(), {"x": _normal(b.rng, (2, 8, 32)) * 4.0}


def conv_depthwise(seed: int):
    """Depthwise 3x3 Conv (group=8, pad 1, bias) on [1,8,16,16]."""
    b = GraphBuilder("conv_depthwise", seed)
    x = b.input("x", np.float32, [1, 8, 16, 16])
    y = _conv(b, x, 8, 8, 3, stride=1, pad=1, group=8, name="dwconv", gain=1.0)
    b.output(y, np.float32, [1, 8, 16, 16], name="y")
    return b.build(), {"x": _normal(b.rng, (1, 8, 16, 16))}


def transpose_reshape(seed: int):
    """Transpose [2,3,4,5] perm [0,2,3,1] then Reshape to [8,15].

    The I/O names contain ':' and '/' (TF-export style) to exercise --input parsing
    and the output file-name sanitisation (output file ``out_reshaped_0.npy``).
    """
    b = GraphBuilder("transpose_reshape", seed)
    x = b.input("input:0", np.float32, [2, 3, 4, 5])
    t = b.node("Transpose", [x], name="transpose", perm=[0, 2, 3, 1])   # [2,4,5,3]
    y = b.node("Reshape", [t, b.i64([8, 15], "shape")], out="out/reshaped:0", name="reshape")
    b.output(y, np.float32, [8, 15])
    return b.build(), {"input:0": _normal(b.rng, (2, 3, 4, 5))}


def reduce_mean(seed: int):
    """ReduceMean (opset 13, axes attribute) over axes [1,3], keepdims=0: [2,3,4,5] -> [2,4]."""
    b = GraphBuilder("reduce_mean", seed)
    x = b.input("x", np.float32, [2, 3, 4, 5])
    y = b.node("ReduceMean", [x], out="y", name="reduce_mean", axes=[1, 3], keepdims=0)
    b.output(y, np.float32, [2, 4])
    return b.build(13), {"x": _normal(b.rng, (2, 3, 4, 5))}


def reduce_mean_op18(seed: int):
    """ReduceMean at opset 18 (axes as an input) over axis -1, keepdims=1: [2,3,4,5] -> [2,3,4,1]."""
    b = GraphBuilder("reduce_mean_op18", seed)
    x = b.input("x", np.float32, [2, 3, 4, 5])
    y = b.node("ReduceMean", [x, b.i64([-1], "axes")], out="y", name="reduce_mean", keepdims=1)
    b.output(y, np.float32, [2, 3, 4, 1])
    return b.build(18), {"x": _normal(b.rng, (2, 3, 4, 5))}


def window_softmax(seed: int):
    """MaxViT's window attention scores and squeeze-excitation side by side: Softmax over rows
    of 49 (a peeled 16-wide partial tile whose partial sums are a scratch tensor) plus a
    1x1 conv to 16 channels (whose tile tensor has that scratch's type). CSE merged the two
    empty tensors, so the threads of the softmax's parallel loop shared one scratch buffer:
    a data race, different answers run to run at 2 threads (stress_threads.py catches it)."""
    b = GraphBuilder("window_softmax", seed)
    a = b.input("a", np.float32, [1, 256, 1, 1])
    s = b.input("s", np.float32, [1, 64, 2, 49, 49])
    fc = b.node("Conv", [a, b.weight([16, 256, 1, 1], 256, "fc1.weight")], out="fc", name="fc1")
    b.output(fc, np.float32, [1, 16, 1, 1])
    sb = b.node("Add", [s, b.init(_normal(b.rng, (2, 49, 49)), "rel_bias")], name="add_bias")
    p = b.node("Softmax", [sb], out="p", name="softmax", axis=-1)
    b.output(p, np.float32, [1, 64, 2, 49, 49])
    return b.build(), {"a": _normal(b.rng, (1, 256, 1, 1)), "s": _normal(b.rng, (1, 64, 2, 49, 49))}


MODELS: dict[str, Callable[[int], tuple[onnx.ModelProto, dict[str, np.ndarray]]]] = {
    # quick single-op smoke tests first
    "add_broadcast": add_broadcast,
    "softmax": softmax,
    "conv_depthwise": conv_depthwise,
    "transpose_reshape": transpose_reshape,
    "reduce_mean": reduce_mean,
    "reduce_mean_op18": reduce_mean_op18,
    "window_softmax": window_softmax,
    # networks
    "mlp_b1": _mlp(1, gemm=False),
    "mlp_b64": _mlp(64, gemm=True),
    "lenet5": lenet5,
    "resnet18": resnet18,
    "mobilenetv2": mobilenetv2,
    "bert_layer": bert_layer,
    "gpt2_block": gpt2_block,
}


def sanitize_name(name: str) -> str:
    """Output file stem used by `dlc run`: chars outside [A-Za-z0-9_.-] become '_'."""
    return "".join(ch if (ch.isascii() and (ch.isalnum() or ch in "_.-")) else "_" for ch in name)


if __name__ == "__main__":
    # Print a summary of every model: python models.py [NAME ...]
    import sys
    for model_name in sys.argv[1:] or MODELS:
        m, ins = MODELS[model_name](0)
        onnx.checker.check_model(m, full_check=True)
        print(f"{model_name}: {len(m.graph.node)} nodes, "
              f"{sum(int(np.prod(t.dims)) for t in m.graph.initializer)} params, "
              f"inputs={[(k, v.shape, str(v.dtype)) for k, v in ins.items()]}")

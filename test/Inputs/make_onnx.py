#!/usr/bin/env python3
# Writes small ONNX models (good and deliberately broken) for the lit tests: make_onnx.py NAME OUT.onnx
import sys

import numpy as np
import onnx
from onnx import TensorProto as TP
from onnx import helper as h
from onnx import numpy_helper as nh


def model(nodes, inputs, outputs, inits=(), opset=17, check=True):
    g = h.make_graph(nodes, "g", inputs, outputs, list(inits))
    m = h.make_model(g, opset_imports=[h.make_opsetid("", opset)], ir_version=8)
    if check:
        onnx.checker.check_model(m)
    return m


def vi(name, dtype, shape):
    return h.make_tensor_value_info(name, dtype, shape)


def f32(name, shape):
    return vi(name, TP.FLOAT, shape)


def const(name, arr):
    return nh.from_array(np.asarray(arr), name)


def shape_chain():
    # The exporter idiom: x.view(x.size(0), -1) through Shape/Gather/Unsqueeze/Concat.
    return model([
        h.make_node("Shape", ["x"], ["s"], name="shape"),
        h.make_node("Gather", ["s", "zero"], ["n"], axis=0, name="gather"),
        h.make_node("Unsqueeze", ["n", "axes0"], ["n1"], name="unsqueeze"),
        h.make_node("Concat", ["n1", "minus1"], ["target"], axis=0, name="concat"),
        h.make_node("Reshape", ["x", "target"], ["y"], name="flatten"),
        h.make_node("Relu", ["y"], ["out"], name="relu"),
    ], [f32("x", [2, 3, 4])], [f32("out", [2, 12])],
        [const("zero", np.int64(0)), const("axes0", np.array([0], np.int64)),
         const("minus1", np.array([-1], np.int64))])


def named_io():
    return model([h.make_node("Mul", ["in put", "in put"], ["out/put 1"], name="square")],
                 [f32("in put", [3])], [f32("out/put 1", [3])])


def add_chain(n=600, shape=(4, 8)):
    """x + c + c + ... : 600 Adds in a chain (elementwise fusion's body-size cap)."""
    nodes, prev = [], "x"
    for i in range(n):
        nodes.append(h.make_node("Add", [prev, "c"], [f"t{i}"], name=f"add{i}"))
        prev = f"t{i}"
    return model(nodes, [f32("x", list(shape))], [f32(prev, list(shape))],
                 [const("c", np.ones(shape, np.float32))])


def long_add_chain():
    """5,000 Adds on an [8] vector: one kernel iteration, 5,000 fadds in a row."""
    return add_chain(5000, (8,))


def colliding_outputs():
    """Outputs 'a/b', 'a_b' and 'a:b' all sanitize to the file name a_b."""
    return model([h.make_node("Neg", ["x"], ["a/b"], name="neg"),
                  h.make_node("Relu", ["x"], ["a_b"], name="relu"),
                  h.make_node("Abs", ["x"], ["a:b"], name="abs")],
                 [f32("x", [3])], [f32("a/b", [3]), f32("a_b", [3]), f32("a:b", [3])])


def symbolic_batch():
    return model([h.make_node("Relu", ["x"], ["y"], name="relu")],
                 [f32("x", ["batch", 4])], [f32("y", ["batch", 4])])


def opset_forms():
    # Opset 18: Split with num_outputs, ReduceMean with axes as an input.
    return model([
        h.make_node("Split", ["x"], ["a", "b"], axis=1, num_outputs=2, name="split"),
        h.make_node("ReduceMean", ["a", "axes"], ["m"], keepdims=0, name="mean"),
        h.make_node("Add", ["m", "b"], ["y"], name="add"),
    ], [f32("x", [2, 8])], [f32("y", [2, 4])], [const("axes", np.array([0], np.int64))],
        opset=18)


def softmax_opset11():
    return model([h.make_node("Softmax", ["x"], ["y"], axis=1, name="sm")],
                 [f32("x", [2, 3, 4])], [f32("y", [2, 3, 4])], opset=11)


# ---- broken models: each must give one 'error:' line and exit 1 ----

def bad_attr_type():
    n = h.make_node("Transpose", ["x"], ["y"], name="tr")
    n.attribute.append(h.make_attribute("perm", [1.0, 0.0]))
    return model([n], [f32("x", [2, 3])], [f32("y", [3, 2])], check=False)


def dynamic_reshape():
    return model([h.make_node("Reshape", ["x", "shape"], ["y"], name="reshape_dyn")],
                 [f32("x", [2, 3]), vi("shape", TP.INT64, [2])], [f32("y", [3, 2])])


def dangling_input():
    return model([h.make_node("Relu", ["nowhere"], ["y"], name="relu")],
                 [f32("x", [2])], [f32("y", [2])], check=False)


def cycle():
    return model([h.make_node("Relu", ["b"], ["a"], name="first"),
                  h.make_node("Relu", ["a"], ["b"], name="second")],
                 [f32("x", [2])], [f32("b", [2])], check=False)


def broadcast_mismatch():
    return model([h.make_node("Add", ["x", "y"], ["z"], name="add_bad")],
                 [f32("x", [2, 3]), f32("y", [4])], [f32("z", [2, 3])], check=False)


def gemm_mixed_dtypes():
    # Gemm's A, B and C share one type; a float64 weight against a float32 input is invalid.
    return model([h.make_node("Gemm", ["x", "w"], ["y"], name="gemm_bad")],
                 [f32("x", [2, 3])], [f32("y", [2, 4])],
                 inits=[const("w", np.ones((3, 4), np.float64))], check=False)


def conv4d():
    return model([h.make_node("Conv", ["x", "w"], ["y"], name="conv4d")],
                 [f32("x", [1, 1, 4, 4, 4, 4])], [f32("y", [1, 1, 2, 2, 2, 2])],
                 [const("w", np.ones((1, 1, 3, 3, 3, 3), np.float32))])


def conv3d_groups():
    return model([h.make_node("Conv", ["x", "w"], ["y"], name="conv3d", group=2)],
                 [f32("x", [1, 4, 4, 4, 4])], [f32("y", [1, 2, 2, 2, 2])],
                 [const("w", np.ones((2, 4, 3, 3, 3), np.float32))])


def conv3d_depth():
    return model([h.make_node("Conv", ["x", "w"], ["y"], name="conv3d")],
                 [f32("x", [1, 1, 2, 4, 4])], [f32("y", [1, 1, 1, 2, 2])],
                 [const("w", np.ones((1, 1, 3, 3, 3), np.float32))])


def string_input():
    # A string tensor into an op that computes on numbers.
    return model([h.make_node("Relu", ["s"], ["t"], name="relu")],
                 [vi("s", TP.STRING, [2])], [vi("t", TP.STRING, [2])], check=False)


def init_size_mismatch():
    t = nh.from_array(np.ones(4, np.float32), "w")
    t.raw_data = np.ones(3, np.float32).tobytes()
    return model([h.make_node("Add", ["x", "w"], ["y"], name="add")],
                 [f32("x", [4])], [f32("y", [4])], [t], check=False)


def negative_dim():
    return model([h.make_node("Relu", ["x"], ["y"], name="relu")],
                 [f32("x", [2, -3])], [f32("y", [2, 3])], check=False)


def inference_bn_stats():
    # Running-statistics outputs of an inference-mode BatchNormalization.
    c = [const(n, np.ones(2, np.float32)) for n in ("s", "b", "m", "v")]
    return model([h.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y", "rm", "rv"],
                              training_mode=0, name="bn_stats")],
                 [f32("x", [1, 2, 3, 3])], [f32("y", [1, 2, 3, 3]), f32("rm", [2]), f32("rv", [2])],
                 c, check=False)


def duplicate_output():
    return model([h.make_node("Relu", ["x"], ["y"], name="relu")],
                 [f32("x", [2])], [f32("y", [2]), f32("y", [2])], check=False)


def several_unsupported(declare_types=False):
    # Two unsupported op kinds, one of them twice; an unsupported attribute value;
    # and supported nodes downstream of a failure (checked when types are declared).
    nodes = [
        h.make_node("Multinomial", ["x"], ["a"], name="nms_1"),
        h.make_node("Relu", ["a"], ["b"], name="relu_after"),
        h.make_node("Transpose", ["b"], ["c"], perm=[0, 1, 2, 7], name="bad_perm"),
        h.make_node("Multinomial", ["x"], ["d"], name="nms_2"),
        h.make_node("FrobnicateTensor", ["x"], ["e"], name="frob"),
        h.make_node("Add", ["c", "d"], ["s"], name="add"),
        h.make_node("Add", ["s", "e"], ["y"], name="add2"),
    ]
    m = model(nodes, [f32("x", [1, 1, 4, 4])], [f32("y", [1, 1, 4, 4])], check=False)
    if declare_types:
        m.graph.value_info.extend([f32("a", [1, 1, 4, 4]), f32("d", [1, 1, 4, 4])])
    return m


def several_unsupported_typed():
    return several_unsupported(declare_types=True)


def runtime_axes():
    # ReduceSum with axes as a graph input (as in ONNX's own tests): its value sets the output shape.
    return model([h.make_node("ReduceSum", ["x", "axes"], ["y"], keepdims=0, name="sum")],
                 [f32("x", [2, 3]), vi("axes", TP.INT64, [1])], [f32("y", ["n"])], opset=18)


def ml_domain_only():
    # No default-domain import: an ai.onnx.ml op dlc has (Binarizer), one it lacks
    # (SVMRegressor), an op of an unknown domain and one of a domain not imported.
    g = h.make_graph([h.make_node("Binarizer", ["x"], ["b"], domain="ai.onnx.ml", name="bin"),
                      h.make_node("SVMRegressor", ["b"], ["s"], domain="ai.onnx.ml", name="svm"),
                      h.make_node("Frob", ["s"], ["f"], domain="com.acme", name="frob"),
                      h.make_node("Adam", ["f"], ["y"], domain="ai.onnx.preview.training",
                                  name="adam")],
                     "g", [f32("x", [3])], [f32("y", [3])])
    return h.make_model(g, opset_imports=[h.make_opsetid("ai.onnx.ml", 3),
                                          h.make_opsetid("com.acme", 1)], ir_version=8)


def _single(op, inputs, out_shape, inits=(), opset=23, out_type=TP.FLOAT, **attrs):
    # One `op` node named "n" over graph inputs [(name, type, shape)] -> output "y".
    node = h.make_node(op, [i[0] for i in inputs] + [c.name for c in inits], ["y"], name="n", **attrs)
    return model([node], [vi(*i) for i in inputs], [vi("y", out_type, out_shape)], inits,
                 opset=opset, check=False)


# Composite regions imported whole (dlc_graph.attention, rnn, gru, lstm).
def attention_causal():
    return _single("Attention", [("q", TP.FLOAT, [1, 4, 8]), ("k", TP.FLOAT, [1, 6, 8]),
                                 ("v", TP.FLOAT, [1, 6, 8])], [1, 4, 8], is_causal=1,
                   q_num_heads=2, kv_num_heads=2)


def _recurrent(op, gates, **attrs):
    # X [S=3, B=2, I=5], hidden 4, forward; W and R as graph inputs.
    ins = [("x", TP.FLOAT, [3, 2, 5]), ("w", TP.FLOAT, [1, 4 * gates, 5]),
           ("r", TP.FLOAT, [1, 4 * gates, 4])]
    node = h.make_node(op, [i[0] for i in ins], ["y", "y_h"], name="n", hidden_size=4, **attrs)
    return model([node], [vi(*i) for i in ins],
                 [vi("y", TP.FLOAT, [3, 1, 2, 4]), vi("y_h", TP.FLOAT, [1, 2, 4])], (),
                 opset=23, check=False)


def rnn_forward():
    return _recurrent("RNN", 1)


def gru_forward():
    return _recurrent("GRU", 3, linear_before_reset=1)


def lstm_forward():
    return _recurrent("LSTM", 4)


# Diagnostics of the composite (function-body) builders.
def attention_3d_no_heads():
    return _single("Attention", [("q", TP.FLOAT, [1, 2, 8]), ("k", TP.FLOAT, [1, 2, 8]),
                                 ("v", TP.FLOAT, [1, 2, 8])], [1, 2, 8])


def nll_bad_reduction():
    return _single("NegativeLogLikelihoodLoss", [("x", TP.FLOAT, [2, 3]), ("t", TP.INT64, [2])],
                   [], reduction="avg")


def elu_int():
    return _single("Elu", [("x", TP.INT32, [3])], [3], out_type=TP.INT32)


def bitshift_direction():
    return _single("BitShift", [("x", TP.UINT8, [3]), ("s", TP.UINT8, [3])], [3],
                   out_type=TP.UINT8, direction="UP")


def resize_area():
    return _single("Resize", [("x", TP.FLOAT, [1, 1, 2, 2])], [1, 1, 4, 4],
                   inits=[const("roi", np.zeros(0, np.float32)),
                          const("scales", np.array([1, 1, 2, 2], np.float32))], mode="area")


def group_norm_groups():
    return _single("GroupNormalization", [("x", TP.FLOAT, [1, 4, 2])], [1, 4, 2],
                   inits=[const("s", np.ones(4, np.float32)), const("b", np.zeros(4, np.float32))],
                   num_groups=3)


def depth_to_space_mode():
    return _single("DepthToSpace", [("x", TP.FLOAT, [1, 4, 2, 2])], [1, 1, 4, 4], blocksize=2,
                   mode="XYZ")


def tile_repeats():
    return _single("Tile", [("x", TP.FLOAT, [2, 2])], [4, 4],
                   inits=[const("r", np.array([2], np.int64))])


def training_dropout():
    return _single("Dropout", [("x", TP.FLOAT, [3])], [3],
                   inits=[const("ratio", np.float32(0.5)), const("train", np.bool_(True))])


def onehot_values():
    return _single("OneHot", [("i", TP.INT64, [3])], [3, 4],
                   inits=[const("depth", np.int64(4)), const("vals", np.array([0, 1, 2], np.float32))])


def rotary_odd_dim():
    return _single("RotaryEmbedding", [("x", TP.FLOAT, [1, 1, 2, 4]), ("c", TP.FLOAT, [2, 1]),
                                       ("s", TP.FLOAT, [2, 1])], [1, 1, 2, 4],
                   rotary_embedding_dim=3)


def float8_add():
    # Arithmetic directly on float8 codes is refused (only casts/quantization/data movement).
    return _single("Add", [("a", TP.FLOAT8E4M3FN, [3]), ("b", TP.FLOAT8E4M3FN, [3])], [3],
                   out_type=TP.FLOAT8E4M3FN)


def int4_roundtrip():
    # int4 in (packed .pb), float out, and float in, int4 out.
    nodes = [h.make_node("Cast", ["q"], ["f"], to=TP.FLOAT, name="to_float"),
             h.make_node("Cast", ["x"], ["q2"], to=TP.INT4, name="to_int4")]
    return model(nodes, [vi("q", TP.INT4, [5]), f32("x", [5])],
                 [f32("f", [5]), vi("q2", TP.INT4, [5])], opset=23, check=False)


def e8m0_round_mode():
    return _single("Cast", [("x", TP.FLOAT, [3])], [3], out_type=TP.FLOAT8E8M0,
                   to=TP.FLOAT8E8M0, round_mode="sideways")


def _domain_node(domain, op, inputs, outputs, inits=(), version=1, **attrs):
    # One `op` node of `domain` named "n" (the model imports `version` of it, 23 of ai.onnx).
    node = h.make_node(op, [i[0] for i in inputs] + [c.name for c in inits],
                       [o[0] for o in outputs], name="n", domain=domain, **attrs)
    g = h.make_graph([node], "g", [vi(*i) for i in inputs], [vi(*o) for o in outputs],
                     list(inits))
    return h.make_model(g, opset_imports=[h.make_opsetid("", 23), h.make_opsetid(domain, version)],
                        ir_version=8)


def momentum_mode():
    return _domain_node("ai.onnx.preview.training", "Momentum",
                        [("r", TP.FLOAT, []), ("t", TP.INT64, []), ("x", TP.FLOAT, [3]),
                         ("g", TP.FLOAT, [3]), ("v", TP.FLOAT, [3])],
                        [("x2", TP.FLOAT, [3]), ("v2", TP.FLOAT, [3])],
                        alpha=0.9, beta=0.1, norm_coefficient=0.0, mode="fast")


def adam_arity():
    return _domain_node("ai.onnx.preview.training", "Adam",
                        [("r", TP.FLOAT, []), ("t", TP.INT64, []), ("x", TP.FLOAT, [3]),
                         ("g", TP.FLOAT, [3]), ("v", TP.FLOAT, [3])], [("x2", TP.FLOAT, [3])])


def feature_extractor_range():
    return _domain_node("ai.onnx.ml", "ArrayFeatureExtractor", [("x", TP.FLOAT, [2, 3])],
                        [("y", TP.FLOAT, [2, 1])], inits=[const("i", np.array([3], np.int64))])


def cuda_mix():
    """MatMul (tensor cores) -> Softmax (rows of 64: warp reductions, 4-element vectors per
    thread), plus a Gather whose index check the host reads: --target=cuda."""
    rng = np.random.default_rng(0)
    return model([
        h.make_node("MatMul", ["x", "w"], ["m"], name="matmul"),
        h.make_node("Softmax", ["m"], ["y"], axis=-1, name="softmax"),
        h.make_node("Gather", ["y", "idx"], ["g"], axis=0, name="gather"),
    ], [f32("x", [32, 16]), vi("idx", TP.INT64, [2])], [f32("g", [2, 64])],
        [const("w", rng.standard_normal((16, 64)).astype(np.float32))])


def sequence_model():
    # A sequence input and output: s2 = x with t appended; y = their concatenation;
    # n = the length.
    seq = h.make_sequence_type_proto(h.make_tensor_type_proto(TP.FLOAT, ["d"]))
    nodes = [h.make_node("SequenceInsert", ["x", "t"], ["s2"], name="insert"),
             h.make_node("ConcatFromSequence", ["s2"], ["y"], axis=0, name="concat"),
             h.make_node("SequenceLength", ["s2"], ["n"], name="len")]
    g = h.make_graph(nodes, "g", [h.make_value_info("x", seq), f32("t", [2])],
                     [f32("y", ["total"]), h.make_value_info("s2", seq),
                      vi("n", TP.INT64, [])])
    return h.make_model(g, opset_imports=[h.make_opsetid("", 17)], ir_version=8)


def sequence_file():
    # The SequenceProto for sequence_model's x: [1, 2] and [3, 4, 5].
    return nh.from_list([np.array([1, 2], np.float32), np.array([3, 4, 5], np.float32)], "x")


def sequence_to_relu():
    seq = h.make_sequence_type_proto(h.make_tensor_type_proto(TP.FLOAT, ["d"]))
    g = h.make_graph([h.make_node("Relu", ["x"], ["y"], name="relu")], "g",
                     [h.make_value_info("x", seq)], [f32("y", ["d"])])
    return h.make_model(g, opset_imports=[h.make_opsetid("", 17)], ir_version=8)


def sequence_at_range():
    nodes = [h.make_node("SequenceConstruct", ["a", "b"], ["s"], name="make"),
             h.make_node("SequenceAt", ["s", "p"], ["y"], name="at")]
    return model(nodes, [f32("a", [2]), f32("b", [2])], [f32("y", [2])],
                 [const("p", np.array(2, np.int64))], check=False)


def flex_score_mod_type():
    # score_mod returns a bool tensor instead of the scores' f32.
    body = h.make_graph([h.make_node("Greater", ["s", "zero"], ["o"])], "mod",
                        [f32("s", [1, 1, 2, 2])], [vi("o", TP.BOOL, [1, 1, 2, 2])],
                        [const("zero", np.array(0, np.float32))])
    return _domain_node("ai.onnx.preview", "FlexAttention",
                        [("q", TP.FLOAT, [1, 1, 2, 4]), ("k", TP.FLOAT, [1, 1, 2, 4]),
                         ("v", TP.FLOAT, [1, 1, 2, 4])], [("y", TP.FLOAT, [1, 1, 2, 4])],
                        score_mod=body)


def tensor_scatter_mode():
    return _single("TensorScatter", [("c", TP.FLOAT, [1, 4, 2]), ("u", TP.FLOAT, [1, 1, 2])],
                   [1, 4, 2], opset=24, mode="ring")


def tfidf_mode():
    return _single("TfIdfVectorizer", [("x", TP.INT64, [4])], [2], mode="BM25",
                   min_gram_length=1, max_gram_length=1, max_skip_count=0, ngram_counts=[0],
                   ngram_indexes=[0, 1], pool_int64s=[1, 2])


def roialign_adaptive_runtime():
    return _single("RoiAlign", [("x", TP.FLOAT, [1, 1, 4, 4]), ("rois", TP.FLOAT, [1, 4]),
                                ("b", TP.INT64, [1])], [1, 1, 2, 2], sampling_ratio=0,
                   output_height=2, output_width=2)


def maxpool3d_indices():
    node = h.make_node("MaxPool", ["x"], ["y", "i"], kernel_shape=[2, 2, 2], name="n")
    return model([node], [f32("x", [1, 1, 4, 4, 4])],
                 [f32("y", [1, 1, 3, 3, 3]), vi("i", TP.INT64, [1, 1, 3, 3, 3])], opset=12,
                 check=False)


def wrap_pad_crop():
    return _single("Pad", [("x", TP.FLOAT, [3])], [0],
                   inits=[const("p", np.array([-2, -2], np.int64))], mode="wrap")


def stft_frame_length():
    return _single("STFT", [("s", TP.FLOAT, [1, 8, 1])], [1, 1, 9, 2], opset=17,
                   inits=[const("step", np.array(2, np.int64)), const("w", np.ones(16, np.float32))])


def det_not_square():
    return _single("Det", [("x", TP.FLOAT, [2, 3])], [])


def mel_bands():
    return _single("MelWeightMatrix", [], [33, 4], opset=17,
                   inits=[const("m", np.array(4, np.int64)), const("d", np.array(64, np.int64)),
                          const("r", np.array(16000, np.int64)),
                          const("lo", np.array(100.0, np.float32)),
                          const("hi", np.array(15000.0, np.float32))])


def concat_empty_sequence():
    nodes = [h.make_node("SequenceEmpty", [], ["s"], name="empty"),
             h.make_node("ConcatFromSequence", ["s"], ["y"], axis=0, name="n")]
    return model(nodes, [], [f32("y", [1])], check=False)


def optional_get_empty():
    nodes = [h.make_node("Optional", [], ["o"], name="none",
                         type=h.make_tensor_type_proto(TP.FLOAT, [2])),
             h.make_node("OptionalGetElement", ["o"], ["y"], name="n")]
    return model(nodes, [], [f32("y", [2])], opset=18, check=False)


def if_sequence_runtime_cond():
    seq = lambda name: h.make_graph(  # noqa: E731
        [h.make_node("SequenceConstruct", ["a"], ["s" + name])], name, [],
        [h.make_value_info("s" + name, h.make_sequence_type_proto(
            h.make_tensor_type_proto(TP.FLOAT, [2])))])
    nodes = [h.make_node("If", ["c"], ["s"], then_branch=seq("t"), else_branch=seq("e"), name="n"),
             h.make_node("ConcatFromSequence", ["s"], ["y"], axis=0, name="cat")]
    return model(nodes, [vi("c", TP.BOOL, []), f32("a", [2])], [f32("y", [2])], check=False)


def tree_post_transform():
    return _domain_node("ai.onnx.ml", "TreeEnsemble", [("x", TP.FLOAT, [2, 1])],
                        [("y", TP.FLOAT, [2, 1])], version=5, post_transform=1, n_targets=1,
                        nodes_featureids=[0], nodes_modes=h.make_tensor("m", TP.UINT8, [1], [0]),
                        nodes_splits=h.make_tensor("s", TP.FLOAT, [1], [0.5]),
                        nodes_truenodeids=[0], nodes_trueleafs=[1], nodes_falsenodeids=[1],
                        nodes_falseleafs=[1], leaf_targetids=[0, 0],
                        leaf_weights=h.make_tensor("w", TP.FLOAT, [2], [1.0, 2.0]),
                        tree_roots=[0])


def einsum_diag_sizes():
    return _single("Einsum", [("x", TP.FLOAT, [2, 3])], [2], equation="ii->i")



def fmod_loss():
    # A loss that depends on its input through Fmod, which has no gradient rule.
    return model([h.make_node("Mod", ["x", "x"], ["m"], fmod=1, name="fmod"),
                  h.make_node("ReduceSum", ["m"], ["loss"], keepdims=0, name="sum")],
                 [f32("x", [3])], [f32("loss", [])])



def train_linear():
    # y = x W^T + b: a two-parameter model for the dlc compile --train / dlc train tests.
    return model([h.make_node("Gemm", ["x", "w", "b"], ["y"], transB=1, name="fc")],
                 [f32("x", [4, 3])], [f32("y", [4, 2])],
                 inits=[const("w", np.full((2, 3), 0.5, np.float32)),
                        const("b", np.zeros(2, np.float32))])


def train_tanh_mlp():
    # y = tanh(x W1^T) W2^T: tanh's output is saved for the backward pass unless recomputed.
    return model([h.make_node("Gemm", ["x", "w1"], ["a"], transB=1, name="fc1"),
                  h.make_node("Tanh", ["a"], ["t"], name="act"),
                  h.make_node("Gemm", ["t", "w2"], ["y"], transB=1, name="fc2")],
                 [f32("x", [4, 3])], [f32("y", [4, 2])],
                 inits=[const("w1", np.full((5, 3), 0.25, np.float32)),
                        const("w2", np.full((2, 5), 0.5, np.float32))])


def train_data_huge():
    # A deflated .npz whose central directory claims a 2 GiB entry: rejected, not allocated.
    import io
    import struct
    buf = io.BytesIO()
    np.savez_compressed(buf, x=np.zeros((8, 3), np.float32), labels=np.ones((8, 2), np.float32))
    data = bytearray(buf.getvalue())
    cd = struct.unpack_from("<I", data, data.rfind(b"PK\x05\x06") + 16)[0]
    struct.pack_into("<I", data, cd + 24, 0x7FFFFFF0)
    return bytes(data)


def train_pow():
    # y = x ** p with the exponent an initializer: trained, it turns NaN (log of negative x).
    return model([h.make_node("Pow", ["x", "p"], ["y"], name="pow")],
                 [f32("x", [8, 3])], [f32("y", [8, 3])],
                 inits=[const("p", np.array(3.0, np.float32))])


def train_pow_data():
    import io
    buf = io.BytesIO()
    np.savez(buf, x=-np.ones((8, 3), np.float32), labels=np.zeros((8, 3), np.float32))
    return buf.getvalue()


def train_labels_input():
    # A model with an input already named `labels`, which a training step adds.
    return model([h.make_node("Gemm", ["labels", "w"], ["y"], transB=1, name="fc")],
                 [f32("labels", [4, 3])], [f32("y", [4, 2])],
                 inits=[const("w", np.full((2, 3), 0.5, np.float32))])


def train_vector():
    # y = x * w on vectors: a rank-1 output, not [batch, classes] logits.
    return model([h.make_node("Mul", ["x", "w"], ["y"], name="scale")],
                 [f32("x", [3])], [f32("y", [3])], inits=[const("w", np.ones(3, np.float32))])


def train_data():
    # Arrays for dlc train: 8 examples of x [3] and labels [2] (np.savez format, stored).
    import io
    buf = io.BytesIO()
    np.savez(buf, x=np.arange(24, dtype=np.float32).reshape(8, 3) / 24,
             labels=np.ones((8, 2), np.float32))
    return buf.getvalue()


def verify_convnet():
    # dlc verify's model: Conv(bias) -> Relu twice (the second grouped), a residual Add,
    # global pooling; the convs' bias and Relu become fused epilogues.
    rng = np.random.default_rng(0)
    return model([
        h.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1", pads=[1, 1, 1, 1]),
        h.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        h.make_node("Conv", ["r1", "w2", "b2"], ["c2"], name="conv2", pads=[1, 1, 1, 1], group=2),
        h.make_node("Relu", ["c2"], ["r2"], name="relu2"),
        h.make_node("Add", ["r2", "r1"], ["s"], name="residual"),
        h.make_node("GlobalAveragePool", ["s"], ["g"], name="pool"),
        h.make_node("Flatten", ["g"], ["y"], name="flatten"),
    ], [f32("x", [1, 3, 16, 16])], [f32("y", [1, 8])],
        [const("w1", rng.standard_normal((8, 3, 3, 3)).astype(np.float32)),
         const("b1", rng.standard_normal(8).astype(np.float32)),
         const("w2", (0.2 * rng.standard_normal((8, 4, 3, 3))).astype(np.float32)),
         const("b2", rng.standard_normal(8).astype(np.float32))])


def verify_convnet_x():
    import io
    buf = io.BytesIO()
    np.save(buf, np.random.default_rng(1).standard_normal((1, 3, 16, 16)).astype(np.float32))
    return buf.getvalue()


def matmul_integer():
    # u8 activations with a zero point x s8 weights (per-column zero points).
    rng = np.random.default_rng(0)
    w = rng.integers(-128, 128, size=(64, 32)).astype(np.int8)
    nodes = [h.make_node("MatMulInteger", ["a", "w", "az", "wz"], ["y"], name="mmi")]
    return model(nodes, [vi("a", TP.UINT8, [4, 64])], [vi("y", TP.INT32, [4, 32])],
                 [const("w", w), const("az", np.array(3, np.uint8)),
                  const("wz", np.arange(32, dtype=np.int8) % 3)])


def qlinear_matmul():
    rng = np.random.default_rng(0)
    w = rng.integers(-128, 128, size=(64, 32)).astype(np.int8)
    nodes = [h.make_node("QLinearMatMul", ["a", "as", "az", "w", "ws", "wz", "ys", "yz"], ["y"],
                         name="qmm")]
    return model(nodes, [vi("a", TP.UINT8, [4, 64])], [vi("y", TP.UINT8, [4, 32])],
                 [const("as", np.array(0.02, np.float32)), const("az", np.array(128, np.uint8)),
                  const("w", w), const("ws", np.array(0.01, np.float32)),
                  const("wz", np.array(0, np.int8)), const("ys", np.array(0.5, np.float32)),
                  const("yz", np.array(10, np.uint8))])


def quantize_bad_scale():
    nodes = [h.make_node("QuantizeLinear", ["x", "s", "z"], ["y"], name="q")]
    return model(nodes, [f32("x", [4])], [vi("y", TP.UINT8, [4])],
                 [const("s", np.array(-0.5, np.float32)), const("z", np.array(3, np.uint8))])


def dequantize_bad_axis_scale():
    nodes = [h.make_node("DequantizeLinear", ["x", "s"], ["y"], name="dq", axis=1)]
    return model(nodes, [vi("x", TP.INT8, [2, 4])], [f32("y", [2, 4])],
                 [const("s", np.array([0.5, 0.25, 1.0], np.float32))], check=False)


def conv_integer():
    # u8 input and a run-time zero point, s8 weights with per-channel zero points.
    w = np.random.default_rng(0).integers(-128, 128, size=(4, 2, 3, 3)).astype(np.int8)
    nodes = [h.make_node("ConvInteger", ["x", "w", "xz", "wz"], ["y"], name="ci", pads=[1, 1, 1, 1])]
    return model(nodes, [vi("x", TP.UINT8, [1, 2, 3, 3]), vi("xz", TP.UINT8, [])],
                 [vi("y", TP.INT32, [1, 4, 3, 3])],
                 [const("w", w), const("wz", np.array([1, -2, 0, 3], np.int8))])



def qlinear_conv():
    # u8 x s8 (per-channel scales) -> u8 with an int32 bias, 3x3 pad 1.
    w = np.random.default_rng(0).integers(-127, 128, size=(16, 8, 3, 3)).astype(np.int8)
    nodes = [h.make_node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz", "b"],
                         ["y"], name="qc", pads=[1, 1, 1, 1])]
    return model(nodes, [vi("x", TP.UINT8, [1, 8, 6, 6])], [vi("y", TP.UINT8, [1, 16, 6, 6])],
                 [const("xs", np.array(0.02, np.float32)), const("xz", np.array(128, np.uint8)),
                  const("w", w), const("ws", np.linspace(0.01, 0.02, 16).astype(np.float32)),
                  const("wz", np.zeros(16, np.int8)), const("ys", np.array(0.5, np.float32)),
                  const("yz", np.array(10, np.uint8)),
                  const("b", np.arange(16, dtype=np.int32) * 100)])


def qdq_conv():
    # What quantize_static writes: Q(x) -> DQ -> Conv(DQ(w per channel), DQ(bias)) -> Q -> DQ.
    rng = np.random.default_rng(0)
    w = rng.integers(-127, 128, size=(16, 8, 3, 3)).astype(np.int8)
    ws = np.linspace(0.01, 0.02, 16).astype(np.float32)
    nodes = [h.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"], name="x_q"),
             h.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"], name="x_dq"),
             h.make_node("DequantizeLinear", ["w", "ws"], ["wd"], name="w_dq", axis=0),
             h.make_node("DequantizeLinear", ["b", "bs"], ["bd"], name="b_dq", axis=0),
             h.make_node("Conv", ["xd", "wd", "bd"], ["c"], name="conv", pads=[1, 1, 1, 1]),
             h.make_node("QuantizeLinear", ["c", "ys", "yz"], ["cq"], name="c_q"),
             h.make_node("DequantizeLinear", ["cq", "ys", "yz"], ["y"], name="c_dq")]
    return model(nodes, [f32("x", [1, 8, 6, 6])], [f32("y", [1, 16, 6, 6])],
                 [const("xs", np.array(0.02, np.float32)), const("xz", np.array(128, np.uint8)),
                  const("w", w), const("ws", ws), const("b", np.arange(16, dtype=np.int32)),
                  const("bs", (ws * np.float32(0.02)).astype(np.float32)),
                  const("ys", np.array(0.5, np.float32)), const("yz", np.array(10, np.uint8))])


def dynamic_quantize_matmul():
    # What quantize_dynamic writes for a MatMul: activations quantized per call.
    w = np.random.default_rng(0).integers(-127, 128, size=(64, 32)).astype(np.int8)
    nodes = [h.make_node("DynamicQuantizeLinear", ["x"], ["xq", "xs", "xz"], name="x_dql"),
             h.make_node("MatMulInteger", ["xq", "w", "xz"], ["acc"], name="mmi"),
             h.make_node("Cast", ["acc"], ["accf"], name="cast", to=TP.FLOAT),
             h.make_node("Mul", ["xs", "ws"], ["s"], name="scale"),
             h.make_node("Mul", ["accf", "s"], ["y"], name="rescale")]
    return model(nodes, [f32("x", [4, 64])], [f32("y", [4, 32])],
                 [const("w", w), const("ws", np.array(0.01, np.float32))])


def dequantize_zero_point_type():
    nodes = [h.make_node("DequantizeLinear", ["x", "s", "z"], ["y"], name="dq")]
    return model(nodes, [vi("x", TP.INT8, [4])], [f32("y", [4])],
                 [const("s", np.array(0.5, np.float32)), const("z", np.array(3, np.uint8))],
                 check=False)


def qlinear_matmul_bad_scale():
    nodes = [h.make_node("QLinearMatMul", ["a", "as", "az", "w", "ws", "wz", "ys", "yz"], ["y"],
                         name="qmm")]
    return model(nodes, [vi("a", TP.UINT8, [2, 2])], [vi("y", TP.UINT8, [2, 2])],
                 [const("as", np.array(0.5, np.float32)), const("az", np.array(1, np.uint8)),
                  const("w", np.ones((2, 2), np.int8)), const("ws", np.array(0.5, np.float32)),
                  const("wz", np.array(0, np.int8)), const("ys", np.array(np.nan, np.float32)),
                  const("yz", np.array(0, np.uint8))])


def qlinear_conv_zero_point_type():
    nodes = [h.make_node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys", "yz"], ["y"],
                         name="qc")]
    return model(nodes, [vi("x", TP.UINT8, [1, 1, 2, 2])], [vi("y", TP.UINT8, [1, 2, 2, 2])],
                 [const("xs", np.array(0.5, np.float32)), const("xz", np.array(1, np.int8)),
                  const("w", np.ones((2, 1, 1, 1), np.int8)), const("ws", np.array(0.5, np.float32)),
                  const("wz", np.array(0, np.int8)), const("ys", np.array(0.5, np.float32)),
                  const("yz", np.array(0, np.uint8))], check=False)


def quantize_bad_axis():
    nodes = [h.make_node("QuantizeLinear", ["x", "s"], ["y"], name="q", axis=5)]
    return model(nodes, [f32("x", [2, 4])], [vi("y", TP.UINT8, [2, 4])],
                 [const("s", np.full(4, 0.5, np.float32))], check=False)

if __name__ == "__main__":
    name, out = sys.argv[1], sys.argv[2]
    value = globals()[name]()
    if isinstance(value, onnx.ModelProto):
        onnx.save(value, out)
    elif isinstance(value, bytes):
        with open(out, "wb") as f:
            f.write(value)
    else:  # a value file (TensorProto, SequenceProto, OptionalProto)
        with open(out, "wb") as f:
            f.write(value.SerializeToString())

# Single-op ONNX test cases for dlc, part 2: shape/data-movement ops; merges part 1 into OP_MODELS.
"""Small single-op models for the dlc end-to-end tests (``run_e2e.py --suite ops``).

:data:`OP_MODELS` has the same interface as ``models.MODELS``: name -> ``build(seed)``
returning ``(onnx.ModelProto, {input name: numpy array})``.  The math/NN cases live in
op_models_math.py (see there for the ``op(...)`` / ``@case`` notation); this file adds the
shape and data-movement ops.  All shapes are static; output types come from ONNX shape
inference.  ``python op_models.py [NAME ...]`` checks each model and runs it on ONNX Runtime.
"""
from __future__ import annotations

import numpy as np
from onnx import TensorProto, helper

from op_models_math import (INT64_MAX, INT64_MIN, MATH_MODELS, G, In, K, bools, case, f32, i64,
                            nrm)
from op_models_math import op as _op

SHAPE_MODELS: dict = {}


def op(name, op_type, spec, opset=17, n_out=1, **attrs):
    _op(name, op_type, spec, opset=opset, n_out=n_out, table=SHAPE_MODELS, **attrs)


def scase(name, opset=17):
    return case(name, opset, table=SHAPE_MODELS)


def _a(*v):
    return np.array(v, dtype=np.int64)


_x234 = lambda r: nrm(r, 2, 3, 4)  # noqa: E731
_x2345 = lambda r: nrm(r, 2, 3, 4, 5)  # noqa: E731

# ---- Reshape / Flatten / Squeeze / Unsqueeze / Transpose ---------------------
op("reshape_zero_neg1", "Reshape", lambda r: [In(_x234(r)), K(_a(0, -1))])
op("reshape_neg1_zero", "Reshape", lambda r: [In(_x234(r)), K(_a(-1, 0, 2))], allowzero=0)
op("reshape_to_rank4", "Reshape", lambda r: [In(_x234(r)), K(_a(2, 1, 3, 4))], opset=13)
op("reshape_i64", "Reshape", lambda r: [In(i64(r, 6, 4)), K(_a(3, -1, 2))])
op("flatten_axis0", "Flatten", lambda r: [In(_x2345(r))], axis=0)
op("flatten_axis1", "Flatten", lambda r: [In(_x2345(r))], axis=1)
op("flatten_axis_neg1", "Flatten", lambda r: [In(_x2345(r))], axis=-1)
op("flatten_axis2", "Flatten", lambda r: [In(_x2345(r))], axis=2)
op("squeeze_op13_axes", "Squeeze", lambda r: [In(nrm(r, 2, 1, 3, 1)), K(_a(1, -1))], opset=13)
op("squeeze_op13_no_axes", "Squeeze", lambda r: [In(nrm(r, 1, 3, 1, 4, 1))], opset=13)
op("squeeze_op11_attr", "Squeeze", lambda r: [In(nrm(r, 2, 1, 3, 1))], opset=11, axes=[-3])
op("unsqueeze_op13_axes", "Unsqueeze", lambda r: [In(nrm(r, 3, 4)), K(_a(0, -1))], opset=13)
op("unsqueeze_op13_unsorted", "Unsqueeze", lambda r: [In(nrm(r, 3, 4)), K(_a(3, 1))], opset=13)
op("unsqueeze_scalar", "Unsqueeze", lambda r: [In(np.float32(r.standard_normal())), K(_a(0))],
   opset=13)
op("unsqueeze_op11_attr", "Unsqueeze", lambda r: [In(nrm(r, 3, 4))], opset=11, axes=[1, -1])
op("transpose_default", "Transpose", lambda r: [In(_x234(r))])
op("transpose_4d", "Transpose", lambda r: [In(_x2345(r))], perm=[0, 3, 1, 2])
op("transpose_i64", "Transpose", lambda r: [In(i64(r, 2, 3, 4))], perm=[2, 0, 1])

# ---- Concat / Split / Slice ---------------------------------------------------------
op("concat_neg_axis_3in", "Concat", lambda r: [In(nrm(r, 2, 3, 1)), In(nrm(r, 2, 3, 4)),
                                               K(nrm(r, 2, 3, 2))], axis=-1)
op("concat_axis0_i64", "Concat", lambda r: [In(i64(r, 1, 3)), In(i64(r, 2, 3))], axis=0)
# More than 8 inputs: lowered as a tree of insert_slice chains (bufferization's analysis
# of one long chain is superlinear), with odd sizes along the axis.
op("concat_axis1_21in", "Concat", lambda r: [In(nrm(r, 2, 1 + i % 3, 5)) for i in range(21)],
   axis=1)
op("concat_axis1_4d", "Concat", lambda r: [In(nrm(r, 1, 2, 3, 3)), In(nrm(r, 1, 5, 3, 3))], axis=1)
op("split_op13_sizes", "Split", lambda r: [In(nrm(r, 2, 6, 3)), K(_a(2, 4))], opset=13, n_out=2,
   axis=1)
op("split_op13_equal", "Split", lambda r: [In(nrm(r, 6, 4))], opset=13, n_out=3)
op("split_op18_uneven", "Split", lambda r: [In(nrm(r, 2, 7))], opset=18, n_out=3, axis=-1,
   num_outputs=3)
op("split_op11_attr", "Split", lambda r: [In(nrm(r, 5, 4))], opset=11, n_out=2, split=[1, 4])
op("slice_neg_starts_ends", "Slice", lambda r: [In(nrm(r, 6, 8)), K(_a(-4, 1)), K(_a(-1, -2))])
op("slice_step2_axes_subset", "Slice", lambda r: [In(_x2345(r)), K(_a(1)), K(_a(5)), K(_a(3)),
                                                  K(_a(2))])
op("slice_reverse_full", "Slice", lambda r: [In(nrm(r, 4, 6)), K(_a(-1)), K(_a(INT64_MIN)),
                                             K(_a(1)), K(_a(-1))])
op("slice_reverse_step_neg2", "Slice", lambda r: [In(nrm(r, 3, 9)), K(_a(7, 2)), K(_a(1, -100)),
                                                  K(_a(1, 0)), K(_a(-2, -1))])
op("slice_ends_int64max", "Slice", lambda r: [In(_x234(r)), K(_a(1, 2)),
                                              K(_a(INT64_MAX, INT64_MAX)), K(_a(0, -1))])
op("slice_neg_axes_no_steps", "Slice", lambda r: [In(_x234(r)), K(_a(0, 1)), K(_a(2, -1)),
                                                  K(_a(-2, -3))])
op("slice_clamped_bounds", "Slice", lambda r: [In(nrm(r, 5, 6)), K(_a(-100, 2)), K(_a(100, 1000))])
op("slice_i64_data", "Slice", lambda r: [In(i64(r, 10)), K(_a(1)), K(_a(9)), K(_a(0)), K(_a(3))])

# ---- Gather / Expand / Pad ----------------------------------------------------------
op("gather_axis0_2d_idx", "Gather", lambda r: [In(nrm(r, 5, 4)), K(_a([0, 4], [2, 2], [1, 3]))],
   axis=0)
op("gather_axis1_neg_idx", "Gather", lambda r: [In(_x234(r)), K(_a(-1, 0, -3))], axis=1)
op("gather_scalar_idx", "Gather", lambda r: [In(_x234(r)), K(np.int64(-2))], axis=2)
op("gather_idx_input", "Gather", lambda r: [In(nrm(r, 6, 3)), In(r.integers(-6, 6, (2, 4)))],
   axis=0)
op("gather_i64_data_i32_idx", "Gather", lambda r: [In(i64(r, 4, 5)),
                                                   K(np.array([3, -1], np.int32))], axis=1)
op("expand_larger_rank", "Expand", lambda r: [In(nrm(r, 3, 1)), K(_a(2, 1, 4))])
op("expand_shape_has_ones", "Expand", lambda r: [In(nrm(r, 2, 1, 4)), K(_a(1, 3, 1))])
op("expand_i64", "Expand", lambda r: [In(i64(r, 1, 4)), K(_a(3, 4))])
op("pad_constant_value", "Pad", lambda r: [In(nrm(r, 2, 3, 4)), K(_a(0, 1, 2, 1, 0, 1)),
                                           K(np.float32(1.5))], mode="constant")
op("pad_negative", "Pad", lambda r: [In(nrm(r, 3, 6)), K(_a(-1, 2, 1, -2))])
op("pad_reflect", "Pad", lambda r: [In(nrm(r, 1, 2, 5, 6)), K(_a(0, 0, 2, 1, 0, 0, 1, 3))],
   mode="reflect")
op("pad_edge", "Pad", lambda r: [In(nrm(r, 2, 5, 6)), K(_a(0, 1, 3, 0, 2, 1))], mode="edge")
op("pad_op18_axes", "Pad", lambda r: [In(nrm(r, 2, 3, 4)), K(_a(1, 2, 0, 3)), K(np.float32(-1.0)),
                                      K(_a(-1, 0))], opset=18)
op("pad_op11_i64", "Pad", lambda r: [In(i64(r, 3, 4)), K(_a(1, 0, 0, 2))], opset=11)
op("pad_op10_attrs", "Pad", lambda r: [In(nrm(r, 3, 4))], opset=10, pads=[0, 1, 2, 0], value=0.5)

# ---- Shape / Size / ConstantOfShape / Range / Constant / Identity / Dropout ---------------
op("shape", "Shape", lambda r: [In(_x2345(r))])
op("shape_op15_start_end", "Shape", lambda r: [In(_x2345(r))], opset=15, start=1, end=-1)
op("shape_op15_neg_start", "Shape", lambda r: [In(_x2345(r))], opset=15, start=-2)
op("size", "Size", lambda r: [In(_x234(r))])


@scase("shape_gather_reshape")
def _shape_gather_reshape(g: G):
    """Reshape target computed from Shape -> Gather -> Concat (exporter pattern)."""
    x = g.add(In(nrm(g.r, 2, 3, 4)))
    s = g.node("Shape", [x])
    d0 = g.node("Gather", [s, K(_a(0))], axis=0)
    return g.node("Reshape", [x, g.node("Concat", [d0, K(_a(-1))], axis=0)])


@scase("constant_of_shape_add")
def _const_of_shape(g: G):
    """ConstantOfShape([2,3], value=1.5) + x."""
    c = g.node("ConstantOfShape", [K(_a(2, 3))],
               value=helper.make_tensor("v", TensorProto.FLOAT, [1], [1.5]))
    return g.node("Add", [In(nrm(g.r, 2, 3)), c])


@scase("constant_of_shape_default_i64")
def _const_of_shape_i64(g: G):
    """ConstantOfShape from a Shape (default value: float 0) and an int64 one, both outputs."""
    x = g.add(In(nrm(g.r, 3, 2)))
    z = g.node("ConstantOfShape", [g.node("Shape", [x])])
    k = g.node("ConstantOfShape", [K(_a(4))],
               value=helper.make_tensor("v", TensorProto.INT64, [1], [7]))
    return [g.node("Add", [x, z]), k]


@scase("range_i64_add")
def _range_i64(g: G):
    """Range(2, 11, 3) (int64) added to an int64 input."""
    rg = g.node("Range", [K(np.int64(2)), K(np.int64(11)), K(np.int64(3))])
    return g.node("Add", [In(i64(g.r, 2, 3)), rg])


@scase("range_f32_negative_delta")
def _range_f32(g: G):
    """Range(1.0, -2.0, -0.5) (float, 6 values) multiplied with an input."""
    rg = g.node("Range", [K(np.float32(1.0)), K(np.float32(-2.0)), K(np.float32(-0.5))])
    return g.node("Mul", [In(nrm(g.r, 6)), rg])


@scase("constant_value_float")
def _constant_float(g: G):
    """Constant(value_float=2.5) * x."""
    return g.node("Mul", [In(nrm(g.r, 3, 4)), g.node("Constant", [], value_float=2.5)])


@scase("constant_value_ints")
def _constant_ints(g: G):
    """Constant(value_ints=[1,-2,3]) + int64 x; also output the constant itself."""
    c = g.node("Constant", [], value_ints=[1, -2, 3])
    return [g.node("Add", [In(i64(g.r, 2, 3)), c]), c]


@scase("constant_tensor_reshape")
def _constant_tensor(g: G):
    """Constant(value=tensor int64 [4,-1]) as the Reshape target."""
    c = g.node("Constant", [], value=helper.make_tensor("t", TensorProto.INT64, [2], [4, -1]))
    return g.node("Reshape", [In(nrm(g.r, 2, 3, 4)), c])


op("identity", "Identity", lambda r: [In(nrm(r, 3, 4))])
op("identity_bool", "Identity", lambda r: [In(bools(r, 3, 4))])


@scase("dropout_mask_used")
def _dropout(g: G):
    """Dropout (opset 17, ratio input, inference): Y and the all-true mask both consumed."""
    x = g.add(In(nrm(g.r, 3, 4)))
    y, mask = g.node("Dropout", [x, K(np.float32(0.3))], n_out=2)
    return [g.node("Where", [mask, y, K(np.float32(-7.0))]), mask]


op("dropout_op12_only_y", "Dropout", lambda r: [In(nrm(r, 3, 4))], opset=12)
op("dropout_op7_ratio_attr", "Dropout", lambda r: [In(nrm(r, 3, 4))], opset=7, ratio=0.25)


# TfIdfVectorizer: token ids in [0, 6) so the pool's n-grams occur; unigrams 2..4, bigrams.
_TFIDF = dict(ngram_counts=[0, 3], ngram_indexes=[0, 1, 2, 3, 4, 5], pool_int64s=[2, 3, 4, 2, 3, 4, 5, 1, 1])


def _tokens(r, *shape, dtype=np.int64):
    return r.integers(0, 6, shape).astype(dtype)


op("tfidf_tf_uni_bi_skip2", "TfIdfVectorizer", lambda r: [In(_tokens(r, 3, 12))], opset=9,
   mode="TF", min_gram_length=1, max_gram_length=2, max_skip_count=2, **_TFIDF)
op("tfidf_idf_weights_1d", "TfIdfVectorizer", lambda r: [In(_tokens(r, 10, dtype=np.int32))],
   opset=9, mode="IDF", min_gram_length=1, max_gram_length=2,
   max_skip_count=0, weights=[0.5, 1.5, 2.0, 3.0, 0.25, 4.0], **_TFIDF)
op("tfidf_tfidf_weights", "TfIdfVectorizer", lambda r: [In(_tokens(r, 2, 9))], opset=9,
   mode="TFIDF", min_gram_length=2, max_gram_length=2, max_skip_count=1,
   weights=[0.5, 1.5, 2.0, 3.0, 0.25, 4.0], **_TFIDF)
op("tfidf_idf_no_weights", "TfIdfVectorizer", lambda r: [In(_tokens(r, 2, 7))], opset=9,
   mode="IDF", min_gram_length=1, max_gram_length=1, max_skip_count=3,
   **_TFIDF)

# RoiAlign: ROIs partly outside the map; adaptive grids (sampling_ratio 0) need constant ROIs.
_ROIS = np.array([[0.5, 1.0, 6.5, 5.0], [-2.0, 3.0, 4.0, 9.5], [5.0, 5.0, 9.9, 9.9],
                  [2.0, 2.0, 2.2, 2.1]], np.float32)
op("roialign_adaptive_avg", "RoiAlign",
   lambda r: [In(f32(r, 2, 3, 8, 8)), K(_ROIS * 1.2), K(np.array([0, 1, 1, 0], np.int64))],
   opset=16, output_height=3, output_width=2, sampling_ratio=0, spatial_scale=0.9)
op("roialign_adaptive_max_f64", "RoiAlign",
   lambda r: [In(f32(r, 1, 2, 10, 10).astype(np.float64)), K(_ROIS.astype(np.float64)),
              K(np.zeros(4, np.int64))],
   opset=16, mode="max", output_height=2, output_width=2, sampling_ratio=0,
   coordinate_transformation_mode="output_half_pixel")
op("roialign_runtime_rois", "RoiAlign",
   lambda r: [In(f32(r, 2, 2, 7, 9)), In(_ROIS), In(np.array([1, 0, 1, 1], np.int64))],
   opset=16, output_height=4, output_width=3, sampling_ratio=3, spatial_scale=0.5)

# MaxPool's Indices output (ties resolved to the first tap, as ORT and ONNX do).
op("maxpool_indices_pads_ceil", "MaxPool", lambda r: [In(f32(r, 2, 3, 7, 8))], opset=12, n_out=2,
   kernel_shape=[3, 2], strides=[2, 2], pads=[1, 0, 1, 1], ceil_mode=1)
op("maxpool_indices_colmajor_dil", "MaxPool", lambda r: [In(f32(r, 1, 2, 9, 9))], opset=12,
   n_out=2, kernel_shape=[2, 2], dilations=[2, 1], storage_order=1)
op("maxpool_indices_1d", "MaxPool", lambda r: [In(f32(r, 2, 2, 11))], opset=12, n_out=2,
   kernel_shape=[3], strides=[2], pads=[1, 1])

# Signal ops against ORT: STFT (complex two-sided, real one-sided) and mel filter banks.
op("stft_complex_window", "STFT",
   lambda r: [In(f32(r, 2, 40, 2)), K(np.array(6, np.int64)), In(f32(r, 12)), K(np.array(12, np.int64))],
   opset=17, onesided=0)
op("stft_real_onesided", "STFT",
   lambda r: [In(f32(r, 1, 50, 1)), K(np.array(5, np.int64)), K(np.hanning(16).astype(np.float32))],
   opset=17)
op("melweightmatrix_f64", "MelWeightMatrix",
   lambda r: [K(np.array(10, np.int64)), K(np.array(64, np.int64)), K(np.array(16000, np.int64)),
              K(np.array(100.0, np.float32)), K(np.array(7000.0, np.float32))],
   opset=17, output_datatype=11)

# Det: pivoting matters (a zero leading entry), singular matrices, a batch of 5x5.
op("det_pivot_singular", "Det",
   lambda r: [In(np.array([[[0, 2, 1], [1, 1, 1], [2, 0, 3]], [[1, 2, 3], [2, 4, 6], [0, 1, 1]]],
                          np.float32))], opset=11)
op("det_batch_5x5", "Det", lambda r: [In(f32(r, 2, 3, 5, 5))], opset=11)

# DeformConv with conv groups, two offset groups, mask, bias, stride and padding.
op("deformconv_groups_mask", "DeformConv",
   lambda r: [In(f32(r, 1, 4, 6, 5)), K(f32(r, 6, 2, 2, 3)), In(f32(r, 1, 2 * 6 * 2, 3, 3) * 2),
              K(f32(r, 6)), In(f32(r, 1, 2 * 6, 3, 3, lo=0.0, hi=1.0))],
   opset=19, group=2, offset_group=2, strides=[2, 2], pads=[1, 1, 0, 1])

# TreeEnsemble (ai.onnx.ml 5): two trees (one a lone leaf), every comparison mode, set
# membership, NaN features routed by nodes_missing_value_tracks_true; each aggregation.
def _tree_inputs(r):
    x = np.round(f32(r, 8, 3) * 2) / 2  # ties with the splits
    x[1, 0] = np.nan
    x[5, 2] = np.nan
    return [In(x)]


def _tree_attrs(aggregate):
    return dict(
        domain="ai.onnx.ml", aggregate_function=aggregate, n_targets=3,
        nodes_featureids=[0, 1, 2, 0, 2, 1, 0, 0], nodes_modes=helper.make_tensor(
            "m", TensorProto.UINT8, [8], [0, 1, 2, 3, 4, 5, 6, 0]),
        nodes_splits=helper.make_tensor("s", TensorProto.FLOAT, [8],
                                        [0.0, 0.5, -0.5, 1.0, 0.0, -1.0, 0.0, 0.0]),
        nodes_truenodeids=[1, 3, 4, 0, 1, 2, 3, 4], nodes_trueleafs=[0, 0, 0, 1, 1, 1, 1, 1],
        nodes_falsenodeids=[2, 5, 6, 5, 6, 7, 8, 4], nodes_falseleafs=[0, 0, 0, 1, 1, 1, 1, 1],
        nodes_missing_value_tracks_true=[1, 0, 0, 1, 0, 0, 0, 0],
        membership_values=helper.make_tensor("mv", TensorProto.FLOAT, [3], [-1.0, 2.0, np.nan]),
        leaf_targetids=[0, 1, 2, 0, 1, 2, 0, 1, 2],
        leaf_weights=helper.make_tensor("w", TensorProto.FLOAT, [9],
                                        [1.0, -2.0, 3.5, 0.25, 4.0, -1.5, 2.0, 0.5, 7.0]),
        tree_roots=[0, 7])


for _agg, _name in ((0, "average"), (1, "sum"), (2, "min"), (3, "max")):
    op(f"tree_ensemble_{_name}", "TreeEnsemble", _tree_inputs, opset=17, **_tree_attrs(_agg))

# Einsum with repeated indices: trace (implicit output), batched diagonal, diagonal times a matrix.
op("einsum_trace_implicit", "Einsum", lambda r: [In(f32(r, 4, 4))], opset=12, equation="ii")
op("einsum_diag_batch", "Einsum", lambda r: [In(f32(r, 2, 3, 3, 5))], opset=12, equation="biij->bji")
op("einsum_diag_matmul", "Einsum", lambda r: [In(f32(r, 3, 4, 3)), In(f32(r, 3, 2))], opset=12,
   equation="iji,ik->jk")

OP_MODELS: dict = {**MATH_MODELS, **SHAPE_MODELS}
assert len(OP_MODELS) == len(MATH_MODELS) + len(SHAPE_MODELS), "duplicate case name"


if __name__ == "__main__":
    # Check every case with the ONNX checker and run it on ONNX Runtime; print the output shapes.
    import sys

    import onnx
    import onnxruntime as ort

    bad = 0
    for case_name in sys.argv[1:] or OP_MODELS:
        try:
            m, ins = OP_MODELS[case_name](0)
            onnx.checker.check_model(m, full_check=True)
            so = ort.SessionOptions()
            so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
            sess = ort.InferenceSession(m.SerializeToString(), so,
                                        providers=["CPUExecutionProvider"])
            outs = sess.run(None, ins)
            for vi, o in zip(m.graph.output, outs):
                want = [d.dim_value for d in vi.type.tensor_type.shape.dim]
                assert list(o.shape) == want, f"{vi.name}: ORT shape {o.shape} != declared {want}"
            print(f"ok   {case_name:<30} {[(o.dtype.name, o.shape) for o in outs]}")
        except Exception as e:  # noqa: BLE001
            bad += 1
            print(f"BAD  {case_name:<30} {type(e).__name__}: {str(e)[:300]}")
    print(f"{len(OP_MODELS)} cases, {bad} bad")
    sys.exit(1 if bad else 0)

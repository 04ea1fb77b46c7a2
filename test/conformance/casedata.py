"""Test data for the ONNX backend node-test conformance runner.

The onnx wheel from PyPI does not ship ``onnx/backend/test/data/node``, but it ships
the case generators (``onnx.backend.test.case.node``).  ``ensure_data`` runs them once
and writes every case in ONNX's standard layout (the one ``onnx/backend/test/cmd_tools.py
generate-data`` writes)::

    <datadir>/<case>/model.onnx
    <datadir>/<case>/test_data_set_<i>/input_<j>.pb    TensorProto / SequenceProto / ...
    <datadir>/<case>/test_data_set_<i>/output_<j>.pb

plus ``<datadir>/index.json`` (case name -> rtol, atol) and a stamp file holding the
onnx version; the data is regenerated only when that stamp changes.

This module also derives per-case metadata from the model: the ONNX op a case tests,
the element types it uses, and whether it involves string tensors.
"""
from __future__ import annotations

import json
import os
import shutil
import sys
import warnings
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, numpy_helper

# Bump when the on-disk layout written below changes, to force regeneration.
LAYOUT_VERSION = 1
STAMP_NAME = ".stamp"
INDEX_NAME = "index.json"
EXPANDED = "_expanded"


def _stamp_text() -> str:
    return f"onnx {onnx.__version__} layout {LAYOUT_VERSION}\n"


def _serialize_value(value, type_proto: onnx.TypeProto, name: str) -> bytes:
    """One input/output value as a protobuf file, as cmd_tools.py writes it."""
    if type_proto.HasField("map_type"):
        return numpy_helper.from_dict(value, name).SerializeToString()
    if type_proto.HasField("sequence_type"):
        return numpy_helper.from_list(value, name).SerializeToString()
    if type_proto.HasField("optional_type"):
        return numpy_helper.from_optional(value, name).SerializeToString()
    if isinstance(value, TensorProto):
        return value.SerializeToString()
    return numpy_helper.from_array(np.asarray(value), name).SerializeToString()


def _write_case(case, case_dir: Path) -> None:
    case_dir.mkdir(parents=True)
    (case_dir / "model.onnx").write_bytes(case.model.SerializeToString())
    graph = case.model.graph
    for i, (inputs, outputs) in enumerate(case.data_sets):
        ds = case_dir / f"test_data_set_{i}"
        ds.mkdir()
        for j, value in enumerate(inputs):
            vi = graph.input[j]
            (ds / f"input_{j}.pb").write_bytes(_serialize_value(value, vi.type, vi.name))
        for j, value in enumerate(outputs):
            vi = graph.output[j]
            (ds / f"output_{j}.pb").write_bytes(_serialize_value(value, vi.type, vi.name))


def ensure_data(datadir: Path, quiet: bool = False) -> dict[str, dict]:
    """Generate the case data under ``datadir`` unless the stamp says it is current.

    Returns the index: {case name: {"rtol": float, "atol": float}}.
    """
    stamp = datadir / STAMP_NAME
    if stamp.is_file() and stamp.read_text() == _stamp_text():
        return json.loads((datadir / INDEX_NAME).read_text())

    if not quiet:
        print(f"conformance: generating ONNX node test data (onnx {onnx.__version__}) "
              f"in {datadir}", file=sys.stderr)
    import onnx.backend.test.case.node as node_cases

    # The generators draw from np.random without seeding; seed so every machine gets
    # the same data (and the same tolerance edge cases).
    np.random.seed(0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with np.errstate(all="ignore"):
            cases = node_cases.collect_testcases(None)

    # Write into a fresh sibling directory and swap it in, so an interrupted run
    # never leaves a half-written tree behind a valid stamp.
    tmp = datadir.with_name(datadir.name + f".tmp{os.getpid()}")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    index: dict[str, dict] = {}
    for case in cases:
        if case.kind != "node" or case.model is None or not case.data_sets:
            continue
        _write_case(case, tmp / case.name)
        index[case.name] = {"rtol": float(case.rtol), "atol": float(case.atol)}
    (tmp / INDEX_NAME).write_text(json.dumps(index, indent=0, sort_keys=True))
    (tmp / STAMP_NAME).write_text(_stamp_text())
    old = datadir.with_name(datadir.name + f".old{os.getpid()}")
    if datadir.exists():
        datadir.rename(old)
    tmp.rename(datadir)
    shutil.rmtree(old, ignore_errors=True)
    return index


# ---------------------------------------------------------------------------------
# Per-case metadata
# ---------------------------------------------------------------------------------

def dtype_name(elem_type: int) -> str:
    """TensorProto.FLOAT -> 'float', FLOAT8E4M3FN -> 'float8e4m3fn', ..."""
    if elem_type == TensorProto.UNDEFINED:
        return "undefined"
    try:
        return onnx.helper.tensor_dtype_to_string(elem_type).split(".")[-1].lower()
    except Exception:  # unknown enum value
        return f"type{elem_type}"


def _elem_types(type_proto: onnx.TypeProto) -> list[int]:
    """Element types inside a (possibly nested sequence/optional/map) type."""
    which = type_proto.WhichOneof("value")
    if which == "tensor_type":
        return [type_proto.tensor_type.elem_type]
    if which == "sparse_tensor_type":
        return [type_proto.sparse_tensor_type.elem_type]
    if which == "sequence_type":
        return _elem_types(type_proto.sequence_type.elem_type)
    if which == "optional_type":
        return _elem_types(type_proto.optional_type.elem_type)
    if which == "map_type":
        return [type_proto.map_type.key_type, *_elem_types(type_proto.map_type.value_type)]
    return []


def case_dtypes(model: onnx.ModelProto) -> list[str]:
    """Sorted element-type names of the graph inputs and outputs."""
    types = set()
    for vi in list(model.graph.input) + list(model.graph.output):
        types.update(_elem_types(vi.type))
    return sorted(dtype_name(t) for t in types if t != TensorProto.UNDEFINED)


def _graph_uses_string(graph: onnx.GraphProto) -> bool:
    for vi in list(graph.input) + list(graph.output) + list(graph.value_info):
        if TensorProto.STRING in _elem_types(vi.type):
            return True
    if any(t.data_type == TensorProto.STRING for t in graph.initializer):
        return True
    for node in graph.node:
        for attr in node.attribute:
            if attr.type == onnx.AttributeProto.STRINGS and node.op_type == "LabelEncoder":
                return True  # keys_strings / values_strings
            if attr.t.data_type == TensorProto.STRING:
                return True
            if attr.name == "to" and attr.i == TensorProto.STRING:  # Cast(to=STRING)
                return True
            if attr.g.node and _graph_uses_string(attr.g):
                return True
            if any(_graph_uses_string(g) for g in attr.graphs):
                return True
    return False


def uses_string(model: onnx.ModelProto) -> bool:
    """True if any graph input/output/initializer/attribute tensor is of type STRING."""
    return _graph_uses_string(model.graph) or any(
        _graph_uses_string_fn(f) for f in model.functions)


def _graph_uses_string_fn(fn: onnx.FunctionProto) -> bool:
    g = onnx.GraphProto()
    g.node.extend(fn.node)
    return _graph_uses_string(g)


def base_name(case: str) -> str:
    """test_softmax_axis_0_expanded_ver18 -> test_softmax_axis_0."""
    i = case.find(EXPANDED)
    return case[:i] if i >= 0 else case


def is_expanded(case: str) -> bool:
    return EXPANDED in case


def _norm(s: str) -> str:
    return s.lower().replace("_", "")


def model_op(case: str, model: onnx.ModelProto) -> str:
    """The ONNX op a case tests, from the model's nodes.

    Single-node models (every non-expanded node test): that node's op_type.  Otherwise
    the node op whose lowercase name is the longest prefix of the case name (then the
    longest substring), else the first non-Constant node.
    """
    ops = [n.op_type for n in model.graph.node]
    if len(ops) == 1:
        return ops[0]
    key = _norm(base_name(case).removeprefix("test_"))
    cands = sorted(set(ops), key=len, reverse=True)
    for op in cands:
        if key.startswith(_norm(op)):
            return op
    for op in cands:
        if _norm(op) in key:
            return op
    non_const = [o for o in ops if o != "Constant"]
    return (non_const or ops or ["?"])[0]

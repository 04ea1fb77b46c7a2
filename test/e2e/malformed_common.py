# Shared pieces of the malformed-model cases: the case registry and model building blocks.
"""The registry (`CASES`, `@case`) and building blocks of malformed_models.py and
malformed_builders.py."""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Union

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from models import IR_VERSION

F, I64, BOOL = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL
PASSWD = "/etc/passwd"  # exists everywhere: escaping external data must not reach it

@dataclass
class Case:
    name: str
    doc: str
    needles: list[str]
    # build(data_dir) -> model or raw bytes; data_dir is DIR/<case>_data (created on demand).
    build: Callable[[Path], Union[onnx.ModelProto, bytes]]


CASES: dict[str, Case] = {}


def case(doc: str, *needles: str):
    def register(fn):
        name = fn.__name__[len("m_"):]
        CASES[name] = Case(name, doc, list(needles), fn)
        return fn
    return register


# ---------------------------------------------------------------------------- building blocks
def vi(name: str, shape, dtype: int = F) -> onnx.ValueInfoProto:
    return helper.make_tensor_value_info(name, dtype, shape)


def model(nodes, inputs, outputs, inits=(), opset: int = 17, extra_opsets=(),
          name: str = "malformed") -> onnx.ModelProto:
    g = helper.make_graph(nodes, name, inputs, outputs, initializer=list(inits))
    m = helper.make_model(g, producer_name="dlc-e2e-malformed",
                          opset_imports=[helper.make_opsetid("", opset),
                                         *(helper.make_opsetid(d, v) for d, v in extra_opsets)])
    m.ir_version = IR_VERSION
    return m


def ints(name: str, values) -> TensorProto:
    return numpy_helper.from_array(np.array(values, np.int64), name)


def floats(name: str, shape, value: float = 0.5) -> TensorProto:
    return numpy_helper.from_array(np.full(shape, value, np.float32), name)


def relu_model(inits=()) -> onnx.ModelProto:
    """x float[2,3] -> Relu -> y."""
    return model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                 [vi("x", [2, 3])], [vi("y", [2, 3])], inits)


def unary(op: str, node: str, in_shape, out_shape=None, inits=(), inputs=None, **attrs):
    """One node `op` named `node` on graph input x (plus initializers); output y."""
    n = helper.make_node(op, inputs or ["x"], ["y"], name=node, **attrs)
    return model([n], [vi("x", in_shape)], [vi("y", out_shape)], inits)


def with_attr(op: str, node: str, in_shape, inputs, inits, attr: onnx.AttributeProto):
    n = helper.make_node(op, inputs, ["y"], name=node)
    n.attribute.append(attr)
    return model([n], [vi("x", in_shape)], [vi("y", None)], inits)


def conv_inputs():
    return [1, 1, 5, 5], ["x", "conv_w"], [floats("conv_w", [1, 1, 3, 3])]


def external_model(location: str, offset: int = 0, length: int = 24) -> onnx.ModelProto:
    """x float[2,3] + ext_w (float[2,3] stored as external data at `location`)."""
    w = TensorProto(name="ext_w", data_type=F, dims=[2, 3])
    w.data_location = TensorProto.EXTERNAL
    for k, v in (("location", location), ("offset", str(offset)), ("length", str(length))):
        e = w.external_data.add()
        e.key, e.value = k, v
    return model([helper.make_node("Add", ["x", "ext_w"], ["y"], name="add_ext")],
                 [vi("x", [2, 3])], [vi("y", [2, 3])], [w])


def data_file(data_dir: Path, name: str, nbytes: int = 24) -> str:
    """Creates data_dir/name with nbytes of float32 data; returns its location relative to DIR."""
    data_dir.mkdir(exist_ok=True)
    (data_dir / name).write_bytes(np.full(nbytes // 4, 0.5, np.float32).tobytes())
    return f"{data_dir.name}/{name}"

"""The dynamic variant of the conformance run (``scripts/conformance --dynamic``).

Each case's model is rewritten so that every dim of size >= 2 of every tensor input is
symbolic: a dim of size N becomes the ONNX ``dim_param`` ``dN`` (dims of equal size share
a symbol, as an exporter's dims of one size usually do; dims of size 0 and 1 stay static,
1 being the broadcast marker). The outputs' dims of those sizes get the same symbols.
The model is compiled once per data set with ``dlc compile --dims dN=1..N,...`` (one
artifact for every size up to the case's own) and the artifact run on the case's inputs::

    dlc compile <tmp>/model.onnx --dims d3=1..3,d4=1..4 -o <tmp>/model.so
    dlc run <tmp>/model.so --input NAME=<ds>/input_<j>.pb ... --output-dir <tmp>/out \\
        --output-format pb

A sequence input (also an optional one holding a sequence) gets its length and element
shapes from the data set, each dim of size >= 2 symbolic in the same way
(``--input-shape 'NAME[i]=d3,d4'``; the model's element type loses its shape).

An input whose value sets shapes (Reshape's shape, ...) is asked for by the compile error
(``dlc compile --input-value NAME=FILE``): it is then kept static and given with
``--input-value`` from the data set, and the compile retried.
"""
from __future__ import annotations

import re
from pathlib import Path

import onnx

INPUT_VALUE = re.compile(r"dlc compile --input-value ([^=\s]+)=FILE")
MAX_RETRIES = 6


def data_shapes(inputs: dict[str, Path]) -> dict[str, list[int]]:
    """The shapes of the tensor inputs' data files (TensorProto .pb)."""
    shapes = {}
    for name, path in inputs.items():
        t = onnx.TensorProto()
        try:
            t.ParseFromString(path.read_bytes())
        except Exception:  # a sequence or optional
            continue
        shapes[name] = list(t.dims)
    return shapes


def symbolic_model(model: onnx.ModelProto, static_inputs: set[str],
                   shapes: dict[str, list[int]] | None = None) -> tuple[onnx.ModelProto, dict[str, int]]:
    """A copy of `model` whose tensor inputs (except `static_inputs`) have symbolic dims;
    the symbols with their sizes. A dim the model leaves symbolic or unknown takes its
    size from `shapes` (the data's)."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    inits = {t.name for t in m.graph.initializer}
    symbols: dict[str, int] = {}
    for vi in m.graph.input:
        if vi.name in inits or vi.name in static_inputs or not vi.type.HasField("tensor_type"):
            continue
        tt = vi.type.tensor_type
        if not tt.HasField("shape"):
            continue
        data = (shapes or {}).get(vi.name)
        for i, d in enumerate(tt.shape.dim):
            if not d.HasField("dim_value") and data and len(data) == len(tt.shape.dim):
                d.dim_value = data[i]  # clears dim_param
            if d.HasField("dim_value") and d.dim_value >= 2:
                n = d.dim_value
                d.dim_param = f"d{n}"
                symbols[d.dim_param] = n
    # Outputs declare the same symbols for dims of those sizes (a static size there would
    # contradict a dynamic result); inner value_info goes (dlc infers it).
    for vi in m.graph.output:
        if vi.type.HasField("tensor_type") and vi.type.tensor_type.HasField("shape"):
            for d in vi.type.tensor_type.shape.dim:
                if d.HasField("dim_value") and f"d{d.dim_value}" in symbols:
                    d.dim_param = f"d{d.dim_value}"
    del m.graph.value_info[:]
    return m, symbols


def sequence_shapes(model: onnx.ModelProto, inputs: dict[str, Path],
                    symbols: dict[str, int]) -> list[str]:
    """``--input-shape`` values for the sequence inputs of `model` (their element shapes
    from the data files, dims of size >= 2 as symbols added to `symbols`); drops the
    shapes of those inputs' element types in `model`."""
    shapes = []
    for vi in model.graph.input:
        t = vi.type
        if t.HasField("optional_type"):
            t = t.optional_type.elem_type
        if not t.HasField("sequence_type") or vi.name not in inputs:
            continue
        data = inputs[vi.name].read_bytes()
        seq = onnx.SequenceProto()
        if vi.type.HasField("optional_type"):
            opt = onnx.OptionalProto()
            opt.ParseFromString(data)
            if not opt.HasField("sequence_value"):
                continue
            seq = opt.sequence_value
        else:
            seq.ParseFromString(data)
        elem = t.sequence_type.elem_type
        if elem.HasField("tensor_type"):
            elem.tensor_type.ClearField("shape")
        for i, tensor in enumerate(seq.tensor_values):
            dims = []
            for n in tensor.dims:
                if n >= 2:
                    symbols[f"d{n}"] = n
                    dims.append(f"d{n}")
                else:
                    dims.append(str(n))
            text = ",".join(dims) if any(d.startswith("d") for d in dims) else \
                "x".join(dims) or "scalar"
            shapes.append(f"{vi.name}[{i}]={text}")
    return shapes


def compile_and_run(run, dlc: Path, model: onnx.ModelProto, inputs: dict[str, Path],
                    tmp: Path, run_args: list[str]) -> None:
    """Compiles `model` with symbolic dims into tmp/model.so and runs it with `run_args`
    (after the .so); `run(cmd)` raises CaseFailure on a failing command."""
    static: set[str] = set()
    for _ in range(MAX_RETRIES):
        m, symbols = symbolic_model(model, static, data_shapes(inputs))
        shapes = sequence_shapes(m, inputs, symbols)
        onnx.save(m, str(tmp / "model.onnx"))
        cmd = [str(dlc), "compile", str(tmp / "model.onnx"), "-o", str(tmp / "model.so")]
        for shape in shapes:
            cmd += ["--input-shape", shape]
        if symbols:
            cmd += ["--dims", ",".join(f"{s}=1..{n}" for s, n in sorted(symbols.items()))]
        for name in sorted(static):
            cmd += ["--input-value", f"{name}={inputs[name]}"]
        try:
            run(cmd)
            break
        except Exception as failure:  # CaseFailure: an input whose value must be known?
            wanted = INPUT_VALUE.search(getattr(failure, "reason", ""))
            if not wanted or wanted.group(1) not in inputs or wanted.group(1) in static:
                raise
            static.add(wanted.group(1))
    run([str(dlc), "run", str(tmp / "model.so"), *run_args])

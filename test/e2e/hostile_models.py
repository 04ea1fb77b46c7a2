# Building blocks of hostile.py: a bounded dlc runner (time, peak memory), its checks, and the
# generators of hostile models, .npy/.npz/.pb files and module edits.
"""Helpers for the hostile-input corpus (hostile.py).

``run_dlc`` runs one dlc command in its own process group under a wall-clock limit and
a resident-memory limit (polled from /proc while it runs, and the child's ``ru_maxrss``
from ``os.wait4`` when it ends); ``Spec`` says what a case expects of it; ``judge``
applies the corpus contract:

* an expected error: exit code exactly 1, exactly one stderr line, starting with
  ``error:``, no crash marker (cli_errors.CRASH_MARKERS), every case substring present,
  and no new regular file left anywhere in the case's directory;
* an expected success: exit code 0, no crash marker, and the case's check of the
  output against an independent reference (NumPy, or ONNX Runtime) passes.

A signal, another exit code, a second stderr line, more than ``Spec.timeout`` seconds or
more than 4 GiB resident is a failure in every case.
"""
from __future__ import annotations

import os
import signal
import struct
import subprocess
import sys
import tempfile
import time
import zipfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, str(Path(__file__).resolve().parent))
from cli_errors import Fail, crash_markers, save  # noqa: E402,F401
import module_seal  # noqa: E402,F401
from models import IR_VERSION  # noqa: E402

MEMORY_LIMIT = 4 << 30  # bytes resident, dlc and the children it waited for
TIME_LIMIT = 60.0       # seconds per dlc call
F, I64 = TensorProto.FLOAT, TensorProto.INT64
NP2ONNX = {np.dtype(t): helper.np_dtype_to_tensor_dtype(np.dtype(t)) for t in
           (np.float32, np.float64, np.float16, np.bool_, np.int8, np.int16, np.int32,
            np.int64, np.uint8, np.uint16, np.uint32, np.uint64)}


# ---------------------------------------------------------------------------- running dlc
@dataclass
class Result:
    rc: int | None          # exit code, or None when killed by a signal
    sig: int | None         # the signal that ended it
    stdout: str
    stderr: str
    maxrss: int             # bytes
    wall: float
    killed: str | None      # why this harness killed it (time or memory), or None


def _rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 0


def run_dlc(cmd: list[str], cwd: Path, timeout: float = TIME_LIMIT,
            stdout_file: str | None = None, stdin_pipe: bool = False) -> Result:
    """Runs cmd in its own session; kills the whole group past `timeout` s or MEMORY_LIMIT."""
    with tempfile.TemporaryFile() as out_tmp, tempfile.TemporaryFile() as err_tmp:
        out = open(stdout_file, "wb") if stdout_file else out_tmp
        try:
            p = subprocess.Popen(cmd, cwd=cwd, stdout=out, stderr=err_tmp,
                                 stdin=subprocess.PIPE if stdin_pipe else subprocess.DEVNULL,
                                 start_new_session=True)
        finally:
            if stdout_file:
                out.close()
        start, killed, peak = time.monotonic(), None, 0
        while True:
            pid, status, ru = os.wait4(p.pid, os.WNOHANG)
            if pid:
                break
            peak = max(peak, _rss(p.pid))
            if killed is None and peak > MEMORY_LIMIT:
                killed = f"resident memory {peak >> 20} MiB > {MEMORY_LIMIT >> 20} MiB"
            elif killed is None and time.monotonic() - start > timeout:
                killed = f"timed out after {timeout:.0f}s"
            if killed:
                try:
                    os.killpg(p.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
                pid, status, ru = os.wait4(p.pid, 0)
                break
            time.sleep(0.01)
        wall = time.monotonic() - start
        p.returncode = 0  # reaped here: keep Popen from waiting again
        if p.stdin:
            p.stdin.close()
        out_tmp.seek(0)
        err_tmp.seek(0)
        return Result(os.WEXITSTATUS(status) if os.WIFEXITED(status) else None,
                      os.WTERMSIG(status) if os.WIFSIGNALED(status) else None,
                      out_tmp.read().decode(errors="replace"),
                      err_tmp.read().decode(errors="replace"),
                      max(peak, ru.ru_maxrss * 1024), wall, killed)


# ---------------------------------------------------------------------------- expectations
@dataclass
class Spec:
    """What one case runs and expects: needles (an error), check (a success), or both
    (either is right: exit 1 with an error line naming the needles, or exit 0 and check)."""
    cmd: list[str]
    needles: list[str] | None = None
    check: Callable[[], str | None] | None = None
    after: Callable[[], str | None] | None = None  # extra condition, either way
    stdout_file: str | None = None
    stdin_pipe: bool = False
    timeout: float = TIME_LIMIT
    files_ok: bool = False  # an error may leave files (they are outside the case's reach)
    cleanup: Callable[[], None] | None = None  # undo what the case did outside plain files
    result: Result | None = None  # set by judge before check runs (a check may read stdout)


def err(cmd, *needles, **kw) -> Spec:
    return Spec(list(map(str, cmd)), needles=list(needles), **kw)


def ok(cmd, check, **kw) -> Spec:
    return Spec(list(map(str, cmd)), check=check, **kw)


def either(cmd, check, *needles, **kw) -> Spec:
    return Spec(list(map(str, cmd)), needles=list(needles), check=check, **kw)


def _files(d: Path) -> set[str]:
    found = set()
    for root, dirs, files in os.walk(d):
        for f in files:
            p = Path(root, f)
            if p.is_file() and not p.is_symlink():
                found.add(str(p.relative_to(d)))
    return found


def _shown(text: str) -> str:
    return "".join("\n    | " + line for line in text.strip().splitlines()[:12]) or " (none)"


def judge(spec: Spec, d: Path) -> str:
    """Runs spec in d; returns a one-line summary or raises Fail."""
    before = _files(d)
    r = run_dlc(spec.cmd, d, spec.timeout, spec.stdout_file, spec.stdin_pipe)
    where = f"[{r.wall:.1f}s {r.maxrss >> 20} MiB]"
    if r.killed:
        raise Fail(f"{r.killed}; stderr:{_shown(r.stderr)}")
    if r.sig is not None:
        raise Fail(f"killed by signal {r.sig} ({signal.Signals(r.sig).name}); stderr:"
                   f"{_shown(r.stderr)}")
    if r.maxrss > MEMORY_LIMIT:
        raise Fail(f"peak resident memory {r.maxrss >> 20} MiB > 4 GiB")
    crash = crash_markers(r.stderr)
    if crash:
        raise Fail(f"exit {r.rc}, stderr looks like a crash ({', '.join(crash)}):"
                   f"{_shown(r.stderr)}")
    spec.result = r
    if spec.needles is not None and (spec.check is None or r.rc != 0):
        lines = r.stderr.splitlines()
        if r.rc != 1:
            raise Fail(f"exit {r.rc}, expected 1; stderr:{_shown(r.stderr)}")
        if len(lines) != 1 or not lines[0].startswith("error:"):
            raise Fail(f"{len(lines)} stderr lines, expected one 'error:' line:{_shown(r.stderr)}")
        missing = [n for n in spec.needles if n not in lines[0]]
        if missing:
            raise Fail(f"error line does not mention {missing}:{_shown(r.stderr)}")
        left = sorted(_files(d) - before)
        if left and not spec.files_ok:
            raise Fail(f"failed but left {left} behind; stderr:{_shown(r.stderr)}")
        summary = lines[0]
    else:
        if r.rc != 0:
            raise Fail(f"exit {r.rc}, expected 0; stderr:{_shown(r.stderr)}")
        why = spec.check()
        if why:
            raise Fail(why)
        summary = "exit 0, output as expected"
    if spec.after and (why := spec.after()):
        raise Fail(why)
    return f"{where} {summary}"


def same(path: Path, ref: np.ndarray, rtol: float = 0.0, atol: float = 0.0):
    """A check: path (.npy) holds ref (dtype and shape equal; values within rtol/atol)."""
    def check():
        if not path.is_file():
            return f"{path.name} was not written"
        got = np.load(path, allow_pickle=False)
        if got.dtype != ref.dtype or got.shape != ref.shape:
            return (f"{path.name}: {got.dtype}{list(got.shape)}, expected "
                    f"{ref.dtype}{list(ref.shape)}")
        if rtol == atol == 0.0:
            bad = got != ref
        else:
            bad = ~np.isclose(got, ref, rtol=rtol, atol=atol, equal_nan=True)
        if bad.any():
            i = np.flatnonzero(bad)[0]
            return (f"{path.name}: {int(bad.sum())} of {bad.size} values differ, first at "
                    f"{i}: got {got.flat[i]!r}, expected {ref.flat[i]!r}")
    return check


def all_of(*checks):
    def check():
        for c in checks:
            if why := c():
                return why
    return check


def unchanged(path: Path, content: bytes | None):
    """A check: path still holds content (does not exist, when content is None)."""
    def check():
        if content is None:
            return f"{path} was created" if os.path.exists(path) else None
        if not path.is_file() or path.read_bytes() != content:
            return f"{path} was overwritten or removed"
    return check


# ---------------------------------------------------------------------------- models
def vi(name: str, shape, dtype: int = F):
    return helper.make_tensor_value_info(name, dtype, shape)


def model(nodes, inputs, outputs, inits=(), opset: int = 17) -> onnx.ModelProto:
    g = helper.make_graph(nodes, "hostile", inputs, outputs, initializer=list(inits))
    m = helper.make_model(g, producer_name="dlc-e2e-hostile",
                          opset_imports=[helper.make_opsetid("", opset)])
    m.ir_version = IR_VERSION
    return m


def const(name: str, value, dtype=None) -> TensorProto:
    return numpy_helper.from_array(np.asarray(value, dtype), name)


def one_node(op: str, inputs: dict, consts: dict | None = None, out="y", node="hnode",
             opset=17, out_shape=None, **attrs) -> onnx.ModelProto:
    """One node named `node`: graph inputs {name: (dtype, shape)}, constants {name: array},
    in that order unless attrs['_order'] lists the node's inputs; attrs['_n_out'] outputs
    (the first of dtype attrs['_out_dtype'], default float; the others int64)."""
    order = attrs.pop("_order", None)
    out_dtype = attrs.pop("_out_dtype", F)
    outs = [out] + [f"{out}{i}" for i in range(1, attrs.pop("_n_out", 1))]
    consts = consts or {}
    names = order or [*inputs, *consts]
    n = helper.make_node(op, names, outs, name=node, **attrs)
    ins = [vi(k, list(s), NP2ONNX[np.dtype(t)]) for k, (t, s) in inputs.items()]
    return model([n], ins, [vi(o, out_shape, out_dtype if i == 0 else I64)
                            for i, o in enumerate(outs)],
                 [const(k, v) for k, v in consts.items()], opset)


def relu_model(name: str = "x", shape=(2, 3), dtype=np.float32) -> onnx.ModelProto:
    return model([helper.make_node("Relu", [name], ["y"], name="relu")],
                 [vi(name, list(shape), NP2ONNX[np.dtype(dtype)])], [vi("y", list(shape))])


def add_model(in_name: str = "x", w: str = "w") -> onnx.ModelProto:
    """in_name float[2,3] + w (0.5) -> y: a trainable model (w is a float initializer)."""
    return model([helper.make_node("Add", [in_name, w], ["y"], name="add")],
                 [vi(in_name, [2, 3])], [vi("y", [2, 3])],
                 [const(w, np.full((2, 3), 0.5, np.float32))])


def external(location: str, offset: int | str = 0, length: int | str = 24,
             dims=(2, 3), extra=()) -> onnx.ModelProto:
    """add_model() whose initializer ext_w is external data (these key/value pairs, plus
    `extra`)."""
    m = add_model(w="ext_w")
    w = m.graph.initializer[0]
    w.ClearField("raw_data")
    del w.dims[:]
    w.dims.extend(dims)
    w.data_location = TensorProto.EXTERNAL
    for k, v in (("location", location), ("offset", str(offset)), ("length", str(length)),
                 *extra):
        e = w.external_data.add()
        e.key, e.value = k, v
    return m


# ---------------------------------------------------------------------------- npy files
def npy_header(descr: str, fortran: str = "False", shape: str = "(2, 3)", extra: str = "",
               version: tuple = (1, 0), raw: str | None = None) -> bytes:
    """A .npy header with the given dict fields as text (padded as NumPy does)."""
    text = raw if raw is not None else \
        f"{{'descr': '{descr}', 'fortran_order': {fortran}, 'shape': {shape}, {extra}}}"
    hlen_size = 2 if version[0] == 1 else 4
    body = text.encode("latin1")
    pad = (-(6 + 2 + hlen_size + len(body) + 1)) % 64
    body += b" " * pad + b"\n"
    fmt = "<H" if hlen_size == 2 else "<I"
    return b"\x93NUMPY" + bytes(version) + struct.pack(fmt, len(body)) + body


def npy_bytes(a: np.ndarray) -> bytes:
    import io
    buf = io.BytesIO()
    np.save(buf, a, allow_pickle=False)
    return buf.getvalue()


# ---------------------------------------------------------------------------- zip (npz) files
def zip_member_offsets(data: bytes) -> list[tuple[int, int, int]]:
    """(local header offset, data offset, compressed size) of each member, in order."""
    out, at = [], 0
    while data[at:at + 4] == b"PK\x03\x04":
        flags, method, _, _, crc, csize, usize, nlen, xlen = struct.unpack_from(
            "<HHHHIIIHH", data, at + 6)
        start = at + 30 + nlen + xlen
        out.append((at, start, csize))
        at = start + csize
    return out


def npz(path: Path, arrays: dict, compressed: bool = False) -> Path:
    (np.savez_compressed if compressed else np.savez)(path, **arrays)
    return path


def zip_raw(path: Path, members: list[tuple[str, bytes]], method=zipfile.ZIP_STORED) -> Path:
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # duplicate names are on purpose
        with zipfile.ZipFile(path, "w", method) as z:
            for name, data in members:
                z.writestr(name, data)
    return path


# ---------------------------------------------------------------------------- TensorProto files
def varint(n: int) -> bytes:
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        out.append(b | (0x80 if n else 0))
        if not n:
            return bytes(out)


# ---------------------------------------------------------------------------- the case table
@dataclass
class Case:
    name: str
    cls: str          # crash | memory | hang | write | wrong | cli
    quick: bool
    doc: str
    build: Callable[[str, Path], Spec]  # (dlc, case dir) -> Spec; raises Fail on a precondition


CLASSES = {"crash": "1 crashes from user input", "memory": "2 runaway memory",
           "hang": "3 hangs and blow-ups", "write": "4 unsafe or failing writes",
           "wrong": "5 silently wrong results", "cli": "6 CLI flags"}
CASES: dict[str, Case] = {}


def add(name: str, cls: str, build, doc: str = "", quick: bool = False):
    assert name not in CASES, name
    assert cls in CLASSES, cls
    CASES[name] = Case(name, cls, quick, doc or (build.__doc__ or "").strip().split("\n")[0],
                       build)


def case(cls: str, quick: bool = False):
    """Decorator: registers c_<name>(dlc, d) -> Spec as case <name>."""
    def register(fn):
        add(fn.__name__[2:], cls, fn, quick=quick)
        return fn
    return register


# ---------------------------------------------------------------------------- case setup
def put(d: Path, name: str, content) -> str:
    """Writes d/name (a model, an array as .npy, or bytes); returns name."""
    p = d / name
    p.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, onnx.ModelProto):
        save(content, p)
    elif isinstance(content, np.ndarray):
        np.save(p, content, allow_pickle=False)
    elif isinstance(content, TensorProto):
        p.write_bytes(content.SerializeToString())
    else:
        p.write_bytes(content)
    return name


def compile_so(dlc: str, d: Path, onnx_name: str = "model.onnx", so: str = "model.so",
               extra=()) -> str:
    """dlc compile d/onnx_name -o d/so, a precondition (Fail if it does not exit 0)."""
    r = run_dlc([dlc, "compile", onnx_name, "-o", so, *extra], d)
    if r.rc != 0 or r.killed or not (d / so).is_file():
        raise Fail(f"precondition: dlc compile {onnx_name} {' '.join(extra)} failed "
                   f"(exit {r.rc}, {r.killed or ''}):{_shown(r.stderr)}")
    return so


def run_args(dlc: str, model_file: str, inputs: dict, out: str = "out", extra=()) -> list[str]:
    """dlc run MODEL --input k=v ... --output-dir out."""
    args = [dlc, "run", model_file]
    for k, v in inputs.items():
        args += ["--input", f"{k}={v}"]
    return args + (["--output-dir", out] if out else []) + list(extra)


def train_step(dlc: str, d: Path, in_name: str = "x") -> str:
    """add_model(in_name) compiled as a training step (mse on y): d/step.so."""
    put(d, "train.onnx", add_model(in_name))
    return compile_so(dlc, d, "train.onnx", "step.so", ["--train", "--loss=mse:y"])


def train_data(d: Path, name: str = "data.npz", n: int = 4, in_name: str = "x") -> str:
    npz(d / name, {in_name: np.ones((n, 3), np.float32), "labels": np.ones((n, 3), np.float32)})
    return name

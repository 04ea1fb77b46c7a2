# Hostile files for hostile.py: .npy and TensorProto inputs, .npz datasets, external data,
# compiled modules (edited, resealed, truncated) and devices/FIFOs where a file is expected.
"""Cases of the hostile corpus that feed dlc broken or hostile *files* (see hostile.py).

Importing this module registers its cases in hostile_models.CASES.
"""
from __future__ import annotations

import os
import shutil
import struct
import subprocess
import zipfile
import zlib
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper

from hostile_models import (F, Fail, add, add_model, case, compile_so, either, err, external,
                            model, module_seal, npy_bytes, npy_header, npz, ok, put,
                            relu_model, run_args, same, train_data, train_step, unchanged,
                            varint, vi, zip_member_offsets, zip_raw)

X = np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5  # the good value of input x
WRAP1 = (274177, 67280421310721)        # product = 2^64 + 1: wraps to 1 element
BYTES_WRAP = 4611686018427387905       # 2^62 + 1 floats = 2^64 + 4 bytes: wraps to 4 bytes


def sym_relu(rank: int) -> onnx.ModelProto:
    """Relu on x float[d0, ...] with symbolic dims: the input file alone sets the shape."""
    return model([helper.make_node("Relu", ["x"], ["y"], name="relu")],
                 [vi("x", [f"d{i}" for i in range(rank)])], [vi("y", None)])


def relu_ref(d: Path):
    return same(d / "out" / "y.npy", np.maximum(X, 0))


# ---------------------------------------------------------------------------- .npy inputs
D24 = X.tobytes()


def _npy_header_code(d):
    return npy_header("", raw="{'descr': __import__('os').system('touch pwned') or '<f4', "
                              "'fortran_order': False, 'shape': (2, 3), }") + D24


NPY = {  # name: (bytes or fn(d) -> bytes, rank of a symbolic model or None for x[2,3], how)
    "npy_pickle": (lambda d: npy_bytes_pickle(), None, "err"),
    "npy_fortran": (npy_header("<f4", "True") + X.T.copy().tobytes(), None, "err"),
    "npy_big_endian": (npy_header(">f4") + X.astype(">f4").tobytes(), None, "err"),
    "npy_complex": (npy_header("<c8") + X.astype(np.complex64).tobytes(), None, "err"),
    "npy_unicode": (npy_header("<U1") + b"\0" * 24, None, "err"),
    "npy_structured": (npy_header("", raw="{'descr': [('a', '<f4')], 'fortran_order': False, "
                                          "'shape': (2, 3), }") + D24, None, "err"),
    "npy_bad_magic": (b"\x93NUMPZ" + npy_header("<f4")[6:] + D24, None, "err"),
    "npy_version_9": (npy_header("<f4", version=(9, 0)) + D24, None, "err"),
    "npy_header_past_eof": (b"\x93NUMPY\x01\x00\xff\xff{'descr'", None, "err"),
    "npy_header_v2_4gib": (b"\x93NUMPY\x02\x00\xf0\xff\xff\xff{'descr': '<f4'", None, "err"),
    "npy_header_len_zero": (b"\x93NUMPY\x01\x00\x00\x00" + D24, None, "err"),
    "npy_not_a_dict": (npy_header("", raw="[2, 3]") + D24, None, "err"),
    "npy_missing_shape": (npy_header("", raw="{'descr': '<f4', 'fortran_order': False, }")
                          + D24, None, "err"),
    "npy_extra_key": (npy_header("<f4", extra="'evil': 1, ") + D24, None, "err"),
    "npy_shape_negative": (npy_header("<f4", shape="(-2, 3)") + D24, 2, "err"),
    "npy_shape_float": (npy_header("<f4", shape="(2.0, 3)") + D24, 2, "err"),
    "npy_shape_list": (npy_header("<f4", shape="[2, 3]") + D24, 2, "err"),
    "npy_shape_huge": (npy_header("<f4", shape="(1099511627776, 1099511627776)") + D24, 2,
                       "err"),
    "npy_shape_count_wraps": (npy_header("<f4", shape=str(WRAP1)) + D24[:4], 2, "err"),
    "npy_shape_bytes_wrap": (npy_header("<f4", shape=f"({BYTES_WRAP},)") + D24[:4], 1, "err"),
    "npy_shape_overflow_text": (npy_header("<f4", shape="(99999999999999999999999,)")
                                + D24, 1, "err"),
    "npy_truncated_data": (npy_header("<f4") + D24[:20], None, "err"),
    "npy_fortran_not_bool": (npy_header("<f4", fortran="'no'") + D24, None, "err"),
    "npy_nul_in_header": (npy_header("", raw="{'descr': '<f4\0', 'fortran_order': False, "
                                             "'shape': (2, 3), }") + D24, None, "err"),
    "npy_unterminated_dict": (npy_header("", raw="{'descr': '<f4', 'fortran_order': False, "
                                                 "'shape': (2, 3), ") + D24, None, "err"),
    "npy_code_in_header": (_npy_header_code, None, "err"),
    "npy_only_magic": (b"\x93NUMPY", None, "err"),
    "npy_empty_file": (b"", None, "err"),
    "npy_half_for_float": (npy_bytes(X.astype(np.float16)), None, "mismatch"),
    "npy_scalar_for_tensor": (npy_bytes(np.float32(1.5)), None, "mismatch"),
    "npy_zero_rows": (npy_bytes(np.zeros((0, 3), np.float32)), None, "mismatch"),
    "npy_rank_32": (npy_bytes(np.ones((1,) * 32, np.float32)), None, "mismatch"),
    # Files NumPy reads: dlc reads them the same (exit 0, exact output) or refuses them cleanly.
    "npy_trailing_bytes": (npy_header("<f4") + D24 + b"\0" * 4, None, "either"),
    "npy_descr_name": (npy_header("float32") + D24, None, "either"),
    # Valid files with unusual headers: must be read (exit 0, exact output).
    "npy_version_2": (npy_header("<f4", version=(2, 0)) + D24, None, "ok"),
    "npy_version_3": (npy_header("<f4", version=(3, 0)) + D24, None, "ok"),
    "npy_header_60k": (npy_header("<f4", extra=" " * 60000) + D24, None, "ok"),
}


def npy_bytes_pickle() -> bytes:
    import io
    buf = io.BytesIO()
    np.save(buf, np.array([[1, 2, 3], [4, 5, 6]], dtype=object), allow_pickle=True)
    return buf.getvalue()


def _npy_case(name, content, rank, how, aot=False):
    def build(dlc, d):
        data = content(d) if callable(content) else content
        put(d, "x.npy", data)
        put(d, "model.onnx", relu_model() if rank is None else sym_relu(rank))
        target = compile_so(dlc, d) if aot else "model.onnx"
        cmd = run_args(dlc, target, {"x": "x.npy"})
        after = unchanged(d / "pwned", None) if "code" in name else None
        if how == "err":
            return err(cmd, "x.npy", after=after)
        if how == "mismatch":  # a well-formed file of the wrong dtype or shape for input x
            return err(cmd, "'x'")
        if how == "either":
            return either(cmd, relu_ref(d), "x.npy")
        return ok(cmd, relu_ref(d))
    return build


for _n, (_c, _r, _h) in NPY.items():
    add(_n, "wrong", _npy_case(_n, _c, _r, _h), f".npy input: {_n[4:].replace('_', ' ')}",
        quick=_n in ("npy_pickle", "npy_shape_count_wraps", "npy_code_in_header", "npy_version_3"))
# The compiled module's reader (runtime/) is a second implementation: the worst ones again.
for _n in ("npy_fortran", "npy_shape_count_wraps", "npy_truncated_data", "npy_header_past_eof"):
    _c, _r, _h = NPY[_n]
    add(_n + "_so", "wrong", _npy_case(_n, _c, None, _h, aot=True),
        f".npy input to a compiled module: {_n[4:].replace('_', ' ')}")


# ---------------------------------------------------------------------------- TensorProto inputs
def _t(dtype=F, dims=(2, 3), **fields) -> TensorProto:
    t = TensorProto(name="x", data_type=dtype)
    t.dims.extend(dims)
    for k, v in fields.items():
        if isinstance(v, (list, tuple, np.ndarray)):
            getattr(t, k).extend(v.tolist() if isinstance(v, np.ndarray) else v)
        else:
            setattr(t, k, v)
    return t


def _ext_pb(location: str) -> TensorProto:
    t = _t()
    t.data_location = TensorProto.EXTERNAL
    for k, v in (("location", location), ("offset", "0"), ("length", "24")):
        e = t.external_data.add()
        e.key, e.value = k, v
    return t


GOOD_PB = _t(raw_data=D24)
PB = {  # name: (TensorProto or bytes, symbolic rank or None, how)
    "pb_garbage": (np.random.default_rng(3).bytes(64), None, "err"),
    "pb_truncated": (GOOD_PB.SerializeToString()[:-7], None, "err"),
    "pb_empty_file": (b"", None, "err"),
    "pb_dtype_undefined": (_t(0, raw_data=D24), None, "err"),
    "pb_dtype_999": (_t(999, raw_data=D24), None, "err"),
    "pb_dtype_string": (_t(TensorProto.STRING, string_data=[b"a"] * 6), None, "err"),
    "pb_dtype_int64": (_t(TensorProto.INT64, int64_data=[1] * 6), None, "mismatch"),
    "pb_dims_negative": (_t(dims=(-2, 3), raw_data=D24), 2, "err"),
    "pb_dims_huge": (_t(dims=(1 << 40, 1 << 40)), 2, "err"),
    "pb_dims_count_wraps": (_t(dims=WRAP1, raw_data=D24[:4]), 2, "err"),
    "pb_dims_bytes_wrap": (_t(dims=(BYTES_WRAP,), raw_data=D24[:4]), 1, "err"),
    "pb_raw_short": (_t(raw_data=D24[:20]), None, "err"),
    "pb_raw_long": (_t(raw_data=D24 + b"\0" * 4), None, "err"),
    "pb_float_data_short": (_t(float_data=X.ravel()[:5]), None, "err"),
    "pb_float_data_long": (_t(float_data=[*X.ravel(), 9.0]), None, "err"),
    # raw_data and float_data both set, and different: ONNX (numpy_helper) and ORT read raw_data
    "pb_raw_and_float_data": (_t(raw_data=D24, float_data=[7.0] * 6), None, "either"),
    "pb_int32_data_for_float": (_t(int32_data=[1] * 6), None, "err"),
    "pb_external_absolute": (_ext_pb("/etc/passwd"), None, "err"),
    "pb_external_dotdot": (_ext_pb("../" * 16 + "etc/passwd"), None, "err"),
    "pb_varint_length_huge": (b"\x08\x02\x08\x03\x10\x01\x4a" + varint(1 << 62) + D24, None,
                              "err"),
    "pb_rank_100": (_t(dims=(1,) * 100, raw_data=D24[:4]), None, "err"),
    "pb_sequence_proto": (onnx.SequenceProto(name="x", elem_type=1,
                                             tensor_values=[GOOD_PB]).SerializeToString(),
                          None, "err"),
    "pb_unknown_field": (GOOD_PB.SerializeToString() + b"\xf8\x06\x01", None, "ok"),
    "pb_float_data_valid": (_t(float_data=X.ravel()), None, "ok"),
}


def _pb_case(content, rank, how):
    def build(dlc, d):
        put(d, "x.pb", content if isinstance(content, bytes) else content.SerializeToString())
        put(d, "model.onnx", relu_model() if rank is None else sym_relu(rank))
        cmd = run_args(dlc, "model.onnx", {"x": "x.pb"})
        if how == "either":
            return either(cmd, relu_ref(d), "x.pb")
        if how == "mismatch":
            return err(cmd, "'x'")
        return err(cmd, "x.pb") if how == "err" else ok(cmd, relu_ref(d))
    return build


for _n, (_c, _r, _h) in PB.items():
    add(_n, "wrong", _pb_case(_c, _r, _h), f"TensorProto input: {_n[3:].replace('_', ' ')}",
        quick=_n in ("pb_dims_count_wraps", "pb_external_absolute", "pb_varint_length_huge"))


def _typed_pb(np_type, field):
    """A valid .pb in the typed field ONNX uses for this dtype (not raw_data): exit 0."""
    def build(dlc, d):
        a = (np.arange(6).reshape(2, 3) - 2).astype(np_type)
        if np_type == np.uint64:
            a = np.array([[0, 1, 1 << 63], [(1 << 64) - 1, 5, 1 << 40]], np.uint64)
        vals = a.view(np.uint16).astype(np.int32) if np_type == np.float16 else a.ravel()
        dt = helper.np_dtype_to_tensor_dtype(np.dtype(np_type))
        put(d, "x.pb", _t(dt, **{field: vals.ravel().tolist()}))
        put(d, "model.onnx", model([helper.make_node("Identity", ["x"], ["y"], name="ident")],
                                   [vi("x", [2, 3], dt)], [vi("y", [2, 3], dt)]))
        return ok(run_args(dlc, "model.onnx", {"x": "x.pb"}), same(d / "out" / "y.npy", a))
    return build


for _t_, _f in ((np.float16, "int32_data"), (np.uint64, "uint64_data"),
                (np.float64, "double_data"), (np.int8, "int32_data")):
    add(f"pb_typed_{np.dtype(_t_).name}", "wrong", _typed_pb(_t_, _f),
        f"TensorProto input: {np.dtype(_t_).name} in {_f} (valid): read exactly")


# ---------------------------------------------------------------------------- .npz datasets
def _train(dlc, d, data: str, *extra) -> list[str]:
    return [dlc, "train", train_step(dlc, d), "--data", data, "--steps", "1", "--batch", "2",
            *extra]


def _edit_zip(path: Path, member: int, **fields):
    """Edits local-header fields of the member-th member (and its central-directory entry)."""
    b = bytearray(path.read_bytes())
    loc, start, csize = zip_member_offsets(bytes(b))[member]
    offs = {"flags": 6, "method": 8, "crc": 14, "csize": 18, "usize": 22}
    cen = [i for i in range(len(b)) if b[i:i + 4] == b"PK\x01\x02"][member]
    for k, v in fields.items():
        fmt = "<H" if k in ("flags", "method") else "<I"
        struct.pack_into(fmt, b, loc + offs[k], v)
        struct.pack_into(fmt, b, cen + offs[k] + 2, v)
    path.write_bytes(bytes(b))


def _deflate_zeros(header: bytes, gib: int) -> bytes:
    """A raw deflate stream of header + gib GiB of zeros, made of repeated full-flush blocks."""
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    first = c.compress(header) + c.flush(zlib.Z_FULL_FLUSH)
    c2 = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = c2.compress(b"\0" * (1 << 20)) + c2.flush(zlib.Z_FULL_FLUSH)
    return first + block * (gib << 10) + b"\x03\x00"


def _bomb(d: Path, lie: bool) -> str:
    """x.npy of shape (2^28, 3): 3 GiB of zeros in a 3 MB deflate stream; its zip headers
    claim 1000 bytes when `lie`, else the true size (the CRC is left wrong: the size limit
    must stop it first)."""
    hdr = npy_header("<f4", shape="(268435456, 3)")
    body = _deflate_zeros(hdr, 3)
    zip_raw(d / "data.npz", [("x.npy", b"x"), ("labels.npy",
                                               npy_bytes(np.ones((4, 3), np.float32)))])
    b = (d / "data.npz").read_bytes()
    loc, start, csize = zip_member_offsets(b)[0]
    usize = 1000 if lie else len(hdr) + (3 << 30)
    bb = bytearray(b[:start] + body + b[start + csize:])
    shift = len(body) - csize
    struct.pack_into("<H", bb, loc + 8, 8)  # deflate
    struct.pack_into("<III", bb, loc + 14, 0, len(body), usize)
    cens = [i for i in range(len(bb)) if bb[i:i + 4] == b"PK\x01\x02"]
    struct.pack_into("<H", bb, cens[0] + 10, 8)
    struct.pack_into("<III", bb, cens[0] + 16, 0, len(body), usize)
    struct.pack_into("<I", bb, cens[1] + 42, struct.unpack_from("<I", bb, cens[1] + 42)[0] + shift)
    eocd = bytes(bb).rfind(b"PK\x05\x06")
    struct.pack_into("<I", bb, eocd + 16, struct.unpack_from("<I", bb, eocd + 16)[0] + shift)
    (d / "data.npz").write_bytes(bytes(bb))
    return "data.npz"


def _npz_files(d: Path, kind: str) -> str:
    good = {"x": np.ones((4, 3), np.float32), "labels": np.ones((4, 3), np.float32)}
    p = d / "data.npz"
    if kind == "not_zip":
        p.write_bytes(np.random.default_rng(5).bytes(512))
    elif kind == "empty_zip":
        zip_raw(p, [])
    elif kind == "missing_labels":
        npz(p, {"x": good["x"]})
    elif kind == "wrong_dtype":
        npz(p, {"x": good["x"].astype(np.float64), "labels": good["labels"]})
    elif kind == "count_mismatch":
        npz(p, {"x": good["x"], "labels": np.ones((3, 3), np.float32)})
    elif kind == "zero_examples":
        npz(p, {"x": np.ones((0, 3), np.float32), "labels": np.ones((0, 3), np.float32)})
    elif kind == "bzip2":
        zip_raw(p, [(k + ".npy", npy_bytes(v)) for k, v in good.items()], zipfile.ZIP_BZIP2)
    elif kind == "lzma":
        zip_raw(p, [(k + ".npy", npy_bytes(v)) for k, v in good.items()], zipfile.ZIP_LZMA)
    elif kind == "truncated":
        npz(p, good)
        p.write_bytes(p.read_bytes()[: p.stat().st_size // 2])
    elif kind == "crc_second_member":
        npz(p, good)
        _edit_zip(p, 1, crc=0x12345678)
    elif kind == "pickled_member":
        zip_raw(p, [("x.npy", npy_bytes_pickle()), ("labels.npy", npy_bytes(good["labels"]))])
    elif kind == "fortran_member":
        zip_raw(p, [("x.npy", npy_header("<f4", "True", "(4, 3)") + good["x"].tobytes()),
                    ("labels.npy", npy_bytes(good["labels"]))])
    elif kind == "member_shape_huge":
        zip_raw(p, [("x.npy", npy_header("<f4", shape="(1099511627776, 3)") + D24),
                    ("labels.npy", npy_bytes(good["labels"]))])
    elif kind == "member_shape_wraps":
        zip_raw(p, [("x.npy", npy_header("<f4", shape=f"({WRAP1[0]}, {WRAP1[1]}, 3)") + D24),
                    ("labels.npy", npy_bytes(good["labels"]))])
    elif kind == "corrupt_deflate":
        npz(p, good, compressed=True)
        b = bytearray(p.read_bytes())
        loc, start, csize = zip_member_offsets(bytes(b))[0]
        b[start:start + 4] = b"\xff\xff\xff\xff"
        p.write_bytes(bytes(b))
    elif kind == "usize_understated":
        npz(p, good, compressed=True)
        _edit_zip(p, 0, usize=16)
    elif kind == "bomb_lying_sizes":
        _bomb(d, lie=True)
    elif kind == "bomb_honest_sizes":
        _bomb(d, lie=False)
    else:
        raise AssertionError(kind)
    return p.name


NPZ = {"not_zip": (), "empty_zip": ("x",), "missing_labels": ("labels",),
       "wrong_dtype": ("x",), "count_mismatch": ("x",), "zero_examples": (),
       "bzip2": (), "lzma": (), "truncated": (), "crc_second_member": ("labels.npy", "CRC-32"),
       "pickled_member": ("x.npy",), "fortran_member": ("x.npy",),
       "member_shape_huge": ("x.npy",), "member_shape_wraps": ("x.npy",),
       "corrupt_deflate": ("x.npy",), "usize_understated": ("x.npy",),
       "bomb_lying_sizes": ("x.npy",), "bomb_honest_sizes": ("x.npy",)}


def _npz_case(kind, needles):
    def build(dlc, d):
        data = _npz_files(d, kind)
        extra = ("--max-memory", "1G") if kind.startswith("bomb") else ()
        return err(_train(dlc, d, data, *extra), "data.npz", *needles)
    return build


@case("wrong")
def c_npz_duplicate_member(dlc, d):
    """two members named x.npy (ones, then twos): NumPy's np.load takes the last; dlc must
    train on that one (loss 2.25 for x = 2, w = 0.5, labels 1) or refuse the archive"""
    good = np.ones((4, 3), np.float32)
    zip_raw(d / "data.npz", [("x.npy", npy_bytes(good)), ("x.npy", npy_bytes(good * 2)),
                             ("labels.npy", npy_bytes(good))])
    spec = either(_train(dlc, d, "data.npz"), None, "data.npz", "x.npy")
    spec.check = lambda: None if spec.result.stdout.split() == ["step", "1", "loss", "2.25"] \
        else f"stdout {spec.result.stdout.strip()!r}, expected 'step 1 loss 2.25'"
    return spec


for _k, _nd in NPZ.items():
    add(f"npz_{_k}", "memory" if "bomb" in _k or "huge" in _k else "crash",
        _npz_case(_k, _nd), f"dlc train --data: {_k.replace('_', ' ')}",
        quick=_k in ("bomb_lying_sizes", "member_shape_wraps", "crc_second_member"))


# ---------------------------------------------------------------------------- external data
def _ext_case(location, offset=0, length=24, how="err", files=(), extra=(), dims=(2, 3),
              needles=("ext_w",), cmd=("run",), flags=()):
    def build(dlc, d):
        for name, size in files:
            (d / name).parent.mkdir(parents=True, exist_ok=True)
            with open(d / name, "wb") as f:
                if size is None:
                    f.write(np.full(6, 0.5, np.float32).tobytes())
                else:  # sparse: 0.5s at the end, a hole before
                    f.truncate(size)
                    f.seek(size - 24)
                    f.write(np.full(6, 0.5, np.float32).tobytes())
        loc = location(d) if callable(location) else location
        put(d, "model.onnx", external(loc, offset, length, dims, extra))
        put(d, "x.npy", X)
        if cmd[0] == "run":
            argv = run_args(dlc, "model.onnx", {"x": "x.npy"}, extra=flags)
        else:
            argv = [dlc, *cmd, "model.onnx", *flags]
        if how == "ok":
            return ok(argv, same(d / "out" / "y.npy", X + np.float32(0.5)))
        return err(argv, *needles)
    return build


TIB = 1 << 40
EXT = {
    "ext_nul_in_location": dict(location="w.bin\0../../../../etc/passwd", files=[("w.bin", None)]),
    "ext_empty_location": dict(location=""),
    "ext_location_dot": dict(location="."),
    "ext_location_directory": dict(location="sub", files=[("sub/w.bin", None)]),
    "ext_inner_dotdot": dict(location="sub/../../w.bin", files=[("sub/w.bin", None)]),
    "ext_dev_zero": dict(location="/dev/zero"),
    "ext_symlink_dev_zero": dict(location=lambda d: (os.symlink("/dev/zero", d / "z.bin"),
                                                     "z.bin")[1]),
    "ext_symlinked_dir_escape": dict(location=lambda d: (os.symlink("/etc", d / "etcdir"),
                                                         "etcdir/passwd")[1]),
    "ext_offset_not_number": dict(location="w.bin", offset="abc", files=[("w.bin", None)]),
    "ext_offset_trailing_junk": dict(location="w.bin", offset="0x", files=[("w.bin", None)]),
    "ext_offset_2p64": dict(location="w.bin", offset=str(1 << 64), files=[("w.bin", None)]),
    "ext_length_negative": dict(location="w.bin", length=-24, files=[("w.bin", None)]),
    "ext_length_hex": dict(location="w.bin", length="0x18", files=[("w.bin", None)]),
    "ext_length_short": dict(location="w.bin", length=20, files=[("w.bin", None)]),
    "ext_offset_plus_length_wraps": dict(location="w.bin", offset=(1 << 64) - 8,
                                         files=[("w.bin", None)]),
    "ext_second_location_escapes": dict(location="w.bin", files=[("w.bin", None)],
                                        extra=[("location", "/etc/passwd")]),
    "ext_sparse_1tib_length": dict(location="big.bin", length=TIB, dims=(1 << 18, 1 << 20),
                                   files=[("big.bin", TIB)]),
    "ext_sparse_1tib_length_compile": dict(location="big.bin", length=TIB, dims=(1 << 18, 1 << 20),
                                           files=[("big.bin", TIB)], cmd=("compile", "-o", "x.so")),
    "ext_sparse_1tib_length_check": dict(location="big.bin", length=TIB, dims=(1 << 18, 1 << 20),
                                         files=[("big.bin", TIB)], cmd=("check",)),
    "ext_sparse_6gib_max_memory_256m": dict(location="big.bin", length=6 << 30,
                                            dims=(1 << 28, 2, 3), files=[("big.bin", 6 << 30)],
                                            flags=("--max-memory", "256M"),
                                            needles=("--max-memory",)),
    "ext_sparse_dims_wrap": dict(location="big.bin", length=4, dims=WRAP1,
                                 files=[("big.bin", TIB)]),
    # Valid: read exactly, without reading the 1 TiB hole before the data.
    "ext_sparse_1tib_offset": dict(location="big.bin", offset=TIB - 24, how="ok",
                                   files=[("big.bin", TIB)]),
    "ext_dot_slash_valid": dict(location="./w.bin", how="ok", files=[("w.bin", None)]),
    "ext_checksum_key_valid": dict(location="w.bin", how="ok", files=[("w.bin", None)],
                                   extra=[("checksum", "0" * 40)]),
}
for _n, _kw in EXT.items():
    add(_n, "memory" if "sparse" in _n and _kw.get("how") != "ok" else "wrong",
        _ext_case(**_kw), f"external data: {_n[4:].replace('_', ' ')}",
        quick=_n in ("ext_nul_in_location", "ext_sparse_1tib_offset", "ext_symlink_dev_zero"))


# ---------------------------------------------------------------------------- compiled modules
LONG = "features_" + "p" * 48  # a long input name: room to rewrite the descriptor in place


def _forward_so(dlc, d) -> Path:
    put(d, "model.onnx", add_model(LONG))
    put(d, "x.npy", X)
    return d / compile_so(dlc, d)


def _rewrite_descriptor(b: bytes, text: str) -> bytes:
    start = b.index(b"dlc-module 1\n")
    end = b.index(b"\0", start)
    new = text.encode("latin1")
    if len(new) > end - start:
        raise Fail(f"precondition: descriptor edit longer than the original ({len(new)} bytes)")
    return b[:start] + new + b"\n" * (end - start - len(new)) + b[end:]


DESC = {  # the forward module's descriptor replaced by (resealed)
    "desc_dtype_99": "input x 99 2 2 3\noutput y 1 2 2 3",
    "desc_dtype_0": "input x 0 2 2 3\noutput y 1 2 2 3",
    "desc_negative_dim": "input x 1 2 -2 3\noutput y 1 2 2 3",
    "desc_dims_count_wraps": f"input x 1 2 {WRAP1[0]} {WRAP1[1]}\noutput y 1 2 2 3",
    "desc_dims_bytes_wrap": f"input x 1 1 {BYTES_WRAP}\noutput y 1 2 2 3",
    "desc_dim_overflow": "input x 1 1 99999999999999999999\noutput y 1 2 2 3",
    "desc_rank_mismatch": "input x 1 3 2 3\noutput y 1 2 2 3",
    "desc_rank_huge": "input x 1 4294967298 2 3\noutput y 1 2 2 3",
    "desc_version_2": "!dlc-module 2\ninput x 1 2 2 3\noutput y 1 2 2 3",
    "desc_no_outputs": "input x 1 2 2 3",
    "desc_input_after_output": "output y 1 2 2 3\ninput x 1 2 2 3",
    "desc_duplicate_outputs": "input x 1 2 2 3\noutput y 1 2 2 3\noutput y 1 2 2 3",
    "desc_nul_escape": "input x%00 1 2 2 3\noutput y 1 2 2 3",
    "desc_bad_escape": "input x%zz 1 2 2 3\noutput y 1 2 2 3",
    "desc_raw_byte": "input x\x01y 1 2 2 3\noutput y 1 2 2 3",
    "desc_trailing_field": "input x 1 2 2 3 7\noutput y 1 2 2 3",
    "desc_unknown_record": "input x 1 2 2 3\nfrobnicate y\noutput y 1 2 2 3",
    "desc_empty": "",
}


def _desc_case(text):
    def build(dlc, d):
        so = _forward_so(dlc, d)
        b = so.read_bytes()
        if text.startswith("!"):  # replaces the header line too
            new = _rewrite_descriptor(b, text[1:])
        else:
            new = _rewrite_descriptor(b, "dlc-module 1\n" + text + "\n")
        so.write_bytes(module_seal.reseal(new))
        return err(run_args(dlc, "model.so", {"x": "x.npy"}), "model.so")
    return build


for _n, _txt in DESC.items():
    add(_n, "crash", _desc_case(_txt), f"module descriptor rewritten (resealed): "
        f"{_n[5:].replace('_', ' ')}", quick=_n in ("desc_dims_count_wraps", "desc_empty"))


def _foreign_elf(d: Path) -> bytes:
    cc = shutil.which("clang-22") or shutil.which("clang") or shutil.which("cc")
    if cc is None:
        raise Fail("precondition: no C compiler")
    (d / "plain.c").write_text("int plain_function(int x) { return x + 1; }\n")
    subprocess.run([cc, "-shared", "-fPIC", "-o", "plain.so", "plain.c"], cwd=d, check=True,
                   capture_output=True, timeout=60)
    data = (d / "plain.so").read_bytes()
    (d / "plain.so").unlink()
    (d / "plain.c").unlink()
    return data


MODULE = {  # fn(module bytes, d) -> the bytes of the module file
    "mod_empty": lambda b, d: b"",
    "mod_cut_to_1_byte": lambda b, d: b[:1],
    "mod_cut_to_40_bytes": lambda b, d: b[:40],
    "mod_seal_only": lambda b, d: b[-32:],
    "mod_seal_and_1_byte_cut": lambda b, d: b[:-33],
    "mod_sealed_empty_body": lambda b, d: module_seal.seal(b""),
    "mod_sealed_garbage": lambda b, d: module_seal.seal(np.random.default_rng(9).bytes(4096)),
    "mod_sealed_foreign_elf": lambda b, d: module_seal.seal(_foreign_elf(d)),
    "mod_seal_size_2p63": lambda b, d: b[:-32] + struct.pack("<Q", 1 << 63) + b[-24:],
    "mod_seal_magic": lambda b, d: b[:-1] + b"X",
    "mod_seal_length_field": lambda b, d: b[:-12] + struct.pack("<I", 0) + b[-8:],
    "mod_abi_version_max": lambda b, d: module_seal.seal(b[:-32], abi_version=0xFFFFFFFF),
    "mod_onnx_bytes": lambda b, d: add_model().SerializeToString(),
}


def _module_case(edit):
    def build(dlc, d):
        so = _forward_so(dlc, d)
        so.write_bytes(edit(so.read_bytes(), d))
        return err(run_args(dlc, "model.so", {LONG: "x.npy"}), "model.so")
    return build


for _n, _e in MODULE.items():
    add(_n, "crash", _module_case(_e), f"compiled module: {_n[4:].replace('_', ' ')}",
        quick=_n in ("mod_sealed_empty_body", "mod_seal_size_2p63"))


@case("crash")
def c_mod_is_directory(dlc, d):
    """dlc run on a directory named model.so"""
    (d / "model.so").mkdir()
    return err([dlc, "run", "model.so"], "model.so")


@case("crash")
def c_mod_elf_as_onnx(dlc, d):
    """a compiled module renamed model2.onnx: the JIT's ONNX parser gets ELF bytes"""
    so = _forward_so(dlc, d)
    (d / "model2.onnx").write_bytes(so.read_bytes())
    return err(run_args(dlc, "model2.onnx", {LONG: "x.npy"}), "model2.onnx")


@case("crash")
def c_mod_no_extension(dlc, d):
    """a valid module named `model` (no .so or .onnx)"""
    so = _forward_so(dlc, d)
    so.rename(d / "model")
    return either(run_args(dlc, "model", {LONG: "x.npy"}),
                  same(d / "out" / "y.npy", X + np.float32(0.5)), "model")


@case("crash")
def c_mod_symlink_valid(dlc, d):
    """a symlink to a valid module (reading through a link is fine): exit 0, exact output"""
    so = _forward_so(dlc, d)
    os.symlink(so.name, d / "link.so")
    return ok(run_args(dlc, "link.so", {LONG: "x.npy"}), same(d / "out" / "y.npy", X + 0.5))


def _train_edit(edit, save_onnx: bool):
    def build(dlc, d):
        step = d / train_step(dlc, d, LONG)
        train_data(d)
        b = step.read_bytes()  # the input renamed x in the descriptor: room for the edit
        start = b.index(b"dlc-module 1\n")
        text = b[start:b.index(b"\0", start)].decode("latin1").replace(LONG, "x")
        step.write_bytes(module_seal.reseal(_rewrite_descriptor(b, text)))
        step.write_bytes(module_seal.reseal(edit(step.read_bytes(), step)))
        cmd = [dlc, "train", "step.so", "--data", "data.npz", "--steps", "1", "--batch", "2"]
        return err(cmd + (["--save-onnx", "trained.onnx"] if save_onnx else []),
                   "--save-onnx" if edit in (_embedded_onnx_garbage, _ALMOST) else "step.so")
    return build


def _onnx_size(value):
    def edit(b, path):
        at = module_seal.symbol_offset(path, "dlc_module_onnx_size")
        v = value(len(b), at) if callable(value) else value
        return b[:at] + struct.pack("<Q", v) + b[at + 8:]
    return edit


_ALMOST = _onnx_size(lambda n, at: n - 64)  # less than the file, far past the embedded model


def _state(line):
    def edit(b, path):
        start = b.index(b"dlc-module 1\n")
        end = b.index(b"\0", start)
        text = b[start:end].decode("latin1")
        lines = [ln for ln in text.split("\n") if ln and not ln.startswith("state ")]
        return _rewrite_descriptor(b, "\n".join(lines + [line]) + "\n")
    return edit


def _embedded_onnx_garbage(b, path):
    at = module_seal.symbol_offset(path, "dlc_module_onnx")
    return b[:at] + b"\xff\xff\xff\xff" + b[at + 4:]


TRAIN = {
    "train_state_dims_count_wrap": (_state(f"state w 1 2 {WRAP1[0]} {WRAP1[1]}"), True),
    "train_state_larger_than_blob": (_state("state w 1 2 2000 3000"), True),
    "train_state_dtype_99": (_state("state w 99 2 2 3"), True),
    "train_onnx_size_almost_file": (_ALMOST, True),
    "train_onnx_size_zero": (_onnx_size(0), True),
    "train_embedded_onnx_garbage": (_embedded_onnx_garbage, True),
}
for _n, (_e, _s) in TRAIN.items():
    add(_n, "crash", _train_edit(_e, _s), f"training module (resealed): {_n[6:].replace('_', ' ')}"
        + (" (--save-onnx)" if _s else ""), quick=_n == "train_onnx_size_almost_file")


# ---------------------------------------------------------------------------- devices and FIFOs
def _dev_link(d: Path, name: str, target: str) -> str:
    os.symlink(target, d / name)
    return name


DEVICES = {  # name: fn(dlc, d) -> (cmd, needles)
    "dev_zero_model": lambda dlc, d: ([dlc, "compile", "/dev/zero", "-o", "x.so"], ["/dev/zero"]),
    "dev_zero_module_link": lambda dlc, d: ([dlc, "run", _dev_link(d, "m.so", "/dev/zero")],
                                            ["m.so"]),
    "dev_urandom_model_link": lambda dlc, d: (
        [dlc, "compile", _dev_link(d, "m.onnx", "/dev/urandom"), "-o", "x.so"], ["m.onnx"]),
    "dev_zero_npy_link": lambda dlc, d: (
        run_args(dlc, put(d, "model.onnx", relu_model()), {"x": _dev_link(d, "x.npy",
                                                                          "/dev/zero")}),
        ["x.npy"]),
    "dev_zero_pb_link": lambda dlc, d: (
        run_args(dlc, put(d, "model.onnx", relu_model()), {"x": _dev_link(d, "x.pb",
                                                                         "/dev/zero")}),
        ["x.pb"]),
    "dev_null_npy_link": lambda dlc, d: (
        run_args(dlc, put(d, "model.onnx", relu_model()), {"x": _dev_link(d, "x.npy",
                                                                          "/dev/null")}),
        ["x.npy"]),
    "dev_zero_data": lambda dlc, d: (_train(dlc, d, "/dev/zero"), ["/dev/zero"]),
    "dev_zero_data_link": lambda dlc, d: (_train(dlc, d, _dev_link(d, "z.npz", "/dev/zero")),
                                          ["z.npz"]),
    "dev_stdin_model": lambda dlc, d: ([dlc, "compile", "/dev/stdin", "-o", "x.so"],
                                       ["/dev/stdin"]),
    "proc_file_model": lambda dlc, d: ([dlc, "compile", "/proc/self/environ", "-o", "x.so"],
                                       ["environ"]),
    "dir_as_npy": lambda dlc, d: (run_args(dlc, put(d, "model.onnx", relu_model()),
                                           {"x": (d / "x.npy").mkdir() or "x.npy"}), ["x.npy"]),
    "dir_as_data": lambda dlc, d: (_train(dlc, d, (d / "data.npz").mkdir() or "data.npz"),
                                   ["data.npz"]),
    "fifo_input_value": lambda dlc, d: (
        [dlc, "compile", put(d, "model.onnx", relu_model()), "--input-value",
         f"x={os.mkfifo(d / 'v.npy') or 'v.npy'}", "-o", "x.so"], ["v.npy"]),
}


def _device_case(fn, stdin_pipe):
    def build(dlc, d):
        cmd, needles = fn(dlc, d)
        return err(cmd, *needles, stdin_pipe=stdin_pipe)
    return build


for _n, _f in DEVICES.items():
    add(_n, "hang", _device_case(_f, _n == "dev_stdin_model"),
        f"a device, FIFO or directory where a file is read: {_n.replace('_', ' ')}",
        quick=_n in ("dev_zero_npy_link", "dev_stdin_model"))

#!/usr/bin/env python3
# Data-dependent output shapes end to end: models whose output sizes depend on input values
# (NonZero, Compress with a run-time condition, Unique, NonMaxSuppression), against ONNX
# Runtime; ImageDecoder against images encoded here.
"""Check ops whose output sizes the model computes when it runs.

Usage::

    data_dependent.py --dlc build/bin/dlc [--keep] [CASE ...]

Each model is compiled once (statically, and with ``--dims`` where the case gives
ranges); ``dlc info`` must list the computed dims; then for every input set of the case
(including ones with no selected element) and 1, 2 and 4 threads, ``dlc run`` must give
ONNX Runtime's outputs exactly: the same shape and the same elements (these ops only
select and move values; NaN matches NaN). ``errors``: a condition longer than the
compressed axis fails the run naming the node, with exit code 1 and one ``error:`` line.
"""
from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

THREADS = (1, 2, 4)


def model(nodes, inputs, outputs, inits=(), opset=17):
    g = helper.make_graph(nodes, "m", inputs, outputs, list(inits))
    m = helper.make_model(g, opset_imports=[helper.make_opsetid("", opset)])
    onnx.checker.check_model(m)
    return m


def vi(name, dtype, shape):
    return helper.make_tensor_value_info(name, dtype, shape)


def select_chain():
    """NonZero's coordinates transposed into GatherND tuples picking the non-zeros back out,
    their sum (a reduction over the computed dim), and columns picked by a run-time
    condition (Compress along axis 1)."""
    nodes = [helper.make_node("NonZero", ["x"], ["where"]),
             helper.make_node("Transpose", ["where"], ["tuples"], perm=[1, 0]),
             helper.make_node("GatherND", ["x", "tuples"], ["picked"]),
             helper.make_node("ReduceSum", ["picked"], ["total"], keepdims=0),
             helper.make_node("Compress", ["x", "keep"], ["cols"], axis=1)]
    return model(nodes, [vi("x", TensorProto.FLOAT, ["n", 5]), vi("keep", TensorProto.BOOL, [5])],
                 [vi("where", TensorProto.INT64, [2, None]), vi("picked", TensorProto.FLOAT, [None]),
                  vi("total", TensorProto.FLOAT, []), vi("cols", TensorProto.FLOAT, ["n", None])])


def element_types():
    """NonZero of int32, bool and a 3-D float (NaN and -0.0 included), and Compress of
    the flattened input by a shorter condition (no axis)."""
    nodes = [helper.make_node("NonZero", ["i"], ["nz_i"]),
             helper.make_node("NonZero", ["b"], ["nz_b"]),
             helper.make_node("NonZero", ["f"], ["nz_f"]),
             helper.make_node("Compress", ["f", "keep"], ["flat"])]
    return model(nodes, [vi("i", TensorProto.INT32, [6]), vi("b", TensorProto.BOOL, [2, 3]),
                         vi("f", TensorProto.FLOAT, [2, 2, 3]), vi("keep", TensorProto.BOOL, [7])],
                 [vi("nz_i", TensorProto.INT64, [1, None]), vi("nz_b", TensorProto.INT64, [2, None]),
                  vi("nz_f", TensorProto.INT64, [3, None]), vi("flat", TensorProto.FLOAT, [None])])


def uniques():
    """Unique of a flattened int64 tensor (sorted and in order of first occurrence) and of
    the rows of a float matrix (sorted, axis 0), their values drawn from a few so that
    they repeat; then the unique rows scaled (their computed dim flows on)."""
    nodes = [helper.make_node("Unique", ["i"], ["u", "u_idx", "u_inv", "u_cnt"]),
             helper.make_node("Unique", ["i"], ["v", "v_idx", "v_inv", "v_cnt"], sorted=0),
             helper.make_node("Unique", ["rows"], ["r", "r_idx", "r_inv", "r_cnt"], axis=0),
             helper.make_node("Mul", ["r", "two"], ["r2"])]
    outs = [vi(name, TensorProto.INT64, [None])
            for name in ("u", "u_idx", "u_inv", "u_cnt", "v", "v_idx", "v_inv", "v_cnt")]
    outs += [vi("r_idx", TensorProto.INT64, [None]), vi("r_inv", TensorProto.INT64, [None]),
             vi("r_cnt", TensorProto.INT64, [None]), vi("r2", TensorProto.FLOAT, [None, 3])]
    return model(nodes, [vi("i", TensorProto.INT64, ["n", 1]),
                         vi("rows", TensorProto.FLOAT, ["n", 3])], outs,
                 [numpy_helper.from_array(np.array(2.0, np.float32), "two")])


def nms():
    """NonMaxSuppression of random boxes (corners in any order) with the output limit and
    both thresholds given when the model runs, and of the same boxes as centers and sizes;
    the selected boxes' coordinates gathered back (GatherND over the computed count)."""
    nodes = [helper.make_node("NonMaxSuppression", ["boxes", "scores", "max_out", "iou", "min_score"],
                              ["sel"]),
             helper.make_node("NonMaxSuppression", ["boxes", "scores", "max_out", "iou"],
                              ["sel_c"], center_point_box=1),
             helper.make_node("Slice", ["sel", "s0", "s3", "s1", "step2"], ["batch_box"]),
             helper.make_node("GatherND", ["boxes", "batch_box"], ["picked"])]
    c = lambda name, v: numpy_helper.from_array(np.array(v, np.int64), name)
    return model(nodes, [vi("boxes", TensorProto.FLOAT, ["b", "n", 4]),
                         vi("scores", TensorProto.FLOAT, ["b", 3, "n"]),
                         vi("max_out", TensorProto.INT64, [1]), vi("iou", TensorProto.FLOAT, [1]),
                         vi("min_score", TensorProto.FLOAT, [1])],
                 [vi("sel", TensorProto.INT64, [None, 3]), vi("sel_c", TensorProto.INT64, [None, 3]),
                  vi("picked", TensorProto.FLOAT, [None, 4])],
                 # columns 0 and 2 (batch, box) of each selected row
                 [c("s0", [0]), c("s3", [3]), c("s1", [1]), c("step2", [2])])


def feeds_for(m, sizes, rng, density):
    if m.graph.node[0].op_type == "NonMaxSuppression":
        b, n = sizes["b"], sizes["n"]
        corners = rng.uniform(0, 10, (b, n, 2, 2)).astype(np.float32)
        return {"boxes": corners.reshape(b, n, 4),
                "scores": rng.random((b, 3, n)).astype(np.float32),
                "max_out": np.array([max(1, int(density * 8))], np.int64),
                "iou": np.array([0.1 + 0.5 * density], np.float32),
                "min_score": np.array([0.8 - 0.6 * density], np.float32)}
    if m.graph.node[0].op_type == "Unique":  # few distinct values, so that they repeat
        k = max(1, int(density * 4))
        return {"i": rng.integers(-k, k + 1, (sizes["n"], 1)).astype(np.int64),
                "rows": rng.integers(0, k + 1, (sizes["n"], 3)).astype(np.float32) * 0.5}
    feeds = {}
    for inp in m.graph.input:
        shape = [sizes.get(d.dim_param, 1) if d.dim_param else d.dim_value
                 for d in inp.type.tensor_type.shape.dim]
        mask = rng.random(shape) < density
        t = inp.type.tensor_type.elem_type
        if t == TensorProto.BOOL:
            feeds[inp.name] = mask
        elif t == TensorProto.INT32:
            feeds[inp.name] = (rng.integers(-3, 4, shape) * mask).astype(np.int32)
        else:
            v = rng.standard_normal(shape).astype(np.float32)
            v[rng.random(shape) < 0.1] = np.nan
            feeds[inp.name] = np.where(mask, v, np.where(rng.random(shape) < 0.5, 0.0, -0.0)
                                       ).astype(np.float32)
    return feeds


# name: (builder, --dims or None, [({symbol: size}, density of non-zeros), ...])
CASES = {
    "select_chain": (select_chain, "n=1..6", [({"n": 1}, 0.0), ({"n": 4}, 0.5), ({"n": 6}, 1.0),
                                              ({"n": 3}, 0.3)]),
    "element_types": (element_types, None, [({}, 0.0), ({}, 0.4), ({}, 1.0)]),
    "nms": (nms, "b=1..3,n=1..40", [({"b": 2, "n": 30}, 0.5), ({"b": 1, "n": 1}, 0.5),
                                     ({"b": 3, "n": 40}, 1.0), ({"b": 2, "n": 7}, 0.1)]),
    "uniques": (uniques, "n=1..12", [({"n": 4}, 0.2), ({"n": 1}, 0.5), ({"n": 12}, 0.5),
                                     ({"n": 7}, 1.0)]),
}


def run(cmd, cwd):
    return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True, timeout=600)


def same(got, ref):
    return got.shape == ref.shape and got.dtype == ref.dtype and bool(
        np.all((got == ref) | (np.isnan(got) & np.isnan(ref)) if got.dtype.kind == "f"
               else got == ref))


def check_case(dlc, name, work):
    build, dims, runs = CASES[name]
    m = build()
    d = work / name
    d.mkdir()
    onnx.save(m, d / "model.onnx")
    sess = ort.InferenceSession(str(d / "model.onnx"), providers=["CPUExecutionProvider"])
    rng = np.random.default_rng(0)
    compiles = [("static", [])] + ([("dynamic", ["--dims", dims])] if dims else [])
    for kind, flags in compiles:
        for sizes, density in runs:
            if kind == "static" and dims and sizes != runs[0][0]:
                continue  # the static compile has the first run's sizes
            so = f"{kind}.so"
            if not (d / so).exists():
                shape_flags = []
                if kind == "static" and dims:
                    for i in m.graph.input:
                        shape = [sizes[x.dim_param] if x.dim_param else x.dim_value
                                 for x in i.type.tensor_type.shape.dim]
                        if any(x.dim_param for x in i.type.tensor_type.shape.dim):
                            shape_flags += ["--input-shape",
                                            f"{i.name}=" + "x".join(map(str, shape))]
                r = run([dlc, "compile", "model.onnx", *flags, *shape_flags, "-o", so], d)
                if r.returncode:
                    return f"{kind} compile failed: {r.stderr.strip()}"
                info = run([dlc, "info", so], d).stdout
                if "computed by the model" not in info:
                    return f"dlc info lists no computed dim:\n{info}"
            feeds = feeds_for(m, sizes, rng, density)
            refs = sess.run(None, feeds)
            args = []
            for k, v in feeds.items():
                np.save(d / f"{k}.npy", v)
                args += ["--input", f"{k}={k}.npy"]
            for threads in THREADS:
                out = d / f"out_{threads}"
                shutil.rmtree(out, ignore_errors=True)
                r = run([dlc, "run", so, *args, "--threads", str(threads), "--output-dir",
                         str(out)], d)
                if r.returncode:
                    return f"{kind} run {sizes} at {threads} threads failed: {r.stderr.strip()}"
                for o, ref in zip(m.graph.output, refs):
                    got = np.load(out / f"{o.name}.npy")
                    if not same(got, np.asarray(ref)):
                        return (f"{kind} {o.name} at {sizes}, density {density}, {threads} "
                                f"threads: got {got.shape} {got.ravel()[:8]}, expected "
                                f"{np.asarray(ref).shape} {np.asarray(ref).ravel()[:8]}")
    return None


def encode_images(rng, h, w):
    """One random RGB image as binary PNM (P6), BMP (24-bit, bottom-up, padded rows) and PNG
    (8-bit RGB, zlib), written here so that no image library is needed."""
    import struct
    import zlib
    rgb = rng.integers(0, 256, (h, w, 3), dtype=np.uint8)
    pnm = f"P6\n# made by data_dependent.py\n{w} {h}\n255\n".encode() + rgb.tobytes()
    stride = (w * 3 + 3) // 4 * 4
    rows = b"".join(rgb[y, :, ::-1].tobytes().ljust(stride, b"\0") for y in range(h - 1, -1, -1))
    bmp = (b"BM" + struct.pack("<IHHI", 54 + len(rows), 0, 0, 54) +
           struct.pack("<IiiHHIIiiII", 40, w, h, 1, 24, 0, len(rows), 2835, 2835, 0, 0) + rows)
    chunk = lambda kind, data: (struct.pack(">I", len(data)) + kind + data +
                                struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    raw = b"".join(b"\0" + rgb[y].tobytes() for y in range(h))
    png = (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) +
           chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))
    return rgb, {"pnm": pnm, "bmp": bmp, "png": png}


def check_images(dlc, work):
    """ImageDecoder (its height and width computed, without a bound) of PNM, BMP and PNG
    images of two sizes, RGB and grayscale, and the pixels' mean (the decoded image flows
    on): exactly NumPy's decoding and PIL's luma. Garbage bytes fail the run naming the node."""
    d = work / "images"
    d.mkdir()
    nodes = [helper.make_node("ImageDecoder", ["bytes"], ["rgb"], name="decode"),
             helper.make_node("ImageDecoder", ["bytes"], ["gray"], pixel_format="Grayscale"),
             helper.make_node("Cast", ["rgb"], ["f"], to=TensorProto.FLOAT),
             helper.make_node("ReduceMean", ["f"], ["mean"], keepdims=0)]
    m = model(nodes, [vi("bytes", TensorProto.UINT8, ["n"])],
              [vi("rgb", TensorProto.UINT8, [None, None, 3]),
               vi("gray", TensorProto.UINT8, [None, None, 1]), vi("mean", TensorProto.FLOAT, [])],
              opset=20)
    onnx.save(m, d / "model.onnx")
    r = run([dlc, "compile", "model.onnx", "--dims", "n=1..100000", "-o", "m.so"], d)
    if r.returncode:
        return f"compile failed: {r.stderr.strip()}"
    rng = np.random.default_rng(5)
    for h, w in [(5, 7), (33, 2)]:
        rgb, files = encode_images(rng, h, w)
        luma = ((rgb[..., 0].astype(np.uint32) * 19595 + rgb[..., 1].astype(np.uint32) * 38470 +
                 rgb[..., 2].astype(np.uint32) * 7471 + 0x8000) >> 16).astype(np.uint8)[..., None]
        for kind, data in files.items():
            np.save(d / "bytes.npy", np.frombuffer(data, np.uint8))
            out = d / f"out_{kind}_{h}"
            r = run([dlc, "run", "m.so", "--input", "bytes=bytes.npy", "--output-dir", str(out)], d)
            if r.returncode:
                return f"{kind} {h}x{w}: run failed: {r.stderr.strip()}"
            got, gray = np.load(out / "rgb.npy"), np.load(out / "gray.npy")
            mean = float(np.load(out / "mean.npy"))
            if not (np.array_equal(got, rgb) and np.array_equal(gray, luma)) or \
                    abs(mean - rgb.astype(np.float64).mean()) > 1e-3:
                return f"{kind} {h}x{w}: got {got.shape} {gray.shape} mean {mean}, expected {rgb.shape}"
    np.save(d / "bytes.npy", np.frombuffer(b"not an image at all", np.uint8))
    r = run([dlc, "run", "m.so", "--input", "bytes=bytes.npy"], d)
    want = ["node 'decode' (ImageDecoder): cannot decode the image", "not a JPEG, PNG"]
    if r.returncode != 1 or any(x not in r.stderr for x in want):
        return f"garbage bytes: exit {r.returncode}, stderr {r.stderr!r}, expected {want}"
    return None


def check_errors(dlc, work):
    d = work / "errors"
    d.mkdir()
    m = model([helper.make_node("Compress", ["x", "keep"], ["y"], axis=0, name="picker")],
              [vi("x", TensorProto.FLOAT, ["n", 2]), vi("keep", TensorProto.BOOL, ["k"])],
              [vi("y", TensorProto.FLOAT, [None, 2])])
    onnx.save(m, d / "c.onnx")
    r = run([dlc, "compile", "c.onnx", "--dims", "n=1..8,k=1..8", "-o", "c.so"], d)
    if r.returncode:
        return f"compile failed: {r.stderr.strip()}"
    np.save(d / "x.npy", np.ones((3, 2), np.float32))
    np.save(d / "k.npy", np.ones(4, bool))
    r = run([dlc, "run", "c.so", "--input", "x=x.npy", "--input", "keep=k.npy"], d)
    lines = [line for line in r.stderr.splitlines() if line.startswith("error:")]
    want = ["picker", "the condition (input 1) is longer than the compressed axis"]
    if r.returncode != 1 or len(lines) != 1 or any(w not in r.stderr for w in want):
        return f"long condition: exit {r.returncode}, stderr {r.stderr!r}, expected {want}"
    # A shorter condition is fine (ONNX drops the rest of the axis).
    np.save(d / "k2.npy", np.array([False, True]))
    r = run([dlc, "run", "c.so", "--input", "x=x.npy", "--input", "keep=k2.npy", "--output-dir",
             "o"], d)
    if r.returncode or np.load(d / "o" / "y.npy").shape != (1, 2):
        return f"short condition: exit {r.returncode}, stderr {r.stderr!r}"
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--dlc", required=True)
    ap.add_argument("--keep", action="store_true")
    ap.add_argument("cases", nargs="*")
    args = ap.parse_args()
    dlc = str(Path(args.dlc).resolve())
    work = Path(tempfile.mkdtemp(prefix="dlc-data-dependent-"))
    failures = 0
    try:
        for name in args.cases or [*CASES, "images", "errors"]:
            msg = (check_errors(dlc, work) if name == "errors"
                   else check_images(dlc, work) if name == "images"
                   else check_case(dlc, name, work))
            print(f"{'FAIL' if msg else 'ok  '} {name}" + (f": {msg}" if msg else ""), flush=True)
            failures += bool(msg)
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()

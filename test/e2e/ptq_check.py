#!/usr/bin/env python3
# dlc quantize (post-training quantization) end to end: calibration ranges, the QDQ model
# it writes, ONNX Runtime and dlc on that model, and its bad-input diagnostics.
"""Check ``dlc quantize`` on the float networks of models.py.

usage: ptq_check.py --dlc build/bin/dlc [--keep] [--models-only] [MODEL ... | diagnostics]

For each model: 16 calibration examples (standard normal floats, integer inputs as the
test input), ``dlc quantize`` with a calibration method, then

* the written model passes ``onnx.checker`` and holds QuantizeLinear/DequantizeLinear;
* every quantized activation's scale and zero point equal those of the range ONNX
  Runtime's float run of the same examples gives (min-max: rel 1e-4; percentile and
  entropy: the range lies inside the min-max one and contains 0);
* every int8 weight dequantizes to the float weight within half a scale step;
* ONNX Runtime (graph optimizations off: the QDQ graph as written; MatMulInteger as exact
  float products, as ORT's AVX2 kernels saturate) and ``dlc run`` on the
  quantized model agree within 0.02 of max |ORT| (a few output quanta, as e2e-quant);
* ``--dynamic`` writes DynamicQuantizeLinear + MatMulInteger, ``--int4-weights``
  com.microsoft MatMulNBits, and ``dlc compile --quantize=...`` in one step gives what
  ``dlc quantize`` + ``dlc run`` give;
* the quantized model stays close to the float one (cosine similarity >= 0.98 on a
  fresh input drawn like the calibration set).

Then the diagnostics: calibration data with a missing, extra, mistyped or misshapen
array, NaN, no examples, bad flags, an old opset: exit 1, one line 'error: ...', and no
output file.
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
from onnx import helper, numpy_helper

sys.path.insert(0, str(Path(__file__).resolve().parent))
from models import MODELS, sanitize_name  # noqa: E402

# (model, --method, --per-channel)
CASES = [
    ("mlp_b64", "minmax", False),
    ("mlp_b64", "percentile:99.9", True),
    ("lenet5", "minmax", True),
    ("lenet5", "entropy", False),
    ("resnet18", "minmax", True),
    ("mobilenetv2", "percentile", True),
    ("bert_layer", "minmax", True),
    ("mlp_b64", "dynamic", False),
    ("bert_layer", "dynamic", True),
    ("gpt2_block", "dynamic", False),
    ("bert_layer", "int4", False),
    ("mlp_b64", "int4", False),
    ("gpt2_block", "int4", False),
]
# Cases also compiled in one step (dlc compile --quantize=...), which must give what
# dlc quantize + dlc run give.
ONE_STEP = {("lenet5", "minmax"), ("bert_layer", "dynamic"), ("gpt2_block", "int4")}
UNCALIBRATED = {"dynamic": "--dynamic", "int4": "--int4-weights"}
EXAMPLES = 64
RTOL_ORT = 0.02
MIN_COSINE = 0.98


class Failure(Exception):
    pass


def calibration_arrays(inputs: dict[str, np.ndarray], seed: int, count: int):
    """`count` examples per input stacked on a new first axis (rank + 1 form)."""
    rng = np.random.default_rng(seed)
    return {k: np.stack([rng.standard_normal(v.shape).astype(v.dtype) if v.dtype.kind == "f"
                         else v for _ in range(count)]) for k, v in inputs.items()}


def ort_session(model, disable_opt=True):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.log_severity_level = 3
    if disable_opt:
        so.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    data = model.SerializeToString() if isinstance(model, onnx.ModelProto) else str(model)
    return ort.InferenceSession(data, so, providers=["CPUExecutionProvider"])


def exact_reference(model: onnx.ModelProto) -> onnx.ModelProto:
    """The model with each MatMulInteger computed as a float MatMul of the zero-point
    corrected operands (exact up to float rounding of the sum): ONNX Runtime's own u8 x s8
    kernels saturate their i16 pair sums on AVX2 machines (vpmaddubsw), off by thousands
    on full-range s8 weights, which dlc's exact kernels are not."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    nodes = []
    for n in m.graph.node:
        if n.op_type != "MatMulInteger":
            nodes.append(n)
            continue
        operands = []
        for k, (v, zp) in enumerate([(n.input[0], n.input[2] if len(n.input) > 2 else ""),
                                     (n.input[1], n.input[3] if len(n.input) > 3 else "")]):
            vf = f"{n.output[0]}_ref_in{k}"
            nodes.append(helper.make_node("Cast", [v], [vf], to=onnx.TensorProto.FLOAT))
            if zp:
                nodes.append(helper.make_node("Cast", [zp], [vf + "_zp"],
                                              to=onnx.TensorProto.FLOAT))
                nodes.append(helper.make_node("Sub", [vf, vf + "_zp"], [vf + "_c"]))
                vf += "_c"
            operands.append(vf)
        nodes.append(helper.make_node("MatMul", operands, [n.output[0] + "_ref_f"]))
        nodes.append(helper.make_node("Cast", [n.output[0] + "_ref_f"], [n.output[0]],
                                      to=onnx.TensorProto.INT32))
    del m.graph.node[:]
    m.graph.node.extend(nodes)
    return m


def float_ranges(model: onnx.ModelProto, names: list[str], calib: dict[str, np.ndarray]):
    """min and max of each value over the calibration examples, in ONNX Runtime."""
    m = onnx.ModelProto()
    m.CopyFrom(model)
    have = {o.name for o in m.graph.output}
    for n in names:
        if n not in have:
            m.graph.output.append(onnx.ValueInfoProto(name=n))
    sess = ort_session(m)
    outs = [o.name for o in sess.get_outputs()]
    lo = {n: np.inf for n in names}
    hi = {n: -np.inf for n in names}
    count = next(iter(calib.values())).shape[0]
    for i in range(count):
        feeds = {k: v[i] for k, v in calib.items()}
        res = dict(zip(outs, sess.run(None, feeds)))
        res.update(feeds)
        for n in names:
            lo[n] = min(lo[n], float(res[n].min()))
            hi[n] = max(hi[n], float(res[n].max()))
    return lo, hi


def check_qdq(name, float_model, qmodel, method, calib):
    inits = {t.name: numpy_helper.to_array(t) for t in qmodel.graph.initializer}
    float_inits = {t.name: numpy_helper.to_array(t) for t in float_model.graph.initializer}
    qs = [n for n in qmodel.graph.node if n.op_type == "QuantizeLinear"]
    dqs = [n for n in qmodel.graph.node if n.op_type == "DequantizeLinear"]
    if not qs or not dqs:
        raise Failure(f"{name}: no QuantizeLinear/DequantizeLinear in the written model")
    lo, hi = float_ranges(float_model, [q.input[0] for q in qs], calib)
    for q in qs:
        x, scale, zp = q.input[0], float(inits[q.input[1]]), int(inits[q.input[2]])
        if inits[q.input[2]].dtype != np.uint8:
            raise Failure(f"{name}: activation '{x}' zero point is {inits[q.input[2]].dtype}")
        rlo, rhi = min(lo[x], 0.0), max(hi[x], 0.0)
        if method == "minmax":
            want = (rhi - rlo) / 255
            want_zp = int(np.clip(np.round(-rlo / want), 0, 255)) if want > 0 else 0
            if abs(scale - want) > 1e-4 * want or abs(zp - want_zp) > 1:
                raise Failure(f"{name}: '{x}' scale {scale} zero point {zp}, ONNX Runtime's "
                              f"range [{rlo}, {rhi}] gives {want} and {want_zp}")
        else:
            qlo, qhi = -zp * scale, (255 - zp) * scale
            tol = 1e-3 * (rhi - rlo) + 2 * scale
            if qlo < rlo - tol or qhi > rhi + tol or not (qlo <= 0 <= qhi):
                raise Failure(f"{name}: '{x}' range [{qlo}, {qhi}] is not inside [{rlo}, {rhi}]")
    for dq in dqs:
        src = dq.input[0]
        if inits.get(src) is None or inits[src].dtype != np.int8:
            continue
        w_name = src[: -len("_quantized")]
        if w_name not in float_inits:
            continue
        scale = inits[dq.input[1]].astype(np.float64)
        axis = next((a.i for a in dq.attribute if a.name == "axis"), 1)
        w = float_inits[w_name].astype(np.float64)
        shape = [1] * w.ndim
        if scale.ndim:
            shape[axis] = -1
        deq = inits[src].astype(np.float64) * scale.reshape(shape)
        if np.abs(deq - w).max() > 0.5 * scale.max() * (1 + 1e-5):
            raise Failure(f"{name}: int8 weight '{w_name}' does not dequantize to the float one")


def run_dlc(cmd, timeout=900):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                       errors="replace", timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def check_case(dlc, work: Path, name: str, method: str, per_channel: bool, seed: int) -> str:
    model, inputs = MODELS[name](seed)
    d = work / f"{name}_{method.replace(':', '_')}"
    d.mkdir()
    src, out, data = d / "model.onnx", d / "int8.onnx", d / "calib.npz"
    onnx.save(model, src)
    calib = calibration_arrays(inputs, seed + 100, EXAMPLES)
    np.savez(data, **calib)
    flags = ([UNCALIBRATED[method]] if method in UNCALIBRATED else
             ["--calib", str(data), f"--method={method}"]) + (["--per-channel"] if per_channel else [])
    cmd = [dlc, "quantize", str(src), "-o", str(out), *flags]
    rc, stdout, stderr = run_dlc(cmd)
    if rc != 0:
        raise Failure(f"{name}: dlc quantize exited {rc}: {stderr.strip()[-400:]}")
    contractions = sum(n.op_type in ("Conv", "MatMul", "Gemm") for n in model.graph.node)
    reports = [l for l in stderr.splitlines() if l.startswith("quantize: ")]
    if len(reports) != contractions:
        raise Failure(f"{name}: {len(reports)} report lines for {contractions} contractions")
    qmodel = onnx.load(out)
    onnx.checker.check_model(qmodel)
    ops = {n.op_type for n in qmodel.graph.node}
    if method == "dynamic":
        if not {"DynamicQuantizeLinear", "MatMulInteger"} <= ops:
            raise Failure(f"{name}: no DynamicQuantizeLinear/MatMulInteger in the written model")
    elif method == "int4":
        if "MatMulNBits" not in ops:
            raise Failure(f"{name}: no MatMulNBits in the written model")
    else:
        check_qdq(name, model, qmodel, method, calib)
    # A fresh input drawn like the calibration set: ORT (float and int8) and dlc (int8).
    x = calibration_arrays(inputs, seed + 7, 1)
    feeds = {k: v[0] for k, v in x.items()}
    files = []
    for k, v in feeds.items():
        f = d / f"in_{sanitize_name(k)}.npy"
        np.save(f, v)
        files += ["--input", f"{k}={f}"]
    ref_q = ort_session(exact_reference(qmodel)).run(None, feeds)
    ref_f = ort_session(model).run(None, feeds)
    rc, _, stderr = run_dlc([dlc, "run", str(out), *files, "--output-dir", str(d / "out")])
    if rc != 0:
        raise Failure(f"{name}: dlc run on the quantized model exited {rc}: {stderr.strip()[-300:]}")
    worst_err, worst_cos = 0.0, 1.0
    for o, rq, rf in zip(qmodel.graph.output, ref_q, ref_f):
        got = np.load(d / "out" / f"{sanitize_name(o.name)}.npy").astype(np.float64)
        rq, rf = rq.astype(np.float64), rf.astype(np.float64)
        err = np.abs(got - rq).max() / max(np.abs(rq).max(), 1e-12)
        cos = float(rq.ravel() @ rf.ravel() / (np.linalg.norm(rq) * np.linalg.norm(rf) + 1e-30))
        worst_err, worst_cos = max(worst_err, err), min(worst_cos, cos)
    if worst_err > RTOL_ORT:
        raise Failure(f"{name}: dlc vs ONNX Runtime on the quantized model: {worst_err:.3g} "
                      f"> {RTOL_ORT}")
    if worst_cos < MIN_COSINE:
        raise Failure(f"{name}: quantized vs float output cosine {worst_cos:.5f} < {MIN_COSINE}")
    if (name, method) in ONE_STEP:
        so = d / "one_step.so"
        mode = {"dynamic": "dynamic", "int4": "int4-weights"}.get(method, "int8")
        rest = flags[1:] if method in UNCALIBRATED else flags  # --dynamic: --quantize's
        rc, _, stderr = run_dlc([dlc, "compile", str(src), f"--quantize={mode}", *rest,
                                 "-o", str(so)])
        if rc != 0:
            raise Failure(f"{name}: dlc compile --quantize exited {rc}: {stderr.strip()[-300:]}")
        rc, _, stderr = run_dlc([dlc, "run", str(so), *files, "--output-dir", str(d / "one")])
        if rc != 0:
            raise Failure(f"{name}: dlc run of the one-step build exited {rc}: {stderr[-300:]}")
        for o in qmodel.graph.output:
            f = f"{sanitize_name(o.name)}.npy"
            a, b = np.load(d / "one" / f), np.load(d / "out" / f)
            if np.abs(a - b).max() > 1e-6 * max(np.abs(b).max(), 1e-12):
                raise Failure(f"{name}: dlc compile --quantize differs from dlc quantize + "
                              f"dlc run on '{o.name}'")
        if list(d.glob(".dlc-quantized-*")):
            raise Failure(f"{name}: dlc compile --quantize left its temporary model behind")
    if name == "lenet5" and method == "minmax":
        # dlc verify compares the u8 tensors between layers as u8 (they once were read as
        # i8, and every QuantizeLinear "diverged").
        rc, stdout, stderr = run_dlc([dlc, "verify", str(out), *files, "--rtol", "0.02"])
        if rc != 0:
            raise Failure(f"{name}: dlc verify of the quantized model exited {rc}: "
                          f"{(stdout + stderr).strip()[-400:]}")
    quantized = sum("int8" in l or "int4" in l for l in reports)
    return (f"{quantized}/{contractions} quantized, dlc vs ORT int8 {worst_err:.2e}, "
            f"cosine with float {worst_cos:.5f}")


def expect_error(dlc, args, out: Path, want: str):
    rc, stdout, stderr = run_dlc([dlc, "quantize", *args])
    lines = [l for l in stderr.splitlines() if l.strip()]
    if rc != 1 or len(lines) != 1 or not lines[0].startswith("error: ") or want not in lines[0]:
        raise Failure(f"dlc quantize {' '.join(args)}: exit {rc}, stderr {stderr!r}; want one "
                      f"'error:' line containing {want!r}")
    if out.exists():
        raise Failure(f"dlc quantize {' '.join(args)}: failed but wrote {out}")


def check_errors(dlc, work: Path):
    model, inputs = MODELS["lenet5"](0)
    d = work / "errors"
    d.mkdir()
    src, out = d / "m.onnx", d / "out.onnx"
    onnx.save(model, src)
    (name, x), = inputs.items()
    good = calibration_arrays(inputs, 1, 4)
    def npz(file, **arrays):
        np.savez(d / file, **arrays)
        return str(d / file)
    base = [str(src), "-o", str(out), "--calib"]
    cases = [
        (base + [npz("missing.npz", other=good[name])], "is not an input of the model"),
        (base + [npz("empty.npz")], f"has no array '{name}'"),
        (base + [npz("extra.npz", **good, extra=np.zeros(3))], "array 'extra' is not an input"),
        (base + [npz("dtype.npz", **{name: good[name].astype(np.float64)})],
         f"array '{name}' is f64"),
        (base + [npz("shape.npz", **{name: good[name][:, :, :, :5]})], "the first axis counts"),
        (base + [npz("batch.npz", **{name: np.concatenate(list(good[name]))[:3]})],
         "not a multiple of the model's batch"),
        (base + [npz("none.npz", **{name: good[name][:0]})], "holds no calibration examples"),
        (base + [npz("nan.npz", **{name: np.where(good[name] > 2, np.nan, good[name])})],
         "holds NaN or infinity"),
        (base + [str(d / "absent.npz")], "absent.npz"),
        (base + [npz("ok.npz", **good), "--method=median"], "--method expects minmax"),
        (base + [str(d / "ok.npz"), "--method=percentile:0"], "0 < P <= 100"),
        (base + [str(d / "ok.npz"), "--exclude=nosuchnode"], "no node named 'nosuchnode'"),
        ([str(src), "-o", str(out)], "missing --calib"),
        ([str(src), "--calib", str(d / "ok.npz")], "missing -o"),
        ([str(d / "nope.onnx"), "--calib", str(d / "ok.npz"), "-o", str(out)], "no such file"),
        ([str(d / "garbage.onnx"), "--calib", str(d / "ok.npz"), "-o", str(out)],
         "not a valid ONNX model"),
    ]
    (d / "garbage.onnx").write_bytes(b"\xff\xfe not a protobuf \x00" * 7)
    old = onnx.ModelProto()
    old.CopyFrom(model)
    old.opset_import[0].version = 9
    onnx.save(old, d / "old.onnx")
    cases.append(([str(d / "old.onnx"), "--calib", str(d / "ok.npz"), "-o", str(out)],
                  "needs opset 10"))
    old.opset_import[0].version = 11
    onnx.save(old, d / "old11.onnx")
    cases.append(([str(d / "old11.onnx"), "--calib", str(d / "ok.npz"), "-o", str(out),
                   "--per-channel"], "--per-channel needs opset 13"))
    cases += [
        ([str(src), "--dynamic", "--calib", str(d / "ok.npz"), "-o", str(out)],
         "--calib is not used by dynamic quantization"),
        ([str(src), "--int4-weights", "--per-channel", "-o", str(out)],
         "--per-channel does not apply to int4 weights"),
        ([str(src), "--int4-weights", "--dynamic", "-o", str(out)],
         "--dynamic and --int4-weights exclude each other"),
    ]
    for args, want in cases:
        expect_error(dlc, args, out, want)
    # dlc compile's quantization flags.
    so = d / "out.so"
    for args, want in [
        (["--quantize=int4"], "--quantize expects int8, dynamic or int4-weights"),
        (["--quantize=int8"], "missing --calib"),
        (["--calib", str(d / "ok.npz")], "--calib is only valid with --quantize"),
        (["--per-channel"], "--per-channel is only valid with --quantize"),
        (["-q"], "-q is only valid with --quantize"),
        (["--quantize=int8", "--calib", str(d / "shape.npz")], "the first axis counts"),
    ]:
        rc, _, stderr = run_dlc([dlc, "compile", str(src), "-o", str(so), *args])
        lines = [l for l in stderr.splitlines() if l.strip()]
        if rc != 1 or len(lines) != 1 or want not in lines[0] or so.exists():
            raise Failure(f"dlc compile {' '.join(args)}: exit {rc}, {stderr!r}; want {want!r}")
        cases.append((args, want))
    if list(d.glob(".dlc-quantized-*")):
        raise Failure("dlc compile --quantize left a temporary model behind")
    # External data is read in (from the model's directory only): the written model stands
    # alone, wherever it is written.
    ext_dir = d / "ext"
    ext_dir.mkdir()
    onnx.save_model(model, ext_dir / "m.onnx", save_as_external_data=True,
                    all_tensors_to_one_file=True, location="weights.bin", size_threshold=0)
    rc, _, stderr = run_dlc([dlc, "quantize", str(ext_dir / "m.onnx"), "--calib",
                             str(d / "ok.npz"), "-o", str(out)])
    if rc != 0 or sum("int8" in l for l in stderr.splitlines()) != 5:
        raise Failure(f"external-data model: exit {rc}, {stderr!r}")
    written = onnx.load(out, load_external_data=False)
    if any(t.data_location == onnx.TensorProto.EXTERNAL for t in written.graph.initializer):
        raise Failure("external-data model: the written model still points at external data")
    out.unlink()
    bad = onnx.ModelProto()  # a model whose external data leaves its directory
    bad.CopyFrom(model)
    w = bad.graph.initializer[0]
    w.ClearField("raw_data")
    del w.float_data[:]
    w.data_location = onnx.TensorProto.EXTERNAL
    w.external_data.add(key="location", value="../../../../etc/passwd")
    onnx.save(bad, d / "escape.onnx")
    cases.append(([str(d / "escape.onnx"), "--calib", str(d / "ok.npz"), "-o", str(out)],
                  "is missing or outside the model directory"))
    expect_error(dlc, cases[-1][0], out, cases[-1][1])
    # A 1-D MatMul weight stays float in the dynamic form (dlc's MatMulInteger takes
    # matrices), and the written model compiles.
    vec = helper.make_model(helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["y"], name="mv")], "mv",
        [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [4, 16])],
        [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [4])],
        [numpy_helper.from_array(np.ones(16, np.float32), "w")]),
        opset_imports=[helper.make_opsetid("", 17)])
    onnx.save(vec, d / "mv.onnx")
    rc, _, stderr = run_dlc([dlc, "compile", str(d / "mv.onnx"), "--quantize=dynamic", "-o",
                             str(d / "mv.so")])
    if rc != 0 or "quantize: 'mv' MatMul: kept float: weight 'w' is 1-D" not in stderr:
        raise Failure(f"1-D weight, --quantize=dynamic: exit {rc}, {stderr!r}")
    # --exclude keeps a node float, and the report says so.
    first = model.graph.node[0].name
    rc, _, stderr = run_dlc([dlc, "quantize", str(src), "--calib", str(d / "ok.npz"), "-o",
                             str(out), f"--exclude={first}"])
    if rc != 0 or f"quantize: '{first}' Conv: kept float: excluded (--exclude)" not in stderr:
        raise Failure(f"--exclude={first}: exit {rc}, {stderr!r}")
    return len(cases)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--dlc", required=True)
    p.add_argument("--keep", action="store_true")
    p.add_argument("--models-only", action="store_true", help="skip the diagnostics")
    p.add_argument("models", nargs="*")
    args = p.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="dlc-ptq-"))
    failed = 0
    try:
        for i, (name, method, per_channel) in enumerate(CASES):
            if args.models and name not in args.models:
                continue
            what = (f"{name} {UNCALIBRATED.get(method, '--method=' + method)}"
                    f"{' --per-channel' if per_channel else ''}")
            try:
                print(f"ok   {what}: {check_case(args.dlc, work, name, method, per_channel, i)}",
                      flush=True)
            except (Failure, subprocess.TimeoutExpired) as e:
                failed += 1
                print(f"FAIL {what}: {e}", flush=True)
        if (not args.models and not args.models_only) or "diagnostics" in args.models:
            try:
                print(f"ok   diagnostics: {check_errors(args.dlc, work)} bad inputs rejected")
            except Failure as e:
                failed += 1
                print(f"FAIL diagnostics: {e}")
    finally:
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

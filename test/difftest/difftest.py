#!/usr/bin/env python3
# Differential graph fuzzing: random ONNX graphs through dlc and ONNX Runtime, mismatches shrunk.
"""Differential testing of dlc against ONNX Runtime on random graphs (scripts/difftest).

Each round draws --pack random graphs (graphgen.py), packs them side by side into one ONNX
model (disjoint components, so one `dlc compile` covers them all), runs it with ORT and with
`dlc run --threads T` (T drawn from 1, 2, 3, 4, 8 per round) and compares every output:
max |dlc - ORT| <= --atol + --rtol * max |ORT| (1e-3 + 1e-2 * max |ORT|, NNSmith's fp32
tolerance: random graphs amplify rounding, e.g. a normalization of a nearly constant
tensor; the bugs this finds are off by O(1)). Graphs whose ORT outputs hold NaN or inf are
dropped (inputs are N(0, 1); ops are guarded so this is rare), and so are mismatches that
the graph's own conditioning explains (see unstable()).

A graph that mismatches, makes dlc crash (a signal or an exit code other than 0 and 1), or
fails to compile although `dlc check` accepts it, is shrunk: outputs dropped, nodes
bypassed, values cut into inputs, as long as the failure stays; the minimal graph's spec
is saved as DIR/<id>.json (a few hundred bytes: constants are shape + seed) and printed.
`--replay DIR` reruns saved cases (the regression test; a case saved with "expect":
"unstable" must come out unstable: ORT was the one off).
A graph `dlc check` rejects (an unsupported node) is counted and reported, not saved.

Rounds run in --jobs worker processes (default: one per core). SIGINT or SIGTERM ends a run
after the rounds in flight. The run's summary line in the ledger (--log) is rewritten at
every progress report and at the end, so a run that is killed outright still counts the
graphs it checked up to its last report ("final": false).

Exit code 1 when a mismatch or crash was found (or a replayed case fails).
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
import graphgen  # noqa: E402
sys.path.insert(0, str(HERE.parent / "e2e"))
from models import sanitize_name as sanitize  # noqa: E402  (the stem `dlc run` writes)

THREADS = [1, 2, 3, 4, 8]


# ---------------------------------------------------------------------------
# spec -> ONNX
# ---------------------------------------------------------------------------

def const_value(c: dict) -> np.ndarray:
    if c["dist"] == "ints":
        return np.array(c["values"], np.int64)
    if c["dist"] == "value":
        return np.array(c["value"], np.float32)
    rng = np.random.default_rng(c["seed"])
    v = rng.standard_normal(c["shape"]) * c["scale"]
    if c["dist"] == "positive":
        v = np.abs(v) + 0.5
    return v.astype(np.float32)


def rename(spec: dict, prefix: str) -> dict:
    """The spec with every value and node name prefixed (to pack several into one model)."""
    m = lambda n: prefix + n if n else n  # noqa: E731
    return {
        **spec,
        "inputs": [{**i, "name": m(i["name"])} for i in spec["inputs"]],
        "consts": [{**c, "name": m(c["name"])} for c in spec["consts"]],
        "nodes": [{**n, "inputs": [m(i) for i in n["inputs"]],
                   "outputs": [m(o) for o in n["outputs"]], "name": m(n["name"])}
                  for n in spec["nodes"]],
        "outputs": [{**o, "name": m(o["name"])} for o in spec["outputs"]],
    }


def build(specs: list[dict]) -> onnx.ModelProto:
    nodes, inputs, outputs, inits = [], [], [], []
    for s in specs:
        for i in s["inputs"]:
            inputs.append(helper.make_tensor_value_info(i["name"], TensorProto.FLOAT, i["shape"]))
        for c in s["consts"]:
            inits.append(numpy_helper.from_array(const_value(c), c["name"]))
        for n in s["nodes"]:
            nodes.append(helper.make_node(n["op"], n["inputs"], n["outputs"], name=n["name"],
                                          **n["attrs"]))
        for o in s["outputs"]:
            outputs.append(helper.make_tensor_value_info(o["name"], TensorProto.FLOAT, None))
    g = helper.make_graph(nodes, "difftest", inputs, outputs, inits)
    model = helper.make_model(g, opset_imports=[helper.make_opsetid("", graphgen.OPSET)])
    model.ir_version = 8
    return model


def input_values(spec: dict, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    return {i["name"]: rng.standard_normal(i["shape"]).astype(np.float32)
            for i in spec["inputs"]}


# ---------------------------------------------------------------------------
# running
# ---------------------------------------------------------------------------

def ort_run(model: onnx.ModelProto, feeds: dict):
    import onnxruntime as ort
    so = ort.SessionOptions()
    so.log_severity_level = 3
    sess = ort.InferenceSession(model.SerializeToString(), so,
                                providers=["CPUExecutionProvider"])
    names = [o.name for o in sess.get_outputs()]
    return dict(zip(names, sess.run(None, feeds)))


class Dlc:
    def __init__(self, path: str, work: Path, timeout: float):
        self.path, self.work, self.timeout = path, work, timeout

    def accepts(self, model: onnx.ModelProto) -> bool:
        """Whether `dlc check` says every node is supported."""
        with tempfile.NamedTemporaryFile(suffix=".onnx", dir=self.work) as f:
            f.write(model.SerializeToString())
            f.flush()
            r = subprocess.run([self.path, "check", f.name], capture_output=True, text=True,
                               timeout=self.timeout)
        return r.returncode == 0

    def run(self, model: onnx.ModelProto, feeds: dict, threads: int):
        """('ok', {output: array}) | ('rejected', error line) | ('crash', what)."""
        d = Path(tempfile.mkdtemp(dir=self.work))
        try:
            onnx.save(model, str(d / "m.onnx"))
            args = []
            for k, v in feeds.items():
                np.save(d / f"in_{k}.npy", v)
                args += ["--input", f"{k}={d / f'in_{k}.npy'}"]
            (d / "out").mkdir()
            try:
                r = subprocess.run([self.path, "run", str(d / "m.onnx"), *args, "--threads",
                                    str(threads), "--output-dir", str(d / "out")],
                                   capture_output=True, text=True, timeout=self.timeout)
            except subprocess.TimeoutExpired:
                return "crash", f"timed out after {self.timeout:.0f} s"
            if r.returncode == 1:
                err = [ln for ln in r.stderr.splitlines() if ln.startswith("error:")]
                return "rejected", (err or [r.stderr.strip()[-200:]])[0]
            if r.returncode != 0:
                return "crash", f"exit code {r.returncode}: {r.stderr.strip()[-300:]}"
            return "ok", {p.stem: np.load(p) for p in (d / "out").iterdir()}
        finally:
            shutil.rmtree(d, ignore_errors=True)



def mismatch(got: dict, ref: dict, names, rtol, atol):
    """The first output of `names` that differs: (name, error) or None."""
    for n in names:
        r = ref[n]
        g = got.get(sanitize(n))
        if g is None or g.shape != r.shape:
            return n, f"shape {None if g is None else list(g.shape)}, ORT {list(r.shape)}"
        diff = float(np.abs(g.astype(np.float64) - r).max()) if r.size else 0.0
        scale = float(np.abs(r).max()) if r.size else 0.0
        if not diff <= atol + rtol * scale:  # NaN in dlc's output fails too
            return n, f"max |dlc - ORT| {diff:.3g} (max |ORT| {scale:.3g})"
    return None


def finite(ref: dict) -> bool:
    return all(np.isfinite(v).all() for v in ref.values())


# ---------------------------------------------------------------------------
# one graph: check, shrink
# ---------------------------------------------------------------------------

def check_one(dlc: Dlc, spec: dict, threads: int, args):
    """'pass' | 'invalid' (ORT fails or non-finite) | 'unstable' (ill-conditioned: see
    unstable()) | 'rejected: ..' (dlc check lists an unsupported node) | 'error: ..' (dlc
    check accepts it, dlc compile fails) | 'mismatch: ..' | 'crash: ..'."""
    model = build([spec])
    feeds = input_values(spec, spec.get("input_seed", 0))
    try:
        ref = ort_run(model, feeds)
    except Exception:
        return "invalid"
    if not finite(ref):
        return "invalid"
    kind, res = dlc.run(model, feeds, threads)
    if kind == "rejected":
        # A graph `dlc check` accepts must compile: a rejection then is a compiler bug.
        return ("error: " if dlc.accepts(model) else "rejected: ") + res
    if kind == "crash":
        return "crash: " + res
    names = [o["name"] for o in spec["outputs"]]
    bad = mismatch(res, ref, names, args.rtol, args.atol)
    if not bad:
        return "pass"
    if unstable(model, feeds, ref, res, names):
        return "unstable"
    return f"mismatch: output {bad[0]}: {bad[1]}"


def as_double(model: onnx.ModelProto, in_float: set) -> onnx.ModelProto:
    """`model` computing in float64, but nodes of the op types `in_float` (ORT has no
    float64 kernel for them, e.g. Conv) run in float32 between Casts."""
    typed = onnx.shape_inference.infer_shapes(model)
    dtype = {v.name: v.type.tensor_type.elem_type
             for v in list(typed.graph.value_info) + list(typed.graph.input)
             + list(typed.graph.output)}
    dtype.update({t.name: t.data_type for t in model.graph.initializer})
    m = onnx.ModelProto()
    m.CopyFrom(model)
    for v in list(m.graph.input) + list(m.graph.output):
        if v.type.tensor_type.elem_type == TensorProto.FLOAT:
            v.type.tensor_type.elem_type = TensorProto.DOUBLE
    for t in m.graph.initializer:
        if t.data_type == TensorProto.FLOAT:
            t.CopyFrom(numpy_helper.from_array(numpy_helper.to_array(t).astype(np.float64),
                                               t.name))
    nodes = []
    for i, n in enumerate(m.graph.node):
        if n.op_type not in in_float:
            nodes.append(n)
            continue
        for k, name in enumerate(n.input):
            if name and dtype.get(name) == TensorProto.FLOAT:
                nodes.append(helper.make_node("Cast", [name], [f"{name}__f32_{i}"],
                                              to=TensorProto.FLOAT))
                n.input[k] = f"{name}__f32_{i}"
        casts = []
        for k, name in enumerate(n.output):
            if name and dtype.get(name) == TensorProto.FLOAT:
                casts.append(helper.make_node("Cast", [name + "__f32"], [name],
                                              to=TensorProto.DOUBLE))
                n.output[k] = name + "__f32"
        nodes += [n, *casts]
    del m.graph.node[:]
    m.graph.node.extend(nodes)
    del m.graph.value_info[:]
    return m


def reference64(model: onnx.ModelProto, feeds: dict):
    """The graph's outputs computed in float64 (a near-exact reference), or None: by ORT;
    where ORT has no float64 kernel for an op (InstanceNormalization, ...), by ONNX's
    NumPy reference evaluator; failing that, by ORT with those ops left in float32."""
    in_float: set = set()
    f64 = {k: v.astype(np.float64) for k, v in feeds.items()}
    try:
        return ort_run(as_double(model, in_float), f64)
    except Exception:
        pass
    try:
        from onnx.reference import ReferenceEvaluator
        double = as_double(model, in_float)
        names = [o.name for o in double.graph.output]
        with np.errstate(all="ignore"):
            return dict(zip(names, ReferenceEvaluator(double).run(None, f64)))
    except Exception:
        pass
    for _ in range(8):
        try:
            return ort_run(as_double(model, in_float), f64)
        except Exception as e:  # NOT_IMPLEMENTED names the node: run its op type in f32
            import re
            hit = re.search(r"implementation for (\w+)\(", str(e))
            if not hit or hit.group(1) in in_float:
                return None
            in_float.add(hit.group(1))
    return None


def unstable(model, feeds, ref, got, names) -> bool:
    """Whether the graph is ill-conditioned at these inputs (a normalization of a nearly
    constant tensor, a softmax of huge logits), so that the difference is rounding, not a
    bug. Two tests: ORT's own outputs move by more than 1/100 of dlc's difference when the
    inputs move by ~8 ulps; or, against the graph computed in float64, ORT's float32 error
    is at least 1/10 of dlc's (a constant region, e.g. a padded batch, that a normalization
    divides by its ~0 variance, is not moved by nudging the inputs)."""
    rng = np.random.default_rng(12345)
    nudged = {k: (v * (1 + 1e-6 * rng.standard_normal(v.shape))).astype(np.float32)
              for k, v in feeds.items()}
    try:
        other = ort_run(model, nudged)
    except Exception:
        return False
    exact = None
    for n in names:
        g = got.get(sanitize(n))
        if g is None or g.shape != ref[n].shape:
            return False
        diff = float(np.abs(g.astype(np.float64) - ref[n]).max())
        moved = float(np.abs(other[n].astype(np.float64) - ref[n]).max())
        if diff <= 100 * moved:
            continue
        if exact is None:
            exact = reference64(model, feeds) or {}
        if n not in exact:
            return False
        ours = float(np.abs(g.astype(np.float64) - exact[n]).max())
        theirs = float(np.abs(ref[n].astype(np.float64) - exact[n]).max())
        if ours > 10 * theirs:
            return False
    return True


def live_nodes(spec: dict) -> dict:
    """The spec without nodes, constants and inputs that no output needs."""
    need = {o["name"] for o in spec["outputs"]}
    nodes = []
    for n in reversed(spec["nodes"]):
        if any(o in need for o in n["outputs"]):
            nodes.append(n)
            need |= set(n["inputs"])
    nodes.reverse()
    return {**spec, "nodes": nodes,
            "consts": [c for c in spec["consts"] if c["name"] in need],
            "inputs": [i for i in spec["inputs"] if i["name"] in need]}


def value_shapes(spec: dict) -> dict:
    model = onnx.shape_inference.infer_shapes(build([spec]))
    out = {}
    for vi in list(model.graph.value_info) + list(model.graph.output):
        dims = vi.type.tensor_type.shape.dim
        if all(d.HasField("dim_value") for d in dims):
            out[vi.name] = [d.dim_value for d in dims]
    return out


def candidates(spec: dict):
    """Smaller specs, most shrinking first."""
    outs = spec["outputs"]
    if len(outs) > 1:
        for i in range(len(outs)):
            yield live_nodes({**spec, "outputs": outs[:i] + outs[i + 1:]})
    shapes = value_shapes(spec)
    nodes = spec["nodes"]
    # Cut: a node's output becomes a graph input (drops everything only it needed).
    graph_outputs = {x["name"] for x in outs}
    for n in nodes:
        o = n["outputs"][0]
        if o in shapes and o not in graph_outputs:
            s = {**spec, "nodes": [m for m in nodes if m is not n],
                 "inputs": spec["inputs"] + [{"name": o, "shape": shapes[o]}]}
            yield live_nodes(s)
    # Bypass: a node whose first input has its output's shape is replaced by that input.
    for n in nodes:
        o, i0 = n["outputs"][0], n["inputs"][0]
        if o in shapes and shapes.get(i0, [x["shape"] for x in spec["inputs"]
                                           if x["name"] == i0][:1] or [None]) == shapes[o]:
            ren = lambda v: i0 if v == o else v  # noqa: E731
            s = {**spec, "nodes": [{**m, "inputs": [ren(v) for v in m["inputs"]]}
                                   for m in nodes if m is not n],
                 "outputs": [{"name": ren(x["name"])} for x in spec["outputs"]]}
            if not any(x["name"] in {i["name"] for i in spec["inputs"]} for x in s["outputs"]):
                yield live_nodes(s)


def shrink(dlc: Dlc, spec: dict, threads: int, failure: str, args, budget_s=300):
    kind = failure.split(":")[0]
    end = time.time() + budget_s
    changed = True
    while changed and time.time() < end:
        changed = False
        for cand in candidates(spec):
            if not cand["nodes"] or time.time() > end:
                continue
            res = check_one(dlc, cand, threads, args)
            if res.startswith(kind):
                spec, failure, changed = cand, res, True
                break
    return spec, failure


def save_case(out: Path, spec: dict, threads: int, failure: str, origin: str) -> Path:
    case = {**spec, "threads": threads, "failure": failure, "origin": origin}
    text = json.dumps(case, sort_keys=True)
    path = out / f"case_{hashlib.sha1(text.encode()).hexdigest()[:10]}.json"
    out.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(case, indent=1) + "\n")
    return path


# ---------------------------------------------------------------------------
# rounds
# ---------------------------------------------------------------------------

def round_(dlc: Dlc, seed: int, args, stats: dict, found: list, rejections: dict):
    rng = np.random.default_rng(seed)
    threads = int(rng.choice(THREADS))
    specs = []
    for k in range(args.pack):
        s = graphgen.generate(seed * 1000 + k, args.max_ops)
        if s is None:
            continue
        s["input_seed"] = seed * 1000 + k
        specs.append(s)
    # The reference per graph: a graph ORT cannot run, or whose outputs are not finite, is
    # dropped before packing.
    packed, refs, feeds = [], {}, {}
    for k, s in enumerate(specs):
        p = rename(s, f"g{k}_")
        f = input_values(s, s["input_seed"])
        try:
            ref = ort_run(build([s]), f)
        except Exception:
            stats["invalid"] += 1
            continue
        if not finite(ref):
            stats["invalid"] += 1
            continue
        packed.append((s, p))
        feeds.update({f"g{k}_{n}": v for n, v in f.items()})
        refs.update({f"g{k}_{n}": v for n, v in ref.items()})
    if not packed:
        return
    model = build([p for _, p in packed])
    kind, res = dlc.run(model, feeds, threads)
    suspects = []
    if kind == "ok":
        for s, p in packed:
            if mismatch(res, refs, [o["name"] for o in p["outputs"]], args.rtol, args.atol):
                suspects.append(s)
            else:
                stats["pass"] += 1
    else:  # rejected or crashed as a whole: find which graph(s), one at a time
        suspects = [s for s, _ in packed]
    for s in suspects:
        r = check_one(dlc, s, threads, args)
        status = r.split(":")[0]
        if status in ("pass", "rejected", "invalid", "unstable"):
            stats[status] += 1
            if status == "rejected":
                rejections[r] = rejections.get(r, 0) + 1
                if args.verbose:
                    print(f"  {r} (seed {s['input_seed']})")
            continue
        stats["fail"] += 1
        print(f"FOUND seed {s['input_seed']} threads {threads}: {r}", flush=True)
        small, why = shrink(dlc, s, threads, r, args)
        path = save_case(Path(args.save), small, threads, why,
                         f"difftest seed {s['input_seed']} pack {args.pack}")
        print(f"  shrunk to {len(small['nodes'])} nodes "
              f"({', '.join(n['op'] for n in small['nodes'])}): {why}\n  saved {path}",
              flush=True)
        found.append(path)


def one_round(dlc: Dlc, seed: int, args):
    """round_ with its own tallies (what a worker process returns)."""
    stats = {"pass": 0, "invalid": 0, "unstable": 0, "rejected": 0, "fail": 0}
    found: list = []
    rejections: dict = {}
    round_(dlc, seed, args, stats, found, rejections)
    return stats, [str(p) for p in found], rejections


def worker_init():
    # The driver decides when to stop; workers finish their round.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_IGN)


def replay(dlc: Dlc, folder: Path, args) -> int:
    cases = sorted(folder.glob("*.json"))
    bad = 0
    for c in cases:
        spec = json.loads(c.read_text())
        threads = spec.get("threads", 1)
        r = check_one(dlc, spec, threads, args)
        # "expect": "unstable" marks a case where ORT, not dlc, was off (the graph's
        # float64 value decides); every other case must pass.
        ok = r == spec.get("expect", "pass")
        bad += not ok
        print(f"{'PASS' if ok else 'FAIL'} {c.name} ({len(spec['nodes'])} nodes, {threads} "
              f"threads){'' if ok else ': ' + r}", flush=True)
    print(f"replay: {len(cases) - bad}/{len(cases)} regression cases pass")
    return 1 if bad else 0


def record(ledger: str, summary: dict) -> None:
    """Write `summary` as the ledger line of its run (summary["run"]), replacing an earlier
    line of the same run; runs writing one ledger at once serialize on a lock of the file."""
    import fcntl
    fd = os.open(ledger, os.O_RDWR | os.O_CREAT, 0o644)
    with os.fdopen(fd, "r+") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        lines = [ln for ln in f.read().splitlines() if ln.strip()]
        kept = [ln for ln in lines if json.loads(ln).get("run") != summary["run"]]
        f.seek(0)
        f.truncate()
        f.write("".join(ln + "\n" for ln in kept + [json.dumps(summary)]))
        f.flush()
        os.fsync(f.fileno())


def git_commit() -> str:
    try:
        return subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, timeout=10).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return ""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--dlc", default=str(ROOT / "build/bin/dlc"))
    ap.add_argument("--minutes", type=float, help="run for this long")
    ap.add_argument("--graphs", type=int, help="run this many graphs (default 200 without "
                                                "--minutes)")
    ap.add_argument("--seed", type=int, help="first round's seed (default: from the clock)")
    ap.add_argument("--pack", type=int, default=16, help="graphs per compiled model (16)")
    ap.add_argument("--max-ops", type=int, default=10, help="ops drawn per graph (up to 10)")
    ap.add_argument("--rtol", type=float, default=1e-2,
                    help="relative tolerance, times max |ORT| per output (default 1e-2, as NNSmith)")
    ap.add_argument("--atol", type=float, default=1e-3, help="absolute tolerance (1e-3)")
    ap.add_argument("--save", default=str(HERE / "found"),
                    help="where shrunk failures go (default test/difftest/found)")
    ap.add_argument("--replay", metavar="DIR", help="rerun the saved cases in DIR and exit")
    ap.add_argument("--timeout", type=float, default=60, help="per dlc run (s)")
    ap.add_argument("--log", default=str(HERE / "runs.jsonl"),
                    help="the ledger: one summary line (JSON) per run (default "
                         "test/difftest/runs.jsonl; '' for none)")
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1,
                    help="rounds run in parallel (default: one per core)")
    ap.add_argument("-v", "--verbose", action="store_true")
    args = ap.parse_args()
    if not os.access(args.dlc, os.X_OK):
        print(f"error: dlc not found at {args.dlc} (run scripts/setup)", file=sys.stderr)
        return 1
    work = Path(tempfile.mkdtemp(prefix="dlc_difftest_"))
    try:
        dlc = Dlc(args.dlc, work, args.timeout)
        if args.replay:
            return replay(dlc, Path(args.replay), args)
        seed = args.seed if args.seed is not None else int(time.time()) % 1_000_000
        commit = git_commit()  # at the start: the tree the dlc under test was built from
        graphs = args.graphs or (None if args.minutes else 200)
        end = time.time() + args.minutes * 60 if args.minutes else None
        stats = {"pass": 0, "invalid": 0, "unstable": 0, "rejected": 0, "fail": 0}
        found: list = []
        rejections: dict = {}  # dlc's error line -> count
        t0, rounds = time.time(), 0
        run_id = f"{commit}-{seed}-{int(t0)}"
        stop = []
        for sig in (signal.SIGINT, signal.SIGTERM):
            signal.signal(sig, lambda *_: stop.append(1))

        def done() -> bool:
            total = sum(stats.values())
            return bool(stop) or (graphs is not None and total >= graphs) or \
                bool(end and time.time() >= end)

        def merge(result):
            nonlocal rounds
            st, fd, rj = result
            for k, v in st.items():
                stats[k] += v
            found.extend(fd)
            for k, v in rj.items():
                rejections[k] = rejections.get(k, 0) + v
            rounds += 1
            if args.verbose or rounds % 25 == 0:
                print(f"[{time.time() - t0:6.0f} s] {sum(stats.values())} graphs: {stats}",
                      flush=True)
            if args.log and rounds % 25 == 0:
                record(args.log, summary(final=False))

        def summary(final: bool) -> dict:
            return {"date": time.strftime("%Y-%m-%d"), "commit": commit, "seed": seed,
                    "rounds": rounds, "seconds": round(time.time() - t0),
                    "graphs": sum(stats.values()), **stats,
                    "found": [str(Path(p).name) for p in found], "run": run_id,
                    "final": final}

        jobs = max(1, args.jobs)
        if jobs == 1:
            while not done():
                merge(one_round(dlc, seed + rounds, args))
        else:
            import concurrent.futures as cf
            with cf.ProcessPoolExecutor(jobs, initializer=worker_init) as pool:
                pending, next_seed = set(), seed
                while True:
                    while not done() and len(pending) < jobs:
                        pending.add(pool.submit(one_round, dlc, next_seed, args))
                        next_seed += 1
                    if not pending:
                        break
                    finished, pending = cf.wait(pending, return_when=cf.FIRST_COMPLETED)
                    for f in finished:
                        merge(f.result())
        for why, n in sorted(rejections.items(), key=lambda kv: -kv[1])[:10]:
            print(f"  {n} x {why}")
        last = summary(final=True)
        print("difftest:", json.dumps(last))
        if args.log:
            record(args.log, last)
        return 1 if stats["fail"] else 0
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""ONNX backend node-test conformance runner for dlc.

Runs every ONNX backend node test case (the 1884 cases of ``onnx.backend.test.case.node``
for the installed onnx, ``_expanded`` function-body variants included) through
``dlc run`` and compares the outputs with ONNX's backend-test semantics.  See
test/conformance/README.md for the modes; ``scripts/conformance`` is the entry point.

Per case and data set::

    dlc run <case>/model.onnx --input NAME=<ds>/input_<j>.pb ... \\
        --output-dir <tmp> --output-format pb

With ``--batch DLC_RUN_BATCH`` (the CI test) each worker sends these command lines to one
dlc-run-batch process, which runs ``dlc run``'s code for them without paying for a new
process each time; a case that fails there (or crashes or hangs it) is rerun with dlc alone,
and that run's result counts.

then ``<tmp>/<sanitized output name>.pb`` is compared with ``<ds>/output_<j>.pb``:
dtype must match exactly, shape must match, floats with
``np.testing.assert_allclose(rtol=case.rtol, atol=case.atol)`` (NaNs equal in the same
positions; bfloat16 at least two ulps, as ONNX's own runner), bool/integers exactly.
Every data set of a case must pass.

Statuses: pass, wrong-result (ran, outputs differ), error (dlc exited 1 with an error
message), crash (signal or any other exit code), timeout, out-of-scope (listed in
out-of-scope.txt, not run, counted as a failure), runner-error (a bug or limitation of
this script; never expected).
"""
from __future__ import annotations

import argparse
import fnmatch
import json
import os
import re
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import onnx
from onnx import numpy_helper

sys.path.insert(0, str(Path(__file__).resolve().parent))
import casedata  # noqa: E402
import dynamic  # noqa: E402
import report  # noqa: E402

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
EXPECTED_FILE = HERE / "expected-pass.txt"
EXPECTED_DYNAMIC_FILE = HERE / "expected-pass-dynamic.txt"
DYNAMIC_SUMMARY_FILE = HERE / "dynamic-summary.json"
OUT_OF_SCOPE_FILE = HERE / "out-of-scope.txt"
DOC_FILE = ROOT / "docs" / "Conformance.md"

PASS, WRONG, ERROR, CRASH, TIMEOUT, SCOPE, RUNNER = (
    "pass", "wrong-result", "error", "crash", "timeout", "out-of-scope", "runner-error")


@dataclass
class Result:
    case: str
    op: str
    expanded: bool
    status: str
    reason: str = ""            # "" when passed; else the first error line / mismatch
    dtypes: list[str] = field(default_factory=list)
    seconds: float = 0.0


class CaseFailure(Exception):
    """A case failed; carries (status, reason)."""

    def __init__(self, status: str, reason: str):
        super().__init__(reason)
        self.status, self.reason = status, reason


def sanitize(name: str) -> str:
    """Output file stem as dlc writes it."""
    return re.sub(r"[^A-Za-z0-9_.-]", "_", name)


# ---------------------------------------------------------------------------------
# Loading values and comparing them
# ---------------------------------------------------------------------------------

def load_value(path: Path, type_proto: onnx.TypeProto):
    """A .pb value file: ndarray, list (sequence), dict (map) or None/value (optional)."""
    data = path.read_bytes()
    which = type_proto.WhichOneof("value")
    if which == "sequence_type":
        p = onnx.SequenceProto()
        p.ParseFromString(data)
        return numpy_helper.to_list(p)
    if which == "optional_type":
        p = onnx.OptionalProto()
        p.ParseFromString(data)
        return numpy_helper.to_optional(p)
    if which == "map_type":
        p = onnx.MapProto()
        p.ParseFromString(data)
        return numpy_helper.to_dict(p)
    t = onnx.TensorProto()
    t.ParseFromString(data)
    return numpy_helper.to_array(t)


# ml_dtypes element types numpy cannot do arithmetic on directly.
_SMALL_INTS = {"int4", "uint4", "int2", "uint2"}


def compare(actual, expected, rtol: float, atol: float, what: str) -> None:
    """Raise CaseFailure(WRONG, ...) unless ``actual`` matches ``expected``."""
    if isinstance(expected, (list, tuple)):
        if not isinstance(actual, (list, tuple)):
            raise CaseFailure(WRONG, f"{what}: got {type(actual).__name__}, expected a sequence")
        if len(actual) != len(expected):
            raise CaseFailure(WRONG, f"{what}: sequence length {len(actual)}, expected {len(expected)}")
        for i, (a, e) in enumerate(zip(actual, expected)):
            compare(a, e, rtol, atol, f"{what}[{i}]")
        return
    if expected is None:
        if actual is not None:
            raise CaseFailure(WRONG, f"{what}: got a value, expected an empty optional")
        return
    if not isinstance(actual, np.ndarray):
        raise CaseFailure(WRONG, f"{what}: got {type(actual).__name__}, expected a tensor")
    expected = np.asarray(expected)
    if actual.dtype != expected.dtype:
        raise CaseFailure(WRONG, f"dtype mismatch: got {actual.dtype}, expected {expected.dtype}")
    if actual.shape != expected.shape:
        raise CaseFailure(WRONG, f"shape mismatch: got {list(actual.shape)}, "
                                 f"expected {list(expected.shape)}")
    kind = expected.dtype.kind
    name = expected.dtype.name
    if kind == "O" or kind in "SU":  # strings
        if not np.array_equal(actual, expected):
            raise CaseFailure(WRONG, f"{what}: string values differ")
        return
    if kind in "biu" or name in _SMALL_INTS:  # bool / integers: exact
        a = actual.astype(np.int64) if name in _SMALL_INTS else actual
        e = expected.astype(np.int64) if name in _SMALL_INTS else expected
        bad = a != e
        if bad.any():
            idx = tuple(int(i) for i in np.argwhere(bad)[0])
            raise CaseFailure(WRONG, f"value mismatch: {int(bad.sum())}/{bad.size} elements "
                                     f"differ (first at {list(idx)}: got {a[idx]}, expected {e[idx]})")
        return
    # Floating point.  ml_dtypes floats (bfloat16, float8*, float4) go through float32;
    # bfloat16 gets two ulps of relative tolerance, as in onnx/backend/test/runner.
    a, e, r = actual, expected, rtol
    if kind != "f":
        if name == "bfloat16":
            r = max(rtol, 2 ** -6)
        a, e = actual.astype(np.float32), expected.astype(np.float32)
    try:
        np.testing.assert_allclose(a, e, rtol=r, atol=atol, equal_nan=True)
    except AssertionError:
        a64, e64 = a.astype(np.float64), e.astype(np.float64)
        with np.errstate(all="ignore"):
            close = np.isclose(a64, e64, rtol=r, atol=atol, equal_nan=True)
            diff = np.abs(a64 - e64)
        bad = diff[~close]
        finite = bad[np.isfinite(bad)]
        detail = [f"max abs diff {float(finite.max()):.3g}"] if finite.size else []
        if finite.size < bad.size:
            detail.append(f"{bad.size - finite.size} NaN/Inf mismatches")
        raise CaseFailure(WRONG, f"value mismatch: {bad.size}/{close.size} elements "
                                 f"differ ({', '.join(detail)})")


# ---------------------------------------------------------------------------------
# Running one case
# ---------------------------------------------------------------------------------

class BatchProcess:
    """One dlc-run-batch process: `dlc run` command lines in, "rc N" lines out."""

    # Restarted after this many commands, so that what a case leaves behind stays bounded.
    MAX_COMMANDS = 300

    def __init__(self, exe: Path):
        self.exe, self.proc, self.count = exe, None, 0

    def close(self) -> None:
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait()
            self.proc = None

    def run(self, args: list[str], log: Path, timeout: float) -> int | None:
        """The exit code of `dlc run ARGS` (its output in `log`); None if the process
        died or hung (it is then closed)."""
        if self.proc is None or self.count >= self.MAX_COMMANDS:
            self.close()
            self.proc = subprocess.Popen([str(self.exe)], stdin=subprocess.PIPE,
                                         stdout=subprocess.PIPE, bufsize=0)
            self.count = 0
        self.count += 1
        try:
            self.proc.stdin.write(("\t".join([str(log), *args]) + "\n").encode())
            ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
            reply = self.proc.stdout.readline() if ready else b""
        except OSError:
            reply = b""
        if not reply.startswith(b"rc "):
            self.close()
            return None
        return int(reply.split()[1])


class Runner:
    def __init__(self, dlc: Path, datadir: Path, tmproot: Path, index: dict,
                 timeout: float, scope: list[tuple[str, str]], batch: Path | None = None,
                 symbolic: bool = False):
        self.dlc, self.datadir, self.tmproot = dlc, datadir, tmproot
        self.index, self.timeout, self.scope = index, timeout, scope
        self.batch = batch
        self.symbolic = symbolic  # --dynamic: compile with symbolic dims, then run
        self._ops: dict[str, str] = {}
        self._lock = threading.Lock()
        self._local = threading.local()
        self._processes: list[BatchProcess] = []
        # Cases that failed in a batch process but passed with dlc alone.
        self.batch_only_failures: list[str] = []

    def close(self) -> None:
        for p in self._processes:
            p.close()

    def _batch_process(self) -> BatchProcess:
        proc = getattr(self._local, "proc", None)
        if proc is None:
            proc = self._local.proc = BatchProcess(self.batch)
            with self._lock:
                self._processes.append(proc)
        return proc

    def out_of_scope_reason(self, case: str) -> str | None:
        for pattern, reason in self.scope:
            if fnmatch.fnmatchcase(case, pattern):
                return reason
        return None

    def op_of(self, case: str) -> str:
        """Op a case tests; an _expanded case gets the op of its non-expanded base case."""
        with self._lock:
            if case in self._ops:
                return self._ops[case]
        target = casedata.base_name(case)
        if target not in self.index:
            target = case
        model = onnx.load(str(self.datadir / target / "model.onnx"), load_external_data=False)
        op = casedata.model_op(target, model)
        with self._lock:
            self._ops[case] = op
        return op

    def run(self, case: str) -> Result:
        t0 = time.perf_counter()
        res = Result(case, "?", casedata.is_expanded(case), RUNNER)
        try:
            model = onnx.load(str(self.datadir / case / "model.onnx"), load_external_data=False)
            res.dtypes = casedata.case_dtypes(model)
            res.op = self.op_of(case)
            reason = self.out_of_scope_reason(case)
            if reason is not None:
                res.status, res.reason = SCOPE, f"out of scope: {reason}"
                return res
            meta = self.index.get(case, {})
            rtol, atol = meta.get("rtol", 1e-3), meta.get("atol", 1e-7)
            datasets = sorted(self.datadir.joinpath(case).glob("test_data_set_*"),
                              key=lambda p: int(p.name.rsplit("_", 1)[1]))
            try:
                for ds in datasets:
                    self.run_dataset(case, model, ds, rtol, atol, self.batch is not None)
            except CaseFailure:
                if self.batch is None:
                    raise
                # Rerun alone: a crash, hang or error message then reads as it does for
                # users, and a failure caused by an earlier case in the process shows.
                for ds in datasets:
                    self.run_dataset(case, model, ds, rtol, atol, False)
                with self._lock:
                    self.batch_only_failures.append(case)
            res.status = PASS
        except CaseFailure as f:
            res.status, res.reason = f.status, f.reason
        except Exception as e:  # never let one weird case take the run down
            res.status, res.reason = RUNNER, f"runner error: {type(e).__name__}: {e}"
        finally:
            res.seconds = round(time.perf_counter() - t0, 3)
        return res

    def run_dataset(self, case: str, model: onnx.ModelProto, ds: Path,
                    rtol: float, atol: float, batch: bool) -> None:
        graph = model.graph
        inits = {t.name for t in graph.initializer}
        n_in = len(list(ds.glob("input_*.pb")))
        self.tmproot.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=case[:60] + "-", dir=self.tmproot))
        try:
            # input_<j> belongs to graph.input[j] (cmd_tools.py writes them by position);
            # a data set with fewer files than inputs leaves the trailing ones out.
            args, files = [], {}
            for j in range(n_in):
                vi = graph.input[j]
                if vi.name in inits:
                    continue
                files[vi.name] = ds / f'input_{j}.pb'
                args += ["--input", f"{vi.name}={files[vi.name]}"]
            outdir = tmp / "out"
            args += ["--output-dir", str(outdir), "--output-format", "pb"]
            model_file = str(self.datadir / case / "model.onnx")
            if self.symbolic:
                dynamic.compile_and_run(self._exec, self.dlc, model, files, tmp, args)
            elif batch:
                self._exec_batch([model_file, *args], tmp / "log")
            else:
                self._exec([str(self.dlc), "run", model_file, *args])
            for j, vi in enumerate(graph.output):
                exp_file = ds / f"output_{j}.pb"
                if not exp_file.exists():
                    continue
                expected = load_value(exp_file, vi.type)
                got_file = outdir / (sanitize(vi.name) + ".pb")
                if not got_file.exists():
                    raise CaseFailure(WRONG, f"missing output file for '{vi.name}'")
                actual = load_value(got_file, vi.type)
                compare(actual, expected, rtol, atol, f"output '{vi.name}'")
        finally:
            shutil.rmtree(tmp, ignore_errors=True)

    def _exec_batch(self, args: list[str], log: Path) -> None:
        if any("\t" in a or "\n" in a for a in args):
            raise CaseFailure(RUNNER, "argument with a tab or newline (run it alone)")
        rc = self._batch_process().run(args, log, self.timeout)
        if rc != 0:
            raise CaseFailure(ERROR if rc is not None else CRASH, f"dlc-run-batch: rc {rc}")

    def _exec(self, cmd: list[str]) -> None:
        try:
            p = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True,
                               timeout=self.timeout, text=True, errors="replace")
        except subprocess.TimeoutExpired:
            raise CaseFailure(TIMEOUT, f"timeout after {self.timeout:g}s")
        if p.returncode == 0:
            return
        lines = [ln.strip() for ln in p.stderr.splitlines() if ln.strip()]
        if p.returncode == 1:
            err = [ln for ln in lines if "error:" in ln]
            first = (err or lines or ["(no message)"])[0]
            raise CaseFailure(ERROR, first)
        if p.returncode < 0:
            try:
                how = signal.Signals(-p.returncode).name
            except ValueError:
                how = f"signal {-p.returncode}"
        else:
            how = f"exit code {p.returncode}"
        hint = next((ln for ln in lines if re.search(r"error|assert|fault|abort", ln, re.I)),
                    lines[0] if lines else "")
        raise CaseFailure(CRASH, f"crash ({how})" + (f": {hint[:200]}" if hint else ""))


# ---------------------------------------------------------------------------------
# Files: out-of-scope.txt, expected-pass.txt
# ---------------------------------------------------------------------------------

def read_out_of_scope(path: Path) -> list[tuple[str, str]]:
    """Lines ``PATTERN  # REASON`` (fnmatch globs; '#' lines are comments)."""
    entries = []
    if not path.exists():
        return entries
    for n, line in enumerate(path.read_text().splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        pattern, sep, reason = (line.partition("#") if "#" in line else line.partition("\t"))
        pattern, reason = pattern.strip(), reason.strip()
        if not pattern or not reason:
            sys.exit(f"{path}:{n}: expected 'PATTERN  # REASON', got {line!r}")
        entries.append((pattern, reason))
    return entries


def read_names(path: Path) -> set[str]:
    if not path.exists():
        return set()
    return {ln.strip() for ln in path.read_text().splitlines()
            if ln.strip() and not ln.startswith("#")}


# ---------------------------------------------------------------------------------
# Main
# ---------------------------------------------------------------------------------

def parse_args(argv):
    ap = argparse.ArgumentParser(
        prog="scripts/conformance",
        description="Run the ONNX backend node tests through `dlc run`. Default (CI) "
                    "mode: run everything, exit 1 if a case of expected-pass.txt fails.")
    ap.add_argument("cases", nargs="*", help="run only these cases (exact names)")
    ap.add_argument("-k", dest="patterns", action="append", default=[],
                    help="run only cases whose name contains PATTERN (or matches it as a "
                         "glob if it has *?[); repeatable")
    ap.add_argument("-j", "--jobs", type=int, default=os.cpu_count() or 1,
                    help="parallel dlc processes (default: %(default)s)")
    ap.add_argument("--dlc", type=Path, default=ROOT / "build" / "bin" / "dlc",
                    help="dlc binary (default: build/bin/dlc)")
    ap.add_argument("--build-dir", type=Path, default=ROOT / "build",
                    help="test data goes to BUILD_DIR/conformance (default: build)")
    ap.add_argument("--batch", type=Path, metavar="DLC_RUN_BATCH",
                    help="run the cases in dlc-run-batch processes, a failing case again "
                         "with dlc alone (default: the dlc-run-batch beside dlc, if built)")
    ap.add_argument("--no-batch", action="store_true",
                    help="run every case with dlc alone (a process per data set)")
    ap.add_argument("--timeout", type=float, default=60, help="seconds per dlc run")
    ap.add_argument("--update", action="store_true",
                    help="rewrite expected-pass.txt and docs/Conformance.md (full runs only)")
    ap.add_argument("--json", type=Path, metavar="FILE", help="write per-case results here")
    ap.add_argument("--report", action="store_true",
                    help="print failures grouped by reason, most common first")
    ap.add_argument("--list-string-cases", action="store_true",
                    help="print the cases that use string tensors (out-of-scope candidates)")
    ap.add_argument("--dynamic", action="store_true",
                    help="the dynamic variant: every input dim of size >= 2 symbolic, each "
                         "case compiled once with --dims and run (test/conformance/dynamic.py); "
                         "checked against expected-pass-dynamic.txt")
    ap.add_argument("-q", "--quiet", action="store_true", help="no progress lines")
    return ap.parse_args(argv)


def read_dynamic_summary() -> dict | None:
    """What the last `--dynamic --update` recorded (for docs/Conformance.md)."""
    if not DYNAMIC_SUMMARY_FILE.exists():
        return None
    return json.loads(DYNAMIC_SUMMARY_FILE.read_text())


def select_cases(all_cases: list[str], args) -> list[str]:
    if not args.cases and not args.patterns:
        return all_cases
    unknown = [c for c in args.cases if c not in all_cases]
    if unknown:
        sys.exit(f"conformance: unknown case(s): {' '.join(unknown)}")
    chosen = set(args.cases)
    for pat in args.patterns:
        glob = any(ch in pat for ch in "*?[")
        chosen.update(c for c in all_cases
                      if (fnmatch.fnmatchcase(c, pat) if glob else pat in c))
    if not chosen:
        sys.exit("conformance: no case matches " + " ".join(args.patterns))
    return sorted(chosen)


def main(argv=None) -> int:
    args = parse_args(argv)
    subset = bool(args.cases or args.patterns)
    if args.update and subset:
        sys.exit("conformance: --update needs a full run (no -k / case names), so that "
                 "expected-pass.txt and docs/Conformance.md describe every case")
    datadir = args.build_dir / "conformance" / "data"
    index = casedata.ensure_data(datadir, quiet=args.quiet)
    all_cases = sorted(index)

    if args.list_string_cases:
        for c in all_cases:
            if casedata.uses_string(onnx.load(str(datadir / c / "model.onnx"))):
                print(c)
        return 0

    if not args.dlc.exists():
        sys.exit(f"conformance: {args.dlc} not found (build dlc first, or pass --dlc)")
    help_text = subprocess.run([str(args.dlc), "run", "--help"], capture_output=True,
                               text=True, errors="replace").stdout
    if "--output-format" not in help_text:
        sys.exit(f"conformance: {args.dlc} run has no --output-format (needed for .pb "
                 "outputs); rebuild dlc")
    scope = read_out_of_scope(OUT_OF_SCOPE_FILE)
    for pattern, _ in scope:
        if not any(fnmatch.fnmatchcase(c, pattern) for c in all_cases):
            print(f"conformance: warning: out-of-scope pattern {pattern!r} matches no case",
                  file=sys.stderr)
    cases = select_cases(all_cases, args)
    if args.no_batch or args.dynamic:
        args.batch = None
    elif args.batch is None and (args.dlc.parent / "dlc-run-batch").exists():
        args.batch = args.dlc.parent / "dlc-run-batch"
    if args.batch is not None and not args.batch.exists():
        sys.exit(f"conformance: {args.batch} not found (build it, or leave out --batch)")
    runner = Runner(args.dlc.resolve(), datadir, args.build_dir / "conformance" / "tmp",
                    index, args.timeout, scope,
                    args.batch.resolve() if args.batch is not None else None, args.dynamic)

    t0 = time.perf_counter()
    results: list[Result] = []
    with ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        for i, res in enumerate(pool.map(runner.run, cases), 1):
            results.append(res)
            if not args.quiet and (i % 200 == 0 or i == len(cases)):
                npass = sum(r.status == PASS for r in results)
                print(f"conformance: [{i}/{len(cases)}] {npass} passed, "
                      f"{time.perf_counter() - t0:.0f}s", file=sys.stderr)
    runner.close()
    wall = time.perf_counter() - t0
    passed_alone = sorted(set(runner.batch_only_failures) &
                          {r.case for r in results if r.status == PASS})
    if passed_alone:
        print(f"warning: {len(passed_alone)} case(s) failed in a dlc-run-batch process but "
              f"passed alone (state left by an earlier case?): {' '.join(passed_alone[:10])}")

    passed = {r.case for r in results if r.status == PASS}
    print(report.summary_text(results, wall))

    if args.json:
        args.json.write_text(json.dumps(
            {"onnx_version": onnx.__version__, "dlc": str(args.dlc),
             "total": len(results), "passed": len(passed),
             "results": [asdict(r) for r in results]}, indent=1) + "\n")
    if args.report:
        print(report.failure_report(results))

    expected_file = EXPECTED_DYNAMIC_FILE if args.dynamic else EXPECTED_FILE
    expected = read_names(expected_file)
    by_case = {r.case: r for r in results}
    regressions = sorted(c for c in expected if c in by_case and c not in passed)
    new_passes = sorted(passed - expected)
    stale = sorted(expected - set(all_cases))
    if stale:
        print(f"warning: {len(stale)} case(s) in expected-pass.txt do not exist for onnx "
              f"{onnx.__version__}: {' '.join(stale[:10])}{' ...' if len(stale) > 10 else ''}")

    if args.update:
        expected_file.write_text("".join(f"{c}\n" for c in sorted(passed)))
        if args.dynamic:  # the doc's dynamic section, kept for static updates too
            DYNAMIC_SUMMARY_FILE.write_text(json.dumps(report.dynamic_summary(results),
                                                       indent=1) + "\n")
            DOC_FILE.write_text(report.replace_dynamic_section(
                DOC_FILE.read_text(), report.dynamic_summary(results)))
        else:
            DOC_FILE.write_text(report.markdown(results, scope, onnx.__version__,
                                                read_dynamic_summary()))
        print(f"updated {expected_file.relative_to(ROOT)} ({len(passed)} cases) and "
              f"{DOC_FILE.relative_to(ROOT)}"
              + (f"; {len(regressions)} case(s) dropped from the expected list"
                 if regressions else ""))
        return 0

    if new_passes:
        print(f"new passes: {len(new_passes)} (run with --update to record)")
        if subset or len(new_passes) <= 20:
            for c in new_passes:
                print(f"  {c}")
    if regressions:
        print(f"REGRESSIONS: {len(regressions)} case(s) in {expected_file.name} now fail:")
        for c in regressions:
            print(f"  {c}: {by_case[c].status}: {by_case[c].reason}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

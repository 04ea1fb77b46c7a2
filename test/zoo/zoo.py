#!/usr/bin/env python3
# The model zoo: exports real architectures, compiles them with dlc and compares with ONNX Runtime.
"""Model zoo: real torchvision / transformers architectures (random weights) through dlc.

For each architecture and exporter: export it (cached), ask `dlc check` whether dlc takes it
(if not, the architecture is listed as unsupported with check's reason), compile it with
`dlc compile`, run it with `dlc run` at each thread count and compare every output with
ONNX Runtime (CPU EP) on the same inputs: max |dlc - ORT| / max |ORT| must be <= --tol.
With --timing, also time it single-threaded with `dlc bench` and ORT (median latency).

Where the difference exceeds --tol, torch's float64 outputs (saved at export) decide: dlc
passes if it is at most twice as far from them as ORT (float32 rounding, noted in the row).

Exit code 1 when a model dlc check accepts fails to compile, crashes, or mismatches.
Run it through scripts/zoo, which creates the torch venv it needs.
"""
from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
from architectures import EXPORTERS, REGISTRY  # noqa: E402
sys.path.insert(0, str(HERE.parent / "e2e"))
from models import sanitize_name as sanitize  # noqa: E402  (the stem `dlc run` writes)



def one_line(text: str, limit: int = 240) -> str:
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    errs = [ln for ln in lines if ln.startswith("error:")]
    s = "; ".join(errs or lines[-1:])
    return s if len(s) <= limit else s[:limit - 3] + "..."


def versions() -> dict:
    out = {}
    for mod in ("torch", "torchvision", "transformers", "onnx", "onnxruntime"):
        try:
            out[mod] = __import__(mod).__version__
        except Exception:
            out[mod] = "-"
    return out


class Case:
    def __init__(self, arch, exporter, cache: Path):
        self.arch, self.exporter = arch, exporter
        self.dir = cache / arch.name / exporter
        self.result = {"model": arch.name, "family": arch.family, "exporter": exporter}

    # -- steps ---------------------------------------------------------------
    def export(self, refresh: bool, timeout: int) -> bool:
        meta_path = self.dir / "export.json"
        if refresh or not meta_path.exists():
            shutil.rmtree(self.dir, ignore_errors=True)
            self.dir.mkdir(parents=True)
            try:
                r = subprocess.run([sys.executable, str(HERE / "export.py"), self.arch.name,
                                    self.exporter, str(self.dir)], capture_output=True,
                                   text=True, timeout=timeout)
                log = r.stdout + r.stderr
            except subprocess.TimeoutExpired:
                log = ""
                meta_path.write_text(json.dumps({"ok": False,
                                                 "error": f"export timed out ({timeout} s)"}))
            (self.dir / "export.log").write_text(log)
            if not meta_path.exists():
                meta_path.write_text(json.dumps({"ok": False, "error": one_line(log)}))
        meta = json.loads(meta_path.read_text())
        if not meta["ok"]:
            self.result.update(status="export failed", error=meta["error"])
            return False
        self.inputs = meta["inputs"]
        return True

    def dlc(self, dlc: str, *args, timeout=600):
        return subprocess.run([dlc, *args], capture_output=True, text=True, timeout=timeout)

    def check(self, dlc: str) -> bool:
        r = self.dlc(dlc, "check", str(self.dir / "model.onnx"))
        if r.returncode == 0:
            return True
        text = r.stdout.replace(str(self.dir / "model.onnx") + ": ", "")
        reason = "; ".join(ln.strip().rstrip(":") for ln in text.splitlines() if ln.strip())
        self.result.update(status="unsupported", error=reason or one_line(r.stderr))
        return False

    def reference(self) -> bool:
        import onnxruntime as ort
        self.feeds = {n: np.load(self.dir / f"input_{n}.npy") for n in self.inputs}
        try:
            sess = ort.InferenceSession(str(self.dir / "model.onnx"),
                                        providers=["CPUExecutionProvider"])
            self.out_names = [o.name for o in sess.get_outputs()]
            self.ref = sess.run(None, self.feeds)
            other = sess.run(None, perturbed(self.feeds))
            if all(np.array_equal(a, b) for a, b in zip(self.ref, other)):
                self.result["note"] = "the output does not depend on the input"
        except Exception as e:
            self.result.update(status="reference failed", error=one_line(str(e)))
            return False
        return True

    def compile(self, dlc: str, timeout: int) -> bool:
        t0 = time.perf_counter()
        try:
            r = self.dlc(dlc, "compile", str(self.dir / "model.onnx"), "-o",
                         str(self.dir / "model.so"), timeout=timeout)
        except subprocess.TimeoutExpired:
            self.result.update(status="FAIL", error=f"dlc compile timed out ({timeout} s)")
            return False
        self.result["compile_s"] = round(time.perf_counter() - t0, 2)
        if r.returncode:
            self.result.update(status="FAIL", error="compile: " + one_line(r.stderr))
            return False
        return True

    def run(self, dlc: str, threads: int, tol: float) -> bool:
        args = [a for n in self.inputs for a in ("--input", f"{n}={self.dir / f'input_{n}.npy'}")]
        with tempfile.TemporaryDirectory() as d:
            try:
                r = self.dlc(dlc, "run", str(self.dir / "model.so"), *args, "--threads",
                             str(threads), "--output-dir", d, timeout=600)
            except subprocess.TimeoutExpired:
                self.result.update(status="FAIL", error=f"dlc run --threads {threads} timed out")
                return False
            if r.returncode:
                self.result.setdefault("error", f"run --threads {threads}: " +
                                       one_line(r.stderr))
                self.result["status"] = "FAIL"
                return False
            worst, got_all = 0.0, []
            for name, ref in zip(self.out_names, self.ref):
                path = Path(d) / (sanitize(name) + ".npy")
                if not path.exists():
                    self.result.update(status="FAIL", error=f"no output '{name}'")
                    return False
                got = np.load(path)
                got_all.append(got)
                err = compare(got, ref)
                if err is None:
                    self.result.update(status="FAIL", error=f"output '{name}': shape "
                                       f"{list(got.shape)}, ORT {list(ref.shape)}")
                    return False
                worst = max(worst, err)
        self.result.setdefault("rel_err", {})[str(threads)] = float(f"{worst:.3g}")
        if worst > tol and not self.rounding(got_all, tol):
            if "error" not in self.result:
                self.result.update(status="FAIL", error=f"rel. error {worst:.3g} > {tol:g} "
                                                        f"at {threads} thread(s)")
            return False
        return True

    def rounding(self, got: list, tol: float) -> bool:
        """Whether dlc's difference from ORT is float32 rounding: against torch's float64
        outputs (the ground truth) dlc is off by at most max(tol, 2 x ORT's own error).
        Notes both errors in the result."""
        refs64 = [self.dir / f"ref64_{i}.npy" for i in range(len(got))]
        if not all(p.exists() for p in refs64):
            return False
        dlc64 = ort64 = 0.0
        for g, r, p in zip(got, self.ref, refs64):
            t = np.load(p)
            if t.shape != r.shape:
                return False
            scale = max(float(np.abs(t).max()), 1e-30)
            dlc64 = max(dlc64, float(np.abs(g - t).max()) / scale)
            ort64 = max(ort64, float(np.abs(r - t).max()) / scale)
        self.result["note"] = (f"float32 rounding: vs float64 torch, dlc {dlc64:.2g}, "
                               f"ORT {ort64:.2g}")
        return dlc64 <= max(tol, 2 * ort64)

    def timing(self, dlc: str):
        args = [a for n in self.inputs for a in ("--input", f"{n}={self.dir / f'input_{n}.npy'}")]
        r = self.dlc(dlc, "bench", str(self.dir / "model.so"), "--threads", "1", "--runs", "20",
                     *args, timeout=900)
        m = re.search(r"median\s+([\d.]+)\s*(us|ms)", r.stdout)
        if r.returncode or not m:
            return
        dlc_ms = float(m.group(1)) / (1000.0 if m.group(2) == "us" else 1.0)
        import onnxruntime as ort
        so = ort.SessionOptions()
        so.intra_op_num_threads = 1
        so.inter_op_num_threads = 1
        sess = ort.InferenceSession(str(self.dir / "model.onnx"), so,
                                    providers=["CPUExecutionProvider"])
        for _ in range(3):
            sess.run(None, self.feeds)
        times = []
        for _ in range(20):
            t0 = time.perf_counter()
            sess.run(None, self.feeds)
            times.append(time.perf_counter() - t0)
        ort_ms = float(np.median(times)) * 1000
        self.result.update(dlc_ms=round(dlc_ms, 3), ort_ms=round(ort_ms, 3))


def perturbed(feeds: dict) -> dict:
    """Other inputs of the same shapes and ranges (to tell whether the output depends on them)."""
    rng = np.random.default_rng(1)
    out = {}
    for k, v in feeds.items():
        if np.issubdtype(v.dtype, np.floating):
            out[k] = rng.standard_normal(v.shape).astype(v.dtype)
        else:
            out[k] = rng.integers(v.min(), v.max() + 1, v.shape).astype(v.dtype)
    return out


def compare(got: np.ndarray, ref: np.ndarray):
    """max |got - ref| / max |ref| (NaN where ref has none counts as a mismatch); None when
    the shapes differ."""
    if got.shape != ref.shape:
        return None
    g, r = got.astype(np.float64), ref.astype(np.float64)
    nan_g, nan_r = np.isnan(g), np.isnan(r)
    if (nan_g != nan_r).any():
        return float("inf")
    finite = ~nan_r
    g, r = g[finite], r[finite]
    if g.size == 0:
        return 0.0
    inf_r = np.isinf(r)
    if (g[inf_r] != r[inf_r]).any():
        return float("inf")
    g, r = g[~inf_r], r[~inf_r]
    if g.size == 0:
        return 0.0
    scale = max(float(np.abs(r).max()), 1e-30)
    return float(np.abs(g - r).max()) / scale


# ---------------------------------------------------------------------------
# Report
# ---------------------------------------------------------------------------

def write_report(path: Path, results: list[dict], meta: dict):
    rows = sorted(results, key=lambda r: ([a.name for a in REGISTRY].index(r["model"])
                                          if r["model"] in {a.name for a in REGISTRY} else 999,
                                          r["exporter"]))
    count = lambda s: sum(1 for r in rows if r["status"] == s)  # noqa: E731
    archs = {r["model"] for r in rows}
    passed = {r["model"] for r in rows if r["status"] == "pass"}
    lines = [
        "# Model zoo",
        "",
        "<!-- Generated by scripts/zoo (test/zoo/zoo.py); do not edit by hand. -->",
        "",
        "Real architectures from torchvision and transformers with random weights (seeded),",
        "exported with both `torch.onnx` exporters (`torchscript`: `dynamo=False`, opset 17;",
        "`dynamo`: `dynamo=True`), compiled with `dlc compile` and run with `dlc run` at "
        f"{' and '.join(meta['threads'])} thread(s), compared with ONNX Runtime on the same",
        f"inputs: max |dlc - ORT| / max |ORT| <= {meta['tol']:g} on every output, or, where",
        "float32 rounding alone exceeds that (deep segmentation nets), dlc is at most twice as",
        "far as ORT from torch's float64 outputs on the same weights (noted in the row). The",
        "transformers models are the real model classes with small configs (2 layers, hidden",
        "size 128): the structure (masks, attention, normalization, positional encoding) is the",
        "architecture's own. Latency: median of 20 single-threaded runs, `dlc bench` and ORT",
        "(`ORT_ENABLE_ALL`, one intra-op thread) measured in the same run.",
        "",
        f"Run {meta['date']} on {meta['cpu']}; " +
        ", ".join(f"{k} {v}" for k, v in meta["versions"].items()) + ".",
        "",
        f"**{len(archs)} architectures, {len(rows)} exports: {count('pass')} pass, "
        f"{count('FAIL')} fail, {count('unsupported')} unsupported by dlc (`dlc check`), "
        f"{count('export failed')} not exportable by torch, "
        f"{count('reference failed')} not run by ORT.** "
        f"{len(passed)} architectures pass with at least one exporter.",
        "",
        "| Model | Family | Exporter | Result | Rel. error (1T / 2T) | Compile (s) "
        "| dlc (ms) | ORT (ms) | dlc / ORT | Error or reason |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        errs = r.get("rel_err", {})
        err = " / ".join(f"{errs[t]:.1e}" for t in meta["threads"] if t in errs) or "-"
        ratio = (f"{r['dlc_ms'] / r['ort_ms']:.2f}" if r.get("dlc_ms") and r.get("ort_ms")
                 else "-")
        reason = (r.get("error", "") or r.get("note", "")).replace("|", "\\|")
        lines.append(f"| {r['model']} | {r['family']} | {r['exporter']} | {r['status']} | {err} "
                     f"| {r.get('compile_s', '-')} | {r.get('dlc_ms', '-')} "
                     f"| {r.get('ort_ms', '-')} | {ratio} | {reason} |")
    unsupported = [r for r in rows if r["status"] in ("unsupported", "export failed")]
    if unsupported:
        lines += ["", "## Not run, and why", ""]
        for r in unsupported:
            lines.append(f"- **{r['model']}** ({r['exporter']}): {r['status']}: "
                         f"{r.get('error', '')}")
    path.write_text("\n".join(lines) + "\n")


# ---------------------------------------------------------------------------

def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--ci", action="store_true",
                    help="only the CI subset (one exporter each), as scripts/test runs it")
    ap.add_argument("-k", dest="pattern", help="only architectures whose name matches this regex")
    ap.add_argument("--exporter", choices=(*EXPORTERS, "both"), default="both")
    ap.add_argument("--threads", default="1,2", help="thread counts to run at (default 1,2)")
    ap.add_argument("--tol", type=float, default=1e-4, help="max relative error (default 1e-4)")
    ap.add_argument("--dlc", default=str(ROOT / "build/bin/dlc"))
    ap.add_argument("--cache", default=os.environ.get("DLC_ZOO_CACHE", str(ROOT / ".zoo-cache")),
                    help="exports are cached here (default .zoo-cache, or $DLC_ZOO_CACHE)")
    ap.add_argument("--refresh", action="store_true", help="re-export even when cached")
    ap.add_argument("--timing", action="store_true", help="also time dlc and ORT (1 thread)")
    ap.add_argument("--report", help="write the Markdown report here (e.g. docs/Models.md)")
    ap.add_argument("--list", action="store_true", help="list the architectures and exit")
    ap.add_argument("--export-timeout", type=int, default=900)
    ap.add_argument("--compile-timeout", type=int, default=1200)
    args = ap.parse_args()

    archs = [a for a in REGISTRY if (not args.ci or a.ci)
             and (not args.pattern or re.search(args.pattern, a.name))]
    if args.list:
        for a in archs:
            print(f"{a.name:40s} {a.family:40s} {'ci' if a.ci else ''}")
        return 0
    if not os.access(args.dlc, os.X_OK):
        print(f"error: dlc not found at {args.dlc} (run scripts/setup)", file=sys.stderr)
        return 1
    vers = versions()
    cache = Path(args.cache) / f"torch-{vers['torch']}"
    threads = [t.strip() for t in args.threads.split(",") if t.strip()]
    results, failed = [], 0
    for a in archs:
        exporters = [a.ci_exporter] if args.ci else [
            e for e in a.exporters if args.exporter in ("both", e)]
        for e in exporters:
            c = Case(a, e, cache)
            t0 = time.perf_counter()
            ok = (c.export(args.refresh, args.export_timeout) and c.check(args.dlc)
                  and c.reference() and c.compile(args.dlc, args.compile_timeout)
                  and all([c.run(args.dlc, int(t), args.tol) for t in threads]))
            if ok:
                c.result["status"] = "pass"
                if args.timing:
                    c.timing(args.dlc)
            failed += c.result["status"] == "FAIL"
            r = c.result
            errs = " ".join(f"{t}T {v:.1e}" for t, v in r.get("rel_err", {}).items())
            print(f"{r['status']:16s} {a.name:34s} {e:12s} {errs:22s} "
                  f"{(r.get('error') or r.get('note', ''))[:160]}  [{time.perf_counter() - t0:.0f} s]", flush=True)
            results.append(r)
            if r["status"] in ("pass", "unsupported"):  # keep the cache small: drop the .so
                (c.dir / "model.so").unlink(missing_ok=True)

    # Merge with earlier results (a -k rerun updates only its rows) and write the report.
    store = Path(args.cache) / "results.json"
    if not args.ci:
        old = json.loads(store.read_text()) if store.exists() else []
        done = {(r["model"], r["exporter"]) for r in results}
        merged = [r for r in old if (r["model"], r["exporter"]) not in done] + results
        store.write_text(json.dumps(merged, indent=1))
        results = merged
    if args.report:
        cpu = platform.processor() or platform.machine()
        try:
            for ln in open("/proc/cpuinfo"):
                if ln.startswith("model name"):
                    cpu = ln.split(":", 1)[1].strip()
                    break
        except OSError:
            pass
        write_report(Path(args.report), results,
                     {"threads": threads, "tol": args.tol, "versions": vers, "cpu": cpu,
                      "date": datetime.date.today().isoformat()})
    print(f"zoo: {sum(r['status'] == 'pass' for r in results)} pass, {failed} fail "
          f"(of {len(results)} exports)")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

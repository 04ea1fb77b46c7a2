# Renders bench/run results (the JSON of bench/run.py) as docs/Performance.md.
"""Markdown report for bench/run results: ``markdown(data)`` is the whole of docs/Performance.md."""
from __future__ import annotations

ENGINE_NAMES = {"dlc": "dlc", "ort": "ORT", "iree": "IREE"}


def fmt_ms(ms: float) -> str:
    if ms < 0.01:
        return f"{ms * 1e3:.2f} µs"
    if ms < 1.0:
        return f"{ms * 1e3:.1f} µs"
    if ms < 1000.0:
        return f"{ms:.2f} ms" if ms < 100 else f"{ms:.1f} ms"
    return f"{ms / 1e3:.2f} s"


def fmt_s(s: float) -> str:
    return f"{s * 1e3:.0f} ms" if s < 1.0 else f"{s:.2f} s"


def fmt_mb(mb: float | None) -> str:
    return "—" if mb is None else f"{mb:.0f}"


def _ok(r: dict | None) -> bool:
    return bool(r) and r.get("status") == "ok" and "median_ms" in r


class _Notes:
    """Numbered footnotes for failed/wrong cells: one per engine and distinct message,
    listing the models (and thread counts) it applies to."""

    def __init__(self):
        self.keys: list[str] = []
        self.where: dict[str, list[str]] = {}

    def ref(self, engine: str, message: str, where: str) -> str:
        key = f"{engine}: {message}"
        if key not in self.where:
            self.keys.append(key)
            self.where[key] = []
        if where not in self.where[key]:
            self.where[key].append(where)
        return f"[{self.keys.index(key) + 1}]"

    @property
    def items(self) -> list[str]:
        return [f"{k} ({', '.join(self.where[k])})" for k in self.keys]


def _latency_cell(r: dict | None, notes: _Notes, engine: str, where: str) -> str:
    if not r:
        return "—"
    if _ok(r):
        return fmt_ms(r["median_ms"])
    st = r.get("status", "error")
    if st == "unavailable":
        return "n/a " + notes.ref(engine, f"unavailable ({r.get('error', '')})", where)
    label = "WRONG" if st == "wrong" else "FAIL"
    extra = f" ({fmt_ms(r['median_ms'])})" if "median_ms" in r else ""
    return f"{label}{extra} " + notes.ref(engine, r.get("error", st), where)


def _ratio(a: dict | None, b: dict | None) -> str:
    if _ok(a) and _ok(b):
        return f"{a['median_ms'] / b['median_ms']:.2f}×"
    return "—"


def _rate_cell(m: dict, r: dict | None, n: int, machine: dict) -> str:
    """GFLOP/s and % of the n-core FMA peak, or GB/s and % of bandwidth for memory-bound models."""
    if not _ok(r):
        return "—"
    sec = r["median_ms"] * 1e-3
    by = machine.get("by_threads", {}).get(str(n), {})
    if m.get("memory_bound"):
        gbs = m["bytes"] / sec * 1e-9
        bw = max(by.get("copy_gbs", 0), by.get("triad_gbs", 0))
        return f"{gbs:.1f} GB/s" + (f" ({100 * gbs / bw:.0f}% BW)" if bw else "")
    if not m.get("flops"):
        return "—"
    gf = m["flops"] / sec * 1e-9
    # int8 rows: of the int8 dot-product peak (VNNI, or AVX2's vpmaddwd), in GOP/s; bf16
    # rows: of the bf16 peak (vdpbf16ps), or the fp32 one on CPUs without AVX512-BF16.
    key = ("peak_int8_gops_per_core" if m.get("int8") else
           "peak_bf16_gflops_per_core" if m.get("bf16") and machine.get("peak_bf16_gflops_per_core")
           else "peak_gflops_per_core")
    peak = (machine.get(key) or 0) * n
    return f"{gf:.1f}" + (f" ({100 * gf / peak:.0f}%)" if peak else "")


def _rss(runs: dict) -> str:
    return " / ".join(fmt_mb(runs.get(e, {}).get("rss_mb")) for e in ("dlc", "ort", "iree"))


def thread_table(data: dict, n: int, notes: _Notes) -> list[str]:
    machine = data.get("machine", {})
    lines = [f"### {n} thread{'s' if n > 1 else ''}", "",
             "| model | dlc | ORT | IREE | dlc/ORT | dlc/IREE | dlc GFLOP/s (% peak) | "
             "ORT GFLOP/s (% peak) | IREE GFLOP/s (% peak) | peak RSS MB dlc / ORT / IREE |",
             "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|"]
    for name, m in data["models"].items():
        runs = m["runs"].get(str(n))
        if not runs:
            continue
        cells = [_latency_cell(runs.get(e), notes, ENGINE_NAMES[e], f"{name} {n}T")
                 for e in ("dlc", "ort", "iree")]
        cells += [_ratio(runs.get("dlc"), runs.get(e)) for e in ("ort", "iree")]
        cells += [_rate_cell(m, runs.get(e), n, machine) for e in ("dlc", "ort", "iree")]
        cells.append(_rss(runs))
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return lines + [""]


def compile_table(data: dict, notes: _Notes) -> list[str]:
    lines = ["| model | dlc compile | ORT session creation | IREE import + compile | "
             "peak RSS MB dlc / IREE compile |", "|---|--:|--:|--:|--:|"]
    for name, m in data["models"].items():
        c = m["compile"]
        first = next(iter(m["runs"].values()), {})

        def cell(r, what):
            if r and r.get("status") == "ok":
                return fmt_s(r["time_s"])
            return _latency_cell(r, notes, what, f"{name} compile")
        ort = first.get("ort", {})
        ort_cell = fmt_s(ort["compile_s"]) if "compile_s" in ort else "—"
        rss = " / ".join(fmt_mb(c.get(e, {}).get("rss_mb")) for e in ("dlc", "iree"))
        lines.append(f"| {name} | {cell(c.get('dlc'), 'dlc')} | {ort_cell} | "
                     f"{cell(c.get('iree'), 'IREE')} | {rss} |")
    return lines + [""]


def machine_section(data: dict) -> list[str]:
    m = data.get("machine", {})
    h = data.get("host", {})
    lines = [f"CPU: {h.get('cpu', '?')}, {h.get('cores', '?')} cores.", ""]
    if "error" in m:
        return lines + [f"Machine figures unavailable: {m['error']}", ""]
    lines += ["| threads | fp32 FMA GFLOP/s | int8 GOP/s | copy GB/s | triad GB/s |",
              "|--:|--:|--:|--:|--:|"]
    for n, v in m["by_threads"].items():
        int8 = f"{v['int8_gops']:.1f}" if v.get("int8_gops") else "—"
        lines.append(f"| {n} | {v['fma_gflops']:.1f} | {int8} | {v['copy_gbs']:.1f} | "
                     f"{v['triad_gbs']:.1f} |")
    lines += ["", f"Peak per core: **{m['peak_gflops_per_core']:.1f} GFLOP/s** fp32 "
              f"({m['isa']} FMA, `bench/machine.c`, {m.get('compiler', 'clang')} -O2 "
              "-march=native, "
              "12 independent accumulator chains per thread). \"% peak\" below is of "
              "threads × this per-core figure (int8 rows: of the int8 dot-product peak, "
              "VNNI `vpdpbusd` where the CPU has it, else AVX2's exact `vpmaddwd` + `vpaddd` on "
              "i16-widened values, in GOP/s); \"% BW\" is of the larger of copy and triad at "
              "that thread count (arrays of 256 MiB, STREAM-style byte counts).", ""]
    return lines


def models_section(data: dict) -> list[str]:
    lines = ["| model | what | GFLOP (MatMul/Gemm/Conv) | MB in + out + weights |",
             "|---|---|--:|--:|"]
    for name, m in data["models"].items():
        gf = f"{m['flops'] / 1e9:.3f}" if m.get("flops") else "—"
        lines.append(f"| {name} | {m['about']} | {gf} | {m['bytes'] / 2**20:.1f} |")
    return lines + [""]


def tables_only(data: dict) -> str:
    notes = _Notes()
    lines = []
    for n in data["settings"]["threads"]:
        lines += thread_table(data, n, notes)
    lines += ["### Compile time", ""] + compile_table(data, notes)
    lines += [f"[{i + 1}] {t}" for i, t in enumerate(notes.items)]
    return "\n".join(lines)


def markdown(data: dict) -> str:
    h, v, s = data["host"], data["versions"], data["settings"]
    dirty = " (with uncommitted changes)" if h.get("dlc_dirty") else ""
    tiny = data["models"].get("tiny_add", {}).get("runs", {}).get("1", {}).get("dlc", {})
    lines = [
        "# Performance", "",
        "<!-- Generated by bench/run (bench/run.py, bench/report.py); do not edit by hand. -->", "",
        f"Produced by `{data['command']}` (by hand, never in CI). Measured on "
        f"{data['started'][:10]}: dlc {h.get('dlc_commit', '?')}{dirty} (binary built "
        f"{h.get('dlc_binary_mtime', '?').replace('T', ' ')}), onnxruntime "
        f"{v.get('onnxruntime', '?')}, IREE {v.get('iree') or 'n/a'}, "
        f"{s['runs']} timed runs after {s['warmup']} warm-up runs (and at least 0.2 s of warm-up)"
        + (f", in {s['rounds']} rounds that interleave the engines; each engine's latency is "
           f"its lowest round median" if s.get("rounds", 1) > 1 else "")
        + f"{' (--quick: not meaningful)' if s.get('quick') else ''}. "
        f"Load average before/after: {data['loadavg_start'][0]:.2f} / "
        f"{data.get('loadavg_end', [0])[0]:.2f}.", "",
        "The machine is shared and noisy: only ratios measured in the same run are meaningful.",
        "Raw numbers: `bench/results/latest.json` after a run (not committed).", "",
        "## Machine", "", *machine_section(data),
        "## Models", "",
        "Random weights, fixed seed (`bench/models.py`, networks from `test/e2e/models.py`); "
        "FLOPs count MatMul/Gemm/Conv only (2 per multiply-add).", "",
        *models_section(data),
        "For the memory-bound model (layernorm_gelu) the table gives GB/s instead of GFLOP/s: "
        "its input and output once each over the median latency, against the stream bandwidth "
        "above (its 32 MiB are about the size of L3 here, so part may stay cached between runs).",
        "",
        "## Latency (median)", "",
        "dlc/ORT and dlc/IREE are latency ratios: below 1× dlc is faster. GFLOP/s is the "
        "model's FLOP count over the median latency. Peak RSS is that of the timing process "
        "(`bench/dlc_runner.c`: the C runtime alone, or a Python worker with ONNX Runtime / the "
        "IREE runtime loaded).", "",
    ]
    notes = _Notes()
    for n in s["threads"]:
        lines += thread_table(data, n, notes)
    if _ok(tiny):
        lines += [f"tiny_add through dlc's runtime API (`bench/dlc_runner.c`, 1 thread): median "
                  f"{fmt_ms(tiny['median_ms'])} per call, min {fmt_ms(tiny['min_ms'])}.", ""]
    lines += ["## Compile time", "",
              "Wall time of `dlc compile` (to a .so), of ONNX Runtime's session creation "
              "(graph optimization, 1-thread run), and of `iree-import-onnx` + `iree-compile`; "
              "peak RSS of the compiler processes.", "", *compile_table(data, notes)]
    if notes.items:
        lines += ["## Failures", ""] + [f"{i + 1}. {t}" for i, t in enumerate(notes.items)] + [""]
    rtol = f"{s.get('rtol', 1e-4):.0e}".replace("e-0", "e-")
    lines += [
        "## How it is measured", "",
        f"- Every engine's outputs are checked against ONNX Runtime with graph optimizations "
        f"disabled: max|a−b| / max|ref| ≤ {rtol}; a larger error is WRONG, "
        "a failing compile or run is FAIL (error lines under Failures).",
        "- dlc: `dlc compile MODEL.onnx -o MODEL.so`, checked with `dlc run MODEL.so --threads N`, "
        "timed by `bench/dlc_runner.c` (built against the runtime library of the dlc under "
        "test: `dlc_module_load`, `dlc_session_run` in a C timing loop, no compiler libraries "
        "in the process) with N threads in the session; the generated code splits the outer "
        "tile loops of big ops over them.",
        "- ONNX Runtime: `bench/engine_ort.py`, CPU execution provider, ORT_ENABLE_ALL, "
        "intra_op_num_threads N, sequential execution; `session.run` timed from Python "
        "(a few µs of call overhead included).",
        "- IREE: `iree-import-onnx`, `iree-compile --iree-hal-target-backends=llvm-cpu "
        "--iree-llvmcpu-target-cpu=host`; `bench/engine_iree.py` runs it on the local-task "
        "driver with `--task_topology_group_count=N`, inputs uploaded once, timed from Python.",
        "- Each engine × model × thread count runs in a fresh process. Peak RSS comes from "
        "`wait4` in `bench/rusage.c`, a small launcher (so the Python driver's own RSS does not "
        "leak into the children's figures). It includes each engine's fixed cost: dlc_runner "
        "is a C program with libdlc_runtime, the others a Python interpreter with the runtime "
        "imported; the tiny_add row shows that baseline.",
        "- `% peak` uses threads × the 1-thread FMA figure (the 2-thread FMA and bandwidth "
        "figures above are what two cores gave at the time, with whatever else was running).",
        "",
    ]
    return "\n".join(lines)

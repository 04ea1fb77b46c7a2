"""Summaries of conformance results: the console summary, the --report failure
breakdown, and docs/Conformance.md.

Reasons are shortened in two steps:

* ``short_reason``: the dlc error line without the "error:" prefix, file paths and node
  names (``node 'Foo_0' (Foo, opset 13): msg`` becomes ``Foo: msg``), with ONNX data type
  numbers named, value-mismatch details dropped, at most ~80 characters.  Used per op.
* ``category``: ``short_reason`` without the op, quoted names and numbers, so that one
  kind of failure across ops and cases is one line.  Used to group failures.
"""
from __future__ import annotations

import fnmatch
import re
from collections import Counter, defaultdict

import casedata

PASS = "pass"
STATUS_ORDER = ["pass", "wrong-result", "error", "crash", "timeout", "out-of-scope",
                "runner-error"]

_NODE_RE = re.compile(r"node '[^']*' \(([A-Za-z0-9_]+), opset \d+\): ")


# The explanation of each op's remaining static failures (docs/Conformance.md).
WHY_FAILING = {
    "Bernoulli": "the expected outputs are draws from NumPy's global random generator, which "
                 "no other implementation reproduces (ONNX Runtime fails them too); "
                 "dlc has no random ops yet",
    "RandomUniformLike": "Bernoulli's `_expanded` cases: random draws, as above",
    "Dropout": "training-mode Dropout draws a random mask (the expected one is NumPy's); "
               "inference Dropout passes",
    "Attention": "fp16 `_expanded` cases: the function body rounds to fp16 after every op, "
                 "where dlc's fused kernels keep f32 between ops; results differ by 1 fp16 ulp",
    "CausalConvWithState": "value mismatch of the state output, not investigated yet",
    "DFT": "inverse DFT: 10 of 200 near-zero elements differ by 1.9e-7, past the case's atol "
           "of 1e-7 (dlc computes in f64 and rounds once)",
    "Scan": "opset-8 Scan (batched, with sequence_lens) is not implemented; opset 9+ Scan is",
}


def failing_op(reason: str) -> str | None:
    """The op of the node a dlc error names, if any."""
    m = _NODE_RE.search(reason)
    return m.group(1) if m else None


def short_reason(reason: str, max_len: int = 80) -> str:
    r = reason.strip()
    r = re.sub(r"^error:\s*", "", r)
    r = re.sub(r"^\S*model\.onnx:\s*", "", r)                       # model path
    r = re.sub(r"^\S*/(input_\d+)\.pb:\s*", r"\1: ", r)              # input file path
    r = _NODE_RE.sub(lambda m: f"{m.group(1)}: ", r, count=1)       # node name
    r = re.sub(r"(data type )(\d+)",
               lambda m: m.group(1) + casedata.dtype_name(int(m.group(2))), r)
    r = re.sub(r"^(value mismatch).*", r"\1", r)
    r = re.sub(r"(input \d+) \('[^']*'\)", r"\1", r)                # tensor names
    r = re.sub(r"'[^']{25,}'", "'…'", r)                              # long (generated) names
    r = re.sub(r"/\S+/", "", r)                                      # any other path
    return r if len(r) <= max_len else r[: max_len - 1] + "…"


def category(reason: str) -> str:
    r = short_reason(reason, max_len=200)
    op = failing_op(reason)
    if op and r.startswith(op + ": "):
        r = r[len(op) + 2:]
    r = re.sub(r"^input_\d+: ", "input file: ", r)
    r = re.sub(r"^(out of scope: [^(]*?)\s*\(.*\)$", r"\1", r)     # one line per type
    r = re.sub(r"'[^']*'", "'…'", r)
    r = re.sub(r"\b\d+(\.\d+)?\b", "N", r)
    return r


def _pct(n: int, d: int) -> str:
    return f"{100.0 * n / d:.1f}%" if d else "-"


def summary_text(results, wall: float) -> str:
    total = len(results)
    npass = sum(r.status == PASS for r in results)
    node = [r for r in results if not r.expanded]
    exp = [r for r in results if r.expanded]
    st = Counter(r.status for r in results)
    lines = [
        f"conformance: {total} cases, {npass} passed, {total - npass} failed, "
        f"pass rate {_pct(npass, total)}",
        f"  node cases {len(node)}: {sum(r.status == PASS for r in node)} passed; "
        f"expanded (function body) cases {len(exp)}: {sum(r.status == PASS for r in exp)} passed",
        "  failures: " + ", ".join(f"{s} {st[s]}" for s in STATUS_ORDER[1:]),
        f"  wall time {wall:.1f}s",
    ]
    return "\n".join(lines)


def _group_failures(results):
    """{category: [results]}, most common first."""
    groups: dict[str, list] = defaultdict(list)
    for r in results:
        if r.status != PASS:
            groups[category(r.reason)].append(r)
    return sorted(groups.items(), key=lambda kv: (-len(kv[1]), kv[0]))


def _ops_of(group) -> Counter:
    return Counter(failing_op(r.reason) or r.op for r in group)


def failure_report(results, top: int = 40) -> str:
    groups = _group_failures(results)
    nfail = sum(len(g) for _, g in groups)
    out = [f"\nFailures by reason ({nfail} failing cases, {len(groups)} reasons):"]
    for cat, group in groups[:top]:
        ops = _ops_of(group)
        out.append(f"{len(group):6d}  {cat}")
        out.append("          ops: " + ", ".join(f"{o} ({n})" for o, n in ops.most_common(12))
                   + (f", … {len(ops) - 12} more" if len(ops) > 12 else ""))
        out.append("          e.g. " + ", ".join(r.case for r in group[:3]))
    if len(groups) > top:
        rest = sum(len(g) for _, g in groups[top:])
        out.append(f"  … {len(groups) - top} more reasons ({rest} cases)")
    return "\n".join(out)


# ---------------------------------------------------------------------------------
# docs/Conformance.md
# ---------------------------------------------------------------------------------

def _md(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def _reasons_for(op: str, group, limit: int = 3) -> str:
    counts = Counter()
    for r in group:
        if r.status == PASS:
            continue
        s = short_reason(r.reason)
        if s.startswith(op + ": "):
            s = s[len(op) + 2:]
        counts[s] += 1
    items = [k for k, _ in sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))]
    text = "; ".join(f"`{_md(k)}`" for k in items[:limit])
    if len(items) > limit:
        text += f" (+{len(items) - limit} more)"
    return text


def dynamic_summary(results, top: int = 25) -> dict:
    """The dynamic variant's totals and failure categories (dynamic-summary.json)."""
    total = len(results)
    npass = sum(r.status == PASS for r in results)
    node = [r for r in results if not r.expanded]
    failures = []
    for cat, group in _group_failures(results)[:top]:
        ops = _ops_of(group)
        failures.append({"reason": cat, "cases": len(group),
                         "ops": [[o, n] for o, n in ops.most_common(8)],
                         "more_ops": max(0, len(ops) - 8)})
    return {"total": total, "passed": npass, "node_total": len(node),
            "node_passed": sum(r.status == PASS for r in node), "failures": failures,
            "failing_reasons": len(_group_failures(results))}


DYNAMIC_HEADING = "## Dynamic variant"


def dynamic_section(summary: dict | None) -> list[str]:
    """docs/Conformance.md's section on `scripts/conformance --dynamic`."""
    L = [DYNAMIC_HEADING, "",
         "`scripts/conformance --dynamic` runs every case again with every input dim of",
         "size >= 2 symbolic (dims of one size share a symbol `dN`), each compiled once with",
         "`dlc compile --dims dN=1..N` and run on the case's inputs",
         "(`test/conformance/dynamic.py`). Regenerated by `scripts/conformance --dynamic",
         "--update` (which records `test/conformance/dynamic-summary.json`).", ""]
    if not summary:
        return L + ["Not run yet.", ""]
    t, p = summary["total"], summary["passed"]
    L += ["| | cases | passed | failed | pass rate |", "|---|---:|---:|---:|---:|",
          f"| all | {t} | {p} | {t - p} | {_pct(p, t)} |",
          f"| node cases | {summary['node_total']} | {summary['node_passed']} | "
          f"{summary['node_total'] - summary['node_passed']} | "
          f"{_pct(summary['node_passed'], summary['node_total'])} |", "",
          "Failures by reason (the most common "
          f"{len(summary['failures'])} of {summary['failing_reasons']}):", "",
          "| reason | cases | ops |", "|---|---:|---|"]
    for f in summary["failures"]:
        shown = ", ".join(f"{o} ({n})" for o, n in f["ops"])
        if f["more_ops"]:
            shown += f", +{f['more_ops']} more"
        L.append(f"| `{_md(f['reason'])}` | {f['cases']} | {_md(shown)} |")
    return L + [""]


def replace_dynamic_section(doc: str, summary: dict) -> str:
    """`doc` with its dynamic section (up to the next `## ` heading) rendered anew."""
    lines = doc.rstrip("\n").split("\n")
    if DYNAMIC_HEADING in lines:
        start = lines.index(DYNAMIC_HEADING)
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")),
                   len(lines))
        lines[start:end] = dynamic_section(summary)
    else:
        lines += [""] + dynamic_section(summary)
    return "\n".join(lines).rstrip("\n") + "\n"


def markdown(results, scope, onnx_version: str, dynamic: dict | None = None) -> str:
    results = sorted(results, key=lambda r: r.case)
    total = len(results)
    npass = sum(r.status == PASS for r in results)
    node = [r for r in results if not r.expanded]
    exp = [r for r in results if r.expanded]
    npn = sum(r.status == PASS for r in node)
    npe = sum(r.status == PASS for r in exp)
    L = [
        "# ONNX conformance",
        "",
        "<!-- Generated by `scripts/conformance --update`; do not edit by hand. -->",
        "",
        "Generated by `scripts/conformance --update` (see `test/conformance/README.md`);",
        "do not edit by hand. It reports how many of the ONNX backend node tests",
        f"(`onnx.backend.test.case.node`, onnx {onnx_version}) `dlc run` passes, compared",
        "with ONNX's backend-test semantics (exact dtype and shape, `assert_allclose` with",
        "each case's rtol/atol, exact bool/integers). Every data set of a case must pass.",
        "Cases listed in `test/conformance/out-of-scope.txt` are not run and count as failures.",
        "",
        "## Summary",
        "",
        "| | cases | passed | failed | pass rate |",
        "|---|---:|---:|---:|---:|",
        f"| all | {total} | {npass} | {total - npass} | {_pct(npass, total)} |",
        f"| node cases | {len(node)} | {npn} | {len(node) - npn} | {_pct(npn, len(node))} |",
        f"| `_expanded` (function body) cases | {len(exp)} | {npe} | {len(exp) - npe} "
        f"| {_pct(npe, len(exp))} |",
        "",
        "| status | cases |",
        "|---|---:|",
    ]
    st = Counter(r.status for r in results)
    L += [f"| {s} | {st[s]} |" for s in STATUS_ORDER if st[s]]

    # --- per op -----------------------------------------------------------------
    by_op: dict[str, list] = defaultdict(list)
    for r in results:
        by_op[r.op].append(r)
    L += [
        "",
        "## By operator",
        "",
        "One row per ONNX op. *Cases*/*passed*/*failed* count the node cases; the",
        "`_expanded` variants (the op's function body, built from other ops) are counted",
        "in *expanded* as passed/total. *Failure reasons* are deduplicated first error",
        "lines over both, most common first.",
        "",
        "| op | cases | passed | failed | expanded | failure reasons |",
        "|---|---:|---:|---:|---:|---|",
    ]
    for op in sorted(by_op, key=str.lower):
        group = by_op[op]
        n = [r for r in group if not r.expanded]
        e = [r for r in group if r.expanded]
        p = sum(r.status == PASS for r in n)
        pe = sum(r.status == PASS for r in e)
        L.append(f"| {_md(op)} | {len(n)} | {p} | {len(n) - p} | "
                 f"{f'{pe}/{len(e)}' if e else ''} | {_reasons_for(op, group)} |")

    # --- per dtype --------------------------------------------------------------
    by_dt: dict[str, list] = defaultdict(list)
    for r in results:
        for dt in r.dtypes:
            by_dt[dt].append(r)
    L += [
        "",
        "## By element type",
        "",
        "A case counts under every element type among its graph inputs and outputs.",
        "",
        "| element type | cases | passed | pass rate |",
        "|---|---:|---:|---:|",
    ]
    for dt in sorted(by_dt):
        g = by_dt[dt]
        p = sum(r.status == PASS for r in g)
        L.append(f"| {dt} | {len(g)} | {p} | {_pct(p, len(g))} |")

    # --- out of scope -----------------------------------------------------------
    L += [
        "",
        "## Out of scope",
        "",
        "Listed in `test/conformance/out-of-scope.txt`: types dlc deliberately does not",
        "support. These cases are not run and count as failures above.",
        "",
        "| pattern | reason | cases |",
        "|---|---|---|",
    ]
    names = [r.case for r in results]
    for pattern, reason in scope:
        matched = [c for c in names if fnmatch.fnmatchcase(c, pattern)]
        L.append(f"| `{_md(pattern)}` | {_md(reason)} | {len(matched)} |")

    # --- failure categories -----------------------------------------------------
    L += [
        "",
        "## Unsupported features and other failures",
        "",
        "Every failing case by reason category (names and numbers elided), with the ops",
        "whose nodes fail that way.",
        "",
        "| reason | cases | ops |",
        "|---|---:|---|",
    ]
    for cat, group in _group_failures(results):
        ops = _ops_of(group)
        shown = ", ".join(f"{o} ({n})" for o, n in
                          sorted(ops.items(), key=lambda kv: (-kv[1], kv[0]))[:8])
        if len(ops) > 8:
            shown += f", +{len(ops) - 8} more"
        L.append(f"| `{_md(cat)}` | {len(group)} | {_md(shown)} |")
    # Why the static failures remain (by op; an op failing for a new reason shows "-").
    failing = {}
    for r in results:
        if r.status != PASS:
            failing.setdefault(failing_op(r.reason) or r.op, []).append(r.case)
    if failing:
        L += ["", "Why each op above still fails:", "", "| op | cases | why |", "|---|---:|---|"]
        for op in sorted(failing):
            L.append(f"| {_md(op)} | {len(failing[op])} | {_md(WHY_FAILING.get(op, '-'))} |")
    L += [""] + dynamic_section(dynamic)
    return "\n".join(L).rstrip("\n") + "\n"

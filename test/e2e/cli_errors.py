# Shared by the negative e2e tests: run the dlc CLI and require a clean one-line failure.
"""Helpers for tests that feed dlc bad input (bad_inputs.py, malformed_models.py, fuzz_models.py).

A clean failure is: exit code exactly 1 (not a signal, not 0 or 2), the first
stderr line starts with ``error:`` and exactly one line does (or, with
``one_line``, stderr is exactly that one line), nothing in stderr looks like a
crash (stack dumps, assertions, sanitizer reports, ...), and stderr contains
every expected substring.
"""
from __future__ import annotations

import subprocess
from pathlib import Path

import onnx

# Case-sensitive substrings that indicate a crash rather than a diagnosed error
# (sanitizer reports included: scripts/test --sanitize runs these tests on an ASan/UBSan build).
CRASH_MARKERS = [
    "Segmentation fault", "core dumped", "terminate called", "Assertion `", "Stack dump",
    "PLEASE submit a bug report", "LLVM ERROR", "UNREACHABLE executed", "Traceback (most",
    "AddressSanitizer", "UndefinedBehaviorSanitizer", "LeakSanitizer", ": runtime error:",
    "#0 0x", "Illegal instruction", "Bus error", "what():",
]


class Fail(Exception):
    pass


def save(model: onnx.ModelProto, path: Path) -> Path:
    """Serialize without any checker/external-data processing (some models are invalid on purpose)."""
    path.write_bytes(model.SerializeToString())
    return path


def crash_markers(text: str) -> list[str]:
    return [m for m in CRASH_MARKERS if m in text]


def check_error(cmd: list[str], cwd: Path, needles: list[str], timeout: float,
                one_line: bool = False, needles_in_stdout: bool = False,
                model: Path | None = None, stdout_file: str | None = None) -> str:
    """Run cmd; raise Fail unless it failed cleanly. Returns the error line.

    needles_in_stdout: look for the needles in stdout too (`dlc check` lists the
    problems on stdout and sums them up in its one stderr line).
    model: stderr must name this file; the needles are looked for with its path and
    name blanked out, so that a needle that happens to be part of the name still counts.
    stdout_file: stdout goes to this file (e.g. /dev/full) instead of a pipe."""
    try:
        out = open(stdout_file, "w") if stdout_file else subprocess.PIPE
        try:
            p = subprocess.run(cmd, cwd=cwd, stdout=out, stderr=subprocess.PIPE,
                               text=True, errors="replace", timeout=timeout)
        finally:
            if stdout_file:
                out.close()
    except subprocess.TimeoutExpired:
        raise Fail(f"timed out after {timeout:.0f}s")
    err = p.stderr
    shown = "".join("\n    | " + line for line in err.strip().splitlines()[:40]) or " (no stderr)"
    if p.returncode < 0:
        raise Fail(f"killed by signal {-p.returncode}{shown}")
    crash = crash_markers(err)
    if crash:
        raise Fail(f"exit code {p.returncode}, stderr looks like a crash ({', '.join(crash)}){shown}")
    if p.returncode != 1:
        raise Fail(f"exit code {p.returncode}, expected 1{shown}")
    lines = err.splitlines()
    if not lines or not lines[0].startswith("error:"):
        raise Fail(f"first stderr line does not start with 'error:'{shown}")
    if one_line and len(lines) != 1:
        raise Fail(f"{len(lines)} stderr lines, expected exactly 1{shown}")
    n_err = sum(1 for line in lines if line.startswith("error:"))
    if n_err != 1:
        raise Fail(f"{n_err} lines start with 'error:', expected exactly 1{shown}")
    text = err + ((p.stdout or "") if needles_in_stdout else "")
    if model is not None:
        if model.name not in err:
            raise Fail(f"stderr does not name the model file {model.name}{shown}")
        text = text.replace(str(model), "<model>").replace(model.name, "<model>")
    missing = [s for s in needles if s not in text]
    if missing:
        where = "stdout or stderr" if needles_in_stdout else "stderr"
        out = "".join("\n    > " + line for line in (p.stdout or "").strip().splitlines()[:20]
                      ) if needles_in_stdout else ""
        raise Fail(f"{where} does not mention {missing}{shown}{out}")
    return lines[0]

# Hostile outputs and flags for hostile.py: symlinks, FIFOs, devices, read-only directories and
# colliding names where dlc writes, stdout on /dev/full, and bad command-line flags.
"""Cases of the hostile corpus about where dlc writes (class 4) and its flags (see hostile.py).

Importing this module registers its cases in hostile_models.CASES.
"""
from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path

import numpy as np
from onnx import TensorProto, helper, numpy_helper

from hostile_models import (Fail, add, add_model, all_of, case, compile_so, const, either,
                            err, model, ok, put, relu_model, run_args, same, train_data,
                            train_step, unchanged, vi)
from hostile_files import X


# ---------------------------------------------------------------------------- 4. writes
def _outputs_model(names):
    """outputs names[i] = x + i."""
    nodes = [helper.make_node("Add", ["x", f"c{i}"], [n], name=f"add{i}")
             for i, n in enumerate(names)]
    return model(nodes, [vi("x", [2])], [vi(n, [2]) for n in names],
                 [const(f"c{i}", np.float32(i)) for i in range(len(names))])


def _distinct_outputs(d: Path, names, fmt="npy"):
    """A check: d/out holds one file per output, inside d/out, each an x + i exactly once."""
    x = np.array([1.5, -2], np.float32)

    def check():
        files = sorted(p for p in (d / "out").iterdir() if p.is_file())
        if len(files) != len(names):
            return f"{len(files)} files in out/ for {len(names)} outputs: {[p.name for p in files]}"
        stray = sorted(set(os.listdir(d)) - {"out", "model.onnx", "x.npy"})
        if stray:
            return f"files outside out/: {stray}"
        seen = set()
        for p in files:
            if fmt == "pb":
                v = numpy_helper.to_array(TensorProto.FromString(p.read_bytes()))
            else:
                v = np.load(p)
            k = [i for i in range(len(names)) if np.array_equal(v, x + np.float32(i))]
            if len(k) != 1 or k[0] in seen:
                return f"{p.name} holds {v}, not a distinct output"
            seen.add(k[0])
    return x, check


def _names_case(names, fmt="npy", allow_error=False):
    def build(dlc, d):
        put(d, "model.onnx", _outputs_model(names))
        x, check = _distinct_outputs(d, names, fmt)
        cmd = run_args(dlc, "model.onnx", {"x": put(d, "x.npy", x)},
                       extra=["--output-format", fmt])
        return either(cmd, check, "out") if allow_error else ok(cmd, check)
    return build


add("names_collide_npy", "write", _names_case(["a/b", "a_b", "a:b", "a_b_1", "a b"]),
    "outputs a/b, a_b, a:b, a_b_1, 'a b' (all sanitize to a_b...): five distinct files",
    quick=True)
add("names_collide_pb", "write", _names_case(["a/b", "a_b", "a_b_1"], "pb"),
    "the same collisions written as .pb")
add("names_dotdot", "write", _names_case(["..", "../escape", "/abs", ".", "..."]),
    "outputs named .., ../escape, /abs, ., ...: files inside out/ only")
add("names_300_chars", "write", _names_case(["n" * 300, "n" * 301], allow_error=True),
    "outputs with 300- and 301-character names (over NAME_MAX with .npy): either")


def _relu_run(dlc, d, *extra, out="out"):
    put(d, "model.onnx", relu_model())
    return run_args(dlc, "model.onnx", {"x": put(d, "x.npy", X)}, out=out, extra=extra)


@case("write", quick=True)
def c_symlink_dangling_output(dlc, d):
    """out/y.npy is a dangling symlink to ../planted.npy: refused, nothing created"""
    (d / "out").mkdir()
    os.symlink("../planted.npy", d / "out" / "y.npy")
    return err(_relu_run(dlc, d), "y.npy", after=unchanged(d / "planted.npy", None))


@case("write")
def c_symlink_save_onnx(dlc, d):
    """dlc train --save-onnx at a symlink to a file: refused, the file unchanged"""
    (d / "keep.txt").write_bytes(b"keep me")
    os.symlink("keep.txt", d / "trained.onnx")
    cmd = [dlc, "train", train_step(dlc, d), "--data", train_data(d), "--steps", "1",
           "--batch", "2", "--save-onnx", "trained.onnx"]
    return err(cmd, "trained.onnx", after=unchanged(d / "keep.txt", b"keep me"))


@case("write")
def c_hardlink_output(dlc, d):
    """out/y.npy hard-linked to other.npy: replaced atomically, other.npy keeps its bytes"""
    (d / "out").mkdir()
    (d / "other.npy").write_bytes(b"old bytes")
    os.link(d / "other.npy", d / "out" / "y.npy")
    return ok(_relu_run(dlc, d), all_of(same(d / "out" / "y.npy", np.maximum(X, 0)),
                                        unchanged(d / "other.npy", b"old bytes")))


@case("write")
def c_output_is_directory(dlc, d):
    """out/y.npy is a directory: refused, the directory left"""
    (d / "out" / "y.npy").mkdir(parents=True)
    return err(_relu_run(dlc, d), "y.npy",
               after=lambda: None if (d / "out" / "y.npy").is_dir() else "y.npy dir removed")


@case("hang")
def c_output_fifo_planted(dlc, d):
    """out/y.npy is a FIFO nobody reads: refused in time, still a FIFO"""
    (d / "out").mkdir()
    os.mkfifo(d / "out" / "y.npy")
    return err(_relu_run(dlc, d), "y.npy", after=lambda: None if stat.S_ISFIFO(
        os.lstat(d / "out" / "y.npy").st_mode) else "the FIFO was replaced")


@case("hang")
def c_save_onnx_fifo(dlc, d):
    """dlc train --save-onnx at a FIFO: refused in time"""
    os.mkfifo(d / "trained.onnx")
    return err([dlc, "train", train_step(dlc, d), "--data", train_data(d), "--steps", "1",
                "--batch", "2", "--save-onnx", "trained.onnx"], "trained.onnx")


@case("write")
def c_pb_output_symlink(dlc, d):
    """--output-format pb with out/y.pb a symlink to a file: refused, the file unchanged"""
    (d / "out").mkdir()
    (d / "keep.txt").write_bytes(b"keep me")
    os.symlink("../keep.txt", d / "out" / "y.pb")
    return err(_relu_run(dlc, d, "--output-format", "pb"), "y.pb",
               after=unchanged(d / "keep.txt", b"keep me"))


def _compile_to(target):
    def build(dlc, d):
        put(d, "model.onnx", relu_model())
        t = target(d) if callable(target) else target
        return err([dlc, "compile", "model.onnx", "-o", t], Path(t).name, files_ok=True)
    return build


for _n, _tg in (("o_dev_null", "/dev/null"), ("o_dev_full", "/dev/full"),
                ("o_proc_file", "/proc/version"), ("o_missing_dir", "nodir/x.so"),
                ("o_is_directory", lambda d: (d / "adir").mkdir() or "adir"),
                ("o_trailing_slash", "x.so/")):
    add(_n, "write", _compile_to(_tg), f"dlc compile -o {_n[2:].replace('_', ' ')}",
        quick=_n == "o_dev_full")


def _stdout_full(kind):
    def build(dlc, d):
        put(d, "model.onnx", relu_model())
        put(d, "x.npy", X)
        cmd = {"run": [dlc, "run", "model.onnx", "--input", "x=x.npy"],
               "info": [dlc, "info", "model.onnx"], "check": [dlc, "check", "model.onnx"],
               "emit_llvm": [dlc, "compile", "model.onnx", "--emit=llvm", "-o", "-"],
               "train": [dlc, "train", "", "--data", "", "--steps", "2", "--batch", "2"]}[kind]
        if kind == "train":
            cmd[2], cmd[4] = train_step(dlc, d), train_data(d)
        return err(cmd, "standard output", stdout_file="/dev/full")
    return build


for _k in ("run", "info", "check", "emit_llvm", "train"):
    add(f"stdout_full_{_k}", "write", _stdout_full(_k), f"dlc {_k} with stdout on /dev/full",
        quick=_k == "train")


@case("write")
def c_save_onnx_dev_full(dlc, d):
    """dlc train --save-onnx /dev/full: refused (a device)"""
    return err([dlc, "train", train_step(dlc, d), "--data", train_data(d), "--steps", "1",
                "--batch", "2", "--save-onnx", "/dev/full"], "/dev/full", files_ok=True)


@case("write")
def c_output_dir_is_file(dlc, d):
    """--output-dir names a regular file"""
    (d / "out").write_bytes(b"a file")
    return err(_relu_run(dlc, d), "out", files_ok=True)


@case("write")
def c_output_dir_in_proc(dlc, d):
    """--output-dir /proc/self/hostile (cannot be created, even by root)"""
    return err(_relu_run(dlc, d, out="/proc/self/hostile"), "/proc/self/hostile")


def _read_only(d: Path, name: str):
    """d/name made read-only: mode 555, and immutable (chattr +i) when running as root."""
    p = d / name
    p.mkdir()
    p.chmod(0o555)
    if os.geteuid() == 0:
        r = subprocess.run(["chattr", "+i", str(p)], capture_output=True)
        if r.returncode != 0:
            raise Fail("precondition: running as root and chattr +i failed: the directory "
                       "cannot be made read-only")

    def cleanup():
        if os.geteuid() == 0:
            subprocess.run(["chattr", "-i", str(p)], capture_output=True)
        p.chmod(0o755)
    return cleanup


@case("write", quick=True)
def c_read_only_output_dir(dlc, d):
    """--output-dir is a read-only directory"""
    cmd = _relu_run(dlc, d, out="ro")
    return err(cmd, "ro", cleanup=_read_only(d, "ro"))


@case("write")
def c_read_only_o_dir(dlc, d):
    """dlc compile -o into a read-only directory"""
    put(d, "model.onnx", relu_model())
    return err([dlc, "compile", "model.onnx", "-o", "ro/x.so"], "ro/x.so",
               cleanup=_read_only(d, "ro"))


@case("write")
def c_read_only_save_onnx(dlc, d):
    """dlc train --save-onnx into a read-only directory"""
    cmd = [dlc, "train", train_step(dlc, d), "--data", train_data(d), "--steps", "1",
           "--batch", "2", "--save-onnx", "ro/t.onnx"]
    return err(cmd, "ro/t.onnx", cleanup=_read_only(d, "ro"))


# ---------------------------------------------------------------------------- 6. CLI flags
def _fx(dlc, d, what):
    """Fixture files, made on demand: model.onnx (relu), x.npy, model.so, step.so, data.npz."""
    if what in ("onnx", "so"):
        put(d, "model.onnx", relu_model())
        put(d, "x.npy", X)
        return "model.onnx" if what == "onnx" else compile_so(dlc, d)
    if what == "step":
        train_data(d)
        return train_step(dlc, d)
    if what == "tonnx":  # a model with a float initializer to train
        return put(d, "model.onnx", add_model())
    return ""


RUN = ["run", "{m}", "--input", "x=x.npy"]
TRAIN = ["train", "{m}", "--data", "data.npz", "--steps", "1", "--batch", "2"]
COMPILE = ["compile", "{m}", "-o", "x.so"]
CLI = {  # name: (fixture, argv with {m} = the fixture, needles)
    "no_command": ("", [], ["command"]),
    "unknown_command": ("", ["frobnicate"], ["frobnicate"]),
    "run_no_model": ("", ["run"], ["model"]),
    "run_two_models": ("onnx", RUN + ["model.onnx"], ["model"]),
    "threads_zero": ("onnx", RUN + ["--threads", "0"], ["--threads", "'0'"]),
    "threads_negative": ("onnx", RUN + ["--threads", "-3"], ["--threads", "-3"]),
    "threads_text": ("onnx", RUN + ["--threads", "many"], ["--threads", "many"]),
    "threads_overflow": ("onnx", RUN + ["--threads", "99999999999999999999"], ["--threads"]),
    "threads_2p31": ("onnx", RUN + ["--threads", "2147483648"], ["--threads"]),
    "threads_100000_so": ("so", RUN + ["--threads", "100000"], ["threads", "100000"]),
    "threads_empty": ("onnx", RUN + ["--threads", ""], ["--threads"]),
    "threads_suffix": ("onnx", RUN + ["--threads", "4x"], ["--threads", "4x"]),
    "threads_no_value": ("onnx", RUN + ["--threads"], ["--threads"]),
    "threads_train": ("step", TRAIN + ["--threads", "-1"], ["--threads"]),
    "threads_bench": ("so", ["bench", "{m}", "--threads", "0"], ["--threads"]),
    "max_memory_zero": ("onnx", RUN + ["--max-memory", "0"], ["--max-memory"]),
    "max_memory_negative": ("onnx", RUN + ["--max-memory", "-1G"], ["--max-memory"]),
    "max_memory_unit": ("onnx", RUN + ["--max-memory", "1Q"], ["--max-memory", "1Q"]),
    "max_memory_fraction": ("onnx", RUN + ["--max-memory", "1.5G"], ["--max-memory"]),
    "max_memory_overflow": ("onnx", RUN + ["--max-memory", "17179869184T"], ["--max-memory"]),
    "max_memory_2p64": ("onnx", COMPILE + ["--max-memory", str(2**64)], ["--max-memory"]),
    "max_memory_train": ("step", TRAIN + ["--max-memory", "lots"], ["--max-memory"]),
    "max_memory_too_small": ("onnx", COMPILE + ["--max-memory", "8"], ["input 'x'",
                                                                       "--max-memory"]),
    "output_format_xml": ("onnx", RUN + ["--output-format", "xml"], ["xml"]),
    "unknown_long_flag": ("onnx", RUN + ["--frobnicate"], ["--frobnicate"]),
    "unknown_short_flag": ("onnx", RUN + ["-z"], ["-z"]),
    "unknown_flag_compile": ("onnx", COMPILE + ["--fast-math"], ["--fast-math"]),
    "input_no_value": ("onnx", ["run", "{m}", "--input"], ["--input"]),
    "input_no_equals": ("onnx", ["run", "{m}", "--input", "x.npy"], ["x.npy"]),
    "input_empty_name": ("onnx", ["run", "{m}", "--input", "=x.npy"], ["=x.npy"]),
    "input_twice": ("onnx", RUN + ["--input", "x=x.npy"], ["'x'", "twice"]),
    "input_bad_extension": ("onnx", ["run", "{m}", "--input", "x=x.txt"], ["x.txt"]),
    "input_missing_file": ("onnx", ["run", "{m}", "--input", "x=nope.npy"], ["nope.npy"]),
    "input_not_given": ("onnx", ["run", "{m}"], ["'x'"]),
    "output_dir_no_value": ("onnx", RUN + ["--output-dir"], ["--output-dir"]),
    "compile_no_model": ("", ["compile", "-o", "x.so"], ["model"]),
    "compile_no_o": ("onnx", ["compile", "{m}"], ["-o"]),
    "compile_o_no_value": ("onnx", ["compile", "{m}", "-o"], ["-o"]),
    "compile_two_models": ("onnx", COMPILE + ["model.onnx"], ["model"]),
    "emit_bogus": ("onnx", COMPILE + ["--emit=bogus"], ["bogus"]),
    "opt_level_9": ("onnx", COMPILE + ["-O9"], ["-O9"]),
    "target_bogus": ("onnx", COMPILE + ["--target=pentium2"], ["pentium2"]),
    "input_shape_letters": ("onnx", COMPILE + ["--input-shape", "x=axb"], ["axb"]),
    "input_shape_negative": ("onnx", COMPILE + ["--input-shape", "x=-1x3"], ["-1x3"]),
    "input_shape_empty": ("onnx", COMPILE + ["--input-shape", "x="], ["'x'"]),
    "input_shape_no_equals": ("onnx", COMPILE + ["--input-shape", "x"], ["--input-shape"]),
    "input_shape_no_name": ("onnx", COMPILE + ["--input-shape", "=2x3"], ["--input-shape"]),
    "input_shape_unknown_name": ("onnx", COMPILE + ["--input-shape", "nosuch=2x3"], ["nosuch"]),
    "input_shape_dim_overflow": ("onnx", COMPILE + ["--input-shape",
                                                    "x=99999999999999999999x1"], ["x"]),
    "input_shape_wrong_rank": ("onnx", COMPILE + ["--input-shape", "x=2x3x4"], ["'x'"]),
    "input_shape_check": ("onnx", ["check", "{m}", "--input-shape", "x=2xx3"], ["2xx3"]),
    "input_value_unknown": ("onnx", COMPILE + ["--input-value", "nosuch=x.npy"], ["nosuch"]),
    "input_value_missing": ("onnx", COMPILE + ["--input-value", "x=nope.npy"], ["nope.npy"]),
    "train_without_loss": ("tonnx", COMPILE + ["--train"], ["--loss"]),
    "loss_bogus": ("tonnx", COMPILE + ["--train", "--loss=hinge:y"], ["hinge"]),
    "loss_unknown_output": ("tonnx", COMPILE + ["--train", "--loss=mse:nosuch"], ["nosuch"]),
    "optimizer_bad_lr": ("tonnx", COMPILE + ["--train", "--loss=mse:y",
                                            "--optimizer=sgd:lr=fast"], ["fast"]),
    "optimizer_unknown_key": ("tonnx", COMPILE + ["--train", "--loss=mse:y",
                                                 "--optimizer=adam:warp=1"], ["warp"]),
    "optimizer_unknown": ("tonnx", COMPILE + ["--train", "--loss=mse:y", "--optimizer=lbfgs"],
                          ["lbfgs"]),
    "freeze_unknown": ("tonnx", COMPILE + ["--train", "--loss=mse:y", "--freeze=nosuch"],
                       ["nosuch"]),
    "remat_bad": ("tonnx", COMPILE + ["--train", "--loss=mse:y", "--remat=auto:lots"],
                  ["--remat"]),
    "grad_of_unknown": ("onnx", COMPILE + ["--grad-of=nosuch"], ["nosuch"]),
    "steps_zero": ("step", ["train", "{m}", "--data", "data.npz", "--steps", "0"],
                   ["--steps"]),
    "steps_negative": ("step", ["train", "{m}", "--data", "data.npz", "--steps", "-5"],
                       ["--steps"]),
    "steps_missing": ("step", ["train", "{m}", "--data", "data.npz"], ["--steps"]),
    "batch_zero": ("step", ["train", "{m}", "--data", "data.npz", "--steps", "1", "--batch", "0"],
                   ["--batch"]),
    "batch_given_twice": ("step", TRAIN + ["--batch", "3"], ["--batch"]),
    "batch_not_compiled": ("step", ["train", "{m}", "--data", "data.npz", "--steps", "1",
                                    "--batch", "3"], ["batch"]),
    "log_every_zero": ("step", TRAIN + ["--log-every", "0"], ["--log-every"]),
    "train_no_data": ("step", ["train", "{m}", "--steps", "1"], ["--data"]),
    "train_forward_module": ("so", ["train", "{m}", "--data", "x.npy", "--steps", "1"],
                             ["model.so"]),
    "train_onnx_model": ("onnx", ["train", "{m}", "--data", "x.npy", "--steps", "1"],
                         ["model.onnx"]),
    "info_two_models": ("onnx", ["info", "{m}", "{m}"], ["model"]),
    "info_unknown_flag": ("onnx", ["info", "{m}", "--verbose"], ["--verbose"]),
    "bench_runs_zero": ("so", ["bench", "{m}", "--runs", "0"], ["--runs"]),
    "bench_warmup_text": ("so", ["bench", "{m}", "--warmup", "some"], ["--warmup"]),
    "verify_reference_bogus": ("onnx", ["verify", "{m}", "--input", "x=x.npy",
                                        "--reference=oracle"], ["oracle"]),
    "verify_rtol_text": ("onnx", ["verify", "{m}", "--input", "x=x.npy", "--rtol", "tight"],
                         ["--rtol"]),
}


def _cli_case(fixture, argv, needles):
    def build(dlc, d):
        m = _fx(dlc, d, fixture)
        if "x=x.txt" in argv:
            (d / "x.txt").write_text("2 3\n1 2 3\n4 5 6\n")
        return err([dlc, *[a.replace("{m}", m) for a in argv]], *needles)
    return build


for _n, (_fix, _argv, _nd) in CLI.items():
    add(f"cli_{_n}", "cli", _cli_case(_fix, _argv, _nd), "dlc " + " ".join(_argv),
        quick=_n in ("threads_overflow", "max_memory_2p64", "input_shape_dim_overflow",
                     "batch_not_compiled"))

#!/usr/bin/env python3
# bench/run worker: times one IREE-compiled model (.vmfb) with the IREE Python runtime; prints one JSON line.
"""IREE timing worker for bench/run.py (runs in bench/.venv-bench; one model and thread count).

usage: engine_iree.py MODEL.vmfb --function NAME --threads N --runs R --warmup W
                      --input NAME=FILE.npy ... --output-name NAME ... --output-dir DIR

The module was compiled by bench/run.py with ``iree-compile --iree-hal-target-backends=llvm-cpu
--iree-llvmcpu-target-cpu=host``.  It runs on the ``local-task`` driver with
``--task_topology_group_count=N`` worker threads.  Inputs are uploaded to the device once
(``asdevicearray``); each timed call is a synchronous invocation of the entry function
(the call returns once the results are ready), timed with perf_counter.
Outputs of the last call go to DIR/<sanitized --output-name>.npy (in result order); the last
stdout line is ``{"times_s": [..], "version": ..}``.
"""
import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

MIN_WARMUP_S = 0.2


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("vmfb")
    ap.add_argument("--function", help="entry function (default: the only public one)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--runs", type=int, default=50)
    ap.add_argument("--warmup", type=int, default=10)
    ap.add_argument("--input", action="append", default=[], metavar="NAME=FILE",
                    help="inputs, in the function's argument order")
    ap.add_argument("--output-name", action="append", default=[],
                    help="names for the results, in order (default out0, out1, ...)")
    ap.add_argument("--output-dir", required=True)
    args = ap.parse_args()

    import iree.runtime as rt
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from common import sanitize_name

    # Process-wide runtime flags must be set before the device is created.
    rt.flags.parse_flags(f"--task_topology_group_count={args.threads}")
    config = rt.Config("local-task")
    ctx = rt.SystemContext(config=config)
    vm_module = rt.VmModule.mmap(config.vm_instance, args.vmfb)
    ctx.add_vm_module(vm_module)
    names = [f for f in vm_module.function_names if not f.startswith("__") and "$" not in f]
    fn_name = args.function if args.function in names else names[0]
    fn = ctx.modules[vm_module.name][fn_name]

    arrays = [np.load(spec.rpartition("=")[2]) for spec in args.input]
    dev_inputs = [rt.asdevicearray(config.device, a) for a in arrays]

    # Warm-up: the given runs, and at least MIN_WARMUP_S (a few runs of a µs model
    # leave the threads and the CPU cold; the same rule in every engine's runner).
    end, done = time.perf_counter() + MIN_WARMUP_S, 0
    while done < args.warmup or time.perf_counter() < end:
        fn(*dev_inputs)
        done += 1
    times = []
    for _ in range(args.runs):
        t = time.perf_counter()
        results = fn(*dev_inputs)
        times.append(time.perf_counter() - t)

    if not isinstance(results, (tuple, list)):
        results = [results]
    out_dir = Path(args.output_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    for i, r in enumerate(results):
        name = args.output_name[i] if i < len(args.output_name) else f"out{i}"
        value = r.to_host() if hasattr(r, "to_host") else np.asarray(r)
        np.save(out_dir / f"{sanitize_name(name)}.npy", np.asarray(value))
    try:
        from importlib.metadata import version
        ver = version("iree-base-runtime")
    except Exception:  # noqa: BLE001 - only informational
        ver = "unknown"
    print(json.dumps({"times_s": times, "version": ver, "function": fn_name}))
    return 0


if __name__ == "__main__":
    sys.exit(main())

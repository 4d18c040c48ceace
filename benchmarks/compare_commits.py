"""Compare two commits of ctxgrad on W1, W1b, W2 and W3 (MLP, batch 32), in one run (also, with
``--workloads``: W1b written on arrays, ``W1b-arrays``; W2's traced replay, ``W2 replay``; and W5,
the 100,002-op chain, in seconds).

Run: ``python benchmarks/compare_commits.py BEFORE AFTER [--rounds 2] [--runs 9]`` (commits
as git understands them: ``cbc6c37``, ``HEAD``, ``main``; ``.`` is the working tree).

A snapshot of each commit's ``ctxgrad/`` is written to a temporary directory; the workloads
are this checkout's ``bench_*.py`` (the same code for both).  Each (commit, workload) runs in
a process of its own, the commits taking turns, in ``--rounds`` rounds, with
``OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1``; a process times ``--runs`` runs after
``--warmup`` untimed ones by **CPU time** (``time.process_time``, which does not count the
time another job holds the core, so a shared machine skews both commits alike) and reports
the median.  The table shows each workload's median over the rounds (W1, W1b, W2 in µs per
op, forward + backward; W3 in ms per step) and the change from BEFORE to AFTER.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from collections.abc import Callable
from io import BytesIO
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
WORKLOADS = ("W1", "W1b", "W2", "W3 mlp-32")
UNITS = {
    "W1": "µs/op",
    "W1b": "µs/op",
    "W1b-arrays": "µs/op",
    "W2": "µs/op",
    "W2 replay": "µs/op",
    "W3 mlp-32": "ms/step",
    "W5": "s",
}


def snapshot(commit: str, into: Path) -> Path:
    """``ctxgrad/`` as it is at ``commit`` (``.``: the working tree), under ``into``."""
    if commit == ".":
        return ROOT
    archive = subprocess.run(["git", "archive", commit, "ctxgrad"], cwd=ROOT, capture_output=True, check=True).stdout
    target = into / commit.replace("/", "_")
    target.mkdir(parents=True)
    with tarfile.open(fileobj=BytesIO(archive)) as tar:
        tar.extractall(target, filter="data")
    return target


def workload(name: str) -> tuple[Callable[[], object], int]:
    """The function one timed run calls, and how many units (ops or steps) one call does."""
    if name in ("W1", "W1b", "W1b-arrays"):
        import bench_custom_chain as custom

        return custom.ctxgrad_case(name, 1000)[1], 1000  # type: ignore[index]
    if name == "W2":
        import bench_builtin_chain as builtin

        return builtin.ctxgrad_case(1000)[1], builtin.op_count(1000)  # type: ignore[index]
    if name == "W2 replay":
        import bench_builtin_chain as builtin

        return builtin.replay_case(1000)[1], builtin.op_count(1000)  # type: ignore[index]
    if name == "W5":
        import bench_builtin_chain as builtin
        import bench_long_chain as long

        return builtin.ctxgrad_case(long.steps_for(100_002))[1], 1  # type: ignore[index]
    import bench_training_step as training
    import numpy as np

    model = training.ctxgrad_model("mlp-32", np.float32)
    inputs, labels = training.batch("mlp-32", np.dtype(np.float32))
    step = training.ctxgrad_step(model, inputs, labels)
    steps = training.DEFAULT_STEPS["mlp-32"]

    def run() -> object:
        for _ in range(steps):
            step()
        return None

    return run, steps


def child(name: str, runs: int, warmup: int) -> None:
    """(In the child process) print the median CPU time per unit of ``name``."""
    import gc

    sys.path.insert(0, str(HERE))
    fn, units = workload(name)
    for _ in range(warmup):
        fn()
    times = []
    for _ in range(runs):
        gc.collect()
        start = time.process_time()
        fn()
        times.append(time.process_time() - start)
    scale = 1e3 if name.startswith("W3") else 1.0 if name == "W5" else 1e6
    print(statistics.median(times) / units * scale)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("before")
    parser.add_argument("after")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--workloads", default=",".join(WORKLOADS))
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(args.child, args.runs, args.warmup)
        return 0
    names = args.workloads.split(",")
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}
    results: dict[tuple[str, str], list[float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        roots = {commit: snapshot(commit, Path(tmp)) for commit in (args.before, args.after)}
        for round_ in range(args.rounds):
            for name in names:
                for commit, root in roots.items():
                    command = [sys.executable, str(Path(__file__).resolve()), args.before, args.after]
                    command += ["--child", name, "--runs", str(args.runs), "--warmup", str(args.warmup)]
                    out = subprocess.run(
                        command, env={**env, "PYTHONPATH": str(root)}, capture_output=True, text=True, check=True
                    )
                    results.setdefault((commit, name), []).append(float(out.stdout.strip().splitlines()[-1]))
            print(f"round {round_ + 1} of {args.rounds} done", file=sys.stderr)
    print(f"CPU time, median of {args.runs} runs per process, median over {args.rounds} rounds")
    print(f"| workload | unit | {args.before} | {args.after} | change |")
    print("| --- | --- | --- | --- | --- |")
    for name in names:
        before = statistics.median(results[(args.before, name)])
        after = statistics.median(results[(args.after, name)])
        print(f"| {name} | {UNITS[name]} | {before:.3f} | {after:.3f} | {100 * (after / before - 1):+.1f}% |")
    return 0


if __name__ == "__main__":
    sys.exit(main())

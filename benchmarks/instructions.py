"""Instructions per op: small versions of W1, W1b, W1b-arrays, W2, W3 (MLP, batch 32), W5 and an
untracked ``x * 2.0``, counted by callgrind for ctxgrad and, where installed, torch, HIPS autograd and the
NumPy floor.

Wall-clock time on a shared machine moves by 10-50% from one minute to the next; the number of
instructions a workload executes does not (it moves by well under 1% between runs).  Each
library runs in a process of its own under ``valgrind --tool=callgrind``, with
``PYTHONHASHSEED=0``, the cyclic garbage collector off and ``OPENBLAS_NUM_THREADS=1
OMP_NUM_THREADS=1``.  Each workload first runs untimed (warm-up: caches, lazily built plans,
first-call imports), then its counted repetitions run inside one call of ``math.fsum``, a C
function nothing else in these workloads calls: callgrind counts only while it runs
(``--collect-atstart=no --toggle-collect=math_fsum``) and writes one profile per call
(``--dump-after=math_fsum``), so each workload's count excludes the start-up, the imports
and the warm-up, and needs no subtraction.

The table shows instructions per op, forward + backward (W3: per training step; the
untracked multiply: per call), and the ratio of ctxgrad to torch.  The workloads are the
benchmark scripts' own (``bench_custom_chain.py``, ``bench_builtin_chain.py``,
``bench_training_step.py``), shorter:

========== ============================================================= =====================
workload   what one repetition runs                                      counted
========== ============================================================= =====================
W1         a chain of 100 custom ``x * 2`` Functions, fwd + bwd          3 repetitions, per op
W1b        100 custom ``x / (1 + x²)`` Functions saving x, fwd + bwd     3 repetitions, per op
W1b-arrays W1b's Functions written on arrays (``x.array``, NumPy,        3 repetitions, per op
           ``as_tensor``; HIPS autograd runs W1b's primitive), fwd + bwd
W1b-a-off  W1b-arrays with ctxgrad's saved-array lock off                3 repetitions, per op
           (``set_saved_array_lock_enabled(False)``; ctxgrad only)
W2         W2's chain of 100 steps (210 built-in ops), fwd + bwd         3 repetitions, per op
W3         one SGD step of the 64→128→10 MLP, batch 32, float32          5 steps, per step
W5         W2's chain made 10,002 ops long, fwd + bwd                    1 repetition, per op
x*2.0      ``x * 2.0`` on 16 float64 elements, nothing requires grad     2,000 calls, per call
========== ============================================================= =====================

Run: ``python benchmarks/instructions.py [--libraries ctxgrad,torch,autograd,numpy]
[--workloads W1,W1b,W1b-arrays,W2,W3,W5,x*2.0] [--json FILE]`` (about 3-4 minutes for everything on
2 cores; ``--libraries ctxgrad`` alone about a minute).  Needs ``valgrind``.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import json
import math
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
LIBRARIES = ("ctxgrad", "torch", "autograd", "numpy")
WORKLOADS = ("W1", "W1b", "W1b-arrays", "W1b-a-off", "W2", "W3", "W5", "x*2.0")
CHAIN_LENGTH = 100  # W1, W1b, W2 steps
LONG_CHAIN_OPS = 10_002  # W5
UNTRACKED_CALLS = 2000
REPEATS = {"W1": 3, "W1b": 3, "W1b-arrays": 3, "W1b-a-off": 3, "W2": 3, "W3": 5, "W5": 1, "x*2.0": 1}
UNITS = {"W3": "per step", "x*2.0": "per call"}
MARKER = "math_fsum"  # the C function the counted region runs inside


# ---------------------------------------------------------------- the workloads, per library


def _workload(library: str, name: str) -> tuple[Callable[[], object], int] | None:
    """One repetition of ``name`` in ``library``, and the number of ops it counts as
    (None when the library has no such workload)."""
    import bench_builtin_chain as builtin
    import bench_custom_chain as custom
    import bench_long_chain as long
    import bench_training_step as training
    import numpy as np

    if name in ("W1", "W1b", "W1b-arrays"):
        maker = {
            "ctxgrad": custom.ctxgrad_case,
            "torch": custom.torch_case,
            "autograd": custom.autograd_case,
            "numpy": custom.numpy_case,
        }
        return maker[library](name, CHAIN_LENGTH)[1], CHAIN_LENGTH  # type: ignore[index]
    if name == "W1b-a-off":  # (the lock is ctxgrad's own: the others' row is W1b-arrays)
        return (custom.unlocked_case("W1b-arrays", CHAIN_LENGTH)[1], CHAIN_LENGTH) if library == "ctxgrad" else None
    if name in ("W2", "W5"):
        steps = CHAIN_LENGTH if name == "W2" else long.steps_for(LONG_CHAIN_OPS)
        maker = {
            "ctxgrad": builtin.ctxgrad_case,
            "torch": builtin.torch_case,
            "autograd": builtin.autograd_case,
            "numpy": builtin.numpy_case,
        }
        return maker[library](steps)[1], builtin.op_count(steps)  # type: ignore[index]
    if name == "W3":
        workload, dtype = "mlp-32", np.dtype(np.float32)
        inputs, labels = training.batch(workload, dtype)
        model = training.ctxgrad_model(workload, dtype)
        if library == "ctxgrad":
            return training.ctxgrad_step(model, inputs, labels), 1
        weights = training.state_arrays(model)
        if library == "torch":
            return training.torch_step(training.torch_model(workload, weights), inputs, labels), 1
        if library == "autograd":
            return training.autograd_mlp_step(weights, inputs, labels), 1
        return training.numpy_mlp_step(weights, inputs, labels), 1
    return _untracked(library), UNTRACKED_CALLS


def _untracked(library: str) -> Callable[[], object]:
    """``UNTRACKED_CALLS`` multiplications ``x * 2.0`` of 16 float64 elements, no graph."""
    import numpy as np

    if library == "ctxgrad":
        import ctxgrad

        x: Any = ctxgrad.ones(16, dtype=ctxgrad.float64)
    elif library == "torch":
        import torch

        x = torch.ones(16, dtype=torch.float64)
    elif library == "autograd":
        import autograd.numpy as anp

        multiply, array = anp.multiply, np.ones(16)

        def run_autograd() -> object:
            for _ in range(UNTRACKED_CALLS):
                multiply(array, 2.0)
            return None

        return run_autograd
    else:
        x = np.ones(16)

    def run() -> object:
        for _ in range(UNTRACKED_CALLS):
            x * 2.0
        return None

    return run


def _counted(fn: Callable[[], object], repeats: int) -> None:
    """Run ``fn`` ``repeats`` times inside one ``math.fsum`` call: the counted region."""

    def runs() -> Any:
        for _ in range(repeats):
            fn()
            yield 0.0

    math.fsum(runs())


def child(library: str, workloads: list[str]) -> None:
    """Run the workloads under callgrind; print, per counted region, its name and op count."""
    if library == "torch":
        import torch

        torch.set_num_threads(1)
    sys.path.insert(0, str(HERE))
    gc.disable()
    done = []
    for name in workloads:
        made = _workload(library, name)
        if made is None:
            continue
        fn, ops = made
        for _ in range(1 if name == "W5" else 2):  # warm-up, not counted
            fn()
        _counted(fn, REPEATS[name])
        done.append((name, ops * REPEATS[name]))
    print(json.dumps(done))


# ---------------------------------------------------------------- the parent: run and report


def _total(profile: Path) -> int:
    """The instructions (``Ir``) a callgrind profile counted."""
    for line in profile.read_text().splitlines():
        if line.startswith(("totals:", "summary:")):
            return int(line.split()[1])
    raise RuntimeError(f"no totals line in {profile}")


def count(library: str, workloads: list[str], python: str) -> dict[str, float]:
    """Instructions per op of each workload in ``library``, from one callgrind run."""
    env = dict(
        os.environ,
        PYTHONHASHSEED="0",
        OPENBLAS_NUM_THREADS="1",
        OMP_NUM_THREADS="1",
        MKL_NUM_THREADS="1",
    )
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        command = [
            "valgrind",
            "--tool=callgrind",
            "--collect-atstart=no",
            f"--toggle-collect={MARKER}",
            f"--dump-after={MARKER}",
            f"--callgrind-out-file={out}",
            python,
            str(Path(__file__).resolve()),
            "--child",
            library,
            "--workloads",
            ",".join(workloads),
        ]
        done = subprocess.run(command, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            raise RuntimeError(f"{library} under callgrind failed:\n{done.stderr[-3000:]}")
        regions = json.loads(done.stdout.strip().splitlines()[-1])
        # One profile per counted region, numbered in order (the last, at exit, counted nothing).
        profiles = sorted(Path(tmp).glob("callgrind.out.*"), key=lambda p: int(p.name.rsplit(".", 1)[1]))
        totals = [_total(p) for p in profiles][: len(regions)]
    return {name: total / ops for (name, ops), total in zip(regions, totals)}


def _cell(value: float | None) -> str:
    if value is None:
        return "-"
    return f"{value / 1e6:.2f}M" if value >= 1e6 else f"{value / 1e3:.1f}k"


def report(results: dict[str, dict[str, float]], workloads: list[str]) -> None:
    libraries = [lib for lib in LIBRARIES if lib in results]
    header = f"{'workload':10} {'unit':9}" + "".join(f"{lib:>11}" for lib in libraries)
    if "torch" in results and "ctxgrad" in results:
        header += f"{'ctxgrad/torch':>15}"
    print(header)
    for name in workloads:
        row = f"{name:10} {UNITS.get(name, 'per op'):9}"
        row += "".join(f"{_cell(results[lib].get(name)):>11}" for lib in libraries)
        if "torch" in results and "ctxgrad" in results:
            ours, theirs = results["ctxgrad"].get(name), results["torch"].get(name)
            row += f"{ours / theirs:>14.2f}x" if ours and theirs else f"{'-':>15}"
        print(row)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--libraries", default=",".join(LIBRARIES), help="comma-separated, of " + ", ".join(LIBRARIES))
    parser.add_argument("--workloads", default=",".join(WORKLOADS), help="comma-separated, of " + ", ".join(WORKLOADS))
    parser.add_argument("--json", type=Path, help="also write the counts (instructions per op) to this file")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    workloads = [w for w in args.workloads.split(",") if w]
    unknown = [w for w in workloads if w not in WORKLOADS]
    if unknown:
        parser.error(f"unknown workloads {unknown}; choose from {', '.join(WORKLOADS)}")
    if args.child:
        child(args.child, workloads)
        return 0
    if shutil.which("valgrind") is None:
        print("valgrind is not installed: nothing to count", file=sys.stderr)
        return 1
    results: dict[str, dict[str, float]] = {}
    for library in [lib for lib in args.libraries.split(",") if lib]:
        if library not in LIBRARIES:
            parser.error(f"unknown library {library!r}; choose from {', '.join(LIBRARIES)}")
        if importlib.util.find_spec(library) is None:
            print(f"{library} not importable: skipped")
            continue
        print(f"counting {library} ...", flush=True)
        results[library] = count(library, workloads, sys.executable)
    print(
        f"instructions per op, forward + backward (callgrind; {CHAIN_LENGTH}-step chains, "
        f"W5 {LONG_CHAIN_OPS:,} ops, gc off, PYTHONHASHSEED=0)"
    )
    report(results, workloads)
    if args.json is not None:
        args.json.write_text(json.dumps(results, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Timing and reporting shared by the benchmarks: runs that take turns, a table of
microseconds per op, and ratios of ctxgrad against the other rows."""

from __future__ import annotations

import argparse
import gc
import platform
import statistics
import time
from collections.abc import Callable

import numpy as np

import ctxgrad

# A benchmark case: (forward only, forward + backward), or a note saying why it was skipped.
Case = tuple[Callable[[], object], Callable[[], object]] | str


def measure(fns: list[Callable[[], object]], ops: int, runs: int, warmup: int) -> list[tuple[float, float]]:
    """(median, min) microseconds per op of each function (each run does ``ops`` ops).

    The functions take turns (one run of each, ``runs`` times over), so a burst of load
    on the machine slows all of them alike instead of one.
    """
    for fn in fns:
        for _ in range(warmup):
            fn()
    times: list[list[float]] = [[] for _ in fns]
    for _ in range(runs):
        for fn, ts in zip(fns, times):
            gc.collect()
            start = time.perf_counter()
            fn()
            ts.append((time.perf_counter() - start) / ops * 1e6)
    return [(statistics.median(ts), min(ts)) for ts in times]


def versions() -> str:
    return (
        f"python {platform.python_version()}, numpy {np.__version__}, ctxgrad {ctxgrad.__version__}, "
        f"{platform.machine()}"
    )


def chain_arguments(doc: str | None, argv: list[str] | None, length_help: str) -> argparse.Namespace:
    """``--length``, ``--runs`` (30) and ``--warmup`` (3), as the chain benchmarks take them."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0] if doc else None)
    parser.add_argument("--length", type=int, default=1000, help=f"{length_help} (default 1000)")
    parser.add_argument("--runs", type=int, default=30, help="timed runs (default 30)")
    parser.add_argument("--warmup", type=int, default=3, help="untimed runs first (default 3)")
    return parser.parse_args(argv)


def torch_label(what: str) -> str:
    """``torch 2.13.0+cpu <what>`` when torch imports, else ``torch <what>`` (its row is then a note)."""
    try:
        import torch
    except ImportError:
        return f"torch {what}"
    return f"torch {torch.__version__} {what}"


def report(cases: dict[str, Case], ours: str, ops: int, runs: int, warmup: int) -> None:
    """Time every case and print the table and the ratios of ``ours`` to each other row."""
    notes = [f"{name}: {case}" for name, case in cases.items() if isinstance(case, str)]
    ready = {name: case for name, case in cases.items() if not isinstance(case, str)}
    names = list(ready)
    fwd = measure([ready[n][0] for n in names], ops, runs, warmup)
    fwd_bwd = measure([ready[n][1] for n in names], ops, runs, warmup)
    results = dict(zip(names, zip(fwd, fwd_bwd)))

    def cell(m: tuple[float, float]) -> str:
        return f"{m[0]:8.2f} ({m[1]:.2f})"

    print(f"\n{'':30} {'forward only':>18} {'forward + backward':>20}")
    for name, (fwd_m, fb_m) in results.items():
        print(f"{name:30} {cell(fwd_m):>18} {cell(fb_m):>20}")
    mine = results[ours]
    for name, (fwd_m, fb_m) in results.items():
        if name == ours:
            continue
        short = name.split()[0]
        ratios = [f"{mine[k][0] / m[0]:.2f}x ({mine[k][1] / m[1]:.2f}x)" for k, m in enumerate((fwd_m, fb_m))]
        print(f"{'ratio ctxgrad/' + short:30} {ratios[0]:>18} {ratios[1]:>20}")
    for note in notes:
        print(f"note: {note}")

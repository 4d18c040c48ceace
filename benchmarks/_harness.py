"""Timing and reporting shared by the benchmarks: runs that take turns, a table of
microseconds per op, ratios of ctxgrad against the other rows, the check that every row
computes the same numbers before it is timed, and the Core v2 targets."""

from __future__ import annotations

import argparse
import gc
import importlib.metadata
import platform
import statistics
import time
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

import ctxgrad

# A benchmark case: (forward only, forward + backward), or a note saying why it was skipped.
Case = tuple[Callable[[], object], Callable[[], object]] | str
# A row's timing: (median, min).
Timing = tuple[float, float]
# What ``report`` measured: each timed row's (forward only, forward + backward).
Results = dict[str, tuple[Timing, Timing]]


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


def timing_parser(doc: str | None, runs: int = 30, warmup: int = 3) -> argparse.ArgumentParser:
    """A parser with ``--runs`` and ``--warmup``, for a script to add its own options to."""
    parser = argparse.ArgumentParser(description=doc.splitlines()[0] if doc else None)
    parser.add_argument("--runs", type=int, default=runs, help=f"timed runs (default {runs})")
    parser.add_argument("--warmup", type=int, default=warmup, help=f"untimed runs first (default {warmup})")
    return parser


def chain_arguments(
    doc: str | None, argv: list[str] | None, length_help: str, length: int = 1000, runs: int = 30, warmup: int = 3
) -> argparse.Namespace:
    """``--length`` (1000), ``--runs`` (30) and ``--warmup`` (3), as the chain benchmarks take them."""
    parser = timing_parser(doc, runs, warmup)
    parser.add_argument("--length", type=int, default=length, help=f"{length_help} (default {length})")
    return parser.parse_args(argv)


def torch_label(what: str) -> str:
    """``torch 2.13.0+cpu <what>`` when torch imports, else ``torch <what>`` (its row is then a note)."""
    try:
        import torch
    except ImportError:
        return f"torch {what}"
    return f"torch {torch.__version__} {what}"


def autograd_label(what: str) -> str:
    """``autograd 1.9.1 <what>`` (HIPS autograd) when it imports, else ``autograd <what>``."""
    try:
        import autograd  # noqa: F401
    except ImportError:
        return f"autograd {what}"
    return f"autograd {importlib.metadata.version('autograd')} {what}"


def graph_case(x: Any, fn: Callable[[Any], Any]) -> Case:
    """Forward-only and forward+backward runs of ``fn`` from the leaf ``x``, a ctxgrad or a
    torch tensor that requires grad: the same code times both.  The forward returns
    ``fn(x)``; the forward+backward runs ``fn(x).sum().backward()`` and returns ``x.grad``
    (clearing it for the next run)."""

    def forward() -> object:
        return fn(x)

    def forward_backward() -> object:
        fn(x).sum().backward()
        grad = x.grad
        x.grad = None
        return grad

    return forward, forward_backward


def traced_case(x: np.ndarray, fn: Callable[[Any], Any]) -> Case:
    """The same runs in HIPS autograd, which records a graph only while it traces ``fn``:
    the forward traces it (``make_vjp``, recording the graph as ctxgrad and torch do) and
    returns its value; the forward+backward returns ``grad`` of ``fn``'s sum at ``x``."""
    import autograd
    import autograd.numpy as anp

    trace = autograd.make_vjp(fn)
    gradient = autograd.grad(lambda v: anp.sum(fn(v)))

    def forward() -> object:
        return trace(x)[1]

    def forward_backward() -> object:
        return gradient(x)

    return forward, forward_backward


def to_numpy(value: Any) -> np.ndarray:
    """A ctxgrad or torch tensor, or an array, as a NumPy array."""
    if hasattr(value, "detach"):
        value = value.detach()
    return np.asarray(value.numpy() if hasattr(value, "numpy") else value)


def relative_difference(theirs: np.ndarray, mine: np.ndarray) -> float:
    """The largest ``|theirs - mine|`` over the largest ``|mine|`` (over 1 if ``mine`` is all
    zeros); equal infinities count as no difference, a shape mismatch as infinite."""
    if theirs.shape != mine.shape:
        return float("inf")
    with np.errstate(invalid="ignore", over="ignore"):
        diff = np.where(theirs == mine, 0.0, np.abs(theirs - mine))
        largest = float(np.abs(mine[np.isfinite(mine)]).max(initial=0.0))
    return float(np.nan_to_num(diff, nan=np.inf).max(initial=0.0)) / (largest or 1.0)


def verify(cases: dict[str, Case], ours: str, tolerance: float = 1e-10) -> None:
    """Run every row's forward and forward+backward once and compare their results (the
    output and the gradient) with ``ours``: exit if any differs by more than ``tolerance``
    (relative, see ``relative_difference``), so that no benchmark times a wrong
    computation; else print what agreed."""
    ready = {name: case for name, case in cases.items() if not isinstance(case, str)}
    mine = [to_numpy(run()) for run in ready[ours]]
    worst: dict[str, float] = {}
    for name, case in ready.items():
        if name == ours:
            continue
        for what, run, reference in zip(("output", "gradient"), case, mine):
            diff = relative_difference(to_numpy(run()), reference)
            if not diff <= tolerance:
                raise SystemExit(
                    f"{name}: its {what} differs from {ours}'s by {diff:.3g} (relative, > {tolerance:g}); "
                    "not timing a wrong computation"
                )
            worst[name] = max(worst.get(name, 0.0), diff)
    agreed = ", ".join(f"{name.split()[0]} {diff:.1e}" for name, diff in worst.items()) or "no other row"
    print(f"verified: output and gradient of every row match {ours}'s (max relative |diff|: {agreed})")


def ratio(mine: Timing, other: Timing) -> str:
    """``median ratio x (min ratio x)``."""
    return f"{mine[0] / other[0]:.2f}x ({mine[1] / other[1]:.2f}x)"


def target_line(what: str, other: str, limit: float, mine: Timing, theirs: Timing | None) -> str:
    """Whether ``mine`` is at most ``limit`` times ``theirs``, on the medians (a Core v2 target)."""
    wanted = f"target {what}, ctxgrad/{other} <= {limit:.2f}x"
    if theirs is None:
        return f"{wanted}: not checked, no {other} row"
    on_medians = mine[0] / theirs[0]
    return f"{wanted}: {on_medians:.2f}x on medians -> {'met' if on_medians <= limit else 'missed'}"


def print_targets(results: Results, ours: str, targets: Iterable[tuple[str, str, float]]) -> None:
    """Print each ``(what, other, limit)`` target on the forward+backward medians of
    ``results``, ``other`` being the first word of a row's name (``torch``, ``autograd``...)."""
    by_short = {name.split()[0]: timings for name, timings in results.items()}
    for what, other, limit in targets:
        theirs = by_short.get(other)
        print(target_line(what, other, limit, results[ours][1], theirs[1] if theirs else None))


def report(cases: dict[str, Case], ours: str, ops: int, runs: int, warmup: int) -> Results:
    """Time every case and print the table and the ratios of ``ours`` to each other row;
    return the timings."""
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
    return results

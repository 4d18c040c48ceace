"""W1: the overhead of a custom Function, measured on a chain of trivial ones.

A chain of ``--length`` (1000) calls of a custom Function whose forward is ``x * 2`` and
whose backward is ``g * 2``, on a float64 tensor of 16 elements that requires grad; then
``.sum().backward()``.  The arithmetic is tiny, so the time is almost all per-op
overhead: ``apply``, making the node, and the engine running it.  Reported in
microseconds per op (time of the whole chain / length), median and min over ``--runs``
runs after ``--warmup`` untimed ones, for

- ctxgrad's ``Function``;
- torch's ``torch.autograd.Function`` doing the same (skipped, with a note, when torch
  cannot be imported);
- a hand-written NumPy loop doing the same arithmetic: ``length`` multiplies forward and
  ``length`` multiplies backward, no graph at all: the floor for any Python library.

Run: ``python benchmarks/bench_custom_chain.py [--length N] [--runs N] [--warmup N]``.
"""

from __future__ import annotations

import argparse
import gc
import platform
import statistics
import sys
import time
from collections.abc import Callable
from typing import Any

import numpy as np

import ctxgrad
from ctxgrad.autograd import Function

N_ELEMENTS = 16


class Double(Function):
    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        return x * 2

    @staticmethod
    def backward(ctx: Any, g: ctxgrad.Tensor) -> ctxgrad.Tensor:
        return g * 2


def chain_cases(
    x: Any, apply: Callable[[Any], Any], length: int
) -> tuple[Callable[[], object], Callable[[], object]]:
    """Forward-only and forward+backward runs of a ``length``-long chain of ``apply`` from
    the leaf ``x``: the same code times ctxgrad and torch."""

    def forward() -> object:
        y = x
        for _ in range(length):
            y = apply(y)
        return y

    def forward_backward() -> object:
        y = x
        for _ in range(length):
            y = apply(y)
        y.sum().backward()
        x.grad = None
        return y

    return forward, forward_backward


def ctxgrad_cases(length: int) -> tuple[Callable[[], object], Callable[[], object]]:
    x = ctxgrad.ones(N_ELEMENTS, dtype=ctxgrad.float64, requires_grad=True)
    return chain_cases(x, Double.apply, length)


def torch_cases(length: int) -> tuple[Callable[[], object], Callable[[], object]] | str:
    try:
        import torch
    except ImportError as exc:
        return f"torch not importable ({exc}); skipped"

    class TorchDouble(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x * 2

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g * 2

    x = torch.ones(N_ELEMENTS, dtype=torch.float64, requires_grad=True)
    return chain_cases(x, TorchDouble.apply, length)


def numpy_cases(length: int) -> tuple[Callable[[], object], Callable[[], object]]:
    x = np.ones(N_ELEMENTS, dtype=np.float64)

    def forward() -> object:
        y = x
        for _ in range(length):
            y = y * 2
        return y

    def forward_backward() -> object:
        y = x
        for _ in range(length):
            y = y * 2
        g = np.ones_like(y)  # d sum / d y
        for _ in range(length):
            g = g * 2
        return g

    return forward, forward_backward


def measure(fns: list[Callable[[], object]], length: int, runs: int, warmup: int) -> list[tuple[float, float]]:
    """(median, min) microseconds per op of each function.

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
            ts.append((time.perf_counter() - start) / length * 1e6)
    return [(statistics.median(ts), min(ts)) for ts in times]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--length", type=int, default=1000, help="ops in the chain (default 1000)")
    parser.add_argument("--runs", type=int, default=30, help="timed runs (default 30)")
    parser.add_argument("--warmup", type=int, default=3, help="untimed runs first (default 3)")
    args = parser.parse_args(argv)
    length, runs, warmup = args.length, args.runs, args.warmup

    print(
        f"W1: chain of {length} custom Functions (forward x * 2, backward g * 2) on {N_ELEMENTS} float64 "
        f"elements\n{runs} timed runs after {warmup} warm-up; microseconds per op, median (min); "
        "ratios of medians (of mins)\n"
        f"python {platform.python_version()}, numpy {np.__version__}, ctxgrad {ctxgrad.__version__}, "
        f"{platform.machine()}"
    )
    cases: dict[str, tuple[Callable[[], object], Callable[[], object]] | str] = {
        "ctxgrad Function": ctxgrad_cases(length),
        "torch Function": torch_cases(length),
        "numpy loop": numpy_cases(length),
    }
    notes = [f"{name}: {case}" for name, case in cases.items() if isinstance(case, str)]
    ready = {name: case for name, case in cases.items() if not isinstance(case, str)}
    if "torch Function" in ready:
        import torch

        ready = {(f"torch {torch.__version__} Function" if k == "torch Function" else k): v for k, v in ready.items()}
    names = list(ready)
    fwd = measure([ready[n][0] for n in names], length, runs, warmup)
    fwd_bwd = measure([ready[n][1] for n in names], length, runs, warmup)
    results = {n: (f, fb) for n, f, fb in zip(names, fwd, fwd_bwd)}

    def cell(m: tuple[float, float]) -> str:
        return f"{m[0]:8.2f} ({m[1]:.2f})"

    print(f"\n{'':28} {'forward only':>18} {'forward + backward':>20}")
    for name, (fwd_m, fb_m) in results.items():
        print(f"{name:28} {cell(fwd_m):>18} {cell(fb_m):>20}")
    ours = results["ctxgrad Function"]
    for name, (fwd_m, fb_m) in results.items():
        if name == "ctxgrad Function":
            continue
        short = "torch" if name.startswith("torch") else "numpy"
        ratios = [f"{ours[k][0] / m[0]:.2f}x ({ours[k][1] / m[1]:.2f}x)" for k, m in enumerate((fwd_m, fb_m))]
        print(f"{'ratio ctxgrad/' + short:28} {ratios[0]:>18} {ratios[1]:>20}")
    for note in notes:
        print(f"note: {note}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

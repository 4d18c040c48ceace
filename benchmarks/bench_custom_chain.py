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

import sys
from collections.abc import Callable
from typing import Any

import numpy as np
from _harness import Case, chain_arguments, report, torch_label, versions

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


def chain_cases(x: Any, apply: Callable[[Any], Any], length: int) -> tuple[Callable[[], object], Callable[[], object]]:
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


def main(argv: list[str] | None = None) -> int:
    args = chain_arguments(__doc__, argv, "ops in the chain")
    length, runs, warmup = args.length, args.runs, args.warmup

    print(
        f"W1: chain of {length} custom Functions (forward x * 2, backward g * 2) on {N_ELEMENTS} float64 "
        f"elements\n{runs} timed runs after {warmup} warm-up; microseconds per op, median (min); "
        f"ratios of medians (of mins)\n{versions()}"
    )
    torch_name = torch_label("Function")
    cases: dict[str, Case] = {
        "ctxgrad Function": ctxgrad_cases(length),
        torch_name: torch_cases(length),
        "numpy loop": numpy_cases(length),
    }
    report(cases, "ctxgrad Function", length, runs, warmup)
    return 0


if __name__ == "__main__":
    sys.exit(main())

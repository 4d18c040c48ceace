"""W1 and W1b: the overhead of a custom Function, measured on chains of cheap ones.

Two workloads, each a chain of ``--length`` (1000) calls of a custom Function on a float64
tensor of 16 elements that requires grad, then ``.sum().backward()``:

- W1: a trivial Function, forward ``x * 2``, backward ``g * 2`` (from a leaf of ones);
- W1b: a Function with a saved tensor, forward ``y = x / (1 + x²)`` saving ``x``, backward
  ``g (1 - x²) / (1 + x²)²``, both written with tensor ops (from a leaf of values spread
  over [-2, 2]).

The arithmetic is tiny, so the time is almost all per-op overhead: ``apply``, making the
node, saving tensors, and the engine running the node.  Reported in microseconds per op
(time of the whole chain / length), median and min over ``--runs`` runs after ``--warmup``
untimed ones, for

- ctxgrad's ``Function``;
- torch's ``torch.autograd.Function`` doing the same (skipped, with a note, when torch
  cannot be imported);
- HIPS autograd's custom primitive (``autograd.extend.primitive`` with ``defvjp``) doing
  the same (skipped, with a note, when autograd cannot be imported);
- a hand-written NumPy loop doing the same arithmetic forward and backward, with no graph
  at all: the floor for any Python library.

Before timing, every row's output and gradient are checked against ctxgrad's. Under each
table, the Core v2 target (forward + backward at most 0.8x HIPS autograd's time, on the
medians) is checked.

Run: ``python benchmarks/bench_custom_chain.py [--length N] [--runs N] [--warmup N]``.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import numpy as np
from _harness import (
    Case,
    autograd_label,
    chain_arguments,
    graph_case,
    print_targets,
    report,
    torch_label,
    traced_case,
    verify,
    versions,
)

import ctxgrad
from ctxgrad.autograd import Function

N_ELEMENTS = 16
# The Core v2 target of W1 and W1b: ctxgrad's forward + backward at most this times HIPS autograd's.
TARGET_VS_AUTOGRAD = 0.8


class Double(Function):
    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        return x * 2

    @staticmethod
    def backward(ctx: Any, g: ctxgrad.Tensor) -> ctxgrad.Tensor:
        return g * 2


class Squash(Function):
    """``x / (1 + x²)``, whose derivative is ``(1 - x²) / (1 + x²)²``."""

    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        ctx.save_for_backward(x)
        return x / (1 + x * x)

    @staticmethod
    def backward(ctx: Any, g: ctxgrad.Tensor) -> ctxgrad.Tensor:
        (x,) = ctx.saved_tensors
        return g * (1 - x * x) / (1 + x * x) ** 2


def chain(apply: Callable[[Any], Any], length: int) -> Callable[[Any], Any]:
    """``x`` through ``length`` calls of ``apply``: the same code for every library."""

    def run(x: Any) -> Any:
        y = x
        for _ in range(length):
            y = apply(y)
        return y

    return run


def leaf(workload: str) -> np.ndarray:
    """The chain's starting values."""
    return np.ones(N_ELEMENTS) if workload == "W1" else np.linspace(-2.0, 2.0, N_ELEMENTS)


def ctxgrad_case(workload: str, length: int) -> Case:
    x = ctxgrad.tensor(leaf(workload), dtype=ctxgrad.float64, requires_grad=True)
    return graph_case(x, chain((Double if workload == "W1" else Squash).apply, length))


def torch_case(workload: str, length: int) -> Case:
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

    class TorchSquash(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x / (1 + x * x)

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            (x,) = ctx.saved_tensors
            return g * (1 - x * x) / (1 + x * x) ** 2

    x = torch.tensor(leaf(workload), dtype=torch.float64, requires_grad=True)
    return graph_case(x, chain((TorchDouble if workload == "W1" else TorchSquash).apply, length))


def autograd_case(workload: str, length: int) -> Case:
    try:
        from autograd.extend import defvjp, primitive
    except ImportError as exc:
        return f"autograd not importable ({exc}); skipped"

    @primitive
    def double(x: np.ndarray) -> np.ndarray:
        return x * 2

    @primitive
    def squash(x: np.ndarray) -> np.ndarray:
        return x / (1 + x * x)

    defvjp(double, lambda ans, x: lambda g: g * 2)
    defvjp(squash, lambda ans, x: lambda g: g * (1 - x * x) / (1 + x * x) ** 2)
    return traced_case(leaf(workload), chain(double if workload == "W1" else squash, length))


def numpy_case(workload: str, length: int) -> Case:
    """The same arithmetic by hand: ``length`` forward steps, then ``length`` steps of the
    chain rule (W1b keeps each step's input for them, as its Function saves it)."""
    x = leaf(workload)

    def double_forward() -> object:
        y = x
        for _ in range(length):
            y = y * 2
        return y

    def double_forward_backward() -> object:
        y = double_forward()
        g = np.ones_like(y)  # d sum / d y
        for _ in range(length):
            g = g * 2
        return g

    def squash_forward() -> object:
        y = x
        for _ in range(length):
            y = y / (1 + y * y)
        return y

    def squash_forward_backward() -> object:
        y = x
        inputs = []
        for _ in range(length):
            inputs.append(y)
            y = y / (1 + y * y)
        g = np.ones_like(y)  # d sum / d y
        for v in reversed(inputs):
            g = g * (1 - v * v) / (1 + v * v) ** 2
        return g

    if workload == "W1":
        return double_forward, double_forward_backward
    return squash_forward, squash_forward_backward


DESCRIPTIONS = {
    "W1": "custom Functions (forward x * 2, backward g * 2)",
    "W1b": "custom Functions (forward x / (1 + x²) saving x, backward g (1 - x²) / (1 + x²)²)",
}


def main(argv: list[str] | None = None) -> int:
    args = chain_arguments(__doc__, argv, "ops in the chain")
    length, runs, warmup = args.length, args.runs, args.warmup

    for workload, description in DESCRIPTIONS.items():
        if workload != "W1":
            print("\n")
        print(
            f"{workload}: chain of {length} {description} on {N_ELEMENTS} float64 "
            f"elements\n{runs} timed runs after {warmup} warm-up; microseconds per op, median (min); "
            f"ratios of medians (of mins)\n{versions()}"
        )
        cases: dict[str, Case] = {
            "ctxgrad Function": ctxgrad_case(workload, length),
            torch_label("Function"): torch_case(workload, length),
            autograd_label("primitive"): autograd_case(workload, length),
            "numpy loop": numpy_case(workload, length),
        }
        verify(cases, "ctxgrad Function")
        results = report(cases, "ctxgrad Function", length, runs, warmup)
        print_targets(results, "ctxgrad Function", [(f"{workload} forward + backward", "autograd", TARGET_VS_AUTOGRAD)])
    return 0


if __name__ == "__main__":
    sys.exit(main())

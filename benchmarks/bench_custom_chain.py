"""W1 and W1b: the overhead of a custom Function, measured on chains of cheap ones.

Three workloads, each a chain of ``--length`` (1000) calls of a custom Function on a float64
tensor of 16 elements that requires grad, then ``.sum().backward()``:

- W1: a trivial Function, forward ``x * 2``, backward ``g * 2`` (from a leaf of ones);
- W1b: a Function with a saved tensor, forward ``y = x / (1 + x²)`` saving ``x``, backward
  ``g (1 - x²) / (1 + x²)²``, both written with tensor ops (from a leaf of values spread
  over [-2, 2]);
- W1b-arrays: W1b's Function written on arrays, the style the docs teach for NumPy work
  (``docs/custom-functions.md``, section 3): ``forward`` and ``backward`` read ``x.array``
  and ``g.array``, compute with NumPy and return ``ctxgrad.as_tensor(...)`` of the result.
  torch's Function does the same with ``.detach().numpy()`` and ``torch.from_numpy``;
  HIPS autograd's primitive is written on arrays anyway (the same row as W1b's).  W1b-arrays
  also runs with the saved-array lock off (``set_saved_array_lock_enabled(False)``: saving
  ``x`` no longer makes its memory read-only, as in torch and HIPS autograd), the row
  ``lock-off ctxgrad Function``.

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
table, the target is checked on the medians of forward + backward: for W1 and W1b the
Core v2 target (at most 0.8x HIPS autograd's time), for W1b-arrays at most 1.0x HIPS
autograd's time (issue 31: a Function written on arrays as fast as HIPS autograd's
primitive).

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
# The targets: ctxgrad's forward + backward at most this times HIPS autograd's (W1 and W1b: Core v2's).
TARGET_VS_AUTOGRAD = {"W1": 0.8, "W1b": 0.8, "W1b-arrays": 1.0}
UNLOCKED = "lock-off ctxgrad Function"


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


class SquashOnArrays(Function):
    """``Squash`` written on arrays: NumPy computes, ``as_tensor`` wraps the result."""

    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        ctx.save_for_backward(x)
        a = x.array
        return ctxgrad.as_tensor(a / (1 + a * a))

    @staticmethod
    def backward(ctx: Any, g: ctxgrad.Tensor) -> ctxgrad.Tensor:
        (x,) = ctx.saved_tensors
        a = x.array
        return ctxgrad.as_tensor(g.array * (1 - a * a) / (1 + a * a) ** 2)


FUNCTIONS = {"W1": Double, "W1b": Squash, "W1b-arrays": SquashOnArrays}


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
    return graph_case(x, chain(FUNCTIONS[workload].apply, length))


def unlocked_case(workload: str, length: int) -> Case:
    """``ctxgrad_case`` with the saved-array lock off while each run records."""
    # (imported here: compare_commits.py runs this file on commits that predate the switch)
    from ctxgrad.autograd.graph import set_saved_array_lock_enabled

    forward, forward_backward = ctxgrad_case(workload, length)
    unlocked = set_saved_array_lock_enabled(False)
    return unlocked(forward), unlocked(forward_backward)


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

    class TorchSquashOnArrays(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            a = x.detach().numpy()
            return torch.from_numpy(a / (1 + a * a))

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            (x,) = ctx.saved_tensors
            a = x.detach().numpy()
            return torch.from_numpy(g.detach().numpy() * (1 - a * a) / (1 + a * a) ** 2)

    functions = {"W1": TorchDouble, "W1b": TorchSquash, "W1b-arrays": TorchSquashOnArrays}
    x = torch.tensor(leaf(workload), dtype=torch.float64, requires_grad=True)
    return graph_case(x, chain(functions[workload].apply, length))


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
    "W1b-arrays": "W1b's custom Functions written on arrays (x.array, NumPy, ctxgrad.as_tensor)",
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
        cases: dict[str, Case] = {"ctxgrad Function": ctxgrad_case(workload, length)}
        if workload == "W1b-arrays":
            cases[UNLOCKED] = unlocked_case(workload, length)
        cases[torch_label("Function")] = torch_case(workload, length)
        cases[autograd_label("primitive")] = autograd_case(workload, length)
        cases["numpy loop"] = numpy_case(workload, length)
        verify(cases, "ctxgrad Function")
        results = report(cases, "ctxgrad Function", length, runs, warmup)
        target = (f"{workload} forward + backward", "autograd", TARGET_VS_AUTOGRAD[workload])
        print_targets(results, "ctxgrad Function", [target])
        if UNLOCKED in results:
            target = (f"{workload} forward + backward, lock off", "autograd", TARGET_VS_AUTOGRAD[workload])
            print_targets(results, UNLOCKED, [target])
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""W2: the overhead of the built-in ops, on a chain of cheap ones.

``--length`` (1000) steps of ``x = x * 1.0001 + 0.001``, with ``x = tanh(x)`` after every
10th step, from a float64 leaf of 16 elements that requires grad; then
``.sum().backward()``.  That is 2,100 ops (a multiply and an add per step, and 100 tanh),
whose arithmetic is tiny, so the time is per-op overhead: the op's ``apply``, its node,
and the engine running its backward.  Reported in microseconds per op (time of the whole
chain / number of ops), median and min over ``--runs`` runs after ``--warmup`` untimed
ones, for

- ctxgrad's built-in ops;
- the same chain traced once with ``ctxgrad.trace`` and replayed: one graph node, whose
  forward and backward are each one generated function of NumPy ufunc calls (written by
  the first replay's backward, which the check before timing runs; see ``docs/trace.md``);
- torch running the same code (skipped, with a note, when torch cannot be imported);
- HIPS autograd running the same code on ``autograd.numpy`` (skipped, with a note, when
  autograd cannot be imported);
- hand-written NumPy doing the same forward and the backward by the chain rule (no graph):
  the floor for any Python library.

Before timing, every row's output and gradient are checked against ctxgrad's. Under the
table, the Core v2 target (forward + backward no slower than torch, on the medians) is
checked.

Run: ``python benchmarks/bench_builtin_chain.py [--length N] [--runs N] [--warmup N]``.
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

N_ELEMENTS = 16
TANH_EVERY = 10
# The Core v2 target of W2: ctxgrad's forward + backward at most this times torch's.
TARGET_VS_TORCH = 1.0
REPLAY = "ctxgrad.trace replay"


def op_count(length: int) -> int:
    return 2 * length + length // TANH_EVERY


def chain(tanh: Callable[[Any], Any], length: int) -> Callable[[Any], Any]:
    """The chain from ``x``, with the library's ``tanh``: the same code for every library."""

    def run(x: Any) -> Any:
        y = x
        for i in range(1, length + 1):
            y = y * 1.0001 + 0.001
            if i % TANH_EVERY == 0:
                y = tanh(y)
        return y

    return run


def ctxgrad_case(length: int) -> Case:
    x = ctxgrad.ones(N_ELEMENTS, dtype=ctxgrad.float64, requires_grad=True)
    return graph_case(x, chain(ctxgrad.tanh, length))


def replay_case(length: int) -> Case:
    x = ctxgrad.ones(N_ELEMENTS, dtype=ctxgrad.float64, requires_grad=True)
    return graph_case(x, ctxgrad.trace(chain(ctxgrad.tanh, length), x, strict=True))


def torch_case(length: int) -> Case:
    try:
        import torch
    except ImportError as exc:
        return f"torch not importable ({exc}); skipped"
    x = torch.ones(N_ELEMENTS, dtype=torch.float64, requires_grad=True)
    return graph_case(x, chain(torch.tanh, length))


def autograd_case(length: int) -> Case:
    try:
        import autograd.numpy as anp
    except ImportError as exc:
        return f"autograd not importable ({exc}); skipped"
    return traced_case(np.ones(N_ELEMENTS), chain(anp.tanh, length))


def numpy_case(length: int) -> Case:
    x = np.ones(N_ELEMENTS, dtype=np.float64)

    def forward() -> object:
        y = x
        for i in range(1, length + 1):
            y = y * 1.0001 + 0.001
            if i % TANH_EVERY == 0:
                y = np.tanh(y)
        return y

    def forward_backward() -> object:
        y = x
        tanh_outputs = []
        for i in range(1, length + 1):
            y = y * 1.0001 + 0.001
            if i % TANH_EVERY == 0:
                y = np.tanh(y)
                tanh_outputs.append(y)
        g = np.ones_like(y)  # d sum / d y
        for i in range(length, 0, -1):
            if i % TANH_EVERY == 0:
                t = tanh_outputs.pop()
                g = g * (1 - t * t)
            g = g * 1.0001  # the add passes g through; the multiply scales it
        return g

    return forward, forward_backward


def main(argv: list[str] | None = None) -> int:
    args = chain_arguments(__doc__, argv, "steps in the chain")
    length, runs, warmup = args.length, args.runs, args.warmup
    ops = op_count(length)
    print(
        f"W2: chain of {length} steps x = x * 1.0001 + 0.001, tanh every {TANH_EVERY} ({ops} built-in ops) on "
        f"{N_ELEMENTS} float64 elements\n{runs} timed runs after {warmup} warm-up; microseconds per op, "
        f"median (min); ratios of medians (of mins)\n{versions()}"
    )
    cases: dict[str, Case] = {
        "ctxgrad ops": ctxgrad_case(length),
        REPLAY: replay_case(length),
        torch_label("ops"): torch_case(length),
        autograd_label("ops"): autograd_case(length),
        "numpy loop": numpy_case(length),
    }
    verify(cases, "ctxgrad ops")
    results = report(cases, "ctxgrad ops", ops, runs, warmup)
    replay, floor = results[REPLAY], results["numpy loop"]
    cells = [f"{replay[k][0] / floor[k][0]:.2f}x ({replay[k][1] / floor[k][1]:.2f}x)" for k in (0, 1)]
    print(f"{'ratio replay/numpy':30} {cells[0]:>18} {cells[1]:>20}")
    print_targets(results, "ctxgrad ops", [("W2 forward + backward", "torch", TARGET_VS_TORCH)])
    return 0


if __name__ == "__main__":
    sys.exit(main())

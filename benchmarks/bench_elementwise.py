"""W4: twenty elementwise ops on a large array, where the arithmetic is the cost.

A fixed sequence of 20 elementwise ops (multiplies and adds by constants and by the input,
``tanh``, ``exp``, ``log``, ``sin``, ``cos``, ``square``, ``sqrt``, ``reciprocal``; the
values stay in ranges where each is well-behaved) on a float64 leaf of ``--elements``
(10⁶) values drawn uniformly from [-1, 1] that requires grad, then ``.sum().backward()``.
Each op reads and writes megabytes, so the per-op overhead of a library should vanish
beside NumPy's own work: what is left is the arithmetic a library adds (extra temporaries,
copies, gradient accumulation).  Reported in microseconds per op (time of the 20 ops /
20), median and min over ``--runs`` runs after ``--warmup`` untimed ones, for

- ctxgrad's built-in ops;
- torch running the same code (skipped, with a note, when torch cannot be imported);
- HIPS autograd running the same code on ``autograd.numpy`` (skipped, with a note, when
  autograd cannot be imported);
- hand-written NumPy: the same code forward, and the chain rule written out by hand
  backward, each derivative in its textbook form: the floor.

Before timing, every row's output and gradient are checked against ctxgrad's. Under the
table, the Core v2 target (forward + backward within 5% of NumPy's time, on the medians)
is checked.

Run: ``python benchmarks/bench_elementwise.py [--elements N] [--runs N] [--warmup N]``.
"""

from __future__ import annotations

import sys
from types import ModuleType
from typing import Any

import numpy as np
from _harness import (
    Case,
    autograd_label,
    graph_case,
    print_targets,
    report,
    timing_parser,
    torch_label,
    traced_case,
    verify,
    versions,
)

import ctxgrad

N_OPS = 20
# The Core v2 target of W4: ctxgrad's forward + backward at most this times NumPy's.
TARGET_VS_NUMPY = 1.05
# Twenty ops in float64, with different SIMD kernels in each library: a few ulps apart.
TOLERANCE = 1e-12


def twenty_ops(x: Any, lib: ModuleType) -> Any:
    """The workload, with ``lib``'s functions (ctxgrad, torch, autograd.numpy or numpy):
    the same code for every library.  The comments give the range of ``y`` for x in [-1, 1]."""
    y = x * 0.5  # [-0.5, 0.5]
    y = y + 0.25
    y = lib.tanh(y)
    y = y * x
    y = lib.exp(y)  # (0, 2)
    y = y + 1.0
    y = lib.log(y)  # (0.4, 1.1)
    y = lib.sin(y)
    y = y * y
    y = y + x  # (-1, 1.8)
    y = lib.cos(y)
    y = y * 2.0
    y = y - 0.5
    y = lib.tanh(y)
    y = lib.square(y)
    y = y + 1.0  # [1, 2)
    y = lib.sqrt(y)
    y = lib.reciprocal(y)  # (0.7, 1]
    y = y * x
    return lib.sin(y)


def numpy_forward_backward(x: np.ndarray) -> np.ndarray:
    """``twenty_ops`` forward, keeping what the backward needs, and the gradient of its sum
    by the chain rule, op by op from the last."""
    y1 = x * 0.5
    y2 = y1 + 0.25
    t1 = np.tanh(y2)
    y4 = t1 * x
    e = np.exp(y4)
    y6 = e + 1.0
    l7 = np.log(y6)
    s8 = np.sin(l7)
    y9 = s8 * s8
    y10 = y9 + x
    c11 = np.cos(y10)
    y12 = c11 * 2.0
    y13 = y12 - 0.5
    t14 = np.tanh(y13)
    y15 = np.square(t14)
    y16 = y15 + 1.0
    r17 = np.sqrt(y16)
    q18 = np.reciprocal(r17)
    y19 = q18 * x
    # out = sin(y19); d sum(out) / d out = 1
    g = np.cos(y19)
    grad_x = g * q18
    g = g * x
    g = g * -(q18 * q18)  # reciprocal
    g = g * 0.5 / r17  # sqrt
    g = g * 2.0 * t14  # square
    g = g * (1.0 - t14 * t14)  # tanh
    g = g * 2.0
    g = g * -np.sin(y10)  # cos
    grad_x = grad_x + g
    g = g * 2.0 * s8  # s8 * s8
    g = g * np.cos(l7)  # sin
    g = g / y6  # log
    g = g * e  # exp
    grad_x = grad_x + g * t1
    g = g * x
    g = g * (1.0 - t1 * t1)  # tanh
    return grad_x + g * 0.5


def main(argv: list[str] | None = None) -> int:
    parser = timing_parser(__doc__, runs=30, warmup=3)
    parser.add_argument("--elements", type=int, default=10**6, help="elements of the array (default 1000000)")
    args = parser.parse_args(argv)
    elements, runs, warmup = args.elements, args.runs, args.warmup
    print(
        f"W4: {N_OPS} elementwise ops (mul, add, tanh, exp, log, sin, cos, square, sqrt, reciprocal) on {elements} "
        f"float64 elements\n{runs} timed runs after {warmup} warm-up; microseconds per op, median (min); "
        f"ratios of medians (of mins)\n{versions()}"
    )
    x = np.random.default_rng(0).uniform(-1.0, 1.0, elements)
    cases: dict[str, Case] = {
        "ctxgrad ops": graph_case(ctxgrad.tensor(x, requires_grad=True), lambda v: twenty_ops(v, ctxgrad)),
    }
    try:
        import torch

        cases[torch_label("ops")] = graph_case(torch.tensor(x, requires_grad=True), lambda v: twenty_ops(v, torch))
    except ImportError as exc:
        cases[torch_label("ops")] = f"torch not importable ({exc}); skipped"
    try:
        import autograd.numpy as anp

        cases[autograd_label("ops")] = traced_case(x, lambda v: twenty_ops(v, anp))
    except ImportError as exc:
        cases[autograd_label("ops")] = f"autograd not importable ({exc}); skipped"
    cases["numpy by hand"] = (lambda: twenty_ops(x, np), lambda: numpy_forward_backward(x))
    verify(cases, "ctxgrad ops", TOLERANCE)
    results = report(cases, "ctxgrad ops", N_OPS, runs, warmup)
    print_targets(results, "ctxgrad ops", [("W4 forward + backward", "numpy", TARGET_VS_NUMPY)])
    return 0


if __name__ == "__main__":
    sys.exit(main())

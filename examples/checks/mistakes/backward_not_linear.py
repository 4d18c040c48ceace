"""Mistake: backward normalises the incoming gradient, so it is not linear in it.  Each
column of the Jacobian (a one-hot ``grad``, norm 1) still comes out right, so finite
differences against one-hot grad_outputs pass; but ``(3 * Cube.apply(x)).sum()`` gets the
gradient of ``Cube.apply(x).sum()``, and the tangents forward mode derives from backward are
wrong too.  The checker calls backward with random ``g``, ``2g``, ``h`` and ``g + h``.
Finding: ``backward-not-linear`` (with or without ``--forward``)."""

from __future__ import annotations

from typing import Any

import ctxgrad
from ctxgrad.autograd import Function
from ctxgrad.checks import example


@example(ctxgrad.tensor([0.5, -1.0, 2.0]))
class Cube(Function):
    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx: Any, grad: ctxgrad.Tensor) -> ctxgrad.Tensor:
        (x,) = ctx.saved_tensors
        return 3 * x * x * grad / grad.norm()  # WRONG: 3 * x * x * grad (normalise in the optimiser)

"""Mistake: backward multiplies by the magnitude of the incoming gradient, ``2 * grad * |grad|``
where ``2 * x * grad`` is right.  A one-hot ``grad`` (0 or 1) gives the right column of the
Jacobian, so finite differences against one-hot grad_outputs pass; but ``(3 * f(x)).sum()``
gets 18 where 6 is right.
Finding: ``backward-not-linear``."""

from __future__ import annotations

from typing import Any

import ctxgrad
from ctxgrad.autograd import Function
from ctxgrad.checks import example


@example(ctxgrad.tensor([1.0]))
class Square(Function):
    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx: Any, grad: ctxgrad.Tensor) -> ctxgrad.Tensor:
        (x,) = ctx.saved_tensors
        return 2 * x * grad * grad.abs()  # WRONG: 2 * x * grad

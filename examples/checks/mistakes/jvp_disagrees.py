"""Mistake: the ``jvp`` of ``exp`` forgets to multiply by ``exp(x)``; the backward is
right.  Finding: ``jvp-disagrees-with-backward``."""

from __future__ import annotations

from typing import Any

import ctxgrad
from ctxgrad.autograd import Function
from ctxgrad.checks import example


@example(ctxgrad.tensor([0.5, -1.0, 2.0]))
class Exp(Function):
    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: Any, grad: ctxgrad.Tensor) -> ctxgrad.Tensor:
        (y,) = ctx.saved_tensors
        return grad * y

    @staticmethod
    def jvp(ctx: Any, tangent: ctxgrad.Tensor) -> ctxgrad.Tensor:
        return tangent  # WRONG: tangent * exp(x)

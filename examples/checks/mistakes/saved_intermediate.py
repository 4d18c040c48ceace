"""Mistake: forward saves ``e = exp(x)``, an intermediate made without a graph; the
first derivative is right, but double backward treats ``e`` as a constant and is
silently wrong.  Finding: ``saved-intermediate``."""

from __future__ import annotations

from typing import Any

import ctxgrad
from ctxgrad.autograd import Function
from ctxgrad.checks import example


@example(ctxgrad.tensor([0.5, -1.0, 2.0]))
class TwiceExp(Function):
    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        e = x.exp()
        ctx.save_for_backward(e)  # WRONG: save x (or the output) and recompute exp(x) in backward
        return e * 2

    @staticmethod
    def backward(ctx: Any, grad: ctxgrad.Tensor) -> ctxgrad.Tensor:
        (e,) = ctx.saved_tensors
        return grad * 2 * e

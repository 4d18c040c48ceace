"""Mistake: forward clamps its input in place and does not tell autograd with
``ctx.mark_dirty``.  Finding: ``inplace-without-mark-dirty``."""

from __future__ import annotations

from typing import Any

import ctxgrad
from ctxgrad.autograd import Function
from ctxgrad.checks import example


@example(ctxgrad.tensor([0.5, -1.0, 2.0]))
class DoubleRelu(Function):
    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        x.clamp_(min=0)  # WRONG: changes the caller's tensor; use x.clamp(min=0), or mark_dirty and return x
        ctx.save_for_backward(x)
        return x * 2

    @staticmethod
    def backward(ctx: Any, grad: ctxgrad.Tensor) -> ctxgrad.Tensor:
        (y,) = ctx.saved_tensors
        return grad * 2 * (y > 0)

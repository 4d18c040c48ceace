"""Mistake: backward returns a gradient for ``scale``, which is a Python number, not a
tensor.  Finding: ``gradient-for-non-tensor``."""

from __future__ import annotations

from typing import Any

import ctxgrad
from ctxgrad.autograd import Function
from ctxgrad.checks import example


@example(ctxgrad.tensor([0.5, -1.0, 2.0]), 3.0)
class Scale(Function):
    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor, scale: float) -> ctxgrad.Tensor:
        ctx.save_for_backward(x)
        ctx.scale = scale
        return x * scale

    @staticmethod
    def backward(ctx: Any, grad: ctxgrad.Tensor) -> Any:
        (x,) = ctx.saved_tensors
        return grad * ctx.scale, (grad * x).sum()  # WRONG: `scale` is a number: its gradient must be None

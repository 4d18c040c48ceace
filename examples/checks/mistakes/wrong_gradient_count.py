"""Mistake: backward returns one gradient, but forward takes two arguments (x and the
number ``power``).  Finding: ``wrong-gradient-count``."""

from __future__ import annotations

from typing import Any

import ctxgrad
from ctxgrad.autograd import Function
from ctxgrad.checks import example


@example(ctxgrad.tensor([0.5, 1.5, 2.0]), 3.0)
class Power(Function):
    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor, power: float) -> ctxgrad.Tensor:
        ctx.save_for_backward(x)
        ctx.power = power
        return x**power

    @staticmethod
    def backward(ctx: Any, grad: ctxgrad.Tensor) -> Any:
        (x,) = ctx.saved_tensors
        return (grad * ctx.power * x ** (ctx.power - 1),)  # WRONG: needs a second value, None for `power`

"""Mistake: backward returns a float32 gradient for a float64 input (the engine casts it
back, silently losing precision).  Finding: ``wrong-gradient-dtype``."""

from __future__ import annotations

from typing import Any

import ctxgrad
from ctxgrad.autograd import Function
from ctxgrad.checks import example


@example(ctxgrad.tensor([0.5, -1.0, 2.0]))
class Square(Function):
    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx: Any, grad: ctxgrad.Tensor) -> ctxgrad.Tensor:
        (x,) = ctx.saved_tensors
        return (2 * x * grad).to(ctxgrad.float32)  # WRONG: the gradient must keep x's dtype

"""Mistake: a Function with two outputs (sin and cos) whose backward uses only the gradient
of the first: a loss on the second output gets no gradient at all.
Finding: ``output-gradient-ignored``."""

from __future__ import annotations

from typing import Any

import ctxgrad
from ctxgrad.autograd import Function
from ctxgrad.checks import example


@example(ctxgrad.tensor([0.5, -1.0, 2.0]))
class SinCos(Function):
    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor) -> tuple[ctxgrad.Tensor, ctxgrad.Tensor]:
        ctx.save_for_backward(x)
        return x.sin(), x.cos()

    @staticmethod
    def backward(ctx: Any, grad_sin: ctxgrad.Tensor, grad_cos: ctxgrad.Tensor) -> ctxgrad.Tensor:
        (x,) = ctx.saved_tensors
        return grad_sin * x.cos()  # WRONG: grad_sin * x.cos() - grad_cos * x.sin()

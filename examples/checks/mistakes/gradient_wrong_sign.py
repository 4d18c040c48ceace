"""Mistake: the derivative of ``cos`` is written as ``sin`` (it is ``-sin``).
Finding: ``gradient-wrong-sign``."""

from __future__ import annotations

from typing import Any

import ctxgrad
from ctxgrad.autograd import Function
from ctxgrad.checks import example


@example(ctxgrad.tensor([0.5, -1.0, 2.0]))
class Cos(Function):
    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        ctx.save_for_backward(x)
        return x.cos()

    @staticmethod
    def backward(ctx: Any, grad: ctxgrad.Tensor) -> ctxgrad.Tensor:
        (x,) = ctx.saved_tensors
        return grad * x.sin()  # WRONG: -grad * x.sin()

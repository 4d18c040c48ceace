"""Mistake: the input is kept as ``ctx.x`` instead of passed to ``save_for_backward``.
Finding: ``tensor-as-ctx-attribute``."""

from __future__ import annotations

from typing import Any

import ctxgrad
from ctxgrad.autograd import Function
from ctxgrad.checks import example


@example(ctxgrad.tensor([0.5, -1.0, 2.0]))
class Square(Function):
    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        ctx.x = x  # WRONG: ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx: Any, grad: ctxgrad.Tensor) -> ctxgrad.Tensor:
        return 2 * ctx.x * grad

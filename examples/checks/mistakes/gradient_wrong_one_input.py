"""Mistake: the gradient of ``w`` in ``x * w + b`` uses ``w`` instead of ``x``; the
gradients of ``x`` and ``b`` are right.  Finding: ``gradient-wrong`` naming ``w``."""

from __future__ import annotations

from typing import Any

import ctxgrad
from ctxgrad.autograd import Function
from ctxgrad.checks import example


@example(ctxgrad.tensor([1.0, 2.0, 3.0]), ctxgrad.tensor([0.5, -1.0, 4.0]), ctxgrad.tensor([0.1, 0.2, 0.3]))
class MulAdd(Function):
    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor, w: ctxgrad.Tensor, b: ctxgrad.Tensor) -> ctxgrad.Tensor:
        ctx.save_for_backward(x, w)
        return x * w + b

    @staticmethod
    def backward(ctx: Any, grad: ctxgrad.Tensor) -> Any:
        _x, w = ctx.saved_tensors  # x is saved but never used: the gradient of w needs it
        grad_x = grad * w if ctx.needs_input_grad[0] else None
        grad_w = grad * w if ctx.needs_input_grad[1] else None  # WRONG: the gradient of w is grad * x
        grad_b = grad if ctx.needs_input_grad[2] else None
        return grad_x, grad_w, grad_b

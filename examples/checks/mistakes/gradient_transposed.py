"""Mistake: the gradient of ``x`` in ``w @ x`` uses ``w`` where it needs ``w.T``
(backward applies J instead of J^T).  Finding: ``gradient-transposed``."""

from __future__ import annotations

from typing import Any

import ctxgrad
from ctxgrad.autograd import Function
from ctxgrad.checks import example


@example(ctxgrad.tensor([[1.0, 2.0], [-3.0, 0.5]]), ctxgrad.tensor([0.3, -0.7]))
class MatVec(Function):
    @staticmethod
    def forward(ctx: Any, w: ctxgrad.Tensor, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        ctx.save_for_backward(w, x)
        return w @ x

    @staticmethod
    def backward(ctx: Any, grad: ctxgrad.Tensor) -> Any:
        w, x = ctx.saved_tensors
        grad_w = grad.unsqueeze(1) * x.unsqueeze(0) if ctx.needs_input_grad[0] else None
        grad_x = w @ grad if ctx.needs_input_grad[1] else None  # WRONG: the gradient of x is w.T @ grad
        return grad_w, grad_x

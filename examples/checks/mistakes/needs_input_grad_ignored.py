"""Mistake (a hint, not an error): backward computes the gradients of both inputs even
when only one of them requires grad.  Finding: ``needs-input-grad-ignored``."""

from __future__ import annotations

from typing import Any

import ctxgrad
from ctxgrad.autograd import Function
from ctxgrad.checks import example


@example(ctxgrad.tensor([1.0, 2.0, 3.0]), ctxgrad.tensor([0.5, -1.0, 4.0]))
class Mul(Function):
    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor, w: ctxgrad.Tensor) -> ctxgrad.Tensor:
        ctx.save_for_backward(x, w)
        return x * w

    @staticmethod
    def backward(ctx: Any, grad: ctxgrad.Tensor) -> Any:
        x, w = ctx.saved_tensors
        return grad * w, grad * x  # WASTEFUL: guard each with `if ctx.needs_input_grad[i]` (else None)

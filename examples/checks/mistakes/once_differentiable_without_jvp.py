"""Mistake: forward mode is wanted (``--forward``), but the Function has no ``jvp`` and its
backward is ``@once_differentiable``, so forward mode cannot derive the tangents from it
(it raises ``NoJvpError``).  Finding: ``missing-jvp``.  (Without ``@once_differentiable``
the backward below could be differentiated and forward mode would derive the ``jvp``.)"""

from __future__ import annotations

from typing import Any

import ctxgrad
from ctxgrad.autograd import Function, once_differentiable
from ctxgrad.checks import example


@example(ctxgrad.tensor([0.5, -1.0, 2.0]))
class Cube(Function):  # WRONG under forward mode: add a jvp(ctx, tangent) returning 3 * x**2 * tangent
    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    @once_differentiable
    def backward(ctx: Any, grad: ctxgrad.Tensor) -> ctxgrad.Tensor:
        (x,) = ctx.saved_tensors
        return 3 * x * x * grad

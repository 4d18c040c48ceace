"""Mistake: backward is computed in raw NumPy and not marked ``@once_differentiable``,
so its result has no graph and a double backward silently gives zero.
Finding: ``backward-not-differentiable``."""

from __future__ import annotations

from typing import Any

import ctxgrad
from ctxgrad.autograd import Function
from ctxgrad.checks import example


@example(ctxgrad.tensor([0.5, -1.0, 2.0]))
class Cube(Function):
    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx: Any, grad: ctxgrad.Tensor) -> ctxgrad.Tensor:  # WRONG: add @once_differentiable
        (x,) = ctx.saved_tensors
        values = 3 * x.detach().numpy() ** 2 * grad.detach().numpy()
        return ctxgrad.from_numpy(values)

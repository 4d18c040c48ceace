"""Mistake: backward calls ``grad.numpy()``.  A plain backward works (grad does not require
grad there), but when the gradient is itself differentiated (``create_graph=True``, double
backward, the tangents forward mode derives from backward) grad requires grad and
``numpy()`` raises: backward leaves the graph.
Finding: ``backward-leaves-graph``."""

from __future__ import annotations

from typing import Any

import ctxgrad
from ctxgrad.autograd import Function
from ctxgrad.checks import example


@example(ctxgrad.tensor([0.5, -1.0, 2.0]))
class Cube(Function):
    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        ctx.save_for_backward(x.detach())
        return x**3

    @staticmethod
    def backward(ctx: Any, grad: ctxgrad.Tensor) -> ctxgrad.Tensor:
        (x,) = ctx.saved_tensors
        return ctxgrad.from_numpy(3 * x.numpy() ** 2 * grad.numpy())  # WRONG: 3 * x * x * grad

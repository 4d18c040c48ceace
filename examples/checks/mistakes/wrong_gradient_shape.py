"""Mistake: the gradient of a row-sum is returned with the output's shape [2] instead of
the input's shape [2, 3].  Finding: ``wrong-gradient-shape``."""

from __future__ import annotations

from typing import Any

import ctxgrad
from ctxgrad.autograd import Function
from ctxgrad.checks import example


@example(ctxgrad.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]))
class RowSum(Function):
    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        return x.sum(1)

    @staticmethod
    def backward(ctx: Any, grad: ctxgrad.Tensor) -> ctxgrad.Tensor:
        return grad  # WRONG: should be grad.unsqueeze(1).expand(2, 3), the input's shape

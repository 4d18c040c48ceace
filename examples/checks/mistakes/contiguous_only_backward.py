"""Mistake: backward reads its saved input's memory in order (``ravel(order="K")``), as a
kernel that walks a flat buffer would, and reshapes it by the logical shape: right for a
C-contiguous input, the transpose of the right answer for a transposed one.  The checker runs
every input also as a transposed (or sliced) view with the same values.
Finding: ``wrong-for-strided-input``."""

from __future__ import annotations

from typing import Any

import ctxgrad
from ctxgrad.autograd import Function
from ctxgrad.checks import example


@example(ctxgrad.tensor([[0.5, -1.0, 2.0], [1.5, 0.3, -0.7]]))
class Square(Function):
    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx: Any, grad: ctxgrad.Tensor) -> ctxgrad.Tensor:
        (x,) = ctx.saved_tensors
        flat = x.detach().numpy().ravel(order="K")  # WRONG: the memory order, not the values' order
        x_again = ctxgrad.from_numpy(flat.reshape(x.shape))  # (use x itself)
        return 2 * x_again * grad

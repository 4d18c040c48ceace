"""Correct custom Functions: ``python -m ctxgrad check examples/checks/good_ops.py`` passes.

Each one shows a habit the checks look for: gradients computed with ctxgrad ops (so they
can be differentiated again), inputs or outputs saved with ``save_for_backward`` (never an
intermediate, never a ctx attribute), ``needs_input_grad`` respected, None for arguments
that are not tensors, and a ``jvp`` that agrees with the backward.
"""

from __future__ import annotations

from typing import Any

import ctxgrad
from ctxgrad.autograd import Function
from ctxgrad.checks import example


@example(ctxgrad.tensor([0.5, -1.0, 2.0]))
class Cube(Function):
    """``x ** 3``: saves its input, the backward is written in ctxgrad ops."""

    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx: Any, grad: ctxgrad.Tensor) -> ctxgrad.Tensor:
        (x,) = ctx.saved_tensors
        return 3 * x * x * grad


class Exp(Function):
    """``exp(x)``: saves its output (a saved output keeps its graph, so double backward
    works), and has a ``jvp``."""

    @staticmethod
    def example_inputs() -> tuple[ctxgrad.Tensor]:
        return (ctxgrad.tensor([[0.1, -0.3], [1.2, 0.0]]),)

    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        y = x.exp()
        ctx.save_for_backward(y)
        ctx.save_for_forward(y)
        return y

    @staticmethod
    def backward(ctx: Any, grad: ctxgrad.Tensor) -> ctxgrad.Tensor:
        (y,) = ctx.saved_tensors
        return grad * y

    @staticmethod
    def jvp(ctx: Any, tangent: ctxgrad.Tensor) -> ctxgrad.Tensor:
        (y,) = ctx.saved_tensors
        return tangent * y


@example(ctxgrad.tensor([[1.0, 2.0], [0.5, -1.0]]), ctxgrad.tensor([0.3, -0.7]), scale=2.0)
class ScaledMatVec(Function):
    """``scale * (w @ x)``: two tensor arguments and a number; computes only the gradients
    that are needed and returns None for the number."""

    @staticmethod
    def forward(ctx: Any, w: ctxgrad.Tensor, x: ctxgrad.Tensor, scale: float) -> ctxgrad.Tensor:
        ctx.save_for_backward(w, x)
        ctx.scale = scale  # a number may be a ctx attribute; a tensor may not
        return (w @ x) * scale

    @staticmethod
    def backward(ctx: Any, grad: ctxgrad.Tensor) -> tuple[ctxgrad.Tensor | None, ctxgrad.Tensor | None, None]:
        w, x = ctx.saved_tensors
        grad = grad * ctx.scale
        grad_w = grad.unsqueeze(1) * x.unsqueeze(0) if ctx.needs_input_grad[0] else None
        grad_x = w.T @ grad if ctx.needs_input_grad[1] else None
        return grad_w, grad_x, None

"""A user's typed custom Functions, written as the documentation shows them: ``Function[Tensor]``
(``Function[tuple[Tensor, Tensor]]`` for two outputs) types what ``apply`` returns, the
``forward`` and ``backward`` overrides are annotated with the ctx type and the tensors.

tests/test_typing_user.py checks that this file passes ``mypy --strict`` (and pyright in
strict mode, where installed) with no error, and that the types it asserts are the ones the
checkers infer.
"""

from __future__ import annotations

from typing import Any

from typing_extensions import assert_type

import ctxgrad
from ctxgrad import Tensor
from ctxgrad.autograd import Function, FunctionCtx


class Exp(Function[Tensor]):
    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> Tensor:
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: FunctionCtx, grad_y: Tensor) -> Tensor:
        (y,) = ctx.saved_tensors
        return grad_y * y


class MulConstant(Function[Tensor]):
    """A non-tensor argument gets no gradient: ``backward`` returns None for it."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor, factor: float) -> Tensor:
        ctx.factor = factor
        return x * factor

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> tuple[Tensor, None]:
        return grad * ctx.factor, None


class SplitHalves(Function[tuple[Tensor, Tensor]]):
    """Two outputs: ``backward`` takes one gradient for each."""

    @staticmethod
    def forward(ctx: FunctionCtx, x: Tensor) -> tuple[Tensor, Tensor]:
        half = x.shape[0] // 2
        return x[:half].clone(), x[half:].clone()

    @staticmethod
    def backward(ctx: FunctionCtx, grad_low: Tensor, grad_high: Tensor) -> Tensor:
        return ctxgrad.cat([grad_low, grad_high])


class Square(Function[Tensor]):
    """The other definition style: ``forward`` without ctx, then ``setup_context``."""

    @staticmethod
    def forward(x: Tensor) -> Tensor:
        return x * x

    @staticmethod
    def setup_context(ctx: FunctionCtx, inputs: tuple[Tensor], output: Tensor) -> None:
        (x,) = inputs
        ctx.save_for_backward(x)

    @staticmethod
    def backward(ctx: FunctionCtx, grad: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return 2 * x * grad

    @staticmethod
    def jvp(ctx: FunctionCtx, x_tangent: Tensor) -> Tensor:
        (x,) = ctx.saved_tensors
        return 2 * x * x_tangent


x = ctxgrad.tensor([0.5, 1.0, 1.5, 2.0], requires_grad=True)
y = Exp.apply(x)
assert_type(y, Tensor)
assert_type(MulConstant.apply(y, 2.0), Tensor)
low, high = SplitHalves.apply(y)
assert_type(low, Tensor)
assert_type(Square.apply(high), Tensor)

loss = (MulConstant.apply(Square.apply(low), 3.0) + high).sum()
(grad_x,) = ctxgrad.autograd.grad(loss, [x], retain_graph=True)
assert_type(grad_x, Tensor)
maybe_grads = ctxgrad.autograd.grad(loss, [x, y], retain_graph=True, allow_unused=True)
assert_type(maybe_grads, tuple[Tensor | None, ...])
named = ctxgrad.autograd.grad(loss, {"x": x}, retain_graph=True)
assert_type(named, dict[str, Tensor])
loss.backward()

value = loss.item()
assert_type(value, int | float | bool)
total: float = 0.0
total += value
assert_type(x.tolist(), list[Any])
assert_type(x.max(), Tensor)
assert_type(x.max(x), Tensor)
largest = x.max(0)
assert_type(largest.values, Tensor)
assert_type(largest.indices, Tensor)
assert_type(ctxgrad.max(x, dim=0, keepdim=True).values, Tensor)

"""Pointwise functions: ``exp``, ``log``, ``tanh`` and ``where``."""

from __future__ import annotations

from typing import Any

import numpy as np

from ctxgrad._dtypes import get_default_dtype, promote_operands
from ctxgrad._tensor import Tensor
from ctxgrad.autograd.function import Function
from ctxgrad.ops._util import broadcast_error, raw, wrap


def _floating(x: Tensor) -> np.ndarray[Any, Any]:
    """The data of ``x``, with integers converted to the default float dtype (torch's rule)."""
    data = x._data
    if data.dtype.kind in "iub":
        return data.astype(get_default_dtype())
    return data


class Exp(Function[Tensor]):
    """``e ** x``; its derivative is its own output, so the output is saved."""

    _backward_name = "ExpBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        y = wrap(np.exp(_floating(x)))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        y: Tensor = ctx.saved_tensors[0]
        return grad * y


class Log(Function[Tensor]):
    """Natural logarithm; d/dx log x = 1 / x."""

    _backward_name = "LogBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return wrap(np.log(_floating(x)))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return grad / x


class Tanh(Function[Tensor]):
    """Hyperbolic tangent; d/dx tanh x = 1 - tanh² x, computed from the saved output."""

    _backward_name = "TanhBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        y = wrap(np.tanh(_floating(x)))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        y: Tensor = ctx.saved_tensors[0]
        return grad * (1 - y * y)


class Where(Function[Tensor]):
    """``x`` where ``condition`` holds, else ``y`` (either may be a number)."""

    _backward_name = "WhereBackward0"

    @staticmethod
    def forward(ctx: Any, condition: Tensor, x: Any, y: Any) -> Tensor:
        a, b = promote_operands(raw(x), raw(y))
        ctx.save_for_backward(condition)
        try:
            return wrap(np.where(condition._data, a, b))
        except ValueError:
            raise broadcast_error(np.empty(np.broadcast_shapes(np.shape(a), np.shape(b))), condition._data) from None

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[None, Tensor | None, Tensor | None]:
        (condition,) = ctx.saved_tensors
        _, need_x, need_y = ctx.needs_input_grad
        return (
            None,
            Where.apply(condition, grad, 0.0) if need_x else None,
            Where.apply(condition, 0.0, grad) if need_y else None,
        )

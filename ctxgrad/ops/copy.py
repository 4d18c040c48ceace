"""Copies: ``clone``, ``contiguous`` and dtype conversion (``to``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ctxgrad._tensor import Tensor
from ctxgrad.autograd.function import Function
from ctxgrad.ops._util import wrap


class Clone(Function[Tensor]):
    """A copy with its own storage; the gradient passes through."""

    _backward_name = "CloneBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        return wrap(x._data.copy())

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        return grad

    @staticmethod
    def jvp(ctx: Any, tx: Tensor) -> Tensor:
        return Clone.apply(tx)


class Contiguous(Clone):
    """A row-major copy of a tensor whose layout is not."""

    _backward_name = "CloneBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        return wrap(np.ascontiguousarray(x._data))


class ToDtype(Function[Tensor]):
    """Convert to ``dtype``; the gradient is converted back.  An integer or bool result
    does not require grad (the engine never asks it for one)."""

    _backward_name = "ToCopyBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor, dtype: np.dtype[Any]) -> Tensor:
        ctx.dtype = x._data.dtype
        ctx.out_dtype = dtype
        return wrap(x._data.astype(dtype))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return grad.to(ctx.dtype), None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: None) -> Tensor:
        return ToDtype.apply(tx, ctx.out_dtype)

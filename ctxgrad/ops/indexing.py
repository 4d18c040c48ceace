"""Indexing: ``x[index]`` and its backward (writing a gradient into zeros).

Basic indices (ints, slices, None, Ellipsis) give NumPy views, which ``apply`` links to the
input's version counter."""

from __future__ import annotations

from typing import Any

import numpy as np

from ctxgrad._tensor import Tensor
from ctxgrad.autograd.function import Function
from ctxgrad.ops._util import wrap


def normalize_index(index: Any, shape: tuple[int, ...]) -> tuple[Any, ...]:
    """A basic index (ints, slices, None, Ellipsis) as a tuple ending in Ellipsis.

    The trailing Ellipsis makes NumPy return a 0-d array view, never a scalar copy.
    """
    items = index if isinstance(index, tuple) else (index,)
    out: list[Any] = []
    for item in items:
        if isinstance(item, Tensor) and item._data.ndim == 0 and item._data.dtype.kind in "iu":
            item = int(item._data)
        if isinstance(item, (bool, np.bool_)):
            raise IndexError("indexing with a bool is not supported yet; use a slice or an int")
        if isinstance(item, (int, np.integer)):
            out.append(int(item))
        elif isinstance(item, slice):
            if item.step is not None and int(item.step) <= 0:
                raise ValueError("step must be greater than zero")
            out.append(item)
        elif item is None or item is Ellipsis:
            out.append(item)
        else:
            raise IndexError(
                f"only integers, slices (`:`), ellipsis (`...`) and None are supported as indices, "
                f"got {type(item).__name__}"
            )
    if not any(i is Ellipsis for i in out):
        out.append(Ellipsis)
    return tuple(out)


class GetItem(Function[Tensor]):
    """``x[index]`` for basic indices; the gradient is scattered into zeros of x's shape."""

    _backward_name = "SliceBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor, index: tuple[Any, ...]) -> Tensor:
        ctx.shape = x._data.shape
        ctx.index = index
        if x._data.ndim == 0 and any(isinstance(i, int) for i in index):
            raise IndexError(
                "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ "
                "to convert a 0-dim tensor to a number"
            )
        try:
            return wrap(x._data[index])
        except IndexError as exc:
            message = str(exc).replace("axis", "dimension")
            if message.startswith("too many indices"):
                message = f"too many indices for tensor of dimension {x._data.ndim}"
            raise IndexError(message) from None

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return IndexIntoZeros.apply(grad, ctx.shape, ctx.index), None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: None) -> Tensor:
        return GetItem.apply(tx, ctx.index)


class IndexIntoZeros(Function[Tensor]):
    """Zeros of ``shape`` with ``values`` written at ``index``: the backward of indexing,
    whose own backward is indexing again."""

    _backward_name = "IndexIntoZerosBackward0"

    @staticmethod
    def forward(ctx: Any, values: Tensor, shape: tuple[int, ...], index: tuple[Any, ...]) -> Tensor:
        ctx.index = index
        ctx.shape = shape
        out = np.zeros(shape, dtype=values._data.dtype)
        out[index] = values._data
        return wrap(out)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        return GetItem.apply(grad, ctx.index), None, None

    @staticmethod
    def jvp(ctx: Any, tv: Tensor, *_: None) -> Tensor:
        return IndexIntoZeros.apply(tv, ctx.shape, ctx.index)

"""Reductions: ``sum``, ``mean`` and ``sum_to_size`` (the engine's broadcast reduction)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ctxgrad._tensor import Tensor, _wrap_dim
from ctxgrad.autograd.function import Function
from ctxgrad.ops._util import wrap


def _axes(dims: tuple[int, ...] | None, ndim: int) -> tuple[int, ...]:
    if dims is None or len(dims) == 0:
        return tuple(range(ndim))
    axes = tuple(_wrap_dim(d, ndim) for d in dims)
    for i, a in enumerate(axes):
        if a in axes[:i]:
            raise RuntimeError(f"dim {a} appears multiple times in the list of dims")
    if ndim == 0:
        return ()  # a 0-d tensor accepts dim 0 and -1, as in torch
    return axes


def _kept_shape(shape: tuple[int, ...], axes: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(1 if i in axes else s for i, s in enumerate(shape))


class Sum(Function[Tensor]):
    """Sum over ``dims`` (all when None); the gradient is broadcast back over them."""

    _backward_name = "SumBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor, dims: tuple[int, ...] | None, keepdim: bool) -> Tensor:
        axes = _axes(dims, x._data.ndim)
        ctx.shape = x._data.shape
        ctx.axes = axes
        ctx.keepdim = keepdim
        return wrap(np.sum(x._data, axis=axes, keepdims=keepdim))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        return grad.reshape(_kept_shape(ctx.shape, ctx.axes)).expand(ctx.shape), None, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, *_: None) -> Tensor:
        return Sum.apply(tx, ctx.axes or None, ctx.keepdim)


class Mean(Function[Tensor]):
    """Mean over ``dims``; the gradient is spread evenly over the averaged elements."""

    _backward_name = "MeanBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor, dims: tuple[int, ...] | None, keepdim: bool) -> Tensor:
        axes = _axes(dims, x._data.ndim)
        ctx.shape = x._data.shape
        ctx.axes = axes
        ctx.count = int(np.prod([x._data.shape[a] for a in axes]))
        ctx.keepdim = keepdim
        return wrap(np.mean(x._data, axis=axes, keepdims=keepdim))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        return (grad / ctx.count).reshape(_kept_shape(ctx.shape, ctx.axes)).expand(ctx.shape), None, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, *_: None) -> Tensor:
        return Mean.apply(tx, ctx.axes or None, ctx.keepdim)


class SumToSize(Function[Tensor]):
    """Sum a broadcast gradient down to ``shape``: leading dimensions, and dimensions
    that are 1 in ``shape``.  The engine uses it to fit every gradient to its input."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, shape: tuple[int, ...]) -> Tensor:
        data = x._data
        ctx.shape = data.shape
        ctx.out_shape = shape
        lead = data.ndim - len(shape)
        axes = tuple(range(lead)) + tuple(
            lead + i for i, s in enumerate(shape) if s == 1 and data.shape[lead + i] != 1
        )
        out = np.sum(data, axis=axes, keepdims=True) if axes else data
        return wrap(np.reshape(out, shape) if out.shape != shape else out.copy() if out is data else out)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return grad.expand(ctx.shape), None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: None) -> Tensor:
        return SumToSize.apply(tx, ctx.out_shape)

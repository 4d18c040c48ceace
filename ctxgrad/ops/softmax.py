"""``softmax`` and ``log_softmax`` along a dimension, computed stably (their Functions and
frontends; ``nn.functional`` takes them from here)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ctxgrad._dtypes import short_name
from ctxgrad._tensor import Tensor, as_tensor
from ctxgrad.autograd.batching import dims_rule
from ctxgrad.autograd.function import Function
from ctxgrad.ops._row import Op
from ctxgrad.ops._util import (
    UNSET,
    _one_dim,
    missing,
    refuse_complex,
)


def softmax_array(data: np.ndarray[Any, Any], axis: int) -> np.ndarray[Any, Any]:
    """The softmax of a non-empty array along ``axis``, in its dtype: ``Softmax``'s forward,
    and the NumPy backward of the fused cross-entropy, which must give the same values.
    (It and ``LogSoftmax`` reduce with ``np.maximum.reduce`` and ``np.add.reduce``: ``np.max``
    and ``np.sum`` are those calls behind Python wrappers that cost as much as the reduction
    of a small array.)"""
    wide = data.astype(np.float32) if data.dtype == np.float16 else data  # torch computes half in float
    with np.errstate(invalid="ignore"):
        e = np.exp(wide - np.maximum.reduce(wide, axis=axis, keepdims=True))
        out: np.ndarray[Any, Any] = (e / np.add.reduce(e, axis=axis, keepdims=True)).astype(data.dtype, copy=False)
    return out


class Softmax(Function[Tensor]):
    """``exp(x) / sum(exp(x))`` along ``dim``, computed around the maximum."""

    vmap = dims_rule(1)

    node_name = "SoftmaxBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"dim": "axis", "result": 0}
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, dim: int) -> Tensor:
        refuse_complex(ctx, x.array)
        data = x.array
        axis = ctx.axis = _one_dim(dim, data.ndim)
        if data.ndim == 0:
            y = as_tensor(np.ones_like(data))
        elif data.size == 0:
            y = as_tensor(data.copy())
        else:
            y = as_tensor(softmax_array(data, axis))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        (y,) = ctx.saved_tensors
        if y.array.ndim == 0:  # y is 1: the same formula, without the sum (zero, but a function of y)
            zero: Tensor = y * (grad - grad * y)
            return zero, None
        out: Tensor = y * (grad - (grad * y).sum(ctx.axis, keepdim=True))
        return out, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: None) -> Tensor:
        (y,) = ctx.saved_tensors
        if y.array.ndim == 0:
            return tx * 0.0
        out: Tensor = y * (tx - (tx * y).sum(ctx.axis, keepdim=True))
        return out


class LogSoftmax(Function[Tensor]):
    """``x - logsumexp(x)`` along ``dim``, computed around the maximum."""

    vmap = dims_rule(1)

    node_name = "LogSoftmaxBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"dim": "axis", "result": 0}
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, dim: int) -> Tensor:
        refuse_complex(ctx, x.array)
        data = x.array
        axis = ctx.axis = _one_dim(dim, data.ndim)
        if data.ndim == 0:
            y = as_tensor(np.zeros_like(data))
        elif data.size == 0:
            y = as_tensor(data.copy())
        else:
            wide = data.astype(np.float32) if data.dtype == np.float16 else data  # torch computes half in float
            with np.errstate(invalid="ignore", divide="ignore"):
                shifted = wide - np.maximum.reduce(wide, axis=axis, keepdims=True)
                out = shifted - np.log(np.add.reduce(np.exp(shifted), axis=axis, keepdims=True))
                y = as_tensor(out.astype(data.dtype, copy=False))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        (y,) = ctx.saved_tensors
        if y.array.ndim == 0:  # y is 0: the same formula, without the sum (zero, but a function of y)
            zero: Tensor = grad - y.exp() * grad
            return zero, None
        out: Tensor = grad - y.exp() * grad.sum(ctx.axis, keepdim=True)
        return out, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: None) -> Tensor:
        (y,) = ctx.saved_tensors
        if y.array.ndim == 0:
            return tx * 0.0
        out: Tensor = tx - (tx * y.exp()).sum(ctx.axis, keepdim=True)
        return out


def _softmax(name: str, input: Tensor, dim: int = UNSET, dtype: Any = None) -> tuple[Tensor, int]:
    """The arguments of ``softmax``/``log_softmax``: ``dim`` required (torch's TypeError), the
    input cast to ``dtype``; floating inputs only, as torch."""
    if dim is UNSET:
        raise missing(name, dim=dim)
    x = input if dtype is None else input.to(dtype)
    data = x.array
    d = _one_dim(dim, data.ndim)
    if data.dtype.kind not in "fc":
        kernel = "lastdim_kernel_impl" if d == data.ndim - 1 or data.ndim == 0 else "kernel_impl"
        raise NotImplementedError(f"\"{name}_{kernel}\" not implemented for '{short_name(data.dtype)}'")
    return x, d


ROWS: list[Op] = [
    Op("softmax", Softmax, args=_softmax, numpy_dims=True, out=True),
    Op("log_softmax", LogSoftmax, args=_softmax, numpy_dims=True, out=True),
]

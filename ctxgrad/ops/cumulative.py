"""Cumulative sums and products along a dimension: ``cumsum``, ``cumprod`` (their Functions,
whose gradients are reversed cumulative sums, and their frontends)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ctxgrad._state import _state
from ctxgrad._tensor import Tensor, _wrap_dim, as_tensor
from ctxgrad.autograd.batching import dims_rule
from ctxgrad.autograd.function import Function
from ctxgrad.ops._util import (
    UNSET,
    _as_int64,
    _const,
    _move_last,
    _one_dim,
    missing,
    numpy_dim,
)
from ctxgrad.ops.pointwise import Where


class Cumsum(Function[Tensor]):
    """Running sum along ``dim`` (from the end when ``reverse``); the gradient is the
    running sum of the gradient in the other direction."""

    vmap = dims_rule(1)

    node_name = "CumsumBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"dim": "axis"}
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, dim: int, reverse: bool = False) -> Tensor:
        data = x.array
        if data.ndim == 0:
            _wrap_dim(dim, 0)
            ctx.axis = 0
            ctx.reverse = reverse
            return as_tensor(data.copy())
        axis = ctx.axis = _wrap_dim(dim, data.ndim)
        ctx.reverse = reverse
        if reverse:
            out = np.ascontiguousarray(np.flip(_running_sum(np.flip(data, axis), axis), axis))
        else:
            out = _running_sum(data, axis)
        if out.dtype.kind in "fc":
            out += 0.0  # torch's running sum starts at +0: -0.0 becomes 0.0
        return as_tensor(out)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        return Cumsum.apply(grad, ctx.axis, not ctx.reverse), None, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, *_: None) -> Tensor:
        return Cumsum.apply(tx, ctx.axis, ctx.reverse)


def _running_sum(data: np.ndarray[Any, Any], axis: int) -> np.ndarray[Any, Any]:
    """``np.cumsum`` accumulated in a wider dtype, as torch's, and rounded back once: 20,000
    float16 steps of 0.1 reach 2000, where accumulating in float16 stalls at 256."""
    wide = _ACCUMULATE_IN.get(data.dtype)
    if wide is None:
        return np.cumsum(data, axis=axis)
    out: np.ndarray[Any, Any] = np.cumsum(data, axis=axis, dtype=wide).astype(data.dtype)
    return out


class Cumprod(Function[Tensor]):
    """Running product along ``dim``.  Without zeros the gradient is
    ``reversed_cumsum(grad * out) / x``; with zeros it is computed exactly (O(n) when no
    graph of the gradient is needed, an O(n²) differentiable formula otherwise, as torch)."""

    vmap = dims_rule(1)

    node_name = "CumprodBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"dim": "axis", "self": 0, "result": 1}
    holomorphic = True
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, dim: int) -> Tensor:
        data = x.array
        axis = ctx.axis = _one_dim(dim, data.ndim)
        out = as_tensor(data.copy() if data.ndim == 0 else np.cumprod(data, axis=axis))
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        x, y = ctx.saved_tensors
        data = x.array
        axis = ctx.axis
        if data.size <= 1 or data.shape[axis] == 1:
            return grad, None
        zero = data == 0
        if not zero.any():
            out: Tensor = Cumsum.apply(grad * y, axis, True) / x
            return out, None
        if _state.grad_enabled:
            return _cumprod_grad_quadratic(x, grad, axis), None
        return _cumprod_grad_zeros(x, y, grad, zero, axis), None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: None) -> Tensor:
        x, y = ctx.saved_tensors
        data = x.array
        if data.ndim == 0:
            return tx
        axis = ctx.axis
        zero = data == 0
        if not zero.any():
            out: Tensor = Cumsum.apply(tx / x, axis, False) * y
            return out
        # torch's cumprod_jvp: before the first zero the smooth formula; from the first zero on
        # cumprod of x with the first zero replaced by its tangent.
        first = zero & (np.cumsum(zero, axis=axis) == 1)
        after = np.cumsum(first, axis=axis) > 0
        smooth = Cumsum.apply(tx / Where.apply(_const(zero), 1.0, x), axis, False) * y
        new = Cumprod.apply(Where.apply(_const(first), tx, x), axis)
        return Where.apply(_const(after), new, smooth)


def _cumprod_grad_zeros(x: Tensor, y: Tensor, grad: Tensor, zero: Any, axis: int) -> Tensor:
    """The cumprod gradient for inputs with zeros in O(n) (not differentiable again: used
    when backward builds no graph).  Before the first zero of a slice it is the smooth
    formula; at the first zero, the sum of ``grad_i * prod_{j<=i, j!=z} x_j`` up to the
    second zero; after it, zero."""
    data = x.array
    count = np.cumsum(zero, axis=axis)
    before = count == 0
    first = zero & (count == 1)
    between = count == 1
    smooth = Cumsum.apply(Where.apply(_const(before), grad * y, 0.0), axis, True) / Where.apply(_const(before), x, 1.0)
    skipped = as_tensor(np.cumprod(np.where(first, data.dtype.type(1), data), axis=axis))
    at_zero = Where.apply(_const(between), grad * skipped, 0.0).sum(axis, keepdim=True)
    return Where.apply(_const(first), at_zero, Where.apply(_const(before), smooth, 0.0))


def _cumprod_grad_quadratic(x: Tensor, grad: Tensor, axis: int) -> Tensor:
    """``dL/dx_k = sum_{i>=k} grad_i prod_{j<=i, j!=k} x_j`` as an n-by-n computation in
    ctxgrad ops, exact with zeros and differentiable again."""
    ndim = x.array.ndim
    n = x.array.shape[axis]
    perm, inverse = _move_last(axis, ndim)
    xl = x.permute(perm)
    gl = grad.permute(perm)
    lead = xl.array.shape[:-1]
    rows = xl.reshape(*lead, 1, n).expand(*lead, n, n)  # rows[..., k, j] = x_j
    omitted = Where.apply(_const(np.eye(n, dtype=bool)), 1.0, rows)  # x_k replaced by 1 in row k
    products = Cumprod.apply(omitted, ndim)  # [k, i] = prod_{j<=i, j!=k} x_j
    upper = _const(np.triu(np.ones((n, n), dtype=bool)))  # i >= k
    terms = Where.apply(upper, products, 0.0) * gl.reshape(*lead, 1, n)
    return terms.sum(ndim).permute(inverse)


def cumsum(input: Tensor, dim: int = UNSET, *, dtype: Any = None, axis: int | None = None) -> Tensor:
    """Running sum along ``dim``; integers and bools accumulate in int64."""
    if axis is not None:
        dim = numpy_dim("cumsum", dim, axis, UNSET)
    if dim is UNSET:
        raise missing("cumsum", dim=dim)
    return Cumsum.apply(_as_int64(input if dtype is None else input.to(dtype)), int(dim))


def cumprod(input: Tensor, dim: int = UNSET, *, dtype: Any = None, axis: int | None = None) -> Tensor:
    """Running product along ``dim``; exact gradients with zeros in the input."""
    if axis is not None:
        dim = numpy_dim("cumprod", dim, axis, UNSET)
    if dim is UNSET:
        raise missing("cumprod", dim=dim)
    return Cumprod.apply(_as_int64(input if dtype is None else input.to(dtype)), int(dim))


# The wider dtype torch's CPU cumsum accumulates a narrow floating dtype in (its acc_type).
_ACCUMULATE_IN: dict[np.dtype[Any], np.dtype[Any]] = {
    np.dtype(np.float16): np.dtype(np.float32),
    np.dtype(np.float32): np.dtype(np.float64),
    np.dtype(np.complex64): np.dtype(np.complex128),
}

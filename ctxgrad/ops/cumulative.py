"""The cumulative ops along a dimension: ``cumsum``, ``cumprod``, ``cummax``, ``cummin`` and
``logcumsumexp`` (their Functions, whose gradients are reversed cumulative sums or scatters
to the running extremum, and their frontends)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ctxgrad._state import _state
from ctxgrad._tensor import Tensor, _wrap_dim, as_tensor
from ctxgrad.autograd.batching import dims_rule
from ctxgrad.autograd.function import Function
from ctxgrad.ops import _return_types
from ctxgrad.ops._row import Op
from ctxgrad.ops._util import (
    UNSET,
    _as_int64,
    _const,
    _move_last,
    _one_dim,
    missing,
    refuse_complex,
)
from ctxgrad.ops.gather_scatter import Gather, ScatterAdd
from ctxgrad.ops.pointwise import Where
from ctxgrad.ops.reordering import Flip


class Cumsum(Function[Tensor]):
    """Running sum along ``dim`` (from the end when ``reverse``).

    The gradient is the running sum of the gradient in the other direction."""

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
    """Running product along ``dim``.

    Without zeros the gradient is ``reversed_cumsum(grad * out) / x``; with zeros it is computed exactly (O(n) when no
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
        if _state.modes.grad_enabled:
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


def _running(name: str, input: Tensor, dim: int = UNSET, *, dtype: Any = None) -> tuple[Tensor, int]:
    """The arguments of ``cumsum``/``cumprod`` (``Cumsum``'s, ``Cumprod``'s): ``dim`` required
    (torch's TypeError); the input cast to ``dtype``, integers and bools accumulated in int64.
    In place (``cumsum_``), the tensor itself: its dtype stays."""
    dim = _required_dim(name, dim)
    if name.endswith("_"):
        return input, dim
    return _as_int64(input if dtype is None else input.to(dtype)), dim


# The wider dtype torch's CPU cumsum accumulates a narrow floating dtype in (its acc_type).
_ACCUMULATE_IN: dict[np.dtype[Any], np.dtype[Any]] = {
    np.dtype(np.float16): np.dtype(np.float32),
    np.dtype(np.float32): np.dtype(np.float64),
    np.dtype(np.complex64): np.dtype(np.complex128),
}


def _running_extreme_indices(data: np.ndarray[Any, Any], largest: bool) -> np.ndarray[Any, Any]:
    """Where the running maximum (``largest``) or minimum along the last axis was attained, as
    torch: the latest of equal values, and once a NaN is met, the latest NaN.  A position is a
    *record* when its value is the running extreme so far (``np.maximum`` propagates NaN, so
    after the first NaN only NaNs are); the index at ``i`` is the latest record up to ``i``."""
    if data.shape[-1] == 0:
        return np.zeros(data.shape, dtype=np.int64)
    running = (np.maximum if largest else np.minimum).accumulate(data, axis=-1)
    record = data == running
    if data.dtype.kind == "f":
        record |= np.isnan(data)
    positions = np.where(record, np.arange(data.shape[-1], dtype=np.int64), 0)
    out: np.ndarray[Any, Any] = np.maximum.accumulate(positions, axis=-1)
    return out


class Cummax(Function[tuple[Tensor, Tensor]]):
    """The running maximum along ``dim`` and where it was attained (the latest of equal
    values; NaN, once met, stays); the gradient goes to that index."""

    vmap = dims_rule(1)

    node_name = "CummaxBackward0"
    skips_without_gradient = True
    largest = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, dim: int) -> tuple[Tensor, Tensor]:
        refuse_complex(ctx, x.array)
        data = x.array
        d = _wrap_dim(dim, data.ndim) if data.ndim else 0
        flat = data.reshape(1) if data.ndim == 0 else data
        moved = np.moveaxis(flat, d, -1)
        indices = _running_extreme_indices(moved, ctx.forward_cls.largest)
        values = np.take_along_axis(moved, indices, axis=-1)
        values, indices = np.moveaxis(values, -1, d), np.moveaxis(indices, -1, d)
        if data.ndim == 0:
            values, indices = values.reshape(()), indices.reshape(())
        idx = as_tensor(np.array(indices, order="C"))
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(idx)
        ctx.shape = data.shape
        ctx.dim = d
        return as_tensor(np.array(values, order="C")), idx

    @staticmethod
    def backward(ctx: Any, grad: Tensor, _: Any) -> tuple[Tensor, None]:
        (idx,) = ctx.saved_tensors
        if not ctx.shape:
            return grad, None
        zeros = as_tensor(np.zeros(ctx.shape, dtype=grad.array.dtype))
        return ScatterAdd.apply(zeros, ctx.dim, idx, grad), None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: None) -> tuple[Tensor, None]:
        (idx,) = ctx.saved_tensors
        if not ctx.shape:
            return tx.clone(), None
        return Gather.apply(tx, ctx.dim, idx), None


class Cummin(Cummax):
    """The running minimum along ``dim`` and where it was attained (see :class:`Cummax`)."""

    node_name = "CumminBackward0"
    largest = False


def cummax(input: Tensor, dim: int = UNSET) -> Any:
    """``(values, indices)``: the running maximum along ``dim`` and where it was attained.

    >>> import ctxgrad
    >>> ctxgrad.tensor([1, 3, 2, 5]).cummax(0).values.tolist()
    [1, 3, 3, 5]
    """
    return _return_types.cummax(*Cummax.apply(input, _required_dim("cummax", dim)))


def cummin(input: Tensor, dim: int = UNSET) -> Any:
    """``(values, indices)``: the running minimum along ``dim`` and where it was attained."""
    return _return_types.cummin(*Cummin.apply(input, _required_dim("cummin", dim)))


class Logcumsumexp(Function[Tensor]):
    """``log(cumsum(exp(x)))`` along ``dim``, without overflow (complex inputs too).

    The gradient of a real input is torch's (a reversed ``logcumsumexp`` of the gradient's
    logarithm, for stability)."""

    vmap = dims_rule(1)

    node_name = "LogcumsumexpBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"dim": "dim", "self": 0, "result": 1}
    holomorphic = True  # analytic: a complex input's backward is the real formula, conjugated around
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, dim: int) -> Tensor:
        data = x.array
        d = _wrap_dim(dim, data.ndim) if data.ndim else 0
        ctx.dim = d
        if data.ndim == 0 or data.size == 0:
            out = data.copy()
        elif data.dtype.kind == "c":
            shift = _slice_max(data, d)
            with np.errstate(divide="ignore"):
                out = shift + np.log(np.cumsum(np.exp(data - shift), axis=d))
        else:
            out = np.logaddexp.accumulate(data, axis=d)
        result = as_tensor(np.asarray(out, dtype=data.dtype))
        ctx.save_for_backward(x, result)
        return result

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        x, out = ctx.saved_tensors
        if x.array.ndim == 0:
            return grad, None
        d = ctx.dim
        if x.array.dtype.kind == "c":
            # sum_{j >= i} grad_j exp(x_i - out_j), as for real numbers (the engine conjugates)
            c = _const(_slice_max(x.array, d))
            return (x - c).exp() * Flip.apply(Flip.apply(grad * (c - out).exp(), (d,)).cumsum(d), (d,)), None
        # torch's stand-in for log(0) is the lowest float; a quarter of it keeps the sums below
        # finite (exp of either is 0), and log reads 1 where the gradient is 0 (no log(0))
        lowest = float(np.finfo(grad.array.dtype).min) / 4
        log_abs = Where.apply(_const(grad.array != 0), grad.abs(), 1.0).log()
        positive = Where.apply(_const(grad.array > 0), log_abs, lowest)
        negative = Where.apply(_const(grad.array < 0), log_abs, lowest)

        def reverse(t: Tensor) -> Tensor:
            return Flip.apply(Logcumsumexp.apply(Flip.apply(t, (d,)), d), (d,))

        out_pos = (reverse(positive - out) + x).exp()
        out_neg = (reverse(negative - out) + x).exp()
        return out_pos - out_neg, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: None) -> Tensor:
        x, out = ctx.saved_tensors
        if x.array.ndim == 0:
            return tx.clone()
        # sum_{i <= j} exp(x_i - out_j) t_i, with |exp(x_i - c)| <= 1 for c the slice's largest real part
        c = _const(_slice_max(x.array, ctx.dim)) if x.array.size else _const(0.0)
        out_t: Tensor = (tx * (x - c).exp()).cumsum(ctx.dim) * (c - out).exp()
        return out_t


def _slice_max(data: np.ndarray[Any, Any], dim: int) -> np.ndarray[Any, Any]:
    """The largest real part of each slice along ``dim`` (kept as size 1): a shift that keeps
    ``exp`` from overflowing (0 where a slice holds only infinities or NaN)."""
    real = data.real if data.dtype.kind == "c" else data
    with np.errstate(invalid="ignore"):
        top = np.max(real, axis=dim, keepdims=True)
    shift: np.ndarray[Any, Any] = np.where(np.isfinite(top), top, 0.0).astype(real.dtype)
    return shift


def _one_required_dim(name: str, input: Tensor, dim: int = UNSET) -> tuple[Tensor, int]:
    """The arguments of ``logcumsumexp``: ``dim`` required (torch's TypeError)."""
    return input, _required_dim(name, dim)


def _required_dim(name: str, dim: Any) -> int:
    """A ``dim`` torch requires: its TypeError when not given."""
    if dim is UNSET:
        raise missing(name, dim=dim)
    return int(dim)


ROWS: list[Op] = [
    Op("cumsum", Cumsum, args=_running, inplace=True, numpy_dims=True, out=True),
    Op("cumprod", Cumprod, args=_running, inplace=True, numpy_dims=True, out=True),
    Op("cummax", cummax, numpy_dims=True, out=True),
    Op("cummin", cummin, numpy_dims=True, out=True),
    Op("logcumsumexp", Logcumsumexp, args=_one_required_dim, numpy_dims=True, out=True),
]

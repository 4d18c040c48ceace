"""Statistics and scans beside the basic reductions: ``nansum``/``nanmean``,
``count_nonzero``, ``aminmax``, ``cummax``/``cummin``, ``logcumsumexp``, ``std_mean``/``var_mean``,
``mode``, ``nanmedian``, ``quantile``/``nanquantile``, ``diff``, ``cov``/``corrcoef``,
``trapezoid``/``cumulative_trapezoid``, ``renorm``, and the counting ops ``unique``,
``unique_consecutive``, ``bincount`` and ``histc``.

Where torch gives an op a backward node of its own (``NansumBackward0``, ``CummaxBackward0``,
``ModeBackward0``, ...), it is a Function here; where torch writes the op in terms of others
(``nanmean``, ``diff``, ``cov``, ``quantile``, ``trapezoid``), so does ctxgrad, and the
gradient is theirs.  The counting ops are not differentiable (``unique``'s node refuses a
backward, as torch's)."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from ctxgrad._dtypes import short_name
from ctxgrad._replayed import replayed_whole
from ctxgrad._tensor import Tensor, _wrap_dim, as_tensor
from ctxgrad.autograd.batching import BatchedTensor, dims_rule, leading_rule, refuse_dynamic_shape, unary_rule
from ctxgrad.autograd.function import Function
from ctxgrad.autograd.inplace import write_in_place
from ctxgrad.ops import _return_types
from ctxgrad.ops._row import Op
from ctxgrad.ops._stdsort import std_sort
from ctxgrad.ops._util import refuse_complex
from ctxgrad.ops.gather_scatter import Gather, ScatterAdd
from ctxgrad.ops.joining import Cat
from ctxgrad.ops.pointwise import Where
from ctxgrad.ops.reduction import Mean, Std, Var, _axes, _kept_shape, _restore, _summed, _variance, dims_tuple
from ctxgrad.ops.reordering import same_lengths
from ctxgrad.ops.shape import Narrow
from ctxgrad.ops.sorting import Sort, gather_shares, lower_median, spread, stable_argsort


def _refuse_complex_input(data: np.ndarray[Any, Any], kernel: str) -> None:
    """torch's refusal of a complex input by an op with no complex kernel, for a frontend that
    works on the values before its Function runs."""
    if data.dtype.kind == "c":
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{short_name(data.dtype)}'")


def _const(arr: Any) -> Tensor:
    return as_tensor(np.asarray(arr))


# --------------------------------------------------------------------------- nansum, nanmean, count_nonzero


class Nansum(Function[Tensor]):
    """The sum over ``dims`` with NaN counted as zero; NaN elements get no gradient."""

    vmap = dims_rule(1, none_is_all=True)

    node_name = "NansumBackward0"
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, dims: tuple[int, ...] | None, keepdim: bool) -> Tensor:
        refuse_complex(ctx, x.array)
        data = x.array
        axes = _axes(dims, data.ndim)
        ctx.args = (data.shape, axes, keepdim)
        ctx.keep = ~np.isnan(data) if data.dtype.kind in "fc" else None  # an array: ctx attributes hold no tensors
        return as_tensor(np.asarray(np.nansum(data, axis=axes, keepdims=keepdim), dtype=data.dtype))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        shape, axes, keepdim = ctx.args
        g = _restore(grad, shape, axes, keepdim).expand(shape)
        return (g if ctx.keep is None else Where.apply(_const(ctx.keep), g, 0.0)), None, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, *_: None) -> Tensor:
        _, axes, keepdim = ctx.args
        t = tx if ctx.keep is None else Where.apply(_const(ctx.keep), tx, 0.0)
        return t.sum(axes or None, keepdim=keepdim) if axes else t.clone()


def _nansum(
    name: str, input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None
) -> tuple[Tensor, tuple[int, ...] | None, bool]:
    """The arguments of ``nansum`` (``Nansum``'s): the input cast to ``dtype``, integers and
    bools summed in int64.

    >>> import ctxgrad
    >>> ctxgrad.tensor([1.0, float("nan"), 2.0]).nansum().item()
    3.0
    """
    x = input if dtype is None else input.to(dtype)
    if x.array.dtype.kind in "biu":
        x = x.to(np.int64)
    return x, dims_tuple(dim), keepdim


def nanmean(
    input: Tensor,
    dim: Any = None,
    keepdim: bool = False,
    *,
    dtype: Any = None,
) -> Tensor:
    """The mean of the elements that are not NaN (over ``dim``): ``nansum / count``."""
    x = input if dtype is None else input.to(dtype)
    if x.array.dtype.kind not in "fc":
        raise RuntimeError(
            "nanmean(): expected input to have floating point or complex dtype but got " + short_name(x.array.dtype)
        )
    count = x.isnan().logical_not().sum(dims_tuple(dim), keepdim=keepdim)
    out: Tensor = Nansum.apply(*_nansum("nansum", x, dim, keepdim)) / count
    return out


def count_nonzero(input: Tensor, dim: Any = None) -> Tensor:
    """The number of nonzero elements (over ``dim``), as int64."""
    out: Tensor = (input != 0).sum(dims_tuple(dim))  # (an int64 count, as torch's; no gradient)
    return out


# --------------------------------------------------------------------------- aminmax


class Aminmax(Function[tuple[Tensor, Tensor]]):
    """``(amin, amax)`` over ``dims``; each gradient is shared evenly among the elements that
    attain its value (as ``amin``/``amax``)."""

    vmap = dims_rule(1, none_is_all=True)

    node_name = "AminmaxBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, dims: tuple[int, ...] | None, keepdim: bool) -> tuple[Tensor, Tensor]:
        refuse_complex(ctx, x.array)
        data = x.array
        axes = _axes(dims, data.ndim)
        for a in axes if dims is not None else ():
            if data.shape[a] == 0:
                raise IndexError("aminmax(): Expected reduction dim " + str(a) + " to have non-zero size.")
        if data.size == 0:
            raise RuntimeError(
                "aminmax(): cannot compute aminmax over an empty dimension as the operation has no identity."
            )
        lo = np.min(data, axis=axes, keepdims=True)
        hi = np.max(data, axis=axes, keepdims=True)
        shares = []
        for value in (lo, hi):
            hit = np.isnan(data) if data.dtype.kind == "f" and np.isnan(value).any() else data == value
            hit = hit if not (data.dtype.kind == "f") else np.where(np.isnan(value), np.isnan(data), data == value)
            shares.append((hit / np.sum(hit, axis=axes, keepdims=True)).astype(data.dtype))
        ctx.shares = shares
        ctx.args = (data.shape, axes, keepdim)
        if not keepdim:
            lo, hi = np.squeeze(lo, axes), np.squeeze(hi, axes)
        return as_tensor(lo), as_tensor(hi)

    @staticmethod
    def backward(ctx: Any, g_min: Tensor | None, g_max: Tensor | None) -> tuple[Tensor, None, None]:
        shape, axes, keepdim = ctx.args
        total: Tensor | None = None
        for g, share in zip((g_min, g_max), ctx.shares):
            if g is None:
                continue
            part = _restore(g, shape, axes, keepdim) * _const(share)
            total = part if total is None else total + part
        assert total is not None
        return total, None, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, *_: None) -> tuple[Tensor, Tensor]:
        _, axes, keepdim = ctx.args
        lo, hi = ((tx * _const(s)).sum(axes, keepdim=keepdim) for s in ctx.shares)
        return lo, hi


def aminmax(input: Tensor, *, dim: int | None = None, keepdim: bool = False) -> Any:
    """``(min, max)`` of all elements, or along ``dim``, as one named tuple.

    >>> import ctxgrad
    >>> low, high = ctxgrad.aminmax(ctxgrad.tensor([3, 1, 2]))
    >>> low.item(), high.item()
    (1, 3)
    """
    return _return_types.aminmax(*Aminmax.apply(input, None if dim is None else (int(dim),), keepdim))


# --------------------------------------------------------------------------- std_mean, var_mean


def std_mean(
    input: Tensor,
    dim: Any = None,
    unbiased: bool | None = None,
    keepdim: bool = False,
    *,
    correction: Any = None,
) -> tuple[Tensor, Tensor]:
    """``(std, mean)`` over ``dim`` (``correction`` as in :func:`ctxgrad.std`)."""
    spread = Std.apply(*_variance("std", input, dim, unbiased, keepdim, correction=correction))
    return spread, Mean.apply(*_summed("mean", input, dim, keepdim))


def var_mean(
    input: Tensor,
    dim: Any = None,
    unbiased: bool | None = None,
    keepdim: bool = False,
    *,
    correction: Any = None,
) -> tuple[Tensor, Tensor]:
    """``(var, mean)`` over ``dim`` (``correction`` as in :func:`ctxgrad.var`)."""
    spread = Var.apply(*_variance("var", input, dim, unbiased, keepdim, correction=correction))
    return spread, Mean.apply(*_summed("mean", input, dim, keepdim))


# --------------------------------------------------------------------------- mode, nanmedian


class SelectAlong(Function[tuple[Tensor, Tensor]]):
    """The value each slice along ``dim`` selects, and its index: the most frequent one
    (``how="mode"``) or the lower median of those not NaN (``how="nanmedian"``).  The
    gradient goes to the selected element."""

    node_name = "ModeBackward0"
    skips_without_gradient = True
    vmap = dims_rule(2)

    @staticmethod
    def forward(ctx: Any, x: Tensor, how: str, dim: int, keepdim: bool) -> tuple[Tensor, Tensor]:
        refuse_complex(ctx, x.array)
        data = x.array
        flat = data.reshape(1) if data.ndim == 0 else data
        index = _mode_index(flat, dim) if how == "mode" else _nanmedian_index(flat, dim)
        values = np.take_along_axis(flat, index, dim)
        idx = index
        if data.ndim == 0:
            values, idx = values.reshape(()), idx.reshape(())
        elif not keepdim:
            values, idx = np.squeeze(values, dim), np.squeeze(idx, dim)
        indices = as_tensor(np.array(idx, dtype=np.int64, order="C"))
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(as_tensor(index))
        ctx.args = (data.shape, dim, keepdim or data.ndim == 0)
        return as_tensor(np.array(values, order="C")), indices

    @staticmethod
    def backward(ctx: Any, grad: Tensor, _: Any) -> tuple[Tensor, None, None, None]:
        (index,) = ctx.saved_tensors
        shape, dim, keepdim = ctx.args
        if not shape:
            return grad, None, None, None
        g = grad if keepdim else grad.reshape(index.array.shape)
        zeros = as_tensor(np.zeros(shape, dtype=grad.array.dtype))
        return ScatterAdd.apply(zeros, dim, index, g), None, None, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, *_: None) -> tuple[Tensor, None]:
        (index,) = ctx.saved_tensors
        shape, dim, keepdim = ctx.args
        if not shape:
            return tx.clone(), None
        out = Gather.apply(tx, dim, index)
        return (out if keepdim else out.reshape(_kept_without(index.array.shape, dim))), None


def _kept_without(shape: tuple[int, ...], dim: int) -> tuple[int, ...]:
    return shape[:dim] + shape[dim + 1 :]


_MODE = SelectAlong


class NanmedianDim(SelectAlong):
    node_name = "NanmedianBackward1"


def _mode_as_torch_sorts(row: list[float]) -> int:
    """The index torch's ``mode`` reports for a row: it sorts ``(value, index)`` pairs with
    ``std::sort`` by ``<`` and keeps the last element of the first longest run of equal
    values.  With a NaN in the row, ``<`` cannot order it, so the result is what that sort
    does (:func:`~ctxgrad.ops._stdsort.std_sort`); and each NaN is a run of its own."""
    order = std_sort(list(range(len(row))), lambda i, j: row[i] < row[j])
    best, picked, run = 0, 0, 0
    for k, i in enumerate(order):
        run += 1
        if k == len(order) - 1 or row[i] != row[order[k + 1]]:
            if run > best:
                best, picked = run, i
            run = 0
    return picked


def _mode_index(data: np.ndarray[Any, Any], dim: int) -> np.ndarray[Any, Any]:
    """Per slice along ``dim``: the position torch reports of the most frequent value (the
    smallest of equally frequent values), in the kept shape.  Up to 16 elements without NaN
    torch's sort is stable, and that is the value's last position; past that, or with a NaN,
    its order is ``std::sort``'s, run in Python (about 1 s per 100,000 elements)."""
    moved = np.moveaxis(data, dim, -1)
    rows = moved.reshape(-1, moved.shape[-1])
    picks = np.empty(rows.shape[0], dtype=np.int64)
    for r, row in enumerate(rows):
        if row.size > 16 or (row.dtype.kind == "f" and np.isnan(row).any()):  # (below: insertion sort, stable)
            picks[r] = _mode_as_torch_sorts(row.tolist())
            continue
        values, counts = np.unique(row, return_counts=True)
        best = values[np.argmax(counts)]  # np.unique sorts, so argmax finds the smallest of the ties
        hits = np.nonzero((row == best) | (np.isnan(row) & np.isnan(best)) if row.dtype.kind == "f" else row == best)
        picks[r] = hits[0][-1]
    return np.expand_dims(picks.reshape(moved.shape[:-1]), dim)


def mode(input: Tensor, dim: int = -1, keepdim: bool = False) -> Any:
    """``(values, indices)``: the most frequent value along ``dim`` (the smallest of ties) and
    the position of it torch reports (the last one, in a row of at most 16 elements without
    NaN; a NaN is never equal to another).

    >>> import ctxgrad
    >>> result = ctxgrad.tensor([3, 1, 3, 1, 2]).mode()
    >>> result.values.item(), result.indices.item()
    (1, 3)
    """
    data = input.array
    _refuse_complex_input(data, "mode_cpu")
    d = _wrap_dim(dim, data.ndim) if data.ndim else 0
    if data.ndim and data.shape[d] == 0:
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    return _return_types.mode(*_MODE.apply(input, "mode", d, bool(keepdim)))


class Nanmedian(Function[Tensor]):
    """The lower median of the elements that are not NaN (NaN when all are); the gradient is
    shared evenly among the elements equal to it (``keep`` as :class:`~ctxgrad.ops.sorting.Median`'s)."""

    node_name = "NanmedianBackward0"
    skips_without_gradient = True
    vmap = leading_rule(1)

    @staticmethod
    def forward(ctx: Any, x: Tensor, keep: int = 0) -> Tensor:
        refuse_complex(ctx, x.array)
        result, ctx.share = lower_median(x.array, keep, skip_nan=True)
        ctx.keep = keep
        return as_tensor(result)

    @staticmethod
    def backward(ctx: Any, grad: Tensor, *_: Any) -> tuple[Tensor, None]:
        return spread(ctx, grad), None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, *_: Any) -> Tensor:
        return gather_shares(ctx, tx)


def nanmedian(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Any:
    """The lower median ignoring NaN: of all elements, or ``(values, indices)`` along ``dim``."""
    if dim is None:
        return Nanmedian.apply(input)
    data = input.array
    _refuse_complex_input(data, "median_out")
    d = _wrap_dim(dim, data.ndim) if data.ndim else 0
    if data.ndim and data.shape[d] == 0:
        raise IndexError(f"nanmedian(): Expected reduction dim {d} to have non-zero size.")
    return _return_types.nanmedian(*NanmedianDim.apply(input, "nanmedian", d, bool(keepdim)))


def _nanmedian_index(data: np.ndarray[Any, Any], dim: int) -> np.ndarray[Any, Any]:
    """Per slice along ``dim``: the position of the lower median of the values that are not
    NaN (of the NaN when all are), in the kept shape."""
    order = stable_argsort(data, dim, False)  # NaN sorts last
    n = data.shape[dim]
    count = (~np.isnan(data)).sum(axis=dim, keepdims=True) if data.dtype.kind == "f" else np.full(1, n)
    position = np.maximum(count - 1, 0) // 2
    return np.take_along_axis(order, np.broadcast_to(position, _kept_shape(data.shape, (dim,))).astype(np.intp), dim)


# --------------------------------------------------------------------------- quantile

_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


class QuantilePositions(Function[tuple[Tensor, Tensor, Tensor, Tensor]]):
    """Where each quantile ``qs`` of every sorted slice (the last dimension of ``values``,
    NaN last) lies: the positions of the values below and above it, the weight of the one
    above, and whether the slice is all NaN (``skip_nan``: nanquantile), each with the
    quantiles in a last dimension.  Not differentiable: a quantile's gradient flows through
    the values these positions gather."""

    node_name = "QuantilePositionsBackward0"
    skips_without_gradient = True
    vmap = unary_rule

    @staticmethod
    def forward(
        ctx: Any, values: Tensor, qs: np.ndarray[Any, Any], interpolation: str, skip_nan: bool
    ) -> tuple[Tensor, Tensor, Tensor, Tensor]:
        sorted_data = values.array
        n = sorted_data.shape[-1]
        nan = np.isnan(sorted_data)
        # The rank of the last value counted: NaN sorts last, and nanquantile leaves it out (a
        # slice of NaN only gets -1, clipped below, and NaN at the end); quantile reads the NaN.
        last = (n - nan.sum(-1, keepdims=True) - 1) if skip_nan else np.full(nan.shape[:-1] + (1,), n - 1)
        ranks = qs * last.astype(np.float64)  # (..., q)
        if not skip_nan:
            ranks = np.where(nan.any(-1, keepdims=True), n - 1, ranks)
        if interpolation == "lower":
            ranks = np.floor(ranks)
        elif interpolation == "higher":
            ranks = np.ceil(ranks)
        elif interpolation == "nearest":
            ranks = np.round(ranks)
        lo = np.clip(np.floor(ranks), 0, n - 1).astype(np.int64)
        hi = np.clip(np.ceil(ranks), 0, n - 1).astype(np.int64)
        weight = ranks - lo if interpolation != "midpoint" else np.where(hi > lo, 0.5, 0.0)
        outs = (
            as_tensor(lo),
            as_tensor(hi),
            as_tensor(weight.astype(sorted_data.dtype)),
            as_tensor(np.ascontiguousarray(np.broadcast_to(nan.all(-1, keepdims=True), ranks.shape))),
        )
        ctx.mark_non_differentiable(*outs)
        return outs

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> tuple[None, None, None, None]:
        return None, None, None, None


def _quantile(
    name: str, input: Tensor, q: Any, dim: int | None, keepdim: bool, interpolation: str, skip_nan: bool
) -> Tensor:
    data = input.array
    if data.size == 0:
        raise RuntimeError(f"{name}() input tensor must be non-empty")
    if data.dtype not in (np.float32, np.float64):
        raise RuntimeError(f"{name}() input tensor must be either float or double dtype")
    if isinstance(q, Tensor):
        if q.array.ndim > 1:
            raise RuntimeError(f"{name}() q must be a scalar or 1D tensor")
        if q.array.dtype != data.dtype:
            raise RuntimeError(f"{name}() q tensor must be same dtype as the input tensor")
        qs, scalar = q.array.astype(np.float64).reshape(-1), q.array.ndim == 0
    else:
        qs, scalar = np.asarray([float(q)]), True
        if not 0 <= float(q) <= 1:
            raise RuntimeError(f"{name}() q must be in the range [0, 1] but got {q}")
    if qs.size and (qs.min() < 0 or qs.max() > 1):
        raise RuntimeError(f"{name}() q values must be in the range [0, 1]")
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(
            f"{name}() interpolation must be one of linear, lower, higher, midpoint or nearest, but got {interpolation}"
        )
    if dim is None:
        x, d = input.reshape(-1), 0
    else:
        d = _wrap_dim(dim, data.ndim) if data.ndim else 0
        x = input.reshape(1) if data.ndim == 0 else input
    moved = x.movedim(d, -1)
    values = Sort.apply(moved, -1, False)[0]  # NaN sorts last
    lo, hi, weight, all_nan = QuantilePositions.apply(values, qs, interpolation, skip_nan)
    below = Gather.apply(values, -1, lo)
    out = below + (Gather.apply(values, -1, hi) - below) * weight  # (..., q)
    if skip_nan:  # a slice of NaN only: NaN
        out = Where.apply(all_nan, float("nan"), out)
    out = out.movedim(-1, 0)  # (q, ...)
    if keepdim:
        if dim is None:
            out = out.reshape((len(qs),) + (1,) * data.ndim)
        elif data.ndim:
            out = out.unsqueeze(d + 1)
    if scalar:
        out = out.squeeze(0)
    return out


def quantile(
    input: Tensor,
    q: Any,
    dim: int | None = None,
    keepdim: bool = False,
    *,
    interpolation: str = "linear",
) -> Tensor:
    """The ``q``-th quantiles (a number or a 1-D tensor in [0, 1]) of all elements or along
    ``dim``, interpolated between the neighbouring sorted values; NaN where a slice holds NaN.

    >>> import ctxgrad
    >>> ctxgrad.tensor([1.0, 2.0, 4.0, 8.0]).quantile(0.5).item()
    3.0
    """
    return _quantile("quantile", input, q, dim, keepdim, interpolation, False)


def nanquantile(
    input: Tensor,
    q: Any,
    dim: int | None = None,
    keepdim: bool = False,
    *,
    interpolation: str = "linear",
) -> Tensor:
    """``quantile`` of the elements that are not NaN (NaN for a slice of NaN only)."""
    return _quantile("quantile", input, q, dim, keepdim, interpolation, True)  # torch's messages say quantile()


# --------------------------------------------------------------------------- diff, trapezoid


def diff(
    input: Tensor,
    n: int = 1,
    dim: int = -1,
    prepend: Tensor | None = None,
    append: Tensor | None = None,
) -> Tensor:
    """The ``n``-th forward difference along ``dim`` (``out[i] = x[i + 1] - x[i]``), after
    joining ``prepend`` and ``append`` (bools: ``!=``).

    >>> import ctxgrad
    >>> ctxgrad.tensor([1, 4, 9, 16]).diff().tolist()
    [3, 5, 7]
    """
    if input.array.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = _wrap_dim(dim, input.array.ndim)
    x = input
    if prepend is not None or append is not None:
        parts = [t for t in (prepend, x, append) if t is not None]
        if any(t.array.ndim != input.array.ndim for t in parts):
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
        x = Cat.apply(d, *parts)
    for _ in range(int(n)):
        size = x.array.shape[d]
        if size == 0:
            break
        upper, lower = Narrow.apply(x, d, 1, size - 1), Narrow.apply(x, d, 0, size - 1)
        x = upper != lower if x.array.dtype == np.bool_ else upper - lower
    return x


def _spacing(y: Tensor, x: Tensor | None, dx: Any, d: int) -> tuple[Tensor | None, float]:
    if x is not None and dx is not None:
        raise TypeError("trapezoid() received an invalid combination of arguments - got (x=Tensor, dx=...)")
    if x is None:
        return None, 1.0 if dx is None else float(dx)
    if not isinstance(x, Tensor):
        return None, float(x)
    if x.array.ndim == 1:
        if x.array.shape[0] != y.array.shape[d]:
            raise RuntimeError("trapezoid: There must be one `x` value for each sample point")
        shape = [1] * y.array.ndim
        shape[d] = -1
        return diff(x).reshape(shape), 1.0
    return diff(x, dim=d), 1.0


def trapezoid(y: Tensor, x: Any = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """The trapezoidal rule along ``dim``: spacing ``dx`` (default 1) or sample points ``x``.

    >>> import ctxgrad
    >>> ctxgrad.trapezoid(ctxgrad.tensor([1.0, 2.0, 3.0])).item()
    4.0
    """
    d = _wrap_dim(dim, y.array.ndim)
    widths, step = _spacing(y, x, dx, d)
    size = y.array.shape[d]
    if size == 0:
        return y.sum(d)
    pair_sum = Narrow.apply(y, d, 1, size - 1) + Narrow.apply(y, d, 0, size - 1)
    if widths is None:
        out: Tensor = pair_sum.sum(d) * (step / 2.0)
        return out
    return (widths * pair_sum).sum(d) / 2.0


def trapz(y: Tensor, x: Any = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """``trapezoid`` (torch's older name)."""
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y: Tensor, x: Any = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """The running trapezoidal rule along ``dim`` (one element shorter than ``y`` there)."""
    d = _wrap_dim(dim, y.array.ndim)
    widths, step = _spacing(y, x, dx, d)
    size = y.array.shape[d]
    if size == 0:
        return y.clone()
    pair_sum = Narrow.apply(y, d, 1, size - 1) + Narrow.apply(y, d, 0, size - 1)
    areas = pair_sum * (step / 2.0) if widths is None else widths * pair_sum / 2.0
    out: Tensor = areas.cumsum(d)
    return out


# --------------------------------------------------------------------------- cov, corrcoef


def cov(
    input: Tensor, *, correction: int = 1, fweights: Tensor | None = None, aweights: Tensor | None = None
) -> Tensor:
    """The covariance matrix of the variables in the rows of ``input`` (observations in the
    columns), with ``correction`` and optional frequency and importance weights.

    >>> import ctxgrad
    >>> ctxgrad.tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]]).cov().tolist()
    [[1.0, -1.0], [-1.0, 1.0]]
    """
    data = input.array
    if data.ndim > 2:
        raise RuntimeError(
            f"cov(): expected input to have two or fewer dimensions but got an input with {data.ndim} dimensions"
        )
    x = input.reshape(1, -1) if data.ndim < 2 else input
    observations = x.array.shape[1]
    if isinstance(fweights, BatchedTensor) or isinstance(aweights, BatchedTensor):
        # torch checks the weights' values (a comparison whose result differs per sample)
        raise RuntimeError("Batching rule not implemented for aten::equal. We could not generate a fallback.")
    w: Tensor | None = None
    if fweights is not None:
        f = fweights.array
        if f.ndim > 1:
            raise RuntimeError(
                f"cov(): expected fweights to have one or fewer dimensions but got fweights with {f.ndim} dimensions"
            )
        if f.dtype.kind not in "iu":
            raise RuntimeError(
                f"cov(): expected fweights to have integral dtype but got fweights with {short_name(f.dtype)} dtype"
            )
        if f.size != observations:
            raise RuntimeError(
                f"cov(): expected fweights to have the same numel as there are observations in the input "
                f"but got {f.size} != {observations}"
            )
        if f.size and f.min() < 0:
            raise RuntimeError("cov(): fweights cannot be negative")
        w = fweights
    if aweights is not None:
        a = aweights.array
        if a.ndim > 1:
            raise RuntimeError(
                f"cov(): expected aweights to have one or fewer dimensions but got aweights with {a.ndim} dimensions"
            )
        if a.dtype.kind not in "fc":
            raise RuntimeError(
                "cov(): expected aweights to have floating point dtype but got aweights with "
                f"{short_name(a.dtype)} dtype"
            )
        if a.size != observations:
            raise RuntimeError(
                f"cov(): expected aweights to have the same numel as there are observations in the input "
                f"but got {a.size} != {observations}"
            )
        if a.size and a.min() < 0:
            raise RuntimeError("cov(): aweights cannot be negative")
        w = aweights if w is None else w * aweights
    if x.array.dtype.kind in "biu":
        x = x.to(np.float32 if w is None or w.array.dtype.kind in "biu" else w.array.dtype)
    if w is None:
        avg = x.mean(1)
        w_sum = float(observations)
        norm_factor: Any = w_sum - correction
    else:
        w = w.to(x.array.dtype) if w.array.dtype != x.array.dtype and w.array.dtype.kind in "biu" else w
        w_sum_t = w.sum()
        avg = (x * w).sum(1) / w_sum_t
        if aweights is None:
            norm_factor = w_sum_t - correction
        elif correction == 0:
            norm_factor = w_sum_t
        else:
            norm_factor = w_sum_t - correction * (w * aweights).sum() / w_sum_t
    if float(norm_factor.item() if isinstance(norm_factor, Tensor) else norm_factor) <= 0:
        warnings.warn(
            "cov(): degrees of freedom is <= 0. Correction should be strictly less than the number of observations.",
            UserWarning,
            stacklevel=2,
        )
        norm_factor = norm_factor.clamp_min(0) if isinstance(norm_factor, Tensor) else 0.0
    centred = x - avg.unsqueeze(1)
    weighted = centred if w is None else centred * w
    c = weighted.matmul(centred.mH if centred.is_complex() else centred.t())
    out: Tensor = (c / norm_factor).squeeze()
    return out


def corrcoef(input: Tensor) -> Tensor:
    """Pearson's correlation coefficients of the variables in the rows of ``input``, in [-1, 1]."""
    data = input.array
    if data.ndim > 2:
        raise RuntimeError(
            f"corrcoef(): expected input to have two or fewer dimensions but got an input with {data.ndim} dimensions"
        )
    c = cov(input)
    if c.array.ndim == 0:
        out0: Tensor = c / c
        return out0
    d = c.diagonal()
    stddev = d.real.sqrt() if d.is_complex() else d.sqrt()
    c = c / stddev.unsqueeze(1)
    c = c / stddev.unsqueeze(0)
    if c.is_complex():
        return c
    out: Tensor = c.clip(-1, 1)
    return out


# --------------------------------------------------------------------------- renorm


def _norm_direction(x: Tensor, norm: Tensor, p: float, others: tuple[int, ...]) -> Tensor:
    """The derivative of each slice's ``p``-norm with respect to its elements (``norm`` is
    never 0 where it is used)."""
    if p == float("inf"):
        top = _const(np.abs(x.array) == norm.array)
        out: Tensor = x.sign() * top / top.sum(others, keepdim=True)
        return out
    if p == 1:
        return x.sign()
    return x.sign() * (x.abs() / norm) ** (p - 1)


def _renorm_parts(ctx: Any, x: Tensor) -> tuple[Tensor, Tensor, Tensor]:
    """The factor, ``1 / (norm + 1e-7)`` and the norm's derivative, each computed in ctxgrad
    ops (so that the gradient can be differentiated again); 1 for the norm where a slice
    is not scaled (no 0 / 0 on the branch that is not taken)."""
    p, others, maxnorm = ctx.args
    norm = Where.apply(_const(ctx.over), x.norm(p, others, keepdim=True), 1.0)
    invnorm = 1.0 / (norm + 1e-7)
    return invnorm * maxnorm, invnorm, _norm_direction(x, norm, p, others)


class Renorm(Function[Tensor]):
    """Each slice along ``dim`` (its elements in the other dimensions) scaled by
    ``maxnorm / (norm + 1e-7)`` where its ``p``-norm exceeds ``maxnorm``; the gradient is
    torch's ``renorm_backward``, written in ctxgrad ops."""

    node_name = "RenormBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, p: float, dim: int, maxnorm: float, keep: int = 0) -> Tensor:
        data = x.array
        others = tuple(i for i in range(keep, data.ndim) if i != dim)  # (the first ``keep``: a vmap batch)
        magnitude = np.abs(data)
        if p == float("inf"):
            norm = np.max(magnitude, axis=others, keepdims=True) if data.size else np.zeros(1, data.dtype)
        else:
            norm = np.sum(magnitude**p, axis=others, keepdims=True) ** (1.0 / p)
        over = norm > maxnorm
        factor = np.where(over, maxnorm / (norm + 1e-7), 1.0).astype(data.dtype)
        ctx.args = (p, others, maxnorm)
        ctx.over = over  # an array: ctx attributes hold no tensors
        ctx.save_for_backward(x)
        return as_tensor(data * factor)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None, None]:
        (x,) = ctx.saved_tensors
        factor, invnorm, direction = _renorm_parts(ctx, x)
        along = (x * grad).sum(ctx.args[1], keepdim=True) * direction
        return Where.apply(_const(ctx.over), factor * (grad - invnorm * along), grad), None, None, None, None

    @staticmethod
    def vmap(info: Any, in_dims: tuple[Any, ...], x: Tensor, p: float, dim: int, maxnorm: float, keep: int = 0) -> Any:
        """The batch is one more dimension kept out of the norms."""
        return Renorm.apply(x, p, dim + 1, maxnorm, keep + 1), 0

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, *_: None) -> Tensor:
        (x,) = ctx.saved_tensors
        factor, invnorm, direction = _renorm_parts(ctx, x)
        change = (direction * tx).sum(ctx.args[1], keepdim=True)
        return Where.apply(_const(ctx.over), factor * (tx - x * invnorm * change), tx)


def _renorm_args(input: Tensor, p: float, dim: int, maxnorm: float) -> int:
    data = input.array
    if data.ndim <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {data.ndim} dimensions")
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm:g}")
    return _wrap_dim(dim, data.ndim)


def renorm(input: Tensor, p: float, dim: int, maxnorm: float) -> Tensor:
    """Each slice along ``dim`` whose ``p``-norm exceeds ``maxnorm`` scaled down to norm
    ``maxnorm`` (as torch: ``maxnorm / (norm + 1e-7)``); the others unchanged."""
    d = _renorm_args(input, p, dim, maxnorm)
    if input.array.dtype.kind not in "fc":
        raise RuntimeError(
            "linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
            f"{short_name(input.array.dtype)}"
        )
    if input.array.dtype.kind == "c":  # complex: the same formula, written with the complex ops
        others = tuple(i for i in range(input.array.ndim) if i != d)
        norm = input.norm(p, others, keepdim=True)
        out: Tensor = input * Where.apply(_const(norm.array > maxnorm), maxnorm / (norm + 1e-7), 1.0)
        return out
    return Renorm.apply(input, float(p), d, float(maxnorm))


def renorm_(input: Tensor, p: float, dim: int, maxnorm: float) -> Tensor:
    """In place: ``renorm``."""
    d = _renorm_args(input, p, dim, maxnorm)
    return write_in_place(Renorm, input, float(p), d, float(maxnorm))


# --------------------------------------------------------------------------- counting (not differentiable)


def _unique_flat(flat: np.ndarray[Any, Any]) -> tuple[np.ndarray[Any, Any], ...]:
    """``np.unique``'s values, inverse and counts, with every NaN a value of its own (NaN is not
    equal to NaN, as torch's unique has it): the NaNs come last, each counted once, in the order
    torch's sort leaves them (``std::sort`` with NaN last: the order they appear in, up to 16
    elements)."""
    nan = np.isnan(flat) if flat.dtype.kind == "f" else np.zeros(flat.shape, dtype=bool)
    if not nan.any():
        return tuple(np.unique(flat, return_inverse=True, return_counts=True))
    values, kept_inverse, counts = np.unique(flat[~nan], return_inverse=True, return_counts=True)
    inverse = np.empty(flat.size, dtype=np.int64)
    inverse[~nan] = kept_inverse.reshape(-1)
    row = flat.tolist()

    def less(i: int, j: int) -> bool:
        return bool(row[i] < row[j] or (not nan[i] and nan[j]))

    nan_order = [i for i in std_sort(list(range(flat.size)), less) if nan[i]]
    inverse[nan_order] = values.size + np.arange(len(nan_order))
    return (
        np.concatenate([values, flat[nan]]),
        inverse,
        np.concatenate([counts, np.ones(int(nan.sum()), dtype=counts.dtype)]),
    )


class Unique(Function[tuple[Tensor, ...]]):
    """The sorted distinct values (or slices along ``dim``), with the inverse indices and the
    counts.  torch's node refuses a backward; so does this one."""

    node_name = "Unique2Backward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, dim: int | None, consecutive: bool) -> tuple[Tensor, ...]:
        refuse_complex(ctx, x.array)
        data = x.array
        if dim is None:
            flat = data.reshape(-1)
            if consecutive:
                starts = np.ones(flat.size, dtype=bool)
                starts[1:] = flat[1:] != flat[:-1]
                values = flat[starts]
                inverse = np.cumsum(starts) - 1
                counts = np.diff(np.append(np.nonzero(starts)[0], flat.size))
            else:
                values, inverse, counts = _unique_flat(flat)
            inverse = inverse.reshape(data.shape)
        else:
            moved = np.moveaxis(data, dim, 0)
            rows = moved.reshape(moved.shape[0], -1)
            if consecutive:
                starts = np.ones(rows.shape[0], dtype=bool)
                starts[1:] = (rows[1:] != rows[:-1]).any(axis=1)
                picked = rows[starts]
                inverse = np.cumsum(starts) - 1
                counts = np.diff(np.append(np.nonzero(starts)[0], rows.shape[0]))
            else:
                picked, inverse, counts = np.unique(rows, axis=0, return_inverse=True, return_counts=True)
            values = np.moveaxis(picked.reshape((-1,) + moved.shape[1:]), 0, dim)
            inverse = inverse.reshape(-1)
        outs = (
            as_tensor(np.array(values, order="C")),
            as_tensor(np.asarray(inverse, dtype=np.int64)),
            as_tensor(np.asarray(counts, dtype=np.int64)),
        )
        ctx.mark_non_differentiable(outs[1], outs[2])
        return outs

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        name = "unique_consecutive" if ctx.forward_cls is UniqueConsecutive else "_unique2"
        raise NotImplementedError(f"the derivative for '{name}' is not implemented.")


class UniqueConsecutive(Unique):
    node_name = "UniqueConsecutiveBackward0"


def _unique_result(outs: tuple[Tensor, ...], return_inverse: bool, return_counts: bool) -> Any:
    values, inverse, counts = outs
    if return_inverse and return_counts:
        return values, inverse, counts
    if return_inverse:
        return values, inverse
    if return_counts:
        return values, counts
    return values


def unique(
    input: Tensor,
    sorted: bool = True,
    return_inverse: bool = False,
    return_counts: bool = False,
    dim: int | None = None,
) -> Any:
    """The distinct values, sorted (or the distinct slices along ``dim``); with
    ``return_inverse`` the index of each element's value among them, with ``return_counts``
    how often each occurs.

    >>> import ctxgrad
    >>> values, inverse = ctxgrad.tensor([3, 1, 3, 2]).unique(return_inverse=True)
    >>> values.tolist(), inverse.tolist()
    ([1, 2, 3], [2, 0, 2, 1])
    """
    refuse_dynamic_shape("_unique2" if dim is None else "unique_dim", input)
    d = None if dim is None else _wrap_dim(dim, input.array.ndim)
    return _unique_result(Unique.apply(input, d, False), return_inverse, return_counts)


def unique_consecutive(
    input: Tensor, return_inverse: bool = False, return_counts: bool = False, dim: int | None = None
) -> Any:
    """The values with each run of equal consecutive values (slices along ``dim``) kept once."""
    refuse_dynamic_shape("unique_consecutive", input)
    d = None if dim is None else _wrap_dim(dim, input.array.ndim)
    return _unique_result(UniqueConsecutive.apply(input, d, True), return_inverse, return_counts)


def _bincount(
    name: str, input: Tensor, weights: Tensor | None = None, minlength: int = 0
) -> tuple[Tensor, Tensor | None, int]:
    """The arguments of ``bincount`` (``Bincount``'s): torch's checks of a 1-D tensor of
    integers, ``minlength`` and ``weights``.

    >>> import ctxgrad
    >>> ctxgrad.tensor([0, 1, 1, 3]).bincount().tolist()
    [1, 2, 0, 1]
    """
    data = input.array
    if data.dtype.kind not in "iu" or data.dtype == np.bool_:
        raise NotImplementedError(f"\"bincount_cpu\" not implemented for '{short_name(data.dtype)}'")
    if data.ndim != 1:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if weights is not None:
        if weights.array.dtype.kind == "c":  # torch casts the weights to double, as a copy does
            warnings.warn("Casting complex values to real discards the imaginary part", UserWarning, stacklevel=3)
        if weights.array.shape != data.shape:
            raise RuntimeError("weights should be 1-d and have the same length as input")
    return input, weights, int(minlength)


class Bincount(Function[Tensor]):
    """How often each value ``0..max`` occurs (with ``weights``: their sums), at least ``minlength`` long.

    Counted in the last dimension of ``x``, at least ``minlength`` of them; the dimensions
    before the last (a vmap batch) count apart, in one ``np.bincount`` over values offset to
    each row's own bins.  Not differentiable."""

    node_name = "BincountBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, weights: Tensor | None, minlength: int) -> Tensor:
        data = x.array
        if data.size and data.min() < 0:
            raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
        rows = data.reshape(-1, data.shape[-1]) if data.ndim else data.reshape(1, 1)
        rows = rows.astype(np.int64, copy=False)  # (an int8 127 + 1 would wrap to -128)
        tops = rows.max(axis=1) + 1 if rows.shape[1] else np.zeros(rows.shape[0], np.int64)
        length = (
            same_lengths(np.maximum(tops, minlength)) if data.ndim > 1 else int(max(tops.max(initial=0), minlength))
        )
        offset = (np.arange(rows.shape[0], dtype=np.int64) * length)[:, None]
        w = None
        if weights is not None:
            w = weights.array.real if weights.array.dtype.kind == "c" else weights.array
            out_dtype = np.dtype(np.float32) if w.dtype == np.float32 else np.dtype(np.float64)
            w = w.reshape(rows.shape).astype(np.float64)
        counts = np.bincount(
            (rows + offset).reshape(-1), weights=None if w is None else w.reshape(-1), minlength=rows.shape[0] * length
        )
        result = as_tensor(counts.reshape(data.shape[:-1] + (length,)).astype(np.int64 if w is None else out_dtype))
        ctx.mark_non_differentiable(result)
        return result

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[None, None, None]:
        return None, None, None

    @staticmethod
    def vmap(info: Any, in_dims: tuple[Any, ...], x: Tensor, weights: Any, minlength: int) -> tuple[Tensor, int]:
        size = info.batch_size
        x, weights = (
            t if d == 0 or t is None else t.unsqueeze(0).expand(size, *t.shape) for t, d in zip((x, weights), in_dims)
        )
        return Bincount.apply(x, weights, minlength), 0


def _histc(
    name: str, input: Tensor, bins: int = 100, min: float = 0, max: float = 0
) -> tuple[Tensor, int, float, float]:
    """The arguments of ``histc`` (``Histc``'s), after torch's checks: ``bins`` equal bins
    between ``min`` and ``max`` (both 0: the data's range).

    >>> import ctxgrad
    >>> ctxgrad.histc(ctxgrad.tensor([1.0, 2.0, 1.0]), bins=4, min=0, max=3).tolist()
    [0.0, 2.0, 1.0, 0.0]
    """
    data = input.array
    if data.dtype.kind == "c" and float(min) == float(max):  # torch first looks for the data's range
        raise NotImplementedError(f"\"aminmax_cpu\" not implemented for '{short_name(data.dtype)}'")
    if data.dtype.kind != "f":
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for '{short_name(data.dtype)}'")
    if bins <= 0:
        raise RuntimeError(f"ctxgrad.histogram(): bins must be > 0, but got {bins} for dimension 0")
    if float(min) > float(max):
        raise RuntimeError("ctxgrad.histc: max must be larger than min")
    return input, int(bins), float(min), float(max)


class Histc(Function[Tensor]):
    """A histogram of ``bins`` equal bins between ``lo`` and ``hi``; elements outside are ignored.

    Of all elements of ``x`` after its first ``keep`` dimensions (a vmap batch: one histogram
    per sample, each with its own range when ``lo == hi``), in one pass:
    NumPy's binning rule (``np.histogram``'s) on every row at once.  Not differentiable."""

    node_name = "HistcBackward0"
    skips_without_gradient = True
    vmap = leading_rule(4)

    @staticmethod
    def forward(ctx: Any, x: Tensor, bins: int, lo: float, hi: float, keep: int = 0) -> Tensor:
        data = x.array
        rows = data.reshape(int(np.prod(data.shape[:keep], dtype=np.int64)), -1)
        first = np.full((rows.shape[0], 1), lo)
        last = np.full((rows.shape[0], 1), hi)
        if lo == hi and rows.shape[1]:
            first, last = rows.min(1, keepdims=True).astype(np.float64), rows.max(1, keepdims=True).astype(np.float64)
        finite = np.isfinite(first) & np.isfinite(last)  # a NaN in the data makes its range NaN
        if not finite.all():
            at = np.flatnonzero(~finite.reshape(-1))[0]
            low, high = first.reshape(-1)[at], last.reshape(-1)[at]
            raise RuntimeError(f"ctxgrad.histc: range of [{low:g}, {high:g}] is not finite")
        same = first == last
        first, last = np.where(same, first - 1, first), np.where(same, last + 1, last)
        if (first > last).any():
            raise RuntimeError("ctxgrad.histc: max must be larger than min")
        edges = first + np.arange(bins + 1) * ((last - first) / bins)  # (np.linspace, row by row)
        edges[:, -1:] = last
        inside = (rows >= first) & (rows <= last)
        with np.errstate(invalid="ignore"):  # a NaN element: outside every bin, not counted
            index = np.clip((((rows - first) / (last - first)) * bins).astype(np.intp), 0, bins - 1)
        index -= rows < np.take_along_axis(edges, index, 1)
        index += (rows >= np.take_along_axis(edges, index + 1, 1)) & (index != bins - 1)
        flat = (index + np.arange(rows.shape[0])[:, None] * bins)[inside]
        counts = np.bincount(flat, minlength=rows.shape[0] * bins).reshape(data.shape[:keep] + (bins,))
        result = as_tensor(counts.astype(data.dtype))
        ctx.mark_non_differentiable(result)
        return result

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[None, None, None, None, None]:
        return None, None, None, None, None


# --------------------------------------------------------------------------- dist, gradient


def _coordinates(spacing: Any, dims: tuple[int, ...], shape: tuple[int, ...], dim_given: bool) -> list[Any]:
    """Per dimension of ``dims``: the step (a number) or the sample coordinates (an array)."""
    if isinstance(spacing, (int, float)) or (isinstance(spacing, Tensor) and spacing.array.ndim == 0):
        return [float(spacing)] * len(dims)
    items = list(spacing)
    if len(items) != len(dims):
        if not dim_given:
            raise RuntimeError(
                "ctxgrad.gradient expected spacing to be unspecified, a scalar, or a list of length equal to "
                f"'self.dim() = {len(shape)}', since dim argument was not given, but got a list of length {len(items)}"
            )
        raise RuntimeError(
            "ctxgrad.gradient expected spacing to be unspecified, a scalar or it's spacing and dim arguments "
            f"to have the same length, but got a spacing argument of length {len(items)} and a dim argument "
            f"of length {len(dims)}."
        )
    out: list[Any] = []
    for item, d in zip(items, dims):
        if isinstance(item, Tensor) and item.array.ndim == 1:
            if item.array.shape[0] != shape[d]:  # torch computes with the mismatch (a wrong result)
                raise RuntimeError(
                    "ctxgrad.gradient expected each coordinate tensor to have as many values as the input has "
                    f"along its dimension, but got {item.array.shape[0]} coordinates for dimension {d} "
                    f"of size {shape[d]}"
                )
            out.append(item.array.astype(np.float64))
        else:
            out.append(float(item.item() if isinstance(item, Tensor) else item))
    return out


def _gradient_along(f: Tensor, d: int, h: Any, edge_order: int) -> Tensor:
    """The derivative of ``f`` along ``d`` by central differences inside and one-sided ones
    (first or second order) at the two ends, with step ``h`` or at coordinates ``h``."""
    n = f.array.shape[d]
    dt = f.array.dtype

    def part(start: int, length: int) -> Tensor:
        return Narrow.apply(f, d, start, length)

    def coefficient(values: Any) -> Tensor:
        arr = np.asarray(values, dtype=dt)
        if arr.ndim:
            arr = arr.reshape([-1 if i == d else 1 for i in range(f.array.ndim)])
        return as_tensor(arr)

    if isinstance(h, float):
        inner = (part(2, n - 2) - part(0, n - 2)) * (1.0 / (2 * h))
        if edge_order == 1:
            first = (part(1, 1) - part(0, 1)) * (1.0 / h)
            last = (part(n - 1, 1) - part(n - 2, 1)) * (1.0 / h)
        else:
            first = (part(0, 1) * -3.0 + part(1, 1) * 4.0 - part(2, 1)) * (1.0 / (2 * h))
            last = (part(n - 1, 1) * 3.0 - part(n - 2, 1) * 4.0 + part(n - 3, 1)) * (1.0 / (2 * h))
        return Cat.apply(d, first, inner, last)
    x = h
    dx = np.diff(x)
    hs, hd = dx[:-1], dx[1:]  # the steps before and after each inner point
    inner = (
        part(2, n - 2) * coefficient(hs / (hd * (hd + hs)))
        + part(1, n - 2) * coefficient((hd - hs) / (hd * hs))
        - part(0, n - 2) * coefficient(hd / (hs * (hd + hs)))
    )
    if edge_order == 1:
        first = (part(1, 1) - part(0, 1)) * (1.0 / dx[0])
        last = (part(n - 1, 1) - part(n - 2, 1)) * (1.0 / dx[-1])
    else:
        a1, a2 = dx[0], dx[1]
        first = (
            part(0, 1) * float(-(2 * a1 + a2) / (a1 * (a1 + a2)))
            + part(1, 1) * float((a1 + a2) / (a1 * a2))
            - part(2, 1) * float(a1 / (a2 * (a1 + a2)))
        )
        b1, b2 = dx[-2], dx[-1]
        last = (
            part(n - 3, 1) * float(b2 / (b1 * (b1 + b2)))
            - part(n - 2, 1) * float((b1 + b2) / (b1 * b2))
            + part(n - 1, 1) * float((2 * b2 + b1) / (b2 * (b1 + b2)))
        )
    return Cat.apply(d, first, inner, last)


def gradient(input: Tensor, *, spacing: Any = 1, dim: Any = None, edge_order: int = 1) -> tuple[Tensor, ...]:
    """The derivative of the sampled function ``input`` along each dimension (or those in
    ``dim``): central differences inside, one-sided differences of order ``edge_order`` at the
    ends; ``spacing`` is the step (a number, or one per dimension) or the sample coordinates
    (one 1-D tensor per dimension).

    >>> import ctxgrad
    >>> ctxgrad.gradient(ctxgrad.tensor([1.0, 4.0, 9.0, 16.0]))[0].tolist()
    [3.0, 4.0, 6.0, 7.0]
    """
    data = input.array
    if edge_order not in (1, 2):
        raise RuntimeError("ctxgrad.gradient only supports edge_order=1 and edge_order=2.")
    if dim is None:
        dims = tuple(range(data.ndim))
    elif isinstance(dim, (int, np.integer)):
        dims = (_wrap_dim(int(dim), data.ndim),)
    else:
        dims = tuple(_wrap_dim(int(d), data.ndim) for d in dim)
    for d in dims:
        if data.shape[d] < edge_order + 1:
            raise RuntimeError("ctxgrad.gradient expected each dimension size to be at least edge_order+1")
    x = input if data.dtype.kind in "fc" else input.to(np.float32)
    steps = _coordinates(spacing, dims, data.shape, dim is not None)
    return tuple(_gradient_along(x, d, h, edge_order) for d, h in zip(dims, steps))


def histogram(
    input: Tensor,
    bins: Any,
    *,
    range: Sequence[float] | None = None,
    weight: Tensor | None = None,
    density: bool = False,
) -> Any:
    """``(hist, bin_edges)``: the histogram of ``input`` over ``bins`` equal bins (between the
    data's extremes or ``range``) or over the given increasing ``bins`` edges, with ``weight``
    per element and, with ``density``, normalised to integrate to 1.  Not differentiable.

    >>> import ctxgrad
    >>> hist, edges = ctxgrad.histogram(ctxgrad.tensor([1.0, 2.0, 1.0, 4.0]), bins=3)
    >>> hist.tolist(), edges.tolist()
    ([2.0, 1.0, 1.0], [1.0, 2.0, 3.0, 4.0])
    """
    data = input.array
    if data.dtype.kind != "f":
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{short_name(data.dtype)}'")
    edges: Any
    lo_hi: tuple[float, float] | None = None
    if isinstance(bins, Tensor):
        edges = bins.array.astype(data.dtype).reshape(-1)
    else:
        if int(bins) <= 0:
            raise RuntimeError(f"ctxgrad.histogram(): bins must be > 0, but got {int(bins)} for dimension 0")
        edges = int(bins)
        if range is not None:
            lo_hi = float(range[0]), float(range[1])
            if lo_hi[0] > lo_hi[1]:
                raise RuntimeError(
                    f"ctxgrad.histogramdd: min should not exceed max, but got min {lo_hi[0]:g} max {lo_hi[1]:g} "
                    "for dimension 0"
                )
    hist, bin_edges = Histogram.apply(input, weight, edges, lo_hi, bool(density))
    return _return_types.histogram(hist, bin_edges)


class Histogram(Function[tuple[Tensor, Tensor]]):
    """``(hist, bin_edges)`` of the elements of ``x`` after its first ``keep`` dimensions
    (a vmap batch: one histogram per sample, each with its own edges when they come from its
    range), over ``bins`` equal bins (an int; between ``lo_hi`` or the sample's extremes) or
    the given edges, with ``weight`` and ``density``: NumPy's binning (an element on an edge
    goes to the bin above it, the last edge to the last bin) on every sample at once.  Not
    differentiable."""

    node_name = "HistogramBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(
        ctx: Any,
        x: Tensor,
        weight: Tensor | None,
        bins: Any,
        lo_hi: tuple[float, float] | None,
        density: bool,
        keep: int = 0,
    ) -> tuple[Tensor, Tensor]:
        data = x.array
        lead = data.shape[:keep]
        rows = data.reshape(int(np.prod(lead, dtype=np.int64)), -1).astype(np.float64)
        if isinstance(bins, int):
            if lo_hi is not None:
                first, last = np.full((rows.shape[0], 1), lo_hi[0]), np.full((rows.shape[0], 1), lo_hi[1])
            elif rows.shape[1]:
                first, last = rows.min(1, keepdims=True), rows.max(1, keepdims=True)
            else:
                first = last = np.zeros((rows.shape[0], 1))
            same = first == last
            first, last = np.where(same, first - 0.5, first), np.where(same, last + 0.5, last)
            edges = first + np.arange(bins + 1) * ((last - first) / bins)  # (np.linspace, row by row)
            edges[:, -1:] = last
            edges = edges.astype(data.dtype)
        else:
            edges = np.broadcast_to(bins, (rows.shape[0], bins.size))
        count = edges.shape[1] - 1
        hist = np.zeros((rows.shape[0], max(count, 0)))
        if count > 0 and not (np.diff(edges, axis=1) < 0).any():
            e = edges.astype(np.float64)
            index = (rows[:, :, None] >= e[:, None, :]).sum(-1) - 1  # (searchsorted "right", row by row)
            index = np.where(rows == e[:, -1:], count - 1, index)
            inside = (index >= 0) & (index < count)
            flat = (index + np.arange(rows.shape[0])[:, None] * count)[inside]
            w = None if weight is None else weight.array.reshape(rows.shape).astype(np.float64)[inside]
            hist = np.bincount(flat, weights=w, minlength=rows.shape[0] * count).reshape(rows.shape[0], count)
            if density:
                total = hist.sum(1, keepdims=True)
                hist = np.where(total > 0, hist / np.where(total > 0, total, 1) / np.diff(e, axis=1), hist)
        outs = (
            as_tensor(np.ascontiguousarray(hist.reshape(lead + (max(count, 0),)).astype(data.dtype))),
            as_tensor(np.ascontiguousarray(edges.reshape(lead + (edges.shape[1],)))),
        )
        ctx.mark_non_differentiable(*outs)
        return outs

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> tuple[None, ...]:
        return (None,) * 6

    @staticmethod
    def vmap(
        info: Any, in_dims: tuple[Any, ...], x: Tensor, weight: Any, bins: Any, lo_hi: Any, density: bool, keep: int = 0
    ) -> tuple[tuple[Tensor, Tensor], int]:
        size = info.batch_size
        x, weight = (
            t if d == 0 or t is None else t.unsqueeze(0).expand(size, *t.shape) for t, d in zip((x, weight), in_dims)
        )
        return Histogram.apply(x, weight, bins, lo_hi, density, keep + 1), 0


@replayed_whole
def histogramdd(
    input: Tensor,
    bins: Any,
    *,
    range: Sequence[float] | None = None,
    weight: Tensor | None = None,
    density: bool = False,
) -> Any:
    """``(hist, bin_edges)``: the ``D``-dimensional histogram of the points in the rows of
    ``input`` (its last dimension has the ``D`` coordinates): ``bins`` is one count for every
    dimension, a count per dimension, or a tensor of increasing edges per dimension;
    ``range`` gives ``(min, max)`` of each dimension in turn (default: the data's extremes);
    ``weight`` weighs each point, and ``density`` normalises the result to integrate to 1.
    Not differentiable.

    >>> import ctxgrad
    >>> points = ctxgrad.tensor([[0.0, 1.0], [1.0, 0.0], [2.0, 0.0], [2.0, 2.0]])
    >>> hist, edges = ctxgrad.histogramdd(points, bins=2)
    >>> hist.tolist(), edges[0].tolist()
    ([[0.0, 1.0], [2.0, 1.0]], [0.0, 1.0, 2.0])
    """
    tensors = (input, weight, *(bins if isinstance(bins, (list, tuple)) else ()))
    if any(isinstance(t, BatchedTensor) for t in tensors):  # torch.func has no rule (nor fallback) for it
        listed = any(isinstance(b, Tensor) for b in tensors[2:])
        overload = ".int_bins" if isinstance(bins, int) else ".TensorList_bins" if listed else ""
        raise RuntimeError(
            f"Batching rule not implemented for aten::histogramdd{overload}. We could not generate a fallback."
        )
    data = input.array
    if data.ndim < 2:
        raise RuntimeError("ctxgrad.histogramdd: input tensor should have at least 2 dimensions")
    if data.dtype.kind != "f":
        raise NotImplementedError(f"\"histogramdd\" not implemented for '{short_name(data.dtype)}'")
    d = data.shape[-1]
    points = data.reshape(-1, d)
    given = [bins] * d if isinstance(bins, int) else list(bins)
    if len(given) != d:
        raise RuntimeError("histogramdd: The size of bins must be equal to the innermost dimension of the input.")
    if range is not None and len(range) != 2 * d:
        raise RuntimeError(
            f"ctxgrad.histogramdd: for a {d}-dimensional histogram range should have {2 * d} elements, but got "
            f"{len(range)}"
        )
    edges = []
    for k, b in enumerate(given):
        if isinstance(b, Tensor):
            edges.append(b.array.astype(data.dtype).reshape(-1))
            continue
        if int(b) <= 0:
            raise RuntimeError(f"ctxgrad.histogram(): bins must be > 0, but got {int(b)} for dimension {k}")
        if range is not None:
            lo, hi = float(range[2 * k]), float(range[2 * k + 1])
            if lo > hi:
                raise RuntimeError(
                    f"ctxgrad.histogramdd: min should not exceed max, but got min {lo:g} max {hi:g} for dimension {k}"
                )
        else:
            column = points[:, k]
            lo, hi = (float(column.min()), float(column.max())) if column.size else (0.0, 0.0)
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5  # numpy's and torch's widening of an empty range
        edges.append(np.linspace(lo, hi, int(b) + 1).astype(data.dtype))
    w = None if weight is None else weight.array.reshape(-1).astype(np.float64)
    hist, _ = np.histogramdd(
        points.astype(np.float64), bins=[e.astype(np.float64) for e in edges], weights=w, density=bool(density)
    )
    return _return_types.histogramdd(as_tensor(np.asarray(hist, dtype=data.dtype)), tuple(as_tensor(e) for e in edges))


def _hash_tensor(
    name: str, input: Tensor, dim: Any = None, *, keepdim: bool = False, mode: int = 0
) -> tuple[Tensor, tuple[int, ...] | None, bool]:
    """The arguments of ``hash_tensor`` (``HashTensor``'s): ``dim`` one or several (all when
    None), torch's checks of ``mode`` and of the input.

    >>> import ctxgrad
    >>> ctxgrad.hash_tensor(ctxgrad.tensor([1.0, 2.0, 3.0]))
    tensor(4609434218613702656, dtype=ctxgrad.uint64)
    """
    if mode != 0:
        raise RuntimeError(f"Unknown hash_tensor mode: {mode}")
    if input.dtype.kind == "c":
        raise NotImplementedError(f"\"xor_sum_cpu\" not implemented for '{short_name(input.dtype)}'")
    dims = None if dim is None else ((dim,) if isinstance(dim, int) else tuple(dim))
    if input.numel() == 0 and not dims:
        raise RuntimeError(
            "hash_tensor: Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim "
            "with the 'dim' argument."
        )
    return input, dims, bool(keepdim)


class HashTensor(Function[Tensor]):
    """torch's ``hash_tensor``: the xor of the elements' 64-bit patterns, as ``uint64``.

    Each element is widened to float64 (int64 for integers and bools) and its bits read as
    ``uint64``, over ``dims`` (all when None or empty): an ordinary reduction, so a vmap batch
    is one more dimension kept (``dims_rule``).  Not differentiable."""

    node_name = "HashTensorBackward0"
    skips_without_gradient = True
    vmap = dims_rule(1, none_is_all=True, empty_is_all=True)

    @staticmethod
    def forward(ctx: Any, x: Tensor, dims: tuple[int, ...] | None, keepdim: bool) -> Tensor:
        data = x.array
        wide = data.astype(np.float64 if data.dtype.kind == "f" else np.int64)
        bits = np.ascontiguousarray(wide).view(np.uint64).reshape(data.shape)  # (a 0-d array stays 0-d)
        xor: Any = np.bitwise_xor.reduce  # (NumPy's stubs want keepdims a literal)
        out = as_tensor(np.asarray(xor(bits, axis=_axes(dims, data.ndim), keepdims=keepdim)))
        ctx.mark_non_differentiable(out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[None, None, None]:
        return None, None, None


ROWS: list[Op] = [
    Op("nansum", Nansum, args=_nansum, numpy_dims=True, out=True),
    Op("nanmean", nanmean, numpy_dims=True, out=True),
    Op("count_nonzero", count_nonzero, numpy_dims=True),
    Op("aminmax", aminmax, numpy_dims=True, out=True),
    Op("std_mean", std_mean, method=False, numpy_dims=True),
    Op("var_mean", var_mean, method=False, numpy_dims=True),
    Op("mode", mode, numpy_dims=True, out=True),
    Op("nanmedian", nanmedian, numpy_dims=True, out=True),
    Op("quantile", quantile, numpy_dims=True, out=True),
    Op("nanquantile", nanquantile, numpy_dims=True, out=True),
    Op("diff", diff, numpy_dims=True, out=True),
    Op("trapezoid", trapezoid, method=False, numpy_dims=True),
    Op("trapz", trapz, method=False, numpy_dims=True),
    Op("cumulative_trapezoid", cumulative_trapezoid, method=False, numpy_dims=True),
    Op("cov", cov),
    Op("corrcoef", corrcoef),
    Op("renorm", renorm, inplace=renorm_, out=True),
    Op("unique", unique),
    Op("unique_consecutive", unique_consecutive),
    Op("bincount", Bincount, args=_bincount),
    Op("histc", Histc, args=_histc, out=True),
    Op("histogram", histogram, out=True),
    Op("gradient", gradient, method=False),
    Op("histogramdd", histogramdd, method=False),
    Op("hash_tensor", HashTensor, args=_hash_tensor, method=False, out=True),
]

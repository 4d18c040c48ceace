"""Sorting and selection: ``sort``, ``topk``, ``kthvalue``, ``median`` (and ``argsort``,
``nonzero``, which are not differentiable).

Each differentiable op returns its values and their int64 indices; the indices are marked
non-differentiable, and the gradient of the values is scattered back to the positions the
indices name.  Sorting is stable: equal elements keep their order (NaN sorts as the
largest value, as in torch)."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ctxgrad._dtypes import short_name
from ctxgrad._replayed import replayed_whole
from ctxgrad._tensor import Tensor, _wrap_dim, as_tensor
from ctxgrad.autograd.batching import dims_rule, leading_rule
from ctxgrad.autograd.function import Function
from ctxgrad.ops import _return_types
from ctxgrad.ops._row import Op
from ctxgrad.ops._util import UNSET, missing, refuse_complex
from ctxgrad.ops.gather_scatter import Gather, Scatter


def stable_argsort(data: np.ndarray[Any, Any], axis: int, descending: bool) -> np.ndarray[Any, Any]:
    """int64 indices that sort ``data`` along ``axis``; equal elements keep their order,
    in both directions."""
    if data.dtype == np.bool_:
        data = data.view(np.uint8)
    if not descending:
        order: np.ndarray[Any, Any] = np.argsort(data, axis=axis, kind="stable")
        return order.astype(np.int64, copy=False)
    # Sorting the reversed array and reversing the result keeps ties in their order.
    n = data.shape[axis]
    flipped = np.argsort(np.flip(data, axis), axis=axis, kind="stable")
    result: np.ndarray[Any, Any] = np.flip(n - 1 - flipped, axis).astype(np.int64)
    return result


def _scatter_into_zeros(shape: tuple[int, ...], dim: int, index: Tensor, grad: Tensor) -> Tensor:
    """Zeros of ``shape`` with ``grad`` written at ``index`` along ``dim`` (differentiable in ``grad``)."""
    return Scatter.apply(as_tensor(np.zeros(shape, dtype=grad.array.dtype)), dim, index, grad)


class Sort(Function[tuple[Tensor, Tensor]]):
    """Sorted values and the indices they came from, along ``dim``."""

    vmap = dims_rule(1)

    node_name = "SortBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"dim": "dim", "indices": 0, "self_sym_sizes": "shape"}
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, dim: int, descending: bool) -> tuple[Tensor, Tensor]:
        refuse_complex(ctx, x.array)
        data = x.array
        dim = _wrap_dim(dim, data.ndim)
        if data.ndim == 0:
            values, indices = as_tensor(data.copy()), as_tensor(np.zeros((), dtype=np.int64))
        else:
            order = stable_argsort(data, dim, descending)
            values, indices = as_tensor(np.take_along_axis(data, order, dim)), as_tensor(order)
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        ctx.shape = data.shape
        ctx.dim = dim
        return values, indices

    @staticmethod
    def backward(ctx: Any, grad: Tensor, _: Any) -> tuple[Tensor, None, None]:
        (indices,) = ctx.saved_tensors
        return _scatter_into_zeros(ctx.shape, ctx.dim, indices, grad), None, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, *_: None) -> tuple[Tensor, None]:
        (indices,) = ctx.saved_tensors
        return Gather.apply(tx, ctx.dim, indices), None


class Topk(Function[tuple[Tensor, Tensor]]):
    """The ``k`` largest (or smallest) values along ``dim`` and their indices."""

    vmap = dims_rule(2)

    node_name = "TopkBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, k: int, dim: int, largest: bool) -> tuple[Tensor, Tensor]:
        refuse_complex(ctx, x.array)
        data = x.array
        dim = _wrap_dim(dim, data.ndim)
        n = data.shape[dim] if data.ndim else 1
        if not 0 <= k <= n:
            raise RuntimeError("selected index k out of range")
        if data.ndim == 0:
            values, indices = as_tensor(data.copy()), as_tensor(np.zeros((), dtype=np.int64))
        else:
            order = np.take(stable_argsort(data, dim, largest), np.arange(k), axis=dim)
            values, indices = as_tensor(np.take_along_axis(data, order, dim)), as_tensor(order)
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        ctx.shape = data.shape
        ctx.dim = dim
        return values, indices

    @staticmethod
    def backward(ctx: Any, grad: Tensor, _: Any) -> tuple[Tensor, None, None, None]:
        (indices,) = ctx.saved_tensors
        return _scatter_into_zeros(ctx.shape, ctx.dim, indices, grad), None, None, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, *_: None) -> tuple[Tensor, None]:
        (indices,) = ctx.saved_tensors
        return Gather.apply(tx, ctx.dim, indices), None


def _select(data: np.ndarray[Any, Any], dim: int, position: np.ndarray[Any, Any] | int) -> np.ndarray[Any, Any]:
    """The indices (keepdim shape) of the element at sorted ``position`` along ``dim``."""
    order = stable_argsort(data, dim, False)
    pos = np.asarray(position)
    if pos.ndim:
        pos = np.expand_dims(pos, dim)
    return np.take_along_axis(order, np.broadcast_to(pos, order.shape[:dim] + (1,) + order.shape[dim + 1 :]), dim)


class Kthvalue(Function[tuple[Tensor, Tensor]]):
    """The ``k``-th smallest value along ``dim`` and its index (``Median`` picks its ``k``)."""

    vmap = dims_rule(2)

    node_name = "KthvalueBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {
        "dim": "dim",
        "indices": 0,
        "keepdim": "keepdim",
        "self_sym_sizes": "shape",
    }
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, k: Any, dim: int, keepdim: bool) -> tuple[Tensor, Tensor]:
        refuse_complex(ctx, x.array)
        data = x.array
        if data.dtype == np.bool_:
            kernel = "median_out" if k is None else "kthvalue_cpu"
            raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
        dim = _wrap_dim(dim, data.ndim)
        flat = data.reshape(1) if data.ndim == 0 else data
        n = flat.shape[dim]
        if k is None:  # median: the lower middle; NaN if the row holds one
            nans = np.isnan(flat).sum(axis=dim) if flat.dtype.kind == "f" else np.zeros((), dtype=np.intp)
            position: Any = np.where(nans > 0, n - nans, (n - 1) // 2)
            if n == 0:
                raise IndexError(f"median(): Expected reduction dim {dim} to have non-zero size.")
        else:
            if not 1 <= k <= n:
                raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {dim}")
            position = k - 1
        idx = _select(flat, dim, position)
        values = np.take_along_axis(flat, idx, dim)
        if data.ndim == 0:
            values, idx = values.reshape(()), idx.reshape(())
        elif not keepdim:
            values, idx = np.squeeze(values, dim), np.squeeze(idx, dim)
        indices = as_tensor(idx)
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        ctx.shape = data.shape
        ctx.dim = dim
        ctx.keepdim = keepdim or data.ndim == 0
        ctx.kept = data.shape[:dim] + (1,) + data.shape[dim + 1 :]
        return as_tensor(values), indices

    @staticmethod
    def backward(ctx: Any, grad: Tensor, _: Any) -> tuple[Tensor, None, None, None]:
        (indices,) = ctx.saved_tensors
        if not ctx.keepdim:
            grad, indices = grad.reshape(ctx.kept), indices.reshape(ctx.kept)
        return _scatter_into_zeros(ctx.shape, ctx.dim, indices, grad), None, None, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, *_: None) -> tuple[Tensor, None]:
        (indices,) = ctx.saved_tensors
        if ctx.keepdim:
            return Gather.apply(tx, ctx.dim, indices), None
        out = Gather.apply(tx, ctx.dim, indices.reshape(ctx.kept))
        return out.reshape(indices.array.shape), None


def lower_median(data: np.ndarray[Any, Any], keep: int, skip_nan: bool) -> tuple[Any, Any]:
    """The lower median of each sample's elements (a sample: the dimensions after the first
    ``keep``), NaN where a sample has a NaN (``skip_nan``: where it has nothing else), and
    each element's share of the gradient: even among the elements equal to the median."""
    rows = data.reshape(data.shape[:keep] + (-1,))
    n = rows.shape[-1]
    floating = rows.dtype.kind == "f"
    nan = np.isnan(rows) if floating else np.zeros(rows.shape, bool)
    count = n - nan.sum(-1) if skip_nan else np.full(rows.shape[:-1], n)
    if n == 0:
        result = np.full(rows.shape[:-1], np.nan if floating else 0, rows.dtype)
    else:
        pick = (np.maximum(count, 1) - 1) // 2  # NaN sorts last
        result = np.take_along_axis(np.sort(rows, axis=-1), pick[..., None], -1)[..., 0]
        if floating:
            result = np.where(nan.any(-1) if not skip_nan else count == 0, np.nan, result).astype(rows.dtype)
    kept = result.reshape(result.shape + (1,) * (data.ndim - keep))
    equal = np.isnan(data) & np.isnan(kept) if floating else np.zeros(data.shape, bool)
    equal = equal | (data == kept)
    ties = equal.reshape(rows.shape).sum(-1).reshape(kept.shape)
    return result, (equal / np.maximum(ties, 1)).astype(data.dtype)


class Median(Function[Tensor]):
    """The lower median of all elements (NaN if any is NaN); the gradient is shared evenly
    among the elements equal to it.  ``keep``: the first dimensions are kept apart, one
    median each (how vmap applies it to a batch)."""

    node_name = "MedianBackward0"
    skips_without_gradient = True
    vmap = leading_rule(1)

    @staticmethod
    def forward(ctx: Any, x: Tensor, keep: int = 0) -> Tensor:
        refuse_complex(ctx, x.array)
        data = x.array
        if data.dtype == np.bool_:
            raise NotImplementedError("\"median_cpu\" not implemented for 'Bool'")
        result, ctx.share = lower_median(data, keep, skip_nan=False)  # (an array: ctx holds no tensor)
        ctx.keep = keep
        return as_tensor(result)

    @staticmethod
    def backward(ctx: Any, grad: Tensor, *_: Any) -> tuple[Tensor, None]:
        return spread(ctx, grad), None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, *_: Any) -> Tensor:
        return gather_shares(ctx, tx)


def spread(ctx: Any, grad: Tensor) -> Tensor:
    """The gradient of a reduction that shares it by ``ctx.share`` (its first ``ctx.keep``
    dimensions kept apart)."""
    out: Tensor = grad.reshape(grad.shape + (1,) * (ctx.share.ndim - ctx.keep)) * as_tensor(ctx.share)
    return out


def gather_shares(ctx: Any, tx: Tensor) -> Tensor:
    """The forward-mode counterpart of :func:`spread`."""
    return (tx * as_tensor(ctx.share)).sum(tuple(range(ctx.keep, ctx.share.ndim)))


# --------------------------------------------------------------------------- frontends
# One function per op, with torch's signature; the op table (ops/table.py) makes them the
# Tensor methods and the ``ctxgrad.*`` functions.
# torch names some overloads' nodes apart, ``sort(stable=)`` and ``median(dim)``: each is a
# subclass that declares torch's node_name.


class SortStable(Sort):
    node_name = "SortBackward1"


class MedianDim(Kthvalue):
    node_name = "MedianBackward1"


def sort(input: Tensor, dim: int = -1, descending: bool = False, *, stable: bool | None = None) -> _return_types.sort:
    """``(values, indices)`` sorted along ``dim``; ties keep their order (always stable)."""
    cls = Sort if stable is None else SortStable
    return _return_types.sort(*cls.apply(input, dim, descending))


@replayed_whole
def argsort(input: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False) -> Tensor:
    """int64 indices that sort ``input`` along ``dim`` (ties keep their order)."""
    if input.is_complex():
        raise RuntimeError(" Sort does not support complex dtypes on CPU")  # (torch's text, its leading space too)
    if input.array.ndim == 0:
        _wrap_dim(dim, 0)
        return as_tensor(np.zeros((), dtype=np.int64))
    return as_tensor(stable_argsort(input.array, _wrap_dim(dim, input.array.ndim), descending))


def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True) -> _return_types.topk:
    """``(values, indices)`` of the ``k`` largest (``largest=False``: smallest) along ``dim``,
    always sorted; ties keep their order."""
    return _return_types.topk(*Topk.apply(input, int(k), dim, largest))


def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False) -> _return_types.kthvalue:
    """``(values, indices)`` of the ``k``-th smallest element along ``dim``."""
    return _return_types.kthvalue(*Kthvalue.apply(input, int(k), dim, keepdim))


def median(input: Tensor, dim: int | None = None, keepdim: bool = False, *, keepdims: bool | None = None) -> Any:
    """The lower median of all elements, or ``(values, indices)`` along ``dim``.  (``keepdims``:
    as given, after the row's NumPy wrapper has read it as ``keepdim``; torch's overload without
    ``dim`` takes neither.)"""
    if dim is None:
        if keepdim or keepdims is not None:  # torch's overload without dim takes no keepdim
            raise missing("median", dim=UNSET)
        return Median.apply(input)
    return _return_types.median(*MedianDim.apply(input, None, dim, keepdim))


# --------------------------------------------------------------------------- searchsorted, bucketize
def _search(
    sequence: np.ndarray[Any, Any], values: np.ndarray[Any, Any], side: str, sorter: np.ndarray[Any, Any] | None
) -> np.ndarray[Any, Any]:
    """``np.searchsorted`` along the last dimension, row by row for a sequence of more than one
    dimension; torch's own search where a NaN is involved (see :func:`_bisect`)."""
    if sequence.dtype.kind == "f" and (np.isnan(sequence).any() or np.isnan(values).any()):
        return _bisect(sequence, values, side, sorter)
    if sequence.ndim == 1:
        found: np.ndarray[Any, Any] = np.asarray(np.searchsorted(sequence, values, side=side, sorter=sorter))  # type: ignore[call-overload]
        return found
    rows_seq = sequence.reshape(int(np.prod(sequence.shape[:-1])), sequence.shape[-1])
    rows_val = values.reshape(-1, values.shape[-1] if values.ndim else 1)
    rows_sort = None if sorter is None else sorter.reshape(rows_seq.shape)
    out: np.ndarray[Any, Any] = np.stack(
        [
            np.searchsorted(s, v, side=side, sorter=None if rows_sort is None else rows_sort[i])  # type: ignore[call-overload]
            for i, (s, v) in enumerate(zip(rows_seq, rows_val))
        ]
    )
    shaped: np.ndarray[Any, Any] = out.reshape(values.shape)
    return shaped


def _bisect(
    sequence: np.ndarray[Any, Any], values: np.ndarray[Any, Any], side: str, sorter: np.ndarray[Any, Any] | None
) -> np.ndarray[Any, Any]:
    """torch's binary search, step for step (its ``cus_lower_bound``/``cus_upper_bound``): go
    right unless ``sequence[mid] >= value`` (``>`` for the right side).  A comparison with NaN
    is false, so a NaN sends the search right wherever it meets one, which NumPy's search
    (NaN sorted last, equal to NaN) does not do: a NaN value lands past the end."""
    n = sequence.shape[-1]
    ordered = sequence if sorter is None else np.take_along_axis(sequence, sorter, -1)
    rows = ordered.reshape(int(np.prod(ordered.shape[:-1])), n)
    targets = values.reshape(rows.shape[0], -1)
    start = np.zeros(targets.shape, dtype=np.int64)
    end = np.full(targets.shape, n, dtype=np.int64)
    while (active := start < end).any():
        mid = start + ((end - start) >> 1)
        at_mid = np.take_along_axis(rows, np.minimum(mid, n - 1), 1)
        right = ~(at_mid > targets) if side == "right" else ~(at_mid >= targets)
        start = np.where(active & right, mid + 1, start)
        end = np.where(active & ~right, mid, end)
    found: np.ndarray[Any, Any] = start.reshape(values.shape)
    return found


@replayed_whole
def searchsorted(
    sorted_sequence: Tensor,
    input: Any,
    *,
    out_int32: bool = False,
    right: bool = False,
    side: str | None = None,
    sorter: Tensor | None = None,
) -> Tensor:
    """For each value, the index where it would go in ``sorted_sequence`` (searched along its
    last dimension) to keep it sorted: the first such place, or the last with ``right=True``
    (``side="right"``).  Not differentiable.

    >>> import ctxgrad
    >>> ctxgrad.searchsorted(ctxgrad.tensor([1, 3, 5, 7]), ctxgrad.tensor([3, 6, 9])).tolist()
    [1, 3, 4]
    """
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"ctxgrad.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError(
                "ctxgrad.searchsorted(): side and right can't be set to opposites, "
                "got side of left while right was True"
            )
        right = side == "right"
    seq = sorted_sequence.array
    scalar = not isinstance(input, Tensor)
    values = np.asarray(input) if scalar else input.array
    for data in (seq, values):
        if data.dtype.kind == "c":
            raise NotImplementedError(f"\"searchsorted_out_cpu\" not implemented for '{short_name(data.dtype)}'")
    if seq.ndim != 1 and (scalar or seq.shape[:-1] != values.shape[:-1]):
        raise RuntimeError(
            "ctxgrad.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of "
            f"boundaries tensor and input value tensor must match, but we got boundaries tensor {list(seq.shape)} "
            f"and input value tensor {list(values.shape)}"
        )
    order = None
    if sorter is not None:
        order = sorter.array
        if order.shape != seq.shape:
            raise RuntimeError(
                "ctxgrad.searchsorted(): boundary and sorter must have the same size, but got boundary tensor "
                f"{list(seq.shape)}and got sorter tensor {list(order.shape)}"
            )
    given = input if not scalar else as_tensor(values)
    out: Tensor = SearchSorted.apply(sorted_sequence, given, "right" if right else "left", sorter, bool(out_int32))
    return out


class SearchSorted(Function[Tensor]):
    """Where each of ``values`` would go in ``sequence`` (searched along its last dimension;
    ``sorter``: the order that sorts it), as int64 (``out_int32``: int32).  Not
    differentiable.  Under vmap, each sample searches its own sequence: the batch is one
    more leading dimension of both (a 1-D sequence's values flattened into one row)."""

    node_name = "SearchsortedBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(
        ctx: Any, sequence: Tensor, values: Tensor, side: str, sorter: Tensor | None, out_int32: bool
    ) -> Tensor:
        order = None if sorter is None else sorter.array
        out = as_tensor(
            np.asarray(_search(sequence.array, values.array, side, order), np.int32 if out_int32 else np.int64)
        )
        ctx.mark_non_differentiable(out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[None, None, None, None, None]:
        return None, None, None, None, None

    @staticmethod
    def vmap(
        info: Any, in_dims: tuple[Any, ...], sequence: Tensor, values: Tensor, side: str, sorter: Any, out_int32: bool
    ) -> tuple[Tensor, int]:
        size = info.batch_size
        if in_dims[0] is None and in_dims[3] is None and sequence.ndim == 1:
            return SearchSorted.apply(sequence, values, side, sorter, out_int32), 0  # one sequence for all
        seq, vals = (
            t if d == 0 else t.unsqueeze(0).expand(size, *t.shape) for t, d in zip((sequence, values), in_dims)
        )
        order = sorter if sorter is None or in_dims[3] == 0 else sorter.unsqueeze(0).expand(size, *sorter.shape)
        if seq.ndim == 2:  # one 1-D sequence per sample: its values searched as one row
            out = SearchSorted.apply(seq, vals.reshape(size, -1), side, order, out_int32)
            return out.reshape(vals.shape), 0
        return SearchSorted.apply(seq, vals, side, order, out_int32), 0


def bucketize(input: Any, boundaries: Tensor, *, out_int32: bool = False, right: bool = False) -> Tensor:
    """The bucket of each value among the 1-D ``boundaries``: the ``i`` with
    ``boundaries[i-1] < x <= boundaries[i]`` (``right=True``: ``boundaries[i-1] <= x < boundaries[i]``).

    >>> import ctxgrad
    >>> ctxgrad.bucketize(ctxgrad.tensor([1, 5, 9]), ctxgrad.tensor([1, 3, 5, 7])).tolist()
    [0, 2, 4]
    """
    if boundaries.array.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.array.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


def msort(input: Tensor) -> Tensor:
    """``sort(input, dim=0).values``: the values sorted along the first dimension."""
    values: Tensor = Sort.apply(input, 0, False)[0]
    return values


ROWS: list[Op] = [
    Op("sort", sort, numpy_dims=True, out=True),
    Op("argsort", argsort, numpy_dims=True, out=True),
    Op("topk", topk, numpy_dims=True, out=True),
    Op("kthvalue", kthvalue, numpy_dims=True, out=True),
    Op("median", median, numpy_dims=True, out=True),
    Op("msort", msort, out=True),
    Op("searchsorted", searchsorted, method=False, out=True),
    Op("bucketize", bucketize, method=False, out=True),
]

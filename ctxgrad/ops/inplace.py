"""In-place ops: ``x.mul_(y)``, ``x += y``, ``x[i] = v``, ``x.copy_(src)``, ``x.zero_()`` ...

Every in-place op is an ordinary Function that writes into its first argument and calls
``ctx.mark_dirty``, as a user's in-place Function does.  For an op that also exists out of
place, that Function is made from the out-of-place one
(:func:`~ctxgrad.autograd.inplace.in_place`): ``x.mul_(y)`` runs ``Mul``'s forward, writes
the product into ``x`` and marks it dirty, and its node is ``MulBackward0``, whose backward
is ``Mul``'s.  The core does what follows from ``mark_dirty``: it bumps ``x``'s version,
moves ``x``'s history onto the node, and, when ``x`` is a view, records the write on its
base (``CopySlices``)::

    x ── old history                 x.mul_(2)   x ── MulBackward0 ── old history

    b ── old history, v = b[0]       v.mul_(2)   b ── CopySlices ─┬─ b's old history
                                                                  └─ MulBackward0 ── v's old history

This module holds the ops that exist only in place (``zero_``, ``fill_``, ``copy_``) and
indexed assignment, ``x[index] = values``: a write at the selected elements by
``CopySlices`` (``IndexPutBackward0`` for an advanced index), the core's write-through-a-view
Function.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ctxgrad._dtypes import fill_value_as
from ctxgrad._replayed import replayed_whole
from ctxgrad._state import _state
from ctxgrad._tensor import Tensor, as_tensor
from ctxgrad.autograd.batching import BatchedTensor, elementwise_rule
from ctxgrad.autograd.function import Function
from ctxgrad.autograd.inplace import (
    CopySlices,
    check_no_overlap,
    check_no_partial_overlap,
    check_writable,
    internal_overlap,
    view_positions,
    write,
    write_in_place,
)
from ctxgrad.ops._row import Op
from ctxgrad.ops.indexing import PutFlat, holds_batched, index_put_args, numpy_index

__all__ = ["CopyFrom", "Fill", "Zero", "copy_", "fill_", "setitem", "zero_"]


class CopyFrom(Function[Tensor]):
    """The value ``x.copy_(src)`` writes: ``src`` broadcast to ``x``'s shape, in ``x``'s dtype."""

    vmap = elementwise_rule
    writes_first_input = True

    node_name = "CopyBackwards"
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, src: Any) -> Tensor:
        data = src.array if isinstance(src, Tensor) else np.asarray(src)
        shape = x.array.shape
        try:
            out = np.broadcast_to(data, shape)
        except ValueError:
            raise RuntimeError(
                f"The size of tensor a ({shape[-1] if shape else 1}) must match the size of "
                f"tensor b ({data.shape[-1] if data.ndim else 1}) at non-singleton dimension {max(len(shape) - 1, 0)}"
            ) from None
        return as_tensor(out.astype(x.array.dtype, copy=True))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor]:
        need_x, _ = ctx.needs_input_grad
        return (as_tensor(np.zeros_like(grad.array)) if need_x else None), grad  # (a constant, as torch's)

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, t_src: Tensor | None) -> Tensor:
        return tx * 0.0 if t_src is None else t_src.expand(tx.shape).clone()


class Fill(Function[Tensor]):
    """The value ``x.fill_(value)`` writes: ``value`` (a number or a 0-d tensor) everywhere."""

    vmap = elementwise_rule
    writes_first_input = True

    node_name = "FillBackward2"
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, value: Any) -> Tensor:
        if isinstance(value, Tensor):
            if value.array.ndim != 0:
                raise RuntimeError(
                    f"fill_ only supports 0-dimension value tensor but got tensor with {value.array.ndim} dimensions."
                )
            value = value.array
        elif type(value) in (int, float):  # torch's RuntimeError for a number the dtype cannot hold
            value = fill_value_as(value, x.array.dtype)
        return as_tensor(np.full(x.array.shape, value, dtype=x.array.dtype))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        need_x, need_value = ctx.needs_input_grad
        return (as_tensor(np.zeros_like(grad.array)) if need_x else None), (grad.sum() if need_value else None)

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, t_value: Tensor | None) -> Tensor:
        return tx * 0.0 if t_value is None else t_value.expand(tx.shape).clone()


class Zero(Function[Tensor]):
    """The value ``x.zero_()`` writes; its gradient is zero."""

    vmap = elementwise_rule
    writes_first_input = True

    node_name = "ZeroBackward0"
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        return as_tensor(np.zeros_like(x.array))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        return as_tensor(np.zeros_like(grad.array))  # a constant, as torch's zeros_like(grad)

    @staticmethod
    def jvp(ctx: Any, tx: Tensor) -> Tensor:
        return as_tensor(np.zeros_like(tx.array))


# torch names the 0-d tensor form of fill_ apart, and an advanced-index write IndexPut.


class FillWithTensor(Fill):
    node_name = "FillBackward3"


class IndexPut(CopySlices):
    node_name = "IndexPutBackward0"


def zero_(input: Tensor) -> Tensor:
    """Fill with zeros, in place."""
    return write_in_place(Zero, input)


def fill_(input: Tensor, value: Any) -> Tensor:
    """Fill with ``value`` (a number or a 0-d tensor), in place."""
    return write_in_place(FillWithTensor if isinstance(value, Tensor) else Fill, input, value)


def copy_(input: Tensor, other: Any, non_blocking: bool = False) -> Tensor:
    """Copy ``other`` (broadcast, converted to this dtype) into this tensor, in place (torch's
    parser names the source ``other``, though its docs say ``src``)."""
    return write_in_place(CopyFrom, input, other)


def _is_integer_index(item: Any) -> bool:
    if isinstance(item, (int, np.integer)) and not isinstance(item, (bool, np.bool_)):
        return True
    array = item.array if isinstance(item, Tensor) else item
    return isinstance(array, np.ndarray) and array.ndim == 0 and array.dtype.kind in "iu"


def _dims_taken(item: Any) -> int:
    """How many dimensions of the indexed tensor the index element ``item`` takes."""
    if item is None or item is Ellipsis or isinstance(item, (bool, np.bool_)):
        return 0
    array = item.array if isinstance(item, Tensor) else item
    if isinstance(array, np.ndarray) and array.dtype == np.bool_:
        return array.ndim
    return 1


def indexing_view_op(index: Any, shape: tuple[int, ...]) -> str | None:
    """The view op whose view ``x[index] = v`` writes through in torch (the last one its
    indexing makes, before any advanced index: ``"Select"`` for an integer, ``"Slice"``,
    ``"Unsqueeze"`` for None or a bool), or None when it makes none (a slice of a whole
    dimension is skipped): the in-place checks name that view."""
    items = index if type(index) is tuple else (index,)
    sizes = list(shape)
    dim = 0
    made = None
    for item in items:
        if item is Ellipsis:
            dim += len(shape) - sum(_dims_taken(i) for i in items)
        elif (
            item is None
            or isinstance(item, (bool, np.bool_))
            or (isinstance(item, Tensor) and item.array.ndim == 0 and item.array.dtype == np.bool_)
        ):
            sizes.insert(dim, 1)
            made = "Unsqueeze"
            dim += 1
        elif _is_integer_index(item):
            del sizes[dim]
            made = "Select"
        elif isinstance(item, slice):
            start, stop, step = item.start, item.stop, item.step
            whole = (
                (start is None or (_is_integer_index(start) and int(start) == 0))
                and (step is None or (_is_integer_index(step) and int(step) == 1))
                and (stop is None or (_is_integer_index(stop) and int(stop) >= sizes[dim]))
            )
            if not whole:
                made = "Slice"
            dim += 1
        else:
            dim += _dims_taken(item)
    return made


@replayed_whole
def setitem(input: Tensor, index: Any, value: Any) -> None:
    """``input[index] = value``: a write at the elements the index selects (``CopySlices``
    for a basic index, ``IndexPutBackward0`` for an advanced one), which marks ``input``
    dirty; when ``input`` is a view, the core records the write on its base too."""
    if _state.modes.vmap_levels and (
        isinstance(input, BatchedTensor)
        or isinstance(value, BatchedTensor)
        or holds_batched(index if isinstance(index, tuple) else (index,))
    ):
        _setitem_batched(input, index, value)
        return
    values = value if isinstance(value, Tensor) else Tensor(value, dtype=input.dtype)
    if index is False:
        return  # selects nothing: torch writes nothing and checks nothing
    data = input.array
    where = numpy_index(index, data.shape)
    view_op = indexing_view_op(index, data.shape)
    check_writable(input, through_view=view_op is not None, view_op=view_op)
    if where.advanced is None:
        target = data[where.basic]
        if values.array.shape != target.shape:
            values.expand(target.shape)  # raises torch's error where the value does not fit
        check_no_partial_overlap(target, (values,))
        write(CopySlices, input, target, view_positions(target, data), values)
    else:
        selected = where.take(np.arange(data.size).reshape(data.shape))
        try:
            np.broadcast_to(values.array, selected.shape)
        except ValueError:
            raise RuntimeError(
                f"shape mismatch: value tensor of shape {list(values.array.shape)} cannot be broadcast to "
                f"indexing result of shape {list(selected.shape)}"
            ) from None
        # Repeated indices are allowed (the last value written wins, as in torch on the CPU);
        # only a target whose own elements share memory is refused.
        if internal_overlap(data):
            check_no_overlap(view_positions(data, data))
        IndexPut.apply(input, values, selected, None)


def _setitem_batched(input: Tensor, index: Any, value: Any) -> None:
    """``input[index] = value`` inside vmap: the same write into the whole batch, the index
    taking every sample (a value of one sample per sample lines up with the selection)."""
    where = index if isinstance(index, tuple) else (index,)
    level = max(t.level for t in (input, value, *where) if isinstance(t, BatchedTensor))
    if not (isinstance(input, BatchedTensor) and input.level == level):
        raise RuntimeError(
            "vmap: index_put_(self, *extra_args) is not possible because there exists a Tensor `other` in "
            "extra_args that has more elements than `self`. This happened due to `other` being vmapped over but "
            "`self` not being vmapped over in a vmap. Please try to use out-of-place operators instead of "
            "index_put_. If said operator is being called inside the PyTorch framework, please file a bug report "
            "instead."
        )
    if any(isinstance(i, BatchedTensor) for i in where):
        v = value if isinstance(value, Tensor) else as_tensor(np.asarray(value, dtype=input.array.dtype))
        values = v if v.dtype == input.dtype else v.to(input.dtype)
        write_in_place(PutFlat, *index_put_args("index_put_", input, where, values))  # (each sample's own positions)
        return
    if isinstance(value, BatchedTensor) and value.level == level:
        n = input[index].ndim
        v = value.value
        value = v.reshape((v.shape[0],) + (1,) * (n - (v.ndim - 1)) + tuple(v.shape[1:])) if v.ndim - 1 < n else v
    setitem(input.value, (slice(None), *where), value)


ROWS: list[Op] = [
    Op("zero_", zero_, function=False),
    Op("fill_", fill_, function=False),
    Op("copy_", copy_, function=False),
    Op("__setitem__", setitem, function=False),
]

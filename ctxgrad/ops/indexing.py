"""Indexing: ``x[index]``, ``gather``, ``scatter``, ``index_select``, ``masked_fill`` and friends.

Basic indices (ints, slices, None, Ellipsis) give NumPy views, which ``apply`` links to the
input's version counter (:class:`GetItem`).  An index with an *advanced* item (an integer or
bool tensor, a list, a NumPy array, a Python bool) gives a copy (:class:`Index`, torch's
``IndexBackward0``) whose gradient adds up the gradients of repeated positions.

Two helpers turn a torch index into a NumPy one, for reading here and for assignment
(``__setitem__``): :func:`normalize_index` for basic indices and :func:`numpy_index` for
any index.  Torch applies the ints of an index before its advanced items (so an int never
joins the broadcast of the index tensors, unlike in NumPy); :class:`NumpyIndex` therefore
holds two steps, a basic one that gives a view and the advanced rest applied to that view.
"""

from __future__ import annotations

import warnings
from typing import Any, ClassVar, NamedTuple

import numpy as np

from ctxgrad._dtypes import fill_value_as, short_name
from ctxgrad._replayed import replayed_whole
from ctxgrad._tensor import Tensor, _wrap_dim, as_tensor
from ctxgrad.autograd.batching import (
    BatchedTensor,
    VmapInfo,
    align_samples,
    batch_elementwise,
    dims_rule,
    elementwise_rule,
    expand_unbatched,
    flat_positions_rule,
    into_zeros_rule,
    leading_rule,
    loop_over_samples,
    only_first_batched,
    refuse_dynamic_shape,
    shift_dim,
)
from ctxgrad.autograd.function import Function
from ctxgrad.autograd.grad_mode import is_grad_enabled
from ctxgrad.autograd.inplace import write_in_place
from ctxgrad.ops._util import UNSET, broadcast_error, missing, numpy_dim

# --------------------------------------------------------------------------- index conversion


class _Advanced(Exception):
    """Raised inside the basic-index parser when an item needs the advanced path."""


class _Ellipses(_Advanced):
    """Raised inside the basic-index parser at a second Ellipsis: :func:`numpy_index` spells
    the index with one (:func:`_single_ellipsis`)."""


def _single_ellipsis(index: tuple[Any, ...], ndim: int) -> tuple[Any, ...]:
    """An index holding several Ellipses as torch reads it, without them: each stands for
    the dimensions the other items leave (``x[..., ...]`` is ``x``, ``x[..., 0, ...]`` is
    ``x[..., 0]``), the dimensions it would pass beyond the last dropped (torch only moves
    its position there).  NumPy refuses a second Ellipsis."""
    specified = 0
    for item in index:
        if item is None or item is Ellipsis or type(item) is bool:
            continue
        if isinstance(item, (Tensor, np.ndarray)) and item.dtype == np.bool_:
            specified += item.ndim
        else:
            specified += 1
    skipped = ndim - specified
    out: list[Any] = []
    dim = 0
    for item in index:
        if item is Ellipsis:
            out.extend([slice(None)] * max(min(skipped, ndim - dim), 0))
            dim += skipped
            continue
        if item is None and dim > ndim:
            expected = f"[-{ndim + 1}, {ndim}]"
            raise IndexError(f"Dimension out of range (expected to be in range of {expected}, but got {dim})")
        out.append(item)
        if not (item is None or type(item) is bool):
            dim += item.ndim if isinstance(item, (Tensor, np.ndarray)) and item.dtype == np.bool_ else 1
    return tuple(out)


_ZERO_DIM_INDEX = (
    "invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` in C++ "
    "to convert a 0-dim tensor to a number"
)


def _type_label(item: Any) -> str:
    tp = type(item)
    return tp.__name__ if tp.__module__ == "builtins" else f"{tp.__module__}.{tp.__name__}"


def _invalid_item(item: Any) -> Exception:
    if isinstance(item, str):
        return TypeError(f"new(): invalid data type '{type(item).__name__}'")
    return IndexError(
        "only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are valid indices "
        f"(got {_type_label(item)})"
    )


def _check_step(item: slice) -> None:
    step = item.step
    if step is not None:
        step = int(step)
        if step == 0:
            raise ValueError("slice step cannot be zero")
        if step < 0:
            raise ValueError("step must be greater than zero")


def _as_int(item: Any) -> int | None:
    """``item`` as an int when torch reads it as one (a NumPy integer, a 0-d integer tensor
    or array), else None."""
    if isinstance(item, np.integer):
        return int(item)
    if isinstance(item, (Tensor, np.ndarray)):
        data = item.array if isinstance(item, Tensor) else item
        if data.ndim == 0 and data.dtype.kind in "iu":
            return int(data)
    return None


def _items(index: Any) -> tuple[Any, ...]:
    """The items of an index: a tuple as it is; a short list holding a sequence, a slice,
    None, Ellipsis or a tensor read as a tuple (torch's legacy rule, with its warning)."""
    if type(index) is tuple:
        return index
    if type(index) is list and len(index) < 32:
        for item in index:
            if isinstance(item, (Tensor, list, tuple, slice, np.ndarray)) or item is None or item is Ellipsis:
                warnings.warn(
                    "Using a non-tuple sequence for multidimensional indexing is deprecated and will be "
                    "changed in pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this "
                    "will be interpreted as tensor index, x[torch.tensor(seq)], which will result either "
                    "in an error or a different result",
                    UserWarning,
                    stacklevel=4,
                )
                return tuple(index)
    return (index,)


# Classes of basic indexing, named as torch names the node of the last view op it applies.
def _basic(index: Any) -> tuple[tuple[Any, ...], type[GetItem]]:
    """The NumPy tuple of a basic index (ending in Ellipsis, so that NumPy returns a 0-d
    view, never a scalar copy) and the class to apply; raises ``_Advanced`` otherwise."""
    if type(index) is not tuple:
        tp = type(index)
        if tp is int:
            return (index, ...), SelectItem
        if tp is slice:
            _check_step(index)
            return (index, ...), GetItem
        if index is None:
            return (None, ...), UnsqueezeItem
        if index is Ellipsis:
            return (...,), AliasItem
        if tp is list:
            raise _Advanced
        index = (index,)
    out: list[Any] = []
    cls: type[GetItem] = AliasItem
    ellipsis = False
    for item in index:
        tp = type(item)
        if tp is int:
            cls = SelectItem
        elif tp is slice:
            _check_step(item)
            if item.start is not None or item.stop is not None or item.step not in (None, 1):
                cls = GetItem
        elif item is None:
            cls = UnsqueezeItem
        elif item is Ellipsis:
            if ellipsis:
                raise _Ellipses
            ellipsis = True
        else:
            as_int = _as_int(item)
            if as_int is None:
                if tp is float:
                    raise _invalid_item(item)
                raise _Advanced
            item = as_int
            cls = SelectItem
        out.append(item)
    if not ellipsis:
        out.append(Ellipsis)
    return tuple(out), cls


def normalize_index(index: Any, shape: tuple[int, ...]) -> tuple[Any, ...]:
    """A basic index (ints, slices with step > 0, None, Ellipsis; NumPy ints and 0-d integer
    tensors count as ints) as a NumPy tuple ending in Ellipsis.

    ``x.array[normalize_index(i, x.shape)]`` is then a view.  Raises IndexError for an index
    with advanced items: use :func:`numpy_index` for those."""
    try:
        return _basic(index)[0]
    except _Advanced:
        raise IndexError(
            "normalize_index takes basic indices only (ints, slices, None, Ellipsis); use numpy_index "
            "for tensors, lists, arrays and bools"
        ) from None


class NumpyIndex(NamedTuple):
    """A torch index in NumPy terms: ``arr[basic]`` is a view, and ``advanced`` (None for a
    basic index) is applied to that view.  ``take`` reads, ``put`` writes."""

    basic: tuple[Any, ...]
    advanced: tuple[Any, ...] | None

    def take(self, arr: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        """``arr`` indexed: a view for a basic index, a new array otherwise."""
        view = arr[self.basic]
        return view if self.advanced is None else np.asarray(view[self.advanced])

    def put(self, arr: np.ndarray[Any, Any], values: Any, accumulate: bool = False) -> None:
        """Write ``values`` (broadcast to the indexed shape) into ``arr`` in place; with
        ``accumulate``, repeated positions receive the sum of their values."""
        view = arr[self.basic]
        if self.advanced is None:
            view[...] = values
        elif accumulate and not all(type(a) is not np.ndarray or a.dtype == np.bool_ for a in self.advanced):
            np.add.at(view, self.advanced, values)
        else:
            view[self.advanced] = values


def _batched_index(index: NumpyIndex, shape: tuple[int, ...], size: int) -> tuple[NumpyIndex, int]:
    """``index`` (into one sample of ``shape``) as an index into the batch of ``size``
    samples, and the dimension of the result that the batch lands in: 0, unless NumPy puts
    the index arrays' dimensions first (arrays apart from each other), then after them."""
    whole = NumpyIndex((slice(None), *index.basic), None if index.advanced is None else (slice(None), *index.advanced))
    items = index.advanced or ()
    at = [k for k, a in enumerate(items) if isinstance(a, (np.ndarray, int, np.integer))]
    if not at or at == list(range(at[0], at[0] + len(at))):
        return whole, 0
    shapes = [
        a.shape if not isinstance(a, np.ndarray) or a.dtype != np.bool_ else (int(a.sum()),)
        for a in items
        if isinstance(a, np.ndarray)
    ]
    return whole, len(np.broadcast_shapes(*shapes)) if shapes else 0


def _advanced_item(item: Any) -> np.ndarray[Any, Any]:
    """An advanced item as an int (intp) or bool array, with torch's dtype rules."""
    if isinstance(item, Tensor):
        data: np.ndarray[Any, Any] = item.array
        if data.dtype.kind == "b":
            return np.array(data)  # a copy: backward keeps it
        if data.dtype == np.uint8:
            warnings.warn(
                "indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead.",
                UserWarning,
                stacklevel=5,
            )
            return data.astype(np.bool_)
        if data.dtype in (np.int64, np.int32):
            return data.astype(np.intp)  # a copy: backward keeps it
        raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
    if isinstance(item, np.ndarray):
        arr = item
    elif isinstance(item, (list, tuple)):
        arr = np.array(item) if len(item) else np.empty(0, dtype=np.intp)
    else:
        raise _invalid_item(item)
    kind = arr.dtype.kind
    if kind == "b":
        return arr.copy() if arr is item else arr
    if kind in "iuf":
        return arr.astype(np.intp)
    raise IndexError("tensors used as indices must be long, int, byte or bool tensors")


def numpy_index(index: Any, shape: tuple[int, ...]) -> NumpyIndex:
    """Any torch index as a :class:`NumpyIndex` for an array of ``shape``.

    Raises torch's errors: IndexError for an index out of range (``index 5 is out of bounds
    for dimension 0 with size 3``, dimension counted among the index tensors as torch counts
    it), for a mask whose shape does not match, for index tensors that do not broadcast and
    for too many indices; ValueError for a slice step <= 0."""
    try:
        basic = _basic(index)[0]
    except _Advanced:
        pass
    else:
        _check_basic(basic, shape)
        return NumpyIndex(basic, None)
    first: list[Any] = []
    second: list[Any] = []
    ellipsis = False
    for item in _items(index):
        tp = type(item)
        if tp is int or tp is slice or item is None:
            if tp is slice:
                _check_step(item)
            first.append(item)
            if tp is not int:
                second.append(slice(None))
            continue
        if item is Ellipsis:
            if ellipsis:
                return numpy_index(_single_ellipsis(_items(index), len(shape)), shape)
            ellipsis = True
            first.append(item)
            second.append(item)
            continue
        if tp is bool or (isinstance(item, (Tensor, np.ndarray)) and item.ndim == 0 and item.dtype == np.bool_):
            # torch: a new dimension of size 1, indexed by [0] (True) or by nothing (False).
            first.append(None)
            second.append(np.zeros(1 if bool(item) else 0, dtype=np.intp))
            continue
        as_int = _as_int(item)
        if as_int is not None:
            first.append(as_int)
            continue
        if tp is float or isinstance(item, np.generic):
            raise _invalid_item(item)
        arr = _advanced_item(item)
        first.extend([slice(None)] * max(arr.ndim, 1) if arr.dtype == np.bool_ else [slice(None)])
        second.append(arr)
    if not ellipsis:
        first.append(Ellipsis)
        second.append(Ellipsis)
    basic_tuple = tuple(first)
    view_shape = _check_basic(basic_tuple, shape)
    advanced = tuple(second)
    if all(type(a) is not np.ndarray for a in advanced):
        return NumpyIndex(basic_tuple, None)
    _check_advanced(advanced, view_shape)
    return NumpyIndex(basic_tuple, advanced)


def _check_basic(basic: tuple[Any, ...], shape: tuple[int, ...]) -> tuple[int, ...]:
    """The shape of ``arr[basic]``, raising torch's errors for a bad basic index."""
    if len(shape) == 0 and any(type(i) is int for i in basic):
        raise IndexError(_ZERO_DIM_INDEX)
    try:
        # Indexing a zero-strided broadcast array costs nothing and gives NumPy's own checks.
        return tuple(np.broadcast_to(np.empty((), dtype=np.bool_), shape)[basic].shape)
    except IndexError as exc:
        raise _torch_index_error(exc, len(shape)) from None


def _torch_index_error(exc: Exception, ndim: int) -> IndexError:
    message = str(exc)
    if message.startswith("too many indices"):
        return IndexError(f"too many indices for tensor of dimension {ndim}")
    return IndexError(message.replace("axis", "dimension"))


def _check_advanced(advanced: tuple[Any, ...], shape: tuple[int, ...]) -> None:
    """Torch's checks of the advanced step, in torch's order: mask shapes, then broadcasting
    of the index tensors, then bounds."""
    consumed = sum(a.ndim if isinstance(a, np.ndarray) and a.dtype == np.bool_ else 1 for a in advanced) - 1
    several = sum(isinstance(a, np.ndarray) for a in advanced) > 1  # only then the broadcast is checked
    dim = 0
    tensors: list[tuple[int, np.ndarray[Any, Any]]] = []  # (dimension or -1 for a mask, index array)
    bad = False
    for item in advanced:
        if item is Ellipsis:
            dim += len(shape) - consumed
        elif type(item) is slice:
            dim += 1
        elif item.dtype == np.bool_:
            for q, size in enumerate(item.shape):
                if size != shape[dim + q]:
                    raise IndexError(
                        f"The shape of the mask {list(item.shape)} at index {q} does not match the shape of the "
                        f"indexed tensor {list(shape)} at index {dim + q}"
                    )
            tensors.extend((-1, a) for a in (np.nonzero(item) if several else [item]))
            dim += item.ndim
        else:
            size = shape[dim]
            if item.size and (item.min() < -size or item.max() >= size):
                bad = True
            tensors.append((dim, item))
            dim += 1
    if len(tensors) > 1:
        try:
            np.broadcast_shapes(*(a.shape for _, a in tensors))
        except ValueError:
            raise IndexError(
                "shape mismatch: indexing tensors could not be broadcast together with shapes "
                + ", ".join(str(list(a.shape)) for _, a in tensors)
            ) from None
    if bad:
        _raise_out_of_bounds(tensors, shape)


def _raise_out_of_bounds(tensors: list[tuple[int, np.ndarray[Any, Any]]], shape: tuple[int, ...]) -> None:
    """Torch's message for the first bad index, in the order torch's kernel meets them:
    element by element of the broadcast index tensors, tensor by tensor within one."""
    full = np.broadcast_arrays(*(a for _, a in tensors))
    best: tuple[int, int, int, int] | None = None  # (flat position, tensor number, value, size)
    for j, ((dim, _), a) in enumerate(zip(tensors, full)):
        if dim < 0:
            continue
        size = shape[dim]
        flat = a.reshape(-1)
        positions = np.flatnonzero((flat < -size) | (flat >= size))
        if positions.size and (best is None or int(positions[0]) < best[0]):
            best = (int(positions[0]), j, int(flat[positions[0]]), size)
    if best is not None:
        _, j, value, size = best
        raise IndexError(f"index {value} is out of bounds for dimension {j} with size {size}")


def getitem(input: Tensor, index: Any) -> Tensor:
    """``input[index]``: a view for a basic index, a copy (``IndexBackward0``) otherwise."""
    try:
        basic, cls = _basic(index)
    except _Advanced:
        return _advanced_getitem(input, index)
    return cls.apply(input, basic)


@replayed_whole  # (reads the index tensors' values: a trace's replay reads them again)
def _advanced_getitem(input: Tensor, index: Any) -> Tensor:
    items = index if isinstance(index, tuple) else (index,)
    if _batched_int_indices(items, input.array.shape):  # each sample's own positions, read in forward
        return Take.apply(input, IndexPositions.apply(input.array.shape, 0, *items))
    found = numpy_index(index, input.array.shape)
    if found.advanced is not None:
        return Index.apply(input, found)
    basic, cls = _basic(found.basic)  # a list read as a tuple of basic items
    return cls.apply(input, basic)


# --------------------------------------------------------------------------- x[index]


class GetItem(Function[Tensor]):
    """``x[index]`` for basic indices (a view); the gradient is written into zeros of x's shape."""

    @classmethod
    def vmap(cls, info: VmapInfo, in_dims: tuple[Any, ...], x: Tensor, index: Any) -> tuple[Any, Any]:
        """Basic indexing (ints, slices, None, Ellipsis): the batch dimension is kept whole."""
        if not only_first_batched(in_dims):
            return loop_over_samples(cls, info, in_dims, x, index)
        return cls.apply(x, (slice(None), *index)), 0

    node_name = "SliceBackward0"
    holomorphic = True  # linear, real coefficients
    returns_views = True
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, index: tuple[Any, ...]) -> Tensor:
        data = x.array
        ctx.shape = data.shape
        ctx.index = index
        if data.ndim == 0 and any(type(i) is int for i in index):
            raise IndexError(_ZERO_DIM_INDEX)
        try:
            return as_tensor(data[index])
        except IndexError as exc:
            raise _torch_index_error(exc, data.ndim) from None

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return IndexIntoZeros.apply(grad, ctx.shape, ctx.index), None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: None) -> Tensor:
        return GetItem.apply(tx, ctx.index)


class SelectItem(GetItem):
    """Basic indexing whose last step is an int (torch's ``select``)."""

    node_name = "SelectBackward0"
    holomorphic = True  # linear, real coefficients
    returns_views = True


class UnsqueezeItem(GetItem):
    """Basic indexing whose last step is None (torch's ``unsqueeze``)."""

    node_name = "UnsqueezeBackward0"
    holomorphic = True  # linear, real coefficients
    returns_views = True


class AliasItem(GetItem):
    """Basic indexing that selects everything (``x[...]``, ``x[:, :]``): torch's ``alias``."""

    node_name = "AliasBackward0"
    holomorphic = True  # linear, real coefficients
    returns_views = True


class IndexIntoZeros(Function[Tensor]):
    """Zeros of ``shape`` with ``values`` written at a basic ``index``: the backward of
    indexing, whose own backward is indexing again."""

    @classmethod
    def vmap(cls, info: Any, in_dims: tuple[Any, ...], values: Tensor, shape: Any, index: Any) -> tuple[Any, Any]:
        if in_dims[0] is None:
            return cls.apply(values, shape, index), None
        return cls.apply(values, (values.shape[0], *shape), (slice(None), *index)), 0

    node_name = "IndexIntoZerosBackward0"
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, values: Tensor, shape: tuple[int, ...], index: tuple[Any, ...]) -> Tensor:
        ctx.index = index
        ctx.shape = shape
        v = values.array
        out = np.zeros(shape, dtype=v.dtype)
        out[index] = v
        return as_tensor(out)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        return GetItem.apply(grad, ctx.index), None, None

    @staticmethod
    def jvp(ctx: Any, tv: Tensor, *_: None) -> Tensor:
        return IndexIntoZeros.apply(tv, ctx.shape, ctx.index)


class Index(Function[Tensor]):
    """``x[index]`` with advanced items (a :class:`NumpyIndex`): a copy; the gradient adds up
    at repeated positions."""

    @classmethod
    def vmap(cls, info: Any, in_dims: tuple[Any, ...], x: Tensor, index: NumpyIndex) -> tuple[Any, Any]:
        # the same index with the batch dimension taken whole; where NumPy puts the index
        # arrays' dimensions first (arrays apart from each other), the batch follows them
        whole, batch_at = _batched_index(index, tuple(x.shape[1:]), x.shape[0])
        return cls.apply(x, whole), batch_at

    node_name = "IndexBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"self_sym_sizes": ("sizes", 0)}  # (not yet its indices)
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, index: NumpyIndex) -> Tensor:
        data = x.array
        ctx.shape = data.shape
        ctx.index = index
        return as_tensor(index.take(data))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return IndexPutIntoZeros.apply(grad, ctx.shape, ctx.index), None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: None) -> Tensor:
        return Index.apply(tx, ctx.index)


class IndexPutIntoZeros(Function[Tensor]):
    """Zeros of ``shape`` with ``values`` added at a :class:`NumpyIndex` (repeated positions
    sum): the backward of advanced indexing, whose own backward is that indexing."""

    @classmethod
    def vmap(
        cls, info: Any, in_dims: tuple[Any, ...], values: Tensor, shape: tuple[int, ...], index: NumpyIndex
    ) -> tuple[Any, Any]:
        if in_dims[0] is None:
            return cls.apply(values, shape, index), None
        whole, batch_at = _batched_index(index, tuple(shape), values.shape[0])
        return cls.apply(values.movedim(0, batch_at), (values.shape[0], *shape), whole), 0

    node_name = "IndexPutBackward0"
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, values: Tensor, shape: tuple[int, ...], index: NumpyIndex) -> Tensor:
        ctx.shape = shape
        ctx.index = index
        v = values.array
        out = np.zeros(shape, dtype=v.dtype)
        index.put(out, v, accumulate=True)
        return as_tensor(out)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        return Index.apply(grad, ctx.index), None, None

    @staticmethod
    def jvp(ctx: Any, tv: Tensor, *_: None) -> Tensor:
        return IndexPutIntoZeros.apply(tv, ctx.shape, ctx.index)


# --------------------------------------------------------------------------- gather and scatter


def _index_dtype(op: str, index: Tensor) -> np.ndarray[Any, Any]:
    if not isinstance(index, Tensor):
        raise TypeError(f"{op}(): argument 'index' must be Tensor, not {type(index).__name__}")
    data = index.array
    if data.dtype not in (np.int64, np.int32):
        raise RuntimeError(f"{op}(): Expected dtype int32/int64 for index")
    return data


def _grid(index: np.ndarray[Any, Any], dim: int) -> tuple[Any, ...]:
    """The NumPy index of the positions ``(i_0, ..., index[i], ..., i_n)`` for every position
    ``i`` of ``index``: what gather reads and scatter writes."""
    grid: list[Any] = list(np.ogrid[tuple(slice(s) for s in index.shape)])
    grid[dim] = index
    return tuple(grid)


def _check_bounds(index: np.ndarray[Any, Any], dim: int, size: int) -> None:
    if not isinstance(index, np.ndarray):
        return  # (an index batched by vmap: checked where its values are read, ScatterPositions)
    if index.size and (index.min() < 0 or index.max() >= size):
        flat = index.reshape(-1)
        bad = flat[(flat < 0) | (flat >= size)][0]
        raise RuntimeError(f"index {int(bad)} is out of bounds for dimension {dim} with size {size}")


def _scatter_positions(index: Tensor, idx: Any, shape: tuple[int, ...], dim: int) -> Any:
    """The flat positions scatter writes: ``(i_0, ..., index[i], ..., i_n)`` for every
    position ``i`` of ``index``; a tensor of them for an index batched by vmap."""
    if isinstance(index, BatchedTensor):
        return ScatterPositions.apply(index, shape, dim)
    return _positions(shape)[_grid(idx, dim)]


class ScatterPositions(Function[Tensor]):
    """:func:`_scatter_positions` of an index whose first ``keep`` dimensions are apart (a
    vmap batch): the positions in the whole batch, taken back to each sample's own (modulo
    the size of a sample), after the bounds check.  Not differentiable."""

    node_name = "ScatterPositionsBackward0"
    skips_without_gradient = True
    vmap = leading_rule(3)

    @staticmethod
    def forward(ctx: Any, index: Tensor, shape: tuple[int, ...], dim: int, keep: int = 0) -> Tensor:
        idx = index.array
        idx = idx.reshape(idx.shape[:keep] + (1,)) if idx.ndim == keep else idx
        full = idx.shape[:keep] + (shape if shape else (1,))
        _check_bounds(idx, dim, full[dim + keep])
        n = max(int(np.prod(full[keep:], dtype=np.int64)), 1)
        out = as_tensor(_positions(full)[_grid(idx, dim + keep)] % n)
        ctx.mark_non_differentiable(out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[None, None, None, None]:
        return None, None, None, None


def _as_1d(data: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    return data.reshape(1) if data.ndim == 0 else data


def _check_gather(data: np.ndarray[Any, Any], dim: int, idx: np.ndarray[Any, Any]) -> None:
    if idx.ndim != data.ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    for d, (s, t) in enumerate(zip(idx.shape, data.shape)):
        if d != dim and s > t:
            raise RuntimeError(
                f"Size does not match at dimension {d} expected index {list(idx.shape)} to be no larger than "
                f"self {list(data.shape)} apart from dimension {dim}"
            )
    _check_bounds(idx, dim, data.shape[dim])


def _batch_gather_like(
    cls: Any, info: VmapInfo, in_dims: tuple[Any, ...], x: Tensor, dim: int, *rest: Any
) -> tuple[Any, Any]:
    """The batching rule of ``gather`` and the scatters: input, index (and source) of one
    shape, so each is given the batch and ``dim`` moves past it."""
    n = (x.ndim - 1) if in_dims[0] == 0 else x.ndim
    args = expand_unbatched((x, dim, *rest), in_dims, info.batch_size)
    args[1] = shift_dim(dim, n)
    return cls.apply(*args), 0


class Gather(Function[Tensor]):
    """``out[i][j] = x[i][index[i][j]]`` (for ``dim=1``); the gradient is scatter-added back."""

    vmap = classmethod(_batch_gather_like)

    node_name = "GatherBackward0"
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, dim: int, index: Tensor) -> Tensor:
        array = x.array
        data = _as_1d(array)
        idx = _as_1d(_index_dtype("gather", index))
        dim = _wrap_dim(dim, array.ndim)
        _check_gather(data, dim, idx)
        ctx.shape = array.shape
        ctx.dim = dim
        ctx.save_for_backward(index)
        out = data[_grid(idx, dim)]
        return as_tensor(out.reshape(index.array.shape))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        (index,) = ctx.saved_tensors
        zeros = as_tensor(np.zeros(ctx.shape, dtype=grad.array.dtype))
        return ScatterAdd.apply(zeros, ctx.dim, index, grad), None, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, *_: None) -> Tensor:
        (index,) = ctx.saved_tensors
        return Gather.apply(tx, ctx.dim, index)


def _check_scatter(
    op: str, data: np.ndarray[Any, Any], dim: int, idx: np.ndarray[Any, Any], src: np.ndarray[Any, Any] | None
) -> None:
    if src is not None and src.dtype != data.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if idx.ndim != data.ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    if src is not None and src.ndim != idx.ndim:
        if src.ndim < idx.ndim:  # torch reads src's size in a dimension it does not have
            n = max(src.ndim, 1)
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {src.ndim})")
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    too_big_self = any(d != dim and s > t for d, (s, t) in enumerate(zip(idx.shape, data.shape)))
    too_big_src = src is not None and any(s > t for s, t in zip(idx.shape, src.shape))
    if too_big_self or too_big_src:
        message = (
            f"Expected index {list(idx.shape)} to be no larger than self {list(data.shape)} apart from dimension {dim}"
        )
        if src is not None:
            message += f" and to be no larger size than src {list(src.shape)}"
        raise RuntimeError(message)
    _check_bounds(idx, dim, data.shape[dim])


def _src_part(src: np.ndarray[Any, Any], shape: tuple[int, ...]) -> np.ndarray[Any, Any]:
    """The leading ``shape`` block of ``src``: the values scatter uses."""
    return src if src.shape == shape else src[tuple(slice(s) for s in shape)]


def _scatter_into(
    ctx: Any, name: str, x: Tensor, dim: int, index: Tensor, src: Tensor | None, value: Any = None, add: bool = False
) -> Tensor:
    """The forward the scatter ops share: a copy of ``x`` with ``src`` (or the number ``value``)
    written, or with ``add`` added, at the positions ``index`` names along ``dim``."""
    data = _as_1d(x.array)
    idx = _as_1d(_index_dtype(name, index))
    values = None if src is None else _as_1d(src.array)
    dim = _wrap_dim(dim, x.array.ndim)
    _check_scatter(name, data, dim, idx, values)
    ctx.dim = dim
    ctx.save_for_backward(index)
    out = data.copy()
    where = _grid(idx, dim)
    if src is not None and values is not None:
        ctx.src_shape = src.array.shape
        value = _src_part(values, idx.shape)
    if add:
        np.add.at(out, where, value)
    else:
        out[where] = value
    return as_tensor(out.reshape(x.array.shape))


class Scatter(Function[Tensor]):
    """A copy of ``x`` with ``src[i][j]`` written at ``[i][index[i][j]]`` (for ``dim=1``)."""

    vmap = classmethod(_batch_gather_like)

    node_name = "ScatterBackward0"
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
        return _scatter_into(ctx, "scatter", x, dim, index, src)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, None, None, Tensor | None]:
        (index,) = ctx.saved_tensors
        need_x, _, _, need_src = ctx.needs_input_grad
        gx = ScatterValue.apply(grad, ctx.dim, index, 0.0) if need_x else None
        gsrc = _pad(Gather.apply(grad, ctx.dim, index), ctx.src_shape) if need_src else None
        return gx, None, None, gsrc

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: None, __: None, tsrc: Tensor) -> Tensor:
        (index,) = ctx.saved_tensors
        return Scatter.apply(tx, ctx.dim, index, tsrc)


def _pad(g: Tensor, shape: tuple[int, ...]) -> Tensor:
    """``g`` in the leading block of zeros of ``shape`` (the gradient of a src larger than
    its index; torch refuses to return it)."""
    if g.array.shape == shape:
        return g
    if len(shape) == 0:
        return g.reshape(())
    return IndexIntoZeros.apply(g, shape, tuple(slice(s) for s in g.array.shape))


class ScatterValue(Function[Tensor]):
    """A copy of ``x`` with the number ``value`` written at the positions ``index`` names."""

    vmap = classmethod(_batch_gather_like)

    node_name = "ScatterBackward1"
    saved_fields: ClassVar[dict[str, Any]] = {"dim": "dim", "index": 0}
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, dim: int, index: Tensor, value: Any) -> Tensor:
        return _scatter_into(ctx, "scatter", x, dim, index, None, value)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None]:
        (index,) = ctx.saved_tensors
        return ScatterValue.apply(grad, ctx.dim, index, 0.0), None, None, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, *_: None) -> Tensor:
        (index,) = ctx.saved_tensors
        return ScatterValue.apply(tx, ctx.dim, index, 0.0)


class ScatterAdd(Function[Tensor]):
    """A copy of ``x`` with ``src[i][j]`` added at ``[i][index[i][j]]`` (for ``dim=1``);
    repeated positions receive the sum."""

    vmap = classmethod(_batch_gather_like)

    node_name = "ScatterAddBackward0"
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
        return _scatter_into(ctx, "scatter_add", x, dim, index, src, add=True)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, Tensor | None]:
        (index,) = ctx.saved_tensors
        gsrc = _pad(Gather.apply(grad, ctx.dim, index), ctx.src_shape) if ctx.needs_input_grad[3] else None
        return grad, None, None, gsrc

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: None, __: None, tsrc: Tensor) -> Tensor:
        (index,) = ctx.saved_tensors
        return ScatterAdd.apply(tx, ctx.dim, index, tsrc)


# --------------------------------------------------------------------------- index_select, take


class IndexSelect(Function[Tensor]):
    """The slices ``index`` names along ``dim`` (repeats allowed); the gradient adds them back."""

    vmap = dims_rule(1)

    node_name = "IndexSelectBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"dim": "dim", "index": 0, "self_sym_sizes": "shape"}
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, dim: int, index: Tensor) -> Tensor:
        if not isinstance(index, Tensor):
            raise TypeError(f"index_select(): argument 'index' (position 2) must be Tensor, not {type(index).__name__}")
        idx = index.array
        if idx.dtype not in (np.int64, np.int32):
            raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
        if idx.ndim > 1:
            raise IndexError("index_select(): Index is supposed to be a vector")
        array = x.array
        data = _as_1d(array)
        dim = _wrap_dim(dim, array.ndim)
        size = data.shape[dim]
        idx = idx.reshape(-1)
        if idx.size and (idx.min() < 0 or idx.max() >= size):
            bad = int(idx[(idx < 0) | (idx >= size)][0])
            if dim == 0:  # torch's IndexError along the first dimension, its RuntimeError along the others
                raise IndexError(
                    f"{_OUT_OF_RANGE} (index_select(): index {bad} is out of bounds for dimension 0 with size {size})"
                )
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={bad} axis_dim={size}")
        ctx.shape = array.shape
        ctx.dim = dim
        ctx.save_for_backward(index)
        out = np.take(data, idx, axis=dim)
        return as_tensor(out.reshape(()) if array.ndim == 0 else out)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        (index,) = ctx.saved_tensors
        return IndexAddIntoZeros.apply(grad, ctx.shape, ctx.dim, index), None, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, *_: None) -> Tensor:
        (index,) = ctx.saved_tensors
        return IndexSelect.apply(tx, ctx.dim, index)


class IndexAddIntoZeros(Function[Tensor]):
    """Zeros of ``shape`` with the slices of ``values`` added along ``dim`` at ``index``:
    the backward of ``index_select``, whose own backward is ``index_select``."""

    vmap = into_zeros_rule(1, (2,))

    node_name = "IndexAddBackward0"
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, values: Tensor, shape: tuple[int, ...], dim: int, index: Tensor) -> Tensor:
        ctx.dim = dim
        ctx.shape = shape
        ctx.save_for_backward(index)
        v = values.array
        out = np.zeros(shape if shape else (1,), dtype=v.dtype)
        where: Any = (slice(None),) * dim + (index.array.reshape(-1),)
        np.add.at(out, where, _as_1d(v))
        return as_tensor(out.reshape(shape))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None]:
        (index,) = ctx.saved_tensors
        return IndexSelect.apply(grad, ctx.dim, index), None, None, None

    @staticmethod
    def jvp(ctx: Any, tv: Tensor, *_: None) -> Tensor:
        (index,) = ctx.saved_tensors
        return IndexAddIntoZeros.apply(tv, ctx.shape, ctx.dim, index)


class Take(Function[Tensor]):
    """``x`` read as 1-D at ``index`` (negative indices count from the end); the output has
    ``index``'s shape."""

    @staticmethod
    def vmap(info: Any, in_dims: tuple[Any, ...], x: Tensor, index: Tensor) -> tuple[Any, Any]:
        # each sample read as 1-D: a gather along its elements (negative indices wrapped first)
        size = info.batch_size
        flat = x.reshape(size, -1) if in_dims[0] == 0 else x.reshape(1, -1).expand(size, -1)
        idx = index if in_dims[1] == 0 else index.unsqueeze(0).expand(size, *index.shape)
        rows = idx.reshape(size, -1)
        rows = rows + (rows < 0).to(rows.dtype) * flat.shape[1]
        return flat.gather(1, rows).reshape(idx.shape), 0

    node_name = "TakeBackward0"
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, index: Tensor) -> Tensor:
        idx = index.array
        if idx.dtype != np.int64:
            raise RuntimeError(f"take(): Expected a long tensor for index, but got {_scalar_name(idx.dtype)}")
        data = x.array
        n = data.size
        if idx.size and (idx.min() < -n or idx.max() >= n):
            flat = idx.reshape(-1)
            bad = flat[(flat < -n) | (flat >= n)][0]
            raise IndexError(f"out of range: tried to access index {int(bad)} on a tensor of {n} elements.")
        ctx.shape = data.shape
        ctx.index = NumpyIndex((Ellipsis,), (idx.astype(np.intp),))
        return as_tensor(data.reshape(-1)[idx])

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        flat = IndexPutIntoZeros.apply(grad, (int(np.prod(ctx.shape)),), ctx.index)
        return flat.reshape(ctx.shape), None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: None) -> Tensor:
        return Index.apply(tx.reshape(-1), ctx.index)


def _scalar_name(dt: np.dtype[Any]) -> str:
    """torch's C++ name of a dtype as its errors print it (``Long``, ``Int``, ``Float``)."""
    return short_name(dt)


# --------------------------------------------------------------------------- masks


def _check_mask(op: str, mask: Any) -> np.ndarray[Any, Any]:
    if not isinstance(mask, Tensor):
        raise TypeError(f"{op}(): argument 'mask' (position 1) must be Tensor, not {type(mask).__name__}")
    data = mask.array
    if data.dtype != np.bool_:
        if op == "masked_select":
            raise RuntimeError("masked_select: expected BoolTensor for mask")
        names = {"float32": "float", "float64": "double", "uint8": "unsigned char", "int64": "long int"}
        name = names.get(str(data.dtype), str(data.dtype))
        raise RuntimeError(f"masked_fill_ only supports boolean masks, but got mask with dtype {name}")
    return data


def _broadcast_shape(a: np.ndarray[Any, Any], b: np.ndarray[Any, Any]) -> tuple[int, ...]:
    try:
        return tuple(np.broadcast_shapes(a.shape, b.shape))
    except ValueError:
        raise broadcast_error(a, b) from None


class MaskedFill(Function[Tensor]):
    """``x`` with the number ``value`` where ``mask`` (broadcast) holds."""

    vmap = elementwise_rule

    node_name = "MaskedFillBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"mask": 0}
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, mask: Tensor, value: Any) -> Tensor:
        data = x.array
        m = _check_mask("masked_fill", mask)
        _broadcast_shape(m, data)
        ctx.save_for_backward(mask)
        if type(value) in (int, float):  # torch's RuntimeError for a number the dtype cannot hold
            value = fill_value_as(value, data.dtype)
        return as_tensor(np.where(m, value, data).astype(data.dtype, copy=False))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        (mask,) = ctx.saved_tensors
        return MaskedFill.apply(grad, mask, 0.0), None, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, *_: None) -> Tensor:
        (mask,) = ctx.saved_tensors
        return MaskedFill.apply(tx, mask, 0.0)


class MaskedFillTensor(Function[Tensor]):
    """``x`` with the 0-d tensor ``value`` where ``mask`` holds; ``value`` gets the sum of
    the gradient over the filled positions."""

    @classmethod
    def vmap(cls, info: Any, in_dims: tuple[Any, ...], x: Tensor, mask: Tensor, value: Tensor) -> tuple[Any, Any]:
        if in_dims[2] is None:  # the 0-d value is shared: x and mask batch as for an elementwise op
            return batch_elementwise(cls, info, in_dims, x, mask, value)
        return loop_over_samples(cls, info, in_dims, x, mask, value)

    node_name = "MaskedFillBackward1"
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, mask: Tensor, value: Tensor) -> Tensor:
        data = x.array
        m = _check_mask("masked_fill", mask)
        v = value.array
        if v.ndim != 0:
            raise RuntimeError(
                f"masked_fill_ only supports a 0-dimensional value tensor, but got tensor with {v.ndim} dimension(s)."
            )
        _broadcast_shape(m, data)
        ctx.save_for_backward(mask)
        ctx.value_dtype = v.dtype
        return as_tensor(np.where(m, v, data).astype(data.dtype, copy=False))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, None, Tensor | None]:
        (mask,) = ctx.saved_tensors
        need_x, _, need_value = ctx.needs_input_grad
        gx = MaskedFill.apply(grad, mask, 0.0) if need_x else None
        gv = None
        if need_value:
            gv = MaskedSelect.apply(grad, mask).sum()
            if gv.array.dtype != ctx.value_dtype:
                gv = gv.to(ctx.value_dtype)
        return gx, None, gv

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: None, tv: Tensor) -> Tensor:
        (mask,) = ctx.saved_tensors
        return MaskedFillTensor.apply(tx, mask, tv.to(tx.array.dtype))


class MaskedSelect(Function[Tensor]):
    """The elements of ``x`` where ``mask`` holds (both broadcast), as a 1-D tensor."""

    node_name = "MaskedSelectBackward0"
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, mask: Tensor) -> Tensor:
        data = x.array
        m = _check_mask("masked_select", mask)
        shape = _broadcast_shape(m, data)
        if m.shape != shape:
            m = np.broadcast_to(m, shape)
        ctx.shape = shape
        ctx.save_for_backward(mask)
        return as_tensor(np.broadcast_to(data, shape)[m])

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return IndexPutIntoZeros.apply(grad, ctx.shape, _mask_index(ctx)), None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: None) -> Tensor:
        data = tx if tx.array.shape == ctx.shape else tx.expand(ctx.shape)
        return Index.apply(data, _mask_index(ctx))

    @staticmethod
    def vmap(info: Any, in_dims: tuple[Any, ...], x: Tensor, mask: Tensor) -> tuple[Tensor, int]:
        """A mask shared by every sample selects as many elements of each: the selection of
        the batch, one row per sample.  A batched mask would not (torch refuses it too)."""
        if in_dims[1] == 0:
            raise RuntimeError(
                "vmap: Attempted to vmap over `mask` in torch.masked_select(self, mask) We cannot support this "
                "because for each batch this would return a differently shaped Tensor. Please file an issue at "
                "https://github.com/pytorch/pytorch/issues if you need this feature."
            )
        size = info.batch_size
        sample = np.broadcast_to(np.empty((), bool), tuple(x.shape[1:]))  # (one sample's shape, no memory)
        shape = _broadcast_shape(_check_mask("masked_select", mask), sample)
        xs = x.reshape((size,) + (1,) * (len(shape) - sample.ndim) + tuple(x.shape[1:])).expand(size, *shape)
        return MaskedSelect.apply(xs, mask.expand(size, *shape)).reshape(size, -1), 0


def _mask_index(ctx: Any) -> NumpyIndex:
    """The saved mask, broadcast to the selection's shape, as an index."""
    (mask,) = ctx.saved_tensors
    m = mask.array
    return NumpyIndex((Ellipsis,), (m if m.shape == ctx.shape else np.broadcast_to(m, ctx.shape),))


# --------------------------------------------------------------------------- frontends
# One function per op, with torch's signature: the argument handling, then ``Function.apply``.
# The op table (ops/table.py) makes them the Tensor methods and the ``ctxgrad.*`` functions.
def gather(
    input: Tensor, dim: int = UNSET, index: Tensor = UNSET, *, sparse_grad: bool = False, axis: int | None = None
) -> Tensor:
    """``out[i][j] = input[i][index[i][j]]`` (for ``dim=1``): values picked along ``dim``."""
    if axis is not None:
        dim = numpy_dim("gather", dim, axis, UNSET)
    if dim is UNSET or index is UNSET:
        raise missing("gather", dim=dim, index=index)
    return Gather.apply(input, dim, index)


def _scatter(input: Tensor, dim: int, index: Tensor, src: Any, value: Any, reduce: str | None) -> Tensor:
    if src is None:
        src = value
    if reduce is not None and src is not None:
        return _scatter_with_reduce(input, dim, index, src, reduce, False)
    if isinstance(src, Tensor):
        return Scatter.apply(input, dim, index, src)
    if src is None:
        raise TypeError("scatter() missing 1 required positional argument: 'src' (or 'value')")
    return ScatterValue.apply(input, dim, index, src)


def scatter(
    input: Tensor,
    dim: int = UNSET,
    index: Tensor = UNSET,
    src: Any = None,
    *,
    value: Any = None,
    reduce: str | None = None,
    axis: int | None = None,
) -> Tensor:
    """A copy of ``input`` with ``src`` (or ``value``) written (``reduce="add"`` or
    ``"multiply"``: combined) at ``index`` along ``dim``."""
    if axis is not None:
        dim = numpy_dim("scatter", dim, axis, UNSET)
    if dim is UNSET or index is UNSET:
        raise missing("scatter", dim=dim, index=index)
    return _scatter(input, dim, index, src, value, reduce)


def scatter_method(
    input: Tensor,
    dim: int = UNSET,
    index: Tensor = UNSET,
    src: Any = None,
    *,
    value: Any = None,
    reduce: str | None = None,
    axis: int | None = None,
) -> Tensor:
    """A copy with ``src`` (a tensor) or ``value`` (a number) written at the positions
    ``index`` names along ``dim``."""
    if axis is not None:
        dim = numpy_dim("scatter", dim, axis, UNSET)
    if dim is UNSET or index is UNSET:
        raise missing("scatter", dim=dim, index=index)
    return _scatter(input, dim, index, src, value, reduce)


def scatter_add(
    input: Tensor, dim: int = UNSET, index: Tensor = UNSET, src: Tensor = UNSET, *, axis: int | None = None
) -> Tensor:
    """A copy with ``src`` added at the positions ``index`` names along ``dim`` (repeats add up)."""
    if axis is not None:
        dim = numpy_dim("scatter_add", dim, axis, UNSET)
    if dim is UNSET or index is UNSET or src is UNSET:
        raise missing("scatter_add", dim=dim, index=index, src=src)
    if not isinstance(src, Tensor):
        raise TypeError(f"scatter_add(): argument 'src' (position 3) must be Tensor, not {type(src).__name__}")
    return ScatterAdd.apply(input, dim, index, src)


def select(input: Tensor, dim: int = UNSET, index: int = UNSET, *, axis: int | None = None) -> Tensor:
    """The slice at ``index`` of dimension ``dim`` (that dimension removed): a view,
    ``x.select(1, i)`` is ``x[:, i]``."""
    if axis is not None:
        dim = numpy_dim("select", dim, axis, UNSET)
    if dim is UNSET or index is UNSET:
        raise missing("select", dim=dim, index=index)
    n = input.array.ndim
    if n == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = _wrap_dim(dim, n)
    size = input.array.shape[d]
    i = int(index)
    if not -size <= i < size:
        raise IndexError(
            f"select(): index {i} out of range for tensor of size {list(input.array.shape)} at dimension {d}"
        )
    return getitem(input, (slice(None),) * d + (i,))


def index_select(input: Tensor, dim: int = UNSET, index: Tensor = UNSET, *, axis: int | None = None) -> Tensor:
    """The slices along ``dim`` that the 1-D ``index`` names, in its order."""
    if axis is not None:
        dim = numpy_dim("index_select", dim, axis, UNSET)
    if dim is UNSET or index is UNSET:
        raise missing("index_select", dim=dim, index=index)
    return IndexSelect.apply(input, dim, index)


def masked_fill(input: Tensor, mask: Tensor, value: Any) -> Tensor:
    """A copy with ``value`` (a number or 0-d tensor) where the bool ``mask`` (broadcast) holds."""
    if isinstance(value, Tensor):
        return MaskedFillTensor.apply(input, mask, value)
    return MaskedFill.apply(input, mask, value)


def masked_fill_(input: Tensor, mask: Tensor, value: Any) -> Tensor:
    """In place: ``value`` (a number or 0-d tensor) where the bool ``mask`` (broadcast) holds."""
    return write_in_place(MaskedFillTensor if isinstance(value, Tensor) else MaskedFill, input, mask, value)


def masked_select(input: Tensor, mask: Tensor) -> Tensor:
    """The elements where the bool ``mask`` holds (both broadcast), as a 1-D tensor."""
    return MaskedSelect.apply(input, mask)


def take_along_dim(input: Tensor, indices: Tensor, dim: int | None = None, *, axis: int | None = None) -> Tensor:
    """Values at ``indices`` along ``dim`` (broadcast with ``input`` in the other dimensions);
    with ``dim=None``, ``input`` and ``indices`` are read as 1-D."""
    if axis is not None:
        dim = numpy_dim("take_along_dim", dim, axis)
    idx = indices.array
    if idx.dtype != np.int64:
        raise RuntimeError(
            f"ctxgrad.take_along_dim(): dtype of indices should be Long but got {_scalar_name(idx.dtype)}"
        )
    if dim is None:
        return Gather.apply(input.reshape(-1), 0, indices.reshape(-1))
    n = input.array.ndim
    if idx.ndim != n:
        raise RuntimeError(
            "ctxgrad.take_along_dim(): input and indices should have the same number of dimensions, but got "
            f"{n} dimensions for input, and {idx.ndim} dimensions for indices"
        )
    d = _wrap_dim(dim, n)
    x_shape = list(input.array.shape)
    i_shape = list(idx.shape)
    x_shape[d] = i_shape[d] = 1
    try:
        common = list(np.broadcast_shapes(tuple(x_shape), tuple(i_shape)))
    except ValueError:
        raise broadcast_error(np.empty(x_shape), np.empty(i_shape)) from None
    x_target = common.copy()
    x_target[d] = input.array.shape[d]
    i_target = common.copy()
    i_target[d] = idx.shape[d]
    x = input if list(input.array.shape) == x_target else input.expand(x_target)
    index = indices if list(idx.shape) == i_target else indices.expand(i_target)
    return Gather.apply(x, d, index)


def take(input: Tensor, index: Tensor) -> Tensor:
    """``input`` read as 1-D at ``index``; the result has ``index``'s shape."""
    return Take.apply(input, index)


@replayed_whole
def nonzero(input: Tensor, *, as_tuple: bool = False) -> Any:
    """int64 indices of the nonzero elements: one row per element (``as_tuple``: one 1-D
    tensor per dimension)."""
    if as_tuple and isinstance(input, BatchedTensor):
        raise RuntimeError("Batching rule not implemented for aten::nonzero_numpy. We could not generate a fallback.")
    refuse_dynamic_shape("nonzero", input)
    data = input.array if input.array.ndim else input.array.reshape(1)
    if as_tuple:
        return tuple(as_tensor(a.astype(np.int64)) for a in np.nonzero(data))
    if input.array.ndim == 0:
        return as_tensor(np.zeros((int(np.count_nonzero(data)), 0), dtype=np.int64))
    return as_tensor(np.argwhere(data).astype(np.int64))


def nonzero_static(input: Tensor, *, size: int, fill_value: int = -1) -> Tensor:
    """:func:`nonzero` of a fixed number of rows, ``size``: the first ``size`` indices, or all
    of them followed by rows of ``fill_value``, so the shape does not depend on the values."""
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    out: Tensor = NonzeroStatic.apply(input, int(size), int(fill_value))
    return out


class NonzeroStatic(Function[Tensor]):
    """The int64 indices of the first ``size`` nonzero elements of ``x`` (rows of
    ``fill_value`` after the last one found), each sample of its first ``keep`` dimensions (a
    vmap batch, ``leading_rule``) apart: a stable argsort of each flattened sample puts its
    nonzero positions first, in order, then ``np.unravel_index`` turns them into indices.
    Not differentiable."""

    node_name = "NonzeroStaticBackward0"
    skips_without_gradient = True
    vmap = leading_rule(3)

    @staticmethod
    def forward(ctx: Any, x: Tensor, size: int, fill_value: int, keep: int = 0) -> Tensor:
        data = x.array
        lead, shape = data.shape[:keep], data.shape[keep:]
        flat = (data != 0).reshape(lead + (-1,))
        first = np.argsort(~flat, axis=-1, kind="stable")[..., :size]
        out = np.full(lead + (size, len(shape)), fill_value, dtype=np.int64)
        if shape:
            found = np.stack(np.unravel_index(first, shape), axis=-1)
            taken = np.arange(first.shape[-1]) < flat.sum(-1, keepdims=True)
            out[..., : first.shape[-1], :] = np.where(taken[..., None], found, fill_value)
        result = as_tensor(out)
        ctx.mark_non_differentiable(result)
        return result

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[None, ...]:
        return (None,) * 4


@replayed_whole
def argwhere(input: Tensor) -> Tensor:
    """int64 indices of the nonzero elements, one row per element."""
    out: Tensor = nonzero(input)
    return out


# --------------------------------------------------------------------------- writes at flat positions
# index_add, index_copy, index_fill, index_put, masked_scatter and scatter_reduce all write
# (or add, or reduce) values at positions of the input.  Each frontend turns its own way of
# naming the positions into one array of flat (row-major) positions, ``pos``, so that one
# Function, :class:`PutFlat`, does the write and its gradient; ``Take`` reads them back.


def _positions(shape: tuple[int, ...]) -> np.ndarray[Any, Any]:
    """The flat position of every element of a tensor of ``shape``."""
    return np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)


def _zero_like(t: Tensor) -> Tensor:
    return as_tensor(np.zeros((), dtype=t.array.dtype))


class PutFlat(Function[Tensor]):
    """A copy of ``x`` with ``values`` (broadcast to ``pos``'s shape) written at the flat
    positions ``pos`` (repeated positions: the last write wins), or added there with
    ``accumulate`` (repeated positions add up).  ``x``'s gradient is the output's (zero where
    written over); ``values`` gets the output's gradient read at ``pos``."""

    node_name = "IndexPutBackward0"
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True
    vmap = flat_positions_rule(1, 2)

    @staticmethod
    def forward(ctx: Any, x: Tensor, values: Tensor, pos: Any, accumulate: bool) -> Tensor:
        pos = pos.array if isinstance(pos, Tensor) else pos  # (a tensor of them: an index batched by vmap)
        data = x.array
        out = data.copy()
        flat = out.reshape(-1)
        v = np.broadcast_to(values.array, pos.shape)
        if accumulate:
            np.add.at(flat, pos, v)
        else:
            flat[pos] = v
        ctx.args = (pos, accumulate)
        ctx.values_shape = values.array.shape
        return as_tensor(out)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None, None, None]:
        pos, accumulate = ctx.args
        need_x, need_values, _, _ = ctx.needs_input_grad
        gx = None
        if need_x:
            gx = grad if accumulate else ctx.forward_cls.apply(grad, _zero_like(grad), pos, False)
        gv = None
        if need_values:
            gv = Take.apply(grad, as_tensor(pos))
            if gv.array.shape != ctx.values_shape:
                gv = gv.sum_to_size(ctx.values_shape) if ctx.values_shape else gv.sum()
        return gx, gv, None, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, tv: Tensor | None, *_: None) -> Tensor:
        pos, accumulate = ctx.args
        out: Tensor = ctx.forward_cls.apply(tx, _zero_like(tx) if tv is None else tv, pos, accumulate)
        return out


class IndexAdd(PutFlat):
    node_name = "IndexAddBackward0"


class IndexCopy(PutFlat):
    node_name = "IndexCopyBackward0"


class IndexFill(PutFlat):
    node_name = "IndexFillBackward1"


class IndexFillNumber(PutFlat):
    node_name = "IndexFillBackward0"


class MaskedScatter(PutFlat):
    node_name = "MaskedScatterBackward0"


def _index_vector(op: str, index: Any) -> np.ndarray[Any, Any]:
    """The index of ``index_add``/``index_copy``/``index_fill``: a 0-d or 1-D int tensor."""
    if not isinstance(index, Tensor):
        raise TypeError(f"{op}(): argument 'index' (position 2) must be Tensor, not {type(index).__name__}")
    idx = index.array
    if idx.dtype not in (np.int64, np.int32):
        raise RuntimeError(f"{op}(): Expected dtype int32/int64 for index but got: {short_name(idx.dtype)}")
    if idx.ndim > 1:
        raise IndexError(
            f"{op}(): Index is supposed to be a vector, but got dim: {idx.ndim} with type: "
            f"{short_name(idx.dtype)} and size: {list(idx.shape)}"
        )
    if isinstance(index, BatchedTensor):
        return idx  # (its shape only: SlicePositions reads the values, for the whole batch)
    return idx.reshape(-1).astype(np.int64)


def _slice_positions(op: str, shape: tuple[int, ...], dim: int, index: Tensor, bounds_error: type[Exception]) -> Any:
    """The flat positions of the slices ``index`` names along ``dim`` of a tensor of
    ``shape``: an array, or (an index batched by vmap) a tensor of them, batched alike."""
    idx = _index_vector(op, index)
    if isinstance(index, BatchedTensor):
        return SlicePositions.apply(index, op, shape, dim, bounds_error)
    return _positions_along(op, shape, dim, idx, bounds_error)


# The ops where torch refuses a negative index (index_fill_, put_ and indexing count it from
# the end), and its message for an index out of range in some of them.
_NO_NEGATIVE_INDEX = frozenset({"index_add_", "index_copy_", "index_reduce_"})
_OUT_OF_RANGE = "index out of range in self"


def _positions_along(
    op: str, shape: tuple[int, ...], dim: int, idx: np.ndarray[Any, Any], bounds_error: type[Exception], keep: int = 0
) -> np.ndarray[Any, Any]:
    """:func:`_slice_positions` of an index array, whose first ``keep`` dimensions are apart
    (samples): they come first in the result."""
    size = shape[dim] if shape else 1
    low = 0 if op in _NO_NEGATIVE_INDEX else -size
    if idx.size and (idx.min() < low or idx.max() >= size):
        bad = int(idx[(idx < low) | (idx >= size)][0])
        if op == "put_":
            raise IndexError(f"out of range: tried to access index {bad} on a tensor of {size} elements.")
        detail = f"index {bad} is out of bounds for dimension {dim} with size {size}"
        if op == "index_copy_":
            raise IndexError(f"index_copy_(): {detail}")
        if op == "index_reduce_" or (op == "index_add_" and len(shape) <= 1):
            raise IndexError(f"{_OUT_OF_RANGE} ({op}(): {detail})")
        raise bounds_error(detail)
    idx = np.where(idx < 0, idx + size, idx).reshape(idx.shape[:keep] + (-1,)).astype(np.int64)
    taken = np.take(_positions(shape if shape else (1,)), idx, axis=dim)
    return np.moveaxis(taken, tuple(range(dim, dim + keep)), tuple(range(keep)))


class SlicePositions(Function[Tensor]):
    """The flat positions (int64) of the slices ``index`` names along ``dim`` of a tensor
    of ``shape`` (``index_add``, ``index_copy``, ``index_fill``, ``index_reduce``), with the
    first ``keep`` dimensions of ``index`` apart (a vmap batch): what those ops read when
    their index is batched.  Not differentiable."""

    node_name = "SlicePositionsBackward0"
    skips_without_gradient = True
    vmap = leading_rule(5)

    @staticmethod
    def forward(
        ctx: Any, index: Tensor, op: str, shape: tuple[int, ...], dim: int, bounds_error: type[Exception], keep: int = 0
    ) -> Tensor:
        out = as_tensor(_positions_along(op, shape, dim, index.array, bounds_error, keep))
        ctx.mark_non_differentiable(out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[None, ...]:
        return (None,) * 6


def _source_for(op: str, x: Tensor, dim: int, idx: np.ndarray[Any, Any], source: Any) -> Tensor:
    if not isinstance(source, Tensor):
        raise TypeError(f"{op}(): argument 'source' (position 3) must be Tensor, not {type(source).__name__}")
    data, src = x.array, source.array
    if src.dtype != data.dtype:
        if op == "index_add_":
            raise RuntimeError(
                f"index_add_(): self ({short_name(data.dtype)}) and source ({short_name(src.dtype)}) "
                "must have the same scalar type"
            )
        raise RuntimeError(
            f"{op}(): self and source expected to have the same dtype, but got (self) "
            f"{short_name(data.dtype)} and (source) {short_name(src.dtype)}"
        )
    count = src.shape[dim] if src.ndim else 1
    if count != idx.size:
        if op == "index_copy_":
            raise IndexError(
                f"index_copy_(): Number of indices ({idx.size}) should be equal to source.size(dim) ({count})"
            )
        raise RuntimeError(
            f"{op}(): Number of indices ({idx.size}) should be equal to source.size(dim): ({count}), for dim: {dim}"
        )
    expected = list(data.shape)
    if expected:
        expected[dim] = idx.size
    if list(src.shape) != expected and src.size != int(np.prod(expected)):
        raise RuntimeError(
            f"{op}(): Source/destination tensor must have same slice shapes. Destination slice shape: "
            f"{_sizes(data.shape, dim)} at dimension {dim} and source slice shape: {_sizes(src.shape, dim)} "
            f"at dimension {dim}."
        )
    return source


def _sizes(shape: tuple[int, ...], dim: int) -> str:
    rest = [s for i, s in enumerate(shape) if i != dim]
    return " ".join(str(s) for s in rest) if rest else "1"


def _index_add_args(
    input: Tensor, dim: int, index: Tensor, source: Tensor, alpha: Any
) -> tuple[Tensor, np.ndarray[Any, Any]]:
    d = _wrap_dim(dim, max(input.array.ndim, 1))
    idx = _index_vector("index_add_", index)
    src = _source_for("index_add_", input, d, idx, source)
    pos = _slice_positions("index_add_", input.array.shape, d, index, RuntimeError)
    if alpha != 1:
        src = src * alpha
    return src.reshape(pos.shape) if src.array.shape != pos.shape else src, pos


@replayed_whole
def index_add(
    input: Tensor,
    dim: int = UNSET,
    index: Tensor = UNSET,
    source: Tensor = UNSET,
    *,
    alpha: Any = 1,
    axis: int | None = None,
) -> Tensor:
    """A copy with ``alpha * source``'s slices added along ``dim`` at the positions ``index``
    names (repeated positions add up).

    >>> import ctxgrad
    >>> ctxgrad.zeros(3).index_add(0, ctxgrad.tensor([0, 0, 2]), ctxgrad.tensor([1.0, 2.0, 3.0])).tolist()
    [3.0, 0.0, 3.0]
    """
    if axis is not None:
        dim = numpy_dim("index_add", dim, axis, UNSET)
    if any(a is UNSET for a in (dim, index, source)):
        raise missing("index_add", dim=dim, index=index, source=source)
    src, pos = _index_add_args(input, dim, index, source, alpha)
    return IndexAdd.apply(input, src, pos, True)


@replayed_whole
def index_add_(
    input: Tensor,
    dim: int = UNSET,
    index: Tensor = UNSET,
    source: Tensor = UNSET,
    *,
    alpha: Any = 1,
    axis: int | None = None,
) -> Tensor:
    """In place: ``alpha * source``'s slices added along ``dim`` at ``index``."""
    if axis is not None:
        dim = numpy_dim("index_add_", dim, axis, UNSET)
    if any(a is UNSET for a in (dim, index, source)):
        raise missing("index_add_", dim=dim, index=index, source=source)
    src, pos = _index_add_args(input, dim, index, source, alpha)
    return write_in_place(IndexAdd, input, src, pos, True)


def _index_copy_args(input: Tensor, dim: int, index: Tensor, source: Tensor) -> tuple[Tensor, np.ndarray[Any, Any]]:
    d = _wrap_dim(dim, max(input.array.ndim, 1))
    idx = _index_vector("index_copy_", index)
    src = _source_for("index_copy_", input, d, idx, source)
    pos = _slice_positions("index_copy_", input.array.shape, d, index, IndexError)
    return src.reshape(pos.shape) if src.array.shape != pos.shape else src, pos


@replayed_whole
def index_copy(
    input: Tensor, dim: int = UNSET, index: Tensor = UNSET, source: Tensor = UNSET, *, axis: int | None = None
) -> Tensor:
    """A copy with ``source``'s slices written along ``dim`` at the positions ``index`` names."""
    if axis is not None:
        dim = numpy_dim("index_copy", dim, axis, UNSET)
    if any(a is UNSET for a in (dim, index, source)):
        raise missing("index_copy", dim=dim, index=index, source=source)
    src, pos = _index_copy_args(input, dim, index, source)
    return IndexCopy.apply(input, src, pos, False)


@replayed_whole
def index_copy_(
    input: Tensor, dim: int = UNSET, index: Tensor = UNSET, source: Tensor = UNSET, *, axis: int | None = None
) -> Tensor:
    """In place: ``source``'s slices written along ``dim`` at ``index``."""
    if axis is not None:
        dim = numpy_dim("index_copy_", dim, axis, UNSET)
    if any(a is UNSET for a in (dim, index, source)):
        raise missing("index_copy_", dim=dim, index=index, source=source)
    src, pos = _index_copy_args(input, dim, index, source)
    return write_in_place(IndexCopy, input, src, pos, False)


def _index_fill_args(input: Tensor, dim: int, index: Tensor, value: Any) -> tuple[Any, Tensor, np.ndarray[Any, Any]]:
    d = _wrap_dim(dim, max(input.array.ndim, 1))
    pos = _slice_positions("index_fill_", input.array.shape, d, index, IndexError)
    if isinstance(value, Tensor):
        if value.array.ndim != 0:
            raise RuntimeError(
                "index_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                f"{value.array.ndim} dimension(s)."
            )
        v = value if value.array.dtype == input.array.dtype else value.to(input.array.dtype)
        return IndexFill, v, pos
    if type(value) in (int, float):
        value = fill_value_as(value, input.array.dtype)
    return IndexFillNumber, as_tensor(np.asarray(value, dtype=input.array.dtype)), pos


@replayed_whole
def index_fill(
    input: Tensor, dim: int = UNSET, index: Tensor = UNSET, value: Any = UNSET, *, axis: int | None = None
) -> Tensor:
    """A copy with ``value`` (a number or a 0-d tensor) in the slices ``index`` names along ``dim``."""
    if axis is not None:
        dim = numpy_dim("index_fill", dim, axis, UNSET)
    if any(a is UNSET for a in (dim, index, value)):
        raise missing("index_fill", dim=dim, index=index, value=value)
    fn, v, pos = _index_fill_args(input, dim, index, value)
    out: Tensor = fn.apply(input, v, pos, False)
    return out


@replayed_whole
def index_fill_(
    input: Tensor, dim: int = UNSET, index: Tensor = UNSET, value: Any = UNSET, *, axis: int | None = None
) -> Tensor:
    """In place: ``value`` in the slices ``index`` names along ``dim``."""
    if axis is not None:
        dim = numpy_dim("index_fill_", dim, axis, UNSET)
    if any(a is UNSET for a in (dim, index, value)):
        raise missing("index_fill_", dim=dim, index=index, value=value)
    fn, v, pos = _index_fill_args(input, dim, index, value)
    return write_in_place(fn, input, v, pos, False)


def _batched_int_indices(indices: Any, shape: tuple[int, ...]) -> bool:
    """The index is integer tensors only, one per leading dimension, some batched by vmap:
    what :class:`IndexPositions` serves."""
    items = tuple(indices)
    return (
        0 < len(items) <= len(shape)
        and all(isinstance(t, Tensor) and t.dtype.kind in "iu" for t in items)
        and any(isinstance(t, BatchedTensor) for t in items)
    )


class IndexPositions(Function[Tensor]):
    """The flat positions ``x[i_0, i_1, ...]`` reads in a tensor of ``shape``, for integer
    index tensors (broadcast together) whose first ``keep`` dimensions are apart (a vmap
    batch: each sample's positions in its own sample), after torch's bounds check.  Not
    differentiable."""

    node_name = "IndexPositionsBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, shape: tuple[int, ...], keep: int, *indices: Tensor) -> Tensor:
        arrays = [t.array.astype(np.int64) for t in indices]
        for c, a in enumerate(arrays):
            size = shape[c]
            if a.size and (a.min() < -size or a.max() >= size):
                bad = a[(a < -size) | (a >= size)].reshape(-1)[0]
                raise IndexError(f"index {int(bad)} is out of bounds for dimension {c} with size {size}")
            arrays[c] = np.where(a < 0, a + size, a)
        flat = np.zeros((), np.int64)
        for c, a in enumerate(arrays):  # row-major position among the indexed dimensions
            flat = flat * shape[c] + a
        rest = shape[len(arrays) :]
        inner = int(np.prod(rest, dtype=np.int64))
        out = flat.reshape(flat.shape + (1,) * len(rest)) * inner + _positions(rest) if rest else flat
        result = as_tensor(np.ascontiguousarray(out))
        ctx.mark_non_differentiable(result)
        return result

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[None, ...]:
        return (None,) * len(ctx.needs_input_grad)

    @staticmethod
    def vmap(info: Any, in_dims: tuple[Any, ...], shape: Any, keep: int, *indices: Tensor) -> tuple[Tensor, int]:
        size = info.batch_size
        given = [t if d == 0 else t.unsqueeze(0).expand(size, *t.shape) for t, d in zip(indices, in_dims[2:])]
        return IndexPositions.apply(shape, keep + 1, *align_samples(given, (0,) * len(given))), 0


def _index_put_args(input: Tensor, indices: Any, values: Tensor) -> Any:
    if not isinstance(indices, (tuple, list)):
        raise TypeError(
            f"index_put(): argument 'indices' (position 1) must be tuple of Tensors, not {type(indices).__name__}"
        )
    if not isinstance(values, Tensor):
        raise TypeError(f"index_put(): argument 'values' (position 2) must be Tensor, not {type(values).__name__}")
    data = input.array
    if values.array.dtype != data.dtype:
        raise RuntimeError(
            "Index put requires the source and destination dtypes match, got "
            f"{short_name(data.dtype)} for the destination and {short_name(values.array.dtype)} for the source."
        )
    pos: Any
    if _batched_int_indices(indices, data.shape):  # each sample's own positions, read in forward
        pos = IndexPositions.apply(data.shape, 0, *indices)
    else:
        pos = numpy_index(tuple(indices), data.shape).take(_positions(data.shape))
    shape = tuple(pos.shape)
    try:
        if np.broadcast_shapes(values.array.shape, shape) != shape:
            raise ValueError
    except ValueError:
        raise RuntimeError(
            f"shape mismatch: value tensor of shape {list(values.array.shape)} cannot be broadcast to "
            f"indexing result of shape {list(shape)}"
        ) from None
    return pos


@replayed_whole
def index_put(input: Tensor, indices: Any, values: Tensor, accumulate: bool = False) -> Tensor:
    """A copy with ``values`` written (``accumulate``: added) at ``input[indices]``.

    >>> import ctxgrad
    >>> i = ctxgrad.tensor([0, 0])
    >>> ctxgrad.zeros(2).index_put((i,), ctxgrad.tensor([1.0, 2.0]), accumulate=True).tolist()
    [3.0, 0.0]
    """
    return PutFlat.apply(input, values, _index_put_args(input, indices, values), bool(accumulate))


@replayed_whole
def index_put_(input: Tensor, indices: Any, values: Tensor, accumulate: bool = False) -> Tensor:
    """In place: ``values`` written (``accumulate``: added) at ``input[indices]``."""
    return write_in_place(PutFlat, input, values, _index_put_args(input, indices, values), bool(accumulate))


def _masked_scatter_args(input: Tensor, mask: Any, source: Any) -> tuple[Tensor, np.ndarray[Any, Any]]:
    if not isinstance(mask, Tensor) or mask.array.dtype != np.bool_:
        got = short_name(mask.array.dtype) if isinstance(mask, Tensor) else type(mask).__name__
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with dtype {got}")
    if not isinstance(source, Tensor):
        raise TypeError(f"masked_scatter(): argument 'source' must be Tensor, not {type(source).__name__}")
    data = input.array
    if source.array.dtype != data.dtype:
        raise RuntimeError(
            "masked_scatter: expected self and source to have same dtypes but got"
            f"{short_name(data.dtype)} and {short_name(source.array.dtype)}"
        )
    try:
        m = np.broadcast_to(mask.array, data.shape)
    except ValueError:
        raise broadcast_error(mask.array, data) from None
    pos = _positions(data.shape)[m]
    if pos.size > source.array.size:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    flat = source.reshape(-1)
    return (flat if flat.array.size == pos.size else flat[: pos.size]), pos


@replayed_whole
def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """A copy with ``source``'s first elements, in order, written where ``mask`` holds.

    >>> import ctxgrad
    >>> x = ctxgrad.zeros(4)
    >>> x.masked_scatter(ctxgrad.tensor([True, False, True, False]), ctxgrad.tensor([1.0, 2.0, 3.0])).tolist()
    [1.0, 0.0, 2.0, 0.0]
    """
    if isinstance(mask, BatchedTensor) and isinstance(source, Tensor):
        return _masked_scatter_per_sample(input, mask, source)
    src, pos = _masked_scatter_args(input, mask, source)
    return MaskedScatter.apply(input, src, pos, False)


def _masked_scatter_per_sample(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """``masked_scatter`` with a mask batched by vmap: each sample's ones take ``source``'s
    elements in order, ``where(mask, source.flat[cumsum(mask) - 1], input)`` (the samples
    have different numbers of ones, so no one array of positions serves the batch)."""
    if mask.dtype != np.bool_:
        raise RuntimeError(
            f"masked_scatter_ only supports boolean masks, but got mask with dtype {short_name(mask.dtype)}"
        )
    if source.dtype != input.dtype:
        raise RuntimeError(
            "masked_scatter: expected self and source to have same dtypes but got"
            f"{short_name(input.dtype)} and {short_name(source.dtype)}"
        )
    shape = tuple(input.shape)
    m = mask if tuple(mask.shape) == shape else mask.expand(*shape)
    order = MaskedOrder.apply(m, source.numel())
    if source.numel() == 0:  # (then no sample has a one: MaskedOrder checked)
        return input.clone()
    return _where(m, Take.apply(source, order), input)


class MaskedOrder(Function[Tensor]):
    """For each element of a mask (its first ``keep`` dimensions apart: a vmap batch), the
    number of ones before it in its sample: the element of ``masked_scatter``'s source it
    takes.  Refuses a sample with more ones than the ``available`` source elements, as
    torch.  Not differentiable."""

    node_name = "MaskedOrderBackward0"
    skips_without_gradient = True
    vmap = leading_rule(2)

    @staticmethod
    def forward(ctx: Any, mask: Tensor, available: int, keep: int = 0) -> Tensor:
        m = mask.array
        rows = m.reshape(int(np.prod(m.shape[:keep], dtype=np.int64)), -1)
        if (rows.sum(1) > available).any():
            raise RuntimeError("Number of elements of source < number of ones in mask")
        order = np.clip(np.cumsum(rows, axis=1) - 1, 0, max(available - 1, 0))
        out = as_tensor(order.reshape(m.shape).astype(np.int64))
        ctx.mark_non_differentiable(out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[None, None, None]:
        return None, None, None


@replayed_whole
def masked_scatter_(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """In place: ``source``'s first elements written where ``mask`` holds."""
    src, pos = _masked_scatter_args(input, mask, source)
    return write_in_place(MaskedScatter, input, src, pos, False)


# --------------------------------------------------------------------------- scatter_reduce

_REDUCTIONS = ("sum", "prod", "mean", "amax", "amin")


def _identity(reduce: str, dt: np.dtype[Any]) -> Any:
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    big = np.inf if dt.kind == "f" else np.iinfo(dt).max if dt.kind in "iu" else True
    return -big if reduce == "amax" else big


class ScatterReduce(Function[Tensor]):
    """A copy of ``x`` where each position that ``pos`` names holds the reduction (``sum``,
    ``prod``, ``mean``, ``amax``, ``amin``) of the ``src`` values sent there, and of ``x``'s own
    value with ``include_self``.

    The gradient is torch's: a coefficient per input element (1 for ``sum``, ``1/count`` for
    ``mean``, the product of the others for ``prod``, an equal share among the elements that
    attain it for ``amax``/``amin``) times the output's gradient at its position, written in
    ctxgrad ops so that it can be differentiated again."""

    node_name = "ScatterReduceBackward0"
    skips_without_gradient = True
    vmap = flat_positions_rule(1, 2)

    @staticmethod
    def forward(ctx: Any, x: Tensor, src: Tensor, pos: Any, reduce: str, include_self: bool) -> Tensor:
        pos = pos.array if isinstance(pos, Tensor) else pos  # (a tensor of them: an index batched by vmap)
        data = x.array
        if data.dtype.kind == "c" and True in ctx.needs_input_grad:
            raise RuntimeError(
                "scatter_reduce does not support automatic differentiation for outputs with complex dtype."
            )
        out = data.copy()
        flat = out.reshape(-1)
        v = src.array.reshape(pos.shape)
        if not include_self:
            flat[pos] = _identity(reduce, data.dtype)
        if reduce in ("sum", "mean"):
            np.add.at(flat, pos, v)
        elif reduce == "prod":
            np.multiply.at(flat, pos, v)
        elif reduce == "amax":
            np.maximum.at(flat, pos, v)
        else:
            np.minimum.at(flat, pos, v)
        ctx.args = (pos, reduce, include_self)
        if reduce == "mean":
            counts = np.full(flat.shape, 1 if include_self else 0, dtype=np.int64)
            np.add.at(counts, pos, 1)
            counts[counts == 0] = 1
            ctx.counts = counts.reshape(data.shape)
            flat[...] = flat // counts if data.dtype.kind in "iu" else flat / counts
        result = as_tensor(out)
        ctx.save_for_backward(x, src, result)
        return result

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None, None, None, None]:
        x, src, result = ctx.saved_tensors
        cx, csrc = _scatter_reduce_coefficients(ctx, x, src, result)
        pos = ctx.args[0]
        need_x, need_src = ctx.needs_input_grad[:2]
        gx = grad * cx if need_x else None
        gsrc = Take.apply(grad, as_tensor(pos)) * csrc if need_src else None
        return gx, gsrc, None, None, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor | None, tsrc: Tensor | None, *_: None) -> Tensor:
        x, src, result = ctx.saved_tensors
        cx, csrc = _scatter_reduce_coefficients(ctx, x, src, result)
        out = cx * (tx if tx is not None else _zero_like(x))
        if tsrc is None:
            return out
        return PutFlat.apply(out, (csrc * tsrc).reshape(ctx.args[0].shape), ctx.args[0], True)


def _where(condition: Tensor, a: Tensor, b: Tensor) -> Tensor:
    from ctxgrad.ops.pointwise import where

    out: Tensor = where(condition, a, b)
    return out


def _scatter_reduce_coefficients(ctx: Any, x: Tensor, src: Tensor, result: Tensor) -> tuple[Tensor, Tensor]:
    """How much each element of ``x`` and of ``src`` moves the output at its position: the
    factors of torch's ``scatter_reduce_backward`` (so a gradient is ``grad * cx`` for ``x``
    and ``grad[pos] * csrc`` for ``src``)."""
    pos, reduce, include_self = ctx.args
    where = as_tensor(pos)
    src = src.reshape(pos.shape)
    if reduce == "sum":
        cx, csrc = as_tensor(np.ones(x.array.shape, x.array.dtype)), as_tensor(np.ones(pos.shape, x.array.dtype))
    elif reduce == "mean":
        n = as_tensor(ctx.counts.astype(x.array.dtype))
        cx, csrc = 1.0 / n, 1.0 / Take.apply(n, where)
    elif reduce == "prod":
        zero = x == 0
        masked_x = x.masked_fill(zero, 1.0)
        masked_x_result = ScatterReduce.apply(masked_x, src, pos, reduce, include_self)
        cx = masked_x_result / masked_x
        src_zero = src == 0
        zeros_per_position = PutFlat.apply(
            as_tensor(np.zeros(x.array.shape, x.array.dtype)),
            as_tensor(src_zero.array.astype(x.array.dtype)),
            pos,
            True,
        )
        single_zero = as_tensor(src_zero.array & (Take.apply(zeros_per_position, where).array == 1))
        masked_src = src.masked_fill(single_zero, 1.0)
        masked_src_result = ScatterReduce.apply(x, masked_src, pos, reduce, include_self)
        csrc = _where(
            single_zero,
            Take.apply(masked_src_result, where),
            Take.apply(result, where) / src.masked_fill(src_zero, 1.0),
        )
    else:  # amax, amin: an equal share for every element that attains the result
        value = Take.apply(result, where)
        x_is = as_tensor((x.array == result.array).astype(x.array.dtype))
        src_is = as_tensor((src.array == value.array).astype(x.array.dtype))
        n = PutFlat.apply(x_is, src_is, pos, True)
        cx, csrc = x_is / n, src_is / Take.apply(n, where)
    if not include_self:
        cx = PutFlat.apply(cx, _zero_like(cx), pos, False)
    return cx, csrc


def _scatter_reduce_args(
    name: str, input: Tensor, dim: int, index: Tensor, src: Any, reduce: str
) -> tuple[Tensor, np.ndarray[Any, Any]]:
    if reduce not in _REDUCTIONS:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    if not isinstance(src, Tensor):
        raise TypeError(f"{name}(): argument 'src' (position 3) must be Tensor, not {type(src).__name__}")
    if reduce in ("amax", "amin") and input.array.dtype.kind == "c":
        raise NotImplementedError(
            f"\"scatter_gather_tensor_cpu_reduce_{reduce}\" not implemented for '{short_name(input.array.dtype)}'"
        )
    data = _as_1d(input.array)
    idx = _as_1d(_index_dtype(name, index))
    d = _wrap_dim(dim, input.array.ndim)
    _check_scatter(name, data, d, idx, _as_1d(src.array))
    pos = _scatter_positions(index, idx, data.shape, d)
    part = src if src.array.shape == idx.shape else src[tuple(slice(s) for s in idx.shape)]
    return part, pos


@replayed_whole
def scatter_reduce(
    input: Tensor,
    dim: int = UNSET,
    index: Tensor = UNSET,
    src: Tensor = UNSET,
    reduce: str = UNSET,
    *,
    include_self: bool = True,
    axis: int | None = None,
) -> Tensor:
    """A copy where each position ``index`` names along ``dim`` holds the ``reduce``
    (``"sum"``, ``"prod"``, ``"mean"``, ``"amax"``, ``"amin"``) of the ``src`` values sent
    there (and of its own value, with ``include_self``).

    >>> import ctxgrad
    >>> x = ctxgrad.tensor([1.0, 5.0])
    >>> x.scatter_reduce(0, ctxgrad.tensor([0, 0, 1]), ctxgrad.tensor([3.0, 2.0, 4.0]), "amax").tolist()
    [3.0, 5.0]
    """
    if axis is not None:
        dim = numpy_dim("scatter_reduce", dim, axis, UNSET)
    if any(a is UNSET for a in (dim, index, src, reduce)):
        raise missing("scatter_reduce", dim=dim, index=index, src=src, reduce=reduce)
    part, pos = _scatter_reduce_args("scatter_reduce", input, dim, index, src, reduce)
    return ScatterReduce.apply(input, part, pos, reduce, bool(include_self))


@replayed_whole
def scatter_reduce_(
    input: Tensor,
    dim: int = UNSET,
    index: Tensor = UNSET,
    src: Tensor = UNSET,
    reduce: str = UNSET,
    *,
    include_self: bool = True,
    axis: int | None = None,
) -> Tensor:
    """In place: ``scatter_reduce``."""
    if axis is not None:
        dim = numpy_dim("scatter_reduce_", dim, axis, UNSET)
    if any(a is UNSET for a in (dim, index, src, reduce)):
        raise missing("scatter_reduce_", dim=dim, index=index, src=src, reduce=reduce)
    part, pos = _scatter_reduce_args("scatter_reduce", input, dim, index, src, reduce)
    return write_in_place(ScatterReduce, input, part, pos, reduce, bool(include_self))


class ScatterWithReduce(Function[Tensor]):
    """``scatter(..., reduce="add" | "multiply")``: torch's older reducing scatter, which has
    no derivative (its backward raises, as torch's)."""

    node_name = "NotImplemented"
    skips_without_gradient = True
    vmap = flat_positions_rule(1, 2)

    @staticmethod
    def forward(ctx: Any, x: Tensor, values: Any, pos: Any, reduce: str) -> Tensor:
        pos = pos.array if isinstance(pos, Tensor) else pos  # (a tensor of them: an index batched by vmap)
        out = x.array.copy()
        flat = out.reshape(-1)
        v = np.broadcast_to(values.array if isinstance(values, Tensor) else np.asarray(values), pos.shape)
        (np.add if reduce == "add" else np.multiply).at(flat, pos, v.astype(out.dtype))
        return as_tensor(out)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Any:
        raise RuntimeError("derivative for aten::scatter is not implemented")


def _scatter_with_reduce(input: Tensor, dim: int, index: Tensor, src: Any, reduce: str, inplace: bool) -> Tensor:
    if reduce not in ("add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")
    data = _as_1d(input.array)
    idx = _as_1d(_index_dtype("scatter", index))
    d = _wrap_dim(dim, input.array.ndim)
    values = src if isinstance(src, Tensor) else None
    _check_scatter("scatter", data, d, idx, None if values is None else _as_1d(values.array))
    if values is not None:
        warnings.warn(
            "The reduce argument of torch.scatter with Tensor src is deprecated and will be removed in a future "
            "PyTorch release. Use torch.scatter_reduce instead for more reduction options.",
            UserWarning,
            stacklevel=3,
        )
        v = values.detach()
        v = v.reshape(1) if v.ndim == 0 else v
        src = v if tuple(v.shape) == idx.shape else v[tuple(slice(s) for s in idx.shape)]
    pos = _scatter_positions(index, idx, data.shape, d)
    if inplace:
        return write_in_place(ScatterWithReduce, input, src, pos, reduce)
    return ScatterWithReduce.apply(input, src, pos, reduce)


def scatter_(
    input: Tensor,
    dim: int = UNSET,
    index: Tensor = UNSET,
    src: Any = None,
    *,
    value: Any = None,
    reduce: str | None = None,
) -> Tensor:
    """In place: ``src`` (a tensor) or ``value`` (a number) written (``reduce``: added or
    multiplied) at the positions ``index`` names along ``dim``."""
    if dim is UNSET or index is UNSET:
        raise missing("scatter_", dim=dim, index=index)
    if src is None:
        src = value
    if src is None:
        raise TypeError("scatter_() missing 1 required positional argument: 'src' (or 'value')")
    if reduce is not None:
        return _scatter_with_reduce(input, dim, index, src, reduce, True)
    return write_in_place(Scatter if isinstance(src, Tensor) else ScatterValue, input, dim, index, src)


def scatter_add_(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """In place: ``src`` added at the positions ``index`` names along ``dim`` (repeats add up)."""
    if not isinstance(src, Tensor):
        raise TypeError(f"scatter_add_(): argument 'src' (position 3) must be Tensor, not {type(src).__name__}")
    return write_in_place(ScatterAdd, input, dim, index, src)


# --------------------------------------------------------------------------- more writes at flat positions


class IndexReduce(ScatterReduce):
    node_name = "IndexReduceBackward0"


class Put(PutFlat):
    node_name = "PutBackward0"


class SelectScatter(PutFlat):
    node_name = "SelectScatterBackward0"


class SliceScatter(PutFlat):
    node_name = "SliceScatterBackward0"


class DiagonalScatter(PutFlat):
    node_name = "DiagonalScatterBackward0"


def _index_reduce_args(
    input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str
) -> tuple[Tensor, np.ndarray[Any, Any]]:
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    if input.array.dtype.kind == "c":
        raise NotImplementedError(f"\"index_func_\" not implemented for '{short_name(input.array.dtype)}'")
    d = _wrap_dim(dim, max(input.array.ndim, 1))
    idx = _index_vector("index_reduce_", index)
    src = _source_for("index_reduce_", input, d, idx, source)
    pos = _slice_positions("index_reduce_", input.array.shape, d, index, IndexError)
    return (src.reshape(pos.shape) if src.array.shape != pos.shape else src), pos


@replayed_whole
def index_reduce(
    input: Tensor,
    dim: int = UNSET,
    index: Tensor = UNSET,
    source: Tensor = UNSET,
    reduce: str = UNSET,
    *,
    include_self: bool = True,
    axis: int | None = None,
) -> Tensor:
    """A copy where each slice ``index`` names along ``dim`` holds the ``reduce`` (``"prod"``,
    ``"mean"``, ``"amax"``, ``"amin"``) of the ``source`` slices sent there (and of its own,
    with ``include_self``); the gradient is ``scatter_reduce``'s.

    >>> import ctxgrad
    >>> ctxgrad.ones(2).index_reduce(0, ctxgrad.tensor([0, 0]), ctxgrad.tensor([2.0, 3.0]), "prod").tolist()
    [6.0, 1.0]
    """
    if axis is not None:
        dim = numpy_dim("index_reduce", dim, axis, UNSET)
    if any(a is UNSET for a in (dim, index, source, reduce)):
        raise missing("index_reduce", dim=dim, index=index, source=source, reduce=reduce)
    src, pos = _index_reduce_args(input, dim, index, source, reduce)
    return IndexReduce.apply(input, src, pos, reduce, bool(include_self))


@replayed_whole
def index_reduce_(
    input: Tensor,
    dim: int = UNSET,
    index: Tensor = UNSET,
    source: Tensor = UNSET,
    reduce: str = UNSET,
    *,
    include_self: bool = True,
    axis: int | None = None,
) -> Tensor:
    """In place: ``index_reduce``."""
    if axis is not None:
        dim = numpy_dim("index_reduce_", dim, axis, UNSET)
    if any(a is UNSET for a in (dim, index, source, reduce)):
        raise missing("index_reduce_", dim=dim, index=index, source=source, reduce=reduce)
    src, pos = _index_reduce_args(input, dim, index, source, reduce)
    return write_in_place(IndexReduce, input, src, pos, reduce, bool(include_self))


def _put_args(input: Tensor, index: Tensor, source: Tensor) -> tuple[Tensor, Any]:
    idx = index.array
    if idx.dtype != np.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got {short_name(idx.dtype)}")
    if source.array.size != idx.size:
        raise IndexError(
            "put_(): Expected source and index to have the same number of elements, but got "
            f"source.numel() = {source.array.size}, index.numel() = {idx.size}"
        )
    if source.array.dtype != input.array.dtype:
        raise RuntimeError(
            f"put_(): self and source expected to have the same dtype, but got self.dtype = "
            f"{short_name(input.array.dtype)} and source.dtype = {short_name(source.array.dtype)}"
        )
    n = input.array.size
    if isinstance(index, BatchedTensor):  # each sample's positions, read for the whole batch
        return source.reshape(-1), SlicePositions.apply(index, "put_", (n,), 0, IndexError)
    if idx.size and (idx.min() < -n or idx.max() >= n):
        flat = idx.reshape(-1)
        bad = flat[(flat < -n) | (flat >= n)][0]
        raise IndexError(f"out of range: tried to access index {int(bad)} on a tensor of {n} elements.")
    pos = np.where(idx < 0, idx + n, idx).reshape(-1)
    return source.reshape(-1), pos


@replayed_whole
def put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """A copy with ``source``'s elements written (``accumulate``: added) at the positions
    ``index`` names in ``input`` read as 1-D.

    >>> import ctxgrad
    >>> ctxgrad.zeros(2, 2).put(ctxgrad.tensor([0, -1]), ctxgrad.tensor([5.0, 6.0])).tolist()
    [[5.0, 0.0], [0.0, 6.0]]
    """
    src, pos = _put_args(input, index, source)
    return Put.apply(input, src, pos, bool(accumulate))


@replayed_whole
def put_(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """In place: ``source`` written (``accumulate``: added) at the flat positions ``index``."""
    src, pos = _put_args(input, index, source)
    return write_in_place(Put, input, src, pos, bool(accumulate))


def embedded(fn: Any, input: Tensor, src: Tensor, where: np.ndarray[Any, Any]) -> Tensor:
    """``input`` with ``src`` written at the positions ``where`` (a selection of ``input``'s
    flat positions of exactly ``src``'s shape): the ``*_scatter`` ops."""
    if not isinstance(src, Tensor):
        raise TypeError(f"argument 'src' (position 2) must be Tensor, not {type(src).__name__}")
    if src.array.shape != where.shape:
        raise RuntimeError(
            "expected src to have a size equal to the slice of self. src size = "
            f"{list(src.array.shape)}, slice size = {list(where.shape)}"
        )
    values = src if src.array.dtype == input.array.dtype else src.to(input.array.dtype)
    if (
        fn in (SelectScatter, SliceScatter)
        and input.array.dtype.kind == "c"
        and (input.requires_grad or values.requires_grad)
        and is_grad_enabled()
    ):
        name = "select_scatter" if fn is SelectScatter else "slice_scatter"
        raise RuntimeError(f"{name} does not support automatic differentiation for outputs with complex dtype.")
    out: Tensor = fn.apply(input, values, np.ascontiguousarray(where), False)
    return out


class FillDiagonal(PutFlat):
    node_name = "CopySlices"  # torch fills the diagonal view: CopySlices


def fill_diagonal_(input: Tensor, fill_value: Any, wrap: bool = False) -> Tensor:
    """In place: ``fill_value`` on the main diagonal (of a matrix, or of a tensor whose
    dimensions all have one length); ``wrap`` restarts it every ``columns + 1`` rows in a
    tall matrix, as NumPy's ``fill_diagonal``."""
    data = input.array
    shape = data.shape
    if data.ndim < 2:
        raise RuntimeError("dimensions must larger than 1")
    if data.ndim > 2 and len(set(shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    step = sum(int(np.prod(shape[k + 1 :])) for k in range(data.ndim))  # one step along every dimension
    count = min(shape) if not (wrap and data.ndim == 2) else -(-data.size // step)
    pos = np.arange(count, dtype=np.int64) * step
    if isinstance(fill_value, Tensor):
        fill_value = fill_value.item()
    value = as_tensor(np.asarray(fill_value_as(fill_value, data.dtype), dtype=data.dtype))
    return write_in_place(FillDiagonal, input, value, pos, False)


def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    """A copy of ``input`` with ``src`` written at ``input.select(dim, index)``."""
    data = input.array
    d = _wrap_dim(dim, data.ndim)
    size = data.shape[d]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(data.shape)} at dimension {d}")
    return embedded(SelectScatter, input, src, np.take(_positions(data.shape), index % size, axis=d))


def slice_scatter(
    input: Tensor, src: Tensor, dim: int = 0, start: int | None = None, end: int | None = None, step: int = 1
) -> Tensor:
    """A copy of ``input`` with ``src`` written at ``input[start:end:step]`` along ``dim``."""
    data = input.array
    d = _wrap_dim(dim, data.ndim)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    where = _positions(data.shape)[(slice(None),) * d + (slice(start, end, step),)]
    return embedded(SliceScatter, input, src, where)


def diagonal_scatter(input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """A copy of ``input`` with ``src`` written on its ``offset``-th diagonal of ``dim1`` and ``dim2``."""
    data = input.array
    d1, d2 = _wrap_dim(dim1, data.ndim), _wrap_dim(dim2, data.ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    where = np.diagonal(_positions(data.shape), offset, d1, d2)
    return embedded(DiagonalScatter, input, src, where)


@replayed_whole
def unravel_index(indices: Any, shape: Any) -> tuple[Tensor, ...]:
    """The coordinates in a tensor of ``shape`` of the flat ``indices`` (taken modulo the
    number of elements, as torch), one int64 tensor per dimension.

    >>> import ctxgrad
    >>> [t.tolist() for t in ctxgrad.unravel_index(ctxgrad.tensor([5, 11]), (3, 4))]
    [[1, 2], [1, 3]]
    """
    data = indices.array if isinstance(indices, Tensor) else np.asarray(indices)
    if data.dtype.kind not in "iu":
        raise TypeError(f"expected 'indices' to be integer dtype, but got ctxgrad.{data.dtype.name}")
    dims = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(s) for s in shape)
    if any(s < 0 for s in dims):
        raise ValueError("'shape' cannot have negative values, but got " + str(dims))
    total = int(np.prod(dims))
    flat = data.astype(np.int64) % total if total else data.astype(np.int64)
    coords = []
    for size in reversed(dims):
        coords.append(flat % size if size else flat)
        flat = flat // size if size else flat
    return tuple(as_tensor(np.asarray(c, dtype=np.int64)) for c in reversed(coords))

"""Indexing: ``x[index]`` and the ops that read or write at the positions of an index:
``take``, ``index_put``, ``select``, ``nonzero`` (``argwhere``, ``nonzero_static``) and
``unravel_index``.

Basic indices (ints, slices, None, Ellipsis) give NumPy views, which ``apply`` links to the
input's version counter (:class:`GetItem`).  An index with an *advanced* item (an integer or
bool tensor, a list, a NumPy array, a Python bool) gives a copy (:class:`Index`, torch's
``IndexBackward0``) whose gradient adds up the gradients of repeated positions.

Two helpers turn a torch index into a NumPy one, for reading here and for assignment
(``__setitem__``): :func:`normalize_index` for basic indices and :func:`numpy_index` for
any index.  Torch applies the ints of an index before its advanced items (so an int never
joins the broadcast of the index tensors, unlike in NumPy); :class:`NumpyIndex` therefore
holds two steps, a basic one that gives a view and the advanced rest applied to that view.

The ops that write at positions (here and in :mod:`~ctxgrad.ops.gather_scatter` and
:mod:`~ctxgrad.ops.index_ops`) turn their own way of naming them into one array of flat
(row-major) positions, so that one Function, :class:`PutFlat`, does the write and its
gradient, and :class:`Take` reads them back.
"""

from __future__ import annotations

import warnings
from typing import Any, ClassVar, NamedTuple

import numpy as np

from ctxgrad._dtypes import short_name
from ctxgrad._replayed import replayed_whole
from ctxgrad._tensor import Tensor, _wrap_dim, as_tensor
from ctxgrad.autograd.batching import (
    BatchedTensor,
    VmapInfo,
    align_samples,
    flat_positions_rule,
    leading_rule,
    loop_over_samples,
    only_first_batched,
    refuse_dynamic_shape,
    stack_samples,
)
from ctxgrad.autograd.function import Function
from ctxgrad.ops._row import Op
from ctxgrad.ops._util import UNSET, missing

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
    if isinstance(item, BatchedTensor):
        return None  # (an int for each sample: an index tensor, whose values vmap does not show)
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
    if holds_batched(items):  # any other index with a tensor batched by vmap: each sample's positions
        return Take.apply(input, sample_positions(input.array.shape, items))
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


class Take(Function[Tensor]):
    """``input`` read as 1-D at ``index``, in ``index``'s shape (negative indices count from the end)."""

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


# --------------------------------------------------------------------------- writes at flat positions
# The ops that write (or add, or reduce) values at positions of the input (index_put here, the
# ops of gather_scatter and index_ops) turn their own way of naming the positions into one
# array of flat (row-major) positions, ``pos``, so that one Function, :class:`PutFlat`, does
# the write and its gradient; ``Take`` reads them back.


def _positions(shape: tuple[int, ...]) -> np.ndarray[Any, Any]:
    """The flat position of every element of a tensor of ``shape``."""
    return np.arange(int(np.prod(shape)), dtype=np.int64).reshape(shape)


def _zero_like(t: Tensor) -> Tensor:
    return as_tensor(np.zeros((), dtype=t.array.dtype))


class PutFlat(Function[Tensor]):
    """A copy with ``values`` written (``accumulate``: added) at the positions an index names.

    The Function of every write at positions: a copy of ``x`` with ``values`` (broadcast to
    ``pos``'s shape) written at the flat positions ``pos`` (repeated positions: the last write
    wins), or added there with ``accumulate`` (repeated positions add up).  ``x``'s gradient is
    the output's (zero where written over); ``values`` gets the output's gradient read at
    ``pos``."""

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


def holds_batched(items: tuple[Any, ...]) -> bool:
    """Whether an index (its items) holds a tensor batched by vmap."""
    return any(isinstance(item, BatchedTensor) for item in items)


_SLOT = object()  # where a tensor stood in an index (SamplePositions gets the tensors apart)


def sample_positions(shape: tuple[int, ...], items: tuple[Any, ...]) -> Tensor:
    """The flat positions the index ``items`` selects in a tensor of ``shape`` (the index
    holds tensors batched by vmap: each sample's own positions)."""
    tensors = [item for item in items if isinstance(item, Tensor)]
    template = tuple(_SLOT if isinstance(item, Tensor) else item for item in items)
    out: Tensor = SamplePositions.apply(shape, template, *tensors)
    return out


class SamplePositions(Function[Tensor]):
    """The flat positions ``x[index]`` reads in a tensor of ``shape``, for any index holding
    tensors (``template``: the index with each tensor's place marked), after torch's checks of
    the index. Under vmap, each sample's positions (the index of each sample: its own
    tensors' values); a batched boolean mask is refused, as in torch (each sample would
    select its own number of elements). Not differentiable."""

    node_name = "SamplePositionsBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, shape: tuple[int, ...], template: tuple[Any, ...], *tensors: Tensor) -> Tensor:
        given = iter(tensors)
        index = tuple(next(given) if item is _SLOT else item for item in template)
        result = as_tensor(np.ascontiguousarray(numpy_index(index, shape).take(_positions(shape))))
        ctx.mark_non_differentiable(result)
        return result

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[None, ...]:
        return (None,) * len(ctx.needs_input_grad)

    @staticmethod
    def vmap(info: Any, in_dims: tuple[Any, ...], shape: Any, template: Any, *tensors: Tensor) -> tuple[Tensor, int]:
        dims = in_dims[2:]
        if any(d == 0 and t.dtype in (np.bool_, np.uint8) for t, d in zip(tensors, dims)):
            raise RuntimeError(
                "vmap: We do not support batching operators that can support dynamic shape. Attempting to batch "
                "over indexing with a boolean mask."
            )
        samples = [
            SamplePositions.apply(shape, template, *(t[b] if d == 0 else t for t, d in zip(tensors, dims)))
            for b in range(info.batch_size)
        ]
        return stack_samples(samples), 0


def index_put_args(
    name: str, input: Tensor, indices: Any, values: Tensor, accumulate: bool = False
) -> tuple[Tensor, Tensor, Any, bool]:
    """``index_put``'s arguments: ``values`` written (``accumulate``: added) at ``input[indices]``,
    the flat positions those name.

    >>> import ctxgrad
    >>> i = ctxgrad.tensor([0, 0])
    >>> ctxgrad.zeros(2).index_put((i,), ctxgrad.tensor([1.0, 2.0]), accumulate=True).tolist()
    [3.0, 0.0]
    """
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
    elif holds_batched(tuple(indices)):
        pos = sample_positions(data.shape, tuple(indices))
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
    return input, values, pos, bool(accumulate)


# --------------------------------------------------------------------------- frontends


def select(input: Tensor, dim: int = UNSET, index: int = UNSET) -> Tensor:
    """The slice at ``index`` of dimension ``dim`` (that dimension removed): a view,
    ``x.select(1, i)`` is ``x[:, i]``."""
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


def nonzero_static_args(name: str, input: Tensor, *, size: int, fill_value: int = -1) -> tuple[Tensor, int, int]:
    """``nonzero_static``'s arguments: the number of rows ``size``, a non-negative integer."""
    if isinstance(size, bool) or not isinstance(size, (int, np.integer)) or size < 0:
        raise RuntimeError("nonzero_static: 'size' must be an non-negative integer")
    return input, int(size), int(fill_value)


class NonzeroStatic(Function[Tensor]):
    """:func:`nonzero` of ``size`` rows (the first found, then rows of ``fill_value``).

    The shape does not depend on the values: the int64 indices of the first ``size`` nonzero elements of ``x`` (rows of
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


ROWS: list[Op] = [
    Op("__getitem__", getitem, function=False),
    Op("select", select, numpy_dims=True),
    Op("take", Take, params="input: Tensor, index: Tensor", out=True),
    Op("index_put", PutFlat, args=index_put_args, inplace=True, replayed=True),
    Op("nonzero", nonzero, out=True),
    Op("nonzero_static", NonzeroStatic, args=nonzero_static_args, out=True),
    Op("argwhere", argwhere),
    Op("unravel_index", unravel_index, method=False),
]

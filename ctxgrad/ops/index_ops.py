"""The ``index_*`` ops and the masked ops: ``index_select``, ``index_add``, ``index_copy``,
``index_fill``, ``index_reduce`` (slices along one dimension, named by a 1-D index); ``put``
(elements of the input read as 1-D); ``masked_fill``, ``masked_select``, ``masked_scatter`` (a
bool mask); the embeddings ``select_scatter``, ``slice_scatter``, ``diagonal_scatter``; and
``fill_diagonal_``.

The writes turn their positions into flat (row-major) ones and run
:class:`~ctxgrad.ops.indexing.PutFlat` (or, for ``index_reduce``, ``scatter_reduce``'s
Function) under torch's node names.
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ctxgrad._dtypes import fill_value_as, short_name
from ctxgrad._replayed import replayed_whole
from ctxgrad._tensor import Tensor, _wrap_dim, as_tensor
from ctxgrad.autograd.batching import (
    BatchedTensor,
    batch_elementwise,
    dims_rule,
    elementwise_rule,
    into_zeros_rule,
    leading_rule,
    loop_over_samples,
)
from ctxgrad.autograd.function import Function
from ctxgrad.autograd.grad_mode import is_grad_enabled
from ctxgrad.autograd.inplace import write_in_place
from ctxgrad.ops._row import Op
from ctxgrad.ops._util import UNSET, broadcast_error, missing
from ctxgrad.ops.gather_scatter import ScatterReduce, _as_1d, _where
from ctxgrad.ops.indexing import Index, IndexPutIntoZeros, NumpyIndex, PutFlat, Take, _positions

# --------------------------------------------------------------------------- positions along a dimension


class Put(PutFlat):
    """A copy with ``source`` written (``accumulate``: added) at the positions ``index`` names in
    ``input`` read as 1-D."""

    node_name = "PutBackward0"


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


def put_args(
    name: str, input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False
) -> tuple[Tensor, Tensor, Any, bool]:
    """``put``'s arguments: ``source``'s elements written (``accumulate``: added) at the positions
    ``index`` names in ``input`` read as 1-D.

    >>> import ctxgrad
    >>> ctxgrad.zeros(2, 2).put(ctxgrad.tensor([0, -1]), ctxgrad.tensor([5.0, 6.0])).tolist()
    [[5.0, 0.0], [0.0, 6.0]]
    """
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
        return input, source.reshape(-1), SlicePositions.apply(index, "put_", (n,), 0, IndexError), bool(accumulate)
    if idx.size and (idx.min() < -n or idx.max() >= n):
        flat = idx.reshape(-1)
        bad = flat[(flat < -n) | (flat >= n)][0]
        raise IndexError(f"out of range: tried to access index {int(bad)} on a tensor of {n} elements.")
    pos = np.where(idx < 0, idx + n, idx).reshape(-1)
    return input, source.reshape(-1), pos, bool(accumulate)


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
    """The elements of ``input`` where ``mask`` holds (both broadcast), as a 1-D tensor."""

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


class IndexAdd(PutFlat):
    """A copy with ``alpha * source``'s slices added along ``dim`` at ``index`` (repeats add up)."""

    node_name = "IndexAddBackward0"


class IndexCopy(PutFlat):
    """A copy with ``source``'s slices written along ``dim`` at the positions ``index`` names."""

    node_name = "IndexCopyBackward0"


class IndexFill(PutFlat):
    node_name = "IndexFillBackward1"


class IndexFillNumber(PutFlat):
    node_name = "IndexFillBackward0"


class MaskedScatter(PutFlat):
    node_name = "MaskedScatterBackward0"


class IndexReduce(ScatterReduce):
    """A copy where each slice ``index`` names along ``dim`` holds the ``reduce`` of the slices sent there."""

    node_name = "IndexReduceBackward0"


class SelectScatter(PutFlat):
    """A copy of ``input`` with ``src`` written at ``input.select(dim, index)``."""

    node_name = "SelectScatterBackward0"


class SliceScatter(PutFlat):
    """A copy of ``input`` with ``src`` written at ``input[start:end:step]`` along ``dim``."""

    node_name = "SliceScatterBackward0"


class DiagonalScatter(PutFlat):
    """A copy of ``input`` with ``src`` written on its ``offset``-th diagonal of ``dim1`` and ``dim2``."""

    node_name = "DiagonalScatterBackward0"


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


def index_add_args(
    name: str,
    input: Tensor,
    dim: int = UNSET,
    index: Tensor = UNSET,
    source: Tensor = UNSET,
    *,
    alpha: Any = 1,
) -> tuple[Tensor, Tensor, Any, bool]:
    """``index_add``'s arguments: ``alpha * source``'s slices, added (repeated positions add up)
    at the flat positions of the slices ``index`` names along ``dim``.

    >>> import ctxgrad
    >>> ctxgrad.zeros(3).index_add(0, ctxgrad.tensor([0, 0, 2]), ctxgrad.tensor([1.0, 2.0, 3.0])).tolist()
    [3.0, 0.0, 3.0]
    """
    if any(a is UNSET for a in (dim, index, source)):
        raise missing(name, dim=dim, index=index, source=source)
    d = _wrap_dim(dim, max(input.array.ndim, 1))
    idx = _index_vector("index_add_", index)
    src = _source_for("index_add_", input, d, idx, source)
    pos = _slice_positions("index_add_", input.array.shape, d, index, RuntimeError)
    if alpha != 1:
        src = src * alpha
    return input, src.reshape(pos.shape) if src.array.shape != pos.shape else src, pos, True


def index_copy_args(
    name: str, input: Tensor, dim: int = UNSET, index: Tensor = UNSET, source: Tensor = UNSET
) -> tuple[Tensor, Tensor, Any, bool]:
    """``index_copy``'s arguments: ``source``'s slices, written at the flat positions of the
    slices ``index`` names along ``dim``."""
    if any(a is UNSET for a in (dim, index, source)):
        raise missing(name, dim=dim, index=index, source=source)
    d = _wrap_dim(dim, max(input.array.ndim, 1))
    idx = _index_vector("index_copy_", index)
    src = _source_for("index_copy_", input, d, idx, source)
    pos = _slice_positions("index_copy_", input.array.shape, d, index, IndexError)
    return input, src.reshape(pos.shape) if src.array.shape != pos.shape else src, pos, False


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
def index_fill(input: Tensor, dim: int = UNSET, index: Tensor = UNSET, value: Any = UNSET) -> Tensor:
    """A copy with ``value`` (a number or a 0-d tensor) in the slices ``index`` names along ``dim``."""
    if any(a is UNSET for a in (dim, index, value)):
        raise missing("index_fill", dim=dim, index=index, value=value)
    fn, v, pos = _index_fill_args(input, dim, index, value)
    out: Tensor = fn.apply(input, v, pos, False)
    return out


@replayed_whole
def index_fill_(input: Tensor, dim: int = UNSET, index: Tensor = UNSET, value: Any = UNSET) -> Tensor:
    """In place: ``value`` in the slices ``index`` names along ``dim``."""
    if any(a is UNSET for a in (dim, index, value)):
        raise missing("index_fill_", dim=dim, index=index, value=value)
    fn, v, pos = _index_fill_args(input, dim, index, value)
    return write_in_place(fn, input, v, pos, False)


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


def index_reduce_args(
    name: str,
    input: Tensor,
    dim: int = UNSET,
    index: Tensor = UNSET,
    source: Tensor = UNSET,
    reduce: str = UNSET,
    *,
    include_self: bool = True,
) -> tuple[Tensor, Tensor, Any, str, bool]:
    """``index_reduce``'s arguments: a copy where each slice ``index`` names along ``dim``
    holds the ``reduce`` (``"prod"``, ``"mean"``, ``"amax"``, ``"amin"``) of the ``source``
    slices sent there (and of its own, with ``include_self``); the gradient is
    ``scatter_reduce``'s.

    >>> import ctxgrad
    >>> ctxgrad.ones(2).index_reduce(0, ctxgrad.tensor([0, 0]), ctxgrad.tensor([2.0, 3.0]), "prod").tolist()
    [6.0, 1.0]
    """
    if any(a is UNSET for a in (dim, index, source, reduce)):
        raise missing(name, dim=dim, index=index, source=source, reduce=reduce)
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    if input.array.dtype.kind == "c":
        raise NotImplementedError(f"\"index_func_\" not implemented for '{short_name(input.array.dtype)}'")
    d = _wrap_dim(dim, max(input.array.ndim, 1))
    idx = _index_vector("index_reduce_", index)
    src = _source_for("index_reduce_", input, d, idx, source)
    pos = _slice_positions("index_reduce_", input.array.shape, d, index, IndexError)
    return input, (src.reshape(pos.shape) if src.array.shape != pos.shape else src), pos, reduce, bool(include_self)


# --------------------------------------------------------------------------- frontends


def index_select_args(name: str, input: Tensor, dim: int = UNSET, index: Tensor = UNSET) -> tuple[Tensor, int, Tensor]:
    """``index_select``'s arguments: ``dim`` and ``index`` required (``dim`` may come as ``axis=``)."""
    if dim is UNSET or index is UNSET:
        raise missing(name, dim=dim, index=index)
    return input, dim, index


def masked_fill(input: Tensor, mask: Tensor, value: Any) -> Tensor:
    """A copy with ``value`` (a number or 0-d tensor) where the bool ``mask`` (broadcast) holds."""
    if isinstance(value, Tensor):
        return MaskedFillTensor.apply(input, mask, value)
    return MaskedFill.apply(input, mask, value)


def masked_fill_(input: Tensor, mask: Tensor, value: Any) -> Tensor:
    """In place: ``value`` (a number or 0-d tensor) where the bool ``mask`` (broadcast) holds."""
    return write_in_place(MaskedFillTensor if isinstance(value, Tensor) else MaskedFill, input, mask, value)


def embedded_args(
    name: str, input: Tensor, src: Tensor, where: np.ndarray[Any, Any]
) -> tuple[Tensor, Tensor, np.ndarray[Any, Any], bool]:
    """The arguments of a ``*_scatter`` op's Function (the op ``name``): ``input`` with ``src``
    written at the positions ``where`` (a selection of ``input``'s flat positions of exactly
    ``src``'s shape)."""
    if not isinstance(src, Tensor):
        raise TypeError(f"argument 'src' (position 2) must be Tensor, not {type(src).__name__}")
    if src.array.shape != where.shape:
        raise RuntimeError(
            "expected src to have a size equal to the slice of self. src size = "
            f"{list(src.array.shape)}, slice size = {list(where.shape)}"
        )
    values = src if src.array.dtype == input.array.dtype else src.to(input.array.dtype)
    if (
        name in ("select_scatter", "slice_scatter")
        and input.array.dtype.kind == "c"
        and (input.requires_grad or values.requires_grad)
        and is_grad_enabled()
    ):
        raise RuntimeError(f"{name} does not support automatic differentiation for outputs with complex dtype.")
    return input, values, np.ascontiguousarray(where), False


def embedded(fn: Any, input: Tensor, src: Tensor, where: np.ndarray[Any, Any]) -> Tensor:
    """``fn`` (a ``*_scatter`` op's Function) of :func:`embedded_args`: ``as_strided_scatter``."""
    out: Tensor = fn.apply(*embedded_args(fn.__name__, input, src, where))
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


def select_scatter_args(
    name: str, input: Tensor, src: Tensor, dim: int, index: int
) -> tuple[Tensor, Tensor, np.ndarray[Any, Any], bool]:
    """``select_scatter``'s arguments: ``src`` written at ``input.select(dim, index)``."""
    data = input.array
    d = _wrap_dim(dim, data.ndim)
    size = data.shape[d]
    if not -size <= index < size:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(data.shape)} at dimension {d}")
    return embedded_args(name, input, src, np.take(_positions(data.shape), index % size, axis=d))


def slice_scatter_args(
    name: str,
    input: Tensor,
    src: Tensor,
    dim: int = 0,
    start: int | None = None,
    end: int | None = None,
    step: int = 1,
) -> tuple[Tensor, Tensor, np.ndarray[Any, Any], bool]:
    """``slice_scatter``'s arguments: ``src`` written at ``input[start:end:step]`` along ``dim``."""
    data = input.array
    d = _wrap_dim(dim, data.ndim)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    where = _positions(data.shape)[(slice(None),) * d + (slice(start, end, step),)]
    return embedded_args(name, input, src, where)


def diagonal_scatter_args(
    name: str, input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1
) -> tuple[Tensor, Tensor, np.ndarray[Any, Any], bool]:
    """``diagonal_scatter``'s arguments: ``src`` written on the ``offset``-th diagonal of ``dim1``
    and ``dim2``."""
    data = input.array
    d1, d2 = _wrap_dim(dim1, data.ndim), _wrap_dim(dim2, data.ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return embedded_args(name, input, src, np.diagonal(_positions(data.shape), offset, d1, d2))


class Embedding(Function[Tensor]):
    """``weight[indices]``; the gradient of each row is the sum over its occurrences (divided by
    their number with ``scale_grad_by_freq``), none for ``padding_idx``."""

    @classmethod
    def vmap(cls, info: Any, in_dims: tuple[Any, ...], indices: Tensor, weight: Tensor, *rest: Any) -> tuple[Any, Any]:
        if in_dims[1] is None:  # a batch of index tensors is one index tensor with a dimension more
            return cls.apply(indices, weight, *rest), 0
        return loop_over_samples(cls, info, in_dims, indices, weight, *rest)

    node_name = "EmbeddingBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, indices: Tensor, weight: Tensor, padding_idx: int, scale_grad_by_freq: bool) -> Tensor:
        idx = indices.array
        if idx.dtype.kind not in "iu":
            raise RuntimeError(
                "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; "
                f"but got {indices.dtype} instead (while checking arguments for embedding)"
            )
        num = weight.array.shape[0]
        if idx.size and (idx.min() < 0 or idx.max() >= num):
            raise IndexError("index out of range in self")
        ctx.save_for_backward(indices)
        ctx.num_weights = num
        ctx.padding_idx = padding_idx
        ctx.scale_grad_by_freq = scale_grad_by_freq
        return as_tensor(weight.array[idx])

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[None, Tensor, None, None]:
        (indices,) = ctx.saved_tensors
        idx = indices.reshape(-1)
        dim = grad.shape[-1]
        rows = grad.reshape(-1, dim)
        if ctx.padding_idx >= 0:
            rows = rows.masked_fill((idx == ctx.padding_idx).unsqueeze(1), 0.0)
        if ctx.scale_grad_by_freq:
            flat = idx.array
            counts = np.bincount(flat, minlength=ctx.num_weights)
            rows = rows * as_tensor((1.0 / counts[flat]).astype(grad.array.dtype)[:, None])
        index = idx.unsqueeze(1).expand(-1, dim)
        return None, grad.new_zeros((ctx.num_weights, dim)).scatter_add(0, index, rows), None, None

    @staticmethod
    def jvp(ctx: Any, _: None, tw: Tensor, *__: None) -> Tensor:
        (idx,) = ctx.saved_tensors
        return tw.index_select(0, idx.reshape(-1)).reshape(*idx.shape, tw.shape[-1])


def embedding(
    weight: Tensor, indices: Tensor, padding_idx: int = -1, scale_grad_by_freq: bool = False, sparse: bool = False
) -> Tensor:
    """``weight[indices]`` with torch's gradient rules, as ``torch.embedding`` (weight first;
    ``padding_idx=-1`` is none): the op under ``nn.functional.embedding``."""
    if sparse:
        raise NotImplementedError("ctxgrad.embedding: sparse=True is not supported (gradients are dense)")
    refuse_complex_gradient(weight)
    return Embedding.apply(indices, weight, int(padding_idx), bool(scale_grad_by_freq))


def refuse_complex_gradient(weight: Tensor) -> None:
    """torch's refusal of an embedding that would need a complex gradient."""
    if weight.is_complex() and weight.requires_grad and is_grad_enabled():
        raise RuntimeError("embedding does not support automatic differentiation for outputs with complex dtype.")


ROWS: list[Op] = [
    Op("embedding", embedding, method=False),
    Op("index_select", IndexSelect, args=index_select_args, numpy_dims=True, out=True),
    Op("put", Put, args=put_args, inplace=True, replayed=True, out=True),
    Op("index_add", IndexAdd, args=index_add_args, inplace=True, numpy_dims=True, replayed=True, out=True),
    Op("index_copy", IndexCopy, args=index_copy_args, inplace=True, numpy_dims=True, replayed=True, out=True),
    Op("index_fill", index_fill, inplace=index_fill_, numpy_dims=True),
    Op(
        "index_reduce",
        IndexReduce,
        args=index_reduce_args,
        inplace=True,
        numpy_dims=True,
        replayed=True,
        out=True,
    ),
    Op("masked_fill", masked_fill, inplace=masked_fill_),
    Op("masked_select", MaskedSelect, params="input: Tensor, mask: Tensor", out=True),
    Op("masked_scatter", masked_scatter, inplace=masked_scatter_),
    Op("select_scatter", SelectScatter, args=select_scatter_args),
    Op("slice_scatter", SliceScatter, args=slice_scatter_args, out=True),
    Op("diagonal_scatter", DiagonalScatter, args=diagonal_scatter_args),
    Op("fill_diagonal_", fill_diagonal_, function=False),
]

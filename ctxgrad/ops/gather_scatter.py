"""Gather and scatter: ``gather``, ``take_along_dim``, ``scatter`` (``scatter_``),
``scatter_add`` and ``scatter_reduce``: values read from, or written (added, reduced) at, the
positions ``(i_0, ..., index[i], ..., i_n)`` that an index tensor of the input's rank names
along one dimension.

``gather``'s gradient is a ``scatter_add`` and the scatters' are gathers;
``scatter_reduce`` writes at flat positions (:class:`~ctxgrad.ops.indexing.PutFlat`'s way)
and differentiates every reduction as torch does.
"""

from __future__ import annotations

import warnings
from typing import Any, ClassVar

import numpy as np

from ctxgrad._dtypes import short_name
from ctxgrad._tensor import Tensor, _wrap_dim, as_tensor
from ctxgrad.autograd.batching import (
    BatchedTensor,
    VmapInfo,
    expand_unbatched,
    flat_positions_rule,
    leading_rule,
    shift_dim,
)
from ctxgrad.autograd.function import Function
from ctxgrad.autograd.inplace import write_in_place
from ctxgrad.ops._row import Op
from ctxgrad.ops._util import UNSET, broadcast_error, missing
from ctxgrad.ops.indexing import IndexIntoZeros, PutFlat, Take, _positions, _scalar_name, _zero_like

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
    """``out[i][j] = input[i][index[i][j]]`` (for ``dim=1``); the gradient is scatter-added back."""

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
    """A copy with ``src`` added at the positions ``index`` names along ``dim`` (repeats add up).

    ``src[i][j]`` is added at ``[i][index[i][j]]`` (for ``dim=1``)."""

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


# --------------------------------------------------------------------------- frontends


def gather_args(
    name: str, input: Tensor, dim: int = UNSET, index: Tensor = UNSET, *, sparse_grad: bool = False
) -> tuple[Tensor, int, Tensor]:
    """``gather``'s arguments: ``dim`` and ``index`` required (``dim`` may come as ``axis=``)."""
    if dim is UNSET or index is UNSET:
        raise missing(name, dim=dim, index=index)
    return input, dim, index


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
) -> Tensor:
    """A copy of ``input`` with ``src`` (a tensor) or ``value`` (a number) written
    (``reduce="add"`` or ``"multiply"``: combined) at the positions ``index`` names along ``dim``."""
    if dim is UNSET or index is UNSET:
        raise missing("scatter", dim=dim, index=index)
    return _scatter(input, dim, index, src, value, reduce)


def scatter_add_args(
    name: str, input: Tensor, dim: int = UNSET, index: Tensor = UNSET, src: Tensor = UNSET
) -> tuple[Tensor, int, Tensor, Tensor]:
    """``scatter_add``'s arguments: ``dim``, ``index`` and a tensor ``src`` required."""
    if dim is UNSET or index is UNSET or src is UNSET:
        raise missing(name, dim=dim, index=index, src=src)
    if not isinstance(src, Tensor):
        raise TypeError(f"{name}(): argument 'src' (position 3) must be Tensor, not {type(src).__name__}")
    return input, dim, index, src


def take_along_dim(input: Tensor, indices: Tensor, dim: int | None = None) -> Tensor:
    """Values at ``indices`` along ``dim`` (broadcast with ``input`` in the other dimensions);
    with ``dim=None``, ``input`` and ``indices`` are read as 1-D."""
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
    """A copy where each position ``index`` names holds the ``reduce`` of the values sent there.

    A copy of ``x`` where each position that ``pos`` names holds the reduction (``sum``,
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


def scatter_reduce_args(
    name: str,
    input: Tensor,
    dim: int = UNSET,
    index: Tensor = UNSET,
    src: Tensor = UNSET,
    reduce: str = UNSET,
    *,
    include_self: bool = True,
) -> tuple[Tensor, Tensor, Any, str, bool]:
    """``scatter_reduce``'s arguments: a copy where each position ``index`` names along ``dim``
    holds the ``reduce`` (``"sum"``, ``"prod"``, ``"mean"``, ``"amax"``, ``"amin"``) of the
    ``src`` values sent there (and of its own value, with ``include_self``).

    >>> import ctxgrad
    >>> x = ctxgrad.tensor([1.0, 5.0])
    >>> x.scatter_reduce(0, ctxgrad.tensor([0, 0, 1]), ctxgrad.tensor([3.0, 2.0, 4.0]), "amax").tolist()
    [3.0, 5.0]
    """
    if any(a is UNSET for a in (dim, index, src, reduce)):
        raise missing(name, dim=dim, index=index, src=src, reduce=reduce)
    name = "scatter_reduce"  # (torch's messages below name the function in both forms)
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
    return input, part, pos, reduce, bool(include_self)


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


ROWS: list[Op] = [
    Op("gather", Gather, args=gather_args, numpy_dims=True, out=True),
    Op("take_along_dim", take_along_dim, numpy_dims=True, out=True),
    Op("scatter", scatter, inplace=scatter_, numpy_dims=True, out=True),
    Op("scatter_add", ScatterAdd, args=scatter_add_args, inplace=True, numpy_dims=True, out=True),
    Op(
        "scatter_reduce",
        ScatterReduce,
        args=scatter_reduce_args,
        inplace=True,
        numpy_dims=True,
        replayed=True,
        out=True,
    ),
]

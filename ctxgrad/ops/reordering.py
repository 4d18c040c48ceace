"""Reordering copies, triangles and diagonals: ``flip`` (``fliplr``, ``flipud``), ``roll``,
``rot90``, ``repeat``, ``tile`` and ``repeat_interleave``; ``tril`` and ``triu`` (and their
indices), ``diagonal`` (a view that can be written through, as in torch), ``diag``,
``diag_embed`` and ``diagflat``; ``combinations``."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import numpy as np

from ctxgrad._dtypes import short_name, to_dtype
from ctxgrad._replayed import replayed_whole
from ctxgrad._tensor import Tensor, _wrap_dim, as_tensor
from ctxgrad.autograd.batching import (
    BatchedTensor,
    VmapInfo,
    dims_rule,
    into_zeros_rule,
    leading_rule,
    loop_over_samples,
    only_first_batched,
    shift_dim,
    shift_dims,
    unary_rule,
)
from ctxgrad.autograd.function import Function
from ctxgrad.ops._row import Op
from ctxgrad.ops._util import sizes_arg
from ctxgrad.ops.index_ops import IndexSelect
from ctxgrad.ops.joining import Stack
from ctxgrad.ops.shape import Reshape, Transpose, pad_sample, swapped_dims, wrap_unique_dims


def _writable_diagonal(data: np.ndarray[Any, Any], offset: int, dim1: int, dim2: int) -> np.ndarray[Any, Any]:
    """``np.diagonal`` as a view that can be written through (NumPy's is read-only)."""
    d = np.diagonal(data, offset, dim1, dim2)
    if data.flags.writeable:
        try:
            d.flags.writeable = True
        except ValueError:  # a base further down is read-only (saved for backward): so is d
            pass
    return d


# --------------------------------------------------------------------------- reordering copies
class Flip(Function[Tensor]):
    """Reverse the order of the elements along ``dims`` (a copy, as in torch)."""

    vmap = dims_rule(1)

    node_name = "FlipBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"dims": "dims"}
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, dims: tuple[int, ...]) -> Tensor:
        ctx.dims = dims
        return as_tensor(np.flip(x.array, dims).copy())

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return Flip.apply(grad, ctx.dims), None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: None) -> Tensor:
        return Flip.apply(tx, ctx.dims)


class Roll(Function[Tensor]):
    """Shift the elements cyclically along ``dims`` (the flattened tensor when ``dims`` is None).

    The gradient is rolled back."""

    @classmethod
    def vmap(
        cls, info: VmapInfo, in_dims: tuple[Any, ...], x: Tensor, shifts: tuple[int, ...], dims: tuple[int, ...]
    ) -> tuple[Any, Any]:
        """The dimensions moved past the batch's; without ``dims``, each flattened sample rolled."""
        if not only_first_batched(in_dims):
            return loop_over_samples(cls, info, in_dims, x, shifts, dims)
        if not dims:
            flat = x.reshape(x.shape[0], -1)
            return cls.apply(flat, shifts, (1,)).reshape(x.shape), 0
        return cls.apply(x, shifts, shift_dims(dims, x.ndim - 1)), 0

    node_name = "RollBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"shifts": lambda ctx: ctx.args[0], "dims": lambda ctx: ctx.args[1]}
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, shifts: tuple[int, ...], dims: tuple[int, ...]) -> Tensor:
        ctx.args = (shifts, dims)
        data = x.array
        if not dims:
            return as_tensor(np.roll(data, shifts[0]))
        return as_tensor(np.roll(data, shifts, axis=dims))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        shifts, dims = ctx.args
        return Roll.apply(grad, tuple(-s for s in shifts), dims), None, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, *_: None) -> Tensor:
        return Roll.apply(tx, *ctx.args)


class Repeat(Function[Tensor]):
    """Tile the tensor ``repeats[i]`` times along dimension ``i`` (extra repeats add leading dimensions).

    The gradient sums the copies."""

    @classmethod
    def vmap(cls, info: VmapInfo, in_dims: tuple[Any, ...], x: Tensor, reps: tuple[int, ...]) -> tuple[Any, Any]:
        """The batch given the sample's new leading dimensions, then repeated once along its own."""
        if not only_first_batched(in_dims):
            return loop_over_samples(cls, info, in_dims, x, reps)
        return cls.apply(pad_sample(x, len(reps)), (1, *reps)), 0

    node_name = "RepeatBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"repeats": "repeats", "self_sym_sizes": "shape"}
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, repeats: tuple[int, ...]) -> Tensor:
        data = x.array
        if len(repeats) < data.ndim:
            raise RuntimeError(
                "Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor"
            )
        padded = (1,) * (len(repeats) - data.ndim) + data.shape
        target = [s * r for s, r in zip(padded, repeats)]
        for s in target:
            if s < 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension {s}: {target}")
        ctx.shape = data.shape
        ctx.repeats = repeats
        ctx.padded = padded
        return as_tensor(np.tile(data, repeats))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        split: list[int] = []
        for r, s in zip(ctx.repeats, ctx.padded):
            split += [r, s]
        g = grad.reshape(split)
        if split:
            g = g.sum(tuple(range(0, len(split), 2)))
        return g.reshape(ctx.shape), None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: None) -> Tensor:
        return Repeat.apply(tx, ctx.repeats)


# --------------------------------------------------------------------------- triangles and diagonals
class Tril(Function[Tensor]):
    """The lower triangle of the last two dimensions (on and below diagonal ``diagonal``), zeros elsewhere.

    A mask, so its backward and jvp apply the same mask."""

    vmap = unary_rule

    node_name = "TrilBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"diagonal": "diagonal"}
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True
    keep: ClassVar[Callable[..., Any]] = staticmethod(np.tril)
    name: ClassVar[str] = "tril"

    @staticmethod
    def forward(ctx: Any, x: Tensor, diagonal: int) -> Tensor:
        cls = ctx.forward_cls
        data = x.array
        if data.ndim < 2:
            raise RuntimeError(f"{cls.name}: input tensor must have at least 2 dimensions")
        ctx.diagonal = diagonal
        return as_tensor(cls.keep(data, diagonal))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return ctx.forward_cls.apply(grad, ctx.diagonal), None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: None) -> Tensor:
        out: Tensor = ctx.forward_cls.apply(tx, ctx.diagonal)
        return out


class Triu(Tril):
    """The upper triangle of the last two dimensions (on and above diagonal ``diagonal``), zeros elsewhere."""

    node_name = "TriuBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"diagonal": "diagonal"}
    holomorphic = True  # linear, real coefficients
    keep = staticmethod(np.triu)
    name = "triu"


def check_diagonal_dims(dim1: int, dim2: int, ndim: int) -> tuple[int, int]:
    """``dim1`` and ``dim2`` wrapped for a tensor of ``ndim`` dimensions; torch's error when
    they name the same dimension."""
    d1, d2 = _wrap_dim(dim1, ndim), _wrap_dim(dim2, ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return d1, d2


class Diagonal(Function[Tensor]):
    """The ``offset``-th diagonal of dimensions ``dim1`` and ``dim2`` as the last dimension (a view).

    A view that can be written through, as in torch."""

    @classmethod
    def vmap(
        cls, info: VmapInfo, in_dims: tuple[Any, ...], x: Tensor, offset: int, d1: int, d2: int
    ) -> tuple[Any, Any]:
        """The two dimensions moved past the batch's."""
        if not only_first_batched(in_dims):
            return loop_over_samples(cls, info, in_dims, x, offset, d1, d2)
        n = x.ndim - 1
        return cls.apply(x, offset, shift_dim(d1, n), shift_dim(d2, n)), 0

    node_name = "DiagonalBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {
        "offset": lambda ctx: ctx.args[0],
        "dim1": lambda ctx: ctx.args[1],
        "dim2": lambda ctx: ctx.args[2],
        "self_sym_sizes": "shape",
    }
    holomorphic = True  # linear, real coefficients
    returns_views = True
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, offset: int, dim1: int, dim2: int) -> Tensor:
        data = x.array
        ctx.shape = data.shape
        ctx.args = (offset, dim1, dim2)
        return as_tensor(_writable_diagonal(data, offset, dim1, dim2))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None]:
        return DiagonalGrad.apply(grad, ctx.shape, *ctx.args), None, None, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, *_: None) -> Tensor:
        return Diagonal.apply(tx, *ctx.args)


class DiagCopy(Diagonal):
    """``diag`` of a matrix: the diagonal as a new tensor (a copy, as in torch)."""

    node_name = "DiagonalBackward0_copy"
    holomorphic = True  # linear, real coefficients

    @staticmethod
    def forward(ctx: Any, x: Tensor, offset: int, dim1: int, dim2: int) -> Tensor:
        data = x.array
        ctx.shape = data.shape
        ctx.args = (offset, dim1, dim2)
        return as_tensor(np.diagonal(data, offset, dim1, dim2).copy())


class DiagonalGrad(Function[Tensor]):
    """The backward of :class:`Diagonal`: zeros of ``shape`` with ``grad`` written on the
    diagonal.  Linear, so its own backward is ``diagonal`` again."""

    vmap = into_zeros_rule(1, (3, 4))

    node_name = "DiagonalBackwardBackward0"
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, grad: Tensor, shape: tuple[int, ...], offset: int, dim1: int, dim2: int) -> Tensor:
        g = grad.array
        ctx.args = (shape, offset, dim1, dim2)
        out = np.zeros(shape, dtype=g.dtype)
        _writable_diagonal(out, offset, dim1, dim2)[...] = g
        return as_tensor(out)

    @staticmethod
    def backward(ctx: Any, gg: Tensor) -> tuple[Tensor, None, None, None, None]:
        _, offset, dim1, dim2 = ctx.args
        return Diagonal.apply(gg, offset, dim1, dim2), None, None, None, None

    @staticmethod
    def jvp(ctx: Any, tg: Tensor, *_: None) -> Tensor:
        return DiagonalGrad.apply(tg, *ctx.args)


class DiagEmbed(Function[Tensor]):
    """Matrices (in dimensions ``dim1``, ``dim2``) with the last dimension on diagonal ``offset``.

    Zeros elsewhere."""

    @classmethod
    def vmap(
        cls, info: VmapInfo, in_dims: tuple[Any, ...], x: Tensor, offset: int, d1: int, d2: int
    ) -> tuple[Any, Any]:
        """The two dimensions (of the result, one more than the sample has) moved past the batch's."""
        if not only_first_batched(in_dims):
            return loop_over_samples(cls, info, in_dims, x, offset, d1, d2)
        n = x.ndim
        return cls.apply(x, offset, shift_dim(d1, n), shift_dim(d2, n)), 0

    node_name = "DiagEmbedBackward0"
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, offset: int, dim1: int, dim2: int) -> Tensor:
        data = x.array
        n = data.shape[-1] + abs(offset)
        shape = list(data.shape[:-1])
        for d in sorted((dim1, dim2)):
            shape.insert(d, n)
        ctx.args = (offset, dim1, dim2)
        out = np.zeros(shape, dtype=data.dtype)
        _writable_diagonal(out, offset, dim1, dim2)[...] = data
        return as_tensor(out)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None]:
        return Diagonal.apply(grad, *ctx.args), None, None, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, *_: None) -> Tensor:
        return DiagEmbed.apply(tx, *ctx.args)


# --------------------------------------------------------------------------- frontends
# Each op's row (ROWS, at the end) makes its frontend from its Function and an argument
# handler (``flip_args``) that returns the Function's arguments; a frontend written here
# chooses between Functions or is made of several ops.
def _flip_dims(x: Tensor, dims: tuple[int, ...]) -> tuple[int, ...]:
    """``flip``'s dimensions wrapped (of a 0-d tensor: none, dims 0 and -1 allowed as in torch)."""
    n = x.array.ndim
    dims = wrap_unique_dims(dims, n)
    return dims if n else ()


def flip_args(name: str, input: Tensor, dims: Any) -> tuple[Tensor, tuple[int, ...]]:
    """The arguments of :class:`Flip` for ``flip(input, dims)``."""
    if not isinstance(dims, (tuple, list)):
        raise TypeError(f"flip(): argument 'dims' (position 2) must be tuple of ints, not {type(dims).__name__}")
    return input, _flip_dims(input, sizes_arg((dims,), None, "flip", "dims"))


def flip_method(input: Tensor, *args: Any, dims: Any = None) -> Tensor:
    """The elements in reverse order along ``dims`` (a copy)."""
    return Flip.apply(input, _flip_dims(input, sizes_arg(args, dims, "flip", "dims")))


def fliplr_args(name: str, input: Tensor) -> tuple[Tensor, tuple[int, ...]]:
    """The arguments of :class:`Flip` for ``fliplr``: dimension 1."""
    if input.array.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return input, (1,)


def flipud_args(name: str, input: Tensor) -> tuple[Tensor, tuple[int, ...]]:
    """The arguments of :class:`Flip` for ``flipud``: dimension 0."""
    if input.array.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return input, (0,)


def roll_args(
    name: str, input: Tensor, shifts: int | Sequence[int], dims: int | Sequence[int] | None = None
) -> tuple[Tensor, tuple[int, ...], tuple[int, ...]]:
    """The arguments of :class:`Roll`: the shifts and dimensions as tuples (none: the flattened tensor)."""
    sh = (int(shifts),) if isinstance(shifts, (int, np.integer)) else tuple(int(s) for s in shifts)
    if dims is None:
        ds: tuple[int, ...] = ()
    else:
        ds = (int(dims),) if isinstance(dims, (int, np.integer)) else tuple(int(d) for d in dims)
    if not sh:
        raise RuntimeError("`shifts` required")
    if len(sh) != len(ds) and not (len(sh) == 1 and not ds):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(sh)}, dims:{len(ds)}")
    n = input.array.ndim
    if ds and n == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    return input, sh, tuple(_wrap_dim(d, n) for d in ds)


def repeat_args(name: str, input: Tensor, *args: Any, repeats: Any = None) -> tuple[Tensor, tuple[int, ...]]:
    """The arguments of :class:`Repeat` for ``x.repeat(*repeats)``."""
    return input, sizes_arg(args, repeats, name, "repeats")


def _tiles(x: Tensor, reps: tuple[int, ...]) -> tuple[int, ...]:
    """``tile``'s repeats, the missing leading ones 1."""
    return (1,) * (x.array.ndim - len(reps)) + reps


def tile_args(name: str, input: Tensor, dims: Any) -> tuple[Tensor, tuple[int, ...]]:
    """The arguments of :class:`Repeat` for ``tile(input, dims)``."""
    return input, _tiles(input, sizes_arg((dims,), None, name, "dims"))


def tile_method(input: Tensor, *args: Any, dims: Any = None) -> Tensor:
    """``repeat``, with missing leading repeats taken as 1."""
    return Repeat.apply(input, _tiles(input, sizes_arg(args, dims, "tile", "dims")))


def triangle_args(name: str, input: Tensor, diagonal: int = 0) -> tuple[Tensor, int]:
    """The arguments of :class:`Tril` and :class:`Triu` (``tril``, ``triu_``)."""
    return input, int(diagonal)


def diagonal_args(
    name: str, input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1
) -> tuple[Tensor, int, int, int]:
    """The arguments of :class:`Diagonal`: the dimensions wrapped."""
    d1, d2 = check_diagonal_dims(dim1, dim2, input.array.ndim)
    return input, int(offset), d1, d2


def diag(input: Tensor, diagonal: int = 0) -> Tensor:
    """A vector as a square matrix with it on diagonal ``diagonal``; a matrix's diagonal as a vector (a copy)."""
    n = input.array.ndim
    if n == 1:
        return DiagEmbed.apply(input, int(diagonal), 0, 1)
    if n == 2:
        return DiagCopy.apply(input, int(diagonal), 0, 1)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {n}D")


def diag_embed_args(
    name: str, input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1
) -> tuple[Tensor, int, int, int]:
    """The arguments of :class:`DiagEmbed`: the dimensions (of the result) wrapped."""
    d1, d2 = check_diagonal_dims(dim1, dim2, input.array.ndim + 1)
    return input, int(offset), d1, d2


def rot90(input: Tensor, k: int = 1, dims: Sequence[int] = (0, 1)) -> Tensor:
    """Rotate by 90 degrees ``k`` times in the plane of ``dims``, from the first towards the second.

    >>> import ctxgrad
    >>> ctxgrad.tensor([[1, 2], [3, 4]]).rot90().tolist()
    [[2, 4], [1, 3]]
    """
    ds = list(dims)
    n = input.array.ndim
    if len(ds) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(ds)}")
    if n < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {n}")
    d0, d1 = _wrap_dim(ds[0], n), _wrap_dim(ds[1], n)
    if ds[0] == ds[1] or abs(ds[0] - ds[1]) == n:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {ds[0]} and dim1 = {ds[1]}")
    k = int(k) % 4
    if k == 1:
        return Transpose.apply(Flip.apply(input, (d1,)), swapped_dims(n, d0, d1))
    if k == 2:
        return Flip.apply(input, (d0, d1))
    if k == 3:
        return Transpose.apply(Flip.apply(input, (d0,)), swapped_dims(n, d0, d1))
    return input.clone()


@replayed_whole
def repeat_interleave(
    input: Tensor,
    repeats: Any = None,
    dim: int | None = None,
    *,
    output_size: int | None = None,
) -> Tensor:
    """Each element (each slice along ``dim``; of the flattened tensor when ``dim`` is None)
    repeated ``repeats`` times (a number, or one count per element).  With only a tensor of
    counts, ``repeat_interleave(counts)`` is the indices ``0, 0, 1, ...`` repeated that often.

    >>> import ctxgrad
    >>> ctxgrad.tensor([1, 2]).repeat_interleave(2).tolist()
    [1, 1, 2, 2]
    >>> ctxgrad.repeat_interleave(ctxgrad.tensor([2, 0, 1])).tolist()
    [0, 0, 2]
    """
    if repeats is None and isinstance(input, BatchedTensor):  # each sample's own counts
        _repeat_counts(input, None)  # (its dtype and rank)
        index: Tensor = RepeatIndex.apply(input, None)
        return index.to(input.dtype)
    if repeats is None:  # repeat_interleave(repeats): the indices of the repeats
        counts = _repeat_counts(input, None)
        out = np.repeat(np.arange(counts.size, dtype=input.array.dtype), counts)
        return as_tensor(out)
    x = input
    if dim is None:
        x = Reshape.apply(x, (-1,))
        d = 0
    else:
        d = _wrap_dim(dim, x.array.ndim)
        if x.array.ndim == 0:
            x = Reshape.apply(x, (1,))
    size = x.array.shape[d]
    if isinstance(repeats, BatchedTensor):  # each sample's own counts: its own positions
        _repeat_counts(repeats, size)  # (its dtype, rank and size)
        return IndexSelect.apply(x, d, RepeatIndex.apply(repeats, size))
    counts = _repeat_counts(repeats, size)
    if output_size is not None and int(output_size) != int(counts.sum()):
        raise RuntimeError("allocated size does not match required size")
    index = as_tensor(np.repeat(np.arange(size, dtype=np.int64), counts))
    return IndexSelect.apply(x, d, index)


class RepeatIndex(Function[Tensor]):
    """The positions ``0, 0, 1, ...`` each repeated as often as ``counts`` says (``size``:
    the number of positions, when ``counts`` holds one count for all), each row of the
    first ``keep`` dimensions of ``counts`` apart (a vmap batch: every sample must come to
    the same total, as torch's per-sample fallback needs).  Not differentiable."""

    node_name = "RepeatInterleaveBackward0"
    skips_without_gradient = True
    vmap = leading_rule(2)

    @staticmethod
    def forward(ctx: Any, counts: Tensor, size: int | None, keep: int = 0) -> Tensor:
        data = counts.array
        rows = data.reshape(int(np.prod(data.shape[:keep], dtype=np.int64)), -1).astype(np.int64)
        if size is not None and rows.shape[1] == 1:
            rows = np.repeat(rows, size, axis=1)
        if rows.size and rows.min() < 0:
            raise RuntimeError("repeats can not be negative")
        total = same_lengths(rows.sum(1))
        index = np.repeat(np.tile(np.arange(rows.shape[1], dtype=np.int64), rows.shape[0]), rows.reshape(-1))
        out = as_tensor(index.reshape(data.shape[:keep] + (total,)))
        ctx.mark_non_differentiable(out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[None, None, None]:
        return None, None, None


def same_lengths(lengths: np.ndarray[Any, Any]) -> int:
    """The one length of every sample's result; torch's stacking error (its vmap runs these
    ops once per sample) when they differ."""
    flat = lengths.reshape(-1)
    if flat.size and (flat != flat[0]).any():
        k = int(np.argmax(flat != flat[0]))
        raise RuntimeError(
            f"stack expects each tensor to be equal size, but got [{flat[0]}] at entry 0 and [{flat[k]}] at entry {k}"
        )
    return int(flat[0]) if flat.size else 0


def _repeat_counts(repeats: Any, size: int | None) -> np.ndarray[Any, Any]:
    """The repeat count of every element: a number for all, or a 0-d/1-D integer tensor."""
    if isinstance(repeats, Tensor):
        counts = repeats.array
        if counts.dtype.kind not in "iu":
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        if counts.ndim > 1:
            raise RuntimeError("repeats has to be Long or Int tensor")
        if size is None and counts.ndim != 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        if size is not None and counts.ndim and counts.size not in (1, size):
            raise RuntimeError(
                "repeats must have the same size as input along dim, but got "
                f"repeats.size(0) = {counts.size} and input.size(0) = {size}"
            )
        if isinstance(repeats, BatchedTensor):
            return counts  # (checked as far as its shape goes: RepeatIndex reads the counts)
        if size is None:
            if counts.size and counts.min() < 0:
                raise RuntimeError("repeats can not be negative")
            return counts
        if counts.ndim == 0 or counts.size == 1:
            counts = np.full(size, int(counts.reshape(-1)[0]), dtype=np.int64)
        elif counts.size != size:
            raise RuntimeError(
                "repeats must have the same size as input along dim, but got "
                f"repeats.size(0) = {counts.size} and input.size(0) = {size}"
            )
        if counts.size and counts.min() < 0:
            raise RuntimeError("repeats can not be negative")
        return counts
    if not isinstance(repeats, (int, np.integer)):
        raise TypeError(
            f"repeat_interleave(): argument 'repeats' (position 1) must be Tensor or int, not {type(repeats).__name__}"
        )
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    return np.full(size or 0, int(repeats), dtype=np.int64)


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """The length-``r`` combinations of a 1-D tensor's elements, as rows (itertools' order).

    >>> import ctxgrad
    >>> ctxgrad.combinations(ctxgrad.tensor([1, 2, 3])).tolist()
    [[1, 2], [1, 3], [2, 3]]
    """
    if input.array.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.array.shape)}")
    r = int(r)
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return as_tensor(np.empty((0,), dtype=input.array.dtype))
    pick = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    rows = np.array(list(pick(range(input.array.shape[0]), r)), dtype=np.int64).reshape(-1, r)
    return Stack.apply(1, *(IndexSelect.apply(input, 0, as_tensor(rows[:, k].copy())) for k in range(r)))


def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    """The flattened input on diagonal ``offset`` of a square matrix."""
    return DiagEmbed.apply(Reshape.apply(input, (-1,)), int(offset), 0, 1)


def _triangle_indices(name: str, row: int, col: int, offset: int, dtype: Any, lower: bool) -> Tensor:
    dt = np.dtype(np.int64) if dtype is None else to_dtype(dtype)
    if dt.kind not in "iu":
        raise NotImplementedError(f"\"{name}\" not implemented for '{short_name(dt)}'")
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    rows, cols = (np.tril_indices if lower else np.triu_indices)(int(row), int(offset), int(col))
    return as_tensor(np.stack([rows, cols]).astype(dt).reshape(2, -1))


def tril_indices(
    row: int, col: int, offset: int = 0, *, dtype: Any = None, device: Any = None, layout: Any = None
) -> Tensor:
    """The ``2 x N`` row and column indices of the lower triangle of a ``row x col`` matrix.

    >>> import ctxgrad
    >>> ctxgrad.tril_indices(3, 3).tolist()
    [[0, 1, 1, 2, 2, 2], [0, 0, 1, 0, 1, 2]]
    """
    return _triangle_indices("tril_indices", row, col, offset, dtype, True)


def triu_indices(
    row: int, col: int, offset: int = 0, *, dtype: Any = None, device: Any = None, layout: Any = None
) -> Tensor:
    """The ``2 x N`` row and column indices of the upper triangle of a ``row x col`` matrix."""
    return _triangle_indices("triu_indices", row, col, offset, dtype, False)


ROWS: list[Op] = [
    Op("flip", Flip, args=flip_args, method_frontend=flip_method),
    Op("fliplr", Flip, args=fliplr_args),
    Op("flipud", Flip, args=flipud_args),
    Op("roll", Roll, args=roll_args),
    Op("repeat", Repeat, args=repeat_args, function=False),
    Op("tile", Repeat, args=tile_args, method_frontend=tile_method),
    Op("tril", Tril, args=triangle_args, inplace=True, out=True),
    Op("triu", Triu, args=triangle_args, inplace=True, out=True),
    Op("diagonal", Diagonal, args=diagonal_args),
    Op("diag", diag, out=True),
    Op("diag_embed", DiagEmbed, args=diag_embed_args),
    Op("rot90", rot90),
    Op("repeat_interleave", repeat_interleave, numpy_dims=True),
    Op("combinations", combinations, method=False),
    Op("diagflat", diagflat),
    Op("tril_indices", tril_indices, method=False),
    Op("triu_indices", triu_indices, method=False),
]

"""Joining and splitting: ``cat`` and ``stack`` (``hstack``, ``vstack``, ``column_stack``,
``dstack``, ``block_diag``), the pieces of one tensor (``unbind``, ``split``, ``chunk``,
``tensor_split``, ``hsplit``, ``vsplit``, ``dsplit``), ``atleast_1d``/``2d``/``3d`` and the
grids of several tensors (``meshgrid``, ``cartesian_prod``).

The pieces are views of their input (torch's too); a join is a new tensor, its dtype promoted
from its inputs' as torch promotes them."""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from ctxgrad._dtypes import short_name
from ctxgrad._tensor import Tensor, _wrap_dim, as_tensor
from ctxgrad.autograd.batching import (
    VmapInfo,
    dims_rule,
    expand_unbatched,
    shift_dim,
)
from ctxgrad.autograd.function import Function
from ctxgrad.ops._row import Op
from ctxgrad.ops.shape import Expand, Narrow, Reshape, Unsqueeze, at_dim


def _along_rule(stacks: bool) -> Any:
    """The batching rule of ``cat`` (``stacks=False``) and ``stack``: every tensor given the
    batch, the dimension moved past it."""

    def rule(cls: Any, info: VmapInfo, in_dims: tuple[Any, ...], dim: int, *tensors: Tensor) -> tuple[Any, Any]:
        dims = in_dims[1:]
        if not stacks:  # torch's cat skips 1-d empty tensors beside tensors of other ranks
            kept = [(t, d) for t, d in zip(tensors, dims) if tuple(t.shape[1:] if d == 0 else t.shape) != (0,)]
            if kept and len(kept) < len(tensors):
                tensors, dims = tuple(t for t, _ in kept), tuple(d for _, d in kept)
        first = next((t for t, d in zip(tensors, dims) if d == 0), None)
        if first is None:
            return cls.apply(dim, *tensors), None  # only shared tensors are left
        n = first.ndim - 1 + (1 if stacks else 0)
        moved = expand_unbatched(tensors, dims, info.batch_size)
        return cls.apply(shift_dim(dim, n), *moved), 0

    return classmethod(rule)


# --------------------------------------------------------------------------- helpers
def _result_dtype(arrays: list[np.ndarray[Any, Any]]) -> np.dtype[Any]:
    """Torch's result dtype of several tensors of the same rank (``cat``, ``stack``): the
    highest category (bool < int < float < complex) wins, and within it the widest type."""
    dt: np.dtype[Any] = arrays[0].dtype
    for a in arrays[1:]:
        other: np.dtype[Any] = a.dtype
        if other != dt:
            dt = promote_dtypes(dt, other)
    return dt


def promote_dtypes(a: np.dtype[Any], b: np.dtype[Any]) -> np.dtype[Any]:
    """The dtype torch gives two dimensioned tensors of dtypes ``a`` and ``b``."""
    ca, cb = _CATEGORY[a.kind], _CATEGORY[b.kind]
    if ca == cb or (ca >= 2 and cb >= 2):  # (float64 and complex64 make complex128)
        wider: np.dtype[Any] = np.promote_types(a, b)
        return wider
    return a if ca > cb else b


_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2, "c": 3}


# --------------------------------------------------------------------------- pieces
class Unbind(Function[tuple[Tensor, ...]]):
    """The slices along ``dim``, each a view, as a tuple; one node for all of them.  Its
    backward stacks the gradients (zeros for the slices that were not used)."""

    vmap = dims_rule(1)

    node_name = "UnbindBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"dim": "dim"}
    holomorphic = True  # linear, real coefficients
    returns_views = True
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, dim: int) -> tuple[Tensor, ...]:
        data = x.array
        ctx.dim = dim
        return tuple([as_tensor(data[at_dim(dim, i)]) for i in range(data.shape[dim])])

    @staticmethod
    def backward(ctx: Any, *grads: Tensor) -> tuple[Tensor, None]:
        return Stack.apply(ctx.dim, *grads), None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: None) -> tuple[Tensor, ...]:
        return Unbind.apply(tx, ctx.dim)


class SplitWithSizes(Function[tuple[Tensor, ...]]):
    """Consecutive pieces of the given ``sizes`` along ``dim``, each a view; one node for all
    of them.  Its backward concatenates the gradients (zeros for unused pieces)."""

    vmap = dims_rule(2)

    node_name = "SplitWithSizesBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"dim": "dim", "self_sym_sizes": ("sizes", 0), "split_sizes": "sizes"}
    saved_fields_of_node: ClassVar[dict[str, dict[str, Any]]] = {
        "SplitBackward0": {"dim": "dim", "self_sym_sizes": ("sizes", 0), "split_size": lambda ctx: ctx.sizes[0]}
    }
    holomorphic = True  # linear, real coefficients
    returns_views = True
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, sizes: tuple[int, ...], dim: int) -> tuple[Tensor, ...]:
        data = x.array
        ctx.sizes = sizes
        ctx.dim = dim
        outs = []
        start = 0
        for s in sizes:
            outs.append(as_tensor(data[at_dim(dim, slice(start, start + s))]))
            start += s
        return tuple(outs)

    @staticmethod
    def backward(ctx: Any, *grads: Tensor) -> tuple[Tensor, None, None]:
        return Cat.apply(ctx.dim, *grads), None, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, *_: None) -> tuple[Tensor, ...]:
        return SplitWithSizes.apply(tx, ctx.sizes, ctx.dim)


# --------------------------------------------------------------------------- joining
def _check_cat_shapes(arrays: list[np.ndarray[Any, Any]], kept: list[int], dim: int) -> None:
    first = arrays[kept[0]]
    for i in kept[1:]:
        a = arrays[i]
        if a.ndim != first.ndim:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {first.ndim} and {a.ndim}")
        for d in range(a.ndim):
            if d != dim and a.shape[d] != first.shape[d]:
                raise RuntimeError(
                    f"Sizes of tensors must match except in dimension {dim}. Expected size {first.shape[d]} but "
                    f"got size {a.shape[d]} for tensor number {i} in the list."
                )


class Cat(Function[Tensor]):
    """Join tensors along an existing dimension ``dim``, promoting their dtypes as torch does.

    As in torch, 1-D tensors with no elements are skipped (legacy behaviour: they may be
    joined to tensors of any shape), though their dtype still takes part in the promotion.
    Each input's gradient is a narrow slice (a view) of the output's gradient."""

    vmap = _along_rule(stacks=False)

    node_name = "CatBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"dim": "dim"}
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, dim: int, *tensors: Tensor) -> Tensor:
        arrays = [t.array for t in tensors]
        for i, a in enumerate(arrays):
            if a.ndim == 0:
                raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
        kept = [i for i, a in enumerate(arrays) if a.shape != (0,)]
        dt = _result_dtype(arrays)
        if not kept:
            ctx.dim = dim
            ctx.pieces = [(0, -1)] * len(arrays)
            return as_tensor(np.empty((0,), dtype=dt))
        d = _wrap_dim(dim, arrays[kept[0]].ndim)
        _check_cat_shapes(arrays, kept, d)
        ctx.dim = d
        pieces = []
        start = 0
        for a in arrays:
            size = a.shape[d] if a.shape != (0,) else -1
            pieces.append((start, size))
            start += max(size, 0)
        ctx.pieces = pieces
        if len(kept) == 1:
            return as_tensor(arrays[kept[0]].astype(dt, copy=True))
        return as_tensor(np.concatenate([arrays[i] for i in kept], axis=d, dtype=dt, casting="unsafe"))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, ...]:
        needs = ctx.needs_input_grad
        grads: list[Tensor | None] = [None]
        for i, (start, size) in enumerate(ctx.pieces):
            if not needs[i + 1]:
                grads.append(None)
            elif size < 0:
                grads.append(as_tensor(np.zeros((0,), dtype=grad.array.dtype)))  # a skipped empty input
            else:
                grads.append(Narrow.apply(grad, ctx.dim, start, size))
        return tuple(grads)

    @staticmethod
    def jvp(ctx: Any, _: None, *tangents: Tensor) -> Tensor:
        return Cat.apply(ctx.dim, *tangents)


class Stack(Function[Tensor]):
    """Join tensors of one shape along a new dimension ``dim``, promoting their dtypes."""

    vmap = _along_rule(stacks=True)

    node_name = "StackBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"dim": "dim"}
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, dim: int, *tensors: Tensor) -> Tensor:
        arrays = [t.array for t in tensors]
        shape = arrays[0].shape
        for i, a in enumerate(arrays):
            if a.shape != shape:
                raise RuntimeError(
                    f"stack expects each tensor to be equal size, but got {list(shape)} at entry 0 and "
                    f"{list(a.shape)} at entry {i}"
                )
        d = _wrap_dim(dim, len(shape) + 1)
        ctx.dim = d
        return as_tensor(np.stack(arrays, axis=d, dtype=_result_dtype(arrays), casting="unsafe"))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, ...]:
        pieces = Unbind.apply(grad, ctx.dim)
        return (None, *(p if need else None for p, need in zip(pieces, ctx.needs_input_grad[1:])))

    @staticmethod
    def jvp(ctx: Any, _: None, *tangents: Tensor) -> Tensor:
        return Stack.apply(ctx.dim, *tangents)


def tensor_list(tensors: Any, name: str) -> list[Tensor]:
    """The tensors of ``cat``/``stack``'s first argument, with torch's errors for anything else."""
    if not isinstance(tensors, (list, tuple)):
        raise TypeError(
            f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not {type(tensors).__name__}"
        )
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
    return list(tensors)


# --------------------------------------------------------------------------- frontends
# Each op's row (ROWS, at the end) makes its frontend from its Function and an argument
# handler (``cat_args``) that returns the Function's arguments; a frontend written here
# chooses between Functions or returns several results.


# torch names the split of one size apart.
class Split(SplitWithSizes):
    node_name = "SplitBackward0"


def unbind(input: Tensor, dim: int = 0) -> tuple[Tensor, ...]:
    """The slices along ``dim``, as a tuple of views."""
    if input.array.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    out: tuple[Tensor, ...] = Unbind.apply(input, _wrap_dim(dim, input.array.ndim))
    return out


def split(tensor: Tensor, split_size_or_sections: int | Sequence[int], dim: int = 0) -> tuple[Tensor, ...]:
    """Pieces along ``dim``: of one size (the last may be smaller) or of the listed sizes.

    torch's function names its first parameter ``tensor`` (and the method ``x.split``, below,
    its second ``split_size``), so the two are separate frontends of the one row."""
    return split_method(tensor, split_size_or_sections, dim)


def split_method(input: Tensor, split_size: int | Sequence[int], dim: int = 0) -> tuple[Tensor, ...]:
    """Pieces along ``dim`` of ``split_size`` each (the last may be smaller), or of the listed sizes: views."""
    shape = input.array.shape
    if not shape:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = _wrap_dim(dim, len(shape))
    size = shape[d]
    out: tuple[Tensor, ...]
    if isinstance(split_size, (int, np.integer)) or (isinstance(split_size, Tensor) and split_size.ndim == 0):
        step = int(split_size)
        if step < 0:
            raise RuntimeError(f"split expects split_size be non-negative, but got split_size={step}")
        if step == 0 and size != 0:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {size}")
        count = max(-(-size // step), 1) if step else 1
        sizes = (step,) * (count - 1) + (size - step * (count - 1),)
        out = Split.apply(input, sizes, d)
        return out
    sizes = tuple(int(s) for s in split_size)
    if any(s < 0 for s in sizes):
        raise RuntimeError(
            f"split_with_sizes expects split_sizes have only non-negative entries, but got split_sizes={list(sizes)}"
        )
    if sum(sizes) != size:
        raise RuntimeError(
            f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's size at dimension {d}), "
            f"but got split_sizes={list(sizes)}"
        )
    out = SplitWithSizes.apply(input, sizes, d)
    return out


def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple[Tensor, ...]:
    """At most ``chunks`` pieces of equal size along ``dim`` (the last may be smaller): views."""
    shape = input.array.shape
    if not shape:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    chunks = int(chunks)
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = _wrap_dim(dim, len(shape))
    size = shape[d]
    step = -(-size // chunks)
    out: tuple[Tensor, ...]
    if step == 0:  # an empty dimension: ``chunks`` empty pieces, as in torch
        out = SplitWithSizes.apply(input, (0,) * chunks, d)
        return out
    return split_method(input, step, d)


def cat_args(name: str, tensors: Any, dim: int = 0) -> tuple[Any, ...]:
    """The arguments of :class:`Cat` for ``cat``/``concat``: the tensors along dimension ``dim``."""
    ts = tensor_list(tensors, name)
    if not ts:
        raise ValueError("ctxgrad.cat(): expected a non-empty list of Tensors")
    return (int(dim), *ts)


def concatenate_args(name: str, tensors: Any, axis: int = 0, *, dim: int | None = None) -> tuple[Any, ...]:
    """The arguments of :class:`Cat` for ``concatenate``, NumPy's name, with NumPy's keyword (``axis``)."""
    return cat_args(name, tensors, axis if dim is None else dim)


def stack_args(name: str, tensors: Any, dim: int = 0) -> tuple[Any, ...]:
    """The arguments of :class:`Stack`: the tensors, of one shape, along a new dimension ``dim``."""
    ts = tensor_list(tensors, name)
    if not ts:
        raise RuntimeError("stack expects a non-empty TensorList")
    return (int(dim), *ts)


def _nonempty(tensors: Any, name: str, empty: str | None = None) -> list[Tensor]:
    """The tensors given to ``name``; torch's error (naming ``empty``, default ``name``) for none."""
    ts = tensor_list(tensors, name)
    if not ts:
        raise RuntimeError(f"{empty or name} expects a non-empty TensorList")
    return ts


def hstack_args(name: str, tensors: Any) -> tuple[Any, ...]:
    """The arguments of :class:`Cat` for ``hstack``: along dimension 1 (dimension 0 for 1-D
    tensors); 0-d tensors count as 1-D."""
    ts = [Reshape.apply(t, (1,)) if t.ndim == 0 else t for t in _nonempty(tensors, name)]
    return (0 if ts[0].ndim == 1 else 1, *ts)


def vstack_args(name: str, tensors: Any) -> tuple[Any, ...]:
    """The arguments of :class:`Cat` for ``vstack``/``row_stack``: along dimension 0, 0-d and
    1-D tensors made rows (``1 x n``)."""
    ts = _nonempty(tensors, name, "vstack")
    return (0, *(Reshape.apply(t, (1, 1)) if t.ndim == 0 else Unsqueeze.apply(t, 0) if t.ndim == 1 else t for t in ts))


# --------------------------------------------------------------------------- more pieces and joins
# torch writes most of these in terms of the ops above (their grad_fn is that of the last op
# they call: tensor_split's pieces are SliceBackward0, dstack's result CatBackward0), and so
# does ctxgrad; the one that torch gives a node of its own (block_diag) is a Function.
def _slice_piece(x: Tensor, dim: int, start: int, end: int) -> Tensor:
    """``x[start:end]`` along ``dim`` with Python's slice rules (negative ends count from the
    back, ends past the size clamp): a view."""
    size = x.array.shape[dim]
    lo, hi, _ = slice(start, end).indices(size)
    return Narrow.apply(x, dim, lo, max(hi - lo, 0))


def _split_spec(name: str, positional: Any, **keywords: Any) -> Any:
    """The one way of splitting given to ``name``: positionally, or by one of torch's keywords
    (``sections=3``, ``indices=[1, 5]``, ``tensor_indices_or_sections=t``)."""
    given = [value for value in (positional, *keywords.values()) if value is not None]
    if len(given) != 1:
        raise TypeError(
            f"{name}() received an invalid combination of arguments: give the split positionally or as one of "
            f"{', '.join(f'{k}=' for k in keywords)}, once"
        )
    return given[0]


def tensor_split(
    input: Tensor,
    indices_or_sections: Any = None,
    dim: int = 0,
    *,
    sections: int | None = None,
    indices: Sequence[int] | None = None,
    tensor_indices_or_sections: Tensor | None = None,
) -> tuple[Tensor, ...]:
    """Views of ``input`` along ``dim``: ``n`` pieces as equal as can be (the first ones one
    longer), or the pieces between the given indices (Python's slice rules).

    >>> import ctxgrad
    >>> [p.tolist() for p in ctxgrad.tensor_split(ctxgrad.arange(7), 3)]
    [[0, 1, 2], [3, 4], [5, 6]]
    >>> [p.tolist() for p in ctxgrad.arange(7).tensor_split([1, 5])]
    [[0], [1, 2, 3, 4], [5, 6]]
    """
    shape = input.array.shape
    if not shape:
        raise RuntimeError(
            f"tensor_split expected at least a 1-dimensional tensor, but got a tensor with {len(shape)} dims"
        )
    d = _wrap_dim(dim, len(shape))
    spec = _split_spec(
        "tensor_split",
        indices_or_sections,
        sections=sections,
        indices=indices,
        tensor_indices_or_sections=tensor_indices_or_sections,
    )
    if isinstance(spec, Tensor):
        if spec.array.dtype != np.int64:
            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                + short_name(spec.array.dtype)
            )
        if spec.array.ndim > 1:
            raise RuntimeError(
                "tensor_split expected tensor_indices_or_sections to be a zero-dimensional or one-dimensional "
                f"tensor, but got a tensor with {spec.array.ndim} dims"
            )
        spec = int(spec.array) if spec.array.ndim == 0 else [int(i) for i in spec.array]
    if isinstance(spec, (int, np.integer)):
        sections = int(spec)
        if sections <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {sections}")
        size = shape[d]
        small, extra = divmod(size, sections)
        sizes = [small + 1] * extra + [small] * (sections - extra)
        starts = np.cumsum([0, *sizes[:-1]])
        return tuple(Narrow.apply(input, d, int(s), n) for s, n in zip(starts, sizes))
    bounds = [0, *(int(i) for i in spec)]
    pieces = [_slice_piece(input, d, a, b) for a, b in itertools.pairwise(bounds)]
    pieces.append(_slice_piece(input, d, bounds[-1], shape[d]))
    return tuple(pieces)


def _direction_split(name: str, input: Tensor, spec: Any, dim: int, min_dims: int) -> tuple[Tensor, ...]:
    """``hsplit``/``vsplit``/``dsplit``: ``tensor_split`` along ``dim``, where a number of
    sections must divide the dimension."""
    n = input.array.ndim
    if n < min_dims:
        raise RuntimeError(
            f"ctxgrad.{name} requires a tensor with at least {min_dims} dimension, "
            f"but got a tensor with {n} dimensions!"
        )
    if isinstance(spec, (int, np.integer)):
        size = input.array.shape[dim]
        if spec == 0 or size % int(spec) != 0:
            raise RuntimeError(
                f"ctxgrad.{name} attempted to split along dimension {dim}, but the size of the dimension {size} "
                f"is not divisible by the split_size {int(spec)}!"
            )
    return tensor_split(input, spec, dim)


def hsplit(
    input: Tensor, indices_or_sections: Any = None, *, sections: int | None = None, indices: Sequence[int] | None = None
) -> tuple[Tensor, ...]:
    """``tensor_split`` along dimension 1 (dimension 0 of a 1-D tensor); sections must divide it."""
    spec = _split_spec("hsplit", indices_or_sections, sections=sections, indices=indices)
    return _direction_split("hsplit", input, spec, 0 if input.array.ndim == 1 else 1, 1)


def vsplit(
    input: Tensor, indices_or_sections: Any = None, *, sections: int | None = None, indices: Sequence[int] | None = None
) -> tuple[Tensor, ...]:
    """``tensor_split`` along dimension 0 of a tensor of at least 2 dimensions."""
    spec = _split_spec("vsplit", indices_or_sections, sections=sections, indices=indices)
    return _direction_split("vsplit", input, spec, 0, 2)


def dsplit(
    input: Tensor, indices_or_sections: Any = None, *, sections: int | None = None, indices: Sequence[int] | None = None
) -> tuple[Tensor, ...]:
    """``tensor_split`` along dimension 2 of a tensor of at least 3 dimensions."""
    spec = _split_spec("dsplit", indices_or_sections, sections=sections, indices=indices)
    return _direction_split("dsplit", input, spec, 2, 3)


def split_with_sizes(input: Tensor, split_sizes: Sequence[int], dim: int = 0) -> tuple[Tensor, ...]:
    """Views of the listed sizes along ``dim`` (they must add up to its size)."""
    if isinstance(split_sizes, (int, np.integer)):
        raise TypeError(
            "split_with_sizes(): argument 'split_sizes' (position 1) must be tuple of ints, "
            f"not {type(split_sizes).__name__}"
        )
    return split_method(input, list(split_sizes), dim)


def _atleast(name: str, ndim: int, tensors: tuple[Any, ...]) -> Any:
    """``atleast_{ndim}d``: one tensor back as a tensor, several (or one list) as a tuple."""
    several = len(tensors) != 1 or isinstance(tensors[0], (list, tuple))
    items = tensors[0] if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)) else tensors
    out = []
    for t in items:
        if not isinstance(t, Tensor):
            raise TypeError(f"{name}() expected Tensor or tuple of Tensors, but got {type(t).__name__}")
        n = t.array.ndim
        if n == 0:
            t = t.reshape((1,) * ndim)
        elif ndim >= 2 and n == 1:
            t = Unsqueeze.apply(t, 0)
            if ndim == 3:
                t = Unsqueeze.apply(t, 2)
        elif ndim == 3 and n == 2:
            t = Unsqueeze.apply(t, 2)
        out.append(t)
    return tuple(out) if several else out[0]


def atleast_1d(*tensors: Any) -> Any:
    """Each tensor with at least 1 dimension (0-d becomes shape ``(1,)``); a tuple for several."""
    return _atleast("atleast_1d", 1, tensors)


def atleast_2d(*tensors: Any) -> Any:
    """Each tensor with at least 2 dimensions (a vector becomes a row ``(1, n)``)."""
    return _atleast("atleast_2d", 2, tensors)


def atleast_3d(*tensors: Any) -> Any:
    """Each tensor with at least 3 dimensions (``(n,)`` -> ``(1, n, 1)``, ``(m, n)`` -> ``(m, n, 1)``)."""
    return _atleast("atleast_3d", 3, tensors)


def column_stack_args(name: str, tensors: Any) -> tuple[Any, ...]:
    """The arguments of :class:`Cat` for ``column_stack``: 0-d and 1-D tensors made ``n x 1``
    columns, joined along dimension 1."""
    ts = _nonempty(tensors, name)
    return (1, *(Reshape.apply(t, (t.array.size, 1)) if t.array.ndim <= 1 else t for t in ts))


def dstack_args(name: str, tensors: Any) -> tuple[Any, ...]:
    """The arguments of :class:`Cat` for ``dstack``: along dimension 2, after ``atleast_3d``."""
    return (2, *atleast_3d(_nonempty(tensors, name)))


def meshgrid(*tensors: Any, indexing: str | None = None) -> tuple[Tensor, ...]:
    """Coordinate grids: the ``i``-th result holds the ``i``-th (0-d or 1-D) tensor's values
    along dimension ``i`` (``indexing="ij"``, the default) or with the first two dimensions
    swapped (``"xy"``, as NumPy's default).  Each result is an expanded view.

    >>> import ctxgrad
    >>> x, y = ctxgrad.meshgrid(ctxgrad.tensor([1, 2, 3]), ctxgrad.tensor([4, 5]), indexing="ij")
    >>> x.tolist(), y.tolist()
    ([[1, 1], [2, 2], [3, 3]], [[4, 5], [4, 5], [4, 5]])
    """
    items = tensors[0] if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)) else tensors
    ts = tensor_list(list(items), "meshgrid")
    if not ts:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    if indexing is None:
        warnings.warn(
            "ctxgrad.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
            UserWarning,
            stacklevel=2,
        )
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'ctxgrad.meshgrid: indexing must be one of "xy" or "ij", but received: {indexing}')
    for t in ts:
        if t.array.ndim > 1:
            raise RuntimeError(
                f"ctxgrad.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {list(t.array.shape)}"
            )
    for t in ts[1:]:
        if t.array.dtype != ts[0].array.dtype:
            raise RuntimeError("ctxgrad.meshgrid: Expected all tensors in the tensor list to have the same dtype.")
    order = list(range(len(ts)))
    if indexing == "xy" and len(ts) >= 2:
        order[0], order[1] = 1, 0
    sizes = [ts[i].array.size for i in order]
    out = []
    for i, t in enumerate(ts):
        shape = [1] * len(ts)
        shape[order.index(i)] = -1
        out.append(Expand.apply(Reshape.apply(t, tuple(shape)), tuple(sizes)))
    return tuple(out)


def cartesian_prod(*tensors: Tensor) -> Tensor:
    """Every combination of one element from each 1-D tensor, as rows (one tensor: itself).

    >>> import ctxgrad
    >>> ctxgrad.cartesian_prod(ctxgrad.tensor([1, 2]), ctxgrad.tensor([3, 4])).tolist()
    [[1, 3], [1, 4], [2, 3], [2, 4]]
    """
    for t in tensor_list(list(tensors), "cartesian_prod"):
        if t.array.ndim != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.array.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return Stack.apply(1, *(Reshape.apply(g, (-1,)) for g in grids))


class BlockDiag(Function[Tensor]):
    """A block-diagonal matrix of the tensors (0-d and 1-D ones taken as one row).

    The blocks go down the diagonal of one matrix, zeros elsewhere, in the promoted dtype."""

    node_name = "BlockDiagBackward0"
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, *tensors: Tensor) -> Tensor:
        arrays = [t.array for t in tensors]
        for i, a in enumerate(arrays):
            if a.ndim > 2:
                raise RuntimeError(
                    "ctxgrad.block_diag: Input tensors must have 2 or fewer dimensions. "
                    f"Input {i} has {a.ndim} dimensions"
                )
        mats = [a.reshape(1, -1) if a.ndim < 2 else a for a in arrays]
        rows = sum(m.shape[0] for m in mats)
        cols = sum(m.shape[1] for m in mats)
        out = np.zeros((rows, cols), dtype=_result_dtype(arrays) if arrays else np.float32)
        blocks = []
        r = c = 0
        for m in mats:
            out[r : r + m.shape[0], c : c + m.shape[1]] = m
            blocks.append((r, c, m.shape))
            r, c = r + m.shape[0], c + m.shape[1]
        ctx.blocks = blocks
        ctx.shapes = [a.shape for a in arrays]
        return as_tensor(out)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, ...]:
        grads: list[Tensor | None] = []
        for need, (r, c, (h, w)), shape in zip(ctx.needs_input_grad, ctx.blocks, ctx.shapes):
            if not need:
                grads.append(None)
                continue
            g = Narrow.apply(Narrow.apply(grad, 0, r, h), 1, c, w)
            grads.append(Reshape.apply(g, shape) if len(shape) < 2 else g)
        return tuple(grads)

    @staticmethod
    def jvp(ctx: Any, *tangents: Tensor) -> Tensor:
        return BlockDiag.apply(*tangents)

    @staticmethod
    def vmap(info: Any, in_dims: tuple[Any, ...], *tensors: Tensor) -> tuple[Tensor, int]:
        """Each sample's blocks on its own diagonal: every block (made a batch of matrices)
        padded with zeros to the full width, the padded rows then stacked: one ``cat`` per
        block and one for the rows, each over the whole batch."""
        size = info.batch_size
        dtype = _result_dtype([t.array for t in tensors])
        mats = []
        for i, (t, d) in enumerate(zip(tensors, in_dims)):
            n = t.ndim - (d == 0)
            if n > 2:
                raise RuntimeError(
                    f"ctxgrad.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has {n} dimensions"
                )
            if d is None:
                t = t.unsqueeze(0).expand(size, *t.shape)
            mats.append((t.reshape(size, 1, -1) if n < 2 else t).to(dtype))
        width = sum(m.shape[2] for m in mats)
        rows, c = [], 0
        for m in mats:
            h, w = m.shape[1], m.shape[2]
            left = as_tensor(np.zeros((size, h, c), dtype))
            right = as_tensor(np.zeros((size, h, width - c - w), dtype))
            rows.append(Cat.apply(-1, left, m, right))
            c += w
        return Cat.apply(-2, *rows), 0


def block_diag_args(name: str, *tensors: Tensor) -> tuple[Tensor, ...]:
    """The arguments of :class:`BlockDiag`: the tensors, checked.

    >>> import ctxgrad
    >>> ctxgrad.block_diag(ctxgrad.tensor([[1, 2]]), ctxgrad.tensor(3)).tolist()
    [[1, 2, 0], [0, 0, 3]]
    """
    return tuple(tensor_list(list(tensors), name))


ROWS: list[Op] = [
    Op("unbind", unbind, numpy_dims=True),
    # torch's function is split(tensor, split_size_or_sections, dim), its method split(split_size, dim)
    Op("split", split, method_frontend=split_method),
    Op("chunk", chunk, numpy_dims=True),
    # the functions of several tensors (torch has no such Tensor methods)
    Op("cat", Cat, args=cat_args, method=False, out=True, numpy_dims=True),
    Op("concat", Cat, args=cat_args, method=False, out=True, numpy_dims=True),
    Op("concatenate", Cat, args=concatenate_args, method=False, out=True),
    Op("stack", Stack, args=stack_args, method=False, out=True, numpy_dims=True),
    Op("hstack", Cat, args=hstack_args, method=False, out=True),
    Op("vstack", Cat, args=vstack_args, method=False, out=True),
    Op("tensor_split", tensor_split, numpy_dims=True),
    Op("hsplit", hsplit),
    Op("vsplit", vsplit),
    Op("dsplit", dsplit),
    Op("split_with_sizes", split_with_sizes),
    Op("atleast_1d", atleast_1d, method=False),
    Op("atleast_2d", atleast_2d, method=False),
    Op("atleast_3d", atleast_3d, method=False),
    Op("column_stack", Cat, args=column_stack_args, method=False, out=True),
    Op("row_stack", Cat, args=vstack_args, method=False, out=True),
    Op("dstack", Cat, args=dstack_args, method=False, out=True),
    Op("meshgrid", meshgrid, method=False),
    Op("cartesian_prod", cartesian_prod, method=False),
    Op("block_diag", BlockDiag, args=block_diag_args, method=False),
]

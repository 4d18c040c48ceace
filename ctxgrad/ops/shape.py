"""Shape ops: ``reshape``, ``view``, ``permute`` (``t``, ``transpose``, ``movedim``),
``expand``, ``squeeze``/``unsqueeze``, slices and pieces (``narrow``, ``unbind``, ``split``),
joining (``cat``, ``stack``), reordering copies (``flip``, ``roll``, ``repeat``), triangles and
diagonals (``tril``, ``triu``, ``diagonal``, ``diag_embed``).

Each returns a NumPy view where NumPy can make one (torch returns a view there too), and ``apply`` links
such an output to its input's version counter, so an in-place change of either is seen
by every graph that saved the other."""

from __future__ import annotations

import itertools
import warnings
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import numpy as np

from ctxgrad._dtypes import short_name, to_dtype
from ctxgrad._replayed import replayed_whole
from ctxgrad._tensor import Size, Tensor, _wrap_dim, as_tensor
from ctxgrad.autograd.batching import (
    BatchedTensor,
    VmapInfo,
    dims_rule,
    expand_unbatched,
    into_zeros_rule,
    leading_rule,
    loop_over_samples,
    only_first_batched,
    shift_dim,
    shift_dims,
    unary_rule,
)
from ctxgrad.autograd.errors import ReshapeSizeError
from ctxgrad.autograd.function import Function
from ctxgrad.ops._strided import strided_view
from ctxgrad.ops._util import UNSET, missing, numpy_dim, shape_arg, sizes_arg
from ctxgrad.ops.complex_numbers import Conj
from ctxgrad.ops.index_ops import IndexSelect, embedded
from ctxgrad.ops.indexing import PutFlat


def _resolve_shape(shape: tuple[int, ...], numel: int) -> tuple[int, ...]:
    """``shape`` with a ``-1`` filled in; torch's error when it cannot hold ``numel`` elements."""
    known = 1
    infer = None
    for i, s in enumerate(shape):
        if s == -1:
            if infer is not None:
                raise RuntimeError("only one dimension can be inferred")
            infer = i
        elif s < 0:
            raise RuntimeError(f"invalid shape dimension {s}")
        else:
            known *= s
    if infer is not None:
        if known == 0:
            if numel == 0:
                raise RuntimeError(
                    f"cannot reshape tensor of 0 elements into shape {list(shape)} because the "
                    "unspecified dimension size -1 can be any value and is ambiguous"
                )
        elif numel % known == 0:
            return shape[:infer] + (numel // known,) + shape[infer + 1 :]
        raise ReshapeSizeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    if known != numel:
        raise ReshapeSizeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


def _pad_sample(x: Tensor, n: int) -> Tensor:
    """A batch whose samples have fewer than ``n`` dimensions given leading ones of size 1."""
    k = x.ndim - 1
    return x if k >= n else x.reshape((x.shape[0],) + (1,) * (n - k) + tuple(x.shape[1:]))


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


class Reshape(Function[Tensor]):
    """The same elements in a new shape: a view when the layout allows, else a copy."""

    @classmethod
    def vmap(cls, info: VmapInfo, in_dims: tuple[Any, ...], x: Tensor, shape: Any) -> tuple[Any, Any]:
        """The batch reshaped to ``(batch, *shape)``."""
        if not only_first_batched(in_dims):
            return loop_over_samples(cls, info, in_dims, x, shape)
        return cls.apply(x, (x.shape[0], *shape)), 0

    node_name = "ViewBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"self_sym_sizes": ("sizes", 0)}
    holomorphic = True  # linear, real coefficients
    returns_views = True
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, shape: tuple[int, ...]) -> Tensor:
        data = x.array
        ctx.shape = data.shape
        ctx.out_shape = target = _resolve_shape(shape, data.size)
        return as_tensor(np.reshape(data, target))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return grad.reshape(ctx.shape), None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: None) -> Tensor:
        return tx.reshape(ctx.out_shape)


class View(Reshape):
    """Like ``reshape`` but never copies: torch's error where no view is possible."""

    node_name = "ViewBackward0"
    holomorphic = True  # linear, real coefficients
    returns_views = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, shape: tuple[int, ...]) -> Tensor:
        data = x.array
        ctx.shape = data.shape
        ctx.out_shape = target = _resolve_shape(shape, data.size)
        out = np.reshape(data, target)
        # NumPy copies when no view is possible (np.reshape's copy=False needs NumPy 2.1): a
        # copy never shares memory with its source.
        if out.size and not np.may_share_memory(out, data):
            raise RuntimeError(
                "view size is not compatible with input tensor's size and stride (at least one dimension "
                "spans across two contiguous subspaces). Use .reshape(...) instead. (A view of shape "
                f"{list(data.shape)} with strides {[s // data.itemsize for s in data.strides]} as {list(target)}.)"
            )
        return as_tensor(out)


class ViewDtype(Function[Tensor]):
    """The same bytes read as another dtype of the same size (``x.view(ctxgrad.int32)``)."""

    vmap = unary_rule

    node_name = "ViewBackward0"
    returns_views = True
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, dtype: np.dtype[Any]) -> Tensor:
        data = x.array
        if dtype.itemsize != data.dtype.itemsize:
            raise RuntimeError(
                f"ctxgrad's view(dtype) needs a dtype of the same size: {data.dtype} has {data.dtype.itemsize} "
                f"bytes per element, {dtype} has {dtype.itemsize}"
            )
        ctx.dtype = data.dtype
        ctx.out_dtype = dtype
        return as_tensor(data.view(dtype))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return ViewDtype.apply(grad, ctx.dtype), None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: None) -> Tensor:
        return ViewDtype.apply(tx, ctx.out_dtype)


class Permute(Function[Tensor]):
    """Reorder dimensions; the gradient is permuted back by the inverse order."""

    @classmethod
    def vmap(cls, info: VmapInfo, in_dims: tuple[Any, ...], x: Tensor, dims: Any) -> tuple[Any, Any]:
        """The batch dimension stays first, the sample's dimensions move past it."""
        if not only_first_batched(in_dims):
            return loop_over_samples(cls, info, in_dims, x, dims)
        return cls.apply(x, (0, *shift_dims(dims, x.ndim - 1))), 0

    node_name = "PermuteBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {}
    saved_fields_of_node: ClassVar[dict[str, dict[str, Any]]] = {"PermuteBackward0": {"dims": "dims"}}
    holomorphic = True  # linear, real coefficients
    returns_views = True
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, dims: tuple[int, ...]) -> Tensor:
        data = x.array
        if sorted(dims) != list(range(data.ndim)):
            raise RuntimeError(
                f"permute(sparse_coo): number of dimensions in the tensor input does not match the length "
                f"of the desired ordering of dimensions i.e. input.dim() = {data.ndim} is not equal to "
                f"len(dims) = {len(dims)}"
                if len(dims) != data.ndim
                else f"permute(): duplicate dims are not allowed in {list(dims)}"
            )
        ctx.dims = dims
        ctx.inverse = tuple(int(i) for i in np.argsort(dims))
        return as_tensor(np.transpose(data, dims))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return Permute.apply(grad, ctx.inverse), None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: None) -> Tensor:
        return Permute.apply(tx, ctx.dims)


class Expand(Function[Tensor]):
    """A broadcast view; its backward returns the gradient as it is, and the engine sums
    the broadcast dimensions away."""

    @classmethod
    def vmap(cls, info: VmapInfo, in_dims: tuple[Any, ...], x: Tensor, sizes: tuple[int, ...]) -> tuple[Any, Any]:
        """The batch given the sample's new leading dimensions, then expanded with its size in front."""
        if not only_first_batched(in_dims):
            return loop_over_samples(cls, info, in_dims, x, sizes)
        return cls.apply(_pad_sample(x, len(sizes)), (x.shape[0], *sizes)), 0

    node_name = "ExpandBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"self_sym_sizes": ("sizes", 0)}
    holomorphic = True  # linear, real coefficients
    returns_views = True
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, sizes: tuple[int, ...]) -> Tensor:
        data = x.array
        shape = data.shape
        new = len(sizes) - len(shape)
        if new < 0:
            raise RuntimeError(
                f"expand: the number of sizes provided ({len(sizes)}) must be greater or equal to the "
                f"number of dimensions in the tensor ({len(shape)})"
            )
        target = []
        for i, s in enumerate(sizes):
            if i < new:
                if s < 0:
                    raise RuntimeError(
                        f"The expanded size of the tensor ({s}) isn't allowed in a leading, non-existing dimension {i}"
                    )
                target.append(s)
                continue
            current = shape[i - new]
            if s == -1:
                s = current
            elif current != 1 and s != current:
                raise RuntimeError(
                    f"The expanded size of the tensor ({s}) must match the existing size ({current}) at "
                    f"non-singleton dimension {i}.  Target sizes: {list(sizes)}.  Tensor sizes: {list(shape)}"
                )
            target.append(s)
        ctx.target = tuple(target)
        # A broadcast view that can be written through (``g.expand(3)[0] = 0`` writes the one
        # shared element, as in torch), where np.broadcast_to's is read-only; in-place ops on
        # the whole view are refused for its overlapping elements, as torch refuses them.
        out = np.broadcast_to(data, ctx.target)
        if data.flags.writeable:
            try:
                out.flags.writeable = True
            except ValueError:  # (a NumPy that refuses: the view stays read-only)
                pass
        return as_tensor(out)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return grad, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: None) -> Tensor:
        return Expand.apply(tx, ctx.target)


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


def _at(dim: int, index: Any) -> tuple[Any, ...]:
    """A NumPy index that takes ``index`` along dimension ``dim`` and everything elsewhere
    (ending in ``...``, so that even a single element comes back as a 0-d view)."""
    return (slice(None),) * dim + (index, Ellipsis)


def _writable_diagonal(data: np.ndarray[Any, Any], offset: int, dim1: int, dim2: int) -> np.ndarray[Any, Any]:
    """``np.diagonal`` as a view that can be written through (NumPy's is read-only)."""
    d = np.diagonal(data, offset, dim1, dim2)
    if data.flags.writeable:
        try:
            d.flags.writeable = True
        except ValueError:  # a base further down is read-only (saved for backward): so is d
            pass
    return d


# --------------------------------------------------------------------------- squeeze, unsqueeze
class Squeeze(Function[Tensor]):
    """Drop the dimensions of size 1 (all of them, or those in ``dims``): a view."""

    @classmethod
    def vmap(cls, info: VmapInfo, in_dims: tuple[Any, ...], x: Tensor, dims: Any) -> tuple[Any, Any]:
        """The sample's dimensions (all of size 1 when ``dims`` is None) moved past the batch's."""
        if not only_first_batched(in_dims):
            return loop_over_samples(cls, info, in_dims, x, dims)
        if dims is None:
            return cls.apply(x, tuple(i + 1 for i, s in enumerate(x.shape[1:]) if s == 1)), 0
        return cls.apply(x, shift_dims(dims, x.ndim - 1)), 0

    node_name = "SqueezeBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"self_sym_sizes": "shape"}
    saved_fields_of_node: ClassVar[dict[str, dict[str, Any]]] = {
        "SqueezeBackward1": {"dim": lambda ctx: ctx.dims[0], "self_sym_sizes": "shape"},
        "SqueezeBackward2": {"dim": "dims", "self_sym_sizes": "shape"},
    }
    holomorphic = True  # linear, real coefficients
    returns_views = True
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, dims: tuple[int, ...] | None) -> Tensor:
        data = x.array
        shape = data.shape
        ctx.shape = shape
        ctx.dims = dims
        if dims is None:
            target = tuple(s for s in shape if s != 1)
        else:
            target = tuple(s for i, s in enumerate(shape) if s != 1 or i not in dims)
        return as_tensor(np.reshape(data, target))  # dropping dimensions of size 1 is always a view

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return grad.reshape(ctx.shape), None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: None) -> Tensor:
        return Squeeze.apply(tx, ctx.dims)


class Unsqueeze(Function[Tensor]):
    """Insert a dimension of size 1 at ``dim``: a view."""

    vmap = dims_rule(1, new_dim=True)

    node_name = "UnsqueezeBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"dim": "dim"}
    holomorphic = True  # linear, real coefficients
    returns_views = True
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, dim: int) -> Tensor:
        ctx.dim = dim
        return as_tensor(np.expand_dims(x.array, dim))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return SqueezeDim.apply(grad, (ctx.dim,)), None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: None) -> Tensor:
        return Unsqueeze.apply(tx, ctx.dim)


# --------------------------------------------------------------------------- slices and pieces
class Narrow(Function[Tensor]):
    """``length`` elements from ``start`` along ``dim``: a view.  The gradient is the output's
    gradient placed into zeros of the input's shape (:class:`NarrowGrad`)."""

    vmap = dims_rule(1)

    node_name = "SliceBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {
        "dim": lambda ctx: ctx.args[0],
        "start": lambda ctx: ctx.args[1],
        "end": lambda ctx: ctx.args[1] + ctx.args[2],
        "step": lambda ctx: 1,
        "self_sym_sizes": "shape",
    }
    holomorphic = True  # linear, real coefficients
    returns_views = True
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, dim: int, start: int, length: int) -> Tensor:
        data = x.array
        ctx.shape = data.shape
        ctx.args = (dim, start, length)
        return as_tensor(data[_at(dim, slice(start, start + length))])

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None]:
        return NarrowGrad.apply(grad, ctx.shape, *ctx.args), None, None, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, *_: None) -> Tensor:
        return Narrow.apply(tx, *ctx.args)


class NarrowGrad(Function[Tensor]):
    """The backward of :class:`Narrow`: zeros of ``shape`` with ``grad`` written at the slice.
    Linear, so its own backward is ``narrow`` again."""

    vmap = into_zeros_rule(1, (2,))

    node_name = "SliceBackwardBackward0"
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, grad: Tensor, shape: tuple[int, ...], dim: int, start: int, length: int) -> Tensor:
        g = grad.array
        ctx.args = (shape, dim, start, length)
        out = np.zeros(shape, dtype=g.dtype)
        out[_at(dim, slice(start, start + length))] = g
        return as_tensor(out)

    @staticmethod
    def backward(ctx: Any, gg: Tensor) -> tuple[Tensor, None, None, None, None]:
        _, dim, start, length = ctx.args
        return Narrow.apply(gg, dim, start, length), None, None, None, None

    @staticmethod
    def jvp(ctx: Any, tg: Tensor, *_: None) -> Tensor:
        return NarrowGrad.apply(tg, *ctx.args)


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
        return tuple([as_tensor(data[_at(dim, i)]) for i in range(data.shape[dim])])

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
            outs.append(as_tensor(data[_at(dim, slice(start, start + s))]))
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
    """Shift the elements cyclically along ``dims`` (of the flattened tensor when ``dims``
    is empty); the gradient is rolled back."""

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
    """Tile the tensor ``repeats[i]`` times along each dimension (leading repeats add
    dimensions); the gradient sums the copies."""

    @classmethod
    def vmap(cls, info: VmapInfo, in_dims: tuple[Any, ...], x: Tensor, reps: tuple[int, ...]) -> tuple[Any, Any]:
        """The batch given the sample's new leading dimensions, then repeated once along its own."""
        if not only_first_batched(in_dims):
            return loop_over_samples(cls, info, in_dims, x, reps)
        return cls.apply(_pad_sample(x, len(reps)), (1, *reps)), 0

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
    """The lower triangle (on and below the ``diagonal``-th diagonal) of the last two
    dimensions, zeros elsewhere.  A mask, so its backward and jvp apply the same mask."""

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
    """The upper triangle (on and above the ``diagonal``-th diagonal) of the last two
    dimensions, zeros elsewhere."""

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
    """The ``offset``-th diagonal of dimensions ``dim1`` and ``dim2``, as a new last
    dimension: a view that can be written through, as in torch."""

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
    """Matrices (in dimensions ``dim1`` and ``dim2`` of the result) whose ``offset``-th
    diagonal holds the last dimension of the input; zeros elsewhere."""

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


def wrap_unique_dims(dims: tuple[int, ...], ndim: int) -> tuple[int, ...]:
    """``dims`` wrapped for a tensor of ``ndim`` dimensions; torch's error for a repeated one."""
    wrapped = tuple(_wrap_dim(d, ndim) for d in dims)
    seen: set[int] = set()
    for d in wrapped:
        if d in seen:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        seen.add(d)
    return wrapped


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


def broadcast_shape(*shapes: Any) -> tuple[int, ...]:
    """The shape the given shapes broadcast to, with torch's errors."""
    parsed: list[tuple[int, ...]] = []
    for s in shapes:
        if isinstance(s, (int, np.integer)):
            parsed.append((int(s),))
        elif isinstance(s, (tuple, list)):
            parsed.append(tuple(int(v) for v in s))
        else:
            raise RuntimeError(f"Input shapes should be of type ints, a tuple of ints, or a list of ints, got {s}")
    for p in parsed:
        if any(v < 0 for v in p):
            raise ValueError("Attempting to broadcast a dimension with negative length!")
    result: list[int] = [1] * max((len(p) for p in parsed), default=0)
    for i, p in enumerate(parsed):
        for k in range(1, len(p) + 1):
            v = p[-k]
            if v == 1:
                continue
            if result[-k] == 1:
                result[-k] = v
            elif result[-k] != v:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {v} at {-k}! Mismatching argument at index {i} "
                    f"had {tuple(p)}; but expected shape should be broadcastable to {result}"
                )
    return tuple(result)


# --------------------------------------------------------------------------- frontends
# One function per op, with torch's signature: the argument handling, then ``Function.apply``.
# The op table (ops/table.py) makes them the Tensor methods and the ``ctxgrad.*`` functions;
# a ``*_method`` frontend is the Tensor method where torch's method takes other arguments
# (``x.reshape(2, 3)`` beside ``ctxgrad.reshape(x, (2, 3))``).
# torch names some overloads' nodes apart: a subclass that declares torch's node_name.


class Transpose(Permute):
    node_name = "TransposeBackward0"


class TransposeT(Permute):
    node_name = "TBackward0"


class SqueezeDim(Squeeze):
    node_name = "SqueezeBackward1"


class SqueezeDims(Squeeze):
    node_name = "SqueezeBackward2"


class Split(SplitWithSizes):
    node_name = "SplitBackward0"


def reshape(input: Tensor, shape: Any) -> Tensor:
    """``input`` with a new shape (a view when the layout allows)."""
    return Reshape.apply(input, shape_arg((shape,)))


def reshape_method(input: Tensor, *sizes: Any, shape: Any = None) -> Tensor:
    """The same values in a new shape (a view when the layout allows)."""
    return Reshape.apply(input, shape_arg(sizes) if shape is None else sizes_arg(sizes, shape, "reshape", "shape"))


def view(input: Tensor, *sizes: Any, size: Any = None, dtype: Any = None) -> Tensor:
    """A view with a new shape (or the same bytes as another dtype); fails, as in torch, where no view is possible."""
    if dtype is not None:
        if sizes or size is not None:
            raise TypeError("view() received an invalid combination of arguments - got a size and dtype=")
        return ViewDtype.apply(input, to_dtype(dtype))
    if size is not None:
        return View.apply(input, sizes_arg(sizes, size, "view", "size"))
    if len(sizes) == 1 and not isinstance(sizes[0], (int, np.integer, tuple, list, Size)):
        return ViewDtype.apply(input, to_dtype(sizes[0]))
    return View.apply(input, shape_arg(sizes))


def view_as(input: Tensor, other: Tensor) -> Tensor:
    """A view with ``other``'s shape."""
    return View.apply(input, tuple(other.array.shape))


def reshape_as(input: Tensor, other: Tensor) -> Tensor:
    """Reshape to ``other``'s shape."""
    return Reshape.apply(input, tuple(other.array.shape))


def expand(input: Tensor, *sizes: Any, size: Any = None, implicit: bool = False) -> Tensor:
    """A broadcast view with the given sizes (``-1`` keeps a dimension).  (``implicit`` is
    torch's mark for an expansion its tracer inserted; it changes nothing.)"""
    return Expand.apply(input, shape_arg(sizes) if size is None else sizes_arg(sizes, size, "expand", "size"))


def expand_as(input: Tensor, other: Tensor) -> Tensor:
    """A broadcast view with ``other``'s shape."""
    return Expand.apply(input, tuple(other.array.shape))


def t(input: Tensor) -> Tensor:
    """Transpose a tensor of at most two dimensions."""
    n = input.array.ndim
    if n > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {n}D")
    return TransposeT.apply(input, tuple(range(n - 1, -1, -1)))


def _swap(input: Tensor, dim0: int, dim1: int) -> Tensor:
    n = input.array.ndim
    perm = list(range(n))
    a, b = _wrap_dim(dim0, n), _wrap_dim(dim1, n)
    if n:  # (a 0-d tensor takes dims 0 and -1, as torch: a view of itself)
        perm[a], perm[b] = perm[b], perm[a]
    return Transpose.apply(input, tuple(perm))


def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """Swap two dimensions (a view)."""
    return _swap(input, dim0, dim1)


def swapaxes(input: Tensor, axis0: int, axis1: int) -> Tensor:
    """Swap two dimensions (``transpose``)."""
    return _swap(input, axis0, axis1)


def swapdims(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """Swap two dimensions (``transpose``)."""
    return _swap(input, dim0, dim1)


def permute(input: Tensor, dims: Any) -> Tensor:
    """Reorder the dimensions (a view)."""
    n = input.array.ndim
    return Permute.apply(input, tuple(_wrap_dim(d, n) for d in shape_arg((dims,))))


def permute_method(input: Tensor, *order: Any, dims: Any = None) -> Tensor:
    """Reorder the dimensions (a view)."""
    n = input.array.ndim
    given = shape_arg(order) if dims is None else sizes_arg(order, dims, "permute", "dims")
    return Permute.apply(input, tuple(_wrap_dim(d, n) for d in given))


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Merge dimensions ``start_dim`` to ``end_dim`` into one (a view when the layout allows);
    ``input`` itself when there is nothing to merge, as in torch."""
    shape = input.array.shape
    n = len(shape)
    start, end = _wrap_dim(start_dim, n), _wrap_dim(end_dim, n)
    if n == 0:
        return Reshape.apply(input, (1,))
    if start > end:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if start == end:
        return input
    merged = 1
    for s in shape[start : end + 1]:
        merged *= s
    return Reshape.apply(input, shape[:start] + (merged,) + shape[end + 1 :])


def unflatten(input: Tensor, dim: int = UNSET, sizes: Sequence[int] = UNSET, *, axis: int | None = None) -> Tensor:
    """Split dimension ``dim`` (or NumPy's ``axis=``) into ``sizes`` (one of them may be -1)."""
    if axis is not None:
        dim = numpy_dim("unflatten", dim, axis, UNSET)
    if dim is UNSET or sizes is UNSET:
        raise missing("unflatten", dim=dim, sizes=sizes)
    return unflatten_method(input, dim, sizes)


def unflatten_method(input: Tensor, dim: int, sizes: Sequence[int]) -> Tensor:
    """Split dimension ``dim`` into ``sizes`` (one of them may be -1); torch's method, a Python
    function, takes no ``axis=``."""
    shape = input.array.shape
    if not shape:
        raise RuntimeError("unflatten got an unexpected error:\nDimension specified as 0 but tensor has no dimensions")
    d = _wrap_dim(dim, len(shape))
    sizes = tuple(int(s) for s in sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    try:
        resolved = _resolve_shape(sizes, shape[d])
    except ReshapeSizeError:
        raise RuntimeError(
            f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim {d} ({shape[d]}) in "
            "the input tensor"
        ) from None
    except RuntimeError as exc:
        raise RuntimeError(f"unflatten got an unexpected error:\n{exc}") from None
    return Reshape.apply(input, shape[:d] + resolved + shape[d + 1 :])


def squeeze(
    input: Tensor, dim: int | Sequence[int] | None = None, *, axis: int | Sequence[int] | None = None
) -> Tensor:
    """Drop dimensions of size 1: all of them, or those of ``dim`` that are 1 (a view)."""
    if axis is not None:
        dim = numpy_dim("squeeze", dim, axis)
    n = input.array.ndim
    if dim is None:
        return Squeeze.apply(input, None)
    if isinstance(dim, (int, np.integer)):
        return SqueezeDim.apply(input, (_wrap_dim(dim, n),))
    return SqueezeDims.apply(input, wrap_unique_dims(tuple(int(d) for d in dim), n))


def unsqueeze(input: Tensor, dim: int = UNSET, *, axis: int | None = None) -> Tensor:
    """Insert a dimension of size 1 at ``dim`` (a view); ``dim`` counts the dimensions of the result."""
    if axis is not None:
        dim = numpy_dim("unsqueeze", dim, axis, UNSET)
    if dim is UNSET:
        raise missing("unsqueeze", dim=dim)
    if not isinstance(dim, (int, np.integer)):
        raise TypeError(f"unsqueeze(): argument 'dim' (position 1) must be int, not {type(dim).__name__}")
    return Unsqueeze.apply(input, _wrap_dim(dim, input.array.ndim + 1))


def _movedim(x: Tensor, source: Any, destination: Any, name: str) -> Tensor:
    """``movedim`` / ``moveaxis`` as a permutation (``PermuteBackward0``, as in torch)."""
    n = x.array.ndim
    src_int = isinstance(source, (int, np.integer))
    dst_int = isinstance(destination, (int, np.integer))
    if src_int != dst_int:
        raise TypeError(
            f"{name}() received an invalid combination of arguments - got ({type(source).__name__}, "
            f"{type(destination).__name__}), but expected one of:\n * (int source, int destination)\n"
            " * (tuple of ints source, tuple of ints destination)"
        )
    src = (int(source),) if src_int else tuple(int(s) for s in source)
    dst = (int(destination),) if dst_int else tuple(int(s) for s in destination)
    if len(src) != len(dst):
        raise RuntimeError(
            f"movedim: Invalid source or destination dims: source ({list(src)} dims) should contain the same "
            f"number of dims as destination ({list(dst)} dims)"
        )
    ws = tuple(_wrap_dim(d, n) for d in src)
    wd = tuple(_wrap_dim(d, n) for d in dst)
    if len(set(ws)) != len(ws):
        raise RuntimeError(f"movedim: repeated dim in `source` ({list(src)})")
    if len(set(wd)) != len(wd):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({list(dst)})")
    order = [d for d in range(n) if d not in ws]
    for to, frm in sorted(zip(wd, ws)):
        order.insert(to, frm)
    return Permute.apply(x, tuple(order))


def movedim(input: Tensor, source: int | Sequence[int], destination: int | Sequence[int]) -> Tensor:
    """Move dimensions ``source`` to positions ``destination``, the others keeping their order (a view)."""
    return _movedim(input, source, destination, "movedim")


def moveaxis(input: Tensor, source: int | Sequence[int], destination: int | Sequence[int]) -> Tensor:
    """``movedim``."""
    return _movedim(input, source, destination, "moveaxis")


def broadcast_to(input: Tensor, size: Any) -> Tensor:
    """A broadcast view of ``input`` with shape ``size`` (``expand``)."""
    return Expand.apply(input, sizes_arg((size,), None, "broadcast_to", "size"))


def broadcast_to_method(input: Tensor, *args: Any, size: Any = None) -> Tensor:
    """A broadcast view with shape ``size`` (``expand``)."""
    return Expand.apply(input, sizes_arg(args, size, "broadcast_to", "size"))


def narrow(
    input: Tensor, dim: int = UNSET, start: Any = UNSET, length: int = UNSET, *, axis: int | None = None
) -> Tensor:
    """``length`` elements from ``start`` along ``dim`` (a view; ``start`` may be negative or a tensor)."""
    if axis is not None:
        dim = numpy_dim("narrow", dim, axis, UNSET)
    if dim is UNSET or start is UNSET or length is UNSET:
        raise missing("narrow", dim=dim, start=start, length=length)
    shape = input.array.shape
    if not shape:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    length = int(length)
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    d = _wrap_dim(dim, len(shape))
    size = shape[d]
    begin = int(start)
    if not -size <= begin <= size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {begin})")
    if begin < 0:
        begin += size
    if begin + length > size:
        raise RuntimeError(f"start ({begin}) + length ({length}) exceeds dimension size ({size}).")
    return Narrow.apply(input, d, begin, length)


def unbind(input: Tensor, dim: int = 0, *, axis: int | None = None) -> tuple[Tensor, ...]:
    """The slices along ``dim``, as a tuple of views."""
    if axis is not None:
        dim = numpy_dim("unbind", dim, axis, 0)
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


def chunk(input: Tensor, chunks: int, dim: int = 0, *, axis: int | None = None) -> tuple[Tensor, ...]:
    """At most ``chunks`` pieces of equal size along ``dim`` (the last may be smaller): views."""
    if axis is not None:
        dim = numpy_dim("chunk", dim, axis, 0)
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


def cat(tensors: Any, dim: int = 0, *, axis: int | None = None) -> Tensor:
    """Join tensors along dimension ``dim`` (dtypes promoted; 1-D empty tensors skipped, as in
    torch).  ``axis=`` is NumPy's name for ``dim``, which torch also takes."""
    if axis is not None:
        dim = numpy_dim("cat", dim, axis, 0)
    ts = tensor_list(tensors, "cat")
    if not ts:
        raise ValueError("ctxgrad.cat(): expected a non-empty list of Tensors")
    return Cat.apply(int(dim), *ts)


def concat(tensors: Any, dim: int = 0, *, axis: int | None = None) -> Tensor:
    """``cat``."""
    if axis is not None:
        dim = numpy_dim("concat", dim, axis, 0)
    return cat(tensors, dim)


def concatenate(tensors: Any, axis: int = 0, *, dim: int | None = None) -> Tensor:
    """``cat`` with NumPy's keyword (``axis``)."""
    return cat(tensors, axis if dim is None else dim)


def stack(tensors: Any, dim: int = 0, *, axis: int | None = None) -> Tensor:
    """Join tensors of one shape along a new dimension ``dim`` (or NumPy's ``axis=``)."""
    if axis is not None:
        dim = numpy_dim("stack", dim, axis, 0)
    ts = tensor_list(tensors, "stack")
    if not ts:
        raise RuntimeError("stack expects a non-empty TensorList")
    return Stack.apply(int(dim), *ts)


def hstack(tensors: Any) -> Tensor:
    """Join along dimension 1 (dimension 0 for 1-D tensors); 0-d tensors count as 1-D."""
    ts = tensor_list(tensors, "hstack")
    if not ts:
        raise RuntimeError("hstack expects a non-empty TensorList")
    ts = [t.reshape(1) if t.ndim == 0 else t for t in ts]
    return cat(ts, 0 if ts[0].ndim == 1 else 1)


def vstack(tensors: Any) -> Tensor:
    """Join along dimension 0, after making 0-d and 1-D tensors rows (``1 x n``)."""
    ts = tensor_list(tensors, "vstack")
    if not ts:
        raise RuntimeError("vstack expects a non-empty TensorList")
    ts = [t.reshape(1, 1) if t.ndim == 0 else t.unsqueeze(0) if t.ndim == 1 else t for t in ts]
    return cat(ts, 0)


def broadcast_tensors(*tensors: Tensor) -> tuple[Tensor, ...]:
    """The tensors broadcast to their common shape (views; a tensor already of that shape is
    returned as it is, as in torch)."""
    target: tuple[int, ...] = ()
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(t).__name__}")
        shape = t.array.shape
        n = max(len(target), len(shape))
        merged = []
        for k in range(n, 0, -1):
            a = target[-k] if k <= len(target) else 1
            b = shape[-k] if k <= len(shape) else 1
            if a != b and a != 1 and b != 1:
                raise RuntimeError(
                    f"The size of tensor a ({a}) must match the size of tensor b ({b}) at non-singleton dimension "
                    f"{n - k}"
                )
            merged.append(b if a == 1 else a)
        target = tuple(merged)
    return tuple(t if t.array.shape == target else Expand.apply(t, target) for t in tensors)


def broadcast_shapes(*shapes: Any) -> Size:
    """The shape (a ``ctxgrad.Size``) that tensors of the given shapes broadcast to."""
    return Size(broadcast_shape(*shapes))


def _flip(x: Tensor, dims: tuple[int, ...]) -> Tensor:
    """``flip`` (of a 0-d tensor: a copy, dims 0 and -1 allowed as in torch)."""
    n = x.array.ndim
    dims = wrap_unique_dims(dims, n)
    return Flip.apply(x, dims if n else ())


def flip(input: Tensor, dims: Any) -> Tensor:
    """The elements in reverse order along ``dims`` (a copy)."""
    if not isinstance(dims, (tuple, list)):
        raise TypeError(f"flip(): argument 'dims' (position 2) must be tuple of ints, not {type(dims).__name__}")
    return _flip(input, sizes_arg((dims,), None, "flip", "dims"))


def flip_method(input: Tensor, *args: Any, dims: Any = None) -> Tensor:
    """The elements in reverse order along ``dims`` (a copy)."""
    return _flip(input, sizes_arg(args, dims, "flip", "dims"))


def fliplr(input: Tensor) -> Tensor:
    """Reverse the order along dimension 1 (a copy)."""
    if input.array.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return Flip.apply(input, (1,))


def flipud(input: Tensor) -> Tensor:
    """Reverse the order along dimension 0 (a copy)."""
    if input.array.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return Flip.apply(input, (0,))


def roll(input: Tensor, shifts: int | Sequence[int], dims: int | Sequence[int] | None = None) -> Tensor:
    """Shift the elements cyclically along ``dims`` (the flattened tensor when ``dims`` is None)."""
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
    return Roll.apply(input, sh, tuple(_wrap_dim(d, n) for d in ds))


def repeat(input: Tensor, *args: Any, repeats: Any = None) -> Tensor:
    """Tile the tensor ``repeats[i]`` times along dimension ``i`` (extra repeats add leading dimensions)."""
    return Repeat.apply(input, sizes_arg(args, repeats, "repeat", "repeats"))


def _tile(x: Tensor, reps: tuple[int, ...]) -> Tensor:
    return Repeat.apply(x, (1,) * (x.array.ndim - len(reps)) + reps)


def tile(input: Tensor, dims: Any) -> Tensor:
    """Repeat ``input`` ``dims[i]`` times along each dimension (missing leading repeats are 1)."""
    return _tile(input, sizes_arg((dims,), None, "tile", "dims"))


def tile_method(input: Tensor, *args: Any, dims: Any = None) -> Tensor:
    """``repeat``, with missing leading repeats taken as 1."""
    return _tile(input, sizes_arg(args, dims, "tile", "dims"))


def tril(input: Tensor, diagonal: int = 0) -> Tensor:
    """The lower triangle of the last two dimensions (on and below diagonal ``diagonal``), zeros elsewhere."""
    return Tril.apply(input, int(diagonal))


def triu(input: Tensor, diagonal: int = 0) -> Tensor:
    """The upper triangle of the last two dimensions (on and above diagonal ``diagonal``), zeros elsewhere."""
    return Triu.apply(input, int(diagonal))


def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The ``offset``-th diagonal of dimensions ``dim1`` and ``dim2`` as the last dimension (a view)."""
    d1, d2 = check_diagonal_dims(dim1, dim2, input.array.ndim)
    return Diagonal.apply(input, int(offset), d1, d2)


def diag(input: Tensor, diagonal: int = 0) -> Tensor:
    """A vector as a square matrix with it on diagonal ``diagonal``; a matrix's diagonal as a vector (a copy)."""
    n = input.array.ndim
    if n == 1:
        return DiagEmbed.apply(input, int(diagonal), 0, 1)
    if n == 2:
        return DiagCopy.apply(input, int(diagonal), 0, 1)
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {n}D")


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """Matrices (in dimensions ``dim1``, ``dim2``) with the last dimension on diagonal ``offset``."""
    d1, d2 = check_diagonal_dims(dim1, dim2, input.array.ndim + 1)
    return DiagEmbed.apply(input, int(offset), d1, d2)


# --------------------------------------------------------------------------- properties
# Tensor.T, Tensor.mT and Tensor.mH (attached as properties: rows with property=True).
def reversed_dims(input: Tensor) -> Tensor:
    """The dimensions reversed (``permute`` of all dimensions): ``Tensor.T``."""
    return Permute.apply(input, tuple(range(input.dim() - 1, -1, -1)))


def matrix_transpose(input: Tensor) -> Tensor:
    """The last two dimensions swapped: ``Tensor.mT``."""
    if input.dim() < 2:
        raise RuntimeError(
            f"tensor.mT is only supported on matrices or batches of matrices. Got {input.dim()}-D tensor."
        )
    return _swap(input, -2, -1)


def _adjoint(input: Tensor, name: str) -> Tensor:
    n = input.dim()
    if n < 2:
        raise RuntimeError(f"{name} is only supported on matrices or batches of matrices. Got {n}-D tensor.")
    swapped = _swap(input, -2, -1)
    return Conj.apply(swapped) if input.is_complex() else swapped


def matrix_adjoint(input: Tensor) -> Tensor:
    """The last two dimensions swapped and conjugated (for real tensors, ``mT``): ``Tensor.mH``."""
    return _adjoint(input, "tensor.mH")


def adjoint(input: Tensor) -> Tensor:
    """The last two dimensions swapped and conjugated, a view (``Tensor.mH`` as a function)."""
    return _adjoint(input, "tensor.adjoint()")


# --------------------------------------------------------------------------- more pieces and joins
# torch writes most of these in terms of the ops above (their grad_fn is that of the last op
# they call: tensor_split's pieces are SliceBackward0, dstack's result CatBackward0), and so
# does ctxgrad; the ones that torch gives a node of their own (block_diag, unfold, as_strided)
# are Functions.


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
    axis: int | None = None,
) -> tuple[Tensor, ...]:
    """Views of ``input`` along ``dim``: ``n`` pieces as equal as can be (the first ones one
    longer), or the pieces between the given indices (Python's slice rules).

    >>> import ctxgrad
    >>> [p.tolist() for p in ctxgrad.tensor_split(ctxgrad.arange(7), 3)]
    [[0, 1, 2], [3, 4], [5, 6]]
    >>> [p.tolist() for p in ctxgrad.arange(7).tensor_split([1, 5])]
    [[0], [1, 2, 3, 4], [5, 6]]
    """
    if axis is not None:
        dim = numpy_dim("tensor_split", dim, axis, 0)
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


def _nonempty(tensors: Any, name: str) -> list[Tensor]:
    ts = tensor_list(tensors, name)
    if not ts:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return ts


def column_stack(tensors: Any) -> Tensor:
    """Join as columns: 0-d and 1-D tensors become ``n x 1`` columns, then ``hstack``."""
    ts = _nonempty(tensors, "column_stack")
    return cat([t.reshape(t.array.size, 1) if t.array.ndim <= 1 else t for t in ts], 1)


def row_stack(tensors: Any) -> Tensor:
    """``vstack``: join as rows."""
    _nonempty(tensors, "row_stack")
    return vstack(tensors)


def dstack(tensors: Any) -> Tensor:
    """Join along dimension 2, after ``atleast_3d``."""
    ts = _nonempty(tensors, "dstack")
    return cat(list(atleast_3d(ts)), 2)


def ravel(input: Tensor) -> Tensor:
    """The elements as one dimension (a view when the layout allows)."""
    return Reshape.apply(input, (-1,))


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
        return Transpose.apply(Flip.apply(input, (d1,)), _swapped(n, d0, d1))
    if k == 2:
        return Flip.apply(input, (d0, d1))
    if k == 3:
        return Transpose.apply(Flip.apply(input, (d0,)), _swapped(n, d0, d1))
    return input.clone()


def _swapped(n: int, d0: int, d1: int) -> tuple[int, ...]:
    perm = list(range(n))
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return tuple(perm)


@replayed_whole
def repeat_interleave(
    input: Tensor,
    repeats: Any = None,
    dim: int | None = None,
    *,
    output_size: int | None = None,
    axis: int | None = None,
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
    if axis is not None:
        dim = numpy_dim("repeat_interleave", dim, axis)
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


class BlockDiag(Function[Tensor]):
    """The tensors (each made a matrix: 0-d ``1 x 1``, 1-D a row) as the blocks down the
    diagonal of one matrix, zeros elsewhere, in the promoted dtype."""

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
            rows.append(cat([left, m, right], -1))
            c += w
        return cat(rows, -2), 0


def block_diag(*tensors: Tensor) -> Tensor:
    """A block-diagonal matrix of the tensors (0-d and 1-D ones taken as one row).

    >>> import ctxgrad
    >>> ctxgrad.block_diag(ctxgrad.tensor([[1, 2]]), ctxgrad.tensor(3)).tolist()
    [[1, 2, 0], [0, 0, 3]]
    """
    return BlockDiag.apply(*tensor_list(list(tensors), "block_diag"))


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


def narrow_copy(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    """``narrow`` as a new tensor (a copy, not a view)."""
    return narrow(input, dim, start, length).clone()


class Unfold(Function[Tensor]):
    """Every window of ``size`` elements along ``dim``, ``step`` apart, as a new last
    dimension: a view whose windows may overlap.  The gradient adds each window's gradient back."""

    vmap = dims_rule(1, scalar_ok=False)

    node_name = "UnfoldBackward0"
    holomorphic = True  # linear, real coefficients
    returns_views = True
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, dim: int, size: int, step: int) -> Tensor:
        data = x.array
        ctx.args = (x.array.shape, dim, size, step)
        if data.ndim == 0:
            return as_tensor(data.reshape(1))
        windows = np.lib.stride_tricks.sliding_window_view(data, size, axis=dim)[_at(dim, slice(None, None, step))]
        return as_tensor(strided_view(data, windows.shape, windows.strides))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None]:
        return UnfoldGrad.apply(grad, *ctx.args), None, None, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, *_: None) -> Tensor:
        _, dim, size, step = ctx.args
        return Unfold.apply(tx, dim, size, step)


class UnfoldGrad(Function[Tensor]):
    """The backward of :class:`Unfold`: the windows' gradients added into zeros of the input's shape."""

    vmap = into_zeros_rule(1, (2,))

    node_name = "UnfoldBackwardBackward0"
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, grad: Tensor, shape: tuple[int, ...], dim: int, size: int, step: int) -> Tensor:
        g = grad.array
        ctx.args = (dim, size, step)
        ctx.shape = shape
        if not shape:
            return as_tensor(g.reshape(()).copy())
        out = np.zeros(shape, dtype=g.dtype)
        moved = np.moveaxis(out, dim, -1)
        gm = np.moveaxis(g, dim, -2)  # (..., windows, size)
        for w in range(size):  # window offset w of every window
            moved[..., w : w + step * gm.shape[-2] : step] += gm[..., w]
        return as_tensor(out)

    @staticmethod
    def backward(ctx: Any, gg: Tensor) -> tuple[Tensor, None, None, None, None]:
        return Unfold.apply(gg, *ctx.args), None, None, None, None

    @staticmethod
    def jvp(ctx: Any, tg: Tensor, *_: None) -> Tensor:
        return UnfoldGrad.apply(tg, ctx.shape, *ctx.args)


def unfold(input: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """Windows of ``size`` elements along ``dimension``, ``step`` apart, as a new last dimension (a view).

    >>> import ctxgrad
    >>> ctxgrad.arange(5).unfold(0, 2, 2).tolist()
    [[0, 1], [2, 3]]
    """
    n = input.array.ndim
    d = _wrap_dim(dimension, max(n, 1)) if n else 0
    extent = input.array.shape[d] if n else 1
    if int(size) > extent:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {extent} but size is {size}")
    if int(size) < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if int(step) <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    return Unfold.apply(input, d, int(size), int(step))


class StorageMap(Function[Tensor]):
    """``values`` added into a zero "storage" of ``storage_size`` elements at the flat
    positions ``write``, then read back at the flat positions ``read``: the gradient of
    ``as_strided``, and (``read``/``write`` swapped) its own adjoint."""

    node_name = "AsStridedBackward0"
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(
        ctx: Any, values: Tensor, read: np.ndarray[Any, Any], write: np.ndarray[Any, Any], storage_size: int
    ) -> Tensor:
        ctx.args = (read, write, storage_size)
        v = values.array
        storage = np.zeros(storage_size, dtype=v.dtype)
        np.add.at(storage, write, v)
        return as_tensor(storage[read])

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None]:
        read, write, size = ctx.args
        return StorageMap.apply(grad, write, read, size), None, None, None

    @staticmethod
    def jvp(ctx: Any, tv: Tensor, *_: None) -> Tensor:
        return StorageMap.apply(tv, *ctx.args)

    @staticmethod
    def vmap(
        info: Any, in_dims: tuple[Any, ...], values: Tensor, read: Any, write: Any, storage_size: int
    ) -> tuple[Tensor, int]:
        """Each sample its own storage, one after the other: the positions offset to it."""
        start = np.arange(info.batch_size, dtype=np.int64) * storage_size
        read = start.reshape((-1,) + (1,) * read.ndim) + read
        write = start.reshape((-1,) + (1,) * write.ndim) + write
        return StorageMap.apply(values, read, write, info.batch_size * storage_size), 0


class AsStrided(Function[Tensor]):
    """The elements of ``x``'s row-major storage at ``storage_offset + sum(i_k * stride_k)``
    for every index ``i`` of ``size`` (a view of a contiguous ``x``, else a copy); the gradient
    adds each output's gradient to the input element it read."""

    node_name = "AsStridedBackward0"
    holomorphic = True  # linear, real coefficients
    returns_views = True
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, size: tuple[int, ...], stride: tuple[int, ...], offset: int) -> Tensor:
        data = x.array
        positions = offset + sum(
            (
                np.arange(n).reshape((-1,) + (1,) * (len(size) - k - 1)) * s
                for k, (n, s) in enumerate(zip(size, stride))
            ),
            np.zeros((), dtype=np.int64),
        )
        positions = np.broadcast_to(positions, size).astype(np.int64)
        ctx.args = (positions, np.arange(data.size).reshape(data.shape), data.size)
        if (
            data.flags.c_contiguous and positions.size
        ):  # its elements in row-major order are its memory: a view, as torch's
            item = data.itemsize
            return as_tensor(strided_view(data.reshape(-1)[offset:], size, tuple(s * item for s in stride)))
        return as_tensor(np.ascontiguousarray(data).reshape(-1)[positions])

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None]:
        positions, own, size = ctx.args
        return StorageMap.apply(grad, own, positions, size), None, None, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, *_: None) -> Tensor:
        positions, own, size = ctx.args
        return StorageMap.apply(tx, positions, own, size)

    @staticmethod
    def vmap(
        info: Any, in_dims: tuple[Any, ...], x: Tensor, size: tuple[int, ...], stride: tuple[int, ...], offset: int
    ) -> tuple[Tensor, int]:
        """Each sample read from its own storage (as torch's rule does): the batch is one more
        dimension, whose stride is the number of elements of a sample."""
        n = int(np.prod(x.shape[1:], dtype=np.int64))
        return AsStrided.apply(x, (x.shape[0], *size), (n, *stride), offset), 0


def as_strided(input: Tensor, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None) -> Tensor:
    """The tensor of shape ``size`` that reads ``input``'s elements (in row-major order) with
    the given element ``stride`` per dimension, from ``storage_offset``: a view of a contiguous
    ``input`` (its elements in row-major order are its memory), else a copy.

    >>> import ctxgrad
    >>> ctxgrad.arange(6).as_strided((2, 2), (1, 2)).tolist()
    [[0, 2], [1, 3]]
    """
    sz = tuple(int(s) for s in size)
    st = tuple(int(s) for s in stride)
    if len(sz) != len(st):
        raise RuntimeError("mismatch in length of strides and shape")
    if any(s < 0 for s in st):
        raise RuntimeError(
            "as_strided: Negative strides are not supported at the moment, got strides: " + str(list(st))
        )
    offset = 0 if storage_offset is None else int(storage_offset)
    n = input.array.size
    needed = offset + 1 + sum((a - 1) * b for a, b in zip(sz, st)) if all(sz) else 0
    if needed > n:
        itemsize = input.array.dtype.itemsize
        raise RuntimeError(
            f"setStorage: sizes {list(sz)}, strides {list(st)}, storage offset {offset}, and itemsize {itemsize} "
            f"requiring a storage size of {needed * itemsize} are out of bounds for storage of size {n * itemsize}"
        )
    return AsStrided.apply(input, sz, st, offset)


class AsStridedScatter(PutFlat):
    node_name = "AsStridedScatterBackward0"


def as_strided_scatter(
    input: Tensor, src: Tensor, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None
) -> Tensor:
    """A copy of ``input`` with ``src`` written where ``input.as_strided(size, stride,
    storage_offset)`` reads (the elements taken in row-major order, as :func:`as_strided`).

    >>> import ctxgrad
    >>> ctxgrad.as_strided_scatter(ctxgrad.zeros(3, 3), ctxgrad.ones(2), (2,), (4,), 1).tolist()
    [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0], [0.0, 0.0, 0.0]]
    """
    positions = as_tensor(np.arange(input.array.size).reshape(input.array.shape))
    where = as_strided(positions, size, stride, storage_offset).array  # as_strided's checks, on positions
    return embedded(AsStridedScatter, input, src, where)

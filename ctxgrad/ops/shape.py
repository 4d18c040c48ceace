"""Shape ops that keep the elements in place: views and reshapes.

``reshape`` and ``view``, ``permute`` (``t``, ``transpose``, ``movedim``, ``T``, ``mT``,
``mH``), ``expand`` and ``broadcast_to``, ``squeeze`` and ``unsqueeze``, ``flatten`` and
``unflatten``, ``narrow``, and the strided views (``unfold``, ``as_strided``).  The ops that
join and split tensors are in :mod:`ctxgrad.ops.joining`; the reordering copies, triangles
and diagonals in :mod:`ctxgrad.ops.reordering`.

Each returns a NumPy view where NumPy can make one (torch returns a view there too), and ``apply`` links
such an output to its input's version counter, so an in-place change of either is seen
by every graph that saved the other."""

from __future__ import annotations

import functools
import warnings
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np

from ctxgrad._dtypes import to_dtype
from ctxgrad._tensor import Size, Tensor, _wrap_dim, as_tensor
from ctxgrad.autograd.batching import (
    VmapInfo,
    dims_rule,
    into_zeros_rule,
    loop_over_samples,
    only_first_batched,
    shift_dims,
    unary_rule,
)
from ctxgrad.autograd.errors import ReshapeSizeError
from ctxgrad.autograd.function import Function
from ctxgrad.autograd.grad_mode import is_recording
from ctxgrad.ops._row import Op
from ctxgrad.ops._strided import strided_view
from ctxgrad.ops._util import UNSET, missing, shape_arg, sizes_arg
from ctxgrad.ops.complex_numbers import Conj
from ctxgrad.ops.index_ops import embedded
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


def pad_sample(x: Tensor, n: int) -> Tensor:
    """A batch whose samples have fewer than ``n`` dimensions given leading ones of size 1."""
    k = x.ndim - 1
    return x if k >= n else x.reshape((x.shape[0],) + (1,) * (n - k) + tuple(x.shape[1:]))


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


# (remembered: permutes run in every backward of a matrix product, and checking and inverting
# the same few tuples again each time cost more than the view itself)
@functools.lru_cache(maxsize=4096)
def _inverse_permutation(dims: tuple[int, ...], ndim: int) -> tuple[int, ...]:
    """The permutation undoing ``dims``, checked to be one of ``range(ndim)``."""
    if sorted(dims) != list(range(ndim)):
        raise RuntimeError(
            f"permute(sparse_coo): number of dimensions in the tensor input does not match the length "
            f"of the desired ordering of dimensions i.e. input.dim() = {ndim} is not equal to "
            f"len(dims) = {len(dims)}"
            if len(dims) != ndim
            else f"permute(): duplicate dims are not allowed in {list(dims)}"
        )
    inverse = [0] * ndim
    for position, dim in enumerate(dims):
        inverse[dim] = position
    return tuple(inverse)


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
        ctx.dims = dims
        ctx.inverse = _inverse_permutation(dims if type(dims) is tuple else tuple(dims), data.ndim)
        return as_tensor(data.transpose(dims))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        if not is_recording() and type(grad) is Tensor:
            # Nothing records: the same view of the gradient's array, without a view op's
            # bookkeeping (every ``linear`` passes here, through its ``weight.t()``).
            return as_tensor(grad.array.transpose(ctx.inverse)), None
        return Permute.apply(grad, ctx.inverse), None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: None) -> Tensor:
        return Permute.apply(tx, ctx.dims)


class Expand(Function[Tensor]):
    """A broadcast view with the given sizes (``-1`` keeps a dimension).

    Its backward returns the gradient as it is, and the engine sums the broadcast dimensions away."""

    @classmethod
    def vmap(cls, info: VmapInfo, in_dims: tuple[Any, ...], x: Tensor, sizes: tuple[int, ...]) -> tuple[Any, Any]:
        """The batch given the sample's new leading dimensions, then expanded with its size in front."""
        if not only_first_batched(in_dims):
            return loop_over_samples(cls, info, in_dims, x, sizes)
        return cls.apply(pad_sample(x, len(sizes)), (x.shape[0], *sizes)), 0

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
def at_dim(dim: int, index: Any) -> tuple[Any, ...]:
    """A NumPy index that takes ``index`` along dimension ``dim`` and everything elsewhere
    (ending in ``...``, so that even a single element comes back as a 0-d view)."""
    return (slice(None),) * dim + (index, Ellipsis)


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
    """``length`` elements from ``start`` along ``dim`` (a view; ``start`` may be negative or a tensor).

    The gradient is the output's gradient placed into zeros of the input's shape (:class:`NarrowGrad`)."""

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
        return as_tensor(data[at_dim(dim, slice(start, start + length))])

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
        out[at_dim(dim, slice(start, start + length))] = g
        return as_tensor(out)

    @staticmethod
    def backward(ctx: Any, gg: Tensor) -> tuple[Tensor, None, None, None, None]:
        _, dim, start, length = ctx.args
        return Narrow.apply(gg, dim, start, length), None, None, None, None

    @staticmethod
    def jvp(ctx: Any, tg: Tensor, *_: None) -> Tensor:
        return NarrowGrad.apply(tg, *ctx.args)


def wrap_unique_dims(dims: tuple[int, ...], ndim: int) -> tuple[int, ...]:
    """``dims`` wrapped for a tensor of ``ndim`` dimensions; torch's error for a repeated one."""
    wrapped = tuple(_wrap_dim(d, ndim) for d in dims)
    seen: set[int] = set()
    for d in wrapped:
        if d in seen:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        seen.add(d)
    return wrapped


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
# Each op's row (ROWS, at the end) makes its frontend from its Function and, where torch's
# arguments need work, an argument handler (``reshape_args``) that returns the Function's
# arguments; a frontend written here chooses between Functions or is a view op made in place
# (``t_``).  A ``*_method`` frontend is the Tensor method where torch's method takes other
# arguments (``x.reshape(2, 3)`` beside ``ctxgrad.reshape(x, (2, 3))``).


# torch names some overloads' nodes apart: a subclass that declares torch's node_name.
class Transpose(Permute):
    node_name = "TransposeBackward0"


class TransposeT(Permute):
    node_name = "TBackward0"


class SqueezeDim(Squeeze):
    node_name = "SqueezeBackward1"


class SqueezeDims(Squeeze):
    node_name = "SqueezeBackward2"


def reshape_args(name: str, input: Tensor, shape: Any) -> tuple[Tensor, tuple[int, ...]]:
    """The arguments of :class:`Reshape` for ``reshape(input, shape)``."""
    return input, shape_arg((shape,))


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


def other_shape_args(name: str, input: Tensor, other: Tensor) -> tuple[Tensor, tuple[int, ...]]:
    """The arguments of ``view_as``, ``reshape_as`` and ``expand_as``: ``other``'s shape."""
    return input, tuple(other.array.shape)


def expand_args(
    name: str, input: Tensor, *sizes: Any, size: Any = None, implicit: bool = False
) -> tuple[Tensor, tuple[int, ...]]:
    """The arguments of :class:`Expand` for ``x.expand(*sizes)`` (``-1`` keeps a dimension).
    (``implicit`` is torch's mark for an expansion its tracer inserted; it changes nothing.)"""
    return input, shape_arg(sizes) if size is None else sizes_arg(sizes, size, name, "size")


def t(input: Tensor) -> Tensor:
    """Transpose a tensor of at most two dimensions."""
    n = input.array.ndim
    if n > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {n}D")
    return TransposeT.apply(input, _REVERSED[n])


_REVERSED = ((), (0,), (1, 0))  # t()'s dimensions, by rank


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


def permute_args(name: str, input: Tensor, dims: Any) -> tuple[Tensor, tuple[int, ...]]:
    """The arguments of :class:`Permute` for ``permute(input, dims)``: the dimensions wrapped."""
    n = input.array.ndim
    return input, tuple(_wrap_dim(d, n) for d in shape_arg((dims,)))


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


def unflatten_args(
    name: str, input: Tensor, dim: int = UNSET, sizes: Sequence[int] = UNSET
) -> tuple[Tensor, tuple[int, ...]]:
    """The arguments of :class:`Reshape` for ``unflatten``: dimension ``dim`` split into
    ``sizes`` (one of them may be -1).  (``dim`` has a default because the row's ``axis=`` may
    give it instead.)"""
    if dim is UNSET or sizes is UNSET:
        raise missing(name, dim=dim, sizes=sizes)
    return input, _unflattened(input, dim, sizes)


def unflatten_method(input: Tensor, dim: int, sizes: Sequence[int]) -> Tensor:
    """Split dimension ``dim`` into ``sizes`` (one of them may be -1); torch's method, a Python
    function, takes no ``axis=``."""
    return Reshape.apply(input, _unflattened(input, dim, sizes))


def _unflattened(input: Tensor, dim: int, sizes: Sequence[int]) -> tuple[int, ...]:
    """``input``'s shape with dimension ``dim`` split into ``sizes``, with torch's errors."""
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
    unflattened: tuple[int, ...] = shape[:d] + resolved + shape[d + 1 :]
    return unflattened


def squeeze(input: Tensor, dim: int | Sequence[int] | None = None) -> Tensor:
    """Drop dimensions of size 1: all of them, or those of ``dim`` that are 1 (a view)."""
    n = input.array.ndim
    if dim is None:
        return Squeeze.apply(input, None)
    if isinstance(dim, (int, np.integer)):
        return SqueezeDim.apply(input, (_wrap_dim(dim, n),))
    return SqueezeDims.apply(input, wrap_unique_dims(tuple(int(d) for d in dim), n))


def unsqueeze(input: Tensor, dim: int = UNSET) -> Tensor:
    """Insert a dimension of size 1 at ``dim`` (a view); ``dim`` counts the dimensions of the result.
    (``dim`` has a default because the row's ``axis=`` may give it instead.)"""
    if dim is UNSET:
        raise missing("unsqueeze", dim=dim)
    if not isinstance(dim, (int, np.integer)):
        raise TypeError(f"unsqueeze(): argument 'dim' (position 1) must be int, not {type(dim).__name__}")
    return Unsqueeze.apply(input, _wrap_dim(dim, input.array.ndim + 1))


def movedim_args(
    name: str, input: Tensor, source: int | Sequence[int], destination: int | Sequence[int]
) -> tuple[Tensor, tuple[int, ...]]:
    """The arguments of :class:`Permute` for ``movedim``/``moveaxis``: dimensions ``source``
    moved to positions ``destination``, the others keeping their order (``PermuteBackward0``,
    as in torch)."""
    n = input.array.ndim
    src_int = isinstance(source, (int, np.integer))
    dst_int = isinstance(destination, (int, np.integer))
    if src_int != dst_int:
        raise TypeError(
            f"{name}() received an invalid combination of arguments - got ({type(source).__name__}, "
            f"{type(destination).__name__}), but expected one of:\n * (int source, int destination)\n"
            " * (tuple of ints source, tuple of ints destination)"
        )
    src = (int(source),) if isinstance(source, (int, np.integer)) else tuple(int(s) for s in source)
    dst = (int(destination),) if isinstance(destination, (int, np.integer)) else tuple(int(s) for s in destination)
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
    return input, tuple(order)


def broadcast_to_args(name: str, input: Tensor, size: Any) -> tuple[Tensor, tuple[int, ...]]:
    """The arguments of :class:`Expand` for ``broadcast_to(input, size)``."""
    return input, sizes_arg((size,), None, name, "size")


def broadcast_to_method(input: Tensor, *args: Any, size: Any = None) -> Tensor:
    """A broadcast view with shape ``size`` (``expand``)."""
    return Expand.apply(input, sizes_arg(args, size, "broadcast_to", "size"))


def narrow_args(
    name: str, input: Tensor, dim: int = UNSET, start: Any = UNSET, length: int = UNSET
) -> tuple[Tensor, int, int, int]:
    """The arguments of :class:`Narrow`: ``start`` may be negative or a tensor.  (``dim`` has a
    default because the row's ``axis=`` may give it instead.)"""
    if dim is UNSET or start is UNSET or length is UNSET:
        raise missing(name, dim=dim, start=start, length=length)
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
    return input, d, begin, length


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


# --------------------------------------------------------------------------- properties
# Tensor.T, Tensor.mT and Tensor.mH (attached as properties: rows with property=True).
def reversed_dims_args(name: str, input: Tensor) -> tuple[Tensor, tuple[int, ...]]:
    """The arguments of :class:`Permute` for ``Tensor.T``: the dimensions reversed."""
    return input, tuple(range(input.dim() - 1, -1, -1))


def matrix_transpose_args(name: str, input: Tensor) -> tuple[Tensor, tuple[int, ...]]:
    """The arguments of :class:`Transpose` for ``Tensor.mT``: the last two dimensions swapped."""
    n = input.dim()
    if n < 2:
        raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. Got {n}-D tensor.")
    return input, swapped_dims(n, n - 2, n - 1)


def _adjoint(input: Tensor, name: str) -> Tensor:
    n = input.dim()
    if n < 2:
        raise RuntimeError(f"{name} is only supported on matrices or batches of matrices. Got {n}-D tensor.")
    swapped = _swap(input, -2, -1)
    return Conj.apply(swapped) if input.is_complex() else swapped


def matrix_adjoint(input: Tensor) -> Tensor:
    """The last two dimensions swapped and conjugated (for real tensors, ``mT``): ``Tensor.mH``."""
    return _adjoint(input, "tensor.mH")


def conjugate_transpose(input: Tensor) -> Tensor:
    """``Tensor.H``: a matrix transposed and conjugated (a 0-d tensor: conjugated, with
    torch's deprecation warning; other ranks are torch's errors)."""
    n = input.dim()
    if n == 0:
        warnings.warn("Tensor.H is deprecated on 0-D tensors. Consider using x.conj().", UserWarning, stacklevel=2)
        return Conj.apply(input) if input.is_complex() else input
    if n != 2:
        batches = " For batches of matrices, consider using tensor.mH" if n > 2 else ""
        raise RuntimeError(f"tensor.H is only supported on matrices (2-D tensors). Got {n}-D tensor.{batches}")
    return _adjoint(input, "tensor.H")


def adjoint(input: Tensor) -> Tensor:
    """The last two dimensions swapped and conjugated, a view (``Tensor.mH`` as a function)."""
    return _adjoint(input, "tensor.adjoint()")


def ravel_args(name: str, input: Tensor) -> tuple[Tensor, tuple[int, ...]]:
    """The arguments of :class:`Reshape` for ``ravel``: one dimension."""
    return input, (-1,)


def swapped_dims(n: int, d0: int, d1: int) -> tuple[int, ...]:
    perm = list(range(n))
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return tuple(perm)


def narrow_copy(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    """``narrow`` as a new tensor (a copy, not a view)."""
    return Narrow.apply(*narrow_args("narrow_copy", input, dim, start, length)).clone()


# --------------------------------------------------------------------------- strided views
class Unfold(Function[Tensor]):
    """Windows of ``size`` elements along ``dimension``, ``step`` apart, as a new last dimension (a view).

    The windows may overlap; the gradient adds each window's gradient back.

    >>> import ctxgrad
    >>> ctxgrad.arange(5).unfold(0, 2, 2).tolist()
    [[0, 1], [2, 3]]
    """

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
        windows = np.lib.stride_tricks.sliding_window_view(data, size, axis=dim)[at_dim(dim, slice(None, None, step))]
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


def unfold_args(name: str, input: Tensor, dimension: int, size: int, step: int) -> tuple[Tensor, int, int, int]:
    """The arguments of :class:`Unfold`: the dimension wrapped, the window checked."""
    n = input.array.ndim
    d = _wrap_dim(dimension, max(n, 1)) if n else 0
    extent = input.array.shape[d] if n else 1
    if int(size) > extent:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {extent} but size is {size}")
    if int(size) < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if int(step) <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    return input, d, int(size), int(step)


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
    """The tensor of shape ``size`` that reads ``input``'s elements with the given ``stride``.

    It reads the elements of ``x``'s row-major storage at ``storage_offset + sum(i_k *
    stride_k)`` for every index ``i`` of ``size``: a view of a contiguous ``x`` (its elements
    in row-major order are its memory), else a copy.  The gradient adds each output's
    gradient to the input element it read.

    >>> import ctxgrad
    >>> ctxgrad.arange(6).as_strided((2, 2), (1, 2)).tolist()
    [[0, 2], [1, 3]]
    """

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


def as_strided_args(
    name: str, input: Tensor, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None
) -> tuple[Tensor, tuple[int, ...], tuple[int, ...], int]:
    """The arguments of :class:`AsStrided`, checked as torch checks them (the storage must hold
    every element read)."""
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
    return input, sz, st, offset


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
    # as_strided's checks and positions, read from a tensor of the positions
    where = AsStrided.apply(*as_strided_args("as_strided", positions, size, stride, storage_offset)).array
    return embedded(AsStridedScatter, input, src, where)


ROWS: list[Op] = [
    Op("reshape", Reshape, args=reshape_args, method_frontend=reshape_method),
    Op("view", view, function=False),
    Op("view_as", View, args=other_shape_args, function=False),
    Op("reshape_as", Reshape, args=other_shape_args, function=False),
    Op("expand", Expand, args=expand_args, function=False),
    Op("expand_as", Expand, args=other_shape_args, function=False),
    Op("t", t, view=True, inplace=True),
    Op("transpose", transpose, view=True, inplace=True),
    Op("permute", Permute, args=permute_args, method_frontend=permute_method),
    Op("flatten", flatten),
    Op("unflatten", Reshape, args=unflatten_args, method_frontend=unflatten_method, numpy_dims=True),
    Op("squeeze", squeeze, view=True, inplace=True, numpy_dims=True),
    Op("unsqueeze", unsqueeze, view=True, inplace=True, numpy_dims=True),
    Op("swapaxes", swapaxes, view=True, inplace=True),
    Op("swapdims", swapdims, view=True, inplace=True),
    Op("movedim", Permute, args=movedim_args),
    Op("moveaxis", Permute, args=movedim_args),
    Op("broadcast_to", Expand, args=broadcast_to_args, method_frontend=broadcast_to_method),
    Op("narrow", Narrow, args=narrow_args, numpy_dims=True),
    Op("broadcast_tensors", broadcast_tensors, method=False),
    Op("broadcast_shapes", broadcast_shapes, method=False),
    Op("ravel", Reshape, args=ravel_args),
    Op("narrow_copy", narrow_copy, out=True),
    Op("unfold", Unfold, args=unfold_args, function=False),
    Op("as_strided", AsStrided, args=as_strided_args),
    Op("T", Permute, args=reversed_dims_args, function=False, property=True),
    Op("mT", Transpose, args=matrix_transpose_args, function=False, property=True),
    Op("mH", matrix_adjoint, function=False, property=True),
    Op("H", conjugate_transpose, function=False, property=True),
    Op("adjoint", adjoint),
    Op("as_strided_scatter", as_strided_scatter),
]

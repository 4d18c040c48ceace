"""Function forms of the ops that are not (yet) rows of the op table (``ctxgrad/ops/table.py``):
the functions of several tensors (``cat``, ``stack``, ``einsum``, ...), ``split`` (torch's
function names its first parameter ``tensor``), and those whose family is not migrated yet."""

from __future__ import annotations

from typing import Any

from ctxgrad._tensor import Tensor

# --------------------------------------------------------------------------- linear algebra


def einsum(*args: Any) -> Tensor:
    """Einstein summation: ``einsum("ij,jk->ik", a, b)``, ``einsum("ij,jk", [a, b])`` or the
    sublist form ``einsum(a, [0, 1], b, [1, 2], [0, 2])``.

    Supports ``...``, implicit output (the letters that appear once, in alphabetical order),
    repeated letters within an operand (diagonals, traces) and torch's broadcasting of
    size-1 dimensions.
    """
    from ctxgrad.ops.linalg import einsum as _einsum
    from ctxgrad.ops.linalg import einsum_args

    equation, operands = einsum_args(args)
    return _einsum(equation, *operands)


def tensordot(a: Tensor, b: Tensor, dims: Any = 2) -> Tensor:
    """Contract the last ``dims`` dimensions of ``a`` with the first ``dims`` of ``b``, or the
    dimensions listed in ``dims = (dims_a, dims_b)``."""
    from ctxgrad.ops.linalg import tensordot as _tensordot

    return _tensordot(a, b, dims)


# --------------------------------------------------------------------------- shape and views


def split(tensor: Tensor, split_size_or_sections: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """Pieces along ``dim``: of one size (the last may be smaller) or of the listed sizes."""
    return tensor.split(split_size_or_sections, dim)


def _numpy_dim(name: str, dim: int, axis: int | None) -> int:
    """``dim``, or NumPy's name for it, ``axis=``, which torch takes in its place (not beside it)."""
    if axis is None:
        return dim
    if dim != 0:
        raise TypeError(f"{name}() got an unexpected keyword argument 'axis'")
    return axis


def cat(tensors: Any, dim: int = 0, *, axis: int | None = None) -> Tensor:
    """Join tensors along dimension ``dim`` (dtypes promoted; 1-D empty tensors skipped, as in
    torch).  ``axis=`` is NumPy's name for ``dim``, which torch also takes."""
    from ctxgrad.ops.shape import Cat, tensor_list

    dim = _numpy_dim("cat", dim, axis)
    ts = tensor_list(tensors, "cat")
    if not ts:
        raise ValueError("ctxgrad.cat(): expected a non-empty list of Tensors")
    return Cat.apply(int(dim), *ts)


def concat(tensors: Any, dim: int = 0, *, axis: int | None = None) -> Tensor:
    """``cat``."""
    return cat(tensors, _numpy_dim("concat", dim, axis))


def concatenate(tensors: Any, axis: int = 0, *, dim: int | None = None) -> Tensor:
    """``cat`` with NumPy's keyword (``axis``)."""
    return cat(tensors, axis if dim is None else dim)


def stack(tensors: Any, dim: int = 0, *, axis: int | None = None) -> Tensor:
    """Join tensors of one shape along a new dimension ``dim`` (or NumPy's ``axis=``)."""
    from ctxgrad.ops.shape import Stack, tensor_list

    dim = _numpy_dim("stack", dim, axis)
    ts = tensor_list(tensors, "stack")
    if not ts:
        raise RuntimeError("stack expects a non-empty TensorList")
    return Stack.apply(int(dim), *ts)


def hstack(tensors: Any) -> Tensor:
    """Join along dimension 1 (dimension 0 for 1-D tensors); 0-d tensors count as 1-D."""
    from ctxgrad.ops.shape import tensor_list

    ts = tensor_list(tensors, "hstack")
    if not ts:
        raise RuntimeError("hstack expects a non-empty TensorList")
    ts = [t.reshape(1) if t.ndim == 0 else t for t in ts]
    return cat(ts, 0 if ts[0].ndim == 1 else 1)


def vstack(tensors: Any) -> Tensor:
    """Join along dimension 0, after making 0-d and 1-D tensors rows (``1 x n``)."""
    from ctxgrad.ops.shape import tensor_list

    ts = tensor_list(tensors, "vstack")
    if not ts:
        raise RuntimeError("vstack expects a non-empty TensorList")
    ts = [t.reshape(1, 1) if t.ndim == 0 else t.unsqueeze(0) if t.ndim == 1 else t for t in ts]
    return cat(ts, 0)


def broadcast_tensors(*tensors: Tensor) -> tuple[Tensor, ...]:
    """The tensors broadcast to their common shape (views; a tensor of that shape as it is)."""
    from ctxgrad.ops.shape import broadcast_tensors as _broadcast_tensors

    return _broadcast_tensors(tensors)


def broadcast_shapes(*shapes: Any) -> Any:
    """The shape (a ``ctxgrad.Size``) that tensors of the given shapes broadcast to."""
    from ctxgrad._tensor import Size
    from ctxgrad.ops.shape import broadcast_shapes as _broadcast_shapes

    return Size(_broadcast_shapes(*shapes))


# --------------------------------------------------------------------------- indexing, sorting and construction

"""Shape ops: ``reshape``, ``view``, ``permute`` (``t``, ``transpose``) and ``expand``.

Each returns a NumPy view where NumPy can make one, and ``apply`` links
such an output to its input's version counter, so an in-place change of either is seen
by every graph that saved the other."""

from __future__ import annotations

from typing import Any

import numpy as np

from ctxgrad._tensor import Tensor
from ctxgrad.autograd.function import Function
from ctxgrad.ops._util import wrap


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
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    if known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


class Reshape(Function[Tensor]):
    """The same elements in a new shape: a view when the layout allows, else a copy."""

    _backward_name = "ViewBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor, shape: tuple[int, ...]) -> Tensor:
        data = x._data
        ctx.shape = data.shape
        ctx.out_shape = target = _resolve_shape(shape, data.size)
        return wrap(np.reshape(data, target))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return grad.reshape(ctx.shape), None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: None) -> Tensor:
        return tx.reshape(ctx.out_shape)


class View(Reshape):
    """Like ``reshape`` but never copies: torch's error where no view is possible."""

    _backward_name = "ViewBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor, shape: tuple[int, ...]) -> Tensor:
        data = x._data
        ctx.shape = data.shape
        ctx.out_shape = target = _resolve_shape(shape, data.size)
        try:
            return wrap(np.reshape(data, target, copy=False))
        except ValueError:
            raise RuntimeError(
                "view size is not compatible with input tensor's size and stride (at least one dimension "
                "spans across two contiguous subspaces). Use .reshape(...) instead."
            ) from None


class ViewDtype(Function[Tensor]):
    """The same bytes read as another dtype of the same size (``x.view(ctxgrad.int32)``)."""

    _backward_name = "ViewBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor, dtype: np.dtype[Any]) -> Tensor:
        data = x._data
        if dtype.itemsize != data.dtype.itemsize:
            raise RuntimeError(
                f"ctxgrad's view(dtype) needs a dtype of the same size: {data.dtype} has {data.dtype.itemsize} "
                f"bytes per element, {dtype} has {dtype.itemsize}"
            )
        ctx.dtype = data.dtype
        ctx.out_dtype = dtype
        return wrap(data.view(dtype))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return ViewDtype.apply(grad, ctx.dtype), None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: None) -> Tensor:
        return ViewDtype.apply(tx, ctx.out_dtype)


class Permute(Function[Tensor]):
    """Reorder dimensions; the gradient is permuted back by the inverse order."""

    _backward_name = "PermuteBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor, dims: tuple[int, ...]) -> Tensor:
        if sorted(dims) != list(range(x._data.ndim)):
            raise RuntimeError(
                f"permute(sparse_coo): number of dimensions in the tensor input does not match the length "
                f"of the desired ordering of dimensions i.e. input.dim() = {x._data.ndim} is not equal to "
                f"len(dims) = {len(dims)}"
                if len(dims) != x._data.ndim
                else f"permute(): duplicate dims are not allowed in {list(dims)}"
            )
        ctx.dims = dims
        ctx.inverse = tuple(int(i) for i in np.argsort(dims))
        return wrap(np.transpose(x._data, dims))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return Permute.apply(grad, ctx.inverse), None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: None) -> Tensor:
        return Permute.apply(tx, ctx.dims)


class Transpose(Permute):
    """Swap two dimensions (``transpose``, ``mT``)."""

    _backward_name = "TransposeBackward0"


class T(Permute):
    """Reverse the dimensions of a tensor of at most 2 (``t()``)."""

    _backward_name = "TBackward0"


class Expand(Function[Tensor]):
    """A broadcast view; its backward returns the gradient as it is, and the engine sums
    the broadcast dimensions away."""

    _backward_name = "ExpandBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor, sizes: tuple[int, ...]) -> Tensor:
        shape = x._data.shape
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
                        f"The expanded size of the tensor ({s}) isn't allowed in a leading, non-existing "
                        f"dimension {i}"
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
        return wrap(np.broadcast_to(x._data, ctx.target))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return grad, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: None) -> Tensor:
        return Expand.apply(tx, ctx.target)

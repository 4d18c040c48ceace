"""The einops backend for ctxgrad tensors: ``einops.rearrange``, ``reduce``, ``repeat``,
``einsum``, ``pack`` and ``unpack`` work on them, with gradients, when einops is installed.

einops finds a backend by looking through the subclasses of its ``AbstractBackend`` for one
whose ``framework_name`` is an imported module; ``import ctxgrad`` imports this module when
einops is installed, which defines :class:`CtxgradBackend`, and einops does the rest.  Every
method is a ctxgrad op (``reshape``, ``permute``, ``sum``, ``expand``, ...), so the result of
an einops call is differentiable as the ops it is made of::

    import einops
    import ctxgrad

    x = ctxgrad.randn(2, 3, 4, requires_grad=True)
    y = einops.rearrange(x, "b c d -> b (c d)")
    einops.reduce(y, "b n -> b", "mean").sum().backward()   # x.grad is 1/12 everywhere
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ctxgrad._factories import arange, from_numpy
from ctxgrad._tensor import Tensor
from ctxgrad.ops.shape import cat, stack
from ctxgrad.ops.table import frontend

if TYPE_CHECKING:
    AbstractBackend = object
else:
    try:
        from einops._backends import AbstractBackend
    except ImportError:  # einops is not installed: the class is defined but never found
        AbstractBackend = object

__all__ = ["CtxgradBackend"]

_einsum = frontend("einsum")


class CtxgradBackend(AbstractBackend):
    """einops' view of ctxgrad: what each of its primitive operations is in ctxgrad ops."""

    framework_name = "ctxgrad"

    def is_appropriate_type(self, tensor: Any) -> bool:
        return isinstance(tensor, Tensor)

    def from_numpy(self, x: np.ndarray[Any, Any]) -> Tensor:
        variable = from_numpy(x)
        if self.is_float_type(variable):
            variable.requires_grad = True  # as einops' torch backend: its tests differentiate
        return variable

    def to_numpy(self, x: Tensor) -> np.ndarray[Any, Any]:
        return x.detach().numpy()

    def arange(self, start: int, stop: int) -> Tensor:
        return arange(start, stop, dtype=np.int64)

    def shape(self, x: Tensor) -> tuple[int, ...]:
        return tuple(x.shape)

    def reshape(self, x: Tensor, shape: Any) -> Tensor:
        return x.reshape(tuple(shape))

    def transpose(self, x: Tensor, axes: Any) -> Tensor:
        return x.permute(tuple(axes))

    def reduce(self, x: Tensor, operation: str, reduced_axes: Any) -> Tensor:
        axes = tuple(reduced_axes)
        if operation == "min":
            return x.amin(dim=axes)
        if operation == "max":
            return x.amax(dim=axes)
        if operation == "sum":
            return x.sum(dim=axes)
        if operation == "mean":
            return x.mean(dim=axes)
        if operation in ("any", "all", "prod"):  # one dimension at a time, as torch's
            for axis in sorted(axes, reverse=True):
                x = getattr(x, operation)(dim=axis)
            return x
        raise NotImplementedError(f"Unknown reduction {operation}")

    def stack_on_zeroth_dimension(self, tensors: list[Tensor]) -> Tensor:
        return stack(tensors)

    def add_axis(self, x: Tensor, new_position: int) -> Tensor:
        return x.unsqueeze(new_position)

    def add_axes(self, x: Tensor, n_axes: int, pos2len: dict[int, int]) -> Tensor:
        repeats = [-1] * n_axes
        for axis_position, axis_length in pos2len.items():
            x = self.add_axis(x, axis_position)
            repeats[axis_position] = axis_length
        return x.expand(*repeats)

    def tile(self, x: Tensor, repeats: Any) -> Tensor:
        return x.tile(tuple(repeats))

    def concat(self, tensors: list[Tensor], axis: int) -> Tensor:
        return cat(tensors, dim=axis)

    def is_float_type(self, x: Tensor) -> bool:
        return bool(x.is_floating_point())

    def einsum(self, pattern: str, *x: Tensor) -> Tensor:
        out: Tensor = _einsum(pattern, *x)
        return out

    def layers(self) -> Any:
        raise NotImplementedError("einops has no layers for ctxgrad: use the functions on tensors")

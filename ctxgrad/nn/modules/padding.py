"""Padding layers: each calls :func:`ctxgrad.nn.functional.pad` with its mode.

>>> import ctxgrad
>>> from ctxgrad import nn
>>> nn.ReflectionPad1d(2)(ctxgrad.tensor([[[1.0, 2.0, 3.0]]]))
tensor([[[3., 2., 1., 2., 3., 2., 1.]]])
>>> nn.ZeroPad2d((1, 0, 0, 1))
ZeroPad2d((1, 0, 0, 1))
"""

from __future__ import annotations

from collections.abc import Sequence

from ctxgrad._tensor import Tensor
from ctxgrad.nn import functional as F
from ctxgrad.nn.modules.module import Module

__all__ = [
    "CircularPad1d",
    "CircularPad2d",
    "CircularPad3d",
    "ConstantPad1d",
    "ConstantPad2d",
    "ConstantPad3d",
    "ReflectionPad1d",
    "ReflectionPad2d",
    "ReflectionPad3d",
    "ReplicationPad1d",
    "ReplicationPad2d",
    "ReplicationPad3d",
    "ZeroPad1d",
    "ZeroPad2d",
    "ZeroPad3d",
]


def _amounts(padding: int | Sequence[int], dims: int) -> tuple[int, ...]:
    """An int as the same amount on both sides of each of ``dims`` dimensions, or the tuple as given."""
    if isinstance(padding, int):
        return (padding,) * (2 * dims)
    amounts = tuple(int(p) for p in padding)
    if len(amounts) != 2 * dims:
        raise ValueError(f"padding must be an int or a tuple of {2 * dims} ints, got {len(amounts)}")
    return amounts


class _PadNd(Module):
    """A padding layer: ``mode`` and the number of padded dimensions come from the subclass."""

    mode = "constant"
    dims = 1

    def __init__(self, padding: int | Sequence[int]) -> None:
        super().__init__()
        self.padding = _amounts(padding, self.dims)

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, self.mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding: int | Sequence[int], value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pad the last dimension with ``value``: ``padding`` an int or ``(left, right)``."""

    dims = 1


class ConstantPad2d(_ConstantPadNd):
    """Pad the last two dimensions with ``value``: ``(left, right, top, bottom)``."""

    dims = 2


class ConstantPad3d(_ConstantPadNd):
    """Pad the last three dimensions with ``value``: ``(left, right, top, bottom, front, back)``."""

    dims = 3


class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding: int | Sequence[int]) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad1d(_ZeroPadNd):
    """Pad the last dimension with zeros."""

    dims = 1


class ZeroPad2d(_ZeroPadNd):
    """Pad the last two dimensions with zeros: ``(left, right, top, bottom)``."""

    dims = 2


class ZeroPad3d(_ZeroPadNd):
    """Pad the last three dimensions with zeros."""

    dims = 3


class ReflectionPad1d(_PadNd):
    """Pad the last dimension with its mirror image, the edge not repeated."""

    mode = "reflect"
    dims = 1


class ReflectionPad2d(_PadNd):
    """Pad the last two dimensions with their mirror image, the edge not repeated."""

    mode = "reflect"
    dims = 2


class ReflectionPad3d(_PadNd):
    """Pad the last three dimensions with their mirror image, the edge not repeated."""

    mode = "reflect"
    dims = 3


class ReplicationPad1d(_PadNd):
    """Pad the last dimension by repeating its edge values."""

    mode = "replicate"
    dims = 1


class ReplicationPad2d(_PadNd):
    """Pad the last two dimensions by repeating their edge values."""

    mode = "replicate"
    dims = 2


class ReplicationPad3d(_PadNd):
    """Pad the last three dimensions by repeating their edge values."""

    mode = "replicate"
    dims = 3


class CircularPad1d(_PadNd):
    """Pad the last dimension by wrapping around."""

    mode = "circular"
    dims = 1


class CircularPad2d(_PadNd):
    """Pad the last two dimensions by wrapping around."""

    mode = "circular"
    dims = 2


class CircularPad3d(_PadNd):
    """Pad the last three dimensions by wrapping around."""

    mode = "circular"
    dims = 3

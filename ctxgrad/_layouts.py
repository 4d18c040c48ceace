"""torch's layout and memory-format flags: ``strided`` (every ctxgrad tensor's layout) and
``contiguous_format``, ``preserve_format``, ``channels_last``, ``channels_last_3d``.

A memory format says how a 4-d (5-d) tensor's elements are ordered in memory; the values are
the same in every format.  NumPy arrays have strides as torch's tensors do, so ``contiguous``,
``to``, ``clone`` and the ``*_like`` factories lay their results out as torch does
(``channels_last``: the channel dimension last in memory, ``stride() == (H*W*C, 1, W*C, C)``),
and ``is_contiguous(memory_format=...)`` answers as torch's.

>>> import ctxgrad
>>> x = ctxgrad.zeros(1, 2, 3, 4).contiguous(memory_format=ctxgrad.channels_last)
>>> x.stride(), x.is_contiguous(), x.is_contiguous(memory_format=ctxgrad.channels_last)
((24, 1, 8, 2), False, True)
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = [
    "channels_last",
    "channels_last_3d",
    "checked",
    "contiguous_format",
    "is_contiguous_as",
    "laid_out",
    "layout",
    "memory_format",
    "preserve_format",
    "strided",
]


class layout:
    """A tensor layout, as ``torch.layout``: ctxgrad has one, :data:`strided`."""

    def __init__(self, name: str) -> None:
        self._name = name

    def __repr__(self) -> str:
        return f"ctxgrad.{self._name}"


class memory_format:
    """A memory format, as ``torch.memory_format``: the four module constants."""

    def __init__(self, name: str, dims: tuple[int, ...] | None, rank: int | None) -> None:
        # dims: the order of the dimensions in memory, outermost first (None: row-major)
        self._name, self._dims, self._rank = name, dims, rank

    def __repr__(self) -> str:
        return f"ctxgrad.{self._name}"

    @property
    def torch_name(self) -> str:
        """The name torch's C++ messages give the format (``ChannelsLast``)."""
        return "".join(part.capitalize() for part in self._name.removesuffix("_format").split("_"))


strided = layout("strided")
contiguous_format = memory_format("contiguous_format", None, None)
preserve_format = memory_format("preserve_format", None, None)
channels_last = memory_format("channels_last", (0, 2, 3, 1), 4)
channels_last_3d = memory_format("channels_last_3d", (0, 2, 3, 4, 1), 5)


def checked(fmt: Any, function: str, shape: tuple[int, ...]) -> memory_format:
    """``fmt`` (None is ``preserve_format``) after torch's checks: its type, and the rank the
    channels-last formats need."""
    if fmt is None:
        return preserve_format
    if not isinstance(fmt, memory_format):
        raise TypeError(
            f"{function}(): argument 'memory_format' must be ctxgrad.memory_format, not {type(fmt).__name__}"
        )
    if fmt._rank is not None and len(shape) != fmt._rank:
        raise RuntimeError(f"required rank {fmt._rank} tensor to use {fmt._name} format")
    return fmt


def laid_out(arr: np.ndarray[Any, Any], fmt: memory_format, like: np.ndarray[Any, Any] | None = None) -> Any:
    """A copy of ``arr`` in ``fmt``'s layout; ``preserve_format`` keeps ``like``'s (default
    ``arr``'s) where it is dense, as torch."""
    if fmt._dims is None:
        if fmt is preserve_format:
            out = np.empty_like(arr if like is None else like, order="K")
            out[...] = arr
            return out
        return np.array(arr, order="C", copy=True)
    dims = fmt._dims
    out = np.empty(tuple(arr.shape[d] for d in dims), dtype=arr.dtype).transpose(np.argsort(dims))
    out[...] = arr
    return out


def is_contiguous_as(arr: np.ndarray[Any, Any], fmt: memory_format) -> bool:
    """Whether ``arr`` is laid out as ``fmt`` says (sizes-1 dimensions may have any stride, as in torch)."""
    if fmt._dims is None or not isinstance(arr, np.ndarray):  # (inside vmap a sample has no memory order)
        return bool(arr.flags.c_contiguous)
    if arr.ndim != fmt._rank:
        return False
    expected = 1
    for d in reversed(fmt._dims):
        if arr.shape[d] != 1 and arr.strides[d] != expected * arr.itemsize:
            return False
        expected *= arr.shape[d]
    return True

"""Memory formats: the layout ``clone`` and the ``*_like`` factories give their result.

``ctxgrad.preserve_format`` (the default, as in torch) keeps the input's layout: a tensor
whose elements fill their memory without gaps or overlaps ("non-overlapping and dense": a
transposed or permuted tensor) is copied with exactly its strides; any other one (a slice
with steps, an expanded tensor) gets dense strides that keep the order of its dimensions in
memory (torch's ``infer_dense_strides``).  ``contiguous_format`` is row-major;
``channels_last`` (4-d) and ``channels_last_3d`` (5-d) put dimension 1 innermost.

>>> import ctxgrad
>>> x = ctxgrad.zeros(4, 6)
>>> x.t().clone().stride(), x.t()[::2].clone().stride(), x.t().clone(memory_format=ctxgrad.contiguous_format).stride()
((1, 6), (1, 3), (4, 1))

``contiguous``, ``to`` and ``is_contiguous(memory_format=...)`` use the same formats, and
``strided`` is every ctxgrad tensor's ``layout``:

>>> y = ctxgrad.zeros(1, 2, 3, 4).contiguous(memory_format=ctxgrad.channels_last)
>>> y.stride(), y.is_contiguous(), y.is_contiguous(memory_format=ctxgrad.channels_last)
((24, 1, 8, 2), False, True)

A layout is made in NumPy as an array over a fresh buffer with those strides.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = [
    "channels_last",
    "channels_last_3d",
    "check_layout",
    "check_memory_format",
    "checked",
    "contiguous_format",
    "copied_for_grad",
    "copy_in_format",
    "empty_in_format",
    "is_contiguous_as",
    "laid_out",
    "layout",
    "memory_format",
    "preserve_format",
    "strided",
]


class layout:
    """A tensor layout, as ``torch.layout``: ctxgrad has one, :data:`strided`."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"ctxgrad.{self.name}"

    def __reduce__(self) -> str:
        return self.name


strided = layout("strided")


def check_layout(value: Any, fn: str) -> None:
    """torch's ``layout=`` keyword of a factory: ``strided`` (or None, the default), the one
    layout ctxgrad has; anything else is refused as torch refuses what is not a layout."""
    if value is None or value is strided:
        return
    if isinstance(value, layout):
        raise RuntimeError(f"{fn}(): ctxgrad has only the strided layout, not {value!r}")
    raise TypeError(f"{fn}(): argument 'layout' must be ctxgrad.layout, not {type(value).__name__}")


class memory_format:  # torch's name, lower case
    """One memory format (``ctxgrad.preserve_format``, ...), as ``torch.memory_format``."""

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"ctxgrad.{self.name}"

    def __reduce__(self) -> str:
        return self.name  # pickled by name: the module-level instance

    @property
    def torch_name(self) -> str:
        """The name torch's C++ messages give the format (``ChannelsLast``)."""
        return "".join(part.capitalize() for part in self.name.removesuffix("_format").split("_"))


preserve_format = memory_format("preserve_format")
contiguous_format = memory_format("contiguous_format")
channels_last = memory_format("channels_last")
channels_last_3d = memory_format("channels_last_3d")

#: The order of the dimensions, outermost first, of the channels-last formats (by rank).
_CHANNELS_LAST = {channels_last: (4, (0, 2, 3, 1)), channels_last_3d: (5, (0, 2, 3, 4, 1))}


def check_memory_format(value: Any, fn: str) -> memory_format:
    """``value`` as a memory format (None is ``preserve_format``), or torch's TypeError."""
    if value is None:
        return preserve_format
    if not isinstance(value, memory_format):
        raise TypeError(f"{fn}(): argument 'memory_format' must be ctxgrad.memory_format, not {type(value).__name__}")
    return value


def checked(value: Any, fn: str, shape: tuple[int, ...]) -> memory_format:
    """``value`` as a memory format after torch's checks: its type, and the rank the
    channels-last formats need."""
    fmt = check_memory_format(value, fn)
    if fmt in _CHANNELS_LAST and len(shape) != _CHANNELS_LAST[fmt][0]:
        raise RuntimeError(f"required rank {_CHANNELS_LAST[fmt][0]} tensor to use {fmt.name} format")
    return fmt


def _element_strides(array: np.ndarray[Any, Any]) -> tuple[int, ...]:
    return tuple(s // array.itemsize for s in array.strides) if array.itemsize else (0,) * array.ndim


def _non_overlapping_and_dense(shape: tuple[int, ...], strides: tuple[int, ...]) -> bool:
    """torch's ``is_non_overlapping_and_dense``: the elements, taken by increasing stride
    (dimensions of length < 2 left out), fill the memory one after the other."""
    required = 1
    for d in sorted((d for d in range(len(shape)) if shape[d] >= 2), key=lambda d: strides[d]):
        if strides[d] != required:
            return False
        required *= shape[d]
    return True


def _dense_strides(shape: tuple[int, ...], strides: tuple[int, ...]) -> tuple[int, ...]:
    """torch's ``infer_dense_strides``: dense strides that keep the order of the dimensions
    in memory (a stable insertion sort by stride, a dimension of stride 0 kept in place, equal
    strides ordered by size)."""
    ndim = len(shape)
    perm = list(reversed(range(ndim)))  # innermost first

    def should_swap(a: int, b: int) -> int:
        if strides[a] == 0 or strides[b] == 0:
            return 0
        if strides[a] != strides[b]:
            return -1 if strides[a] < strides[b] else 1
        return 1 if shape[a] > shape[b] else 0

    for i in range(1, ndim):
        dim1 = i
        for dim0 in reversed(range(i)):
            order = should_swap(perm[dim0], perm[dim1])
            if order > 0:
                perm[dim0], perm[dim1] = perm[dim1], perm[dim0]
                dim1 = dim0
            elif order < 0:
                break
    return _strides_in_order(shape, perm)


def _strides_in_order(shape: tuple[int, ...], innermost_first: list[int]) -> tuple[int, ...]:
    out = [0] * len(shape)
    step = 1
    for d in innermost_first:
        out[d] = step
        step *= max(shape[d], 1)
    return tuple(out)


def _strides_for(array: np.ndarray[Any, Any], fmt: memory_format) -> tuple[int, ...] | None:
    """The element strides of ``array`` copied in ``fmt`` (None: row-major)."""
    shape = array.shape
    if fmt is preserve_format:
        strides = _element_strides(array)
        if strides == _strides_in_order(shape, list(reversed(range(array.ndim)))):
            return None  # row-major already: np.empty gives it
        if all(s >= 0 for s in strides) and _non_overlapping_and_dense(shape, strides):
            return strides
        return _dense_strides(shape, tuple(abs(s) for s in strides))
    if fmt is contiguous_format:
        return None
    rank, order = _CHANNELS_LAST[fmt]
    if array.ndim != rank:
        raise RuntimeError(f"required rank {rank} tensor to use {fmt.name} format")
    return _strides_in_order(shape, list(reversed(order)))


def empty_in_format(like: np.ndarray[Any, Any], fmt: memory_format, dtype: Any = None) -> np.ndarray[Any, Any]:
    """An uninitialised array of ``like``'s shape (and ``dtype``, by default ``like``'s) in
    the layout ``fmt`` gives ``like``."""
    dtype = like.dtype if dtype is None else np.dtype(dtype)
    strides = _strides_for(like, fmt)
    if strides is None or like.size == 0:
        return np.empty(like.shape, dtype)
    buffer = np.empty(like.size, dtype)
    laid_out: np.ndarray[Any, Any] = np.ndarray(
        like.shape, dtype, buffer=buffer, strides=tuple(s * dtype.itemsize for s in strides)
    )
    return laid_out


def copy_in_format(array: np.ndarray[Any, Any], fmt: memory_format) -> np.ndarray[Any, Any]:
    """A copy of ``array`` in the layout ``fmt`` gives it."""
    out = empty_in_format(array, fmt)
    out[...] = array
    return out


def laid_out(array: np.ndarray[Any, Any], fmt: memory_format, like: np.ndarray[Any, Any] | None = None) -> Any:
    """A copy of ``array`` in ``fmt``'s layout; ``preserve_format`` keeps ``like``'s (by
    default ``array``'s)."""
    out = empty_in_format(array if like is None else like, fmt, array.dtype)
    out[...] = array
    return out


def copied_for_grad(grad: np.ndarray[Any, Any], variable: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """A copy of ``grad`` to be ``variable``'s ``.grad``: in ``variable``'s layout where that is
    non-overlapping and dense, else row-major.  This is torch's ``clone_obey_contract``: a
    weight used through ``t()`` gets a row-major ``.grad``, as it is itself, whatever the
    layout of the gradient that reached it (so ``w.grad.view(-1)`` works)."""
    if variable.flags.c_contiguous:
        return np.array(grad, copy=True, order="C")
    strides = _element_strides(variable)
    if variable.size and all(s >= 0 for s in strides) and _non_overlapping_and_dense(variable.shape, strides):
        copied: np.ndarray[Any, Any] = laid_out(grad, preserve_format, like=variable)
        return copied
    return np.array(grad, copy=True, order="C")


def is_contiguous_as(array: np.ndarray[Any, Any], fmt: memory_format) -> bool:
    """Whether ``array`` is laid out as ``fmt`` says (a dimension of length 1 may have any
    stride, as in torch)."""
    if fmt not in _CHANNELS_LAST or not isinstance(array, np.ndarray):  # (inside vmap a sample has no memory order)
        return bool(array.flags.c_contiguous)
    rank, order = _CHANNELS_LAST[fmt]
    if array.ndim != rank:
        return False
    expected = 1
    for d in reversed(order):
        if array.shape[d] != 1 and array.strides[d] != expected * array.itemsize:
            return False
        expected *= array.shape[d]
    return True

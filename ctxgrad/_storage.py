"""Storages as torch names them, over NumPy's memory: ``Tensor.storage()`` (a typed storage),
``Tensor.untyped_storage()`` (its bytes), ``share_memory_``/``is_shared`` and ``resize_as_``.

A ctxgrad tensor's values live in a NumPy array; views share their base array's memory.  The
*storage* of a tensor is the memory of the array that owns it (the last array down the chain
of ``.base``), so a view and its base report the same ``data_ptr()`` and ``size()``, as in
torch.  ``share_memory_`` moves a tensor's values into shared memory (an anonymous shared
mapping), so that processes started by ``fork`` afterwards write into the same values, as
torch's does for Hogwild-style training.

>>> import ctxgrad
>>> x = ctxgrad.arange(6.0)
>>> x.untyped_storage().nbytes(), x[2:].untyped_storage().data_ptr() == x.data_ptr()
(24, True)
"""

from __future__ import annotations

import mmap
import warnings
from typing import Any

import numpy as np

from ctxgrad._device import device
from ctxgrad._tensor import Tensor

__all__ = ["TypedStorage", "UntypedStorage", "is_shared", "resize_as_", "share_memory_", "storage", "untyped_storage"]

_warned_typed = False


def _owner(arr: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """The array that owns ``arr``'s memory: the last array down its chain of bases."""
    while isinstance(arr.base, np.ndarray):
        arr = arr.base
    return arr


def _address(arr: np.ndarray[Any, Any]) -> int:
    return int(arr.__array_interface__["data"][0])


class UntypedStorage:
    """A tensor's memory as bytes: ``size()`` and ``nbytes()`` count bytes."""

    def __init__(self, owner: np.ndarray[Any, Any]) -> None:
        self._owner = owner

    @property
    def device(self) -> device:
        return device("cpu")

    def data_ptr(self) -> int:
        """The address of the first byte (a view's storage starts where its base's does)."""
        return _address(self._owner)

    def nbytes(self) -> int:
        return int(self._owner.nbytes)

    def size(self) -> int:
        return int(self._owner.nbytes)

    def __len__(self) -> int:
        return self.size()

    def element_size(self) -> int:
        return 1

    def is_shared(self) -> bool:
        """Whether the memory is shared between processes (after ``share_memory_``)."""
        return isinstance(self._owner.base, mmap.mmap)

    def tolist(self) -> list[int]:
        """The bytes, as ints."""
        return list(np.ascontiguousarray(self._owner).view(np.uint8).reshape(-1).tolist())


class TypedStorage(UntypedStorage):
    """A tensor's memory as elements of its dtype: ``size()`` counts elements."""

    def __init__(self, owner: np.ndarray[Any, Any], dtype: Any) -> None:
        super().__init__(owner)
        self.dtype = dtype

    def size(self) -> int:
        return int(self._owner.nbytes // self._owner.itemsize)

    def element_size(self) -> int:
        return int(self._owner.itemsize)

    def untyped(self) -> UntypedStorage:
        return UntypedStorage(self._owner)

    def tolist(self) -> list[Any]:
        """The elements."""
        return list(np.ascontiguousarray(self._owner).reshape(-1).tolist())


def storage(self: Tensor) -> TypedStorage:
    """The tensor's storage, typed by its dtype; deprecated in torch, with its warning (once)."""
    global _warned_typed
    if not _warned_typed:
        _warned_typed = True
        warnings.warn(
            "TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be the only "
            "storage class. This should only matter to you if you are using storages directly.  To access "
            "UntypedStorage directly, use tensor.untyped_storage() instead of tensor.storage()",
            UserWarning,
            stacklevel=2,
        )
    return TypedStorage(_owner(self.array), self.dtype)


def untyped_storage(self: Tensor) -> UntypedStorage:
    """The tensor's storage as bytes."""
    return UntypedStorage(_owner(self.array))


def is_shared(self: Tensor) -> bool:
    """Whether the tensor's memory is shared between processes (after :func:`share_memory_`)."""
    return untyped_storage(self).is_shared()


def share_memory_(self: Tensor) -> Tensor:
    """Move the values into memory shared with processes forked afterwards; returns the tensor.

    The values are copied once into an anonymous shared mapping, which then holds them.  For a
    tensor whose memory is a view of another's, that is refused (NumPy cannot move the base's
    memory under the other tensors that view it): share the base tensor, before taking views.
    """
    if is_shared(self):
        return self
    arr = self.array
    if _owner(arr) is not arr or not arr.flags.c_contiguous:
        raise RuntimeError(
            "share_memory_(): ctxgrad moves a tensor's own memory only; this tensor is a view of another's "
            "memory: call share_memory_() on the tensor it is a view of, before taking views"
        )
    shared = mmap.mmap(-1, max(arr.nbytes, 1))
    moved: np.ndarray[Any, Any] = np.ndarray(arr.shape, dtype=arr.dtype, buffer=shared)
    moved[...] = arr
    self._data = moved
    return self


def resize_as_(self: Tensor, the_template: Tensor, *, memory_format: Any = None) -> Tensor:
    """``resize_`` to the size of ``the_template``."""
    return self.resize_(the_template.shape)

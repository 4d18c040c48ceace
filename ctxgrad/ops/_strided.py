"""Strided views of an array's memory (``unfold``'s windows, ``as_strided``) that ctxgrad sees
as views of it.

NumPy's stride tricks (``as_strided``, ``sliding_window_view``) return an array whose base is a
helper object, not the array it reads: ``apply`` would not link such an output to its input
(no shared version, no base: an in-place change of the input would leave the output's
history stale), and the read-only locks of saved arrays would not find its owner.  The same
layout made on the owning array's buffer has that array as its base, as a slice's does.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["strided_view"]


def _owner(arr: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """The array at the end of ``arr``'s chain of NumPy views."""
    while isinstance(arr.base, np.ndarray):
        arr = arr.base
    return arr


def strided_view(arr: np.ndarray[Any, Any], shape: tuple[int, ...], strides: tuple[int, ...]) -> np.ndarray[Any, Any]:
    """The elements of ``arr``'s memory at ``sum(i_k * strides[k])`` bytes from ``arr``'s first
    element for every index ``i`` of ``shape``: a view of the array that owns ``arr``'s memory,
    writeable when ``arr`` is.  The layout must stay inside that memory (the caller checks)."""
    owner = _owner(arr)
    if owner.flags.c_contiguous or owner.flags.f_contiguous:
        start = arr.__array_interface__["data"][0] - owner.__array_interface__["data"][0]
        try:
            # (a locked owner gives a read-only view, which apply gives back with the lock)
            view: np.ndarray[Any, Any] = np.ndarray(shape, arr.dtype, buffer=owner, offset=start, strides=strides)
        except (TypeError, ValueError, BufferError):  # (a buffer NumPy will not export)
            pass
        else:
            if not arr.flags.writeable and view.flags.writeable:
                view.flags.writeable = False
            return view
    return np.lib.stride_tricks.as_strided(arr, shape, strides, writeable=bool(arr.flags.writeable))

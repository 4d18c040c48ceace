"""Python numbers and nested lists as a NumPy array, checked as torch's tensor constructor
checks them, where NumPy would differ: an int past int64 (NumPy makes it uint64 or an
object array; torch refuses it unless a float in the data makes the tensor floating), and a
NaN, infinity or out-of-range number given an integer dtype (NumPy raises its own
ValueError or OverflowError; torch a RuntimeError naming the dtype).

>>> import numpy as np
>>> numbers_array([1.0, 2**70], None).dtype
dtype('float64')
>>> numbers_array([-1], np.dtype(np.uint8))  # torch wraps a negative int into an unsigned dtype
array([255], dtype=uint8)
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1


def _overflow() -> ValueError:
    return ValueError("Overflow when unpacking long long")


def items(data: Any) -> Iterator[Any]:
    """The numbers of nested lists (or the one number ``data``)."""
    if isinstance(data, (list, tuple)):
        for v in data:
            yield from items(v)
    else:
        yield data


def numbers_array(data: Any, dt: np.dtype[Any] | None) -> np.ndarray[Any, Any]:
    """``np.array(data, dtype=dt)`` for Python data, with torch's refusals and conversions."""
    try:
        arr = np.array(data, dtype=dt)
    except (ValueError, OverflowError) as error:
        _check_ragged(data)
        if dt is None or dt.kind not in "iu":
            raise
        return _integers(data, dt, error)
    if dt is None and (arr.dtype.kind in "uO" or (arr.dtype.kind == "f" and arr.size and np.abs(arr).max() >= 2.0**63)):
        return _past_int64(data, arr)  # NumPy makes [1, 2**63] float64
    return arr


def _check_ragged(data: Any) -> None:
    """torch's error for nested lists that are not rectangular: the shape is read along the first
    items (``data[0][0]...``), then every list is checked against it in order.

    >>> _check_ragged([[1, 2], [3]])
    Traceback (most recent call last):
    ValueError: expected sequence of length 2 at dim 1 (got 1)
    """
    shape: list[int] = []
    first = data
    while isinstance(first, (list, tuple)):
        shape.append(len(first))
        if not first:
            break
        first = first[0]

    def check(value: Any, dim: int) -> None:
        if dim == len(shape):
            return
        if not isinstance(value, (list, tuple)):
            raise TypeError("not a sequence")
        if len(value) != shape[dim]:
            raise ValueError(f"expected sequence of length {shape[dim]} at dim {dim} (got {len(value)})")
        for item in value:
            check(item, dim + 1)

    check(data, 0)


def _past_int64(data: Any, arr: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Data holding an int outside int64, which NumPy made uint64, float64 or objects: floating if
    a float or complex number is among the values (torch infers a floating dtype, and the
    int is converted to it), refused as torch refuses it otherwise."""
    values = list(items(data))
    if not any(type(v) is int and not INT64_MIN <= v <= INT64_MAX for v in values):
        return arr
    if any(isinstance(v, (complex, np.complexfloating)) for v in values):
        return np.array(data, dtype=np.complex128)
    if any(isinstance(v, (float, np.floating)) for v in values):
        return np.array(data, dtype=np.float64)
    raise _overflow()


def _integers(data: Any, dt: np.dtype[Any], error: Exception) -> np.ndarray[Any, Any]:
    """Data NumPy would not convert to the integer dtype ``dt``, converted one value at a time
    as torch converts it: a NaN, an infinity or a value out of the dtype's range is refused
    with torch's RuntimeError; a negative int in an unsigned dtype wraps (down to -max)."""
    try:
        cells = np.array(data, dtype=object)
    except ValueError:
        raise error from None
    info = np.iinfo(dt)
    out = np.empty(cells.shape, dtype=dt)
    flat = out.reshape(-1)
    for at, value in enumerate(cells.reshape(-1)):
        flat[at] = _integer(value, dt, info)
    return out


def _integer(value: Any, dt: np.dtype[Any], info: np.iinfo[Any]) -> int:
    refused = RuntimeError(f"value cannot be converted to type {dt.name} without overflow")
    if isinstance(value, (bool, np.bool_)):
        return int(value)
    if isinstance(value, (int, np.integer)):
        number = int(value)
        if not INT64_MIN <= number <= (int(info.max) if dt == np.uint64 else INT64_MAX):
            raise _overflow()
        low = -int(info.max) if dt.kind == "u" else int(info.min)
        if not low <= number <= info.max:
            raise refused
        return number % (1 << info.bits) if number < 0 and dt.kind == "u" else number
    if isinstance(value, (float, np.floating)):
        if not math.isfinite(value) or not info.min <= value <= info.max:
            raise refused
        return int(value)
    raise TypeError(f"'{type(value).__name__}' object cannot be interpreted as an integer")

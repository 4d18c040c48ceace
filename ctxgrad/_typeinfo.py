"""Facts about dtypes and torch's promotion rules as functions: ``finfo``, ``iinfo``,
``result_type``, ``promote_types`` and ``can_cast``.

The promotion rules are the ones every binary op uses (:func:`ctxgrad._dtypes.result_dtype`):
a tensor with dimensions outranks a 0-d tensor, which outranks a Python number, and a lower
rank changes the result only when it is of a higher category (bool < integer < floating <
complex).

>>> import ctxgrad
>>> ctxgrad.finfo(ctxgrad.float32).eps
1.1920928955078125e-07
>>> ctxgrad.iinfo(ctxgrad.int8).max
127
>>> ctxgrad.result_type(ctxgrad.tensor([1, 2]), 1.0)
ctxgrad.float32
>>> ctxgrad.promote_types(ctxgrad.uint8, ctxgrad.int8)
ctxgrad.int16
>>> ctxgrad.can_cast(ctxgrad.float32, ctxgrad.int32)
False
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np

from ctxgrad import _dtypes
from ctxgrad._tensor import Tensor

__all__ = ["can_cast", "finfo", "iinfo", "promote_types", "result_type"]


def _dtype_argument(function: str, name: str, position: int, value: Any) -> np.dtype[Any]:
    if not isinstance(value, (np.dtype, _dtypes.dtype)):
        raise TypeError(
            f"{function}(): argument '{name}' (position {position}) must be ctxgrad.dtype, not {type(value).__name__}"
        )
    return _dtypes.as_dtype(value)


class finfo:
    """The limits of a floating dtype (the default dtype when none is given), as torch's
    ``finfo``; a complex dtype gives those of its real part.

    Attributes: ``bits``, ``eps`` (the gap between 1 and the next number), ``max``, ``min``,
    ``tiny`` and ``smallest_normal`` (the smallest positive normal number), ``resolution``
    (``10 ** -precision``, the decimal resolution) and ``dtype`` (the name, e.g. ``'float32'``).
    """

    __slots__ = ("bits", "dtype", "eps", "max", "min", "resolution", "smallest_normal", "tiny")
    bits: int
    eps: float
    max: float
    min: float
    tiny: float
    smallest_normal: float
    resolution: float
    dtype: str

    def __init__(self, type: Any = None) -> None:
        dt = _dtypes.get_default_dtype() if type is None else _dtype_argument("finfo", "type", 1, type)
        if dt.kind not in "fc":
            raise TypeError(
                "ctxgrad.finfo() requires a floating point input type. Use ctxgrad.iinfo to handle 'ctxgrad.finfo'"
            )
        info = np.finfo(dt)
        self.bits = int(info.bits)
        self.eps = float(info.eps)
        self.max = float(info.max)
        self.min = float(info.min)
        self.tiny = self.smallest_normal = float(info.smallest_normal)
        self.resolution = 10.0 ** -int(info.precision)
        self.dtype = str(info.dtype)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, finfo) and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash(("finfo", self.dtype))

    def __repr__(self) -> str:
        return (
            f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
            f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})"
        )


class iinfo:
    """The limits of an integer dtype, as torch's ``iinfo``: ``bits``, ``max``, ``min`` and
    ``dtype`` (the name, e.g. ``'int32'``).  bool is not an integer dtype here, as in torch."""

    __slots__ = ("bits", "dtype", "max", "min")
    bits: int
    max: int
    min: int
    dtype: str

    def __init__(self, type: Any) -> None:
        dt = _dtype_argument("iinfo", "type", 1, type)
        if dt == _dtypes.bool_:
            raise TypeError("ctxgrad.bool is not supported by ctxgrad.iinfo")
        if dt.kind not in "iu":
            raise TypeError(
                "ctxgrad.iinfo() requires an integer input type. Use ctxgrad.finfo to handle 'ctxgrad.iinfo'"
            )
        info = np.iinfo(dt)
        self.bits, self.max, self.min, self.dtype = int(info.bits), int(info.max), int(info.min), dt.name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, iinfo) and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash(("iinfo", self.dtype))

    def __repr__(self) -> str:
        return f"iinfo(min={float(self.min):g}, max={float(self.max):g}, dtype={self.dtype})"


def _operand(value: Any) -> Any:
    """A tensor's array or a Python number, as :func:`ctxgrad._dtypes.result_dtype` takes them."""
    if isinstance(value, Tensor):
        return value.array
    if isinstance(value, (bool, numbers.Number)) and not isinstance(value, np.generic):
        return value
    return None


def result_type(tensor: Any, other: Any) -> _dtypes.dtype:
    """The dtype torch's arithmetic gives ``tensor`` and ``other`` (each a tensor or a
    Python number), e.g. an int64 tensor and a Python float give the default float dtype."""
    a, b = _operand(tensor), _operand(other)
    if a is None or b is None:
        got = f"{type(tensor).__name__}, {type(other).__name__}"
        raise TypeError(
            f"result_type() received an invalid combination of arguments - got ({got}), but expected one of:\n"
            " * (Tensor tensor, Tensor other)\n"
            " * (Number scalar, Tensor tensor)\n"
            " * (Tensor tensor, Number other)\n"
            " * (Number scalar1, Number scalar2)\n"
        )
    return _dtypes.as_dtype(_dtypes.result_dtype(a, b))


def promote_types(type1: Any, type2: Any) -> _dtypes.dtype:
    """The smallest dtype both ``type1`` and ``type2`` convert to without losing their
    category (torch's table: ``uint8`` and ``int8`` give ``int16``, ``int64`` and
    ``float16`` give ``float16``)."""
    d1 = _dtype_argument("promote_types", "type1", 1, type1)
    d2 = _dtype_argument("promote_types", "type2", 2, type2)
    return _dtypes.as_dtype(_dtypes.result_dtype(np.empty(1, d1), np.empty(1, d2)))


def can_cast(from_: Any, to: Any) -> bool:
    """Whether torch's casting rules allow ``from_`` to become ``to`` in an in-place op:
    never to a lower category (complex to float, float to integer, a number to bool)."""
    source = _dtype_argument("can_cast", "from_", 1, from_)
    target = _dtype_argument("can_cast", "to", 2, to)
    return _dtypes.category(source) <= _dtypes.category(target)

"""torch's legacy tensor types: ``FloatTensor``, ``LongTensor``, ... and ``Tensor.new``.

Old torch code makes tensors with the type's constructor, ``torch.FloatTensor(2, 3)`` (a
size) or ``torch.LongTensor([1, 2])`` (data), and checks types with
``isinstance(x, torch.FloatTensor)``.  Each constructor here takes what torch's takes:

* nothing: an empty 1-d tensor;
* ints, or one ``ctxgrad.Size``: an uninitialised tensor of that size (as ``empty``);
* a list, tuple or NumPy array: a tensor copying that data, converted to the type;
* a tensor of the same type: a tensor sharing its storage (another dtype is torch's
  ``TypeError``);

and only the keyword ``device`` (the CPU).  ``isinstance(t, ctxgrad.FloatTensor)`` is true for
float32 tensors; the constructors are not subclasses of :class:`~ctxgrad.Tensor` (neither are
torch's) and every tensor they make is a plain ``Tensor``.

>>> import ctxgrad
>>> ctxgrad.FloatTensor(2, 3).shape
ctxgrad.Size([2, 3])
>>> ctxgrad.LongTensor([1.7, 2.0])
tensor([1, 2])
>>> isinstance(ctxgrad.zeros(2), ctxgrad.FloatTensor), isinstance(ctxgrad.zeros(2), ctxgrad.DoubleTensor)
(True, False)
>>> ctxgrad.tensor([1.0]).new(2).shape
ctxgrad.Size([2])
"""

from __future__ import annotations

import operator
from typing import Any

import numpy as np

from ctxgrad import _dtypes
from ctxgrad._device import check_device
from ctxgrad._factories import empty, tensor
from ctxgrad._tensor import Size, Tensor

__all__ = [
    "BoolTensor",
    "ByteTensor",
    "CharTensor",
    "DoubleTensor",
    "FloatTensor",
    "HalfTensor",
    "IntTensor",
    "LongTensor",
    "ShortTensor",
    "legacy_new",
    "new",
]

_SIGNATURES = (
    " * (*, torch.device device = None)\n"
    " * (torch.Storage storage)\n"
    " * (Tensor other)\n"
    " * (tuple of ints size, *, torch.device device = None)\n"
    " * (object data, *, torch.device device = None)\n"
)


def _options(dt: np.dtype[Any]) -> str:
    return (
        f"TensorOptions(dtype={_dtypes.cpp_name(dt)}, device=cpu, layout=Strided, requires_grad=false (default), "
        "pinned_memory=false (default), memory_format=(nullopt))"
    )


def _invalid(args: tuple[Any, ...], kwargs: dict[str, Any]) -> TypeError:
    got = [type(a).__name__ for a in args] + [f"{k}={type(v).__name__}" for k, v in kwargs.items()]
    return TypeError(
        f"new() received an invalid combination of arguments - got ({', '.join(got)}), but expected one of:\n"
        + _SIGNATURES
    )


def _is_int(value: Any) -> bool:
    if isinstance(value, (bool, np.bool_, Tensor)):
        return False
    try:
        operator.index(value)
    except TypeError:
        return False
    return True


def legacy_new(dt: np.dtype[Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Tensor:
    """A tensor of dtype ``dt`` from a legacy constructor's arguments (see the module docstring)."""
    unknown = {k: v for k, v in kwargs.items() if k != "device"}
    if unknown:
        raise _invalid(args, kwargs)
    check_device(kwargs.get("device"))
    if not args:
        return empty(0, dtype=dt)
    if len(args) == 1:
        (data,) = args
        if isinstance(data, Tensor):
            if data.dtype != dt:
                raise TypeError(f"expected {_options(dt)} (got {_options(data.dtype)})")
            return data.detach()  # the same storage, as torch's alias
        if isinstance(data, Size) or _is_int(data):
            return empty(*(data if isinstance(data, Size) else (data,)), dtype=dt)
        if isinstance(data, (list, tuple, np.ndarray)):
            return tensor(data, dtype=dt)
        if isinstance(data, (bool, int, float, complex, np.generic)):
            raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    if all(_is_int(a) for a in args):
        return empty(*args, dtype=dt)
    raise _invalid(args, kwargs)


def new(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """A tensor of this tensor's dtype, from a legacy constructor's arguments: sizes (an
    uninitialised tensor), data (a copy), or a tensor of the same dtype (its storage)."""
    return legacy_new(input.dtype, args, kwargs)


class _LegacyType(type):
    """The class of the legacy constructors: calling one makes a :class:`Tensor` of its
    dtype, and ``isinstance`` compares a tensor's dtype with it."""

    dtype: np.dtype[Any]

    def __call__(cls, *args: Any, **kwargs: Any) -> Tensor:
        return legacy_new(cls.dtype, args, kwargs)

    def __instancecheck__(cls, instance: Any) -> bool:
        return isinstance(instance, Tensor) and instance.dtype == cls.dtype

    def __repr__(cls) -> str:
        return f"<class 'ctxgrad.{cls.__name__}'>"


class FloatTensor(metaclass=_LegacyType):
    """float32 tensors: ``FloatTensor(2, 3)`` (a size) or ``FloatTensor([1, 2])`` (data)."""

    dtype = _dtypes.float32


class DoubleTensor(metaclass=_LegacyType):
    """float64 tensors: ``DoubleTensor(2, 3)`` (a size) or ``DoubleTensor([1, 2])`` (data)."""

    dtype = _dtypes.float64


class HalfTensor(metaclass=_LegacyType):
    """float16 tensors: ``HalfTensor(2, 3)`` (a size) or ``HalfTensor([1, 2])`` (data)."""

    dtype = _dtypes.float16


class LongTensor(metaclass=_LegacyType):
    """int64 tensors: ``LongTensor(2, 3)`` (a size) or ``LongTensor([1, 2])`` (data)."""

    dtype = _dtypes.int64


class IntTensor(metaclass=_LegacyType):
    """int32 tensors: ``IntTensor(2, 3)`` (a size) or ``IntTensor([1, 2])`` (data)."""

    dtype = _dtypes.int32


class ShortTensor(metaclass=_LegacyType):
    """int16 tensors: ``ShortTensor(2, 3)`` (a size) or ``ShortTensor([1, 2])`` (data)."""

    dtype = _dtypes.int16


class CharTensor(metaclass=_LegacyType):
    """int8 tensors: ``CharTensor(2, 3)`` (a size) or ``CharTensor([1, 2])`` (data)."""

    dtype = _dtypes.int8


class ByteTensor(metaclass=_LegacyType):
    """uint8 tensors: ``ByteTensor(2, 3)`` (a size) or ``ByteTensor([1, 2])`` (data)."""

    dtype = _dtypes.uint8


class BoolTensor(metaclass=_LegacyType):
    """bool tensors: ``BoolTensor(2, 3)`` (a size) or ``BoolTensor([True, False])`` (data)."""

    dtype = _dtypes.bool_

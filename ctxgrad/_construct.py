"""More ways to make tensors, with torch's signatures: ``asarray`` (sharing memory where it
can, as torch's), ``frombuffer``, ``empty_strided`` / ``new_empty_strided``,
``empty_permuted`` and the deprecated ``range`` (end included).

>>> import numpy as np, ctxgrad
>>> a = np.arange(3.0)
>>> t = ctxgrad.asarray(a)  # shares a's memory: a change to one shows in the other
>>> a[0] = 9.0
>>> t
tensor([9., 1., 2.], dtype=ctxgrad.float64)
>>> ctxgrad.empty_strided((2, 3), (1, 2)).stride()
(1, 2)
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from ctxgrad import _dtypes
from ctxgrad._factories import _finish, _size, takes_out, tensor
from ctxgrad._memory_format import check_layout
from ctxgrad._tensor import Tensor

__all__ = ["asarray", "empty_permuted", "empty_strided", "frombuffer", "new_empty_strided", "range"]


def _alias_refused(source: np.dtype[Any], target: np.dtype[Any]) -> ValueError:
    return ValueError(
        f"can't alias tensor with dtype '{_dtypes.short_name(source)}' into dtype '{_dtypes.short_name(target)}'."
    )


def asarray(
    obj: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    copy: bool | None = None,
    requires_grad: bool | None = None,
) -> Tensor:
    """``obj`` as a tensor, sharing its memory when it can, as torch's ``asarray``.

    * a tensor: itself (``copy=True``, or another ``dtype``: a copy that is not part of its
      graph); ``requires_grad=True`` sets it on the tensor, ``False`` gives ``detach()``, and
      leaving it out for a tensor that requires grad warns as torch 2.13 does;
    * a NumPy array (or anything ``np.asarray`` reads without copying: ``__array__``,
      ``__array_interface__``): a tensor on the same memory;
    * a buffer (``bytes``, ``bytearray``, ``memoryview``): its bytes read as ``dtype``
      (default: the default dtype), shared, as :func:`frombuffer`;
    * anything else (lists, numbers): a new tensor, as :func:`ctxgrad.tensor`.

    ``copy=False`` refuses, with torch's ValueError, what cannot be shared: a Python
    sequence, or a conversion to another dtype.
    """
    dt = None if dtype is None else _dtypes.to_dtype(dtype)
    if isinstance(obj, Tensor):
        result = obj
        if copy or (dt is not None and dt != obj.dtype):
            if copy is False:
                assert dt is not None
                raise _alias_refused(obj.dtype, dt)
            data = obj.detach().array
            result = _finish(np.array(data, dtype=dt or data.dtype, copy=True), False, device)
        elif requires_grad is None and obj.requires_grad:
            warnings.warn(
                "ctxgrad.asarray: unspecified requires_grad now defaults to obj.requires_grad instead of False. "
                "Pass requires_grad=False explicitly to get the old behavior and silence this warning.",
                UserWarning,
                stacklevel=2,
            )
        elif requires_grad is False and obj.requires_grad:
            result = obj.detach()
        if requires_grad:
            result._set_requires_grad(True)
        return result
    if isinstance(obj, (bytes, bytearray, memoryview)):
        arr: np.ndarray[Any, Any] = np.frombuffer(obj, dtype=dt or _dtypes.get_default_dtype())
    elif isinstance(obj, np.ndarray) or hasattr(obj, "__array__") or hasattr(obj, "__array_interface__"):
        arr = np.asarray(obj)
    else:
        if copy is False:
            raise ValueError("can't alias arbitrary sequence into a tensor.")
        return tensor(obj, dtype=dt, device=device, requires_grad=bool(requires_grad))
    if dt is not None and arr.dtype != dt:
        if copy is False:
            raise _alias_refused(arr.dtype, dt)
        arr = arr.astype(dt)
    elif copy:
        arr = arr.copy()
    return _finish(arr, bool(requires_grad), device)


def frombuffer(buffer: Any, *, dtype: Any, count: int = -1, offset: int = 0, requires_grad: bool = False) -> Tensor:
    """A 1-d tensor on the memory of a Python buffer (``bytearray``, ``memoryview``,
    ``array.array``, ...): ``count`` elements of ``dtype`` (-1: all) from byte ``offset``.
    Shared: a change to the buffer shows in the tensor.  A read-only buffer (``bytes``)
    gives a tensor NumPy refuses to write into (torch warns and writes anyway)."""
    dt = _dtypes.to_dtype(dtype)
    view = memoryview(buffer)
    length, size = view.nbytes, dt.itemsize
    if length == 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if not 0 <= offset < length:
        raise ValueError(
            f"offset ({offset} bytes) must be non-negative and no greater than buffer length ({length} bytes) minus 1"
        )
    if count < 0:
        if (length - offset) % size:
            raise ValueError(
                f"buffer length ({length - offset} bytes) after offset ({offset} bytes) must be a multiple of element "
                f"size ({size})"
            )
        count = (length - offset) // size
    elif offset + count * size > length:
        raise ValueError(
            f"requested buffer length ({count} * {size} bytes) after offset ({offset} bytes) must not be greater "
            f"than actual buffer length ({length} bytes)"
        )
    return _finish(np.frombuffer(view.cast("B"), dtype=dt, count=count, offset=offset), requires_grad)


def _strided(size: Sequence[int], stride: Sequence[int], dt: np.dtype[Any]) -> np.ndarray[Any, Any]:
    shape, steps = _size((size,), "empty_strided"), tuple(int(s) for s in stride)
    if len(shape) != len(steps):
        raise RuntimeError(
            f"dimensionality of sizes ({len(shape)}) must match dimensionality of strides ({len(steps)})"
        )
    if any(s < 0 for s in steps):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(shape)} and strides={list(steps)}")
    needed = 0 if 0 in shape else 1 + sum((n - 1) * s for n, s in zip(shape, steps))
    memory = np.empty(needed, dtype=dt)
    return np.lib.stride_tricks.as_strided(memory, shape, tuple(s * dt.itemsize for s in steps))


def empty_strided(
    size: Sequence[int],
    stride: Sequence[int],
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """An uninitialised tensor of ``size`` laid out with ``stride`` (in elements), on just
    enough memory for it, as torch's."""
    check_layout(layout, "empty_strided")
    dt = _dtypes.get_default_dtype() if dtype is None else _dtypes.to_dtype(dtype)
    return _finish(_strided(size, stride, dt), requires_grad, device, pin_memory)


def new_empty_strided(
    input: Tensor,
    size: Sequence[int],
    stride: Sequence[int],
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """:func:`empty_strided` with this tensor's dtype unless ``dtype`` is given."""
    check_layout(layout, "new_empty_strided")
    dt = input.dtype if dtype is None else _dtypes.to_dtype(dtype)
    return _finish(_strided(size, stride, dt), requires_grad, device, pin_memory)


def empty_permuted(
    size: Sequence[int],
    physical_layout: Sequence[int],
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """An uninitialised tensor of ``size`` whose dimensions lie in memory in the order
    ``physical_layout`` (outermost first): ``empty(size permuted).permute(inverse)``."""
    check_layout(layout, "empty_permuted")
    shape, order = _size((size,), "empty_permuted"), [int(d) for d in physical_layout]
    if len(shape) != len(order):
        raise RuntimeError(
            "Number of dimensions in size does not match the length of the physical_layout; i.e. "
            f"len(size) = {len(shape)} is not equal to len(physical_layout) = {len(order)}"
        )
    seen = [False] * len(shape)
    for at, d in enumerate(order):
        if not 0 <= d < len(shape):
            raise RuntimeError(
                f"Dimension out of range (expected to be between 0 and {len(shape) - 1}, but got {d} at index {at}).  "
                "NB: negative dims not currently supported; file an issue if you want it."
            )
        if seen[d]:
            raise RuntimeError("Duplicate dim not allowed")
        seen[d] = True
    dt = _dtypes.get_default_dtype() if dtype is None else _dtypes.to_dtype(dtype)
    physical = np.empty([shape[d] for d in order], dtype=dt)
    return _finish(physical.transpose(np.argsort(order)), requires_grad, device, pin_memory)


@takes_out("range")
def range(
    start: Any = 0,
    end: Any = None,
    step: Any = 1,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """Deprecated, as in torch (it warns): values from ``start`` to ``end`` *included*, in
    steps of ``step``, of the default dtype; use ``arange``, which excludes ``end``."""
    if end is None:
        raise TypeError('range() missing 1 required positional arguments: "end"')
    check_layout(layout, "range")
    warnings.warn(
        "ctxgrad.range is deprecated and will be removed in a future release because its behavior is inconsistent "
        "with Python's range builtin. Instead, use ctxgrad.arange, which produces values in [start, end).",
        UserWarning,
        stacklevel=3,
    )
    lo, hi, by = (float(v.item()) if isinstance(v, Tensor) else float(v) for v in (start, end, step))
    if by == 0:
        raise RuntimeError("step must be nonzero")
    if (hi - lo) * by < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    n = int(np.floor((hi - lo) / by)) + 1
    dt = _dtypes.get_default_dtype() if dtype is None else _dtypes.to_dtype(dtype)
    return _finish((lo + by * np.arange(n, dtype=np.float64)).astype(dt), requires_grad, device)

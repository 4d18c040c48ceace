"""DLPack, the protocol array libraries use to share memory: ``Tensor.__dlpack__``,
``Tensor.__dlpack_device__`` and :func:`from_dlpack`.

A ctxgrad tensor is a NumPy array, so it is exported as NumPy exports it: ``np.from_dlpack(t)``
and ``torch.from_dlpack(t)`` see the same memory (a write through one shows in the other),
and :func:`from_dlpack` takes anything that has ``__dlpack__`` (a torch tensor, a NumPy
array, a JAX or CuPy array on the CPU).

Two cases differ from a plain NumPy export:

* a tensor that requires grad refuses, as torch's does (``BufferError``), since the consumer
  would silently lose its graph (``detach()`` it first, as for ``numpy()``);
* a tensor with a negative stride (``flip`` of a NumPy view) is exported as a contiguous copy,
  because some consumers cannot take negative strides (torch aborts the process); with
  ``copy=False`` it refuses with ``BufferError`` instead.

>>> import numpy as np
>>> import ctxgrad
>>> t = ctxgrad.tensor([1.0, 2.0])
>>> a = np.from_dlpack(t)
>>> _ = t.mul_(5.0)  # the same memory: a sees the change
>>> a
array([ 5., 10.], dtype=float32)
>>> ctxgrad.from_dlpack(np.arange(3.0))
tensor([0., 1., 2.], dtype=ctxgrad.float64)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ctxgrad._device import check_device
from ctxgrad._state import _state
from ctxgrad._tensor import Tensor, as_tensor

__all__ = ["dlpack", "dlpack_device", "from_dlpack"]

_CPU = 1  # DLPack's device type for the CPU (kDLCPU)


def dlpack(
    input: Tensor,
    *,
    stream: Any = None,
    max_version: tuple[int, int] | None = None,
    dl_device: tuple[int, int] | None = None,
    copy: bool | None = None,
) -> Any:
    """``Tensor.__dlpack__``: a DLPack capsule of this tensor's memory (see the module
    docstring); the arguments are the protocol's (``stream`` is None or -1 on the CPU)."""
    if input.requires_grad and _state.modes.grad_enabled:
        raise BufferError("Can't export tensors that require gradient, use tensor.detach()")
    if stream is not None and stream != -1:
        raise BufferError(f"ctxgrad runs on the CPU, where the DLPack stream must be None (got {stream!r})")
    if dl_device is not None and tuple(dl_device) != (_CPU, 0):
        raise BufferError(f"ctxgrad can only export to the CPU, DLPack device (1, 0) (got {tuple(dl_device)})")
    array = input.array
    if any(s < 0 for s in array.strides):
        if copy is False:
            raise BufferError("a tensor with a negative stride cannot be exported without a copy (copy=False)")
        array = np.ascontiguousarray(array)
    kwargs: dict[str, Any] = {}
    if max_version is not None:
        kwargs["max_version"] = max_version
    if copy is not None:
        kwargs["copy"] = copy
    try:
        return array.__dlpack__(**kwargs)
    except TypeError:  # an older NumPy: no max_version or copy (a copy is then made here)
        return (array.copy() if copy else array).__dlpack__()


def dlpack_device(input: Tensor) -> tuple[int, int]:
    """``Tensor.__dlpack_device__``: ``(1, 0)``, DLPack's CPU."""
    return (_CPU, 0)


class _Capsule:
    """A bare DLPack capsule (from an old producer's ``to_dlpack``) as an object with the
    protocol's methods, so NumPy can take it."""

    def __init__(self, capsule: Any) -> None:
        self.capsule = capsule

    def __dlpack__(self, **kwargs: Any) -> Any:
        return self.capsule

    def __dlpack_device__(self) -> tuple[int, int]:
        return (_CPU, 0)


def from_dlpack(ext_tensor: Any, *, device: Any = None, copy: bool | None = None) -> Tensor:
    """A tensor sharing the memory of ``ext_tensor`` (an object with ``__dlpack__`` on the
    CPU, or a DLPack capsule); ``copy=True`` copies it instead.  A read-only source gives a
    tensor that refuses writes."""
    check_device(device)
    if type(ext_tensor).__name__ == "PyCapsule":
        ext_tensor = _Capsule(ext_tensor)
    elif not hasattr(ext_tensor, "__dlpack__"):
        raise TypeError(
            f"from_dlpack(): expected an object with __dlpack__ (a tensor or array of another library) or a "
            f"DLPack capsule, got {type(ext_tensor).__name__}"
        )
    try:
        array = np.from_dlpack(ext_tensor, copy=copy)
    except TypeError:  # an older NumPy without ``copy``
        array = np.from_dlpack(ext_tensor)
        if copy:
            array = array.copy()
    return as_tensor(array)

"""``Parameter``: the tensor a :class:`~ctxgrad.nn.Module` registers as one of its weights.

A Parameter is an ordinary :class:`~ctxgrad.Tensor` (every op takes it, and an op's result is a
plain Tensor, as in torch) with two differences: it requires grad unless told otherwise, and a
Module that is given one as an attribute adds it to ``parameters()`` and ``state_dict()``.

>>> import ctxgrad
>>> w = ctxgrad.nn.Parameter(ctxgrad.ones(2))
>>> w
Parameter containing:
tensor([1., 1.], requires_grad=True)
>>> type(w * 2).__name__
'Tensor'
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ctxgrad import _dtypes
from ctxgrad._tensor import Tensor, as_tensor

__all__ = ["Buffer", "Parameter"]


class Parameter(Tensor):
    """A leaf tensor that a Module registers as a parameter.

    ``Parameter(data)`` shares ``data``'s storage and version counter (like ``data.detach()``);
    ``Parameter()`` holds an empty tensor of the default dtype.
    """

    def __init__(self, data: Tensor | None = None, requires_grad: bool = True) -> None:
        if data is None:
            self._data = np.empty((0,), dtype=_dtypes.get_default_dtype())
        elif isinstance(data, Tensor):
            self._data = data._data
            self._vc = data._get_vc()
            self._inference = data._inference  # (and so refuses requires_grad outside the mode, as torch's)
        else:
            raise TypeError(f"Parameter(): data must be a Tensor or None, got {type(data).__name__}")
        if requires_grad:
            if self._data.dtype.kind not in "fc":
                raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
            self._set_requires_grad(True)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo: dict[int, Any]) -> Parameter:
        if id(self) in memo:
            copied: Parameter = memo[id(self)]
            return copied
        result = Parameter(as_tensor(self._data.copy()), self._requires_grad)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, protocol: Any) -> Any:
        return (_rebuild_parameter, (self._data, self._requires_grad))


def _rebuild_parameter(data: np.ndarray[Any, Any], requires_grad: bool) -> Parameter:
    """Unpickle a Parameter (its values and its ``requires_grad`` flag)."""
    return Parameter(as_tensor(data), requires_grad)


class _BufferMeta(type):
    """``isinstance(t, Buffer)`` is true of a tensor that ``Buffer(...)`` made (it carries the
    mark), as in torch, where a Buffer is a plain tensor with that mark."""

    def __instancecheck__(cls, instance: Any) -> bool:
        if cls is Buffer and isinstance(instance, Tensor) and getattr(instance, "_is_buffer", False):
            return True
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """A tensor that a :class:`~ctxgrad.nn.Module` given it as an attribute registers as a
    buffer (state that is not a parameter): ``persistent=False`` keeps it out of
    ``state_dict``.  ``Buffer(data)`` is ``data.detach()`` (sharing its storage, keeping its
    ``requires_grad``) with that mark: a plain :class:`~ctxgrad.Tensor`, as in torch.

    >>> import ctxgrad
    >>> m = ctxgrad.nn.Module()
    >>> m.running = ctxgrad.nn.Buffer(ctxgrad.zeros(2))
    >>> [name for name, _ in m.named_buffers()], type(m.running).__name__
    (['running'], 'Tensor')
    """

    persistent: bool
    _is_buffer: bool

    def __new__(cls, data: Tensor | None = None, *, persistent: bool = True) -> Buffer:
        if data is None:
            data = as_tensor(np.empty((0,), dtype=_dtypes.get_default_dtype()))
        elif not isinstance(data, Tensor):
            raise TypeError(f"Buffer(): data must be a Tensor or None, got {type(data).__name__}")
        marked = data.detach()._set_requires_grad(data.requires_grad)
        marked.persistent = persistent  # type: ignore[attr-defined]
        marked._is_buffer = True  # type: ignore[attr-defined]
        return marked  # type: ignore[return-value]

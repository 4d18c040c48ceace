"""``Variable``: torch's old name for a tensor that records history, kept so old code runs.

Since torch 0.4 a tensor *is* a variable: ``isinstance(t, Variable)`` is True for every
tensor, and ``Variable(t, requires_grad=True)`` gives a new leaf that shares ``t``'s values
and version counter (``t`` itself is left as it was), as torch's does.

>>> import ctxgrad
>>> from ctxgrad.autograd import Variable
>>> t = ctxgrad.ones(2)
>>> v = Variable(t, requires_grad=True)
>>> v.requires_grad, t.requires_grad, isinstance(t, Variable)
(True, False, True)
"""

from __future__ import annotations

import warnings
from typing import Any

from ctxgrad._tensor import Tensor, _check_requires_grad_dtype
from ctxgrad.autograd._callbacks import ExecutionEngine

__all__ = ["Variable"]


class _VariableMeta(type):
    """Makes ``isinstance(t, Variable)`` true for every tensor, and ``Variable(...)`` make one."""

    def __instancecheck__(cls, other: object) -> bool:
        return isinstance(other, Tensor)

    def __call__(cls, data: Any = None, requires_grad: bool = False, volatile: bool = False) -> Tensor:
        if volatile:
            warnings.warn(
                "volatile was removed and now has no effect. Use `with ctxgrad.no_grad():` instead.",
                UserWarning,
                stacklevel=2,
            )
        if data is None:
            out: Tensor = Tensor()
        elif not isinstance(data, Tensor):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        else:
            out = data.detach()
        if requires_grad:
            if out._data.dtype.kind not in "fc":
                raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
            _check_requires_grad_dtype(out._data.dtype, False)
            out._requires_grad = True
        return out


class Variable(metaclass=_VariableMeta):
    """torch's legacy name for a tensor; calling it makes a leaf that shares ``data``'s values."""

    # (where torch's code reaches the engine: ``Variable._execution_engine.queue_callback(fn)``)
    _execution_engine = ExecutionEngine()

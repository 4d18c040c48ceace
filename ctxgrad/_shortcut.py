"""The operators' NumPy shortcut: ``x * 2.0`` computed by NumPy directly when its Function
would record nothing and compute the same.

``+ - * /`` (:mod:`ctxgrad.ops.arithmetic`) call :func:`untracked` first and take their
Function's path only when it gives None.  It lives a layer below the ops because it reads a
tensor's autograd fields directly (an op reads them through the public API): in the compiled
core (``_shortcut.pxd``) they are then read at fixed offsets, and in pure Python a recorded
op (``y * 1.0001`` with ``y`` requiring grad) leaves without calling the ``requires_grad``
property.  Read so, a field is the tensor's own even where a subclass computes it (a vmap's
``BatchedTensor`` computes its array): the shortcut takes only a tensor whose array is an
ndarray, and leaves the rest to the Function.  ``tests/test_operator_shortcut.py`` checks
every result against the Function's, for every dtype pair and grad mode.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ctxgrad._state import _state, special_modes
from ctxgrad._tensor import Tensor, as_tensor

__all__ = ["untracked"]

_ndarray = np.ndarray  # (a global: one lookup fewer per check)


def untracked(ufunc: Any, a: Any, b: Any) -> Tensor | None:
    """``ufunc(a, b)`` computed by NumPy directly when the Function would record nothing and
    compute the same: no mode that changes ``apply`` is on (a trace, vmap, forward mode,
    inference), grad mode is off or no operand requires grad, and the operands are floating
    tensors of one dtype, or a real floating tensor with a Python int or float (where
    :func:`~ctxgrad.ops._util.arrays` hands NumPy the operands unchanged); and NumPy's result
    has the tensor's dtype, torch's.  Otherwise None: the caller takes the Function's path,
    which also raises torch's errors.  An op inside ``forward`` or ``backward``, or under
    ``no_grad``, thus costs about what NumPy's own call costs."""
    # The thread's flags (a ``threading.local`` read, the dearest step here) are read only when
    # they decide: when some thread has a special mode on, or when an operand requires grad.
    # An op on tensors that need no gradient, as in most backward formulas, never reads them.
    modes = _state.modes if special_modes else None
    if modes is not None and modes.special:
        return None
    x: Any
    y: Any
    if isinstance(a, Tensor):
        t = a  # (t and u hold tensors: TensorBase in the compiled core, _shortcut.pxd)
        # (a view re-reads its base's flag first: the property, for views only)
        if t._requires_grad if t._base is None else t.requires_grad:
            if modes is None:
                modes = _state.modes
            if modes.grad_enabled:
                return None  # a recorded op: the Function's path
        x = t._data
        if type(x) is not _ndarray:  # (a tensor whose class computes its array: a vmap's, escaped)
            return None
        dt = x.dtype
        if isinstance(b, Tensor):
            u = b
            if u._requires_grad if u._base is None else u.requires_grad:
                if modes is None:
                    modes = _state.modes
                if modes.grad_enabled:
                    return None
            y = u._data
            if type(y) is not _ndarray or (y.dtype is not dt and y.dtype != dt) or dt.kind not in "fc":
                return None
        elif dt.kind == "f" and (type(b) is float or type(b) is int):
            y = b
        else:
            return None
    else:  # a number on the left of a tensor (``2.0 - x``)
        u = b
        if u._requires_grad if u._base is None else u.requires_grad:
            if modes is None:
                modes = _state.modes
            if modes.grad_enabled:
                return None
        x, y = a, u._data
        if type(y) is not _ndarray:
            return None
        dt = y.dtype
        if dt.kind != "f" or (type(a) is not float and type(a) is not int):
            return None
    try:
        out = ufunc(x, y)
    except ValueError:  # (shapes that do not broadcast: the Function raises torch's error)
        return None
    return as_tensor(out) if out.dtype == dt else None

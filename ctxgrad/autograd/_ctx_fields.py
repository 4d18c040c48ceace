"""torch's ctx fields by their own names: ``ctx.dirty_tensors``, ``ctx.non_differentiable``
and ``ctx.saved_for_forward``, the deprecated ``ctx.saved_variables`` and the long-removed
``ctx.mark_shared_storage``.

In torch these are the attributes the ctx methods write: ``ctx.mark_dirty(x)`` sets
``ctx.dirty_tensors = (x,)``, ``ctx.mark_non_differentiable(i)`` sets
``ctx.non_differentiable``, ``ctx.save_for_forward(a, b)`` sets ``ctx.saved_for_forward``;
each is None until set, and None again once ``apply`` has used it. Code written for torch
reads them (and a few programs assign them directly); here they are views of what the ctx
methods keep (``ctx._dirty``, ``ctx._non_diff``, ``ctx._fw_saved``), so the ctx in
:mod:`~ctxgrad.autograd.function` stays as it is. :class:`CtxFields` is a base class of that
ctx.

>>> import ctxgrad
>>> class Double_(ctxgrad.autograd.Function):
...     @staticmethod
...     def forward(ctx, x):
...         x.mul_(2)
...         ctx.mark_dirty(x)
...         assert ctx.dirty_tensors == (x,) and ctx.non_differentiable is None
...         return x
...
...     @staticmethod
...     def backward(ctx, g):
...         return g * 2
>>> y = Double_.apply(ctxgrad.ones(2, requires_grad=True) * 1)
>>> y.grad_fn.dirty_tensors is None      # used by apply, then cleared (as in torch)
True
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

from ctxgrad.autograd._edges import takes_values

if TYPE_CHECKING:
    from ctxgrad._tensor import Tensor

__all__ = ["CtxFields"]

_SHARED_STORAGE = (
    "`mark_shared_storage` is deprecated. Tensors with shared storages are automatically tracked. "
    "Note that calls to `set_()` are not tracked"
)


def _tuple_field(name: str, value: Any) -> tuple[Any, ...]:
    if not isinstance(value, tuple):
        raise RuntimeError(
            f"{name} attribute is expected to be a tuple but is {type(value).__name__} (the ctx method "
            "that sets it takes the tensors spread: ctx.mark_dirty(a, b), not ctx.dirty_tensors = [a, b])"
        )
    return value


class CtxFields:
    """torch's ctx fields, read and written through the ctx methods' storage."""

    if not TYPE_CHECKING:  # (the attributes it reads are the ctx's class defaults)
        __slots__ = ()

    if TYPE_CHECKING:
        _dirty: tuple[Tensor, ...] | None
        _non_diff: tuple[Tensor, ...] | None
        _fw_saved: tuple[Tensor | None, ...] | None

        def mark_dirty(self, *tensors: Tensor) -> None: ...
        def mark_non_differentiable(self, *tensors: Tensor) -> None: ...
        def save_for_forward(self, *tensors: Tensor | None) -> None: ...
        @property
        def saved_tensors(self) -> tuple[Tensor, ...]: ...

    @property
    def dirty_tensors(self) -> tuple[Tensor, ...] | None:
        """The tensors given to ``mark_dirty`` in this ``forward`` (None when none were)."""
        return self._dirty

    @dirty_tensors.setter
    def dirty_tensors(self, value: tuple[Tensor, ...] | None) -> None:
        if value is None:
            vars(self).pop("_dirty", None)
        else:
            self.mark_dirty(*_tuple_field("dirty_tensors", value))

    @property
    def non_differentiable(self) -> tuple[Tensor, ...] | None:
        """The tensors given to ``mark_non_differentiable`` in this ``forward`` (None when
        none were)."""
        return self._non_diff

    @non_differentiable.setter
    def non_differentiable(self, value: tuple[Tensor, ...] | None) -> None:
        if value is None:
            vars(self).pop("_non_diff", None)
        else:
            self.mark_non_differentiable(*_tuple_field("non_differentiable", value))

    @property
    def saved_for_forward(self) -> tuple[Tensor | None, ...] | None:
        """The tensors given to ``save_for_forward`` in this ``forward`` (None when none were)."""
        return self._fw_saved

    @saved_for_forward.setter
    def saved_for_forward(self, value: tuple[Tensor | None, ...] | None) -> None:
        if value is None:
            vars(self).pop("_fw_saved", None)
        else:
            self.save_for_forward(*_tuple_field("saved_for_forward", value))

    @property
    def saved_variables(self) -> tuple[Tensor, ...]:
        """Deprecated alias of ``saved_tensors`` (afnio's name: no warning in a Function
        over values that are not arrays, see :mod:`.values`)."""
        if not takes_values(self):
            warnings.warn("'saved_variables' is deprecated; use 'saved_tensors'", DeprecationWarning, stacklevel=2)
        return self.saved_tensors

    def mark_shared_storage(self, *pairs: Any) -> None:
        """Removed from torch's API long ago: warns (a FutureWarning, as torch 2.13 does) and
        does nothing, since views and shared storage are tracked without it."""
        warnings.warn(_SHARED_STORAGE, FutureWarning, stacklevel=2)

"""Typed errors: what code catches instead of reading a message.

Each class is a subclass of the built-in type torch raises for the same mistake, so
``except RuntimeError`` (or ``NotImplementedError``, ``TypeError``) in ported code still
catches it, while ctxgrad's own code (and yours) can tell one failure from another by type:

* :class:`GradientTypeError`: a value of the wrong type where autograd needs a tensor (a
  ``TypeError`` and a ``RuntimeError``);
* :class:`OnceDifferentiableError`: the result of a ``once_differentiable`` backward was
  differentiated;
* :class:`NoJvpError`: forward mode needs the tangents of a Function that has no ``jvp``
  and whose ``backward`` cannot give them;
* :class:`ReshapeSizeError`: a shape that cannot hold the tensor's elements;
* :class:`SavedArrayWriteError`: ``forward`` wrote with NumPy into the array of a tensor a
  graph has saved for backward.

The errors of what ``backward`` (or ``jvp``) returns keep torch's exact types and carry the
:class:`~ctxgrad.autograd._validate.Problem` that was found as their ``problem`` attribute
(read it with :func:`~ctxgrad.autograd._validate.problem_of`).

This module imports nothing from ctxgrad, so every layer can import it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = [
    "GradientTypeError",
    "NoJvpError",
    "OnceDifferentiableError",
    "ReshapeSizeError",
    "SavedArrayWriteError",
]


_FREED_MSG = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)


class GradientTypeError(TypeError, RuntimeError):
    """A value of the wrong type where autograd needs a tensor: a backward that returns a
    float, a list or an array as a gradient, or ``ctx.mark_dirty(3)``.

    It is a ``TypeError`` and, because torch raises ``RuntimeError`` for the same misuse, a
    ``RuntimeError`` too, so ``except RuntimeError`` in ported code still catches it.
    """


class OnceDifferentiableError(RuntimeError):
    """A gradient computed by a backward marked ``@once_differentiable`` was differentiated
    (a double backward, ``autograd.grad`` of it, or ``gradgradcheck``)."""


class NoJvpError(NotImplementedError):
    """Forward mode reached a Function that has no ``jvp``, and its ``backward`` cannot be
    differentiated to derive the tangents (it is ``once_differentiable`` or computes outside
    ctxgrad ops).  A ``NotImplementedError``, as torch raises for a Function without ``jvp``."""


class ReshapeSizeError(RuntimeError):
    """``reshape``/``view``/``unflatten`` to a shape whose size is not the number of elements
    (torch's ``shape '[...]' is invalid for input of size n``)."""


class SavedArrayWriteError(RuntimeError, ValueError):
    """``forward`` wrote into an argument's array with NumPy while a graph holds that tensor
    for backward (its array is read-only while it is saved).  Also a ValueError, the type
    of NumPy's own refusal, which it replaces."""


def raiser(exc: type[Exception], msg: str) -> Callable[..., Any]:
    """A function that raises ``exc(msg)`` whatever it is called with (stands in for a method
    a class must not have, or lacks)."""

    def raise_(*args: Any) -> Any:
        raise exc(msg)

    return raise_

"""Grad modes: ``no_grad``, ``enable_grad``, ``set_grad_enabled``, ``inference_mode``, and
:func:`run_in_grad_mode` for ctxgrad's own switches.

Each mode is a flag in the thread's own ``ctxgrad._state._state.modes``: a ``no_grad`` block in one
thread never changes what another thread records, and a new thread starts with grad
enabled, as in torch.  ``Function.apply`` fetches the modes once per call and reads
``grad_enabled`` on every call, so the flag is a plain slot rather than a property.

Every mode object works as a context manager and as a decorator; the decorated function
keeps its ``__name__`` and ``__doc__``.
"""

from __future__ import annotations

from collections.abc import Callable
from types import TracebackType
from typing import Any, TypeVar

from ctxgrad._state import _state
from ctxgrad.autograd._decorator import _DecoratorContextManager, _ModeSwitch

F = TypeVar("F", bound=Callable[..., Any])
R = TypeVar("R")


def run_in_grad_mode(enabled: bool, fn: Callable[..., R], *args: Any) -> R:
    """``fn(*args)`` with grad mode ``enabled`` in this thread, the previous mode restored
    after: the helper behind the internal switches (the engine runs with ``create_graph``,
    saved-tensor pack hooks with grad off).  ``apply``, the hottest path, switches grad mode
    off around ``forward`` inline, with the same try/finally."""
    prev = _state.modes.grad_enabled
    if prev == enabled:
        return fn(*args)
    _state.modes.grad_enabled = enabled
    try:
        return fn(*args)
    finally:
        _state.modes.grad_enabled = prev


def is_grad_enabled() -> bool:
    """True when ops record a graph in this thread."""
    return _state.modes.grad_enabled


def is_recording() -> bool:
    """True when ctxgrad ops run now can be recorded or transformed: grad mode is on, or a
    trace, ``vmap``, forward-mode level or inference mode is active in this thread.

    When it is False, nothing will see how a result was computed, so a ``backward`` may
    compute on the arrays (``x.array``, NumPy, ``as_tensor``) and skip the ops' bookkeeping;
    when it is True (``create_graph=True``, a transform), it must use ctxgrad ops, so that
    its result is differentiable and batchable.  The built-in matrix products,
    ``cross_entropy`` and the engine's summing of broadcast gradients take this shortcut.
    docs/custom-functions.md, section 10, shows a Function that does."""
    modes = _state.modes  # (one lookup of the thread's flags, not two)
    return modes.grad_enabled or modes.special


def is_inference_mode_enabled() -> bool:
    """True inside an ``inference_mode`` block in this thread."""
    return _state.modes.inference


class no_grad(_DecoratorContextManager):
    """Disable graph recording in this thread.

    >>> import ctxgrad
    >>> x = ctxgrad.ones(2, requires_grad=True)
    >>> with ctxgrad.no_grad():
    ...     y = x * 2
    >>> y.requires_grad
    False

    Like torch, ``@no_grad`` may be written with or without parentheses.
    """

    def __new__(cls, orig_func: Callable[..., Any] | None = None) -> Any:
        if orig_func is None:
            return super().__new__(cls)
        # ``@no_grad`` without parentheses: decorate at once.
        return cls()(orig_func)

    def __init__(self, orig_func: Callable[..., Any] | None = None) -> None:
        self._prev = True

    def __enter__(self) -> None:
        self._prev = _state.modes.grad_enabled
        _state.modes.grad_enabled = False

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        _state.modes.grad_enabled = self._prev


class enable_grad(_DecoratorContextManager):
    """Enable graph recording in this thread (inside a ``no_grad`` block, say)."""

    def __new__(cls, orig_func: Callable[..., Any] | None = None) -> Any:
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)

    def __init__(self, orig_func: Callable[..., Any] | None = None) -> None:
        self._prev = True

    def __enter__(self) -> None:
        self._prev = _state.modes.grad_enabled
        _state.modes.grad_enabled = True

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        _state.modes.grad_enabled = self._prev


class set_grad_enabled(_ModeSwitch):
    """Set grad mode to ``mode``: at once when called, restored when used with ``with``.

    >>> import ctxgrad
    >>> _ = ctxgrad.set_grad_enabled(False)
    >>> ctxgrad.is_grad_enabled()
    False
    >>> _ = ctxgrad.set_grad_enabled(True)
    """

    flag = "grad_enabled"


class inference_mode(_DecoratorContextManager):
    """``no_grad`` that also marks the tensors made inside as inference tensors.

    An inference tensor may not take part in recorded computation later, may not be
    changed in place outside inference mode, and may not be made to require grad, as in
    torch.  ``inference_mode(False)`` switches it off again inside (and grad mode on).
    """

    def __new__(cls, mode: bool | Callable[..., Any] = True) -> Any:
        if callable(mode):
            return cls()(mode)
        return super().__new__(cls)

    def __init__(self, mode: bool | Callable[..., Any] = True) -> None:
        self.mode = bool(mode) if not callable(mode) else True
        self._prev_grad = True
        self._prev_inf = False

    def clone(self) -> inference_mode:
        return self.__class__(self.mode)

    def __enter__(self) -> None:
        self._prev_grad = _state.modes.grad_enabled
        self._prev_inf = _state.modes.inference
        # As torch: inference_mode(False) turns inference mode off and grad mode on.
        _state.modes.grad_enabled = not self.mode
        _state.modes.inference = self.mode

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        _state.modes.grad_enabled = self._prev_grad
        _state.modes.inference = self._prev_inf

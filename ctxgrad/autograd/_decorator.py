"""A context manager that is also a decorator, as torch's grad modes are.

``@no_grad()`` on a function enters a fresh copy of the mode on every call; on a generator
function, around every step of the generator, so that code between ``yield`` s runs in the
mode and the caller's code does not.  :class:`_ModeSwitch` is the ``set_grad_enabled(mode)``
kind: it sets one flag of the thread's modes when called, and restores it after a block.
"""

from __future__ import annotations

import functools
import inspect
import sys
import warnings
from collections.abc import Callable, Generator
from types import TracebackType
from typing import Any, ClassVar, TypeVar, cast

from ctxgrad._state import _state

F = TypeVar("F", bound=Callable[..., Any])

__all__ = ["_DecoratorContextManager", "_ModeSwitch"]


class _DecoratorContextManager:
    """A context manager that also decorates functions, re-entering itself per call."""

    def __call__(self, func: F) -> F:
        if inspect.isclass(func):
            warnings.warn(
                "Decorating classes is deprecated and will be disabled in future versions. You should only "
                "decorate functions or methods. To preserve the current behavior of class decoration, you can "
                "directly decorate the `__init__` method and nothing else.",
                FutureWarning,
                stacklevel=2,
            )
            cls = func
            func = cast(F, lambda *args, **kwargs: cls(*args, **kwargs))  # (made in the mode, as in torch)
        if inspect.isgeneratorfunction(func):
            return cast(F, self._wrap_generator(func))

        @functools.wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            with self.clone():
                return func(*args, **kwargs)

        return cast(F, wrapper)

    def _wrap_generator(self, func: Callable[..., Generator[Any, Any, Any]]) -> Callable[..., Any]:
        """Run every step of a generator, not only its creation, inside the mode."""

        @functools.wraps(func)
        def generator(*args: Any, **kwargs: Any) -> Generator[Any, Any, Any]:
            gen = func(*args, **kwargs)
            try:
                with self.clone():
                    response = gen.send(None)
                while True:
                    try:
                        request = yield response
                    except GeneratorExit:
                        with self.clone():
                            gen.close()
                        raise
                    except BaseException:
                        with self.clone():
                            response = gen.throw(*sys.exc_info())
                    else:
                        with self.clone():
                            response = gen.send(request)
            except StopIteration as stop:
                return stop.value

        return generator

    def clone(self) -> _DecoratorContextManager:
        """A fresh instance with the same settings (a decorator enters it once per call)."""
        return self.__class__()

    def __enter__(self) -> None:  # pragma: no cover - every subclass overrides it
        raise NotImplementedError

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:  # pragma: no cover - every subclass overrides it
        raise NotImplementedError


class _ModeSwitch(_DecoratorContextManager):
    """Set the thread's flag ``_state.modes.<flag>`` to ``mode``: at once when called, restored
    when used with ``with`` (at the block's end) or as a decorator (after each call)."""

    flag: ClassVar[str]  # the name of the flag in ``ctxgrad._state.Modes``

    def __init__(self, mode: bool) -> None:
        modes = _state.modes
        self._prev: bool = getattr(modes, self.flag)
        self.mode = bool(mode)
        setattr(modes, self.flag, self.mode)

    def __call__(self, func: F) -> F:
        # Used as a decorator, the constructor must not leave the flag changed.
        setattr(_state.modes, self.flag, self._prev)
        return super().__call__(func)

    def clone(self) -> _ModeSwitch:
        return self.__class__(self.mode)

    def __enter__(self) -> None:
        setattr(_state.modes, self.flag, self.mode)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        setattr(_state.modes, self.flag, self._prev)

"""``ctxgrad.backends.cudnn``: cuDNN's flags, kept as torch keeps them, with no effect.

ctxgrad has no cuDNN (``is_available()`` is False).  The flags a training script sets for
reproducibility are attributes of this module as in torch, each a bool, with torch's defaults
(``enabled`` True, ``benchmark`` and ``deterministic`` False, ``allow_tf32`` True); setting one
to something else than a bool is torch's ``RuntimeError``.  :func:`flags` sets them for the
duration of a ``with`` block.

>>> import ctxgrad
>>> ctxgrad.backends.cudnn.deterministic
False
>>> with ctxgrad.backends.cudnn.flags(enabled=True, deterministic=True):
...     ctxgrad.backends.cudnn.deterministic
True
>>> ctxgrad.backends.cudnn.deterministic
False
"""

from __future__ import annotations

import sys
import types
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["allow_tf32", "benchmark", "deterministic", "enabled", "flags", "is_available", "version"]

_FLAGS = {"enabled": True, "benchmark": False, "deterministic": False, "allow_tf32": True}
#: torch's names for the setter of each flag, which its error message names.
_SETTERS = {
    "enabled": "set_enabled_cudnn",
    "benchmark": "set_benchmark_cudnn",
    "deterministic": "set_deterministic_cudnn",
    "allow_tf32": "set_allow_tf32_cudnn",
}

enabled: bool
benchmark: bool
deterministic: bool
allow_tf32: bool


def is_available() -> bool:
    """False: ctxgrad has no cuDNN."""
    return False


def version() -> None:
    """None: no cuDNN is loaded (as torch says without it)."""
    return None


def _set(name: str, value: Any) -> None:
    if not isinstance(value, bool):
        raise RuntimeError(f"{_SETTERS[name]} expects a bool, but got {type(value).__name__}")
    _FLAGS[name] = value


@contextmanager
def flags(
    enabled: bool = False,
    benchmark: bool = False,
    benchmark_limit: int = 10,
    deterministic: bool = False,
    allow_tf32: bool = True,
) -> Iterator[None]:
    """Set the flags inside a ``with`` block and restore them after it (torch's signature
    and defaults; ``benchmark_limit`` is accepted and unused)."""
    before = dict(_FLAGS)
    try:
        for name, value in (
            ("enabled", enabled),
            ("benchmark", benchmark),
            ("deterministic", deterministic),
            ("allow_tf32", allow_tf32),
        ):
            _set(name, value)
        yield
    finally:
        _FLAGS.update(before)


class _CudnnModule(types.ModuleType):
    """This module's class: its flags are properties, so setting one checks it is a bool."""

    def __getattr__(self, name: str) -> Any:
        if name in _FLAGS:
            return _FLAGS[name]
        raise AttributeError(f"module '{self.__name__}' has no attribute '{name}'")

    def __setattr__(self, name: str, value: Any) -> None:
        if name in _FLAGS:
            _set(name, value)
        else:
            super().__setattr__(name, value)


sys.modules[__name__].__class__ = _CudnnModule

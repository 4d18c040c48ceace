"""``ctxgrad.autograd.profiler``: torch's ``record_function``, which labels a block of code
for torch's profiler.  ctxgrad has no profiler, so the label is kept on the object and nothing
is recorded; code that labels its steps runs unchanged."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = ["record_function"]

F = TypeVar("F", bound=Callable[..., Any])


class record_function:
    """``with record_function("forward"):`` (or ``@record_function("forward")``): a named
    block; ``name`` and ``args`` are kept, nothing else happens."""

    def __init__(self, name: str, args: str | None = None) -> None:
        self.name, self.args = name, args

    def __enter__(self) -> record_function:
        return self

    def __exit__(self, *exc: object) -> None:
        return None

    def __call__(self, func: F) -> F:
        @functools.wraps(func)
        def labelled(*args: Any, **kwargs: Any) -> Any:
            with self:
                return func(*args, **kwargs)

        return labelled  # type: ignore[return-value]

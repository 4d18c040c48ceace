"""``torch.compiler``'s markers, for code that decorates functions to keep them out of
compilation. ctxgrad compiles nothing, so each marker leaves the function as it is and every
"are we compiling?" query answers False: a program written for torch runs the same code it
runs under torch's eager mode."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar, overload

__all__ = ["allow_in_graph", "assume_constant_result", "disable", "is_compiling", "is_dynamo_compiling", "is_exporting"]

FunctionT = TypeVar("FunctionT", bound=Callable[..., Any])


@overload
def disable(fn: FunctionT, recursive: bool = True, *, reason: str | None = None) -> FunctionT: ...
@overload
def disable(
    fn: None = None, recursive: bool = True, *, reason: str | None = None
) -> Callable[[FunctionT], FunctionT]: ...
def disable(fn: Any = None, recursive: bool = True, *, reason: str | None = None) -> Any:
    """Keep ``fn`` out of compilation: here, ``fn`` itself (used bare or as ``@disable()``)."""
    if fn is None:
        return lambda inner: inner
    return fn


def allow_in_graph(fn: FunctionT) -> FunctionT:
    """Let a compiler put ``fn`` in its graph as a call: here, ``fn`` itself."""
    return fn


def assume_constant_result(fn: FunctionT) -> FunctionT:
    """Let a compiler treat ``fn``'s result as a constant: here, ``fn`` itself."""
    return fn


def is_compiling() -> bool:
    """Whether this code runs inside a compiler's trace: never, on ctxgrad."""
    return False


def is_dynamo_compiling() -> bool:
    """Whether this code runs inside TorchDynamo's trace: never, on ctxgrad."""
    return False


def is_exporting() -> bool:
    """Whether this code runs inside ``torch.export``: never, on ctxgrad."""
    return False

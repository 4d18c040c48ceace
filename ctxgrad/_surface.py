"""The public surface (L4): the Tensor methods, in-place variants, dunders and aliases of
every op, attached once from the op table (:data:`ctxgrad.ops.table.OPS`).

A frontend's first parameter is ``input``; set on the class, the same function object is
the method (``x.exp()`` calls ``ops.pointwise.exp(x)``), so a method adds no call layer.  An
in-place variant runs the frontend through the one in-place mechanism
(``Tensor._in_place``, :mod:`ctxgrad.ops.inplace`).  ``ctxgrad/__init__.py`` imports the
``ctxgrad.*`` functions (written there by ``python -m ctxgrad._gen_methods``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ctxgrad._tensor import Tensor
from ctxgrad.ops.table import OPS, Op

__all__ = ["attach", "functions", "methods"]


def _in_place(name: str, frontend: Callable[..., Tensor], doc: str | None) -> Callable[..., Tensor]:
    """The in-place method ``name``: ``frontend`` run out of place, written into ``self``."""

    def method(self: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return self._in_place(frontend, *args, **kwargs)

    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"In place: {doc}" if doc else None
    return method


def methods(op: Op) -> Iterator[tuple[str, Callable[..., Any]]]:
    """The Tensor attributes that ``op`` makes: ``(name, function)``."""
    method = op.method_frontend or op.frontend
    if op.method:
        yield op.name, method
        for alias in op.aliases:
            yield alias, method
    for dunder in op.dunders:
        yield dunder, method
    if op.inplace is not None:
        yield op.inplace, _in_place(op.inplace, method, method.__doc__)


def functions(op: Op) -> Iterator[tuple[str, Callable[..., Any]]]:
    """The ``ctxgrad.*`` functions that ``op`` makes: ``(name, function)``."""
    if op.function:
        yield op.name, op.frontend
        for alias in op.aliases:
            yield alias, op.frontend


def attach() -> None:
    """Set every op's methods on :class:`Tensor` (once, when ``ctxgrad`` is imported)."""
    for op in OPS:
        for name, fn in methods(op):
            setattr(Tensor, name, fn)


attach()

"""The public surface (L4): the Tensor methods, in-place variants, dunders and aliases of
every op, attached once from the op table (:data:`ctxgrad.ops.table.OPS`).

A frontend's first parameter is ``input``; set on the class, the same function object is
the method (``x.exp()`` calls ``ops.pointwise.exp(x)``), so a method adds no call layer.  An
in-place variant is a frontend too (``ops.pointwise.exp_``: the op's Function made in place,
see :mod:`ctxgrad.ops.inplace`).  ``ctxgrad/__init__.py`` imports the ``ctxgrad.*``
functions (written there by ``python -m ctxgrad._gen_methods``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

from ctxgrad._tensor import Tensor
from ctxgrad.ops.table import OPS, Op

__all__ = ["attach", "functions", "methods"]


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
        yield op.inplace.__name__, op.inplace
        for dunder in op.inplace_dunders:
            yield dunder, op.inplace


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

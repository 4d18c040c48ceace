"""A node's edges, stored flat.

A node's ``_edges`` holds four entries per argument of the forward call, in order::

    node, output_nr, shape, dtype

where that argument's gradient goes (``node`` None when it needs none) and the shape and
dtype the gradient must have.  A non-tensor argument's four are ``None, 0, None, None``:
its ``shape`` is None.  So ``y = x * 2.0`` with ``x`` a leaf records
``(AccumulateGrad, 0, (3,), float32, None, 0, None, None)``.

Why flat, and not one ``(node, output_nr, shape, dtype)`` tuple per argument: each of
those tuples is one more object for Python's cyclic garbage collector to track, and a
forward pass makes one per tensor argument of every op (benchmarks/README.md measures
what that cost).  The hot loops (``_record``, the engine, ``check_grads``) read the flat
tuple by index; the rest of the library reads one argument's edge at a time through
:func:`edge_at` or all of them through :func:`edges_of`.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ctxgrad.autograd.values import is_value_dtype

if TYPE_CHECKING:
    import numpy as np

    from ctxgrad.autograd.graph import Node

#: One argument's edge: where its gradient goes, and the shape and dtype it must have.
Edge = tuple["Node | None", int, tuple[int, ...], "np.dtype[Any]"]

#: The entries each argument takes in a node's flat ``_edges``.
WIDTH = 4
#: A non-tensor argument's entries.
NO_EDGE: tuple[None, int, None, None] = (None, 0, None, None)


def edge_count(flat: tuple[Any, ...]) -> int:
    """The number of forward arguments a flat ``_edges`` describes."""
    return len(flat) // WIDTH


def edge_at(flat: tuple[Any, ...], i: int) -> Edge | None:
    """Argument ``i``'s edge ``(node, output_nr, shape, dtype)``, None for a non-tensor one."""
    k = WIDTH * i
    if flat[k + 2] is None:
        return None
    return flat[k : k + WIDTH]


def edges_of(node: Any) -> tuple[Edge | None, ...]:
    """A node's edges, one per forward argument (none for a node that recorded nothing)."""
    flat: tuple[Any, ...] = getattr(node, "_edges", ())
    return tuple(edge_at(flat, i) for i in range(edge_count(flat)))


def takes_values(node: Any) -> bool:
    """Whether a tensor argument of the node's call holds a value that is not an array of
    numbers (a registered value type, :mod:`.values`)."""
    return any(e is not None and is_value_dtype(e[3]) for e in edges_of(node))


def flatten(edges: Iterable[Edge | None]) -> tuple[Any, ...]:
    """The flat ``_edges`` of one edge (or None) per forward argument."""
    flat: list[Any] = []
    for e in edges:
        flat.extend(NO_EDGE if e is None else e)
    return tuple(flat)

"""The op table: :data:`OPS` gathers the rows (:class:`~ctxgrad.ops._row.Op`) that each
family module declares beside its Functions, in its ``ROWS`` (``ops.pointwise.ROWS``,
``ops.binary.ROWS``, ...): every built-in op is declared once, there.

A row names an op (torch's name), its *frontend* (the Function itself, from which the
frontend is made, with an argument handler where the arguments need work, or a function of
the family module that chooses between Functions) and where it appears: a Tensor method of
the same name, its in-place variant (``exp_``), a ``ctxgrad.<name>`` function with or without
``out=``, ``ctxgrad.nn.functional``, dunders (``__add__``), NumPy ufuncs and other names
(``aliases``).  ``ctxgrad._surface`` (L4) walks :data:`OPS` once, when ``ctxgrad`` is imported, and attaches
the methods; ``python -m ctxgrad._gen_methods`` writes their typed declarations into
``class Tensor``, the made functions' stubs into ``ctxgrad/_made_functions.py`` and the
function imports into ``ctxgrad/__init__.py``, and a test fails when those are stale.

>>> from ctxgrad.ops.table import OPS
>>> [op for op in OPS if op.name == "exp"][0].inplace.__name__
'exp_'
>>> [op.frontend.__module__ for op in OPS if op.name == "index_add"]
['ctxgrad.ops.index_ops']

Two rules are declared on the Function itself rather than on its row, because ``apply`` and
the engine run Functions, not rows, and a user's Function declares them the same way: the
complex-gradient rule (``holomorphic = True``) and the batching rule of ``vmap`` (its
``vmap`` staticmethod, torch's API for custom Functions: a built-in op either uses one of the
generic rules of ``ctxgrad.autograd.batching`` (``vmap = elementwise_rule``, ``dims_rule(1)``,
...) or declares its own beside it, as ``Roll.vmap`` and ``Convolution.vmap`` do; autograd/
holds no op's rule, tests/test_autograd_mechanism_only.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ctxgrad.ops import (
    activations,
    arithmetic,
    binary,
    comparison,
    complex_numbers,
    convolution,
    copy,
    cumulative,
    decompositions,
    einsum,
    gather_scatter,
    householder,
    index_ops,
    indexing,
    inplace,
    joining,
    linalg,
    linalg_composed,
    losses,
    pointwise,
    reduction,
    reordering,
    shape,
    softmax,
    sorting,
    special_functions,
    statistics,
)
from ctxgrad.ops._row import Op

__all__ = ["OPS", "OUT_VARIANTS", "Op", "frontend"]


OPS: list[Op] = [
    # ----------------------------------------------------------------------- pointwise
    *pointwise.ROWS,
    *binary.ROWS,
    *special_functions.ROWS,
    *activations.ROWS,
    # ----------------------------------------------------------------------- arithmetic
    *arithmetic.ROWS,
    # ----------------------------------------------------------------------- comparison
    *comparison.ROWS,
    # ----------------------------------------------------------------------- reduction
    *reduction.ROWS,
    *cumulative.ROWS,
    *softmax.ROWS,
    # ----------------------------------------------------------------------- statistics
    *statistics.ROWS,
    # ----------------------------------------------------------------------- shape
    *shape.ROWS,
    *joining.ROWS,
    *reordering.ROWS,
    # ----------------------------------------------------------------------- linear algebra
    *linalg.ROWS,
    *linalg_composed.ROWS,
    *einsum.ROWS,
    *decompositions.ROWS,
    *householder.ROWS,
    # ----------------------------------------------------------------------- indexing
    *indexing.ROWS,
    *gather_scatter.ROWS,
    *index_ops.ROWS,
    # ----------------------------------------------------------------------- in place only
    *inplace.ROWS,
    # ----------------------------------------------------------------------- complex numbers
    *complex_numbers.ROWS,
    # ----------------------------------------------------------------------- sorting
    *sorting.ROWS,
    # ----------------------------------------------------------------------- nn.functional's ops
    *convolution.ROWS,
    *losses.ROWS,
    # ----------------------------------------------------------------------- copies and dtypes
    # last: the declarations of float, int, bool and type hide the builtins in class Tensor after them
    *copy.ROWS,
]

# ----------------------------------------------------------------------- out= (torch's out variants)
#: The ops whose ``ctxgrad.<name>`` function takes ``out=`` as torch's does (a tensor, or a tuple
#: of them for an op with several results; the methods take none, as in torch): the rows that
#: say ``out=True``.  The surface adds it (``_surface.with_out``) to those whose frontend has no
#: ``out`` parameter of its own.
OUT_VARIANTS = frozenset(op.name for op in OPS if op.out)


def frontend(name: str) -> Callable[..., Any]:
    """The frontend of the row named ``name`` (``ctxgrad.nn.functional.sigmoid`` is ``sigmoid``'s)."""
    return next(op.frontend for op in OPS if op.name == name)

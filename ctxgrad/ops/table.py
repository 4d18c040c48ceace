"""The op table: each built-in op declared once, as one row.

A row names an op (torch's name), its *frontend* (the function in its family's module that
takes torch's arguments, normalises them and calls ``SomeFunction.apply``) and where it
appears: a Tensor method of the same name, its in-place variant (``exp_``), a
``ctxgrad.<name>`` function, an alias in ``ctxgrad.nn.functional``, dunders (``__add__``)
and other names (``aliases``).  ``ctxgrad._surface`` (L4) walks :data:`OPS` once, when
``ctxgrad`` is imported, and attaches the methods; ``python -m ctxgrad._gen_methods`` writes
their typed declarations into ``class Tensor`` and the function imports into
``ctxgrad/__init__.py``, and a test fails when those are stale.

>>> from ctxgrad.ops.table import OPS
>>> [op for op in OPS if op.name == "exp"][0].inplace
'exp_'

The fields ``holomorphic`` and ``batching`` are room for later work (complex gradients and
``vmap``); they are None for every op today.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from ctxgrad.ops import pointwise

__all__ = ["OPS", "Op"]


@dataclass(frozen=True)
class Op:
    """One op and its surfaces (see the module docstring)."""

    name: str
    frontend: Callable[..., Any]
    method: bool = True
    function: bool = True
    inplace: str | None = None
    nn_functional: bool = False
    node_name: str | None = None
    holomorphic: bool | None = None
    batching: Callable[..., Any] | None = None
    aliases: tuple[str, ...] = ()
    #: The Tensor method when it differs from the function (torch counts argument positions
    #: from ``self`` in methods, from ``input`` in functions, so some errors differ).
    method_frontend: Callable[..., Any] | None = None
    #: Dunders (``"__add__"``) that are this op, each attached as the method is.
    dunders: tuple[str, ...] = ()


def _unary(name: str, **fields: Any) -> Op:
    """A row for a one-tensor op of ``pointwise`` (its frontend has the op's name)."""
    return Op(name, getattr(pointwise, name), **fields)


OPS: list[Op] = [
    # ----------------------------------------------------------------------- pointwise
    _unary("exp", inplace="exp_"),
    _unary("log", inplace="log_"),
    _unary("tanh", inplace="tanh_", nn_functional=True),
    _unary("abs", inplace="abs_"),
    _unary("sign"),
    _unary("sqrt", inplace="sqrt_"),
    _unary("rsqrt"),
    _unary("square"),
    _unary("reciprocal"),
    _unary("exp2"),
    _unary("expm1"),
    _unary("log2"),
    _unary("log10"),
    _unary("log1p"),
    _unary("sin"),
    _unary("cos"),
    _unary("tan"),
    _unary("asin"),
    _unary("acos"),
    _unary("atan"),
    _unary("sinh"),
    _unary("cosh"),
    _unary("sigmoid", inplace="sigmoid_", nn_functional=True),
    _unary("relu", inplace="relu_"),
    _unary("floor"),
    _unary("ceil"),
    _unary("round"),
    _unary("trunc"),
    _unary("frac"),
    _unary("erf"),
    _unary("erfc"),
    _unary("logit"),
    Op("atan2", pointwise.atan2, method_frontend=pointwise.atan2_method),
    Op("arctan2", pointwise.arctan2, method_frontend=pointwise.arctan2_method),
    Op("maximum", pointwise.maximum, method_frontend=pointwise.maximum_method),
    Op("minimum", pointwise.minimum, method_frontend=pointwise.minimum_method),
    _unary("clamp", inplace="clamp_"),
    _unary("clip", inplace="clip_"),
    _unary("clamp_min"),
    _unary("clamp_max"),
    Op("lerp", pointwise.lerp, method_frontend=pointwise.lerp_method),
    Op("where", pointwise.where, method=False),
]

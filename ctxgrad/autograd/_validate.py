"""Gradient validation: what a ``backward`` returns, checked and fitted to its inputs.

:func:`check_grads` is the one place where every gradient any op returns is checked: the
count, the type, the shape (a gradient of a broadcast shape is summed down to the input's,
anything else is an error naming the argument) and the dtype (cast to the input's, as torch
does).  The engine calls it through the node (``BackwardCFunction._run``), and
``ctxgrad check`` reads the same rules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from ctxgrad._tensor import Tensor

if TYPE_CHECKING:
    from ctxgrad.autograd.function import BackwardCFunction, Function

__all__ = ["GradientTypeError", "arg_label_of", "check_all_tensors", "check_grads"]


class GradientTypeError(TypeError, RuntimeError):
    """A value of the wrong type where autograd needs a tensor: a backward that returns a
    float, a list or an array as a gradient, or ``ctx.mark_dirty(3)``.

    It is a ``TypeError`` and, because torch raises ``RuntimeError`` for the same misuse, a
    ``RuntimeError`` too, so ``except RuntimeError`` in ported code still catches it.
    """


def check_all_tensors(ctx: BackwardCFunction, what: str, tensors: tuple[Any, ...]) -> None:
    for i, t in enumerate(tensors):
        if not isinstance(t, Tensor):
            raise GradientTypeError(
                f"{what} only accepts Tensors, but argument {i} is of type {type(t).__name__} "
                f"(in {ctx._forward_cls.__name__}.forward)"
            )


def _expandable(shape: tuple[int, ...], target: tuple[int, ...]) -> bool:
    """True when ``shape`` broadcasts to ``target`` (so a gradient of ``target`` sums down)."""
    if len(shape) > len(target):
        return False
    for s, t in zip(reversed(shape), reversed(target)):
        if s != t and s != 1:
            return False
    return True


def check_grads(node: BackwardCFunction, result: Any) -> list[Tensor | None]:
    """Check what a backward returned, one gradient per forward argument, and fit each one.

    This is the one place where gradients are validated: the count (extra trailing Nones
    are allowed), the type, the shape (a gradient of a broadcast shape is summed down to
    the input's shape, anything else is an error naming the argument), and the dtype
    (cast to the input's, as torch does).  Gradients for tensors that do not require grad
    are checked too, then dropped.
    """
    edges = node._edges
    if type(result) is not tuple:
        if len(edges) == 1 and type(result) is Tensor:
            # The common case, one argument: check it without building tuples.
            e = edges[0]
            data = result._data
            if e is not None and data.shape == e[2] and data.dtype == e[3]:
                return [result if e[0] is not None else None]
        result = (result,)
    n = len(edges)
    if len(result) != n:
        if len(result) > n and all(g is None for g in result[n:]):
            result = result[:n]
        else:
            raise RuntimeError(
                f"function {node.name()} returned an incorrect number of gradients (expected {n}, "
                f"got {len(result)}){_signature_hint(node)}"
            )
    out: list[Tensor | None] = []
    for i in range(n):
        g = result[i]
        if g is None:
            out.append(None)
            continue
        e = edges[i]
        if e is None:
            raise GradientTypeError(
                f"function {node.name()} returned a gradient different than None at position {i + 1}, "
                "but the corresponding forward input was not a Variable "
                f"(argument {_arg_label(node, i)} is not a tensor; return None for it)"
            )
        if not isinstance(g, Tensor):
            raise GradientTypeError(
                f"expected Variable or None (got {type(g).__name__}): function {node.name()} returned "
                f"it as the gradient of argument {_arg_label(node, i)}; wrap it with ctxgrad.tensor or return None"
            )
        data = g._data
        if data.shape != e[2]:
            g = _fit_shape(node, i, g, e[2])
        if data.dtype != e[3]:
            g = _fit_dtype(node, i, g, e[3])
        out.append(g if e[0] is not None else None)
    return out


def _fit_shape(node: BackwardCFunction, i: int, g: Tensor, shape: tuple[int, ...]) -> Tensor:
    if _expandable(shape, g._data.shape):
        from ctxgrad.ops.reduction import SumToSize

        return SumToSize.apply(g, shape)
    raise RuntimeError(
        f"Function {node.name()} returned an invalid gradient at index {i} - got {list(g._data.shape)} "
        f"but expected shape compatible with {list(shape)} (argument {_arg_label(node, i)} of "
        f"{node._forward_cls.__name__}.forward has shape {list(shape)}; a gradient must have the "
        "argument's shape or a shape it broadcasts to)"
    )


def _fit_dtype(node: BackwardCFunction, i: int, g: Tensor, dtype: np.dtype[Any]) -> Tensor:
    if g._data.dtype.kind == "c" and dtype.kind != "c":
        raise RuntimeError(
            f"Function {node.name()} returned a complex gradient for argument {_arg_label(node, i)}, "
            f"which is real ({dtype.name}); return the real part or make the input complex"
        )
    return g.to(dtype)


def _arg_label(node: BackwardCFunction, i: int) -> str:
    return arg_label_of(node._forward_cls, i)


def _signature_hint(node: BackwardCFunction) -> str:
    names = node._forward_cls._plan.slot_names
    if names and len(names) == len(node._edges):
        return f"; forward takes ({', '.join(names)}), so backward must return one gradient (or None) for each"
    return ""


def arg_label_of(cls: type[Function], i: int) -> str:
    names = cls._plan.slot_names
    name = names[i] if i < len(names) else f"args[{i - len(names)}]"
    return f"'{name}' (index {i})"

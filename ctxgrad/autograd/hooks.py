"""Node hooks: running the pre-hooks and post-hooks registered on a backward node.

A pre-hook sees the node's incoming gradients (one per output) and may replace them; a
post-hook sees the gradients the node computed (one per tensor argument, as
``next_functions`` lists them) and the incoming ones, and may replace the former.  Both may
return None to leave them as they are.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ctxgrad._tensor import Tensor
    from ctxgrad.autograd.graph import Node

__all__ = ["run_posthooks", "run_prehooks"]


def run_prehooks(hooks: list[Callable[..., Any]], grads: list[Tensor | None]) -> list[Tensor | None]:
    for hook in tuple(hooks):
        new = hook(tuple(grads))
        if new is None:
            continue
        if not isinstance(new, tuple):
            raise TypeError(f"expected tuple, but hook returned '{type(new).__name__}'")
        if len(new) != len(grads):
            raise RuntimeError(
                f"hook '{getattr(hook, '__name__', hook)}' has returned an incorrect number of values "
                f"(got {len(new)}, but expected {len(grads)})"
            )
        grads = list(new)
    return grads


def run_posthooks(
    node: Node, hooks: list[Callable[..., Any]], checked: list[Tensor | None], grads: list[Tensor | None]
) -> list[Tensor | None]:
    # Hooks see one gradient per tensor argument, as next_functions lists them.
    slots = [i for i, e in enumerate(node._edges) if e is not None]
    grad_inputs = tuple(checked[i] for i in slots)
    for hook in tuple(hooks):
        new = hook(grad_inputs, tuple(grads))
        if new is None:
            continue
        if not isinstance(new, tuple):
            raise TypeError(f"expected tuple, but hook returned '{type(new).__name__}'")
        if len(new) != len(grad_inputs):
            raise RuntimeError(
                f"hook '{getattr(hook, '__name__', hook)}' has returned an incorrect number of values "
                f"(got {len(new)}, but expected {len(grad_inputs)})"
            )
        for old, g in zip(grad_inputs, new):
            if g is not None and old is not None and g._data.shape != old._data.shape:
                raise RuntimeError(f"hook '{getattr(hook, '__name__', hook)}' has changed the size of value")
        grad_inputs = new
    checked = list(checked)
    for i, g in zip(slots, grad_inputs):
        checked[i] = g
    return checked

"""One in-place mechanism: a user's Function that changes its input and calls
``ctx.mark_dirty`` builds the same graph as the built-in ``mul_``, on a tensor and on a
view (where the base's history goes through ``CopySlices``), and gives the same gradients,
which are torch's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import ctxgrad
from ctxgrad.autograd.printing import format_graph


def mul_in_place_function(lib: Any) -> Any:
    """A user's in-place multiply by a number, written as torch documents it."""

    class MulInPlace(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any, k: float) -> Any:
            x.mul_(k)
            ctx.mark_dirty(x)
            ctx.k = k
            return x

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            return grad * ctx.k, None

    return MulInPlace


def run(lib: Any, mul_: Callable[[Any], Any], view: bool) -> tuple[Any, Any, Any]:
    w = lib.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=lib.float64, requires_grad=True)
    base = w * 1.0
    target = base[0] if view else base
    mul_(target)
    loss = (base * base).sum()
    graph = format_graph(loss) if lib is ctxgrad else None
    loss.backward()
    return w.grad.tolist(), base.grad_fn.name(), graph


BUILT_IN = {"tensor": "MulBackward0", "view": "CopySlices"}


@pytest.mark.parametrize("where", ["tensor", "view"])
def test_mark_dirty_function_and_built_in_mul__build_the_same_graph(where: str) -> None:
    view = where == "view"
    MulInPlace = mul_in_place_function(ctxgrad)
    grad_builtin, base_node_builtin, graph_builtin = run(ctxgrad, lambda t: t.mul_(3.0), view)
    grad_user, base_node_user, graph_user = run(ctxgrad, lambda t: MulInPlace.apply(t, 3.0), view)
    # The same nodes and edges; only the name of the node that did the multiply differs.
    assert base_node_builtin == base_node_user.replace("MulInPlaceBackward", "MulBackward0") == BUILT_IN[where]
    assert graph_user.replace("MulInPlaceBackward", "MulBackward0") == graph_builtin
    assert "MulInPlaceBackward" in graph_user
    assert grad_user == grad_builtin
    expected = [[18.0, 36.0], [6.0, 8.0]] if view else [[18.0, 36.0], [54.0, 72.0]]
    assert grad_builtin == expected  # d/dw sum((3w)²) on the multiplied part, sum(w²) elsewhere


def both_paths(lib: Any, view: bool) -> tuple[Any, Any, str]:
    """(gradient through the user's Function, through the built-in mul_, base's node name)."""
    MulInPlace = mul_in_place_function(lib)
    grad_user, _, _ = run(lib, lambda t: MulInPlace.apply(t, 3.0), view)
    grad_builtin, base_node, _ = run(lib, lambda t: t.mul_(3.0), view)
    return grad_user, grad_builtin, base_node.removeprefix("torch::autograd::")


@pytest.mark.parametrize("where", ["tensor", "view"])
def test_both_in_place_paths_give_torch_s_gradients(torch: Any, where: str) -> None:
    view = where == "view"
    ours = both_paths(ctxgrad, view)
    theirs = both_paths(torch, view)
    assert ours[0] == ours[1]
    assert ours == theirs

"""torch's in-place view ops (``t_``, ``transpose_``, ``swapaxes_``, ``swapdims_``,
``squeeze_``, ``unsqueeze_``): the tensor takes the view's shape and strides
and its history; compared with torch, the same program on both."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _support import raised

import ctxgrad

torch = pytest.importorskip("torch")

_CHANGES: dict[str, Callable[[Any], Any]] = {
    "t_": lambda x: x.t_(),
    "transpose_": lambda x: x.transpose_(0, 1),
    "swapaxes_": lambda x: x.swapaxes_(1, 0),
    "swapdims_": lambda x: x.swapdims_(-1, 0),
    "squeeze_": lambda x: x.unsqueeze_(1).squeeze_(),
    "squeeze_-dim": lambda x: x.unsqueeze_(0).squeeze_(0),
    "unsqueeze_": lambda x: x.unsqueeze_(-1),
}


def _program(L: Any, change: Callable[[Any], Any]) -> list[Any]:
    a = L.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=L.float64, requires_grad=True)
    b = a * 1
    returned = change(b)
    weights = L.arange(float(b.numel()), dtype=L.float64).reshape(b.shape)
    (b * weights).sum().backward()
    return [returned is b, tuple(b.shape), b.stride(), b._version, b.tolist(), a.grad.tolist()]


@pytest.mark.parametrize("name", sorted(_CHANGES))
def test_the_tensor_takes_the_views_shape_and_history_as_in_torch(name: str) -> None:
    assert _program(ctxgrad, _CHANGES[name]) == _program(torch, _CHANGES[name])


@pytest.mark.parametrize("name", sorted(_CHANGES))
def test_a_view_changed_in_place_keeps_its_base_and_gradient_as_in_torch(name: str) -> None:
    def program(L: Any) -> list[Any]:
        a = L.tensor([[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]], dtype=L.float64, requires_grad=True)
        base = a * 2
        view = base[0]
        _CHANGES[name](view)
        (view * L.arange(6.0, dtype=L.float64).reshape(view.shape)).sum().backward()
        return [tuple(view.shape), view._base is base, a.grad.tolist()]

    assert program(ctxgrad) == program(torch)


def test_a_leaf_that_requires_grad_is_refused_and_no_grad_allows_it_as_in_torch() -> None:
    def program(L: Any) -> list[Any]:
        a = L.zeros(2, 3, requires_grad=True)
        refused = raised(lambda: a.t_(), L)
        with L.no_grad():
            a.unsqueeze_(0)
        return [refused, tuple(a.shape)]

    assert program(ctxgrad) == program(torch)


def test_the_tangent_follows_the_view_in_forward_mode_as_in_torch() -> None:
    def program(L: Any) -> list[Any]:
        def f(x: Any) -> Any:
            y = x * 1
            y.t_()
            return y * L.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], dtype=L.float64)

        x = L.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=L.float64)
        out, tangent = L.func.jvp(f, (x,), (L.ones_like(x),))
        return [out.tolist(), tangent.tolist()]

    ours, theirs = program(ctxgrad), program(torch)
    np.testing.assert_allclose(ours, theirs)


def test_the_in_place_view_ops_take_the_views_keywords() -> None:
    import inspect

    assert list(inspect.signature(ctxgrad.Tensor.transpose_).parameters) == ["input", "dim0", "dim1"]
    x = ctxgrad.zeros(2, 3)
    assert x.unsqueeze_(dim=0).shape == (1, 2, 3)

"""A hook (or ``retain_grad``) registered on a view after the view or its base was changed in
place goes on the view's history as it is now (re-read from the base), so it sees the
gradient, also when a ``create_graph`` gradient is differentiated again, as in torch."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

import ctxgrad

torch = pytest.importorskip("torch")

CHANGES = ["view_by_input", "view_by_number", "base_by_input", "base_slice_by_input"]


def run(lib: Any, change: str, hook: str, loss_of: str, view_of_view: bool) -> tuple[list[float], int]:
    x = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
    b = x * 1.0
    v = b[:3][1:] if view_of_view else b[:2]
    if change == "view_by_input":
        v.mul_(x[:2])
    elif change == "view_by_number":
        v.mul_(3)
    elif change == "base_by_input":
        b.mul_(x)
    else:
        b[1:].mul_(x[1:])
    if lib is torch:
        v.grad_fn  # (torch 2.13 crashes in register_hook on a view not re-read since its base changed)
    calls = []

    def record(g: Any) -> Any:
        calls.append(1)
        return g * g if hook == "square" else g * 10

    v.register_hook(record)
    loss = (v * v * v).sum() if loss_of == "view" else v.sin().sum() + (b * b).sum()
    (g,) = lib.autograd.grad(loss, x, create_graph=True)
    (gg,) = lib.autograd.grad((g * g).sum(), x, create_graph=True)  # the hook's result differentiated again
    (ggg,) = lib.autograd.grad(gg.sum(), x)
    return g.tolist() + gg.tolist() + ggg.tolist(), len(calls)


@pytest.mark.parametrize(
    ("change", "hook", "loss_of", "view_of_view"),
    list(itertools.product(CHANGES, ["square", "times_ten"], ["view", "view_and_base"], [False, True])),
)
def test_a_hook_registered_after_an_in_place_change_sees_every_order_of_gradient_as_in_torch(
    change: str, hook: str, loss_of: str, view_of_view: bool
) -> None:
    got, got_calls = run(ctxgrad, change, hook, loss_of, view_of_view)
    want, want_calls = run(torch, change, hook, loss_of, view_of_view)
    np.testing.assert_allclose(got, want, rtol=1e-12)
    assert got_calls == want_calls == 3


def test_the_hook_changes_the_gradient_of_the_view_whose_base_changed() -> None:
    for lib in (ctxgrad, torch):
        x = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
        b = x * 1.0
        v = b[:2]
        b.mul_(x)
        v.grad_fn  # (see above)
        v.register_hook(lambda g: g * 10)
        (g,) = lib.autograd.grad((v * v * v).sum(), x)
        assert g.tolist() == [60.0, 1920.0, 0.0]  # 6 and 192 without the hook


def test_retain_grad_after_the_base_changed_fills_the_views_grad() -> None:
    grads = []
    for lib in (ctxgrad, torch):
        x = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64, requires_grad=True)
        b = x * 1.0
        v = b[:2]
        b.mul_(x)
        v.retain_grad()
        (v * v).sum().backward()
        grads.append(v.grad.tolist())
    assert grads[0] == grads[1] == [2.0, 8.0]

"""``autograd.grad`` called inside ``vmap`` on batched tensors gives each sample's gradient.

torch refuses it (its batched tensors carry no autograd history: "element 0 of tensors does
not require grad"); ctxgrad records the history on the tensors that hold every sample, so it
can answer, and ``gradcheck(check_batched_grad=True)``, which runs the function under vmap,
relies on it for functions that call ``autograd.grad`` themselves (``autograd.functional``
with ``create_graph=True``).  Each value is checked against torch run once per sample.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import ctxgrad
from ctxgrad.func import vmap

SAMPLES = [[1.0, 2.0], [3.0, -1.0], [0.5, 0.25]]


def _first_and_second(lib: Any, x: Any) -> tuple[Any, Any]:
    """The gradient of sum(x**3) (kept differentiable) and its vector-Jacobian product with 2."""
    y = x.view_as(x)
    out = (y * y * y).sum()
    (g,) = lib.autograd.grad(out, y, create_graph=True)
    (h,) = lib.autograd.grad(g, y, lib.ones_like(g) * 2)
    return g, h


def test_grad_inside_vmap_gives_each_samples_gradient(torch: Any) -> None:
    x = ctxgrad.tensor(SAMPLES, dtype=ctxgrad.float64, requires_grad=True)
    g, h = vmap(lambda s: _first_and_second(ctxgrad, s))(x)
    for k, sample in enumerate(SAMPLES):
        t = torch.tensor(sample, dtype=torch.float64, requires_grad=True)
        want_g, want_h = _first_and_second(torch, t)
        np.testing.assert_allclose(g[k].detach().numpy(), want_g.detach().numpy(), rtol=1e-12)
        np.testing.assert_allclose(h[k].numpy(), want_h.numpy(), rtol=1e-12)
    # (what torch does with the same call: it refuses)
    t = torch.tensor(SAMPLES, dtype=torch.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad"):
        torch.func.vmap(lambda s: _first_and_second(torch, s))(t)


def test_grad_inside_vmap_keeps_the_history_under_create_graph() -> None:
    def first(s: Any) -> Any:
        y = s.view_as(s)
        return ctxgrad.autograd.grad((y * y * y).sum(), y, create_graph=True)[0]

    x = ctxgrad.tensor(SAMPLES, dtype=ctxgrad.float64, requires_grad=True)
    g = vmap(first)(x)
    (second,) = ctxgrad.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(second.numpy(), 6 * np.array(SAMPLES), rtol=1e-12)


def test_grad_inside_vmap_takes_an_unbatched_cotangent_for_every_sample(torch: Any) -> None:
    x = ctxgrad.tensor(SAMPLES, dtype=ctxgrad.float64, requires_grad=True)
    v = ctxgrad.tensor([1.0, -2.0], dtype=ctxgrad.float64)
    got = vmap(lambda s: ctxgrad.autograd.grad(s.view_as(s) * s.view_as(s), s, v)[0])(x)
    for k, sample in enumerate(SAMPLES):
        t = torch.tensor(sample, dtype=torch.float64, requires_grad=True)
        (want,) = torch.autograd.grad(t * t, t, torch.tensor([1.0, -2.0], dtype=torch.float64))
        np.testing.assert_allclose(got[k].numpy(), want.numpy(), rtol=1e-12)


def test_grad_inside_vmap_refuses_an_input_it_does_not_batch() -> None:
    w = ctxgrad.tensor([1.0, 2.0], dtype=ctxgrad.float64, requires_grad=True)
    x = ctxgrad.tensor(SAMPLES, dtype=ctxgrad.float64)
    with pytest.raises(RuntimeError, match=r"grad inside vmap: input 0 is not batched by this vmap, so it has one"):
        vmap(lambda s: ctxgrad.autograd.grad((s * w).sum(), w))(x)


def test_grad_inside_vmap_keeps_allow_unused_and_materialize_grads() -> None:
    x = ctxgrad.tensor(SAMPLES, dtype=ctxgrad.float64, requires_grad=True)
    y = ctxgrad.tensor(SAMPLES, dtype=ctxgrad.float64, requires_grad=True)

    def grads(a: Any, b: Any, materialize: bool) -> Any:
        a, b = a.view_as(a), b.view_as(b)
        return ctxgrad.autograd.grad((a * a).sum(), (a, b), allow_unused=True, materialize_grads=materialize)

    ga, gb = vmap(lambda a, b: grads(a, b, True))(x, y)
    np.testing.assert_allclose(ga.detach().numpy(), 2 * np.array(SAMPLES), rtol=1e-12)
    np.testing.assert_array_equal(gb.numpy(), np.zeros((3, 2)))
    with pytest.raises(RuntimeError, match="The differentiated Tensor at index 1 appears to not have been used"):
        vmap(lambda a, b: ctxgrad.autograd.grad((a.view_as(a) ** 2).sum(), (a, b)))(x, y)

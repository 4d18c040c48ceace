"""ctxgrad.utils.checkpoint against torch.utils.checkpoint: the same values and gradients
(inputs and parameters) as running without checkpointing, in both variants; the function
really runs again in backward; dropout draws the same mask in the recomputation and the
random state is left as it was; autograd.grad works with the non-reentrant variant;
checkpoint_sequential; torch's warning when use_reentrant is left out."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import ctxgrad
from ctxgrad import nn
from ctxgrad.utils.checkpoint import checkpoint, checkpoint_sequential

RNG = np.random.default_rng(77)


def build(lib: Any, seed: int = 0) -> Any:
    lib.manual_seed(seed)
    net = lib.nn.Sequential(lib.nn.Linear(4, 6), lib.nn.Tanh(), lib.nn.Dropout(0.3), lib.nn.Linear(6, 3)).double()
    weights = np.random.default_rng(seed)
    with lib.no_grad():
        for p in net.parameters():
            p.copy_(lib.tensor(weights.standard_normal(tuple(p.shape))))
    return net


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_same_values_and_gradients_as_without_checkpointing(use_reentrant: bool) -> None:
    data = RNG.standard_normal((5, 4))
    results = []
    for checkpointed in (False, True):
        net = build(ctxgrad)
        x = ctxgrad.tensor(data, requires_grad=True)
        ctxgrad.manual_seed(123)
        out = checkpoint(net, x, use_reentrant=use_reentrant) if checkpointed else net(x)
        (out * out).sum().backward()
        after = ctxgrad.rand(3).numpy()  # the random state after the step
        results.append((out.detach().numpy(), x.grad.numpy(), [p.grad.numpy() for p in net.parameters()], after))
    (o1, g1, p1, r1), (o2, g2, p2, r2) = results
    np.testing.assert_array_equal(o1, o2)
    np.testing.assert_allclose(g1, g2, rtol=1e-13)
    for a, b in zip(p1, p2):
        np.testing.assert_allclose(a, b, rtol=1e-13)
    np.testing.assert_array_equal(r1, r2)  # recomputing left the random state alone


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_the_function_runs_again_in_backward(use_reentrant: bool) -> None:
    calls = []

    def fn(t: ctxgrad.Tensor) -> ctxgrad.Tensor:
        calls.append(1)
        return t.sin() * t.exp()

    x = ctxgrad.tensor([0.3, -0.7], dtype=ctxgrad.float64, requires_grad=True)
    y = checkpoint(fn, x, use_reentrant=use_reentrant)
    assert len(calls) == 1
    y.sum().backward()
    assert len(calls) == 2
    expected = np.cos([0.3, -0.7]) * np.exp([0.3, -0.7]) + np.sin([0.3, -0.7]) * np.exp([0.3, -0.7])
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-12)


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_matches_torch(torch: Any, use_reentrant: bool) -> None:
    data = RNG.standard_normal((5, 4))
    c_net, t_net = build(ctxgrad).eval(), build(torch).eval()
    c_x, t_x = ctxgrad.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    c_out = checkpoint(c_net, c_x, use_reentrant=use_reentrant)
    t_out = torch.utils.checkpoint.checkpoint(t_net, t_x, use_reentrant=use_reentrant)
    np.testing.assert_allclose(c_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-12)
    c_out.pow(2).sum().backward()
    t_out.pow(2).sum().backward()
    np.testing.assert_allclose(c_x.grad.numpy(), t_x.grad.numpy(), rtol=1e-11)
    for cp, tp in zip(c_net.parameters(), t_net.parameters()):
        np.testing.assert_allclose(cp.grad.numpy(), tp.grad.numpy(), rtol=1e-11)


def test_non_reentrant_works_with_autograd_grad_and_inputs_without_grad() -> None:
    net = build(ctxgrad).eval()
    x = ctxgrad.tensor(RNG.standard_normal((2, 4)))  # does not require grad
    out = checkpoint(net, x, use_reentrant=False).sum()
    grads = ctxgrad.autograd.grad(out, list(net.parameters()))
    expected = ctxgrad.autograd.grad(net(x).sum(), list(net.parameters()))
    for a, b in zip(grads, expected):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-13)


def test_keyword_arguments_and_several_outputs() -> None:
    def fn(a: ctxgrad.Tensor, b: ctxgrad.Tensor, *, scale: float) -> tuple[ctxgrad.Tensor, ctxgrad.Tensor]:
        return a * b * scale, (a + b).exp()

    a = ctxgrad.tensor([1.0, 2.0], dtype=ctxgrad.float64, requires_grad=True)
    b = ctxgrad.tensor([0.5, -1.0], dtype=ctxgrad.float64, requires_grad=True)
    y1, y2 = checkpoint(fn, a, b, scale=3.0, use_reentrant=False)
    (y1.sum() + y2.sum()).backward()
    np.testing.assert_allclose(a.grad.numpy(), 3 * b.detach().numpy() + np.exp([1.5, 1.0]), rtol=1e-12)
    with pytest.raises(ValueError, match="Unexpected keyword arguments: scale"):
        checkpoint(fn, a, b, scale=3.0, use_reentrant=True)


def test_checkpoint_sequential_matches_running_the_modules() -> None:
    net = nn.Sequential(*[nn.Linear(3, 3) for _ in range(5)]).double()
    x = ctxgrad.tensor(RNG.standard_normal((2, 3)), requires_grad=True)
    out = checkpoint_sequential(net, 2, x, use_reentrant=False)
    np.testing.assert_allclose(out.detach().numpy(), net(x).detach().numpy(), rtol=1e-13)
    out.sum().backward()
    expected = ctxgrad.autograd.grad(net(x).sum(), x)[0]
    np.testing.assert_allclose(x.grad.numpy(), expected.numpy(), rtol=1e-12)


def test_leaving_out_use_reentrant_warns_as_torch(torch: Any) -> None:
    with pytest.warns(UserWarning, match="the use_reentrant parameter should be passed explicitly"):
        torch.utils.checkpoint.checkpoint(lambda t: t * 2, torch.ones(2, requires_grad=True))
    with pytest.warns(UserWarning, match="the use_reentrant parameter should be passed explicitly"):
        checkpoint(lambda t: t * 2, ctxgrad.ones(2, requires_grad=True))


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_under_vmap_the_function_runs_on_the_batch(use_reentrant: bool) -> None:
    from ctxgrad.func import vmap

    layer = nn.Linear(3, 2).double()

    def fn(t: ctxgrad.Tensor) -> ctxgrad.Tensor:
        return checkpoint(lambda u: layer(u).tanh(), t, use_reentrant=use_reentrant)

    x = ctxgrad.tensor(RNG.standard_normal((4, 3)))
    looped = ctxgrad.stack([fn(x[i]) for i in range(4)])
    np.testing.assert_allclose(vmap(fn)(x).detach().numpy(), looped.detach().numpy(), rtol=1e-13)

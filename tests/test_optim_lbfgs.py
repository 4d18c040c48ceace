"""LBFGS against torch.optim.LBFGS in float64: the same parameters after each step (fixed
step and strong-Wolfe line search, short histories, several steps that continue from the
saved state), the same state counters, and torch's errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import ctxgrad

RNG = np.random.default_rng(2024)
X = RNG.standard_normal((10, 3))
Y = RNG.standard_normal(10)
START = [RNG.standard_normal((3, 4)), RNG.standard_normal(4)]


def run(lib: Any, steps: int, **kwargs: Any) -> tuple[list[list[np.ndarray]], list[float], dict[str, int]]:
    params = [lib.tensor(a, dtype=lib.float64, requires_grad=True) for a in START]
    opt = lib.optim.LBFGS(params, **kwargs)
    x, y = lib.tensor(X), lib.tensor(Y)

    def closure() -> Any:
        opt.zero_grad()
        loss = ((x @ params[0]).tanh() @ params[1] - y).pow(2).mean() + 0.01 * params[0].pow(2).sum()
        loss.backward()
        return loss

    trajectory, losses = [], []
    for _ in range(steps):
        losses.append(float(opt.step(closure).detach()))
        trajectory.append([p.detach().numpy().copy() for p in params])
    state = opt.state[params[0]]
    return trajectory, losses, {"func_evals": state["func_evals"], "n_iter": state["n_iter"]}


CONFIGS = [
    {},
    {"lr": 0.5, "max_iter": 5},
    {"line_search_fn": "strong_wolfe"},
    {"line_search_fn": "strong_wolfe", "history_size": 3, "max_iter": 8},
    {"lr": 0.1, "history_size": 2, "max_iter": 4, "tolerance_change": 1e-6},
]


@pytest.mark.parametrize("kwargs", CONFIGS, ids=str)
def test_trajectory_matches_torch(torch: Any, kwargs: dict[str, Any]) -> None:
    ours, our_losses, our_state = run(ctxgrad, 3, **kwargs)
    theirs, their_losses, their_state = run(torch, 3, **kwargs)
    assert our_state == their_state  # the same number of iterations and closure evaluations
    np.testing.assert_allclose(our_losses, their_losses, rtol=1e-8)
    # Each step runs up to 20 quasi-Newton iterations, which amplify last-digit differences
    # (a dot product summed in another order): tight after the first step, looser later.
    for step, (a, b) in enumerate(zip(ours, theirs)):
        for pa, pb in zip(a, b):
            rtol = 1e-9 if step == 0 else 1e-5
            np.testing.assert_allclose(pa, pb, rtol=rtol, atol=1e-11, err_msg=f"step {step}")


def test_strong_wolfe_reaches_the_minimum_of_a_quadratic() -> None:
    target = ctxgrad.tensor([1.0, -2.0, 0.5], dtype=ctxgrad.float64)
    w = ctxgrad.zeros(3, dtype=ctxgrad.float64, requires_grad=True)
    opt = ctxgrad.optim.LBFGS([w], line_search_fn="strong_wolfe")

    def closure() -> ctxgrad.Tensor:
        opt.zero_grad()
        loss = ((w - target) ** 2 * ctxgrad.tensor([1.0, 10.0, 100.0], dtype=ctxgrad.float64)).sum()
        loss.backward()
        return loss

    opt.step(closure)
    np.testing.assert_allclose(w.detach().numpy(), target.numpy(), atol=1e-8)


def test_errors_match_torch(torch: Any) -> None:
    for lib in (torch, ctxgrad):
        a, b = lib.ones(1, requires_grad=True), lib.ones(1, requires_grad=True)
        with pytest.raises(ValueError, match=r"LBFGS doesn't support per-parameter options \(parameter groups\)"):
            lib.optim.LBFGS([{"params": [a]}, {"params": [b]}])
        with pytest.raises(ValueError, match="Invalid learning rate: -1"):
            lib.optim.LBFGS([a], lr=-1)
        opt = lib.optim.LBFGS([a], line_search_fn="armijo")

        def closure(opt: Any = opt, a: Any = a) -> Any:
            opt.zero_grad()
            loss = (a * 3).sum()
            loss.backward()
            return loss

        with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
            opt.step(closure)
    assert repr(ctxgrad.optim.LBFGS([ctxgrad.ones(1, requires_grad=True)])) == repr(
        torch.optim.LBFGS([torch.ones(1, requires_grad=True)])
    )

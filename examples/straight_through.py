"""A straight-through estimator: round in forward, pass the gradient through in backward.

Rounding is flat almost everywhere, so its true gradient is zero and a model that rounds
its weights (quantisation) cannot learn through it. The straight-through estimator (STE)
keeps the rounded value in forward but pretends, in backward, that the op was the
identity, here clipped to ``|x| <= clip`` as in hardtanh-style STEs. It is a *declared*
surrogate gradient: ``gradcheck`` rightly fails on it, and that is expected.

The demo learns weights whose quantised values (multiples of 0.5) hit a target: with the
STE the loss reaches 0; with the built-in ``round``, whose gradient is 0, nothing moves.
Run it: ``python examples/straight_through.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import ctxgrad
from ctxgrad import Tensor
from ctxgrad.autograd import Function


class RoundSTE(Function):
    """round(x) forward; grad * (|x| <= clip) backward."""

    @staticmethod
    def forward(ctx: Any, x: Tensor, clip: float = 4.0) -> Tensor:
        ctx.save_for_backward(x)
        ctx.clip = clip
        return x.round()

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        (x,) = ctx.saved_tensors
        inside = (x.abs() <= ctx.clip).to(grad.dtype)
        return grad * inside, None


def quantise(w: Tensor, round_fn: Any) -> Tensor:
    """Round to multiples of 0.5."""
    return round_fn(w * 2) / 2


def train(round_fn: Any, steps: int = 60) -> tuple[Tensor, float]:
    target = ctxgrad.tensor([1.5, -0.5, 2.0, 0.0], dtype=ctxgrad.float64)
    w = ctxgrad.tensor([0.1, 0.1, -0.2, 0.3], dtype=ctxgrad.float64, requires_grad=True)
    for _ in range(steps):
        loss = (quantise(w, round_fn) - target).pow(2).sum()
        loss.backward()
        with ctxgrad.no_grad():
            w -= 0.1 * w.grad
            w.grad = None
    return quantise(w, round_fn).detach(), loss.item()


def main() -> None:
    x = ctxgrad.tensor([-5.0, -0.7, 0.2, 1.6, 5.0], requires_grad=True)
    RoundSTE.apply(x).sum().backward()
    print("round:", RoundSTE.apply(x).detach(), " STE gradient:", x.grad)
    assert x.grad.tolist() == [0.0, 1.0, 1.0, 1.0, 0.0]  # identity inside the clip, 0 outside

    q, loss = train(RoundSTE.apply)
    print(f"with the STE:           quantised weights {q}, loss {loss}")
    assert loss == 0.0 and np.array_equal(q.array, [1.5, -0.5, 2.0, 0.0])
    q, loss = train(ctxgrad.round)
    print(f"with round's gradient:  quantised weights {q}, loss {loss} (the gradient is 0: no learning)")
    assert loss > 1.0


if __name__ == "__main__":
    main()

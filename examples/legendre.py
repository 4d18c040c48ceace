"""A custom op in a model: fit ``sin(x)`` with a Legendre polynomial of degree 3.

This is PyTorch's tutorial "Defining new autograd functions" ported to ctxgrad. The model
is ``y = a + b * P3(c + d * x)`` with ``P3(t) = (5 t^3 - 3 t) / 2``, the Legendre
polynomial of degree 3, written as a custom Function: forward computes ``P3``, backward
multiplies the incoming gradient by ``P3'(t) = 1.5 (5 t^2 - 1)``.

Plain gradient descent on the four scalars ``a, b, c, d``, with updates made under
``no_grad``, as in the tutorial. Run it: ``python examples/legendre.py``; it prints the loss
as it falls and the fitted polynomial, and exits 0 when the fit is good.
"""

from __future__ import annotations

import math
from typing import Any

import ctxgrad
from ctxgrad import Tensor
from ctxgrad.autograd import Function, gradcheck


class LegendrePolynomial3(Function):
    """P3(t) = (5 t^3 - 3 t) / 2."""

    @staticmethod
    def forward(ctx: Any, input: Tensor) -> Tensor:
        ctx.save_for_backward(input)
        return 0.5 * (5 * input**3 - 3 * input)

    @staticmethod
    def backward(ctx: Any, grad_output: Tensor) -> Tensor:
        (input,) = ctx.saved_tensors
        return grad_output * 1.5 * (5 * input**2 - 1)


def fit(steps: int = 2000, learning_rate: float = 5e-6) -> tuple[list[float], list[float]]:
    """Fit the four coefficients; return them and the loss every 100 steps."""
    x = ctxgrad.linspace(-math.pi, math.pi, 2000, dtype=ctxgrad.float64)
    y = ctxgrad.sin(x)
    # Start close enough to the answer for plain gradient descent, as the tutorial does.
    a = ctxgrad.full((), 0.0, dtype=ctxgrad.float64, requires_grad=True)
    b = ctxgrad.full((), -1.0, dtype=ctxgrad.float64, requires_grad=True)
    c = ctxgrad.full((), 0.0, dtype=ctxgrad.float64, requires_grad=True)
    d = ctxgrad.full((), 0.3, dtype=ctxgrad.float64, requires_grad=True)
    losses = []
    for step in range(steps):
        y_pred = a + b * LegendrePolynomial3.apply(c + d * x)
        loss = (y_pred - y).pow(2).sum()
        if step % 100 == 99:
            losses.append(loss.item())
            print(f"step {step + 1:4d}  loss {loss.item():10.4f}")
        loss.backward()
        with ctxgrad.no_grad():
            for p in (a, b, c, d):
                p -= learning_rate * p.grad
                p.grad = None
    return [p.item() for p in (a, b, c, d)], losses


def main() -> None:
    t = ctxgrad.randn(6, dtype=ctxgrad.float64, requires_grad=True)
    assert gradcheck(LegendrePolynomial3.apply, (t,))
    print("gradcheck of LegendrePolynomial3: passed")
    (a, b, c, d), losses = fit()
    print(f"result: y = {a:.4f} + {b:.4f} * P3({c:.4f} + {d:.4f} x)")
    assert losses[-1] < losses[0] / 5, losses  # the loss fell
    assert losses[-1] < 15.0, losses  # the tutorial ends near 9 after 2000 steps


if __name__ == "__main__":
    main()

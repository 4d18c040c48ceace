"""A custom op from start to finish: define it, look at its graph, check its gradient.

The op is ``LinearFunction``, the fully connected layer from PyTorch's "Extending
torch.autograd" note, written for ctxgrad::

    output = input @ weight.T + bias          input [N, in], weight [out, in], bias [out]

Its ``forward`` saves the tensors ``backward`` needs with ``ctx.save_for_backward``;
``backward`` receives the gradient of the loss with respect to ``output`` and returns one
gradient per argument of ``forward`` (the chain rule, done by hand)::

    grad_input  = grad_output @ weight          [N, out] @ [out, in]  -> [N, in]
    grad_weight = grad_output.T @ input         [out, N] @ [N, in]    -> [out, in]
    grad_bias   = grad_output summed over N                          -> [out]

and skips the ones nobody asked for (``ctx.needs_input_grad``).

How do we know that backward is right?  Compare it with central finite differences:
nudge each input element by ``±eps``, rerun the forward, and take
``(loss(x + eps) - loss(x - eps)) / (2 * eps)``.  In float64 the two agree to about
1e-9; a wrong backward is off by something of the size of the gradient itself.

Run it::

    python examples/main.py             # prints the graph, checks, exits 0 when OK
    python examples/main.py --broken    # a backward with a bug: the check fails, exit 1
"""

from __future__ import annotations

import sys
from typing import Any

import numpy as np

import ctxgrad
from ctxgrad import Tensor
from ctxgrad.autograd import Function
from ctxgrad.autograd.printing import print_graph

TOLERANCE = 1e-6


class LinearFunction(Function):
    """``input @ weight.T + bias``, with a hand-written backward."""

    @staticmethod
    def forward(ctx: Any, input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
        ctx.save_for_backward(input, weight, bias)  # checked for in-place changes later
        output = input.matmul(weight.t())
        if bias is not None:
            output = output + bias  # broadcast over the rows
        return output

    @staticmethod
    def backward(ctx: Any, grad_output: Tensor) -> tuple[Tensor | None, ...]:
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.matmul(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().matmul(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias


class BrokenLinearFunction(LinearFunction):
    """The same op with a classic mistake: the weight gradient is transposed the wrong way
    round (it happens to have the right shape because the example's weight is square)."""

    @staticmethod
    def backward(ctx: Any, grad_output: Tensor) -> tuple[Tensor | None, ...]:
        input, weight, _ = ctx.saved_tensors
        return grad_output.matmul(weight), input.t().matmul(grad_output), grad_output.sum(0)


def loss_of(op: type[LinearFunction], input: Tensor, weight: Tensor, bias: Tensor, mix: Tensor) -> Tensor:
    """A scalar loss that weights every output element differently (``.sum()`` alone
    would hand backward a gradient of all ones, which hides some mistakes)."""
    output: Tensor = op.apply(input, weight, bias)
    return (output * mix).sum()


def finite_difference_grads(
    op: type[LinearFunction], arrays: list[np.ndarray[Any, Any]], mix: Tensor, eps: float = 1e-6
) -> list[np.ndarray[Any, Any]]:
    """d loss / d array, one element at a time, by central differences."""

    def loss() -> float:
        input, weight, bias = (ctxgrad.tensor(a) for a in arrays)  # copies of the arrays
        return float(loss_of(op, input, weight, bias, mix).item())

    grads = []
    with ctxgrad.no_grad():
        for a in arrays:
            g = np.zeros_like(a)
            for idx in np.ndindex(a.shape):
                old = a[idx]
                a[idx] = old + eps
                plus = loss()
                a[idx] = old - eps
                minus = loss()
                a[idx] = old
                g[idx] = (plus - minus) / (2 * eps)
            grads.append(g)
    return grads


def main(argv: list[str]) -> int:
    op = BrokenLinearFunction if "--broken" in argv else LinearFunction
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(shape) for shape in ((4, 3), (3, 3), (3,))]  # input, weight, bias
    mix = ctxgrad.tensor(rng.standard_normal((4, 3)))  # float64, needs no grad

    # The analytical gradient: what backward says.
    input, weight, bias = (ctxgrad.tensor(a, requires_grad=True) for a in arrays)
    loss = loss_of(op, input, weight, bias, mix)
    print(f"{op.__name__}: loss = {loss.item():.6f}\n\nbackward graph of the loss:")
    print_graph(loss)
    loss.backward()

    # The numerical gradient, and the largest difference between the two.
    numerical = finite_difference_grads(op, arrays, mix)
    print()
    worst = 0.0
    for name, t, num in zip(("input", "weight", "bias"), (input, weight, bias), numerical):
        assert t.grad is not None
        err = float(np.max(np.abs(t.grad.numpy() - num)))
        worst = max(worst, err)
        print(f"  d loss / d {name:<6} max |analytical - numerical| = {err:.2e}")
    if worst > TOLERANCE:
        print(f"gradient check: FAILED (max error {worst:.2e} > tolerance {TOLERANCE:.0e})")
        return 1
    print(f"gradient check: OK (max error {worst:.2e} <= tolerance {TOLERANCE:.0e})")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""A differentiable logic-gate network (difflogic / torchlogix) with a GradFactor op.

Each neuron reads two fixed inputs ``a`` and ``b`` (values in [0, 1]) and computes a
softmax-weighted mix of the 16 two-input logic gates, relaxed to real numbers (``a AND b``
is ``a * b``, ``a OR b`` is ``a + b - a * b``, ...). Training learns the 16 weights of
every neuron; afterwards each neuron keeps only its most likely gate, and the network is a
circuit of plain logic gates. The class scores are the sums of the last layer's outputs in
groups (``GroupSum``), divided by a temperature ``tau``.

``GradFactor`` is the custom op: forward is the identity, backward multiplies the gradient
by a factor. torchlogix puts it in front of each layer so that deep gate networks, whose
gradients shrink layer after layer, still learn: a *declared* gradient, not the true one.

The task is a 4-bit Boolean function, ``(x0 XOR x1) OR (x2 AND x3)``, on all 16 inputs.
Run it: ``python examples/logic_gates.py``; it prints the loss falling, and exits 0 when
the discretised circuit (argmax gates, no softmax) classifies every input right.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np

import ctxgrad
from ctxgrad import Tensor
from ctxgrad.autograd import Function

GATE_NAMES = [
    "0", "a AND b", "a AND NOT b", "a", "NOT a AND b", "b", "a XOR b", "a OR b",
    "NOR", "XNOR", "NOT b", "a OR NOT b", "NOT a", "NOT a OR b", "NAND", "1",
]  # fmt: skip


class GradFactor(Function):
    """Identity forward; the gradient times ``factor`` backward."""

    # Not the derivative of forward, on purpose: ``python -m ctxgrad check`` reports the
    # gradient check as declared, with this reason, instead of "off by a constant factor".
    surrogate_gradient = "torchlogix scales the gradient between gate layers so deep networks keep learning"

    @staticmethod
    def example_inputs() -> tuple[Tensor, float]:
        return ctxgrad.tensor([0.25, -1.0, 2.0]), 2.0

    @staticmethod
    def forward(ctx: Any, x: Tensor, factor: float) -> Tensor:
        ctx.factor = factor
        return x.view_as(x)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return grad * ctx.factor, None


def all_gates(a: Tensor, b: Tensor) -> Tensor:
    """The 16 relaxed gates, stacked on a new last dimension (in GATE_NAMES' order)."""
    ab = a * b
    one = ctxgrad.ones_like(a)
    return ctxgrad.stack(
        [one * 0, ab, a - ab, a, b - ab, b, a + b - 2 * ab, a + b - ab,
         1 - (a + b - ab), 1 - (a + b - 2 * ab), 1 - b, 1 - b + ab, 1 - a, 1 - a + ab, 1 - ab, one],
        dim=-1,
    )  # fmt: skip


class LogicLayer:
    """``out`` gate neurons, each wired to two random inputs of the previous layer."""

    def __init__(self, n_in: int, n_out: int, rng: np.random.Generator, grad_factor: float) -> None:
        self.a = rng.integers(0, n_in, n_out)
        self.b = (self.a + rng.integers(1, n_in, n_out)) % n_in  # never the same input twice
        self.weights = ctxgrad.tensor(rng.normal(size=(n_out, 16)), requires_grad=True)
        self.grad_factor = grad_factor

    def __call__(self, x: Tensor, hard: bool = False) -> Tensor:
        if self.grad_factor != 1.0:
            x = GradFactor.apply(x, self.grad_factor)
        gates = all_gates(x[:, self.a], x[:, self.b])  # [batch, out, 16]
        if hard:  # the circuit: each neuron is its most likely gate
            choice = ctxgrad.as_tensor(np.eye(16, dtype=np.float32)[self.weights.array.argmax(-1)])
            return (gates * choice).sum(-1)
        return (gates * self.weights.softmax(dim=-1)).sum(-1)


def group_sum(x: Tensor, classes: int, tau: float) -> Tensor:
    return x.reshape(x.shape[0], classes, -1).sum(-1) / tau


def main() -> None:
    rng = np.random.default_rng(0)
    inputs = np.array(list(itertools.product([0.0, 1.0], repeat=4)), dtype=np.float32)
    labels = ((inputs[:, 0] != inputs[:, 1]) | (inputs[:, 2] * inputs[:, 3] > 0)).astype(np.int64)
    x, y = ctxgrad.as_tensor(inputs), ctxgrad.as_tensor(labels)

    layers = [LogicLayer(4, 48, rng, 1.0), LogicLayer(48, 48, rng, 2.0), LogicLayer(48, 32, rng, 2.0)]
    optimizer = ctxgrad.optim.Adam([layer.weights for layer in layers], lr=0.05)

    def net(x: Tensor, hard: bool = False) -> Tensor:
        for layer in layers:
            x = layer(x, hard)
        return group_sum(x, classes=2, tau=4.0)

    first = last = 0.0
    for step in range(301):
        loss = ctxgrad.nn.functional.cross_entropy(net(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 50 == 0:
            print(f"step {step:3d}  loss {loss.item():.4f}")
            first = first or loss.item()
            last = loss.item()
    with ctxgrad.no_grad():
        predicted = net(x, hard=True).argmax(-1)
    accuracy = float((predicted == y).float().mean().item())
    print(f"accuracy of the discretised circuit: {accuracy:.0%} of the 16 inputs")
    used = {GATE_NAMES[i] for layer in layers for i in layer.weights.array.argmax(-1)}
    print(f"{len(used)} kinds of gate in the circuit, among them: {', '.join(sorted(used)[:6])}")
    assert last < first / 2, (first, last)
    assert accuracy == 1.0


if __name__ == "__main__":
    main()

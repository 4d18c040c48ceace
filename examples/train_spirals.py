"""Train a small network built from custom ops on two interleaved spirals.

Every layer of the model is a custom Function written for this example: ``Linear``
(``x @ W.T + b`` with a hand-written backward that honours ``needs_input_grad``) and
``Tanh`` (which saves its output: ``d tanh(x) / dx = 1 - tanh(x)^2``). The loss is the
built-in ``cross_entropy`` and the optimiser the built-in ``Adam``: custom and built-in ops
meet in one graph, and one ``backward`` runs through both.

Run it: ``python examples/train_spirals.py [--png PATH]``. It prints the loss as it falls
and the final accuracy (it exits 1 below 95%), and, when matplotlib is installed
(``pip install ctxgrad[examples]``), saves a picture of the decision boundary.
"""

from __future__ import annotations

import argparse
import itertools
from typing import Any

import numpy as np

import ctxgrad
from ctxgrad import Tensor
from ctxgrad.autograd import Function


class Linear(Function):
    @staticmethod
    def forward(ctx: Any, x: Tensor, weight: Tensor, bias: Tensor) -> Tensor:
        ctx.save_for_backward(x, weight)
        return x.matmul(weight.t()) + bias

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, ...]:
        x, weight = ctx.saved_tensors
        grad_x = grad.matmul(weight) if ctx.needs_input_grad[0] else None
        grad_weight = grad.t().matmul(x) if ctx.needs_input_grad[1] else None
        grad_bias = grad.sum(0) if ctx.needs_input_grad[2] else None
        return grad_x, grad_weight, grad_bias


class Tanh(Function):
    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        out = ctxgrad.as_tensor(np.tanh(x.array))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        (out,) = ctx.saved_tensors
        return grad * (1 - out * out)


def two_spirals(n: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """``n`` points per spiral, with a little noise; labels 0 and 1."""
    t = np.sqrt(rng.uniform(0.05, 1.0, n)) * 3 * np.pi
    arm = np.stack([t * np.cos(t), t * np.sin(t)], axis=1) / (3 * np.pi)
    points = np.concatenate([arm, -arm]) + rng.normal(scale=0.02, size=(2 * n, 2))
    labels = np.concatenate([np.zeros(n), np.ones(n)]).astype(np.int64)
    return points.astype(np.float32), labels


class Model:
    def __init__(self, sizes: list[int], rng: np.random.Generator) -> None:
        self.params = []
        for n_in, n_out in itertools.pairwise(sizes):
            weight = rng.normal(scale=1 / np.sqrt(n_in), size=(n_out, n_in)).astype(np.float32)
            self.params += [ctxgrad.tensor(weight, requires_grad=True), ctxgrad.zeros(n_out, requires_grad=True)]

    def __call__(self, x: Tensor) -> Tensor:
        pairs = list(zip(self.params[::2], self.params[1::2]))
        for weight, bias in pairs[:-1]:
            x = Tanh.apply(Linear.apply(x, weight, bias))
        return Linear.apply(x, *pairs[-1])


def save_picture(model: Model, points: np.ndarray, labels: np.ndarray, path: str) -> bool:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("matplotlib is not installed: no picture (pip install ctxgrad[examples])")
        return False
    grid = np.linspace(-1.2, 1.2, 200, dtype=np.float32)
    xx, yy = np.meshgrid(grid, grid)
    with ctxgrad.no_grad():
        scores = model(ctxgrad.as_tensor(np.stack([xx.ravel(), yy.ravel()], axis=1)))
    zz = scores.softmax(dim=1).array[:, 1].reshape(xx.shape)
    fig, ax = plt.subplots(figsize=(5, 5))
    ax.contourf(xx, yy, zz, levels=20, cmap="RdBu", alpha=0.6)
    ax.scatter(points[:, 0], points[:, 1], c=labels, cmap="RdBu", edgecolors="k", s=12)
    ax.set_title("two spirals: decision boundary")
    fig.savefig(path, dpi=100)
    print(f"saved the decision boundary to {path}")
    return True


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--png", default="two_spirals.png", help="where to save the picture")
    parser.add_argument("--steps", type=int, default=800)
    args = parser.parse_args(argv)

    rng = np.random.default_rng(0)
    points, labels = two_spirals(200, rng)
    x, y = ctxgrad.as_tensor(points), ctxgrad.as_tensor(labels)
    model = Model([2, 32, 32, 2], rng)
    optimizer = ctxgrad.optim.Adam(model.params, lr=0.01)
    for step in range(args.steps + 1):
        loss = ctxgrad.nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % (args.steps // 10) == 0:
            print(f"step {step:5d}  loss {loss.item():.4f}")
    with ctxgrad.no_grad():
        accuracy = (model(x).argmax(1) == y).float().mean().item()
    print(f"accuracy: {accuracy:.1%}")
    save_picture(model, points, labels, args.png)
    return 0 if accuracy >= 0.95 else 1


if __name__ == "__main__":
    raise SystemExit(main())

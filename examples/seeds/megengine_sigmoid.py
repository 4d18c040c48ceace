"""MegEngine-style: an instance-style Function (state on ``self``), trained in a logistic regression.

MegEngine's custom ops are objects: ``forward(self, x)`` keeps what backward needs on
``self`` and ``backward(self, dy)`` reads it back; the op is called as ``Sigmoid()(x)``, one
new instance per call. Its docstring example runs unchanged on ctxgrad with two imports
changed (``import ctxgrad as F`` for ``megengine.functional``, and the compat ``Function``),
and each call becomes an ordinary node, ``SigmoidBackward``, of ctxgrad's one engine.

Run it: ``python examples/seeds/megengine_sigmoid.py``; it checks the op against ctxgrad's
own ``sigmoid`` (values, gradients, gradcheck) and exits 0 when a logistic regression built
on it separates two point clouds.
"""

from __future__ import annotations

import numpy as np

import ctxgrad
import ctxgrad as F
from ctxgrad.autograd import gradcheck
from ctxgrad.compat.megengine import Function


class Sigmoid(Function):  # MegEngine's docstring example, as written there
    def forward(self, x):  # type: ignore[no-untyped-def]
        y = 1 / (1 + F.exp(-x))
        self.y = y
        return y

    def backward(self, dy):  # type: ignore[no-untyped-def]
        y = self.y
        return dy * y * (1 - y)


def main() -> None:
    x = ctxgrad.linspace(-4, 4, 9, dtype=ctxgrad.float64, requires_grad=True)
    y = Sigmoid()(x)
    print(f"Sigmoid()(x) has grad_fn {type(y.grad_fn).__name__}")
    y.sum().backward()
    x2 = x.detach().requires_grad_()
    x2.sigmoid().sum().backward()
    assert np.allclose(y.detach().numpy(), x2.sigmoid().detach().numpy())
    assert np.allclose(x.grad.numpy(), x2.grad.numpy())
    assert gradcheck(lambda t: Sigmoid()(t), (x.detach().requires_grad_(),))
    print("values and gradients equal ctxgrad.sigmoid's; gradcheck passed")

    rng = np.random.default_rng(0)
    points = np.concatenate([rng.normal(-1.5, 1.0, (50, 2)), rng.normal(1.5, 1.0, (50, 2))])
    labels = np.repeat([0.0, 1.0], 50)
    data, target = ctxgrad.as_tensor(points), ctxgrad.as_tensor(labels)
    w = ctxgrad.zeros(2, dtype=ctxgrad.float64, requires_grad=True)
    b = ctxgrad.zeros((), dtype=ctxgrad.float64, requires_grad=True)
    optimizer = ctxgrad.optim.SGD([w, b], lr=0.5)
    for step in range(101):
        p = Sigmoid()(data @ w + b)  # a new instance per call, as in MegEngine
        loss = -(target * (p + 1e-12).log() + (1 - target) * (1 - p + 1e-12).log()).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        if step % 25 == 0:
            print(f"step {step:3d}  loss {loss.item():.4f}")
    accuracy = float(((p.detach().numpy() > 0.5) == (labels > 0.5)).mean())
    print(f"training accuracy: {accuracy:.0%}")
    assert loss.item() < 0.2, loss.item()
    assert accuracy >= 0.95, accuracy


if __name__ == "__main__":
    main()

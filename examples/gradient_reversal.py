"""A gradient-reversal layer (Ganin and Lempitsky, domain-adversarial training).

Forward is the identity; backward multiplies the gradient by ``-lambda``. Put between a
feature extractor and a domain classifier, it makes one backward pass train the classifier
to tell the domains apart and the features to make that impossible.

``forward`` returns ``x.view_as(x)``, not ``x`` itself: a Function should return a new
tensor (here a view) for an input it passes through, so the output gets its own node.

The demo checks the defining property: the gradient reaching the shared features is the
task gradient minus ``lambda`` times the domain gradient, computed here separately.
Run it: ``python examples/gradient_reversal.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import ctxgrad
from ctxgrad import Tensor
from ctxgrad.autograd import Function


class GradReverse(Function):
    @staticmethod
    def forward(ctx: Any, x: Tensor, lambd: float) -> Tensor:
        ctx.lambd = lambd
        return x.view_as(x)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return grad.neg() * ctx.lambd, None


def grad_reverse(x: Tensor, lambd: float = 1.0) -> Tensor:
    return GradReverse.apply(x, lambd)


def main() -> None:
    ctxgrad.manual_seed(0)
    inputs = ctxgrad.randn(8, 5, dtype=ctxgrad.float64)
    extractor = ctxgrad.randn(5, 4, dtype=ctxgrad.float64, requires_grad=True)
    task_head = ctxgrad.randn(4, 1, dtype=ctxgrad.float64)
    domain_head = ctxgrad.randn(4, 1, dtype=ctxgrad.float64)
    lambd = 0.3

    def losses() -> tuple[Tensor, Tensor]:
        features = inputs.mm(extractor).tanh()
        task = features.mm(task_head).pow(2).mean()
        domain = grad_reverse(features, lambd).mm(domain_head).sigmoid().mean()
        return task, domain

    task, domain = losses()
    (task + domain).backward()
    combined = extractor.grad.array.copy()

    (g_task,) = ctxgrad.autograd.grad(losses()[0], extractor)
    features = inputs.mm(extractor).tanh()  # the domain loss without the reversal
    (g_domain,) = ctxgrad.autograd.grad(features.mm(domain_head).sigmoid().mean(), extractor)
    expected = g_task.array - lambd * g_domain.array
    print("feature gradient = task gradient - lambda * domain gradient:", np.allclose(combined, expected))
    assert np.allclose(combined, expected)
    x = ctxgrad.ones(3, requires_grad=True)
    grad_reverse(x, 2.0).sum().backward()
    print("reversed gradient of sum():", x.grad)
    assert x.grad.tolist() == [-2.0, -2.0, -2.0]


if __name__ == "__main__":
    main()

"""Mistake: backward adds noise (standing in for a reduction whose order changes from
call to call), so two identical backward calls differ.
Finding: ``nondeterministic-backward``."""

from __future__ import annotations

from typing import Any

import numpy as np

import ctxgrad
from ctxgrad.autograd import Function
from ctxgrad.checks import example


@example(ctxgrad.tensor([0.5, -1.0, 2.0]))
class Square(Function):
    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx: Any, grad: ctxgrad.Tensor) -> ctxgrad.Tensor:
        (x,) = ctx.saved_tensors
        noise = ctxgrad.from_numpy(np.random.default_rng().normal(0.0, 1e-9, x.shape))  # WRONG: randomness
        return 2 * x * grad + noise

"""Mistake: a complex square whose backward forgot the conjugate: torch's convention (and
ctxgrad's) for a holomorphic f is ``grad_input = grad_output * conj(f'(z))``.  Complex example
inputs (or ``--dtype complex128``) check it as gradcheck does, with gradcheck's hint.
Finding: ``gradient-conjugate-missing``."""

from __future__ import annotations

from typing import Any

import ctxgrad
from ctxgrad.autograd import Function
from ctxgrad.checks import example


@example(ctxgrad.tensor([1.0 + 2.0j, 0.5 - 1.0j]))
class ComplexSquare(Function):
    @staticmethod
    def forward(ctx: Any, z: ctxgrad.Tensor) -> ctxgrad.Tensor:
        ctx.save_for_backward(z)
        return z * z

    @staticmethod
    def backward(ctx: Any, grad: ctxgrad.Tensor) -> ctxgrad.Tensor:
        (z,) = ctx.saved_tensors
        return grad * 2 * z  # WRONG: grad * 2 * z.conj()

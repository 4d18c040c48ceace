"""Correct custom Functions of every kind the checker handles: complex inputs (torch's
convention, the conjugate where it belongs), a forward in NumPy that reads values, not memory
order (strided inputs give the same), several outputs each of whose gradients is used, and
outputs that are not differentiable (integer indices, a boolean mask) marked so.

``python -m ctxgrad check examples/checks/good_kinds.py --double`` passes; so does
``--against-torch`` (each run inside torch through ``ctxgrad.bridge.to_torch``).
"""

from __future__ import annotations

from typing import Any

import numpy as np

import ctxgrad
from ctxgrad.autograd import Function
from ctxgrad.checks import example


def _complex(*values: complex) -> ctxgrad.Tensor:
    return ctxgrad.tensor(np.array(values, dtype=np.complex128))


@example(_complex(1 + 2j, 0.5 - 1j), _complex(-0.3 + 1j, 2 + 0.5j))
class ComplexMul(Function):
    """z * w, with torch's convention: grad_z = grad * conj(w)."""

    @staticmethod
    def forward(ctx: Any, z: ctxgrad.Tensor, w: ctxgrad.Tensor) -> ctxgrad.Tensor:
        ctx.save_for_backward(z, w)
        return z * w

    @staticmethod
    def backward(ctx: Any, grad: ctxgrad.Tensor) -> tuple[ctxgrad.Tensor | None, ctxgrad.Tensor | None]:
        z, w = ctx.saved_tensors
        return (
            grad * w.conj() if ctx.needs_input_grad[0] else None,
            grad * z.conj() if ctx.needs_input_grad[1] else None,
        )


@example(_complex(1 + 2j, 0.5 - 1j, -1j))
class AbsSquared(Function):
    """|z|^2, a real output of a complex input (not holomorphic): grad_z = 2 * grad * z."""

    @staticmethod
    def forward(ctx: Any, z: ctxgrad.Tensor) -> ctxgrad.Tensor:
        ctx.save_for_backward(z)
        return (z * z.conj()).real

    @staticmethod
    def backward(ctx: Any, grad: ctxgrad.Tensor) -> ctxgrad.Tensor:
        (z,) = ctx.saved_tensors
        return 2 * grad * z


@example(ctxgrad.tensor([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0]]), ctxgrad.tensor([[1.0], [2.0], [3.0]]))
class MatMulNumpyForward(Function):
    """a @ b, forward in NumPy (memory-order agnostic), backward in ctxgrad ops: strided
    inputs give the same results."""

    @staticmethod
    def forward(ctx: Any, a: ctxgrad.Tensor, b: ctxgrad.Tensor) -> ctxgrad.Tensor:
        ctx.save_for_backward(a, b)
        return ctxgrad.from_numpy(a.detach().numpy() @ b.detach().numpy())

    @staticmethod
    def backward(ctx: Any, grad: ctxgrad.Tensor) -> tuple[ctxgrad.Tensor | None, ctxgrad.Tensor | None]:
        a, b = ctx.saved_tensors
        return grad @ b.mT if ctx.needs_input_grad[0] else None, a.mT @ grad if ctx.needs_input_grad[1] else None


@example(ctxgrad.tensor([[0.5, -1.0], [2.0, 0.1]]))
class SinCos(Function):
    """Two differentiable outputs, each gradient used."""

    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor) -> tuple[ctxgrad.Tensor, ctxgrad.Tensor]:
        ctx.save_for_backward(x)
        return x.sin(), x.cos()

    @staticmethod
    def backward(ctx: Any, grad_sin: ctxgrad.Tensor, grad_cos: ctxgrad.Tensor) -> ctxgrad.Tensor:
        (x,) = ctx.saved_tensors
        return grad_sin * x.cos() - grad_cos * x.sin()


@example(ctxgrad.tensor([[0.5, -1.0, 2.0], [3.0, 0.1, -0.2]]))
class SortValues(Function):
    """Sorted values (differentiable) and their indices (an integer output marked
    non-differentiable), along the last dimension."""

    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor) -> tuple[ctxgrad.Tensor, ctxgrad.Tensor]:
        values, indices = x.sort(-1)
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        ctx.shape = tuple(x.shape)
        return values, indices

    @staticmethod
    def backward(ctx: Any, grad: ctxgrad.Tensor, grad_indices: ctxgrad.Tensor) -> ctxgrad.Tensor:
        (indices,) = ctx.saved_tensors
        return ctxgrad.zeros(ctx.shape, dtype=grad.dtype).scatter(-1, indices, grad)


@example(ctxgrad.tensor([0.5, -1.0, 2.0, -3.0]))
class ClampedSquare(Function):
    """A differentiable output and a boolean mask of where it was clamped."""

    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor) -> tuple[ctxgrad.Tensor, ctxgrad.Tensor]:
        mask = x.abs() > 1.5
        ctx.mark_non_differentiable(mask)
        ctx.save_for_backward(x, mask)
        return (x * x).masked_fill(mask, 2.25), mask

    @staticmethod
    def backward(ctx: Any, grad: ctxgrad.Tensor, grad_mask: ctxgrad.Tensor) -> ctxgrad.Tensor:
        x, mask = ctx.saved_tensors
        return (2 * x * grad).masked_fill(mask, 0.0)

"""A Function with two outputs, one of them not differentiable: sort, with its indices.

``forward`` sorts along the last dimension with NumPy and returns the sorted values and
the permutation (an integer tensor). Integer outputs never require grad; torch's note
marks them anyway with ``ctx.mark_non_differentiable``, and so does this example, which is
what a *floating* output without a gradient needs. ``backward`` gets one gradient per
output (zeros for the indices) and scatters the values' gradient back to where each
value came from.

The demo compares values, indices and gradients with the built-in ``ctxgrad.sort`` and runs
``gradcheck``. Run it: ``python examples/sort_with_indices.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import ctxgrad
from ctxgrad import Tensor
from ctxgrad.autograd import Function, gradcheck


class Sort(Function):
    @staticmethod
    def forward(ctx: Any, x: Tensor) -> tuple[Tensor, Tensor]:
        order = np.argsort(x.array, axis=-1, kind="stable")
        values = ctxgrad.as_tensor(np.take_along_axis(x.array, order, axis=-1))
        indices = ctxgrad.as_tensor(order.astype(np.int64))
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        return values, indices

    @staticmethod
    def backward(ctx: Any, grad_values: Tensor, grad_indices: Tensor) -> Tensor:
        (indices,) = ctx.saved_tensors
        grad = np.zeros_like(grad_values.array)
        np.put_along_axis(grad, indices.array, grad_values.array, axis=-1)
        return ctxgrad.as_tensor(grad)


def main() -> None:
    x = ctxgrad.tensor([[3.0, 1.0, 2.0], [0.5, -1.0, 4.0]], dtype=ctxgrad.float64, requires_grad=True)
    values, indices = Sort.apply(x)
    print("values:", values)
    print("indices:", indices, " requires_grad:", indices.requires_grad)
    assert not indices.requires_grad and values.requires_grad
    weights = ctxgrad.tensor([[1.0, 10.0, 100.0]], dtype=ctxgrad.float64)  # weight by rank
    (values * weights).sum().backward()
    print("x.grad:", x.grad)

    reference = x.detach().requires_grad_()
    ref_values, ref_indices = ctxgrad.sort(reference, dim=-1)
    (ref_values * weights).sum().backward()
    assert np.array_equal(values.array, ref_values.array)
    assert np.array_equal(indices.array, ref_indices.array)
    assert np.array_equal(x.grad.array, reference.grad.array)
    assert gradcheck(lambda t: Sort.apply(t)[0], (x,))
    print("same values, indices and gradient as ctxgrad.sort; gradcheck passed")


if __name__ == "__main__":
    main()

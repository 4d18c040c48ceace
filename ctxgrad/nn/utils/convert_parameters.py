"""Flatten parameters into one vector and back (``torch.nn.utils.parameters_to_vector``).

>>> import ctxgrad
>>> from ctxgrad import nn
>>> lin = nn.Linear(3, 2)
>>> vec = nn.utils.parameters_to_vector(lin.parameters())
>>> vec.shape
ctxgrad.Size([8])
>>> nn.utils.vector_to_parameters(ctxgrad.zeros(8), lin.parameters())
>>> lin.bias
Parameter containing:
tensor([0., 0.], requires_grad=True)
"""

from __future__ import annotations

from collections.abc import Iterable

from ctxgrad._tensor import Tensor

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def parameters_to_vector(parameters: Iterable[Tensor]) -> Tensor:
    """All parameters flattened and concatenated, in order (differentiable)."""
    from ctxgrad._made_functions import cat

    return cat([p.reshape(-1) for p in parameters])


def vector_to_parameters(vec: Tensor, parameters: Iterable[Tensor]) -> None:
    """Copy consecutive slices of ``vec`` into the parameters' values (unrecorded)."""
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    pointer = 0
    for param in parameters:
        n = param.numel()
        param.data = vec[pointer : pointer + n].reshape(param.shape).detach().clone()
        pointer += n

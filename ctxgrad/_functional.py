"""Function forms of the tensor methods (``ctxgrad.exp(x)`` for ``x.exp()``), as torch has them."""

from __future__ import annotations

from typing import Any

from ctxgrad._factories import tensor as _tensor_from
from ctxgrad._tensor import Tensor


def exp(input: Tensor) -> Tensor:
    """Elementwise ``e ** input``."""
    return input.exp()


def log(input: Tensor) -> Tensor:
    """Elementwise natural logarithm."""
    return input.log()


def tanh(input: Tensor) -> Tensor:
    """Elementwise hyperbolic tangent."""
    return input.tanh()


def sum(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """Sum of all elements, or over ``dim``."""
    return input.sum(dim, keepdim, dtype=dtype)


def mean(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    """Mean of all elements, or over ``dim``."""
    return input.mean(dim, keepdim, dtype=dtype)


def matmul(input: Tensor, other: Tensor) -> Tensor:
    """Matrix product (``input @ other``)."""
    return input.matmul(other)


def reshape(input: Tensor, shape: Any) -> Tensor:
    """``input`` with a new shape."""
    return input.reshape(shape)


def t(input: Tensor) -> Tensor:
    """Transpose of a tensor of at most 2 dimensions."""
    return input.t()


def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """Swap two dimensions."""
    return input.transpose(dim0, dim1)


def permute(input: Tensor, dims: Any) -> Tensor:
    """Reorder dimensions."""
    return input.permute(dims)


def clone(input: Tensor) -> Tensor:
    """A differentiable copy."""
    return input.clone()


def add(input: Any, other: Any, *, alpha: Any = 1) -> Tensor:
    """``input + alpha * other``."""
    return input.add(other, alpha=alpha) if isinstance(input, Tensor) else _tensor_from(input).add(other, alpha=alpha)


def sub(input: Any, other: Any, *, alpha: Any = 1) -> Tensor:
    """``input - alpha * other``."""
    return input.sub(other, alpha=alpha) if isinstance(input, Tensor) else _tensor_from(input).sub(other, alpha=alpha)


def mul(input: Any, other: Any) -> Tensor:
    """``input * other``."""
    out: Tensor = input * other if isinstance(input, Tensor) else other * input
    return out


def div(input: Any, other: Any) -> Tensor:
    """``input / other``."""
    out: Tensor = input / other if isinstance(input, Tensor) else other.__rtruediv__(input)
    return out


def pow(input: Any, exponent: Any) -> Tensor:
    """``input ** exponent``."""
    out: Tensor = input**exponent if isinstance(input, Tensor) else exponent.__rpow__(input)
    return out


def neg(input: Tensor) -> Tensor:
    """``-input``."""
    return -input


def where(condition: Tensor, input: Any, other: Any) -> Tensor:
    """``input`` where ``condition`` is true, else ``other``."""
    from ctxgrad.ops.pointwise import Where

    return Where.apply(condition, input, other)

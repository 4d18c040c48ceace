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


def abs(input: Tensor) -> Tensor:
    """Elementwise absolute value."""
    return input.abs()


def sign(input: Tensor) -> Tensor:
    """Elementwise sign: -1, 0 or 1."""
    return input.sign()


def sqrt(input: Tensor) -> Tensor:
    """Elementwise square root."""
    return input.sqrt()


def rsqrt(input: Tensor) -> Tensor:
    """Elementwise ``1 / sqrt(x)``."""
    return input.rsqrt()


def square(input: Tensor) -> Tensor:
    """Elementwise ``x * x``."""
    return input.square()


def reciprocal(input: Tensor) -> Tensor:
    """Elementwise ``1 / x``."""
    return input.reciprocal()


def exp2(input: Tensor) -> Tensor:
    """Elementwise ``2 ** x``."""
    return input.exp2()


def expm1(input: Tensor) -> Tensor:
    """Elementwise ``e ** x - 1``."""
    return input.expm1()


def log2(input: Tensor) -> Tensor:
    """Elementwise base-2 logarithm."""
    return input.log2()


def log10(input: Tensor) -> Tensor:
    """Elementwise base-10 logarithm."""
    return input.log10()


def log1p(input: Tensor) -> Tensor:
    """Elementwise ``log(1 + x)``."""
    return input.log1p()


def sin(input: Tensor) -> Tensor:
    """Elementwise sine."""
    return input.sin()


def cos(input: Tensor) -> Tensor:
    """Elementwise cosine."""
    return input.cos()


def tan(input: Tensor) -> Tensor:
    """Elementwise tangent."""
    return input.tan()


def asin(input: Tensor) -> Tensor:
    """Elementwise arcsine."""
    return input.asin()


def acos(input: Tensor) -> Tensor:
    """Elementwise arccosine."""
    return input.acos()


def atan(input: Tensor) -> Tensor:
    """Elementwise arctangent."""
    return input.atan()


def sinh(input: Tensor) -> Tensor:
    """Elementwise hyperbolic sine."""
    return input.sinh()


def cosh(input: Tensor) -> Tensor:
    """Elementwise hyperbolic cosine."""
    return input.cosh()


def sigmoid(input: Tensor) -> Tensor:
    """Elementwise logistic sigmoid."""
    return input.sigmoid()


def relu(input: Tensor) -> Tensor:
    """Elementwise ``max(x, 0)``."""
    return input.relu()


def floor(input: Tensor) -> Tensor:
    """Elementwise round down."""
    return input.floor()


def ceil(input: Tensor) -> Tensor:
    """Elementwise round up."""
    return input.ceil()


def round(input: Tensor) -> Tensor:
    """Elementwise round to nearest, halves to even."""
    return input.round()


def trunc(input: Tensor) -> Tensor:
    """Elementwise round toward zero."""
    return input.trunc()


def frac(input: Tensor) -> Tensor:
    """Elementwise fractional part, ``x - trunc(x)``."""
    return input.frac()


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


# --------------------------------------------------------------------------- pointwise and binary ops
# [pointwise functions: add above this line]


# --------------------------------------------------------------------------- reductions
# [reduction functions: add above this line]


# --------------------------------------------------------------------------- linear algebra
# [linalg functions: add above this line]


# --------------------------------------------------------------------------- shape and views
# [shape functions: add above this line]


# --------------------------------------------------------------------------- indexing, sorting and construction
# [indexing functions: add above this line]


# --------------------------------------------------------------------------- in-place ops
# [inplace functions: add above this line]

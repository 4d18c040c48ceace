"""ctxgrad: PyTorch's autograd and custom-Function API on NumPy.

>>> import ctxgrad
>>> class Double(ctxgrad.autograd.Function):
...     @staticmethod
...     def forward(ctx, x):
...         return x * 2
...     @staticmethod
...     def backward(ctx, grad):
...         return grad * 2
>>> x = ctxgrad.ones(3, requires_grad=True)
>>> Double.apply(x).sum().backward()
>>> x.grad
tensor([2., 2., 2.])
"""

from __future__ import annotations

from typing import Any

from ctxgrad import (
    _tensor,  # noqa: F401 - first: the ops and autograd build on it
    autograd,
)
from ctxgrad._dtypes import (
    bool_ as bool,
)
from ctxgrad._dtypes import (
    cdouble,
    cfloat,
    complex64,
    complex128,
    double,
    float16,
    float32,
    float64,
    get_default_dtype,
    half,
    int8,
    int16,
    int32,
    int64,
    long,
    set_default_dtype,
    short,
    uint8,
)
from ctxgrad._dtypes import (
    float32 as float,
)
from ctxgrad._dtypes import (
    int32 as int,
)
from ctxgrad._factories import (
    arange,
    as_tensor,
    empty,
    empty_like,
    from_numpy,
    full,
    full_like,
    is_tensor,
    manual_seed,
    numel,
    ones,
    ones_like,
    rand,
    randint,
    randn,
    tensor,
    zeros,
    zeros_like,
)
from ctxgrad._tensor import Size, Tensor, device
from ctxgrad.autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    no_grad,
    set_grad_enabled,
)

__version__ = "0.1.0"


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
    return input.add(other, alpha=alpha) if isinstance(input, Tensor) else tensor(input).add(other, alpha=alpha)


def sub(input: Any, other: Any, *, alpha: Any = 1) -> Tensor:
    """``input - alpha * other``."""
    return input.sub(other, alpha=alpha) if isinstance(input, Tensor) else tensor(input).sub(other, alpha=alpha)


def mul(input: Any, other: Any) -> Tensor:
    """``input * other``."""
    return input * other if isinstance(input, Tensor) else other * input


def div(input: Any, other: Any) -> Tensor:
    """``input / other``."""
    return input / other if isinstance(input, Tensor) else other.__rtruediv__(input)


def pow(input: Any, exponent: Any) -> Tensor:
    """``input ** exponent``."""
    return input ** exponent if isinstance(input, Tensor) else exponent.__rpow__(input)


def neg(input: Tensor) -> Tensor:
    """``-input``."""
    return -input


def where(condition: Tensor, input: Any, other: Any) -> Tensor:
    """``input`` where ``condition`` is true, else ``other``."""
    from ctxgrad.ops.pointwise import Where

    return Where.apply(condition, input, other)


__all__ = [
    "Size",
    "Tensor",
    "add",
    "arange",
    "as_tensor",
    "autograd",
    "bool",
    "cdouble",
    "cfloat",
    "clone",
    "complex64",
    "complex128",
    "device",
    "div",
    "double",
    "empty",
    "empty_like",
    "enable_grad",
    "exp",
    "float",
    "float16",
    "float32",
    "float64",
    "from_numpy",
    "full",
    "full_like",
    "get_default_dtype",
    "half",
    "inference_mode",
    "int",
    "int8",
    "int16",
    "int32",
    "int64",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "is_tensor",
    "log",
    "long",
    "manual_seed",
    "matmul",
    "mean",
    "mul",
    "neg",
    "no_grad",
    "numel",
    "ones",
    "ones_like",
    "permute",
    "pow",
    "rand",
    "randint",
    "randn",
    "reshape",
    "set_default_dtype",
    "set_grad_enabled",
    "short",
    "sub",
    "sum",
    "t",
    "tanh",
    "tensor",
    "transpose",
    "uint8",
    "where",
    "zeros",
    "zeros_like",
]

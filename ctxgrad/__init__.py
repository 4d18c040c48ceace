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
from ctxgrad._functional import (
    add,
    clone,
    div,
    exp,
    log,
    matmul,
    mean,
    mul,
    neg,
    permute,
    pow,
    reshape,
    sub,
    sum,
    t,
    tanh,
    transpose,
    where,
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

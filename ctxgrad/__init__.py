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
    abs,
    acos,
    add,
    asin,
    atan,
    ceil,
    clone,
    cos,
    cosh,
    div,
    exp,
    exp2,
    expm1,
    floor,
    frac,
    log,
    log1p,
    log2,
    log10,
    matmul,
    mean,
    mul,
    neg,
    permute,
    pow,
    reciprocal,
    relu,
    reshape,
    round,
    rsqrt,
    sigmoid,
    sign,
    sin,
    sinh,
    sqrt,
    square,
    sub,
    sum,
    t,
    tan,
    tanh,
    transpose,
    trunc,
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
    "abs",
    "acos",
    "add",
    "arange",
    "as_tensor",
    "asin",
    "atan",
    "autograd",
    "bool",
    "cdouble",
    "ceil",
    "cfloat",
    "clone",
    "complex128",
    "complex64",
    "cos",
    "cosh",
    "device",
    "div",
    "double",
    "empty",
    "empty_like",
    "enable_grad",
    "exp",
    "exp2",
    "expm1",
    "float",
    "float16",
    "float32",
    "float64",
    "floor",
    "frac",
    "from_numpy",
    "full",
    "full_like",
    "get_default_dtype",
    "half",
    "inference_mode",
    "int",
    "int16",
    "int32",
    "int64",
    "int8",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "is_tensor",
    "log",
    "log10",
    "log1p",
    "log2",
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
    "reciprocal",
    "relu",
    "reshape",
    "round",
    "rsqrt",
    "set_default_dtype",
    "set_grad_enabled",
    "short",
    "sigmoid",
    "sign",
    "sin",
    "sinh",
    "sqrt",
    "square",
    "sub",
    "sum",
    "t",
    "tan",
    "tanh",
    "tensor",
    "transpose",
    "trunc",
    "uint8",
    "where",
    "zeros",
    "zeros_like",
]

# The op families export their function forms here, one block each.

# [pointwise exports: "from ctxgrad._functional import name  # noqa: E402" lines, then __all__ += [...]]

# [reduction exports: "from ctxgrad._functional import name  # noqa: E402" lines, then __all__ += [...]]

# [linalg exports: "from ctxgrad._functional import name  # noqa: E402" lines, then __all__ += [...]]

# [shape exports: "from ctxgrad._functional import name  # noqa: E402" lines, then __all__ += [...]]

# [indexing exports: "from ctxgrad._functional import name  # noqa: E402" lines, then __all__ += [...]]

# [inplace exports: "from ctxgrad._functional import name  # noqa: E402" lines, then __all__ += [...]]

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
    _surface,  # noqa: F401 - attaches the op table's Tensor methods
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
    clone,
    permute,
    reshape,
    t,
    transpose,
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
    "arange",
    "as_tensor",
    "autograd",
    "bool",
    "cdouble",
    "cfloat",
    "clone",
    "complex128",
    "complex64",
    "device",
    "double",
    "empty",
    "empty_like",
    "enable_grad",
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
    "int16",
    "int32",
    "int64",
    "int8",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "is_tensor",
    "long",
    "manual_seed",
    "no_grad",
    "numel",
    "ones",
    "ones_like",
    "permute",
    "rand",
    "randint",
    "randn",
    "reshape",
    "set_default_dtype",
    "set_grad_enabled",
    "short",
    "t",
    "tensor",
    "transpose",
    "uint8",
    "zeros",
    "zeros_like",
]

# The function forms of the op library, one block per family of ops.

# pointwise and binary ops
from ctxgrad import nn

__all__ += [
    "nn",
]

# linear algebra
from ctxgrad import linalg  # noqa: E402
from ctxgrad._functional import bmm, det, dot, einsum, inverse, mm, mv, outer, tensordot, vdot  # noqa: E402

__all__ += ["bmm", "det", "dot", "einsum", "inverse", "linalg", "mm", "mv", "outer", "tensordot", "vdot"]

# shape and views
from ctxgrad._functional import (  # noqa: E402
    broadcast_shapes,
    broadcast_tensors,
    broadcast_to,
    cat,
    chunk,
    concat,
    concatenate,
    diag,
    diag_embed,
    diagonal,
    flatten,
    flip,
    fliplr,
    flipud,
    hstack,
    moveaxis,
    movedim,
    narrow,
    roll,
    split,
    squeeze,
    stack,
    swapaxes,
    swapdims,
    tile,
    tril,
    triu,
    unbind,
    unflatten,
    unsqueeze,
    vstack,
)

__all__ += [
    "flatten",
    "unflatten",
    "squeeze",
    "unsqueeze",
    "swapaxes",
    "swapdims",
    "moveaxis",
    "movedim",
    "broadcast_to",
    "narrow",
    "unbind",
    "split",
    "chunk",
    "cat",
    "concat",
    "concatenate",
    "stack",
    "hstack",
    "vstack",
    "flip",
    "fliplr",
    "flipud",
    "roll",
    "tile",
    "tril",
    "triu",
    "diagonal",
    "diag",
    "diag_embed",
    "broadcast_tensors",
    "broadcast_shapes",
]

# indexing, sorting and construction
from ctxgrad._factories import (  # noqa: E402
    allclose,
    equal,
    eye,
    isclose,
    linspace,
    logspace,
    rand_like,
    randn_like,
)
from ctxgrad._functional import (  # noqa: E402
    argsort,
    argwhere,
    gather,
    index_select,
    kthvalue,
    masked_fill,
    masked_select,
    median,
    nonzero,
    scatter,
    scatter_add,
    select,
    sort,
    take,
    take_along_dim,
    topk,
)

__all__ += ["allclose", "argsort", "argwhere", "equal", "eye", "gather", "index_select", "isclose", "kthvalue"]
__all__ += ["linspace", "logspace", "masked_fill", "masked_select", "median", "nonzero", "rand_like", "randn_like"]
__all__ += ["scatter", "scatter_add", "select", "sort", "take", "take_along_dim", "topk"]

# training: optimizers, schedulers, saving and data loading
from ctxgrad import optim, utils  # noqa: E402
from ctxgrad.serialization import load, save  # noqa: E402

__all__ += ["load", "optim", "save", "utils"]

# autograd.functional (jacobian, hessian, ...) is built on the public surface above, so it is
# loaded here rather than by ctxgrad.autograd; importing it makes ctxgrad.autograd.functional.
import ctxgrad.autograd.functional  # noqa: E402, F401

# the op author's tools: check_function (python -m ctxgrad check), OpTestCase, example
from ctxgrad import checks, testing  # noqa: E402

__all__ += ["checks", "testing"]

# the functions of the op table (ctxgrad/ops/table.py)
# --- generated by python -m ctxgrad._gen_methods from ctxgrad/ops/table.py: do not edit ---
from ctxgrad.ops.arithmetic import (  # noqa: E402
    add,
    div,
    floor_divide,
    fmod,
    mul,
    neg,
    pow,
    remainder,
    sub,
)
from ctxgrad.ops.arithmetic import div as true_divide  # noqa: E402
from ctxgrad.ops.comparison import (  # noqa: E402
    bitwise_and,
    bitwise_not,
    bitwise_or,
    bitwise_xor,
    isfinite,
    isinf,
    isnan,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
)
from ctxgrad.ops.linalg import (  # noqa: E402
    matmul,
)
from ctxgrad.ops.pointwise import (  # noqa: E402
    abs,
    acos,
    arctan2,
    asin,
    atan,
    atan2,
    ceil,
    clamp,
    clamp_max,
    clamp_min,
    clip,
    cos,
    cosh,
    erf,
    erfc,
    exp,
    exp2,
    expm1,
    floor,
    frac,
    lerp,
    log,
    log1p,
    log2,
    log10,
    logit,
    maximum,
    minimum,
    reciprocal,
    relu,
    round,
    rsqrt,
    sigmoid,
    sign,
    sin,
    sinh,
    sqrt,
    square,
    tan,
    tanh,
    trunc,
    where,
)
from ctxgrad.ops.reduction import (  # noqa: E402
    all,
    amax,
    amin,
    any,
    argmax,
    argmin,
    cumprod,
    cumsum,
    log_softmax,
    logsumexp,
    max,
    mean,
    min,
    norm,
    prod,
    softmax,
    std,
    sum,
    var,
)

__all__ += [
    "abs",
    "acos",
    "add",
    "all",
    "amax",
    "amin",
    "any",
    "arctan2",
    "argmax",
    "argmin",
    "asin",
    "atan",
    "atan2",
    "bitwise_and",
    "bitwise_not",
    "bitwise_or",
    "bitwise_xor",
    "ceil",
    "clamp",
    "clamp_max",
    "clamp_min",
    "clip",
    "cos",
    "cosh",
    "cumprod",
    "cumsum",
    "div",
    "erf",
    "erfc",
    "exp",
    "exp2",
    "expm1",
    "floor",
    "floor_divide",
    "fmod",
    "frac",
    "isfinite",
    "isinf",
    "isnan",
    "lerp",
    "log",
    "log10",
    "log1p",
    "log2",
    "log_softmax",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "logit",
    "logsumexp",
    "matmul",
    "max",
    "maximum",
    "mean",
    "min",
    "minimum",
    "mul",
    "neg",
    "norm",
    "pow",
    "prod",
    "reciprocal",
    "relu",
    "remainder",
    "round",
    "rsqrt",
    "sigmoid",
    "sign",
    "sin",
    "sinh",
    "softmax",
    "sqrt",
    "square",
    "std",
    "sub",
    "sum",
    "tan",
    "tanh",
    "true_divide",
    "trunc",
    "var",
    "where",
]
# --- end of generated code ---

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
from ctxgrad._device import device
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
    is_inference,
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
from ctxgrad._tensor import Size, Tensor
from ctxgrad.autograd.anomaly_mode import is_anomaly_check_nan_enabled, is_anomaly_enabled
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
    "is_anomaly_check_nan_enabled",
    "is_anomaly_enabled",
    "is_grad_enabled",
    "is_inference",
    "is_inference_mode_enabled",
    "is_tensor",
    "long",
    "manual_seed",
    "no_grad",
    "numel",
    "ones",
    "ones_like",
    "rand",
    "randint",
    "randn",
    "set_default_dtype",
    "set_grad_enabled",
    "short",
    "tensor",
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

# linear algebra (einsum, tensordot and the shape functions of several tensors, cat, stack,
# ..., are rows of the op table)
from ctxgrad import linalg  # noqa: E402

__all__ += ["linalg"]

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

__all__ += ["allclose", "equal", "eye", "isclose", "linspace", "logspace", "rand_like", "randn_like"]

# training: optimizers, schedulers, saving and data loading
from ctxgrad import optim, utils  # noqa: E402
from ctxgrad.serialization import load, save  # noqa: E402

__all__ += ["load", "optim", "save", "utils"]

# porting shims: devices, CUDA's and the backends' answers on a CPU, legacy tensor types,
# dtype facts and promotion, the random generator's state, DLPack
from ctxgrad import backends, cuda, random  # noqa: E402
from ctxgrad._device import get_default_device, set_default_device  # noqa: E402
from ctxgrad._dlpack import from_dlpack  # noqa: E402
from ctxgrad._legacy import (  # noqa: E402
    BoolTensor,
    ByteTensor,
    CharTensor,
    DoubleTensor,
    FloatTensor,
    HalfTensor,
    IntTensor,
    LongTensor,
    ShortTensor,
)
from ctxgrad._typeinfo import can_cast, finfo, iinfo, promote_types, result_type  # noqa: E402
from ctxgrad.backends import (  # noqa: E402
    are_deterministic_algorithms_enabled,
    get_float32_matmul_precision,
    is_deterministic_algorithms_warn_only_enabled,
    set_float32_matmul_precision,
    use_deterministic_algorithms,
)
from ctxgrad.random import get_rng_state, initial_seed, seed, set_rng_state  # noqa: E402

__all__ += [
    "BoolTensor",
    "ByteTensor",
    "CharTensor",
    "DoubleTensor",
    "FloatTensor",
    "HalfTensor",
    "IntTensor",
    "LongTensor",
    "ShortTensor",
    "are_deterministic_algorithms_enabled",
    "backends",
    "can_cast",
    "cuda",
    "finfo",
    "from_dlpack",
    "get_default_device",
    "get_float32_matmul_precision",
    "get_rng_state",
    "iinfo",
    "initial_seed",
    "is_deterministic_algorithms_warn_only_enabled",
    "promote_types",
    "random",
    "result_type",
    "seed",
    "set_default_device",
    "set_float32_matmul_precision",
    "set_rng_state",
    "use_deterministic_algorithms",
]

# autograd.functional (jacobian, hessian, ...) is built on the public surface above, so it is
# loaded here rather than by ctxgrad.autograd; importing it makes ctxgrad.autograd.functional.
import ctxgrad.autograd.functional  # noqa: E402, F401

# the op author's tools: check_function (python -m ctxgrad check), OpTestCase, example; and
# einops' backend: with einops installed, its functions take ctxgrad tensors (einops finds the
# backend once _einops has defined it; without einops, _einops defines nothing it uses)
from ctxgrad import (  # noqa: E402
    _einops,  # noqa: F401 - defines the einops backend
    checks,
    testing,
)

__all__ += ["checks", "testing"]

# function transforms, as torch.func (vmap is also torch.vmap)
from ctxgrad import func  # noqa: E402
from ctxgrad.func import vmap  # noqa: E402

__all__ += ["func", "vmap"]

# drawing the graph: make_dot, torchviz's, for ctxgrad (optional extra ctxgrad[viz])
from ctxgrad import viz  # noqa: E402

__all__ += ["viz"]

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
from ctxgrad.ops.complex_numbers import (  # noqa: E402
    angle,
    complex,
    conj,
    conj_physical,
    imag,
    is_conj,
    polar,
    real,
    resolve_conj,
    view_as_complex,
    view_as_real,
)
from ctxgrad.ops.copy import (  # noqa: E402
    clone,
)
from ctxgrad.ops.indexing import (  # noqa: E402
    argwhere,
    gather,
    index_select,
    masked_fill,
    masked_select,
    nonzero,
    scatter,
    scatter_add,
    select,
    take,
    take_along_dim,
)
from ctxgrad.ops.linalg import (  # noqa: E402
    bmm,
    det,
    dot,
    einsum,
    inverse,
    matmul,
    mm,
    mv,
    outer,
    tensordot,
    vdot,
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
from ctxgrad.ops.shape import (  # noqa: E402
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
    permute,
    reshape,
    roll,
    split,
    squeeze,
    stack,
    swapaxes,
    swapdims,
    t,
    tile,
    transpose,
    tril,
    triu,
    unbind,
    unflatten,
    unsqueeze,
    vstack,
)
from ctxgrad.ops.sorting import (  # noqa: E402
    argsort,
    kthvalue,
    median,
    sort,
    topk,
)

__all__ += [
    "abs",
    "acos",
    "add",
    "all",
    "amax",
    "amin",
    "angle",
    "any",
    "arctan2",
    "argmax",
    "argmin",
    "argsort",
    "argwhere",
    "asin",
    "atan",
    "atan2",
    "bitwise_and",
    "bitwise_not",
    "bitwise_or",
    "bitwise_xor",
    "bmm",
    "broadcast_shapes",
    "broadcast_tensors",
    "broadcast_to",
    "cat",
    "ceil",
    "chunk",
    "clamp",
    "clamp_max",
    "clamp_min",
    "clip",
    "clone",
    "complex",
    "concat",
    "concatenate",
    "conj",
    "conj_physical",
    "cos",
    "cosh",
    "cumprod",
    "cumsum",
    "det",
    "diag",
    "diag_embed",
    "diagonal",
    "div",
    "dot",
    "einsum",
    "erf",
    "erfc",
    "exp",
    "exp2",
    "expm1",
    "flatten",
    "flip",
    "fliplr",
    "flipud",
    "floor",
    "floor_divide",
    "fmod",
    "frac",
    "gather",
    "hstack",
    "imag",
    "index_select",
    "inverse",
    "is_conj",
    "isfinite",
    "isinf",
    "isnan",
    "kthvalue",
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
    "masked_fill",
    "masked_select",
    "matmul",
    "max",
    "maximum",
    "mean",
    "median",
    "min",
    "minimum",
    "mm",
    "moveaxis",
    "movedim",
    "mul",
    "mv",
    "narrow",
    "neg",
    "nonzero",
    "norm",
    "outer",
    "permute",
    "polar",
    "pow",
    "prod",
    "real",
    "reciprocal",
    "relu",
    "remainder",
    "reshape",
    "resolve_conj",
    "roll",
    "round",
    "rsqrt",
    "scatter",
    "scatter_add",
    "select",
    "sigmoid",
    "sign",
    "sin",
    "sinh",
    "softmax",
    "sort",
    "split",
    "sqrt",
    "square",
    "squeeze",
    "stack",
    "std",
    "sub",
    "sum",
    "swapaxes",
    "swapdims",
    "t",
    "take",
    "take_along_dim",
    "tan",
    "tanh",
    "tensordot",
    "tile",
    "topk",
    "transpose",
    "tril",
    "triu",
    "true_divide",
    "trunc",
    "unbind",
    "unflatten",
    "unsqueeze",
    "var",
    "vdot",
    "view_as_complex",
    "view_as_real",
    "vstack",
    "where",
]
# --- end of generated code ---

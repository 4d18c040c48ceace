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

from typing import TYPE_CHECKING

from ctxgrad import (
    _surface,  # attaches the op table's Tensor methods (and makes the out= functions, below)
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
    dtype,
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
    "dtype",
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
from ctxgrad import linalg, special  # noqa: E402

__all__ += ["linalg", "special"]

# probability distributions and the discrete Fourier transforms
from ctxgrad import distributions, fft  # noqa: E402

__all__ += ["distributions", "fft"]

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

# random sampling (manual_seed makes every draw reproducible)
from ctxgrad._sampling import (  # noqa: E402
    bernoulli,
    multinomial,
    normal,
    poisson,
    randint_like,
    randperm,
)

__all__ += ["bernoulli", "multinomial", "normal", "poisson", "randint_like", "randperm"]

# training: optimizers, schedulers, saving and data loading
from ctxgrad import optim, utils  # noqa: E402
from ctxgrad.serialization import load, save  # noqa: E402

__all__ += ["load", "optim", "save", "utils"]

# porting shims: devices, CUDA's and the backends' answers on a CPU, legacy tensor types,
# dtype facts and promotion, the random generator's state, DLPack
from ctxgrad import backends, cuda, random  # noqa: E402
from ctxgrad._device import get_default_device, set_default_device  # noqa: E402
from ctxgrad._dlpack import from_dlpack  # noqa: E402
from ctxgrad._generator import Generator  # noqa: E402
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
    "Generator",
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

# the rest of torch's surface: more constructors (asarray, frombuffer, empty_strided, ...),
# type questions, and torch's runtime switches and objects as a CPU-only torch has them
from ctxgrad._construct import asarray, empty_permuted, empty_strided, frombuffer, range  # noqa: E402
from ctxgrad._format import set_printoptions  # noqa: E402
from ctxgrad._runtime import (  # noqa: E402
    Event,
    Stream,
    autocast,
    compile,
    is_complex,
    is_floating_point,
    is_nonzero,
    is_storage,
    set_flush_denormal,
    typename,
)

__all__ += [
    "Event",
    "Stream",
    "asarray",
    "autocast",
    "compile",
    "empty_permuted",
    "empty_strided",
    "frombuffer",
    "is_complex",
    "is_floating_point",
    "is_nonzero",
    "is_storage",
    "range",
    "set_flush_denormal",
    "set_printoptions",
    "typename",
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

# define-then-run: trace a function once, replay it (on a tensor, torch's trace: its diagonal's sum)
from ctxgrad.trace import trace  # noqa: E402

__all__ += ["trace"]

# the functions of the op table (ctxgrad/ops/table.py)
# --- generated by python -m ctxgrad._gen_methods from ctxgrad/ops/table.py: do not edit ---
if TYPE_CHECKING:
    from ctxgrad._tensor import Tensor

    def log(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...
    def tanh(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...
    def abs(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...
    def sign(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...
    def sqrt(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...
    def rsqrt(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...
    def square(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...
    def reciprocal(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...
    def exp2(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...
    def expm1(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...
    def log2(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...
    def log10(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...
    def log1p(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...
    def sin(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...
    def cos(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...
    def tan(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...
    def asin(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...
    def arcsin(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...
    def acos(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...
    def arccos(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...
    def atan(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...
    def arctan(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...
    def sinh(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...
    def cosh(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...
    def sigmoid(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...
    def relu(input: Tensor) -> Tensor: ...
    def floor(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...
    def ceil(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...
    def trunc(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...
    def frac(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...
    def erf(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...
    def erfc(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...
    def acosh(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...
    def arccosh(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...
    def asinh(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...
    def arcsinh(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...
    def atanh(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...
    def arctanh(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...
    def deg2rad(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...
    def rad2deg(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...
    def sinc(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...
    def lgamma(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...
    def digamma(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...
    def erfinv(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...
    def i0(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...


from ctxgrad.ops.arithmetic import (  # noqa: E402
    add,
    div,
    float_power,
    floor_divide,
    fmod,
    ldexp,
    mul,
    neg,
    pow,
    remainder,
    sub,
)
from ctxgrad.ops.arithmetic import div as divide  # noqa: E402
from ctxgrad.ops.arithmetic import div as true_divide  # noqa: E402
from ctxgrad.ops.comparison import (  # noqa: E402
    bitwise_and,
    bitwise_left_shift,
    bitwise_not,
    bitwise_or,
    bitwise_right_shift,
    bitwise_xor,
    eq,
    gcd,
    ge,
    gt,
    isfinite,
    isin,
    isinf,
    isnan,
    isneginf,
    isposinf,
    isreal,
    lcm,
    le,
    logical_and,
    logical_not,
    logical_or,
    logical_xor,
    lt,
    ne,
    signbit,
)
from ctxgrad.ops.comparison import ge as greater_equal  # noqa: E402
from ctxgrad.ops.comparison import gt as greater  # noqa: E402
from ctxgrad.ops.comparison import le as less_equal  # noqa: E402
from ctxgrad.ops.comparison import lt as less  # noqa: E402
from ctxgrad.ops.comparison import ne as not_equal  # noqa: E402
from ctxgrad.ops.complex_numbers import (  # noqa: E402
    angle,
    complex,
    conj,
    conj_physical,
    imag,
    is_conj,
    is_neg,
    polar,
    real,
    resolve_conj,
    resolve_neg,
    view_as_complex,
    view_as_real,
)
from ctxgrad.ops.copy import (  # noqa: E402
    clone,
)
from ctxgrad.ops.decompositions import (  # noqa: E402
    cholesky,
    cholesky_inverse,
    cholesky_solve,
    geqrf,
    lu,
    lu_solve,
    lu_unpack,
    orgqr,
    ormqr,
    pinverse,
    qr,
    slogdet,
    svd,
    triangular_solve,
)
from ctxgrad.ops.indexing import (  # noqa: E402
    argwhere,
    diagonal_scatter,
    gather,
    index_add,
    index_copy,
    index_fill,
    index_put,
    index_reduce,
    index_select,
    masked_fill,
    masked_scatter,
    masked_select,
    nonzero,
    nonzero_static,
    put,
    scatter,
    scatter_add,
    scatter_reduce,
    select,
    select_scatter,
    slice_scatter,
    take,
    take_along_dim,
    unravel_index,
)
from ctxgrad.ops.linalg import (  # noqa: E402
    addbmm,
    addmm,
    addmv,
    addr,
    baddbmm,
    bmm,
    cdist,
    chain_matmul,
    cross,
    det,
    dist,
    dot,
    einsum,
    inner,
    inverse,
    kron,
    logdet,
    matmul,
    matrix_exp,
    matrix_power,
    mm,
    mv,
    outer,
    tensordot,
    vander,
    vdot,
)
from ctxgrad.ops.linalg import outer as ger  # noqa: E402
from ctxgrad.ops.pointwise import (  # noqa: E402
    addcdiv,
    addcmul,
    arctan2,
    atan2,
    clamp,
    clamp_max,
    clamp_min,
    clip,
    copysign,
    exp,
    fmax,
    fmin,
    frexp,
    heaviside,
    hypot,
    igamma,
    igammac,
    lerp,
    logaddexp,
    logaddexp2,
    logit,
    maximum,
    minimum,
    nan_to_num,
    nextafter,
    polygamma,
    positive,
    round,
    sgn,
    where,
    xlogy,
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
    adjoint,
    as_strided,
    as_strided_scatter,
    atleast_1d,
    atleast_2d,
    atleast_3d,
    block_diag,
    broadcast_shapes,
    broadcast_tensors,
    broadcast_to,
    cartesian_prod,
    cat,
    chunk,
    column_stack,
    combinations,
    concat,
    concatenate,
    diag,
    diag_embed,
    diagflat,
    diagonal,
    dsplit,
    dstack,
    flatten,
    flip,
    fliplr,
    flipud,
    hsplit,
    hstack,
    meshgrid,
    moveaxis,
    movedim,
    narrow,
    narrow_copy,
    permute,
    ravel,
    repeat_interleave,
    reshape,
    roll,
    rot90,
    row_stack,
    split,
    split_with_sizes,
    squeeze,
    stack,
    swapaxes,
    swapdims,
    t,
    tensor_split,
    tile,
    transpose,
    tril,
    tril_indices,
    triu,
    triu_indices,
    unbind,
    unflatten,
    unsqueeze,
    vsplit,
    vstack,
)
from ctxgrad.ops.sorting import (  # noqa: E402
    argsort,
    bucketize,
    kthvalue,
    median,
    msort,
    searchsorted,
    sort,
    topk,
)
from ctxgrad.ops.statistics import (  # noqa: E402
    aminmax,
    bincount,
    corrcoef,
    count_nonzero,
    cov,
    cummax,
    cummin,
    cumulative_trapezoid,
    diff,
    gradient,
    hash_tensor,
    histc,
    histogram,
    histogramdd,
    logcumsumexp,
    mode,
    nanmean,
    nanmedian,
    nanquantile,
    nansum,
    quantile,
    renorm,
    std_mean,
    trapezoid,
    trapz,
    unique,
    unique_consecutive,
    var_mean,
)

__all__ += [
    "abs",
    "acos",
    "acosh",
    "add",
    "addbmm",
    "addcdiv",
    "addcmul",
    "addmm",
    "addmv",
    "addr",
    "adjoint",
    "all",
    "amax",
    "amin",
    "aminmax",
    "angle",
    "any",
    "arccos",
    "arccosh",
    "arcsin",
    "arcsinh",
    "arctan",
    "arctan2",
    "arctanh",
    "argmax",
    "argmin",
    "argsort",
    "argwhere",
    "as_strided",
    "as_strided_scatter",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
    "atleast_1d",
    "atleast_2d",
    "atleast_3d",
    "baddbmm",
    "bincount",
    "bitwise_and",
    "bitwise_left_shift",
    "bitwise_not",
    "bitwise_or",
    "bitwise_right_shift",
    "bitwise_xor",
    "block_diag",
    "bmm",
    "broadcast_shapes",
    "broadcast_tensors",
    "broadcast_to",
    "bucketize",
    "cartesian_prod",
    "cat",
    "cdist",
    "ceil",
    "chain_matmul",
    "cholesky",
    "cholesky_inverse",
    "cholesky_solve",
    "chunk",
    "clamp",
    "clamp_max",
    "clamp_min",
    "clip",
    "clone",
    "column_stack",
    "combinations",
    "complex",
    "concat",
    "concatenate",
    "conj",
    "conj_physical",
    "copysign",
    "corrcoef",
    "cos",
    "cosh",
    "count_nonzero",
    "cov",
    "cross",
    "cummax",
    "cummin",
    "cumprod",
    "cumsum",
    "cumulative_trapezoid",
    "deg2rad",
    "det",
    "diag",
    "diag_embed",
    "diagflat",
    "diagonal",
    "diagonal_scatter",
    "diff",
    "digamma",
    "dist",
    "div",
    "divide",
    "dot",
    "dsplit",
    "dstack",
    "einsum",
    "eq",
    "erf",
    "erfc",
    "erfinv",
    "exp",
    "exp2",
    "expm1",
    "flatten",
    "flip",
    "fliplr",
    "flipud",
    "float_power",
    "floor",
    "floor_divide",
    "fmax",
    "fmin",
    "fmod",
    "frac",
    "frexp",
    "gather",
    "gcd",
    "ge",
    "geqrf",
    "ger",
    "gradient",
    "greater",
    "greater_equal",
    "gt",
    "hash_tensor",
    "heaviside",
    "histc",
    "histogram",
    "histogramdd",
    "hsplit",
    "hstack",
    "hypot",
    "i0",
    "igamma",
    "igammac",
    "imag",
    "index_add",
    "index_copy",
    "index_fill",
    "index_put",
    "index_reduce",
    "index_select",
    "inner",
    "inverse",
    "is_conj",
    "is_neg",
    "isfinite",
    "isin",
    "isinf",
    "isnan",
    "isneginf",
    "isposinf",
    "isreal",
    "kron",
    "kthvalue",
    "lcm",
    "ldexp",
    "le",
    "lerp",
    "less",
    "less_equal",
    "lgamma",
    "log",
    "log10",
    "log1p",
    "log2",
    "log_softmax",
    "logaddexp",
    "logaddexp2",
    "logcumsumexp",
    "logdet",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "logit",
    "logsumexp",
    "lt",
    "lu",
    "lu_solve",
    "lu_unpack",
    "masked_fill",
    "masked_scatter",
    "masked_select",
    "matmul",
    "matrix_exp",
    "matrix_power",
    "max",
    "maximum",
    "mean",
    "median",
    "meshgrid",
    "min",
    "minimum",
    "mm",
    "mode",
    "moveaxis",
    "movedim",
    "msort",
    "mul",
    "mv",
    "nan_to_num",
    "nanmean",
    "nanmedian",
    "nanquantile",
    "nansum",
    "narrow",
    "narrow_copy",
    "ne",
    "neg",
    "nextafter",
    "nonzero",
    "nonzero_static",
    "norm",
    "not_equal",
    "orgqr",
    "ormqr",
    "outer",
    "permute",
    "pinverse",
    "polar",
    "polygamma",
    "positive",
    "pow",
    "prod",
    "put",
    "qr",
    "quantile",
    "rad2deg",
    "ravel",
    "real",
    "reciprocal",
    "relu",
    "remainder",
    "renorm",
    "repeat_interleave",
    "reshape",
    "resolve_conj",
    "resolve_neg",
    "roll",
    "rot90",
    "round",
    "row_stack",
    "rsqrt",
    "scatter",
    "scatter_add",
    "scatter_reduce",
    "searchsorted",
    "select",
    "select_scatter",
    "sgn",
    "sigmoid",
    "sign",
    "signbit",
    "sin",
    "sinc",
    "sinh",
    "slice_scatter",
    "slogdet",
    "softmax",
    "sort",
    "split",
    "split_with_sizes",
    "sqrt",
    "square",
    "squeeze",
    "stack",
    "std",
    "std_mean",
    "sub",
    "sum",
    "svd",
    "swapaxes",
    "swapdims",
    "t",
    "take",
    "take_along_dim",
    "tan",
    "tanh",
    "tensor_split",
    "tensordot",
    "tile",
    "topk",
    "transpose",
    "trapezoid",
    "trapz",
    "triangular_solve",
    "tril",
    "tril_indices",
    "triu",
    "triu_indices",
    "true_divide",
    "trunc",
    "unbind",
    "unflatten",
    "unique",
    "unique_consecutive",
    "unravel_index",
    "unsqueeze",
    "vander",
    "var",
    "var_mean",
    "vdot",
    "view_as_complex",
    "view_as_real",
    "vsplit",
    "vstack",
    "where",
    "xlogy",
]
# --- end of generated code ---
# the functions made from the op table's rows, and torch's out= on those of its OUT_VARIANTS
# (ctxgrad._surface.with_out); the generated block above declares their types
globals().update(_surface.made_functions())

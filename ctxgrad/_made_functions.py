"""The ``ctxgrad.*`` functions the surface makes: the frontends made from op rows, and torch's
``out=`` added through ``ctxgrad._surface.with_out``.

Written by ``python -m ctxgrad._gen_methods`` from the op rows (``ctxgrad/ops/table.py``): do not
edit.  Type checkers read the stubs (each frontend's signature, with ``out`` where the op takes
it); at run time the module holds the functions ``ctxgrad._surface.made_functions`` makes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import Any, overload

    from ctxgrad._tensor import Tensor
    from ctxgrad.ops import _return_types

    def abs(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def absolute(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def acos(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def acosh(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def addbmm(
        input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1, out: Tensor | None = None
    ) -> Tensor: ...

    def addcdiv(
        input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1, out: Tensor | None = None
    ) -> Tensor: ...

    def addcmul(
        input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1, out: Tensor | None = None
    ) -> Tensor: ...

    def addmm(
        input: Tensor, mat1: Tensor, mat2: Tensor, *, beta: Any = 1, alpha: Any = 1, out: Tensor | None = None
    ) -> Tensor: ...

    def addmv(
        input: Tensor, mat: Tensor, vec: Tensor, *, beta: Any = 1, alpha: Any = 1, out: Tensor | None = None
    ) -> Tensor: ...

    def addr(
        input: Tensor, vec1: Tensor, vec2: Tensor, *, beta: Any = 1, alpha: Any = 1, out: Tensor | None = None
    ) -> Tensor: ...

    def all(
        input: Tensor,
        dim: int | Sequence[int] | None = None,
        keepdim: bool = False,
        *,
        axis: Any = None,
        keepdims: bool | None = None,
        out: Tensor | None = None,
    ) -> Tensor: ...

    def amax(
        input: Tensor,
        dim: int | Sequence[int] = (),
        keepdim: bool = False,
        *,
        axis: Any = None,
        keepdims: bool | None = None,
        out: Tensor | None = None,
    ) -> Tensor: ...

    def amin(
        input: Tensor,
        dim: int | Sequence[int] = (),
        keepdim: bool = False,
        *,
        axis: Any = None,
        keepdims: bool | None = None,
        out: Tensor | None = None,
    ) -> Tensor: ...

    def aminmax(
        input: Tensor,
        *,
        dim: int | None = None,
        keepdim: bool = False,
        axis: Any = None,
        keepdims: bool | None = None,
        out: Tensor | None = None,
    ) -> Any: ...

    def angle(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def any(
        input: Tensor,
        dim: int | Sequence[int] | None = None,
        keepdim: bool = False,
        *,
        axis: Any = None,
        keepdims: bool | None = None,
        out: Tensor | None = None,
    ) -> Tensor: ...

    def arccos(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def arccosh(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def arcsin(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def arcsinh(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def arctan(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def arctan2(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def arctanh(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def argmax(
        input: Tensor,
        dim: int | None = None,
        keepdim: bool = False,
        *,
        axis: Any = None,
        keepdims: bool | None = None,
        out: Tensor | None = None,
    ) -> Tensor: ...

    def argmin(
        input: Tensor,
        dim: int | None = None,
        keepdim: bool = False,
        *,
        axis: Any = None,
        keepdims: bool | None = None,
        out: Tensor | None = None,
    ) -> Tensor: ...

    def argsort(
        input: Tensor,
        dim: int = -1,
        descending: bool = False,
        *,
        stable: bool = False,
        axis: Any = None,
        out: Tensor | None = None,
    ) -> Tensor: ...

    def as_strided(
        input: Tensor, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None
    ) -> Tensor: ...

    def asin(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def asinh(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def atan(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def atan2(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def atanh(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def baddbmm(
        input: Tensor, batch1: Tensor, batch2: Tensor, *, beta: Any = 1, alpha: Any = 1, out: Tensor | None = None
    ) -> Tensor: ...

    def bincount(input: Tensor, weights: Tensor | None = None, minlength: int = 0) -> Tensor: ...

    def bitwise_and(input: Any, other: Any, *, out: Tensor | None = None) -> Tensor: ...

    def bitwise_left_shift(input: Any, other: Any, *, out: Tensor | None = None) -> Tensor: ...

    def bitwise_not(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def bitwise_or(input: Any, other: Any, *, out: Tensor | None = None) -> Tensor: ...

    def bitwise_right_shift(input: Any, other: Any, *, out: Tensor | None = None) -> Tensor: ...

    def bitwise_xor(input: Any, other: Any, *, out: Tensor | None = None) -> Tensor: ...

    def block_diag(*tensors: Tensor) -> Tensor: ...

    def bmm(input: Tensor, mat2: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def broadcast_to(input: Tensor, size: Any) -> Tensor: ...

    def bucketize(
        input: Any, boundaries: Tensor, *, out_int32: bool = False, right: bool = False, out: Tensor | None = None
    ) -> Tensor: ...

    def cat(tensors: Any, dim: int = 0, *, axis: Any = None, out: Tensor | None = None) -> Tensor: ...

    def ceil(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def celu(input: Tensor, alpha: float = 1.0) -> Tensor: ...

    def chain_matmul(*matrices: Tensor, out: Tensor | None = None) -> Tensor: ...

    def cholesky(input: Tensor, upper: bool = False, *, out: Tensor | None = None) -> Tensor: ...

    def cholesky_inverse(input: Tensor, upper: bool = False, *, out: Tensor | None = None) -> Tensor: ...

    def cholesky_solve(input: Tensor, input2: Tensor, upper: bool = False, *, out: Tensor | None = None) -> Tensor: ...

    def chunk(input: Tensor, chunks: int, dim: int = 0, *, axis: Any = None) -> tuple[Tensor, ...]: ...

    def clamp(input: Tensor, min: Any = None, max: Any = None, *, out: Tensor | None = None) -> Tensor: ...

    def clamp_max(input: Tensor, max: Any, *, out: Tensor | None = None) -> Tensor: ...

    def clamp_max_(input: Tensor, max: Any) -> Tensor: ...

    def clamp_min(input: Tensor, min: Any, *, out: Tensor | None = None) -> Tensor: ...

    def clamp_min_(input: Tensor, min: Any) -> Tensor: ...

    def clip(input: Tensor, min: Any = None, max: Any = None, *, out: Tensor | None = None) -> Tensor: ...

    def clone(input: Tensor, *, memory_format: Any = None) -> Tensor: ...

    def column_stack(tensors: Any, *, out: Tensor | None = None) -> Tensor: ...

    def complex(real: Tensor, imag: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def concat(tensors: Any, dim: int = 0, *, axis: Any = None, out: Tensor | None = None) -> Tensor: ...

    def concatenate(tensors: Any, axis: int = 0, *, dim: int | None = None, out: Tensor | None = None) -> Tensor: ...

    def conj_physical(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def copysign(input: Tensor, other: Any, *, out: Tensor | None = None) -> Tensor: ...

    def cos(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def cosh(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def count_nonzero(input: Tensor, dim: Any = None, *, axis: Any = None) -> Tensor: ...

    def cross(input: Tensor, other: Tensor, dim: int | None = None, *, out: Tensor | None = None) -> Tensor: ...

    def cummax(input: Tensor, dim: int = ..., *, axis: Any = None, out: Tensor | None = None) -> Any: ...

    def cummin(input: Tensor, dim: int = ..., *, axis: Any = None, out: Tensor | None = None) -> Any: ...

    def cumprod(
        input: Tensor, dim: int = ..., *, dtype: Any = None, axis: Any = None, out: Tensor | None = None
    ) -> Tensor: ...

    def cumsum(
        input: Tensor, dim: int = ..., *, dtype: Any = None, axis: Any = None, out: Tensor | None = None
    ) -> Tensor: ...

    def cumulative_trapezoid(
        y: Tensor, x: Any = None, *, dx: Any = None, dim: int = -1, axis: Any = None
    ) -> Tensor: ...

    def deg2rad(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def det(input: Tensor) -> Tensor: ...

    def diag(input: Tensor, diagonal: int = 0, *, out: Tensor | None = None) -> Tensor: ...

    def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor: ...

    def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor: ...

    def diagonal_scatter(input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor: ...

    def diff(
        input: Tensor,
        n: int = 1,
        dim: int = -1,
        prepend: Tensor | None = None,
        append: Tensor | None = None,
        *,
        axis: Any = None,
        out: Tensor | None = None,
    ) -> Tensor: ...

    def digamma(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def dot(input: Tensor, tensor: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def dstack(tensors: Any, *, out: Tensor | None = None) -> Tensor: ...

    def einsum(*args: Any) -> Tensor: ...

    def eq(input: Tensor, other: Any, *, out: Tensor | None = None) -> Tensor: ...

    def erf(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def erfc(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def erfinv(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def exp(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def exp2(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def expm1(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def flip(input: Tensor, dims: Any) -> Tensor: ...

    def fliplr(input: Tensor) -> Tensor: ...

    def flipud(input: Tensor) -> Tensor: ...

    def float_power(input: Any, exponent: Any, *, out: Tensor | None = None) -> Tensor: ...

    def floor(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def floor_divide(input: Any, other: Any, *, out: Tensor | None = None) -> Tensor: ...

    def fmax(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def fmin(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def fmod(input: Tensor, other: Any, *, out: Tensor | None = None) -> Tensor: ...

    def frac(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def frexp(input: Tensor, *, out: Tensor | None = None) -> _return_types.frexp: ...

    def gather(
        input: Tensor,
        dim: int = ...,
        index: Tensor = ...,
        *,
        sparse_grad: bool = False,
        axis: Any = None,
        out: Tensor | None = None,
    ) -> Tensor: ...

    def gcd(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def ge(input: Tensor, other: Any, *, out: Tensor | None = None) -> Tensor: ...

    def geqrf(input: Tensor, *, out: Tensor | None = None) -> _return_types.geqrf: ...

    def ger(input: Tensor, vec2: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def greater(input: Tensor, other: Any, *, out: Tensor | None = None) -> Tensor: ...

    def greater_equal(input: Tensor, other: Any, *, out: Tensor | None = None) -> Tensor: ...

    def gt(input: Tensor, other: Any, *, out: Tensor | None = None) -> Tensor: ...

    def hash_tensor(
        input: Tensor, dim: Any = None, *, keepdim: bool = False, mode: int = 0, out: Tensor | None = None
    ) -> Tensor: ...

    def heaviside(input: Tensor, values: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def histc(
        input: Tensor, bins: int = 100, min: float = 0, max: float = 0, *, out: Tensor | None = None
    ) -> Tensor: ...

    def histogram(
        input: Tensor,
        bins: Any,
        *,
        range: Sequence[float] | None = None,
        weight: Tensor | None = None,
        density: bool = False,
        out: Tensor | None = None,
    ) -> Any: ...

    def hstack(tensors: Any, *, out: Tensor | None = None) -> Tensor: ...

    def hypot(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def i0(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def igamma(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def igammac(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def imag(input: Tensor) -> Tensor: ...

    def index_add(
        input: Tensor,
        dim: int = ...,
        index: Tensor = ...,
        source: Tensor = ...,
        *,
        alpha: Any = 1,
        axis: Any = None,
        out: Tensor | None = None,
    ) -> Tensor: ...

    def index_copy(
        input: Tensor,
        dim: int = ...,
        index: Tensor = ...,
        source: Tensor = ...,
        *,
        axis: Any = None,
        out: Tensor | None = None,
    ) -> Tensor: ...

    def index_fill(
        input: Tensor, dim: int = ..., index: Tensor = ..., value: Any = ..., *, axis: Any = None
    ) -> Tensor: ...

    def index_put(input: Tensor, indices: Any, values: Tensor, accumulate: bool = False) -> Tensor: ...

    def index_reduce(
        input: Tensor,
        dim: int = ...,
        index: Tensor = ...,
        source: Tensor = ...,
        reduce: str = ...,
        *,
        include_self: bool = True,
        axis: Any = None,
        out: Tensor | None = None,
    ) -> Tensor: ...

    def index_select(
        input: Tensor, dim: int = ..., index: Tensor = ..., *, axis: Any = None, out: Tensor | None = None
    ) -> Tensor: ...

    def inner(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def inverse(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def isfinite(input: Tensor) -> Tensor: ...

    def isin(
        elements: Any,
        test_elements: Any,
        *,
        assume_unique: bool = False,
        invert: bool = False,
        out: Tensor | None = None,
    ) -> Tensor: ...

    def isinf(input: Tensor) -> Tensor: ...

    def isnan(input: Tensor) -> Tensor: ...

    def isneginf(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def isposinf(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def isreal(input: Tensor) -> Tensor: ...

    def kron(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def kthvalue(
        input: Tensor,
        k: int,
        dim: int = -1,
        keepdim: bool = False,
        *,
        axis: Any = None,
        keepdims: bool | None = None,
        out: Tensor | None = None,
    ) -> _return_types.kthvalue: ...

    def lcm(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def ldexp(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def le(input: Tensor, other: Any, *, out: Tensor | None = None) -> Tensor: ...

    def lerp(input: Tensor, end: Tensor, weight: Any, *, out: Tensor | None = None) -> Tensor: ...

    def less(input: Tensor, other: Any, *, out: Tensor | None = None) -> Tensor: ...

    def less_equal(input: Tensor, other: Any, *, out: Tensor | None = None) -> Tensor: ...

    def lgamma(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def log(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def log1p(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def log2(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def log10(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def log_softmax(
        input: Tensor, dim: int = ..., dtype: Any = None, *, axis: Any = None, out: Tensor | None = None
    ) -> Tensor: ...

    def logaddexp(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def logaddexp2(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def logcumsumexp(input: Tensor, dim: int = ..., *, axis: Any = None, out: Tensor | None = None) -> Tensor: ...

    def logical_and(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def logical_not(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def logical_or(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def logical_xor(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def logit(input: Tensor, eps: float | None = None, *, out: Tensor | None = None) -> Tensor: ...

    def logsumexp(
        input: Tensor,
        dim: int | Sequence[int] = ...,
        keepdim: bool = False,
        *,
        axis: Any = None,
        keepdims: bool | None = None,
        out: Tensor | None = None,
    ) -> Tensor: ...

    def lt(input: Tensor, other: Any, *, out: Tensor | None = None) -> Tensor: ...

    def lu_solve(input: Tensor, LU_data: Tensor, LU_pivots: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def lu_unpack(
        LU_data: Tensor,
        LU_pivots: Tensor,
        unpack_data: bool = True,
        unpack_pivots: bool = True,
        *,
        out: Tensor | None = None,
    ) -> _return_types.lu_unpack: ...

    def masked_select(input: Tensor, mask: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def matmul(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def matrix_exp(input: Tensor) -> Tensor: ...

    def matrix_power(input: Tensor, n: int, *, out: Tensor | None = None) -> Tensor: ...

    @overload
    def max(
        input: Tensor,
        dim: None = None,
        keepdim: bool = False,
        *,
        axis: Any = None,
        keepdims: bool | None = None,
        out: Tensor | None = None,
    ) -> Tensor: ...

    @overload
    def max(input: Tensor, dim: Tensor, *, axis: Any = None, out: Tensor | None = None) -> Tensor: ...

    @overload
    def max(input: Tensor, *, other: Tensor, out: Tensor | None = None) -> Tensor: ...

    @overload
    def max(
        input: Tensor,
        dim: int,
        keepdim: bool = False,
        *,
        keepdims: bool | None = None,
        axis: Any = None,
        out: Tensor | None = None,
    ) -> _return_types.max: ...

    def max(
        input: Tensor,
        dim: Any = None,
        keepdim: bool = False,
        *,
        other: Tensor | None = None,
        keepdims: bool | None = None,
        axis: Any = None,
        out: Tensor | None = None,
    ) -> Any: ...

    def maximum(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def mean(
        input: Tensor,
        dim: int | Sequence[int] | None = ...,
        keepdim: bool = False,
        *,
        dtype: Any = None,
        keepdims: bool | None = None,
        axis: Any = None,
        out: Tensor | None = None,
    ) -> Tensor: ...

    def median(
        input: Tensor,
        dim: int | None = None,
        keepdim: bool = False,
        *,
        keepdims: bool | None = None,
        axis: Any = None,
        out: Tensor | None = None,
    ) -> Any: ...

    @overload
    def min(
        input: Tensor,
        dim: None = None,
        keepdim: bool = False,
        *,
        axis: Any = None,
        keepdims: bool | None = None,
        out: Tensor | None = None,
    ) -> Tensor: ...

    @overload
    def min(input: Tensor, dim: Tensor, *, axis: Any = None, out: Tensor | None = None) -> Tensor: ...

    @overload
    def min(input: Tensor, *, other: Tensor, out: Tensor | None = None) -> Tensor: ...

    @overload
    def min(
        input: Tensor,
        dim: int,
        keepdim: bool = False,
        *,
        keepdims: bool | None = None,
        axis: Any = None,
        out: Tensor | None = None,
    ) -> _return_types.min: ...

    def min(
        input: Tensor,
        dim: Any = None,
        keepdim: bool = False,
        *,
        other: Tensor | None = None,
        keepdims: bool | None = None,
        axis: Any = None,
        out: Tensor | None = None,
    ) -> Any: ...

    def minimum(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def mm(input: Tensor, mat2: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def mode(
        input: Tensor,
        dim: int = -1,
        keepdim: bool = False,
        *,
        axis: Any = None,
        keepdims: bool | None = None,
        out: Tensor | None = None,
    ) -> Any: ...

    def moveaxis(input: Tensor, source: int | Sequence[int], destination: int | Sequence[int]) -> Tensor: ...

    def movedim(input: Tensor, source: int | Sequence[int], destination: int | Sequence[int]) -> Tensor: ...

    def msort(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def mv(input: Tensor, vec: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def nan_to_num(
        input: Tensor,
        nan: float = 0.0,
        posinf: float | None = None,
        neginf: float | None = None,
        *,
        out: Tensor | None = None,
    ) -> Tensor: ...

    def nanmean(
        input: Tensor,
        dim: Any = None,
        keepdim: bool = False,
        *,
        dtype: Any = None,
        axis: Any = None,
        keepdims: bool | None = None,
        out: Tensor | None = None,
    ) -> Tensor: ...

    def nanmedian(
        input: Tensor,
        dim: int | None = None,
        keepdim: bool = False,
        *,
        axis: Any = None,
        keepdims: bool | None = None,
        out: Tensor | None = None,
    ) -> Any: ...

    def nanquantile(
        input: Tensor,
        q: Any,
        dim: int | None = None,
        keepdim: bool = False,
        *,
        interpolation: str = "linear",
        axis: Any = None,
        keepdims: bool | None = None,
        out: Tensor | None = None,
    ) -> Tensor: ...

    def nansum(
        input: Tensor,
        dim: Any = None,
        keepdim: bool = False,
        *,
        dtype: Any = None,
        axis: Any = None,
        keepdims: bool | None = None,
        out: Tensor | None = None,
    ) -> Tensor: ...

    def narrow(input: Tensor, dim: int = ..., start: Any = ..., length: int = ..., *, axis: Any = None) -> Tensor: ...

    def narrow_copy(input: Tensor, dim: int, start: int, length: int, *, out: Tensor | None = None) -> Tensor: ...

    def ne(input: Tensor, other: Any, *, out: Tensor | None = None) -> Tensor: ...

    def neg(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def nextafter(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def nonzero(input: Tensor, *, as_tuple: bool = False, out: Tensor | None = None) -> Any: ...

    def nonzero_static(input: Tensor, *, size: int, fill_value: int = -1, out: Tensor | None = None) -> Tensor: ...

    def norm(
        input: Tensor,
        p: Any = "fro",
        dim: Any = None,
        keepdim: bool = False,
        dtype: Any = None,
        *,
        out: Tensor | None = None,
    ) -> Tensor: ...

    def not_equal(input: Tensor, other: Any, *, out: Tensor | None = None) -> Tensor: ...

    def orgqr(input: Tensor, input2: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def ormqr(
        input: Tensor,
        input2: Tensor,
        input3: Tensor,
        left: bool = True,
        transpose: bool = False,
        *,
        out: Tensor | None = None,
    ) -> Tensor: ...

    def outer(input: Tensor, vec2: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def permute(input: Tensor, dims: Any) -> Tensor: ...

    def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor: ...

    def polar(abs: Tensor, angle: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def polygamma(n: int, input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def pow(input: Any, exponent: Any, *, out: Tensor | None = None) -> Tensor: ...

    def prod(
        input: Tensor,
        dim: int | None = None,
        keepdim: bool = False,
        *,
        dtype: Any = None,
        keepdims: bool | None = None,
        axis: Any = None,
        out: Tensor | None = None,
    ) -> Tensor: ...

    def put(
        input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False, *, out: Tensor | None = None
    ) -> Tensor: ...

    def qr(input: Tensor, some: bool = True, *, out: Tensor | None = None) -> _return_types.qr: ...

    def quantile(
        input: Tensor,
        q: Any,
        dim: int | None = None,
        keepdim: bool = False,
        *,
        interpolation: str = "linear",
        axis: Any = None,
        keepdims: bool | None = None,
        out: Tensor | None = None,
    ) -> Tensor: ...

    def rad2deg(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def ravel(input: Tensor) -> Tensor: ...

    def reciprocal(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def relu(input: Tensor) -> Tensor: ...

    def remainder(input: Any, other: Any, *, out: Tensor | None = None) -> Tensor: ...

    def renorm(input: Tensor, p: float, dim: int, maxnorm: float, *, out: Tensor | None = None) -> Tensor: ...

    def repeat_interleave(
        input: Tensor, repeats: Any = None, dim: int | None = None, *, output_size: int | None = None, axis: Any = None
    ) -> Tensor: ...

    def reshape(input: Tensor, shape: Any) -> Tensor: ...

    def roll(input: Tensor, shifts: int | Sequence[int], dims: int | Sequence[int] | None = None) -> Tensor: ...

    def round(input: Tensor, *, decimals: int = 0, out: Tensor | None = None) -> Tensor: ...

    def row_stack(tensors: Any, *, out: Tensor | None = None) -> Tensor: ...

    def rsqrt(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def scatter(
        input: Tensor,
        dim: int = ...,
        index: Tensor = ...,
        src: Any = None,
        *,
        value: Any = None,
        reduce: str | None = None,
        axis: Any = None,
        out: Tensor | None = None,
    ) -> Tensor: ...

    def scatter_add(
        input: Tensor,
        dim: int = ...,
        index: Tensor = ...,
        src: Tensor = ...,
        *,
        axis: Any = None,
        out: Tensor | None = None,
    ) -> Tensor: ...

    def scatter_reduce(
        input: Tensor,
        dim: int = ...,
        index: Tensor = ...,
        src: Tensor = ...,
        reduce: str = ...,
        *,
        include_self: bool = True,
        axis: Any = None,
        out: Tensor | None = None,
    ) -> Tensor: ...

    def searchsorted(
        sorted_sequence: Tensor,
        input: Any,
        *,
        out_int32: bool = False,
        right: bool = False,
        side: str | None = None,
        sorter: Tensor | None = None,
        out: Tensor | None = None,
    ) -> Tensor: ...

    def select(input: Tensor, dim: int = ..., index: int = ..., *, axis: Any = None) -> Tensor: ...

    def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor: ...

    def selu(input: Tensor) -> Tensor: ...

    def sgn(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def sigmoid(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def sign(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def signbit(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def sin(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def sinc(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def sinh(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def slice_scatter(
        input: Tensor,
        src: Tensor,
        dim: int = 0,
        start: int | None = None,
        end: int | None = None,
        step: int = 1,
        *,
        out: Tensor | None = None,
    ) -> Tensor: ...

    def slogdet(input: Tensor, *, out: Tensor | None = None) -> _return_types.slogdet: ...

    def softmax(
        input: Tensor, dim: int = ..., dtype: Any = None, *, axis: Any = None, out: Tensor | None = None
    ) -> Tensor: ...

    def sort(
        input: Tensor,
        dim: int = -1,
        descending: bool = False,
        *,
        stable: bool | None = None,
        axis: Any = None,
        out: Tensor | None = None,
    ) -> _return_types.sort: ...

    def sqrt(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def square(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def squeeze(input: Tensor, dim: int | Sequence[int] | None = None, *, axis: Any = None) -> Tensor: ...

    def stack(tensors: Any, dim: int = 0, *, axis: Any = None, out: Tensor | None = None) -> Tensor: ...

    def std(
        input: Tensor,
        dim: Any = None,
        unbiased: bool | None = None,
        keepdim: bool = False,
        *,
        correction: float | None = None,
        axis: Any = None,
        keepdims: bool | None = None,
        out: Tensor | None = None,
    ) -> Tensor: ...

    def std_mean(
        input: Tensor,
        dim: Any = None,
        unbiased: bool | None = None,
        keepdim: bool = False,
        *,
        correction: Any = None,
        axis: Any = None,
        keepdims: bool | None = None,
    ) -> tuple[Tensor, Tensor]: ...

    def sum(
        input: Tensor,
        dim: int | Sequence[int] | None = ...,
        keepdim: bool = False,
        *,
        dtype: Any = None,
        keepdims: bool | None = None,
        axis: Any = None,
        out: Tensor | None = None,
    ) -> Tensor: ...

    def svd(
        input: Tensor, some: bool = True, compute_uv: bool = True, *, out: Tensor | None = None
    ) -> _return_types.svd: ...

    def take(input: Tensor, index: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def take_along_dim(
        input: Tensor, indices: Tensor, dim: int | None = None, *, axis: Any = None, out: Tensor | None = None
    ) -> Tensor: ...

    def tan(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def tanh(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def tensor_split(
        input: Tensor,
        indices_or_sections: Any = None,
        dim: int = 0,
        *,
        sections: int | None = None,
        indices: Sequence[int] | None = None,
        tensor_indices_or_sections: Tensor | None = None,
        axis: Any = None,
    ) -> tuple[Tensor, ...]: ...

    def tensordot(a: Tensor, b: Tensor, dims: Any = 2, *, out: Tensor | None = None) -> Tensor: ...

    def tile(input: Tensor, dims: Any) -> Tensor: ...

    def topk(
        input: Tensor,
        k: int,
        dim: int = -1,
        largest: bool = True,
        sorted: bool = True,
        *,
        axis: Any = None,
        out: Tensor | None = None,
    ) -> _return_types.topk: ...

    def trapezoid(y: Tensor, x: Any = None, *, dx: Any = None, dim: int = -1, axis: Any = None) -> Tensor: ...

    def trapz(y: Tensor, x: Any = None, *, dx: Any = None, dim: int = -1, axis: Any = None) -> Tensor: ...

    def triangular_solve(
        input: Tensor,
        A: Tensor,
        upper: bool = True,
        transpose: bool = False,
        unitriangular: bool = False,
        *,
        out: Tensor | None = None,
    ) -> _return_types.triangular_solve: ...

    def tril(input: Tensor, diagonal: int = 0, *, out: Tensor | None = None) -> Tensor: ...

    def triu(input: Tensor, diagonal: int = 0, *, out: Tensor | None = None) -> Tensor: ...

    def trunc(input: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def unbind(input: Tensor, dim: int = 0, *, axis: Any = None) -> tuple[Tensor, ...]: ...

    def unflatten(input: Tensor, dim: int = ..., sizes: Sequence[int] = ..., *, axis: Any = None) -> Tensor: ...

    def unsqueeze(input: Tensor, dim: int = ..., *, axis: Any = None) -> Tensor: ...

    def var(
        input: Tensor,
        dim: Any = None,
        unbiased: bool | None = None,
        keepdim: bool = False,
        *,
        correction: float | None = None,
        axis: Any = None,
        keepdims: bool | None = None,
        out: Tensor | None = None,
    ) -> Tensor: ...

    def var_mean(
        input: Tensor,
        dim: Any = None,
        unbiased: bool | None = None,
        keepdim: bool = False,
        *,
        correction: Any = None,
        axis: Any = None,
        keepdims: bool | None = None,
    ) -> tuple[Tensor, Tensor]: ...

    def vdot(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor: ...

    def view_as_complex(input: Tensor) -> Tensor: ...

    def view_as_real(input: Tensor) -> Tensor: ...

    def vstack(tensors: Any, *, out: Tensor | None = None) -> Tensor: ...

    def where(condition: Tensor, input: Any = None, other: Any = None, *, out: Tensor | None = None) -> Any: ...

    def xlogy(input: Any, other: Any, *, out: Tensor | None = None) -> Tensor: ...
else:
    from ctxgrad._surface import made_functions

    globals().update(made_functions())

__all__ = [
    "abs",
    "absolute",
    "acos",
    "acosh",
    "addbmm",
    "addcdiv",
    "addcmul",
    "addmm",
    "addmv",
    "addr",
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
    "as_strided",
    "asin",
    "asinh",
    "atan",
    "atan2",
    "atanh",
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
    "broadcast_to",
    "bucketize",
    "cat",
    "ceil",
    "celu",
    "chain_matmul",
    "cholesky",
    "cholesky_inverse",
    "cholesky_solve",
    "chunk",
    "clamp",
    "clamp_max",
    "clamp_max_",
    "clamp_min",
    "clamp_min_",
    "clip",
    "clone",
    "column_stack",
    "complex",
    "concat",
    "concatenate",
    "conj_physical",
    "copysign",
    "cos",
    "cosh",
    "count_nonzero",
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
    "diagonal",
    "diagonal_scatter",
    "diff",
    "digamma",
    "dot",
    "dstack",
    "einsum",
    "eq",
    "erf",
    "erfc",
    "erfinv",
    "exp",
    "exp2",
    "expm1",
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
    "greater",
    "greater_equal",
    "gt",
    "hash_tensor",
    "heaviside",
    "histc",
    "histogram",
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
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "logit",
    "logsumexp",
    "lt",
    "lu_solve",
    "lu_unpack",
    "masked_select",
    "matmul",
    "matrix_exp",
    "matrix_power",
    "max",
    "maximum",
    "mean",
    "median",
    "min",
    "minimum",
    "mm",
    "mode",
    "moveaxis",
    "movedim",
    "msort",
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
    "pow",
    "prod",
    "put",
    "qr",
    "quantile",
    "rad2deg",
    "ravel",
    "reciprocal",
    "relu",
    "remainder",
    "renorm",
    "repeat_interleave",
    "reshape",
    "roll",
    "round",
    "row_stack",
    "rsqrt",
    "scatter",
    "scatter_add",
    "scatter_reduce",
    "searchsorted",
    "select",
    "select_scatter",
    "selu",
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
    "sqrt",
    "square",
    "squeeze",
    "stack",
    "std",
    "std_mean",
    "sum",
    "svd",
    "take",
    "take_along_dim",
    "tan",
    "tanh",
    "tensor_split",
    "tensordot",
    "tile",
    "topk",
    "trapezoid",
    "trapz",
    "triangular_solve",
    "tril",
    "triu",
    "trunc",
    "unbind",
    "unflatten",
    "unsqueeze",
    "var",
    "var_mean",
    "vdot",
    "view_as_complex",
    "view_as_real",
    "vstack",
    "where",
    "xlogy",
]

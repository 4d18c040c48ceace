"""Linear-algebra ops written with the Functions of :mod:`ctxgrad.ops.linalg` (and others):
``chain_matmul``, ``inner``, ``kron``, ``cross``, ``trace``, ``logdet``, ``cdist``,
``matrix_power``, ``dist`` and ``vander``.  Their nodes are those of the ops they are written
with (docs/differences.md lists where torch gives one a node of its own)."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np

from ctxgrad._dtypes import short_name
from ctxgrad._tensor import Tensor, _wrap_dim, as_tensor
from ctxgrad.ops._row import Op
from ctxgrad.ops.joining import Cat
from ctxgrad.ops.linalg import Dot, LinalgDet, LinalgInv, Mm, _check_square, matmul, tensordot
from ctxgrad.ops.reordering import Flip

__all__ = [
    "ROWS",
    "cdist",
    "chain_matmul",
    "cross",
    "dist",
    "inner",
    "kron",
    "logdet",
    "matrix_power",
    "trace",
    "vander",
]


def chain_matmul(*matrices: Tensor) -> Tensor:
    """The product of 2-D matrices, left to right (deprecated in torch: ``linalg.multi_dot``)."""
    import warnings

    warnings.warn(
        "torch.chain_matmul is deprecated and will be removed in a future PyTorch release. Use "
        "torch.linalg.multi_dot instead, which accepts a list of two or more tensors rather than "
        "multiple parameters.",
        UserWarning,
        stacklevel=2,
    )
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    if len(matrices) == 1:
        if matrices[0].dim() != 2:
            raise RuntimeError(f"chain_matmul(): Tensor 0 must be 2D, got {matrices[0].dim()}D")
        return matrices[0].clone()
    return functools.reduce(Mm.apply, matrices)


def inner(input: Tensor, other: Tensor) -> Tensor:
    """The sum of products over the last dimension of both (a product if either is 0-d)."""
    if input.dim() == 0 or other.dim() == 0:
        product: Tensor = input * other
        return product
    if input.array.dtype != other.array.dtype:
        raise RuntimeError("both inputs should have same dtype")
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(
            "inner() the last dimension must match on both input tensors but got shapes "
            f"{list(input.shape)} and {list(other.shape)}"
        )
    if input.dim() == 1 and other.dim() == 1:
        return Dot.apply(input, other)
    return tensordot(input, other, ([-1], [-1]))


def kron(input: Tensor, other: Tensor) -> Tensor:
    """The Kronecker product: each element of ``input`` times the whole of ``other``."""
    nd = max(input.dim(), other.dim())
    a_shape = (1,) * (nd - input.dim()) + tuple(input.shape)
    b_shape = (1,) * (nd - other.dim()) + tuple(other.shape)
    a = input.reshape([n for s in a_shape for n in (s, 1)])
    b = other.reshape([n for s in b_shape for n in (1, s)])
    product: Tensor = a * b
    return product.reshape([x * y for x, y in zip(a_shape, b_shape)])


def cross(input: Tensor, other: Tensor, dim: int | None = None) -> Tensor:
    """The cross product of 3-vectors along ``dim`` (without it, torch's deprecated default:
    the first dimension of size 3, with its warning)."""
    if input.dim() != other.dim():
        raise RuntimeError("linalg.cross: inputs must have the same number of dimensions.")
    shape = np.broadcast_shapes(tuple(input.shape), tuple(other.shape))
    if dim is None:
        import warnings

        warnings.warn(
            "Using torch.cross without specifying the dim arg is deprecated.\nPlease either pass the dim "
            "explicitly or simply use torch.linalg.cross.\nThe default value of dim will change to agree "
            "with that of linalg.cross in a future release.",
            UserWarning,
            stacklevel=2,
        )
        sizes = [i for i, s in enumerate(shape) if s == 3]
        if not sizes:
            raise RuntimeError("no dimension of size 3 in input")
        dim = sizes[0]
    d = _wrap_dim(dim, len(shape))
    if input.shape[d] != 3 or other.shape[d] != 3:
        raise RuntimeError(
            f"linalg.cross: inputs dimension {dim} must have length 3. Got {input.shape[d]} and {other.shape[d]}"
        )
    a, b = input.broadcast_to(shape), other.broadcast_to(shape)
    first, second = as_tensor(np.array([1, 2, 0])), as_tensor(np.array([2, 0, 1]))
    result: Tensor = a.index_select(d, first) * b.index_select(d, second) - a.index_select(d, second) * b.index_select(
        d, first
    )
    return result


def trace(input: Tensor) -> Tensor:
    """The sum of the main diagonal of a 2-D tensor."""
    if input.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.dim()}")
    if input.array.dtype == np.bool_:
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    return input.diagonal().sum()


def logdet(input: Tensor) -> Tensor:
    """``log(det(input))`` of a square matrix (or a batch): NaN for a negative determinant."""
    if input.dim() < 2:
        raise RuntimeError("logdet: The input tensor A must have at least 2 dimensions.")
    if input.array.dtype == np.float16:
        raise RuntimeError("logdet: Low precision dtypes not supported. Got Half")
    if input.array.dtype.kind not in "fc":
        raise RuntimeError(
            f"logdet: Expected a floating point or complex tensor as input. Got {short_name(input.array.dtype)}"
        )
    return LinalgDet.apply(input).log()


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0, compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:
    """The ``p``-norm distance between each row of ``x1`` and each row of ``x2`` (batched)."""
    if x1.array.dtype.kind != "f":
        raise RuntimeError(f"cdist only supports floating-point dtypes, X1 got: {short_name(x1.array.dtype)}")
    if x2.array.dtype.kind != "f":
        raise RuntimeError(f"cdist only supports floating-point dtypes, X2 got: {short_name(x2.array.dtype)}")
    if x1.dim() < 2 or x2.dim() < 2:
        raise RuntimeError(
            f"cdist only supports at least 2D tensors, X{1 if x1.dim() < 2 else 2} got: {min(x1.dim(), x2.dim())}D"
        )
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: {x1.shape[-1]} X2: {x2.shape[-1]}")
    if p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    difference: Tensor = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    return difference.norm(float(p), dim=-1)


def matrix_power(input: Tensor, n: int) -> Tensor:
    """The ``n``-th power of a square matrix (or a batch) by repeated squaring; ``n < 0`` uses the inverse."""
    _check_square(input.array, "linalg.matrix_power")
    if n == 0:
        eye = np.broadcast_to(np.eye(input.shape[-1], dtype=input.array.dtype), tuple(input.shape))
        return as_tensor(eye.copy())
    base = LinalgInv.apply(input) if n < 0 else input
    n = abs(n)
    result: Tensor | None = None
    while True:
        if n & 1:
            result = base if result is None else matmul(result, base)
        n >>= 1
        if not n:
            break
        base = matmul(base, base)
    assert result is not None
    return result if result is not input else input.clone()


def dist(input: Tensor, other: Tensor, p: Any = 2) -> Tensor:
    """The ``p``-norm of ``input - other``."""
    difference: Tensor = input - other
    if difference.array.dtype.kind not in "fc":
        raise RuntimeError(
            "norm(): input dtype should be either floating point or complex. "
            f"Got {short_name(difference.array.dtype)} instead."
        )
    return difference.norm(float(p))


def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:
    """The Vandermonde matrix of the 1-d ``x``: its columns are the powers ``x**(N-1)``, ...,
    ``x**0`` (``increasing``: from ``x**0`` up), ``N`` of them (default ``len(x)``).
    Written as torch writes it, a cumulative product of ``x`` after a column of ones (so its
    gradient at ``x == 0`` is finite), flipped unless ``increasing``; integer and bool
    inputs give int64.

    >>> import ctxgrad
    >>> ctxgrad.vander(ctxgrad.tensor([1, 2, 3]), N=3).tolist()
    [[1, 1, 1], [4, 2, 1], [9, 3, 1]]
    """
    if not isinstance(x, Tensor):
        raise TypeError(f"vander(): argument 'x' (position 1) must be Tensor, not {type(x).__name__}")
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else int(N)
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    if x.array.dtype.kind in "biu":
        x = x.to(np.dtype(np.int64))
    ones = as_tensor(np.ones((x.shape[0], 1), dtype=x.array.dtype))
    if n <= 1:
        out = ones[:, :n]
    else:
        out = Cat.apply(1, ones, x.unsqueeze(1).expand(x.shape[0], n - 1).cumprod(1))
    return out if increasing else Flip.apply(out, (1,))


ROWS: list[Op] = [
    Op("dist", dist),
    Op("chain_matmul", chain_matmul, method=False, out=True),
    Op("inner", inner, out=True),
    Op("kron", kron, out=True),
    Op("cross", cross, out=True),
    # ctxgrad.trace is ctxgrad/trace.py's: a tensor gets this op, a function is traced.
    Op("trace", trace, function=False),
    Op("logdet", logdet),
    Op("cdist", cdist, method=False),
    Op("matrix_power", matrix_power, out=True),
    Op("vander", vander, method=False),
]

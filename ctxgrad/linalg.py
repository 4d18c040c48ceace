"""``ctxgrad.linalg``: torch.linalg's norms, inverse, determinant, solves and decompositions.

The decompositions return torch's named tuples and are differentiable with torch's formulas
(their Functions are in ``ctxgrad/ops/decompositions.py``):

>>> import ctxgrad
>>> A = ctxgrad.tensor([[3.0, 1.0], [1.0, 3.0]], requires_grad=True)
>>> ctxgrad.linalg.eigh(A).eigenvalues
tensor([2., 4.], grad_fn=<LinalgEighBackward0>)
>>> B = ctxgrad.tensor([[3.0, 0.0], [0.0, -2.0]], requires_grad=True)
>>> ctxgrad.linalg.svdvals(B).sum().backward()  # the nuclear norm's gradient, U Vh
>>> B.grad
tensor([[ 1.,  0.],
        [ 0., -1.]])
>>> L = ctxgrad.linalg.cholesky(A.detach())
>>> L @ L.mT
tensor([[3.0000, 1.0000],
        [1.0000, 3.0000]])
>>> LU, pivots = ctxgrad.linalg.lu_factor(A.detach())
>>> pivots
tensor([1, 2], dtype=ctxgrad.int32)
>>> ctxgrad.linalg.lu_solve(LU, pivots, ctxgrad.tensor([[4.0], [4.0]]))
tensor([[1.0000],
        [1.0000]])

Torch's failure modes come with its formulas: the gradient through singular vectors (or
eigenvectors) of repeated singular values (eigenvalues) is ``nan``, and a complex loss that
depends on the phase of those vectors raises torch's ``RuntimeError`` in backward.

>>> A = ctxgrad.tensor([[2.0, 0.0], [0.0, 4.0]], requires_grad=True)
>>> ctxgrad.linalg.det(A)
tensor(8., grad_fn=<LinalgDetBackward0>)
>>> ctxgrad.linalg.solve(A, ctxgrad.tensor([2.0, 2.0]))
tensor([1.0000, 0.5000], grad_fn=<LinalgSolveExBackward0>)
>>> ctxgrad.linalg.norm(ctxgrad.tensor([3.0, 4.0]))
tensor(5.)

A singular matrix raises :class:`LinAlgError`, a ``RuntimeError``, as in torch.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ctxgrad import _made_functions as _made
from ctxgrad._dtypes import cpp_name, short_name, to_dtype
from ctxgrad._made_functions import cat
from ctxgrad._surface import add_out as _add_out
from ctxgrad._tensor import Tensor, _wrap_dim, as_tensor
from ctxgrad.ops import decompositions as _dec
from ctxgrad.ops import householder as _householder
from ctxgrad.ops import linalg as _ops
from ctxgrad.ops import linalg_composed as _composed
from ctxgrad.ops import reduction as _reduction
from ctxgrad.ops._util import numpy_dim, numpy_keepdim
from ctxgrad.ops.linalg import LinAlgError

__all__ = [
    "LinAlgError",
    "cholesky",
    "cholesky_ex",
    "cond",
    "cross",
    "det",
    "diagonal",
    "eig",
    "eigh",
    "eigvals",
    "eigvalsh",
    "householder_product",
    "inv",
    "inv_ex",
    "lstsq",
    "lu",
    "lu_factor",
    "lu_factor_ex",
    "lu_solve",
    "matmul",
    "matrix_exp",
    "matrix_norm",
    "matrix_power",
    "matrix_rank",
    "multi_dot",
    "norm",
    "pinv",
    "qr",
    "slogdet",
    "solve",
    "solve_ex",
    "solve_triangular",
    "svd",
    "svdvals",
    "tensorinv",
    "tensorsolve",
    "vander",
    "vecdot",
    "vector_norm",
]

# The decompositions (their Functions and frontends are in ctxgrad/ops/decompositions.py).
svd = _dec.linalg_svd
svdvals = _dec.svdvals
eigh = _dec.linalg_eigh
eigvalsh = _dec.eigvalsh
eig = _dec.eig
eigvals = _dec.eigvals
qr = _dec.linalg_qr
cholesky = _dec.linalg_cholesky
cholesky_ex = _dec.cholesky_ex
solve_triangular = _dec.solve_triangular
lu_factor = _dec.lu_factor
lu_factor_ex = _dec.lu_factor_ex
lu = _dec.linalg_lu
lu_solve = _dec.linalg_lu_solve
slogdet = _dec.linalg_slogdet
pinv = _dec.pinv
matrix_rank = _dec.matrix_rank
lstsq = _dec.lstsq
inv_ex = _dec.inv_ex
solve_ex = _dec.solve_ex
matrix_power = _composed.matrix_power
householder_product = _householder.householder_product


def inv(A: Tensor) -> Tensor:
    """The inverse of a square matrix (or of each matrix of a batch).

    Raises :class:`LinAlgError` for a singular matrix, naming the zero pivot as torch does.
    """
    return _ops.LinalgInv.apply(A)


def det(A: Tensor) -> Tensor:
    """The determinant of a square matrix (or of each matrix of a batch).

    The gradient is the matrix of cofactors, also for singular matrices.
    """
    return _ops.LinalgDet.apply(A)


def solve(A: Tensor, B: Tensor, *, left: bool = True) -> Tensor:
    """The solution ``X`` of ``A X = B`` (``X A = B`` when ``left=False``).

    ``B`` is taken as a (batch of) vector(s) when it is 1-D or has the shape of ``A`` without
    its last dimension; batch dimensions broadcast.
    """
    return _ops.LinalgSolve.apply(A, B, bool(left))


def matrix_exp(A: Tensor) -> Tensor:
    """The matrix exponential of a square matrix (or of each matrix of a batch)."""
    return _ops.LinalgMatrixExp.apply(*_ops.matrix_exp_args("matrix_exp", A))


#: ``ctxgrad.matmul`` itself (the row's frontend in ctxgrad/ops/linalg.py, with its ``out=``).
matmul = _made.matmul


def _check_input(x: Tensor, name: str) -> None:
    if x._data.dtype.kind not in "fc":
        raise RuntimeError(
            f"{name}: Expected a floating point or complex tensor as input. Got {short_name(x._data.dtype)}"
        )


def _cast(x: Tensor, dtype: Any) -> Tensor:
    """``x`` in ``dtype`` for the ``dtype=`` argument of the norms (widening only, as torch)."""
    if dtype is None:
        return x
    dt = to_dtype(dtype)
    if dt.kind not in "fc":
        raise RuntimeError(f"linalg.vector_norm: dtype should be floating point or complex, but got {short_name(dt)}")
    if np.promote_types(x._data.dtype, dt) != dt:
        raise RuntimeError(
            f"linalg.vector_norm: the dtype of the input ({short_name(x._data.dtype)}) should be convertible "
            f"without narrowing to the specified dtype ({short_name(dt)})"
        )
    return x.to(dt)


def vector_norm(
    x: Tensor,
    ord: float = 2,
    dim: int | Sequence[int] | None = None,
    keepdim: bool = False,
    *,
    dtype: Any = None,
    axis: int | Sequence[int] | None = None,
    keepdims: bool | None = None,
) -> Tensor:
    """The vector ``ord``-norm of ``x`` over ``dim`` (all elements when None).

    ``ord`` is any number: ``inf`` (max of ``|x|``), ``-inf`` (min), ``0`` (number of nonzeros),
    or ``p`` for ``sum(|x|**p) ** (1/p)``.  ``axis=`` and ``keepdims=`` are NumPy's names for
    ``dim`` and ``keepdim``, which torch takes in their place.
    """
    if axis is not None:
        dim = numpy_dim("linalg_vector_norm", dim, axis)
    if keepdims is not None:
        keepdim = numpy_keepdim("linalg_vector_norm", keepdim, keepdims)
    if isinstance(ord, str):
        raise TypeError("linalg_vector_norm(): argument 'ord' (position 2) must be Number, not str")
    _check_input(x, "linalg.vector_norm")
    x = _cast(x, dtype)
    dims = _reduction.dims_tuple(dim)
    axes = _reduction._axes(dims, x._data.ndim)
    p = float(ord)
    if (p < 0 or math.isinf(p)) and x._data.size == 0:
        explicit = dim is not None and not (isinstance(dim, Sequence) and len(dim) == 0)
        empty = [a for a in axes if x._data.shape[a] == 0]
        if not explicit or x._data.ndim == 0:
            raise RuntimeError(
                f"linalg.vector_norm cannot compute the {_reduction._p_text(p)} norm on an empty tensor because the "
                "operation does not have an identity"
            )
        if empty:
            raise RuntimeError(
                f"linalg.vector_norm cannot compute the {_reduction._p_text(p)} norm on the dimension "
                f"{empty[0]}because this dimension is empty and the operation does not have an identity"
            )
    return _reduction.VectorNorm.apply(x, p, dims, bool(keepdim))


def _dims_text(dims: Any) -> str:
    return " ".join(str(int(d)) for d in dims)


def matrix_norm(
    A: Tensor,
    ord: str | float = "fro",
    dim: tuple[int, int] = (-2, -1),
    keepdim: bool = False,
    *,
    dtype: Any = None,
    axis: tuple[int, int] | None = None,
    keepdims: bool | None = None,
) -> Tensor:
    """The matrix norm of ``A`` (or of each matrix of a batch) over the two dimensions ``dim``.

    ``ord`` is ``'fro'`` (Frobenius), ``1`` / ``-1`` (max / min absolute column sum) or
    ``inf`` / ``-inf`` (max / min absolute row sum), ``'nuc'`` (sum of the singular values)
    or ``2`` / ``-2`` (largest / smallest singular value).  (``axis=``, ``keepdims=``:
    NumPy's names, as in torch.)
    """
    if axis is not None:
        dim = numpy_dim("linalg_matrix_norm", dim, axis, (-2, -1))
    if keepdims is not None:
        keepdim = numpy_keepdim("linalg_matrix_norm", keepdim, keepdims)
    # torch checks the order first, then the input and the dims.
    if isinstance(ord, str):
        if ord not in ("fro", "nuc"):
            raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
        p = 2.0
    else:
        p = float(ord)
        if abs(p) not in (1.0, 2.0, math.inf):
            raise RuntimeError(f"linalg.matrix_norm: Order {_reduction._p_text(p)} not supported.")
    if A._data.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    _check_input(A, "linalg.matrix_norm")
    dims = (dim,) if isinstance(dim, (int, np.integer)) else tuple(dim)
    if len(dims) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {_dims_text(dims)}")
    d0, d1 = (_wrap_dim(d, A._data.ndim) for d in dims)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({d0}, {d1})")
    if ord == "fro":
        return vector_norm(A, 2, (d0, d1), keepdim, dtype=dtype)
    if ord == "nuc" or abs(p) == 2:
        B = A if dtype is None else _cast(A, dtype)
        rest = [d for d in range(A._data.ndim) if d not in (d0, d1)]
        values = svdvals(B.permute(*rest, d0, d1))
        out = values.sum(-1) if ord == "nuc" else (values.amax(-1) if p > 0 else values.amin(-1))
        if keepdim:
            out = out.unsqueeze(min(d0, d1)).unsqueeze(max(d0, d1))
        return out
    if math.isinf(p):
        d0, d1 = d1, d0
    if not keepdim and d0 < d1:
        d1 -= 1
    sums = vector_norm(A, 1, d0, keepdim, dtype=dtype)
    if sums._data.shape[d1] == 0:
        if p < 0:
            raise IndexError(f"amin(): Expected reduction dim {d1} to have non-zero size.")
        shape = list(sums._data.shape)
        if keepdim:
            shape[d1] = 1
        else:
            del shape[d1]
        return as_tensor(np.zeros(shape, dtype=sums._data.dtype))  # torch: zeros, with no history
    return sums.amax(d1, bool(keepdim)) if p > 0 else sums.amin(d1, bool(keepdim))


def norm(
    input: Tensor,
    ord: str | float | None = None,
    dim: int | Sequence[int] | None = None,
    keepdim: bool = False,
    *,
    dtype: Any = None,
    axis: int | Sequence[int] | None = None,
    keepdims: bool | None = None,
) -> Tensor:
    """A vector or matrix norm, as ``torch.linalg.norm`` chooses.

    With ``dim`` an int (or of length 1), or with ``ord`` None and no ``dim``, a vector norm;
    with ``dim`` a pair, or ``ord`` given and a 2-D input, a matrix norm (see
    :func:`matrix_norm` for the orders supported).  (``axis=``, ``keepdims=``: NumPy's names,
    as in torch.)
    """
    if axis is not None:
        dim = numpy_dim("linalg_norm", dim, axis)
    if keepdims is not None:
        keepdim = numpy_keepdim("linalg_norm", keepdim, keepdims)
    dims = None if dim is None else ((int(dim),) if isinstance(dim, (int, np.integer)) else tuple(dim))
    if isinstance(ord, str):
        if dims is not None:
            if len(dims) == 1:
                raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {_dims_text(dims)}")
            if len(dims) != 2:
                raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {list(dims)}")
        elif input._data.ndim not in (1, 2):
            raise RuntimeError(
                f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got {input._data.ndim}D."
            )
        return matrix_norm(input, ord, dims if dims is not None else (0, 1), keepdim, dtype=dtype)
    if dims is not None:
        if len(dims) not in (1, 2):
            raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {list(dims)}")
    elif ord is not None and input._data.ndim not in (1, 2):
        raise RuntimeError(
            f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. Got {input._data.ndim}D."
        )
    if ord is not None and ((dims is not None and len(dims) == 2) or (dims is None and input._data.ndim == 2)):
        return matrix_norm(input, ord, dims if dims is not None else (0, 1), keepdim, dtype=dtype)
    return vector_norm(input, 2 if ord is None else ord, dims, keepdim, dtype=dtype)


def cond(A: Tensor, p: str | float | None = None) -> Tensor:
    """The condition number of ``A`` in the matrix norm ``p``: ``s_max / s_min`` for ``p`` None
    or 2 (``s_min / s_max`` for -2), else ``norm(A, p) * norm(inv(A), p)``."""
    if A._data.ndim < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    if (isinstance(p, str) and p not in ("fro", "nuc")) or (
        p is not None and not isinstance(p, str) and abs(float(p)) not in (1.0, 2.0, math.inf)
    ):
        raise RuntimeError(
            f"linalg.cond got an invalid norm type: {p if isinstance(p, str) else _reduction._p_text(float(p))}"
        )
    if p is None or (not isinstance(p, str) and abs(float(p)) == 2):
        s = svdvals(A)
        ratio: Tensor = s[..., -1] / s[..., 0] if p is not None and float(p) < 0 else s[..., 0] / s[..., -1]
        return ratio
    if A._data.shape[-1] != A._data.shape[-2]:
        raise RuntimeError(
            f"linalg.cond(ord={p}): A must be batches of square matrices, but they are {A._data.shape[-2]} by "
            f"{A._data.shape[-1]} matrices"
        )
    # the inverse from the LU factors (inv_ex's without its check, so it also runs under vmap):
    # a singular matrix gives inf and nan there, and its condition number is inf
    lu, pivots, _ = _dec.LinalgLuFactor.apply(A, True)
    with np.errstate(divide="ignore", invalid="ignore"):
        inverse = _dec.linalg_lu_solve(lu, pivots, as_tensor(np.eye(A._data.shape[-1], dtype=A._data.dtype)))
    product: Tensor = matrix_norm(A, p) * matrix_norm(inverse, p)
    return product.nan_to_num(math.inf, math.inf)


def multi_dot(tensors: Sequence[Tensor]) -> Tensor:
    """The product of the matrices in ``tensors``, left to right; the first may be a (row)
    vector and the last a (column) vector, and the result then loses that dimension."""
    n = len(tensors)
    if n < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {n}")
    first, last = tensors[0], tensors[-1]
    if first.dim() not in (1, 2):
        raise RuntimeError(f"multi_dot(): the first tensor must be 1D or 2D but got {first.dim()}D")
    if last.dim() not in (1, 2):
        raise RuntimeError(f"multi_dot(): the last tensor must be 1D or 2D but got {last.dim()}D")
    for i, t in enumerate(tensors[1:-1], 1):
        if t.dim() != 2:
            raise RuntimeError(f"multi_dot(): tensor {i} must be 2D but got {t.dim()}D")
    for i, t in enumerate(tensors[1:], 1):
        if t._data.dtype != first._data.dtype:
            raise RuntimeError(
                "multi_dot(): all tensors must have be the same dtype but tensor 0 is "
                f"{cpp_name(first._data.dtype)} and tensor {i} {cpp_name(t._data.dtype)}"
            )
    mats = [first.unsqueeze(0) if first.dim() == 1 else first, *tensors[1:-1]]
    mats.append(last.unsqueeze(-1) if last.dim() == 1 else last)
    for i in range(n - 1):
        if mats[i].shape[-1] != mats[i + 1].shape[-2]:
            raise RuntimeError(
                f"multi_dot(): tensors {i} and {i + 1} with shapes {list(mats[i].shape)} and "
                f"{list(mats[i + 1].shape)} cannot be multiplied"
            )
    out = mats[0]
    for m in mats[1:]:
        out = _ops.Mm.apply(out, m)
    if last.dim() == 1:
        out = out.squeeze(-1)
    if first.dim() == 1:
        out = out.squeeze(0)
    return out


def cross(input: Tensor, other: Tensor, *, dim: int = -1) -> Tensor:
    """The cross product of 3-vectors along ``dim`` (batch dimensions broadcast)."""
    return _composed.cross(input, other, dim)


def vecdot(x: Tensor, y: Tensor, *, dim: int = -1) -> Tensor:
    """``sum(conj(x) * y)`` along ``dim`` (batch dimensions broadcast)."""
    if x._data.dtype != y._data.dtype:
        raise RuntimeError(
            "linalg.vecdot: Expected x and y to have the same dtype, but found x of type "
            f"{short_name(x._data.dtype)} and y of type {short_name(y._data.dtype)} instead"
        )
    product: Tensor = x.conj() * y if x.is_complex() else x * y
    return product.sum(dim)


def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """The diagonal of each matrix (:meth:`Tensor.diagonal` with the last two dimensions by default)."""
    return A.diagonal(offset, dim1, dim2)


def vander(x: Tensor, N: int | None = None) -> Tensor:
    """The Vandermonde matrix of ``x``: columns ``x**0, x**1, ..., x**(N-1)`` (``N`` defaults to
    ``x``'s last size), written as torch writes it (a cumulative product)."""
    n = N if N is not None else (x.shape[-1] if x.dim() else 0)
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    powers = x.unsqueeze(-1).expand(*x.shape, n - 1).cumprod(-1)
    ones = as_tensor(np.ones((*x.shape, 1), dtype=powers._data.dtype))
    return cat([ones, powers], -1)


def tensorinv(A: Tensor, ind: int = 2) -> Tensor:
    """The inverse of ``A`` as a linear map from its last dimensions to its first ``ind``:
    ``tensordot(tensorinv(A, ind), A, ind)`` is the identity."""
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    shape = tuple(A.shape)
    n, cols = math.prod(shape[:ind]), math.prod(shape[ind:])
    if n != cols:
        raise RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[ind:]) == prod(self.shape[:ind]), "
            f"but got {cols} != {n}"
        )
    try:
        inverse = inv(A.reshape(n, n))
    except LinAlgError as exc:  # torch names the op "inv" here
        raise LinAlgError(str(exc).replace("linalg.inv: ", "inv: ", 1)) from None
    return inverse.reshape(*shape[ind:], *shape[:ind])


def tensorsolve(A: Tensor, B: Tensor, dims: Sequence[int] | None = None) -> Tensor:
    """``X`` with ``tensordot(A, X, X.ndim) = B`` (``dims``: dimensions of ``A`` moved to its end first)."""
    if dims is not None:
        moved = [_wrap_dim(d, A.dim()) for d in dims]
        A = A.permute(*[d for d in range(A.dim()) if d not in moved], *moved)
    shape = tuple(A.shape)
    n = math.prod(shape[B.dim() :])
    if n != B.numel():
        raise RuntimeError(
            "Expected self to satisfy the requirement prod(self.shape[other.ndim:]) == prod(self.shape[:other.ndim]), "
            f"but got {n} != {B.numel()}"
        )
    return solve(A.reshape(n, n), B.reshape(n)).reshape(*shape[B.dim() :])


# torch's ``out=`` on every function here that torch gives one (``matmul``, which is
# ``ctxgrad.matmul``, has it already).
_add_out(
    globals(), (name for name in __all__ if name not in ("LinAlgError", "diagonal", "lstsq", "matrix_exp", "vander"))
)

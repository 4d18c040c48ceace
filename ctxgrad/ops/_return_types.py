"""The named tuples that ``sort``, ``topk``, ``kthvalue``, ``median(dim)``, ``aminmax``,
``cummax``/``cummin``, ``mode``, ``nanmedian(dim)``, ``histogram`` and the linear-algebra
decompositions return, named as torch's ``torch.return_types``; a module of their own, so that the frontends in
:mod:`ctxgrad.ops.sorting` can have the same names."""

from __future__ import annotations

from typing import Any, NamedTuple, cast

from ctxgrad._tensor import Tensor


class max(NamedTuple):  # torch.return_types.max
    """``(values, indices)`` of ``max(dim)``."""

    values: Tensor
    indices: Tensor

    def __repr__(self) -> str:
        return f"ctxgrad.return_types.max(\nvalues={self.values!r},\nindices={self.indices!r})"


class min(NamedTuple):  # torch.return_types.min
    """``(values, indices)`` of ``min(dim)``."""

    values: Tensor
    indices: Tensor

    def __repr__(self) -> str:
        return f"ctxgrad.return_types.min(\nvalues={self.values!r},\nindices={self.indices!r})"


class sort(NamedTuple):  # torch.return_types.sort
    """``(values, indices)`` of :meth:`Tensor.sort`."""

    values: Tensor
    indices: Tensor


class topk(NamedTuple):  # torch.return_types.topk
    """``(values, indices)`` of :meth:`Tensor.topk`."""

    values: Tensor
    indices: Tensor


class kthvalue(NamedTuple):  # torch.return_types.kthvalue
    """``(values, indices)`` of :meth:`Tensor.kthvalue`."""

    values: Tensor
    indices: Tensor


class median(NamedTuple):  # torch.return_types.median
    """``(values, indices)`` of :meth:`Tensor.median` along a dimension."""

    values: Tensor
    indices: Tensor


class frexp(NamedTuple):  # torch.return_types.frexp
    """``(mantissa, exponent)`` of :func:`ctxgrad.frexp`."""

    mantissa: Tensor
    exponent: Tensor


class aminmax(NamedTuple):  # torch.return_types.aminmax
    """``(min, max)`` of :func:`ctxgrad.aminmax`."""

    min: Tensor
    max: Tensor


class cummax(NamedTuple):  # torch.return_types.cummax
    """``(values, indices)`` of :meth:`Tensor.cummax`."""

    values: Tensor
    indices: Tensor


class cummin(NamedTuple):  # torch.return_types.cummin
    """``(values, indices)`` of :meth:`Tensor.cummin`."""

    values: Tensor
    indices: Tensor


class mode(NamedTuple):  # torch.return_types.mode
    """``(values, indices)`` of :meth:`Tensor.mode`."""

    values: Tensor
    indices: Tensor


class nanmedian(NamedTuple):  # torch.return_types.nanmedian
    """``(values, indices)`` of :meth:`Tensor.nanmedian` along a dimension."""

    values: Tensor
    indices: Tensor


class histogram(NamedTuple):  # torch.return_types.histogram
    """``(hist, bin_edges)`` of :func:`ctxgrad.histogram`."""

    hist: Tensor
    bin_edges: Tensor


class histogramdd(NamedTuple):  # torch.return_types.histogramdd
    """``(hist, bin_edges)`` of :func:`ctxgrad.histogramdd`: one tensor of edges per dimension."""

    hist: Tensor
    bin_edges: tuple[Tensor, ...]


# The linear-algebra decompositions (ops/decompositions.py).


class linalg_svd(NamedTuple):  # torch.return_types.linalg_svd
    """``(U, S, Vh)`` of :func:`ctxgrad.linalg.svd`."""

    U: Tensor
    S: Tensor
    Vh: Tensor


class svd(NamedTuple):  # torch.return_types.svd
    """``(U, S, V)`` of :func:`ctxgrad.svd`."""

    U: Tensor
    S: Tensor
    V: Tensor


class linalg_qr(NamedTuple):  # torch.return_types.linalg_qr
    """``(Q, R)`` of :func:`ctxgrad.linalg.qr`."""

    Q: Tensor
    R: Tensor


class qr(NamedTuple):  # torch.return_types.qr
    """``(Q, R)`` of :func:`ctxgrad.qr`."""

    Q: Tensor
    R: Tensor


class linalg_eigh(NamedTuple):  # torch.return_types.linalg_eigh
    """``(eigenvalues, eigenvectors)`` of :func:`ctxgrad.linalg.eigh`."""

    eigenvalues: Tensor
    eigenvectors: Tensor


class linalg_cholesky_ex(NamedTuple):  # torch.return_types.linalg_cholesky_ex
    """``(L, info)`` of :func:`ctxgrad.linalg.cholesky_ex`."""

    L: Tensor
    info: Tensor


class linalg_slogdet(NamedTuple):  # torch.return_types.linalg_slogdet
    """``(sign, logabsdet)`` of :func:`ctxgrad.linalg.slogdet`."""

    sign: Tensor
    logabsdet: Tensor


class slogdet(NamedTuple):  # torch.return_types.slogdet
    """``(sign, logabsdet)`` of :func:`ctxgrad.slogdet`."""

    sign: Tensor
    logabsdet: Tensor


class linalg_inv_ex(NamedTuple):  # torch.return_types.linalg_inv_ex
    """``(inverse, info)`` of :func:`ctxgrad.linalg.inv_ex`."""

    inverse: Tensor
    info: Tensor


class linalg_solve_ex(NamedTuple):  # torch.return_types.linalg_solve_ex
    """``(result, info)`` of :func:`ctxgrad.linalg.solve_ex`."""

    result: Tensor
    info: Tensor


class linalg_lu_factor(NamedTuple):  # torch.return_types.linalg_lu_factor
    """``(LU, pivots)`` of :func:`ctxgrad.linalg.lu_factor`."""

    LU: Tensor
    pivots: Tensor


class linalg_lu_factor_ex(NamedTuple):  # torch.return_types.linalg_lu_factor_ex
    """``(LU, pivots, info)`` of :func:`ctxgrad.linalg.lu_factor_ex`."""

    LU: Tensor
    pivots: Tensor
    info: Tensor


class linalg_lu(NamedTuple):  # torch.return_types.linalg_lu
    """``(P, L, U)`` of :func:`ctxgrad.linalg.lu`."""

    P: Tensor
    L: Tensor
    U: Tensor


class lu_unpack(NamedTuple):  # torch.return_types.lu_unpack
    """``(P, L, U)`` of :func:`ctxgrad.lu_unpack`."""

    P: Tensor
    L: Tensor
    U: Tensor


class _lu_with_info(NamedTuple):  # torch.return_types._lu_with_info
    """``(LU, pivots, info)`` of :func:`ctxgrad.lu` with ``get_infos=True``."""

    LU: Tensor
    pivots: Tensor
    info: Tensor


class linalg_lstsq(NamedTuple):  # torch.return_types.linalg_lstsq
    """``(solution, residuals, rank, singular_values)`` of :func:`ctxgrad.linalg.lstsq`."""

    solution: Tensor
    residuals: Tensor
    rank: Tensor
    singular_values: Tensor


class triangular_solve(NamedTuple):  # torch.return_types.triangular_solve
    """``(solution, cloned_coefficient)`` of :func:`ctxgrad.triangular_solve`."""

    solution: Tensor
    cloned_coefficient: Tensor


class geqrf(NamedTuple):  # torch.return_types.geqrf
    """``(a, tau)`` of :func:`ctxgrad.geqrf`."""

    a: Tensor
    tau: Tensor


class linalg_eig(NamedTuple):  # torch.return_types.linalg_eig
    """``(eigenvalues, eigenvectors)`` of :func:`ctxgrad.linalg.eig`."""

    eigenvalues: Tensor
    eigenvectors: Tensor


def out_type(result_type: type[tuple[Tensor, ...]]) -> type[tuple[Tensor, ...]]:
    """The named tuple that the ``out=`` form of an op returns: torch's ``sort_out`` beside
    ``sort``, with the same fields; made the first time it is asked for, and kept in this
    module so that it pickles.

    >>> out_type(sort).__name__, out_type(sort)._fields
    ('sort_out', ('values', 'indices'))
    """
    name = f"{result_type.__name__}_out"
    made: type[tuple[Tensor, ...]] | None = globals().get(name)
    if made is None:
        fields = list(result_type.__annotations__)  # (a NamedTuple's fields, in order)
        # (NamedTuple called, not subclassed: mypy reads only the class form)
        made = cast(Any, NamedTuple)(name, [(field, Tensor) for field in fields])
        assert made is not None
        made.__module__ = __name__
        made.__doc__ = f"``{result_type.__name__}``'s fields, as its ``out=`` form returns them."
        globals()[name] = made
    return made

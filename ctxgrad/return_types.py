"""``ctxgrad.return_types``: the named tuples that ``max(dim)``, ``sort``, ``topk``, the
decompositions and others return, at torch's path (``torch.return_types.max``); each has
``values``/``indices`` or the fields torch names.

>>> import ctxgrad
>>> ctxgrad.tensor([[1, 5], [3, 2]]).max(1).indices
tensor([1, 0])
"""

from __future__ import annotations

from ctxgrad.ops._return_types import (
    aminmax,
    cummax,
    cummin,
    frexp,
    geqrf,
    histogram,
    histogramdd,
    kthvalue,
    linalg_cholesky_ex,
    linalg_eig,
    linalg_eigh,
    linalg_inv_ex,
    linalg_lstsq,
    linalg_lu,
    linalg_lu_factor,
    linalg_lu_factor_ex,
    linalg_qr,
    linalg_slogdet,
    linalg_solve_ex,
    linalg_svd,
    lu_unpack,
    max,
    median,
    min,
    mode,
    nanmedian,
    qr,
    slogdet,
    sort,
    svd,
    topk,
    triangular_solve,
)

__all__ = [
    "aminmax",
    "cummax",
    "cummin",
    "frexp",
    "geqrf",
    "histogram",
    "histogramdd",
    "kthvalue",
    "linalg_cholesky_ex",
    "linalg_eig",
    "linalg_eigh",
    "linalg_inv_ex",
    "linalg_lstsq",
    "linalg_lu",
    "linalg_lu_factor",
    "linalg_lu_factor_ex",
    "linalg_qr",
    "linalg_slogdet",
    "linalg_solve_ex",
    "linalg_svd",
    "lu_unpack",
    "max",
    "median",
    "min",
    "mode",
    "nanmedian",
    "qr",
    "slogdet",
    "sort",
    "svd",
    "topk",
    "triangular_solve",
]

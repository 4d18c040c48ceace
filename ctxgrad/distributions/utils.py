"""The helpers of ``torch.distributions.utils`` that custom distributions use.

>>> import ctxgrad
>>> from ctxgrad.distributions.utils import broadcast_all, probs_to_logits
>>> loc, scale = broadcast_all(ctxgrad.zeros(3), 2.0)
>>> scale
tensor([2., 2., 2.])
>>> probs_to_logits(ctxgrad.tensor([0.5, 0.75]), is_binary=True)
tensor([0.0000, 1.0986])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ctxgrad import _factories
from ctxgrad._tensor import Size, Tensor
from ctxgrad.distributions.distribution import (
    broadcast_all,
    clamp_probs,
    lazy_property,
    logits_to_probs,
    probs_to_logits,
)
from ctxgrad.distributions.independent import _sum_rightmost

__all__ = [
    "_sum_rightmost",
    "broadcast_all",
    "clamp_probs",
    "lazy_property",
    "logits_to_probs",
    "probs_to_logits",
    "tril_matrix_to_vec",
    "vec_to_tril_matrix",
]


def _tril_mask(n: int, diag: int) -> Tensor:
    """The ``n x n`` mask of the entries on and below diagonal ``diag``."""
    arange = _factories.arange(n)
    mask: Tensor = arange < arange.view(-1, 1) + (diag + 1)
    return mask


def vec_to_tril_matrix(vec: Tensor, diag: int = 0) -> Tensor:
    """The square matrices whose entries on and below diagonal ``diag`` are ``vec``'s last
    dimension, row by row (the rest 0); differentiable in ``vec``."""
    size = vec.shape[-1]
    n = (-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * size + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2
    if round(n) - n > float(np.finfo(vec.array.dtype).eps):
        raise ValueError(
            f"The size of last dimension is {size} which cannot be expressed as "
            "the lower triangular part of a square D x D matrix."
        )
    n = round(n)
    mat = vec.new_zeros(Size(tuple(vec.shape[:-1]) + (n, n)))
    mat[..., _tril_mask(n, diag)] = vec
    return mat


def tril_matrix_to_vec(mat: Tensor, diag: int = 0) -> Tensor:
    """The entries of ``mat`` on and below diagonal ``diag``, row by row, as its last
    dimension (the inverse of :func:`vec_to_tril_matrix`)."""
    n = mat.shape[-1]
    if diag < -n or diag >= n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    out: Any = mat[..., _tril_mask(n, diag)]
    return out  # type: ignore[no-any-return]

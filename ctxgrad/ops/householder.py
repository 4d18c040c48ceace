"""Householder reflections, as LAPACK keeps them: ``geqrf`` (R with the reflectors below it),
``householder_product`` (``orgqr``: Q from them) and ``ormqr`` (a product with Q)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ctxgrad._tensor import Tensor, as_tensor
from ctxgrad.autograd.batching import matrix_rule
from ctxgrad.autograd.function import Function
from ctxgrad.ops import _return_types
from ctxgrad.ops._row import Op
from ctxgrad.ops.decompositions import _no_half
from ctxgrad.ops.linalg import _check_floating
from ctxgrad.ops.shape import cat

# --------------------------------------------------------------------------- helpers


class Geqrf(Function[tuple[Tensor, Tensor]]):
    """LAPACK's ``geqrf``: ``R`` on and above the diagonal, the Householder vectors below it,
    and their scales ``tau`` (NumPy's ``qr(mode='raw')``).  Not differentiable, as in torch."""

    vmap = matrix_rule("geqrf: The input tensor A must have at least 2 dimensions.")

    node_name = "GeqrfBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, a: Tensor) -> tuple[Tensor, Tensor]:
        x = a.array
        if x.ndim < 2:
            raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
        _check_floating(x, "geqrf")
        _no_half(x, "geqrf_cpu")
        if x.ndim == 2:
            h, tau = np.linalg.qr(x, mode="raw")
            packed, scales = np.ascontiguousarray(h.T), tau
        else:
            flat = x.reshape(-1, *x.shape[-2:])
            raws = [np.linalg.qr(m, mode="raw") for m in flat]
            packed = np.stack([np.ascontiguousarray(h.T) for h, _ in raws]).reshape(x.shape)
            scales = np.stack([t for _, t in raws]).reshape(x.shape[:-2] + (min(x.shape[-2:]),))
        return as_tensor(packed.astype(x.dtype, copy=False)), as_tensor(scales.astype(x.dtype, copy=False))

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        raise NotImplementedError("the derivative for 'geqrf' is not implemented.")


def geqrf(input: Tensor) -> _return_types.geqrf:
    """``(a, tau)``: the QR decomposition in LAPACK's packed form (see :func:`ctxgrad.linalg.householder_product`)."""
    return _return_types.geqrf(*Geqrf.apply(input))


def householder_product(A: Tensor, tau: Tensor) -> Tensor:
    """The first ``n`` columns of ``H_1 ... H_k`` with ``H_i = I - tau_i v_i v_iᴴ`` (``v_i`` the
    ``i``-th column of ``A`` below the diagonal, with a 1 on it): ``Q`` from :func:`geqrf`'s
    output.  Written with ctxgrad ops, so it is differentiable."""
    name = "torch.linalg.householder_product"
    if A.dim() < 2:
        raise RuntimeError(f"{name}: input must have at least 2 dimensions.")
    m, n = A.shape[-2:]
    k = tau.shape[-1]
    if m < n:
        raise RuntimeError(f"{name}: input.shape[-2] must be greater than or equal to input.shape[-1]")
    if n < k:
        raise RuntimeError(f"{name}: input.shape[-1] must be greater than or equal to tau.shape[-1]")
    below = np.tril(np.ones((m, n), dtype=bool), -1)
    vs = A * as_tensor(below.astype(A.dtype)) + as_tensor(np.eye(m, n, dtype=A.dtype))
    q = as_tensor(np.broadcast_to(np.eye(m, n, dtype=A.dtype), tuple(A.shape[:-2]) + (m, n)).copy())
    for i in range(k - 1, -1, -1):
        v = vs[..., :, i : i + 1]
        t = tau[..., i : i + 1].unsqueeze(-1)
        q = q - (t * v) @ (v.mH @ q)
    return q


def orgqr(input: Tensor, input2: Tensor) -> Tensor:
    """torch.orgqr: :func:`householder_product` of ``input`` and ``tau = input2``."""
    return householder_product(input, input2)


def ormqr(input: Tensor, input2: Tensor, input3: Tensor, left: bool = True, transpose: bool = False) -> Tensor:
    """``Q @ input3`` (``input3 @ Q`` when not ``left``; ``Qᴴ`` with ``transpose``) for the ``m x m``
    ``Q`` of :func:`geqrf`'s ``(input, input2)``."""
    m = input.shape[-2]
    side = -2 if left else -1
    if input3.shape[side] != m:
        raise RuntimeError(f"torch.ormqr: other.shape[{side}] must be equal to input.shape[-2]")
    pad = m - input.shape[-1]
    if pad > 0:  # the reflectors past tau's length are not applied: zero columns complete Q
        zeros = as_tensor(np.zeros(tuple(input.shape[:-1]) + (pad,), dtype=input.dtype))
        input = cat([input, zeros], -1)
    q = householder_product(input[..., :, :m], input2)
    if transpose:
        q = q.mH
    return q @ input3 if left else input3 @ q


ROWS: list[Op] = [
    Op("geqrf", geqrf, out=True),
    Op("orgqr", orgqr, out=True),
    Op("ormqr", ormqr, out=True),
]

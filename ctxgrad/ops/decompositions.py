"""Matrix decompositions: SVD, symmetric eigendecomposition, QR, Cholesky, LU, the triangular
solve, ``slogdet`` and the pseudo-inverse, with torch's gradients.

Each decomposition is one :class:`~ctxgrad.autograd.Function`: ``forward`` calls NumPy (LU with
partial pivoting, which NumPy does not expose, and the triangular solve are written here,
vectorised over the batch), ``backward`` and ``jvp`` are torch's formulas written with ctxgrad
ops, so that gradients of gradients work.  The rest (``svdvals``, ``eigvalsh``, ``lu_solve``,
``cholesky_solve``, ``lstsq``, ...) are compositions of these.

Two of torch's documented failure modes come with the formulas, as in torch:

* The gradient of singular vectors (eigenvectors) divides by ``s_i**2 - s_j**2``
  (``λ_j - λ_i``): with repeated singular values (eigenvalues) it is not defined and comes out
  as ``inf``/``nan``; a loss of the singular values (eigenvalues) alone stays well defined.
* Complex singular vectors (eigenvectors) are defined up to a phase ``e^{iφ}`` per column: a
  loss that depends on that phase has no gradient, and backward raises torch's ``RuntimeError``.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ctxgrad._dtypes import short_name
from ctxgrad._replayed import replayed_whole
from ctxgrad._tensor import Tensor, as_tensor
from ctxgrad.autograd.batching import BatchedTensor, matrix_rule, unary_rule
from ctxgrad.autograd.function import Function
from ctxgrad.ops import _return_types
from ctxgrad.ops._return_types import _lu_with_info
from ctxgrad.ops._row import Op
from ctxgrad.ops._util import broadcast_error
from ctxgrad.ops.linalg import LinAlgError, LinalgInv, LinalgSolve, _check_floating, _check_square
from ctxgrad.ops.shape import cat

# --------------------------------------------------------------------------- helpers


def _no_half(x: Any, kernel: str) -> None:
    """torch's refusal of half precision, which LAPACK (and NumPy's linalg) does not have."""
    if x.dtype == np.float16:
        raise NotImplementedError(f"\"{kernel}\" not implemented for 'Half'")


def _check_matrix(x: Any, name: str) -> None:
    """torch's checks of a (batch of) matrices: ``x`` an array or a tensor (its shape and dtype)."""
    if x.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    _check_floating(x, name)


def _eye_like(x: Tensor, n: int | None = None) -> Tensor:
    """The identity of the size of ``x``'s last dimension, in ``x``'s dtype (a constant)."""
    size = x.shape[-1] if n is None else n
    return as_tensor(np.eye(size, dtype=x.array.dtype))


def _off_diagonal(x: Tensor) -> Tensor:
    """``x`` with its (matrix) diagonal set to zero."""
    n = x.shape[-1]
    return x * as_tensor(1.0 - np.eye(n, dtype=x.array.real.dtype))


def _gaps(values: Tensor) -> Tensor:
    """``E[i, j] = values[j] - values[i]`` off the diagonal and 1 on it (the divisor of the
    gradients of singular vectors and eigenvectors; torch's ``E``)."""
    n = values.shape[-1]
    return values.unsqueeze(-2) - values.unsqueeze(-1) + as_tensor(np.eye(n, dtype=values.array.dtype))


def _check_gauge(diagonal: Tensor, name: str, what: str) -> None:
    """torch's refusal of a complex loss that depends on the phase of the singular vectors
    (eigenvectors): the imaginary part of ``diag(Xᴴ gX)`` must vanish."""
    if not np.allclose(diagonal.array.imag, 0.0, rtol=1e-2, atol=1e-2):
        raise RuntimeError(
            f"{name}: The {what} in the complex case are specified up to multiplication by e^{{i phi}}. "
            + (
                "The specified loss function depends on this phase term, making it ill-defined."
                if what == "singular vectors"
                else "The specified loss function depends on this quantity, so it is ill-defined."
            )
        )


# --------------------------------------------------------------------------- SVD
class LinalgSvd(Function[tuple[Tensor, Tensor, Tensor]]):
    """``A = U diag(S) Vh`` with ``S`` descending (``full_matrices``: square ``U`` and ``Vh``).

    The gradient is torch's ``svd_backward``: with ``P = Uᴴ gU`` and ``Q = Vh gVhᴴ`` made
    skew-Hermitian, ``gA = U [(P S + S Q) / E + diag(gS)] Vh`` plus the parts of ``gU`` and
    ``gVh`` outside the span of ``U`` and ``V``, where ``E[i, j] = s_j² - s_i²``.  When only
    ``S`` receives a gradient, ``gA = U diag(gS) Vh`` (no division: defined for repeated
    singular values too)."""

    vmap = matrix_rule("linalg.svd: The input tensor A must have at least 2 dimensions.")

    node_name = "LinalgSvdBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, a: Tensor, full_matrices: bool) -> tuple[Tensor, Tensor, Tensor]:
        x = a.array
        _check_matrix(x, "linalg.svd")
        _no_half(x, "linalg_svd_cpu")
        m, n = x.shape[-2:]
        if x.size == 0:
            k = min(m, n)
            real = x.real.dtype
            batch = x.shape[:-2]
            u = np.broadcast_to(
                np.eye(m, m if full_matrices else k, dtype=x.dtype), batch + (m, m if full_matrices else k)
            )
            vh = np.broadcast_to(
                np.eye(n if full_matrices else k, n, dtype=x.dtype), batch + (n if full_matrices else k, n)
            )
            out = as_tensor(u.copy()), as_tensor(np.zeros(batch + (k,), dtype=real)), as_tensor(vh.copy())
        else:
            u, s, vh = np.linalg.svd(x, full_matrices=full_matrices)
            out = as_tensor(u), as_tensor(s.astype(x.real.dtype, copy=False)), as_tensor(vh)
        ctx.set_materialize_grads(False)
        ctx.save_for_backward(*out)
        ctx.full_matrices = full_matrices
        return out

    @staticmethod
    def backward(ctx: Any, gu: Tensor | None, gs: Tensor | None, gvh: Tensor | None) -> tuple[Tensor | None, None]:
        u, s, vh = ctx.saved_tensors
        k = s.shape[-1]
        if ctx.full_matrices:
            u, vh = u[..., :k], vh[..., :k, :]
            gu = None if gu is None else gu[..., :k]
            gvh = None if gvh is None else gvh[..., :k, :]
        return svd_backward(gu, gs, gvh, u, s, vh), None

    @staticmethod
    def jvp(ctx: Any, ta: Tensor, _: None) -> tuple[Tensor, Tensor, Tensor]:
        u_all, s, vh_all = ctx.saved_tensors
        k = s.shape[-1]
        m, n = u_all.shape[-2], vh_all.shape[-1]
        u, vh = u_all[..., :k], vh_all[..., :k, :]
        v = vh.mH
        dp = u.mH @ ta @ v
        ds = dp.diagonal(0, -2, -1)
        if ds.is_complex():
            ds = ds.real
        sym_u = dp * s.unsqueeze(-2)
        sym_v = s.unsqueeze(-1) * dp
        gaps = _gaps(s * s)
        omega_u = _off_diagonal((sym_u + sym_u.mH) / gaps)
        omega_v = _off_diagonal((sym_v + sym_v.mH) / gaps)
        if dp.is_complex():  # the phase of U's columns carries the imaginary part of diag(dP)
            omega_u = omega_u + (1j * dp.diagonal(0, -2, -1).imag / s).diag_embed()
        du = u @ omega_u
        dv = v @ omega_v
        if m > k:
            du = du + (ta @ v - u @ (u.mH @ ta @ v)) / s.unsqueeze(-2)
        if n > k:
            dv = dv + (ta.mH @ u - v @ (v.mH @ ta.mH @ u)) / s.unsqueeze(-2)
        if ctx.full_matrices:
            # the completing columns U2 (V2) stay orthogonal to U (V): dU2 = -U dUᴴ U2
            if m > k:
                u2 = u_all[..., k:]
                du = cat([du, -(u @ (du.mH @ u2))], -1)
            if n > k:
                v2 = vh_all[..., k:, :].mH
                dv = cat([dv, -(v @ (dv.mH @ v2))], -1)
        return du, ds, dv.mH


def svd_backward(gu: Tensor | None, gs: Tensor | None, gvh: Tensor | None, u: Tensor, s: Tensor, vh: Tensor) -> Tensor:
    """torch's ``svd_backward`` for the reduced SVD ``A = U diag(S) Vh`` (see :class:`LinalgSvd`)."""
    m, n = u.shape[-2], vh.shape[-1]
    if gu is None and gvh is None:
        assert gs is not None
        return u @ (gs.unsqueeze(-1) * vh) if m >= n else (u * gs.unsqueeze(-2)) @ vh
    complex_ = u.is_complex()
    uhgu = None if gu is None else u.mH @ gu
    vhgv = None if gvh is None else vh @ gvh.mH
    uhgu = None if uhgu is None else uhgu - uhgu.mH
    vhgv = None if vhgv is None else vhgv - vhgv.mH
    if complex_:
        diag_u = uhgu.diagonal(0, -2, -1) if uhgu is not None else None
        diag_v = vhgv.diagonal(0, -2, -1) if vhgv is not None else None
        total = diag_u if diag_v is None else (diag_v if diag_u is None else diag_u + diag_v)
        assert total is not None
        _check_gauge(total, "svd_backward", "singular vectors")
    gaps = _gaps(s * s)
    if uhgu is not None and vhgv is not None:
        ga = (uhgu * s.unsqueeze(-2) + s.unsqueeze(-1) * vhgv) / gaps
    elif uhgu is not None:
        ga = (uhgu / gaps) * s.unsqueeze(-2)
    else:
        assert vhgv is not None
        ga = s.unsqueeze(-1) * (vhgv / gaps)
    ga = _off_diagonal(ga)
    if gs is not None:
        ga = ga + gs.diag_embed()
    if complex_ and uhgu is not None:
        ga = ga + (uhgu.diagonal(0, -2, -1) / (2.0 * s)).diag_embed()
    if m > n and gu is not None:
        ga = u @ ga
        gu_sinv = gu / s.unsqueeze(-2)
        ga = (ga + gu_sinv - u @ (u.mH @ gu_sinv)) @ vh
    elif m < n and gvh is not None:
        ga = ga @ vh
        sinv_gvh = gvh / s.unsqueeze(-1)
        ga = u @ (ga + sinv_gvh - (sinv_gvh @ vh.mH) @ vh)
    else:
        ga = u @ (ga @ vh) if m >= n else (u @ ga) @ vh
    return ga


# --------------------------------------------------------------------------- eigh
_UPLO_ERROR = "Expected UPLO argument to be 'L' or 'U', but got {}"


class LinalgEigh(Function[tuple[Tensor, Tensor]]):
    """The eigenvalues (ascending) and orthonormal eigenvectors of a Hermitian (symmetric)
    matrix, read from its lower (``UPLO='L'``) or upper triangle.

    Gradient (torch's ``linalg_eig_backward`` for Hermitian matrices): with ``K = Vᴴ gV`` made
    skew-Hermitian, ``gA = V (K / E + diag(gL)) Vᴴ``, ``E[i, j] = λ_j - λ_i``; eigenvalues
    alone: ``V diag(gL) Vᴴ``."""

    vmap = matrix_rule("linalg.eigh: The input tensor A must have at least 2 dimensions.")

    node_name = "LinalgEighBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, a: Tensor, uplo: str) -> tuple[Tensor, Tensor]:
        x = a.array
        _check_square(x, "linalg.eigh")
        _no_half(x, "linalg_eigh_cpu")
        if x.dtype.kind not in "fc":
            raise NotImplementedError(f"\"linalg_eigh_cpu\" not implemented for '{short_name(x.dtype)}'")
        values, vectors = np.linalg.eigh(x, UPLO=uplo)  # type: ignore[call-overload]
        out = as_tensor(values.astype(x.real.dtype, copy=False)), as_tensor(vectors.astype(x.dtype, copy=False))
        ctx.set_materialize_grads(False)
        ctx.save_for_backward(*out)
        return out

    @staticmethod
    def backward(ctx: Any, gl: Tensor | None, gv: Tensor | None) -> tuple[Tensor, None]:
        values, v = ctx.saved_tensors
        if gv is None:
            assert gl is not None
            return (v * gl.unsqueeze(-2)) @ v.mH, None
        vhgv = v.mH @ gv
        if v.is_complex():
            _check_gauge(vhgv.diagonal(0, -2, -1), "linalg_eigh_backward", "eigenvectors")
        vhgv = 0.5 * (vhgv - vhgv.mH)
        ga = _off_diagonal(vhgv / _gaps(values))
        if gl is not None:
            ga = ga + gl.diag_embed()
        return v @ (ga @ v.mH), None

    @staticmethod
    def jvp(ctx: Any, ta: Tensor, _: None) -> tuple[Tensor, Tensor]:
        values, v = ctx.saved_tensors
        dp = v.mH @ ta @ v
        dl = dp.diagonal(0, -2, -1)
        if dl.is_complex():
            dl = dl.real
        dv = v @ _off_diagonal(dp / _gaps(values))
        return dl, dv


# --------------------------------------------------------------------------- eig
_COMPLEX_OF = {
    "float32": np.complex64,
    "float64": np.complex128,
    "complex64": np.complex64,
    "complex128": np.complex128,
}


class LinalgEig(Function[tuple[Tensor, Tensor]]):
    """The eigenvalues and eigenvectors (columns of norm 1) of a general square matrix, both
    complex, as LAPACK's ``geev`` gives them (unordered).

    Gradient (torch's ``linalg_eig_backward``): with ``K = Vᴴ gV`` less ``Vᴴ V diag(Re K_ii)``
    (the columns keep norm 1), ``gA = V⁻ᴴ (K / conj(E) + diag(gL)) Vᴴ``, ``E[i, j] = λ_j - λ_i``;
    its real part for a real ``A``.  A loss that depends on the phase of the eigenvectors
    raises torch's error, as for :class:`LinalgEigh`."""

    vmap = matrix_rule("linalg.eig: The input tensor A must have at least 2 dimensions.")

    node_name = "LinalgEigBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, a: Tensor, name: str) -> tuple[Tensor, Tensor]:
        x = a.array
        _check_matrix_square(x, name)
        _no_half(x, "linalg_eig_out_cpu")
        if x.dtype.name not in _COMPLEX_OF:
            raise RuntimeError(f"Unknown Complex ScalarType for {short_name(x.dtype)}")
        if not np.all(np.isfinite(x)):
            raise RuntimeError("torch.linalg.eig: input tensor should not contain infs or NaNs.")
        values, vectors = np.linalg.eig(x)
        complex_ = _COMPLEX_OF[x.dtype.name]
        out = as_tensor(values.astype(complex_)), as_tensor(vectors.astype(complex_))
        ctx.set_materialize_grads(False)
        ctx.save_for_backward(*out)
        ctx.real_input = x.dtype.kind != "c"
        return out

    @staticmethod
    def backward(ctx: Any, gl: Tensor | None, gv: Tensor | None) -> tuple[Tensor, None]:
        values, v = ctx.saved_tensors
        vh = v.mH
        if gv is None:
            assert gl is not None
            ga = LinalgSolve.apply(vh, gl.unsqueeze(-1) * vh, True)
        else:
            vhgv = vh @ gv
            diag = vhgv.diagonal(0, -2, -1)
            _check_gauge(diag, "linalg_eig_backward", "eigenvectors")
            vhgv = vhgv - vh @ (v * diag.real.unsqueeze(-2))
            inner = _off_diagonal(vhgv / _gaps(values).conj())
            if gl is not None:
                inner = inner + gl.diag_embed()
            ga = LinalgSolve.apply(vh, inner @ vh, True)
        return (ga.real if ctx.real_input else ga), None

    @staticmethod
    def jvp(ctx: Any, ta: Tensor, _: None) -> tuple[Tensor, Tensor]:
        values, v = ctx.saved_tensors
        if not ta.is_complex():
            ta = ta.to(v.dtype)
        dp = LinalgSolve.apply(v, ta @ v, True)
        dv = v @ _off_diagonal(dp / _gaps(values))
        dv = dv - v * (v.mH @ dv).diagonal(0, -2, -1).real.unsqueeze(-2)
        return dp.diagonal(0, -2, -1), dv


def _check_matrix_square(x: Any, name: str) -> None:
    if x.ndim < 2:
        raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
    _check_square(x, name)


# --------------------------------------------------------------------------- QR
_QR_MODES = ("reduced", "complete", "r")


class LinalgQr(Function[tuple[Tensor, Tensor]]):
    """``A = Q R`` with orthonormal columns in ``Q`` and an upper-triangular ``R`` (mode
    ``'reduced'``, ``'complete'``, or ``'r'``: ``R`` only and an empty ``Q``).

    Gradient (torch's ``linalg_qr_backward``), for ``m >= n``:
    ``gA = (gQ + Q copyltu(M)) R⁻ᴴ``, ``M = triu(gR Rᴴ - Qᴴ gQ)`` made Hermitian with a real
    diagonal halved; for ``m < n`` the first ``m`` columns as a square QR and the rest as
    ``Q gR[:, m:]``."""

    vmap = matrix_rule("linalg.qr: The input tensor A must have at least 2 dimensions.")

    node_name = "LinalgQrBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, a: Tensor, mode: str) -> tuple[Tensor, Tensor]:
        x = a.array
        _check_matrix(x, "linalg.qr")
        _no_half(x, "geqrf_cpu")
        q_np, r_np = _qr(x, "reduced" if mode == "r" else mode)
        q = as_tensor(np.empty((0,), dtype=x.dtype)) if mode == "r" else as_tensor(q_np)
        r = as_tensor(r_np)
        ctx.set_materialize_grads(False)
        ctx.save_for_backward(q, r)
        ctx.mode = mode
        return q, r

    @staticmethod
    def backward(ctx: Any, gq: Tensor | None, gr: Tensor | None) -> tuple[Tensor, None]:
        q, r = ctx.saved_tensors
        _check_qr_differentiable(ctx.mode, q, r)
        m, n = q.shape[-2], r.shape[-1]
        if m >= n:
            return _qr_backward_square(gq, gr, q, r), None
        # A = [X | Y], R = [U | V]: X = Q U is a square QR and Y = Q V.
        u, y_grad = r[..., :m], None if gr is None else gr[..., m:]
        gu = None if gr is None else gr[..., :m]
        if y_grad is not None:
            # Y enters Q's gradient through V = Qᴴ Y; its own gradient is Q gV.
            y = q @ r[..., m:]
            gq = y @ y_grad.mH if gq is None else gq + y @ y_grad.mH
        gx = _qr_backward_square(gq, gu, q, u)
        gy = q @ y_grad if y_grad is not None else as_tensor(np.zeros(tuple(q.shape[:-1]) + (n - m,), q.array.dtype))
        return cat([gx, gy], -1), None

    @staticmethod
    def jvp(ctx: Any, ta: Tensor, _: None) -> tuple[Tensor, Tensor]:
        q, r = ctx.saved_tensors
        _check_qr_differentiable(ctx.mode, q, r)
        m, n = q.shape[-2], r.shape[-1]
        if m >= n:
            return _qr_jvp_square(ta, q, r)
        dq, du = _qr_jvp_square(ta[..., :m], q, r[..., :m])
        dv = dq.mH @ (q @ r[..., m:]) + q.mH @ ta[..., m:]
        return dq, cat([du, dv], -1)


def _check_qr_differentiable(mode: str, q: Tensor, r: Tensor) -> None:
    """torch's refusals to differentiate ``R`` alone, and a complete ``Q`` of a tall matrix
    (its last columns are arbitrary)."""
    if mode == "r":
        raise RuntimeError(
            "The derivative of linalg.qr depends on Q, which is not computed when mode='r'. Please use "
            "linalg.qr(A, mode='reduced') if you are going to differentiate through linalg.qr."
        )
    if mode == "complete" and q.shape[-2] > r.shape[-1]:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")


def _qr(x: np.ndarray[Any, Any], mode: str) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    m, n = x.shape[-2:]
    if x.size == 0:
        k = m if mode == "complete" else min(m, n)
        batch = x.shape[:-2]
        q = np.broadcast_to(np.eye(m, k, dtype=x.dtype), batch + (m, k)).copy()
        return q, np.zeros(batch + (k, n), dtype=x.dtype)
    q, r = np.linalg.qr(x, mode=mode)  # type: ignore[call-overload]
    return q.astype(x.dtype, copy=False), r.astype(x.dtype, copy=False)


def _copyltu(m: Tensor) -> Tensor:
    """``M`` Hermitian from its upper triangle, with the real part of the diagonal halved
    (torch's ``syminvadj``)."""
    upper = m.triu()
    out: Tensor = upper + upper.mH
    half = as_tensor(np.eye(m.shape[-1], dtype=m.array.real.dtype) * 0.5)
    diag = out.diagonal(0, -2, -1)
    real = diag.real if diag.is_complex() else diag
    return out - (real.unsqueeze(-1) * half)


def _qr_backward_square(gq: Tensor | None, gr: Tensor | None, q: Tensor, r: Tensor) -> Tensor:
    """``gA = (gQ + Q copyltu(triu(gR Rᴴ - Qᴴ gQ))) R⁻ᴴ`` for ``m >= n`` (reduced)."""
    m_: Tensor | None = None
    if gr is not None:
        m_ = gr @ r.mH
    if gq is not None:
        m_ = -(q.mH @ gq) if m_ is None else m_ - q.mH @ gq
    assert m_ is not None
    ga = q @ _copyltu(m_)
    if gq is not None:
        ga = ga + gq
    return LinalgSolveTriangular.apply(r.mH, ga, False, False, False)


def _qr_jvp_square(ta: Tensor, q: Tensor, r: Tensor) -> tuple[Tensor, Tensor]:
    """``dQ``, ``dR`` for ``m >= n``: with ``C = Qᴴ dA R⁻¹``, ``Ω`` its skew-Hermitian part
    from the strictly lower triangle (and ``i Im diag C``), ``dR = (C - Ω) R`` and
    ``dQ = dA R⁻¹ - Q (C - Ω)``."""
    da_rinv = LinalgSolveTriangular.apply(r, ta, True, False, False)
    c = q.mH @ da_rinv
    lower = c.tril(-1)
    omega = lower - lower.mH
    if c.is_complex():
        omega = omega + (1j * c.diagonal(0, -2, -1).imag).diag_embed()
    xi = c - omega
    return da_rinv - q @ xi, xi @ r


# --------------------------------------------------------------------------- triangular solve
def _triangle(x: np.ndarray[Any, Any], upper: bool, unitriangular: bool) -> np.ndarray[Any, Any]:
    t = np.triu(x) if upper else np.tril(x)
    if unitriangular:
        t = t.copy()
        idx = np.arange(x.shape[-1])
        t[..., idx, idx] = 1
    return t


def _substitute(t: np.ndarray[Any, Any], b: np.ndarray[Any, Any], upper: bool) -> np.ndarray[Any, Any]:
    """``T⁻¹ B`` by forward (back) substitution, one row at a time, vectorised over the batch
    and the columns of ``B``; a zero on the diagonal gives ``inf``/``nan`` as LAPACK's does."""
    n = t.shape[-1]
    out = np.zeros(np.broadcast_shapes(t.shape[:-2], b.shape[:-2]) + b.shape[-2:], dtype=np.result_type(t, b))
    rows = range(n - 1, -1, -1) if upper else range(n)
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in rows:
            done = slice(i + 1, n) if upper else slice(0, i)
            rest = b[..., i, :] - np.einsum("...j,...jk->...k", t[..., i, done], out[..., done, :])
            out[..., i, :] = rest / t[..., i, i, None]
    return out


class LinalgSolveTriangular(Function[Tensor]):
    """``X`` with ``A X = B`` (``X A = B`` when not ``left``) for a triangular ``A``: only its
    upper (lower) triangle is read, and with ``unitriangular`` its diagonal is taken as ones.

    grad_B = solve_triangular(Aᵀ, grad) (the other triangle); grad_A = -grad_B Xᵀ (left) or
    -Xᵀ grad_B, restricted to ``A``'s triangle."""

    node_name = "LinalgSolveTriangularBackward0"
    holomorphic = True
    skips_without_gradient = True

    @classmethod
    def vmap(cls, info: Any, in_dims: tuple[Any, ...], a: Tensor, b: Tensor, *flags: bool) -> tuple[Any, Any]:
        return cls.apply(*_batch_matrices(in_dims, a, b), *flags), 0

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor, upper: bool, left: bool, unitriangular: bool) -> Tensor:
        x, y = a.array, b.array
        name = "linalg.solve_triangular"
        if x.ndim < 2:
            raise RuntimeError(f"{name}: The input tensor A must have at least 2 dimensions.")
        if y.ndim < 2:
            raise RuntimeError(f"{name}: The input tensor B must have at least 2 dimensions.")
        _check_square(x, name)
        if x.dtype != y.dtype:  # torch computes in A's dtype
            if y.dtype.kind == "c" and x.dtype.kind != "c":
                warnings.warn("Casting complex values to real discards the imaginary part", UserWarning, stacklevel=2)
                y = y.real
            y = y.astype(x.dtype)
        if (x.shape[-1] != y.shape[-2]) if left else (x.shape[-2] != y.shape[-1]):
            raise RuntimeError(
                f"{name}: Incompatible shapes of A and B for the equation {'AX = B' if left else 'XA = B'} "
                f"({x.shape[-2]}x{x.shape[-1]} and {y.shape[-2]}x{y.shape[-1]})"
            )
        if x.dtype.kind not in "fc" or x.dtype == np.float16:
            raise NotImplementedError(f"\"triangular_solve_cpu\" not implemented for '{short_name(x.dtype)}'")
        t = _triangle(x, upper, unitriangular)
        if left:
            out = _substitute(t, y, upper)
        else:  # X A = B  <=>  Aᵀ Xᵀ = Bᵀ
            out = np.swapaxes(_substitute(np.swapaxes(t, -1, -2), np.swapaxes(y, -1, -2), not upper), -1, -2)
        result = as_tensor(np.ascontiguousarray(out.astype(x.dtype, copy=False)))
        ctx.flags = (upper, left, unitriangular)
        ctx.save_for_backward(a, result)
        return result

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None, None, None, None]:
        a, x = ctx.saved_tensors
        upper, left, unitriangular = ctx.flags
        need_a, need_b = ctx.needs_input_grad[:2]
        gb = LinalgSolveTriangular.apply(a.mT, grad, not upper, left, unitriangular)
        ga = None
        if need_a:
            ga = -(gb @ x.mT) if left else -(x.mT @ gb)
            ga = ga.triu(int(unitriangular)) if upper else ga.tril(-int(unitriangular))
        return ga, gb if need_b else None, None, None, None

    @staticmethod
    def jvp(ctx: Any, ta: Tensor | None, tb: Tensor | None, *_: None) -> Tensor:
        a, x = ctx.saved_tensors
        upper, left, unitriangular = ctx.flags
        rhs = tb
        if ta is not None:
            ta = ta.triu(int(unitriangular)) if upper else ta.tril(-int(unitriangular))
            d = ta @ x if left else x @ ta
            rhs = -d if rhs is None else rhs - d
        assert rhs is not None
        return LinalgSolveTriangular.apply(a, rhs, upper, left, unitriangular)


def _batch_matrices(in_dims: tuple[Any, ...], *tensors: Tensor) -> list[Tensor]:
    """Batched operands of a matrix op, each given as many sample dimensions as the widest (new
    ones of size 1 after the batch dimension), so NumPy's batch broadcasting lines them up."""
    ranks = [t.ndim - (d == 0) for t, d in zip(tensors, in_dims)]
    n = max(ranks)
    return [
        t.reshape(t.shape[0], *([1] * (n - r)), *t.shape[1:]) if d == 0 and r < n else t
        for t, d, r in zip(tensors, in_dims, ranks)
    ]


# --------------------------------------------------------------------------- Cholesky
def _not_positive_definite(x: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """LAPACK ``potrf``'s info for each matrix: the order of the first leading minor that is not
    positive-definite, 0 when there is none."""
    mats = x.reshape(-1, *x.shape[-2:])
    info = np.zeros(len(mats), dtype=np.int32)
    for i, mat in enumerate(mats):
        if _factors(mat):
            continue
        info[i] = next(k for k in range(1, mat.shape[-1] + 1) if not _factors(mat[:k, :k]))
    out: np.ndarray[Any, Any] = info.reshape(x.shape[:-2])
    return out


def _factors(mat: np.ndarray[Any, Any]) -> bool:
    """Whether LAPACK's ``potrf`` factors ``mat``: it stops at a pivot that is not positive, a
    NaN one included (NumPy's cholesky raises only for the first and returns NaNs for the
    second)."""
    try:
        factor = np.linalg.cholesky(mat)
    except np.linalg.LinAlgError:
        return False
    return not np.isnan(np.diagonal(factor, axis1=-2, axis2=-1)).any()


def _partial_cholesky(lower: np.ndarray[Any, Any], info: int) -> np.ndarray[Any, Any]:
    """What LAPACK's unblocked ``potf2`` leaves when the leading minor of order ``info`` is not
    positive-definite: the first ``info - 1`` columns of the factor, the failed pivot
    ``a_kk - |l_k|²`` on the diagonal, and the rest of the lower triangle untouched."""
    out: np.ndarray[Any, Any] = lower.copy()
    k = info - 1
    for j in range(k + 1):
        done = out[j, :j]
        pivot = lower[j, j] - np.vdot(done, done)
        if j == k:
            out[j, j] = pivot
            break
        out[j, j] = np.sqrt(pivot)
        out[j + 1 :, j] = (lower[j + 1 :, j] - out[j + 1 :, :j] @ done.conj()) / out[j, j]
    return out


class LinalgCholesky(Function[tuple[Tensor, Tensor]]):
    """The Cholesky factor ``L`` of a Hermitian positive-definite ``A = L Lᴴ`` (read from its
    lower triangle), or ``U = Lᴴ`` with ``upper``; and LAPACK's ``info`` (0, or the order of the
    first leading minor that is not positive-definite; that matrix's factor is then LAPACK's
    partial one).

    Gradient (torch's ``cholesky_backward``): ``gA = L⁻ᴴ Φ(Lᴴ gL) L⁻¹`` with ``Φ`` the lower
    triangle, symmetrised with its diagonal halved."""

    vmap = matrix_rule("linalg.cholesky: The input tensor A must have at least 2 dimensions.")

    node_name = "LinalgCholeskyExBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, a: Tensor, upper: bool) -> tuple[Tensor, Tensor]:
        x = a.array
        _check_square(x, "linalg.cholesky")
        _check_floating(x, "linalg.cholesky")
        _no_half(x, "cholesky_cpu")
        lower = np.tril(x)
        hermitian = lower + np.swapaxes(np.tril(x, -1), -1, -2).conj()
        try:
            factor = np.linalg.cholesky(hermitian)
            info = np.zeros(x.shape[:-2], dtype=np.int32)
            if np.isnan(np.diagonal(factor, axis1=-2, axis2=-1)).any():
                raise np.linalg.LinAlgError("a NaN pivot")  # LAPACK stops there (see _factors)
        except np.linalg.LinAlgError:
            info = _not_positive_definite(hermitian)
            mats, lows = hermitian.reshape(-1, *x.shape[-2:]), lower.reshape(-1, *x.shape[-2:])
            factor = np.stack(
                [
                    _partial_cholesky(low, int(k)) if k else np.linalg.cholesky(mat)
                    for mat, low, k in zip(mats, lows, info.reshape(-1))
                ]
            ).reshape(x.shape)
        if upper:
            factor = np.swapaxes(factor, -1, -2).conj()
        out = as_tensor(np.ascontiguousarray(factor.astype(x.dtype, copy=False)))
        info_t = as_tensor(info)
        ctx.mark_non_differentiable(info_t)
        ctx.save_for_backward(out)
        ctx.upper = upper
        return out, info_t

    @staticmethod
    def backward(ctx: Any, gl: Tensor, _: Any) -> tuple[Tensor, None]:
        (factor,) = ctx.saved_tensors
        lower = factor.mH if ctx.upper else factor
        if ctx.upper:
            gl = gl.mH
        ga = (lower.mH @ gl).tril()
        ga = 0.5 * (ga + ga.tril(-1).mH)
        ga = LinalgSolveTriangular.apply(lower.mH, ga, True, True, False)
        ga = LinalgSolveTriangular.apply(lower, ga, False, False, False)
        return ga, None

    @staticmethod
    def jvp(ctx: Any, ta: Tensor, _: None) -> tuple[Tensor, None]:
        (factor,) = ctx.saved_tensors
        lower = factor.mH if ctx.upper else factor
        d = LinalgSolveTriangular.apply(lower, ta, False, True, False)
        d = LinalgSolveTriangular.apply(lower.mH, d, True, False, False)
        d = d.tril() - 0.5 * d.diagonal(0, -2, -1).diag_embed()
        dl = lower @ d
        return (dl.mH if ctx.upper else dl), None


# --------------------------------------------------------------------------- LU
def _lu_factor(x: np.ndarray[Any, Any], pivot: bool) -> tuple[np.ndarray[Any, Any], ...]:
    """LAPACK's ``getrf`` in NumPy: ``P A = L U`` with partial pivoting, vectorised over the
    batch and the rows.  Returns ``LU`` packed (``L`` below the diagonal, unit diagonal
    implied), 1-based ``pivots`` (row ``i`` was swapped with row ``pivots[i] - 1``) and
    ``info`` (the first zero pivot, 1-based; 0 when there is none)."""
    m, n = x.shape[-2:]
    k = min(m, n)
    batch = x.shape[:-2]
    count = int(np.prod(batch, dtype=np.int64))
    lu = np.array(x, dtype=x.dtype).reshape(count, m, n)
    pivots = np.tile(np.arange(1, k + 1, dtype=np.int32), (lu.shape[0], 1))
    info = np.zeros(lu.shape[0], dtype=np.int32)
    rows = np.arange(lu.shape[0])
    for j in range(k):
        if pivot:
            column = lu[:, j:, j]
            # LAPACK's i?amax: |Re| + |Im| for complex numbers
            size = np.abs(column.real) + np.abs(column.imag) if column.dtype.kind == "c" else np.abs(column)
            p = j + np.argmax(size, axis=1)
            pivots[:, j] = p + 1
            top = lu[rows, j].copy()
            lu[rows, j] = lu[rows, p]
            lu[rows, p] = top
        head = lu[:, j, j]
        zero = head == 0
        info[(info == 0) & zero] = j + 1
        with np.errstate(divide="ignore", invalid="ignore"):
            factors = np.where(zero[:, None], lu[:, j + 1 :, j], lu[:, j + 1 :, j] / np.where(zero, 1, head)[:, None])
        lu[:, j + 1 :, j] = factors
        lu[:, j + 1 :, j + 1 :] -= factors[:, :, None] * lu[:, j, None, j + 1 :]
    return lu.reshape(batch + (m, n)), pivots.reshape(batch + (k,)), info.reshape(batch)


def _permutation(pivots: np.ndarray[Any, Any], m: int) -> np.ndarray[Any, Any]:
    """The row order ``perm`` with ``A[perm] = L U`` from LAPACK's pivots, batched."""
    flat = pivots.reshape(-1, pivots.shape[-1]).astype(np.intp) - 1
    perm = np.tile(np.arange(m), (flat.shape[0], 1))
    rows = np.arange(flat.shape[0])
    for i in range(flat.shape[1]):
        p = flat[:, i]
        top = perm[rows, i].copy()
        perm[rows, i] = perm[rows, p]
        perm[rows, p] = top
    out: np.ndarray[Any, Any] = perm.reshape(pivots.shape[:-1] + (m,))
    return out


class LinalgLuFactor(Function[tuple[Tensor, Tensor, Tensor]]):
    """``P A = L U`` packed in one matrix (``L`` strictly below the diagonal, unit diagonal
    implied; ``U`` on and above), LAPACK's 1-based ``pivots`` (int32) and ``info``.

    Gradient (torch's ``linalg_lu_backward``), for a square ``A``:
    ``gA = P L⁻ᴴ [tril(Lᴴ gL, -1) + triu(gU Uᴴ)] U⁻ᴴ`` with ``gL``, ``gU`` the parts of the
    gradient of the packed ``LU``; a wide (tall) ``A`` adds the columns (rows) past the square
    part.  Pivots are chosen as LAPACK's (``|Re| + |Im|`` for complex numbers)."""

    vmap = matrix_rule("torch.lu_factor_ex: Expected tensor with 2 or more dimensions. Got size: {shape} instead")

    node_name = "LinalgLuFactorExBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, a: Tensor, pivot: bool) -> tuple[Tensor, Tensor, Tensor]:
        x = a.array
        if x.ndim < 2:
            raise RuntimeError(
                f"torch.lu_factor: Expected tensor with 2 or more dimensions. Got size: {list(x.shape)} instead"
            )
        if x.dtype.kind not in "fc" or x.dtype == np.float16:
            raise NotImplementedError(f"\"lu_cpu\" not implemented for '{short_name(x.dtype)}'")
        lu, pivots, info = _lu_factor(x, pivot)
        out = as_tensor(lu), as_tensor(pivots), as_tensor(info)
        ctx.mark_non_differentiable(out[1], out[2])
        ctx.save_for_backward(out[0], out[1])
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor, *_: Any) -> tuple[Tensor, None]:
        lu, pivots = ctx.saved_tensors
        m, n = lu.shape[-2:]
        k = min(m, n)
        lower, upper = _unpack(lu)
        gl, gu = grad[..., :, :k].tril(-1), grad[..., :k, :].triu()
        if m == n:
            gr = (lower.mH @ gl).tril(-1) + (gu @ upper.mH).triu()
            ga = LinalgSolveTriangular.apply(lower.mH, gr, True, True, True)
            ga = LinalgSolveTriangular.apply(upper.mH, ga, False, False, False)
        elif m < n:  # wide: A = P L [U1 | U2]
            g = (lower.mH @ gl - gu @ upper.mH).tril(-1)
            x = LinalgSolveTriangular.apply(upper[..., :k].mH, g, False, False, False)
            y = cat([x + gu[..., :k], gu[..., k:]], -1)
            ga = LinalgSolveTriangular.apply(lower.mH, y, True, True, True)
        else:  # tall: A = P [L1; L2] U
            g = (gu @ upper.mH - lower.mH @ gl).triu()
            x = LinalgSolveTriangular.apply(lower[..., :k, :].mH, g, True, True, True)
            y = cat([x + gl[..., :k, :], gl[..., k:, :]], -2)
            ga = LinalgSolveTriangular.apply(upper.mH, y, False, False, False)
        return _permute_rows(ga, pivots, inverse=True), None

    @staticmethod
    def jvp(ctx: Any, ta: Tensor, _: None) -> tuple[Tensor, None, None]:
        lu, pivots = ctx.saved_tensors
        m, n = lu.shape[-2:]
        k = min(m, n)
        lower, upper = _unpack(lu)
        pta = _permute_rows(ta, pivots)
        l1, u1 = lower[..., :k, :], upper[..., :, :k]
        # the square part: L1⁻¹ (Pᵀ dA)[:k, :k] U1⁻¹ = L1⁻¹ dL1 + dU1 U1⁻¹
        d = LinalgSolveTriangular.apply(l1, pta[..., :k, :k], False, True, True)
        d = LinalgSolveTriangular.apply(u1, d, True, False, False)
        dl1, du1 = l1 @ d.tril(-1), d.triu() @ u1
        if m == n:
            return dl1 + du1, None, None
        if m < n:  # wide: A2 = L U2, so dU2 = L⁻¹ (dA2 - dL U2)
            du2 = LinalgSolveTriangular.apply(l1, pta[..., :, k:] - dl1 @ upper[..., :, k:], False, True, True)
            return cat([dl1 + du1, du2], -1), None, None
        # tall: A2 = L2 U, so dL2 = (dA2 - L2 dU) U⁻¹
        dl2 = LinalgSolveTriangular.apply(u1, pta[..., k:, :] - lower[..., k:, :] @ du1, True, False, False)
        return cat([dl1 + du1, dl2], -2), None, None


def _unpack(lu: Tensor) -> tuple[Tensor, Tensor]:
    """``L`` (m x k, unit diagonal) and ``U`` (k x n) of a packed LU."""
    m, n = lu.shape[-2:]
    k = min(m, n)
    lower = lu[..., :, :k].tril(-1) + as_tensor(np.eye(m, k, dtype=lu.dtype))
    return lower, lu[..., :k, :].triu()


class PivotPermutation(Function[Tensor]):
    """The row order ``perm`` (int64) with ``A[perm] = L U``, from LAPACK's 1-based pivots
    (the swaps ``i <-> pivots[i] - 1`` in turn), batched; not differentiable."""

    vmap = unary_rule

    node_name = "PivotPermutationBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, pivots: Tensor, m: int) -> Tensor:
        return as_tensor(_permutation(pivots.array, m).astype(np.int64))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[None, None]:
        return None, None


def _permute_rows(x: Tensor, pivots: Tensor, inverse: bool = False) -> Tensor:
    """``Pᵀ x`` (the rows of ``x`` in pivot order), or ``P x`` when ``inverse``."""
    m = x.shape[-2]
    perm = PivotPermutation.apply(pivots, m)
    if inverse:
        perm = perm.argsort(-1)
    batch = tuple(np.broadcast_shapes(tuple(x.shape[:-2]), tuple(perm.shape[:-1])))
    index = perm.unsqueeze(-1).expand(*batch, m, x.shape[-1])
    return x.expand(*batch, *x.shape[-2:]).gather(-2, index)


def permutation_matrix(pivots: Tensor, m: int, dtype: Any) -> Tensor:
    """``P`` (with ``A = P L U``) from LAPACK's pivots, batched."""
    perm = PivotPermutation.apply(pivots, m)
    rows = perm.unsqueeze(-1) == as_tensor(np.arange(m))  # row i of Pᵀ has its 1 in column perm[i]
    return rows.to(dtype).mT.contiguous()


# --------------------------------------------------------------------------- slogdet
class LinalgSlogdet(Function[tuple[Tensor, Tensor]]):
    """``sign`` and ``log|det A|`` (``det A = sign * exp(logabsdet)``) of a square matrix.

    Gradient: ``w A⁻ᴴ`` with ``w = g_logabsdet + i Im(g_sign conj(sign))`` (for real ``A``
    the sign is piecewise constant: ``w = g_logabsdet``)."""

    vmap = matrix_rule("linalg.slogdet: The input tensor A must have at least 2 dimensions.")

    node_name = "LinalgSlogdetBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, a: Tensor) -> tuple[Tensor, Tensor]:
        x = a.array
        _check_square(x, "linalg.slogdet")
        if x.dtype == np.float16:
            raise RuntimeError("linalg.slogdet: Low precision dtypes not supported. Got Half")
        _check_floating(x, "linalg.slogdet")
        sign, logabsdet = np.linalg.slogdet(x)
        out = as_tensor(np.asarray(sign, dtype=x.dtype)), as_tensor(np.asarray(logabsdet, dtype=x.real.dtype))
        ctx.set_materialize_grads(False)
        ctx.save_for_backward(a, out[0])
        return out

    @staticmethod
    def backward(ctx: Any, gsign: Tensor | None, glog: Tensor | None) -> Tensor:
        a, sign = ctx.saved_tensors
        if a.is_complex():
            w: Tensor = glog if glog is not None else as_tensor(np.zeros(sign.shape, dtype=a.array.real.dtype))
            if gsign is not None:
                w = w + 1j * (gsign * sign.conj()).imag
        elif glog is None:
            return as_tensor(np.zeros_like(a.array))
        else:
            w = glog
        return w.unsqueeze(-1).unsqueeze(-1) * LinalgInv.apply(a).mH

    @staticmethod
    def jvp(ctx: Any, ta: Tensor) -> tuple[Tensor, Tensor]:
        a, sign = ctx.saved_tensors
        trace = (LinalgInv.apply(a) * ta.mT).sum((-2, -1))
        if a.is_complex():
            return sign * (1j * trace.imag), trace.real
        return sign * 0, trace


# --------------------------------------------------------------------------- pinv
class LinalgPinv(Function[Tensor]):
    """The Moore-Penrose pseudo-inverse: singular values at most ``max(atol, rtol * s_max)`` count as zero.

    It is computed from the SVD (or, ``hermitian``, the eigendecomposition).

    Gradient (torch's ``pinv_backward``) and tangent
    ``dA⁺ = -A⁺ dA A⁺ + A⁺ A⁺ᴴ dAᴴ (I - A A⁺) + (I - A⁺ A) dAᴴ A⁺ᴴ A⁺``: exact where the rank is
    locally constant."""

    vmap = unary_rule

    node_name = "LinalgPinvBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, a: Tensor, atol: float, rtol: float, hermitian: bool) -> Tensor:
        x = a.array
        m, n = x.shape[-2:]
        if x.size == 0:
            result = np.zeros(x.shape[:-2] + (n, m), dtype=x.dtype)
        elif hermitian:
            values, vectors = np.linalg.eigh(x)
            mag = np.abs(values)
            tol = np.maximum(atol, rtol * mag.max(-1, keepdims=True))
            with np.errstate(divide="ignore"):
                inv = np.where(mag > tol, 1 / np.where(mag > tol, values, 1), 0)
            result = (vectors * inv[..., None, :]) @ np.swapaxes(vectors, -1, -2).conj()
        else:
            u, s, vh = np.linalg.svd(x, full_matrices=False)
            tol = np.maximum(atol, rtol * s.max(-1, keepdims=True))
            inv = np.where(s > tol, 1 / np.where(s > tol, s, 1), 0)
            result = (np.swapaxes(vh, -1, -2).conj() * inv[..., None, :]) @ np.swapaxes(u, -1, -2).conj()
        out = as_tensor(np.ascontiguousarray(result.astype(x.dtype, copy=False)))
        ctx.save_for_backward(a, out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None]:
        a, p = ctx.saved_tensors
        m, n = a.shape[-2:]
        ph, gh = p.mH, grad.mH
        if m <= n:
            k = gh @ p
            kph = k @ ph
            ga = -(p @ k).mH + kph - (a @ p) @ kph + (ph @ p) @ (gh - k @ a)
        else:
            k = p @ gh
            phk = ph @ k
            ga = -(k @ p).mH + (gh - a @ k) @ p @ ph + phk - phk @ p @ a
        return ga, None, None, None

    @staticmethod
    def jvp(ctx: Any, ta: Tensor, *_: None) -> Tensor:
        a, p = ctx.saved_tensors
        tah = ta.mH
        left = _eye_like(a, a.shape[-2]) - a @ p
        right = _eye_like(a, a.shape[-1]) - p @ a
        out: Tensor = -(p @ ta @ p) + p @ p.mH @ tah @ left + right @ tah @ p.mH @ p
        return out


def default_rtol(x: Any) -> float:
    """torch's default relative tolerance of ``pinv`` and ``matrix_rank`` for an array or tensor
    ``x``: ``eps * max(m, n)``."""
    return float(np.finfo(x.dtype).eps * max(x.shape[-2:]))


__all__ = [
    "LinAlgError",
    "LinalgCholesky",
    "LinalgEigh",
    "LinalgLuFactor",
    "LinalgPinv",
    "LinalgQr",
    "LinalgSlogdet",
    "LinalgSolveTriangular",
    "LinalgSvd",
    "default_rtol",
    "permutation_matrix",
]


# --------------------------------------------------------------------------- frontends
# torch.linalg's names (re-exported by ctxgrad.linalg) and torch's older top-level ones.
def _warn_deprecated(message: str) -> None:
    warnings.warn(message, UserWarning, stacklevel=3)


def _no_driver(driver: str | None) -> None:
    if driver is not None:
        raise RuntimeError(
            "torch.linalg.svd: keyword argument `driver=` is only supported on CUDA inputs with cuSOLVER backend."
        )


def linalg_svd(A: Tensor, full_matrices: bool = True, *, driver: str | None = None) -> _return_types.linalg_svd:
    """``U, S, Vh`` with ``A = U diag(S) Vh`` (``S`` descending)."""
    _no_driver(driver)
    return _return_types.linalg_svd(*LinalgSvd.apply(A, bool(full_matrices)))


def svdvals(A: Tensor, *, driver: str | None = None) -> Tensor:
    """The singular values of ``A``, descending (differentiable even when repeated)."""
    _no_driver(driver)
    _check_matrix(A, "linalg.svd")
    return LinalgSvd.apply(A, False)[1]


def svd(input: Tensor, some: bool = True, compute_uv: bool = True) -> _return_types.svd:
    """torch.svd's older API: ``U, S, V`` (not ``Vh``); ``some=False`` gives square ``U``, ``V``;
    ``compute_uv=False`` gives zero-filled ``U`` and ``V``."""
    if input.dim() < 2:
        raise RuntimeError(
            f"linalg.svd: input should have at least 2 dimensions, but has {input.dim()} dimensions instead"
        )
    if not compute_uv:
        s = svdvals(input)
        m, n = input.shape[-2:]
        batch = tuple(input.shape[:-2])
        dtype = input.dtype
        return _return_types.svd(
            as_tensor(np.zeros(batch + (m, m), dtype)), s, as_tensor(np.zeros(batch + (n, n), dtype))
        )
    u, s, vh = LinalgSvd.apply(input, not some)
    return _return_types.svd(u, s, vh.mH)


def linalg_eigh(A: Tensor, UPLO: str = "L") -> _return_types.linalg_eigh:
    """The eigenvalues (ascending) and eigenvectors of a Hermitian matrix, from its ``UPLO`` triangle."""
    if not isinstance(UPLO, str) or UPLO.upper() not in ("L", "U"):
        raise RuntimeError(_UPLO_ERROR.format(UPLO))
    return _return_types.linalg_eigh(*LinalgEigh.apply(A, UPLO.upper()))


def eig(A: Tensor) -> _return_types.linalg_eig:
    """The (complex) eigenvalues and eigenvectors of a square matrix: ``A V = V diag(L)``."""
    return _return_types.linalg_eig(*LinalgEig.apply(A, "linalg.eig"))


def eigvals(A: Tensor) -> Tensor:
    """The (complex) eigenvalues of a square matrix."""
    return LinalgEig.apply(A, "linalg.eigvals")[0]


def eigvalsh(A: Tensor, UPLO: str = "L") -> Tensor:
    """The eigenvalues (ascending) of a Hermitian matrix."""
    return linalg_eigh(A, UPLO)[0]


def linalg_qr(A: Tensor, mode: str = "reduced") -> _return_types.linalg_qr:
    """``Q, R`` with ``A = Q R`` (``mode``: ``'reduced'``, ``'complete'`` or ``'r'``)."""
    if mode not in _QR_MODES:
        raise RuntimeError(
            f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', or 'complete'"
        )
    return _return_types.linalg_qr(*LinalgQr.apply(A, mode))


def qr(input: Tensor, some: bool = True) -> _return_types.qr:
    """torch.qr's older API (deprecated in torch): ``some=False`` is ``mode='complete'``."""
    _warn_deprecated(
        "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future PyTorch release.\n"
        "The boolean parameter 'some' has been replaced with a string parameter 'mode'.\nQ, R = torch.qr(A, some)\n"
        "should be replaced with\nQ, R = torch.linalg.qr(A, 'reduced' if some else 'complete')"
    )
    return _return_types.qr(*LinalgQr.apply(input, "reduced" if some else "complete"))


def _status(info: Tensor) -> np.ndarray[Any, Any]:
    """The values of an ``info`` tensor, which the error checks read: inside vmap, every
    sample's at once (so a failed sample is named by its place in the whole batch, as torch
    names it)."""
    while isinstance(info, BatchedTensor):
        info = info.value
    return info.array


def _raise_cholesky(info_tensor: Tensor, name: str) -> None:
    info = _status(info_tensor)
    bad = np.flatnonzero(info.reshape(-1))
    if bad.size:
        batch = f"(Batch element {bad[0]}): " if info.ndim else ""
        order = int(info.reshape(-1)[bad[0]])
        raise LinAlgError(
            f"{name}: {batch}The factorization could not be completed because the input is not positive-definite "
            f"(the leading minor of order {order} is not positive-definite)."
        )


def cholesky_ex(A: Tensor, *, upper: bool = False, check_errors: bool = False) -> _return_types.linalg_cholesky_ex:
    """``L`` (``U`` with ``upper``) and LAPACK's ``info`` (0, or the order of the first leading
    minor that is not positive-definite), without raising unless ``check_errors``."""
    factor, info = LinalgCholesky.apply(A, bool(upper))
    if check_errors:
        _raise_cholesky(info, "linalg.cholesky_ex")
    return _return_types.linalg_cholesky_ex(factor, info)


def linalg_cholesky(A: Tensor, *, upper: bool = False) -> Tensor:
    """The Cholesky factor of a Hermitian positive-definite matrix; :class:`LinAlgError` otherwise."""
    factor, info = LinalgCholesky.apply(A, bool(upper))
    _raise_cholesky(info, "linalg.cholesky")
    return factor


def cholesky(input: Tensor, upper: bool = False) -> Tensor:
    """torch.cholesky (deprecated in torch): :func:`ctxgrad.linalg.cholesky`."""
    _warn_deprecated(
        "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a future PyTorch "
        "release.\nL = torch.cholesky(A)\nshould be replaced with\nL = torch.linalg.cholesky(A)\nand\n"
        "U = torch.cholesky(A, upper=True)\nshould be replaced with\nU = torch.linalg.cholesky(A).mH\n"
        "This transform will produce equivalent results for all valid (symmetric positive definite) inputs."
    )
    return linalg_cholesky(input, upper=upper)


def _broadcast_batches(a: Tensor, b: Tensor) -> None:
    """torch's error when the batch dimensions of two matrix operands do not broadcast."""
    try:
        np.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
    except ValueError:
        raise broadcast_error(np.empty(tuple(a.shape[:-2])), np.empty(tuple(b.shape[:-2]))) from None


def cholesky_solve(input: Tensor, input2: Tensor, upper: bool = False) -> Tensor:
    """``X`` with ``A X = B`` for ``B = input`` and ``A = L Lᴴ`` given its factor ``input2``."""
    if input.dim() < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {input.dim()} dimensions instead")
    if input2.dim() < 2:
        raise RuntimeError(f"u should have at least 2 dimensions, but has {input2.dim()} dimensions instead")
    if input.dtype != input2.dtype:
        raise RuntimeError(
            f"Expected b and A to have the same dtype, but found b of type {short_name(input.dtype)} and A of type "
            f"{short_name(input2.dtype)} instead."
        )
    if input2.shape[-1] != input2.shape[-2]:
        raise RuntimeError(
            f"A must be batches of square matrices, but they are {input2.shape[-2]} by {input2.shape[-1]} matrices"
        )
    if input2.shape[-1] != input.shape[-2]:
        n = input2.shape[-1]
        raise RuntimeError(
            f"Incompatible matrix sizes for cholesky_solve: each A matrix is {n} by {n} but each b matrix is "
            f"{input.shape[-2]} by {input.shape[-1]}"
        )
    _broadcast_batches(input, input2)
    lower = input2.mH if upper else input2
    y = LinalgSolveTriangular.apply(lower, input, False, True, False)
    return LinalgSolveTriangular.apply(lower.mH, y, True, True, False)


def cholesky_inverse(input: Tensor, upper: bool = False) -> Tensor:
    """``(L Lᴴ)⁻¹`` from the Cholesky factor ``L`` (``U`` with ``upper``)."""
    if input.dim() < 2:
        raise RuntimeError("cholesky_inverse: The input tensor A must have at least 2 dimensions.")
    if input.shape[-1] != input.shape[-2]:
        raise RuntimeError(
            "cholesky_inverse: A must be batches of square matrices, but they are "
            f"{input.shape[-2]} by {input.shape[-1]} matrices"
        )
    return cholesky_solve(_eye_like(input), input, upper)


def solve_triangular(A: Tensor, B: Tensor, *, upper: bool, left: bool = True, unitriangular: bool = False) -> Tensor:
    """``X`` with ``A X = B`` (``X A = B`` when not ``left``) reading only ``A``'s upper (lower) triangle."""
    return LinalgSolveTriangular.apply(A, B, bool(upper), bool(left), bool(unitriangular))


def triangular_solve(
    input: Tensor, A: Tensor, upper: bool = True, transpose: bool = False, unitriangular: bool = False
) -> _return_types.triangular_solve:
    """torch.triangular_solve (deprecated in torch): ``X`` with ``A X = input`` (``Aᵀ X``), and a copy of ``A``."""
    for label, t in (("A", A), ("b", input)):
        if t.dim() < 2:
            raise RuntimeError(
                f"torch.triangular_solve: Expected {label} to have at least 2 dimensions, but it has {t.dim()} "
                "dimensions instead"
            )
    if transpose:
        A_solve, upper_solve = A.mT, not upper
    else:
        A_solve, upper_solve = A, upper
    x = LinalgSolveTriangular.apply(A_solve, input, bool(upper_solve), True, bool(unitriangular))
    return _return_types.triangular_solve(x, A.clone())


def lu_factor_ex(A: Tensor, *, pivot: bool = True, check_errors: bool = False) -> _return_types.linalg_lu_factor_ex:
    """``LU`` packed, 1-based ``pivots`` (int32) and ``info`` (the first zero pivot, 1-based)."""
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    lu, pivots, info = LinalgLuFactor.apply(A, True)
    if check_errors:
        _raise_lu(info, "torch.linalg.lu_factor_ex")
    return _return_types.linalg_lu_factor_ex(lu, pivots, info)


def _raise_lu(info_tensor: Tensor, name: str) -> None:
    info = _status(info_tensor)
    bad = np.flatnonzero(info.reshape(-1))
    if bad.size:
        batch = f"(Batch element {bad[0]}): " if info.ndim else ""
        k = int(info.reshape(-1)[bad[0]])
        raise RuntimeError(
            f"{name}: {batch}U[{k},{k}] is zero and using it on lu_solve would result in a division by zero. If you "
            "still want to perform the factorization, consider calling linalg.lu(A, pivot) or "
            "linalg.lu_factor_ex(A, pivot)"
        )


def lu_factor(A: Tensor, *, pivot: bool = True) -> _return_types.linalg_lu_factor:
    """``LU`` packed and ``pivots``; :class:`LinAlgError` for a zero pivot (a singular matrix)."""
    lu, pivots, info = lu_factor_ex(A, pivot=pivot)
    _raise_lu(info, "torch.linalg.lu_factor")
    return _return_types.linalg_lu_factor(lu, pivots)


def lu_unpack(
    LU_data: Tensor, LU_pivots: Tensor, unpack_data: bool = True, unpack_pivots: bool = True
) -> _return_types.lu_unpack:
    """``P, L, U`` (``A = P L U``) from a packed LU and its pivots."""
    if LU_data.dim() < 2:
        raise RuntimeError(
            f"torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: {list(LU_data.shape)} instead"
        )
    if LU_pivots.dtype != np.int32:
        raise RuntimeError(
            "torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype.\n"
            "Note: this function is intended to be used with the output produced by torch.linalg.lu_factor"
        )
    m = LU_data.shape[-2]
    empty = as_tensor(np.empty((0,), dtype=LU_data.dtype))
    p = permutation_matrix(LU_pivots, m, LU_data.dtype) if unpack_pivots else empty
    if unpack_data:
        lower, upper = _unpack(LU_data)
    else:
        lower, upper = empty, as_tensor(np.empty((0,), dtype=LU_data.dtype))
    return _return_types.lu_unpack(p, lower, upper)


def linalg_lu(A: Tensor, *, pivot: bool = True) -> _return_types.linalg_lu:
    """``P, L, U`` with ``A = P L U``."""
    if A.dim() < 2:
        raise RuntimeError(f"linalg.lu: Expected tensor with 2 or more dimensions. Got size: {list(A.shape)} instead")
    lu, pivots, _ = lu_factor_ex(A, pivot=pivot)
    return _return_types.linalg_lu(*lu_unpack(lu, pivots))


def lu(input: Tensor, pivot: bool = True, get_infos: bool = False) -> Any:
    """torch.lu (deprecated in torch): ``(LU, pivots)``, and ``info`` with ``get_infos``."""
    _warn_deprecated(
        "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will be removed "
        "in a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\nshould be replaced with\n"
        "LU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\n"
        "LU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)\nshould be replaced with\n"
        "LU, pivots, info = torch.linalg.lu_factor_ex(A, compute_pivots)"
    )
    lu_, pivots, info = lu_factor_ex(input, pivot=pivot)
    if get_infos:
        return _lu_with_info(lu_, pivots, info)
    _raise_lu(info, "torch.linalg.lu_factor")
    return lu_, pivots


def linalg_lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True, adjoint: bool = False) -> Tensor:
    """``X`` with ``A X = B`` (``X A = B`` when not ``left``; ``Aᴴ`` for ``A`` with ``adjoint``)
    from ``A``'s :func:`lu_factor`."""
    name = "linalg.lu_solve"
    if LU.dim() < 2:
        raise RuntimeError(f"torch.{name}: The input tensor A must have at least 2 dimensions.")
    if B.dim() < 2:
        raise RuntimeError(f"{name}: The input tensor B must have at least 2 dimensions.")
    if pivots.dtype != np.int32:
        raise RuntimeError(f"{name}: pivots should be a Tensor of scalar type torch.int32")
    _check_matrix_square(LU, name)
    if B.dtype != LU.dtype:
        raise RuntimeError(
            f"{name}: Expected LU and B to have the same dtype, but found LU of type {short_name(LU.dtype)} and B of "
            f"type {short_name(B.dtype)} instead"
        )
    n = LU.shape[-1]
    if (B.shape[-2] if left else B.shape[-1]) != n:
        raise RuntimeError(
            f"{name}: Incompatible shapes of A and B for the equation {'AX = B' if left else 'XA = B'} "
            f"({n}x{n} and {B.shape[-2]}x{B.shape[-1]})"
        )
    _broadcast_batches(B, LU)
    lower, upper = _unpack(LU)
    if not left:  # X A = B  <=>  Aᴴ Xᴴ = Bᴴ
        return linalg_lu_solve(LU, pivots, B.mH, left=True, adjoint=not adjoint).mH
    if adjoint:  # Aᴴ = Uᴴ Lᴴ Pᵀ
        y = LinalgSolveTriangular.apply(upper.mH, B, False, True, False)
        y = LinalgSolveTriangular.apply(lower.mH, y, True, True, True)
        return _permute_rows(y, pivots, inverse=True)
    y = LinalgSolveTriangular.apply(lower, _permute_rows(B, pivots), False, True, True)
    return LinalgSolveTriangular.apply(upper, y, True, True, False)


def lu_solve(input: Tensor, LU_data: Tensor, LU_pivots: Tensor) -> Tensor:
    """torch.lu_solve (deprecated in torch): ``X`` with ``A X = input`` from ``A``'s LU."""
    return linalg_lu_solve(LU_data, LU_pivots, input)


def linalg_slogdet(A: Tensor) -> _return_types.linalg_slogdet:
    """``sign`` and ``log|det A|``."""
    return _return_types.linalg_slogdet(*LinalgSlogdet.apply(A))


def slogdet(input: Tensor) -> _return_types.slogdet:
    """``sign`` and ``log|det A|`` (torch.slogdet)."""
    return _return_types.slogdet(*LinalgSlogdet.apply(input))


def _tolerances(x: Any, atol: Any, rtol: Any, name: str) -> tuple[float, float]:
    """torch's rule: ``rtol`` defaults to ``eps * max(m, n)``, or to 0 when ``atol > 0`` is given."""
    a = 0.0 if atol is None else float(atol.item() if isinstance(atol, Tensor) else atol)
    if rtol is None:
        r = default_rtol(x) if (atol is None or a <= 0) else 0.0
    else:
        r = float(rtol.item() if isinstance(rtol, Tensor) else rtol)
    return a, r


def _pinv_args(A: Tensor, atol: Any, rtol: Any, hermitian: bool) -> tuple[Tensor, float, float, bool]:
    """``LinalgPinv``'s arguments: torch's check of ``A``, then the tolerances."""
    x = A
    if x.ndim < 2 or x.dtype.kind not in "fc" or x.dtype == np.float16:
        raise RuntimeError(
            f"linalg.pinv({short_name(x.dtype).capitalize()}{{{list(x.shape)}}}): expected a tensor with 2 or more "
            "dimensions of float, double, cfloat or cdouble types"
        )
    a, r = _tolerances(x, atol, rtol, "linalg.pinv")
    return A, a, r, bool(hermitian)


def pinv(A: Tensor, *, atol: Any = None, rtol: Any = None, hermitian: bool = False) -> Tensor:
    """The Moore-Penrose pseudo-inverse: singular values at most ``max(atol, rtol * s_max)`` count as zero."""
    return LinalgPinv.apply(*_pinv_args(A, atol, rtol, hermitian))


def pinverse_args(name: str, input: Tensor, rcond: float = 1e-15) -> tuple[Tensor, float, float, bool]:
    """torch.pinverse's arguments: :func:`pinv`'s with ``rtol=rcond``."""
    return _pinv_args(input, None, rcond, False)


def matrix_rank(A: Tensor, *, atol: Any = None, rtol: Any = None, hermitian: bool = False, tol: Any = None) -> Tensor:
    """The number of singular values (with ``hermitian``, absolute eigenvalues) above ``max(atol, rtol * s_max)``."""
    x = A
    if x.ndim < 2:
        raise RuntimeError("torch.linalg.matrix_rank: The input tensor input must have at least 2 dimensions.")
    if x.dtype.kind not in "fc" or x.dtype == np.float16:
        raise RuntimeError("This function doesn't handle types other than float and double")
    if tol is not None:
        atol, rtol = tol, 0.0
    a, r = _tolerances(x, atol, rtol, "linalg.matrix_rank")
    values = eigvalsh(A.detach()).abs() if hermitian else svdvals(A.detach())
    if values.shape[-1] == 0:
        return as_tensor(np.zeros(values.shape[:-1], dtype=np.int64))
    tol_ = (values.amax(-1, keepdim=True) * r).clamp(min=a)
    return (values > tol_).sum(-1)


def lstsq(A: Tensor, B: Tensor, rcond: float | None = None, *, driver: str | None = None) -> _return_types.linalg_lstsq:
    """The least-squares solution of ``A X = B`` (minimum-norm when ``A`` is rank deficient), as
    torch on the CPU with its default driver ``'gelsy'``: the residuals and singular values are
    empty and the rank is computed."""
    x, y = A, B
    if x.dtype.kind not in "fc" or x.dtype == np.float16:
        raise RuntimeError("This function doesn't handle types other than float and double")
    if x.dtype != y.dtype:
        raise RuntimeError(
            "torch.linalg.lstsq: Expected input and other to have the same dtype, but got input's dtype "
            f"{short_name(x.dtype)} and other's dtype {short_name(y.dtype)}"
        )
    if x.ndim < 2:
        raise RuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    if not (x.ndim >= y.ndim and x.ndim - y.ndim <= 1):
        raise RuntimeError(
            "torch.linalg.lstsq: input.dim() must be greater or equal to other.dim() and (input.dim() - other.dim()) "
            "<= 1"
        )
    if driver not in (None, "gelsy", "gelsd", "gelss", "gels"):
        raise RuntimeError(
            f"torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss), but got {driver}"
        )
    vector = y.ndim == x.ndim - 1
    b = B.unsqueeze(-1) if vector else B
    _broadcast_batches(A, b)
    if x.shape[-2] != b.shape[-2]:
        raise RuntimeError(
            "torch.linalg.lstsq: input.size(-2) should match other.size(-2)"
            if not vector
            else "torch.linalg.lstsq: input.size(-2) should match other.size(-1)"
        )
    r = default_rtol(x) if rcond is None or rcond < 0 else float(rcond)
    solution = LinalgPinv.apply(A, 0.0, r, False) @ b
    if vector:
        solution = solution.squeeze(-1)
    real = x.real.dtype
    rank = matrix_rank(A, rtol=r)
    return _return_types.linalg_lstsq(solution, as_tensor(np.empty((0,), real)), rank, as_tensor(np.empty((0,), real)))


@replayed_whole
def inv_ex(A: Tensor, *, check_errors: bool = False) -> _return_types.linalg_inv_ex:
    """The inverse and LAPACK's ``info`` (the first zero pivot, 1-based; 0 when invertible)."""
    x = A.array
    _check_square(x, "linalg.inv")
    if x.dtype == np.float16:
        raise RuntimeError("linalg.inv: Low precision dtypes not supported. Got Half")
    _check_floating(x, "linalg.inv")
    info = _lu_factor(x, True)[2]
    if not np.any(info):
        return _return_types.linalg_inv_ex(LinalgInv.apply(A), as_tensor(info))
    if check_errors:
        bad = int(np.flatnonzero(info.reshape(-1))[0])
        batch = f"(Batch element {bad}): " if info.ndim else ""
        raise LinAlgError(
            f"linalg.inv_ex: {batch}The diagonal element {int(info.reshape(-1)[bad])} is zero, the inversion could "
            "not be completed because the input matrix is singular."
        )
    lu_, pivots, _ = LinalgLuFactor.apply(A, True)
    with np.errstate(divide="ignore", invalid="ignore"):
        return _return_types.linalg_inv_ex(linalg_lu_solve(lu_, pivots, _eye_like(A)), as_tensor(info))


@replayed_whole
def solve_ex(A: Tensor, B: Tensor, *, left: bool = True, check_errors: bool = False) -> _return_types.linalg_solve_ex:
    """The solution of ``A X = B`` and LAPACK's ``info`` (0, or the first zero pivot, 1-based)."""
    x = A.array
    _check_floating(x, "linalg.solve_ex")
    if x.ndim < 2:
        raise RuntimeError("linalg.solve_ex: The input tensor A must have at least 2 dimensions.")
    _check_square(x, "linalg.solve_ex")
    info = _lu_factor(x, True)[2]
    if not np.any(info):
        result = LinalgSolve.apply(A, B, bool(left))
        return _return_types.linalg_solve_ex(
            result, as_tensor(np.broadcast_to(info, tuple(result.shape[: info.ndim])).copy())
        )
    if check_errors:
        bad = int(np.flatnonzero(info.reshape(-1))[0])
        batch = f"(Batch element {bad}): " if info.ndim else ""
        raise LinAlgError(f"torch.linalg.solve_ex: {batch}The solver failed because the input matrix is singular.")
    lu_, pivots, _ = LinalgLuFactor.apply(A, True)
    vector = B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1]))
    b = B.unsqueeze(-1) if vector else B
    with np.errstate(divide="ignore", invalid="ignore"):
        out = linalg_lu_solve(lu_, pivots, b, left=bool(left))
    return _return_types.linalg_solve_ex(out.squeeze(-1) if vector else out, as_tensor(info))


# --------------------------------------------------------------------------- rows
# The decompositions under torch's top-level names (torch.linalg's are ctxgrad/linalg.py's).
ROWS: list[Op] = [
    Op("svd", svd, out=True),
    Op("qr", qr, out=True),
    Op("cholesky", cholesky, out=True),
    Op("cholesky_inverse", cholesky_inverse, out=True),
    Op("cholesky_solve", cholesky_solve, out=True),
    Op("lu", lu),
    Op("lu_unpack", lu_unpack, method=False, out=True),
    Op("lu_solve", lu_solve, out=True),
    Op("slogdet", slogdet, out=True),
    Op("pinverse", LinalgPinv, args=pinverse_args),
    Op("triangular_solve", triangular_solve, out=True),
]

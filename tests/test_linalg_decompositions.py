"""The decompositions of ``ctxgrad.linalg`` (svd, eigh, qr, cholesky, LU, solve_triangular,
slogdet, pinv, lstsq, ...) and torch's older top-level names (``svd``, ``qr``, ``lu``, ...).

The op table runs through the kit (``_opcheck.py``): values against NumPy, values and
gradients against torch (float64, float32, complex), central differences, forward mode and
double backward.  Singular vectors and eigenvectors are defined up to a sign (a phase), so the
cases differentiate quantities that do not depend on it (``U @ Vh``, ``V diag(f(L)) Vᴴ``,
projectors) or on outputs LAPACK fixes (``Q``, ``R``, ``L``).  The plain tests below compare
named tuples, dtypes, errors, ``info`` codes and torch's documented failure modes.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _opcheck import Case, OpFamilyTests, any_, assert_same

import ctxgrad


def _wc(*shapes: tuple[int, ...]) -> list[tuple[tuple[int, ...], Any]]:
    return [(s, "wellcond") for s in shapes]


def _polar(m: Any, a: Any) -> Any:
    u, _, vh = m.linalg.svd(a, full_matrices=False)
    return u @ vh


def _np_polar(m: Any, a: Any) -> Any:
    u, _, vh = np.linalg.svd(a, full_matrices=False)
    return u @ vh


def _svd_mix(m: Any, a: Any) -> Any:
    """A loss of U, S and Vh together that does not depend on the signs of the vectors."""
    u, s, vh = m.linalg.svd(a, full_matrices=False)
    return (u * s.unsqueeze(-2) ** 2) @ u.mT @ a + a @ (vh.mT * s.unsqueeze(-2)) @ vh


def _np_svd_mix(m: Any, a: Any) -> Any:
    u, s, vh = np.linalg.svd(a, full_matrices=False)
    return (u * s[..., None, :] ** 2) @ np.swapaxes(u, -1, -2) @ a + a @ (
        np.swapaxes(vh, -1, -2) * s[..., None, :]
    ) @ vh


def _eigh_fn(m: Any, a: Any) -> Any:
    """``V diag(L²) Vᴴ + V diag(L) Vᴴ`` of the symmetric ``a + aᵀ``."""
    values, vectors = m.linalg.eigh(a + a.mT)
    return (vectors * (values**2 + values).unsqueeze(-2)) @ vectors.mT


def _np_eigh_fn(m: Any, a: Any) -> Any:
    values, vectors = np.linalg.eigh(a + np.swapaxes(a, -1, -2))
    return (vectors * (values**2 + values)[..., None, :]) @ np.swapaxes(vectors, -1, -2)


def _eigh_complex(m: Any, a: Any) -> Any:
    values, vectors = m.linalg.eigh(a + a.mH, UPLO="U")
    return (vectors * values.unsqueeze(-2) ** 3) @ vectors.mH


def _np_eigh_complex(m: Any, a: Any) -> Any:
    values, vectors = np.linalg.eigh(a + np.swapaxes(a, -1, -2).conj(), UPLO="U")
    return (vectors * values[..., None, :] ** 3) @ np.swapaxes(vectors, -1, -2).conj()


def _eig_fn(m: Any, a: Any) -> Any:
    """``V diag(L²) V⁻¹`` (that is ``A²``): independent of the order and phases of the eigenpairs."""
    values, vectors = m.linalg.eig(a)
    return m.linalg.solve(vectors, vectors * values.unsqueeze(-2) ** 2, left=False)


def _np_eig_fn(m: Any, a: Any) -> Any:
    return (a @ a).astype(complex)


def _spd(m: Any, a: Any) -> Any:
    return a + a.mT


def _np_spd(a: Any) -> Any:
    return a + np.swapaxes(a, -1, -2)


def _np_lu_solve(m: Any, a: Any, b: Any) -> Any:
    return np.linalg.solve(a, b)


_TORCH_COND = "torch 2.13: cond(p='fro') modifies its inverse in place, and backward fails"
_TORCH_TRIANGLE_JVP = (
    "torch's forward AD of cholesky_inverse and triangular_solve uses the whole tangent of the factor, not its "
    "triangle; ours matches central differences"
)

CASES = [
    Case("svd-polar", _polar, _wc((3, 3)), ref=_np_polar),
    Case("svd-mix-tall", _svd_mix, any_((4, 3)), ref=_np_svd_mix),
    Case("svd-mix-wide-batched", _svd_mix, any_((2, 2, 4)), ref=_np_svd_mix),
    Case("svd-polar-complex", _polar, [((3, 3), "complex:any")], ref=_np_polar),
    Case("svd-S", lambda m, a: m.linalg.svd(a)[1], any_((4, 3)), ref=lambda m, a: np.linalg.svd(a)[1]),
    Case(
        "svd-full-U-projector",
        lambda m, a: m.linalg.svd(a)[0][..., :2] @ m.linalg.svd(a)[0][..., :2].mT,
        any_((4, 2)),
        ref=lambda m, a: (lambda u: u @ u.T)(np.linalg.svd(a)[0][:, :2]),
    ),
    Case("svdvals", lambda m, a: m.linalg.svdvals(a), any_((2, 3, 5)), ref=lambda m, a: np.linalg.svd(a)[1]),
    Case(
        "svd-legacy-V",
        lambda m, a: (lambda r: r.U @ r.V.mT)(m.svd(a)) if m is not np else None,
        any_((4, 3)),
        ref=_np_polar,
    ),
    Case("eigh", _eigh_fn, any_((3, 3)), ref=_np_eigh_fn),
    Case("eigh-batched", _eigh_fn, any_((2, 4, 4)), ref=_np_eigh_fn),
    Case("eigh-complex-upper", _eigh_complex, [((3, 3), "complex:any")], ref=_np_eigh_complex),
    Case(
        "eigvalsh",
        lambda m, a: m.linalg.eigvalsh(a + a.mT),
        any_((2, 3, 3)),
        ref=lambda m, a: np.linalg.eigvalsh(_np_spd(a)),
    ),
    Case("eig-matrix-function", _eig_fn, any_((3, 3)), ref=_np_eig_fn),
    Case("eig-matrix-function-complex-batched", _eig_fn, [((2, 3, 3), "complex:any")], ref=_np_eig_fn),
    Case(
        "eig-abs-vectors",
        lambda m, a: m.linalg.eig(a)[1].abs().sum(-2),
        any_((3, 3)),
        ref=lambda m, a: np.abs(np.linalg.eig(a)[1]).sum(-2),
    ),
    Case(
        "eigvals-power-sum",
        lambda m, a: (m.linalg.eigvals(a) ** 3).sum(-1),
        any_((2, 3, 3)),
        ref=lambda m, a: (np.linalg.eigvals(a).astype(complex) ** 3).sum(-1),
    ),
    Case(
        "eigvals-complex",
        lambda m, a: m.linalg.eigvals(a).abs().sum(),
        [((3, 3), "complex:any")],
        ref=lambda m, a: np.abs(np.linalg.eigvals(a)).sum(),
    ),
    Case("qr-Q", lambda m, a: m.linalg.qr(a)[0], any_((4, 3)), ref=lambda m, a: np.linalg.qr(a)[0]),
    Case("qr-R", lambda m, a: m.linalg.qr(a)[1], any_((2, 4, 3)), ref=lambda m, a: np.linalg.qr(a)[1]),
    Case(
        "qr-wide",
        lambda m, a: m.linalg.qr(a)[0] * 2 + m.linalg.qr(a)[1].sum(-1, keepdim=True),
        any_((3, 5)),
        ref=lambda m, a: np.linalg.qr(a)[0] * 2 + np.linalg.qr(a)[1].sum(-1, keepdims=True),
    ),
    Case(
        "qr-complete-square",
        lambda m, a: m.linalg.qr(a, mode="complete")[0],
        any_((3, 3)),
        ref=lambda m, a: np.linalg.qr(a, mode="complete")[0],
    ),
    Case("qr-complex", lambda m, a: m.linalg.qr(a)[1], [((4, 3), "complex:any")], ref=lambda m, a: np.linalg.qr(a)[1]),
    Case(
        "cholesky",
        lambda m, a: m.linalg.cholesky(_spd(m, a)),
        _wc((3, 3)),
        ref=lambda m, a: np.linalg.cholesky(_np_spd(a)),
    ),
    Case(
        "cholesky-upper-batched",
        lambda m, a: m.linalg.cholesky(_spd(m, a), upper=True),
        _wc((2, 3, 3)),
        ref=lambda m, a: np.swapaxes(np.linalg.cholesky(_np_spd(a)), -1, -2),
    ),
    Case(
        "cholesky-complex",
        lambda m, a: m.linalg.cholesky(a + a.mH),
        [((3, 3), "complex:wellcond")],
        ref=lambda m, a: np.linalg.cholesky(a + a.conj().T),
    ),
    Case(
        "cholesky-inverse",
        lambda m, a: m.cholesky_inverse(m.linalg.cholesky(_spd(m, a))),
        _wc((3, 3)),
        ref=lambda m, a: np.linalg.inv(_np_spd(a)),
        bugs={"jvp": _TORCH_TRIANGLE_JVP},
    ),
    Case(
        "cholesky-solve",
        lambda m, a, b: m.cholesky_solve(b, m.linalg.cholesky(_spd(m, a))),
        [((3, 3), "wellcond"), ((3, 2), "any")],
        ref=lambda m, a, b: np.linalg.solve(_np_spd(a), b),
    ),
    Case(
        "solve-triangular-upper",
        lambda m, a, b: m.linalg.solve_triangular(a, b, upper=True),
        [((3, 3), "wellcond"), ((3, 2), "any")],
        ref=lambda m, a, b: np.linalg.solve(np.triu(a), b),
    ),
    Case(
        "solve-triangular-lower-right-unit",
        lambda m, a, b: m.linalg.solve_triangular(a, b, upper=False, left=False, unitriangular=True),
        [((2, 3, 3), "wellcond"), ((4, 3), "any")],
        ref=lambda m, a, b: b @ np.linalg.inv(np.tril(a, -1) + np.eye(3)),
    ),
    Case(
        "triangular-solve-transpose",
        lambda m, a, b: m.triangular_solve(b, a, transpose=True)[0],
        [((3, 3), "wellcond"), ((3, 2), "any")],
        ref=lambda m, a, b: np.linalg.solve(np.triu(a).T, b),
        bugs={"jvp": _TORCH_TRIANGLE_JVP},
    ),
    Case(
        "lu-factor-solve",
        lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(a), b),
        [((3, 3), "any"), ((3, 2), "any")],
        ref=_np_lu_solve,
    ),
    Case(
        "lu-solve-adjoint-right",
        lambda m, a, b: m.linalg.lu_solve(*m.linalg.lu_factor(a), b, left=False, adjoint=True),
        [((2, 3, 3), "any"), ((2, 2, 3), "any")],
        ref=lambda m, a, b: b @ np.linalg.inv(np.swapaxes(a, -1, -2)),
    ),
    Case("lu-factor-wide", lambda m, a: m.linalg.lu_factor(a)[0], any_((2, 3, 5)), ref=lambda m, a: _np_lu_packed(a)),
    Case("lu-factor-tall", lambda m, a: m.linalg.lu_factor(a)[0], any_((5, 3)), ref=lambda m, a: _np_lu_packed(a)),
    Case("lu-factor-square", lambda m, a: m.linalg.lu_factor(a)[0], any_((4, 4)), ref=lambda m, a: _np_lu_packed(a)),
    Case(
        "lu-factor-complex-wide",
        lambda m, a: m.linalg.lu_factor(a)[0],
        [((3, 4), "complex:any")],
        ref=lambda m, a: _np_lu_packed(a),
    ),
    Case(
        "lu-PLU", lambda m, a: (lambda p, lo, up: p @ (lo @ up))(*m.linalg.lu(a)), any_((2, 4, 4)), ref=lambda m, a: a
    ),
    Case(
        "lu-L-times-U",
        lambda m, a: (lambda p, lo, up: lo * 2 + up * up)(*m.linalg.lu(a)),
        any_((4, 4)),
        ref=lambda m, a: (lambda p, lo, up: lo * 2 + up * up)(*_np_lu(a)),
    ),
    Case(
        "lu-legacy-solve", lambda m, a, b: m.lu_solve(b, *m.lu(a)), [((3, 3), "any"), ((3, 1), "any")], ref=_np_lu_solve
    ),
    Case(
        "slogdet-logabsdet",
        lambda m, a: m.linalg.slogdet(a)[1],
        any_((2, 3, 3)),
        ref=lambda m, a: np.linalg.slogdet(a)[1],
    ),
    Case(
        "slogdet-complex",
        lambda m, a: (lambda sign, log: sign * log)(*m.linalg.slogdet(a)),
        [((3, 3), "complex:any")],
        ref=lambda m, a: (lambda sign, log: sign * log)(*np.linalg.slogdet(a)),
    ),
    Case("pinv-tall", lambda m, a: m.linalg.pinv(a), any_((4, 3)), ref=lambda m, a: np.linalg.pinv(a)),
    Case("pinv-wide-batched", lambda m, a: m.linalg.pinv(a), any_((2, 2, 3)), ref=lambda m, a: np.linalg.pinv(a)),
    Case(
        "pinv-hermitian",
        lambda m, a: m.linalg.pinv(_spd(m, a), hermitian=True),
        any_((3, 3)),
        ref=lambda m, a: np.linalg.pinv(_np_spd(a)),
    ),
    Case("pinverse", lambda m, a: m.pinverse(a), any_((3, 2)), ref=lambda m, a: np.linalg.pinv(a)),
    Case(
        "lstsq",
        lambda m, a, b: m.linalg.lstsq(a, b).solution,
        any_((5, 3), (5, 2)),
        ref=lambda m, a, b: np.linalg.lstsq(a, b, rcond=None)[0],
    ),
    Case(
        "matrix-norm-nuc",
        lambda m, a: m.linalg.matrix_norm(a, "nuc"),
        any_((2, 4, 3)),
        ref=lambda m, a: np.linalg.norm(a, "nuc", axis=(-2, -1)),
    ),
    Case("matrix-norm-2", lambda m, a: m.linalg.matrix_norm(a, 2), any_((3, 4)), ref=lambda m, a: np.linalg.norm(a, 2)),
    Case("norm-minus-2", lambda m, a: m.linalg.norm(a, -2), any_((3, 3)), ref=lambda m, a: np.linalg.norm(a, -2)),
    Case("cond", lambda m, a: m.linalg.cond(a), any_((3, 3)), ref=lambda m, a: np.linalg.cond(a)),
    Case(
        "cond-fro",
        lambda m, a: m.linalg.cond(a, "fro"),
        _wc((3, 3)),
        ref=lambda m, a: np.linalg.cond(a, "fro"),
        bugs={"torch": _TORCH_COND, "float32": _TORCH_COND},
    ),
    Case(
        "multi-dot",
        lambda m, a, b, c: m.linalg.multi_dot([a, b, c]),
        any_((3,), (3, 4), (4, 2)),
        ref=lambda m, a, b, c: np.linalg.multi_dot([a, b, c]),
    ),
    Case("vecdot", lambda m, a, b: m.linalg.vecdot(a, b), any_((2, 3), (3,)), ref=lambda m, a, b: np.sum(a * b, -1)),
    Case(
        "vecdot-complex",
        lambda m, a, b: m.linalg.vecdot(a, b, dim=0),
        [((3,), "complex:any")] * 2,
        ref=lambda m, a, b: np.sum(a.conj() * b, 0),
    ),
    Case(
        "linalg-diagonal",
        lambda m, a: m.linalg.diagonal(a, offset=1),
        any_((2, 3, 4)),
        ref=lambda m, a: np.diagonal(a, 1, -2, -1),
    ),
    Case(
        "vander",
        lambda m, a: m.linalg.vander(a),
        any_((2, 3)),
        ref=lambda m, a: np.vander(a.reshape(-1), 3, increasing=True).reshape(2, 3, 3),
    ),
    Case(
        "vander-N", lambda m, a: m.linalg.vander(a, N=5), any_((3,)), ref=lambda m, a: np.vander(a, 5, increasing=True)
    ),
    Case(
        "tensorinv",
        lambda m, a: m.linalg.tensorinv(a.reshape(2, 3, 6), ind=2),
        _wc((6, 6)),
        ref=lambda m, a: np.linalg.tensorinv(a.reshape(2, 3, 6), ind=2),
    ),
    Case(
        "tensorsolve",
        lambda m, a, b: m.linalg.tensorsolve(a.reshape(6, 2, 3), b),
        [((6, 6), "wellcond"), ((6,), "any")],
        ref=lambda m, a, b: np.linalg.tensorsolve(a.reshape(6, 2, 3), b),
    ),
    Case(
        "tensorsolve-dims",
        lambda m, a, b: m.linalg.tensorsolve(a.reshape(3, 6, 2), b, dims=(0,)),
        [((6, 6), "wellcond"), ((6,), "any")],
        ref=lambda m, a, b: np.linalg.tensorsolve(a.reshape(3, 6, 2), b, axes=(0,)),
    ),
    Case(
        "linalg-cross", lambda m, a, b: m.linalg.cross(a, b), any_((2, 3), (1, 3)), ref=lambda m, a, b: np.cross(a, b)
    ),
    Case(
        "linalg-matrix-power",
        lambda m, a: m.linalg.matrix_power(a, 3),
        any_((3, 3)),
        ref=lambda m, a: np.linalg.matrix_power(a, 3),
    ),
]


def _np_lu(a: Any) -> tuple[Any, Any, Any]:
    """LU with partial pivoting, written out (NumPy has none): the reference of lu-L-times-U."""
    n = a.shape[0]
    u, perm, lower = a.astype(float).copy(), np.arange(n), np.eye(n)
    for k in range(n):
        p = k + int(np.argmax(np.abs(u[k:, k])))
        u[[k, p]], perm[[k, p]], lower[[k, p], :k] = u[[p, k]], perm[[p, k]], lower[[p, k], :k]
        lower[k + 1 :, k] = u[k + 1 :, k] / u[k, k]
        u[k + 1 :] -= np.outer(lower[k + 1 :, k], u[k])
    return np.eye(n)[:, perm].T.T[perm].T, lower, np.triu(u)


def _np_lu_packed(a: Any) -> Any:
    """``LU`` packed as LAPACK's ``getrf`` (partial pivoting by ``|Re| + |Im|``), written out
    one matrix at a time: the reference of the lu-factor cases."""
    if a.ndim > 2:
        return np.stack([_np_lu_packed(x) for x in a])
    lu = a.copy()
    m, n = lu.shape
    for k in range(min(m, n)):
        p = k + int(np.argmax(np.abs(lu[k:, k].real) + np.abs(lu[k:, k].imag)))
        lu[[k, p]] = lu[[p, k]]
        lu[k + 1 :, k] /= lu[k, k]
        lu[k + 1 :, k + 1 :] -= np.outer(lu[k + 1 :, k], lu[k, k + 1 :])
    return lu


class TestLinalgDecompositions(OpFamilyTests):
    cases = CASES
    double_cases = [
        c for c in CASES if "complex" not in c.id and not c.id.startswith(("cond", "matrix-norm-2", "linalg-diagonal"))
    ]


# --------------------------------------------------------------------------- plain tests
def _t(m: Any, a: Any, dtype: str = "float64", requires_grad: bool = False) -> Any:
    return m.tensor(np.asarray(a), dtype=getattr(m, dtype), requires_grad=requires_grad)


def _outcome(fn: Callable[[Any], Any], m: Any) -> BaseException:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fn(m)
        except Exception as exc:
            return exc
    raise AssertionError("no exception")


_SQ = np.arange(9.0).reshape(3, 3)
_NOT_PD = np.diag([1.0, -1.0, 2.0])
_E = np.eye(3) * 2
_SINGULAR = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])

ERRORS = [
    pytest.param(lambda m: m.linalg.svd(_t(m, [1.0, 2.0])), id="svd-1d"),
    pytest.param(lambda m: m.linalg.svd(_t(m, _SQ, "int64")), id="svd-int"),
    pytest.param(lambda m: m.linalg.svdvals(_t(m, [1.0, 2.0])), id="svdvals-1d"),
    pytest.param(lambda m: m.linalg.eigh(_t(m, np.ones((2, 3)))), id="eigh-not-square"),
    pytest.param(lambda m: m.linalg.eigh(_t(m, _SQ), UPLO="X"), id="eigh-uplo"),
    pytest.param(lambda m: m.linalg.eigh(_t(m, _SQ, "int64")), id="eigh-int"),
    pytest.param(lambda m: m.linalg.eig(_t(m, np.ones((2, 3)))), id="eig-not-square"),
    pytest.param(lambda m: m.linalg.eigvals(_t(m, np.ones((2, 3)))), id="eigvals-not-square"),
    pytest.param(lambda m: m.linalg.eig(_t(m, [1.0, 2.0])), id="eig-1d"),
    pytest.param(lambda m: m.linalg.eig(_t(m, _SQ, "int64")), id="eig-int"),
    # (torch's eigvals of a NaN matrix crashes the process: only eig is compared)
    pytest.param(lambda m: m.linalg.eig(_t(m, [[np.nan, 1.0], [1.0, 1.0]])), id="eig-nan"),
    pytest.param(lambda m: m.linalg.qr(_t(m, _SQ), mode="x"), id="qr-mode"),
    pytest.param(lambda m: m.linalg.qr(_t(m, [1.0])), id="qr-1d"),
    pytest.param(lambda m: m.linalg.cholesky(_t(m, np.ones((2, 3)))), id="cholesky-not-square"),
    pytest.param(lambda m: m.linalg.cholesky(_t(m, _SQ, "int64")), id="cholesky-int"),
    pytest.param(lambda m: m.linalg.cholesky(_t(m, _NOT_PD)), id="cholesky-not-pd"),
    pytest.param(lambda m: m.linalg.cholesky(_t(m, np.stack([np.eye(3), _NOT_PD]))), id="cholesky-not-pd-batch"),
    pytest.param(lambda m: m.linalg.cholesky_ex(_t(m, _NOT_PD), check_errors=True), id="cholesky-ex-check"),
    pytest.param(lambda m: m.linalg.inv_ex(_t(m, _SINGULAR), check_errors=True), id="inv-ex-check"),
    pytest.param(lambda m: m.linalg.inv_ex(_t(m, np.ones((2, 3)))), id="inv-ex-not-square"),
    pytest.param(lambda m: m.linalg.solve_ex(_t(m, _SINGULAR), _t(m, [1.0, 2, 3]), check_errors=True), id="solve-ex"),
    pytest.param(lambda m: m.linalg.lu_factor(_t(m, _SINGULAR)), id="lu-factor-singular"),
    pytest.param(lambda m: m.linalg.lu_factor(_t(m, np.zeros((2, 3, 3)))), id="lu-factor-singular-batch"),
    pytest.param(lambda m: m.linalg.lu_factor_ex(_t(m, _SINGULAR), check_errors=True), id="lu-factor-ex-check"),
    pytest.param(lambda m: m.linalg.solve_triangular(_t(m, _SQ), _t(m, np.ones((2, 2))), upper=True), id="st-shapes"),
    pytest.param(lambda m: m.linalg.solve_triangular(_t(m, _SQ), _t(m, [1.0, 2, 3]), upper=True), id="st-1d-b"),
    pytest.param(lambda m: m.linalg.slogdet(_t(m, np.ones((2, 3)))), id="slogdet-not-square"),
    pytest.param(lambda m: m.linalg.pinv(_t(m, [1.0, 2.0])), id="pinv-1d"),
    pytest.param(lambda m: m.linalg.lstsq(_t(m, _SQ), _t(m, np.ones((4, 2)))), id="lstsq-rows"),
    pytest.param(lambda m: m.linalg.lstsq(_t(m, _SQ), _t(m, np.ones((3, 2)), "float32")), id="lstsq-dtypes"),
    pytest.param(lambda m: m.linalg.multi_dot([_t(m, _SQ)]), id="multi-dot-one"),
    pytest.param(lambda m: m.linalg.multi_dot([_t(m, np.ones((2, 2, 3))), _t(m, _SQ)]), id="multi-dot-3d"),
    pytest.param(lambda m: m.linalg.multi_dot([_t(m, np.ones((2, 3))), _t(m, np.ones((2, 3)))]), id="multi-dot-shapes"),
    pytest.param(lambda m: m.linalg.multi_dot([_t(m, _SQ), _t(m, _SQ, "float32")]), id="multi-dot-dtypes"),
    pytest.param(lambda m: m.linalg.vecdot(_t(m, [1.0]), _t(m, [1.0], "float32")), id="vecdot-dtypes"),
    pytest.param(lambda m: m.linalg.matrix_rank(_t(m, [1.0, 2.0])), id="matrix-rank-1d"),
    pytest.param(lambda m: m.linalg.cond(_t(m, np.ones((2, 3))), "fro"), id="cond-not-square"),
    pytest.param(lambda m: m.geqrf(_t(m, [1.0, 2.0])), id="geqrf-1d"),
    pytest.param(lambda m: m.linalg.tensorinv(_t(m, np.zeros((2, 3, 6))), ind=2), id="tensorinv-singular"),
    pytest.param(lambda m: m.linalg.tensorinv(_t(m, np.zeros((4, 6, 8, 3))), ind=0), id="tensorinv-ind"),
    pytest.param(lambda m: m.linalg.tensorinv(_t(m, np.zeros((2, 3, 4)))), id="tensorinv-sizes"),
    pytest.param(lambda m: m.linalg.tensorsolve(_t(m, np.ones((2, 3, 6))), _t(m, np.ones(4))), id="tensorsolve-sizes"),
    pytest.param(lambda m: m.linalg.vander(_t(m, 1.0)), id="vander-0d"),
    pytest.param(lambda m: m.linalg.vander(_t(m, [1.0, 2.0]), N=1), id="vander-N"),
    pytest.param(lambda m: m.linalg.householder_product(_t(m, [1.0]), _t(m, [1.0])), id="householder-1d"),
    pytest.param(lambda m: m.linalg.householder_product(_t(m, np.ones((2, 3))), _t(m, [1.0])), id="householder-wide"),
    pytest.param(
        lambda m: m.linalg.householder_product(_t(m, np.ones((3, 2))), _t(m, [1.0] * 3)), id="householder-tau"
    ),
    pytest.param(lambda m: m.ormqr(_t(m, np.ones((4, 3))), _t(m, [1.0] * 3), _t(m, np.ones((3, 2)))), id="ormqr-shape"),
    pytest.param(lambda m: m.linalg.svd(_t(m, _SQ), driver="gesvd"), id="svd-driver"),
    pytest.param(
        lambda m: m.linalg.lu_solve(*m.linalg.lu_factor(m.tensor(_E)), m.ones(2, 2, dtype=m.float64)),
        id="lu-solve-rows",
    ),
    pytest.param(
        lambda m: m.linalg.lu_solve(*m.linalg.lu_factor(m.tensor(_E)), m.ones(3, dtype=m.float64)), id="lu-solve-1d"
    ),
    pytest.param(lambda m: m.linalg.lu_solve(*m.linalg.lu_factor(m.tensor(_E)), m.ones(3, 1)), id="lu-solve-dtype"),
    pytest.param(
        lambda m: m.linalg.lu_solve(
            *m.linalg.lu_factor(m.tensor(np.stack([_E, _E]))), m.ones(3, 3, 1, dtype=m.float64)
        ),
        id="lu-solve-batch",
    ),
    pytest.param(lambda m: m.cholesky_solve(m.ones(2, 2, dtype=m.float64), m.tensor(_E)), id="chol-solve-rows"),
    pytest.param(lambda m: m.cholesky_solve(m.ones(3, 2), m.tensor(_E)), id="chol-solve-dtype"),
    pytest.param(lambda m: m.cholesky_solve(m.ones(3, dtype=m.float64), m.tensor(_E)), id="chol-solve-1d"),
    pytest.param(lambda m: m.triangular_solve(m.ones(3, dtype=m.float64), m.tensor(_E)), id="tri-solve-1d"),
    pytest.param(lambda m: m.lu_unpack(m.ones(3), m.ones(3, dtype=m.int32)), id="lu-unpack-1d"),
    pytest.param(lambda m: m.lu_unpack(m.ones(3, 3), m.ones(3, dtype=m.int64)), id="lu-unpack-piv-dtype"),
    pytest.param(
        lambda m: m.linalg.lstsq(
            m.ones(2, 4, 3, dtype=m.float64) + m.eye(4, 3, dtype=m.float64), m.ones(4, 2, dtype=m.float64)
        ),
        id="lstsq-bcast",
    ),
    pytest.param(lambda m: m.linalg.cross(m.ones(2, 4), m.ones(2, 4)), id="cross-bad"),
    pytest.param(lambda m: m.svd(m.ones(3)), id="svd-some-vec"),
    pytest.param(lambda m: m.qr(m.ones(3)), id="qr-legacy-1d"),
    pytest.param(lambda m: m.slogdet(m.ones(3)), id="slogdet-1d"),
    pytest.param(lambda m: m.linalg.cond(m.tensor(_E), "bad"), id="cond-str"),
    pytest.param(lambda m: m.linalg.cond(m.tensor(_E), 3), id="cond-3"),
    pytest.param(lambda m: m.linalg.cond(m.ones(3)), id="cond-1d"),
    pytest.param(lambda m: m.linalg.cond(m.ones(3, 3, dtype=m.int64)), id="cond-int"),
    pytest.param(lambda m: m.linalg.svd(_t(m, _SQ, "float16")), id="svd-half"),
    pytest.param(lambda m: m.linalg.eigh(_t(m, _SQ, "float16")), id="eigh-half"),
    pytest.param(lambda m: m.linalg.eig(_t(m, _SQ, "float16")), id="eig-half"),
    pytest.param(lambda m: m.linalg.qr(_t(m, _SQ, "float16")), id="qr-half"),
    pytest.param(lambda m: m.geqrf(_t(m, _SQ, "float16")), id="geqrf-half"),
    pytest.param(lambda m: m.linalg.cholesky(_t(m, np.eye(3), "float16")), id="cholesky-half"),
    pytest.param(lambda m: m.linalg.lu_factor(_t(m, _SQ, "float16")), id="lu-factor-half"),
    pytest.param(lambda m: m.linalg.slogdet(_t(m, _SQ, "float16")), id="slogdet-half"),
    pytest.param(lambda m: m.linalg.pinv(_t(m, _SQ, "float16")), id="pinv-half"),
    pytest.param(lambda m: m.linalg.inv_ex(_t(m, _SQ, "float16")), id="inv-ex-half"),
    pytest.param(lambda m: m.linalg.lstsq(_t(m, _SQ, "float16"), _t(m, _SQ, "float16")), id="lstsq-half"),
    pytest.param(lambda m: m.linalg.matrix_rank(_t(m, _SQ, "float16")), id="matrix-rank-half"),
    pytest.param(
        lambda m: m.linalg.solve_triangular(_t(m, _SQ, "float16"), _t(m, _SQ, "float16"), upper=True), id="st-half"
    ),
    pytest.param(
        lambda m: m.linalg.solve_triangular(_t(m, _SQ, "int64"), _t(m, _SQ, "int64"), upper=True), id="st-int"
    ),
    pytest.param(lambda m: m.linalg.lu_factor(_t(m, _SQ, "int64")), id="lu-factor-int"),
    pytest.param(lambda m: m.linalg.lu_factor(_t(m, [1.0])), id="lu-factor-1d"),
    pytest.param(lambda m: m.linalg.lu_factor(_t(m, _SQ), pivot=False), id="lu-factor-no-pivot"),
    pytest.param(lambda m: m.linalg.matrix_rank(_t(m, _SQ, "int64")), id="matrix-rank-int"),
    pytest.param(lambda m: m.linalg.pinv(_t(m, _SQ, "int64")), id="pinv-int"),
    pytest.param(lambda m: m.linalg.qr(_t(m, _SQ, "int64")), id="qr-int"),
    pytest.param(lambda m: m.linalg.slogdet(_t(m, _SQ, "int64")), id="slogdet-int"),
    pytest.param(lambda m: m.cholesky_inverse(_t(m, [1.0])), id="cholesky-inverse-1d"),
    pytest.param(lambda m: m.linalg.inv_ex(_t(m, np.zeros((2, 3, 3))), check_errors=True), id="inv-ex-batch"),
    pytest.param(
        lambda m: m.linalg.solve_ex(_t(m, np.zeros((2, 3, 3))), _t(m, [1.0, 2, 3]), check_errors=True),
        id="solve-ex-batch",
    ),
    pytest.param(
        lambda m: m.linalg.cholesky_ex(_t(m, -np.stack([np.eye(3)] * 2)), check_errors=True), id="cholesky-ex-batch"
    ),
]


@pytest.mark.parametrize("fn", ERRORS)
def test_errors_match_torch(torch: Any, fn: Callable[[Any], Any]) -> None:
    t_exc, c_exc = _outcome(fn, torch), _outcome(fn, ctxgrad)
    if isinstance(t_exc, torch.linalg.LinAlgError):
        assert isinstance(c_exc, ctxgrad.linalg.LinAlgError), repr(c_exc)
    else:
        assert type(c_exc) is type(t_exc), (repr(c_exc), repr(t_exc))
    assert str(c_exc) == str(t_exc)


def _same_tuple(c: Any, t: Any) -> None:
    """The same kind of tuple, field names and values (singular vectors up to their sign)."""
    assert type(c).__name__ == type(t).__name__
    assert getattr(type(c), "__match_args__", None) == getattr(type(t), "__match_args__", None)
    assert len(c) == len(t)
    svd = type(c).__name__ in ("svd", "linalg_svd", "linalg_eig")
    for ci, ti in zip(c, t):
        if svd:
            ci, ti = ci.abs(), ti.abs()
        single = str(ti.dtype) in ("torch.float32", "torch.complex64")
        assert_same(ci, ti, rtol=1e-5 if single else 1e-9, atol=1e-6 if single else 1e-12)


NAMED = [
    pytest.param(lambda m, a: m.linalg.svd(a), id="linalg-svd"),
    pytest.param(lambda m, a: m.linalg.svd(a[:, :2], full_matrices=False), id="linalg-svd-reduced"),
    pytest.param(lambda m, a: m.svd(a[:2]), id="svd"),
    pytest.param(lambda m, a: m.svd(a[:2], some=False), id="svd-some-false"),
    pytest.param(lambda m, a: m.svd(a, compute_uv=False), id="svd-no-uv"),
    pytest.param(lambda m, a: a.svd(), id="svd-method"),
    pytest.param(lambda m, a: m.linalg.eigh(a @ a.mT), id="eigh"),
    pytest.param(lambda m, a: m.linalg.eig(a), id="eig"),
    pytest.param(lambda m, a: (m.linalg.eigvals(a.float()),), id="eigvals-float32"),
    pytest.param(lambda m, a: m.linalg.qr(a[:, :2], mode="complete"), id="qr-complete"),
    pytest.param(lambda m, a: m.linalg.qr(a[:2], mode="r"), id="qr-r"),
    pytest.param(lambda m, a: m.qr(a[:, :2], some=False), id="qr-legacy"),
    pytest.param(lambda m, a: m.linalg.cholesky_ex(m.tensor(_NOT_PD)), id="cholesky-ex-info"),
    pytest.param(
        lambda m, a: m.linalg.cholesky_ex(m.tensor(np.array([[[4.0, 2, 0], [2, -3, 0], [0, 0, 2]], np.eye(3)]))),
        id="cholesky-ex-info-batch",
    ),
    pytest.param(lambda m, a: m.linalg.cholesky_ex(m.tensor(_NOT_PD), upper=True), id="cholesky-ex-info-upper"),
    pytest.param(
        lambda m, a: (m.linalg.solve_triangular(a, a[:, :1].float(), upper=True),),
        id="solve-triangular-computes-in-A-dtype",
    ),
    pytest.param(lambda m, a: m.linalg.cholesky_ex(a @ a.mT + 1, upper=True), id="cholesky-ex"),
    pytest.param(lambda m, a: m.linalg.slogdet(a), id="linalg-slogdet"),
    pytest.param(lambda m, a: m.slogdet(-a), id="slogdet"),
    pytest.param(lambda m, a: a.slogdet(), id="slogdet-method"),
    pytest.param(lambda m, a: m.linalg.inv_ex(a), id="inv-ex"),
    pytest.param(lambda m, a: m.linalg.inv_ex(m.tensor(_SINGULAR)), id="inv-ex-singular"),
    pytest.param(lambda m, a: m.linalg.solve_ex(a, a[0]), id="solve-ex"),
    pytest.param(lambda m, a: m.linalg.solve_ex(m.zeros(2, 3, 3, dtype=m.float64), a[0]), id="solve-ex-singular"),
    pytest.param(lambda m, a: m.linalg.lu_factor(a), id="lu-factor"),
    pytest.param(lambda m, a: m.linalg.lu_factor_ex(m.tensor(_SINGULAR)), id="lu-factor-ex-singular"),
    pytest.param(lambda m, a: m.linalg.lu_factor_ex(m.stack([a, a.mT, -a])), id="lu-factor-ex-batched"),
    pytest.param(lambda m, a: m.linalg.lu_factor_ex(m.zeros(3, 3, dtype=m.float64)), id="lu-factor-ex-zeros"),
    pytest.param(lambda m, a: m.linalg.lu_factor_ex(a[:2]), id="lu-factor-ex-wide"),
    pytest.param(lambda m, a: m.linalg.lu_factor_ex(a[:, :2]), id="lu-factor-ex-tall"),
    pytest.param(lambda m, a: m.linalg.lu(a), id="linalg-lu"),
    pytest.param(lambda m, a: m.linalg.lu(a[:, :2]), id="linalg-lu-tall"),
    pytest.param(lambda m, a: m.linalg.lu(a[:2]), id="linalg-lu-wide"),
    pytest.param(lambda m, a: m.lu_unpack(*m.linalg.lu_factor(a)), id="lu-unpack"),
    pytest.param(lambda m, a: m.lu(a, get_infos=True), id="lu-infos"),
    pytest.param(lambda m, a: m.linalg.lstsq(a, a[:, :2]), id="lstsq"),
    pytest.param(lambda m, a: m.linalg.lstsq(m.cat([a, a]), a[0].repeat(2)), id="lstsq-vector"),
    pytest.param(lambda m, a: m.linalg.lstsq(m.tensor(_SINGULAR), a), id="lstsq-rank-deficient"),
    pytest.param(lambda m, a: m.triangular_solve(a, a + 3 * m.eye(3, dtype=m.float64)), id="triangular-solve"),
    pytest.param(lambda m, a: m.geqrf(a), id="geqrf"),
]


@pytest.mark.parametrize("fn", NAMED)
def test_named_tuples_match_torch(torch: Any, fn: Callable[[Any, Any], Any]) -> None:
    a = np.array([[2.0, -1.0, 0.5], [1.0, 3.0, -2.0], [0.0, 1.0, 4.0]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c, t = fn(ctxgrad, ctxgrad.tensor(a)), fn(torch, torch.tensor(a))
    _same_tuple(c, t)


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
def test_dtypes_match_torch(torch: Any, dtype: str) -> None:
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 3)) + (1j * rng.standard_normal((3, 3)) if dtype.startswith("complex") else 0)
    h = a @ a.conj().T + np.eye(3)
    for fn in (
        lambda m, x, h: m.linalg.svd(x),
        lambda m, x, h: m.linalg.eigh(h),
        lambda m, x, h: m.linalg.qr(x),
        lambda m, x, h: m.linalg.cholesky_ex(h),
        lambda m, x, h: m.linalg.slogdet(x),
        lambda m, x, h: m.linalg.lu_factor_ex(x),
        lambda m, x, h: (m.linalg.pinv(x), m.linalg.svdvals(x), m.linalg.matrix_rank(x), m.linalg.cond(x)),
    ):
        c = fn(ctxgrad, _t(ctxgrad, a, dtype), _t(ctxgrad, h, dtype))
        t = fn(torch, _t(torch, a, dtype), _t(torch, h, dtype))
        for ci, ti in zip(c, t):
            assert str(ci.dtype).split(".")[-1] == str(ti.dtype).split(".")[-1]
            assert tuple(ci.shape) == tuple(ti.shape)


def test_grad_fn_names_match_torch(torch: Any) -> None:
    a = np.array([[2.0, -1.0, 0.5], [1.0, 3.0, -2.0], [0.0, 1.0, 4.0]])
    for fn in (
        lambda m, x: m.linalg.svd(x)[0],
        lambda m, x: m.linalg.svdvals(x),
        lambda m, x: m.linalg.eigh(x)[1],
        lambda m, x: m.linalg.eigvalsh(x),
        lambda m, x: m.linalg.qr(x)[0],
        lambda m, x: m.linalg.cholesky(x @ x.mT),
        lambda m, x: m.linalg.solve_triangular(x, x, upper=False),
        lambda m, x: m.linalg.lu_factor(x)[0],
        lambda m, x: m.linalg.slogdet(x)[1],
        lambda m, x: m.linalg.pinv(x),
        lambda m, x: m.linalg.inv_ex(x)[0],
        lambda m, x: m.linalg.solve_ex(x, x)[0],
    ):
        c, t = fn(ctxgrad, _t(ctxgrad, a, requires_grad=True)), fn(torch, _t(torch, a, requires_grad=True))
        assert type(c.grad_fn).__name__ == type(t.grad_fn).__name__


def test_repeated_singular_values_as_torch(torch: Any) -> None:
    """torch's documented failure mode: the gradient through the singular vectors of a matrix
    with repeated singular values is not defined (nan); through the values alone it is."""
    for loss in (lambda m, x: m.linalg.svd(x)[0].sum(), lambda m, x: m.linalg.svdvals(x).sum()):
        grads = []
        for m in (ctxgrad, torch):
            x = m.eye(3, dtype=m.float64, requires_grad=True)
            loss(m, x).backward()
            grads.append(x.grad.numpy())
        np.testing.assert_allclose(grads[0], grads[1], equal_nan=True)
    assert np.isnan(grads[0]).sum() == 0  # the values: the identity
    assert np.isnan(grads[1]).sum() == 0


def test_repeated_eigenvalues_as_torch(torch: Any) -> None:
    grads = []
    for m in (ctxgrad, torch):
        x = m.eye(3, dtype=m.float64, requires_grad=True)
        values, vectors = m.linalg.eigh(x)
        (vectors.sum() + values.sum()).backward()
        grads.append(x.grad.numpy())
    assert np.isnan(grads[0]).any()
    np.testing.assert_allclose(grads[0], grads[1], equal_nan=True)


@pytest.mark.parametrize(
    "loss",
    [
        pytest.param(lambda m, a: m.linalg.svd(a)[0].real.sum(), id="svd-U"),
        pytest.param(lambda m, a: m.linalg.svd(a)[2].imag.sum(), id="svd-Vh"),
        pytest.param(lambda m, a: m.linalg.eigh(a @ a.mH)[1].real.sum(), id="eigh"),
        pytest.param(lambda m, a: m.linalg.eig(a)[1].real.sum(), id="eig"),
        pytest.param(lambda m, a: m.linalg.eig(a.real)[1].imag.sum(), id="eig-of-real"),
    ],
)
def test_complex_phase_dependent_loss_raises_as_torch(torch: Any, loss: Callable[[Any, Any], Any]) -> None:
    a = np.array([[1 + 2j, 0.5, -1j], [0.3j, 2.0, 1 + 1j], [1.0, -1 + 0.5j, 3.0]])
    messages = []
    for m in (ctxgrad, torch):
        x = m.tensor(a, requires_grad=True)
        with pytest.raises(RuntimeError) as info:
            loss(m, x).backward()
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_complex_phase_invariant_loss_does_not_raise(torch: Any) -> None:
    a = np.array([[1 + 2j, 0.5, -1j], [0.3j, 2.0, 1 + 1j], [1.0, -1 + 0.5j, 3.0]])
    grads = []
    for m in (ctxgrad, torch):
        x = m.tensor(a, requires_grad=True)
        u, s, vh = m.linalg.svd(x)
        ((u @ vh).abs().sum() + u.abs().sum() + s.sum()).backward()
        grads.append(x.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize(
    "loss",
    [
        pytest.param(lambda m, a: m.linalg.qr(a, mode="r")[1].sum(), id="qr-r"),
        pytest.param(lambda m, a: m.linalg.qr(a, mode="complete")[0].sum(), id="qr-complete-tall"),
    ],
)
def test_qr_backward_errors_match_torch(torch: Any, loss: Callable[[Any, Any], Any]) -> None:
    a = np.random.default_rng(1).standard_normal((4, 3))
    messages = []
    for m in (ctxgrad, torch):
        x = m.tensor(a, requires_grad=True)
        with pytest.raises(RuntimeError) as info:
            loss(m, x).backward()
        messages.append(str(info.value))
    assert messages[0] == messages[1]


def test_deprecated_names_warn_as_torch(torch: Any) -> None:
    a = np.array([[4.0, 1.0], [1.0, 3.0]])
    for fn in (lambda m, x: m.qr(x), lambda m, x: m.cholesky(x), lambda m, x: m.lu(x)):
        texts = []
        for m in (ctxgrad, torch):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                fn(m, m.tensor(a))
            texts.append([str(w.message).split(" (Triggered internally")[0] for w in caught])
        assert len(texts[0]) == 1
        if texts[1]:  # torch warns once per process: compare when this is the first time
            assert texts[0] == texts[1]


def test_householder_product_and_geqrf_match_torch(torch: Any) -> None:
    a = np.random.default_rng(2).standard_normal((2, 5, 3))
    t_a, t_tau = torch.geqrf(torch.tensor(a))
    c_a, c_tau = ctxgrad.geqrf(ctxgrad.tensor(a))
    assert_same(c_a, t_a, rtol=1e-9, atol=1e-12)
    assert_same(c_tau, t_tau, rtol=1e-9, atol=1e-12)
    grads = []
    for m, (h, tau) in ((ctxgrad, (c_a, c_tau)), (torch, (t_a, t_tau))):
        h = m.tensor(h.numpy(), requires_grad=True)
        q = m.linalg.householder_product(h, m.tensor(tau.numpy()))
        (q * q * m.tensor(np.arange(15.0).reshape(5, 3))).sum().backward()
        grads.append((q.detach().numpy(), h.grad.numpy()))
    np.testing.assert_allclose(grads[0][0], np.linalg.qr(a)[0], atol=1e-12)
    np.testing.assert_allclose(grads[0][1], grads[1][1], rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("shape", [(5, 3), (2, 4, 4)])
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("transpose", [True, False])
def test_orgqr_and_ormqr_match_torch(torch: Any, shape: tuple[int, ...], left: bool, transpose: bool) -> None:
    rng = np.random.default_rng(5)
    a = rng.standard_normal(shape)
    c = rng.standard_normal(shape[:-2] + ((shape[-2], 2) if left else (2, shape[-2])))
    h, tau = (x.numpy() for x in torch.geqrf(torch.tensor(a)))
    outs = []
    for m in (ctxgrad, torch):
        hh, cc = m.tensor(h, requires_grad=True), m.tensor(c, requires_grad=True)
        q = m.orgqr(hh, m.tensor(tau))
        out = m.ormqr(hh, m.tensor(tau), cc, left=left, transpose=transpose)
        ((out * out).sum() + (q * q * q).sum()).backward()
        outs.append((q.detach().numpy(), out.detach().numpy(), hh.grad.numpy(), cc.grad.numpy()))
    for x, y in zip(*outs):
        np.testing.assert_allclose(x, y, rtol=1e-9, atol=1e-12)


def test_matrix_rank_and_tolerances_match_torch(torch: Any) -> None:
    a = np.diag([1.0, 1e-3, 1e-9, 0.0])
    for kwargs in ({}, {"atol": 1e-4}, {"rtol": 1e-2}, {"atol": 1e-12, "rtol": 0.0}, {"hermitian": True}):
        c = ctxgrad.linalg.matrix_rank(ctxgrad.tensor(a), **kwargs)
        t = torch.linalg.matrix_rank(torch.tensor(a), **kwargs)
        assert_same(c, t)
        assert_same(ctxgrad.linalg.pinv(ctxgrad.tensor(a), **kwargs), torch.linalg.pinv(torch.tensor(a), **kwargs))


def test_lu_of_a_large_batch_matches_torch(torch: Any) -> None:
    a = np.random.default_rng(4).standard_normal((5, 2, 12, 12))
    c, t = ctxgrad.linalg.lu_factor_ex(ctxgrad.tensor(a)), torch.linalg.lu_factor_ex(torch.tensor(a))
    _same_tuple(c, t)


EMPTY = [
    pytest.param(lambda m: m.linalg.svd(m.ones(0, 3)), id="svd"),
    pytest.param(lambda m: m.linalg.svd(m.ones(2, 0, 3), full_matrices=False), id="svd-reduced"),
    pytest.param(lambda m: m.linalg.qr(m.ones(0, 3)), id="qr"),
    pytest.param(lambda m: m.linalg.qr(m.ones(3, 0), mode="complete"), id="qr-complete"),
    pytest.param(lambda m: m.linalg.eigh(m.ones(0, 0)), id="eigh"),
    pytest.param(lambda m: m.linalg.eig(m.ones(0, 0)), id="eig"),
    pytest.param(lambda m: (m.linalg.cholesky(m.ones(2, 0, 0)),), id="cholesky"),
    pytest.param(lambda m: m.linalg.lu_factor(m.ones(0, 0)), id="lu-factor"),
    pytest.param(lambda m: m.linalg.lu_factor_ex(m.ones(2, 0, 3)), id="lu-factor-ex"),
    pytest.param(lambda m: m.linalg.slogdet(m.ones(0, 0)), id="slogdet"),
    pytest.param(lambda m: (m.linalg.pinv(m.ones(0, 3)),), id="pinv"),
    pytest.param(lambda m: (m.linalg.solve_triangular(m.ones(0, 0), m.ones(0, 2), upper=True),), id="st"),
    pytest.param(lambda m: (m.linalg.matrix_rank(m.ones(0, 3)),), id="matrix-rank"),
    pytest.param(lambda m: m.linalg.lstsq(m.ones(0, 3), m.ones(0, 2)), id="lstsq"),
    pytest.param(lambda m: (m.linalg.cond(m.zeros(3, 3)), m.linalg.cond(m.zeros(2, 3, 3), 1)), id="cond-singular"),
    pytest.param(lambda m: m.lu_unpack(*m.linalg.lu_factor(m.eye(3) * 2), unpack_pivots=False), id="lu-unpack-no-p"),
    pytest.param(lambda m: m.lu_unpack(*m.linalg.lu_factor(m.eye(3) * 2), unpack_data=False), id="lu-unpack-no-lu"),
]


@pytest.mark.parametrize("fn", EMPTY)
def test_empty_and_edge_shapes_match_torch(torch: Any, fn: Callable[[Any], Any]) -> None:
    for c, t in zip(fn(ctxgrad), fn(torch)):
        assert_same(c, t)


COMPLEX_TOP_LEVEL = [
    pytest.param(lambda m, a, h: (lambda r: r.U @ r.V.mH)(m.svd(a)), id="svd"),
    pytest.param(lambda m, a, h: m.qr(a)[1], id="qr"),
    pytest.param(lambda m, a, h: m.cholesky(h), id="cholesky"),
    pytest.param(lambda m, a, h: m.cholesky_inverse(m.linalg.cholesky(h)), id="cholesky-inverse"),
    pytest.param(
        lambda m, a, h: m.cholesky_solve(a, m.linalg.cholesky(h, upper=True), upper=True), id="cholesky-solve"
    ),
    pytest.param(lambda m, a, h: m.lu(a)[0], id="lu"),
    pytest.param(lambda m, a, h: (lambda p, lo, up: p @ lo @ up)(*m.lu_unpack(*m.linalg.lu_factor(a))), id="lu-unpack"),
    pytest.param(lambda m, a, h: m.lu_solve(h, *m.linalg.lu_factor(a)), id="lu-solve"),
    pytest.param(lambda m, a, h: m.slogdet(a).logabsdet, id="slogdet"),
    pytest.param(lambda m, a, h: m.pinverse(a), id="pinverse"),
    pytest.param(lambda m, a, h: m.triangular_solve(h, a, upper=False, transpose=True).solution, id="triangular-solve"),
    # geqrf has no derivative: the packed reflectors get a's gradient through a - a.detach() (zero)
    pytest.param(lambda m, a, h: (lambda g: m.orgqr(g[0] + (a - a.detach()), g[1]))(m.geqrf(a.detach())), id="orgqr"),
    pytest.param(lambda m, a, h: m.ormqr(*m.geqrf(a.detach()), h, left=False, transpose=True), id="ormqr"),
]


@pytest.mark.parametrize("fn", COMPLEX_TOP_LEVEL)
def test_top_level_names_with_complex_inputs_match_torch(torch: Any, fn: Callable[..., Any]) -> None:
    rng = np.random.default_rng(7)
    a = rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3)) + 3 * np.eye(3)
    h = a @ a.conj().T
    w = rng.standard_normal((3, 3)) + 1j * rng.standard_normal((3, 3))
    results = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for m in (ctxgrad, torch):
            x, y = m.tensor(a, requires_grad=True), m.tensor(h, requires_grad=True)
            out = fn(m, x, y)
            (out * m.tensor(w)).sum().real.backward()
            grads = [t.grad.numpy() if t.grad is not None else None for t in (x, y)]
            results.append((out.detach().numpy(), grads))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-9, atol=1e-12)
    for cg, tg in zip(results[0][1], results[1][1]):
        assert (cg is None) == (tg is None)
        if tg is not None:
            np.testing.assert_allclose(cg, tg, rtol=1e-8, atol=1e-11)


def test_the_checked_factorizations_batch_and_name_the_failed_sample_as_torch_under_vmap() -> None:
    """linalg.cholesky and linalg.lu_factor check info under vmap too, naming the failed
    sample by its place in the batch, with torch's types and messages."""
    torch = pytest.importorskip("torch")
    good = np.stack([np.eye(2) * 2, np.eye(2) * 3])
    for op in ("cholesky", "lu_factor"):
        ours = ctxgrad.func.vmap(getattr(ctxgrad.linalg, op))(ctxgrad.tensor(good))
        theirs = torch.func.vmap(getattr(torch.linalg, op))(torch.tensor(good))
        first = ours if op == "cholesky" else ours[0]
        np.testing.assert_allclose(first.numpy(), (theirs if op == "cholesky" else theirs[0]).numpy())
    for op, bad in (("cholesky", np.stack([np.eye(2), -np.eye(2)])), ("lu_factor", np.zeros((2, 2, 2)))):
        raised = []
        for m in (ctxgrad, torch):
            with pytest.raises(RuntimeError) as info:
                m.func.vmap(getattr(m.linalg, op))(m.tensor(bad))
            raised.append((type(info.value).__name__.lstrip("_"), str(info.value)))
        assert raised[0] == raised[1]

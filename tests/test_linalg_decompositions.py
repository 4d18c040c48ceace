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

from typing import Any

import numpy as np
from _opcheck import Case, OpFamilyTests, any_


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


class TestLinalgDecompositions(OpFamilyTests):
    cases = CASES
    double_cases = [c for c in CASES if "complex" not in c.id and not c.id.startswith(("cond", "matrix-norm-2"))]

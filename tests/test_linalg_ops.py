"""Linear algebra: mm, bmm, mv, dot, vdot, outer, matmul, einsum, tensordot, the norms of
``ctxgrad.linalg``, inv, det and solve.

The op table runs through the kit (``_opcheck.py``): values against NumPy, values, dtypes and
gradients against torch (float64 and float32), gradients and tangents against central
differences, forward mode and double backward against torch.  The plain tests below compare
errors, dtypes, grad_fn names, singular matrices and ties with torch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _opcheck import Case, OpFamilyTests, any_, assert_same
from _support import to_numpy

import ctxgrad

INF = float("inf")


def _einsum_broadcast_ref(m: Any, a: Any, b: Any) -> Any:
    """NumPy's einsum does not broadcast size-1 subscripts; torch's does."""
    return np.einsum("ij,jk->ik", np.broadcast_to(a, (2, 3)), b)


def _norm(m: Any) -> Any:
    """``linalg.norm`` of ctxgrad or torch, NumPy's for numpy."""
    return m.linalg.norm


def _np_vector_norm(x: Any, ord: float = 2, dim: Any = None, keepdim: bool = False) -> Any:
    a = np.abs(x)
    if ord == INF:
        return np.max(a, axis=dim, keepdims=keepdim)
    if ord == -INF:
        return np.min(a, axis=dim, keepdims=keepdim)
    if ord == 0:
        return np.sum(a != 0, axis=dim, keepdims=keepdim).astype(x.dtype)
    return np.sum(a**ord, axis=dim, keepdims=keepdim) ** (1.0 / ord)


def _np_solve(a: Any, b: Any) -> Any:
    """torch's solve with NumPy: B is a (batch of) vector(s) when 1-D or shaped like A[..., 0]."""
    vector = b.ndim == 1 or (b.ndim == a.ndim - 1 and b.shape == a.shape[:-1])
    b = b[..., None] if vector else b
    # Broadcast the batches by hand: NumPy 1.x reads a B with one dimension fewer than A as
    # a batch of vectors, NumPy 2 only a 1-D B.
    batch = np.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    out = np.linalg.solve(np.broadcast_to(a, batch + a.shape[-2:]), np.broadcast_to(b, batch + b.shape[-2:]))
    return out[..., 0] if vector else out


def _wc(*shapes: tuple[int, ...]) -> list[tuple[tuple[int, ...], str]]:
    return [(s, "wellcond") for s in shapes]


PRODUCTS = [
    Case("mm", lambda m, a, b: m.mm(a, b), any_((2, 3), (3, 4)), ref=lambda m, a, b: a @ b),
    Case("mm-method", lambda m, a, b: a.mm(b), any_((4, 1), (1, 3)), ref=lambda m, a, b: a @ b),
    Case("mm-self", lambda m, a: m.mm(a, a), any_((3, 3)), ref=lambda m, a: a @ a),
    Case("mm-keyword", lambda m, a, b: m.mm(input=a, mat2=b), any_((2, 2), (2, 3)), ref=lambda m, a, b: a @ b),
    Case("bmm", lambda m, a, b: m.bmm(a, b), any_((2, 3, 4), (2, 4, 5)), ref=lambda m, a, b: a @ b),
    Case("bmm-method", lambda m, a, b: a.bmm(b), any_((3, 2, 2), (3, 2, 1)), ref=lambda m, a, b: a @ b),
    Case("mv", lambda m, a, v: m.mv(a, v), any_((2, 3), (3,)), ref=lambda m, a, v: a @ v),
    Case("mv-method", lambda m, a, v: a.mv(vec=v), any_((4, 3), (3,)), ref=lambda m, a, v: a @ v),
    Case("dot", lambda m, a, b: m.dot(a, b), any_((3,), (3,))),
    Case("dot-method", lambda m, a, b: a.dot(b), any_((5,), (5,)), ref=lambda m, a, b: np.dot(a, b)),
    Case("dot-self", lambda m, a: m.dot(a, a), any_((4,))),
    Case("vdot", lambda m, a, b: m.vdot(a, b), any_((3,), (3,))),
    Case("vdot-method", lambda m, a, b: a.vdot(b), any_((3,), (3,)), ref=lambda m, a, b: np.vdot(a, b)),
    Case("outer", lambda m, a, b: m.outer(a, b), any_((3,), (4,))),
    Case("outer-method", lambda m, a, b: a.outer(b), any_((2,), (3,)), ref=lambda m, a, b: np.outer(a, b)),
    # matmul (MatMul in ops/linalg.py): every rank combination and broadcast batches.
    Case("matmul-1d-1d", lambda m, a, b: m.matmul(a, b), any_((3,), (3,))),
    Case("matmul-1d-2d", lambda m, a, b: a @ b, any_((3,), (3, 2))),
    Case("matmul-2d-1d", lambda m, a, b: a @ b, any_((2, 3), (3,))),
    Case("matmul-2d-2d", lambda m, a, b: a @ b, any_((2, 3), (3, 4))),
    Case("matmul-3d-3d", lambda m, a, b: a @ b, any_((2, 3, 4), (2, 4, 2))),
    Case("matmul-3d-2d", lambda m, a, b: a @ b, any_((2, 3, 4), (4, 2))),
    Case("matmul-2d-3d", lambda m, a, b: a @ b, any_((3, 4), (2, 4, 2))),
    Case("matmul-1d-3d", lambda m, a, b: a @ b, any_((4,), (2, 4, 2))),
    Case("matmul-3d-1d", lambda m, a, b: a @ b, any_((2, 3, 4), (4,))),
    Case("matmul-4d-3d-broadcast", lambda m, a, b: a @ b, any_((2, 1, 3, 4), (5, 4, 2))),
    Case("matmul-4d-4d-broadcast-both", lambda m, a, b: a @ b, any_((1, 3, 2, 4), (2, 1, 4, 3))),
    Case("matmul-batch-of-one", lambda m, a, b: a @ b, any_((1, 2, 3), (3, 3, 2))),
    Case("linalg-matmul", lambda m, a, b: m.linalg.matmul(a, b), any_((2, 3), (3,)), ref=lambda m, a, b: a @ b),
]

EINSUM = [
    Case("einsum-mm", lambda m, a, b: m.einsum("ij,jk->ik", a, b), any_((2, 3), (3, 4))),
    Case("einsum-implicit", lambda m, a, b: m.einsum("ij,jk", a, b), any_((2, 3), (3, 4))),
    Case("einsum-implicit-order", lambda m, a, b: m.einsum("ba,ac", a, b), any_((2, 3), (3, 4))),
    Case("einsum-uppercase", lambda m, a, b: m.einsum("Ab,bc->cA", a, b), any_((2, 3), (3, 4))),
    Case(
        "einsum-spaces",
        lambda m, a, b: m.einsum("i j , j k -> k i", a, b),
        any_((2, 3), (3, 4)),
        ref=lambda m, a, b: np.einsum("ij,jk->ki", a, b),
    ),
    Case("einsum-list", lambda m, a, b: m.einsum("ij,jk->ik", [a, b]), any_((2, 3), (3, 4)), ref=lambda m, a, b: a @ b),
    Case(
        "einsum-sublist",
        lambda m, a, b: m.einsum(a, [0, 1], b, [1, 2], [0, 2]),
        any_((2, 3), (3, 4)),
        ref=lambda m, a, b: a @ b,
    ),
    Case(
        "einsum-sublist-implicit",
        lambda m, a, b: m.einsum(a, [1, 0], b, [0, 2]),
        any_((3, 2), (2, 4)),
        ref=lambda m, a, b: np.einsum("ba,ac", a, b),
    ),
    Case("einsum-dot", lambda m, a, b: m.einsum("i,i->", a, b), any_((3,), (3,))),
    Case("einsum-outer", lambda m, a, b: m.einsum("i,j->ij", a, b), any_((3,), (2,))),
    Case("einsum-hadamard", lambda m, a, b: m.einsum("ij,ij->ij", a, b), any_((2, 3), (2, 3))),
    Case("einsum-batched", lambda m, a, b: m.einsum("bij,bjk->bik", a, b), any_((2, 3, 4), (2, 4, 2))),
    Case("einsum-ellipsis", lambda m, a, b: m.einsum("...ij,...jk->...ik", a, b), any_((2, 3, 4), (4, 2))),
    Case("einsum-ellipsis-broadcast", lambda m, a, b: m.einsum("...ij,...jk", a, b), any_((2, 1, 3, 4), (3, 4, 2))),
    Case("einsum-ellipsis-middle", lambda m, a: m.einsum("i...j->ji...", a), any_((2, 3, 4))),
    Case("einsum-ellipsis-sum", lambda m, a: m.einsum("i...->i", a), any_((2, 3, 4)), ref=lambda m, a: a.sum((1, 2))),
    Case("einsum-transpose", lambda m, a: m.einsum("ij->ji", a), any_((2, 3))),
    Case("einsum-sum-all", lambda m, a: m.einsum("ij->", a), any_((2, 3))),
    Case("einsum-sum-dim", lambda m, a: m.einsum("ijk->j", a), any_((2, 3, 2))),
    Case("einsum-diagonal", lambda m, a: m.einsum("ii->i", a), any_((3, 3))),
    Case("einsum-trace", lambda m, a: m.einsum("ii->", a), any_((3, 3))),
    Case("einsum-trace-implicit", lambda m, a: m.einsum("ii", a), any_((3, 3))),
    Case("einsum-batched-diagonal", lambda m, a: m.einsum("bii->bi", a), any_((2, 3, 3))),
    Case("einsum-triple-diagonal", lambda m, a: m.einsum("iji->ij", a), any_((3, 2, 3))),
    Case("einsum-diagonal-times", lambda m, a, b: m.einsum("ii,i->i", a, b), any_((3, 3), (3,))),
    Case("einsum-diagonal-both", lambda m, a, b: m.einsum("ii,jj->ij", a, b), any_((3, 3), (2, 2))),
    Case("einsum-three", lambda m, a, b, c: m.einsum("ij,jk,kl->il", a, b, c), any_((2, 3), (3, 4), (4, 2))),
    Case(
        "einsum-three-shared",
        lambda m, a, b, c: m.einsum("ijk,ikl,il->jl", a, b, c),
        any_((2, 3, 4), (2, 4, 3), (2, 3)),
    ),
    Case("einsum-bilinear", lambda m, a, w, b: m.einsum("bi,oij,bj->bo", a, w, b), any_((2, 3), (4, 3, 2), (2, 2))),
    Case("einsum-self", lambda m, a: m.einsum("ij,ij->", a, a), any_((2, 3))),
    Case("einsum-self-mm", lambda m, a: m.einsum("ij,jk->ik", a, a), any_((3, 3))),
    Case("einsum-only-in-one", lambda m, a, b: m.einsum("ij,k->k", a, b), any_((2, 3), (4,))),
    Case(
        "einsum-broadcast-size-1",
        lambda m, a, b: m.einsum("ij,jk->ik", a, b),
        any_((2, 1), (3, 4)),
        ref=lambda m, a, b: np.einsum("ij,jk->ik", np.broadcast_to(a, (2, 3)), b),
    ),
    Case("einsum-0d", lambda m, a, b: m.einsum(",i->i", a, b), any_((), (3,))),
]

TENSORDOT = [
    Case(
        "tensordot-2",
        lambda m, a, b: m.tensordot(a, b),
        any_((2, 3, 4), (3, 4, 2)),
        ref=lambda m, a, b: np.tensordot(a, b),
    ),
    Case(
        "tensordot-1",
        lambda m, a, b: m.tensordot(a, b, 1),
        any_((2, 3), (3, 4)),
        ref=lambda m, a, b: np.tensordot(a, b, 1),
    ),
    Case(
        "tensordot-0",
        lambda m, a, b: m.tensordot(a, b, dims=0),
        any_((2,), (3, 2)),
        ref=lambda m, a, b: np.tensordot(a, b, 0),
    ),
    Case(
        "tensordot-lists",
        lambda m, a, b: m.tensordot(a, b, dims=([1, 0], [0, 2])),
        any_((3, 2, 4), (2, 5, 3)),
        ref=lambda m, a, b: np.tensordot(a, b, ([1, 0], [0, 2])),
    ),
    Case(
        "tensordot-negative",
        lambda m, a, b: m.tensordot(a, b, ([-1], [0])),
        any_((2, 3), (3, 2)),
        ref=lambda m, a, b: np.tensordot(a, b, 1),
    ),
    Case(
        "tensordot-broadcast-1",
        lambda m, a, b: m.tensordot(a, b, ([1], [0])),
        any_((2, 1), (3, 4)),
        ref=lambda m, a, b: np.tensordot(np.broadcast_to(a, (2, 3)), b, 1),
    ),
    Case(
        "tensordot-all",
        lambda m, a, b: m.tensordot(a, b, 2),
        any_((2, 3), (2, 3)),
        ref=lambda m, a, b: np.tensordot(a, b, 2),
    ),
]

NORMS = [
    Case("norm-vector", lambda m, x: _norm(m)(x), any_((4,)), ref=lambda m, x: np.linalg.norm(x)),
    Case("norm-flat-2d", lambda m, x: _norm(m)(x), any_((2, 3)), ref=lambda m, x: np.linalg.norm(x)),
    Case("norm-flat-3d", lambda m, x: _norm(m)(x), any_((2, 3, 2)), ref=lambda m, x: np.linalg.norm(x.ravel())),
    Case("norm-0d", lambda m, x: _norm(m)(x), [((), "nz")], ref=lambda m, x: np.abs(x)),
    Case("norm-ord-1", lambda m, x: _norm(m)(x, 1), [((4,), "nz")], ref=lambda m, x: np.linalg.norm(x, 1)),
    Case("norm-ord-3", lambda m, x: _norm(m)(x, 3), [((4,), "nz")], ref=lambda m, x: np.linalg.norm(x, 3)),
    Case("norm-ord-1.5", lambda m, x: _norm(m)(x, 1.5), [((4,), "nz")], ref=lambda m, x: np.linalg.norm(x, 1.5)),
    Case("norm-ord-0.5", lambda m, x: _norm(m)(x, 0.5), [((4,), "nz")], ref=lambda m, x: np.linalg.norm(x, 0.5)),
    Case("norm-ord-minus-1", lambda m, x: _norm(m)(x, -1), [((4,), "nz")], ref=lambda m, x: np.linalg.norm(x, -1)),
    Case(
        "norm-ord-inf", lambda m, x: _norm(m)(x, INF), [((5,), "distinct")], ref=lambda m, x: np.linalg.norm(x, np.inf)
    ),
    Case(
        "norm-ord-minus-inf",
        lambda m, x: _norm(m)(x, -INF),
        [((5,), "distinct")],
        ref=lambda m, x: np.linalg.norm(x, -np.inf),
    ),
    Case("norm-ord-0", lambda m, x: _norm(m)(x, 0), [((5,), "nz")], ref=lambda m, x: np.linalg.norm(x, 0)),
    Case("norm-dim", lambda m, x: _norm(m)(x, dim=1), any_((2, 3)), ref=lambda m, x: np.linalg.norm(x, axis=1)),
    Case(
        "norm-dim-keepdim",
        lambda m, x: _norm(m)(x, 3, dim=-1, keepdim=True),
        [((2, 3), "nz")],
        ref=lambda m, x: np.linalg.norm(x, 3, axis=-1, keepdims=True),
    ),
    Case(
        "norm-dim-pair-3d",
        lambda m, x: _norm(m)(x, dim=(0, 2)),
        any_((2, 3, 2)),
        ref=lambda m, x: np.sqrt((x * x).sum((0, 2))),
    ),
    Case("norm-fro", lambda m, x: _norm(m)(x, "fro"), any_((2, 3)), ref=lambda m, x: np.linalg.norm(x, "fro")),
    Case(
        "norm-fro-dims-keepdim",
        lambda m, x: _norm(m)(x, "fro", dim=(2, 0), keepdim=True),
        any_((2, 3, 2)),
        ref=lambda m, x: np.sqrt((x * x).sum((0, 2), keepdims=True)),
    ),
    Case("norm-matrix-1", lambda m, x: _norm(m)(x, 1), [((3, 3), "distinct")], ref=lambda m, x: np.linalg.norm(x, 1)),
    Case(
        "norm-matrix-minus-1",
        lambda m, x: _norm(m)(x, -1),
        [((3, 4), "distinct")],
        ref=lambda m, x: np.linalg.norm(x, -1),
    ),
    Case(
        "norm-matrix-inf",
        lambda m, x: _norm(m)(x, INF),
        [((4, 3), "distinct")],
        ref=lambda m, x: np.linalg.norm(x, np.inf),
    ),
    Case(
        "norm-matrix-minus-inf",
        lambda m, x: _norm(m)(x, -INF),
        [((3, 3), "distinct")],
        ref=lambda m, x: np.linalg.norm(x, -np.inf),
    ),
    Case(
        "norm-matrix-1-batched-keepdim",
        lambda m, x: _norm(m)(x, 1, dim=(2, 0), keepdim=True),
        [((3, 2, 4), "distinct")],
        ref=lambda m, x: np.abs(x).sum(2, keepdims=True).max(0, keepdims=True),
    ),
    Case(
        "norm-matrix-inf-dims",
        lambda m, x: _norm(m)(x, INF, dim=(0, 2)),
        [((3, 2, 4), "distinct")],
        ref=lambda m, x: np.abs(x).sum(2).max(0),
    ),
    Case("vector-norm", lambda m, x: m.linalg.vector_norm(x), any_((2, 3)), ref=lambda m, x: np.linalg.norm(x)),
    Case(
        "vector-norm-ord-dims",
        lambda m, x: m.linalg.vector_norm(x, 4, (0, 2)),
        [((2, 3, 2), "nz")],
        ref=lambda m, x: _np_vector_norm(x, 4, (0, 2)),
    ),
    Case(
        "vector-norm-inf-dim",
        lambda m, x: m.linalg.vector_norm(x, INF, 1, True),
        [((2, 3), "distinct")],
        ref=lambda m, x: _np_vector_norm(x, INF, 1, True),
    ),
    Case(
        "vector-norm-dtype",
        lambda m, x: m.linalg.vector_norm(x, dtype=m.float64),
        any_((3,)),
        ref=lambda m, x: np.linalg.norm(x),
    ),
    Case(
        "vector-norm-keywords",
        lambda m, x: m.linalg.vector_norm(x=x, ord=2, dim=[-1], keepdim=True, dtype=None),
        any_((2, 3)),
        ref=lambda m, x: np.linalg.norm(x, axis=-1, keepdims=True),
    ),
    Case(
        "matrix-norm",
        lambda m, x: m.linalg.matrix_norm(x),
        any_((2, 3, 2)),
        ref=lambda m, x: np.sqrt((x * x).sum((-2, -1))),
    ),
    Case(
        "matrix-norm-1",
        lambda m, x: m.linalg.matrix_norm(x, 1),
        [((2, 3, 3), "distinct")],
        ref=lambda m, x: np.linalg.norm(x, 1, axis=(-2, -1)),
    ),
    Case(
        "norm-of-product",
        lambda m, a, b: _norm(m)(a @ b),
        any_((2, 3), (3, 2)),
        ref=lambda m, a, b: np.linalg.norm(a @ b),
    ),
]

INV_DET_SOLVE = [
    Case("inv", lambda m, a: m.linalg.inv(a), _wc((3, 3)), ref=lambda m, a: np.linalg.inv(a)),
    Case("inv-batched", lambda m, a: m.linalg.inv(a), _wc((2, 3, 3)), ref=lambda m, a: np.linalg.inv(a)),
    Case("inv-1x1", lambda m, a: m.linalg.inv(a), _wc((1, 1)), ref=lambda m, a: np.linalg.inv(a)),
    Case("inverse", lambda m, a: m.inverse(a), _wc((2, 2)), ref=lambda m, a: np.linalg.inv(a)),
    Case("inverse-method", lambda m, a: a.inverse(), _wc((2, 3, 3)), ref=lambda m, a: np.linalg.inv(a)),
    Case("det", lambda m, a: m.linalg.det(a), _wc((3, 3)), ref=lambda m, a: np.linalg.det(a)),
    Case("det-batched", lambda m, a: m.linalg.det(a), _wc((2, 2, 4, 4)), ref=lambda m, a: np.linalg.det(a)),
    Case("det-1x1", lambda m, a: m.linalg.det(a), _wc((1, 1)), ref=lambda m, a: np.linalg.det(a)),
    Case("det-2x2-any", lambda m, a: m.linalg.det(a), any_((2, 2)), ref=lambda m, a: np.linalg.det(a)),
    Case("det-function", lambda m, a: m.det(a), _wc((3, 3)), ref=lambda m, a: np.linalg.det(a)),
    Case("det-method", lambda m, a: a.det(), _wc((2, 3, 3)), ref=lambda m, a: np.linalg.det(a)),
    Case(
        "solve-vector",
        lambda m, a, b: m.linalg.solve(a, b),
        [((3, 3), "wellcond"), ((3,), "any")],
        ref=lambda m, a, b: _np_solve(a, b),
    ),
    Case(
        "solve-matrix",
        lambda m, a, b: m.linalg.solve(a, b),
        [((3, 3), "wellcond"), ((3, 2), "any")],
        ref=lambda m, a, b: _np_solve(a, b),
    ),
    Case(
        "solve-batched-vectors",
        lambda m, a, b: m.linalg.solve(a, b),
        [((2, 3, 3), "wellcond"), ((2, 3), "any")],
        ref=lambda m, a, b: _np_solve(a, b),
    ),
    Case(
        "solve-batched-1d-b",
        lambda m, a, b: m.linalg.solve(a, b),
        [((2, 3, 3), "wellcond"), ((3,), "any")],
        ref=lambda m, a, b: _np_solve(a, b),
    ),
    Case(
        "solve-broadcast-b",
        lambda m, a, b: m.linalg.solve(a, b),
        [((2, 3, 3), "wellcond"), ((3, 2), "any")],
        ref=lambda m, a, b: _np_solve(a, b),
    ),
    Case(
        "solve-broadcast-a",
        lambda m, a, b: m.linalg.solve(a, b),
        [((3, 3), "wellcond"), ((2, 3, 2), "any")],
        ref=lambda m, a, b: _np_solve(a, b),
    ),
    Case(
        "solve-broadcast-both",
        lambda m, a, b: m.linalg.solve(a, b),
        [((2, 1, 3, 3), "wellcond"), ((3, 3, 1), "any")],
        ref=lambda m, a, b: _np_solve(a, b),
    ),
    Case(
        "solve-left-false",
        lambda m, a, b: m.linalg.solve(a, b, left=False),
        [((3, 3), "wellcond"), ((2, 3), "any")],
        ref=lambda m, a, b: b @ np.linalg.inv(a),
    ),
    Case(
        "solve-left-false-batched",
        lambda m, a, b: m.linalg.solve(A=a, B=b, left=False),
        [((2, 3, 3), "wellcond"), ((2, 4, 3), "any")],
        ref=lambda m, a, b: b @ np.linalg.inv(a),
    ),
    Case("det-of-inv", lambda m, a: m.linalg.det(m.linalg.inv(a)), _wc((3, 3)), ref=lambda m, a: 1 / np.linalg.det(a)),
    Case("solve-self", lambda m, a: m.linalg.solve(a, a @ a), _wc((3, 3)), ref=lambda m, a: a),
]

ALL_CASES = PRODUCTS + EINSUM + TENSORDOT + NORMS + INV_DET_SOLVE

_DOUBLE_IDS = {
    "mm",
    "mm-self",
    "bmm",
    "mv",
    "dot",
    "dot-self",
    "vdot",
    "outer",
    "matmul-1d-1d",
    "matmul-1d-2d",
    "matmul-2d-1d",
    "matmul-2d-2d",
    "matmul-3d-2d",
    "matmul-1d-3d",
    "matmul-4d-3d-broadcast",
    "matmul-4d-4d-broadcast-both",
    "einsum-mm",
    "einsum-sublist",
    "einsum-dot",
    "einsum-batched",
    "einsum-ellipsis-broadcast",
    "einsum-diagonal-times",
    "einsum-diagonal-both",
    "einsum-three-shared",
    "einsum-bilinear",
    "einsum-self",
    "einsum-self-mm",
    "einsum-only-in-one",
    "einsum-broadcast-size-1",
    "einsum-0d",
    "tensordot-2",
    "tensordot-0",
    "tensordot-lists",
    "tensordot-broadcast-1",
    "norm-vector",
    "norm-flat-3d",
    "norm-ord-3",
    "norm-ord-1.5",
    "norm-ord-0.5",
    "norm-ord-minus-1",
    "norm-dim",
    "norm-dim-keepdim",
    "norm-fro-dims-keepdim",
    "vector-norm-ord-dims",
    "norm-of-product",
    "inv",
    "inv-batched",
    "inverse-method",
    "det",
    "det-batched",
    "det-2x2-any",
    "det-method",
    "solve-vector",
    "solve-matrix",
    "solve-batched-vectors",
    "solve-broadcast-b",
    "solve-broadcast-a",
    "solve-broadcast-both",
    "solve-left-false",
    "det-of-inv",
    "solve-self",
}

# Single-operand linear ops have no second derivative of their own: square them.
_SQUARED = [
    Case("einsum-diagonal-squared", lambda m, a: m.einsum("ii->i", a) ** 2, any_((3, 3))),
    Case("einsum-trace-of-square", lambda m, a: m.einsum("ij,ji", a, a), any_((3, 3))),
    Case("einsum-batched-diagonal-product", lambda m, a, b: m.einsum("bii,bj->bij", a, b), any_((2, 3, 3), (2, 2))),
    Case("einsum-triple-diagonal-squared", lambda m, a: m.einsum("iji->ij", a) ** 2, any_((3, 2, 3))),
    Case("einsum-transpose-times", lambda m, a: m.einsum("ij->ji", a) * a.T, any_((2, 3))),
]


class TestLinalgOps(OpFamilyTests):
    cases = ALL_CASES + _SQUARED
    double_cases = [c for c in ALL_CASES if c.id in _DOUBLE_IDS] + _SQUARED


def test_double_case_ids_exist() -> None:
    assert _DOUBLE_IDS <= {c.id for c in ALL_CASES}


# --------------------------------------------------------------------------- errors
def _outcome(fn: Callable[[Any], Any], m: Any) -> BaseException:
    try:
        fn(m)
    except Exception as exc:
        return exc
    raise AssertionError(f"{m.__name__} raised nothing")


def _z(m: Any, *shape: int, dtype: str = "float64") -> Any:
    return m.zeros(*shape, dtype=getattr(m, dtype))


LINALG_ERRORS = [
    # mm
    pytest.param(lambda m: m.mm(_z(m, 2, 3), _z(m, 2, 3)), id="mm-shapes"),
    pytest.param(lambda m: m.mm(_z(m, 3), _z(m, 3, 3)), id="mm-self-1d"),
    pytest.param(lambda m: m.mm(_z(m, 3, 3), _z(m, 3)), id="mm-mat2-1d"),
    pytest.param(lambda m: m.mm(_z(m, 2, 3, 3), _z(m, 3, 3)), id="mm-3d"),
    pytest.param(lambda m: m.mm(_z(m, 3, 3), _z(m, 3, 3, dtype="float32")), id="mm-dtypes"),
    pytest.param(lambda m: m.mm(_z(m, 3, 3, dtype="float32"), _z(m, 3, 3)), id="mm-dtypes-swapped"),
    pytest.param(lambda m: m.mm(_z(m, 3, 3, dtype="int64"), _z(m, 3, 3)), id="mm-long-double"),
    pytest.param(lambda m: m.mm(_z(m, 2, 3), _z(m, 2, 3, dtype="float32")), id="mm-shapes-before-dtypes"),
    pytest.param(lambda m: m.mm(_z(m, 3, 3, dtype="bool"), _z(m, 3, 3, dtype="bool")), id="mm-bool"),
    # bmm
    pytest.param(lambda m: m.bmm(_z(m, 2, 3, 3), _z(m, 3, 3)), id="bmm-2d"),
    pytest.param(lambda m: m.bmm(_z(m, 3, 3), _z(m, 2, 3, 3)), id="bmm-self-2d"),
    pytest.param(lambda m: m.bmm(_z(m, 2, 3, 4), _z(m, 3, 4, 3)), id="bmm-batch"),
    pytest.param(lambda m: m.bmm(_z(m, 2, 3, 4), _z(m, 2, 3, 3)), id="bmm-inner"),
    pytest.param(lambda m: m.bmm(_z(m, 2, 3, 4), _z(m, 2, 4, 3, dtype="float32")), id="bmm-dtypes"),
    pytest.param(lambda m: m.bmm(_z(m, 2, 3, 3, dtype="bool"), _z(m, 2, 3, 3, dtype="bool")), id="bmm-bool"),
    # mv
    pytest.param(lambda m: m.mv(_z(m, 2, 3), _z(m, 2)), id="mv-size"),
    pytest.param(lambda m: m.mv(_z(m, 3), _z(m, 3)), id="mv-1d-mat"),
    pytest.param(lambda m: m.mv(_z(m, 2, 3), _z(m, 3, 1)), id="mv-2d-vec"),
    pytest.param(lambda m: m.mv(_z(m, 2, 3, 4), _z(m, 4)), id="mv-3d-mat"),
    pytest.param(lambda m: m.mv(_z(m, 2, 3), _z(m, 3, dtype="float32")), id="mv-dtypes"),
    pytest.param(lambda m: m.mv(_z(m, 2, 3, dtype="float32"), _z(m, 3)), id="mv-dtypes-swapped"),
    pytest.param(lambda m: m.mv(_z(m, 2, 3), _z(m, 2, dtype="float32")), id="mv-size-before-dtypes"),
    pytest.param(lambda m: m.mv(_z(m, 3, 3, dtype="bool"), _z(m, 3, dtype="bool")), id="mv-bool"),
    # dot, vdot, outer
    pytest.param(lambda m: m.dot(_z(m, 2), _z(m, 3)), id="dot-size"),
    pytest.param(lambda m: m.dot(_z(m, 2, 2), _z(m, 2)), id="dot-2d"),
    pytest.param(lambda m: m.dot(_z(m, 2), _z(m, 2, 2)), id="dot-2d-second"),
    pytest.param(lambda m: m.dot(_z(m, 2), _z(m, 2, dtype="float32")), id="dot-dtypes"),
    pytest.param(lambda m: m.dot(_z(m, 2), _z(m, 3, dtype="float32")), id="dot-dtypes-before-size"),
    pytest.param(lambda m: m.dot(_z(m, 2, dtype="int32"), _z(m, 2, dtype="int64")), id="dot-int-dtypes"),
    pytest.param(lambda m: m.dot(_z(m, 3, dtype="bool"), _z(m, 3, dtype="bool")), id="dot-bool"),
    pytest.param(lambda m: m.vdot(_z(m, 2), _z(m, 3)), id="vdot-size"),
    pytest.param(lambda m: m.vdot(_z(m, 3, 3), _z(m, 3)), id="vdot-2d"),
    pytest.param(lambda m: m.vdot(_z(m, 3), _z(m, 3, dtype="float32")), id="vdot-dtypes"),
    pytest.param(lambda m: m.outer(_z(m, 2, 2), _z(m, 3)), id="outer-2d"),
    pytest.param(lambda m: m.outer(_z(m, 3), _z(m, 3, 3)), id="outer-2d-second"),
    # einsum
    pytest.param(lambda m: m.einsum("ij,jk->ik", _z(m, 2, 3), _z(m, 4, 5)), id="einsum-sizes"),
    pytest.param(lambda m: m.einsum("i,i->i", _z(m, 3), _z(m, 2)), id="einsum-sizes-1d"),
    pytest.param(lambda m: m.einsum("ij,jk->ik", _z(m, 2, 3)), id="einsum-too-few"),
    pytest.param(lambda m: m.einsum("ij,jk->ik", _z(m, 2, 3), _z(m, 3, 5), _z(m, 3)), id="einsum-too-many"),
    pytest.param(lambda m: m.einsum("ijk->ik", _z(m, 2, 3)), id="einsum-ndim"),
    pytest.param(lambda m: m.einsum("i", _z(m, 3, 2)), id="einsum-ndim-implicit"),
    pytest.param(lambda m: m.einsum("ij->ik", _z(m, 2, 3)), id="einsum-unknown-output"),
    pytest.param(lambda m: m.einsum("ij->ii", _z(m, 2, 3)), id="einsum-repeated-output"),
    pytest.param(lambda m: m.einsum("ii->i", _z(m, 2, 3)), id="einsum-diagonal-sizes"),
    pytest.param(lambda m: m.einsum("i1->i", _z(m, 2, 3)), id="einsum-bad-character"),
    pytest.param(lambda m: m.einsum("ij->i->j", _z(m, 4, 3)), id="einsum-two-arrows"),
    pytest.param(lambda m: m.einsum("ij-i", _z(m, 4, 3)), id="einsum-dash"),
    pytest.param(lambda m: m.einsum("...i...", _z(m, 4, 3, 3)), id="einsum-two-ellipses"),
    pytest.param(lambda m: m.einsum("..i", _z(m, 4, 3, 3)), id="einsum-two-dots"),
    pytest.param(lambda m: m.einsum("...ij,...jk", _z(m, 4, 3, 3), _z(m, 2, 3, 3)), id="einsum-ellipsis-broadcast"),
    pytest.param(lambda m: m.einsum("ij,jk->ik", _z(m, 2, 3), _z(m, 3, 5, dtype="float32")), id="einsum-dtypes"),
    pytest.param(
        lambda m: m.einsum("ij,jk->ik", _z(m, 2, 3, dtype="int64"), _z(m, 3, 5, dtype="float32")), id="einsum-int-float"
    ),
    pytest.param(lambda m: m.einsum("i,j", _z(m, 3), 2.0), id="einsum-number-operand"),
    pytest.param(lambda m: m.einsum(_z(m, 3), [60], _z(m, 3), [60]), id="einsum-sublist-range"),
    # tensordot
    pytest.param(lambda m: m.tensordot(_z(m, 2, 3), _z(m, 4, 5), 1), id="tensordot-sizes"),
    pytest.param(lambda m: m.tensordot(_z(m, 2, 3), _z(m, 3, 2), 2), id="tensordot-sizes-2"),
    pytest.param(lambda m: m.tensordot(_z(m, 2, 3), _z(m, 3, 5), 3), id="tensordot-dims-too-big"),
    pytest.param(lambda m: m.tensordot(_z(m, 2, 3), _z(m, 3, 5), -1), id="tensordot-dims-negative"),
    pytest.param(lambda m: m.tensordot(_z(m, 2, 3), _z(m, 3, 5), ([1], [0, 1])), id="tensordot-lengths"),
    pytest.param(lambda m: m.tensordot(_z(m, 2, 3), _z(m, 3, 5), ([0], [0])), id="tensordot-list-sizes"),
    pytest.param(lambda m: m.tensordot(_z(m, 2, 3), _z(m, 3, 5, dtype="float32"), 1), id="tensordot-dtypes"),
    pytest.param(lambda m: m.tensordot(_z(m, 2, 3), _z(m, 3, 5), ([5], [0])), id="tensordot-dim-range"),
    pytest.param(lambda m: m.tensordot(_z(m, 2, 3), _z(m, 3, 5), ([1, 1], [0, 0])), id="tensordot-dim-twice"),
    pytest.param(lambda m: m.tensordot(_z(m, 2, 3), _z(m, 3, 2), (1, 0)), id="tensordot-int-pair"),
    # inv, det, solve
    pytest.param(lambda m: m.linalg.inv(_z(m, 2, 3)), id="inv-not-square"),
    pytest.param(lambda m: m.linalg.inv(_z(m, 3)), id="inv-1d"),
    pytest.param(lambda m: m.linalg.inv(_z(m, 3, 3, dtype="int64")), id="inv-long"),
    pytest.param(lambda m: m.linalg.inv(_z(m, 2, 3, dtype="int64")), id="inv-long-not-square"),
    pytest.param(lambda m: m.inverse(_z(m, 2, 3)), id="inverse-not-square"),
    pytest.param(lambda m: m.linalg.inv(_z(m, 3, 3)), id="inv-zeros"),
    pytest.param(lambda m: m.linalg.inv(m.tensor([[1.0, 2.0], [2.0, 4.0]])), id="inv-singular"),
    pytest.param(lambda m: m.linalg.inv(m.tensor([[0.0, 1.0], [0.0, 1.0]])), id="inv-singular-first-column"),
    pytest.param(
        lambda m: m.linalg.inv(m.tensor([[[1.0, 0.0], [0.0, 1.0]], [[1.0, 2.0], [2.0, 4.0]]])), id="inv-singular-batch"
    ),
    pytest.param(
        lambda m: m.linalg.inv(m.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [0.0, 1.0, 1.0]])), id="inv-singular-3x3"
    ),
    pytest.param(lambda m: m.linalg.det(_z(m, 2, 3)), id="det-not-square"),
    pytest.param(lambda m: m.linalg.det(_z(m, 3)), id="det-1d"),
    pytest.param(lambda m: m.linalg.det(_z(m, 3, 3, dtype="int64")), id="det-long"),
    pytest.param(lambda m: m.det(_z(m, 2, 3)), id="det-function-not-square"),
    pytest.param(lambda m: _z(m, 2, 3).det(), id="det-method-not-square"),
    pytest.param(lambda m: m.linalg.solve(_z(m, 2, 3), _z(m, 2)), id="solve-not-square"),
    pytest.param(lambda m: m.linalg.solve(_z(m, 3, 3), _z(m, 2)), id="solve-vector-size"),
    pytest.param(lambda m: m.linalg.solve(_z(m, 3, 3), _z(m, 2, 3)), id="solve-matrix-size"),
    pytest.param(lambda m: m.linalg.solve(_z(m, 3, 3), _z(m, 3, 2), left=False), id="solve-right-size"),
    pytest.param(lambda m: m.linalg.solve(_z(m, 3, 3), _z(m, 3), left=False), id="solve-right-vector"),
    pytest.param(lambda m: m.linalg.solve(_z(m, 3, 3), _z(m, 3, 2, dtype="float32")), id="solve-dtypes"),
    pytest.param(lambda m: m.linalg.solve(_z(m, 3, 3, dtype="int64"), _z(m, 3, 2, dtype="int64")), id="solve-long"),
    pytest.param(lambda m: m.linalg.solve(_z(m, 3), _z(m, 3)), id="solve-1d"),
    pytest.param(
        lambda m: m.linalg.solve(m.eye(3, dtype=m.float64).expand(2, 3, 3), _z(m, 5, 3, 3, 2)),
        id="solve-batch-broadcast",
    ),
    pytest.param(lambda m: m.linalg.solve(_z(m, 3, 3), _z(m, 3)), id="solve-singular"),
    pytest.param(
        lambda m: m.linalg.solve(m.stack([m.eye(3, dtype=m.float64), _z(m, 3, 3)]), _z(m, 2, 3)),
        id="solve-singular-batch",
    ),
    # norms
    pytest.param(lambda m: m.linalg.vector_norm(_z(m, 3, dtype="int64")), id="vector-norm-long"),
    pytest.param(lambda m: m.linalg.norm(_z(m, 3, dtype="int64")), id="norm-long"),
    pytest.param(lambda m: m.linalg.vector_norm(_z(m, 3, dtype="int64"), dtype=m.float64), id="vector-norm-long-dtype"),
    pytest.param(lambda m: m.linalg.vector_norm(_z(m, 3), dtype=m.float32), id="vector-norm-narrowing"),
    pytest.param(lambda m: m.linalg.vector_norm(_z(m, 3), dtype=m.int64), id="vector-norm-int-dtype"),
    pytest.param(lambda m: m.linalg.vector_norm(_z(m, 3, 3), dim=(0, 0)), id="vector-norm-dim-twice"),
    pytest.param(lambda m: m.linalg.vector_norm(_z(m, 3, 3), dim=2), id="vector-norm-dim-range"),
    pytest.param(lambda m: m.linalg.vector_norm(_z(m, 0, 3), ord=INF), id="vector-norm-empty-inf"),
    pytest.param(lambda m: m.linalg.vector_norm(_z(m, 0), ord=-0.5), id="vector-norm-empty-negative"),
    pytest.param(lambda m: m.linalg.vector_norm(_z(m, 0), ord=-1), id="vector-norm-empty-minus-1"),
    pytest.param(lambda m: m.linalg.vector_norm(_z(m, 3, 3), "fro"), id="vector-norm-str-ord"),
    pytest.param(lambda m: m.linalg.vector_norm(_z(m, 2, 0), ord=INF, dim=1), id="vector-norm-empty-dim-inf"),
    pytest.param(lambda m: m.linalg.vector_norm(_z(m, 2, 0), ord=-1, dim=(0, 1)), id="vector-norm-empty-dims"),
    pytest.param(lambda m: m.linalg.matrix_norm(_z(m, 2, 0), ord=-1), id="matrix-norm-empty-minus-1"),
    pytest.param(lambda m: m.linalg.matrix_norm(_z(m, 0, 2), ord=-INF), id="matrix-norm-empty-minus-inf"),
    pytest.param(lambda m: m.linalg.norm(_z(m, 3, 3, 3), "fro"), id="norm-3d-str-ord"),
    pytest.param(lambda m: m.linalg.norm(_z(m, 3, 3, 3), 1), id="norm-3d-ord"),
    pytest.param(lambda m: m.linalg.norm(m.tensor(0.0), 2), id="norm-0d-ord"),
    pytest.param(lambda m: m.linalg.norm(_z(m, 3), "fro"), id="norm-1d-fro"),
    pytest.param(lambda m: m.linalg.norm(_z(m, 3), "nuc"), id="norm-1d-nuc"),
    pytest.param(lambda m: m.linalg.norm(_z(m, 3, 3), "abc"), id="norm-bad-str-ord"),
    pytest.param(lambda m: m.linalg.norm(_z(m, 3, 3), 3), id="norm-bad-matrix-ord"),
    pytest.param(lambda m: m.linalg.norm(_z(m, 3, 3), "fro", dim=0), id="norm-fro-int-dim"),
    pytest.param(lambda m: m.linalg.norm(_z(m, 3, 3), dim=(0, 0)), id="norm-dim-twice"),
    pytest.param(lambda m: m.linalg.norm(_z(m, 3, 3), dim=(0, 1, 2)), id="norm-three-dims"),
    pytest.param(lambda m: m.linalg.norm(_z(m, 3, 3), "fro", dim=(0, 1, 2)), id="norm-fro-three-dims"),
    pytest.param(lambda m: m.linalg.norm(_z(m, 3, 3), dim=[]), id="norm-empty-dims"),
    pytest.param(lambda m: m.linalg.norm(_z(m, 3, 3), dim=(0, 5)), id="norm-dim-range"),
    pytest.param(lambda m: m.linalg.matrix_norm(_z(m, 3)), id="matrix-norm-1d"),
    pytest.param(lambda m: m.linalg.matrix_norm(_z(m, 3, 3), 3), id="matrix-norm-order"),
    pytest.param(lambda m: m.linalg.matrix_norm(_z(m, 3, 3), 3.5), id="matrix-norm-order-float"),
    pytest.param(lambda m: m.linalg.matrix_norm(_z(m, 3, 3, dtype="int64")), id="matrix-norm-long"),
    pytest.param(lambda m: m.linalg.matrix_norm(_z(m, 3, 3, dtype="int64"), 3), id="matrix-norm-order-first"),
    pytest.param(lambda m: m.linalg.matrix_norm(_z(m, 3, 3), dim=(0, 0)), id="matrix-norm-dims-equal"),
    pytest.param(lambda m: m.linalg.matrix_norm(_z(m, 3, 3), 1, dim=(0, 1, 2)), id="matrix-norm-three-dims"),
]


@pytest.mark.parametrize("fn", LINALG_ERRORS)
def test_errors_match_torch(torch: Any, fn: Callable[[Any], Any]) -> None:
    t_exc = _outcome(fn, torch)
    c_exc = _outcome(fn, ctxgrad)
    if isinstance(t_exc, torch.linalg.LinAlgError):
        assert isinstance(c_exc, ctxgrad.linalg.LinAlgError), repr(c_exc)
        assert isinstance(c_exc, RuntimeError)
    else:
        assert type(c_exc) is type(t_exc), (repr(c_exc), repr(t_exc))
    assert str(c_exc).replace("ctxgrad", "torch") == str(t_exc), (str(c_exc), str(t_exc))


def test_linalg_error_is_runtime_error() -> None:
    assert issubclass(ctxgrad.linalg.LinAlgError, RuntimeError)
    with pytest.raises(RuntimeError, match="singular"):
        ctxgrad.linalg.inv(ctxgrad.zeros(2, 2))


@pytest.mark.parametrize("ord", [2, "nuc", -2])
def test_singular_value_norms_match_torch(torch: Any, ord: Any) -> None:
    a = np.random.default_rng(3).standard_normal((2, 4, 3))
    for keepdim in (False, True):
        c = ctxgrad.linalg.matrix_norm(ctxgrad.tensor(a), ord, (0, 2), keepdim)
        t = torch.linalg.matrix_norm(torch.tensor(a), ord, (0, 2), keepdim)
        assert_same(c, t)
    assert_same(ctxgrad.linalg.norm(ctxgrad.tensor(a[0]), ord), torch.linalg.norm(torch.tensor(a[0]), ord))


def test_einsum_without_arguments(torch: Any) -> None:
    t_exc, c_exc = _outcome(lambda m: m.einsum(), torch), _outcome(lambda m: m.einsum(), ctxgrad)
    assert type(c_exc) is type(t_exc) and str(c_exc) == str(t_exc)


# --------------------------------------------------------------------------- dtypes
DTYPE_CASES = [
    pytest.param(lambda m, a, b: m.mm(a, b), "int64", "int64", (2, 3), (3, 2), id="mm-long"),
    pytest.param(lambda m, a, b: m.mm(a, b), "int32", "int32", (2, 3), (3, 2), id="mm-int"),
    pytest.param(lambda m, a, b: m.mm(a, b), "float32", "float32", (2, 3), (3, 2), id="mm-float"),
    pytest.param(lambda m, a, b: m.bmm(a, b), "int64", "int64", (2, 2, 3), (2, 3, 2), id="bmm-long"),
    pytest.param(lambda m, a, b: m.mv(a, b), "int64", "int64", (2, 3), (3,), id="mv-long"),
    pytest.param(lambda m, a, b: m.dot(a, b), "int64", "int64", (3,), (3,), id="dot-long"),
    pytest.param(lambda m, a, b: m.dot(a, b), "int32", "int32", (3,), (3,), id="dot-int"),
    pytest.param(lambda m, a, b: m.vdot(a, b), "float32", "float32", (3,), (3,), id="vdot-float"),
    pytest.param(lambda m, a, b: m.outer(a, b), "float64", "float32", (2,), (3,), id="outer-double-float"),
    pytest.param(lambda m, a, b: m.outer(a, b), "int64", "float32", (2,), (3,), id="outer-long-float"),
    pytest.param(lambda m, a, b: m.outer(a, b), "int64", "int32", (2,), (3,), id="outer-long-int"),
    pytest.param(lambda m, a, b: m.outer(a, b), "bool", "bool", (2,), (3,), id="outer-bool"),
    pytest.param(lambda m, a, b: m.einsum("ij,jk->ik", a, b), "int64", "int64", (2, 3), (3, 2), id="einsum-long"),
    pytest.param(lambda m, a, b: m.einsum("ii->i", a), "int64", "int64", (3, 3), (3, 2), id="einsum-diag-long"),
    pytest.param(lambda m, a, b: m.einsum("ij,jk", a, b), "float32", "float32", (2, 3), (3, 2), id="einsum-float"),
    pytest.param(lambda m, a, b: m.tensordot(a, b, 1), "int64", "int64", (2, 3), (3, 2), id="tensordot-long"),
    pytest.param(
        lambda m, a, b: m.tensordot(a, b, ([1], [0])), "float32", "float32", (2, 3), (3, 2), id="tensordot-float"
    ),
    pytest.param(lambda m, a, b: m.matmul(a, b), "int64", "int64", (2, 3), (3,), id="matmul-long"),
    pytest.param(lambda m, a, b: m.matmul(a, b), "float32", "float32", (2, 2, 3), (3, 2), id="matmul-float"),
    pytest.param(lambda m, a, b: m.linalg.norm(a), "float32", "float32", (2, 3), (3,), id="norm-float"),
    pytest.param(lambda m, a, b: m.linalg.norm(a, 1), "float32", "float32", (2, 3), (3,), id="norm-matrix-1-float"),
    pytest.param(
        lambda m, a, b: m.linalg.vector_norm(a, dtype=m.float64),
        "float32",
        "float32",
        (3,),
        (3,),
        id="vector-norm-dtype-double",
    ),
    pytest.param(lambda m, a, b: m.linalg.vector_norm(a, 0), "float32", "float32", (3,), (3,), id="norm-0-float"),
    pytest.param(
        lambda m, a, b: m.linalg.det(a + m.eye(3, dtype=a.dtype) * 5),
        "float32",
        "float32",
        (3, 3),
        (3,),
        id="det-float",
    ),
    pytest.param(
        lambda m, a, b: m.linalg.inv(a + m.eye(3, dtype=a.dtype) * 5),
        "float32",
        "float32",
        (3, 3),
        (3,),
        id="inv-float",
    ),
    pytest.param(
        lambda m, a, b: m.linalg.solve(a + m.eye(3, dtype=a.dtype) * 5, b),
        "float32",
        "float32",
        (3, 3),
        (3,),
        id="solve-float",
    ),
]


@pytest.mark.parametrize(("fn", "dtype_a", "dtype_b", "shape_a", "shape_b"), DTYPE_CASES)
def test_output_dtypes_match_torch(
    torch: Any, fn: Callable[..., Any], dtype_a: str, dtype_b: str, shape_a: tuple[int, ...], shape_b: tuple[int, ...]
) -> None:
    rng = np.random.default_rng(3)
    a = rng.integers(-3, 4, shape_a).astype(dtype_a)
    b = rng.integers(-3, 4, shape_b).astype(dtype_b)
    c = fn(ctxgrad, ctxgrad.tensor(a), ctxgrad.tensor(b))
    t = fn(torch, torch.tensor(a), torch.tensor(b))
    assert_same(c, t, rtol=1e-5, atol=1e-5)


# --------------------------------------------------------------------------- names, views, special values
GRAD_FN_NAMES = [
    pytest.param(lambda m, a, b, v: m.mm(a, b), id="mm"),
    pytest.param(lambda m, a, b, v: m.bmm(a[None], b[None]), id="bmm"),
    pytest.param(lambda m, a, b, v: m.mv(a, v), id="mv"),
    pytest.param(lambda m, a, b, v: m.dot(v, v), id="dot"),
    pytest.param(lambda m, a, b, v: m.vdot(v, v), id="vdot"),
    pytest.param(lambda m, a, b, v: m.outer(v, v), id="outer"),
    pytest.param(lambda m, a, b, v: m.tensordot(a, b, 1), id="tensordot"),
    pytest.param(lambda m, a, b, v: m.tensordot(a, b, 0), id="tensordot-0"),
    pytest.param(lambda m, a, b, v: m.linalg.norm(a), id="norm"),
    pytest.param(lambda m, a, b, v: m.linalg.norm(a, "fro"), id="norm-fro"),
    pytest.param(lambda m, a, b, v: m.linalg.norm(v, INF), id="norm-inf"),
    pytest.param(lambda m, a, b, v: m.linalg.norm(a, 1), id="norm-matrix-1"),
    pytest.param(lambda m, a, b, v: m.linalg.norm(a, -INF), id="norm-matrix-minus-inf"),
    pytest.param(lambda m, a, b, v: m.linalg.vector_norm(a, 3), id="vector-norm"),
    pytest.param(lambda m, a, b, v: m.linalg.inv(a), id="inv"),
    pytest.param(lambda m, a, b, v: m.inverse(a), id="inverse"),
    pytest.param(lambda m, a, b, v: m.linalg.det(a), id="det"),
    pytest.param(lambda m, a, b, v: a.det(), id="det-method"),
    pytest.param(lambda m, a, b, v: m.linalg.solve(a, v), id="solve"),
    pytest.param(lambda m, a, b, v: m.linalg.solve(a, b, left=False), id="solve-left-false"),
]


@pytest.mark.parametrize("fn", GRAD_FN_NAMES)
def test_grad_fn_names_match_torch(torch: Any, fn: Callable[..., Any]) -> None:
    rng = np.random.default_rng(0)
    arrays = [np.eye(3) * 3 + rng.standard_normal((3, 3)), rng.standard_normal((3, 3)), rng.standard_normal(3)]
    c = fn(ctxgrad, *(ctxgrad.tensor(x, requires_grad=True) for x in arrays))
    t = fn(torch, *(torch.tensor(x, requires_grad=True) for x in arrays))
    assert c.grad_fn.name() == t.grad_fn.name()


@pytest.mark.parametrize(
    ("shape_a", "shape_b"),
    [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 2)), ((2, 2, 3), (3, 2))],
    ids=["1d-1d", "2d-1d", "1d-2d", "3d-2d"],
)
def test_matmul_grad_fn_names_match_torch(torch: Any, shape_a: tuple[int, ...], shape_b: tuple[int, ...]) -> None:
    names = []
    for m in (ctxgrad, torch):
        a = m.ones(*shape_a, dtype=m.float64, requires_grad=True)
        names.append((a @ m.ones(*shape_b, dtype=m.float64)).grad_fn.name())
    assert names[0] == names[1]


@pytest.mark.parametrize(
    ("dtype_a", "dtype_b", "shape_a", "shape_b"),
    [
        ("float32", "float64", (2, 3), (3, 2)),
        ("float64", "float32", (3,), (3,)),
        ("int64", "float32", (2, 3), (3,)),
        ("float32", "float64", (2, 2, 3), (3,)),
    ],
    ids=["mm-float-double", "dot-double-float", "mv-long-float", "batched-float-double"],
)
def test_matmul_mixed_dtypes_raise_like_torch(
    torch: Any, dtype_a: str, dtype_b: str, shape_a: tuple[int, ...], shape_b: tuple[int, ...]
) -> None:
    fn = lambda m: _z(m, *shape_a, dtype=dtype_a) @ _z(m, *shape_b, dtype=dtype_b)  # noqa: E731
    t_exc = _outcome(fn, torch)
    c_exc = _outcome(fn, ctxgrad)
    assert type(c_exc) is type(t_exc) and str(c_exc) == str(t_exc)


@pytest.mark.parametrize(
    "fn",
    [
        pytest.param(lambda m: _z(m, 3, dtype="bool") @ _z(m, 3, dtype="bool"), id="bool-1d"),
        pytest.param(lambda m: _z(m, 2, 3, dtype="bool") @ _z(m, 3, 2, dtype="bool"), id="bool-2d"),
        pytest.param(lambda m: _z(m, 3) @ _z(m, 2, 4, 2), id="1d-3d-sizes"),
        pytest.param(lambda m: _z(m, 2, 4, 3) @ _z(m, 2), id="3d-1d-sizes"),
    ],
)
def test_matmul_errors_match_torch(torch: Any, fn: Callable[[Any], Any]) -> None:
    t_exc = _outcome(fn, torch)
    c_exc = _outcome(fn, ctxgrad)
    assert type(c_exc) is type(t_exc) and str(c_exc) == str(t_exc)


def test_einsum_returns_views_like_torch(torch: Any) -> None:
    """A permutation or diagonal by einsum shares storage with its input, in both libraries."""
    x = ctxgrad.zeros(3, 3, dtype=ctxgrad.float64)
    t = torch.zeros(3, 3, dtype=torch.float64)
    for eq in ("ii->i", "ij->ji"):
        assert np.shares_memory(ctxgrad.einsum(eq, x)._data, x._data)
        assert torch.einsum(eq, t)._is_view()
    assert not np.shares_memory(ctxgrad.einsum("ij->i", x)._data, x._data)


@pytest.mark.parametrize(
    "matrix",
    [
        [[1.0, 2.0], [2.0, 4.0]],
        [[0.0, 0.0], [0.0, 1.0]],
        [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]],
        [[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 2.0, 3.0]],
        [[0.0]],
    ],
    ids=["2x2-rank-1", "2x2-zero-row", "3x3-rank-2", "3x3-rank-1", "1x1-zero"],
)
def test_det_gradient_of_singular_matrix(torch: Any, matrix: list[list[float]]) -> None:
    """The gradient of det at a singular matrix is its cofactor matrix.  torch gives it when
    building a graph (create_graph=True); its plain backward returns zeros there, a torch
    quirk ctxgrad does not copy.  Double backward is checked against torch too."""
    a = np.array(matrix)
    rng = np.random.default_rng(1)
    v = rng.standard_normal(a.shape)
    results = []
    for m in (ctxgrad, torch):
        x = m.tensor(a, requires_grad=True)
        (g,) = m.autograd.grad(m.linalg.det(x), x, create_graph=True)
        gg = m.autograd.grad((g * m.tensor(v)).sum(), x, allow_unused=True)[0] if g.requires_grad else None
        results.append((np.asarray(g.detach().numpy()), None if gg is None else np.asarray(gg.detach().numpy())))
    (cg, cgg), (tg, tgg) = results
    np.testing.assert_allclose(cg, tg, atol=1e-12)
    np.testing.assert_allclose(cgg if cgg is not None else 0.0, tgg if tgg is not None else 0.0, atol=1e-12)
    # Plain backward gives the same cofactors in ctxgrad.
    x = ctxgrad.tensor(a, requires_grad=True)
    ctxgrad.linalg.det(x).backward()
    np.testing.assert_allclose(to_numpy(x.grad), tg, atol=1e-12)


def test_det_gradient_of_batch_with_singular_matrix(torch: Any) -> None:
    a = np.stack([np.eye(3) * 2 + 0.1, np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0], [1.0, 0.0, 1.0]])])
    x = ctxgrad.tensor(a, requires_grad=True)
    (ctxgrad.linalg.det(x) * ctxgrad.tensor([1.5, -2.0])).sum().backward()
    t = torch.tensor(a, requires_grad=True)
    (g,) = torch.autograd.grad((torch.linalg.det(t) * torch.tensor([1.5, -2.0])).sum(), t, create_graph=True)
    np.testing.assert_allclose(to_numpy(x.grad), g.detach().numpy(), atol=1e-12)


def test_det_jvp_of_singular_matrix() -> None:
    a = np.array([[1.0, 2.0], [2.0, 4.0]])
    t = np.array([[0.3, -1.0], [0.5, 2.0]])
    fw = ctxgrad.autograd.forward_ad
    with fw.dual_level():
        out = ctxgrad.linalg.det(fw.make_dual(ctxgrad.tensor(a), ctxgrad.tensor(t)))
        tangent = fw.unpack_dual(out).tangent
    eps = 1e-6
    numeric = (np.linalg.det(a + eps * t) - np.linalg.det(a - eps * t)) / (2 * eps)
    assert tangent is not None
    np.testing.assert_allclose(float(tangent), numeric, rtol=1e-6)


def test_det_and_inv_of_empty_matrices(torch: Any) -> None:
    for fn in (lambda m, x: m.linalg.det(x), lambda m, x: m.linalg.inv(x)):
        c = fn(ctxgrad, ctxgrad.zeros(0, 0, dtype=ctxgrad.float64))
        t = fn(torch, torch.zeros(0, 0, dtype=torch.float64))
        assert_same(c, t)


NORM_SPECIAL = [
    pytest.param(lambda m, x: m.linalg.vector_norm(x, INF), [[1.0, -3.0, 3.0], [2.0, 0.0, 0.0]], id="inf-ties"),
    pytest.param(
        lambda m, x: m.linalg.vector_norm(x, -INF, dim=1), [[1.0, -1.0, 3.0], [2.0, 2.0, -2.0]], id="minus-inf-ties"
    ),
    pytest.param(lambda m, x: m.linalg.matrix_norm(x, 1), [[1.0, -3.0, 3.0], [2.0, 0.0, 0.0]], id="matrix-1-ties"),
    pytest.param(lambda m, x: m.linalg.matrix_norm(x, INF), [[1.0, -3.0], [-2.0, 2.0]], id="matrix-inf-ties"),
    pytest.param(lambda m, x: m.linalg.vector_norm(x, 2, dim=1), [[1.0, -3.0, 0.0], [0.0, 0.0, 0.0]], id="2-zero-row"),
    pytest.param(lambda m, x: m.linalg.vector_norm(x, 3, dim=1), [[1.0, -3.0, 0.0], [0.0, 0.0, 0.0]], id="3-zero-row"),
    pytest.param(
        lambda m, x: m.linalg.vector_norm(x, 1.5, dim=1), [[1.0, -3.0, 0.0], [0.0, 0.0, 0.0]], id="1.5-zero-row"
    ),
    pytest.param(lambda m, x: m.linalg.vector_norm(x, 0.5, dim=1), [[1.0, -3.0, 0.0], [0.0, 0.0, 1.0]], id="0.5-zeros"),
    pytest.param(
        lambda m, x: m.linalg.vector_norm(x, -1, dim=1), [[1.0, -3.0, 0.0], [0.0, 0.0, 0.0]], id="minus-1-zeros"
    ),
    pytest.param(lambda m, x: m.linalg.vector_norm(x, 1), [[1.0, -3.0, 0.0], [0.0, 2.0, 0.0]], id="1-zeros"),
    pytest.param(lambda m, x: m.linalg.vector_norm(x, 0), [[1.0, -3.0, 0.0], [0.0, 2.0, 0.0]], id="0"),
    pytest.param(
        lambda m, x: m.linalg.vector_norm(x, INF, dim=1), [[0.0, 0.0, 0.0], [0.0, 2.0, 0.0]], id="inf-zero-row"
    ),
    pytest.param(lambda m, x: m.linalg.vector_norm(x, INF, dim=0), [[], []], id="inf-empty-rows"),
    pytest.param(lambda m, x: m.linalg.vector_norm(x), [[], []], id="2-empty"),
]


@pytest.mark.parametrize(("fn", "values"), NORM_SPECIAL)
def test_norm_ties_and_zeros_match_torch(torch: Any, fn: Callable[..., Any], values: list[list[float]]) -> None:
    a = np.array(values, dtype=np.float64).reshape(2, -1)
    outs = []
    for m in (ctxgrad, torch):
        x = m.tensor(a, requires_grad=True)
        out = fn(m, x)
        if out.numel():
            out.sum().backward()
        outs.append((out, x.grad))
    (c_out, c_grad), (t_out, t_grad) = outs
    assert_same(c_out, t_out)
    assert (c_grad is None) == (t_grad is None)
    if t_grad is not None:
        assert_same(c_grad, t_grad)


@pytest.mark.parametrize("ord", [1, INF, -INF, "fro"])
@pytest.mark.parametrize("shape", [(2, 0), (0, 2), (3, 0, 2)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_matrix_norms_of_empty_matrices(torch: Any, ord: Any, shape: tuple[int, ...], keepdim: bool) -> None:
    outs = []
    for m in (ctxgrad, torch):
        try:
            outs.append(m.linalg.matrix_norm(m.zeros(*shape, requires_grad=True), ord, keepdim=keepdim))
        except Exception as exc:
            outs.append(f"{type(exc).__name__}: {exc}")
    if isinstance(outs[1], str):
        assert outs[0] == outs[1]
    else:
        assert_same(outs[0], outs[1])
        assert (outs[0].grad_fn is None) == (outs[1].grad_fn is None)


def test_einsum_keeps_the_plan_cache_small() -> None:
    from ctxgrad.ops.einsum import _plan

    for n in range(1, 6):
        ctxgrad.einsum("ij,jk->ik", ctxgrad.ones(2, n), ctxgrad.ones(n, 2))
    assert _plan.cache_info().maxsize is not None


def test_linalg_namespace() -> None:
    assert ctxgrad.linalg.__name__ == "ctxgrad.linalg"
    for name in ("norm", "vector_norm", "matrix_norm", "inv", "det", "solve", "matmul", "LinAlgError"):
        assert hasattr(ctxgrad.linalg, name)
    for name in ("mm", "bmm", "mv", "dot", "vdot", "outer", "einsum", "tensordot", "inverse", "det"):
        assert callable(getattr(ctxgrad, name)) and name in ctxgrad.__all__
    for name in ("mm", "bmm", "mv", "dot", "vdot", "outer", "inverse", "det"):
        assert callable(getattr(ctxgrad.Tensor, name))


KEYWORDS = [
    pytest.param(lambda m, a, b, v: m.bmm(input=a[None], mat2=b[None]), id="bmm"),
    pytest.param(lambda m, a, b, v: m.mv(input=a, vec=v), id="mv"),
    pytest.param(lambda m, a, b, v: m.dot(input=v, tensor=v), id="dot"),
    pytest.param(lambda m, a, b, v: v.dot(tensor=v), id="dot-method"),
    pytest.param(lambda m, a, b, v: m.vdot(input=v, other=v), id="vdot"),
    pytest.param(lambda m, a, b, v: m.outer(input=v, vec2=v), id="outer"),
    pytest.param(lambda m, a, b, v: v.outer(vec2=v), id="outer-method"),
    pytest.param(lambda m, a, b, v: a.mm(mat2=b), id="mm-method"),
    pytest.param(lambda m, a, b, v: m.tensordot(a=a, b=b, dims=1), id="tensordot"),
    pytest.param(lambda m, a, b, v: m.inverse(input=a), id="inverse"),
    pytest.param(lambda m, a, b, v: m.det(input=a), id="det"),
    pytest.param(lambda m, a, b, v: m.linalg.inv(A=a), id="linalg-inv"),
    pytest.param(lambda m, a, b, v: m.linalg.det(A=a), id="linalg-det"),
    pytest.param(lambda m, a, b, v: m.linalg.solve(A=a, B=b, left=True), id="linalg-solve"),
    pytest.param(
        lambda m, a, b, v: m.linalg.norm(input=a, ord=None, dim=None, keepdim=False, dtype=None), id="linalg-norm"
    ),
    pytest.param(
        lambda m, a, b, v: m.linalg.matrix_norm(a, ord="fro", dim=(-2, -1), keepdim=True, dtype=None),
        id="linalg-matrix-norm",
    ),
]


@pytest.mark.parametrize("fn", KEYWORDS)
def test_keyword_arguments_match_torch(torch: Any, fn: Callable[..., Any]) -> None:
    rng = np.random.default_rng(0)
    arrays = [np.eye(3) * 3 + rng.standard_normal((3, 3)), rng.standard_normal((3, 3)), rng.standard_normal(3)]
    c = fn(ctxgrad, *(ctxgrad.tensor(x) for x in arrays))
    t = fn(torch, *(torch.tensor(x) for x in arrays))
    assert_same(c, t)

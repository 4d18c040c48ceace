"""The complex rows of the op tables: every op of ``ctxgrad/ops/table.py`` that torch accepts
complex inputs for, with complex128 inputs (and complex64 where the kit compares float32).

The kit of ``_opcheck.py`` checks each row as it checks a real one: values against NumPy,
values and gradients against torch (complex gradients compared after ``resolve_conj()``),
gradients against central differences of the real loss ``Re(sum(out * w))`` along the real
and the imaginary part of each input (torch's convention: ``z.grad = dL/dx + i dL/dy``),
forward mode against torch and along a complex tangent, and double backward.

The ops torch refuses complex inputs for (``relu``, the roundings, ``erf``, ``atan2``,
``maximum``, ``clamp``, the ordering comparisons and reductions, ``sort`` and its family,
``sign``, ``softmax``, the bitwise ops, ``floor_divide``/``remainder``/``fmod``) have no complex
row: :data:`NOT_COMPLEX_IN_TORCH` lists them, and a test checks that ctxgrad refuses them with
torch's exception type (a strict xfail, :data:`REFUSAL_BUGS`, where it does not yet).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _opcheck import Case, InputSpec, OpFamilyTests

import ctxgrad

#: NumPy 2 spells it trapezoid; NumPy 1.26 (the floor) only trapz.
_trapezoid = getattr(np, "trapezoid", None) or np.trapz


def z_(*shapes: tuple[int, ...], domain: str = "any") -> list[InputSpec]:
    """Complex inputs of these shapes (``complex:<domain>``, see ``make_inputs``)."""
    return [(s, f"complex:{domain}") for s in shapes]


def _correlate(a: np.ndarray, w: np.ndarray) -> np.ndarray:
    """The convolutions' NumPy reference: ``out[n, o] = sum_c w[o, c] ⋆ a[n, c]`` (stride 1, one
    group), every window of ``a`` against every filter."""
    windows = np.lib.stride_tricks.sliding_window_view(a, w.shape[2:], axis=tuple(range(2, a.ndim)))
    spatial = "xyz"[: a.ndim - 2]
    kernel = "ijk"[: a.ndim - 2]
    return np.einsum(f"nc{spatial}{kernel},oc{kernel}->no{spatial}", windows, w)


def _transposed(a: np.ndarray, w: np.ndarray, stride: int) -> np.ndarray:
    """The transposed convolutions' NumPy reference: each input value times the filter, added
    into the output at ``stride`` times its position (``w`` is ``(in, out, *kernel)``)."""
    spatial = a.shape[2:]
    kernel = w.shape[2:]
    out = np.zeros((a.shape[0], w.shape[1], *((s - 1) * stride + k for s, k in zip(spatial, kernel))), a.dtype)
    for position in np.ndindex(*spatial):
        at = tuple(slice(p * stride, p * stride + k) for p, k in zip(position, kernel))
        out[(slice(None), slice(None), *at)] += np.einsum("nc,co...->no...", a[(..., *position)], w)
    return out


def _mask(m: Any, shape: tuple[int, ...]) -> Any:
    mask = np.arange(int(np.prod(shape))).reshape(shape) % 3 == 0
    return mask if m is np else m.tensor(mask)


def _index(m: Any, values: list[Any]) -> Any:
    return m.tensor(np.array(values, dtype=np.int64))


def _setitem(m: Any, a: Any, b: Any) -> Any:
    out = a * 1.0
    out[0] = b
    return out


def _inplace(name: str, *args: Any) -> Any:
    def run(m: Any, a: Any) -> Any:
        out = a * 1.0
        getattr(out, name)(*(arg(m) if callable(arg) else arg for arg in args))
        return out

    return run


POINTWISE = [
    Case("exp", lambda m, a: m.exp(a), z_((2, 3))),
    # the convolutions: the input and the weight both complex
    Case("conv1d", lambda m, a, w: m.conv1d(a, w), z_((2, 1, 5), (3, 1, 2)), ref=lambda _, a, w: _correlate(a, w)),
    Case(
        "conv2d",
        lambda m, a, w: m.conv2d(a, w, padding=1),
        z_((2, 1, 4, 4), (3, 1, 2, 2)),
        ref=lambda _, a, w: _correlate(np.pad(a, ((0, 0), (0, 0), (1, 1), (1, 1))), w),
    ),
    Case(
        "conv3d",
        lambda m, a, w: m.conv3d(a, w),
        z_((1, 1, 3, 3, 3), (2, 1, 2, 2, 2)),
        ref=lambda _, a, w: _correlate(a, w),
    ),
    Case(
        "conv_transpose1d",
        lambda m, a, w: m.conv_transpose1d(a, w),
        z_((2, 1, 4), (1, 3, 2)),
        ref=lambda _, a, w: _transposed(a, w, 1),
    ),
    Case(
        "conv_transpose2d",
        lambda m, a, w: m.conv_transpose2d(a, w, stride=2),
        z_((1, 1, 3, 3), (1, 2, 2, 2)),
        ref=lambda _, a, w: _transposed(a, w, 2),
    ),
    Case("log", lambda m, a: m.log(a), z_((2, 3), domain="pos")),
    Case("tanh", lambda m, a: m.tanh(a), z_((2, 3))),
    Case("abs", lambda m, a: m.abs(a), z_((2, 3), domain="nz")),
    Case("sqrt", lambda m, a: m.sqrt(a), z_((2, 3), domain="pos")),
    Case("rsqrt", lambda m, a: m.rsqrt(a), z_((2, 3), domain="pos"), ref=lambda m, a: 1 / np.sqrt(a)),
    Case("square", lambda m, a: m.square(a), z_((2, 3))),
    Case("reciprocal", lambda m, a: m.reciprocal(a), z_((2, 3), domain="nz")),
    Case("exp2", lambda m, a: m.exp2(a), z_((2, 3))),
    Case("expm1", lambda m, a: m.expm1(a), z_((2, 3))),
    Case("log2", lambda m, a: m.log2(a), z_((2, 3), domain="pos")),
    Case("log10", lambda m, a: m.log10(a), z_((2, 3), domain="pos")),
    Case("log1p", lambda m, a: m.log1p(a), z_((2, 3), domain="pos")),
    Case("sin", lambda m, a: m.sin(a), z_((2, 3))),
    Case("cos", lambda m, a: m.cos(a), z_((2, 3))),
    Case("tan", lambda m, a: m.tan(a), z_((2, 3), domain="unit")),
    Case("asin", lambda m, a: m.asin(a), z_((2, 3), domain="unit"), ref=lambda m, a: np.arcsin(a)),
    Case("acos", lambda m, a: m.acos(a), z_((2, 3), domain="unit"), ref=lambda m, a: np.arccos(a)),
    Case("atan", lambda m, a: m.atan(a), z_((2, 3), domain="unit"), ref=lambda m, a: np.arctan(a)),
    Case("sinh", lambda m, a: m.sinh(a), z_((2, 3))),
    Case("cosh", lambda m, a: m.cosh(a), z_((2, 3))),
    Case("sigmoid", lambda m, a: m.sigmoid(a), z_((2, 3), domain="unit"), ref=lambda m, a: 1 / (1 + np.exp(-a))),
    Case("neg", lambda m, a: m.neg(a), z_((2, 3)), ref=lambda m, a: -a),
    Case("pos", lambda m, a: +a, z_((3,))),
    Case("clone", lambda m, a: a.clone(), z_((2, 3)), ref=lambda m, a: a.copy()),
    Case("contiguous", lambda m, a: a.t().contiguous(), z_((2, 3)), ref=lambda m, a: a.T.copy()),
    Case("type_as", lambda m, a, b: a.type_as(b), z_((3,), (2,)), ref=lambda m, a, b: a),
    Case("cpu", lambda m, a: a.cpu(), z_((3,)), ref=lambda m, a: a),
    Case("to", lambda m, a: a.to(m.complex128) * 1.0, z_((3,)), ref=lambda m, a: a),
    Case("type", lambda m, a: a.type(m.complex128) * 1.0, z_((3,)), ref=lambda m, a: a),
    Case("double", lambda m, a: a.double() * 1.0, z_((3,)), ref=lambda m, a: a.real),
    Case("cdouble", lambda m, a: a.cdouble() * 1.0, z_((3,)), ref=lambda m, a: a.astype(np.complex128)),
    Case("to_dense", lambda m, a: a.to_dense() * 1.0, z_((3,)), ref=lambda m, a: a),
    Case(
        "nonzero",
        lambda m, a: m.nonzero(a * _mask(m, (2, 3))),
        z_((2, 3)),
        ref=lambda m, a: np.argwhere(a * _mask(m, (2, 3))),
    ),
    Case(
        "argwhere",
        lambda m, a: m.argwhere(a * _mask(m, (2, 3))),
        z_((2, 3)),
        ref=lambda m, a: np.argwhere(a * _mask(m, (2, 3))),
    ),
    Case("isnan", lambda m, a: m.isnan(a), z_((3,))),
    Case("isinf", lambda m, a: m.isinf(a), z_((3,))),
    Case("isfinite", lambda m, a: m.isfinite(a), z_((3,))),
    Case("logical_not", lambda m, a: m.logical_not(a), z_((3,))),
    Case("logical_and", lambda m, a, b: m.logical_and(a, b), z_((3,), (3,))),
    Case("logical_or", lambda m, a, b: m.logical_or(a, b), z_((3,), (3,))),
    Case("logical_xor", lambda m, a, b: m.logical_xor(a, b), z_((3,), (3,))),
    Case("eq", lambda m, a, b: a.eq(b), z_((3,), (3,)), ref=lambda m, a, b: a == b),
    Case("ne", lambda m, a, b: a != b, z_((3,), (3,))),
]

BINARY = [
    Case("add", lambda m, a, b: m.add(a, b), z_((2, 3), (3,))),
    Case("add-alpha", lambda m, a, b: m.add(a, b, alpha=2), z_((2, 3), (2, 3)), ref=lambda m, a, b: a + 2 * b),
    Case("sub", lambda m, a, b: m.sub(a, b), z_((2, 3), (2, 3)), ref=lambda m, a, b: a - b),
    Case("rsub", lambda m, a: 2.0 - a, z_((3,))),
    Case("mul", lambda m, a, b: m.mul(a, b), z_((2, 3), (3,)), ref=lambda m, a, b: a * b),
    Case("mul-real", lambda m, a, b: a * b, [((2, 3), "complex:any"), ((3,), "any")]),
    Case("mul-complex-scalar", lambda m, a: a * (1 - 2j), z_((3,))),
    Case("div", lambda m, a, b: m.div(a, b), z_((2, 3), (3,), domain="nz"), ref=lambda m, a, b: a / b),
    Case("rdiv", lambda m, a: 3.0 / a, z_((3,), domain="nz")),
    Case("div-real", lambda m, a, b: a / b, [((2, 3), "any"), ((3,), "complex:nz")]),
    Case("pow-int", lambda m, a: a**3, z_((3,))),
    Case("pow-float", lambda m, a: a**1.5, z_((3,), domain="pos")),
    Case("pow-tensor", lambda m, a, b: m.pow(a, b), z_((3,), (3,), domain="pos"), ref=lambda m, a, b: a**b),
    Case("rpow", lambda m, a: 2.0**a, z_((3,))),
    Case("lerp", lambda m, a, b: a.lerp(b, 0.3), z_((2, 3), (2, 3)), ref=lambda m, a, b: a + 0.3 * (b - a)),
    Case(
        "lerp-tensor-weight",
        lambda m, a, b, w: a.lerp(b, w),
        z_((2, 3), (2, 3), (3,)),
        ref=lambda m, a, b, w: a + w * (b - a),
    ),
    Case("where", lambda m, a, b: m.where(_mask(m, (2, 3)), a, b), z_((2, 3), (3,))),
    Case(
        "masked_fill",
        lambda m, a: a.masked_fill(_mask(m, (2, 3)), 2.0),
        z_((2, 3)),
        ref=lambda m, a: np.where(np.arange(6).reshape(2, 3) % 3 == 0, 2.0, a),
    ),
]

REDUCTIONS = [
    Case("sum", lambda m, a: a.sum(), z_((2, 3))),
    Case("sum-dim", lambda m, a: a.sum(1), z_((2, 3))),
    Case("mean", lambda m, a: a.mean(0), z_((2, 3))),
    Case("prod", lambda m, a: a.prod(), z_((2, 3), domain="nz")),
    Case("prod-dim", lambda m, a: a.prod(1), z_((2, 3), domain="nz")),
    Case("var", lambda m, a: a.var(1), z_((2, 3)), ref=lambda m, a: a.var(1, ddof=1)),
    Case("std", lambda m, a: a.std(), z_((2, 3)), ref=lambda m, a: a.std(ddof=1)),
    Case("norm", lambda m, a: a.norm(), z_((2, 3)), ref=lambda m, a: np.linalg.norm(a)),
    Case("norm-dim", lambda m, a: a.norm(dim=1), z_((2, 3)), ref=lambda m, a: np.linalg.norm(a, axis=1)),
    Case("cumsum", lambda m, a: a.cumsum(1), z_((2, 3)), ref=lambda m, a: np.cumsum(a, 1)),
    Case("cumprod", lambda m, a: a.cumprod(1), z_((2, 3), domain="nz"), ref=lambda m, a: np.cumprod(a, 1)),
    Case(
        "logsumexp",
        lambda m, a: m.logsumexp(a, 1),
        z_((2, 3), domain="unit"),
        ref=lambda m, a: np.log(np.exp(a).sum(1)),
    ),
    Case("all", lambda m, a: a.all(), z_((2, 3))),
    Case("any", lambda m, a: m.any(a, 1), z_((2, 3)), ref=lambda m, a: np.any(a, 1)),
    Case("sum_to_size", lambda m, a: a.sum_to_size(1, 3), z_((2, 3)), ref=lambda m, a: a.sum(0, keepdims=True)),
]

SHAPE = [
    Case("reshape", lambda m, a: a.reshape(3, 2), z_((2, 3))),
    Case("view", lambda m, a: a.view(6), z_((2, 3)), ref=lambda m, a: a.reshape(6)),
    Case("view_as", lambda m, a, b: a.view_as(b), z_((2, 3), (6,)), ref=lambda m, a, b: a.reshape(6)),
    Case("reshape_as", lambda m, a, b: a.reshape_as(b), z_((2, 3), (3, 2)), ref=lambda m, a, b: a.reshape(3, 2)),
    Case("expand", lambda m, a: a.expand(2, 3), z_((3,)), ref=lambda m, a: np.broadcast_to(a, (2, 3))),
    Case("expand_as", lambda m, a, b: a.expand_as(b), z_((3,), (2, 3)), ref=lambda m, a, b: np.broadcast_to(a, (2, 3))),
    Case("broadcast_to", lambda m, a: m.broadcast_to(a, (2, 3)), z_((3,))),
    Case("t", lambda m, a: a.t(), z_((2, 3)), ref=lambda m, a: a.T),
    Case("T", lambda m, a: a.T, z_((2, 3))),
    Case("mT", lambda m, a: a.mT, z_((2, 2, 3)), ref=lambda m, a: np.swapaxes(a, -1, -2)),
    Case("mH", lambda m, a: a.mH, z_((2, 3)), ref=lambda m, a: np.conj(a).T),
    Case("H", lambda m, a: a.H, z_((2, 3)), ref=lambda m, a: np.conj(a).T),
    Case("adjoint", lambda m, a: m.adjoint(a), z_((2, 2, 3)), ref=lambda m, a: np.conj(np.swapaxes(a, -1, -2))),
    Case("transpose", lambda m, a: a.transpose(0, 2), z_((2, 3, 2)), ref=lambda m, a: np.swapaxes(a, 0, 2)),
    Case("swapaxes", lambda m, a: a.swapaxes(0, 1), z_((2, 3))),
    Case("swapdims", lambda m, a: a.swapdims(0, 1), z_((2, 3)), ref=lambda m, a: a.swapaxes(0, 1)),
    Case("permute", lambda m, a: a.permute(2, 0, 1), z_((2, 3, 2)), ref=lambda m, a: a.transpose(2, 0, 1)),
    Case("flatten", lambda m, a: a.flatten(), z_((2, 3))),
    Case("unflatten", lambda m, a: a.unflatten(0, (2, 3)), z_((6,)), ref=lambda m, a: a.reshape(2, 3)),
    Case("squeeze", lambda m, a: a.squeeze(1), z_((2, 1, 3))),
    Case("unsqueeze", lambda m, a: a.unsqueeze(0), z_((2, 3)), ref=lambda m, a: a[None]),
    Case("movedim", lambda m, a: m.movedim(a, 0, 1), z_((2, 3)), ref=lambda m, a: np.moveaxis(a, 0, 1)),
    Case("moveaxis", lambda m, a: m.moveaxis(a, 0, 1), z_((2, 3))),
    Case("narrow", lambda m, a: a.narrow(1, 1, 2), z_((2, 3)), ref=lambda m, a: a[:, 1:3]),
    Case("unbind", lambda m, a: a.unbind(1)[2], z_((2, 3)), ref=lambda m, a: a[:, 2]),
    Case("split", lambda m, a: a.split(2, 1)[1], z_((2, 3)), ref=lambda m, a: a[:, 2:]),
    Case("chunk", lambda m, a: a.chunk(2, 1)[0], z_((2, 3)), ref=lambda m, a: a[:, :2]),
    Case("flip", lambda m, a: a.flip(1), z_((2, 3)), ref=lambda m, a: a[:, ::-1]),
    Case("fliplr", lambda m, a: m.fliplr(a), z_((2, 3))),
    Case("flipud", lambda m, a: m.flipud(a), z_((2, 3))),
    Case("roll", lambda m, a: a.roll(1, 1), z_((2, 3)), ref=lambda m, a: np.roll(a, 1, 1)),
    Case("repeat", lambda m, a: a.repeat(2, 1), z_((2, 3)), ref=lambda m, a: np.tile(a, (2, 1))),
    Case("tile", lambda m, a: a.tile((1, 2)), z_((2, 3)), ref=lambda m, a: np.tile(a, (1, 2))),
    Case("tril", lambda m, a: a.tril(), z_((3, 3)), ref=lambda m, a: np.tril(a)),
    Case("triu", lambda m, a: a.triu(1), z_((3, 3)), ref=lambda m, a: np.triu(a, 1)),
    Case("diagonal", lambda m, a: a.diagonal(), z_((3, 3)), ref=lambda m, a: np.diagonal(a).copy()),
    Case("diag", lambda m, a: m.diag(a), z_((3,))),
    Case("diag_embed", lambda m, a: m.diag_embed(a), z_((2, 3)), ref=lambda m, a: a[..., None] * np.eye(3)),
    Case("cat", lambda m, a, b: m.cat([a, b], 0), z_((2, 3), (1, 3)), ref=lambda m, a, b: np.concatenate([a, b], 0)),
    Case("stack", lambda m, a, b: m.stack([a, b], 1), z_((2, 3), (2, 3)), ref=lambda m, a, b: np.stack([a, b], 1)),
]

LINALG = [
    Case("matmul", lambda m, a, b: a @ b, z_((2, 3), (3, 4))),
    Case("matmul-batched", lambda m, a, b: m.matmul(a, b), z_((2, 2, 3), (3,))),
    Case("mm", lambda m, a, b: m.mm(a, b), z_((2, 3), (3, 2)), ref=lambda m, a, b: a @ b),
    Case("bmm", lambda m, a, b: m.bmm(a, b), z_((2, 2, 3), (2, 3, 2)), ref=lambda m, a, b: a @ b),
    Case("mv", lambda m, a, b: m.mv(a, b), z_((2, 3), (3,)), ref=lambda m, a, b: a @ b),
    Case("dot", lambda m, a, b: m.dot(a, b), z_((3,), (3,))),
    Case("vdot", lambda m, a, b: m.vdot(a, b), z_((3,), (3,))),
    Case("outer", lambda m, a, b: m.outer(a, b), z_((3,), (2,))),
    Case("inverse", lambda m, a: m.inverse(a), z_((3, 3), domain="wellcond"), ref=lambda m, a: np.linalg.inv(a)),
    Case("det", lambda m, a: m.det(a), z_((3, 3), domain="wellcond"), ref=lambda m, a: np.linalg.det(a)),
]

INDEXING = [
    Case("getitem-int", lambda m, a: a[1], z_((2, 3))),
    Case("getitem-slice", lambda m, a: a[:, 1:], z_((2, 3))),
    Case("getitem-list", lambda m, a: a[[1, 0, 1]], z_((2, 3))),
    Case(
        "getitem-mask",
        lambda m, a: a[_mask(m, (2, 3))],
        z_((2, 3)),
        ref=lambda m, a: a[np.arange(6).reshape(2, 3) % 3 == 0],
    ),
    Case("select", lambda m, a: a.select(1, 2), z_((2, 3)), ref=lambda m, a: a[:, 2]),
    Case(
        "index_select",
        lambda m, a: m.index_select(a, 1, _index(m, [2, 0, 2])),
        z_((2, 3)),
        ref=lambda m, a: a[:, [2, 0, 2]],
    ),
    Case(
        "gather",
        lambda m, a: m.gather(a, 1, _index(m, [[0, 2], [1, 1]])),
        z_((2, 3)),
        ref=lambda m, a: np.take_along_axis(a, np.array([[0, 2], [1, 1]]), 1),
    ),
    Case(
        "take_along_dim",
        lambda m, a: m.take_along_dim(a, _index(m, [[0, 2], [1, 1]]), 1),
        z_((2, 3)),
        ref=lambda m, a: np.take_along_axis(a, np.array([[0, 2], [1, 1]]), 1),
    ),
    Case("take", lambda m, a: m.take(a, _index(m, [5, 0, 3])), z_((2, 3)), ref=lambda m, a: np.take(a, [5, 0, 3])),
    Case(
        "masked_select",
        lambda m, a: m.masked_select(a, _mask(m, (2, 3))),
        z_((2, 3)),
        ref=lambda m, a: a[np.arange(6).reshape(2, 3) % 3 == 0],
    ),
    Case(
        "scatter",
        lambda m, a, b: m.scatter(a, 1, _index(m, [[2, 0], [1, 2]]), b),
        z_((2, 3), (2, 2)),
        ref=lambda m, a, b: _np_scatter(a, b, add=False),
    ),
    Case(
        "scatter_add",
        lambda m, a, b: m.scatter_add(a, 1, _index(m, [[2, 0], [1, 2]]), b),
        z_((2, 3), (2, 2)),
        ref=lambda m, a, b: _np_scatter(a, b, add=True),
    ),
    Case("setitem", _setitem, z_((2, 3), (3,)), ref=lambda m, a, b: np.concatenate([b[None], a[1:]])),
    Case("zero_", _inplace("zero_"), z_((2, 3)), ref=lambda m, a: np.zeros_like(a)),
    Case("fill_", _inplace("fill_", 1.5), z_((2, 3)), ref=lambda m, a: np.full_like(a, 1.5)),
    Case(
        "copy_",
        lambda m, a, b: (a * 1.0).copy_(b),
        z_((2, 3), (3,)),
        ref=lambda m, a, b: np.broadcast_to(b, a.shape).copy(),
    ),
    Case(
        "mul_-view",
        lambda m, a, b: _mul_into_view(a, b),
        z_((2, 3), (3,)),
        ref=lambda m, a, b: np.concatenate([a[:1] * b, a[1:]]),
    ),
]

COMPLEX = [
    Case("real", lambda m, a: m.real(a), z_((2, 3))),
    Case("imag", lambda m, a: m.imag(a), z_((2, 3))),
    Case("conj", lambda m, a: m.conj(a), z_((2, 3))),
    Case("conj_physical", lambda m, a: m.conj_physical(a), z_((2, 3)), ref=lambda m, a: np.conj(a)),
    Case("resolve_conj", lambda m, a: m.resolve_conj(a.conj()), z_((2, 3)), ref=lambda m, a: np.conj(a)),
    Case("angle", lambda m, a: m.angle(a), z_((2, 3), domain="pos")),
    Case("view_as_real", lambda m, a: m.view_as_real(a), z_((2, 3)), ref=lambda m, a: np.stack([a.real, a.imag], -1)),
]


# The shape, statistics and indexed-write ops torch code calls beside the basic ones.
_WINDOWS = np.lib.stride_tricks.sliding_window_view


def _block_diag(*mats: np.ndarray) -> np.ndarray:
    out = np.zeros((sum(a.shape[0] for a in mats), sum(a.shape[1] for a in mats)), dtype=np.complex128)
    r = c = 0
    for a in mats:
        out[r : r + a.shape[0], c : c + a.shape[1]] = a
        r, c = r + a.shape[0], c + a.shape[1]
    return out


def _put(a: np.ndarray, index: Any, v: np.ndarray, accumulate: bool) -> np.ndarray:
    out = a.copy()
    if accumulate:
        np.add.at(out, index, v)
    else:
        out[index] = v
    return out


MORE = [
    Case(
        "tensor_split",
        lambda m, a: m.cat([p * (i + 1.0) for i, p in enumerate(m.tensor_split(a, 2, 1))], 1),
        z_((2, 3)),
        ref=lambda m, a: np.concatenate([a[:, :2], 2 * a[:, 2:]], 1),
    ),
    *(
        Case(
            name,
            lambda m, a, name=name: getattr(m, name)(a, [1])[0],
            z_((2, 2, 2)),
            ref=lambda m, a, name=name: a[:1] if name == "vsplit" else a[:, :1] if name == "hsplit" else a[:, :, :1],
        )
        for name in ("hsplit", "vsplit", "dsplit")
    ),
    Case("split_with_sizes", lambda m, a: a.split_with_sizes([2, 1], 1)[1], z_((2, 3)), ref=lambda m, a: a[:, 2:]),
    Case("atleast_1d", lambda m, a: m.atleast_1d(a), z_(())),
    Case("atleast_2d", lambda m, a: m.atleast_2d(a), z_((3,))),
    Case("atleast_3d", lambda m, a: m.atleast_3d(a), z_((2, 3))),
    Case("column_stack", lambda m, a, b: m.column_stack([a, b]), z_((3,), (3, 2))),
    Case("row_stack", lambda m, a, b: m.row_stack([a, b]), z_((3,), (2, 3)), ref=lambda m, a, b: np.vstack([a, b])),
    Case("dstack", lambda m, a, b: m.dstack([a, b]), z_((2, 3), (2, 3))),
    Case("ravel", lambda m, a: m.ravel(a.mT), z_((2, 3)), ref=lambda m, a: np.ravel(a.T)),
    Case("rot90", lambda m, a: m.rot90(a), z_((2, 3)), ref=lambda m, a: np.rot90(a)),
    Case("repeat_interleave", lambda m, a: a.repeat_interleave(2, 0), z_((2, 3)), ref=lambda m, a: np.repeat(a, 2, 0)),
    Case(
        "meshgrid",
        lambda m, a, b: m.meshgrid(a, b, indexing="xy")[0] * 2.0 + m.meshgrid(a, b, indexing="xy")[1],
        z_((3,), (2,)),
        ref=lambda m, a, b: np.meshgrid(a, b)[0] * 2.0 + np.meshgrid(a, b)[1],
    ),
    Case(
        "cartesian_prod",
        lambda m, a, b: m.cartesian_prod(a, b),
        z_((3,), (2,)),
        ref=lambda m, a, b: np.array([[x, y] for x in a for y in b]),
    ),
    Case(
        "combinations",
        lambda m, a: m.combinations(a),
        z_((3,)),
        ref=lambda m, a: np.array([[a[0], a[1]], [a[0], a[2]], [a[1], a[2]]]),
    ),
    Case("block_diag", lambda m, a, b: m.block_diag(a, b), z_((2, 2), (1, 3)), ref=lambda m, a, b: _block_diag(a, b)),
    Case("diagflat", lambda m, a: m.diagflat(a), z_((3,))),
    Case("narrow_copy", lambda m, a: a.narrow_copy(1, 1, 2), z_((2, 3)), ref=lambda m, a: a[:, 1:3]),
    Case("unfold", lambda m, a: a.unfold(1, 2, 1), z_((2, 4)), ref=lambda m, a: _WINDOWS(a, 2, axis=1)),
    Case("as_strided", lambda m, a: a.as_strided((3, 2), (1, 1)), z_((4,)), ref=lambda m, a: _WINDOWS(a, 2)[:3]),
    Case(
        "index_add",
        lambda m, a, b: a.index_add(0, _index(m, [1, 1]), b, alpha=2.0),
        z_((2, 3), (2, 3)),
        ref=lambda m, a, b: _put(a, ([1, 1],), 2.0 * b, True),
    ),
    Case(
        "index_copy",
        lambda m, a, b: a.index_copy(1, _index(m, [2, 0]), b),
        z_((2, 3), (2, 2)),
        ref=lambda m, a, b: _put(a, (slice(None), [2, 0]), b, False),
    ),
    Case(
        "index_fill",
        lambda m, a: a.index_fill(1, _index(m, [1]), 2.5),
        z_((2, 3)),
        ref=lambda m, a: _put(a, (slice(None), [1]), np.array(2.5), False),
    ),
    Case(
        "index_put",
        lambda m, a, b: a.index_put((_index(m, [0, 0]),), b, accumulate=True),
        z_((2, 3), (3,)),
        ref=lambda m, a, b: _put(a, ([0, 0],), b, True),
    ),
    Case(
        "masked_scatter",
        lambda m, a, b: a.masked_scatter(_mask(m, (2, 3)), b),
        z_((2, 3), (4,)),
        ref=lambda m, a, b: _put(a, np.arange(6).reshape(2, 3) % 3 == 0, b[:2], False),
    ),
    Case("count_nonzero", lambda m, a: m.count_nonzero(a, 1), z_((2, 3)), ref=lambda m, a: np.count_nonzero(a, 1)),
    Case(
        "logcumsumexp",
        lambda m, a: a.logcumsumexp(1),
        z_((2, 3), domain="unit"),
        ref=lambda m, a: np.log(np.cumsum(np.exp(a), 1)),
    ),
    Case(
        "std_mean",
        lambda m, a: m.std_mean(a, 1)[0] + m.std_mean(a, 1)[1],
        z_((2, 3)),
        ref=lambda m, a: np.std(a, 1, ddof=1) + np.mean(a, 1),
    ),
    Case(
        "var_mean",
        lambda m, a: m.var_mean(a, 0)[0] * m.var_mean(a, 0)[1],
        z_((3, 2)),
        ref=lambda m, a: np.var(a, 0, ddof=1) * np.mean(a, 0),
    ),
    Case("diff", lambda m, a: m.diff(a, 2), z_((2, 4)), ref=lambda m, a: np.diff(a, 2)),
    Case("trapezoid", lambda m, a: m.trapezoid(a), z_((2, 4)), ref=lambda m, a: _trapezoid(a)),
    Case("trapz", lambda m, a: m.trapz(a, dx=0.5), z_((2, 4)), ref=lambda m, a: _trapezoid(a, dx=0.5)),
    Case(
        "cumulative_trapezoid",
        lambda m, a: m.cumulative_trapezoid(a),
        z_((2, 4)),
        ref=lambda m, a: np.cumsum((a[:, 1:] + a[:, :-1]) / 2, 1),
    ),
    Case(
        "put",
        lambda m, a, b: a.put(_index(m, [5, 0]), b, accumulate=True),
        z_((2, 3), (2,)),
        ref=lambda m, a, b: _put(a.reshape(-1), [5, 0], b, True).reshape(2, 3),
    ),
    Case(
        "diagonal_scatter",
        lambda m, a, b: m.diagonal_scatter(a, b),
        z_((2, 2), (2,)),
        ref=lambda m, a, b: a - np.diag(np.diag(a)) + np.diag(b),
    ),
    Case("dist", lambda m, a, b: m.dist(a, b), z_((2, 3), (3,)), ref=lambda m, a, b: np.linalg.norm((a - b).ravel())),
    Case("gradient", lambda m, a: m.gradient(a, dim=1)[0], z_((2, 4)), ref=lambda m, a: np.gradient(a, axis=1)),
    Case("cov", lambda m, a: a.cov(), z_((2, 4)), ref=lambda m, a: np.cov(a)),
    Case("corrcoef", lambda m, a: a.corrcoef(), z_((2, 4)), ref=lambda m, a: np.corrcoef(a)),
    Case(
        "renorm",
        lambda m, a: a.renorm(2, 0, 1.0),
        z_((2, 3)),
        ref=lambda m, a: a * np.where((n := np.linalg.norm(a, axis=1, keepdims=True)) > 1.0, 1.0 / (n + 1e-7), 1.0),
    ),
]


def _np_scatter(a: np.ndarray, b: np.ndarray, add: bool) -> np.ndarray:
    out = a.copy()
    for i, row in enumerate([[2, 0], [1, 2]]):
        for j, k in enumerate(row):
            out[i, k] = out[i, k] + b[i, j] if add else b[i, j]
    return out


def _mul_into_view(a: Any, b: Any) -> Any:
    out = a * 1.0
    out[:1].mul_(b)
    return out


#: torch's further functions (tests/test_torch_functions.py has their real rows).
SURFACE = [
    Case("acosh", lambda m, a: m.acosh(a), z_((2, 3)), ref=lambda m, a: np.arccosh(a)),
    Case("asinh", lambda m, a: m.asinh(a), z_((2, 3)), ref=lambda m, a: np.arcsinh(a)),
    Case("atanh", lambda m, a: m.atanh(a), z_((2, 3), domain="unit"), ref=lambda m, a: np.arctanh(a)),
    Case("sinc", lambda m, a: m.sinc(a), z_((2, 3))),
    Case("positive", lambda m, a: m.positive(a) * 1.0, z_((3,)), ref=lambda m, a: a),
    Case("sgn", lambda m, a: m.sgn(a), z_((2, 3), domain="nz"), ref=lambda m, a: a / np.abs(a)),
    Case("logaddexp", lambda m, a, b: m.logaddexp(a, b), z_((2, 3), (3,)),
         ref=lambda m, a, b: np.log(np.exp(a) + np.exp(b))),
    Case("float_power", lambda m, a: m.float_power(a, 2), z_((2, 3)), ref=lambda m, a: a**2),
    Case("ldexp", lambda m, a, b: m.ldexp(a, b), z_((2, 3), (3,)), ref=lambda m, a, b: a * 2.0**b),
    Case("addcmul", lambda m, x, a, b: m.addcmul(x, a, b, value=2), z_((2, 3), (2, 3), (3,)),
         ref=lambda m, x, a, b: x + 2 * a * b),
    Case("addcdiv", lambda m, x, a, b: m.addcdiv(x, a, b), z_((2, 3), (2, 3), (3,), domain="nz"),
         ref=lambda m, x, a, b: x + a / b),
    Case("isreal", lambda m, a: m.isreal(a * m.tensor([1, 0, 1])), z_((3,)), ref=lambda m, a: np.isreal(a * [1, 0, 1])),
    Case("addmm", lambda m, x, a, b: m.addmm(x, a, b), z_((2, 4), (2, 3), (3, 4)), ref=lambda m, x, a, b: x + a @ b),
    Case("addmv", lambda m, x, a, v: m.addmv(x, a, v), z_((2,), (2, 3), (3,)), ref=lambda m, x, a, v: x + a @ v),
    Case("addr", lambda m, x, u, v: m.addr(x, u, v), z_((2, 3), (2,), (3,)), ref=lambda m, x, u, v: x + np.outer(u, v)),
    Case("baddbmm", lambda m, x, a, b: m.baddbmm(x, a, b), z_((2, 2, 4), (2, 2, 3), (2, 3, 4)),
         ref=lambda m, x, a, b: x + a @ b),
    Case("addbmm", lambda m, x, a, b: m.addbmm(x, a, b), z_((2, 4), (3, 2, 3), (3, 3, 4)),
         ref=lambda m, x, a, b: x + (a @ b).sum(0)),
    Case("chain_matmul", lambda m, a, b: _quiet(m.chain_matmul, a, b), z_((2, 3), (3, 2)), ref=lambda m, a, b: a @ b),
    Case("inner", lambda m, a, b: m.inner(a, b), z_((2, 3), (4, 3))),
    Case("kron", lambda m, a, b: m.kron(a, b), z_((2, 2), (2, 3))),
    Case("cross", lambda m, a, b: m.cross(a, b, dim=0), z_((3, 2), (3, 2)), ref=lambda m, a, b: np.cross(a, b, axis=0)),
    Case("trace", lambda m, a: m.trace(a), z_((3, 3))),
    Case("logdet", lambda m, a: m.logdet(a), z_((3, 3), domain="wellcond"), ref=lambda m, a: np.log(np.linalg.det(a))),
    Case("matrix_power", lambda m, a: m.matrix_power(a, 3), z_((3, 3)), ref=lambda m, a: a @ a @ a),
    Case("matrix_exp", lambda m, a: m.matrix_exp(a), z_((3, 3)), ref=lambda m, a: _expm_ref(a)),
]  # fmt: skip


def _expm_ref(a: np.ndarray) -> np.ndarray:
    """exp of a matrix by its eigendecomposition (the random test matrices are diagonalisable)."""
    w, v = np.linalg.eig(a)
    return v @ (np.exp(w)[:, None] * np.linalg.inv(v))


def _quiet(fn: Any, *args: Any) -> Any:
    """``fn(*args)`` without its deprecation warning (``chain_matmul``)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        return fn(*args)


CASES = POINTWISE + BINARY + REDUCTIONS + SHAPE + LINALG + INDEXING + COMPLEX + SURFACE + MORE
_LINEAR = {
    "neg", "pos", "clone", "contiguous", "type_as", "add", "add-alpha", "sub", "rsub",
    "mul-complex-scalar", "sum", "sum-dim", "mean", "cumsum", "sum_to_size", "where", "masked_fill", "real", "imag",
    "conj", "conj_physical", "resolve_conj", "view_as_real", "setitem", "zero_", "fill_", "copy_",
    "lerp", "cpu", "to", "type", "double", "nonzero", "argwhere", "positive", "trace", "count_nonzero",
    "cdouble", "to_dense", "adjoint",
}  # fmt: skip
_LINEAR_MORE = {c.id for c in MORE} - {
    "logcumsumexp",
    "std_mean",
    "var_mean",
    "cov",
    "corrcoef",
    "renorm",
    "scatter_reduce-prod",
}
DOUBLE = [c for c in CASES if c.id not in _LINEAR | _LINEAR_MORE and c.id not in {s.id for s in SHAPE + INDEXING}]
DOUBLE = [
    c
    for c in DOUBLE
    if c.id
    not in {
        "isnan",
        "isinf",
        "isfinite",
        "logical_not",
        "logical_and",
        "logical_or",
        "logical_xor",
        "eq",
        "ne",
        "all",
        "any",
        "isreal",
    }
]


class TestComplexOps(OpFamilyTests):
    """The kit's checks on complex inputs."""

    cases = CASES
    double_cases = DOUBLE


#: The ops of the table torch refuses complex inputs for, each as a program of one complex
#: tensor ``a``: ctxgrad must refuse them with torch's exception type.
NOT_COMPLEX_IN_TORCH: dict[str, Callable[[Any, Any], Any]] = {
    "relu": lambda m, a: m.relu(a),
    "floor": lambda m, a: m.floor(a),
    "ceil": lambda m, a: m.ceil(a),
    "round": lambda m, a: m.round(a),
    "trunc": lambda m, a: m.trunc(a),
    "frac": lambda m, a: m.frac(a),
    "erf": lambda m, a: m.erf(a),
    "erfc": lambda m, a: m.erfc(a),
    "logit": lambda m, a: m.logit(a),
    "atan2": lambda m, a: m.atan2(a, a),
    "maximum": lambda m, a: m.maximum(a, a),
    "minimum": lambda m, a: m.minimum(a, a),
    "clamp": lambda m, a: m.clamp(a, 0.0),
    "clamp_min": lambda m, a: m.clamp_min(a, 0.0),
    "clamp_max": lambda m, a: m.clamp_max(a, 0.0),
    "lt": lambda m, a: a < a,
    "le": lambda m, a: a <= a,
    "gt": lambda m, a: a > a,
    "ge": lambda m, a: a >= a,
    "max": lambda m, a: a.max(),
    "min": lambda m, a: a.min(),
    "amax": lambda m, a: a.amax(),
    "amin": lambda m, a: a.amin(),
    "argmax": lambda m, a: a.argmax(),
    "argmin": lambda m, a: a.argmin(),
    "sort": lambda m, a: m.sort(a).values,
    "argsort": lambda m, a: m.argsort(a),
    "topk": lambda m, a: m.topk(a, 1).values,
    "kthvalue": lambda m, a: m.kthvalue(a, 1).values,
    "median": lambda m, a: m.median(a),
    "sign": lambda m, a: m.sign(a),
    "floor_divide": lambda m, a: m.floor_divide(a, a),
    "remainder": lambda m, a: m.remainder(a, a),
    "fmod": lambda m, a: m.fmod(a, a),
    "bitwise_and": lambda m, a: m.bitwise_and(a, a),
    "softmax": lambda m, a: m.softmax(a, 0),
    "log_softmax": lambda m, a: m.log_softmax(a, 0),
    "nansum": lambda m, a: m.nansum(a),
    "nanmean": lambda m, a: m.nanmean(a),
    "aminmax": lambda m, a: m.aminmax(a).min,
    "cummax": lambda m, a: m.cummax(a, 0).values,
    "cummin": lambda m, a: m.cummin(a, 0).values,
    "mode": lambda m, a: m.mode(a).values,
    "nanmedian": lambda m, a: m.nanmedian(a),
    "nanmedian-dim": lambda m, a: m.nanmedian(a, 0).values,
    "quantile": lambda m, a: m.quantile(a, 0.5),
    "nanquantile": lambda m, a: m.nanquantile(a, 0.5),
    "unique": lambda m, a: m.unique(a),
    "unique_consecutive": lambda m, a: m.unique_consecutive(a),
    "histc": lambda m, a: m.histc(a),
    "histc-range": lambda m, a: m.histc(a, 3, 0, 1),
    "histogram": lambda m, a: m.histogram(a, 3),
    "searchsorted": lambda m, a: m.searchsorted(a, a),
    "bucketize": lambda m, a: m.bucketize(a, m.tensor([1.0, 2.0])),
    "scatter_reduce-amax": lambda m, a: a.scatter_reduce(0, m.tensor([0, 0]), a, "amax"),
    "scatter_reduce-amin": lambda m, a: a.scatter_reduce(0, m.tensor([0, 0]), a, "amin"),
    "index_reduce": lambda m, a: a.index_reduce(0, m.tensor([0, 0]), a, "prod"),
    "msort": lambda m, a: m.msort(a),
}
NOT_COMPLEX_IN_TORCH.update(
    {
        # complex rows are taken without gradients; with one, torch refuses (as ctxgrad)
        "embedding": lambda m, a: m.embedding(a.reshape(2, 1).requires_grad_(), m.tensor([0])),
        "deg2rad": lambda m, a: m.deg2rad(a),
        "rad2deg": lambda m, a: m.rad2deg(a),
        "lgamma": lambda m, a: m.lgamma(a),
        "digamma": lambda m, a: m.digamma(a),
        "polygamma": lambda m, a: m.polygamma(1, a),
        "erfinv": lambda m, a: m.erfinv(a),
        "hypot": lambda m, a: m.hypot(a, a),
        "logaddexp2": lambda m, a: m.logaddexp2(a, a),
        "xlogy": lambda m, a: m.xlogy(a, a),
        "copysign": lambda m, a: m.copysign(a, a),
        "heaviside": lambda m, a: m.heaviside(a, a),
        "fmax": lambda m, a: m.fmax(a, a),
        "fmin": lambda m, a: m.fmin(a, a),
        "signbit": lambda m, a: m.signbit(a),
        "isposinf": lambda m, a: m.isposinf(a),
        "isneginf": lambda m, a: m.isneginf(a),
        "cdist": lambda m, a: m.cdist(a[None], a[None]),
        "nextafter": lambda m, a: m.nextafter(a, a),
        "i0": lambda m, a: m.i0(a),
        "gcd": lambda m, a: m.gcd(a, a),
        "lcm": lambda m, a: m.lcm(a, a),
        "bitwise_left_shift": lambda m, a: a << 1,
        "bitwise_right_shift": lambda m, a: m.bitwise_right_shift(a, 1),
        "isin": lambda m, a: m.isin(a, a),
        "histogramdd": lambda m, a: m.histogramdd(a.reshape(-1, 1), 2),
        "hash_tensor": lambda m, a: m.hash_tensor(a),
        "igamma": lambda m, a: m.igamma(a, a),
        "igammac": lambda m, a: m.igammac(a, a),
        "nll_loss": lambda m, a: m.nn.functional.nll_loss(a.reshape(1, -1), m.tensor([0])),
        # torch computes complex values but refuses their gradient
        "silu": lambda m, a: m.nn.functional.silu(a.requires_grad_()),
        **{
            name: lambda m, a, name=name: getattr(m.nn.functional, name)(a)
            for name in (
                "leaky_relu",
                "elu",
                "gelu",
                "softplus",
                "hardtanh",
                "selu",
                "celu",
                "mish",
                "hardswish",
                "hardsigmoid",
            )
        },
        "cross_entropy": lambda m, a: m.nn.functional.cross_entropy(a.reshape(1, -1), m.tensor([0])),
    }
)
#: Where ctxgrad does not refuse as torch does (strict xfails: noticed when fixed); none now:
#: each of these ops refuses a complex input with torch's type and message (ops._util.refuse_complex).
REFUSAL_BUGS: dict[str, str] = {}


def _raised(program: Callable[[Any, Any], Any], m: Any) -> tuple[type[BaseException], str] | None:
    try:
        program(m, m.tensor(np.array([1 + 1j, 2 - 1j])))
    except Exception as exc:
        return type(exc), str(exc)
    return None


@pytest.mark.parametrize(
    "name",
    [
        pytest.param(
            n, marks=pytest.mark.xfail(strict=True, reason=f"BUG: {REFUSAL_BUGS[n]}") if n in REFUSAL_BUGS else ()
        )
        for n in NOT_COMPLEX_IN_TORCH
    ],
)
def test_ops_torch_refuses_for_complex_are_refused(torch: Any, name: str) -> None:
    theirs = _raised(NOT_COMPLEX_IN_TORCH[name], torch)
    assert theirs is not None, "torch takes it now: give it a complex row"
    assert _raised(NOT_COMPLEX_IN_TORCH[name], ctxgrad) == theirs


def test_row_ids_are_unique() -> None:
    assert len({c.id for c in CASES}) == len(CASES)


#: The ops of the table without a row of their own: the row (or refusal) that covers them.
COVERED_BY = {
    "arctan2": "atan2", "clip": "clamp", "true_divide_": "div", "pow": "pow-tensor", "__add__": "add", "__sub__": "sub",
    "__rsub__": "rsub", "__mul__": "mul", "__truediv__": "div", "__rtruediv__": "rdiv", "__pow__": "pow-int",
    "__rpow__": "rpow", "__rfloordiv__": "floor_divide", "__rmod__": "remainder", "__rmatmul__": "matmul",
    "__eq__": "eq", "__ne__": "ne", "__getitem__": "getitem-int", "__setitem__": "setitem",
    **{name: "bitwise_and" for name in ("bitwise_or", "bitwise_xor", "bitwise_not", "__invert__")},
    **{name: "bitwise_and" for name in ("__rand__", "__ror__", "__rxor__")},
    # real inputs, or no gradient: tests/test_complex.py checks them against torch
    **{name: "tests/test_complex.py" for name in ("is_conj", "complex", "polar", "view_as_complex")},
    # the function forms that became rows after the table above was written
    **{name: "cat" for name in ("concat", "concatenate", "hstack", "vstack")},
    **{name: "broadcast_to" for name in ("broadcast_tensors", "broadcast_shapes")},
    **{name: "tests/test_complex.py" for name in ("einsum", "tensordot")},
    # values only: torch refuses its gradient for complex numbers
    "nan_to_num": "tests/test_torch_functions.py",
    "resolve_neg": "tests/test_torch_functions.py",
    "frexp": "tests/test_torch_functions.py",
    "is_neg": "tests/test_torch_functions.py",
    "__rlshift__": "bitwise_left_shift",
    "__rrshift__": "bitwise_right_shift",
    # complex values but no complex gradients in torch (it refuses autograd there): test_complex.py
    **{name: "tests/test_complex.py" for name in ("scatter_reduce", "select_scatter", "slice_scatter")},
    # no complex input: integer counts and indices
    **{name: "tests/test_complex.py" for name in ("bincount", "tril_indices", "triu_indices", "unravel_index")},
    # casts to a real dtype (torch warns and drops the imaginary part): "double" is their row
    **{name: "double" for name in ("half", "float", "long", "int", "bool", "byte")},
    "cfloat": "cdouble",  # the same cast, to complex64
    # complex values against torch's in tests/test_surface_more.py (torch's own gradients of
    # vander and as_strided_scatter are wrong: ours are checked against finite differences there)
    **{name: "tests/test_surface_more.py" for name in ("vander", "nonzero_static", "as_strided_scatter")},
    "fill_diagonal_": "tests/test_surface_more.py",
    # the device moves: cuda() only fails on the CPU (tests/test_porting_shims.py)
    "cuda": "cpu",
    # the decompositions' torch-level names share their Functions with ctxgrad.linalg's, whose
    # complex rows (svd, eigh, eig, qr, cholesky, LU, slogdet) are in test_linalg_decompositions.py
    **{name: "tests/test_linalg_decompositions.py" for name in (
        "svd", "qr", "cholesky", "cholesky_inverse", "cholesky_solve", "lu", "lu_unpack", "lu_solve", "geqrf",
        "slogdet", "pinverse", "triangular_solve", "orgqr", "ormqr")},
}  # fmt: skip


def test_every_op_of_the_table_has_a_complex_row_or_is_refused() -> None:
    """A new op gets a complex row here, or an entry in NOT_COMPLEX_IN_TORCH or COVERED_BY."""
    from ctxgrad.ops.table import OPS

    files = {
        "tests/test_complex.py",
        "tests/test_torch_functions.py",
        "tests/test_surface_more.py",
        "tests/test_linalg_decompositions.py",
    }
    ids = {c.id for c in CASES} | set(NOT_COMPLEX_IN_TORCH) | files
    unclassified = [op.name for op in OPS if op.name not in ids and COVERED_BY.get(op.name) not in ids]
    assert not unclassified


def test_the_real_functions_of_complex_inputs_are_real() -> None:
    z = ctxgrad.tensor(np.array([1 + 2j, -0.5 + 0.25j, 3 - 1j]))
    for out in (z.abs(), z.var(), z.std(), z.norm(), ctxgrad.angle(z)):
        assert out.dtype == ctxgrad.float64


def test_silu_of_complex_values_without_gradient_matches_torch(torch: Any) -> None:
    a = np.array([1 + 1j, -2 + 0.5j, 0.3 - 3j])
    ours = ctxgrad.nn.functional.silu(ctxgrad.tensor(a)).numpy()
    np.testing.assert_allclose(ours, torch.nn.functional.silu(torch.tensor(a)).numpy(), rtol=1e-12)

"""Reductions and scans against torch: prod, var/std, max/min, amax/amin, argmax/argmin,
logsumexp, norm, cumsum/cumprod, softmax/log_softmax, all/any.

The op kit (``OpFamilyTests``) checks every case's values (NumPy), values, dtypes and
gradients (torch, float64 and float32), gradients by central differences, forward mode and
double backward.  Inputs there are away from ties and zeros; the plain tests below check
those against torch: ties of max/min/amax/amin, zeros in prod/cumprod (first and second
derivatives), the named tuple of ``max(dim)``, dtypes of integer and bool inputs, -inf and
NaN, and torch's errors.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _opcheck import Case, OpFamilyTests, any_, assert_same
from _support import to_numpy

import ctxgrad

INF = float("inf")
NAN = float("nan")


def _np_var(a: np.ndarray, axis: Any = None, ddof: float = 1, keepdims: bool = False) -> np.ndarray:
    return np.asarray(np.var(a, axis=axis, ddof=ddof, keepdims=keepdims))


def _np_lse(a: np.ndarray, axis: Any, keepdims: bool = False) -> np.ndarray:
    return np.asarray(np.log(np.sum(np.exp(a), axis=axis, keepdims=keepdims)))


def _np_norm(a: np.ndarray, p: float, axis: Any = None, keepdims: bool = False) -> np.ndarray:
    b = np.abs(a)
    if p == INF:
        return np.asarray(np.max(b, axis=axis, keepdims=keepdims))
    if p == -INF:
        return np.asarray(np.min(b, axis=axis, keepdims=keepdims))
    return np.asarray(np.sum(b**p, axis=axis, keepdims=keepdims) ** (1 / p))


def _np_softmax(a: np.ndarray, axis: int) -> np.ndarray:
    e = np.exp(a - a.max(axis=axis, keepdims=True))
    return np.asarray(e / e.sum(axis=axis, keepdims=True))


def _np_log_softmax(a: np.ndarray, axis: int) -> np.ndarray:
    return np.asarray(np.log(_np_softmax(a, axis)))


def _np_take(fn: Callable[..., Any], axis: int, keepdims: bool = False) -> Callable[..., Any]:
    """The values of ``max(dim)``/``min(dim)`` in NumPy."""
    return lambda m, a: fn(a, axis=axis, keepdims=keepdims)


CASES = [
    # prod
    Case("prod-all", lambda m, a: a.prod(), any_((2, 3))),
    Case("prod-dim1", lambda m, a: a.prod(1), any_((2, 3))),
    Case("prod-negative-dim", lambda m, a: a.prod(-2), any_((3, 2, 2))),
    Case("prod-keepdim", lambda m, a: a.prod(0, keepdim=True), any_((3, 2)), ref=lambda m, a: a.prod(0, keepdims=True)),
    Case("prod-function", lambda m, a: m.prod(a, 0), any_((4,))),
    Case("prod-0d", lambda m, a: a.prod(), any_(())),
    Case("prod-0d-dim", lambda m, a: a.prod(0), any_(()), ref=lambda m, a: a),
    Case("prod-empty-dim", lambda m, a: a.prod(0), any_((0, 3))),
    # var, std
    Case("var-all", lambda m, a: a.var(), any_((2, 3)), ref=lambda m, a: _np_var(a)),
    Case("var-dim", lambda m, a: a.var(1), any_((2, 4)), ref=lambda m, a: _np_var(a, 1)),
    Case("var-dim-tuple", lambda m, a: a.var((0, 2)), any_((2, 3, 2)), ref=lambda m, a: _np_var(a, (0, 2))),
    Case("var-unbiased-false", lambda m, a: a.var(1, False), any_((2, 3)), ref=lambda m, a: _np_var(a, 1, 0)),
    Case("var-unbiased-keyword", lambda m, a: a.var(unbiased=False), any_((3,)), ref=lambda m, a: _np_var(a, None, 0)),
    Case("var-correction-0", lambda m, a: a.var(0, correction=0), any_((3, 2)), ref=lambda m, a: _np_var(a, 0, 0)),
    Case("var-correction-2", lambda m, a: m.var(a, correction=2), any_((5,)), ref=lambda m, a: _np_var(a, None, 2)),
    Case("var-keepdim", lambda m, a: a.var(-1, keepdim=True), any_((2, 3)), ref=lambda m, a: _np_var(a, -1, 1, True)),
    Case("var-0d-correction-0", lambda m, a: a.var(correction=0), any_(()), ref=lambda m, a: _np_var(a, None, 0)),
    Case("std-all", lambda m, a: a.std(), any_((2, 3)), ref=lambda m, a: np.sqrt(_np_var(a))),
    Case("std-dim", lambda m, a: m.std(a, 0), any_((3, 2)), ref=lambda m, a: np.sqrt(_np_var(a, 0))),
    Case(
        "std-correction",
        lambda m, a: a.std((0, 1), correction=0, keepdim=True),
        any_((2, 3)),
        ref=lambda m, a: np.sqrt(_np_var(a, (0, 1), 0, True)),
    ),
    Case(
        "std-unbiased-positional",
        lambda m, a: m.std(a, 1, True, True),
        any_((2, 3)),
        ref=lambda m, a: np.sqrt(_np_var(a, 1, 1, True)),
    ),
    # max, min (values), amax, amin
    Case("max-all", lambda m, a: a.max(), [((2, 3), "distinct")]),
    Case("min-all", lambda m, a: m.min(a), [((2, 3), "distinct")], ref=lambda m, a: a.min()),
    Case("max-dim", lambda m, a: a.max(1)[0], [((2, 4), "distinct")], ref=_np_take(np.max, 1)),
    Case("max-dim-values", lambda m, a: a.max(dim=0).values if m is not np else a.max(0), [((3, 2), "distinct")]),
    Case(
        "max-dim-keepdim",
        lambda m, a: m.max(a, -1, keepdim=True)[0],
        [((2, 3), "distinct")],
        ref=_np_take(np.max, -1, True),
    ),
    Case("min-dim", lambda m, a: a.min(0)[0], [((3, 2, 2), "distinct")], ref=_np_take(np.min, 0)),
    Case("min-dim-keepdim", lambda m, a: a.min(1, True)[0], [((2, 3), "distinct")], ref=_np_take(np.min, 1, True)),
    Case("max-0d", lambda m, a: a.max(), any_(())),
    Case("max-0d-dim", lambda m, a: a.max(0)[0], any_(()), ref=lambda m, a: a),
    Case("max-empty-other-dim", lambda m, a: a.max(1)[0], any_((0, 3)), ref=_np_take(np.max, 1)),
    Case("amax-all", lambda m, a: m.amax(a), [((2, 3), "distinct")]),
    Case("amax-dim", lambda m, a: m.amax(a, 1), [((2, 3), "distinct")]),
    Case("amax-tuple", lambda m, a: m.amax(a, (0, 2)), [((2, 3, 2), "distinct")]),
    Case(
        "amax-keepdim",
        lambda m, a: a.amax(-1, keepdim=True),
        [((2, 3), "distinct")],
        ref=lambda m, a: np.amax(a, -1, keepdims=True),
    ),
    Case("amin-dim", lambda m, a: m.amin(a, 0), [((3, 2), "distinct")]),
    Case("amin-method", lambda m, a: a.amin((1,)), [((2, 3), "distinct")], ref=lambda m, a: np.amin(a, 1)),
    Case("amax-0d", lambda m, a: m.amax(a, 0), any_(()), ref=lambda m, a: a),
    Case("amax-empty-other-dim", lambda m, a: m.amax(a, 1), any_((0, 3))),
    # argmax, argmin (int64, not differentiable)
    Case("argmax-all", lambda m, a: m.argmax(a), [((2, 3), "distinct")]),
    Case("argmax-dim", lambda m, a: a.argmax(1), [((2, 3), "distinct")]),
    Case(
        "argmax-keepdim",
        lambda m, a: a.argmax(0, keepdim=True),
        [((3, 2), "distinct")],
        ref=lambda m, a: np.argmax(a, 0, keepdims=True),
    ),
    Case("argmin-dim", lambda m, a: m.argmin(a, -1), [((2, 3), "distinct")]),
    Case(
        "argmin-all-keepdim",
        lambda m, a: a.argmin(keepdim=True),
        [((2, 3), "distinct")],
        ref=lambda m, a: np.argmin(a).reshape(1, 1),
    ),
    # logsumexp
    Case("logsumexp-dim", lambda m, a: m.logsumexp(a, 1), any_((2, 3)), ref=lambda m, a: _np_lse(a, 1)),
    Case("logsumexp-tuple", lambda m, a: a.logsumexp((0, 1)), any_((2, 3)), ref=lambda m, a: _np_lse(a, (0, 1))),
    Case(
        "logsumexp-keepdim",
        lambda m, a: a.logsumexp(-1, keepdim=True),
        any_((2, 3)),
        ref=lambda m, a: _np_lse(a, -1, True),
    ),
    Case(
        "logsumexp-large",
        lambda m, a: a.logsumexp(1),
        [((2, 3), lambda rng, s: rng.standard_normal(s) + 800.0)],
        ref=lambda m, a: np.log(np.sum(np.exp(a - 800.0), axis=1)) + 800.0,
    ),
    Case("logsumexp-0d", lambda m, a: a.logsumexp(0), any_(()), ref=lambda m, a: a),
    Case("logsumexp-empty-other-dim", lambda m, a: a.logsumexp(1), any_((0, 3)), ref=lambda m, a: _np_lse(a, 1)),
    # norm
    Case("norm-default", lambda m, a: a.norm(), any_((2, 3)), ref=lambda m, a: _np_norm(a, 2)),
    Case("norm-function", lambda m, a: m.norm(a), any_((3,)), ref=lambda m, a: _np_norm(a, 2)),
    Case("norm-fro-dim", lambda m, a: a.norm("fro", dim=1), any_((2, 3)), ref=lambda m, a: _np_norm(a, 2, 1)),
    Case(
        "norm-fro-two-dims",
        lambda m, a: a.norm(p="fro", dim=(0, 2)),
        any_((2, 3, 2)),
        ref=lambda m, a: _np_norm(a, 2, (0, 2)),
    ),
    Case("norm-2-keepdim", lambda m, a: a.norm(2, 0, True), any_((2, 3)), ref=lambda m, a: _np_norm(a, 2, 0, True)),
    Case("norm-1", lambda m, a: a.norm(p=1), [((2, 3), "nz")], ref=lambda m, a: _np_norm(a, 1)),
    Case("norm-1-dim", lambda m, a: a.norm(1, dim=-1), [((2, 3), "nz")], ref=lambda m, a: _np_norm(a, 1, -1)),
    Case("norm-inf", lambda m, a: a.norm(p=INF), [((2, 3), "distinct")], ref=lambda m, a: _np_norm(a, INF)),
    Case("norm-inf-dim", lambda m, a: a.norm(INF, 1), [((2, 3), "distinct")], ref=lambda m, a: _np_norm(a, INF, 1)),
    Case(
        "norm-minus-inf",
        lambda m, a: a.norm(-INF, dim=0),
        [((3, 2), "distinct")],
        ref=lambda m, a: _np_norm(a, -INF, 0),
    ),
    Case("norm-3", lambda m, a: a.norm(3), [((2, 3), "nz")], ref=lambda m, a: _np_norm(a, 3)),
    Case("norm-1.5-dim", lambda m, a: a.norm(1.5, dim=1), [((2, 3), "nz")], ref=lambda m, a: _np_norm(a, 1.5, 1)),
    Case("norm-half", lambda m, a: a.norm(0.5), [((2, 3), "nz")], ref=lambda m, a: _np_norm(a, 0.5)),
    Case("norm-minus-1", lambda m, a: a.norm(-1, dim=1), [((2, 3), "nz")], ref=lambda m, a: _np_norm(a, -1, 1)),
    Case("norm-0d", lambda m, a: a.norm(), [((), "nz")], ref=lambda m, a: np.abs(a)),
    Case("norm-empty", lambda m, a: a.norm(), any_((0, 3)), ref=lambda m, a: np.asarray(0.0)),
    # cumsum, cumprod
    Case("cumsum", lambda m, a: m.cumsum(a, 1), any_((2, 3))),
    Case("cumsum-dim0", lambda m, a: a.cumsum(0), any_((3, 2)), ref=lambda m, a: np.cumsum(a, 0)),
    Case("cumsum-negative", lambda m, a: a.cumsum(dim=-1), any_((2, 2, 3)), ref=lambda m, a: np.cumsum(a, -1)),
    Case("cumsum-0d", lambda m, a: a.cumsum(0), any_(()), ref=lambda m, a: a),
    Case("cumsum-empty", lambda m, a: a.cumsum(0), any_((0, 3)), ref=lambda m, a: np.cumsum(a, 0)),
    Case("cumprod", lambda m, a: m.cumprod(a, 1), [((2, 4), "nz")]),
    Case("cumprod-dim0", lambda m, a: a.cumprod(0), [((3, 2), "nz")], ref=lambda m, a: np.cumprod(a, 0)),
    Case("cumprod-0d", lambda m, a: a.cumprod(-1), any_(()), ref=lambda m, a: a),
    # softmax, log_softmax
    Case("softmax", lambda m, a: m.softmax(a, 1), any_((2, 3)), ref=lambda m, a: _np_softmax(a, 1)),
    Case("softmax-dim0", lambda m, a: a.softmax(0), any_((3, 2)), ref=lambda m, a: _np_softmax(a, 0)),
    Case(
        "softmax-large",
        lambda m, a: a.softmax(-1),
        [((2, 3), lambda rng, s: rng.standard_normal(s) * 3 + 900)],
        ref=lambda m, a: _np_softmax(a, -1),
    ),
    Case("softmax-0d", lambda m, a: a.softmax(0), any_(()), ref=lambda m, a: np.ones_like(a)),
    Case("softmax-empty", lambda m, a: a.softmax(1), any_((0, 3)), ref=lambda m, a: a),
    Case("log_softmax", lambda m, a: m.log_softmax(a, 1), any_((2, 3)), ref=lambda m, a: _np_log_softmax(a, 1)),
    Case(
        "log_softmax-dim0", lambda m, a: a.log_softmax(dim=0), any_((3, 2, 2)), ref=lambda m, a: _np_log_softmax(a, 0)
    ),
    Case(
        "log_softmax-large",
        lambda m, a: a.log_softmax(1),
        [((2, 3), lambda rng, s: rng.standard_normal(s) - 900)],
        ref=lambda m, a: (
            (a - a.max(1, keepdims=True)) - np.log(np.exp(a - a.max(1, keepdims=True)).sum(1, keepdims=True))
        ),
    ),
    Case("log_softmax-0d", lambda m, a: a.log_softmax(0), any_(()), ref=lambda m, a: np.zeros_like(a)),
    Case(
        "softmax-dtype", lambda m, a: m.softmax(a, 1, dtype=m.float64), any_((2, 3)), ref=lambda m, a: _np_softmax(a, 1)
    ),
    # all, any (bool, not differentiable)
    Case("all", lambda m, a: m.all(a > 0), any_((2, 3))),
    Case("all-dim", lambda m, a: (a > -1).all(1), any_((3, 4)), ref=lambda m, a: np.all(a > -1, 1)),
    Case(
        "any-dim-keepdim",
        lambda m, a: (a > 1).any(0, keepdim=True),
        any_((3, 4)),
        ref=lambda m, a: np.any(a > 1, 0, keepdims=True),
    ),
    Case("all-float-dim", lambda m, a: m.all(a, 0), any_((3, 4))),
    Case("any-float", lambda m, a: m.any(a, -1), any_((2, 3))),
    Case("all-0d", lambda m, a: a.all(), any_(())),
    # compositions
    Case(
        "softmax-of-var",
        lambda m, a: m.softmax(a / a.std(1, keepdim=True), 1),
        any_((2, 3)),
        ref=lambda m, a: _np_softmax(a / np.sqrt(_np_var(a, 1, 1, True)), 1),
    ),
]

DOUBLE = [
    Case("prod-all", lambda m, a: a.prod(), any_((2, 3))),
    Case("prod-dim", lambda m, a: a.prod(1, keepdim=True) * a, any_((2, 3))),
    Case("prod-0d-dim", lambda m, a: a.prod(0) * a, any_(())),
    Case("var", lambda m, a: a.var(1), any_((2, 3))),
    Case("var-all-correction", lambda m, a: a.var(correction=0), any_((4,))),
    Case("std", lambda m, a: a.std(0), any_((3, 2))),
    Case("std-all", lambda m, a: a.std(), any_((2, 3))),
    Case("max-all", lambda m, a: a.max() * a, [((2, 3), "distinct")]),
    Case("max-dim", lambda m, a: a.max(1)[0] ** 2, [((2, 3), "distinct")]),
    Case("min-dim-keepdim", lambda m, a: a.min(0, keepdim=True)[0] * a, [((3, 2), "distinct")]),
    Case("amax", lambda m, a: m.amax(a, 1) ** 3, [((2, 3), "distinct")]),
    Case("amin-all", lambda m, a: a.amin() * a, [((2, 3), "distinct")]),
    Case("logsumexp", lambda m, a: a.logsumexp(1), any_((2, 3))),
    Case("logsumexp-tuple-keepdim", lambda m, a: a.logsumexp((0, 1), keepdim=True), any_((2, 3))),
    Case("norm-2", lambda m, a: a.norm(), any_((2, 3))),
    Case("norm-2-dim", lambda m, a: a.norm(dim=1), any_((2, 3))),
    Case("norm-1", lambda m, a: a.norm(1) * a, [((3,), "nz")]),
    Case("norm-inf", lambda m, a: a.norm(INF, dim=1) * a.sum(), [((2, 3), "distinct")]),
    Case("norm-3", lambda m, a: a.norm(3, 0), [((3, 2), "nz")]),
    Case("norm-1.5", lambda m, a: a.norm(1.5), [((4,), "nz")]),
    Case("norm-half", lambda m, a: a.norm(0.5, 1), [((2, 3), "nz")]),
    Case("cumsum", lambda m, a: a.cumsum(1) ** 2, any_((2, 3))),
    Case("cumprod", lambda m, a: a.cumprod(1), [((2, 4), "nz")]),
    Case("cumprod-dim0", lambda m, a: a.cumprod(0), [((3, 2), "nz")]),
    Case("softmax", lambda m, a: a.softmax(1), any_((2, 3))),
    Case("softmax-dim0", lambda m, a: a.softmax(0), any_((3, 2))),
    Case("log_softmax", lambda m, a: a.log_softmax(1), any_((2, 3))),
    Case("log_softmax-dim0", lambda m, a: a.log_softmax(0) * a, any_((3, 2))),
]


class TestReductionOps(OpFamilyTests):
    cases = CASES
    double_cases = DOUBLE


# --------------------------------------------------------------------------- helpers for the plain tests


def _run(m: Any, fn: Callable[..., Any], values: list[Any], dtype: str = "float64", seed: int = 5) -> tuple[Any, ...]:
    """``(out, grad)`` of ``(fn(x) * w).sum()`` for ``x`` made from ``values``."""
    x = m.tensor(values, dtype=getattr(m, dtype), requires_grad=True)
    out = fn(m, x)
    w = m.tensor(np.random.default_rng(seed).standard_normal(tuple(out.shape)), dtype=out.dtype)
    (out * w).sum().backward()
    return out, x.grad


def _second(m: Any, fn: Callable[..., Any], values: list[Any], seed: int = 5) -> tuple[Any, Any]:
    """First gradient (with a graph) and the gradient of ``(first * v).sum()``."""
    x = m.tensor(values, dtype=m.float64, requires_grad=True)
    out = fn(m, x)
    rng = np.random.default_rng(seed)
    w = m.tensor(rng.standard_normal(tuple(out.shape)))
    (g,) = m.autograd.grad((out * w).sum(), x, create_graph=True)
    v = m.tensor(rng.standard_normal(tuple(x.shape)))
    (h,) = m.autograd.grad((g * v).sum(), x, allow_unused=True)
    return g, h


def _same_values(c: Any, t: Any) -> None:
    a = np.zeros(()) if c is None else to_numpy(c)
    b = np.zeros(()) if t is None else np.asarray(t.detach().numpy())
    np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12, equal_nan=True)


# --------------------------------------------------------------------------- ties


TIES = [
    pytest.param(lambda m, x: x.max(), [[1.0, 3.0, 3.0], [2.0, 3.0, 0.0]], id="max-all"),
    pytest.param(lambda m, x: x.min(), [[0.0, 3.0, 0.0], [2.0, 0.0, 1.0]], id="min-all"),
    pytest.param(lambda m, x: x.max(1)[0], [[1.0, 3.0, 3.0], [3.0, 2.0, 3.0]], id="max-dim"),
    pytest.param(lambda m, x: x.min(0, keepdim=True)[0], [[1.0, 2.0], [1.0, 2.0], [0.0, 2.0]], id="min-dim"),
    pytest.param(lambda m, x: x.amax(), [[1.0, 3.0, 3.0], [2.0, 3.0, 0.0]], id="amax-all"),
    pytest.param(lambda m, x: x.amax(1), [[1.0, 3.0, 3.0], [2.0, 2.0, 2.0]], id="amax-dim"),
    pytest.param(lambda m, x: x.amin((0, 1), keepdim=True), [[0.0, 3.0], [0.0, 0.0]], id="amin-tuple"),
    pytest.param(lambda m, x: x.amin(0), [[1.0, 2.0], [1.0, 2.0], [0.0, 2.0]], id="amin-dim"),
    pytest.param(lambda m, x: x.norm(INF), [[1.0, -3.0], [3.0, 0.0]], id="norm-inf-ties"),
    pytest.param(lambda m, x: x.norm(-INF, 1), [[1.0, -1.0], [3.0, 0.0]], id="norm-minus-inf-ties"),
    pytest.param(lambda m, x: x.max(), [[1.0, float("nan")], [float("nan"), 0.0]], id="max-all-nan"),
    pytest.param(lambda m, x: x.max(1)[0], [[1.0, float("nan"), 2.0], [0.0, 1.0, 2.0]], id="max-dim-nan"),
    pytest.param(lambda m, x: x.amax(1), [[1.0, float("nan"), 2.0], [0.0, 1.0, 2.0]], id="amax-dim-nan"),
]


@pytest.mark.parametrize(("fn", "values"), TIES)
def test_ties_share_gradients_as_torch(torch: Any, fn: Callable[..., Any], values: list[Any]) -> None:
    """Full max/min and amax/amin spread the gradient evenly over ties; max/min(dim) give it
    to the index they return (the first); NaN is the maximum, as in torch."""
    with np.errstate(invalid="ignore", divide="ignore"):
        c_out, c_grad = _run(ctxgrad, fn, values)
    t_out, t_grad = _run(torch, fn, values)
    assert_same(c_out, t_out)
    assert_same(c_grad, t_grad)


@pytest.mark.parametrize(("fn", "values"), TIES[:8])
def test_ties_forward_mode_as_torch(torch: Any, fn: Callable[..., Any], values: list[Any]) -> None:
    tangent = np.arange(np.size(values), dtype=np.float64).reshape(np.shape(values)) - 1.5

    def run(m: Any) -> Any:
        fw = m.autograd.forward_ad
        with fw.dual_level():
            x = fw.make_dual(m.tensor(values, dtype=m.float64), m.tensor(tangent))
            return fw.unpack_dual(fn(m, x)).tangent

    _same_values(run(ctxgrad), run(torch))


def test_max_dim_picks_first_of_ties_and_its_gradient(torch: Any) -> None:
    values = [[1.0, 3.0, 3.0, 0.0], [3.0, 2.0, 3.0, 3.0]]
    for name in ("max", "min"):
        c = getattr(ctxgrad.tensor(values), name)(1)
        t = getattr(torch.tensor(values), name)(1)
        assert c.indices.tolist() == t.indices.tolist()
        assert ctxgrad.tensor(values).argmax(1).tolist() == torch.tensor(values).argmax(1).tolist()
        assert ctxgrad.tensor(values).argmin(1).tolist() == torch.tensor(values).argmin(1).tolist()


# --------------------------------------------------------------------------- zeros in prod and cumprod

ZEROS = [
    pytest.param(lambda m, x: x.prod(), [[2.0, 0.0, 3.0], [1.5, -1.0, 2.0]], id="prod-one-zero"),
    pytest.param(lambda m, x: x.prod(), [[2.0, 0.0, 3.0], [0.0, -1.0, 2.0]], id="prod-two-zeros"),
    pytest.param(lambda m, x: x.prod(), [[0.0, 0.0, 3.0], [0.0, -1.0, 2.0]], id="prod-three-zeros"),
    pytest.param(lambda m, x: x.prod(1), [[2.0, 0.0, 3.0], [0.0, -1.0, 0.0], [1.0, 2.0, 3.0]], id="prod-dim-zeros"),
    pytest.param(lambda m, x: x.prod(0, keepdim=True), [[2.0, 0.0], [0.0, 0.0], [1.0, 3.0]], id="prod-dim0-zeros"),
    pytest.param(lambda m, x: x.prod(0), [0.0], id="prod-single-zero"),
    pytest.param(lambda m, x: x.cumprod(1), [[2.0, 0.0, 3.0, 4.0], [1.5, -1.0, 2.0, 0.5]], id="cumprod-one-zero"),
    pytest.param(
        lambda m, x: x.cumprod(1), [[2.0, 0.0, 3.0, 0.0, 5.0], [0.0, 0.0, 2.0, 1.0, 3.0]], id="cumprod-two-zeros"
    ),
    pytest.param(lambda m, x: x.cumprod(0), [[0.0, 1.0], [2.0, 0.0], [3.0, 4.0]], id="cumprod-dim0-zeros"),
    pytest.param(lambda m, x: x.cumprod(-1), [[3.0, 2.0, 0.0]], id="cumprod-last-zero"),
    pytest.param(lambda m, x: x.cumprod(0), [0.0], id="cumprod-single-zero"),
]


@pytest.mark.parametrize(("fn", "values"), ZEROS)
def test_zeros_first_gradient_as_torch(torch: Any, fn: Callable[..., Any], values: list[Any]) -> None:
    c_out, c_grad = _run(ctxgrad, fn, values)
    t_out, t_grad = _run(torch, fn, values)
    assert_same(c_out, t_out)
    assert_same(c_grad, t_grad)


@pytest.mark.parametrize(("fn", "values"), [p for p in ZEROS if "single" not in str(p.id)])
def test_zeros_second_gradient_as_torch(torch: Any, fn: Callable[..., Any], values: list[Any]) -> None:
    c_first, c_second = _second(ctxgrad, fn, values)
    t_first, t_second = _second(torch, fn, values)
    _same_values(c_first, t_first)
    _same_values(c_second, t_second)


@pytest.mark.parametrize(("fn", "values"), ZEROS)
def test_zeros_forward_mode_as_torch(torch: Any, fn: Callable[..., Any], values: list[Any]) -> None:
    tangent = np.random.default_rng(3).standard_normal(np.shape(values))

    def run(m: Any) -> Any:
        fw = m.autograd.forward_ad
        with fw.dual_level():
            x = fw.make_dual(m.tensor(values, dtype=m.float64), m.tensor(tangent))
            return fw.unpack_dual(fn(m, x)).tangent

    _same_values(run(ctxgrad), run(torch))


def test_prod_zero_gradient_is_exact() -> None:
    """One zero: the gradient there is the product of the others; two zeros: all zero."""
    x = ctxgrad.tensor([2.0, 0.0, 3.0, -1.0], requires_grad=True)
    x.prod().backward()
    assert x.grad.tolist() == [0.0, -6.0, 0.0, 0.0]
    y = ctxgrad.tensor([2.0, 0.0, 3.0, 0.0], requires_grad=True)
    y.prod().backward()
    assert y.grad.tolist() == [0.0, 0.0, 0.0, 0.0]


# A product of one element: torch's prod_backward passes the gradient through when the input
# holds a zero (``if (inp.size(dim) == 1) return grad;``), so under create_graph the gradient is
# a constant; without a zero it is ``grad * result / x``, which keeps a graph.
ONE_ELEMENT = [
    pytest.param(lambda m, x: x.prod(0), [[0.0, -0.6]], id="dim0-zero"),
    pytest.param(lambda m, x: x.prod(0, keepdim=True), [[0.0, -0.6]], id="dim0-keepdim-zero"),
    pytest.param(lambda m, x: x.prod(1), [[0.0], [-0.6]], id="dim1-zero"),
    pytest.param(lambda m, x: x.prod(-1, keepdim=True), [[0.0], [2.0]], id="dim-last-keepdim-zero"),
    pytest.param(lambda m, x: x.prod(1), [[0.0], [INF]], id="dim1-zero-inf"),
    pytest.param(lambda m, x: x.prod(1), [[2.0], [-0.6]], id="dim1-no-zero"),
    pytest.param(lambda m, x: x.prod(), [[0.0]], id="all-1x1-zero"),
    pytest.param(lambda m, x: x.prod(), [0.0], id="all-1-zero"),
    pytest.param(lambda m, x: x.prod(), [-0.0], id="all-1-negative-zero"),
    pytest.param(lambda m, x: x.prod(), [2.0], id="all-1-no-zero"),
    pytest.param(lambda m, x: x.prod(), 0.0, id="all-0d-zero"),
    pytest.param(lambda m, x: x.prod(0), 0.0, id="dim-0d-zero"),
    pytest.param(lambda m, x: x.prod(-1, keepdim=True), 0.0, id="dim-0d-keepdim-zero"),
    pytest.param(lambda m, x: x.prod(0), 2.0, id="dim-0d-no-zero"),
    pytest.param(lambda m, x: x.prod(1), [[0.0, 2.0]], id="dim1-two-elements-zero"),
]


def _first_and_second(m: Any, fn: Callable[..., Any], values: Any) -> tuple[Any, Any, Any]:
    """``(out, g, h)``: the output, the gradient of its sum with ``create_graph=True``, and the
    gradient of ``g.sum()`` (None when ``g`` is a constant)."""
    x = m.tensor(values, dtype=m.float64, requires_grad=True)
    out = fn(m, x)
    (g,) = m.autograd.grad(out.sum(), x, create_graph=True)
    h = m.autograd.grad(g.sum(), x, allow_unused=True)[0] if g.requires_grad else None
    return out, g, h


@pytest.mark.parametrize(("fn", "values"), ONE_ELEMENT)
def test_prod_of_one_element_passes_the_gradient_through_as_torch(
    torch: Any, fn: Callable[..., Any], values: Any
) -> None:
    with np.errstate(all="ignore"):
        c_out, c_g, c_h = _first_and_second(ctxgrad, fn, values)
    t_out, t_g, t_h = _first_and_second(torch, fn, values)
    assert_same(c_out, t_out)
    assert_same(c_g, t_g)
    assert c_g.requires_grad == t_g.requires_grad
    assert (c_h is None) == (t_h is None)
    if t_h is not None:
        assert_same(c_h, t_h)


def test_prod_of_one_zero_has_a_constant_gradient() -> None:
    """d/dx of a product of the one element x is 1: a constant, whose own gradient is None."""
    for x, fn in (
        (ctxgrad.tensor([[0.0, -0.6]], requires_grad=True), lambda t: t.prod(0)),
        (ctxgrad.tensor([[0.0]], requires_grad=True), lambda t: t.prod()),
    ):
        (g,) = ctxgrad.autograd.grad(fn(x).sum(), x, create_graph=True)
        assert g.tolist() == np.ones(tuple(x.shape)).tolist()
        assert not g.requires_grad and g.grad_fn is None


@pytest.mark.parametrize(
    "values",
    [[0.0, 0.0, INF], [[0.0, NAN], [2.0, 0.0]], [0.0, 0.0, 3.0]],
    ids=["zeros-and-inf", "zeros-and-nan", "two-zeros"],
)
def test_prod_with_two_zeros_has_a_zero_gradient_without_a_graph_as_torch(torch: Any, values: Any) -> None:
    """Two zeros make every derivative of ``prod()`` zero, and torch's backward (when it builds
    no graph) gives zeros without multiplying: inf or NaN elsewhere does not make NaN."""
    grads = []
    for m in (ctxgrad, torch):
        x = m.tensor(values, dtype=m.float64, requires_grad=True)
        with np.errstate(all="ignore"):
            x.prod().backward()
        grads.append(x.grad.tolist())
    assert grads[0] == grads[1] == np.zeros(np.shape(values)).tolist()


# --------------------------------------------------------------------------- special values


SPECIAL = [
    pytest.param(lambda m, x: x.logsumexp(1), [[-INF, -INF], [INF, 1.0], [-INF, 1.0]], id="logsumexp-inf-rows"),
    pytest.param(lambda m, x: x.logsumexp(1), [[1000.0, 1000.0], [-1000.0, -1001.0]], id="logsumexp-huge"),
    pytest.param(lambda m, x: x.softmax(1), [[-INF, 1.0], [1000.0, 0.0], [-1000.0, -1000.0]], id="softmax-extreme"),
    pytest.param(
        lambda m, x: x.log_softmax(1), [[-INF, 1.0], [1000.0, 0.0], [-1000.0, -1000.0]], id="log_softmax-extreme"
    ),
    pytest.param(lambda m, x: x.norm(), [[0.0, 0.0], [0.0, 0.0]], id="norm-2-zero-vector"),
    pytest.param(lambda m, x: x.norm(dim=1), [[0.0, 0.0], [3.0, 4.0]], id="norm-2-zero-row"),
    pytest.param(lambda m, x: x.norm(1), [[0.0, 2.0], [-3.0, 0.0]], id="norm-1-with-zeros"),
    pytest.param(lambda m, x: x.norm(3, 1), [[0.0, 0.0], [-3.0, 0.0]], id="norm-3-zeros"),
    pytest.param(lambda m, x: x.norm(1.5, 1), [[0.0, 0.0], [-3.0, 0.0]], id="norm-1.5-zeros"),
    pytest.param(lambda m, x: x.norm(0.5, 1), [[0.0, 0.0], [-3.0, 0.0]], id="norm-half-zeros"),
    pytest.param(lambda m, x: x.norm(-1, 1), [[1.0, 0.0], [-3.0, 2.0]], id="norm-minus-1-zeros"),
    pytest.param(lambda m, x: x.norm(INF, 1), [[0.0, 0.0], [-3.0, 1.0]], id="norm-inf-zero-row"),
    pytest.param(lambda m, x: x.std(1), [[1.0, 1.0, 1.0], [1.0, 2.0, 4.0]], id="std-zero"),
    pytest.param(lambda m, x: x.std(), [[2.0]], id="std-one-element"),
    pytest.param(lambda m, x: x.var(), [[2.0]], id="var-one-element"),
    pytest.param(lambda m, x: x.var(1), [[2.0], [1.0]], id="var-one-element-dim"),
    pytest.param(lambda m, x: x.var(correction=2), [1.0, 2.0], id="var-correction-n"),
    pytest.param(lambda m, x: x.var(correction=3), [1.0, 2.0], id="var-correction-over-n"),
    pytest.param(lambda m, x: x.var(1, correction=3), [[1.0, 2.0], [1.0, 1.0]], id="var-dim-correction-over-n"),
    pytest.param(lambda m, x: x.prod(), [[1e200, 1e200]], id="prod-overflow"),
]


@pytest.mark.parametrize(("fn", "values"), SPECIAL)
def test_special_values_as_torch(torch: Any, fn: Callable[..., Any], values: list[Any]) -> None:
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        c_out, c_grad = _run(ctxgrad, fn, values)
        t_out, t_grad = _run(torch, fn, values)
    assert_same(c_out, t_out)
    assert_same(c_grad, t_grad)


def test_var_warns_without_degrees_of_freedom(torch: Any) -> None:
    for m in (torch, ctxgrad):
        with pytest.warns(UserWarning, match=r"var\(\): degrees of freedom is <= 0"):
            out = m.tensor([1.0]).var()
        assert np.isnan(out.item())
        with pytest.warns(UserWarning, match=r"std\(\): degrees of freedom is <= 0"):
            m.tensor([[1.0, 2.0]]).std(1, correction=2)


def test_norm_p0_counts_and_has_no_gradient(torch: Any) -> None:
    for m in (torch, ctxgrad):
        x = m.tensor([[1.0, 0.0, -2.0], [0.0, 0.0, 3.0]], requires_grad=True)
        assert x.norm(0).item() == 3.0
        assert x.norm(0, dim=1).tolist() == [2.0, 1.0]
        (g,) = m.autograd.grad(x.norm(0), x, allow_unused=True)
        assert g is None


# --------------------------------------------------------------------------- named tuples and index dtypes


@pytest.mark.parametrize("name", ["max", "min"])
def test_max_min_dim_return_a_named_tuple(torch: Any, name: str) -> None:
    values = [[1.0, 5.0, 2.0], [4.0, 0.0, 6.0]]
    c = getattr(ctxgrad.tensor(values, requires_grad=True), name)(dim=1, keepdim=True)
    t = getattr(torch.tensor(values, requires_grad=True), name)(dim=1, keepdim=True)
    assert isinstance(c, tuple) and len(c) == 2
    assert c._fields == ("values", "indices")
    assert c[0] is c.values and c[1] is c.indices
    values_out, indices_out = c
    assert_same(values_out, t.values)
    assert_same(indices_out, t.indices)
    assert c.indices.dtype == ctxgrad.int64 and not c.indices.requires_grad and c.indices.grad_fn is None
    assert c.values.grad_fn.name() == t.values.grad_fn.name()
    assert repr(c).startswith(f"ctxgrad.return_types.{name}(\nvalues=tensor(")
    assert type(getattr(ctxgrad, name)(ctxgrad.tensor(values), 0)) is type(c)


@pytest.mark.parametrize(
    "fn",
    [
        pytest.param(lambda m, x: x.argmax(), id="argmax"),
        pytest.param(lambda m, x: m.argmin(x, 1), id="argmin-dim"),
        pytest.param(lambda m, x: x.argmax(dim=0, keepdim=True), id="argmax-keepdim"),
        pytest.param(lambda m, x: x.argmax(keepdim=True), id="argmax-none-keepdim"),
        pytest.param(lambda m, x: x.max(0).indices, id="max-indices"),
        pytest.param(lambda m, x: x[0, 0].argmax(0), id="argmax-0d"),
        pytest.param(lambda m, x: x[0, 0].max(-1).indices, id="max-0d-indices"),
    ],
)
def test_indices_are_int64_without_grad(torch: Any, fn: Callable[..., Any]) -> None:
    values = [[1.0, 5.0, 2.0], [4.0, 0.0, 6.0]]
    c = fn(ctxgrad, ctxgrad.tensor(values, requires_grad=True))
    t = fn(torch, torch.tensor(values, requires_grad=True))
    assert_same(c, t)
    assert c.dtype == ctxgrad.int64 and c.grad_fn is None


def test_backward_through_values_of_max_dim() -> None:
    x = ctxgrad.tensor([[1.0, 5.0, 2.0], [4.0, 0.0, 6.0]], requires_grad=True)
    values, indices = x.max(1)
    values.sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    assert indices.tolist() == [1, 2]


# --------------------------------------------------------------------------- dtypes


DTYPES = [
    pytest.param(lambda m, x: x.sum(), id="sum"),
    pytest.param(lambda m, x: x.sum(1, dtype=m.float32), id="sum-dtype"),
    pytest.param(lambda m, x: x.prod(), id="prod"),
    pytest.param(lambda m, x: x.prod(1), id="prod-dim"),
    pytest.param(lambda m, x: x.prod(1, dtype=m.float64), id="prod-dtype"),
    pytest.param(lambda m, x: x.max(), id="max"),
    pytest.param(lambda m, x: x.max(1).values, id="max-dim"),
    pytest.param(lambda m, x: x.min(0).indices, id="min-indices"),
    pytest.param(lambda m, x: x.amax(1), id="amax"),
    pytest.param(lambda m, x: x.amin(), id="amin"),
    pytest.param(lambda m, x: x.cumsum(1), id="cumsum"),
    pytest.param(lambda m, x: x.cumsum(0, dtype=m.float32), id="cumsum-dtype"),
    pytest.param(lambda m, x: x.cumprod(1), id="cumprod"),
    pytest.param(lambda m, x: x.logsumexp(1), id="logsumexp"),
    pytest.param(lambda m, x: x.all(), id="all"),
    pytest.param(lambda m, x: x.any(1), id="any-dim"),
    pytest.param(lambda m, x: x.all(()), id="all-empty-dims"),
    pytest.param(lambda m, x: x.softmax(1, dtype=m.float64), id="softmax-dtype"),
    pytest.param(lambda m, x: x.log_softmax(0, m.float32), id="log_softmax-dtype"),
    pytest.param(lambda m, x: x.float().norm(dtype=m.float64), id="norm-dtype"),
    pytest.param(lambda m, x: x.half().softmax(1), id="softmax-half"),
    pytest.param(lambda m, x: x.half().log_softmax(0), id="log_softmax-half"),
    pytest.param(lambda m, x: x.half().logsumexp(0), id="logsumexp-half"),
]


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool", "float32", "float64"])
@pytest.mark.parametrize("fn", DTYPES)
def test_output_dtypes_as_torch(torch: Any, fn: Callable[..., Any], dtype: str) -> None:
    values = [[1, 0, 3], [2, 2, 1]]

    def run(m: Any) -> Any:
        return fn(m, m.tensor(values, dtype=getattr(m, dtype)))

    try:
        t = run(torch)
    except (RuntimeError, NotImplementedError) as exc:
        with pytest.raises(type(exc)) as info:
            run(ctxgrad)
        assert str(info.value).startswith(str(exc)[:40]), (str(info.value), str(exc))
        return
    with np.errstate(divide="ignore"):
        c = run(ctxgrad)
    assert_same(c, t, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize(
    "fn",
    [
        pytest.param(lambda m, x: x.mean(), id="mean"),
        pytest.param(lambda m, x: x.var(), id="var"),
        pytest.param(lambda m, x: x.std(1), id="std"),
        pytest.param(lambda m, x: x.norm(), id="norm"),
        pytest.param(lambda m, x: x.norm(1, dim=0), id="norm-dim"),
        pytest.param(lambda m, x: x.softmax(1), id="softmax-lastdim"),
        pytest.param(lambda m, x: x.softmax(0), id="softmax-dim0"),
        pytest.param(lambda m, x: x.log_softmax(-1), id="log_softmax"),
        pytest.param(lambda m, x: x.float().norm(dtype=m.int64), id="norm-int-dtype"),
        pytest.param(lambda m, x: x.argmax(), id="argmax-bool", marks=[]),
    ],
)
@pytest.mark.parametrize("dtype", ["int64", "bool"])
def test_integer_inputs_refused_as_torch(torch: Any, fn: Callable[..., Any], dtype: str) -> None:
    values = [[1, 0, 3], [2, 2, 1]]
    try:
        t = fn(torch, torch.tensor(values, dtype=getattr(torch, dtype)))
    except (RuntimeError, NotImplementedError) as exc:
        with pytest.raises(type(exc)) as info:
            fn(ctxgrad, ctxgrad.tensor(values, dtype=getattr(ctxgrad, dtype)))
        assert str(info.value) == str(exc)
        return
    assert_same(fn(ctxgrad, ctxgrad.tensor(values, dtype=getattr(ctxgrad, dtype))), t)


# --------------------------------------------------------------------------- methods, functions, keywords


FORMS = [
    ("prod", (1,), {"keepdim": True}),
    ("prod", (), {"dtype": "float64"}),
    ("var", (1,), {"correction": 0, "keepdim": True}),
    ("var", (), {"unbiased": False}),
    ("var", ((0, 1), True, True), {}),
    ("std", (), {"dim": 0, "correction": 2}),
    ("std", (1, False), {}),
    ("amax", (), {"dim": (0, 1), "keepdim": True}),
    ("amin", (1,), {}),
    ("argmax", (), {"dim": 1, "keepdim": True}),
    ("argmin", (), {}),
    ("logsumexp", (), {"dim": 1, "keepdim": True}),
    ("norm", (), {"p": 3, "dim": 1, "keepdim": True}),
    ("norm", ("fro",), {}),
    ("norm", (), {"p": INF, "dim": (0, 1)}),
    ("cumsum", (), {"dim": 1}),
    ("cumprod", (0,), {"dtype": "float64"}),
    ("softmax", (), {"dim": 1}),
    ("log_softmax", (0,), {"dtype": "float64"}),
    ("all", (), {"dim": 1, "keepdim": True}),
    ("any", ((0, 1),), {}),
    ("max", (), {"dim": 1, "keepdim": True}),
    ("min", (0,), {}),
    ("max", (), {}),
]


@pytest.mark.parametrize(("name", "args", "kwargs"), FORMS, ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(FORMS)])
def test_method_and_function_forms_with_torch_keywords(
    torch: Any, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    values = [[1.0, -2.0, 3.0], [0.5, 4.0, -1.0]]

    def resolve(m: Any) -> dict[str, Any]:
        return {k: getattr(m, v) if k == "dtype" else v for k, v in kwargs.items()}

    def pick(out: Any) -> Any:
        return out.values if isinstance(out, tuple) else out

    c_method = pick(getattr(ctxgrad.tensor(values, dtype=ctxgrad.float64), name)(*args, **resolve(ctxgrad)))
    c_function = pick(getattr(ctxgrad, name)(ctxgrad.tensor(values, dtype=ctxgrad.float64), *args, **resolve(ctxgrad)))
    t = pick(getattr(torch.tensor(values, dtype=torch.float64), name)(*args, **resolve(torch)))
    t_function = pick(getattr(torch, name)(torch.tensor(values, dtype=torch.float64), *args, **resolve(torch)))
    assert_same(c_method, t)
    assert_same(c_function, t_function)
    if not args:  # the input by its keyword name
        c_keyword = pick(
            getattr(ctxgrad, name)(input=ctxgrad.tensor(values, dtype=ctxgrad.float64), **resolve(ctxgrad))
        )
        t_keyword = pick(getattr(torch, name)(input=torch.tensor(values, dtype=torch.float64), **resolve(torch)))
        assert_same(c_keyword, t_keyword)


def test_max_with_a_tensor_is_maximum(torch: Any) -> None:
    if not hasattr(ctxgrad.Tensor, "maximum"):
        pytest.skip("Tensor.maximum is not there yet (another op family)")
    a, b = [[1.0, 5.0], [3.0, -1.0]], [[2.0, 2.0], [2.0, 2.0]]
    assert_same(ctxgrad.tensor(a).max(ctxgrad.tensor(b)), torch.tensor(a).max(torch.tensor(b)))
    assert_same(ctxgrad.min(ctxgrad.tensor(a), ctxgrad.tensor(b)), torch.min(torch.tensor(a), torch.tensor(b)))


def test_reductions_are_exported() -> None:
    for name in (
        "prod",
        "var",
        "std",
        "max",
        "min",
        "amax",
        "amin",
        "argmax",
        "argmin",
        "logsumexp",
        "norm",
        "cumsum",
        "cumprod",
        "softmax",
        "log_softmax",
        "all",
        "any",
    ):
        assert name in ctxgrad.__all__
        assert callable(getattr(ctxgrad, name))
        assert callable(getattr(ctxgrad.Tensor, name))


@pytest.mark.parametrize(
    ("fn", "name"),
    [
        pytest.param(lambda m, x: x.prod(), "ProdBackward0", id="prod"),
        pytest.param(lambda m, x: x.prod(0), "ProdBackward1", id="prod-dim"),
        pytest.param(lambda m, x: x.var(), "VarBackward0", id="var"),
        pytest.param(lambda m, x: x.std(0), "StdBackward0", id="std"),
        pytest.param(lambda m, x: x.max(), "MaxBackward1", id="max"),
        pytest.param(lambda m, x: x.max(0)[0], "MaxBackward0", id="max-dim"),
        pytest.param(lambda m, x: x.min(), "MinBackward1", id="min"),
        pytest.param(lambda m, x: x.min(0)[0], "MinBackward0", id="min-dim"),
        pytest.param(lambda m, x: x.amax(), "AmaxBackward0", id="amax"),
        pytest.param(lambda m, x: x.amin(0), "AminBackward0", id="amin"),
        pytest.param(lambda m, x: x.logsumexp(0), "LogsumexpBackward0", id="logsumexp"),
        pytest.param(lambda m, x: x.norm(), "LinalgVectorNormBackward0", id="norm"),
        pytest.param(lambda m, x: x.norm(INF), "LinalgVectorNormBackward0", id="norm-inf"),
        pytest.param(lambda m, x: x.cumsum(0), "CumsumBackward0", id="cumsum"),
        pytest.param(lambda m, x: x.cumprod(0), "CumprodBackward0", id="cumprod"),
        pytest.param(lambda m, x: x.softmax(0), "SoftmaxBackward0", id="softmax"),
        pytest.param(lambda m, x: x.log_softmax(0), "LogSoftmaxBackward0", id="log_softmax"),
    ],
)
def test_grad_fn_names_as_torch(torch: Any, fn: Callable[..., Any], name: str) -> None:
    assert fn(torch, torch.tensor([1.0, 2.0], requires_grad=True)).grad_fn.name() == name
    assert fn(ctxgrad, ctxgrad.tensor([1.0, 2.0], requires_grad=True)).grad_fn.name() == name


# --------------------------------------------------------------------------- errors

ERRORS = [
    pytest.param(
        lambda m: m.zeros(2, 3).prod(2),
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got 2)",
        id="prod-dim",
    ),
    pytest.param(
        lambda m: m.zeros(2, 3).var(-3),
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got -3)",
        id="var-dim",
    ),
    pytest.param(
        lambda m: m.zeros(2, 3).max(2),
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got 2)",
        id="max-dim",
    ),
    pytest.param(
        lambda m: m.tensor(1.0).max(1),
        IndexError,
        "Dimension out of range (expected to be in range of [-1, 0], but got 1)",
        id="max-0d-dim",
    ),
    pytest.param(
        lambda m: m.zeros(2, 3).amax(3),
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got 3)",
        id="amax-dim",
    ),
    pytest.param(
        lambda m: m.zeros(2, 3).argmax(2),
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got 2)",
        id="argmax-dim",
    ),
    pytest.param(
        lambda m: m.zeros(2, 3).logsumexp(5),
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got 5)",
        id="logsumexp-dim",
    ),
    pytest.param(
        lambda m: m.zeros(2, 3).norm(dim=2),
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got 2)",
        id="norm-dim",
    ),
    pytest.param(
        lambda m: m.zeros(2, 3).cumsum(2),
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got 2)",
        id="cumsum-dim",
    ),
    pytest.param(
        lambda m: m.zeros(2, 3).cumprod(-3),
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got -3)",
        id="cumprod-dim",
    ),
    pytest.param(
        lambda m: m.zeros(2, 3).softmax(2),
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got 2)",
        id="softmax-dim",
    ),
    pytest.param(
        lambda m: m.zeros(2, 3).all(2),
        IndexError,
        "Dimension out of range (expected to be in range of [-2, 1], but got 2)",
        id="all-dim",
    ),
    pytest.param(
        lambda m: m.tensor(1.0).cumsum(1),
        IndexError,
        "Dimension out of range (expected to be in range of [-1, 0], but got 1)",
        id="cumsum-0d",
    ),
    pytest.param(
        lambda m: m.zeros(2, 3).amax((0, 0)),
        RuntimeError,
        "dim 0 appears multiple times in the list of dims",
        id="amax-duplicate",
    ),
    pytest.param(
        lambda m: m.zeros(2, 3).var((1, -1)),
        RuntimeError,
        "dim 1 appears multiple times in the list of dims",
        id="var-duplicate",
    ),
    pytest.param(
        lambda m: m.zeros(2, 3).logsumexp((1, 1)),
        RuntimeError,
        "dim 1 appears multiple times in the list of dims",
        id="logsumexp-duplicate",
    ),
    pytest.param(
        lambda m: m.zeros(2, 3).norm(dim=(0, 0)),
        RuntimeError,
        "dim 0 appears multiple times in the list of dims",
        id="norm-duplicate",
    ),
    pytest.param(
        lambda m: m.zeros(0, 3).max(),
        RuntimeError,
        "max(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction dim "
        "with the 'dim' argument.",
        id="max-empty",
    ),
    pytest.param(
        lambda m: m.zeros(0, 3).min(),
        RuntimeError,
        "min(): Expected reduction dim to be specified for input.numel() == 0.",
        id="min-empty",
    ),
    pytest.param(
        lambda m: m.zeros(0, 3).max(0),
        IndexError,
        "max(): Expected reduction dim 0 to have non-zero size.",
        id="max-empty-dim",
    ),
    pytest.param(
        lambda m: m.zeros(3, 0).min(-1),
        IndexError,
        "min(): Expected reduction dim 1 to have non-zero size.",
        id="min-empty-dim",
    ),
    pytest.param(
        lambda m: m.zeros(0, 3).amax(),
        RuntimeError,
        "amax(): Expected reduction dim to be specified for input.numel() == 0.",
        id="amax-empty",
    ),
    pytest.param(
        lambda m: m.zeros(0, 3).amin(0),
        IndexError,
        "amin(): Expected reduction dim 0 to have non-zero size.",
        id="amin-empty-dim",
    ),
    pytest.param(
        lambda m: m.zeros(0, 3).argmax(),
        IndexError,
        "argmax(): Expected reduction dim to be specified for input.numel() == 0.",
        id="argmax-empty",
    ),
    pytest.param(
        lambda m: m.zeros(0, 3).argmin(0),
        IndexError,
        "argmin(): Expected reduction dim 0 to have non-zero size.",
        id="argmin-empty-dim",
    ),
    pytest.param(
        lambda m: m.tensor([True, False]).argmax(),
        RuntimeError,
        "argmax(): does not support bool input",
        id="argmax-bool",
    ),
    pytest.param(
        lambda m: m.tensor([True, False]).argmin(0),
        RuntimeError,
        "argmin(): does not support bool input",
        id="argmin-bool",
    ),
    pytest.param(
        lambda m: m.zeros(0).norm(INF),
        RuntimeError,
        "linalg.vector_norm cannot compute the inf norm on an empty tensor because the operation does not "
        "have an identity",
        id="norm-inf-empty",
    ),
    pytest.param(
        lambda m: m.zeros(0, 2).norm(-INF, dim=0),
        RuntimeError,
        "linalg.vector_norm cannot compute the -inf norm on the dimension 0because this dimension is empty",
        id="norm-minus-inf-empty-dim",
    ),
    pytest.param(
        lambda m: m.zeros(0).norm(-1),
        RuntimeError,
        "linalg.vector_norm cannot compute the -1 norm on an empty tensor",
        id="norm-negative-empty",
    ),
    pytest.param(
        lambda m: m.zeros(2, 3, 4).norm("fro", dim=(0, 1, 2)),
        RuntimeError,
        "linalg.matrix_norm: dim must be a 2-tuple. Got 0 1 2",
        id="norm-fro-3-dims",
    ),
    pytest.param(
        lambda m: m.zeros(2, 3).norm("abc"),
        RuntimeError,
        "linalg.matrix_norm: Order abc not supported.",
        id="norm-bad-order",
    ),
    pytest.param(
        lambda m: m.zeros(2, 3).prod((0, 1)),
        TypeError,
        "prod() received an invalid combination of arguments",
        id="prod-tuple",
    ),
    pytest.param(
        lambda m: m.zeros(2, 3).max((0, 1)),
        TypeError,
        "max() received an invalid combination of arguments",
        id="max-tuple",
    ),
    pytest.param(
        lambda m: m.zeros(2, 3).max(keepdim=True),
        TypeError,
        "max() received an invalid combination of arguments - got (keepdim=bool, )",
        id="max-keepdim-without-dim",
    ),
    pytest.param(
        lambda m: m.zeros(2, 3).argmax((0,)),
        TypeError,
        "argmax(): argument 'dim' (position 1) must be int, not tuple",
        id="argmax-tuple",
    ),
    pytest.param(
        lambda m: m.zeros(2, 3).var(1, unbiased=False, correction=0),
        TypeError,
        "var() received an invalid combination of arguments",
        id="var-unbiased-and-correction",
    ),
    pytest.param(
        lambda m: m.zeros(2, 3).std(unbiased=True, correction=1),
        TypeError,
        "std() received an invalid combination of arguments",
        id="std-unbiased-and-correction",
    ),
    pytest.param(
        lambda m: m.zeros(2, 3).cumsum(),
        TypeError,
        "cumsum() missing 1 required positional argument",
        id="cumsum-no-dim",
    ),
    pytest.param(
        lambda m: m.zeros(2, 3).softmax(),
        TypeError,
        "softmax() missing 1 required positional argument",
        id="softmax-no-dim",
    ),
    pytest.param(
        lambda m: m.zeros(2, 3).logsumexp(),
        TypeError,
        "logsumexp() missing 1 required positional argument",
        id="logsumexp-no-dim",
    ),
]


@pytest.mark.parametrize(("fn", "exc", "message"), ERRORS)
def test_errors_as_torch(torch: Any, fn: Callable[[Any], Any], exc: type[BaseException], message: str) -> None:
    with pytest.raises(exc) as t_info:
        fn(torch)
    assert str(t_info.value).replace('arguments: "dim"', "argument").startswith(message), (
        f"torch oracle says: {t_info.value}"
    )
    with pytest.raises(exc) as c_info:
        fn(ctxgrad)
    # Python names a method "Tensor.cumsum()" in its missing-argument message.
    assert str(c_info.value).removeprefix("Tensor.").startswith(message), f"ctxgrad says: {c_info.value}"


def test_norm_nuclear_is_not_available() -> None:
    with pytest.raises(NotImplementedError, match="nuclear norm"):
        ctxgrad.zeros(2, 2).norm("nuc")


# --------------------------------------------------------------------------- empty reductions


EMPTY = [
    pytest.param(lambda m, x: x.prod(), id="prod"),
    pytest.param(lambda m, x: x.prod(0), id="prod-dim"),
    pytest.param(lambda m, x: x.sum(0), id="sum-dim"),
    pytest.param(lambda m, x: x.norm(), id="norm"),
    pytest.param(lambda m, x: x.norm(1, 0), id="norm-1-dim"),
    pytest.param(lambda m, x: x.logsumexp(0), id="logsumexp-empty-dim"),
    pytest.param(lambda m, x: x.logsumexp(1), id="logsumexp"),
    pytest.param(lambda m, x: x.amax(1), id="amax-other-dim"),
    pytest.param(lambda m, x: x.max(1).values, id="max-other-dim"),
    pytest.param(lambda m, x: x.cumprod(0), id="cumprod"),
    pytest.param(lambda m, x: x.softmax(0), id="softmax"),
    pytest.param(lambda m, x: x.log_softmax(1), id="log_softmax"),
    pytest.param(lambda m, x: x.all(), id="all"),
    pytest.param(lambda m, x: x.any(), id="any"),
    pytest.param(lambda m, x: x.all(0), id="all-dim"),
    pytest.param(lambda m, x: x.argmax(1), id="argmax-other-dim"),
]


@pytest.mark.parametrize("fn", EMPTY)
def test_empty_inputs_as_torch(torch: Any, fn: Callable[..., Any]) -> None:
    def run(m: Any) -> tuple[Any, Any]:
        x = m.zeros(0, 3, dtype=m.float64, requires_grad=True)
        out = fn(m, x)
        if out.requires_grad:
            out.sum().backward()
        return out, x.grad

    with np.errstate(divide="ignore"):
        c = run(ctxgrad)
    t = run(torch)
    assert_same(c[0], t[0])
    assert (c[1] is None) == (t[1] is None)
    if t[1] is not None:
        assert_same(c[1], t[1])


# --------------------------------------------------------------------------- NumPy's names: axis=, keepdims=
# torch's argument parser takes ``axis`` for ``dim`` and ``keepdims`` for ``keepdim`` (in place of them,
# never beside them) in every function and method whose signature has them; ctxgrad's frontends do too.

_VALUES = [[[float(7 * i + 5 * j + 3 * k) % 11 - 5 for k in range(4)] for j in range(3)] for i in range(2)]
_INDEX = [[[0, 1, 2, 0], [2, 2, 1, 0]], [[1, 0, 0, 2], [0, 1, 2, 1]]]


def _index(m: Any) -> Any:
    return m.tensor(_INDEX, dtype=m.int64)


def _pair(m: Any) -> Any:
    return m.tensor([3, 0], dtype=m.int64)


def _ones(m: Any) -> Any:
    return m.ones(2, 2, 4, dtype=m.float64)


NUMPY_NAMES = [
    ("sum", (), {"axis": 1}),
    ("sum", (), {"axis": (0, 2), "keepdims": True}),
    ("sum", (1,), {"keepdims": True}),
    ("mean", (), {"axis": 1}),
    ("mean", (), {"axis": [0, 1], "keepdims": True}),
    ("prod", (), {"axis": 2, "keepdims": True}),
    ("var", (), {"axis": 0}),
    ("std", (), {"axis": 0, "correction": 0, "keepdims": True}),
    ("std", (), {"keepdims": True}),
    ("max", (), {"axis": 1}),
    ("min", (), {"axis": 1, "keepdims": True}),
    ("amax", (), {"axis": 1}),
    ("amin", (), {"axis": (0, 1), "keepdims": True}),
    ("argmax", (), {"axis": 0}),
    ("argmin", (), {"axis": 2, "keepdims": True}),
    ("logsumexp", (), {"axis": 1, "keepdims": True}),
    ("cumsum", (), {"axis": 1}),
    ("cumprod", (), {"axis": 0}),
    ("softmax", (), {"axis": 2}),
    ("log_softmax", (), {"axis": 1}),
    ("all", (), {"axis": 1}),
    ("any", (), {"axis": (0, 2), "keepdims": True}),
    ("sort", (), {"axis": 1}),
    ("argsort", (), {"axis": 0}),
    ("topk", (2,), {"axis": 1}),
    ("kthvalue", (2,), {"axis": 1, "keepdims": True}),
    ("median", (), {"axis": 2, "keepdims": True}),
    ("squeeze", (), {"axis": 0}),
    ("unsqueeze", (), {"axis": 1}),
    ("unbind", (), {"axis": 1}),
    ("chunk", (2,), {"axis": 2}),
    ("narrow", (), {"axis": 2, "start": 1, "length": 2}),
    ("select", (), {"axis": 1, "index": 2}),
    ("index_select", (), {"axis": 2, "index": _pair}),
    ("gather", (), {"axis": 1, "index": _index}),
    ("scatter", (), {"axis": 1, "index": _index, "value": 2.0}),
    ("scatter_add", (), {"axis": 1, "index": _index, "src": _ones}),
    ("take_along_dim", (_index,), {"axis": 1}),
]
NUMPY_NAMES_FUNCTIONS = [  # taken by torch's function, not its method
    ("unflatten", (), {"axis": 1, "sizes": (3, 1)}),
    ("linalg.vector_norm", (), {"axis": 1, "keepdims": True}),
    ("linalg.vector_norm", (), {"ord": 1, "axis": (0, 2)}),
    ("linalg.matrix_norm", (), {"axis": (0, 2), "keepdims": True}),
    ("linalg.norm", (), {"axis": 1}),
    ("linalg.norm", (), {"dim": (0, 1), "keepdims": True}),
]


def _call(m: Any, name: str, form: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
    x = m.tensor(_VALUES, dtype=m.float64)
    args = tuple(a(m) if callable(a) else a for a in args)
    kwargs = {k: v(m) if callable(v) else v for k, v in kwargs.items()}
    if form == "method":
        return getattr(x, name)(*args, **kwargs)
    fn = m
    for part in name.split("."):
        fn = getattr(fn, part)
    return fn(x, *args, **kwargs)


def _assert_same_outputs(c: Any, t: Any) -> None:
    if isinstance(t, tuple):  # (values, indices), unbind's and chunk's pieces
        assert isinstance(c, tuple) and len(c) == len(t)
        for a, b in zip(c, t):
            assert_same(a, b)
    else:
        assert_same(c, t)


@pytest.mark.parametrize("form", ["method", "function"])
@pytest.mark.parametrize(
    ("name", "args", "kwargs"), NUMPY_NAMES, ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(NUMPY_NAMES)]
)
def test_numpy_names_as_torch(torch: Any, name: str, args: tuple[Any, ...], kwargs: dict[str, Any], form: str) -> None:
    _assert_same_outputs(_call(ctxgrad, name, form, args, kwargs), _call(torch, name, form, args, kwargs))


@pytest.mark.parametrize("form", ["method", "function"])
@pytest.mark.parametrize(
    ("name", "args", "kwargs"), NUMPY_NAMES, ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(NUMPY_NAMES)]
)
def test_numpy_name_beside_torch_s_is_refused_as_torch(
    torch: Any, name: str, args: tuple[Any, ...], kwargs: dict[str, Any], form: str
) -> None:
    both = dict(kwargs, dim=1) if "axis" in kwargs else dict(kwargs, keepdim=True)
    keyword = "axis" if "axis" in kwargs else "keepdims"
    with pytest.raises(TypeError):
        _call(torch, name, form, args, both)
    with pytest.raises(TypeError, match=f"{name}\\(\\) got an unexpected keyword argument '{keyword}'"):
        _call(ctxgrad, name, form, args, both)


@pytest.mark.parametrize(
    ("name", "args", "kwargs"),
    NUMPY_NAMES_FUNCTIONS,
    ids=[f"{n}-{i}" for i, (n, _, _) in enumerate(NUMPY_NAMES_FUNCTIONS)],
)
def test_numpy_names_in_functions_as_torch(
    torch: Any, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    _assert_same_outputs(_call(ctxgrad, name, "function", args, kwargs), _call(torch, name, "function", args, kwargs))
    both = dict(kwargs, dim=1) if "axis" in kwargs else dict(kwargs, keepdim=True)
    for m in (torch, ctxgrad):
        with pytest.raises(TypeError):
            _call(m, name, "function", args, both)


def test_axis_is_not_taken_where_torch_does_not_take_it(torch: Any) -> None:
    # torch.flip, roll, split and norm are not its argument parser's (dims=, or Python functions)
    for name, args in (("flip", ()), ("roll", (1,)), ("split", (1,)), ("norm", ()), ("unflatten", ((3, 1),))):
        for m in (torch, ctxgrad):
            with pytest.raises(TypeError):
                _call(m, name, "method", args, {"axis": 0})


# --------------------------------------------------------------------------- keepdim= without dim=

KEEPDIM_REFUSED = ["sum", "mean", "prod", "max", "min", "median"]


def _first_line(exc: BaseException) -> str:
    return str(exc).splitlines()[0]


@pytest.mark.parametrize("keyword", [{"keepdim": True}, {"keepdims": True}, {"keepdims": False}], ids=str)
@pytest.mark.parametrize("name", KEEPDIM_REFUSED)
def test_keepdim_without_dim_is_refused_as_torch(torch: Any, name: str, keyword: dict[str, bool]) -> None:
    with pytest.raises(TypeError) as theirs:
        _call(torch, name, "method", (), keyword)
    with pytest.raises(TypeError) as ours:
        _call(ctxgrad, name, "method", (), keyword)
    assert _first_line(ours.value) == _first_line(theirs.value)
    # the function form: torch names the input too (``got (Tensor, keepdim=bool)``); the start is the same
    with pytest.raises(TypeError) as theirs:
        _call(torch, name, "function", (), keyword)
    with pytest.raises(TypeError) as ours:
        _call(ctxgrad, name, "function", (), keyword)
    start = _first_line(theirs.value).split(" - got (")[0]
    assert _first_line(ours.value).startswith(start)


@pytest.mark.parametrize("name", ["sum", "mean"])
def test_sum_and_mean_with_dtype_and_keepdim_without_dim_say_dim_is_missing(torch: Any, name: str) -> None:
    with pytest.raises(TypeError) as theirs:
        getattr(torch.tensor(_VALUES), name)(dtype=torch.float64, keepdim=True)
    with pytest.raises(TypeError) as ours:
        getattr(ctxgrad.tensor(_VALUES), name)(dtype=ctxgrad.float64, keepdim=True)
    assert str(ours.value) == str(theirs.value)


KEEPDIM_TAKEN = [
    ("sum", {"dim": None, "keepdim": True}),
    ("mean", {"dim": None, "keepdim": True}),
    ("var", {"keepdim": True}),
    ("std", {"keepdims": True}),
    ("amax", {"keepdim": True}),
    ("amin", {"keepdims": True}),
    ("argmax", {"keepdim": True}),
    ("argmin", {"keepdims": True}),
    ("all", {"keepdim": True}),
    ("any", {"keepdims": True}),
    ("norm", {"keepdim": True}),
]


@pytest.mark.parametrize(("name", "kwargs"), KEEPDIM_TAKEN, ids=[f"{n}-{i}" for i, (n, _) in enumerate(KEEPDIM_TAKEN)])
def test_keepdim_without_dim_is_taken_where_torch_takes_it(torch: Any, name: str, kwargs: dict[str, Any]) -> None:
    assert_same(_call(ctxgrad, name, "method", (), kwargs), _call(torch, name, "method", (), kwargs))


MISSING_DIM = [
    ("cumsum", {}),
    ("softmax", {}),
    ("logsumexp", {"keepdim": True}),
    ("unsqueeze", {}),
    ("gather", {"axis": 1}),
    ("select", {"axis": 1}),
    ("index_select", {}),
    ("scatter_add", {"axis": 1, "index": _index}),
]


@pytest.mark.parametrize(("name", "kwargs"), MISSING_DIM, ids=[f"{n}-{i}" for i, (n, _) in enumerate(MISSING_DIM)])
def test_a_missing_dim_is_refused_as_torch(torch: Any, name: str, kwargs: dict[str, Any]) -> None:
    with pytest.raises(TypeError) as theirs:
        _call(torch, name, "method", (), kwargs)
    with pytest.raises(TypeError) as ours:
        _call(ctxgrad, name, "method", (), kwargs)
    assert str(ours.value) == str(theirs.value)


# cumsum accumulates a narrow floating dtype in a wider one, as torch's (float16 in float32,
# float32 in float64): in float16, 20,000 steps of 0.1 would stall at 256.
@pytest.mark.parametrize(
    ("dtype", "n", "last"),
    [("float16", 20_000, 2000.0), ("float32", 10**6, float(np.float32(10**6 * np.float64(np.float32(0.1)))))],
)
def test_cumsum_accumulates_in_a_wider_dtype(dtype: str, n: int, last: float) -> None:
    x = (ctxgrad.ones(n, dtype=getattr(ctxgrad, dtype)) * 0.1).requires_grad_()
    out = x.cumsum(0)
    assert out.dtype == getattr(ctxgrad, dtype)
    assert out[-1].item() == last
    out.backward(ctxgrad.full((n,), 0.1, dtype=getattr(ctxgrad, dtype)))  # the backward is a reversed cumsum
    assert x.grad[0].item() == last


def test_cumsum_matches_torch_bit_for_bit(torch: Any) -> None:
    rng = np.random.default_rng(0)
    for dtype in ("float16", "float32", "complex64"):
        values = rng.standard_normal((4, 5000))
        if dtype == "complex64":
            values = values + 1j * rng.standard_normal((4, 5000))
        values = values.astype(dtype)
        for dim in (0, 1):
            c = ctxgrad.tensor(values, requires_grad=dtype != "complex64")
            t = torch.tensor(values, requires_grad=dtype != "complex64")
            c_out, t_out = c.cumsum(dim), t.cumsum(dim)
            np.testing.assert_array_equal(c_out.detach().numpy(), t_out.detach().numpy())
            if dtype != "complex64":
                seed = rng.standard_normal(values.shape).astype(dtype)
                c_out.backward(ctxgrad.tensor(seed))
                t_out.backward(torch.tensor(seed))
                np.testing.assert_array_equal(c.grad.numpy(), t.grad.numpy())

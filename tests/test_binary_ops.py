"""The pointwise ops of the op library's second part: ``atan2``, ``logit``, ``erf``/``erfc``,
``clamp`` (and ``clip``, ``clamp_min``, ``clamp_max``), ``maximum``/``minimum``, ``lerp``,
``true_divide``/``floor_divide``, the activations of ``ctxgrad.nn.functional`` (``leaky_relu``,
``elu``, ``gelu``, ``silu``, ``softplus``), and the non-differentiable tests, logical and bitwise
ops.

The differentiable ops are one table for the op test kit (``_opcheck.py``): values against
NumPy, values/dtypes/gradients against torch in float64 and float32, gradients, tangents and
second derivatives against torch and central differences.  Inputs there are chosen away from
kinks and ties; the plain tests below check those points (ties, bounds, kinks, signed zeros,
inf, NaN) against torch, together with dtypes for int64, bool, float32 and Python-number
operands, torch's errors, keyword names and the function forms.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _opcheck import Case, OpFamilyTests, any_, assert_same, jvp_of
from _support import raised, to_numpy

import ctxgrad

_erf = np.vectorize(math.erf, otypes=[np.float64])
_erfc = np.vectorize(math.erfc, otypes=[np.float64])


def F(m: Any) -> Any:
    """``torch.nn.functional`` or ``ctxgrad.nn.functional``."""
    return m.nn.functional


def _uniform(lo: float, hi: float) -> Callable[[np.random.Generator, tuple[int, ...]], np.ndarray]:
    return lambda rng, shape: rng.uniform(lo, hi, shape)


_LOW = _uniform(-1.0, -0.2)  # lower bounds for clamp
_HIGH = _uniform(0.2, 1.0)  # upper bounds for clamp
_PROB = [((2, 3), "prob")]


def _gelu_tanh(a: np.ndarray) -> np.ndarray:
    return 0.5 * a * (1 + np.tanh(math.sqrt(2 / math.pi) * (a + 0.044715 * a**3)))


def _softplus(a: np.ndarray, beta: float, threshold: float) -> np.ndarray:
    return np.where(a * beta > threshold, a, np.log1p(np.exp(a * beta)) / beta)


CASES = [
    Case("atan2", lambda m, a, b: m.atan2(a, b), any_((2, 3), (2, 3)), ref=lambda m, a, b: np.arctan2(a, b)),
    Case("atan2-broadcast", lambda m, a, b: a.atan2(b), any_((3, 1), (4,)), ref=lambda m, a, b: np.arctan2(a, b)),
    Case("arctan2", lambda m, a, b: m.arctan2(a, b), any_((3,), ()), ref=lambda m, a, b: np.arctan2(a, b)),
    Case("arctan2-method", lambda m, a, b: a.arctan2(b), any_((3,), (3,)), ref=lambda m, a, b: np.arctan2(a, b)),
    Case("logit", lambda m, a: m.logit(a), _PROB, ref=lambda m, a: np.log(a / (1 - a))),
    Case(
        "logit-eps",
        lambda m, a: a.logit(eps=0.2),
        _PROB,
        ref=lambda m, a: np.log(np.clip(a, 0.2, 0.8) / (1 - np.clip(a, 0.2, 0.8))),
    ),
    Case("erf", lambda m, a: m.erf(a), any_((2, 3)), ref=lambda m, a: _erf(a)),
    Case("erf-method-wide", lambda m, a: (a * 3).erf(), any_((4,)), ref=lambda m, a: _erf(a * 3)),
    Case("erfc", lambda m, a: m.erfc(a), any_((2, 3)), ref=lambda m, a: _erfc(a)),
    Case("erfc-method-wide", lambda m, a: (a * 3).erfc(), any_((4,)), ref=lambda m, a: _erfc(a * 3)),
    Case(
        "leaky_relu", lambda m, a: F(m).leaky_relu(a), [((2, 3), "nz")], ref=lambda m, a: np.where(a > 0, a, 0.01 * a)
    ),
    Case(
        "leaky_relu-slope",
        lambda m, a: F(m).leaky_relu(a, negative_slope=-0.3),
        [((2, 3), "nz")],
        ref=lambda m, a: np.where(a > 0, a, -0.3 * a),
    ),
    Case("elu", lambda m, a: F(m).elu(a), [((2, 3), "nz")], ref=lambda m, a: np.where(a > 0, a, np.expm1(a))),
    Case(
        "elu-alpha",
        lambda m, a: F(m).elu(a, alpha=2.5),
        [((2, 3), "nz")],
        ref=lambda m, a: np.where(a > 0, a, 2.5 * np.expm1(a)),
    ),
    Case("gelu", lambda m, a: F(m).gelu(a), any_((2, 3)), ref=lambda m, a: a * 0.5 * (1 + _erf(a / math.sqrt(2)))),
    Case("gelu-tanh", lambda m, a: F(m).gelu(a, approximate="tanh"), any_((2, 3)), ref=lambda m, a: _gelu_tanh(a)),
    Case("silu", lambda m, a: F(m).silu(a), any_((2, 3)), ref=lambda m, a: a / (1 + np.exp(-a))),
    Case("softplus", lambda m, a: F(m).softplus(a), any_((2, 3)), ref=lambda m, a: _softplus(a, 1.0, 20.0)),
    Case(
        "softplus-beta-threshold",
        lambda m, a: F(m).softplus(a, beta=2.0, threshold=1.5),
        any_((3, 4)),
        ref=lambda m, a: _softplus(a, 2.0, 1.5),
    ),
    Case("clamp", lambda m, a: m.clamp(a, -0.3, 0.4), any_((3, 4)), ref=lambda m, a: np.clip(a, -0.3, 0.4)),
    Case("clamp-min", lambda m, a: a.clamp(min=-0.3), any_((3, 4)), ref=lambda m, a: np.maximum(a, -0.3)),
    Case("clamp-max", lambda m, a: a.clamp(max=0.4), any_((3, 4)), ref=lambda m, a: np.minimum(a, 0.4)),
    Case("clamp-int-bounds", lambda m, a: (a * 3).clamp(-1, 2), any_((3, 4)), ref=lambda m, a: np.clip(a * 3, -1, 2)),
    Case("clip", lambda m, a: m.clip(a, -0.3, 0.4), any_((3, 4)), ref=lambda m, a: np.clip(a, -0.3, 0.4)),
    Case(
        "clamp-crossed",
        lambda m, a: a.clamp(0.4, -0.3),
        any_((3,)),
        ref=lambda m, a: np.minimum(np.maximum(a, 0.4), -0.3),
    ),
    Case("clamp_min", lambda m, a: m.clamp_min(a, 0.1), any_((3, 4)), ref=lambda m, a: np.maximum(a, 0.1)),
    Case("clamp_max", lambda m, a: a.clamp_max(0.1), any_((3, 4)), ref=lambda m, a: np.minimum(a, 0.1)),
    Case(
        "clamp-tensors",
        lambda m, a, lo, hi: m.clamp(a, lo, hi),
        [((3, 4), "any"), ((3, 4), _LOW), ((4,), _HIGH)],
        ref=lambda m, a, lo, hi: np.minimum(np.maximum(a, lo), hi),
    ),
    Case(
        "clamp-tensor-min",
        lambda m, a, lo: a.clamp(min=lo),
        [((3, 4), "any"), ((3, 1), _LOW)],
        ref=lambda m, a, lo: np.maximum(a, lo),
    ),
    Case(
        "clamp-tensor-max",
        lambda m, a, hi: a.clamp(max=hi),
        [((3, 4), "any"), ((), _HIGH)],
        ref=lambda m, a, hi: np.minimum(a, hi),
    ),
    Case(
        "clamp-tensors-crossed",
        lambda m, a, lo, hi: a.clamp(hi, lo),
        [((2, 3), "any"), ((2, 3), _LOW), ((3,), _HIGH)],
        ref=lambda m, a, lo, hi: np.minimum(np.maximum(a, hi), lo),
    ),
    Case(
        "clamp-tensors-broadcast-x",
        lambda m, a, lo, hi: a.clip(lo, hi),
        [((3,), "any"), ((2, 3), _LOW), ((2, 1), _HIGH)],
        ref=lambda m, a, lo, hi: np.minimum(np.maximum(a, lo), hi),
    ),
    Case(
        "clamp_min-tensor", lambda m, a, lo: a.clamp_min(lo), any_((2, 3), (3,)), ref=lambda m, a, lo: np.maximum(a, lo)
    ),
    Case(
        "clamp_max-tensor",
        lambda m, a, hi: m.clamp_max(a, hi),
        any_((2, 3), (2, 1)),
        ref=lambda m, a, hi: np.minimum(a, hi),
    ),
    Case("maximum", lambda m, a, b: m.maximum(a, b), any_((2, 3), (2, 3))),
    Case("maximum-broadcast", lambda m, a, b: a.maximum(b), any_((3, 1), (4,)), ref=lambda m, a, b: np.maximum(a, b)),
    Case("minimum", lambda m, a, b: m.minimum(a, b), any_((2, 3), (2, 3))),
    Case("minimum-broadcast-0d", lambda m, a, b: a.minimum(b), any_((2, 3), ()), ref=lambda m, a, b: np.minimum(a, b)),
    Case(
        "lerp-small-weight",
        lambda m, a, b: m.lerp(a, b, 0.3),
        any_((2, 3), (2, 3)),
        ref=lambda m, a, b: a + 0.3 * (b - a),
    ),
    Case(
        "lerp-large-weight", lambda m, a, b: a.lerp(b, 0.75), any_((2, 3), (3,)), ref=lambda m, a, b: a + 0.75 * (b - a)
    ),
    Case("lerp-int-weight", lambda m, a, b: a.lerp(b, 2), any_((3,), (3,)), ref=lambda m, a, b: a + 2 * (b - a)),
    Case(
        "lerp-tensor-weight",
        lambda m, a, b, w: m.lerp(a, b, w),
        any_((2, 3), (2, 3), (2, 3)),
        ref=lambda m, a, b, w: a + w * (b - a),
    ),
    Case(
        "lerp-tensor-weight-broadcast",
        lambda m, a, b, w: a.lerp(b, w),
        any_((2, 3), (3,), (2, 1)),
        ref=lambda m, a, b, w: a + w * (b - a),
    ),
    Case("true_divide", lambda m, a, b: m.true_divide(a, b), [((2, 3), "any"), ((3,), "nz")]),
    Case("true_divide-method", lambda m, a: a.true_divide(2.0), any_((3,)), ref=lambda m, a: a / 2.0),
    Case("remainder", lambda m, a, b: a % b, [((2, 3), "any"), ((2, 3), "nz")], ref=lambda m, a, b: np.remainder(a, b)),
    Case(
        "remainder-broadcast",
        lambda m, a, b: m.remainder(a, b),
        [((2, 3), "any"), ((3,), "pos")],
        ref=lambda m, a, b: np.remainder(a, b),
    ),
    Case("remainder-number", lambda m, a: a % 0.7, any_((2, 3)), ref=lambda m, a: np.remainder(a, 0.7)),
    Case("fmod", lambda m, a, b: m.fmod(a, b), [((2, 3), "any"), ((2, 3), "nz")], ref=lambda m, a, b: np.fmod(a, b)),
    Case("fmod-number", lambda m, a: a.fmod(-0.6), any_((2, 3)), ref=lambda m, a: np.fmod(a, -0.6)),
    Case(
        "composite",
        lambda m, a, b: F(m).silu(m.clamp(a, -1.0, 1.0) * m.maximum(a, b)).erf(),
        any_((2, 3), (3,)),
        ref=lambda m, a, b: _erf(
            np.clip(a, -1, 1) * np.maximum(a, b) / (1 + np.exp(-np.clip(a, -1, 1) * np.maximum(a, b)))
        ),
    ),
]

DOUBLE = [
    Case("atan2", lambda m, a, b: m.atan2(a, b), any_((2, 3), (3,))),
    Case("logit", lambda m, a: a.logit(), _PROB),
    Case("logit-eps", lambda m, a: a.logit(0.2), _PROB),
    Case("erf", lambda m, a: a.erf(), any_((2, 3))),
    Case("erfc", lambda m, a: a.erfc(), any_((2, 3))),
    Case("leaky_relu", lambda m, a: F(m).leaky_relu(a, 0.2) * a, [((2, 3), "nz")]),
    Case("elu", lambda m, a: F(m).elu(a, 1.5), [((2, 3), "nz")]),
    Case("gelu", lambda m, a: F(m).gelu(a), any_((2, 3))),
    Case("gelu-tanh", lambda m, a: F(m).gelu(a, approximate="tanh"), any_((2, 3))),
    Case("silu", lambda m, a: F(m).silu(a), any_((2, 3))),
    Case("softplus", lambda m, a: F(m).softplus(a, 2.0, 1.5), any_((3, 4))),
    Case("clamp-times-x", lambda m, a: a.clamp(-0.3, 0.4) * a, any_((3, 4))),
    Case(
        "clamp-tensors-squared",
        lambda m, a, lo, hi: a.clamp(lo, hi) ** 2,
        [((3, 4), "any"), ((3, 4), _LOW), ((4,), _HIGH)],
    ),
    Case("clamp_min-tensor-squared", lambda m, a, lo: a.clamp_min(lo) ** 2, any_((2, 3), (3,))),
    Case("maximum-times-x", lambda m, a, b: m.maximum(a, b) * a, any_((2, 3), (3,))),
    Case("minimum-squared", lambda m, a, b: m.minimum(a, b) ** 2, any_((2, 3), (2, 3))),
    Case("lerp-scalar-squared", lambda m, a, b: a.lerp(b, 0.3) ** 2, any_((2, 3), (2, 3))),
    Case("lerp-tensor-weight", lambda m, a, b, w: a.lerp(b, w), any_((2, 3), (2, 3), (3,))),
    Case("remainder-times-b", lambda m, a, b: (a % b) * b, [((2, 3), "any"), ((3,), "pos")]),
    Case("fmod-squared", lambda m, a, b: m.fmod(a, b) ** 2, [((2, 3), "any"), ((2, 3), "nz")]),
]


class TestPointwiseBinaryFamily(OpFamilyTests):
    """Every differentiable op of this part, through the kit."""

    cases = CASES
    double_cases = DOUBLE


# --------------------------------------------------------------------------- ties, bounds and kinks

NAN, INF = float("nan"), float("inf")
_TIES = [[1.0, 2.0, 3.0, NAN, 1.0, -0.0, 0.0], [1.0, 1.0, 4.0, 1.0, NAN, 0.0, -0.0]]

# (id, fn(m, *xs), input values): gradients and tangents at the points the kit avoids.
SPECIAL = [
    ("maximum-ties-and-nan", lambda m, a, b: m.maximum(a, b), _TIES),
    ("minimum-ties-and-nan", lambda m, a, b: m.minimum(a, b), _TIES),
    ("clamp-at-bounds", lambda m, a: a.clamp(0.0, 1.0), [[-1.0, 0.0, -0.0, 0.5, 1.0, 2.0, NAN, INF, -INF]]),
    ("clamp-crossed", lambda m, a: a.clamp(2.0, 1.0), [[-1.0, 1.0, 1.5, 2.0, 3.0]]),
    ("clamp-min-only-at-bound", lambda m, a: a.clamp(min=0.0), [[-1.0, 0.0, 1.0, NAN]]),
    ("clamp-max-only-at-bound", lambda m, a: a.clamp(max=0.0), [[-1.0, 0.0, 1.0, NAN]]),
    ("clamp-nan-bound", lambda m, a: a.clamp(NAN, 1.0), [[-1.0, 0.0, 2.0]]),
    ("clamp_min-at-bound", lambda m, a: a.clamp_min(0.0), [[-1.0, 0.0, 1.0]]),
    ("clamp_max-at-bound", lambda m, a: a.clamp_max(0.0), [[-1.0, 0.0, 1.0]]),
    (
        "clamp-tensors-at-bounds",
        lambda m, a, lo, hi: a.clamp(lo, hi),
        [
            [-1.0, 0.0, 0.5, 1.0, 2.0, NAN, 0.5, 0.5, 1.5, -1.0, 1.5],
            [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, NAN, 0.0, 2.0, 2.0, 2.0],
            [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, NAN, 1.0, 1.0, 1.0],
        ],
    ),
    ("clamp-tensor-min-at-bound", lambda m, a, lo: a.clamp(min=lo), [[-1.0, 0.0, 0.5, NAN], [0.0, 0.0, 0.0, 0.0]]),
    ("clamp-tensor-max-at-bound", lambda m, a, hi: a.clamp(max=hi), [[-1.0, 0.0, 0.5, NAN], [0.0, 0.0, 0.0, 0.0]]),
    ("clamp_min-tensor-at-bound", lambda m, a, lo: a.clamp_min(lo), [[-1.0, 0.0, 0.5, NAN], [0.0, 0.0, 0.0, 0.0]]),
    ("clamp_max-tensor-at-bound", lambda m, a, hi: a.clamp_max(hi), [[-1.0, 0.0, 0.5, NAN], [0.0, 0.0, 0.0, 0.0]]),
    ("leaky_relu-at-zero", lambda m, a: F(m).leaky_relu(a, 0.2), [[-1.0, 0.0, -0.0, 1.0, NAN, INF, -INF]]),
    ("elu-at-zero", lambda m, a: F(m).elu(a, 2.0), [[-1.0, 0.0, -0.0, 1.0, NAN, 1000.0, -INF]]),
    ("gelu-extremes", lambda m, a: F(m).gelu(a), [[0.0, -0.0, 10.0, -10.0, 40.0, -40.0, INF, -INF, NAN]]),
    ("gelu-tanh-extremes", lambda m, a: F(m).gelu(a, approximate="tanh"), [[0.0, 10.0, -10.0, INF, -INF, NAN]]),
    ("silu-extremes", lambda m, a: F(m).silu(a), [[0.0, -0.0, 1000.0, -1000.0, INF, -INF, NAN]]),
    ("softplus-at-threshold", lambda m, a: F(m).softplus(a, 2.0, 3.0), [[1.4, 1.5, 1.6, -1000.0, 1000.0, 0.0]]),
    ("erf-extremes", lambda m, a: a.erf(), [[0.0, -0.0, 1e-300, 5.0, -6.0, 30.0, INF, -INF, NAN]]),
    ("erfc-extremes", lambda m, a: a.erfc(), [[0.0, -0.0, 5.0, 26.0, 27.3, -6.0, INF, -INF, NAN]]),
    ("logit-edges", lambda m, a: a.logit(), [[0.0, 0.5, 1.0, -0.5, 1.5]]),
    ("logit-eps-at-bounds", lambda m, a: a.logit(0.1), [[0.0, 0.1, 0.5, 0.9, 1.0, -0.5, 1.5]]),
    (
        "atan2-origin-and-signed-zeros",
        lambda m, a, b: m.atan2(a, b),
        [[0.0, 0.0, -0.0, -0.0, 1.0, INF, 0.0], [0.0, -0.0, 0.0, -0.0, 0.0, INF, INF]],
    ),
    ("lerp-weight-half", lambda m, a, b: a.lerp(b, 0.5), [[1.0, -2.0], [3.0, 5.0]]),
    (
        "lerp-tensor-weight-edges",
        lambda m, a, b, w: a.lerp(b, w),
        [[1.0, 1.0, 1.0, 1.0], [3.0, 3.0, 3.0, 3.0], [0.0, 0.5, 1.0, -0.5]],
    ),
    ("true_divide-by-zero", lambda m, a, b: m.true_divide(a, b), [[1.0, 0.0], [0.0, 0.0]]),
]


def _special_params() -> list[Any]:
    return [pytest.param(fn, values, id=name) for name, fn, values in SPECIAL]


def _grads(m: Any, fn: Callable[..., Any], values: list[list[float]]) -> tuple[Any, ...]:
    xs = [m.tensor(v, dtype=m.float64, requires_grad=True) for v in values]
    out = fn(m, *xs)
    out.sum().backward()
    return (out, *(x.grad for x in xs))


@pytest.mark.parametrize(("fn", "values"), _special_params())
def test_gradients_at_ties_bounds_and_kinks_match_torch(torch: Any, fn: Callable[..., Any], values: Any) -> None:
    """Values and gradients (NaN equal to NaN; the signs of zeros compared too)."""
    with np.errstate(all="ignore"):
        c = _grads(ctxgrad, fn, values)
    t = _grads(torch, fn, values)
    for ct, tt in zip(c, t):
        assert_same(ct, tt, rtol=1e-12, atol=0)
        a, b = to_numpy(ct), tt.detach().numpy()
        zeros = b == 0
        np.testing.assert_array_equal(np.signbit(a[zeros]), np.signbit(b[zeros]), err_msg="signs of zeros")


@pytest.mark.parametrize(("fn", "values"), _special_params())
def test_tangents_at_ties_bounds_and_kinks_match_torch(torch: Any, fn: Callable[..., Any], values: Any) -> None:
    """Forward mode at the same points, every input dual with its own tangent."""
    arrays = [np.array(v, dtype=np.float64) for v in values]
    tangents = [np.full_like(a, 1.0 + i) for i, a in enumerate(arrays)]
    with np.errstate(all="ignore"):
        c_out, c_tangent = jvp_of(ctxgrad, fn, arrays, tangents)
    t_out, t_tangent = jvp_of(torch, fn, arrays, tangents)
    assert_same(c_out, t_out, rtol=1e-12, atol=0)
    assert_same(c_tangent, t_tangent, rtol=1e-12, atol=0)


def test_relu_gradient_at_nan_differs_from_torch(torch: Any) -> None:
    """A documented difference kept from the first part: torch passes relu's gradient at NaN,
    ctxgrad gives 0 there (the mask is sign(relu(x)))."""
    grads = []
    for m in (ctxgrad, torch):
        x = m.tensor([NAN, 1.0], dtype=m.float64, requires_grad=True)
        m.relu(x).sum().backward()
        grads.append(to_numpy(x.grad).tolist())
    assert grads == [[0.0, 1.0], [1.0, 1.0]]


# --------------------------------------------------------------------------- accuracy of erf


def test_erf_and_erfc_are_accurate_to_1e_14_in_float64() -> None:
    """Relative error against 50-digit mpmath values, from tiny arguments to erfc's underflow."""
    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 50
    rng = np.random.default_rng(5)
    xs = np.concatenate(
        [
            rng.uniform(-6.0, 6.0, 400),
            rng.uniform(-0.01, 0.01, 50),
            10.0 ** rng.uniform(-300, 0, 50),
            np.array([0.5, 0.84375, 1.25, 2.857, 6.0, 27.0]),
        ]
    )
    got_erf = to_numpy(ctxgrad.tensor(xs).erf())
    got_erfc = to_numpy(ctxgrad.tensor(xs).erfc())
    for x, e, c in zip(xs, got_erf, got_erfc):
        want_erf = float(mpmath.erf(mpmath.mpf(float(x))))
        want_erfc = float(mpmath.erfc(mpmath.mpf(float(x))))
        assert abs(e - want_erf) <= 1e-14 * abs(want_erf), x
        assert abs(c - want_erfc) <= 1e-14 * abs(want_erfc), x


# --------------------------------------------------------------------------- dtypes

# fn(m) -> tensor: result values and dtypes for int64, bool, float32 inputs and Python numbers.
DTYPES = [
    ("atan2-int", lambda m: m.atan2(m.tensor([1, -2, 0]), m.tensor([2, 3, 0]))),
    ("atan2-bool", lambda m: m.atan2(m.tensor([True, False]), m.tensor([True, True]))),
    ("atan2-float32-float64", lambda m: m.atan2(m.tensor([1.0, 2.0]), m.tensor([3.0, -1.0], dtype=m.float64))),
    ("atan2-float32-0d-float64", lambda m: m.atan2(m.tensor([1.0, 2.0]), m.tensor(3.0, dtype=m.float64))),
    ("atan2-int-float32", lambda m: m.atan2(m.tensor([1, 2]), m.tensor([3.0, -1.0]))),
    ("logit-int", lambda m: m.logit(m.tensor([0, 1, 2]))),
    ("logit-float32-eps", lambda m: m.tensor([0.0, 0.3, 1.0]).logit(0.25)),
    ("erf-int", lambda m: m.erf(m.tensor([0, 1, -2]))),
    ("erf-bool", lambda m: m.erf(m.tensor([True, False]))),
    ("erf-float32", lambda m: m.erf(m.tensor([0.1, -0.5, 2.0]))),
    ("erfc-int", lambda m: m.erfc(m.tensor([0, 1, 5]))),
    ("erfc-float32", lambda m: m.erfc(m.tensor([0.1, 3.0, 9.0]))),
    ("clamp-int-int", lambda m: m.clamp(m.tensor([1, 5, -3]), 0, 3)),
    ("clamp-int-float", lambda m: m.clamp(m.tensor([1, 5, -3]), min=0.5)),
    ("clamp-int32-int", lambda m: m.tensor([1, 5, -3], dtype=m.int32).clamp(max=2)),
    ("clamp-bool-int", lambda m: m.tensor([True, False]).clamp(min=0)),
    ("clamp-float32-int", lambda m: m.tensor([0.5, 1.5]).clamp(0, 1)),
    ("clamp-float32-float", lambda m: m.tensor([0.5, 1.5]).clamp(max=1.25)),
    ("clamp-int-tensor-float", lambda m: m.tensor([1, 5]).clamp(m.tensor([2.0]), m.tensor([3.0]))),
    ("clamp-float32-tensor-int", lambda m: m.tensor([1.0, 5.0]).clamp(m.tensor([2]), m.tensor([3]))),
    ("clamp-float32-0d-float64", lambda m: m.tensor([1.0, 5.0]).clamp(min=m.tensor(2.0, dtype=m.float64))),
    ("clamp-0d-float32-float64", lambda m: m.tensor(1.0).clamp(max=m.tensor([0.5], dtype=m.float64))),
    ("clamp_min-int", lambda m: m.tensor([1, 5]).clamp_min(2)),
    ("clamp_max-int-tensor-float", lambda m: m.tensor([1, 5]).clamp_max(m.tensor([2.5, 2.5]))),
    ("maximum-int-int", lambda m: m.maximum(m.tensor([1, 5]), m.tensor([3, 2]))),
    ("maximum-int-float32", lambda m: m.maximum(m.tensor([1, 5]), m.tensor([3.5, 2.0]))),
    ("maximum-bool", lambda m: m.maximum(m.tensor([True, False]), m.tensor([False, False]))),
    ("minimum-float32-float64", lambda m: m.minimum(m.tensor([1.0, 5.0]), m.tensor([3.0, 2.0], dtype=m.float64))),
    ("minimum-int32-int64", lambda m: m.minimum(m.tensor([1, 5], dtype=m.int32), m.tensor([3, 2]))),
    ("lerp-float32", lambda m: m.lerp(m.tensor([1.0, 2.0]), m.tensor([3.0, 7.0]), 0.25)),
    ("lerp-float32-tensor-weight", lambda m: m.tensor([1.0, 2.0]).lerp(m.tensor([3.0, 7.0]), m.tensor([0.25, 0.9]))),
    ("true_divide-int", lambda m: m.true_divide(m.tensor([1, 5]), m.tensor([2, 2]))),
    ("true_divide-int-pyint", lambda m: m.tensor([1, 5]).true_divide(2)),
    ("true_divide-pyint-tensor", lambda m: m.true_divide(3, m.tensor([2, 4]))),
    ("floor_divide-int", lambda m: m.floor_divide(m.tensor([-5, 5, 7]), m.tensor([2, -2, 7]))),
    ("floor_divide-int-pyfloat", lambda m: m.floor_divide(m.tensor([5, -5]), 2.0)),
    ("floor_divide-uint8", lambda m: m.tensor([5, 251], dtype=m.uint8) // 2),
    ("floor_divide-float", lambda m: m.tensor([-7.5, 7.5, -0.5, 6.0]) // m.tensor([2.0, -2.0, 3.0, 3.0])),
    ("floor_divide-float-by-zero", lambda m: m.tensor([1.0, -1.0, 0.0]) // 0.0),
    ("rfloordiv-pyint", lambda m: 7 // m.tensor([2, -2])),
    ("rfloordiv-pyfloat", lambda m: 7.5 // m.tensor([2, -2])),
    ("floor_divide-pyint-tensor", lambda m: m.floor_divide(7, m.tensor([2, -3]))),
    ("isnan-float", lambda m: m.isnan(m.tensor([1.0, NAN, INF]))),
    ("isnan-int", lambda m: m.tensor([1, 2]).isnan()),
    ("isinf-float", lambda m: m.isinf(m.tensor([1.0, NAN, INF, -INF]))),
    ("isinf-bool", lambda m: m.tensor([True]).isinf()),
    ("isfinite-float", lambda m: m.isfinite(m.tensor([1.0, NAN, INF, -INF]))),
    ("isfinite-int", lambda m: m.tensor([1, 2]).isfinite()),
    ("isfinite-bool-0d", lambda m: m.tensor(False).isfinite()),
    ("logical_and-float-int", lambda m: m.logical_and(m.tensor([0.5, 0.0, 2.0]), m.tensor([1, 1, 0]))),
    ("logical_or-bool-broadcast", lambda m: m.logical_or(m.tensor([[True], [False]]), m.tensor([False, False, True]))),
    ("logical_xor-float-int", lambda m: m.tensor([0.5, 0.0]).logical_xor(m.tensor([1, 0]))),
    ("logical_not-float", lambda m: m.logical_not(m.tensor([0.5, 0.0, NAN]))),
    ("logical_not-int", lambda m: m.tensor([3, 0]).logical_not()),
    ("and-bool", lambda m: m.tensor([True, True, False]) & m.tensor([True, False, False])),
    ("or-int", lambda m: m.tensor([12, 5]) | m.tensor([3, 2])),
    ("xor-int-bool", lambda m: m.tensor([12, 5]) ^ m.tensor([True, False])),
    ("and-bool-pyint", lambda m: m.tensor([True, False]) & 3),
    ("and-bool-pybool", lambda m: m.tensor([True, False]) & True),
    ("rand-pyint", lambda m: 6 & m.tensor([3, 4])),
    ("ror-pybool", lambda m: False | m.tensor([True, False])),
    ("rxor-pyint", lambda m: 5 ^ m.tensor([1, 4])),
    ("uint8-or-int8", lambda m: m.tensor([1, 2], dtype=m.uint8) | m.tensor([4, 4], dtype=m.int8)),
    ("invert-bool", lambda m: ~m.tensor([True, False])),
    ("invert-int", lambda m: ~m.tensor([5, -1, 0])),
    ("invert-0d-int", lambda m: ~m.tensor(5)),
    (
        "bitwise-functions",
        lambda m: m.bitwise_xor(m.bitwise_or(m.bitwise_and(m.tensor([12, 7]), 6), 1), m.tensor([1, 1])),
    ),
    ("bitwise-functions-number-first", lambda m: m.bitwise_and(3, m.tensor([1, 2]))),
    ("bitwise_not-function", lambda m: m.bitwise_not(m.tensor([True, False]))),
    ("bitwise-methods", lambda m: m.tensor([12, 7]).bitwise_and(6).bitwise_or(1).bitwise_xor(3).bitwise_not()),
    ("leaky_relu-float32", lambda m: F(m).leaky_relu(m.tensor([-1.0, 2.0]))),
    ("elu-float32", lambda m: F(m).elu(m.tensor([-1.0, 2.0]))),
    ("gelu-float32", lambda m: F(m).gelu(m.tensor([-1.0, 2.0]))),
    ("gelu-tanh-float32", lambda m: F(m).gelu(m.tensor([-1.0, 2.0]), approximate="tanh")),
    ("silu-float32", lambda m: F(m).silu(m.tensor([-1.0, 2.0]))),
    ("softplus-float32", lambda m: F(m).softplus(m.tensor([-1.0, 2.0, 30.0]))),
    ("relu-sigmoid-tanh-float64", lambda m: F(m).tanh(F(m).sigmoid(F(m).relu(m.tensor([-1.0, 2.0], dtype=m.float64))))),
]


@pytest.mark.parametrize("fn", [pytest.param(fn, id=name) for name, fn in DTYPES])
def test_values_and_dtypes_match_torch(torch: Any, fn: Callable[[Any], Any]) -> None:
    with np.errstate(all="ignore"):
        c = fn(ctxgrad)
    t = fn(torch)
    assert_same(c, t, rtol=1e-6, atol=1e-7)


def test_float32_results_are_computed_in_float32_as_torch(torch: Any) -> None:
    """Exact agreement in float32 where both compute with float32 arithmetic."""
    x = [-1.5, -0.25, 0.0, 0.75, 3.0]
    for fn in (
        lambda m, a: a.clamp(-0.5, 0.5),
        lambda m, a: m.maximum(a, a * 0.5),
        lambda m, a: F(m).leaky_relu(a),
        lambda m, a: a.lerp(a * 2, 0.25),
    ):
        assert_same(fn(ctxgrad, ctxgrad.tensor(x)), fn(torch, torch.tensor(x)), rtol=0, atol=0)


# --------------------------------------------------------------------------- graphs


@pytest.mark.parametrize(
    "fn",
    [
        pytest.param(lambda m, x: x.isnan(), id="isnan"),
        pytest.param(lambda m, x: x.isinf(), id="isinf"),
        pytest.param(lambda m, x: x.isfinite(), id="isfinite"),
        pytest.param(lambda m, x: x.logical_and(x), id="logical_and"),
        pytest.param(lambda m, x: m.logical_or(x, x), id="logical_or"),
        pytest.param(lambda m, x: x.logical_xor(x), id="logical_xor"),
        pytest.param(lambda m, x: x.logical_not(), id="logical_not"),
    ],
)
def test_bool_results_are_not_differentiable(torch: Any, fn: Callable[..., Any]) -> None:
    for m in (ctxgrad, torch):
        x = m.tensor([1.0, NAN], requires_grad=True)
        out = fn(m, x)
        assert not out.requires_grad and out.grad_fn is None and out.is_leaf


def test_bool_results_of_dual_inputs_have_no_tangent(torch: Any) -> None:
    for m in (ctxgrad, torch):
        fw = m.autograd.forward_ad
        with fw.dual_level():
            x = fw.make_dual(m.tensor([1.0, NAN]), m.tensor([1.0, 1.0]))
            for out in (x.isnan(), x.isfinite(), x.logical_and(x), x.logical_not(), m.logical_xor(x, x)):
                assert out.dtype == m.bool and fw.unpack_dual(out).tangent is None


def test_floor_divide_records_a_node_without_derivative_as_torch(torch: Any) -> None:
    """torch: a floating floor_divide result requires grad, but backward and forward mode fail."""
    for m in (ctxgrad, torch):
        x = m.tensor([3.0, -3.0], requires_grad=True)
        out = x // 2
        assert out.requires_grad and out.grad_fn is not None
        with pytest.raises(RuntimeError, match="derivative for aten::floor_divide is not implemented"):
            out.sum().backward()
        fw = m.autograd.forward_ad
        with fw.dual_level(), pytest.raises(NotImplementedError, match="forward AD with aten::floor_divide"):
            fw.make_dual(m.tensor([3.0]), m.tensor([1.0])) // 2
    assert ctxgrad.tensor([1, 2], requires_grad=False).floor_divide(2).grad_fn is None


def test_grad_fn_names_match_torch(torch: Any) -> None:
    ops = [
        lambda m, x, y: m.atan2(x, y),
        lambda m, x, y: x.logit(),
        lambda m, x, y: x.erf(),
        lambda m, x, y: x.erfc(),
        lambda m, x, y: x.clamp(0, 1),
        lambda m, x, y: x.clamp(min=0.0),
        lambda m, x, y: x.clamp(y, y + 1),
        lambda m, x, y: x.clamp(max=y),
        lambda m, x, y: x.clip(0, 1),
        lambda m, x, y: x.clamp_min(0.0),
        lambda m, x, y: x.clamp_max(0.0),
        lambda m, x, y: x.clamp_min(y),
        lambda m, x, y: x.clamp_max(y),
        lambda m, x, y: m.maximum(x, y),
        lambda m, x, y: m.minimum(x, y),
        lambda m, x, y: x.lerp(y, 0.5),
        lambda m, x, y: x.lerp(y, y),
        lambda m, x, y: x.true_divide(y),
        lambda m, x, y: F(m).leaky_relu(x),
        lambda m, x, y: F(m).elu(x),
        lambda m, x, y: F(m).gelu(x),
        lambda m, x, y: F(m).silu(x),
        lambda m, x, y: F(m).softplus(x),
        lambda m, x, y: F(m).relu(x),
        lambda m, x, y: x // y,
    ]
    for op in ops:
        names = []
        for m in (ctxgrad, torch):
            x = m.tensor([0.25, 0.5], requires_grad=True)
            y = m.tensor([0.5, 0.25], requires_grad=True)
            names.append(op(m, x, y).grad_fn.name())
        assert names[0] == names[1]


# --------------------------------------------------------------------------- errors

ERRORS = [
    ("clamp-no-bounds", lambda m: m.clamp(m.ones(2))),
    ("clamp-method-no-bounds", lambda m: m.ones(2).clamp()),
    ("clip-no-bounds", lambda m: m.ones(2).clip(None, None)),
    ("clamp-tensor-and-number", lambda m: m.clamp(m.ones(2), min=m.zeros(2), max=1.0)),
    ("clamp-tensor-bounds-broadcast", lambda m: m.ones(2, 3).clamp(m.zeros(4))),
    ("maximum-broadcast", lambda m: m.maximum(m.ones(2, 3), m.ones(4))),
    ("lerp-broadcast", lambda m: m.lerp(m.ones(2, 3), m.ones(3), m.ones(4))),
    ("gelu-approximate", lambda m: F(m).gelu(m.ones(2), approximate="foo")),
    ("gelu-positional-approximate", lambda m: F(m).gelu(m.ones(2), "tanh")),
    ("atan2-number", lambda m: m.atan2(m.ones(2), 2.0)),
    ("maximum-number", lambda m: m.maximum(m.ones(2), 2.0)),
    ("minimum-method-number", lambda m: m.ones(2).minimum(2)),
    ("maximum-number-input", lambda m: m.maximum(2.0, m.ones(2))),
    ("atan2-method-number", lambda m: m.ones(2).atan2(1)),
    ("logical_or-method-number", lambda m: m.ones(2).logical_or(1)),
    ("lerp-end-number", lambda m: m.lerp(m.ones(2), 1.0, 0.5)),
    ("lerp-method-end-number", lambda m: m.ones(2).lerp(1.0, 0.5)),
    ("logical_and-number", lambda m: m.logical_and(m.ones(2), 1)),
    ("lerp-end-dtype", lambda m: m.lerp(m.ones(2), m.ones(2, dtype=m.float64), 0.5)),
    ("lerp-weight-dtype", lambda m: m.lerp(m.ones(2), m.ones(2), m.ones(2, dtype=m.float64))),
    ("lerp-int", lambda m: m.lerp(m.ones(2, dtype=m.int64), m.ones(2, dtype=m.int64), 0.5)),
    (
        "lerp-int-tensor-weight",
        lambda m: m.lerp(m.ones(2, dtype=m.int64), m.ones(2, dtype=m.int64), m.ones(2, dtype=m.int64)),
    ),
    ("leaky_relu-int", lambda m: F(m).leaky_relu(m.tensor([1]))),
    ("elu-int", lambda m: F(m).elu(m.tensor([1]))),
    ("gelu-int", lambda m: F(m).gelu(m.tensor([1]))),
    ("silu-bool", lambda m: F(m).silu(m.tensor([True]))),
    ("softplus-int", lambda m: F(m).softplus(m.tensor([1]))),
    ("and-float", lambda m: m.ones(2) & m.ones(2)),
    ("or-float-number", lambda m: m.ones(2) | 1),
    ("xor-int-float", lambda m: m.ones(2, dtype=m.int64) ^ m.ones(2)),
    ("and-int-pyfloat", lambda m: m.ones(2, dtype=m.int64) & 1.5),
    ("invert-float", lambda m: ~m.ones(2)),
    ("bitwise_not-float", lambda m: m.bitwise_not(m.ones(2))),
    ("floor_divide-int-by-zero", lambda m: m.floor_divide(m.tensor([1]), m.tensor([0]))),
    ("floor_divide-bool", lambda m: m.tensor([True]) // m.tensor([True])),
]


@pytest.mark.parametrize("fn", [pytest.param(fn, id=name) for name, fn in ERRORS])
def test_errors_match_torch(torch: Any, fn: Callable[[Any], Any]) -> None:
    """torch's exception type and message (the first line: torch's overload list differs)."""
    c_type, c_msg = raised(lambda: fn(ctxgrad), ctxgrad)
    t_type, t_msg = raised(lambda: fn(torch), torch)
    assert c_type == t_type
    assert (
        c_msg.splitlines()[0].replace("Tensor, min=Tensor, max=float", "Tensor, max=float, min=Tensor")
        == t_msg.splitlines()[0]
    ), (c_msg, t_msg)


# --------------------------------------------------------------------------- forms and keywords

FORMS = [
    ("clamp-keywords", lambda m, x: m.clamp(input=x, min=-0.5, max=0.5)),
    ("clamp-method-keywords", lambda m, x: x.clamp(max=0.5, min=-0.5)),
    ("clip-keywords", lambda m, x: m.clip(x, max=0.5)),
    ("clamp_min-keyword", lambda m, x: x.clamp_min(min=0.1)),
    ("clamp_max-keyword", lambda m, x: m.clamp_max(x, max=0.1)),
    ("clamp-numpy-scalar-bound", lambda m, x: x.clamp(np.float64(-0.5), np.float32(0.5))),
    ("logit-keyword", lambda m, x: m.logit(x.sigmoid(), eps=0.2)),
    ("logit-positional", lambda m, x: x.sigmoid().logit(0.2)),
    ("atan2-keywords", lambda m, x: m.atan2(input=x, other=x * 2)),
    ("maximum-keywords", lambda m, x: m.maximum(input=x, other=-x)),
    ("minimum-keywords", lambda m, x: m.minimum(x, other=-x)),
    ("lerp-keywords", lambda m, x: m.lerp(input=x, end=x * 2, weight=0.3)),
    ("lerp-method-keywords", lambda m, x: x.lerp(end=-x, weight=x.sigmoid())),
    ("lerp-numpy-weight", lambda m, x: x.lerp(-x, np.float64(0.3))),
    ("true_divide-keywords", lambda m, x: m.true_divide(input=x, other=2.0)),
    ("floor_divide-keywords", lambda m, x: m.floor_divide(input=x, other=0.5)),
    ("erf-keyword", lambda m, x: m.erf(input=x)),
    ("erfc-keyword", lambda m, x: m.erfc(input=x)),
    ("leaky_relu-keywords", lambda m, x: F(m).leaky_relu(input=x, negative_slope=0.2, inplace=False)),
    ("leaky_relu-positional", lambda m, x: F(m).leaky_relu(x, 0.2)),
    ("elu-keywords", lambda m, x: F(m).elu(input=x, alpha=0.5, inplace=False)),
    ("elu-positional", lambda m, x: F(m).elu(x, 0.5)),
    ("gelu-keywords", lambda m, x: F(m).gelu(input=x, approximate="tanh")),
    ("silu-keywords", lambda m, x: F(m).silu(input=x, inplace=False)),
    ("softplus-keywords", lambda m, x: F(m).softplus(input=x, beta=2, threshold=0.5)),
    ("softplus-positional", lambda m, x: F(m).softplus(x, 2, 0.5)),
    ("relu-keywords", lambda m, x: F(m).relu(input=x, inplace=False)),
    ("sigmoid-tanh-keywords", lambda m, x: F(m).tanh(input=F(m).sigmoid(input=x))),
]


@pytest.mark.parametrize("fn", [pytest.param(fn, id=name) for name, fn in FORMS])
def test_keywords_and_forms_match_torch(torch: Any, fn: Callable[..., Any]) -> None:
    x = np.array([-1.25, -0.3, 0.2, 0.45, 2.0])

    def run(m: Any) -> tuple[Any, Any]:
        xt = m.tensor(x, dtype=m.float64, requires_grad=True)
        out = fn(m, xt)
        if out.requires_grad and "NotImplemented" not in out.grad_fn.name():
            out.sum().backward()
        return out, xt.grad

    (c_out, c_grad), (t_out, t_grad) = run(ctxgrad), run(torch)
    assert_same(c_out, t_out)
    assert (c_grad is None) == (t_grad is None)
    if t_grad is not None:
        assert_same(c_grad, t_grad)


@pytest.mark.parametrize(
    ("method", "function"),
    [
        ("atan2", "arctan2"),
        ("arctan2", "atan2"),
        ("clamp", "clip"),
        ("true_divide", "div"),
        ("maximum", "maximum"),
        ("minimum", "minimum"),
        ("floor_divide", "floor_divide"),
        ("logical_and", "logical_and"),
        ("logical_or", "logical_or"),
        ("logical_xor", "logical_xor"),
    ],
)
def test_method_matches_function_and_alias(method: str, function: str) -> None:
    x = ctxgrad.tensor([[-1.5, 0.25, 2.0]], dtype=ctxgrad.float64)
    y = ctxgrad.tensor([[0.5], [-0.75]], dtype=ctxgrad.float64)
    by_method = getattr(x, method)(y)
    by_function = getattr(ctxgrad, function)(x, y)
    np.testing.assert_array_equal(to_numpy(by_method), to_numpy(by_function))
    assert by_method.dtype == by_function.dtype


def test_public_names_exist_where_torch_has_them(torch: Any) -> None:
    """Top-level functions and methods as in torch; the activations only in nn.functional."""
    for name in [
        "atan2",
        "arctan2",
        "logit",
        "erf",
        "erfc",
        "clamp",
        "clip",
        "clamp_min",
        "clamp_max",
        "maximum",
        "minimum",
        "lerp",
        "true_divide",
        "floor_divide",
        "isnan",
        "isinf",
        "isfinite",
        "logical_and",
        "logical_or",
        "logical_xor",
        "logical_not",
        "bitwise_and",
        "bitwise_or",
        "bitwise_xor",
        "bitwise_not",
    ]:
        assert hasattr(torch, name) and hasattr(torch.Tensor, name)
        assert callable(getattr(ctxgrad, name)) and callable(getattr(ctxgrad.Tensor, name)), name
        assert name in ctxgrad.__all__
    for name in ["leaky_relu", "elu", "gelu", "silu", "softplus"]:
        assert hasattr(torch.nn.functional, name) and not hasattr(torch, name)
        assert callable(getattr(ctxgrad.nn.functional, name)) and not hasattr(ctxgrad, name), name


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("shape", [(4,), (2, 3), (2, 3, 4), (2, 3, 4, 5)], ids=["1d", "2d", "3d", "4d"])
def test_functional_softmax_matches_torch(torch: Any, name: str, shape: tuple[int, ...]) -> None:
    """``F.softmax``/``F.log_softmax`` with a dim, and with torch's deprecated implicit dim."""
    x = np.random.default_rng(0).standard_normal(shape)
    for dim in (-1, None):
        results = []
        for m in (ctxgrad, torch):
            fn = getattr(m.nn.functional, name)
            if dim is None:
                with pytest.warns(UserWarning, match=f"Implicit dimension choice for {name} has been deprecated"):
                    results.append(fn(m.tensor(x)))
            else:
                results.append(fn(m.tensor(x), dim=dim))
        np.testing.assert_allclose(results[0].numpy(), results[1].numpy(), rtol=1e-12)


@pytest.mark.parametrize(
    "fn",
    [
        pytest.param(lambda m: m.tensor([5, -5, 7]) % 3, id="int-mod-int"),
        pytest.param(lambda m: m.tensor([5, -5]) % 2.5, id="int-mod-float"),
        pytest.param(lambda m: m.fmod(m.tensor([5, -5]), 3), id="int-fmod"),
        pytest.param(lambda m: m.tensor([5.5, -5.5, 0.0]) % m.tensor([2.0, 2.0, -3.0]), id="signs"),
        pytest.param(lambda m: m.tensor([5.0]) % 0, id="float-mod-zero"),
        pytest.param(lambda m: m.fmod(m.tensor([-5.5, 5.5], dtype=m.float32), 2.0), id="fmod-float32"),
        pytest.param(lambda m: 7 % m.tensor([3.0, -2.0]), id="number-mod-tensor"),
    ],
)
def test_remainder_values_and_dtypes_match_torch(torch: Any, fn: Callable[[Any], Any]) -> None:
    assert_same(fn(ctxgrad), fn(torch))


@pytest.mark.parametrize(
    ("fn", "name"),
    [
        pytest.param(lambda m, a, b: a % b, "RemainderBackward1", id="tensor-tensor"),
        pytest.param(lambda m, a, b: a % 2.0, "RemainderBackward0", id="tensor-number"),
        pytest.param(lambda m, a, b: m.fmod(a, b), "FmodBackward1", id="fmod-tensor"),
        pytest.param(lambda m, a, b: m.fmod(a, 2.0), "FmodBackward0", id="fmod-number"),
    ],
)
def test_remainder_node_names_match_torch(torch: Any, fn: Callable[..., Any], name: str) -> None:
    for m in (ctxgrad, torch):
        a = m.tensor([5.5, -1.5], requires_grad=True)
        b = m.tensor([2.0, 2.0], requires_grad=True)
        assert fn(m, a, b).grad_fn.name() == name


def test_integer_remainder_by_zero_raises_as_torch(torch: Any) -> None:
    for m in (ctxgrad, torch):
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            m.tensor([5]) % 0


def test_number_mod_tensor_is_differentiable_where_torch_is_not(torch: Any) -> None:
    """``2.5 % b``: torch has no derivative for a number on the left (it raises at backward);
    ctxgrad gives -floor(2.5 / b), checked here by central differences (docs/differences.md)."""
    b = ctxgrad.tensor([0.7, -1.1, 2.0], dtype=ctxgrad.float64, requires_grad=True)
    (2.5 % b).sum().backward()
    eps = 1e-6
    plus = np.remainder(2.5, b.detach().numpy() + eps)
    minus = np.remainder(2.5, b.detach().numpy() - eps)
    np.testing.assert_allclose(b.grad.numpy(), (plus - minus) / (2 * eps), rtol=1e-6)
    t = torch.tensor([0.7, -1.1, 2.0], dtype=torch.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="derivative for aten::remainder is not implemented"):
        (2.5 % t).sum().backward()


# (a, b) where floor(a / b) is not the quotient the remainder goes with: a / b rounds up to a
# whole number (1.0 / 0.1 == 10.0, yet 1.0 % 0.1 == 0.0999... is 1.0 - 9 * 0.1).
REMAINDER_QUOTIENTS = [
    pytest.param(1.0, 0.1, "float64", -9.0, id="1%0.1-double"),
    pytest.param(1.0, 0.1, "float32", -9.0, id="1%0.1-float"),
    pytest.param(-0.3, 0.1, "float32", 4.0, id="-0.3%0.1-float"),
    pytest.param(6.0, 3.0, "float64", -2.0, id="6%3"),
    pytest.param(-6.0, 4.0, "float64", 2.0, id="-6%4"),
]


@pytest.mark.parametrize(("a", "b", "dtype", "expected"), REMAINDER_QUOTIENTS)
def test_remainder_gradient_for_b_uses_the_floor_division_quotient(
    a: float, b: float, dtype: str, expected: float
) -> None:
    """d(a % b)/db is -(a // b), the quotient of the forward's remainder, as torch's
    ``div(rounding_mode="floor")`` gives it, not ``-floor(a / b)``."""
    x = ctxgrad.tensor([a], dtype=getattr(ctxgrad, dtype), requires_grad=True)
    y = ctxgrad.tensor([b], dtype=getattr(ctxgrad, dtype), requires_grad=True)
    ctxgrad.remainder(x, y).sum().backward()
    assert y.grad.tolist() == [expected]
    assert x.grad.tolist() == [1.0]
    with ctxgrad.autograd.forward_ad.dual_level():
        dual = ctxgrad.autograd.forward_ad.make_dual(y.detach(), ctxgrad.ones_like(y))
        tangent = ctxgrad.autograd.forward_ad.unpack_dual(ctxgrad.remainder(x.detach(), dual)).tangent
    assert tangent.tolist() == [expected]


@pytest.mark.parametrize(("a", "b", "dtype", "expected"), REMAINDER_QUOTIENTS)
def test_remainder_and_fmod_gradients_for_b_match_torch(
    torch: Any, a: float, b: float, dtype: str, expected: float
) -> None:
    grads = []
    for m in (ctxgrad, torch):
        x = m.tensor([a], dtype=getattr(m, dtype), requires_grad=True)
        y = m.tensor([b], dtype=getattr(m, dtype), requires_grad=True)
        grads.append([g.tolist() for g in m.autograd.grad(m.remainder(x, y).sum(), (x, y))])
        grads.append([g.tolist() for g in m.autograd.grad(m.fmod(x, y).sum(), (x, y))])
    assert grads[:2] == grads[2:]


def _elu_derivatives(m: Any, value: float, alpha: float) -> list[float]:
    """elu's first, second and third derivatives at ``value``, by reverse mode."""
    x = m.tensor([value], dtype=m.float64, requires_grad=True)
    out = m.nn.functional.elu(x, alpha=alpha)
    found = []
    for _ in range(3):
        (out,) = m.autograd.grad(out.sum(), x, create_graph=True)
        found.append(out.item())
    return found


# (value, alpha, [d/dx, d2/dx2, d3/dx3]): at 0 the second derivative is 0, as torch's (it masks with x < 0).
ELU_DERIVATIVES = [
    (0.0, 1.0, [1.0, 0.0, 0.0]),
    (0.0, 0.5, [0.5, 0.0, 0.0]),
    (-0.0, 0.5, [0.5, 0.0, 0.0]),
    (-0.5, 0.5, [0.5 * np.exp(-0.5)] * 3),
    (0.5, 2.0, [1.0, 0.0, 0.0]),
]


@pytest.mark.parametrize(("value", "alpha", "expected"), ELU_DERIVATIVES)
def test_elu_higher_derivatives(value: float, alpha: float, expected: list[float]) -> None:
    np.testing.assert_allclose(_elu_derivatives(ctxgrad, value, alpha), expected, rtol=1e-15)


@pytest.mark.parametrize(("value", "alpha", "expected"), ELU_DERIVATIVES)
def test_elu_higher_derivatives_match_torch(torch: Any, value: float, alpha: float, expected: list[float]) -> None:
    assert _elu_derivatives(ctxgrad, value, alpha) == _elu_derivatives(torch, value, alpha)

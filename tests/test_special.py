"""``ctxgrad.special`` against ``torch.special``: values, gradients, forward mode and double
backward through the op kit, and the names that are other ops under torch.special's names."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest
from _opcheck import Case, OpFamilyTests, any_, assert_same

import ctxgrad


def S(m: Any) -> Any:
    """``ctxgrad.special`` or ``torch.special`` (NumPy has none: the cases give ``ref``)."""
    return m.special


def _xlog1py(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return np.where(x == 0, 0.0, x * np.log1p(y))


def _ndtr(x: np.ndarray) -> np.ndarray:
    return 0.5 * np.vectorize(math.erfc)(-x / math.sqrt(2))


def _mp_ndtri(m: Any, a: np.ndarray) -> np.ndarray:
    mpmath = pytest.importorskip("mpmath")
    with mpmath.workdps(50):
        return np.vectorize(lambda p: float(mpmath.sqrt(2) * mpmath.erfinv(2 * mpmath.mpf(float(p)) - 1)))(a)


def _mp_bessel(nu: int, scaled: bool, factor: float) -> Any:
    def ref(m: Any, a: np.ndarray) -> np.ndarray:
        mpmath = pytest.importorskip("mpmath")

        def one(v: float) -> float:
            out = mpmath.besseli(nu, v)
            return float(out * mpmath.exp(-abs(v)) if scaled else out)

        return np.vectorize(one)(a * factor)

    return ref


CASES = [
    Case("xlog1py", lambda m, a, b: S(m).xlog1py(a, b), [((2, 3), "any"), ((3,), "pos")],
         ref=lambda m, a, b: _xlog1py(a, b)),
    Case("xlog1py-number", lambda m, b: S(m).xlog1py(2.0, b), [((3,), "pos")], ref=lambda m, b: 2 * np.log1p(b)),
    Case("entr", lambda m, a: S(m).entr(a), [((2, 3), "pos")], ref=lambda m, a: -a * np.log(a)),
    Case("ndtr", lambda m, a: S(m).ndtr(a * 3), any_((2, 3)), ref=lambda m, a: _ndtr(a * 3)),
    Case("multigammaln", lambda m, a: S(m).multigammaln(a + 3, 3), [((2, 3), "pos")],
         ref=lambda m, a: np.vectorize(math.lgamma)(a + 3)
         + np.vectorize(math.lgamma)(a + 2.5) + np.vectorize(math.lgamma)(a + 2) + 1.5 * math.log(math.pi)),
    Case("i0e", lambda m, a: S(m).i0e(a * 5), any_((2, 3)), ref=lambda m, a: np.i0(a * 5) * np.exp(-np.abs(a * 5))),
    Case("i1", lambda m, a: S(m).i1(a * 5), any_((2, 3)), ref=_mp_bessel(1, False, 5)),
    Case("i1e-large", lambda m, a: S(m).i1e(a * 80), any_((2, 3)), ref=_mp_bessel(1, True, 80)),
    Case("log_ndtr", lambda m, a: S(m).log_ndtr(a * 4), any_((2, 3)), ref=lambda m, a: np.log(_ndtr(a * 4))),
    Case("ndtri", lambda m, a: S(m).ndtri(a), [((2, 3), "prob")], ref=_mp_ndtri),
    Case("expit", lambda m, a: S(m).expit(a), any_((3,)), ref=lambda m, a: 1 / (1 + np.exp(-a))),
    Case("gammaln", lambda m, a: S(m).gammaln(a), [((3,), "pos")], ref=lambda m, a: np.vectorize(math.lgamma)(a)),
]  # fmt: skip

#: Not gammaln's and multigammaln's: torch's trigamma is 5e-10 off (see test_torch_functions.py).
DOUBLE = [c for c in CASES if c.id not in {"gammaln", "multigammaln"}]


class TestSpecial(OpFamilyTests):
    cases = CASES
    double_cases = DOUBLE


#: The functions of torch.special that are ops of the table (or their composition), checked
#: for values and gradients against torch.
SAME = [
    ("expit", lambda s, x: s.expit(x)),
    ("logit", lambda s, x: s.logit(x * 0.3 + 0.5)),
    ("logit-eps", lambda s, x: s.logit(x, eps=0.1)),
    ("erf", lambda s, x: s.erf(x)),
    ("erfc", lambda s, x: s.erfc(x)),
    ("erfinv", lambda s, x: s.erfinv(x * 0.4)),
    ("xlogy", lambda s, x: s.xlogy(x, x + 2)),
    ("gammaln", lambda s, x: s.gammaln(x + 3)),
    ("digamma", lambda s, x: s.digamma(x + 12)),
    ("psi", lambda s, x: s.psi(x + 12)),
    ("polygamma", lambda s, x: s.polygamma(2, x + 3)),
    ("log_softmax", lambda s, x: s.log_softmax(x, 0)),
    ("softmax", lambda s, x: s.softmax(x, dim=0)),
    ("logsumexp", lambda s, x: s.logsumexp(x, 0)),
    ("expm1", lambda s, x: s.expm1(x)),
    ("exp2", lambda s, x: s.exp2(x)),
    ("log1p", lambda s, x: s.log1p(x)),
    ("sinc", lambda s, x: s.sinc(x)),
    ("round", lambda s, x: s.round(x * 7) * x),
    ("round-decimals", lambda s, x: s.round(x * 7, decimals=1) * x),
    ("entr", lambda s, x: s.entr(x)),
    ("ndtr", lambda s, x: s.ndtr(x)),
    ("xlog1py", lambda s, x: s.xlog1py(x, x)),
    ("multigammaln", lambda s, x: s.multigammaln(x + 4, 2)),
    ("log_ndtr", lambda s, x: s.log_ndtr(x * 9)),
    ("ndtri", lambda s, x: s.ndtri(x * 0.5 + 0.5)),
    ("i0", lambda s, x: s.i0(x * 3)),
    ("i0e", lambda s, x: s.i0e(x * 3)),
    ("i1", lambda s, x: s.i1(x * 3)),
    ("i1e", lambda s, x: s.i1e(x * 3)),
]


@pytest.mark.parametrize("program", [pytest.param(p, id=i) for i, p in SAME])
def test_special_functions_match_torch(torch: Any, program: Any) -> None:
    values = np.array([0.3, -0.7, 0.9, 0.1, 0.0, 1.0])
    results = []
    for m in (ctxgrad, torch):
        x = m.tensor(values, requires_grad=True)
        out = program(m.special, x)
        (grad,) = m.autograd.grad((out * m.arange(1, 7, dtype=m.float64)).sum(), x)
        results.append((out, grad))
    assert_same(results[0][0], results[1][0])
    assert_same(results[0][1], results[1][1])


def test_the_special_namespace_has_the_names_it_lists() -> None:
    for name in ctxgrad.special.__all__:
        assert callable(getattr(ctxgrad.special, name)), name


@pytest.mark.parametrize("dtype", ["int64", "bool", "float32"])
@pytest.mark.parametrize(
    "program",
    [
        pytest.param(p, id=i)
        for i, p in [
            ("entr", lambda s, x: s.entr(x)),
            ("ndtr", lambda s, x: s.ndtr(x)),
            ("xlog1py", lambda s, x: s.xlog1py(x, x)),
            ("multigammaln", lambda s, x: s.multigammaln(x + 2, 2)),
            ("expit", lambda s, x: s.expit(x)),
        ]
    ],
)
def test_integer_inputs_as_torch(torch: Any, program: Any, dtype: str) -> None:
    values = np.array([3, 1, 0, 2]).astype(dtype)
    outs = []
    for m in (ctxgrad, torch):
        try:
            outs.append(program(m.special, m.tensor(values)))
        except Exception as exc:
            outs.append(exc)
    if isinstance(outs[1], Exception):
        assert type(outs[0]) is type(outs[1]) and str(outs[0]) == str(outs[1])
    else:
        assert_same(outs[0], outs[1], rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize(
    "program",
    [
        pytest.param(lambda m: m.special.entr(m.tensor([1j])), id="entr-complex"),
        pytest.param(lambda m: m.special.i1(m.tensor([1j])), id="i1-complex"),
        pytest.param(lambda m: m.special.ndtri(m.tensor([1j])), id="ndtri-complex"),
        pytest.param(lambda m: m.special.log_ndtr(m.tensor([1j])), id="log_ndtr-complex"),
        pytest.param(lambda m: m.special.i0e(m.tensor([1j])), id="i0e-complex"),
        pytest.param(lambda m: m.special.i1e(m.tensor([1j])), id="i1e-complex"),
        pytest.param(lambda m: m.special.multigammaln(m.tensor([3.0]), 0), id="multigammaln-p0"),
        pytest.param(lambda m: m.special.xlog1py(m.tensor([1j]), m.tensor([1j])), id="xlog1py-complex"),
    ],
)
def test_errors_match_torch(torch: Any, program: Any) -> None:
    raised = []
    for m in (ctxgrad, torch):
        with pytest.raises(Exception) as info:
            program(m)
        raised.append(info.value)
    assert type(raised[0]) is type(raised[1])
    assert str(raised[0]) == str(raised[1])


def test_entr_at_zero_and_below() -> None:
    x = ctxgrad.tensor([0.0, -1.0, float("nan")], requires_grad=True)
    out = ctxgrad.special.entr(x)
    assert out.tolist()[:2] == [0.0, -float("inf")] and math.isnan(out.tolist()[2])


def test_ndtri_and_log_ndtr_are_accurate_in_the_tails(torch: Any) -> None:
    """Within a few ulps of mpmath (400 digits) from p = 1e-295 and x = -60; torch's are too."""
    mpmath = pytest.importorskip("mpmath")
    p = np.concatenate([np.random.default_rng(2).uniform(0, 1, 200), 10.0 ** -np.arange(1, 300, 7)])
    x = np.concatenate([np.random.default_rng(1).uniform(-60, 8, 200), [-29.9, -30.0, -30.1]])
    with mpmath.workdps(400):
        q_exact = np.array([float(mpmath.sqrt(2) * mpmath.erfinv(2 * mpmath.mpf(float(v)) - 1)) for v in p])
        l_exact = np.array([float(mpmath.log(mpmath.ncdf(float(v)))) for v in x])
    q = ctxgrad.special.ndtri(ctxgrad.tensor(p)).numpy()
    lg = ctxgrad.special.log_ndtr(ctxgrad.tensor(x)).numpy()
    np.testing.assert_allclose(q, q_exact, rtol=2e-15)
    np.testing.assert_allclose(lg, l_exact, rtol=2e-14)
    np.testing.assert_allclose(q, torch.special.ndtri(torch.tensor(p)).numpy(), rtol=2e-15)
    np.testing.assert_allclose(lg, torch.special.log_ndtr(torch.tensor(x)).numpy(), rtol=2e-14)


@pytest.mark.parametrize(
    ("name", "values"),
    [
        ("ndtri", [0.0, 1.0, 0.5, 1.5, -0.1, float("nan"), 1e-300]),
        ("log_ndtr", [-40.0, 0.0, 10.0, 40.0, float("inf"), -float("inf"), float("nan")]),
        ("i0e", [0.0, 1e-8, 800.0, -800.0, float("inf")]),
        ("i1e", [0.0, 1e-8, 800.0, -800.0]),
    ],
)
def test_special_values_match_torch(torch: Any, name: str, values: list[float]) -> None:
    outs = [getattr(m.special, name)(m.tensor(values, dtype=m.float64)) for m in (ctxgrad, torch)]
    assert_same(*outs)

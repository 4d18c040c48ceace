"""The distribution families of issue 26 (``LogNormal``, ``HalfNormal``, ``Cauchy``,
``HalfCauchy``, ``StudentT``, ``Poisson``, ``Binomial``, ``Multinomial``,
``MixtureSameFamily``, ``LKJCholesky``) and torch's submodule paths, against torch:
values and gradients (float64), shapes, dtypes, supports, validation errors, rsample gradients
from the same noise, and the samples' moments (ctxgrad draws from its own generator)."""

from __future__ import annotations

import importlib
import math
import zlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ctxgrad
from ctxgrad import distributions as cd
from ctxgrad.distributions._functions import StandardGamma

torch = pytest.importorskip("torch")
td = torch.distributions

rng = np.random.default_rng(2626)


@pytest.fixture(autouse=True)
def _rng_of_the_test(request: pytest.FixtureRequest) -> None:
    global rng
    rng = np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))


def _pos(*shape: int) -> np.ndarray[Any, Any]:
    return rng.uniform(0.5, 2.5, shape)


def _real(*shape: int) -> np.ndarray[Any, Any]:
    return rng.normal(size=shape)


def _unit(*shape: int) -> np.ndarray[Any, Any]:
    return rng.uniform(0.1, 0.9, shape)


def _counts(n: int, *shape: int) -> np.ndarray[Any, Any]:
    return rng.integers(0, n + 1, shape).astype(np.float64)


def _lkj_values(dim: int, n: int) -> np.ndarray[Any, Any]:
    """Cholesky factors of random correlation matrices."""
    a = rng.normal(size=(n, dim, dim + 2))
    cov = a @ np.swapaxes(a, -1, -2)
    d = np.sqrt(np.diagonal(cov, axis1=-2, axis2=-1))
    return np.linalg.cholesky(cov / d[..., None] / d[..., None, :])


Make = Callable[[Any, list[Any]], Any]
_MOMENTS = ("mean", "mode", "variance", "stddev")

#: (id, make(module, params), params, value, methods and properties, rtol of the values)
CASES: list[tuple[str, Make, list[np.ndarray[Any, Any]], np.ndarray[Any, Any], tuple[str, ...], float]] = [
    ("log_normal", lambda m, p: m.LogNormal(p[0], p[1]), [_real(3), _pos(3)], _pos(2, 3),
     ("log_prob", "cdf", "icdf", "entropy", *_MOMENTS), 1e-10),
    ("half_normal", lambda m, p: m.HalfNormal(p[0]), [_pos(3)], _pos(2, 3),
     ("log_prob", "cdf", "icdf", "entropy", *_MOMENTS), 1e-10),
    ("cauchy", lambda m, p: m.Cauchy(p[0], p[1]), [_real(3), _pos(3)], _real(2, 3),
     ("log_prob", "cdf", "icdf", "entropy", "mean", "mode", "variance"), 1e-10),
    ("half_cauchy", lambda m, p: m.HalfCauchy(p[0]), [_pos(3)], _pos(2, 3),
     ("log_prob", "cdf", "icdf", "entropy", "mean", "mode", "variance"), 1e-10),
    ("student_t", lambda m, p: m.StudentT(p[0], p[1], p[2]), [np.array([3.5, 1.5, 0.8]), _real(3), _pos(3)],
     _real(2, 3), ("log_prob", "entropy", "mean", "mode", "variance"), 1e-10),
    ("student_t_df_only", lambda m, p: m.StudentT(p[0]), [_pos(3) + 2], _real(2, 3), ("log_prob", "stddev"), 1e-10),
    ("chi2", lambda m, p: m.Chi2(p[0]), [_pos(3) * 2], _pos(2, 3), ("log_prob", "entropy", *_MOMENTS), 1e-10),
    ("poisson", lambda m, p: m.Poisson(p[0]), [_pos(3) * 3], _counts(6, 2, 3), ("log_prob", *_MOMENTS), 1e-10),
    ("binomial_probs", lambda m, p: m.Binomial(5, probs=p[0]), [_unit(3)], _counts(5, 2, 3),
     ("log_prob", "entropy", *_MOMENTS), 1e-10),
    ("binomial_logits", lambda m, p: m.Binomial(4, logits=p[0]), [_real(3)], _counts(4, 2, 3),
     ("log_prob", "entropy", "mean", "mode", "variance"), 1e-10),
    ("binomial_counts", lambda m, p: m.Binomial(p[0].detach(), probs=p[1]), [np.array([3.0, 5.0, 8.0]), _unit(3)],
     np.array([[0.0, 5.0, 2.0], [3.0, 1.0, 8.0]]), ("log_prob", "mean", "mode", "variance"), 1e-10),
    # torch takes lgamma(n + 1) of an int64 n, in float32: its entropy is good to about 1e-8
    ("multinomial", lambda m, p: m.Multinomial(6, probs=p[0]), [_pos(2, 3)], np.array([[1.0, 2.0, 3.0], [6, 0, 0]]),
     ("log_prob", "entropy", "mean", "variance"), 1e-7),
    ("multinomial_logits", lambda m, p: m.Multinomial(3, logits=p[0]), [_real(4)], np.array([0.0, 1.0, 2.0, 0.0]),
     ("log_prob", "mean", "variance"), 1e-10),
    ("mixture_normal", lambda m, p: m.MixtureSameFamily(m.Categorical(logits=p[0]), m.Normal(p[1], p[2])),
     [_real(2, 3), _real(2, 3), _pos(2, 3)], _real(4, 2), ("log_prob", "cdf", "mean", "variance", "stddev"), 1e-10),
    ("mixture_mvn", lambda m, p: m.MixtureSameFamily(m.Categorical(probs=p[0]),
     m.Independent(m.Normal(p[1], p[2]), 1)), [_pos(3), _real(3, 2), _pos(3, 2)], _real(4, 2),
     ("log_prob", "mean", "variance"), 1e-10),
    ("lkj_cholesky", lambda m, p: m.LKJCholesky(3, p[0]), [_pos(2)], _lkj_values(3, 2), ("log_prob",), 1e-10),
    ("lkj_cholesky_4", lambda m, p: m.LKJCholesky(4, p[0]), [_pos(1)], _lkj_values(4, 3), ("log_prob",), 1e-10),
]  # fmt: skip

_FAMILY_NAMES = (
    "torch.distributions.LogNormal",
    "torch.distributions.HalfNormal",
    "torch.distributions.HalfCauchy",
    "torch.distributions.StudentT",
    "torch.distributions.Poisson",
    "torch.distributions.Binomial",
    "torch.distributions.Multinomial",
    "torch.distributions.MixtureSameFamily",
    "torch.distributions.LKJCholesky",
)


def _pair(make: Make, params: list[np.ndarray[Any, Any]]) -> tuple[Any, list[Any], Any, list[Any]]:
    cp = [ctxgrad.tensor(p, dtype=ctxgrad.float64, requires_grad=True) for p in params]
    tp = [torch.tensor(p, dtype=torch.float64, requires_grad=True) for p in params]
    return make(cd, cp), cp, make(td, tp), tp


@pytest.mark.torch_names(*_FAMILY_NAMES)
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_values_and_gradients_match_torch(case: Any) -> None:
    _, make, params, value, names, rtol = case
    for name in names:
        dc, cp, dt, tp = _pair(make, params)
        v = _unit(*value.shape) if name == "icdf" else value
        if name in ("log_prob", "cdf", "icdf"):
            out_c = getattr(dc, name)(ctxgrad.tensor(v, dtype=ctxgrad.float64))
            out_t = getattr(dt, name)(torch.tensor(v, dtype=torch.float64))
        elif name == "entropy":
            out_c, out_t = dc.entropy(), dt.entropy()
        else:
            out_c, out_t = getattr(dc, name), getattr(dt, name)
        assert tuple(out_c.shape) == tuple(out_t.shape), name
        assert out_c.dtype == ctxgrad.float64, name
        np.testing.assert_allclose(out_c.detach().numpy(), out_t.detach().numpy(), rtol=rtol, atol=1e-12, err_msg=name)
        assert out_c.requires_grad == out_t.requires_grad, name
        if not out_t.requires_grad:
            continue
        weights = rng.normal(size=tuple(out_t.shape))
        finite = torch.isfinite(out_t).numpy()  # (inf and NaN moments have no gradient to compare)
        (ctxgrad.where(ctxgrad.tensor(finite), out_c, 0.0) * ctxgrad.tensor(weights)).sum().backward()
        (torch.where(torch.tensor(finite), out_t, 0.0) * torch.tensor(weights)).sum().backward()
        for i, (c, t) in enumerate(zip(cp, tp)):
            expected = np.zeros(c.shape) if t.grad is None else t.grad.numpy()
            got = np.zeros(c.shape) if c.grad is None else c.grad.numpy()
            np.testing.assert_allclose(got, expected, rtol=1e-7, atol=1e-10, err_msg=f"{name}: grad of param {i}")


@pytest.mark.torch_names(*_FAMILY_NAMES)
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_shapes_dtypes_supports_and_flags_match_torch(case: Any) -> None:
    _, make, params, _, _, _ = case
    for dtype in ("float32", "float64"):
        dc = make(cd, [ctxgrad.tensor(p, dtype=getattr(ctxgrad, dtype)) for p in params])
        dt = make(td, [torch.tensor(p, dtype=getattr(torch, dtype)) for p in params])
        assert tuple(dc.batch_shape) == tuple(dt.batch_shape)
        assert tuple(dc.event_shape) == tuple(dt.event_shape)
        assert dc.has_rsample == dt.has_rsample
        assert dc.has_enumerate_support == dt.has_enumerate_support
        assert repr(dc.support) == repr(dt.support).replace("torch.", "ctxgrad.")
        assert repr(dc) == repr(dt).replace("torch.", "ctxgrad.")
        sample, tsample = dc.sample((5,)), dt.sample((5,))
        assert tuple(sample.shape) == tuple(tsample.shape)
        assert str(sample.dtype) == str(tsample.dtype).replace("torch.", "ctxgrad.")
        assert not sample.requires_grad
        if dtype == "float64":  # (the correlation check's tolerance is float64's)
            assert bool(dc.support.check(sample).all())
        big = (4, *dc.batch_shape)
        expanded, texpanded = dc.expand(big), dt.expand(big)
        assert tuple(expanded.batch_shape) == tuple(texpanded.batch_shape)
        assert tuple(expanded.sample((2,)).shape) == tuple(texpanded.sample((2,)).shape)
        if dt.has_rsample:
            assert tuple(dc.rsample((2,)).shape) == tuple(dt.rsample((2,)).shape)


def _error(fn: Callable[[Any], Any], module: Any, tensor: Callable[..., Any]) -> tuple[type, str]:
    with pytest.raises(Exception) as info, np.errstate(all="ignore"):
        fn((module, tensor))
    return info.type, str(info.value)


@pytest.mark.torch_names(*_FAMILY_NAMES)
@pytest.mark.parametrize(
    "misuse",
    [
        lambda mt: mt[0].LogNormal(0.0, -1.0),
        lambda mt: mt[0].LogNormal(mt[1]([0.0]), 1.0).log_prob(mt[1]([-1.0])),
        lambda mt: mt[0].HalfNormal(mt[1]([-1.0])),
        lambda mt: mt[0].HalfNormal(1.0).log_prob(mt[1](-1.0)),
        lambda mt: mt[0].HalfCauchy(0.0),
        lambda mt: mt[0].Cauchy(mt[1]([0.0]), mt[1]([-2.0])),
        lambda mt: mt[0].StudentT(mt[1]([0.0, 1.0])),
        lambda mt: mt[0].StudentT(1.0, scale=mt[1]([-1.0])),
        lambda mt: mt[0].Poisson(mt[1]([-1.0])),
        lambda mt: mt[0].Poisson(2.0).log_prob(mt[1](1.5)),
        lambda mt: mt[0].Binomial(3, probs=mt[1](1.5)),
        lambda mt: mt[0].Binomial(mt[1]([2.5]), probs=0.5),
        lambda mt: mt[0].Binomial(3),
        lambda mt: mt[0].Binomial(3, probs=mt[1](0.5), logits=mt[1](0.0)),
        lambda mt: mt[0].Binomial(3, probs=mt[1](0.5)).log_prob(mt[1](4.0)),
        lambda mt: mt[0].Binomial(mt[1]([2.0, 3.0]), probs=mt[1](0.5)).entropy(),
        lambda mt: mt[0].Binomial(mt[1]([2.0, 3.0]), probs=mt[1](0.5)).enumerate_support(),
        lambda mt: mt[0].Multinomial(mt[1](3), probs=mt[1]([0.5, 0.5])),
        lambda mt: mt[0].Multinomial(3, probs=mt[1]([0.5, 0.5])).log_prob(mt[1]([3.0, 1.0])),
        lambda mt: mt[0].Multinomial(3, probs=mt[1]([0.5, 0.5])).log_prob(mt[1]([1.0, 1.0, 1.0])),
        lambda mt: mt[0].MixtureSameFamily(mt[0].Normal(0.0, 1.0), mt[0].Normal(mt[1]([0.0]), 1.0)),
        lambda mt: mt[0].MixtureSameFamily(mt[0].Categorical(mt[1]([0.5, 0.5])), 3),
        lambda mt: mt[0].MixtureSameFamily(mt[0].Categorical(mt[1]([0.2, 0.3, 0.5])), mt[0].Normal(mt[1]([0.0]), 1.0)),
        lambda mt: mt[0].MixtureSameFamily(
            mt[0].Categorical(mt[1]([[0.5, 0.5]] * 3)), mt[0].Normal(mt[1]([[0.0, 1.0]] * 2), 1.0)
        ),
        lambda mt: mt[0].LKJCholesky(1),
        lambda mt: mt[0].LKJCholesky(2, mt[1]([-1.0])),
        lambda mt: mt[0].LKJCholesky(2).log_prob(mt[1]([[1.0, 0.0], [0.5, 0.5]])),
    ],
)
def test_misuse_raises_as_torch(misuse: Callable[[Any], Any]) -> None:
    expected = _error(misuse, td, torch.tensor)
    got = _error(misuse, cd, ctxgrad.tensor)
    assert got[0] is expected[0]
    assert got[1] == expected[1].replace("torch.Size", "ctxgrad.Size").replace(
        "torch.distributions.Categorical", "ctxgrad.distributions.Categorical"
    ).replace("torch.distributions.Distribution", "ctxgrad.distributions.Distribution")


# ------------------------------------------------------------------------------ KL

KL_PAIRS: list[tuple[str, Make, list[np.ndarray[Any, Any]], list[np.ndarray[Any, Any]]]] = [
    ("log_normal", lambda m, p: m.LogNormal(p[0], p[1]), [_real(3), _pos(3)], [_real(3), _pos(3)]),
    ("half_normal", lambda m, p: m.HalfNormal(p[0]), [_pos(3)], [_pos(3)]),
    ("cauchy", lambda m, p: m.Cauchy(p[0], p[1]), [_real(3), _pos(3)], [_real(3), _pos(3)]),
    ("poisson", lambda m, p: m.Poisson(p[0]), [_pos(3)], [_pos(3)]),
    ("chi2", lambda m, p: m.Chi2(p[0]), [_pos(3)], [_pos(3)]),
    ("binomial", lambda m, p: m.Binomial(p[0].detach(), probs=p[1]), [np.array([3.0, 5.0, 4.0]), _unit(3)],
     [np.array([3.0, 4.0, 4.0]), _unit(3)]),
    ("transformed", lambda m, p: m.TransformedDistribution(m.Normal(p[0], p[1]), [m.SigmoidTransform(),
     m.AffineTransform(1.0, 2.0)]), [_real(3), _pos(3)], [_real(3), _pos(3)]),
]  # fmt: skip


@pytest.mark.torch_names(
    "torch.distributions.kl_divergence",
    "torch.distributions.LogNormal",
    "torch.distributions.HalfNormal",
    "torch.distributions.Poisson",
    "torch.distributions.Binomial",
    "torch.distributions.TransformedDistribution",
)
@pytest.mark.parametrize("pair", KL_PAIRS, ids=[c[0] for c in KL_PAIRS])
def test_kl_divergence_matches_torch(pair: Any) -> None:
    _, make, p_params, q_params = pair
    dcp, cpp, dtp, tpp = _pair(make, p_params)
    dcq, cpq, dtq, tpq = _pair(make, q_params)
    out_c, out_t = cd.kl_divergence(dcp, dcq), td.kl_divergence(dtp, dtq)
    np.testing.assert_allclose(out_c.detach().numpy(), out_t.detach().numpy(), rtol=1e-10, atol=1e-12)
    finite = torch.isfinite(out_t).numpy()
    weights = rng.normal(size=tuple(out_t.shape))
    (ctxgrad.where(ctxgrad.tensor(finite), out_c, 0.0) * ctxgrad.tensor(weights)).sum().backward()
    (torch.where(torch.tensor(finite), out_t, 0.0) * torch.tensor(weights)).sum().backward()
    for c, t in zip(cpp + cpq, tpp + tpq):
        expected = np.zeros(c.shape) if t.grad is None else t.grad.numpy()
        got = np.zeros(c.shape) if c.grad is None else c.grad.numpy()
        np.testing.assert_allclose(got, expected, rtol=1e-8, atol=1e-10)


@pytest.mark.torch_names("torch.distributions.kl_divergence", "torch.distributions.Binomial")
def test_kl_refusals_match_torch() -> None:
    def refusals(m: Any, t: Any) -> list[tuple[type, str]]:
        out = []
        for call in (
            lambda: m.kl_divergence(m.Binomial(2, probs=t([0.5])), m.Binomial(3, probs=t([0.5]))),
            lambda: m.kl_divergence(
                m.TransformedDistribution(m.Normal(0.0, 1.0), [m.ExpTransform()]),
                m.TransformedDistribution(m.Normal(0.0, 1.0), [m.SigmoidTransform()]),
            ),
        ):
            with pytest.raises(NotImplementedError) as info:
                call()
            out.append((info.type, str(info.value)))
        return out

    assert refusals(cd, ctxgrad.tensor) == refusals(td, torch.tensor)


# ------------------------------------------------------------------------------ sampling

_SAMPLED: list[tuple[str, Callable[[Any, Any], Any]]] = [
    ("log_normal", lambda m, t: m.LogNormal(t([0.0, 0.5]), t([0.5, 0.25]))),
    ("half_normal", lambda m, t: m.HalfNormal(t([1.0, 2.0]))),
    ("poisson", lambda m, t: m.Poisson(t([0.5, 7.0]))),
    ("binomial", lambda m, t: m.Binomial(t([4.0, 10.0]), probs=t([0.3, 0.8]))),
    ("multinomial", lambda m, t: m.Multinomial(10, probs=t([0.2, 0.3, 0.5]))),
    ("student_t", lambda m, t: m.StudentT(t([5.0, 8.0]), t([1.0, -1.0]), t([1.0, 2.0]))),
    ("mixture", lambda m, t: m.MixtureSameFamily(m.Categorical(t([0.3, 0.7])), m.Normal(t([-2.0, 1.0]), 0.5))),
]


@pytest.mark.torch_names(*_FAMILY_NAMES)
@pytest.mark.parametrize(("name", "make"), _SAMPLED, ids=[s[0] for s in _SAMPLED])
def test_sample_moments_match_torchs_moments(name: str, make: Any) -> None:
    ctxgrad.manual_seed(17)
    n = 40_000
    d, dt = make(cd, ctxgrad.tensor), make(td, torch.tensor)
    sample = d.sample((n,)).numpy().astype(np.float64)
    mean, var = dt.mean.numpy().astype(np.float64), dt.variance.numpy().astype(np.float64)
    np.testing.assert_allclose(sample.mean(0), mean, atol=5 * np.sqrt(var / n).max())
    np.testing.assert_allclose(sample.var(0), var, rtol=0.08)


@pytest.mark.torch_names("torch.distributions.HalfCauchy", "torch.distributions.LKJCholesky")
def test_heavy_tailed_and_lkj_samples_have_their_known_quantiles_and_moments() -> None:
    ctxgrad.manual_seed(5)
    n = 20_000
    scale = np.array([0.5, 3.0])
    sample = cd.HalfCauchy(ctxgrad.tensor(scale)).sample((n,)).numpy()
    # the median of a half-Cauchy is its scale: compared with torch's icdf(1/2)
    median = td.HalfCauchy(torch.tensor(scale)).icdf(torch.tensor(0.5)).numpy()
    np.testing.assert_allclose(np.median(sample, 0), median, rtol=0.05)
    # an LKJ(eta) correlation in dimension d: (r + 1) / 2 is Beta(eta - 1 + d / 2, same), so
    # its variance is 1 / (2 eta + d - 1)
    eta, dim = 2.0, 4
    factors = cd.LKJCholesky(dim, ctxgrad.tensor(eta, dtype=ctxgrad.float64)).sample((n,)).numpy()
    corr = factors @ np.swapaxes(factors, -1, -2)
    np.testing.assert_allclose(np.diagonal(corr, axis1=-2, axis2=-1), 1.0, rtol=1e-12)
    off = corr[:, np.tril_indices(dim, -1)[0], np.tril_indices(dim, -1)[1]]
    np.testing.assert_allclose(off.mean(0), 0.0, atol=0.02)
    np.testing.assert_allclose(off.var(0), 1 / (2 * eta + dim - 1), rtol=0.05)


def _same_noise_case(name: str) -> tuple[Any, Callable[..., Any], Callable[..., Any]]:
    """(the ctxgrad distribution's maker, the noise it draws, torch's sample from that noise)."""
    if name == "log_normal":
        return (
            lambda m, p: m.LogNormal(p[0], p[1]),
            lambda shape: ctxgrad.randn(shape, dtype=ctxgrad.float64),
            lambda p, eps: (p[0] + eps * p[1]).exp(),
        )
    if name == "half_normal":
        return (
            lambda m, p: m.HalfNormal(p[1]),
            lambda shape: ctxgrad.randn(shape, dtype=ctxgrad.float64),
            lambda p, eps: (eps * p[1]).abs(),
        )
    if name == "cauchy":
        return (
            lambda m, p: m.Cauchy(p[0], p[1]),
            lambda shape: ctxgrad.empty(shape, dtype=ctxgrad.float64).cauchy_(),
            lambda p, eps: p[0] + eps * p[1],
        )
    return (
        lambda m, p: m.HalfCauchy(p[1]),
        lambda shape: ctxgrad.empty(shape, dtype=ctxgrad.float64).cauchy_(),
        lambda p, eps: (eps * p[1]).abs(),
    )


@pytest.mark.torch_names(
    "torch.distributions.LogNormal", "torch.distributions.HalfNormal", "torch.distributions.HalfCauchy"
)
@pytest.mark.parametrize("name", ["log_normal", "half_normal", "cauchy", "half_cauchy"])
def test_rsample_and_its_gradient_match_torch_from_the_same_noise(name: str) -> None:
    make, noise, torch_sample = _same_noise_case(name)
    params = [_real(3), _pos(3)]
    cp = [ctxgrad.tensor(p, requires_grad=True) for p in params]
    tp = [torch.tensor(p, requires_grad=True) for p in params]
    ctxgrad.manual_seed(3)
    x = make(cd, cp).rsample((4,))
    ctxgrad.manual_seed(3)
    eps = torch.tensor(noise((4, 3)).numpy())
    xt = torch_sample(tp, eps)
    assert make(td, tp).rsample((4,)).shape == xt.shape
    np.testing.assert_allclose(x.detach().numpy(), xt.detach().numpy(), rtol=1e-12)
    weights = rng.normal(size=(4, 3))
    (x * ctxgrad.tensor(weights)).sum().backward()
    (xt * torch.tensor(weights)).sum().backward()
    for c, t in zip(cp, tp):
        expected = np.zeros(c.shape) if t.grad is None else t.grad.numpy()
        got = np.zeros(c.shape) if c.grad is None else c.grad.numpy()
        np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)


@pytest.mark.torch_names("torch.distributions.StudentT")
def test_student_t_rsample_gradient_matches_torch_from_the_same_draws() -> None:
    """The normal and the chi-squared draws shared; torch differentiates its chi-squared draw
    with its own ``_standard_gamma_grad`` (good to about 1e-4), ctxgrad with its own."""

    class TorchStandardGamma(torch.autograd.Function):  # torch's gradient of a given draw
        @staticmethod
        def forward(ctx: Any, alpha: Any, draw: Any) -> Any:
            ctx.save_for_backward(alpha, draw)
            return draw.clone()

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            alpha, draw = ctx.saved_tensors
            return grad * torch._standard_gamma_grad(alpha, draw), None

    params = [_pos(3) + 2, _real(3), _pos(3)]
    cp = [ctxgrad.tensor(p, dtype=ctxgrad.float64, requires_grad=True) for p in params]
    tp = [torch.tensor(p, dtype=torch.float64, requires_grad=True) for p in params]
    ctxgrad.manual_seed(8)
    x = cd.StudentT(*cp).rsample((5,))
    ctxgrad.manual_seed(8)
    normal = torch.tensor(ctxgrad.randn(5, 3, dtype=ctxgrad.float64).numpy())
    gamma = torch.tensor(StandardGamma.apply(ctxgrad.tensor(0.5 * params[0]).expand(5, 3)).numpy())
    df, loc, scale = tp
    chi2 = TorchStandardGamma.apply((0.5 * df).expand(5, 3), gamma) / 0.5
    xt = loc + scale * (normal * torch.rsqrt(chi2 / df))
    np.testing.assert_allclose(x.detach().numpy(), xt.detach().numpy(), rtol=1e-12)
    x.sum().backward()
    xt.sum().backward()
    np.testing.assert_allclose(cp[1].grad.numpy(), tp[1].grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(cp[2].grad.numpy(), tp[2].grad.numpy(), rtol=1e-10)
    np.testing.assert_allclose(cp[0].grad.numpy(), tp[0].grad.numpy(), rtol=2e-4, atol=1e-6)


@pytest.mark.torch_names("torch.distributions.Binomial")
def test_binomial_enumerate_support_matches_torch() -> None:
    for expand in (True, False):
        got = cd.Binomial(3, probs=ctxgrad.tensor([0.2, 0.7])).enumerate_support(expand)
        expected = td.Binomial(3, probs=torch.tensor([0.2, 0.7])).enumerate_support(expand)
        assert got.tolist() == expected.tolist() and str(got.dtype) == str(expected.dtype).replace("torch", "ctxgrad")


@pytest.mark.torch_names("torch.distributions.MixtureSameFamily")
def test_mixture_log_prob_trains_a_gaussian_mixture_as_torch() -> None:
    """A few steps of fitting a mixture's logits, locations and scales by maximum likelihood
    follow torch's steps."""
    data = np.concatenate([rng.normal(-2, 0.5, 50), rng.normal(1.5, 1.0, 50)])
    init = [np.zeros(2), np.array([-1.0, 1.0]), np.zeros(2)]
    results = []
    for m, lib in ((cd, ctxgrad), (td, torch)):
        logits, locs, log_scales = (lib.tensor(p, requires_grad=True) for p in init)
        x = lib.tensor(data)
        for _ in range(5):
            d = m.MixtureSameFamily(m.Categorical(logits=logits), m.Normal(locs, log_scales.exp()))
            loss = -d.log_prob(x).mean()
            loss.backward()
            with lib.no_grad():
                for p in (logits, locs, log_scales):
                    p -= 0.5 * p.grad
                    p.grad = None
        results.append([p.detach().numpy() for p in (logits, locs, log_scales)])
    for got, expected in zip(*results):
        np.testing.assert_allclose(got, expected, rtol=1e-10)


# ------------------------------------------------------------------------------ module paths

_TORCH_PATHS = {
    "normal": ["Normal"],
    "categorical": ["Categorical"],
    "bernoulli": ["Bernoulli"],
    "beta": ["Beta"],
    "binomial": ["Binomial"],
    "cauchy": ["Cauchy"],
    "chi2": ["Chi2"],
    "dirichlet": ["Dirichlet"],
    "exponential": ["Exponential"],
    "gamma": ["Gamma"],
    "gumbel": ["Gumbel"],
    "half_cauchy": ["HalfCauchy"],
    "half_normal": ["HalfNormal"],
    "independent": ["Independent"],
    "laplace": ["Laplace"],
    "lkj_cholesky": ["LKJCholesky"],
    "log_normal": ["LogNormal"],
    "mixture_same_family": ["MixtureSameFamily"],
    "multinomial": ["Multinomial"],
    "multivariate_normal": ["MultivariateNormal"],
    "one_hot_categorical": ["OneHotCategorical"],
    "poisson": ["Poisson"],
    "relaxed_bernoulli": ["RelaxedBernoulli", "LogitRelaxedBernoulli"],
    "relaxed_categorical": ["RelaxedOneHotCategorical", "ExpRelaxedCategorical"],
    "studentT": ["StudentT"],
    "transformed_distribution": ["TransformedDistribution"],
    "uniform": ["Uniform"],
    "distribution": ["Distribution"],
    "kl": ["kl_divergence", "register_kl"],
    "constraint_registry": ["biject_to", "transform_to", "ConstraintRegistry"],
    "transforms": ["Transform", "AffineTransform", "SigmoidTransform", "ExpTransform", "TanhTransform",
                   "ComposeTransform", "IndependentTransform", "identity_transform"],
    "utils": ["broadcast_all", "lazy_property", "logits_to_probs", "probs_to_logits", "clamp_probs", "_sum_rightmost",
              "vec_to_tril_matrix", "tril_matrix_to_vec"],
}  # fmt: skip


@pytest.mark.torch_names(
    "torch.distributions.normal",
    "torch.distributions.normal.Normal",
    "torch.distributions.categorical",
    "torch.distributions.categorical.Categorical",
    "torch.distributions.kl",
    "torch.distributions.kl.kl_divergence",
    "torch.distributions.kl.register_kl",
    "torch.distributions.utils",
)
@pytest.mark.parametrize("module", sorted(_TORCH_PATHS))
def test_torchs_submodule_paths_import_and_name_the_same_objects(module: str) -> None:
    ours = importlib.import_module(f"ctxgrad.distributions.{module}")
    theirs = importlib.import_module(f"torch.distributions.{module}")
    assert getattr(cd, module) is ours  # reachable as an attribute, as torch's are
    for name in _TORCH_PATHS[module]:
        assert hasattr(theirs, name), name
        if hasattr(td, name):
            assert getattr(ours, name) is getattr(cd, name), name
        else:
            assert callable(getattr(ours, name)), name


@pytest.mark.torch_names("torch.distributions.normal.Normal", "torch.distributions.categorical.Categorical")
def test_from_the_submodule_paths_the_classes_work_as_torchs() -> None:
    from torch.distributions.categorical import Categorical as TorchCategorical
    from torch.distributions.normal import Normal as TorchNormal

    from ctxgrad.distributions.categorical import Categorical
    from ctxgrad.distributions.normal import Normal

    loc, tloc = ctxgrad.tensor([0.5, -1.0], requires_grad=True), torch.tensor([0.5, -1.0], requires_grad=True)
    Normal(loc, 2.0).log_prob(ctxgrad.tensor([1.0, 1.0])).sum().backward()
    TorchNormal(tloc, 2.0).log_prob(torch.tensor([1.0, 1.0])).sum().backward()
    np.testing.assert_allclose(loc.grad.numpy(), tloc.grad.numpy(), rtol=1e-6)
    got = Categorical(logits=ctxgrad.tensor([0.1, 0.2, 0.7])).log_prob(ctxgrad.tensor([2, 0]))
    expected = TorchCategorical(logits=torch.tensor([0.1, 0.2, 0.7])).log_prob(torch.tensor([2, 0]))
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-6)


@pytest.mark.torch_names("torch.distributions.utils._sum_rightmost", "torch.distributions.utils.broadcast_all")
def test_utils_helpers_match_torch() -> None:
    from ctxgrad.distributions.utils import _sum_rightmost, broadcast_all

    x = rng.normal(size=(2, 3, 4))
    for dim in (0, 1, 2):
        got = _sum_rightmost(ctxgrad.tensor(x), dim)
        expected = td.utils._sum_rightmost(torch.tensor(x), dim)
        np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-12)
    from ctxgrad.distributions.utils import tril_matrix_to_vec, vec_to_tril_matrix

    for diag, size in ((0, 6), (-1, 3), (1, 8)):
        vec = ctxgrad.tensor(_real(2, size), requires_grad=True)
        tvec = torch.tensor(vec.detach().numpy(), requires_grad=True)
        mat, tmat = vec_to_tril_matrix(vec, diag), td.utils.vec_to_tril_matrix(tvec, diag)
        np.testing.assert_allclose(mat.detach().numpy(), tmat.detach().numpy())
        back, tback = tril_matrix_to_vec(mat * 2, diag), td.utils.tril_matrix_to_vec(tmat * 2, diag)
        np.testing.assert_allclose(back.detach().numpy(), tback.detach().numpy())
        back.sum().backward()
        tback.sum().backward()
        np.testing.assert_allclose(vec.grad.numpy(), tvec.grad.numpy())
    for bad in (
        lambda m, t: m.utils.vec_to_tril_matrix(t([1.0, 2.0])),
        lambda m, t: m.utils.tril_matrix_to_vec(t([[1.0]]), 1),
    ):
        with pytest.raises(ValueError) as expected:
            bad(td, torch.tensor)
        with pytest.raises(ValueError) as got:
            bad(cd, ctxgrad.tensor)
        assert str(got.value) == str(expected.value)
    got_b = broadcast_all(ctxgrad.zeros(2, 1, dtype=ctxgrad.float64), 3.0)
    expected_b = td.utils.broadcast_all(torch.zeros(2, 1, dtype=torch.float64), 3.0)
    assert [tuple(g.shape) for g in got_b] == [tuple(e.shape) for e in expected_b]
    assert [g.tolist() for g in got_b] == [e.tolist() for e in expected_b]
    assert got_b[1].dtype == ctxgrad.float64 and math.isclose(got_b[1][0, 0].item(), 3.0)

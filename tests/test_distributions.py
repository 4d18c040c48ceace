"""``ctxgrad.distributions`` against ``torch.distributions``: values and gradients of
``log_prob``, ``entropy``, ``cdf``, ``icdf``, the moments and ``kl_divergence`` (float64),
validation messages, and the samples' moments (ctxgrad draws from its own generator, so
samples are compared by their statistics, not value by value)."""

from __future__ import annotations

import math
import zlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ctxgrad
from ctxgrad import distributions as cd
from ctxgrad.distributions import constraints
from ctxgrad.distributions._functions import gamma_sample_grad

torch = pytest.importorskip("torch")
td = torch.distributions

rng = np.random.default_rng(1234)


@pytest.fixture(autouse=True)
def _rng_of_the_test(request: pytest.FixtureRequest) -> None:
    """Each test draws from a generator seeded by its own id, so what it draws does not depend
    on which tests ran before it in the same process (under xdist, that changes run to run)."""
    global rng
    rng = np.random.default_rng(zlib.crc32(request.node.nodeid.encode()))


def _pos(*shape: int) -> np.ndarray[Any, Any]:
    return rng.uniform(0.5, 2.5, shape)


def _real(*shape: int) -> np.ndarray[Any, Any]:
    return rng.normal(size=shape)


def _unit(*shape: int) -> np.ndarray[Any, Any]:
    return rng.uniform(0.1, 0.9, shape)


def _simplex(*shape: int) -> np.ndarray[Any, Any]:
    x = rng.uniform(0.2, 1.0, shape)
    return x / x.sum(-1, keepdims=True)


def _spd(n: int, *batch: int) -> np.ndarray[Any, Any]:
    a = rng.normal(size=(*batch, n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def _tril(n: int, *batch: int) -> np.ndarray[Any, Any]:
    a = np.tril(rng.normal(size=(*batch, n, n)), -1)
    return a + np.eye(n) * rng.uniform(0.5, 2.0, (*batch, n, 1))


Make = Callable[[Any, list[Any]], Any]

#: The torch names the tests of the families check (tools/torch_usage_coverage.py counts them).
FAMILIES = (
    "torch.distributions",
    "torch.distributions.Distribution",
    "torch.distributions.Normal",
    "torch.distributions.Categorical",
    "torch.distributions.MultivariateNormal",
    "torch.distributions.Uniform",
    "torch.distributions.Beta",
    "torch.distributions.Bernoulli",
    "torch.distributions.Independent",
    "torch.distributions.Gamma",
    "torch.distributions.Laplace",
    "torch.distributions.Exponential",
    "torch.distributions.OneHotCategorical",
)


def _relaxed(m: Any, name: str) -> Any:
    """The base distribution ``name`` of a relaxed family, from where each library keeps it."""
    if m is cd:
        from ctxgrad.distributions import relaxed

        return getattr(relaxed, name)
    return getattr(td.relaxed_bernoulli if name == "LogitRelaxedBernoulli" else td.relaxed_categorical, name)


#: (id, make(module, params), params, value for log_prob / cdf, methods and properties to compare)
CASES: list[tuple[str, Make, list[np.ndarray[Any, Any]], np.ndarray[Any, Any] | None, tuple[str, ...]]] = [
    ("normal", lambda m, p: m.Normal(p[0], p[1]), [_real(3), _pos(3)], _real(2, 3),
     ("log_prob", "cdf", "icdf", "entropy", "mean", "mode", "variance", "stddev")),
    ("laplace", lambda m, p: m.Laplace(p[0], p[1]), [_real(3), _pos(3)], _real(2, 3),
     ("log_prob", "cdf", "icdf", "entropy", "mean", "mode", "variance", "stddev")),
    ("gumbel", lambda m, p: m.Gumbel(p[0], p[1]), [_real(3), _pos(3)], _real(2, 3),
     ("log_prob", "cdf", "icdf", "entropy", "mean", "mode", "variance", "stddev")),
    ("uniform", lambda m, p: m.Uniform(p[0] - 5, p[0] + p[1] + 5), [_real(3), _pos(3)], _real(2, 3) * 0.3,
     ("log_prob", "cdf", "icdf", "entropy", "mean", "variance", "stddev")),
    ("exponential", lambda m, p: m.Exponential(p[0]), [_pos(3)], _pos(2, 3),
     ("log_prob", "cdf", "icdf", "entropy", "mean", "mode", "variance", "stddev")),
    ("gamma", lambda m, p: m.Gamma(p[0], p[1]), [_pos(3), _pos(3)], _pos(2, 3),
     ("log_prob", "entropy", "mean", "mode", "variance", "stddev")),
    ("gamma_cdf", lambda m, p: m.Gamma(p[0].detach(), p[1]), [_pos(3) * 3, _pos(3)], _pos(4, 3) * 3, ("cdf",)),
    ("beta", lambda m, p: m.Beta(p[0], p[1]), [_pos(3) + 1, _pos(3) + 1], _unit(2, 3),
     ("log_prob", "entropy", "mean", "mode", "variance", "stddev")),
    ("dirichlet", lambda m, p: m.Dirichlet(p[0]), [_pos(2, 4) + 1], _simplex(2, 4),
     ("log_prob", "entropy", "mean", "mode", "variance", "stddev")),
    ("bernoulli_probs", lambda m, p: m.Bernoulli(probs=p[0]), [_unit(3)], np.array([[0.0, 1.0, 1.0], [1.0, 0, 0]]),
     ("log_prob", "entropy", "mean", "mode", "variance", "stddev")),
    ("bernoulli_logits", lambda m, p: m.Bernoulli(logits=p[0]), [_real(3)], np.array([0.0, 1.0, 1.0]),
     ("log_prob", "entropy", "mean", "variance")),
    ("categorical_probs", lambda m, p: m.Categorical(probs=p[0]), [_pos(2, 4)], np.array([[0, 3], [2, 1]]),
     ("log_prob", "entropy", "mode")),
    ("categorical_logits", lambda m, p: m.Categorical(logits=p[0]), [_real(2, 4)], np.array([3, 0]),
     ("log_prob", "entropy")),
    ("onehot", lambda m, p: m.OneHotCategorical(probs=p[0]), [_simplex(2, 3)], np.eye(3)[[0, 2]],
     ("log_prob", "entropy", "mean", "mode", "variance")),
    ("relaxed_bernoulli", lambda m, p: m.RelaxedBernoulli(p[0], logits=p[1]), [_pos(3), _real(3)], _unit(2, 3),
     ("log_prob",)),
    ("relaxed_onehot", lambda m, p: m.RelaxedOneHotCategorical(p[0], probs=p[1]), [_pos(1), _simplex(2, 3)],
     _simplex(4, 2, 3), ("log_prob",)),
    ("logit_relaxed_bernoulli", lambda m, p: _relaxed(m, "LogitRelaxedBernoulli")(p[0], probs=p[1]),
     [_pos(3), _unit(3)], _real(2, 3), ("log_prob",)),
    ("exp_relaxed_categorical", lambda m, p: _relaxed(m, "ExpRelaxedCategorical")(p[0], logits=p[1]),
     [_pos(1), _real(2, 3)], np.log(_simplex(4, 2, 3)), ("log_prob",)),
    ("mvn_cov", lambda m, p: m.MultivariateNormal(p[0], covariance_matrix=p[1]), [_real(2, 3), _spd(3)],
     _real(4, 2, 3), ("log_prob", "entropy", "mean", "variance", "covariance_matrix", "scale_tril",
                      "precision_matrix")),
    ("mvn_prec", lambda m, p: m.MultivariateNormal(p[0], precision_matrix=p[1]), [_real(3), _spd(3, 2)],
     _real(2, 3), ("log_prob", "entropy", "variance", "covariance_matrix", "scale_tril", "precision_matrix")),
    ("mvn_tril", lambda m, p: m.MultivariateNormal(p[0], scale_tril=p[1]), [_real(3), _tril(3)], _real(2, 3),
     ("log_prob", "entropy", "variance", "covariance_matrix", "precision_matrix")),
    ("independent", lambda m, p: m.Independent(m.Normal(p[0], p[1]), 1), [_real(2, 3), _pos(2, 3)], _real(2, 3),
     ("log_prob", "entropy", "mean", "variance")),
]  # fmt: skip


def _pair(make: Make, params: list[np.ndarray[Any, Any]]) -> tuple[Any, list[Any], Any, list[Any]]:
    cp = [ctxgrad.tensor(p, dtype=ctxgrad.float64, requires_grad=True) for p in params]
    tp = [torch.tensor(p, dtype=torch.float64, requires_grad=True) for p in params]
    return make(cd, cp), cp, make(td, tp), tp


def _evaluate(dist: Any, name: str, value: Any) -> Any:
    if name in ("log_prob", "cdf"):
        return getattr(dist, name)(value)
    if name == "icdf":
        return dist.icdf(value)
    if name == "entropy":
        return dist.entropy()
    return getattr(dist, name)


@pytest.mark.torch_names(*FAMILIES)
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_values_and_gradients_match_torch(case: Any) -> None:
    _, make, params, value, names = case
    for name in names:
        dc, cp, dt, tp = _pair(make, params)
        v = value
        if name == "icdf":
            v = _unit(*value.shape) if value is not None else None
        cv = None if v is None else ctxgrad.tensor(v, dtype=ctxgrad.float64)
        tv = None if v is None else torch.tensor(v, dtype=torch.float64)
        if v is not None and name in ("log_prob",) and "categorical" in case[0]:
            cv, tv = ctxgrad.tensor(v), torch.tensor(v)
        out_c, out_t = _evaluate(dc, name, cv), _evaluate(dt, name, tv)
        assert out_c.shape == tuple(out_t.shape), name
        np.testing.assert_allclose(out_c.detach().numpy(), out_t.detach().numpy(), rtol=1e-10, atol=1e-12, err_msg=name)
        if not out_t.requires_grad:
            continue
        weights = rng.normal(size=tuple(out_t.shape))
        (out_c * ctxgrad.tensor(weights)).sum().backward()
        (out_t * torch.tensor(weights)).sum().backward()
        for i, (c, t) in enumerate(zip(cp, tp)):
            expected = np.zeros(c.shape) if t.grad is None else t.grad.numpy()
            got = np.zeros(c.shape) if c.grad is None else c.grad.numpy()
            np.testing.assert_allclose(got, expected, rtol=1e-7, atol=1e-10, err_msg=f"{name}: grad of param {i}")


@pytest.mark.torch_names(*FAMILIES)
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_shapes_and_flags_match_torch(case: Any) -> None:
    _, make, params, _, _ = case
    dc, _, dt, _ = _pair(make, params)
    assert tuple(dc.batch_shape) == tuple(dt.batch_shape)
    assert tuple(dc.event_shape) == tuple(dt.event_shape)
    # torch's LogitRelaxedBernoulli says has_rsample False although its rsample works
    # (docs/differences.md, section 30); ctxgrad's says True.
    assert dc.has_rsample == (dt.has_rsample or case[0] == "logit_relaxed_bernoulli")
    assert dc.has_enumerate_support == dt.has_enumerate_support
    assert repr(dc.support) == repr(dt.support).replace("torch.", "ctxgrad.")
    sample = dc.sample((5,))
    assert tuple(sample.shape) == tuple(dt.sample((5,)).shape)
    assert not sample.requires_grad
    assert bool(dc.support.check(sample).all())
    big = dc.batch_shape + (0,) if False else (4, *dc.batch_shape)
    expanded = dc.expand(big)
    texpanded = dt.expand(big)
    assert tuple(expanded.batch_shape) == tuple(texpanded.batch_shape)
    assert tuple(expanded.sample().shape) == tuple(texpanded.sample().shape)


@pytest.mark.torch_names(
    "torch.distributions.constraints",
    "torch.distributions.constraints.Constraint",
    "torch.distributions.constraints.positive",
    "torch.distributions.constraints.real",
    "torch.distributions.constraints.real_vector",
    "torch.distributions.constraints.interval",
    "torch.distributions.constraints.independent",
    "torch.distributions.constraints.lower_cholesky",
    "torch.distributions.constraints.positive_definite",
    "torch.distributions.constraints.simplex",
    "torch.distributions.constraints.unit_interval",
    "torch.distributions.constraints.greater_than",
    "torch.distributions.constraints.less_than",
)
def test_repr_and_constraints_match_torch() -> None:
    assert repr(cd.Normal(0.0, 1.0)) == repr(td.Normal(0.0, 1.0))
    assert repr(cd.Bernoulli(0.25)) == repr(td.Bernoulli(0.25))
    assert repr(cd.Beta(1.0, 2.0)) == repr(td.Beta(1.0, 2.0))
    assert repr(cd.Normal(0.0, 1.0).arg_constraints) == repr(td.Normal(0.0, 1.0).arg_constraints)
    for name in ("real", "positive", "nonnegative", "unit_interval", "simplex", "boolean", "nonnegative_integer",
                 "positive_integer", "lower_cholesky", "positive_definite", "real_vector", "one_hot", "square",
                 "symmetric", "lower_triangular", "positive_semidefinite", "corr_cholesky"):  # fmt: skip
        assert repr(getattr(constraints, name)) == repr(getattr(td.constraints, name)), name
    assert repr(constraints.integer_interval(0, 3)) == repr(td.constraints.integer_interval(0, 3))
    assert repr(constraints.interval(0.0, 2.0)) == repr(td.constraints.interval(0.0, 2.0))
    assert repr(constraints.independent(constraints.real, 2)) == repr(
        td.constraints.independent(td.constraints.real, 2)
    )
    assert repr(cd.Categorical(ctxgrad.ones(3)).support) == repr(td.Categorical(torch.ones(3)).support)


@pytest.mark.torch_names(
    "torch.distributions.constraints.positive",
    "torch.distributions.constraints.unit_interval",
    "torch.distributions.constraints.real",
)
@pytest.mark.parametrize(
    ("name", "values"),
    [
        ("positive", [0.5, 0.0, -1.0, math.inf]),
        ("nonnegative", [0.5, 0.0, -1.0]),
        ("unit_interval", [0.0, 1.0, 1.5, -0.1]),
        ("boolean", [0.0, 1.0, 0.5]),
        ("nonnegative_integer", [0.0, 3.0, -1.0, 1.5]),
        ("real", [1.0, math.nan, math.inf]),
    ],
)
def test_constraint_checks_match_torch(name: str, values: list[float]) -> None:
    got = getattr(constraints, name).check(ctxgrad.tensor(values)).tolist()
    assert got == getattr(td.constraints, name).check(torch.tensor(values)).tolist()


@pytest.mark.torch_names(
    "torch.distributions.constraints.positive_definite",
    "torch.distributions.constraints.lower_cholesky",
    "torch.distributions.constraints.simplex",
)
def test_matrix_constraints_match_torch() -> None:
    mats = np.stack([_spd(3), -_spd(3), _tril(3), np.array([[1.0, 2, 0], [0, 1, 0], [0, 0, 1]])])
    corr = np.linalg.cholesky(np.array([[1.0, 0.5, 0.2], [0.5, 1.0, 0.1], [0.2, 0.1, 1.0]]))
    symmetric_batch = np.stack([_spd(3), -_spd(3), np.diag([1.0, 0.0, 2.0]), corr @ corr.T])
    for name in ("positive_definite", "lower_cholesky", "lower_triangular", "symmetric", "square",
                 "positive_semidefinite", "corr_cholesky"):  # fmt: skip
        got = getattr(constraints, name).check(ctxgrad.tensor(mats)).tolist()
        assert got == getattr(td.constraints, name).check(torch.tensor(mats)).tolist(), name
        got = getattr(constraints, name).check(ctxgrad.tensor(symmetric_batch)).tolist()
        assert got == getattr(td.constraints, name).check(torch.tensor(symmetric_batch)).tolist(), name
    for batch in (np.stack([corr, _tril(3)]), corr[None]):
        got = constraints.corr_cholesky.check(ctxgrad.tensor(batch)).tolist()
        assert got == td.constraints.corr_cholesky.check(torch.tensor(batch)).tolist()
    vecs = np.array([[0.2, 0.8], [0.5, 0.6], [-0.1, 1.1]])
    assert (
        constraints.simplex.check(ctxgrad.tensor(vecs)).tolist()
        == td.constraints.simplex.check(torch.tensor(vecs)).tolist()
    )


def _error(fn: Callable[[Any], Any], module: Any, tensor: Callable[..., Any]) -> tuple[type, str]:
    with pytest.raises(Exception) as info, np.errstate(all="ignore"):  # (probs summing to 0)
        fn((module, tensor))
    return info.type, str(info.value)


@pytest.mark.torch_names(*FAMILIES)
@pytest.mark.parametrize(
    "misuse",
    [
        lambda mt: mt[0].Normal(mt[1]([0.0, 1.0]), mt[1]([1.0, -1.0])),
        lambda mt: mt[0].Normal(mt[1]([0.0, math.nan]), 1.0),
        lambda mt: mt[0].Bernoulli(probs=mt[1]([0.5]), logits=mt[1]([0.0])),
        lambda mt: mt[0].Bernoulli(),
        lambda mt: mt[0].Bernoulli(mt[1](1.5)),
        lambda mt: mt[0].Bernoulli(0.3).log_prob(mt[1](0.5)),
        lambda mt: mt[0].Beta(mt[1]([1.0]), mt[1]([1.0])).log_prob(mt[1]([2.0])),
        lambda mt: mt[0].Normal(mt[1]([0.0, 0.0]), 1.0).log_prob(mt[1]([0.0, 0.0, 0.0])),
        lambda mt: mt[0].Categorical(mt[1]([0.2, 0.8])).log_prob(mt[1](2)),
        lambda mt: mt[0].Categorical(mt[1](1.0)),
        lambda mt: mt[0].Categorical(logits=mt[1](1.0)),
        lambda mt: mt[0].Uniform(mt[1]([0.0, 1.0]), mt[1]([1.0, 0.5])),
        lambda mt: mt[0].Uniform(0.0, 1.0).log_prob(mt[1](2.0)),
        lambda mt: mt[0].Exponential(2.0).cdf(mt[1](-1.0)),
        lambda mt: mt[0].Gamma(mt[1]([1.0]), mt[1]([0.0])),
        lambda mt: mt[0].Dirichlet(mt[1](1.0)),
        lambda mt: mt[0].Beta(-1.0, 1.0),
        lambda mt: mt[0].RelaxedBernoulli(0.5, probs=mt[1]([1.5])),
        lambda mt: mt[0].RelaxedOneHotCategorical(0.5, probs=mt[1]([0.5, -0.5])),
        lambda mt: mt[0].Laplace(0.0, mt[1]([-1.0])),
        lambda mt: mt[0].Exponential(mt[1]([0.0])),
        lambda mt: mt[0].Dirichlet(mt[1]([1.0, -1.0])),
        lambda mt: mt[0].MultivariateNormal(mt[1](0.0), mt[1]([[1.0]])),
        lambda mt: mt[0].MultivariateNormal(mt[1]([0.0]), mt[1]([1.0])),
        lambda mt: mt[0].MultivariateNormal(mt[1]([0.0])),
        lambda mt: mt[0].MultivariateNormal(mt[1]([0.0, 0.0]), mt[1]([[1.0, 2.0], [2.0, 1.0]])),
        lambda mt: mt[0].MultivariateNormal(mt[1]([0.0, 0.0]), scale_tril=mt[1]([[1.0, 2.0], [0.0, 1.0]])),
        lambda mt: mt[0].Independent(mt[0].Normal(mt[1]([0.0, 0.0]), 1.0), 2),
        lambda mt: mt[0].Bernoulli(0.3).rsample(),
        lambda mt: mt[0].Normal(0.0, 1.0).sample(3),
        lambda mt: mt[0].kl_divergence(mt[0].Gumbel(0.0, 1.0), mt[0].Bernoulli(0.3)),
    ],
)
def test_misuse_raises_as_torch(misuse: Callable[[Any], Any]) -> None:
    expected = _error(misuse, td, torch.tensor)
    got = _error(misuse, cd, ctxgrad.tensor)
    assert got[0] is expected[0]
    assert got[1] == expected[1].replace("torch.Size", "ctxgrad.Size")


def test_validate_args_false_and_default() -> None:
    d = cd.Normal(0.0, -1.0, validate_args=False)  # accepted
    with np.errstate(invalid="ignore"):
        assert math.isnan(d.log_prob(ctxgrad.tensor(0.0)).item())
    try:
        cd.Distribution.set_default_validate_args(False)
        cd.Normal(0.0, -1.0)
    finally:
        cd.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError, match="GreaterThan"):
        cd.Normal(0.0, -1.0)


# ------------------------------------------------------------------------------ KL

KL_PAIRS: list[tuple[str, Make, list[np.ndarray[Any, Any]], list[np.ndarray[Any, Any]]]] = [
    ("normal", lambda m, p: m.Normal(p[0], p[1]), [_real(3), _pos(3)], [_real(3), _pos(3)]),
    ("bernoulli", lambda m, p: m.Bernoulli(probs=p[0]), [_unit(3)], [_unit(3)]),
    ("categorical", lambda m, p: m.Categorical(probs=p[0]), [_simplex(2, 4)], [_simplex(2, 4)]),
    ("onehot", lambda m, p: m.OneHotCategorical(logits=p[0]), [_real(2, 4)], [_real(2, 4)]),
    ("beta", lambda m, p: m.Beta(p[0], p[1]), [_pos(3), _pos(3)], [_pos(3), _pos(3)]),
    ("gamma", lambda m, p: m.Gamma(p[0], p[1]), [_pos(3), _pos(3)], [_pos(3), _pos(3)]),
    ("dirichlet", lambda m, p: m.Dirichlet(p[0]), [_pos(2, 3)], [_pos(2, 3)]),
    ("exponential", lambda m, p: m.Exponential(p[0]), [_pos(3)], [_pos(3)]),
    ("laplace", lambda m, p: m.Laplace(p[0], p[1]), [_real(3), _pos(3)], [_real(3), _pos(3)]),
    ("uniform", lambda m, p: m.Uniform(p[0], p[0] + p[1]), [np.array([0.0, 0.5, -1.0]), np.array([1.0, 1.0, 1.0])],
     [np.array([-1.0, 0.0, 0.0]), np.array([3.0, 2.0, 2.0])]),
    ("mvn", lambda m, p: m.MultivariateNormal(p[0], covariance_matrix=p[1]), [_real(2, 3), _spd(3, 2)],
     [_real(3), _spd(3)]),
    ("mvn_tril", lambda m, p: m.MultivariateNormal(p[0], scale_tril=p[1]), [_real(3), _tril(3)], [_real(3), _tril(3)]),
    ("independent", lambda m, p: m.Independent(m.Normal(p[0], p[1]), 1), [_real(2, 3), _pos(2, 3)],
     [_real(2, 3), _pos(2, 3)]),
]  # fmt: skip


@pytest.mark.torch_names(
    "torch.distributions.kl_divergence", "torch.distributions.kl", "torch.distributions.kl.kl_divergence"
)
@pytest.mark.parametrize("pair", KL_PAIRS, ids=[c[0] for c in KL_PAIRS])
def test_kl_divergence_matches_torch(pair: Any) -> None:
    _, make, p_params, q_params = pair
    dcp, cpp, dtp, tpp = _pair(make, p_params)
    dcq, cpq, dtq, tpq = _pair(make, q_params)
    out_c, out_t = cd.kl_divergence(dcp, dcq), td.kl_divergence(dtp, dtq)
    np.testing.assert_allclose(out_c.detach().numpy(), out_t.detach().numpy(), rtol=1e-10, atol=1e-12)
    assert bool((out_c >= -1e-12).all())
    weights = rng.normal(size=tuple(out_t.shape))
    (out_c * ctxgrad.tensor(weights)).sum().backward()
    (out_t * torch.tensor(weights)).sum().backward()
    for c, t in zip(cpp + cpq, tpp + tpq):
        expected = np.zeros(c.shape) if t.grad is None else t.grad.numpy()
        got = np.zeros(c.shape) if c.grad is None else c.grad.numpy()
        np.testing.assert_allclose(got, expected, rtol=1e-8, atol=1e-10)


def test_kl_edge_cases_match_torch() -> None:
    # zero probabilities: 0 where p is 0, inf where q is 0 and p is not
    p, q = [0.0, 1.0, 0.3, 0.3], [0.5, 0.5, 0.0, 1.0]
    got = cd.kl_divergence(cd.Bernoulli(ctxgrad.tensor(p)), cd.Bernoulli(ctxgrad.tensor(q)))
    expected = td.kl_divergence(td.Bernoulli(torch.tensor(p)), td.Bernoulli(torch.tensor(q)))
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-6)
    # q does not cover p: inf
    got = cd.kl_divergence(cd.Uniform(0.0, 2.0), cd.Uniform(0.0, 1.0))
    assert got.item() == math.inf
    with pytest.raises(ValueError, match="different event shapes"):
        cd.kl_divergence(
            cd.MultivariateNormal(ctxgrad.zeros(1), ctxgrad.eye(1)),
            cd.MultivariateNormal(ctxgrad.zeros(2), ctxgrad.eye(2)),
        )


def test_register_kl_uses_the_most_specific_registration() -> None:
    class MyNormal(cd.Normal):
        pass

    assert cd.kl_divergence(MyNormal(0.0, 1.0), cd.Normal(1.0, 1.0)).item() == pytest.approx(0.5)

    @cd.register_kl(MyNormal, MyNormal)
    def _kl(p: Any, q: Any) -> Any:
        return (p.loc - q.loc).abs() * 10

    try:
        assert cd.kl_divergence(MyNormal(0.0, 1.0), MyNormal(1.0, 1.0)).item() == pytest.approx(10.0)
        assert cd.kl_divergence(MyNormal(0.0, 1.0), cd.Normal(1.0, 1.0)).item() == pytest.approx(0.5)
    finally:
        from ctxgrad.distributions import kl

        del kl._KL_REGISTRY[MyNormal, MyNormal]
        kl._KL_MEMOIZE.clear()
    with pytest.raises(TypeError, match="Distribution subclass"):
        cd.register_kl(int, cd.Normal)


# ------------------------------------------------------------------------------ sampling


def _moments(sample: Any) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    x = sample.numpy()
    return x.mean(0), x.var(0)


SAMPLED = [
    ("normal", cd.Normal(ctxgrad.tensor([0.0, 2.0]), ctxgrad.tensor([1.0, 0.5]))),
    ("laplace", cd.Laplace(ctxgrad.tensor([0.0, 2.0]), ctxgrad.tensor([1.0, 0.5]))),
    ("gumbel", cd.Gumbel(ctxgrad.tensor([0.0, 2.0]), ctxgrad.tensor([1.0, 0.5]))),
    ("uniform", cd.Uniform(ctxgrad.tensor([0.0, -1.0]), ctxgrad.tensor([1.0, 3.0]))),
    ("exponential", cd.Exponential(ctxgrad.tensor([0.5, 3.0]))),
    ("gamma", cd.Gamma(ctxgrad.tensor([0.3, 4.0]), ctxgrad.tensor([1.0, 2.0]))),
    ("beta", cd.Beta(ctxgrad.tensor([0.5, 3.0]), ctxgrad.tensor([2.0, 1.5]))),
    ("dirichlet", cd.Dirichlet(ctxgrad.tensor([0.5, 2.0, 3.0]))),
    ("bernoulli", cd.Bernoulli(ctxgrad.tensor([0.2, 0.9]))),
    ("categorical", None),
    ("onehot", cd.OneHotCategorical(ctxgrad.tensor([0.2, 0.3, 0.5]))),
    ("mvn", cd.MultivariateNormal(ctxgrad.tensor([1.0, -1.0]), ctxgrad.tensor([[2.0, 0.5], [0.5, 1.0]]))),
]


@pytest.mark.parametrize(("name", "dist"), SAMPLED, ids=[s[0] for s in SAMPLED])
def test_sample_moments_match_the_distribution(name: str, dist: Any) -> None:
    ctxgrad.manual_seed(7)
    n = 40_000
    if dist is None:  # the moments of the one-hot encoding of the indices
        probs = np.array([0.2, 0.3, 0.5])
        idx = cd.Categorical(ctxgrad.tensor(probs)).sample((n,)).numpy()
        freq = np.bincount(idx, minlength=3) / n
        np.testing.assert_allclose(freq, probs, atol=4 * np.sqrt(0.25 / n))
        return
    sample = dist.sample((n,))
    mean, var = _moments(sample)
    expected_var = dist.variance.numpy()
    sem = np.sqrt(expected_var / n)
    np.testing.assert_allclose(mean, dist.mean.numpy(), atol=5 * sem.max() + 1e-12)
    np.testing.assert_allclose(var, expected_var, rtol=0.05, atol=1e-4)
    if name == "mvn":
        cov = np.cov(sample.numpy().T)
        np.testing.assert_allclose(cov, dist.covariance_matrix.numpy(), atol=0.05)


def test_seeded_samples_repeat() -> None:
    d = cd.Gamma(ctxgrad.tensor([0.5, 2.0]), 1.0)
    ctxgrad.manual_seed(3)
    a = d.sample((4,))
    ctxgrad.manual_seed(3)
    b = d.sample((4,))
    assert a.tolist() == b.tolist()


def test_rsample_is_reparameterised() -> None:
    loc = ctxgrad.tensor([0.5, -1.0], requires_grad=True)
    scale = ctxgrad.tensor([2.0, 0.5], requires_grad=True)
    ctxgrad.manual_seed(0)
    x = cd.Normal(loc, scale).rsample((3,))
    ctxgrad.manual_seed(0)
    eps = ctxgrad.randn(3, 2)
    np.testing.assert_allclose(x.detach().numpy(), (loc.detach() + eps * scale.detach()).numpy())
    x.sum().backward()
    np.testing.assert_allclose(loc.grad.numpy(), [3.0, 3.0])
    np.testing.assert_allclose(scale.grad.numpy(), eps.sum(0).numpy(), rtol=1e-6)


@pytest.mark.parametrize(
    ("make", "mean_of"),
    [
        (lambda a: cd.Gamma(a, ctxgrad.tensor(2.0, dtype=ctxgrad.float64)), lambda a: a / 2),
        (lambda a: cd.Beta(a, ctxgrad.tensor(1.5, dtype=ctxgrad.float64)), lambda a: a / (a + 1.5)),
        (
            lambda a: cd.Dirichlet(ctxgrad.stack([a, ctxgrad.tensor(1.0, dtype=ctxgrad.float64).expand(a.shape)], -1)),
            lambda a: a / (a + 1),
        ),
    ],
)
def test_implicit_rsample_gradient_is_unbiased(make: Any, mean_of: Any) -> None:
    # d/da E[x] estimated by the mean of dx/da over many draws equals d/da of the exact mean.
    a0 = np.array([0.4, 1.0, 3.0])
    a = ctxgrad.tensor(a0, dtype=ctxgrad.float64, requires_grad=True)
    ctxgrad.manual_seed(11)
    n = 40_000
    x = make(a).rsample((n,))
    if x.dim() == 3:  # a Dirichlet: its first component (the components always sum to 1)
        x = x[..., 0]
    x.sum().backward()
    h = 1e-6
    exact = (mean_of(a0 + h) - mean_of(a0 - h)).reshape(len(a0), -1).sum(-1) / (2 * h)
    np.testing.assert_allclose(a.grad.numpy() / n, exact, rtol=0.03)


def test_gamma_sample_gradient_against_torch_and_the_inverse_cdf() -> None:
    alpha = np.array([0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 50.0, 0.3, 3.0, 200.0])
    x = np.array([0.01, 0.3, 1.0, 5.0, 2.0, 14.0, 45.0, 3.0, 0.5, 230.0])
    got = gamma_sample_grad(alpha, x)
    # torch's series and rational approximations are good to about 1e-4
    np.testing.assert_allclose(got, torch._standard_gamma_grad(torch.tensor(alpha), torch.tensor(x)).numpy(), rtol=2e-4)
    # exactly: dx/da = -(dP/da) / (dP/dx) with P torch's regularised incomplete gamma
    h = 1e-6
    ta, tx = torch.tensor(alpha), torch.tensor(x)
    dp_da = (torch.special.gammainc(ta + h, tx) - torch.special.gammainc(ta - h, tx)) / (2 * h)
    dp_dx = (torch.special.gammainc(ta, tx + h * tx) - torch.special.gammainc(ta, tx - h * tx)) / (2 * h * tx)
    np.testing.assert_allclose(got, (-dp_da / dp_dx).numpy(), rtol=1e-5)


@pytest.mark.parametrize("path", ["scipy", "numpy"])
def test_gamma_sample_gradient_scipy_and_numpy_paths_agree_with_torch(monkeypatch: Any, path: str) -> None:
    # SciPy's incomplete gamma where it is installed, the NumPy expansions without it: the same
    # gradient, on draws and on the edges where the density leaves the normal range.
    from ctxgrad.ops import _special_kernels

    if path == "scipy":
        pytest.importorskip("scipy")
    rng = np.random.default_rng(3)
    alpha = np.concatenate([rng.uniform(0.05, 5.0, 300), [1.0, 0.01, 1e4]])
    x = np.concatenate([rng.standard_gamma(alpha[:300]), [700.0, 1e-300, 1.01e4]])
    monkeypatch.setattr(_special_kernels, "PREFER_SCIPY", path == "scipy")
    got = gamma_sample_grad(alpha, x)
    monkeypatch.setattr(_special_kernels, "PREFER_SCIPY", False)
    np.testing.assert_allclose(got, gamma_sample_grad(alpha, x), rtol=1e-7)
    # torch's approximations are good to about 1e-4 on the draws (not at x = 700, alpha = 1)
    theirs = torch._standard_gamma_grad(torch.tensor(alpha[:300]), torch.tensor(x[:300])).numpy()
    np.testing.assert_allclose(got[:300], theirs, rtol=2e-3)
    assert np.all(np.isfinite(got)) and got[-2] > 0


def test_gamma_cdf_extremes_and_concentration_gradient_match_torch() -> None:
    a = np.array([0.05, 0.5, 3.0, 40.0, 200.0, 2.0, 2.0])
    x = np.array([1e-3, 30.0, 0.2, 39.0, 260.0, 0.0, math.inf])
    got = cd.Gamma(ctxgrad.tensor(a), 1.0).cdf(ctxgrad.tensor(x))
    expected = td.Gamma(torch.tensor(a), 1.0).cdf(torch.tensor(x))
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-8, atol=1e-300)
    mpmath = pytest.importorskip("mpmath")  # torch's igamma is good to about 1e-9 near a = x
    with mpmath.workdps(30):
        exact = [float(mpmath.gammainc(ai, 0, xi, regularized=True)) for ai, xi in zip(a, x)]
    np.testing.assert_allclose(got.numpy(), exact, rtol=1e-13, atol=1e-300)
    c = ctxgrad.tensor([2.0], requires_grad=True)
    tc = torch.tensor([2.0], requires_grad=True)
    with pytest.raises(NotImplementedError) as expected_error:
        td.Gamma(tc, 1.0).cdf(torch.tensor([0.5])).sum().backward()
    with pytest.raises(NotImplementedError) as got_error:
        cd.Gamma(c, 1.0).cdf(ctxgrad.tensor([0.5])).sum().backward()
    assert str(got_error.value) == str(expected_error.value)


def test_dirichlet_mode_below_one_is_the_vertex_of_the_largest_concentration() -> None:
    c = ctxgrad.tensor([[0.5, 0.3, 0.9], [0.2, 0.9, 0.3], [2.0, 0.5, 3.0]])
    expected = [[0.0, 0.0, 1.0], [0.0, 1.0, 0.0], [1 / 3, 0.0, 2 / 3]]
    np.testing.assert_allclose(cd.Dirichlet(c).mode.numpy(), expected, rtol=1e-6)


def test_float32_parameters_give_float32() -> None:
    d = cd.Normal(ctxgrad.tensor([0.0, 1.0]), 1.0)
    assert d.loc.dtype == ctxgrad.float32 and d.scale.dtype == ctxgrad.float32
    assert d.sample().dtype == ctxgrad.float32
    assert cd.Gamma(ctxgrad.tensor([1.0]), 1.0).rsample().dtype == ctxgrad.float32
    assert cd.Categorical(ctxgrad.tensor([0.5, 0.5])).sample().dtype == ctxgrad.int64
    assert cd.Normal(0.0, 1.0).loc.dtype == ctxgrad.float32


def test_enumerate_support_matches_torch() -> None:
    for make in (
        lambda m, t: m.Bernoulli(t([0.2, 0.7])),
        lambda m, t: m.Categorical(t([[0.2, 0.8, 0.0], [0.1, 0.1, 0.8]])),
        lambda m, t: m.OneHotCategorical(t([0.2, 0.8])),
    ):
        for expand in (True, False):
            got = make(cd, ctxgrad.tensor).enumerate_support(expand)
            expected = make(td, torch.tensor).enumerate_support(expand)
            assert got.tolist() == expected.tolist()
            assert tuple(got.shape) == tuple(expected.shape)


def test_covariance_matrix_gradients_go_through_linalg_cholesky() -> None:
    """MultivariateNormal(covariance_matrix=) factors with ctxgrad.linalg.cholesky: its
    log_prob differentiates twice in the covariance, and a failed factor names linalg.cholesky."""
    from ctxgrad.autograd import gradcheck, gradgradcheck

    a = ctxgrad.tensor(_spd(3), dtype=ctxgrad.float64, requires_grad=True)
    x = ctxgrad.tensor([0.3, -0.2, 0.5], dtype=ctxgrad.float64)
    log_prob = lambda m: cd.MultivariateNormal(ctxgrad.zeros(3, dtype=ctxgrad.float64), (m + m.mT) / 2).log_prob(x)  # noqa: E731
    assert gradcheck(log_prob, (a,))
    assert gradgradcheck(log_prob, (a,))
    with pytest.raises(RuntimeError, match=r"linalg\.cholesky: .* not positive-definite"):
        cd.MultivariateNormal(ctxgrad.zeros(2), ctxgrad.tensor([[1.0, 2.0], [2.0, 1.0]]), validate_args=False)


def test_a_subclass_with_its_own_init_must_define_expand_as_in_torch() -> None:
    def make(m: Any, t: Any) -> Any:
        class Shifted(m.Normal):
            def __init__(self, loc: Any) -> None:
                super().__init__(loc + 1, 1.0)

        return Shifted(t([0.0, 1.0]))

    with pytest.raises(NotImplementedError) as expected:
        make(td, torch.tensor).expand((3, 2))
    with pytest.raises(NotImplementedError) as got:
        make(cd, ctxgrad.tensor).expand((3, 2))
    assert str(got.value) == str(expected.value)
    d = make(cd, ctxgrad.tensor)
    assert d.log_prob(ctxgrad.tensor([1.0, 2.0])).tolist() == pytest.approx([-0.9189385, -0.9189385])


@pytest.mark.torch_names("torch.distributions.utils.lazy_property", "torch.distributions.utils")
def test_a_lazy_property_first_computed_under_no_grad_keeps_its_graph() -> None:
    def check_lazy_property(m: Any, lib: Any) -> None:  # a custom distribution's lazy_property, as torch's
        calls = []

        class Scaled:
            def __init__(self, x: Any) -> None:
                self.x = x

            @m.utils.lazy_property
            def doubled(self) -> Any:
                calls.append(1)
                return self.x * 2

        x = lib.tensor([1.0, 2.0], requires_grad=True)
        d = Scaled(x)
        with lib.no_grad():
            first = d.doubled
        assert first.requires_grad and d.doubled is first and calls == [1]
        assert isinstance(Scaled.doubled, m.utils.lazy_property)

    check_lazy_property(cd, ctxgrad)
    check_lazy_property(td, torch)
    logits = ctxgrad.tensor([0.3, -1.2], requires_grad=True)
    d = cd.Bernoulli(logits=logits)
    with ctxgrad.no_grad():
        assert d.probs.requires_grad  # computed and stored here, with its graph
    d.entropy().sum().backward()
    tl = torch.tensor([0.3, -1.2], requires_grad=True)
    td.Bernoulli(logits=tl).entropy().sum().backward()
    np.testing.assert_allclose(logits.grad.numpy(), tl.grad.numpy(), rtol=1e-6)


_SMOOTH = ("normal", "gamma", "beta", "dirichlet", "mvn_tril", "relaxed_onehot", "categorical_logits")


@pytest.mark.parametrize("case", [c for c in CASES if c[0] in _SMOOTH], ids=lambda c: c[0])
def test_log_prob_double_backward_and_forward_mode(case: Any) -> None:
    from ctxgrad.autograd import gradcheck, gradgradcheck

    _, make, params, value, _ = case
    v = ctxgrad.tensor(value) if "categorical" in case[0] else ctxgrad.tensor(value, dtype=ctxgrad.float64)
    inputs = tuple(ctxgrad.tensor(p, dtype=ctxgrad.float64, requires_grad=True) for p in params)

    def log_prob(*ps: Any) -> Any:
        if case[0] == "mvn_tril":  # perturbing the upper triangle would leave the support
            ps = (ps[0], ps[1].tril())
        return make(cd, list(ps)).log_prob(v)

    assert gradcheck(log_prob, inputs, check_forward_ad=True)
    assert gradgradcheck(log_prob, inputs)


def test_gamma_rsample_forward_mode_matches_backward() -> None:
    from ctxgrad.autograd import forward_ad

    alpha = np.array([0.3, 1.5, 7.0])
    a = ctxgrad.tensor(alpha, dtype=ctxgrad.float64, requires_grad=True)
    ctxgrad.manual_seed(5)
    x = cd.Gamma(a, 1.0).rsample()
    x.sum().backward()
    with forward_ad.dual_level():
        dual = forward_ad.make_dual(
            ctxgrad.tensor(alpha, dtype=ctxgrad.float64), ctxgrad.ones(3, dtype=ctxgrad.float64)
        )
        ctxgrad.manual_seed(5)
        out = cd.Gamma(dual, 1.0).rsample()
        primal, tangent = forward_ad.unpack_dual(out)
    np.testing.assert_allclose(primal.numpy(), x.detach().numpy())
    np.testing.assert_allclose(tangent.numpy(), a.grad.numpy())
    np.testing.assert_allclose(a.grad.numpy(), gamma_sample_grad(alpha, x.detach().numpy()))


@pytest.mark.parametrize("randomness", ["error", "same", "different"])
def test_the_gamma_draw_under_vmap_follows_torchs_randomness_modes(randomness: str) -> None:
    """StandardGamma's batching rule: one draw for the batch under "different", torch's errors
    for "error" and for "same" with batched shapes."""
    from ctxgrad.distributions._functions import StandardGamma

    alpha = [[1.0, 2.0], [3.0, 4.0]]
    outcomes = []
    for m, draw in ((ctxgrad, StandardGamma.apply), (torch, torch._standard_gamma)):
        try:
            outcomes.append(tuple(m.func.vmap(draw, randomness=randomness)(m.tensor(alpha)).shape))
        except RuntimeError as e:
            outcomes.append(str(e))
    assert outcomes[0] == outcomes[1]
    if randomness == "different":
        a = ctxgrad.tensor(alpha, dtype=ctxgrad.float64, requires_grad=True)
        ctxgrad.manual_seed(3)
        batched = ctxgrad.func.vmap(StandardGamma.apply, randomness="different")(a)
        ctxgrad.manual_seed(3)
        direct = StandardGamma.apply(a)
        assert np.array_equal(batched.detach().numpy(), direct.detach().numpy())


@pytest.mark.torch_names("torch.distributions.constraints.dependent_property")
def test_a_dependent_property_is_a_placeholder_constraint_as_torchs() -> None:
    def outcome(m: Any) -> tuple[Any, ...]:
        class Counts(m.Distribution):
            @m.constraints.dependent_property(is_discrete=True, event_dim=0)
            def support(self) -> Any:
                return m.constraints.integer_interval(0, 3)

        placeholder = Counts.support
        with pytest.raises(ValueError) as info:
            placeholder.check(1)
        return (
            placeholder.is_discrete,
            placeholder.event_dim,
            m.constraints.is_dependent(placeholder),
            repr(placeholder),
            repr(Counts(validate_args=False).support),
            str(info.value),
        )

    outcomes = [outcome(cd), outcome(td)]
    assert outcomes[0] == outcomes[1]


@pytest.mark.torch_names("torch.distributions.kl.register_kl", "torch.distributions.kl.kl_divergence")
def test_a_registered_kl_is_used_for_subclasses_as_in_torch() -> None:
    results = []
    for m, lib in ((cd, ctxgrad), (td, torch)):

        class Shifted(m.Normal):
            pass

        @m.kl.register_kl(Shifted, m.Normal)
        def _kl_shifted(p: Any, q: Any) -> Any:
            return (p.loc - q.loc).abs()

        loc = lib.tensor([0.5, -2.0], requires_grad=True)
        kl = m.kl.kl_divergence(Shifted(loc, 1.0), m.Normal(lib.tensor([1.0, 1.0]), 1.0))
        kl.sum().backward()
        results.append((kl.tolist(), loc.grad.tolist()))
        registry = m.kl._KL_REGISTRY
        del registry[Shifted, m.Normal]
        m.kl._KL_MEMOIZE.clear()
    assert results[0] == results[1]

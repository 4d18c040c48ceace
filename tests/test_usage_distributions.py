"""The distributions API that public torch code uses most (torch-usage.tsv), on ctxgrad and on
torch: log-densities and their gradients, KL divergences, constraints and the helpers code
subclasses ``Distribution`` with."""

from __future__ import annotations

import importlib
from typing import Any

import pytest
from _usage import check, grads, random_like_torch, torch_names


def sub(m: Any, path: str) -> Any:
    """``m.distributions.<path>``, imported as ``import torch.distributions.kl``."""
    return importlib.import_module(f"{m.__name__}.distributions.{path}")


LOG_PROBS = [
    pytest.param(
        lambda m, p: m.distributions.MultivariateNormal(p[:2], scale_tril=m.diag(p[2:].exp())),
        [0.3, -0.2],
        marks=torch_names("torch.distributions.MultivariateNormal"),
        id="MultivariateNormal",
    ),
    pytest.param(
        lambda m, p: m.distributions.Bernoulli(logits=p[:2]),
        [1.0, 0.0],
        marks=torch_names("torch.distributions.Bernoulli"),
        id="Bernoulli",
    ),
    pytest.param(
        lambda m, p: m.distributions.Beta(p[:2].exp(), p[2:].exp()),
        [0.3, 0.8],
        marks=torch_names("torch.distributions.Beta"),
        id="Beta",
    ),
    pytest.param(
        lambda m, p: m.distributions.Uniform(p[:2] - 3, p[2:] + 3),
        [0.1, -0.4],
        marks=torch_names("torch.distributions.Uniform"),
        id="Uniform",
    ),
    pytest.param(
        lambda m, p: m.distributions.Gamma(p[:2].exp(), p[2:].exp()),
        [0.7, 2.0],
        marks=torch_names("torch.distributions.Gamma"),
        id="Gamma",
    ),
    pytest.param(
        lambda m, p: m.distributions.Laplace(p[:2], p[2:].exp()),
        [0.7, -2.0],
        marks=torch_names("torch.distributions.Laplace"),
        id="Laplace",
    ),
    pytest.param(
        lambda m, p: m.distributions.Exponential(p[:2].exp()),
        [0.7, 2.0],
        marks=torch_names("torch.distributions.Exponential"),
        id="Exponential",
    ),
    pytest.param(
        lambda m, p: m.distributions.OneHotCategorical(logits=p),
        [0.0, 0.0, 1.0, 0.0],
        marks=torch_names("torch.distributions.OneHotCategorical"),
        id="OneHotCategorical",
    ),
    pytest.param(
        lambda m, p: m.distributions.Independent(m.distributions.Normal(p[:2], p[2:].exp()), 1),
        [0.3, 1.0],
        marks=torch_names("torch.distributions.Independent"),
        id="Independent",
    ),
]


@pytest.mark.parametrize(("make", "value"), LOG_PROBS)
def test_log_prob_and_entropy_and_gradients_match_torch(torch: Any, make: Any, value: list[float]) -> None:
    params = [0.2, -0.5, 0.1, 0.4]

    def run(m: Any) -> Any:
        def f(p: Any) -> Any:
            d = make(m, p)
            return m.stack([d.log_prob(m.tensor(value, dtype=m.float64)).sum(), d.entropy().sum(), d.mean.sum()])

        return grads(m, f, params)

    check(run, torch, 1e-7, 1e-9)


@torch_names("torch.distributions.kl_divergence", "torch.distributions.kl", "torch.distributions.kl.kl_divergence")
def test_kl_divergence_matches_torch(torch: Any) -> None:
    def run(m: Any) -> Any:
        def f(p: Any) -> Any:
            a = m.distributions.Normal(p[:2], p[2:].exp())
            b = m.distributions.Normal(m.zeros(2, dtype=m.float64), m.ones(2, dtype=m.float64))
            c = m.distributions.Categorical(logits=p)
            return m.stack([
                m.distributions.kl_divergence(a, b).sum(),
                sub(m, "kl").kl_divergence(c, m.distributions.Categorical(logits=p.flip(0))),
            ])  # fmt: skip

        return grads(m, f, [0.2, -0.5, 0.1, 0.4])

    check(run, torch, 1e-7, 1e-9)


@torch_names(
    "torch.distributions.Distribution", "torch.distributions.kl.register_kl", "torch.distributions.utils",
    "torch.distributions.utils.broadcast_all", "torch.distributions.utils.lazy_property",
    "torch.distributions.constraints", "torch.distributions.constraints.real",
    "torch.distributions.constraints.positive", "torch.distributions.constraints.dependent_property",
)  # fmt: skip
def test_a_subclassed_distribution_matches_torch(torch: Any) -> None:
    def run(m: Any) -> Any:
        constraints, utils = m.distributions.constraints, sub(m, "utils")

        class Shifted(m.distributions.Distribution):
            arg_constraints = {"loc": constraints.real, "scale": constraints.positive}

            def __init__(self, loc: Any, scale: Any) -> None:
                self.loc, self.scale = utils.broadcast_all(loc, scale)
                super().__init__(self.loc.shape, validate_args=True)

            @constraints.dependent_property
            def support(self) -> Any:
                return constraints.greater_than(self.loc)

            @utils.lazy_property
            def width(self) -> Any:
                return self.scale * 2

            def log_prob(self, value: Any) -> Any:
                return -(value - self.loc) / self.scale - self.scale.log()

        @sub(m, "kl").register_kl(Shifted, Shifted)
        def _kl(p: Any, q: Any) -> Any:
            return (p.loc - q.loc).abs()

        p = Shifted(m.tensor([0.0, 1.0]), 2.0)
        q = Shifted(m.tensor(0.5), m.tensor([1.0, 3.0]))
        return p.log_prob(m.tensor([1.0, 2.0])), p.width, p.batch_shape, m.distributions.kl_divergence(p, q)

    check(run, torch)


CONSTRAINTS = [
    pytest.param(
        lambda c, m: c.real.check(m.tensor([0.0, m.inf, m.nan])),
        marks=torch_names("torch.distributions.constraints.real"),
        id="real",
    ),
    pytest.param(
        lambda c, m: c.positive.check(m.tensor([-1.0, 0.0, 2.0])),
        marks=torch_names("torch.distributions.constraints.positive"),
        id="positive",
    ),
    pytest.param(
        lambda c, m: c.interval(0.0, 1.0).check(m.tensor([-0.5, 0.0, 1.0, 1.5])),
        marks=torch_names("torch.distributions.constraints.interval"),
        id="interval",
    ),
    pytest.param(
        lambda c, m: c.unit_interval.check(m.tensor([0.0, 0.5, 1.1])),
        marks=torch_names("torch.distributions.constraints.unit_interval"),
        id="unit_interval",
    ),
    pytest.param(
        lambda c, m: c.greater_than(1.0).check(m.tensor([1.0, 2.0])),
        marks=torch_names("torch.distributions.constraints.greater_than"),
        id="greater_than",
    ),
    pytest.param(
        lambda c, m: c.less_than(1.0).check(m.tensor([0.0, 1.0])),
        marks=torch_names("torch.distributions.constraints.less_than"),
        id="less_than",
    ),
    pytest.param(
        lambda c, m: c.simplex.check(m.tensor([[0.2, 0.8], [0.5, 0.6]])),
        marks=torch_names("torch.distributions.constraints.simplex"),
        id="simplex",
    ),
    pytest.param(
        lambda c, m: c.real_vector.check(m.tensor([[0.0, 1.0], [m.nan, 0.0]])),
        marks=torch_names("torch.distributions.constraints.real_vector"),
        id="real_vector",
    ),
    pytest.param(
        lambda c, m: c.independent(c.positive, 1).check(m.tensor([[1.0, 2.0], [1.0, -1.0]])),
        marks=torch_names("torch.distributions.constraints.independent"),
        id="independent",
    ),
    pytest.param(
        lambda c, m: c.lower_cholesky.check(m.tensor([[[1.0, 0.0], [2.0, 1.0]], [[1.0, 1.0], [0.0, 1.0]]])),
        marks=torch_names("torch.distributions.constraints.lower_cholesky"),
        id="lower_cholesky",
    ),
    pytest.param(
        lambda c, m: c.positive_definite.check(m.tensor([[[2.0, 0.5], [0.5, 1.0]], [[1.0, 2.0], [2.0, 1.0]]])),
        marks=torch_names("torch.distributions.constraints.positive_definite"),
        id="positive_definite",
    ),
    pytest.param(
        lambda c, m: isinstance(c.positive, c.Constraint) and c.positive.is_discrete,
        marks=torch_names("torch.distributions.constraints.Constraint"),
        id="Constraint",
    ),
]


@pytest.mark.parametrize("f", CONSTRAINTS)
def test_constraints_check_as_torch(torch: Any, f: Any) -> None:
    check(lambda m: f(m.distributions.constraints, m), torch)


@torch_names("torch.distributions.MultivariateNormal", "torch.distributions.Beta")
def test_samples_have_torchs_shape_and_dtype(torch: Any) -> None:
    random_like_torch(lambda m: m.distributions.MultivariateNormal(m.zeros(2), m.eye(2)).sample((3,)), torch)
    random_like_torch(lambda m: m.distributions.Beta(m.ones(2), m.ones(2)).rsample(), torch)

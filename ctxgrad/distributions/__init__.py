"""``ctxgrad.distributions``: probability distributions with torch's API
(``torch.distributions``), written in ctxgrad ops so that everything differentiates.

Each distribution has a ``batch_shape`` and an ``event_shape``, ``sample`` and (where the
family allows it) ``rsample``, the reparameterised sample the pathwise gradient estimator
needs; ``log_prob``, ``entropy``, ``mean``, ``mode``, ``variance``, ``stddev`` and, where torch
has them, ``cdf`` and ``icdf``.  Parameters are checked against ``arg_constraints`` (objects of
:mod:`ctxgrad.distributions.constraints`) unless ``validate_args=False``.
``kl_divergence(p, q)`` has the closed forms of the pairs of one family.

Samples come from ctxgrad's generator (``ctxgrad.manual_seed``), so the same seed gives other
numbers than torch's; the formulas, and so ``log_prob`` and its gradients, are torch's.

>>> import ctxgrad
>>> from ctxgrad.distributions import Normal
>>> loc = ctxgrad.tensor([0.0, 1.0], requires_grad=True)
>>> d = Normal(loc, 1.0)
>>> _ = ctxgrad.manual_seed(0)
>>> x = d.rsample((1000,))  # differentiable with respect to loc
>>> x.shape
ctxgrad.Size([1000, 2])
>>> x.mean().backward()
>>> loc.grad
tensor([0.5000, 0.5000])
"""

from __future__ import annotations

# torch's submodule paths (``torch.distributions.normal.Normal``, ...), imported so that
# ``ctxgrad.distributions.normal`` works after ``import ctxgrad.distributions`` as in torch.
from ctxgrad.distributions import bernoulli as bernoulli
from ctxgrad.distributions import beta as beta
from ctxgrad.distributions import categorical as categorical
from ctxgrad.distributions import constraints, transforms
from ctxgrad.distributions import dirichlet as dirichlet
from ctxgrad.distributions import exponential as exponential
from ctxgrad.distributions import gamma as gamma
from ctxgrad.distributions import gumbel as gumbel
from ctxgrad.distributions import laplace as laplace
from ctxgrad.distributions import multivariate_normal as multivariate_normal
from ctxgrad.distributions import normal as normal
from ctxgrad.distributions import one_hot_categorical as one_hot_categorical
from ctxgrad.distributions import relaxed_bernoulli as relaxed_bernoulli
from ctxgrad.distributions import relaxed_categorical as relaxed_categorical
from ctxgrad.distributions import uniform as uniform
from ctxgrad.distributions import utils as utils
from ctxgrad.distributions.binomial import Binomial
from ctxgrad.distributions.cauchy import Cauchy
from ctxgrad.distributions.chi2 import Chi2
from ctxgrad.distributions.constraint_registry import biject_to, transform_to
from ctxgrad.distributions.continuous import Beta, Exponential, Gamma, Gumbel, Laplace, Normal, Uniform
from ctxgrad.distributions.discrete import Bernoulli, Categorical, OneHotCategorical
from ctxgrad.distributions.distribution import Distribution
from ctxgrad.distributions.half_cauchy import HalfCauchy
from ctxgrad.distributions.half_normal import HalfNormal
from ctxgrad.distributions.independent import Independent
from ctxgrad.distributions.kl import kl_divergence, register_kl
from ctxgrad.distributions.lkj_cholesky import LKJCholesky
from ctxgrad.distributions.log_normal import LogNormal
from ctxgrad.distributions.mixture_same_family import MixtureSameFamily
from ctxgrad.distributions.multinomial import Multinomial
from ctxgrad.distributions.multivariate import Dirichlet, MultivariateNormal
from ctxgrad.distributions.poisson import Poisson
from ctxgrad.distributions.relaxed import RelaxedBernoulli, RelaxedOneHotCategorical
from ctxgrad.distributions.studentT import StudentT
from ctxgrad.distributions.transformed_distribution import TransformedDistribution
from ctxgrad.distributions.transforms import (
    AbsTransform,
    AffineTransform,
    CatTransform,
    ComposeTransform,
    CorrCholeskyTransform,
    CumulativeDistributionTransform,
    ExpTransform,
    IndependentTransform,
    LowerCholeskyTransform,
    PositiveDefiniteTransform,
    PowerTransform,
    ReshapeTransform,
    SigmoidTransform,
    SoftmaxTransform,
    SoftplusTransform,
    StackTransform,
    StickBreakingTransform,
    TanhTransform,
    Transform,
    identity_transform,
)

__all__ = [
    "AbsTransform",
    "AffineTransform",
    "Bernoulli",
    "Beta",
    "Binomial",
    "CatTransform",
    "Categorical",
    "Cauchy",
    "Chi2",
    "ComposeTransform",
    "CorrCholeskyTransform",
    "CumulativeDistributionTransform",
    "Dirichlet",
    "Distribution",
    "ExpTransform",
    "Exponential",
    "Gamma",
    "Gumbel",
    "HalfCauchy",
    "HalfNormal",
    "Independent",
    "IndependentTransform",
    "LKJCholesky",
    "Laplace",
    "LogNormal",
    "LowerCholeskyTransform",
    "MixtureSameFamily",
    "Multinomial",
    "MultivariateNormal",
    "Normal",
    "OneHotCategorical",
    "Poisson",
    "PositiveDefiniteTransform",
    "PowerTransform",
    "RelaxedBernoulli",
    "RelaxedOneHotCategorical",
    "ReshapeTransform",
    "SigmoidTransform",
    "SoftmaxTransform",
    "SoftplusTransform",
    "StackTransform",
    "StickBreakingTransform",
    "StudentT",
    "TanhTransform",
    "Transform",
    "TransformedDistribution",
    "Uniform",
    "biject_to",
    "constraints",
    "identity_transform",
    "kl_divergence",
    "register_kl",
    "transform_to",
    "transforms",
]

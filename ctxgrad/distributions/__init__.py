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

from ctxgrad.distributions import constraints
from ctxgrad.distributions.continuous import Beta, Exponential, Gamma, Gumbel, Laplace, Normal, Uniform
from ctxgrad.distributions.discrete import Bernoulli, Categorical, OneHotCategorical
from ctxgrad.distributions.distribution import Distribution
from ctxgrad.distributions.independent import Independent
from ctxgrad.distributions.kl import kl_divergence, register_kl
from ctxgrad.distributions.multivariate import Dirichlet, MultivariateNormal
from ctxgrad.distributions.relaxed import RelaxedBernoulli, RelaxedOneHotCategorical

__all__ = [
    "Bernoulli",
    "Beta",
    "Categorical",
    "Dirichlet",
    "Distribution",
    "Exponential",
    "Gamma",
    "Gumbel",
    "Independent",
    "Laplace",
    "MultivariateNormal",
    "Normal",
    "OneHotCategorical",
    "RelaxedBernoulli",
    "RelaxedOneHotCategorical",
    "Uniform",
    "constraints",
    "kl_divergence",
    "register_kl",
]

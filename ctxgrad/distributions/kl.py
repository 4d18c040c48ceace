"""``kl_divergence(p, q)``, the Kullback-Leibler divergence ``KL(p || q)``, looked up in a
registry of closed forms by the pair of types (``register_kl`` adds one).

>>> import ctxgrad
>>> from ctxgrad.distributions import Normal, kl_divergence
>>> kl_divergence(Normal(0.0, 1.0), Normal(1.0, 2.0))
tensor(0.4431)
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

from ctxgrad._tensor import Tensor
from ctxgrad.distributions.binomial import Binomial
from ctxgrad.distributions.cauchy import Cauchy
from ctxgrad.distributions.continuous import Beta, Exponential, Gamma, Gumbel, Laplace, Normal, Uniform
from ctxgrad.distributions.discrete import Bernoulli, Categorical, OneHotCategorical
from ctxgrad.distributions.distribution import Distribution
from ctxgrad.distributions.half_normal import HalfNormal
from ctxgrad.distributions.independent import Independent, _sum_rightmost
from ctxgrad.distributions.multivariate import Dirichlet, MultivariateNormal, _batch_mahalanobis
from ctxgrad.distributions.poisson import Poisson
from ctxgrad.distributions.transformed_distribution import TransformedDistribution
from ctxgrad.linalg import solve
from ctxgrad.nn import functional as F
from ctxgrad.ops.pointwise import where
from ctxgrad.ops.shape import broadcast_shapes

__all__ = ["kl_divergence", "register_kl"]

KLFunction = Callable[[Any, Any], Tensor]

_KL_REGISTRY: dict[tuple[type, type], KLFunction] = {}
_KL_MEMOIZE: dict[tuple[type, type], KLFunction] = {}


def register_kl(type_p: type, type_q: type) -> Callable[[KLFunction], KLFunction]:
    """A decorator that registers ``fn(p, q)`` as the KL divergence of a ``type_p`` from a
    ``type_q`` (subclasses included; the most specific registration wins).

    >>> from ctxgrad.distributions import Normal, register_kl
    >>> class MyNormal(Normal):
    ...     pass
    >>> @register_kl(MyNormal, MyNormal)
    ... def _kl_mine(p, q):
    ...     return (p.loc - q.loc).abs()
    """
    if not (isinstance(type_p, type) and issubclass(type_p, Distribution)):
        raise TypeError(f"Expected type_p to be a Distribution subclass but got {type_p}")
    if not (isinstance(type_q, type) and issubclass(type_q, Distribution)):
        raise TypeError(f"Expected type_q to be a Distribution subclass but got {type_q}")

    def decorator(fun: KLFunction) -> KLFunction:
        _KL_REGISTRY[type_p, type_q] = fun
        _KL_MEMOIZE.clear()
        return fun

    return decorator


def _dispatch_kl(type_p: type, type_q: type) -> KLFunction | None:
    """The registered function of the most specific pair of superclasses (by position in the
    two MROs); a warning when the orders of ``p`` and ``q`` disagree, as torch's."""
    matches = [(sp, sq) for sp, sq in _KL_REGISTRY if issubclass(type_p, sp) and issubclass(type_q, sq)]
    if not matches:
        return None
    mro_p, mro_q = type_p.__mro__, type_q.__mro__
    left = min(matches, key=lambda m: (mro_p.index(m[0]), mro_q.index(m[1])))
    right = min(matches, key=lambda m: (mro_q.index(m[1]), mro_p.index(m[0])))
    if left != right:
        warnings.warn(
            f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). "
            f"Please register_kl({left[0].__name__}, {right[1].__name__})",
            RuntimeWarning,
            stacklevel=3,
        )
    return _KL_REGISTRY[left]


def kl_divergence(p: Distribution, q: Distribution) -> Tensor:
    """``KL(p || q) = E_p[log p(x) - log q(x)]``, over the batch shape.

    Raises:
        NotImplementedError: No closed form is registered for the two types.
    """
    key = (type(p), type(q))
    fun = _KL_MEMOIZE.get(key)
    if fun is None:
        fun = _dispatch_kl(*key)
        if fun is None:
            raise NotImplementedError(
                f"No KL(p || q) is implemented for p type {type(p).__name__} and q type {type(q).__name__}"
            )
        _KL_MEMOIZE[key] = fun
    return fun(p, q)


def _inf_where(mask: Tensor, value: Tensor) -> Tensor:
    return where(mask, math.inf, value)  # type: ignore[no-any-return]


@register_kl(Normal, Normal)
def _kl_normal_normal(p: Normal, q: Normal) -> Tensor:
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    out: Tensor = 0.5 * (var_ratio + t1 - 1 - var_ratio.log())
    return out


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p: Bernoulli, q: Bernoulli) -> Tensor:
    t1 = p.probs * (F.softplus(-q.logits) - F.softplus(-p.logits))
    t1 = where(p.probs == 0, 0.0, _inf_where(q.probs == 0, t1))
    t2 = (1 - p.probs) * (F.softplus(q.logits) - F.softplus(p.logits))
    t2 = where(p.probs == 1, 0.0, _inf_where(q.probs == 1, t2))
    out: Tensor = t1 + t2
    return out


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p: Categorical, q: Categorical) -> Tensor:
    t = p.probs * (p.logits - q.logits)
    t = where((p.probs == 0).expand_as(t), 0.0, _inf_where((q.probs == 0).expand_as(t), t))
    return t.sum(-1)  # type: ignore[no-any-return]


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p: OneHotCategorical, q: OneHotCategorical) -> Tensor:
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Beta, Beta)
def _kl_beta_beta(p: Beta, q: Beta) -> Tensor:
    sum_p = p.concentration1 + p.concentration0
    sum_q = q.concentration1 + q.concentration0
    t1 = q.concentration1.lgamma() + q.concentration0.lgamma() + sum_p.lgamma()
    t2 = p.concentration1.lgamma() + p.concentration0.lgamma() + sum_q.lgamma()
    t3 = (p.concentration1 - q.concentration1) * p.concentration1.digamma()
    t4 = (p.concentration0 - q.concentration0) * p.concentration0.digamma()
    t5 = (sum_q - sum_p) * sum_p.digamma()
    out: Tensor = t1 - t2 + t3 + t4 + t5
    return out


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p: Gamma, q: Gamma) -> Tensor:
    t1 = q.concentration * (p.rate / q.rate).log()
    t2 = q.concentration.lgamma() - p.concentration.lgamma()
    t3 = (p.concentration - q.concentration) * p.concentration.digamma()
    t4 = (q.rate - p.rate) * (p.concentration / p.rate)
    out: Tensor = t1 + t2 + t3 + t4
    return out


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p: Dirichlet, q: Dirichlet) -> Tensor:
    sum_p = p.concentration.sum(-1)
    sum_q = q.concentration.sum(-1)
    t1 = sum_p.lgamma() - sum_q.lgamma()
    t2 = (p.concentration.lgamma() - q.concentration.lgamma()).sum(-1)
    t3 = p.concentration - q.concentration
    t4 = p.concentration.digamma() - sum_p.digamma().unsqueeze(-1)
    out: Tensor = t1 - t2 + (t3 * t4).sum(-1)
    return out


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p: Exponential, q: Exponential) -> Tensor:
    rate_ratio = q.rate / p.rate
    out: Tensor = -rate_ratio.log() + rate_ratio - 1
    return out


# The Euler-Mascheroni constant, the mean of the standard Gumbel distribution.
_EULER_GAMMA = 0.57721566490153286060


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p: Gumbel, q: Gumbel) -> Tensor:
    scale_ratio = p.scale / q.scale
    q_loc, p_loc = q.loc / q.scale, p.loc / q.scale
    t1 = -scale_ratio.log() - q_loc + p_loc
    t2 = scale_ratio * _EULER_GAMMA
    t3 = (q_loc + (1 + scale_ratio).lgamma() - p_loc).exp()
    out: Tensor = t1 + t2 + t3 - (1 + _EULER_GAMMA)
    return out


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p: Laplace, q: Laplace) -> Tensor:
    scale_ratio = p.scale / q.scale
    loc_abs_diff = (p.loc - q.loc).abs()
    t1 = -scale_ratio.log()
    t2 = loc_abs_diff / q.scale
    t3 = scale_ratio * (-loc_abs_diff / p.scale).exp()
    out: Tensor = t1 + t2 + t3 - 1
    return out


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p: Uniform, q: Uniform) -> Tensor:
    result = ((q.high - q.low) / (p.high - p.low)).log()
    return _inf_where((q.low > p.low) | (q.high < p.high), result)


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_mvn_mvn(p: MultivariateNormal, q: MultivariateNormal) -> Tensor:
    if p.event_shape != q.event_shape:
        raise ValueError(
            "KL-divergence between two Multivariate Normals with different event shapes cannot be computed"
        )
    p_L, q_L = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    half_term1 = q_L.diagonal(dim1=-2, dim2=-1).log().sum(-1) - p_L.diagonal(dim1=-2, dim2=-1).log().sum(-1)
    n = p.event_shape[0]
    batch = broadcast_shapes(q_L.shape[:-2], p_L.shape[:-2])
    X = solve(q_L.tril().expand(batch + (n, n)), p_L.expand(batch + (n, n)))
    term2 = X.pow(2).sum((-2, -1))
    term3 = _batch_mahalanobis(q_L, q.loc - p.loc)
    out: Tensor = half_term1 + 0.5 * (term2 + term3 - n)
    return out


@register_kl(Independent, Independent)
def _kl_independent_independent(p: Independent, q: Independent) -> Tensor:
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    result = kl_divergence(p.base_dist, q.base_dist)
    return _sum_rightmost(result, p.reinterpreted_batch_ndims)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p: TransformedDistribution, q: TransformedDistribution) -> Tensor:
    # the same bijections on both sides leave the divergence of the bases unchanged
    if p.transforms != q.transforms:
        raise NotImplementedError
    if p.event_shape != q.event_shape:
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p: HalfNormal, q: HalfNormal) -> Tensor:
    return _kl_normal_normal(p.base_dist, q.base_dist)


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p: Cauchy, q: Cauchy) -> Tensor:
    # Chyzak and Nielsen (2019), arXiv:1905.10965
    t1 = ((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log()
    t2 = (4 * p.scale * q.scale).log()
    out: Tensor = t1 - t2
    return out


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p: Poisson, q: Poisson) -> Tensor:
    out: Tensor = p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)
    return out


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p: Binomial, q: Binomial) -> Tensor:
    if bool((p.total_count < q.total_count).any()):
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count is not implemented")
    kl = p.total_count * (p.probs * (p.logits - q.logits) + (-p.probs).log1p() - (-q.probs).log1p())
    # more trials under p than under q: p reaches counts q cannot
    return _inf_where(p.total_count > q.total_count, kl)

"""The univariate continuous families: ``Normal``, ``Uniform``, ``Laplace``, ``Exponential``,
``Gumbel``, ``Gamma`` and ``Beta``.

Every formula is written in ctxgrad ops, so ``log_prob``, ``entropy``, ``cdf`` and the moments
differentiate with respect to the parameters; ``rsample`` draws noise from ctxgrad's generator
and moves it by the parameters (the reparameterisation trick), or, for ``Gamma`` and
``Beta``, differentiates the draw implicitly.

>>> import ctxgrad
>>> from ctxgrad.distributions import Normal
>>> loc = ctxgrad.tensor(0.5, requires_grad=True)
>>> d = Normal(loc, 2.0)
>>> d.log_prob(ctxgrad.tensor(1.0))
tensor(-1.6433, grad_fn=<SubBackward0>)
>>> d.log_prob(ctxgrad.tensor(1.0)).backward()
>>> loc.grad  # (x - loc) / scale ** 2
tensor(0.1250)
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from ctxgrad import _factories
from ctxgrad._made_functions import stack
from ctxgrad._tensor import Size, Tensor
from ctxgrad.distributions import constraints
from ctxgrad.distributions._functions import StandardGamma
from ctxgrad.distributions.distribution import Distribution, broadcast_all
from ctxgrad.distributions.multivariate import Dirichlet
from ctxgrad.ops.shape import broadcast_tensors

__all__ = ["Beta", "Exponential", "Gamma", "Gumbel", "Laplace", "Normal", "Uniform"]

_EULER_GAMMA = 0.57721566490153286060


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _batch(*values: Any) -> Size:
    """The batch shape of parameters given as tensors or numbers (``()`` if all are numbers)."""
    tensors = broadcast_all(*values)
    return Size() if all(_is_number(v) for v in values) else Size(tensors[0].shape)


def _eps(x: Tensor) -> float:
    return float(np.finfo(x.array.dtype).eps)


def _tiny(x: Tensor) -> float:
    return float(np.finfo(x.array.dtype).tiny)


class _LocScale(Distribution):
    """A location-scale family with parameters ``loc`` (real) and ``scale`` (positive)."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "loc": constraints.real,
        "scale": constraints.positive,
    }
    support: Any = constraints.real
    has_rsample = True

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(_batch(loc, scale), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Any:
        family = next(k for k in type(self).__mro__ if k.__init__ is _LocScale.__init__)  # type: ignore[misc]
        new = self._get_checked_instance(family, _instance)
        batch_shape = Size(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        return self._expanded(new, batch_shape)

    @property
    def mode(self) -> Tensor:
        return self.loc


class Normal(_LocScale):
    """The normal (Gaussian) distribution with mean ``loc`` and standard deviation ``scale``.

    Args:
        loc: The mean (a tensor or a number).
        scale: The standard deviation (positive).
        validate_args: Whether to check the arguments.
    """

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def stddev(self) -> Tensor:
        return self.scale

    @property
    def variance(self) -> Tensor:
        return self.stddev.pow(2)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        eps = _factories.randn(shape, dtype=self.loc.dtype)
        out: Tensor = self.loc + eps * self.scale
        return out

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale**2
        out: Tensor = -((value - self.loc) ** 2) / (2 * var) - self.scale.log() - math.log(math.sqrt(2 * math.pi))
        return out

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        out: Tensor = 0.5 * (1 + ((value - self.loc) * self.scale.reciprocal() / math.sqrt(2)).erf())
        return out

    def icdf(self, value: Tensor) -> Tensor:
        out: Tensor = self.loc + self.scale * (2 * value - 1).erfinv() * math.sqrt(2)
        return out

    def entropy(self) -> Tensor:
        out: Tensor = 0.5 + 0.5 * math.log(2 * math.pi) + self.scale.log()
        return out


class Laplace(_LocScale):
    """The Laplace distribution: density ``exp(-|x - loc| / scale) / (2 scale)``."""

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        out: Tensor = 2 * self.scale.pow(2)
        return out

    @property
    def stddev(self) -> Tensor:
        out: Tensor = (2**0.5) * self.scale
        return out

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        u = _factories.empty(shape, dtype=self.loc.dtype).uniform_(_eps(self.loc) - 1, 1)
        out: Tensor = self.loc - self.scale * u.sign() * (-u.abs()).log1p()
        return out

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        out: Tensor = -(2 * self.scale).log() - (value - self.loc).abs() / self.scale
        return out

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        out: Tensor = 0.5 - 0.5 * (value - self.loc).sign() * (-(value - self.loc).abs() / self.scale).expm1()
        return out

    def icdf(self, value: Tensor) -> Tensor:
        term = value - 0.5
        out: Tensor = self.loc - self.scale * term.sign() * (-2 * term.abs()).log1p()
        return out

    def entropy(self) -> Tensor:
        out: Tensor = 1 + (2 * self.scale).log()
        return out


class Gumbel(_LocScale):
    """The Gumbel (type I extreme value) distribution: ``loc - scale log(-log U)`` for a
    uniform ``U``."""

    @property
    def mean(self) -> Tensor:
        out: Tensor = self.loc + self.scale * _EULER_GAMMA
        return out

    @property
    def stddev(self) -> Tensor:
        out: Tensor = (math.pi / math.sqrt(6)) * self.scale
        return out

    @property
    def variance(self) -> Tensor:
        return self.stddev.pow(2)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        u = _factories.empty(shape, dtype=self.loc.dtype).uniform_(_tiny(self.loc), 1 - _eps(self.loc))
        return self.icdf(u)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        y = (self.loc - value) / self.scale
        out: Tensor = (y - y.exp()) - self.scale.log()
        return out

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        out: Tensor = (-(-(value - self.loc) / self.scale).exp()).exp()
        return out

    def icdf(self, value: Tensor) -> Tensor:
        out: Tensor = self.loc - self.scale * (-value.log()).log()
        return out

    def entropy(self) -> Tensor:
        out: Tensor = self.scale.log() + (1 + _EULER_GAMMA)
        return out


class Uniform(Distribution):
    """The continuous uniform distribution on the half-open interval ``[low, high)``."""

    has_rsample = True

    @property
    def arg_constraints(self) -> dict[str, constraints.Constraint]:  # type: ignore[override]
        """``low < high``: each bound is constrained by the other, so the dict is made per instance."""
        return {"low": constraints.less_than(self.high), "high": constraints.greater_than(self.low)}

    def __init__(self, low: Any, high: Any, validate_args: bool | None = None) -> None:
        self.low, self.high = broadcast_all(low, high)
        super().__init__(_batch(low, high), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Uniform:
        new = self._get_checked_instance(Uniform, _instance)
        batch_shape = Size(batch_shape)
        new.low = self.low.expand(batch_shape)
        new.high = self.high.expand(batch_shape)
        return self._expanded(new, batch_shape)  # type: ignore[no-any-return]

    @property
    def support(self) -> Any:
        return constraints.interval(self.low, self.high)

    @property
    def mean(self) -> Tensor:
        out: Tensor = (self.high + self.low) / 2
        return out

    @property
    def mode(self) -> Tensor:
        out: Tensor = math.nan * self.high
        return out

    @property
    def stddev(self) -> Tensor:
        out: Tensor = (self.high - self.low) / 12**0.5
        return out

    @property
    def variance(self) -> Tensor:
        out: Tensor = (self.high - self.low).pow(2) / 12
        return out

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        rand = _factories.rand(shape, dtype=self.low.dtype)
        out: Tensor = self.low + rand * (self.high - self.low)
        return out

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        lb = self.low.le(value).type_as(self.low)
        ub = self.high.gt(value).type_as(self.low)
        out: Tensor = (lb * ub).log() - (self.high - self.low).log()
        return out

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        result = (value - self.low) / (self.high - self.low)
        return result.clamp(min=0, max=1)

    def icdf(self, value: Tensor) -> Tensor:
        out: Tensor = value * (self.high - self.low) + self.low
        return out

    def entropy(self) -> Tensor:
        return (self.high - self.low).log()


class Exponential(Distribution):
    """The exponential distribution with rate ``rate``: density ``rate exp(-rate x)``, x >= 0."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, rate: Any, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(_batch(rate), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Exponential:
        new = self._get_checked_instance(Exponential, _instance)
        batch_shape = Size(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        return self._expanded(new, batch_shape)  # type: ignore[no-any-return]

    @property
    def mean(self) -> Tensor:
        return self.rate.reciprocal()

    @property
    def mode(self) -> Tensor:
        return _factories.zeros_like(self.rate)

    @property
    def stddev(self) -> Tensor:
        return self.rate.reciprocal()

    @property
    def variance(self) -> Tensor:
        return self.rate.pow(-2)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        out: Tensor = _factories.empty(shape, dtype=self.rate.dtype).exponential_() / self.rate
        return out

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        out: Tensor = self.rate.log() - self.rate * value
        return out

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        out: Tensor = 1 - (-self.rate * value).exp()
        return out

    def icdf(self, value: Tensor) -> Tensor:
        out: Tensor = -(-value).log1p() / self.rate
        return out

    def entropy(self) -> Tensor:
        out: Tensor = 1.0 - self.rate.log()
        return out


def _standard_gamma(concentration: Tensor) -> Tensor:
    return StandardGamma.apply(concentration)


class Gamma(Distribution):
    """The Gamma distribution with shape ``concentration`` and ``rate``: density
    ``rate^c x^(c-1) exp(-rate x) / Gamma(c)``.  ``rsample`` differentiates the draw
    implicitly (torch's ``_standard_gamma`` gradient)."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "concentration": constraints.positive,
        "rate": constraints.positive,
    }
    support = constraints.nonnegative
    has_rsample = True

    def __init__(self, concentration: Any, rate: Any, validate_args: bool | None = None) -> None:
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(_batch(concentration, rate), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Gamma:
        new = self._get_checked_instance(Gamma, _instance)
        batch_shape = Size(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        return self._expanded(new, batch_shape)  # type: ignore[no-any-return]

    @property
    def mean(self) -> Tensor:
        out: Tensor = self.concentration / self.rate
        return out

    @property
    def mode(self) -> Tensor:
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self) -> Tensor:
        out: Tensor = self.concentration / self.rate.pow(2)
        return out

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        out: Tensor = _standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        return out

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        c, r = self.concentration, self.rate
        out: Tensor = c.xlogy(r) + (c - 1).xlogy(value) - r * value - c.lgamma()
        return out

    def entropy(self) -> Tensor:
        c = self.concentration
        out: Tensor = c - self.rate.log() + c.lgamma() + (1.0 - c) * c.digamma()
        return out

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        a, x = broadcast_tensors(self.concentration, self.rate * value)
        out: Tensor = a.igamma(x)
        return out


class Beta(Distribution):
    """The Beta distribution on ``[0, 1]`` with concentrations ``concentration1`` (alpha) and
    ``concentration0`` (beta); as in torch, a two-category :class:`Dirichlet` underneath."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "concentration1": constraints.positive,
        "concentration0": constraints.positive,
    }
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1: Any, concentration0: Any, validate_args: bool | None = None) -> None:
        c1, c0 = broadcast_all(concentration1, concentration0)
        self._dirichlet = Dirichlet(stack([c1, c0], -1), validate_args=validate_args)
        super().__init__(self._dirichlet._batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Beta:
        new = self._get_checked_instance(Beta, _instance)
        batch_shape = Size(batch_shape)
        new._dirichlet = self._dirichlet.expand(batch_shape)
        return self._expanded(new, batch_shape)  # type: ignore[no-any-return]

    @property
    def concentration1(self) -> Tensor:
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self) -> Tensor:
        return self._dirichlet.concentration[..., 1]

    @property
    def mean(self) -> Tensor:
        out: Tensor = self.concentration1 / (self.concentration1 + self.concentration0)
        return out

    @property
    def mode(self) -> Tensor:
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self) -> Tensor:
        total = self.concentration1 + self.concentration0
        out: Tensor = self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))
        return out

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        heads_tails = stack([value, 1.0 - value], -1)
        return self._dirichlet.log_prob(heads_tails)

    def entropy(self) -> Tensor:
        return self._dirichlet.entropy()

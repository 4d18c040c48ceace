"""Continuous relaxations of the discrete families: ``RelaxedBernoulli`` (values in ``(0, 1)``)
and ``RelaxedOneHotCategorical`` (values on the simplex), the Concrete / Gumbel-softmax
distributions.  A sample is a differentiable function of the parameters and of uniform noise,
so ``rsample`` works; as ``temperature`` goes to 0 the samples approach the discrete ones.

Each is torch's transformed distribution written out: a logistic (or Gumbel-softmax) draw
``x`` in logit (or log) space pushed through ``sigmoid`` (or ``exp``), and ``log_prob`` is the
density of ``x`` minus the log of the transform's derivative.

>>> import ctxgrad
>>> from ctxgrad.distributions import RelaxedBernoulli
>>> d = RelaxedBernoulli(ctxgrad.tensor(0.5), probs=ctxgrad.tensor(0.3))
>>> d.log_prob(ctxgrad.tensor(0.2))
tensor(-0.2528)
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ctxgrad import _factories
from ctxgrad._tensor import Size, Tensor
from ctxgrad.distributions import constraints
from ctxgrad.distributions.discrete import Categorical, _BinaryParameters
from ctxgrad.distributions.distribution import Distribution, broadcast_all, clamp_probs
from ctxgrad.nn import functional as F

__all__ = ["ExpRelaxedCategorical", "LogitRelaxedBernoulli", "RelaxedBernoulli", "RelaxedOneHotCategorical"]


def _clipped_sigmoid(x: Tensor) -> Tensor:
    info = np.finfo(x.array.dtype)
    return x.sigmoid().clamp(min=float(info.tiny), max=1.0 - float(info.eps))


def _logit_clipped(y: Tensor) -> Tensor:
    info = np.finfo(y.array.dtype)
    y = y.clamp(min=float(info.tiny), max=1.0 - float(info.eps))
    out: Tensor = y.log() - (-y).log1p()
    return out


class LogitRelaxedBernoulli(_BinaryParameters):
    """The logit of a :class:`RelaxedBernoulli` sample: ``(logit(p) + logit(u)) / temperature``
    for a uniform ``u`` (a logistic distribution), with its density."""

    support = constraints.real
    has_rsample = True

    def __init__(
        self, temperature: Any, probs: Any = None, logits: Any = None, validate_args: bool | None = None
    ) -> None:
        self.temperature = temperature if isinstance(temperature, Tensor) else broadcast_all(temperature)[0]
        batch_shape = self._set_parameters(probs, logits)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> LogitRelaxedBernoulli:
        new = self._get_checked_instance(LogitRelaxedBernoulli, _instance)
        batch_shape = Size(batch_shape)
        new.temperature = self.temperature
        self._expand_parameters(new, batch_shape)
        return self._expanded(new, batch_shape)  # type: ignore[no-any-return]

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(shape))
        uniforms = clamp_probs(_factories.rand(shape, dtype=probs.dtype))
        out: Tensor = (uniforms.log() - (-uniforms).log1p() + probs.log() - (-probs).log1p()) / self.temperature
        return out

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value * self.temperature
        out: Tensor = self.temperature.log() + diff - 2 * diff.exp().log1p()
        return out


class RelaxedBernoulli(Distribution):
    """The relaxed Bernoulli (binary Concrete) distribution with ``temperature`` and
    ``probs`` or ``logits``: ``sigmoid(x)`` for ``x`` drawn from :class:`LogitRelaxedBernoulli`
    (``base_dist``).
    """

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "probs": constraints.unit_interval,
        "logits": constraints.real,
    }
    support = constraints.unit_interval
    has_rsample = True

    def __init__(
        self, temperature: Any, probs: Any = None, logits: Any = None, validate_args: bool | None = None
    ) -> None:
        self.base_dist = LogitRelaxedBernoulli(temperature, probs, logits, validate_args=validate_args)
        super().__init__(self.base_dist.batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> RelaxedBernoulli:
        new = self._get_checked_instance(RelaxedBernoulli, _instance)
        batch_shape = Size(batch_shape)
        new.base_dist = self.base_dist.expand(batch_shape)
        return self._expanded(new, batch_shape)  # type: ignore[no-any-return]

    @property
    def temperature(self) -> Tensor:
        return self.base_dist.temperature

    @property
    def probs(self) -> Tensor:
        return self.base_dist.probs

    @property
    def logits(self) -> Tensor:
        return self.base_dist.logits

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        return _clipped_sigmoid(self.base_dist.rsample(sample_shape))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        x = _logit_clipped(value)
        # minus log |d sigmoid(x) / dx| = softplus(-x) + softplus(x)
        out: Tensor = self.base_dist.log_prob(x) + F.softplus(-x) + F.softplus(x)
        return out


class ExpRelaxedCategorical(Distribution):
    """The logarithm of a :class:`RelaxedOneHotCategorical` sample:
    ``log_softmax((logits + g) / temperature)`` for standard Gumbel noise ``g``, with its
    density (working in log space is the numerically stable way to use the relaxation)."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "probs": constraints.simplex,
        "logits": constraints.real_vector,
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(
        self, temperature: Any, probs: Any = None, logits: Any = None, validate_args: bool | None = None
    ) -> None:
        self._categorical = Categorical(probs, logits)  # validated whatever validate_args says, as torch
        (self.temperature,) = broadcast_all(temperature)
        event_shape = Size(self._categorical.param_shape[-1:])
        super().__init__(self._categorical.batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> ExpRelaxedCategorical:
        new = self._get_checked_instance(ExpRelaxedCategorical, _instance)
        batch_shape = Size(batch_shape)
        new.temperature = self.temperature
        new._categorical = self._categorical.expand(batch_shape)
        return self._expanded(new, batch_shape)  # type: ignore[no-any-return]

    @property
    def probs(self) -> Tensor:
        return self._categorical.probs

    @property
    def logits(self) -> Tensor:
        return self._categorical.logits

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        uniforms = clamp_probs(_factories.rand(shape, dtype=self.logits.dtype))
        gumbels = -((-(uniforms.log())).log())
        scores = (self.logits + gumbels) / self.temperature
        out: Tensor = scores - scores.logsumexp(dim=-1, keepdim=True)
        return out

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        K = self.event_shape[0]
        t = self.temperature
        log_scale = _factories.full_like(t, float(K)).lgamma() - t.log() * (-(K - 1))
        score = self.logits - value * t
        score = (score - score.logsumexp(dim=-1, keepdim=True)).sum(-1)
        out: Tensor = score + log_scale
        return out


class RelaxedOneHotCategorical(Distribution):
    """The relaxed one-hot categorical (Concrete, Gumbel-softmax) distribution with
    ``temperature`` and ``probs`` or ``logits``: ``exp(x)`` for ``x`` drawn from
    :class:`ExpRelaxedCategorical` (``base_dist``), i.e. ``softmax((logits + g) / temperature)``
    for standard Gumbel noise ``g``."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "probs": constraints.simplex,
        "logits": constraints.real_vector,
    }
    support = constraints.simplex
    has_rsample = True

    def __init__(
        self, temperature: Any, probs: Any = None, logits: Any = None, validate_args: bool | None = None
    ) -> None:
        self.base_dist = ExpRelaxedCategorical(temperature, probs, logits, validate_args=validate_args)
        super().__init__(self.base_dist.batch_shape, self.base_dist.event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> RelaxedOneHotCategorical:
        new = self._get_checked_instance(RelaxedOneHotCategorical, _instance)
        batch_shape = Size(batch_shape)
        new.base_dist = self.base_dist.expand(batch_shape)
        return self._expanded(new, batch_shape)  # type: ignore[no-any-return]

    @property
    def temperature(self) -> Tensor:
        return self.base_dist.temperature

    @property
    def probs(self) -> Tensor:
        return self.base_dist.probs

    @property
    def logits(self) -> Tensor:
        return self.base_dist.logits

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        return self.base_dist.rsample(sample_shape).exp()

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        x = value.log()
        # minus log |d exp(x) / dx| = -x, over the event
        out: Tensor = self.base_dist.log_prob(x) - x.sum(-1)
        return out

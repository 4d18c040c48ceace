"""The discrete families: ``Bernoulli``, ``Categorical`` and ``OneHotCategorical``, each
parameterised by ``probs`` or by ``logits`` (exactly one; the other is computed when first
asked for).  Their samples are not reparameterisable (``has_rsample`` is False), but
``log_prob`` and ``entropy`` differentiate with respect to the parameters (the score-function
estimator needs exactly that).

>>> import ctxgrad
>>> from ctxgrad.distributions import Categorical
>>> d = Categorical(probs=ctxgrad.tensor([0.25, 0.25, 0.5]))
>>> d.log_prob(ctxgrad.tensor([0, 2]))
tensor([-1.3863, -0.6931])
>>> d.entropy()
tensor(1.0397)
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from ctxgrad import _factories, _sampling
from ctxgrad._tensor import Size, Tensor
from ctxgrad.autograd.grad_mode import no_grad
from ctxgrad.distributions import constraints
from ctxgrad.distributions.distribution import (
    Distribution,
    broadcast_all,
    lazy_property,
    logits_to_probs,
    probs_to_logits,
)
from ctxgrad.nn import functional as F
from ctxgrad.ops.pointwise import where
from ctxgrad.ops.shape import broadcast_tensors

__all__ = ["Bernoulli", "Categorical", "OneHotCategorical"]


def _one_parameter(probs: Any, logits: Any) -> None:
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")


class _BinaryParameters(Distribution):
    """A distribution of one probability per batch element, given as ``probs`` or as
    ``logits`` (the log-odds); the other is computed when first asked for."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "probs": constraints.unit_interval,
        "logits": constraints.real,
    }

    def _set_parameters(self, probs: Any, logits: Any) -> Size:
        """Store ``probs`` or ``logits`` (exactly one) and return the batch shape."""
        _one_parameter(probs, logits)
        given = probs if probs is not None else logits
        is_scalar = isinstance(given, (int, float))
        (param,) = broadcast_all(given)
        if probs is not None:
            self.probs = param
        else:
            self.logits = param
        self._param = param
        return Size() if is_scalar else Size(param.shape)

    def _expand_parameters(self, new: _BinaryParameters, batch_shape: Size) -> None:
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
            new._param = new.logits

    @lazy_property
    def logits(self) -> Tensor:
        """The log-odds, computed from ``probs`` when those were given."""
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        """The probabilities, computed from ``logits`` when those were given."""
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self) -> Size:
        return Size(self._param.shape)


class Bernoulli(_BinaryParameters):
    """The Bernoulli distribution: 1 with probability ``probs`` (or ``sigmoid(logits)``), else 0.

    Args:
        probs: The probability of a 1, in ``[0, 1]``.
        logits: The log-odds of a 1.
        validate_args: Whether to check the arguments.
    """

    support = constraints.boolean
    has_enumerate_support = True

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: bool | None = None) -> None:
        batch_shape = self._set_parameters(probs, logits)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Bernoulli:
        new = self._get_checked_instance(Bernoulli, _instance)
        batch_shape = Size(batch_shape)
        self._expand_parameters(new, batch_shape)
        return self._expanded(new, batch_shape)  # type: ignore[no-any-return]

    @property
    def mean(self) -> Tensor:
        return self.probs

    @property
    def mode(self) -> Tensor:
        mode = self.probs.ge(0.5).to(self.probs.dtype)
        return where(self.probs == 0.5, math.nan, mode)  # type: ignore[no-any-return]

    @property
    def variance(self) -> Tensor:
        out: Tensor = self.probs * (1 - self.probs)
        return out

    def sample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return _sampling.bernoulli(self.probs.expand(shape))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -F.binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self) -> Tensor:
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand: bool = True) -> Tensor:
        values = _factories.arange(2, dtype=self._param.dtype)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values


class Categorical(Distribution):
    """A categorical distribution over ``0 .. K-1`` (``K = probs.size(-1)``): the last dimension
    of ``probs`` (normalised to sum to 1) or ``logits`` (normalised by ``logsumexp``) holds the
    categories, the others are the batch.

    Args:
        probs: Nonnegative weights of the categories (at least one-dimensional).
        logits: Unnormalised log-probabilities of the categories.
        validate_args: Whether to check the arguments.
    """

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "probs": constraints.simplex,
        "logits": constraints.real_vector,
    }
    has_enumerate_support = True

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: bool | None = None) -> None:
        _one_parameter(probs, logits)
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
            self._param = self.probs
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
            self._param = self.logits
        self._num_events = self._param.shape[-1]
        batch_shape = Size(self._param.shape[:-1]) if self._param.dim() > 1 else Size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Categorical:
        new = self._get_checked_instance(Categorical, _instance)
        batch_shape = Size(batch_shape)
        param_shape = batch_shape + Size((self._num_events,))
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(param_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(param_shape)
            new._param = new.logits
        new._num_events = self._num_events
        return self._expanded(new, batch_shape)  # type: ignore[no-any-return]

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self) -> Any:
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self) -> Tensor:
        """The normalised log-probabilities."""
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self) -> Tensor:
        """The probabilities."""
        return logits_to_probs(self.logits)

    @property
    def param_shape(self) -> Size:
        return Size(self._param.shape)

    @property
    def mean(self) -> Tensor:
        return _factories.full(self._extended_shape(), math.nan, dtype=self.probs.dtype)

    @property
    def mode(self) -> Tensor:
        return self.probs.argmax(-1)

    @property
    def variance(self) -> Tensor:
        return _factories.full(self._extended_shape(), math.nan, dtype=self.probs.dtype)

    def sample(self, sample_shape: Any = ()) -> Tensor:
        sample_shape = Size(sample_shape)
        n = int(np.prod(sample_shape, dtype=np.int64))
        probs_2d = self.probs.detach().reshape(-1, self._num_events)
        if n == 0:
            return _factories.zeros(self._extended_shape(sample_shape), dtype=_factories.tensor(0).dtype)
        samples_2d = _sampling.multinomial(probs_2d, n, True).T
        return samples_2d.reshape(self._extended_shape(sample_shape))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        index = value.long().unsqueeze(-1)
        index, log_pmf = broadcast_tensors(index, self.logits)
        index = index[..., :1]
        return log_pmf.gather(-1, index).squeeze(-1)

    def entropy(self) -> Tensor:
        min_real = float(np.finfo(self.logits.array.dtype).min)
        logits = self.logits.clamp(min=min_real)
        p_log_p = logits * self.probs
        return -p_log_p.sum(-1)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        values = _factories.arange(self._num_events)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values


class OneHotCategorical(Distribution):
    """A :class:`Categorical` whose values are one-hot vectors of length ``K`` instead of
    indices (its event shape is ``(K,)``)."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "probs": constraints.simplex,
        "logits": constraints.real_vector,
    }
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs: Any = None, logits: Any = None, validate_args: bool | None = None) -> None:
        self._categorical = Categorical(probs, logits)
        batch_shape = self._categorical.batch_shape
        event_shape = Size(self._categorical.param_shape[-1:])
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> OneHotCategorical:
        new = self._get_checked_instance(OneHotCategorical, _instance)
        batch_shape = Size(batch_shape)
        new._categorical = self._categorical.expand(batch_shape)
        return self._expanded(new, batch_shape)  # type: ignore[no-any-return]

    @property
    def _param(self) -> Tensor:
        return self._categorical._param

    @property
    def probs(self) -> Tensor:
        return self._categorical.probs

    @property
    def logits(self) -> Tensor:
        return self._categorical.logits

    @property
    def mean(self) -> Tensor:
        return self._categorical.probs

    @property
    def mode(self) -> Tensor:
        probs = self._categorical.probs
        mode = probs.argmax(-1)
        return F.one_hot(mode, num_classes=probs.shape[-1]).to(probs.dtype)

    @property
    def variance(self) -> Tensor:
        out: Tensor = self._categorical.probs * (1 - self._categorical.probs)
        return out

    @property
    def param_shape(self) -> Size:
        return self._categorical.param_shape

    def sample(self, sample_shape: Any = ()) -> Tensor:
        probs = self._categorical.probs
        indices = self._categorical.sample(sample_shape)
        return F.one_hot(indices, probs.shape[-1]).to(probs.dtype)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        indices = value.max(-1)[1]
        return self._categorical.log_prob(indices)

    def entropy(self) -> Tensor:
        return self._categorical.entropy()

    def enumerate_support(self, expand: bool = True) -> Tensor:
        n = self.event_shape[0]
        values = _factories.eye(n, dtype=self._param.dtype)
        values = values.view((n,) + (1,) * len(self.batch_shape) + (n,))
        if expand:
            values = values.expand((n,) + tuple(self.batch_shape) + (n,))
        return values

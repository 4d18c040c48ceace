"""The binomial distribution (torch's ``torch.distributions.binomial``).

>>> import ctxgrad
>>> from ctxgrad.distributions import Binomial
>>> d = Binomial(4, probs=ctxgrad.tensor(0.5))
>>> d.log_prob(ctxgrad.tensor([0.0, 2.0]))
tensor([-2.7726, -0.9808])
>>> d.enumerate_support()
tensor([0., 1., 2., 3., 4.])
"""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ctxgrad import _factories, _sampling
from ctxgrad._tensor import Size, Tensor, as_tensor
from ctxgrad.distributions import constraints
from ctxgrad.distributions.discrete import _one_parameter
from ctxgrad.distributions.distribution import (
    Distribution,
    broadcast_all,
    lazy_property,
    logits_to_probs,
    probs_to_logits,
)

__all__ = ["Binomial"]


def _clamp_by_zero(x: Tensor) -> Tensor:
    """``max(x, 0)`` whose gradient at 0 is 1/2, as torch's."""
    out: Tensor = (x.clamp(min=0) + x - x.clamp(max=0)) / 2
    return out


class Binomial(Distribution):
    """The number of successes in ``total_count`` independent trials of success probability
    ``probs`` (or log-odds ``logits``; exactly one of the two).

    Args:
        total_count: The number of trials (a nonnegative integer, or a tensor of them).
        probs: The success probability.
        logits: The log-odds of success.
        validate_args: Whether to check the arguments.
    """

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "total_count": constraints.nonnegative_integer,
        "probs": constraints.unit_interval,
        "logits": constraints.real,
    }
    has_enumerate_support = True

    def __init__(
        self, total_count: Any = 1, probs: Any = None, logits: Any = None, validate_args: bool | None = None
    ) -> None:
        _one_parameter(probs, logits)
        if probs is not None:
            self.total_count, self.probs = broadcast_all(total_count, probs)
            self.total_count = self.total_count.type_as(self.probs)
            self._param = self.probs
        else:
            self.total_count, self.logits = broadcast_all(total_count, logits)
            self.total_count = self.total_count.type_as(self.logits)
            self._param = self.logits
        super().__init__(Size(self._param.shape), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Binomial:
        new = self._get_checked_instance(Binomial, _instance)
        batch_shape = Size(batch_shape)
        new.total_count = self.total_count.expand(batch_shape)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(batch_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(batch_shape)
            new._param = new.logits
        return self._expanded(new, batch_shape)  # type: ignore[no-any-return]

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self) -> Any:
        return constraints.integer_interval(0, self.total_count)

    @lazy_property
    def logits(self) -> Tensor:
        """The log-odds of success."""
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self) -> Tensor:
        """The probability of success."""
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self) -> Size:
        return Size(self._param.shape)

    @property
    def mean(self) -> Tensor:
        out: Tensor = self.total_count * self.probs
        return out

    @property
    def mode(self) -> Tensor:
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self) -> Tensor:
        out: Tensor = self.total_count * self.probs * (1 - self.probs)
        return out

    def sample(self, sample_shape: Any = ()) -> Tensor:
        shape = tuple(self._extended_shape(sample_shape))
        n = np.broadcast_to(self.total_count.array, shape).astype(np.int64)
        p = np.broadcast_to(self.probs.array, shape).astype(np.float64)
        draws = _sampling._rng().binomial(n, p)
        return as_tensor(np.asarray(draws, dtype=self.probs.array.dtype))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        n, logits = self.total_count, self.logits
        normalize_term = n * _clamp_by_zero(logits) + n * (-logits.abs()).exp().log1p() - (n + 1).lgamma()
        out: Tensor = value * logits - (value + 1).lgamma() - (n - value + 1).lgamma() - normalize_term
        return out

    def _homogeneous_count(self, method: str) -> int:
        count = int(self.total_count.max().item())
        if not self.total_count.min().item() == count:
            raise NotImplementedError(f"Inhomogeneous total count not supported by `{method}`.")
        return count

    def entropy(self) -> Tensor:
        self._homogeneous_count("entropy")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(log_prob.exp() * log_prob).sum(0)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        count = self._homogeneous_count("enumerate_support")
        values = _factories.arange(1 + count, dtype=self._param.dtype)
        values = values.view((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values

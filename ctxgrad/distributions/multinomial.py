"""The multinomial distribution (torch's ``torch.distributions.multinomial``).

>>> import ctxgrad
>>> from ctxgrad.distributions import Multinomial
>>> d = Multinomial(3, probs=ctxgrad.tensor([0.5, 0.25, 0.25]))
>>> d.log_prob(ctxgrad.tensor([1.0, 1.0, 1.0]))
tensor(-1.6740)
>>> d.sample((2,)).sum(-1)
tensor([3., 3.])
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

from ctxgrad import _factories
from ctxgrad._tensor import Size, Tensor
from ctxgrad.distributions import constraints
from ctxgrad.distributions.binomial import Binomial
from ctxgrad.distributions.discrete import Categorical
from ctxgrad.distributions.distribution import Distribution, broadcast_all
from ctxgrad.ops.pointwise import where

__all__ = ["Multinomial"]


class Multinomial(Distribution):
    """The counts of each of ``K`` categories in ``total_count`` independent draws from a
    :class:`Categorical` of ``probs`` (or ``logits``); its event shape is ``(K,)``.

    Args:
        total_count: The number of draws (an int; a tensor of counts is not supported).
        probs: The probabilities of the categories (normalised along the last dimension).
        logits: Their unnormalised log-probabilities.
        validate_args: Whether to check the arguments.
    """

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "probs": constraints.simplex,
        "logits": constraints.real_vector,
    }
    total_count: int

    def __init__(
        self, total_count: int = 1, probs: Any = None, logits: Any = None, validate_args: bool | None = None
    ) -> None:
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        batch_shape = self._categorical.batch_shape
        event_shape = Size(self._categorical.param_shape[-1:])
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Multinomial:
        new = self._get_checked_instance(Multinomial, _instance)
        batch_shape = Size(batch_shape)
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        new._binomial = Binomial(total_count=self.total_count, probs=new.probs)
        return self._expanded(new, batch_shape)  # type: ignore[no-any-return]

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self) -> Any:
        return constraints.multinomial(self.total_count)

    @property
    def logits(self) -> Tensor:
        return self._categorical.logits

    @property
    def probs(self) -> Tensor:
        return self._categorical.probs

    @property
    def param_shape(self) -> Size:
        return self._categorical.param_shape

    @property
    def mean(self) -> Tensor:
        out: Tensor = self.probs * self.total_count
        return out

    @property
    def variance(self) -> Tensor:
        out: Tensor = self.total_count * self.probs * (1 - self.probs)
        return out

    def sample(self, sample_shape: Any = ()) -> Tensor:
        sample_shape = Size(sample_shape)
        draws = self._categorical.sample(Size((self.total_count,)) + sample_shape)
        # the draws' dimension last, then counted into the categories
        draws = draws.permute(*range(1, draws.dim()), 0)
        counts = _factories.zeros(self._extended_shape(sample_shape), dtype=draws.dtype)
        counts.scatter_add_(-1, draws, _factories.ones_like(draws))
        return counts.type_as(self.probs)

    def entropy(self) -> Tensor:
        n = _factories.tensor(float(self.total_count), dtype=self.probs.dtype)
        term1 = n * self._categorical.entropy() - (n + 1).lgamma()
        support = self._binomial.enumerate_support(expand=False)[1:]
        binomial_probs = self._binomial.log_prob(support).exp()
        weights = (support + 1).lgamma()
        term2 = (binomial_probs * weights).sum([0, -1])
        out: Tensor = term1 + term2
        return out

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_factorial_n = (value.sum(-1) + 1).lgamma()
        log_factorial_xs = (value + 1).lgamma().sum(-1)
        # a category of probability 0 drawn 0 times contributes 0, not 0 * -inf
        logits = where((value == 0) & (logits == -math.inf), 0.0, logits)
        log_powers = (logits * value).sum(-1)
        out: Tensor = log_factorial_n - log_factorial_xs + log_powers
        return out

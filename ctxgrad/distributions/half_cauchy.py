"""The half-Cauchy distribution (torch's ``torch.distributions.half_cauchy``): ``|X|`` for a
Cauchy ``X`` centred at 0; and the folding both half-distributions share.

>>> import ctxgrad
>>> from ctxgrad.distributions import HalfCauchy
>>> HalfCauchy(1.0).cdf(ctxgrad.tensor([1.0]))
tensor([0.5000])
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

from ctxgrad import _factories
from ctxgrad._tensor import Tensor
from ctxgrad.distributions import constraints
from ctxgrad.distributions.cauchy import Cauchy
from ctxgrad.distributions.distribution import Distribution
from ctxgrad.distributions.transformed_distribution import TransformedDistribution
from ctxgrad.distributions.transforms import AbsTransform
from ctxgrad.ops.pointwise import where

__all__ = ["HalfCauchy"]


class _Folded(TransformedDistribution):
    """``|X|`` for a ``base`` symmetric about 0 with a ``scale``: the density doubled on the
    nonnegative half, the distribution function ``2 F - 1``."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {"scale": constraints.positive}
    support: Any = constraints.nonnegative
    has_rsample: Any = True
    base_dist: Any

    def __init__(self, base: Distribution, validate_args: bool | None = None) -> None:
        super().__init__(base, AbsTransform(), validate_args=validate_args)

    @property
    def scale(self) -> Tensor:
        return self.base_dist.scale  # type: ignore[no-any-return]

    @property
    def mode(self) -> Tensor:
        return _factories.zeros_like(self.scale)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        log_prob = self.base_dist.log_prob(value) + math.log(2)
        out: Tensor = where(value >= 0, log_prob, -math.inf)
        return out

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        out: Tensor = 2 * self.base_dist.cdf(value) - 1
        return out

    def icdf(self, value: Tensor) -> Tensor:
        return self.base_dist.icdf((value + 1) / 2)  # type: ignore[no-any-return]

    def entropy(self) -> Tensor:
        out: Tensor = self.base_dist.entropy() - math.log(2)
        return out


class HalfCauchy(_Folded):
    """The distribution of ``|X|`` for ``X ~ Cauchy(0, scale)``.

    Args:
        scale: The scale of the Cauchy folded (positive).
        validate_args: Whether to check the arguments.
    """

    def __init__(self, scale: Any, validate_args: bool | None = None) -> None:
        super().__init__(Cauchy(0, scale, validate_args=False), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> HalfCauchy:
        new = self._get_checked_instance(HalfCauchy, _instance)
        return super().expand(batch_shape, _instance=new)  # type: ignore[return-value]

    @property
    def mean(self) -> Tensor:
        return _factories.full(self._extended_shape(), math.inf, dtype=self.scale.dtype)

    @property
    def variance(self) -> Tensor:
        return self.base_dist.variance  # type: ignore[no-any-return]

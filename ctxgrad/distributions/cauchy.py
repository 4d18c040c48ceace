"""The Cauchy distribution (torch's ``torch.distributions.cauchy``).

>>> import ctxgrad
>>> from ctxgrad.distributions import Cauchy
>>> Cauchy(0.0, 1.0).cdf(ctxgrad.tensor([0.0, 1.0]))
tensor([0.5000, 0.7500])
"""

from __future__ import annotations

import math
from typing import Any

from ctxgrad import _factories
from ctxgrad._tensor import Tensor
from ctxgrad.distributions.continuous import _LocScale

__all__ = ["Cauchy"]


class Cauchy(_LocScale):
    """The Cauchy (Lorentz) distribution: density ``1 / (pi scale (1 + ((x - loc) / scale)^2))``.
    Its mean and variance do not exist (NaN and infinity, as torch says).

    Args:
        loc: The median.
        scale: The half width at half maximum (positive).
        validate_args: Whether to check the arguments.
    """

    @property
    def mean(self) -> Tensor:
        return _factories.full(self._extended_shape(), math.nan, dtype=self.loc.dtype)

    @property
    def variance(self) -> Tensor:
        return _factories.full(self._extended_shape(), math.inf, dtype=self.loc.dtype)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        eps = _factories.empty(shape, dtype=self.loc.dtype).cauchy_()
        out: Tensor = self.loc + eps * self.scale
        return out

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        out: Tensor = -math.log(math.pi) - self.scale.log() - (((value - self.loc) / self.scale) ** 2).log1p()
        return out

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        out: Tensor = ((value - self.loc) / self.scale).atan() / math.pi + 0.5
        return out

    def icdf(self, value: Tensor) -> Tensor:
        out: Tensor = (math.pi * (value - 0.5)).tan() * self.scale + self.loc
        return out

    def entropy(self) -> Tensor:
        out: Tensor = math.log(4 * math.pi) + self.scale.log()
        return out

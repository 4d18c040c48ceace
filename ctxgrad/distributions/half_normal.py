"""The half-normal distribution (torch's ``torch.distributions.half_normal``): ``|X|`` for a
centred normal ``X``.

>>> import ctxgrad
>>> from ctxgrad.distributions import HalfNormal
>>> HalfNormal(1.0, validate_args=False).log_prob(ctxgrad.tensor([0.5, -1.0]))
tensor([-0.3508,    -inf])
"""

from __future__ import annotations

import math
from typing import Any

from ctxgrad.distributions.continuous import Normal
from ctxgrad.distributions.half_cauchy import _Folded

__all__ = ["HalfNormal"]


class HalfNormal(_Folded):
    """The distribution of ``|X|`` for ``X ~ Normal(0, scale)``.

    Args:
        scale: The scale of the normal folded (positive).
        validate_args: Whether to check the arguments.
    """

    base_dist: Normal

    def __init__(self, scale: Any, validate_args: bool | None = None) -> None:
        super().__init__(Normal(0, scale, validate_args=False), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> HalfNormal:
        new = self._get_checked_instance(HalfNormal, _instance)
        return super().expand(batch_shape, _instance=new)  # type: ignore[return-value]

    @property
    def mean(self) -> Any:
        return self.scale * (2 / math.pi) ** 0.5

    @property
    def variance(self) -> Any:
        return self.scale.pow(2) * (1 - 2 / math.pi)

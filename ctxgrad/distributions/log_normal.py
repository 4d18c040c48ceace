"""The log-normal distribution (torch's ``torch.distributions.log_normal``): ``exp`` of a
normal, a :class:`TransformedDistribution`.

>>> import ctxgrad
>>> from ctxgrad.distributions import LogNormal
>>> d = LogNormal(0.0, 1.0)
>>> d.log_prob(ctxgrad.tensor(1.0)), d.mean
(tensor(-0.9189), tensor(1.6487))
"""

from __future__ import annotations

from typing import Any, ClassVar

from ctxgrad._tensor import Tensor
from ctxgrad.distributions import constraints
from ctxgrad.distributions.continuous import Normal
from ctxgrad.distributions.transformed_distribution import TransformedDistribution
from ctxgrad.distributions.transforms import ExpTransform

__all__ = ["LogNormal"]


class LogNormal(TransformedDistribution):
    """The distribution of ``exp(X)`` for ``X ~ Normal(loc, scale)``.

    Args:
        loc: The mean of ``log`` of the variable.
        scale: The standard deviation of ``log`` of the variable (positive).
        validate_args: Whether to check the arguments.
    """

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "loc": constraints.real,
        "scale": constraints.positive,
    }
    support: Any = constraints.positive
    has_rsample: Any = True
    base_dist: Normal

    def __init__(self, loc: Any, scale: Any, validate_args: bool | None = None) -> None:
        base_dist = Normal(loc, scale, validate_args=validate_args)
        super().__init__(base_dist, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> LogNormal:
        new = self._get_checked_instance(LogNormal, _instance)
        return super().expand(batch_shape, _instance=new)  # type: ignore[return-value]

    @property
    def loc(self) -> Tensor:
        return self.base_dist.loc

    @property
    def scale(self) -> Tensor:
        return self.base_dist.scale

    @property
    def mean(self) -> Tensor:
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self) -> Tensor:
        return (self.loc - self.scale.square()).exp()

    @property
    def variance(self) -> Tensor:
        scale_sq = self.scale.pow(2)
        out: Tensor = scale_sq.expm1() * (2 * self.loc + scale_sq).exp()
        return out

    def entropy(self) -> Tensor:
        out: Tensor = self.base_dist.entropy() + self.loc
        return out

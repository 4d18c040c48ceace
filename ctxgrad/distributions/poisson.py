"""The Poisson distribution (torch's ``torch.distributions.poisson``).

>>> import ctxgrad
>>> from ctxgrad.distributions import Poisson
>>> Poisson(2.0).log_prob(ctxgrad.tensor([0.0, 2.0]))
tensor([-2.0000, -1.3069])
"""

from __future__ import annotations

from typing import Any, ClassVar

from ctxgrad import _sampling
from ctxgrad._tensor import Size, Tensor
from ctxgrad.autograd.grad_mode import no_grad
from ctxgrad.distributions import constraints
from ctxgrad.distributions.distribution import Distribution, broadcast_all

__all__ = ["Poisson"]


class Poisson(Distribution):
    """The Poisson distribution of counts with mean ``rate``: mass
    ``rate^k exp(-rate) / k!``.  ``log_prob`` differentiates in ``rate``; a sample does not
    (counts have no path).

    Args:
        rate: The mean (nonnegative).
        validate_args: Whether to check the arguments.
    """

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate: Any, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        batch_shape = Size() if isinstance(rate, (int, float)) else Size(self.rate.shape)
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Poisson:
        new = self._get_checked_instance(Poisson, _instance)
        batch_shape = Size(batch_shape)
        new.rate = self.rate.expand(batch_shape)
        return self._expanded(new, batch_shape)  # type: ignore[no-any-return]

    @property
    def mean(self) -> Tensor:
        return self.rate

    @property
    def mode(self) -> Tensor:
        return self.rate.floor()

    @property
    def variance(self) -> Tensor:
        return self.rate

    def sample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        with no_grad():
            return _sampling.poisson(self.rate.expand(shape))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        out: Tensor = value.xlogy(rate) - rate - (value + 1).lgamma()
        return out

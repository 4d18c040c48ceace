"""``Independent``: some batch dimensions of a distribution read as event dimensions.

>>> import ctxgrad
>>> from ctxgrad.distributions import Independent, Normal
>>> d = Independent(Normal(ctxgrad.zeros(3, 2), 1.0), 1)
>>> d.batch_shape, d.event_shape
(ctxgrad.Size([3]), ctxgrad.Size([2]))
>>> d.log_prob(ctxgrad.zeros(3, 2))
tensor([-1.8379, -1.8379, -1.8379])
"""

from __future__ import annotations

from typing import Any, ClassVar

from ctxgrad._tensor import Size, Tensor
from ctxgrad.distributions import constraints
from ctxgrad.distributions.distribution import Distribution

__all__ = ["Independent"]


def _sum_rightmost(value: Tensor, dim: int) -> Tensor:
    """``value`` summed over its ``dim`` rightmost dimensions."""
    if dim == 0:
        return value
    return value.reshape(tuple(value.shape[: value.dim() - dim]) + (-1,)).sum(-1)


class Independent(Distribution):
    """The distribution ``base_distribution`` with its ``reinterpreted_batch_ndims`` rightmost
    batch dimensions made event dimensions: ``log_prob`` sums over them.

    Args:
        base_distribution: The distribution to reinterpret.
        reinterpreted_batch_ndims: How many batch dimensions become event dimensions.
        validate_args: Whether to check the values given to ``log_prob``.
    """

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {}

    def __init__(
        self, base_distribution: Distribution, reinterpreted_batch_ndims: int, validate_args: bool | None = None
    ) -> None:
        n = reinterpreted_batch_ndims
        if n > len(base_distribution.batch_shape):
            raise ValueError(
                "Expected reinterpreted_batch_ndims <= len(base_distribution.batch_shape), "
                f"actual {n} vs {len(base_distribution.batch_shape)}"
            )
        shape = base_distribution.batch_shape + base_distribution.event_shape
        event_dim = n + len(base_distribution.event_shape)
        batch_shape = shape[: len(shape) - event_dim]
        event_shape = shape[len(shape) - event_dim :]
        self.base_dist = base_distribution
        self.reinterpreted_batch_ndims = n
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Independent:
        new = self._get_checked_instance(Independent, _instance)
        batch_shape = Size(batch_shape)
        new.base_dist = self.base_dist.expand(batch_shape + self.event_shape[: self.reinterpreted_batch_ndims])
        new.reinterpreted_batch_ndims = self.reinterpreted_batch_ndims
        return self._expanded(new, batch_shape)  # type: ignore[no-any-return]

    @property
    def has_rsample(self) -> bool:  # type: ignore[override]
        return self.base_dist.has_rsample

    @property
    def has_enumerate_support(self) -> bool:  # type: ignore[override]
        if self.reinterpreted_batch_ndims > 0:
            return False
        return self.base_dist.has_enumerate_support

    @property
    def support(self) -> Any:
        result = self.base_dist.support
        if self.reinterpreted_batch_ndims:
            result = constraints.independent(result, self.reinterpreted_batch_ndims)
        return result

    @property
    def mean(self) -> Tensor:
        return self.base_dist.mean

    @property
    def mode(self) -> Tensor:
        return self.base_dist.mode

    @property
    def variance(self) -> Tensor:
        return self.base_dist.variance

    def sample(self, sample_shape: Any = ()) -> Tensor:
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value: Tensor) -> Tensor:
        return _sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self) -> Tensor:
        return _sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        if self.reinterpreted_batch_ndims > 0:
            raise NotImplementedError("Enumeration over cartesian product is not implemented")
        return self.base_dist.enumerate_support(expand=expand)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.base_dist}, {self.reinterpreted_batch_ndims})"

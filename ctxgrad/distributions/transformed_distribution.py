"""``TransformedDistribution``: a base distribution pushed through a list of transforms.

A sample is the base sample sent through the transforms in order; ``log_prob(y)`` inverts
them and subtracts each log-Jacobian (the change of variables), summed over the event
dimensions each covers.  ``rsample`` differentiates whenever the base's does.

>>> import ctxgrad
>>> from ctxgrad.distributions import Normal, TransformedDistribution
>>> from ctxgrad.distributions.transforms import ExpTransform
>>> d = TransformedDistribution(Normal(0.0, 1.0), [ExpTransform()])   # a log-normal
>>> d.log_prob(ctxgrad.tensor(1.0))
tensor(-0.9189)
"""

from __future__ import annotations

from typing import Any, ClassVar

from ctxgrad._tensor import Size, Tensor
from ctxgrad.autograd.grad_mode import no_grad
from ctxgrad.distributions import constraints
from ctxgrad.distributions.distribution import Distribution
from ctxgrad.distributions.independent import Independent, _sum_rightmost
from ctxgrad.distributions.transforms import ComposeTransform, Transform

__all__ = ["TransformedDistribution"]


class TransformedDistribution(Distribution):
    """The distribution of ``transforms[-1](... transforms[0](x))`` for ``x`` drawn from
    ``base_distribution``.

    The base distribution is expanded (and wrapped in :class:`Independent`) as the transforms'
    shapes and event dimensions require, as torch does.

    Args:
        base_distribution: The distribution of ``x``.
        transforms: A :class:`Transform` or a list of them.
        validate_args: Whether to check the values given to ``log_prob``.
    """

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {}

    def __init__(self, base_distribution: Distribution, transforms: Any, validate_args: bool | None = None) -> None:
        if isinstance(transforms, Transform):
            self.transforms = [transforms]
        elif isinstance(transforms, list):
            if not all(isinstance(t, Transform) for t in transforms):
                raise ValueError("transforms must be a Transform or a list of Transforms")
            self.transforms = transforms
        else:
            raise ValueError(f"transforms must be a Transform or list, but was {transforms}")
        base_shape = Size(base_distribution.batch_shape + base_distribution.event_shape)
        base_event_dim = len(base_distribution.event_shape)
        transform = ComposeTransform(self.transforms)
        if len(base_shape) < transform.domain.event_dim:
            raise ValueError(
                f"base_distribution needs to have shape with size at least {transform.domain.event_dim}, "
                f"but got {base_shape!r}."
            )
        forward_shape = Size(transform.forward_shape(base_shape))
        expanded_base_shape = Size(transform.inverse_shape(forward_shape))
        if base_shape != expanded_base_shape:
            base_distribution = base_distribution.expand(
                expanded_base_shape[: len(expanded_base_shape) - base_event_dim]
            )
        reinterpreted_batch_ndims = transform.domain.event_dim - base_event_dim
        if reinterpreted_batch_ndims > 0:
            base_distribution = Independent(base_distribution, reinterpreted_batch_ndims)
        self.base_dist = base_distribution
        change_in_event_dim = transform.codomain.event_dim - transform.domain.event_dim
        # The event covers what the transform couples, and what the base already coupled.
        event_dim = max(transform.codomain.event_dim, base_event_dim + change_in_event_dim)
        cut = len(forward_shape) - event_dim
        super().__init__(forward_shape[:cut], forward_shape[cut:], validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> TransformedDistribution:
        new = self._get_checked_instance(TransformedDistribution, _instance)
        batch_shape = Size(batch_shape)
        shape = batch_shape + self.event_shape
        for t in reversed(self.transforms):
            shape = t.inverse_shape(shape)
        new.base_dist = self.base_dist.expand(shape[: len(shape) - len(self.base_dist.event_shape)])
        new.transforms = self.transforms
        return self._expanded(new, batch_shape)  # type: ignore[no-any-return]

    @constraints.dependent_property(is_discrete=False)
    def support(self) -> Any:
        if not self.transforms:
            return self.base_dist.support
        support = self.transforms[-1].codomain
        if len(self.event_shape) > support.event_dim:
            support = constraints.independent(support, len(self.event_shape) - support.event_dim)
        return support

    @property
    def has_rsample(self) -> bool:  # type: ignore[override]
        return self.base_dist.has_rsample

    def sample(self, sample_shape: Any = ()) -> Tensor:
        with no_grad():
            x = self.base_dist.sample(sample_shape)
            for transform in self.transforms:
                x = transform(x)
            return x

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        x = self.base_dist.rsample(sample_shape)
        for transform in self.transforms:
            x = transform(x)
        return x

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        event_dim = len(self.event_shape)
        log_prob: Any = 0.0
        y = value
        for transform in reversed(self.transforms):
            x = transform.inv(y)
            event_dim += transform.domain.event_dim - transform.codomain.event_dim
            log_prob = log_prob - _sum_rightmost(
                transform.log_abs_det_jacobian(x, y), event_dim - transform.domain.event_dim
            )
            y = x
        log_prob = log_prob + _sum_rightmost(self.base_dist.log_prob(y), event_dim - len(self.base_dist.event_shape))
        return log_prob  # type: ignore[no-any-return]

    def _monotonize_cdf(self, value: Tensor) -> Tensor:
        """``value`` flipped to ``1 - value`` where the transforms decrease, so that ``cdf``
        increases."""
        sign: Any = 1
        for transform in self.transforms:
            sign = sign * transform.sign
        if isinstance(sign, int) and sign == 1:
            return value
        out: Tensor = sign * (value - 0.5) + 0.5
        return out

    def cdf(self, value: Tensor) -> Tensor:
        for transform in self.transforms[::-1]:
            value = transform.inv(value)
        if self._validate_args:
            self.base_dist._validate_sample(value)
        return self._monotonize_cdf(self.base_dist.cdf(value))

    def icdf(self, value: Tensor) -> Tensor:
        value = self.base_dist.icdf(self._monotonize_cdf(value))
        for transform in self.transforms:
            value = transform(value)
        return value

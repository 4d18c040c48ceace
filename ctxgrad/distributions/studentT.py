"""Student's t distribution (torch's ``torch.distributions.studentT``).

>>> import ctxgrad
>>> from ctxgrad.distributions import StudentT
>>> StudentT(3.0).log_prob(ctxgrad.tensor([0.0, 1.0]))
tensor([-1.0009, -1.5763])
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

from ctxgrad import _factories
from ctxgrad._tensor import Size, Tensor
from ctxgrad.distributions import constraints
from ctxgrad.distributions.chi2 import Chi2
from ctxgrad.distributions.distribution import Distribution, broadcast_all
from ctxgrad.ops.pointwise import where

__all__ = ["StudentT"]


class StudentT(Distribution):
    """Student's t distribution with ``df`` degrees of freedom, location ``loc`` and scale
    ``scale``.  ``rsample`` is ``loc + scale X / sqrt(Z / df)`` for a standard normal ``X`` and
    a chi-squared ``Z`` (a Gamma, differentiated implicitly), so it differentiates in all three.

    Args:
        df: The degrees of freedom (positive).
        loc: The location.
        scale: The scale (positive).
        validate_args: Whether to check the arguments.
    """

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "df": constraints.positive,
        "loc": constraints.real,
        "scale": constraints.positive,
    }
    support = constraints.real
    has_rsample = True

    def __init__(self, df: Any, loc: Any = 0.0, scale: Any = 1.0, validate_args: bool | None = None) -> None:
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(Size(self.df.shape), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> StudentT:
        new = self._get_checked_instance(StudentT, _instance)
        batch_shape = Size(batch_shape)
        new.df = self.df.expand(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new._chi2 = self._chi2.expand(batch_shape)
        return self._expanded(new, batch_shape)  # type: ignore[no-any-return]

    @property
    def mean(self) -> Tensor:
        out: Tensor = where(self.df <= 1, math.nan, self.loc)
        return out

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        # finite above 2 degrees of freedom, infinite in (1, 2], undefined at 1 and below
        df = where(self.df > 2, self.df, 3.0)  # (the other branches' df would divide by 0)
        finite = self.scale.pow(2) * df / (df - 2)
        out: Tensor = where(self.df > 2, finite, where(self.df > 1, math.inf, math.nan))
        return out

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        x = _factories.randn(shape, dtype=self.df.dtype)
        z = self._chi2.rsample(sample_shape)
        out: Tensor = self.loc + self.scale * (x * (z / self.df).rsqrt())
        return out

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        z = (
            self.scale.log()
            + 0.5 * self.df.log()
            + 0.5 * math.log(math.pi)
            + (0.5 * self.df).lgamma()
            - (0.5 * (self.df + 1.0)).lgamma()
        )
        out: Tensor = -0.5 * (self.df + 1.0) * (y**2 / self.df).log1p() - z
        return out

    def entropy(self) -> Tensor:
        lbeta = (0.5 * self.df).lgamma() + math.lgamma(0.5) - (0.5 * (self.df + 1)).lgamma()
        out: Tensor = (
            self.scale.log()
            + 0.5 * (self.df + 1) * ((0.5 * (self.df + 1)).digamma() - (0.5 * self.df).digamma())
            + 0.5 * self.df.log()
            + lbeta
        )
        return out

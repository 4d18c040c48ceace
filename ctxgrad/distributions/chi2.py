"""The chi-squared distribution (torch's ``torch.distributions.chi2``): a Gamma of shape
``df / 2`` and rate ``1 / 2``.

>>> import ctxgrad
>>> from ctxgrad.distributions import Chi2
>>> d = Chi2(ctxgrad.tensor([2.0, 4.0]))
>>> d.mean, d.log_prob(ctxgrad.tensor([1.0, 1.0]))
(tensor([2., 4.]), tensor([-1.1931, -1.8863]))
"""

from __future__ import annotations

from typing import Any, ClassVar

from ctxgrad._tensor import Tensor
from ctxgrad.distributions import constraints
from ctxgrad.distributions.continuous import Gamma

__all__ = ["Chi2"]


class Chi2(Gamma):
    """The distribution of a sum of ``df`` squared standard normals: ``Gamma(df / 2, 1 / 2)``,
    reparameterised as Gamma is (implicitly).

    Args:
        df: The degrees of freedom (positive).
        validate_args: Whether to check the arguments.
    """

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {"df": constraints.positive}

    def __init__(self, df: Any, validate_args: bool | None = None) -> None:
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Chi2:
        new = self._get_checked_instance(Chi2, _instance)
        return super().expand(batch_shape, new)  # type: ignore[return-value]

    @property
    def df(self) -> Tensor:
        out: Tensor = self.concentration * 2
        return out

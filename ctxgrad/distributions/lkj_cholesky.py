"""The LKJ distribution of Cholesky factors of correlation matrices (torch's
``torch.distributions.lkj_cholesky``).

>>> import ctxgrad
>>> from ctxgrad.distributions import LKJCholesky
>>> d = LKJCholesky(3, concentration=2.0)
>>> _ = ctxgrad.manual_seed(0)
>>> L = d.sample()
>>> diagonal = (L @ L.mT).diagonal()   # a correlation matrix: unit diagonal
>>> bool(((diagonal - 1).abs() < 1e-6).all())
True
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

import numpy as np

from ctxgrad import _factories
from ctxgrad._made_functions import cat
from ctxgrad._tensor import Size, Tensor
from ctxgrad.autograd.grad_mode import no_grad
from ctxgrad.distributions import constraints
from ctxgrad.distributions.continuous import Beta
from ctxgrad.distributions.distribution import Distribution, broadcast_all

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """The LKJ distribution of lower Cholesky factors ``L`` of ``dim x dim`` correlation
    matrices ``L L^T``, with density proportional to ``det(L L^T)^(concentration - 1)``.
    Sampling is the onion method (one Beta draw per row, a direction on the sphere);
    ``log_prob`` differentiates in ``concentration``.

    Args:
        dim: The size of the matrices (at least 2).
        concentration: The shape parameter (positive; 1 is uniform over correlation matrices).
        validate_args: Whether to check the arguments.
    """

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim: int, concentration: Any = 1.0, validate_args: bool | None = None) -> None:
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        batch_shape = Size(self.concentration.shape)
        marginal_conc = self.concentration + 0.5 * (self.dim - 2)
        offset = _factories.arange(self.dim - 1, dtype=self.concentration.dtype)
        offset = cat([offset.new_zeros((1,)), offset])
        # Row i >= 1 of the factor is sqrt(y_i) times a direction in i dimensions, with
        # y_i ~ Beta(i / 2, marginal - (i - 1) / 2) (the onion method).  torch's first
        # concentration is i - 1/2, which is i / 2 only for i = 1: its samples' correlations
        # past the second row are not LKJ-distributed (docs/differences.md).
        self._beta = Beta(0.5 * offset + 0.5, marginal_conc.unsqueeze(-1) - 0.5 * offset)
        super().__init__(batch_shape, Size((dim, dim)), validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> LKJCholesky:
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(batch_shape + (self.dim,))
        return self._expanded(new, batch_shape)  # type: ignore[no-any-return]

    def sample(self, sample_shape: Any = ()) -> Tensor:
        with no_grad():
            y = self._beta.sample(sample_shape).unsqueeze(-1)
            u_normal = _factories.randn(self._extended_shape(sample_shape), dtype=y.dtype).tril(-1)
            tiny = float(np.finfo(y.array.dtype).tiny)
            # the first row is all zeros: the clamp keeps it 0 instead of 0 / 0
            u_hypersphere = u_normal / u_normal.norm(dim=-1, keepdim=True).clamp(min=tiny)
            w = y.sqrt() * u_hypersphere
            diag_elems = (1 - (w**2).sum(-1)).clamp(min=tiny).sqrt()
            out: Tensor = w + diag_elems.diag_embed()
            return out

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        diag_elems = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = _factories.arange(2, self.dim + 1, dtype=self.concentration.dtype)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized_log_pdf = (order * diag_elems.log()).sum(-1)
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        denominator = alpha.lgamma() * dm1
        # the multivariate log-gamma of dimension dm1 at alpha - 1/2
        shifts = -0.5 * _factories.arange(dm1, dtype=alpha.dtype)
        numerator = (alpha.unsqueeze(-1) - 0.5 + shifts).lgamma().sum(-1) + dm1 * (dm1 - 1) / 4 * math.log(math.pi)
        normalize_term = 0.5 * dm1 * math.log(math.pi) + numerator - denominator
        out: Tensor = unnormalized_log_pdf - normalize_term
        return out

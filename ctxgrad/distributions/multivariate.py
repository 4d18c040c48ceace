"""The families over vectors: ``Dirichlet`` (on the simplex) and ``MultivariateNormal``.

``MultivariateNormal`` keeps the lower Cholesky factor ``L`` of its covariance (given as
``scale_tril``, or factored from ``covariance_matrix`` or ``precision_matrix``) and works with
it: ``rsample`` is ``loc + L eps``, and ``log_prob`` solves ``L y = x - loc``.

>>> import ctxgrad
>>> from ctxgrad.distributions import MultivariateNormal
>>> d = MultivariateNormal(ctxgrad.zeros(2), covariance_matrix=ctxgrad.tensor([[2.0, 1.0], [1.0, 2.0]]))
>>> d.scale_tril
tensor([[1.4142, 0.0000],
        [0.7071, 1.2247]])
>>> d.log_prob(ctxgrad.tensor([1.0, -1.0]))
tensor(-3.3872)
"""

from __future__ import annotations

import math
from typing import Any, ClassVar

from ctxgrad import _factories
from ctxgrad._tensor import Size, Tensor
from ctxgrad.distributions import constraints
from ctxgrad.distributions._functions import StandardGamma
from ctxgrad.distributions.distribution import Distribution, lazy_property
from ctxgrad.linalg import cholesky, solve
from ctxgrad.ops.pointwise import where
from ctxgrad.ops.shape import broadcast_shapes

__all__ = ["Dirichlet", "MultivariateNormal"]


class Dirichlet(Distribution):
    """The Dirichlet distribution on the simplex, with positive ``concentration`` (its last
    dimension is the event).  ``rsample`` normalises Gamma draws, each differentiated
    implicitly."""

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "concentration": constraints.independent(constraints.positive, 1)
    }
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration: Tensor, validate_args: bool | None = None) -> None:
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        batch_shape, event_shape = concentration.shape[:-1], concentration.shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Dirichlet:
        new = self._get_checked_instance(Dirichlet, _instance)
        batch_shape = Size(batch_shape)
        new.concentration = self.concentration.expand(batch_shape + self.event_shape)
        return self._expanded(new, batch_shape)  # type: ignore[no-any-return]

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        gammas = StandardGamma.apply(self.concentration.expand(shape))
        out: Tensor = gammas / gammas.sum(-1, keepdim=True)
        return out

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        c = self.concentration
        out: Tensor = (c - 1.0).xlogy(value).sum(-1) + c.sum(-1).lgamma() - c.lgamma().sum(-1)
        return out

    @property
    def mean(self) -> Tensor:
        out: Tensor = self.concentration / self.concentration.sum(-1, keepdim=True)
        return out

    @property
    def mode(self) -> Tensor:
        # The interior mode (c - 1) / sum(c - 1) (the parts with c <= 1 are 0); where every
        # c < 1 the density is unbounded at the vertices, and the mode is the vertex of the
        # largest concentration (torch means the same, but its arg-max of NaNs gives vertex 0).
        c = self.concentration
        cm1 = (c - 1).clamp(min=0.0)
        total = cm1.sum(-1, keepdim=True)
        interior = cm1 / where(total == 0, 1.0, total)
        vertex = (c == c.amax(-1, keepdim=True)).to(c.dtype)
        all_below = (c < 1).all(-1, keepdim=True)
        return where(all_below, vertex, interior)  # type: ignore[no-any-return]

    @property
    def variance(self) -> Tensor:
        c = self.concentration
        con0 = c.sum(-1, keepdim=True)
        out: Tensor = c * (con0 - c) / (con0.pow(2) * (con0 + 1))
        return out

    def entropy(self) -> Tensor:
        c = self.concentration
        k = c.shape[-1]
        a0 = c.sum(-1)
        out: Tensor = c.lgamma().sum(-1) - a0.lgamma() - (k - a0) * a0.digamma() - ((c - 1.0) * c.digamma()).sum(-1)
        return out


def _batch_mv(bmat: Tensor, bvec: Tensor) -> Tensor:
    return (bmat @ bvec.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(bL: Tensor, bx: Tensor) -> Tensor:
    """``|L^-1 x|^2`` for lower-triangular ``L`` (batched; both broadcast).  Only the lower
    triangle of ``L`` is read, so its gradient is lower-triangular, as a triangular solve's."""
    n = bx.shape[-1]
    shape = broadcast_shapes(bx.shape[:-1], bL.shape[:-2])
    L = bL.tril().expand(shape + (n, n))
    x = bx.expand(shape + (n,))
    y = solve(L, x.unsqueeze(-1)).squeeze(-1)
    out: Tensor = y.pow(2).sum(-1)
    return out


def _precision_to_scale_tril(P: Tensor) -> Tensor:
    """The lower Cholesky factor of ``P^-1``, computed without inverting ``P``: the Cholesky
    factor of ``P`` with its rows and columns reversed gives ``L^-1`` transposed."""
    Lf = cholesky(P.flip((-2, -1)))
    L_inv = Lf.flip((-2, -1)).transpose(-2, -1)
    return L_inv.tril().inverse().tril()


def _batch_half_log_det(L: Tensor) -> Tensor:
    return L.diagonal(dim1=-2, dim2=-1).log().sum(-1)


class MultivariateNormal(Distribution):
    """The multivariate normal distribution with mean ``loc`` and a covariance given by
    exactly one of ``covariance_matrix``, ``precision_matrix`` (its inverse) or
    ``scale_tril`` (its lower Cholesky factor, the cheapest).

    Args:
        loc: The mean, ``(*batch, n)``.
        covariance_matrix: A positive-definite ``(*batch, n, n)``.
        precision_matrix: A positive-definite ``(*batch, n, n)``.
        scale_tril: A lower-triangular ``(*batch, n, n)`` with a positive diagonal.
        validate_args: Whether to check the arguments.
    """

    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {
        "loc": constraints.real_vector,
        "covariance_matrix": constraints.positive_definite,
        "precision_matrix": constraints.positive_definite,
        "scale_tril": constraints.lower_cholesky,
    }
    support = constraints.real_vector
    has_rsample = True

    def __init__(
        self,
        loc: Tensor,
        covariance_matrix: Tensor | None = None,
        precision_matrix: Tensor | None = None,
        scale_tril: Tensor | None = None,
        validate_args: bool | None = None,
    ) -> None:
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        given = [m for m in (covariance_matrix, precision_matrix, scale_tril) if m is not None]
        if len(given) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or scale_tril may be specified.")
        name = (
            "scale_tril"
            if scale_tril is not None
            else "covariance_matrix"
            if covariance_matrix is not None
            else "precision_matrix"
        )
        matrix = given[0]
        if matrix.dim() < 2:
            what = "scale_tril matrix" if name == "scale_tril" else name
            raise ValueError(f"{what} must be at least two-dimensional, with optional leading batch dimensions")
        batch_shape = broadcast_shapes(matrix.shape[:-2], loc.shape[:-1])
        setattr(self, name, matrix.expand(batch_shape + (-1, -1)))
        self.loc = loc.expand(batch_shape + (-1,))
        event_shape = self.loc.shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = cholesky(covariance_matrix)
        else:
            assert precision_matrix is not None
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)

    def expand(self, batch_shape: Any, _instance: Any = None) -> MultivariateNormal:
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = Size(batch_shape)
        loc_shape = batch_shape + self.event_shape
        cov_shape = batch_shape + self.event_shape + self.event_shape
        new.loc = self.loc.expand(loc_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(cov_shape))
        return self._expanded(new, batch_shape)  # type: ignore[no-any-return]

    @lazy_property
    def scale_tril(self) -> Tensor:
        """The lower Cholesky factor of the covariance."""
        return self._unbroadcasted_scale_tril.expand(self._batch_shape + self._event_shape + self._event_shape)

    @lazy_property
    def covariance_matrix(self) -> Tensor:
        """The covariance, ``L L^T``."""
        L = self._unbroadcasted_scale_tril
        return (L @ L.mT).expand(self._batch_shape + self._event_shape + self._event_shape)

    @lazy_property
    def precision_matrix(self) -> Tensor:
        """The inverse of the covariance, ``L^-T L^-1``."""
        L_inv = self._unbroadcasted_scale_tril.inverse()
        return (L_inv.mT @ L_inv).expand(self._batch_shape + self._event_shape + self._event_shape)

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(self._batch_shape + self._event_shape)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        eps = _factories.randn(shape, dtype=self.loc.dtype)
        out: Tensor = self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)
        return out

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        M = _batch_mahalanobis(self._unbroadcasted_scale_tril, diff)
        half_log_det = _batch_half_log_det(self._unbroadcasted_scale_tril)
        out: Tensor = -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + M) - half_log_det
        return out

    def entropy(self) -> Tensor:
        half_log_det = _batch_half_log_det(self._unbroadcasted_scale_tril)
        H: Tensor = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + half_log_det
        if len(self._batch_shape) == 0:
            return H
        return H.expand(self._batch_shape)

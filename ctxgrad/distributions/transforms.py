"""Transforms: invertible maps with a computable log-Jacobian (torch's
``torch.distributions.transforms``).

A transform ``t`` maps ``x`` in ``t.domain`` to ``y = t(x)`` in ``t.codomain``; ``t.inv`` is the
inverse transform (made once and kept, so ``t.inv.inv is t``), and
``t.log_abs_det_jacobian(x, y)`` is ``log |dy/dx|``, summed over nothing: one number per
element for a pointwise transform, one per vector for a transform of vectors (``event_dim``
says how many rightmost dimensions one application covers).  A :class:`TransformedDistribution`
pushes a distribution through a list of them; :func:`biject_to` and :func:`transform_to` give
the transform from the unconstrained reals onto a constraint.  Every formula is written in
ctxgrad ops, so transforms and their Jacobians differentiate.

>>> import ctxgrad
>>> from ctxgrad.distributions.transforms import SigmoidTransform
>>> t = SigmoidTransform()
>>> y = t(ctxgrad.tensor([0.0, 2.0]))
>>> y
tensor([0.5000, 0.8808])
>>> t.inv(y)
tensor([0.0000, 2.0000])
>>> t.log_abs_det_jacobian(ctxgrad.tensor([0.0, 2.0]), y)
tensor([-1.3863, -2.2539])
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import numpy as np

from ctxgrad import _factories
from ctxgrad._made_functions import cat, stack
from ctxgrad._tensor import Size, Tensor
from ctxgrad.distributions import constraints
from ctxgrad.distributions.distribution import broadcast_all
from ctxgrad.distributions.independent import _sum_rightmost
from ctxgrad.nn import functional as F
from ctxgrad.ops.shape import broadcast_shapes

__all__ = [
    "AbsTransform",
    "AffineTransform",
    "CatTransform",
    "ComposeTransform",
    "CorrCholeskyTransform",
    "CumulativeDistributionTransform",
    "ExpTransform",
    "IndependentTransform",
    "LowerCholeskyTransform",
    "PositiveDefiniteTransform",
    "PowerTransform",
    "ReshapeTransform",
    "SigmoidTransform",
    "SoftmaxTransform",
    "SoftplusTransform",
    "StackTransform",
    "StickBreakingTransform",
    "TanhTransform",
    "Transform",
    "identity_transform",
]


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


class Transform:
    """The base class of invertible maps with a computable log-Jacobian.

    A subclass defines ``_call`` (``x -> y``) and, where it can, ``_inverse`` (``y -> x``);
    a bijective one also ``log_abs_det_jacobian``.  It names its ``domain`` and ``codomain``
    (constraints), and ``bijective`` and ``sign`` (+1 or -1 for a monotone univariate map).

    Args:
        cache_size: 0, or 1 to remember the last ``(x, y)`` pair, so that ``t.inv(t(x))`` is
            ``x`` itself (and its graph), not a recomputation.
    """

    bijective = False
    domain: Any
    codomain: Any

    def __init__(self, cache_size: int = 0) -> None:
        if cache_size not in (0, 1):
            raise ValueError("cache_size must be 0 or 1")
        self._cache_size = cache_size
        self._inv: Transform | None = None
        self._cached_x_y: tuple[Any, Any] = (None, None)

    def __getstate__(self) -> dict[str, Any]:
        state = self.__dict__.copy()
        state["_inv"] = None  # the inverse points back here: rebuilt on demand
        return state

    @property
    def event_dim(self) -> int:
        """How many rightmost dimensions one application covers."""
        if self.domain.event_dim == self.codomain.event_dim:
            return int(self.domain.event_dim)
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self) -> Transform:
        """The inverse transform, made on first use and kept (``t.inv.inv is t``)."""
        if self._inv is None:
            self._inv = _InverseTransform(self)
        return self._inv

    @property
    def sign(self) -> Any:
        """The sign of the Jacobian's determinant (+1 increasing, -1 decreasing)."""
        raise NotImplementedError

    def with_cache(self, cache_size: int = 1) -> Transform:
        """This transform with another ``cache_size``."""
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{type(self)}.with_cache is not implemented")

    def __eq__(self, other: object) -> bool:
        return self is other

    def __ne__(self, other: object) -> bool:
        return not self.__eq__(other)

    def __call__(self, x: Tensor) -> Tensor:
        """``y = t(x)``."""
        if self._cache_size == 0:
            return self._call(x)
        x_old, y_old = self._cached_x_y
        if x is x_old:
            return y_old  # type: ignore[no-any-return]
        y = self._call(x)
        self._cached_x_y = x, y
        return y

    def _inv_call(self, y: Tensor) -> Tensor:
        if self._cache_size == 0:
            return self._inverse(y)
        x_old, y_old = self._cached_x_y
        if y is y_old:
            return x_old  # type: ignore[no-any-return]
        x = self._inverse(y)
        self._cached_x_y = x, y
        return x

    def _call(self, x: Tensor) -> Tensor:
        raise NotImplementedError

    def _inverse(self, y: Tensor) -> Tensor:
        raise NotImplementedError

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        """``log |dy/dx|`` at the pair ``(x, y = t(x))``."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return type(self).__name__ + "()"

    def forward_shape(self, shape: Any) -> Any:
        """The shape of ``t(x)`` for ``x`` of shape ``shape``."""
        return shape

    def inverse_shape(self, shape: Any) -> Any:
        """The shape of ``t.inv(y)`` for ``y`` of shape ``shape``."""
        return shape


class _InverseTransform(Transform):
    """The inverse of a transform (made by ``Transform.inv``, not directly)."""

    def __init__(self, transform: Transform) -> None:
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    @property
    def _base(self) -> Transform:
        assert self._inv is not None
        return self._inv

    @constraints.dependent_property(is_discrete=False)
    def domain(self) -> Any:
        return self._base.codomain

    @constraints.dependent_property(is_discrete=False)
    def codomain(self) -> Any:
        return self._base.domain

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return self._base.bijective

    @property
    def sign(self) -> Any:
        return self._base.sign

    @property
    def inv(self) -> Transform:
        return self._base

    def with_cache(self, cache_size: int = 1) -> Transform:
        return self._base.with_cache(cache_size).inv

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _InverseTransform) and self._base == other._base

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self._base!r})"

    def __call__(self, x: Tensor) -> Tensor:
        return self._base._inv_call(x)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        out: Tensor = -self._base.log_abs_det_jacobian(y, x)
        return out

    def forward_shape(self, shape: Any) -> Any:
        return self._base.inverse_shape(shape)

    def inverse_shape(self, shape: Any) -> Any:
        return self._base.forward_shape(shape)


class ComposeTransform(Transform):
    """The transforms ``parts`` applied in order; its Jacobian term sums theirs (each over the
    event dimensions the whole chain covers)."""

    def __init__(self, parts: Sequence[Transform], cache_size: int = 0) -> None:
        if cache_size:
            parts = [part.with_cache(cache_size) for part in parts]
        super().__init__(cache_size=cache_size)
        self.parts = list(parts)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ComposeTransform) and self.parts == other.parts

    @constraints.dependent_property(is_discrete=False)
    def domain(self) -> Any:
        if not self.parts:
            return constraints.real
        domain = self.parts[0].domain
        # The chain's event dim is the largest any part needs, traced back to the input.
        event_dim = self.parts[-1].codomain.event_dim
        for part in reversed(self.parts):
            event_dim += part.domain.event_dim - part.codomain.event_dim
            event_dim = max(event_dim, part.domain.event_dim)
        if event_dim > domain.event_dim:
            domain = constraints.independent(domain, event_dim - domain.event_dim)
        return domain

    @constraints.dependent_property(is_discrete=False)
    def codomain(self) -> Any:
        if not self.parts:
            return constraints.real
        codomain = self.parts[-1].codomain
        event_dim = self.parts[0].domain.event_dim
        for part in self.parts:
            event_dim += part.codomain.event_dim - part.domain.event_dim
            event_dim = max(event_dim, part.codomain.event_dim)
        if event_dim > codomain.event_dim:
            codomain = constraints.independent(codomain, event_dim - codomain.event_dim)
        return codomain

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return all(p.bijective for p in self.parts)

    @property
    def sign(self) -> Any:
        sign: Any = 1
        for p in self.parts:
            sign = sign * p.sign
        return sign

    @property
    def inv(self) -> Transform:
        if self._inv is None:
            inverse = ComposeTransform([p.inv for p in reversed(self.parts)])
            inverse._inv = self
            self._inv = inverse
        return self._inv

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x: Tensor) -> Tensor:
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        if not self.parts:
            return _factories.zeros_like(x)
        xs = [x]
        for part in self.parts[:-1]:
            xs.append(part(xs[-1]))  # free when the parts cache
        xs.append(y)
        total: Any = 0
        event_dim = self.domain.event_dim
        for part, x_in, y_out in zip(self.parts, xs[:-1], xs[1:]):
            total = total + _sum_rightmost(part.log_abs_det_jacobian(x_in, y_out), event_dim - part.domain.event_dim)
            event_dim += part.codomain.event_dim - part.domain.event_dim
        return total  # type: ignore[no-any-return]

    def forward_shape(self, shape: Any) -> Any:
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape: Any) -> Any:
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def __repr__(self) -> str:
        return type(self).__name__ + "(\n    " + ",\n    ".join(repr(p) for p in self.parts) + "\n)"


#: The identity map (an empty composition).
identity_transform = ComposeTransform([])


class IndependentTransform(Transform):
    """``base_transform`` with ``reinterpreted_batch_ndims`` more rightmost dimensions read as
    one event: the map is the same, its Jacobian term is summed over them."""

    def __init__(self, base_transform: Transform, reinterpreted_batch_ndims: int, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(self.base_transform, self.reinterpreted_batch_ndims, cache_size=cache_size)

    @constraints.dependent_property(is_discrete=False)
    def domain(self) -> Any:
        return constraints.independent(self.base_transform.domain, self.reinterpreted_batch_ndims)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self) -> Any:
        return constraints.independent(self.base_transform.codomain, self.reinterpreted_batch_ndims)

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return self.base_transform.bijective

    @property
    def sign(self) -> Any:
        return self.base_transform.sign

    def _call(self, x: Tensor) -> Tensor:
        if x.dim() < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y: Tensor) -> Tensor:
        if y.dim() < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return _sum_rightmost(self.base_transform.log_abs_det_jacobian(x, y), self.reinterpreted_batch_ndims)

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.base_transform!r}, {self.reinterpreted_batch_ndims})"

    def forward_shape(self, shape: Any) -> Any:
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape: Any) -> Any:
        return self.base_transform.inverse_shape(shape)


class ReshapeTransform(Transform):
    """The rightmost ``in_shape`` of a tensor reshaped to ``out_shape`` (a unit Jacobian)."""

    bijective = True

    def __init__(self, in_shape: Any, out_shape: Any, cache_size: int = 0) -> None:
        self.in_shape = Size(in_shape)
        self.out_shape = Size(out_shape)
        if self.in_shape.numel() != self.out_shape.numel():
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    @constraints.dependent_property
    def domain(self) -> Any:
        return constraints.independent(constraints.real, len(self.in_shape))

    @constraints.dependent_property
    def codomain(self) -> Any:
        return constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    def _call(self, x: Tensor) -> Tensor:
        batch_shape = tuple(x.shape[: x.dim() - len(self.in_shape)])
        return x.reshape(batch_shape + tuple(self.out_shape))

    def _inverse(self, y: Tensor) -> Tensor:
        batch_shape = tuple(y.shape[: y.dim() - len(self.out_shape)])
        return y.reshape(batch_shape + tuple(self.in_shape))

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return x.new_zeros(tuple(x.shape[: x.dim() - len(self.in_shape)]))

    def _moved(self, shape: Any, have: Size, want: Size) -> Any:
        if len(shape) < len(have):
            raise ValueError("Too few dimensions on input")
        cut = len(shape) - len(have)
        if tuple(shape[cut:]) != tuple(have):
            raise ValueError(f"Shape mismatch: expected {shape[cut:]} but got {have}")
        return Size(tuple(shape[:cut]) + tuple(want))

    def forward_shape(self, shape: Any) -> Any:
        return self._moved(shape, self.in_shape, self.out_shape)

    def inverse_shape(self, shape: Any) -> Any:
        return self._moved(shape, self.out_shape, self.in_shape)


class ExpTransform(Transform):
    """``y = exp(x)``."""

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ExpTransform)

    def _call(self, x: Tensor) -> Tensor:
        return x.exp()

    def _inverse(self, y: Tensor) -> Tensor:
        return y.log()

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return x


class PowerTransform(Transform):
    """``y = x ** exponent`` on the positive reals."""

    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent: Any, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        (self.exponent,) = broadcast_all(exponent)

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return PowerTransform(self.exponent, cache_size=cache_size)

    @property
    def sign(self) -> Any:
        return self.exponent.sign()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PowerTransform) and bool(self.exponent.eq(other.exponent).all().item())

    def _call(self, x: Tensor) -> Tensor:
        return x.pow(self.exponent)

    def _inverse(self, y: Tensor) -> Tensor:
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape: Any) -> Any:
        return broadcast_shapes(shape, tuple(self.exponent.shape))

    def inverse_shape(self, shape: Any) -> Any:
        return broadcast_shapes(shape, tuple(self.exponent.shape))


def _finfo(x: Tensor) -> Any:
    return np.finfo(x.array.dtype)


def _clipped_sigmoid(x: Tensor) -> Tensor:
    """The sigmoid kept inside ``(0, 1)``, so that its inverse stays finite."""
    finfo = _finfo(x)
    return x.sigmoid().clamp(min=float(finfo.tiny), max=1.0 - float(finfo.eps))


class SigmoidTransform(Transform):
    """``y = 1 / (1 + exp(-x))``, inverse ``logit(y)``."""

    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True
    sign = +1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SigmoidTransform)

    def _call(self, x: Tensor) -> Tensor:
        return _clipped_sigmoid(x)

    def _inverse(self, y: Tensor) -> Tensor:
        finfo = _finfo(y)
        y = y.clamp(min=float(finfo.tiny), max=1.0 - float(finfo.eps))
        out: Tensor = y.log() - (-y).log1p()
        return out

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        out: Tensor = -F.softplus(-x) - F.softplus(x)
        return out


class SoftplusTransform(Transform):
    """``y = log(1 + exp(x))`` (linear above 20, as ``F.softplus``)."""

    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SoftplusTransform)

    def _call(self, x: Tensor) -> Tensor:
        return F.softplus(x)

    def _inverse(self, y: Tensor) -> Tensor:
        out: Tensor = (-y).expm1().neg().log() + y
        return out

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        out: Tensor = -F.softplus(-x)
        return out


class TanhTransform(Transform):
    """``y = tanh(x)``, with the log-Jacobian written stably:
    ``2 (log 2 - x - softplus(-2x))``."""

    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = +1

    def __eq__(self, other: object) -> bool:
        return isinstance(other, TanhTransform)

    def _call(self, x: Tensor) -> Tensor:
        return x.tanh()

    def _inverse(self, y: Tensor) -> Tensor:
        return y.atanh()

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        out: Tensor = 2.0 * (math.log(2.0) - x - F.softplus(-2.0 * x))
        return out


class AbsTransform(Transform):
    """``y = |x|`` (not bijective: its inverse is the identity on the nonnegative half)."""

    domain = constraints.real
    codomain = constraints.positive

    def __eq__(self, other: object) -> bool:
        return isinstance(other, AbsTransform)

    def _call(self, x: Tensor) -> Tensor:
        return x.abs()

    def _inverse(self, y: Tensor) -> Tensor:
        return y


class AffineTransform(Transform):
    """``y = loc + scale * x``, pointwise; ``event_dim`` says how many rightmost dimensions
    make one event (its Jacobian term is summed over them).

    Args:
        loc: The shift (a tensor or a number).
        scale: The scale (a tensor or a number).
        event_dim: 0 for a univariate variable, 1 for vectors, 2 for matrices, ...
        cache_size: 0 or 1.
    """

    bijective = True

    def __init__(self, loc: Any, scale: Any, event_dim: int = 0, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.loc = loc
        self.scale = scale
        self._event_dim = event_dim

    @property
    def event_dim(self) -> int:
        return self._event_dim

    @constraints.dependent_property(is_discrete=False)
    def domain(self) -> Any:
        return constraints.real if self.event_dim == 0 else constraints.independent(constraints.real, self.event_dim)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self) -> Any:
        return constraints.real if self.event_dim == 0 else constraints.independent(constraints.real, self.event_dim)

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self.event_dim, cache_size=cache_size)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, AffineTransform):
            return False
        for mine, theirs in ((self.loc, other.loc), (self.scale, other.scale)):
            if _is_number(mine) and _is_number(theirs):
                if mine != theirs:
                    return False
            elif not bool((mine == theirs).all().item()):
                return False
        return True

    @property
    def sign(self) -> Any:
        if _is_number(self.scale):
            return 1 if float(self.scale) > 0 else -1 if float(self.scale) < 0 else 0
        return self.scale.sign()

    def _call(self, x: Tensor) -> Tensor:
        out: Tensor = self.loc + self.scale * x
        return out

    def _inverse(self, y: Tensor) -> Tensor:
        out: Tensor = (y - self.loc) / self.scale
        return out

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        shape = x.shape
        scale = self.scale
        if _is_number(scale):
            result = _factories.full_like(x, math.log(abs(scale)))
        else:
            result = scale.abs().log()
        if self.event_dim:
            result_size = tuple(result.shape[: result.dim() - self.event_dim]) + (-1,)
            result = result.view(result_size).sum(-1)
            shape = Size(shape[: len(shape) - self.event_dim])
        return result.expand(shape)

    def forward_shape(self, shape: Any) -> Any:
        return broadcast_shapes(shape, tuple(getattr(self.loc, "shape", ())), tuple(getattr(self.scale, "shape", ())))

    def inverse_shape(self, shape: Any) -> Any:
        return broadcast_shapes(shape, tuple(getattr(self.loc, "shape", ())), tuple(getattr(self.scale, "shape", ())))


class CorrCholeskyTransform(Transform):
    """Unconstrained vectors of length ``D (D - 1) / 2`` onto Cholesky factors of ``D x D``
    correlation matrices (lower triangular, positive diagonal, rows of unit norm): the vector
    fills the strict lower triangle, ``tanh`` takes each entry into ``(-1, 1)``, and each row
    is made a unit vector by a signed stick-breaking.  Its log-Jacobian is taken with respect
    to the factor's strict lower triangle (the matrix has fewer free entries than elements)."""

    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def _call(self, x: Tensor) -> Tensor:
        from ctxgrad.distributions.utils import vec_to_tril_matrix

        finfo = _finfo(x)
        x = x.tanh().clamp(min=-1 + float(finfo.eps), max=1 - float(finfo.eps))
        r = vec_to_tril_matrix(x, diag=-1)
        # each row: sign(r) sqrt(share), the shares broken off the stick 1 - r_1^2 - ...
        z1m_cumprod_sqrt = (1 - r**2).sqrt().cumprod(-1)
        r = r + _factories.eye(r.shape[-1], dtype=r.dtype)
        out: Tensor = r * F.pad(z1m_cumprod_sqrt[..., :-1], [1, 0], value=1)
        return out

    def _inverse(self, y: Tensor) -> Tensor:
        from ctxgrad.distributions.utils import tril_matrix_to_vec

        y_cumsum = 1 - (y * y).cumsum(-1)
        y_cumsum_shifted = F.pad(y_cumsum[..., :-1], [1, 0], value=1)
        t = tril_matrix_to_vec(y, diag=-1) / tril_matrix_to_vec(y_cumsum_shifted, diag=-1).sqrt()
        out: Tensor = (t.log1p() - t.neg().log1p()) / 2
        return out

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        from ctxgrad.distributions.utils import tril_matrix_to_vec

        y1m_cumsum = 1 - (y * y).cumsum(-1)
        # diag=-2: the shares left before each entry, without shifting the cumulative sum
        stick_breaking_logdet = 0.5 * tril_matrix_to_vec(y1m_cumsum, diag=-2).log().sum(-1)
        tanh_logdet = -2 * (x + F.softplus(-2 * x) - math.log(2.0)).sum(-1)
        out: Tensor = stick_breaking_logdet + tanh_logdet
        return out

    def forward_shape(self, shape: Any) -> Any:
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        n = shape[-1]
        d = round((0.25 + 2 * n) ** 0.5 + 0.5)
        if d * (d - 1) // 2 != n:
            raise ValueError("Input is not a flattened lower-diagonal number")
        return Size(tuple(shape[:-1]) + (d, d))

    def inverse_shape(self, shape: Any) -> Any:
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        d = shape[-1]
        return Size(tuple(shape[:-2]) + (d * (d - 1) // 2,))


class SoftmaxTransform(Transform):
    """The reals onto the simplex by ``exp`` and normalising (not bijective: its inverse is the
    log, one of the many preimages)."""

    domain = constraints.real_vector
    codomain = constraints.simplex

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SoftmaxTransform)

    def _call(self, x: Tensor) -> Tensor:
        probs = (x - x.max(-1, True)[0]).exp()
        out: Tensor = probs / probs.sum(-1, True)
        return out

    def _inverse(self, y: Tensor) -> Tensor:
        return y.log()

    def forward_shape(self, shape: Any) -> Any:
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape

    def inverse_shape(self, shape: Any) -> Any:
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape


class StickBreakingTransform(Transform):
    """The reals of dimension ``K - 1`` onto the ``K``-simplex by breaking a stick: each
    coordinate, through a sigmoid, takes its share of what the earlier ones left (bijective)."""

    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def __eq__(self, other: object) -> bool:
        return isinstance(other, StickBreakingTransform)

    @staticmethod
    def _offset(x: Tensor, top: int) -> Tensor:
        out: Tensor = top - x.new_ones(x.shape[-1]).cumsum(-1)
        return out

    def _call(self, x: Tensor) -> Tensor:
        z = _clipped_sigmoid(x - self._offset(x, x.shape[-1] + 1).log())
        z_cumprod = (1 - z).cumprod(-1)
        out: Tensor = F.pad(z, [0, 1], value=1) * F.pad(z_cumprod, [1, 0], value=1)
        return out

    def _inverse(self, y: Tensor) -> Tensor:
        y_crop = y[..., :-1]
        offset = self._offset(y_crop, y.shape[-1])
        # clamped: the stick left can round to 0 or below when y's last entry is about 0
        sf = (1 - y_crop.cumsum(-1)).clamp(min=float(_finfo(y).tiny))
        out: Tensor = y_crop.log() - sf.log() + offset.log()
        return out

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        x = x - self._offset(x, x.shape[-1] + 1).log()
        # 1 - sigmoid(x) = exp(-x) sigmoid(x)
        return (-x + F.logsigmoid(x) + y[..., :-1].log()).sum(-1)

    def forward_shape(self, shape: Any) -> Any:
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return Size(tuple(shape[:-1]) + (shape[-1] + 1,))

    def inverse_shape(self, shape: Any) -> Any:
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return Size(tuple(shape[:-1]) + (shape[-1] - 1,))


class LowerCholeskyTransform(Transform):
    """Square matrices onto lower-triangular ones with a positive diagonal: the strict lower
    triangle kept, the diagonal exponentiated."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def __eq__(self, other: object) -> bool:
        return isinstance(other, LowerCholeskyTransform)

    def _call(self, x: Tensor) -> Tensor:
        out: Tensor = x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().diag_embed()
        return out

    def _inverse(self, y: Tensor) -> Tensor:
        out: Tensor = y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().diag_embed()
        return out


class PositiveDefiniteTransform(Transform):
    """Square matrices onto positive-definite ones: ``L L^T`` of their lower-Cholesky map."""

    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PositiveDefiniteTransform)

    def _call(self, x: Tensor) -> Tensor:
        lower = LowerCholeskyTransform()(x)
        out: Tensor = lower @ lower.mT
        return out

    def _inverse(self, y: Tensor) -> Tensor:
        from ctxgrad.linalg import cholesky

        return LowerCholeskyTransform().inv(cholesky(y))


class StackTransform(Transform):
    """The transforms ``tseq`` applied each to one slice along ``dim`` (as ``stack`` builds
    a tensor from slices)."""

    def __init__(self, tseq: Sequence[Transform], dim: int = 0, cache_size: int = 0) -> None:
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("All elements of tseq must be Transform instances")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.dim = dim

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _slices(self, z: Tensor, name: str) -> list[Tensor]:
        if not -z.dim() <= self.dim < z.dim():
            raise AssertionError(f"dim {self.dim} out of range for tensor with {z.dim()} dimensions")
        if z.size(self.dim) != len(self.transforms):
            raise AssertionError(
                f"{name}.size({self.dim}) = {z.size(self.dim)} must equal len(transforms) {len(self.transforms)}"
            )
        return [z.select(self.dim, i) for i in range(z.size(self.dim))]

    def _call(self, x: Tensor) -> Tensor:
        return stack([t(s) for s, t in zip(self._slices(x, "x"), self.transforms)], self.dim)

    def _inverse(self, y: Tensor) -> Tensor:
        return stack([t.inv(s) for s, t in zip(self._slices(y, "y"), self.transforms)], self.dim)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        pieces = zip(self._slices(x, "x"), self._slices(y, "y"), self.transforms)
        return stack([t.log_abs_det_jacobian(xs, ys) for xs, ys, t in pieces], self.dim)

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self) -> Any:
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @constraints.dependent_property
    def codomain(self) -> Any:
        return constraints.stack([t.codomain for t in self.transforms], self.dim)


class CatTransform(Transform):
    """The transforms ``tseq`` applied each to its piece (of length ``lengths[i]``) along
    ``dim`` (as ``cat`` builds a tensor from pieces)."""

    def __init__(
        self, tseq: Sequence[Transform], dim: int = 0, lengths: Sequence[int] | None = None, cache_size: int = 0
    ) -> None:
        if not all(isinstance(t, Transform) for t in tseq):
            raise AssertionError("All elements of tseq must be Transform instances")
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.lengths = [1] * len(self.transforms) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.transforms):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match transforms ({len(self.transforms)})")
        self.dim = dim

    @property
    def event_dim(self) -> int:
        return max(t.event_dim for t in self.transforms)

    @property
    def length(self) -> int:
        return sum(self.lengths)

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _pieces(self, z: Tensor, name: str) -> list[Tensor]:
        if not -z.dim() <= self.dim < z.dim():
            raise AssertionError(f"dim {self.dim} out of range for {name} with {z.dim()} dimensions")
        if z.size(self.dim) != self.length:
            raise AssertionError(f"{name}.size({self.dim}) = {z.size(self.dim)} must equal length {self.length}")
        starts = np.cumsum([0, *self.lengths[:-1]])
        return [z.narrow(self.dim, int(start), length) for start, length in zip(starts, self.lengths)]

    def _call(self, x: Tensor) -> Tensor:
        return cat([t(piece) for piece, t in zip(self._pieces(x, "x"), self.transforms)], self.dim)

    def _inverse(self, y: Tensor) -> Tensor:
        return cat([t.inv(piece) for piece, t in zip(self._pieces(y, "y"), self.transforms)], self.dim)

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        terms = []
        for xs, ys, t in zip(self._pieces(x, "x"), self._pieces(y, "y"), self.transforms):
            term = t.log_abs_det_jacobian(xs, ys)
            if t.event_dim < self.event_dim:
                term = _sum_rightmost(term, self.event_dim - t.event_dim)
            terms.append(term)
        # the pieces' terms line up along dim unless dim lies inside the event: then they add
        dim = (self.dim - x.dim() if self.dim >= 0 else self.dim) + self.event_dim
        if dim < 0:
            return cat(terms, dim)
        total: Any = sum(terms)
        return total  # type: ignore[no-any-return]

    @property
    def bijective(self) -> bool:  # type: ignore[override]
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self) -> Any:
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @constraints.dependent_property
    def codomain(self) -> Any:
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)


class CumulativeDistributionTransform(Transform):
    """A distribution's cumulative distribution function, onto the unit interval."""

    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution: Any, cache_size: int = 0) -> None:
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self) -> Any:
        return self.distribution.support

    def _call(self, x: Tensor) -> Tensor:
        return self.distribution.cdf(x)  # type: ignore[no-any-return]

    def _inverse(self, y: Tensor) -> Tensor:
        return self.distribution.icdf(y)  # type: ignore[no-any-return]

    def log_abs_det_jacobian(self, x: Tensor, y: Tensor) -> Tensor:
        return self.distribution.log_prob(x)  # type: ignore[no-any-return]

    def with_cache(self, cache_size: int = 1) -> Transform:
        if self._cache_size == cache_size:
            return self
        return CumulativeDistributionTransform(self.distribution, cache_size=cache_size)

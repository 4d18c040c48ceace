"""Constraints: the sets a distribution's parameters and values live in (torch's
``torch.distributions.constraints``).

A constraint is an object with ``check(value)``, which returns a boolean tensor: ``True`` where
``value`` satisfies it.  ``event_dim`` says how many rightmost dimensions one check covers (a
simplex is a whole vector, so ``simplex.event_dim`` is 1 and its check reduces the last
dimension).  Distributions name them in ``arg_constraints`` and ``support``, and argument
validation (``validate_args``) calls ``check``.

>>> import ctxgrad
>>> from ctxgrad.distributions import constraints
>>> constraints.positive
GreaterThan(lower_bound=0.0)
>>> constraints.unit_interval.check(ctxgrad.tensor([0.5, 2.0]))
tensor([ True, False])
>>> constraints.simplex.check(ctxgrad.tensor([[0.25, 0.75], [0.5, 0.6]]))
tensor([ True, False])
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ctxgrad._tensor import Tensor, as_tensor

__all__ = [
    "Constraint",
    "boolean",
    "cat",
    "corr_cholesky",
    "dependent",
    "dependent_property",
    "greater_than",
    "greater_than_eq",
    "half_open_interval",
    "independent",
    "integer_interval",
    "interval",
    "is_dependent",
    "less_than",
    "lower_cholesky",
    "lower_triangular",
    "multinomial",
    "nonnegative",
    "nonnegative_integer",
    "one_hot",
    "positive",
    "positive_definite",
    "positive_integer",
    "positive_semidefinite",
    "real",
    "real_vector",
    "simplex",
    "square",
    "stack",
    "symmetric",
    "unit_interval",
]


def _values(value: Any) -> np.ndarray[Any, Any]:
    return value.array if isinstance(value, Tensor) else np.asarray(value)


def _shown(value: Any) -> str:
    """A bound as torch's f-strings show it (a 0-d tensor as its number)."""
    return str(value.item()) if isinstance(value, Tensor) and value.dim() == 0 else str(value)


class Constraint:
    """The base class: a set of values.  ``check(value)`` is ``True`` where ``value`` is in it.

    ``is_discrete`` says whether the set is discrete (a support of integers), and ``event_dim``
    how many rightmost dimensions make one element.
    """

    is_discrete = False
    event_dim = 0

    def check(self, value: Any) -> Tensor:
        """A boolean tensor, ``True`` where ``value`` satisfies the constraint."""
        return as_tensor(np.asarray(self._check(_values(value))))

    def _check(self, x: np.ndarray[Any, Any]) -> Any:
        raise NotImplementedError

    def __repr__(self) -> str:
        return type(self).__name__.lstrip("_") + "()"


class _Dependent(Constraint):
    """A placeholder for a set that depends on other arguments (its ``check`` refuses)."""

    def __init__(self, *, is_discrete: Any = NotImplemented, event_dim: Any = NotImplemented) -> None:
        self._is_discrete = is_discrete
        self._event_dim = event_dim

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        if self._is_discrete is NotImplemented:
            raise NotImplementedError(".is_discrete cannot be determined statically")
        return bool(self._is_discrete)

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        if self._event_dim is NotImplemented:
            raise NotImplementedError(".event_dim cannot be determined statically")
        return int(self._event_dim)

    def __call__(self, *, is_discrete: Any = NotImplemented, event_dim: Any = NotImplemented) -> _Dependent:
        if is_discrete is NotImplemented:
            is_discrete = self._is_discrete
        if event_dim is NotImplemented:
            event_dim = self._event_dim
        return _Dependent(is_discrete=is_discrete, event_dim=event_dim)

    def check(self, value: Any) -> Tensor:
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint: Any) -> bool:
    """Whether ``constraint`` is a :data:`dependent` placeholder."""
    return isinstance(constraint, _Dependent)


class dependent_property(property, _Dependent):
    """A property that is also a :data:`dependent` constraint (torch's decorator for a
    ``support`` that depends on the parameters): on the class it is the placeholder, whose
    ``is_discrete`` and ``event_dim`` are what the decorator was given."""

    def __init__(self, fn: Any = None, *, is_discrete: Any = NotImplemented, event_dim: Any = NotImplemented) -> None:
        property.__init__(self, fn)
        _Dependent.__init__(self, is_discrete=is_discrete, event_dim=event_dim)

    def __call__(self, fn: Any) -> dependent_property:  # type: ignore[override]
        return dependent_property(fn, is_discrete=self._is_discrete, event_dim=self._event_dim)

    def __repr__(self) -> str:
        return "DependentProperty()"


class _IndependentConstraint(Constraint):
    """``base_constraint`` over the ``reinterpreted_batch_ndims`` rightmost dimensions too."""

    def __init__(self, base_constraint: Constraint, reinterpreted_batch_ndims: int) -> None:
        if not isinstance(base_constraint, Constraint):
            raise TypeError(f"base_constraint must be a Constraint, got {type(base_constraint).__name__}")
        if not isinstance(reinterpreted_batch_ndims, int) or reinterpreted_batch_ndims < 0:
            raise ValueError(f"reinterpreted_batch_ndims must be a nonnegative int, got {reinterpreted_batch_ndims!r}")
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return self.base_constraint.is_discrete

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def _check(self, x: np.ndarray[Any, Any]) -> Any:
        result = np.asarray(self.base_constraint._check(x))
        n = self.reinterpreted_batch_ndims
        if result.ndim < n:
            expected = self.base_constraint.event_dim + n
            raise ValueError(f"Expected value.dim() >= {expected} but got {x.ndim}")
        return result.reshape(result.shape[: result.ndim - n] + (-1,)).all(-1)

    def __repr__(self) -> str:
        return f"IndependentConstraint({self.base_constraint!r}, {self.reinterpreted_batch_ndims})"


class _Boolean(Constraint):
    is_discrete = True

    def _check(self, x: np.ndarray[Any, Any]) -> Any:
        return (x == 0) | (x == 1)


class _OneHot(Constraint):
    is_discrete = True
    event_dim = 1

    def _check(self, x: np.ndarray[Any, Any]) -> Any:
        return ((x == 0) | (x == 1)).all(-1) & (x.sum(-1) == 1)


class _IntegerInterval(Constraint):
    is_discrete = True

    def __init__(self, lower_bound: Any, upper_bound: Any) -> None:
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound

    def _check(self, x: np.ndarray[Any, Any]) -> Any:
        return (x % 1 == 0) & (_values(self.lower_bound) <= x) & (x <= _values(self.upper_bound))

    def __repr__(self) -> str:
        return f"IntegerInterval(lower_bound={_shown(self.lower_bound)}, upper_bound={_shown(self.upper_bound)})"


class _IntegerGreaterThan(Constraint):
    is_discrete = True

    def __init__(self, lower_bound: Any) -> None:
        self.lower_bound = lower_bound

    def _check(self, x: np.ndarray[Any, Any]) -> Any:
        return (x % 1 == 0) & (x >= _values(self.lower_bound))

    def __repr__(self) -> str:
        return f"IntegerGreaterThan(lower_bound={_shown(self.lower_bound)})"


class _Multinomial(Constraint):
    """Vectors of nonnegative counts summing to at most ``upper_bound``."""

    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound: Any) -> None:
        self.upper_bound = upper_bound

    def _check(self, x: np.ndarray[Any, Any]) -> Any:
        return (x >= 0).all(-1) & (x.sum(-1) <= _values(self.upper_bound))


class _Real(Constraint):
    def _check(self, x: np.ndarray[Any, Any]) -> Any:
        return x == x  # False only for NaN


class _Bound(Constraint):
    """A set bounded by one value; ``_test`` compares."""

    def __init__(self, bound: Any) -> None:
        self._bound = bound

    def __repr__(self) -> str:
        name = type(self).__name__.lstrip("_")
        return f"{name}({self._field}={_shown(self._bound)})"

    _field = "lower_bound"


class _GreaterThan(_Bound):
    def __init__(self, lower_bound: Any) -> None:  # (torch's keyword)
        super().__init__(lower_bound)

    @property
    def lower_bound(self) -> Any:
        return self._bound

    def _check(self, x: np.ndarray[Any, Any]) -> Any:
        return x > _values(self._bound)


class _GreaterThanEq(_Bound):
    def __init__(self, lower_bound: Any) -> None:  # (torch's keyword)
        super().__init__(lower_bound)

    @property
    def lower_bound(self) -> Any:
        return self._bound

    def _check(self, x: np.ndarray[Any, Any]) -> Any:
        return x >= _values(self._bound)


class _LessThan(_Bound):
    _field = "upper_bound"

    def __init__(self, upper_bound: Any) -> None:  # (torch's keyword)
        super().__init__(upper_bound)

    @property
    def upper_bound(self) -> Any:
        return self._bound

    def _check(self, x: np.ndarray[Any, Any]) -> Any:
        return x < _values(self._bound)


class _Interval(Constraint):
    def __init__(self, lower_bound: Any, upper_bound: Any) -> None:
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound

    def _check(self, x: np.ndarray[Any, Any]) -> Any:
        return (_values(self.lower_bound) <= x) & (x <= _values(self.upper_bound))

    def __repr__(self) -> str:
        name = type(self).__name__.lstrip("_")
        return f"{name}(lower_bound={_shown(self.lower_bound)}, upper_bound={_shown(self.upper_bound)})"


class _HalfOpenInterval(_Interval):
    def _check(self, x: np.ndarray[Any, Any]) -> Any:
        return (_values(self.lower_bound) <= x) & (x < _values(self.upper_bound))


class _Simplex(Constraint):
    """Nonnegative vectors summing to 1 (within 1e-6)."""

    event_dim = 1

    def _check(self, x: np.ndarray[Any, Any]) -> Any:
        return (x >= 0).all(-1) & (np.abs(x.sum(-1) - 1) < 1e-6)


class _Square(Constraint):
    """Square matrices."""

    event_dim = 2

    def _check(self, x: np.ndarray[Any, Any]) -> Any:
        return np.full(x.shape[:-2], x.shape[-2] == x.shape[-1], dtype=bool)


class _Symmetric(_Square):
    """Symmetric matrices (within an absolute 1e-6)."""

    def _check(self, x: np.ndarray[Any, Any]) -> Any:
        square = super()._check(x)
        if not square.all():
            return square
        return np.isclose(x, np.swapaxes(x, -1, -2), atol=1e-6).all((-2, -1))


class _LowerTriangular(Constraint):
    """Lower-triangular square matrices."""

    event_dim = 2

    def _check(self, x: np.ndarray[Any, Any]) -> Any:
        return (np.tril(x) == x).reshape(x.shape[:-2] + (-1,)).min(-1)


class _LowerCholesky(Constraint):
    """Lower-triangular square matrices with a positive diagonal."""

    event_dim = 2

    def _check(self, x: np.ndarray[Any, Any]) -> Any:
        lower = (np.tril(x) == x).reshape(x.shape[:-2] + (-1,)).min(-1)
        positive = (np.diagonal(x, axis1=-2, axis2=-1) > 0).min(-1)
        return lower & positive


class _CorrCholesky(Constraint):
    """Lower Cholesky factors of correlation matrices: rows of unit Euclidean norm."""

    event_dim = 2

    def _check(self, x: np.ndarray[Any, Any]) -> Any:
        tol = np.finfo(x.dtype).eps * x.shape[-1] * 10 if x.dtype.kind == "f" else 0.0
        unit_rows = (np.abs(np.linalg.norm(x, axis=-1) - 1.0) <= tol).all(-1)
        return _LowerCholesky()._check(x) & unit_rows


class _PositiveSemidefinite(Constraint):
    """Symmetric matrices with nonnegative eigenvalues (as torch's, when some matrix of a batch
    is not symmetric the check is the symmetry check alone)."""

    event_dim = 2

    def _check(self, x: np.ndarray[Any, Any]) -> Any:
        symmetric = _Symmetric()._check(x)
        if not np.asarray(symmetric).all():
            return symmetric
        return (np.linalg.eigvalsh(x) >= 0).all(-1)


class _PositiveDefinite(Constraint):
    """Symmetric matrices whose Cholesky factorisation succeeds.  As torch's, when some matrix
    of a batch is not symmetric the check is the symmetry check alone (so a symmetric matrix
    that is not positive-definite passes then: the batch as a whole fails either way)."""

    event_dim = 2

    def _check(self, x: np.ndarray[Any, Any]) -> Any:
        symmetric = np.isclose(x, np.swapaxes(x, -1, -2), atol=1e-6).all((-2, -1))
        if not symmetric.all():
            return symmetric
        batch = x.shape[:-2]
        flat = x.reshape((-1,) + x.shape[-2:])
        ok = np.empty(len(flat), dtype=bool)
        for i, m in enumerate(flat):
            try:
                np.linalg.cholesky(m)
                ok[i] = True
            except np.linalg.LinAlgError:
                ok[i] = False
        return symmetric & ok.reshape(batch)


class _Cat(Constraint):
    """The constraints ``cseq`` applied each to its piece (of length ``lengths[i]``) along
    ``dim`` (as ``cat`` builds a tensor from pieces)."""

    def __init__(self, cseq: Any, dim: int = 0, lengths: Any = None) -> None:
        if not all(isinstance(c, Constraint) for c in cseq):
            raise AssertionError("All elements of cseq must be Constraint instances")
        self.cseq = list(cseq)
        self.lengths = [1] * len(self.cseq) if lengths is None else list(lengths)
        if len(self.lengths) != len(self.cseq):
            raise AssertionError(f"lengths ({len(self.lengths)}) must match cseq ({len(self.cseq)})")
        self.dim = dim

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        return int(max(c.event_dim for c in self.cseq))

    def _check(self, x: np.ndarray[Any, Any]) -> Any:
        if not -x.ndim <= self.dim < x.ndim:
            raise AssertionError(f"dim {self.dim} out of range for value with {x.ndim} dimensions")
        pieces = np.split(x, np.cumsum(self.lengths)[:-1], axis=self.dim)
        return np.concatenate([np.asarray(c._check(v)) for v, c in zip(pieces, self.cseq)], self.dim)


class _Stack(Constraint):
    """The constraints ``cseq`` applied each to one slice along ``dim`` (as ``stack`` builds a
    tensor from slices)."""

    def __init__(self, cseq: Any, dim: int = 0) -> None:
        if not all(isinstance(c, Constraint) for c in cseq):
            raise AssertionError("All elements of cseq must be Constraint instances")
        self.cseq = list(cseq)
        self.dim = dim

    @property
    def is_discrete(self) -> bool:  # type: ignore[override]
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self) -> int:  # type: ignore[override]
        dim = int(max(c.event_dim for c in self.cseq))
        if self.dim + dim < 0:
            dim += 1
        return dim

    def _check(self, x: np.ndarray[Any, Any]) -> Any:
        if not -x.ndim <= self.dim < x.ndim:
            raise AssertionError(f"dim {self.dim} out of range for value with {x.ndim} dimensions")
        slices = [np.take(x, i, axis=self.dim) for i in range(x.shape[self.dim])]
        return np.stack([np.asarray(c._check(v)) for v, c in zip(slices, self.cseq)], self.dim)


dependent = _Dependent()
boolean = _Boolean()
one_hot = _OneHot()
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
integer_interval = _IntegerInterval
multinomial = _Multinomial
real = _Real()
real_vector = _IndependentConstraint(real, 1)
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
unit_interval = _Interval(0.0, 1.0)
interval = _Interval
half_open_interval = _HalfOpenInterval
simplex = _Simplex()
lower_cholesky = _LowerCholesky()
lower_triangular = _LowerTriangular()
corr_cholesky = _CorrCholesky()
square = _Square()
symmetric = _Symmetric()
positive_semidefinite = _PositiveSemidefinite()
positive_definite = _PositiveDefinite()
independent = _IndependentConstraint
stack = _Stack
cat = _Cat

"""``biject_to`` and ``transform_to``: from a constraint to a transform that maps the
unconstrained reals onto it (torch's ``torch.distributions.constraint_registry``).

``biject_to(c)`` is a bijection (what a sampler that moves in unconstrained space and needs a
Jacobian wants); ``transform_to(c)`` need not be (``transform_to(simplex)`` is a softmax,
simpler for an optimiser than the stick-breaking bijection).  Both look the constraint up by
its type, so ``greater_than(3.0)`` and ``positive`` share one entry, and a user adds entries
with ``register``.

>>> import ctxgrad
>>> from ctxgrad.distributions import biject_to, constraints
>>> t = biject_to(constraints.interval(0.0, 2.0))
>>> t(ctxgrad.tensor([0.0, 3.0]))
tensor([1.0000, 1.9051])
>>> biject_to(constraints.simplex)(ctxgrad.zeros(2))
tensor([0.3333, 0.3333, 0.3333])
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, overload

from ctxgrad.distributions import constraints, transforms

__all__ = ["ConstraintRegistry", "biject_to", "transform_to"]

Factory = Callable[[Any], transforms.Transform]


class ConstraintRegistry:
    """A table from constraint types to functions that make a transform for a constraint."""

    def __init__(self) -> None:
        self._registry: dict[type, Factory] = {}

    @overload
    def register(self, constraint: Any, factory: None = None) -> Callable[[Factory], Factory]: ...
    @overload
    def register(self, constraint: Any, factory: Factory) -> Factory: ...

    def register(self, constraint: Any, factory: Factory | None = None) -> Any:
        """Register ``factory(constraint) -> Transform`` for a constraint type (or the type of a
        constraint object); without ``factory``, a decorator."""
        if factory is None:
            return lambda f: self.register(constraint, f)
        if isinstance(constraint, constraints.Constraint):
            constraint = type(constraint)
        if not isinstance(constraint, type) or not issubclass(constraint, constraints.Constraint):
            raise TypeError(f"Expected constraint to be either a Constraint subclass or instance, but got {constraint}")
        self._registry[constraint] = factory
        return factory

    def __call__(self, constraint: Any) -> transforms.Transform:
        """The transform onto ``constraint``; ``NotImplementedError`` when its type has none."""
        try:
            factory = self._registry[type(constraint)]
        except KeyError:
            raise NotImplementedError(f"Cannot transform {type(constraint).__name__} constraints") from None
        return factory(constraint)


biject_to = ConstraintRegistry()
transform_to = ConstraintRegistry()


def _both(*kinds: Any, bijective: bool = True) -> Callable[[Factory], Factory]:
    """Register a factory for each of ``kinds`` in ``transform_to``, and in ``biject_to`` too
    when what it makes is a bijection."""

    def decorate(factory: Factory) -> Factory:
        for kind in kinds:
            transform_to.register(kind, factory)
            if bijective:
                biject_to.register(kind, factory)
        return factory

    return decorate


@_both(constraints.real)
def _transform_to_real(constraint: Any) -> transforms.Transform:
    return transforms.identity_transform


@biject_to.register(constraints.independent)
def _biject_to_independent(constraint: Any) -> transforms.Transform:
    return transforms.IndependentTransform(biject_to(constraint.base_constraint), constraint.reinterpreted_batch_ndims)


@transform_to.register(constraints.independent)
def _transform_to_independent(constraint: Any) -> transforms.Transform:
    base = transform_to(constraint.base_constraint)
    return transforms.IndependentTransform(base, constraint.reinterpreted_batch_ndims)


# ``positive`` is a ``greater_than(0.0)``: one entry for both, as in torch.
@_both(constraints.greater_than, constraints.greater_than_eq)
def _transform_to_greater_than(constraint: Any) -> transforms.Transform:
    return transforms.ComposeTransform(
        [transforms.ExpTransform(), transforms.AffineTransform(constraint.lower_bound, 1)]
    )


@_both(constraints.less_than)
def _transform_to_less_than(constraint: Any) -> transforms.Transform:
    return transforms.ComposeTransform(
        [transforms.ExpTransform(), transforms.AffineTransform(constraint.upper_bound, -1)]
    )


@_both(constraints.interval, constraints.half_open_interval)
def _transform_to_interval(constraint: Any) -> transforms.Transform:
    lower, upper = constraint.lower_bound, constraint.upper_bound
    if transforms._is_number(lower) and lower == 0 and transforms._is_number(upper) and upper == 1:
        return transforms.SigmoidTransform()
    return transforms.ComposeTransform(
        [transforms.SigmoidTransform(), transforms.AffineTransform(lower, upper - lower)]
    )


@_both(constraints.corr_cholesky)
def _transform_to_corr_cholesky(constraint: Any) -> transforms.Transform:
    return transforms.CorrCholeskyTransform()


@biject_to.register(constraints.simplex)
def _biject_to_simplex(constraint: Any) -> transforms.Transform:
    return transforms.StickBreakingTransform()


@transform_to.register(constraints.simplex)
def _transform_to_simplex(constraint: Any) -> transforms.Transform:
    return transforms.SoftmaxTransform()


@transform_to.register(constraints.lower_cholesky)
def _transform_to_lower_cholesky(constraint: Any) -> transforms.Transform:
    return transforms.LowerCholeskyTransform()


@transform_to.register(constraints.positive_definite)
@transform_to.register(constraints.positive_semidefinite)
def _transform_to_positive_definite(constraint: Any) -> transforms.Transform:
    return transforms.PositiveDefiniteTransform()


@biject_to.register(constraints.stack)
def _biject_to_stack(constraint: Any) -> transforms.Transform:
    return transforms.StackTransform([biject_to(c) for c in constraint.cseq], constraint.dim)


@transform_to.register(constraints.stack)
def _transform_to_stack(constraint: Any) -> transforms.Transform:
    return transforms.StackTransform([transform_to(c) for c in constraint.cseq], constraint.dim)


@biject_to.register(constraints.cat)
def _biject_to_cat(constraint: Any) -> transforms.Transform:
    return transforms.CatTransform([biject_to(c) for c in constraint.cseq], constraint.dim, constraint.lengths)


@transform_to.register(constraints.cat)
def _transform_to_cat(constraint: Any) -> transforms.Transform:
    return transforms.CatTransform([transform_to(c) for c in constraint.cseq], constraint.dim, constraint.lengths)

"""The base class of every distribution, and the helpers the families share."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Generic, TypeVar, overload

import numpy as np

from ctxgrad import _dtypes, _factories
from ctxgrad._tensor import Size, Tensor
from ctxgrad.autograd.grad_mode import enable_grad, no_grad
from ctxgrad.distributions import constraints
from ctxgrad.ops.shape import broadcast_tensors

__all__ = [
    "Distribution",
    "broadcast_all",
    "clamp_probs",
    "lazy_property",
    "logits_to_probs",
    "probs_to_logits",
]

T = TypeVar("T")


class lazy_property(Generic[T]):
    """A property computed on first use and then stored on the instance (torch's
    ``lazy_property``: ``probs`` is computed from ``logits`` only when asked for).  It is
    computed with grad mode on, as torch's: asked for first inside ``no_grad`` (by ``sample``),
    the stored value still carries the graph that later uses differentiate through."""

    def __init__(self, wrapped: Callable[[Any], T]) -> None:
        self.wrapped = wrapped
        self.__doc__ = wrapped.__doc__
        self.__name__ = wrapped.__name__

    @overload
    def __get__(self, instance: None, obj_type: Any = None) -> lazy_property[T]: ...
    @overload
    def __get__(self, instance: object, obj_type: Any = None) -> T: ...

    def __get__(self, instance: Any, obj_type: Any = None) -> Any:
        if instance is None:
            return self
        with enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


def broadcast_all(*values: Any) -> tuple[Tensor, ...]:
    """The values (tensors or numbers) as tensors broadcast to one shape.  Numbers take the
    dtype of the first tensor among them when it is floating, else the default dtype."""
    if not all(isinstance(v, (Tensor, int, float)) for v in values):
        raise ValueError(
            "Input arguments must all be instances of numbers.Number, ctxgrad.Tensor or objects implementing "
            "__torch_function__."
        )
    like = next((v for v in values if isinstance(v, Tensor)), None)
    dtype = like.dtype if like is not None and like.array.dtype.kind in "fc" else _dtypes.get_default_dtype()
    tensors = [v if isinstance(v, Tensor) else _factories.tensor(v, dtype=dtype) for v in values]
    return tuple(broadcast_tensors(*tensors))


def logits_to_probs(logits: Tensor, is_binary: bool = False) -> Tensor:
    """Probabilities from logits: the sigmoid for a binary distribution, else the softmax of
    the last dimension."""
    if is_binary:
        return logits.sigmoid()
    return logits.softmax(-1)


def clamp_probs(probs: Tensor) -> Tensor:
    """``probs`` clamped into ``[eps, 1 - eps]`` (eps the dtype's machine epsilon)."""
    eps = float(np.finfo(probs.array.dtype).eps)
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs: Tensor, is_binary: bool = False) -> Tensor:
    """Logits from probabilities (clamped away from 0 and 1): ``log p - log1p(-p)`` for a
    binary distribution, else ``log p``."""
    ps = clamp_probs(probs)
    if is_binary:
        return ps.log() - (-ps).log1p()
    return ps.log()


def _shown(value: Tensor) -> str:
    """A tensor as torch's f-string shows it: a 0-d tensor as its number."""
    return str(value.item()) if value.dim() == 0 else str(value)


#: Whether distributions validate their arguments when ``validate_args`` is not given
#: (torch's default: yes, unless Python runs with ``-O``).
_VALIDATE_DEFAULT = [__debug__]


class Distribution:
    """The base class of probability distributions (torch's ``torch.distributions.Distribution``).

    A distribution has a ``batch_shape`` (independent, not identically distributed copies)
    and an ``event_shape`` (the shape of one draw).  ``sample(sample_shape)`` draws tensors of
    shape ``sample_shape + batch_shape + event_shape``; ``rsample`` does the same
    *reparameterised*, so that the draw is a differentiable function of the parameters
    (``has_rsample`` says whether it can).  ``log_prob(value)`` scores a value.

    Args:
        batch_shape: The shape of the batch of distributions.
        event_shape: The shape of one sample.
        validate_args: Whether to check the parameters (and later the values given to
            ``log_prob``) against ``arg_constraints`` (and ``support``); ``None`` follows
            :meth:`set_default_validate_args`.
    """

    has_rsample = False
    has_enumerate_support = False
    arg_constraints: ClassVar[dict[str, constraints.Constraint]] = {}

    @staticmethod
    def set_default_validate_args(value: bool) -> None:
        """Turn argument validation on or off for distributions made without ``validate_args``."""
        if value not in (True, False):
            raise ValueError
        _VALIDATE_DEFAULT[0] = value

    def __init__(self, batch_shape: Any = (), event_shape: Any = (), validate_args: bool | None = None) -> None:
        self._batch_shape = Size(batch_shape)
        self._event_shape = Size(event_shape)
        self._validate_args = _VALIDATE_DEFAULT[0] if validate_args is None else validate_args
        if self._validate_args:
            arg_constraints = self.arg_constraints
            for param, constraint in arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue
                if param not in self.__dict__ and isinstance(getattr(type(self), param, None), lazy_property):
                    continue  # skip checking lazily-constructed args
                value = getattr(self, param)
                if not bool(constraint.check(value).all()):
                    raise ValueError(
                        f"Expected parameter {param} ({type(value).__name__} of shape {tuple(value.shape)}) "
                        f"of distribution {self!r} to satisfy the constraint {constraint!r}, "
                        f"but found invalid values:\n{_shown(value)}"
                    )

    # ------------------------------------------------------------------ shapes
    @property
    def batch_shape(self) -> Size:
        """The shape over which parameters are batched."""
        return self._batch_shape

    @property
    def event_shape(self) -> Size:
        """The shape of a single sample (without batching)."""
        return self._event_shape

    def _extended_shape(self, sample_shape: Any = ()) -> Size:
        if not isinstance(sample_shape, Size):
            sample_shape = Size(sample_shape)
        return Size(sample_shape + self._batch_shape + self._event_shape)

    def expand(self, batch_shape: Any, _instance: Any = None) -> Distribution:
        """A new distribution with its batch dimensions expanded to ``batch_shape`` (no
        parameter is copied)."""
        raise NotImplementedError

    def _get_checked_instance(self, cls: type, _instance: Any = None) -> Any:
        if _instance is None and type(self).__init__ != cls.__init__:  # type: ignore[misc]
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom __init__ method "
                "must also define a custom .expand() method."
            )
        return self.__new__(type(self)) if _instance is None else _instance

    def _expanded(self, new: Any, batch_shape: Size) -> Any:
        """The end of every ``expand``: ``new`` (its parameters already expanded) gets
        ``batch_shape`` and this distribution's event shape, unvalidated (the parameters were
        checked when this one was made), and keeps this one's ``validate_args``."""
        Distribution.__init__(new, batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    # ------------------------------------------------------------------ the family's facts
    @property
    def support(self) -> Any:
        """The :mod:`constraints` object of the values the distribution takes."""
        raise NotImplementedError

    @property
    def mean(self) -> Tensor:
        """The mean."""
        raise NotImplementedError(f"{self.__class__} does not implement mean")

    @property
    def mode(self) -> Tensor:
        """The mode."""
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self) -> Tensor:
        """The variance."""
        raise NotImplementedError(f"{self.__class__} does not implement variance")

    @property
    def stddev(self) -> Tensor:
        """The standard deviation, ``variance.sqrt()``."""
        return self.variance.sqrt()

    # ------------------------------------------------------------------ sampling
    def sample(self, sample_shape: Any = ()) -> Tensor:
        """A sample (a batch of them) of shape ``sample_shape + batch_shape + event_shape``,
        outside the graph.  Draws come from ctxgrad's generator (``ctxgrad.manual_seed``)."""
        with no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape: Any = ()) -> Tensor:
        """A reparameterised sample: differentiable with respect to the parameters."""
        raise NotImplementedError

    def sample_n(self, n: int) -> Tensor:
        """``sample((n,))`` (deprecated in torch)."""
        return self.sample(Size((n,)))

    def log_prob(self, value: Tensor) -> Tensor:
        """The log of the probability density (or mass) at ``value``."""
        raise NotImplementedError

    def cdf(self, value: Tensor) -> Tensor:
        """The cumulative distribution function at ``value``."""
        raise NotImplementedError

    def icdf(self, value: Tensor) -> Tensor:
        """The inverse of the cumulative distribution function at ``value``."""
        raise NotImplementedError

    def enumerate_support(self, expand: bool = True) -> Tensor:
        """All the values of a discrete distribution, along a new leading dimension."""
        raise NotImplementedError

    def entropy(self) -> Tensor:
        """The entropy (in nats), over ``batch_shape``."""
        raise NotImplementedError

    def perplexity(self) -> Tensor:
        """``exp(entropy)``."""
        return self.entropy().exp()

    # ------------------------------------------------------------------ validation, printing
    def _validate_sample(self, value: Any) -> None:
        if not isinstance(value, Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim_start = len(value.shape) - len(self._event_shape)
        if tuple(value.shape[event_dim_start:]) != tuple(self._event_shape):
            raise ValueError(
                f"The right-most size of value must match event_shape: {value.shape} vs {self._event_shape}."
            )
        actual_shape = value.shape
        expected_shape = self._batch_shape + self._event_shape
        for i, j in zip(reversed(actual_shape), reversed(expected_shape)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(
                    "Value is not broadcastable with batch_shape+event_shape: "
                    f"{Size(actual_shape)} vs {Size(expected_shape)}."
                )
        try:
            support = self.support
        except NotImplementedError:
            return
        if not bool(support.check(value).all()):
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape {tuple(value.shape)}) "
                f"to be within the support ({support!r}) of the distribution {self!r}, "
                f"but found invalid values:\n{_shown(value)}"
            )

    def __repr__(self) -> str:
        names = [k for k in self.arg_constraints if k in self.__dict__]
        shown = []
        for p in names:
            v = self.__dict__[p]
            shown.append(f"{p}: {_shown(v) if v.numel() == 1 else v.size()}")
        return f"{type(self).__name__}({', '.join(shown)})"

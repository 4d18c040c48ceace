"""Random sampling: ``randperm``, ``normal`` (all four of torch's overloads), ``bernoulli``,
``multinomial``, ``poisson``, ``binomial``, ``randint_like``, and the in-place samplers torch has
(``uniform_``, ``normal_``, ``bernoulli_``, ``exponential_``, ``random_``, ``log_normal_``,
``geometric_``, ``cauchy_``).

Every draw comes from the one NumPy generator behind ``rand`` and ``randn``, so
``manual_seed`` makes them reproducible, or from the ``ctxgrad.Generator`` passed as
``generator=``; ctxgrad's streams are NumPy's, not torch's, so the
same seed gives other numbers than in torch (docs/differences.md).

As in torch, sampling is not reparameterised: the gradient of a sample with respect to the
tensors it was drawn from (``normal``'s mean and std, ``bernoulli``'s probabilities,
``poisson``'s rates) is zero, and an in-place sampler gives the overwritten values a zero
gradient.  Each is a Function whose node has torch's name (``NormalBackward3``,
``UniformBackward0``, ...), so a graph through a sample looks as torch's does.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ctxgrad import _dtypes, _factories, _memory_format
from ctxgrad._replayed import replayed_whole
from ctxgrad._tensor import Tensor, as_tensor
from ctxgrad.autograd._batched import align_samples
from ctxgrad.autograd._batched_tensor import (
    RANDOM_ERROR_MSG,
    SAME_RANDOMNESS_BATCHED_MSG,
    check_random_fill,
    random_carrier,
)
from ctxgrad.autograd._views import write_in_place
from ctxgrad.autograd.function import Function
from ctxgrad.ops._util import broadcast_error, write_out

__all__ = [
    "bernoulli",
    "bernoulli_",
    "binomial",
    "cauchy_",
    "exponential_",
    "geometric_",
    "log_normal_",
    "multinomial",
    "normal",
    "normal_",
    "poisson",
    "randint_like",
    "random_",
    "randperm",
    "uniform_",
]


_rng = _factories.rng


class Sampled(Function[Tensor]):
    """A sample drawn from the arrays of ``sources`` by ``draw(*arrays)`` (its shape: theirs,
    broadcast together), as a function of the sources whose gradient with respect to them is
    zero (torch's sampling is not reparameterised).

    Under vmap, as its ``randomness`` says: ``"different"`` draws once for the whole batch
    (every sample its own values), ``"same"`` refuses a batched source (as torch does), and
    ``"error"`` refuses any random op."""

    node_name = "NormalBackward3"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, draw: Callable[..., Any], *sources: Tensor) -> Tensor:
        arrays = [s.array for s in sources]
        values = np.asarray(draw(*arrays))
        ctx.shapes = [(a.shape, a.dtype) for a in arrays]
        ctx.out = (values.shape, values.dtype)
        return as_tensor(values)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, ...]:
        return (None, *(as_tensor(np.zeros(shape, dtype)) for shape, dtype in ctx.shapes))

    @staticmethod
    def jvp(ctx: Any, _: None, *tangents: Tensor | None) -> Tensor:
        shape, dtype = ctx.out
        return as_tensor(np.zeros(shape, dtype))

    @classmethod
    def vmap(cls, info: Any, in_dims: tuple[Any, ...], draw: Any, *sources: Tensor) -> tuple[Tensor, int]:
        _random_mode_allows(info, batched_input=True)
        return cls.apply(draw, *align_samples(sources, in_dims[1:])), 0


def _random_mode_allows(info: Any, batched_input: bool) -> None:
    if info.randomness == "error":
        raise RuntimeError(RANDOM_ERROR_MSG)
    if info.randomness == "same" and batched_input:
        raise RuntimeError(SAME_RANDOMNESS_BATCHED_MSG)


def _sample(cls: type[Sampled], draw: Callable[..., Any], *sources: Tensor) -> Tensor:
    """``cls.apply(draw, *sources)``; inside vmap, with a source batched at the levels that
    ask for ``"different"`` randomness (:func:`random_carrier`), so that each sample draws."""
    carrier = random_carrier()
    if carrier is None:
        return cls.apply(draw, *sources)
    return cls.apply(draw, *sources, carrier)


def _shape(*arrays: np.ndarray[Any, Any]) -> tuple[int, ...]:
    return np.broadcast_shapes(*(a.shape for a in arrays))


class NormalTensorNumber(Sampled):
    node_name = "NormalBackward1"


class NormalNumberTensor(Sampled):
    node_name = "NormalBackward2"


class Bernoulli(Sampled):
    node_name = "BernoulliBackward0"


class BernoulliNumber(Sampled):
    node_name = "BernoulliBackward1"


class Poisson(Sampled):
    node_name = "PoissonBackward0"


class Binomial(Sampled):
    """torch gives a binomial sample a history whose backward refuses (there is no derivative
    with respect to the counts or probabilities, not even a zero one)."""

    node_name = "NotImplemented"

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, ...]:
        raise RuntimeError("derivative for aten::binomial is not implemented")


class Multinomial(Sampled):
    node_name = "MultinomialBackward0"  # (its int64 result has no gradient, as in torch)


class Overwritten(Function[Tensor]):
    """The values an in-place sampler writes (``draw(shape, *arrays)``, ``arrays``: those of
    the tensors it draws from, as ``bernoulli_``'s probabilities); the overwritten values get
    a zero gradient.  Under vmap, ``"same"`` randomness writes one sample's draw into every
    sample (and refuses batched probabilities, as torch), ``"different"`` draws for each."""

    node_name = "UniformBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, draw: Callable[..., Any], *sources: Tensor) -> Tensor:
        data = x.array
        return as_tensor(np.asarray(draw(data.shape, *(s.array for s in sources))).astype(data.dtype))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, ...]:
        return (as_tensor(np.zeros_like(grad.array)), *(None,) * (len(ctx.needs_input_grad) - 1))

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, *_: None) -> Tensor:
        return as_tensor(np.zeros_like(tx.array))

    @classmethod
    def vmap(cls, info: Any, in_dims: tuple[Any, ...], x: Tensor, draw: Any, *sources: Tensor) -> tuple[Tensor, int]:
        _random_mode_allows(info, batched_input=any(d == 0 for d in in_dims[2:]))
        if info.randomness == "same":
            once = lambda shape, *arrays: np.broadcast_to(np.asarray(draw(shape[1:], *arrays)), shape)  # noqa: E731
            return cls.apply(x, once, *sources), 0
        aligned = (
            s.reshape((s.shape[0],) + (1,) * (x.ndim - s.ndim) + tuple(s.shape[1:]))
            if d == 0 and s.ndim < x.ndim
            else s
            for s, d in zip(sources, in_dims[2:])
        )
        return cls.apply(x, draw, *aligned), 0


def _fill(cls: type[Overwritten], x: Tensor, draw: Callable[..., Any], *sources: Tensor) -> Tensor:
    """``x`` overwritten in place with ``draw(shape, *arrays of sources)`` (inside vmap:
    torch's checks first)."""
    check_random_fill(x, "bernoulli", *sources)
    return write_in_place(cls, x, draw, *sources)


def _floating(name: str, x: Tensor, kernel: str) -> None:
    dt = x.array.dtype
    if dt.kind not in "fc":
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_dtypes.short_name(dt)}'")


def _fmt(value: float) -> str:
    return f"{value:g}"


# --------------------------------------------------------------------------- in place


@replayed_whole
def uniform_(input: Tensor, from_: float = 0.0, to: float = 1.0, *, generator: Any = None, **kwargs: Any) -> Tensor:
    """Fill with samples from the uniform distribution on ``[from, to)``, in place."""
    rng = _rng(generator, "uniform_")
    low = float(kwargs.pop("from", from_))
    if kwargs:
        raise TypeError(f"uniform_() got an unexpected keyword argument '{next(iter(kwargs))}'")
    _floating("uniform_", input, "check_uniform_bounds")
    if low > to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={_fmt(low)} > to={_fmt(to)}")
    return _fill(Overwritten, input, lambda shape: rng.uniform(low, float(to), shape))


class NormalInPlace(Overwritten):
    node_name = "NormalBackward0"


@replayed_whole
def normal_(input: Tensor, mean: float = 0.0, std: float = 1.0, *, generator: Any = None) -> Tensor:
    """Fill with samples from the normal distribution ``N(mean, std**2)``, in place."""
    rng = _rng(generator, "normal_")
    _floating("normal_", input, "normal_kernel_cpu")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt(std)}")
    return _fill(NormalInPlace, input, lambda shape: rng.normal(float(mean), float(std), shape))


class BernoulliNumberInPlace(Overwritten):
    node_name = "BernoulliBackward2"


class BernoulliTensorInPlace(Overwritten):
    node_name = "BernoulliBackward1"


@replayed_whole
def bernoulli_(input: Tensor, p: Any = 0.5, *, generator: Any = None) -> Tensor:
    """Fill with 1 (probability ``p``, a number or a tensor broadcast to this one) or 0, in place."""
    rng = _rng(generator, "bernoulli_")
    if isinstance(p, Tensor):
        return _fill(BernoulliTensorInPlace, input, lambda shape, probs: _bernoulli_fill(rng, shape, probs), p)
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_fmt(p)}")
    return _fill(BernoulliNumberInPlace, input, lambda shape: rng.random(shape) < float(p))


def _bernoulli_fill(
    rng: np.random.Generator, shape: tuple[int, ...], probs: np.ndarray[Any, Any]
) -> np.ndarray[Any, Any]:
    if probs.size and (probs.min() < 0 or probs.max() > 1):
        raise RuntimeError("bernoulli_ expects p to be in [0, 1], but got p with values outside it")
    out: np.ndarray[Any, Any] = rng.random(shape) < np.broadcast_to(probs, shape)
    return out


class ExponentialInPlace(Overwritten):
    node_name = "ExponentialBackward0"


@replayed_whole
def exponential_(input: Tensor, lambd: float = 1.0, *, generator: Any = None) -> Tensor:
    """Fill with samples from the exponential distribution of rate ``lambd``, in place."""
    rng = _rng(generator, "exponential_")
    _floating("exponential_", input, "exponential_cpu")
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_fmt(lambd)}")
    return _fill(ExponentialInPlace, input, lambda shape: rng.exponential(1.0 / float(lambd), shape))


class LogNormalInPlace(Overwritten):
    node_name = "LogNormalBackward0"


@replayed_whole
def log_normal_(input: Tensor, mean: float = 1.0, std: float = 2.0, *, generator: Any = None) -> Tensor:
    """Fill with ``exp(N(mean, std**2))`` samples, in place."""
    rng = _rng(generator, "log_normal_")
    _floating("log_normal_", input, "log_normal_cpu")
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_fmt(std)}")
    return _fill(LogNormalInPlace, input, lambda shape: rng.lognormal(float(mean), float(std), shape))


class CauchyInPlace(Overwritten):
    node_name = "CauchyBackward0"


@replayed_whole
def cauchy_(input: Tensor, median: float = 0.0, sigma: float = 1.0, *, generator: Any = None) -> Tensor:
    """Fill with samples from the Cauchy distribution (``median``, scale ``sigma``), in place."""
    rng = _rng(generator, "cauchy_")
    _floating("cauchy_", input, "cauchy_cpu")
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_fmt(sigma)}")
    return _fill(CauchyInPlace, input, lambda shape: float(median) + float(sigma) * rng.standard_cauchy(shape))


class GeometricInPlace(Overwritten):
    node_name = "GeometricBackward0"


@replayed_whole
def geometric_(input: Tensor, p: float, *, generator: Any = None) -> Tensor:
    """Fill with the number of Bernoulli(``p``) trials up to the first success (1, 2, ...), in place."""
    rng = _rng(generator, "geometric_")
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_fmt(p)}")
    return _fill(GeometricInPlace, input, lambda shape: rng.geometric(float(p), shape))


class RandomFromTo(Overwritten):
    node_name = "RandomBackward0"


class RandomTo(Overwritten):
    node_name = "RandomBackward1"


class RandomInPlace(Overwritten):
    node_name = "RandomBackward2"


def _random_bound(dt: np.dtype[Any]) -> int:
    """The largest value ``random_()`` draws for a dtype: every integer the dtype holds exactly."""
    if dt.kind == "f":
        return int(2 ** (np.finfo(dt).nmant + 1))
    if dt == np.bool_:
        return 1
    return int(np.iinfo(dt).max)


@replayed_whole
def random_(input: Tensor, *args: Any, generator: Any = None, **kwargs: Any) -> Tensor:
    """Fill with integers drawn uniformly from ``[from, to)`` (``random_(to)``: from 0;
    ``random_()``: from 0 to the largest integer the dtype holds exactly), in place."""
    rng = _rng(generator, "random_")
    low = kwargs.pop("from", None)
    high = kwargs.pop("to", None)
    if kwargs:
        raise TypeError(f"random_() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if len(args) == 2:
        low, high = args
    elif len(args) == 1:
        high = args[0]
    fn = RandomFromTo if low is not None else RandomTo if high is not None else RandomInPlace
    lo = 0 if low is None else int(low)
    if high is None:
        hi = _random_bound(input.array.dtype) + 1
    else:
        hi = int(high)
    if lo >= hi:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={lo} >= to={hi}")
    return _fill(fn, input, lambda shape: rng.integers(lo, hi, shape, endpoint=False))


# --------------------------------------------------------------------------- out of place


def _shape_of(size: Any) -> tuple[int, ...]:
    if isinstance(size, (int, np.integer)):
        return (int(size),)
    return tuple(int(s) for s in size)


@replayed_whole
def normal(
    mean: Any,
    std: Any = 1.0,
    size: Sequence[int] | None = None,
    *,
    generator: Any = None,
    out: Tensor | None = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """Samples from ``N(mean, std**2)``: ``mean`` and ``std`` tensors (broadcast together), a
    tensor and a number, or two numbers and a ``size``.  With ``out=``, drawn in ``out``'s
    dtype and written into it.

    >>> import ctxgrad
    >>> _ = ctxgrad.manual_seed(0)
    >>> ctxgrad.normal(2.0, 3.0, size=(2, 3)).shape
    ctxgrad.Size([2, 3])
    >>> out = ctxgrad.empty(3, dtype=ctxgrad.float64)
    >>> ctxgrad.normal(ctxgrad.zeros(3), 1.0, out=out) is out, out.dtype
    (True, ctxgrad.float64)
    """
    if out is not None:
        return _normal_out(mean, std, size, out, generator, dtype=dtype, device=device, requires_grad=requires_grad)
    rng = _rng(generator, "normal")
    mean_t, std_t = isinstance(mean, Tensor), isinstance(std, Tensor)
    if not mean_t and not std_t:
        if size is None:
            raise TypeError(
                "normal() received an invalid combination of arguments - got (float, float), but expected "
                "(Tensor mean, Tensor std), (Tensor mean, float std), (float mean, Tensor std) "
                "or (float mean, float std, tuple of ints size)"
            )
        if float(std) < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt(float(std))}")
        dt = _dtypes.get_default_dtype() if dtype is None else _dtypes.to_dtype(dtype)
        shape = _shape_of(size)
        m, sd = float(mean), float(std)
        if (batched := _factories._under_vmap(shape, _factories._draw(lambda s: rng.normal(m, sd, s), dt))) is not None:
            return batched  # type: ignore[no-any-return]
        return _factories._finish(rng.normal(m, sd, shape).astype(dt), requires_grad, device)
    if not std_t and float(std) < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt(float(std))}")
    _floating("normal", mean if mean_t else std, "normal_kernel_cpu")  # the samples' dtype is this one's
    if mean_t and std_t:
        try:
            np.broadcast_shapes(mean.array.shape, std.array.shape)
        except ValueError:
            a, b = mean.array.shape, std.array.shape
            raise RuntimeError(
                f"The size of tensor a ({a[-1] if a else 1}) must match the size of tensor b "
                f"({b[-1] if b else 1}) at non-singleton dimension {max(len(a), len(b)) - 1}"
            ) from None
        dt = mean.array.dtype  # torch's: the mean's, whatever the std's (float64 std, float32 mean: float32)
        return _sample(
            Sampled,
            lambda m, s, *c: (m + _checked_std(s) * rng.standard_normal(_shape(m, s, *c))).astype(dt),
            mean,
            std,
        )
    if mean_t:
        sd = float(std)
        return _sample(
            NormalTensorNumber, lambda m, *c: (m + sd * rng.standard_normal(_shape(m, *c))).astype(m.dtype), mean
        )
    m = float(mean)
    return _sample(
        NormalNumberTensor,
        lambda s, *c: (m + _checked_std(s) * rng.standard_normal(_shape(s, *c))).astype(s.dtype),
        std,
    )


def _checked_std(s: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    if s.size and s.min() < 0:
        raise RuntimeError("normal expects all elements of std >= 0.0")
    return s


def _normal_out(mean: Any, std: Any, size: Any, out: Tensor, generator: Any, **factory_kwargs: Any) -> Tensor:
    """``normal(..., out=out)``, checked in torch's order."""
    if not isinstance(mean, Tensor) and not isinstance(std, Tensor):
        return _normal_numbers_out(mean, std, size, out=out, generator=generator, **factory_kwargs)
    _check_out("normal", out)
    if size is not None:
        raise TypeError("normal(): with out=, a mean or std tensor takes no size (the samples have their shape)")

    def compute() -> Tensor:
        if isinstance(std, Tensor):
            if std.array.dtype.kind == "c":
                raise RuntimeError("normal expects standard deviation to be non-complex")
            _checked_std(std.array)
        elif float(std) < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt(float(std))}")
        m = mean
        if isinstance(mean, Tensor):
            # torch's shape: the mean's broadcast with the std's, or with out's for a number std
            other = std if isinstance(std, Tensor) else out
            try:
                shape = np.broadcast_shapes(mean.array.shape, other.array.shape)
            except ValueError:
                raise broadcast_error(mean.array, other.array) from None
            m = mean if other is std else mean.expand(shape)
        _floating("normal", out, "normal_kernel_cpu")
        # torch draws in out's dtype and adds the mean there
        dt = out.array.dtype
        for t in (mean, std):
            if isinstance(t, Tensor) and not _dtypes.can_cast(t.array.dtype, dt):
                raise RuntimeError(
                    f"result type {_dtypes.short_name(t.array.dtype)} can't be cast to the desired output type "
                    f"{_dtypes.short_name(dt)}"
                )
        in_dt = [t.to(dt) if isinstance(t, Tensor) else t for t in (m, std)]
        return normal(in_dt[0], in_dt[1], generator=generator)

    return write_out("normal", out, (mean, std), compute)


def _normal_numbers(
    mean: float,
    std: float,
    size: Sequence[int] | None,
    *,
    generator: Any = None,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
) -> Tensor:
    """``normal``'s number/number overload, refusing a dtype it cannot draw in (``dtype``:
    out's, as :func:`_factories.takes_out` passes it)."""
    dt = _dtypes.to_dtype(dtype)
    if size is not None and float(std) >= 0 and dt.kind not in "fc":  # (otherwise normal's own error comes first)
        raise NotImplementedError(f"\"normal_kernel_cpu\" not implemented for '{_dtypes.short_name(dt)}'")
    return normal(mean, std, size, generator=generator, dtype=dtype, device=device, requires_grad=requires_grad)


# torch's number/number overload is a factory: out's dtype (a dtype= must be it), out resized
# without a warning, requires_grad= honoured, and its own message for an out that requires grad
_normal_numbers_out = _factories.takes_out("normal")(_normal_numbers)


def _check_out(name: str, out: Any) -> None:
    if not isinstance(out, Tensor):  # (write_out would take a list: an out for several results)
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")


def _resized_silently(out: Tensor, result: Tensor) -> Tensor:
    """``result``, with ``out`` given its shape first: torch's ``bernoulli`` and
    ``multinomial`` resize their out without the warning of other ``out=`` ops."""
    if out.array.shape != result.array.shape:
        out.set_(as_tensor(np.empty(result.array.shape, out.array.dtype)))
    return result


@replayed_whole
def bernoulli(input: Tensor, p: Any = None, *, generator: Any = None, out: Tensor | None = None) -> Tensor:
    """1 with probability ``input`` (elementwise; or the number ``p``), else 0, in ``input``'s
    dtype (with ``out=``: in ``out``'s, which may be any but complex).

    >>> import ctxgrad
    >>> ctxgrad.bernoulli(ctxgrad.tensor([0.0, 1.0])).tolist()
    [0.0, 1.0]
    >>> ctxgrad.bernoulli(ctxgrad.tensor([0.0, 1.0]), out=ctxgrad.empty(2, dtype=ctxgrad.int64))
    tensor([0, 1])
    """
    if out is not None:
        return _bernoulli_out(input, p, generator, out)
    rng = _rng(generator, "bernoulli")
    data = input.array
    if p is not None:
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_fmt(p)}")
        # A draw of the input's shape (the input gives only that, so no gradient flows to it);
        # under vmap, one per sample with "different" randomness even for a shared input.
        prob = float(p)
        return _sample(
            BernoulliNumber,
            lambda data, *carrier: (rng.random(_shape(data, *carrier)) < prob).astype(data.dtype),
            input.detach(),
        )
    if data.dtype.kind not in "fc":
        raise NotImplementedError(f"\"bernoulli_tensor_cpu_p_\" not implemented for '{_dtypes.short_name(data.dtype)}'")
    return _sample(Bernoulli, lambda data, *carrier: _bernoulli_draw(rng, data, *carrier), input)


def _bernoulli_out(input: Tensor, p: Any, generator: Any, out: Tensor) -> Tensor:
    if p is not None:
        raise TypeError("bernoulli(): out= cannot be combined with p= (torch has no bernoulli(input, p, out=))")
    _check_out("bernoulli", out)

    def compute() -> Tensor:
        dt = out.array.dtype
        if dt.kind == "c":
            raise NotImplementedError(f"\"bernoulli_tensor_cpu_self_\" not implemented for '{_dtypes.short_name(dt)}'")
        # torch writes the 0/1 samples in out's dtype, so any out dtype takes them exactly
        return _resized_silently(out, bernoulli(input, generator=generator).to(dt))

    return write_out("bernoulli", out, (input,), compute)


def _bernoulli_draw(
    rng: np.random.Generator, data: np.ndarray[Any, Any], *carrier: np.ndarray[Any, Any]
) -> np.ndarray[Any, Any]:
    if data.size and (data.min() < 0 or data.max() > 1):
        raise RuntimeError(
            "Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message be improved?  "
            "If so, please report an enhancement request to PyTorch.)"
        )
    return (rng.random(_shape(data, *carrier)) < data).astype(data.dtype)


@replayed_whole
def poisson(input: Tensor, generator: Any = None) -> Tensor:
    """Samples from the Poisson distribution with the rates ``input``, in ``input``'s dtype."""
    rng = _rng(generator, "poisson")
    data = input.array
    if data.dtype.kind != "f":
        raise NotImplementedError(f"\"poisson_cpu\" not implemented for '{_dtypes.short_name(data.dtype)}'")
    return _sample(Poisson, lambda data, *carrier: _poisson_draw(rng, data, *carrier), input)


def _poisson_draw(
    rng: np.random.Generator, data: np.ndarray[Any, Any], *carrier: np.ndarray[Any, Any]
) -> np.ndarray[Any, Any]:
    if data.size and data.min() < 0:
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    return rng.poisson(np.broadcast_to(data, _shape(data, *carrier))).astype(data.dtype)


@replayed_whole
def binomial(count: Tensor, prob: Tensor, generator: Any = None) -> Tensor:
    """The number of successes in ``count`` trials of probability ``prob`` (broadcast together),
    in their floating dtype.

    >>> import ctxgrad
    >>> ctxgrad.binomial(ctxgrad.tensor([0.0, 5.0]), ctxgrad.tensor([0.3, 1.0]))
    tensor([0., 5.])
    """
    rng = _rng(generator, "binomial")
    for position, (name, value) in enumerate((("count", count), ("prob", prob)), 1):
        if not isinstance(value, Tensor):
            raise TypeError(
                f"binomial(): argument '{name}' (position {position}) must be Tensor, not {type(value).__name__}"
            )
    counts, probs = count.array, prob.array
    if counts.dtype.kind != "f":
        raise ValueError(
            f"binomial only supports floating-point dtypes for count, got: {_dtypes.short_name(counts.dtype)}"
        )
    if probs.dtype != counts.dtype:
        raise RuntimeError(
            f"Found dtype {_dtypes.short_name(probs.dtype)} but expected {_dtypes.short_name(counts.dtype)}"
        )
    if counts.dtype == np.float16:
        raise NotImplementedError("\"binomial_cpu\" not implemented for 'Half'")
    try:
        np.broadcast_shapes(counts.shape, probs.shape)
    except ValueError:
        from ctxgrad.ops._util import broadcast_error

        raise broadcast_error(counts, probs) from None
    return _sample(Binomial, lambda n, p, *carrier: _binomial_draw(rng, n, p, *carrier), count, prob)


def _binomial_draw(
    rng: np.random.Generator, n: np.ndarray[Any, Any], p: np.ndarray[Any, Any], *carrier: np.ndarray[Any, Any]
) -> np.ndarray[Any, Any]:
    # torch draws something for counts that are not whole numbers and probabilities outside
    # [0, 1] (and NaN for a NaN probability); ctxgrad refuses them (docs/differences.md).
    if n.size and not (np.isfinite(n).all() and (n >= 0).all() and (n == np.floor(n)).all()):
        raise RuntimeError("binomial(): expected count to hold whole numbers >= 0")
    if p.size and not ((p >= 0) & (p <= 1)).all():
        raise RuntimeError("binomial(): expected prob to be in [0, 1]")
    shape = _shape(n, p, *carrier)
    draws = rng.binomial(np.broadcast_to(n, shape).astype(np.int64), np.broadcast_to(p, shape).astype(np.float64))
    return np.asarray(draws).astype(n.dtype)


@replayed_whole
def multinomial(
    input: Tensor, num_samples: int, replacement: bool = False, *, generator: Any = None, out: Tensor | None = None
) -> Tensor:
    """``num_samples`` category indices drawn with the (unnormalised) weights ``input``, per
    row of a matrix; without ``replacement`` each category at most once.  An ``out=`` must be
    int64.

    >>> import ctxgrad
    >>> ctxgrad.multinomial(ctxgrad.tensor([0.0, 1.0, 0.0]), 2, replacement=True).tolist()
    [1, 1]
    """
    rng = _rng(generator, "multinomial")
    data = input.array
    if data.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if data.dtype.kind != "f":
        raise RuntimeError(
            f"multinomial only supports floating-point dtypes for input, got: {_dtypes.short_name(data.dtype)}"
        )
    if out is not None:  # (torch checks it here, between the input's checks and the count's)
        _check_out("multinomial", out)
        if out.array.dtype != np.int64:
            raise RuntimeError(f"multinomial expects Long tensor out, got: {_dtypes.short_name(out.array.dtype)}")
    n = int(num_samples)
    if n <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    categories = data.shape[-1]
    if not replacement and n > categories:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    draw = _multinomial_draw(rng, n, bool(replacement))
    if out is not None:
        # (not differentiable, so torch takes an input that requires grad)
        return write_out("multinomial", out, (), lambda: _resized_silently(out, _sample(Multinomial, draw, input)))
    samples: Tensor = _sample(Multinomial, draw, input)
    return samples


# The methods: torch's ``Tensor.bernoulli`` and ``Tensor.multinomial`` take no ``out=``.
def bernoulli_method(self: Tensor, p: Any = None, *, generator: Any = None) -> Tensor:
    """``Tensor.bernoulli``: :func:`bernoulli` of this tensor."""
    return bernoulli(self, p, generator=generator)


def multinomial_method(self: Tensor, num_samples: int, replacement: bool = False, *, generator: Any = None) -> Tensor:
    """``Tensor.multinomial``: :func:`multinomial` of this tensor's weights."""
    return multinomial(self, num_samples, replacement, generator=generator)


# (named as the methods, as torch's errors name them: "multinomial() got an unexpected keyword argument 'out'")
bernoulli_method.__name__ = bernoulli_method.__qualname__ = "bernoulli"
multinomial_method.__name__ = multinomial_method.__qualname__ = "multinomial"


def _multinomial_draw(rng: np.random.Generator, n: int, replacement: bool) -> Callable[..., np.ndarray[Any, Any]]:
    """``multinomial``'s draw: ``n`` categories per row of weights (the rows of the weights
    and of a vmap carrier broadcast together)."""

    def draw(data: np.ndarray[Any, Any], *carrier: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
        categories = data.shape[-1]
        lead = np.broadcast_shapes(data.shape[:-1], *(c.shape[:-1] for c in carrier))
        rows = np.broadcast_to(data, lead + (categories,)).reshape(-1, categories).astype(np.float64)
        if not np.isfinite(rows).all() or (rows < 0).any():
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        totals = rows.sum(axis=1)
        if (totals <= 0).any():
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        out = np.empty((rows.shape[0], n), dtype=np.int64)
        for i, (row, total) in enumerate(zip(rows, totals)):
            if not replacement and np.count_nonzero(row) < n:
                raise RuntimeError(
                    "invalid multinomial distribution (with replacement=False, not enough non-negative category "
                    "to sample)"
                )
            out[i] = rng.choice(categories, size=n, replace=replacement, p=row / total)
        return out.reshape(lead + (n,))

    return draw


@_factories.takes_out("randperm")
@replayed_whole
def randperm(
    n: int,
    *,
    generator: Any = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """A random permutation of ``0 .. n-1`` (int64 unless ``dtype`` says otherwise).

    >>> import ctxgrad
    >>> sorted(ctxgrad.randperm(4).tolist())
    [0, 1, 2, 3]
    """
    _memory_format.check_layout(layout, "randperm")
    rng = _rng(generator, "randperm")
    n = int(n)
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    dt = np.dtype(np.int64) if dtype is None else _dtypes.to_dtype(dtype)
    # Inside vmap, as its randomness says; "different" gives the samples the permutations
    # that as many calls in a row would (torch's order).
    draw = _factories._draw(lambda shape: _permutations(rng, shape), dt)
    if (batched := _factories._under_vmap((n,), draw)) is not None:
        return batched  # type: ignore[no-any-return]
    return _factories._finish(rng.permutation(n).astype(dt), requires_grad, device)


def _permutations(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray[Any, Any]:
    """Permutations of ``0 .. shape[-1]-1``, one drawn after the other for each of the
    leading positions of ``shape``."""
    n = shape[-1]
    rows = [rng.permutation(n) for _ in range(int(np.prod(shape[:-1], dtype=np.int64)))]
    return np.asarray(rows, dtype=np.int64).reshape(shape)


@replayed_whole
def randint_like(
    input: Tensor,
    low: int = 0,
    high: int | None = None,
    *,
    generator: Any = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    memory_format: Any = None,
    pin_memory: bool = False,
) -> Tensor:
    """Integers drawn uniformly from ``[low, high)`` (``randint_like(input, high)``: from 0),
    with ``input``'s shape and dtype."""
    _memory_format.check_layout(layout, "randint_like")
    if high is None:
        low, high = 0, low
    if int(low) >= int(high):
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={int(low)} >= to={int(high)}")
    dt = input._data.dtype if dtype is None else _dtypes.to_dtype(dtype)
    draws = _rng(generator, "randint_like")
    draw = _factories._draw(lambda shape: draws.integers(int(low), int(high), shape), dt)
    if (batched := _factories._under_vmap(tuple(input.shape), draw)) is not None:
        return batched  # type: ignore[no-any-return]
    values = draws.integers(int(low), int(high), input.array.shape).astype(dt)
    return _factories._finish(
        _factories.laid_out_as(input, values, memory_format, "randint_like"), requires_grad, device, pin_memory
    )

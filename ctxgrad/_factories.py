"""Ways to make tensors: ``tensor``, ``zeros``, ``arange``, ``randn`` and the rest.

Random tensors come from one NumPy ``Generator`` that ``manual_seed`` resets.
"""

from __future__ import annotations

import functools
import inspect
import operator
import secrets
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ctxgrad import _dtypes, _memory_format
from ctxgrad._device import check_device
from ctxgrad._generator import Generator, seed_value
from ctxgrad._replayed import replayed_whole
from ctxgrad._state import _state
from ctxgrad._tensor import Size, Tensor, _array_from, _check_requires_grad_dtype, _wrap

# Defined beside Tensor (L1), where the ops can import it; ``ctxgrad.as_tensor`` is this function.
from ctxgrad._tensor import as_tensor as as_tensor

#: The seed of :data:`_generator`: random at import (torch's ``initial_seed()``), then the
#: last one given to :func:`manual_seed` (or drawn by ``ctxgrad.seed()``).
_initial_seed: int = secrets.randbits(64)
_generator = np.random.default_rng(_initial_seed)


def manual_seed(seed: int) -> np.random.Generator:
    """Seed the generator behind ``rand``, ``randn`` and friends (and return it).

    As in torch, ``seed`` is converted with ``int()`` and may be any 64-bit integer, signed
    or not: a negative one counts from 2**64 (``manual_seed(-1)`` is seed 2**64 - 1).
    """
    global _generator, _initial_seed
    _initial_seed = seed_value(seed)
    _generator = np.random.default_rng(_initial_seed)
    return _generator


def rng(generator: Generator | None = None, caller: str = "rand") -> np.random.Generator:
    """The NumPy generator a draw comes from: ``generator``'s, or (None) the default one
    ``manual_seed`` seeds (read at each draw: seeding replaces it)."""
    if _state.modes.recorder is not None:  # (a draw that no replayed op of an open ctxgrad.trace makes)
        _state.modes.recorder.random_draw(f"{caller}()")
    if generator is None:
        return _generator
    if not isinstance(generator, Generator):
        raise TypeError(f"{caller}(): argument 'generator' must be ctxgrad.Generator, not {type(generator).__name__}")
    return generator.numpy_generator


def _finish(arr: np.ndarray[Any, Any], requires_grad: bool, dev: Any = None, pin_memory: bool = False) -> Tensor:
    if dev is not None:
        check_device(dev)
    if pin_memory:
        raise RuntimeError(PIN_MEMORY_REFUSED)
    t = _wrap(arr)
    if requires_grad:
        _check_requires_grad_dtype(arr.dtype, True)
        t._requires_grad = True
    if _state.modes.inference:
        t._inference = True
    return t


def takes_out(name: str, *, resizes: bool = False) -> Callable[[Callable[..., Tensor]], Callable[..., Tensor]]:
    """torch's ``out=`` keyword for the factory ``name`` (``zeros(2, 3, out=t)``): the values
    are made in ``out``'s dtype (a ``dtype=`` given too must be it) and written into ``out``,
    which is resized to their shape without a warning, as torch's factories resize it.

    An ``out`` that requires grad is refused as torch refuses it: by the factories that
    resize ``out`` first (``resizes``: ``empty``, ``randn``) always, as torch's ``resize_``
    does; by the others while grad mode is on (an ``out=`` call is not differentiable)."""

    def decorate(factory: Callable[..., Tensor]) -> Callable[..., Tensor]:
        @functools.wraps(factory)
        def with_out(*args: Any, out: Tensor | None = None, **kwargs: Any) -> Tensor:
            if out is None:
                return factory(*args, **kwargs)
            if not isinstance(out, Tensor):
                raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
            dt = out._data.dtype
            given = kwargs.get("dtype")
            if given is not None and _dtypes.to_dtype(given) != dt:
                raise RuntimeError(
                    f"dtype {_dtypes.short_name(_dtypes.to_dtype(given))} does not match dtype of out parameter "
                    f"({_dtypes.short_name(dt)})"
                )
            if out.requires_grad and resizes:
                raise RuntimeError("cannot resize variables that require grad")
            if out.requires_grad and _state.modes.grad_enabled:
                raise RuntimeError(
                    f"aten::{name}(): functions with out=... arguments don't support automatic differentiation, "
                    "but one of the arguments requires grad."
                )
            wants_grad = kwargs.pop("requires_grad", False)
            made = factory(*args, **{**kwargs, "dtype": dt})
            if out.shape != made.shape:
                out.resize_(made.shape)
            from ctxgrad.autograd.grad_mode import no_grad

            with no_grad():
                out.copy_(made)
            if wants_grad:
                out._set_requires_grad(True)
            return out

        signature = inspect.signature(factory)
        params = list(signature.parameters.values())
        keyword = inspect.Parameter("out", inspect.Parameter.KEYWORD_ONLY, default=None, annotation="Tensor | None")
        setattr(with_out, "__signature__", signature.replace(parameters=[*params, keyword]))  # noqa: B010
        return with_out

    return decorate


#: torch's answer, on a machine without an accelerator, to ``pin_memory=True``.
PIN_MEMORY_REFUSED = (
    "pin_memory=True requires a CUDA or other accelerator backend; "
    "no pinned memory allocator is available on this system."
)


class _NoSize:
    """The default of torch's ``size=`` keyword of the factories that take ``*size``: not
    given.  Its repr is ``...``, so the generated stubs read ``size: Any = ...``."""

    def __repr__(self) -> str:
        return "..."


NO_SIZE: Any = _NoSize()


def _size(size: tuple[Any, ...], maker: str, keyword: Any = NO_SIZE) -> tuple[int, ...]:
    """The shape of a factory: ``size`` (ints, or one sequence of them) or torch's ``size=``
    keyword (a sequence; ``zeros(size=[2, 3])``), one of the two, given to the factory
    ``maker``; what is not an int (a float, a string, a lone bool) is refused with torch's
    TypeError and a negative dimension with its RuntimeError (``zeros`` has a message of its own)."""
    if keyword is not NO_SIZE:
        if size:
            raise TypeError(f"{maker}() got multiple values for argument 'size'")
        if not isinstance(keyword, (tuple, list, Size)):
            raise TypeError(f"{maker}(): argument 'size' must be tuple of ints, not {type(keyword).__name__}")
        size = (keyword,)
    whole = len(size) == 1 and isinstance(size[0], (tuple, list, Size))
    if len(size) == 1 and not whole and (isinstance(size[0], bool) or not _is_int(size[0])):
        got = type(size[0]).__name__
        raise TypeError(f"{maker}(): argument 'size' (position 1) must be tuple of ints, not {got}")
    if whole:
        size = tuple(size[0])
    for at, n in enumerate(size):
        if not _is_int(n):
            raise TypeError(
                f"{maker}(): argument 'size' (position 1) must be tuple of ints, but found element of type "
                f"{type(n).__name__} at pos {at}"
            )
    shape = tuple(operator.index(n) for n in size)
    for n in shape:
        if n < 0:
            if maker == "zeros":
                raise RuntimeError("zeros: Dimension size must be non-negative.")
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: {list(shape)}")
    return shape


def _is_int(value: Any) -> bool:
    try:
        operator.index(value)
    except TypeError:
        return False
    return True


def _dtype_or_default(dtype: Any) -> np.dtype[Any]:
    return _dtypes.get_default_dtype() if dtype is None else _dtypes.to_dtype(dtype)


def tensor(
    data: Any, dtype: Any = None, device: Any = None, requires_grad: bool = False, pin_memory: bool = False
) -> Tensor:
    """A new tensor that copies ``data`` (nested lists, numbers, arrays or tensors).

    Python floats give the default dtype (float32), ints int64, bools bool.
    """
    return _finish(_array_from(data, dtype), requires_grad, device, pin_memory)


def from_numpy(array: np.ndarray[Any, Any]) -> Tensor:
    """A tensor that shares memory with ``array`` (changes to one show in the other)."""
    if not isinstance(array, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(array).__name__})")
    return as_tensor(array)


@takes_out("zeros")
def zeros(
    *sizes: Any,
    size: Any = NO_SIZE,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """A tensor of zeros."""
    _memory_format.check_layout(layout, "zeros")
    return _finish(
        np.zeros(_size(sizes, "zeros", size), dtype=_dtype_or_default(dtype)), requires_grad, device, pin_memory
    )


@takes_out("ones")
def ones(
    *sizes: Any,
    size: Any = NO_SIZE,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """A tensor of ones."""
    _memory_format.check_layout(layout, "ones")
    return _finish(
        np.ones(_size(sizes, "ones", size), dtype=_dtype_or_default(dtype)), requires_grad, device, pin_memory
    )


@takes_out("empty", resizes=True)
def empty(
    *sizes: Any,
    size: Any = NO_SIZE,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
    memory_format: Any = None,
) -> Tensor:
    """A tensor whose values are not initialised, laid out as ``memory_format`` says (by
    default row-major; ``channels_last`` puts dimension 1 innermost)."""
    _memory_format.check_layout(layout, "empty")
    shape = _size(sizes, "empty", size)
    fmt = _memory_format.checked(
        _memory_format.contiguous_format if memory_format is None else memory_format, "empty", shape
    )
    if fmt is _memory_format.preserve_format:
        raise RuntimeError("unsupported memory format Preserve")
    values = np.empty(shape, dtype=_dtype_or_default(dtype))
    if fmt is not _memory_format.contiguous_format:
        values = _memory_format.empty_in_format(values, fmt)
    return _finish(values, requires_grad, device, pin_memory)


@takes_out("full")
def full(
    size: Sequence[int],
    fill_value: Any,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """A tensor filled with ``fill_value``; its dtype follows the value, as in torch (a NumPy
    scalar counts as the Python number it holds: ``np.int64(7)`` gives int64)."""
    _memory_format.check_layout(layout, "full")
    fill_value = _fill_number(fill_value, "full")
    dt = _dtypes.scalar_dtype(fill_value) if dtype is None else _dtypes.to_dtype(dtype)
    return _finish(np.full(_size((size,), "full"), _fill(fill_value, dt), dtype=dt), requires_grad, device, pin_memory)


def _like(t: Tensor, dtype: Any) -> np.dtype[Any]:
    return t._data.dtype if dtype is None else _dtypes.to_dtype(dtype)


def laid_out_as(input: Tensor, values: np.ndarray[Any, Any], memory_format: Any, fn: str) -> np.ndarray[Any, Any]:
    """``values`` (a new array of ``input``'s shape) in the layout ``memory_format`` gives
    ``input``: a ``*_like`` factory keeps a transposed input's strides, as torch's do with
    their default ``preserve_format``."""
    fmt = _memory_format.checked(memory_format, fn, input.shape)
    if values.shape != input._data.shape:  # inside vmap: the batch is laid out row-major
        return values
    out = _memory_format.empty_in_format(input._data, fmt, values.dtype)
    if out.strides == values.strides:
        return values
    out[...] = values
    return out


def batched_as(input: Tensor, make: Callable[[tuple[int, ...]], Tensor]) -> Tensor:
    """A new tensor made from ``input`` (``zeros_like``, ``new_ones``, ...): ``make(lead)``
    with ``lead`` the batch dimensions ``input`` has inside vmap (``()`` outside), the result
    batched as ``input`` is, so that each sample has its own (as torch's batching rules
    give it: an in-place write or a random fill of one sample does not reach the others)."""
    if not _state.modes.vmap_levels:
        return make(())
    from ctxgrad.autograd._batched_tensor import BatchedTensor

    levels = []
    root = input
    while isinstance(root, BatchedTensor):
        levels.append(root.level)
        root = root.value
    out = make(tuple(root._data.shape[: len(levels)]))
    for level in reversed(levels):  # (the root holds the outermost level's dimension first)
        out = BatchedTensor(out, level)
    return out


def _made_like(
    name: str,
    make: Callable[[tuple[int, ...], np.dtype[Any]], np.ndarray[Any, Any]],
    input: Tensor,
    dtype: Any,
    layout: Any,
    device: Any,
    requires_grad: bool,
    memory_format: Any,
    pin_memory: bool,
) -> Tensor:
    """The body of the ``*_like`` factories that fill a new array: ``make(shape, dtype)`` with
    ``input``'s shape (and its batch dimensions inside vmap) and dtype, laid out as
    ``memory_format`` gives ``input``."""
    _memory_format.check_layout(layout, name)
    dt = _like(input, dtype)
    return batched_as(
        input,
        lambda lead: _finish(
            laid_out_as(input, make(lead + input._data.shape, dt), memory_format, name),
            requires_grad,
            device,
            pin_memory,
        ),
    )


def zeros_like(
    input: Tensor,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    memory_format: Any = None,
    pin_memory: bool = False,
) -> Tensor:
    """Zeros with ``input``'s shape and dtype."""
    return _made_like("zeros_like", np.zeros, input, dtype, layout, device, requires_grad, memory_format, pin_memory)


def ones_like(
    input: Tensor,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    memory_format: Any = None,
    pin_memory: bool = False,
) -> Tensor:
    """Ones with ``input``'s shape and dtype."""
    return _made_like("ones_like", np.ones, input, dtype, layout, device, requires_grad, memory_format, pin_memory)


def empty_like(
    input: Tensor,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    memory_format: Any = None,
    pin_memory: bool = False,
) -> Tensor:
    """An uninitialised tensor with ``input``'s shape and dtype."""
    return _made_like("empty_like", np.empty, input, dtype, layout, device, requires_grad, memory_format, pin_memory)


def full_like(
    input: Tensor,
    fill_value: Any,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    memory_format: Any = None,
    pin_memory: bool = False,
) -> Tensor:
    """``fill_value`` everywhere, with ``input``'s shape and dtype."""
    fill_value = _fill_number(fill_value, "full_like")  # (before the layout, as torch's arguments are read)

    def filled(shape: tuple[int, ...], dt: np.dtype[Any]) -> np.ndarray[Any, Any]:
        return np.full(shape, _fill(fill_value, dt), dt)

    return _made_like("full_like", filled, input, dtype, layout, device, requires_grad, memory_format, pin_memory)


def _fill(value: Any, dt: Any) -> Any:
    """A Python int or float checked (an int wrapped) as torch converts a fill value."""
    return _dtypes.fill_value_as(value, dt) if type(value) in (int, float) else value


def _fill_number(value: Any, maker: str) -> Any:
    """The fill value of ``maker`` as a Python number (from a NumPy scalar or a 0-d tensor, as
    torch reads them), refusing anything else with torch's TypeError."""
    if isinstance(value, np.generic) or (isinstance(value, Tensor) and value._data.ndim == 0):
        value = value.item()
    if not isinstance(value, (bool, int, float, complex)):
        raise TypeError(f"{maker}(): argument 'fill_value' (position 2) must be Number, not {type(value).__name__}")
    return value


@takes_out("arange")
def arange(
    start: Any,
    end: Any = None,
    step: Any = 1,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """Values from ``start`` (default 0) up to ``end``, excluded; int64 unless a bound is a float."""
    _memory_format.check_layout(layout, "arange")
    if end is None:
        start, end = 0, start
    values = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if any(isinstance(v, float) and not np.isfinite(v) for v in values[:2]):
        raise RuntimeError(f"unsupported range: {values[0]} -> {values[1]}")
    if values[2] == 0:
        raise RuntimeError("step must be nonzero")
    if (values[1] - values[0]) * values[2] < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype is None:
        dt = _dtypes.get_default_dtype() if any(isinstance(v, float) for v in values) else _dtypes.int64
    else:
        dt = _dtypes.to_dtype(dtype)
    return _finish(np.arange(values[0], values[1], values[2]).astype(dt), requires_grad, device, pin_memory)


def _draw(sample: Any, dt: Any) -> Any:
    """A maker of random tensors of a given shape from ``sample(shape)`` (an array)."""

    def draw(shape: tuple[int, ...]) -> Tensor:
        return _finish(np.asarray(sample(shape)).astype(dt), False)

    return draw


# The names of torch's kernels in its refusal of a random draw of an integer or bool dtype.
_UNIFORM, _NORMAL = "check_uniform_bounds", "normal_kernel_cpu"


def _floating(dt: np.dtype[Any], kernel: str) -> np.dtype[Any]:
    """``dt``, refused with torch's NotImplementedError unless floating or complex (a
    uniform or normal draw has no integer or bool form)."""
    if dt.kind not in "fc":
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{_dtypes.short_name(dt)}'")
    return dt


def _under_vmap(shape: tuple[int, ...], draw: Any) -> Any:
    """Inside vmap: the random tensor its ``randomness`` asks for (see ``random_under_vmap``)."""
    if not _state.modes.vmap_levels:
        return None
    from ctxgrad.autograd._batched_tensor import random_under_vmap

    return random_under_vmap(shape, draw)


@takes_out("rand")
@replayed_whole
def rand(
    *sizes: Any,
    size: Any = NO_SIZE,
    generator: Generator | None = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """Uniform samples from [0, 1)."""
    _memory_format.check_layout(layout, "rand")
    draws = rng(generator, "rand")
    shape = _size(sizes, "rand", size)
    dt = _floating(_dtype_or_default(dtype), _UNIFORM)
    if (batched := _under_vmap(shape, _draw(draws.random, dt))) is not None:
        return batched  # type: ignore[no-any-return]
    arr = draws.random(shape).astype(dt)
    return _finish(arr, requires_grad, device, pin_memory)


@takes_out("randn", resizes=True)
@replayed_whole
def randn(
    *sizes: Any,
    size: Any = NO_SIZE,
    generator: Generator | None = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """Standard normal samples."""
    _memory_format.check_layout(layout, "randn")
    draws = rng(generator, "randn")
    shape = _size(sizes, "randn", size)
    dt = _floating(_dtype_or_default(dtype), _NORMAL)
    if (batched := _under_vmap(shape, _draw(draws.standard_normal, dt))) is not None:
        return batched  # type: ignore[no-any-return]
    arr = draws.standard_normal(shape).astype(dt)
    return _finish(arr, requires_grad, device, pin_memory)


@takes_out("randint")
@replayed_whole
def randint(
    low: int,
    high: Any = None,
    size: Sequence[int] | None = None,
    *,
    generator: Generator | None = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """Integers drawn uniformly from [low, high): ``randint(high, size)`` or
    ``randint(low, high, size)``, as torch's two forms."""
    _memory_format.check_layout(layout, "randint")
    if size is None:
        if not isinstance(high, (tuple, list, Size)):
            raise TypeError("randint() missing required argument 'size' (a tuple of ints)")
        low, high, size = 0, low, high  # randint(high, size)
    if high is None:
        low, high = 0, low
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    dt = _dtypes.int64 if dtype is None else _dtypes.to_dtype(dtype)
    draws = rng(generator, "randint")
    if (
        batched := _under_vmap(_size((size,), "randint"), _draw(lambda s: draws.integers(low, high, size=s), dt))
    ) is not None:
        return batched  # type: ignore[no-any-return]
    return _finish(
        draws.integers(low, high, size=_size((size,), "randint")).astype(dt), requires_grad, device, pin_memory
    )


def is_tensor(obj: object) -> bool:
    """True for ctxgrad tensors."""
    return isinstance(obj, Tensor)


def is_inference(input: Tensor) -> bool:
    """True for a tensor made inside ``inference_mode`` (``input.is_inference()``)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"is_inference(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return input._inference


def numel(input: Tensor) -> int:
    """The number of elements of ``input``."""
    return int(input._data.size)


@replayed_whole
def rand_like(
    input: Tensor,
    *,
    generator: Generator | None = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    memory_format: Any = None,
    pin_memory: bool = False,
) -> Tensor:
    """Uniform samples from [0, 1) with ``input``'s shape and dtype."""
    _memory_format.check_layout(layout, "rand_like")
    draws = rng(generator, "rand_like")
    dt = _floating(_like(input, dtype), _UNIFORM)
    if (batched := _under_vmap(tuple(input.shape), _draw(draws.random, dt))) is not None:
        return batched  # type: ignore[no-any-return]
    return _finish(
        laid_out_as(input, draws.random(input._data.shape).astype(dt), memory_format, "rand_like"),
        requires_grad,
        device,
        pin_memory,
    )


@replayed_whole
def randn_like(
    input: Tensor,
    *,
    generator: Generator | None = None,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    memory_format: Any = None,
    pin_memory: bool = False,
) -> Tensor:
    """Standard normal samples with ``input``'s shape and dtype."""
    _memory_format.check_layout(layout, "randn_like")
    draws = rng(generator, "randn_like")
    dt = _floating(_like(input, dtype), _NORMAL)
    if (batched := _under_vmap(tuple(input.shape), _draw(draws.standard_normal, dt))) is not None:
        return batched  # type: ignore[no-any-return]
    return _finish(
        laid_out_as(input, draws.standard_normal(input._data.shape).astype(dt), memory_format, "randn_like"),
        requires_grad,
        device,
        pin_memory,
    )


def _number(value: Any) -> Any:
    return value.item() if isinstance(value, Tensor) else value


@takes_out("linspace")
def linspace(
    start: Any,
    end: Any,
    steps: int,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """``steps`` evenly spaced values from ``start`` to ``end``, both included.

    As in torch, the first half counts up from ``start`` and the second half down from
    ``end`` (so both ends are exact), in the output dtype."""
    _memory_format.check_layout(layout, "linspace")
    steps = int(steps)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dt = _dtype_or_default(dtype)
    start, end = _number(start), _number(end)
    work = dt if dt.kind in "fc" else np.dtype(np.float64)
    if dt.kind not in "fc":  # torch converts the ends to the integer dtype first
        start, end = int(start), int(end)
    if steps == 1:
        values = np.full(1, start, dtype=work)
    else:
        first, last = work.type(start), work.type(end)
        step = (last - first) / work.type(max(steps - 1, 1))
        i = np.arange(steps, dtype=work)
        values = np.where(i < steps // 2, first + i * step, last - (steps - 1 - i) * step).astype(work)
    return _finish(values.astype(dt), requires_grad, device, pin_memory)


@takes_out("logspace")
def logspace(
    start: Any,
    end: Any,
    steps: int,
    base: float = 10.0,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """``base ** linspace(start, end, steps)``."""
    _memory_format.check_layout(layout, "logspace")
    dt = _dtype_or_default(dtype)
    exponents = linspace(start, end, steps, dtype=np.float64)._data
    return _finish(np.power(float(base), exponents).astype(dt), requires_grad, device, pin_memory)


@takes_out("eye")
def eye(
    n: int,
    m: int | None = None,
    *,
    dtype: Any = None,
    layout: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    pin_memory: bool = False,
) -> Tensor:
    """The ``n`` x ``m`` identity matrix (``m`` defaults to ``n``)."""
    _memory_format.check_layout(layout, "eye")
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m is not None and m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    return _finish(
        np.eye(int(n), None if m is None else int(m), dtype=_dtype_or_default(dtype)), requires_grad, device, pin_memory
    )


def _same_dtype(input: Tensor, other: Any, op: str) -> None:
    if not isinstance(other, Tensor):
        raise TypeError(f"{op}(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    if input._data.dtype != other._data.dtype:
        raise RuntimeError(f"{_dtypes_cpp(input._data.dtype)} did not match {_dtypes_cpp(other._data.dtype)}")


def _dtypes_cpp(dt: np.dtype[Any]) -> str:
    return _dtypes.short_name(dt)


@replayed_whole
def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
    """Elementwise ``|input - other| <= atol + rtol * |other|`` (infinities close only to
    themselves; NaN close to NaN only with ``equal_nan``), as a bool tensor."""
    _same_dtype(input, other, "isclose")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")
    a, b = input._data, other._data
    if a.dtype == np.bool_:
        return _wrap(np.asarray(a == b))
    return _wrap(np.asarray(np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)))


def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    """True when every element of ``input`` is close to ``other`` (see :func:`isclose`)."""
    return bool(isclose(input, other, rtol, atol, equal_nan)._data.all())


def equal(input: Tensor, other: Tensor) -> bool:
    """True when both tensors have the same shape and the same values (NaN never equals)."""
    if input._data.shape != other._data.shape:
        return False
    return bool(np.array_equal(input._data, other._data))


# --------------------------------------------------------------------------- Tensor methods
# (attached to Tensor by ctxgrad/_surface.py)
def _new(
    make: Callable[..., Tensor], input: Tensor, sizes: tuple[Any, ...], size: Any, dtype: Any, **kwargs: Any
) -> Tensor:
    """``make(shape, dtype=...)`` for ``input.new_*`` (the shape spread or torch's ``size=``):
    inside vmap, one per sample of ``input`` (:func:`batched_as`)."""
    dt = input._data.dtype if dtype is None else dtype
    shape = _size(sizes, make.__name__, size)

    def per_sample(lead: tuple[int, ...]) -> Tensor:
        return make(lead + shape, dtype=dt, **kwargs)

    return batched_as(input, per_sample)


def new_zeros(
    input: Tensor,
    *sizes: Any,
    size: Any = NO_SIZE,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    layout: Any = None,
    pin_memory: bool = False,
) -> Tensor:
    """Zeros of ``size`` with this tensor's dtype (unless ``dtype`` is given)."""
    _memory_format.check_layout(layout, "new_zeros")
    return _new(zeros, input, sizes, size, dtype, device=device, requires_grad=requires_grad, pin_memory=pin_memory)


def new_ones(
    input: Tensor,
    *sizes: Any,
    size: Any = NO_SIZE,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    layout: Any = None,
    pin_memory: bool = False,
) -> Tensor:
    """Ones of ``size`` with this tensor's dtype (unless ``dtype`` is given)."""
    _memory_format.check_layout(layout, "new_ones")
    return _new(ones, input, sizes, size, dtype, device=device, requires_grad=requires_grad, pin_memory=pin_memory)


def new_empty(
    input: Tensor,
    *sizes: Any,
    size: Any = NO_SIZE,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    layout: Any = None,
    pin_memory: bool = False,
) -> Tensor:
    """An uninitialised tensor of ``size`` with this tensor's dtype (unless ``dtype`` is given)."""
    _memory_format.check_layout(layout, "new_empty")
    return _new(empty, input, sizes, size, dtype, device=device, requires_grad=requires_grad, pin_memory=pin_memory)


def new_full(
    input: Tensor,
    size: Sequence[int],
    fill_value: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    layout: Any = None,
    pin_memory: bool = False,
) -> Tensor:
    """``fill_value`` everywhere, in ``size``, with this tensor's dtype (unless ``dtype`` is given)."""
    _memory_format.check_layout(layout, "new_full")
    if not isinstance(size, (tuple, list, Size)):
        raise TypeError(f"new_full(): argument 'size' (position 1) must be tuple of ints, not {type(size).__name__}")
    fill_value = _fill_number(fill_value, "new_full")
    dt = input._data.dtype if dtype is None else dtype

    def per_sample(lead: tuple[int, ...]) -> Tensor:
        shape = lead + _size((size,), "new_full") if lead else size
        return full(shape, fill_value, dtype=dt, device=device, requires_grad=requires_grad, pin_memory=pin_memory)

    return batched_as(input, per_sample)


def new_tensor(
    input: Tensor,
    data: Any,
    *,
    dtype: Any = None,
    device: Any = None,
    requires_grad: bool = False,
    layout: Any = None,
    pin_memory: bool = False,
) -> Tensor:
    """A new tensor copying ``data``, with this tensor's dtype (unless ``dtype`` is given)."""
    _memory_format.check_layout(layout, "new_tensor")
    return tensor(
        data,
        dtype=input._data.dtype if dtype is None else dtype,
        device=device,
        requires_grad=requires_grad,
        pin_memory=pin_memory,
    )

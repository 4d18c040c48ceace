"""torch's runtime names that torch programs call around their tensors: type questions
(``is_complex``, ``is_floating_point``, ``is_nonzero``, ``is_storage``, ``typename``) and the
switches and objects of torch's accelerated runtime that mean nothing for NumPy on the CPU
(``compile``, ``autocast``, ``Stream``, ``Event``, ``set_flush_denormal``).

Each of the latter does what a CPU-only torch does where ctxgrad can do the same, and says
plainly where it cannot:

>>> import ctxgrad
>>> double = ctxgrad.compile(lambda x: x * 2)  # the function itself: no compiler here
>>> double(ctxgrad.ones(2))
tensor([2., 2.])
>>> with ctxgrad.Stream() as s:  # a CPU stream: work is already done when it returns
...     s.query()
True
>>> ctxgrad.typename(ctxgrad.tensor([1, 2])), ctxgrad.is_nonzero(ctxgrad.tensor([0.5]))
('ctxgrad.LongTensor', True)
"""

from __future__ import annotations

import functools
import importlib
import os
import warnings
from collections.abc import Callable
from types import TracebackType
from typing import Any, TypeVar

from ctxgrad import _dtypes
from ctxgrad._device import DEVICE_TYPES, check_device, device
from ctxgrad._tensor import Tensor

__all__ = [
    "Event",
    "Stream",
    "autocast",
    "compile",
    "get_autocast_dtype",
    "get_num_threads",
    "is_autocast_cpu_enabled",
    "is_autocast_enabled",
    "is_complex",
    "is_floating_point",
    "is_nonzero",
    "is_storage",
    "set_flush_denormal",
    "set_num_threads",
    "typename",
]

F = TypeVar("F", bound=Callable[..., Any])


def _tensor_argument(name: str, input: Any) -> Tensor:
    if not isinstance(input, Tensor):
        raise TypeError(f"{name}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    return input


def is_complex(input: Tensor) -> bool:
    """True for a complex tensor (``input.is_complex()``)."""
    return _tensor_argument("is_complex", input).is_complex()


def is_floating_point(input: Tensor) -> bool:
    """True for a floating-point tensor, float16, 32 or 64 (``input.is_floating_point()``)."""
    return _tensor_argument("is_floating_point", input).is_floating_point()


def is_nonzero(input: Tensor) -> bool:
    """The truth of a one-element tensor (``bool(input)``): a tensor of no elements or of
    more than one is torch's RuntimeError, since its truth is ambiguous."""
    data = _tensor_argument("is_nonzero", input).array
    if data.size != 1:
        raise RuntimeError(
            f"Boolean value of Tensor with {'no values' if data.size == 0 else 'more than one value'} is ambiguous"
        )
    return bool(data.reshape(()))


def is_storage(obj: Any) -> bool:
    """True for what ``Tensor.storage()`` and ``untyped_storage()`` return, as torch's."""
    from ctxgrad._storage import UntypedStorage

    return isinstance(obj, UntypedStorage)


def typename(obj: Any, /) -> str:
    """The type of ``obj``, fully qualified: a tensor's legacy type name
    (``'ctxgrad.FloatTensor'``, as ``x.type()``), else ``module.QualifiedName`` (builtins
    without their module), as ``torch.typename``."""
    if isinstance(obj, Tensor):
        return str(obj.type())
    module = getattr(obj, "__module__", "") or ""
    if hasattr(obj, "__qualname__"):
        qualname = obj.__qualname__
    elif hasattr(obj, "__name__"):
        qualname = obj.__name__
    else:
        module = obj.__class__.__module__ or ""
        qualname = obj.__class__.__qualname__
    return qualname if module in {"", "builtins"} else f"{module}.{qualname}"


def set_flush_denormal(mode: bool) -> bool:
    """Returns False: ctxgrad cannot flush denormal numbers to zero.

    torch sets the CPU's flush-to-zero and denormals-are-zero flags (SSE3's FTZ/DAZ) for its
    own kernels and returns True where the CPU has them.  NumPy gives no way to set those
    flags, and setting them behind its back would change every NumPy computation in the
    process, so ctxgrad leaves denormals alone and says so by returning False, which is what
    torch returns on a CPU without the flags: code that checks the result keeps working.
    """
    if not isinstance(mode, bool):
        raise RuntimeError(f"flush_denormal expects a bool, but got {type(mode).__name__}")
    return False


_COMPILE_MODES = ("default", "lite", "reduce-overhead", "max-autotune-no-cudagraphs", "max-autotune")


def compile(
    model: Callable[..., Any] | None = None,
    *,
    fullgraph: bool = False,
    dynamic: bool | None = None,
    backend: str | Callable[..., Any] | None = None,
    mode: str | None = None,
    options: dict[str, Any] | None = None,
    name: str | None = None,
    disable: bool = False,
    recompile_limit: int | None = None,
    isolate_recompiles: bool = False,
    shapes_spec: Any = None,
) -> Any:
    """torch.compile's signature and checks; returns ``model`` itself (a function or a
    module), or, called without one, a decorator that does.

    ctxgrad has no compiler: a compiled model runs eagerly, as torch runs a function its
    compiler falls back on (``backend="eager"``), with the same results, gradients and
    errors.  Nothing is warned, so ported code stays quiet.
    """
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified at the same time.")
    if mode is not None and mode not in _COMPILE_MODES:
        raise RuntimeError(f"Unrecognized mode={mode}, should be one of: {', '.join(_COMPILE_MODES)}")
    if model is None:
        return lambda model: compile(model, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode)
    if not callable(model):
        raise AssertionError(f"A callable function is expected, but {type(model)} is provided.")
    return model


# Whether autocast is on, and its dtype, per device type, as torch reports them.
_AUTOCAST_ENABLED: dict[str, bool] = {}
_AUTOCAST_DTYPE: dict[str, Any] = {"cpu": _dtypes.bfloat16, "cuda": _dtypes.float16}


def is_autocast_enabled(device_type: str | None = None) -> bool:
    """Whether an ``autocast`` block for ``device_type`` is on (without one, CUDA's, as torch)."""
    return _AUTOCAST_ENABLED.get("cuda" if device_type is None else device_type, False)


def is_autocast_cpu_enabled() -> bool:
    """``is_autocast_enabled("cpu")``, with torch's ``DeprecationWarning``."""
    warnings.warn(
        "torch.is_autocast_cpu_enabled() is deprecated. Please use torch.is_autocast_enabled('cpu') instead.",
        DeprecationWarning,
        stacklevel=2,
    )
    return is_autocast_enabled("cpu")


def get_autocast_dtype(device_type: str) -> Any:
    """The dtype autocast for ``device_type`` names (CPU: bfloat16, CUDA: float16, as torch;
    ctxgrad computes in float32 either way)."""
    return _AUTOCAST_DTYPE.get(device_type, _dtypes.float16)


class autocast:
    """torch.autocast's arguments and checks, as a context manager and a decorator; the ops
    inside keep computing in their inputs' dtypes.

    torch's CPU autocast runs matmuls and convolutions in bfloat16 (or ``dtype=float16``) to
    be faster.  NumPy has no bfloat16 and its float16 matmul is slower than its float32 one,
    so lowering the precision would cost accuracy and gain nothing: ctxgrad computes those ops
    in float32 (a result torch gives as bfloat16 is float32 here; docs/differences.md).  The
    arguments are checked as torch checks them, and ``'cuda'`` warns and disables itself as
    in a CPU-only torch.
    """

    def __init__(
        self,
        device_type: str,
        dtype: Any = None,
        enabled: bool = True,
        cache_enabled: bool | None = None,
    ) -> None:
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        if device_type.split(":")[0] not in DEVICE_TYPES:
            raise RuntimeError(
                f"Expected one of {', '.join(DEVICE_TYPES)} device type at start of device string: {device_type}"
            )
        self.device = device_type
        self.fast_dtype = get_autocast_dtype(device_type.split(":")[0]) if dtype is None else dtype
        self._enabled = bool(enabled)
        if device_type == "cuda" and enabled:
            warnings.warn(
                "CUDA is not available or torch_xla is imported. Disabling autocast.", UserWarning, stacklevel=2
            )
            self._enabled = False
        elif device_type == "cpu" and enabled and str(dtype).rsplit(".")[-1] not in ("None", "bfloat16", "float16"):
            warnings.warn(
                "In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
                "CPU Autocast only supports dtypes of ctxgrad.bfloat16, ctxgrad.float16 currently.",
                UserWarning,
                stacklevel=2,
            )
            self._enabled = False

    def __enter__(self) -> autocast:
        # The state torch's is_autocast_enabled/get_autocast_dtype report (only these read it).
        kind = self.device.split(":")[0]
        self._before = (_AUTOCAST_ENABLED.get(kind, False), _AUTOCAST_DTYPE.get(kind))
        _AUTOCAST_ENABLED[kind] = self._enabled
        if self.fast_dtype is not None:
            _AUTOCAST_DTYPE[kind] = self.fast_dtype
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        kind = self.device.split(":")[0]
        _AUTOCAST_ENABLED[kind], _AUTOCAST_DTYPE[kind] = self._before
        return None

    def __call__(self, func: F) -> F:
        @functools.wraps(func)
        def inside(*args: Any, **kwargs: Any) -> Any:
            with self:
                return func(*args, **kwargs)

        return inside  # type: ignore[return-value]


class Stream:
    """A CPU stream, as a CPU-only torch makes with ``torch.Stream()``: every op has finished
    when it returns, so :meth:`query` is True and :meth:`synchronize` returns at once; events
    are refused as torch's CPU backend refuses them.  A context manager (``with Stream():``)
    that changes nothing."""

    def __init__(self, device: Any = None, *, priority: int = 0) -> None:
        check_device(device)
        self.priority = priority

    device_type = 0  # torch's DeviceType number of the CPU
    device_index = -1
    stream_id = 0

    @property
    def device(self) -> device:
        """``device(type='cpu')``."""
        return device("cpu")

    def query(self) -> bool:
        """True: all work on it has completed."""
        return True

    def synchronize(self) -> None:
        """Returns at once: nothing is pending."""

    def is_capturing(self) -> bool:
        """False: no graph capture on the CPU."""
        return False

    def wait_stream(self, stream: Stream) -> None:
        """Refused as torch's CPU backend refuses it (it would need events)."""
        raise RuntimeError("cpu backend doesn't support events.")

    def record_event(self, event: Event | None = None) -> Event:
        """Refused as torch's CPU backend refuses it."""
        raise RuntimeError("cpu backend doesn't support events.")

    def wait_event(self, event: Event) -> None:
        """Returns at once, as torch's CPU stream does."""

    def __enter__(self) -> Stream:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        return None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Stream)

    def __hash__(self) -> int:
        return hash((self.device_type, self.device_index, self.stream_id))

    def __repr__(self) -> str:
        return f"ctxgrad.Stream device_type=cpu, device_index=-1, stream_id={self.stream_id}"


class Event:
    """A CPU event, as a CPU-only torch makes with ``torch.Event()``: :meth:`query`,
    :meth:`synchronize` and :meth:`wait` return at once; :meth:`record` is refused as torch's
    CPU backend refuses it, so an event is never recorded and :meth:`elapsed_time` fails as
    torch's does."""

    def __init__(
        self, device: Any = None, *, enable_timing: bool = False, blocking: bool = False, interprocess: bool = False
    ) -> None:
        check_device(device)
        self.enable_timing = bool(enable_timing)

    device_index = -1
    event_id = 0

    @property
    def device(self) -> device:
        """``device(type='cpu')``."""
        return device("cpu")

    def query(self) -> bool:
        """True: nothing is pending."""
        return True

    def synchronize(self) -> None:
        """Returns at once."""

    def wait(self, stream: Stream | None = None) -> None:
        """Returns at once."""

    def record(self, stream: Stream | None = None) -> None:
        """Refused as torch's CPU backend refuses it."""
        raise RuntimeError("cpu backend doesn't support events.")

    def elapsed_time(self, end_event: Event) -> float:
        """Fails as torch's: a CPU event is never recorded."""
        if not (self.enable_timing and end_event.enable_timing):
            raise ValueError("Both events must be created with argument 'enable_timing=True'.")
        raise ValueError("Both events must be recorded before calculating elapsed time.")

    def __repr__(self) -> str:
        return f"ctxgrad.Event device_type=cpu, device_index=-1, event_flag={int(self.enable_timing)}, event_id=0"


# --------------------------------------------------------------------------- threads
_num_threads = os.cpu_count() or 1


def set_num_threads(nthreads: int) -> None:
    """Set the number of threads ops may use, as torch: NumPy's BLAS threads are limited to it
    when the ``threadpoolctl`` package is installed (without it the number is only recorded)."""
    global _num_threads
    if type(nthreads) is not int:
        raise RuntimeError(f"set_num_threads expects an int, but got {type(nthreads).__name__}")
    if nthreads <= 0:
        raise RuntimeError("set_num_threads expects a positive integer")
    _num_threads = nthreads
    try:
        threadpoolctl = importlib.import_module("threadpoolctl")
    except ImportError:
        return
    threadpoolctl.threadpool_limits(limits=nthreads, user_api="blas")


def get_num_threads() -> int:
    """The number of threads :func:`set_num_threads` set (the number of cores at first, as torch)."""
    return _num_threads

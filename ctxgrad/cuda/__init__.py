"""``ctxgrad.cuda``: what ``torch.cuda`` says on a machine without CUDA, so ported code runs.

ctxgrad runs on the CPU only.  Code written for torch often asks about CUDA before it decides
where to compute (``device = "cuda" if torch.cuda.is_available() else "cpu"``), seeds every
generator (``torch.cuda.manual_seed_all(0)``) or waits for the GPU (``synchronize()``).
Those calls behave here as in a CPU-only build of torch: the questions get "no" answers, the
seeding, synchronising and cache calls do nothing, the memory counters are 0, and the calls
that need a GPU to exist (``current_device``, ``get_device_name``, ...) raise torch's
``AssertionError``, saying ctxgrad runs on the CPU.

>>> import ctxgrad
>>> ctxgrad.cuda.is_available(), ctxgrad.cuda.device_count()
(False, 0)
>>> device = "cuda" if ctxgrad.cuda.is_available() else "cpu"
>>> ctxgrad.zeros(2, device=device)
tensor([0., 0.])
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

from ctxgrad._device import no_cuda

__all__ = [
    "BFloat16Tensor",
    "BoolTensor",
    "ByteTensor",
    "CharTensor",
    "DoubleTensor",
    "FloatTensor",
    "HalfTensor",
    "IntTensor",
    "LongTensor",
    "OutOfMemoryError",
    "ShortTensor",
    "amp",
    "current_device",
    "device_count",
    "empty_cache",
    "get_device_capability",
    "get_device_name",
    "get_device_properties",
    "get_rng_state",
    "get_rng_state_all",
    "init",
    "initial_seed",
    "ipc_collect",
    "is_available",
    "is_bf16_supported",
    "is_initialized",
    "manual_seed",
    "manual_seed_all",
    "max_memory_allocated",
    "max_memory_reserved",
    "mem_get_info",
    "memory_allocated",
    "memory_reserved",
    "memory_stats",
    "seed",
    "seed_all",
    "set_rng_state",
    "set_rng_state_all",
    "synchronize",
]


# --- questions: "no" ------------------------------------------------------------------------
def is_available() -> bool:
    """False: ctxgrad has no CUDA."""
    return False


def device_count() -> int:
    """0: ctxgrad sees no GPU."""
    return 0


def is_initialized() -> bool:
    """False: CUDA is never initialised."""
    return False


def is_bf16_supported(including_emulation: bool = True) -> bool:
    """False, as torch says without CUDA."""
    return False


# --- seeding and waiting: nothing to do -------------------------------------------------------
def manual_seed(seed: int) -> None:
    """Does nothing (there is no GPU generator); ``ctxgrad.manual_seed`` seeds the CPU's.
    The seed is still checked, as torch converts it (``int(seed)``)."""
    int(seed)


def manual_seed_all(seed: int) -> None:
    """Does nothing (there is no GPU generator); the seed is checked as :func:`manual_seed`."""
    int(seed)


def seed() -> None:
    """Does nothing (there is no GPU generator)."""


def seed_all() -> None:
    """Does nothing (there is no GPU generator)."""


def synchronize(device: Any = None) -> None:
    """Does nothing: CPU work is done when the call returns."""


def empty_cache() -> None:
    """Does nothing: there is no GPU memory cache."""


def get_rng_state_all() -> list[Any]:
    """The states of every GPU generator: none, ``[]``."""
    return []


def set_rng_state(new_state: Any, device: Any = "cuda") -> None:
    """Does nothing (there is no GPU generator), as torch without CUDA."""


def set_rng_state_all(new_states: Any) -> None:
    """Does nothing (there is no GPU generator)."""


# --- memory counters: 0 -----------------------------------------------------------------------
def memory_allocated(device: Any = None) -> int:
    """0 bytes: nothing lives on a GPU."""
    return 0


def max_memory_allocated(device: Any = None) -> int:
    """0 bytes: nothing lives on a GPU."""
    return 0


def memory_reserved(device: Any = None) -> int:
    """0 bytes: nothing lives on a GPU."""
    return 0


def max_memory_reserved(device: Any = None) -> int:
    """0 bytes: nothing lives on a GPU."""
    return 0


def memory_stats(device: Any = None) -> OrderedDict[str, Any]:
    """No statistics: an empty ordered dict, as torch without CUDA."""
    return OrderedDict()


# --- calls that need a GPU: torch's AssertionError ------------------------------------------------
def init() -> None:
    """Fails: ctxgrad has no CUDA to initialise."""
    raise no_cuda("ctxgrad.cuda.init()")


def current_device() -> int:
    """Fails: there is no current GPU."""
    raise no_cuda("ctxgrad.cuda.current_device()")


def get_device_name(device: Any = None) -> str:
    """Fails: there is no GPU to name."""
    raise no_cuda("ctxgrad.cuda.get_device_name()")


def get_device_capability(device: Any = None) -> tuple[int, int]:
    """Fails: there is no GPU."""
    raise no_cuda("ctxgrad.cuda.get_device_capability()")


def get_device_properties(device: Any = None) -> Any:
    """Fails: there is no GPU."""
    raise no_cuda("ctxgrad.cuda.get_device_properties()")


def mem_get_info(device: Any = None) -> tuple[int, int]:
    """Fails: there is no GPU memory."""
    raise no_cuda("ctxgrad.cuda.mem_get_info()")


def ipc_collect() -> None:
    """Fails: there is no GPU."""
    raise no_cuda("ctxgrad.cuda.ipc_collect()")


def initial_seed() -> int:
    """Fails: there is no GPU generator."""
    raise no_cuda("ctxgrad.cuda.initial_seed()")


def get_rng_state(device: Any = "cuda") -> Any:
    """Fails: there is no GPU generator."""
    raise no_cuda("ctxgrad.cuda.get_rng_state()")


# --- CUDA's legacy tensor types: names that exist, types that make nothing --------------------
class OutOfMemoryError(RuntimeError):
    """torch's error for a GPU out of memory; never raised here (nothing lives on a GPU), kept
    so that ``except torch.cuda.OutOfMemoryError:`` works."""


#: False: CUDA is never initialised (torch's module attribute, which code reads directly).
_initialized = False


class _CudaTensorType(type):
    """The class of ``ctxgrad.cuda.FloatTensor`` and the others: no tensor is one (every
    tensor is on the CPU), and making one is torch's ``TypeError`` for a build without CUDA."""

    def __instancecheck__(cls, instance: Any) -> bool:
        return False

    def __call__(cls, *args: Any, **kwargs: Any) -> Any:
        raise TypeError(
            f"type ctxgrad.cuda.{cls.__name__} not available. ctxgrad runs on the CPU only: it has no CUDA."
        )


class FloatTensor(metaclass=_CudaTensorType):
    """CUDA's float32 tensor type: see :class:`_CudaTensorType`."""


class DoubleTensor(metaclass=_CudaTensorType):
    """CUDA's float64 tensor type."""


class HalfTensor(metaclass=_CudaTensorType):
    """CUDA's float16 tensor type."""


class BFloat16Tensor(metaclass=_CudaTensorType):
    """CUDA's bfloat16 tensor type."""


class LongTensor(metaclass=_CudaTensorType):
    """CUDA's int64 tensor type."""


class IntTensor(metaclass=_CudaTensorType):
    """CUDA's int32 tensor type."""


class ShortTensor(metaclass=_CudaTensorType):
    """CUDA's int16 tensor type."""


class CharTensor(metaclass=_CudaTensorType):
    """CUDA's int8 tensor type."""


class ByteTensor(metaclass=_CudaTensorType):
    """CUDA's uint8 tensor type."""


class BoolTensor(metaclass=_CudaTensorType):
    """CUDA's bool tensor type."""


from ctxgrad.cuda import amp  # noqa: E402 - after the names it builds on

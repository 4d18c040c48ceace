"""Devices: :class:`device` (torch's ``torch.device``), the default device, and the one check
every place that makes or moves a tensor calls, :func:`check_device`.

ctxgrad runs on the CPU only.  As in a CPU-only build of torch, a device *object* of any of
torch's device types can be made (``device("cuda")`` is fine, code that builds one to pass
around ports unchanged), but asking for a tensor on anything but the CPU fails: on CUDA with
torch's ``AssertionError``, on the other types with a ``RuntimeError``, both saying that
ctxgrad runs on the CPU.

>>> import ctxgrad
>>> ctxgrad.device("cpu", 0)
device(type='cpu', index=0)
>>> ctxgrad.device("cuda:1").index
1
>>> ctxgrad.zeros(1, device="cuda")
Traceback (most recent call last):
  ...
AssertionError: ctxgrad runs on the CPU only: it has no CUDA (asked for device 'cuda')
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ctxgrad._tensor import Tensor

__all__ = [
    "check_device",
    "device",
    "get_default_device",
    "get_device",
    "is_pinned",
    "no_cuda",
    "pin_memory",
    "set_default_device",
]

#: The device types torch knows (its message lists them in this order).
DEVICE_TYPES = (
    "cpu",
    "cuda",
    "ipu",
    "xpu",
    "mkldnn",
    "opengl",
    "opencl",
    "ideep",
    "hip",
    "ve",
    "fpga",
    "maia",
    "xla",
    "lazy",
    "vulkan",
    "mps",
    "meta",
    "hpu",
    "mtia",
    "privateuseone",
)
_DEVICE_STRING = re.compile(r"([a-z_]+)(?::(0|[1-9][0-9]*))?")
_TYPE_PREFIX = re.compile(r"[a-zA-Z_]+")


class device:
    """A device: a type (``"cpu"``, ``"cuda"``, ...) and an optional index, as ``torch.device``.

    ``device("cpu")``, ``device("cpu:0")``, ``device("cpu", 0)`` and ``device(other_device)``
    are accepted.  Devices compare equal when type and index are equal (``device("cpu")`` is
    not ``device("cpu", 0)``), and, as in torch, never equal to a string: compare
    ``t.device.type == "cpu"``.
    """

    __slots__ = ("_index", "_type")
    _type: str
    _index: int | None

    def __init__(self, type: str | device | int, index: int | None = None) -> None:
        if isinstance(type, device):
            if index is not None:
                raise TypeError("device(): a device and an index cannot both be given")
            self._type, self._index = type.type, type.index
            return
        if isinstance(type, int) and not isinstance(type, bool):
            raise RuntimeError("Cannot access accelerator device when none is available.")
        if not isinstance(type, str):
            raise TypeError(f"device(): argument 'type' (position 1) must be str, not {_name(type)}")
        if index is not None and (not isinstance(index, int) or isinstance(index, bool)):
            raise TypeError(f"device(): argument 'index' (position 2) must be int, not {_name(index)}")
        match = _DEVICE_STRING.fullmatch(type)
        if match is None or match.group(1) not in DEVICE_TYPES:
            prefix = _TYPE_PREFIX.match(type)
            if prefix is not None and prefix.group(0) not in DEVICE_TYPES:
                raise RuntimeError(
                    f"Expected one of {', '.join(DEVICE_TYPES)} device type at start of device string: {type}"
                )
            raise RuntimeError(f"Invalid device string: '{type}'")
        name, number = match.groups()
        if number is not None:
            if index is not None:
                raise RuntimeError(
                    f"type (string) must not include an index because index was passed explicitly: {type}"
                )
            index = int(number)
        if index is not None and index < 0:
            raise RuntimeError("Device index must not be negative")
        self._type, self._index = name, index

    @property
    def type(self) -> str:
        """The device type, e.g. ``"cpu"``."""
        return self._type

    @property
    def index(self) -> int | None:
        """The device index, or None when none was given."""
        return self._index

    def __eq__(self, other: object) -> bool:
        if isinstance(other, device):
            return self._type == other._type and self._index == other._index
        return False

    def __hash__(self) -> int:
        return hash((self._type, self._index))

    def __repr__(self) -> str:
        if self._index is None:
            return f"device(type='{self._type}')"
        return f"device(type='{self._type}', index={self._index})"

    def __str__(self) -> str:
        return self._type if self._index is None else f"{self._type}:{self._index}"

    def __reduce__(self) -> tuple[Any, ...]:
        return (device, (str(self),))

    def __enter__(self) -> device:
        """``with device("cpu"):`` makes tensors on the CPU, as everywhere; another device
        fails on entry as :func:`check_device` fails (torch fails at the first tensor)."""
        check_device(self)
        return self

    def __exit__(self, *exc_info: object) -> None:
        return None


def _name(value: object) -> str:
    return "NoneType" if value is None else type(value).__name__


CPU = device("cpu")


def check_device(dev: Any) -> None:
    """Refuse a device other than the CPU for a tensor (None is the default device, the CPU).

    CUDA is an ``AssertionError``, as in a CPU-only build of torch; the other types a
    ``RuntimeError``; a string that names no device, torch's ``RuntimeError``.
    """
    if dev is None or dev is CPU or (isinstance(dev, str) and dev == "cpu"):
        return
    d = dev if isinstance(dev, device) else device(dev)
    if d.type == "cpu":
        return
    if d.type == "cuda":
        raise no_cuda(f"device '{d}'")
    if d.type == "meta":
        # torch's meta tensors have a shape and no values; every ctxgrad tensor holds a NumPy
        # array, and its ops compute on it, so a shape alone cannot flow through them.
        raise RuntimeError(
            f"ctxgrad runs on the CPU only: it has no meta device (asked for device '{d}'): every ctxgrad tensor "
            "holds its values in a NumPy array, so tensors with a shape and no data are not supported; "
            "build the module on the CPU (docs/differences.md, section 27)"
        )
    raise RuntimeError(f"ctxgrad runs on the CPU only: it has no {d.type} device (asked for device '{d}')")


def no_cuda(asked: str) -> AssertionError:
    """The error for anything that needs CUDA (``asked`` says what was asked for): an
    ``AssertionError``, as a CPU-only build of torch raises."""
    return AssertionError(f"ctxgrad runs on the CPU only: it has no CUDA (asked for {asked})")


def set_default_device(device: Any) -> None:
    """Set the device new tensors are made on: only the CPU (or None, the CPU) is accepted;
    anything else fails as :func:`check_device` does."""
    check_device(device)


def get_default_device() -> device:
    """The device new tensors are made on: always ``device(type='cpu')``."""
    return CPU


# --- Tensor methods about devices (attached by ctxgrad/_surface.py) --------------------------------
def get_device(input: Tensor) -> int:
    """The tensor's device index: -1, the CPU's, as in torch."""
    return -1


def is_pinned(input: Tensor, device: Any = None) -> bool:
    """False: pinned memory is for copies to a GPU, which ctxgrad does not have."""
    return False


def pin_memory(input: Tensor, device: Any = None) -> Tensor:
    """Fails as in a CPU-only torch: pinned memory needs an accelerator."""
    raise RuntimeError("Cannot access accelerator device when none is available.")

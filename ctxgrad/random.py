"""``ctxgrad.random``: the state of the generator behind ``rand``, ``randn``, dropout and the
``nn.init`` functions, as torch's ``torch.random``.

The generator is one NumPy ``Generator`` (PCG64).  :func:`get_rng_state` gives its state as a
``uint8`` tensor (a ``ctxgrad.ByteTensor``) and :func:`set_rng_state` puts it back, so a run
can be replayed; :func:`fork_rng` does both around a ``with`` block.  :func:`manual_seed`
seeds it, :func:`seed` seeds it from the operating system's entropy, and
:func:`initial_seed` says what it was seeded with.

>>> import ctxgrad
>>> _ = ctxgrad.manual_seed(0)
>>> state = ctxgrad.get_rng_state()
>>> a = ctxgrad.rand(3)
>>> ctxgrad.set_rng_state(state)
>>> ctxgrad.equal(ctxgrad.rand(3), a)
True
>>> with ctxgrad.random.fork_rng():
...     _ = ctxgrad.rand(100)  # draws here do not move the generator outside
>>> ctxgrad.initial_seed()
0

The state's bytes are ctxgrad's own (torch's generator is a Mersenne Twister with a state
of 5056 bytes): a state goes back into the ctxgrad that gave it, not into torch.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np

from ctxgrad import _dtypes, _factories
from ctxgrad._device import check_device
from ctxgrad._tensor import Tensor, as_tensor

__all__ = ["fork_rng", "get_rng_state", "initial_seed", "manual_seed", "seed", "set_rng_state"]

manual_seed = _factories.manual_seed

_BIT_GENERATOR = "PCG64"
#: The state's layout: PCG64's 128-bit state and increment, its buffered 32-bit half-word
#: (a flag and the word), and the seed ``initial_seed()`` reports; little-endian.
_FIELDS = (("state", 16), ("inc", 16), ("has_uint32", 1), ("uinteger", 4), ("seed", 8))
STATE_SIZE = sum(size for _, size in _FIELDS)


def seed() -> int:
    """Seed the generator with a non-deterministic 64-bit number and return that number."""
    value = secrets.randbits(64)
    _factories.manual_seed(value)
    return value


def initial_seed() -> int:
    """The seed the generator was last seeded with (random at import, as torch's)."""
    return _factories._initial_seed


def get_rng_state() -> Tensor:
    """The generator's state, as a 1-d ``uint8`` tensor for :func:`set_rng_state`."""
    state = _factories._generator.bit_generator.state
    values = {
        "state": state["state"]["state"],
        "inc": state["state"]["inc"],
        "has_uint32": state["has_uint32"],
        "uinteger": state["uinteger"],
        "seed": _factories._initial_seed,
    }
    raw = b"".join(int(values[name]).to_bytes(size, "little") for name, size in _FIELDS)
    return as_tensor(np.frombuffer(raw, dtype=np.uint8).copy())


def set_rng_state(new_state: Tensor) -> None:
    """Put back a state that :func:`get_rng_state` gave (a ``uint8`` tensor), so the draws
    that followed it are drawn again."""
    if not isinstance(new_state, Tensor):
        raise TypeError(f"expected a ctxgrad.ByteTensor, but got {type(new_state).__name__}")
    data = new_state.detach().array
    if data.dtype != _dtypes.uint8:
        raise TypeError("RNG state must be a ctxgrad.ByteTensor")
    if data.size != STATE_SIZE:
        raise RuntimeError(
            f"Expected a ctxgrad generator state of size {STATE_SIZE} but found the input RNG state size to be "
            f"{data.size}"
        )
    raw, values, at = data.reshape(-1).tobytes(), {}, 0
    for name, size in _FIELDS:
        values[name] = int.from_bytes(raw[at : at + size], "little")
        at += size
    generator = _factories._generator
    generator.bit_generator.state = {
        "bit_generator": _BIT_GENERATOR,
        "state": {"state": values["state"], "inc": values["inc"]},
        "has_uint32": values["has_uint32"],
        "uinteger": values["uinteger"],
    }
    _factories._initial_seed = values["seed"]


@contextmanager
def fork_rng(
    devices: Iterable[Any] | None = None,
    enabled: bool = True,
    _caller: str = "fork_rng",
    _devices_kw: str = "devices",
    device_type: str | None = None,
) -> Iterator[None]:
    """Save the generator's state on entry and restore it on exit, so random draws inside the
    block leave the draws after it unchanged (``enabled=False`` does nothing).

    ``devices`` lists GPUs to fork too: ctxgrad has none, so a non-empty list fails as
    ``check_device`` fails for CUDA; ``device_type`` is accepted as torch's.
    """
    if not enabled:
        yield
        return
    if devices is not None and list(devices):
        check_device("cuda")
    state = get_rng_state()
    seeded = _factories._generator
    try:
        yield
    finally:
        _factories._generator = seeded  # a manual_seed inside the block made a new generator
        set_rng_state(state)

"""``ctxgrad.Generator``: a random-number generator of its own, as ``torch.Generator``, for
the sampling functions' ``generator=`` argument.

Each generator is a NumPy ``Generator`` (PCG64), the same kind as the one behind ``rand``
and ``randn`` that ``ctxgrad.manual_seed`` seeds, but separate from it: draws with
``generator=g`` move ``g`` only.  Its state is a ``uint8`` tensor in the same layout as
``ctxgrad.get_rng_state()`` gives for the default generator.

>>> import ctxgrad
>>> g = ctxgrad.Generator().manual_seed(42)
>>> a = ctxgrad.rand(3, generator=g)
>>> b = ctxgrad.rand(3, generator=ctxgrad.Generator().manual_seed(42))
>>> ctxgrad.equal(a, b), g.initial_seed()
(True, 42)

ctxgrad's streams are NumPy's, not torch's: the same seed gives other numbers than torch's
Mersenne Twister (docs/differences.md).
"""

from __future__ import annotations

import secrets
from typing import Any

import numpy as np

from ctxgrad import _dtypes
from ctxgrad._device import check_device, device
from ctxgrad._tensor import Tensor, as_tensor

__all__ = ["Generator", "pack_state", "seed_value", "unpack_state"]

_BIT_GENERATOR = "PCG64"
#: The state's layout: PCG64's 128-bit state and increment, its buffered 32-bit half-word
#: (a flag and the word), and the seed ``initial_seed()`` reports; little-endian.
_FIELDS = (("state", 16), ("inc", 16), ("has_uint32", 1), ("uinteger", 4), ("seed", 8))
STATE_SIZE = sum(size for _, size in _FIELDS)

#: torch's ``default_rng_seed_val``: the seed a new ``torch.Generator()`` starts from.
DEFAULT_SEED = 67280421310721


def seed_value(seed: Any) -> int:
    """A seed as torch takes it: anything ``int()`` takes, a 64-bit integer, signed or not (a
    negative one counts from 2**64)."""
    value = int(seed)
    if not -(2**63) <= value < 2**64:
        raise ValueError("Overflow when unpacking long long")
    return value % 2**64


def pack_state(rng: np.random.Generator, seed: int) -> Tensor:
    """``rng``'s state and ``seed`` as a 1-d ``uint8`` tensor (the layout of ``_FIELDS``)."""
    state = rng.bit_generator.state
    values = {
        "state": state["state"]["state"],
        "inc": state["state"]["inc"],
        "has_uint32": state["has_uint32"],
        "uinteger": state["uinteger"],
        "seed": seed,
    }
    raw = b"".join(int(values[name]).to_bytes(size, "little") for name, size in _FIELDS)
    return as_tensor(np.frombuffer(raw, dtype=np.uint8).copy())


def unpack_state(rng: np.random.Generator, new_state: Any) -> int:
    """Put a state that :func:`pack_state` gave into ``rng``; return the seed it records."""
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
    rng.bit_generator.state = {
        "bit_generator": _BIT_GENERATOR,
        "state": {"state": values["state"], "inc": values["inc"]},
        "has_uint32": values["has_uint32"],
        "uinteger": values["uinteger"],
    }
    return values["seed"]


class Generator:
    """A random-number generator for ``generator=``: ``rand``, ``randn``, ``randint``,
    ``randperm``, ``normal``, ``bernoulli``, ``multinomial``, ``poisson``, the in-place
    samplers (``uniform_``, ...) and the ``nn.init`` functions.

    A new one is seeded with torch's default seed (67280421310721), as ``torch.Generator()``;
    only the CPU exists (``device='cuda'`` fails as ``check_device`` fails).
    """

    def __init__(self, device: Any = "cpu") -> None:
        check_device(device)
        self._seed = DEFAULT_SEED
        self._rng = np.random.default_rng(self._seed)

    @property
    def device(self) -> device:
        """Always ``device(type='cpu')``."""
        return device("cpu")

    @property
    def numpy_generator(self) -> np.random.Generator:
        """The NumPy generator the draws come from (shared: drawing from it moves this one)."""
        return self._rng

    def manual_seed(self, seed: Any) -> Generator:
        """Seed it (any 64-bit integer, as ``ctxgrad.manual_seed``; not a float, unlike
        that) and return it."""
        if isinstance(seed, (float, np.floating)):
            raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
        self._seed = seed_value(seed)
        self._rng = np.random.default_rng(self._seed)
        return self

    def seed(self) -> int:
        """Seed it from the operating system's entropy and return the seed."""
        value = secrets.randbits(64)
        self.manual_seed(value)
        return value

    def initial_seed(self) -> int:
        """The seed it was last seeded with."""
        return self._seed

    def get_state(self) -> Tensor:
        """Its state, a 1-d ``uint8`` tensor for :meth:`set_state`."""
        return pack_state(self._rng, self._seed)

    def set_state(self, new_state: Tensor) -> Generator:
        """Put back a state :meth:`get_state` gave, so its draws repeat; return it."""
        self._seed = unpack_state(self._rng, new_state)
        return self

    def __repr__(self) -> str:
        return f"<ctxgrad.Generator object at {hex(id(self))}>"

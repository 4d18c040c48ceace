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

from ctxgrad import _factories, _generator
from ctxgrad._device import check_device
from ctxgrad._tensor import Tensor

__all__ = ["fork_rng", "get_rng_state", "initial_seed", "manual_seed", "seed", "set_rng_state"]

manual_seed = _factories.manual_seed

STATE_SIZE = _generator.STATE_SIZE


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
    return _generator.pack_state(_factories._generator, _factories._initial_seed)


def set_rng_state(new_state: Tensor) -> None:
    """Put back a state that :func:`get_rng_state` gave (a ``uint8`` tensor), so the draws
    that followed it are drawn again."""
    _factories._initial_seed = _generator.unpack_state(_factories._generator, new_state)


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

"""``ctxgrad.nn.attention``: torch's choice of attention backend, :func:`sdpa_kernel` with
:class:`SDPBackend`.

torch picks among several implementations of ``F.scaled_dot_product_attention`` (flash,
memory-efficient, cuDNN, math); ctxgrad has one, torch's "math" backend, written in NumPy.
``with sdpa_kernel(SDPBackend.MATH):`` checks its argument as torch does and sets the
backend switches of :mod:`ctxgrad.backends.cuda` for the block, as torch does; the result is
the same whichever backends are named.

>>> import ctxgrad
>>> from ctxgrad.nn.attention import SDPBackend, sdpa_kernel
>>> with sdpa_kernel(SDPBackend.MATH):
...     ctxgrad.backends.cuda.flash_sdp_enabled()
False
>>> ctxgrad.backends.cuda.flash_sdp_enabled()
True
"""

from __future__ import annotations

import enum
from collections.abc import Iterable
from contextlib import AbstractContextManager

from ctxgrad.backends import cuda as _cuda

__all__ = ["SDPBackend", "sdpa_kernel"]


class SDPBackend(enum.Enum):
    """The attention backends, with torch's names and numbers."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


#: each backend's switch in ctxgrad.backends.cuda
_SWITCHES = {
    SDPBackend.MATH: "math",
    SDPBackend.FLASH_ATTENTION: "flash",
    SDPBackend.EFFICIENT_ATTENTION: "mem_efficient",
    SDPBackend.CUDNN_ATTENTION: "cudnn",
}


def sdpa_kernel(
    backends: SDPBackend | Iterable[SDPBackend], set_priority: bool = False
) -> AbstractContextManager[None]:
    """Within the block, only ``backends`` are switched on (ctxgrad computes attention with
    its one implementation either way)."""
    chosen = (
        [backends]
        if isinstance(backends, SDPBackend)
        else list(backends)
        if isinstance(backends, (list, tuple))
        else None
    )
    if chosen is None or not all(isinstance(b, SDPBackend) for b in chosen):
        raise AssertionError(
            "Backend must be an instance of SDPBackend or a list of SDPBackend instances, "
            f"got {type(backends).__name__}"
        )
    return _cuda._sdp_switches(**{switch: backend in chosen for backend, switch in _SWITCHES.items()})

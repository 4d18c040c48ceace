"""``ctxgrad.backends.mps``: Apple's GPU backend, which ctxgrad does not have.

>>> import ctxgrad
>>> ctxgrad.backends.mps.is_available(), ctxgrad.backends.mps.is_built()
(False, False)
"""

from __future__ import annotations

__all__ = ["is_available", "is_built"]


def is_available() -> bool:
    """False: ctxgrad runs on the CPU only."""
    return False


def is_built() -> bool:
    """False: ctxgrad is not built with MPS."""
    return False

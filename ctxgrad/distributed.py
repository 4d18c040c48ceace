"""``ctxgrad.distributed``: the question ported code asks before it sets up distributed
training, answered "no": ctxgrad trains in one process, so ``is_available()`` is False and
code guarded by it runs on one process (torch's CPU build says True: it has the gloo
backend; docs/differences.md)."""

from __future__ import annotations

__all__ = ["is_available", "is_initialized"]


def is_available() -> bool:
    """False: ctxgrad has no process groups or collectives."""
    return False


def is_initialized() -> bool:
    """False: no process group is ever initialised."""
    return False

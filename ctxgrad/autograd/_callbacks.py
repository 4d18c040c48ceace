"""Final callbacks: functions queued while a backward call runs, called when it ends.

``Variable._execution_engine.queue_callback(fn)`` (torch's way in, which hooks and custom
backwards use to act once all gradients are in) queues ``fn`` on the innermost backward
call running in this thread.  A backward started inside another one (a custom backward
that calls ``backward`` or ``autograd.grad``: reentrant) has its own queue, called when it
ends, before control returns to the node that started it; a callback may queue more, which
run after it, in order, as torch's do.  A backward that raises calls none.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["final_callbacks", "queue_callback"]


class _Queues(threading.local):
    # One list per backward call running in this thread, innermost last.
    running: tuple[list[Callable[[], Any]], ...] = ()


_queues = _Queues()


@contextmanager
def final_callbacks() -> Iterator[None]:
    """Around one backward call: open its queue, and call what was queued once it ended."""
    queued: list[Callable[[], Any]] = []
    outer = _queues.running
    _queues.running = (*outer, queued)
    try:
        yield
        for callback in queued:  # (a list iterated by index: a callback queued by one runs too)
            callback()
    finally:
        _queues.running = outer


def queue_callback(callback: Callable[[], Any]) -> None:
    """Call ``callback()`` (no arguments) when the innermost running backward call ends."""
    if not _queues.running:
        raise RuntimeError("Final callbacks can only be installed during backward pass.")
    if not callable(callback):
        raise TypeError(f"queue_callback(): argument 'callback' must be callable, not {type(callback).__name__}")
    _queues.running[-1].append(callback)


class ExecutionEngine:
    """What ``Variable._execution_engine`` is: the engine's ``queue_callback``."""

    @staticmethod
    def queue_callback(callback: Callable[[], Any]) -> None:
        """Call ``callback()`` when the innermost running backward call ends."""
        queue_callback(callback)

"""Read-only saved arrays: the second line of defence beside the version counter.

The version counter sees ctxgrad's own in-place ops, not NumPy code that writes into a
tensor's array (``t.detach().numpy()[0] = 1``); such a write to a tensor saved for backward
would make that backward silently wrong.  So the array of every saved tensor is read-only
while it is saved; ctxgrad's own writes lift the lock for their write (:func:`writable`,
:func:`relock`), bump the version, and the version check reports the change at backward.
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Any

import numpy as np

__all__ = ["lock_array", "relock", "unlock_array", "writable"]

# Per array: [array, how many saved tensors hold it, whether it was writeable before].
#
# Why no finaliser can hang on ``_locks_guard``: the cyclic garbage collector can run in the
# middle of any bytecode, including inside ``lock_array`` while this thread holds the guard,
# and it then runs ``SavedTensor.__del__`` in the same thread.  A finaliser that waited for
# the guard would wait on its own thread forever (seen on Python 3.12 and 3.13).  So releases
# never wait: ``unlock_array`` appends the array to ``_pending_unlocks`` (an atomic deque
# append) and then only *tries* the guard.  Whoever holds the guard drains the queue after
# letting go of it (``_drain_pending``), so a release queued while the guard was busy, by
# this thread's collector or by another thread, is applied as soon as the holder is done:
# the append happens before the failed try, the failed try before the holder's release, and
# the holder looks at the queue after its release.
_locks: dict[int, list[Any]] = {}
_locks_guard = threading.Lock()
_pending_unlocks: deque[np.ndarray[Any, Any]] = deque()


def lock_array(arr: np.ndarray[Any, Any]) -> np.ndarray[Any, Any] | None:
    """Make ``arr`` read-only for one more saved tensor; returns it (to unlock later).

    Only an array that owns its memory is locked: a view's flag could not be given back
    while its base is locked, and views made of a locked array are read-only anyway."""
    if arr.base is not None:
        return None
    with _locks_guard:
        entry = _locks.get(id(arr))
        if entry is None:
            writeable = bool(arr.flags.writeable)
            if writeable:
                arr.flags.writeable = False
            _locks[id(arr)] = [arr, 1, writeable]
        else:
            entry[1] += 1
    _drain_pending()
    return arr


def unlock_array(arr: np.ndarray[Any, Any] | None) -> None:
    """One saved tensor fewer holds ``arr``; the last one gives its writeability back.

    Safe to call from a finaliser: it never waits for the guard (see above)."""
    if arr is None:
        return
    _pending_unlocks.append(arr)
    _drain_pending()


def _drain_pending() -> None:
    while _pending_unlocks:
        if not _locks_guard.acquire(blocking=False):
            return  # the holder drains after its release
        try:
            while _pending_unlocks:
                arr = _pending_unlocks.popleft()
                entry = _locks.get(id(arr))
                if entry is None or entry[0] is not arr:
                    continue
                entry[1] -= 1
                if entry[1] == 0:
                    del _locks[id(arr)]
                    if entry[2]:
                        arr.flags.writeable = True
        finally:
            _locks_guard.release()


def writable(arr: np.ndarray[Any, Any]) -> list[np.ndarray[Any, Any]]:
    """Lift the saved-tensor lock from ``arr`` (and the arrays it is a view of) for one of
    ctxgrad's own writes; give the result to :func:`relock` afterwards.  An array that is
    read-only for another reason stays so (NumPy then raises, as it would anyway)."""
    if arr.flags.writeable:
        return []
    chain = []
    a: Any = arr
    while isinstance(a, np.ndarray):
        chain.append(a)
        a = a.base
    if not any(id(a) in _locks for a in chain):
        return []
    flipped = []
    for a in reversed(chain):  # the owner first: a view can be made writeable only after its base
        if not a.flags.writeable:
            a.flags.writeable = True
            flipped.append(a)
    return flipped


def relock(flipped: list[np.ndarray[Any, Any]]) -> None:
    for a in reversed(flipped):
        a.flags.writeable = False

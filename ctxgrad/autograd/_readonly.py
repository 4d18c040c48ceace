"""Read-only saved arrays: the second line of defence beside the version counter.

The version counter sees ctxgrad's own in-place ops, not NumPy code that writes into a
tensor's array (``t.detach().numpy()[0] = 1``); such a write to a tensor saved for backward
would make that backward silently wrong.  So the array of every saved tensor is read-only
while it is saved; ctxgrad's own writes lift the lock for their write (:func:`writable`,
:func:`relock`), bump the version, and the version check reports the change at backward.

What is locked is the array that owns the memory, and the saved tensor's own array when it
is a view of it: every NumPy view made of that memory afterwards is read-only too.  A view
made *before* the save (by NumPy code, or by a ctxgrad view op) keeps its own writeable flag,
which NumPy does not tie to its base's: a write through it is not caught (torch catches no
NumPy write at all).  docs/guarantees.md states the boundary; tests/test_saved_arrays.py pins
it.

The lock costs a few microseconds per saved tensor (flag flips and a registry entry), which
shows only in graphs of many tiny ops.  :class:`set_saved_array_lock_enabled` turns it off
in a thread, as MyGrad's ``mem_guard_off`` does: the version counter still catches
ctxgrad's own in-place ops, and a NumPy write goes uncaught, as in torch.
"""

from __future__ import annotations

import threading
import weakref
from collections import deque
from typing import Any

import numpy as np

from ctxgrad._state import _state
from ctxgrad.autograd._arrayflags import is_writeable, set_read_only, set_writeable, setflags
from ctxgrad.autograd._decorator import _ModeSwitch
from ctxgrad.autograd._validate import arg_label_of
from ctxgrad.autograd.errors import SavedArrayWriteError

__all__ = [
    "adopt_view",
    "explain_read_only",
    "is_saved_array_lock_enabled",
    "lock_array",
    "relock",
    "set_saved_array_lock_enabled",
    "unlock_array",
    "writable",
]


class set_saved_array_lock_enabled(_ModeSwitch):
    """Make the memory of tensors saved for backward read-only while saved (``mode=True``,
    the default) or not (``False``), in this thread: at once when called, restored when
    used with ``with`` or as a decorator, as ``set_grad_enabled`` does.

    The lock is what turns a NumPy write into a saved tensor's memory into an error instead
    of a silently wrong gradient (docs/guarantees.md).  Turned off, a tensor saved in the
    meantime is not locked (one saved before stays locked until its graph is freed), which
    saves a few microseconds per saved tensor: worth it only for graphs of many tiny ops
    whose code never writes into arrays with NumPy.  In-place changes made with ctxgrad's
    own ops are still caught by the version counter, as in torch.

    >>> import ctxgrad
    >>> from ctxgrad.autograd.graph import set_saved_array_lock_enabled
    >>> x = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> with set_saved_array_lock_enabled(False):
    ...     y = x.exp()  # saves its output, unlocked
    >>> y.numpy(force=True).flags.writeable
    True
    >>> z = x.exp()  # the lock is back on: z's memory is read-only while saved
    >>> z.numpy(force=True).flags.writeable
    False
    """

    flag = "lock_saved"


def is_saved_array_lock_enabled() -> bool:
    """True when saving a tensor for backward makes its memory read-only in this thread."""
    return _state.modes.lock_saved


# Per owning array: [array, how many saved tensors hold it, whether it was writeable before,
# weak references to the views of it that are read-only because of the lock, to give back
# after it (saved tensors' own arrays, views ctxgrad made while it was locked), or None].
#
# Why no finaliser can hang on ``_locks_guard``: the cyclic garbage collector can run in the
# middle of any bytecode, including inside ``lock_array`` while this thread holds the guard,
# and it then runs ``SavedTensor.__del__`` in the same thread.  A finaliser that waited for
# the guard would wait on its own thread forever (seen on Python 3.12 and 3.13).  So releases
# never wait: ``unlock_array`` only *tries* the guard; when another holds it, it appends the
# array to ``_pending_unlocks`` (an atomic deque append) and then tries again.  Whoever holds
# the guard drains the queue after letting go of it (``_drain_pending``), so a release queued
# while the guard was busy, by this thread's collector or by another thread, is applied as
# soon as the holder is done: the append happens before the failed second try, that try
# before the holder's release, and the holder looks at the queue after its release.
_locks: dict[int, list[Any]] = {}
_locks_guard = threading.Lock()
# (Bound once: every saved tensor takes and gives back the guard, and a bound method held in a
# global is one lookup fewer per call.)
_take_guard = _locks_guard.acquire
_give_guard = _locks_guard.release
_pending_unlocks: deque[np.ndarray[Any, Any]] = deque()


def lock_array(arr: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Make the memory of ``arr`` read-only for one more saved tensor: the array that owns it
    (views made of it later are read-only too) and, when ``arr`` is a view, ``arr`` itself
    (given back after its owner).  Returns the owner, to unlock later."""
    # (Every saved tensor comes through here and ``unlock_array``, so both are written for
    # speed: the flags through ``_arrayflags`` (C in the compiled core), and an explicit
    # acquire/release, half the cost of a ``with`` block.)
    owner = arr
    base = arr.base
    while base is not None and isinstance(base, np.ndarray):
        owner = base
        base = base.base
    key = id(owner)
    _take_guard()
    try:
        if key in _locks:  # (``in`` and ``[]``: no method call, unlike ``get``)
            entry = _locks[key]
            entry[1] += 1
        else:
            writeable = is_writeable(owner)
            if writeable:
                set_read_only(owner)
            _locks[key] = entry = [owner, 1, writeable, None]
        # (an owner that is locked but writeable is in one of ctxgrad's own writes, which
        # gives the flags back itself: the views it lifted are left to it)
        if owner is not arr and is_writeable(arr) and not is_writeable(owner):
            set_read_only(arr)
            _give_back_later(entry, arr)
    finally:
        _give_guard()
    if _pending_unlocks:
        _drain_pending()
    return owner


def _give_back_later(entry: list[Any], view: np.ndarray[Any, Any]) -> None:
    if entry[3] is None:
        entry[3] = []
    entry[3].append(weakref.ref(view))


def adopt_view(view: np.ndarray[Any, Any]) -> None:
    """``view``, which a ctxgrad view op just made, is read-only only because its memory is
    locked (NumPy gives a new view its base's flag): give it its writeability back with its
    owner's, so that a view taken while a graph held its base is writeable after the graph
    is freed, as the base is.  (A view with a dimension of stride 0, ``expand``'s, is read-only
    for its own sake: it stays so.)"""
    if not _locks or is_writeable(view):
        return
    if not all(stride != 0 or size <= 1 for stride, size in zip(view.strides, view.shape)):
        return
    owner = view
    base = view.base
    while base is not None and isinstance(base, np.ndarray):
        owner = base
        base = base.base
    with _locks_guard:
        entry = _locks.get(id(owner))
        if entry is not None and entry[0] is owner and entry[2]:
            _give_back_later(entry, view)
    _drain_pending()


def unlock_array(arr: np.ndarray[Any, Any] | None) -> None:
    """One saved tensor fewer holds ``arr``; the last one gives its writeability back.

    Safe to call from a finaliser: it never waits for the guard (see above)."""
    if arr is None:
        return
    if _take_guard(False):  # (the common case: no one holds the guard; not waiting)
        try:
            _release(arr)
        finally:
            _give_guard()
    else:
        _pending_unlocks.append(arr)
    if _pending_unlocks:
        _drain_pending()


def _drain_pending() -> None:
    while _pending_unlocks:
        if not _locks_guard.acquire(False):  # (not waiting)
            return  # the holder drains after its release
        try:
            while _pending_unlocks:
                _release(_pending_unlocks.popleft())
        finally:
            _locks_guard.release()


def _release(arr: np.ndarray[Any, Any]) -> None:
    """(Holding the guard) one holder fewer for ``arr``; the last gives the flags back."""
    key = id(arr)
    if key not in _locks:
        return
    entry = _locks[key]
    if entry[0] is not arr:
        return
    if entry[1] > 1:  # another saved tensor still holds it
        entry[1] -= 1
    else:
        del _locks[key]
        if entry[2]:
            try:  # (memory of an object that NumPy cannot ask, torch's, stays read-only)
                set_writeable(arr)
            except ValueError:
                pass
        if entry[3] is not None:
            for ref in entry[3]:
                view = ref()
                try:  # (a view of a read-only view, a broadcast one, stays read-only)
                    if view is not None:
                        setflags(view, True)
                except ValueError:
                    pass


def writable(arr: np.ndarray[Any, Any]) -> list[np.ndarray[Any, Any]]:
    """Lift the saved-tensor lock from ``arr`` (and the arrays it is a view of) for one of
    ctxgrad's own writes; give the result to :func:`relock` afterwards.  An array that is
    read-only for another reason stays so (NumPy then raises, as it would anyway)."""
    if is_writeable(arr):
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
        if not is_writeable(a):
            setflags(a, True)
            flipped.append(a)
    return flipped


def relock(flipped: list[np.ndarray[Any, Any]]) -> None:
    for a in reversed(flipped):
        setflags(a, False)


def explain_read_only(cls: Any, args: tuple[Any, ...], exc: ValueError) -> None:
    """A ValueError in forward while an argument's array is read-only because a graph holds
    it for backward (NumPy refuses a write there with a ValueError): say which argument, and
    what to do instead.  Decided by the arguments' lock state, not by the error's text."""
    for i, a in enumerate(args):
        if (
            isinstance(getattr(a, "_data", None), np.ndarray)
            and not is_writeable(a._data)
            and (id(a._data) in _locks or id(a._data.base) in _locks)
        ):
            raise SavedArrayWriteError(
                f"{cls.__name__}.forward failed ({type(exc).__name__}: {exc}) while the array of argument "
                f"{arg_label_of(cls, i)} is read-only: a graph has saved that tensor for backward, so NumPy "
                "refuses writes into it (a NumPy write there would make that backward silently wrong; torch finds "
                "out only at backward, with a version error). Change it with ctxgrad's in-place ops (x.mul_(2), "
                "x[...] = v: the version counter tracks them) and ctx.mark_dirty, or work on a clone."
            ) from exc

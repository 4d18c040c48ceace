"""``allow_mutation_on_saved_tensors``: change in place a tensor a graph saved for backward.

Normally an in-place change of a saved tensor makes the backward that needs it raise (the
version check).  Inside this context the change is allowed: just before any ctxgrad in-place
op writes into a tensor, every tensor saved (by a node recorded inside the context) that
shares memory with it is copied, and backward reads the copy, the values as they were when
saved.  A copy is made only for what is actually changed, once.

>>> import ctxgrad
>>> from ctxgrad.autograd.graph import allow_mutation_on_saved_tensors
>>> with allow_mutation_on_saved_tensors():
...     a = ctxgrad.ones(3, requires_grad=True)
...     b = a.clone()
...     out = (b**2).sum()
...     _ = b.mul_(3)  # without the context, out.backward() would raise
...     out.backward()
>>> a.grad
tensor([2., 2., 2.])
"""

from __future__ import annotations

import weakref
from types import TracebackType
from typing import TYPE_CHECKING, Any

import numpy as np

from ctxgrad._state import _state
from ctxgrad._tensor import Tensor, _VersionCounter, _wrap
from ctxgrad.autograd._readonly import lock_array, unlock_array

if TYPE_CHECKING:
    from ctxgrad.autograd.saved import SavedTensor

__all__ = ["allow_mutation_on_saved_tensors", "before_in_place_write", "track_saved"]


class _AllowMutationOnSavedContext:
    """The open context: the nodes recorded inside it whose saved tensors it watches."""

    def __init__(self) -> None:
        self.nodes: list[weakref.ref[Any]] = []
        self.open = False

    def __enter__(self) -> _AllowMutationOnSavedContext:
        if _state.modes.allow_mutation is not None:
            raise RuntimeError("allow_mutation_on_saved_tensors contexts cannot be nested")
        _state.modes.allow_mutation = self
        self.open = True
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        _state.modes.allow_mutation = None
        self.open = False
        self.nodes.clear()


def allow_mutation_on_saved_tensors() -> _AllowMutationOnSavedContext:
    """A context in which tensors saved for backward may be changed in place: backward uses
    a copy of the values they had when saved.  Contexts cannot be nested."""
    return _AllowMutationOnSavedContext()


def track_saved(node: Any) -> None:
    """Called for each node that saves tensors while a context is open."""
    ctx = _state.modes.allow_mutation
    if ctx is not None:
        ctx.nodes.append(weakref.ref(node))


def before_in_place_write(x: Tensor) -> None:
    """``x`` is about to be changed in place: copy the saved tensors that share its memory."""
    ctx = _state.modes.allow_mutation
    if ctx is None:
        return
    target = x._data
    alive = []
    for ref in ctx.nodes:
        node = ref()
        if node is None:
            continue
        alive.append(ref)
        for s in node._saved or ():
            if s is not None and s._unpack is None and s.version_now() == s._version:
                arr = s._tensor._data if s._tensor is not None else s._data
                if arr is not None and np.may_share_memory(arr, target) and np.shares_memory(arr, target):
                    _keep_a_copy(s)
    ctx.nodes[:] = alive


def _keep_a_copy(s: SavedTensor) -> None:
    """Make ``s`` hold a copy of its values, with a version counter of its own."""
    old_lock = s._locked
    t = s._tensor
    if t is not None:
        copy = _wrap(t._data.copy())
        copy._grad_fn = t._grad_fn
        copy._output_nr = t._output_nr
        copy._requires_grad = t._requires_grad
        copy._accumulator = t._accumulator  # a leaf's gradient still reaches the leaf
        s._tensor = copy
        s._vc = copy._get_vc()
        s._locked = lock_array(copy._data) if s.locks else None  # (locked as its kind of saved tensor is)
    else:
        assert s._data is not None
        s._data = s._data.copy()
        s._vc = _VersionCounter()
        s._locked = lock_array(s._data) if s.locks else None
        s._base = None
    s._version = s._vc.value
    unlock_array(old_lock)

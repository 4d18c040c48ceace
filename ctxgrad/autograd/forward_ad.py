"""Forward-mode automatic differentiation: dual tensors.

Inside ``with dual_level():`` a tensor can carry a *tangent* (a direction ``v``).  Every op
applied to it computes, next to its value ``f(x)``, the tangent ``J v`` of its output, by the
op's ``jvp`` rule: one pass gives a Jacobian-vector product, with no backward.

    >>> import ctxgrad
    >>> import ctxgrad.autograd.forward_ad as fwAD
    >>> x = ctxgrad.tensor([0.0, 1.0])
    >>> with fwAD.dual_level():
    ...     dual = fwAD.make_dual(x, ctxgrad.tensor([1.0, 0.0]))
    ...     y = dual.exp() * 2
    ...     fwAD.unpack_dual(y).tangent
    tensor([2., 0.])

How it fits the rest: ``Function.apply`` runs ``forward`` as always; when a dual level is
open and an argument has a tangent at it, ``apply`` then calls the Function's
``jvp(ctx, *tangents)`` (one tangent per forward argument: a zero tensor for a tensor without
one, None for a non-tensor) and attaches what it returns to the outputs.  Inside ``jvp``,
``ctx.saved_tensors`` gives the tensors of ``ctx.save_for_forward`` or, when it was not
called, those of ``ctx.save_for_backward``, so one ``forward`` serves both modes.
"""

from __future__ import annotations

import itertools
import weakref
from collections.abc import Iterator
from contextlib import contextmanager
from types import TracebackType
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from ctxgrad._state import _state
from ctxgrad.autograd._decorator import _DecoratorContextManager

if TYPE_CHECKING:
    from ctxgrad._tensor import Tensor

__all__ = ["UnpackedDualTensor", "dual_level", "enter_dual_level", "exit_dual_level", "make_dual", "unpack_dual"]


class UnpackedDualTensor(NamedTuple):
    """What :func:`unpack_dual` returns: the primal value and its tangent (None if it has none)."""

    primal: Tensor
    tangent: Tensor | None


def enter_dual_level() -> int:
    """Open a new (innermost) dual level and return its number.

    Levels nest per thread and are numbered by depth, as torch numbers them (the outermost
    is 0); inside, each level has a key unique across threads, so that a tensor carrying a
    tangent from one thread's level is never read at another thread's."""
    key = next(_level_numbers)
    _state.modes.fw_levels = (*_state.modes.fw_levels, key)
    _registry()[key] = []
    return len(_state.modes.fw_levels) - 1


_level_numbers = itertools.count()


def _registry() -> dict[int, list[weakref.ref[Tensor]]]:
    """This thread's tensors with tangents, per level (levels are numbered per thread)."""
    registry = _state.modes.fw_dual_tensors
    if registry is None:
        registry = _state.modes.fw_dual_tensors = {}
    return registry


def exit_dual_level(*, level: int | None = None) -> None:
    """Close the innermost dual level: every tangent set at it is dropped."""
    # (with forward grad switched off, the open levels are the hidden ones)
    in_hiding = not _state.modes.fw_levels and _state.modes.fw_hidden is not None
    levels = _state.modes.fw_hidden or () if in_hiding else _state.modes.fw_levels
    if not levels:
        raise RuntimeError("Trying to exit a forward AD level but no level is currently active.")
    innermost = len(levels) - 1
    if level is not None and level != innermost:
        raise RuntimeError(
            f"Trying to exit a forward AD level that was not the last one that was created (level {level}, "
            f"innermost {innermost}). This is not supported."
        )
    level = levels[-1]
    for ref in _registry().pop(level, []):
        t = ref()
        if t is not None and t._fw is not None:
            t._fw.pop(level, None)
            if not t._fw:
                del t._fw
    if in_hiding:
        _state.modes.fw_hidden = levels[:-1]
    else:
        _state.modes.fw_levels = levels[:-1]


@contextmanager
def dual_level() -> Iterator[int]:
    """A block in which tensors can carry tangents; they lose them when it ends.

    Levels nest: an inner level's tangents are independent of an outer one's.
    """
    level = enter_dual_level()
    try:
        yield level
    finally:
        exit_dual_level(level=level)


def _current_level(level: int | None, action: str) -> int:
    """The key of dual level number ``level`` (the innermost when None)."""
    levels = _state.modes.fw_levels
    if level is None:
        if not levels:
            raise RuntimeError(f"Trying to {action} but no level exists, make sure to enter_dual_level() first.")
        return levels[-1]
    if not 0 <= level < len(levels):
        raise RuntimeError(f"Trying to {action} at level {level}, which is not an active dual level.")
    return levels[level]


def set_tangent(t: Tensor, level: int, tangent: Tensor) -> None:
    """Attach ``tangent`` to ``t`` at ``level`` (no checks: the callers have made them)."""
    fw = t._fw
    if fw is None:
        t._fw = {level: tangent}
    else:
        fw[level] = tangent
    if t._base is not None:
        t._fw_version = t._get_vc().value  # a view's tangent as of now (see _tangents)
    _registry()[level].append(weakref.ref(t))


def _tangents(t: Tensor) -> dict[int, Tensor] | None:
    """``t``'s tangents by level.  A view's tangent is the base's tangent at the view's
    elements (in torch it is a view of the base's tangent), so a view whose base was changed
    in place since its tangents were set first takes them from the base again."""
    return t._fw if t._base is None else t._view_tangents()


# A dual tensor is a view of its primal, but its tangent is its own (in torch, a forward-mode
# base by itself): it, and each view taken of it, keeps a weak reference to it per level
# under this name, so that an in-place write into one of them changes the dual tensor's
# tangent (``_dual.py``), not the primal's, which has none.
TANGENT_OWNER = "_tangent_owner"


def make_dual(tensor: Tensor, tangent: Tensor, *, level: int | None = None) -> Tensor:
    """A view of ``tensor`` that carries ``tangent`` (same shape, floating point); with
    forward grad switched off (:class:`_set_fwd_grad_enabled`), a view without it, as in torch."""
    from ctxgrad._tensor import Tensor

    if not isinstance(tensor, Tensor) or not isinstance(tangent, Tensor):
        raise TypeError(f"make_dual expects tensors, but got {type(tensor).__name__} and {type(tangent).__name__}")
    if _state.modes.fw_hidden is not None:
        return tensor.view_as(tensor)
    lvl = _current_level(level, "create a dual Tensor for forward AD")
    if tensor._data.dtype.kind not in "fc":
        raise ValueError(f"Expected primal to be floating point or complex, but got: {_dtype_str(tensor)}")
    if tangent._data.dtype.kind not in "fc":
        raise ValueError(f"Expected tangent to be floating point or complex, but got: {_dtype_str(tangent)}")
    if tangent._data.shape != tensor._data.shape:
        raise RuntimeError(
            "Trying to set a forward gradient that has a different size than that of the original Tensor, "
            f"this is not supported. Tensor is of size {list(tensor._data.shape)} while the given forward "
            f"gradient is of size {list(tangent._data.shape)}."
        )
    fw = _tangents(tensor)
    if fw is not None and fw.get(lvl) is not None:
        raise RuntimeError(
            "Making a dual Tensor based on a Tensor that already has a forward gradient at the same level "
            f"{_state.modes.fw_levels.index(lvl)} is not supported."
        )
    dual = tensor.view_as(tensor)
    set_tangent(dual, lvl, _laid_out_like(tangent, tensor))
    dual.__dict__[TANGENT_OWNER] = {lvl: weakref.ref(dual)}
    return dual


def _layout(t: Tensor) -> tuple[Any, ...]:
    """Strides, storage offset and storage size of ``t``, in elements: what torch compares
    before it takes a tangent as it is."""
    owner = t._data
    while isinstance(owner.base, np.ndarray):
        owner = owner.base
    return t.stride(), t.storage_offset(), owner.nbytes // t._data.itemsize


def _laid_out_like(tangent: Tensor, primal: Tensor) -> Tensor:
    """``tangent`` itself when its memory is laid out as ``primal``'s, else its values copied
    into new memory laid out so (the same strides, offset and storage size), as torch's
    ``make_dual`` does, so that a view of the dual (``as_strided`` included) finds its
    tangent where it finds its primal, and a change of the unpacked tangent leaves the
    tangent given here alone."""
    from ctxgrad._tensor import _wrap

    data = tangent._data
    if type(data) is not np.ndarray or type(primal._data) is not np.ndarray:
        return tangent  # (a batched tensor under vmap has no memory of its own to lay out)
    if data.size == 0 or _layout(tangent) == (layout := _layout(primal)):
        return tangent
    strides, offset, size = layout
    if any(st == 0 and n > 1 for st, n in zip(strides, data.shape)):
        raise RuntimeError(
            "unsupported operation: more than one element of the written-to tensor refers to a single memory "
            "location. Please clone() the tensor before performing the operation."
        )
    memory = np.zeros(max(size, offset + 1), dtype=data.dtype)
    laid_out: np.ndarray[Any, Any] = np.ndarray(
        data.shape, data.dtype, memory, offset * data.itemsize, tuple(st * data.itemsize for st in strides)
    )
    laid_out[...] = data
    return _wrap(laid_out)


def unpack_dual(tensor: Tensor, *, level: int | None = None) -> UnpackedDualTensor:
    """``(primal, tangent)`` of a dual tensor: the primal is a view without the tangent."""
    from ctxgrad._tensor import Tensor

    if not isinstance(tensor, Tensor):
        raise TypeError(f"unpack_dual expects a tensor, but got {type(tensor).__name__}")
    levels = _state.modes.fw_levels
    if level is None:
        level = levels[-1] if levels else None
    else:
        level = levels[level] if 0 <= level < len(levels) else None
    fw = _tangents(tensor)
    tangent = fw.get(level) if fw is not None and level is not None else None
    if tangent is None:
        return UnpackedDualTensor(tensor, None)
    saved = _state.modes.fw_levels
    _state.modes.fw_levels = tuple(lv for lv in saved if lv != level)
    try:
        primal = tensor.view_as(tensor)
    finally:
        _state.modes.fw_levels = saved
    return UnpackedDualTensor(primal, tangent)


def _is_fwd_grad_enabled() -> bool:
    """Whether ops compute tangents: torch's private switch, which its own tests use."""
    return _state.modes.fw_hidden is None


def _switch_fwd_grad(mode: bool) -> None:
    """Off: the open levels are hidden from the ops (and from ``unpack_dual``, which then
    finds no tangent, as torch's does); on: they come back, outermost first, with any level
    opened meanwhile inside them."""
    hidden = _state.modes.fw_hidden
    if mode and hidden is not None:
        _state.modes.fw_levels, _state.modes.fw_hidden = (*hidden, *_state.modes.fw_levels), None
    elif not mode and hidden is None:
        _state.modes.fw_hidden, _state.modes.fw_levels = _state.modes.fw_levels, ()


class _set_fwd_grad_enabled(_DecoratorContextManager):
    """Switch forward-mode AD on or off: at once when called, restored after a ``with``
    block (torch's private ``forward_ad._set_fwd_grad_enabled``).  While it is off, ops
    compute no tangents and dual tensors show none."""

    def __init__(self, mode: bool) -> None:
        self.prev = _is_fwd_grad_enabled()
        self.mode = bool(mode)
        _switch_fwd_grad(self.mode)

    def __call__(self, func: Any) -> Any:
        # Used as a decorator, the constructor must not leave the switch changed.
        _switch_fwd_grad(self.prev)
        return super().__call__(func)

    def clone(self) -> _set_fwd_grad_enabled:
        return self.__class__(self.mode)

    def __enter__(self) -> None:
        _switch_fwd_grad(self.mode)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        _switch_fwd_grad(self.prev)


def _dtype_str(t: Tensor) -> str:
    from ctxgrad._dtypes import dtype_repr

    return dtype_repr(np.dtype(t._data.dtype))


def tangents_of(args: tuple[Any, ...], level: int) -> list[Any] | None:
    """One tangent per argument at ``level`` (None for a tensor without one), or None
    when no argument has one."""
    from ctxgrad._tensor import Tensor

    found = False
    out: list[Any] = []
    for a in args:
        if isinstance(a, Tensor) and (fw := _tangents(a)) is not None:
            t = fw.get(level)
            if t is not None:
                found = True
            out.append(t)
        else:
            out.append(None)
    return out if found else None

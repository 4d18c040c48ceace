"""Output wiring: what ``apply`` does with ``forward``'s results when it records a call.

Each output gets ``grad_fn = ctx`` (unless it is not differentiable), an input returned
as-is becomes a new tensor sharing its storage and version (an alias), an output that is a
view of an input shares that input's version, inputs changed in place (``ctx.mark_dirty``)
are version-bumped and their history (and a view's base's) goes through the node, and the
tensors given to ``save_for_backward`` are packed with their versions.  Calls that record
nothing go through :func:`finish_untracked`.
"""

from __future__ import annotations

import re
import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from ctxgrad._state import Modes, _state
from ctxgrad._tensor import Tensor, _wrap
from ctxgrad.autograd._edges import takes_values
from ctxgrad.autograd._mutation import track_saved
from ctxgrad.autograd._readonly import adopt_view
from ctxgrad.autograd.saved import LockedSavedTensor, SavedTensor, SavedValue
from ctxgrad.autograd.values import is_value_dtype

if TYPE_CHECKING:
    from ctxgrad.autograd.function import BackwardCFunction, Function

__all__ = [
    "alias",
    "finish_untracked",
    "mark_view",
    "meta_of",
    "pack_saved",
    "shared_needs",
    "warn_tensor_attributes",
    "wire_outputs",
]

_Meta = tuple[tuple[tuple[int, ...], np.dtype[Any]]]

# The shape and dtype of each output and argument, which every node keeps, are mostly the
# same few pairs: nodes share them instead of each holding copies, so a chain of a million
# ops on 16-element arrays holds one ``((16,), float64)`` (emptied past a bound).
_METAS: dict[tuple[int, ...], _Meta] = {}  # the latest (shape, dtype) per shape
_METAS_MAX = 4096


def meta_of(arr: np.ndarray[Any, Any]) -> _Meta:
    """``((shape, dtype),)`` of ``arr`` (a node's ``_out_meta`` for one output; an edge's
    shape and dtype), shared with the nodes made before it for arrays of that shape."""
    shape = arr.shape
    meta = _METAS.get(shape)
    if meta is None or meta[0][1] is not arr.dtype:
        if len(_METAS) >= _METAS_MAX:
            _METAS.clear()
        meta = _METAS[shape] = ((shape, arr.dtype),)
    return meta


# A node's ``needs_input_grad`` is one of few patterns too, ``(True, False)`` for ``y * 2.0``:
# nodes share one tuple per pattern, which is one object fewer per node for the graph to hold
# and for the cyclic collector to count.  ``_run`` looks it up by an int, the pattern's bits
# after a leading 1 (``0b110`` is ``(True, False)``), which it builds without making a tuple.
_NEEDS: dict[int, tuple[bool, ...]] = {}
_NEEDS_MAX = 4096


def shared_needs(key: int) -> tuple[bool, ...]:
    """The ``needs_input_grad`` tuple that nodes share for ``key`` (see ``_NEEDS``), made
    when it is the first of its pattern."""
    if len(_NEEDS) >= _NEEDS_MAX:
        _NEEDS.clear()
    needs = _NEEDS[key] = tuple(bit == "1" for bit in bin(key)[3:])
    return needs


_INTERNAL_ATTRS = frozenset(
    {"_saved", "_materialize", "_fw_saved", "_cleared_on_access", "to_save", "_hooks", "_metadata"}
)


def _reject_container(cls: type[Function], out: Any, index: int | None = None) -> None:
    """A list or dict holding tensors, or a NumPy array, returned by forward (or as output
    ``index`` of its tuple), is an error: it would get no gradient, as it silently does in torch."""
    if isinstance(out, np.ndarray):
        where = "" if index is None else f" as output {index}"
        raise TypeError(
            f"{cls.__name__}.forward returned a numpy.{type(out).__name__}{where} instead of a Tensor, so no graph "
            f"would be recorded for it and no gradient would flow back through {cls.__name__}. Wrap it: return "
            "ctxgrad.as_tensor(result) (torch accepts a returned array silently and records nothing for it)"
        )
    if isinstance(out, (list, dict)):
        values = out.values() if isinstance(out, dict) else out
        if any(isinstance(v, Tensor) for v in values):
            where = "" if index is None else f" as output {index}"
            raise TypeError(
                f"{cls.__name__}.forward returned a {type(out).__name__} of tensors{where}; return the "
                "tensors as elements of a tuple instead (torch silently drops the gradients of tensors "
                "inside a list or dict)"
            )


def alias(t: Tensor, cls: type[Function], grad_enabled: bool = True, i: int = 0) -> Tensor:
    """A new tensor object sharing ``t``'s storage and version: an input returned as-is
    (output ``i`` of ``cls``)."""
    out = _wrap(t._data)
    out._vc = vc = t._get_vc()
    out._base = t._base if t._base is not None else t
    out._view_version = vc.value
    out._view_meta = view_meta(cls, i, False, t, grad_enabled)
    return out


# --------------------------------------------------------------------------- views torch guards
# A view that torch forbids to change in place, or to use after its base changed in place (its
# CreationMeta): made in no_grad mode, returned by a custom Function (whose backward the view
# rebasing would bypass), or one of several views a function returned (split, unbind).
NO_GRAD, NO_GRAD_VIEW_OF_VIEW, IN_CUSTOM_FUNCTION, MULTIPLE_VIEWS = 1, 2, 3, 4
INFERENCE_MODE, INFERENCE_VIEW_OF_VIEW = 5, 6  # made in inference mode: guarded as in no_grad mode
_MADE_WITHOUT_GRAD = (NO_GRAD, NO_GRAD_VIEW_OF_VIEW, INFERENCE_MODE, INFERENCE_VIEW_OF_VIEW)

_WHY = {
    NO_GRAD: (
        " with grad mode enabled. Given that this use case is ambiguous and error-prone, it is forbidden. "
        "You can clarify your code by moving both the view and the inplace either both inside the no_grad "
        "block (if you don't want the inplace to be tracked) or both outside (if you want the inplace to be "
        "tracked)."
    ),
    IN_CUSTOM_FUNCTION: (
        ". This view was created inside a custom Function (or because an input was returned as-is) and the "
        "autograd logic to handle view+inplace would override the custom backward associated with the custom "
        "Function, leading to incorrect gradients. This behavior is forbidden. You can fix this by cloning the "
        "output of the custom Function."
    ),
    MULTIPLE_VIEWS: (
        ". This view is the output of a function that returns multiple views. Such functions do not allow the "
        "output views to be modified inplace. You should replace the inplace operation by an out-of-place one."
    ),
    INFERENCE_MODE: (
        " in normal mode. Given that this use case is ambiguous and error-prone, it is forbidden. You can "
        "clarify your code by moving both the view and the inplace either both inside the inference_mode block "
        "(if you don't want the inplace to be tracked) or both outside (if you want the inplace to be tracked)."
    ),
}


# The op name in a guarded view's label, by node class name: "TransposeBackward0" -> "Transpose".
_VIEW_NAMES: dict[str, str] = {}


def view_meta(
    cls: type[Function], i: int, several: bool, parent: Tensor | None, grad_enabled: bool
) -> tuple[int, str] | None:
    """How output ``i`` of ``cls``, a view of ``parent``, is guarded: None for an ordinary view,
    else ``(kind, "Output i of Name")``.  ``several``: ``cls`` returned a tuple (``split``,
    ``chunk``, ``unbind``: guarded as torch's multi-output functions, even with one piece)."""
    if not grad_enabled:
        return (INFERENCE_MODE if _state.modes.inference else NO_GRAD, "")
    node_name = cls._backward_cls.__name__
    name = _VIEW_NAMES.get(node_name)
    if name is None:  # (made once per node class: a regular expression per view is costly)
        name = _VIEW_NAMES[node_name] = re.sub(r"Backward[0-9]*$", "", node_name)
    inherited = None if parent is None else parent._view_meta
    if inherited is not None:  # a view of a guarded view is guarded as it is
        return view_of_guarded(inherited, name, i)
    label = f"Output {i} of {name}"
    if not cls.returns_views:
        return (IN_CUSTOM_FUNCTION, label)
    return (MULTIPLE_VIEWS, label) if several else None


def view_of_guarded(inherited: tuple[int, str], name: str, i: int = 0) -> tuple[int, str]:
    """The guard of output ``i`` of the view op ``name`` (``"Select"``) taken of a guarded
    view (guarded by ``inherited``): guarded as it is, and named as the new view."""
    kind = inherited[0]
    if kind in _MADE_WITHOUT_GRAD:
        kind = NO_GRAD_VIEW_OF_VIEW if kind in (NO_GRAD, NO_GRAD_VIEW_OF_VIEW) else INFERENCE_VIEW_OF_VIEW
    return (kind, f"Output {i} of {name}")


def check_view_change(
    view: Tensor, base_changed: bool, through: str | None = None, operands: tuple[Any, ...] = ()
) -> None:
    """Raise torch's error when ``view`` is guarded (:func:`view_meta`) and is changed in place
    (or, ``base_changed``, is used after its base changed) while grad mode is on.  ``through``:
    the change goes through a view of ``view`` that the op ``through`` makes (``"Select"`` for
    ``view[0] = v``), which is guarded as ``view`` and named as itself."""
    meta = view._view_meta
    base = view._base
    if meta is None or base is None or not _state.modes.grad_enabled:
        return
    # Guarded when the change needs a gradient: the base, the view itself or an operand of
    # the in-place op requires grad (as torch asks of the op).
    if not (base._requires_grad or view._requires_grad or any(_requires_grad(a) for a in operands)):
        return
    if through is not None:
        meta = view_of_guarded(meta, through)
    kind, label = meta
    made_in = "inference mode" if kind in (INFERENCE_MODE, INFERENCE_VIEW_OF_VIEW) else "no_grad mode"
    if kind in (NO_GRAD, INFERENCE_MODE):
        subject = f"A view was created in {made_in} and"
    elif kind in (NO_GRAD_VIEW_OF_VIEW, INFERENCE_VIEW_OF_VIEW):
        subject = f"{label} is a view of a view which was created in {made_in} and"
    else:
        subject = f"{label} is a view and"
    what = (
        "its base or another view of its base has been modified inplace"
        if base_changed
        else "is being modified inplace"
    )
    why = {NO_GRAD_VIEW_OF_VIEW: NO_GRAD, INFERENCE_VIEW_OF_VIEW: INFERENCE_MODE}.get(kind, kind)
    raise RuntimeError(f"{subject} {what}{_WHY[why]}")


def _requires_grad(value: Any) -> bool:
    return isinstance(value, Tensor) and value.requires_grad


def finish_untracked(ctx: BackwardCFunction, args: tuple[Any, ...], out: Any, grad_enabled: bool) -> Any:
    """Outputs of a call that records nothing: aliases for inputs returned as-is, dirty
    inputs version-bumped, inference tensors marked."""
    cls = ctx._forward_cls
    dirty = ctx._dirty
    inference = _state.modes.inference
    if type(out) is not tuple:
        if isinstance(out, Tensor):
            out = _finish_untracked_output(cls, out, 0, False, args, dirty, inference, grad_enabled)
        else:
            _reject_container(cls, out)
        if dirty is not None:
            _check_dirty_returned(cls, ctx, args, dirty, [out])
        return out
    outs = list(out)
    several = _several_views(cls, outs)
    for i, o in enumerate(outs):
        if isinstance(o, Tensor):
            outs[i] = _finish_untracked_output(cls, o, i, several, args, dirty, inference, grad_enabled)
        else:
            _reject_container(cls, o, i)
    if dirty is not None:
        _check_dirty_returned(cls, ctx, args, dirty, outs)
    return tuple(outs)


def _among(t: Any, tensors: tuple[Any, ...] | list[Any]) -> bool:
    """``t`` is one of ``tensors`` (by identity: ``in`` would compare tensors with ``==``)."""
    for x in tensors:
        if x is t:
            return True
    return False


def _finish_untracked_output(
    cls: type[Function],
    o: Tensor,
    i: int,
    several: bool,
    args: tuple[Any, ...],
    dirty: tuple[Tensor, ...] | None,
    inference: bool,
    grad_enabled: bool,
) -> Tensor:
    if dirty is not None and _among(o, dirty):
        o._bump_version()
        meta = o._view_meta
        if o._base is not None and (meta is None or meta[0] not in _MADE_WITHOUT_GRAD):
            # A write with nothing recorded leaves a view's history as it was; a view made in
            # no_grad mode stays changed, so that grad mode refuses it later, as torch does.
            o._view_version = o._get_vc().value
    elif _among(o, args):
        o = alias(o, cls, grad_enabled, i)
    else:
        if o._requires_grad:
            # forward built history with enable_grad; nothing is recorded, so drop it.
            o = o.detach()
        mark_view(cls, o, i, several, args, grad_enabled)
    if dirty is not None and _among(o, dirty):
        return o  # (changed in place: an ordinary tensor stays ordinary, in inference mode too)
    if o._base is not None:  # a view is of its base's kind, in or out of inference mode, as in torch
        o._inference = o._base._inference
    elif inference:
        o._inference = True
    return o


def _check_dirty_returned(
    cls: type[Function], ctx: BackwardCFunction, args: tuple[Any, ...], dirty: tuple[Tensor, ...], outs: list[Any]
) -> None:
    for d in dirty:
        if not _among(d, outs):
            raise RuntimeError(
                "Some elements marked as dirty during the forward method were not returned as output. "
                f"The inputs that are modified inplace must all be outputs of the Function ({cls.__name__})."
            )
        if not _among(d, args):
            if d._base is not None:
                raise RuntimeError(
                    "ctx.mark_dirty() received a tensor that was not an input. Only input Tensors that have "
                    f"been mutated should be passed to ctx.mark_dirty() (in {cls.__name__}.forward: a view of an "
                    "intermediate)."
                )
            warnings.warn(
                "ctx.mark_dirty() received a tensor that was not an input. Only input Tensors that have "
                f"been mutated should be passed to ctx.mark_dirty() (in {cls.__name__}.forward).",
                UserWarning,
                stacklevel=4,
            )


def _finish_marks(
    cls: type[Function],
    ctx: BackwardCFunction,
    args: tuple[Any, ...],
    dirty: tuple[Tensor, ...] | None,
    non_diff: tuple[Tensor, ...] | None,
    outs: list[Any],
) -> None:
    """Check that dirty tensors were returned, then drop the marks (they are consumed)."""
    if dirty is not None:
        _check_dirty_returned(cls, ctx, args, dirty, outs)
        del ctx._dirty
    if "_dual" not in ctx.__dict__:  # (forward mode reads these after the call: see apply_dual)
        if non_diff is not None:
            del ctx._non_diff
        ctx.__dict__.pop("_fw_saved", None)  # (ctx.saved_for_forward is None after apply, as in torch)


def pack_saved(
    cls: type[Function], ctx: BackwardCFunction, to_save: tuple[Any, ...], modes: Modes | None = None
) -> None:
    """Turn what ``save_for_backward`` got into SavedTensors that remember their versions.
    ``modes``: the thread's modes, when the caller has them at hand."""
    for t in to_save:  # (the checks below only when something is not None or a plain tensor: rarely)
        if t is not None and (type(t) is not Tensor or t._inference):
            _check_saveable(cls, ctx, to_save)
            break
    if modes is None:
        modes = _state.modes
    hooks = modes.saved_hooks
    kind = LockedSavedTensor if modes.lock_saved else SavedTensor
    saved: list[SavedTensor | None] = []  # (a loop, not a comprehension: no function call)
    for t in to_save:
        saved.append(None if t is None else kind(t, ctx, hooks) if isinstance(t, Tensor) else SavedValue(t))
    ctx._saved = tuple(saved)
    del ctx.to_save
    if modes.allow_mutation is not None:
        track_saved(ctx)


def _check_saveable(cls: type[Function], ctx: BackwardCFunction, to_save: tuple[Any, ...]) -> None:
    """Refuse what ``save_for_backward`` cannot keep: non-tensors (but in a Function over
    values that are not arrays) and inference tensors."""
    for i, t in enumerate(to_save):
        if t is not None and not isinstance(t, Tensor):
            if takes_values(ctx):
                continue  # a Function over values that are not arrays may save plain values (afnio's do)
            raise TypeError(
                f"save_for_backward can only save variables, but argument {i} is of type "
                f"{type(t).__name__} (in {cls.__name__}.forward). Save non-tensors as attributes "
                "of ctx instead."
            )
        if t is not None and t._inference and not _state.modes.func_transforms:
            raise RuntimeError(
                "Inference tensors cannot be saved for backward. Please do not use Tensors created in "
                "inference mode in computation tracked by autograd. To work around this, you can make a "
                "clone to get a normal tensor and use it in autograd, or use ctxgrad.no_grad() instead of "
                f"ctxgrad.inference_mode() ({cls.__name__} saves one as saved_tensors[{i}])."
            )


def _wire_output(
    ctx: BackwardCFunction,
    args: tuple[Any, ...],
    o: Tensor,
    i: int,
    several: bool,
    dirty: tuple[Tensor, ...] | None,
    non_diff: tuple[Tensor, ...] | None,
    rebased: list[tuple[Tensor, Any, int]] | None = None,
) -> Tensor:
    """Make output ``i`` of a recorded call point at ``ctx``."""
    dt = o._data.dtype
    differentiable = (dt.kind in "fc" or is_value_dtype(dt)) and (non_diff is None or not _among(o, non_diff))
    if dirty is not None and _among(o, dirty):
        if o._grad_fn is None and o._requires_grad:
            raise RuntimeError(
                "a leaf Variable that requires grad has been used in an in-place operation "
                f"(marked dirty in {ctx._forward_cls.__name__}.forward)."
            )
        if o._base is not None and o._base._grad_fn is None and o._base._requires_grad:
            raise RuntimeError(
                "a view of a leaf Variable that requires grad is being used in an in-place operation "
                f"(marked dirty in {ctx._forward_cls.__name__}.forward)."
            )
        check_view_change(o, base_changed=False)
        o._bump_version()
        if not differentiable:
            # Dirty but non-differentiable: as in torch, the input keeps its history and the
            # output is a new tensor without one, sharing its values and version counter.
            plain = _wrap(o._data)
            plain._vc = o._get_vc()
            return plain
        if rebased is not None:
            rebased.append((o, o._grad_fn, o._output_nr))
    else:
        for a in args:
            if a is o:
                o = alias(o, ctx._forward_cls, True, i)
                break
        else:
            mark_view(ctx._forward_cls, o, i, several, args, True)
    old_fn, old_nr = o._grad_fn, o._output_nr
    if differentiable:
        o._grad_fn = ctx
        o._output_nr = i
        o._requires_grad = True
    else:
        o._grad_fn = None
        o._requires_grad = False
    if o._retains_grad:
        move_retained_grad(o, old_fn, old_nr)
    return o


def move_retained_grad(t: Tensor, old_fn: Any, old_nr: int) -> None:
    """``t`` retains its grad and has a new history (an in-place change): its ``.grad`` is the
    gradient of its value from now on, as in torch."""
    hooks = getattr(old_fn, "_hooks", None)
    if hooks is not None:
        ref = hooks.retain.get(old_nr)
        if ref is not None and ref() is t:
            del hooks.retain[old_nr]
    if t._grad_fn is not None:
        t._grad_fn._add_retain_grad(t._output_nr, t)


def mark_view(cls: type[Function], o: Tensor, i: int, several: bool, args: tuple[Any, ...], grad_enabled: bool) -> None:
    """An output whose array is a view of an input's array shares that input's version, and
    is guarded as :func:`view_meta` says (also a view an op inside ``forward`` made)."""
    base_arr = o._data.base
    if base_arr is None:
        return
    parent = None
    for a in args:
        if isinstance(a, Tensor):
            arr = a._data
            if base_arr is arr or (arr.base is not None and base_arr is arr.base):
                parent = a
                break
    if o._base is None:
        if parent is None:
            return
        o._vc = vc = parent._get_vc()
        o._base = parent._base if parent._base is not None else parent
        o._view_version = vc.value
    elif parent is None:  # a view of an intermediate: its history is this call, as of now
        o._view_version = o._get_vc().value
    o._view_meta = view_meta(cls, i, several, parent, grad_enabled)
    adopt_view(o._data)


def _several_views(cls: type[Function], outs: list[Any]) -> bool:
    """The outputs of a call that returned the tuple ``outs`` are guarded as torch guards the
    views of a multi-output function: a view op's (``split``, ``unbind``), even with one piece,
    or any two tensors or more.  (once_differentiable's ``DelayedError`` returns one tensor per
    gradient: not a multi-output view op in torch.)"""
    if cls.returns_views and cls.__name__ != "DelayedError":
        return True
    return sum(1 for o in outs if isinstance(o, Tensor)) > 1


def _holds_tensor(value: Any) -> bool:
    if isinstance(value, Tensor):
        return True
    if isinstance(value, (list, tuple)):
        return any(isinstance(v, Tensor) for v in value)
    if isinstance(value, dict):
        return any(isinstance(v, Tensor) for v in value.values())
    return False


def warn_tensor_attributes(cls: type[Function], attrs: dict[str, Any]) -> None:
    cls._ctx_checks_left -= 1
    for key, value in attrs.items():
        if key not in _INTERNAL_ATTRS and _holds_tensor(value):
            cls._ctx_checks_left = 0
            warnings.warn(
                f"{cls.__name__} stores a Tensor as ctx.{key}. A tensor kept as a ctx attribute skips the "
                "in-place version check (a later in-place change gives a silently wrong gradient) and can "
                "keep the graph alive (a reference cycle when it is an output). Pass it to "
                "ctx.save_for_backward(...) and read it from ctx.saved_tensors instead. (Warned once per "
                "Function class.)",
                UserWarning,
                stacklevel=4,
            )
            return


def wire_outputs(
    cls: type[Function],
    ctx: BackwardCFunction,
    args: tuple[Any, ...],
    out: Any,
    dirty: tuple[Tensor, ...] | None,
    non_diff: tuple[Tensor, ...] | None,
) -> Any:
    """Make the outputs of a recorded call point at ``ctx`` (a tuple, views, dirty inputs,
    non-differentiable outputs), record their shapes for zero-filling, consume the marks."""
    result: Any
    rebased: list[tuple[Tensor, Any, int]] | None = [] if dirty is not None else None
    if type(out) is tuple:
        outs = list(out)
        meta: list[tuple[tuple[int, ...], np.dtype[Any]] | None] = []
        several = _several_views(cls, outs)
        for i, o in enumerate(outs):
            if isinstance(o, Tensor):
                outs[i] = o = _wire_output(ctx, args, o, i, several, dirty, non_diff, rebased)
                meta.append(meta_of(o._data)[0])
            else:
                _reject_container(cls, o, i)
                meta.append(None)
        ctx._out_meta = tuple(meta)
        result = tuple(outs)
        _finish_marks(cls, ctx, args, dirty, non_diff, list(out))  # (the objects forward returned)
    elif isinstance(out, Tensor):
        result = _wire_output(ctx, args, out, 0, False, dirty, non_diff, rebased)
        ctx._out_meta = meta_of(result._data)
        _finish_marks(cls, ctx, args, dirty, non_diff, [out])
    else:
        _reject_container(cls, out)
        ctx._out_meta = (None,)
        result = out
        _finish_marks(cls, ctx, args, dirty, non_diff, [out])

    if rebased and type(out) is tuple and sum(1 for o in out if isinstance(o, Tensor)) > 1:
        if any(d._base is not None for d, _, _ in rebased):
            raise RuntimeError(
                "If your Function modifies inplace an input that is a view of another Tensor, your Function "
                "cannot return more than one Tensor. This is not supported by the current autograd engine. You "
                "should either make sure the input is not a view (using .clone() for example) or make your "
                "Function only return one Tensor (potentially splitting it into two Functions: one doing the "
                "inplace that returns a single Tensor and a second one that does the other operations). You can "
                f"ask on the forum https://discuss.pytorch.org/ if you need help to do this change. ({cls.__name__})"
            )
    for d, old_fn, old_nr in rebased or ():
        if d._base is not None and d._grad_fn is ctx:
            d._record_base_write(old_fn, old_nr)  # CopySlices on the base (autograd/_views.py)
    return result

"""``apply`` while a dual level is open (forward mode).

``forward`` runs with the levels whose tangents it computes switched off, so that it sees
plain values; then ``jvp`` runs once per level at which an argument has a tangent, and its
tangents are checked and attached to the outputs.  A Function without ``jvp`` gets its
tangents derived from its ``backward`` (:func:`_jvp_from_backward`).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from ctxgrad._state import _state
from ctxgrad._tensor import Tensor, _wrap
from ctxgrad.autograd import forward_ad
from ctxgrad.autograd._grad import grad as autograd_grad
from ctxgrad.autograd._validate import check_tangents
from ctxgrad.autograd.errors import NoJvpError
from ctxgrad.autograd.grad_mode import run_in_grad_mode

if TYPE_CHECKING:
    from ctxgrad.autograd.function import BackwardCFunction, Function

__all__ = ["FUNC_JVP_LEVELS", "apply_dual"]

# The keys of the dual levels opened by ``ctxgrad.func.jvp`` (unique across threads). At
# those, a Function whose forward returns a view (or an input as-is) may give a tangent that
# is not a view, ``jvp(ctx, t): return t`` included: torch.func.jvp accepts it, as its
# functional result cannot be changed in place through the view; forward_ad refuses it.
FUNC_JVP_LEVELS: set[int] = set()


class _SavedAsIs:
    """A saved slot that hands back its tensor unchanged: what ``saved_tensors`` reads
    inside ``jvp`` (the tensors of ``save_for_forward``, or of an unrecorded call)."""

    __slots__ = ("tensor",)
    _tensor = None  # (what ``unpack_saved`` reads for its shortcut: None sends it to ``unpack``)

    def __init__(self, tensor: Tensor) -> None:
        self.tensor = tensor

    def unpack(self, ctx: Any, index: int) -> Tensor:
        return self.tensor


def apply_dual(
    cls: type[Function], args: tuple[Any, ...], run: Callable[[type[Function], BackwardCFunction, tuple[Any, ...]], Any]
) -> Any:
    """``apply`` while a dual level is open: ``run`` (the body of ``apply``) with the levels
    whose tangents it computes switched off, then ``jvp`` once per level at which an
    argument has a tangent.  Four steps: run forward on plain values, find what ``jvp`` may
    read as saved, compute and attach each level's tangents, and give saved outputs theirs."""
    levels = _state.modes.fw_levels
    per_level = [(lv, ts) for lv in levels if (ts := forward_ad.tangents_of(args, lv)) is not None]
    ctx = cls._backward_cls()
    ctx._hooks = None
    ctx._metadata = None
    if not per_level:
        return run(cls, ctx, args)
    out, non_diff = _forward_on_plain_values(cls, ctx, args, run, {lv for lv, _ in per_level})
    outs = out if type(out) is tuple else (out,)
    view = _saved_for_jvp(ctx)
    ctx.__dict__.pop("_fw_saved", None)  # (ctx.saved_for_forward is None after apply, as in torch)
    if not any(
        isinstance(o, Tensor) and o._data.dtype.kind in "fc" and not any(o is n for n in non_diff) for o in outs
    ):
        return out  # integer, bool or non-differentiable results (comparisons, indices) carry no tangent
    for lv, tangents in per_level:
        full = tuple(
            (t if t is not None else _wrap(np.zeros_like(a._data))) if isinstance(a, Tensor) else None
            for a, t in zip(args, tangents)
        )
        result = _tangents_at(lv, cls, ctx, args, outs, full, view, non_diff)
        _attach_tangents(cls, outs, result, lv, non_diff)
        _follow_views(args, outs, lv)
    _give_saved_outputs_their_tangents(ctx, outs)
    return out


def _forward_on_plain_values(
    cls: type[Function],
    ctx: BackwardCFunction,
    args: tuple[Any, ...],
    run: Callable[[type[Function], BackwardCFunction, tuple[Any, ...]], Any],
    active: set[int],
) -> tuple[Any, tuple[Any, ...]]:
    """``run`` with the ``active`` levels switched off, so that ``forward`` sees plain values;
    its result and the outputs it marked non-differentiable."""
    levels = _state.modes.fw_levels
    _state.modes.fw_levels = tuple(lv for lv in levels if lv not in active)
    ctx.__dict__["_dual"] = True  # keeps ctx._non_diff for the tangents
    try:
        out = run(cls, ctx, args)
    finally:
        _state.modes.fw_levels = levels
        del ctx.__dict__["_dual"]
    non_diff = ctx.__dict__.pop("_non_diff", None) or ()  # (a recorded node must not keep its outputs)
    return out, tuple(non_diff)


def _saved_for_jvp(ctx: BackwardCFunction) -> tuple[Any, ...] | None:
    """What ``saved_tensors`` hands ``jvp``: the tensors of ``save_for_forward``; those of
    ``save_for_backward`` as given when nothing was recorded; None when the node was recorded
    (``saved_tensors`` unpacks the packed ones)."""
    saved_forward: tuple[Any, ...] | None = ctx._fw_saved
    if saved_forward is not None:
        return saved_forward
    if "to_save" in ctx.__dict__:
        to_save: tuple[Any, ...] | None = ctx.to_save  # not recorded: the tensors as given
        return to_save
    return None


def _tangents_at(
    level: int,
    cls: type[Function],
    ctx: BackwardCFunction,
    args: tuple[Any, ...],
    outs: tuple[Any, ...],
    full: tuple[Any, ...],
    view: tuple[Any, ...] | None,
    non_diff: tuple[Any, ...],
) -> Any:
    """The outputs' tangents at ``level``, from the inputs' (``full``): ``cls.jvp`` run with
    that level switched off (checked for a user's in-place and view outputs), or derived from
    ``backward`` where the Function has no ``jvp``."""
    levels = _state.modes.fw_levels
    _state.modes.fw_levels = tuple(x for x in levels if x != level)
    old_saved = ctx._saved
    if view is not None:
        ctx._saved = tuple(None if t is None else _SavedAsIs(t) for t in view)  # type: ignore[misc]
    # A user's Function that changed an input in place (and returns it) must change that
    # input's tangent in place too, as torch requires (the built-in in-place ops, which
    # compute out of place and write, set the tangent themselves).
    dirty = [i for i, a in enumerate(args) if isinstance(a, Tensor) and any(o is a for o in outs)]
    check_dirty = bool(dirty) and cls._has_jvp and not cls.skips_without_gradient
    versions = {i: t._get_vc().value for i in dirty if (t := full[i]) is not None} if check_dirty else {}
    try:
        if cls._has_jvp:
            result = cls.jvp(ctx, *full)
            if check_dirty:
                _check_dirty_tangents(args, outs, full, result, versions)
            if not cls.skips_without_gradient and level not in FUNC_JVP_LEVELS:
                _check_view_tangents(args, outs, result)
            return result
        derived = _jvp_from_backward(cls, ctx, args, outs, full)
        return tuple(None if any(o is n for n in non_diff) else t for o, t in zip(outs, derived))
    finally:
        _state.modes.fw_levels = levels
        if view is not None:
            ctx._saved = old_saved


def _follow_views(args: tuple[Any, ...], outs: tuple[Any, ...], level: int) -> None:
    """Each output that is a view: changed in place, its base's tangent follows; otherwise its
    tangent is kept apart from its base's."""
    for o in outs:
        if not isinstance(o, Tensor) or o._base is None:
            continue
        if o._fw and level in o._fw and any(o is a for a in args):
            _write_through(o, level)
        else:
            _keep_tangent_owner(o, args, level)


def _give_saved_outputs_their_tangents(ctx: BackwardCFunction, outs: tuple[Any, ...]) -> None:
    """A saved output is rebuilt from its array when unpacked; give it its tangents back, so
    that a backward built with create_graph carries them (forward over reverse)."""
    saved = ctx._saved
    if not saved:
        return
    for s in saved:
        if s is not None and s._tensor is None and s._data is not None:
            for o in outs:
                if isinstance(o, Tensor) and o._data is s._data and o._fw is not None:
                    s._fw = o._fw


def _keep_tangent_owner(view: Tensor, args: tuple[Any, ...], level: int) -> None:
    """``view`` was just taken of an argument whose tangent at ``level`` belongs to a dual
    tensor made by ``make_dual`` (:data:`forward_ad.TANGENT_OWNER`): so does its own."""
    for a in args:
        if isinstance(a, Tensor) and view._base is (a._base if a._base is not None else a):
            owner = a.__dict__.get(forward_ad.TANGENT_OWNER, {}).get(level)
            if owner is not None:
                view.__dict__.setdefault(forward_ad.TANGENT_OWNER, {})[level] = owner
                return


def _write_through(view: Tensor, level: int) -> None:
    """``view`` was changed in place and has its new tangent at ``level``: the tensor that
    owns the tangent it is part of takes it at the view's elements (its base, unless a
    dual tensor made by ``make_dual`` owns it)."""
    # (looked up rather than imported: _views imports function, which imports this module;
    # _views is loaded by then, as it gives Tensor the view methods used above)
    views = sys.modules["ctxgrad.autograd._views"]
    ref = view.__dict__.get(forward_ad.TANGENT_OWNER, {}).get(level)
    owner = None if ref is None else ref()
    if owner is None:
        view._write_base_tangent(level)
        return
    if owner is view:
        return  # the dual tensor itself: its tangent is the one just set
    tangents = forward_ad._tangents(owner)
    old = tangents.get(level) if tangents is not None else None
    if old is None:
        old = _wrap(np.zeros_like(owner._data))
    positions = views.view_positions(view._data, owner._data)
    assert view._fw is not None
    forward_ad.set_tangent(owner, level, views.ReplaceFlat.apply(old, positions, view._fw[level]))


def _jvp_from_backward(
    cls: type[Function], ctx: BackwardCFunction, args: tuple[Any, ...], outs: tuple[Any, ...], tangents: tuple[Any, ...]
) -> tuple[Tensor | None, ...]:
    """The tangents of a Function that has no ``jvp``, derived from its ``backward``.

    ``backward`` computes ``u -> Jᵀu``, linear in the output gradients ``u``.  Then
    ``<Jᵀu, v> = <u, Jv>``, so the gradient of ``<backward(u), v>`` with respect to ``u`` is
    ``Jv``: the tangent.  This needs a ``backward`` written in differentiable ops (not
    ``once_differentiable``, not raw NumPy); otherwise the error says to add a ``jvp``.
    """
    if not _defines(cls, "backward") and not _defines(cls, "vjp"):
        raise NoJvpError(
            "You must implement the jvp function for custom autograd.Function to use it with forward mode "
            f"AD. ({cls.__name__} defines neither jvp nor a backward to derive it from.)"
        )
    if getattr(cls._backward_impl, "_once_differentiable", False):
        raise NoJvpError(_no_jvp_message(cls))
    # Ones, not zeros: backward is linear in its gradients, so any value gives the same
    # derivative, but a backward that ignores them (NumPy inside) then shows as nonzero.
    probes = [
        _wrap(np.ones_like(o._data))._set_requires_grad()
        if isinstance(o, Tensor) and o._data.dtype.kind in "fc"
        else None
        for o in outs
    ]
    seeds = [
        p if p is not None else (_wrap(np.zeros_like(o._data)) if isinstance(o, Tensor) else None)
        for p, o in zip(probes, outs)
    ]
    grad_mode = _state.modes.grad_enabled
    needs = ctx._needs
    # The inputs with a tangent are the ones whose gradient backward must produce.
    ctx._needs = tuple(
        t is not None and isinstance(a, Tensor) and a._data.dtype.kind in "fc" for a, t in zip(args, tangents)
    )
    try:
        total = run_in_grad_mode(True, _pair_with_tangents, cls, ctx, seeds, tangents)
    finally:
        ctx._needs = needs
    used = [p for p in probes if p is not None]
    if total is None or not total._requires_grad:
        if total is None or not total._data.any():
            return tuple(None if p is None else _wrap(np.zeros_like(p._data)) for p in probes)
        raise NoJvpError(_no_jvp_message(cls))
    found = autograd_grad(total, used, allow_unused=True, create_graph=grad_mode)
    by_probe = iter(found)
    out: list[Tensor | None] = []
    for p in probes:
        if p is None:
            out.append(None)
        else:
            g = next(by_probe)
            out.append(_wrap(np.zeros_like(p._data)) if g is None else g)
    return tuple(out)


def _pair_with_tangents(
    cls: type[Function], ctx: BackwardCFunction, seeds: list[Any], tangents: tuple[Any, ...]
) -> Tensor | None:
    """``<backward(seeds), tangents>``, summed over the inputs that have a tangent."""
    result = cls._backward_impl(ctx, *seeds)
    grads = result if type(result) is tuple else (result,)
    total: Tensor | None = None
    for g, t in zip(grads, tangents):
        if isinstance(g, Tensor) and t is not None:
            term = (g * t).sum()
            total = term if total is None else total + term
    return total


def _check_dirty_tangents(
    args: tuple[Any, ...], outs: tuple[Any, ...], full: tuple[Any, ...], result: Any, versions: dict[int, int]
) -> None:
    """Each input changed in place must have had its tangent changed in place by ``jvp``."""
    results = result if type(result) is tuple else (result,)
    for i, version in versions.items():
        for j, o in enumerate(outs):
            if o is args[i]:
                t = results[j] if j < len(results) else None
                if t is not full[i] or full[i]._get_vc().value == version:
                    raise RuntimeError(
                        "An inplace custom Function is not modifying the forward mode gradients inplace. If the "
                        "forward is modifying an input inplace, then the jvp function must modify the "
                        "corresponding gradient inplace."
                    )


def _check_view_tangents(args: tuple[Any, ...], outs: tuple[Any, ...], result: Any) -> None:
    """The tangent of an output that is a view of an input (or the input returned as-is) must
    be a view too (a view of an intermediate of ``forward`` is not checked)."""
    results = result if type(result) is tuple else (result,)
    bases = {id(b) for a in args if isinstance(a, Tensor) for b in (a, a._base) if b is not None}
    for j, o in enumerate(outs):
        if (
            isinstance(o, Tensor)
            and o._base is not None
            and id(o._base) in bases
            and not any(o is a for a in args)
            and j < len(results)
        ):
            t = results[j]
            if t is not None and not (isinstance(t, Tensor) and t._base is not None):
                raise RuntimeError(
                    "A custom Function's forward is returning a view (or an input as-is) but the jvp is not "
                    "returning a view."
                )


def _defines(cls: type[Function], name: str) -> bool:
    """``cls`` or a base below ``Function`` defines ``name`` (Function's own raises)."""
    for klass in cls.__mro__:
        if klass.__name__ == "Function" and klass.__module__ == "ctxgrad.autograd.function":
            return False
        if name in vars(klass):
            return True
    return False


def _no_jvp_message(cls: type[Function]) -> str:
    return (
        f"{cls.__name__} has no jvp, and its backward cannot be differentiated (it is once_differentiable "
        "or computes outside ctxgrad ops), so forward mode cannot derive the tangents from it. Add a "
        "staticmethod jvp(ctx, *tangents) returning one tangent per output (with ctx.save_for_forward(...) "
        "in forward for the tensors it needs)."
    )


def _attach_tangents(
    cls: type[Function], outs: tuple[Any, ...], result: Any, level: int, non_diff: tuple[Tensor, ...]
) -> None:
    """Check ``jvp``'s tangents (one per output) and attach them to the differentiable outputs."""
    for o, t in zip(outs, check_tangents(cls, outs, result, non_diff)):
        if t is not None:
            forward_ad.set_tangent(o, level, t)

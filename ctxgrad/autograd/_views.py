"""Views and in-place writes: how a write into a view reaches its base's history.

A view shares its base's memory and version counter.  When a recorded Function changes a
view in place (``ctx.mark_dirty(view)``), the view's history goes through that Function's
node, and the *base* must see the write too: its history becomes a ``CopySlices`` node,
whose backward sends the gradient of the written elements through the view's new history
and the rest to the base's old history::

    b ── CopySlices ─┬─ b's old history        (the elements the view does not cover)
                     └─ MulBackward0 ── the view's old history ── b's old history

The view itself is then *re-read* from the new base (``AsStridedBackward0``).  Any other
view of the same base sees the version bump and is re-read the next time its ``grad_fn``
is asked for (:func:`history`).

Positions: a view's elements are located in its base as flat (C-order) positions, computed
from the two arrays' addresses and strides, so every kind of view (slices, transposes,
diagonals, reshapes) is handled the same way.  A view may read a position more than once
(``expand``, overlapping ``unfold`` windows, ``as_strided``): the re-read is a gather
(``TakeFlat``), so its gradient is a scatter-add (``AddFlat``), every reading passing its
gradient on; writing into such a view is refused (:func:`internal_overlap`).

This module is above :mod:`.function` (its nodes are Functions); it gives ``Tensor`` the two
methods that need it, ``_history`` and ``_record_base_write``, when ``ctxgrad.autograd`` is
imported, as torch's autograd registers its hooks with the tensor library below it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from ctxgrad._dtypes import can_cast, short_name
from ctxgrad._state import _state, refuse_inference_write
from ctxgrad._tensor import Tensor, _wrap
from ctxgrad.autograd._batched import batch_flat_positions, flat_positions_rule, unary_rule
from ctxgrad.autograd._batched_tensor import BatchedTensor
from ctxgrad.autograd._edges import WIDTH
from ctxgrad.autograd._mutation import before_in_place_write
from ctxgrad.autograd._outputs import check_view_change, move_retained_grad
from ctxgrad.autograd._readonly import explain_read_only
from ctxgrad.autograd.forward_ad import set_tangent
from ctxgrad.autograd.function import Function
from ctxgrad.autograd.graph import Node
from ctxgrad.autograd.saved import relock, writable

__all__ = [
    "AddFlat",
    "CopySlices",
    "ReplaceFlat",
    "TakeFlat",
    "check_no_overlap",
    "check_no_partial_overlap",
    "check_writable",
    "history",
    "in_place",
    "view_positions",
    "write",
    "write_in_place",
]

_F = TypeVar("_F", bound=Function[Any])

_OVERLAP_MSG = (
    "unsupported operation: more than one element of the written-to tensor refers to a single memory "
    "location. Please clone() the tensor before performing the operation."
)


# --------------------------------------------------------------------------- positions
def _element_offsets(arr: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """The byte offset of every element of ``arr`` from its first one, in ``arr``'s shape."""
    off = np.zeros(arr.shape, dtype=np.int64)
    for k, (n, stride) in enumerate(zip(arr.shape, arr.strides)):
        shape = [1] * arr.ndim
        shape[k] = n
        off = off + (np.arange(n, dtype=np.int64) * stride).reshape(shape)
    return off


def view_positions(view: np.ndarray[Any, Any], base: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Where each element of ``view`` (a NumPy view into ``base``'s memory) sits in ``base``,
    as flat C-order positions of ``base``, in ``view``'s shape."""
    start = view.__array_interface__["data"][0] - base.__array_interface__["data"][0]
    v_off = _element_offsets(view) + start
    if base.flags.c_contiguous:
        pos = v_off // base.itemsize
    else:
        b_off = _element_offsets(base).ravel()
        order = np.argsort(b_off, kind="stable")
        found = np.searchsorted(b_off[order], v_off)
        pos = order[np.minimum(found, b_off.size - 1)]
    return np.asarray(pos, dtype=np.intp)


def check_no_overlap(positions: np.ndarray[Any, Any]) -> None:
    """Torch's refusal to write where two elements of the target share one memory location."""
    if positions.size > 1 and np.unique(positions).size != positions.size:
        raise RuntimeError(_OVERLAP_MSG)


def _real_layout(arr: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """``arr``'s memory as real numbers: a complex array as its (real, imaginary) pairs in a
    last dimension of 2 (a NumPy view), any other array as it is."""
    if arr.dtype.kind != "c":
        return arr
    parts = arr.real  # (a view of the real parts, with arr's strides)
    return np.lib.stride_tricks.as_strided(parts, (*arr.shape, 2), (*arr.strides, parts.itemsize))


def _changes_kind(view: Tensor, base: Tensor) -> bool:
    """A complex view of a real base (``view_as_complex``) or a real view of a complex one
    (``view_as_real``): its elements are located, read and written in the real layout of both."""
    return bool((view._data.dtype.kind == "c") != (base._data.dtype.kind == "c"))


def _base_positions(view: Tensor, base: Tensor) -> np.ndarray[Any, Any]:
    """:func:`view_positions` of ``view`` in ``base``; in their real layouts when the view
    changes the dtype's kind (then in the shape of the view's real layout)."""
    if _changes_kind(view, base):
        return view_positions(_real_layout(view._data), _real_layout(base._data))
    return view_positions(view._data, base._data)


# --------------------------------------------------------------------------- the Functions
def _positions(ctx: Any) -> np.ndarray[Any, Any]:
    """The flat positions a node saved (as a tensor, so that its backward frees them)."""
    saved: Tensor = ctx.saved_tensors[0]
    return saved._data


class TakeFlat(Function[Tensor]):
    """The elements of ``x`` at flat ``positions`` (in the positions' shape): how a view
    that was written through is re-read from its base."""

    node_name = "AsStridedBackward0"
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True
    vmap = flat_positions_rule(None, 1)

    @staticmethod
    def forward(ctx: Any, x: Tensor, positions: np.ndarray[Any, Any]) -> Tensor:
        ctx.shape = x._data.shape
        ctx.save_for_backward(_wrap(positions))  # freed by backward, unlike an attribute
        return _wrap(np.asarray(np.take(x._data, positions)))  # (a 0-d take is a NumPy scalar)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        # Added, not written: an overlapping view (expand, unfold, as_strided) reads one
        # position of the base more than once, and each reading passes on its gradient.
        zeros = _wrap(np.zeros(ctx.shape, dtype=grad._data.dtype))
        return AddFlat.apply(zeros, _positions(ctx), grad), None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: None) -> Tensor:
        return TakeFlat.apply(tx, _positions(ctx))


class ReplaceFlat(Function[Tensor]):
    """A copy of ``x`` with the elements at flat ``positions`` replaced by ``values``
    (a tensor broadcast to the positions' shape, or a number)."""

    node_name = "ReplaceFlatBackward0"
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True
    vmap = flat_positions_rule(2, 1)

    @staticmethod
    def forward(ctx: Any, x: Tensor, positions: np.ndarray[Any, Any], values: Any) -> Tensor:
        ctx.save_for_backward(_wrap(positions))  # freed by backward, unlike an attribute
        out = np.array(x._data, order="C")  # (a C-ordered copy, an ndarray even of a NumPy scalar)
        v = values._data if isinstance(values, Tensor) else values
        out.flat[positions.ravel()] = np.broadcast_to(v, positions.shape).ravel()
        return _wrap(out)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, None, Tensor | None]:
        need_x, _, need_values = ctx.needs_input_grad
        return (
            ReplaceFlat.apply(grad, _positions(ctx), 0.0) if need_x else None,
            None,
            TakeFlat.apply(grad, _positions(ctx)) if need_values else None,
        )

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: None, tv: Tensor | None) -> Tensor:
        return ReplaceFlat.apply(tx, _positions(ctx), 0.0 if tv is None else tv)


class AddFlat(Function[Tensor]):
    """A copy of ``x`` with ``values`` (broadcast to the positions' shape) added at flat
    ``positions``, a position given more than once receiving the sum: the adjoint of
    :class:`TakeFlat` (a gather's backward is a scatter-add)."""

    node_name = "AsStridedBackwardBackward0"
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True
    vmap = flat_positions_rule(2, 1)

    @staticmethod
    def forward(ctx: Any, x: Tensor, positions: np.ndarray[Any, Any], values: Tensor) -> Tensor:
        ctx.save_for_backward(_wrap(positions))  # freed by backward, unlike an attribute
        out = np.array(x._data, order="C")  # (a C-ordered copy, an ndarray even of a NumPy scalar)
        np.add.at(out.reshape(-1), positions.ravel(), np.broadcast_to(values._data, positions.shape).ravel())
        return _wrap(out)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, None, Tensor | None]:
        need_x, _, need_values = ctx.needs_input_grad
        return (grad if need_x else None), None, (TakeFlat.apply(grad, _positions(ctx)) if need_values else None)

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: None, tv: Tensor) -> Tensor:
        return AddFlat.apply(tx, _positions(ctx), tv)


class RealPairs(Function[Tensor]):
    """A complex tensor's numbers as (real, imaginary) pairs in a last dimension of 2 (a
    copy): how a complex base is read and written by a real view of it."""

    node_name = "ViewAsRealBackward0"
    skips_without_gradient = True
    vmap = unary_rule  # (the pairs of every sample: a last dimension, after the batch's)

    @staticmethod
    def forward(ctx: Any, z: Tensor) -> Tensor:
        return _wrap(np.ascontiguousarray(_real_layout(z._data)))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        return ComplexFromPairs.apply(grad)

    @staticmethod
    def jvp(ctx: Any, tz: Tensor) -> Tensor:
        return RealPairs.apply(tz)


class ComplexFromPairs(Function[Tensor]):
    """The complex numbers whose (real, imaginary) pairs are the last dimension of ``x`` (a
    copy): :class:`RealPairs` undone."""

    node_name = "ViewAsComplexBackward0"
    skips_without_gradient = True
    vmap = unary_rule

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        pairs = x._data
        return _wrap(np.asarray(pairs[..., 0] + 1j * pairs[..., 1]))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        return RealPairs.apply(grad)

    @staticmethod
    def jvp(ctx: Any, tx: Tensor) -> Tensor:
        return ComplexFromPairs.apply(tx)


class CopySlices(Function[Tensor]):
    """Write ``values`` into ``base`` at flat ``positions``, in place (``ctx.mark_dirty``):
    the node of a base that was written through a view, and of ``x[index] = values``.
    ``target``, when given, is the NumPy view of ``base`` that covers the positions (a
    faster write); with ``values`` already in place (a view changed by a Function), the
    write only records."""

    node_name = "CopySlices"
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(
        ctx: Any, base: Tensor, values: Tensor, positions: np.ndarray[Any, Any], target: np.ndarray[Any, Any] | None
    ) -> Tensor:
        if target is not values._data:
            flipped = writable(target if target is not None else base._data)
            try:
                if target is not None:
                    np.copyto(target, values._data, casting="unsafe")
                else:
                    base._data.flat[positions.ravel()] = np.broadcast_to(values._data, positions.shape).ravel()
            finally:
                relock(flipped)
        ctx.save_for_backward(_wrap(positions))  # freed by backward, unlike an attribute
        ctx.mark_dirty(base)
        return base

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None, None, None]:
        need_base, need_values, _, _ = ctx.needs_input_grad
        return (
            ReplaceFlat.apply(grad, _positions(ctx), 0.0) if need_base else None,
            TakeFlat.apply(grad, _positions(ctx)) if need_values else None,
            None,
            None,
        )

    @staticmethod
    def jvp(ctx: Any, t_base: Tensor, t_values: Tensor, *_: None) -> Tensor:
        return ReplaceFlat.apply(t_base, _positions(ctx), t_values)

    @classmethod
    def vmap(
        cls, info: Any, in_dims: tuple[Any, ...], base: Tensor, values: Tensor, positions: Any, target: Any
    ) -> tuple[Tensor, int]:
        """The write into every sample, by positions (``target``, a NumPy view of one sample's
        base, has no counterpart in the batch)."""
        return batch_flat_positions(cls, info, in_dims, [base, values, positions, None], 1, 2, in_place=True)


def write(
    node: type[CopySlices],
    base: Tensor,
    target: np.ndarray[Any, Any] | None,
    positions: np.ndarray[Any, Any],
    values: Tensor,
) -> None:
    """Write ``values`` into ``base`` at ``positions`` through ``node`` (``CopySlices`` or a
    Function named like it), refusing targets whose elements overlap."""
    check_no_overlap(positions)
    node.apply(base, values, positions, target)


# --------------------------------------------------------------------------- in-place ops
def check_writable(
    x: Tensor, through_view: bool = False, view_op: str | None = None, operands: tuple[Any, ...] = ()
) -> None:
    """Torch's refusals of an in-place change to ``x``, made before anything is written (a
    leaf that requires grad, or a view of one, while grad mode is on; an inference tensor
    outside inference mode).  ``through_view``: the write goes through a view of ``x``
    (``x[i] = v``), which the view op ``view_op`` makes (``"Select"``), when it is known;
    ``operands``: the op's other arguments (a guarded view may not be changed by an op that
    needs a gradient, through any of them)."""
    if x._base is not None:
        check_view_change(x, base_changed=False, through=view_op, operands=operands)
    if _state.modes.grad_enabled and not _state.modes.inference:  # (inference mode records nothing to guard)
        root = x._base if x._base is not None else x
        if root._requires_grad and root._grad_fn is None:
            if x._base is not None or through_view:
                raise RuntimeError(
                    "a view of a leaf Variable that requires grad is being used in an in-place operation."
                )
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    refuse_inference_write(x)
    if _state.modes.allow_mutation is not None:
        before_in_place_write(x)


def _check_result(x: Tensor, out: Tensor) -> None:
    if out._data.shape != x._data.shape:
        raise RuntimeError(
            f"output with shape {list(x._data.shape)} doesn't match the broadcast shape {list(out._data.shape)}"
        )
    if out._data.dtype != x._data.dtype and not can_cast(out._data.dtype, x._data.dtype):
        raise RuntimeError(
            f"result type {short_name(out._data.dtype)} can't be cast to the desired output type "
            f"{short_name(x._data.dtype)}"
        )


def _original(x: Tensor) -> Tensor:
    """A copy of ``x``'s values before an in-place write, with ``x``'s history: what an
    in-place op's node saves where its formula needs the old ``x`` (torch's "original self")."""
    original = _wrap(x._data.copy())
    original._grad_fn = x._grad_fn if x._base is None else x._history()
    original._output_nr = x._output_nr
    original._requires_grad = x._requires_grad and original._grad_fn is not None
    fw = x._fw if x._base is None else view_tangents(x)
    if fw:  # and x's tangents as they were (forward over reverse differentiates backward's use of it)
        for level, tangent in fw.items():
            set_tangent(original, level, tangent)
    return original


_TWINS: dict[type[Function[Any]], Any] = {}


def in_place(fn: type[_F]) -> type[_F]:
    """The in-place variant of ``fn``: a Function whose ``forward`` runs ``fn.forward``,
    writes the result into its first argument and marks it dirty (``ctx.mark_dirty``), as a
    user's in-place Function does; ``backward`` and ``jvp`` are ``fn``'s, and so is the
    node's name (``x.mul_(2).grad_fn`` is ``MulBackward0``).  Made once per Function.

    Where ``fn`` saved its first argument for backward, the node saves a copy of the old
    values instead (the write changes them); a result it saved stays apart from the written
    tensor (so a later in-place change of that tensor leaves backward right, where torch
    refuses it: docs/differences.md).  The core does the rest: the version
    bump, the history of the written tensor, and a view's base (:func:`record_base_write`).
    """
    twin: type[_F] | None = _TWINS.get(fn)
    if twin is not None:
        return twin
    if fn._setup_style:
        raise TypeError(f"in_place({fn.__name__}): a forward that takes ctx is needed, not setup_context")
    compute = fn.forward

    @functools.wraps(compute)
    def forward(ctx: Any, x: Tensor, *args: Any) -> Tensor:
        out = compute(ctx, x, *args)
        _check_result(x, out)
        saved = ctx.to_save
        if saved is not None and (True in ctx.needs_input_grad or _has_tangent(x, args)):
            if any(t is x for t in saved):
                original = _original(x)
                ctx.to_save = saved = tuple(original if t is x else t for t in saved)
            if any(t is out for t in saved):
                # Saved as this node's output (its history for double backward), with a
                # version of its own: a later in-place change of x does not affect it.
                out._grad_fn = ctx
                out._output_nr = 0
                out._requires_grad = True
        flipped = writable(x._data)
        try:
            np.copyto(x._data, out._data, casting="unsafe")
        finally:
            relock(flipped)
        ctx.mark_dirty(x)
        return x

    namespace = {
        "forward": staticmethod(forward),
        "node_name": fn._backward_cls.__name__,
        "writes_first_input": True,
        "__module__": fn.__module__,
        "__qualname__": f"in_place({fn.__qualname__})",
        "__doc__": f"In place: {fn.__doc__}" if fn.__doc__ else None,
    }
    meta: Any = type(fn)
    twin = _TWINS[fn] = meta(fn.__name__, (fn,), namespace)
    # Its backward and jvp are fn's, and so is the Function they see as ctx.forward_cls: one
    # that calls ``ctx.forward_cls.apply`` there (tril's backward is tril) must not write
    # into the incoming gradient.
    twin._backward_cls.forward_cls = fn
    return twin


def _has_tangent(x: Tensor, args: tuple[Any, ...]) -> bool:
    """Some argument has a tangent: ``jvp`` will run after ``forward`` (forward mode)."""
    return x._fw is not None or any(isinstance(a, Tensor) and a._fw is not None for a in args)


def internal_overlap(arr: np.ndarray[Any, Any]) -> bool:
    """Some memory location holds more than one element of ``arr``: a dimension of stride 0,
    as ``expand`` makes, which torch refuses to write into, or windows that overlap
    (``unfold`` with a step below the size, ``as_strided``), into which torch writes element
    by element, each write seen by the later reads: a result that is neither the op's nor
    what its gradient describes, so ctxgrad refuses those too (docs/differences.md)."""
    if arr.size == 0:  # (no element, so none shares a location: NumPy gives an empty array any strides)
        return False
    if any(stride == 0 and n > 1 for n, stride in zip(arr.shape, arr.strides)):
        return True
    # Provably apart when each dimension steps over the whole span of the finer ones.
    span = arr.itemsize
    for step, n in sorted((abs(stride), n) for n, stride in zip(arr.shape, arr.strides) if n > 1):
        if step < span:
            offsets = _element_offsets(arr).ravel()
            return bool(np.unique(offsets).size != offsets.size)
        span += step * (n - 1)
    return False


_PARTIAL_OVERLAP_MSG = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single "
    "memory location. Please clone() the tensor before performing the operation."
)


def check_no_partial_overlap(target: np.ndarray[Any, Any], operands: tuple[Any, ...]) -> None:
    """Torch's refusal to write into ``target`` from an operand that shares some of its memory
    without being the same elements (``y.copy_(y.t())``, ``y[1:] = y[:-1]``): the result would
    depend on the order of the writes.  The same tensor (``y.add_(y)``) is fine."""
    for a in operands:
        arr = a._data if isinstance(a, Tensor) else None
        if arr is None or not np.may_share_memory(arr, target):
            continue
        same = (
            arr.__array_interface__["data"][0] == target.__array_interface__["data"][0]
            and arr.strides == target.strides
            and arr.shape == target.shape
        )
        if same:
            continue
        if np.shares_memory(arr, target):  # (exact; reached only for arrays of one base)
            raise RuntimeError(_PARTIAL_OVERLAP_MSG)


def write_in_place(fn: type[Function[Any]], x: Tensor, *args: Any) -> Tensor:
    """``in_place(fn).apply(x, *args)`` after torch's checks that ``x`` may be changed: the
    body of every built-in in-place op (``x.mul_(y)`` is ``write_in_place(Mul, x, y)``)."""
    modes = _state.modes
    if modes.vmap_levels and (isinstance(x, BatchedTensor) or any(isinstance(a, BatchedTensor) for a in args)):
        return in_place(fn).apply(x, *args)  # type: ignore[no-any-return]  # (its batching rule writes the batch)
    if (
        not modes.special
        and not fn._setup_style  # (in_place refuses those: its TypeError below)
        and x._base is None
        and x._fw is None
        and not (modes.grad_enabled and _any_requires_grad(x, args))
    ):
        return _write_unrecorded(fn, x, args)
    check_writable(x, operands=args)
    if x._base is not None and internal_overlap(x._data):
        raise RuntimeError(_OVERLAP_MSG)
    check_no_partial_overlap(x._data, args)
    out: Tensor = in_place(fn).apply(x, *args)
    return out


def _any_requires_grad(x: Tensor, args: tuple[Any, ...]) -> bool:
    if x._requires_grad:
        return True
    for a in args:
        if isinstance(a, Tensor) and (a._requires_grad or (a._base is not None and a.requires_grad)):
            return True
    return False


def _write_unrecorded(fn: type[Function[Any]], x: Tensor, args: tuple[Any, ...]) -> Tensor:
    """``write_in_place`` where nothing is recorded (grad mode off, as in an optimizer's step,
    or no operand requiring grad), for a tensor that is no view and has no tangent: the same
    checks and result as ``in_place(fn)``, without a node's bookkeeping: ``fn`` computes the
    new values untracked, they are written into ``x``'s array and its version moves on."""
    check_writable(x, operands=args)
    check_no_partial_overlap(x._data, args)
    out = fn.apply(x, *args)
    _check_result(x, out)
    flipped = writable(x._data)
    try:
        np.copyto(x._data, out._data, casting="unsafe")
    except ValueError as exc:  # (NumPy's refusal to write into a read-only array)
        explain_read_only(fn, (x, *args), exc)
        raise
    finally:
        relock(flipped)
    x._bump_version()
    return x


def write_ufunc_in_place(ufunc: Any, x: Tensor, y: Any, alpha: Any = 1) -> bool:
    """``ufunc(x, y)`` written by NumPy straight into ``x``'s array, where nothing records (no
    special mode; grad mode off or no operand requiring grad) and NumPy's result has ``x``'s
    floating dtype (``y`` a tensor of that dtype, or a Python int or float), and the write
    needs none of the in-place path's care: ``x`` is an ordinary tensor (no view, not an
    inference tensor, its array writable) and ``y`` shares no memory with it.  True when done
    (``x``'s version then moves on, as the Function's path moves it); False leaves the call to
    the in-place Function, which also raises torch's errors.  An optimizer's step
    (``p.add_(g, alpha=-lr)`` under ``no_grad``) thus costs about one NumPy call per update.
    ``alpha`` (``add_`` and ``sub_``'s): ``y`` a tensor, scaled first by a Python number, as
    the operators' shortcut multiplies it (its product is a new array: no shared memory).
    (``add_``, ``sub_``, ``mul_`` and ``div_`` use it; tests/test_operator_shortcut.py checks
    it against the in-place Function's path.)"""
    modes = _state.modes
    if modes.special or modes.allow_mutation is not None or x._base is not None or x._inference:
        return False
    if modes.grad_enabled and (x._requires_grad or (isinstance(y, Tensor) and y.requires_grad)):
        return False
    a = x._data
    dt = a.dtype
    if not a.flags.writeable or dt.kind not in "fc":
        return False
    b: Any
    if isinstance(y, Tensor):
        b = y._data
        if b.dtype is not dt and b.dtype != dt:
            return False
        if alpha != 1:
            if dt.kind != "f" or (type(alpha) is not float and type(alpha) is not int):
                return False
            b = b * alpha
            if b.dtype != dt:
                return False
        # (two arrays that own their memory share none; else NumPy's bounds check)
        elif (a is b or a.base is not None or b.base is not None) and np.may_share_memory(a, b):
            return False
    elif alpha != 1:
        return False
    elif dt.kind == "f" and (type(y) is float or type(y) is int):
        b = y
    else:
        return False
    try:
        ufunc(a, b, out=a)
    except ValueError:  # (y does not broadcast to x's shape: the Function raises torch's error)
        return False
    x._bump_version()
    return True


def view_in_place(view: Callable[..., Tensor], x: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """The in-place view ops' body (``x.t_()`` is ``view_in_place(ctxgrad.t, x)``).

    No value is written: ``x`` takes the shape and strides of ``view(x, ...)`` over the same
    memory, and its node (``TBackward0``, whose edge leads to ``x``'s old history) as its
    history; its version is bumped, as torch's in-place view ops do.
    """
    if isinstance(x, BatchedTensor):
        raise NotImplementedError(f"{view.__name__}_: an in-place change of shape is not batched under vmap")
    if _state.modes.grad_enabled and x._requires_grad and x._grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    refuse_inference_write(x)
    out = view(x, *args, **kwargs)
    x._data = out._data
    x._bump_version()
    if out._grad_fn is not None:
        x._grad_fn, x._output_nr = out._grad_fn, out._output_nr
    if out._fw is not None:
        x._fw = out._fw
    # (a view's history and tangents are current: nothing to re-read from its base)
    x._view_version = x._fw_version = x._get_vc().value
    return x


# --------------------------------------------------------------------------- the Tensor methods
def _reread(view: Tensor, base: Tensor, positions: np.ndarray[Any, Any] | None = None) -> None:
    """Give ``view`` the history of a view of ``base`` as it is now (after a write to it)."""
    view._view_version = view._get_vc().value
    if base._requires_grad and _state.modes.grad_enabled:
        if positions is None:
            positions = _base_positions(view, base)
        again = _read_view(view, base, positions)
        old_fn, old_nr = view._grad_fn, view._output_nr
        view._grad_fn = again._grad_fn
        view._output_nr = 0
        view._requires_grad = True
        if view._retains_grad:
            move_retained_grad(view, old_fn, old_nr)


def _read_view(view: Tensor, base: Tensor, positions: np.ndarray[Any, Any]) -> Tensor:
    """``view``'s elements read from ``base`` (or from a tangent of it) at ``positions``
    (:func:`_base_positions`), with its history: a gather, through the real layouts when the
    view changes the dtype's kind."""
    if not _changes_kind(view, base):
        return TakeFlat.apply(base, positions)
    pairs = TakeFlat.apply(RealPairs.apply(base) if base._data.dtype.kind == "c" else base, positions)
    return ComplexFromPairs.apply(pairs) if view._data.dtype.kind == "c" else pairs


def _write_view_changing_kind(view: Tensor, base: Tensor, positions: np.ndarray[Any, Any]) -> None:
    """``record_base_write`` for a view that changes the dtype's kind: the base's new values
    are its old ones (its old history) with the view's written over them in the real
    layout, and ``CopySlices`` records them over the whole base (they are in memory already)."""
    old = _wrap(base._data)
    old._grad_fn, old._output_nr = base._grad_fn, base._output_nr
    old._requires_grad = base._requires_grad
    everywhere = np.arange(base._data.size, dtype=np.intp).reshape(base._data.shape)
    CopySlices.apply(base, _replaced_changing_kind(old, positions, view), everywhere, None)


def _replaced_changing_kind(whole: Tensor, positions: np.ndarray[Any, Any], part: Tensor) -> Tensor:
    """A copy of ``whole`` with ``part`` (of the other kind of dtype) at ``positions`` of
    their real layouts, differentiable in both."""
    complex_whole = whole._data.dtype.kind == "c"
    values = RealPairs.apply(part) if part._data.dtype.kind == "c" else part
    pairs = ReplaceFlat.apply(RealPairs.apply(whole) if complex_whole else whole, positions, values)
    return ComplexFromPairs.apply(pairs) if complex_whole else pairs


def history(view: Tensor) -> Node | None:
    """``Tensor._history``: a view's ``grad_fn``, first re-derived from its base when the
    base was changed in place since (so that the view's gradient goes through the change,
    as in torch)."""
    vc = view._vc
    if vc is not None and view._view_version != vc.value:
        base = view._base
        if base is not None and _state.modes.grad_enabled:
            check_view_change(view, base_changed=True)
            _reread(view, base)
    return view._grad_fn


def record_base_write(view: Tensor, old_fn: Any = None, old_nr: int = 0) -> None:
    """``Tensor._record_base_write``: ``view`` was just changed in place by a recorded
    Function; its base's history now goes through the change (``CopySlices``), and the view
    is re-read from the new base.  The write itself was already counted in the version.

    The writing node's edge to the view's old history (``old_fn``, ``old_nr``) is pointed at a
    fresh view of the base instead, as torch's CopySlices reads the written elements from the
    base: tensor hooks and ``retain_grad`` on the old view's node see none of the gradient."""
    base = view._base
    if base is None:
        return
    positions = _base_positions(view, base)
    node = view._grad_fn
    if old_fn is not None and base._requires_grad and node is not None:
        edges = list(node._edges)  # (node, output_nr, shape, dtype per argument: _edges.py)
        for k in range(0, len(edges), WIDTH):
            if edges[k] is old_fn and edges[k + 1] == old_nr:
                edges[k : k + 2] = (_read_view(view, base, positions)._grad_fn, 0)
                node._edges = tuple(edges)
                break
    vc = view._get_vc()
    version = view._view_version = vc.value  # its grad_fn (the writing node) is current: no re-read
    if _changes_kind(view, base):
        _write_view_changing_kind(view, base, positions)
    else:
        CopySlices.apply(base, view, positions, view._data)
    vc.value = version
    _reread(view, base, positions)


def write_base_tangent(view: Tensor, level: int) -> None:
    """``Tensor._write_base_tangent``: ``view`` was changed in place and got a new tangent at
    forward-mode ``level``; the elements it covers in its base's tangent take that tangent."""
    base = view._base
    assert base is not None and view._fw is not None
    old = base._fw.get(level) if base._fw is not None else None
    if old is None:
        old = _wrap(np.zeros_like(base._data))
    positions = _base_positions(view, base)
    if _changes_kind(view, base):
        set_tangent(base, level, _replaced_changing_kind(old, positions, view._fw[level]))
    else:
        set_tangent(base, level, ReplaceFlat.apply(old, positions, view._fw[level]))


def view_tangents(view: Tensor) -> dict[int, Tensor] | None:
    """``Tensor._view_tangents``: ``view``'s tangents by level.  When its base was changed in
    place since they were set (its version moved on), every level at which the base has a
    tangent first gives the view the elements it covers, as :func:`history` re-reads a view's
    ``grad_fn``; a level at which the base has none keeps the view's own tangent."""
    vc = view._get_vc()
    if view._fw_version != vc.value:
        view._fw_version = vc.value
        base = view._base
        if base is not None and base._fw is not None:
            positions = _base_positions(view, base)
            levels = _state.modes.fw_levels
            for level, tangent in list(base._fw.items()):
                _state.modes.fw_levels = tuple(lv for lv in levels if lv != level)
                try:
                    again = _read_view(view, tangent, positions)
                finally:
                    _state.modes.fw_levels = levels
                set_tangent(view, level, again)
    return view._fw


for _name, _method in [
    ("_history", history),
    ("_record_base_write", record_base_write),
    ("_write_base_tangent", write_base_tangent),
    ("_view_tangents", view_tangents),
]:
    setattr(Tensor, _name, _method)

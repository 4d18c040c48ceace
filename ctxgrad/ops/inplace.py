"""In-place ops: ``x.mul_(y)``, ``x += y``, ``x[i] = v``, ``x.copy_(src)`` ...

One mechanism serves every in-place op.  The op is computed out of place by its ordinary
Function (so its backward and jvp are the ordinary ones), then the result is written into
``x``, and ``x``'s version counter is bumped once:

* ``x`` is not a view: its data is overwritten and its history is *rebased* onto the op's
  node, so ``x.grad_fn`` becomes ``MulBackward0`` after ``x.mul_(2)``, as in torch::

      before:  x ── old history            after:  x ── MulBackward0 ── old history

* ``x`` is a view of a base ``b``: the write goes through a :class:`CopySlices` node on
  ``b``.  Its backward sends the gradient of the written elements to the op and the rest to
  ``b``'s old history; ``x`` itself becomes a view (``AsStridedBackward0``) of the new ``b``::

      b ── CopySlices ─┬─ b's old history       (the elements x does not cover)
                       └─ MulBackward0 ── x's old history ── b's old history

Where the op's node saved ``x``'s old value for backward (``x.mul_(y)`` needs it for ``y``'s
gradient), that one tensor is replaced by a copy before the write: torch's "original self".
Any *other* node that saved ``x`` sees the version bump and raises at backward, as in torch.

Positions: a view's elements are located in its base as flat (C-order) positions, computed
from the two arrays' addresses and strides, so every kind of view (slices, transposes,
diagonals, reshapes) is handled the same way, and advanced-index assignment
(``x[[0, 2]] = v``) is the same write at the positions it selects.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ctxgrad._dtypes import short_name
from ctxgrad._state import _state
from ctxgrad._tensor import Tensor, _wrap
from ctxgrad.autograd.function import Function
from ctxgrad.autograd.saved import SavedTensor, relock, writable
from ctxgrad.ops._util import wrap

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


def _check_no_overlap(positions: np.ndarray[Any, Any]) -> None:
    if positions.size > 1 and np.unique(positions).size != positions.size:
        raise RuntimeError(_OVERLAP_MSG)


# --------------------------------------------------------------------------- the Functions
def _positions(ctx: Any) -> np.ndarray[Any, Any]:
    """The flat positions a node saved (as a tensor, so that its backward frees them)."""
    saved: Tensor = ctx.saved_tensors[0]
    return saved._data


class TakeFlat(Function[Tensor]):
    """The elements of ``x`` at flat ``positions`` (in the positions' shape): how a view
    that was written through is re-read from its base."""

    _backward_name = "AsStridedBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor, positions: np.ndarray[Any, Any]) -> Tensor:
        ctx.shape = x._data.shape
        ctx.save_for_backward(_wrap(positions))  # freed by backward, unlike an attribute
        return wrap(np.take(x._data, positions))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        zeros = _wrap(np.zeros(ctx.shape, dtype=grad._data.dtype))
        return ReplaceFlat.apply(zeros, _positions(ctx), grad), None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: None) -> Tensor:
        return TakeFlat.apply(tx, _positions(ctx))


class ReplaceFlat(Function[Tensor]):
    """A copy of ``x`` with the elements at flat ``positions`` replaced by ``values``
    (a tensor broadcast to the positions' shape, or a number)."""

    _backward_name = "ReplaceFlatBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor, positions: np.ndarray[Any, Any], values: Any) -> Tensor:
        ctx.save_for_backward(_wrap(positions))  # freed by backward, unlike an attribute
        out = x._data.copy()
        v = values._data if isinstance(values, Tensor) else values
        out.flat[positions.ravel()] = np.broadcast_to(v, positions.shape).ravel()
        return wrap(out)

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


class CopySlices(Function[Tensor]):
    """Write ``values`` into ``base`` at flat ``positions`` (through ``target``, the view
    array that covers them), in place: the node of a base that was written through a view."""

    _backward_name = "CopySlices"

    @staticmethod
    def forward(
        ctx: Any, base: Tensor, values: Tensor, positions: np.ndarray[Any, Any], target: np.ndarray[Any, Any] | None
    ) -> Tensor:
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


class IndexPut(CopySlices):
    """``x[index] = values`` for an advanced index: the same write, torch's node name."""

    _backward_name = "IndexPutBackward0"


class CopyFrom(Function[Tensor]):
    """The value ``x.copy_(src)`` writes: ``src`` broadcast to ``x``'s shape, in ``x``'s dtype."""

    _backward_name = "CopyBackwards"

    @staticmethod
    def forward(ctx: Any, x: Tensor, src: Any) -> Tensor:
        data = src._data if isinstance(src, Tensor) else np.asarray(src)
        try:
            out = np.broadcast_to(data, x._data.shape)
        except ValueError:
            raise RuntimeError(
                f"The size of tensor a ({x._data.shape[-1] if x._data.ndim else 1}) must match the size of "
                f"tensor b ({data.shape[-1] if data.ndim else 1}) at non-singleton dimension "
                f"{max(x._data.ndim - 1, 0)}"
            ) from None
        return wrap(out.astype(x._data.dtype, copy=True))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor]:
        need_x, _ = ctx.needs_input_grad
        return (grad * 0.0 if need_x else None), grad

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, t_src: Tensor | None) -> Tensor:
        return tx * 0.0 if t_src is None else t_src.expand(tx.shape).clone()


class Fill(Function[Tensor]):
    """The value ``x.fill_(value)`` writes: ``value`` (a number or a 0-d tensor) everywhere."""

    _backward_name = "FillBackward2"

    @staticmethod
    def forward(ctx: Any, x: Tensor, value: Any) -> Tensor:
        if isinstance(value, Tensor):
            if value._data.ndim != 0:
                raise RuntimeError(
                    f"fill_ only supports 0-dimension value tensor but got tensor with {value._data.ndim} dimensions."
                )
            value = value._data
        return wrap(np.full(x._data.shape, value, dtype=x._data.dtype))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        need_x, need_value = ctx.needs_input_grad
        return (grad * 0.0 if need_x else None), (grad.sum() if need_value else None)

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, t_value: Tensor | None) -> Tensor:
        return tx * 0.0 if t_value is None else t_value.expand(tx.shape).clone()


class FillWithTensor(Fill):
    """``x.fill_(value)`` with a 0-d tensor ``value``: torch's node name for that form."""

    _backward_name = "FillBackward3"


class Zero(Function[Tensor]):
    """The value ``x.zero_()`` writes; its gradient is zero."""

    _backward_name = "ZeroBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        return wrap(np.zeros_like(x._data))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        return grad * 0.0

    @staticmethod
    def jvp(ctx: Any, tx: Tensor) -> Tensor:
        return tx * 0.0


# --------------------------------------------------------------------------- the mechanism
def check_writable(x: Tensor, through_view: bool = False) -> None:
    """Torch's refusals of an in-place change to ``x`` (a leaf that requires grad, or a
    view of one, while grad mode is on; an inference tensor outside inference mode).
    ``through_view``: the write goes through a view of ``x`` (``x[i] = v``)."""
    if _state.grad_enabled:
        root = x._base if x._base is not None else x
        if root._requires_grad and root._grad_fn is None:
            if x._base is not None or through_view:
                raise RuntimeError(
                    "a view of a leaf Variable that requires grad is being used in an in-place operation."
                )
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    if x._inference and not _state.inference:
        raise RuntimeError("Inplace update to inference tensor outside InferenceMode is not allowed.")


def _check_result(x: Tensor, out: Tensor) -> None:
    if out._data.shape != x._data.shape:
        raise RuntimeError(
            f"output with shape {list(x._data.shape)} doesn't match the broadcast shape {list(out._data.shape)}"
        )
    if out._data.dtype != x._data.dtype and not np.can_cast(out._data.dtype, x._data.dtype, "same_kind"):
        raise RuntimeError(
            f"result type {short_name(out._data.dtype)} can't be cast to the desired output type "
            f"{short_name(x._data.dtype)}"
        )


def _keep_original(x: Tensor, out: Tensor) -> None:
    """If ``out``'s node saved ``x`` (about to be overwritten), save a copy of it instead."""
    node = out._grad_fn
    saved = getattr(node, "_saved", None)
    if not saved:
        return
    replaced = None
    for i, s in enumerate(saved):
        if s is not None and s._tensor is x:
            if replaced is None:
                replaced = list(saved)
                original = _wrap(x._data.copy())
                original._grad_fn = x._grad_fn
                original._output_nr = x._output_nr
                original._requires_grad = x._requires_grad
            replaced[i] = SavedTensor(original, node)  # type: ignore[arg-type]
    if replaced is not None:
        node._saved = tuple(replaced)  # type: ignore[union-attr]


def commit(x: Tensor, out: Tensor) -> Tensor:
    """Write ``out`` (the op computed out of place from ``x``) into ``x``: the in-place op."""
    _check_result(x, out)
    base = x._base
    if base is None:
        if out._grad_fn is not None:
            _keep_original(x, out)
        flipped = writable(x._data)
        try:
            np.copyto(x._data, out._data, casting="unsafe")
        finally:
            relock(flipped)
        x._bump_version()
        if out._grad_fn is not None and _state.grad_enabled:
            x._grad_fn = out._grad_fn
            x._output_nr = out._output_nr
            x._requires_grad = True
        _copy_tangents(x, out)
        return x
    return write_through_view(x, base, out)


def write_through_view(view: Tensor, base: Tensor, values: Tensor) -> Tensor:
    """Write ``values`` into ``view`` (a view of ``base``), record the write on ``base``, and
    give ``view`` the history of a view of the new ``base``."""
    positions = view_positions(view._data, base._data)
    if values._grad_fn is not None:
        _keep_original(view, values)
    _write(CopySlices, base, view._data, positions, values)
    _reread(view, base, positions)
    return view


def _write(
    node: type[CopySlices],
    base: Tensor,
    target: np.ndarray[Any, Any] | None,
    positions: np.ndarray[Any, Any],
    values: Tensor,
) -> None:
    _check_no_overlap(positions)
    node.apply(base, values, positions, target)


def refresh_view(view: Tensor) -> None:
    """A view whose base changed in place since its ``grad_fn`` was made: derive it again."""
    base = view._base
    if base is not None and _state.grad_enabled:
        _reread(view, base)


def _reread(view: Tensor, base: Tensor, positions: np.ndarray[Any, Any] | None = None) -> None:
    """Give ``view`` the history of a view of ``base`` as it is now (after a write to it)."""
    view._view_version = view._get_vc().value
    if base._requires_grad and _state.grad_enabled:
        if positions is None:
            positions = view_positions(view._data, base._data)
        again = TakeFlat.apply(base, positions)
        view._grad_fn = again._grad_fn
        view._output_nr = 0
        view._requires_grad = True


def _copy_tangents(x: Tensor, out: Tensor) -> None:
    fw = out._fw
    if fw:
        from ctxgrad.autograd.forward_ad import set_tangent

        for level, tangent in fw.items():
            set_tangent(x, level, tangent)


def setitem(x: Tensor, index: Any, values: Tensor) -> None:
    """``x[index] = values``: a write at the elements the index selects, recorded on ``x``'s
    base (``CopySlices`` for a basic index, ``IndexPutBackward0`` for an advanced one)."""
    from ctxgrad.ops.indexing import numpy_index

    where = numpy_index(index, x._data.shape)
    base = x._base if x._base is not None else x
    if where.advanced is None:
        check_writable(x, through_view=True)
        target = x._data[where.basic]
        if values._data.shape != target.shape:
            values.expand(target.shape)  # raises torch's error where the value does not fit
        positions = view_positions(target, base._data)
        _write(CopySlices, base, target, positions, values)
    else:
        check_writable(x)
        selected = where.take(np.arange(x._data.size).reshape(x._data.shape))
        try:
            np.broadcast_to(values._data, selected.shape)
        except ValueError:
            raise RuntimeError(
                f"shape mismatch: value tensor of shape {list(values._data.shape)} cannot be broadcast to "
                f"indexing result of shape {list(selected.shape)}"
            ) from None
        if base is x:
            _write(IndexPut, base, None, selected, values)
        else:  # into a view: recorded on the base as a write through the view, as torch does
            _write(CopySlices, base, None, view_positions(x._data, base._data).ravel()[selected], values)
    if base is not x:
        _reread(x, base)

"""In-place ops: ``x.mul_(y)``, ``x += y``, ``x[i] = v``, ``x.copy_(src)``, ``x.zero_()`` ...

Every in-place op is an ordinary Function that writes into its first argument and calls
``ctx.mark_dirty``, as a user's in-place Function does.  For an op that also exists out of
place, that Function is made from the out-of-place one
(:func:`~ctxgrad.autograd.inplace.in_place`): ``x.mul_(y)`` runs ``Mul``'s forward, writes
the product into ``x`` and marks it dirty, and its node is ``MulBackward0``, whose backward
is ``Mul``'s.  The core does what follows from ``mark_dirty``: it bumps ``x``'s version,
moves ``x``'s history onto the node, and, when ``x`` is a view, records the write on its
base (``CopySlices``)::

    x ── old history                 x.mul_(2)   x ── MulBackward0 ── old history

    b ── old history, v = b[0]       v.mul_(2)   b ── CopySlices ─┬─ b's old history
                                                                  └─ MulBackward0 ── v's old history

This module holds the ops that exist only in place (``zero_``, ``fill_``, ``copy_``) and
indexed assignment, ``x[index] = values``: a write at the selected elements by
``CopySlices`` (``IndexPutBackward0`` for an advanced index), the core's write-through-a-view
Function.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from ctxgrad._dtypes import fill_value_as
from ctxgrad._replayed import replayed_whole
from ctxgrad._state import _state
from ctxgrad._tensor import Tensor, as_tensor
from ctxgrad.autograd.batching import BatchedTensor, elementwise_rule
from ctxgrad.autograd.function import Function
from ctxgrad.autograd.inplace import (
    CopySlices,
    check_no_overlap,
    check_no_partial_overlap,
    check_writable,
    internal_overlap,
    view_in_place,
    view_positions,
    write,
    write_in_place,
)
from ctxgrad.ops import arithmetic, comparison, pointwise, shape
from ctxgrad.ops._row import Op
from ctxgrad.ops._util import operand
from ctxgrad.ops.indexing import PutFlat, _batched_int_indices, index_put_args, numpy_index

__all__ = ["CopyFrom", "Fill", "Zero", "copy_", "fill_", "setitem", "zero_"]


class CopyFrom(Function[Tensor]):
    """The value ``x.copy_(src)`` writes: ``src`` broadcast to ``x``'s shape, in ``x``'s dtype."""

    vmap = elementwise_rule
    writes_first_input = True

    node_name = "CopyBackwards"
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, src: Any) -> Tensor:
        data = src.array if isinstance(src, Tensor) else np.asarray(src)
        shape = x.array.shape
        try:
            out = np.broadcast_to(data, shape)
        except ValueError:
            raise RuntimeError(
                f"The size of tensor a ({shape[-1] if shape else 1}) must match the size of "
                f"tensor b ({data.shape[-1] if data.ndim else 1}) at non-singleton dimension {max(len(shape) - 1, 0)}"
            ) from None
        return as_tensor(out.astype(x.array.dtype, copy=True))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor]:
        need_x, _ = ctx.needs_input_grad
        return (as_tensor(np.zeros_like(grad.array)) if need_x else None), grad  # (a constant, as torch's)

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, t_src: Tensor | None) -> Tensor:
        return tx * 0.0 if t_src is None else t_src.expand(tx.shape).clone()


class Fill(Function[Tensor]):
    """The value ``x.fill_(value)`` writes: ``value`` (a number or a 0-d tensor) everywhere."""

    vmap = elementwise_rule
    writes_first_input = True

    node_name = "FillBackward2"
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, value: Any) -> Tensor:
        if isinstance(value, Tensor):
            if value.array.ndim != 0:
                raise RuntimeError(
                    f"fill_ only supports 0-dimension value tensor but got tensor with {value.array.ndim} dimensions."
                )
            value = value.array
        elif type(value) in (int, float):  # torch's RuntimeError for a number the dtype cannot hold
            value = fill_value_as(value, x.array.dtype)
        return as_tensor(np.full(x.array.shape, value, dtype=x.array.dtype))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        need_x, need_value = ctx.needs_input_grad
        return (as_tensor(np.zeros_like(grad.array)) if need_x else None), (grad.sum() if need_value else None)

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, t_value: Tensor | None) -> Tensor:
        return tx * 0.0 if t_value is None else t_value.expand(tx.shape).clone()


class Zero(Function[Tensor]):
    """The value ``x.zero_()`` writes; its gradient is zero."""

    vmap = elementwise_rule
    writes_first_input = True

    node_name = "ZeroBackward0"
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        return as_tensor(np.zeros_like(x.array))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        return as_tensor(np.zeros_like(grad.array))  # a constant, as torch's zeros_like(grad)

    @staticmethod
    def jvp(ctx: Any, tx: Tensor) -> Tensor:
        return as_tensor(np.zeros_like(tx.array))


# torch names the 0-d tensor form of fill_ apart, and an advanced-index write IndexPut.


class FillWithTensor(Fill):
    node_name = "FillBackward3"


class IndexPut(CopySlices):
    node_name = "IndexPutBackward0"


def zero_(input: Tensor) -> Tensor:
    """Fill with zeros, in place."""
    return write_in_place(Zero, input)


def fill_(input: Tensor, value: Any) -> Tensor:
    """Fill with ``value`` (a number or a 0-d tensor), in place."""
    return write_in_place(FillWithTensor if isinstance(value, Tensor) else Fill, input, value)


def copy_(input: Tensor, other: Any, non_blocking: bool = False) -> Tensor:
    """Copy ``other`` (broadcast, converted to this dtype) into this tensor, in place (torch's
    parser names the source ``other``, though its docs say ``src``)."""
    return write_in_place(CopyFrom, input, other)


def _is_integer_index(item: Any) -> bool:
    if isinstance(item, (int, np.integer)) and not isinstance(item, (bool, np.bool_)):
        return True
    array = item.array if isinstance(item, Tensor) else item
    return isinstance(array, np.ndarray) and array.ndim == 0 and array.dtype.kind in "iu"


def _dims_taken(item: Any) -> int:
    """How many dimensions of the indexed tensor the index element ``item`` takes."""
    if item is None or item is Ellipsis or isinstance(item, (bool, np.bool_)):
        return 0
    array = item.array if isinstance(item, Tensor) else item
    if isinstance(array, np.ndarray) and array.dtype == np.bool_:
        return array.ndim
    return 1


def indexing_view_op(index: Any, shape: tuple[int, ...]) -> str | None:
    """The view op whose view ``x[index] = v`` writes through in torch (the last one its
    indexing makes, before any advanced index: ``"Select"`` for an integer, ``"Slice"``,
    ``"Unsqueeze"`` for None or a bool), or None when it makes none (a slice of a whole
    dimension is skipped): the in-place checks name that view."""
    items = index if type(index) is tuple else (index,)
    sizes = list(shape)
    dim = 0
    made = None
    for item in items:
        if item is Ellipsis:
            dim += len(shape) - sum(_dims_taken(i) for i in items)
        elif (
            item is None
            or isinstance(item, (bool, np.bool_))
            or (isinstance(item, Tensor) and item.array.ndim == 0 and item.array.dtype == np.bool_)
        ):
            sizes.insert(dim, 1)
            made = "Unsqueeze"
            dim += 1
        elif _is_integer_index(item):
            del sizes[dim]
            made = "Select"
        elif isinstance(item, slice):
            start, stop, step = item.start, item.stop, item.step
            whole = (
                (start is None or (_is_integer_index(start) and int(start) == 0))
                and (step is None or (_is_integer_index(step) and int(step) == 1))
                and (stop is None or (_is_integer_index(stop) and int(stop) >= sizes[dim]))
            )
            if not whole:
                made = "Slice"
            dim += 1
        else:
            dim += _dims_taken(item)
    return made


@replayed_whole
def setitem(input: Tensor, index: Any, value: Any) -> None:
    """``input[index] = value``: a write at the elements the index selects (``CopySlices``
    for a basic index, ``IndexPutBackward0`` for an advanced one), which marks ``input``
    dirty; when ``input`` is a view, the core records the write on its base too."""
    if _state.vmap_levels and (isinstance(input, BatchedTensor) or isinstance(value, BatchedTensor)):
        _setitem_batched(input, index, value)
        return
    values = value if isinstance(value, Tensor) else Tensor(value, dtype=input.dtype)
    if index is False:
        return  # selects nothing: torch writes nothing and checks nothing
    data = input.array
    where = numpy_index(index, data.shape)
    view_op = indexing_view_op(index, data.shape)
    check_writable(input, through_view=view_op is not None, view_op=view_op)
    if where.advanced is None:
        target = data[where.basic]
        if values.array.shape != target.shape:
            values.expand(target.shape)  # raises torch's error where the value does not fit
        check_no_partial_overlap(target, (values,))
        write(CopySlices, input, target, view_positions(target, data), values)
    else:
        selected = where.take(np.arange(data.size).reshape(data.shape))
        try:
            np.broadcast_to(values.array, selected.shape)
        except ValueError:
            raise RuntimeError(
                f"shape mismatch: value tensor of shape {list(values.array.shape)} cannot be broadcast to "
                f"indexing result of shape {list(selected.shape)}"
            ) from None
        # Repeated indices are allowed (the last value written wins, as in torch on the CPU);
        # only a target whose own elements share memory is refused.
        if internal_overlap(data):
            check_no_overlap(view_positions(data, data))
        IndexPut.apply(input, values, selected, None)


def _setitem_batched(input: Tensor, index: Any, value: Any) -> None:
    """``input[index] = value`` inside vmap: the same write into the whole batch, the index
    taking every sample (a value of one sample per sample lines up with the selection)."""
    level = max(t.level for t in (input, value) if isinstance(t, BatchedTensor))
    if not (isinstance(input, BatchedTensor) and input.level == level):
        raise RuntimeError(
            "vmap: index_put_(self, *extra_args) is not possible because there exists a Tensor in extra_args "
            "that is batched while `self` is not: the result has more elements than `self` can hold. Please "
            "try to use out-of-place operators instead."
        )
    where = index if isinstance(index, tuple) else (index,)
    if any(isinstance(i, BatchedTensor) for i in where):
        if not _batched_int_indices(where, input.array.shape):
            raise NotImplementedError(
                "vmap: an index that is itself batched is supported in x[index] = value only as integer tensors, "
                "one per leading dimension"
            )
        v = value if isinstance(value, Tensor) else as_tensor(np.asarray(value, dtype=input.array.dtype))
        values = v if v.dtype == input.dtype else v.to(input.dtype)
        write_in_place(PutFlat, *index_put_args("index_put_", input, where, values))  # (each sample's own positions)
        return
    if isinstance(value, BatchedTensor) and value.level == level:
        n = input[index].ndim
        v = value.value
        value = v.reshape((v.shape[0],) + (1,) * (n - (v.ndim - 1)) + tuple(v.shape[1:])) if v.ndim - 1 < n else v
    setitem(input.value, (slice(None), *where), value)


ROWS: list[Op] = [
    Op("zero_", zero_, function=False),
    Op("fill_", fill_, function=False),
    Op("copy_", copy_, function=False),
    Op("__setitem__", setitem, function=False),
]


# --------------------------------------------------------------------------- in-place variants of ops
# The in-place variants torch has for the ops of other families: each is the op's Function
# made in place (``write_in_place``), with the op's own argument handling.


def _made_in_place(fn: type[Function[Tensor]], name: str, what: str) -> Callable[[Tensor], Tensor]:
    """``name``: the one-tensor op ``fn`` made in place (``x.sin_()`` is ``write_in_place(Sin, x)``)."""

    def frontend(input: Tensor) -> Tensor:
        return write_in_place(fn, input)

    frontend.__name__ = frontend.__qualname__ = name
    frontend.__doc__ = f"In place: elementwise {what}."
    return frontend


def _view_made_in_place(view: Callable[..., Tensor], name: str) -> Callable[..., Tensor]:
    """``name``: the view op ``view`` made in place (``x.t_()``, ``x.unsqueeze_(0)``; see
    :func:`~ctxgrad.autograd._views.view_in_place`)."""

    def frontend(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:
        return view_in_place(view, input, *args, **kwargs)

    frontend.__name__ = frontend.__qualname__ = name
    frontend.__doc__ = f"In place: ``{view.__name__}``, this tensor taking the view's shape and strides."
    setattr(frontend, "__signature__", inspect.signature(view))  # noqa: B010
    return frontend


t_ = _view_made_in_place(shape.t, "t_")
transpose_ = _view_made_in_place(shape.transpose, "transpose_")
swapaxes_ = _view_made_in_place(shape.swapaxes, "swapaxes_")
swapdims_ = _view_made_in_place(shape.swapdims, "swapdims_")
squeeze_ = _view_made_in_place(shape.squeeze, "squeeze_")
unsqueeze_ = _view_made_in_place(shape.unsqueeze, "unsqueeze_")

round_ = _made_in_place(pointwise.Round, "round_", "round to nearest, halves to even")


def clamp_min_(input: Tensor, min: Any) -> Tensor:
    """In place: elementwise ``max(x, min)``."""
    lo = pointwise.number_or_tensor(min)
    if isinstance(lo, Tensor):
        return write_in_place(pointwise.ClampMinTensor, input, lo)
    return write_in_place(pointwise.ClampMinScalar, input, lo, None)


def clamp_max_(input: Tensor, max: Any) -> Tensor:
    """In place: elementwise ``min(x, max)``."""
    hi = pointwise.number_or_tensor(max)
    if isinstance(hi, Tensor):
        return write_in_place(pointwise.ClampMaxTensor, input, hi)
    return write_in_place(pointwise.ClampMaxScalar, input, None, hi)


def tril_(input: Tensor, diagonal: int = 0) -> Tensor:
    """In place: zero everything above diagonal ``diagonal`` of the last two dimensions."""
    return write_in_place(shape.Tril, input, int(diagonal))


def triu_(input: Tensor, diagonal: int = 0) -> Tensor:
    """In place: zero everything below diagonal ``diagonal`` of the last two dimensions."""
    return write_in_place(shape.Triu, input, int(diagonal))


def atan2_(input: Tensor, other: Tensor) -> Tensor:
    """In place: elementwise angle of the point ``(other, self)``."""
    return write_in_place(pointwise.Atan2, input, pointwise.tensor_arg("atan2_", "other", 1, other))


def arctan2_(input: Tensor, other: Tensor) -> Tensor:
    """In place: ``atan2_``."""
    return write_in_place(pointwise.Atan2, input, pointwise.tensor_arg("arctan2_", "other", 1, other))


def igamma_(input: Tensor, other: Tensor) -> Tensor:
    """In place: the regularized lower incomplete gamma function ``P(self, other)``."""
    return write_in_place(pointwise.Igamma, input, pointwise.tensor_arg("igamma_", "other", 1, other))


def igammac_(input: Tensor, other: Tensor) -> Tensor:
    """In place: the regularized upper incomplete gamma function ``Q(self, other)``."""
    return write_in_place(pointwise.Igammac, input, pointwise.tensor_arg("igammac_", "other", 1, other))


def lerp_(input: Tensor, end: Tensor, weight: Any) -> Tensor:
    """In place: ``self + weight * (end - self)``; ``weight`` a number or tensor."""
    w = pointwise.number_or_tensor(weight)
    if not isinstance(end, Tensor):
        raise TypeError(f"lerp_(): argument 'end' (position 1) must be Tensor, not {type(end).__name__}")
    if isinstance(w, Tensor):
        return write_in_place(pointwise.LerpTensor, input, end, w)
    return write_in_place(pointwise.LerpScalar, input, end, w)


def floor_divide_(input: Tensor, other: Any) -> Tensor:
    """In place: ``self // other``, rounded toward -inf."""
    return write_in_place(arithmetic.FloorDivide, input, operand(other))


def remainder_(input: Tensor, other: Any) -> Tensor:
    """In place: ``self % other``, with the sign of ``other``."""
    if isinstance(other, Tensor):
        return write_in_place(arithmetic.Remainder, input, other)
    return write_in_place(arithmetic.RemainderScalar, input, operand(other))


def fmod_(input: Tensor, other: Any) -> Tensor:
    """In place: the remainder of ``self / other`` with the sign of ``self``."""
    if isinstance(other, Tensor):
        return write_in_place(arithmetic.Fmod, input, other)
    return write_in_place(arithmetic.FmodScalar, input, operand(other))


def _logical(fn: type[Function[Tensor]], name: str, what: str) -> Callable[[Tensor, Tensor], Tensor]:
    def frontend(input: Tensor, other: Tensor) -> Tensor:
        return write_in_place(fn, input, pointwise.tensor_arg(name, "other", 1, other))

    frontend.__name__ = frontend.__qualname__ = name
    frontend.__doc__ = f"In place: elementwise logical {what} (1 or 0 in this tensor's dtype)."
    return frontend


def _bitwise(fn: type[Function[Tensor]], name: str, what: str) -> Callable[[Tensor, Any], Tensor]:
    def frontend(input: Tensor, other: Any) -> Tensor:
        return write_in_place(fn, input, operand(other))

    frontend.__name__ = frontend.__qualname__ = name
    frontend.__doc__ = f"In place: elementwise ``self {what} other`` (bool and integer tensors)."
    return frontend


logical_and_ = _logical(comparison.LogicalAnd, "logical_and_", "AND")
logical_or_ = _logical(comparison.LogicalOr, "logical_or_", "OR")
logical_xor_ = _logical(comparison.LogicalXor, "logical_xor_", "XOR")
bitwise_and_ = _bitwise(comparison.BitwiseAnd, "bitwise_and_", "&")
bitwise_or_ = _bitwise(comparison.BitwiseOr, "bitwise_or_", "|")
bitwise_xor_ = _bitwise(comparison.BitwiseXor, "bitwise_xor_", "^")


def logical_not_(input: Tensor) -> Tensor:
    """In place: elementwise logical NOT (1 or 0 in this tensor's dtype)."""
    return write_in_place(comparison.LogicalNot, input)


def bitwise_not_(input: Tensor) -> Tensor:
    """In place: elementwise ``~self`` (bool and integer tensors)."""
    return write_in_place(comparison.BitwiseNot, input)


class CompareInPlace(Function[Tensor]):
    """The 1 or 0 an in-place comparison (``x.lt_(y)``) writes, in ``x``'s dtype; as in torch,
    the values it overwrites (and a tensor ``other``) get a zero gradient.  ``compare`` is the
    comparison's Function (made per comparison and node name by :func:`_compare`)."""

    vmap = elementwise_rule
    writes_first_input = True

    node_name = "EqBackward0"
    skips_without_gradient = True
    compare: ClassVar[type[Function[Tensor]]]

    @staticmethod
    def forward(ctx: Any, x: Tensor, other: Any) -> Tensor:
        ctx.other = other.array.shape if isinstance(other, Tensor) else None
        result: Tensor = ctx.forward_cls.compare.forward(ctx, x, other)
        return result

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        need_x, need_other = ctx.needs_input_grad
        zeros = as_tensor(np.zeros_like(grad.array)) if need_x else None
        other = as_tensor(np.zeros(ctx.other, grad.array.dtype)) if need_other and ctx.other is not None else None
        return zeros, other

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: Any) -> Tensor:
        return as_tensor(np.zeros_like(tx.array))


_COMPARES: dict[tuple[type[Function[Tensor]], str], type[CompareInPlace]] = {}


def _compare(fn: type[Function[Tensor]], name: str, what: str) -> Callable[[Tensor, Any], Tensor]:
    """``name``: the comparison ``fn`` made in place; torch names its node ``<Op>Backward0``
    for a number ``other`` and ``<Op>Backward1`` for a tensor."""

    def made(node: str) -> type[CompareInPlace]:
        cls = _COMPARES.get((fn, node))
        if cls is None:
            meta: Any = type(CompareInPlace)
            namespace = {
                "compare": fn,
                "ufunc": fn.__dict__["ufunc"],  # what the comparison's forward reads from its class
                "node_name": node,
                "__module__": __name__,
                "__doc__": CompareInPlace.__doc__,
            }
            cls = _COMPARES[(fn, node)] = meta(f"{fn.__name__}InPlace", (CompareInPlace,), namespace)
        return cls

    op = fn.__name__

    def frontend(input: Tensor, other: Any) -> Tensor:
        node = f"{op}Backward1" if isinstance(other, Tensor) else f"{op}Backward0"
        return write_in_place(made(node), input, operand(other))

    frontend.__name__ = frontend.__qualname__ = name
    frontend.__doc__ = f"In place: elementwise ``self {what} other``, as 1 or 0 in this tensor's dtype."
    return frontend


eq_ = _compare(comparison.Eq, "eq_", "==")
ne_ = _compare(comparison.Ne, "ne_", "!=")
lt_ = _compare(comparison.Lt, "lt_", "<")
le_ = _compare(comparison.Le, "le_", "<=")
gt_ = _compare(comparison.Gt, "gt_", ">")
ge_ = _compare(comparison.Ge, "ge_", ">=")

"""Pointwise functions of two or three operands: ``atan2``, ``maximum``/``minimum``, the
``clamp`` family, ``lerp``, ``hypot``, ``logaddexp``/``logaddexp2``, ``xlogy``, ``copysign``,
``heaviside``, ``nextafter``, ``fmax``/``fmin`` and ``addcmul``/``addcdiv``.

The operands broadcast and promote as in torch; each backward is written in ctxgrad ops, so
that it can itself be differentiated.  (``where`` is in ``pointwise``, the arithmetic
operators in ``arithmetic``.)"""

from __future__ import annotations

import builtins
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from ctxgrad._dtypes import cpp_name, fill_value_as, promote_operands, result_dtype, short_name
from ctxgrad._tensor import Tensor, as_tensor
from ctxgrad.autograd.batching import elementwise_rule
from ctxgrad.autograd.function import Function
from ctxgrad.autograd.inplace import write_in_place
from ctxgrad.autograd.saved import save_for_gradients
from ctxgrad.ops._row import Op
from ctxgrad.ops._util import (
    arrays,
    as_default_float,
    broadcast_error,
    refuse_complex,
)
from ctxgrad.ops.pointwise import (
    Exp,
    Exp2,
    Log,
    Where,
    _mask,
    _where_broadcast_error,
    _zeros,
    number_or_tensor,
    tensor_arg,
    tensor_operands,
)


class Atan2(Function[Tensor]):
    """The angle of the point ``(other, input)``; d/dinput = other / r², d/dother = -input / r²
    (both 0 at the origin in backward, NaN there in forward mode: torch's conventions)."""

    vmap = elementwise_rule

    node_name = "Atan2Backward0"
    saved_fields: ClassVar[dict[str, Any]] = {"self": 0, "other": 1}
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        x, y = arrays(a, b)
        refuse_complex(ctx, x, y)
        if x.dtype.kind in "iub":
            x, y = as_default_float(a, b)
        ctx.save_for_backward(a, b)
        try:
            return as_tensor(np.arctan2(x, y))
        except ValueError:
            raise broadcast_error(x, y) from None

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        scale = grad * _atan2_recip(a, b)
        return (scale * b if need_a else None, scale * -a if need_b else None)

    @staticmethod
    def jvp(ctx: Any, ta: Tensor, tb: Tensor) -> Tensor:
        a: Tensor
        b: Tensor
        a, b = ctx.saved_tensors
        return (b * ta - a * tb) / (a * a + b * b)  # NaN at the origin, as torch's forward AD


def _atan2_recip(a: Tensor, b: Tensor) -> Tensor:
    """``1 / (a² + b²)``, taken as 0 at the origin (torch's convention for atan2)."""
    r2 = a * a + b * b
    origin = r2.array == 0
    if not origin.any():
        return 1 / r2
    return Where.apply(_mask(origin), 0.0, 1 / Where.apply(_mask(origin), 1.0, r2))


class Maximum(Function[Tensor]):
    """The larger of two tensors (NaN if either is); at a tie each side gets half the gradient."""

    vmap = elementwise_rule

    node_name = "MaximumBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"self": 0, "other": 1}
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        x, y = arrays(a, b)
        refuse_complex(ctx, x, y)
        ctx.save_for_backward(a, b)
        try:
            return as_tensor(np.maximum(y, x))  # in this order a tie returns x (-0.0 vs 0.0), as in torch
        except ValueError:
            raise broadcast_error(x, y) from None

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        return _extremum_backward(ctx, grad, 1)

    @staticmethod
    def jvp(ctx: Any, ta: Tensor, tb: Tensor) -> Tensor:
        return _extremum_jvp(ctx, ta, tb, 1)


class Minimum(Function[Tensor]):
    """The smaller of two tensors (NaN if either is); at a tie each side gets half the gradient."""

    vmap = elementwise_rule

    node_name = "MinimumBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"self": 0, "other": 1}
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        x, y = arrays(a, b)
        refuse_complex(ctx, x, y)
        ctx.save_for_backward(a, b)
        try:
            return as_tensor(np.minimum(y, x))
        except ValueError:
            raise broadcast_error(x, y) from None

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        return _extremum_backward(ctx, grad, -1)

    @staticmethod
    def jvp(ctx: Any, ta: Tensor, tb: Tensor) -> Tensor:
        return _extremum_jvp(ctx, ta, tb, -1)


def _extremum_backward(ctx: Any, grad: Tensor, sign: int) -> tuple[Tensor | None, Tensor | None]:
    """torch's rule: a side loses the gradient where the other side wins; ties share it."""
    a, b = ctx.saved_tensors
    x, y = arrays(a, b)
    tie = x == y
    if tie.any():
        grad = grad * as_tensor(np.where(tie, 0.5, 1.0).astype(grad.array.dtype))
    need_a, need_b = ctx.needs_input_grad
    a_loses = x < y if sign > 0 else x > y
    b_loses = x > y if sign > 0 else x < y
    return (
        Where.apply(_mask(a_loses), 0.0, grad) if need_a else None,
        Where.apply(_mask(b_loses), 0.0, grad) if need_b else None,
    )


def _extremum_jvp(ctx: Any, ta: Tensor, tb: Tensor, sign: int) -> Tensor:
    """torch's rule: ``tb + c * (ta - tb)``, c = 1 where ``a`` wins, 1/2 at a tie, else 0
    (so a NaN side takes the other side's tangent)."""
    a, b = ctx.saved_tensors
    x, y = arrays(a, b)
    wins = x > y if sign > 0 else x < y
    c = np.where(x == y, 0.5, wins).astype(np.result_type(x, y))
    return tb + as_tensor(c) * (ta - tb)


class ClampScalar(Function[Tensor]):
    """``min(max(x, lo), hi)`` with number bounds (either may be None); the gradient passes
    where ``lo <= x <= hi`` (bounds included, as in torch)."""

    vmap = elementwise_rule

    node_name = "ClampBackward1"
    saved_fields: ClassVar[dict[str, Any]] = {
        "self": 0,
        "min": lambda ctx: ctx.bounds[0],
        "max": lambda ctx: ctx.bounds[1],
    }
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, lo: Any, hi: Any) -> Tensor:
        refuse_complex(ctx, x.array)
        data = x.array
        low, high = lo, hi
        if data.dtype.kind != "f" or type(lo) not in _PLAIN or type(hi) not in _PLAIN:
            dt = data.dtype
            for bound in (lo, hi):
                if bound is not None:
                    dt = result_dtype(np.empty(0, dt), bound)
            data = data.astype(dt, copy=False)
            # torch's RuntimeError for an int bound the dtype cannot hold
            low, high = (fill_value_as(b, dt) if type(b) is int else b for b in (lo, hi))
        ctx.save_for_backward(x)
        ctx.bounds = (lo, hi)
        if low is not None:  # bound first: a tie keeps x (-0.0 vs 0.0), as in torch
            data = np.maximum(low, data, dtype=data.dtype)
        if high is not None:
            data = np.minimum(high, data, dtype=data.dtype)
        return as_tensor(data)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        return _clamp_scalar_mask(ctx, grad), None, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _lo: None, _hi: None) -> Tensor:
        return _clamp_scalar_mask(ctx, tx)


_PLAIN = (int, float, type(None))


def _clamp_scalar_mask(ctx: Any, grad: Tensor) -> Tensor:
    x: Tensor = ctx.saved_tensors[0]
    lo, hi = ctx.bounds
    data = x.array
    if lo is None:
        keep = data <= hi
    elif hi is None:
        keep = data >= lo
    else:
        keep = (data >= lo) & (data <= hi)
    return Where.apply(_mask(keep), grad, 0.0)


class ClampMinScalar(ClampScalar):
    """``max(x, lo)`` for a number ``lo`` (``clamp_min``)."""

    node_name = "ClampMinBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"self": 0, "min": lambda ctx: ctx.bounds[0]}


class ClampMaxScalar(ClampScalar):
    """``min(x, hi)`` for a number ``hi`` (``clamp_max``)."""

    node_name = "ClampMaxBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"self": 0, "max": lambda ctx: ctx.bounds[1]}


class ClampTensor(Function[Tensor]):
    """``min(max(x, lo), hi)`` with tensor bounds (either may be None), broadcast together.

    The gradient goes to ``x`` where ``lo <= x <= hi``, to ``lo`` where ``x < lo < hi`` and
    to ``hi`` where ``x > hi`` or ``hi < lo`` (torch's rule, also for NaN and crossed bounds).
    """

    vmap = elementwise_rule

    node_name = "ClampBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, lo: Tensor | None, hi: Tensor | None) -> Tensor:
        refuse_complex(ctx, x.array)
        data = x.array
        bounds = [b.array for b in (lo, hi) if b is not None]
        _check_broadcast(data, *bounds)
        dt = _common_dtype(data, *bounds)
        data = data.astype(dt, copy=False)
        ctx.save_for_backward(x, lo, hi)
        if lo is not None:  # bound first: a tie keeps x (-0.0 vs 0.0), as in torch
            data = np.maximum(lo.array.astype(dt, copy=False), data)
        if hi is not None:
            data = np.minimum(hi.array.astype(dt, copy=False), data)
        return as_tensor(data)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None, Tensor | None]:
        x, lo, hi = ctx.saved_tensors
        need_x, need_lo, need_hi = ctx.needs_input_grad
        xd = x.array
        keep_x: Any = True
        to_lo: Any = False
        to_hi: Any = False
        if lo is not None:
            keep_x = xd >= lo.array
            to_lo = xd < lo.array
        if hi is not None:
            keep_x = keep_x & (xd <= hi.array)
            to_hi = xd > hi.array
            if lo is not None:
                to_lo = to_lo & (lo.array < hi.array)
                to_hi = to_hi | (hi.array < lo.array)
        return (
            Where.apply(_mask(keep_x), grad, 0.0) if need_x else None,
            Where.apply(_mask(to_lo), grad, 0.0) if need_lo else None,
            Where.apply(_mask(to_hi), grad, 0.0) if need_hi else None,
        )

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, t_lo: Tensor | None, t_hi: Tensor | None) -> Tensor:
        x, lo, hi = ctx.saved_tensors
        xd = x.array
        if lo is not None and hi is not None:
            inner = Where.apply(_mask(xd > hi.array), t_hi, tx)
            inner = Where.apply(_mask(xd < lo.array), t_lo, inner)
            return Where.apply(_mask(lo.array > hi.array), t_hi, inner)
        if lo is not None:
            return Where.apply(_mask(xd > lo.array), tx, t_lo)
        return Where.apply(_mask(xd < hi.array), tx, t_hi)


class ClampMinTensor(Function[Tensor]):
    """``max(x, lo)`` for a tensor ``lo`` (``clamp_min``): ``x`` keeps the gradient at a tie."""

    vmap = elementwise_rule

    node_name = "ClampMinBackward1"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, bound: Tensor) -> Tensor:
        return _clamp_one_forward(ctx, x, bound, np.maximum)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        x, bound = ctx.saved_tensors
        keep = x.array >= bound.array
        need_x, need_b = ctx.needs_input_grad
        return (
            Where.apply(_mask(keep), grad, 0.0) if need_x else None,
            Where.apply(_mask(x.array < bound.array), grad, 0.0) if need_b else None,
        )

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, tb: Tensor) -> Tensor:
        x, bound = ctx.saved_tensors
        return Where.apply(_mask(x.array >= bound.array), tx, tb)


class ClampMaxTensor(Function[Tensor]):
    """``min(x, hi)`` for a tensor ``hi`` (``clamp_max``): ``x`` keeps the gradient at a tie."""

    vmap = elementwise_rule

    node_name = "ClampMaxBackward1"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, bound: Tensor) -> Tensor:
        return _clamp_one_forward(ctx, x, bound, np.minimum)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        x, bound = ctx.saved_tensors
        keep = x.array <= bound.array
        need_x, need_b = ctx.needs_input_grad
        return (
            Where.apply(_mask(keep), grad, 0.0) if need_x else None,
            Where.apply(_mask(x.array > bound.array), grad, 0.0) if need_b else None,
        )

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, tb: Tensor) -> Tensor:
        x, bound = ctx.saved_tensors
        return Where.apply(_mask(x.array <= bound.array), tx, tb)


def _check_broadcast(*datas: np.ndarray[Any, Any]) -> None:
    """Torch's error when the shapes of these operands do not broadcast together."""
    try:
        np.broadcast_shapes(*(d.shape for d in datas))
    except ValueError:
        shape: tuple[int, ...] = datas[0].shape
        for d in datas[1:]:
            try:
                shape = np.broadcast_shapes(shape, d.shape)
            except ValueError:
                raise broadcast_error(np.empty(shape), d) from None


def _common_dtype(*datas: np.ndarray[Any, Any]) -> np.dtype[Any]:
    """Torch's result dtype for several tensor operands: tensors with dimensions first, then
    0-d tensors (which only count when of a higher category)."""
    first: np.dtype[Any] = datas[0].dtype
    if all(d.dtype == first for d in datas):
        return first
    dims = [d.dtype for d in datas if d.ndim > 0]
    zero_d = [d.dtype for d in datas if d.ndim == 0]
    if not dims or not zero_d:
        return _promote_same_rank(dims or zero_d)
    return result_dtype(np.empty(1, _promote_same_rank(dims)), np.empty((), _promote_same_rank(zero_d)))


def _promote_same_rank(dtypes: list[np.dtype[Any]]) -> np.dtype[Any]:
    dt = dtypes[0]
    for other in dtypes[1:]:
        dt = result_dtype(np.empty(1, dt), np.empty(1, other))
    return dt


def _clamp_one_forward(ctx: Any, x: Tensor, bound: Tensor, ufunc: Any) -> Tensor:
    a, b = arrays(x, bound)
    refuse_complex(ctx, a, b)
    ctx.save_for_backward(x, bound)
    try:
        return as_tensor(ufunc(b, a))  # bound first: a tie keeps x, as in torch
    except ValueError:
        raise broadcast_error(a, b) from None


class LerpScalar(Function[Tensor]):
    """``start + weight * (end - start)`` for a number ``weight`` (torch's two-sided formula,
    exact at both ends); d/dstart = 1 - weight, d/dend = weight."""

    vmap = elementwise_rule

    node_name = "LerpBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"weight": "weight"}
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, start: Tensor, end: Tensor, weight: Any) -> Tensor:
        x, y = _lerp_operands(start, end, None)
        ctx.weight = weight
        try:
            if builtins.abs(weight) < 0.5:
                return as_tensor(x + weight * (y - x))
            return as_tensor(y - (y - x) * (1 - weight))
        except ValueError:
            raise broadcast_error(x, y) from None

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None, None]:
        need_s, need_e, _ = ctx.needs_input_grad
        w = ctx.weight
        return (grad * (1 - w) if need_s else None, grad * w if need_e else None, None)

    @staticmethod
    def jvp(ctx: Any, ts: Tensor, te: Tensor, _: None) -> Tensor:
        w: float = ctx.weight
        return ts * (1 - w) + te * w


class LerpTensor(Function[Tensor]):
    """``start + weight * (end - start)`` for a tensor ``weight``; d/dweight = end - start."""

    vmap = elementwise_rule

    node_name = "LerpBackward1"
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, start: Tensor, end: Tensor, weight: Tensor) -> Tensor:
        x, y = _lerp_operands(start, end, weight)
        w = weight.array
        _check_broadcast(x, y, w)
        save_for_gradients(ctx, (start, end, weight), ((2,), (2,), (0, 1)))
        with np.errstate(invalid="ignore"):  # both branches are computed; only the chosen one is kept
            return as_tensor(np.where(np.abs(w) < 0.5, x + w * (y - x), y - (y - x) * (1 - w)))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None, Tensor | None]:
        start, end, weight = ctx.saved_tensors
        need_s, need_e, need_w = ctx.needs_input_grad
        return (
            grad * (1 - weight) if need_s else None,
            grad * weight if need_e else None,
            grad * (end - start) if need_w else None,
        )

    @staticmethod
    def jvp(ctx: Any, ts: Tensor, te: Tensor, tw: Tensor) -> Tensor:
        start: Tensor
        end: Tensor
        weight: Tensor
        start, end, weight = ctx.saved_tensors
        return ts * (1 - weight) + te * weight + tw * (end - start)


def _lerp_operands(start: Tensor, end: Tensor, weight: Tensor | None) -> tuple[Any, Any]:
    """torch's checks, in torch's order: ``end`` (and a tensor ``weight``) of ``start``'s
    dtype, then a floating or complex ``start``."""
    x, y = start.array, end.array
    for name, other in (("end", y), ("weight", None if weight is None else weight.array)):
        if other is not None and other.dtype != x.dtype:
            raise RuntimeError(f"expected dtype {cpp_name(x.dtype)} for `{name}` but got dtype {cpp_name(other.dtype)}")
    if x.dtype.kind not in "fc":
        kernel = "lerp_kernel_scalar" if weight is None else "lerp_kernel_tensor"
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{short_name(x.dtype)}'")
    return x, y


def _clamp(x: Tensor, lo: Any, hi: Any, fn: str = "clamp") -> Tensor:
    """``x.clamp(lo, hi)``: the scalar or the tensor op, as the bounds are numbers or tensors."""
    function, lo, hi = _clamp_function(lo, hi, fn)
    return function.apply(x, lo, hi)


def _clamp_function(lo: Any, hi: Any, fn: str) -> tuple[type[Function[Tensor]], Any, Any]:
    """The Function that clamps to ``lo`` and ``hi`` (numbers or tensors), and the bounds."""
    lo, hi = number_or_tensor(lo), number_or_tensor(hi)
    if lo is None and hi is None:
        raise RuntimeError("ctxgrad.clamp: At least one of 'min' or 'max' must not be None")
    lo_tensor, hi_tensor = isinstance(lo, Tensor), isinstance(hi, Tensor)
    if lo_tensor or hi_tensor:
        if (lo is not None and not lo_tensor) or (hi is not None and not hi_tensor):
            got = ", ".join(f"{k}={type(v).__name__}" for k, v in (("min", lo), ("max", hi)) if v is not None)
            raise TypeError(
                f"{fn}() received an invalid combination of arguments - got (Tensor, {got}), but expected one of:\n"
                " * (Tensor input, Tensor min = None, Tensor max = None)\n"
                " * (Tensor input, Number min = None, Number max = None)"
            )
        return ClampTensor, lo, hi
    return ClampScalar, lo, hi


def _lerp(start: Any, end: Any, weight: Any, method: bool) -> Tensor:
    """``start + weight * (end - start)`` for a number or tensor ``weight``."""
    weight = number_or_tensor(weight)
    if not isinstance(start, Tensor) or not isinstance(end, Tensor):
        args = (end, weight) if method else (start, end, weight)
        got = ", ".join("Tensor" if isinstance(a, Tensor) else type(a).__name__ for a in args)
        raise TypeError(
            f"lerp() received an invalid combination of arguments - got ({got}), but expected one of:\n"
            " * (Tensor input, Tensor end, Tensor weight)\n"
            " * (Tensor input, Tensor end, Number weight)"
        )
    if isinstance(weight, Tensor):
        return LerpTensor.apply(start, end, weight)
    return LerpScalar.apply(start, end, weight)


class _Binary(Function[Tensor]):
    """An elementwise op ``f(a, b)`` of two operands (tensors, or Python numbers where torch
    takes them), promoted as torch promotes.  A subclass gives ``call`` and ``partials``,
    ``(df/da, df/db)`` in ctxgrad ops of the saved operands; ``backward`` is then
    ``grad * df/da, grad * df/db`` and ``jvp`` is ``ta * df/da + tb * df/db``.  With
    ``floating``, integer and bool operands become the default float dtype (torch's rule for
    ``xlogy`` and ``copysign``); with ``floating_only``, they are refused, with torch's error."""

    vmap = elementwise_rule

    skips_without_gradient = True
    call: ClassVar[Callable[..., Any]]
    kernel: ClassVar[str]
    floating: ClassVar[bool] = False
    floating_only: ClassVar[bool] = False

    @staticmethod
    def forward(ctx: Any, a: Any, b: Any) -> Tensor:
        cls = ctx.forward_cls
        x, y = arrays(a, b)
        refuse_complex(ctx, x, y)
        kind = np.result_type(x, y).kind
        if kind in "iub" and (cls.floating_only or cls.floating):
            if cls.floating_only:
                raise NotImplementedError(f"\"{cls.kernel}\" not implemented for '{short_name(np.result_type(x, y))}'")
            x, y = as_default_float(a, b)
        ctx.save_for_backward(a if isinstance(a, Tensor) else None, b if isinstance(b, Tensor) else None)
        ctx.numbers = (None if isinstance(a, Tensor) else a, None if isinstance(b, Tensor) else b)
        try:
            with np.errstate(all="ignore"):
                return as_tensor(np.asarray(cls.call(x, y)))
        except ValueError:
            raise broadcast_error(x, y) from None

    @staticmethod
    def operands(ctx: Any, like: Tensor) -> tuple[Tensor, Tensor]:
        """The saved operands as tensors (a Python number as a 0-d tensor of ``like``'s dtype)."""
        a, b = ctx.saved_tensors
        na, nb = ctx.numbers
        dt = like.array.dtype
        return (
            a if a is not None else as_tensor(np.asarray(na, dtype=dt)),
            b if b is not None else as_tensor(np.asarray(nb, dtype=dt)),
        )

    @staticmethod
    def partials(ctx: Any, a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
        raise NotImplementedError(f"{ctx.forward_cls.__name__} must define partials")

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        need_a, need_b = ctx.needs_input_grad
        a, b = _Binary.operands(ctx, grad)
        da, db = ctx.forward_cls.partials(ctx, a, b)
        return (grad * da if need_a else None, grad * db if need_b else None)

    @staticmethod
    def jvp(ctx: Any, ta: Tensor | None, tb: Tensor | None) -> Tensor:
        like = ta if ta is not None else tb
        assert like is not None
        a, b = _Binary.operands(ctx, like)
        da, db = ctx.forward_cls.partials(ctx, a, b)
        out: Tensor | None = ta * da if ta is not None else None
        if tb is not None:
            out = tb * db if out is None else out + tb * db
        assert out is not None
        return out


class Hypot(_Binary):
    """``sqrt(a² + b²)`` without overflow; d/da = a / hypot, d/db = b / hypot."""

    node_name = "HypotBackward0"
    kernel = "hypot_cpu"
    floating_only = True
    call = staticmethod(np.hypot)

    @staticmethod
    def partials(ctx: Any, a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
        h = Hypot.apply(a, b)
        return a / h, b / h


class Logaddexp(_Binary):
    """``log(e^a + e^b)`` without overflow; d/da = 1 / (1 + e^(b - a)), d/db = 1 / (1 + e^(a - b))."""

    node_name = "LogaddexpBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"self": 0, "other": 1}
    holomorphic = True
    kernel = "logaddexp_cpu"
    floating_only = True

    @staticmethod
    def call(x: Any, y: Any) -> Any:
        if np.result_type(x, y).kind == "c":
            return np.log(np.exp(x) + np.exp(y))
        return np.logaddexp(x, y)

    @staticmethod
    def partials(ctx: Any, a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
        return 1 / (1 + Exp.apply(b - a)), 1 / (1 + Exp.apply(a - b))


class Logaddexp2(_Binary):
    """``log2(2^a + 2^b)`` without overflow; d/da = 1 / (1 + 2^(b - a)), d/db = 1 / (1 + 2^(a - b))."""

    node_name = "Logaddexp2Backward0"
    saved_fields: ClassVar[dict[str, Any]] = {"self": 0, "other": 1}
    kernel = "logaddexp2_cpu"
    floating_only = True
    call = staticmethod(np.logaddexp2)

    @staticmethod
    def partials(ctx: Any, a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
        return 1 / (1 + Exp2.apply(b - a)), 1 / (1 + Exp2.apply(a - b))


def _xlogy(x: Any, y: Any) -> Any:
    """``x * log(y)``, 0 where ``x`` is 0 (unless ``y`` is NaN), as torch."""
    return np.where((x == 0) & ~np.isnan(y), 0.0, x * np.log(y)).astype(np.result_type(x, y))


class Xlogy(_Binary):
    """``x * log(y)``, 0 where ``x == 0``; d/dx = log(y) (also at x == 0, as torch), d/dy = x / y."""

    node_name = "XlogyBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"self": 0, "other": 1}
    floating = True
    call = staticmethod(_xlogy)

    @staticmethod
    def partials(ctx: Any, a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
        return Log.apply(b), a / b


class Copysign(_Binary):
    """``|a|`` with the sign of ``b``; d/da = copysign(a, b) / a (0 at a == 0), d/db = 0."""

    node_name = "CopysignBackward0"
    floating = True
    call = staticmethod(np.copysign)

    @staticmethod
    def partials(ctx: Any, a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
        x, y = a.array, b.array
        with np.errstate(all="ignore"):
            ratio = np.where(x == 0, 0.0, np.copysign(x, y) / np.where(x == 0, 1.0, x))
        return as_tensor(ratio.astype(np.result_type(x, y))), _zeros(b)


class Heaviside(_Binary):
    """The step function: 0 where ``x < 0``, ``values`` where ``x == 0``, 1 where ``x > 0``
    (not differentiable in torch)."""

    node_name = "HeavisideBackward0"

    @staticmethod
    def forward(ctx: Any, a: Any, b: Any) -> Tensor:
        x, y = a.array, b.array
        if x.dtype.kind == "c" or y.dtype.kind == "c":
            raise RuntimeError("heaviside is not yet implemented for complex tensors.")
        if x.dtype != y.dtype:
            raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
        try:
            return as_tensor(np.heaviside(x, y).astype(x.dtype))
        except ValueError:
            raise broadcast_error(x, y) from None

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        raise RuntimeError("derivative for aten::heaviside is not implemented")

    @staticmethod
    def jvp(ctx: Any, ta: Tensor | None, tb: Tensor | None) -> Tensor:
        raise NotImplementedError("Trying to use forward AD with aten::heaviside that does not support it.")


class _NanExtremum(_Binary):
    """``fmax``/``fmin``: the larger (smaller) operand, the other one where one is NaN.  The
    gradient goes wholly to ``a`` where ``a`` wins, ties included, or ``b`` is NaN (torch's rule)."""

    @staticmethod
    def partials(ctx: Any, a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
        x, y = a.array, b.array
        a_wins = ((x >= y) if ctx.forward_cls is Fmax else (x <= y)) | np.isnan(y)
        dt = np.result_type(x, y)
        return as_tensor(a_wins.astype(dt)), as_tensor((~a_wins).astype(dt))

    @staticmethod
    def jvp(ctx: Any, ta: Tensor | None, tb: Tensor | None) -> Tensor:
        """torch's tangent: ``a``'s where ``a`` wins strictly or ``b`` is NaN, else ``b``'s
        (at a tie, ``b``'s: torch's forward and reverse rules differ there)."""
        a, b = ctx.saved_tensors
        x, y = a.array, b.array
        a_wins = ((x > y) if ctx.forward_cls is Fmax else (x < y)) | np.isnan(y)
        return Where.apply(_mask(a_wins), ta, tb)


class Fmax(_NanExtremum):
    """The larger of two tensors, ignoring NaN (NaN only where both are)."""

    node_name = "FmaxBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"self": 0, "other": 1}
    call = staticmethod(np.fmax)


class Fmin(_NanExtremum):
    """The smaller of two tensors, ignoring NaN (NaN only where both are)."""

    node_name = "FminBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"self": 0, "other": 1}
    call = staticmethod(np.fmin)


class Nextafter(_Binary):
    """The next floating-point value after ``a`` towards ``b``; d/da = 1 (0 where ``a == b``),
    d/db = 0 (torch's)."""

    node_name = "NextafterBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"self": 0, "other": 1}
    kernel = "nextafter_cpu"
    floating_only = True
    call = staticmethod(np.nextafter)

    @staticmethod
    def partials(ctx: Any, a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
        x, y = a.array, b.array
        return as_tensor((x != y).astype(np.result_type(x, y))), _zeros(b)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        """``other``'s gradient is a constant zero tensor (no graph), as torch's."""
        need_a, need_b = ctx.needs_input_grad
        a, b = _Binary.operands(ctx, grad)
        da, _ = Nextafter.partials(ctx, a, b)
        return (grad * da if need_a else None, _zeros(grad) if need_b else None)


class Addcmul(Function[Tensor]):
    """``input + value * tensor1 * tensor2``; d/dinput = 1, d/dtensor1 = value * tensor2,
    d/dtensor2 = value * tensor1."""

    vmap = elementwise_rule

    node_name = "AddcmulBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"tensor1": 1, "tensor2": 2, "value": "value"}
    holomorphic = True
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, t1: Tensor, t2: Tensor, value: Any) -> Tensor:
        product = _product_operands(ctx, x, t1, t2, value)
        a, p = promote_operands(x.array, product)
        if np.result_type(a, p) == np.bool_:
            raise NotImplementedError("\"addcmul_cpu_out\" not implemented for 'Bool'")
        return as_tensor(np.asarray(a + value * p if value != 1 else a + p))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None, Tensor | None, None]:
        _, t1, t2 = ctx.saved_tensors
        n_x, n_1, n_2, _ = ctx.needs_input_grad
        v = ctx.value
        return (grad if n_x else None, grad * t2 * v if n_1 else None, grad * t1 * v if n_2 else None, None)

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, t1_: Tensor, t2_: Tensor, _: None) -> Tensor:
        _, t1, t2 = ctx.saved_tensors
        out: Tensor = tx + (t1_ * t2 + t1 * t2_) * ctx.value
        return out


class Addcdiv(Function[Tensor]):
    """``input + value * tensor1 / tensor2``; d/dtensor1 = value / tensor2,
    d/dtensor2 = -value * tensor1 / tensor2²."""

    vmap = elementwise_rule

    node_name = "AddcdivBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"tensor1": 1, "tensor2": 2, "value": "value"}
    holomorphic = True
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, t1: Tensor, t2: Tensor, value: Any) -> Tensor:
        if t1.array.dtype.kind in "iub" and t2.array.dtype.kind in "iub":
            raise RuntimeError(
                "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will "
                "perform a true division of tensor1 and tensor2. The historic addcdiv behavior can be "
                "implemented as (input + value * torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer "
                "inputs and as (input + value * tensor1 / tensor2) for float inputs. The future addcdiv behavior "
                "is just the latter implementation: (input + value * tensor1 / tensor2), for all dtypes."
            )
        _check_three(x, t1, t2)
        # (input is read by no gradient; tensor1 by tensor2's, tensor2 by both)
        save_for_gradients(ctx, (None, t1, t2), ((), (2,), (1, 2)))
        ctx.value = value
        y1, y2 = promote_operands(t1.array, t2.array)
        try:
            with np.errstate(all="ignore"):
                quotient = y1 / y2
        except ValueError:
            raise broadcast_error(y1, y2) from None
        # (an array even when both are 0-d, where NumPy gives a scalar: a 0-d tensor in torch's rules)
        a, q = promote_operands(x.array, np.asarray(quotient, dtype=np.result_type(y1, y2)))
        try:
            return as_tensor(np.asarray(a + value * q))
        except ValueError:
            raise broadcast_error(a, q) from None

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None, Tensor | None, None]:
        _, t1, t2 = ctx.saved_tensors
        n_x, n_1, n_2, _ = ctx.needs_input_grad
        v = ctx.value
        return (
            grad if n_x else None,
            grad * v / t2 if n_1 else None,
            -grad * v * t1 / (t2 * t2) if n_2 else None,
            None,
        )

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, t1_: Tensor, t2_: Tensor, _: None) -> Tensor:
        _, t1, t2 = ctx.saved_tensors
        out: Tensor = tx + (t1_ / t2 - t1 * t2_ / (t2 * t2)) * ctx.value
        return out


def _check_three(x: Tensor, t1: Tensor, t2: Tensor) -> None:
    """torch's error when ``input``, ``tensor1`` and ``tensor2`` do not broadcast together
    (their shapes folded in that order, as its iterator does)."""
    try:
        np.broadcast_shapes(x.shape, t1.shape, t2.shape)
    except ValueError:
        raise _where_broadcast_error(x.array, t1.array, t2.array) from None


def _product_operands(ctx: Any, x: Tensor, t1: Tensor, t2: Tensor, value: Any) -> np.ndarray[Any, Any]:
    """Save addcmul's operands and return ``tensor1 * tensor2`` promoted as torch promotes."""
    _check_three(x, t1, t2)
    # (input is read by no gradient; each factor by the other's)
    save_for_gradients(ctx, (None, t1, t2), ((), (2,), (1,)))
    ctx.value = value
    y1, y2 = promote_operands(t1.array, t2.array)
    try:
        return np.asarray(y1 * y2)
    except ValueError:
        raise broadcast_error(y1, y2) from None


# --------------------------------------------------------------------------- argument handlers and frontends
# The rows (``ROWS``, below) make the frontends of the ops with one Function from it and the
# argument handler they name.  Written here: the method of an op whose function counts
# argument positions from ``input`` (torch counts a method's from after ``self``), and the
# frontends of the ops that choose between Functions (a number or a tensor bound), each with
# its in-place variant beside it.


def atan2_method(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise angle of the point ``(other, self)``, in ``[-pi, pi]``."""
    return Atan2.apply(input, tensor_arg("atan2", "other", 1, other))


def arctan2_method(input: Tensor, other: Tensor) -> Tensor:
    """Alias of :meth:`atan2`."""
    return Atan2.apply(input, tensor_arg("arctan2", "other", 1, other))


def maximum_method(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise larger value (NaN if either is NaN)."""
    return Maximum.apply(input, tensor_arg("maximum", "other", 1, other))


def minimum_method(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise smaller value (NaN if either is NaN)."""
    return Minimum.apply(input, tensor_arg("minimum", "other", 1, other))


def hypot_method(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise ``sqrt(self² + other²)``, without overflow."""
    return Hypot.apply(input, tensor_arg("hypot", "other", 1, other))


def logaddexp_method(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise ``log(exp(self) + exp(other))``, without overflow."""
    return Logaddexp.apply(input, tensor_arg("logaddexp", "other", 1, other))


def logaddexp2_method(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise ``log2(2**self + 2**other)``, without overflow."""
    return Logaddexp2.apply(input, tensor_arg("logaddexp2", "other", 1, other))


def clamp(input: Tensor, min: Any = None, max: Any = None) -> Tensor:
    """Elementwise ``min(max(x, min), max)``; bounds are numbers or tensors, either may be None."""
    return _clamp(input, min, max)


def clamp_(input: Tensor, min: Any = None, max: Any = None) -> Tensor:
    """In place: elementwise ``min(max(x, min), max)``."""
    function, lo, hi = _clamp_function(min, max, "clamp")
    return write_in_place(function, input, lo, hi)


def clip(input: Tensor, min: Any = None, max: Any = None) -> Tensor:
    """Alias of :func:`clamp`."""
    return _clamp(input, min, max, "clip")


def clip_(input: Tensor, min: Any = None, max: Any = None) -> Tensor:
    """In place: alias of :func:`clamp_`."""
    function, lo, hi = _clamp_function(min, max, "clip")
    return write_in_place(function, input, lo, hi)


def clamp_min(input: Tensor, min: Any) -> Tensor:
    """Elementwise ``max(x, min)``."""
    lo = number_or_tensor(min)
    if isinstance(lo, Tensor):
        return ClampMinTensor.apply(input, lo)
    return ClampMinScalar.apply(input, lo, None)


def clamp_min_(input: Tensor, min: Any) -> Tensor:
    """In place: elementwise ``max(x, min)``."""
    lo = number_or_tensor(min)
    if isinstance(lo, Tensor):
        return write_in_place(ClampMinTensor, input, lo)
    return write_in_place(ClampMinScalar, input, lo, None)


def clamp_max(input: Tensor, max: Any) -> Tensor:
    """Elementwise ``min(x, max)``."""
    hi = number_or_tensor(max)
    if isinstance(hi, Tensor):
        return ClampMaxTensor.apply(input, hi)
    return ClampMaxScalar.apply(input, None, hi)


def clamp_max_(input: Tensor, max: Any) -> Tensor:
    """In place: elementwise ``min(x, max)``."""
    hi = number_or_tensor(max)
    if isinstance(hi, Tensor):
        return write_in_place(ClampMaxTensor, input, hi)
    return write_in_place(ClampMaxScalar, input, None, hi)


def lerp(input: Tensor, end: Tensor, weight: Any) -> Tensor:
    """Linear interpolation ``input + weight * (end - input)``; ``weight`` a number or tensor."""
    return _lerp(input, end, weight, method=False)


def lerp_method(input: Tensor, end: Tensor, weight: Any) -> Tensor:
    """Linear interpolation ``self + weight * (end - self)``; ``weight`` a number or tensor."""
    return _lerp(input, end, weight, method=True)


def lerp_(input: Tensor, end: Tensor, weight: Any) -> Tensor:
    """In place: ``self + weight * (end - self)``; ``weight`` a number or tensor."""
    w = number_or_tensor(weight)
    if not isinstance(end, Tensor):
        raise TypeError(f"lerp_(): argument 'end' (position 1) must be Tensor, not {type(end).__name__}")
    if isinstance(w, Tensor):
        return write_in_place(LerpTensor, input, end, w)
    return write_in_place(LerpScalar, input, end, w)


def _number_or_tensor_arg(fn: str, name: str, value: Any) -> Any:
    value = number_or_tensor(value)
    if isinstance(value, (Tensor, int, float)):
        return value
    raise TypeError(f"{fn}(): argument '{name}' must be Tensor or Number, not {type(value).__name__}")


def xlogy_args(name: str, input: Any, other: Any) -> tuple[Any, Any]:
    """``xlogy``'s operands: tensors or numbers, at least one a tensor (for ``xlogy_``,
    ``input`` is the tensor itself)."""
    a, b = _number_or_tensor_arg(name, "input", input), _number_or_tensor_arg(name, "other", other)
    if not isinstance(a, Tensor) and not isinstance(b, Tensor):
        raise TypeError(f"{name}(): at least one of 'input' and 'other' must be a Tensor")
    return a, b


def copysign_args(name: str, input: Tensor, other: Any) -> tuple[Tensor, Any]:
    """``copysign``'s operands: ``other`` a tensor or a number."""
    return input, _number_or_tensor_arg(name, "other", other)


def heaviside_args(name: str, input: Tensor, values: Tensor) -> tuple[Tensor, Tensor]:
    """``heaviside``'s operands, after torch's TypeError for ``values`` not a tensor (position 2
    in the function, 1 in the in-place method)."""
    return input, tensor_arg(name, "values", 1 if name.endswith("_") else 2, values)


def addcmul_args(name: str, input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> tuple[Any, ...]:
    """The arguments of ``addcmul`` and ``addcdiv`` (``value`` a number or a tensor)."""
    return input, tensor1, tensor2, number_or_tensor(value)


# --------------------------------------------------------------------------- rows
#: The rows of this module's ops (``ctxgrad.ops._row``), gathered by ``ctxgrad.ops.table``.
ROWS: list[Op] = [
    Op(
        "atan2",
        Atan2,
        args=tensor_operands,
        method_frontend=atan2_method,
        inplace=True,
        out=True,
        numpy=("arctan2",),
    ),
    Op("arctan2", Atan2, args=tensor_operands, method_frontend=arctan2_method, inplace=True, out=True),
    Op("maximum", Maximum, args=tensor_operands, method_frontend=maximum_method, out=True, numpy=("maximum",)),
    Op("minimum", Minimum, args=tensor_operands, method_frontend=minimum_method, out=True, numpy=("minimum",)),
    Op("clamp", clamp, inplace=clamp_, out=True),
    Op("clip", clip, inplace=clip_, out=True),
    Op("clamp_min", clamp_min, inplace=clamp_min_, inplace_function=True, out=True),
    Op("clamp_max", clamp_max, inplace=clamp_max_, inplace_function=True, out=True),
    Op("lerp", lerp, method_frontend=lerp_method, inplace=lerp_, out=True),
    Op(
        "hypot",
        Hypot,
        args=tensor_operands,
        method_frontend=hypot_method,
        inplace=True,
        out=True,
        numpy=("hypot",),
    ),
    Op(
        "logaddexp",
        Logaddexp,
        args=tensor_operands,
        method_frontend=logaddexp_method,
        out=True,
        numpy=("logaddexp",),
    ),
    Op(
        "logaddexp2",
        Logaddexp2,
        args=tensor_operands,
        method_frontend=logaddexp2_method,
        out=True,
        numpy=("logaddexp2",),
    ),
    Op("xlogy", Xlogy, args=xlogy_args, inplace=True, out=True),
    Op("copysign", Copysign, args=copysign_args, inplace=True, out=True, numpy=("copysign",)),
    Op("heaviside", Heaviside, args=heaviside_args, inplace=True, out=True),
    Op("nextafter", Nextafter, args=tensor_operands, inplace=True, out=True),
    Op("fmax", Fmax, args=tensor_operands, out=True, numpy=("fmax",)),
    Op("fmin", Fmin, args=tensor_operands, out=True, numpy=("fmin",)),
    Op("addcmul", Addcmul, args=addcmul_args, inplace=True, out=True),
    Op("addcdiv", Addcdiv, args=addcmul_args, inplace=True, out=True),
]

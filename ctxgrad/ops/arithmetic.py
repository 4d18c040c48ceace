"""Arithmetic: ``+``, ``-``, ``*``, ``/``, ``//``, ``**`` and unary ``-`` (``@`` is in :mod:`ctxgrad.ops.linalg`).

Binary ops take tensors or Python numbers on either side; :func:`promote_operands`
applies torch's dtype promotion before NumPy computes.  A gradient for a number is None.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from ctxgrad._dtypes import fill_value_as, get_default_dtype, result_dtype, short_name
from ctxgrad._shortcut import untracked
from ctxgrad._tensor import Tensor, as_tensor
from ctxgrad.autograd.batching import elementwise_rule
from ctxgrad.autograd.function import Function
from ctxgrad.autograd.inplace import write_in_place, write_ufunc_in_place
from ctxgrad.autograd.saved import READ_BY_OTHER
from ctxgrad.ops._row import Op
from ctxgrad.ops._util import (
    PLAIN_OPERANDS,
    arrays,
    broadcast_error,
    operand,
    operands,
    raw,
    refuse_complex,
    save_operands,
    tangent_sum,
    write_out,
)


class Add(Function[Tensor]):
    """``a + b``; the gradient passes through to both sides."""

    vmap = elementwise_rule

    node_name = "AddBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"alpha": lambda ctx: 1}
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, a: Any, b: Any) -> Tensor:
        x, y = arrays(a, b)
        try:
            return as_tensor(x + y)
        except ValueError:
            raise broadcast_error(x, y) from None

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        need_a, need_b = ctx.needs_input_grad
        return (grad if need_a else None, grad if need_b else None)

    @staticmethod
    def jvp(ctx: Any, ta: Tensor | None, tb: Tensor | None) -> Tensor:
        return tangent_sum(ta, tb)


class Sub(Function[Tensor]):
    """``a - b``."""

    vmap = elementwise_rule

    node_name = "SubBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"alpha": lambda ctx: 1}
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, a: Any, b: Any) -> Tensor:
        x, y = arrays(a, b, _check_no_bool)
        try:
            return as_tensor(x - y)
        except ValueError:
            raise broadcast_error(x, y) from None

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        need_a, need_b = ctx.needs_input_grad
        return (grad if need_a else None, -grad if need_b else None)

    @staticmethod
    def jvp(ctx: Any, ta: Tensor | None, tb: Tensor | None) -> Tensor:
        return tangent_sum(ta, None if tb is None else -tb)


def _is_bool(v: Any) -> bool:
    """A Python bool or a bool array (an operand before promotion), or a bool tensor."""
    if isinstance(v, Tensor):
        v = v.array
    return type(v) is bool or (isinstance(v, np.ndarray) and v.dtype.kind == "b")


def _check_no_bool(a: Any, b: Any) -> None:
    """Torch's refusal of a bool operand (tensor or Python bool) on either side of ``-``;
    :func:`arrays` calls it only off its fast paths, which cannot hold a bool operand."""
    bool_a, bool_b = _is_bool(a), _is_bool(b)
    if bool_a and bool_b:
        raise RuntimeError(
            "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
            "`logical_xor()` operator instead."
        )
    if bool_a or bool_b:
        raise RuntimeError(
            "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to invert "
            "a mask, use the `~` or `logical_not()` operator instead."
        )


class Mul(Function[Tensor]):
    """``a * b``: each side's gradient is the gradient times the other side."""

    vmap = elementwise_rule

    node_name = "MulBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"self": 0, "other": 1}
    holomorphic = True
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, a: Any, b: Any) -> Tensor:
        x, y = arrays(a, b)
        save_operands(ctx, a, b, read_by=READ_BY_OTHER)
        try:
            return as_tensor(x * y)
        except ValueError:
            raise broadcast_error(x, y) from None

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a, b, _ = operands(ctx)
        need_a, need_b = ctx.needs_input_grad
        return (grad * b if need_a else None, grad * a if need_b else None)

    @staticmethod
    def jvp(ctx: Any, ta: Tensor | None, tb: Tensor | None) -> Tensor:
        a, b, _ = operands(ctx)
        return tangent_sum(None if ta is None else ta * b, None if tb is None else a * tb)


class Div(Function[Tensor]):
    """``a / b`` (true division: integer inputs give a floating result)."""

    vmap = elementwise_rule

    node_name = "DivBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"self": 0, "other": 1}
    holomorphic = True
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, a: Any, b: Any) -> Tensor:
        x, y = arrays(a, b)
        if _integral(x) and _integral(y):
            # torch: int / int divides in the default float dtype (a Python int as it is,
            # not wrapped into a narrow integer dtype).
            dt = get_default_dtype()
            x, y = np.asarray(raw(a), dtype=dt), np.asarray(raw(b), dtype=dt)
        try:
            out = np.true_divide(x, y)
        except ValueError:
            raise broadcast_error(x, y) from None
        save_operands(ctx, a, b, read_by=((1,), (0, 1)))  # grad / b and -grad * a / b**2
        return as_tensor(out)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a, b, _ = operands(ctx)
        need_a, need_b = ctx.needs_input_grad
        return (grad / b if need_a else None, -grad * a / (b * b) if need_b else None)

    @staticmethod
    def jvp(ctx: Any, ta: Tensor | None, tb: Tensor | None) -> Tensor:
        a, b, _ = operands(ctx)
        out: Tensor
        if tb is None:
            out = ta / b
            return out
        # torch's form, (ta - tb * out) / b: the same inf and NaN where b is 0.
        tq = tb * (a / b)
        out = (-tq if ta is None else ta - tq) / b
        return out


class DivRounded(Function[Tensor]):
    """``a / b`` rounded toward zero (``rounding_mode="trunc"``) or toward -inf (``"floor"``),
    in the promoted dtype; as in torch, the gradient is zero for both operands."""

    vmap = elementwise_rule

    node_name = "DivBackward2"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, a: Any, b: Any, mode: str) -> Tensor:
        x, y = arrays(a, b)
        dt = np.result_type(x, y)
        if dt.kind in "bc":
            raise NotImplementedError(f"\"div_{mode}_cpu\" not implemented for '{short_name(dt)}'")
        if dt.kind in "iu" and np.any(np.asarray(y) == 0):
            raise RuntimeError("ZeroDivisionError")
        try:
            with np.errstate(divide="ignore", invalid="ignore"):
                if mode == "floor":
                    out = np.floor_divide(x, y)
                elif dt.kind in "iu":  # exact: floor division, then one up where it rounded a negative down
                    out = np.floor_divide(x, y)
                    out = out + ((np.remainder(x, y) != 0) & ((np.asarray(x) < 0) != (np.asarray(y) < 0)))
                else:
                    out = np.trunc(np.true_divide(x, y))
            return as_tensor(np.asarray(out, dtype=dt))
        except ValueError:
            raise broadcast_error(x, y) from None

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None, None]:
        need_a, need_b, _ = ctx.needs_input_grad
        zeros = as_tensor(np.zeros_like(grad.array))
        return (zeros if need_a else None, zeros if need_b else None, None)

    @staticmethod
    def jvp(ctx: Any, ta: Tensor | None, tb: Tensor | None, _: None) -> Tensor:
        like = ta if ta is not None else tb
        assert like is not None
        return as_tensor(np.zeros_like(like.array))


def _rounding_mode(mode: Any) -> str | None:
    if mode is None or mode in ("trunc", "floor"):
        return mode  # type: ignore[no-any-return]
    raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but found '{mode}'")


class FloorDivide(Function[Tensor]):
    """``a // b``, rounded toward -inf (Python's rule) in the promoted dtype.

    As in torch, a floating result records the op but has no derivative: ``backward`` and
    ``jvp`` raise."""

    vmap = elementwise_rule

    node_name = "torch::autograd::NotImplemented"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, a: Any, b: Any) -> Tensor:
        x, y = arrays(a, b)
        refuse_complex(ctx, x, y)
        dt = np.asarray(x).dtype
        if dt.kind == "b":
            raise NotImplementedError("\"div_floor_cpu\" not implemented for 'Bool'")
        if dt.kind in "iu" and np.any(np.asarray(y) == 0):
            raise RuntimeError("ZeroDivisionError")
        try:
            return as_tensor(np.floor_divide(x, y))
        except ValueError:
            raise broadcast_error(x, y) from None

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[None, None]:
        raise RuntimeError("derivative for aten::floor_divide is not implemented")

    @staticmethod
    def jvp(ctx: Any, ta: Tensor | None, tb: Tensor | None) -> Tensor:
        raise NotImplementedError("Trying to use forward AD with aten::floor_divide that does not support it.")


class Remainder(Function[Tensor]):
    """``a % b`` with the sign of ``b`` (Python's rule): ``a - floor(a / b) * b``.

    d/da = 1 and d/db = -(a // b), the derivative away from the jumps (as torch: the floor
    division, the quotient the forward's remainder goes with, not a rounded ``floor(a / b)``).
    :class:`Fmod` is the same with ``trunc`` for ``floor``."""

    vmap = elementwise_rule

    node_name = "RemainderBackward1"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, a: Any, b: Any) -> Tensor:
        return _remainder(ctx, a, b, "floor")

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a, b, _ = operands(ctx)
        need_a, need_b = ctx.needs_input_grad
        return (grad if need_a else None, -grad * _quotient(ctx, a, b) if need_b else None)

    @staticmethod
    def jvp(ctx: Any, ta: Tensor | None, tb: Tensor | None) -> Tensor:
        a, b, _ = operands(ctx)
        return tangent_sum(ta, None if tb is None else -tb * _quotient(ctx, a, b))


class Fmod(Remainder):
    """``fmod(a, b)``: the remainder with the sign of ``a`` (C's rule), ``a - trunc(a / b) * b``."""

    node_name = "FmodBackward1"

    @staticmethod
    def forward(ctx: Any, a: Any, b: Any) -> Tensor:
        return _remainder(ctx, a, b, "trunc")


_REMAINDERS = {"floor": (np.remainder, "remainder"), "trunc": (np.fmod, "fmod")}


def _remainder(ctx: Any, a: Any, b: Any, rounding: str) -> Tensor:
    values, name = _REMAINDERS[rounding]
    x, y = arrays(a, b)
    refuse_complex(ctx, x, y)
    dt = np.asarray(x).dtype
    if dt.kind == "b":
        raise NotImplementedError(f"\"{name}_cpu\" not implemented for 'Bool'")
    if dt.kind in "iu" and np.any(np.asarray(y) == 0):
        raise RuntimeError("ZeroDivisionError")
    save_operands(ctx, a, b, read_by=((1,), (1,)))  # grad and -grad * quotient(a, b)
    ctx.rounding = rounding
    try:
        return as_tensor(values(x, y))
    except ValueError:
        raise broadcast_error(x, y) from None


def _quotient(ctx: Any, a: Any, b: Any) -> Tensor:
    """How many times ``b`` was taken away, as torch's derivative counts it: ``a // b`` for
    ``remainder`` (floor division, the quotient the forward's remainder goes with: for
    ``1.0 % 0.1 == 0.0999...`` it is 9, where ``floor(1.0 / 0.1)`` is 10), ``trunc(a / b)``
    for ``fmod``.  A constant: its own derivative is zero."""
    if ctx.rounding == "floor":
        x, y = arrays(a, b)
        return as_tensor(np.asarray(np.floor_divide(x, y)))
    q: Tensor = a / b
    return q.trunc()


def _integral(v: Any) -> bool:
    dt = getattr(v, "dtype", None)
    return dt is not None and dt.kind in "iub"


class Neg(Function[Tensor]):
    """``-a``."""

    vmap = elementwise_rule

    node_name = "NegBackward0"
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, a: Tensor) -> Tensor:
        data = a.array
        if data.dtype == np.bool_:
            raise RuntimeError(
                "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to invert "
                "a mask, use the `~` or `logical_not()` operator instead."
            )
        return as_tensor(np.negative(data))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        return -grad

    @staticmethod
    def jvp(ctx: Any, ta: Tensor) -> Tensor:
        return -ta


# Small whole exponents by multiplication, as torch computes them: exact, where a SIMD ``pow``
# may be an ulp off (NumPy 1.26 gives 50.99999999999999 for 51.0 ** 1.0 on AVX-512 machines).
_EXACT_POWERS: dict[float, Callable[[np.ndarray[Any, Any]], np.ndarray[Any, Any]]] = {
    1: np.copy,
    2: lambda x: x * x,
    3: lambda x: x * x * x,
    -1: np.reciprocal,
    -2: lambda x: np.reciprocal(x * x),
}


class Pow(Function[Tensor]):
    """``a ** b`` for a tensor or number on either side.

    d/da = b * a**(b-1), taken as 0 where b == 0; d/db = a**b * log(a), taken as 0 where
    a == 0 and b >= 0 (torch's conventions at those points).
    """

    vmap = elementwise_rule

    node_name = "PowBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"self": 0, "exponent": lambda ctx: _pow_exponent(ctx)}
    holomorphic = True
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, a: Any, b: Any) -> Tensor:
        x, y = arrays(a, b)
        floating = isinstance(x, np.ndarray) and x.dtype.kind == "f"
        exact = _EXACT_POWERS.get(y) if floating and type(y) in (int, float) else None
        if exact is not None:
            out = as_tensor(exact(x))
            save_operands(ctx, a, b, out, read_by=_POW_READ_BY)
            return out
        if np.asarray(x).dtype.kind in "iub" and np.asarray(y).dtype.kind in "iub":
            out = as_tensor(_integer_power(a, b, x, y))
        else:
            try:
                out = as_tensor(np.power(x, y))
            except ValueError:
                raise broadcast_error(x, y) from None
        save_operands(ctx, a, b, out, read_by=_POW_READ_BY)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        need_a, need_b = ctx.needs_input_grad
        d_base, d_exponent = _pow_partials(ctx, need_a, need_b)
        return (
            None if d_base is None else grad * d_base,
            None if d_exponent is None else grad * d_exponent,
        )

    @staticmethod
    def jvp(ctx: Any, ta: Tensor | None, tb: Tensor | None) -> Tensor:
        d_base, d_exponent = _pow_partials(ctx, ta is not None, tb is not None)
        return tangent_sum(
            None if ta is None else ta * d_base,
            None if tb is None else tb * d_exponent,
        )


#: The base and the exponent feed both derivatives; the result only the exponent's.
_POW_READ_BY = ((0, 1), (0, 1), (1,))


def _pow_exponent(ctx: Any) -> Any:
    """The exponent a recorded ``pow`` kept: a number as it is (kept after backward), or the saved tensor."""
    scalars = getattr(ctx, "scalars", None)
    if scalars is not None and scalars[1] is not None:
        return scalars[1]
    return ctx.saved_tensors[1]


def _integer_power(a: Any, b: Any, x: Any, y: Any) -> Any:
    """``x ** y`` in an integer (or bool) dtype, with torch's rules: a Python exponent must
    fit the dtype and not be negative; a negative exponent in a tensor gives ``1 ** n == 1``,
    ``(-1) ** n == +-1`` and 0 for every other base; bool only to a Python bool."""
    dt = np.asarray(x).dtype
    if dt.kind == "b":
        if isinstance(a, Tensor) and type(b) is bool:
            return x.copy() if b else np.ones_like(x)
        raise NotImplementedError("\"pow\" not implemented for 'Bool'")
    if not isinstance(b, Tensor):
        if b < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        fill_value_as(b, dt)  # torch's RuntimeError for an exponent the dtype cannot hold
    negative = np.asarray(y) < 0
    if not negative.any():
        try:
            return np.power(x, y)
        except ValueError:
            raise broadcast_error(x, y) from None
    try:
        out = np.power(x, np.where(negative, 0, y).astype(dt))
    except ValueError:
        raise broadcast_error(x, y) from None
    odd = np.asarray(y) % 2 != 0
    at_negative = np.where(x == 1, 1, np.where(x == -1, np.where(odd, -1, 1), 0))
    return np.where(negative, at_negative, out).astype(dt)


def _pow_partials(ctx: Any, need_a: bool, need_b: bool) -> tuple[Any, Any]:
    """d(a**b)/da and d(a**b)/db (those asked for), with torch's values at the special points."""
    from ctxgrad.ops.pointwise import Log, Where

    base, exponent, out = operands(ctx)
    d_base = d_exponent = None
    if need_a:
        if isinstance(exponent, Tensor):
            zero_exponent = as_tensor(exponent.array == 0)
            d_base = Where.apply(zero_exponent, 0.0, exponent * base ** (exponent - 1))
        elif exponent == 0:
            d_base = as_tensor(np.zeros_like(base.array))  # a**0 is 1 everywhere (also at inf)
        else:
            d_base = exponent * base ** (exponent - 1)
    if need_b:
        exp_data = exponent.array
        if isinstance(base, Tensor):
            masked = as_tensor(np.logical_and(base.array == 0, exp_data >= 0))
            d_exponent = Where.apply(masked, 0.0, out * Log.apply(base))
        elif base == 0:
            d_exponent = Where.apply(as_tensor(exp_data >= 0), 0.0, out * float("-inf"))
        else:
            d_exponent = out * float(np.log(base))
    return d_base, d_exponent


# --------------------------------------------------------------------------- frontends
# One function per op, with torch's signature: the argument handling, then ``Function.apply``.
# The op table (ops/table.py) makes them the Tensor methods, the dunders and the ``ctxgrad.*``
# functions.  The ``*_operator`` frontends are the dunders: a tensor on the left (``__add__``)
# or, reflected, on the right (``__radd__``); they take plain operands (tensors, ints, floats)
# as they are, the hot path of ``x * 2.0 + 1.0``.
_PLAIN = PLAIN_OPERANDS
# torch names the (tensor, number) overloads' nodes apart: a subclass that declares torch's node_name.


class RemainderScalar(Remainder):
    node_name = "RemainderBackward0"


class FmodScalar(Fmod):
    node_name = "FmodBackward0"


# Bound once: an operator is the hottest call in the library.
_add, _sub, _mul, _div, _pow = Add.apply, Sub.apply, Mul.apply, Div.apply, Pow.apply


def _scaled(other: Any, alpha: Any) -> Any:
    """``alpha * other``, the second operand of ``add`` and ``sub``."""
    return operand(other) if alpha == 1 else operand(other) * alpha


def add(input: Any, other: Any, *, alpha: Any = 1, out: Tensor | None = None) -> Tensor:
    """``input + alpha * other``."""
    if out is not None:
        return write_out("add", out, (input, other), lambda: add(input, other, alpha=alpha))
    if not isinstance(input, Tensor):
        input = as_tensor(input)
    return Add.apply(input, _scaled(other, alpha))


def sub(input: Any, other: Any, *, alpha: Any = 1, out: Tensor | None = None) -> Tensor:
    """``input - alpha * other``."""
    if out is not None:
        return write_out("sub", out, (input, other), lambda: sub(input, other, alpha=alpha))
    if not isinstance(input, Tensor):
        input = as_tensor(input)
    if alpha != 1:
        _check_no_bool(input, other)
    return Sub.apply(input, _scaled(other, alpha))


def mul(input: Any, other: Any, *, out: Tensor | None = None) -> Tensor:
    """``input * other``."""
    if out is not None:
        return write_out("mul", out, (input, other), lambda: mul(input, other))
    if isinstance(input, Tensor):
        return _mul(input, other if type(other) in _PLAIN else operand(other))
    res: Tensor = other * input
    return res


def div(input: Any, other: Any, *, rounding_mode: str | None = None, out: Tensor | None = None) -> Tensor:
    """``input / other``: true division, or rounded toward zero (``rounding_mode="trunc"``) or
    toward -inf (``"floor"``)."""
    if out is not None:
        return write_out("div", out, (input, other), lambda: div(input, other, rounding_mode=rounding_mode))
    if rounding_mode is not None and _rounding_mode(rounding_mode) is not None:
        return DivRounded.apply(input, operand(other), rounding_mode)
    if isinstance(input, Tensor):
        return _div(input, other if type(other) in _PLAIN else operand(other))
    res: Tensor = other.__rtruediv__(input)
    return res


def pow(input: Any, exponent: Any) -> Tensor:
    """``input ** exponent``."""
    if isinstance(input, Tensor):
        return Pow.apply(input, operand(exponent))
    out: Tensor = exponent.__rpow__(input)
    return out


def float_power(input: Any, exponent: Any) -> Tensor:
    """``input ** exponent`` computed in double precision (float64, or complex128 for complex)."""

    def wide(value: Any) -> Any:
        if isinstance(value, Tensor):
            return value.to(np.complex128 if value.array.dtype.kind == "c" else np.float64)
        return value

    base, exp_ = wide(operand(input)), wide(operand(exponent))
    if not isinstance(base, Tensor):
        base = as_tensor(np.asarray(base, dtype=np.complex128 if isinstance(base, complex) else np.float64))
    return pow(base, exp_)


def ldexp(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise ``input * 2 ** other``."""
    if not isinstance(other, Tensor):
        raise TypeError(f"ldexp(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    if other.array.dtype == np.bool_ and input.array.dtype.kind in "fc":
        raise NotImplementedError("\"ldexp_cpu_exp\" not implemented for 'Bool'")
    dt = result_dtype(input.array, other.array)  # computed in the promoted floating dtype
    if dt.kind in "biu":
        dt = np.dtype(get_default_dtype())
    out: Tensor = input.to(dt) * other.to(dt).__rpow__(2.0)
    return out


def float_power_(input: Tensor, exponent: Any) -> Tensor:
    """In place: ``self ** exponent``; ``self`` must already be float64 (complex128 where the
    exponent is complex), as torch requires."""
    exponent = operand(exponent)
    complex_ = input.array.dtype.kind == "c" or (
        np.asarray(exponent.array if isinstance(exponent, Tensor) else exponent).dtype.kind == "c"
    )
    wanted = np.dtype(np.complex128 if complex_ else np.float64)
    if input.array.dtype != wanted:
        raise RuntimeError(
            f"the base given to float_power_ has dtype {short_name(input.array.dtype)} but the operation's "
            f"result requires dtype {short_name(wanted)}"
        )
    if isinstance(exponent, Tensor):
        exponent = exponent.to(wanted)
    out: Tensor = input.pow_(exponent)
    return out


def ldexp_(input: Tensor, other: Tensor) -> Tensor:
    """In place: ``self * 2 ** other``."""
    if not isinstance(other, Tensor):
        raise TypeError(f"ldexp_(): argument 'other' (position 1) must be Tensor, not {type(other).__name__}")
    if input.array.dtype.kind in "biu":
        raise RuntimeError(f"ldexp can't be cast to the desired output type {short_name(input.array.dtype)}")
    out: Tensor = input.mul_(other.__rpow__(2.0))
    return out


def floor_divide(input: Any, other: Any) -> Tensor:
    """``input // other``, rounded toward -inf; not differentiable."""
    if isinstance(input, Tensor):
        return FloorDivide.apply(input, operand(other))
    out: Tensor = other.__rfloordiv__(input)
    return out


def floor_divide_(input: Tensor, other: Any) -> Tensor:
    """In place: ``self // other``, rounded toward -inf."""
    return write_in_place(FloorDivide, input, operand(other))


def remainder(input: Any, other: Any) -> Tensor:
    """``input % other``, with the sign of ``other`` (Python's rule)."""
    if not isinstance(input, Tensor):
        out: Tensor = other.__rmod__(input)
        return out
    if isinstance(other, Tensor):
        return Remainder.apply(input, other)
    return RemainderScalar.apply(input, operand(other))


def remainder_(input: Tensor, other: Any) -> Tensor:
    """In place: ``self % other``, with the sign of ``other``."""
    if isinstance(other, Tensor):
        return write_in_place(Remainder, input, other)
    return write_in_place(RemainderScalar, input, operand(other))


def fmod(input: Tensor, other: Any) -> Tensor:
    """The remainder of ``input / other`` with the sign of ``input`` (C's rule)."""
    if isinstance(other, Tensor):
        return Fmod.apply(input, other)
    return FmodScalar.apply(input, operand(other))


def fmod_(input: Tensor, other: Any) -> Tensor:
    """In place: the remainder of ``self / other`` with the sign of ``self``."""
    if isinstance(other, Tensor):
        return write_in_place(Fmod, input, other)
    return write_in_place(FmodScalar, input, operand(other))


def add_operator(input: Tensor, other: Any) -> Tensor:
    """``input + other`` (``__add__``; as ``__radd__``, addition commutes, the tensor goes first)."""
    if type(other) not in _PLAIN:
        other = operand(other)
    out = untracked(np.add, input, other)
    return _add(input, other) if out is None else out


def sub_operator(input: Tensor, other: Any) -> Tensor:
    """``input - other`` (``__sub__``)."""
    if type(other) not in _PLAIN:
        other = operand(other)
    out = untracked(np.subtract, input, other)
    return _sub(input, other) if out is None else out


def rsub_operator(input: Tensor, other: Any) -> Tensor:
    """``other - input`` (``__rsub__``)."""
    if type(other) not in _PLAIN:
        other = operand(other)
    out = untracked(np.subtract, other, input)
    return _sub(other, input) if out is None else out


def mul_operator(input: Tensor, other: Any) -> Tensor:
    """``input * other`` (``__mul__``, ``__rmul__``)."""
    if type(other) not in _PLAIN:
        other = operand(other)
    out = untracked(np.multiply, input, other)
    return _mul(input, other) if out is None else out


def truediv_operator(input: Tensor, other: Any) -> Tensor:
    """``input / other`` (``__truediv__``)."""
    if type(other) not in _PLAIN:
        other = operand(other)
    out = untracked(np.true_divide, input, other)
    return _div(input, other) if out is None else out


def rtruediv_operator(input: Tensor, other: Any) -> Tensor:
    """``other / input`` (``__rtruediv__``)."""
    if type(other) not in _PLAIN:
        other = operand(other)
    out = untracked(np.true_divide, other, input)
    return _div(other, input) if out is None else out


def pow_operator(input: Tensor, other: Any) -> Tensor:
    """``input ** other`` (``__pow__``)."""
    return _pow(input, other if type(other) in _PLAIN else operand(other))


def rpow_operator(input: Tensor, other: Any) -> Tensor:
    """``other ** input`` (``__rpow__``)."""
    return _pow(other if type(other) in _PLAIN else operand(other), input)


def reflected_operands(name: str, input: Tensor, other: Any) -> tuple[Any, Tensor]:
    """The operands of a reflected operator (``__rfloordiv__``: ``other // input``), ``other``
    first: a tensor, or a Python number as it is (NumPy scalars and arrays converted)."""
    return operand(other), input


# --------------------------------------------------------------------------- in-place variants
# Each is its op's Function made in place (ctxgrad.autograd.inplace.in_place: it writes into
# ``input`` and marks it dirty), after torch's checks that ``input`` may be changed.
def add_(input: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    """In place: ``input + alpha * other`` (``+=``)."""
    if alpha != 1 and write_ufunc_in_place(np.add, input, other, alpha):  # (an optimizer's step)
        return input
    other = _scaled(other, alpha)
    return input if write_ufunc_in_place(np.add, input, other) else write_in_place(Add, input, other)


def sub_(input: Tensor, other: Any, *, alpha: Any = 1) -> Tensor:
    """In place: ``input - alpha * other`` (``-=``)."""
    if alpha != 1:
        _check_no_bool(input, other)
        if write_ufunc_in_place(np.subtract, input, other, alpha):
            return input
    other = _scaled(other, alpha)
    return input if write_ufunc_in_place(np.subtract, input, other) else write_in_place(Sub, input, other)


def mul_(input: Tensor, other: Any) -> Tensor:
    """In place: ``input * other`` (``*=``)."""
    other = other if type(other) in _PLAIN else operand(other)
    return input if write_ufunc_in_place(np.multiply, input, other) else write_in_place(Mul, input, other)


def div_(input: Tensor, other: Any, *, rounding_mode: str | None = None) -> Tensor:
    """In place: ``input / other`` (``/=``), rounded as ``rounding_mode`` says (see :func:`div`)."""
    if rounding_mode is not None and _rounding_mode(rounding_mode) is not None:
        return write_in_place(DivRounded, input, operand(other), rounding_mode)
    other = other if type(other) in _PLAIN else operand(other)
    return input if write_ufunc_in_place(np.true_divide, input, other) else write_in_place(Div, input, other)


def pow_(input: Tensor, exponent: Any) -> Tensor:
    """In place: ``input ** exponent`` (``**=``)."""
    return write_in_place(Pow, input, operand(exponent))


# --------------------------------------------------------------------------- rows
#: The rows of this module's ops (``ctxgrad.ops._row``), gathered by ``ctxgrad.ops.table``
#: (``matmul``'s is with the matrix products, in ``ctxgrad.ops.linalg``'s).
ROWS: list[Op] = [
    Op("add", add, inplace=add_, inplace_dunders=("__iadd__",), numpy=("add",)),
    Op("sub", sub, inplace=sub_, inplace_dunders=("__isub__",), aliases=("subtract",), numpy=("subtract",)),
    Op("mul", mul, inplace=mul_, inplace_dunders=("__imul__",), aliases=("multiply",), numpy=("multiply",)),
    Op(
        "div",
        div,
        inplace=div_,
        inplace_dunders=("__itruediv__",),
        aliases=("true_divide", "divide"),
        numpy=("divide",),
    ),
    Op("pow", pow, inplace=pow_, inplace_dunders=("__ipow__",), out=True, numpy=("power",)),
    Op("neg", Neg, inplace=True, dunders=("__neg__",), out=True, numpy=("negative",)),
    Op(
        "floor_divide",
        floor_divide,
        dunders=("__floordiv__",),
        inplace=floor_divide_,
        out=True,
        numpy=("floor_divide",),
    ),
    Op("remainder", remainder, dunders=("__mod__",), inplace=remainder_, out=True, numpy=("remainder",)),
    Op("fmod", fmod, inplace=fmod_, out=True, numpy=("fmod",)),
    Op("float_power", float_power, inplace=float_power_, out=True, numpy=("float_power",)),
    Op("ldexp", ldexp, inplace=ldexp_, out=True, numpy=("ldexp",)),
    # the operators that are not a named op's method (a reflected operand, a fast path)
    Op("__add__", add_operator, function=False, dunders=("__radd__",)),
    Op("__sub__", sub_operator, function=False),
    Op("__rsub__", rsub_operator, function=False),
    Op("__mul__", mul_operator, function=False, dunders=("__rmul__",)),
    Op("__truediv__", truediv_operator, function=False),
    Op("__rtruediv__", rtruediv_operator, function=False),
    Op("__pow__", pow_operator, function=False),
    Op("__rpow__", rpow_operator, function=False),
    Op("__rfloordiv__", FloorDivide, args=reflected_operands, function=False),
    Op("__rmod__", Remainder, args=reflected_operands, function=False),
]

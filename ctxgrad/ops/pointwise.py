"""Pointwise functions: ``exp``, ``log``, ``tanh``, ``where`` and the other unary elementwise ops.

Each backward is written in ctxgrad ops, so that it can itself be differentiated."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from ctxgrad._dtypes import get_default_dtype, promote_operands, short_name
from ctxgrad._tensor import Tensor
from ctxgrad.autograd.function import Function
from ctxgrad.ops._util import broadcast_error, raw, wrap


def _floating(x: Tensor) -> np.ndarray[Any, Any]:
    """The data of ``x``, with integers converted to the default float dtype (torch's rule)."""
    data = x._data
    if data.dtype.kind in "iub":
        return data.astype(get_default_dtype())
    return data


def _zeros(grad: Tensor) -> Tensor:
    """The zero gradient of a piecewise-constant op (torch's ``zeros_like(grad)``)."""
    return wrap(np.zeros_like(grad._data))


def _keep_integers(fn: Any, x: Tensor) -> Tensor:
    """A rounding op: integer tensors come back unchanged (a copy), as in torch."""
    data = x._data
    if data.dtype.kind in "iub":
        return wrap(data.copy())
    return wrap(fn(data))


_LN2 = float(np.log(2.0))
_LN10 = float(np.log(10.0))


class Exp(Function[Tensor]):
    """``e ** x``; its derivative is its own output, so the output is saved."""

    _backward_name = "ExpBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        y = wrap(np.exp(_floating(x)))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        y: Tensor = ctx.saved_tensors[0]
        return grad * y

    @staticmethod
    def jvp(ctx: Any, tx: Tensor) -> Tensor:
        y: Tensor = ctx.saved_tensors[0]
        return tx * y


class Log(Function[Tensor]):
    """Natural logarithm; d/dx log x = 1 / x."""

    _backward_name = "LogBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return wrap(np.log(_floating(x)))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return grad / x

    @staticmethod
    def jvp(ctx: Any, tx: Tensor) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return tx / x


class Tanh(Function[Tensor]):
    """Hyperbolic tangent; d/dx tanh x = 1 - tanh² x, computed from the saved output."""

    _backward_name = "TanhBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        y = wrap(np.tanh(_floating(x)))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        y: Tensor = ctx.saved_tensors[0]
        return grad * (1 - y * y)

    @staticmethod
    def jvp(ctx: Any, tx: Tensor) -> Tensor:
        y: Tensor = ctx.saved_tensors[0]
        return tx * (1 - y * y)


class Where(Function[Tensor]):
    """``x`` where ``condition`` holds, else ``y`` (either may be a number)."""

    _backward_name = "WhereBackward0"

    @staticmethod
    def forward(ctx: Any, condition: Tensor, x: Any, y: Any) -> Tensor:
        a, b = promote_operands(raw(x), raw(y))
        ctx.save_for_backward(condition)
        try:
            return wrap(np.where(condition._data, a, b))
        except ValueError:
            raise broadcast_error(np.empty(np.broadcast_shapes(np.shape(a), np.shape(b))), condition._data) from None

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[None, Tensor | None, Tensor | None]:
        (condition,) = ctx.saved_tensors
        _, need_x, need_y = ctx.needs_input_grad
        return (
            None,
            Where.apply(condition, grad, 0.0) if need_x else None,
            Where.apply(condition, 0.0, grad) if need_y else None,
        )

    @staticmethod
    def jvp(ctx: Any, _: None, tx: Tensor | None, ty: Tensor | None) -> Tensor:
        (condition,) = ctx.saved_tensors
        return Where.apply(condition, 0.0 if tx is None else tx, 0.0 if ty is None else ty)


class Abs(Function[Tensor]):
    """``|x|``; d/dx = sign(x) (0 at 0, as torch)."""

    _backward_name = "AbsBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return wrap(np.abs(x._data))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return grad * Sign.apply(x)


class Sign(Function[Tensor]):
    """-1, 0 or 1 by the sign of ``x`` (0 for NaN, as torch); its gradient is zero."""

    _backward_name = "SignBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        data = x._data
        if data.dtype == np.bool_:
            return wrap(data.copy())
        out = np.asarray(np.sign(data))
        if out.dtype.kind == "f":
            out = np.where(np.isnan(out), out.dtype.type(0), out)  # torch: sign(nan) is 0
        return wrap(out)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        return _zeros(grad)


class Sqrt(Function[Tensor]):
    """Square root; d/dx sqrt x = 1 / (2 sqrt x), from the saved output."""

    _backward_name = "SqrtBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        y = wrap(np.sqrt(_floating(x)))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        y: Tensor = ctx.saved_tensors[0]
        return grad / (2 * y)


class Rsqrt(Function[Tensor]):
    """``1 / sqrt(x)``; d/dx = -y³ / 2, from the saved output."""

    _backward_name = "RsqrtBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        y = wrap(1 / np.sqrt(_floating(x)))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        y: Tensor = ctx.saved_tensors[0]
        return grad * (-0.5 * y * y * y)


class Square(Function[Tensor]):
    """``x * x`` (integers stay integers); torch records it as ``pow(x, 2)``."""

    _backward_name = "PowBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return wrap(np.square(x._data))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return grad * (2.0 * x)


class Reciprocal(Function[Tensor]):
    """``1 / x``; d/dx = -y², from the saved output."""

    _backward_name = "ReciprocalBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        y = wrap(np.reciprocal(_floating(x)))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        y: Tensor = ctx.saved_tensors[0]
        return grad * -(y * y)


class Exp2(Function[Tensor]):
    """``2 ** x``; d/dx = y ln 2."""

    _backward_name = "Exp2Backward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        y = wrap(np.exp2(_floating(x)))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        y: Tensor = ctx.saved_tensors[0]
        return grad * (y * _LN2)


class Expm1(Function[Tensor]):
    """``e ** x - 1``, accurate near 0; d/dx = y + 1."""

    _backward_name = "Expm1Backward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        y = wrap(np.expm1(_floating(x)))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        y: Tensor = ctx.saved_tensors[0]
        return grad * (y + 1)


class Log2(Function[Tensor]):
    """Base-2 logarithm; d/dx = 1 / (x ln 2)."""

    _backward_name = "Log2Backward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return wrap(np.log2(_floating(x)))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return grad / (x * _LN2)


class Log10(Function[Tensor]):
    """Base-10 logarithm; d/dx = 1 / (x ln 10)."""

    _backward_name = "Log10Backward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return wrap(np.log10(_floating(x)))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return grad / (x * _LN10)


class Log1p(Function[Tensor]):
    """``log(1 + x)``, accurate near 0; d/dx = 1 / (1 + x)."""

    _backward_name = "Log1PBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return wrap(np.log1p(_floating(x)))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return grad / (x + 1)


class Sin(Function[Tensor]):
    """Sine; d/dx sin x = cos x."""

    _backward_name = "SinBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return wrap(np.sin(_floating(x)))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return grad * Cos.apply(x)


class Cos(Function[Tensor]):
    """Cosine; d/dx cos x = -sin x."""

    _backward_name = "CosBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return wrap(np.cos(_floating(x)))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return grad * -Sin.apply(x)


class Tan(Function[Tensor]):
    """Tangent; d/dx tan x = 1 + tan² x, from the saved output."""

    _backward_name = "TanBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        y = wrap(np.tan(_floating(x)))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        y: Tensor = ctx.saved_tensors[0]
        return grad * (1 + y * y)


class Asin(Function[Tensor]):
    """Arcsine; d/dx = 1 / sqrt(1 - x²)."""

    _backward_name = "AsinBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return wrap(np.arcsin(_floating(x)))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return grad * Rsqrt.apply(1 - x * x)


class Acos(Function[Tensor]):
    """Arccosine; d/dx = -1 / sqrt(1 - x²)."""

    _backward_name = "AcosBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return wrap(np.arccos(_floating(x)))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return grad * -Rsqrt.apply(1 - x * x)


class Atan(Function[Tensor]):
    """Arctangent; d/dx = 1 / (1 + x²)."""

    _backward_name = "AtanBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return wrap(np.arctan(_floating(x)))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return grad / (x * x + 1)


class Sinh(Function[Tensor]):
    """Hyperbolic sine; d/dx sinh x = cosh x."""

    _backward_name = "SinhBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return wrap(np.sinh(_floating(x)))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return grad * Cosh.apply(x)


class Cosh(Function[Tensor]):
    """Hyperbolic cosine; d/dx cosh x = sinh x."""

    _backward_name = "CoshBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return wrap(np.cosh(_floating(x)))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return grad * Sinh.apply(x)


class Sigmoid(Function[Tensor]):
    """``1 / (1 + e ** -x)``; d/dx = y (1 - y), from the saved output."""

    _backward_name = "SigmoidBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        with np.errstate(over="ignore"):  # exp(-x) overflows to inf for x << 0: the result, 0, is exact
            y = wrap(1 / (1 + np.exp(-_floating(x))))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        y: Tensor = ctx.saved_tensors[0]
        return grad * (y * (1 - y))


class Relu(Function[Tensor]):
    """``max(x, 0)`` (integers stay integers); the gradient passes where the output is positive."""

    _backward_name = "ReluBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        data = x._data
        y = wrap(np.maximum(np.zeros((), dtype=data.dtype), data))  # in this order -0.0 stays -0.0, as in torch
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        y: Tensor = ctx.saved_tensors[0]
        return grad * Sign.apply(y)  # y >= 0, so sign(y) is the mask y > 0, kept in the graph as torch keeps it


class _Rounding(Function[Tensor]):
    """Apply the class's NumPy ``rounding`` function (integers come back unchanged); the
    gradient is zero, as torch's is for these piecewise-constant functions."""

    rounding: ClassVar[Callable[..., Any]]

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        return _keep_integers(ctx._forward_cls.rounding, x)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        return _zeros(grad)


class Floor(_Rounding):
    """Round down."""

    _backward_name = "FloorBackward0"
    rounding = np.floor


class Ceil(_Rounding):
    """Round up."""

    _backward_name = "CeilBackward0"
    rounding = np.ceil


class Round(_Rounding):
    """Round to the nearest integer, halves to even."""

    _backward_name = "RoundBackward0"
    rounding = np.round


class Trunc(_Rounding):
    """Round toward zero."""

    _backward_name = "TruncBackward0"
    rounding = np.trunc


class Frac(Function[Tensor]):
    """``x - trunc(x)`` (floating inputs only, as torch); the gradient passes through."""

    _backward_name = "FracBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        data = x._data
        if data.dtype.kind in "iub":
            raise RuntimeError(f"\"frac_cpu\" not implemented for '{short_name(data.dtype)}'")
        return wrap(data - np.trunc(data))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        return grad

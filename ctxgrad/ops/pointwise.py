"""Pointwise functions: ``exp``, ``log``, ``tanh``, ``where``, the other unary elementwise ops,
the binary ones (``atan2``, ``maximum``, ``clamp``, ``lerp``) and the activations of
``ctxgrad.nn.functional``.

Each backward is written in ctxgrad ops, so that it can itself be differentiated."""

from __future__ import annotations

import builtins
import math
import warnings
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from ctxgrad._dtypes import cpp_name, fill_value_as, get_default_dtype, promote_operands, result_dtype, short_name
from ctxgrad._tensor import Tensor, as_tensor
from ctxgrad.autograd.batching import elementwise_rule
from ctxgrad.autograd.function import Function
from ctxgrad.autograd.inplace import write_in_place
from ctxgrad.autograd.saved import save_for_gradients
from ctxgrad.ops import _return_types
from ctxgrad.ops._row import Op
from ctxgrad.ops._util import (
    arrays,
    as_default_float,
    broadcast_error,
    keep_dtype,
    raw,
    refuse_complex,
    write_out,
)


def _floating(x: Tensor) -> np.ndarray[Any, Any]:
    """The data of ``x``, with integers converted to the default float dtype (torch's rule)."""
    data = x.array
    if data.dtype.kind in "iub":
        return data.astype(get_default_dtype())
    return data


def _zeros(grad: Tensor) -> Tensor:
    """The zero gradient of a piecewise-constant op (torch's ``zeros_like(grad)``)."""
    return as_tensor(np.zeros_like(grad.array))


def _keep_integers(fn: Any, x: Tensor) -> Tensor:
    """A rounding op: integer tensors come back unchanged (a copy), as in torch."""
    data = x.array
    if data.dtype.kind in "iub":
        return as_tensor(data.copy())
    return as_tensor(fn(data))


_LN2 = float(np.log(2.0))
_LN10 = float(np.log(10.0))


class _Elementwise(Function[Tensor]):
    """An elementwise op ``y = f(x)`` of one tensor.  A subclass gives ``f`` (a ``ufunc``, or
    its own ``forward``) and ``derivative``, which gives ``f'(x)`` in ctxgrad ops from what
    ``forward`` saved; the chain rule is then the same in both modes: ``backward`` is ``grad * f'(x)`` and ``jvp`` is
    ``tangent * f'(x)``.  (Written in ctxgrad ops, the derivative can itself be differentiated.)"""

    vmap = elementwise_rule

    skips_without_gradient = True

    # Most are a NumPy ufunc on floating values (integers become the default float dtype),
    # saving the input, or the output when the derivative is best written with it.
    ufunc: ClassVar[Callable[..., Any]]
    saves_output: ClassVar[bool] = False
    # What ``grad_fn._saved_<name>`` reads: torch's name for what ``forward`` saved.
    saved_fields: ClassVar[dict[str, Any]] = {"self": 0}

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if cls.saves_output and "saved_fields" not in cls.__dict__:
            cls.saved_fields = {"result": 0}

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        if x.array.dtype.kind == "c":  # (the common real case pays no call: a hot path)
            refuse_complex(ctx, x.array)
        cls = ctx.forward_cls
        data = _floating(x)
        y = as_tensor(keep_dtype(cls.ufunc(data), data.dtype))
        ctx.save_for_backward(y if cls.saves_output else x)
        return y

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        raise NotImplementedError(f"{ctx.forward_cls.__name__} must define derivative(ctx)")

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        derivative: Tensor = ctx.forward_cls.derivative(ctx)
        return grad * derivative

    @staticmethod
    def jvp(ctx: Any, tx: Tensor) -> Tensor:
        derivative: Tensor = ctx.forward_cls.derivative(ctx)
        return tx * derivative


class Exp(_Elementwise):
    """``e ** x``; its derivative is its own output, so the output is saved."""

    node_name = "ExpBackward0"
    holomorphic = True
    ufunc = staticmethod(np.exp)
    saves_output = True

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        y: Tensor = ctx.saved_tensors[0]
        return y


class Log(_Elementwise):
    """Natural logarithm; d/dx log x = 1 / x."""

    node_name = "LogBackward0"
    holomorphic = True
    ufunc = staticmethod(np.log)

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return 1 / x


class Tanh(_Elementwise):
    """Hyperbolic tangent; d/dx tanh x = 1 - tanh² x, computed from the saved output."""

    node_name = "TanhBackward0"
    holomorphic = True
    ufunc = staticmethod(np.tanh)
    saves_output = True

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        y: Tensor = ctx.saved_tensors[0]
        return 1 - y * y


class Where(Function[Tensor]):
    """``x`` where ``condition`` holds, else ``y`` (either may be a number)."""

    vmap = elementwise_rule

    node_name = "WhereBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"condition": 0}
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, condition: Tensor, x: Any, y: Any) -> Tensor:
        a, b = raw(x), raw(y)
        if type(a) is int or type(b) is int:  # torch refuses an int the result dtype cannot hold
            dt = result_dtype(a, b)
            fill_value_as(a, dt)
            fill_value_as(b, dt)
        a, b = promote_operands(a, b)
        ctx.save_for_backward(condition)
        try:
            out = np.where(condition.array, a, b)
            return as_tensor(keep_dtype(out, result_dtype(a, b)) if out.ndim == 0 else out)
        except ValueError:
            raise _where_broadcast_error(condition.array, a, b) from None

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


def _where_broadcast_error(*operands: Any) -> RuntimeError:
    """Torch's error for ``where`` operands that do not broadcast: the shapes are folded
    in the order condition, input, other, and the first mismatch is named."""
    shape: tuple[int, ...] = ()
    for operand in operands:
        try:
            shape = np.broadcast_shapes(shape, np.shape(operand))
        except ValueError:
            return broadcast_error(np.broadcast_to(np.empty(()), shape), operand)
    return RuntimeError(f"where: shapes {[list(np.shape(o)) for o in operands]} do not broadcast")


class Abs(_Elementwise):
    """``|x|``; d/dx = sign(x) (0 at 0, as torch)."""

    node_name = "AbsBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        data = x.array
        if data.dtype == np.bool_:
            raise NotImplementedError("\"abs_cpu\" not implemented for 'Bool'")
        ctx.save_for_backward(x)
        return as_tensor(np.abs(data))

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return Sgn.apply(x) if x.is_complex() else Sign.apply(x)

    @staticmethod
    def jvp(ctx: Any, tx: Tensor) -> Tensor:
        sgn = Abs.derivative(ctx)
        if sgn.is_complex():  # a real function of z: Re(conj(sgn) * t)
            out: Tensor = (sgn.conj() * tx).real
            return out
        return tx * sgn


class Sign(Function[Tensor]):
    """-1, 0 or 1 by the sign of ``x`` (0 for NaN, as torch); its gradient is zero."""

    vmap = elementwise_rule

    node_name = "SignBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        refuse_complex(ctx, x.array)
        data = x.array
        if data.dtype == np.bool_:
            return as_tensor(data.copy())
        out = np.asarray(np.sign(data))
        if out.dtype.kind == "f":
            out = np.where(np.isnan(out), out.dtype.type(0), out)  # torch: sign(nan) is 0
        return as_tensor(out)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        return _zeros(grad)

    @staticmethod
    def jvp(ctx: Any, tx: Tensor) -> Tensor:
        return _zeros(tx)


class Sgn(Function[Tensor]):
    """torch's ``sgn`` of a complex tensor, ``z / |z|`` (0 at 0): the derivative of ``|z|``.  Its
    gradient and its tangent are the same real-linear map, ``(g - sgn Re(conj(sgn) g)) / |z|``."""

    vmap = elementwise_rule

    node_name = "SgnBackward0"

    @staticmethod
    def forward(ctx: Any, z: Tensor) -> Tensor:
        data = z.array
        magnitude = np.abs(data)
        if _NUMPY_2:  # NumPy 1 gives the sign of the real part for complex numbers
            out = np.sign(data)
            if not np.isfinite(magnitude).all():  # torch's z / |z|: inf / inf is NaN
                out = np.where(np.isinf(magnitude), np.complex128(complex(np.nan, np.nan)), out)
        else:
            with np.errstate(invalid="ignore", divide="ignore"):
                out = np.where(magnitude == 0, 0, data / np.where(magnitude == 0, 1, magnitude))
        y = as_tensor(np.asarray(out, dtype=data.dtype))
        ctx.save_for_backward(z, y)
        return y

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        z, y = ctx.saved_tensors
        zero = as_tensor(z.array == 0)
        magnitude = Abs.apply(z).masked_fill(zero, 1.0)  # differentiable: higher orders stay right
        out: Tensor = ((grad - y * (y.conj() * grad).real) / magnitude).masked_fill(zero, 0.0)
        return out

    @staticmethod
    def jvp(ctx: Any, tz: Tensor) -> Tensor:
        out: Tensor = Sgn.backward(ctx, tz)
        return out


_NUMPY_2 = int(np.__version__.split(".")[0]) >= 2


class Sqrt(_Elementwise):
    """Square root; d/dx sqrt x = 1 / (2 sqrt x), from the saved output."""

    node_name = "SqrtBackward0"
    holomorphic = True
    ufunc = staticmethod(np.sqrt)
    saves_output = True

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        y: Tensor = ctx.saved_tensors[0]
        return 1 / (2 * y)


class Rsqrt(_Elementwise):
    """``1 / sqrt(x)``; d/dx = -y³ / 2, from the saved output."""

    node_name = "RsqrtBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"result": 0}
    holomorphic = True

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        data = _floating(x)
        y = as_tensor(keep_dtype(1 / np.sqrt(data), data.dtype))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        y: Tensor = ctx.saved_tensors[0]
        return -0.5 * y * y * y


class Square(_Elementwise):
    """``x * x`` (integers stay integers); torch records it as ``pow(x, 2)``."""

    node_name = "PowBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"self": 0, "exponent": lambda ctx: 2}
    holomorphic = True

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        data = x.array
        if data.dtype == np.bool_:
            data = data.astype(np.int64)  # torch: pow(bool, 2) is int64
        return as_tensor(np.square(data))

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return 2.0 * x


class Reciprocal(_Elementwise):
    """``1 / x``; d/dx = -y², from the saved output."""

    node_name = "ReciprocalBackward0"
    holomorphic = True
    ufunc = staticmethod(np.reciprocal)
    saves_output = True

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        y: Tensor = ctx.saved_tensors[0]
        return -(y * y)


class Exp2(_Elementwise):
    """``2 ** x``; d/dx = y ln 2."""

    node_name = "Exp2Backward0"
    holomorphic = True
    ufunc = staticmethod(np.exp2)
    saves_output = True

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        y: Tensor = ctx.saved_tensors[0]
        return y * _LN2


class Expm1(_Elementwise):
    """``e ** x - 1``, accurate near 0; d/dx = y + 1."""

    node_name = "Expm1Backward0"
    holomorphic = True
    ufunc = staticmethod(np.expm1)
    saves_output = True

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        y: Tensor = ctx.saved_tensors[0]
        return y + 1


class Log2(_Elementwise):
    """Base-2 logarithm; d/dx = 1 / (x ln 2)."""

    node_name = "Log2Backward0"
    holomorphic = True
    ufunc = staticmethod(np.log2)

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return 1 / (x * _LN2)


class Log10(_Elementwise):
    """Base-10 logarithm; d/dx = 1 / (x ln 10)."""

    node_name = "Log10Backward0"
    holomorphic = True
    ufunc = staticmethod(np.log10)

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return 1 / (x * _LN10)


class Log1p(_Elementwise):
    """``log(1 + x)``, accurate near 0; d/dx = 1 / (1 + x)."""

    node_name = "Log1PBackward0"
    holomorphic = True
    ufunc = staticmethod(np.log1p)

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return 1 / (x + 1)


class Sin(_Elementwise):
    """Sine; d/dx sin x = cos x."""

    node_name = "SinBackward0"
    holomorphic = True
    ufunc = staticmethod(np.sin)

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return Cos.apply(x)


class Cos(_Elementwise):
    """Cosine; d/dx cos x = -sin x."""

    node_name = "CosBackward0"
    holomorphic = True
    ufunc = staticmethod(np.cos)

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return -Sin.apply(x)


class Tan(_Elementwise):
    """Tangent; d/dx tan x = 1 + tan² x, from the saved output."""

    node_name = "TanBackward0"
    holomorphic = True
    ufunc = staticmethod(np.tan)
    saves_output = True

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        y: Tensor = ctx.saved_tensors[0]
        return 1 + y * y


class Asin(_Elementwise):
    """Arcsine; d/dx = 1 / sqrt(1 - x²)."""

    node_name = "AsinBackward0"
    holomorphic = True
    ufunc = staticmethod(np.arcsin)

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return Rsqrt.apply(1 - x * x)


class Acos(_Elementwise):
    """Arccosine; d/dx = -1 / sqrt(1 - x²)."""

    node_name = "AcosBackward0"
    holomorphic = True
    ufunc = staticmethod(np.arccos)

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return -Rsqrt.apply(1 - x * x)


class Atan(_Elementwise):
    """Arctangent; d/dx = 1 / (1 + x²)."""

    node_name = "AtanBackward0"
    holomorphic = True
    ufunc = staticmethod(np.arctan)

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return 1 / (x * x + 1)


class Sinh(_Elementwise):
    """Hyperbolic sine; d/dx sinh x = cosh x."""

    node_name = "SinhBackward0"
    holomorphic = True
    ufunc = staticmethod(np.sinh)

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return Cosh.apply(x)


class Cosh(_Elementwise):
    """Hyperbolic cosine; d/dx cosh x = sinh x."""

    node_name = "CoshBackward0"
    holomorphic = True
    ufunc = staticmethod(np.cosh)

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return Sinh.apply(x)


class Sigmoid(_Elementwise):
    """``1 / (1 + e ** -x)``; d/dx = y (1 - y), from the saved output."""

    node_name = "SigmoidBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"result": 0}
    holomorphic = True

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        with np.errstate(over="ignore"):  # exp(-x) overflows to inf for x << 0: the result, 0, is exact
            data = _floating(x)
            y = as_tensor(keep_dtype(1 / (1 + np.exp(-data)), data.dtype))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        y: Tensor = ctx.saved_tensors[0]
        return y * (1 - y)


class Relu(_Elementwise):
    """``max(x, 0)`` (integers stay integers); the gradient passes where the output is positive."""

    node_name = "ReluBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"result": 0}

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        refuse_complex(ctx, x.array)
        data = x.array
        if data.dtype == np.bool_:
            raise RuntimeError("Boolean inputs not supported for relu")
        y = as_tensor(np.maximum(np.zeros((), dtype=data.dtype), data))  # in this order -0.0 stays -0.0, as in torch
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        y: Tensor = ctx.saved_tensors[0]
        return Sign.apply(y)  # y >= 0, so sign(y) is the mask y > 0, kept in the graph as torch keeps it


class _Rounding(Function[Tensor]):
    """Apply the class's NumPy ``rounding`` function (integers come back unchanged); the
    gradient is zero, as torch's is for these piecewise-constant functions."""

    vmap = elementwise_rule

    skips_without_gradient = True

    rounding: ClassVar[Callable[..., Any]]
    kernel: ClassVar[str]  # torch's kernel, named when it refuses a bool tensor

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        refuse_complex(ctx, x.array)
        cls = ctx.forward_cls
        if x.dtype == np.bool_:
            raise NotImplementedError(f"\"{cls.kernel}\" not implemented for 'Bool'")
        return _keep_integers(cls.rounding, x)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        return _zeros(grad)

    @staticmethod
    def jvp(ctx: Any, tx: Tensor) -> Tensor:
        return _zeros(tx)


class Floor(_Rounding):
    """Round down."""

    node_name = "FloorBackward0"
    rounding = np.floor
    kernel = "floor_vml_cpu"


class Ceil(_Rounding):
    """Round up."""

    node_name = "CeilBackward0"
    rounding = np.ceil
    kernel = "ceil_vml_cpu"


class Round(_Rounding):
    """Round to the nearest integer, halves to even."""

    node_name = "RoundBackward0"
    rounding = np.round
    kernel = "round_vml_cpu"


class RoundDecimals(Function[Tensor]):
    """Round to ``decimals`` decimal places (negative: to tens, hundreds, ...), halves to even,
    as ``round(x * 10**d) / 10**d``; the gradient is zero."""

    vmap = elementwise_rule

    node_name = "RoundBackward1"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, decimals: int) -> Tensor:
        data = x.array
        if data.dtype.kind not in "f":
            raise NotImplementedError(f"\"round_cpu\" not implemented for '{short_name(data.dtype)}'")
        return as_tensor(np.round(data, decimals))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return _zeros(grad), None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: None) -> Tensor:
        return _zeros(tx)


class Trunc(_Rounding):
    """Round toward zero."""

    node_name = "TruncBackward0"
    rounding = np.trunc
    kernel = "trunc_vml_cpu"


class Frac(Function[Tensor]):
    """``x - trunc(x)`` (floating inputs only, as torch); the gradient passes through."""

    vmap = elementwise_rule

    node_name = "FracBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        refuse_complex(ctx, x.array)
        data = x.array
        if data.dtype.kind in "iub":
            raise NotImplementedError(f"\"frac_cpu\" not implemented for '{short_name(data.dtype)}'")
        return as_tensor(data - np.trunc(data))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        return grad

    @staticmethod
    def jvp(ctx: Any, tx: Tensor) -> Tensor:
        return tx


# --------------------------------------------------------------------------- error function
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
_SQRT1_2 = math.sqrt(0.5)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_GELU_KAPPA = 0.044715


def _per_element(fn: Callable[[float], float], data: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """``fn`` (a ``math`` function) on every element, computed in float64 and returned in
    ``data``'s floating dtype.  NumPy has no ``erf``; the C library's (through ``math``) is
    correctly rounded to within an ulp, and mapping it over a list costs about 0.1 µs an
    element, no more than a vectorized series of the same accuracy."""
    flat = np.fromiter(map(fn, data.ravel().tolist()), np.float64, data.size)
    out: np.ndarray[Any, Any] = flat.reshape(data.shape).astype(data.dtype, copy=False)
    return out


class Erf(_Elementwise):
    """The error function; d/dx erf x = 2 / sqrt(pi) * exp(-x²)."""

    node_name = "ErfBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        refuse_complex(ctx, x.array)
        ctx.save_for_backward(x)
        return as_tensor(_per_element(math.erf, _floating(x)))

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return Exp.apply(-(x * x)) * _TWO_OVER_SQRT_PI


class Erfc(_Elementwise):
    """``1 - erf(x)``, accurate where it is tiny; d/dx = -2 / sqrt(pi) * exp(-x²)."""

    node_name = "ErfcBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        refuse_complex(ctx, x.array)
        ctx.save_for_backward(x)
        return as_tensor(_per_element(math.erfc, _floating(x)))

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return Exp.apply(-(x * x)) * -_TWO_OVER_SQRT_PI


# --------------------------------------------------------------------------- binary pointwise
def _mask(values: Any) -> Tensor:
    """A bool NumPy result as a constant tensor (a condition for :class:`Where`)."""
    return as_tensor(np.asarray(values))


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


class Logit(Function[Tensor]):
    """``log(x / (1 - x))``; with ``eps``, x is first clamped to ``[eps, 1 - eps]`` (and the
    gradient is 0 outside); without, the gradient is NaN outside ``[0, 1]``, as in torch."""

    vmap = elementwise_rule

    node_name = "LogitBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"self": 0, "eps": "eps"}
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, eps: float | None) -> Tensor:
        refuse_complex(ctx, x.array)
        data = _floating(x)
        if eps is not None:
            data = np.clip(data, eps, 1.0 - eps)
        ctx.save_for_backward(x)
        ctx.eps = eps
        return as_tensor(keep_dtype(np.log(data / (1 - data)), data.dtype))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return _logit_derivative(ctx, grad), None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: None) -> Tensor:
        return _logit_derivative(ctx, tx)


def _logit_derivative(ctx: Any, grad: Tensor) -> Tensor:
    x: Tensor = ctx.saved_tensors[0]
    eps = ctx.eps
    lo, hi = (0.0, 1.0) if eps is None else (eps, 1.0 - eps)
    outside = (x.array < lo) | (x.array > hi)
    d = grad / (x * (1 - x))
    if not outside.any():
        return d
    return Where.apply(_mask(outside), float("nan") if eps is None else 0.0, d)


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


# --------------------------------------------------------------------------- activations
def _floating_only(x: Tensor, kernel: str) -> np.ndarray[Any, Any]:
    """The data of a floating tensor; torch refuses integer and bool inputs to these kernels."""
    data = x.array
    if data.dtype.kind != "f":
        raise NotImplementedError(f"\"{kernel}\" not implemented for '{short_name(data.dtype)}'")
    return data


class LeakyRelu(Function[Tensor]):
    """``x`` where ``x > 0``, else ``negative_slope * x``; the slope applies at 0, as in torch."""

    vmap = elementwise_rule

    node_name = "LeakyReluBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"negative_slope": "slope", "self": 0}
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, negative_slope: float) -> Tensor:
        data = _floating_only(x, "leaky_relu_cpu")
        ctx.save_for_backward(x)
        ctx.slope = negative_slope
        return as_tensor(keep_dtype(np.where(data > 0, data, data * negative_slope), data.dtype))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return grad * _leaky_slope(ctx), None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: None) -> Tensor:
        return tx * _leaky_slope(ctx)


def _leaky_slope(ctx: Any) -> Tensor:
    """1 where ``x > 0``, else the negative slope (also at 0 and NaN, as torch), built from
    ``x`` through ops whose own derivative is zero, so that the first gradient stays in the
    graph (its derivative is 0, not an error), as torch's ``LeakyReluBackwardBackward0``."""
    x: Tensor = ctx.saved_tensors[0]
    positive = Sign.apply(Relu.apply(x))  # 1 where x > 0, else 0
    slope: float = ctx.slope
    return positive * (1.0 - slope) + slope


class Elu(Function[Tensor]):
    """``x`` where ``x > 0``, else ``alpha * (e ** x - 1)``; the derivative there, ``y + alpha``,
    comes from the saved output (so ``alpha`` at 0, as in torch)."""

    vmap = elementwise_rule

    node_name = "EluBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, alpha: float) -> Tensor:
        data = _floating_only(x, "elu_cpu")
        positive = data > 0
        y = as_tensor(keep_dtype(np.where(positive, data, alpha * np.expm1(np.where(positive, 0.0, data))), data.dtype))
        ctx.save_for_backward(x, y)
        ctx.alpha = alpha
        return y

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return _elu_derivative(ctx, grad), None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: None) -> Tensor:
        return _elu_derivative(ctx, tx)


def _elu_derivative(ctx: Any, grad: Tensor) -> Tensor:
    """``grad * (y + alpha)`` where ``x < 0``, ``grad * alpha`` at 0, else ``grad``.  At 0 the
    factor is a constant, not ``y + alpha``: so the second derivative there is 0, as torch's
    (whose ``elu_double_backward`` masks with ``x < 0``)."""
    x, y = ctx.saved_tensors
    data = x.array
    zero = data == 0
    rest = Where.apply(_mask(zero), grad * ctx.alpha, grad) if zero.any() else grad
    return Where.apply(_mask(data < 0), grad * (y + ctx.alpha), rest)


class Gelu(Function[Tensor]):
    """``x * Φ(x)`` (Φ the standard normal CDF, through erf), or with ``approximate='tanh'``
    ``x/2 * (1 + tanh(sqrt(2/π) (x + 0.044715 x³)))``."""

    vmap = elementwise_rule

    node_name = "GeluBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"approximate": "approximate", "self": 0}
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, approximate: str) -> Tensor:
        data = _floating_only(x, "GeluKernelImpl")
        ctx.save_for_backward(x)
        ctx.approximate = approximate
        if approximate == "tanh":
            inner = _SQRT_2_OVER_PI * (data + _GELU_KAPPA * data * data * data)
            return as_tensor(keep_dtype(0.5 * data * (1 + np.tanh(inner)), data.dtype))
        return as_tensor(keep_dtype(data * (0.5 * (1 + _per_element(math.erf, data * _SQRT1_2))), data.dtype))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return grad * _gelu_derivative(ctx), None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: None) -> Tensor:
        return tx * _gelu_derivative(ctx)


def _gelu_derivative(ctx: Any) -> Tensor:
    x: Tensor = ctx.saved_tensors[0]
    if ctx.approximate == "tanh":
        x2 = x * x
        t = Tanh.apply((x + x2 * x * _GELU_KAPPA) * _SQRT_2_OVER_PI)
        return (1 + t) * 0.5 + x * (1 - t * t) * (x2 * (3 * _GELU_KAPPA) + 1) * (0.5 * _SQRT_2_OVER_PI)
    cdf = (Erf.apply(x * _SQRT1_2) + 1) * 0.5
    pdf = Exp.apply(x * x * -0.5) * _INV_SQRT_2PI
    return cdf + x * pdf


class LeakyReluInPlace(LeakyRelu):
    """``leaky_relu(inplace=True)``'s Function, made in place: torch names its node apart."""

    node_name = "LeakyReluBackward1"


class EluInPlace(Elu):
    """``elu(inplace=True)``'s Function, made in place: torch names its node apart."""

    node_name = "EluBackward1"


class Silu(Function[Tensor]):
    """``x * sigmoid(x)``; d/dx = s (1 + x (1 - s)) with s = sigmoid(x)."""

    vmap = elementwise_rule

    node_name = "SiluBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"self": 0}
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        data = _floating_only(x, "silu_cpu")
        ctx.save_for_backward(x)
        with np.errstate(over="ignore"):  # exp(-x) overflows to inf for x << 0: x / inf is the exact -0.0
            return as_tensor(keep_dtype(data / (1 + np.exp(-data)), data.dtype))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        return grad * _silu_derivative(ctx)

    @staticmethod
    def jvp(ctx: Any, tx: Tensor) -> Tensor:
        return tx * _silu_derivative(ctx)


def _silu_derivative(ctx: Any) -> Tensor:
    x: Tensor = ctx.saved_tensors[0]
    s = Sigmoid.apply(x)
    return s * (1 + x * (1 - s))


class Softplus(Function[Tensor]):
    """``log(1 + e ** (beta x)) / beta``, and ``x`` itself where ``beta x > threshold``;
    d/dx = sigmoid(beta x) (1 beyond the threshold)."""

    vmap = elementwise_rule

    node_name = "SoftplusBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {
        "beta": lambda ctx: ctx.params[0],
        "threshold": lambda ctx: ctx.params[1],
        "self": 0,
    }
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, beta: float, threshold: float) -> Tensor:
        data = _floating_only(x, "softplus_cpu")
        z = data * beta
        ctx.save_for_backward(x)
        ctx.params = (beta, threshold)
        soft = np.log1p(np.exp(np.minimum(z, threshold))) / beta
        return as_tensor(keep_dtype(np.where(z > threshold, data, soft), data.dtype))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        return _softplus_derivative(ctx, grad), None, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _b: None, _t: None) -> Tensor:
        return _softplus_derivative(ctx, tx)


def _softplus_derivative(ctx: Any, grad: Tensor) -> Tensor:
    x: Tensor = ctx.saved_tensors[0]
    beta, threshold = ctx.params
    linear = x.array * beta > threshold
    return Where.apply(_mask(linear), grad, grad * Sigmoid.apply(x * beta))


# --------------------------------------------------------------------------- argument handling
def number_or_tensor(value: Any) -> Any:
    """A bound or weight as the ops take it: a tensor, a Python number or None (NumPy scalars
    become Python numbers, as torch treats them)."""
    if isinstance(value, np.generic):
        return value.item()
    return value


def tensor_arg(fn: str, name: str, position: int, value: Any) -> Tensor:
    """``value``, which must be a tensor: torch's TypeError for anything else (torch counts
    positions from 1 after ``self`` in methods, from 1 with ``input`` in functions)."""
    if not isinstance(value, Tensor):
        raise TypeError(f"{fn}(): argument '{name}' (position {position}) must be Tensor, not {type(value).__name__}")
    return value


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


# --------------------------------------------------------------------------- frontends
# One function per op, with torch's signature: the argument handling, then ``Function.apply``.
# The op table (ops/table.py) makes them the Tensor methods and the ``ctxgrad.*`` functions.


def exp(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Elementwise ``e ** x``."""
    if out is not None:
        return write_out("exp", out, (input,), lambda: exp(input))
    return Exp.apply(input)


def round(input: Tensor, *, decimals: int = 0) -> Tensor:
    """Elementwise round to nearest (to ``decimals`` decimal places), halves to even."""
    if decimals:
        return RoundDecimals.apply(input, int(decimals))
    return Round.apply(input)


def logit_args(name: str, input: Tensor, eps: float | None = None) -> tuple[Tensor, float | None]:
    """``logit``'s arguments (``eps`` a number, or None for no clamping)."""
    return input, None if eps is None else float(eps)


def _binary_tensor_args(fn: str, input: Any, other: Any) -> Tensor:
    """``input``, after torch's TypeError if it or ``other`` is not a tensor (function form)."""
    tensor_arg(fn, "other", 2, other)
    return tensor_arg(fn, "input", 1, input)


def atan2(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise angle of the point ``(other, input)``, in ``[-pi, pi]``."""
    return Atan2.apply(_binary_tensor_args("atan2", input, other), other)


def atan2_method(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise angle of the point ``(other, self)``, in ``[-pi, pi]``."""
    return Atan2.apply(input, tensor_arg("atan2", "other", 1, other))


def arctan2(input: Tensor, other: Tensor) -> Tensor:
    """Alias of :func:`atan2`."""
    return Atan2.apply(_binary_tensor_args("arctan2", input, other), other)


def arctan2_method(input: Tensor, other: Tensor) -> Tensor:
    """Alias of :meth:`atan2`."""
    return Atan2.apply(input, tensor_arg("arctan2", "other", 1, other))


def maximum(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise larger value (NaN if either is NaN)."""
    return Maximum.apply(_binary_tensor_args("maximum", input, other), other)


def maximum_method(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise larger value (NaN if either is NaN)."""
    return Maximum.apply(input, tensor_arg("maximum", "other", 1, other))


def minimum(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise smaller value (NaN if either is NaN)."""
    return Minimum.apply(_binary_tensor_args("minimum", input, other), other)


def minimum_method(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise smaller value (NaN if either is NaN)."""
    return Minimum.apply(input, tensor_arg("minimum", "other", 1, other))


def clamp(input: Tensor, min: Any = None, max: Any = None) -> Tensor:
    """Elementwise ``min(max(x, min), max)``; bounds are numbers or tensors, either may be None."""
    return _clamp(input, min, max)


def clip(input: Tensor, min: Any = None, max: Any = None) -> Tensor:
    """Alias of :func:`clamp`."""
    return _clamp(input, min, max, "clip")


def clamp_min(input: Tensor, min: Any) -> Tensor:
    """Elementwise ``max(x, min)``."""
    lo = number_or_tensor(min)
    if isinstance(lo, Tensor):
        return ClampMinTensor.apply(input, lo)
    return ClampMinScalar.apply(input, lo, None)


def clamp_max(input: Tensor, max: Any) -> Tensor:
    """Elementwise ``min(x, max)``."""
    hi = number_or_tensor(max)
    if isinstance(hi, Tensor):
        return ClampMaxTensor.apply(input, hi)
    return ClampMaxScalar.apply(input, None, hi)


def lerp(input: Tensor, end: Tensor, weight: Any) -> Tensor:
    """Linear interpolation ``input + weight * (end - input)``; ``weight`` a number or tensor."""
    return _lerp(input, end, weight, method=False)


def lerp_method(input: Tensor, end: Tensor, weight: Any) -> Tensor:
    """Linear interpolation ``self + weight * (end - self)``; ``weight`` a number or tensor."""
    return _lerp(input, end, weight, method=True)


def where(condition: Tensor, input: Any = None, other: Any = None) -> Any:
    """``input`` where ``condition`` is true, else ``other``; with ``condition`` alone, its
    nonzero indices as a tuple of 1-D int64 tensors (``condition.nonzero(as_tuple=True)``)."""
    if not isinstance(condition, Tensor):
        raise TypeError(_where_signature_error(condition, input, other))
    if input is None and other is None:
        return condition.nonzero(as_tuple=True)
    if condition.dtype == np.uint8:
        warnings.warn(
            "where received a uint8 condition tensor. This behavior is deprecated and will be removed in a future "
            "version of PyTorch. Use a boolean condition instead.",
            UserWarning,
            stacklevel=2,
        )
    elif condition.dtype != np.bool_:
        name = short_name(condition.dtype)
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor with dtype {name}")
    # A NumPy scalar counts as the Python number it holds, as torch reads it (np.int64(3) with
    # an int32 tensor gives int32, not NumPy's int64 or the default float).
    input, other = (v.item() if isinstance(v, np.generic) else v for v in (input, other))
    return Where.apply(condition, input, other)


def _where_signature_error(*args: Any) -> str:
    """Torch's TypeError for ``where`` called with a condition that is not a tensor."""
    given = [a for a in args if a is not None]
    names = ["Tensor" if isinstance(a, Tensor) else type(a).__name__ for a in given]
    lines = [
        f"where() received an invalid combination of arguments - got ({', '.join(names)}), but expected one of:",
        " * (Tensor condition)",
        " * (Tensor condition, Tensor input, Tensor other, *, Tensor out = None)",
    ]
    if len(given) == 3:
        for signature, wanted in (
            ("(Tensor condition, Number self, Tensor other)", ("Tensor", "Number", "Tensor")),
            ("(Tensor condition, Tensor input, Number other)", ("Tensor", "Tensor", "Number")),
            ("(Tensor condition, Number self, Number other)", ("Tensor", "Number", "Number")),
        ):
            marked = [
                n if (n == "Tensor" if w == "Tensor" else isinstance(a, (int, float, complex))) else f"!{n}!"
                for a, n, w in zip(given, names, wanted)
            ]
            lines += [
                f" * {signature}",
                f"      didn't match because some of the arguments have invalid types: ({', '.join(marked)})",
            ]
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- in-place variants
# Each is its op's Function made in place (ctxgrad.autograd.inplace.in_place: it writes into
# ``input`` and marks it dirty), after torch's checks that ``input`` may be changed.
def exp_(input: Tensor) -> Tensor:
    """In place: elementwise ``e ** x``."""
    return write_in_place(Exp, input)


def clamp_(input: Tensor, min: Any = None, max: Any = None) -> Tensor:
    """In place: elementwise ``min(max(x, min), max)``."""
    function, lo, hi = _clamp_function(min, max, "clamp")
    return write_in_place(function, input, lo, hi)


def clip_(input: Tensor, min: Any = None, max: Any = None) -> Tensor:
    """In place: alias of :func:`clamp_`."""
    function, lo, hi = _clamp_function(min, max, "clip")
    return write_in_place(function, input, lo, hi)


# --------------------------------------------------------------------------- more of torch's pointwise functions
class Acosh(_Elementwise):
    """Inverse hyperbolic cosine; d/dx acosh x = 1 / (sqrt(x - 1) sqrt(x + 1)) (for real x > 1,
    1 / sqrt(x² - 1); the product of two roots keeps the branch right for complex x)."""

    node_name = "AcoshBackward0"
    holomorphic = True
    ufunc = staticmethod(np.arccosh)

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        if x.array.dtype.kind == "c":
            product: Tensor = Rsqrt.apply(x - 1) * Rsqrt.apply(x + 1)
            return product
        return Rsqrt.apply(x * x - 1)


class Asinh(_Elementwise):
    """Inverse hyperbolic sine; d/dx asinh x = 1 / sqrt(x² + 1)."""

    node_name = "AsinhBackward0"
    holomorphic = True
    ufunc = staticmethod(np.arcsinh)

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return Rsqrt.apply(x * x + 1)


class Atanh(_Elementwise):
    """Inverse hyperbolic tangent; d/dx atanh x = 1 / (1 - x²)."""

    node_name = "AtanhBackward0"
    holomorphic = True
    ufunc = staticmethod(np.arctanh)

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return 1 / (1 - x * x)


class _Scale(_Elementwise):
    """``x * factor`` for a constant ``factor`` (degrees and radians); the derivative is it."""

    factor: ClassVar[float]

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        refuse_complex(ctx, x.array)
        return as_tensor(ctx.forward_cls.ufunc(_floating(x)))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        factor: float = ctx.forward_cls.factor
        return grad * factor

    @staticmethod
    def jvp(ctx: Any, tx: Tensor) -> Tensor:
        factor: float = ctx.forward_cls.factor
        return tx * factor


class Deg2Rad(_Scale):
    """Degrees to radians, ``x * pi / 180``."""

    node_name = "Deg2RadBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {}
    ufunc = staticmethod(np.deg2rad)
    factor = math.pi / 180.0


class Rad2Deg(_Scale):
    """Radians to degrees, ``x * 180 / pi``."""

    node_name = "Rad2DegBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {}
    ufunc = staticmethod(np.rad2deg)
    factor = 180.0 / math.pi


class Sinc(_Elementwise):
    """The normalised sinc, ``sin(pi x) / (pi x)`` (1 at 0); d/dx = (cos(pi x) - sinc x) / x (0 at 0)."""

    node_name = "SincBackward0"
    holomorphic = True
    ufunc = staticmethod(np.sinc)

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        zero = x.array == 0
        safe = Where.apply(_mask(zero), 1.0, x) if zero.any() else x
        d = (Cos.apply(safe * math.pi) - Sinc.apply(safe)) / safe
        return Where.apply(_mask(zero), 0.0, d) if zero.any() else d


def _lgamma_scalar(v: float) -> float:
    """``math.lgamma``, with torch's ``inf`` at the poles (0, -1, -2, ...) where math raises."""
    try:
        return math.lgamma(v)
    except ValueError:
        return math.inf


class Lgamma(_Elementwise):
    """``log |Gamma(x)|``; d/dx = digamma(x)."""

    node_name = "LgammaBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        refuse_complex(ctx, x.array)
        ctx.save_for_backward(x)
        return as_tensor(_per_element(_lgamma_scalar, _floating(x)))

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return Digamma.apply(x)


#: Bernoulli numbers B_2, B_4, ..., B_20: the asymptotic series of digamma and polygamma.
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510, 43867 / 798, -174611 / 330)
#: Where the asymptotic series are used; smaller arguments are first shifted up by recurrence.
_ASYMPTOTIC_FROM = 20.0


def _digamma(x: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Digamma in float64, vectorised: reflection below 1/2 (``psi(1-x) - pi / tan(pi x)``),
    the recurrence ``psi(x) = psi(x+1) - 1/x`` up to 20, then the asymptotic series
    ``log x - 1/(2x) - sum B_2k / (2k x^2k)`` (about 1e-16 relative there).  As torch: -inf at
    0, +inf at -0, NaN at the negative integers."""
    x = np.asarray(x, dtype=np.float64)
    out = np.empty_like(x)
    with np.errstate(all="ignore"):
        reflect = x < 0.5
        z = np.where(reflect, 1.0 - x, x)
        acc = np.zeros_like(z)
        while True:
            small = z < _ASYMPTOTIC_FROM
            if not small.any():
                break
            acc = np.where(small, acc - 1.0 / z, acc)
            z = np.where(small, z + 1.0, z)
        inv2 = 1.0 / (z * z)
        series = np.zeros_like(z)
        power = inv2.copy()
        for k, b in enumerate(_BERNOULLI, start=1):
            series += b / (2 * k) * power
            power = power * inv2
        psi = np.log(z) - 0.5 / z - series + acc
        # tan(pi x) from the distance to the nearest integer: exact, where pi * x would not be
        out[...] = np.where(reflect, psi - math.pi / np.tan(math.pi * (x - np.round(x))), psi)
        out[x == 0] = np.where(np.signbit(x[x == 0]), math.inf, -math.inf)
        out[(x < 0) & (x == np.floor(x))] = math.nan
        out[x == math.inf] = math.inf
        out[x == -math.inf] = math.nan
    return out


def _polygamma(n: int, x: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """The ``n``-th derivative of digamma (``n >= 1``) in float64, vectorised: the recurrence
    ``psi_n(x) = psi_n(x+1) + (-1)^(n+1) n! / x^(n+1)`` up to 20, then the asymptotic series
    ``(-1)^(n+1) [(n-1)!/x^n + n!/(2 x^(n+1)) + sum B_2k (2k+n-1)! / ((2k)! x^(2k+n))]``.
    ``(-1)^(n+1) inf`` at the poles (0, -1, -2, ...), 0 at +inf, NaN at -inf."""
    if n == 0:
        return _digamma(x)
    x = np.asarray(x, dtype=np.float64)
    sign = 1.0 if n % 2 == 1 else -1.0
    with np.errstate(all="ignore"):
        z = np.where(x == -math.inf, math.nan, x)  # (-inf would never reach the series)
        acc = np.zeros_like(z)
        while True:
            small = z < _ASYMPTOTIC_FROM
            if not small.any():
                break
            acc = np.where(small, acc + math.factorial(n) / z ** (n + 1), acc)
            z = np.where(small, z + 1.0, z)
        series = math.factorial(n - 1) / z**n + math.factorial(n) / (2 * z ** (n + 1))
        for k, b in enumerate(_BERNOULLI, start=1):
            series += b * math.factorial(2 * k + n - 1) / math.factorial(2 * k) / z ** (2 * k + n)
        out = np.array(sign * (series + acc), dtype=np.float64)  # (an array also when 0-d)
        out[(x <= 0) & (x == np.floor(x)) & np.isfinite(x)] = sign * math.inf
    result: np.ndarray[Any, Any] = out
    return result


class Digamma(_Elementwise):
    """The logarithmic derivative of Gamma, ``psi(x)``; d/dx = polygamma(1, x)."""

    node_name = "DigammaBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        refuse_complex(ctx, x.array)
        data = _floating(x)
        ctx.save_for_backward(x)
        return as_tensor(_digamma(data).astype(data.dtype, copy=False))

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return Polygamma.apply(x, 1)


class Polygamma(Function[Tensor]):
    """The ``n``-th derivative of digamma; d/dx polygamma(n, x) = polygamma(n + 1, x)."""

    vmap = elementwise_rule

    node_name = "PolygammaBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"n": "n", "self": 0}
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, n: int) -> Tensor:
        if x.array.dtype.kind == "c":  # torch names the kernel of each order
            kernel = {0: "digamma", 1: "trigamma"}.get(n, "polygamma")
            raise NotImplementedError(f"\"{kernel}\" not implemented for '{short_name(x.array.dtype)}'")
        data = _floating(x)
        ctx.n = n
        ctx.save_for_backward(x)
        return as_tensor(_polygamma(n, data).astype(data.dtype, copy=False))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        (x,) = ctx.saved_tensors
        return grad * Polygamma.apply(x, ctx.n + 1), None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: None) -> Tensor:
        (x,) = ctx.saved_tensors
        return tx * Polygamma.apply(x, ctx.n + 1)


def _erfinv(y: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """The inverse error function in float64: Giles' approximation ("Approximating the erfinv
    function", 2010), then two Newton steps on ``erf(x) = y`` with the C library's ``erf``
    (about 1 ulp).  ``+-inf`` at ``+-1``, NaN outside ``[-1, 1]``, as torch."""
    y = np.asarray(y, dtype=np.float64)
    with np.errstate(all="ignore"):
        w = -np.log((1.0 - y) * (1.0 + y))
        small = w < 5.0
        ws = w - 2.5
        ps: Any = 2.81022636e-08
        for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
                  -0.00417768164, 0.246640727, 1.50140941):  # fmt: skip
            ps = c + ps * ws
        wl = np.sqrt(w) - 3.0
        pl: Any = -0.000200214257
        for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
                  0.00943887047, 1.00167406, 2.83297682):  # fmt: skip
            pl = c + pl * wl
        x = np.where(small, ps, pl) * y
        inside = np.abs(y) < 1
        for _ in range(2):
            xi = np.where(inside & np.isfinite(x), x, 0.0)
            err = _per_element(math.erf, xi) - y
            x = np.where(inside, xi - err / (_TWO_OVER_SQRT_PI * np.exp(-xi * xi)), x)
        x = np.where(y == 1, math.inf, np.where(y == -1, -math.inf, x))
        out: np.ndarray[Any, Any] = np.where(np.abs(y) > 1, math.nan, x)
    return out


class Erfinv(_Elementwise):
    """The inverse of ``erf`` on ``(-1, 1)``; d/dx = sqrt(pi) / 2 * exp(erfinv(x)²) (the output is saved)."""

    node_name = "ErfinvBackward0"
    saves_output = True

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        refuse_complex(ctx, x.array)
        data = _floating(x)
        y = as_tensor(_erfinv(data).astype(data.dtype, copy=False))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        y: Tensor = ctx.saved_tensors[0]
        return Exp.apply(y * y) * (math.sqrt(math.pi) / 2)


def _bessel_i(nu: int, x: np.ndarray[Any, Any], scaled: bool) -> np.ndarray[Any, Any]:
    """The modified Bessel function ``I_nu(x)`` (``nu`` 0 or 1), times ``exp(-|x|)`` when
    ``scaled``, in float64: the power series ``sum (x/2)^(2k+nu) / (k! (k+nu)!)`` (positive
    terms, no cancellation) up to ``|x| = 50``, the asymptotic series
    ``e^|x| / sqrt(2 pi |x|) sum_k (-1)^k a_k(nu) / |x|^k`` beyond (its terms fall below 1e-17
    long before they grow again).  ``I_1`` is odd, ``I_0`` even."""
    x = np.asarray(x, dtype=np.float64)
    ax = np.abs(x)
    out = np.empty_like(ax)
    with np.errstate(all="ignore"):
        small = ax <= 50.0
        z = np.where(small, ax, 0.0)
        half = z / 2
        term = half if nu else np.ones_like(z)
        total = term.copy()
        quarter = half * half
        for k in range(1, 200):  # at |x| = 50 the terms are below 1e-17 of the sum by k = 130
            term = term * quarter / (k * (k + nu))
            total = total + term
        out[small] = (total * np.exp(-z) if scaled else total)[small]
        big = ~small
        if big.any():
            zb = ax[big]
            mu = 4.0 * nu * nu
            series = np.ones_like(zb)
            coefficient = np.ones_like(zb)
            for k in range(1, 30):
                coefficient = coefficient * -(mu - (2 * k - 1) ** 2) / (k * 8.0 * zb)
                series = series + coefficient
            scale = series / np.sqrt(2 * math.pi * zb)
            out[big] = scale if scaled else scale * np.exp(zb)
        out[np.isnan(x)] = math.nan
    result: np.ndarray[Any, Any] = np.where(x < 0, -out, out) if nu else out
    return result


class _BesselI(_Elementwise):
    """A modified Bessel function of ``x`` (``nu`` and ``scaled`` say which); refuses complex
    input with torch's message, computes in float64 and rounds to the input's dtype."""

    nu: ClassVar[int]
    scaled: ClassVar[bool]
    kernel: ClassVar[str]

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        cls = ctx.forward_cls
        if x.array.dtype.kind == "c":
            raise NotImplementedError(f"\"{cls.kernel}\" not implemented for '{short_name(x.array.dtype)}'")
        data = _floating(x)
        ctx.save_for_backward(x)
        return as_tensor(_bessel_i(cls.nu, data, cls.scaled).astype(data.dtype, copy=False))


class I0(_BesselI):
    """The modified Bessel function of the first kind of order 0; d/dx = I_1(x)."""

    node_name = "I0Backward0"
    nu, scaled, kernel = 0, False, "i0_vml_cpu"

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return I1.apply(x)


class I0e(_BesselI):
    """``exp(-|x|) I_0(x)``; d/dx = i1e(x) - sign(x) i0e(x)."""

    node_name = "SpecialI0EBackward0"
    nu, scaled, kernel = 0, True, "i0e_cpu"

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        out: Tensor = I1e.apply(x) - Sign.apply(x) * I0e.apply(x)
        return out


def _over_x(values: Tensor, x: Tensor, at_zero: float) -> Tensor:
    """``values / x``, with ``at_zero`` where ``x`` is 0 (the limit of I_1(x)/x is 1/2)."""
    zero = x.array == 0
    if not zero.any():
        out: Tensor = values / x
        return out
    safe = Where.apply(_mask(zero), 1.0, x)
    return Where.apply(_mask(zero), at_zero, values / safe)


class I1(_BesselI):
    """The modified Bessel function of the first kind of order 1; d/dx = I_0(x) - I_1(x) / x
    (1/2 at 0)."""

    node_name = "SpecialI1Backward0"
    nu, scaled, kernel = 1, False, "i1_cpu"

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        out: Tensor = I0.apply(x) - _over_x(I1.apply(x), x, 0.5)
        return out


class I1e(_BesselI):
    """``exp(-|x|) I_1(x)``; d/dx = i0e(x) - i1e(x) (sign(x) + 1 / x) (1/2 at 0)."""

    node_name = "SpecialI1EBackward0"
    nu, scaled, kernel = 1, True, "i1e_cpu"

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        i1e = I1e.apply(x)
        out: Tensor = I0e.apply(x) - Sign.apply(x) * i1e - _over_x(i1e, x, 0.5)
        return out


_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


def _log_ndtr(x: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """``log(ndtr(x))`` in float64: ``log(erfc(-x / sqrt 2) / 2)`` (the C library's erfc; above
    0, ``log1p(-erfc(x / sqrt 2) / 2)``) down to -30, and below, the asymptotic series
    ``-x²/2 - log(-x) - log(2 pi)/2 + log(1 - 1/x² + 3/x⁴ - ...)`` (its eighth term is 1e-17 of
    the first there)."""
    x = np.asarray(x, dtype=np.float64)
    with np.errstate(all="ignore"):
        near = np.where(x >= -30.0, x, 0.0)
        # above 0, log1p of the (small) upper tail keeps its digits
        tail = _per_element(math.erfc, np.abs(near) / math.sqrt(2.0)) / 2
        out = np.where(near > 0, np.log1p(-tail), np.log(tail))
        far = x < -30.0
        if far.any():
            z = x[far]
            inv2 = 1.0 / (z * z)
            series, term = np.ones_like(z), np.ones_like(z)
            for k in range(1, 9):
                term = -term * (2 * k - 1) * inv2
                series = series + term
            out[far] = -0.5 * z * z - np.log(-z) - _LOG_SQRT_2PI + np.log(series)
        out[np.isnan(x)] = math.nan
    return out


class LogNdtr(_Elementwise):
    """``log`` of the standard normal distribution function, accurate far in the left tail;
    d/dx = exp(-x²/2 - log_ndtr(x)) / sqrt(2 pi) (the output is saved)."""

    node_name = "SpecialLogNdtrBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        if x.array.dtype.kind == "c" or x.array.dtype == np.float16:
            raise NotImplementedError(f"\"log_ndtr_cpu\" not implemented for '{short_name(x.array.dtype)}'")
        data = _floating(x)
        y = as_tensor(_log_ndtr(data).astype(data.dtype, copy=False))
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x, y = ctx.saved_tensors
        return Exp.apply(x * x * -0.5 - y) * (1 / math.sqrt(2 * math.pi))


def _ndtri(p: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """The standard normal quantile in float64: ``sqrt 2 erfinv(2p - 1)`` for p in [1/4, 3/4];
    in the tails, a start from Abramowitz and Stegun 26.2.23 (error < 4.5e-4) on the smaller
    tail, then three Newton steps on ``log ndtr(x) = log q`` (quadratic convergence: 4.5e-4,
    1e-7, 1e-14, an ulp).  ``-inf`` at 0, ``inf`` at 1, NaN
    outside [0, 1]."""
    p = np.asarray(p, dtype=np.float64)
    with np.errstate(all="ignore"):
        lower = p < 0.5
        q = np.where(lower, p, 1.0 - p)  # the smaller tail
        inside = (q > 0) & (q <= 0.5)
        qs = np.where(inside, q, 0.25)
        t = np.sqrt(-2.0 * np.log(qs))
        x = -(
            t - (2.515517 + 0.802853 * t + 0.010328 * t * t) / (1 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t**3)
        )
        log_q = np.log(qs)
        for _ in range(3):
            log_phi = -0.5 * x * x - _LOG_SQRT_2PI
            log_cdf = _log_ndtr(x)
            x = x - (log_cdf - log_q) * np.exp(log_cdf - log_phi)
        out = np.where(lower, x, -x)
        # the middle, where 2p - 1 is exact: erfinv (Newton above would lose digits near 1/2)
        middle = (p >= 0.25) & (p <= 0.75)
        if middle.any():
            out[middle] = math.sqrt(2.0) * _erfinv(2.0 * p[middle] - 1.0)
        out = np.where(p == 0, -math.inf, np.where(p == 1, math.inf, out))
        result: np.ndarray[Any, Any] = np.where((p < 0) | (p > 1) | np.isnan(p), math.nan, out)
    return result


class Ndtri(_Elementwise):
    """The inverse of ``ndtr``: ``x`` with ``ndtr(x) = p``; d/dp = sqrt(2 pi) exp(x²/2) (the
    output is saved)."""

    node_name = "SpecialNdtriBackward0"
    saves_output = True

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        if x.array.dtype.kind == "c" or x.array.dtype == np.float16:
            raise NotImplementedError(f"\"ndtri_cpu\" not implemented for '{short_name(x.array.dtype)}'")
        data = _floating(x)
        y = as_tensor(_ndtri(data).astype(data.dtype, copy=False))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        y: Tensor = ctx.saved_tensors[0]
        return Exp.apply(y * y * 0.5) * math.sqrt(2 * math.pi)


class NanToNum(Function[Tensor]):
    """NaN, +inf and -inf replaced by numbers; the gradient passes where the input was finite."""

    vmap = elementwise_rule

    node_name = "NanToNumBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"self": 0}
    holomorphic = True  # a copy where it is differentiable
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, nan: float, posinf: float | None, neginf: float | None) -> Tensor:
        data = x.array
        if data.dtype.kind == "c" and ctx.needs_input_grad[0]:
            raise RuntimeError("nan_to_num does not support automatic differentiation for outputs with complex dtype.")
        ctx.save_for_backward(x)
        if data.dtype.kind not in "fc":
            return as_tensor(data.copy())
        return as_tensor(np.nan_to_num(data, nan=nan, posinf=posinf, neginf=neginf))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None]:
        (x,) = ctx.saved_tensors
        return Where.apply(_mask(np.isfinite(x.array)), grad, 0.0), None, None, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, *_: None) -> Tensor:
        (x,) = ctx.saved_tensors
        return Where.apply(_mask(np.isfinite(x.array)), tx, 0.0)


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


def _xlog1py(x: Any, y: Any) -> Any:
    """``x * log1p(y)``, 0 where ``x`` is 0 (unless ``y`` is NaN), as torch."""
    return np.where((x == 0) & ~np.isnan(y), 0.0, x * np.log1p(y)).astype(np.result_type(x, y))


class Xlog1py(_Binary):
    """``x * log1p(y)``, 0 where ``x == 0`` (``ctxgrad.special.xlog1py``); d/dx = log1p(y) (also
    at x == 0, as torch), d/dy = x / (1 + y)."""

    node_name = "SpecialXlog1pyBackward0"
    floating = True
    call = staticmethod(_xlog1py)

    @staticmethod
    def partials(ctx: Any, a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
        return Log1p.apply(b), a / (1 + b)


_lgamma = np.frompyfunc(math.lgamma, 1, 1)


def log_gamma(a: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    return np.asarray(_lgamma(a), dtype=np.float64)


#: A bound on the terms of either expansion (reached only by non-finite input: both converge
#: within a few hundred terms for alpha up to 1e6).
_MAX_TERMS = 100_000


def incomplete_gamma_sums(a: np.ndarray[Any, Any], x: np.ndarray[Any, Any], upper: np.ndarray[Any, Any]) -> Any:
    """``S`` with ``P(a, x) = x^a e^-x / Gamma(a) * S`` where ``upper`` is False (the series
    ``sum_n x^n / (a (a+1) ... (a+n))``) and ``Q(a, x) = x^a e^-x / Gamma(a) * S`` where it is
    True (the continued fraction of the upper tail, evaluated by Lentz's method).  Each is the
    form that converges fast and without cancellation on its side of ``x = a + 1``; an element
    leaves the iteration as soon as its next term no longer changes it."""
    out = np.empty_like(x)
    tol = 1e-16
    idx = np.flatnonzero(~upper)
    if idx.size:
        al, xl = a[idx], x[idx]
        term = 1.0 / al
        total = term.copy()
        n = 0.0
        while idx.size:
            n += 1
            term = term * xl / (al + n)
            total = total + term
            done = ~(np.abs(term) > np.abs(total) * tol) | (n > _MAX_TERMS)  # NaN stops too
            if done.any():
                out[idx[done]] = total[done]
                keep = ~done
                idx, al, xl, term, total = idx[keep], al[keep], xl[keep], term[keep], total[keep]
    idx = np.flatnonzero(upper)
    if idx.size:
        au, xu = a[idx], x[idx]
        tiny = 1e-300
        b = xu + 1.0 - au
        c = np.full_like(xu, 1.0 / tiny)
        d = 1.0 / b
        h = d.copy()
        i = 0
        while idx.size:
            i += 1
            an = -i * (i - au)
            b = b + 2.0
            d = an * d + b
            d = np.where(np.abs(d) < tiny, tiny, d)
            c = b + an / c
            c = np.where(np.abs(c) < tiny, tiny, c)
            d = 1.0 / d
            delta = d * c
            h = h * delta
            done = ~(np.abs(delta - 1.0) > 2 * tol) | (i > _MAX_TERMS)  # NaN stops too
            if done.any():
                out[idx[done]] = h[done]
                keep = ~done
                idx, au, xu, b, c, d, h = idx[keep], au[keep], xu[keep], b[keep], c[keep], d[keep], h[keep]
    return out


def _igamma_of(upper: bool) -> Callable[[Any, Any], Any]:
    """``P(a, x)`` (``Q(a, x) = 1 - P`` with ``upper``) elementwise, with torch's values at the
    edges: NaN for a negative or NaN argument and for ``a == x == 0``; all of the mass below
    ``x`` when ``a == 0`` or ``x == inf``, none when ``x == 0`` or ``a == inf``.  Inside,
    whichever of ``P`` and ``Q`` has the fast, cancellation-free expansion on its side of
    ``x = a + 1`` is summed, and the other is one minus it."""

    def call(a: Any, x: Any) -> Any:
        a64, x64 = np.broadcast_arrays(np.asarray(a, dtype=np.float64), np.asarray(x, dtype=np.float64))
        p = np.full(a64.shape, np.nan)
        with np.errstate(invalid="ignore"):
            p[((a64 == 0) & (x64 > 0)) | (np.isposinf(x64) & (a64 >= 0))] = 1.0
            p[((x64 == 0) & (a64 > 0)) | (np.isposinf(a64) & (x64 >= 0) & np.isfinite(x64))] = 0.0
            inside = (a64 > 0) & (x64 > 0) & np.isfinite(a64) & np.isfinite(x64)
        out = 1.0 - p if upper else p
        if inside.any():
            ai, xi = a64[inside], x64[inside]
            summed_upper = xi >= ai + 1.0  # (the one that is summed is exact; 1 - it may not be)
            s = np.exp(ai * np.log(xi) - xi - log_gamma(ai)) * incomplete_gamma_sums(ai, xi, summed_upper)
            out[inside] = np.where(summed_upper == upper, s, 1.0 - s)
        return out.astype(np.result_type(a, x), copy=False)

    return call


class Igamma(_Binary):
    """The regularized lower incomplete gamma function ``P(a, x)`` (torch's ``igamma``,
    ``special.gammainc``); d/dx = ``x**(a-1) e**-x / Gamma(a)``; torch has no derivative in
    ``a`` (NotImplementedError when one is needed)."""

    node_name = "IgammaBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"self": 0, "other": 1}
    floating_only = True
    kernel = "igamma_cpu"
    call = staticmethod(_igamma_of(upper=False))
    sign: ClassVar[float] = 1.0

    @staticmethod
    def partials(ctx: Any, a: Tensor, x: Tensor) -> tuple[Tensor, Tensor]:
        if ctx.needs_input_grad[0]:
            raise NotImplementedError(f"the derivative for '{ctx.forward_cls.kernel[:-4]}: input' is not implemented.")
        density = ((a - 1) * Log.apply(x) - x - Lgamma.apply(a)).exp()
        return density, density * ctx.forward_cls.sign


class Igammac(Igamma):
    """The regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)`` (torch's
    ``igammac``, ``special.gammaincc``); d/dx = ``-x**(a-1) e**-x / Gamma(a)``."""

    node_name = "IgammacBackward0"
    kernel = "igammac_cpu"
    call = staticmethod(_igamma_of(upper=True))
    sign = -1.0


class Entr(_Elementwise):
    """The entropy term ``-x log x`` (``ctxgrad.special.entr``): 0 at 0, -inf below 0;
    d/dx = -(1 + log x)."""

    node_name = "SpecialEntrBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        data = x.array
        if data.dtype.kind == "c":
            raise NotImplementedError(f"\"entr_cpu\" not implemented for '{short_name(data.dtype)}'")
        data = _floating(x)
        ctx.save_for_backward(x)
        with np.errstate(all="ignore"):
            out = np.where(data > 0, -data * np.log(data), np.where(data == 0, 0.0, -np.inf))
        return as_tensor(np.where(np.isnan(data), data, out).astype(data.dtype))

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        out: Tensor = -(1 + Log.apply(x))
        return out


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


class Frexp(Function[tuple[Tensor, Tensor]]):
    """``x = mantissa * 2 ** exponent`` with ``|mantissa|`` in [0.5, 1) (0 for 0; the exponent is
    int32, not differentiable); d mantissa / dx = 2 ** -exponent."""

    vmap = elementwise_rule

    node_name = "FrexpBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> tuple[Tensor, Tensor]:
        data = x.array
        if data.dtype.kind != "f":
            raise RuntimeError("ctxgrad.frexp() only supports floating-point dtypes")
        mantissa, exponent = np.frexp(data)
        e = as_tensor(np.asarray(exponent, dtype=np.int32))
        ctx.mark_non_differentiable(e)
        with np.errstate(over="ignore"):  # 2 ** 1029 for a subnormal: inf, as torch's gradient
            ctx.scale = np.ldexp(np.ones((), dtype=data.dtype), -exponent).astype(data.dtype)
        return as_tensor(np.asarray(mantissa)), e

    @staticmethod
    def backward(ctx: Any, grad: Tensor, _: Any) -> Tensor:
        return grad * as_tensor(ctx.scale)

    @staticmethod
    def jvp(ctx: Any, tx: Tensor) -> tuple[Tensor, None]:
        return tx * as_tensor(ctx.scale), None


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


# the frontends of the functions above, and their in-place variants
def _order(n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"polygamma(): argument 'n' (position 1) must be int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return int(n)


def polygamma(n: int, input: Tensor) -> Tensor:
    """Elementwise ``n``-th derivative of :func:`digamma`."""
    return Polygamma.apply(input, _order(n))


def polygamma_method(input: Tensor, n: int) -> Tensor:
    """Elementwise ``n``-th derivative of :func:`digamma` (the method takes ``n`` second)."""
    return Polygamma.apply(input, _order(n))


class PolygammaInPlace(Polygamma):
    """``polygamma_``: torch names its node apart."""

    node_name = "PolygammaBackward1"


def polygamma_(input: Tensor, n: int) -> Tensor:
    """In place: elementwise ``n``-th derivative of :func:`digamma` (torch's node: ``PolygammaBackward1``)."""
    return write_in_place(PolygammaInPlace, input, _order(n))


def nan_to_num(input: Tensor, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None) -> Tensor:
    """NaN, +inf and -inf replaced by ``nan``, ``posinf`` and ``neginf`` (the dtype's extremes by default)."""
    return NanToNum.apply(input, nan, posinf, neginf)


def positive(input: Tensor) -> Tensor:
    """``input`` itself (``+x``), refused for bool as in torch."""
    if input.array.dtype == np.bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


class SgnReal(Sign):
    """``sgn`` of real numbers: ``sign``, under torch's node name."""

    node_name = "SgnBackward0"


def sgn(input: Tensor) -> Tensor:
    """The sign: ``z / |z|`` for complex numbers (0 at 0), ``sign`` for real ones."""
    return Sgn.apply(input) if input.array.dtype.kind == "c" else SgnReal.apply(input)


def hypot(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise ``sqrt(input² + other²)``, without overflow."""
    return Hypot.apply(_binary_tensor_args("hypot", input, other), other)


def hypot_method(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise ``sqrt(self² + other²)``, without overflow."""
    return Hypot.apply(input, tensor_arg("hypot", "other", 1, other))


def logaddexp(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise ``log(exp(input) + exp(other))``, without overflow."""
    return Logaddexp.apply(_binary_tensor_args("logaddexp", input, other), other)


def logaddexp_method(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise ``log(exp(self) + exp(other))``, without overflow."""
    return Logaddexp.apply(input, tensor_arg("logaddexp", "other", 1, other))


def logaddexp2(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise ``log2(2**input + 2**other)``, without overflow."""
    return Logaddexp2.apply(_binary_tensor_args("logaddexp2", input, other), other)


def logaddexp2_method(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise ``log2(2**self + 2**other)``, without overflow."""
    return Logaddexp2.apply(input, tensor_arg("logaddexp2", "other", 1, other))


def _number_or_tensor_arg(fn: str, name: str, value: Any) -> Any:
    value = number_or_tensor(value)
    if isinstance(value, (Tensor, int, float)):
        return value
    raise TypeError(f"{fn}(): argument '{name}' must be Tensor or Number, not {type(value).__name__}")


def xlogy(input: Any, other: Any) -> Tensor:
    """Elementwise ``input * log(other)``, 0 where ``input`` is 0 (either may be a number)."""
    a, b = _number_or_tensor_arg("xlogy", "input", input), _number_or_tensor_arg("xlogy", "other", other)
    if not isinstance(a, Tensor) and not isinstance(b, Tensor):
        raise TypeError("xlogy(): at least one of 'input' and 'other' must be a Tensor")
    return Xlogy.apply(a, b)


def igamma(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise regularized lower incomplete gamma function ``P(input, other)``."""
    return Igamma.apply(input, tensor_arg("igamma", "other", 2, other))


def igammac(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise regularized upper incomplete gamma function ``Q(input, other) = 1 - P``."""
    return Igammac.apply(input, tensor_arg("igammac", "other", 2, other))


def copysign(input: Tensor, other: Any) -> Tensor:
    """Elementwise ``|input|`` with the sign of ``other`` (a tensor or a number)."""
    return Copysign.apply(input, _number_or_tensor_arg("copysign", "other", other))


def heaviside(input: Tensor, values: Tensor) -> Tensor:
    """The step function of ``input``: 0 below 0, ``values`` at 0, 1 above."""
    return Heaviside.apply(input, tensor_arg("heaviside", "values", 2, values))


def fmax(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise maximum that ignores NaN (NaN only where both are)."""
    return Fmax.apply(_binary_tensor_args("fmax", input, other), other)


def fmin(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise minimum that ignores NaN (NaN only where both are)."""
    return Fmin.apply(_binary_tensor_args("fmin", input, other), other)


def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    """``input + value * tensor1 * tensor2``, elementwise."""
    return Addcmul.apply(input, tensor1, tensor2, number_or_tensor(value))


def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    """``input + value * tensor1 / tensor2``, elementwise."""
    return Addcdiv.apply(input, tensor1, tensor2, number_or_tensor(value))


def nan_to_num_(input: Tensor, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None) -> Tensor:
    """In place: NaN, +inf and -inf replaced by numbers."""
    return write_in_place(NanToNum, input, nan, posinf, neginf)


def sgn_(input: Tensor) -> Tensor:
    """In place: the sign (``z / |z|`` for complex numbers)."""
    return write_in_place(Sgn if input.array.dtype.kind == "c" else SgnReal, input)


def hypot_(input: Tensor, other: Tensor) -> Tensor:
    """In place: elementwise ``sqrt(self² + other²)``."""
    return write_in_place(Hypot, input, tensor_arg("hypot_", "other", 1, other))


def xlogy_(input: Tensor, other: Any) -> Tensor:
    """In place: elementwise ``self * log(other)``, 0 where ``self`` is 0."""
    return write_in_place(Xlogy, input, _number_or_tensor_arg("xlogy_", "other", other))


def copysign_(input: Tensor, other: Any) -> Tensor:
    """In place: elementwise ``|self|`` with the sign of ``other``."""
    return write_in_place(Copysign, input, _number_or_tensor_arg("copysign_", "other", other))


def addcmul_(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    """In place: ``self + value * tensor1 * tensor2``."""
    return write_in_place(Addcmul, input, tensor1, tensor2, number_or_tensor(value))


def addcdiv_(input: Tensor, tensor1: Tensor, tensor2: Tensor, *, value: Any = 1) -> Tensor:
    """In place: ``self + value * tensor1 / tensor2``."""
    return write_in_place(Addcdiv, input, tensor1, tensor2, number_or_tensor(value))


def heaviside_(input: Tensor, values: Tensor) -> Tensor:
    """In place: the step function of ``self``."""
    return write_in_place(Heaviside, input, tensor_arg("heaviside_", "values", 1, values))


def nextafter(input: Tensor, other: Tensor) -> Tensor:
    """Elementwise: the next floating-point value after ``input`` towards ``other``."""
    return Nextafter.apply(_binary_tensor_args("nextafter", input, other), other)


def nextafter_(input: Tensor, other: Tensor) -> Tensor:
    """In place: the next floating-point value after ``self`` towards ``other``."""
    return write_in_place(Nextafter, input, tensor_arg("nextafter_", "other", 1, other))


def frexp(input: Tensor) -> _return_types.frexp:
    """``(mantissa, exponent)`` with ``input = mantissa * 2 ** exponent`` and ``|mantissa|`` in [0.5, 1)."""
    return _return_types.frexp(*Frexp.apply(input))


# --------------------------------------------------------------------------- rows
#: The rows of the ops whose frontends are made from their Functions (``ctxgrad.ops._row``).
ROWS: list[Op] = [
    Op("log", Log, inplace=True, out=True, numpy=("log",)),
    Op("tanh", Tanh, inplace=True, nn_functional=True, out=True, numpy=("tanh",)),
    Op("abs", Abs, inplace=True, out=True, numpy=("absolute", "fabs"), dunders=("__abs__",)),
    Op("sign", Sign, inplace=True, out=True, numpy=("sign",)),
    Op("sqrt", Sqrt, inplace=True, out=True, numpy=("sqrt",)),
    Op("rsqrt", Rsqrt, inplace=True, out=True),
    Op("square", Square, inplace=True, out=True, numpy=("square",)),
    Op("reciprocal", Reciprocal, inplace=True, out=True, numpy=("reciprocal",)),
    Op("exp2", Exp2, inplace=True, out=True, numpy=("exp2",)),
    Op("expm1", Expm1, inplace=True, out=True, numpy=("expm1",)),
    Op("log2", Log2, inplace=True, out=True, numpy=("log2",)),
    Op("log10", Log10, inplace=True, out=True, numpy=("log10",)),
    Op("log1p", Log1p, inplace=True, out=True, numpy=("log1p",)),
    Op("sin", Sin, inplace=True, out=True, numpy=("sin",)),
    Op("cos", Cos, inplace=True, out=True, numpy=("cos",)),
    Op("tan", Tan, inplace=True, out=True, numpy=("tan",)),
    Op("asin", Asin, inplace=True, aliases=("arcsin",), out=True, numpy=("arcsin",)),
    Op("acos", Acos, inplace=True, aliases=("arccos",), out=True, numpy=("arccos",)),
    Op("atan", Atan, inplace=True, aliases=("arctan",), out=True, numpy=("arctan",)),
    Op("sinh", Sinh, inplace=True, out=True, numpy=("sinh",)),
    Op("cosh", Cosh, inplace=True, out=True, numpy=("cosh",)),
    Op("sigmoid", Sigmoid, inplace=True, nn_functional=True, out=True),
    Op("relu", Relu, inplace=True),
    Op("floor", Floor, inplace=True, out=True, numpy=("floor",)),
    Op("ceil", Ceil, inplace=True, out=True, numpy=("ceil",)),
    Op("trunc", Trunc, inplace=True, out=True, numpy=("trunc",)),
    Op("frac", Frac, inplace=True, out=True),
    Op("erf", Erf, inplace=True, out=True),
    Op("erfc", Erfc, inplace=True, out=True),
    Op("acosh", Acosh, inplace=True, aliases=("arccosh",), out=True, numpy=("arccosh",)),
    Op("asinh", Asinh, inplace=True, aliases=("arcsinh",), out=True, numpy=("arcsinh",)),
    Op("atanh", Atanh, inplace=True, aliases=("arctanh",), out=True, numpy=("arctanh",)),
    Op("deg2rad", Deg2Rad, inplace=True, out=True, numpy=("deg2rad", "radians")),
    Op("rad2deg", Rad2Deg, inplace=True, out=True, numpy=("rad2deg", "degrees")),
    Op("sinc", Sinc, inplace=True, out=True),
    Op("lgamma", Lgamma, inplace=True, out=True),
    Op("digamma", Digamma, inplace=True, out=True),
    Op("erfinv", Erfinv, inplace=True, out=True),
    Op("i0", I0, inplace=True, out=True),
    Op("logit", Logit, args=logit_args, inplace=True, out=True),
]

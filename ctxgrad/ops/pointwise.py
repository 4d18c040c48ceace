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
from ctxgrad.autograd._batched import elementwise_rule
from ctxgrad.autograd._views import write_in_place
from ctxgrad.autograd.function import Function
from ctxgrad.ops._util import arrays, broadcast_error, raw, refuse_complex, write_out


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
        y = as_tensor(cls.ufunc(_floating(x)))
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

    _backward_name = "ExpBackward0"
    holomorphic = True
    ufunc = staticmethod(np.exp)
    saves_output = True

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        y: Tensor = ctx.saved_tensors[0]
        return y


class Log(_Elementwise):
    """Natural logarithm; d/dx log x = 1 / x."""

    _backward_name = "LogBackward0"
    holomorphic = True
    ufunc = staticmethod(np.log)

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return 1 / x


class Tanh(_Elementwise):
    """Hyperbolic tangent; d/dx tanh x = 1 - tanh² x, computed from the saved output."""

    _backward_name = "TanhBackward0"
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

    _backward_name = "WhereBackward0"
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
            return as_tensor(np.where(condition.array, a, b))
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

    _backward_name = "AbsBackward0"

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

    _backward_name = "SignBackward0"
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

    _backward_name = "SgnBackward0"

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

    _backward_name = "SqrtBackward0"
    holomorphic = True
    ufunc = staticmethod(np.sqrt)
    saves_output = True

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        y: Tensor = ctx.saved_tensors[0]
        return 1 / (2 * y)


class Rsqrt(_Elementwise):
    """``1 / sqrt(x)``; d/dx = -y³ / 2, from the saved output."""

    _backward_name = "RsqrtBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"result": 0}
    holomorphic = True

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        y = as_tensor(1 / np.sqrt(_floating(x)))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        y: Tensor = ctx.saved_tensors[0]
        return -0.5 * y * y * y


class Square(_Elementwise):
    """``x * x`` (integers stay integers); torch records it as ``pow(x, 2)``."""

    _backward_name = "PowBackward0"
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

    _backward_name = "ReciprocalBackward0"
    holomorphic = True
    ufunc = staticmethod(np.reciprocal)
    saves_output = True

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        y: Tensor = ctx.saved_tensors[0]
        return -(y * y)


class Exp2(_Elementwise):
    """``2 ** x``; d/dx = y ln 2."""

    _backward_name = "Exp2Backward0"
    holomorphic = True
    ufunc = staticmethod(np.exp2)
    saves_output = True

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        y: Tensor = ctx.saved_tensors[0]
        return y * _LN2


class Expm1(_Elementwise):
    """``e ** x - 1``, accurate near 0; d/dx = y + 1."""

    _backward_name = "Expm1Backward0"
    holomorphic = True
    ufunc = staticmethod(np.expm1)
    saves_output = True

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        y: Tensor = ctx.saved_tensors[0]
        return y + 1


class Log2(_Elementwise):
    """Base-2 logarithm; d/dx = 1 / (x ln 2)."""

    _backward_name = "Log2Backward0"
    holomorphic = True
    ufunc = staticmethod(np.log2)

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return 1 / (x * _LN2)


class Log10(_Elementwise):
    """Base-10 logarithm; d/dx = 1 / (x ln 10)."""

    _backward_name = "Log10Backward0"
    holomorphic = True
    ufunc = staticmethod(np.log10)

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return 1 / (x * _LN10)


class Log1p(_Elementwise):
    """``log(1 + x)``, accurate near 0; d/dx = 1 / (1 + x)."""

    _backward_name = "Log1PBackward0"
    holomorphic = True
    ufunc = staticmethod(np.log1p)

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return 1 / (x + 1)


class Sin(_Elementwise):
    """Sine; d/dx sin x = cos x."""

    _backward_name = "SinBackward0"
    holomorphic = True
    ufunc = staticmethod(np.sin)

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return Cos.apply(x)


class Cos(_Elementwise):
    """Cosine; d/dx cos x = -sin x."""

    _backward_name = "CosBackward0"
    holomorphic = True
    ufunc = staticmethod(np.cos)

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return -Sin.apply(x)


class Tan(_Elementwise):
    """Tangent; d/dx tan x = 1 + tan² x, from the saved output."""

    _backward_name = "TanBackward0"
    holomorphic = True
    ufunc = staticmethod(np.tan)
    saves_output = True

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        y: Tensor = ctx.saved_tensors[0]
        return 1 + y * y


class Asin(_Elementwise):
    """Arcsine; d/dx = 1 / sqrt(1 - x²)."""

    _backward_name = "AsinBackward0"
    holomorphic = True
    ufunc = staticmethod(np.arcsin)

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return Rsqrt.apply(1 - x * x)


class Acos(_Elementwise):
    """Arccosine; d/dx = -1 / sqrt(1 - x²)."""

    _backward_name = "AcosBackward0"
    holomorphic = True
    ufunc = staticmethod(np.arccos)

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return -Rsqrt.apply(1 - x * x)


class Atan(_Elementwise):
    """Arctangent; d/dx = 1 / (1 + x²)."""

    _backward_name = "AtanBackward0"
    holomorphic = True
    ufunc = staticmethod(np.arctan)

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return 1 / (x * x + 1)


class Sinh(_Elementwise):
    """Hyperbolic sine; d/dx sinh x = cosh x."""

    _backward_name = "SinhBackward0"
    holomorphic = True
    ufunc = staticmethod(np.sinh)

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return Cosh.apply(x)


class Cosh(_Elementwise):
    """Hyperbolic cosine; d/dx cosh x = sinh x."""

    _backward_name = "CoshBackward0"
    holomorphic = True
    ufunc = staticmethod(np.cosh)

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return Sinh.apply(x)


class Sigmoid(_Elementwise):
    """``1 / (1 + e ** -x)``; d/dx = y (1 - y), from the saved output."""

    _backward_name = "SigmoidBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"result": 0}
    holomorphic = True

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        with np.errstate(over="ignore"):  # exp(-x) overflows to inf for x << 0: the result, 0, is exact
            y = as_tensor(1 / (1 + np.exp(-_floating(x))))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        y: Tensor = ctx.saved_tensors[0]
        return y * (1 - y)


class Relu(_Elementwise):
    """``max(x, 0)`` (integers stay integers); the gradient passes where the output is positive."""

    _backward_name = "ReluBackward0"
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

    _backward_name = "FloorBackward0"
    rounding = np.floor
    kernel = "floor_vml_cpu"


class Ceil(_Rounding):
    """Round up."""

    _backward_name = "CeilBackward0"
    rounding = np.ceil
    kernel = "ceil_vml_cpu"


class Round(_Rounding):
    """Round to the nearest integer, halves to even."""

    _backward_name = "RoundBackward0"
    rounding = np.round
    kernel = "round_vml_cpu"


class Trunc(_Rounding):
    """Round toward zero."""

    _backward_name = "TruncBackward0"
    rounding = np.trunc
    kernel = "trunc_vml_cpu"


class Frac(Function[Tensor]):
    """``x - trunc(x)`` (floating inputs only, as torch); the gradient passes through."""

    vmap = elementwise_rule

    _backward_name = "FracBackward0"
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

    _backward_name = "ErfBackward0"

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

    _backward_name = "ErfcBackward0"

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

    _backward_name = "Atan2Backward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        x, y = arrays(a, b)
        refuse_complex(ctx, x, y)
        if x.dtype.kind in "iub":
            x, y = x.astype(get_default_dtype()), y.astype(get_default_dtype())
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

    _backward_name = "LogitBackward0"
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
        return as_tensor(np.log(data / (1 - data)))

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

    _backward_name = "MaximumBackward0"
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

    _backward_name = "MinimumBackward0"
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

    _backward_name = "ClampBackward1"
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

    _backward_name = "ClampMinBackward0"


class ClampMaxScalar(ClampScalar):
    """``min(x, hi)`` for a number ``hi`` (``clamp_max``)."""

    _backward_name = "ClampMaxBackward0"


class ClampTensor(Function[Tensor]):
    """``min(max(x, lo), hi)`` with tensor bounds (either may be None), broadcast together.

    The gradient goes to ``x`` where ``lo <= x <= hi``, to ``lo`` where ``x < lo < hi`` and
    to ``hi`` where ``x > hi`` or ``hi < lo`` (torch's rule, also for NaN and crossed bounds).
    """

    vmap = elementwise_rule

    _backward_name = "ClampBackward0"
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

    _backward_name = "ClampMinBackward1"
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

    _backward_name = "ClampMaxBackward1"
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

    _backward_name = "LerpBackward0"
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

    _backward_name = "LerpBackward1"
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, start: Tensor, end: Tensor, weight: Tensor) -> Tensor:
        x, y = _lerp_operands(start, end, weight)
        w = weight.array
        _check_broadcast(x, y, w)
        ctx.save_for_backward(start, end, weight)
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

    _backward_name = "LeakyReluBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, negative_slope: float) -> Tensor:
        data = _floating_only(x, "leaky_relu_cpu")
        ctx.save_for_backward(x)
        ctx.slope = negative_slope
        return as_tensor(np.where(data > 0, data, data * negative_slope))

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

    _backward_name = "EluBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, alpha: float) -> Tensor:
        data = _floating_only(x, "elu_cpu")
        positive = data > 0
        y = as_tensor(np.where(positive, data, alpha * np.expm1(np.where(positive, 0.0, data))))
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

    _backward_name = "GeluBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, approximate: str) -> Tensor:
        data = _floating_only(x, "GeluKernelImpl")
        ctx.save_for_backward(x)
        ctx.approximate = approximate
        if approximate == "tanh":
            inner = _SQRT_2_OVER_PI * (data + _GELU_KAPPA * data * data * data)
            return as_tensor(0.5 * data * (1 + np.tanh(inner)))
        return as_tensor(data * (0.5 * (1 + _per_element(math.erf, data * _SQRT1_2))))

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


class Silu(Function[Tensor]):
    """``x * sigmoid(x)``; d/dx = s (1 + x (1 - s)) with s = sigmoid(x)."""

    vmap = elementwise_rule

    _backward_name = "SiluBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        data = _floating_only(x, "silu_cpu")
        ctx.save_for_backward(x)
        with np.errstate(over="ignore"):  # exp(-x) overflows to inf for x << 0: x / inf is the exact -0.0
            return as_tensor(data / (1 + np.exp(-data)))

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

    _backward_name = "SoftplusBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, beta: float, threshold: float) -> Tensor:
        data = _floating_only(x, "softplus_cpu")
        z = data * beta
        ctx.save_for_backward(x)
        ctx.params = (beta, threshold)
        soft = np.log1p(np.exp(np.minimum(z, threshold))) / beta
        return as_tensor(np.where(z > threshold, data, soft))

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


def log(input: Tensor) -> Tensor:
    """Elementwise natural logarithm."""
    return Log.apply(input)


def tanh(input: Tensor) -> Tensor:
    """Elementwise hyperbolic tangent."""
    return Tanh.apply(input)


def abs(input: Tensor) -> Tensor:
    """Elementwise absolute value."""
    return Abs.apply(input)


def sign(input: Tensor) -> Tensor:
    """Elementwise sign: -1, 0 or 1."""
    return Sign.apply(input)


def sqrt(input: Tensor) -> Tensor:
    """Elementwise square root."""
    return Sqrt.apply(input)


def rsqrt(input: Tensor) -> Tensor:
    """Elementwise ``1 / sqrt(x)``."""
    return Rsqrt.apply(input)


def square(input: Tensor) -> Tensor:
    """Elementwise ``x * x``."""
    return Square.apply(input)


def reciprocal(input: Tensor) -> Tensor:
    """Elementwise ``1 / x``."""
    return Reciprocal.apply(input)


def exp2(input: Tensor) -> Tensor:
    """Elementwise ``2 ** x``."""
    return Exp2.apply(input)


def expm1(input: Tensor) -> Tensor:
    """Elementwise ``e ** x - 1``."""
    return Expm1.apply(input)


def log2(input: Tensor) -> Tensor:
    """Elementwise base-2 logarithm."""
    return Log2.apply(input)


def log10(input: Tensor) -> Tensor:
    """Elementwise base-10 logarithm."""
    return Log10.apply(input)


def log1p(input: Tensor) -> Tensor:
    """Elementwise ``log(1 + x)``."""
    return Log1p.apply(input)


def sin(input: Tensor) -> Tensor:
    """Elementwise sine."""
    return Sin.apply(input)


def cos(input: Tensor) -> Tensor:
    """Elementwise cosine."""
    return Cos.apply(input)


def tan(input: Tensor) -> Tensor:
    """Elementwise tangent."""
    return Tan.apply(input)


def asin(input: Tensor) -> Tensor:
    """Elementwise arcsine."""
    return Asin.apply(input)


def acos(input: Tensor) -> Tensor:
    """Elementwise arccosine."""
    return Acos.apply(input)


def atan(input: Tensor) -> Tensor:
    """Elementwise arctangent."""
    return Atan.apply(input)


def sinh(input: Tensor) -> Tensor:
    """Elementwise hyperbolic sine."""
    return Sinh.apply(input)


def cosh(input: Tensor) -> Tensor:
    """Elementwise hyperbolic cosine."""
    return Cosh.apply(input)


def sigmoid(input: Tensor) -> Tensor:
    """Elementwise logistic sigmoid ``1 / (1 + e ** -x)``."""
    return Sigmoid.apply(input)


def relu(input: Tensor) -> Tensor:
    """Elementwise ``max(x, 0)``."""
    return Relu.apply(input)


def floor(input: Tensor) -> Tensor:
    """Elementwise round down."""
    return Floor.apply(input)


def ceil(input: Tensor) -> Tensor:
    """Elementwise round up."""
    return Ceil.apply(input)


def round(input: Tensor) -> Tensor:
    """Elementwise round to nearest, halves to even."""
    return Round.apply(input)


def trunc(input: Tensor) -> Tensor:
    """Elementwise round toward zero."""
    return Trunc.apply(input)


def frac(input: Tensor) -> Tensor:
    """Elementwise fractional part, ``x - trunc(x)``."""
    return Frac.apply(input)


def erf(input: Tensor) -> Tensor:
    """Elementwise error function."""
    return Erf.apply(input)


def erfc(input: Tensor) -> Tensor:
    """Elementwise complementary error function ``1 - erf(x)``."""
    return Erfc.apply(input)


def logit(input: Tensor, eps: Any = None) -> Tensor:
    """Elementwise ``log(x / (1 - x))``, with x clamped to ``[eps, 1 - eps]`` when ``eps`` is given."""
    return Logit.apply(input, None if eps is None else float(eps))


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
# Each is its op's Function made in place (ctxgrad.autograd._views.in_place: it writes into
# ``input`` and marks it dirty), after torch's checks that ``input`` may be changed.
def exp_(input: Tensor) -> Tensor:
    """In place: elementwise ``e ** x``."""
    return write_in_place(Exp, input)


def log_(input: Tensor) -> Tensor:
    """In place: elementwise natural logarithm."""
    return write_in_place(Log, input)


def tanh_(input: Tensor) -> Tensor:
    """In place: elementwise hyperbolic tangent."""
    return write_in_place(Tanh, input)


def abs_(input: Tensor) -> Tensor:
    """In place: elementwise absolute value."""
    return write_in_place(Abs, input)


def sqrt_(input: Tensor) -> Tensor:
    """In place: elementwise square root."""
    return write_in_place(Sqrt, input)


def sigmoid_(input: Tensor) -> Tensor:
    """In place: elementwise logistic sigmoid."""
    return write_in_place(Sigmoid, input)


def relu_(input: Tensor) -> Tensor:
    """In place: elementwise ``max(x, 0)``."""
    return write_in_place(Relu, input)


def clamp_(input: Tensor, min: Any = None, max: Any = None) -> Tensor:
    """In place: elementwise ``min(max(x, min), max)``."""
    function, lo, hi = _clamp_function(min, max, "clamp")
    return write_in_place(function, input, lo, hi)


def clip_(input: Tensor, min: Any = None, max: Any = None) -> Tensor:
    """In place: alias of :func:`clamp_`."""
    function, lo, hi = _clamp_function(min, max, "clip")
    return write_in_place(function, input, lo, hi)

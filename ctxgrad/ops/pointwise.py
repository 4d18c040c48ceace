"""Pointwise functions of one tensor: ``exp``, ``log``, ``sin``, ``sqrt``, the rounding ops,
``erf``, ``sign``/``sgn``, ``nan_to_num``, ``frexp``, and ``where``; with the machinery the
other pointwise modules share (:class:`_Elementwise`, :func:`_in_float64`, the argument
helpers :func:`tensor_arg` and :func:`tensor_operands`).

The other pointwise families live beside this module: ``binary`` (``atan2``, ``maximum``,
``clamp``, ``lerp``, ``hypot``, ``addcmul``, ...), ``special_functions`` (the gamma family,
``erfinv``, the Bessel functions, ``igamma``, ...) and ``activations`` (``relu``, ``gelu``,
``elu``, ... and the Functions of ``nn.functional``'s activations).

Each backward is written in ctxgrad ops, so that it can itself be differentiated."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from ctxgrad._dtypes import fill_value_as, get_default_dtype, promote_operands, result_dtype, short_name
from ctxgrad._tensor import Tensor, as_tensor
from ctxgrad.autograd.batching import elementwise_rule
from ctxgrad.autograd.function import Function
from ctxgrad.autograd.inplace import write_in_place
from ctxgrad.ops import _return_types, _special_kernels
from ctxgrad.ops._row import Op
from ctxgrad.ops._util import (
    broadcast_error,
    keep_dtype,
    raw,
    refuse_complex,
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


def _mask(values: Any) -> Tensor:
    """A bool NumPy result as a constant tensor (a condition for :class:`Where`)."""
    return as_tensor(np.asarray(values))


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


def _in_float64(
    kernel: Callable[[np.ndarray[Any, Any]], np.ndarray[Any, Any]], data: np.ndarray[Any, Any]
) -> np.ndarray[Any, Any]:
    """``kernel`` (a float64 array kernel of ``ops._special_kernels``: NumPy has no ``erf``) of
    ``data``, computed in float64 and returned in ``data``'s floating dtype."""
    out: np.ndarray[Any, Any] = kernel(data.astype(np.float64, copy=False)).astype(data.dtype, copy=False)
    return out


class Erf(_Elementwise):
    """The error function; d/dx erf x = 2 / sqrt(pi) * exp(-x²)."""

    node_name = "ErfBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        refuse_complex(ctx, x.array)
        ctx.save_for_backward(x)
        return as_tensor(_in_float64(_special_kernels.erf, _floating(x)))

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
        return as_tensor(_in_float64(_special_kernels.erfc, _floating(x)))

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return Exp.apply(-(x * x)) * -_TWO_OVER_SQRT_PI


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


# --------------------------------------------------------------------------- argument handlers and frontends
# An op whose frontend would only pass its arguments on to ``Function.apply`` is made from its
# Function by its row (``ROWS``, below).  What is written here is an argument handler a row
# names (``logit_args``; ``tensor_operands``, shared by the two-tensor ops of every pointwise
# module), or the frontend of an op that chooses between Functions (``round``, ``sgn``), its
# in-place variant beside it.


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


def tensor_operands(name: str, input: Tensor, other: Tensor) -> tuple[Tensor, Tensor]:
    """The arguments of a two-tensor op (``atan2``, ``maximum``, ``gcd``, ...), after torch's
    TypeError for one that is not a tensor: a function counts positions from 1 with ``input``,
    the in-place variant (``atan2_``, a method) from 1 after ``self``."""
    if name.endswith("_"):
        return input, tensor_arg(name, "other", 1, other)
    tensor_arg(name, "other", 2, other)
    return tensor_arg(name, "input", 1, input), other


def logit_args(name: str, input: Tensor, eps: float | None = None) -> tuple[Tensor, float | None]:
    """``logit``'s arguments (``eps`` a number, or None for no clamping)."""
    return input, None if eps is None else float(eps)


def round(input: Tensor, *, decimals: int = 0) -> Tensor:
    """Elementwise round to nearest (to ``decimals`` decimal places), halves to even."""
    if decimals:
        return RoundDecimals.apply(input, int(decimals))
    return Round.apply(input)


def round_(input: Tensor, *, decimals: int = 0) -> Tensor:
    """In place: elementwise round to nearest (to ``decimals`` decimal places), halves to even."""
    if decimals:
        return write_in_place(RoundDecimals, input, int(decimals))
    return write_in_place(Round, input)


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


def sgn_(input: Tensor) -> Tensor:
    """In place: the sign (``z / |z|`` for complex numbers)."""
    return write_in_place(Sgn if input.array.dtype.kind == "c" else SgnReal, input)


def frexp(input: Tensor) -> _return_types.frexp:
    """``(mantissa, exponent)`` with ``input = mantissa * 2 ** exponent`` and ``|mantissa|`` in [0.5, 1)."""
    return _return_types.frexp(*Frexp.apply(input))


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


# --------------------------------------------------------------------------- rows
#: The rows of this module's ops (``ctxgrad.ops._row``), gathered by ``ctxgrad.ops.table``.
ROWS: list[Op] = [
    Op("log", Log, inplace=True, out=True, numpy=("log",)),
    Op("tanh", Tanh, inplace=True, nn_functional=True, out=True, numpy=("tanh",)),
    Op("abs", Abs, inplace=True, out=True, numpy=("absolute", "fabs"), dunders=("__abs__",), aliases=("absolute",)),
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
    Op("logit", Logit, args=logit_args, inplace=True, out=True),
    Op("exp", Exp, inplace=True, out=True, numpy=("exp",)),
    Op("round", round, inplace=round_, out=True, numpy=("rint",)),
    Op(
        "nan_to_num",
        NanToNum,
        params="input: Tensor, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None",
        inplace=True,
        out=True,
    ),
    Op("positive", positive, dunders=("__pos__",), numpy=("positive",)),
    Op("sgn", sgn, inplace=sgn_, out=True),
    Op("frexp", frexp, out=True),
    Op("where", where, method=False, out=True),
]

"""Activations: ``relu``, ``leaky_relu``, ``elu``, ``gelu``, ``silu`` and ``softplus``, each a
Function with its own derivative, and the activations of ``nn.functional`` that are short
formulas of existing ops (``hardtanh``, ``selu``, ``celu``, ``mish``, ``hardswish``,
``hardsigmoid``, ``threshold``, ``rrelu``), each recorded as one node.

A formula activation is a :class:`Composite`: a Function whose ``forward`` evaluates the
formula (:attr:`Composite.formula`) and whose ``backward`` differentiates that formula at the
saved input with :func:`ctxgrad.autograd.grad` (recording it when a graph of the gradient is
being built, so double backward and forward mode come from the ops of the formula).  So the
node is torch's (``HardtanhBackward0``), and ``inplace=True`` is the Function made in place
(:func:`ctxgrad.autograd.inplace.write_in_place`), as for every built-in in-place op: its
forward, the result written into the input, marked dirty.  torch names some in-place nodes
apart (``EluBackward1``): a subclass declares that ``node_name``.

``nn.functional`` (``ctxgrad/nn/_functional_activations.py``) holds their frontends."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from ctxgrad._dtypes import short_name
from ctxgrad._tensor import Tensor, as_tensor
from ctxgrad.autograd import Function, enable_grad, grad, is_grad_enabled
from ctxgrad.autograd.batching import BatchedTensor, elementwise_rule
from ctxgrad.ops import _special_kernels
from ctxgrad.ops._row import Op
from ctxgrad.ops._util import keep_dtype, refuse_complex
from ctxgrad.ops.pointwise import (
    Erf,
    Exp,
    Sigmoid,
    Sign,
    Tanh,
    Where,
    _Elementwise,
    _in_float64,
    _mask,
    where,
)

_SQRT1_2 = math.sqrt(0.5)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_GELU_KAPPA = 0.044715


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
        return as_tensor(
            keep_dtype(data * (0.5 * (1 + _in_float64(_special_kernels.erf, data * _SQRT1_2))), data.dtype)
        )

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
        if x.is_complex():  # torch computes the values, and refuses their gradient
            if ctx.needs_input_grad[0]:
                raise RuntimeError("silu does not support automatic differentiation for outputs with complex dtype.")
            data = x.array
        else:
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


# --------------------------------------------------------------------------- activations as formulas of ops
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _where(condition: Tensor, input: Any, other: Any) -> Tensor:
    out: Tensor = where(condition, input, other)
    return out


def strict_clamp(input: Tensor, min_val: float, max_val: float) -> Tensor:
    """``clamp(x, min_val, max_val)`` with no gradient at the bounds themselves (torch's
    ``hardtanh``: the gradient passes only where ``min_val < x < max_val``)."""
    inside = (input > min_val).logical_and(input < max_val)
    return _where(inside, input, input.detach().clamp(min_val, max_val))


class Composite(Function[Tensor]):
    """An elementwise activation given as a formula of ctxgrad ops (``formula(x, *params)``),
    recorded as one node; its gradient is the formula's, taken at the saved input."""

    vmap = elementwise_rule
    skips_without_gradient = True
    formula: ClassVar[Callable[..., Tensor]]

    @staticmethod
    def forward(ctx: Any, x: Tensor, *params: Any) -> Tensor:
        ctx.save_for_backward(x)
        ctx.params = params
        out: Tensor = ctx.forward_cls.formula(x, *params)
        return out

    @staticmethod
    def backward(ctx: Any, grad_output: Tensor) -> tuple[Any, ...]:
        (x,) = ctx.saved_tensors
        building = is_grad_enabled()  # (a graph of the gradient: double backward)
        with enable_grad():
            at = x
            if not (building and x.requires_grad):
                at = x.detach()
                at.requires_grad = True  # (the setter: requires_grad_() is refused inside a transform)
            y = ctx.forward_cls.formula(at, *ctx.params)
            (g,) = grad(y, at, grad_output, create_graph=building)
        return (g, *(None for _ in ctx.params))


class Hardtanh(Composite):
    node_name = "HardtanhBackward0"
    formula = staticmethod(strict_clamp)


class Selu(Composite):
    node_name = "EluBackward0"  # torch's selu is its elu, scaled
    formula = staticmethod(lambda x: Elu.apply(x, SELU_ALPHA) * SELU_SCALE)


class SeluInPlace(Selu):
    node_name = "EluBackward1"


def _celu(x: Tensor, alpha: float) -> Tensor:
    negative = (x.clamp(max=0.0) / alpha).expm1() * alpha  # no overflow where x > 0
    return _where(x > 0, x, negative)


class Celu(Composite):
    node_name = "CeluBackward0"
    formula = staticmethod(_celu)


class CeluInPlace(Celu):
    node_name = "CeluBackward1"


class Mish(Composite):
    node_name = "MishBackward0"
    formula = staticmethod(lambda x: x * Softplus.apply(x, 1.0, 20.0).tanh())


class Hardswish(Composite):
    node_name = "HardswishBackward0"
    formula = staticmethod(lambda x: x * strict_clamp(x + 3.0, 0.0, 6.0) / 6.0)


class Hardsigmoid(Composite):
    node_name = "HardsigmoidBackward0"
    formula = staticmethod(lambda x: strict_clamp(x + 3.0, 0.0, 6.0) / 6.0)


class Threshold(Composite):
    node_name = "ThresholdBackward0"
    formula = staticmethod(lambda x, threshold, value: _where(x > threshold, x, value))


class ThresholdInPlace(Threshold):
    node_name = "ThresholdBackward1"


def _rrelu(x: Tensor, slope: Any) -> Tensor:
    if isinstance(slope, np.ndarray):  # training: a slope drawn for each element (a constant)
        return _where(x >= 0, x, x * as_tensor(slope))
    return LeakyRelu.apply(x, slope)  # evaluation: the mean slope


class Rrelu(Composite):
    node_name = "RreluWithNoiseBackward0"
    formula = staticmethod(_rrelu)


class RreluInPlace(Rrelu):
    node_name = "RreluWithNoiseBackward1"


# --------------------------------------------------------------------------- argument handlers
def _floating(input: Tensor, kernel: str) -> None:
    """torch's refusal of integer and bool inputs to a floating-point kernel (a batch under
    vmap is checked sample by sample, by the Function)."""
    if not isinstance(input, BatchedTensor):
        _floating_only(input, kernel)


def leaky_relu_args(name: str, input: Tensor, negative_slope: float = 0.01) -> tuple[Tensor, float]:
    """``leaky_relu``'s arguments (the slope a float)."""
    return input, float(negative_slope)


def elu_args(name: str, input: Tensor, alpha: float = 1.0) -> tuple[Tensor, float]:
    """``elu``'s arguments (``alpha`` a float)."""
    return input, float(alpha)


def gelu_args(name: str, input: Tensor, *, approximate: str = "none") -> tuple[Tensor, str]:
    """``gelu``'s arguments: ``approximate`` is ``'none'`` or ``'tanh'``, as torch checks."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return input, approximate


def softplus_args(name: str, input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> tuple[Tensor, float, float]:
    """``softplus``'s arguments (numbers as floats)."""
    return input, float(beta), float(threshold)


def hardtanh_args(name: str, input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> tuple[Tensor, float, float]:
    """``hardtanh``'s arguments: the interval, checked as torch checks it."""
    if input.is_complex():
        raise NotImplementedError("clamp is not supported for complex types")
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return input, float(min_val), float(max_val)


def celu_args(name: str, input: Tensor, alpha: float = 1.0) -> tuple[Tensor, float]:
    """``celu``'s arguments: a nonzero ``alpha``, a floating input."""
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")
    _floating(input, "elu_cpu")
    return input, float(alpha)


def _floating_input(kernel: str) -> Callable[..., tuple[Tensor]]:
    """The handler of an activation of one floating input (``mish``: kernel ``mish_cpu``)."""

    def handler(name: str, input: Tensor) -> tuple[Tensor]:
        _floating(input, kernel)
        return (input,)

    handler.__name__ = handler.__qualname__ = f"{kernel.removesuffix('_cpu')}_args"
    return handler


mish_args = _floating_input("mish_cpu")
hardswish_args = _floating_input("hardswish_cpu")
hardsigmoid_args = _floating_input("hardsigmoid_cpu")


# --------------------------------------------------------------------------- rows
#: The rows of this module's ops (``ctxgrad.ops._row``), gathered by ``ctxgrad.ops.table``.
#: Most are ``torch.nn.functional``'s only; ``inplace_keyword`` gives them torch's
#: ``inplace=False``, which runs the in-place variant (under torch's node name for it, where
#: the row names a subclass: ``EluInPlace``).
ROWS: list[Op] = [
    Op("relu", Relu, inplace=True, nn_functional=True, inplace_keyword=True, nn_inplace=True),
    Op(
        "leaky_relu",
        LeakyRelu,
        args=leaky_relu_args,
        inplace=LeakyReluInPlace,
        inplace_keyword=True,
        nn_inplace=True,
        function=False,
        method=False,
        nn_functional=True,
    ),
    Op(
        "elu",
        Elu,
        args=elu_args,
        inplace=EluInPlace,
        inplace_keyword=True,
        nn_inplace=True,
        function=False,
        method=False,
        nn_functional=True,
    ),
    Op("gelu", Gelu, args=gelu_args, function=False, method=False, nn_functional=True),
    Op("silu", Silu, inplace=True, inplace_keyword=True, function=False, method=False, nn_functional=True),
    Op("softplus", Softplus, args=softplus_args, function=False, method=False, nn_functional=True),
    Op(
        "hardtanh",
        Hardtanh,
        args=hardtanh_args,
        inplace=True,
        inplace_keyword=True,
        nn_inplace=True,
        function=False,
        method=False,
        nn_functional=True,
    ),
    Op("selu", Selu, inplace=SeluInPlace, method=False, nn_functional=True, inplace_keyword=True, nn_inplace=True),
    Op(
        "celu",
        Celu,
        args=celu_args,
        inplace=CeluInPlace,
        method=False,
        nn_functional=True,
        inplace_keyword=True,
        nn_inplace=True,
    ),
    Op(
        "mish",
        Mish,
        args=mish_args,
        inplace=True,
        inplace_keyword=True,
        function=False,
        method=False,
        nn_functional=True,
    ),
    Op(
        "hardswish",
        Hardswish,
        args=hardswish_args,
        inplace=True,
        inplace_keyword=True,
        function=False,
        method=False,
        nn_functional=True,
    ),
    Op(
        "hardsigmoid",
        Hardsigmoid,
        args=hardsigmoid_args,
        inplace=True,
        inplace_keyword=True,
        function=False,
        method=False,
        nn_functional=True,
    ),
]

"""The activations of ``nn.functional`` written in ctxgrad ops, each recorded as one node.

``hardtanh``, ``celu``, ``mish``, ... are short formulas of existing ops.  Each is a
:class:`Composite`: a Function whose ``forward`` evaluates the formula (:attr:`Composite.formula`)
and whose ``backward`` differentiates that formula at the saved input with
:func:`ctxgrad.autograd.grad` (recording it when a graph of the gradient is being built, so
double backward and forward mode come from the ops of the formula).  So the node is torch's
(``HardtanhBackward0``), and ``inplace=True`` is the Function made in place
(:func:`ctxgrad.autograd.inplace.write_in_place`), as for every built-in in-place op: its
forward, the result written into the input, marked dirty.  torch names some in-place nodes
apart (``EluBackward1``): a subclass declares that ``node_name``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from ctxgrad._tensor import Tensor, as_tensor
from ctxgrad.autograd import Function, enable_grad, grad, is_grad_enabled
from ctxgrad.autograd.batching import elementwise_rule
from ctxgrad.ops import pointwise as _pointwise

__all__ = [
    "Celu",
    "CeluInPlace",
    "Composite",
    "Hardsigmoid",
    "Hardswish",
    "Hardtanh",
    "Mish",
    "Rrelu",
    "RreluInPlace",
    "Selu",
    "SeluInPlace",
    "Threshold",
    "ThresholdInPlace",
]

SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _where(condition: Tensor, input: Any, other: Any) -> Tensor:
    out: Tensor = _pointwise.where(condition, input, other)
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
            at = x if building and x.requires_grad else x.detach().requires_grad_()
            y = ctx.forward_cls.formula(at, *ctx.params)
            (g,) = grad(y, at, grad_output, create_graph=building)
        return (g, *(None for _ in ctx.params))


class Hardtanh(Composite):
    node_name = "HardtanhBackward0"
    formula = staticmethod(strict_clamp)


class Selu(Composite):
    node_name = "EluBackward0"  # torch's selu is its elu, scaled
    formula = staticmethod(lambda x: _pointwise.Elu.apply(x, SELU_ALPHA) * SELU_SCALE)


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
    formula = staticmethod(lambda x: x * _pointwise.Softplus.apply(x, 1.0, 20.0).tanh())


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
    return _pointwise.LeakyRelu.apply(x, slope)  # evaluation: the mean slope


class Rrelu(Composite):
    node_name = "RreluWithNoiseBackward0"
    formula = staticmethod(_rrelu)


class RreluInPlace(Rrelu):
    node_name = "RreluWithNoiseBackward1"

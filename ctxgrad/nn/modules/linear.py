"""``Identity``, ``Linear`` and ``Bilinear``.

>>> import ctxgrad
>>> from ctxgrad import nn
>>> layer = nn.Linear(3, 2)
>>> layer
Linear(in_features=3, out_features=2, bias=True)
>>> layer(ctxgrad.ones(4, 3)).shape
ctxgrad.Size([4, 2])
"""

from __future__ import annotations

import math
from typing import Any

from ctxgrad._factories import empty
from ctxgrad._tensor import Tensor
from ctxgrad.nn import functional as F
from ctxgrad.nn import init
from ctxgrad.nn.modules.module import Module
from ctxgrad.nn.parameter import Parameter

__all__ = ["Bilinear", "Identity", "Linear"]


class Identity(Module):
    """Returns its input (a placeholder; any constructor arguments are ignored)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__()

    def forward(self, input: Tensor) -> Tensor:
        return input


class Linear(Module):
    """``y = x @ weight.T + bias`` with ``weight`` of shape ``(out_features, in_features)``.

    Initialised as in torch: ``weight`` and ``bias`` from U(-1/√in_features, 1/√in_features)
    (``kaiming_uniform_`` with ``a=√5`` gives that bound for the weight).
    """

    in_features: int
    out_features: int
    weight: Parameter
    bias: Parameter | None

    def __init__(
        self, in_features: int, out_features: int, bias: bool = True, device: Any = None, dtype: Any = None
    ) -> None:
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = Parameter(empty((out_features, in_features), dtype=dtype, device=device))
        if bias:
            self.bias = Parameter(empty(out_features, dtype=dtype, device=device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw fresh weights from torch's default distributions."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in = self.weight.shape[1]
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input: Tensor) -> Tensor:
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Bilinear(Module):
    """``y[k] = x1ᵀ weight[k] x2 + bias[k]``; weight and bias from U(-1/√in1_features, 1/√in1_features)."""

    weight: Parameter
    bias: Parameter | None

    def __init__(
        self,
        in1_features: int,
        in2_features: int,
        out_features: int,
        bias: bool = True,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        self.in1_features = in1_features
        self.in2_features = in2_features
        self.out_features = out_features
        self.weight = Parameter(empty((out_features, in1_features, in2_features), dtype=dtype, device=device))
        if bias:
            self.bias = Parameter(empty(out_features, dtype=dtype, device=device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw fresh weights from torch's default distributions."""
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1: Tensor, input2: Tensor) -> Tensor:
        return F.bilinear(input1, input2, self.weight, self.bias)

    def extra_repr(self) -> str:
        return (
            f"in1_features={self.in1_features}, in2_features={self.in2_features}, "
            f"out_features={self.out_features}, bias={self.bias is not None}"
        )

"""``Conv1d`` and ``Conv2d``: cross-correlation layers (see :func:`ctxgrad.nn.functional.conv2d`).

>>> import ctxgrad
>>> from ctxgrad import nn
>>> conv = nn.Conv2d(3, 8, kernel_size=3, padding=1)
>>> conv
Conv2d(3, 8, kernel_size=(3, 3), stride=(1, 1), padding=(1, 1))
>>> conv(ctxgrad.ones(2, 3, 5, 5)).shape
ctxgrad.Size([2, 8, 5, 5])
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

__all__ = ["Conv1d", "Conv2d", "Conv3d", "ConvTranspose1d", "ConvTranspose2d"]

_PADDING_MODES = ("zeros", "reflect", "replicate", "circular")


def _ntuple(value: Any, n: int) -> tuple[int, ...]:
    if isinstance(value, int):
        return (value,) * n
    items = tuple(int(v) for v in value)
    return items * n if len(items) == 1 else items


class _ConvNd(Module):
    """What Conv1d and Conv2d share: the parameters, their initialisation and the repr."""

    weight: Parameter
    bias: Parameter | None
    _dims: int = 2
    _transposed: bool = False

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        dilation: Any = 1,
        groups: int = 1,
        bias: bool = True,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        super().__init__()
        n = self._dims
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of {{'valid', 'same'}}")
            if padding == "same" and any(s != 1 for s in _ntuple(stride, n)):
                raise ValueError("padding='same' is not supported for strided convolutions")
        if padding_mode not in _PADDING_MODES:
            raise ValueError(
                "padding_mode must be one of {'zeros', 'reflect', 'replicate', 'circular'}, but got "
                f"padding_mode='{padding_mode}'"
            )
        self.in_channels = in_channels
        self.out_channels = out_channels
        self.kernel_size = _ntuple(kernel_size, n)
        self.stride = _ntuple(stride, n)
        self.padding: str | tuple[int, ...] = padding if isinstance(padding, str) else _ntuple(padding, n)
        self.dilation = _ntuple(dilation, n)
        self.groups = groups
        self.padding_mode = padding_mode
        # F.pad's order (last dimension first, before and after each): what a padding_mode
        # other than "zeros" pads with before convolving without padding, as torch does.
        pads: list[int]
        if isinstance(padding, str):
            pads = [0, 0] * n
            if padding == "same":
                for i, (d, k) in enumerate(zip(self.dilation, self.kernel_size)):
                    total = d * (k - 1)
                    pads[2 * (n - 1 - i)], pads[2 * (n - 1 - i) + 1] = total // 2, total - total // 2
        else:
            pads = [p for p in reversed(_ntuple(padding, n)) for _ in range(2)]
        self._reversed_padding_repeated_twice = pads
        self.output_padding = _ntuple(getattr(self, "_output_padding", 0), n)
        self.transposed = self._transposed
        shape = (in_channels, out_channels // groups) if self.transposed else (out_channels, in_channels // groups)
        self.weight = Parameter(empty((*shape, *self.kernel_size), dtype=dtype, device=device))
        if bias:
            self.bias = Parameter(empty(out_channels, dtype=dtype, device=device))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw fresh weights: U(-1/√fan_in, 1/√fan_in) for both, fan_in = in_channels/groups * kernel area."""
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self) -> str:
        n = self._dims
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * n:
            s += f", padding={self.padding}"
        if self.output_padding != (0,) * n:
            s += f", output_padding={self.output_padding}"
        if self.dilation != (1,) * n:
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s

    def _padded(self, input: Tensor) -> tuple[Tensor, Any]:
        """The input and the padding to convolve it with: for a ``padding_mode`` other than
        ``"zeros"``, the input padded by :func:`~ctxgrad.nn.functional.pad` in that mode, and
        no further padding (torch's ``_conv_forward``)."""
        if self.padding_mode == "zeros":
            return input, self.padding
        return F.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode), 0


class Conv2d(_ConvNd):
    """2-D convolution over ``(N, C_in, H, W)`` input; weight ``(C_out, C_in/groups, kH, kW)``."""

    _dims = 2

    def forward(self, input: Tensor) -> Tensor:
        input, padding = self._padded(input)
        return F.conv2d(input, self.weight, self.bias, self.stride, padding, self.dilation, self.groups)


class Conv1d(_ConvNd):
    """1-D convolution over ``(N, C_in, L)`` input; weight ``(C_out, C_in/groups, k)``."""

    _dims = 1

    def forward(self, input: Tensor) -> Tensor:
        input, padding = self._padded(input)
        return F.conv1d(input, self.weight, self.bias, self.stride, padding, self.dilation, self.groups)


class Conv3d(_ConvNd):
    """3-D convolution over ``(N, C_in, D, H, W)`` input; weight ``(C_out, C_in/groups, kD, kH, kW)``."""

    _dims = 3

    def forward(self, input: Tensor) -> Tensor:
        input, padding = self._padded(input)
        return F.conv3d(input, self.weight, self.bias, self.stride, padding, self.dilation, self.groups)


class _ConvTransposeNd(_ConvNd):
    """What ConvTranspose1d and ConvTranspose2d share: torch's argument order (``output_padding``
    before ``groups``, ``dilation`` after ``bias``) and a ``(C_in, C_out/groups, *k)`` weight."""

    _transposed = True

    def __init__(
        self,
        in_channels: int,
        out_channels: int,
        kernel_size: Any,
        stride: Any = 1,
        padding: Any = 0,
        output_padding: Any = 0,
        groups: int = 1,
        bias: bool = True,
        dilation: Any = 1,
        padding_mode: str = "zeros",
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        if padding_mode != "zeros":
            raise ValueError(f'Only "zeros" padding mode is supported for {type(self).__name__}')
        self._output_padding = output_padding
        super().__init__(
            in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode, device, dtype
        )


class ConvTranspose2d(_ConvTransposeNd):
    """The transpose of a 2-D convolution (an "up-convolution") over ``(N, C_in, H, W)`` input;
    weight ``(C_in, C_out/groups, kH, kW)`` (see :func:`~ctxgrad.nn.functional.conv_transpose2d`)."""

    _dims = 2

    def forward(self, input: Tensor, output_size: Any = None) -> Tensor:
        return F.conv_transpose2d(
            input,
            self.weight,
            self.bias,
            self.stride,
            self.padding,
            self._extra_padding(input, output_size),
            self.groups,
            self.dilation,
        )

    def _extra_padding(self, input: Tensor, output_size: Any) -> tuple[int, ...]:
        """``output_padding``, or what reaches ``output_size`` when it is given (as torch)."""
        if output_size is None:
            return self.output_padding
        n = self._dims
        wanted = [int(s) for s in output_size][-n:]
        extra = []
        for i in range(n):
            size = input.shape[input.ndim - n + i]
            smallest = (
                (size - 1) * self.stride[i]
                - 2 * int(self.padding[i])
                + self.dilation[i] * (self.kernel_size[i] - 1)
                + 1
            )
            if not smallest <= wanted[i] < smallest + self.stride[i]:
                raise ValueError(
                    f"requested an output size of {wanted}, but valid sizes range from {smallest} to "
                    f"{smallest + self.stride[i] - 1} (for an input of {list(input.shape[input.ndim - n :])})"
                )
            extra.append(wanted[i] - smallest)
        return tuple(extra)


class ConvTranspose1d(ConvTranspose2d):
    """The transpose of a 1-D convolution over ``(N, C_in, L)`` input; weight ``(C_in, C_out/groups, k)``."""

    _dims = 1

    def forward(self, input: Tensor, output_size: Any = None) -> Tensor:
        return F.conv_transpose1d(
            input,
            self.weight,
            self.bias,
            self.stride,
            self.padding,
            self._extra_padding(input, output_size),
            self.groups,
            self.dilation,
        )

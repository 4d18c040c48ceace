"""``PixelShuffle`` and ``PixelUnshuffle``: channels traded for resolution and back.

>>> import ctxgrad
>>> from ctxgrad import nn
>>> nn.PixelShuffle(2)(ctxgrad.arange(8.0).reshape(1, 4, 1, 2))
tensor([[[[0., 2., 1., 3.],
          [4., 6., 5., 7.]]]])
"""

from __future__ import annotations

from ctxgrad._tensor import Tensor
from ctxgrad.nn import functional as F
from ctxgrad.nn.modules.module import Module

__all__ = ["PixelShuffle", "PixelUnshuffle"]


class PixelShuffle(Module):
    """``(*, C r², H, W)`` to ``(*, C, H r, W r)`` (see :func:`~ctxgrad.nn.functional.pixel_shuffle`)."""

    def __init__(self, upscale_factor: int) -> None:
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self) -> str:
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """``(*, C, H r, W r)`` to ``(*, C r², H, W)`` (see :func:`~ctxgrad.nn.functional.pixel_unshuffle`)."""

    def __init__(self, downscale_factor: int) -> None:
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input: Tensor) -> Tensor:
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self) -> str:
        return f"downscale_factor={self.downscale_factor}"

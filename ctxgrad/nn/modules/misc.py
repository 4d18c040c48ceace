"""Small layers that wrap a function of :mod:`ctxgrad.nn.functional`: ``CosineSimilarity``,
``PairwiseDistance``, ``Unfold``, ``Fold`` and ``ChannelShuffle``.

>>> import ctxgrad
>>> from ctxgrad import nn
>>> nn.Unfold(kernel_size=2)(ctxgrad.ones(1, 3, 4, 4)).shape
ctxgrad.Size([1, 12, 9])
"""

from __future__ import annotations

from typing import Any

from ctxgrad._tensor import Tensor
from ctxgrad.nn import functional as F
from ctxgrad.nn.modules.module import Module

__all__ = ["ChannelShuffle", "CosineSimilarity", "Fold", "PairwiseDistance", "Unfold"]


class CosineSimilarity(Module):
    """:func:`~ctxgrad.nn.functional.cosine_similarity` along ``dim``."""

    def __init__(self, dim: int = 1, eps: float = 1e-8) -> None:
        super().__init__()
        self.dim = dim
        self.eps = eps

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


class PairwiseDistance(Module):
    """:func:`~ctxgrad.nn.functional.pairwise_distance` along the last dimension."""

    def __init__(self, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> None:
        super().__init__()
        self.norm = p
        self.eps = eps
        self.keepdim = keepdim

    def forward(self, x1: Tensor, x2: Tensor) -> Tensor:
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class Unfold(Module):
    """Sliding windows as columns (:func:`~ctxgrad.nn.functional.unfold`)."""

    def __init__(self, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> None:
        super().__init__()
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:
        return F.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, dilation={self.dilation}, padding={self.padding}, stride={self.stride}"


class Fold(Module):
    """Columns added back into an image (:func:`~ctxgrad.nn.functional.fold`)."""

    def __init__(
        self, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1
    ) -> None:
        super().__init__()
        self.output_size = output_size
        self.kernel_size = kernel_size
        self.dilation = dilation
        self.padding = padding
        self.stride = stride

    def forward(self, input: Tensor) -> Tensor:
        return F.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self) -> str:
        return (
            f"output_size={self.output_size}, kernel_size={self.kernel_size}, dilation={self.dilation}, "
            f"padding={self.padding}, stride={self.stride}"
        )


class ChannelShuffle(Module):
    """Interleave the channels of ``groups`` groups: ``(N, g * c, *)`` seen as ``(N, g, c, *)``,
    transposed to ``(N, c, g, *)`` (ShuffleNet)."""

    def __init__(self, groups: int) -> None:
        super().__init__()
        self.groups = groups

    def forward(self, input: Tensor) -> Tensor:
        n, channels = input.shape[0], input.shape[1]
        rest = tuple(input.shape[2:])
        shuffled = input.reshape(n, self.groups, channels // self.groups, *rest).transpose(1, 2)
        return shuffled.reshape(n, channels, *rest)

    def extra_repr(self) -> str:
        return f"groups={self.groups}"

"""``Dropout``: zero elements at random while training (see :func:`ctxgrad.nn.functional.dropout`).

>>> import ctxgrad
>>> from ctxgrad import nn
>>> drop = nn.Dropout(0.5).eval()
>>> drop(ctxgrad.ones(3))
tensor([1., 1., 1.])
"""

from __future__ import annotations

from ctxgrad._tensor import Tensor
from ctxgrad.nn import functional as F
from ctxgrad.nn.modules.module import Module

__all__ = ["AlphaDropout", "Dropout", "Dropout1d", "Dropout2d", "Dropout3d", "FeatureAlphaDropout"]


class Dropout(Module):
    """In training mode, zero each element with probability ``p`` and scale the others by
    ``1 / (1 - p)``; in evaluation mode, the identity."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class _DropoutNd(Module):
    """A dropout layer: ``p`` and ``inplace``; ``forward`` calls the subclass's function."""

    def __init__(self, p: float = 0.5, inplace: bool = False) -> None:
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p = p
        self.inplace = inplace

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"


class Dropout1d(_DropoutNd):
    """In training mode, zero whole channels of ``(N, C, L)`` input (see :func:`~ctxgrad.nn.functional.dropout1d`)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout1d(input, self.p, self.training, self.inplace)


class Dropout2d(_DropoutNd):
    """In training mode, zero whole channels of ``(N, C, H, W)`` input
    (see :func:`~ctxgrad.nn.functional.dropout2d`)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout2d(input, self.p, self.training, self.inplace)


class Dropout3d(_DropoutNd):
    """In training mode, zero whole channels of ``(N, C, D, H, W)`` input
    (see :func:`~ctxgrad.nn.functional.dropout3d`)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.dropout3d(input, self.p, self.training, self.inplace)


class AlphaDropout(_DropoutNd):
    """Dropout that keeps SELU's self-normalisation (see :func:`~ctxgrad.nn.functional.alpha_dropout`)."""

    def forward(self, input: Tensor) -> Tensor:
        return F.alpha_dropout(input, self.p, self.training)


class FeatureAlphaDropout(_DropoutNd):
    """:class:`AlphaDropout` of whole channels."""

    def forward(self, input: Tensor) -> Tensor:
        return F.feature_alpha_dropout(input, self.p, self.training)

"""The batch-normalisation layers at torch's module path (``torch.nn.modules.batchnorm``);
ctxgrad defines them with the other normalisations, in :mod:`ctxgrad.nn.modules.normalization`."""

from __future__ import annotations

from ctxgrad.nn.modules.normalization import BatchNorm1d, BatchNorm2d, BatchNorm3d, _BatchNorm

__all__ = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "_BatchNorm"]

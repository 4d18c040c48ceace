"""Utilities around training, mirroring ``torch.utils``: :mod:`ctxgrad.utils.data` (datasets,
samplers and ``DataLoader``)."""

from __future__ import annotations

from ctxgrad.utils import data

__all__ = ["data"]

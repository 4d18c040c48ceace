"""Utilities around training, mirroring ``torch.utils``: :mod:`ctxgrad.utils.data` (datasets,
samplers and ``DataLoader``) and :mod:`ctxgrad.utils.checkpoint` (recomputation in backward)."""

from __future__ import annotations

from ctxgrad.utils import checkpoint, data

__all__ = ["checkpoint", "data"]

"""Neural-network helpers, mirroring ``torch.nn``; for now only :mod:`ctxgrad.nn.functional`."""

from __future__ import annotations

from ctxgrad.nn import functional

__all__ = ["functional"]

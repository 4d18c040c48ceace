"""``Exponential`` at torch's module path ``torch.distributions.exponential`` (written in
:mod:`ctxgrad.distributions.continuous`), so that ``from ctxgrad.distributions.exponential import Exponential`` works."""

from __future__ import annotations

from ctxgrad.distributions.continuous import Exponential

__all__ = ["Exponential"]

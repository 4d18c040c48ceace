"""``Gamma`` at torch's module path ``torch.distributions.gamma`` (written in
:mod:`ctxgrad.distributions.continuous`), so that ``from ctxgrad.distributions.gamma import Gamma`` works."""

from __future__ import annotations

from ctxgrad.distributions.continuous import Gamma

__all__ = ["Gamma"]

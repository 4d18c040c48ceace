"""``Beta`` at torch's module path ``torch.distributions.beta`` (written in
:mod:`ctxgrad.distributions.continuous`), so that ``from ctxgrad.distributions.beta import Beta`` works."""

from __future__ import annotations

from ctxgrad.distributions.continuous import Beta

__all__ = ["Beta"]

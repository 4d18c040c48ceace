"""``Beta`` at torch's module path, ``torch.distributions.beta``.

They are written in :mod:`ctxgrad.distributions.continuous`; this module is there so that
``from ctxgrad.distributions.beta import Beta`` works as in torch.
"""

from __future__ import annotations

from ctxgrad.distributions.continuous import Beta

__all__ = ["Beta"]

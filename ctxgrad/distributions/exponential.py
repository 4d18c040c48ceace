"""``Exponential`` at torch's module path, ``torch.distributions.exponential``.

They are written in :mod:`ctxgrad.distributions.continuous`; this module is there so that
``from ctxgrad.distributions.exponential import Exponential`` works as in torch.
"""

from __future__ import annotations

from ctxgrad.distributions.continuous import Exponential

__all__ = ["Exponential"]

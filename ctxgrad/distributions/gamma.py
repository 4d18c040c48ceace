"""``Gamma`` at torch's module path, ``torch.distributions.gamma``.

They are written in :mod:`ctxgrad.distributions.continuous`; this module is there so that
``from ctxgrad.distributions.gamma import Gamma`` works as in torch.
"""

from __future__ import annotations

from ctxgrad.distributions.continuous import Gamma

__all__ = ["Gamma"]

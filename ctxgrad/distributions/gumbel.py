"""``Gumbel`` at torch's module path, ``torch.distributions.gumbel``.

They are written in :mod:`ctxgrad.distributions.continuous`; this module is there so that
``from ctxgrad.distributions.gumbel import Gumbel`` works as in torch.
"""

from __future__ import annotations

from ctxgrad.distributions.continuous import Gumbel

__all__ = ["Gumbel"]

"""``Normal`` at torch's module path, ``torch.distributions.normal``.

They are written in :mod:`ctxgrad.distributions.continuous`; this module is there so that
``from ctxgrad.distributions.normal import Normal`` works as in torch.
"""

from __future__ import annotations

from ctxgrad.distributions.continuous import Normal

__all__ = ["Normal"]

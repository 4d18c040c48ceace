"""``Laplace`` at torch's module path, ``torch.distributions.laplace``.

They are written in :mod:`ctxgrad.distributions.continuous`; this module is there so that
``from ctxgrad.distributions.laplace import Laplace`` works as in torch.
"""

from __future__ import annotations

from ctxgrad.distributions.continuous import Laplace

__all__ = ["Laplace"]

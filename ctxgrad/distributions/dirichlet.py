"""``Dirichlet`` at torch's module path, ``torch.distributions.dirichlet``.

They are written in :mod:`ctxgrad.distributions.multivariate`; this module is there so that
``from ctxgrad.distributions.dirichlet import Dirichlet`` works as in torch.
"""

from __future__ import annotations

from ctxgrad.distributions.multivariate import Dirichlet

__all__ = ["Dirichlet"]

"""``MultivariateNormal`` at torch's module path, ``torch.distributions.multivariate_normal``.

They are written in :mod:`ctxgrad.distributions.multivariate`; this module is there so that
``from ctxgrad.distributions.multivariate_normal import MultivariateNormal`` works as in torch.
"""

from __future__ import annotations

from ctxgrad.distributions.multivariate import MultivariateNormal

__all__ = ["MultivariateNormal"]

"""``MultivariateNormal`` at torch's module path ``torch.distributions.multivariate_normal`` (written in
:mod:`ctxgrad.distributions.multivariate`), so that ``from ctxgrad.distributions.multivariate_normal import MultivariateNormal`` works."""

from __future__ import annotations

from ctxgrad.distributions.multivariate import MultivariateNormal

__all__ = ["MultivariateNormal"]

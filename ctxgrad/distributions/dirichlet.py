"""``Dirichlet`` at torch's module path ``torch.distributions.dirichlet`` (written in
:mod:`ctxgrad.distributions.multivariate`), so that ``from ctxgrad.distributions.dirichlet import Dirichlet`` works."""

from __future__ import annotations

from ctxgrad.distributions.multivariate import Dirichlet

__all__ = ["Dirichlet"]

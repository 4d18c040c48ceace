"""``Laplace`` at torch's module path ``torch.distributions.laplace`` (written in
:mod:`ctxgrad.distributions.continuous`), so that ``from ctxgrad.distributions.laplace import Laplace`` works."""

from __future__ import annotations

from ctxgrad.distributions.continuous import Laplace

__all__ = ["Laplace"]

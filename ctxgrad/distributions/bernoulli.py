"""``Bernoulli`` at torch's module path, ``torch.distributions.bernoulli``.

They are written in :mod:`ctxgrad.distributions.discrete`; this module is there so that
``from ctxgrad.distributions.bernoulli import Bernoulli`` works as in torch.
"""

from __future__ import annotations

from ctxgrad.distributions.discrete import Bernoulli

__all__ = ["Bernoulli"]

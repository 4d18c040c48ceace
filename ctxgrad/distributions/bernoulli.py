"""``Bernoulli`` at torch's module path ``torch.distributions.bernoulli`` (written in
:mod:`ctxgrad.distributions.discrete`), so that ``from ctxgrad.distributions.bernoulli import Bernoulli`` works."""

from __future__ import annotations

from ctxgrad.distributions.discrete import Bernoulli

__all__ = ["Bernoulli"]

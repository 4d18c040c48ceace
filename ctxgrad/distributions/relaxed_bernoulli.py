"""``LogitRelaxedBernoulli`` and ``RelaxedBernoulli`` at torch's module path ``torch.distributions.relaxed_bernoulli`` (written in
:mod:`ctxgrad.distributions.relaxed`), so that ``from ctxgrad.distributions.relaxed_bernoulli import LogitRelaxedBernoulli`` works."""

from __future__ import annotations

from ctxgrad.distributions.relaxed import LogitRelaxedBernoulli, RelaxedBernoulli

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]

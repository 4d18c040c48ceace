"""``LogitRelaxedBernoulli`` and ``RelaxedBernoulli`` at torch's module path,
``torch.distributions.relaxed_bernoulli``.

They are written in :mod:`ctxgrad.distributions.relaxed`; this module is there so that
``from ctxgrad.distributions.relaxed_bernoulli import LogitRelaxedBernoulli`` works as in torch.
"""

from __future__ import annotations

from ctxgrad.distributions.relaxed import LogitRelaxedBernoulli, RelaxedBernoulli

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]

"""``Gumbel`` at torch's module path ``torch.distributions.gumbel`` (written in
:mod:`ctxgrad.distributions.continuous`), so that ``from ctxgrad.distributions.gumbel import Gumbel`` works."""

from __future__ import annotations

from ctxgrad.distributions.continuous import Gumbel

__all__ = ["Gumbel"]

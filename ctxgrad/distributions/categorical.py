"""``Categorical`` at torch's module path ``torch.distributions.categorical`` (written in
:mod:`ctxgrad.distributions.discrete`), so that ``from ctxgrad.distributions.categorical import Categorical`` works."""

from __future__ import annotations

from ctxgrad.distributions.discrete import Categorical

__all__ = ["Categorical"]

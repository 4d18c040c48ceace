"""``Categorical`` at torch's module path, ``torch.distributions.categorical``.

They are written in :mod:`ctxgrad.distributions.discrete`; this module is there so that
``from ctxgrad.distributions.categorical import Categorical`` works as in torch.
"""

from __future__ import annotations

from ctxgrad.distributions.discrete import Categorical

__all__ = ["Categorical"]

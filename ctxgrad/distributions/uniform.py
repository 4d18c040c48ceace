"""``Uniform`` at torch's module path ``torch.distributions.uniform`` (written in
:mod:`ctxgrad.distributions.continuous`), so that ``from ctxgrad.distributions.uniform import Uniform`` works."""

from __future__ import annotations

from ctxgrad.distributions.continuous import Uniform

__all__ = ["Uniform"]

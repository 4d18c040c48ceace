"""``Normal`` at torch's module path ``torch.distributions.normal`` (written in
:mod:`ctxgrad.distributions.continuous`), so that ``from ctxgrad.distributions.normal import Normal`` works."""

from __future__ import annotations

from ctxgrad.distributions.continuous import Normal

__all__ = ["Normal"]

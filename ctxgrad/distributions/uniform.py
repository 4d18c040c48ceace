"""``Uniform`` at torch's module path, ``torch.distributions.uniform``.

They are written in :mod:`ctxgrad.distributions.continuous`; this module is there so that
``from ctxgrad.distributions.uniform import Uniform`` works as in torch.
"""

from __future__ import annotations

from ctxgrad.distributions.continuous import Uniform

__all__ = ["Uniform"]

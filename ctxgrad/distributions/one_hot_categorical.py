"""``OneHotCategorical`` at torch's module path, ``torch.distributions.one_hot_categorical``.

They are written in :mod:`ctxgrad.distributions.discrete`; this module is there so that
``from ctxgrad.distributions.one_hot_categorical import OneHotCategorical`` works as in torch.
"""

from __future__ import annotations

from ctxgrad.distributions.discrete import OneHotCategorical

__all__ = ["OneHotCategorical"]

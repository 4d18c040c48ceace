"""``OneHotCategorical`` at torch's module path ``torch.distributions.one_hot_categorical`` (written in
:mod:`ctxgrad.distributions.discrete`), so that ``from ctxgrad.distributions.one_hot_categorical import OneHotCategorical`` works."""

from __future__ import annotations

from ctxgrad.distributions.discrete import OneHotCategorical

__all__ = ["OneHotCategorical"]

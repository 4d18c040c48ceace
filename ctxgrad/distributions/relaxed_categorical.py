"""``ExpRelaxedCategorical`` and ``RelaxedOneHotCategorical`` at torch's module path ``torch.distributions.relaxed_categorical`` (written in
:mod:`ctxgrad.distributions.relaxed`), so that ``from ctxgrad.distributions.relaxed_categorical import ExpRelaxedCategorical`` works."""

from __future__ import annotations

from ctxgrad.distributions.relaxed import ExpRelaxedCategorical, RelaxedOneHotCategorical

__all__ = ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"]

"""``ExpRelaxedCategorical`` and ``RelaxedOneHotCategorical`` at torch's module path,
``torch.distributions.relaxed_categorical``.

They are written in :mod:`ctxgrad.distributions.relaxed`; this module is there so that
``from ctxgrad.distributions.relaxed_categorical import ExpRelaxedCategorical`` works as in torch.
"""

from __future__ import annotations

from ctxgrad.distributions.relaxed import ExpRelaxedCategorical, RelaxedOneHotCategorical

__all__ = ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"]

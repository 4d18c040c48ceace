"""The helpers of ``torch.distributions.utils`` that custom distributions use.

>>> import ctxgrad
>>> from ctxgrad.distributions.utils import broadcast_all, probs_to_logits
>>> loc, scale = broadcast_all(ctxgrad.zeros(3), 2.0)
>>> scale
tensor([2., 2., 2.])
>>> probs_to_logits(ctxgrad.tensor([0.5, 0.75]), is_binary=True)
tensor([0.0000, 1.0986])
"""

from __future__ import annotations

from ctxgrad.distributions.distribution import (
    broadcast_all,
    clamp_probs,
    lazy_property,
    logits_to_probs,
    probs_to_logits,
)
from ctxgrad.distributions.independent import _sum_rightmost

__all__ = ["_sum_rightmost", "broadcast_all", "clamp_probs", "lazy_property", "logits_to_probs", "probs_to_logits"]

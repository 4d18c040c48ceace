"""Helpers from ``torch.nn.utils``: gradient clipping and parameter flattening."""

from __future__ import annotations

from ctxgrad.nn.utils.clip_grad import clip_grad_norm_, clip_grad_value_
from ctxgrad.nn.utils.convert_parameters import parameters_to_vector, vector_to_parameters

__all__ = ["clip_grad_norm_", "clip_grad_value_", "parameters_to_vector", "vector_to_parameters"]

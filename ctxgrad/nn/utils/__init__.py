"""Helpers from ``torch.nn.utils``: gradient clipping, parameter flattening, ``weight_norm`` and
:mod:`~ctxgrad.nn.utils.rnn` (``pad_sequence``) and :mod:`~ctxgrad.nn.utils.parametrize`."""

from __future__ import annotations

from ctxgrad.nn.utils import parametrizations, parametrize, rnn
from ctxgrad.nn.utils.clip_grad import clip_grad_norm_, clip_grad_value_
from ctxgrad.nn.utils.convert_parameters import parameters_to_vector, vector_to_parameters
from ctxgrad.nn.utils.weight_norm import remove_weight_norm, weight_norm

__all__ = [
    "clip_grad_norm_",
    "clip_grad_value_",
    "parameters_to_vector",
    "parametrizations",
    "parametrize",
    "remove_weight_norm",
    "rnn",
    "vector_to_parameters",
    "weight_norm",
]

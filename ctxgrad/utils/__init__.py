"""Utilities around training, mirroring ``torch.utils``: :mod:`ctxgrad.utils.data` (datasets,
samplers and ``DataLoader``), :mod:`ctxgrad.utils.checkpoint` (recomputation in backward),
:mod:`ctxgrad.utils.hooks` (``RemovableHandle``), :mod:`ctxgrad.utils.benchmark` (``Timer``) and,
with the optional ``safetensors`` package, :mod:`ctxgrad.utils.safetensors` (imported on its own:
``from ctxgrad.utils import safetensors``)."""

from __future__ import annotations

from ctxgrad.utils import benchmark, checkpoint, data, hooks

__all__ = ["benchmark", "checkpoint", "data", "hooks"]

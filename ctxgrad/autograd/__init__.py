"""Automatic differentiation: ``Function``, ``backward``, ``grad``, grad modes and hooks.

Mirrors ``torch.autograd``: replace ``torch.autograd`` with ``ctxgrad.autograd``.  (The
``functional`` submodule is built on the public surface, a layer above this package; the
top-level ``ctxgrad`` package loads it, so ``ctxgrad.autograd.functional`` is always there.)
"""

from __future__ import annotations

from ctxgrad.autograd import (  # noqa: F401 (_views gives Tensor its view methods)
    _views,
    graph,
    profiler,
)
from ctxgrad.autograd._grad import backward, grad
from ctxgrad.autograd.anomaly_mode import (
    detect_anomaly,
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    set_detect_anomaly,
)
from ctxgrad.autograd.errors import NoJvpError, OnceDifferentiableError
from ctxgrad.autograd.function import (
    BackwardCFunction,
    Function,
    FunctionCtx,
    GradientTypeError,
    InplaceFunction,
    NestedIOFunction,
    once_differentiable,
)
from ctxgrad.autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    is_inference_mode_enabled,
    is_recording,
    no_grad,
    set_grad_enabled,
)
from ctxgrad.autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck
from ctxgrad.autograd.tracing import trace
from ctxgrad.autograd.variable import Variable


def _is_checkpoint_valid() -> bool:
    """torch's question whether a checkpointed region may recompute now: always True here,
    since ctxgrad's checkpoint recomputes under ``backward`` and ``grad`` alike."""
    return True


__all__ = [
    "_is_checkpoint_valid",
    "BackwardCFunction",
    "Function",
    "FunctionCtx",
    "GradcheckError",
    "GradientTypeError",
    "InplaceFunction",
    "NestedIOFunction",
    "NoJvpError",
    "OnceDifferentiableError",
    "Variable",
    "backward",
    "detect_anomaly",
    "enable_grad",
    "functional",
    "grad",
    "gradcheck",
    "gradgradcheck",
    "graph",
    "inference_mode",
    "profiler",
    "is_anomaly_check_nan_enabled",
    "is_anomaly_enabled",
    "is_grad_enabled",
    "is_inference_mode_enabled",
    "is_recording",
    "no_grad",
    "once_differentiable",
    "set_detect_anomaly",
    "set_grad_enabled",
    "trace",
]

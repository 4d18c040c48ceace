"""The activations of ``ctxgrad.nn.functional`` (see there)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ctxgrad import _factories
from ctxgrad._replayed import replayed_whole
from ctxgrad._state import _state
from ctxgrad._tensor import Tensor
from ctxgrad.autograd.inplace import write_in_place
from ctxgrad.nn import _ops
from ctxgrad.ops import activations as _activations
from ctxgrad.ops.losses import _under_vmap


def _implicit_dim(name: str, ndim: int, stacklevel: int) -> int:
    """torch's deprecated choice of dim when none is given (0 for 0-, 1- and 3-D, else 1)."""

    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as an argument.",
        UserWarning,
        stacklevel=stacklevel,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    """``exp(x) / exp(x).sum(dim)``, computed stably, along ``dim``."""
    if dim is None:
        dim = _implicit_dim("softmax", input.ndim, _stacklevel)
    return input.softmax(dim, dtype=dtype)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    """``log(softmax(x))``, computed stably, along ``dim``."""
    if dim is None:
        dim = _implicit_dim("log_softmax", input.ndim, _stacklevel)
    return input.log_softmax(dim, dtype=dtype)


# =========================================================================== more activations
# Formulas of existing ops (``where``, ``clamp``, ``elu``, ``softplus``, ...): those that take
# ``inplace=`` are recorded as one node each, torch's (ctxgrad/ops/activations.py), their
# gradients, double backward, forward mode and vmap coming from the ops of the formula, and
# ``inplace=True`` is that Function made in place.  ``logsigmoid`` is a Function of its own
# (:class:`ctxgrad.nn._ops.LogSigmoid`), for a stable value and gradient.


def _activated(function: Any, in_place: Any, input: Tensor, inplace: bool, *params: Any) -> Tensor:
    """``function`` applied to ``input``, or with ``inplace`` its in-place form ``in_place``
    (``function`` itself, or a subclass under torch's in-place node name) made in place."""
    if inplace:
        return write_in_place(in_place, input, *params)
    out: Tensor = function.apply(input, *params)
    return out


def _where(condition: Tensor, input: Any, other: Any) -> Tensor:
    """``ctxgrad.where`` with its three arguments (always a tensor)."""
    from ctxgrad.ops.pointwise import where

    out: Tensor = where(condition, input, other)
    return out


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """Elementwise ``min(max(x, 0), 6)`` (``hardtanh(x, 0, 6)``)."""
    if inplace:
        return write_in_place(_activations.Hardtanh, input, 0.0, 6.0)
    return _activations.Hardtanh.apply(input, 0.0, 6.0)


def logsigmoid(input: Tensor) -> Tensor:
    """Elementwise ``log(1 / (1 + e ** -x))``, computed stably."""
    return _ops.LogSigmoid.apply(input)


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    """``softmax(-x)`` along ``dim``: the smallest entries get the largest weights."""
    if dim is None:
        dim = _implicit_dim("softmin", input.ndim, _stacklevel)
    return (-input).softmax(dim, dtype=dtype)


def softsign(input: Tensor) -> Tensor:
    """Elementwise ``x / (1 + |x|)``."""
    return input / (input.abs() + 1)


def tanhshrink(input: Tensor) -> Tensor:
    """Elementwise ``x - tanh(x)``."""
    return input - input.tanh()


def _check_lambda(input: Tensor, lambd: float) -> None:
    if lambd < 0 and not _under_vmap(input):
        info = np.finfo(input.dtype)
        name = {"float64": "Double", "float32": "Float", "float16": "Half"}.get(np.dtype(input.dtype).name, "")
        raise RuntimeError(f"lambda must be in range [0, {info.max:g}] for input dtype {name}, but found {lambd:g}")


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """Elementwise ``x - lambd`` above ``lambd``, ``x + lambd`` below ``-lambd``, else 0."""
    _activations._floating(input, "softshrink_check")
    _check_lambda(input, lambd)
    return _where(input > lambd, input - lambd, _where(input < -lambd, input + lambd, 0.0))


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """Elementwise ``x`` where ``|x| > lambd``, else 0."""
    return _where((input > lambd).logical_or(input < -lambd), input, 0.0)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """Elementwise ``x`` where ``x > threshold``, else ``value``."""
    return _activated(_activations.Threshold, _activations.ThresholdInPlace, input, inplace, threshold, value)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    """In place: :func:`threshold`."""
    return _threshold(input, threshold, value, inplace=True)


_threshold = threshold  # the function, under a name its ``threshold`` parameter does not shadow


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """The gated linear unit: ``a * sigmoid(b)``, ``a`` and ``b`` the two halves of ``input`` along ``dim``."""
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = dim + input.ndim if dim < 0 else dim
    if not 0 <= d < input.ndim:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-input.ndim}, {input.ndim - 1}], but got {dim})"
        )
    if input.shape[d] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {input.shape[d]}")
    a, b = input.chunk(2, d)
    return a * b.sigmoid()


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """Elementwise ``x`` where ``x > 0``, else ``weight * x``; ``weight`` has one slope, or one per
    channel (dimension 1 of ``input``)."""
    if weight.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.ndim}")
    channels = input.shape[1] if input.ndim >= 2 else 1
    count = weight.numel()
    if count != 1 and count != channels:
        raise RuntimeError(
            "Mismatch of parameter numbers and input channel size. "
            f"Found parameter numbers = {count} and channel size = {channels}."
        )
    slope = weight.reshape((count,) + (1,) * (input.ndim - 2)) if input.ndim >= 2 else weight.reshape(())
    return _where(input > 0, input, slope * input)


@replayed_whole
def rrelu(
    input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False, inplace: bool = False
) -> Tensor:
    """Randomised leaky ReLU: in training each negative element is multiplied by a slope drawn
    uniformly from ``[lower, upper]`` (ctxgrad's generator); in evaluation the slope is their mean."""
    if lower > upper:
        raise RuntimeError("Lower bound should be less than or equal to the upper bound")
    slope: Any = (lower + upper) / 2
    if training and _state.modes.vmap_levels:
        # (torch refuses rrelu under vmap; the slopes of one draw would be shared by the samples)
        name = "rrelu_" if inplace else "rrelu"
        raise RuntimeError(f"vmap: we do not yet support aten::{name}. Please file an issue")
    if training:
        slope = _factories._generator.uniform(lower, upper, input.shape).astype(input.dtype)
    return _activated(_activations.Rrelu, _activations.RreluInPlace, input, inplace, slope)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False) -> Tensor:
    """In place: :func:`rrelu`."""
    return rrelu(input, lower, upper, training, inplace=True)


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out: Tensor | None = None) -> Tensor:
    """``x / max(||x||_p, eps)`` along ``dim``: each slice scaled to unit ``p``-norm."""
    denom = input.norm(p, dim, keepdim=True).clamp_min(eps).expand_as(input)
    result = input / denom
    if out is not None:
        return out.copy_(result)
    return result


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """``x1 · x2 / max(||x1|| ||x2||, eps)`` along ``dim`` (inputs broadcast)."""
    from ctxgrad.ops.shape import broadcast_tensors

    a, b = broadcast_tensors(x1, x2)
    # torch's formula: each input divided by its clamped norm, then the dot product.
    na = (a * a).sum(dim, keepdim=True).sqrt().clamp_min(eps)
    nb = (b * b).sum(dim, keepdim=True).sqrt().clamp_min(eps)
    return ((a / na) * (b / nb)).sum(dim)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    """``||x1 - x2 + eps||_p`` along the last dimension (inputs broadcast)."""
    ndim = max(x1.ndim, x2.ndim)
    diff = x1 - x2 + eps
    if ndim == 0:
        return diff.abs()
    return diff.norm(p, -1, keepdim=keepdim)

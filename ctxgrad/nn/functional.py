"""``torch.nn.functional`` on ctxgrad (``import ctxgrad.nn.functional as F``).

Activations.  ``leaky_relu``, ``elu``, ``gelu``, ``silu`` and ``softplus`` exist only here, as
in torch; ``relu``, ``sigmoid``, ``tanh``, ``softmax`` and ``log_softmax`` are the same ops as
``ctxgrad.relu`` and friends.  Each is an ordinary :class:`~ctxgrad.autograd.Function` in
:mod:`ctxgrad.ops.pointwise`, with a backward that can itself be differentiated and a ``jvp``
for forward mode.  ``inplace=True`` is the Function made in place
(:func:`ctxgrad.autograd.inplace.write_in_place`: its forward, the result written into
``input``, which is marked dirty), never a copy of its body.

Layers as functions.  ``conv2d``, ``max_pool2d``, ``embedding``, ``unfold``/``fold`` and
constant ``pad`` are Functions in :mod:`ctxgrad.nn._ops` (NumPy forward, backward in ctxgrad
ops, a ``jvp``); ``conv1d`` is a ``conv2d`` over a height of 1; ``linear``, ``bilinear``,
``avg_pool2d``, ``layer_norm``, ``batch_norm``, ``dropout`` and the other ``pad`` modes are
composed from existing ops, so double backward and forward mode come for free.

Losses.  ``mse_loss``, ``l1_loss``, ``smooth_l1_loss``, ``huber_loss``, ``nll_loss``,
``cross_entropy`` (class indices or probabilities, ``weight``, ``ignore_index``,
``label_smoothing``), ``binary_cross_entropy``, ``binary_cross_entropy_with_logits``
(``pos_weight``) and ``kl_div``, composed from ops and computed stably (log-softmax,
softplus), with torch's reductions and the deprecated ``size_average``/``reduce`` pair.

>>> import ctxgrad
>>> import ctxgrad.nn.functional as F
>>> logits = ctxgrad.tensor([[2.0, 0.5, -1.0]], requires_grad=True)
>>> loss = F.cross_entropy(logits, ctxgrad.tensor([0]))
>>> loss.backward()
>>> logits.grad
tensor([[-0.2144,  0.1753,  0.0391]])
"""

from __future__ import annotations

import warnings
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ctxgrad import _factories
from ctxgrad._replayed import replayed_whole
from ctxgrad._tensor import Tensor
from ctxgrad.autograd.batching import BatchedTensor
from ctxgrad.autograd.grad_mode import no_grad
from ctxgrad.autograd.inplace import write_in_place
from ctxgrad.nn import _activations, _ops
from ctxgrad.ops import pointwise as _pointwise
from ctxgrad.ops.table import frontend as _frontend

__all__ = [
    "adaptive_avg_pool1d",
    "adaptive_avg_pool2d",
    "adaptive_avg_pool3d",
    "adaptive_max_pool1d",
    "adaptive_max_pool2d",
    "adaptive_max_pool3d",
    "alpha_dropout",
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "batch_norm",
    "bilinear",
    "binary_cross_entropy",
    "binary_cross_entropy_with_logits",
    "celu",
    "celu_",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose1d",
    "conv_transpose2d",
    "cosine_embedding_loss",
    "cosine_similarity",
    "cross_entropy",
    "ctc_loss",
    "dropout",
    "dropout1d",
    "dropout2d",
    "dropout3d",
    "elu",
    "elu_",
    "embedding",
    "embedding_bag",
    "feature_alpha_dropout",
    "fold",
    "gaussian_nll_loss",
    "gelu",
    "glu",
    "group_norm",
    "hardshrink",
    "hardsigmoid",
    "hardswish",
    "hardtanh",
    "hardtanh_",
    "hinge_embedding_loss",
    "huber_loss",
    "instance_norm",
    "interpolate",
    "kl_div",
    "l1_loss",
    "layer_norm",
    "leaky_relu",
    "leaky_relu_",
    "linear",
    "local_response_norm",
    "log_softmax",
    "logsigmoid",
    "margin_ranking_loss",
    "max_pool1d",
    "max_pool2d",
    "max_pool3d",
    "mish",
    "mse_loss",
    "multi_margin_loss",
    "multilabel_margin_loss",
    "multilabel_soft_margin_loss",
    "nll_loss",
    "normalize",
    "one_hot",
    "pad",
    "pairwise_distance",
    "pixel_shuffle",
    "pixel_unshuffle",
    "poisson_nll_loss",
    "prelu",
    "relu",
    "relu_",
    "relu6",
    "rms_norm",
    "rrelu",
    "rrelu_",
    "scaled_dot_product_attention",
    "selu",
    "selu_",
    "sigmoid",
    "silu",
    "smooth_l1_loss",
    "soft_margin_loss",
    "softmax",
    "softmin",
    "softplus",
    "softshrink",
    "softsign",
    "tanh",
    "tanhshrink",
    "threshold",
    "threshold_",
    "triplet_margin_loss",
    "triplet_margin_with_distance_loss",
    "unfold",
]

#: The op table's ``nn_functional`` rows: the same ops as ``ctxgrad.sigmoid`` and ``ctxgrad.tanh``.
sigmoid: Callable[..., Tensor] = _frontend("sigmoid")
tanh: Callable[..., Tensor] = _frontend("tanh")


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """Elementwise ``max(x, 0)``."""
    if inplace:
        return write_in_place(_pointwise.Relu, input)
    return _pointwise.Relu.apply(input)


# ``inplace=True``: the activation's Function made in place (``write_in_place``: its forward,
# the result written into ``input``, marked dirty), under torch's node name for the in-place form.
def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """Elementwise ``x`` for ``x > 0``, else ``negative_slope * x``."""
    if inplace:
        return write_in_place(_pointwise.LeakyReluInPlace, input, float(negative_slope))
    return _pointwise.LeakyRelu.apply(input, float(negative_slope))


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """Elementwise ``x`` for ``x > 0``, else ``alpha * (e ** x - 1)``."""
    if inplace:
        return write_in_place(_pointwise.EluInPlace, input, float(alpha))
    return _pointwise.Elu.apply(input, float(alpha))


def gelu(input: Tensor, *, approximate: str = "none") -> Tensor:
    """Elementwise ``x * Φ(x)``, Φ the standard normal CDF; ``approximate='tanh'`` uses
    ``x/2 * (1 + tanh(sqrt(2/π) (x + 0.044715 x³)))``."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return _pointwise.Gelu.apply(input, approximate)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """Elementwise ``x * sigmoid(x)`` (also called swish)."""
    if inplace:
        return write_in_place(_pointwise.Silu, input)
    return _pointwise.Silu.apply(input)


def softplus(input: Tensor, beta: Any = 1.0, threshold: Any = 20.0) -> Tensor:
    """Elementwise ``log(1 + e ** (beta x)) / beta``; ``x`` itself where ``beta x > threshold``."""
    return _pointwise.Softplus.apply(input, float(beta), float(threshold))


def _implicit_dim(name: str, ndim: int, stacklevel: int) -> int:
    """torch's deprecated choice of dim when none is given (0 for 0-, 1- and 3-D, else 1)."""
    import warnings

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
# ``inplace=`` are recorded as one node each, torch's (ctxgrad/nn/_activations.py), their
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


def _floating(input: Tensor, kernel: str) -> None:
    """torch's refusal of integer and bool inputs to a floating-point kernel."""
    if not _under_vmap(input):
        _pointwise._floating_only(input, kernel)


def _where(condition: Tensor, input: Any, other: Any) -> Tensor:
    """``ctxgrad.where`` with its three arguments (always a tensor)."""
    from ctxgrad.ops.pointwise import where

    out: Tensor = where(condition, input, other)
    return out


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    """Elementwise ``clamp(x, min_val, max_val)``; the gradient is 1 strictly inside, 0 elsewhere."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return _activated(_activations.Hardtanh, _activations.Hardtanh, input, inplace, float(min_val), float(max_val))


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """In place: :func:`hardtanh`."""
    return hardtanh(input, min_val, max_val, inplace=True)


# torch's in-place functions of the activations: the ``inplace=True`` form of each.
def relu_(input: Tensor) -> Tensor:
    """In place: :func:`relu`."""
    return relu(input, inplace=True)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """In place: :func:`elu`."""
    return elu(input, alpha, inplace=True)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """In place: :func:`leaky_relu`."""
    return leaky_relu(input, negative_slope, inplace=True)


def selu_(input: Tensor) -> Tensor:
    """In place: :func:`selu`."""
    return selu(input, inplace=True)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    """In place: :func:`celu`."""
    return celu(input, alpha, inplace=True)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """Elementwise ``min(max(x, 0), 6)`` (``hardtanh(x, 0, 6)``)."""
    return hardtanh(input, 0.0, 6.0, inplace)


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """Elementwise ``scale * elu(x, alpha)`` with the self-normalising constants
    ``alpha = 1.6732632...`` and ``scale = 1.0507009...``."""
    return _activated(_activations.Selu, _activations.SeluInPlace, input, inplace)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """Elementwise ``max(0, x) + min(0, alpha * (e ** (x / alpha) - 1))``."""
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")

    _floating(input, "elu_cpu")
    return _activated(_activations.Celu, _activations.CeluInPlace, input, inplace, float(alpha))


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """Elementwise ``x * tanh(softplus(x))``."""
    _floating(input, "mish_cpu")
    return _activated(_activations.Mish, _activations.Mish, input, inplace)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """Elementwise ``x * relu6(x + 3) / 6``."""
    _floating(input, "hardswish_cpu")
    return _activated(_activations.Hardswish, _activations.Hardswish, input, inplace)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """Elementwise ``relu6(x + 3) / 6``: 0 below -3, 1 above 3, linear between."""
    _floating(input, "hardsigmoid_cpu")
    return _activated(_activations.Hardsigmoid, _activations.Hardsigmoid, input, inplace)


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
    _floating(input, "softshrink_check")
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


# =========================================================================== layers as functions
def _pair(value: Any, name: str) -> tuple[int, int]:
    """An int or a pair of ints as a pair (torch's ``_pair``)."""
    if isinstance(value, (int, np.integer)):
        return int(value), int(value)
    items = tuple(int(v) for v in value)
    if len(items) == 1:
        return items[0], items[0]
    if len(items) != 2:
        raise RuntimeError(
            f"expected {name} to be a single integer value or a list of 2 values to match the convolution "
            f"dimensions, but got {name}={list(items)}"
        )
    return items[0], items[1]


def _check_input_dim(input: Tensor, expected: tuple[int, ...], name: str) -> None:
    if input.ndim not in expected:
        shapes = " or ".join(f"{d}D" for d in expected)
        raise RuntimeError(f"{name}: Expected {shapes} input, but got input of size: {list(input.shape)}")


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``input @ weight.T + bias``: ``weight`` is ``(out_features, in_features)``."""
    if input.shape[-1:] != weight.shape[-1:] and input.ndim and weight.ndim == 2:
        rows = int(np.prod(input.shape[:-1])) if input.ndim > 1 else 1
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({rows}x{input.shape[-1]} and "
            f"{weight.shape[1]}x{weight.shape[0]})"
        )
    out = input @ weight.mT if weight.ndim == 2 else input @ weight
    return out if bias is None else out + bias


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``y[..., k] = input1[..., i] weight[k, i, j] input2[..., j] + bias[k]``."""
    if weight.ndim != 3:
        raise RuntimeError(f"bilinear(): weight must be 3-dimensional, got {weight.ndim}")
    if input1.shape[-1] != weight.shape[1] or input2.shape[-1] != weight.shape[2]:
        raise RuntimeError(
            f"bilinear(): input sizes {input1.shape[-1]} and {input2.shape[-1]} do not match weight size "
            f"{list(weight.shape)}"
        )
    from ctxgrad.ops.linalg import einsum

    out = einsum("...i,kij,...j->...k", input1, weight, input2)
    return out if bias is None else out + bias


def _padding_string_error(padding: str) -> RuntimeError:
    """Torch's error for a convolution's ``padding`` string other than 'valid' or 'same' (the
    functional form's RuntimeError; the module's constructor raises a ValueError)."""
    return RuntimeError(f"Invalid padding string: '{padding}' (expected 'valid' or 'same')")


def _conv_padding(
    padding: Any, kernel: tuple[int, int], dilation: tuple[int, int], stride: tuple[int, int]
) -> _ops.Pads4:
    """Padding as ``(top, bottom, left, right)``; ``'same'`` may be uneven (the extra goes after)."""
    if isinstance(padding, str):
        if padding == "valid":
            return 0, 0, 0, 0
        if padding != "same":
            raise _padding_string_error(padding)
        if stride != (1, 1):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        pads: list[int] = []
        for k, d in zip(kernel, dilation):
            total = d * (k - 1)
            pads += [total // 2, total - total // 2]
        return pads[0], pads[1], pads[2], pads[3]
    ph, pw = _pair(padding, "padding")
    if ph < 0 or pw < 0:
        raise RuntimeError("negative padding is not supported")
    return ph, ph, pw, pw


def conv2d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """2-D cross-correlation of ``(N, C, H, W)`` (or unbatched ``(C, H, W)``) input with
    ``(out_channels, C/groups, kH, kW)`` weight; ``padding`` an int, a pair, ``'valid'`` or ``'same'``."""
    _check_input_dim(input, (3, 4), "conv2d")
    if weight.ndim != 4:
        raise RuntimeError(
            f"Expected {input.ndim}-dimensional input for {input.ndim}-dimensional weight {list(weight.shape)}, "
            f"but got {weight.ndim}-dimensional weight"
        )
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    st, dl = _pair(stride, "stride"), _pair(dilation, "dilation")
    if min(st) <= 0:
        raise RuntimeError("non-positive stride is not supported")
    pads = _conv_padding(padding, (weight.shape[2], weight.shape[3]), dl, st)
    unbatched = input.ndim == 3
    x = input.unsqueeze(0) if unbatched else input
    out = _ops.Convolution.apply(x, weight, bias, st, pads, dl, int(groups))
    return out.squeeze(0) if unbatched else out


def conv1d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """1-D cross-correlation of ``(N, C, L)`` (or ``(C, L)``) input with ``(out_channels, C/groups, k)``
    weight: a :func:`conv2d` over a height of 1."""
    _check_input_dim(input, (2, 3), "conv1d")
    if weight.ndim != 3:
        raise RuntimeError(
            f"Expected {input.ndim}-dimensional input for {input.ndim}-dimensional weight {list(weight.shape)}, "
            f"but got {weight.ndim}-dimensional weight"
        )

    pads = padding if isinstance(padding, str) else (0, _single(padding))
    out = conv2d(
        input.unsqueeze(-2), weight.unsqueeze(-2), bias, (1, _single(stride)), pads, (1, _single(dilation)), groups
    )
    return out.squeeze(-2)


def _triple(value: Any, name: str) -> tuple[int, int, int]:
    """An int or three ints as a triple."""
    if isinstance(value, (int, np.integer)):
        return int(value), int(value), int(value)
    items = tuple(int(v) for v in value)
    if len(items) == 1:
        return items[0], items[0], items[0]
    if len(items) != 3:
        raise RuntimeError(
            f"expected {name} to be a single integer value or a list of 3 values to match the convolution "
            f"dimensions, but got {name}={list(items)}"
        )
    return items[0], items[1], items[2]


def conv3d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> Tensor:
    """3-D cross-correlation of ``(N, C, D, H, W)`` (or ``(C, D, H, W)``) input with ``(out_channels,
    C/groups, kD, kH, kW)`` weight: for each output depth, the sum over the kernel's depth of
    :func:`conv2d` of one input slice with one weight slice (exact, and slow for deep kernels)."""
    if input.ndim not in (4, 5):
        raise RuntimeError(
            f"Expected 4D (unbatched) or 5D (batched) input to conv3d, but got input of size: {list(input.shape)}"
        )
    if weight.ndim != 5:
        raise RuntimeError(
            f"Expected {input.ndim}-dimensional input for {input.ndim}-dimensional weight {list(weight.shape)}, "
            f"but got {weight.ndim}-dimensional weight"
        )
    st, dl = _triple(stride, "stride"), _triple(dilation, "dilation")
    kernel = (weight.shape[2], weight.shape[3], weight.shape[4])
    if isinstance(padding, str):
        if padding not in ("valid", "same"):
            raise _padding_string_error(padding)
        if padding == "same" and st != (1, 1, 1):
            raise RuntimeError("padding='same' is not supported for strided convolutions")
        totals = [d * (k - 1) if padding == "same" else 0 for k, d in zip(kernel, dl)]
        pads = [(t // 2, t - t // 2) for t in totals]
    else:
        pads = [(p, p) for p in _triple(padding, "padding")]
    unbatched = input.ndim == 4
    x = input.unsqueeze(0) if unbatched else input
    amounts = [pads[2][0], pads[2][1], pads[1][0], pads[1][1], pads[0][0], pads[0][1]]
    if any(amounts):
        x = pad(x, amounts)
    depth = x.shape[2]
    out_depth = (depth - dl[0] * (kernel[0] - 1) - 1) // st[0] + 1
    if out_depth <= 0:
        raise RuntimeError(
            f"Calculated padded input size per channel: ({depth} x {x.shape[3]} x {x.shape[4]}). Kernel size: "
            f"({kernel[0]} x {kernel[1]} x {kernel[2]}). Kernel size can't be greater than actual input size"
        )
    slices = []
    for o in range(out_depth):
        total: Tensor | None = None
        for kd in range(kernel[0]):
            part = conv2d(x[:, :, o * st[0] + kd * dl[0]], weight[:, :, kd], None, st[1:], 0, dl[1:], groups)
            total = part if total is None else total + part
        assert total is not None
        slices.append(total)
    out = _stack(slices, 2)
    if bias is not None:
        out = out + bias.reshape(1, -1, 1, 1, 1)
    return out.squeeze(0) if unbatched else out


def _single(value: Any) -> int:
    return int(value) if isinstance(value, (int, np.integer)) else int(value[0])


def unfold(input: Tensor, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1) -> Tensor:
    """Every sliding window of a ``(N, C, H, W)`` input as a column: ``(N, C*kH*kW, L)`` (im2col)."""
    _check_input_dim(input, (3, 4), "unfold")
    unbatched = input.ndim == 3
    x = input.unsqueeze(0) if unbatched else input
    ph, pw = _pair(padding, "padding")
    out = _ops.Im2Col.apply(
        x, _pair(kernel_size, "kernel_size"), _pair(dilation, "dilation"), (ph, ph, pw, pw), _pair(stride, "stride")
    )
    return out.squeeze(0) if unbatched else out


def fold(
    input: Tensor, output_size: Any, kernel_size: Any, dilation: Any = 1, padding: Any = 0, stride: Any = 1
) -> Tensor:
    """The adjoint of :func:`unfold`: columns added back into a ``(N, C, H, W)`` image (col2im)."""
    _check_input_dim(input, (2, 3), "fold")
    unbatched = input.ndim == 2
    x = input.unsqueeze(0) if unbatched else input
    ph, pw = _pair(padding, "padding")
    out = _ops.Col2Im.apply(
        x,
        _pair(output_size, "output_size"),
        _pair(kernel_size, "kernel_size"),
        _pair(dilation, "dilation"),
        (ph, ph, pw, pw),
        _pair(stride, "stride"),
    )
    return out.squeeze(0) if unbatched else out


def conv_transpose2d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: int = 1,
    dilation: Any = 1,
) -> Tensor:
    """The transpose (adjoint) of :func:`conv2d`: ``(N, C_in, H, W)`` input, ``(C_in,
    C_out/groups, kH, kW)`` weight; each input pixel spreads a weighted kernel into the output
    (a matrix product, then :func:`fold`, so gradients, double backward and vmap come free).
    The output is ``(H - 1) stride - 2 padding + dilation (kH - 1) + output_padding + 1`` high."""
    if input.ndim not in (3, 4):
        raise RuntimeError(
            "Expected 3D (unbatched) or 4D (batched) input to conv_transpose2d, but got input of size: "
            f"{list(input.shape)}"
        )
    if weight.ndim != 4:
        raise RuntimeError(
            f"Expected {input.ndim}-dimensional input for {input.ndim}-dimensional weight {list(weight.shape)}, "
            f"but got {weight.ndim}-dimensional weight"
        )
    unbatched = input.ndim == 3
    x = input.unsqueeze(0) if unbatched else input
    n, c_in, h, w = x.shape
    if c_in != weight.shape[0]:
        raise RuntimeError(
            f"Given transposed=1, weight of size {list(weight.shape)}, expected input{list(x.shape)} to have "
            f"{weight.shape[0]} channels, but got {c_in} channels instead"
        )
    if groups <= 0 or c_in % groups:
        raise RuntimeError("non-positive groups is not supported" if groups <= 0 else "Given groups, weight mismatch")
    st, pd, out_pad, dl = (
        _pair(v, name)
        for v, name in (
            (stride, "stride"),
            (padding, "padding"),
            (output_padding, "output_padding"),
            (dilation, "dilation"),
        )
    )
    if any(o >= s and o >= d for o, s, d in zip(out_pad, st, dl)):
        raise RuntimeError(
            "output padding must be smaller than either stride or dilation, but got "
            f"output_padding_height: {out_pad[0]} output_padding_width: {out_pad[1]} stride_height: {st[0]} "
            f"stride_width: {st[1]} dilation_height: {dl[0]} dilation_width: {dl[1]}"
        )
    kh, kw = weight.shape[2], weight.shape[3]
    c_out_g = weight.shape[1]
    # Every window spread out (no padding), then ``padding`` cropped from the start of each
    # dimension and ``padding - output_padding`` from its end (a negative crop pads with zeros).
    full_size = tuple((size - 1) * s + d * (k - 1) + 1 for size, s, d, k in zip((h, w), st, dl, (kh, kw)))
    per_group = c_in // groups
    flat = x.reshape(n, groups, per_group, h * w)
    kernels = weight.reshape(groups, per_group, c_out_g * kh * kw)
    # cols[n, g] = kernels[g]^T @ x[n, g]: (C_out/groups * kH * kW, H * W) per group.
    cols = kernels.mT @ flat
    cols = cols.reshape(n, groups * c_out_g * kh * kw, h * w)
    out = fold(cols, full_size, (kh, kw), dl, 0, st)
    if any(pd) or any(out_pad):
        out = pad(out, (-pd[1], out_pad[1] - pd[1], -pd[0], out_pad[0] - pd[0]))
    if bias is not None:
        out = out + bias.reshape(1, -1, 1, 1)
    return out.squeeze(0) if unbatched else out


def conv_transpose1d(
    input: Tensor,
    weight: Tensor,
    bias: Tensor | None = None,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: int = 1,
    dilation: Any = 1,
) -> Tensor:
    """The transpose of :func:`conv1d`: a :func:`conv_transpose2d` over a height of 1."""
    if input.ndim not in (2, 3):
        raise RuntimeError(
            "Expected 2D (unbatched) or 3D (batched) input to conv_transpose1d, but got input of size: "
            f"{list(input.shape)}"
        )
    if weight.ndim != 3:
        raise RuntimeError(
            f"Expected {input.ndim}-dimensional input for {input.ndim}-dimensional weight {list(weight.shape)}, "
            f"but got {weight.ndim}-dimensional weight"
        )
    out = conv_transpose2d(
        input.unsqueeze(-2),
        weight.unsqueeze(-2),
        bias,
        (1, _single(stride)),
        (0, _single(padding)),
        (0, _single(output_padding)),
        groups,
        (1, _single(dilation)),
    )
    return out.squeeze(-2)


def _check_window(kernel: tuple[int, ...], stride: tuple[int, ...], axes: str) -> None:
    """Torch's refusals of a pooling window: a zero stride (also the default stride of a zero
    kernel), a kernel or stride not positive (named per axis: ``kH: 0 kW: 0``)."""
    if 0 in stride:
        raise RuntimeError("stride should not be zero")
    if min(kernel) <= 0:
        sizes = " ".join(f"k{a}: {k}" for a, k in zip(axes, kernel))
        raise RuntimeError(f"kernel size should be greater than zero, but got {sizes}")
    if min(stride) <= 0:
        steps = " ".join(f"d{a}: {d}" for a, d in zip(axes, stride))
        raise RuntimeError(f"stride should be greater than zero, but got {steps}")


def _pool_args(kernel_size: Any, stride: Any, padding: Any) -> tuple[tuple[int, int], tuple[int, int], tuple[int, int]]:
    kernel = _pair(kernel_size, "kernel_size")
    st = kernel if stride is None or (not isinstance(stride, int) and len(stride) == 0) else _pair(stride, "stride")
    pad = _pair(padding, "padding")
    _check_window(kernel, st, "HW")
    if pad[0] > kernel[0] // 2 or pad[1] > kernel[1] // 2:
        raise RuntimeError(
            f"pad should be at most half of effective kernel size, but got pad={max(pad)}, "
            f"kernel_size={max(kernel)} and dilation=1"
        )
    return kernel, st, pad


@replayed_whole
def max_pool2d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """The maximum of each ``kernel_size`` window of a ``(N, C, H, W)`` (or ``(C, H, W)``) input;
    with ``return_indices=True`` also the flat position of each maximum within its ``H*W`` plane."""
    _check_input_dim(input, (3, 4), "max_pool2d")
    kernel, st, pad = _pool_args(kernel_size, stride, padding)
    unbatched = input.ndim == 3
    x = input.unsqueeze(0) if unbatched else input
    dilation2 = _pair(dilation, "dilation")
    out = _ops.MaxPool2d.apply(x, kernel, st, pad, dilation2, bool(ceil_mode))
    node = out.grad_fn  # the pooling node, before any squeeze
    if unbatched:
        out = out.squeeze(0)
    if return_indices:
        if node is not None:
            indices = Tensor(node.indices)  # type: ignore[attr-defined]
        else:
            indices = Tensor(_ops.max_pool2d_with_indices(x._data, kernel, st, pad, dilation2, bool(ceil_mode))[1])
        return out, (indices.squeeze(0) if unbatched else indices)
    return out


def avg_pool2d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Tensor:
    """The mean of each ``kernel_size`` window (zero padding counts unless ``count_include_pad=False``;
    with ``ceil_mode`` the last, partial windows average over what they cover of the padded input)."""
    _check_input_dim(input, (3, 4), "avg_pool2d")
    kernel, st, pad = _pool_args(kernel_size, stride, padding)
    unbatched = input.ndim == 3
    x = input.unsqueeze(0) if unbatched else input
    n, c, h, w = x.shape
    out_sizes, extra = [], []
    for size, k, s, p in zip((h, w), kernel, st, pad):
        o = _ops.pool_out_size(size, k, s, p, 1, ceil_mode)
        out_sizes.append(o)
        extra.append(max(0, (o - 1) * s + k - (size + 2 * p)))  # room the partial ceil_mode windows need
    oh, ow = out_sizes
    pads = (pad[0], pad[0] + extra[0], pad[1], pad[1] + extra[1])
    sums = _ops.Im2Col.apply(x, kernel, (1, 1), pads, st).reshape(n, c, kernel[0] * kernel[1], oh, ow).sum(2)
    if divisor_override is not None:
        return _unbatch(sums / divisor_override, unbatched)
    if not any(extra) and (count_include_pad or not any(pad)):
        return _unbatch(sums / (kernel[0] * kernel[1]), unbatched)
    # How many elements each window averages: those of the padded input (count_include_pad)
    # or of the input itself, never the extra room of ceil_mode.
    if count_include_pad:
        ones: np.ndarray[Any, Any] = np.ones((1, 1, h + 2 * pad[0], w + 2 * pad[1]), dtype=x.dtype)
        count_pads = (0, extra[0], 0, extra[1])
    else:
        ones = np.ones((1, 1, h, w), dtype=x.dtype)
        count_pads = pads
    counts = _ops.Im2Col.apply(Tensor(ones), kernel, (1, 1), count_pads, st).reshape(1, 1, -1, oh, ow).sum(2)
    return _unbatch(sums / counts, unbatched)


# =========================================================================== 1-d and adaptive pooling
def avg_pool1d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
) -> Tensor:
    """The mean of each ``kernel_size`` window of ``(N, C, L)`` (or ``(C, L)``) input: an
    :func:`avg_pool2d` over a height of 1."""
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument #1 'self' "
            "(while checking arguments for avg_pool1d)"
        )
    k = _single(kernel_size)
    s = k if stride is None or (not isinstance(stride, int) and len(stride) == 0) else _single(stride)
    out = avg_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, _single(padding)), ceil_mode, count_include_pad)
    return out.squeeze(-2)


@replayed_whole
def max_pool1d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """The maximum of each ``kernel_size`` window of ``(N, C, L)`` (or ``(C, L)``) input: a
    :func:`max_pool2d` over a height of 1 (indices are positions along ``L``)."""
    if input.ndim not in (2, 3):
        raise RuntimeError(
            "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, but "
            f"got:{list(input.shape)}"
        )
    k = _single(kernel_size)
    if k <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {k}")
    s = k if stride is None or (not isinstance(stride, int) and len(stride) == 0) else _single(stride)
    result = max_pool2d(
        input.unsqueeze(-2), (1, k), (1, s), (0, _single(padding)), (1, _single(dilation)), ceil_mode, return_indices
    )
    if return_indices:
        out, indices = result
        return out.squeeze(-2), indices.squeeze(-2)
    squeezed: Tensor = result.squeeze(-2)
    return squeezed


def _adaptive_bounds(size: int, out: int) -> list[tuple[int, int]]:
    """torch's adaptive windows: output ``j`` covers ``[floor(j size / out), ceil((j + 1) size / out))``."""
    return [((j * size) // out, -((-(j + 1) * size) // out)) for j in range(out)]


def _output_pair(output_size: Any, spatial: tuple[int, ...], name: str) -> tuple[int, ...]:
    """``output_size`` as one int per spatial dimension (``None`` keeps the input's size)."""
    n = len(spatial)
    if isinstance(output_size, (int, np.integer)):
        sizes: list[Any] = [int(output_size)] * n
    else:
        sizes = list(output_size)
        if len(sizes) != n:
            if n == 1:
                raise RuntimeError(f"{name}() argument 'output_size' should contain one int (got {len(sizes)})")
            raise RuntimeError(f"{name}: output_size must be {n}")
    return tuple(spatial[i] if s is None else int(s) for i, s in enumerate(sizes))


def _averaging_matrix(size: int, out: int, dtype: Any) -> Tensor:
    """``(out, size)``: row ``j`` averages the input positions of adaptive window ``j``."""
    matrix = np.zeros((out, size), dtype=dtype)
    for j, (lo, hi) in enumerate(_adaptive_bounds(size, out)):
        matrix[j, lo:hi] = 1.0 / (hi - lo)
    return Tensor(matrix)


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:
    """Average ``(N, C, L)`` (or ``(C, L)``) input over ``output_size`` windows of (nearly) equal
    length, as torch chooses them."""
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument #1 'self' "
            "(while checking arguments for adaptive_avg_pool1d)"
        )
    (out,) = _output_pair(output_size, (input.shape[-1],), "adaptive_avg_pool1d")
    return input @ _averaging_matrix(input.shape[-1], out, input.dtype).mT


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """Average ``(N, C, H, W)`` (or ``(C, H, W)``) input over an ``output_size`` grid of windows
    (a matrix product on each side, so gradients and vmap come from ``matmul``)."""
    if input.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {list(input.shape)}")
    h, w = input.shape[-2], input.shape[-1]
    oh, ow = _output_pair(output_size, (h, w), "adaptive_avg_pool2d")
    rows = _averaging_matrix(h, oh, input.dtype)
    cols = _averaging_matrix(w, ow, input.dtype)
    return rows @ input @ cols.mT


@replayed_whole
def _adaptive_max(input: Tensor, sizes: tuple[int, ...], return_indices: bool) -> Any:
    """The maximum of each adaptive window of the last ``len(sizes)`` dimensions (and, with
    ``return_indices``, its flat position within those dimensions)."""
    spatial = tuple(input.shape[input.ndim - len(sizes) :])
    bounds = [_adaptive_bounds(n, o) for n, o in zip(spatial, sizes)]
    dims = tuple(range(-len(sizes), 0))
    cells = []
    for corner in np.ndindex(*sizes):
        window = input
        for axis, (j, b) in enumerate(zip(corner, bounds)):
            lo, hi = b[j]
            window = window.narrow(input.ndim - len(sizes) + axis, lo, hi - lo)
        cells.append(window.amax(dims))
    out = _stack(cells, -1).reshape(*input.shape[: input.ndim - len(sizes)], *sizes)
    if not return_indices:
        return out
    data = input.detach().numpy()
    index = np.empty(out.shape, dtype=np.int64)
    for corner in np.ndindex(*sizes):
        ranges = [b[j] for j, b in zip(corner, bounds)]
        block = data[(...,) + tuple(slice(lo, hi) for lo, hi in ranges)]
        flat = block.reshape(*block.shape[: block.ndim - len(sizes)], -1).argmax(-1)
        local = np.unravel_index(flat, tuple(hi - lo for lo, hi in ranges))
        position = np.ravel_multi_index(tuple(lo + p for (lo, _), p in zip(ranges, local)), spatial)
        index[(...,) + tuple(corner)] = position
    return out, Tensor(index)


def _stack(tensors: list[Tensor], dim: int) -> Tensor:
    from ctxgrad.ops.shape import stack

    out: Tensor = stack(tensors, dim)
    return out


def adaptive_max_pool1d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """The maximum over ``output_size`` adaptive windows of ``(N, C, L)`` (or ``(C, L)``) input."""
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument #1 'self' "
            "(while checking arguments for adaptive_max_pool1d)"
        )
    sizes = _output_pair(output_size, (input.shape[-1],), "adaptive_max_pool1d")
    return _adaptive_max(input, sizes, return_indices)


def adaptive_max_pool2d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """The maximum over an ``output_size`` grid of adaptive windows of ``(N, C, H, W)`` (or
    ``(C, H, W)``) input; indices are flat positions within ``H * W``."""
    if input.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: {list(input.shape)}")
    sizes = _output_pair(output_size, (input.shape[-2], input.shape[-1]), "adaptive_max_pool2d")
    return _adaptive_max(input, sizes, return_indices)


def _pool3d_args(
    kernel_size: Any, stride: Any, padding: Any
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    kernel = _triple(kernel_size, "kernel_size")
    st = kernel if stride is None or (not isinstance(stride, int) and len(stride) == 0) else _triple(stride, "stride")
    pd = _triple(padding, "padding")
    _check_window(kernel, st, "THW")
    if any(p > k // 2 for p, k in zip(pd, kernel)):
        raise RuntimeError(
            f"pad should be at most half of effective kernel size, but got pad={max(pd)}, "
            f"kernel_size={max(kernel)} and dilation=1"
        )
    return kernel, st, pd


@replayed_whole
def max_pool3d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Tensor:
    """The maximum of each ``kernel_size`` window of ``(N, C, D, H, W)`` (or ``(C, D, H, W)``)
    input: for each output depth, the maximum over the window's depth of :func:`max_pool2d`."""
    if return_indices or ceil_mode or dilation != 1:
        raise NotImplementedError(
            "ctxgrad.nn.functional.max_pool3d: return_indices, ceil_mode and dilation are not supported"
        )
    if input.ndim not in (4, 5):
        raise RuntimeError(f"max_pool3d: Expected 4D or 5D tensor for input, but got: {list(input.shape)}")
    kernel, st, pd = _pool3d_args(kernel_size, stride, padding)
    unbatched = input.ndim == 4
    x = input.unsqueeze(0) if unbatched else input
    depth = x.shape[2]
    out_depth = (depth + 2 * pd[0] - kernel[0]) // st[0] + 1
    slices = []
    for o in range(out_depth):  # the window's depths inside the input (padding never wins a max)
        first = o * st[0] - pd[0]
        planes = [
            max_pool2d(x[:, :, first + kd], kernel[1:], st[1:], pd[1:])
            for kd in range(kernel[0])
            if 0 <= first + kd < depth
        ]
        slices.append(_stack(planes, 0).amax(0))
    out = _stack(slices, 2)
    return out.squeeze(0) if unbatched else out


def avg_pool3d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Tensor:
    """The mean of each ``kernel_size`` window of ``(N, C, D, H, W)`` (or ``(C, D, H, W)``) input
    (zero padding counts): the mean over the window's depth of :func:`avg_pool2d`."""
    if ceil_mode or not count_include_pad or divisor_override is not None:
        raise NotImplementedError(
            "ctxgrad.nn.functional.avg_pool3d: ceil_mode, count_include_pad=False and divisor_override are not "
            "supported"
        )
    if input.ndim not in (4, 5):
        raise RuntimeError(f"avg_pool3d: Expected 4D or 5D tensor for input, but got: {list(input.shape)}")
    kernel, st, pd = _pool3d_args(kernel_size, stride, padding)
    unbatched = input.ndim == 4
    x = input.unsqueeze(0) if unbatched else input
    depth = x.shape[2]
    out_depth = (depth + 2 * pd[0] - kernel[0]) // st[0] + 1
    slices = []
    for o in range(out_depth):  # padded depths add zeros but count in the mean
        first = o * st[0] - pd[0]
        planes = [
            avg_pool2d(x[:, :, first + kd], kernel[1:], st[1:], pd[1:])
            for kd in range(kernel[0])
            if 0 <= first + kd < depth
        ]
        slices.append(_stack(planes, 0).sum(0) / kernel[0])
    out = _stack(slices, 2)
    return out.squeeze(0) if unbatched else out


def adaptive_avg_pool3d(input: Tensor, output_size: Any) -> Tensor:
    """Average ``(N, C, D, H, W)`` (or ``(C, D, H, W)``) input over an ``output_size`` grid of
    adaptive windows (a matrix product along each dimension)."""
    if input.ndim not in (4, 5):
        raise RuntimeError(f"adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got {list(input.shape)}")
    d, h, w = input.shape[-3], input.shape[-2], input.shape[-1]
    od, oh, ow = _output_pair(output_size, (d, h, w), "adaptive_avg_pool3d")
    from ctxgrad.ops.linalg import einsum

    out: Tensor = einsum(
        "...dhw,ad,bh,cw->...abc",
        input,
        _averaging_matrix(d, od, input.dtype),
        _averaging_matrix(h, oh, input.dtype),
        _averaging_matrix(w, ow, input.dtype),
    )
    return out


def adaptive_max_pool3d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """The maximum over an ``output_size`` grid of adaptive windows of ``(N, C, D, H, W)`` (or
    ``(C, D, H, W)``) input; indices are flat positions within ``D * H * W``."""
    if input.ndim not in (4, 5):
        raise RuntimeError(f"adaptive_max_pool3d(): Expected 4D or 5D tensor, but got: {list(input.shape)}")
    sizes = _output_pair(output_size, tuple(input.shape[-3:]), "adaptive_max_pool3d")
    return _adaptive_max(input, sizes, return_indices)


def _unbatch(out: Tensor, unbatched: bool) -> Tensor:
    return out.squeeze(0) if unbatched else out


@replayed_whole
def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)`` (training
    only; the identity otherwise).  The mask comes from ctxgrad's generator (``ctxgrad.manual_seed``)."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        mask = Tensor(np.zeros(input.shape, dtype=input.dtype))
    elif _under_vmap(input):  # a mask per sample, or one for all, as vmap's randomness says
        mask = (_factories.rand(*input.shape, dtype=np.float64) >= p).to(input.dtype) / (1.0 - p)
    else:
        keep = _factories._generator.random(input.shape) >= p
        mask = Tensor((keep / (1.0 - p)).astype(input.dtype))  # (in the input dtype, as torch)
    return input.mul_(mask) if inplace else input * mask


def layer_norm(
    input: Tensor,
    normalized_shape: Sequence[int] | int,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    eps: float = 1e-5,
) -> Tensor:
    """Normalise over the last ``len(normalized_shape)`` dimensions to zero mean and unit
    (biased) variance, then scale by ``weight`` and shift by ``bias``."""
    shape = (int(normalized_shape),) if isinstance(normalized_shape, (int, np.integer)) else tuple(normalized_shape)
    k = len(shape)
    if k == 0 or tuple(input.shape[input.ndim - k :]) != shape or input.ndim < k:
        raise RuntimeError(
            f"Given normalized_shape={list(shape)}, expected input with shape [*, {', '.join(map(str, shape))}], "
            f"but got input of size{list(input.shape)}"
        )
    dims = tuple(range(input.ndim - k, input.ndim))
    mean = input.mean(dims, keepdim=True)
    centred = input - mean
    var = (centred * centred).mean(dims, keepdim=True)
    out = centred * (var + eps).rsqrt()
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out


def batch_norm(
    input: Tensor,
    running_mean: Tensor | None,
    running_var: Tensor | None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    training: bool = False,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Normalise each channel (dimension 1) over the batch and spatial dimensions.

    Training uses the batch's mean and biased variance, and updates ``running_mean`` and
    ``running_var`` in place (``(1 - momentum) * running + momentum * batch``, the variance
    unbiased); evaluation uses the running statistics.
    """
    if input.ndim < 2:
        raise ValueError(f"expected 2D or 3D input (got {input.ndim}D input)")
    c = input.shape[1]
    dims = (0, *range(2, input.ndim))
    shape = (1, c) + (1,) * (input.ndim - 2)
    if training:
        count = input.numel() // c
        if count <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size {input.shape}")
        mean = input.mean(dims, keepdim=True)
        centred = input - mean
        var = (centred * centred).mean(dims, keepdim=True)
        if running_mean is not None and running_var is not None:
            with no_grad():
                running_mean.mul_(1.0 - momentum).add_(mean.detach().reshape(c) * momentum)
                running_var.mul_(1.0 - momentum).add_(var.detach().reshape(c) * (momentum * count / (count - 1)))
        out = centred * (var + eps).rsqrt()
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
        out = (input - running_mean.reshape(shape)) * (running_var.reshape(shape) + eps).rsqrt()
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


def embedding(
    input: Tensor,
    weight: Tensor,
    padding_idx: int | None = None,
    max_norm: float | None = None,
    norm_type: float = 2.0,
    scale_grad_by_freq: bool = False,
    sparse: bool = False,
) -> Tensor:
    """Rows of ``weight`` picked by the integer tensor ``input``; the row ``padding_idx`` gets no
    gradient.  ``max_norm`` first rescales, in place, each picked row whose ``norm_type``-norm
    exceeds it; ``scale_grad_by_freq`` divides each row's gradient by its count in ``input``."""
    if sparse:
        raise NotImplementedError("ctxgrad.nn.functional.embedding: sparse=True is not supported (gradients are dense)")
    num = weight.shape[0]
    if padding_idx is not None:
        if not -num <= padding_idx < num:
            raise AssertionError("Padding_idx must be within num_embeddings")
        padding_idx = padding_idx + num if padding_idx < 0 else padding_idx
    if max_norm is not None:
        _embedding_renorm_(weight, input, float(max_norm), float(norm_type))
    return _ops.Embedding.apply(
        input, weight, -1 if padding_idx is None else int(padding_idx), bool(scale_grad_by_freq)
    )


def _check_bag_offsets(starts: np.ndarray[Any, Any], total: int) -> None:
    """Torch's refusals of ``embedding_bag`` offsets past the input or going back (a negative
    one reads before the input: IndexError)."""
    if starts.size and starts[-1] > total:
        raise RuntimeError(
            f"offsets[-1] can not be greater than input's length {total} but got offsets[-1] of {starts[-1]}"
        )
    if starts.size and starts.min() < 0:
        raise IndexError(f"index out of range in self (embedding_bag: offsets has a negative value, {starts.min()})")
    back = np.flatnonzero(np.diff(starts) < 0)
    if back.size:
        k = int(back[0]) + 1
        raise RuntimeError(
            f"embedding_bag: offsets have to be non-decreasing, but got offsets[{k}] = {starts[k]} after "
            f"offsets[{k - 1}] = {starts[k - 1]}"
        )


@replayed_whole
def embedding_bag(
    input: Tensor,
    weight: Tensor,
    offsets: Tensor | None = None,
    max_norm: float | None = None,
    norm_type: float = 2,
    scale_grad_by_freq: bool = False,
    mode: str = "mean",
    sparse: bool = False,
    per_sample_weights: Tensor | None = None,
    include_last_offset: bool = False,
    padding_idx: int | None = None,
) -> Tensor:
    """The sum, mean or max of each bag of embeddings, without making the ``(bags, length, D)``
    tensor: a 2-D ``input`` holds one bag per row; a 1-D one is cut into bags at ``offsets``.
    ``per_sample_weights`` scales each row (``mode='sum'``); ``padding_idx`` rows are left out
    (and not counted by the mean); an empty bag gives zeros."""
    if sparse:
        raise NotImplementedError("ctxgrad.nn.functional.embedding_bag: sparse=True is not supported")
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError(
                "if input is 2D, then offsets has to be None, as input is treated is a mini-batch of fixed length "
                f"sequences. However, found offsets of type {type(offsets)}"
            )
        bags, length = input.shape
        starts = np.arange(0, bags * length, length, dtype=np.int64)
        flat = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.ndim == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.ndim != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        starts = offsets.detach().numpy().astype(np.int64)
        flat = input
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.ndim}")
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only supported for mode='sum' "
            f"(got mode='{mode}'). Please open a feature request on GitHub."
        )
    if starts.size and starts[0] != 0:
        raise RuntimeError(
            "offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start from position 0. "
            f"However, got {starts[0]}"
        )
    total = flat.shape[0]
    _check_bag_offsets(starts, total)
    ends = np.append(starts[1:], total) if not include_last_offset else starts[1:]
    starts = starts if not include_last_offset else starts[:-1]
    ends = np.minimum(ends, total)
    if max_norm is not None:
        _embedding_renorm_(weight, flat, float(max_norm), float(norm_type))
    indices = flat.detach().numpy().astype(np.int64)
    keep = np.ones(total, dtype=bool) if padding_idx is None else indices != padding_idx % weight.shape[0]
    rows = _ops.Embedding.apply(flat, weight, -1, bool(scale_grad_by_freq))  # (total, D)
    if per_sample_weights is not None:
        rows = rows * per_sample_weights.unsqueeze(-1)
    dtype = weight.dtype
    if mode == "max":
        out = []
        for lo, hi in zip(starts, ends):
            chosen = np.nonzero(keep[lo:hi])[0] + lo
            if chosen.size == 0:
                out.append(_factories.zeros(weight.shape[1], dtype=dtype))
            else:
                out.append(rows.index_select(0, Tensor(chosen)).amax(0))
        result: Tensor = _stack(out, 0)
        return result
    # sum and mean: a (bags, total) matrix of 1s (or 1/count) picks and adds each bag's rows.
    bag_of: np.ndarray[Any, Any] = np.zeros((len(starts), total), dtype=dtype)
    for b, (lo, hi) in enumerate(zip(starts, ends)):
        bag_of[b, lo:hi] = keep[lo:hi]
        if mode == "mean":
            count = bag_of[b].sum()
            if count:
                bag_of[b] /= count
    summed: Tensor = Tensor(bag_of) @ rows
    return summed


def _embedding_renorm_(weight: Tensor, input: Tensor, max_norm: float, norm_type: float) -> None:
    """torch's ``embedding_renorm_``: scale each used row with norm above ``max_norm`` down to it, unrecorded."""
    data = weight._data
    rows = np.unique(input._data)
    if rows.size == 0:
        return
    norms = np.linalg.norm(data[rows], ord=norm_type, axis=1)
    over = norms > max_norm
    if over.any():
        scale = (max_norm / (norms[over] + 1e-7)).astype(data.dtype)
        with no_grad():
            index = Tensor(rows[over])
            weight[index] = weight[index] * Tensor(scale[:, None])


@replayed_whole
def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """``(*, num_classes)`` int64 with a 1 at each value of the integer ``tensor``."""
    data = tensor._data
    if data.dtype.kind not in "iu":
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        if data.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(data.max()) + 1
    if data.size and data.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if data.size and data.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    return Tensor((data[..., None] == np.arange(num_classes)).astype(np.int64))


def pad(input: Tensor, pad: Sequence[int], mode: str = "constant", value: float | None = None) -> Tensor:
    """Pad the last ``len(pad) // 2`` dimensions: ``pad = (last_before, last_after, prev_before, ...)``
    (torch's order, last dimension first).  Negative amounts crop.

    ``mode='constant'`` fills with ``value`` (0 by default); ``'reflect'`` mirrors without
    repeating the edge, ``'replicate'`` repeats the edge, ``'circular'`` wraps around.  The
    other modes are gathers (``index_select``), so their gradients add up the copies.
    """
    amounts = [int(a) for a in pad]
    if len(amounts) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(amounts) // 2 > input.ndim:
        raise RuntimeError(
            "Padding length should be less than or equal to two times the input dimension but got "
            f"padding length {len(amounts)} and input of dimension {input.ndim}"
        )
    pairs = [(0, 0)] * input.ndim
    for i in range(len(amounts) // 2):
        pairs[input.ndim - 1 - i] = (amounts[2 * i], amounts[2 * i + 1])
    if mode == "constant":
        return _ops.ConstantPad.apply(input, tuple(pairs), 0.0 if value is None else float(value))
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise ValueError(f'Padding mode "{mode}" doesn\'t take in value argument')
    n_padded = len(amounts) // 2
    if n_padded > 3 or input.ndim not in (n_padded + 1, n_padded + 2):
        raise NotImplementedError(
            f"Padding size {len(amounts)} is not supported for {input.ndim}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)"
        )
    out = input
    for dim, (before, after) in enumerate(pairs):
        if before == 0 and after == 0:
            continue
        size = input.shape[dim]
        if mode == "reflect" and (before >= size or after >= size):
            raise RuntimeError(
                f"Argument #4: Padding size should be less than the corresponding input dimension, but got: "
                f"padding ({before}, {after}) at dimension {dim} of input {list(input.shape)}"
            )
        if mode == "circular" and (before > size or after > size):
            raise RuntimeError("Padding value causes wrapping around more than once.")
        positions = np.arange(-before, size + after)
        if mode == "reflect":
            positions = np.where(positions < 0, -positions, positions)
            positions = np.where(positions >= size, 2 * (size - 1) - positions, positions)
        elif mode == "replicate":
            positions = np.clip(positions, 0, size - 1)
        else:
            positions = positions % size
        out = out.index_select(dim, Tensor(positions.astype(np.int64)))
    return out


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    """``(*, C r², H, W)`` to ``(*, C, H r, W r)``: each group of ``r²`` channels becomes an
    ``r x r`` block of pixels (a reshape and a permutation, so its gradient is exact)."""
    if input.ndim < 3:
        raise RuntimeError(
            f"pixel_shuffle expects input to have at least 3 dimensions, but got input with {input.ndim} dimension(s)"
        )
    r = int(upscale_factor)
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    *batch, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError(
            f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of upscale_factor, "
            f"but input.size(-3)={c} is not divisible by {r * r}"
        )
    n = len(batch)
    x = input.reshape(*batch, c // (r * r), r, r, h, w)
    x = x.permute(*range(n), n, n + 3, n + 1, n + 4, n + 2)
    return x.reshape(*batch, c // (r * r), h * r, w * r)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """The inverse of :func:`pixel_shuffle`: ``(*, C, H r, W r)`` to ``(*, C r², H, W)``."""
    if input.ndim < 3:
        raise RuntimeError(
            f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with {input.ndim} dimension(s)"
        )
    r = int(downscale_factor)
    if r <= 0:
        raise RuntimeError(f"pixel_unshuffle expects a positive downscale_factor, but got {r}")
    *batch, c, h, w = input.shape
    if h % r:
        raise RuntimeError(
            f"pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)={h} is not "
            f"divisible by {r}"
        )
    if w % r:
        raise RuntimeError(
            f"pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)={w} is not "
            f"divisible by {r}"
        )
    n = len(batch)
    x = input.reshape(*batch, c, h // r, r, w // r, r)
    x = x.permute(*range(n), n, n + 2, n + 4, n + 1, n + 3)
    return x.reshape(*batch, c * r * r, h // r, w // r)


# =========================================================================== more normalisation and dropout
def _channel_shape(input: Tensor) -> tuple[int, ...]:
    """``(1, C, 1, ...)``: a per-channel tensor broadcast against ``(N, C, *)`` input."""
    return (1, input.shape[1]) + (1,) * (input.ndim - 2)


def _affine(out: Tensor, weight: Tensor | None, bias: Tensor | None, shape: tuple[int, ...]) -> Tensor:
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


def group_norm(
    input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = None, eps: float = 1e-5
) -> Tensor:
    """Normalise ``(N, C, *)`` input over each group of ``C / num_groups`` channels (and all
    positions) to zero mean and unit biased variance, then scale and shift per channel."""
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.ndim}")
    n, c = input.shape[0], input.shape[1]
    if c % num_groups:
        raise RuntimeError(
            "Expected number of channels in input to be divisible by num_groups, but got input of shape "
            f"{list(input.shape)} and num_groups={num_groups}"
        )
    grouped = input.reshape(n, num_groups, -1)
    mean = grouped.mean(-1, keepdim=True)
    centred = grouped - mean
    var = (centred * centred).mean(-1, keepdim=True)
    out = (centred * (var + eps).rsqrt()).reshape(input.shape)
    return _affine(out, weight, bias, _channel_shape(input))


def instance_norm(
    input: Tensor,
    running_mean: Tensor | None = None,
    running_var: Tensor | None = None,
    weight: Tensor | None = None,
    bias: Tensor | None = None,
    use_input_stats: bool = True,
    momentum: float = 0.1,
    eps: float = 1e-5,
) -> Tensor:
    """Normalise each channel of each sample of ``(N, C, *)`` input over its positions.

    With ``use_input_stats`` the sample's own statistics are used and, when running statistics
    are given, their batch average is folded into them in place (the variance unbiased), as
    torch does; otherwise the running statistics normalise."""
    if use_input_stats:
        spatial = int(np.prod(input.shape[2:]))
        if spatial == 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input size {input.shape}")
    shape = _channel_shape(input)
    if not use_input_stats:
        if running_mean is None or running_var is None:
            raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false")
        out = (input - running_mean.reshape(shape)) * (running_var.reshape(shape) + eps).rsqrt()
        return _affine(out, weight, bias, shape)
    dims = tuple(range(2, input.ndim))
    mean = input.mean(dims, keepdim=True)
    centred = input - mean
    var = (centred * centred).mean(dims, keepdim=True)
    if running_mean is not None and running_var is not None:
        c = input.shape[1]
        with no_grad():
            batch_mean = mean.detach().reshape(-1, c).mean(0)
            batch_var = var.detach().reshape(-1, c).mean(0) * (spatial / (spatial - 1))
            running_mean.mul_(1.0 - momentum).add_(batch_mean * momentum)
            running_var.mul_(1.0 - momentum).add_(batch_var * momentum)
    return _affine(centred * (var + eps).rsqrt(), weight, bias, shape)


def rms_norm(
    input: Tensor, normalized_shape: Sequence[int] | int, weight: Tensor | None = None, eps: float | None = None
) -> Tensor:
    """``x / sqrt(mean(x²) + eps) * weight`` over the last ``len(normalized_shape)`` dimensions
    (``eps`` defaults to the dtype's machine epsilon)."""
    shape = (int(normalized_shape),) if isinstance(normalized_shape, (int, np.integer)) else tuple(normalized_shape)
    k = len(shape)
    if k == 0 or input.ndim < k or tuple(input.shape[input.ndim - k :]) != shape:
        raise RuntimeError(
            f"Given normalized_shape={list(shape)}, expected input with shape [*{', '.join(map(str, shape))}], "
            f"but got input of size{list(input.shape)}"
        )
    if eps is None:
        eps = float(np.finfo(input.dtype).eps)
    dims = tuple(range(input.ndim - k, input.ndim))
    out = input * ((input * input).mean(dims, keepdim=True) + eps).rsqrt()
    return out if weight is None else out * weight


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1.0) -> Tensor:
    """Divide each element by ``(k + alpha * mean of x² over size neighbouring channels) ** beta``
    (the window is zero-padded at the ends, as torch's)."""
    if input.ndim < 3:
        raise ValueError(
            f"Expected 3D or higher dimensionality                          input (got {input.ndim} dimensions)"
        )
    if input.numel() == 0:
        return input
    c = input.shape[1]
    squares = pad(input * input, [0, 0] * (input.ndim - 2) + [size // 2, (size - 1) // 2])
    window = squares.narrow(1, 0, c)
    for offset in range(1, size):
        window = window + squares.narrow(1, offset, c)
    return input / ((window / size) * alpha + k) ** beta


def _keep_mask(shape: tuple[int, ...], p: float, dtype: Any, under_vmap: bool) -> Tensor:
    """1 with probability ``1 - p``, else 0, from ctxgrad's generator (as :func:`dropout`)."""
    if under_vmap:
        return (_factories.rand(*shape, dtype=np.float64) >= p).to(dtype)
    return Tensor((_factories._generator.random(shape) >= p).astype(dtype))


def _feature_dropout(input: Tensor, p: float, training: bool, inplace: bool, alpha: bool) -> Tensor:
    """Zero (or, with ``alpha``, set to SELU's negative saturation) whole channels: one draw
    per ``(sample, channel)``, broadcast over the positions."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2)
    return _apply_dropout(input, p, inplace, alpha, shape)


def _apply_dropout(input: Tensor, p: float, inplace: bool, alpha: bool, shape: tuple[int, ...]) -> Tensor:
    keep = _keep_mask(shape, p, input.dtype, _under_vmap(input))
    if not alpha:
        mask = keep * (0.0 if p == 1.0 else 1.0 / (1.0 - p))
        return input.mul_(mask) if inplace else input * mask
    # torch's alpha dropout: keep the mean and variance of SELU-normalised input.
    saturation = 1.7580993408473766
    a = 1.0 / float(np.sqrt((saturation * saturation * p + 1) * (1 - p)))
    shift = (keep - 1) * (saturation * a) + saturation * a * p
    scale = keep * a
    return input.mul_(scale).add_(shift) if inplace else input * scale + shift


@replayed_whole
def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of ``(N, C, L)`` (or ``(C, L)``) input with probability ``p``, scaling
    the rest by ``1 / (1 - p)`` (training only)."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input. "
            "Note that dropout1d exists to provide channel-wise dropout on inputs with 1 "
            "spatial dimension, a channel dimension, and an optional batch dimension "
            "(i.e. 2D or 3D inputs)."
        )
    if not training or p == 0.0:
        return input
    if input.ndim == 2:
        if inplace:
            _feature_dropout(input.unsqueeze(0), p, training, True, False)
            return input
        return _feature_dropout(input.unsqueeze(0), p, training, False, False).squeeze(0)
    return _feature_dropout(input, p, training, inplace, False)


@replayed_whole
def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of ``(N, C, H, W)`` input with probability ``p``, scaling the rest by
    ``1 / (1 - p)`` (training only); a 3-D input is taken as ``(N, C, L)``, as torch does."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.ndim not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {input.ndim}-D input to dropout2d, which is deprecated "
            "and will result in an error in a future release. To retain the behavior "
            "and silence this warning, please use dropout instead. Note that dropout2d "
            "exists to provide channel-wise dropout on inputs with 2 spatial dimensions, "
            "a channel dimension, and an optional batch dimension (i.e. 3D or 4D inputs).",
            stacklevel=2,
        )
    if input.ndim == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise "
            "1D dropout behavior is desired - input is interpreted as shape (N, C, L), where C "
            "is the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=2,
        )
    return _feature_dropout(input, p, training, inplace, False)


@replayed_whole
def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of ``(N, C, D, H, W)`` (or ``(C, D, H, W)``) input with probability
    ``p``, scaling the rest by ``1 / (1 - p)`` (training only)."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if input.ndim not in (4, 5):
        warnings.warn(
            f"dropout3d: Received a {input.ndim}-D input to dropout3d, which is deprecated "
            "and will result in an error in a future release. To retain the behavior "
            "and silence this warning, please use dropout instead. Note that dropout3d "
            "exists to provide channel-wise dropout on inputs with 3 spatial dimensions, "
            "a channel dimension, and an optional batch dimension (i.e. 4D or 5D inputs).",
            stacklevel=2,
        )
    if not training or p == 0.0:
        return input
    if input.ndim != 5:
        if inplace:
            _feature_dropout(input.unsqueeze(0), p, training, True, False)
            return input
        return _feature_dropout(input.unsqueeze(0), p, training, False, False).squeeze(0)
    return _feature_dropout(input, p, training, inplace, False)


@replayed_whole
def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Dropout for SELU networks: dropped elements take SELU's negative saturation value and
    an affine map keeps the mean and variance (training only)."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input.mul_(0.0) if inplace else input * 0.0
    return _apply_dropout(input, p, inplace, True, tuple(input.shape))


@replayed_whole
def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """:func:`alpha_dropout` of whole channels (one draw per sample and channel)."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if training and p == 1.0:
        return input.mul_(0.0) if inplace else input * 0.0
    return _feature_dropout(input, p, training, inplace, True)


# =========================================================================== resampling
_INTERPOLATING = ("linear", "bilinear", "bicubic", "trilinear")


def _interp_sizes(input: Tensor, size: Any, scale_factor: Any, recompute: bool | None) -> tuple[list[int], list[Any]]:
    """Output sizes and the scale each kernel uses (``None``: ``input / output``), as torch."""
    dims = input.ndim - 2
    spatial = list(input.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        sizes = [int(size)] * dims if isinstance(size, (int, np.integer)) else [int(s) for s in size]
        if len(sizes) != dims:
            raise ValueError(
                "Input and output must have the same number of spatial dimensions, but got input with spatial "
                f"dimensions of {spatial} and output size of {tuple(size) if not isinstance(size, int) else size}. "
                "Please provide input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) "
                "format."
            )
        return sizes, [None] * dims
    if scale_factor is None:
        raise ValueError("either size or scale_factor should be defined")
    factors = (
        [float(scale_factor)] * dims if isinstance(scale_factor, (int, float)) else [float(f) for f in scale_factor]
    )
    if len(factors) != dims:
        raise ValueError(
            "Input and scale_factor must have the same number of spatial dimensions, but got input with spatial "
            f"dimensions of {spatial} and scale_factor of shape {tuple(factors)}. Please provide input tensor in "
            "(N, C, d1, d2, ...,dK) format and scale_factor in (s1, s2, ...,sK) format."
        )
    sizes = [int(float(n) * f) for n, f in zip(spatial, factors)]  # toward zero, as torch's C++ cast
    return sizes, ([None] * dims if recompute else factors)


def _check_interp_sizes(spatial: Sequence[int], sizes: Sequence[int]) -> None:
    """Torch's refusal of an empty input or an output size below 1 (a negative scale)."""
    if min(spatial) > 0 and min(sizes) > 0:
        return
    axes = "DHW"[-len(sizes) :]
    given = ", ".join(f"{a}: {n}" for a, n in zip(axes, spatial))
    made = ", ".join(f"{a}: {n}" for a, n in zip(axes, sizes))
    joint = " and output" if len(sizes) == 1 else " output"
    raise RuntimeError(f"Input and output sizes should be greater than 0, but got input ({given}){joint} ({made})")


def _nearest_indices(size: int, out: int, factor: float | None, exact: bool, planar: bool) -> np.ndarray[Any, Any]:
    """torch's nearest source index of each output position (computed in float32, as its kernel).

    torch's 2-d ``nearest`` kernel (``planar``) takes two short cuts whatever the scale factor:
    an output as long as the input copies it, one twice as long repeats each element twice
    (``scale_factor=2.042`` from 3 to 6 gives 0 0 1 1 2 2, where the formula gives 0 0 0 1 1 2)."""
    if planar and not exact and out in (size, 2 * size):
        steps: np.ndarray[Any, Any] = np.arange(out, dtype=np.int64) // (out // size)
        return steps
    scale = np.float32(size / out) if factor is None else np.float32(1.0 / factor)
    dst = np.arange(out, dtype=np.float32)
    src = np.floor((dst + np.float32(0.5)) * scale) if exact else np.floor(dst * scale)
    index: np.ndarray[Any, Any] = np.minimum(src.astype(np.int64), size - 1)
    return index


def _linear_weights(
    size: int, out: int, factor: float | None, align_corners: bool
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """For each output position: the two source positions and the weight of the second (an
    output as long as the input copies it whatever the scale factor, as torch's kernels do)."""
    dst = np.arange(out, dtype=np.float64)
    if out == size:
        same = dst.astype(np.int64)
        return same, same, np.zeros(out)
    if align_corners:
        src = dst * ((size - 1) / (out - 1) if out > 1 else 0.0)
    else:
        scale = size / out if factor is None else 1.0 / factor
        src = np.maximum((dst + 0.5) * scale - 0.5, 0.0)
    lower = np.minimum(np.floor(src).astype(np.int64), size - 1)
    upper = np.minimum(lower + 1, size - 1)
    return lower, upper, src - lower


def interpolate(
    input: Tensor,
    size: Any = None,
    scale_factor: Any = None,
    mode: str = "nearest",
    align_corners: bool | None = None,
    recompute_scale_factor: bool | None = None,
    antialias: bool = False,
) -> Tensor:
    """Resample the spatial dimensions of ``(N, C, *)`` input to ``size`` (or by ``scale_factor``):
    ``'nearest'`` and ``'nearest-exact'`` pick a source element, ``'linear'`` (3-D) and
    ``'bilinear'`` (4-D) blend the two nearest along each dimension (``align_corners`` maps the
    corner pixels' centres onto each other).  Built from ``index_select`` and products, so the
    gradient adds back into the sources."""
    if mode in ("nearest", "area", "nearest-exact") and align_corners is not None:
        raise ValueError(
            "align_corners option can only be set with the interpolating modes: linear | bilinear | bicubic | trilinear"
        )
    if antialias:
        raise NotImplementedError("ctxgrad.nn.functional.interpolate: antialias=True is not supported")
    known = ("nearest", "linear", "bilinear", "bicubic", "trilinear", "area", "nearest-exact")
    if mode not in known:
        raise NotImplementedError(
            f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for the modes: "
            f"nearest | linear | bilinear | bicubic | trilinear | lanczos | area | nearest-exact (got {mode})"
        )
    needs = {"linear": 3, "bilinear": 4, "trilinear": 5, "bicubic": 4}
    if mode in needs and input.ndim != needs[mode]:
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs {needs[mode]}D input")
    if mode in ("bicubic", "trilinear", "area"):
        raise NotImplementedError(f"ctxgrad.nn.functional.interpolate: mode={mode!r} is not supported yet")
    sizes, factors = _interp_sizes(input, size, scale_factor, recompute_scale_factor)
    _check_interp_sizes(input.shape[2:], sizes)
    out = input
    for axis, (n, o, f) in enumerate(zip(input.shape[2:], sizes, factors)):
        dim = axis + 2
        if mode in ("nearest", "nearest-exact"):
            planar = input.ndim == 4
            out = out.index_select(dim, Tensor(_nearest_indices(n, o, f, mode == "nearest-exact", planar)))
            continue
        lower, upper, weight = _linear_weights(n, o, f, bool(align_corners))
        shape = (o,) + (1,) * (input.ndim - dim - 1)
        w1 = Tensor(weight.astype(input.dtype).reshape(shape))
        w0 = Tensor((1.0 - weight).astype(input.dtype).reshape(shape))
        out = out.index_select(dim, Tensor(lower)) * w0 + out.index_select(dim, Tensor(upper)) * w1
    return out


# =========================================================================== attention
def _repeat_heads(t: Tensor, repeats: int) -> Tensor:
    """Each head of ``(..., H, S, E)`` repeated ``repeats`` times in place: ``(..., H * repeats, S, E)``."""
    *lead, h, s, e = t.shape
    return t.unsqueeze(-3).expand(*lead, h, repeats, s, e).reshape(*lead, h * repeats, s, e)


def scaled_dot_product_attention(
    query: Tensor,
    key: Tensor,
    value: Tensor,
    attn_mask: Tensor | None = None,
    dropout_p: float = 0.0,
    is_causal: bool = False,
    scale: float | None = None,
    enable_gqa: bool = False,
) -> Tensor:
    """``softmax(q kᵀ * scale + mask) v`` over the last two dimensions (``scale`` defaults to
    ``1/√E``).  A boolean ``attn_mask`` says which positions take part (``False`` is masked
    out); a float one is added; ``is_causal`` masks the upper triangle.  Composed from
    ``matmul`` and ``softmax``, as torch's reference (math) implementation."""
    import math

    from ctxgrad.ops.pointwise import where

    length, source = query.shape[-2], key.shape[-2]
    factor = 1 / math.sqrt(query.shape[-1]) if scale is None else scale
    if enable_gqa:  # each key / value head serves a group of query heads (repeat_interleave)
        heads = query.shape[-3]
        key, value = (_repeat_heads(t, heads // t.shape[-3]) for t in (key, value))
    scores = query @ key.transpose(-2, -1) * factor
    if is_causal:
        if attn_mask is not None:
            raise RuntimeError(
                "_scaled_dot_product_attention: Explicit attn_mask should not be set when is_causal=True"
            )
        keep = Tensor(np.tril(np.ones((length, source), dtype=bool)))
        scores = where(keep, scores, float("-inf"))
    if attn_mask is not None:
        if str(attn_mask.dtype).endswith("bool"):
            scores = where(attn_mask, scores, float("-inf"))
        else:
            scores = scores + attn_mask
    weights = scores.softmax(-1)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, True)
    out: Tensor = weights @ value
    return out


# =========================================================================== losses
def _reduction(size_average: bool | None, reduce: bool | None, reduction: str) -> str:
    """The reduction, honouring the deprecated ``size_average`` / ``reduce`` pair as torch does."""
    if size_average is not None or reduce is not None:
        size_average = True if size_average is None else size_average
        reduce = True if reduce is None else reduce
        reduction = ("mean" if size_average else "sum") if reduce else "none"
        warnings.warn(
            f"size_average and reduce args will be deprecated, please use reduction='{reduction}' instead.",
            UserWarning,
            stacklevel=3,
        )
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _warn_size(input: Tensor, target: Tensor) -> None:
    if target.shape != input.shape:
        warnings.warn(
            f"Using a target size ({target.shape}) that is different to the input size ({input.shape}). "
            "This will likely lead to incorrect results due to broadcasting. Please ensure they have the same size.",
            UserWarning,
            stacklevel=3,
        )


def _pointwise_loss(loss: Tensor, weight: Tensor | None, reduction: str) -> Tensor:
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def mse_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    weight: Tensor | None = None,
) -> Tensor:
    """``(input - target) ** 2``, reduced."""
    reduction = _reduction(size_average, reduce, reduction)
    _warn_size(input, target)
    diff = input - target
    return _pointwise_loss(diff * diff, weight, reduction)


def l1_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    weight: Tensor | None = None,
) -> Tensor:
    """``|input - target|``, reduced."""
    reduction = _reduction(size_average, reduce, reduction)
    _warn_size(input, target)
    return _pointwise_loss((input - target).abs(), weight, reduction)


def smooth_l1_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    beta: float = 1.0,
) -> Tensor:
    """``0.5 d² / beta`` where ``|d| < beta``, else ``|d| - beta / 2`` (``d = input - target``)."""
    reduction = _reduction(size_average, reduce, reduction)
    _warn_size(input, target)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    diff = (input - target).abs()
    if beta == 0.0:
        return _reduce(diff, reduction)
    from ctxgrad.ops.pointwise import where

    loss = where(diff < beta, diff * diff * (0.5 / beta), diff - 0.5 * beta)
    return _reduce(loss, reduction)


def huber_loss(
    input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0, weight: Tensor | None = None
) -> Tensor:
    """``0.5 d²`` where ``|d| < delta``, else ``delta (|d| - delta / 2)``."""
    reduction = _reduction(None, None, reduction)
    _warn_size(input, target)
    from ctxgrad.ops.pointwise import where

    diff = (input - target).abs()
    loss = where(diff < delta, diff * diff * 0.5, (diff - 0.5 * delta) * delta)
    return _pointwise_loss(loss, weight, reduction)


def _class_dim(input: Tensor) -> int:
    return 0 if input.ndim == 1 else 1


def _check_nll_target(input: Tensor, target: Tensor, weight: Tensor | None, ignore_index: int) -> Any:
    """torch's checks of an ``nll_loss`` target (shape, dtype, bounds) and weight; returns
    the mask of the ignored targets."""
    if input.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.ndim})")
    cdim = _class_dim(input)
    n_classes = input.shape[cdim]
    expected = input.shape[:cdim] + input.shape[cdim + 1 :]
    if input.ndim >= 2 and target.shape[:1] != input.shape[:1]:
        raise ValueError(
            f"Expected input batch_size ({input.shape[0]}) to match target batch_size ({target.shape[0]})."
        )
    if tuple(target.shape) != tuple(expected):
        raise RuntimeError(f"Expected target size {list(expected)}, got {list(target.shape)}")
    tdata = target._data
    if tdata.dtype.kind not in "iu":
        raise RuntimeError(f"expected scalar type Long but found {_type_name(target)}")
    if weight is not None and tuple(weight.shape) != (n_classes,):
        raise RuntimeError(
            f"weight tensor should be defined either for all {n_classes} classes or no classes but got weight "
            f"tensor of shape: {list(weight.shape)}"
        )
    ignored = tdata == ignore_index
    bad = (~ignored) & ((tdata < 0) | (tdata >= n_classes))
    if bad.any():
        raise IndexError(f"Target {int(tdata[bad].flat[0])} is out of bounds.")
    return ignored


@replayed_whole
def nll_loss(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    ignore_index: int = -100,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """``-weight[t] * input[t]`` for each target class ``t`` (``input`` holds log-probabilities,
    classes along dimension 1); the mean is weighted: divided by the sum of the used weights."""
    reduction = _reduction(size_average, reduce, reduction)
    cdim = _class_dim(input) if input.ndim >= 1 else 0
    if _under_vmap(input, target, weight):
        return _nll_loss_of_batch(input, target, weight, ignore_index, reduction, cdim)
    ignored = _check_nll_target(input, target, weight, ignore_index)
    tdata = target._data
    safe = Tensor(np.where(ignored, 0, tdata).astype(np.int64))
    if input.requires_grad:
        input = _ops.SecondOrderLink.apply(input)
    picked = -input.gather(cdim, safe.unsqueeze(cdim)).squeeze(cdim)
    keep = Tensor((~ignored).astype(input.dtype))
    w = keep if weight is None else weight.index_select(0, safe.reshape(-1)).reshape(safe.shape) * keep
    loss = picked * w
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    total = w.sum()
    if float(total) == 0.0:  # every target ignored: the mean is NaN, its gradient 0, as in torch
        return loss.sum() * 0.0 + float("nan")
    return loss.sum() / total


def _under_vmap(*tensors: Tensor | None) -> bool:
    return any(isinstance(t, BatchedTensor) for t in tensors)


def _nll_loss_of_batch(
    input: Tensor, target: Tensor, weight: Tensor | None, ignore_index: int, reduction: str, cdim: int
) -> Tensor:
    """``nll_loss`` inside vmap, in ops that have batching rules.  The checks that read the
    targets' values (bounds) cannot run on a batch: an out-of-range target fails in ``gather``."""
    from ctxgrad.ops.pointwise import where

    if target.dtype.kind not in "iu":
        raise RuntimeError(f"expected scalar type Long but found {_type_name(target)}")
    ignored = target == ignore_index
    safe = where(ignored, 0, target)
    picked = -input.gather(cdim, safe.unsqueeze(cdim)).squeeze(cdim)
    keep = (~ignored).to(input.dtype)
    w = keep if weight is None else weight.gather(0, safe.reshape(-1)).reshape(safe.shape) * keep
    loss = picked * w
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    return loss.sum() / w.sum()


def _type_name(t: Tensor) -> str:
    from ctxgrad import _dtypes

    return _dtypes.short_name(t.dtype)


@replayed_whole
def cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    ignore_index: int = -100,
    reduce: bool | None = None,
    reduction: str = "mean",
    label_smoothing: float = 0.0,
) -> Tensor:
    """``nll_loss(log_softmax(input, 1), target)`` for class indices; for class probabilities
    (a floating ``target`` shaped like ``input``) ``-sum_c weight[c] target[c] log_softmax(input)[c]``.

    ``label_smoothing = ε`` mixes the target with the uniform distribution: ``(1 - ε) target + ε / C``.
    """
    reduction = _reduction(size_average, reduce, reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    cdim = _class_dim(input)
    n_classes = input.shape[cdim]
    if (
        not target.is_floating_point()
        and label_smoothing == 0.0
        and weight is None
        and input.ndim == 2
        and reduction != "none"
        and input.is_floating_point()
        and not _under_vmap(input, target)
    ):
        # The common case, fused into one Function; the target gets nll_loss's checks first.
        _check_nll_target(input, target, None, ignore_index)
        keep = target._data != ignore_index
        rows = np.where(keep, target._data, 0).astype(np.intp)
        return _ops.CrossEntropyWithIndices.apply(input, rows, keep, reduction == "mean")
    logp = input.log_softmax(cdim)
    wshape = [1] * input.ndim
    wshape[cdim] = n_classes
    if target.is_floating_point():
        if target.shape != input.shape:
            raise RuntimeError(
                f"Expected floating point type target to have the same shape as input, got {list(target.shape)} "
                f"and {list(input.shape)}"
            )
        if label_smoothing > 0.0:
            target = target * (1.0 - label_smoothing) + label_smoothing / n_classes
        terms = logp * target
        if weight is not None:
            terms = terms * weight.reshape(wshape)
        if reduction == "none":
            return -terms.sum(cdim)
        if reduction == "sum":
            return -terms.sum()
        return -terms.sum() / (input.numel() / n_classes)
    nll = nll_loss(logp, target, weight, None, ignore_index, None, reduction)
    if label_smoothing == 0.0:
        return nll
    ignored = Tensor(target._data == ignore_index)
    smooth = -(logp * weight.reshape(wshape)).sum(cdim) if weight is not None else -logp.sum(cdim)
    smooth = smooth.masked_fill(ignored, 0.0)
    if reduction == "mean":
        if weight is not None:
            safe = Tensor(np.where(ignored._data, 0, target._data).astype(np.int64))
            denominator = (weight.index_select(0, safe.reshape(-1)) * (~ignored).reshape(-1).to(weight.dtype)).sum()
            ret = smooth.sum() / denominator
        else:
            ret = smooth.sum() / float((~ignored._data).sum())
    else:
        ret = _reduce(smooth, reduction)
    return nll * (1.0 - label_smoothing) + ret * (label_smoothing / n_classes)


def binary_cross_entropy(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """``-(t log x + (1 - t) log(1 - x))`` for probabilities ``x``, each log clamped at -100 as in torch."""
    reduction = _reduction(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError(
            f"Using a target size ({target.shape}) that is different to the input size ({input.shape}) is deprecated. "
            "Please ensure they have the same size."
        )
    for name, values in (("input", input._data), ("target", target._data)):
        if not np.all((values >= 0) & (values <= 1)):  # NaN too
            raise RuntimeError(f"all elements of {name} should be between 0 and 1")
    return _pointwise_loss(_ops.BinaryCrossEntropy.apply(input, target), weight, reduction)


def binary_cross_entropy_with_logits(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    pos_weight: Tensor | None = None,
) -> Tensor:
    """``binary_cross_entropy(sigmoid(input), target)`` computed stably from the logits:
    ``(1 - t) x + (1 + (pos_weight - 1) t) softplus(-x)``."""
    reduction = _reduction(size_average, reduce, reduction)
    if target.shape != input.shape:
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    log_sig_neg = softplus(-input)  # -log(sigmoid(x)), without overflow
    if pos_weight is not None:
        loss = (1.0 - target) * input + (1.0 + (pos_weight - 1.0) * target) * log_sig_neg
    else:
        loss = (1.0 - target) * input + log_sig_neg
    return _pointwise_loss(loss, weight, reduction)


def kl_div(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
    log_target: bool = False,
) -> Tensor:
    """``target * (log(target) - input)`` with ``input`` log-probabilities (0 where ``target`` is 0);
    ``log_target=True`` takes the target as log-probabilities.  ``reduction='batchmean'`` divides the
    sum by the batch size (the mathematical KL divergence)."""
    if reduction == "mean" and size_average is None and reduce is None:
        warnings.warn(
            "reduction: 'mean' divides the total loss by both the batch size and the support size."
            "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
            "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
            UserWarning,
            stacklevel=2,
        )
    batchmean = reduction == "batchmean"
    reduction = "sum" if batchmean else _reduction(size_average, reduce, reduction)
    if log_target:
        loss = target.exp() * (target - input)
    else:
        from ctxgrad.ops.pointwise import where

        positive = target > 0
        safe = where(positive, target, 1.0)
        loss = target * safe.log() - target * input
    out = _reduce(loss, reduction)
    if batchmean and input.ndim != 0:
        out = out / input.shape[0]
    return out


# --------------------------------------------------------------------------- ranking, embedding and likelihood losses
def margin_ranking_loss(
    input1: Tensor,
    input2: Tensor,
    target: Tensor,
    margin: float = 0.0,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """``max(0, -target * (input1 - input2) + margin)``: ``target`` 1 ranks ``input1`` higher, -1 lower."""
    reduction = _reduction(size_average, reduce, reduction)
    if not (input1.ndim == input2.ndim == target.ndim):
        raise RuntimeError(
            "margin_ranking_loss : All input tensors should have same dimension but got sizes: "
            f"input1: {input1.shape}, input2: {input2.shape}, target: {target.shape} "
        )
    return _reduce((-target * (input1 - input2) + margin).clamp_min(0), reduction)


def hinge_embedding_loss(
    input: Tensor,
    target: Tensor,
    margin: float = 1.0,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """``input`` where ``target`` is 1, ``max(0, margin - input)`` where it is -1 (a distance loss)."""
    reduction = _reduction(size_average, reduce, reduction)
    hinge = _where(target != 1, (margin - input).clamp_min(0), 0.0)
    return _reduce(hinge + _where(target != -1, input, 0.0), reduction)


def soft_margin_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """``log(1 + exp(-target * input))``: the logistic loss for targets ±1."""
    reduction = _reduction(size_average, reduce, reduction)
    return _reduce((-input * target).exp().log1p(), reduction)


def cosine_embedding_loss(
    input1: Tensor,
    input2: Tensor,
    target: Tensor,
    margin: float = 0.0,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """``1 - cos(input1, input2)`` where ``target`` is 1, ``max(0, cos - margin)`` where it is -1
    (cosine along the last dimension)."""
    reduction = _reduction(size_average, reduce, reduction)
    dim = input1.ndim - 1
    prod = (input1 * input2).sum(dim)
    mag1 = (input1 * input1).sum(dim) + 1e-12
    mag2 = (input2 * input2).sum(dim) + 1e-12
    cos = prod / (mag1 * mag2).sqrt()
    loss = _where(target == 1, 1 - cos, 0.0) + _where(target == -1, (cos - margin).clamp_min(0), 0.0)
    return _reduce(loss, reduction)


def triplet_margin_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    margin: float = 1.0,
    p: float = 2,
    eps: float = 1e-6,
    swap: bool = False,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """``max(d(a, p) - d(a, n) + margin, 0)`` with ``d`` the ``p``-norm :func:`pairwise_distance`
    (``swap`` also uses ``d(p, n)`` when it is smaller)."""
    reduction = _reduction(size_average, reduce, reduction)
    if not (anchor.ndim == positive.ndim == negative.ndim):
        raise RuntimeError(
            "The anchor, positive, and negative tensors are expected to have the same number of dimensions, but "
            f"got: anchor {anchor.ndim}D, positive {positive.ndim}D, and negative {negative.ndim}D inputs"
        )
    d_pos = pairwise_distance(anchor, positive, p, eps)
    d_neg = pairwise_distance(anchor, negative, p, eps)
    if swap:
        from ctxgrad.ops.pointwise import minimum

        d_neg = minimum(d_neg, pairwise_distance(positive, negative, p, eps))
    return _reduce((d_pos - d_neg + margin).clamp_min(0), reduction)


def multilabel_soft_margin_loss(
    input: Tensor,
    target: Tensor,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """The mean over classes of the binary logistic loss of each class (targets 0 or 1)."""
    reduction = _reduction(size_average, reduce, reduction)
    loss = -(target * logsigmoid(input) + (1 - target) * logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.ndim - 1
    loss = loss.sum(class_dim) / input.shape[class_dim]
    return _reduce(loss, reduction)


def poisson_nll_loss(
    input: Tensor,
    target: Tensor,
    log_input: bool = True,
    full: bool = False,
    size_average: bool | None = None,
    eps: float = 1e-8,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """The negative log-likelihood of ``target`` under a Poisson of rate ``exp(input)``
    (``log_input``) or ``input``; ``full`` adds Stirling's term where ``target > 1``."""
    reduction = _reduction(size_average, reduce, reduction)
    loss = input.exp() - target * input if log_input else input - target * (input + eps).log()
    if full:
        safe = _where(target > 1, target, 1.0)
        stirling = safe * safe.log() - safe + 0.5 * (2 * np.pi * safe).log()
        loss = loss + _where(target > 1, stirling, 0.0)
    return _reduce(loss, reduction)


def gaussian_nll_loss(
    input: Tensor,
    target: Tensor,
    var: Tensor | float,
    full: bool = False,
    eps: float = 1e-6,
    reduction: str = "mean",
) -> Tensor:
    """The negative log-likelihood of ``target`` under a normal of mean ``input`` and variance
    ``var``: ``0.5 (log(var) + (input - target)² / var)`` (+ ``0.5 log(2π)`` with ``full``);
    ``var`` is clamped to ``eps`` for stability, without cutting its gradient, as torch does."""
    if not isinstance(var, Tensor):
        var = _factories.full(tuple(input.shape), float(var), dtype=input.dtype)
    if var.shape != input.shape:
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif not (tuple(input.shape[:-1]) == tuple(var.shape[:-1]) and var.shape[-1] == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    if bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    var = var.clone()
    with no_grad():
        var.clamp_(min=eps)
    loss = 0.5 * (var.log() + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * float(np.log(2 * np.pi))
    return _reduce(loss, reduction)


_NEG = -1e300  # "log 0" for the CTC recursion: finite, so that logsumexp's gradient stays 0, not NaN


def _lengths(value: Any) -> list[int]:
    if isinstance(value, Tensor):
        return [int(v) for v in value.detach().numpy().reshape(-1)]
    return [int(v) for v in value]


@replayed_whole
def ctc_loss(
    log_probs: Tensor,
    targets: Tensor,
    input_lengths: Any,
    target_lengths: Any,
    blank: int = 0,
    reduction: str = "mean",
    zero_infinity: bool = False,
) -> Tensor:
    """Connectionist temporal classification: ``-log`` of the total probability of every
    alignment of each target (blanks between and around its labels, repeats merged) under
    ``log_probs`` ``(T, N, C)``.  The forward (alpha) recursion is written in ctxgrad ops
    (``logsumexp`` over the three ways into each position), so the gradient is its derivative.
    ``reduction='mean'`` divides each loss by its target length, then averages."""
    reduction = _reduction(None, None, reduction)
    unbatched = log_probs.ndim == 2
    lp = log_probs.unsqueeze(1) if unbatched else log_probs
    batch = lp.shape[1]
    in_lengths, tg_lengths = _lengths(input_lengths), _lengths(target_lengths)
    flat_targets = targets.detach().numpy().astype(np.int64)
    if unbatched:
        flat_targets = flat_targets.reshape(1, -1)
    losses = []
    position = 0
    for n in range(batch):
        length, t_len = in_lengths[n], tg_lengths[n]
        if flat_targets.ndim == 2:
            labels = flat_targets[n, :t_len]
        else:
            labels = flat_targets[position : position + t_len]
            position += t_len
        extended = np.full(2 * t_len + 1, blank, dtype=np.int64)
        extended[1::2] = labels
        size = extended.size
        skip = np.zeros(size, dtype=bool)  # may come from two back: a label differing from the one before
        skip[3::2] = labels[1:] != labels[:-1]
        emissions = lp[:length, n].index_select(1, Tensor(extended))  # (T, 2S+1)
        start = np.full(size, _NEG)
        start[0] = 0.0
        if size > 1:
            start[1] = 0.0
        alpha = emissions[0] + Tensor(np.where(start == 0.0, 0.0, _NEG).astype(emissions.dtype))
        skip_t = Tensor(skip)
        for t in range(1, length):
            one_back = pad(alpha, (1, 0), value=_NEG)[:size]
            two_back = _where(skip_t, pad(alpha, (2, 0), value=_NEG)[:size], _NEG)
            alpha = _stack([alpha, one_back, two_back], 0).logsumexp(0) + emissions[t]
        ends = alpha[-2:] if size > 1 else alpha[-1:]
        loss = -ends.logsumexp(0)
        if float(loss.detach()) > 1e299:  # no alignment fits: the loss is infinite
            loss = loss * 0.0 if zero_infinity else loss * 0.0 + float("inf")
        losses.append(loss)
    per_sample = _stack(losses, 0)
    if reduction == "mean":
        divisors = Tensor(np.maximum(np.array(tg_lengths, dtype=np.float64), 1.0).astype(per_sample.dtype))
        return (per_sample / divisors).mean()
    if reduction == "sum":
        return per_sample.sum()
    return per_sample.squeeze(0) if unbatched else per_sample


@replayed_whole
def multi_margin_loss(
    input: Tensor,
    target: Tensor,
    p: int = 1,
    margin: float = 1.0,
    weight: Tensor | None = None,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """The multi-class hinge loss: ``sum over i != y of max(0, margin - x[y] + x[i]) ** p / C``
    (times ``weight[y]``), for class-index targets ``y``."""
    reduction = _reduction(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    x = input.unsqueeze(0) if input.ndim == 1 else input
    labels = target.detach().numpy().astype(np.int64).reshape(-1)
    classes = x.shape[1]
    if labels.size and (labels.min() < 0 or labels.max() >= classes):
        raise RuntimeError("target out of range")
    index = Tensor(labels.reshape(-1, 1))
    correct = x.gather(1, index)
    hinge = (x - correct + margin).clamp_min(0)
    if p == 2:
        hinge = hinge * hinge
    others = Tensor(np.arange(classes)[None, :] != labels[:, None])
    hinge = _where(others, hinge, 0.0)
    if weight is not None:
        hinge = hinge * weight.index_select(0, Tensor(labels)).unsqueeze(1)
    loss = hinge.sum(1) / classes
    if input.ndim == 1:
        loss = loss.squeeze(0)
    return _reduce(loss, reduction)


@replayed_whole
def multilabel_margin_loss(
    input: Tensor,
    target: Tensor,
    size_average: bool | None = None,
    reduce: bool | None = None,
    reduction: str = "mean",
) -> Tensor:
    """The multi-label hinge loss: for each target class ``j`` (the leading entries of the row,
    up to the first -1) and each other class ``i``, ``max(0, 1 - (x[j] - x[i])) / C``."""
    reduction = _reduction(size_average, reduce, reduction)
    x = input.unsqueeze(0) if input.ndim == 1 else input
    rows = target.detach().numpy().astype(np.int64).reshape(x.shape[0], -1)
    classes = x.shape[1]
    chosen = np.zeros((x.shape[0], classes), dtype=bool)
    pairs: np.ndarray[Any, Any] = np.zeros(
        (x.shape[0], classes, classes), dtype=x.dtype
    )  # [n, j, i]: j a target, i not
    for n, row in enumerate(rows):
        stop = np.nonzero(row < 0)[0]
        labels = row[: stop[0]] if stop.size else row
        chosen[n, labels] = True
        for j in labels:
            pairs[n, j] = 1.0
        pairs[n][:, chosen[n]] = 0.0
    hinge = (1 - (x.unsqueeze(2) - x.unsqueeze(1))).clamp_min(0)  # [n, j, i]
    loss = (hinge * Tensor(pairs)).sum((1, 2)) / classes
    if input.ndim == 1:
        loss = loss.squeeze(0)
    return _reduce(loss, reduction)


def triplet_margin_with_distance_loss(
    anchor: Tensor,
    positive: Tensor,
    negative: Tensor,
    *,
    distance_function: Any = None,
    margin: float = 1.0,
    swap: bool = False,
    reduction: str = "mean",
) -> Tensor:
    """:func:`triplet_margin_loss` with any ``distance_function`` (default
    :func:`pairwise_distance`)."""
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    distance = distance_function if distance_function is not None else pairwise_distance
    d_pos = distance(anchor, positive)
    d_neg = distance(anchor, negative)
    if swap:
        from ctxgrad.ops.pointwise import minimum

        d_neg = minimum(d_neg, distance(positive, negative))
    return _reduce((margin + d_pos - d_neg).clamp_min(0), _reduction(None, None, reduction))

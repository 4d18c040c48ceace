"""Normalisation (batch, layer, group, instance, RMS), dropout, resampling (``interpolate``) and
attention of ``ctxgrad.nn.functional``."""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from ctxgrad import _factories
from ctxgrad._replayed import replayed_whole
from ctxgrad._state import _state
from ctxgrad._tensor import Tensor, as_tensor
from ctxgrad.autograd.grad_mode import no_grad
from ctxgrad.ops.convolution import pad


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
    return as_tensor((_factories._generator.random(shape) >= p).astype(dtype))


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
    keep = _keep_mask(shape, p, input.dtype, bool(_state.modes.vmap_levels))
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
            out = out.index_select(dim, as_tensor(_nearest_indices(n, o, f, mode == "nearest-exact", planar)))
            continue
        lower, upper, weight = _linear_weights(n, o, f, bool(align_corners))
        shape = (o,) + (1,) * (input.ndim - dim - 1)
        w1 = as_tensor(weight.astype(input.dtype).reshape(shape))
        w0 = as_tensor((1.0 - weight).astype(input.dtype).reshape(shape))
        out = out.index_select(dim, as_tensor(lower)) * w0 + out.index_select(dim, as_tensor(upper)) * w1
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
        keep = as_tensor(np.tril(np.ones((length, source), dtype=bool)))
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


@replayed_whole
def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero each element with probability ``p`` and scale the rest by ``1 / (1 - p)`` (training
    only; the identity otherwise).  The mask comes from ctxgrad's generator (``ctxgrad.manual_seed``)."""
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        mask = as_tensor(np.zeros(input.shape, dtype=input.dtype))
    elif _state.modes.vmap_levels:  # a mask per sample, or one for all, as vmap's randomness says (shared input too)
        mask = (_factories.rand(*input.shape, dtype=np.float64) >= p).to(input.dtype) / (1.0 - p)
    else:
        keep = _factories._generator.random(input.shape) >= p
        mask = as_tensor((keep / (1.0 - p)).astype(input.dtype))  # (in the input dtype, as torch)
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

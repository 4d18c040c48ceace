"""The compute-heavy ops behind ``ctxgrad.nn.functional``, each an ordinary
:class:`~ctxgrad.autograd.Function` with a ``backward`` written in ctxgrad ops (so it can be
differentiated again) and a ``jvp`` for forward mode.  (The convolutions and padding are
in :mod:`ctxgrad.ops.convolution`, ``nll_loss``/``cross_entropy`` in :mod:`ctxgrad.ops.losses`:
ops with rows.)

* :class:`MaxPool2d`: the maximum of each window, remembering where it was; the gradient is
  scattered back to those positions (``scatter_add``).
(``Embedding``, the rows of a weight matrix picked by index, is the op ``torch.embedding``:
:class:`ctxgrad.ops.index_ops.Embedding`.)
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ctxgrad._tensor import Tensor, as_tensor
from ctxgrad.autograd.batching import (
    elementwise_rule,
)
from ctxgrad.autograd.function import Function
from ctxgrad.ops._util import keep_dtype
from ctxgrad.ops.activations import _floating_only
from ctxgrad.ops.convolution import Pair, _batch_images, _windows, linked_to_input


def pool_out_size(size: int, kernel: int, stride: int, padding: int, dilation: int, ceil_mode: bool) -> int:
    """Output length of a pooling window along one dimension (torch's rule for ``ceil_mode``:
    the last window must start inside the input or its left padding)."""
    span = size + 2 * padding - dilation * (kernel - 1) - 1
    out = (-(-span // stride) if ceil_mode else span // stride) + 1
    if ceil_mode and (out - 1) * stride >= size + padding:
        out -= 1
    return out


def max_pool2d_with_indices(
    data: np.ndarray[Any, Any], kernel: Pair, stride: Pair, padding: Pair, dilation: Pair, ceil_mode: bool
) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """The window maxima of a ``(N, C, H, W)`` array and the flat ``H*W`` position of each."""
    n, c, h, w = data.shape
    outs = []
    extra = []
    for size, k, s, p, d in zip((h, w), kernel, stride, padding, dilation):
        o = pool_out_size(size, k, s, p, d, ceil_mode)
        outs.append(o)
        extra.append(max(0, (o - 1) * s + d * (k - 1) + 1 - (size + 2 * p)))
    oh, ow = outs
    if oh <= 0 or ow <= 0:
        raise RuntimeError(
            f"Given input size: ({c}x{h}x{w}). Calculated output size: ({c}x{oh}x{ow}). Output size is too small"
        )
    lowest = -np.inf if data.dtype.kind == "f" else np.iinfo(data.dtype).min
    padded = np.pad(
        data,
        ((0, 0), (0, 0), (padding[0], padding[0] + extra[0]), (padding[1], padding[1] + extra[1])),
        constant_values=lowest,
    )
    cols = _windows(padded, kernel, stride, dilation, (oh, ow)).reshape(n, c, kernel[0] * kernel[1], oh, ow)
    # torch propagates NaN: a NaN in a window is its maximum.
    nan = np.isnan(cols) if data.dtype.kind == "f" else None
    arg = np.argmax(np.where(nan, np.inf, cols) if nan is not None and nan.any() else cols, axis=2)
    values = np.take_along_axis(cols, arg[:, :, None], axis=2)[:, :, 0]
    # The window position (i, j) of the maximum, back to a flat index into the unpadded input.
    ki, kj = np.divmod(arg, kernel[1])
    rows = np.arange(oh)[:, None] * stride[0] + ki * dilation[0] - padding[0]
    colsx = np.arange(ow)[None, :] * stride[1] + kj * dilation[1] - padding[1]
    indices = (rows * w + colsx).astype(np.int64)
    return values, indices


class MaxPool2d(Function[Tensor]):
    """The maximum of each window; the gradient goes to the (first) position of each maximum."""

    vmap = classmethod(_batch_images)

    node_name = "MaxPool2DWithIndicesBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(
        ctx: Any, x: Tensor, kernel: Pair, stride: Pair, padding: Pair, dilation: Pair, ceil_mode: bool
    ) -> Tensor:
        values, indices = max_pool2d_with_indices(x._data, kernel, stride, padding, dilation, ceil_mode)
        ctx.input_shape = x._data.shape
        ctx.indices = indices  # an array, not a Tensor: positions, never differentiated
        ctx.save_for_backward(x)  # (only to connect the gradient to x under create_graph)
        return as_tensor(values)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None, None, None]:
        n, c, h, w = ctx.input_shape
        idx = as_tensor(ctx.indices.reshape(n, c, -1))
        flat = grad.new_zeros((n, c, h * w)).scatter_add(2, idx, grad.reshape(n, c, -1))
        return linked_to_input(ctx, flat.reshape(n, c, h, w)), None, None, None, None, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, *_: None) -> Tensor:
        n, c, _h, _w = ctx.input_shape
        idx = ctx.indices
        return tx.reshape(n, c, -1).gather(2, as_tensor(idx.reshape(n, c, -1))).reshape(idx.shape)


# torch's EPSILON for the BCE gradient, 1e-12 rounded to float32 (as torch stores it).
_BCE_EPSILON = float(np.float32(1e-12))


class BinaryCrossEntropy(Function[Tensor]):
    """``-(t log x + (1 - t) log(1 - x))`` per element, each log clamped at -100; torch's
    gradients: ``(x - t) / max(x (1 - x), 1e-12)`` for ``x`` (0, not NaN, where ``x`` is
    exactly 0 or 1) and ``log(1 - x) - log(x)`` (clamped) for ``t``."""

    vmap = elementwise_rule

    node_name = "BinaryCrossEntropyBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, t: Tensor) -> Tensor:
        xd, td = x._data, t._data
        with np.errstate(divide="ignore"):
            log_x = np.maximum(np.log(xd), -100.0)
            log_1mx = np.maximum(np.log1p(-xd), -100.0)
        ctx.save_for_backward(x, t)
        return as_tensor(-(td * log_x + (1.0 - td) * log_1mx))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        x, t = ctx.saved_tensors
        need_x, need_t = ctx.needs_input_grad
        gx = grad * (x - t) / ((1.0 - x) * x).clamp_min(_BCE_EPSILON) if need_x else None
        gt = None
        if need_t:
            with np.errstate(divide="ignore"):
                gt = grad * ((1.0 - x).log().clamp_min(-100.0) - x.log().clamp_min(-100.0))
        return gx, gt


class LogSigmoid(Function[Tensor]):
    """``log(sigmoid(x))``, computed stably as ``min(x, 0) - log1p(e ** -|x|)``;
    d/dx = ``sigmoid(-x)``, written in ops so that it can be differentiated again."""

    vmap = elementwise_rule

    node_name = "LogSigmoidBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        data = _floating_only(x, "log_sigmoid_cpu")
        ctx.save_for_backward(x)
        return as_tensor(keep_dtype(np.minimum(data, 0) - np.log1p(np.exp(-np.abs(data))), data.dtype))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return grad * (-x).sigmoid()

    @staticmethod
    def jvp(ctx: Any, tx: Tensor) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return tx * (-x).sigmoid()

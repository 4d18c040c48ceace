"""The compute-heavy ops behind ``ctxgrad.nn.functional``, each an ordinary
:class:`~ctxgrad.autograd.Function` with a ``backward`` written in ctxgrad ops (so it can be
differentiated again) and a ``jvp`` for forward mode.

* :class:`Im2Col` / :class:`Col2Im` (``F.unfold`` / ``F.fold``): the sliding-window copy that
  turns a convolution into a matrix product, and its adjoint (windows added back into place).
  Each is linear, so each one's backward is the other and its jvp is itself.
* :class:`Convolution`: ``conv2d`` as ``weight @ im2col(input)`` per group; its backward is a
  matrix product and a :class:`Col2Im`.
* :class:`MaxPool2d`: the maximum of each window, remembering where it was; the gradient is
  scattered back to those positions (``scatter_add``).
* :class:`Embedding`: rows of a weight matrix picked by index; the gradient is added back
  into the picked rows (``scatter_add``), skipping ``padding_idx`` and optionally divided by
  each index's frequency.
* :class:`ConstantPad`: zero (or ``value``) padding, negative amounts cropping; its adjoint
  is itself with the amounts negated.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ctxgrad._state import _state
from ctxgrad._tensor import Tensor, as_tensor
from ctxgrad.autograd.batching import (
    VmapInfo,
    elementwise_rule,
    every_batched_rule,
    loop_over_samples,
    only_first_batched,
    unary_rule,
)
from ctxgrad.autograd.function import Function
from ctxgrad.ops._util import keep_dtype
from ctxgrad.ops.activations import _floating_only

Pads4 = tuple[int, int, int, int]  # top, bottom, left, right
Pair = tuple[int, int]


def conv_out_size(size: int, pad_lo: int, pad_hi: int, kernel: int, stride: int, dilation: int) -> int:
    """Output length of a sliding window along one dimension."""
    return (size + pad_lo + pad_hi - dilation * (kernel - 1) - 1) // stride + 1


def _windows(
    padded: np.ndarray[Any, Any], kernel: Pair, stride: Pair, dilation: Pair, out: Pair
) -> np.ndarray[Any, Any]:
    """``(N, C, kh, kw, oh, ow)``: entry ``[..., i, j, y, x]`` is ``padded[..., y*sh + i*dh, x*sw + j*dw]``."""
    n, c = padded.shape[:2]
    (kh, kw), (sh, sw), (dh, dw), (oh, ow) = kernel, stride, dilation, out
    cols = np.empty((n, c, kh, kw, oh, ow), dtype=padded.dtype)
    for i in range(kh):
        for j in range(kw):
            cols[:, :, i, j] = padded[
                :, :, i * dh : i * dh + sh * (oh - 1) + 1 : sh, j * dw : j * dw + sw * (ow - 1) + 1 : sw
            ]
    return cols


def _batch_images(cls: Any, info: VmapInfo, in_dims: tuple[Any, ...], x: Tensor, *rest: Any) -> tuple[Any, Any]:
    """The batching rule of an op on a batch of images (``N, C, H, W``): the vmap batch
    folded into ``N``."""
    if not only_first_batched(in_dims):
        return loop_over_samples(cls, info, in_dims, x, *rest)
    if x.ndim == 4:  # one sample is a (C, H, W) image: the vmap batch is N
        return cls.apply(x, *rest), 0
    size, n = x.shape[0], x.shape[1]
    out = cls.apply(x.reshape(size * n, *x.shape[2:]), *rest)
    return out.reshape(size, n, *out.shape[1:]), 0


class Im2Col(Function[Tensor]):
    """``(N, C, H, W) -> (N, C*kh*kw, L)``: every window of the (padded) input as a column."""

    vmap = classmethod(_batch_images)

    node_name = "Im2ColBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, kernel: Pair, dilation: Pair, padding: Pads4, stride: Pair) -> Tensor:
        data = x._data
        if data.ndim != 4:
            raise RuntimeError(f"Expected 4D (batched) input to im2col, but got input of size: {list(data.shape)}")
        n, c, h, w = data.shape
        top, bottom, left, right = padding
        out = (
            conv_out_size(h, top, bottom, kernel[0], stride[0], dilation[0]),
            conv_out_size(w, left, right, kernel[1], stride[1], dilation[1]),
        )
        if out[0] <= 0 or out[1] <= 0:
            raise RuntimeError(
                f"Given input with spatial size ({h}, {w}), kernel_size={kernel}, dilation={dilation}, "
                f"padding={padding}, the calculated shape of the array of sliding blocks is {out}, "
                "but its components must be at least one."
            )
        padded = np.pad(data, ((0, 0), (0, 0), (top, bottom), (left, right))) if any(padding) else data
        ctx.args = (kernel, dilation, padding, stride, (h, w))
        ctx.save_for_backward(x)  # (only to connect the gradient to x under create_graph)
        cols = _windows(padded, kernel, stride, dilation, out)
        return as_tensor(cols.reshape(n, c * kernel[0] * kernel[1], out[0] * out[1]))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None, None]:
        kernel, dilation, padding, stride, size = ctx.args
        gx = linked_to_input(ctx, Col2Im.apply(grad, size, kernel, dilation, padding, stride))
        return gx, None, None, None, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, *_: None) -> Tensor:
        kernel, dilation, padding, stride, _size = ctx.args
        return Im2Col.apply(tx, kernel, dilation, padding, stride)


class Col2Im(Function[Tensor]):
    """``(N, C*kh*kw, L) -> (N, C, H, W)``: the adjoint of :class:`Im2Col` (overlaps add up)."""

    node_name = "Col2ImBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(
        ctx: Any, cols: Tensor, size: Pair, kernel: Pair, dilation: Pair, padding: Pads4, stride: Pair
    ) -> Tensor:
        data = cols._data
        (h, w), (kh, kw), (dh, dw), (sh, sw) = size, kernel, dilation, stride
        top, bottom, left, right = padding
        oh = conv_out_size(h, top, bottom, kh, sh, dh)
        ow = conv_out_size(w, left, right, kw, sw, dw)
        if data.ndim != 3 or data.shape[1] % (kh * kw) or data.shape[2] != oh * ow:
            raise RuntimeError(
                f"Expected size of input's dimension 1 to be divisible by the product of kernel_size and "
                f"dimension 2 to match the calculated number of sliding blocks {oh} * {ow} = {oh * ow}, "
                f"but got input.size(1)={data.shape[1] if data.ndim > 1 else 0} and "
                f"input.size(2)={data.shape[2] if data.ndim > 2 else 0}."
            )
        n, c = data.shape[0], data.shape[1] // (kh * kw)
        blocks = data.reshape(n, c, kh, kw, oh, ow)
        padded = np.zeros((n, c, h + top + bottom, w + left + right), dtype=data.dtype)
        for i in range(kh):
            for j in range(kw):
                padded[:, :, i * dh : i * dh + sh * (oh - 1) + 1 : sh, j * dw : j * dw + sw * (ow - 1) + 1 : sw] += (
                    blocks[:, :, i, j]
                )
        ctx.args = (size, kernel, dilation, padding, stride)
        return as_tensor(np.ascontiguousarray(padded[:, :, top : top + h, left : left + w]))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None, None, None]:
        _size, kernel, dilation, padding, stride = ctx.args
        return Im2Col.apply(grad, kernel, dilation, padding, stride), None, None, None, None, None

    @staticmethod
    def vmap(info: Any, in_dims: tuple[Any, ...], cols: Tensor, *rest: Any) -> tuple[Tensor, int]:
        """The vmap batch folded into ``N`` (every sample is a batch of columns)."""
        size, n = cols.shape[0], cols.shape[1]
        out = Col2Im.apply(cols.reshape(size * n, *cols.shape[2:]), *rest)
        return out.reshape(size, n, *out.shape[1:]), 0

    @staticmethod
    def jvp(ctx: Any, tc: Tensor, *_: None) -> Tensor:
        return Col2Im.apply(tc, *ctx.args)


class Convolution(Function[Tensor]):
    """2-D cross-correlation ``out[n, o] = sum_c weight[o, c] ⋆ input[n, c] + bias[o]``, in groups.

    Forward: columns ``X = im2col(input)`` of shape ``(N, G, C/G*kh*kw, L)``; per group
    ``out = W_g @ X_g``.  Backward: ``grad_X = W_gᵀ @ grad`` folded back with :class:`Col2Im`,
    ``grad_W = sum_n grad @ X_gᵀ``, ``grad_bias = grad.sum((0, 2, 3))``.
    """

    @classmethod
    def vmap(
        cls, info: VmapInfo, in_dims: tuple[Any, ...], x: Tensor, w: Tensor, bias: Any, *rest: Any
    ) -> tuple[Any, Any]:
        """A batch of inputs is folded into ``N``; a batch of weights (per-sample gradients,
        ensembles) into the groups, one group of filters per sample."""
        xd, wd, bd = in_dims[:3]
        if wd is None and bd is None:
            return _batch_images(cls, info, in_dims, x, w, bias, *rest)
        size = info.batch_size
        if xd is None:
            x = x.unsqueeze(0).expand(size, *x.shape)
        single = x.ndim == 4  # one sample is one (C, H, W) image
        if single:
            x = x.unsqueeze(1)
        if wd is None:
            w = w.unsqueeze(0).expand(size, *w.shape)
        stride, padding, dilation, groups = rest
        n, c = x.shape[1], x.shape[2]
        xs = x.movedim(0, 1).reshape(n, size * c, *x.shape[3:])
        ws = w.reshape(size * w.shape[1], *w.shape[2:])
        b = None
        if bias is not None:
            b = (bias if bd == 0 else bias.unsqueeze(0).expand(size, *bias.shape)).reshape(-1)
        out = cls.apply(xs, ws, b, stride, padding, dilation, groups * size)
        out = out.reshape(n, size, -1, *out.shape[2:]).movedim(1, 0)
        return (out.squeeze(1) if single else out), 0

    node_name = "ConvolutionBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(
        ctx: Any,
        x: Tensor,
        weight: Tensor,
        bias: Tensor | None,
        stride: Pair,
        padding: Pads4,
        dilation: Pair,
        groups: int,
    ) -> Tensor:
        xd, wd = x._data, weight._data
        if xd.dtype != wd.dtype or (bias is not None and bias._data.dtype != xd.dtype):
            raise RuntimeError(
                f"Input type ({xd.dtype}) and weight type ({wd.dtype}) should be the same"
                + ("" if bias is None else f" (bias type {bias._data.dtype})")
            )
        n, c, h, w = xd.shape
        o, cg, kh, kw = wd.shape
        if cg * groups != c:
            raise RuntimeError(
                f"Given groups={groups}, weight of size {list(wd.shape)}, expected input{list(xd.shape)} to have "
                f"{cg * groups} channels, but got {c} channels instead"
            )
        if o % groups:
            raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0")
        kernel = (kh, kw)
        oh = conv_out_size(h, padding[0], padding[1], kh, stride[0], dilation[0])
        ow = conv_out_size(w, padding[2], padding[3], kw, stride[1], dilation[1])
        if oh <= 0 or ow <= 0:
            raise RuntimeError(
                f"Calculated padded input size per channel: ({h + padding[0] + padding[1]} x "
                f"{w + padding[2] + padding[3]}). Kernel size: ({dilation[0] * (kh - 1) + 1} x "
                f"{dilation[1] * (kw - 1) + 1}). Kernel size can't be greater than actual input size"
            )
        padded = np.pad(xd, ((0, 0), (0, 0), padding[:2], padding[2:])) if any(padding) else xd
        cols = _windows(padded, kernel, stride, dilation, (oh, ow)).reshape(n, groups, cg * kh * kw, oh * ow)
        wmat = wd.reshape(groups, o // groups, cg * kh * kw)
        out = np.matmul(wmat, cols).reshape(n, o, oh, ow)  # (G, O/G, K) @ (N, G, K, L), batched over N and G
        if bias is not None:
            out = out + bias._data.reshape(1, o, 1, 1)
        ctx.save_for_backward(x, weight, bias)
        ctx.args = (stride, padding, dilation, groups)
        return as_tensor(out)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None, Tensor | None, None, None, None, None]:
        x, weight, bias = ctx.saved_tensors
        stride, padding, dilation, groups = ctx.args
        need_x, need_w, need_b = ctx.needs_input_grad[:3]
        n, c, h, w = x.shape
        o, cg, kh, kw = weight.shape
        kernel = (kh, kw)
        grad_g = grad.reshape(n, groups, o // groups, grad.shape[2] * grad.shape[3])
        grad_x = grad_w = grad_b = None
        if need_x:
            wmat = weight.reshape(groups, o // groups, cg * kh * kw)
            grad_cols = (wmat.mT @ grad_g).reshape(n, c * kh * kw, grad_g.shape[3])
            grad_x = linked_to_input(ctx, Col2Im.apply(grad_cols, (h, w), kernel, dilation, padding, stride))
        if need_w:
            cols = Im2Col.apply(x, kernel, dilation, padding, stride).reshape(n, groups, cg * kh * kw, -1)
            grad_w = (grad_g @ cols.mT).sum(0).reshape(o, cg, kh, kw)
        if need_b and bias is not None:
            grad_b = grad.sum((0, 2, 3))
        return grad_x, grad_w, grad_b, None, None, None, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor | None, tw: Tensor | None, tb: Tensor | None, *_: None) -> Tensor:
        x, weight, _bias = ctx.saved_tensors
        args = ctx.args
        terms = []
        if tx is not None:
            terms.append(Convolution.apply(tx, weight, None, *args))
        if tw is not None:
            terms.append(Convolution.apply(x, tw, None, *args))
        if tb is not None:
            terms.append(tb.reshape(1, -1, 1, 1))
        out = terms[0]
        for t in terms[1:]:
            out = out + t
        return out


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


class Embedding(Function[Tensor]):
    """``weight[indices]``; the gradient of each row is the sum over its occurrences (divided by
    their number with ``scale_grad_by_freq``), none for ``padding_idx``."""

    @classmethod
    def vmap(cls, info: Any, in_dims: tuple[Any, ...], indices: Tensor, weight: Tensor, *rest: Any) -> tuple[Any, Any]:
        if in_dims[1] is None:  # a batch of index tensors is one index tensor with a dimension more
            return cls.apply(indices, weight, *rest), 0
        return loop_over_samples(cls, info, in_dims, indices, weight, *rest)

    node_name = "EmbeddingBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, indices: Tensor, weight: Tensor, padding_idx: int, scale_grad_by_freq: bool) -> Tensor:
        idx = indices._data
        if idx.dtype.kind not in "iu":
            raise RuntimeError(
                "Expected tensor for argument #1 'indices' to have one of the following scalar types: Long, Int; "
                f"but got {indices.dtype} instead (while checking arguments for embedding)"
            )
        num = weight._data.shape[0]
        if idx.size and (idx.min() < 0 or idx.max() >= num):
            raise IndexError("index out of range in self")
        ctx.save_for_backward(indices)
        ctx.num_weights = num
        ctx.padding_idx = padding_idx
        ctx.scale_grad_by_freq = scale_grad_by_freq
        return as_tensor(weight._data[idx])

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[None, Tensor, None, None]:
        (indices,) = ctx.saved_tensors
        idx = indices.reshape(-1)
        dim = grad.shape[-1]
        rows = grad.reshape(-1, dim)
        if ctx.padding_idx >= 0:
            rows = rows.masked_fill((idx == ctx.padding_idx).unsqueeze(1), 0.0)
        if ctx.scale_grad_by_freq:
            flat = idx._data
            counts = np.bincount(flat, minlength=ctx.num_weights)
            rows = rows * as_tensor((1.0 / counts[flat]).astype(grad._data.dtype)[:, None])
        index = idx.unsqueeze(1).expand(-1, dim)
        return None, grad.new_zeros((ctx.num_weights, dim)).scatter_add(0, index, rows), None, None

    @staticmethod
    def jvp(ctx: Any, _: None, tw: Tensor, *__: None) -> Tensor:
        (idx,) = ctx.saved_tensors
        return tw.index_select(0, idx.reshape(-1)).reshape(*idx.shape, tw.shape[-1])


class ConstantPad(Function[Tensor]):
    """Pad the last dimensions with ``value`` (negative amounts crop).  ``pads`` holds one
    ``(before, after)`` pair per dimension, first dimension first; when it has fewer pairs than
    the input has dimensions (under ``vmap``, the batch dimension), they are the last ones."""

    vmap = unary_rule

    node_name = "ConstantPadNdBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, pads: tuple[Pair, ...], value: float) -> Tensor:
        data = x._data
        pads = ((0, 0),) * (data.ndim - len(pads)) + tuple(pads)
        grown = np.pad(data, [(max(a, 0), max(b, 0)) for a, b in pads], constant_values=value)
        crop = tuple(slice(max(-a, 0), grown.shape[i] - max(-b, 0)) for i, (a, b) in enumerate(pads))
        ctx.pads = pads
        out = grown[crop]
        if any(s <= 0 for s in out.shape) and data.size:
            raise RuntimeError(
                f"The input size {data.shape[-1]}, plus negative padding {pads[-1][0]} and {pads[-1][1]} "
                f"resulted in a negative output size, which is invalid. Check dimension {data.ndim - 1} of your input."
            )
        return as_tensor(np.ascontiguousarray(out))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        return ConstantPad.apply(grad, tuple((-a, -b) for a, b in ctx.pads), 0.0), None, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, *_: None) -> Tensor:
        return ConstantPad.apply(tx, ctx.pads, 0.0)


# --------------------------------------------------------------------------- cross-entropy
class CrossEntropyWithIndices(Function[Tensor]):
    """The softmax cross-entropy of ``(N, C)`` logits ``x`` with class indices, summed (or
    averaged) over the rows that are kept (not ``ignore_index``): one node where the
    composed form (log_softmax, gather, mask, sum) takes about ten.

    loss = -Σᵢ keepᵢ log softmax(xᵢ)[tᵢ] (· 1/Σ keep for the mean); d loss / d xᵢ =
    keepᵢ (softmax(xᵢ) - onehot(tᵢ)) (· 1/Σ keep).  The backward recomputes the softmax
    from the saved input with ctxgrad ops, so it can be differentiated again."""

    node_name = "NllLossBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, target: np.ndarray[Any, Any], keep: np.ndarray[Any, Any], mean: bool) -> Tensor:
        data = x._data
        rows = np.arange(data.shape[0])
        shifted = data - data.max(axis=1, keepdims=True)
        log_p = shifted[rows, target] - np.log(np.exp(shifted).sum(axis=1))
        kept = keep.astype(data.dtype)
        total = -(log_p * kept).sum()
        scale = 1.0
        if mean:
            count = kept.sum()
            # Every row ignored: the mean is NaN and its gradient 0 (no row contributes), as in torch.
            scale = 1.0 / count if count else 0.0
            if not count:
                total = np.nan
        onehot = np.zeros_like(data)
        onehot[rows, target] = kept
        ctx.save_for_backward(x, as_tensor(kept[:, None]), as_tensor(onehot))
        ctx.scale = scale
        return as_tensor(np.asarray(total * scale if scale else total, dtype=data.dtype))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None]:
        x, kept, onehot = ctx.saved_tensors
        return (x.softmax(1) * kept - onehot) * (grad * ctx.scale), None, None, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, *_: None) -> Tensor:
        x, kept, onehot = ctx.saved_tensors
        tangent: Tensor = ((x.softmax(1) * kept - onehot) * tx).sum() * ctx.scale
        return tangent

    @staticmethod
    def vmap(
        info: Any,
        in_dims: tuple[Any, ...],
        x: Tensor,
        target: np.ndarray[Any, Any],
        keep: np.ndarray[Any, Any],
        mean: bool,
    ) -> tuple[Tensor, int]:
        """The same loss of every sample's logits (the targets are shared), written with ops
        that batch: log_softmax, gather, a masked sum over each sample's rows."""
        dtype = x.dtype
        picked = x.log_softmax(-1).gather(-1, as_tensor(np.broadcast_to(target[:, None], (*x.shape[:-1], 1)).copy()))
        kept = keep.astype(dtype)
        total = -(picked.squeeze(-1) * as_tensor(kept)).sum(-1)
        if mean:
            count = kept.sum()
            total = total * (1.0 / count) if count else total * 0.0 + float("nan")  # (no row: NaN, gradient 0)
        return total, 0


class ZeroSecondOrder(Function[Tensor]):
    """``grad`` as it is, made a function of ``x`` whose derivative is zero.

    Torch's backward formulas for pooling, convolution and ``nll_loss`` read their input, so
    under ``create_graph`` the gradient they return is connected to it, and a gradient
    penalty through one of them alone gives zeros; ctxgrad's gradients of these ops do not
    depend on the input's values, so this link stands for that connection."""

    node_name = "ZeroSecondOrderBackward"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, grad: Tensor, x: Tensor) -> Tensor:
        ctx.x_meta = (x._data.shape, x._data.dtype)
        return as_tensor(grad._data.copy())

    @staticmethod
    def backward(ctx: Any, gg: Tensor) -> tuple[Tensor, Tensor]:
        shape, dtype = ctx.x_meta
        return gg, as_tensor(np.zeros(shape, dtype=dtype))

    vmap = every_batched_rule


def linked_to_input(ctx: Any, grad: Tensor) -> Tensor:
    """``grad``, connected to the node's first saved tensor (its input) when a backward is
    being recorded (``create_graph``) and that input requires grad."""
    if not _state.grad_enabled:
        return grad
    x = ctx.saved_tensors[0]
    return ZeroSecondOrder.apply(grad, x) if x.requires_grad else grad


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


class SecondOrderLink(Function[Tensor]):
    """``x`` as it is (a view), whose gradient is connected to ``x`` under ``create_graph``
    (:func:`linked_to_input`): put before a composed op whose torch backward reads its input
    (``nll_loss``), so that a gradient penalty through that op alone gives zeros."""

    vmap = unary_rule

    node_name = "SecondOrderLinkBackward"
    returns_views = True
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.save_for_backward(x)
        return as_tensor(x._data.view())

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        return linked_to_input(ctx, grad)

    @staticmethod
    def jvp(ctx: Any, tx: Tensor) -> Tensor:
        return tx


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

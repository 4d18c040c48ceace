"""Convolution, its windows and padding: the ops behind ``ctxgrad.conv2d`` and
``ctxgrad.nn.functional``'s ``conv*``, ``unfold``/``fold`` and ``pad``.

* :class:`Im2Col` / :class:`Col2Im` (``F.unfold`` / ``F.fold``): the sliding-window copy that
  turns a convolution into a matrix product, and its adjoint (windows added back into place).
  Each is linear, so each one's backward is the other and its jvp is itself.
* :class:`Convolution`: ``conv2d`` as ``weight @ im2col(input)`` per group; its backward is a
  matrix product and a :class:`Col2Im`.  ``conv1d`` is a ``conv2d`` over a height of 1,
  ``conv3d`` and the transposed convolutions are written with these.
* :class:`ConstantPad`: zero (or ``value``) padding, negative amounts cropping; its adjoint
  is itself with the amounts negated.  ``pad``'s other modes are composed from ops.

Each op is its Function and, beside it, its row in :data:`ROWS` (torch has the convolutions
both as ``torch.conv2d`` and as ``torch.nn.functional.conv2d``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ctxgrad._state import _state
from ctxgrad._tensor import Tensor, as_tensor
from ctxgrad.autograd.batching import (
    VmapInfo,
    every_batched_rule,
    loop_over_samples,
    only_first_batched,
    unary_rule,
)
from ctxgrad.autograd.function import Function
from ctxgrad.ops._row import Op

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
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, kernel: Pair, dilation: Pair, padding: Pads4, stride: Pair) -> Tensor:
        data = x.array
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
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(
        ctx: Any, cols: Tensor, size: Pair, kernel: Pair, dilation: Pair, padding: Pads4, stride: Pair
    ) -> Tensor:
        data = cols.array
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
    holomorphic = True  # bilinear: holomorphic in the input and in the weight
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
        xd, wd = x.array, weight.array
        if xd.dtype != wd.dtype or (bias is not None and bias.array.dtype != xd.dtype):
            raise RuntimeError(
                f"Input type ({xd.dtype}) and weight type ({wd.dtype}) should be the same"
                + ("" if bias is None else f" (bias type {bias.array.dtype})")
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
            out = out + bias.array.reshape(1, o, 1, 1)
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


class ConstantPad(Function[Tensor]):
    """Pad the last dimensions with ``value`` (negative amounts crop).  ``pads`` holds one
    ``(before, after)`` pair per dimension, first dimension first; when it has fewer pairs than
    the input has dimensions (under ``vmap``, the batch dimension), they are the last ones."""

    vmap = unary_rule

    node_name = "ConstantPadNdBackward0"
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, pads: tuple[Pair, ...], value: float) -> Tensor:
        data = x.array
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
        ctx.x_meta = (x.array.shape, x.array.dtype)
        return as_tensor(grad.array.copy())

    @staticmethod
    def backward(ctx: Any, gg: Tensor) -> tuple[Tensor, Tensor]:
        shape, dtype = ctx.x_meta
        return gg, as_tensor(np.zeros(shape, dtype=dtype))

    vmap = every_batched_rule


def linked_to_input(ctx: Any, grad: Tensor) -> Tensor:
    """``grad``, connected to the node's first saved tensor (its input) when a backward is
    being recorded (``create_graph``) and that input requires grad."""
    if not _state.modes.grad_enabled:
        return grad
    x = ctx.saved_tensors[0]
    return ZeroSecondOrder.apply(grad, x) if x.requires_grad else grad


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


def _padding_string_error(padding: str) -> RuntimeError:
    """Torch's error for a convolution's ``padding`` string other than 'valid' or 'same' (the
    functional form's RuntimeError; the module's constructor raises a ValueError)."""
    return RuntimeError(f"Invalid padding string: '{padding}' (expected 'valid' or 'same')")


def _conv_padding(padding: Any, kernel: tuple[int, int], dilation: tuple[int, int], stride: tuple[int, int]) -> Pads4:
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
    out = Convolution.apply(x, weight, bias, st, pads, dl, int(groups))
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
    C/groups, kD, kH, kW)`` weight: one :func:`conv2d` of the depth windows, the kernel's depth
    taken as channels and the output depth as batch."""
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
    # The depth windows side by side: planes[n, o, c, kd] is x[n, c, o*stride + kd*dilation], so
    # the kernel's depth joins the channels (after its group's channels, as the weight's
    # reshape has it) and the output depth the batch: one conv2d.
    n, c, _, h, w = x.shape
    depths = np.arange(out_depth)[:, None] * st[0] + np.arange(kernel[0])[None, :] * dl[0]
    planes = x[:, :, as_tensor(depths)].permute(0, 2, 1, 3, 4, 5).reshape(n * out_depth, c * kernel[0], h, w)
    flat_weight = weight.reshape(weight.shape[0], weight.shape[1] * kernel[0], *kernel[1:])
    out = conv2d(planes, flat_weight, None, st[1:], 0, dl[1:], groups)
    out = out.reshape(n, out_depth, *out.shape[1:]).permute(0, 2, 1, 3, 4)
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
    out = Im2Col.apply(
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
    out = Col2Im.apply(
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


def _stack(tensors: list[Tensor], dim: int) -> Tensor:
    from ctxgrad.ops.joining import Stack

    out: Tensor = Stack.apply(dim, *tensors)
    return out


def _unbatch(out: Tensor, unbatched: bool) -> Tensor:
    return out.squeeze(0) if unbatched else out


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
        return ConstantPad.apply(input, tuple(pairs), 0.0 if value is None else float(value))
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
        out = out.index_select(dim, as_tensor(positions.astype(np.int64)))
    return out


# --------------------------------------------------------------------------- rows
ROWS: list[Op] = [
    Op("conv1d", conv1d, method=False, nn_functional=True),
    Op("conv2d", conv2d, method=False, nn_functional=True),
    Op("conv3d", conv3d, method=False, nn_functional=True),
    Op("conv_transpose1d", conv_transpose1d, method=False, nn_functional=True),
    Op("conv_transpose2d", conv_transpose2d, method=False, nn_functional=True),
]

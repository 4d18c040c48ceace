"""Layers as functions of ``ctxgrad.nn.functional``: linear, convolutions, fold/unfold, pad,
embedding, one_hot, pixel shuffle."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from ctxgrad import _factories
from ctxgrad._replayed import replayed_whole
from ctxgrad._tensor import Tensor
from ctxgrad.autograd.grad_mode import no_grad
from ctxgrad.nn import _ops


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
    from ctxgrad.ops.einsum import einsum

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


def _stack(tensors: list[Tensor], dim: int) -> Tensor:
    from ctxgrad._made_functions import stack

    out: Tensor = stack(tensors, dim)
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

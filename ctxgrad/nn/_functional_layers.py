"""Layers as functions of ``ctxgrad.nn.functional``: linear, convolutions, fold/unfold, pad,
embedding, one_hot, pixel shuffle."""

from __future__ import annotations

from typing import Any

import numpy as np

from ctxgrad import _factories
from ctxgrad._replayed import replayed_whole
from ctxgrad._tensor import Tensor, as_tensor
from ctxgrad.autograd._batched import unary_rule
from ctxgrad.autograd._batched_tensor import BatchedTensor
from ctxgrad.autograd.function import Function
from ctxgrad.autograd.grad_mode import no_grad
from ctxgrad.ops.convolution import _stack
from ctxgrad.ops.index_ops import Embedding, refuse_complex_gradient
from ctxgrad.ops.linalg import addmm


def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``input @ weight.T + bias``: ``weight`` is ``(out_features, in_features)``."""
    shape, wshape = input.shape, weight.shape  # (each read once: a shape is made per read)
    ndim, wdim = len(shape), len(wshape)
    if ndim == 0 or wdim == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are {ndim}D and {wdim}D")
    if shape[-1:] != wshape[-1:] and wdim == 2:
        rows = int(np.prod(shape[:-1])) if ndim > 1 else 1
        raise RuntimeError(
            f"mat1 and mat2 shapes cannot be multiplied ({rows}x{shape[-1]} and {wshape[1]}x{wshape[0]})"
        )
    # torch's graph: AddmmBackward0 over TBackward0 (a weight of another rank gets torch's
    # errors from there: t() refuses three dimensions, addmm a vector)
    if bias is not None:
        if ndim == 2:
            return addmm(bias, input, weight.t())
        product = addmm(bias, input.reshape(-1, shape[-1]), weight.t())  # (other ranks: as rows of one matrix)
        return product.view(*shape[:-1], wshape[0])
    out = input @ weight.t()
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
    from ctxgrad.ops.table import frontend

    out: Tensor = frontend("einsum")("...i,kij,...j->...k", input1, weight, input2)
    return out if bias is None else out + bias


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
    refuse_complex_gradient(weight)
    return Embedding.apply(input, weight, -1 if padding_idx is None else int(padding_idx), bool(scale_grad_by_freq))


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
    rows = Embedding.apply(flat, weight, -1, bool(scale_grad_by_freq))  # (total, D)
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
                out.append(rows.index_select(0, as_tensor(chosen)).amax(0))
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
    summed: Tensor = as_tensor(bag_of) @ rows
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
            index = as_tensor(rows[over])
            weight[index] = weight[index] * as_tensor(scale[:, None])


@replayed_whole
def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """``(*, num_classes)`` int64 with a 1 at each value of the int64 ``tensor``.

    Under vmap (torch's rules there): ``num_classes`` must be given, and positive; the values
    of every sample are checked as outside vmap (where torch gives out-of-range values a row
    of zeros: docs/differences.md)."""
    if isinstance(tensor, BatchedTensor):
        if tensor.dtype != np.int64:
            raise RuntimeError("one_hot is only applicable to index tensor.")
        if num_classes <= 0:
            raise RuntimeError(
                "When vmap-ing torch.nn.functional.one_hot, please provide an explicit positive num_classes argument."
            )
    elif tensor._data.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    out: Tensor = OneHot.apply(tensor, int(num_classes))
    return out


class OneHot(Function[Tensor]):
    """:func:`one_hot` of the values (an int64 result: no gradient); on a batch, the same
    (the batch is one more leading dimension)."""

    vmap = unary_rule

    @staticmethod
    def forward(ctx: Any, tensor: Tensor, num_classes: int) -> Tensor:
        data = tensor.array
        if num_classes == -1:
            if data.size == 0:
                raise RuntimeError("Can not infer total number of classes from empty tensor.")
            num_classes = int(data.max()) + 1
        if data.size and data.min() < 0:
            raise RuntimeError("Class values must be non-negative.")
        if data.size and data.max() >= num_classes:
            raise RuntimeError("Class values must be smaller than num_classes.")
        return as_tensor((data[..., None] == np.arange(num_classes)).astype(np.int64))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[None, None]:
        return None, None


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

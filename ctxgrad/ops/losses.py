"""The classification losses that read class indices: ``nll_loss`` and ``cross_entropy``
(``ctxgrad.nn.functional``'s), with torch's reductions and the deprecated
``size_average``/``reduce`` pair.

The common case of ``cross_entropy`` (class indices, a 2-D input, no weight or smoothing) is
one Function, :class:`CrossEntropyWithIndices`; the others are composed from ops
(``log_softmax``, ``gather``), so double backward and forward mode come for free.  Each op is
a frontend and, beside it, its row in :data:`ROWS`; the other losses are in
``ctxgrad/nn/_functional_losses.py``.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ctxgrad._dtypes import short_name
from ctxgrad._replayed import replayed_whole
from ctxgrad._tensor import Tensor, as_tensor
from ctxgrad.autograd.batching import BatchedTensor, unary_rule
from ctxgrad.autograd.function import Function
from ctxgrad.autograd.grad_mode import is_recording
from ctxgrad.ops._row import Op
from ctxgrad.ops.convolution import linked_to_input
from ctxgrad.ops.softmax import softmax_array


# --------------------------------------------------------------------------- cross-entropy
class CrossEntropyWithIndices(Function[Tensor]):
    """The softmax cross-entropy of ``(N, C)`` logits ``x`` with class indices, summed (or
    averaged) over the rows that are kept (not ``ignore_index``): one node where the
    composed form (log_softmax, gather, mask, sum) takes about ten.

    loss = -Σᵢ keepᵢ log softmax(xᵢ)[tᵢ] (· 1/Σ keep for the mean); d loss / d xᵢ =
    keepᵢ (softmax(xᵢ) - onehot(tᵢ)) (· 1/Σ keep).  The forward keeps the softmax it computes
    on the way (an array of the logits' size, as torch's ``log_softmax`` keeps its result), for
    the backward on arrays; a backward that records (``create_graph``) computes it again from
    the saved input with ctxgrad ops, so it can be differentiated again."""

    node_name = "NllLossBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(
        ctx: Any, x: Tensor, target: np.ndarray[Any, Any], keep: np.ndarray[Any, Any] | None, mean: bool
    ) -> Tensor:
        """``keep``: the rows that count, None for all of them (then the mask's products,
        each by 1.0, exact, are left out)."""
        data = x.array
        rows = np.arange(data.shape[0])
        shifted = data - np.maximum.reduce(data, axis=1, keepdims=True)
        exp = np.exp(shifted)
        sums = np.add.reduce(exp, axis=1, keepdims=True)
        log_p = shifted[rows, target] - np.log(sums[:, 0])
        if keep is None:
            total = -np.add.reduce(log_p)
            count = data.dtype.type(data.shape[0])
            ctx.kept = None
        else:
            kept = keep.astype(data.dtype)
            total = -np.add.reduce(log_p * kept)
            count = np.add.reduce(kept)
            ctx.kept = kept[:, None]
        scale = 1.0
        if mean:
            # Every row ignored: the mean is NaN and its gradient 0 (no row contributes), as in torch.
            scale = 1.0 / count if count else 0.0
            if not count:
                total = np.nan
        ctx.save_for_backward(x)
        # (arrays the call made, which nothing else sees or changes: kept on ctx as they are,
        # without a saved tensor's version check and read-only lock.  The softmax is the one
        # ``softmax_array`` computes, ufunc for ufunc; half precision is computed in float there.)
        ctx.probs = exp / sums if data.dtype != np.float16 else None
        ctx.rows, ctx.target = rows, target
        ctx.scale = scale
        return as_tensor(np.asarray(total * scale if scale else total, dtype=data.dtype))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None]:
        (x,) = ctx.saved_tensors
        if not is_recording() and type(x) is Tensor and grad.dtype == x.dtype:
            # Nothing records (no create_graph, no transform): the same formula on the arrays,
            # ufunc for ufunc what the ops below compute, without their calls.
            p = ctx.probs if ctx.probs is not None else softmax_array(x.array, 1)
            # (softmax minus the one-hot rows, in a new array: a retained graph runs this again)
            if ctx.kept is not None:
                p = p * ctx.kept
                p[ctx.rows, ctx.target] -= ctx.kept[:, 0]
            else:
                p = p.copy()
                p[ctx.rows, ctx.target] -= 1
            g = grad.array
            # (the scale in the gradient's dtype, as ``grad * ctx.scale`` takes a Python number;
            # NumPy 1.x would otherwise widen the 0-d product to float64)
            return as_tensor(p * (g * g.dtype.type(ctx.scale))), None, None, None
        return (_kept_softmax(ctx, x) - as_tensor(_onehot(ctx, x))) * (grad * ctx.scale), None, None, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, *_: None) -> Tensor:
        (x,) = ctx.saved_tensors
        tangent: Tensor = ((_kept_softmax(ctx, x) - as_tensor(_onehot(ctx, x))) * tx).sum() * ctx.scale
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


def _onehot(ctx: Any, x: Tensor) -> np.ndarray[Any, Any]:
    """The one-hot rows of the targets, in the logits' dtype (each ignored row all zeros)."""
    data = x.array
    onehot = np.zeros(data.shape, data.dtype)
    onehot[ctx.rows, ctx.target] = 1 if ctx.kept is None else ctx.kept[:, 0]
    return onehot


def _kept_softmax(ctx: Any, x: Tensor) -> Tensor:
    """The softmax of the logits ``x`` with ctxgrad ops, its ignored rows zeroed."""
    p = x.softmax(1)
    return p if ctx.kept is None else p * as_tensor(ctx.kept)


# =========================================================================== losses
def _under_vmap(*tensors: Tensor | None) -> bool:
    for t in tensors:  # (a loop: a generator costs a call of its own)
        if isinstance(t, BatchedTensor):
            return True
    return False


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


def _class_dim(input: Tensor) -> int:
    return 0 if input.ndim == 1 else 1


# The native integer dtypes, each with the unsigned one of its size.
_AS_UNSIGNED = {np.dtype(f"{kind}{n}"): np.dtype(f"u{n}") for kind in "iu" for n in (1, 2, 4, 8)}


def _check_nll_target(input: Tensor, target: Tensor, weight: Tensor | None, ignore_index: int) -> Any:
    """torch's checks of an ``nll_loss`` target (shape, dtype, bounds) and weight; returns
    the mask of the ignored targets, or None when no target is ignored."""
    shape, tdata = input.array.shape, target.array  # (the arrays' shapes: plain tuples, read once)
    tshape = tdata.shape
    if not shape:
        raise ValueError("Expected 1 or more dimensions (got 0)")
    cdim = _class_dim(input)
    n_classes = shape[cdim]
    expected = shape[:cdim] + shape[cdim + 1 :]
    if len(shape) >= 2 and tshape[:1] != shape[:1]:
        raise ValueError(f"Expected input batch_size ({shape[0]}) to match target batch_size ({tshape[0]}).")
    if tshape != expected:
        raise RuntimeError(f"Expected target size {list(expected)}, got {list(tshape)}")
    _check_target_dtype(target, len(shape))
    if weight is not None and tuple(weight.shape) != (n_classes,):
        raise RuntimeError(
            f"weight tensor should be defined either for all {n_classes} classes or no classes but got weight "
            f"tensor of shape: {list(weight.shape)}"
        )
    if tdata.size and not 0 <= ignore_index < n_classes:
        unsigned = _AS_UNSIGNED.get(tdata.dtype)
        if unsigned is not None:  # (seen unsigned, a negative target is a huge one: one reduction)
            in_range = np.maximum.reduce(tdata.view(unsigned), axis=None) < n_classes
        else:  # (a byte order of its own)
            in_range = 0 <= np.minimum.reduce(tdata, axis=None) and np.maximum.reduce(tdata, axis=None) < n_classes
        if in_range:
            return None  # (every target a class, none ignored)
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
    if input.is_complex():  # (torch has no complex kernel for it)
        raise NotImplementedError(f"\"nll_loss_out_frame\" not implemented for '{short_name(input.array.dtype)}'")
    cdim = _class_dim(input) if input.ndim >= 1 else 0
    if _under_vmap(input, target, weight):
        return _nll_loss_of_batch(input, target, weight, ignore_index, reduction, cdim)
    ignored = _check_nll_target(input, target, weight, ignore_index)
    tdata = target.array
    if ignored is None:
        ignored = np.zeros(tdata.shape, dtype=bool)
    safe = as_tensor(np.where(ignored, 0, tdata).astype(np.int64))
    if input.requires_grad:
        input = SecondOrderLink.apply(input)
    picked = -input.gather(cdim, safe.unsqueeze(cdim)).squeeze(cdim)
    keep = as_tensor((~ignored).astype(input.dtype))
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


def _nll_loss_of_batch(
    input: Tensor, target: Tensor, weight: Tensor | None, ignore_index: int, reduction: str, cdim: int
) -> Tensor:
    """``nll_loss`` inside vmap, in ops that have batching rules.  The checks that read the
    targets' values (bounds) cannot run on a batch: an out-of-range target fails in ``gather``."""
    from ctxgrad.ops.pointwise import where

    _check_target_dtype(target, input.ndim - 1)  # (one dimension of each sample is the vmap's)
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


def _check_target_dtype(target: Tensor, input_ndim: int) -> None:
    """torch's rule for class-index targets: int64, or uint8 where the input has at most two
    dimensions (its ``nll_loss`` kernel; inputs of more go through ``nll_loss2d``, which takes
    int64 only)."""
    dt = target.array.dtype
    if dt == np.int64 or (dt == np.uint8 and input_ndim <= 2):
        return
    if dt == np.uint8:
        raise RuntimeError("expected scalar type Long but found Byte")
    raise RuntimeError(f"expected target dtype to be Long or Byte, but got {_type_name(target)}")


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
    if label_smoothing == 0.0 and weight is None and reduction != "none" and not _under_vmap(input, target):
        data, tdata = input.array, target.array
        if data.ndim == 2 and data.dtype.kind == "f" and tdata.shape != data.shape:
            # The common case, fused into one Function; the target gets nll_loss's checks first.
            ignored = _check_nll_target(input, target, None, ignore_index)
            if ignored is None:
                # (a copy of the targets: the backward reads them, after the caller may have reused its own)
                return CrossEntropyWithIndices.apply(input, tdata.astype(np.intp), None, reduction == "mean")
            keep = ~ignored
            rows = np.where(keep, tdata, 0).astype(np.intp)
            return CrossEntropyWithIndices.apply(input, rows, keep, reduction == "mean")
    cdim = _class_dim(input)
    n_classes = input.shape[cdim]
    logp = input.log_softmax(cdim)
    wshape = [1] * input.ndim
    wshape[cdim] = n_classes
    if target.shape == input.shape:  # (torch tells class probabilities from indices by the shape alone)
        if not target.is_floating_point():
            raise RuntimeError(
                f"Expected floating point type for target with class probabilities, got {_type_name(target)}"
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
    ignored = as_tensor(target.array == ignore_index)
    smooth = -(logp * weight.reshape(wshape)).sum(cdim) if weight is not None else -logp.sum(cdim)
    smooth = smooth.masked_fill(ignored, 0.0)
    if reduction == "mean":
        if weight is not None:
            safe = as_tensor(np.where(ignored.array, 0, target.array).astype(np.int64))
            denominator = (weight.index_select(0, safe.reshape(-1)) * (~ignored).reshape(-1).to(weight.dtype)).sum()
            ret = smooth.sum() / denominator
        else:
            ret = smooth.sum() / float((~ignored.array).sum())
    else:
        ret = _reduce(smooth, reduction)
    return nll * (1.0 - label_smoothing) + ret * (label_smoothing / n_classes)


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
        return as_tensor(x.array.view())

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        return linked_to_input(ctx, grad)

    @staticmethod
    def jvp(ctx: Any, tx: Tensor) -> Tensor:
        return tx


# --------------------------------------------------------------------------- rows
ROWS: list[Op] = [
    Op("nll_loss", nll_loss, method=False, function=False, nn_functional=True),
    Op("cross_entropy", cross_entropy, method=False, function=False, nn_functional=True),
]

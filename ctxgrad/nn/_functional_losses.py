"""The losses of ``ctxgrad.nn.functional`` (see there)."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np

from ctxgrad import _factories
from ctxgrad._replayed import replayed_whole
from ctxgrad._tensor import Tensor, as_tensor
from ctxgrad.autograd.grad_mode import no_grad
from ctxgrad.nn import _ops
from ctxgrad.nn._ctc import CtcLoss
from ctxgrad.nn._functional_activations import _where, logsigmoid, pairwise_distance
from ctxgrad.nn._made_functional import softplus
from ctxgrad.ops.losses import _reduce, _reduction


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
        d_neg = d_neg.minimum(pairwise_distance(positive, negative, p, eps))
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
    ``log_probs`` ``(T, N, C)``: :class:`~ctxgrad.nn._ctc.CtcLoss`, whose gradient is the
    derivative of the loss.
    ``reduction='mean'`` divides each loss by its target length, then averages."""
    reduction = _reduction(None, None, reduction)
    unbatched = log_probs.ndim == 2
    lp = log_probs.unsqueeze(1) if unbatched else log_probs
    batch = lp.shape[1]
    in_lengths, tg_lengths = _lengths(input_lengths), _lengths(target_lengths)
    flat_targets = targets.detach().numpy().astype(np.int64)
    if unbatched:
        flat_targets = flat_targets.reshape(1, -1)
    # each target's extended labels (blank, l1, blank, l2, ..., blank), padded with blanks
    width = 2 * max(tg_lengths, default=0) + 1
    extended = np.full((batch, width), blank, dtype=np.int64)
    skip = np.zeros((batch, width), dtype=bool)  # may come from two back: a label unlike the one before
    starts = np.concatenate([[0], np.cumsum(tg_lengths)[:-1]]).astype(np.int64)
    for n in range(batch):
        t_len = tg_lengths[n]
        if flat_targets.ndim == 2:
            labels = flat_targets[n, :t_len]
        else:
            labels = flat_targets[starts[n] : starts[n] + t_len]
        extended[n, 1 : 2 * t_len : 2] = labels
        skip[n, 3 : 2 * t_len : 2] = labels[1:] != labels[:-1]
    sizes = 2 * np.array(tg_lengths, dtype=np.int64) + 1
    per_sample = CtcLoss.apply(lp, extended, sizes, skip, np.array(in_lengths, dtype=np.int64), bool(zero_infinity))
    if reduction == "mean":
        divisors = as_tensor(np.maximum(np.array(tg_lengths, dtype=np.float64), 1.0).astype(per_sample.dtype))
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
    index = as_tensor(labels.reshape(-1, 1))
    correct = x.gather(1, index)
    hinge = (x - correct + margin).clamp_min(0)
    if p == 2:
        hinge = hinge * hinge
    others = as_tensor(np.arange(classes)[None, :] != labels[:, None])
    hinge = _where(others, hinge, 0.0)
    if weight is not None:
        hinge = hinge * weight.index_select(0, as_tensor(labels)).unsqueeze(1)
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
    loss = (hinge * as_tensor(pairs)).sum((1, 2)) / classes
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
        d_neg = d_neg.minimum(distance(positive, negative))
    return _reduce((margin + d_pos - d_neg).clamp_min(0), _reduction(None, None, reduction))

"""The CTC loss's Function: the forward (alpha) and backward (beta) recursions in log space, a
loop over time vectorised over the batch and the extended labels (blanks between and around
each target's labels), in float64 NumPy."""

from __future__ import annotations

from typing import Any

import numpy as np

from ctxgrad._tensor import Tensor, as_tensor
from ctxgrad.autograd._batched import loop_over_samples, only_first_batched
from ctxgrad.autograd.function import Function, once_differentiable

Array = np.ndarray[Any, Any]


class CtcLoss(Function[Tensor]):
    """Per sample, ``-log`` of the total probability of the alignments of its extended labels
    ``extended[n, :sizes[n]]`` under ``log_probs`` ``(T, N, C)`` over its first ``lengths[n]``
    steps; ``skip[n, s]``: position ``s`` may be entered from ``s - 2`` (a label differing from
    the label before it).  The gradient is the true derivative with respect to ``log_probs``:
    minus the posterior of each class at each step (torch's adds ``exp(log_probs)``, which
    vanishes through ``log_softmax``)."""

    node_name = "CtcLossBackward0"

    @classmethod
    def vmap(cls, info: Any, in_dims: tuple[Any, ...], log_probs: Tensor, *rest: Any) -> tuple[Any, Any]:
        """vmap's samples ``(B, T, N, C)`` as ``B * N`` samples of one batch, each with its
        sample's targets and lengths."""
        if not only_first_batched(in_dims):
            return loop_over_samples(cls, info, in_dims, log_probs, *rest)
        extended, sizes, skip, lengths, zero_infinity = rest
        size, steps, batch, classes = log_probs.shape
        joined = log_probs.permute(1, 0, 2, 3).reshape(steps, size * batch, classes)
        tiled = (np.tile(extended, (size, 1)), np.tile(sizes, size), np.tile(skip, (size, 1)), np.tile(lengths, size))
        return cls.apply(joined, *tiled, zero_infinity).reshape(size, batch), 0

    @staticmethod
    def forward(
        ctx: Any, log_probs: Tensor, extended: Array, sizes: Array, skip: Array, lengths: Array, zero_infinity: bool
    ) -> Tensor:
        lp = log_probs.array.astype(np.float64, copy=False)
        steps, batch, _ = lp.shape
        width = extended.shape[1]
        emissions = lp[:, np.arange(batch)[:, None], extended]  # (T, N, S)
        inside = np.arange(width)[None, :] < sizes[:, None]
        times = np.arange(steps)[:, None, None]
        # the emission where a position can be occupied at a step, -inf elsewhere: adding it
        # both emits and masks; skip_add is 0 where a position may be entered from two back
        entering = np.where(inside & (times < lengths[None, :, None]), emissions, -np.inf)
        skip_add = np.where(skip, 0.0, -np.inf)
        alpha = np.full((steps, batch, width), -np.inf)
        if steps:
            alpha[0] = np.where(np.arange(width)[None, :] < np.minimum(sizes, 2)[:, None], entering[0], -np.inf)
        before = np.full((batch, width + 2), -np.inf)  # alpha of the step before, two -inf in front
        for t in range(1, steps):
            before[:, 2:] = alpha[t - 1]
            stay_or_step = np.logaddexp(before[:, 2:], before[:, 1:-1])
            alpha[t] = np.logaddexp(stay_or_step, before[:, :-2] + skip_add) + entering[t]
        last = np.maximum(lengths - 1, 0)
        rows = np.arange(batch)
        end = alpha[last, rows, np.maximum(sizes - 1, 0)]
        before_end = np.where(sizes > 1, alpha[last, rows, np.maximum(sizes - 2, 0)], -np.inf)
        likelihood = np.logaddexp(end, before_end)
        # no step: only the empty target has an alignment
        likelihood = np.where(lengths == 0, np.where(sizes == 1, 0.0, -np.inf), likelihood)
        loss = -likelihood
        infinite = np.isinf(loss)
        if zero_infinity:
            loss = np.where(infinite, 0.0, loss)
        ctx.recursion = (emissions, alpha, likelihood, infinite, extended, sizes, skip, lengths)
        ctx.classes = lp.shape[2]
        ctx.dtype = log_probs.array.dtype
        return as_tensor(loss.astype(log_probs.array.dtype, copy=False))

    @staticmethod
    @once_differentiable
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None, None, None]:
        emissions, alpha, likelihood, infinite, extended, sizes, skip, lengths = ctx.recursion
        steps, batch, width = alpha.shape
        rows = np.arange(batch)
        # skip_from[n, s]: position s + 2 may be entered from s
        skip_from = np.zeros_like(skip)
        skip_from[:, :-2] = skip[:, 2:]
        positions = np.arange(width)[None, :]
        ends = (positions == (sizes - 1)[:, None]) | ((positions == (sizes - 2)[:, None]) & (sizes > 1)[:, None])
        times = np.arange(steps)[:, None, None]
        inside = positions < sizes[:, None]
        continuing = np.where(inside & (times < (lengths - 1)[None, :, None]), emissions, -np.inf)
        beginning = np.where(ends & (times == (lengths - 1)[None, :, None]), emissions, -np.inf)
        skip_add = np.where(skip_from, 0.0, -np.inf)
        beta = np.full((steps, batch, width), -np.inf)
        after = np.full((batch, width + 2), -np.inf)  # beta of the step after, two -inf behind
        for t in range(steps - 1, -1, -1):
            stay_or_step = np.logaddexp(after[:, :-2], after[:, 1:-1])
            on = np.logaddexp(stay_or_step, after[:, 2:] + skip_add)
            beta[t] = np.logaddexp(on + continuing[t], beginning[t])
            after[:, :-2] = beta[t]
        with np.errstate(invalid="ignore"):
            posterior = np.exp(alpha + beta - emissions - likelihood[None, :, None])  # (T, N, S)
        posterior = np.where(np.isfinite(likelihood)[None, :, None], np.nan_to_num(posterior), 0.0)
        # (each step's posteriors added into their classes: one flat bincount over (t, n, class))
        flat = (np.arange(steps)[:, None, None] * batch + rows[None, :, None]) * ctx.classes + extended[None]
        size = steps * batch * ctx.classes
        per_class = np.bincount(flat.ravel(), posterior.ravel(), minlength=size).reshape(steps, batch, ctx.classes)
        scale = grad.array.astype(np.float64) * ~infinite
        out = -per_class * scale[None, :, None]
        return as_tensor(out.astype(ctx.dtype, copy=False)), None, None, None, None, None

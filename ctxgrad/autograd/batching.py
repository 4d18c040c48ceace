"""What a Function's batching rule (its ``vmap``) can use: the op author's API of ``vmap``.

A Function declares how it runs on a batch with a ``vmap`` staticmethod (torch's signature,
``vmap(info, in_dims, *args) -> (outputs, out_dims)``, or a classmethod, which applies the
subclass it is called on).  The built-in ops declare theirs with what this module exports,
and so can a user's Function:

* generic rules, set as ``vmap = ...`` on the class: :data:`elementwise_rule` (the tensor
  arguments broadcast together), :data:`unary_rule` (an op on its first argument's last
  dimensions), :func:`dims_rule` (an op along the dimensions at one argument),
  :func:`leading_rule`, :func:`flat_rule`, :func:`matrix_rule`, :func:`into_zeros_rule`,
  :func:`flat_positions_rule`, :data:`every_batched_rule`;
* helpers for a rule of one's own: :func:`shift_dim` / :func:`shift_dims` (a sample's
  dimension as the batch's), :func:`only_first_batched`, :func:`expand_unbatched`,
  :func:`align_samples`, :func:`loop_over_samples` (the per-sample loop of last resort, with
  vmap's one-time warning), :func:`batch_elementwise`, :func:`refuse_dynamic_shape`;
* :class:`VmapInfo` (``info.batch_size``, ``info.randomness``) and :class:`BatchedTensor`.

>>> import ctxgrad
>>> from ctxgrad.autograd.batching import elementwise_rule
>>> class Cube(ctxgrad.autograd.Function):
...     vmap = elementwise_rule
...     @staticmethod
...     def forward(ctx, x):
...         ctx.save_for_backward(x)
...         return x * x * x
...     @staticmethod
...     def backward(ctx, grad):
...         (x,) = ctx.saved_tensors
...         return 3 * x * x * grad
>>> ctxgrad.func.vmap(Cube.apply)(ctxgrad.tensor([[1.0, 2.0], [3.0, 4.0]]))
tensor([[ 1.,  8.],
        [27., 64.]])
"""

from __future__ import annotations

from ctxgrad.autograd._batched import (
    align_samples,
    batch_elementwise,
    dims_rule,
    elementwise_rule,
    every_batched_rule,
    expand_unbatched,
    flat_positions_rule,
    flat_rule,
    into_zeros_rule,
    leading_rule,
    loop_over_samples,
    matrix_rule,
    only_first_batched,
    shift_dim,
    shift_dims,
    stack_samples,
    unary_rule,
)
from ctxgrad.autograd._batched_tensor import BatchedTensor, VmapInfo, refuse_dynamic_shape

__all__ = [
    "BatchedTensor",
    "VmapInfo",
    "align_samples",
    "batch_elementwise",
    "dims_rule",
    "elementwise_rule",
    "every_batched_rule",
    "expand_unbatched",
    "flat_positions_rule",
    "flat_rule",
    "into_zeros_rule",
    "leading_rule",
    "loop_over_samples",
    "matrix_rule",
    "only_first_batched",
    "refuse_dynamic_shape",
    "shift_dim",
    "shift_dims",
    "stack_samples",
    "unary_rule",
]

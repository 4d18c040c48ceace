"""Function transforms, as ``torch.func``: ``vmap``, ``grad``, ``vjp``, ``jvp``, ``jacrev``,
``jacfwd``, ``hessian``, ``functional_call`` and friends.

>>> import ctxgrad
>>> from ctxgrad.func import grad, vmap
>>> x = ctxgrad.tensor([[1.0, 2.0], [3.0, 4.0]])
>>> vmap(grad(lambda v: (v ** 3).sum()))(x)  # one gradient per row
tensor([[ 3., 12.],
        [27., 48.]])

How they work, in ctxgrad's terms:

* ``vmap`` wraps each mapped input in a :class:`~ctxgrad.autograd._batched.BatchedTensor`
  (all samples, batch in dimension 0, showing one sample's shape) and opens a *level*; every
  Function applied to it runs its batching rule (its ``vmap`` staticmethod), which usually
  applies the same Function once to the whole batch.
* ``grad``, ``vjp`` and ``jvp`` differentiate with ctxgrad's own autograd (reverse mode, and
  forward mode's dual tensors), on the tensors that hold the whole batch.  Inside ``vmap``,
  the inputs they differentiate are first given a batch dimension at every open level (a
  per-sample copy of an input shared by all samples), so each sample's derivative is its own.
* ``jacrev`` and ``jacfwd`` are ``vmap`` of ``vjp`` and ``jvp`` over the rows (columns) of an
  identity matrix: one batched call, not a loop.
"""

from __future__ import annotations

from ctxgrad.func._grad import grad, grad_and_value, jvp, linearize, vjp
from ctxgrad.func._jacobians import hessian, jacfwd, jacrev
from ctxgrad.func._modules import functional_call, stack_module_state
from ctxgrad.func._vmap import vmap

__all__ = [
    "functional_call",
    "grad",
    "grad_and_value",
    "hessian",
    "jacfwd",
    "jacrev",
    "jvp",
    "linearize",
    "stack_module_state",
    "vjp",
    "vmap",
]

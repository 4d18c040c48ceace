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

The torch alias serves ``functorch`` from this package too, so it also holds functorch's
deprecated module API (``make_functional``, ``make_functional_with_buffers``,
``combine_state_for_ensemble``: :mod:`ctxgrad.func._functorch`) and ``functorch.experimental``
(:mod:`ctxgrad.func.experimental`: ``chunk_vmap``).
"""

from __future__ import annotations

from ctxgrad.func import experimental as experimental
from ctxgrad.func._functorch import FunctionalModule as FunctionalModule
from ctxgrad.func._functorch import FunctionalModuleWithBuffers as FunctionalModuleWithBuffers
from ctxgrad.func._functorch import combine_state_for_ensemble as combine_state_for_ensemble
from ctxgrad.func._functorch import make_functional as make_functional
from ctxgrad.func._functorch import make_functional_with_buffers as make_functional_with_buffers
from ctxgrad.func._grad import grad, grad_and_value, jvp, linearize, vjp
from ctxgrad.func._jacobians import hessian, jacfwd, jacrev
from ctxgrad.func._modules import functional_call, replace_all_batch_norm_modules_, stack_module_state
from ctxgrad.func._vmap import vmap

# torch.func's names; functorch's own (``make_functional``, ``combine_state_for_ensemble``,
# ``experimental``: the torch alias serves ``functorch`` from this package) are not listed.
__all__ = [
    "functional_call",
    "grad",
    "grad_and_value",
    "hessian",
    "jacfwd",
    "jacrev",
    "jvp",
    "linearize",
    "replace_all_batch_norm_modules_",
    "stack_module_state",
    "vjp",
    "vmap",
]

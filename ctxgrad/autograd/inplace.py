"""What an in-place op can use: the op author's API of in-place writes.

An op's in-place twin (``exp_`` of ``exp``) is its out-of-place Function made in place, never
a copy of its body: :func:`in_place` makes, once per Function, the Function whose
``forward`` runs the original's, writes the result into its first argument and marks it
dirty (``ctx.mark_dirty``); ``backward``, ``jvp`` and the node's name are the original's.
:func:`write_in_place` is the body of every built-in in-place op: torch's checks that the
tensor may be changed, then ``in_place(fn).apply`` (or, where nothing records, the same
without a node); :func:`write_ufunc_in_place` lets a NumPy ufunc write into the tensor's
array directly where that gives the same result.  A user's Function gets its twin the
same way:

>>> import ctxgrad
>>> from ctxgrad.autograd.inplace import write_in_place
>>> class Cube(ctxgrad.autograd.Function):
...     node_name = "CubeBackward0"
...     @staticmethod
...     def forward(ctx, x):
...         ctx.save_for_backward(x)
...         return x * x * x
...     @staticmethod
...     def backward(ctx, grad):
...         (x,) = ctx.saved_tensors
...         return 3 * x * x * grad
>>> def cube_(x):
...     return write_in_place(Cube, x)
>>> a = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
>>> y = a * 1
>>> cube_(y) is y, y, y._version
(True, tensor([1., 8.], grad_fn=<CubeBackward0>), 1)
>>> y.sum().backward()
>>> a.grad
tensor([ 3., 12.])

For writes through an index (``x[i] = v``) and views: :class:`CopySlices` (the node of a
base written at flat positions), :func:`write`, :func:`view_positions`, and torch's checks
:func:`check_writable`, :func:`check_no_overlap`, :func:`check_no_partial_overlap`,
:func:`internal_overlap`.  :func:`view_in_place` is the body of the in-place view ops
(``x.t_()``, ``x.unsqueeze_(0)``): the tensor takes the view's shape, strides and node.
"""

from __future__ import annotations

from ctxgrad.autograd._views import (
    CopySlices,
    check_no_overlap,
    check_no_partial_overlap,
    check_writable,
    in_place,
    internal_overlap,
    view_in_place,
    view_positions,
    write,
    write_in_place,
    write_ufunc_in_place,
)

__all__ = [
    "CopySlices",
    "check_no_overlap",
    "check_no_partial_overlap",
    "check_writable",
    "in_place",
    "internal_overlap",
    "view_in_place",
    "view_positions",
    "write",
    "write_in_place",
    "write_ufunc_in_place",
]

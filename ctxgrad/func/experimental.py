"""``functorch.experimental``'s names: ``chunk_vmap`` and ``replace_all_batch_norm_modules_``,
and the transforms it re-exports (``jacfwd``, ``jvp``, ``hessian``)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ctxgrad._tensor import Tensor
from ctxgrad.func._grad import jvp
from ctxgrad.func._jacobians import hessian, jacfwd
from ctxgrad.func._modules import replace_all_batch_norm_modules_
from ctxgrad.func._pytree import broadcast_prefix, tree_flatten
from ctxgrad.func._vmap import vmap

__all__ = ["chunk_vmap", "hessian", "jacfwd", "jvp", "replace_all_batch_norm_modules_"]


def chunk_vmap(
    func: Callable[..., Any], in_dims: Any = 0, out_dims: Any = 0, randomness: str = "error", chunks: int = 2
) -> Callable[..., Any]:
    """:func:`~ctxgrad.func.vmap` over ``chunks`` pieces of the batch, one after the other, the
    results joined: ``vmap`` with a ``chunk_size`` of the batch size divided by ``chunks``
    (rounded up), which torch recommends instead.  ``chunks=1`` is plain ``vmap``.

    >>> import ctxgrad
    >>> from ctxgrad.func.experimental import chunk_vmap
    >>> chunk_vmap(ctxgrad.sum, chunks=2)(ctxgrad.arange(6.0).view(3, 2))
    tensor([1., 5., 9.])
    """
    if randomness not in ("error", "different", "same"):
        raise RuntimeError(f"Only allowed values for randomness are 'error', 'different', or 'same'. Got {randomness}")
    if chunks == 1:
        return vmap(func, in_dims, out_dims, randomness)

    def wrapped(*args: Any, **kwargs: Any) -> Any:
        leaves, spec = tree_flatten(args)
        dims = broadcast_prefix(in_dims, spec) if isinstance(in_dims, (int, tuple)) else None
        sizes = [
            leaf.shape[d]
            for leaf, d in zip(leaves, dims or ())
            if isinstance(leaf, Tensor) and isinstance(d, int) and -leaf.dim() <= d < leaf.dim()
        ]
        chunk_size = math.ceil(sizes[0] / chunks) if sizes and sizes[0] > 0 else None
        # (an input vmap would refuse: vmap raises its own error, naming it)
        return vmap(func, in_dims, out_dims, randomness, chunk_size=chunk_size)(*args, **kwargs)

    return wrapped

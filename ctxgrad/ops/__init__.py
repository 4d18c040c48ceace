"""The built-in ops: each one an ordinary :class:`~ctxgrad.autograd.Function`.

They are written the way a user writes a custom op, with the public API only, so they
double as its best examples: ``forward`` computes with NumPy on ``x.array`` and makes the
result a tensor with ``as_tensor``, saves what ``backward`` needs with
``ctx.save_for_backward``, and ``backward`` is written in ctxgrad ops, so that a backward
can itself be differentiated (double backward).  (``tests/test_ops_public_api.py`` fails on
any private attribute used here.)  Broadcasting is never undone here: a
backward returns the gradient in the broadcast shape and the engine sums it down to the
input's shape, in one place for every op.

Modules: ``arithmetic`` (+, -, *, /, //, **, the general ``@``), ``pointwise`` (exp, log,
the trigonometric and activation functions, clamp, maximum, where, ...), ``comparison``
(==, <, isnan, logical and bitwise ops), ``reduction`` (sum, mean, prod, var, max, norm,
cumsum, softmax, ...), ``linalg`` (mm, bmm, mv, dot, einsum, inv, det, solve, norms and
the dispatch of ``@``), ``shape`` (reshape, view, permute, squeeze, cat, split, flip, ...),
``indexing`` (``x[index]``, take, index_put, nonzero), ``gather_scatter`` (gather, scatter,
scatter_reduce), ``index_ops`` (index_add, index_select, masked_fill, put, the ``*_scatter``
ops), ``sorting`` (sort, topk, median), ``copy`` (clone, dtype conversion) and ``inplace`` (the one mechanism behind
``add_``, ``x[i] = v`` and every other in-place op).
"""

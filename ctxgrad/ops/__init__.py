"""The built-in ops: each one an ordinary :class:`~ctxgrad.autograd.Function`.

They are written the way a user writes a custom op, so they double as its best
examples: ``forward`` computes with NumPy, saves what ``backward`` needs with
``ctx.save_for_backward``, and ``backward`` is written in ctxgrad ops, so that a backward
can itself be differentiated (double backward).  Broadcasting is never undone here: a
backward returns the gradient in the broadcast shape and the engine sums it down to the
input's shape, in one place for every op.

Modules: ``arithmetic`` (+, -, *, /, **, @), ``pointwise`` (exp, log, tanh, where),
``reduction`` (sum, mean, sum_to_size), ``shape`` (reshape, view, permute, expand),
``indexing`` (``x[index]``), ``comparison`` (==, <, ...), ``copy`` (clone, dtype
conversion).
"""

"""The built-in ops: each one an ordinary :class:`~ctxgrad.autograd.Function`.

They are written the way a user writes a custom op, with the public API only, so they
double as its best examples: ``forward`` computes with NumPy on ``x.array`` and makes the
result a tensor with ``as_tensor``, saves what ``backward`` needs with
``ctx.save_for_backward``, and ``backward`` is written in ctxgrad ops, so that a backward
can itself be differentiated (double backward).  (``tests/test_ops_public_api.py`` fails on
any private attribute used here.)  Broadcasting is never undone here: a
backward returns the gradient in the broadcast shape and the engine sums it down to the
input's shape, in one place for every op.

Modules: ``arithmetic`` (+, -, *, /, //, **), ``pointwise`` (exp, log, the trigonometric
functions, rounding, where, ...), ``binary`` (atan2, maximum, clamp, lerp, hypot, addcmul, ...),
``special_functions`` (lgamma, digamma, polygamma, erfinv, igamma, the Bessel functions, ...),
``activations`` (relu, gelu, elu and the other activations of ``nn.functional``),
``comparison`` (==, <, isnan, logical and bitwise ops), ``reduction`` (sum, mean, prod, var,
max, norm, ...), ``cumulative`` (cumsum, cumprod, cummax, ...), ``softmax``, ``statistics``
(nansum, quantile, unique, histc, ...), ``linalg`` (``@``, mm, bmm, mv, dot, inv, det, ...),
``einsum``, ``decompositions`` and ``householder``, ``complex_numbers``, ``shape`` (views and
reshapes), ``joining`` (cat, stack, split, chunk, ...), ``reordering`` (flip, roll, repeat,
tril, diagonal, ...), ``indexing`` (``x[index]``, take, index_put, nonzero), ``gather_scatter``
(gather, scatter, scatter_reduce), ``index_ops`` (index_add, index_select, masked_fill, put, the
``*_scatter`` ops), ``sorting`` (sort, topk, median), ``convolution`` (conv2d, unfold, fold,
pad), ``losses`` (nll_loss, cross_entropy), ``copy`` (clone, dtype conversion) and ``inplace``
(the ops that exist only in place: ``zero_``, ``fill_``, ``copy_``, ``x[i] = v``).
"""

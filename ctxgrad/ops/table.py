"""The op table: each built-in op declared once, as one row (:class:`~ctxgrad.ops._row.Op`).

A row names an op (torch's name), its *frontend* (the function in its family's module that
takes torch's arguments, normalises them and calls ``SomeFunction.apply``, or the Function
itself, from which the frontend is made) and where it appears: a Tensor method of the same
name, its in-place variant (``exp_``), a ``ctxgrad.<name>`` function with or without
``out=``, an alias in ``ctxgrad.nn.functional``, dunders (``__add__``), NumPy ufuncs and
other names (``aliases``).  Rows moved beside their Functions live in their family's
``ROWS`` (``ops.pointwise.ROWS``, ``ops.binary.ROWS``, ...); :data:`OPS` gathers them with the rest.
``ctxgrad._surface`` (L4) walks :data:`OPS` once, when ``ctxgrad`` is imported, and attaches
the methods; ``python -m ctxgrad._gen_methods`` writes their typed declarations into
``class Tensor``, the made functions' stubs into ``ctxgrad/_made_functions.py`` and the
function imports into ``ctxgrad/__init__.py``, and a test fails when those are stale.

>>> from ctxgrad.ops.table import OPS
>>> [op for op in OPS if op.name == "exp"][0].inplace.__name__
'exp_'

Two rules are declared on the Function itself rather than on its row, because ``apply`` and
the engine run Functions, not rows, and a user's Function declares them the same way: the
complex-gradient rule (``holomorphic = True``) and the batching rule of ``vmap`` (its
``vmap`` staticmethod, torch's API for custom Functions: a built-in op either uses one of the
generic rules of ``ctxgrad.autograd.batching`` (``vmap = elementwise_rule``, ``dims_rule(1)``,
...) or declares its own beside it, as ``Roll.vmap`` and ``Convolution.vmap`` do; autograd/
holds no op's rule, tests/test_autograd_mechanism_only.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ctxgrad.ops import (
    activations,
    arithmetic,
    binary,
    comparison,
    complex_numbers,
    convolution,
    copy,
    cumulative,
    decompositions,
    einsum,
    gather_scatter,
    householder,
    index_ops,
    indexing,
    inplace,
    joining,
    linalg,
    losses,
    pointwise,
    reduction,
    reordering,
    shape,
    softmax,
    sorting,
    special_functions,
    statistics,
)
from ctxgrad.ops._row import Op

__all__ = ["OPS", "OUT_VARIANTS", "Op", "frontend"]


OPS: list[Op] = [
    # ----------------------------------------------------------------------- pointwise
    *pointwise.ROWS,
    *binary.ROWS,
    *special_functions.ROWS,
    *activations.ROWS,
    # ----------------------------------------------------------------------- arithmetic
    *arithmetic.ROWS,
    # ----------------------------------------------------------------------- comparison
    *comparison.ROWS,
    # ----------------------------------------------------------------------- reduction
    *reduction.ROWS,
    *cumulative.ROWS,
    *softmax.ROWS,
    # ----------------------------------------------------------------------- statistics
    *statistics.ROWS,
    # ----------------------------------------------------------------------- shape
    *shape.ROWS,
    *joining.ROWS,
    *reordering.ROWS,
    # ----------------------------------------------------------------------- linear algebra
    *linalg.ROWS,
    *einsum.ROWS,
    *decompositions.ROWS,
    *householder.ROWS,
    # ----------------------------------------------------------------------- indexing
    *indexing.ROWS,
    *gather_scatter.ROWS,
    *index_ops.ROWS,
    # ----------------------------------------------------------------------- in place only
    *inplace.ROWS,
    # ----------------------------------------------------------------------- complex numbers
    *complex_numbers.ROWS,
    # ----------------------------------------------------------------------- sorting
    *sorting.ROWS,
    # ----------------------------------------------------------------------- more of torch's functions
    # torch-surface names (issue 17): tests in tests/test_surface_more.py
    # ----------------------------------------------------------------------- nn.functional's ops
    *convolution.ROWS,
    *losses.ROWS,
    # ----------------------------------------------------------------------- copies and dtypes
    # last: the declarations of float, int, bool and type hide the builtins in class Tensor after them
    *copy.ROWS,
]

# ----------------------------------------------------------------------- out= (torch's out variants)
#: The ops whose ``ctxgrad.<name>`` function takes ``out=`` as torch's does (a tensor, or a tuple
#: of them for an op with several results; the methods take none, as in torch).  The surface
#: adds it (``_surface.with_out``) to those whose frontend has no ``out`` parameter of its own;
#: the rows stay as they are.
OUT_VARIANTS = frozenset(op.name for op in OPS if op.out) | frozenset(
    """
    abs sign sqrt rsqrt square reciprocal exp2 expm1 log log2 log10 log1p sin cos tan asin arcsin acos
    arccos atan arctan sinh cosh tanh asinh arcsinh acosh arccosh atanh arctanh sigmoid logit floor ceil
    round trunc frac erf erfc erfinv lgamma digamma polygamma i0 sinc deg2rad rad2deg sgn signbit
    isposinf isneginf nan_to_num neg angle conj_physical
    atan2 arctan2 maximum minimum fmax fmin clamp clip clamp_min clamp_max lerp where pow float_power
    floor_divide remainder fmod hypot logaddexp logaddexp2 xlogy copysign heaviside nextafter ldexp gcd
    lcm addcmul addcdiv complex polar
    eq ne not_equal lt less le less_equal gt greater ge greater_equal logical_and logical_or
    logical_xor logical_not bitwise_and bitwise_or bitwise_xor bitwise_not bitwise_left_shift
    bitwise_right_shift
    prod var std max min amax amin argmax argmin logsumexp norm cumsum cumprod logcumsumexp softmax
    log_softmax nansum nanmean all any quantile nanquantile diff histc
    tril triu diag cat concat concatenate stack hstack vstack column_stack row_stack dstack msort
    gather index_select masked_select take_along_dim nonzero slice_scatter
    mm bmm mv dot vdot outer ger inner kron cross tensordot addmm addmv addr baddbmm addbmm inverse
    matrix_power chain_matmul searchsorted bucketize igamma igammac
    aminmax cummax cummin mode median nanmedian kthvalue sort argsort topk frexp histogram renorm narrow_copy
    scatter scatter_add scatter_reduce index_add index_copy index_reduce take isin nonzero_static hash_tensor
    svd qr cholesky cholesky_inverse cholesky_solve lu_unpack lu_solve geqrf slogdet triangular_solve orgqr ormqr
    """.split()
)


def frontend(name: str) -> Callable[..., Any]:
    """The frontend of the row named ``name`` (``ctxgrad.nn.functional.sigmoid`` is ``sigmoid``'s)."""
    return next(op.frontend for op in OPS if op.name == name)

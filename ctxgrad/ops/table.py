"""The op table: each built-in op declared once, as one row (:class:`~ctxgrad.ops._row.Op`).

A row names an op (torch's name), its *frontend* (the function in its family's module that
takes torch's arguments, normalises them and calls ``SomeFunction.apply``, or the Function
itself, from which the frontend is made) and where it appears: a Tensor method of the same
name, its in-place variant (``exp_``), a ``ctxgrad.<name>`` function with or without
``out=``, an alias in ``ctxgrad.nn.functional``, dunders (``__add__``), NumPy ufuncs and
other names (``aliases``).  Rows moved beside their Functions live in their family's
``ROWS`` (``ops.pointwise.ROWS``); :data:`OPS` gathers them with the rest.
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
    arithmetic,
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
    linalg,
    losses,
    pointwise,
    reduction,
    shape,
    softmax,
    sorting,
    statistics,
)
from ctxgrad.ops._row import Op

__all__ = ["OPS", "OUT_VARIANTS", "Op", "frontend"]


def _unary(name: str, **fields: Any) -> Op:
    """A row for a one-tensor op of ``pointwise`` (its frontend has the op's name)."""
    return Op(name, getattr(pointwise, name), **fields)


OPS: list[Op] = [
    # ----------------------------------------------------------------------- pointwise
    *pointwise.ROWS,
    *convolution.ROWS,
    *losses.ROWS,
    _unary("exp", inplace=pointwise.exp_),
    _unary("round", inplace=inplace.round_),
    Op("atan2", pointwise.atan2, method_frontend=pointwise.atan2_method, inplace=inplace.atan2_),
    Op("arctan2", pointwise.arctan2, method_frontend=pointwise.arctan2_method, inplace=inplace.arctan2_),
    Op("maximum", pointwise.maximum, method_frontend=pointwise.maximum_method),
    Op("minimum", pointwise.minimum, method_frontend=pointwise.minimum_method),
    _unary("clamp", inplace=pointwise.clamp_),
    _unary("clip", inplace=pointwise.clip_),
    _unary("clamp_min", inplace=inplace.clamp_min_),
    _unary("clamp_max", inplace=inplace.clamp_max_),
    Op("lerp", pointwise.lerp, method_frontend=pointwise.lerp_method, inplace=inplace.lerp_),
    Op("where", pointwise.where, method=False),
    # ----------------------------------------------------------------------- arithmetic
    Op("add", arithmetic.add, inplace=arithmetic.add_, inplace_dunders=("__iadd__",)),
    Op("sub", arithmetic.sub, inplace=arithmetic.sub_, inplace_dunders=("__isub__",)),
    Op("mul", arithmetic.mul, inplace=arithmetic.mul_, inplace_dunders=("__imul__",)),
    Op(
        "div",
        arithmetic.div,
        inplace=arithmetic.div_,
        inplace_dunders=("__itruediv__",),
        aliases=("true_divide", "divide"),
    ),
    Op("pow", arithmetic.pow, inplace=arithmetic.pow_, inplace_dunders=("__ipow__",)),
    Op("neg", arithmetic.neg, inplace=arithmetic.neg_, dunders=("__neg__",)),
    Op("floor_divide", arithmetic.floor_divide, dunders=("__floordiv__",), inplace=inplace.floor_divide_),
    Op("remainder", arithmetic.remainder, dunders=("__mod__",), inplace=inplace.remainder_),
    Op("fmod", arithmetic.fmod, inplace=inplace.fmod_),
    # the operators that are not a named op's method (a reflected operand, a fast path)
    Op("__add__", arithmetic.add_operator, function=False, dunders=("__radd__",)),
    Op("__sub__", arithmetic.sub_operator, function=False),
    Op("__rsub__", arithmetic.rsub_operator, function=False),
    Op("__mul__", arithmetic.mul_operator, function=False, dunders=("__rmul__",)),
    Op("__truediv__", arithmetic.truediv_operator, function=False),
    Op("__rtruediv__", arithmetic.rtruediv_operator, function=False),
    Op("__pow__", arithmetic.pow_operator, function=False),
    Op("__rpow__", arithmetic.rpow_operator, function=False),
    Op("__rfloordiv__", arithmetic.rfloordiv_operator, function=False),
    Op("__rmod__", arithmetic.rmod_operator, function=False),
    # ----------------------------------------------------------------------- comparison
    Op("eq", comparison.eq, inplace=inplace.eq_),
    Op("ne", comparison.ne, aliases=("not_equal",), inplace=inplace.ne_),
    Op("lt", comparison.lt, aliases=("less",), dunders=("__lt__",), inplace=inplace.lt_),
    Op("le", comparison.le, aliases=("less_equal",), dunders=("__le__",), inplace=inplace.le_),
    Op("gt", comparison.gt, aliases=("greater",), dunders=("__gt__",), inplace=inplace.gt_),
    Op("ge", comparison.ge, aliases=("greater_equal",), dunders=("__ge__",), inplace=inplace.ge_),
    Op("__eq__", comparison.eq_operator, function=False),
    Op("__ne__", comparison.ne_operator, function=False),
    Op("isnan", comparison.isnan),
    Op("isinf", comparison.isinf),
    Op("isfinite", comparison.isfinite),
    Op(
        "logical_and",
        comparison.logical_and,
        method_frontend=comparison.logical_and_method,
        inplace=inplace.logical_and_,
    ),
    Op(
        "logical_or",
        comparison.logical_or,
        method_frontend=comparison.logical_or_method,
        inplace=inplace.logical_or_,
    ),
    Op(
        "logical_xor",
        comparison.logical_xor,
        method_frontend=comparison.logical_xor_method,
        inplace=inplace.logical_xor_,
    ),
    Op("logical_not", comparison.logical_not, inplace=inplace.logical_not_),
    Op("bitwise_and", comparison.bitwise_and, dunders=("__and__",), inplace=inplace.bitwise_and_),
    Op("bitwise_or", comparison.bitwise_or, dunders=("__or__",), inplace=inplace.bitwise_or_),
    Op("bitwise_xor", comparison.bitwise_xor, dunders=("__xor__",), inplace=inplace.bitwise_xor_),
    Op("bitwise_not", comparison.bitwise_not, inplace=inplace.bitwise_not_),
    Op("__rand__", comparison.rand_operator, function=False),
    Op("__ror__", comparison.ror_operator, function=False),
    Op("__rxor__", comparison.rxor_operator, function=False),
    Op("__invert__", comparison.invert_operator, function=False),
    # ----------------------------------------------------------------------- reduction
    *reduction.ROWS,
    *cumulative.ROWS,
    *softmax.ROWS,
    # ----------------------------------------------------------------------- statistics
    *statistics.ROWS,
    # ----------------------------------------------------------------------- shape
    Op("reshape", shape.reshape, method_frontend=shape.reshape_method),
    Op("view", shape.view, function=False),
    Op("view_as", shape.view_as, function=False),
    Op("reshape_as", shape.reshape_as, function=False),
    Op("expand", shape.expand, function=False),
    Op("expand_as", shape.expand_as, function=False),
    Op("t", shape.t, inplace=inplace.t_),
    Op("transpose", shape.transpose, inplace=inplace.transpose_),
    Op("permute", shape.permute, method_frontend=shape.permute_method),
    Op("flatten", shape.flatten),
    Op("unflatten", shape.unflatten, method_frontend=shape.unflatten_method),
    Op("squeeze", shape.squeeze, inplace=inplace.squeeze_),
    Op("unsqueeze", shape.unsqueeze, inplace=inplace.unsqueeze_),
    Op("swapaxes", shape.swapaxes, inplace=inplace.swapaxes_),
    Op("swapdims", shape.swapdims, inplace=inplace.swapdims_),
    Op("movedim", shape.movedim),
    Op("moveaxis", shape.moveaxis),
    Op("broadcast_to", shape.broadcast_to, method_frontend=shape.broadcast_to_method),
    Op("narrow", shape.narrow),
    Op("unbind", shape.unbind),
    # torch's function is split(tensor, split_size_or_sections, dim), its method split(split_size, dim)
    Op("split", shape.split, method_frontend=shape.split_method),
    Op("chunk", shape.chunk),
    Op("flip", shape.flip, method_frontend=shape.flip_method),
    Op("fliplr", shape.fliplr),
    Op("flipud", shape.flipud),
    Op("roll", shape.roll),
    Op("repeat", shape.repeat, function=False),
    Op("tile", shape.tile, method_frontend=shape.tile_method),
    Op("tril", shape.tril, inplace=inplace.tril_),
    Op("triu", shape.triu, inplace=inplace.triu_),
    Op("diagonal", shape.diagonal),
    Op("diag", shape.diag),
    Op("diag_embed", shape.diag_embed),
    # the functions of several tensors (torch has no such Tensor methods)
    Op("cat", shape.cat, method=False),
    Op("concat", shape.concat, method=False),
    Op("concatenate", shape.concatenate, method=False),
    Op("stack", shape.stack, method=False),
    Op("hstack", shape.hstack, method=False),
    Op("vstack", shape.vstack, method=False),
    Op("broadcast_tensors", shape.broadcast_tensors, method=False),
    Op("broadcast_shapes", shape.broadcast_shapes, method=False),
    Op("tensor_split", shape.tensor_split),
    Op("hsplit", shape.hsplit),
    Op("vsplit", shape.vsplit),
    Op("dsplit", shape.dsplit),
    Op("split_with_sizes", shape.split_with_sizes),
    Op("atleast_1d", shape.atleast_1d, method=False),
    Op("atleast_2d", shape.atleast_2d, method=False),
    Op("atleast_3d", shape.atleast_3d, method=False),
    Op("column_stack", shape.column_stack, method=False),
    Op("row_stack", shape.row_stack, method=False),
    Op("dstack", shape.dstack, method=False),
    Op("ravel", shape.ravel),
    Op("rot90", shape.rot90),
    Op("repeat_interleave", shape.repeat_interleave),
    Op("meshgrid", shape.meshgrid, method=False),
    Op("cartesian_prod", shape.cartesian_prod, method=False),
    Op("combinations", shape.combinations, method=False),
    Op("block_diag", shape.block_diag, method=False),
    Op("diagflat", shape.diagflat),
    Op("tril_indices", shape.tril_indices, method=False),
    Op("triu_indices", shape.triu_indices, method=False),
    Op("narrow_copy", shape.narrow_copy),
    Op("unfold", shape.unfold, function=False),
    Op("as_strided", shape.as_strided),
    Op("T", shape.reversed_dims, function=False, property=True),
    Op("mT", shape.matrix_transpose, function=False, property=True),
    Op("mH", shape.matrix_adjoint, function=False, property=True),
    Op("adjoint", shape.adjoint),
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
    Op("polygamma", pointwise.polygamma, method_frontend=pointwise.polygamma_method, inplace=pointwise.polygamma_),
    _unary("nan_to_num", inplace=pointwise.nan_to_num_),
    _unary("positive", dunders=("__pos__",)),
    _unary("sgn", inplace=pointwise.sgn_),
    Op("hypot", pointwise.hypot, method_frontend=pointwise.hypot_method, inplace=pointwise.hypot_),
    Op("logaddexp", pointwise.logaddexp, method_frontend=pointwise.logaddexp_method),
    Op("logaddexp2", pointwise.logaddexp2, method_frontend=pointwise.logaddexp2_method),
    _unary("xlogy", inplace=pointwise.xlogy_),
    _unary("copysign", inplace=pointwise.copysign_),
    _unary("heaviside", inplace=pointwise.heaviside_),
    _unary("nextafter", inplace=pointwise.nextafter_),
    _unary("frexp"),
    _unary("fmax"),
    _unary("fmin"),
    _unary("addcmul", inplace=pointwise.addcmul_),
    _unary("addcdiv", inplace=pointwise.addcdiv_),
    Op("float_power", arithmetic.float_power, inplace=arithmetic.float_power_),
    Op("ldexp", arithmetic.ldexp, inplace=arithmetic.ldexp_),
    Op("gcd", comparison.gcd, inplace=comparison.gcd_),
    Op("lcm", comparison.lcm, inplace=comparison.lcm_),
    Op(
        "bitwise_left_shift",
        comparison.bitwise_left_shift,
        dunders=("__lshift__",),
        inplace=comparison.bitwise_left_shift_,
        inplace_dunders=("__ilshift__",),
    ),
    Op(
        "bitwise_right_shift",
        comparison.bitwise_right_shift,
        dunders=("__rshift__",),
        inplace=comparison.bitwise_right_shift_,
        inplace_dunders=("__irshift__",),
    ),
    Op("__rlshift__", comparison.rlshift_operator, function=False),
    Op("__rrshift__", comparison.rrshift_operator, function=False),
    Op("signbit", comparison.signbit),
    Op("isposinf", comparison.isposinf),
    Op("isneginf", comparison.isneginf),
    Op("isreal", comparison.isreal),
    # torch-surface names (issue 17): tests in tests/test_surface_more.py
    Op("isin", comparison.isin, method=False),
    Op("as_strided_scatter", shape.as_strided_scatter),
    # ----------------------------------------------------------------------- incomplete gamma (issue 18)
    Op("igamma", pointwise.igamma, inplace=inplace.igamma_),
    Op("igammac", pointwise.igammac, inplace=inplace.igammac_),
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

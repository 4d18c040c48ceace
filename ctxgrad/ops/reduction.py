"""Reductions: ``sum``, ``mean``, ``prod``, ``var``/``std``, ``max``/``min``,
``amax``/``amin``, ``argmax``/``argmin``, ``logsumexp``, ``norm``, ``all``/``any``, and
``sum_to_size`` (the engine's broadcast reduction); their rows are :data:`ROWS` (the scans
are in ``ops/cumulative.py``, ``softmax`` in ``ops/softmax.py``).

Every backward is written in ctxgrad ops, so that it can itself be differentiated; masks
(where a maximum is attained, where an input is zero) are constants computed from the
input's values, as torch computes them."""

from __future__ import annotations

import builtins
import warnings
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

import numpy as np
from typing_extensions import overload

from ctxgrad._dtypes import short_name, to_dtype
from ctxgrad._state import _state
from ctxgrad._tensor import Tensor, _wrap_dim, as_tensor, summed_to_shape
from ctxgrad.autograd.batching import VmapInfo, dims_rule, flat_rule, loop_over_samples, only_first_batched, shift_dim
from ctxgrad.autograd.function import Function
from ctxgrad.ops import _return_types
from ctxgrad.ops._row import Op
from ctxgrad.ops._util import (
    UNSET,
    _as_int64,
    _const,
    _one_dim,
    missing,
    refuse_complex,
    shape_arg,
    sizes_arg,
)
from ctxgrad.ops.cumulative import Cumprod
from ctxgrad.ops.pointwise import Where, _floating, tensor_arg


def _axes(dims: tuple[int, ...] | None, ndim: int) -> tuple[int, ...]:
    if dims is None or len(dims) == 0:
        return tuple(range(ndim))
    axes = tuple(_wrap_dim(d, ndim) for d in dims)
    for i, a in enumerate(axes):
        if a in axes[:i]:
            raise RuntimeError(f"dim {a} appears multiple times in the list of dims")
    if ndim == 0:
        return ()  # a 0-d tensor accepts dim 0 and -1, as in torch
    return axes


def _kept_shape(shape: tuple[int, ...], axes: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(1 if i in axes else s for i, s in enumerate(shape))


class Sum(Function[Tensor]):
    """Sum over ``dims`` (all when None); the gradient is broadcast back over them."""

    vmap = dims_rule(1, none_is_all=True)

    node_name = "SumBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"self_sym_sizes": ("sizes", 0)}
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, dims: tuple[int, ...] | None, keepdim: bool) -> Tensor:
        data = x.array
        axes = _axes(dims, data.ndim)
        ctx.shape = data.shape
        ctx.axes = axes
        ctx.keepdim = keepdim
        # (np.add.reduce: np.sum is this call behind a Python wrapper that costs as much as the
        # reduction of a small array)
        return as_tensor(np.add.reduce(data, axis=axes, keepdims=True) if keepdim else np.add.reduce(data, axis=axes))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        return grad.reshape(_kept_shape(ctx.shape, ctx.axes)).expand(ctx.shape), None, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, *_: None) -> Tensor:
        return Sum.apply(tx, ctx.axes or None, ctx.keepdim)


class Mean(Function[Tensor]):
    """Mean over ``dims``; the gradient is spread evenly over the averaged elements."""

    vmap = dims_rule(1, none_is_all=True)

    node_name = "MeanBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"self_sym_sizes": ("sizes", 0), "self_sym_numel": ("numel", 0)}
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, dims: tuple[int, ...] | None, keepdim: bool) -> Tensor:
        data = x.array
        axes = _axes(dims, data.ndim)
        ctx.shape = data.shape
        ctx.axes = axes
        ctx.count = int(np.prod([data.shape[a] for a in axes]))
        ctx.keepdim = keepdim
        return as_tensor(np.mean(data, axis=axes, keepdims=keepdim))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        return (grad / ctx.count).reshape(_kept_shape(ctx.shape, ctx.axes)).expand(ctx.shape), None, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, *_: None) -> Tensor:
        return Mean.apply(tx, ctx.axes or None, ctx.keepdim)


class SumToSize(Function[Tensor]):
    """Sum broadcast dimensions away so the result has ``shape``.

    Leading dimensions go, and dimensions that are 1 in ``shape``.  The engine uses it to fit
    every gradient to its input."""

    @classmethod
    def vmap(cls, info: VmapInfo, in_dims: tuple[Any, ...], x: Tensor, shape: tuple[int, ...]) -> tuple[Any, Any]:
        """The leading sample dimensions ``shape`` lacks summed first, so that the batch
        dimension stays in front."""
        if not only_first_batched(in_dims):
            return loop_over_samples(cls, info, in_dims, x, shape)
        extra = x.ndim - 1 - len(shape)
        if extra > 0:
            x = x.sum(tuple(range(1, extra + 1)))
        return cls.apply(x, (x.shape[0], *shape)), 0

    skips_without_gradient = True

    holomorphic = True  # linear, real coefficients

    @staticmethod
    def forward(ctx: Any, x: Tensor, shape: tuple[int, ...]) -> Tensor:
        data = x.array
        ctx.shape = data.shape
        ctx.out_shape = shape
        return as_tensor(summed_to_shape(data, shape))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return grad.expand(ctx.shape), None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: None) -> Tensor:
        return SumToSize.apply(tx, ctx.out_shape)


# --------------------------------------------------------------------------- helpers of the ops below


def _restore(t: Tensor, shape: tuple[int, ...], axes: tuple[int, ...], keepdim: bool) -> Tensor:
    """A reduced tensor with its reduced dimensions back as size 1 (``unsqueeze_multiple``)."""
    if keepdim or len(shape) == 0:
        return t
    return t.reshape(_kept_shape(shape, axes))


def _dof_warning(name: str) -> None:
    # The frames above: Var.forward (Std.forward), _run, apply, the made frontend, its NumPy wrapper
    # (numpy_dims), the caller.
    warnings.warn(
        f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the reduction factor "
        "(input numel divided by output numel).",
        UserWarning,
        stacklevel=7 if name == "var" else 8,
    )


# --------------------------------------------------------------------------- structural helpers (linear)


class _Flip(Function[Tensor]):
    """Reverse the order along ``axis`` (a copy); its own adjoint."""

    vmap = dims_rule(1)

    node_name = "FlipBackward0"
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, axis: int) -> Tensor:
        ctx.axis = axis
        return as_tensor(np.ascontiguousarray(np.flip(x.array, axis)))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return _Flip.apply(grad, ctx.axis), None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: None) -> Tensor:
        return _Flip.apply(tx, ctx.axis)


class _Shift(Function[Tensor]):
    """Shift by one place along ``axis`` (toward the end when ``forward``), filling the freed
    place with ``fill``: ``[a, b, c] -> [fill, a, b]``.  Affine; the adjoint shifts back."""

    vmap = dims_rule(1)

    node_name = "CatBackward0"
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, axis: int, forward: bool, fill: float) -> Tensor:
        data = x.array
        ctx.axis = axis
        ctx.forward = forward
        out = np.full_like(data, fill)
        src = [slice(None)] * data.ndim
        dst = [slice(None)] * data.ndim
        if forward:
            src[axis], dst[axis] = slice(None, -1), slice(1, None)
        else:
            src[axis], dst[axis] = slice(1, None), slice(None, -1)
        out[tuple(dst)] = data[tuple(src)]
        return as_tensor(out)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None]:
        return _Shift.apply(grad, ctx.axis, not ctx.forward, 0.0), None, None, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, *_: None) -> Tensor:
        return _Shift.apply(tx, ctx.axis, ctx.forward, 0.0)


def _others_product(x: Tensor, axis: int) -> Tensor:
    """For each element, the product of the other elements of its slice along ``axis``,
    without division (exact with zeros): ``[a, b, c] -> [b*c, a*c, a*b]``, as the product
    of an exclusive cumulative product from each end."""
    before = Cumprod.apply(_Shift.apply(x, axis, True, 1.0), axis)
    after = _Flip.apply(Cumprod.apply(_Flip.apply(_Shift.apply(x, axis, False, 1.0), axis), axis), axis)
    return before * after


# --------------------------------------------------------------------------- prod


def _prod_grad(ctx: Any, grad: Tensor) -> Tensor:
    """The gradient of ``prod`` for the output gradient ``grad`` (torch's ``prod_backward``):
    ``grad * result / x`` without zeros, the product of the others (exact) with them.

    As torch's, with a zero in the input a product of one element passes ``grad`` through
    (a constant when ``grad`` is one: the derivative of ``x`` is 1, whatever ``x``), and
    ``prod()`` of an input with two zeros or more has the gradient zero when the backward
    builds no graph (whatever else the input holds: inf and NaN too)."""
    x, result = ctx.saved_tensors
    data = x.array
    if data.ndim == 0:
        return grad
    axis = ctx.axis
    if axis is None:
        g = grad
    else:
        g = _restore(grad, data.shape, (axis,), ctx.keepdim)
        result = _restore(result, data.shape, (axis,), ctx.keepdim)
    zeros = data == 0
    if not zeros.any():
        out: Tensor = g * (result / x)
        return out
    if axis is None:
        if data.size == 1:
            return grad.reshape(data.shape)
        if not _state.modes.grad_enabled and np.count_nonzero(zeros) > 1:
            return as_tensor(np.zeros_like(data))
        others = _others_product(x.reshape(-1), 0).reshape(data.shape)
    elif data.shape[axis] == 1:
        return g
    else:
        others = _others_product(x, axis)
    return g * others


class Prod(Function[Tensor]):
    """Product over one dimension (``prod(dim)``); the gradient is the product of the other
    elements of each slice, exact when the slice holds zeros."""

    vmap = dims_rule(1)

    node_name = "ProdBackward1"
    saved_fields: ClassVar[dict[str, Any]] = {"dim": "axis", "keepdim": "keepdim", "self": 0, "result": 1}
    holomorphic = True
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, dim: int, keepdim: bool) -> Tensor:
        data = x.array
        axis = _one_dim(dim, data.ndim)
        ctx.axis = axis
        ctx.keepdim = keepdim
        out = as_tensor(data.copy() if data.ndim == 0 else np.prod(data, axis=axis, keepdims=keepdim))
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        return _prod_grad(ctx, grad), None, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, *_: None) -> Tensor:
        x = ctx.saved_tensors[0]
        ones = as_tensor(np.ones(_reduced_shape(x.array.shape, ctx.axis, ctx.keepdim), dtype=tx.array.dtype))
        terms = _prod_grad(ctx, ones) * tx
        if x.array.ndim == 0:
            return terms
        return terms.sum(ctx.axis, keepdim=ctx.keepdim)


class ProdAll(Function[Tensor]):
    """Product of all elements (``prod()``)."""

    vmap = flat_rule("prod")

    node_name = "ProdBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"self": 0, "result": 1}
    holomorphic = True
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        ctx.axis = None
        ctx.keepdim = False
        out = as_tensor(np.prod(x.array))
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        return _prod_grad(ctx, grad)

    @staticmethod
    def jvp(ctx: Any, tx: Tensor) -> Tensor:
        ones = as_tensor(np.ones((), dtype=tx.array.dtype))
        return (_prod_grad(ctx, ones) * tx).sum()


def _reduced_shape(shape: tuple[int, ...], axis: int | None, keepdim: bool) -> tuple[int, ...]:
    if axis is None or len(shape) == 0:
        return () if axis is None else shape
    if keepdim:
        return shape[:axis] + (1,) + shape[axis + 1 :]
    return shape[:axis] + shape[axis + 1 :]


# --------------------------------------------------------------------------- var, std


class Var(Function[Tensor]):
    """Variance over ``dims`` with ``correction`` (Bessel's by default)."""

    vmap = dims_rule(1, none_is_all=True)

    node_name = "VarBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, dims: tuple[int, ...] | None, correction: float, keepdim: bool) -> Tensor:
        data = x.array
        axes = _axes(dims, data.ndim)
        n = int(np.prod([data.shape[a] for a in axes])) if axes else data.size
        dof = n - correction
        if dof <= 0:
            _dof_warning("std" if ctx.forward_cls is Std else "var")
        ctx.axes = axes
        ctx.keepdim = keepdim
        ctx.correction = correction
        ctx.n = n
        ctx.full = dims is None or data.ndim == 0
        with np.errstate(divide="ignore", invalid="ignore"):
            mean = np.mean(data, axis=axes, keepdims=True) if data.size else np.zeros_like(data, shape=())
            d = data - mean
            sq = np.sum(np.square(d) if d.dtype.kind != "c" else d.real**2 + d.imag**2, axis=axes, keepdims=keepdim)
            out = sq / sq.dtype.type(builtins.max(0, dof))
        ctx.save_for_backward(x)
        return as_tensor(np.asarray(out, dtype=data.real.dtype))  # complex: |x - mean|^2, real

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None]:
        (x,) = ctx.saved_tensors
        return _var_grad(ctx, x, grad), None, None, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, *_: None) -> Tensor:
        (x,) = ctx.saved_tensors
        return _var_jvp(ctx, x, tx)


def _var_grad(ctx: Any, x: Tensor, grad: Tensor) -> Tensor:
    """torch's ``var_backward``: ``2 / (n - correction) * grad * (x - mean)``."""
    data = x.array
    centred = x - x.mean(ctx.axes or None, keepdim=True) if data.size else x
    dof = ctx.n - ctx.correction
    if ctx.full:
        if dof <= 0:
            # 2 / 0 is infinite: nan where x equals the mean (inf * 0), inf elsewhere.
            with np.errstate(invalid="ignore"):
                mean = np.mean(data) if data.size else 0.0
            return grad * _const(np.where(data == mean, np.nan, np.inf).astype(data.dtype))
        out: Tensor = grad * centred * (2.0 / dof)
        return out
    g = _restore(grad, data.shape, ctx.axes, ctx.keepdim)
    scale = 2.0 / dof if dof != 0 else float("inf")
    return g * centred * scale


def _var_jvp(ctx: Any, x: Tensor, tx: Tensor) -> Tensor:
    data = x.array
    dof = ctx.n - ctx.correction
    if ctx.full and dof <= 0:
        return as_tensor(np.full((), np.nan, dtype=data.dtype))
    centred = x - x.mean(ctx.axes or None, keepdim=True) if data.size else x
    scale = 2.0 / dof if dof != 0 else float("inf")
    out: Tensor = _real_dot(centred, tx).sum(ctx.axes or None, keepdim=ctx.keepdim) * scale
    return out


def _real_dot(grad: Tensor, tx: Tensor) -> Tensor:
    """``grad * tx``; for complex values ``Re(conj(grad) * tx)``: the tangent of a real function
    whose gradient (``df/dx + i df/dy``) is ``grad``."""
    if grad.is_complex() or tx.is_complex():
        out: Tensor = (grad.conj() * tx).real
        return out
    return grad * tx


class Std(Function[Tensor]):
    """Standard deviation: ``sqrt(var)``; the gradient is 0 where it is 0, as torch's."""

    vmap = dims_rule(1, none_is_all=True)

    node_name = "StdBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, dims: tuple[int, ...] | None, correction: float, keepdim: bool) -> Tensor:
        var = Var.forward(ctx, x, dims, correction, keepdim)
        out = as_tensor(np.sqrt(var.array))
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None, None]:
        x, out = ctx.saved_tensors
        zero = _const(out.array == 0)
        grad_var = Where.apply(zero, 0.0, grad / (out * 2))
        return _var_grad(ctx, x, grad_var), None, None, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, *_: None) -> Tensor:
        x, out = ctx.saved_tensors
        zero = _const(out.array == 0)
        return Where.apply(zero, 0.0, _var_jvp(ctx, x, tx) / (out * 2))


# --------------------------------------------------------------------------- max, min, amax, amin


def _empty_check(name: str, data: Any, axes: tuple[int, ...] | None, exc: type[Exception] = RuntimeError) -> None:
    """torch's errors for reducing an empty tensor or an empty dimension without an identity."""
    if data.size:
        return
    if axes is None:
        if exc is IndexError:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
        raise RuntimeError(
            f"{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the reduction "
            "dim with the 'dim' argument."
        )
    for a in axes:
        if data.ndim and data.shape[a] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {a} to have non-zero size.")


class _MaxDim(Function[tuple[Tensor, Tensor]]):
    """``(values, indices)`` along one dimension; the gradient goes to the index picked
    (the first of ties, as torch on the CPU)."""

    vmap = dims_rule(1)

    node_name = "MaxBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {
        "dim": "axis",
        "keepdim": "keepdim",
        "self_sym_sizes": "shape",
        "indices": lambda ctx: _MaxDim.indices(ctx),
    }
    skips_without_gradient = True
    op_name: ClassVar[str] = "max"
    pick: ClassVar[Callable[..., Any]] = np.argmax

    @staticmethod
    def indices(ctx: Any) -> Tensor | None:
        """The indices picked, shaped as the op returned them (torch's ``_saved_indices``)."""
        saved = ctx.saved_tensors
        if not saved:  # (a 0-d input: nothing was saved)
            return None
        index: Tensor = saved[0]
        return index if ctx.keepdim else index.squeeze(ctx.axis)

    @staticmethod
    def forward(ctx: Any, x: Tensor, dim: int, keepdim: bool) -> tuple[Tensor, Tensor]:
        data = x.array
        cls = ctx.forward_cls
        axis = _one_dim(dim, data.ndim)
        ctx.shape = data.shape
        ctx.keepdim = keepdim
        if data.ndim == 0:
            ctx.axis = None
            values = as_tensor(data.copy())
            indices = as_tensor(np.zeros((), dtype=np.int64))
        else:
            _empty_check(cls.op_name, data, (axis,))
            ctx.axis = axis
            idx = np.expand_dims(cls.pick(data, axis=axis), axis)
            vals = np.take_along_axis(data, idx, axis)
            ctx.save_for_backward(as_tensor(idx))  # a saved tensor: freed by backward, unlike an attribute
            if not keepdim:
                vals = np.squeeze(vals, axis)
                idx = np.squeeze(idx, axis)
            values = as_tensor(vals)
            indices = as_tensor(idx.astype(np.int64, copy=False))
        ctx.mark_non_differentiable(indices)
        return values, indices

    @staticmethod
    def mask(ctx: Any) -> Tensor:
        axis = ctx.axis
        n = ctx.shape[axis]
        positions = np.arange(n).reshape([n if i == axis else 1 for i in range(len(ctx.shape))])
        (index,) = ctx.saved_tensors
        return _const(positions == index.array)

    @staticmethod
    def backward(ctx: Any, grad: Tensor, _: Tensor | None) -> tuple[Tensor, None, None]:
        if ctx.axis is None:
            return grad, None, None
        g = _restore(grad, ctx.shape, (ctx.axis,), ctx.keepdim)
        return Where.apply(_MaxDim.mask(ctx), g, 0.0), None, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, *_: None) -> tuple[Tensor, None]:
        if ctx.axis is None:
            return tx, None
        picked = Where.apply(_MaxDim.mask(ctx), tx, 0.0).sum(ctx.axis, keepdim=ctx.keepdim)
        return picked, None


class MaxDim(_MaxDim):
    """``max(dim)``."""

    node_name = "MaxBackward0"


class MinDim(_MaxDim):
    """``min(dim)``."""

    node_name = "MinBackward0"
    op_name = "min"
    pick = np.argmin


def _even_mask(x: Any, value: Any) -> Any:
    """Where ``x`` attains ``value`` (NaN where the value is NaN): the elements that share
    the gradient of a full ``max``/``min`` evenly."""
    if value.dtype.kind in "fc" and np.isnan(value).any():
        return np.isnan(x)
    return x == value


class MaxAll(Function[Tensor]):
    """Largest element (``max()``); the gradient is shared evenly by ties, as torch."""

    vmap = flat_rule("amax")

    node_name = "MaxBackward1"
    saved_fields: ClassVar[dict[str, Any]] = {"self": 0, "result": 1}
    skips_without_gradient = True
    op_name: ClassVar[str] = "max"
    reduce: ClassVar[Callable[..., Any]] = np.max

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        refuse_complex(ctx, x.array)
        data = x.array
        cls = ctx.forward_cls
        _empty_check(cls.op_name, data, None)
        out = as_tensor(cls.reduce(data))
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def mask(ctx: Any) -> tuple[Tensor, float]:
        x, out = ctx.saved_tensors
        mask = _even_mask(x.array, out.array)
        return _const(mask), float(mask.sum())

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        mask, count = MaxAll.mask(ctx)
        return mask * (grad / count)

    @staticmethod
    def jvp(ctx: Any, tx: Tensor) -> Tensor:
        mask, count = MaxAll.mask(ctx)
        return Where.apply(mask, tx, 0.0).sum() / count


class MinAll(MaxAll):
    """Smallest element (``min()``)."""

    vmap = flat_rule("amin")

    node_name = "MinBackward1"
    saved_fields: ClassVar[dict[str, Any]] = {"self": 0, "result": 1}
    op_name = "min"
    reduce = np.min


class Amax(Function[Tensor]):
    """Largest element over ``dims`` (all when empty); ties share the gradient evenly."""

    vmap = dims_rule(1, empty_is_all=True)

    node_name = "AmaxBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"dim": "dims", "keepdim": "keepdim", "result": 1, "self": 0}
    skips_without_gradient = True
    op_name: ClassVar[str] = "amax"
    reduce: ClassVar[Callable[..., Any]] = np.max

    @staticmethod
    def forward(ctx: Any, x: Tensor, dims: tuple[int, ...], keepdim: bool) -> Tensor:
        refuse_complex(ctx, x.array)
        data = x.array
        cls = ctx.forward_cls
        axes = _axes(dims, data.ndim)
        _empty_check(cls.op_name, data, axes if dims else None)
        ctx.axes = axes
        ctx.dims = tuple(dims)  # (as given: torch's saved ``dim``, () for all)
        ctx.shape = data.shape
        ctx.keepdim = keepdim
        out = as_tensor(cls.reduce(data, axis=axes, keepdims=keepdim))
        ctx.save_for_backward(x, out)
        return out

    @staticmethod
    def mask(ctx: Any) -> tuple[Tensor, Tensor]:
        """Where each slice attains its extreme, and how many times (0 for a NaN slice)."""
        x, out = ctx.saved_tensors
        data = x.array
        mask = data == np.reshape(out.array, _kept_shape(data.shape, ctx.axes))
        return _const(mask), _const(np.sum(mask, axis=ctx.axes, keepdims=True).astype(data.dtype))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        mask, count = Amax.mask(ctx)
        g = _restore(grad, ctx.shape, ctx.axes, ctx.keepdim)
        with np.errstate(divide="ignore", invalid="ignore"):  # a NaN slice: count 0, as torch
            out: Tensor = (g / count) * mask
        return out, None, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, *_: None) -> Tensor:
        mask, count = Amax.mask(ctx)
        with np.errstate(divide="ignore", invalid="ignore"):
            total = (tx * mask).sum(ctx.axes or None, keepdim=True) / count
        return _unkeep(total, ctx.shape, ctx.axes, ctx.keepdim)


class Amin(Amax):
    """Smallest element over ``dims``."""

    node_name = "AminBackward0"
    op_name = "amin"
    reduce = np.min


def _unkeep(t: Tensor, shape: tuple[int, ...], axes: tuple[int, ...], keepdim: bool) -> Tensor:
    """A keepdim result reshaped to the result without the reduced dimensions."""
    if keepdim:
        return t
    return t.reshape(tuple(s for i, s in enumerate(shape) if i not in axes))


class ArgMax(Function[Tensor]):
    """Index of the largest element (of the flattened tensor when ``dim`` is None)."""

    @classmethod
    def vmap(cls, info: VmapInfo, in_dims: tuple[Any, ...], x: Tensor, dim: Any, keepdim: bool) -> tuple[Any, Any]:
        """``dim`` moved past the batch dimension; without it, each flattened sample's."""
        n = x.ndim - 1
        if dim is not None:
            return cls.apply(x, shift_dim(dim, n), keepdim), 0
        out = cls.apply(x.reshape(x.shape[0], -1), 1, False)
        return (out.reshape(x.shape[0], *([1] * n)) if keepdim else out), 0

    skips_without_gradient = True

    op_name: ClassVar[str] = "argmax"
    pick: ClassVar[Callable[..., Any]] = np.argmax

    @staticmethod
    def forward(ctx: Any, x: Tensor, dim: int | None, keepdim: bool) -> Tensor:
        refuse_complex(ctx, x.array)
        data = x.array
        cls = ctx.forward_cls
        if data.dtype == np.bool_:
            raise RuntimeError(f"{cls.op_name}(): does not support bool input")
        if dim is None:
            _empty_check(cls.op_name, data, None, IndexError)
            out = np.asarray(cls.pick(data))
            if keepdim:
                out = out.reshape((1,) * data.ndim)
        elif data.ndim == 0:
            _wrap_dim(dim, 0)
            out = np.zeros((), dtype=np.int64)
        else:
            axis = _wrap_dim(dim, data.ndim)
            _empty_check(cls.op_name, data, (axis,))
            out = cls.pick(data, axis=axis, keepdims=keepdim)
        return as_tensor(out.astype(np.int64, copy=False))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[None, None, None]:
        return None, None, None

    @staticmethod
    def jvp(ctx: Any, *_: Any) -> None:
        return None


class ArgMin(ArgMax):
    """Index of the smallest element."""

    op_name = "argmin"
    pick = np.argmin


# --------------------------------------------------------------------------- logsumexp


class Logsumexp(Function[Tensor]):
    """``log(sum(exp(x)))`` over ``dims``, without overflow.

    Computed around the maximum so that it neither overflows nor underflows (a slice of -inf
    gives -inf, as torch)."""

    vmap = dims_rule(1)

    node_name = "LogsumexpBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"self": 0, "result": 1, "dim": "axes", "keepdim": "keepdim"}
    skips_without_gradient = True
    holomorphic = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, dims: tuple[int, ...], keepdim: bool) -> Tensor:
        data = _floating(x)
        axes = _axes(dims, data.ndim)
        ctx.axes = axes
        ctx.shape = data.shape
        ctx.keepdim = keepdim
        if data.size == 0:
            with np.errstate(divide="ignore"):
                out = np.log(np.sum(np.exp(data), axis=axes, keepdims=keepdim))
        else:
            m = np.max(data, axis=axes, keepdims=True)
            m = np.where(np.isinf(m), data.dtype.type(0), m)
            with np.errstate(divide="ignore"):
                s = np.log(np.sum(np.exp(data - m), axis=axes, keepdims=True)) + m
            out = s if keepdim else np.reshape(s, [n for i, n in enumerate(data.shape) if i not in axes])
        y = as_tensor(np.asarray(out, dtype=data.dtype))
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None, None]:
        x, y = ctx.saved_tensors
        g = _restore(grad, ctx.shape, ctx.axes, ctx.keepdim)
        out: Tensor = g * (x - _restore(y, ctx.shape, ctx.axes, ctx.keepdim)).exp()
        return out, None, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, *_: None) -> Tensor:
        x, y = ctx.saved_tensors
        weights: Tensor = (x - _restore(y, ctx.shape, ctx.axes, ctx.keepdim)).exp()
        return (weights * tx).sum(ctx.axes or None, keepdim=ctx.keepdim)


# --------------------------------------------------------------------------- norm


def _p_text(p: float) -> str:
    if np.isinf(p):
        return "inf" if p > 0 else "-inf"
    return str(int(p)) if float(p).is_integer() else repr(float(p))


class VectorNorm(Function[Tensor]):
    """The vector ``p``-norm over ``dims`` (all when None).

    ``sum(|x|^p)^(1/p)``, the largest or smallest ``|x|`` for ``p = ±inf``, the count of
    non-zeros for ``p = 0``.  Gradients are torch's (``norm_backward``), e.g. 0 at the zero
    vector for ``p = 2``."""

    vmap = dims_rule(2, none_is_all=True)

    node_name = "LinalgVectorNormBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, p: float, dims: tuple[int, ...] | None, keepdim: bool) -> Tensor:
        data = x.array
        axes = _axes(dims, data.ndim)
        ctx.p = p
        ctx.axes = axes
        ctx.shape = data.shape
        ctx.keepdim = keepdim
        magnitudes = np.abs(data)
        # float16 sums and powers in float32, as torch accumulates (|[300, 310, 290]| is 520, not inf)
        a = magnitudes.astype(np.float32) if magnitudes.dtype == np.float16 else magnitudes
        if (p < 0 or np.isinf(p)) and data.size == 0:  # min and max have no identity
            if dims is None or len(dims) == 0:
                raise RuntimeError(
                    f"linalg.vector_norm cannot compute the {_p_text(p)} norm on an empty tensor because the "
                    "operation does not have an identity"
                )
            for i in axes:
                if data.shape[i] == 0:
                    raise RuntimeError(
                        f"linalg.vector_norm cannot compute the {_p_text(p)} norm on the dimension {i}because "
                        "this dimension is empty and the operation does not have an identity"
                    )
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            if p == 2:
                out = np.sqrt(np.sum(a * a, axis=axes, keepdims=keepdim))
            elif p == 1:
                out = np.sum(a, axis=axes, keepdims=keepdim)
            elif p == np.inf:
                out = np.max(a, axis=axes, keepdims=keepdim)
            elif p == -np.inf:
                out = np.min(a, axis=axes, keepdims=keepdim)
            elif p == 0:
                out = np.sum(a != 0, axis=axes, keepdims=keepdim).astype(data.dtype)
            else:
                out = np.sum(a**p, axis=axes, keepdims=keepdim) ** (1.0 / p)
        y = as_tensor(np.asarray(out, dtype=magnitudes.dtype))  # real for complex x
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, None, None, None]:
        x, y = ctx.saved_tensors
        return _norm_grad(ctx, x, y, grad), None, None, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, *_: None) -> Tensor:
        x, y = ctx.saved_tensors
        if ctx.p == 0:
            return as_tensor(np.zeros_like(y.array))
        ones = as_tensor(np.ones_like(y.array))
        grad = _norm_grad(ctx, x, y, ones)
        assert grad is not None
        return _real_dot(grad, tx).sum(ctx.axes or None, keepdim=ctx.keepdim)


def _norm_grad(ctx: Any, x: Tensor, y: Tensor, grad: Tensor) -> Tensor | None:
    """torch's ``norm_backward`` written in ctxgrad ops; masks (norm == 0, x == 0, the
    maxima of |x|) are constants."""
    p = ctx.p
    data = x.array
    g = _restore(grad, ctx.shape, ctx.axes, ctx.keepdim)
    norm = _restore(y, ctx.shape, ctx.axes, ctx.keepdim)
    nd = norm.array
    if p == 0:
        return None
    if p == 1:
        out: Tensor = x.sign() * g
        return out
    if p == 2:
        return g * Where.apply(_const(nd == 0), 0.0, x / Where.apply(_const(nd == 0), 1.0, norm))
    if np.isinf(p):
        a = np.abs(data)
        mask = (a == nd) | (np.isnan(a) & np.isnan(nd))
        count = np.sum(mask, axis=ctx.axes, keepdims=True).astype(data.dtype)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = x.sign() * ((g / _const(count)) * _const(mask))
        return out
    zero_x = _const(data == 0)
    if p < 1:
        safe = Where.apply(zero_x, 1.0, x)
        scaled = Where.apply(zero_x, 0.0, x.sign() * safe.abs() ** (p - 1))
        with np.errstate(divide="ignore", invalid="ignore"):
            out = scaled * g * norm ** (1 - p)
        return out
    zero_n = _const(nd == 0)
    safe_norm = Where.apply(zero_n, 1.0, norm)
    scale = Where.apply(zero_n, 0.0, g / safe_norm ** (p - 1))
    if p < 2:
        out = x.sign() * x.abs() ** (p - 1) * scale
    else:
        out = x * x.abs() ** (p - 2) * scale
    return out


# --------------------------------------------------------------------------- all, any


class All(Function[Tensor]):
    """True where every element over ``dims`` is non-zero (bool; uint8 stays uint8)."""

    vmap = dims_rule(1, none_is_all=True)

    skips_without_gradient = True

    reduce: ClassVar[Callable[..., Any]] = np.all

    @staticmethod
    def forward(ctx: Any, x: Tensor, dims: tuple[int, ...] | None, keepdim: bool) -> Tensor:
        data = x.array
        reduce = ctx.forward_cls.reduce
        if dims is not None and len(dims) == 0:  # torch: an empty dim list reduces nothing
            out = data != 0
        else:
            out = reduce(data, axis=_axes(dims, data.ndim), keepdims=keepdim)
        out = np.asarray(out)
        return as_tensor(out.astype(np.uint8) if data.dtype == np.uint8 else out)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[None, None, None]:
        return None, None, None

    @staticmethod
    def jvp(ctx: Any, *_: Any) -> None:
        return None


class Any_(All):
    """True where some element over ``dims`` is non-zero."""

    reduce = np.any


# --------------------------------------------------------------------------- frontends and rows
# Each op's row (ROWS, at the end) names its Function and, where torch's arguments need work,
# an argument handler here (``_summed``: ``name`` and torch's arguments in, the Function's
# out); the frontend is made from the two.  An op that chooses between Functions (``prod``,
# ``max``) keeps a frontend written here.  Rows with ``numpy_dims`` take NumPy's
# ``axis=``/``keepdims=`` too (``ops._row.with_numpy_dims``), and ``ctxgrad._numpy`` runs
# NumPy's function of the same name (``np.sum``) through them.


def dims_tuple(dim: Any) -> tuple[int, ...] | None:
    """A ``dim`` argument (None, an int, a 0-d tensor or a sequence of ints) as the tuple of
    dimensions a reduction's Function takes (None: every dimension)."""
    if dim is None:
        return None
    if isinstance(dim, (int, np.integer)) or (isinstance(dim, Tensor) and dim.array.ndim == 0):
        return (int(dim),)
    return tuple(int(d) for d in dim)


def _int_dim(name: str, dim: Any) -> int:
    """A dimension argument that must be a single int (torch's TypeError otherwise)."""
    if isinstance(dim, (tuple, list)):
        raise TypeError(
            f"{name}() received an invalid combination of arguments - got ({type(dim).__name__}), but "
            "expected one of: (int dim, ...)"
        )
    return int(dim)


# The overloads torch lists when a reduction is given keepdim= without dim= (its TypeError).
_OVERLOADS = {
    "sum": (
        " * (*, torch.dtype dtype = None)\n * (tuple of ints dim, bool keepdim = False, *, torch.dtype dtype = None)\n"
    ),
    "prod": " * (*, torch.dtype dtype = None)\n * (int dim, bool keepdim = False, *, torch.dtype dtype = None)\n",
    "max": " * ()\n * (Tensor other)\n * (int dim, bool keepdim = False)\n",
}
_OVERLOADS["mean"] = _OVERLOADS["sum"]
_OVERLOADS["min"] = _OVERLOADS["max"]


def _keepdim_without_dim(name: str, keepdims: bool | None, dtype: Any = None) -> TypeError:
    """torch's TypeError for ``keepdim=`` (or ``keepdims=``) given without ``dim``, where no
    overload takes it (``t.sum(keepdim=True)``; ``t.var(keepdim=True)`` is fine)."""
    if dtype is not None:
        return missing(name, dim=UNSET)
    keyword = "keepdim" if keepdims is None else "keepdims"
    return TypeError(
        f"{name}() received an invalid combination of arguments - got ({keyword}=bool, ), but expected one of:\n"
        + _OVERLOADS[name]
    )


# ``sum``, ``mean``, ``prod``, ``max`` and ``min`` declare ``keepdims``: their rows' NumPy
# wrapper (``numpy_dims=True``) has set ``keepdim`` from it, and passes it on as given so that
# torch's TypeError for it without ``dim`` names the keyword used.


def _summed(
    name: str,
    input: Tensor,
    dim: int | Sequence[int] | None = UNSET,
    keepdim: bool = False,
    *,
    dtype: Any = None,
    keepdims: bool | None = None,
) -> tuple[Tensor, tuple[int, ...] | None, bool]:
    """The arguments of ``sum`` and ``mean`` (``Sum``'s, ``Mean``'s): ``keepdim=`` refused
    without ``dim=`` (None included) and an ``input`` that is not a tensor, as torch does; the
    input cast to ``dtype``; integers and bools summed in int64, ``mean`` of floating tensors
    only."""
    tensor_arg(name, "input", 1, input)  # (sum('a'): torch's TypeError)
    if dim is UNSET:
        if keepdim or keepdims is not None:
            raise _keepdim_without_dim(name, keepdims, dtype)
        dim = None
    x = input if dtype is None else input.to(dtype)
    kind = x.array.dtype.kind
    if name == "sum" and (kind in "bu" or (kind == "i" and x.array.dtype != np.int64)):
        x = x.to(np.dtype(np.int64))
    elif name == "mean" and kind not in "fc":
        raise RuntimeError(
            "mean(): could not infer output dtype. Input dtype must be either a floating point or "
            f"complex dtype. Got: {short_name(x.array.dtype)}"
        )
    return x, dims_tuple(dim), keepdim


def _sizes(name: str, input: Tensor, *sizes: Any, size: Any = None) -> tuple[Tensor, tuple[int, ...]]:
    """The arguments of ``sum_to_size``: the sizes given spread, as one sequence or as ``size=``."""
    return input, shape_arg(sizes) if size is None else sizes_arg(sizes, size, name, "size")


def prod(
    input: Tensor, dim: int | None = None, keepdim: bool = False, *, dtype: Any = None, keepdims: bool | None = None
) -> Tensor:
    """Product of all elements, or over ``dim``; exact gradients with zeros in the input."""
    if dim is None and (keepdim or keepdims is not None):
        raise _keepdim_without_dim("prod", keepdims, dtype)
    x = _as_int64(input if dtype is None else input.to(dtype))
    if dim is None:
        return ProdAll.apply(x)
    return Prod.apply(x, _int_dim("prod", dim), keepdim)


def _variance(
    name: str, input: Tensor, dim: Any = None, unbiased: bool | None = None, keepdim: bool = False,
    *, correction: float | None = None,
) -> tuple[Tensor, tuple[int, ...] | None, float, bool]:  # fmt: skip
    """The arguments of ``var`` and ``std`` (``Var``'s and ``Std``'s): torch's overloads
    ``(dim, unbiased, keepdim)``, ``(unbiased)`` and ``(dim, *, correction, keepdim)``;
    ``correction`` 1 by default (``unbiased=False`` means 0)."""
    if isinstance(dim, bool):  # x.var(False): the (unbiased) overload
        if unbiased is not None:
            raise TypeError(f"{name}() received an invalid combination of arguments - got (bool, bool)")
        dim, unbiased = None, dim
    if unbiased is not None and correction is not None:
        raise TypeError(
            f"{name}() received an invalid combination of arguments - got (correction={correction!r}, "
            f"unbiased={unbiased!r}): give either unbiased or correction"
        )
    if correction is None:
        correction = 0 if unbiased is False else 1
    if input.array.dtype.kind not in "fc":
        raise RuntimeError("std and var only support floating point and complex dtypes")
    return input, dims_tuple(dim), correction, keepdim


def _max_min(x: Tensor, dim: Any, keepdim: bool, largest: bool, keepdims: bool | None) -> Any:
    """``x.max()``, ``x.max(dim, keepdim)`` (a named tuple) or ``x.max(other)``."""
    if isinstance(dim, Tensor):
        return x.maximum(dim) if largest else x.minimum(dim)
    name = "max" if largest else "min"
    if dim is None:
        if keepdim or keepdims is not None:
            raise _keepdim_without_dim(name, keepdims)
        return (MaxAll if largest else MinAll).apply(x)
    values, indices = (MaxDim if largest else MinDim).apply(x, _int_dim(name, dim), keepdim)
    return (_return_types.max if largest else _return_types.min)(values, indices)


# Typed by what the call returns: a tensor, or with a dimension the named tuple.
@overload
def max(input: Tensor, dim: None = None, keepdim: bool = False) -> Tensor: ...
@overload
def max(input: Tensor, dim: Tensor) -> Tensor: ...
@overload
def max(input: Tensor, *, other: Tensor) -> Tensor: ...
@overload
def max(input: Tensor, dim: int, keepdim: bool = False, *, keepdims: bool | None = None) -> _return_types.max: ...
def max(
    input: Tensor, dim: Any = None, keepdim: bool = False, *, other: Tensor | None = None, keepdims: bool | None = None
) -> Any:
    """The largest element; with ``dim``, the named tuple ``(values, indices)``; with a
    tensor, the elementwise ``maximum``."""
    if other is not None:  # (torch's ``max(input, other=t)`` overload)
        dim = other
    return _max_min(input, dim, keepdim, True, keepdims)


# Typed by what the call returns: a tensor, or with a dimension the named tuple.
@overload
def min(input: Tensor, dim: None = None, keepdim: bool = False) -> Tensor: ...
@overload
def min(input: Tensor, dim: Tensor) -> Tensor: ...
@overload
def min(input: Tensor, *, other: Tensor) -> Tensor: ...
@overload
def min(input: Tensor, dim: int, keepdim: bool = False, *, keepdims: bool | None = None) -> _return_types.min: ...
def min(
    input: Tensor, dim: Any = None, keepdim: bool = False, *, other: Tensor | None = None, keepdims: bool | None = None
) -> Any:
    """The smallest element; with ``dim``, the named tuple ``(values, indices)``; with a
    tensor, the elementwise ``minimum``."""
    if other is not None:  # (torch's ``min(input, other=t)`` overload)
        dim = other
    return _max_min(input, dim, keepdim, False, keepdims)


def _extremes(
    name: str, input: Tensor, dim: int | Sequence[int] = (), keepdim: bool = False
) -> tuple[Tensor, tuple[int, ...], bool]:
    """The arguments of ``amax``/``amin`` (``Amax``'s): ``dim`` as a tuple, () for all."""
    return input, dims_tuple(dim) or (), keepdim


def _index_dims(
    name: str, input: Tensor, dim: int | None = None, keepdim: bool = False
) -> tuple[Tensor, int | None, bool]:
    """The arguments of ``argmax``/``argmin``: ``dim`` one int or None (torch's TypeError for a
    sequence)."""
    if isinstance(dim, (tuple, list)):
        raise TypeError(f"{name}(): argument 'dim' (position 1) must be int, not {type(dim).__name__}")
    return input, None if dim is None else int(dim), keepdim


def _logsumexp(
    name: str, input: Tensor, dim: int | Sequence[int] = UNSET, keepdim: bool = False
) -> tuple[Tensor, tuple[int, ...], bool]:
    """The arguments of ``logsumexp``: ``dim`` required (torch's TypeError)."""
    if dim is UNSET:
        raise missing(name, dim=dim)
    return input, dims_tuple(dim) or (), keepdim


def _norm(
    name: str, input: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False, dtype: Any = None
) -> tuple[Tensor, float, tuple[int, ...] | None, bool]:
    """The arguments of ``norm`` (``VectorNorm``'s): ``'fro'`` is the 2-norm over up to two
    dimensions, as in torch; floating and complex inputs only, cast to ``dtype``."""
    x = input
    dims = dims_tuple(dim)
    if isinstance(p, str):
        if p == "fro" and (dims is None or len(dims) <= 2):
            p = 2.0
        elif p == "nuc":
            raise NotImplementedError("ctxgrad does not have the nuclear norm (norm(p='nuc')) yet")
        elif p != "fro":
            raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.")
        else:
            raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(str(d) for d in dims or ())}")
    if x.array.dtype.kind not in "fc":
        raise RuntimeError(
            f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got {short_name(x.array.dtype)}"
        )
    if dtype is not None:
        dt = to_dtype(dtype)
        if dt.kind not in "fc":
            raise RuntimeError(
                f"linalg.vector_norm: dtype should be floating point or complex, but got {short_name(dt)}"
            )
        x = x.to(dt)
    return x, 2.0 if p is None else float(p), dims, keepdim


def _truth(
    name: str, input: Tensor, dim: int | Sequence[int] | None = None, keepdim: bool = False
) -> tuple[Tensor, tuple[int, ...] | None, bool]:
    """The arguments of ``all``/``any``: ``dim`` as a tuple, None for all."""
    return input, dims_tuple(dim), keepdim


ROWS: list[Op] = [
    Op("sum", Sum, args=_summed, numpy_dims=True, out=True),
    Op("mean", Mean, args=_summed, numpy_dims=True, out=True),
    Op("prod", prod, numpy_dims=True, out=True),
    Op("var", Var, args=_variance, numpy_dims=True, out=True),
    Op("std", Std, args=_variance, numpy_dims=True, out=True),
    Op("max", max, numpy_dims=True, out=True),
    Op("min", min, numpy_dims=True, out=True),
    Op("amax", Amax, args=_extremes, numpy_dims=True, out=True),
    Op("amin", Amin, args=_extremes, numpy_dims=True, out=True),
    Op("argmax", ArgMax, args=_index_dims, numpy_dims=True, out=True),
    Op("argmin", ArgMin, args=_index_dims, numpy_dims=True, out=True),
    Op("logsumexp", Logsumexp, args=_logsumexp, numpy_dims=True, out=True),
    Op("norm", VectorNorm, args=_norm, out=True),
    Op("all", All, args=_truth, numpy_dims=True, out=True),
    Op("any", Any_, args=_truth, numpy_dims=True, out=True),
    Op("sum_to_size", SumToSize, args=_sizes, function=False),
]

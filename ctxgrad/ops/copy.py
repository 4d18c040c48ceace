"""Copies: ``clone``, ``contiguous`` and dtype conversion (``to``, ``type``)."""

from __future__ import annotations

import builtins
from typing import Any

import numpy as np

from ctxgrad import _dtypes, _memory_format
from ctxgrad._device import check_device, device
from ctxgrad._state import _state
from ctxgrad._tensor import Tensor, as_tensor
from ctxgrad.autograd.batching import unary_rule
from ctxgrad.autograd.function import Function
from ctxgrad.ops._row import Op


class Clone(Function[Tensor]):
    """A copy with its own storage, laid out as ``memory_format`` says (by default as the
    input is: ``ctxgrad._memory_format``); the gradient passes through."""

    vmap = unary_rule

    node_name = "CloneBackward0"
    holomorphic = True  # linear, real coefficients
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, memory_format: _memory_format.memory_format) -> Tensor:
        ctx.memory_format = memory_format
        return as_tensor(_memory_format.copy_in_format(x.array, memory_format))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        return grad, None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: None) -> Tensor:
        return Clone.apply(tx, ctx.memory_format)


def clone_args(name: str, input: Tensor, *, memory_format: Any = None) -> tuple[Tensor, Any]:
    """``clone``'s arguments: ``memory_format`` a :mod:`memory format <ctxgrad._memory_format>`,
    by default ``preserve_format``, as in torch."""
    fmt = _memory_format.checked(memory_format, name, input.shape)
    if _state.modes.vmap_levels and fmt not in (_memory_format.preserve_format, _memory_format.contiguous_format):
        raise RuntimeError(
            "NYI: Tensor.clone(memory_format) inside vmap is only supported with memory_format "
            f"ctxgrad.preserve_format or ctxgrad.contiguous_format (got {fmt.torch_name})"
        )
    return input, fmt


class Contiguous(Function[Tensor]):
    """A row-major copy of a tensor whose layout is not; the gradient passes through."""

    vmap = unary_rule

    node_name = "CloneBackward0"
    holomorphic = True
    skips_without_gradient = True
    returns_views = True

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        return as_tensor(np.ascontiguousarray(x.array))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        return grad

    @staticmethod
    def jvp(ctx: Any, tx: Tensor) -> Tensor:
        return Contiguous.apply(tx)


class ToDtype(Function[Tensor]):
    """Convert to ``dtype``; the gradient is converted back.  An integer or bool result
    does not require grad (the engine never asks it for one)."""

    vmap = unary_rule

    node_name = "ToCopyBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, dtype: np.dtype[Any]) -> Tensor:
        data = x.array
        ctx.dtype = data.dtype
        ctx.out_dtype = dtype
        return as_tensor(data.astype(dtype))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        if grad.is_complex() and ctx.dtype.kind != "c":
            grad = grad.real  # a real tensor made complex: the real part of the gradient, as in torch
        return grad.to(ctx.dtype), None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: None) -> Tensor:
        return ToDtype.apply(tx, ctx.out_dtype)


# --------------------------------------------------------------------------- frontends
# One function per op, with torch's signature; the rows at the end make them the Tensor
# methods (and ``clone``, made from its Function, ``ctxgrad.clone`` too).  These rows are
# the op table's last: inside ``class Tensor`` the declarations of ``float``, ``int``, ``bool``
# and ``type`` hide the builtins of those names.
def to(input: Tensor, *args: Any, **kwargs: Any) -> Tensor:
    """Convert to a dtype (``to(ctxgrad.float64)``, ``to(other)``); devices other than cpu fail."""
    dtype = kwargs.pop("dtype", None)
    copy = builtins.bool(kwargs.pop("copy", False))
    kwargs.pop("non_blocking", None)
    dev = kwargs.pop("device", None)
    fmt = _memory_format.checked(kwargs.pop("memory_format", None), "to", input.shape)
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    for a in args:
        if isinstance(a, Tensor):
            dtype = a.array.dtype
        elif isinstance(a, (str, device)) or (isinstance(a, builtins.int) and not isinstance(a, builtins.bool)):
            dev = a  # an int is a device index, as in torch (there is no accelerator)
        elif a is not None:
            dtype = a
    if dev is not None:
        check_device(dev)
    laid = _keeps_layout(input, fmt)
    if dtype is None:
        return Clone.apply(input, fmt) if copy or not laid else input
    dt = _dtypes.to_dtype(dtype)
    if dt == input.array.dtype and not copy and laid:
        return input
    out = ToDtype.apply(input, dt)  # (astype keeps the layout: preserve_format)
    return out if fmt is _memory_format.preserve_format else _relaid(out, fmt)


def type_as(input: Tensor, other: Tensor) -> Tensor:
    """This tensor converted to ``other``'s dtype."""
    return to(input, other.array.dtype)


def contiguous(input: Tensor, memory_format: Any = None) -> Tensor:
    """This tensor if it is laid out as ``memory_format`` says (None: row-major,
    ``contiguous_format``), else a copy that is."""
    fmt = _memory_format.checked(
        _memory_format.contiguous_format if memory_format is None else memory_format, "contiguous", input.shape
    )
    if input.array.flags.c_contiguous and fmt in (_memory_format.preserve_format, _memory_format.contiguous_format):
        return input
    if fmt is _memory_format.contiguous_format:
        return Contiguous.apply(input)
    if fmt is _memory_format.preserve_format:
        raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
    if _state.modes.vmap_levels:
        raise RuntimeError(
            "NYI: querying is_contiguous inside of vmap for memory_format other than ctxgrad.contiguous_format"
        )
    if _memory_format.is_contiguous_as(input.array, fmt):
        return input
    return Clone.apply(input, fmt)


def _relaid(out: Tensor, fmt: _memory_format.memory_format) -> Tensor:
    """``out`` (a copy just made, in its input's layout) laid out as ``fmt`` says: itself when
    it already is."""
    if fmt is _memory_format.preserve_format or (
        fmt is _memory_format.contiguous_format and out.array.flags.c_contiguous
    ):
        return out
    return Clone.apply(out, fmt)


def cpu(input: Tensor, *, memory_format: Any = None) -> Tensor:
    """This tensor (ctxgrad has only the CPU), or a copy laid out as ``memory_format`` says
    when it asks for another layout than this tensor's, as torch's."""
    return _converted(input, input.array.dtype, memory_format, "cpu")


def _suggested_format(array: Any) -> _memory_format.memory_format:
    """torch's ``suggest_memory_format``: channels-last for a 4-d (5-d) array laid out so and
    not also row-major, else ``contiguous_format``."""
    if array.ndim in (4, 5) and not array.flags.c_contiguous:
        fmt = _memory_format.channels_last if array.ndim == 4 else _memory_format.channels_last_3d
        if _memory_format.is_contiguous_as(array, fmt):
            return fmt
    return _memory_format.contiguous_format


def _keeps_layout(input: Tensor, fmt: _memory_format.memory_format) -> builtins.bool:
    """torch's rule for whether ``to`` (and ``float()``, ``cpu()``, ...) may give back ``input``
    itself as far as the layout goes: ``fmt`` asks for nothing else than the layout torch would
    suggest for it (a transposed matrix is its own ``contiguous_format``)."""
    return fmt is _memory_format.preserve_format or _suggested_format(input.array) is fmt


def _converted(input: Tensor, dt: Any, memory_format: Any, name: str) -> Tensor:
    """``input`` converted to ``dt`` (``float()``, ``long()``, ``cpu()``, ...), laid out as
    ``memory_format`` says (by default as ``input`` is): ``input`` itself when it has that
    dtype and keeps its layout (:func:`_keeps_layout`), as in torch."""
    fmt = _memory_format.checked(memory_format, name, input.shape)
    same = dt == input.array.dtype
    if same and _keeps_layout(input, fmt):
        return input
    out = input if same else ToDtype.apply(input, dt)  # (astype keeps the layout: preserve_format)
    return out if fmt is _memory_format.preserve_format else _relaid(out, fmt)


def cuda(input: Tensor, device: Any = None, non_blocking: Any = False, memory_format: Any = None) -> Tensor:
    """Fails as in a CPU-only build of torch (``AssertionError``): ctxgrad has no CUDA."""
    if device is not None:
        check_device(device)  # a bare index is torch's RuntimeError (no accelerator)
    check_device("cuda")
    return input


#: The legacy type names ``type()`` gives and takes: ``ctxgrad.FloatTensor`` (torch's
#: ``torch.FloatTensor``, which ``type()`` also takes, so ported code converts unchanged).
_TYPE_NAMES = {f"{prefix}.{_dtypes.type_name(dt)}": dt for dt in _dtypes.DTYPES for prefix in ("ctxgrad", "torch")}


def type(input: Tensor, dtype: Any = None, non_blocking: Any = False, **kwargs: Any) -> Any:
    """Without ``dtype``, the legacy type name, ``'ctxgrad.FloatTensor'`` (torch says
    ``'torch.FloatTensor'``); with one, this tensor converted to it (a dtype, a legacy
    constructor such as ``ctxgrad.DoubleTensor``, or a name such as ``'torch.DoubleTensor'``),
    or this tensor itself when it already has that type.

    >>> import ctxgrad
    >>> x = ctxgrad.tensor([1.5, 2.0])
    >>> x.type()
    'ctxgrad.FloatTensor'
    >>> x.type(ctxgrad.int64)
    tensor([1, 2])
    >>> x.type('torch.DoubleTensor').dtype
    ctxgrad.float64
    """
    kwargs.pop("async", None)
    if kwargs:
        raise TypeError(f"type() got an unexpected keyword argument '{next(iter(kwargs))}'")
    if dtype is None:
        return f"ctxgrad.{_dtypes.type_name(input.array.dtype)}"
    if isinstance(dtype, str):
        if dtype not in _TYPE_NAMES:
            if ".cuda." in dtype:
                check_device("cuda")
            raise ValueError(f"invalid type: '{dtype}'")
        dt = _TYPE_NAMES[dtype]
    else:
        dt = _dtypes.to_dtype(getattr(dtype, "dtype", dtype))
    if dt == input.array.dtype:
        return input
    return ToDtype.apply(input, dt)


def double(input: Tensor, *, memory_format: Any = None) -> Tensor:
    """Convert to float64."""
    return _converted(input, _dtypes.float64, memory_format, "double")


def cdouble(input: Tensor, *, memory_format: Any = None) -> Tensor:
    """Convert to complex128."""
    return _converted(input, _dtypes.complex128, memory_format, "cdouble")


def cfloat(input: Tensor, *, memory_format: Any = None) -> Tensor:
    """Convert to complex64."""
    return _converted(input, _dtypes.complex64, memory_format, "cfloat")


def to_dense(input: Tensor, dtype: Any = None, *, masked_grad: Any = None) -> Tensor:
    """This tensor (ctxgrad's tensors are all dense, as ``to_dense`` of a dense torch
    tensor returns it), converted to ``dtype`` if one is given."""
    return input if dtype is None else to(input, dtype)


def half(input: Tensor, *, memory_format: Any = None) -> Tensor:
    """Convert to float16."""
    return _converted(input, _dtypes.float16, memory_format, "half")


def long(input: Tensor, *, memory_format: Any = None) -> Tensor:
    """Convert to int64."""
    return _converted(input, _dtypes.int64, memory_format, "long")


def byte(input: Tensor, *, memory_format: Any = None) -> Tensor:
    """Convert to uint8."""
    return _converted(input, _dtypes.uint8, memory_format, "byte")


def float(input: Tensor, *, memory_format: Any = None) -> Tensor:
    """Convert to float32."""
    return _converted(input, _dtypes.float32, memory_format, "float")


def int(input: Tensor, *, memory_format: Any = None) -> Tensor:
    """Convert to int32."""
    return _converted(input, _dtypes.int32, memory_format, "int")


def bool(input: Tensor, *, memory_format: Any = None) -> Tensor:
    """Convert to bool."""
    return _converted(input, _dtypes.bool_, memory_format, "bool")


# last in the op table (see above): the declarations of float, int, bool and type hide the builtins
ROWS: list[Op] = [
    Op("clone", Clone, args=clone_args),
    Op("to", to, function=False),
    Op("type_as", type_as, function=False),
    Op("contiguous", contiguous, function=False),
    Op("cpu", cpu, function=False),
    Op("double", double, function=False),
    Op("half", half, function=False),
    # torch-surface names (issue 17): complex conversions and to_dense
    Op("cdouble", cdouble, function=False),
    Op("cfloat", cfloat, function=False),
    Op("to_dense", to_dense, function=False),
    Op("long", long, function=False),
    Op("byte", byte, function=False),
    Op("float", float, function=False),
    Op("int", int, function=False),
    Op("bool", bool, function=False),
    Op("cuda", cuda, function=False),
    # ``type``'s declaration hides the builtin of that name in the rest of ``class Tensor``
    Op("type", type, function=False),
]

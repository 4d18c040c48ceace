"""Small helpers shared by the op modules."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np

from ctxgrad._dtypes import can_cast, get_default_dtype, promote_operands, short_name
from ctxgrad._state import refuse_inference_write
from ctxgrad._tensor import Size, Tensor, _wrap_dim, as_tensor
from ctxgrad.autograd.saved import save_for_gradients

# Operand types that binary ops take as they are.
PLAIN_OPERANDS = frozenset({Tensor, int, float})


def operand(other: Any) -> Any:
    """Tensors and Python numbers pass through (NumPy scalars become Python numbers, as
    torch treats them); arrays and nested lists become tensors."""
    if isinstance(other, np.generic):
        return other.item()
    if isinstance(other, (Tensor, int, float, complex)):
        return other
    if isinstance(other, np.ndarray):
        return as_tensor(other)
    return as_tensor(other)


def shape_arg(shape: tuple[Any, ...]) -> tuple[int, ...]:
    """A shape given as ints (``reshape(2, 3)``) or as one sequence (``reshape((2, 3))``)."""
    if len(shape) == 1 and isinstance(shape[0], (tuple, list, Size)):
        shape = tuple(shape[0])
    return tuple(int(s) for s in shape)


def raw(value: Any) -> Any:
    """The array of a tensor; anything else (a Python number) as it is."""
    return value.array if isinstance(value, Tensor) else value


#: NumPy before 2.0 promotes a 0-d array with a Python number by value (``float32 0-d * 2`` is
#: float64); torch, and NumPy 2, keep the array's dtype.
_LEGACY_PROMOTION = np.lib.NumpyVersion(np.__version__) < "2.0.0"


def as_default_float(a: Any, b: Any) -> tuple[np.ndarray[Any, Any], np.ndarray[Any, Any]]:
    """Integer or bool operands (tensors or numbers) in the default float dtype, each from its
    own values: torch's rule for the ops that compute integers as floats (``atan2``,
    ``xlogy``, ``copysign``), where going through the common integer dtype first would make
    ``-2`` with a ``uint8`` tensor 254."""
    dt = get_default_dtype()
    return np.asarray(raw(a), dt), np.asarray(raw(b), dt)


def keep_dtype(result: np.ndarray[Any, Any], dtype: Any) -> np.ndarray[Any, Any]:
    """``result`` in ``dtype`` where NumPy 1 widened a 0-d operand mixed with a Python number
    (``float32 0-d * 0.5`` is float64 there; torch, and NumPy 2, keep float32).  Free on NumPy 2
    and for arrays of one dimension or more."""
    if _LEGACY_PROMOTION and result.ndim == 0 and result.dtype != dtype:
        return result.astype(dtype)
    return result


def arrays(a: Any, b: Any, refuse: Callable[[Any, Any], None] | None = None) -> tuple[Any, Any]:
    """The NumPy operands of a binary op on tensors or numbers, promoted as torch promotes.

    The common cases (equal dtypes; a floating tensor with a Python int or float) return
    at once; the rest go through :func:`~ctxgrad._dtypes.promote_operands`.  ``refuse``, if
    given, sees the operands before promotion (arrays or Python numbers) and may raise; it
    is not called for a floating tensor with a number, nor for equal dtypes other than bool.
    """
    if isinstance(a, Tensor):
        x = a.array
        if isinstance(b, Tensor):
            y = b.array
            if x.dtype is y.dtype or x.dtype == y.dtype:
                if refuse is not None and x.dtype.kind == "b":
                    refuse(x, y)
                return x, y
        elif x.dtype.kind == "f" and (type(b) is float or type(b) is int):
            if _LEGACY_PROMOTION and x.ndim == 0:  # NumPy 1.x would widen a 0-d float32 to float64
                return x, x.dtype.type(b)
            return x, b
        else:
            y = b
    else:
        x = a
        y = b.array
        if y.dtype.kind == "f" and (type(a) is float or type(a) is int):  # (``2.0 - x``)
            if _LEGACY_PROMOTION and y.ndim == 0:
                return y.dtype.type(a), y
            return a, y
    if refuse is not None:
        refuse(x, y)
    return promote_operands(x, y)


#: Each of ``(a, b, out)`` read by both gradients.
_READ_BY_BOTH = ((0, 1), (0, 1), (0, 1))


def save_operands(
    ctx: Any, a: Any, b: Any, out: Tensor | None = None, read_by: tuple[tuple[int, ...], ...] = _READ_BY_BOTH
) -> None:
    """Save a binary op's tensor operands (and ``out``, if given) for backward, each only
    where a needed gradient reads it (``read_by``, see :func:`save_for_gradients`), keeping a
    Python-number operand as ``ctx.scalars``; :func:`operands` puts them back together.

    ``x * 2.0`` thus saves nothing (``x``'s gradient reads only the number): nothing to keep
    alive, nothing to check for in-place changes."""
    if not isinstance(b, Tensor):
        ctx.scalars = (None, b)
        if out is None and read_by[0] == (1,):
            return  # (the tensor is read only by the number's gradient: x * 2.0 keeps nothing)
        b = None
    elif not isinstance(a, Tensor):
        ctx.scalars = (a, None)
        if out is None and read_by[1] == (0,):
            return
        a = None
    if out is None:
        save_for_gradients(ctx, (a, b), read_by)
    else:
        save_for_gradients(ctx, (a, b, out), read_by)


def operands(ctx: Any) -> tuple[Any, Any, Any]:
    """``(a, b, out)`` as saved by :func:`save_operands` (None where not saved), numbers back
    in their places."""
    saved = ctx.saved_tensors
    if not saved:  # (a forward that saved nothing: no gradient needed)
        a = b = out = None
    elif len(saved) == 2:
        (a, b), out = saved, None
    else:
        a, b, out = saved
    scalars = getattr(ctx, "scalars", None)
    if scalars is not None:
        if a is None:
            a = scalars[0]
        if b is None:
            b = scalars[1]
    return a, b, out


def broadcast_error(x: Any, y: Any) -> RuntimeError:
    """Torch's error for operands whose shapes do not broadcast."""
    a, b = np.shape(x), np.shape(y)
    n = max(len(a), len(b))
    for k in range(1, n + 1):
        sa = a[-k] if k <= len(a) else 1
        sb = b[-k] if k <= len(b) else 1
        if sa != sb and sa != 1 and sb != 1:
            return RuntimeError(
                f"The size of tensor a ({sa}) must match the size of tensor b ({sb}) at non-singleton dimension {n - k}"
            )
    return RuntimeError(f"shapes {list(a)} and {list(b)} cannot be broadcast together")


def tangent_sum(*terms: Tensor | None) -> Tensor:
    """The sum of a ``jvp``'s per-input terms, skipping None (an argument without a tangent:
    a Python number).  At least one term is a tensor: ``jvp`` runs only when one is."""
    total: Tensor | None = None
    for t in terms:
        if t is not None:
            total = t if total is None else total + t
    if total is None:
        raise RuntimeError("tangent_sum: no tangent given (a jvp runs only when an input has one)")
    return total


class _Unset:
    """The default of a ``dim`` that torch tells apart from an explicit ``dim=None``:
    ``t.sum(keepdim=True)`` is torch's TypeError, ``t.sum(dim=None, keepdim=True)`` is not.
    Its repr is ``...``, so the generated stubs read ``dim: ... = ...``."""

    def __repr__(self) -> str:
        return "..."


#: ``dim`` not given (see :class:`_Unset`); the frontend turns it into None in its first lines.
UNSET: Any = _Unset()


def numpy_dim(name: str, dim: Any, axis: Any, default: Any = None) -> Any:
    """``dim``, or NumPy's name for it, ``axis=``, which torch's functions and methods take in
    its place (``t.sum(axis=0)``); given beside ``dim``, torch's TypeError.  ``dim`` equal to its
    ``default`` counts as not given.  A frontend calls this only when ``axis`` is given."""
    if dim is not default and (default is None or default is UNSET or dim != default):
        raise TypeError(f"{name}() got an unexpected keyword argument 'axis'")
    return axis


def numpy_keepdim(name: str, keepdim: bool, keepdims: bool) -> bool:
    """``keepdims=``, NumPy's name for ``keepdim``, which torch takes in its place; given beside
    ``keepdim=True``, torch's TypeError.  A frontend calls this only when ``keepdims`` is given."""
    if keepdim:
        raise TypeError(f"{name}() got an unexpected keyword argument 'keepdims'")
    return bool(keepdims)


def missing(name: str, **params: Any) -> TypeError:
    """torch's error for the arguments among ``params`` left :data:`UNSET` (a ``dim`` that may
    come as ``axis=`` has a default, so the arguments after it have one too)."""
    names = [key for key, value in params.items() if value is UNSET]
    listed = ", ".join(f'"{key}"' for key in names)
    return TypeError(
        f"{name}() missing {len(names)} required positional argument{'s' if len(names) == 1 else ''}: {listed}"
    )


_NI, _RT = NotImplementedError, RuntimeError
_CLAMP = (_NI, "clamp is not supported for complex types")
#: torch's refusal of a complex input, by the node name of the op that has no complex kernel
#: (``{dtype}`` is the input's torch name, ``ComplexDouble``).
_NO_COMPLEX: dict[str, tuple[type[Exception], str]] = {
    "ReluBackward0": _CLAMP,
    "FloorBackward0": (_NI, "floor is not supported for complex inputs"),
    "CeilBackward0": (_NI, "ceil is not supported for complex inputs"),
    "TruncBackward0": (_NI, "trunc is not supported for complex inputs"),
    "RoundBackward0": (_NI, "\"round_vml_cpu\" not implemented for '{dtype}'"),
    "FracBackward0": (_NI, "\"frac_cpu\" not implemented for '{dtype}'"),
    "ErfBackward0": (_NI, "\"erf_vml_cpu\" not implemented for '{dtype}'"),
    "ErfcBackward0": (_NI, "\"erfc_vml_cpu\" not implemented for '{dtype}'"),
    "LogitBackward0": (_NI, "\"logit_cpu\" not implemented for '{dtype}'"),
    "Atan2Backward0": (_NI, "\"atan2_cpu\" not implemented for '{dtype}'"),
    "MaximumBackward0": (_RT, "maximum not implemented for complex tensors."),
    "MinimumBackward0": (_RT, "minimum not implemented for complex tensors."),
    **{f"Clamp{side}Backward{n}": _CLAMP for side in ("", "Min", "Max") for n in (0, 1)},
    **{f"{op}Backward": (_NI, f"\"{op.lower()}_cpu\" not implemented for '{{dtype}}'") for op in ("Lt", "Le", "Gt")},
    "GeBackward": (_NI, "\"ge_cpu\" not implemented for '{dtype}'"),
    "MaxBackward1": (_NI, "\"max_all\" not implemented for '{dtype}'"),
    "MinBackward1": (_NI, "\"min_all\" not implemented for '{dtype}'"),
    "AmaxBackward0": (_NI, "\"max_values_cpu\" not implemented for '{dtype}'"),
    "AminBackward0": (_NI, "\"min_values_cpu\" not implemented for '{dtype}'"),
    "ArgMaxBackward": (_RT, "argmax(): does not support complex input"),
    "ArgMinBackward": (_RT, "argmin(): does not support complex input"),
    **dict.fromkeys(("SortBackward0", "SortBackward1"), (_RT, " Sort does not support complex dtypes on CPU")),
    "TopkBackward0": (_RT, " topk does not support complex dtypes on CPU"),
    "KthvalueBackward0": (_NI, "\"kthvalue_cpu\" not implemented for '{dtype}'"),
    **dict.fromkeys(("MedianBackward0", "MedianBackward1"), (_NI, "\"median_cpu\" not implemented for '{dtype}'")),
    "SignBackward0": (
        _NI,
        "Unlike NumPy, torch.sign is not intended to support complex numbers. Please use torch.sgn instead.",
    ),
    **{
        f"{op}Backward{n}": (_NI, f"\"{op.lower()}_cpu\" not implemented for '{{dtype}}'")
        for op in ("Remainder", "Fmod")
        for n in (0, 1)
    },
    "torch::autograd::NotImplemented": (_NI, "\"div_floor_cpu\" not implemented for '{dtype}'"),
    **{
        f"Bitwise{op.capitalize()}Backward": (_NI, f"\"bitwise_{op}_cpu\" not implemented for '{{dtype}}'")
        for op in ("and", "or", "xor", "not")
    },
    "Deg2RadBackward0": (_RT, "deg2rad is not supported for complex tensors."),
    "Rad2DegBackward0": (_RT, "rad2deg is not supported for complex tensors."),
    "LgammaBackward0": (_NI, "\"lgamma_vml_cpu\" not implemented for '{dtype}'"),
    "DigammaBackward0": (_NI, "\"digamma\" not implemented for '{dtype}'"),
    "ErfinvBackward0": (_NI, "\"erfinv_vml_cpu\" not implemented for '{dtype}'"),
    **{
        f"{op.capitalize()}Backward0": (_NI, f"\"{op}_cpu\" not implemented for '{{dtype}}'")
        for op in ("hypot", "logaddexp2", "xlogy", "copysign")
    },
    "SpecialXlog1pyBackward0": (_NI, "\"xlog1py_cpu\" not implemented for '{dtype}'"),
    "NextafterBackward0": (_NI, "\"nextafter_cpu\" not implemented for '{dtype}'"),
    "IgammaBackward0": (_NI, "\"igamma_cpu\" not implemented for '{dtype}'"),
    "IgammacBackward0": (_NI, "\"igammac_cpu\" not implemented for '{dtype}'"),
    "FmaxBackward0": (_RT, "fmax not implemented for complex tensors."),
    "FminBackward0": (_RT, "fmin not implemented for complex tensors."),
    "NansumBackward0": (_RT, "nansum on CPU does not support complex inputs"),
    "AminmaxBackward0": (_NI, "\"aminmax_cpu\" not implemented for '{dtype}'"),
    "CummaxBackward0": (_NI, "\"cummax_cpu\" not implemented for '{dtype}'"),
    "CumminBackward0": (_NI, "\"cummin_cpu\" not implemented for '{dtype}'"),
    "ModeBackward0": (_NI, "\"mode_cpu\" not implemented for '{dtype}'"),
    "NanmedianBackward0": (_NI, "\"median_cpu\" not implemented for '{dtype}'"),
    "NanmedianBackward1": (_NI, "\"median_out\" not implemented for '{dtype}'"),
    **dict.fromkeys(
        ("Unique2Backward0", "UniqueConsecutiveBackward0"), (_NI, "\"unique\" not implemented for '{dtype}'")
    ),
    "SoftmaxBackward0": (_NI, "\"softmax_lastdim_kernel_impl\" not implemented for '{dtype}'"),
    "LogSoftmaxBackward0": (_NI, "\"log_softmax_lastdim_kernel_impl\" not implemented for '{dtype}'"),
}  # fmt: skip


def refuse_complex(ctx: Any, *operands: Any) -> None:
    """Raise torch's error when an operand is complex and the op (named by its node) has no
    complex kernel in torch (it orders, rounds or compares its values)."""
    for a in operands:
        dt = getattr(a, "dtype", None)
        if dt is not None and dt.kind == "c":
            refusal = _NO_COMPLEX.get(ctx.name())
            if refusal is not None:
                raise refusal[0](refusal[1].format(dtype=short_name(dt)))


_Result = TypeVar("_Result")


def write_out(name: str, out: Any, args: tuple[Any, ...], compute: Callable[[], _Result]) -> _Result:
    """The ``out=`` form of op ``name``: the result of ``compute()`` written into ``out``.

    As in torch, not differentiable: refused while grad mode is on and an argument or ``out``
    requires grad.  A result of another shape replaces ``out``'s values (with torch's
    warning when ``out`` had elements); the result dtype must cast to ``out``'s safely.  An op
    with several results (``sort``, ``topk``, ``svd``) takes a tuple or list of as many
    tensors, each of its result's dtype, and returns its named tuple of them, as torch does.
    """
    from ctxgrad.autograd.grad_mode import is_grad_enabled

    several = isinstance(out, (tuple, list))
    if not several and not isinstance(out, Tensor):
        raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
    flat = [b for a in (*args, out) for b in (a if isinstance(a, (list, tuple)) else (a,))]  # (cat's list)
    if is_grad_enabled() and any(isinstance(a, Tensor) and a.requires_grad for a in flat):
        raise RuntimeError(
            f"{name}(): functions with out=... arguments don't support automatic differentiation, but one of "
            "the arguments requires grad."
        )
    result = compute()
    if isinstance(result, Tensor):
        if several:
            raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
        return _write_one(out, result, exact_dtype=False)  # type: ignore[return-value]  # (a Tensor is _Result)
    if not several:
        raise TypeError(f"{name}(): argument 'out' must be tuple of Tensors, not {type(out).__name__}")
    assert isinstance(result, tuple)
    if len(out) != len(result):
        raise TypeError(f"expected tuple of {len(result)} elements but got {len(out)}")
    for i, target in enumerate(out):
        if not isinstance(target, Tensor):
            raise TypeError(
                f"{name}(): argument 'out' must be tuple of Tensors, not element {i} of type {type(target).__name__}"
            )
    written = [_write_one(target, value, exact_dtype=True) for target, value in zip(out, result)]
    if type(result) is tuple:  # (not one of the named tuples of ``_return_types``)
        return tuple(written)  # type: ignore[return-value]  # (a tuple of tensors is _Result)
    from ctxgrad.ops._return_types import out_type

    return out_type(type(result))(*written)  # type: ignore[return-value]


def _write_one(out: Tensor, result: Tensor, *, exact_dtype: bool) -> Tensor:
    """``result`` written into ``out`` (resized with torch's warning when the shapes differ)."""
    import warnings

    from ctxgrad._dtypes import cpp_name

    refuse_inference_write(out)
    dt = out.array.dtype
    if exact_dtype and result.array.dtype != dt:
        # (torch's kernels with several results check each dtype exactly)
        raise RuntimeError(
            f"Expected out tensor to have dtype {cpp_name(result.array.dtype)}, but got {cpp_name(dt)} instead"
        )
    if result.array.dtype != dt and not can_cast(result.array.dtype, dt):
        raise RuntimeError(
            f"result type {short_name(result.array.dtype)} can't be cast to the desired output type {short_name(dt)}"
        )
    if result.array.shape == out.array.shape:
        out.copy_(result)
        return out
    if out.array.size:
        warnings.warn(
            f"An output with one or more elements was resized since it had shape {list(out.array.shape)}, which "
            f"does not match the required output shape {list(result.array.shape)}. This behavior is deprecated, "
            "and in a future release outputs will not be resized unless they have zero elements. You can "
            "explicitly reuse an out tensor t by resizing it, inplace, to zero elements with t.resize_(0).",
            UserWarning,
            stacklevel=4,
        )
    out.set_(as_tensor(result.array.astype(dt)))
    return out


def _const(arr: Any) -> Tensor:
    """A constant tensor (a mask or a count) that takes part in a backward as a plain operand."""
    return as_tensor(np.asarray(arr))


def _move_last(perm_axis: int, ndim: int) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """The permutation that moves ``perm_axis`` last, and its inverse."""
    perm = tuple(i for i in range(ndim) if i != perm_axis) + (perm_axis,)
    inverse = tuple(int(i) for i in np.argsort(perm))
    return perm, inverse


def _one_dim(dim: Any, ndim: int) -> int:
    """A single dimension, wrapped (a 0-d tensor takes 0 and -1)."""
    return 0 if ndim == 0 and _wrap_dim(dim, 0) == 0 else _wrap_dim(dim, ndim)


def _as_int64(x: Tensor) -> Tensor:
    """Integer and bool inputs of ``prod``, ``cumsum`` and ``cumprod`` compute in int64, as torch."""
    kind = x.array.dtype.kind
    if kind in "bu" or (kind == "i" and x.array.dtype != np.int64):
        return x.to(np.dtype(np.int64))
    return x


# --------------------------------------------------------------------------- argument handling
def int_or_ints(value: Any) -> tuple[int, ...]:
    """An int, or a sequence of ints (a tensor method's ``*dims`` given as one tuple or list)."""
    if isinstance(value, (int, np.integer)):
        return (int(value),)
    if len(value) == 1 and isinstance(value[0], (tuple, list)):
        value = value[0]
    return tuple(int(v) for v in value)


def sizes_arg(args: tuple[Any, ...], value: Any, method: str, keyword: str) -> tuple[int, ...]:
    """A method's ints given as ``*args`` (``x.flip(0, 1)``, ``x.flip((0, 1))``) or as the keyword
    (``x.flip(dims=(0, 1))``), with torch's error when there are none."""
    if value is not None:
        if args:
            raise TypeError(f"{method}() got multiple values for argument '{keyword}'")
        return int_or_ints(value)
    if not args:
        raise TypeError(f'{method}() missing 1 required positional arguments: "{keyword}"')
    return int_or_ints(args)

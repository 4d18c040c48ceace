"""The NumPy boundary (L4): NumPy's ufuncs and array functions applied to tensors run the
ctxgrad op, so the result is a Tensor that keeps its graph (as in MyGrad; torch converts the
tensor to an array instead, and refuses one that requires grad).

>>> import numpy as np
>>> import ctxgrad
>>> x = ctxgrad.tensor([0.0, 1.0], requires_grad=True)
>>> y = np.exp(x)  # runs ctxgrad.exp
>>> y.grad_fn.name()
'ExpBackward0'
>>> np.sum(y, axis=0).backward()
>>> x.grad
tensor([1.0000, 2.7183])

Two hooks make it, both set on :class:`~ctxgrad.Tensor` by ``ctxgrad/_surface.py``:

* :func:`array_ufunc` (``Tensor.__array_ufunc__``): a ufunc called on tensors
  (``np.exp(t)``, ``np.add(t, 1)``, and ``ndarray * tensor``, which NumPy turns into
  ``np.multiply``) runs the op of :data:`UFUNCS`.  The arithmetic and comparison ufuncs go
  through the Tensor's own operators (``np.multiply(a, t)`` is ``t.__rmul__(a)``), so an
  array on either side gives what the operator gives.
* :func:`array_function` (``Tensor.__array_function__``): an array function
  (``np.sum(t, axis=0)``, ``np.concatenate([t, a])``) runs the handler that
  :data:`FUNCTIONS` holds for it, which maps NumPy's signature to ctxgrad's (``axis`` to
  ``dim``, ``keepdims`` to ``keepdim``, ``ddof`` to ``correction``, NumPy's defaults).  The
  reductions and scans whose row takes NumPy's ``axis=``/``keepdims=`` (``numpy_dims``) get
  one generic handler each, made from NumPy's own signature (``np.sum``, ``np.amax``,
  ``np.cumsum``...); a hand-written one where NumPy's meaning differs (``np.mean``, ``np.std``).

Operands that are not tensors: an ndarray becomes a tensor that shares its memory; a NumPy
scalar becomes a Python number, as in torch's operators (where an op needs a tensor, a 0-d
tensor); a Python number passes through.  The result's dtype is the ctxgrad op's, which
follows torch's promotion (``int / int`` gives the default float dtype).

What has no ctxgrad op raises TypeError naming the ctxgrad spelling, or saying there is
none: an unmapped ufunc or function, NumPy's ``out=``, the ufunc methods (``np.add.reduce``
is ``ctxgrad.sum``).  ``np.asarray(t)`` is not dispatched: it asks for the array, which a
tensor that requires grad refuses, as ``t.numpy()`` does.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any

import numpy as np

from ctxgrad import _factories
from ctxgrad._tensor import Tensor
from ctxgrad.ops._util import UNSET
from ctxgrad.ops.table import OPS

__all__ = ["FUNCTIONS", "UFUNCS", "array_function", "array_ufunc"]

#: Every op of the table by name (``"exp"``, and the method-only rows: ``"eq"``, ``"lt"``).
_OPS: dict[str, Callable[..., Tensor]] = {op.name: op.frontend for op in OPS}

_LEAVE = "or t.detach().numpy() to leave the graph"


# --------------------------------------------------------------------------- operands


def _operand(value: Any) -> Any:
    """A ufunc operand as the ctxgrad op takes it: tensors and Python numbers as they are, an
    ndarray as a tensor sharing its memory, a NumPy scalar as a Python number (torch's rule)."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, np.ndarray):
        return _factories.as_tensor(value)
    if isinstance(value, np.generic):
        return value.item()
    return value


def _tensor(value: Any) -> Tensor:
    """An operand where the op needs a tensor: numbers (and lists) become tensors, as
    ``ctxgrad.as_tensor`` makes them."""
    if isinstance(value, Tensor):
        return value
    if isinstance(value, np.generic):
        value = np.asarray(value)
    return _factories.as_tensor(value)


def _tensors(values: Any) -> list[Tensor]:
    """A sequence of operands (``np.concatenate``'s first argument) as tensors."""
    return [_tensor(v) for v in values]


# --------------------------------------------------------------------------- ufuncs

#: NumPy ufunc name -> the ctxgrad op (a row of the op table) it runs: the rows' ``numpy`` names.
UFUNCS: dict[str, str] = {ufunc: op.name for op in OPS for ufunc in op.numpy}

#: The ufuncs that are operators: ``(dunder with the tensor first, dunder with it second)``.
#: ``np.multiply(a, t)`` is ``t.__rmul__(a)``, what ``a * t`` gave before NumPy dispatched.
_OPERATORS: dict[str, tuple[str, str]] = {
    "add": ("__add__", "__radd__"),
    "subtract": ("__sub__", "__rsub__"),
    "multiply": ("__mul__", "__rmul__"),
    "divide": ("__truediv__", "__rtruediv__"),
    "power": ("__pow__", "__rpow__"),
    "floor_divide": ("__floordiv__", "__rfloordiv__"),
    "remainder": ("__mod__", "__rmod__"),
    "matmul": ("__matmul__", "__rmatmul__"),
    "equal": ("__eq__", "__eq__"),
    "not_equal": ("__ne__", "__ne__"),
    "less": ("__lt__", "__gt__"),
    "less_equal": ("__le__", "__ge__"),
    "greater": ("__gt__", "__lt__"),
    "greater_equal": ("__ge__", "__le__"),
    "bitwise_and": ("__and__", "__rand__"),
    "bitwise_or": ("__or__", "__ror__"),
    "bitwise_xor": ("__xor__", "__rxor__"),
}


def _takes_tensors(frontend: Callable[..., Any]) -> bool:
    """Whether a two-operand op's function takes tensors only (its second parameter is declared
    ``Tensor``, as ``atan2``'s and ``maximum``'s are): a number then becomes a 0-d tensor."""
    parameters = list(inspect.signature(frontend).parameters.values())
    return len(parameters) > 1 and parameters[1].annotation in ("Tensor", Tensor)


#: The ufuncs of two-operand ops whose function takes tensors only (a number becomes a 0-d tensor).
_TENSOR_OPERANDS = frozenset(
    ufunc for op in OPS for ufunc in op.numpy if getattr(np, ufunc).nin == 2 and _takes_tensors(op.frontend)
)

#: ``(ufunc, method)`` -> the ctxgrad spelling of a ufunc method.
_UFUNC_METHODS: dict[tuple[str, str], str] = {
    ("add", "reduce"): "ctxgrad.sum(t, dim)",
    ("multiply", "reduce"): "ctxgrad.prod(t, dim)",
    ("maximum", "reduce"): "ctxgrad.amax(t, dim)",
    ("minimum", "reduce"): "ctxgrad.amin(t, dim)",
    ("logical_and", "reduce"): "ctxgrad.all(t, dim)",
    ("logical_or", "reduce"): "ctxgrad.any(t, dim)",
    ("add", "accumulate"): "ctxgrad.cumsum(t, dim)",
    ("multiply", "accumulate"): "ctxgrad.cumprod(t, dim)",
    ("multiply", "outer"): "ctxgrad.outer(a, b)",
}


def _spelling(ufunc_name: str) -> str:
    """How ctxgrad spells a mapped ufunc call: ``ctxgrad.exp(t)``, ``a.lt(b)``."""
    op = UFUNCS[ufunc_name]
    if op in ("eq", "ne", "lt", "le", "gt", "ge"):
        return f"a.{op}(b)"
    return f"ctxgrad.{op}({'t' if getattr(np, ufunc_name).nin == 1 else 'a, b'})"


#: Operand types that are ours to convert (anything else with ``__array_ufunc__`` is another
#: library's array, which we leave to it).
_OPERAND_TYPES = (Tensor, np.ndarray, np.generic, int, float, complex, bool, list, tuple)


def array_ufunc(self: Tensor, ufunc: Any, method: str, *inputs: Any, **kwargs: Any) -> Any:
    """``Tensor.__array_ufunc__``: run the ctxgrad op of a NumPy ufunc (see :data:`UFUNCS`)."""
    name = ufunc.__name__
    for value in inputs:
        if not isinstance(value, _OPERAND_TYPES) and hasattr(type(value), "__array_ufunc__"):
            return NotImplemented  # another library's array: let it (or NumPy) decide
    if method != "__call__":
        spelling = _UFUNC_METHODS.get((name, method))
        if spelling is None:
            raise TypeError(
                f"ctxgrad has no equivalent of numpy.{name}.{method} on tensors; write it with ctxgrad ops, {_LEAVE}"
            )
        raise TypeError(f"numpy.{name}.{method} is not dispatched on ctxgrad tensors; use {spelling}")
    mapped = UFUNCS.get(name)
    if mapped is None:
        raise TypeError(f"ctxgrad has no op for numpy.{name}; write it with ctxgrad ops, {_LEAVE}")
    if kwargs:
        _check_ufunc_keywords(name, kwargs)
    pair = _OPERATORS.get(name)
    if pair is not None:  # the operators: what `a * t` gave before NumPy dispatched
        a, b = inputs
        if isinstance(a, Tensor):
            result = getattr(type(a), pair[0])(a, b)
        else:
            result = getattr(type(b), pair[1])(b, a)
        if result is NotImplemented:
            raise TypeError(f"numpy.{name}: unsupported operands {type(a).__name__} and {type(b).__name__}")
        return result
    frontend = _OPS[mapped]
    if len(inputs) == 1:
        return frontend(inputs[0])  # the tensor (NumPy calls us only when one is there)
    a, b = inputs
    if name in _TENSOR_OPERANDS:
        return frontend(_tensor(a), _tensor(b))
    return frontend(_tensor(a), _operand(b))


def _check_ufunc_keywords(name: str, kwargs: dict[str, Any]) -> None:
    """TypeError for ``out=`` (naming the ctxgrad spelling) and NumPy's other ufunc keywords."""
    out = kwargs.pop("out", None)
    if out is not None and any(o is not None for o in out):
        raise TypeError(
            f"ctxgrad tensors do not support NumPy's out= (numpy.{name}(..., out=...), or an in-place "
            f"operator on an ndarray such as `array += tensor`); use {_spelling(name)}, which makes a new "
            "tensor (t.copy_(...) writes it into a tensor), or t.detach().numpy() to write into an array"
        )
    if kwargs:
        raise TypeError(
            f"numpy.{name} on ctxgrad tensors takes no keyword arguments (got {', '.join(sorted(kwargs))}); "
            f"use {_spelling(name)}"
        )


# --------------------------------------------------------------------------- array functions

#: NumPy function -> the handler that runs it on tensors (NumPy's signature, ctxgrad's ops).
FUNCTIONS: dict[Callable[..., Any], Callable[..., Any]] = {}


class _NoValue:
    """The default of NumPy's arguments that ctxgrad takes only at their default."""

    def __repr__(self) -> str:
        return "<no value>"


_NO = _NoValue()


def _implements(*funcs: Any) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register the handler for each NumPy function given (skipping those this NumPy lacks)."""

    def register(handler: Callable[..., Any]) -> Callable[..., Any]:
        for func in funcs:
            if func is not None:
                FUNCTIONS[func] = handler
        return handler

    return register


def _np(name: str) -> Any:
    """``numpy.<name>`` or None (a function newer than the oldest NumPy ctxgrad supports)."""
    return getattr(np, name, None)


def _refuse(func: str, **given: Any) -> None:
    """TypeError for NumPy arguments given that ctxgrad has no counterpart for (``out=``,
    ``where=``, ``initial=``, ``order=``...): each must be None or left out."""
    for key, value in given.items():
        if value is not None and value is not _NO:
            if key == "out":
                raise TypeError(
                    f"ctxgrad tensors do not support NumPy's out= (numpy.{func}(..., out=...)); call it "
                    f"without out= for a new tensor (t.copy_(...) writes it into a tensor), {_LEAVE}"
                )
            raise TypeError(f"numpy.{func} on ctxgrad tensors does not take {key}= ({_LEAVE})")


def _dims(axis: Any) -> Any:
    """NumPy's ``axis`` as ctxgrad's ``dim``: None (every dimension), an int or a tuple."""
    if axis is None or isinstance(axis, (int, np.integer)):
        return None if axis is None else int(axis)
    return tuple(int(a) for a in axis)


def _keep(keepdims: Any) -> bool:
    return False if keepdims is _NO else bool(keepdims)


# --------------------------------------------------------------------------- reductions and scans, from the rows

#: NumPy's name -> the row whose op NumPy's function is, where the names differ (``np.max`` is
#: torch's ``amax``: ``max(dim)`` gives values and indices).
_NUMPY_NAMES = {"max": "amax", "min": "amin"}

#: The rows with ``numpy_dims`` whose NumPy function of the same name means something else:
#: given a handler of its own below (NumPy's ``mean`` of integers is float64, ``std`` takes
#: ``ddof``, ``prod`` several axes, ``sort`` gives the values only), or left undispatched
#: (NumPy's ``median`` averages the middle two where torch's takes the lower; ``quantile``,
#: ``diff`` and ``trapezoid`` take arrays and numbers where the ops take tensors; NumPy's
#: ``select`` picks among arrays by conditions, torch's one slice of a dimension).
_MEANING_DIFFERS = frozenset(
    {
        "mean", "nanmean", "prod", "var", "std", "sort", "argsort", "max", "min",
        "median", "nanmedian", "quantile", "nanquantile", "diff", "trapezoid", "trapz", "select",
    }
)  # fmt: skip

#: What a NumPy reduction or scan passes on to the row's frontend, by keyword (the frontend
#: takes ``axis=``/``keepdims=`` since its row has ``numpy_dims``).
_PASSED = ("axis", "keepdims", "dtype")


def _by_signature(name: str, func: Any, frontend: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """The handler of ``numpy.<name>`` (``func``) that runs ``frontend``: NumPy's own signature
    bound to the call, its array as a tensor, ``axis``/``keepdims``/``dtype`` passed on by
    keyword where given (a value that is NumPy's default counts as not given), anything else
    given refused as :func:`_refuse` does (``out=``, ``initial=``, ``where=``).  ``axis=None``
    for an op that takes one dimension only (``cumsum``) runs on the flattened array, as NumPy."""
    signature = inspect.signature(func)
    array = next(iter(signature.parameters))
    taken = inspect.signature(frontend).parameters
    needs_dim = "dim" in taken and taken["dim"].default is UNSET

    def handler(*args: Any, **kwargs: Any) -> Tensor:
        bound = signature.bind(*args, **kwargs)
        given = {
            key: value
            for key, value in bound.arguments.items()
            if key != array and value is not signature.parameters[key].default
        }
        passed = {key: given.pop(key) for key in _PASSED if key in given and key in taken}
        _refuse(name, **given)
        t = _tensor(bound.arguments[array])
        if needs_dim and passed.get("axis") is None:
            t, passed["axis"] = t.reshape(-1), 0
        return frontend(t, **passed)

    handler.__name__ = f"_{name}"
    handler.__doc__ = f"``numpy.{name}``: ``ctxgrad.{frontend.__name__}``, NumPy's arguments bound by name."
    return handler


def _from_rows() -> None:
    """Register :func:`_by_signature`'s handler for each row with ``numpy_dims`` whose NumPy
    function of the same name (or of :data:`_NUMPY_NAMES`) means what it does."""
    names = {op.name: op.name for op in OPS if op.numpy_dims and op.name not in _MEANING_DIFFERS}
    names.update((numpy_name, row) for numpy_name, row in _NUMPY_NAMES.items())
    for numpy_name, row in names.items():
        func = _np(numpy_name)
        if func is not None and not isinstance(func, np.ufunc):
            FUNCTIONS[func] = _by_signature(numpy_name, func, _OPS[row])


_from_rows()


# --------------------------------------------------------------------------- where NumPy's meaning differs


def _mean_of(name: str) -> Callable[..., Tensor]:
    def handler(
        a: Any, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: Any = _NO, **rest: Any
    ) -> Tensor:
        _refuse(name, out=out, **rest)
        t = _tensor(a)
        if dtype is None and not (t.is_floating_point() or t.is_complex()):
            dtype = np.float64  # NumPy's mean of integers is float64
        return _OPS[name](t, _dims(axis), _keep(keepdims), dtype=dtype)

    handler.__name__ = f"_{name}"
    handler.__doc__ = f"``numpy.{name}``: ``ctxgrad.{name}``, of integers in float64 as NumPy's."
    return handler


_implements(np.mean)(_mean_of("mean"))
_implements(np.nanmean)(_mean_of("nanmean"))


@_implements(np.prod)
def _prod(a: Any, axis: Any = None, dtype: Any = None, out: Any = None, keepdims: Any = _NO, **rest: Any) -> Tensor:
    _refuse("prod", out=out, **rest)
    t, keep, dims = _tensor(a), _keep(keepdims), _dims(axis)
    if dims is None or isinstance(dims, int):
        if dims is None and keep:
            return _OPS["prod"](t, dtype=dtype).reshape((1,) * t.ndim)
        return _OPS["prod"](t, dims, keep, dtype=dtype)
    # ctxgrad.prod takes one dim: reduce the dims one at a time, the last first
    for d in sorted((d % t.ndim for d in dims), reverse=True):
        t = _OPS["prod"](t, d, keep, dtype=dtype)
    return t


def _variance(name: str) -> Callable[..., Tensor]:
    def handler(
        a: Any,
        axis: Any = None,
        dtype: Any = None,
        out: Any = None,
        ddof: Any = 0,
        keepdims: Any = _NO,
        *,
        correction: Any = _NO,
        **rest: Any,
    ) -> Tensor:
        _refuse(name, out=out, dtype=dtype, **rest)
        if correction is not _NO:
            if ddof != 0:
                raise ValueError("ddof and correction can't be provided simultaneously.")
            ddof = correction
        return _OPS[name](_tensor(a), _dims(axis), correction=ddof, keepdim=_keep(keepdims))

    handler.__name__ = f"_{name}"
    handler.__doc__ = f"``numpy.{name}``: ``ctxgrad.{name}`` with ``correction=ddof`` (NumPy's default 0)."
    return handler


_implements(np.std)(_variance("std"))
_implements(np.var)(_variance("var"))


@_implements(np.concatenate, _np("concat"))
def _concatenate(arrays: Any, axis: Any = 0, out: Any = None, **rest: Any) -> Tensor:
    _refuse("concatenate", out=out, **rest)
    ts = _tensors(arrays)
    if axis is None:
        return _OPS["cat"]([t.reshape(-1) for t in ts], 0)
    return _OPS["cat"](ts, int(axis))


@_implements(np.stack)
def _stack(arrays: Any, axis: Any = 0, out: Any = None, **rest: Any) -> Tensor:
    _refuse("stack", out=out, **rest)
    return _OPS["stack"](_tensors(arrays), int(axis))


@_implements(np.vstack, _np("row_stack"))
def _vstack(tup: Any, **rest: Any) -> Tensor:
    _refuse("vstack", **rest)
    return _OPS["vstack"](_tensors(tup))


@_implements(np.hstack)
def _hstack(tup: Any, **rest: Any) -> Tensor:
    _refuse("hstack", **rest)
    return _OPS["hstack"](_tensors(tup))


@_implements(np.reshape)
def _reshape(a: Any, *args: Any, order: str = "C", **kwargs: Any) -> Tensor:
    # NumPy 2.1 renamed newshape= to shape=; the second positional argument is either
    shape = args[0] if args else kwargs.pop("shape", kwargs.pop("newshape", None))
    if order != "C":
        raise TypeError(f"numpy.reshape on ctxgrad tensors takes order='C' only (got {order!r})")
    _refuse("reshape", **kwargs)
    if isinstance(shape, (int, np.integer)):
        shape = (int(shape),)
    return _OPS["reshape"](_tensor(a), tuple(int(s) for s in shape))


@_implements(np.ravel)
def _ravel(a: Any, order: str = "C") -> Tensor:
    if order != "C":
        raise TypeError(f"numpy.ravel on ctxgrad tensors takes order='C' only (got {order!r})")
    return _OPS["reshape"](_tensor(a), (-1,))


@_implements(np.transpose, _np("permute_dims"))
def _transpose(a: Any, axes: Any = None) -> Tensor:
    t = _tensor(a)
    dims = tuple(range(t.ndim))[::-1] if axes is None else tuple(int(d) for d in axes)
    return _OPS["permute"](t, dims)


@_implements(np.squeeze)
def _squeeze(a: Any, axis: Any = None) -> Tensor:
    t = _tensor(a)
    dims = _dims(axis)
    if dims is not None:
        for d in (dims,) if isinstance(dims, int) else dims:
            if t.shape[d] != 1:
                raise ValueError("cannot select an axis to squeeze out which has size not equal to one")
    return _OPS["squeeze"](t, dims)


@_implements(np.expand_dims)
def _expand_dims(a: Any, axis: Any) -> Tensor:
    t = _tensor(a)
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    n = t.ndim + len(axes)
    where = sorted(int(d) % n for d in axes)
    if len(set(where)) != len(where):
        raise ValueError("repeated axis")
    sizes = iter(t.shape)
    return _OPS["reshape"](t, tuple(1 if d in where else next(sizes) for d in range(n)))


@_implements(np.where)
def _where(condition: Any, *args: Any) -> Any:
    if not args:
        return _OPS["nonzero"](_tensor(condition), as_tuple=True)
    if len(args) != 2:
        raise ValueError("either both or neither of x and y should be given")
    x, y = args
    return _OPS["where"](_tensor(condition), _operand(x), _operand(y))


@_implements(np.dot)
def _dot(a: Any, b: Any, out: Any = None) -> Tensor:
    _refuse("dot", out=out)
    x, y = _tensor(a), _tensor(b)
    if x.ndim == 0 or y.ndim == 0:
        return x * y
    if x.ndim <= 2 and y.ndim <= 2:
        return _OPS["matmul"](x, y)
    # N-D: a sum over the last axis of a and the second-to-last of b
    return _OPS["tensordot"](x, y, ([x.ndim - 1], [max(y.ndim - 2, 0)]))


@_implements(np.clip)
def _clip(a: Any, a_min: Any = _NO, a_max: Any = _NO, out: Any = None, *, min: Any = _NO, max: Any = _NO) -> Tensor:
    _refuse("clip", out=out)
    lo = min if a_min is _NO else a_min
    hi = max if a_max is _NO else a_max
    lo = None if lo is _NO else lo
    hi = None if hi is _NO else hi
    if lo is None and hi is None:
        raise ValueError("One of max or min must be given")
    return _OPS["clip"](_tensor(a), *(None if v is None else _bound(v) for v in (lo, hi)))


def _bound(value: Any) -> Any:
    return _tensor(value) if isinstance(value, (np.ndarray, Tensor, list, tuple)) else _operand(value)


@_implements(np.flip)
def _flip(m: Any, axis: Any = None) -> Tensor:
    t = _tensor(m)
    dims = _dims(axis)
    return _OPS["flip"](t, tuple(range(t.ndim)) if dims is None else dims if isinstance(dims, tuple) else (dims,))


@_implements(np.tile)
def _tile(A: Any, reps: Any) -> Tensor:
    return _OPS["tile"](_tensor(A), (int(reps),) if isinstance(reps, (int, np.integer)) else tuple(reps))


@_implements(np.einsum)
def _einsum(*operands: Any, out: Any = None, optimize: Any = False, **rest: Any) -> Tensor:
    _refuse("einsum", out=out, **rest)
    if not operands or not isinstance(operands[0], str):
        raise TypeError("numpy.einsum on ctxgrad tensors takes the subscripts string form only")
    return _OPS["einsum"](operands[0], *_tensors(operands[1:]))


@_implements(np.tensordot)
def _tensordot(a: Any, b: Any, axes: Any = 2) -> Tensor:
    return _OPS["tensordot"](_tensor(a), _tensor(b), axes)


@_implements(np.outer)
def _outer(a: Any, b: Any, out: Any = None) -> Tensor:
    _refuse("outer", out=out)
    return _OPS["outer"](_tensor(a).reshape(-1), _tensor(b).reshape(-1))


def _sorting(name: str) -> Callable[..., Tensor]:
    def handler(a: Any, axis: Any = -1, kind: Any = None, order: Any = None, *, stable: Any = None) -> Tensor:
        _refuse(name, order=order)
        t = _tensor(a)
        if axis is None:
            t, axis = t.reshape(-1), 0
        stable = bool(stable) or kind == "stable" or kind == "mergesort"
        result: Any = _OPS[name](t, int(axis), stable=stable)
        return result.values if name == "sort" else result  # type: ignore[no-any-return]

    handler.__name__ = f"_{name}"
    return handler


_implements(np.sort)(_sorting("sort"))
_implements(np.argsort)(_sorting("argsort"))


@_implements(np.diag)
def _diag(v: Any, k: int = 0) -> Tensor:
    return _OPS["diag"](_tensor(v), int(k))


@_implements(np.diagonal)
def _diagonal(a: Any, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Tensor:
    return _OPS["diagonal"](_tensor(a), int(offset), int(axis1), int(axis2))


@_implements(np.tril)
def _tril(m: Any, k: int = 0) -> Tensor:
    return _OPS["tril"](_tensor(m), int(k))


@_implements(np.triu)
def _triu(m: Any, k: int = 0) -> Tensor:
    return _OPS["triu"](_tensor(m), int(k))


@_implements(np.roll)
def _roll(a: Any, shift: Any, axis: Any = None) -> Tensor:
    return _OPS["roll"](_tensor(a), shift, axis)


@_implements(np.broadcast_to)
def _broadcast_to(array: Any, shape: Any, subok: bool = False) -> Tensor:
    return _OPS["broadcast_to"](_tensor(array), (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(shape))


@_implements(np.swapaxes)
def _swapaxes(a: Any, axis1: int, axis2: int) -> Tensor:
    return _OPS["swapaxes"](_tensor(a), int(axis1), int(axis2))


@_implements(np.moveaxis)
def _moveaxis(a: Any, source: Any, destination: Any) -> Tensor:
    return _OPS["movedim"](_tensor(a), source, destination)


@_implements(np.take_along_axis)
def _take_along_axis(arr: Any, indices: Any, axis: Any = -1) -> Tensor:
    return _OPS["take_along_dim"](_tensor(arr), _tensor(indices), None if axis is None else int(axis))


def _rounding(name: str) -> Callable[..., Tensor]:
    def handler(a: Any, decimals: int = 0, out: Any = None) -> Tensor:
        _refuse(name, out=out)
        if decimals != 0:
            raise TypeError(f"numpy.{name} on ctxgrad tensors rounds to integers only (decimals=0); {_LEAVE}")
        return _OPS["round"](_tensor(a))

    handler.__name__ = f"_{name}"
    return handler


_implements(np.round)(_rounding("round"))
_implements(np.around)(_rounding("around"))


@_implements(np.shape)
def _shape(a: Any) -> tuple[int, ...]:
    return tuple(_tensor(a).shape)


@_implements(np.ndim)
def _ndim(a: Any) -> int:
    return _tensor(a).ndim


@_implements(np.size)
def _size(a: Any, axis: Any = None) -> int:
    t = _tensor(a)
    return t.numel() if axis is None else int(t.shape[int(axis)])


def _like(name: str, make: Callable[..., Tensor], fill: bool = False) -> Callable[..., Tensor]:
    def handler(
        a: Any, *args: Any, dtype: Any = None, order: Any = "K", subok: Any = True, shape: Any = None
    ) -> Tensor:
        t = _tensor(a)
        fill_value: tuple[Any, ...] = ()
        if fill:
            if not args:
                raise TypeError(f"{name}() missing required argument 'fill_value'")
            fill_value, args = (args[0],), args[1:]
        if args:
            dtype, *more = args
            if more:
                raise TypeError(f"numpy.{name} on ctxgrad tensors takes (a{', fill_value' if fill else ''}, dtype)")
        if shape is not None:
            t = _factories.empty(shape, dtype=t.dtype)
        return make(t, *fill_value, dtype=dtype)

    handler.__name__ = f"_{name}"
    return handler


_implements(np.zeros_like)(_like("zeros_like", _factories.zeros_like))
_implements(np.ones_like)(_like("ones_like", _factories.ones_like))
_implements(np.empty_like)(_like("empty_like", _factories.empty_like))
_implements(np.full_like)(_like("full_like", _factories.full_like, fill=True))


def _same_dtype(a: Any, b: Any) -> tuple[Tensor, Tensor]:
    x, y = _tensor(a), _tensor(b)
    if x.dtype != y.dtype:
        common = np.result_type(x.detach().numpy(), y.detach().numpy())
        x, y = x.to(common), y.to(common)
    return x, y


@_implements(np.isclose)
def _isclose(a: Any, b: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
    x, y = _same_dtype(a, b)
    return _factories.isclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan)


@_implements(np.allclose)
def _allclose(a: Any, b: Any, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    x, y = _same_dtype(a, b)
    return _factories.allclose(x, y, rtol=rtol, atol=atol, equal_nan=equal_nan)


@_implements(np.array_equal)
def _array_equal(a1: Any, a2: Any, equal_nan: bool = False) -> bool:
    x, y = _same_dtype(a1, a2)
    if not equal_nan:
        return _factories.equal(x, y)
    return x.shape == y.shape and bool(_factories.isclose(x, y, rtol=0.0, atol=0.0, equal_nan=True).all())


@_implements(np.nonzero)
def _nonzero(a: Any) -> Any:
    return _OPS["nonzero"](_tensor(a), as_tuple=True)


@_implements(np.argwhere)
def _argwhere(a: Any) -> Tensor:
    return _OPS["argwhere"](_tensor(a))


@_implements(np.copy)
def _copy(a: Any, order: Any = "K", subok: Any = False) -> Tensor:
    return _OPS["clone"](_tensor(a))


@_implements(np.linalg.norm)
def _norm(x: Any, ord: Any = None, axis: Any = None, keepdims: bool = False) -> Tensor:
    t = _tensor(x)
    dims = _dims(axis)
    if ord is None or (ord == "fro" and (dims is None or isinstance(dims, tuple))):
        return _OPS["norm"](t, "fro", dims, keepdims)
    if isinstance(ord, (int, float)) and (isinstance(dims, int) or (dims is None and t.ndim == 1)):
        return _OPS["norm"](t, ord, dims, keepdims)
    raise TypeError(
        "numpy.linalg.norm on ctxgrad tensors takes ord=None or 'fro', or a vector norm's number with one axis; "
        f"use ctxgrad.linalg.norm, {_LEAVE}"
    )


@_implements(np.linalg.det)
def _det(a: Any) -> Tensor:
    return _OPS["det"](_tensor(a))


@_implements(np.linalg.inv)
def _inv(a: Any) -> Tensor:
    return _OPS["inverse"](_tensor(a))


def _public_name(func: Any) -> str:
    module = getattr(func, "__module__", None) or "numpy"
    return f"{module}.{getattr(func, '__name__', repr(func))}"


def array_function(self: Tensor, func: Any, types: Any, args: Any, kwargs: Any) -> Any:
    """``Tensor.__array_function__``: run the handler of :data:`FUNCTIONS` for a NumPy
    function called with tensors among its array arguments."""
    if not all(issubclass(t, (Tensor, np.ndarray)) for t in types):
        return NotImplemented  # another library's array: let it decide
    handler = FUNCTIONS.get(func)
    if handler is None:
        raise TypeError(
            f"ctxgrad has no function for {_public_name(func)} on tensors; write it with ctxgrad ops "
            f"(see 'NumPy functions on tensors' in docs/differences.md), {_LEAVE}"
        )
    return handler(*args, **kwargs)

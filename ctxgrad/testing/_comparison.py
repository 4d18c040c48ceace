"""``assert_close``: torch's ``torch.testing.assert_close`` for ctxgrad tensors, numbers and
containers of them, with torch's default tolerances and the shape of its messages.

>>> import ctxgrad
>>> from ctxgrad.testing import assert_close
>>> assert_close(ctxgrad.tensor([1.0, 2.0]), ctxgrad.tensor([1.0, 2.0000001]))
>>> assert_close(ctxgrad.tensor([1.0, 2.0, 3.0]), ctxgrad.tensor([1.0, 2.1, 3.5]))
Traceback (most recent call last):
  ...
AssertionError: Tensor-likes are not close!
<BLANKLINE>
Mismatched elements: 2 / 3 (66.7%)
Greatest absolute difference: 0.5 at index (2,) (up to 1e-05 allowed)
Greatest relative difference: 0.1428571492433548 at index (2,) (up to 1.3e-06 allowed)
"""

from __future__ import annotations

import cmath
import warnings
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ctxgrad import _dtypes
from ctxgrad._tensor import Size, Tensor

__all__ = ["assert_close", "default_tolerances"]

#: torch's default ``(rtol, atol)`` by dtype; every other dtype compares exactly.
_PRECISIONS: dict[np.dtype[Any], tuple[float, float]] = {
    _dtypes.float16: (0.001, 1e-5),
    _dtypes.float32: (1.3e-6, 1e-5),
    _dtypes.float64: (1e-7, 1e-7),
    _dtypes.complex64: (1.3e-6, 1e-5),
    _dtypes.complex128: (1e-7, 1e-7),
}
#: The dtype whose tolerances a Python number of each type gets.
_NUMBER_DTYPES: dict[type, np.dtype[Any]] = {
    int: _dtypes.int64,
    float: _dtypes.float64,
    complex: _dtypes.complex128,
}


class _Mismatch(Exception):
    """A failed comparison: the exception type and message to raise, and where it happened."""

    def __init__(self, kind: type[Exception], message: str, where: tuple[Any, ...]) -> None:
        super().__init__(message)
        self.kind, self.message, self.where = kind, message, where


def default_tolerances(*dtypes: np.dtype[Any]) -> tuple[float, float]:
    """The loosest of torch's default ``(rtol, atol)`` over ``dtypes`` ((0, 0) for integers
    and bool: they compare exactly)."""
    rtols, atols = zip(*(_PRECISIONS.get(dt, (0.0, 0.0)) for dt in dtypes))
    return max(rtols), max(atols)


def assert_close(
    actual: Any,
    expected: Any,
    *,
    allow_subclasses: bool = True,
    rtol: float | None = None,
    atol: float | None = None,
    equal_nan: bool = False,
    check_device: bool = True,
    check_dtype: bool = True,
    check_layout: bool = True,
    check_stride: bool = False,
    msg: str | Callable[[str], str] | None = None,
) -> None:
    """Assert that ``actual`` and ``expected`` are close, as ``torch.testing.assert_close``.

    Tensors (or NumPy arrays, compared with arrays) must have the same shape and, unless
    ``check_dtype=False``, dtype (``check_stride=True`` also compares strides); then every
    element must satisfy ``|actual - expected| <= atol + rtol * |expected|`` (infinities equal
    only to themselves; NaN equal to NaN only with ``equal_nan``).  Python numbers compare
    the same way, and sequences and mappings element by element.  Without ``rtol`` and
    ``atol``, the tolerances are torch's defaults for the dtypes: float16 ``(1e-3, 1e-5)``,
    float32 and complex64 ``(1.3e-6, 1e-5)``, float64 and complex128 ``(1e-7, 1e-7)``, exact
    for the rest.  Give both or neither.

    A mismatch is an ``AssertionError`` whose message says how many elements differ and the
    greatest absolute and relative differences with their index, and for an item of a
    container which item (``The failure occurred for item [1]``).  ``msg`` replaces the
    message (a string) or rewrites it (a callable given torch's message).  Inputs that cannot
    be compared (a tensor and a list) are a ``TypeError``.  ``allow_subclasses``,
    ``check_device`` and ``check_layout`` are accepted for torch's signature: ctxgrad has one
    device and one layout.
    """
    if (rtol is None) != (atol is None):
        raise ValueError(
            f"Both 'rtol' and 'atol' must be either specified or omitted, "
            f"but got no {'rtol' if rtol is None else 'atol'}."
        )
    options = {"rtol": rtol, "atol": atol, "equal_nan": equal_nan, "check_dtype": check_dtype}
    options["check_stride"] = check_stride
    try:
        _compare(actual, expected, (), options)
    except _Mismatch as mismatch:
        message = mismatch.message
        if mismatch.kind is AssertionError:
            if mismatch.where:
                message += f"\n\nThe failure occurred for item {''.join(str([key]) for key in mismatch.where)}"
            if isinstance(msg, str):
                message = msg
            elif msg is not None:
                message = msg(message)
        raise mismatch.kind(message) from None


def _compare(actual: Any, expected: Any, where: tuple[Any, ...], options: dict[str, Any]) -> None:
    if actual is None or expected is None:
        if actual is not expected:
            raise _Mismatch(AssertionError, f"None mismatch: {actual} is not {expected}", where)
        return
    if isinstance(actual, Tensor) and isinstance(expected, Tensor):
        _compare_arrays(actual.detach().array, expected.detach().array, where, options)
    elif isinstance(actual, np.ndarray) and isinstance(expected, np.ndarray):
        _compare_arrays(actual, expected, where, options)
    elif _is_number(actual) and _is_number(expected):
        _compare_numbers(actual, expected, where, options)
    elif isinstance(actual, Mapping) and isinstance(expected, Mapping):
        missing, extra = set(expected) - set(actual), set(actual) - set(expected)
        if missing or extra:
            raise _Mismatch(
                AssertionError,
                "The keys of the mappings do not match:\n"
                f"Missing keys in the actual mapping: {sorted(missing)}\n"
                f"Additional keys in the actual mapping: {sorted(extra)}",
                where,
            )
        keys: Any = actual.keys()
        try:
            keys = sorted(keys)
        except TypeError:
            pass
        for key in keys:
            _compare(actual[key], expected[key], (*where, key), options)
    elif _is_sequence(actual) and _is_sequence(expected):
        if len(actual) != len(expected):
            raise _Mismatch(
                AssertionError, f"The length of the sequences mismatch: {len(actual)} != {len(expected)}", where
            )
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare(a, e, (*where, i), options)
    else:
        raise _Mismatch(
            TypeError,
            f"No comparison pair was able to handle inputs of type {_type(actual)} and {_type(expected)}.",
            where,
        )


def _type(value: Any) -> str:
    """``<class 'ctxgrad.Tensor'>`` for a tensor (its public name), ``repr(type(value))`` else."""
    return "<class 'ctxgrad.Tensor'>" if type(value) is Tensor else repr(type(value))


def _is_number(value: Any) -> bool:
    return isinstance(value, (bool, int, float, complex, np.number, np.bool_))


def _is_sequence(value: Any) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, (str, bytes))


def _tolerances(options: dict[str, Any], *dtypes: np.dtype[Any]) -> tuple[float, float]:
    if options["rtol"] is None:
        return default_tolerances(*dtypes)
    return float(options["rtol"]), float(options["atol"])


def _compare_numbers(actual: Any, expected: Any, where: tuple[Any, ...], options: dict[str, Any]) -> None:
    actual = actual.item() if isinstance(actual, np.generic) else actual
    expected = expected.item() if isinstance(expected, np.generic) else expected
    if isinstance(actual, bool) and isinstance(expected, bool):
        if actual is not expected:
            raise _Mismatch(AssertionError, f"Booleans mismatch: {actual} is not {expected}", where)
        return
    if type(actual) is not type(expected) and options["check_dtype"]:
        raise _Mismatch(AssertionError, f"The (d)types do not match: {type(actual)} != {type(expected)}.", where)
    rtol, atol = _tolerances(
        options, _NUMBER_DTYPES.get(type(actual), _dtypes.int64), _NUMBER_DTYPES.get(type(expected), _dtypes.int64)
    )
    if actual == expected:
        return
    if options["equal_nan"] and cmath.isnan(actual) and cmath.isnan(expected):
        return
    abs_diff = abs(actual - expected)
    if cmath.isfinite(abs_diff) and abs_diff <= atol + rtol * abs(expected):
        return
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    raise _Mismatch(
        AssertionError,
        _message("Scalars", f"Expected {expected} but got {actual}.", abs_diff, None, rel_diff, None, rtol, atol),
        where,
    )


def _message(
    identifier: str, extra: str, abs_diff: Any, abs_at: Any, rel_diff: Any, rel_at: Any, rtol: float, atol: float
) -> str:
    """torch's mismatch message: a header, ``extra``, then the greatest differences."""
    equality = rtol == 0 and atol == 0

    def line(kind: str, diff: Any, at: Any, tol: float) -> str:
        text = (
            f"{kind.title()} difference: {diff}" if at is None else f"Greatest {kind} difference: {diff} at index {at}"
        )
        return text if equality else f"{text} (up to {tol} allowed)"

    header = f"{identifier} are not {'equal' if equality else 'close'}!"
    return (
        f"{header}\n\n{extra}\n{line('absolute', abs_diff, abs_at, atol)}\n{line('relative', rel_diff, rel_at, rtol)}"
    )


def _compare_arrays(
    actual: np.ndarray[Any, Any], expected: np.ndarray[Any, Any], where: tuple[Any, ...], options: dict[str, Any]
) -> None:
    def mismatch(attribute: str, a: Any, e: Any) -> _Mismatch:
        return _Mismatch(AssertionError, f"The values for attribute '{attribute}' do not match: {a} != {e}.", where)

    if actual.shape != expected.shape:
        raise mismatch("shape", Size(actual.shape), Size(expected.shape))
    if options["check_stride"]:
        strides = (
            tuple(s // actual.itemsize for s in actual.strides),
            tuple(s // expected.itemsize for s in expected.strides),
        )
        if strides[0] != strides[1]:
            raise mismatch("stride()", *strides)
    if actual.dtype != expected.dtype:
        if options["check_dtype"]:
            raise mismatch("dtype", _dtypes.dtype_repr(actual.dtype), _dtypes.dtype_repr(expected.dtype))
    rtol, atol = _tolerances(options, actual.dtype, expected.dtype)
    if actual.dtype != expected.dtype:
        common = _dtypes.result_dtype(np.empty(1, actual.dtype), np.empty(1, expected.dtype))
        actual, expected = actual.astype(common), expected.astype(common)
    matches = _isclose(actual, expected, rtol, atol, options["equal_nan"])
    if matches.all():
        return
    if actual.ndim == 0:
        extra = f"Expected {expected.item()} but got {actual.item()}."
        a, e = actual.item(), expected.item()
        abs_diff = abs(a - e)
        rel_diff = float("inf") if e == 0 else abs_diff / abs(e)
        raise _Mismatch(AssertionError, _message("Scalars", extra, abs_diff, None, rel_diff, None, rtol, atol), where)
    total, wrong = matches.size, int(matches.size - matches.sum())
    extra = f"Mismatched elements: {wrong} / {total} ({wrong / total:.1%})"
    a_flat, e_flat = actual.reshape(-1), expected.reshape(-1)
    if actual.dtype.kind not in "fc":
        a_flat, e_flat = a_flat.astype(np.int64), e_flat.astype(np.int64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        abs_diff = np.abs(a_flat - e_flat)
        abs_diff[matches.reshape(-1)] = 0
        if actual.dtype.kind not in "fc":
            default = _dtypes.get_default_dtype()
            rel_diff = abs_diff.astype(default) / np.abs(e_flat).astype(default)
        else:
            rel_diff = abs_diff / np.abs(e_flat)
        rel_diff[matches.reshape(-1)] = 0
    abs_at, rel_at = int(np.argmax(abs_diff)), int(np.argmax(rel_diff))
    raise _Mismatch(
        AssertionError,
        _message(
            "Tensor-likes",
            extra,
            abs_diff[abs_at].item(),
            tuple(int(i) for i in np.unravel_index(abs_at, actual.shape)),
            rel_diff[rel_at].item(),
            tuple(int(i) for i in np.unravel_index(rel_at, actual.shape)),
            rtol,
            atol,
        ),
        where,
    )


def _isclose(
    actual: np.ndarray[Any, Any], expected: np.ndarray[Any, Any], rtol: float, atol: float, equal_nan: bool
) -> np.ndarray[Any, Any]:
    """torch's ``isclose``: exact for bool, and for integers when both tolerances are 0."""
    if actual.dtype == _dtypes.bool_ or (actual.dtype.kind in "iu" and rtol == 0 and atol == 0):
        return np.asarray(actual == expected)
    with np.errstate(invalid="ignore", over="ignore"):
        return np.asarray(np.isclose(actual, expected, rtol=rtol, atol=atol, equal_nan=equal_nan))


#: assert_allclose's default (rtol, atol) per dtype; other dtypes compare exactly.
_ALLCLOSE_PRECISIONS = {"float16": (1e-3, 1e-3), "float32": (1e-4, 1e-5), "float64": (1e-5, 1e-8)}


def assert_allclose(
    actual: Any,
    expected: Any,
    rtol: float | None = None,
    atol: float | None = None,
    equal_nan: bool = True,
    msg: str = "",
) -> None:
    """torch's deprecated ``assert_allclose``, with its ``FutureWarning``: :func:`assert_close`
    with NaNs equal, dtypes not compared and its own default tolerances (float32: 1e-4 and
    1e-5), the looser of the two inputs'."""
    warnings.warn(
        "`torch.testing.assert_allclose()` is deprecated since 1.12 and will be removed in a future release. "
        "Please use `torch.testing.assert_close()` instead. "
        "You can find detailed upgrade instructions in https://github.com/pytorch/pytorch/issues/61844.",
        FutureWarning,
        stacklevel=2,
    )
    from ctxgrad._factories import tensor

    if not isinstance(actual, Tensor):
        actual = tensor(actual)
    if not isinstance(expected, Tensor):
        expected = tensor(expected, dtype=actual.dtype)
    if rtol is None and atol is None:
        pairs = [_ALLCLOSE_PRECISIONS.get(str(t.dtype).rsplit(".", 1)[-1], (0.0, 0.0)) for t in (actual, expected)]
        rtol, atol = max(p[0] for p in pairs), max(p[1] for p in pairs)
    assert_close(
        actual,
        expected,
        rtol=rtol,
        atol=atol,
        equal_nan=equal_nan,
        check_device=True,
        check_dtype=False,
        check_stride=False,
        msg=msg or None,
    )

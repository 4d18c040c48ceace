"""More of what torch's own autograd tests expect (issue 18): dtype objects that answer
torch's questions, node attributes by torch's names, and ``out=``.

Each behaviour runs on ctxgrad and, where torch is installed, on torch too, as functions of
the library module ``L``.
"""

from __future__ import annotations

import copy
import pickle
from typing import Any

import numpy as np
import pytest
from _support import raised

import ctxgrad

DTYPE_NAMES = [
    "float16",
    "float32",
    "float64",
    "complex64",
    "complex128",
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
    "bool",
    "half",
    "float",
    "double",
    "cfloat",
    "cdouble",
    "short",
    "int",
    "long",
]


def outcome(fn: Any, L: Any) -> Any:
    """``fn()``'s value with the library's name taken off, or its exception as ``raised``
    gives it."""
    try:
        value = fn()
    except Exception:
        return raised(fn, L)
    return str(value).replace(L.__name__ + ".", "")


# --------------------------------------------------------------------------- dtype objects
def _dtype_facts(L: Any, name: str) -> tuple[Any, ...]:
    dt = getattr(L, name)
    return (
        outcome(lambda: repr(dt), L),
        outcome(lambda: str(dt), L),
        dt.is_floating_point,
        dt.is_complex,
        dt.is_signed,
        dt.itemsize,
        outcome(dt.to_real, L),
        outcome(dt.to_complex, L),
        type(dt).__name__,
        L.zeros(1, dtype=dt).dtype is dt,
    )


@pytest.mark.parametrize("name", DTYPE_NAMES)
def test_dtype_answers_torchs_questions(torch: Any, name: str) -> None:
    ours, theirs = _dtype_facts(ctxgrad, name), _dtype_facts(torch, name)
    if name in ("float16", "half"):  # torch has complex32, NumPy nothing (docs/differences.md §10)
        assert ours[7] == ("RuntimeError", "LIB.float16 has no complex dtype: NumPy has no complex32")
        assert theirs[7] == "complex32"
        ours, theirs = ours[:7] + ours[8:], theirs[:7] + theirs[8:]
    assert ours == theirs


@pytest.mark.parametrize("name", ["float16", "float32", "float64", "complex64", "complex128", "int64", "bool", "uint8"])
def test_dtype_stands_for_its_numpy_dtype(name: str) -> None:
    np_name = "bool_" if name == "bool" else name
    dt, nd = getattr(ctxgrad, name), np.dtype(getattr(np, np_name))
    assert dt == nd and nd == dt and dt == getattr(np, np_name) and dt == nd.name
    assert not (dt != nd) and dt != np.dtype(np.int32 if name != "int32" else np.int8)
    assert hash(dt) == hash(nd) and {nd: "x"}[dt] == "x" and {dt: "y"}[nd] == "y"
    assert np.dtype(dt) is nd and dt.dtype is nd
    assert np.zeros(2, dtype=dt).dtype == nd and np.ones(2).astype(dt).dtype == nd
    assert np.empty(0, dt).dtype == nd and np.array([1], dtype=dt).dtype == nd
    assert (dt.kind, dt.name, dt.char, dt.type, dt.itemsize, dt.str) == (
        nd.kind,
        nd.name,
        nd.char,
        nd.type,
        nd.itemsize,
        nd.str,
    )
    assert np.result_type(dt, np.int8) == np.result_type(nd, np.int8)
    assert dt != "no such dtype" and dt != None  # noqa: E711 - the comparison itself is under test


def test_tensor_dtype_is_one_object_per_dtype_and_survives_copies() -> None:
    t = ctxgrad.tensor([1.0, 2.0])
    assert t.dtype is ctxgrad.float32 is ctxgrad.float is t.double().float().dtype
    assert ctxgrad.tensor([1, 2]).dtype is ctxgrad.int64 and ctxgrad.tensor([True]).dtype is ctxgrad.bool
    assert ctxgrad.from_numpy(np.zeros(2, np.uint8)).dtype is ctxgrad.uint8
    assert pickle.loads(pickle.dumps(ctxgrad.float64)) is ctxgrad.float64
    assert copy.deepcopy(ctxgrad.complex64) is ctxgrad.complex64 and copy.copy(ctxgrad.int8) is ctxgrad.int8
    assert ctxgrad.get_default_dtype() is ctxgrad.float32
    assert ctxgrad.promote_types(ctxgrad.int64, ctxgrad.float16) is ctxgrad.float16
    assert ctxgrad.result_type(ctxgrad.tensor([1, 2]), 0.5) is ctxgrad.float32


def test_dtype_instances_cannot_be_made_or_changed(torch: Any) -> None:
    assert raised(lambda: ctxgrad.dtype(), ctxgrad) == raised(lambda: torch.dtype(), torch)
    assert raised(lambda: ctxgrad.dtype(), ctxgrad) == ("TypeError", "cannot create 'LIB.dtype' instances")
    with pytest.raises(AttributeError, match="not writable"):
        ctxgrad.float32.itemsize = 3  # type: ignore[misc]


def test_a_dtype_argument_must_be_a_dtype(torch: Any) -> None:
    for L in (ctxgrad, torch):
        assert raised(lambda L=L: L.finfo("float32"), L)[0] == "TypeError"
    assert ctxgrad.finfo(ctxgrad.float64).eps == torch.finfo(torch.float64).eps
    assert str(ctxgrad.iinfo(ctxgrad.int16)) == str(torch.iinfo(torch.int16))

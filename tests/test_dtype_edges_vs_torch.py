"""Dtype and value edges compared with torch 2.13: the same code runs on ctxgrad and on
torch and must give the same dtype and the same values (NaN where torch has NaN)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ctxgrad

torch = pytest.importorskip("torch")

Call = Callable[[Any], Any]


def _name(dtype: Any) -> str:
    return str(dtype).split(".")[-1]


def assert_same_tensor(ours: Any, theirs: Any, rtol: float = 1e-6) -> None:
    assert _name(ours.dtype) == _name(theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=rtol, equal_nan=True)


def assert_same(call: Call, rtol: float = 1e-6) -> None:
    ours, theirs = call(ctxgrad), call(torch)
    if isinstance(theirs, tuple):
        assert len(ours) == len(theirs)
        for o, t in zip(ours, theirs):
            assert_same_tensor(o, t, rtol)
    else:
        assert_same_tensor(ours, theirs, rtol)


def _cond(m: Any) -> Any:
    return m.tensor([True, False])


# A NumPy scalar counts as the Python number it holds, as torch reads it.
NUMPY_SCALARS: list[tuple[str, Call]] = [
    ("full np.int64", lambda m: m.full((2,), np.int64(7))),
    ("full np.int32", lambda m: m.full((2,), np.int32(7))),
    ("full np.uint8", lambda m: m.full((2,), np.uint8(3))),
    ("full np.float64", lambda m: m.full((2,), np.float64(7.5))),
    ("full np.complex128", lambda m: m.full((2,), np.complex128(1 + 2j))),
    ("full_like np.int64", lambda m: m.full_like(m.zeros(2, dtype=m.int32), np.int64(7))),
    ("where int64, np.int64", lambda m: m.where(_cond(m), m.tensor([1, 2]), np.int64(3))),
    ("where int32, np.int64", lambda m: m.where(_cond(m), m.tensor([1, 2], dtype=m.int32), np.int64(3))),
    ("where np.int64, int32", lambda m: m.where(_cond(m), np.int64(3), m.tensor([1, 2], dtype=m.int32))),
    ("where float16, np.float64", lambda m: m.where(_cond(m), m.tensor([1.0, 2.0], dtype=m.float16), np.float64(3))),
    ("where float16, np.int64", lambda m: m.where(_cond(m), m.tensor([1.0, 2.0], dtype=m.float16), np.int64(3))),
    ("where int32, np.float64", lambda m: m.where(_cond(m), m.tensor([1, 2], dtype=m.int32), np.float64(0.5))),
    ("where two numpy scalars", lambda m: m.where(_cond(m), np.int64(3), np.float64(2.5))),
]


@pytest.mark.parametrize("call", [c[1] for c in NUMPY_SCALARS], ids=[c[0] for c in NUMPY_SCALARS])
def test_numpy_scalars_count_as_python_numbers(call: Call) -> None:
    assert_same(call)

"""ctxgrad.testing.assert_close against torch.testing.assert_close: the same inputs pass or
fail the same way, with the same exception type and message (``torch.`` spelt ``ctxgrad.``)."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import ctxgrad
from ctxgrad.testing import assert_close

INF, NAN = math.inf, math.nan

# Each case makes (actual, expected, keyword arguments) from a library (ctxgrad or torch).
CASES: dict[str, Any] = {
    "close_float32": lambda L: (L.tensor([1.0, 2.0, 3.0]), L.tensor([1.0, 2.0, 3.0000001]), {}),
    "not_close_float32": lambda L: (L.tensor([1.0, 2.0, 3.0]), L.tensor([1.0, 2.1, 3.5]), {}),
    "not_close_2d": lambda L: (L.tensor([[1.0, 2.0], [3.0, 4.0]]), L.tensor([[1.0, 2.0], [3.0, 5.0]]), {}),
    "float64_tolerance": lambda L: (
        L.tensor([1.0], dtype=L.float64),
        L.tensor([1.0 + 5e-7], dtype=L.float64),
        {},
    ),
    "float16_tolerance": lambda L: (
        L.tensor([1.0], dtype=L.float16),
        L.tensor([1.0009765625], dtype=L.float16),
        {},
    ),
    "dtype_mismatch": lambda L: (L.tensor([1.0]), L.tensor([1.0], dtype=L.float64), {}),
    "dtype_ignored": lambda L: (L.tensor([1.0, 2.0]), L.tensor([1.0, 2.0], dtype=L.float64), {"check_dtype": False}),
    "dtype_ignored_values_differ": lambda L: (
        L.tensor([1, 2], dtype=L.int32),
        L.tensor([1.0, 2.5]),
        {"check_dtype": False},
    ),
    "shape_mismatch": lambda L: (L.tensor([1.0, 2.0, 3.0]), L.tensor([1.0, 2.0]), {}),
    "ints_not_equal": lambda L: (L.tensor([1, 2, 3]), L.tensor([1, 2, 4]), {}),
    "ints_with_tolerance": lambda L: (L.tensor([1, 2]), L.tensor([1, 3]), {"rtol": 0.5, "atol": 0}),
    "bools": lambda L: (L.tensor([True]), L.tensor([False]), {}),
    "zero_d": lambda L: (L.tensor(1.0), L.tensor(2.0), {}),
    "nan": lambda L: (L.tensor([NAN]), L.tensor([NAN]), {}),
    "nan_equal": lambda L: (L.tensor([NAN]), L.tensor([NAN]), {"equal_nan": True}),
    "nan_against_number": lambda L: (L.tensor([1.0, NAN]), L.tensor([1.0, 2.0]), {}),
    "inf_equal": lambda L: (L.tensor([1.0, INF]), L.tensor([1.0, INF]), {}),
    "inf_opposite": lambda L: (L.tensor([1.0, -INF]), L.tensor([1.0, INF]), {}),
    "inf_against_number": lambda L: (L.tensor([1.0, 2.0]), L.tensor([1.0, INF]), {}),
    "relative_to_zero": lambda L: (L.tensor([0.0, 2.0]), L.tensor([1.0, 0.0]), {}),
    "complex": lambda L: (L.tensor([1j]), L.tensor([2j]), {}),
    "exact": lambda L: (L.tensor([1.0, 2.0]), L.tensor([1.5, 2.0]), {"rtol": 0.0, "atol": 0}),
    "loose": lambda L: (L.tensor([1.0, 2.0]), L.tensor([1.0, 2.5]), {"rtol": 0.3, "atol": 0}),
    "only_rtol": lambda L: (L.tensor([1.0]), L.tensor([1.0]), {"rtol": 1e-3}),
    "only_atol": lambda L: (L.tensor([1.0]), L.tensor([1.0]), {"atol": 1e-3}),
    "strides_ignored": lambda L: (L.zeros(2, 3), L.zeros(3, 2).t(), {}),
    "strides_checked": lambda L: (L.zeros(2, 3), L.zeros(3, 2).t(), {"check_stride": True}),
    "requires_grad_ignored": lambda L: (L.tensor([1.0], requires_grad=True), L.tensor([1.0]), {}),
    "msg_string": lambda L: (L.tensor([1.0]), L.tensor([2.0]), {"msg": "custom"}),
    "msg_callable": lambda L: (L.tensor([1.0]), L.tensor([2.0]), {"msg": lambda m: "X" + m}),
    "float_scalars_close": lambda L: (1.0, 1.0 + 1e-8, {}),
    "float_scalars": lambda L: (1.0, 1.1, {}),
    "int_scalars": lambda L: (1, 2, {}),
    "int_and_float": lambda L: (1, 1.0, {}),
    "int_and_float_unchecked": lambda L: (1, 1.0, {"check_dtype": False}),
    "complex_scalars": lambda L: (1 + 1j, 1 + 2j, {}),
    "nan_scalars": lambda L: (NAN, NAN, {}),
    "nan_scalars_equal": lambda L: (NAN, NAN, {"equal_nan": True}),
    "bool_scalars": lambda L: (True, False, {}),
    "numpy_scalars": lambda L: (np.float32(1.0), np.float32(1.1), {}),
    "nones": lambda L: (None, None, {}),
    "none_and_number": lambda L: (None, 1, {}),
    "list_of_floats": lambda L: ([1.0, 2.0], [1.0, 2.5], {}),
    "nested_lists": lambda L: ([[1.0, 2.0]], [[1.0, 2.5]], {}),
    "list_and_tuple_of_tensors": lambda L: ([L.tensor(1.0)], (L.tensor(1.0),), {}),
    "lengths": lambda L: ([1.0, 2.0], [1.0], {}),
    "mapping": lambda L: ({"a": L.tensor([1.0])}, {"a": L.tensor([2.0])}, {}),
    "mapping_keys": lambda L: ({"a": 1}, {"b": 1}, {}),
    "tensor_and_list": lambda L: (L.tensor([1.0]), [1.0], {}),
    "tensor_and_number": lambda L: (L.tensor([1.0]), 1.0, {}),
    "strings": lambda L: ("a", "b", {}),
    "arrays": lambda L: (np.array([1.0]), np.array([1.1]), {}),
}


def outcome(lib: Any, case: Any) -> tuple[str, str] | None:
    actual, expected, kwargs = case(lib)
    check = lib.testing.assert_close
    try:
        check(actual, expected, **kwargs)
    except Exception as error:
        return type(error).__name__, str(error).replace(f"{lib.__name__}.", "LIB.")
    return None


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_assert_close_passes_and_fails_as_torch(torch: Any, case: Any) -> None:
    assert outcome(ctxgrad, case) == outcome(torch, case)


def test_a_failure_is_an_assertion_error_without_torch() -> None:
    with pytest.raises(AssertionError, match=r"Mismatched elements: 1 / 2 \(50.0%\)"):
        assert_close(ctxgrad.tensor([1.0, 2.0]), ctxgrad.tensor([1.0, 3.0]))
    assert_close(ctxgrad.tensor([1.0, 2.0]), ctxgrad.tensor([1.0, 2.0 + 1e-6]))  # within float32's tolerance
    with pytest.raises(AssertionError, match="The failure occurred for item \\['w'\\]\\[1\\]"):
        assert_close({"w": [ctxgrad.zeros(1), ctxgrad.zeros(1)]}, {"w": [ctxgrad.zeros(1), ctxgrad.ones(1)]})


def test_default_tolerances_are_the_loosest_of_the_dtypes() -> None:
    from ctxgrad.testing._comparison import default_tolerances

    assert default_tolerances(ctxgrad.float32) == (1.3e-6, 1e-5)
    assert default_tolerances(ctxgrad.float64, ctxgrad.float16) == (0.001, 1e-5)
    assert default_tolerances(ctxgrad.int64) == (0.0, 0.0)

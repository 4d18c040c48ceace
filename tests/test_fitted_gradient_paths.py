"""A gradient broadcast over its input is summed down the same way on both of the engine's paths.

When a backward returns a gradient of its output's shape for an input that was broadcast
(``x + bias``), the engine sums it down to the input's shape: with ``sum_to_size`` (an op,
recorded under ``create_graph``) or, when nothing records, with the same NumPy reduction
directly.  The two must agree bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

import ctxgrad
from ctxgrad._tensor import summed_to_shape

CASES = [((32, 16), (16,)), ((3, 1, 5), (1, 5)), ((4, 6, 5), (6, 1)), ((2, 3), (2, 3)), ((7,), ())]


def _grad_of_broadcast_input(shape: tuple[int, ...], small: tuple[int, ...], dtype: type, create_graph: bool):
    rng = np.random.default_rng(5)
    x = ctxgrad.tensor(rng.standard_normal(shape).astype(dtype))
    b = ctxgrad.tensor(rng.standard_normal(small).astype(dtype), requires_grad=True)
    upstream = ctxgrad.tensor(rng.standard_normal(shape).astype(dtype), requires_grad=create_graph)
    (g,) = ctxgrad.autograd.grad(x + b, b, upstream, create_graph=create_graph)
    return g


@pytest.mark.parametrize(("shape", "small"), CASES)
@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.float64])
def test_the_array_reduction_equals_sum_to_size(shape: tuple[int, ...], small: tuple[int, ...], dtype: type) -> None:
    on_arrays = _grad_of_broadcast_input(shape, small, dtype, create_graph=False)
    recorded = _grad_of_broadcast_input(shape, small, dtype, create_graph=True)
    assert not on_arrays.requires_grad and recorded.requires_grad  # (the second went through the op)
    assert on_arrays.shape == recorded.shape == small
    assert on_arrays.dtype == recorded.dtype
    np.testing.assert_array_equal(on_arrays.numpy(), recorded.detach().numpy())


@pytest.mark.parametrize(("shape", "small"), CASES)
def test_summed_to_shape_matches_torch_sum_to_size(shape: tuple[int, ...], small: tuple[int, ...]) -> None:
    torch = pytest.importorskip("torch")
    data = np.random.default_rng(9).standard_normal(shape)
    out = summed_to_shape(data, small)
    expected = torch.tensor(data).sum_to_size(small).numpy()
    assert out.shape == expected.shape
    np.testing.assert_allclose(out, expected, rtol=1e-13)
    if shape == small:  # nothing to sum: a copy, never the array itself
        assert out is not data and not np.shares_memory(out, data)

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


def assert_same_tensor(ours: Any, theirs: Any, rtol: float = 1e-6, atol: float = 0.0) -> None:
    assert _name(ours.dtype) == _name(theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=rtol, atol=atol, equal_nan=True)


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


NAN = float("nan")

# torch's LAPACK substitutes without skipping zero terms: a NaN anywhere in A makes the whole
# inverse (or solution) NaN, a NaN in a column of B that column of the solution.
NAN_SOLVES: list[tuple[str, Call]] = [
    ("inv nan first", lambda m: m.linalg.inv(m.tensor([[NAN, 0.0], [0.0, 1.0]]))),
    ("inv nan last", lambda m: m.linalg.inv(m.tensor([[2.0, 1.0, 0.0], [1.0, 3.0, 0.0], [0.0, 0.0, NAN]]))),
    ("inv nan float64", lambda m: m.inverse(m.tensor([[2.0, 0.0, 0.0], [0.0, NAN, 0.0], [0.0, 0.0, 3.0]]).double())),
    ("inv batch", lambda m: m.linalg.inv(m.tensor([[[NAN, 0.0], [0.0, 1.0]], [[2.0, 0.0], [0.0, 1.0]]]))),
    ("inv complex", lambda m: m.linalg.inv(m.tensor([[1 + 1j, NAN], [0, 1]], dtype=m.complex64))),
    ("inv inf", lambda m: m.linalg.inv(m.tensor([[float("inf"), 0.0], [0.0, 1.0]]))),
    ("solve nan in A", lambda m: m.linalg.solve(m.tensor([[NAN, 0.0], [0.0, 1.0]]), m.ones(2))),
    (
        "solve nan in B",
        lambda m: m.linalg.solve(m.tensor([[2.0, 1.0], [1.0, 3.0]]), m.tensor([[NAN, 1.0], [1.0, 1.0]])),
    ),
    (
        "solve right nan in B",
        lambda m: m.linalg.solve(m.tensor([[2.0, 1.0], [1.0, 3.0]]), m.tensor([[NAN, 1.0], [1.0, 1.0]]), left=False),
    ),
]


@pytest.mark.parametrize("call", [c[1] for c in NAN_SOLVES], ids=[c[0] for c in NAN_SOLVES])
def test_inverse_and_solve_spread_nan_as_torch(call: Call) -> None:
    ours, theirs = call(ctxgrad), call(torch)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6, equal_nan=True)
    if ours.is_complex():  # NaN in both parts, as torch's
        np.testing.assert_array_equal(np.isnan(ours.numpy().imag), np.isnan(theirs.numpy().imag))


INTERPOLATIONS: list[tuple[str, tuple[int, ...], Any, str]] = [
    ("2-d, twice as wide by 2.042", (1, 1, 7, 3), (2.303, 2.042), "nearest"),
    ("2-d, as long by 1.1", (1, 1, 3, 4), (1.1, 0.4), "nearest"),
    ("2-d, 1.7", (1, 1, 5, 5), 1.7, "nearest"),
    ("2-d, 0.6 by 1.3", (2, 3, 5, 5), (0.6, 1.3), "nearest"),
    ("2-d exact, 2.042", (1, 1, 3, 3), (1.0, 2.042), "nearest-exact"),
    ("1-d, twice as long by 2.042", (1, 1, 3), 2.042, "nearest"),
    ("1-d, as long by 1.1", (1, 2, 3), 1.1, "nearest"),
    ("3-d, twice as deep by 2.042", (1, 1, 3, 2, 2), (2.042, 1.0, 1.5), "nearest"),
    ("linear, as long by 1.009", (1, 1, 2), 1.009, "linear"),
    ("bilinear, as wide by 1.09", (1, 1, 7, 4), (3.452, 1.09), "bilinear"),
]


@pytest.mark.parametrize(
    ("shape", "scale", "mode"), [c[1:] for c in INTERPOLATIONS], ids=[c[0] for c in INTERPOLATIONS]
)
def test_interpolate_with_a_scale_factor_picks_torch_sources(shape: tuple[int, ...], scale: Any, mode: str) -> None:
    data = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)

    def run(m: Any) -> Any:
        extra = {} if mode.startswith("nearest") else {"align_corners": False}
        return m.nn.functional.interpolate(m.tensor(data), scale_factor=scale, mode=mode, **extra)

    assert_same(run)


def test_interpolate_scale_factors_fuzzed_against_torch() -> None:
    rng = np.random.default_rng(25)
    for _ in range(60):
        dims = int(rng.integers(1, 4))
        shape = (1, 1, *(int(n) for n in rng.integers(1, 8, size=dims)))
        scale = [float(np.round(rng.uniform(1.01 / n, 3.2), 3)) for n in shape[2:]]  # (an output of 1 or more)
        modes = ["nearest", "nearest-exact"] + (["bilinear"] if dims == 2 else ["linear"] if dims == 1 else [])
        mode = str(rng.choice(modes))
        data = rng.standard_normal(shape).astype(np.float32)
        extra: dict[str, Any] = {} if mode.startswith("nearest") else {"align_corners": False}
        theirs = torch.nn.functional.interpolate(torch.tensor(data), scale_factor=scale, mode=mode, **extra)
        ours = ctxgrad.nn.functional.interpolate(ctxgrad.tensor(data), scale_factor=scale, mode=mode, **extra)
        assert_same_tensor(ours, theirs, rtol=1e-5, atol=1e-5)  # (same sources; float32 blends)


def _u8(m: Any) -> Any:
    return m.tensor([1, 2], dtype=m.uint8)


# Integer operands of the ops that compute in float are each converted from their own values.
INTEGERS_AS_FLOAT: list[tuple[str, Call]] = [
    ("atan2 uint8, -2", lambda m: m.atan2(_u8(m), m.tensor(-2))),
    ("atan2 -2, uint8", lambda m: m.atan2(m.tensor(-2), _u8(m))),
    ("atan2 uint8, int8", lambda m: m.atan2(_u8(m), m.tensor([-3, 4], dtype=m.int8))),
    ("copysign uint8, -2", lambda m: m.copysign(_u8(m), -2)),
    ("copysign uint8, tensor -2", lambda m: m.copysign(_u8(m), m.tensor(-2))),
    ("xlogy uint8, -2", lambda m: m.xlogy(_u8(m), -2)),
    ("xlogy -2, uint8", lambda m: m.xlogy(-2, _u8(m))),
    ("special.xlogy", lambda m: m.special.xlogy(_u8(m), m.tensor(-2))),
    ("special.xlog1py", lambda m: m.special.xlog1py(m.tensor(-2), _u8(m))),
    ("div uint8, -2", lambda m: m.div(_u8(m), m.tensor(-2))),
]


@pytest.mark.parametrize("call", [c[1] for c in INTEGERS_AS_FLOAT], ids=[c[0] for c in INTEGERS_AS_FLOAT])
def test_integer_operands_become_floats_from_their_own_values(call: Call) -> None:
    assert_same(call, rtol=1e-6)


def _f16(m: Any) -> Any:
    return m.tensor([[300.0, 310.0, 290.0], [1e4, 1.0, 2.0]], dtype=m.float16)


# float16 norms accumulate in float32: no overflow for a norm that float16 holds.
HALF_NORMS: list[tuple[str, Call]] = [
    ("norm", lambda m: _f16(m)[0].norm()),
    ("vector_norm 2", lambda m: m.linalg.vector_norm(_f16(m), dim=1)),
    ("vector_norm 3", lambda m: m.linalg.vector_norm(_f16(m)[0], 3)),
    ("vector_norm 0.5", lambda m: m.linalg.vector_norm(_f16(m)[0], 0.5)),
    ("vector_norm 1", lambda m: m.linalg.vector_norm(_f16(m), 1, dim=0)),
    ("norm dim 0", lambda m: m.norm(_f16(m), dim=0)),
    ("linalg.norm", lambda m: m.linalg.norm(_f16(m)[:, :2])),
    ("matrix_norm", lambda m: m.linalg.matrix_norm(_f16(m)[:, :2])),
]


@pytest.mark.parametrize("call", [c[1] for c in HALF_NORMS], ids=[c[0] for c in HALF_NORMS])
def test_half_norms_accumulate_in_float32(call: Call) -> None:
    assert_same(call, rtol=1e-3)


def test_half_norm_gradient_matches_torch() -> None:
    def grad(m: Any) -> Any:
        x = m.tensor([300.0, 310.0, 290.0], dtype=m.float16, requires_grad=True)
        x.norm().backward()
        return x.grad

    assert_same(grad, rtol=1e-3)


@pytest.mark.parametrize(
    ("mean", "std"), [("float32", "float64"), ("float64", "float32"), ("float16", "float32"), ("float32", "float32")]
)
def test_normal_of_two_tensors_has_the_dtype_of_the_mean(mean: str, std: str) -> None:
    def dtypes(m: Any) -> tuple[str, ...]:
        mu = m.zeros(2, dtype=getattr(m, mean), requires_grad=True)
        sigma = m.ones(2, dtype=getattr(m, std), requires_grad=True)
        sample = m.normal(mu, sigma)
        sample.sum().backward()
        broadcast = m.normal(m.zeros((), dtype=getattr(m, mean)), m.ones(3, dtype=getattr(m, std)))
        return tuple(_name(t.dtype) for t in (sample, mu.grad, sigma.grad, broadcast))

    assert dtypes(ctxgrad) == dtypes(torch)
    assert dtypes(ctxgrad)[0] == mean


# A NaN is not equal to a NaN: unique keeps each; torch's searches go right at a NaN.
NAN_ORDERS: list[tuple[str, Call]] = [
    ("unique", lambda m: m.unique(m.tensor([1.0, NAN, NAN, 0.0, 1.0]))),
    ("unique unsorted", lambda m: m.unique(m.tensor([1.0, NAN, NAN, 0.0]), sorted=False)),
    (
        "unique inverse counts",
        lambda m: m.unique(m.tensor([1.0, NAN, NAN, 0.0, 1.0]), return_inverse=True, return_counts=True),
    ),
    (
        "unique infinities",
        lambda m: m.unique(m.tensor([float("inf"), NAN, -float("inf"), NAN]), return_counts=True),
    ),
    ("unique rows", lambda m: m.unique(m.tensor([NAN, 1.0]).repeat(2, 1), dim=0, return_counts=True)),
    ("unique_consecutive", lambda m: m.unique_consecutive(m.tensor([1.0, NAN, NAN, 1.0]), return_counts=True)),
    ("searchsorted", lambda m: m.searchsorted(m.tensor([0.0, 1.0, NAN]), m.tensor([NAN, 0.5, 2.0, -1.0]))),
    (
        "searchsorted right",
        lambda m: m.searchsorted(m.tensor([0.0, 1.0, NAN]), m.tensor([NAN, 0.5, 2.0]), right=True),
    ),
    ("searchsorted two NaN", lambda m: m.searchsorted(m.tensor([0.0, 1.0, NAN, NAN]), m.tensor([NAN, 1.0]))),
    ("searchsorted NaN value", lambda m: m.searchsorted(m.tensor([0.0, 1.0, 2.0]), m.tensor([NAN]))),
    ("searchsorted scalar", lambda m: m.searchsorted(m.tensor([0.0, 1.0, NAN]), NAN)),
    (
        "searchsorted sorter",
        lambda m: m.searchsorted(m.tensor([NAN, 0.0, 1.0]), m.tensor([NAN, 0.5]), sorter=m.tensor([1, 2, 0])),
    ),
    (
        "searchsorted rows",
        lambda m: m.searchsorted(m.tensor([[0.0, NAN], [1.0, 2.0]]), m.tensor([[1.0, NAN], [1.5, NAN]]), right=True),
    ),
    ("searchsorted empty rows", lambda m: m.searchsorted(m.zeros(2, 0), m.tensor([[1.0], [NAN]]))),
    ("bucketize", lambda m: m.bucketize(m.tensor([NAN, 0.5, 2.0]), m.tensor([0.0, 1.0, NAN]))),
    ("mode NaN first", lambda m: tuple(m.mode(m.tensor([NAN, NAN, 1.0])))),
    ("mode NaN runs", lambda m: tuple(m.mode(m.tensor([NAN, 2.0, 2.0, NAN, NAN])))),
    ("mode tie with NaN", lambda m: tuple(m.mode(m.tensor([NAN, 1.0, NAN, 1.0])))),
    ("mode jumps a NaN", lambda m: tuple(m.mode(m.tensor([2.0, NAN, 5.0, NAN, 2.0])))),
    ("mode rows", lambda m: tuple(m.mode(m.tensor([[NAN, 1.0, NAN], [3.0, 3.0, NAN]]), dim=1))),
]


@pytest.mark.parametrize("call", [c[1] for c in NAN_ORDERS], ids=[c[0] for c in NAN_ORDERS])
def test_nan_handling_matches_torch(call: Call) -> None:
    assert_same(call)


@pytest.mark.parametrize("nan_share", [0.0, 0.3])
def test_mode_reports_torch_index_fuzzed(nan_share: float) -> None:
    """Past 16 elements torch's mode reports the index its unstable sort leaves last in the run
    (and with NaN, where that sort puts the NaNs): checked on random rows of up to 120."""
    rng = np.random.default_rng(25)
    for _ in range(80):
        row = rng.integers(0, int(rng.integers(1, 7)), size=int(rng.integers(1, 120))).astype(np.float32)
        row[rng.random(row.size) < nan_share] = np.nan
        ours, theirs = ctxgrad.mode(ctxgrad.tensor(row)), torch.mode(torch.tensor(row))
        assert ours.indices.item() == theirs.indices.item(), row.tolist()
        np.testing.assert_array_equal(ours.values.numpy(), theirs.values.numpy())


def test_searchsorted_with_nan_fuzzed() -> None:
    rng = np.random.default_rng(25)
    for _ in range(150):
        sequence = np.sort(rng.integers(0, 5, size=int(rng.integers(0, 12))).astype(np.float32))
        sequence[rng.random(sequence.size) < 0.3] = np.nan
        values = rng.integers(-1, 6, size=5).astype(np.float32)
        values[rng.random(5) < 0.3] = np.nan
        right = bool(rng.integers(0, 2))
        theirs = torch.searchsorted(torch.tensor(sequence), torch.tensor(values), right=right)
        ours = ctxgrad.searchsorted(ctxgrad.tensor(sequence), ctxgrad.tensor(values), right=right)
        assert ours.tolist() == theirs.tolist(), (sequence.tolist(), values.tolist(), right)


def test_unique_with_nan_fuzzed() -> None:
    """Every NaN a value of its own, and past 16 elements the NaNs' slots in the inverse in the
    order torch's unstable sort leaves them."""
    rng = np.random.default_rng(25)
    for _ in range(60):
        data = rng.integers(0, 5, size=(2, int(rng.integers(1, 40)))).astype(np.float64)
        data[rng.random(data.shape) < 0.4] = np.nan

        def run(m: Any, values: np.ndarray = data) -> Any:
            return m.unique(m.tensor(values), return_inverse=True, return_counts=True)

        assert_same(run)

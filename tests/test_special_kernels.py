"""The special functions' kernels (ctxgrad/ops/_special_kernels.py) on both paths: SciPy's, and
the NumPy fallback forced with ``PREFER_SCIPY = False``, each against torch (and the fallback
against SciPy) in float64, with the edges (inf, NaN, -0, the poles, empty input); and the
vectorised running extremes of ``cummax``/``cummin`` against torch on ties, NaN and -0."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

import ctxgrad
from ctxgrad.ops import _special_kernels

PATHS = ["scipy", "numpy"]


@pytest.fixture(params=PATHS)
def path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """Each test once with SciPy's kernels (skipped without SciPy) and once with NumPy's."""
    if request.param == "scipy":
        pytest.importorskip("scipy.special")
    monkeypatch.setattr(_special_kernels, "PREFER_SCIPY", request.param == "scipy")
    yield request.param


def _wide_grid() -> np.ndarray:
    rng = np.random.default_rng(0)
    return np.concatenate(
        [
            rng.standard_normal(20_000) * 3,
            rng.uniform(-40, 40, 20_000),
            np.exp(rng.uniform(-700, 700, 20_000)),
            -np.exp(rng.uniform(-30, 4, 20_000)),
            np.linspace(-6, 6, 4001),
        ]
    )


def _relative_error(ours: np.ndarray, exact: np.ndarray, floor: float = 1e-300) -> np.ndarray:
    with np.errstate(all="ignore"):
        err = np.abs(ours - exact) / np.maximum(np.abs(exact), floor)
    same = (ours == exact) | (np.isnan(ours) & np.isnan(exact))
    return np.where(same, 0.0, err)


def test_numpy_erf_and_erfc_match_scipy_and_the_c_library_to_an_ulp_or_two() -> None:
    special = pytest.importorskip("scipy.special")
    x = _wide_grid()
    assert _relative_error(_special_kernels._erf_numpy(x), special.erf(x)).max() < 5e-16
    # erfc against the C library's (torch's); SciPy's (Faddeeva's) is itself 1.5e-14 off far out
    c_library = np.array([math.erfc(v) for v in x])
    normal = c_library > 1e-300  # (below, the subnormal results keep fewer digits in both)
    ours = _special_kernels._erfc_numpy(x)
    assert _relative_error(ours[normal], c_library[normal]).max() < 3e-15
    assert _relative_error(ours[normal], special.erfc(x)[normal]).max() < 1e-13
    # the subnormal tail, where SciPy's erfc is already 0: the C library's within its last unit
    deep = np.linspace(26.2, 27.5, 2001)  # (erfc(26.65) is about 1e-310)
    np.testing.assert_allclose(
        _special_kernels._erfc_numpy(deep), [math.erfc(v) for v in deep], rtol=3e-15, atol=1e-323
    )


def test_numpy_lgamma_matches_scipy_to_2e_13_and_an_absolute_1e_15_near_its_zeros() -> None:
    # (3e-14 with NumPy 2 and a recent SciPy; the oldest NumPy and SciPy we support, 1.26 and
    # 1.9, differ from them in the last bits of log and gammaln: 1e-13 was measured there)
    special = pytest.importorskip("scipy.special")
    x = _wide_grid()
    x = x[~((x <= 0) & (x == np.floor(x)))]
    ours, exact = _special_kernels._lgamma_numpy(x), special.gammaln(x)
    near_zeros = (np.abs(x - 1) < 0.05) | (np.abs(x - 2) < 0.05)  # (lgamma is 0 at 1 and 2)
    assert _relative_error(ours[~near_zeros], exact[~near_zeros]).max() < 2e-13
    assert np.abs(ours[near_zeros] - exact[near_zeros]).max() < 1e-15


@pytest.mark.parametrize(
    "name", ["erf", "erfc", "lgamma", "digamma", "erfinv", "i0", "special.i0e", "special.i1", "special.i1e",
             "special.log_ndtr", "special.ndtri", "polygamma1", "polygamma2", "polygamma3", "gelu"],
)  # fmt: skip
def test_values_and_gradients_on_both_paths_match_torch(path: str, name: str) -> None:
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(1)
    if name == "erfinv":
        values = rng.uniform(-0.999, 0.999, 300)
    elif name == "special.ndtri":
        values = rng.uniform(1e-6, 1 - 1e-6, 300)
    else:
        values = np.concatenate([rng.uniform(-20, 20, 200), rng.standard_normal(100)])

    def run(m: Any, t: Any) -> Any:
        if name.startswith("polygamma"):
            return m.polygamma(int(name[-1]), t)
        if name == "gelu":
            return m.nn.functional.gelu(t)
        fn: Any = m
        for part in name.split("."):
            fn = getattr(fn, part)
        return fn(t)

    ours_in = ctxgrad.tensor(values, requires_grad=True)
    theirs_in = torch.tensor(values, requires_grad=True)
    ours, theirs = run(ctxgrad, ours_in), run(torch, theirs_in)
    # (torch's own digamma, polygamma and erfinv are good to about 1e-9 relative)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-8, atol=1e-12)
    weights = rng.standard_normal(values.shape)
    (ours * ctxgrad.tensor(weights)).sum().backward()
    (theirs * torch.tensor(weights)).sum().backward()
    assert ours_in.grad is not None and theirs_in.grad is not None
    np.testing.assert_allclose(ours_in.grad.numpy(), theirs_in.grad.numpy(), rtol=1e-8, atol=1e-12)


EDGES = [
    0.0,
    -0.0,
    1.0,
    2.0,
    -1.0,
    -2.0,
    -2.5,
    -35.5,
    -40.0,
    1e-300,
    5e-324,
    171.7,
    1e308,
    math.inf,
    -math.inf,
    math.nan,
]


@pytest.mark.parametrize("name", ["erf", "erfc", "lgamma", "digamma"])
def test_edges_on_both_paths_match_torch(path: str, name: str) -> None:
    """inf, NaN, signed zeros, the poles and the reflection region below -34, exactly."""
    torch = pytest.importorskip("torch")
    ours = getattr(ctxgrad, name)(ctxgrad.tensor(np.array(EDGES))).numpy()
    theirs = getattr(torch, name)(torch.tensor(EDGES, dtype=torch.float64)).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-13, atol=0)
    number = ~np.isnan(theirs)
    assert np.array_equal(np.signbit(ours[number]), np.signbit(theirs[number]))


def test_erfinv_keeps_the_sign_of_zero_and_is_infinite_at_one_and_nan_outside(path: str) -> None:
    torch = pytest.importorskip("torch")
    values = [0.0, -0.0, 1.0, -1.0, 1.5, -1.5, math.nan]
    ours = ctxgrad.erfinv(ctxgrad.tensor(np.array(values))).numpy()
    theirs = torch.erfinv(torch.tensor(values, dtype=torch.float64)).numpy()
    np.testing.assert_array_equal(ours, theirs)
    assert np.array_equal(np.signbit(ours[:4]), np.signbit(theirs[:4]))


@pytest.mark.parametrize("name", ["erf", "erfc", "lgamma", "digamma", "erfinv"])
def test_empty_and_float32_inputs_keep_their_shape_and_dtype(path: str, name: str) -> None:
    torch = pytest.importorskip("torch")
    for values, dtype in [(np.zeros((0, 3)), "float64"), (np.array([0.25, -0.5, 1.5], dtype=np.float32), "float32")]:
        ours = getattr(ctxgrad, name)(ctxgrad.tensor(values, dtype=getattr(ctxgrad, dtype)))
        theirs = getattr(torch, name)(torch.tensor(values, dtype=getattr(torch, dtype)))
        assert tuple(ours.shape) == tuple(theirs.shape)
        assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1] == dtype
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5)  # (torch's float32 kernels)


def test_the_fallback_is_what_runs_when_scipy_is_not_preferred(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_special_kernels, "PREFER_SCIPY", False)
    assert _special_kernels.scipy_special() is None
    x = np.array([0.5, -3.25, 7.0])
    np.testing.assert_array_equal(_special_kernels.lgamma(x), _special_kernels._lgamma_numpy(x))
    np.testing.assert_array_equal(_special_kernels.erf(x), _special_kernels._erf_numpy(x))
    np.testing.assert_array_equal(_special_kernels.erfc(x), _special_kernels._erfc_numpy(x))


@pytest.mark.parametrize("name", ["cummax", "cummin"])
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "bool"])
def test_running_extremes_match_torch_on_ties_nan_and_signed_zeros(name: str, dtype: str) -> None:
    torch = pytest.importorskip("torch")
    rng = np.random.default_rng(2)
    for shape, dim in [((4, 9), 1), ((9, 3, 2), 0), ((2, 0, 3), 1), ((2, 3, 0), 2), ((), 0)]:
        values = rng.integers(-2, 3, size=shape).astype(dtype)
        if dtype.startswith("float") and values.ndim:
            values[rng.random(shape) < 0.15] = math.nan
            values[rng.random(shape) < 0.15] = -0.0
        ours_values, ours_indices = getattr(ctxgrad, name)(ctxgrad.tensor(values), dim)
        theirs_values, theirs_indices = getattr(torch, name)(torch.tensor(values), dim)
        np.testing.assert_array_equal(ours_indices.numpy(), theirs_indices.numpy())
        np.testing.assert_array_equal(ours_values.numpy(), theirs_values.numpy())
        np.testing.assert_array_equal(np.signbit(ours_values.numpy()), np.signbit(theirs_values.numpy()))


def test_running_maximum_gradient_goes_to_the_latest_tie_as_torch() -> None:
    torch = pytest.importorskip("torch")
    values = np.array([[1.0, 3.0, 3.0, 2.0, math.nan, 5.0], [0.0, -1.0, 0.0, 4.0, 4.0, 1.0]])
    ours, theirs = ctxgrad.tensor(values, requires_grad=True), torch.tensor(values, requires_grad=True)
    weights = np.arange(12.0).reshape(2, 6)
    (ctxgrad.cummax(ours, 1).values * ctxgrad.tensor(weights)).sum().backward()
    (torch.cummax(theirs, 1).values * torch.tensor(weights)).sum().backward()
    assert ours.grad is not None and theirs.grad is not None
    np.testing.assert_array_equal(ours.grad.numpy(), theirs.grad.numpy())


def test_zero_dimensional_input_on_both_paths_matches_torch(path: str) -> None:
    torch = pytest.importorskip("torch")
    for name, value in [("erf", 0.5), ("erfc", 27.0), ("erfc", -1.5), ("lgamma", -2.5), ("digamma", 3.0)]:
        ours = getattr(ctxgrad, name)(ctxgrad.tensor(np.array(value)))
        theirs = getattr(torch, name)(torch.tensor(value, dtype=torch.float64))
        assert tuple(ours.shape) == () and ours.dtype == ctxgrad.float64
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-14, atol=0)

"""Statistics and scans: ``nansum``/``nanmean``, ``count_nonzero``, ``aminmax``,
``cummax``/``cummin``, ``logcumsumexp``, ``std_mean``/``var_mean``, ``mode``, ``nanmedian``,
``quantile``/``nanquantile``, ``diff``, ``trapezoid``/``cumulative_trapezoid``,
``cov``/``corrcoef``, ``renorm``, and the counting ops ``unique``, ``unique_consecutive``,
``bincount``, ``histc``.

The kit table checks values (NumPy), values, gradients and float32 (torch), central
differences, forward mode and double backward; the plain tests check the integer-valued and
tie-breaking results, grad_fn names and torch's errors.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _opcheck import Case, OpFamilyTests, any_, make_inputs
from _support import raised

import ctxgrad

#: NumPy 2 spells it trapezoid; NumPy 1.26 (the floor) only trapz.
_trapezoid = getattr(np, "trapezoid", None) or np.trapz


def _with_nans(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    a = rng.standard_normal(shape)
    a[rng.random(shape) < 0.3] = np.nan
    return a


def _distinct_with_nans(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    n = int(np.prod(shape))
    a = ((rng.permutation(n) - n / 2) * 0.37).reshape(shape)
    a[rng.random(shape) < 0.25] = np.nan
    return a


def _distinct(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    n = int(np.prod(shape))
    return ((rng.permutation(n) - n / 2) * 0.37 + rng.uniform(-0.05, 0.05, n)).reshape(shape)


def _q(m: Any, a: Any, values: list[float]) -> Any:
    return m.tensor(values, dtype=a.dtype)


def _cummax_ref(fn: Any) -> Callable[..., Any]:
    return lambda m, a: fn.accumulate(a, axis=1)


CASES = [
    Case("nansum", lambda m, a: m.nansum(a), [((3, 4), _with_nans)]),
    Case(
        "nansum-dim-keepdim",
        lambda m, a: a.nansum(1, keepdim=True),
        [((3, 4), _with_nans)],
        ref=lambda m, a: np.nansum(a, 1, keepdims=True),
    ),
    Case("nanmean-dim", lambda m, a: a.nanmean(0), [((4, 3), _with_nans)], ref=lambda m, a: np.nanmean(a, 0)),
    Case("nanmean-dims", lambda m, a: m.nanmean(a, (0, 2)), [((2, 3, 4), _with_nans)]),
    Case(
        "aminmax-dim",
        lambda m, a: m.stack([v * (i + 1.0) for i, v in enumerate(m.aminmax(a, dim=1))]),
        [((3, 4), "distinct")],
        ref=lambda m, a: np.stack([a.min(1), 2 * a.max(1)]),
    ),
    Case(
        "aminmax-all-keepdim",
        lambda m, a: m.aminmax(a, keepdim=True).max - m.aminmax(a).min,
        [((2, 3), "distinct")],
        ref=lambda m, a: np.reshape(a.max() - a.min(), (1, 1)),
    ),
    Case("cummax", lambda m, a: a.cummax(1).values, [((3, 5), "distinct")], ref=_cummax_ref(np.maximum)),
    Case("cummin", lambda m, a: m.cummin(a, 1)[0], [((3, 5), "distinct")], ref=_cummax_ref(np.minimum)),
    Case(
        "logcumsumexp",
        lambda m, a: a.logcumsumexp(0),
        any_((4, 3)),
        ref=lambda m, a: np.logaddexp.accumulate(a, axis=0),
    ),
    Case(
        "logcumsumexp-large",
        lambda m, a: m.logcumsumexp(a * 300.0, -1),
        any_((2, 5)),
        ref=lambda m, a: np.logaddexp.accumulate(a * 300.0, axis=-1),
        bugs={
            "jvp": (
                "torch's forward AD of logcumsumexp underflows for inputs this large "
                "(ctxgrad's tangent is checked by central differences)"
            )
        },
    ),
    Case(
        "std_mean",
        lambda m, a: m.stack(list(m.std_mean(a, 1))),
        any_((3, 4)),
        ref=lambda m, a: np.stack([a.std(1, ddof=1), a.mean(1)]),
    ),
    Case(
        "var_mean-correction",
        lambda m, a: m.stack(list(m.var_mean(a, 0, keepdim=True, correction=0))) * 2.0,
        any_((3, 4)),
        ref=lambda m, a: np.stack([a.var(0, keepdims=True), a.mean(0, keepdims=True)]) * 2.0,
    ),
    Case(
        "nanmedian", lambda m, a: a.nanmedian(), [((3, 4), _distinct_with_nans)], ref=lambda m, a: _lower_nanmedian(a)
    ),
    Case(
        "nanmedian-dim",
        lambda m, a: a.nanmedian(1).values,
        [((4, 5), _distinct_with_nans)],
        ref=lambda m, a: np.array([_lower_nanmedian(r) for r in a]),
    ),
    Case(
        "quantile-dim-q-tensor",
        lambda m, a: a.quantile(_q(m, a, [0.1, 0.5, 0.9]), dim=1),
        [((3, 6), "distinct")],
        ref=lambda m, a: np.quantile(a, [0.1, 0.5, 0.9], axis=1),
    ),
    Case("quantile-all", lambda m, a: m.quantile(a, 0.3), [((3, 4), "distinct")]),
    Case(
        "quantile-keepdim",
        lambda m, a: a.quantile(0.75, 0, keepdim=True),
        [((5, 2), "distinct")],
        ref=lambda m, a: np.quantile(a, 0.75, axis=0, keepdims=True),
    ),
    *(
        Case(
            f"quantile-{method}",
            lambda m, a, method=method: a.quantile(0.4, -1, interpolation=method),
            [((3, 6), "distinct")],
            ref=lambda m, a, method=method: np.quantile(a, 0.4, axis=-1, method=method),
        )
        for method in ("lower", "higher", "midpoint", "nearest")
    ),
    Case(
        "nanquantile",
        lambda m, a: a.nanquantile(_q(m, a, [0.25, 0.6]), 1),
        [((4, 6), _distinct_with_nans)],
        ref=lambda m, a: np.nanquantile(a, [0.25, 0.6], axis=1),
    ),
    Case("diff", lambda m, a: a.diff(), any_((3, 4)), ref=lambda m, a: np.diff(a)),
    Case("diff-n2-dim0", lambda m, a: m.diff(a, 2, 0), any_((5, 2)), ref=lambda m, a: np.diff(a, 2, 0)),
    Case(
        "diff-prepend-append",
        lambda m, a, p, q: m.diff(a, dim=1, prepend=p, append=q),
        any_((2, 3), (2, 1), (2, 2)),
        ref=lambda m, a, p, q: np.diff(a, axis=1, prepend=p, append=q),
    ),
    Case("trapezoid", lambda m, a: m.trapezoid(a), any_((3, 4)), ref=lambda m, a: _trapezoid(a)),
    Case(
        "trapezoid-dx",
        lambda m, a: m.trapezoid(a, dx=0.5, dim=0),
        any_((3, 4)),
        ref=lambda m, a: _trapezoid(a, dx=0.5, axis=0),
    ),
    Case(
        "trapezoid-x",
        lambda m, y, x: m.trapezoid(y, x),
        any_((2, 4), (4,)),
        ref=lambda m, y, x: _trapezoid(y, x),
    ),
    Case(
        "cumulative_trapezoid",
        lambda m, a: m.cumulative_trapezoid(a, dim=0),
        any_((4, 3)),
        ref=lambda m, a: np.cumsum((a[1:] + a[:-1]) / 2.0, axis=0),
    ),
    Case("cov", lambda m, a: a.cov(), any_((3, 5)), ref=lambda m, a: np.cov(a)),
    Case("cov-1d", lambda m, a: m.cov(a, correction=0), any_((5,)), ref=lambda m, a: np.cov(a, ddof=0)),
    Case(
        "cov-weights",
        lambda m, a, w: m.cov(a, fweights=m.tensor([1, 2, 1, 3]), aweights=w),
        [((2, 4), "any"), ((4,), "pos")],
        ref=lambda m, a, w: np.cov(a, fweights=[1, 2, 1, 3], aweights=w),
    ),
    Case("corrcoef", lambda m, a: a.corrcoef(), any_((3, 6)), ref=lambda m, a: np.corrcoef(a)),
    Case(
        "renorm",
        lambda m, a: a.renorm(2, 0, 1.5),
        any_((3, 4)),
        ref=lambda m, a: a * np.where((n := np.linalg.norm(a, axis=1, keepdims=True)) > 1.5, 1.5 / (n + 1e-7), 1.0),
    ),
    Case("dist", lambda m, a, b: m.dist(a, b), any_((2, 3), (3,)), ref=lambda m, a, b: np.linalg.norm((a - b).ravel())),
    Case(
        "dist-p",
        lambda m, a, b: a.dist(b, 3) + a.dist(b, 1) + m.dist(a, b, float("inf")),
        [((2, 3), "distinct"), ((2, 3), "any")],
        ref=lambda m, a, b: sum(np.linalg.norm((a - b).ravel(), p) for p in (3, 1, np.inf)),
    ),
    Case(
        "gradient",
        lambda m, a: m.stack(list(m.gradient(a))),
        any_((3, 4)),
        ref=lambda m, a: np.stack(np.gradient(a)),
    ),
    Case(
        "gradient-spacing-edge-order-2",
        lambda m, a: m.gradient(a, spacing=0.5, dim=1, edge_order=2)[0],
        any_((2, 5)),
        ref=lambda m, a: np.gradient(a, 0.5, axis=1, edge_order=2),
    ),
    Case(
        "gradient-coordinates",
        lambda m, a: m.gradient(a, spacing=[m.tensor([0.0, 1.0, 3.0, 3.5], dtype=a.dtype)], dim=0)[0],
        any_((4, 2)),
        ref=lambda m, a: np.gradient(a, [0.0, 1.0, 3.0, 3.5], axis=0),
    ),
    Case(
        "gradient-coordinates-edge-order-2",
        lambda m, a: m.gradient(a, spacing=(m.tensor([0.0, 0.5, 2.0, 2.5, 4.0], dtype=a.dtype),), dim=-1, edge_order=2)[
            0
        ],
        any_((2, 5)),
        ref=lambda m, a: np.gradient(a, [0.0, 0.5, 2.0, 2.5, 4.0], axis=-1, edge_order=2),
    ),
    Case("msort", lambda m, a: m.msort(a), [((4, 3), "distinct")], ref=lambda m, a: np.sort(a, 0)),
    Case(
        "renorm-inf-p3",
        lambda m, a: a.renorm(float("inf"), 1, 1.0) + m.renorm(a, 3, -1, 1.2),
        [((3, 4), "distinct")],
        ref=lambda m, a: (
            a * np.where((n := np.abs(a).max(0, keepdims=True)) > 1.0, 1.0 / (n + 1e-7), 1.0)
            + a * np.where((k := (np.abs(a) ** 3).sum(0, keepdims=True) ** (1 / 3)) > 1.2, 1.2 / (k + 1e-7), 1.0)
        ),
    ),
    Case(
        "renorm-p1-dim1",
        lambda m, a: m.renorm(a, 1, 1, 2.0),
        any_((3, 4)),
        ref=lambda m, a: a * np.where((n := np.abs(a).sum(0, keepdims=True)) > 2.0, 2.0 / (n + 1e-7), 1.0),
    ),
]


def _lower_nanmedian(a: np.ndarray) -> float:
    kept = np.sort(a[~np.isnan(a)])
    return float(kept[(kept.size - 1) // 2]) if kept.size else float("nan")


def _sq(op: Callable[..., Any]) -> Callable[..., Any]:
    return lambda m, *xs: op(m, *xs) ** 2


DOUBLE_CASES = [
    Case("nansum", _sq(lambda m, a: a.nansum(0)), [((3, 4), _with_nans)]),
    Case("aminmax", _sq(lambda m, a: m.aminmax(a, dim=0).max), [((3, 4), "distinct")]),
    Case("cummax", _sq(lambda m, a: a.cummax(0).values), [((4, 2), "distinct")]),
    Case("logcumsumexp", lambda m, a: a.logcumsumexp(1), any_((2, 4))),
    Case("nanmedian-dim", _sq(lambda m, a: a.nanmedian(0).values), [((4, 3), _distinct_with_nans)]),
    Case("quantile", lambda m, a: a.quantile(0.3, 1) ** 2, [((2, 5), "distinct")]),
    Case("diff", _sq(lambda m, a: a.diff(2)), any_((2, 5))),
    Case("trapezoid-x", lambda m, y, x: m.trapezoid(y, x), any_((2, 4), (4,))),
    Case("cov", lambda m, a: a.cov(), any_((2, 4))),
    Case("corrcoef", lambda m, a: a.corrcoef(), any_((2, 5))),
    Case("renorm", lambda m, a: a.renorm(2, 0, 1.0), any_((3, 3))),
    Case("renorm-p3", lambda m, a: a.renorm(3, 1, 0.8), any_((3, 3))),
    Case("dist", lambda m, a, b: a.dist(b, 3), any_((2, 3), (2, 3))),
    Case("gradient", lambda m, a: m.gradient(a, edge_order=2)[0] ** 2, any_((4, 3))),
]


class TestStatisticsOps(OpFamilyTests):
    cases = CASES
    double_cases = DOUBLE_CASES


# --------------------------------------------------------------------------- ties, indices, counting


def _pairs(ct: Any, tt: Any) -> None:
    assert ct.shape == tt.shape, (ct, tt)
    np.testing.assert_array_equal(ct.numpy(), tt.numpy())
    assert str(ct.dtype) == str(tt.dtype).replace("torch.", "ctxgrad.")


RESULTS: dict[str, Callable[[Any], Any]] = {
    "mode-ties": lambda m: m.tensor([[1.0, 2, 2, 3, 3, 1], [5, 5, 4, 4, 6, 6]]).mode(1),
    "mode-1d": lambda m: m.mode(m.tensor([3, 1, 3, 1, 2])),
    "mode-dim0-keepdim": lambda m: m.tensor([[1, 2], [1, 3], [2, 3]]).mode(0, keepdim=True),
    "cummax-ties-and-nan": lambda m: m.tensor([1.0, 3, 3, 2, float("nan"), 5, float("nan")]).cummax(0),
    "cummin-ties": lambda m: m.cummin(m.tensor([3, 1, 1, 2]), 0),
    "nanmedian-dim-ties-and-nan": lambda m: m.tensor([[1.0, 2, 2, 3, 3, 1], [float("nan"), 1, 2, 0, 4, 5]]).nanmedian(
        1
    ),
    "nanmedian-all-nan-row": lambda m: m.tensor([[float("nan")] * 3, [2.0, 1, 3]]).nanmedian(1),
    "aminmax-ints": lambda m: m.aminmax(m.tensor([[3, 1], [2, 5]]), dim=0),
    "count_nonzero": lambda m: m.tensor([[0, 1, 2], [0, 0, 3]]).count_nonzero(),
    "count_nonzero-dims": lambda m: m.count_nonzero(m.tensor([[[0, 1], [2, 0]]]), dim=(0, 2)),
    "nansum-ints": lambda m: m.tensor([1, 2, 3], dtype=m.int32).nansum(),
    "unique": lambda m: m.unique(m.tensor([3, 1, 2, 1, 3])),
    "unique-inverse-counts": lambda m: m.tensor([3.0, 1, 2, 1]).unique(return_inverse=True, return_counts=True),
    "unique-counts": lambda m: m.tensor([[2, 2], [1, 2]]).unique(return_counts=True),
    "unique-dim": lambda m: m.unique(
        m.tensor([[1, 2], [1, 2], [0, 5]]), dim=0, return_inverse=True, return_counts=True
    ),
    "unique-dim1": lambda m: m.unique(m.tensor([[1, 0, 1], [2, 5, 2]]), dim=1),
    "unique_consecutive": lambda m: m.unique_consecutive(
        m.tensor([1, 1, 2, 2, 3, 1, 1]), return_inverse=True, return_counts=True
    ),
    "unique_consecutive-dim": lambda m: m.tensor([[1, 1, 2], [3, 3, 4]]).unique_consecutive(dim=1),
    "bincount": lambda m: m.tensor([0, 1, 1, 3]).bincount(),
    "bincount-minlength": lambda m: m.bincount(m.tensor([0, 1]), minlength=4),
    "bincount-weights-float32": lambda m: m.tensor([0, 1, 1]).bincount(m.tensor([0.5, 1.0, 2.0])),
    "bincount-weights-float64": lambda m: m.tensor([2, 0]).bincount(m.tensor([0.5, 1.0], dtype=m.float64)),
    "bincount-weights-int": lambda m: m.tensor([2, 0]).bincount(m.tensor([3, 4])),
    "histc": lambda m: m.histc(m.tensor([1.0, 2, 1]), bins=4, min=0, max=3),
    "histc-data-range": lambda m: m.tensor([[1.0, 2, 1], [4, 0, 3]]).histc(5),
    "histc-constant": lambda m: m.tensor([1.0, 1, 1]).histc(bins=4),
    "histc-outside-ignored": lambda m: m.tensor([-1.0, 0.5, 9.0]).histc(bins=2, min=0, max=1),
    "histogram": lambda m: m.histogram(m.tensor([1.0, 2, 1, 4, 2.5]), bins=4),
    "histogram-range-density": lambda m: m.tensor([1.0, 2, 1, 4, 2.5]).histogram(4, range=(0.0, 4.0), density=True),
    "histogram-edges-weights": lambda m: m.histogram(
        m.tensor([1.0, 2, 1, 4, 2.5], dtype=m.float64),
        bins=m.tensor([0.0, 1.5, 3, 5], dtype=m.float64),
        weight=m.tensor([1.0, 2, 3, 4, 5], dtype=m.float64),
    ),
    "histogram-constant": lambda m: m.histogram(m.tensor([2.0, 2.0]), 2),
}


@pytest.mark.parametrize("name", RESULTS)
def test_results_match_torch(torch: Any, name: str) -> None:
    c, t = RESULTS[name](ctxgrad), RESULTS[name](torch)
    if isinstance(t, tuple):
        assert type(c).__name__ == type(t).__name__ and len(c) == len(t)
        for ci, ti in zip(c, t):
            _pairs(ci, ti)
    else:
        _pairs(c, t)


def _small_ints(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Integers 0..3 as floats: isin finds some, nonzero_static meets zeros."""
    return rng.integers(0, 4, shape).astype(np.float64)


#: Ops with bool, integer or hash results, so with no gradient for the kit table to check:
#: their values against torch below, and under vmap against the per-sample loop
#: (test_vmap_rules; histogramdd there is one of torch.func's refusals).
NOT_DIFFERENTIABLE = [
    Case("isin", lambda m, a, b: m.isin(a, b), [((2, 3), _small_ints), ((3,), _small_ints)]),
    Case("isin-invert", lambda m, a, b: m.isin(a, b, invert=True), [((4,), _small_ints), ((2, 2), _small_ints)]),
    Case("isin-number", lambda m, b: m.isin(2.0, b), [((3,), _small_ints)]),
    Case("hash_tensor", lambda m, a: m.hash_tensor(a), any_((2, 3))),
    Case("hash_tensor-dim", lambda m, a: m.hash_tensor(a, 1, keepdim=True), any_((2, 3))),
    Case("nonzero_static", lambda m, a: m.nonzero_static(a, size=4), [((2, 3), _small_ints)]),
    Case("nonzero_static-fill", lambda m, a: m.nonzero_static(a, size=3, fill_value=9), [((2,), _small_ints)]),
    Case("histogramdd", lambda m, a: m.histogramdd(a, 2).hist, any_((4, 2))),
]


@pytest.mark.parametrize("case", NOT_DIFFERENTIABLE, ids=[c.id for c in NOT_DIFFERENTIABLE])
def test_not_differentiable_cases_match_torch(torch: Any, case: Case) -> None:
    arrays = make_inputs(case.inputs, case.seed)
    _pairs(case.fn(ctxgrad, *map(ctxgrad.tensor, arrays)), case.fn(torch, *map(torch.tensor, arrays)))


def test_mode_sends_the_gradient_to_the_index_it_returns(torch: Any) -> None:
    rows = [[1.0, 2, 2, 3, 3, 1], [5, 5, 4, 4, 6, 6]]
    grads = []
    for m in (ctxgrad, torch):
        x = m.tensor(rows, dtype=m.float64, requires_grad=True)
        (x.mode(1).values * m.tensor([2.0, 3.0], dtype=m.float64)).sum().backward()
        grads.append(x.grad.tolist())
    assert grads[0] == grads[1] == [[0, 0, 0, 0, 0, 2], [0, 0, 0, 3, 0, 0]]


def test_nanmedian_shares_the_gradient_among_equal_elements(torch: Any) -> None:
    grads = []
    for m in (ctxgrad, torch):
        x = m.tensor([2.0, float("nan"), 1.0, 2.0, 3.0], dtype=m.float64, requires_grad=True)
        x.nanmedian().backward()
        grads.append(x.grad.tolist())
    assert grads[0] == grads[1] == [0.5, 0.0, 0.0, 0.5, 0.0]


def test_unique_has_no_derivative_as_in_torch(torch: Any) -> None:
    def run(m: Any) -> Any:
        x = m.tensor([1.0, 2.0, 1.0], requires_grad=True)
        u = x.unique()
        assert u.requires_grad and type(u.grad_fn).__name__ == "Unique2Backward0"
        u.sum().backward()

    assert raised(lambda: run(ctxgrad), ctxgrad) == raised(lambda: run(torch), torch)


def test_histc_and_bincount_results_do_not_require_grad() -> None:
    x = ctxgrad.tensor([0.5, 1.5], requires_grad=True)
    assert not x.histc(2).requires_grad
    assert not ctxgrad.tensor([0, 1]).bincount(x).requires_grad


NAMES = {
    "nansum": (lambda m, x: x.nansum(), "NansumBackward0"),
    "aminmax": (lambda m, x: m.aminmax(x).min, "AminmaxBackward0"),
    "cummax": (lambda m, x: x.cummax(0).values, "CummaxBackward0"),
    "cummin": (lambda m, x: x.cummin(1).values, "CumminBackward0"),
    "logcumsumexp": (lambda m, x: x.logcumsumexp(0), "LogcumsumexpBackward0"),
    "mode": (lambda m, x: x.mode().values, "ModeBackward0"),
    "nanmedian": (lambda m, x: x.nanmedian(), "NanmedianBackward0"),
    "nanmedian-dim": (lambda m, x: x.nanmedian(0).values, "NanmedianBackward1"),
    "diff": (lambda m, x: x.diff(), "SubBackward0"),
    "cumulative_trapezoid": (lambda m, x: m.cumulative_trapezoid(x), "CumsumBackward0"),
    "corrcoef": (lambda m, x: x.corrcoef(), "ClampBackward1"),
    "renorm": (lambda m, x: x.renorm(2, 0, 1.0), "RenormBackward0"),
}


@pytest.mark.parametrize("name", NAMES)
def test_grad_fn_names_match_torch(torch: Any, name: str) -> None:
    fn, expected = NAMES[name]
    for m in (ctxgrad, torch):
        x = m.tensor([[1.0, 5.0, 2.0], [4.0, 3.0, 6.0]], requires_grad=True)
        assert type(fn(m, x).grad_fn).__name__ == expected


def _f(m: Any) -> Any:
    return m.tensor([[1.0, 2.0], [3.0, 4.0]])


ERRORS: dict[str, Callable[[Any], Any]] = {
    "nanmean-int": lambda m: m.tensor([1, 2]).nanmean(),
    "aminmax-empty": lambda m: m.aminmax(m.zeros(0)),
    "quantile-range": lambda m: _f(m).quantile(1.5),
    "quantile-int": lambda m: m.tensor([1, 2]).quantile(0.5),
    "quantile-q-dtype": lambda m: _f(m).quantile(m.tensor([0.5], dtype=m.float64)),
    "quantile-q-2d": lambda m: _f(m).quantile(m.tensor([[0.5]])),
    "quantile-empty": lambda m: m.zeros(0).quantile(0.5),
    "quantile-interpolation": lambda m: _f(m).quantile(0.5, interpolation="foo"),
    "diff-0d": lambda m: m.tensor(1.0).diff(),
    "diff-negative-order": lambda m: _f(m).diff(-1),
    "diff-0d-prepend": lambda m: m.tensor([1.0, 2.0]).diff(prepend=m.tensor(0.0)),
    "cov-3d": lambda m: m.zeros(1, 1, 1).cov(),
    "cov-fweights-float": lambda m: _f(m).cov(fweights=m.tensor([1.0, 2.0])),
    "cov-fweights-size": lambda m: _f(m).cov(fweights=m.tensor([1, 2, 3])),
    "cov-aweights-negative": lambda m: _f(m).cov(aweights=m.tensor([1.0, -2.0])),
    "renorm-1d": lambda m: m.tensor([1.0, 2.0]).renorm(2, 0, 1.0),
    "renorm-maxnorm": lambda m: _f(m).renorm(2, 0, -1.0),
    "bincount-negative": lambda m: m.tensor([-1]).bincount(),
    "bincount-2d": lambda m: m.tensor([[1]]).bincount(),
    "bincount-float": lambda m: m.tensor([1.0]).bincount(),
    "histc-int": lambda m: m.tensor([1, 2]).histc(3),
    "histc-bins": lambda m: _f(m).histc(0),
    "histc-range": lambda m: _f(m).histc(3, min=3, max=1),
    "histogram-int": lambda m: m.histogram(m.tensor([1, 2]), 3),
    "histogram-bins": lambda m: m.histogram(_f(m), 0),
    "histogram-range": lambda m: m.histogram(_f(m), 3, range=(2.0, 1.0)),
    "dist-shapes": lambda m: m.dist(_f(m), m.ones(3)),
    "gradient-edge-order": lambda m: m.gradient(_f(m), edge_order=3),
    "gradient-too-short": lambda m: m.gradient(_f(m), edge_order=2),
    "gradient-spacing-length": lambda m: m.gradient(_f(m), spacing=[1.0, 2.0, 3.0]),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_match_torch(torch: Any, name: str) -> None:
    assert raised(lambda: ERRORS[name](ctxgrad), ctxgrad) == raised(lambda: ERRORS[name](torch), torch)


# NumPy's keyword names, which torch's functions and methods take in place of dim and keepdim.
NUMPY_NAMES: dict[str, Callable[[Any, Any], Any]] = {
    "nansum": lambda m, x: m.nansum(x, axis=0, keepdims=True),
    "nanmean": lambda m, x: x.nanmean(axis=1),
    "count_nonzero": lambda m, x: m.count_nonzero(x, axis=0),
    "aminmax": lambda m, x: m.stack(list(m.aminmax(x, axis=1, keepdims=True))),
    "cummax": lambda m, x: x.cummax(axis=1).values,
    "cummin": lambda m, x: m.cummin(x, axis=0).indices,
    "logcumsumexp": lambda m, x: x.logcumsumexp(axis=0),
    "std_mean": lambda m, x: m.stack(list(m.std_mean(x, axis=0, keepdims=True))),
    "var_mean": lambda m, x: m.stack(list(m.var_mean(x, axis=1))),
    "mode": lambda m, x: x.mode(axis=0).values,
    "nanmedian": lambda m, x: x.nanmedian(axis=1, keepdims=True).values,
    "quantile": lambda m, x: x.quantile(0.3, axis=0, keepdims=True),
    "nanquantile": lambda m, x: m.nanquantile(x, 0.6, axis=1),
    "diff": lambda m, x: x.diff(axis=0),
    "trapezoid": lambda m, x: m.trapezoid(x, axis=0),
    "cumulative_trapezoid": lambda m, x: m.cumulative_trapezoid(x, axis=0),
}


@pytest.mark.parametrize("name", NUMPY_NAMES)
def test_numpy_keyword_names_match_torch(torch: Any, name: str) -> None:
    data = np.array([[1.0, 5.0, 2.0, 2.0], [4.0, 3.0, 6.0, 0.5], [7.0, 0.0, 1.0, 2.0]])
    c, t = (NUMPY_NAMES[name](m, m.tensor(data)) for m in (ctxgrad, torch))
    np.testing.assert_allclose(c.numpy(), t.numpy(), rtol=1e-6)


@pytest.mark.parametrize("name", ["cummax", "logcumsumexp"])
def test_a_required_dim_given_neither_way_is_torch_s_error(torch: Any, name: str) -> None:
    def run(m: Any) -> Any:
        return getattr(m.tensor([1.0, 2.0]), name)()

    assert raised(lambda: run(ctxgrad), ctxgrad) == raised(lambda: run(torch), torch)

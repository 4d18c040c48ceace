"""Writes at indexed positions: ``index_add``/``index_copy``/``index_fill``/``index_put``,
``masked_scatter``, ``scatter_reduce`` (and their in-place variants), ``scatter(reduce=)``,
``scatter_``, ``scatter_add_``.

The kit table checks values (NumPy), values, gradients and float32 (torch), central
differences, forward mode and double backward; the plain tests check the in-place variants,
grad_fn names and torch's errors.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _opcheck import Case, OpFamilyTests, any_
from _support import raised

import ctxgrad

_IDX = [[0, 1, 1, 2], [2, 2, 0, 0]]


def _i(m: Any, values: Any) -> Any:
    return m.tensor(values) if m is not np else np.asarray(values)


def _index_add_ref(alpha: float) -> Callable[..., Any]:
    def ref(m: Any, a: np.ndarray, s: np.ndarray) -> np.ndarray:
        out = a.copy()
        np.add.at(out, (slice(None), [2, 0, 2]), alpha * s)
        return out

    return ref


def _index_copy_ref(m: Any, a: np.ndarray, s: np.ndarray) -> np.ndarray:
    out = a.copy()
    out[[2, 0]] = s
    return out


def _scatter_reduce_ref(reduce: str, include_self: bool) -> Callable[..., Any]:
    def ref(m: Any, a: np.ndarray, s: np.ndarray) -> np.ndarray:
        out = a.copy()
        groups: dict[tuple[int, int], list[float]] = {}
        for i in range(2):
            for j in range(4):
                groups.setdefault((_IDX[i][j], j), []).append(s[i, j])
        for key, vals in groups.items():
            vals = ([a[key]] if include_self else []) + vals
            out[key] = {"sum": np.sum, "prod": np.prod, "mean": np.mean, "amax": np.max, "amin": np.min}[reduce](vals)
        return out

    return ref


def _scatter_reduce_case(reduce: str, include_self: bool = True, **kw: Any) -> Case:
    return Case(
        f"scatter_reduce-{reduce}" + ("" if include_self else "-without-self"),
        lambda m, a, s: a.scatter_reduce(0, m.tensor(_IDX), s, reduce, include_self=include_self),
        any_((3, 4), (2, 4)),
        ref=_scatter_reduce_ref(reduce, include_self),
        **kw,
    )


_NO_PROD_TANGENT = {
    "jvp": "torch's forward AD gives no tangent for scatter_reduce 'prod' (ctxgrad's is checked by central differences)"
}

CASES = [
    Case(
        "index_add",
        lambda m, a, s: a.index_add(1, _i(m, [2, 0, 2]), s),
        any_((2, 3), (2, 3)),
        ref=_index_add_ref(1.0),
    ),
    Case(
        "index_add-alpha",
        lambda m, a, s: m.index_add(a, -1, _i(m, [2, 0, 2]), s, alpha=2.5),
        any_((2, 3), (2, 3)),
        ref=_index_add_ref(2.5),
    ),
    Case("index_copy", lambda m, a, s: a.index_copy(0, _i(m, [2, 0]), s), any_((3, 2), (2, 2)), ref=_index_copy_ref),
    Case(
        "index_fill-number",
        lambda m, a: a.index_fill(1, _i(m, [0, 2]), -1.5),
        any_((2, 3)),
        ref=lambda m, a: np.where(np.isin(np.arange(3), [0, 2]), -1.5, a),
    ),
    Case(
        "index_fill-tensor",
        lambda m, a, v: m.index_fill(a, 0, _i(m, [1]), v),
        any_((2, 3), ()),
        ref=lambda m, a, v: np.where(np.arange(2)[:, None] == 1, v, a),
    ),
    Case(
        "index_put",
        lambda m, a, v: a.index_put((_i(m, [0, 2]), _i(m, [1, 1])), v),
        any_((3, 2), (2,)),
        ref=lambda m, a, v: _put(a, ([0, 2], [1, 1]), v, False),
    ),
    Case(
        "index_put-accumulate-broadcast",
        lambda m, a, v: m.index_put(a, (_i(m, [0, 0, 2]),), v, accumulate=True),
        any_((3, 2), (2,)),
        ref=lambda m, a, v: _put(a, ([0, 0, 2],), v, True),
    ),
    Case(
        "index_put-bool-mask",
        lambda m, a, v: a.index_put((_i(m, [True, False, True]),), v),
        any_((3, 2), (1,)),
        ref=lambda m, a, v: _put(a, (np.array([True, False, True]),), v, False),
    ),
    Case(
        "masked_scatter",
        lambda m, a, s: a.masked_scatter(_i(m, [[True, False, True], [False, True, True]]), s),
        any_((2, 3), (2, 3)),
        ref=lambda m, a, s: _masked_scatter_ref(a, np.array([[True, False, True], [False, True, True]]), s),
    ),
    Case(
        "masked_scatter-broadcast-mask",
        lambda m, a, s: m.masked_scatter(a, _i(m, [True, False, True]), s),
        any_((2, 3), (5,)),
        ref=lambda m, a, s: _masked_scatter_ref(a, np.array([[True, False, True]] * 2), s),
    ),
    _scatter_reduce_case("sum"),
    _scatter_reduce_case("sum", False),
    _scatter_reduce_case("mean"),
    _scatter_reduce_case("mean", False),
    _scatter_reduce_case("amax"),
    _scatter_reduce_case("amin", False),
    _scatter_reduce_case("prod", bugs=_NO_PROD_TANGENT),
    _scatter_reduce_case("prod", False, bugs=_NO_PROD_TANGENT),
    *(
        Case(
            f"index_reduce-{reduce}" + ("" if include_self else "-without-self"),
            lambda m, a, s, reduce=reduce, include_self=include_self: a.index_reduce(
                0, _i(m, [2, 0, 2]), s, reduce, include_self=include_self
            ),
            [((3, 2), "nz"), ((3, 2), "nz")],
            ref=lambda m, a, s, reduce=reduce, include_self=include_self: _index_reduce_ref(a, s, reduce, include_self),
            bugs={
                "jvp": "torch has no forward AD for index_reduce (ctxgrad's tangent is checked by central differences)"
            },
        )
        for reduce, include_self in (("prod", True), ("mean", True), ("amax", False), ("amin", True))
    ),
    Case(
        "put",
        lambda m, a, s: a.put(_i(m, [[0, -1], [4, 2]]), s),
        any_((2, 3), (2, 2)),
        ref=lambda m, a, s: _flat_put(a, s, False),
    ),
    Case(
        "put-accumulate",
        lambda m, a, s: m.put(a, _i(m, [0, 0, 5]), s, accumulate=True),
        any_((2, 3), (3,)),
        ref=lambda m, a, s: _flat_put(a, s, True),
    ),
    Case(
        "select_scatter",
        lambda m, a, s: m.select_scatter(a, s, 1, -1),
        any_((2, 3), (2,)),
        ref=lambda m, a, s: np.concatenate([a[:, :2], s[:, None]], 1),
    ),
    Case(
        "slice_scatter",
        lambda m, a, s: m.slice_scatter(a, s, 1, 0, None, 2),
        any_((2, 4), (2, 2)),
        ref=lambda m, a, s: _put(a, (slice(None), slice(0, None, 2)), s, False),
    ),
    Case(
        "diagonal_scatter",
        lambda m, a, s: a.diagonal_scatter(s, 1),
        any_((3, 3), (2,)),
        ref=lambda m, a, s: _put(a, ([0, 1], [1, 2]), s, False),
    ),
]


def _index_reduce_ref(a: np.ndarray, s: np.ndarray, reduce: str, include_self: bool) -> np.ndarray:
    out = a.copy()
    fn = {"prod": np.prod, "mean": np.mean, "amax": np.max, "amin": np.min}[reduce]
    for row, sources in ((2, [0, 2]), (0, [1])):
        values = ([a[row]] if include_self else []) + [s[i] for i in sources]
        out[row] = fn(np.stack(values), axis=0)
    return out


def _flat_put(a: np.ndarray, s: np.ndarray, accumulate: bool) -> np.ndarray:
    out = a.copy().reshape(-1)
    index = np.array([0, 0, 5]) if accumulate else np.array([0, -1, 4, 2])
    if accumulate:
        np.add.at(out, index, s.reshape(-1))
    else:
        out[index] = s.reshape(-1)
    return out.reshape(a.shape)


def _put(a: np.ndarray, index: tuple[Any, ...], v: np.ndarray, accumulate: bool) -> np.ndarray:
    out = a.copy()
    if accumulate:
        np.add.at(out, index, v)
    else:
        out[index] = v
    return out


def _masked_scatter_ref(a: np.ndarray, mask: np.ndarray, s: np.ndarray) -> np.ndarray:
    out = a.copy()
    out[mask] = s.reshape(-1)[: int(mask.sum())]
    return out


def _sq(op: Callable[..., Any]) -> Callable[..., Any]:
    return lambda m, *xs: op(m, *xs) ** 2


DOUBLE_CASES = [
    Case("index_add", _sq(lambda m, a, s: a.index_add(0, m.tensor([1, 1]), s, alpha=2.0)), any_((2, 3), (2, 3))),
    Case("index_copy", _sq(lambda m, a, s: a.index_copy(0, m.tensor([1]), s)), any_((2, 3), (1, 3))),
    Case("index_fill", _sq(lambda m, a, v: a.index_fill(1, m.tensor([0]), v)), any_((2, 3), ())),
    Case("index_put", _sq(lambda m, a, v: a.index_put((m.tensor([0, 0]),), v, True)), any_((2, 3), (3,))),
    Case("masked_scatter", _sq(lambda m, a, s: a.masked_scatter(m.tensor([True, False]), s)), any_((2,), (3,))),
    Case(
        "scatter_reduce-sum", _sq(lambda m, a, s: a.scatter_reduce(0, m.tensor(_IDX), s, "sum")), any_((3, 4), (2, 4))
    ),
    Case(
        "scatter_reduce-mean",
        _sq(lambda m, a, s: a.scatter_reduce(0, m.tensor(_IDX), s, "mean", include_self=False)),
        any_((3, 4), (2, 4)),
    ),
    Case(
        "scatter_reduce-amax", _sq(lambda m, a, s: a.scatter_reduce(0, m.tensor(_IDX), s, "amax")), any_((3, 4), (2, 4))
    ),
    Case("scatter_reduce-prod", lambda m, a, s: a.scatter_reduce(0, m.tensor(_IDX), s, "prod"), any_((3, 4), (2, 4))),
    Case("index_reduce-prod", lambda m, a, s: a.index_reduce(0, m.tensor([1, 1]), s, "prod"), any_((2, 3), (2, 3))),
    Case("put", _sq(lambda m, a, s: a.put(m.tensor([1, 3]), s, True)), any_((2, 2), (2,))),
    Case("slice_scatter", _sq(lambda m, a, s: m.slice_scatter(a, s, 0, 1)), any_((3, 2), (2, 2))),
]


class TestMoreIndexingOps(OpFamilyTests):
    cases = CASES
    double_cases = DOUBLE_CASES


def test_scatter_reduce_prod_gradient_with_zeros_matches_torch(torch: Any) -> None:
    a = np.array([[0.0, 2.0], [3.0, 0.0]])
    s = np.array([[0.0, 5.0], [7.0, 0.0], [1.5, 0.0]])
    index = [[0, 1], [0, 1], [1, 0]]
    grads = []
    for m in (ctxgrad, torch):
        x, y = m.tensor(a, requires_grad=True), m.tensor(s, requires_grad=True)
        out = x.scatter_reduce(0, m.tensor(index), y, "prod")
        (out * m.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=out.dtype)).sum().backward()
        grads.append((out.detach().numpy(), x.grad.numpy(), y.grad.numpy()))
    for c, t in zip(*grads):
        np.testing.assert_allclose(c, t)


def test_scatter_reduce_with_a_larger_src_gives_the_gradient_torch_refuses(torch: Any) -> None:
    """A src larger than its index: the unused part of src gets zero gradient (torch raises)."""
    a = ctxgrad.zeros(2, 3, dtype=ctxgrad.float64, requires_grad=True)
    s = ctxgrad.ones(2, 4, dtype=ctxgrad.float64, requires_grad=True)
    (a.scatter_reduce(1, ctxgrad.tensor([[0, 0]]), s * 2.0, "sum") * 3.0).sum().backward()
    assert s.grad.tolist() == [[6.0, 6.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]
    ts = torch.ones(2, 4, dtype=torch.float64, requires_grad=True)
    out = torch.zeros(2, 3, dtype=torch.float64).scatter_reduce(1, torch.tensor([[0, 0]]), ts, "sum")
    with pytest.raises(RuntimeError, match="invalid gradient"):
        out.sum().backward()


# --------------------------------------------------------------------------- in place
INPLACE: dict[str, Callable[[Any, Any], Any]] = {
    "index_add_": lambda m, x: x.index_add_(0, m.tensor([2, 0]), m.ones(2, 3, dtype=m.float64), alpha=3),
    "index_copy_": lambda m, x: x.index_copy_(1, m.tensor([1]), m.ones(3, 1, dtype=m.float64)),
    "index_fill_": lambda m, x: x.index_fill_(1, m.tensor([0, 2]), 7),
    "index_put_": lambda m, x: x.index_put_((m.tensor([0, 1]), m.tensor([2, 2])), m.tensor(5.0, dtype=m.float64)),
    "masked_scatter_": lambda m, x: x.masked_scatter_(x > 4, m.arange(9, dtype=m.float64)),
    "scatter_reduce_": lambda m, x: x.scatter_reduce_(0, m.tensor([[2, 2, 0]]), m.ones(1, 3, dtype=m.float64), "amin"),
    "scatter_": lambda m, x: x.scatter_(0, m.tensor([[2, 1, 0]]), m.ones(1, 3, dtype=m.float64)),
    "scatter_-value": lambda m, x: x.scatter_(1, m.tensor([[2], [1], [0]]), 9.0),
    "scatter_-reduce": lambda m, x: x.scatter_(0, m.tensor([[2, 1, 0]]), 2.0, reduce="multiply"),
    "scatter_add_": lambda m, x: x.scatter_add_(0, m.tensor([[2, 2, 0]]), m.ones(1, 3, dtype=m.float64)),
    "index_reduce_": lambda m, x: x.index_reduce_(1, m.tensor([0, 0]), x[:, 1:] * 2.0, "mean"),
    "put_": lambda m, x: x.put_(m.tensor([8, 0]), m.tensor([4.0, 5.0], dtype=m.float64), accumulate=True),
}


@pytest.mark.parametrize("name", INPLACE)
def test_in_place_variants_write_into_self_as_torch(torch: Any, name: str) -> None:
    results = []
    for m in (ctxgrad, torch):
        base = m.arange(9, dtype=m.float64).reshape(3, 3).requires_grad_()
        x = base * 1.0
        out = INPLACE[name](m, x)
        assert out is x
        grad_fn = type(x.grad_fn).__name__
        if "reduce" not in name:
            (x * m.arange(9, dtype=m.float64).reshape(3, 3)).sum().backward()
        results.append((x.detach().numpy().copy(), grad_fn, None if base.grad is None else base.grad.numpy()))
    (cv, cn, cg), (tv, tn, tg) = results
    np.testing.assert_allclose(cv, tv)
    assert cn == tn
    assert (cg is None) == (tg is None)
    if tg is not None:
        np.testing.assert_allclose(cg, tg)


def test_in_place_variant_refuses_a_leaf_that_requires_grad(torch: Any) -> None:
    def run(m: Any) -> Any:
        return m.zeros(3, requires_grad=True).index_add_(0, m.tensor([0]), m.ones(1))

    assert raised(lambda: run(ctxgrad), ctxgrad) == raised(lambda: run(torch), torch)


def test_scatter_with_reduce_has_no_derivative_as_in_torch(torch: Any) -> None:
    def run(m: Any) -> Any:
        x = m.zeros(2, 2, requires_grad=True)
        with pytest.warns(UserWarning, match="deprecated"):
            y = x.scatter(0, m.tensor([[1, 1]]), m.ones(1, 2), reduce="add")
        assert y.tolist() == [[0.0, 0.0], [1.0, 1.0]]
        y.sum().backward()

    assert raised(lambda: run(ctxgrad), ctxgrad) == raised(lambda: run(torch), torch)


NAMES = {
    "index_add": (lambda m, x: x.index_add(0, m.tensor([0]), x[:1]), "IndexAddBackward0"),
    "index_copy": (lambda m, x: x.index_copy(0, m.tensor([0]), x[:1]), "IndexCopyBackward0"),
    "index_fill": (lambda m, x: x.index_fill(0, m.tensor([0]), 1.0), "IndexFillBackward0"),
    "index_fill-tensor": (lambda m, x: x.index_fill(0, m.tensor([0]), x[0, 0]), "IndexFillBackward1"),
    "index_put": (lambda m, x: x.index_put((m.tensor([0]),), x[0]), "IndexPutBackward0"),
    "masked_scatter": (lambda m, x: x.masked_scatter(x > 1, x), "MaskedScatterBackward0"),
    "scatter_reduce": (lambda m, x: x.scatter_reduce(0, m.tensor([[0]]), x, "sum"), "ScatterReduceBackward0"),
    "index_reduce": (lambda m, x: x.index_reduce(0, m.tensor([0]), x[:1], "amax"), "IndexReduceBackward0"),
    "put": (lambda m, x: x.put(m.tensor([0]), x[0, :1]), "PutBackward0"),
    "select_scatter": (lambda m, x: m.select_scatter(x, x[0], 0, 1), "SelectScatterBackward0"),
    "slice_scatter": (lambda m, x: m.slice_scatter(x, x[:1], 0, 1), "SliceScatterBackward0"),
    "diagonal_scatter": (lambda m, x: m.diagonal_scatter(x, x[0]), "DiagonalScatterBackward0"),
}


@pytest.mark.parametrize("name", NAMES)
def test_grad_fn_names_match_torch(torch: Any, name: str) -> None:
    fn, expected = NAMES[name]
    for m in (ctxgrad, torch):
        x = m.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        assert type(fn(m, x).grad_fn).__name__ == expected


def _x(m: Any) -> Any:
    return m.zeros(3, 4)


ERRORS: dict[str, Callable[[Any], Any]] = {
    "index_add-count": lambda m: _x(m).index_add(0, m.tensor([0, 2]), m.ones(3, 4)),
    "index_add-float-index": lambda m: _x(m).index_add(0, m.tensor([0.0]), m.ones(1, 4)),
    "index_add-out-of-bounds": lambda m: _x(m).index_add(0, m.tensor([0, 3]), m.ones(2, 4)),
    "index_add-dtype": lambda m: _x(m).index_add(0, m.tensor([0]), m.ones(1, 4, dtype=m.float64)),
    "index_add-2d-index": lambda m: _x(m).index_add(0, m.tensor([[0]]), m.ones(1, 4)),
    "index_copy-slice-shape": lambda m: _x(m).index_copy(0, m.tensor([0, 2]), m.ones(2, 3)),
    "index_copy-out-of-bounds": lambda m: _x(m).index_copy(0, m.tensor([0, 5]), m.ones(2, 4)),
    "index_fill-1d-value": lambda m: _x(m).index_fill(0, m.tensor([0]), m.tensor([1.0, 2.0])),
    "index_fill-out-of-bounds": lambda m: _x(m).index_fill(0, m.tensor([7]), 1.0),
    "index_put-shape": lambda m: _x(m).index_put((m.tensor([0, 2]),), m.ones(5)),
    "index_put-dtype": lambda m: _x(m).index_put((m.tensor([0, 2]),), m.ones(4, dtype=m.float64)),
    "scatter_reduce-reduce": lambda m: _x(m).scatter_reduce(0, m.tensor([[0, 1]]), m.ones(1, 2), "foo"),
    "scatter-reduce": lambda m: _x(m).scatter(0, m.tensor([[0, 1]]), 1.0, reduce="foo"),
    "masked_scatter-short-source": lambda m: _x(m).masked_scatter(_x(m) > -1, m.ones(5)),
    "masked_scatter-float-mask": lambda m: _x(m).masked_scatter(_x(m), m.ones(12)),
    "masked_scatter-dtype": lambda m: _x(m).masked_scatter(_x(m) > -1, m.ones(12, dtype=m.float64)),
    "index_reduce-sum": lambda m: _x(m).index_reduce(0, m.tensor([0]), m.ones(1, 4), "sum"),
    "put-count": lambda m: _x(m).put(m.tensor([0, 1]), m.tensor([5.0])),
    "put-out-of-range": lambda m: _x(m).put(m.tensor([0, 12]), m.tensor([5.0, 6.0])),
    "select_scatter-size": lambda m: m.select_scatter(_x(m), m.ones(3), 0, 1),
    "slice_scatter-size": lambda m: m.slice_scatter(_x(m), m.ones(3, 3), 1, 0, 4, 2),
    "diagonal_scatter-size": lambda m: m.diagonal_scatter(_x(m), m.ones(2)),
    "unravel_index-float": lambda m: m.unravel_index(m.tensor([1.0]), (3, 4)),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_match_torch(torch: Any, name: str) -> None:
    assert raised(lambda: ERRORS[name](ctxgrad), ctxgrad) == raised(lambda: ERRORS[name](torch), torch)


# --------------------------------------------------------------------------- searchsorted, bucketize
SEARCHES: dict[str, Callable[[Any], Any]] = {
    "1d": lambda m: m.searchsorted(m.tensor([1, 3, 5, 7]), m.tensor([[0, 3], [6, 9]])),
    "1d-right": lambda m: m.searchsorted(m.tensor([1, 3, 3, 7]), m.tensor([3, 4]), right=True),
    "side-right": lambda m: m.searchsorted(m.tensor([1, 3, 3, 7]), m.tensor([3, 4]), side="right"),
    "int32": lambda m: m.searchsorted(m.tensor([1.0, 2.0]), m.tensor([1.5]), out_int32=True),
    "rows": lambda m: m.searchsorted(m.tensor([[1, 3, 5], [2, 4, 6]]), m.tensor([[3, 6], [1, 5]])),
    "scalar": lambda m: m.searchsorted(m.tensor([1, 3, 5]), 3),
    "float-sequence-int-values": lambda m: m.searchsorted(m.tensor([1.0, 3.0, 5.0]), m.tensor([3])),
    "sorter": lambda m: m.searchsorted(m.tensor([5, 1, 3]), m.tensor([2, 4]), sorter=m.tensor([1, 2, 0])),
    "bucketize": lambda m: m.bucketize(m.tensor([[1, 5], [9, 3]]), m.tensor([1, 3, 5, 7])),
    "bucketize-right": lambda m: m.bucketize(m.tensor([1, 5, 9, 3]), m.tensor([1, 3, 5, 7]), right=True),
    "bucketize-scalar-int32": lambda m: m.bucketize(4, m.tensor([1, 3, 5]), out_int32=True),
}


@pytest.mark.parametrize("name", SEARCHES)
def test_searchsorted_and_bucketize_match_torch(torch: Any, name: str) -> None:
    c, t = SEARCHES[name](ctxgrad), SEARCHES[name](torch)
    assert c.tolist() == t.tolist()
    assert str(c.dtype) == str(t.dtype).replace("torch.", "ctxgrad.")


def test_searchsorted_matches_numpy_on_random_values() -> None:
    rng = np.random.default_rng(3)
    seq, values = np.sort(rng.standard_normal(50)), rng.standard_normal((4, 7))
    for side in ("left", "right"):
        got = ctxgrad.searchsorted(ctxgrad.tensor(seq), ctxgrad.tensor(values), side=side)
        np.testing.assert_array_equal(got.numpy(), np.searchsorted(seq, values, side=side))


SEARCH_ERRORS: dict[str, Callable[[Any], Any]] = {
    "rows-mismatch": lambda m: m.searchsorted(m.tensor([[1, 3, 5], [2, 4, 6]]), m.tensor([3])),
    "side-and-right": lambda m: m.searchsorted(m.tensor([1, 3]), m.tensor([3]), side="left", right=True),
    "side-unknown": lambda m: m.searchsorted(m.tensor([1, 3]), m.tensor([3]), side="foo"),
    "bucketize-2d-boundaries": lambda m: m.bucketize(m.tensor([1, 3]), m.tensor([[3]])),
}


@pytest.mark.parametrize("name", SEARCH_ERRORS)
def test_searchsorted_errors_match_torch(torch: Any, name: str) -> None:
    fn = SEARCH_ERRORS[name]
    assert raised(lambda: fn(ctxgrad), ctxgrad) == raised(lambda: fn(torch), torch)


def test_unravel_index_matches_torch_and_numpy(torch: Any) -> None:
    for indices, shape in (([5, 11, 0], (3, 4)), ([[7], [23]], (2, 3, 4)), (13, (3, 4)), (-1, (3, 4))):
        c = ctxgrad.unravel_index(ctxgrad.tensor(indices), shape)
        t = torch.unravel_index(torch.tensor(indices), shape)
        assert [x.tolist() for x in c] == [x.tolist() for x in t]
        assert all(x.dtype == ctxgrad.int64 for x in c)
    expected = np.unravel_index([5, 11], (3, 4))
    assert [x.tolist() for x in ctxgrad.unravel_index(ctxgrad.tensor([5, 11]), (3, 4))] == [list(e) for e in expected]


AXIS: dict[str, Callable[[Any], Any]] = {
    "index_add": lambda m: m.zeros(2, 3).index_add(axis=1, index=m.tensor([0, 0]), source=m.ones(2, 2)),
    "index_copy": lambda m: m.index_copy(m.zeros(2, 3), axis=0, index=m.tensor([1]), source=m.ones(1, 3)),
    "index_fill": lambda m: m.zeros(2, 3).index_fill(axis=1, index=m.tensor([2]), value=4.0),
    "index_reduce": lambda m: m.ones(2, 3).index_reduce(
        axis=0, index=m.tensor([0]), source=m.full((1, 3), 3.0), reduce="prod"
    ),
    "scatter_reduce": lambda m: m.zeros(3).scatter_reduce(axis=0, index=m.tensor([0, 0]), src=m.ones(2), reduce="sum"),
    "index_add_": lambda m: m.zeros(2, 3).index_add_(axis=0, index=m.tensor([1]), source=m.ones(1, 3)),
}


@pytest.mark.parametrize("name", AXIS)
def test_index_writes_take_axis_as_torch(torch: Any, name: str) -> None:
    assert AXIS[name](ctxgrad).tolist() == AXIS[name](torch).tolist()


MISSING: dict[str, Callable[[Any], Any]] = {
    "scatter_reduce-no-reduce": lambda m: m.zeros(2).scatter_reduce(0, m.tensor([0]), m.ones(1)),
    "index_add-dim-and-axis": lambda m: m.zeros(2).index_add(0, m.tensor([0]), m.ones(1), axis=0),
}


@pytest.mark.parametrize("name", MISSING)
def test_index_write_argument_errors_match_torch(torch: Any, name: str) -> None:
    assert raised(lambda: MISSING[name](ctxgrad), ctxgrad) == raised(lambda: MISSING[name](torch), torch)


def test_a_missing_dim_is_a_type_error_naming_it() -> None:
    with pytest.raises(TypeError, match='index_add\\(\\) missing 1 required positional arguments: "dim"'):
        ctxgrad.zeros(2).index_add(index=ctxgrad.tensor([0]), source=ctxgrad.ones(1))

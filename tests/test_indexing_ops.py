"""Indexing, gathering, scattering, masking and sorting ops against torch and NumPy.

The differentiable ops form one kit family (``OpFamilyTests``): values vs NumPy, values,
dtypes and gradients vs torch (float64 and float32), gradients and jvp vs central
differences and torch's forward AD, and double backward.  Index tensors are written once
with ``ix(m, data)``, which gives a tensor for ctxgrad and torch and an array for NumPy.

Plain tests below cover what the kit cannot: index outputs (int64, never requiring grad),
stable sorting with ties and NaN, views versus copies, torch's errors (type and message),
warnings, backward node names, and the index helpers that assignment uses.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _opcheck import Case, OpFamilyTests, any_
from _support import dtype_name, raised, to_numpy

import ctxgrad
from ctxgrad.ops.indexing import NumpyIndex, normalize_index, numpy_index


def ix(m: Any, data: Any) -> Any:
    """An index tensor for ctxgrad or torch, an array for NumPy."""
    return np.array(data) if m is np else m.tensor(data)


MASK_34 = [[True, False, True, False], [False, False, True, True], [True, True, False, False]]
MASK_4 = [True, False, True, True]


def _put_along(a: np.ndarray, dim: int, idx: list[Any], src: Any, add: bool = False) -> np.ndarray:
    """NumPy reference of scatter / scatter_add (``idx`` may be smaller than ``a``)."""
    out = a.copy()
    idx_arr = np.array(idx)
    grid = list(np.ogrid[tuple(slice(s) for s in idx_arr.shape)])
    grid[dim] = idx_arr
    values = src if np.isscalar(src) else src[tuple(slice(s) for s in idx_arr.shape)]
    if add:
        np.add.at(out, tuple(grid), values)
    else:
        out[tuple(grid)] = values
    return out


def _take_along(a: np.ndarray, idx: list[Any], dim: int) -> np.ndarray:
    idx_arr = np.array(idx)
    return a[tuple(slice(s) if d != dim else slice(None) for d, s in enumerate(idx_arr.shape))][
        tuple(np.ogrid[tuple(slice(s) for s in idx_arr.shape)][:dim])
        + (idx_arr,)
        + tuple(np.ogrid[tuple(slice(s) for s in idx_arr.shape)][dim + 1 :])
    ]


GATHER_IDX = [[0, 0], [3, 1], [2, 2]]
SCATTER_IDX = [[1, 0], [3, 2], [0, 1]]
REPEATED_IDX = [[1, 1, 0], [3, 3, 3], [0, 2, 0]]

GETITEM = [
    # Basic indices: views.
    Case("int", lambda m, a: a[1], any_((3, 4))),
    Case("slices", lambda m, a: a[1:, ::2], any_((3, 4))),
    Case("none-ellipsis", lambda m, a: a[None, ..., 2], any_((3, 4))),
    Case("0d-int-tensor", lambda m, a: a[ix(m, 2)], any_((3, 4))),
    # Advanced indices: copies whose gradient adds up repeated positions.
    Case("list-repeated", lambda m, a: a[[0, 2, 0, 0]], any_((3, 4))),
    Case("tensor-negative", lambda m, a: a[ix(m, [-1, 0, -1])], any_((3, 4))),
    Case("tensor-2d", lambda m, a: a[ix(m, [[0, 1], [2, 2]])], any_((3, 4))),
    Case("numpy-array", lambda m, a: a[np.array([2, 0, 2])], any_((3, 4))),
    Case("two-tensors", lambda m, a: a[ix(m, [0, 2, 2]), ix(m, [1, 3, 1])], any_((3, 4))),
    Case("broadcast", lambda m, a: a[ix(m, [[0], [2]]), ix(m, [1, 3, 1])], any_((3, 4))),
    Case("slice-then-tensor", lambda m, a: a[1:, ix(m, [0, 0, 3])], any_((3, 4))),
    Case("separated", lambda m, a: a[ix(m, [0, 1, 1]), :, ix(m, [2, 3, 2])], any_((2, 3, 4))),
    Case("adjacent-middle", lambda m, a: a[:, ix(m, [2, 0]), ix(m, [1, 1])], any_((2, 3, 4))),
    Case("none-around", lambda m, a: a[None, ix(m, [1, 0]), None], any_((3, 4))),
    Case("ellipsis-tensor", lambda m, a: a[..., ix(m, [1, 1])], any_((2, 3, 4))),
    Case("int-and-tensor", lambda m, a: a[1, ix(m, [0, 2, 2])], any_((3, 4))),
    # torch applies the int first (a select): the tensor's dimension stays in place.
    Case(
        "int-separated",
        lambda m, a: a[:, ix(m, [0, 2]), :, 1],
        any_((2, 3, 2, 3)),
        ref=lambda m, a: a[:, :, :, 1][:, [0, 2]],
    ),
    Case("mask", lambda m, a: a[ix(m, MASK_34)], any_((3, 4))),
    Case("mask-from-values", lambda m, a: a[a > 0], [((3, 4), "nz")]),
    Case("mask-dim1", lambda m, a: a[:, ix(m, MASK_4)], any_((3, 4))),
    Case("mask-and-tensor", lambda m, a: a[ix(m, [True, False, True]), ix(m, [3, 0])], any_((3, 4))),
    Case("bool-list", lambda m, a: a[[True, False, True]], any_((3, 4))),
    Case("true", lambda m, a: a[True], any_((3, 4))),
    Case("0d-bool-tensor", lambda m, a: a[ix(m, True), 1], any_((3, 4)), ref=lambda m, a: a[True, 1]),
    Case("empty", lambda m, a: a[ix(m, [[], []]).long() if m is not np else np.zeros((2, 0), int)], any_((3, 4))),
]

OPS = [
    Case(
        "gather-dim1",
        lambda m, a: m.gather(a, 1, ix(m, GATHER_IDX)),
        any_((3, 4)),
        ref=lambda m, a: _take_along(a, GATHER_IDX, 1),
    ),
    Case(
        "gather-dim0-smaller",
        lambda m, a: a.gather(0, ix(m, [[2, 0], [2, 1]])),
        any_((3, 4)),
        ref=lambda m, a: _take_along(a, [[2, 0], [2, 1]], 0),
    ),
    Case(
        "gather-negative-dim",
        lambda m, a: a.gather(-1, ix(m, [[[1, 0]], [[2, 2]]])),
        any_((2, 2, 3)),
        ref=lambda m, a: _take_along(a, [[[1, 0]], [[2, 2]]], 2),
    ),
    Case(
        "scatter-src",
        lambda m, a, b: m.scatter(a, 1, ix(m, SCATTER_IDX), b),
        any_((3, 4), (3, 2)),
        ref=lambda m, a, b: _put_along(a, 1, SCATTER_IDX, b),
    ),
    Case(
        "scatter-value",
        lambda m, a: a.scatter(1, ix(m, SCATTER_IDX), 2.5),
        any_((3, 4)),
        ref=lambda m, a: _put_along(a, 1, SCATTER_IDX, 2.5),
    ),
    Case(
        "scatter-value-keyword",
        lambda m, a: a.scatter(0, ix(m, [[2, 0, 1, 1]]), value=-1.0),
        any_((3, 4)),
        ref=lambda m, a: _put_along(a, 0, [[2, 0, 1, 1]], -1.0),
    ),
    Case(
        "scatter-add-repeated",
        lambda m, a, b: m.scatter_add(a, 1, ix(m, REPEATED_IDX), b),
        any_((3, 4), (3, 3)),
        ref=lambda m, a, b: _put_along(a, 1, REPEATED_IDX, b, add=True),
    ),
    Case(
        "scatter-add-dim0",
        lambda m, a, b: a.scatter_add(0, ix(m, [[0, 2, 2, 0], [0, 0, 1, 2]]), b),
        any_((3, 4), (2, 4)),
        ref=lambda m, a, b: _put_along(a, 0, [[0, 2, 2, 0], [0, 0, 1, 2]], b, add=True),
    ),
    Case(
        "index-select-repeated",
        lambda m, a: m.index_select(a, 1, ix(m, [3, 0, 3, 3])),
        any_((3, 4)),
        ref=lambda m, a: np.take(a, [3, 0, 3, 3], axis=1),
    ),
    Case(
        "index-select-dim0",
        lambda m, a: a.index_select(0, ix(m, [2, 2])),
        any_((3, 4)),
        ref=lambda m, a: a[[2, 2]],
    ),
    Case(
        "masked-fill",
        lambda m, a: m.masked_fill(a, ix(m, MASK_34), 0.5),
        any_((3, 4)),
        ref=lambda m, a: np.where(MASK_34, 0.5, a),
    ),
    Case(
        "masked-fill-broadcast-mask",
        lambda m, a: a.masked_fill(ix(m, MASK_4), -2.0),
        any_((3, 4)),
        ref=lambda m, a: np.where(MASK_4, -2.0, a),
    ),
    Case(
        "masked-fill-mask-larger",
        lambda m, a: a.masked_fill(ix(m, MASK_34), 1.0),
        any_((4,)),
        ref=lambda m, a: np.where(MASK_34, 1.0, a),
    ),
    Case(
        "masked-fill-tensor-value",
        lambda m, a, v: a.masked_fill(ix(m, MASK_4), v),
        any_((3, 4), ()),
        ref=lambda m, a, v: np.where(MASK_4, v, a),
    ),
    Case(
        "masked-select",
        lambda m, a: m.masked_select(a, ix(m, MASK_34)),
        any_((3, 4)),
        ref=lambda m, a: a[np.array(MASK_34)],
    ),
    Case(
        "masked-select-broadcast",
        lambda m, a: a.masked_select(ix(m, MASK_34)),
        any_((4,)),
        ref=lambda m, a: np.broadcast_to(a, (3, 4))[np.array(MASK_34)],
    ),
    Case(
        "take-along-dim",
        lambda m, a: m.take_along_dim(a, ix(m, [[0, 3], [1, 1], [2, 0]]), 1),
        any_((3, 4)),
        ref=lambda m, a: np.take_along_axis(a, np.array([[0, 3], [1, 1], [2, 0]]), 1),
    ),
    Case(
        "take-along-dim-broadcast",
        lambda m, a: a.take_along_dim(ix(m, [[0, 3, 3]]), dim=1),
        any_((3, 4)),
        ref=lambda m, a: np.take_along_axis(a, np.array([[0, 3, 3]] * 3), 1),
    ),
    Case(
        "take-along-dim-none",
        lambda m, a: m.take_along_dim(a, ix(m, [5, 0, 5, 11])),
        any_((3, 4)),
        ref=lambda m, a: a.reshape(-1)[[5, 0, 5, 11]],
    ),
    Case(
        "take",
        lambda m, a: m.take(a, ix(m, [[0, -1], [5, 5]])),
        any_((3, 4)),
        ref=lambda m, a: a.reshape(-1)[np.array([[0, -1], [5, 5]])],
    ),
    Case("sort-values", lambda m, a: m.sort(a)[0], [((3, 4), "distinct")], ref=lambda m, a: np.sort(a, -1)),
    Case(
        "sort-descending-dim0",
        lambda m, a: a.sort(0, descending=True).values,
        [((3, 4), "distinct")],
        ref=lambda m, a: -np.sort(-a, 0),
    ),
    Case(
        "sort-stable",
        lambda m, a: m.sort(a, dim=1, stable=True).values,
        [((2, 5), "distinct")],
        ref=lambda m, a: np.sort(a, 1),
    ),
    Case(
        "topk-values",
        lambda m, a: m.topk(a, 2).values,
        [((3, 4), "distinct")],
        ref=lambda m, a: -np.sort(-a, -1)[:, :2],
    ),
    Case(
        "topk-smallest-dim0",
        lambda m, a: a.topk(2, dim=0, largest=False)[0],
        [((3, 4), "distinct")],
        ref=lambda m, a: np.sort(a, 0)[:2],
    ),
    Case(
        "kthvalue-values",
        lambda m, a: a.kthvalue(2, 1).values,
        [((3, 4), "distinct")],
        ref=lambda m, a: np.sort(a, 1)[:, 1],
    ),
    Case(
        "kthvalue-keepdim",
        lambda m, a: m.kthvalue(a, 3, 0, True)[0],
        [((3, 4), "distinct")],
        ref=lambda m, a: np.sort(a, 0)[2:3],
    ),
    Case("median-all", lambda m, a: a.median(), [((3, 4), "distinct")], ref=lambda m, a: np.sort(a.ravel())[5]),
    Case(
        "median-dim",
        lambda m, a: m.median(a, 1).values,
        [((3, 4), "distinct")],
        ref=lambda m, a: np.sort(a, 1)[:, 1],
    ),
]


def _squared(case: Case) -> Case:
    """The case made nonlinear (squared), so that it has a second derivative."""
    fn = case.fn
    ref = case.ref or case.fn
    return Case(
        case.id + "-squared",
        lambda m, *xs: fn(m, *xs) ** 2,
        case.inputs,
        ref=lambda m, *xs: ref(m, *xs) ** 2,
    )


DOUBLE = [
    _squared(c)
    for c in GETITEM + OPS
    if c.id
    in {
        "list-repeated",
        "broadcast",
        "separated",
        "int-separated",
        "mask",
        "mask-and-tensor",
        "true",
        "gather-dim1",
        "scatter-src",
        "scatter-value",
        "scatter-add-repeated",
        "index-select-repeated",
        "masked-fill",
        "masked-fill-tensor-value",
        "masked-select-broadcast",
        "take-along-dim-broadcast",
        "take",
        "sort-values",
        "topk-values",
        "kthvalue-values",
        "median-all",
        "median-dim",
    }
]


class TestIndexingOps(OpFamilyTests):
    cases = GETITEM + OPS
    double_cases = DOUBLE


# --------------------------------------------------------------------------- backward node names

NAMED = [
    ("x[1]", lambda m, x: x[1]),
    ("x[1:]", lambda m, x: x[1:]),
    ("x[:]", lambda m, x: x[:]),
    ("x[:, 1]", lambda m, x: x[:, 1]),
    ("x[1, None]", lambda m, x: x[1, None]),
    ("x[None, 1]", lambda m, x: x[None, 1]),
    ("x[...]", lambda m, x: x[...]),
    ("x[()]", lambda m, x: x[()]),
    ("x[[0]]", lambda m, x: x[[0]]),
    ("x[True]", lambda m, x: x[True]),
    ("x[mask]", lambda m, x: x[x > 0]),
    ("gather", lambda m, x: x.gather(1, m.tensor([[0], [1], [0]]))),
    ("scatter-src", lambda m, x: x.scatter(1, m.tensor([[0], [1], [0]]), x)),
    ("scatter-value", lambda m, x: x.scatter(1, m.tensor([[0], [1], [0]]), 1.0)),
    ("scatter_add", lambda m, x: x.scatter_add(1, m.tensor([[0], [1], [0]]), x)),
    ("index_select", lambda m, x: x.index_select(0, m.tensor([1]))),
    ("masked_fill", lambda m, x: x.masked_fill(x > 0, 1.0)),
    ("masked_fill-tensor", lambda m, x: x.masked_fill(x > 0, m.tensor(1.0))),
    ("masked_select", lambda m, x: x.masked_select(x > 0)),
    ("take_along_dim", lambda m, x: m.take_along_dim(x, m.tensor([[0], [1], [0]]), 1)),
    ("take", lambda m, x: m.take(x, m.tensor([1]))),
    ("sort", lambda m, x: x.sort()[0]),
    ("sort-stable", lambda m, x: x.sort(stable=True)[0]),
    ("topk", lambda m, x: x.topk(1)[0]),
    ("kthvalue", lambda m, x: x.kthvalue(1)[0]),
    ("median", lambda m, x: x.median()),
    ("median-dim", lambda m, x: x.median(0)[0]),
]


@pytest.mark.parametrize(("label", "fn"), NAMED, ids=[n for n, _ in NAMED])
def test_backward_node_names_match_torch(torch: Any, label: str, fn: Callable[..., Any]) -> None:
    data = np.arange(12.0).reshape(3, 4) - 5.5
    c = fn(ctxgrad, ctxgrad.tensor(data, requires_grad=True))
    t = fn(torch, torch.tensor(data, requires_grad=True))
    assert c.grad_fn.name() == t.grad_fn.name()


def test_double_backward_node_of_advanced_index_gradient() -> None:
    x = ctxgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (g,) = ctxgrad.autograd.grad((x[[0, 0, 2]] ** 2).sum(), x, create_graph=True)
    assert g.grad_fn is not None
    np.testing.assert_allclose(g.detach().numpy(), [4.0, 0.0, 6.0])


# --------------------------------------------------------------------------- views and copies


def test_basic_index_is_a_view_advanced_index_a_copy() -> None:
    x = ctxgrad.arange(12.0).reshape(3, 4)
    basic = x[1, 1:]
    assert np.shares_memory(basic.numpy(), x.numpy())
    assert basic._base is not None
    for index in ([0, 1], ctxgrad.tensor([0, 1]), x > 3, True, (slice(None), [1, 2])):
        adv = x[index]
        assert not np.shares_memory(adv.numpy(), x.numpy())
        assert adv._base is None


def test_basic_view_tracks_versions() -> None:
    x = ctxgrad.arange(6.0).reshape(2, 3)
    view = x[0]
    before = view._version
    x.add_(1.0)
    assert view._version == before + 1
    assert to_numpy(view).tolist() == [1.0, 2.0, 3.0]


def test_zero_dim_int_tensor_and_numpy_int_index_like_ints(torch: Any) -> None:
    data = np.arange(12.0).reshape(3, 4)
    for make in (lambda m: m.tensor(1), lambda m: m.tensor(1, dtype=m.int32), lambda m: np.int64(1)):
        c = ctxgrad.tensor(data, requires_grad=True)[make(ctxgrad)]
        t = torch.tensor(data, requires_grad=True)[make(torch)]
        assert c.grad_fn.name() == t.grad_fn.name() == "SelectBackward0"
        np.testing.assert_array_equal(to_numpy(c), t.detach().numpy())


# --------------------------------------------------------------------------- more index forms vs torch

INDEX_FORMS = [
    lambda m: ([1, 0],),
    lambda m: ([1.0, 0.0],),  # a float list is read as int64, as torch reads it
    lambda m: (np.array([1.7, 0.2]), 0),
    lambda m: (np.array([True, False, True]),),
    lambda m: (np.array([1, 0], dtype=np.int32),),
    lambda m: (m.tensor([2, 0], dtype=m.int32),),
    lambda m: ([1, True],),
    lambda m: ([],),
    lambda m: (False,),
    lambda m: (True, [0, 1]),
    lambda m: ([0, 1], True),
    lambda m: (m.tensor(False),),
    lambda m: ((0, 1),),
    lambda m: ([[0, 1]], slice(None), None),
    lambda m: (slice(None), None, [0, 1]),
    lambda m: ([1, 2], None, [0, 1]),
    lambda m: (m.tensor([[0, 1]]), m.tensor([[1], [2]])),
    lambda m: (Ellipsis, m.tensor([[True, False, True, False]] * 3)),
    lambda m: (m.tensor([True, False, True]), m.tensor([3, 0])),
]


@pytest.mark.parametrize("form", range(len(INDEX_FORMS)))
def test_index_forms_match_torch(torch: Any, form: int) -> None:
    data = np.arange(12.0).reshape(3, 4)
    c = ctxgrad.tensor(data, requires_grad=True)
    t = torch.tensor(data, requires_grad=True)
    cout = c[INDEX_FORMS[form](ctxgrad)]
    tout = t[INDEX_FORMS[form](torch)]
    assert tuple(cout.shape) == tuple(tout.shape)
    np.testing.assert_array_equal(to_numpy(cout), tout.detach().numpy())
    assert cout.grad_fn.name() == tout.grad_fn.name()
    w = np.random.default_rng(form).standard_normal(tuple(tout.shape))
    (cout * ctxgrad.tensor(w)).sum().backward()
    (tout * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(to_numpy(c.grad), t.grad.numpy())


def test_zero_dim_tensor_indexing_matches_torch(torch: Any) -> None:
    for index in (None, True, False, Ellipsis):
        c = ctxgrad.tensor(2.0)[index]
        t = torch.tensor(2.0)[index]
        assert tuple(c.shape) == tuple(t.shape)
    assert tuple(ctxgrad.tensor(2.0)[ctxgrad.tensor(False)].shape) == (0,)


def test_list_of_sequences_is_read_as_a_tuple_with_torchs_warning(torch: Any) -> None:
    data = np.arange(12.0).reshape(3, 4)
    with pytest.warns(UserWarning, match="non-tuple sequence"):
        c = ctxgrad.tensor(data)[[[0, 1], [1, 2]]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = torch.tensor(data)[[[0, 1], [1, 2]]]
    np.testing.assert_array_equal(to_numpy(c), t.numpy())


def test_uint8_index_is_a_mask_with_torchs_warning(torch: Any) -> None:
    data = np.arange(12.0).reshape(3, 4)
    with pytest.warns(UserWarning, match="indexing with dtype torch.uint8 is now deprecated"):
        c = ctxgrad.tensor(data)[ctxgrad.tensor([1, 0, 1], dtype=ctxgrad.uint8)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = torch.tensor(data)[torch.tensor([1, 0, 1], dtype=torch.uint8)]
    np.testing.assert_array_equal(to_numpy(c), t.numpy())


# --------------------------------------------------------------------------- errors vs torch

ERRORS = [
    ("int out of range", lambda m, x: x[3]),
    ("negative int out of range", lambda m, x: x[-4]),
    ("tensor out of range", lambda m, x: x[m.tensor([0, 3])]),
    ("negative tensor out of range", lambda m, x: x[m.tensor([0, -4])]),
    ("tensor out of range in dim 1", lambda m, x: x[:, m.tensor([0, 7])]),
    ("list out of range", lambda m, x: x[[0, 5]]),
    ("second tensor out of range", lambda m, x: x[[0, 1], [0, 9]]),
    ("first bad element wins", lambda m, x: x[[0, 9], [7, 0]]),
    ("first bad broadcast element wins", lambda m, x: x[[[0], [9]], [7, 0]]),
    ("bool counts as an index tensor", lambda m, x: x[True, [0, 7]]),
    ("mask counts as an index tensor", lambda m, x: x[m.tensor([True, False, True]), [0, 7]]),
    ("int then tensor out of range", lambda m, x: x[5, [0]]),
    ("0-d int tensor out of range", lambda m, x: x[m.tensor(5)]),
    ("broadcast mismatch", lambda m, x: x[[0, 1], [0, 1, 2]]),
    ("too many tensors", lambda m, x: x[[0], [0], [0]]),
    ("too many ints", lambda m, x: x[0, 0, 0]),
    ("mask too short", lambda m, x: x[m.tensor([True, False])]),
    ("bool list too short", lambda m, x: x[[True, False]]),
    ("mask 2-d mismatch", lambda m, x: x[m.ones(3, 3, dtype=m.bool)]),
    ("mask in dim 1", lambda m, x: x[:, m.tensor([True, False, True])]),
    ("mask after None", lambda m, x: x[None, m.tensor([True, False])]),
    ("mask with too many dims", lambda m, x: x[m.ones(3, 4, 1, dtype=m.bool)]),
    ("float tensor index", lambda m, x: x[m.tensor([1.0, 0.0])]),
    ("int16 tensor index", lambda m, x: x[m.tensor([1, 0], dtype=m.int16)]),
    ("empty float tensor", lambda m, x: x[m.tensor([])]),
    ("float index", lambda m, x: x[1.5]),
    ("string index", lambda m, x: x["a"]),
    ("numpy bool scalar", lambda m, x: x[np.bool_(True)]),
    ("zero step", lambda m, x: x[::0]),
    ("negative step", lambda m, x: x[::-1]),
    ("int into 0-d", lambda m, x: x.sum()[0]),
    ("list into 0-d", lambda m, x: x.sum()[[0]]),
    ("gather float index", lambda m, x: x.gather(1, m.tensor([[0.0]]))),
    ("gather int16 index", lambda m, x: x.gather(1, m.tensor([[0]], dtype=m.int16))),
    ("gather ndim", lambda m, x: x.gather(1, m.tensor([0, 1]))),
    ("gather size", lambda m, x: x.gather(1, m.zeros(4, 2, dtype=m.long))),
    ("gather size dim", lambda m, x: x.gather(0, m.zeros(2, 5, dtype=m.long))),
    ("gather out of range", lambda m, x: x.gather(1, m.tensor([[0, 7]]))),
    ("gather negative", lambda m, x: x.gather(1, m.tensor([[0, -1]]))),
    ("gather dim", lambda m, x: x.gather(2, m.tensor([[0]]))),
    ("scatter float index", lambda m, x: x.scatter(1, m.tensor([[0.0]]), 1.0)),
    ("scatter ndim", lambda m, x: x.scatter(1, m.tensor([0]), 1.0)),
    ("scatter src dtype first", lambda m, x: x.scatter(0, m.tensor([[0]]), m.ones(4))),
    ("scatter src fewer dims", lambda m, x: x.scatter(0, m.tensor([[0]]), m.ones(4, dtype=m.float64))),
    ("scatter src more dims", lambda m, x: x.scatter(0, m.tensor([[0]]), m.ones(1, 1, 1, dtype=m.float64))),
    ("scatter too large", lambda m, x: x.scatter(1, m.zeros(4, 2, dtype=m.long), 1.0)),
    ("scatter src too small", lambda m, x: x.scatter(1, m.zeros(2, 2, dtype=m.long), m.ones(2, 1))),
    ("scatter out of range", lambda m, x: x.scatter(1, m.tensor([[5]]), 1.0)),
    ("scatter dtype", lambda m, x: x.scatter(1, m.tensor([[0]]), m.ones(1, 1, dtype=m.float32))),
    ("scatter_add number", lambda m, x: x.scatter_add(1, m.tensor([[0]]), 2.0)),
    ("index_select float", lambda m, x: x.index_select(1, m.tensor([0.0]))),
    ("index_select 2-d", lambda m, x: x.index_select(1, m.tensor([[0]]))),
    ("index_select out of range", lambda m, x: x.index_select(1, m.tensor([5]))),
    ("index_select negative", lambda m, x: x.index_select(1, m.tensor([-1]))),
    ("index_select list", lambda m, x: x.index_select(1, [0])),
    ("masked_fill float mask", lambda m, x: x.masked_fill(m.ones(4), 1.0)),
    ("masked_fill uint8 mask", lambda m, x: x.masked_fill(m.ones(4, dtype=m.uint8), 1.0)),
    ("masked_fill mask shape", lambda m, x: x.masked_fill(m.ones(3, dtype=m.bool), 1.0)),
    ("masked_fill 1-d value", lambda m, x: x.masked_fill(x > 0, m.tensor([1.0]))),
    ("masked_select float mask", lambda m, x: x.masked_select(m.ones(4))),
    ("masked_select shape", lambda m, x: x.masked_select(m.ones(3, dtype=m.bool))),
    ("take_along_dim int32", lambda m, x: m.take_along_dim(x, m.tensor([[0]], dtype=m.int32), 1)),
    ("take_along_dim ndim", lambda m, x: m.take_along_dim(x, m.tensor([0]), 1)),
    ("take_along_dim shape", lambda m, x: m.take_along_dim(x, m.tensor([[0, 1]]), 0)),
    ("take out of range", lambda m, x: m.take(x, m.tensor([12]))),
    ("take int32", lambda m, x: m.take(x, m.tensor([1], dtype=m.int32))),
    ("topk k too big", lambda m, x: x.topk(5)),
    ("topk k negative", lambda m, x: x.topk(-1)),
    ("topk 0-d k 2", lambda m, x: x.sum().topk(2)),
    ("sort dim", lambda m, x: x.sort(2)),
    ("kthvalue k too big", lambda m, x: x.kthvalue(5)),
    ("kthvalue k zero", lambda m, x: x.kthvalue(0)),
]


@pytest.mark.parametrize(("label", "fn"), ERRORS, ids=[n for n, _ in ERRORS])
def test_errors_match_torch(torch: Any, label: str, fn: Callable[..., Any]) -> None:
    data = np.arange(12.0).reshape(3, 4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = raised(lambda: fn(torch, torch.tensor(data)), torch)
    got = raised(lambda: fn(ctxgrad, ctxgrad.tensor(data)), ctxgrad)
    assert got[0] == expected[0], (got, expected)
    assert got[1] == expected[1] or expected[1].startswith(got[1]), (got, expected)


def test_scatter_to_a_larger_src_gives_the_gradient_torch_refuses(torch: Any) -> None:
    """A src larger than its index: the unused part of src gets zero gradient (torch raises)."""
    src = ctxgrad.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
    idx = ctxgrad.tensor([[0, 1], [2, 0]])
    ctxgrad.zeros(3, 4, dtype=ctxgrad.float64).scatter(1, idx, src).sum().backward()
    assert src.grad is not None
    expected = np.zeros((3, 4))
    expected[:2, :2] = 1.0
    np.testing.assert_array_equal(to_numpy(src.grad), expected)
    tsrc = torch.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
    with pytest.raises(RuntimeError, match="invalid gradient"):
        torch.zeros(3, 4, dtype=torch.float64).scatter(1, torch.tensor([[0, 1], [2, 0]]), tsrc).sum().backward()


# --------------------------------------------------------------------------- sort and friends

SORT_DATA = [[3.0, 1.0, 2.0, 1.0, 3.0], [0.0, 5.0, 5.0, -1.0, 5.0]]


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_stable_sort_with_ties_matches_torch(torch: Any, descending: bool, dim: int) -> None:
    c = ctxgrad.sort(ctxgrad.tensor(SORT_DATA, requires_grad=True), dim=dim, descending=descending, stable=True)
    t = torch.sort(torch.tensor(SORT_DATA, requires_grad=True), dim=dim, descending=descending, stable=True)
    np.testing.assert_array_equal(to_numpy(c.values), t.values.detach().numpy())
    np.testing.assert_array_equal(to_numpy(c.indices), t.indices.numpy())
    assert dtype_name(c.indices.dtype) == "int64" and not c.indices.requires_grad
    ca = ctxgrad.argsort(ctxgrad.tensor(SORT_DATA), dim=dim, descending=descending, stable=True)
    ta = torch.argsort(torch.tensor(SORT_DATA), dim=dim, descending=descending, stable=True)
    np.testing.assert_array_equal(to_numpy(ca), ta.numpy())


def test_sort_nan_and_int_and_bool_match_torch(torch: Any) -> None:
    for data in ([1.0, float("nan"), 0.0, float("nan")], [3, 1, 2, 1], [True, False, True]):
        for descending in (False, True):
            c = ctxgrad.tensor(data).sort(descending=descending, stable=True)
            t = torch.tensor(data).sort(descending=descending, stable=True)
            np.testing.assert_array_equal(to_numpy(c.values), t.values.numpy())
            np.testing.assert_array_equal(to_numpy(c.indices), t.indices.numpy())
            assert dtype_name(c.values.dtype) == dtype_name(t.values.dtype)


def test_sort_returns_a_named_tuple_with_a_gradient_through_values() -> None:
    x = ctxgrad.tensor([3.0, 1.0, 2.0], requires_grad=True)
    out = x.sort()
    values, indices = out
    assert out.values is values and out.indices is indices
    assert type(out).__name__ == "sort"
    assert indices.grad_fn is None and not indices.requires_grad
    (values * ctxgrad.tensor([1.0, 10.0, 100.0])).sum().backward()
    assert x.grad is not None
    assert to_numpy(x.grad).tolist() == [100.0, 1.0, 10.0]


@pytest.mark.parametrize(
    "fn",
    [
        lambda m, x: x.topk(2),
        lambda m, x: x.topk(2, largest=False),
        lambda m, x: x.topk(1, dim=0),
        lambda m, x: x.topk(0),
        lambda m, x: m.topk(x, 3, -1, True, True),
        lambda m, x: x.kthvalue(2),
        lambda m, x: x.kthvalue(2, 0, True),
        lambda m, x: m.kthvalue(x, 4, dim=1),
        lambda m, x: x.median(1),
        lambda m, x: x.median(dim=0, keepdim=True),
        lambda m, x: x.sort(0),
    ],
)
def test_value_index_pairs_match_torch(torch: Any, fn: Callable[..., Any]) -> None:
    data = [[3.0, 1.0, 2.0, 1.5], [0.0, 5.0, 4.0, -1.0]]
    c = fn(ctxgrad, ctxgrad.tensor(data, requires_grad=True))
    t = fn(torch, torch.tensor(data, requires_grad=True))
    assert type(c).__name__ == type(t).__name__
    np.testing.assert_array_equal(to_numpy(c.values), t.values.detach().numpy())
    np.testing.assert_array_equal(to_numpy(c.indices), t.indices.numpy())
    assert dtype_name(c.indices.dtype) == "int64"
    assert c.values.requires_grad == t.values.requires_grad
    assert not c.indices.requires_grad and c.indices.grad_fn is None


def test_topk_ties_pick_the_earliest_positions() -> None:
    """With ties torch's choice of indices is unspecified (it varies with the algorithm);
    ctxgrad's is stable: the earliest positions, in order.  The values agree with torch."""
    data = [[0.0, 5.0, 5.0, -1.0, 5.0], [1.0, 1.0, 1.0, 1.0, 1.0]]
    largest = ctxgrad.tensor(data).topk(3)
    assert to_numpy(largest.indices).tolist() == [[1, 2, 4], [0, 1, 2]]
    assert to_numpy(largest.values).tolist() == [[5.0, 5.0, 5.0], [1.0, 1.0, 1.0]]
    smallest = ctxgrad.tensor(data).topk(3, largest=False)
    assert to_numpy(smallest.indices).tolist() == [[3, 0, 1], [0, 1, 2]]


def test_median_matches_torch_with_nan_ints_and_ties(torch: Any) -> None:
    for data in ([3.0, float("nan"), 2.0], [3, 1, 2, 4], [2.0, 1.0, 2.0, 2.0], [[1.0, float("nan")], [2.0, 0.0]]):
        c = ctxgrad.tensor(data).median()
        t = torch.tensor(data).median()
        np.testing.assert_array_equal(to_numpy(c), t.numpy())
        assert dtype_name(c.dtype) == dtype_name(t.dtype)
    c2 = ctxgrad.tensor([[1.0, float("nan"), 0.0], [2.0, 0.0, 1.0]]).median(1)
    t2 = torch.tensor([[1.0, float("nan"), 0.0], [2.0, 0.0, 1.0]]).median(1)
    np.testing.assert_array_equal(to_numpy(c2.values), t2.values.numpy())
    np.testing.assert_array_equal(to_numpy(c2.indices), t2.indices.numpy())


def test_median_gradient_with_ties_matches_torch(torch: Any) -> None:
    data = [2.0, 1.0, 2.0, 3.0, 2.0]
    c = ctxgrad.tensor(data, requires_grad=True)
    t = torch.tensor(data, requires_grad=True)
    c.median().backward()
    t.median().backward()
    assert c.grad is not None
    np.testing.assert_allclose(to_numpy(c.grad), t.grad.numpy())


def test_nonzero_argwhere_and_one_argument_where_match_torch(torch: Any) -> None:
    for data in ([[0.0, 1.5], [2.0, 0.0]], [0, 3, 0, 4], 1.0, 0.0, [[False, True]]):
        c, t = ctxgrad.tensor(data), torch.tensor(data)
        for fn in (
            lambda m, x: m.nonzero(x),
            lambda m, x: x.nonzero(),
            lambda m, x: m.argwhere(x),
            lambda m, x: x.argwhere(),
        ):
            co, to = fn(ctxgrad, c), fn(torch, t)
            assert tuple(co.shape) == tuple(to.shape)
            assert dtype_name(co.dtype) == "int64"
            np.testing.assert_array_equal(to_numpy(co), to.numpy())
        for fn in (lambda m, x: m.nonzero(x, as_tuple=True), lambda m, x: m.where(x)):
            cs, ts = fn(ctxgrad, c), fn(torch, t)
            assert isinstance(cs, tuple) and len(cs) == len(ts)
            for co, to in zip(cs, ts):
                np.testing.assert_array_equal(to_numpy(co), to.numpy())
                assert dtype_name(co.dtype) == "int64"


def test_three_argument_where_still_works() -> None:
    out = ctxgrad.where(ctxgrad.tensor([True, False]), ctxgrad.tensor([1.0, 2.0]), ctxgrad.tensor([3.0, 4.0]))
    assert to_numpy(out).tolist() == [1.0, 4.0]


@pytest.mark.parametrize("dtype", ["int64", "int32", "bool", "float32"])
def test_output_dtypes_for_integer_bool_and_float32_inputs_match_torch(torch: Any, dtype: str) -> None:
    data = [[1, 0, 2], [0, 3, 1]]
    c = ctxgrad.tensor(data, dtype=getattr(ctxgrad, dtype))
    t = torch.tensor(data, dtype=getattr(torch, dtype))
    idx = [[0, 0], [2, 1]]
    fns: list[Callable[[Any, Any], Any]] = [
        lambda m, x: x[[0, 1, 1]],
        lambda m, x: x[x != 0] if dtype != "bool" else x[x],
        lambda m, x: x.gather(1, m.tensor(idx)),
        lambda m, x: x.scatter(1, m.tensor(idx), 1),
        lambda m, x: x.scatter_add(1, m.tensor(idx), x[:, :2].contiguous()),
        lambda m, x: x.index_select(1, m.tensor([2, 0])),
        lambda m, x: x.masked_fill(m.tensor([True, False, True]), 1.7 if dtype != "bool" else True),
        lambda m, x: x.masked_select(m.tensor([True, False, True])),
        lambda m, x: m.take_along_dim(x, m.tensor(idx), 1),
        lambda m, x: m.take(x, m.tensor([4, 0])),
        lambda m, x: x.sort(stable=True).values,
        lambda m, x: x.sort(stable=True).indices,
        lambda m, x: x.argsort(stable=True),
        lambda m, x: x.topk(2).values if dtype != "bool" else x.sort().values,
    ]
    for fn in fns:
        co, to = fn(ctxgrad, c), fn(torch, t)
        assert dtype_name(co.dtype) == dtype_name(to.dtype)
        np.testing.assert_array_equal(to_numpy(co), to.numpy())


def test_method_and_function_forms_agree() -> None:
    x = ctxgrad.tensor(np.arange(12.0).reshape(3, 4))
    idx = ctxgrad.tensor([[0, 1], [2, 3], [1, 1]])
    mask = x > 4
    pairs = [
        (x.gather(1, idx), ctxgrad.gather(x, 1, idx)),
        (x.scatter(1, idx, 0.0), ctxgrad.scatter(x, 1, idx, value=0.0)),
        (x.scatter_add(1, idx, x[:, :2].contiguous()), ctxgrad.scatter_add(x, 1, idx, x[:, :2].contiguous())),
        (x.index_select(0, idx[0]), ctxgrad.index_select(x, 0, idx[0])),
        (x.masked_fill(mask, 1.0), ctxgrad.masked_fill(x, mask, 1.0)),
        (x.masked_select(mask), ctxgrad.masked_select(x, mask)),
        (x.take_along_dim(idx, 1), ctxgrad.take_along_dim(x, idx, 1)),
        (x.take(idx), ctxgrad.take(x, idx)),
        (x.sort(1, True).values, ctxgrad.sort(x, 1, True).values),
        (x.argsort(0, True), ctxgrad.argsort(x, 0, True)),
        (x.topk(2, 0).values, ctxgrad.topk(x, 2, 0).values),
        (x.kthvalue(2).values, ctxgrad.kthvalue(x, 2).values),
        (x.median(), ctxgrad.median(x)),
        (x.nonzero(), ctxgrad.nonzero(x)),
    ]
    for a, b in pairs:
        np.testing.assert_array_equal(to_numpy(a), to_numpy(b))


def test_keyword_names_match_torch(torch: Any) -> None:
    data = np.arange(12.0).reshape(3, 4)
    for m in (ctxgrad, torch):
        x = m.tensor(data)
        idx = m.tensor([[0], [1], [0]])
        m.gather(input=x, dim=1, index=idx)
        m.scatter(input=x, dim=1, index=idx, src=x)
        m.scatter_add(input=x, dim=1, index=idx, src=x)
        m.index_select(input=x, dim=0, index=m.tensor([0]))
        m.masked_fill(input=x, mask=x > 1, value=0.0)
        m.masked_select(input=x, mask=x > 1)
        m.take_along_dim(input=x, indices=idx, dim=1)
        m.take(input=x, index=m.tensor([0]))
        m.sort(input=x, dim=0, descending=True, stable=True)
        m.argsort(input=x, dim=0, descending=True, stable=True)
        m.topk(input=x, k=1, dim=0, largest=False, sorted=True)
        m.kthvalue(input=x, k=1, dim=0, keepdim=True)
        m.median(input=x, dim=0, keepdim=True)
        m.nonzero(input=x, as_tuple=True)


# --------------------------------------------------------------------------- helpers for assignment


def test_normalize_index_gives_a_view_index_and_refuses_advanced_items() -> None:
    a = np.arange(12.0).reshape(3, 4)
    index = normalize_index((1, slice(None, None, 2)), a.shape)
    assert index[-1] is Ellipsis
    assert np.shares_memory(a[index], a)
    assert normalize_index(ctxgrad.tensor(1), a.shape) == (1, Ellipsis)
    with pytest.raises(IndexError):
        normalize_index([0, 1], a.shape)


def test_numpy_index_reads_and_writes_as_torch(torch: Any) -> None:
    data = np.arange(24.0).reshape(2, 3, 4)
    index_c = (slice(None), ctxgrad.tensor([0, 2]), slice(None))
    index_t = (slice(None), torch.tensor([0, 2]), slice(None))
    found = numpy_index(index_c, data.shape)
    assert isinstance(found, NumpyIndex)
    np.testing.assert_array_equal(found.take(data), torch.tensor(data)[index_t].numpy())
    # Torch applies the int first: the tensor's dimension stays where it is.
    found = numpy_index((slice(None), [0, 2], 1), data.shape)
    np.testing.assert_array_equal(found.take(data), torch.tensor(data)[:, [0, 2], 1].numpy())
    out = data.copy()
    found.put(out, -1.0)
    expected = torch.tensor(data)
    expected[:, [0, 2], 1] = -1.0
    np.testing.assert_array_equal(out, expected.numpy())
    out = np.zeros(4)
    numpy_index(([1, 1, 3],), (4,)).put(out, np.array([1.0, 2.0, 3.0]), accumulate=True)
    assert out.tolist() == [0.0, 3.0, 0.0, 3.0]
    basic = numpy_index((0, slice(1, 3)), data.shape)
    assert basic.advanced is None and np.shares_memory(basic.take(data), data)
    with pytest.raises(IndexError, match="index 5 is out of bounds for dimension 0 with size 3"):
        numpy_index((slice(None), [0, 5]), data.shape)


def test_changing_the_index_after_indexing_does_not_change_the_gradient() -> None:
    for make in (lambda: ctxgrad.tensor([0, 0, 2]), lambda: np.array([0, 0, 2]), lambda: ctxgrad.tensor([1, 0, 1]) > 0):
        x = ctxgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
        index = make()
        y = x[index]
        data = index.numpy() if isinstance(index, ctxgrad.Tensor) else index
        expected = np.zeros(3)
        np.add.at(expected, np.nonzero(data)[0] if data.dtype == np.bool_ else data, 1.0)
        data[...] = data[::-1].copy() if data.dtype != np.bool_ else ~data
        y.sum().backward()
        assert x.grad is not None
        np.testing.assert_array_equal(to_numpy(x.grad), expected)


def test_saved_index_of_gather_is_version_checked() -> None:
    x = ctxgrad.tensor([[1.0, 2.0]], requires_grad=True)
    index = ctxgrad.tensor([[1, 1]])
    y = x.gather(1, index)
    index.add_(-1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


@pytest.mark.parametrize(
    "fn",
    [
        pytest.param(lambda m, x: x.select(1, -1), id="method-negative"),
        pytest.param(lambda m, x: m.select(x, 0, 1), id="function"),
        pytest.param(lambda m, x: x.select(-1, 0) * 2, id="negative-dim"),
    ],
)
def test_select_matches_torch(torch: Any, fn: Callable[..., Any]) -> None:
    results = []
    for m in (ctxgrad, torch):
        x = m.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=m.float64, requires_grad=True)
        y = fn(m, x)
        (y * m.arange(y.numel(), dtype=m.float64).reshape(y.shape)).sum().backward()
        results.append((y.detach().numpy(), x.grad.numpy(), y._base is not None))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    np.testing.assert_array_equal(results[0][1], results[1][1])
    assert results[0][2] == results[1][2]


@pytest.mark.parametrize(
    "fn",
    [
        pytest.param(lambda m: m.zeros(2, 3).select(1, 5), id="index-out-of-range"),
        pytest.param(lambda m: m.tensor(1.0).select(0, 0), id="0-dim"),
        pytest.param(lambda m: m.zeros(2, 3).select(2, 0), id="dim-out-of-range"),
    ],
)
def test_select_errors_match_torch(torch: Any, fn: Callable[[Any], Any]) -> None:
    assert raised(lambda: fn(ctxgrad), ctxgrad) == raised(lambda: fn(torch), torch)

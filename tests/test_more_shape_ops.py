"""The shape and index-construction ops torch code calls beside the basic ones:
``tensor_split`` (and ``hsplit``/``vsplit``/``dsplit``), ``split_with_sizes``, ``atleast_*d``,
``column_stack``/``row_stack``/``dstack``, ``ravel``, ``rot90``, ``repeat_interleave``,
``meshgrid``, ``cartesian_prod``, ``combinations``, ``block_diag``, ``diagflat``,
``tril_indices``/``triu_indices``, ``narrow_copy``, ``Tensor.unfold`` and ``as_strided``.

The table runs every case through the op kit (values against NumPy, values, gradients and
float32 against torch, central differences, forward mode, double backward); the plain tests
check torch's errors, grad_fn names, which results are views, and the integer-valued ones.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _opcheck import Case, OpFamilyTests, any_
from _support import raised

import ctxgrad


def _weighted(pieces: Any) -> list[Any]:
    """Each piece of a multi-output op times a different number (each gradient checked apart)."""
    return [p * (i + 1.0) for i, p in enumerate(pieces)]


def _joined(m: Any, pieces: Any, dim: int = 0) -> Any:
    cat = np.concatenate if m is np else m.cat
    return cat(_weighted(pieces), dim)


def _rot90_ref(k: int, dims: tuple[int, int]) -> Callable[..., Any]:
    return lambda m, a: np.rot90(a, k, dims)


def _sq(op: Callable[..., Any]) -> Callable[..., Any]:
    """``op(...) ** 2``: the op's backward (and its backward's backward) takes part in the
    second derivative."""
    return lambda m, *xs: op(m, *xs) ** 2


CASES = [
    Case(
        "tensor_split-sections",
        lambda m, a: _joined(m, m.tensor_split(a, 3, 1), 1),
        any_((2, 7)),
        ref=lambda m, a: _joined(np, np.array_split(a, 3, 1), 1),
    ),
    Case(
        "tensor_split-indices",
        lambda m, a: _joined(m, a.tensor_split([1, -2, 9])),
        any_((6, 2)),
        ref=lambda m, a: _joined(np, [a[:1], a[1:-2], a[-2:9], a[9:]]),
    ),
    Case(
        "hsplit",
        lambda m, a: _joined(m, m.hsplit(a, 2), 1),
        any_((3, 4)),
        ref=lambda m, a: _joined(np, np.hsplit(a, 2), 1),
    ),
    Case(
        "vsplit", lambda m, a: _joined(m, a.vsplit([1])), any_((3, 2)), ref=lambda m, a: _joined(np, np.vsplit(a, [1]))
    ),
    Case(
        "dsplit",
        lambda m, a: _joined(m, m.dsplit(a, 2), 2),
        any_((2, 1, 4)),
        ref=lambda m, a: _joined(np, np.dsplit(a, 2), 2),
    ),
    Case(
        "split_with_sizes",
        lambda m, a: _joined(m, a.split_with_sizes([1, 3], 1), 1),
        any_((2, 4)),
        ref=lambda m, a: _joined(np, np.split(a, [1], 1), 1),
    ),
    Case("atleast_1d-0d", lambda m, a: m.atleast_1d(a), any_(())),
    Case("atleast_2d-1d", lambda m, a: m.atleast_2d(a), any_((3,))),
    Case("atleast_3d-1d", lambda m, a: m.atleast_3d(a), any_((3,))),
    Case("atleast_3d-2d", lambda m, a: m.atleast_3d(a), any_((2, 3))),
    Case(
        "atleast_3d-several",
        lambda m, a, b: m.stack(_weighted(m.atleast_3d(a, b))),
        any_((), (1, 1)),
        ref=lambda m, a, b: np.stack(_weighted(np.atleast_3d(a, b))),
    ),
    Case("column_stack", lambda m, a, b: m.column_stack([a, b]), any_((3,), (3, 2))),
    Case("row_stack", lambda m, a, b: m.row_stack([a, b]), any_((3,), (2, 3)), ref=lambda m, a, b: np.vstack([a, b])),
    Case("dstack", lambda m, a, b: m.dstack([a, b]), any_((2, 3), (2, 3, 2))),
    Case("ravel", lambda m, a: m.ravel(a.mT), any_((2, 3)), ref=lambda m, a: np.ravel(a.T)),
    Case("rot90", lambda m, a: m.rot90(a), any_((2, 3)), ref=_rot90_ref(1, (0, 1))),
    Case("rot90-k2-dims", lambda m, a: a.rot90(2, [1, 2]), any_((2, 3, 4)), ref=_rot90_ref(2, (1, 2))),
    Case("rot90-k-negative", lambda m, a: a.rot90(-1, (0, -1)), any_((2, 3)), ref=_rot90_ref(-1, (0, 1))),
    Case("rot90-k0", lambda m, a: a.rot90(4), any_((2, 3)), ref=_rot90_ref(0, (0, 1))),
    Case(
        "repeat_interleave-flat",
        lambda m, a: a.repeat_interleave(2),
        any_((2, 3)),
        ref=lambda m, a: np.repeat(a, 2),
    ),
    Case(
        "repeat_interleave-dim-counts",
        lambda m, a: m.repeat_interleave(a, m.tensor([2, 0, 1]), dim=-1),
        any_((2, 3)),
        ref=lambda m, a: np.repeat(a, [2, 0, 1], -1),
    ),
    Case(
        "meshgrid-ij",
        lambda m, a, b: m.stack(_weighted(m.meshgrid(a, b, indexing="ij"))),
        any_((3,), (2,)),
        ref=lambda m, a, b: np.stack(_weighted(np.meshgrid(a, b, indexing="ij"))),
    ),
    Case(
        "meshgrid-xy-three",
        lambda m, a, b, c: m.stack(_weighted(m.meshgrid([a, b, c], indexing="xy"))),
        any_((3,), (2,), ()),
        ref=lambda m, a, b, c: np.stack(_weighted(np.meshgrid(a, b, c, indexing="xy"))),
    ),
    Case(
        "cartesian_prod",
        lambda m, a, b: m.cartesian_prod(a, b),
        any_((3,), (2,)),
        ref=lambda m, a, b: np.array(list(itertools.product(a, b))),
    ),
    Case(
        "combinations",
        lambda m, a: m.combinations(a, 3),
        any_((4,)),
        ref=lambda m, a: np.array(list(itertools.combinations(a, 3))),
    ),
    Case(
        "combinations-with-replacement",
        lambda m, a: m.combinations(a, with_replacement=True),
        any_((3,)),
        ref=lambda m, a: np.array(list(itertools.combinations_with_replacement(a, 2))),
    ),
    Case(
        "block_diag",
        lambda m, a, b, c: m.block_diag(a, b, c),
        any_((2, 3), (), (2,)),
        ref=lambda m, a, b, c: _block_diag_ref([a, b.reshape(1, 1), c.reshape(1, -1)]),
    ),
    Case("diagflat", lambda m, a: m.diagflat(a), any_((2, 2))),
    Case("diagflat-offset", lambda m, a: a.diagflat(-1), any_((3,)), ref=lambda m, a: np.diagflat(a, -1)),
    Case("narrow_copy", lambda m, a: a.narrow_copy(1, 1, 2), any_((2, 4)), ref=lambda m, a: a[:, 1:3]),
    Case("unfold", lambda m, a: a.unfold(1, 3, 2), any_((2, 6)), ref=lambda m, a: _unfold_ref(a, 1, 3, 2)),
    Case("unfold-overlap", lambda m, a: a.unfold(0, 2, 1), any_((4, 2)), ref=lambda m, a: _unfold_ref(a, 0, 2, 1)),
    Case("unfold-0d", lambda m, a: a.unfold(0, 1, 1), any_(()), ref=lambda m, a: a.reshape(1)),
    Case(
        "as_strided",
        lambda m, a: m.as_strided(a, (3, 2), (1, 2), 1),
        any_((2, 4)),
        ref=lambda m, a: np.lib.stride_tricks.as_strided(a.reshape(-1)[1:], (3, 2), (8, 16)),
    ),
    Case(
        "as_strided-overlapping",
        lambda m, a: a.as_strided((3, 3), (1, 1)),
        any_((5,)),
        ref=lambda m, a: np.lib.stride_tricks.sliding_window_view(a, 3),
    ),
]


def _block_diag_ref(mats: list[np.ndarray]) -> np.ndarray:
    out = np.zeros((sum(a.shape[0] for a in mats), sum(a.shape[1] for a in mats)))
    r = c = 0
    for a in mats:
        out[r : r + a.shape[0], c : c + a.shape[1]] = a
        r, c = r + a.shape[0], c + a.shape[1]
    return out


def _unfold_ref(a: np.ndarray, dim: int, size: int, step: int) -> np.ndarray:
    windows = np.lib.stride_tricks.sliding_window_view(a, size, axis=dim)
    return np.take(windows, np.arange(0, windows.shape[dim], step), axis=dim)


DOUBLE_CASES = [
    Case("tensor_split", _sq(lambda m, a: _joined(m, a.tensor_split(2))), any_((5,))),
    Case("rot90", _sq(lambda m, a: a.rot90()), any_((2, 3))),
    Case("repeat_interleave", _sq(lambda m, a: a.repeat_interleave(m.tensor([1, 2]), 0)), any_((2, 3))),
    Case("meshgrid", _sq(lambda m, a, b: m.meshgrid(a, b, indexing="ij")[1]), any_((3,), (2,))),
    Case("combinations", _sq(lambda m, a: m.combinations(a)), any_((3,))),
    Case("block_diag", _sq(lambda m, a, b: m.block_diag(a, b)), any_((2, 2), (3,))),
    Case("unfold", _sq(lambda m, a: a.unfold(0, 2, 1)), any_((4, 2))),
    Case("as_strided", _sq(lambda m, a: a.as_strided((2, 3), (1, 1))), any_((2, 2))),
]


class TestMoreShapeOps(OpFamilyTests):
    cases = CASES
    double_cases = DOUBLE_CASES


# --------------------------------------------------------------------------- grad_fn names, views

NAMES = {
    "tensor_split": (lambda m, x: m.tensor_split(x, 2)[0], "SliceBackward0"),
    "split_with_sizes": (lambda m, x: x.split_with_sizes([1, 2])[0], "SplitWithSizesBackward0"),
    "atleast_3d": (lambda m, x: m.atleast_3d(x), "UnsqueezeBackward0"),
    "column_stack": (lambda m, x: m.column_stack([x, x]), "CatBackward0"),
    "dstack": (lambda m, x: m.dstack([x, x]), "CatBackward0"),
    "repeat_interleave-dim": (lambda m, x: x.repeat_interleave(m.tensor([1, 2, 0]), 0), "IndexSelectBackward0"),
    "meshgrid": (lambda m, x: m.meshgrid(x[0], x[1], indexing="ij")[0], "ExpandBackward0"),
    "cartesian_prod": (lambda m, x: m.cartesian_prod(x[0], x[1]), "StackBackward0"),
    "combinations": (lambda m, x: m.combinations(x[0]), "StackBackward0"),
    "block_diag": (lambda m, x: m.block_diag(x, x), "BlockDiagBackward0"),
    "diagflat": (lambda m, x: m.diagflat(x), "DiagEmbedBackward0"),
    "unfold": (lambda m, x: x.unfold(1, 2, 1), "UnfoldBackward0"),
    "as_strided": (lambda m, x: x.as_strided((2, 2), (1, 2)), "AsStridedBackward0"),
}


@pytest.mark.parametrize("name", NAMES)
def test_grad_fn_names_match_torch(torch: Any, name: str) -> None:
    fn, expected = NAMES[name]
    for m in (ctxgrad, torch):
        x = m.tensor(np.arange(12.0).reshape(3, 4), requires_grad=True)
        assert type(fn(m, x).grad_fn).__name__ == expected


def test_tensor_split_pieces_and_unfold_are_views() -> None:
    x = ctxgrad.arange(6.0)
    pieces = x.tensor_split(2)
    windows = x.unfold(0, 2, 1)
    x.add_(1.0)
    assert pieces[1].tolist() == [4.0, 5.0, 6.0]
    assert windows[2].tolist() == [3.0, 4.0]


def test_tensor_split_indices_follow_python_slices(torch: Any) -> None:
    for spec in ([-3, 20], [5, 2], (0,), []):
        c = [p.tolist() for p in ctxgrad.tensor_split(ctxgrad.arange(10), spec)]
        t = [p.tolist() for p in torch.tensor_split(torch.arange(10), spec)]
        assert c == t


def test_tensor_split_takes_a_tensor_of_sections_or_indices(torch: Any) -> None:
    for spec in ([3], [[1, 4]]):
        c = [p.tolist() for p in ctxgrad.arange(7).tensor_split(ctxgrad.tensor(spec[0]))]
        t = [p.tolist() for p in torch.arange(7).tensor_split(torch.tensor(spec[0]))]
        assert c == t


def test_atleast_returns_a_tuple_for_several_tensors() -> None:
    one = ctxgrad.atleast_2d(ctxgrad.tensor(1.0))
    several = ctxgrad.atleast_1d([ctxgrad.tensor(1.0)])
    assert isinstance(one, ctxgrad.Tensor) and one.shape == (1, 1)
    assert isinstance(several, tuple) and several[0].shape == (1,)


def test_repeat_interleave_of_counts_alone_gives_indices(torch: Any) -> None:
    c = ctxgrad.repeat_interleave(ctxgrad.tensor([2, 0, 3]))
    t = torch.repeat_interleave(torch.tensor([2, 0, 3]))
    assert c.tolist() == t.tolist() and str(c.dtype) == str(t.dtype).replace("torch.", "ctxgrad.")


def test_meshgrid_without_indexing_warns_and_uses_ij() -> None:
    with pytest.warns(UserWarning, match="indexing argument"):
        x, _ = ctxgrad.meshgrid(ctxgrad.arange(2), ctxgrad.arange(3))
    assert x.tolist() == [[0, 0, 0], [1, 1, 1]]


@pytest.mark.parametrize("lower", [True, False])
@pytest.mark.parametrize("args", [(3, 3), (4, 3, 1), (3, 5, -1), (0, 2)])
def test_tril_triu_indices_match_torch(torch: Any, lower: bool, args: tuple[int, ...]) -> None:
    name = "tril_indices" if lower else "triu_indices"
    c, t = getattr(ctxgrad, name)(*args), getattr(torch, name)(*args)
    assert c.tolist() == t.tolist() and c.dtype == ctxgrad.int64


def test_block_diag_promotes_dtypes(torch: Any) -> None:
    c = ctxgrad.block_diag(ctxgrad.ones(2, 2, dtype=ctxgrad.int32), ctxgrad.ones(1, dtype=ctxgrad.float64))
    t = torch.block_diag(torch.ones(2, 2, dtype=torch.int32), torch.ones(1, dtype=torch.float64))
    assert str(c.dtype) == str(t.dtype).replace("torch.", "ctxgrad.")


def _x(m: Any, *shape: int, dtype: str = "float32") -> Any:
    return m.arange(int(np.prod(shape)), dtype=getattr(m, dtype)).reshape(shape)


ERRORS: dict[str, Callable[[Any], Any]] = {
    "tensor_split-0d": lambda m: m.tensor_split(m.tensor(1.0), 2),
    "tensor_split-no-sections": lambda m: m.tensor_split(_x(m, 4), 0),
    "tensor_split-2d-tensor": lambda m: m.tensor_split(_x(m, 4), m.tensor([[1]])),
    "tensor_split-float-tensor": lambda m: m.tensor_split(_x(m, 4), m.tensor([1.0])),
    "hsplit-not-divisible": lambda m: m.hsplit(_x(m, 10), 3),
    "hsplit-0d": lambda m: m.hsplit(m.tensor(1.0), 2),
    "vsplit-1d": lambda m: m.vsplit(_x(m, 4), 2),
    "dsplit-2d": lambda m: m.dsplit(_x(m, 2, 2), 2),
    "split_with_sizes-sum": lambda m: _x(m, 4).split_with_sizes([1, 2]),
    "rot90-1d": lambda m: m.rot90(_x(m, 4)),
    "rot90-one-dim": lambda m: m.rot90(_x(m, 2, 2), 1, [0]),
    "rot90-same-dims": lambda m: m.rot90(_x(m, 2, 2), 1, [0, 0]),
    "rot90-dims-wrap-alike": lambda m: m.rot90(_x(m, 2, 2), 1, [0, -2]),
    "rot90-dim-out-of-range": lambda m: m.rot90(_x(m, 2, 2), 1, [0, 2]),
    "repeat_interleave-count-size": lambda m: _x(m, 4).repeat_interleave(m.tensor([1, 2])),
    "repeat_interleave-negative": lambda m: _x(m, 4).repeat_interleave(-1),
    "repeat_interleave-negative-counts": lambda m: m.repeat_interleave(m.tensor([1, -1])),
    "meshgrid-indexing": lambda m: m.meshgrid(_x(m, 2), _x(m, 2), indexing="foo"),
    "meshgrid-empty": lambda m: m.meshgrid(),
    "combinations-2d": lambda m: m.combinations(_x(m, 2, 2)),
    "combinations-negative": lambda m: m.combinations(_x(m, 3), r=-1),
    "cartesian_prod-2d": lambda m: m.cartesian_prod(_x(m, 2, 2)),
    "block_diag-3d": lambda m: m.block_diag(_x(m, 1, 1, 1)),
    "tril_indices-float": lambda m: m.tril_indices(3, 3, dtype=m.float32),
    "tril_indices-negative": lambda m: m.tril_indices(-1, 3),
    "unfold-too-big": lambda m: _x(m, 4).unfold(0, 5, 1),
    "unfold-step-0": lambda m: _x(m, 4).unfold(0, 2, 0),
    "column_stack-empty": lambda m: m.column_stack([]),
    "as_strided-out-of-bounds": lambda m: _x(m, 4).as_strided((2, 2), (2, 2)),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_match_torch(torch: Any, name: str) -> None:
    assert raised(lambda: ERRORS[name](ctxgrad), ctxgrad) == raised(lambda: ERRORS[name](torch), torch)


def test_tensor_split_and_repeat_interleave_take_axis_as_torch(torch: Any) -> None:
    for m in (ctxgrad, torch):
        x = m.arange(6).reshape(2, 3)
        assert [p.tolist() for p in x.tensor_split(2, axis=1)] == [[[0, 1], [3, 4]], [[2], [5]]]
        assert m.repeat_interleave(x, 2, axis=0).tolist() == [[0, 1, 2], [0, 1, 2], [3, 4, 5], [3, 4, 5]]

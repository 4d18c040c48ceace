"""The shape family: flatten ... diag_embed, cat, stack, split and friends, against torch.

The op table (``ShapeOps``) runs every case through the kit in ``_opcheck.py``: values
against NumPy, values/gradients/dtypes against torch in float64 and float32, gradients and
tangents against central differences and torch's forward AD, and (``double_cases``) double
backward.  Multi-output ops (``unbind``, ``split``, ``chunk``, ``broadcast_tensors``) are
combined into one tensor in the case, or one of their outputs is used alone (the others then
get zero gradients).  The plain tests below check what the table cannot: torch's errors,
``grad_fn`` names, which results are views (sharing the input's version counter), output
dtypes, returning the input itself, method and function forms and keyword names.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _opcheck import Case, OpFamilyTests, any_
from _support import dtype_name, raised, to_numpy

import ctxgrad
from ctxgrad.autograd.graph import increment_version

_any = any_


def _weighted(pieces: Any) -> list[Any]:
    """Each piece of a multi-output op times a different number, so that every piece's
    gradient is checked separately."""
    return [p * (i + 1.0) for i, p in enumerate(pieces)]


def _split_ref(sizes: list[int], axis: int) -> Callable[..., Any]:
    return lambda m, a: np.concatenate(_weighted(np.split(a, np.cumsum(sizes)[:-1], axis)), axis)


def _diag_embed_ref(offset: int, dim1: int, dim2: int) -> Callable[..., Any]:
    def ref(m: Any, a: np.ndarray) -> np.ndarray:
        n = a.shape[-1] + abs(offset)
        shape = list(a.shape[:-1])
        for d in sorted((dim1, dim2)):
            shape.insert(d, n)
        out = np.zeros(shape)
        idx = np.arange(a.shape[-1])
        rows, cols = (idx, idx + offset) if offset >= 0 else (idx - offset, idx)
        moved = np.moveaxis(out, (dim1, dim2), (-2, -1))  # a view of out
        moved[..., rows, cols] = a
        return out

    return ref


CASES = [
    # flatten, unflatten
    Case("flatten", lambda m, a: a.flatten(), _any((2, 3, 4)), ref=lambda m, a: a.reshape(-1)),
    Case("flatten-start", lambda m, a: a.flatten(1), _any((2, 3, 4)), ref=lambda m, a: a.reshape(2, 12)),
    Case(
        "flatten-negative-dims",
        lambda m, a: m.flatten(a, -3, -2),
        _any((2, 3, 4, 5)),
        ref=lambda m, a: a.reshape(2, 12, 5),
    ),
    Case(
        "flatten-keywords",
        lambda m, a: a.flatten(start_dim=0, end_dim=1),
        _any((2, 3, 4)),
        ref=lambda m, a: a.reshape(6, 4),
    ),
    Case("flatten-one-dim-is-self", lambda m, a: a.flatten(1, 1), _any((2, 3)), ref=lambda m, a: a),
    Case("flatten-0d", lambda m, a: a.flatten(), _any(()), ref=lambda m, a: a.reshape(1)),
    Case(
        "flatten-non-contiguous",
        lambda m, a: a.mT.flatten(1),
        _any((2, 3, 4)),
        ref=lambda m, a: np.swapaxes(a, 1, 2).reshape(2, 12),
    ),
    Case("flatten-empty", lambda m, a: a.flatten(), _any((2, 0, 3)), ref=lambda m, a: a.reshape(0)),
    Case("unflatten", lambda m, a: a.unflatten(1, (2, 3)), _any((4, 6, 2)), ref=lambda m, a: a.reshape(4, 2, 3, 2)),
    Case(
        "unflatten-infer-negative-dim",
        lambda m, a: m.unflatten(a, -1, (-1, 2)),
        _any((3, 4)),
        ref=lambda m, a: a.reshape(3, 2, 2),
    ),
    # squeeze, unsqueeze
    Case("squeeze", lambda m, a: a.squeeze(), _any((1, 3, 1, 2)), ref=lambda m, a: np.squeeze(a)),
    Case("squeeze-dim", lambda m, a: a.squeeze(2), _any((3, 2, 1)), ref=lambda m, a: np.squeeze(a, 2)),
    Case("squeeze-dim-not-1-is-noop", lambda m, a: a.squeeze(0), _any((3, 1, 2)), ref=lambda m, a: a),
    Case("squeeze-tuple", lambda m, a: a.squeeze((0, -2)), _any((1, 3, 1, 2)), ref=lambda m, a: np.squeeze(a, (0, 2))),
    Case(
        "squeeze-tuple-some-not-1",
        lambda m, a: m.squeeze(a, dim=[0, 1]),
        _any((1, 3, 1)),
        ref=lambda m, a: a.reshape(3, 1),
    ),
    Case("squeeze-0d", lambda m, a: a.squeeze(), _any(())),
    Case("squeeze-0d-dim", lambda m, a: m.squeeze(a, -1), _any(()), ref=lambda m, a: a),
    Case("squeeze-empty", lambda m, a: a.squeeze(), _any((0, 1, 2)), ref=lambda m, a: a.reshape(0, 2)),
    Case("unsqueeze-0", lambda m, a: a.unsqueeze(0), _any((2, 3)), ref=lambda m, a: a[None]),
    Case("unsqueeze-last", lambda m, a: a.unsqueeze(-1), _any((2, 3)), ref=lambda m, a: a[..., None]),
    Case("unsqueeze-middle", lambda m, a: m.unsqueeze(a, dim=1), _any((2, 3)), ref=lambda m, a: a[:, None]),
    Case("unsqueeze-0d", lambda m, a: a.unsqueeze(-1), _any(()), ref=lambda m, a: a.reshape(1)),
    # swapping and moving dimensions
    Case("swapaxes", lambda m, a: a.swapaxes(0, 2), _any((2, 3, 4)), ref=lambda m, a: np.swapaxes(a, 0, 2)),
    Case("swapdims", lambda m, a: m.swapdims(a, -1, 0), _any((2, 3, 4)), ref=lambda m, a: np.swapaxes(a, -1, 0)),
    Case("swapaxes-function", lambda m, a: m.swapaxes(a, 1, 0), _any((2, 3))),
    Case("moveaxis", lambda m, a: m.moveaxis(a, 0, -1), _any((2, 3, 4))),
    Case("movedim", lambda m, a: a.movedim(-1, 0), _any((2, 3, 4)), ref=lambda m, a: np.moveaxis(a, -1, 0)),
    Case(
        "movedim-several",
        lambda m, a: m.movedim(a, (0, 1), (2, 0)),
        _any((2, 3, 4, 5)),
        ref=lambda m, a: np.moveaxis(a, (0, 1), (2, 0)),
    ),
    Case("mH", lambda m, a: a.mH, _any((2, 3, 4)), ref=lambda m, a: np.swapaxes(a, -1, -2)),
    # broadcast_to
    Case(
        "broadcast_to",
        lambda m, a: a.broadcast_to((2, 3, 4)),
        _any((3, 1)),
        ref=lambda m, a: np.broadcast_to(a, (2, 3, 4)),
    ),
    Case("broadcast_to-function-0d", lambda m, a: m.broadcast_to(a, (2, 3)), _any(())),
    # narrow
    Case("narrow", lambda m, a: a.narrow(1, 1, 2), _any((2, 4, 3)), ref=lambda m, a: a[:, 1:3]),
    Case("narrow-negative", lambda m, a: m.narrow(a, -1, -2, 2), _any((2, 3, 4)), ref=lambda m, a: a[..., 2:4]),
    Case("narrow-empty", lambda m, a: a.narrow(0, 3, 0), _any((3, 2)), ref=lambda m, a: a[3:3]),
    # unbind, split, chunk
    Case(
        "unbind",
        lambda m, a: m.stack(_weighted(a.unbind(1))),
        _any((2, 3, 4)),
        ref=lambda m, a: np.stack(_weighted(np.moveaxis(a, 1, 0))),
    ),
    Case("unbind-one-used", lambda m, a: m.unbind(a, -1)[2] * 2, _any((2, 3, 4)), ref=lambda m, a: a[..., 2] * 2),
    Case("unbind-to-0d", lambda m, a: a.unbind()[1], _any((3,)), ref=lambda m, a: a[1]),
    Case("split", lambda m, a: m.cat(_weighted(a.split(2, 1)), 1), _any((2, 5)), ref=_split_ref([2, 2, 1], 1)),
    Case("split-one-used", lambda m, a: a.split(2, 1)[1], _any((2, 5)), ref=lambda m, a: a[:, 2:4]),
    Case(
        "split-sizes", lambda m, a: m.cat(_weighted(a.split([1, 3], -1)), -1), _any((2, 4)), ref=_split_ref([1, 3], 1)
    ),
    Case(
        "split-function-sizes-with-0",
        lambda m, a: m.cat(_weighted(m.split(a, [2, 0, 1])), 0),
        _any((3, 2)),
        ref=_split_ref([2, 0, 1], 0),
    ),
    Case("split-bigger-than-dim", lambda m, a: a.split(10)[0], _any((3, 2)), ref=lambda m, a: a),
    Case("split-empty-dim", lambda m, a: a.split(0)[0], _any((0, 3)), ref=lambda m, a: a),
    Case("chunk", lambda m, a: m.cat(_weighted(a.chunk(3, 1)), 1), _any((2, 5)), ref=_split_ref([2, 2, 1], 1)),
    Case(
        "chunk-fewer-pieces",
        lambda m, a: m.stack(_weighted(m.chunk(a, 4))),
        _any((6,)),
        ref=lambda m, a: np.stack(_weighted(np.split(a, 3))),
    ),
    Case("chunk-one-used", lambda m, a: a.chunk(2, dim=-1)[1] * 3, _any((3, 4)), ref=lambda m, a: a[:, 2:] * 3),
    # cat, stack, hstack, vstack
    Case("cat", lambda m, a, b: m.cat([a, b]), _any((2, 3), (4, 3)), ref=lambda m, a, b: np.concatenate([a, b])),
    Case(
        "cat-negative-dim",
        lambda m, a, b: m.cat((a, b, a), -1),
        _any((2, 3), (2, 1)),
        ref=lambda m, a, b: np.concatenate([a, b, a], -1),
    ),
    Case(
        "cat-same-input",
        lambda m, a: m.cat([a, a * 2], 1),
        _any((2, 3)),
        ref=lambda m, a: np.concatenate([a, a * 2], 1),
    ),
    Case(
        "concat",
        lambda m, a, b: m.concat((a, b), dim=1),
        _any((2, 3), (2, 2)),
        ref=lambda m, a, b: np.concatenate([a, b], 1),
    ),
    Case("concatenate-axis", lambda m, a, b: m.concatenate([a, b], axis=1), _any((2, 3), (2, 2))),
    Case("cat-one", lambda m, a: m.cat([a]), _any((2, 3)), ref=lambda m, a: a),
    Case(
        "cat-skips-empty-1d",
        lambda m, a, b: m.cat([a, b, a], 1),
        _any((2, 3), (0,)),
        ref=lambda m, a, b: np.concatenate([a, a], 1),
    ),
    Case("cat-only-empty-1d", lambda m, a, b: m.cat([a, b]), _any((0,), (0,)), ref=lambda m, a, b: a),
    Case("cat-size-0", lambda m, a, b: m.cat([a, b]), _any((0, 3), (2, 3)), ref=lambda m, a, b: b),
    Case(
        "cat-int-float",
        lambda m, a, b: m.cat([(a * 4).long(), b], 0),
        _any((2, 2), (1, 2)),
        ref=lambda m, a, b: np.concatenate([(a * 4).astype(np.int64), b]),
    ),
    Case("stack", lambda m, a, b: m.stack([a, b]), _any((2, 3), (2, 3))),
    Case(
        "stack-negative-dim",
        lambda m, a, b: m.stack((a, b, a), -1),
        _any((2, 3), (2, 3)),
        ref=lambda m, a, b: np.stack([a, b, a], -1),
    ),
    Case("stack-0d", lambda m, a, b: m.stack([a, b]), _any((), ())),
    Case("hstack-1d", lambda m, a, b: m.hstack([a, b]), _any((2,), (3,))),
    Case("hstack-2d", lambda m, a, b: m.hstack((a, b)), _any((2, 1), (2, 3))),
    Case("hstack-0d", lambda m, a, b: m.hstack([a, b]), _any((), (2,))),
    Case("vstack-1d", lambda m, a, b: m.vstack([a, b]), _any((3,), (3,))),
    Case("vstack-2d", lambda m, a, b: m.vstack([a, b]), _any((1, 3), (2, 3))),
    # flip, roll, repeat, tile
    Case("flip", lambda m, a: a.flip(0), _any((2, 3, 4)), ref=lambda m, a: np.flip(a, 0)),
    Case("flip-several", lambda m, a: a.flip(0, -1), _any((2, 3, 4)), ref=lambda m, a: np.flip(a, (0, 2))),
    Case("flip-function", lambda m, a: m.flip(a, (1,)), _any((2, 3))),
    Case("flip-keyword", lambda m, a: a.flip(dims=[1, 0]), _any((2, 3)), ref=lambda m, a: a[::-1, ::-1]),
    Case("flip-no-dims", lambda m, a: a.flip(()), _any((2, 3)), ref=lambda m, a: a),
    Case("flip-0d", lambda m, a: a.flip(0), _any(()), ref=lambda m, a: a),
    Case("fliplr", lambda m, a: m.fliplr(a), _any((2, 3))),
    Case("flipud", lambda m, a: a.flipud(), _any((3,)), ref=lambda m, a: a[::-1]),
    Case("roll", lambda m, a: m.roll(a, 1, 0), _any((3, 4))),
    Case("roll-several", lambda m, a: m.roll(a, (1, -2), (0, -1)), _any((3, 4))),
    Case("roll-flattened", lambda m, a: a.roll(5), _any((3, 4)), ref=lambda m, a: np.roll(a, 5)),
    Case("roll-big-shift", lambda m, a: a.roll(-7, 1), _any((3, 4)), ref=lambda m, a: np.roll(a, -7, 1)),
    Case("roll-keywords", lambda m, a: a.roll(shifts=[2], dims=[1]), _any((3, 4)), ref=lambda m, a: np.roll(a, 2, 1)),
    Case("roll-0d", lambda m, a: m.roll(a, 1), _any(())),
    Case("repeat", lambda m, a: a.repeat(2, 1, 3), _any((2, 3, 1)), ref=lambda m, a: np.tile(a, (2, 1, 3))),
    Case("repeat-new-dims", lambda m, a: a.repeat((2, 1, 2)), _any((3, 2)), ref=lambda m, a: np.tile(a, (2, 1, 2))),
    Case("repeat-0d", lambda m, a: a.repeat(2, 3), _any(()), ref=lambda m, a: np.tile(a, (2, 3))),
    Case("repeat-zero", lambda m, a: a.repeat(0, 2), _any((2, 3)), ref=lambda m, a: np.tile(a, (0, 2))),
    Case("tile", lambda m, a: a.tile(2), _any((2, 3)), ref=lambda m, a: np.tile(a, 2)),
    Case("tile-function-more-dims", lambda m, a: m.tile(a, (2, 1, 1)), _any((2, 3))),
    # triangles and diagonals
    Case("tril", lambda m, a: a.tril(), _any((3, 4)), ref=lambda m, a: np.tril(a)),
    Case("tril-below", lambda m, a: m.tril(a, -1), _any((4, 3))),
    Case("triu-above-batched", lambda m, a: a.triu(diagonal=1), _any((2, 3, 3)), ref=lambda m, a: np.triu(a, 1)),
    Case("triu-function", lambda m, a: m.triu(a, -1), _any((3, 4))),
    Case("diagonal", lambda m, a: a.diagonal(), _any((3, 4)), ref=lambda m, a: np.diagonal(a)),
    Case("diagonal-offset", lambda m, a: a.diagonal(1), _any((3, 4)), ref=lambda m, a: np.diagonal(a, 1)),
    Case(
        "diagonal-dims",
        lambda m, a: m.diagonal(a, -1, 2, 0),
        _any((2, 3, 4)),
        ref=lambda m, a: np.diagonal(a, -1, 2, 0),
    ),
    Case(
        "diagonal-keywords",
        lambda m, a: a.diagonal(offset=1, dim1=-1, dim2=-2),
        _any((2, 3, 4)),
        ref=lambda m, a: np.diagonal(a, 1, 2, 1),
    ),
    Case("diagonal-offset-past-the-end", lambda m, a: a.diagonal(5), _any((3, 4)), ref=lambda m, a: np.diagonal(a, 5)),
    Case("diag-vector", lambda m, a: a.diag(), _any((3,)), ref=lambda m, a: np.diag(a)),
    Case("diag-vector-below", lambda m, a: m.diag(a, -2), _any((3,))),
    Case("diag-matrix", lambda m, a: a.diag(1), _any((3, 4)), ref=lambda m, a: np.diag(a, 1)),
    Case("diag-matrix-below", lambda m, a: m.diag(a, diagonal=-1), _any((4, 3)), ref=lambda m, a: np.diag(a, -1)),
    Case("diag_embed", lambda m, a: a.diag_embed(), _any((2, 3)), ref=_diag_embed_ref(0, 1, 2)),
    Case("diag_embed-offset-dims", lambda m, a: m.diag_embed(a, 1, 0, 2), _any((2, 3)), ref=_diag_embed_ref(1, 0, 2)),
    Case("diag_embed-negative-offset", lambda m, a: a.diag_embed(-1), _any((3,)), ref=_diag_embed_ref(-1, 0, 1)),
    # broadcast_tensors
    Case(
        "broadcast_tensors",
        lambda m, a, b: m.stack(_weighted(m.broadcast_tensors(a, b))),
        _any((3, 1), (4,)),
        ref=lambda m, a, b: np.stack(_weighted(np.broadcast_arrays(a, b))),
    ),
    Case(
        "broadcast_tensors-one-unchanged",
        lambda m, a, b: m.broadcast_tensors(a, b)[0] * m.broadcast_tensors(a, b)[1],
        _any((2, 3), (3,)),
        ref=lambda m, a, b: a * b,
    ),
]


def _sq(op: Callable[..., Any]) -> Callable[..., Any]:
    """``op(...) ** 2``: a nonlinearity after a linear op, so that the op's backward (and its
    backward's backward) takes part in the second derivative."""
    return lambda m, *xs: op(m, *xs) ** 2


DOUBLE_CASES = [
    Case("flatten", _sq(lambda m, a: a.flatten(1)), _any((2, 3, 4))),
    Case("unflatten", _sq(lambda m, a: a.unflatten(0, (2, -1))), _any((4, 3))),
    Case("squeeze-dim", _sq(lambda m, a: a.squeeze(1)), _any((3, 1, 2))),
    Case("squeeze-tuple", _sq(lambda m, a: a.squeeze((0, 2))), _any((1, 3, 1))),
    Case("unsqueeze", _sq(lambda m, a: a.unsqueeze(1)), _any((2, 3))),
    Case("movedim", _sq(lambda m, a: a.movedim(0, -1)), _any((2, 3, 4))),
    Case("broadcast_to", _sq(lambda m, a: a.broadcast_to(2, 3, 2)), _any((3, 1))),
    Case("narrow", _sq(lambda m, a: a.narrow(1, 1, 2)), _any((2, 4))),
    Case("unbind", _sq(lambda m, a: m.stack(_weighted(a.unbind(1)))), _any((2, 3))),
    Case("unbind-one-used", _sq(lambda m, a: a.unbind(0)[1]), _any((3, 2))),
    Case("split", _sq(lambda m, a: m.cat(_weighted(a.split(2, 1)), 1)), _any((2, 5))),
    Case("split-sizes-one-used", _sq(lambda m, a: a.split([1, 3])[1]), _any((4, 2))),
    Case("chunk", _sq(lambda m, a: m.cat(_weighted(a.chunk(2)))), _any((5,))),
    Case("cat", _sq(lambda m, a, b: m.cat([a, b], -1)), _any((2, 3), (2, 2))),
    Case("stack", _sq(lambda m, a, b: m.stack([a, b], 1)), _any((2, 3), (2, 3))),
    Case("flip", _sq(lambda m, a: a.flip(0, 1)), _any((2, 3))),
    Case("roll", _sq(lambda m, a: a.roll((1, 2), (0, 1))), _any((2, 3))),
    Case("repeat", _sq(lambda m, a: a.repeat(2, 1, 3)), _any((2, 3))),
    Case("tril", _sq(lambda m, a: a.tril(-1)), _any((3, 3))),
    Case("triu", _sq(lambda m, a: a.triu(1)), _any((2, 3, 4))),
    Case("diagonal", _sq(lambda m, a: a.diagonal(1, 0, 2)), _any((3, 2, 4))),
    Case("diag-matrix", _sq(lambda m, a: a.diag()), _any((3, 3))),
    Case("diag-vector", _sq(lambda m, a: a.diag(1)), _any((3,))),
    Case("diag_embed", _sq(lambda m, a: a.diag_embed(-1)), _any((2, 3))),
    Case("broadcast_tensors", _sq(lambda m, a, b: m.broadcast_tensors(a, b)[0] * 2), _any((3, 1), (4,))),
]


class TestShapeOps(OpFamilyTests):
    cases = CASES
    double_cases = DOUBLE_CASES


# --------------------------------------------------------------------------- grad_fn names


def _x(m: Any, *shape: int) -> Any:
    return m.tensor(np.arange(float(np.prod(shape))).reshape(shape), requires_grad=True)


NAMED: dict[str, Callable[..., Any]] = {
    "flatten": lambda m: _x(m, 2, 3, 4).flatten(1),
    "unflatten": lambda m: _x(m, 2, 6).unflatten(1, (2, 3)),
    "squeeze": lambda m: _x(m, 1, 3).squeeze(),
    "squeeze-dim": lambda m: _x(m, 1, 3).squeeze(0),
    "squeeze-dim-noop": lambda m: _x(m, 2, 3).squeeze(0),
    "squeeze-tuple": lambda m: _x(m, 1, 3).squeeze((0,)),
    "unsqueeze": lambda m: _x(m, 3).unsqueeze(0),
    "swapaxes": lambda m: _x(m, 2, 3).swapaxes(0, 1),
    "swapdims": lambda m: _x(m, 2, 3).swapdims(0, 1),
    "moveaxis": lambda m: _x(m, 2, 3, 4).moveaxis(0, 2),
    "movedim": lambda m: m.movedim(_x(m, 2, 3, 4), (0, 1), (1, 0)),
    "mH": lambda m: _x(m, 2, 3).mH,
    "broadcast_to": lambda m: _x(m, 3).broadcast_to(2, 3),
    "narrow": lambda m: _x(m, 4).narrow(0, 1, 2),
    "unbind": lambda m: _x(m, 2, 3).unbind(1)[2],
    "split": lambda m: _x(m, 5).split(2)[1],
    "split-sizes": lambda m: _x(m, 5).split([1, 4])[1],
    "chunk": lambda m: _x(m, 5).chunk(2)[0],
    "chunk-empty": lambda m: _x(m, 0).chunk(2)[0],
    "cat": lambda m: m.cat([_x(m, 2), _x(m, 3)]),
    "concatenate": lambda m: m.concatenate([_x(m, 2), _x(m, 3)]),
    "stack": lambda m: m.stack([_x(m, 2), _x(m, 2)]),
    "hstack": lambda m: m.hstack([_x(m, 2), _x(m, 2)]),
    "vstack": lambda m: m.vstack([_x(m, 2), _x(m, 2)]),
    "flip": lambda m: _x(m, 2, 3).flip(0),
    "fliplr": lambda m: _x(m, 2, 3).fliplr(),
    "roll": lambda m: _x(m, 2, 3).roll(1),
    "repeat": lambda m: _x(m, 2, 3).repeat(1, 2),
    "tile": lambda m: _x(m, 2, 3).tile(2),
    "tril": lambda m: _x(m, 3, 3).tril(),
    "triu": lambda m: _x(m, 3, 3).triu(),
    "diagonal": lambda m: _x(m, 3, 3).diagonal(),
    "diag-vector": lambda m: _x(m, 3).diag(),
    "diag-matrix": lambda m: _x(m, 3, 3).diag(),
    "diag_embed": lambda m: _x(m, 2, 3).diag_embed(),
    "broadcast_tensors": lambda m: m.broadcast_tensors(_x(m, 3), _x(m, 2, 3))[0],
}


@pytest.mark.parametrize("name", NAMED)
def test_grad_fn_names_match_torch(torch: Any, name: str) -> None:
    c, t = NAMED[name](ctxgrad), NAMED[name](torch)
    assert c.grad_fn.name() == t.grad_fn.name()
    assert tuple(c.shape) == tuple(t.shape)
    np.testing.assert_array_equal(to_numpy(c), to_numpy(t))


def test_backward_of_backward_names_match_torch(torch: Any) -> None:
    """The first gradient of narrow / diagonal (with create_graph) is made by a node of its own."""
    fns: list[Callable[[Any], Any]] = [lambda x: x.narrow(0, 1, 2), lambda x: x.diagonal()]
    for fn in fns:
        names = []
        for m in (ctxgrad, torch):
            x = _x(m, 3, 3)
            (g,) = m.autograd.grad((fn(x) ** 2).sum(), x, create_graph=True)
            names.append(g.grad_fn.name())
        assert names[0] == names[1]


# --------------------------------------------------------------------------- views and version counters

VIEW_OPS: dict[str, Callable[..., Any]] = {
    "flatten": lambda x: x.flatten(),
    "unflatten": lambda x: x.unflatten(1, (3, 1)),
    "squeeze": lambda x: x[:1].squeeze(0),
    "squeeze-noop": lambda x: x.squeeze(0),
    "unsqueeze": lambda x: x.unsqueeze(0),
    "swapaxes": lambda x: x.swapaxes(0, 1),
    "movedim": lambda x: x.movedim(0, 1),
    "mH": lambda x: x.mH,
    "broadcast_to": lambda x: x.broadcast_to(2, 2, 3),
    "narrow": lambda x: x.narrow(1, 1, 2),
    "unbind": lambda x: x.unbind(1)[1],
    "split": lambda x: x.split(1)[1],
    "chunk": lambda x: x.chunk(3, 1)[2],
    "diagonal": lambda x: x.diagonal(),
    "broadcast_tensors": lambda x: ctxgrad_or_torch(x).broadcast_tensors(x, x[0])[1],
}
COPY_OPS: dict[str, Callable[..., Any]] = {
    "flatten-non-contiguous": lambda x: x.t().flatten(),
    "cat": lambda x: ctxgrad_or_torch(x).cat([x, x]),
    "cat-one": lambda x: ctxgrad_or_torch(x).cat([x]),
    "stack": lambda x: ctxgrad_or_torch(x).stack([x]),
    "flip": lambda x: x.flip(0),
    "flip-no-dims": lambda x: x.flip(()),
    "roll": lambda x: x.roll(1),
    "repeat": lambda x: x.repeat(1, 1),
    "tril": lambda x: x.tril(),
    "diag-matrix": lambda x: x.diag(),
    "diag_embed": lambda x: x.diag_embed(),
}


def ctxgrad_or_torch(x: Any) -> Any:
    return ctxgrad if isinstance(x, ctxgrad.Tensor) else pytest.importorskip("torch")


@pytest.mark.parametrize("grad", [False, True], ids=["no-grad", "grad"])
@pytest.mark.parametrize("name", VIEW_OPS)
def test_view_results_share_the_version_counter(torch: Any, name: str, grad: bool) -> None:
    for m in (torch, ctxgrad):
        x = m.zeros(2, 3, requires_grad=grad) * 1 if grad else m.zeros(2, 3)
        y = VIEW_OPS[name](x)
        assert y._base is (x if x._base is None else x._base), m.__name__
        before = y._version
        if m is torch:
            x.add_(1)
        else:
            increment_version(x)
        assert y._version == before + 1, m.__name__


@pytest.mark.parametrize("name", COPY_OPS)
def test_copy_results_do_not(torch: Any, name: str) -> None:
    for m in (torch, ctxgrad):
        x = m.zeros(2, 2)
        y = COPY_OPS[name](x)
        assert y._base is None, m.__name__
        if m is ctxgrad:
            assert not np.shares_memory(y._data, x._data)
            increment_version(x)
            assert y._version == 0


def test_unbind_and_split_outputs_share_the_version_counter() -> None:
    x = ctxgrad.zeros(3, 2)
    for pieces in (x.unbind(), x.split(1), x.chunk(3), x.split([2, 1])):
        before = [p._version for p in pieces]
        increment_version(x)
        assert [p._version for p in pieces] == [b + 1 for b in before]
        increment_version(pieces[0])
        assert x._version == before[0] + 2
        assert all(np.shares_memory(p._data, x._data) for p in pieces)


def test_diagonal_is_a_writable_view() -> None:
    x = ctxgrad.zeros(3, 3)
    d = x.diagonal()
    d._data[...] = 1
    np.testing.assert_array_equal(x.numpy(), np.eye(3))
    z = ctxgrad.zeros(3)
    z.expand(3, 3).diagonal().fill_(1)  # distinct elements of a broadcast: written through, as in torch
    assert z.tolist() == [1.0, 1.0, 1.0]


# --------------------------------------------------------------------------- multi-output ops


@pytest.mark.parametrize(
    ("fn", "n", "name", "last"),
    [
        (lambda x: x.unbind(1), 3, "UnbindBackward0", 1),
        (lambda x: x.split(2, 1), 2, "SplitBackward0", 1),
        (lambda x: x.split([1, 0, 2], 1), 3, "SplitWithSizesBackward0", 2),
        (lambda x: x.chunk(2, 1), 2, "SplitBackward0", 1),
    ],
)
def test_multi_output_ops_return_a_tuple_with_one_node(fn: Callable[[Any], Any], n: int, name: str, last: int) -> None:
    """One node for all outputs; the last output used alone gets ones, the others zeros."""
    x = ctxgrad.randn(2, 3, requires_grad=True)
    out = fn(x)
    assert type(out) is tuple and len(out) == n
    assert all(o.grad_fn is out[0].grad_fn for o in out)
    assert [o.output_nr for o in out] == list(range(n))
    assert out[0].grad_fn.name() == name
    out[-1].sum().backward()  # the other outputs get zero gradients
    expected = np.zeros((2, 3), dtype=np.float32)
    expected[:, 3 - last :] = 1
    assert x.grad is not None
    np.testing.assert_array_equal(x.grad.numpy(), expected)


def test_multi_output_of_empty_dimension(torch: Any) -> None:
    for m in (torch, ctxgrad):
        assert m.zeros(0, 2, requires_grad=True).unbind() == ()
        assert [tuple(p.shape) for p in m.zeros(0, 2).chunk(3)] == [(0, 2)] * 3
        assert [tuple(p.shape) for p in m.zeros(0, 2).split(0)] == [(0, 2)]


def test_unbind_without_grad_gives_plain_views() -> None:
    x = ctxgrad.arange(6.0).reshape(2, 3)
    with ctxgrad.no_grad():
        pieces = x.unbind(1)
    assert all(p.grad_fn is None and not p.requires_grad for p in pieces)
    np.testing.assert_array_equal(pieces[2].numpy(), [2.0, 5.0])


# --------------------------------------------------------------------------- returns the input itself


def test_flatten_of_one_dimension_returns_the_input(torch: Any) -> None:
    for m in (torch, ctxgrad):
        x = m.zeros(2, 3, requires_grad=True)
        assert x.flatten(1, 1) is x and x.flatten(-1, 1) is x
        v = m.zeros(3)
        assert v.flatten() is v
        assert x.flatten(0, 1) is not x


def test_broadcast_tensors_returns_a_tensor_of_the_target_shape_itself(torch: Any) -> None:
    for m in (torch, ctxgrad):
        a, b = m.zeros(2, 3, requires_grad=True), m.zeros(3, requires_grad=True)
        out = m.broadcast_tensors(a, b)
        assert out[0] is a and out[1] is not b
        assert m.broadcast_tensors() == ()
        assert m.broadcast_tensors(b)[0] is b


def test_squeeze_that_changes_nothing_is_still_a_new_view(torch: Any) -> None:
    for m in (torch, ctxgrad):
        x = m.zeros(2, 3, requires_grad=True)
        y = x.squeeze(0)
        assert y is not x and y._base is x and y.grad_fn.name() == "SqueezeBackward1"


# --------------------------------------------------------------------------- dtypes

DTYPE_PAIRS = [
    ("float32", "float64"),
    ("float64", "float32"),
    ("int64", "float32"),
    ("float16", "int64"),
    ("int32", "bool"),
    ("bool", "uint8"),
    ("uint8", "int8"),
    ("int64", "int64"),
    ("bool", "bool"),
    ("float16", "float32"),
]


@pytest.mark.parametrize(("da", "db"), DTYPE_PAIRS)
def test_cat_and_stack_promote_as_torch(torch: Any, da: str, db: str) -> None:
    a, b = np.array([1, 0, 3]), np.array([0, 2, 1])
    ops: list[Callable[..., Any]] = [
        lambda m, x, y: m.cat([x, y]),
        lambda m, x, y: m.stack([x, y], 1),
        lambda m, x, y: m.cat([x, m.zeros(0, dtype=getattr(m, db)), x]),
        lambda m, x, y: m.hstack([x, y]),
        lambda m, x, y: m.vstack([y, x]),
    ]
    for op in ops:
        c = op(ctxgrad, ctxgrad.tensor(a, dtype=getattr(ctxgrad, da)), ctxgrad.tensor(b, dtype=getattr(ctxgrad, db)))
        t = op(torch, torch.tensor(a, dtype=getattr(torch, da)), torch.tensor(b, dtype=getattr(torch, db)))
        assert dtype_name(c.dtype) == dtype_name(t.dtype)
        np.testing.assert_array_equal(to_numpy(c).astype(np.float64), to_numpy(t).astype(np.float64))


@pytest.mark.parametrize("op", ["cat", "stack"])
def test_mixed_float_inputs_get_gradients_of_their_own_dtype(torch: Any, op: str) -> None:
    a, b = np.array([0.5, -1.25]), np.array([2.0, 3.5])
    w = np.array([[1.0, 2.0], [3.0, 4.0]]).reshape(-1 if op == "cat" else 2, *(() if op == "cat" else (2,)))
    grads = {}
    for m in (ctxgrad, torch):
        x = m.tensor(a, dtype=m.float32, requires_grad=True)
        y = m.tensor(b, dtype=m.float64, requires_grad=True)
        out = getattr(m, op)([x, y])
        assert dtype_name(out.dtype) == "float64"
        (out * m.tensor(w)).sum().backward()
        grads[m.__name__] = (x.grad, y.grad)
    for c, t in zip(grads["ctxgrad"], grads["torch"]):
        assert dtype_name(c.dtype) == dtype_name(t.dtype)
        np.testing.assert_array_equal(to_numpy(c), to_numpy(t))


DTYPE_OPS: dict[str, Callable[..., Any]] = {
    "flatten": lambda m, x: x.flatten(),
    "squeeze": lambda m, x: x.unsqueeze(0).squeeze(0),
    "narrow": lambda m, x: x.narrow(1, 0, 2),
    "unbind": lambda m, x: x.unbind(1)[0],
    "split": lambda m, x: x.split(1)[1],
    "chunk": lambda m, x: x.chunk(2, 1)[1],
    "flip": lambda m, x: x.flip(0),
    "roll": lambda m, x: x.roll(1, 1),
    "repeat": lambda m, x: x.repeat(2, 1),
    "tril": lambda m, x: x.tril(),
    "triu": lambda m, x: m.triu(x, 1),
    "diagonal": lambda m, x: x.diagonal(),
    "diag": lambda m, x: x.diag(),
    "diag-vector": lambda m, x: x[0].diag(1),
    "diag_embed": lambda m, x: x.diag_embed(),
    "movedim": lambda m, x: x.movedim(0, 1),
    "broadcast_to": lambda m, x: x.broadcast_to(2, 2, 3),
}


@pytest.mark.parametrize("dtype", ["int64", "int32", "bool", "float32", "float16"])
@pytest.mark.parametrize("name", DTYPE_OPS)
def test_output_dtypes_match_torch(torch: Any, name: str, dtype: str) -> None:
    data = np.array([[1, 0, 2], [3, 1, 0]])
    c = DTYPE_OPS[name](ctxgrad, ctxgrad.tensor(data, dtype=getattr(ctxgrad, dtype)))
    t = DTYPE_OPS[name](torch, torch.tensor(data, dtype=getattr(torch, dtype)))
    assert dtype_name(c.dtype) == dtype_name(t.dtype)
    assert c.requires_grad is False
    np.testing.assert_array_equal(to_numpy(c), to_numpy(t))


def test_float32_results_with_grad(torch: Any) -> None:
    for name, fn in DTYPE_OPS.items():
        c = fn(ctxgrad, ctxgrad.ones(2, 3, requires_grad=True))
        t = fn(torch, torch.ones(2, 3, requires_grad=True))
        assert dtype_name(c.dtype) == dtype_name(t.dtype) == "float32", name
        assert c.requires_grad and t.requires_grad, name


def test_cat_gives_an_empty_skipped_input_an_empty_gradient(torch: Any) -> None:
    for m in (torch, ctxgrad):
        x, e = m.ones(2, 3, requires_grad=True), m.zeros(0, requires_grad=True)
        m.cat([e, x, e], 1).sum().backward()
        assert tuple(e.grad.shape) == (0,) and float(x.grad.sum()) == 6.0


# --------------------------------------------------------------------------- broadcast_shapes


@pytest.mark.parametrize(
    "shapes",
    [
        ((3, 1), (2, 1, 4)),
        ((2, 1), [3]),
        (3, (2, 1)),
        (),
        ((),),
        ((0,), (3, 1)),
        ((1,), (1, 1)),
        ((5, 1, 4), (3, 1)),
    ],
)
def test_broadcast_shapes_matches_torch(torch: Any, shapes: tuple[Any, ...]) -> None:
    c = ctxgrad.broadcast_shapes(*shapes)
    assert isinstance(c, ctxgrad.Size)
    assert tuple(c) == tuple(torch.broadcast_shapes(*shapes))


# --------------------------------------------------------------------------- method and function forms, keywords

KEYWORD_CALLS = [
    lambda m, x: m.flatten(x, start_dim=1, end_dim=2),
    lambda m, x: x.flatten(start_dim=1),
    lambda m, x: m.unflatten(x, dim=1, sizes=(3, 1)),
    lambda m, x: x.unflatten(dim=-1, sizes=[2, 2]),
    lambda m, x: m.squeeze(x[:1], dim=0),
    lambda m, x: x[:1].squeeze(dim=(0,)),
    lambda m, x: m.unsqueeze(x, dim=0),
    lambda m, x: x.unsqueeze(dim=-1),
    lambda m, x: m.swapaxes(x, axis0=0, axis1=1),
    lambda m, x: x.swapaxes(axis0=0, axis1=2),
    lambda m, x: m.swapdims(x, dim0=0, dim1=1),
    lambda m, x: x.swapdims(dim0=2, dim1=1),
    lambda m, x: m.moveaxis(x, source=0, destination=1),
    lambda m, x: x.moveaxis(source=[0, 1], destination=[1, 0]),
    lambda m, x: m.movedim(x, source=0, destination=1),
    lambda m, x: x.movedim(source=2, destination=0),
    lambda m, x: m.broadcast_to(x, size=(2, 2, 3, 4)),
    lambda m, x: x.broadcast_to(size=(2, 2, 3, 4)),
    lambda m, x: x.broadcast_to(2, 2, 3, 4),
    lambda m, x: m.narrow(x, dim=1, start=0, length=2),
    lambda m, x: x.narrow(dim=1, start=m.tensor(1), length=2),
    lambda m, x: m.unbind(x, dim=1)[0],
    lambda m, x: x.unbind(dim=2)[3],
    lambda m, x: m.split(x, split_size_or_sections=2, dim=1)[1],
    lambda m, x: x.split(split_size=2, dim=1)[0],
    lambda m, x: x.split([1, 2], dim=1)[1],
    lambda m, x: m.chunk(x, chunks=2, dim=1)[1],
    lambda m, x: x.chunk(chunks=2, dim=2)[0],
    lambda m, x: m.cat(tensors=[x, x], dim=1),
    lambda m, x: m.concat(tensors=(x, x), dim=-1),
    lambda m, x: m.concatenate([x, x], axis=1),
    lambda m, x: m.concatenate([x, x], dim=2),
    lambda m, x: m.stack(tensors=[x, x], dim=1),
    lambda m, x: m.hstack(tensors=[x, x]),
    lambda m, x: m.vstack(tensors=[x, x]),
    lambda m, x: m.flip(x, dims=(0, 2)),
    lambda m, x: x.flip(dims=[1]),
    lambda m, x: x.flip([0, 1]),
    lambda m, x: m.fliplr(x),
    lambda m, x: m.flipud(x),
    lambda m, x: m.roll(x, shifts=1, dims=0),
    lambda m, x: x.roll(shifts=(1, 1), dims=(0, 2)),
    lambda m, x: x.repeat(repeats=(1, 2, 1)),
    lambda m, x: x.repeat([1, 2, 1]),
    lambda m, x: m.tile(x, dims=(2,)),
    lambda m, x: x.tile(dims=(2, 1)),
    lambda m, x: m.tril(x, diagonal=1),
    lambda m, x: x.triu(diagonal=-1),
    lambda m, x: m.diagonal(x, offset=1, dim1=0, dim2=2),
    lambda m, x: x.diagonal(offset=-1, dim1=2, dim2=1),
    lambda m, x: m.diag(x[0], diagonal=1),
    lambda m, x: x[0, 0].diag(diagonal=-1),
    lambda m, x: m.diag_embed(x, offset=1, dim1=0, dim2=2),
    lambda m, x: x.diag_embed(offset=-1, dim1=-1, dim2=0),
]


@pytest.mark.parametrize("call", KEYWORD_CALLS, ids=[f"call-{i}" for i in range(len(KEYWORD_CALLS))])
def test_keyword_names_and_forms_match_torch(torch: Any, call: Callable[..., Any]) -> None:
    data = np.arange(24.0).reshape(2, 3, 4)
    c = call(ctxgrad, ctxgrad.tensor(data))
    t = call(torch, torch.tensor(data))
    assert tuple(c.shape) == tuple(t.shape)
    np.testing.assert_array_equal(to_numpy(c), to_numpy(t))


@pytest.mark.parametrize(
    ("method", "args"),
    [
        ("flatten", (1,)),
        ("unflatten", (0, (1, 2))),
        ("squeeze", ()),
        ("unsqueeze", (1,)),
        ("swapaxes", (0, 1)),
        ("swapdims", (1, 0)),
        ("moveaxis", (0, 1)),
        ("movedim", (1, 0)),
        ("broadcast_to", ((2, 2, 3),)),
        ("narrow", (1, 1, 2)),
        ("unbind", (1,)),
        ("split", (2, 1)),
        ("chunk", (2,)),
        ("flip", ((0,),)),
        ("fliplr", ()),
        ("flipud", ()),
        ("roll", (1, 1)),
        ("tile", ((2,),)),
        ("tril", (-1,)),
        ("triu", (1,)),
        ("diagonal", (1,)),
        ("diag", (1,)),
        ("diag_embed", (1,)),
    ],
)
def test_function_form_is_the_method(method: str, args: tuple[Any, ...]) -> None:
    x = ctxgrad.tensor(np.arange(6.0).reshape(2, 3))
    a, b = getattr(ctxgrad, method)(x, *args), getattr(x, method)(*args)
    for u, v in zip(a if isinstance(a, tuple) else (a,), b if isinstance(b, tuple) else (b,)):
        np.testing.assert_array_equal(u.numpy(), v.numpy())
        assert u.shape == v.shape


# --------------------------------------------------------------------------- errors

# (id, fn, exact): ``exact`` False where torch's message carries a C++ stack trace after ours.
ERRORS: list[tuple[str, Callable[[Any], Any], bool]] = [
    ("flatten-start-after-end", lambda m: m.zeros(2, 3, 4).flatten(2, 1), True),
    ("flatten-dim-out-of-range", lambda m: m.zeros(2, 3, 4).flatten(0, 3), True),
    ("flatten-0d-dim-out-of-range", lambda m: m.tensor(1.0).flatten(0, 1), True),
    ("unflatten-bad-sizes", lambda m: m.zeros(2, 3, 4).unflatten(-2, (2, 2)), True),
    ("unflatten-bad-inferred", lambda m: m.zeros(2, 3, 4).unflatten(1, (-1, 2)), True),
    ("unflatten-two-inferred", lambda m: m.zeros(2, 3, 4).unflatten(1, (-1, -1)), False),
    ("unflatten-no-sizes", lambda m: m.zeros(2, 3, 4).unflatten(1, ()), True),
    ("unflatten-0d", lambda m: m.tensor(1.0).unflatten(0, (1,)), False),
    ("squeeze-dim-out-of-range", lambda m: m.zeros(2, 3, 4).squeeze(3), True),
    ("squeeze-0d-dim-out-of-range", lambda m: m.tensor(1.0).squeeze(1), True),
    ("squeeze-repeated-dim", lambda m: m.zeros(1, 3).squeeze((0, -2)), True),
    ("unsqueeze-out-of-range", lambda m: m.zeros(2, 3, 4).unsqueeze(4), True),
    ("unsqueeze-negative-out-of-range", lambda m: m.zeros(2, 3, 4).unsqueeze(-5), True),
    ("unsqueeze-tuple", lambda m: m.zeros(2).unsqueeze((0,)), True),
    ("movedim-repeated-source", lambda m: m.zeros(2, 3, 4).movedim((0, 0), (1, 2)), True),
    ("movedim-repeated-destination", lambda m: m.zeros(2, 3, 4).movedim((0, 1), (2, -1)), True),
    ("movedim-lengths", lambda m: m.zeros(2, 3, 4).movedim((0, 1), (2,)), True),
    ("movedim-out-of-range", lambda m: m.zeros(2, 3, 4).movedim(3, 0), True),
    ("movedim-int-and-tuple", lambda m: m.zeros(2, 3, 4).movedim(0, [1]), False),
    ("swapaxes-out-of-range", lambda m: m.zeros(2, 3).swapaxes(0, 2), True),
    ("mH-1d", lambda m: m.zeros(3).mH, True),
    ("broadcast_to-mismatch", lambda m: m.zeros(3).broadcast_to((2, 4)), True),
    ("narrow-past-the-end", lambda m: m.zeros(2, 3).narrow(1, 2, 2), True),
    ("narrow-too-long", lambda m: m.zeros(2, 3).narrow(1, 0, 5), True),
    ("narrow-start-out-of-range", lambda m: m.zeros(2, 3).narrow(1, -4, 1), True),
    ("narrow-start-past-size", lambda m: m.zeros(2, 3).narrow(1, 4, 0), True),
    ("narrow-negative-length", lambda m: m.zeros(2, 3).narrow(1, 0, -1), True),
    ("narrow-0d", lambda m: m.tensor(1.0).narrow(0, 0, 1), True),
    ("narrow-dim-out-of-range", lambda m: m.zeros(2, 3).narrow(2, 0, 1), True),
    ("unbind-0d", lambda m: m.tensor(1.0).unbind(), True),
    ("unbind-out-of-range", lambda m: m.zeros(2, 3).unbind(2), True),
    ("split-sizes-do-not-sum", lambda m: m.zeros(2, 3).split([1, 1], 1), True),
    ("split-negative-size", lambda m: m.zeros(2, 3).split([4, -1], 1), True),
    ("split-size-0", lambda m: m.zeros(2, 3).split(0, 1), True),
    ("split-size-negative", lambda m: m.zeros(2, 3).split(-1, 1), True),
    ("split-0d", lambda m: m.tensor(1.0).split(1), True),
    ("split-sizes-0d", lambda m: m.tensor(1.0).split([1]), True),
    ("split-dim-out-of-range", lambda m: m.zeros(2, 3).split(1, 2), True),
    ("chunk-0", lambda m: m.zeros(2, 3).chunk(0), True),
    ("chunk-negative", lambda m: m.zeros(2, 3).chunk(-1), True),
    ("chunk-0d", lambda m: m.tensor(1.0).chunk(1), True),
    ("cat-number-of-dims", lambda m: m.cat([m.zeros(2, 3, 4), m.zeros(3, 3)]), True),
    ("cat-sizes", lambda m: m.cat([m.zeros(0), m.zeros(2, 3, 4), m.zeros(2, 4, 4)]), True),
    ("cat-sizes-last-dim", lambda m: m.cat([m.zeros(2, 3, 4), m.zeros(2, 4, 4)], dim=-1), True),
    ("cat-0d", lambda m: m.cat([m.zeros(0), m.tensor(1.0)]), True),
    ("cat-empty-list", lambda m: m.cat([]), True),
    ("cat-dim-out-of-range", lambda m: m.cat([m.zeros(0), m.zeros(2, 3)], 2), True),
    ("cat-2d-empty-is-not-skipped", lambda m: m.cat([m.zeros(0, 3), m.zeros(2, 3, 4)]), True),
    ("cat-a-tensor", lambda m: m.cat(m.zeros(2, 3)), True),
    ("cat-a-number", lambda m: m.cat([m.zeros(2), 1]), True),
    ("stack-shapes", lambda m: m.stack([m.zeros(3), m.zeros(3, 3)]), True),
    ("stack-shapes-later", lambda m: m.stack([m.zeros(3), m.zeros(3), m.zeros(4)]), True),
    ("stack-empty-list", lambda m: m.stack([]), True),
    ("stack-dim-out-of-range", lambda m: m.stack([m.zeros(3), m.zeros(3)], 3), True),
    ("hstack-empty-list", lambda m: m.hstack([]), True),
    ("vstack-empty-list", lambda m: m.vstack(()), True),
    ("vstack-sizes", lambda m: m.vstack([m.zeros(3), m.zeros(4)]), True),
    ("flip-repeated-dim", lambda m: m.zeros(2, 3).flip(0, -2), True),
    ("flip-out-of-range", lambda m: m.zeros(2, 3).flip(2), True),
    ("flip-function-int", lambda m: m.flip(m.zeros(2, 3), 0), True),
    ("flip-no-dims", lambda m: m.zeros(2, 3).flip(), True),
    ("fliplr-1d", lambda m: m.zeros(3).fliplr(), True),
    ("flipud-0d", lambda m: m.tensor(1.0).flipud(), True),
    ("roll-shifts-and-dims", lambda m: m.zeros(2, 3).roll((1, 2), (0,)), True),
    ("roll-two-shifts-no-dims", lambda m: m.zeros(2, 3).roll((1, 2)), True),
    ("roll-int-shift-two-dims", lambda m: m.zeros(2, 3).roll(1, (0, 1)), True),
    ("roll-no-shifts", lambda m: m.zeros(2, 3).roll((), ()), True),
    ("roll-out-of-range", lambda m: m.zeros(2, 3).roll(1, 2), True),
    ("roll-0d-dim", lambda m: m.tensor(1.0).roll(1, 0), True),
    ("repeat-fewer-dims", lambda m: m.zeros(2, 3, 4).repeat(2, 2), True),
    ("repeat-negative", lambda m: m.zeros(2, 3, 4).repeat(2, -1, 1), True),
    ("repeat-nothing", lambda m: m.zeros(2, 3).repeat(), True),
    ("tile-negative", lambda m: m.zeros(2, 3, 4).tile(-1), True),
    ("diag-3d", lambda m: m.zeros(2, 3, 4).diag(), True),
    ("diag-0d", lambda m: m.tensor(1.0).diag(), True),
    ("diagonal-same-dims", lambda m: m.zeros(3, 3).diagonal(0, 0, -2), True),
    ("diagonal-1d", lambda m: m.zeros(3).diagonal(), True),
    ("diagonal-out-of-range", lambda m: m.zeros(2, 3, 4).diagonal(0, 0, 3), True),
    ("diag_embed-same-dims", lambda m: m.zeros(3, 3).diag_embed(0, 0, -3), True),
    ("diag_embed-0d", lambda m: m.tensor(1.0).diag_embed(), True),
    ("diag_embed-out-of-range", lambda m: m.zeros(2, 3).diag_embed(0, 0, 3), True),
    ("tril-1d", lambda m: m.zeros(3).tril(), True),
    ("triu-0d", lambda m: m.tensor(1.0).triu(), True),
    ("broadcast_tensors-mismatch", lambda m: m.broadcast_tensors(m.zeros(3), m.zeros(4)), True),
    ("broadcast_tensors-mismatch-third", lambda m: m.broadcast_tensors(m.zeros(3, 1), m.zeros(1, 4), m.zeros(5)), True),
    (
        "broadcast_tensors-mismatch-leading",
        lambda m: m.broadcast_tensors(m.zeros(2, 1), m.zeros(5, 1, 4), m.zeros(3, 1)),
        True,
    ),
    ("broadcast_tensors-list", lambda m: m.broadcast_tensors([m.zeros(3)]), True),
    ("broadcast_shapes-mismatch", lambda m: m.broadcast_shapes((3,), (4,)), True),
    ("broadcast_shapes-mismatch-third", lambda m: m.broadcast_shapes((2, 1), (5, 1, 4), (3, 1)), True),
    ("broadcast_shapes-negative", lambda m: m.broadcast_shapes((-1,), (2,)), True),
    ("broadcast_shapes-float", lambda m: m.broadcast_shapes(2.0), True),
]


@pytest.mark.parametrize(("fn", "exact"), [pytest.param(f, e, id=i) for i, f, e in ERRORS])
def test_errors_match_torch(torch: Any, fn: Callable[[Any], Any], exact: bool) -> None:
    t_type, t_msg = raised(lambda: fn(torch), torch)
    c_type, c_msg = raised(lambda: fn(ctxgrad), ctxgrad)
    assert c_type == t_type, (c_msg, t_msg)
    if exact:
        assert c_msg == t_msg
    else:
        assert c_msg and t_msg.startswith(c_msg.split("\n")[0]), (c_msg, t_msg)

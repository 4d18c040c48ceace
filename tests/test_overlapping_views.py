"""Views that read one element of their base more than once (``expand``, ``expand_as``,
``broadcast_to``, ``unfold`` with overlapping windows, ``as_strided`` with overlapping
strides), used after their base was changed in place: the view is re-read from the changed
base, and the gradient of every reading of an element is added into it, as in torch
(reverse mode, forward mode, and forward over reverse)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ctxgrad

torch = pytest.importorskip("torch")

# Each takes the base (4 elements) and returns a view that reads some of its elements twice or more.
VIEWS: dict[str, Callable[[Any], Any]] = {
    "expand": lambda b: b.expand(3, -1),
    "expand_as": lambda b: b.expand_as(b.new_zeros(2, 4)),
    "broadcast_to": lambda b: b.broadcast_to((3, 4)),
    "unfold": lambda b: b.unfold(0, 2, 1),
    "as_strided": lambda b: b.as_strided((3, 2), (1, 1)),
    "expand_of_slice": lambda b: b[1:3].unsqueeze(0).expand(2, 2),
}

# In-place changes of the base (or of a part of it) after the view was taken.
CHANGES: dict[str, Callable[[Any, Any], Any]] = {
    "mul_": lambda b, w: b.mul_(2),
    "mul_by_input": lambda b, w: b.mul_(w),
    "write_through_slice": lambda b, w: b[1:3].copy_(w[:2] * 3),
}

START = [1.0, 2.0, -3.0, 0.5]
WEIGHT = [0.5, -1.0, 2.0, 1.5]


def assert_same(got: Any, want: Any) -> None:
    """Each value of ``got`` (numbers, nested lists, or None) equal to ``want``'s."""
    assert len(got) == len(want)
    for g, w in zip(got, want):
        if w is None:
            assert g is None
        else:
            np.testing.assert_allclose(np.asarray(g), np.asarray(w), rtol=1e-12, atol=1e-12)


def _loss(view: Any) -> Any:
    return (view * view * view).sum()  # not linear: the gradient depends on the values read


def reverse(lib: Any, view_op: Callable[[Any], Any], change: Callable[[Any, Any], Any]) -> tuple[Any, ...]:
    x = lib.tensor(START, dtype=lib.float64, requires_grad=True)
    w = lib.tensor(WEIGHT, dtype=lib.float64, requires_grad=True)
    base = x * 1.0
    view = view_op(base)
    change(base, w)
    loss = _loss(view)
    loss.backward()
    w_grad = None if w.grad is None else w.grad.tolist()
    return view.tolist(), loss.item(), x.grad.tolist(), w_grad, view.grad_fn.name()


@pytest.mark.parametrize("change", sorted(CHANGES))
@pytest.mark.parametrize("view", sorted(VIEWS))
def test_gradient_through_an_overlapping_view_of_a_changed_base_matches_torch(view: str, change: str) -> None:
    got = reverse(ctxgrad, VIEWS[view], CHANGES[change])
    want = reverse(torch, VIEWS[view], CHANGES[change])
    assert_same(got[:4], want[:4])
    assert got[4] == want[4] == "AsStridedBackward0"


def test_the_issue_example_adds_the_three_readings() -> None:
    for lib in (ctxgrad, torch):
        leaf = lib.tensor([1.0, 2.0], requires_grad=True)
        b = leaf.clone()
        v = b.expand(3, -1)
        b.mul_(2)
        v.sum().backward()
        assert leaf.grad.tolist() == [6.0, 6.0]


def forward_mode(lib: Any, view_op: Callable[[Any], Any], change: Callable[[Any, Any], Any]) -> tuple[Any, ...]:
    fwad = lib.autograd.forward_ad
    with fwad.dual_level():
        x = fwad.make_dual(lib.tensor(START, dtype=lib.float64), lib.tensor([1.0, -2.0, 0.5, 3.0], dtype=lib.float64))
        w = fwad.make_dual(lib.tensor(WEIGHT, dtype=lib.float64), lib.tensor([2.0, 1.0, -1.0, 0.0], dtype=lib.float64))
        base = x * 1.0
        view = view_op(base)
        change(base, w)
        loss = _loss(view)
        return fwad.unpack_dual(view).tangent.tolist(), fwad.unpack_dual(loss).tangent.item()


@pytest.mark.parametrize("change", sorted(CHANGES))
@pytest.mark.parametrize("view", sorted(VIEWS))
def test_tangent_of_an_overlapping_view_of_a_changed_base_matches_torch(view: str, change: str) -> None:
    got = forward_mode(ctxgrad, VIEWS[view], CHANGES[change])
    want = forward_mode(torch, VIEWS[view], CHANGES[change])
    assert_same(got, want)


def _function(view_op: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def f(x: Any) -> Any:
        base = x.clone()
        view = view_op(base)
        base.mul_(x)  # the base changed by an input: the view's values are x * x, read repeatedly
        return _loss(view)

    return f


@pytest.mark.parametrize("view", sorted(VIEWS))
def test_transforms_through_an_overlapping_view_of_a_changed_base_match_torch(view: str) -> None:
    def run(lib: Any) -> list[Any]:
        x = lib.tensor(START, dtype=lib.float64)
        f = _function(VIEWS[view])
        tangent = lib.tensor([1.0, -1.0, 0.5, 2.0], dtype=lib.float64)
        return [
            lib.func.jvp(f, (x,), (tangent,))[1].item(),
            lib.func.grad(f)(x).tolist(),
            lib.func.jacfwd(lib.func.grad(f))(x).tolist(),  # forward over reverse: the scatter-add's tangent
            lib.func.jacrev(lib.func.grad(f))(x).tolist(),  # reverse over reverse: the scatter-add's gradient
        ]

    assert_same(run(ctxgrad), run(torch))


@pytest.mark.parametrize("view", ["unfold", "as_strided"])
def test_unfold_and_as_strided_of_a_contiguous_tensor_are_views_sharing_its_version(view: str) -> None:
    for lib in (ctxgrad, torch):
        base = lib.arange(4.0)
        v = VIEWS[view](base)
        assert v._base is base
        base.add_(1)
        assert v._version == base._version == 1
        assert v.tolist() == [[1.0, 2.0], [2.0, 3.0], [3.0, 4.0]]


def test_as_strided_of_a_non_contiguous_tensor_is_a_copy() -> None:
    # ctxgrad's as_strided reads the elements in row-major order (docs/differences.md): of a
    # transposed tensor that is not its memory, so the result is a copy.
    base = ctxgrad.arange(6.0).reshape(2, 3).t()
    v = base.as_strided((2, 2), (1, 1))
    assert v._base is None
    assert v.tolist() == [[0.0, 3.0], [3.0, 1.0]]


def test_double_backward_of_the_re_read_view_adds_at_repeated_positions() -> None:
    # The re-read's backward is a scatter-add; its own gradient (create_graph) is a gather.
    def run(lib: Any) -> tuple[Any, Any]:
        x = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        base = x * 1.0
        v = base.expand(3, -1)
        base.mul_(x)
        (g,) = lib.autograd.grad(_loss(v), x, create_graph=True)
        (gg,) = lib.autograd.grad((g * lib.tensor([1.0, -2.0], dtype=lib.float64)).sum(), x)
        return g.tolist(), gg.tolist()

    assert_same(run(ctxgrad), run(torch))


OVERLAP_MSG = "unsupported operation: more than one element of the written-to tensor refers to a single memory location"


@pytest.mark.parametrize("view", ["expand", "broadcast_to", "unfold", "as_strided"])
def test_an_in_place_op_on_an_overlapping_view_is_refused(view: str) -> None:
    # torch refuses a dimension of stride 0 (expand) with this error; into overlapping windows
    # (unfold, as_strided) it writes element by element, each write seen by the later reads:
    # values that are not 2 * x, and a gradient that does not describe them (ctxgrad refuses
    # these too: docs/differences.md).
    leaf = ctxgrad.tensor(START, requires_grad=True)
    base = leaf.clone()
    with pytest.raises(RuntimeError, match=OVERLAP_MSG):
        VIEWS[view](base).mul_(2)
    assert base.tolist() == START  # nothing written
    if view in ("unfold", "as_strided"):
        t_leaf = torch.tensor(START, requires_grad=True)
        t_base = t_leaf.clone()
        VIEWS[view](t_base).mul_(2)
        assert t_base.tolist() != [2 * v for v in START]  # (torch's values depend on its order of writes)


@pytest.mark.parametrize(
    "view",
    [lambda b: b.unfold(0, 2, 2), lambda b: b.unfold(0, 2, 1)[1], lambda b: b.as_strided((2, 2), (1, 2))],
    ids=["unfold_apart", "one_window", "as_strided_apart"],
)
def test_an_in_place_op_on_a_view_whose_elements_are_apart_matches_torch(view: Callable[[Any], Any]) -> None:
    def run(lib: Any) -> tuple[Any, Any]:
        leaf = lib.tensor(START, dtype=lib.float64, requires_grad=True)
        base = leaf.clone()
        view(base).mul_(2)
        _loss(base).backward()
        return base.tolist(), leaf.grad.tolist()

    assert_same(run(ctxgrad), run(torch))


@pytest.mark.parametrize("shape", [(), (2,)])
def test_a_0d_tensor_written_through_a_view_then_read_by_another_write_matches_torch(shape: tuple[int, ...]) -> None:
    # Found by the in-place fuzzer: the gradient re-read at flat positions of a 0-d tensor was a
    # NumPy scalar, so the write that should zero it at the written positions kept it (3.4, not 2.4).
    torch = pytest.importorskip("torch")

    def program(L: Any) -> list[float]:
        a = L.full(shape, 0.7, dtype=L.float64, requires_grad=True)
        b = L.full(shape, -1.3, dtype=L.float64, requires_grad=True)
        o1 = a.clone()
        o1[...].mul_(a)
        o3 = a.clone()
        o3[...].mul_(b)
        o4 = a.clone()
        o4[...].add_(o1)
        (o3 * 2 + o4 * 3).sum().backward()
        return [*np.ravel(a.grad.tolist()), *np.ravel(b.grad.tolist())]

    np.testing.assert_allclose(program(ctxgrad), program(torch), rtol=1e-12)

"""Memory: graphs are freed by reference counting alone, saved tensors are released after backward.

Every test runs with the cycle collector disabled, so anything that is only freed by
``gc.collect()`` (a reference cycle) shows up as a weakref that is still alive.
"""

from __future__ import annotations

import gc
import warnings
import weakref
from typing import Any

import pytest

import ctxgrad
from ctxgrad.autograd import Function


@pytest.fixture(autouse=True)
def _no_cycle_collector() -> Any:
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


# Weak references to tensors made inside forward, so a test can watch them die.
_made_in_forward: list[weakref.ref[Any]] = []


class SaveAll(Function):
    """y = exp(2x); saves its input, its output and an intermediate."""

    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        mid = x * 2
        y = mid.exp()
        _made_in_forward.append(weakref.ref(mid))
        ctx.save_for_backward(x, y, mid)
        return y

    @staticmethod
    def backward(ctx: Any, g: Any) -> Any:
        _x, y, _mid = ctx.saved_tensors
        return g * y * 2


def _alive(refs: dict[str, weakref.ref[Any]]) -> dict[str, bool]:
    return {name: ref() is not None for name, ref in refs.items()}


def test_gc_is_disabled_in_these_tests() -> None:
    assert not gc.isenabled()


def test_deleting_the_output_frees_the_whole_graph_without_gc() -> None:
    _made_in_forward.clear()
    leaf = ctxgrad.ones(3, requires_grad=True)
    a = leaf * 3  # a non-leaf input, saved by SaveAll
    y = SaveAll.apply(a)
    node = y.grad_fn
    refs = {
        "output": weakref.ref(y),
        "node": weakref.ref(node),
        "input": weakref.ref(a),
        "input node": weakref.ref(a.grad_fn),
        "accumulate grad": weakref.ref(a.grad_fn.next_functions[0][0]),
        "intermediate": _made_in_forward[-1],
    }
    del node, a
    assert all(_alive(refs).values()), _alive(refs)
    del y
    assert _alive(refs) == dict.fromkeys(refs, False)
    assert leaf.grad is None  # the leaf itself is the test's and lives on


def test_saved_output_comes_back_as_a_new_tensor_and_makes_no_cycle() -> None:
    x = ctxgrad.ones(2, requires_grad=True)
    y = x.exp()  # Exp saves its output
    y_ref = weakref.ref(y)
    node_ref = weakref.ref(y.grad_fn)
    (saved,) = y.grad_fn.saved_tensors
    assert saved is not y
    assert saved.grad_fn is y.grad_fn
    del saved, y
    assert y_ref() is None
    assert node_ref() is None


def test_chain_of_built_in_ops_is_freed_without_gc() -> None:
    x = ctxgrad.ones(4, requires_grad=True)
    h = x
    refs = []
    for _ in range(50):
        h = (h * 1.5).exp().tanh() + h
        refs.append(weakref.ref(h.grad_fn))
    loss = h.sum()
    refs.append(weakref.ref(loss.grad_fn))
    del h, loss
    assert [r() for r in refs] == [None] * len(refs)


def test_backward_without_retain_graph_releases_saved_tensors() -> None:
    _made_in_forward.clear()
    x = ctxgrad.ones(3, requires_grad=True)
    y = SaveAll.apply(x)
    intermediate = _made_in_forward[-1]
    assert intermediate() is not None
    y.sum().backward()
    assert intermediate() is None
    assert y.grad_fn._saved is None
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.grad_fn.saved_tensors
    assert x.grad.tolist() == pytest.approx([2 * 7.389056] * 3, rel=1e-5)


def test_grad_without_retain_graph_releases_saved_tensors() -> None:
    _made_in_forward.clear()
    x = ctxgrad.ones(3, requires_grad=True)
    y = SaveAll.apply(x)
    intermediate = _made_in_forward[-1]
    ctxgrad.autograd.grad(y.sum(), x)
    assert intermediate() is None
    assert y.grad_fn._saved is None


def test_backward_with_retain_graph_keeps_saved_tensors() -> None:
    _made_in_forward.clear()
    x = ctxgrad.ones(3, requires_grad=True)
    y = SaveAll.apply(x)
    intermediate = _made_in_forward[-1]
    y.sum().backward(retain_graph=True)
    assert intermediate() is not None
    assert y.grad_fn._saved is not None
    assert len(y.grad_fn.saved_tensors) == 3
    # ... until the graph is dropped.
    del y
    assert intermediate() is None


def test_built_in_saved_tensors_are_released_after_backward() -> None:
    x = ctxgrad.ones(3, requires_grad=True)
    y = x.exp()
    z = y * y  # saves y (a non-leaf input) twice
    y_ref = weakref.ref(y)
    del y
    assert y_ref() is not None  # held by z's node
    z.sum().backward()
    assert y_ref() is None


def test_graph_retained_after_backward_is_freed_when_the_output_dies() -> None:
    x = ctxgrad.ones(3, requires_grad=True)
    y = SaveAll.apply(x * 1)
    node_ref = weakref.ref(y.grad_fn)
    y.sum().backward(retain_graph=True)
    del y
    assert node_ref() is None


def test_create_graph_gradients_are_freed_without_gc() -> None:
    x = ctxgrad.tensor(3.0, requires_grad=True)
    y = x**3
    (g,) = ctxgrad.autograd.grad(y, x, create_graph=True)
    (gg,) = ctxgrad.autograd.grad(g, x, create_graph=True)
    refs = [weakref.ref(y.grad_fn), weakref.ref(g.grad_fn), weakref.ref(gg.grad_fn)]
    assert (g.item(), gg.item()) == (27.0, 18.0)
    del y, g, gg
    assert [r() for r in refs] == [None, None, None]


def test_a_leaf_does_not_keep_its_accumulate_grad_node_alive() -> None:
    x = ctxgrad.ones(2, requires_grad=True)
    y = x * 2
    acc_ref = weakref.ref(y.grad_fn.next_functions[0][0])
    assert acc_ref().variable is x  # type: ignore[union-attr]
    del y
    assert acc_ref() is None
    assert x.requires_grad


def test_retain_grad_does_not_keep_the_tensor_alive() -> None:
    x = ctxgrad.ones(2, requires_grad=True)
    y = x * 2
    y.retain_grad()  # y's own node refers back to y for this: it must do so weakly
    (y * 3).sum().backward()
    assert y.grad.tolist() == [3.0, 3.0]
    refs = [weakref.ref(y), weakref.ref(y.grad_fn)]
    del y
    assert [r() for r in refs] == [None, None]


@pytest.mark.parametrize("anomaly", [False, True])
def test_graph_is_freed_after_a_backward_that_raised(anomaly: bool) -> None:
    class Boom(Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            raise ValueError("boom")

    x = ctxgrad.ones(2, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # anomaly mode's warnings
        with ctxgrad.autograd.set_detect_anomaly(anomaly):
            y = Boom.apply(x * 1)
            node_ref = weakref.ref(y.grad_fn)
            try:
                y.sum().backward()
            except ValueError:
                pass
            else:
                raise AssertionError("backward did not raise")
    del y
    assert node_ref() is None

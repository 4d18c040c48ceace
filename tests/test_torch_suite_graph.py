"""``autograd.graph`` names torch's autograd tests use: ``allow_mutation_on_saved_tensors``,
``register_multi_grad_hook``, and ``GradientEdge`` as an output of ``autograd.grad``.

Each scenario is a function of the library module ``L``, run on ctxgrad and on torch.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from _support import raised

import ctxgrad


def _grads(gs: Any) -> Any:
    return [None if g is None else g.tolist() for g in gs]


# --------------------------------------------------------------------------- allow_mutation_on_saved_tensors
def _mutation_scenarios(L: Any) -> list[Any]:
    A = L.autograd.graph.allow_mutation_on_saved_tensors
    out: list[Any] = []
    with A():
        a = L.ones(3, requires_grad=True)
        b = a.clone()
        loss = (b**2).sum()
        b.mul_(3)  # b was saved by pow
        loss.backward()
        out.append(a.grad.tolist())
        out.append(raised(lambda: A().__enter__(), L))
    with A():
        a = L.ones(3, requires_grad=True)
        b = a.clone()
        y = b.exp()
        y.mul_(2)  # y was saved by exp as its result
        loss = y.sum()
        b.add_(1)
        loss.backward()
        out.append(np.round(a.grad.numpy(), 4).tolist())
    with A():
        a = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
        b = a.clone()
        loss = (b * b).sum()
        b[0:2] = 5.0  # a write through a view
        loss.backward()
        out.append(a.grad.tolist())
    return out


def test_allow_mutation_keeps_the_saved_values() -> None:
    got = _mutation_scenarios(ctxgrad)
    assert got[0] == [2.0, 2.0, 2.0]
    assert got[1] == ("RuntimeError", "allow_mutation_on_saved_tensors contexts cannot be nested")
    assert got[2] == pytest.approx([round(2 * np.e, 4)] * 3)
    assert got[3] == [2.0, 4.0, 6.0]


def test_allow_mutation_matches_torch(torch: Any) -> None:
    assert _mutation_scenarios(ctxgrad) == _mutation_scenarios(torch)


def test_without_the_context_the_same_change_still_raises() -> None:
    a = ctxgrad.ones(3, requires_grad=True)
    b = a.clone()
    loss = (b**2).sum()
    b.mul_(3)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


def test_allow_mutation_copies_only_what_is_changed() -> None:
    from ctxgrad.autograd.graph import allow_mutation_on_saved_tensors

    with allow_mutation_on_saved_tensors():
        a = ctxgrad.ones(2, requires_grad=True)
        b, c = a.clone(), a.clone()
        y = b * c
        c.add_(1)
        saved_b, saved_c = y.grad_fn._saved_self, y.grad_fn._saved_other
        assert saved_b is b  # untouched: no copy
        assert saved_c is not c and saved_c.tolist() == [1.0, 1.0]


# --------------------------------------------------------------------------- register_multi_grad_hook
def _multi_all(L: Any) -> list[Any]:
    R = L.autograd.graph.register_multi_grad_hook
    a, b, c = (L.ones(2, requires_grad=True) for _ in range(3))
    calls: list[Any] = []
    h = R((a, b, c), lambda gs: calls.append(_grads(gs)))
    (a * 2 + b * 3).sum().backward()
    (a * 2).sum().backward(inputs=[a])
    h.remove()
    (a * 2).sum().backward()
    x, y = a * 1, b * 1
    R((x, y), lambda gs: calls.append(_grads(gs)))
    (x * 4 + y).sum().backward()
    return calls


def _multi_any(L: Any) -> list[Any]:
    R = L.autograd.graph.register_multi_grad_hook
    a, b = (L.ones(2, requires_grad=True) for _ in range(2))
    calls: list[Any] = []
    R((a, b), lambda g: calls.append(g.tolist()), mode="any")
    (a * 2 + b * 3).sum().backward()
    (a * 5).sum().backward()
    return calls


def test_multi_grad_hook_all_waits_for_every_gradient() -> None:
    assert _multi_all(ctxgrad) == [
        [[2.0, 2.0], [3.0, 3.0], None],
        [[2.0, 2.0], None, None],
        [[4.0, 4.0], [1.0, 1.0]],
    ]


def test_multi_grad_hook_any_runs_once_per_backward() -> None:
    assert _multi_any(ctxgrad) == [[3.0, 3.0], [5.0, 5.0]]


def test_multi_grad_hook_matches_torch(torch: Any) -> None:
    assert _multi_all(ctxgrad) == _multi_all(torch)
    assert _multi_any(ctxgrad) == _multi_any(torch)
    assert raised(
        lambda: ctxgrad.autograd.graph.register_multi_grad_hook((), lambda g: None, mode="x"), ctxgrad
    ) == raised(lambda: torch.autograd.graph.register_multi_grad_hook((), lambda g: None, mode="x"), torch)


# --------------------------------------------------------------------------- GradientEdge as an output
def _edge_outputs(L: Any) -> list[Any]:
    E = L.autograd.graph.get_gradient_edge
    x = L.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    z = (y * y).sum()
    s = y.sum()
    out = [
        _grads(L.autograd.grad(E(y), x, grad_outputs=L.ones(2), retain_graph=True)),
        raised(lambda: L.autograd.grad(E(y), x, retain_graph=True), L)[1][:50],
        _grads(L.autograd.grad(E(s), x, retain_graph=True)),
        _grads(L.autograd.grad([E(y), z], [x], grad_outputs=[L.ones(2), None], retain_graph=True)),
        _grads(L.autograd.grad(E(x), x, grad_outputs=L.ones(2))),
    ]
    return out


def test_gradient_edge_as_an_output_starts_backward_there() -> None:
    got = _edge_outputs(ctxgrad)
    assert got[0] == [[3.0, 3.0]]
    assert got[1] == "grad can be implicitly created only for scalar out"
    assert got[2:] == [[[3.0, 3.0]], [[21.0, 39.0]], [[1.0, 1.0]]]


def test_gradient_edge_as_an_output_matches_torch(torch: Any) -> None:
    assert _edge_outputs(ctxgrad) == _edge_outputs(torch)


# --------------------------------------------------------------------------- gradcheck's legacy Jacobians
def _jacobians(L: Any) -> list[Any]:
    from importlib import import_module

    gc = import_module(f"{L.__name__}.autograd.gradcheck")
    x = L.tensor([1.0, 2.0, 3.0], dtype=L.float64, requires_grad=True)
    w = L.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=L.float64, requires_grad=True)
    with pytest.warns(FutureWarning, match="`get_numerical_jacobian` was part of PyTorch's private API"):
        n1 = gc.get_numerical_jacobian(lambda i: (i[0] * i[0])[:2], (x,), eps=1e-6)
    with pytest.warns(FutureWarning):
        n2 = gc.get_numerical_jacobian(lambda i: i[0][:2] @ i[1], (x, w, L.ones(2)), eps=1e-6)
    with pytest.warns(FutureWarning, match="`get_analytical_jacobian` was part of PyTorch's private API"):
        a1 = gc.get_analytical_jacobian((x, w), x[:2] @ w)
    with pytest.warns(FutureWarning):
        bad = raised(lambda: gc.get_numerical_jacobian(lambda i: i[0], (x,), grad_out=2.0), L)
    return [
        [np.round(j.numpy(), 6).tolist() for j in n1],
        [np.round(j.numpy(), 6).tolist() for j in n2],
        [j.numpy().tolist() for j in a1[0]],
        a1[1:],
        bad,
    ]


def test_legacy_jacobians_lay_out_one_row_per_input_element() -> None:
    n1, n2, a1, checks, bad = _jacobians(ctxgrad)
    assert n1 == [[[2.0, 0.0], [0.0, 4.0], [0.0, 0.0]]]
    assert a1 == [[[1.0, 2.0], [3.0, 4.0], [0.0, 0.0]], [[1.0, 0.0], [0.0, 1.0], [2.0, 0.0], [0.0, 2.0]]]
    assert n2 == a1  # the numbers agree with backward's
    assert checks == (True, True, True)
    assert bad == (
        "ValueError",
        "Expected grad_out to be 1.0. get_numerical_jacobian no longer supports values of grad_out != 1.0.",
    )


def test_legacy_jacobians_match_torch(torch: Any) -> None:
    assert _jacobians(ctxgrad) == _jacobians(torch)


def test_analytical_jacobian_reports_a_backward_that_is_not_reentrant() -> None:
    from ctxgrad.autograd.gradcheck import get_analytical_jacobian

    calls = [0]

    class Noisy(ctxgrad.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x * 2

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            calls[0] += 1
            return g * (2 + calls[0])

    x = ctxgrad.ones(2, dtype=ctxgrad.float64, requires_grad=True)
    with pytest.warns(FutureWarning):
        _, reentrant, sizes, types = get_analytical_jacobian((x,), Noisy.apply(x))
    assert (reentrant, sizes, types) == (False, True, True)


def _edges_as_backward_roots(L: Any) -> list[Any]:
    x = L.tensor([1.0, 2.0], requires_grad=True)

    def fn() -> Any:
        tmp = x.sin().cos().sum()
        return tmp.exp().clone().sin().sum(), L.autograd.graph.get_gradient_edge(tmp)

    _out, edge = fn()  # (the output keeps the graph alive)
    (ref,) = L.autograd.grad(edge, (x,), retain_graph=True)
    L.autograd.backward(edge, retain_graph=True)
    first = x.grad.tolist()
    x.grad = None
    L.autograd.backward((edge,), retain_graph=True)
    second = x.grad.tolist()
    mismatch = raised(lambda: L.autograd.grad(edge, (x,), grad_outputs=L.ones((), dtype=L.complex64)), L)
    return [[round(float(v), 4) for v in np.ravel(a)] for a in (ref.numpy(), first, second)] + [mismatch]


def test_backward_starts_at_gradient_edges_as_torch(torch: Any) -> None:
    ours = _edges_as_backward_roots(ctxgrad)
    assert ours[0] == ours[1] == ours[2]
    assert ours[3][1].startswith("For complex Tensors, both grad_output and output are required to have the same")
    assert ours == _edges_as_backward_roots(torch)


def _edges_as_inputs(L: Any) -> list[Any]:
    GradientEdge = L.autograd.graph.GradientEdge
    x = L.rand(2, requires_grad=True).clone()
    y = L.rand(2, requires_grad=True).clone()
    ex, ey = GradientEdge(x.grad_fn, x.output_nr), GradientEdge(y.grad_fn, y.output_nr)
    out = x.clone()
    for inputs in ((ex, y), (x, ey), (ex, ey), ex):
        L.autograd.backward(out.sum(), inputs=inputs, retain_graph=True)
    materialized = L.autograd.grad(out.sum(), (x, y), allow_unused=True, materialize_grads=True, retain_graph=True)
    refused = raised(
        lambda: L.autograd.grad(out.sum(), (x, ey), allow_unused=True, materialize_grads=True, retain_graph=True), L
    )
    return [[g.tolist() for g in materialized], materialized[1].requires_grad, refused]


def test_gradient_edges_as_inputs_match_torch(torch: Any) -> None:
    ours = _edges_as_inputs(ctxgrad)
    assert ours[0] == [[1.0, 1.0], [0.0, 0.0]] and ours[1] is False  # (requires grad with create_graph)
    assert ours[2] == ("RuntimeError", "materialize_grads cannot be used when the given input is a GradientEdge")
    assert ours == _edges_as_inputs(torch)


def test_materialized_zeros_can_be_differentiated_again(torch: Any) -> None:
    def run(L: Any) -> list[Any]:
        x = L.tensor(0.5, requires_grad=True)
        a = L.tensor(1.0, requires_grad=True)
        (dydx,) = L.autograd.grad(x * a, x, create_graph=True)
        (unused,) = L.autograd.grad(dydx, x, create_graph=True, allow_unused=True)
        (d2,) = L.autograd.grad(dydx, x, create_graph=True, allow_unused=True, materialize_grads=True)
        (d3,) = L.autograd.grad(d2, x, materialize_grads=True)  # d2 is a zero that requires grad
        return [unused, d2.item(), d3.item()]

    assert run(ctxgrad) == [None, 0.0, 0.0] == run(torch)

"""The gradients of ``linear`` (``addmm`` over ``weight.t()``) and of a product with a transposed
right operand, computed on the arrays when nothing records: the weight's gradient is computed in
the layout of the operand it is for, as torch's ``mm`` backward does, so that ``weight.grad`` is
row-major by a plain copy; the values are torch's, and the recording path's (``create_graph``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import ctxgrad

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(3)


def _linear_grads(L: Any, x: np.ndarray, w: np.ndarray, b: np.ndarray, input_grad: bool, create_graph: bool) -> Any:
    xt = L.tensor(x).requires_grad_(input_grad)
    wt, bt = L.tensor(w).requires_grad_(), L.tensor(b).requires_grad_()
    weights = L.tensor(np.linspace(-1.0, 1.0, x.shape[0] * w.shape[0]).reshape(x.shape[0], w.shape[0]))
    loss = (L.nn.functional.linear(xt, wt, bt) * weights).sum()
    if create_graph:
        grads = L.autograd.grad(loss, (wt, bt), create_graph=True)
        return [g.detach() for g in grads]
    loss.backward()
    return [wt.grad, bt.grad]


@pytest.mark.parametrize("input_grad", [False, True], ids=["frozen input", "input requires grad"])
def test_a_linear_weight_s_grad_is_row_major_with_torch_s_values(input_grad: bool) -> None:
    x, w, b = RNG.standard_normal((6, 4)), RNG.standard_normal((3, 4)), RNG.standard_normal(3)
    ours = _linear_grads(ctxgrad, x, w, b, input_grad, create_graph=False)
    theirs = _linear_grads(torch, x, w, b, input_grad, create_graph=False)
    recorded = _linear_grads(ctxgrad, x, w, b, input_grad, create_graph=True)
    for g, t, r in zip(ours, theirs, recorded):
        assert g.is_contiguous() and g.numpy().flags.c_contiguous
        np.testing.assert_allclose(g.numpy(), t.numpy(), rtol=1e-13, atol=1e-15)
        np.testing.assert_allclose(g.numpy(), r.numpy(), rtol=1e-14, atol=1e-15)


def test_mm_with_a_transposed_right_operand_gives_its_gradient_in_that_layout() -> None:
    # (what the engine passes on to t()'s node: transposed back, it is row-major)
    a = ctxgrad.tensor(RNG.standard_normal((5, 4)), requires_grad=True)
    w = ctxgrad.tensor(RNG.standard_normal((3, 4)), requires_grad=True)
    out = a.mm(w.t())
    g = ctxgrad.tensor(RNG.standard_normal((5, 3)))
    with ctxgrad.no_grad():  # (as the engine runs a node: nothing records)
        grad_a, grad_wt = out.grad_fn(g)
    assert grad_wt.numpy().flags.f_contiguous and not grad_wt.numpy().flags.c_contiguous
    np.testing.assert_allclose(grad_wt.numpy(), a.detach().numpy().T @ g.numpy(), rtol=1e-14)
    np.testing.assert_allclose(grad_a.numpy(), g.numpy() @ w.detach().numpy(), rtol=1e-14)
    # a row-major right operand keeps the row-major gradient
    v = ctxgrad.tensor(RNG.standard_normal((4, 3)), requires_grad=True)
    node = a.mm(v).grad_fn
    with ctxgrad.no_grad():
        _, grad_v = node(g)
    assert grad_v.numpy().flags.c_contiguous


@pytest.mark.parametrize(
    ("view", "shape"),
    [(lambda t: t.t(), (3, 4)), (lambda t: t.permute(2, 0, 1), (2, 3, 4)), (lambda t: t.transpose(0, 2), (2, 3, 4))],
    ids=["t", "permute", "transpose"],
)
def test_a_transpose_s_gradient_on_the_arrays_equals_the_recorded_one(view: Any, shape: tuple[int, ...]) -> None:
    data = RNG.standard_normal(shape)
    x = ctxgrad.tensor(data, requires_grad=True)
    tx = torch.tensor(data, requires_grad=True)
    out, tout = view(x), view(tx)
    g = RNG.standard_normal(tuple(out.shape))
    (recorded,) = ctxgrad.autograd.grad(out, x, ctxgrad.tensor(g), create_graph=True)
    out.backward(ctxgrad.tensor(g))
    tout.backward(torch.tensor(g))
    np.testing.assert_array_equal(x.grad.numpy(), recorded.detach().numpy())
    np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())
    assert x.grad.is_contiguous() and tx.grad.is_contiguous()

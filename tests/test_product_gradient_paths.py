"""The matrix products' backward on arrays gives exactly what the ops give.

``mm``'s and ``addmm``'s backward compute grad @ bᵀ and aᵀ @ grad with NumPy when nothing
records, and with ``Mm.apply`` on transposed views otherwise (``create_graph``): the same
NumPy products of the same arrays, so the gradients must be equal bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

import ctxgrad

DTYPES = [np.float32, np.float64, np.complex128]


def _arrays(dtype: type) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(3)

    def draw(*shape: int) -> np.ndarray:
        values = rng.standard_normal(shape)
        if np.dtype(dtype).kind == "c":
            values = values + 1j * rng.standard_normal(shape)
        return values.astype(dtype)

    return draw(5, 4), draw(4, 6), draw(6)


def _gradients(op: str, dtype: type, create_graph: bool, needs: tuple[bool, bool], transposed_upstream: bool):
    a_arr, b_arr, bias_arr = _arrays(dtype)
    a = ctxgrad.tensor(a_arr, requires_grad=needs[0])
    b = ctxgrad.tensor(b_arr, requires_grad=needs[1])
    bias = ctxgrad.tensor(bias_arr, requires_grad=True)
    out = a @ b if op == "mm" else ctxgrad.addmm(bias, a, b)
    upstream_arr = np.linspace(-1.0, 2.0, 30).astype(dtype)
    # (a non-contiguous upstream gradient: its transpose's layout reaches the products)
    # (requiring grad under create_graph: the gradients are then recorded, proof of the ops' path)
    upstream = ctxgrad.tensor(
        upstream_arr.reshape((6, 5) if transposed_upstream else (5, 6)), requires_grad=create_graph
    )
    if transposed_upstream:
        upstream = upstream.mT
    wanted = [t for t, need in zip((a, b), needs) if need]
    grads = ctxgrad.autograd.grad(out, wanted, upstream, create_graph=create_graph)
    return [g.detach().numpy() for g in grads], [g.requires_grad for g in grads]


@pytest.mark.parametrize("op", ["mm", "addmm"])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("needs", [(True, True), (True, False), (False, True)])
@pytest.mark.parametrize("transposed_upstream", [False, True])
def test_the_array_backward_equals_the_ops_backward(
    op: str, dtype: type, needs: tuple[bool, bool], transposed_upstream: bool
) -> None:
    on_arrays, recorded_a = _gradients(op, dtype, False, needs, transposed_upstream)
    with_ops, recorded_b = _gradients(op, dtype, True, needs, transposed_upstream)
    assert not any(recorded_a) and all(recorded_b)  # (the second took the ops, recording)
    for x, y in zip(on_arrays, with_ops):
        assert x.dtype == y.dtype == np.dtype(dtype)
        np.testing.assert_array_equal(x, y)


def test_the_gradients_match_torch() -> None:
    torch = pytest.importorskip("torch")
    a_arr, b_arr, bias_arr = _arrays(np.float64)
    a = ctxgrad.tensor(a_arr, requires_grad=True)
    b = ctxgrad.tensor(b_arr, requires_grad=True)
    bias = ctxgrad.tensor(bias_arr, requires_grad=True)
    ctxgrad.addmm(bias, a, b, beta=0.5, alpha=2.0).sum().backward()
    ta, tb, tbias = (torch.tensor(v, requires_grad=True) for v in (a_arr, b_arr, bias_arr))
    torch.addmm(tbias, ta, tb, beta=0.5, alpha=2.0).sum().backward()
    for mine, theirs in ((a, ta), (b, tb), (bias, tbias)):
        np.testing.assert_allclose(mine.grad.numpy(), theirs.grad.numpy(), rtol=1e-12)

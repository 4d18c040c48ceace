"""``addmv``, ``addr``, ``baddbmm`` and ``addbmm`` record one node each, torch's
(``AddmvBackward0``, ...), as ``addmm`` does: the same values, gradients (first and second
order, and complex, with complex factors), tangents and saved values as torch's, and under
``vmap`` the same results as torch's ``vmap``."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ctxgrad

torch = pytest.importorskip("torch")

RNG = np.random.default_rng(0)

# name: (node, the op on a library L and its three operands, the operands' shapes)
CASES: dict[str, tuple[str, Callable[..., Any], tuple[tuple[int, ...], ...]]] = {
    "addmv": ("AddmvBackward0", lambda L, x, a, b, **k: L.addmv(x, a, b, **k), ((2,), (2, 3), (3,))),
    "addmv, input broadcast": ("AddmvBackward0", lambda L, x, a, b, **k: L.addmv(x, a, b, **k), ((1,), (2, 3), (3,))),
    "addr": ("AddrBackward0", lambda L, x, a, b, **k: L.addr(x, a, b, **k), ((2, 3), (2,), (3,))),
    "addr, input broadcast": ("AddrBackward0", lambda L, x, a, b, **k: L.addr(x, a, b, **k), ((3,), (2,), (3,))),
    "baddbmm": ("BaddbmmBackward0", lambda L, x, a, b, **k: L.baddbmm(x, a, b, **k), ((4, 2, 5), (4, 2, 3), (4, 3, 5))),
    "baddbmm, input broadcast": (
        "BaddbmmBackward0",
        lambda L, x, a, b, **k: L.baddbmm(x, a, b, **k),
        ((2, 1), (4, 2, 3), (4, 3, 5)),
    ),
    "addbmm": ("AddbmmBackward0", lambda L, x, a, b, **k: L.addbmm(x, a, b, **k), ((2, 5), (4, 2, 3), (4, 3, 5))),
    "addbmm, method": ("AddbmmBackward0", lambda L, x, a, b, **k: x.addbmm(a, b, **k), ((2, 5), (4, 2, 3), (4, 3, 5))),
}
FACTORS = [{}, {"beta": 0.5, "alpha": -2.0}, {"beta": 0, "alpha": 3}]


def _arrays(shapes: tuple[tuple[int, ...], ...], dtype: Any = np.float64) -> list[np.ndarray]:
    arrays = [RNG.standard_normal(s) for s in shapes]
    if np.dtype(dtype).kind == "c":
        arrays = [a + 1j * RNG.standard_normal(a.shape) for a in arrays]
    return [a.astype(dtype) for a in arrays]


def _leaves(L: Any, arrays: list[np.ndarray]) -> list[Any]:
    return [L.tensor(a).requires_grad_() for a in arrays]


def _grads(L: Any, op: Callable[..., Any], arrays: list[np.ndarray], factors: dict[str, Any]) -> tuple[Any, ...]:
    """The op's value, node name, first gradients and second gradients (of the sum of the
    first ones' squares) on library ``L``."""
    x, a, b = _leaves(L, arrays)
    out = op(L, x, a, b, **factors)
    weights = L.tensor(np.linspace(-1.0, 1.0, out.numel()).reshape(tuple(out.shape)).astype(arrays[0].dtype))
    first = L.autograd.grad((out * weights).sum(), (x, a, b), create_graph=True)
    second = L.autograd.grad(sum((g * g).sum() for g in first), (x, a, b), allow_unused=True)
    second = [np.zeros(t.shape) if g is None else g.detach().numpy() for g, t in zip(second, (x, a, b))]
    return out.detach().numpy(), out.grad_fn.name(), [g.detach().numpy() for g in first], second


@pytest.mark.parametrize("factors", FACTORS, ids=["default", "beta 0.5 alpha -2", "beta 0"])
@pytest.mark.parametrize("name", CASES)
def test_one_node_with_torch_s_values_and_gradients(name: str, factors: dict[str, Any]) -> None:
    node, op, shapes = CASES[name]
    arrays = _arrays(shapes)
    ours, theirs = _grads(ctxgrad, op, arrays, factors), _grads(torch, op, arrays, factors)
    assert ours[1] == theirs[1] == node
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12, atol=1e-12)
    for mine, torch_s in zip(ours[2] + ours[3], theirs[2] + theirs[3]):
        np.testing.assert_allclose(mine, torch_s, rtol=1e-11, atol=1e-11)


@pytest.mark.parametrize("name", ["addmv", "addr", "baddbmm", "addbmm"])
def test_complex_operands_and_factors_as_torch(name: str) -> None:
    _, op, shapes = CASES[name]
    arrays = _arrays(shapes, np.complex128)
    factors = {"beta": 0.5 - 1j, "alpha": 2 + 0.5j}
    results = []
    for L in (ctxgrad, torch):
        x, a, b = _leaves(L, arrays)
        out = op(L, x, a, b, **factors)
        (out.abs() ** 2).sum().backward()
        results.append([out.detach().numpy(), *(t.grad.numpy() for t in (x, a, b))])
    for mine, torch_s in zip(*results):
        np.testing.assert_allclose(mine, torch_s, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["addmv", "addr", "baddbmm", "addbmm"])
def test_forward_mode_as_torch(name: str) -> None:
    _, op, shapes = CASES[name]
    primals, tangents = _arrays(shapes), _arrays(shapes)
    results = []
    for L in (ctxgrad, torch):
        out, tangent = L.func.jvp(
            lambda x, a, b, L=L: op(L, x, a, b, beta=0.5, alpha=2.0),
            tuple(L.tensor(p) for p in primals),
            tuple(L.tensor(t) for t in tangents),
        )
        results.append((out.numpy(), tangent.numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-12)


@pytest.mark.parametrize("name", ["addmv", "addr", "baddbmm", "addbmm"])
def test_vmap_as_torch_without_a_per_sample_loop(name: str) -> None:
    _, op, shapes = CASES[name]
    batched = _arrays(tuple((3, *s) for s in shapes))
    results = []
    for L in (ctxgrad, torch):
        with warnings.catch_warnings():
            warnings.simplefilter("error")  # (a Function without a batching rule warns)
            out = L.func.vmap(lambda x, a, b, L=L: op(L, x, a, b, alpha=2.0))(*(L.tensor(t) for t in batched))
        results.append(out.numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-12)


def test_addbmm_keeps_torch_s_saved_values() -> None:
    arrays = _arrays(((2, 5), (4, 2, 3), (4, 3, 5)))
    nodes = []
    for L in (ctxgrad, torch):
        x, a, b = _leaves(L, arrays)
        nodes.append(L.addbmm(x, a, b, beta=0.5, alpha=2.0).grad_fn)
    for field in ("batch1_sym_argsize_0", "batch1_sym_argsize_1", "batch2_sym_argsize_2", "beta", "alpha"):
        assert getattr(nodes[0], f"_saved_{field}") == getattr(nodes[1], f"_saved_{field}"), field
    for field in ("batch1", "batch2"):
        np.testing.assert_array_equal(
            getattr(nodes[0], f"_saved_{field}").detach().numpy(),
            getattr(nodes[1], f"_saved_{field}").detach().numpy(),
        )


def test_beta_0_ignores_a_nan_input_as_torch() -> None:
    results = []
    for L in (ctxgrad, torch):
        x = L.full((2,), float("nan"), requires_grad=True)
        a, b = L.ones(2, 3, requires_grad=True), L.ones(3, requires_grad=True)
        out = L.addmv(x, a, b, beta=0)
        out.sum().backward()
        results.append((out.detach().numpy(), x.grad.numpy()))
    np.testing.assert_array_equal(results[0][0], [3.0, 3.0])
    for mine, torch_s in zip(*results):
        np.testing.assert_array_equal(mine, torch_s)

"""``addmm`` as one node, ``AddmmBackward0``, against torch: the graph ``nn.functional.linear``
records (``AddmmBackward0`` over ``TBackward0`` for a matrix input with a bias), the values,
gradients, second derivatives, tangents and batched gradients of ``addmm`` for scaled,
broadcast, zero-``beta`` and complex calls, and its errors.  Each program runs on both
libraries with the same code."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ctxgrad

torch = pytest.importorskip("torch")

LIBRARIES = (ctxgrad, torch)


def _operands(lib: Any, input_shape: tuple[int, ...], dtype: Any = np.float64) -> tuple[Any, Any, Any]:
    rng = np.random.default_rng(7)
    arrays = [rng.standard_normal(shape) for shape in (input_shape, (2, 4), (4, 3))]
    if np.dtype(dtype).kind == "c":
        arrays = [a + 1j * rng.standard_normal(a.shape) for a in arrays]
    made = [lib.tensor(a.astype(dtype), requires_grad=True) for a in arrays]
    return made[0], made[1], made[2]


def _graph(fn: Any) -> list[str]:
    """The node names reached from ``fn``, depth first, in ``next_functions`` order."""
    names: list[str] = []

    def walk(node: Any, depth: int) -> None:
        if node is None:
            names.append(f"{depth}:None")
            return
        names.append(f"{depth}:{node.name().rsplit('::', 1)[-1]}")
        for child, _ in node.next_functions:
            walk(child, depth + 1)

    walk(fn, 0)
    return names


@pytest.mark.parametrize(
    ("input_shape", "bias"),
    [((5, 4), True), ((5, 4), False), ((2, 5, 4), True), ((4,), True)],
    ids=["matrix-bias", "matrix-no-bias", "batch-bias", "vector-bias"],
)
def test_linear_records_torchs_graph(input_shape: tuple[int, ...], bias: bool) -> None:
    graphs, values, grads = [], [], []
    for lib in LIBRARIES:
        rng = np.random.default_rng(3)
        x = lib.tensor(rng.standard_normal(input_shape))
        w = lib.tensor(rng.standard_normal((3, 4)), requires_grad=True)
        b = lib.tensor(rng.standard_normal(3), requires_grad=True) if bias else None
        out = lib.nn.functional.linear(x, w, b)
        graphs.append(_graph(out.grad_fn))
        values.append(out.detach().numpy())
        (out * out).sum().backward()
        grads.append([w.grad.numpy()] + ([b.grad.numpy()] if bias else []))
    assert graphs[0] == graphs[1]
    np.testing.assert_allclose(values[0], values[1], rtol=1e-12)
    for ours, theirs in zip(*grads):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_linear_graph_is_addmm_over_t() -> None:
    x = ctxgrad.ones(2, 4)
    w = ctxgrad.ones(3, 4, requires_grad=True)
    b = ctxgrad.zeros(3, requires_grad=True)
    out = ctxgrad.nn.functional.linear(x, w, b)
    assert _graph(out.grad_fn) == ["0:AddmmBackward0", "1:AccumulateGrad", "1:None", "1:TBackward0", "2:AccumulateGrad"]


CALLS: dict[str, tuple[tuple[int, ...], Any, dict[str, Any]]] = {
    "plain": ((2, 3), np.float64, {}),
    "broadcast-row": ((3,), np.float64, {}),
    "broadcast-column": ((2, 1), np.float64, {}),
    "scaled": ((2, 3), np.float64, {"beta": 0.5, "alpha": -2.0}),
    "beta-zero": ((3,), np.float64, {"beta": 0}),
    "float32": ((2, 3), np.float32, {"alpha": 3}),
    "complex-alpha": ((2, 3), np.complex128, {"beta": 1 - 1j, "alpha": 0.5 + 2j}),
}


def _run(lib: Any, name: str) -> dict[str, Any]:
    shape, dtype, kwargs = CALLS[name]
    i, a, b = _operands(lib, shape, dtype)
    out = lib.addmm(i, a, b, **kwargs)
    seed = lib.ones_like(out)
    grads = lib.autograd.grad(
        (out * out.conj()).real.sum() if out.is_complex() else (out**3).sum(), (i, a, b), create_graph=True
    )
    second = lib.autograd.grad(sum((g * g.conj()).real.sum() for g in grads), (i, a, b), allow_unused=True)
    node = out.grad_fn
    return {
        "name": node.name(),
        "value": out.detach().numpy(),
        "grads": [g.detach().numpy() for g in grads],
        "second": [None if g is None else g.numpy() for g in second],
        "saved": (node._saved_beta, node._saved_alpha, tuple(node._saved_mat1_sym_sizes)),
        "seed": seed.dtype == out.dtype,
    }


@pytest.mark.parametrize("name", sorted(CALLS))
def test_addmm_values_gradients_and_second_derivatives(name: str) -> None:
    ours, theirs = _run(ctxgrad, name), _run(torch, name)
    assert ours["name"] == theirs["name"] == "AddmmBackward0"
    assert ours["saved"] == theirs["saved"]
    rtol = 1e-5 if CALLS[name][1] == np.float32 else 1e-11
    np.testing.assert_allclose(ours["value"], theirs["value"], rtol=rtol)
    assert ours["value"].dtype == theirs["value"].dtype
    for key in ("grads", "second"):
        for got, want in zip(ours[key], theirs[key]):
            if want is None:
                assert got is None
            else:
                np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol)


@pytest.mark.parametrize("name", ["plain", "broadcast-row", "scaled", "complex-alpha"])
def test_addmm_tangents_match_torch(name: str) -> None:
    results = []
    for lib in LIBRARIES:
        shape, dtype, kwargs = CALLS[name]
        i, a, b = _operands(lib, shape, dtype)
        tangents = [lib.ones_like(t) * (k + 1) for k, t in enumerate((i, a, b))]
        with lib.autograd.forward_ad.dual_level():
            duals = [lib.autograd.forward_ad.make_dual(t.detach(), d) for t, d in zip((i, a, b), tangents)]
            out = lib.addmm(*duals, **kwargs)
            results.append(lib.autograd.forward_ad.unpack_dual(out).tangent.numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-12)


def test_per_sample_gradients_of_linear_under_vmap_match_torch() -> None:
    results = []
    for lib in LIBRARIES:
        rng = np.random.default_rng(5)
        w = lib.tensor(rng.standard_normal((3, 4)))
        b = lib.tensor(rng.standard_normal(3))
        xs = lib.tensor(rng.standard_normal((6, 1, 4)))

        def loss(w: Any, b: Any, x: Any, lib: Any = lib) -> Any:
            return lib.tanh(lib.nn.functional.linear(x, w, b)).sum()

        gw, gb = lib.func.vmap(lib.func.grad(loss, argnums=(0, 1)), in_dims=(None, None, 0))(w, b, xs)
        results.append((gw.numpy(), gb.numpy()))
    for got, want in zip(*results):
        np.testing.assert_allclose(got, want, rtol=1e-12)


@pytest.mark.parametrize(
    "batched",
    [(0, None, None), (None, 0, None), (None, None, 0), (0, 0, 0)],
    ids=["input", "mat1", "mat2", "all"],
)
def test_addmm_under_vmap_matches_torch(batched: tuple[Any, ...]) -> None:
    results = []
    for lib in LIBRARIES:
        rng = np.random.default_rng(9)
        shapes = ((3,), (2, 4), (4, 3))
        args = [lib.tensor(rng.standard_normal(((5,) + s) if d == 0 else s)) for s, d in zip(shapes, batched)]
        out = lib.func.vmap(lambda i, a, b, lib=lib: lib.addmm(i, a, b, beta=0.5, alpha=2.0), in_dims=batched)(*args)
        results.append(out.numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-12)


ERRORS: dict[str, Callable[[Any], Any]] = {
    "input-shape": lambda m: m.addmm(m.ones(3), m.ones(2, 3), m.ones(3, 2)),
    "mat1-vector": lambda m: m.addmm(m.ones(2), m.ones(3), m.ones(3, 2)),
    "inner-size": lambda m: m.addmm(m.ones(2, 2), m.ones(2, 3), m.ones(2, 2)),
    "input-dtype": lambda m: m.addmm(m.ones(2, 2, dtype=m.float64), m.ones(2, 2), m.ones(2, 2)),
    "linear-bias-dtype": lambda m: m.nn.functional.linear(m.ones(2, 3), m.ones(4, 3), m.ones(4, dtype=m.float64)),
    "linear-bias-shape": lambda m: m.nn.functional.linear(m.ones(2, 3), m.ones(4, 3), m.ones(3)),
}


@pytest.mark.parametrize("name", sorted(ERRORS))
def test_addmm_errors_match_torch(name: str) -> None:
    outcomes = []
    for lib in LIBRARIES:
        with pytest.raises(Exception) as info:
            ERRORS[name](lib)
        outcomes.append((type(info.value).__name__, str(info.value)))
    assert outcomes[0] == outcomes[1]

"""Autograd as public torch code uses it (torch-usage.tsv): the grad modes, ``autograd.grad``
and ``backward``, custom Functions and their ``ctx``, checkpointing, ``torch.func`` and the
named results of ``max``/``sort``: the same program on ctxgrad and torch, compared."""

from __future__ import annotations

import importlib
from typing import Any

import numpy as np
import pytest
from _usage import check, grads, torch_names

import ctxgrad

V = [0.5, -1.5, 2.0]


@torch_names(
    "torch.no_grad",
    "torch.enable_grad",
    "torch.set_grad_enabled",
    "torch.is_grad_enabled",
    "torch.inference_mode",
    "torch.autograd.set_grad_enabled",
)
def test_grad_modes_match_torch(torch: Any) -> None:
    def run(m: Any) -> Any:
        x = m.tensor(V, requires_grad=True)
        seen = [m.is_grad_enabled()]
        with m.no_grad():
            a = x * 2
            seen.append(m.is_grad_enabled())
            with m.enable_grad():
                b = x * 2
        with m.set_grad_enabled(False):
            c = x * 2
        with m.autograd.set_grad_enabled(True):
            d = x * 2
        with m.inference_mode():
            e = x * 2
            seen.append(m.is_grad_enabled())

        @m.no_grad()
        def decorated(t: Any) -> Any:
            return t * 2

        f = decorated(x)
        return seen, [t.requires_grad for t in (a, b, c, d, e, f)], e.is_inference()

    check(run, torch)


@torch_names(
    "torch.autograd.grad",
    "torch.autograd",
    "torch.autograd.grad(retain_graph=)",
    "torch.autograd.grad(create_graph=)",
    "torch.autograd.backward",
)
def test_autograd_grad_and_backward_match_torch(torch: Any) -> None:
    def run(m: Any) -> Any:
        x = m.tensor(V, dtype=m.float64, requires_grad=True)
        y = (x**3).sum()
        (g,) = m.autograd.grad(y, x, create_graph=True, retain_graph=True)
        (h,) = m.autograd.grad(g.sum(), x)
        (again,) = m.autograd.grad(y, [x], grad_outputs=m.tensor(2.0, dtype=m.float64))
        z = x * x
        m.autograd.backward([z], [m.ones(3, dtype=m.float64)])
        return g, h, again, x.grad, g.requires_grad

    check(run, torch)


@torch_names("torch.autograd.grad")
def test_autograd_grad_errors_match_torch(torch: Any) -> None:
    messages = []
    for m in (ctxgrad, torch):
        x = m.tensor(V, requires_grad=True)
        y = (x * 2).sum()
        m.autograd.grad(y, x)
        with pytest.raises(RuntimeError) as info:
            m.autograd.grad(y, x)
        messages.append(str(info.value).split(".")[0])
    assert messages[0] == messages[1]


def custom_function(m: Any) -> Any:
    """torch's custom-Function pattern: save for backward, read the needs of each input."""
    autograd_function = importlib.import_module(f"{m.__name__}.autograd.function")

    class ScaledCube(m.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any, scale: Any) -> Any:
            assert isinstance(ctx, autograd_function.FunctionCtx)
            ctx.save_for_backward(x, scale)
            return x**3 * scale

        @staticmethod
        @autograd_function.once_differentiable
        def backward(ctx: Any, grad: Any) -> Any:
            x, scale = ctx.saved_tensors
            needs = ctx.needs_input_grad
            return (grad * 3 * x**2 * scale if needs[0] else None, (grad * x**3).sum() if needs[1] else None)

    return ScaledCube


@torch_names(
    "torch.autograd.Function",
    "torch.autograd.function",
    "torch.autograd.function.FunctionCtx",
    "torch.autograd.function.FunctionCtx.save_for_backward",
    "torch.autograd.function.FunctionCtx.saved_tensors",
    "torch.autograd.function.FunctionCtx.needs_input_grad",
    "torch.autograd.function.once_differentiable",
)
def test_a_custom_function_matches_torch(torch: Any) -> None:
    def run(m: Any) -> Any:
        fn = custom_function(m)
        return grads(m, lambda x, s: fn.apply(x, s), V, 1.5) + grads(
            m, lambda x: fn.apply(x, m.tensor(2.0, dtype=m.float64)), V
        )

    check(run, torch)


@torch_names("torch.autograd.gradcheck")
def test_gradcheck_matches_torch(torch: Any) -> None:
    def run(m: Any) -> Any:
        x = m.tensor(V, dtype=m.float64, requires_grad=True)
        return m.autograd.gradcheck(lambda t: (t.sin() * t).sum(), (x,))

    check(run, torch)


@torch_names("torch.autograd.functional", "torch.autograd.functional.jacobian")
def test_functional_jacobian_matches_torch(torch: Any) -> None:
    check(lambda m: m.autograd.functional.jacobian(lambda t: t.sin() * t.sum(), m.tensor(V, dtype=m.float64)), torch)


@torch_names("torch.autograd.Variable")
def test_variable_matches_torch(torch: Any) -> None:
    def run(m: Any) -> Any:
        x = m.ones(2, requires_grad=True)
        detached = m.autograd.Variable(x * 2)
        leaf = m.autograd.Variable(m.tensor(V), requires_grad=True)
        (leaf**2).sum().backward()
        return detached, detached.grad_fn is None, leaf.grad, leaf.is_leaf

    check(run, torch)


@torch_names("torch.utils", "torch.utils.checkpoint", "torch.utils.checkpoint.checkpoint")
def test_checkpoint_matches_torch(torch: Any) -> None:
    def run(m: Any) -> Any:
        checkpoint = importlib.import_module(f"{m.__name__}.utils.checkpoint")
        return grads(m, lambda x: checkpoint.checkpoint(lambda t: t.sin() * t.exp(), x, use_reentrant=False), V)

    check(run, torch)


@torch_names("torch.func", "torch.func.vmap", "torch.vmap", "torch.func.functional_call")
def test_func_transforms_match_torch(torch: Any) -> None:
    def run(m: Any) -> Any:
        batch = m.tensor([[1.0, 2.0], [3.0, -1.0]], dtype=m.float64)
        per_row = m.func.vmap(lambda r: r.dot(r))(batch)
        outer = m.vmap(lambda a, b: a * b, in_dims=(0, None))(batch, batch[0])
        m.manual_seed(0)
        layer = m.nn.Linear(2, 1).double()
        params = {"weight": m.ones(1, 2, dtype=m.float64), "bias": m.zeros(1, dtype=m.float64)}
        called = m.func.functional_call(layer, params, (batch,))
        return per_row, outer, called

    check(run, torch)


@torch_names("torch.return_types.values", "torch.return_types.indices")
def test_named_results_match_torch(torch: Any) -> None:
    def run(m: Any) -> Any:
        x = m.tensor([[3.0, 1.0, 2.0], [0.5, 4.0, -1.0]], requires_grad=True)
        best = x.max(dim=1)
        top = m.topk(x, 2)
        ordered = m.sort(x, descending=True)
        (best.values.sum() + top.values.sum()).backward()
        return best.values, best.indices, top.indices, ordered.values, ordered.indices, x.grad, m.min(x, 0).indices

    check(run, torch)


LINALG = [
    pytest.param(lambda m, a: m.linalg.norm(a), marks=torch_names("torch.linalg.norm"), id="norm"),
    pytest.param(
        lambda m, a: m.linalg.vector_norm(a, ord=3, dim=1),
        marks=torch_names("torch.linalg.vector_norm"),
        id="vector_norm",
    ),
    pytest.param(lambda m, a: m.linalg.inv(a), marks=torch_names("torch.linalg.inv"), id="inv"),
    pytest.param(lambda m, a: m.linalg.solve(a, a[:, :1] + 1), marks=torch_names("torch.linalg.solve"), id="solve"),
    pytest.param(
        lambda m, a: m.linalg.solve_triangular(a.triu(), a[:, :2], upper=True),
        marks=torch_names("torch.linalg.solve_triangular"),
        id="solve_triangular",
    ),
    pytest.param(lambda m, a: m.linalg.cholesky(a @ a.mT), marks=torch_names("torch.linalg.cholesky"), id="cholesky"),
    pytest.param(lambda m, a: m.linalg.eigh(a + a.mT).eigenvalues, marks=torch_names("torch.linalg.eigh"), id="eigh"),
    pytest.param(lambda m, a: m.linalg.eigvalsh(a + a.mT), marks=torch_names("torch.linalg.eigvalsh"), id="eigvalsh"),
    pytest.param(lambda m, a: m.linalg.qr(a).R.abs(), marks=torch_names("torch.linalg.qr"), id="qr"),
    pytest.param(lambda m, a: m.linalg.svd(a).S, marks=torch_names("torch.linalg.svd"), id="svd"),
    pytest.param(lambda m, a: m.linalg.pinv(a[:, :2]), marks=torch_names("torch.linalg.pinv"), id="pinv"),
    pytest.param(lambda m, a: m.stack(m.linalg.slogdet(a)), marks=torch_names("torch.linalg.slogdet"), id="slogdet"),
    pytest.param(lambda m, a: m.linalg.cross(a, a.flip(0)), marks=torch_names("torch.linalg.cross"), id="cross"),
    pytest.param(lambda m, a: m.fft.fft(a).abs(), marks=torch_names("torch.fft", "torch.fft.fft"), id="fft"),
    pytest.param(lambda m, a: m.special.expit(a) + m.special.erf(a), marks=torch_names("torch.special"), id="special"),
]


@pytest.mark.parametrize("f", LINALG)
def test_linalg_fft_special_match_torch(torch: Any, f: Any) -> None:
    a = [[4.0, 1.0, 0.5], [1.0, 3.0, 0.2], [0.5, -0.2, 2.0]]
    check(lambda m: grads(m, lambda t: f(m, t), a), torch, 1e-7, 1e-9)


@torch_names("torch.inference_mode")
def test_inference_tensors_refuse_autograd_as_torch(torch: Any) -> None:
    kinds = []
    for m in (ctxgrad, torch):
        with m.inference_mode():
            x = m.ones(2)
        with pytest.raises(RuntimeError) as info:
            x.requires_grad_()
        kinds.append("nference" in str(info.value))
    assert kinds == [True, True]
    assert np.array_equal(ctxgrad.ones(2).numpy(), torch.ones(2).numpy())

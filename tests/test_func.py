"""``ctxgrad.func`` (vmap, grad, vjp, jvp, jacrev, jacfwd, hessian, functional_call) against
``torch.func`` on the same float64 inputs, and against finite differences and plain loops
where torch is absent."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import ctxgrad
import ctxgrad.nn.functional as F
from ctxgrad import nn
from ctxgrad.autograd.errors import OnceDifferentiableError
from ctxgrad.func import (
    functional_call,
    grad,
    grad_and_value,
    hessian,
    jacfwd,
    jacrev,
    jvp,
    linearize,
    stack_module_state,
    vjp,
    vmap,
)

RNG = np.random.default_rng(0)
X = RNG.standard_normal((5, 3))
W = RNG.standard_normal((3, 4))
B = RNG.standard_normal(4)


def _leaves(tree: Any) -> list[Any]:
    if isinstance(tree, (tuple, list)):
        return [leaf for t in tree for leaf in _leaves(t)]
    if isinstance(tree, dict):
        return [leaf for k in sorted(tree) for leaf in _leaves(tree[k])]
    return [tree]


def _same(got: Any, want: Any, tol: float = 1e-10) -> None:
    g, w = _leaves(got), _leaves(want)
    assert len(g) == len(w)
    for a, b in zip(g, w):
        assert a.grad_fn is None, "a top-level transform must return tensors without history"
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(a.numpy(), b.detach().numpy(), rtol=tol, atol=tol)


def both(program: Any, *arrays: np.ndarray, tol: float = 1e-10) -> None:
    """Run ``program(lib, func, *tensors)`` with ctxgrad and with torch; compare."""
    torch = pytest.importorskip("torch")
    import torch.func as tf

    got = program(ctxgrad, ctxgrad.func, *[ctxgrad.tensor(a) for a in arrays])
    want = program(torch, tf, *[torch.tensor(a) for a in arrays])
    _same(got, want, tol)


def mlp(lib: Any, w: Any, b: Any, x: Any) -> Any:
    return (x @ w + b).tanh() * 2.0 - (x @ w).sin()


# ----------------------------------------------------------------------------- vmap
@pytest.mark.parametrize(
    "program",
    [
        lambda lib, fn, x: fn.vmap(lib.sin)(x),
        lambda lib, fn, x: fn.vmap(lambda v: (v * v).sum())(x),
        lambda lib, fn, x: fn.vmap(lambda v: v.sum(), in_dims=1)(x),
        lambda lib, fn, x: fn.vmap(lambda v: v.sum(), in_dims=-1)(x),
        lambda lib, fn, x: fn.vmap(lambda v: v * 2, out_dims=1)(x),
        lambda lib, fn, x: fn.vmap(lambda v: v.softmax(0).max())(x),
        lambda lib, fn, x: fn.vmap(lambda v: v.reshape(3, 1).expand(3, 2).T)(x),
        lambda lib, fn, x: fn.vmap(lambda v: lib.stack([v, v * 2], 1))(x),
        lambda lib, fn, x: fn.vmap(lambda v: lib.cat([v, v[:1]]))(x),
        lambda lib, fn, x: fn.vmap(lambda v: v[1:] - v[:-1])(x),
        lambda lib, fn, x: fn.vmap(lambda v: v.unsqueeze(0).squeeze())(x),
        lambda lib, fn, x: fn.vmap(lambda v: v.cumsum(0).flip(0))(x),
        lambda lib, fn, x: fn.vmap(lambda v: lib.where(v > 0, v, v * 0.1))(x),
        lambda lib, fn, x: fn.vmap(lambda v: v.norm())(x),
        lambda lib, fn, x: fn.vmap(lambda v: v.var(0))(x),
        lambda lib, fn, x: fn.vmap(lambda v: v.max(0).values)(x),
        lambda lib, fn, x: fn.vmap(lambda v: v.argmax())(x).double(),
        lambda lib, fn, x: fn.vmap(fn.vmap(lambda a: a.exp() * 2))(x),
        lambda lib, fn, x: fn.vmap(lambda a: fn.vmap(lambda b: (a * b).sum())(x))(x),
        lambda lib, fn, x: fn.vmap(lambda v: v.outer(v))(x),
        lambda lib, fn, x: fn.vmap(lambda v: v.sum(), chunk_size=2)(x),
        lambda lib, fn, x: fn.vmap(lambda v: v.sum(), chunk_size=2, in_dims=1)(x),
    ],
)
def test_vmap_of_built_in_ops_as_torch(program: Any) -> None:
    both(program, X)


@pytest.mark.parametrize(
    "program",
    [
        lambda lib, fn, x, w, b: fn.vmap(lambda v: v @ w + b)(x),
        lambda lib, fn, x, w, b: fn.vmap(lambda col: x @ col, in_dims=1)(w),
        lambda lib, fn, x, w, b: fn.vmap(lambda v, c: v @ c, in_dims=(0, 1))(x[:4], w),
        lambda lib, fn, x, w, b: fn.vmap(lambda v, c: v.dot(c), in_dims=(1, 0))(w, x[:4]),
        lambda lib, fn, x, w, b: fn.vmap(lambda p, v: mlp(lib, p[0], p[1], v), in_dims=(None, 0))((w, b), x),
        lambda lib, fn, x, w, b: fn.vmap(lambda d: d["a"] * d["b"], in_dims=({"a": 0, "b": None},))(
            {"a": x, "b": x[0]}
        ),
        lambda lib, fn, x, w, b: fn.vmap(lambda v, s: v * s, in_dims=(0, None))(x, 3.0),
        lambda lib, fn, x, w, b: fn.vmap(lambda v: (v, v.sum()), out_dims=(1, 0))(x),
    ],
)
def test_vmap_in_dims_out_dims_and_pytrees_as_torch(program: Any) -> None:
    both(program, X, W, B)


def test_vmap_promotes_a_batched_0d_tensor_as_one_sample_does() -> None:
    torch = pytest.importorskip("torch")
    s = np.arange(3.0)
    got = vmap(lambda a, b: a * b, in_dims=(None, 0))(ctxgrad.ones(2), ctxgrad.tensor(s))
    want = torch.func.vmap(lambda a, b: a * b, in_dims=(None, 0))(torch.ones(2), torch.tensor(s))
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1] == "float32"
    np.testing.assert_allclose(got.numpy(), want.numpy())


def test_vmap_returns_an_unbatched_output_once_per_sample() -> None:
    got = vmap(lambda v: ctxgrad.ones(2))(ctxgrad.zeros(3, 5))
    assert got.shape == (3, 2)


def test_a_batched_tensor_prints_as_torch_does() -> None:
    printed = []
    vmap(lambda v: printed.append(repr(v)) or v)(ctxgrad.ones(2, 2))
    assert printed[0].startswith("BatchedTensor(lvl=")
    assert printed[0].endswith(", bdim=0, value=\n    tensor([[1., 1.],\n            [1., 1.]])\n)")


def test_inplace_ops_inside_vmap_write_the_batch() -> None:
    x = ctxgrad.zeros(3, 2)

    def f(v: ctxgrad.Tensor) -> ctxgrad.Tensor:
        v.add_(1.0)
        v[0] = 5.0
        return v

    out = vmap(f)(x)
    np.testing.assert_array_equal(x.numpy(), [[5.0, 1.0]] * 3)
    np.testing.assert_array_equal(out.numpy(), x.numpy())


def test_vmap_refuses_an_inplace_write_of_a_batch_into_a_shared_tensor() -> None:
    shared = ctxgrad.zeros(2)
    with pytest.raises(RuntimeError, match="batched while `self` is not"):
        vmap(lambda v: shared.add_(v))(ctxgrad.ones(3, 2))


def _errors(program: Any) -> tuple[type, str]:
    try:
        program()
    except Exception as exc:
        return type(exc), str(exc)
    raise AssertionError("no error")


@pytest.mark.parametrize(
    "program",
    [
        lambda lib, fn, x: fn.vmap(lib.sin, in_dims=2)(x),
        lambda lib, fn, x: fn.vmap(lib.sin, in_dims=-3)(x),
        lambda lib, fn, x: fn.vmap(lib.sin, in_dims=(0, 0))(x),
        lambda lib, fn, x: fn.vmap(lib.add)(x, x[:, :2].T),
        lambda lib, fn, x: fn.vmap(lambda a: a.item())(x),
        lambda lib, fn, x: fn.vmap(lambda a: a * 2 if a.sum() > 0 else a)(x),
        lambda lib, fn, x: fn.vmap(lib.sin, in_dims=None)(x),
        lambda lib, fn, x: fn.vmap(lib.sin, in_dims="a")(x),
        lambda lib, fn, x: fn.vmap(lambda a: 5)(x),
        lambda lib, fn, x: fn.vmap(lib.sin)(5.0),
        lambda lib, fn, x: fn.vmap(lib.sin)(),
        lambda lib, fn, x: fn.vmap(lib.sin, randomness="foo")(x),
        lambda lib, fn, x: fn.vmap(lambda a: a + lib.randn(3))(x),
        lambda lib, fn, x: fn.vmap(lib.sin)(x[0, 0]),
        lambda lib, fn, x: fn.grad(lambda a: a)(x),
        lambda lib, fn, x: fn.grad(lambda a: a.sum())(lib.tensor([1, 2])),
        lambda lib, fn, x: fn.grad(lambda a: a.sum(), argnums=2)(x),
        lambda lib, fn, x: fn.grad(lambda a: 3)(x),
        lambda lib, fn, x: fn.grad(lambda a: a.sum(), has_aux=True)(x),
        lambda lib, fn, x: fn.vjp(lib.sin, x)[1](lib.ones(2, dtype=lib.float64)),
    ],
)
def test_misuse_raises_as_torch(program: Any) -> None:
    torch = pytest.importorskip("torch")
    import torch.func as tf

    got = _errors(lambda: program(ctxgrad, ctxgrad.func, ctxgrad.tensor(X)))
    want = _errors(lambda: program(torch, tf, torch.tensor(X)))
    assert got[0] is want[0], (got, want)
    assert got[1].replace("ctxgrad.Size", "torch.Size") == want[1]


def test_a_tensor_that_escaped_vmap_refuses_with_torchs_message() -> None:
    escaped = []
    vmap(lambda a: escaped.append(a) or a)(ctxgrad.ones(2, 2))
    with pytest.raises(RuntimeError, match="Either your tensor may have escaped from inside a function being vmapped"):
        escaped[0] + 1


# ----------------------------------------------------------------------------- randomness
def test_randomness_different_draws_per_sample_and_same_draws_once() -> None:
    x = ctxgrad.zeros(4, 3)
    ctxgrad.manual_seed(0)
    diff = vmap(lambda v: v + ctxgrad.randn(3), randomness="different")(x)
    same = vmap(lambda v: v + ctxgrad.rand(3), randomness="same")(x)
    assert diff.shape == same.shape == (4, 3)
    assert len({tuple(r) for r in diff.numpy().round(12)}) == 4
    assert len({tuple(r) for r in same.numpy().round(12)}) == 1
    drop = vmap(lambda v: F.dropout(v + 1.0, 0.5), randomness="different")(ctxgrad.zeros(64, 32))
    assert set(np.unique(drop.numpy())) <= {0.0, 2.0}
    assert len({tuple(r) for r in drop.numpy()}) > 1


# ----------------------------------------------------------------------------- grad, vjp, jvp
@pytest.mark.parametrize(
    "program",
    [
        lambda lib, fn, x, w, b: fn.grad(lambda v: (v**3).sum())(x),
        lambda lib, fn, x, w, b: fn.grad(lambda w_, b_, v: mlp(lib, w_, b_, v).sum(), argnums=(0, 1))(w, b, x),
        lambda lib, fn, x, w, b: fn.grad_and_value(lambda v: (v.exp() * v).mean())(x),
        lambda lib, fn, x, w, b: fn.grad(lambda v: ((v**2).sum(), v.sum()), has_aux=True)(x),
        lambda lib, fn, x, w, b: fn.grad(lambda p: (p["w"] * 2 + p["b"][0]).sum())({"w": w, "b": b}),
        lambda lib, fn, x, w, b: fn.vjp(lambda v: mlp(lib, w, b, v), x)[1](lib.ones(5, 4, dtype=lib.float64)),
        lambda lib, fn, x, w, b: fn.vjp(lambda v, u: (v * u, v.sin()), x, x)[1](
            (lib.ones_like(x), lib.ones_like(x) * 2)
        ),
        lambda lib, fn, x, w, b: fn.jvp(lambda v: mlp(lib, w, b, v), (x,), (lib.ones_like(x),)),
        lambda lib, fn, x, w, b: fn.jvp(lambda v, u: (v * u).sum(), (x, x), (x.cos(), x.sin())),
        lambda lib, fn, x, w, b: fn.linearize(lambda v: v.sin() * v, x)[1](lib.ones_like(x) * 0.5),
        lambda lib, fn, x, w, b: fn.grad(fn.grad(lambda v: v.sin() * v**2))(x[0, 0]),
    ],
)
def test_grad_vjp_jvp_as_torch(program: Any) -> None:
    both(program, X, W, B)


def test_grad_agrees_with_finite_differences_without_torch() -> None:
    x = ctxgrad.tensor(X[0])
    g = grad(lambda v: (v.sin() * v.exp()).sum())(x)
    eps = 1e-6
    fd = [
        (
            (np.sin(X[0] + eps * e) * np.exp(X[0] + eps * e)).sum()
            - (np.sin(X[0] - eps * e) * np.exp(X[0] - eps * e)).sum()
        )
        / (2 * eps)
        for e in np.eye(3)
    ]
    np.testing.assert_allclose(g.numpy(), fd, rtol=1e-7)


# ----------------------------------------------------------------------------- Jacobians
@pytest.mark.parametrize(
    "program",
    [
        lambda lib, fn, x, w, b: fn.jacrev(lambda v: mlp(lib, w, b, v))(x[0]),
        lambda lib, fn, x, w, b: fn.jacfwd(lambda v: mlp(lib, w, b, v))(x[0]),
        lambda lib, fn, x, w, b: fn.jacrev(lambda w_, b_: mlp(lib, w_, b_, x[0]), argnums=(0, 1))(w, b),
        lambda lib, fn, x, w, b: fn.jacfwd(lambda w_, b_: mlp(lib, w_, b_, x[0]), argnums=(0, 1))(w, b),
        lambda lib, fn, x, w, b: fn.jacrev(lambda v: (v.sin(), v.sum()))(x[0]),
        lambda lib, fn, x, w, b: fn.jacrev(lambda v: (v.exp(), v.sum()), has_aux=True)(x[0]),
        lambda lib, fn, x, w, b: fn.jacfwd(lambda v: (v.exp(), v.sum()), has_aux=True)(x[0]),
        lambda lib, fn, x, w, b: fn.hessian(lambda v: mlp(lib, w, b, v).sum())(x[0]),
        lambda lib, fn, x, w, b: fn.vmap(fn.jacrev(lambda v: mlp(lib, w, b, v)))(x),
        lambda lib, fn, x, w, b: fn.vmap(fn.hessian(lambda v: (v.tanh() ** 3).sum()))(x),
        lambda lib, fn, x, w, b: fn.jacrev(fn.jacrev(lambda v: (v**3).prod()))(x[0]),
        lambda lib, fn, x, w, b: fn.jacfwd(fn.jacfwd(lambda v: (v**3).prod()))(x[0]),
        lambda lib, fn, x, w, b: fn.jacfwd(fn.jacrev(lambda v: v.sin() * v.sum()))(x[0]),
        lambda lib, fn, x, w, b: fn.jacrev(lambda v: v.sin(), chunk_size=2)(x[0]),
        lambda lib, fn, x, w, b: fn.vmap(fn.grad(lambda v: (v**3).sum()))(x),
    ],
)
def test_jacobians_and_compositions_as_torch(program: Any) -> None:
    both(program, X, W, B)


# ----------------------------------------------------------------------------- custom Functions
def _cube(lib: Any, style: str) -> Any:
    class Cube(lib.autograd.Function):
        generate_vmap_rule = style == "generate"

        @staticmethod
        def forward(x: Any) -> Any:
            return x**3

        @staticmethod
        def setup_context(ctx: Any, inputs: Any, output: Any) -> None:
            ctx.save_for_backward(inputs[0])

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            (x,) = ctx.saved_tensors
            return 3 * x**2 * g

        @staticmethod
        def jvp(ctx: Any, t: Any) -> Any:
            (x,) = ctx.saved_tensors
            return 3 * x**2 * t

    if style == "vmap":

        def rule(info: Any, in_dims: Any, x: Any) -> Any:
            return Cube.apply(x), in_dims[0]

        Cube.vmap = staticmethod(rule)
    return Cube


@pytest.mark.parametrize("style", ["vmap", "generate"])
@pytest.mark.parametrize(
    "program",
    [
        lambda lib, fn, op, x: fn.vmap(op.apply)(x),
        lambda lib, fn, op, x: fn.vmap(fn.grad(lambda v: op.apply(v).sum()))(x),
        lambda lib, fn, op, x: fn.jacrev(op.apply)(x[0]),
        lambda lib, fn, op, x: fn.vmap(fn.jacrev(op.apply))(x),
        lambda lib, fn, op, x: fn.grad(lambda v: fn.vmap(op.apply)(v).sum())(x),
    ],
)
def test_custom_functions_under_transforms_as_torch(style: str, program: Any) -> None:
    torch = pytest.importorskip("torch")
    import torch.func as tf

    got = program(ctxgrad, ctxgrad.func, _cube(ctxgrad, style), ctxgrad.tensor(X))
    want = program(torch, tf, _cube(torch, style), torch.tensor(X))
    _same(got, want)


class CubeWithCtx(ctxgrad.autograd.Function):
    """A Function in the ctx-first style, with neither a vmap rule nor generate_vmap_rule."""

    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx: Any, g: ctxgrad.Tensor) -> ctxgrad.Tensor:
        (x,) = ctx.saved_tensors
        return 3 * x**2 * g


class CubeWithCtxGenerated(CubeWithCtx):
    """The same in the ctx-first style with generate_vmap_rule (torch requires setup_context)."""

    generate_vmap_rule = True


def test_a_function_without_a_rule_loops_with_one_warning_naming_it() -> None:
    x = ctxgrad.tensor(X)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        g1 = vmap(grad(lambda v: CubeWithCtx.apply(v).sum()))(x)
        g2 = vmap(grad(lambda v: CubeWithCtx.apply(v).sum()))(x)
    messages = [str(w.message) for w in caught if "batching rule" in str(w.message)]
    assert len(messages) == 1 and "CubeWithCtx has no batching rule" in messages[0]
    np.testing.assert_allclose(g1.numpy(), 3 * X**2)
    np.testing.assert_allclose(g2.numpy(), 3 * X**2)


def test_generate_vmap_rule_works_in_the_ctx_first_style_too() -> None:
    x = ctxgrad.tensor(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_allclose(vmap(CubeWithCtxGenerated.apply)(x).numpy(), X**3)
        g = vmap(grad(lambda v: CubeWithCtxGenerated.apply(v).sum()))(x)
        j = jacrev(CubeWithCtxGenerated.apply)(ctxgrad.tensor(X[0]))
    np.testing.assert_allclose(g.numpy(), 3 * X**2)
    np.testing.assert_allclose(j.numpy(), np.diag(3 * X[0] ** 2))


@pytest.mark.filterwarnings("ignore:vmap")
def test_second_order_through_once_differentiable_names_the_function() -> None:
    class Square(ctxgrad.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @ctxgrad.autograd.function.once_differentiable
        def backward(ctx: Any, g: ctxgrad.Tensor) -> ctxgrad.Tensor:
            (x,) = ctx.saved_tensors
            return 2 * x * g

    x = ctxgrad.tensor([1.0, 2.0])
    with pytest.raises(OnceDifferentiableError, match=r"once_differentiable \(SquareBackward\)"):
        grad(grad(lambda v: Square.apply(v)))(x[0])
    with pytest.raises(OnceDifferentiableError, match=r"once_differentiable \(SquareBackward\)"):
        jacrev(jacrev(Square.apply))(x)


# ----------------------------------------------------------------------------- the recipes
class SmallCNN(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3)
        self.fc = nn.Linear(4 * 3 * 3, 10)

    def forward(self, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        x = F.max_pool2d(F.relu(self.conv(x)), 2).flatten(1)
        return self.fc(x)


def test_per_sample_gradients_of_a_cnn_equal_a_loop_of_backward_calls() -> None:
    ctxgrad.manual_seed(0)
    model = SmallCNN().double()
    params = {k: v.detach() for k, v in model.named_parameters()}
    data = ctxgrad.randn(6, 1, 8, 8, dtype=ctxgrad.float64)
    targets = ctxgrad.tensor([3, 1, 4, 1, 5, 9])

    def loss(p: dict[str, ctxgrad.Tensor], x: ctxgrad.Tensor, t: ctxgrad.Tensor) -> ctxgrad.Tensor:
        return F.cross_entropy(functional_call(model, p, (x.unsqueeze(0),)), t.unsqueeze(0))

    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no op falls back to vmap's loop
        per_sample = vmap(grad(loss), in_dims=(None, 0, 0))(params, data, targets)
    for i in range(6):
        model.zero_grad()
        F.cross_entropy(model(data[i : i + 1]), targets[i : i + 1]).backward()
        for name, p in model.named_parameters():
            np.testing.assert_allclose(per_sample[name][i].numpy(), p.grad.numpy(), rtol=0, atol=1e-10)


def test_per_sample_gradients_of_a_cnn_as_torch() -> None:
    torch = pytest.importorskip("torch")
    ctxgrad.manual_seed(0)
    model = SmallCNN().double()
    tmodel = torch.nn.Sequential()  # the same network in torch, with ctxgrad's weights
    tconv = torch.nn.Conv2d(1, 4, 3).double()
    tfc = torch.nn.Linear(36, 10).double()
    with torch.no_grad():
        tconv.weight.copy_(torch.tensor(model.conv.weight.detach().numpy()))
        tconv.bias.copy_(torch.tensor(model.conv.bias.detach().numpy()))
        tfc.weight.copy_(torch.tensor(model.fc.weight.detach().numpy()))
        tfc.bias.copy_(torch.tensor(model.fc.bias.detach().numpy()))
    tmodel.conv, tmodel.fc = tconv, tfc

    def tforward(p: Any, x: Any) -> Any:
        h = torch.nn.functional.conv2d(x, p["conv.weight"], p["conv.bias"])
        h = torch.nn.functional.max_pool2d(torch.relu(h), 2).flatten(1)
        return torch.nn.functional.linear(h, p["fc.weight"], p["fc.bias"])

    data = np.random.default_rng(1).standard_normal((5, 1, 8, 8))
    targets = np.array([0, 2, 4, 6, 8])
    params = {k: v.detach() for k, v in model.named_parameters()}
    tparams = {k: torch.tensor(v.numpy()) for k, v in params.items()}

    def loss(p: Any, x: Any, t: Any) -> Any:
        return F.cross_entropy(functional_call(model, p, (x.unsqueeze(0),)), t.unsqueeze(0))

    def tloss(p: Any, x: Any, t: Any) -> Any:
        return torch.nn.functional.cross_entropy(tforward(p, x.unsqueeze(0)), t.unsqueeze(0))

    got = vmap(grad(loss), in_dims=(None, 0, 0))(params, ctxgrad.tensor(data), ctxgrad.tensor(targets))
    want = torch.func.vmap(torch.func.grad(tloss), in_dims=(None, 0, 0))(
        tparams, torch.tensor(data), torch.tensor(targets)
    )
    _same(got, want)


def test_functional_call_swaps_parameters_for_one_call() -> None:
    lin = nn.Linear(2, 1)
    old = lin.weight
    out = functional_call(lin, {"weight": ctxgrad.ones(1, 2), "bias": ctxgrad.zeros(1)}, (ctxgrad.tensor([1.0, 2.0]),))
    assert out.item() == 3.0
    assert lin.weight is old
    out = functional_call(lin, ({"weight": ctxgrad.ones(1, 2)}, {"bias": ctxgrad.ones(1)}), ctxgrad.tensor([1.0, 2.0]))
    assert out.item() == 4.0


def test_functional_call_errors_as_torch() -> None:
    torch = pytest.importorskip("torch")
    for lib, fc in [(ctxgrad, functional_call), (torch, torch.func.functional_call)]:
        lin = lib.nn.Linear(2, 1)
        got = _errors(lambda: fc(lin, {"weight": lib.ones(1, 2)}, (lib.ones(2),), strict=True))  # noqa: B023
        assert got == (RuntimeError, "Error(s) in reparametrizing for Linear:\n\tMissing key(s): 'bias'.")
        got = _errors(lambda: fc(lin, ({"bias": lib.ones(1)}, {"bias": lib.ones(1)}), (lib.ones(2),)))  # noqa: B023
        assert got == (
            ValueError,
            "['bias'] appeared in multiple dictionaries; behavior of functional call is ambiguous",
        )


def test_an_ensemble_with_stack_module_state_as_torch() -> None:
    torch = pytest.importorskip("torch")
    models = [nn.Linear(3, 2).double() for _ in range(4)]
    tmodels = [torch.nn.Linear(3, 2).double() for _ in range(4)]
    with torch.no_grad():
        for m, t in zip(models, tmodels):
            t.weight.copy_(torch.tensor(m.weight.detach().numpy()))
            t.bias.copy_(torch.tensor(m.bias.detach().numpy()))
    params, buffers = stack_module_state(models)
    tparams, tbuffers = torch.func.stack_module_state(tmodels)
    assert params["weight"].shape == (4, 2, 3) and params["weight"].requires_grad and params["weight"].is_leaf
    x = RNG.standard_normal((5, 3))
    got = vmap(lambda p, b, v: functional_call(models[0], (p, b), (v,)), in_dims=(0, 0, None))(
        params, buffers, ctxgrad.tensor(x)
    )
    want = torch.func.vmap(lambda p, b, v: torch.func.functional_call(tmodels[0], (p, b), (v,)), in_dims=(0, 0, None))(
        tparams, tbuffers, torch.tensor(x)
    )
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-12)


def test_vmap_is_exported_at_the_top_level() -> None:
    assert ctxgrad.vmap is vmap
    assert ctxgrad.func.grad is grad and ctxgrad.func.jvp is jvp and ctxgrad.func.vjp is vjp
    assert ctxgrad.func.hessian is hessian and ctxgrad.func.jacfwd is jacfwd
    assert callable(linearize) and callable(grad_and_value)


@pytest.mark.parametrize(
    "program",
    [
        lambda lib, a: a[lib.tensor([[0, 2], [1, 1]])],
        lambda lib, a: a[:, lib.tensor([[0, 2], [1, 1]])],
        lambda lib, a: a[lib.tensor([1]), :, lib.tensor([1, 3])],  # apart: NumPy puts them first
        lambda lib, a: a[0, :, lib.tensor([1, 3])],
        lambda lib, a: a[..., lib.tensor([1, 3])],
        lambda lib, a: a[[0, 2], 1:, [1, 3]],
        lambda lib, a: a[:, [True, False, True, True, False]],
    ],
)
def test_advanced_indexing_under_vmap_and_grad_as_torch(program: Any) -> None:
    x = np.random.default_rng(0).standard_normal((4, 3, 5, 6))

    def run(lib: Any, fn: Any, a: Any) -> Any:
        return (
            fn.vmap(lambda v: program(lib, v))(a),
            fn.vmap(fn.grad(lambda v: (program(lib, v) ** 2).sum()))(a),
        )

    both(run, x)

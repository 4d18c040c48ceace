"""A custom autograd.Function under ``vmap``: what its ``vmap`` staticmethod is given (the
``in_dims`` torch gives: where each argument's batch is, as vmap was given it), torch's checks
of what it returns, and ``generate_vmap_rule``, each against ``torch.func.vmap`` running the
same code."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ctxgrad

torch = pytest.importorskip("torch")


def _refusal_or(run: Callable[[], Any]) -> Any:
    try:
        return run()
    except Exception as exc:  # (what it raised is compared with torch's)
        return type(exc), str(exc).replace("ctxgrad._tensor.Tensor", "torch.Tensor")


def _product(lib: Any, calls: list[Any]) -> Any:
    """``x * y`` with a ``vmap`` staticmethod that records what it is given and moves each
    batch where its in_dim says it is."""

    class Product(lib.autograd.Function):
        @staticmethod
        def forward(x: Any, y: Any) -> Any:
            return x * y

        @staticmethod
        def setup_context(ctx: Any, inputs: Any, output: Any) -> None:
            ctx.save_for_backward(*inputs)

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            x, y = ctx.saved_tensors
            return grad * y, grad * x

        @staticmethod
        def vmap(info: Any, in_dims: Any, x: Any, y: Any) -> Any:
            calls.append((info.batch_size, info.randomness, in_dims, tuple(x.shape), tuple(y.shape)))
            x = x.movedim(in_dims[0], 0) if in_dims[0] is not None else x.unsqueeze(0)
            y = y.movedim(in_dims[1], 0) if in_dims[1] is not None else y.unsqueeze(0)
            return Product.apply(x, y), 0

    return Product


X = np.arange(6.0).reshape(2, 3)
CASES: dict[str, tuple[Any, Callable[[Any], tuple[Any, ...]]]] = {
    "(0, 0)": ((0, 0), lambda lib: (lib.tensor(X), lib.tensor(X))),
    "(0, 1)": ((0, 1), lambda lib: (lib.tensor(X), lib.tensor(X.T.copy()))),
    "(1, None)": ((1, None), lambda lib: (lib.tensor(X), lib.tensor([2.0, 3.0]))),
    "(None, 0)": ((None, 0), lambda lib: (lib.tensor([1.0, 2.0, 3.0]), lib.tensor(X))),
    "(-1, 0)": ((-1, 0), lambda lib: (lib.tensor(X.T.copy()), lib.tensor(X))),
    "(2, 0) of 3-d": ((2, 0), lambda lib: (lib.ones(3, 4, 2), lib.ones(2, 3, 4))),
}


@pytest.mark.parametrize("randomness", ["error", "different"])
@pytest.mark.parametrize("case", list(CASES))
def test_a_vmap_staticmethod_is_given_the_users_in_dims_as_torch(case: str, randomness: str) -> None:
    def run(lib: Any) -> Any:
        calls: list[Any] = []
        in_dims, make = CASES[case]
        out = lib.func.vmap(_product(lib, calls).apply, in_dims=in_dims, randomness=randomness)(*make(lib))
        return calls, tuple(out.shape), out.tolist()

    assert run(ctxgrad) == run(torch)


def test_a_tensor_made_inside_vmap_comes_with_its_batch_first_as_torch() -> None:
    def run(lib: Any) -> Any:
        calls: list[Any] = []
        product = _product(lib, calls)
        out = lib.func.vmap(lambda x, y: product.apply(x.t(), y), in_dims=(1, 0))(lib.ones(2, 4, 3), lib.ones(4, 3, 2))
        return calls, tuple(out.shape)

    assert run(ctxgrad) == run(torch)


def test_a_vmap_staticmethod_under_nested_vmap_as_torch() -> None:
    def run(lib: Any) -> Any:
        calls: list[Any] = []
        product = _product(lib, calls)
        out = lib.func.vmap(lib.func.vmap(product.apply, in_dims=(1, None)), in_dims=(None, 0))(
            lib.tensor(X), lib.tensor([[1.0], [2.0], [3.0], [4.0]])
        )
        return calls, tuple(out.shape), out.tolist()

    assert run(ctxgrad) == run(torch)


def test_per_sample_gradients_through_a_vmap_staticmethod_as_torch() -> None:
    def run(lib: Any) -> Any:
        product = _product(lib, [])
        x, y = lib.tensor(X), lib.tensor(X.T.copy())
        grads = lib.func.vmap(lib.func.grad(lambda a, b: product.apply(a, b).sum(), argnums=(0, 1)), in_dims=(0, 1))(
            x, y
        )
        return [g.tolist() for g in grads]

    assert run(ctxgrad) == run(torch)


def _returning(lib: Any, result: Callable[[Any], Any], generate: bool = False) -> Any:
    class Returns(lib.autograd.Function):
        generate_vmap_rule = generate

        @staticmethod
        def forward(x: Any) -> Any:
            return x * 2

        @staticmethod
        def setup_context(ctx: Any, inputs: Any, output: Any) -> None:
            pass

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            return grad * 2

        @staticmethod
        def vmap(info: Any, in_dims: Any, x: Any) -> Any:
            return result(x)

    return Returns


RETURNS: dict[str, Callable[[Any], Any]] = {
    "the output alone": lambda x: x * 2,
    "three things": lambda x: (x * 2, 0, 0),
    "a tuple of out_dims for one output": lambda x: (x * 2, (0,)),
    "one out_dim in a tuple for two outputs": lambda x: ((x, x), (0,)),
    "a list of out_dims for a tuple": lambda x: ((x, x), [0, 0]),
    "a tuple of out_dims for a list": lambda x: ([x, x], (0, 0)),
    "one out_dim for two outputs": lambda x: ((x * 2, x * 3), 0),
    "an out_dim per output": lambda x: ((x * 2, x.t() * 3), (0, 1)),
}


@pytest.mark.parametrize("name", list(RETURNS))
def test_what_a_vmap_staticmethod_returns_is_checked_as_torch(name: str) -> None:
    def run(lib: Any) -> Any:
        out = lib.func.vmap(_returning(lib, RETURNS[name]).apply)(lib.ones(2, 3))
        return [o.tolist() for o in out] if isinstance(out, (tuple, list)) else out.tolist()

    assert _refusal_or(lambda: run(ctxgrad)) == _refusal_or(lambda: run(torch))


def test_a_vmap_staticmethod_with_generate_vmap_rule_refuses_as_torch() -> None:
    def run(lib: Any) -> Any:
        return lib.func.vmap(_returning(lib, lambda x: (x, 0), generate=True).apply)(lib.ones(2, 3))

    got, want = _refusal_or(lambda: run(ctxgrad)), _refusal_or(lambda: run(torch))
    assert got == want and want[0] is RuntimeError


def _sine(lib: Any) -> Any:
    class Sine(lib.autograd.Function):
        generate_vmap_rule = True

        @staticmethod
        def forward(x: Any) -> Any:
            return x.sin()

        @staticmethod
        def setup_context(ctx: Any, inputs: Any, output: Any) -> None:
            ctx.save_for_backward(inputs[0])

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            (x,) = ctx.saved_tensors
            return grad * x.cos()

    return Sine


@pytest.mark.parametrize("in_dims", [0, 1])
def test_generate_vmap_rule_values_and_per_sample_gradients_as_torch(in_dims: int) -> None:
    def run(lib: Any) -> Any:
        sine = _sine(lib)
        x = lib.tensor(X, dtype=lib.float64)
        values = lib.func.vmap(sine.apply, in_dims=in_dims)(x)
        grads = lib.func.vmap(lib.func.grad(lambda t: sine.apply(t).sum()), in_dims=in_dims)(x)
        return values.numpy(), grads.numpy()

    for got, want in zip(run(ctxgrad), run(torch)):
        np.testing.assert_allclose(got, want, rtol=1e-12)

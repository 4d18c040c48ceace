"""examples/mini_ctxgrad.py, the teaching engine, against the real one: the same programs give
the same gradients on graphs where a backward returns None, where inputs are shared, and
where several outputs are differentiated in turn."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import ctxgrad
from ctxgrad.autograd import Function


def _load_mini() -> Any:
    path = Path(__file__).resolve().parent.parent / "examples" / "mini_ctxgrad.py"
    spec = importlib.util.spec_from_file_location("mini_ctxgrad_engine", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


mini = _load_mini()


# The same two user Functions on each engine; their backwards return None on purpose.
class MiniStopGrad(mini.Function):  # type: ignore[misc,name-defined]
    @staticmethod
    def forward(ctx: Any, a: Any) -> Any:
        return mini.Tensor(a.data)

    @staticmethod
    def backward(ctx: Any, grad: Any) -> None:
        return None


class StopGrad(Function):
    @staticmethod
    def forward(ctx: Any, a: Any) -> Any:
        return a.clone()

    @staticmethod
    def backward(ctx: Any, grad: Any) -> None:
        return None


class MiniFirstOnly(mini.Function):  # type: ignore[misc,name-defined]
    """a * b, with a gradient for ``a`` only (None for ``b``, even when ``b`` needs one)."""

    @staticmethod
    def forward(ctx: Any, a: Any, b: Any) -> Any:
        ctx.save_for_backward(b)
        return mini.Tensor(a.data * b.data)

    @staticmethod
    def backward(ctx: Any, grad: Any) -> tuple[Any, None]:
        (b,) = ctx.saved_tensors
        return grad * b.data, None


class FirstOnly(Function):
    @staticmethod
    def forward(ctx: Any, a: Any, b: Any) -> Any:
        ctx.save_for_backward(b)
        return a * b

    @staticmethod
    def backward(ctx: Any, grad: Any) -> tuple[Any, None]:
        (b,) = ctx.saved_tensors
        return grad * b, None


ENGINES: dict[str, tuple[Any, Any]] = {"mini": (MiniStopGrad, MiniFirstOnly), "ctxgrad": (StopGrad, FirstOnly)}

# program(x, w, stop, first_only) -> the outputs to differentiate, one after the other
Program = Callable[[Any, Any, Any, Any], list[Any]]
PROGRAMS: dict[str, Program] = {
    "a stopped path beside a live one": lambda x, w, stop, first: [(stop.apply(x.tanh()) + x.tanh()).sum()],
    "the issue's graph: a stopped path shares its node with a live one": lambda x, w, stop, first: [
        (lambda h: (stop.apply(h) + h).sum())(x.tanh())
    ],
    "a node reached only by None passes None on to a node that also gets a gradient": lambda x, w, stop, first: [
        (lambda h: (stop.apply(h * 2.0) * h + h).sum())(x.tanh())
    ],
    "the only path to x is stopped": lambda x, w, stop, first: [(stop.apply(x.tanh()) * w.sum()).sum()],
    "a None gradient for a shared input that needs one": lambda x, w, stop, first: [
        (first.apply(x, x) + first.apply(x @ w, x)).sum()
    ],
    "a weight used twice, one use stopped": lambda x, w, stop, first: [
        (((x @ w).tanh() @ stop.apply(w)).tanh() @ w).sum()
    ],
    "several outputs of one graph, differentiated in turn": lambda x, w, stop, first: (
        lambda h: [(h * h).sum(), (stop.apply(h) * x).sum(), (first.apply(h, w.sum()) * 3.0).sum()]
    )((x @ w).tanh()),
}


def _gradients(engine: str, program: Program) -> list[np.ndarray | None]:
    rng = np.random.default_rng(2)
    x0, w0 = rng.normal(size=(4, 4)), rng.normal(size=(4, 4))
    stop, first = ENGINES[engine]
    if engine == "mini":
        x, w = mini.Tensor(x0, requires_grad=True), mini.Tensor(w0, requires_grad=True)
        for out in program(x, w, stop, first):
            out.backward()
        return [x.grad, w.grad]
    x = ctxgrad.tensor(x0, dtype=ctxgrad.float64, requires_grad=True)
    w = ctxgrad.tensor(w0, dtype=ctxgrad.float64, requires_grad=True)
    for out in program(x, w, stop, first):
        out.backward(retain_graph=True)  # (the mini engine frees nothing)
    return [None if t.grad is None else t.grad.numpy() for t in (x, w)]


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_mini_ctxgrad_gives_the_real_engines_gradients(name: str) -> None:
    expected = _gradients("ctxgrad", PROGRAMS[name])
    got = _gradients("mini", PROGRAMS[name])
    assert any(g is not None for g in expected)  # each program differentiates something
    for which, want, have in zip(("x", "w"), expected, got):
        if want is None:
            assert have is None, f"{which}.grad should stay None"
        else:
            assert have is not None, f"{which}.grad is None, the real engine gives one"
            np.testing.assert_allclose(have, want, rtol=1e-12, atol=1e-12, err_msg=which)


def test_the_issues_example_gives_the_gradient_of_the_live_path() -> None:
    """``h = x.tanh(); (StopGrad(h) + h).sum().backward()``: only ``h``'s own path counts."""
    x = mini.Tensor([0.5, -1.0, 2.0], requires_grad=True)
    h = x.tanh()
    (MiniStopGrad.apply(h) + h).sum().backward()
    np.testing.assert_allclose(x.grad, 1 - np.tanh([0.5, -1.0, 2.0]) ** 2, rtol=1e-15)

"""ctxgrad.compat.megengine: MegEngine's instance-style Function on the one mechanism."""

from __future__ import annotations

import gc
import weakref
from typing import Any

import numpy as np
import pytest

import ctxgrad
import ctxgrad as F
from ctxgrad.autograd import gradcheck, gradgradcheck
from ctxgrad.compat.megengine import Function


class Sigmoid(Function):
    """MegEngine's docstring example, unchanged (``F`` is ``ctxgrad``)."""

    def forward(self, x: Any) -> Any:
        y = 1 / (1 + F.exp(-x))
        self.y = y
        return y

    def backward(self, dy: Any) -> Any:
        y = self.y
        return dy * y * (1 - y)


class SinCos(Function):
    """Two outputs; backward sees None for an output that did not reach the loss."""

    seen: list[tuple[bool, bool]] = []

    def forward(self, x: Any) -> Any:
        self.x = x
        return F.sin(x), F.cos(x)

    def backward(self, dsin: Any, dcos: Any) -> Any:
        SinCos.seen.append((dsin is None, dcos is None))
        grad = ctxgrad.zeros_like(self.x)
        if dsin is not None:
            grad = grad + dsin * F.cos(self.x)
        if dcos is not None:
            grad = grad - dcos * F.sin(self.x)
        return grad


class ScaleBy(Function):
    """Two inputs and a constructor argument; no gradient for the second input."""

    def __init__(self, k: float) -> None:
        self.k = k

    def forward(self, x: Any, w: Any) -> Any:
        return x * w * self.k

    def backward(self, dy: Any) -> Any:
        return dy * self.k, None


def leaf(*values: float) -> ctxgrad.Tensor:
    return ctxgrad.tensor(values, dtype=ctxgrad.float64, requires_grad=True)


def test_megengines_sigmoid_example_matches_torch() -> None:
    torch = pytest.importorskip("torch")

    class TorchSigmoid(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            y = 1 / (1 + torch.exp(-x))
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx: Any, dy: Any) -> Any:
            (y,) = ctx.saved_tensors
            return dy * y * (1 - y)

    values = [-2.0, 0.0, 0.5, 3.0]
    x = leaf(*values)
    y = Sigmoid()(x)
    (y * y).sum().backward()
    tx = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    ty = TorchSigmoid.apply(tx)
    (ty * ty).sum().backward()
    np.testing.assert_allclose(y.detach().numpy(), ty.detach().numpy())
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy())
    assert type(y.grad_fn).__name__ == "SigmoidBackward"
    assert gradcheck(lambda t: Sigmoid()(t), (leaf(*values),))


def test_double_backward_through_a_backward_in_ctxgrad_ops() -> None:
    torch = pytest.importorskip("torch")
    values = [-1.0, 0.25, 2.0]
    x = leaf(*values)
    (g,) = ctxgrad.autograd.grad(Sigmoid()(x).sum(), x, create_graph=True)
    g.sum().backward()
    tx = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    (tg,) = torch.autograd.grad(torch.sigmoid(tx).sum(), tx, create_graph=True)
    tg.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy())
    assert gradgradcheck(lambda t: Sigmoid()(t), (leaf(*values),))


def test_an_output_that_does_not_reach_the_loss_gets_none() -> None:
    torch = pytest.importorskip("torch")
    SinCos.seen.clear()
    x = leaf(0.3, 1.2)
    s, _c = SinCos()(x)
    (s * 2).sum().backward()
    assert SinCos.seen == [(False, True)]  # (dsin is None, dcos is None)
    tx = torch.tensor([0.3, 1.2], dtype=torch.float64, requires_grad=True)
    ts, _ = torch.sin(tx), torch.cos(tx)
    (ts * 2).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy())
    x2 = leaf(0.3, 1.2)
    assert gradcheck(lambda t: SinCos()(t), (x2,))


def test_none_stops_the_gradient_of_an_input_and_constructor_arguments_are_state() -> None:
    x, w = leaf(1.0, 2.0), leaf(3.0, 4.0)
    y = ScaleBy(0.5)(x, w)
    y.sum().backward()
    np.testing.assert_allclose(y.detach().numpy(), [1.5, 4.0])
    np.testing.assert_allclose(x.grad.numpy(), [0.5, 0.5])
    assert w.grad is None


def test_an_instance_is_called_once() -> None:
    sigmoid = Sigmoid()
    sigmoid(leaf(1.0))
    with pytest.raises(RuntimeError, match=r"this Sigmoid instance has already been called.*Sigmoid\(\)\(\.\.\.\)"):
        sigmoid(leaf(2.0))


def test_wrong_gradient_count_shape_and_type_are_named() -> None:
    class TooMany(Function):
        def forward(self, x: Any) -> Any:
            return x * 2

        def backward(self, dy: Any) -> Any:
            return dy * 2, dy

    class WrongShape(Function):
        def forward(self, x: Any, w: Any) -> Any:
            return x * w

        def backward(self, dy: Any) -> Any:
            return dy, dy.sum()

    class NotATensor(Function):
        def forward(self, x: Any) -> Any:
            return x * 2

        def backward(self, dy: Any) -> Any:
            return dy.numpy() * 2

    with pytest.raises(RuntimeError, match=r"TooMany\.backward returned 2 gradients, but TooMany\.forward took 1 "):
        TooMany()(leaf(1.0, 2.0)).sum().backward()
    with pytest.raises(RuntimeError, match=r"WrongShape\.backward returned a gradient of shape \[\] for input 1, "):
        WrongShape()(leaf(1.0, 2.0), leaf(3.0, 4.0)).sum().backward()
    with pytest.raises(TypeError, match=r"NotATensor\.backward returned a ndarray as the gradient of input 0"):
        NotATensor()(leaf(1.0)).sum().backward()


def test_bad_inputs_and_outputs_are_named() -> None:
    class ReturnsArray(Function):
        def forward(self, x: Any) -> Any:
            return x.detach().numpy() * 2

    with pytest.raises(TypeError, match=r"Sigmoid\(\) expects tensors as inputs, but input 0 is a float"):
        Sigmoid()(1.0)
    with pytest.raises(TypeError, match=r"ReturnsArray\.forward returned a ndarray; .*ctxgrad\.as_tensor"):
        ReturnsArray()(leaf(1.0))

    class NoBackward(Function):
        def forward(self, x: Any) -> Any:
            return x * 2

    with pytest.raises(NotImplementedError, match=r"NoBackward must override backward"):
        NoBackward()(leaf(1.0)).sum().backward()


def test_a_tensor_kept_on_self_is_saved_for_backward() -> None:
    """``self.y = y`` is saved: no reference cycle, and an in-place change is caught."""
    gc.disable()
    try:
        x = leaf(0.5, 1.5)
        y = Sigmoid()(x)
        node = weakref.ref(y.grad_fn)
        del y
        assert node() is None  # freed by reference counting alone
    finally:
        gc.enable()
    y = Sigmoid()(leaf(0.5))
    y.detach().mul_(2)  # changes self.y, which backward reads
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_without_grad_nothing_is_recorded() -> None:
    with ctxgrad.no_grad():
        y = Sigmoid()(leaf(0.0))
    assert y.grad_fn is None and not y.requires_grad
    np.testing.assert_allclose(y.numpy(), [0.5])


def test_the_torch_style_function_refuses_an_instance_call_and_names_the_compat_class() -> None:
    torch = pytest.importorskip("torch")

    class Legacy(ctxgrad.autograd.Function):
        def forward(self, x: Any) -> Any:  # type: ignore[override]
            return x * 2

    class TorchLegacy(torch.autograd.Function):
        def forward(self, x: Any) -> Any:
            return x * 2

    with pytest.warns(DeprecationWarning), pytest.raises(RuntimeError) as ours:
        Legacy()(leaf(1.0))
    with pytest.warns(DeprecationWarning), pytest.raises(RuntimeError) as theirs:
        TorchLegacy()(torch.ones(1, requires_grad=True))
    torch_sentence = "Legacy autograd function with non-static forward method is deprecated."
    assert str(theirs.value).startswith(torch_sentence)
    assert str(ours.value).startswith(torch_sentence)
    assert "ctxgrad.compat.megengine.Function" in str(ours.value)

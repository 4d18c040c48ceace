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
from ctxgrad.compat import megengine
from ctxgrad.compat.megengine import SGD, Function, GradManager, Module, Parameter, Tensor, tensor


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


def test_an_instance_called_again_keeps_each_calls_state_for_its_backward() -> None:
    """MegEngine's tests keep an instance on a Module (``self.layer1 = MulFunc()``) and call it
    every step: each call's backward sees the state of that call."""
    sigmoid = Sigmoid()
    x1, x2 = leaf(0.0), leaf(2.0)
    y1 = sigmoid(x1)
    y2 = sigmoid(x2)  # self.y is now the second call's
    y1.sum().backward()
    y2.sum().backward()
    np.testing.assert_allclose(x1.grad.numpy(), [0.25])
    s = 1 / (1 + np.exp(-2.0))
    np.testing.assert_allclose(x2.grad.numpy(), [s * (1 - s)])


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

    with pytest.raises(
        TypeError, match=r"^op Function expect type Tensor as inputs, got <class 'float'> \(input 0 of Sigmoid\(\);"
    ):
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


# --------------------------------------------------------------------------- the system around it
class Affine(Module):
    """A two-level module: parameters listed by name, a sub-module's after."""

    def __init__(self) -> None:
        super().__init__()
        self.w = Parameter(np.array([[1.0, -1.0], [0.5, 2.0]]))
        self.b = Parameter(np.zeros(2))
        self.inner = Scale()

    def forward(self, x: Any) -> Any:
        return self.inner(F.matmul(x, self.w) + self.b)


class Scale(Module):
    def __init__(self) -> None:
        super().__init__()
        self.k = Parameter(np.array(3.0))
        self.layer = Sigmoid()

    def forward(self, x: Any) -> Any:
        return self.layer(x) * self.k


def test_a_grad_manager_gives_the_gradients_torch_gives() -> None:
    torch = pytest.importorskip("torch")
    net = Affine()
    gm = GradManager().attach(net.parameters())
    data = tensor(np.array([[1.0, 2.0], [-1.0, 0.5]]))
    assert not any(p.requires_grad for p in net.parameters())  # only while recording
    with gm:
        assert all(p.requires_grad for p in net.parameters())
        loss = (net(data) ** 2).sum()
        gm.backward(loss)
    assert not any(p.requires_grad for p in net.parameters())
    w = torch.tensor([[1.0, -1.0], [0.5, 2.0]], requires_grad=True)
    b = torch.zeros(2, requires_grad=True)
    k = torch.tensor(3.0, requires_grad=True)
    torch_loss = ((torch.sigmoid(torch.tensor([[1.0, 2.0], [-1.0, 0.5]]) @ w + b) * k) ** 2).sum()
    torch_loss.backward()
    for ours, theirs in zip([net.b, net.inner.k, net.w], [b, k, w]):  # (sorted by name, then the sub-module's)
        assert ours.dtype == ctxgrad.float32 and ours.grad is not None
        np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=1e-5)
    np.testing.assert_allclose(loss.numpy(), torch_loss.item(), rtol=1e-5)  # (loss went to gm.backward)


def test_named_parameters_are_sorted_by_attribute_and_recurse_into_modules() -> None:
    net = Affine()
    assert [name for name, _ in net.named_parameters()] == ["b", "w", "inner.k"]
    assert [name for name, _ in net.named_parameters(recursive=False)] == ["b", "w"]
    assert list(net.children()) == [net.inner]
    assert net.eval() is net and not net.inner.training


def test_gradients_accumulate_and_callbacks_see_each_one() -> None:
    w = Parameter([1.0, 2.0])
    seen: list[list[float]] = []

    def halve(tensor: Any, grad: Any) -> Any:
        seen.append(grad.numpy().tolist())
        return grad / 2

    gm = GradManager().attach([w], callbacks=halve)
    for _ in range(2):
        with gm:
            gm.backward((w * w).sum())
    assert seen == [[2.0, 4.0], [2.0, 4.0]]
    np.testing.assert_allclose(w.grad.numpy(), [2.0, 4.0])  # 1 + 1, 2 + 2
    with gm:
        gm.backward(w * 3, dy=tensor([1.0, -1.0]))
    np.testing.assert_allclose(w.grad.numpy(), [3.5, 2.5])


def test_sgd_steps_and_clears_as_megengines() -> None:
    w = Parameter([1.0, -2.0])
    opt = SGD([w], lr=0.1, momentum=0.9)
    gm = GradManager().attach([w])
    for _ in range(2):
        opt.clear_grad()
        assert w.grad is None
        with gm:
            gm.backward((w * w).sum())
        opt.step()
    # v1 = g1 = 2w0; w1 = w0 - 0.1 v1; v2 = 0.9 v1 + 2 w1; w2 = w1 - 0.1 v2
    w0 = np.array([1.0, -2.0])
    w1 = w0 - 0.1 * 2 * w0
    w2 = w1 - 0.1 * (0.9 * 2 * w0 + 2 * w1)
    np.testing.assert_allclose(w.numpy(), w2, rtol=1e-6)


def test_numpy_works_on_a_tensor_that_requires_grad_as_in_megengine() -> None:
    w = Parameter([1.0, 2.0])
    with GradManager().attach([w]) as gm:
        y = Sigmoid()(w)
        assert isinstance(y, Tensor) and y.requires_grad
        values = y.numpy()
        values[0] = 10.0  # a copy: the tensor is unchanged
        gm.backward(y.sum())
    np.testing.assert_allclose(y.numpy(), 1 / (1 + np.exp(-np.array([1.0, 2.0]))), rtol=1e-6)
    plain = ctxgrad.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="Can't call numpy\\(\\) on Tensor that requires grad"):
        plain.numpy()  # ctxgrad's own tensors keep torch's rule


def test_tensors_default_to_float32_as_megengines() -> None:
    assert Tensor([1.0, 2.0]).dtype == ctxgrad.float32
    assert tensor(np.arange(3.0)).dtype == ctxgrad.float32
    assert Tensor([1, 2]).dtype == ctxgrad.int64
    assert Tensor([1.0], dtype=np.float16).dtype == ctxgrad.float16
    copy = Tensor(w := Parameter([1.0]))
    assert copy is not w and type(copy) is Tensor and copy.numpy().tolist() == [1.0]
    with pytest.raises(ValueError, match="device 'gpu0' is not available here"):
        Tensor([1.0], device="gpu0")


def test_grad_manager_misuse_raises_megengines_errors() -> None:
    gm = GradManager()
    with pytest.raises(RuntimeError, match=r"^no computation history\. did you forget record\(\)"):
        gm.backward(Tensor([1.0]))
    with pytest.raises(
        TypeError, match=r"Only tensors of floating point dtype can be attached .* dtype: ctxgrad\.int64"
    ):
        gm.attach(Tensor([1, 2]))
    with pytest.raises(TypeError, match="Object to be attached should be Tensor, got list"):
        gm.attach([[1.0]])
    w = Parameter([1.0, 2.0])
    gm.attach(w)
    with gm:
        with pytest.raises(RuntimeError, match="already recording"):
            gm.record()
        with pytest.raises(ValueError, match=r"dy has shape \(3,\), but y has shape \(2,\)"):
            gm.backward(w * 2, Tensor([1.0, 1.0, 1.0]))
    assert not gm._recording and not w.requires_grad  # (backward released even when it raised)


def test_two_managers_nested_keep_the_tensors_recorded_until_the_last_releases() -> None:
    w = Parameter([1.0])
    gm, gm2 = GradManager().attach([w]), GradManager().attach([w])
    with gm2:
        gm.record()
    assert w.requires_grad  # gm still records
    gm.backward((w * 5).sum())
    assert not w.requires_grad
    np.testing.assert_allclose(w.grad.numpy(), [5.0])


def test_a_module_output_and_a_function_output_are_megengine_tensors() -> None:
    net = Scale()
    out = net(tensor([0.0]))
    assert type(out) is Tensor and type(Sigmoid()(tensor([0.0]))) is Tensor
    with pytest.raises(NotImplementedError, match="Module must override forward"):
        Module()()
    assert megengine.__all__ == ["SGD", "Function", "GradManager", "Module", "Parameter", "Tensor", "tensor"]

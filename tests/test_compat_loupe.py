"""ctxgrad.compat.loupe: loupe's array Function (the instance is the result) on the one mechanism."""

from __future__ import annotations

import gc
import weakref
from typing import Any

import numpy as np
import pytest

import ctxgrad
from ctxgrad.autograd import gradcheck
from ctxgrad.compat import loupe


class expc(loupe.Function):
    """loupe's expc, as loupe writes it: exp(1j * x) of a real phase x."""

    def __init__(self, x: Any) -> None:
        self.input = loupe.asarray(x)
        super().__init__(self.input)

    def forward(self) -> Any:
        x = self.input.getdata()
        result = np.empty_like(x, dtype=complex)
        result.real = np.cos(x)
        result.imag = np.sin(x)
        self.cache_for_backward(result)
        return result

    def backward(self, grad: Any) -> None:
        (result,) = self.cache
        self.input.backward(np.imag(grad * np.conj(result)))


class multiply(loupe.Function):
    """loupe's multiply (same shapes), pushing through ``self.inputs[i]``."""

    def forward(self) -> Any:
        left, right = self.inputs[0].data, self.inputs[1].getdata()
        self.cache_for_backward(left, right)
        return np.multiply(left, right)

    def backward(self, grad: Any) -> None:
        left, right = self.cache
        if self.inputs[0].requires_grad:
            self.inputs[0].backward(np.conj(right) * grad)
        if self.inputs[1].requires_grad:
            self.inputs[1].backward(np.conj(left) * grad)


class intensity(loupe.Function):
    """|field|^2: a real result of a complex input."""

    def forward(self) -> Any:
        field = self.inputs[0].getdata()
        self.cache_for_backward(field)
        return np.abs(field) ** 2

    def backward(self, grad: Any) -> None:
        (field,) = self.cache
        self.inputs[0].backward(2 * grad * field)


class total(loupe.Function):
    def forward(self) -> Any:
        data = self.inputs[0].getdata()
        self.cache_for_backward(data.shape)
        return np.sum(data)

    def backward(self, grad: Any) -> None:
        (shape,) = self.cache
        self.inputs[0].backward(np.full(shape, grad))


RNG = np.random.default_rng(16)


def test_expc_and_a_masked_product_pass_gradcheck() -> None:
    phase = ctxgrad.tensor(RNG.normal(size=6), dtype=ctxgrad.float64, requires_grad=True)
    assert gradcheck(lambda x: expc(x), (phase,))
    field = ctxgrad.tensor(RNG.normal(size=6) + 1j * RNG.normal(size=6), requires_grad=True)
    mask = ctxgrad.tensor((RNG.random(6) > 0.4).astype(np.float64))
    assert field.dtype == ctxgrad.complex128
    assert gradcheck(lambda f: multiply(f, mask), (field,))
    soft_mask = ctxgrad.tensor(RNG.random(6), dtype=ctxgrad.float64, requires_grad=True)
    assert gradcheck(lambda f, m: multiply(f, m), (field, soft_mask))  # complex x real, both differentiable
    assert gradcheck(lambda p: intensity(multiply(expc(p), field.detach())), (phase,))


def test_an_optical_model_matches_torch() -> None:
    """A phase screen through a masked pupil, the intensity summed: loupe-style ops, then
    ``cost.backward(1.0)`` as loupe calls it, against the same model in torch."""
    torch = pytest.importorskip("torch")
    phase0 = RNG.normal(size=(4, 4))
    amplitude = (RNG.random((4, 4)) > 0.3).astype(np.float64)
    weights = RNG.normal(size=(4, 4)) + 1j * RNG.normal(size=(4, 4))

    phase = loupe.array(phase0, requires_grad=True)
    cost = total(intensity(multiply(multiply(expc(phase), loupe.array(amplitude)), loupe.array(weights))))
    cost.backward(1.0)

    tp = torch.tensor(phase0, requires_grad=True)
    field = torch.exp(1j * tp) * torch.tensor(amplitude) * torch.tensor(weights)
    tcost = (field.abs() ** 2).sum()
    tcost.backward()
    assert isinstance(cost.data, np.ndarray)
    np.testing.assert_allclose(cost.data, tcost.item())
    np.testing.assert_allclose(np.asarray(phase.grad), tp.grad.numpy(), atol=1e-12)


def test_results_have_loupes_attributes() -> None:
    x = loupe.array([[0.0, 1.0, 2.0]], requires_grad=True)
    y = expc(x)
    assert isinstance(y, ctxgrad.Tensor)
    assert isinstance(y.data, np.ndarray) and y.data.dtype == np.complex128
    assert y.shape == (1, 3) and y.ndim == 2 and y.dtype == np.complex128
    assert y.requires_grad and type(y.grad_fn).__name__ == "expcBackward"
    copy = y.getdata(copy=True, dtype=np.complex64)
    assert copy.dtype == np.complex64 and not np.shares_memory(copy, y.data)
    assert np.shares_memory(y.getdata(), y.data)
    assert y.inputs == (x,) and len(y.cache) == 1
    np.testing.assert_allclose(np.asarray(y), np.exp(1j * np.array([[0.0, 1.0, 2.0]])))
    assert x.data.dtype == np.float64 and x.mask.shape == ()  # loupe's array: NumPy's dtype rules


def test_ctxgrad_tensors_and_plain_values_are_inputs_too() -> None:
    x = ctxgrad.tensor([0.5, 1.0], dtype=ctxgrad.float64, requires_grad=True)
    y = multiply(expc(x), [2.0, 3.0])  # a list becomes a loupe array
    (y.real.sum() + y.imag.sum()).backward()
    xs = np.array([0.5, 1.0])
    np.testing.assert_allclose(x.grad.numpy(), np.array([2.0, 3.0]) * (np.cos(xs) - np.sin(xs)))
    with ctxgrad.no_grad():
        z = expc(x)
    assert not z.requires_grad and z.grad_fn is None
    assert not expc(loupe.array([1.0])).requires_grad


def test_a_pushed_gradient_of_the_wrong_shape_is_named() -> None:
    class Broken(loupe.Function):
        def forward(self) -> Any:
            return self.inputs[0].getdata() * 2

        def backward(self, grad: Any) -> None:
            self.inputs[0].backward(grad.sum())

    y = Broken(loupe.array([1.0, 2.0], requires_grad=True))
    with pytest.raises(RuntimeError, match=r"Broken\.backward pushed a gradient of shape \[\] into inputs\[0\], which"):
        y.backward(np.ones(2))


def test_bad_forward_and_missing_backward_are_named() -> None:
    class Text(loupe.Function):
        def forward(self) -> Any:
            return "not numbers"

    class NoBackward(loupe.Function):
        def forward(self) -> Any:
            return self.inputs[0].getdata() * 2

    with pytest.raises(TypeError, match=r"Text\.forward returned str of dtype <U11; it must return a numeric"):
        Text(loupe.array([1.0]))
    with pytest.raises(NotImplementedError, match=r"NoBackward must override backward\(self, grad\)"):
        NoBackward(loupe.array([1.0], requires_grad=True)).backward(np.ones(1))


def test_gradients_accumulate_and_no_cycle_holds_the_graph() -> None:
    x = loupe.array([0.1, 0.2], requires_grad=True)
    y = multiply(x, x)  # the same input twice: both pushes arrive
    y.backward(np.ones(2))
    np.testing.assert_allclose(np.asarray(x.grad), [0.2, 0.4])
    gc.disable()
    try:
        y = expc(x)
        node = weakref.ref(y.grad_fn)
        del y
        assert node() is None
    finally:
        gc.enable()

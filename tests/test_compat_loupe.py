"""ctxgrad.compat.loupe: loupe's arrays and Functions (a model built once, evaluated many
times) on the one mechanism."""

from __future__ import annotations

import gc
import importlib.util
import weakref
from typing import Any

import numpy as np
import pytest

import ctxgrad
from ctxgrad.autograd import gradcheck
from ctxgrad.compat import loupe


class expc(loupe.Function):
    """loupe's expc, as loupe writes it: exp(1j * x) of a real phase x."""

    calls = 0

    def __init__(self, x: Any) -> None:
        self.input = loupe.asarray(x)
        super().__init__(self.input)

    def forward(self) -> Any:
        expc.calls += 1
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


RNG = np.random.default_rng(16)
needs_scipy = pytest.mark.skipif(
    importlib.util.find_spec("scipy") is None, reason="loupe.optimize runs SciPy's L-BFGS-B, as loupe does"
)


# --------------------------------------------------------------------------- gradients
def test_expc_and_a_masked_product_pass_gradcheck_through_their_tensor() -> None:
    phase = ctxgrad.tensor(RNG.normal(size=6), dtype=ctxgrad.float64, requires_grad=True)
    assert gradcheck(lambda x: expc(x).tensor, (phase,))
    field = ctxgrad.tensor(RNG.normal(size=6) + 1j * RNG.normal(size=6), requires_grad=True)
    mask = ctxgrad.tensor((RNG.random(6) > 0.4).astype(np.float64))
    assert field.dtype == ctxgrad.complex128
    assert gradcheck(lambda f: multiply(f, mask).tensor, (field,))
    soft_mask = ctxgrad.tensor(RNG.random(6), dtype=ctxgrad.float64, requires_grad=True)
    assert gradcheck(lambda f, m: multiply(f, m).tensor, (field, soft_mask))  # complex x real, both differentiable
    assert gradcheck(lambda p: intensity(multiply(expc(p), field.detach())).tensor, (phase,))


@pytest.mark.parametrize(
    "make",
    [
        lambda a, b: loupe.add(a, b),
        lambda a, b: loupe.subtract(a, b),
        lambda a, b: loupe.multiply(a, b),
        lambda a, b: loupe.einsum("ij,j->i", a, b),
        lambda a, b: loupe.einsum("ij,k->jk", a, b),  # an axis summed in one operand alone
        lambda a, b: loupe.power(a, 3) * loupe.exp(b),
        lambda a, b: loupe.sum(a[1:, ::2]) * b,
        lambda a, b: loupe.expc(a) * b,
    ],
    ids=["add", "subtract", "multiply", "einsum", "einsum_summed", "power_exp", "slice_sum", "expc"],
)
def test_loupes_ops_pass_gradcheck(make: Any) -> None:
    a = ctxgrad.tensor(RNG.normal(size=(3, 4)), dtype=ctxgrad.float64, requires_grad=True)
    b = ctxgrad.tensor(RNG.normal(size=4), dtype=ctxgrad.float64, requires_grad=True)
    assert gradcheck(lambda x, y: make(x, y).tensor, (a, b))


def test_an_optical_model_matches_torch() -> None:
    """A phase screen through a masked pupil, the intensity summed: loupe-style ops, then
    ``cost.backward(1.0)`` as loupe calls it, against the same model in torch."""
    torch = pytest.importorskip("torch")
    phase0 = RNG.normal(size=(4, 4))
    amplitude = (RNG.random((4, 4)) > 0.3).astype(np.float64)
    weights = RNG.normal(size=(4, 4)) + 1j * RNG.normal(size=(4, 4))

    phase = loupe.array(phase0, requires_grad=True)
    cost = loupe.sum(intensity(multiply(multiply(expc(phase), loupe.array(amplitude)), loupe.array(weights))))
    cost.backward(1.0)

    tp = torch.tensor(phase0, requires_grad=True)
    field = torch.exp(1j * tp) * torch.tensor(amplitude) * torch.tensor(weights)
    tcost = (field.abs() ** 2).sum()
    tcost.backward()
    assert isinstance(cost.data, np.ndarray)
    np.testing.assert_allclose(cost.data, tcost.item())
    assert isinstance(phase.grad, np.ndarray) and phase.grad.dtype == np.float64
    np.testing.assert_allclose(phase.grad, tp.grad.numpy(), atol=1e-12)


def test_loupes_autograd_docs_example_integer_arrays_that_require_grad() -> None:
    """loupe's user guide (docs/user_guide/autograd.rst): integer arrays, a gradient given as a
    loupe array."""
    x = loupe.array([1, 2, 3], requires_grad=True)
    y = loupe.array([4, 5, 6], requires_grad=True)
    f = x * y
    z = loupe.array(9, requires_grad=True)
    g = f + z
    np.testing.assert_array_equal(g.data, [13, 19, 27])
    assert g.dtype == np.int64 and repr(g) == "array([13, 19, 27])"
    g.backward(loupe.array([1, 1, 1]))
    np.testing.assert_array_equal(x.grad, [4.0, 5.0, 6.0])
    np.testing.assert_array_equal(y.grad, [1.0, 2.0, 3.0])
    assert z.grad.shape == () and z.grad == 3.0


# --------------------------------------------------------------------------- a model run many times
def test_data_follows_an_input_written_in_place_and_is_not_recomputed_otherwise() -> None:
    x = loupe.array([0.0, np.pi / 2])
    y = expc(x) * 2.0
    before = expc.calls
    np.testing.assert_allclose(y.data, [2.0, 2j], atol=1e-15)
    assert y.data is y.data  # reads with nothing changed
    assert expc.calls == before  # nothing changed: no forward ran
    x[0] = np.pi
    np.testing.assert_allclose(y.data, [-2.0, 2j], atol=1e-15)
    x.data[1] = 0.0  # written through data, as loupe code may: seen too
    np.testing.assert_allclose(y.data, [-2.0, 2.0], atol=1e-15)
    assert expc.calls == before + 2


def test_requires_grad_follows_the_inputs() -> None:
    x = loupe.array([0.5, 1.0])
    y = expc(x)
    assert not y.requires_grad
    y.backward(np.ones(2))  # nothing requires grad: nothing happens
    np.testing.assert_array_equal(x.grad, [0.0, 0.0])
    x.requires_grad = True
    assert y.requires_grad
    loupe.sum(y * 1j).backward(1.0)
    np.testing.assert_allclose(x.grad, -np.cos([0.5, 1.0]))
    with pytest.raises(TypeError, match="requires_grad must be a bool, not str"):
        x.requires_grad = "yes"  # type: ignore[assignment]


def test_backward_runs_again_and_accumulates_until_zero_grad() -> None:
    x = loupe.array([1.0, 2.0], requires_grad=True)
    y = loupe.sum(x**2)
    y.backward(1.0)
    y.backward(1.0)
    np.testing.assert_array_equal(x.grad, [4.0, 8.0])
    x.zero_grad()
    x[...] = [3.0, 0.5]
    y.backward(np.array(1.0))
    np.testing.assert_array_equal(x.grad, [6.0, 1.0])
    assert y.data == 9.25


def test_membership_is_identity() -> None:
    x, y = loupe.array([1.0, 2.0]), loupe.array([1.0, 2.0])
    assert x in [x] and y not in [x]  # loupe's optimize marks parameters so
    assert x * y not in [x]


# --------------------------------------------------------------------------- loupe's values
def test_results_have_loupes_attributes() -> None:
    x = loupe.array([[0.0, 1.0, 2.0]], requires_grad=True)
    y = expc(x)
    assert not isinstance(y, ctxgrad.Tensor) and isinstance(y, loupe.core.Function)
    assert isinstance(y.data, np.ndarray) and y.data.dtype == np.complex128
    assert y.shape == (1, 3) and y.ndim == 2 and y.size == 3 and y.dtype == np.complex128
    assert y.requires_grad and type(y.tensor.grad_fn).__name__ == "expcBackward"
    copy = y.getdata(copy=True, dtype=np.complex64)
    assert copy.dtype == np.complex64 and not np.shares_memory(copy, y.data)
    assert np.shares_memory(y.getdata(), y.data)
    assert y.inputs == (x,) and len(y.cache) == 1
    np.testing.assert_allclose(np.asarray(y), np.exp(1j * np.array([[0.0, 1.0, 2.0]])))
    assert str(y) == np.array_str(y.data)


def test_arrays_are_loupes() -> None:
    x = loupe.array([1.0, 2.0, 3.0])
    assert x.data.dtype == np.float64 and x.mask is None and not x.requires_grad
    assert isinstance(x.grad, np.ndarray) and x.grad.dtype == np.float64
    np.testing.assert_array_equal(x.grad, [0.0, 0.0, 0.0])
    assert loupe.array([1, 2]).dtype == np.int64 and loupe.array([1j]).grad.dtype == np.complex128
    assert loupe.core.array is loupe.array and loupe.core.Function is loupe.Function
    assert loupe.asarray(x) is x
    m = loupe.array([[1.0, 2.0], [3.0, 4.0]], mask=[[False, True], [False, False]])
    np.testing.assert_array_equal(m.flatten(apply_mask=True), [1.0, 3.0, 4.0])
    np.testing.assert_array_equal(m.flatten(), [1.0, 2.0, 3.0, 4.0])
    m.grad = np.arange(4.0).reshape(2, 2)
    np.testing.assert_array_equal(m.grad_flatten(apply_mask=True), [0.0, 2.0, 3.0])
    with pytest.raises(ValueError, match=r"Mask must have same shape as array: got \(3,\), array has \(2, 2\)"):
        m.mask = [True, False, True]
    with pytest.raises(TypeError, match=r"loupe\.array holds numbers, not <U1"):
        loupe.array(["a"])


def test_makers_give_arrays_of_the_asked_shape() -> None:
    np.random.seed(0)
    assert loupe.zeros((2, 3)).shape == (2, 3) and loupe.ones(5).data.sum() == 5
    assert loupe.zeros_like(np.ones((2, 2))).shape == (2, 2) and loupe.ones_like(loupe.zeros(3)).shape == (3,)
    r = loupe.rand(low=2.0, high=3.0, size=(4,), requires_grad=True)
    assert r.requires_grad and np.all((r.data >= 2.0) & (r.data < 3.0))
    assert loupe.rand().shape == () and loupe.randn(size=(2, 2)).shape == (2, 2)


def test_operators_build_loupe_ops() -> None:
    a = loupe.array(np.arange(10.0), requires_grad=True)
    b = loupe.array(np.full(10, 2.0))
    for result, kind, want in [
        (a * b, loupe.multiply, np.arange(10.0) * 2),
        (a + 1, loupe.add, np.arange(10.0) + 1),
        (1 - a, loupe.subtract, 1 - np.arange(10.0)),
        (a**2, loupe.power, np.arange(10.0) ** 2),
        (a[0:5], loupe.slice, np.arange(5.0)),
        (np.ones(10) * a, loupe.multiply, np.arange(10.0)),  # NumPy defers to the loupe value
        (-a, loupe.multiply, -np.arange(10.0)),
    ]:
        assert type(result) is kind
        np.testing.assert_array_equal(result.data, want)
    a[0:5].backward(grad=np.ones(5))
    np.testing.assert_array_equal(a.grad, [1.0] * 5 + [0.0] * 5)
    a.zero_grad()
    a[[1, 1, 2]].backward(np.ones(3))  # a repeated index gets both gradients
    np.testing.assert_array_equal(a.grad[:3], [0.0, 2.0, 1.0])


def test_a_power_differentiates_its_base_and_refuses_an_exponent_that_requires_grad() -> None:
    x = loupe.array([2.0, 3.0], requires_grad=True)
    k = loupe.array([2.0, 3.0])
    y = loupe.sum(x**k)
    assert y.data == 31.0
    y.backward(1.0)
    np.testing.assert_array_equal(x.grad, [4.0, 27.0])
    assert isinstance(np.power(2.0, x), np.ndarray)  # a loupe value as the exponent: NumPy's values
    with pytest.raises(TypeError, match="power: the exponent requires grad, but loupe's power differentiates the base"):
        x**x
    with pytest.raises(TypeError, match="unsupported operand"):
        2.0**x  # type: ignore[operator]  # (as in loupe: no __rpow__)


def test_numpy_functions_convert_loupe_values() -> None:
    x = loupe.array([1.0 + 1.0j, -2.0j])
    y = x * 2.0
    for fn in (np.conj, np.real, np.imag, np.angle, np.abs, np.fft.fft, np.fft.fftshift):
        got = fn(y)
        assert isinstance(got, np.ndarray), fn
        np.testing.assert_allclose(got, fn(y.data))
    assert np.std(loupe.array([1.0, 2.0, 3.0])) == np.std([1.0, 2.0, 3.0])
    np.testing.assert_array_equal(np.zeros_like(y), [0, 0])


def test_ctxgrad_tensors_and_plain_values_are_inputs_too() -> None:
    x = ctxgrad.tensor([0.5, 1.0], dtype=ctxgrad.float64, requires_grad=True)
    y = multiply(expc(x), [2.0, 3.0])  # a list becomes a loupe array
    loupe.sum(y * (1 + 1j)).backward(1.0)  # the gradient of a ctxgrad input lands in its .grad
    xs = np.array([0.5, 1.0])
    assert x.grad is not None
    np.testing.assert_allclose(x.grad.numpy(), np.array([2.0, 3.0]) * (-np.sin(xs) - np.cos(xs)))
    with ctxgrad.no_grad():
        z = expc(x)
    assert z.tensor.grad_fn is None


def test_sserror_and_its_gain_and_bias_fits() -> None:
    """loupe's tests/test_cost.py, with fixed numbers."""
    data = np.ones((10, 10))
    assert loupe.sserror(loupe.ones((10, 10)), data, gain_bias_invariant=False).data == 0
    np.testing.assert_allclose(loupe.sserror(0.9 * loupe.ones((10, 10)), data, gain_bias_invariant=False).data, 0.01)
    model = np.random.default_rng(1).uniform(size=(10, 10))
    got = loupe.sserror._fit_gain(loupe.sserror._G(model * 0.3 + 2, None), loupe.sserror._G(model, None), None)
    np.testing.assert_allclose(got, 0.3)
    np.testing.assert_allclose(loupe.sserror._fit_bias(model + 1.5, model, None, 1), 1.5)
    with pytest.raises(ZeroDivisionError, match="g must be nonzero"):
        loupe.sserror(loupe.ones((2, 2)), data[:2, :2])  # a flat model has no gain
    with pytest.raises(ValueError, match=r"model and data shape mismatch: \(2, 2\) != \(3, 3\)"):
        loupe.sserror(loupe.ones((2, 2)), np.ones((3, 3)))


def test_sserror_gradient_is_the_numerical_one() -> None:
    data = RNG.normal(size=(2, 5, 5))
    mask = RNG.random((5, 5)) > 0.2
    for invariant in (True, False):
        g = ctxgrad.tensor(RNG.normal(size=(2, 5, 5)), dtype=ctxgrad.float64, requires_grad=True)
        assert gradcheck(lambda t, i=invariant: loupe.sserror(t, data, mask=mask, gain_bias_invariant=i).tensor, (g,))


# --------------------------------------------------------------------------- optimize
@needs_scipy
def test_optimize_recovers_the_quickstarts_coefficients() -> None:
    """loupe's quickstart (docs/getting_started/overview.rst), with its numbers."""
    basis = loupe.zernike_basis(np.ones((100, 100)), np.arange(2, 7))
    coeffs = np.array([1.5, -2.5, 3, -6, 4])
    data = np.einsum("ijk,i->jk", basis, coeffs)
    x = loupe.zeros(shape=5)
    model = loupe.einsum("ijk,i->jk", basis, x)
    cost = loupe.sserror(model, data, gain_bias_invariant=False)
    res = loupe.optimize(fun=cost, params=x)
    assert res.success and res.nit == 6 and res.nfev == 7
    np.testing.assert_allclose(res.fun, 2.53492193e-09, rtol=1e-6)
    np.testing.assert_allclose(coeffs - x, [-7.4300e-06, 1.2390e-05, -1.3613e-04, 2.8557e-04, -3.6117e-04], rtol=1e-3)
    assert x.requires_grad  # optimize marked the parameter


@needs_scipy
def test_optimize_marks_only_the_parameters_and_refuses_what_it_cannot_minimise() -> None:
    x, other = loupe.array([0.0]), loupe.array([1.0], requires_grad=True)
    cost = loupe.sum((x - 2.0) ** 2 * other)
    res = loupe.optimize(cost, x, analytic_grad=False)
    np.testing.assert_allclose(res.x, [2.0], atol=1e-4)
    assert x.requires_grad and not other.requires_grad
    with pytest.raises(ValueError, match=r"optimize: fun must be a scalar cost, but its shape is \(2,\)"):
        loupe.optimize(loupe.array([1.0, 2.0]) * x, x)
    with pytest.raises(ValueError, match="optimize: a parameter is not an input of fun"):
        loupe.optimize(cost, loupe.array([0.0]))
    with pytest.raises(TypeError, match="optimize: fun must be a loupe Function"):
        loupe.optimize(x, x)  # type: ignore[arg-type]


@needs_scipy
def test_masked_parameters_optimise_only_their_valid_entries() -> None:
    x = loupe.array([0.0, 5.0, 0.0], mask=[False, True, False])
    cost = loupe.sum((x - np.array([1.0, 2.0, 3.0])) ** 2)
    loupe.optimize(cost, [x])
    np.testing.assert_allclose(x.data, [1.0, 5.0, 3.0], atol=1e-5)  # the masked entry is left


def test_zernike_basis_is_orthonormal_on_the_circle() -> None:
    n = 64
    yy, xx = np.mgrid[:n, :n] - (n - 1) / 2
    mask = (np.hypot(xx, yy) <= n / 2).astype(float)
    basis = loupe.zernike_basis(mask, np.arange(1, 11), vectorize=True)
    gram = basis @ basis.T / mask.sum()
    np.testing.assert_allclose(gram, np.eye(10), atol=0.05)
    assert [loupe.zernike_index(j) for j in (1, 2, 3, 4, 5, 6, 11)] == [
        (0, 0),
        (1, 1),
        (-1, 1),
        (0, 2),
        (-2, 2),
        (2, 2),
        (0, 4),
    ]
    with pytest.raises(ValueError, match="Zernike index j must be a positive integer"):
        loupe.zernike_index(0)
    with pytest.raises(ValueError, match="Both rho and theta must be specified"):
        loupe.zernike(mask, 2, rho=np.ones((n, n)))


# --------------------------------------------------------------------------- errors
def test_a_pushed_gradient_of_the_wrong_shape_is_named() -> None:
    class Broken(loupe.Function):
        def forward(self) -> Any:
            return self.inputs[0].getdata() * 2

        def backward(self, grad: Any) -> None:
            self.inputs[0].backward(grad.sum())

    y = Broken(loupe.array([1.0, 2.0], requires_grad=True))
    with pytest.raises(RuntimeError, match=r"Broken\.backward pushed a gradient of shape \[\] into inputs\[0\], which"):
        y.backward(np.ones(2))


def test_bad_forward_missing_backward_and_bad_grads_are_named() -> None:
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
    y = loupe.array([1.0, 2.0], requires_grad=True) * 2.0
    with pytest.raises(ValueError, match=r"multiply\.backward: grad of shape \(3,\) does not match the result's shape"):
        y.backward(np.ones(3))
    with pytest.raises(TypeError, match=r"multiply\.backward: a complex grad for a real result"):
        y.backward(np.ones(2) * 1j)


def test_asarray_and_the_ports_limits_raise_clear_errors() -> None:
    x = loupe.array([1.0])
    with pytest.raises(ValueError, match="Unable to modify existing loupe array"):
        loupe.asarray(x, requires_grad=True)
    with pytest.raises(TypeError, match=r"Unsupported type\. Cannot create array from dict"):
        loupe.asarray({})
    with pytest.raises(NotImplementedError, match=r"einsum: '\.\.\.' in subscripts is not supported"):
        loupe.einsum("...i->i", np.ones((2, 2)))
    with pytest.raises(NotImplementedError, match=r"einsum: a repeated axis within one operand \('ii'\)"):
        loupe.einsum("ii->i", np.ones((2, 2)))
    with pytest.raises(ValueError, match="einsum: subscripts name 2 operands, 1 given"):
        loupe.einsum("i,i->", np.ones(2))
    with pytest.raises(AttributeError, match=r"ctxgrad\.compat\.loupe has no 'dft2': loupe's a differentiable"):
        loupe.dft2  # (reading it raises)
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        loupe.nothing  # (reading it raises)


def test_no_cycle_holds_a_model() -> None:
    x = loupe.array([0.1, 0.2], requires_grad=True)
    gc.disable()
    try:
        y = loupe.sum(expc(x) * 2.0)
        y.backward(1.0)
        node, model = weakref.ref(y.tensor.grad_fn), weakref.ref(y)
        del y
        assert node() is None and model() is None
    finally:
        gc.enable()

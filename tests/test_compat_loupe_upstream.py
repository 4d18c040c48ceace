"""loupe's own tests, run on ctxgrad.compat.loupe with only their imports changed.

Ported from loupe (https://github.com/andykee/loupe), files tests/test_core.py,
tests/numeric/test_{add,subtract,multiply,power,exp,expc,slice}.py, tests/test_einsum.py,
tests/test_cost.py, tests/test_optimize.py, tests/test_util.py and tests/test_zernike.py:
``import loupe`` became ``from ctxgrad.compat import loupe``, the code was formatted by ruff,
and the optimize tests skip without SciPy.  Not ported: the tests of loupe functions this
port does not have (``shift``, ``register``, ``medfix2``, ``zernike_fit``,
``zernike_remove``, and tests/test_{fourier,shape,special,tensordot}.py), listed in
docs/porting-loupe.md.

loupe's licence:

BSD 3-Clause License

Copyright (c) 2021, Andy Kee
All rights reserved.

Redistribution and use in source and binary forms, with or without
modification, are permitted provided that the following conditions are met:

1. Redistributions of source code must retain the above copyright notice, this
   list of conditions and the following disclaimer.

2. Redistributions in binary form must reproduce the above copyright notice,
   this list of conditions and the following disclaimer in the documentation
   and/or other materials provided with the distribution.

3. Neither the name of the copyright holder nor the names of its
   contributors may be used to endorse or promote products derived from
   this software without specific prior written permission.

THIS SOFTWARE IS PROVIDED BY THE COPYRIGHT HOLDERS AND CONTRIBUTORS "AS IS"
AND ANY EXPRESS OR IMPLIED WARRANTIES, INCLUDING, BUT NOT LIMITED TO, THE
IMPLIED WARRANTIES OF MERCHANTABILITY AND FITNESS FOR A PARTICULAR PURPOSE ARE
DISCLAIMED. IN NO EVENT SHALL THE COPYRIGHT HOLDER OR CONTRIBUTORS BE LIABLE
FOR ANY DIRECT, INDIRECT, INCIDENTAL, SPECIAL, EXEMPLARY, OR CONSEQUENTIAL
DAMAGES (INCLUDING, BUT NOT LIMITED TO, PROCUREMENT OF SUBSTITUTE GOODS OR
SERVICES; LOSS OF USE, DATA, OR PROFITS; OR BUSINESS INTERRUPTION) HOWEVER
CAUSED AND ON ANY THEORY OF LIABILITY, WHETHER IN CONTRACT, STRICT LIABILITY,
OR TORT (INCLUDING NEGLIGENCE OR OTHERWISE) ARISING IN ANY WAY OUT OF THE USE
OF THIS SOFTWARE, EVEN IF ADVISED OF THE POSSIBILITY OF SUCH DAMAGE.
"""

import importlib.util

import numpy as np
import pytest

from ctxgrad.compat import loupe

needs_scipy = pytest.mark.skipif(
    importlib.util.find_spec("scipy") is None, reason="loupe.optimize runs SciPy's L-BFGS-B, as loupe does"
)

# ---- loupe tests/test_core.py


def test_backward_requires_grad_false():
    a = loupe.array([1, 2, 3], requires_grad=False)
    a.backward([1, 1, 1])
    assert np.all(a.grad == [0, 0, 0])


# ---- loupe tests/numeric/test_add.py


def test_add():
    a = loupe.rand(size=(10, 10))
    b = loupe.rand(size=(10, 10))
    res = loupe.add(a, b)
    assert np.array_equal(res, np.add(a.data, b.data))


def test_add_overloaded():
    a = loupe.rand(size=(10, 10))
    b = loupe.rand(size=(10, 10))
    res = a + b
    assert np.array_equal(res, np.add(a.data, b.data))


def test_scalar_add():
    a = loupe.rand(size=(10, 10))
    b = loupe.rand()
    res = a + b
    assert np.array_equal(res, np.add(a.data, b.data))


def test_add_backward():
    a = loupe.rand(size=(10, 10), requires_grad=True)
    b = loupe.rand(size=(10, 10), requires_grad=True)
    res = loupe.add(a, b)
    res.backward(grad=np.ones((10, 10)))
    assert np.array_equal(a.grad, np.ones_like(a.data))
    assert np.array_equal(b.grad, np.ones_like(b.data))


def test_scalar_add_backward():
    a = loupe.rand(size=(10, 10), requires_grad=True)
    b = loupe.rand(requires_grad=True)
    res = loupe.add(a, b)
    res.backward(grad=np.ones((10, 10)))
    assert np.array_equal(a.grad, np.ones_like(a.data))
    assert np.array_equal(b.grad, 100)


def test_broadcast_add():
    a = loupe.rand(size=(2, 3))
    b = loupe.rand(size=3)
    res = a + b
    assert np.array_equal(res, np.add(a.data, b.data))


def test_broadcast_add2():
    a = loupe.rand(size=(2, 3))
    b = loupe.rand(size=(1, 3))
    res = a + b
    assert np.array_equal(res, np.add(a.data, b.data))


def test_broadcast_add_backward():
    a = loupe.rand(size=(2, 3), requires_grad=True)
    b = loupe.rand(size=3, requires_grad=True)
    res = a + b
    res.backward(grad=np.ones((2, 3)))
    assert np.array_equal(a.grad, np.ones((2, 3)))
    assert np.array_equal(b.grad, np.array([2, 2, 2]))


def test_broadcast_add_backward2():
    a = loupe.rand(size=(2, 3), requires_grad=True)
    b = loupe.rand(size=(1, 3), requires_grad=True)
    res = a + b
    res.backward(grad=np.ones((2, 3)))
    assert np.array_equal(a.grad, np.ones((2, 3)))
    assert np.array_equal(b.grad, np.array([[2, 2, 2]]))


# ---- loupe tests/numeric/test_subtract.py


def test_subtract():
    a = loupe.rand(size=(10, 10))
    b = loupe.rand(size=(10, 10))
    res = loupe.subtract(a, b)
    assert np.array_equal(res, np.subtract(a.data, b.data))


def test_subtract_overloaded():
    a = loupe.rand(size=(10, 10))
    b = loupe.rand(size=(10, 10))
    res = a - b
    assert np.array_equal(res, np.subtract(a.data, b.data))


def test_scalar_subtract():
    a = loupe.rand(size=(10, 10))
    b = loupe.rand()
    res = a - b
    assert np.array_equal(res, np.subtract(a.data, b.data))


def test_subtract_backward():
    a = loupe.rand(size=(10, 10), requires_grad=True)
    b = loupe.rand(size=(10, 10), requires_grad=True)
    res = loupe.subtract(a, b)
    res.backward(grad=np.ones((10, 10)))
    assert np.array_equal(a.grad, np.ones_like(a.data))
    assert np.array_equal(b.grad, -1 * np.ones_like(b.data))


def test_scalar_subtract_backward():
    a = loupe.rand(size=(10, 10), requires_grad=True)
    b = loupe.rand(requires_grad=True)
    res = loupe.subtract(a, b)
    res.backward(grad=np.ones((10, 10)))
    assert np.array_equal(a.grad, np.ones_like(a.data))
    assert np.array_equal(b.grad, -100)


def test_broadcast_subtract():
    a = loupe.rand(size=(2, 3))
    b = loupe.rand(size=3)
    res = a - b
    assert np.array_equal(res, np.subtract(a.data, b.data))


def test_broadcast_subtract2():
    a = loupe.rand(size=(2, 3))
    b = loupe.rand(size=(1, 3))
    res = a - b
    assert np.array_equal(res, np.subtract(a.data, b.data))


def test_broadcast_subtract_backward():
    a = loupe.rand(size=(2, 3), requires_grad=True)
    b = loupe.rand(size=3, requires_grad=True)
    res = a - b
    res.backward(grad=np.ones((2, 3)))
    assert np.array_equal(a.grad, np.ones((2, 3)))
    assert np.array_equal(b.grad, np.array([-2, -2, -2]))


def test_broadcast_subtract_backward2():
    a = loupe.rand(size=(2, 3), requires_grad=True)
    b = loupe.rand(size=(1, 3), requires_grad=True)
    res = a - b
    res.backward(grad=np.ones((2, 3)))
    assert np.array_equal(a.grad, np.ones((2, 3)))
    assert np.array_equal(b.grad, np.array([[-2, -2, -2]]))


# ---- loupe tests/numeric/test_multiply.py


def test_multiply():
    a = loupe.rand(size=(10, 10))
    b = loupe.rand(size=(10, 10))
    res = loupe.multiply(a, b)
    assert np.array_equal(res, np.multiply(a.data, b.data))


def test_multiply_overloaded():
    a = loupe.rand(size=(10, 10))
    b = loupe.rand(size=(10, 10))
    res = a * b
    assert np.array_equal(res, np.multiply(a.data, b.data))


def test_scalar_multiply():
    a = loupe.rand(size=(10, 10))
    b = loupe.rand()
    res = a * b
    assert np.array_equal(res, np.multiply(a.data, b.data))


def test_multiply_backward():
    a = loupe.rand(size=(10, 10), requires_grad=True)
    b = loupe.rand(size=(10, 10), requires_grad=True)
    res = loupe.multiply(a, b)
    res.backward(grad=np.ones((10, 10)))
    assert np.array_equal(a.grad, np.conj(b.data))
    assert np.array_equal(b.grad, np.conj(a.data))


def test_scalar_multiply_backward():
    a = loupe.rand(size=(10, 10), requires_grad=True)
    b = loupe.rand(requires_grad=True)
    res = loupe.multiply(a, b)
    res.backward(grad=np.ones((10, 10)))
    assert np.array_equal(a.grad, np.broadcast_to(np.conj(b.data), a.shape))
    assert np.allclose(b.grad, np.sum(np.conj(a.data)))


def test_broadcast_multiply():
    a = loupe.rand(size=(2, 3))
    b = loupe.rand(size=3)
    res = a * b
    assert np.array_equal(res, np.multiply(a.data, b.data))


def test_broadcast_multiply2():
    a = loupe.rand(size=(2, 3))
    b = loupe.rand(size=(1, 3))
    res = a * b
    assert np.array_equal(res, np.multiply(a.data, b.data))


def test_broadcast_multiply_backward():
    a = loupe.rand(size=(2, 3), requires_grad=True)
    b = loupe.rand(size=3, requires_grad=True)
    res = a * b
    res.backward(grad=np.ones((2, 3)))
    assert np.array_equal(a.grad, np.broadcast_to(np.conj(b.data), a.shape))
    assert np.array_equal(b.grad, np.sum(np.conj(a.data), 0))


def test_broadcast_multiply_backward2():
    a = loupe.rand(size=(2, 3), requires_grad=True)
    b = loupe.rand(size=(1, 3), requires_grad=True)
    res = a * b
    res.backward(grad=np.ones((2, 3)))
    assert np.array_equal(a.grad, np.broadcast_to(np.conj(b.data), a.shape))
    assert np.array_equal(b.grad, np.sum(np.conj([a.data]), 1))


# ---- loupe tests/numeric/test_power.py


def test_power():
    a = loupe.rand(size=(10, 10))
    b = loupe.rand(size=(10, 10))
    res = loupe.power(a, b)
    assert np.array_equal(res, np.power(a.data, b.data))


def test_power_overloaded():
    a = loupe.rand(size=(10, 10))
    b = loupe.rand(size=(10, 10))
    res = a**b
    assert np.array_equal(res, np.power(a.data, b.data))


def test_scalar_power():
    a = loupe.rand(size=(10, 10))
    b = loupe.rand()
    res = a**b
    assert np.array_equal(res, np.power(a.data, b.data))


def test_power_backward():
    a = loupe.rand(size=(10, 10), requires_grad=True)
    b = np.random.uniform(size=(10, 10))
    res = loupe.power(a, b)
    res.backward(grad=np.ones((10, 10)))
    assert np.array_equal(a.grad, b * np.power(a.data, b - 1))


def test_scalar_power_backward():
    a = loupe.rand(size=(10, 10), requires_grad=True)
    b = 3
    res = loupe.power(a, b)
    res.backward(grad=np.ones((10, 10)))
    assert np.array_equal(a.grad, b * np.power(a.data, b - 1))


# ---- loupe tests/numeric/test_exp.py


def test_exp():
    a = loupe.rand(size=(10, 10))
    res = loupe.exp(a)
    assert np.array_equal(res, np.exp(a.data))


def test_exp_backward():
    a = loupe.rand(size=(10, 10), requires_grad=True)
    res = loupe.exp(a)
    res.backward(grad=np.ones((10, 10)))
    assert np.array_equal(a.grad, res)


# ---- loupe tests/numeric/test_expc.py


def test_expc():
    a = loupe.rand(size=(10, 10))
    res = loupe.expc(a)
    assert np.allclose(res, np.exp(a.data * 1j))


def test_expc_backward():
    a = loupe.rand(size=(10, 10), requires_grad=True)
    res = loupe.expc(a)
    res.backward(grad=np.ones((10, 10)))
    assert np.allclose(a.grad, np.imag(np.conj(res)))


# ---- loupe tests/numeric/test_slice.py


def test_slice():
    a = loupe.rand(size=(10, 10))
    res = loupe.slice(a, (slice(0, 5), slice(0, 5)))
    assert np.array_equal(res, a.data[0:5, 0:5])


def test_slice_overloaded():
    a = loupe.rand(size=(10, 10))
    res = a[0:5, 0:5]
    assert np.array_equal(res, a.data[0:5, 0:5])


def test_slice_backward():
    a = loupe.rand(size=(10, 10), requires_grad=True)
    res = loupe.slice(a, (slice(0, 5), slice(0, 5)))
    res.backward(grad=np.ones((5, 5)))

    result_grad = np.zeros_like(a)
    result_grad[0:5, 0:5] = 1

    assert np.array_equal(a.grad, result_grad)


def test_slice_overload_backward():
    a = loupe.rand(size=(10, 10), requires_grad=True)
    res = a[0:5, 0:5]
    res.backward(grad=np.ones((5, 5)))

    result_grad = np.zeros_like(a)
    result_grad[0:5, 0:5] = 1

    assert np.array_equal(a.grad, result_grad)


# ---- loupe tests/test_einsum.py


@pytest.mark.parametrize(
    "subs, shapes",
    [
        # sums
        ("i->", ((5,),)),
        ("ij->", ((5, 5),)),
        ("ijk->", ((5, 5, 5),)),
        # element-wise multiply
        ("i,i->i", ((3,), (3,))),
        ("ij,ij->ij", ((3, 4), (3, 4))),
        # inner
        ("i,i", ((3,), (3,))),
        ("ij,kj->ik", ((3, 4), (5, 4))),
        # outer
        ("i,j->ij", ((3,), (4,))),
        # dot
        ("ij,jk", ((3, 4), (4, 3))),
        # basis expansion
        ("ijk,i->jk", ((10, 5, 5), (10))),  # w/sum
        ("ijk,i->ijk", ((10, 5, 5), (10))),  # w/o sum
    ],
)
def test_einsum_forward(subs, shapes):
    inputs = [np.random.uniform(low=-1, high=1, size=shape) for shape in shapes]
    assert np.all(loupe.einsum(subs, *inputs).data == np.einsum(subs, *inputs))


@pytest.mark.parametrize(
    "subs, shapes, func",
    [
        # element-wise multiply
        ("i,i->i", ((3,), (3,)), loupe.multiply),
        ("ij,ij->ij", ((3, 3), (3, 3)), loupe.multiply),
    ],
)
def test_einsum_backward_multiply(subs, shapes, func):
    inputs = [loupe.rand(low=-1, high=1, size=shape, requires_grad=True) for shape in shapes]
    out = loupe.einsum(subs, *inputs)
    out.backward(np.ones_like(out))

    einsum_grads = []
    for x in inputs:
        einsum_grads.append(x.grad.copy())
        x.zero_grad()

    # repeat the calculation with an explicit loupe function
    del out
    out = func(*inputs)
    out.backward(np.ones_like(out))
    loupe_grads = []
    for x in inputs:
        loupe_grads.append(x.grad.copy())

    assert np.allclose(einsum_grads, loupe_grads)


# def test_einsum_backward_basis_expansion():
#    pass

# ---- loupe tests/test_cost.py


def test_sserror_forward():
    data = np.ones((10, 10))
    model = loupe.ones((10, 10))
    err = loupe.sserror(model, data, mask=None, gain_bias_invariant=False)
    assert err.data == 0

    model = 0.9 * loupe.ones((10, 10))
    err = loupe.sserror(model, data, mask=None, gain_bias_invariant=False)
    assert np.allclose(err.data, 0.01)


def test_sserror_fit_gain():
    model = loupe.rand(size=(10, 10))

    gain = np.random.uniform(low=-0.5, high=0.5)
    data = model.data.copy() * gain

    _model = loupe.sserror._G(model.data, mask=None)
    _data = loupe.sserror._G(data, mask=None)
    gain_est = loupe.sserror._fit_gain(_data, _model, mask=None)

    assert np.allclose(gain, gain_est)


def test_sserror_fit_bias():
    model = loupe.rand(size=(10, 10))

    bias = np.random.uniform(low=-5, high=5)
    data = model.data.copy() + bias

    bias_est = loupe.sserror._fit_bias(data, model.data, mask=None, gain=1)

    assert np.allclose(bias, bias_est)


def test_sserror_fit_gain_bias():
    model = loupe.rand(size=(10, 10))

    gain = np.random.uniform(low=-0.5, high=0.5)
    bias = np.random.uniform(low=-5, high=5)
    data = (model.data.copy() * gain) + bias

    _model = loupe.sserror._G(model.data, mask=None)
    _data = loupe.sserror._G(data, mask=None)
    gain_est = loupe.sserror._fit_gain(_data, _model, mask=None)
    bias_est = loupe.sserror._fit_bias(data, model.data, mask=None, gain=gain_est)

    assert np.allclose(gain, gain_est)
    assert np.allclose(bias, bias_est)


def test_sserror_forward_multi():
    model = loupe.rand(size=(3, 10, 10))
    gain = np.random.uniform(low=-0.5, high=0.5)
    bias = np.random.uniform(low=-5, high=5)
    data_clean = model.data.copy()
    data_clean += np.random.uniform(low=-0.1, high=0.1, size=(3, 10, 10))
    data = gain * data_clean + bias
    err = loupe.sserror(model, data, mask=None, gain_bias_invariant=True)

    assert err.data


def test_sserror_backward_multi():
    model = loupe.rand(size=(3, 10, 10), requires_grad=True)
    gain = np.random.uniform(low=-0.5, high=0.5)
    bias = np.random.uniform(low=-5, high=5)
    data_clean = model.data.copy()
    data_clean += np.random.uniform(low=-0.1, high=0.1, size=(3, 10, 10))
    data = gain * data_clean + bias
    err = loupe.sserror(model, data, mask=None, gain_bias_invariant=True)
    err.backward(grad=1.0)
    assert np.all(model.grad != 0)
    assert model.grad.shape == model.shape


def test_sserror_residual():
    model = loupe.rand(size=(3, 10, 10))
    gain = np.random.uniform(low=-0.5, high=0.5)
    bias = np.random.uniform(low=-5, high=5)
    data_clean = model.data.copy()
    data_clean += np.random.uniform(low=-0.1, high=0.1, size=(3, 10, 10))
    data = gain * data_clean + bias
    err = loupe.sserror(model, data, mask=None, gain_bias_invariant=False)

    r = err.residual()
    rr = model.data - data

    assert np.allclose(r, rr)


def test_sserror_residual_gbi():
    model = loupe.rand(size=(3, 10, 10))
    gain = np.random.uniform(low=-0.5, high=0.5)
    bias = np.random.uniform(low=-5, high=5)
    data_clean = model.data.copy()
    data_clean += np.random.uniform(low=-0.1, high=0.1, size=(3, 10, 10))
    data = gain * data_clean + bias
    err = loupe.sserror(model, data, mask=None, gain_bias_invariant=True)

    r = err.residual()

    _model = loupe.sserror._G(model.data, mask=None)
    _data = loupe.sserror._G(data, mask=None)
    alpha = loupe.sserror._fit_gain(_data, _model, mask=None)
    rr = np.einsum("ijk,i->ijk", _model, alpha) - _data

    assert np.allclose(r, rr)


def test_sserror_residual_mask():
    model = loupe.rand(size=(3, 10, 10))
    gain = np.random.uniform(low=-0.5, high=0.5)
    bias = np.random.uniform(low=-5, high=5)
    data_clean = model.data.copy()
    data_clean += np.random.uniform(low=-0.1, high=0.1, size=(3, 10, 10))
    data = gain * data_clean + bias
    mask = np.ones(shape=(3, 10, 10))
    mask[:, 5, 5] = 0
    mask[1, 6, 6] = 0

    err = loupe.sserror(model, data, mask, gain_bias_invariant=False)

    r = err.residual()
    rr = (model.data - data) * mask

    assert np.allclose(r, rr)


def test_sserror_residual_gbi_mask():
    model = loupe.rand(size=(3, 10, 10))
    gain = np.random.uniform(low=-0.5, high=0.5)
    bias = np.random.uniform(low=-5, high=5)
    data_clean = model.data.copy()
    data_clean += np.random.uniform(low=-0.1, high=0.1, size=(3, 10, 10))
    data = gain * data_clean + bias
    mask = np.ones(shape=(3, 10, 10))
    mask[:, 5, 5] = 0
    mask[1, 6, 6] = 0

    err = loupe.sserror(model, data, mask, gain_bias_invariant=True)

    r = err.residual()

    _model = loupe.sserror._G(model.data, mask)
    _data = loupe.sserror._G(data, mask)
    alpha = loupe.sserror._fit_gain(_data, _model, mask)
    rr = mask * (np.einsum("ijk,i->ijk", _model, alpha) - _data)

    assert np.allclose(r, rr)


# ---- loupe tests/test_optimize.py


@needs_scipy
def test_optimize_scalar_quadratic():
    x = loupe.rand()
    y = 4 * (x - 5) ** 2
    res = loupe.optimize(y, x)
    assert np.allclose(res.x, 5)


@needs_scipy
def test_optimize_scalar_quadratic_finite_difference():
    x = loupe.rand()
    y = 4 * (x - 5) ** 2
    res = loupe.optimize(y, x, analytic_grad=False)
    assert np.allclose(res.x, 5)


# ---- loupe tests/test_util.py (test_shift, test_register, test_medfix2 not ported)


@pytest.mark.parametrize("data", ["test", len])
def test_asarray_invalid_dtype(data):
    with pytest.raises(TypeError):
        loupe.asarray(data)


def test_array_creation_utils():
    assert loupe.ones((5, 5))
    assert loupe.zeros((5, 5))
    assert loupe.rand(size=(5, 5))
    assert loupe.randn(size=(5, 5))


def test_array_like_utils():
    x = loupe.ones((5, 5))
    y = loupe.ones_like(x)
    z = loupe.zeros_like(x)

    assert y.shape == x.shape
    assert z.shape == x.shape


# ---- loupe tests/test_zernike.py (test_zernike_fit, test_zernike_remove not ported)


def test_zernike_rho_theta():
    with pytest.raises(ValueError):
        loupe.zernike(mask=1, index=1, normalize=True, rho=1, theta=None)


def test_zernike_positive():
    with pytest.raises(ValueError):
        loupe.zernike(mask=1, index=-1)


def test_zernike_basis():
    basis = loupe.zernike_basis(mask=np.ones((3, 3)), modes=1, vectorize=False)
    assert np.array_equal(basis, np.ones((1, 3, 3)))


def test_zernike_basis_vectorize():
    basis = loupe.zernike_basis(mask=np.ones((3, 3)), modes=1, vectorize=True)
    assert np.array_equal(basis, np.ones((1, 9)))

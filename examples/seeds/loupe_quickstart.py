"""loupe's own documentation, run on ctxgrad: its quickstart, its autograd page, its optimize.

Taken from loupe (https://github.com/andykee/loupe, BSD 3-Clause License, Copyright (c) 2021,
Andy Kee), with ``import loupe`` changed to ``from ctxgrad.compat import loupe``:

1. docs/getting_started/overview.rst, "Quickstart": recover five Zernike coefficients from an
   image by L-BFGS-B.  (The two ``plt`` lines that draw the data are left out: matplotlib is
   not a dependency.)
2. docs/user_guide/autograd.rst, "Computational graph": integer arrays that require grad,
   backward given a loupe array.
3. docs/user_guide/optimize.rst: ``y = A x^2 + x`` fitted to data.  As printed there it calls
   ``loupe.optimize(fun=cost, param=x)``, names that do not exist (``cost`` is ``err``, the
   keyword is ``params``); it is run with those two names fixed, and with NumPy's generator
   seeded so that the random ``A`` is the same each run.
4. loupe/optimize.py, ``optimize``'s docstring: a quadratic, by the analytic gradient and by
   finite differences.

Each part asserts the numbers loupe's docs print.  Run: ``python examples/seeds/loupe_quickstart.py``
(needs SciPy, as loupe does).
"""

from __future__ import annotations

import numpy as np

from ctxgrad.compat import loupe


def quickstart() -> None:
    basis = loupe.zernike_basis(np.ones((100, 100)), np.arange(2, 7))
    coeffs = np.array([1.5, -2.5, 3, -6, 4])
    data = np.einsum("ijk,i->jk", basis, coeffs)
    x = loupe.zeros(shape=5)
    model = loupe.einsum("ijk,i->jk", basis, x)
    cost = loupe.sserror(model, data, gain_bias_invariant=False)
    res = loupe.optimize(fun=cost, params=x)
    print(res)
    print(coeffs - x)
    # loupe's docs: fun 2.53492193e-09, nit 6, nfev 7, and coeffs - x as below.
    assert res.success and res.nit == 6 and res.nfev == 7, res
    np.testing.assert_allclose(res.fun, 2.53492193e-09, rtol=1e-6)
    np.testing.assert_allclose(coeffs - x, [-7.4300e-06, 1.2390e-05, -1.3613e-04, 2.8557e-04, -3.6117e-04], rtol=1e-3)
    print("quickstart: coefficients recovered as in loupe's docs")


def autograd_page() -> None:
    x = loupe.array([1, 2, 3], requires_grad=True)
    y = loupe.array([4, 5, 6], requires_grad=True)
    f = x * y
    z = loupe.array(9, requires_grad=True)
    g = f + z
    print(repr(g))
    g.backward(loupe.array([1, 1, 1]))
    print(x.grad, y.grad, z.grad)
    np.testing.assert_array_equal(g.data, [13, 19, 27])
    np.testing.assert_array_equal(x.grad, [4.0, 5.0, 6.0])
    np.testing.assert_array_equal(y.grad, [1.0, 2.0, 3.0])
    assert z.grad == 3.0
    print("autograd page: x.grad [4. 5. 6.], y.grad [1. 2. 3.], z.grad 3.0 as in loupe's docs")


def optimize_page() -> None:
    np.random.seed(4)
    A = np.random.uniform(low=-1, high=1, size=(3, 3))
    x = loupe.zeros(3)
    y = A * x**2 + x
    x_true = np.array([1, -2, 3])
    data = A * x_true**2 + x_true
    err = loupe.sum((data - y) ** 2)
    res = loupe.optimize(fun=err, params=x)
    print(res.x)
    assert res.success and res.fun < 1e-12, res
    np.testing.assert_allclose(x.data, x_true, atol=1e-6)
    print("optimize page: x recovered [1, -2, 3]")


def optimize_docstring() -> None:
    x = loupe.rand()
    y = 4 * (x - 5) ** 2
    res = loupe.optimize(y, params=x)
    assert res.success and np.allclose(res.x, 5), res
    x = loupe.rand()
    y = 4 * (x - 5) ** 2
    res = loupe.optimize(y, params=x, analytic_grad=False)
    assert res.success and np.allclose(res.x, 5, atol=1e-5), res
    print("optimize docstring: the minimum of 4 (x - 5)^2 is at x = 5, with either gradient")


if __name__ == "__main__":
    quickstart()
    autograd_page()
    optimize_page()
    optimize_docstring()

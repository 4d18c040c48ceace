"""loupe-style: recover a wavefront's phase from the image it makes (complex optical fields).

loupe models light as complex arrays: a pupil's field is ``amplitude * exp(i phase)`` and the
image a telescope forms is ``|FFT(field)|^2``. Each op is a loupe ``Function`` whose instance
*is* its result: ``forward(self)`` computes an ndarray from its inputs' data and caches what
backward needs, and ``backward(self, grad)`` pushes each input's gradient on with
``self.inputs[i].backward(g)``. On ctxgrad each such class is an ordinary node of the one
engine, with torch's complex convention, so ``gradcheck`` applies to the complex ops.

The model is built once, as loupe builds it, and evaluated again each time its parameter is
written in place.  Run it: ``python examples/seeds/loupe_optics.py``; it gradchecks the three
ops (complex) through each result's ``tensor``, then fits a phase screen to a measured image by
gradient descent, started near the truth, and exits 0 when the image misfit has fallen a
hundredfold; then fits it again with ``loupe.optimize`` (needs SciPy).
"""

from __future__ import annotations

from typing import Any

import numpy as np

import ctxgrad
from ctxgrad.autograd import gradcheck
from ctxgrad.compat import loupe


class expc(loupe.Function):
    """exp(i x): the field of a phase screen x (real in, complex out)."""

    def __init__(self, x: Any) -> None:
        self.input = loupe.asarray(x)
        super().__init__(self.input)

    def forward(self) -> Any:
        result = np.exp(1j * self.input.getdata())
        self.cache_for_backward(result)
        return result

    def backward(self, grad: Any) -> None:
        (result,) = self.cache
        self.input.backward(np.imag(grad * np.conj(result)))


class multiply(loupe.Function):
    """The element-wise product (a field through a mask), as loupe writes it."""

    def forward(self) -> Any:
        left, right = self.inputs[0].getdata(), self.inputs[1].getdata()
        self.cache_for_backward(left, right)
        return left * right

    def backward(self, grad: Any) -> None:
        left, right = self.cache
        if self.inputs[0].requires_grad:
            self.inputs[0].backward(np.conj(right) * grad)
        if self.inputs[1].requires_grad:
            self.inputs[1].backward(np.conj(left) * grad)


class image(loupe.Function):
    """|FFT(field)|^2 with a unitary FFT: the intensity in the focal plane."""

    def forward(self) -> Any:
        focal = np.fft.fft2(self.inputs[0].getdata(), norm="ortho")
        self.cache_for_backward(focal)
        return np.abs(focal) ** 2

    def backward(self, grad: Any) -> None:
        (focal,) = self.cache
        # d|F|^2 gives 2 F grad in the focal plane; the adjoint of a unitary FFT is its inverse.
        self.inputs[0].backward(np.fft.ifft2(2 * grad * focal, norm="ortho"))


def main() -> None:
    rng = np.random.default_rng(0)
    n = 8
    yy, xx = np.mgrid[:n, :n] - (n - 1) / 2
    pupil = (np.hypot(xx, yy) < n / 2).astype(np.float64)  # a round aperture
    mask = pupil * (np.abs(xx + 0.5) > 1)  # with a spider vane across it (breaks the symmetry)

    field = ctxgrad.tensor(rng.normal(size=(n, n)) + 1j * rng.normal(size=(n, n)), requires_grad=True)
    phase = ctxgrad.tensor(rng.normal(size=(n, n)), dtype=ctxgrad.float64, requires_grad=True)
    # A loupe result's ``tensor`` is its ctxgrad graph: ctxgrad's gradcheck applies.
    assert gradcheck(lambda p: expc(p).tensor, (phase,))
    assert gradcheck(lambda f: multiply(f, mask).tensor, (field,))
    assert gradcheck(lambda f: image(f).tensor, (field,))
    print("gradcheck passed: expc, masked multiply and image (complex)")

    true_phase = 0.8 * rng.normal(size=(n, n)) * mask
    measured = image(multiply(expc(true_phase), mask)).data

    # As loupe builds it: the model once, then evaluated again as its parameter changes.
    estimate = loupe.array(true_phase + 0.3 * rng.normal(size=(n, n)) * mask, requires_grad=True)
    misfit = loupe.sum((image(multiply(expc(estimate), mask)) - measured) ** 2)
    first = last = 0.0
    for step in range(301):
        estimate.zero_grad()
        misfit.backward(1.0)
        if step % 75 == 0:
            print(f"step {step:3d}  image misfit {misfit.data:.3e}")
        first = first or float(misfit.data)
        last = float(misfit.data)
        estimate[...] = estimate.data - 0.02 * estimate.grad  # in place: the model follows
    print(f"misfit fell {first / last:.0f}-fold")
    assert last < first / 100, (first, last)

    # The same fit by loupe.optimize (SciPy's L-BFGS-B), from the same start.
    estimate[...] = true_phase + 0.3 * np.random.default_rng(1).normal(size=(n, n)) * mask
    start = float(misfit.data)
    result = loupe.optimize(misfit, estimate)
    print(f"loupe.optimize: misfit {start:.3e} -> {result.fun:.3e} in {result.nit} iterations")
    assert result.fun < start / 1e4, (start, result.fun)


if __name__ == "__main__":
    main()

"""The Function the distributions need that is not an op of the table: a Gamma sample with
its implicit reparameterisation gradient (from the incomplete gamma function's expansions,
which ``ctxgrad.igamma`` shares).  It is an ordinary custom Function, written as a user would
write one.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ctxgrad import _dtypes, _sampling
from ctxgrad._tensor import Tensor, as_tensor
from ctxgrad.autograd.function import Function
from ctxgrad.ops import _special_kernels
from ctxgrad.ops.special_functions import incomplete_gamma_sums, log_gamma

__all__ = ["StandardGamma", "gamma_sample_grad", "standard_gamma"]


def gamma_sample_grad(alpha: np.ndarray[Any, Any], x: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """``dx / dalpha`` for a sample ``x`` of the standard Gamma distribution of shape ``alpha``,
    by implicit reparameterisation: ``x = F^-1(u; alpha)`` with ``u`` held fixed gives
    ``dx/dalpha = -(dF/dalpha)(x; alpha) / f(x; alpha)`` (F the distribution function, f the
    density).

    ``dF/dalpha`` is a central difference in ``alpha`` of the regularised incomplete gamma
    function (the lower one ``P`` below ``x = alpha + 1``, the upper one ``Q = 1 - P`` above,
    so that the difference never cancels against 1), and the division by the density is done
    in logarithms, so that neither ``exp(-x)`` nor ``x^alpha`` is formed: both cancel.  The
    relative error is about 1e-9 in float64.  With SciPy installed (``ctxgrad[scipy]``), ``P``
    and ``Q`` are SciPy's (fixed work per element) and divided by the density directly, the
    expansions running only where the density or ``F`` leaves the normal range; the two paths
    agree to about 1e-8.
    """
    a = np.asarray(alpha, dtype=np.float64)
    z = np.asarray(x, dtype=np.float64)
    a, z = np.broadcast_arrays(a, z)
    a, z = a.ravel().copy(), z.ravel().copy()
    out = np.zeros_like(z)
    ok = (z > 0) & (a > 0) & np.isfinite(z)
    a, z = a[ok], z[ok]
    upper = z >= a + 1.0
    h = 1e-5 * np.maximum(a, 1e-3)
    log_z = np.log(z)
    lg = log_gamma(a)
    special = _special_kernels.scipy_special()
    if special is not None:
        # SciPy's P and Q (fixed work per element), then the same central difference over the
        # density; where the density or F leaves the normal range, the expansions below.
        with np.errstate(all="ignore"):
            f = np.exp((a - 1.0) * log_z - z - lg)
            cdf_plus = np.where(upper, special.gammaincc(a + h, z), special.gammainc(a + h, z))
            cdf_minus = np.where(upper, special.gammaincc(a - h, z), special.gammainc(a - h, z))
            dF = (cdf_plus - cdf_minus) / (2 * h) / f
        good = np.isfinite(dF) & (np.minimum(cdf_plus, cdf_minus) > 1e-280) & (f > 1e-280)
        good &= np.isfinite(f)
        result_good = np.where(upper, dF, -dF)
        if good.all():
            out[ok] = result_good
            done: np.ndarray[Any, Any] = out.reshape(np.broadcast_shapes(np.shape(alpha), np.shape(x)))
            return done
        inside = np.flatnonzero(ok)
        out[inside[good]] = result_good[good]
        ok = np.zeros_like(ok)
        ok[inside[~good]] = True
        a, z, upper, h, log_z, lg = a[~good], z[~good], upper[~good], h[~good], log_z[~good], lg[~good]
    # r(a') = F(a') / f(a), with F = P or Q written as z^a' e^-z / Gamma(a') * S(a').
    ratios = []
    for step in (h, -h):
        shifted = a + step
        s = incomplete_gamma_sums(shifted, z, upper)
        ratios.append(z * np.exp(step * log_z - log_gamma(shifted) + lg) * s)
    dF = (ratios[0] - ratios[1]) / (2 * h)
    out[ok] = np.where(upper, dF, -dF)  # dQ/da = -dP/da
    result: np.ndarray[Any, Any] = out.reshape(np.broadcast_shapes(np.shape(alpha), np.shape(x)))
    return result


class StandardGamma(Function[Tensor]):
    """A sample of the standard Gamma distribution (rate 1) of shape ``alpha``, drawn from
    ctxgrad's generator, whose gradient with respect to ``alpha`` is the implicit
    reparameterisation gradient :func:`gamma_sample_grad` (torch's ``_standard_gamma``)."""

    node_name = "StandardGammaBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, alpha: Tensor, generator: Any = None) -> Tensor:
        a = alpha.array
        draw = _sampling._rng(generator, "_standard_gamma").standard_gamma(a.astype(np.float64))
        # As torch, a sample is never exactly 0 (its log is used): the smallest normal number.
        sample = np.maximum(draw, np.finfo(a.dtype).tiny).astype(a.dtype)
        ctx.save_for_backward(as_tensor(gamma_sample_grad(a, sample).astype(a.dtype)))
        return as_tensor(np.asarray(sample))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, ...]:
        (dsample,) = ctx.saved_tensors
        return (grad * dsample, *(None for _ in ctx.needs_input_grad[1:]))  # (none for a generator)

    @staticmethod
    def jvp(ctx: Any, tangent: Tensor, *_: None) -> Tensor:
        (dsample,) = ctx.saved_tensors
        out: Tensor = tangent * dsample
        return out

    @staticmethod
    def vmap(info: Any, in_dims: tuple[Any, ...], alpha: Tensor, generator: Any = None) -> tuple[Tensor, int]:
        """One draw for the whole batch of shapes (each element its own sample: ``"different"``
        randomness); ``"error"`` refuses, and so does ``"same"`` for batched shapes, as torch."""
        _sampling._random_mode_allows(info, batched_input=True)
        return StandardGamma.apply(alpha, generator), 0


def standard_gamma(input: Tensor, generator: Any = None) -> Tensor:
    """``torch._standard_gamma``: samples of the standard Gamma distribution with the shapes
    ``input``, differentiable with respect to them (:class:`StandardGamma`)."""
    if not isinstance(input, Tensor):
        raise TypeError(f"_standard_gamma(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    dt = input.array.dtype
    if dt.kind != "f" or dt == np.float16:
        raise NotImplementedError(f"\"gamma_cpu\" not implemented for '{_dtypes.short_name(dt)}'")
    return StandardGamma.apply(input, generator)

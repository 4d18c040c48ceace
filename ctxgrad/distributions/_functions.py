"""The Functions the distributions need that are not ops of the table: a Gamma sample with
its implicit reparameterisation gradient, and the regularised lower incomplete gamma function
(``Gamma.cdf``).

Both are ordinary custom Functions, written as a user would write one.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ctxgrad import _sampling
from ctxgrad._tensor import Tensor, as_tensor
from ctxgrad.autograd.function import Function

__all__ = ["Igamma", "StandardGamma", "gamma_sample_grad"]

_lgamma = np.frompyfunc(math.lgamma, 1, 1)


def _log_gamma(a: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    return np.asarray(_lgamma(a), dtype=np.float64)


#: A bound on the terms of either expansion (reached only by non-finite input: both converge
#: within a few hundred terms for alpha up to 1e6).
_MAX_TERMS = 100_000


def _incomplete_gamma_sums(a: np.ndarray[Any, Any], x: np.ndarray[Any, Any], upper: np.ndarray[Any, Any]) -> Any:
    """``S`` with ``P(a, x) = x^a e^-x / Gamma(a) * S`` where ``upper`` is False (the series
    ``sum_n x^n / (a (a+1) ... (a+n))``) and ``Q(a, x) = x^a e^-x / Gamma(a) * S`` where it is
    True (the continued fraction of the upper tail, evaluated by Lentz's method).  Each is the
    form that converges fast and without cancellation on its side of ``x = a + 1``; an element
    leaves the iteration as soon as its next term no longer changes it."""
    out = np.empty_like(x)
    tol = 1e-16
    idx = np.flatnonzero(~upper)
    if idx.size:
        al, xl = a[idx], x[idx]
        term = 1.0 / al
        total = term.copy()
        n = 0.0
        while idx.size:
            n += 1
            term = term * xl / (al + n)
            total = total + term
            done = ~(np.abs(term) > np.abs(total) * tol) | (n > _MAX_TERMS)  # NaN stops too
            if done.any():
                out[idx[done]] = total[done]
                keep = ~done
                idx, al, xl, term, total = idx[keep], al[keep], xl[keep], term[keep], total[keep]
    idx = np.flatnonzero(upper)
    if idx.size:
        au, xu = a[idx], x[idx]
        tiny = 1e-300
        b = xu + 1.0 - au
        c = np.full_like(xu, 1.0 / tiny)
        d = 1.0 / b
        h = d.copy()
        i = 0
        while idx.size:
            i += 1
            an = -i * (i - au)
            b = b + 2.0
            d = an * d + b
            d = np.where(np.abs(d) < tiny, tiny, d)
            c = b + an / c
            c = np.where(np.abs(c) < tiny, tiny, c)
            d = 1.0 / d
            delta = d * c
            h = h * delta
            done = ~(np.abs(delta - 1.0) > 2 * tol) | (i > _MAX_TERMS)  # NaN stops too
            if done.any():
                out[idx[done]] = h[done]
                keep = ~done
                idx, au, xu, b, c, d, h = idx[keep], au[keep], xu[keep], b[keep], c[keep], d[keep], h[keep]
    return out


def gamma_sample_grad(alpha: np.ndarray[Any, Any], x: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """``dx / dalpha`` for a sample ``x`` of the standard Gamma distribution of shape ``alpha``,
    by implicit reparameterisation: ``x = F^-1(u; alpha)`` with ``u`` held fixed gives
    ``dx/dalpha = -(dF/dalpha)(x; alpha) / f(x; alpha)`` (F the distribution function, f the
    density).

    ``dF/dalpha`` is a central difference in ``alpha`` of the regularised incomplete gamma
    function (the lower one ``P`` below ``x = alpha + 1``, the upper one ``Q = 1 - P`` above,
    so that the difference never cancels against 1), and the division by the density is done
    in logarithms, so that neither ``exp(-x)`` nor ``x^alpha`` is formed: both cancel.  The
    relative error is about 1e-9 in float64.
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
    lg = _log_gamma(a)
    # r(a') = F(a') / f(a), with F = P or Q written as z^a' e^-z / Gamma(a') * S(a').
    ratios = []
    for step in (h, -h):
        shifted = a + step
        s = _incomplete_gamma_sums(shifted, z, upper)
        ratios.append(z * np.exp(step * log_z - _log_gamma(shifted) + lg) * s)
    dF = (ratios[0] - ratios[1]) / (2 * h)
    out[ok] = np.where(upper, dF, -dF)  # dQ/da = -dP/da
    result: np.ndarray[Any, Any] = out.reshape(np.broadcast_shapes(np.shape(alpha), np.shape(x)))
    return result


def regularized_gamma_p(a: np.ndarray[Any, Any], x: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """The regularised lower incomplete gamma function ``P(a, x)`` (torch's ``igamma``,
    ``special.gammainc``), elementwise in float64: 0 for ``x <= 0``, 1 for ``x = inf``."""
    a64, x64 = np.broadcast_arrays(np.asarray(a, dtype=np.float64), np.asarray(x, dtype=np.float64))
    out = np.where(x64 > 0, 0.0, 0.0)
    out = np.where(np.isposinf(x64), 1.0, out)
    out = np.where(np.isnan(a64) | np.isnan(x64) | (a64 <= 0), np.nan, out)
    inside = (x64 > 0) & np.isfinite(x64) & (a64 > 0) & np.isfinite(a64)
    if inside.any():
        ai, xi = a64[inside], x64[inside]
        upper = xi >= ai + 1.0
        prefix = np.exp(ai * np.log(xi) - xi - _log_gamma(ai))
        s = prefix * _incomplete_gamma_sums(ai, xi, upper)
        out[inside] = np.where(upper, 1.0 - s, s)
    result: np.ndarray[Any, Any] = out
    return result


class Igamma(Function[Tensor]):
    """``P(a, x)``, the regularised lower incomplete gamma function (the distribution function
    of the standard Gamma distribution of shape ``a`` at ``x``), of two tensors of one shape.
    Its derivative in ``x`` is the Gamma density; as in torch, the one in ``a`` is not
    implemented."""

    _backward_name = "IgammaBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, a: Tensor, x: Tensor) -> Tensor:
        ctx.save_for_backward(a, x)
        dtype = np.result_type(a.array.dtype, x.array.dtype)
        return as_tensor(regularized_gamma_p(a.array, x.array).astype(dtype))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[None, Tensor]:
        if ctx.needs_input_grad[0]:
            raise NotImplementedError("the derivative for 'igamma: input' is not implemented.")
        a, x = ctx.saved_tensors
        density = ((a - 1).xlogy(x) - x - a.lgamma()).exp()
        out: Tensor = grad * density
        return None, out


class StandardGamma(Function[Tensor]):
    """A sample of the standard Gamma distribution (rate 1) of shape ``alpha``, drawn from
    ctxgrad's generator, whose gradient with respect to ``alpha`` is the implicit
    reparameterisation gradient :func:`gamma_sample_grad` (torch's ``_standard_gamma``)."""

    _backward_name = "StandardGammaBackward0"
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, alpha: Tensor) -> Tensor:
        a = alpha.array
        draw = _sampling._rng().standard_gamma(a.astype(np.float64))
        # As torch, a sample is never exactly 0 (its log is used): the smallest normal number.
        sample = np.maximum(draw, np.finfo(a.dtype).tiny).astype(a.dtype)
        ctx.save_for_backward(as_tensor(gamma_sample_grad(a, sample).astype(a.dtype)))
        return as_tensor(np.asarray(sample))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        (dsample,) = ctx.saved_tensors
        out: Tensor = grad * dsample
        return out

    @staticmethod
    def jvp(ctx: Any, tangent: Tensor) -> Tensor:
        (dsample,) = ctx.saved_tensors
        out: Tensor = tangent * dsample
        return out

"""float64 array kernels of the special functions NumPy lacks: ``erf``, ``erfc`` and ``lgamma``,
and the choice of ``scipy.special`` for them and for the ones ``special_functions`` computes.

SciPy is optional (``pip install ctxgrad[scipy]``).  When it imports, its compiled kernels run
(each with torch's value where SciPy's differs at an edge); without it, the NumPy code here
runs: the rational approximations of the Cephes library, which SciPy's own kernels are, so the
two paths agree to an ulp or two (tests/test_special_kernels.py compares them).  Nothing here
loops over elements in Python.

``PREFER_SCIPY`` set to False forces the NumPy code (the tests of the fallback do)."""

from __future__ import annotations

import functools
import importlib
import math
from typing import Any

import numpy as np

__all__ = ["PREFER_SCIPY", "erf", "erfc", "lgamma", "scipy_special"]

#: Use ``scipy.special`` when it imports; False runs the NumPy code (for tests of it).
PREFER_SCIPY = True

Array = np.ndarray[Any, Any]


@functools.cache
def _imported_scipy_special() -> Any:
    try:
        return importlib.import_module("scipy.special")
    except ImportError:
        return None


def scipy_special() -> Any:
    """``scipy.special``, or None when SciPy is not installed or ``PREFER_SCIPY`` is False.
    (Imported on first use: importing SciPy costs more than importing ctxgrad.)"""
    return _imported_scipy_special() if PREFER_SCIPY else None


def _polynomial(x: Array, coefficients: tuple[float, ...]) -> Array:
    """``c0 x^n + c1 x^(n-1) + ... + cn`` by Horner's rule (Cephes' ``polevl``)."""
    out = np.full_like(x, coefficients[0])
    for c in coefficients[1:]:
        out = out * x + c
    return out


def _monic(x: Array, coefficients: tuple[float, ...]) -> Array:
    """``x^(n+1) + c0 x^n + ... + cn``: a polynomial with leading coefficient 1 (``p1evl``)."""
    out = x + coefficients[0]
    for c in coefficients[1:]:
        out = out * x + c
    return out


# Cephes ndtr.c: erf(x) = x T(x²) / U(x²) on |x| <= 1; erfc(x) = exp(-x²) P(x) / Q(x) on
# 1 <= x < 8 and exp(-x²) R(x) / S(x) beyond.
_T = (9.60497373987051638749e0, 9.00260197203842689217e1, 2.23200534594684319226e3, 7.00332514112805075473e3,
      5.55923013010394962768e4)  # fmt: skip
_U = (3.35617141647503099647e1, 5.21357949780152679795e2, 4.59432382970980127987e3, 2.26290000613890934246e4,
      4.92673942608635921086e4)  # fmt: skip
_P = (2.46196981473530512524e-10, 5.64189564831068821977e-1, 7.46321056442269912687e0, 4.86371970985681366614e1,
      1.96520832956077098242e2, 5.26445194995477358631e2, 9.34528527171957607540e2, 1.02755188689515710272e3,
      5.57535335369399327526e2)  # fmt: skip
_Q = (1.32281951154744992508e1, 8.67072140885989742329e1, 3.54937778887819891062e2, 9.75708501743205489753e2,
      1.82390916687909736289e3, 2.24633760818710981792e3, 1.65666309194161350182e3,
      5.57535340817727675546e2)  # fmt: skip
_R = (5.64189583547755073984e-1, 1.27536670759978104416e0, 5.01905042251180477414e0, 6.16021097993053585195e0,
      7.40974269950448939160e0, 2.97886665372100240670e0)  # fmt: skip
_S = (2.26052863220117276590e0, 9.39603524938001434673e0, 1.20489539808096656605e1, 1.70814450747565897222e1,
      9.60896809063285878198e0, 3.36907645100081516050e0)  # fmt: skip
#: Beyond this, exp(-x²) is subnormal or 0 in float64.
_LN2_HIGH, _LN2_LOW = 6.93147180369123816490e-01, 1.90821492927058770002e-10  # (ln 2's first 32 bits, the rest)
_MAX_LOG = 7.09782712893383996843e2


def _exp_minus_square(x: Array) -> Array:
    """``exp(-x²)`` without the error of rounding ``x²`` first (Cephes' ``expx2``): ``x = m + f``
    with ``m`` a multiple of 1/128, so that ``m²`` is exact, and ``exp(-m²) exp(-(2mf + f²))``."""
    m = np.floor(x * 128.0 + 0.5) / 128.0
    f = x - m
    return np.exp(-m * m) * np.exp(-(2.0 * m * f + f * f))


def _erf_small(x: Array) -> Array:
    z = x * x
    out: Array = x * _polynomial(z, _T) / _monic(z, _U)
    return out


def _erfc_tail(ax: Array) -> Array:
    """``erfc(|x|)`` for ``|x| >= 1``, down to the subnormals (to ``|x|`` about 27.2)."""
    near = ax < 8.0
    p = np.where(near, _polynomial(ax, _P), _polynomial(ax, _R))
    q = np.where(near, _monic(ax, _Q), _monic(ax, _S))
    # Far out, where exp(-x²) alone is subnormal, the factor p/q (about 1/(x sqrt pi)) joins the
    # exponent, reduced by whole powers of 2 (Cody and Waite: -m² - n ln 2 is exact) so that
    # the result is rounded once, by ldexp.
    m = np.floor(ax * 128.0 + 0.5) / 128.0
    f = ax - m
    small_part = np.log(p / q) - (2.0 * m * f + f * f)
    powers = np.rint((small_part - m * m) / math.log(2.0))
    reduced = (-m * m - powers * _LN2_HIGH) + (small_part - powers * _LN2_LOW)
    deep = np.ldexp(np.exp(reduced), np.clip(powers, -2000, 0).astype(np.int64))
    out: Array = np.where(ax * ax > _MAX_LOG - 20.0, deep, _exp_minus_square(ax) * p / q)
    out = np.where(ax > 27.3, 0.0, out)  # (below the smallest subnormal from 27.23 on)
    return out


def _erf_numpy(x: Array) -> Array:
    with np.errstate(all="ignore"):
        ax = np.abs(x)
        small = ax <= 1.0
        inside = _erf_small(np.where(small, x, 0.0))
        outside = np.copysign(1.0 - _erfc_tail(np.where(small, 1.0, ax)), x)
        out: Array = np.where(small, inside, outside)
    return out


def _erfc_numpy(x: Array) -> Array:
    with np.errstate(all="ignore"):
        ax = np.abs(x)
        small = ax < 1.0
        inside = 1.0 - _erf_small(np.where(small, x, 0.0))
        tail = _erfc_tail(np.where(small, 1.0, ax))
        outside = np.where(x < 0, 2.0 - tail, tail)
        out: Array = np.where(small, inside, np.where(np.isnan(x), x, outside))
    return out


def erf(x: Array) -> Array:
    """The error function of float64 ``x`` (±1 at ±inf, NaN at NaN)."""
    x = np.asarray(x, dtype=np.float64)
    special = scipy_special()
    out: Array = np.asarray(special.erf(x) if special is not None else _erf_numpy(x))
    return out


def erfc(x: Array) -> Array:
    """``1 - erf(x)`` of float64 ``x``, without the cancellation (0 at inf, 2 at -inf)."""
    x = np.asarray(x, dtype=np.float64)
    special = scipy_special()
    if special is None:
        return _erfc_numpy(x)
    out: Array = np.array(special.erfc(x), dtype=np.float64)  # (an array also when 0-d)
    # SciPy's is 0 from 26.55 on; the C library's (torch's) goes on through the subnormals
    far = x > 26.0
    if far.any():
        out[far] = _erfc_numpy(x[far])
    return out


# Cephes lgam: on [2, 3], lgamma(2 + t) = t B(t) / C(t); above 13, Stirling's series with A.
_A = (8.11614167470508450300e-4, -5.95061904284301438324e-4, 7.93650340457716943945e-4,
      -2.77777777730099687205e-3, 8.33333333333331927722e-2)  # fmt: skip
_B = (-1.37825152569120859100e3, -3.88016315134637840924e4, -3.31612992738871184744e5,
      -1.16237097492762307383e6, -1.72173700820839662146e6, -8.53555664245765465627e5)  # fmt: skip
_C = (-3.51815701436523470549e2, -1.70642106651881159223e4, -2.20528590553854454839e5,
      -1.13933444367982507207e6, -2.53252307177582951285e6, -2.01889141433532773231e6)  # fmt: skip
_LOG_SQRT_2PI = 0.91893853320467274178
_LOG_PI = 1.14472988584940017414


def _lgamma_positive(x: Array) -> Array:
    """``log |Gamma(x)|`` for ``x >= -34`` not a pole, as Cephes: below 13, the recurrence
    ``Gamma(x) = Gamma(x + k) / (x (x+1) ... (x+k-1))`` (or up, ``Gamma(x - k) (x-1) ... (x-k)``)
    brings each element to [2, 3), where the rational function is accurate; above, Stirling."""
    small = x < 13.0
    start = np.where(small, x, 2.5)
    u, shift, z = start, np.zeros_like(start), np.ones_like(start)
    while True:  # down to below 3: at most 10 steps (u = x + shift, rounded once, as Cephes)
        high = u >= 3.0
        if not high.any():
            break
        shift = np.where(high, shift - 1.0, shift)
        u = start + shift
        z = np.where(high, z * u, z)
    while True:  # up to at least 2: at most 36 steps from -34
        low = u < 2.0
        if not low.any():
            break
        z = np.where(low, z / u, z)
        shift = np.where(low, shift + 1.0, shift)
        u = start + shift
    t = u - 2.0
    near = np.log(np.abs(z)) + t * _polynomial(t, _B) / _monic(t, _C)
    big = np.where(small, 13.0, x)
    stirling = (big - 0.5) * np.log(big) - big + _LOG_SQRT_2PI
    p = 1.0 / (big * big)
    stirling = stirling + np.where(big > 1e8, 0.0, _polynomial(p, _A) / big)
    out: Array = np.where(small, near, stirling)
    return out


def _lgamma_numpy(x: Array) -> Array:
    with np.errstate(all="ignore"):
        pole = (x <= 0) & (x == np.floor(x))
        far = x < -34.0  # reflection: log |Gamma(x)| = log(pi / |sin(pi x)|) - log |Gamma(1 - x)|
        q = np.where(far, -x, 0.0)
        fraction = q - np.floor(q)
        fraction = np.where(fraction > 0.5, 1.0 - fraction, fraction)
        reflected = _LOG_PI - np.log(q * np.sin(math.pi * fraction)) - _lgamma_positive(np.where(far, q, 2.5))
        inside = _lgamma_positive(np.where(far | pole | ~np.isfinite(x), 2.5, x))
        out: Array = np.where(far, reflected, inside)
        out = np.where(pole | np.isinf(x), math.inf, out)
        out = np.where(np.isnan(x), x, out)
    return out


def lgamma(x: Array) -> Array:
    """``log |Gamma(x)|`` of float64 ``x``, as torch: ``inf`` at the poles (0, -1, -2, ...) and
    at ±inf, finite at the subnormals."""
    x = np.asarray(x, dtype=np.float64)
    special = scipy_special()
    out: Array = _lgamma_numpy(x) if special is None else special.gammaln(x)
    with np.errstate(divide="ignore"):
        # Gamma(x) = 1/x - Euler's gamma + O(x): near 0, where 1/x overflows, lgamma is -log |x|
        tiny = (np.abs(x) < 2.0**-60) & (x != 0)
        out = np.where(tiny, -np.log(np.abs(x)), out)
    return np.where(x == -math.inf, math.inf, out)

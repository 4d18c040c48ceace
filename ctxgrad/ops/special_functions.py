"""Special functions: the gamma family (``lgamma``, ``digamma``, ``polygamma``, the
incomplete gamma functions ``igamma``/``igammac``), ``erfinv``, the modified Bessel functions
(``i0``, ``i0e``, ``i1``, ``i1e``), the normal distribution's ``ndtri`` and ``log_ndtr``,
``sinc``, ``xlog1py`` and ``entr`` (``ctxgrad.special`` gives the last ones their names).

Each backward is written in ctxgrad ops, so that it can itself be differentiated."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from ctxgrad._dtypes import short_name
from ctxgrad._tensor import Tensor, as_tensor
from ctxgrad.autograd.batching import elementwise_rule
from ctxgrad.autograd.function import Function
from ctxgrad.autograd.inplace import write_in_place
from ctxgrad.ops import _special_kernels
from ctxgrad.ops._row import Op
from ctxgrad.ops._util import refuse_complex
from ctxgrad.ops.binary import _Binary
from ctxgrad.ops.pointwise import (
    _TWO_OVER_SQRT_PI,
    Cos,
    Exp,
    Log,
    Log1p,
    Sign,
    Where,
    _Elementwise,
    _floating,
    _in_float64,
    _mask,
    tensor_arg,
)


class Sinc(_Elementwise):
    """The normalised sinc, ``sin(pi x) / (pi x)`` (1 at 0); d/dx = (cos(pi x) - sinc x) / x (0 at 0)."""

    node_name = "SincBackward0"
    holomorphic = True
    ufunc = staticmethod(np.sinc)

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        zero = x.array == 0
        safe = Where.apply(_mask(zero), 1.0, x) if zero.any() else x
        d = (Cos.apply(safe * math.pi) - Sinc.apply(safe)) / safe
        return Where.apply(_mask(zero), 0.0, d) if zero.any() else d


class Lgamma(_Elementwise):
    """``log |Gamma(x)|``; d/dx = digamma(x)."""

    node_name = "LgammaBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        refuse_complex(ctx, x.array)
        ctx.save_for_backward(x)
        return as_tensor(_in_float64(_special_kernels.lgamma, _floating(x)))

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return Digamma.apply(x)


#: Bernoulli numbers B_2, B_4, ..., B_20: the asymptotic series of digamma and polygamma.
_BERNOULLI = (1 / 6, -1 / 30, 1 / 42, -1 / 30, 5 / 66, -691 / 2730, 7 / 6, -3617 / 510, 43867 / 798, -174611 / 330)
#: Where the asymptotic series are used; smaller arguments are first shifted up by recurrence.
_ASYMPTOTIC_FROM = 20.0


def _digamma(x: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """Digamma in float64, vectorised: reflection below 1/2 (``psi(1-x) - pi / tan(pi x)``),
    the recurrence ``psi(x) = psi(x+1) - 1/x`` up to 20, then the asymptotic series
    ``log x - 1/(2x) - sum B_2k / (2k x^2k)`` (about 1e-16 relative there).  As torch: -inf at
    0, +inf at -0, NaN at the negative integers (SciPy's ``psi`` from 0 up when it imports)."""
    x = np.asarray(x, dtype=np.float64)
    special = _special_kernels.scipy_special()
    if special is not None:  # (below 0, the reflection here: SciPy's loses digits near the poles)
        with np.errstate(all="ignore"):
            negative = x < 0
            psi: np.ndarray[Any, Any] = special.psi(np.where(negative, 1.0 - x, x))
            shift = math.pi / np.tan(math.pi * (x - np.round(x)))
            psi = np.where(negative, np.where(x == np.floor(x), math.nan, psi - shift), psi)
        return psi
    out = np.empty_like(x)
    with np.errstate(all="ignore"):
        reflect = x < 0.5
        z = np.where(reflect, 1.0 - x, x)
        acc = np.zeros_like(z)
        while True:
            small = z < _ASYMPTOTIC_FROM
            if not small.any():
                break
            acc = np.where(small, acc - 1.0 / z, acc)
            z = np.where(small, z + 1.0, z)
        inv2 = 1.0 / (z * z)
        series = np.zeros_like(z)
        power = inv2.copy()
        for k, b in enumerate(_BERNOULLI, start=1):
            series += b / (2 * k) * power
            power = power * inv2
        psi = np.log(z) - 0.5 / z - series + acc
        # tan(pi x) from the distance to the nearest integer: exact, where pi * x would not be
        out[...] = np.where(reflect, psi - math.pi / np.tan(math.pi * (x - np.round(x))), psi)
        out[x == 0] = np.where(np.signbit(x[x == 0]), math.inf, -math.inf)
        out[(x < 0) & (x == np.floor(x))] = math.nan
        out[x == math.inf] = math.inf
        out[x == -math.inf] = math.nan
    return out


def _polygamma(n: int, x: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """The ``n``-th derivative of digamma (``n >= 1``) in float64, vectorised: the recurrence
    ``psi_n(x) = psi_n(x+1) + (-1)^(n+1) n! / x^(n+1)`` up to 20, then the asymptotic series
    ``(-1)^(n+1) [(n-1)!/x^n + n!/(2 x^(n+1)) + sum B_2k (2k+n-1)! / ((2k)! x^(2k+n))]``.
    ``(-1)^(n+1) inf`` at the poles (0, -1, -2, ...), 0 at +inf, NaN at -inf."""
    if n == 0:
        return _digamma(x)
    x = np.asarray(x, dtype=np.float64)
    sign = 1.0 if n % 2 == 1 else -1.0
    poles = (x <= 0) & (x == np.floor(x)) & np.isfinite(x)
    special = _special_kernels.scipy_special()
    if special is not None:  # (SciPy's, with the values above at the poles and at -inf)
        values = special.polygamma(n, x)
        return np.where(poles, sign * math.inf, np.where(x == -math.inf, math.nan, values))
    with np.errstate(all="ignore"):
        z = np.where(x == -math.inf, math.nan, x)  # (-inf would never reach the series)
        acc = np.zeros_like(z)
        while True:
            small = z < _ASYMPTOTIC_FROM
            if not small.any():
                break
            acc = np.where(small, acc + math.factorial(n) / z ** (n + 1), acc)
            z = np.where(small, z + 1.0, z)
        series = math.factorial(n - 1) / z**n + math.factorial(n) / (2 * z ** (n + 1))
        for k, b in enumerate(_BERNOULLI, start=1):
            series += b * math.factorial(2 * k + n - 1) / math.factorial(2 * k) / z ** (2 * k + n)
        out = np.array(sign * (series + acc), dtype=np.float64)  # (an array also when 0-d)
        out[poles] = sign * math.inf
    result: np.ndarray[Any, Any] = out
    return result


class Digamma(_Elementwise):
    """The logarithmic derivative of Gamma, ``psi(x)``; d/dx = polygamma(1, x)."""

    node_name = "DigammaBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        refuse_complex(ctx, x.array)
        data = _floating(x)
        ctx.save_for_backward(x)
        return as_tensor(_digamma(data).astype(data.dtype, copy=False))

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return Polygamma.apply(x, 1)


class Polygamma(Function[Tensor]):
    """The ``n``-th derivative of digamma; d/dx polygamma(n, x) = polygamma(n + 1, x)."""

    vmap = elementwise_rule

    node_name = "PolygammaBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"n": "n", "self": 0}
    skips_without_gradient = True

    @staticmethod
    def forward(ctx: Any, x: Tensor, n: int) -> Tensor:
        if x.array.dtype.kind == "c":  # torch names the kernel of each order
            kernel = {0: "digamma", 1: "trigamma"}.get(n, "polygamma")
            raise NotImplementedError(f"\"{kernel}\" not implemented for '{short_name(x.array.dtype)}'")
        data = _floating(x)
        ctx.n = n
        ctx.save_for_backward(x)
        return as_tensor(_polygamma(n, data).astype(data.dtype, copy=False))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor, None]:
        (x,) = ctx.saved_tensors
        return grad * Polygamma.apply(x, ctx.n + 1), None

    @staticmethod
    def jvp(ctx: Any, tx: Tensor, _: None) -> Tensor:
        (x,) = ctx.saved_tensors
        return tx * Polygamma.apply(x, ctx.n + 1)


def _erfinv(y: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """The inverse error function in float64: Giles' approximation ("Approximating the erfinv
    function", 2010), then two Newton steps on ``erf(x) = y`` with the C library's ``erf``
    (about 1 ulp), or SciPy's ``erfinv`` when it imports.  ``+-inf`` at ``+-1``, NaN outside
    ``[-1, 1]``, ``-0`` at ``-0``, as torch."""
    y = np.asarray(y, dtype=np.float64)
    special = _special_kernels.scipy_special()
    if special is not None:
        values: np.ndarray[Any, Any] = np.where(y == 0, y, special.erfinv(y))
        return values
    with np.errstate(all="ignore"):
        w = -np.log((1.0 - y) * (1.0 + y))
        small = w < 5.0
        ws = w - 2.5
        ps: Any = 2.81022636e-08
        for c in (3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
                  -0.00417768164, 0.246640727, 1.50140941):  # fmt: skip
            ps = c + ps * ws
        wl = np.sqrt(w) - 3.0
        pl: Any = -0.000200214257
        for c in (0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
                  0.00943887047, 1.00167406, 2.83297682):  # fmt: skip
            pl = c + pl * wl
        x = np.where(small, ps, pl) * y
        inside = np.abs(y) < 1
        for _ in range(2):
            xi = np.where(inside & np.isfinite(x), x, 0.0)
            err = _special_kernels.erf(xi) - y
            x = np.where(inside, xi - err / (_TWO_OVER_SQRT_PI * np.exp(-xi * xi)), x)
        x = np.where(y == 1, math.inf, np.where(y == -1, -math.inf, x))
        out: np.ndarray[Any, Any] = np.where(np.abs(y) > 1, math.nan, x)
    return out


class Erfinv(_Elementwise):
    """The inverse of ``erf`` on ``(-1, 1)``; d/dx = sqrt(pi) / 2 * exp(erfinv(x)²) (the output is saved)."""

    node_name = "ErfinvBackward0"
    saves_output = True

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        refuse_complex(ctx, x.array)
        data = _floating(x)
        y = as_tensor(_erfinv(data).astype(data.dtype, copy=False))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        y: Tensor = ctx.saved_tensors[0]
        return Exp.apply(y * y) * (math.sqrt(math.pi) / 2)


def _bessel_i(nu: int, x: np.ndarray[Any, Any], scaled: bool) -> np.ndarray[Any, Any]:
    """The modified Bessel function ``I_nu(x)`` (``nu`` 0 or 1), times ``exp(-|x|)`` when
    ``scaled``, in float64: the power series ``sum (x/2)^(2k+nu) / (k! (k+nu)!)`` (positive
    terms, no cancellation) up to ``|x| = 50``, the asymptotic series
    ``e^|x| / sqrt(2 pi |x|) sum_k (-1)^k a_k(nu) / |x|^k`` beyond (its terms fall below 1e-17
    long before they grow again), or SciPy's ``i0``, ``i0e``, ``i1``, ``i1e`` when it imports.
    ``I_1`` is odd, ``I_0`` even."""
    x = np.asarray(x, dtype=np.float64)
    special = _special_kernels.scipy_special()
    if special is not None:
        kernel = getattr(special, f"i{nu}{'e' if scaled else ''}")
        values: np.ndarray[Any, Any] = kernel(x)
        return values
    ax = np.abs(x)
    out = np.empty_like(ax)
    with np.errstate(all="ignore"):
        small = ax <= 50.0
        z = np.where(small, ax, 0.0)
        half = z / 2
        term = half if nu else np.ones_like(z)
        total = term.copy()
        quarter = half * half
        for k in range(1, 200):  # at |x| = 50 the terms are below 1e-17 of the sum by k = 130
            term = term * quarter / (k * (k + nu))
            total = total + term
        out[small] = (total * np.exp(-z) if scaled else total)[small]
        big = ~small
        if big.any():
            zb = ax[big]
            mu = 4.0 * nu * nu
            series = np.ones_like(zb)
            coefficient = np.ones_like(zb)
            for k in range(1, 30):
                coefficient = coefficient * -(mu - (2 * k - 1) ** 2) / (k * 8.0 * zb)
                series = series + coefficient
            scale = series / np.sqrt(2 * math.pi * zb)
            out[big] = scale if scaled else scale * np.exp(zb)
        out[np.isnan(x)] = math.nan
    result: np.ndarray[Any, Any] = np.where(x < 0, -out, out) if nu else out
    return result


class _BesselI(_Elementwise):
    """A modified Bessel function of ``x`` (``nu`` and ``scaled`` say which); refuses complex
    input with torch's message, computes in float64 and rounds to the input's dtype."""

    nu: ClassVar[int]
    scaled: ClassVar[bool]
    kernel: ClassVar[str]

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        cls = ctx.forward_cls
        if x.array.dtype.kind == "c":
            raise NotImplementedError(f"\"{cls.kernel}\" not implemented for '{short_name(x.array.dtype)}'")
        data = _floating(x)
        ctx.save_for_backward(x)
        return as_tensor(_bessel_i(cls.nu, data, cls.scaled).astype(data.dtype, copy=False))


class I0(_BesselI):
    """The modified Bessel function of the first kind of order 0; d/dx = I_1(x)."""

    node_name = "I0Backward0"
    nu, scaled, kernel = 0, False, "i0_vml_cpu"

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        return I1.apply(x)


class I0e(_BesselI):
    """``exp(-|x|) I_0(x)``; d/dx = i1e(x) - sign(x) i0e(x)."""

    node_name = "SpecialI0EBackward0"
    nu, scaled, kernel = 0, True, "i0e_cpu"

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        out: Tensor = I1e.apply(x) - Sign.apply(x) * I0e.apply(x)
        return out


def _over_x(values: Tensor, x: Tensor, at_zero: float) -> Tensor:
    """``values / x``, with ``at_zero`` where ``x`` is 0 (the limit of I_1(x)/x is 1/2)."""
    zero = x.array == 0
    if not zero.any():
        out: Tensor = values / x
        return out
    safe = Where.apply(_mask(zero), 1.0, x)
    return Where.apply(_mask(zero), at_zero, values / safe)


class I1(_BesselI):
    """The modified Bessel function of the first kind of order 1; d/dx = I_0(x) - I_1(x) / x
    (1/2 at 0)."""

    node_name = "SpecialI1Backward0"
    nu, scaled, kernel = 1, False, "i1_cpu"

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        out: Tensor = I0.apply(x) - _over_x(I1.apply(x), x, 0.5)
        return out


class I1e(_BesselI):
    """``exp(-|x|) I_1(x)``; d/dx = i0e(x) - i1e(x) (sign(x) + 1 / x) (1/2 at 0)."""

    node_name = "SpecialI1EBackward0"
    nu, scaled, kernel = 1, True, "i1e_cpu"

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        i1e = I1e.apply(x)
        out: Tensor = I0e.apply(x) - Sign.apply(x) * i1e - _over_x(i1e, x, 0.5)
        return out


_LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)


def _log_ndtr(x: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """``log(ndtr(x))`` in float64: ``log(erfc(-x / sqrt 2) / 2)`` (the C library's erfc; above
    0, ``log1p(-erfc(x / sqrt 2) / 2)``) down to -30, and below, the asymptotic series
    ``-x²/2 - log(-x) - log(2 pi)/2 + log(1 - 1/x² + 3/x⁴ - ...)`` (its eighth term is 1e-17 of
    the first there); SciPy's ``log_ndtr`` when it imports."""
    x = np.asarray(x, dtype=np.float64)
    special = _special_kernels.scipy_special()
    if special is not None:
        values: np.ndarray[Any, Any] = special.log_ndtr(x)
        return values
    with np.errstate(all="ignore"):
        near = np.where(x >= -30.0, x, 0.0)
        # above 0, log1p of the (small) upper tail keeps its digits
        tail = _special_kernels.erfc(np.abs(near) / math.sqrt(2.0)) / 2
        out = np.where(near > 0, np.log1p(-tail), np.log(tail))
        far = x < -30.0
        if far.any():
            z = x[far]
            inv2 = 1.0 / (z * z)
            series, term = np.ones_like(z), np.ones_like(z)
            for k in range(1, 9):
                term = -term * (2 * k - 1) * inv2
                series = series + term
            out[far] = -0.5 * z * z - np.log(-z) - _LOG_SQRT_2PI + np.log(series)
        out[np.isnan(x)] = math.nan
    return out


class LogNdtr(_Elementwise):
    """``log`` of the standard normal distribution function, accurate far in the left tail;
    d/dx = exp(-x²/2 - log_ndtr(x)) / sqrt(2 pi) (the output is saved)."""

    node_name = "SpecialLogNdtrBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        if x.array.dtype.kind == "c" or x.array.dtype == np.float16:
            raise NotImplementedError(f"\"log_ndtr_cpu\" not implemented for '{short_name(x.array.dtype)}'")
        data = _floating(x)
        y = as_tensor(_log_ndtr(data).astype(data.dtype, copy=False))
        ctx.save_for_backward(x, y)
        return y

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x, y = ctx.saved_tensors
        return Exp.apply(x * x * -0.5 - y) * (1 / math.sqrt(2 * math.pi))


def _ndtri(p: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """The standard normal quantile in float64: ``sqrt 2 erfinv(2p - 1)`` for p in [1/4, 3/4];
    in the tails, a start from Abramowitz and Stegun 26.2.23 (error < 4.5e-4) on the smaller
    tail, then three Newton steps on ``log ndtr(x) = log q`` (quadratic convergence: 4.5e-4,
    1e-7, 1e-14, an ulp).  ``-inf`` at 0, ``inf`` at 1, NaN
    outside [0, 1]; SciPy's ``ndtri`` when it imports."""
    p = np.asarray(p, dtype=np.float64)
    special = _special_kernels.scipy_special()
    if special is not None:
        values: np.ndarray[Any, Any] = special.ndtri(p)
        return values
    with np.errstate(all="ignore"):
        lower = p < 0.5
        q = np.where(lower, p, 1.0 - p)  # the smaller tail
        inside = (q > 0) & (q <= 0.5)
        qs = np.where(inside, q, 0.25)
        t = np.sqrt(-2.0 * np.log(qs))
        x = -(
            t - (2.515517 + 0.802853 * t + 0.010328 * t * t) / (1 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t**3)
        )
        log_q = np.log(qs)
        for _ in range(3):
            log_phi = -0.5 * x * x - _LOG_SQRT_2PI
            log_cdf = _log_ndtr(x)
            x = x - (log_cdf - log_q) * np.exp(log_cdf - log_phi)
        out = np.where(lower, x, -x)
        # the middle, where 2p - 1 is exact: erfinv (Newton above would lose digits near 1/2)
        middle = (p >= 0.25) & (p <= 0.75)
        if middle.any():
            out[middle] = math.sqrt(2.0) * _erfinv(2.0 * p[middle] - 1.0)
        out = np.where(p == 0, -math.inf, np.where(p == 1, math.inf, out))
        result: np.ndarray[Any, Any] = np.where((p < 0) | (p > 1) | np.isnan(p), math.nan, out)
    return result


class Ndtri(_Elementwise):
    """The inverse of ``ndtr``: ``x`` with ``ndtr(x) = p``; d/dp = sqrt(2 pi) exp(x²/2) (the
    output is saved)."""

    node_name = "SpecialNdtriBackward0"
    saves_output = True

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        if x.array.dtype.kind == "c" or x.array.dtype == np.float16:
            raise NotImplementedError(f"\"ndtri_cpu\" not implemented for '{short_name(x.array.dtype)}'")
        data = _floating(x)
        y = as_tensor(_ndtri(data).astype(data.dtype, copy=False))
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        y: Tensor = ctx.saved_tensors[0]
        return Exp.apply(y * y * 0.5) * math.sqrt(2 * math.pi)


def _xlog1py(x: Any, y: Any) -> Any:
    """``x * log1p(y)``, 0 where ``x`` is 0 (unless ``y`` is NaN), as torch."""
    return np.where((x == 0) & ~np.isnan(y), 0.0, x * np.log1p(y)).astype(np.result_type(x, y))


class Xlog1py(_Binary):
    """``x * log1p(y)``, 0 where ``x == 0`` (``ctxgrad.special.xlog1py``); d/dx = log1p(y) (also
    at x == 0, as torch), d/dy = x / (1 + y)."""

    node_name = "SpecialXlog1pyBackward0"
    floating = True
    call = staticmethod(_xlog1py)

    @staticmethod
    def partials(ctx: Any, a: Tensor, b: Tensor) -> tuple[Tensor, Tensor]:
        return Log1p.apply(b), a / (1 + b)


def log_gamma(a: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """``log |Gamma(a)|`` in float64 (``inf`` at the poles)."""
    return _special_kernels.lgamma(a)


#: A bound on the terms of either expansion (reached only by non-finite input: both converge
#: within a few hundred terms for alpha up to 1e6).
_MAX_TERMS = 100_000


def incomplete_gamma_sums(a: np.ndarray[Any, Any], x: np.ndarray[Any, Any], upper: np.ndarray[Any, Any]) -> Any:
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


def _igamma_of(upper: bool) -> Callable[[Any, Any], Any]:
    """``P(a, x)`` (``Q(a, x) = 1 - P`` with ``upper``) elementwise, with torch's values at the
    edges: NaN for a negative or NaN argument and for ``a == x == 0``; all of the mass below
    ``x`` when ``a == 0`` or ``x == inf``, none when ``x == 0`` or ``a == inf``.  Inside,
    whichever of ``P`` and ``Q`` has the fast, cancellation-free expansion on its side of
    ``x = a + 1`` is summed, and the other is one minus it."""

    def call(a: Any, x: Any) -> Any:
        a64, x64 = np.broadcast_arrays(np.asarray(a, dtype=np.float64), np.asarray(x, dtype=np.float64))
        p = np.full(a64.shape, np.nan)
        with np.errstate(invalid="ignore"):
            p[((a64 == 0) & (x64 > 0)) | (np.isposinf(x64) & (a64 >= 0))] = 1.0
            p[((x64 == 0) & (a64 > 0)) | (np.isposinf(a64) & (x64 >= 0) & np.isfinite(x64))] = 0.0
            inside = (a64 > 0) & (x64 > 0) & np.isfinite(a64) & np.isfinite(x64)
        out = 1.0 - p if upper else p
        if inside.any():
            ai, xi = a64[inside], x64[inside]
            summed_upper = xi >= ai + 1.0  # (the one that is summed is exact; 1 - it may not be)
            s = np.exp(ai * np.log(xi) - xi - log_gamma(ai)) * incomplete_gamma_sums(ai, xi, summed_upper)
            out[inside] = np.where(summed_upper == upper, s, 1.0 - s)
        return out.astype(np.result_type(a, x), copy=False)

    return call


class Igamma(_Binary):
    """The regularized lower incomplete gamma function ``P(a, x)`` (torch's ``igamma``,
    ``special.gammainc``); d/dx = ``x**(a-1) e**-x / Gamma(a)``; torch has no derivative in
    ``a`` (NotImplementedError when one is needed)."""

    node_name = "IgammaBackward0"
    saved_fields: ClassVar[dict[str, Any]] = {"self": 0, "other": 1}
    floating_only = True
    kernel = "igamma_cpu"
    call = staticmethod(_igamma_of(upper=False))
    sign: ClassVar[float] = 1.0

    @staticmethod
    def partials(ctx: Any, a: Tensor, x: Tensor) -> tuple[Tensor, Tensor]:
        if ctx.needs_input_grad[0]:
            raise NotImplementedError(f"the derivative for '{ctx.forward_cls.kernel[:-4]}: input' is not implemented.")
        density = ((a - 1) * Log.apply(x) - x - Lgamma.apply(a)).exp()
        return density, density * ctx.forward_cls.sign


class Igammac(Igamma):
    """The regularized upper incomplete gamma function ``Q(a, x) = 1 - P(a, x)`` (torch's
    ``igammac``, ``special.gammaincc``); d/dx = ``-x**(a-1) e**-x / Gamma(a)``."""

    node_name = "IgammacBackward0"
    kernel = "igammac_cpu"
    call = staticmethod(_igamma_of(upper=True))
    sign = -1.0


class Entr(_Elementwise):
    """The entropy term ``-x log x`` (``ctxgrad.special.entr``): 0 at 0, -inf below 0;
    d/dx = -(1 + log x)."""

    node_name = "SpecialEntrBackward0"

    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        data = x.array
        if data.dtype.kind == "c":
            raise NotImplementedError(f"\"entr_cpu\" not implemented for '{short_name(data.dtype)}'")
        data = _floating(x)
        ctx.save_for_backward(x)
        with np.errstate(all="ignore"):
            out = np.where(data > 0, -data * np.log(data), np.where(data == 0, 0.0, -np.inf))
        return as_tensor(np.where(np.isnan(data), data, out).astype(data.dtype))

    @staticmethod
    def derivative(ctx: Any) -> Tensor:
        x: Tensor = ctx.saved_tensors[0]
        out: Tensor = -(1 + Log.apply(x))
        return out


# --------------------------------------------------------------------------- argument handlers and frontends
def _order(n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)):
        raise TypeError(f"polygamma(): argument 'n' (position 1) must be int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return int(n)


def polygamma_args(name: str, n: int, input: Tensor) -> tuple[Tensor, int]:
    """``polygamma``'s arguments: torch's function takes the order ``n`` first."""
    return input, _order(n)


def polygamma_method(input: Tensor, n: int) -> Tensor:
    """Elementwise ``n``-th derivative of :func:`digamma` (the method takes ``n`` second)."""
    return Polygamma.apply(input, _order(n))


class PolygammaInPlace(Polygamma):
    """``polygamma_``: torch names its node apart."""

    node_name = "PolygammaBackward1"


def polygamma_(input: Tensor, n: int) -> Tensor:
    """In place: elementwise ``n``-th derivative of :func:`digamma` (torch's node: ``PolygammaBackward1``)."""
    return write_in_place(PolygammaInPlace, input, _order(n))


def igamma_args(name: str, input: Tensor, other: Tensor) -> tuple[Tensor, Tensor]:
    """The operands of ``igamma`` and ``igammac``, after torch's TypeError for ``other`` not a
    tensor (position 2 in the function, 1 in the in-place method)."""
    return input, tensor_arg(name, "other", 1 if name.endswith("_") else 2, other)


# --------------------------------------------------------------------------- rows
#: The rows of this module's ops (``ctxgrad.ops._row``), gathered by ``ctxgrad.ops.table``.
ROWS: list[Op] = [
    Op("sinc", Sinc, inplace=True, out=True),
    Op("lgamma", Lgamma, inplace=True, out=True),
    Op("digamma", Digamma, inplace=True, out=True),
    Op(
        "polygamma",
        Polygamma,
        args=polygamma_args,
        method_frontend=polygamma_method,
        inplace=polygamma_,
        out=True,
    ),
    Op("erfinv", Erfinv, inplace=True, out=True),
    Op("i0", I0, inplace=True, out=True),
    Op("igamma", Igamma, args=igamma_args, inplace=True, out=True),
    Op("igammac", Igammac, args=igamma_args, inplace=True, out=True),
]

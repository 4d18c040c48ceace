"""``ctxgrad.special``: torch.special's functions, with gradients.

Most are the ops of the table under torch.special's names (``expit`` is ``sigmoid``,
``gammaln`` is ``lgamma``, ``psi`` is ``digamma``); ``xlog1py`` and ``entr`` are ops of their
own, and ``ndtr`` and ``multigammaln`` are written with other ops.

>>> import ctxgrad
>>> x = ctxgrad.tensor([0.0, 0.5, 1.0], requires_grad=True)
>>> ctxgrad.special.entr(x)
tensor([0.0000, 0.3466, -0.0000], grad_fn=<SpecialEntrBackward0>)
>>> ctxgrad.special.ndtr(ctxgrad.tensor([0.0, 1.0]))
tensor([0.5000, 0.8413])
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from ctxgrad import _made_functions as _made
from ctxgrad._dtypes import get_default_dtype
from ctxgrad._surface import add_out as _add_out
from ctxgrad._tensor import Tensor, as_tensor
from ctxgrad.ops import pointwise as _pointwise
from ctxgrad.ops import special_functions as _special
from ctxgrad.ops.pointwise import round
from ctxgrad.ops.special_functions import I1, Entr, I0e, I1e, LogNdtr, Ndtri, Xlog1py
from ctxgrad.ops.table import frontend as _frontend

__all__ = [
    "digamma", "entr", "erf", "erfc", "erfinv", "exp2", "expit", "expm1", "gammainc", "gammaincc", "gammaln", "i0",
    "i0e", "i1", "i1e", "log1p",
    "log_ndtr", "log_softmax", "logit", "logsumexp", "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round",
    "sinc", "softmax", "xlog1py", "xlogy",
]  # fmt: skip

#: torch.special's names for ops of the table (the same functions as ``ctxgrad.erf``, ...).
digamma = _made.digamma
erf = _made.erf
erfc = _made.erfc
erfinv = _made.erfinv
exp2 = _made.exp2
expm1 = _made.expm1
log1p = _made.log1p
logit = _made.logit
sinc = _made.sinc
logsumexp = _made.logsumexp
polygamma = _made.polygamma
xlogy = _made.xlogy
softmax: Callable[..., Tensor] = _frontend("softmax")
log_softmax: Callable[..., Tensor] = _frontend("log_softmax")
_igamma: Callable[..., Tensor] = _frontend("igamma")
_igammac: Callable[..., Tensor] = _frontend("igammac")


def expit(input: Tensor) -> Tensor:
    """The logistic sigmoid, ``1 / (1 + exp(-x))``: torch.special's name for ``sigmoid``."""
    return _pointwise.Sigmoid.apply(input)


def gammaln(input: Tensor) -> Tensor:
    """``log |Gamma(x)|``: torch.special's name for ``lgamma``."""
    return _special.Lgamma.apply(input)


def gammainc(input: Tensor, other: Tensor) -> Tensor:
    """The regularized lower incomplete gamma function: torch.special's name for ``igamma``."""
    return _igamma(input, other)


def gammaincc(input: Tensor, other: Tensor) -> Tensor:
    """The regularized upper incomplete gamma function: torch.special's name for ``igammac``."""
    return _igammac(input, other)


def psi(input: Tensor) -> Tensor:
    """The digamma function: torch.special's second name for ``digamma``."""
    return _special.Digamma.apply(input)


def xlog1py(input: Any, other: Any) -> Tensor:
    """Elementwise ``input * log1p(other)``, 0 where ``input`` is 0 (either may be a number)."""
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise TypeError("xlog1py(): at least one of 'input' and 'other' must be a Tensor")
    return Xlog1py.apply(_pointwise.number_or_tensor(input), _pointwise.number_or_tensor(other))


def entr(input: Tensor) -> Tensor:
    """Elementwise entropy term ``-x log x`` (0 at 0, -inf below 0)."""
    return Entr.apply(input)


def i0(input: Tensor) -> Tensor:
    """The modified Bessel function of the first kind of order 0 (``ctxgrad.i0``)."""
    return _special.I0.apply(input)


def i0e(input: Tensor) -> Tensor:
    """``exp(-|x|) i0(x)``, finite where ``i0`` overflows."""
    return I0e.apply(input)


def i1(input: Tensor) -> Tensor:
    """The modified Bessel function of the first kind of order 1."""
    return I1.apply(input)


def i1e(input: Tensor) -> Tensor:
    """``exp(-|x|) i1(x)``, finite where ``i1`` overflows."""
    return I1e.apply(input)


def log_ndtr(input: Tensor) -> Tensor:
    """``log(ndtr(x))``, accurate far in the left tail (where ``ndtr`` underflows)."""
    return LogNdtr.apply(input)


def ndtri(input: Tensor) -> Tensor:
    """The standard normal quantile: the ``x`` with ``ndtr(x) = p``."""
    return Ndtri.apply(input)


def ndtr(input: Tensor) -> Tensor:
    """The standard normal distribution function, ``(1 + erf(x / sqrt 2)) / 2``, computed as
    ``erfc(-x / sqrt 2) / 2`` (accurate in the far left tail)."""
    out: Tensor = erfc(input * (-1.0 / math.sqrt(2.0))) * 0.5
    return out


def multigammaln(input: Tensor, p: int) -> Tensor:
    """The log of the multivariate gamma function of dimension ``p``:
    ``p (p - 1) / 4 log(pi) + sum_j lgamma(x - j / 2)`` (defined for ``x > (p - 1) / 2``; as
    torch, other values are not refused)."""
    if input.array.dtype == np.bool_:
        raise RuntimeError("The input tensor may not be a boolean tensor.")
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    x = input if input.array.dtype.kind == "f" else input.to(get_default_dtype())
    offsets = as_tensor(-np.arange(p, dtype=x.array.dtype) / 2)
    total: Tensor = _special.Lgamma.apply(x.unsqueeze(-1) + offsets).sum(-1)
    out: Tensor = total + p * (p - 1) / 4 * math.log(math.pi)
    return out


# torch's ``out=`` on every function here but the two torch gives none (the ops of the table
# above have it already, as ``ctxgrad.erf`` has).
_add_out(globals(), (name for name in __all__ if name not in ("softmax", "log_softmax")))

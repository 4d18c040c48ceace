"""Activation functions as ``torch.nn.functional`` has them (``import ctxgrad.nn.functional as F``).

``leaky_relu``, ``elu``, ``gelu``, ``silu`` and ``softplus`` exist only here, as in torch;
``relu``, ``sigmoid``, ``tanh``, ``softmax`` and ``log_softmax`` are the same ops as
``ctxgrad.relu`` and friends.  Each is an
ordinary :class:`~ctxgrad.autograd.Function` in :mod:`ctxgrad.ops.pointwise`, with a backward
that can itself be differentiated and a ``jvp`` for forward mode.

``inplace=True`` is accepted only where ctxgrad has the in-place op (``relu``); elsewhere it
raises ``NotImplementedError``.
"""

from __future__ import annotations

from typing import Any

from ctxgrad._tensor import Tensor
from ctxgrad.ops import pointwise as _pointwise

__all__ = ["elu", "gelu", "leaky_relu", "log_softmax", "relu", "sigmoid", "silu", "softmax", "softplus", "tanh"]


def _no_inplace(name: str) -> None:
    raise NotImplementedError(f"ctxgrad.nn.functional.{name}: inplace=True is not supported; use the result instead")


def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """Elementwise ``max(x, 0)``."""
    if inplace:
        relu_ = getattr(input, "relu_", None)
        if relu_ is None:
            _no_inplace("relu")
        out: Tensor = relu_()  # type: ignore[misc]
        return out
    return _pointwise.Relu.apply(input)


def sigmoid(input: Tensor) -> Tensor:
    """Elementwise logistic sigmoid ``1 / (1 + e ** -x)``."""
    return _pointwise.Sigmoid.apply(input)


def tanh(input: Tensor) -> Tensor:
    """Elementwise hyperbolic tangent."""
    return _pointwise.Tanh.apply(input)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """Elementwise ``x`` for ``x > 0``, else ``negative_slope * x``."""
    if inplace:
        _no_inplace("leaky_relu")
    return _pointwise.LeakyRelu.apply(input, float(negative_slope))


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """Elementwise ``x`` for ``x > 0``, else ``alpha * (e ** x - 1)``."""
    if inplace:
        _no_inplace("elu")
    return _pointwise.Elu.apply(input, float(alpha))


def gelu(input: Tensor, *, approximate: str = "none") -> Tensor:
    """Elementwise ``x * Φ(x)``, Φ the standard normal CDF; ``approximate='tanh'`` uses
    ``x/2 * (1 + tanh(sqrt(2/π) (x + 0.044715 x³)))``."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return _pointwise.Gelu.apply(input, approximate)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """Elementwise ``x * sigmoid(x)`` (also called swish)."""
    if inplace:
        _no_inplace("silu")
    return _pointwise.Silu.apply(input)


def softplus(input: Tensor, beta: Any = 1.0, threshold: Any = 20.0) -> Tensor:
    """Elementwise ``log(1 + e ** (beta x)) / beta``; ``x`` itself where ``beta x > threshold``."""
    return _pointwise.Softplus.apply(input, float(beta), float(threshold))



def _implicit_dim(name: str, ndim: int, stacklevel: int) -> int:
    """torch's deprecated choice of dim when none is given (0 for 0-, 1- and 3-D, else 1)."""
    import warnings

    warnings.warn(
        f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X as an "
        "argument.",
        UserWarning,
        stacklevel=stacklevel,
    )
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    """``exp(x) / exp(x).sum(dim)``, computed stably, along ``dim``."""
    if dim is None:
        dim = _implicit_dim("softmax", input.ndim, _stacklevel)
    return input.softmax(dim, dtype=dtype)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype: Any = None) -> Tensor:
    """``log(softmax(x))``, computed stably, along ``dim``."""
    if dim is None:
        dim = _implicit_dim("log_softmax", input.ndim, _stacklevel)
    return input.log_softmax(dim, dtype=dtype)

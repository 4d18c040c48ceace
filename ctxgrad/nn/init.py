"""Weight initialisation, as ``torch.nn.init``: each function fills a tensor in place (without
recording the change for autograd) and returns it.

The distributions and their bounds are torch's; the numbers come from ctxgrad's generator
(seeded by ``ctxgrad.manual_seed``), so they differ from torch's numbers for the same seed.

>>> import ctxgrad
>>> from ctxgrad import nn
>>> w = ctxgrad.empty(256, 128)
>>> _ = nn.init.xavier_uniform_(w)
>>> bound = (6 / (256 + 128)) ** 0.5
>>> bool(w.abs().max() <= bound)
True
"""

from __future__ import annotations

import functools
import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

from ctxgrad import _factories
from ctxgrad._tensor import Tensor, as_tensor
from ctxgrad.autograd.grad_mode import no_grad

__all__ = [
    "calculate_gain",
    "constant",
    "constant_",
    "dirac",
    "dirac_",
    "eye",
    "eye_",
    "kaiming_normal",
    "kaiming_normal_",
    "kaiming_uniform",
    "kaiming_uniform_",
    "normal",
    "normal_",
    "ones_",
    "orthogonal",
    "orthogonal_",
    "trunc_normal_",
    "uniform",
    "uniform_",
    "xavier_normal",
    "xavier_normal_",
    "xavier_uniform",
    "xavier_uniform_",
    "zeros_",
]

_LINEAR_FNS = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d")


def calculate_gain(nonlinearity: str, param: float | None = None) -> float:
    """The recommended scale of the weights in front of ``nonlinearity`` (torch's table):
    1 for linear layers and sigmoid (the int 1, as torch returns it), 5/3 for tanh, √2 for
    relu, √(2 / (1 + slope²)) for leaky_relu (slope ``param``, default 0.01), 3/4 for selu."""
    if nonlinearity in _LINEAR_FNS or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            slope = float(param)
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _generator(generator: Any) -> np.random.Generator:
    if generator is None:
        return _factories.rng(None, "init")
    if isinstance(generator, np.random.Generator):
        return generator
    return _factories.rng(generator, "init")


def _fill(tensor: Tensor, values: Any) -> Tensor:
    """Write ``values`` into ``tensor`` in place, unrecorded (the version counter still moves)."""
    with no_grad():
        tensor.copy_(as_tensor(np.asarray(values, dtype=tensor.dtype)))
    return tensor


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    """``(fan_in, fan_out)``: ``size(1)`` and ``size(0)`` times the receptive field (the product of
    the remaining dimensions, for convolution kernels)."""
    if tensor.ndim < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive = int(np.prod(tensor.shape[2:])) if tensor.ndim > 2 else 1
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _calculate_correct_fan(tensor: Tensor, mode: str) -> int:
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Any = None) -> Tensor:
    """Fill with samples from U(a, b)."""
    return _fill(tensor, _generator(generator).uniform(a, b, tensor.shape))


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator: Any = None) -> Tensor:
    """Fill with samples from N(mean, std²)."""
    return _fill(tensor, _generator(generator).normal(mean, std, tensor.shape))


def trunc_normal_(
    tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0, generator: Any = None
) -> Tensor:
    """Fill with samples from N(mean, std²) truncated to [a, b] (redrawn until inside)."""
    rng = _generator(generator)
    values = rng.normal(mean, std, tensor.shape)
    outside = (values < a) | (values > b)
    while outside.any():
        values[outside] = rng.normal(mean, std, int(outside.sum()))
        outside = (values < a) | (values > b)
    return _fill(tensor, values)


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fill with ``val``."""
    return _fill(tensor, np.full(tensor.shape, val))


def ones_(tensor: Tensor) -> Tensor:
    """Fill with ones."""
    return constant_(tensor, 1.0)


def zeros_(tensor: Tensor) -> Tensor:
    """Fill with zeros."""
    return constant_(tensor, 0.0)


def eye_(tensor: Tensor) -> Tensor:
    """Fill a 2-D tensor with the identity matrix (ones on the diagonal)."""
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _fill(tensor, np.eye(*tensor.shape))


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Fill a 3-, 4- or 5-D convolution weight with the Dirac delta: each of the ``groups``
    groups passes its input channels through unchanged (the filters keep the identity)."""
    if tensor.ndim not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    out_channels = tensor.shape[0]
    if out_channels % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = out_channels // groups
    values = np.zeros(tensor.shape)
    centre = tuple(k // 2 for k in tensor.shape[2:])
    for g in range(groups):
        for d in range(min(per_group, tensor.shape[1])):
            values[(g * per_group + d, d) + centre] = 1
    return _fill(tensor, values)


def orthogonal_(tensor: Tensor, gain: float = 1, generator: Any = None) -> Tensor:
    """Fill with a (semi-)orthogonal matrix times ``gain``: the Q of a standard normal matrix's
    QR decomposition, its columns' signs made those of R's diagonal (so the draw is uniform
    over orthogonal matrices); dimensions after the first are flattened, as in torch."""
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    flat = _generator(generator).normal(0.0, 1.0, (rows, cols))
    if rows < cols:
        flat = flat.T
    q, r = np.linalg.qr(flat)
    q = q * np.sign(np.diag(r))
    if rows < cols:
        q = q.T
    return _fill(tensor, gain * q.reshape(tensor.shape))


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """Glorot uniform: U(-a, a) with ``a = gain * sqrt(6 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Any = None) -> Tensor:
    """Glorot normal: N(0, std²) with ``std = gain * sqrt(2 / (fan_in + fan_out))``."""
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


def kaiming_uniform_(
    tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu", generator: Any = None
) -> Tensor:
    """He uniform: U(-bound, bound) with ``bound = gain * sqrt(3 / fan)``, ``gain =
    calculate_gain(nonlinearity, a)`` and ``fan`` the fan-in or fan-out (``mode``)."""
    if 0 in tensor.shape:
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    bound = math.sqrt(3.0) * gain / math.sqrt(fan)
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(
    tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu", generator: Any = None
) -> Tensor:
    """He normal: N(0, std²) with ``std = gain / sqrt(fan)``."""
    if 0 in tensor.shape:
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    return normal_(tensor, 0.0, std, generator)


def _deprecated_alias(new: Callable[..., Tensor]) -> Callable[..., Tensor]:
    """torch's old name for an initialiser (``constant`` for ``constant_``): the same function,
    after torch's ``FutureWarning``."""
    old_name = new.__name__[:-1]

    @functools.wraps(new)
    def old(*args: Any, **kwargs: Any) -> Tensor:
        warnings.warn(
            f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new.__name__}`.", FutureWarning, stacklevel=2
        )
        return new(*args, **kwargs)

    old.__name__ = old.__qualname__ = old_name
    old.__doc__ = f"Deprecated: :func:`{new.__name__}`, with torch's ``FutureWarning``."
    return old


uniform = _deprecated_alias(uniform_)
normal = _deprecated_alias(normal_)
constant = _deprecated_alias(constant_)
eye = _deprecated_alias(eye_)
dirac = _deprecated_alias(dirac_)
xavier_uniform = _deprecated_alias(xavier_uniform_)
xavier_normal = _deprecated_alias(xavier_normal_)
kaiming_uniform = _deprecated_alias(kaiming_uniform_)
kaiming_normal = _deprecated_alias(kaiming_normal_)
orthogonal = _deprecated_alias(orthogonal_)

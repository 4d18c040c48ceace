"""Gradient clipping, applied in place to the ``.grad`` of parameters (between ``backward()``
and the optimizer's ``step()``).

>>> import ctxgrad
>>> from ctxgrad import nn
>>> w = nn.Parameter(ctxgrad.zeros(2))
>>> (w * ctxgrad.tensor([3.0, 4.0])).sum().backward()
>>> nn.utils.clip_grad_norm_([w], max_norm=1.0)
tensor(5.)
>>> w.grad
tensor([0.6000, 0.8000])
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np

from ctxgrad._tensor import Tensor, as_tensor
from ctxgrad.autograd.grad_mode import no_grad

__all__ = ["clip_grad_norm_", "clip_grad_value_"]


def _grads(parameters: Tensor | Iterable[Tensor]) -> list[Tensor]:
    params = [parameters] if isinstance(parameters, Tensor) else list(parameters)
    return [p.grad for p in params if p.grad is not None]


def clip_grad_norm_(
    parameters: Tensor | Iterable[Tensor],
    max_norm: float,
    norm_type: float = 2.0,
    error_if_nonfinite: bool = False,
    foreach: bool | None = None,
) -> Tensor:
    """Scale all gradients together so that their joint ``norm_type``-norm (the norm of the
    vector of every gradient entry) is at most ``max_norm``; return that norm before clipping.

    The scale is ``max_norm / (total_norm + 1e-6)``, applied only when below 1, as in torch.
    """
    grads = _grads(parameters)
    norm_type = float(norm_type)
    if not grads:
        return as_tensor(0.0)
    with no_grad():
        if norm_type == float("inf"):
            norms: list[Tensor] = [g.abs().max() for g in grads]
            total: Tensor = norms[0] if len(norms) == 1 else _stack(norms).max()
        else:
            norms = [g.norm(norm_type) for g in grads]
            total = _stack(norms).norm(norm_type)
        if error_if_nonfinite and not bool(np.isfinite(total.numpy()).all()):
            raise RuntimeError(
                f"The total norm of order {norm_type} for gradients from `parameters` is non-finite, so it cannot "
                "be clipped. To disable this error and scale the gradients by the non-finite norm anyway, set "
                "`error_if_nonfinite=False`"
            )
        coef = (max_norm / (total + 1e-6)).clamp(max=1.0)
        for g in grads:
            g.mul_(coef.to(g.dtype))
    return total


def clip_grad_value_(parameters: Tensor | Iterable[Tensor], clip_value: float, foreach: bool | None = None) -> None:
    """Clamp every gradient entry into ``[-clip_value, clip_value]``, in place."""
    with no_grad():
        for g in _grads(parameters):
            g.clamp_(min=-clip_value, max=clip_value)


def _stack(tensors: list[Tensor]) -> Tensor:
    from ctxgrad._made_functions import stack

    out: Tensor = stack(tensors)
    return out

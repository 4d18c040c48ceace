"""AdamW: Adam with decoupled weight decay."""

from __future__ import annotations

from typing import Any

from ctxgrad._tensor import Tensor
from ctxgrad.optim.adam import Adam
from ctxgrad.optim.optimizer import ParamsT

__all__ = ["AdamW"]


class AdamW(Adam):
    r"""AdamW, as ``torch.optim.AdamW``: :class:`Adam` with ``decoupled_weight_decay=True``.

    Weight decay shrinks the parameter directly (``theta *= 1 - lr * weight_decay``) before
    the Adam update, instead of being added to the gradient, so it does not pass through the
    moment averages. The default ``weight_decay`` is 1e-2.

    >>> import ctxgrad
    >>> w = ctxgrad.tensor([1.0], requires_grad=True)
    >>> opt = ctxgrad.optim.AdamW([w], lr=0.1, weight_decay=0.5)
    >>> w.grad = ctxgrad.tensor([0.0])
    >>> opt.step()                     # zero gradient: only the decay acts
    >>> w
    tensor([0.9500], requires_grad=True)
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float | Tensor = 1e-3,
        betas: tuple[float | Tensor, float | Tensor] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 1e-2,
        amsgrad: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        super().__init__(
            params,
            lr,
            betas,
            eps,
            weight_decay,
            amsgrad,
            foreach=foreach,
            maximize=maximize,
            capturable=capturable,
            differentiable=differentiable,
            fused=fused,
            decoupled_weight_decay=True,
        )

    def __setstate__(self, state: dict[str, Any]) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group["decoupled_weight_decay"] = True

"""Stochastic gradient descent, optionally with momentum, Nesterov momentum and weight decay."""

from __future__ import annotations

from typing import Any

from ctxgrad._tensor import Tensor
from ctxgrad.optim.optimizer import Optimizer, ParamsT, _check_no_unsupported, _to_scalar

__all__ = ["SGD"]


class SGD(Optimizer):
    r"""Stochastic gradient descent, as ``torch.optim.SGD``.

    For each parameter :math:`\theta` with gradient :math:`g`, one step does::

        g = -g                              if maximize
        g = g + weight_decay * theta        if weight_decay != 0
        if momentum != 0:
            b = g                           on the first step
            b = momentum * b + (1 - dampening) * g   afterwards
            g = g + momentum * b            if nesterov, else g = b
        theta = theta - lr * g

    The momentum buffer ``b`` is kept in ``state[theta]["momentum_buffer"]``.

    Args:
        params: tensors or parameter groups to optimize.
        lr: learning rate (default 1e-3).
        momentum: momentum factor (default 0).
        dampening: dampening of the momentum (default 0).
        weight_decay: L2 penalty (default 0).
        nesterov: use Nesterov momentum (needs ``momentum > 0`` and ``dampening == 0``).
        maximize: ascend the objective instead of descending it.
        foreach, differentiable, fused: accepted for torch compatibility; ``differentiable``
            and ``fused`` must stay at their defaults.

    >>> import ctxgrad
    >>> w = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    >>> opt = ctxgrad.optim.SGD([w], lr=0.1, momentum=0.9)
    >>> for _ in range(2):
    ...     opt.zero_grad()
    ...     (w * w).sum().backward()
    ...     opt.step()
    >>> w
    tensor([0.4600, 0.9200], requires_grad=True)
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float | Tensor = 1e-3,
        momentum: float = 0,
        dampening: float = 0,
        weight_decay: float | Tensor = 0,
        nesterov: bool = False,
        *,
        maximize: bool = False,
        foreach: bool | None = None,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        _check_no_unsupported("SGD", differentiable=differentiable, fused=fused)
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "dampening": dampening,
            "weight_decay": weight_decay,
            "nesterov": nesterov,
            "maximize": maximize,
            "foreach": foreach,
            "differentiable": differentiable,
            "fused": fused,
        }
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)

    def _update_group(self, group: dict[str, Any]) -> None:
        lr = _to_scalar(group["lr"])
        weight_decay = _to_scalar(group["weight_decay"])
        momentum = group["momentum"]
        dampening = group["dampening"]
        for param in group["params"]:
            grad = param.grad
            if grad is None:
                continue
            if group["maximize"]:
                grad = -grad
            if weight_decay != 0:
                grad = grad.add(param, alpha=weight_decay)
            if momentum != 0:
                state = self.state[param]
                buf = state.get("momentum_buffer")
                if buf is None:
                    buf = grad.detach().clone()
                    state["momentum_buffer"] = buf
                else:
                    buf.mul_(momentum).add_(grad, alpha=1 - dampening)
                grad = grad.add(buf, alpha=momentum) if group["nesterov"] else buf
            param.add_(grad, alpha=-lr)

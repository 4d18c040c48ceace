"""Adadelta: steps sized by the ratio of running root-mean-squares of updates and gradients."""

from __future__ import annotations

from typing import Any

from ctxgrad._factories import zeros_like
from ctxgrad._tensor import Tensor
from ctxgrad.optim.optimizer import Optimizer, ParamsT, _check_no_unsupported, _check_real, _scalar_dtype, _to_scalar

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    r"""Adadelta, as ``torch.optim.Adadelta``.

    For each parameter :math:`\theta` with gradient :math:`g`, one step does::

        g = -g                                  if maximize
        g = g + weight_decay * theta            if weight_decay != 0
        v = rho * v + (1 - rho) * g * g         (state "square_avg")
        delta = sqrt(u + eps) / sqrt(v + eps) * g
        u = rho * u + (1 - rho) * delta * delta (state "acc_delta")
        theta = theta - lr * delta

    Args:
        params: tensors or parameter groups to optimize.
        lr: scale of each update (default 1.0).
        rho: decay rate of the two running averages (default 0.9).
        eps: added inside both square roots (default 1e-6).
        weight_decay: L2 penalty (default 0).
        foreach, capturable, differentiable: accepted for torch compatibility; ``capturable``
            and ``differentiable`` must stay False.
        maximize: ascend the objective instead of descending it.

    >>> import ctxgrad
    >>> w = ctxgrad.tensor([1.0], requires_grad=True)
    >>> opt = ctxgrad.optim.Adadelta([w], lr=1.0, rho=0.0, eps=0.01)
    >>> w.grad = ctxgrad.tensor([0.99])
    >>> opt.step()                     # sqrt(0 + 0.01) / sqrt(0.99 ** 2 + 0.01) * 0.99
    >>> w
    tensor([0.9005], requires_grad=True)
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float | Tensor = 1.0,
        rho: float = 0.9,
        eps: float = 1e-6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        capturable: bool = False,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        _check_no_unsupported("Adadelta", capturable=capturable, differentiable=differentiable)
        defaults = {
            "lr": lr,
            "rho": rho,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "capturable": capturable,
            "foreach": foreach,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _update_group(self, group: dict[str, Any]) -> None:
        lr = _to_scalar(group["lr"])
        rho, eps, weight_decay = group["rho"], group["eps"], group["weight_decay"]
        for param in group["params"]:
            grad = param.grad
            if grad is None:
                continue
            state = self.state[param]
            if len(state) == 0:
                _check_real("Adadelta", param)
                state["step"] = Tensor(0.0, dtype=_scalar_dtype())
                state["square_avg"] = zeros_like(param)
                state["acc_delta"] = zeros_like(param)
            state["step"].add_(1)
            if group["maximize"]:
                grad = -grad
            if weight_decay != 0:
                grad = grad.add(param, alpha=weight_decay)
            square_avg, acc_delta = state["square_avg"], state["acc_delta"]
            square_avg.mul_(rho).add_(grad * grad, alpha=1 - rho)
            std = square_avg.add(eps).sqrt_()
            delta = acc_delta.add(eps).sqrt_().div_(std).mul_(grad)
            acc_delta.mul_(rho).add_(delta * delta, alpha=1 - rho)
            param.add_(delta, alpha=-lr)

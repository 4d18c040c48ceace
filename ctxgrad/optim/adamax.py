"""Adamax: Adam with the infinity norm of past gradients in place of their second moment."""

from __future__ import annotations

from typing import Any

from ctxgrad._factories import zeros_like
from ctxgrad._tensor import Tensor
from ctxgrad.optim.optimizer import Optimizer, ParamsT, _check_no_unsupported, _check_real, _scalar_dtype, _to_scalar

__all__ = ["Adamax"]


def check_betas(lr: Any, eps: float, betas: tuple[float, float], weight_decay: float) -> None:
    """torch's checks of the hyperparameters the Adam family shares, in torch's order."""
    if isinstance(lr, Tensor) and lr.numel() != 1:
        raise ValueError("Tensor lr must be 1-element")
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


class Adamax(Optimizer):
    r"""Adamax, as ``torch.optim.Adamax``.

    For each parameter :math:`\theta` with gradient :math:`g`, step :math:`t` does::

        g = -g                                  if maximize
        g = g + weight_decay * theta            if weight_decay != 0
        m = beta1 * m + (1 - beta1) * g         (state "exp_avg")
        u = max(beta2 * u, |g| + eps)           (state "exp_inf")
        theta = theta - lr / (1 - beta1 ** t) * m / u

    Args:
        params: tensors or parameter groups to optimize.
        lr: learning rate (default 2e-3).
        betas: decay rates of the moment and of the infinity norm (default (0.9, 0.999)).
        eps: added to the infinity norm for stability (default 1e-8).
        weight_decay: L2 penalty (default 0).
        foreach, differentiable, capturable: accepted for torch compatibility;
            ``differentiable`` and ``capturable`` must stay False.
        maximize: ascend the objective instead of descending it.

    >>> import ctxgrad
    >>> w = ctxgrad.tensor([1.0, -1.0], requires_grad=True)
    >>> opt = ctxgrad.optim.Adamax([w], lr=0.1)
    >>> w.grad = ctxgrad.tensor([3.0, -0.5])
    >>> opt.step()                     # the first step moves each coordinate by about lr
    >>> w
    tensor([ 0.9000, -0.9000], requires_grad=True)
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float | Tensor = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        check_betas(lr, eps, betas, weight_decay)
        _check_no_unsupported("Adamax", differentiable=differentiable, capturable=capturable)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    def _update_group(self, group: dict[str, Any]) -> None:
        lr = _to_scalar(group["lr"])
        beta1, beta2 = group["betas"]
        eps, weight_decay = group["eps"], group["weight_decay"]
        for param in group["params"]:
            grad = param.grad
            if grad is None:
                continue
            state = self.state[param]
            if len(state) == 0:
                _check_real("Adamax", param)
                state["step"] = Tensor(0.0, dtype=_scalar_dtype())
                state["exp_avg"] = zeros_like(param)
                state["exp_inf"] = zeros_like(param)
            if group["maximize"]:
                grad = -grad
            state["step"].add_(1)
            if weight_decay != 0:
                grad = grad.add(param, alpha=weight_decay)
            exp_avg, exp_inf = state["exp_avg"], state["exp_inf"]
            exp_avg.copy_(exp_avg.lerp(grad, 1 - beta1))
            exp_inf.copy_(exp_inf.mul_(beta2).maximum(grad.abs().add_(eps)))
            clr = lr / (1 - beta1 ** state["step"].item())
            param.add_(exp_avg / exp_inf, alpha=-clr)

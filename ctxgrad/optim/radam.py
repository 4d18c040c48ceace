"""RAdam: Adam whose adaptive step is switched on gradually, as the variance of its estimate allows."""

from __future__ import annotations

from typing import Any

from ctxgrad._factories import zeros_like
from ctxgrad._tensor import Tensor
from ctxgrad.optim.adamax import check_betas
from ctxgrad.optim.optimizer import Optimizer, ParamsT, _check_no_unsupported, _check_real, _scalar_dtype, _to_scalar

__all__ = ["RAdam"]


class RAdam(Optimizer):
    r"""RAdam (rectified Adam), as ``torch.optim.RAdam``.

    For each parameter :math:`\theta` with gradient :math:`g`, step :math:`t` does::

        g = -g                                  if maximize
        theta = theta * (1 - lr * weight_decay) if decoupled_weight_decay
        g = g + weight_decay * theta            otherwise, if weight_decay != 0
        m = beta1 * m + (1 - beta1) * g         (state "exp_avg")
        v = beta2 * v + (1 - beta2) * g * g     (state "exp_avg_sq")
        m_hat = m / (1 - beta1 ** t)
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 t beta2 ** t / (1 - beta2 ** t)
        if rho_t > 5:   theta = theta - lr * m_hat * r_t * sqrt(1 - beta2 ** t) / (sqrt(v) + eps)
                        with r_t = sqrt((rho_t - 4)(rho_t - 2) rho_inf / ((rho_inf - 4)(rho_inf - 2) rho_t))
        else:           theta = theta - lr * m_hat       (plain momentum while rho_t is small)

    Args:
        params: tensors or parameter groups to optimize.
        lr: learning rate (default 1e-3).
        betas: decay rates of the two moment averages (default (0.9, 0.999)).
        eps: added to the denominator for stability (default 1e-8).
        weight_decay: L2 penalty (default 0).
        decoupled_weight_decay: shrink the parameter directly (RAdamW).
        foreach, capturable, differentiable: accepted for torch compatibility; ``capturable``
            and ``differentiable`` must stay False.
        maximize: ascend the objective instead of descending it.

    >>> import ctxgrad
    >>> w = ctxgrad.tensor([1.0], requires_grad=True)
    >>> opt = ctxgrad.optim.RAdam([w], lr=0.1)
    >>> w.grad = ctxgrad.tensor([2.0])
    >>> opt.step()                     # rho_1 = 1 <= 5: a momentum step, lr * g
    >>> w
    tensor([0.8000], requires_grad=True)
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float | Tensor = 1e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_betas(lr, eps, betas, weight_decay)
        _check_no_unsupported("RAdam", capturable=capturable, differentiable=differentiable)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "decoupled_weight_decay": decoupled_weight_decay,
            "differentiable": differentiable,
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
                _check_real("RAdam", param)
                state["step"] = Tensor(0.0, dtype=_scalar_dtype())
                state["exp_avg"] = zeros_like(param)
                state["exp_avg_sq"] = zeros_like(param)
            if group["maximize"]:
                grad = -grad
            state["step"].add_(1)
            step = state["step"].item()
            if weight_decay != 0:
                if group["decoupled_weight_decay"]:
                    param.mul_(1 - lr * weight_decay)
                else:
                    grad = grad.add(param, alpha=weight_decay)
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            exp_avg.copy_(exp_avg.lerp(grad, 1 - beta1))
            exp_avg_sq.mul_(beta2).add_(grad * grad, alpha=1 - beta2)
            bias_correction1 = 1 - beta1**step
            bias_correction2 = 1 - beta2**step
            corrected = exp_avg / bias_correction1
            rho_inf = 2 / (1 - beta2) - 1
            rho_t = rho_inf - 2 * step * (beta2**step) / bias_correction2
            if rho_t > 5.0:
                rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                adaptive = (bias_correction2**0.5) / exp_avg_sq.sqrt().add_(eps)
                param.add_(corrected * lr * adaptive * rect, alpha=-1.0)
            else:
                param.add_(corrected * lr, alpha=-1.0)

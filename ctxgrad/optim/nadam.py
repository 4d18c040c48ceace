"""NAdam: Adam with Nesterov momentum (and momentum decay)."""

from __future__ import annotations

from typing import Any

from ctxgrad._factories import zeros_like
from ctxgrad._tensor import Tensor
from ctxgrad.optim.adamax import check_betas
from ctxgrad.optim.optimizer import Optimizer, ParamsT, _check_no_unsupported, _check_real, _scalar_dtype, _to_scalar

__all__ = ["NAdam"]


class NAdam(Optimizer):
    r"""NAdam, as ``torch.optim.NAdam``.

    For each parameter :math:`\theta` with gradient :math:`g`, step :math:`t` does::

        g = -g                                  if maximize
        theta = theta * (1 - lr * weight_decay) if decoupled_weight_decay
        g = g + weight_decay * theta            otherwise, if weight_decay != 0
        mu_t = beta1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))
        P = P * mu_t                            (state "mu_product", a 0-d tensor)
        m = beta1 * m + (1 - beta1) * g         (state "exp_avg")
        v = beta2 * v + (1 - beta2) * g * g     (state "exp_avg_sq")
        denom = sqrt(v / (1 - beta2 ** t)) + eps
        theta = theta - lr * (1 - mu_t) / (1 - P) * g / denom
                      - lr * mu_{t+1} / (1 - P * mu_{t+1}) * m / denom

    Args:
        params: tensors or parameter groups to optimize.
        lr: learning rate (default 2e-3).
        betas: decay rates of the two moment averages (default (0.9, 0.999)).
        eps: added to the denominator for stability (default 1e-8).
        weight_decay: L2 penalty (default 0).
        momentum_decay: how fast the momentum schedule ``mu_t`` rises (default 4e-3).
        decoupled_weight_decay: shrink the parameter directly (NAdamW).
        foreach, capturable, differentiable: accepted for torch compatibility; ``capturable``
            and ``differentiable`` must stay False.
        maximize: ascend the objective instead of descending it.

    >>> import ctxgrad
    >>> w = ctxgrad.tensor([1.0], requires_grad=True)
    >>> opt = ctxgrad.optim.NAdam([w], lr=0.1)
    >>> w.grad = ctxgrad.tensor([2.0])
    >>> opt.step()
    >>> w
    tensor([0.8944], requires_grad=True)
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float | Tensor = 2e-3,
        betas: tuple[float, float] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum_decay: float = 4e-3,
        decoupled_weight_decay: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
    ) -> None:
        check_betas(lr, eps, betas, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        _check_no_unsupported("NAdam", capturable=capturable, differentiable=differentiable)
        defaults = {
            "lr": lr,
            "betas": betas,
            "eps": eps,
            "weight_decay": weight_decay,
            "momentum_decay": momentum_decay,
            "decoupled_weight_decay": decoupled_weight_decay,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _update_group(self, group: dict[str, Any]) -> None:
        lr = _to_scalar(group["lr"])
        beta1, beta2 = group["betas"]
        eps, weight_decay, momentum_decay = group["eps"], group["weight_decay"], group["momentum_decay"]
        for param in group["params"]:
            grad = param.grad
            if grad is None:
                continue
            state = self.state[param]
            if len(state) == 0:
                _check_real("NAdam", param)
                state["step"] = Tensor(0.0, dtype=_scalar_dtype())
                state["mu_product"] = Tensor(1.0, dtype=_scalar_dtype())
                state["exp_avg"] = zeros_like(param)
                state["exp_avg_sq"] = zeros_like(param)
            if group["maximize"]:
                grad = -grad
            state["step"].add_(1)
            step = state["step"].item()
            bias_correction2 = 1 - beta2**step
            if weight_decay != 0:
                if group["decoupled_weight_decay"]:
                    param.mul_(1 - lr * weight_decay)
                else:
                    grad = grad.add(param, alpha=weight_decay)
            mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
            mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
            mu_product = state["mu_product"]
            mu_product.mul_(mu)  # kept in the step dtype (float32 by default), as torch keeps it
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            exp_avg.copy_(exp_avg.lerp(grad, 1 - beta1))
            exp_avg_sq.mul_(beta2).add_(grad * grad, alpha=1 - beta2)
            denom = exp_avg_sq.div(bias_correction2).sqrt().add_(eps)
            product = mu_product.item()
            param.add_(grad / denom, alpha=-lr * (1.0 - mu) / (1.0 - product))
            param.add_(exp_avg / denom, alpha=(-lr * mu_next) / (1.0 - product * mu_next))

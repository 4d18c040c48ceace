"""Adam: adaptive moment estimation, with optional AMSGrad and decoupled weight decay."""

from __future__ import annotations

from typing import Any

from ctxgrad._factories import zeros_like
from ctxgrad._tensor import Tensor
from ctxgrad.optim.optimizer import Optimizer, ParamsT, _check_no_unsupported, _check_real, _scalar_dtype, _to_scalar

__all__ = ["Adam"]


class Adam(Optimizer):
    r"""Adam, as ``torch.optim.Adam``.

    For each parameter :math:`\theta` with gradient :math:`g`, step :math:`t` does::

        g = -g                                  if maximize
        theta = theta * (1 - lr * weight_decay) if decoupled_weight_decay (AdamW)
        g = g + weight_decay * theta            otherwise, if weight_decay != 0
        m = beta1 * m + (1 - beta1) * g         (first moment,  state "exp_avg")
        v = beta2 * v + (1 - beta2) * g * g     (second moment, state "exp_avg_sq")
        v_max = max(v_max, v)                   if amsgrad      (state "max_exp_avg_sq")
        denom = sqrt(v or v_max) / sqrt(1 - beta2 ** t) + eps
        theta = theta - lr / (1 - beta1 ** t) * m / denom

    The step count ``t`` is kept as a 0-d tensor in ``state[theta]["step"]``.

    Args:
        params: tensors or parameter groups to optimize.
        lr: learning rate (default 1e-3).
        betas: decay rates of the two moment averages (default (0.9, 0.999)).
        eps: added to the denominator for stability (default 1e-8).
        weight_decay: L2 penalty (default 0), added to the gradient unless
            ``decoupled_weight_decay``.
        amsgrad: use the running maximum of the second moment (AMSGrad).
        foreach, capturable, differentiable, fused: accepted for torch compatibility; all but
            ``foreach`` must stay at their defaults.
        maximize: ascend the objective instead of descending it.
        decoupled_weight_decay: shrink the parameter directly, as :class:`AdamW` does.

    >>> import ctxgrad
    >>> w = ctxgrad.tensor([1.0, -1.0], requires_grad=True)
    >>> opt = ctxgrad.optim.Adam([w], lr=0.1)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    tensor([ 0.9000, -0.9000], requires_grad=True)
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float | Tensor = 1e-3,
        betas: tuple[float | Tensor, float | Tensor] = (0.9, 0.999),
        eps: float = 1e-8,
        weight_decay: float = 0,
        amsgrad: bool = False,
        *,
        foreach: bool | None = None,
        maximize: bool = False,
        capturable: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
        decoupled_weight_decay: bool = False,
    ) -> None:
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
        if not (
            (isinstance(betas[0], float) and isinstance(betas[1], float))
            or (isinstance(betas[0], Tensor) and isinstance(betas[1], Tensor))
        ):
            raise ValueError("betas must be either both floats or both Tensors")
        for i, beta in enumerate(betas):
            if isinstance(beta, Tensor) and beta.numel() != 1:
                raise ValueError(f"Tensor betas[{i}] must be 1-element")
        _check_no_unsupported(type(self).__name__, capturable=capturable, differentiable=differentiable, fused=fused)
        defaults = {
            "lr": lr,
            "betas": (_to_scalar(betas[0]), _to_scalar(betas[1])),
            "eps": eps,
            "weight_decay": weight_decay,
            "amsgrad": amsgrad,
            "maximize": maximize,
            "foreach": foreach,
            "capturable": capturable,
            "differentiable": differentiable,
            "fused": fused,
            "decoupled_weight_decay": decoupled_weight_decay,
        }
        super().__init__(params, defaults)

    def _update_group(self, group: dict[str, Any]) -> None:
        lr = _to_scalar(group["lr"])
        beta1, beta2 = (_to_scalar(b) for b in group["betas"])
        weight_decay = group["weight_decay"]
        eps = group["eps"]
        amsgrad = group["amsgrad"]
        for param in group["params"]:
            grad = param.grad
            if grad is None:
                continue
            state = self.state[param]
            if len(state) == 0:
                _check_real(type(self).__name__, param)
                state["step"] = Tensor(0.0, dtype=_scalar_dtype())
                state["exp_avg"] = zeros_like(param)
                state["exp_avg_sq"] = zeros_like(param)
                if amsgrad:
                    state["max_exp_avg_sq"] = zeros_like(param)
            if group["maximize"]:
                grad = -grad
            exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
            step_t = state["step"]
            step_t.add_(1)

            if weight_decay != 0:
                if group["decoupled_weight_decay"]:
                    param.mul_(1 - lr * weight_decay)
                else:
                    grad = grad.add(param, alpha=weight_decay)

            exp_avg.copy_(exp_avg.lerp(grad, 1 - beta1))
            exp_avg_sq.mul_(beta2).add_(grad * grad, alpha=1 - beta2)

            step = step_t.item()
            bias_correction1 = 1 - beta1**step
            bias_correction2 = 1 - beta2**step
            step_size = lr / bias_correction1
            bias_correction2_sqrt = bias_correction2**0.5

            if amsgrad:
                max_exp_avg_sq = state["max_exp_avg_sq"]
                max_exp_avg_sq.copy_(max_exp_avg_sq.maximum(exp_avg_sq))
                denom = (max_exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
            else:
                denom = (exp_avg_sq.sqrt() / bias_correction2_sqrt).add_(eps)
            param.add_(exp_avg / denom, alpha=-step_size)

"""Adagrad: each coordinate's step scaled down by the root of its summed squared gradients."""

from __future__ import annotations

from typing import Any

from ctxgrad._factories import full_like
from ctxgrad._tensor import Tensor
from ctxgrad.optim.optimizer import Optimizer, ParamsT, _check_no_unsupported, _check_real, _scalar_dtype, _to_scalar

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    r"""Adagrad, as ``torch.optim.Adagrad``.

    For each parameter :math:`\theta` with gradient :math:`g`, step :math:`t` does::

        g = -g                                  if maximize
        g = g + weight_decay * theta            if weight_decay != 0
        clr = lr / (1 + (t - 1) * lr_decay)
        s = s + g * g                           (state "sum", from initial_accumulator_value)
        theta = theta - clr * g / (sqrt(s) + eps)

    As in torch, the state (``"step"`` and ``"sum"``) is created for every parameter when the
    optimizer is built, not at its first step.

    Args:
        params: tensors or parameter groups to optimize.
        lr: learning rate (default 1e-2).
        lr_decay: learning-rate decay per step (default 0).
        weight_decay: L2 penalty (default 0).
        initial_accumulator_value: the starting value of the sum of squares (default 0).
        eps: added to the denominator for stability (default 1e-10).
        foreach, differentiable, fused: accepted for torch compatibility; ``differentiable``
            and ``fused`` must stay at their defaults.
        maximize: ascend the objective instead of descending it.

    >>> import ctxgrad
    >>> w = ctxgrad.tensor([1.0, -2.0], requires_grad=True)
    >>> opt = ctxgrad.optim.Adagrad([w], lr=0.5)
    >>> w.grad = ctxgrad.tensor([4.0, -1.0])
    >>> opt.step()                     # the first step moves each coordinate by lr * sign(g)
    >>> w
    tensor([ 0.5000, -1.5000], requires_grad=True)
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float | Tensor = 1e-2,
        lr_decay: float = 0,
        weight_decay: float = 0,
        initial_accumulator_value: float = 0,
        eps: float = 1e-10,
        foreach: bool | None = None,
        *,
        maximize: bool = False,
        differentiable: bool = False,
        fused: bool | None = None,
    ) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        _check_no_unsupported("Adagrad", differentiable=differentiable, fused=fused)
        defaults = {
            "lr": lr,
            "lr_decay": lr_decay,
            "eps": eps,
            "weight_decay": weight_decay,
            "initial_accumulator_value": initial_accumulator_value,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "fused": fused,
        }
        super().__init__(params, defaults)
        for group in self.param_groups:
            for param in group["params"]:
                self._init_state(param)

    def _init_state(self, param: Tensor) -> None:
        _check_real("Adagrad", param)
        state = self.state[param]
        state["step"] = Tensor(0.0, dtype=_scalar_dtype())
        state["sum"] = full_like(param, self.defaults["initial_accumulator_value"])

    def _update_group(self, group: dict[str, Any]) -> None:
        lr = _to_scalar(group["lr"])
        weight_decay, lr_decay, eps = group["weight_decay"], group["lr_decay"], group["eps"]
        for param in group["params"]:
            grad = param.grad
            if grad is None:
                continue
            state = self.state[param]
            if len(state) == 0:  # a parameter added by add_param_group
                self._init_state(param)
            state["step"].add_(1)
            step = state["step"].item()
            if group["maximize"]:
                grad = -grad
            if weight_decay != 0:
                grad = grad.add(param, alpha=weight_decay)
            clr = lr / (1 + (step - 1) * lr_decay)
            state_sum = state["sum"]
            state_sum.add_(grad * grad)
            std = state_sum.sqrt().add_(eps)
            param.add_(grad / std, alpha=-clr)

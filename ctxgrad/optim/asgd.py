"""ASGD: stochastic gradient descent with a decaying step size and a running average of the
parameters (Polyak-Ruppert averaging)."""

from __future__ import annotations

from typing import Any

from ctxgrad._factories import zeros_like
from ctxgrad._tensor import Tensor
from ctxgrad.optim.optimizer import Optimizer, ParamsT, _check_no_unsupported, _check_real, _scalar_dtype, _to_scalar

__all__ = ["ASGD"]


class ASGD(Optimizer):
    r"""Averaged SGD, as ``torch.optim.ASGD``.

    For each parameter :math:`\theta` with gradient :math:`g`, step :math:`t` does::

        g = -g                                   if maximize
        g = g + weight_decay * theta             if weight_decay != 0
        theta = theta * (1 - lambd * eta) - eta * g
        ax = ax + mu * (theta - ax)              (state "ax", the average; a copy while mu == 1)
        eta = lr / (1 + lambd * lr * t) ** alpha (state "eta")
        mu = 1 / max(1, t - t0)                  (state "mu")

    Args:
        params: tensors or parameter groups to optimize.
        lr: learning rate (default 1e-2).
        lambd: decay term (default 1e-4).
        alpha: power for the update of ``eta`` (default 0.75).
        t0: the step from which averaging starts (default 1e6).
        weight_decay: L2 penalty (default 0).
        foreach, differentiable, capturable: accepted for torch compatibility;
            ``differentiable`` and ``capturable`` must stay False.
        maximize: ascend the objective instead of descending it.

    >>> import ctxgrad
    >>> w = ctxgrad.tensor([1.0], requires_grad=True)
    >>> opt = ctxgrad.optim.ASGD([w], lr=0.1, lambd=0.0)
    >>> w.grad = ctxgrad.tensor([2.0])
    >>> opt.step()
    >>> w
    tensor([0.8000], requires_grad=True)
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float | Tensor = 1e-2,
        lambd: float = 1e-4,
        alpha: float = 0.75,
        t0: float = 1e6,
        weight_decay: float = 0,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
        capturable: bool = False,
    ) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        _check_no_unsupported("ASGD", differentiable=differentiable, capturable=capturable)
        defaults = {
            "lr": lr,
            "lambd": lambd,
            "alpha": alpha,
            "t0": t0,
            "weight_decay": weight_decay,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    def _update_group(self, group: dict[str, Any]) -> None:
        lr = _to_scalar(group["lr"])
        lambd, alpha, t0, weight_decay = group["lambd"], group["alpha"], group["t0"], group["weight_decay"]
        for param in group["params"]:
            grad = param.grad
            if grad is None:
                continue
            state = self.state[param]
            if len(state) == 0:
                _check_real("ASGD", param)
                state["step"] = Tensor(0.0, dtype=_scalar_dtype())
                state["eta"] = Tensor(float(lr), dtype=_scalar_dtype())
                state["mu"] = Tensor(1.0, dtype=_scalar_dtype())
                state["ax"] = zeros_like(param)
            if group["maximize"]:
                grad = -grad
            state["step"].add_(1)
            if weight_decay != 0:
                grad = grad.add(param, alpha=weight_decay)
            eta = state["eta"].item()  # (a float32 scalar, as torch keeps it)
            param.mul_(1 - lambd * eta)
            param.add_(grad, alpha=-eta)
            ax = state["ax"]
            if state["mu"].item() != 1:
                ax.add_(param.sub(ax).mul_(state["mu"]))
            else:
                ax.copy_(param)
            step = state["step"].item()
            state["eta"].fill_(lr / ((1 + lambd * lr * step) ** alpha))
            state["mu"].fill_(1 / max(1, step - t0))

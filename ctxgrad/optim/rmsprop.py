"""RMSprop: gradient descent scaled by a running average of squared gradients."""

from __future__ import annotations

from typing import Any

from ctxgrad._factories import zeros_like
from ctxgrad._tensor import Tensor
from ctxgrad.optim.optimizer import Optimizer, ParamsT, _check_no_unsupported, _check_real, _scalar_dtype, _to_scalar

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    r"""RMSprop, as ``torch.optim.RMSprop``.

    For each parameter :math:`\theta` with gradient :math:`g`, one step does::

        g = -g                                  if maximize
        g = g + weight_decay * theta            if weight_decay != 0
        v = alpha * v + (1 - alpha) * g * g     (state "square_avg")
        if centered:
            a = alpha * a + (1 - alpha) * g     (state "grad_avg")
            avg = sqrt(v - a * a) + eps
        else:
            avg = sqrt(v) + eps
        if momentum > 0:
            b = momentum * b + g / avg          (state "momentum_buffer")
            theta = theta - lr * b
        else:
            theta = theta - lr * g / avg

    Args:
        params: tensors or parameter groups to optimize.
        lr: learning rate (default 1e-2).
        alpha: smoothing constant of the squared-gradient average (default 0.99).
        eps: added to the denominator for stability (default 1e-8).
        weight_decay: L2 penalty (default 0).
        momentum: momentum factor (default 0).
        centered: normalize by an estimate of the gradient's variance rather than its
            second moment.
        capturable, foreach, differentiable: accepted for torch compatibility;
            ``capturable`` and ``differentiable`` must stay False.
        maximize: ascend the objective instead of descending it.

    >>> import ctxgrad
    >>> w = ctxgrad.tensor([1.0], requires_grad=True)
    >>> opt = ctxgrad.optim.RMSprop([w], lr=0.01)
    >>> w.grad = ctxgrad.tensor([2.0])
    >>> opt.step()                     # g / sqrt(0.01 * g * g) = 10
    >>> w
    tensor([0.9000], requires_grad=True)
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float | Tensor = 1e-2,
        alpha: float = 0.99,
        eps: float = 1e-8,
        weight_decay: float = 0,
        momentum: float = 0,
        centered: bool = False,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= momentum:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= alpha:
            raise ValueError(f"Invalid alpha value: {alpha}")
        _check_no_unsupported("RMSprop", capturable=capturable, differentiable=differentiable)
        defaults = {
            "lr": lr,
            "momentum": momentum,
            "alpha": alpha,
            "eps": eps,
            "centered": centered,
            "weight_decay": weight_decay,
            "capturable": capturable,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
        }
        super().__init__(params, defaults)

    def _update_group(self, group: dict[str, Any]) -> None:
        lr = _to_scalar(group["lr"])
        alpha = group["alpha"]
        eps = group["eps"]
        weight_decay = group["weight_decay"]
        momentum = group["momentum"]
        centered = group["centered"]
        for param in group["params"]:
            grad = param.grad
            if grad is None:
                continue
            state = self.state[param]
            if len(state) == 0:
                _check_real("RMSprop", param)
                state["step"] = Tensor(0.0, dtype=_scalar_dtype())
                state["square_avg"] = zeros_like(param)
                if momentum > 0:
                    state["momentum_buffer"] = zeros_like(param)
                if centered:
                    state["grad_avg"] = zeros_like(param)
            if group["maximize"]:
                grad = -grad
            square_avg = state["square_avg"]
            state["step"].add_(1)
            if weight_decay != 0:
                grad = grad.add(param, alpha=weight_decay)

            square_avg.mul_(alpha).add_(grad * grad, alpha=1 - alpha)
            if centered:
                grad_avg = state["grad_avg"]
                grad_avg.copy_(grad_avg.lerp(grad, 1 - alpha))
                avg = square_avg.sub(grad_avg * grad_avg).sqrt_()
            else:
                avg = square_avg.sqrt()
            avg = avg.add_(eps)

            if momentum > 0:
                buf = state["momentum_buffer"]
                buf.mul_(momentum).add_(grad / avg)
                param.add_(buf, alpha=-lr)
            else:
                param.add_(grad / avg, alpha=-lr)

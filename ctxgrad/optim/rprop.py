"""Rprop: each coordinate's step size grows while its gradient keeps its sign and shrinks when
the sign flips; only the gradient's sign moves the parameter."""

from __future__ import annotations

from typing import Any

from ctxgrad._factories import full_like, zeros_like
from ctxgrad._tensor import Tensor
from ctxgrad.ops.pointwise import where
from ctxgrad.optim.optimizer import Optimizer, ParamsT, _check_no_unsupported, _check_real, _scalar_dtype, _to_scalar

__all__ = ["Rprop"]


class Rprop(Optimizer):
    r"""Resilient backpropagation, as ``torch.optim.Rprop``.

    For each parameter :math:`\theta` with gradient :math:`g`, one step does::

        g = -g                                  if maximize
        f = etaplus where g * prev > 0, etaminus where < 0, else 1
        step = clamp(step * f, *step_sizes)     (state "step_size", from lr)
        g = 0 where f == etaminus               (a flipped sign waits one step)
        theta = theta - sign(g) * step
        prev = g                                (state "prev")

    >>> import ctxgrad
    >>> w = ctxgrad.tensor([1.0, -1.0], requires_grad=True)
    >>> opt = ctxgrad.optim.Rprop([w], lr=0.1)
    >>> w.grad = ctxgrad.tensor([3.0, -0.5])
    >>> opt.step()                     # only the signs count: each coordinate moves by lr
    >>> w
    tensor([ 0.9000, -0.9000], requires_grad=True)
    """

    def __init__(
        self,
        params: ParamsT,
        lr: float | Tensor = 1e-2,
        etas: tuple[float, float] = (0.5, 1.2),
        step_sizes: tuple[float, float] = (1e-6, 50),
        *,
        capturable: bool = False,
        foreach: bool | None = None,
        maximize: bool = False,
        differentiable: bool = False,
    ) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        _check_no_unsupported("Rprop", capturable=capturable, differentiable=differentiable)
        defaults = {
            "lr": lr,
            "etas": etas,
            "step_sizes": step_sizes,
            "foreach": foreach,
            "maximize": maximize,
            "differentiable": differentiable,
            "capturable": capturable,
        }
        super().__init__(params, defaults)

    def _update_group(self, group: dict[str, Any]) -> None:
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        for param in group["params"]:
            grad = param.grad
            if grad is None:
                continue
            state = self.state[param]
            if len(state) == 0:
                _check_real("Rprop", param)
                state["step"] = Tensor(0.0, dtype=_scalar_dtype())
                state["prev"] = zeros_like(param)
                state["step_size"] = full_like(grad, _to_scalar(group["lr"]))
            if group["maximize"]:
                grad = -grad
            state["step"].add_(1)
            prev, step_size = state["prev"], state["step_size"]
            product = grad * prev
            # the factors in the gradient's dtype (where() with Python numbers would give the default one)
            up, down, keep = (full_like(grad, value) for value in (etaplus, etaminus, 1.0))
            factor = where(product > 0, up, where(product < 0, down, keep))
            step_size.mul_(factor).clamp_(step_size_min, step_size_max)
            grad = where(product < 0, zeros_like(grad), grad)
            param.add_(grad.sign() * step_size, alpha=-1)
            prev.copy_(grad)

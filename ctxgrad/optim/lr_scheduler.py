"""Learning-rate schedules, as ``torch.optim.lr_scheduler`` has them.

A scheduler wraps an optimizer and rewrites each parameter group's ``"lr"`` every time its
:meth:`~LRScheduler.step` is called (usually once per epoch, after ``optimizer.step()``).
Making a scheduler already takes the first step (epoch 0): it records each group's starting
rate as ``group["initial_lr"]`` and ``base_lrs``.

Most schedules are *chainable*, as in torch: ``get_lr`` computes the next rate from the
group's current one, so two schedulers on one optimizer compose.

>>> import ctxgrad
>>> w = ctxgrad.zeros(1, requires_grad=True)
>>> opt = ctxgrad.optim.SGD([w], lr=1.0)
>>> sched = ctxgrad.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
>>> rates = []
>>> for epoch in range(5):
...     opt.step()
...     rates.append(sched.get_last_lr()[0])
...     sched.step()
>>> rates
[1.0, 1.0, 0.5, 0.5, 0.25]
"""

from __future__ import annotations

import math
import types
import warnings
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable, Iterable
from typing import Any

from ctxgrad._tensor import Tensor
from ctxgrad.optim.optimizer import Optimizer

__all__ = ["CosineAnnealingLR", "ExponentialLR", "LRScheduler", "LambdaLR", "MultiStepLR", "StepLR"]

EPOCH_DEPRECATION_WARNING = (
    "The epoch parameter in `scheduler.step()` was not necessary and is being deprecated where possible. "
    "Please use `scheduler.step()` to step the scheduler. During the deprecation, if epoch is different from "
    "None, the closed form is used instead of the new chainable form, where available."
)


def _group_values(optimizer: Optimizer, key: str) -> list[Any]:
    """``group[key]`` of every group (tensors cloned, so the list never aliases a group)."""
    return [g[key].clone() if isinstance(g[key], Tensor) else g[key] for g in optimizer.param_groups]


def _set_group_value(group: dict[str, Any], key: str, value: Any) -> None:
    """Set ``group[key]``, writing into it in place when it is a tensor (as torch does)."""
    if isinstance(group[key], Tensor):
        group[key].fill_(value.item() if isinstance(value, Tensor) else value)
    else:
        group[key] = value


class LRScheduler:
    """Base class of the learning-rate schedulers.

    A subclass implements :meth:`get_lr`, which returns the rate of each parameter group for
    epoch ``self.last_epoch``; ``step`` advances the epoch and writes those rates into the
    optimizer.

    Args:
        optimizer: the optimizer whose rates are scheduled.
        last_epoch: the index of the last epoch; -1 (the default) starts a new schedule. A
            non-negative value resumes one, and needs ``"initial_lr"`` in every group.
    """

    _get_lr_called_within_step: bool = False
    _is_initial: bool = False

    def __init__(self, optimizer: Optimizer, last_epoch: int = -1) -> None:
        if not isinstance(optimizer, Optimizer):
            raise TypeError(f"{type(optimizer).__name__} is not an Optimizer")
        self.optimizer = optimizer
        if last_epoch == -1:
            for group in optimizer.param_groups:
                initial_lr = group["lr"]
                group.setdefault("initial_lr", initial_lr.clone() if isinstance(initial_lr, Tensor) else initial_lr)
        else:
            for i, group in enumerate(optimizer.param_groups):
                if "initial_lr" not in group:
                    raise KeyError(
                        f"param 'initial_lr' is not specified in param_groups[{i}] when resuming scheduler "
                        "with last_epoch >= 0.\nThis typically happens when:\n1. You're trying to resume "
                        "training from a checkpoint but haven't properly loaded the optimizer state\n2. "
                        "You're using last_epoch >= 0 for a fresh training run (not recommended)"
                    )
        self.base_lrs: list[Any] = _group_values(optimizer, "initial_lr")
        self.last_epoch = last_epoch
        self._initial_step()

    def _initial_step(self) -> None:
        """Set the step count and take epoch 0's step."""
        self._step_count = 0
        self._is_initial = True
        try:
            self.step()
        finally:
            self._is_initial = False

    def state_dict(self) -> dict[str, Any]:
        """Every attribute of the scheduler except the optimizer (save it alongside the
        optimizer's own ``state_dict``)."""
        return {key: value for key, value in self.__dict__.items() if key != "optimizer"}

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore the attributes saved by :meth:`state_dict`."""
        self.__dict__.update(state_dict)

    def get_last_lr(self) -> list[Any]:
        """The rate of each parameter group that the last :meth:`step` set."""
        return self._last_lr

    def get_lr(self) -> list[Any]:
        """The rate of each parameter group for epoch ``last_epoch`` (subclasses implement it)."""
        raise NotImplementedError(f"{type(self).__name__} does not implement get_lr()")

    def step(self, epoch: int | None = None) -> None:
        """Advance to the next epoch and set the optimizer's rates for it.

        Call it after ``optimizer.step()``. Passing ``epoch`` is deprecated (as in torch): it
        jumps to that epoch using the schedule's closed form.
        """
        if self._step_count == 1 and not self.optimizer._opt_called:
            warnings.warn(
                "Detected call of `lr_scheduler.step()` before `optimizer.step()`. In PyTorch 1.1.0 and later, "
                "you should call them in the opposite order: `optimizer.step()` before `lr_scheduler.step()`.  "
                "Failure to do this will result in PyTorch skipping the first value of the learning rate "
                "schedule.",
                UserWarning,
                stacklevel=2,
            )
        self._step_count += 1
        if epoch is not None:
            warnings.warn(EPOCH_DEPRECATION_WARNING, UserWarning, stacklevel=2)
        self._get_lr_called_within_step = True
        try:
            if epoch is None:
                self.last_epoch += 1
                values = self.get_lr()
            else:
                self.last_epoch = epoch
                closed_form = getattr(self, "_get_closed_form_lr", None)
                values = closed_form() if closed_form is not None else self.get_lr()
        finally:
            self._get_lr_called_within_step = False
        for group, lr in zip(self.optimizer.param_groups, values):
            _set_group_value(group, "lr", lr)
        self._last_lr: list[Any] = _group_values(self.optimizer, "lr")

    def _warn_if_outside_step(self) -> None:
        if not self._get_lr_called_within_step:
            warnings.warn(
                "To get the last learning rate computed by the scheduler, please use `get_last_lr()`.",
                UserWarning,
                stacklevel=3,
            )


class LambdaLR(LRScheduler):
    """Set each group's rate to its initial rate times ``lr_lambda(epoch)``.

    Args:
        optimizer: the optimizer.
        lr_lambda: a function of the epoch index, or a list of them, one per group.
        last_epoch: see :class:`LRScheduler`.

    ``state_dict`` saves the functions only when they are callable objects (their
    ``__dict__``), not plain functions or lambdas, as torch does.

    >>> import ctxgrad
    >>> opt = ctxgrad.optim.SGD([ctxgrad.zeros(1, requires_grad=True)], lr=0.1)
    >>> sched = ctxgrad.optim.lr_scheduler.LambdaLR(opt, lambda epoch: 1 / (epoch + 1))
    >>> opt.step(); sched.step(); sched.get_last_lr()
    [0.05]
    """

    def __init__(
        self,
        optimizer: Optimizer,
        lr_lambda: Callable[[int], float] | list[Callable[[int], float]],
        last_epoch: int = -1,
    ) -> None:
        self.optimizer = optimizer
        self.lr_lambdas: list[Callable[[int], float]]
        if not isinstance(lr_lambda, (list, tuple)):
            self.lr_lambdas = [lr_lambda] * len(optimizer.param_groups)
        else:
            if len(lr_lambda) != len(optimizer.param_groups):
                raise ValueError(f"Expected {len(optimizer.param_groups)} lr_lambdas, but got {len(lr_lambda)}")
            self.lr_lambdas = list(lr_lambda)
        super().__init__(optimizer, last_epoch)

    def state_dict(self) -> dict[str, Any]:
        """As :meth:`LRScheduler.state_dict`; ``"lr_lambdas"`` holds None for each plain
        function and a copy of ``__dict__`` for each callable object."""
        state = {k: v for k, v in self.__dict__.items() if k not in ("optimizer", "lr_lambdas")}
        state["lr_lambdas"] = [
            None if isinstance(fn, types.FunctionType) else fn.__dict__.copy() for fn in self.lr_lambdas
        ]
        return state

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore the attributes, and the saved ``__dict__`` of callable-object lambdas."""
        state = dict(state_dict)
        lr_lambdas = state.pop("lr_lambdas")
        self.__dict__.update(state)
        for fn, saved in zip(self.lr_lambdas, lr_lambdas):
            if saved is not None:
                fn.__dict__.update(saved)

    def get_lr(self) -> list[Any]:
        """``base_lr * lr_lambda(last_epoch)`` for each group."""
        self._warn_if_outside_step()
        return [base_lr * fn(self.last_epoch) for fn, base_lr in zip(self.lr_lambdas, self.base_lrs)]


class StepLR(LRScheduler):
    """Multiply each group's rate by ``gamma`` every ``step_size`` epochs.

    Args:
        optimizer: the optimizer.
        step_size: period of the decay, in epochs.
        gamma: the factor (default 0.1).
        last_epoch: see :class:`LRScheduler`.
    """

    def __init__(self, optimizer: Optimizer, step_size: int, gamma: float = 0.1, last_epoch: int = -1) -> None:
        self.step_size = step_size
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        """The current rates, times ``gamma`` at a non-zero multiple of ``step_size``."""
        self._warn_if_outside_step()
        if self.last_epoch == 0 or self.last_epoch % self.step_size != 0:
            return _group_values(self.optimizer, "lr")
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[Any]:
        return [base_lr * self.gamma ** (self.last_epoch // self.step_size) for base_lr in self.base_lrs]


class MultiStepLR(LRScheduler):
    """Multiply each group's rate by ``gamma`` at each epoch listed in ``milestones``.

    Args:
        optimizer: the optimizer.
        milestones: epoch indices (an epoch listed ``n`` times decays by ``gamma ** n``).
        gamma: the factor (default 0.1).
        last_epoch: see :class:`LRScheduler`.
    """

    def __init__(
        self, optimizer: Optimizer, milestones: Iterable[int], gamma: float = 0.1, last_epoch: int = -1
    ) -> None:
        self.milestones: Counter[int] = Counter(milestones)
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        """Restore the attributes (``milestones`` as a ``Counter`` again, after a round trip
        through :func:`ctxgrad.save`, which stores it as a plain dict)."""
        super().load_state_dict(state_dict)
        self.milestones = Counter(self.milestones)

    def get_lr(self) -> list[Any]:
        """The current rates, times ``gamma ** n`` at a milestone listed ``n`` times."""
        self._warn_if_outside_step()
        if self.last_epoch not in self.milestones:
            return _group_values(self.optimizer, "lr")
        return [group["lr"] * self.gamma ** self.milestones[self.last_epoch] for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[Any]:
        milestones = sorted(self.milestones.elements())
        return [base_lr * self.gamma ** bisect_right(milestones, self.last_epoch) for base_lr in self.base_lrs]


class ExponentialLR(LRScheduler):
    """Multiply each group's rate by ``gamma`` every epoch.

    Args:
        optimizer: the optimizer.
        gamma: the factor.
        last_epoch: see :class:`LRScheduler`.
    """

    def __init__(self, optimizer: Optimizer, gamma: float, last_epoch: int = -1) -> None:
        self.gamma = gamma
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        """The current rates times ``gamma`` (unchanged on the initial step)."""
        self._warn_if_outside_step()
        if self._is_initial:
            return _group_values(self.optimizer, "lr")
        return [group["lr"] * self.gamma for group in self.optimizer.param_groups]

    def _get_closed_form_lr(self) -> list[Any]:
        return [base_lr * self.gamma**self.last_epoch for base_lr in self.base_lrs]


class CosineAnnealingLR(LRScheduler):
    r"""Anneal each group's rate from its initial value to ``eta_min`` along half a cosine
    over ``T_max`` epochs (and back up over the next ``T_max``, and so on):

    .. math::
        \eta_t = \eta_{min} + \tfrac{1}{2}(\eta_{max} - \eta_{min})(1 + \cos(\pi t / T_{max}))

    computed recursively from the current rate, as torch does, so it composes with other
    schedulers.

    Args:
        optimizer: the optimizer.
        T_max: half-period, in epochs.
        eta_min: the smallest rate (default 0).
        last_epoch: see :class:`LRScheduler`.
    """

    def __init__(self, optimizer: Optimizer, T_max: int, eta_min: float = 0.0, last_epoch: int = -1) -> None:
        self.T_max = T_max
        self.eta_min = eta_min
        super().__init__(optimizer, last_epoch)

    def get_lr(self) -> list[Any]:
        """The next rates on the cosine, from the current ones."""
        self._warn_if_outside_step()
        groups = self.optimizer.param_groups
        if self._is_initial:
            return _group_values(self.optimizer, "lr")
        if self._step_count == 1 and self.last_epoch > 0:
            return [
                self.eta_min + (base_lr - self.eta_min) * (1 + math.cos(self.last_epoch * math.pi / self.T_max)) / 2
                for base_lr in self.base_lrs
            ]
        if (self.last_epoch - 1 - self.T_max) % (2 * self.T_max) == 0:
            return [
                group["lr"] + (base_lr - self.eta_min) * (1 - math.cos(math.pi / self.T_max)) / 2
                for base_lr, group in zip(self.base_lrs, groups)
            ]
        return [
            (1 + math.cos(math.pi * self.last_epoch / self.T_max))
            / (1 + math.cos(math.pi * (self.last_epoch - 1) / self.T_max))
            * (group["lr"] - self.eta_min)
            + self.eta_min
            for group in groups
        ]

    def _get_closed_form_lr(self) -> list[Any]:
        return [
            self.eta_min + (base_lr - self.eta_min) * (1 + math.cos(math.pi * self.last_epoch / self.T_max)) / 2
            for base_lr in self.base_lrs
        ]

"""Optimizers and learning-rate schedules, mirroring ``torch.optim``.

An optimizer updates tensors in place from their ``.grad``; the usual loop is::

    opt = ctxgrad.optim.Adam(params, lr=1e-3)
    for x, y in loader:
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()

>>> import ctxgrad
>>> w = ctxgrad.tensor([3.0], requires_grad=True)
>>> opt = ctxgrad.optim.SGD([w], lr=0.25)
>>> for _ in range(3):
...     opt.zero_grad()
...     ((w - 1) ** 2).sum().backward()   # gradient 2 * (w - 1): each step halves w - 1
...     opt.step()
>>> w
tensor([1.2500], requires_grad=True)
"""

from __future__ import annotations

from ctxgrad.optim import lr_scheduler
from ctxgrad.optim.adadelta import Adadelta
from ctxgrad.optim.adagrad import Adagrad
from ctxgrad.optim.adam import Adam
from ctxgrad.optim.adamax import Adamax
from ctxgrad.optim.adamw import AdamW
from ctxgrad.optim.asgd import ASGD
from ctxgrad.optim.lbfgs import LBFGS
from ctxgrad.optim.nadam import NAdam
from ctxgrad.optim.optimizer import Optimizer
from ctxgrad.optim.radam import RAdam
from ctxgrad.optim.rmsprop import RMSprop
from ctxgrad.optim.rprop import Rprop
from ctxgrad.optim.sgd import SGD

__all__ = [
    "ASGD",
    "SGD",
    "Adadelta",
    "Adagrad",
    "Adam",
    "AdamW",
    "Adamax",
    "LBFGS",
    "NAdam",
    "Optimizer",
    "RAdam",
    "RMSprop",
    "Rprop",
    "lr_scheduler",
]

"""Neural networks, mirroring ``torch.nn``: :class:`Module` and its containers, the layers,
the losses, :class:`Parameter`, :mod:`~ctxgrad.nn.init` and :mod:`~ctxgrad.nn.functional`;
:class:`DataParallel` (a pass-through on the CPU) and :mod:`~ctxgrad.nn.attention`.

>>> import ctxgrad
>>> from ctxgrad import nn
>>> net = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
>>> loss = nn.CrossEntropyLoss()(net(ctxgrad.randn(5, 4)), ctxgrad.tensor([0, 1, 1, 0, 1]))
>>> loss.backward()
>>> [tuple(p.grad.shape) for p in net.parameters()]
[(8, 4), (8,), (2, 8), (2,)]
"""

from __future__ import annotations

from ctxgrad.nn import attention, functional, init, parallel, utils
from ctxgrad.nn.modules import *  # noqa: F403 - the layer classes, listed in modules.__all__
from ctxgrad.nn.modules import __all__ as _module_names
from ctxgrad.nn.parallel import DataParallel
from ctxgrad.nn.parameter import Buffer, Parameter

__all__ = [
    "Buffer",
    "DataParallel",
    "Parameter",
    "attention",
    "functional",
    "init",
    "parallel",
    "utils",
    *_module_names,
]

"""``ctxgrad.nn.parallel``: :class:`DataParallel` as a CPU-only torch has it, a pass-through.

torch's ``DataParallel`` copies a module onto each GPU and splits every batch among them;
with no GPU it keeps the module as is (``device_ids == []``) and its ``forward`` calls the
module.  ctxgrad has no GPU, so code written for several GPUs runs unchanged on one CPU, with
the state dict's keys under ``module.``, as torch saves them.

>>> import ctxgrad
>>> net = ctxgrad.nn.DataParallel(ctxgrad.nn.Linear(2, 1))
>>> list(net.state_dict()), net.device_ids
(['module.weight', 'module.bias'], [])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ctxgrad.nn.modules.module import Module

__all__ = ["DataParallel", "data_parallel"]


class DataParallel(Module):
    """Wraps ``module`` (its ``.module``); ``forward`` calls it, as torch's DataParallel does
    when no GPU is available.  ``device_ids``, ``output_device`` and ``dim`` are accepted and,
    as there, not kept (``device_ids`` is ``[]``)."""

    def __init__(
        self, module: Module, device_ids: Sequence[Any] | None = None, output_device: Any = None, dim: int = 0
    ) -> None:
        super().__init__()
        self.module = module
        self.device_ids: list[Any] = []

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        return self.module(*inputs, **kwargs)


def data_parallel(
    module: Module,
    inputs: Any,
    device_ids: Sequence[Any] | None = None,
    output_device: Any = None,
    dim: int = 0,
    module_kwargs: Any = None,
) -> Any:
    """Refused as in a CPU-only torch (``RuntimeError``): the functional form needs a GPU to
    find its device type; :class:`DataParallel` is the pass-through."""
    raise RuntimeError("device type could not be determined")

"""``weight_norm`` (torch's hook-based form, deprecated in favour of
:func:`ctxgrad.nn.utils.parametrizations.weight_norm` with a ``FutureWarning``, as torch's):
a weight re-expressed as a magnitude ``g`` and a direction ``v``, ``w = g v / ||v||``, the
norm over every dimension but ``dim``.

>>> import ctxgrad
>>> from ctxgrad import nn
>>> import warnings
>>> with warnings.catch_warnings():
...     warnings.simplefilter("ignore", FutureWarning)
...     layer = nn.utils.weight_norm(nn.Linear(3, 2))
>>> [name for name, _ in layer.named_parameters()]
['bias', 'weight_g', 'weight_v']
"""

from __future__ import annotations

import warnings
from typing import Any

from ctxgrad._tensor import Tensor
from ctxgrad.nn.modules.module import Module
from ctxgrad.nn.parameter import Parameter

__all__ = ["remove_weight_norm", "weight_norm"]


def norm_except_dim(v: Tensor, pow: float = 2, dim: int = 0) -> Tensor:
    """The ``pow``-norm of ``v`` over every dimension but ``dim`` (kept, size 1 elsewhere);
    ``dim=-1`` is the norm of the whole tensor."""
    if dim == -1:
        return v.norm(pow)
    dims = tuple(d for d in range(v.ndim) if d != dim)
    return v.norm(pow, dims, keepdim=True)


class WeightNorm:
    """The forward pre-hook that recomputes ``module.<name>`` from ``<name>_g`` and ``<name>_v``."""

    handle: Any

    def __init__(self, name: str, dim: int) -> None:
        self.name = name
        self.dim = -1 if dim is None else dim

    def compute_weight(self, module: Module) -> Tensor:
        """``g * v / ||v||``."""
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        out: Tensor = v * (g / norm_except_dim(v, 2, self.dim))
        return out

    @staticmethod
    def apply(module: Module, name: str, dim: Any) -> WeightNorm:
        for hook, _, _ in module._forward_pre_hooks:
            if isinstance(hook, WeightNorm) and hook.name == name:
                raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter {name}")
        fn = WeightNorm(name, -1 if dim is None else dim)
        weight = getattr(module, name)
        del module._parameters[name]
        module.register_parameter(name + "_g", Parameter(norm_except_dim(weight, 2, fn.dim).detach()))
        module.register_parameter(name + "_v", Parameter(weight.detach()))
        setattr(module, name, fn.compute_weight(module))
        fn.handle = module.register_forward_pre_hook(fn)
        return fn

    def remove(self, module: Module) -> None:
        weight = self.compute_weight(module)
        delattr(module, self.name)
        del module._parameters[self.name + "_g"]
        del module._parameters[self.name + "_v"]
        module.register_parameter(self.name, Parameter(weight.detach()))
        self.handle.remove()

    def __call__(self, module: Module, inputs: Any) -> None:
        setattr(module, self.name, self.compute_weight(module))


def weight_norm(module: Module, name: str = "weight", dim: int | None = 0) -> Module:
    """Replace ``module.<name>`` by ``<name>_g`` (its norm over every dimension but ``dim``) and
    ``<name>_v`` (its direction); the weight is recomputed before each forward."""
    warnings.warn(
        "`ctxgrad.nn.utils.weight_norm` is deprecated in favor of `ctxgrad.nn.utils.parametrizations.weight_norm`.",
        FutureWarning,
        stacklevel=2,
    )
    WeightNorm.apply(module, name, dim)
    return module


def remove_weight_norm(module: Module, name: str = "weight") -> Module:
    """Undo :func:`weight_norm`: ``<name>`` becomes one parameter again, with the current value."""
    for hook, _, _ in module._forward_pre_hooks:
        if isinstance(hook, WeightNorm) and hook.name == name:
            hook.remove(module)
            return module
    raise ValueError(f"weight_norm of '{name}' not found in {module}")

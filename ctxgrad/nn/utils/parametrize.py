"""Parametrizations, as ``torch.nn.utils.parametrize``: a module's tensor (``weight``) made a
function of an underlying parameter, recomputed at every access.

``register_parametrization(module, "weight", p)`` moves the parameter to
``module.parametrizations.weight.original`` and makes ``module.weight`` a property that
returns ``p(original)`` (several registrations chain).  Assigning ``module.weight = value``
runs ``p.right_inverse`` (when ``p`` has one) and writes the result into ``original``.  As in
torch, the module's class is swapped for a subclass named ``Parametrized<Class>``.

>>> import ctxgrad
>>> from ctxgrad import nn
>>> from ctxgrad.nn.utils import parametrize
>>> class Symmetric(nn.Module):
...     def forward(self, X):
...         return X.triu() + X.triu(1).mT
>>> layer = nn.Linear(3, 3)
>>> _ = parametrize.register_parametrization(layer, "weight", Symmetric())
>>> bool((layer.weight == layer.weight.T).all())
True
>>> [name for name, _ in layer.named_parameters()]
['bias', 'parametrizations.weight.original']
"""

from __future__ import annotations

from typing import Any

from ctxgrad._tensor import Tensor
from ctxgrad.autograd.grad_mode import no_grad
from ctxgrad.nn.modules.container import ModuleDict, ModuleList
from ctxgrad.nn.modules.module import Module
from ctxgrad.nn.parameter import Parameter

__all__ = ["ParametrizationList", "is_parametrized", "register_parametrization", "remove_parametrizations"]


class ParametrizationList(ModuleList):
    """The parametrizations of one tensor, in order, and what they start from: ``original``,
    or ``original0``, ``original1``, ... when the first one's ``right_inverse`` returns several
    tensors (its ``forward`` then takes them all)."""

    def __init__(self, modules: list[Module], original: Tensor, unsafe: bool = False) -> None:
        super().__init__(modules)
        self.unsafe = unsafe
        with no_grad():
            value: Any = original
            for module in reversed(list(self)):
                inverse = getattr(module, "right_inverse", None)
                if inverse is not None:
                    value = inverse(value)
        self.is_tensor = isinstance(value, Tensor)
        if self.is_tensor:
            if value.shape == original.shape and value.dtype == original.dtype:
                with no_grad():
                    if value is not original:
                        original.copy_(value)
                self.original = original if isinstance(original, Parameter) else Parameter(original)
            else:
                self.original = Parameter(value.detach(), original.requires_grad)
            self.ntensors = 1
            return
        if not isinstance(value, (tuple, list)):
            raise ValueError(
                "'right_inverse' must return a Tensor or a Sequence of tensors (list, tuple...). "
                f"Got {type(value).__name__}"
            )
        self.ntensors = len(value)
        for i, part in enumerate(value):
            setattr(self, f"original{i}", Parameter(part.detach(), original.requires_grad))

    def right_inverse(self, value: Tensor) -> None:
        """Write ``value`` into the originals, through each parametrization's ``right_inverse``."""
        with no_grad():
            result: Any = value
            for module in reversed(list(self)):
                inverse = getattr(module, "right_inverse", None)
                if inverse is None:
                    raise RuntimeError(f"parametrization {type(module).__name__} does not implement right_inverse.")
                result = inverse(result)
            if self.is_tensor:
                self.original.copy_(result)
            else:
                for i, part in enumerate(result):
                    getattr(self, f"original{i}").copy_(part)

    def forward(self) -> Tensor:
        modules = list(self)
        if self.is_tensor:
            x: Tensor = modules[0](self.original)
        else:
            x = modules[0](*(getattr(self, f"original{i}") for i in range(self.ntensors)))
        for module in modules[1:]:
            x = module(x)
        return x


def _swap_class(module: Module) -> None:
    """Give ``module`` a class of its own, ``Parametrized<Class>``, to hold the properties."""
    cls = type(module)
    param_cls = type(f"Parametrized{cls.__name__}", (cls,), {"__module__": cls.__module__})
    module.__class__ = param_cls


def _make_property(name: str) -> property:
    def get(self: Module) -> Tensor:
        parametrization = self.parametrizations[name]
        out: Tensor = parametrization()
        return out

    def set_value(self: Module, value: Tensor) -> None:
        self.parametrizations[name].right_inverse(value)

    return property(get, set_value)


def register_parametrization(
    module: Module, tensor_name: str, parametrization: Module, *, unsafe: bool = False
) -> Module:
    """Make ``module.<tensor_name>`` the output of ``parametrization`` on an ``original`` parameter
    (a second registration on the same name chains after the first)."""
    if is_parametrized(module, tensor_name):
        module.parametrizations[tensor_name].append(parametrization)
        return module
    if tensor_name in module._buffers or tensor_name in module._parameters:
        original = getattr(module, tensor_name)
        delattr(module, tensor_name)
        plist = ParametrizationList([parametrization], original, unsafe=unsafe)
        if not is_parametrized(module):
            _swap_class(module)
            module.parametrizations = ModuleDict()
        module.parametrizations[tensor_name] = plist
        setattr(type(module), tensor_name, _make_property(tensor_name))
        return module
    raise ValueError(
        f"Module '{module}' does not have a parameter, a buffer, or a parametrized element with name '{tensor_name}'"
    )


def is_parametrized(module: Module, tensor_name: str | None = None) -> bool:
    """Whether ``module`` has parametrizations (on ``tensor_name``, when given)."""
    parametrizations = module.__dict__.get("_modules", {}).get("parametrizations")
    if not isinstance(parametrizations, ModuleDict):
        return False
    return len(parametrizations) > 0 if tensor_name is None else tensor_name in parametrizations


def remove_parametrizations(module: Module, tensor_name: str, leave_parametrized: bool = True) -> Module:
    """Undo :func:`register_parametrization`: ``tensor_name`` is a parameter again, holding the
    parametrized value (or the ``original`` with ``leave_parametrized=False``)."""
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    plist = module.parametrizations[tensor_name]
    if not plist.is_tensor:
        if not leave_parametrized:
            raise ValueError(
                "Cannot leave unparametrized (`leave_parametrized=False`) a tensor that is parametrized in terms "
                "of a sequence of tensors."
            )
        with no_grad():
            original = Parameter(getattr(module, tensor_name).detach())
    else:
        original = plist.original
    if leave_parametrized and plist.is_tensor:
        with no_grad():
            value = getattr(module, tensor_name)
        with no_grad():
            if value.shape == original.shape and value.dtype == original.dtype:
                original.copy_(value)
            else:
                original = Parameter(value.detach(), original.requires_grad)
    delattr(type(module), tensor_name)
    del module.parametrizations[tensor_name]
    module.register_parameter(tensor_name, original if isinstance(original, Parameter) else Parameter(original))
    if not is_parametrized(module):
        del module._modules["parametrizations"]
        module.__class__ = type(module).__bases__[0]
    return module

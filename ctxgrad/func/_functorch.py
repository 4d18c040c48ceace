"""functorch 1.x's module API, which torch still ships under ``functorch`` (deprecated since
torch 2.0, with a ``FutureWarning``): ``make_functional``, ``make_functional_with_buffers`` and
``combine_state_for_ensemble``.  Programs written for it run on ctxgrad through the torch alias
(``import functorch`` is :mod:`ctxgrad.func`).

Each returns a *functional module*: a module that holds a copy of the model and takes the
parameters (and buffers) as its first arguments, ``fmodel(params, *args)``; the tensors it
returns are that copy's own (detached with ``disable_autograd_tracking=True``), in the order
of ``named_parameters()``, one per tensor shared by several names.  A call runs the copy with
the tensors given (:func:`~ctxgrad.func.functional_call`), so that ``grad`` and ``vmap`` can
treat the parameters as inputs.
"""

from __future__ import annotations

import copy
import warnings
from collections.abc import Sequence
from typing import Any

from ctxgrad._tensor import Tensor
from ctxgrad.func._modules import functional_call
from ctxgrad.nn.modules.module import Module

__all__ = [
    "FunctionalModule",
    "FunctionalModuleWithBuffers",
    "combine_state_for_ensemble",
    "make_functional",
    "make_functional_with_buffers",
]


def _warn_deprecated(name: str, instead: str) -> None:
    warnings.warn(
        f"We've integrated functorch into PyTorch. As the final step of the integration, `functorch.{name}` is "
        "deprecated as of PyTorch 2.0 and will be deleted in a future version of PyTorch >= 2.3. Please use "
        f"`torch.func.{instead}` instead; see the PyTorch 2.0 release notes and/or the `torch.func` migration "
        "guide for more details https://pytorch.org/docs/main/func.migrating.html",
        FutureWarning,
        stacklevel=3,
    )


def _unique(named: Any) -> tuple[tuple[str, ...], dict[str, list[str]], tuple[Tensor, ...]]:
    """The first name of each distinct tensor of ``named`` (``named_parameters(remove_duplicate=
    False)``), every name each one goes by, and the tensors."""
    names: dict[int, str] = {}
    names_map: dict[str, list[str]] = {}
    tensors: list[Tensor] = []
    for name, t in named:
        if t is None:
            continue
        first = names.setdefault(id(t), name)
        names_map.setdefault(first, []).append(name)
        if first == name:
            tensors.append(t)
    return tuple(names_map), names_map, tuple(tensors)


def _given(kind: str, names: tuple[str, ...], values: Sequence[Any], who: str) -> dict[str, Any]:
    if len(values) != len(names):
        raise RuntimeError(f"{who}: expected {len(names)} {kind} ({', '.join(names)}), got {len(values)}")
    return dict(zip(names, values))


class FunctionalModule(Module):
    """A model run as a function of its parameters: ``fmodel(params, *args, **kwargs)``
    (:func:`make_functional`)."""

    def __init__(self, stateless_model: Module, param_names: tuple[str, ...], names_map: dict[str, list[str]]) -> None:
        super().__init__()
        self.stateless_model = stateless_model
        self.param_names = param_names
        self.names_map = names_map

    @staticmethod
    def _create_from(
        model: Module, disable_autograd_tracking: bool = False
    ) -> tuple[FunctionalModule, tuple[Tensor, ...]]:
        copied = copy.deepcopy(model)
        names, names_map, params = _unique(copied.named_parameters(remove_duplicate=False))
        if disable_autograd_tracking:
            params = tuple(p.detach() for p in params)
        return FunctionalModule(copied, names, names_map), params

    def forward(self, params: Sequence[Tensor], *args: Any, **kwargs: Any) -> Any:
        given = _given("parameters", self.param_names, params, "FunctionalModule")
        return functional_call(self.stateless_model, given, args, kwargs)


class FunctionalModuleWithBuffers(Module):
    """A model run as a function of its parameters and buffers: ``fmodel(params, buffers,
    *args, **kwargs)`` (:func:`make_functional_with_buffers`).  A module that updates a buffer
    in place in training mode (batch norm's running statistics) updates the one given."""

    def __init__(
        self,
        stateless_model: Module,
        param_names: tuple[str, ...],
        buffer_names: tuple[str, ...],
        param_names_map: dict[str, list[str]],
        buffer_names_map: dict[str, list[str]],
    ) -> None:
        super().__init__()
        self.stateless_model = stateless_model
        self.param_names = param_names
        self.buffer_names = buffer_names
        self.all_names_map = {**param_names_map, **buffer_names_map}

    @staticmethod
    def _create_from(
        model: Module, disable_autograd_tracking: bool = False
    ) -> tuple[FunctionalModuleWithBuffers, tuple[Tensor, ...], tuple[Tensor, ...]]:
        copied = copy.deepcopy(model)
        p_names, p_map, params = _unique(copied.named_parameters(remove_duplicate=False))
        b_names, b_map, buffers = _unique(copied.named_buffers(remove_duplicate=False))
        if disable_autograd_tracking:
            params = tuple(p.detach() for p in params)
        return FunctionalModuleWithBuffers(copied, p_names, b_names, p_map, b_map), params, buffers

    def forward(self, params: Sequence[Tensor], buffers: Sequence[Tensor], *args: Any, **kwargs: Any) -> Any:
        given = _given("parameters", self.param_names, params, "FunctionalModuleWithBuffers")
        given.update(_given("buffers", self.buffer_names, buffers, "FunctionalModuleWithBuffers"))
        return functional_call(self.stateless_model, given, args, kwargs)


def make_functional(
    model: Module, disable_autograd_tracking: bool = False
) -> tuple[FunctionalModule, tuple[Tensor, ...]]:
    """``(fmodel, params)`` for a ``model`` without buffers: ``fmodel(params, *args)`` is
    ``model(*args)`` run with ``params``.  Deprecated in torch for :func:`functional_call`.

    >>> import warnings, ctxgrad
    >>> from ctxgrad.func import grad, make_functional
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore", FutureWarning)
    ...     fmodel, params = make_functional(ctxgrad.nn.Linear(2, 1))
    >>> [p.shape for p in grad(lambda ps, x: fmodel(ps, x).sum())(params, ctxgrad.ones(2))]
    [ctxgrad.Size([1, 2]), ctxgrad.Size([1])]
    """
    _warn_deprecated("make_functional", "functional_call")
    if not isinstance(model, Module):
        raise TypeError(f"make_functional(model): expected model to be an nn.Module, got {type(model).__name__}")
    if next(iter(model.buffers()), None) is not None:
        raise RuntimeError(
            "make_functional(model): `model` has buffers. Please use make_functional_with_buffers(model) instead."
        )
    return FunctionalModule._create_from(model, disable_autograd_tracking)


def make_functional_with_buffers(
    model: Module, disable_autograd_tracking: bool = False
) -> tuple[FunctionalModuleWithBuffers, tuple[Tensor, ...], tuple[Tensor, ...]]:
    """``(fmodel, params, buffers)``: ``fmodel(params, buffers, *args)`` is ``model(*args)``
    run with them.  Deprecated in torch for :func:`functional_call`."""
    _warn_deprecated("make_functional_with_buffers", "functional_call")
    if not isinstance(model, Module):
        raise TypeError(
            f"make_functional_with_buffers(model): expected model to be an nn.Module, got {type(model).__name__}"
        )
    return FunctionalModuleWithBuffers._create_from(model, disable_autograd_tracking)


def combine_state_for_ensemble(
    models: Sequence[Module],
) -> tuple[FunctionalModuleWithBuffers, tuple[Tensor, ...], tuple[Tensor, ...]]:
    """``(fmodel, params, buffers)`` for an ensemble of same-class ``models``: each parameter
    and buffer stacked over the models along a new first dimension (detached, as torch's), for
    ``vmap(fmodel)(params, buffers, *args)``.  Deprecated in torch for
    :func:`stack_module_state`."""
    from ctxgrad._made_functions import stack

    _warn_deprecated("combine_state_for_ensemble", "stack_module_state")
    if len(models) == 0:
        raise RuntimeError("combine_state_for_ensemble: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or not any(m.training for m in models)):
        raise RuntimeError("combine_state_for_ensemble: Expected all models to have the same training/eval mode.")
    if not all(type(m) is type(models[0]) for m in models):
        raise RuntimeError("combine_state_for_ensemble: Expected all models to be of the same class.")
    made = [FunctionalModuleWithBuffers._create_from(m) for m in models]
    params = tuple(stack(list(shards)).detach() for shards in zip(*(p for _, p, _ in made)))
    buffers = tuple(stack(list(shards)).detach() for shards in zip(*(b for _, _, b in made)))
    return made[0][0], params, buffers

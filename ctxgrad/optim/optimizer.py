"""The :class:`Optimizer` base class: parameter groups, per-parameter state, ``zero_grad``
and ``state_dict``, as ``torch.optim.Optimizer`` has them.

An optimizer holds a list of *parameter groups*. Each group is a dict with the key
``"params"`` (a list of tensors) and one entry per hyperparameter (``"lr"``, ...); a
hyperparameter the group does not give is filled in from the optimizer's ``defaults``.
Per-parameter state (momentum buffers, running averages, step counts) lives in
``optimizer.state``, a dict keyed by the parameter tensor itself.

A subclass implements ``step(closure=None)``: for each group, for each parameter that has a
gradient, update the parameter *in place* under ``no_grad``. In-place updates keep the
parameter the same object (so a model that holds it sees the change) and bump its version
counter, so a graph that saved the old value refuses to backpropagate through it.

``state_dict()`` replaces the parameter tensors by their positions (0, 1, 2, ... over all
groups, in order), so the dict can be saved and loaded into an optimizer built on other
tensors of the same shapes::

    {"state": {0: {"momentum_buffer": tensor(...)}, ...},
     "param_groups": [{"lr": 0.1, ..., "params": [0, 1]}, ...]}
"""

from __future__ import annotations

import copy
import functools
from collections import defaultdict
from collections.abc import Callable, Iterable
from typing import Any, TypeVar, overload

from ctxgrad import _dtypes
from ctxgrad._tensor import Tensor
from ctxgrad.autograd.grad_mode import enable_grad, no_grad
from ctxgrad.autograd.hooks import RemovableHandle

__all__ = ["Optimizer", "register_optimizer_step_post_hook", "register_optimizer_step_pre_hook", "required"]

ParamsT = Iterable[Tensor] | Iterable[dict[str, Any]] | Iterable[tuple[str, Tensor]]
"""What an optimizer accepts as ``params``: tensors, ``(name, tensor)`` pairs, or group dicts."""

StateDict = dict[str, Any]

_F = TypeVar("_F", bound=Callable[..., Any])


class _RequiredParameter:
    """The singleton :data:`required`: a default that a parameter group must override."""

    def __repr__(self) -> str:
        return "<required parameter>"


required = _RequiredParameter()
"""Use as a value in ``defaults`` for a hyperparameter without default: each group must give it."""


def _type_name(obj: object) -> str:
    """How torch names a type in its optimizer errors (``float``, ``numpy.ndarray``)."""
    cls = type(obj)
    return cls.__qualname__ if cls.__module__ == "builtins" else f"{cls.__module__}.{cls.__qualname__}"


def _to_scalar(value: Any) -> Any:
    """A one-element tensor hyperparameter (an ``lr`` given as a tensor) as a Python number."""
    if isinstance(value, Tensor):
        if value.numel() != 1:
            raise ValueError(f"expected a 1-element tensor, got one of shape {tuple(value.shape)}")
        return value.item()
    return value


def _scalar_dtype() -> Any:
    """The dtype of a ``step`` counter: float64 when that is the default dtype, else float32 (as torch)."""
    return _dtypes.float64 if _dtypes.get_default_dtype() == _dtypes.float64 else _dtypes.float32


_global_pre_hooks: list[Callable[..., Any]] = []
_global_post_hooks: list[Callable[..., Any]] = []


def register_optimizer_step_pre_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """Run ``hook(optimizer, args, kwargs)`` before the ``step`` of every optimizer (before
    each optimizer's own pre-hooks); it may return ``(new_args, new_kwargs)``."""
    return RemovableHandle(_global_pre_hooks, hook)


def register_optimizer_step_post_hook(hook: Callable[..., Any]) -> RemovableHandle:
    """Run ``hook(optimizer, args, kwargs)`` after the ``step`` of every optimizer (after each
    optimizer's own post-hooks)."""
    return RemovableHandle(_global_post_hooks, hook)


def _mark_step_called(step: _F) -> _F:
    """Wrap a ``step`` so that a learning-rate scheduler can tell it ran, and so that it runs
    the step hooks around it, as torch's: global pre-hooks, the optimizer's pre-hooks (each
    may return ``(new_args, new_kwargs)``), the step, the optimizer's post-hooks, the global
    post-hooks.  ``args`` starts with the optimizer itself, as in torch."""

    @functools.wraps(step)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        self: Optimizer = args[0]
        for pre_hook in [*_global_pre_hooks, *self._step_hooks("pre")]:
            result = pre_hook(self, args, kwargs)
            if result is not None:
                if isinstance(result, tuple) and len(result) == 2:
                    args, kwargs = result
                else:
                    raise RuntimeError(
                        f"{step} must return None or a tuple of (new_args, new_kwargs), but got {result}."
                    )
        self._opt_called = True
        out = step(*args, **kwargs)
        for post_hook in [*self._step_hooks("post"), *_global_post_hooks]:
            post_hook(self, args, kwargs)
        return out

    return wrapper  # type: ignore[return-value]


class Optimizer:
    """Base class of all optimizers.

    Args:
        params: an iterable of tensors, of ``(name, tensor)`` pairs, or of dicts that each
            define a parameter group (``{"params": [...], "lr": 0.01}``).
        defaults: the default value of each hyperparameter, used by groups that do not set it.

    A minimal optimizer (plain gradient descent) shows what a subclass does:

    >>> import ctxgrad
    >>> class Descent(ctxgrad.optim.Optimizer):
    ...     def __init__(self, params, lr=0.1):
    ...         super().__init__(params, {"lr": lr})
    ...     def step(self, closure=None):
    ...         with ctxgrad.no_grad():
    ...             for group in self.param_groups:
    ...                 for p in group["params"]:
    ...                     if p.grad is not None:
    ...                         p.add_(p.grad, alpha=-group["lr"])
    >>> w = ctxgrad.tensor([1.0, -2.0], requires_grad=True)
    >>> opt = Descent([w], lr=0.25)
    >>> (w * w).sum().backward()
    >>> opt.step()
    >>> w
    tensor([ 0.5000, -1.0000], requires_grad=True)
    """

    defaults: dict[str, Any]
    state: defaultdict[Any, dict[str, Any]]
    param_groups: list[dict[str, Any]]
    _opt_called: bool = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if "step" in cls.__dict__:
            cls.step = _mark_step_called(cls.__dict__["step"])  # type: ignore[method-assign]

    def __init__(self, params: ParamsT, defaults: dict[str, Any]) -> None:
        self.defaults = defaults
        if isinstance(params, Tensor):
            raise TypeError(
                "params argument given to the optimizer should be an iterable of Tensors or dicts, "
                f"but got {_tensor_type_name(params)}"
            )
        self.state = defaultdict(dict)
        self.param_groups = []
        param_groups: list[Any] = list(params)
        if len(param_groups) == 0:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(param_groups[0], dict):
            param_groups = [{"params": param_groups}]
        for param_group in param_groups:
            self.add_param_group(param_group)

    def __repr__(self) -> str:
        lines = [f"{type(self).__name__} ("]
        for i, group in enumerate(self.param_groups):
            lines.append(f"Parameter Group {i}")
            lines.extend(f"    {key}: {group[key]}" for key in sorted(group) if key != "params")
        return "\n".join(lines) + "\n)"

    def __getstate__(self) -> dict[str, Any]:
        return {"defaults": self.defaults, "state": self.state, "param_groups": self.param_groups}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)

    # ------------------------------------------------------------------ groups
    def add_param_group(self, param_group: dict[str, Any]) -> None:
        """Add a parameter group (a dict with ``"params"`` and optional hyperparameters).

        Useful to start training more of a model part way through (unfreezing layers).
        Hyperparameters the group leaves out take the optimizer's defaults. A tensor may be
        in only one group, and only once.
        """
        if not isinstance(param_group, dict):
            raise TypeError(f"param_group must be a dict, but got {type(param_group)}")
        params = param_group["params"]
        if isinstance(params, Tensor):
            param_group["params"] = [params]
        elif isinstance(params, set):
            raise TypeError(
                "optimizer parameters need to be organized in ordered collections, but the ordering of "
                "tensors in sets will change between runs. Please use a list instead."
            )
        else:
            param_group["params"] = list(params)

        tensors: list[Any] = []
        names: list[Any] = []
        for param in param_group["params"]:
            if isinstance(param, tuple):
                names.append(param[0])
                tensors.append(param[1])
            else:
                tensors.append(param)
        param_group["params"] = tensors
        if names:
            if len(names) != len(tensors):
                raise ValueError("all optimizer params should be with/without names. Some param names are missing")
            param_group["param_names"] = names

        for param in tensors:
            if not isinstance(param, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is {_type_name(param)}")
            if not (param.is_leaf or param.retains_grad):
                raise ValueError("can't optimize a non-leaf Tensor")

        for name, default in self.defaults.items():
            if default is required and name not in param_group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {name}")
            param_group.setdefault(name, default)

        # A tensor listed twice would be updated twice per step: torch only warns, we refuse.
        first_index: dict[int, int] = {}
        for i, param in enumerate(tensors):
            if id(param) in first_index:
                raise ValueError(
                    f"optimizer got the same parameter twice in one parameter group (at positions "
                    f"{first_index[id(param)]} and {i}); list each tensor once"
                )
            first_index[id(param)] = i

        for group in self.param_groups:
            if ("param_names" in param_group) != ("param_names" in group):
                which = "with names" if "param_names" in param_group else "without names"
                raise ValueError(
                    "all optimizer param groups should be with/without names. "
                    f"cannot add param group {which} to the optimizer"
                )
            if any(id(p) in first_index for p in group["params"]):
                raise ValueError("some parameters appear in more than one parameter group")

        self.param_groups.append(param_group)

    # ------------------------------------------------------------------ gradients and steps
    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of all optimized tensors.

        With ``set_to_none=True`` (the default) each ``.grad`` becomes None: a parameter that
        gets no gradient in the next backward is then skipped by ``step`` rather than updated
        with a zero gradient (which weight decay or momentum would still move).
        """
        for group in self.param_groups:
            for p in group["params"]:
                grad = p.grad
                if grad is None:
                    continue
                if set_to_none:
                    p.grad = None
                else:
                    if grad.grad_fn is not None:
                        grad.detach_()
                    else:
                        grad.requires_grad_(False)
                    grad.zero_()

    @overload
    def step(self, closure: None = None) -> None: ...

    @overload
    def step(self, closure: Callable[[], float]) -> float: ...

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        """Update the parameters once; with a ``closure`` (which re-evaluates the model, grad
        mode on), return its loss.

        Every param group is updated under ``no_grad`` by ``_update_group``, which the built-in
        optimizers define; a subclass defines it too, or overrides ``step`` as a whole (as
        ``Descent`` above does)."""
        self._opt_called = True
        loss = None
        if closure is not None:
            with enable_grad():
                loss = closure()
        with no_grad():
            for group in self.param_groups:
                self._update_group(group)
        return loss

    def _update_group(self, group: dict[str, Any]) -> None:
        """Update the parameters of one group (the inside of ``step``)."""
        raise NotImplementedError(f"{type(self).__name__} does not implement step()")

    # ------------------------------------------------------------------ hooks
    def _step_hooks(self, kind: str) -> list[Callable[..., Any]]:
        """This optimizer's step hooks of ``kind`` (``"pre"`` or ``"post"``), made on first use."""
        name = f"_optimizer_step_{kind}_hooks"
        hooks: list[Callable[..., Any]] | None = self.__dict__.get(name)
        if hooks is None:
            hooks = []
            self.__dict__[name] = hooks
        return hooks

    def register_step_pre_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Run ``hook(optimizer, args, kwargs)`` before each :meth:`step`; returning
        ``(new_args, new_kwargs)`` replaces the step's arguments.

        >>> import ctxgrad
        >>> opt = ctxgrad.optim.SGD([ctxgrad.zeros(1, requires_grad=True)], lr=0.1)
        >>> seen = []
        >>> handle = opt.register_step_pre_hook(lambda o, args, kwargs: seen.append(o.param_groups[0]["lr"]))
        >>> opt.step(); handle.remove(); opt.step()
        >>> seen
        [0.1]
        """
        return RemovableHandle(self._step_hooks("pre"), hook)

    def register_step_post_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """Run ``hook(optimizer, args, kwargs)`` after each :meth:`step`."""
        return RemovableHandle(self._step_hooks("post"), hook)

    # ------------------------------------------------------------------ saving and loading
    def state_dict(self) -> StateDict:
        """The optimizer's state as a dict: ``"state"`` (per-parameter state keyed by the
        parameter's position over all groups) and ``"param_groups"`` (each group's
        hyperparameters, with ``"params"`` as a list of positions).

        The state tensors are the live ones, not copies (as in torch): save the dict with
        :func:`ctxgrad.save`, or load it into an optimizer, before stepping again.

        >>> import ctxgrad
        >>> w = ctxgrad.zeros(2, requires_grad=True)
        >>> opt = ctxgrad.optim.SGD([w], lr=0.1, momentum=0.9)
        >>> w.grad = ctxgrad.ones(2)
        >>> opt.step()
        >>> opt.state_dict()["state"]
        {0: {'momentum_buffer': tensor([1., 1.])}}
        >>> opt.state_dict()["param_groups"][0]["params"]
        [0]
        """
        positions: dict[int, int] = {}
        start = 0

        def pack_group(group: dict[str, Any]) -> dict[str, Any]:
            nonlocal start
            packed = {k: v for k, v in group.items() if k != "params"}
            for i, p in enumerate(group["params"], start):
                positions.setdefault(id(p), i)
            packed["params"] = [positions[id(p)] for p in group["params"]]
            start += len(packed["params"])
            return packed

        param_groups = [pack_group(g) for g in self.param_groups]
        packed_state = {(positions[id(k)] if isinstance(k, Tensor) else k): v for k, v in self.state.items()}
        return {"state": packed_state, "param_groups": param_groups}

    def load_state_dict(self, state_dict: StateDict) -> None:
        """Load a state made by :meth:`state_dict` (of this optimizer or one built the same way).

        Groups are matched by order, parameters by position: the dict must have as many
        groups as this optimizer, each with as many parameters. Loaded state tensors are
        copied (and cast to their parameter's dtype), never shared with the dict.
        """
        if not isinstance(state_dict, dict) or "state" not in state_dict or "param_groups" not in state_dict:
            raise ValueError(
                "optimizer state_dict must be a dict with the keys 'state' and 'param_groups', "
                f"got {_describe_keys(state_dict)}"
            )
        groups = self.param_groups
        saved_groups = copy.deepcopy(state_dict["param_groups"])
        if len(groups) != len(saved_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        for i, (group, saved) in enumerate(zip(groups, saved_groups)):
            if len(group["params"]) != len(saved["params"]):
                raise ValueError(
                    "loaded state dict contains a parameter group that doesn't match the size of optimizer's "
                    f"group (group {i}: {len(saved['params'])} saved parameters, {len(group['params'])} here)"
                )
        by_position: dict[Any, Tensor] = {}
        for group, saved in zip(groups, saved_groups):
            by_position.update(zip(saved["params"], group["params"]))

        state: defaultdict[Any, dict[str, Any]] = defaultdict(dict)
        for key, value in state_dict["state"].items():
            if key in by_position:
                param = by_position[key]
                state[param] = _cast_state(param, value, key=None)
            else:
                state[key] = value

        param_groups = []
        for group, saved in zip(groups, saved_groups):
            saved["params"] = group["params"]
            if "param_names" in group and "param_names" not in saved:
                saved["param_names"] = group["param_names"]
            for name, default in self.defaults.items():
                if default is not required:
                    saved.setdefault(name, default)
            param_groups.append(saved)
        self.__setstate__({"state": state, "param_groups": param_groups})


def _cast_state(param: Tensor, value: Any, key: Any) -> Any:
    """A deep copy of one parameter's saved state, tensors cast to the parameter's dtype
    (except the ``step`` counter, which keeps its own, as in torch)."""
    if isinstance(value, Tensor):
        if key != "step" and param.is_floating_point():
            return value.detach().to(param.dtype).clone()
        return value.detach().clone()
    if key == "step" and isinstance(value, (int, float)):
        # A state saved with a plain-number step counter: torch turns it into a tensor too.
        return Tensor(float(value), dtype=_scalar_dtype())
    if isinstance(value, dict):
        return {k: _cast_state(param, v, key=k) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_cast_state(param, v, key=None) for v in value)
    return value


def _check_real(name: str, param: Tensor) -> None:
    """Refuse a complex parameter in an optimizer whose update squares gradients: torch runs
    those on the (real, imaginary) pairs, which ctxgrad does not do yet."""
    if param.is_complex():
        raise NotImplementedError(
            f"{name} does not support complex parameters in ctxgrad (got one of dtype "
            f"{_dtypes.short_name(param.dtype)}); optimize its real and imaginary parts as real tensors"
        )


def _tensor_type_name(t: Tensor) -> str:
    return f"ctxgrad.Tensor of dtype {_dtypes.short_name(t.dtype)}"


def _describe_keys(obj: Any) -> str:
    if isinstance(obj, dict):
        return f"a dict with the keys {sorted(map(str, obj))}"
    return f"an object of type {type(obj).__name__}"


def _check_no_unsupported(name: str, **flags: Any) -> None:
    """Refuse the torch options that have no meaning here (``fused``, ``capturable``,
    ``differentiable``): their default values are accepted so torch code ports unchanged."""
    for flag, value in flags.items():
        if value:
            raise NotImplementedError(
                f"{name}({flag}={value!r}) is not supported by ctxgrad: leave {flag} at its default"
            )


Optimizer.step = _mark_step_called(Optimizer.step)  # type: ignore[method-assign]

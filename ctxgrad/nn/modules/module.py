"""``Module``: the base class of every layer, with torch's bookkeeping.

A Module keeps three ordered registries, filled by plain attribute assignment:

* ``_parameters``: each :class:`~ctxgrad.nn.Parameter` assigned as an attribute;
* ``_buffers``: tensors registered with :meth:`Module.register_buffer` (running statistics and
  the like: saved in ``state_dict`` when persistent, never trained);
* ``_modules``: each Module assigned as an attribute (a submodule).

``parameters()``, ``state_dict()``, ``train()``, ``zero_grad()`` and ``repr`` all walk these
registries recursively, in registration order, exactly as torch does, so the keys of a
``state_dict`` are the same dotted names torch would give (``"0.weight"``, ``"block.bn.running_mean"``).

>>> import ctxgrad
>>> from ctxgrad import nn
>>> class Affine(nn.Module):
...     def __init__(self):
...         super().__init__()
...         self.scale = nn.Parameter(ctxgrad.ones(2))
...         self.register_buffer("calls", ctxgrad.zeros(()))
...     def forward(self, x):
...         return x * self.scale
>>> m = Affine()
>>> list(m.state_dict())
['scale', 'calls']
>>> m(ctxgrad.tensor([1.0, 2.0]))
tensor([1., 2.], grad_fn=<MulBackward0>)
"""

from __future__ import annotations

import warnings
from collections import OrderedDict
from collections.abc import Callable, Iterator, Mapping
from typing import Any, NamedTuple, TypeVar

from ctxgrad import _factories
from ctxgrad._device import check_device
from ctxgrad._tensor import Tensor
from ctxgrad.autograd.function import Function
from ctxgrad.autograd.grad_mode import is_grad_enabled, no_grad
from ctxgrad.autograd.hooks import RemovableHandle
from ctxgrad.nn.parameter import Buffer, Parameter

__all__ = ["Module"]

_M = TypeVar("_M", bound="Module")


class _IncompatibleKeys(NamedTuple):
    """What ``load_state_dict`` returns: the keys it did not find and the keys it did not use."""

    missing_keys: list[str]
    unexpected_keys: list[str]

    def __repr__(self) -> str:
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return f"_IncompatibleKeys(missing_keys={self.missing_keys}, unexpected_keys={self.unexpected_keys})"

    def __str__(self) -> str:
        return self.__repr__()


class _BackwardHookNode(Function[tuple[Tensor, ...]]):
    """The identity on its tensors, as one graph node: its backward receives the gradients of
    all of them at once and hands them to ``on_grads``, which may replace them.  Module
    backward hooks put one in front of a module's inputs and one behind its outputs."""

    node_name = "BackwardHookFunctionBackward"

    @staticmethod
    def forward(ctx: Any, on_grads: Callable[[tuple[Any, ...]], tuple[Any, ...]], *tensors: Tensor) -> Any:
        ctx.on_grads = on_grads
        return tuple(t.view_as(t) for t in tensors)

    @staticmethod
    def backward(ctx: Any, *grads: Any) -> Any:
        return (None, *ctx.on_grads(grads))

    @staticmethod
    def jvp(ctx: Any, _: None, *tangents: Any) -> Any:
        return tangents


class _BackwardHooks:
    """One call's backward-hook wiring (torch's ``BackwardHook``): the full backward pre-hooks
    run when the output gradients arrive, the full backward hooks when the input gradients do
    (or right after the pre-hooks when no input requires grad)."""

    def __init__(self, module: Module, n_inputs: int) -> None:
        self.module = module
        self.n_inputs = n_inputs
        self.input_positions: list[int] = []
        self.grad_output: tuple[Any, ...] | None = None

    def wrap_inputs(self, args: tuple[Any, ...]) -> tuple[Any, ...]:
        self.input_positions = [i for i, a in enumerate(args) if isinstance(a, Tensor) and a.requires_grad]
        if not self.input_positions:
            return args
        wrapped = _BackwardHookNode.apply(self._on_input_grads, *(args[i] for i in self.input_positions))
        new_args = list(args)
        for i, w in zip(self.input_positions, wrapped):
            new_args[i] = w
        return tuple(new_args)

    def wrap_outputs(self, result: Any) -> Any:
        single = isinstance(result, Tensor)
        outputs = (result,) if single else result
        if not isinstance(outputs, tuple):
            return result
        positions = [i for i, o in enumerate(outputs) if isinstance(o, Tensor) and o.requires_grad]
        if not positions:
            return result
        wrapped = _BackwardHookNode.apply(self._on_output_grads, *(outputs[i] for i in positions))
        new = list(outputs)
        for i, w in zip(positions, wrapped):
            new[i] = w
        return new[0] if single else tuple(new)

    def _on_output_grads(self, grads: tuple[Any, ...]) -> tuple[Any, ...]:
        for hook in list(self.module._backward_pre_hooks):
            changed = hook(self.module, grads)
            if changed is not None:
                grads = self._checked(changed, len(grads), "Backward pre hook", "grad_output")
        self.grad_output = grads
        if not self.input_positions and self.module._backward_hooks:
            warnings.warn(
                "Full backward hook is firing when gradients are computed with respect to module outputs since no "
                "inputs require gradients. See https://docs.pytorch.org/docs/main/generated/torch.nn.Module.html"
                "#torch.nn.Module.register_full_backward_hook for more details.",
                UserWarning,
                stacklevel=2,
            )
            self._run_full_hooks((None,) * self.n_inputs)
        return grads

    def _on_input_grads(self, grads: tuple[Any, ...]) -> tuple[Any, ...]:
        if self.grad_output is None:
            # Gradients that did not come through the module's outputs in this backward (a
            # double backward through the module's inputs): no hook runs, as in torch.
            return grads
        grad_input: list[Any] = [None] * self.n_inputs
        for i, g in zip(self.input_positions, grads):
            grad_input[i] = g
        new = self._run_full_hooks(tuple(grad_input))
        self.grad_output = None
        return tuple(new[i] for i in self.input_positions)

    def _run_full_hooks(self, grad_input: tuple[Any, ...]) -> tuple[Any, ...]:
        for hook in list(self.module._backward_hooks):
            changed = hook(self.module, grad_input, self.grad_output)
            if changed is not None:
                grad_input = self._checked(changed, len(grad_input), "Backward hook", "grad_input")
        return grad_input

    @staticmethod
    def _checked(changed: Any, n: int, kind: str, what: str) -> tuple[Any, ...]:
        grads: tuple[Any, ...] = tuple(changed) if isinstance(changed, (tuple, list)) else (changed,)
        if len(grads) != n:
            raise RuntimeError(f"{kind} returned an invalid number of {what}, got {len(grads)}, but expected {n}")
        return grads


def _addindent(text: str, spaces: int) -> str:
    """Indent every line of ``text`` but the first by ``spaces`` (torch's helper for nested reprs)."""
    lines = text.split("\n")
    if len(lines) == 1:
        return text
    first = lines.pop(0)
    return first + "\n" + "\n".join(" " * spaces + line for line in lines)


def _typename(value: Any) -> str:
    """How torch's messages name a value's type (``torch.typename``): its qualified name,
    without a module for the built-in types."""
    kind = type(value)
    return kind.__qualname__ if kind.__module__ in ("", "builtins") else f"{kind.__module__}.{kind.__qualname__}"


class Module:
    """Base class for all neural-network modules; subclasses define ``forward``.

    Call ``super().__init__()`` before assigning parameters or submodules.  Calling a module
    (``m(x)``) runs the forward pre-hooks, then ``forward``, then the forward hooks.
    """

    training: bool
    _parameters: dict[str, Parameter | None]
    _buffers: dict[str, Tensor | None]
    _non_persistent_buffers_set: set[str]
    _modules: dict[str, Module | None]
    _forward_hooks: list[tuple[Callable[..., Any], bool, bool]]  # (hook, with_kwargs, always_call)
    _forward_pre_hooks: list[tuple[Callable[..., Any], bool, bool]]
    _backward_hooks: list[Callable[..., Any]]
    _backward_pre_hooks: list[Callable[..., Any]]

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args or kwargs:
            raise TypeError(
                f"{type(self).__name__}.__init__() got an unexpected keyword argument '{next(iter(kwargs))}'"
                if kwargs
                else f"{type(self).__name__}.__init__() takes 1 positional argument but {len(args) + 1} were given"
            )
        # object.__setattr__: our own __setattr__ needs these dicts to exist already.
        object.__setattr__(self, "training", True)
        object.__setattr__(self, "_parameters", OrderedDict())
        object.__setattr__(self, "_buffers", OrderedDict())
        object.__setattr__(self, "_non_persistent_buffers_set", set())
        object.__setattr__(self, "_modules", OrderedDict())
        object.__setattr__(self, "_forward_hooks", [])
        object.__setattr__(self, "_forward_pre_hooks", [])
        object.__setattr__(self, "_backward_hooks", [])
        object.__setattr__(self, "_backward_pre_hooks", [])

    # ------------------------------------------------------------------ forward and hooks
    forward: Callable[..., Any]

    def _forward_unimplemented(self, *input: Any) -> None:
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required "forward" function')

    forward = _forward_unimplemented

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if not (self._forward_pre_hooks or self._forward_hooks or self._backward_hooks or self._backward_pre_hooks):
            return self.forward(*args, **kwargs)  # (no hooks: the common call, without their bookkeeping)
        for entry in list(self._forward_pre_hooks):
            hook, with_kwargs, _ = entry
            if with_kwargs:
                changed = hook(self, args, kwargs)
                if changed is not None:
                    if not (isinstance(changed, tuple) and len(changed) == 2):
                        raise RuntimeError(
                            "forward pre-hook must return None or a tuple of (new_args, new_kwargs), "
                            f"but got {changed}."
                        )
                    args, kwargs = changed
            else:
                changed = hook(self, args)
                if changed is not None:
                    args = changed if isinstance(changed, tuple) else (changed,)
        backward_hooks = None
        if (self._backward_hooks or self._backward_pre_hooks) and is_grad_enabled():
            backward_hooks = _BackwardHooks(self, len(args))
            args = backward_hooks.wrap_inputs(args)
        result = None
        called: set[int] = set()  # the always_call hooks already run
        try:
            result = self.forward(*args, **kwargs)
            for entry in list(self._forward_hooks):
                hook, with_kwargs, always_call = entry
                if always_call:
                    called.add(id(entry))
                changed = hook(self, args, kwargs, result) if with_kwargs else hook(self, args, result)
                if changed is not None:
                    result = changed
        except Exception:
            # (torch's always_call: those hooks still run, on the result so far; an error of
            # theirs is a warning, and the first error goes on)
            for entry in list(self._forward_hooks):
                hook, with_kwargs, always_call = entry
                if not always_call or id(entry) in called:
                    continue
                try:
                    changed = hook(self, args, kwargs, result) if with_kwargs else hook(self, args, result)
                except Exception as exc:
                    warnings.warn(
                        "module forward hook with ``always_call=True`` raised an exception that was silenced as "
                        f"another error was raised in forward: {exc}",
                        stacklevel=2,
                    )
                    continue
                if changed is not None:
                    result = changed
            raise
        if backward_hooks is not None:
            result = backward_hooks.wrap_outputs(result)
        return result

    def register_full_backward_pre_hook(self, hook: Callable[..., Any], prepend: bool = False) -> RemovableHandle:
        """Call ``hook(module, grad_output)`` when the gradients of the module's outputs are
        known, before those of its inputs are computed; a returned tuple replaces ``grad_output``."""
        handle = RemovableHandle(self._backward_pre_hooks, hook)
        if prepend:
            self._backward_pre_hooks.insert(0, self._backward_pre_hooks.pop())
        return handle

    def register_full_backward_hook(self, hook: Callable[..., Any], prepend: bool = False) -> RemovableHandle:
        """Call ``hook(module, grad_input, grad_output)`` when the gradients of the module's
        positional inputs are computed (None for inputs that are not tensors requiring grad);
        a returned tuple replaces ``grad_input``."""
        handle = RemovableHandle(self._backward_hooks, hook)
        if prepend:
            self._backward_hooks.insert(0, self._backward_hooks.pop())
        return handle

    def register_backward_hook(self, hook: Callable[..., Any]) -> RemovableHandle:
        """torch's older module backward hook: ``hook(module, grad_input, grad_output)``, here
        with the gradients of the module's inputs, as :meth:`register_full_backward_hook`.
        torch passes the gradients of the inputs of the last op its module ran instead,
        which are the same for a module that runs one op on its input (docs/differences.md)."""
        return self.register_full_backward_hook(hook)

    @staticmethod
    def _add_hook(
        hooks: list[Any], hook: Callable[..., Any], prepend: bool, with_kwargs: bool, always_call: bool = False
    ) -> RemovableHandle:
        handle = RemovableHandle(hooks, (hook, with_kwargs, always_call))
        if prepend:
            hooks.insert(0, hooks.pop())
        return handle

    def register_forward_pre_hook(
        self, hook: Callable[..., Any], *, prepend: bool = False, with_kwargs: bool = False
    ) -> RemovableHandle:
        """Call ``hook(module, args)`` before ``forward``; a return value (a tuple, or a single
        value that is wrapped into one) replaces the positional arguments.  With
        ``with_kwargs=True`` the hook is ``hook(module, args, kwargs)`` and returns
        ``(args, kwargs)`` or None.  ``prepend=True`` runs it before the hooks already there."""
        return self._add_hook(self._forward_pre_hooks, hook, prepend, with_kwargs)

    def register_forward_hook(
        self, hook: Callable[..., Any], *, prepend: bool = False, with_kwargs: bool = False, always_call: bool = False
    ) -> RemovableHandle:
        """Call ``hook(module, args, output)`` after ``forward`` (``hook(module, args, kwargs,
        output)`` with ``with_kwargs=True``); a return value replaces the output.  With
        ``always_call=True`` it runs even when ``forward`` (or an earlier hook) raises, with
        the output so far (None), before the error goes on."""
        return self._add_hook(self._forward_hooks, hook, prepend, with_kwargs, always_call)

    # ------------------------------------------------------------------ registration
    def register_parameter(self, name: str, param: Parameter | None) -> None:
        """Add a parameter (or a None placeholder, as ``Linear(bias=False)`` does) under ``name``."""
        if "_parameters" not in self.__dict__:
            raise AttributeError("cannot assign parameter before Module.__init__() call")
        self._check_name(name, "parameter")
        if hasattr(self, name) and name not in self._parameters:
            raise KeyError(f"attribute '{name}' already exists")
        if param is not None and not isinstance(param, Parameter):
            raise TypeError(
                f"cannot assign '{type(param).__module__}.{type(param).__name__}' object to parameter '{name}' "
                "(torch.nn.Parameter or None required)"
            )
        if param is not None and param.grad_fn is not None:
            raise ValueError(
                f"Cannot assign non-leaf Tensor to parameter '{name}'. Model parameters must be created "
                f"explicitly. To express '{name}' as a function of another Tensor, compute the value in "
                "the forward() method."
            )
        self._parameters[name] = param

    def register_buffer(self, name: str, tensor: Tensor | None, persistent: bool = True) -> None:
        """Add a buffer: state that is not a parameter (``BatchNorm``'s running mean).  A
        persistent buffer is part of ``state_dict``; a non-persistent one is not."""
        if "_buffers" not in self.__dict__:
            raise AttributeError("cannot assign buffer before Module.__init__() call")
        self._check_name(name, "buffer")
        if hasattr(self, name) and name not in self._buffers:
            raise KeyError(f"attribute '{name}' already exists")
        if tensor is not None and not isinstance(tensor, Tensor):
            raise TypeError(
                f"cannot assign '{type(tensor).__module__}.{type(tensor).__name__}' object to buffer '{name}' "
                "(torch Tensor or None required)"
            )
        self._buffers[name] = tensor
        if persistent:
            self._non_persistent_buffers_set.discard(name)
        else:
            self._non_persistent_buffers_set.add(name)

    def add_module(self, name: str, module: Module | None) -> None:
        """Add a submodule under ``name`` (what ``self.name = module`` does)."""
        if module is not None and not isinstance(module, Module):
            raise TypeError(f"{type(module).__module__}.{type(module).__name__} is not a Module subclass")
        self._check_name(name, "module")
        if hasattr(self, name) and name not in self._modules:
            raise KeyError(f"attribute '{name}' already exists")
        self._modules[name] = module

    register_module = add_module

    @staticmethod
    def _check_name(name: Any, kind: str) -> None:
        if not isinstance(name, str):
            raise TypeError(f"{kind} name should be a string. Got {type(name).__name__}")
        if "." in name:
            raise KeyError(f'{kind} name can\'t contain "."')
        if name == "":
            raise KeyError(f'{kind} name can\'t be empty string ""')

    def __setattr__(self, name: str, value: Any) -> None:
        params = self.__dict__.get("_parameters")
        if isinstance(value, Parameter):
            if params is None:
                raise AttributeError("cannot assign parameters before Module.__init__() call")
            self._remove_from(name, self.__dict__, self._buffers, self._modules)
            self.register_parameter(name, value)
            return
        if params is not None and name in params:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as parameter '{name}' (torch.nn.Parameter or None expected)"
                )
            self.register_parameter(name, value)
            return
        modules = self.__dict__.get("_modules")
        if isinstance(value, Module):
            if modules is None:
                raise AttributeError("cannot assign module before Module.__init__() call")
            self._remove_from(name, self.__dict__, self._parameters, self._buffers)
            modules[name] = value
            return
        if modules is not None and name in modules:
            if value is not None:
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as child module '{name}' (torch.nn.Module or None expected)"
                )
            modules[name] = value
            return
        buffers = self.__dict__.get("_buffers")
        if isinstance(value, Buffer) or (buffers is not None and name in buffers):
            if value is not None and not isinstance(value, Tensor):
                raise TypeError(
                    f"cannot assign '{_typename(value)}' as buffer '{name}' "
                    "(torch.nn.Buffer, torch.Tensor or None expected)"
                )
            persistent = value.persistent if isinstance(value, Buffer) else name not in self._non_persistent_buffers_set
            self.register_buffer(name, value, persistent)
            return
        object.__setattr__(self, name, value)

    @staticmethod
    def _remove_from(name: str, *dicts: Any) -> None:
        for d in dicts:
            if name in d:
                del d[name]

    def __getattr__(self, name: str) -> Any:
        # Called only when normal lookup fails: look in the three registries.
        d = self.__dict__
        for registry in ("_parameters", "_buffers", "_modules"):
            if registry in d and name in d[registry]:
                return d[registry][name]
        raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")

    def __delattr__(self, name: str) -> None:
        for registry in (self._parameters, self._buffers, self._modules):
            if name in registry:
                del registry[name]
                self._non_persistent_buffers_set.discard(name)
                return
        object.__delattr__(self, name)

    def __dir__(self) -> list[str]:
        keys = list(super().__dir__()) + list(self._parameters) + list(self._buffers) + list(self._modules)
        return sorted(k for k in set(keys) if not k[0].isdigit())

    def get_submodule(self, target: str) -> Module:
        """The submodule at the dotted path ``target`` (``""`` is this module)."""
        if target == "":
            return self
        mod: Module = self
        for item in target.split("."):
            if not hasattr(mod, item):
                raise AttributeError(f"{mod._get_name()} has no attribute `{item}`")
            nxt = getattr(mod, item)
            if not isinstance(nxt, Module):
                raise AttributeError(f"`{item}` is not an nn.Module")
            mod = nxt
        return mod

    # ------------------------------------------------------------------ iteration
    def named_modules(
        self, memo: set[Module] | None = None, prefix: str = "", remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Module]]:
        """This module and every submodule, depth first, with dotted names (each once by default)."""
        if memo is None:
            memo = set()
        if self in memo and remove_duplicate:
            return
        if remove_duplicate:
            memo.add(self)
        yield prefix, self
        for name, module in self._modules.items():
            if module is None:
                continue
            sub = prefix + ("." if prefix else "") + name
            yield from module.named_modules(memo, sub, remove_duplicate)

    def modules(self, remove_duplicate: bool = True) -> Iterator[Module]:
        """This module and every submodule, depth first (a module met twice, once unless
        ``remove_duplicate=False``)."""
        for _, module in self.named_modules(remove_duplicate=remove_duplicate):
            yield module

    def named_children(self) -> Iterator[tuple[str, Module]]:
        """The direct submodules with their names (each module once)."""
        seen: set[Module] = set()
        for name, module in self._modules.items():
            if module is not None and module not in seen:
                seen.add(module)
                yield name, module

    def children(self) -> Iterator[Module]:
        """The direct submodules."""
        for _, module in self.named_children():
            yield module

    def _named_members(
        self, members: Callable[[Module], Any], prefix: str, recurse: bool, remove_duplicate: bool
    ) -> Iterator[tuple[str, Any]]:
        seen: set[int] = set()
        modules = self.named_modules(prefix=prefix, remove_duplicate=remove_duplicate) if recurse else [(prefix, self)]
        for module_prefix, module in modules:
            for name, value in members(module):
                if value is None:
                    continue
                if remove_duplicate:
                    if id(value) in seen:
                        continue
                    seen.add(id(value))
                yield module_prefix + ("." if module_prefix else "") + name, value

    def named_parameters(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Parameter]]:
        """Every parameter with its dotted name, in registration order (a shared one once)."""
        yield from self._named_members(lambda m: m._parameters.items(), prefix, recurse, remove_duplicate)

    def parameters(self, recurse: bool = True) -> Iterator[Parameter]:
        """Every parameter, in registration order (what an optimizer is given)."""
        for _, param in self.named_parameters(recurse=recurse):
            yield param

    def named_buffers(
        self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True
    ) -> Iterator[tuple[str, Tensor]]:
        """Every buffer with its dotted name, persistent or not."""
        yield from self._named_members(lambda m: m._buffers.items(), prefix, recurse, remove_duplicate)

    def buffers(self, recurse: bool = True) -> Iterator[Tensor]:
        """Every buffer, persistent or not."""
        for _, buf in self.named_buffers(recurse=recurse):
            yield buf

    # ------------------------------------------------------------------ modes and bulk changes
    def train(self: _M, mode: bool = True) -> _M:
        """Set training mode (``Dropout`` drops, ``BatchNorm`` uses batch statistics) here and below."""
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        self.training = mode
        for module in self.children():
            module.train(mode)
        return self

    def eval(self: _M) -> _M:
        """Set evaluation mode: ``train(False)``."""
        return self.train(False)

    def requires_grad_(self: _M, requires_grad: bool = True) -> _M:
        """Set ``requires_grad`` of every parameter (to freeze or unfreeze the module)."""
        for p in self.parameters():
            p.requires_grad_(requires_grad)
        return self

    def zero_grad(self, set_to_none: bool = True) -> None:
        """Reset the gradients of every parameter: to None (the default), or to zeros in place."""
        for p in self.parameters():
            if p.grad is None:
                continue
            if set_to_none:
                p.grad = None
            else:
                g = p.grad
                if g.grad_fn is not None:
                    g.detach_()
                else:
                    g.requires_grad_(False)
                g.zero_()

    def apply(self: _M, fn: Callable[[Module], None]) -> _M:
        """Call ``fn`` on every submodule (children first) and then on this module."""
        for module in self.children():
            module.apply(fn)
        fn(self)
        return self

    def _apply_to_tensors(self: _M, convert: Callable[[Tensor], Tensor], recurse: bool = True) -> _M:
        """Replace every parameter's and buffer's values by ``convert(values)``, in place
        (only this module's own with ``recurse=False``)."""
        for module in self.modules() if recurse else (self,):
            with no_grad():
                for p in module._parameters.values():
                    if p is not None:
                        p._data = convert(p)._data
                        if p._grad is not None:
                            p._grad = convert(p._grad)
                for name, b in module._buffers.items():
                    if b is not None:
                        module._buffers[name] = convert(b)
        return self

    def to(self: _M, *args: Any, **kwargs: Any) -> _M:
        """Convert floating-point parameters and buffers to a dtype (``to(ctxgrad.float64)``,
        ``to(tensor)``); a device argument is checked, and only the CPU exists."""
        # Two probes of different dtypes: if neither changes, no dtype was asked for.
        low, high = Tensor(0.0, dtype="float16"), Tensor(0.0, dtype="float64")
        low_to, high_to = low.to(*args, **kwargs), high.to(*args, **kwargs)
        if low_to is low and high_to is high:
            return self
        target = high_to.dtype if high_to is not high else low_to.dtype
        if target.kind not in "fc":
            raise TypeError(
                f"nn.Module.to only accepts floating point or complex dtypes, but got desired dtype={target}"
            )
        return self._apply_to_tensors(lambda t: t.to(target) if t.is_floating_point() else t)

    def to_empty(self: _M, *, device: Any, recurse: bool = True) -> _M:
        """Give every parameter and buffer new, uninitialised values of the same shape and
        dtype on ``device`` (only the CPU exists), as torch's ``to_empty``."""
        check_device(device)
        return self._apply_to_tensors(lambda t: _factories.empty_like(t), recurse)

    def double(self: _M) -> _M:
        """Convert floating-point parameters and buffers to float64."""
        return self.to(Tensor(0.0, dtype="float64").dtype)

    def float(self: _M) -> _M:
        """Convert floating-point parameters and buffers to float32."""
        return self.to(Tensor(0.0, dtype="float32").dtype)

    def cpu(self: _M) -> _M:
        """This module (ctxgrad has only the CPU)."""
        return self

    def cuda(self: _M, device: Any = None) -> _M:
        """Fails as in a CPU-only build of torch (``AssertionError``): ctxgrad has no CUDA."""
        if device is not None:
            check_device(device)  # a bare index is torch's RuntimeError (no accelerator)
        check_device("cuda")
        return self

    # ------------------------------------------------------------------ state dict
    def _save_to_state_dict(self, destination: dict[str, Any], prefix: str, keep_vars: bool) -> None:
        for name, param in self._parameters.items():
            if param is not None:
                destination[prefix + name] = param if keep_vars else param.detach()
        for name, buf in self._buffers.items():
            if buf is not None and name not in self._non_persistent_buffers_set:
                destination[prefix + name] = buf if keep_vars else buf.detach()

    def state_dict(
        self, *args: Any, destination: dict[str, Any] | None = None, prefix: str = "", keep_vars: bool = False
    ) -> dict[str, Any]:
        """An ordered dict from dotted names to the parameters and persistent buffers.

        The values are detached tensors that share storage with the module's (so they change
        when the module is trained; ``copy.deepcopy`` or ``clone`` them to keep a snapshot).
        """
        if args:
            raise TypeError("state_dict(): positional arguments other than self are not supported; use keywords")
        if destination is None:
            destination = OrderedDict()
        self._save_to_state_dict(destination, prefix, keep_vars)
        for name, module in self._modules.items():
            if module is not None:
                module.state_dict(destination=destination, prefix=prefix + name + ".", keep_vars=keep_vars)
        return destination

    def _load_from_state_dict(
        self,
        state_dict: Mapping[str, Any],
        prefix: str,
        strict: bool,
        missing_keys: list[str],
        unexpected_keys: list[str],
        error_msgs: list[str],
        assign: bool = False,
    ) -> None:
        """Load this module's own parameters and persistent buffers (not its children's) from
        ``state_dict`` under ``prefix``, recording problems in the three lists."""
        persistent_buffers = {k: v for k, v in self._buffers.items() if k not in self._non_persistent_buffers_set}
        local_state = {k: v for k, v in [*self._parameters.items(), *persistent_buffers.items()] if v is not None}
        for name, param in local_state.items():
            key = prefix + name
            if key not in state_dict:
                if strict:
                    missing_keys.append(key)
                continue
            value = state_dict[key]
            if not isinstance(value, Tensor):
                error_msgs.append(
                    f'While copying the parameter named "{key}", expected torch.Tensor or Tensor-like object '
                    f"from checkpoint but received {type(value)}"
                )
                continue
            if value.shape != param.shape:
                error_msgs.append(
                    f"size mismatch for {key}: copying a param with shape {value.shape} from checkpoint, "
                    f"the shape in current model is {param.shape}."
                )
                continue
            if assign:
                if name in self._parameters:
                    self._parameters[name] = Parameter(value, requires_grad=param.requires_grad)
                else:
                    self._buffers[name] = value
                continue
            with no_grad():
                param.copy_(value)
        if strict:
            for key in state_dict:
                if not key.startswith(prefix):
                    continue
                # A key under a child's name is the child's business; anything else here is unexpected.
                input_name = key[len(prefix) :].split(".", 1)[0]
                if input_name not in self._modules and input_name not in local_state:
                    unexpected_keys.append(key)

    def load_state_dict(
        self, state_dict: Mapping[str, Any], strict: bool = True, assign: bool = False
    ) -> _IncompatibleKeys:
        """Copy parameters and persistent buffers from ``state_dict`` into this module, in place.

        With ``strict=True`` any missing or unexpected key, or a shape mismatch, raises
        ``RuntimeError`` listing every problem (torch's text); with ``strict=False`` the keys
        that did not match are returned in a named tuple ``(missing_keys, unexpected_keys)``
        (shape mismatches still raise).  ``assign=True`` makes the state's tensors the module's
        parameters and buffers (keeping each parameter's ``requires_grad``) instead of copying.
        """
        if not isinstance(state_dict, Mapping):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        missing: list[str] = []
        unexpected: list[str] = []
        errors: list[str] = []

        def load(module: Module, prefix: str) -> None:
            module._load_from_state_dict(state_dict, prefix, True, missing, unexpected, errors, assign=assign)
            for name, child in module._modules.items():
                if child is not None:
                    load(child, prefix + name + ".")

        load(self, "")
        if strict:
            if unexpected:
                errors.insert(
                    0, "Unexpected key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in unexpected))
                )
            if missing:
                errors.insert(0, "Missing key(s) in state_dict: {}. ".format(", ".join(f'"{k}"' for k in missing)))
        if errors:
            raise RuntimeError(
                "Error(s) in loading state_dict for {}:\n\t{}".format(type(self).__name__, "\n\t".join(errors))
            )
        return _IncompatibleKeys(missing, unexpected)

    # ------------------------------------------------------------------ printing
    def extra_repr(self) -> str:
        """The text inside this module's parentheses in ``repr`` (override it in a layer)."""
        return ""

    def _get_name(self) -> str:
        return type(self).__name__

    def __repr__(self) -> str:
        extra = self.extra_repr()
        lines = extra.split("\n") if extra else []
        for key, module in self._modules.items():
            lines.append("(" + key + "): " + _addindent(repr(module), 2))
        main = self._get_name() + "("
        if lines:
            if len(lines) == 1 and not self._modules:
                main += extra
            else:
                main += "\n  " + "\n  ".join(lines) + "\n"
        return main + ")"

"""MegEngine's instance-style ``Function`` (also torch's before 0.4), and the small part of
MegEngine around it that its own programs use (``GradManager``, ``Module``, ``Parameter``,
``Tensor``, ``tensor``, ``SGD``), on ctxgrad's one mechanism.

In MegEngine a custom op is an *object*: ``forward(self, *inputs)`` and ``backward(self,
*output_grads)`` are ordinary methods, whatever ``backward`` needs is kept on ``self``, and the
op is called as ``Sigmoid()(x)`` (or kept on a Module, ``self.layer1 = MulFunc()``, and called
on each step):

>>> import ctxgrad as F
>>> from ctxgrad.compat.megengine import Function
>>> class Sigmoid(Function):
...     def forward(self, x):
...         y = 1 / (1 + F.exp(-x))
...         self.y = y
...         return y
...
...     def backward(self, dy):
...         y = self.y
...         return dy * y * (1 - y)
>>> x = F.tensor([0.0, 2.0], requires_grad=True)
>>> y = Sigmoid()(x)
>>> y
tensor([0.5000, 0.8808], grad_fn=<SigmoidBackward>)
>>> y.sum().backward()
>>> x.grad
tensor([0.2500, 0.1050])

How it maps onto ctxgrad (read it as the lesson: the instance *is* the ctx). Each subclass gets
an ordinary :class:`ctxgrad.autograd.Function` of the same name, so its node is
``<Name>Backward`` and the engine, hooks, ``autograd.grad`` and the checker treat it like any
other op. Calling an instance runs that Function's ``apply``:

* ``forward`` runs with grad mode off (as in MegEngine and torch) on the instance itself;
* the tensors it keeps on ``self`` (``self.y``) are given to ``ctx.save_for_backward``, the rest
  of ``self.__dict__`` is kept as it is: so an output kept on ``self`` makes no reference cycle,
  and an in-place change to a kept tensor raises at backward instead of giving a wrong gradient;
* ``backward`` runs on a copy of the instance with that call's attributes restored, so an
  instance called again (on the next step) does not mix two calls' state. It gets one
  gradient per output, ``None`` for an output that did not reach the loss (MegEngine passes
  None, not zeros: ``ctx.set_materialize_grads(False)``), and is not called at all when no
  output got a gradient. It returns a tensor (one input) or a tuple with one gradient (or
  None) per input. Written in ctxgrad ops it is differentiable again (double backward).

MegEngine records gradients only while a :class:`GradManager` records (``with gm:``), for the
tensors attached to it. Here that is ``requires_grad``: recording turns it on for the
attached tensors and releasing turns it off again, and ``gm.backward`` is
``ctxgrad.autograd.grad`` into their ``.grad``. MegEngine has no ``requires_grad``, so its
``Tensor.numpy()`` never refuses: this module's :class:`Tensor` (and :class:`Parameter`) is a
ctxgrad tensor whose ``numpy()`` returns a copy of the values whatever the grad mode, and the
ctxgrad tensors a Function or a :class:`Module` returns, and those given to
``GradManager.backward``, are made such tensors. (ctxgrad's ops return ctxgrad tensors: on
another tensor that requires grad, read the values with ``item()`` or ``detach().numpy()``.)

The tensors are ctxgrad's: write ``import ctxgrad as F`` for ``megengine.functional`` (``F.exp``,
``F.maximum``, ``F.round`` are there). Differences from MegEngine are listed in
``docs/porting-megengine.md``. A function that calls instances can be traced
(``ctxgrad.trace``): each replay runs ``forward`` on a fresh copy of the instance as it was
before its call.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import numpy as np

from ctxgrad._factories import ones_like
from ctxgrad._tensor import Tensor as _CtxTensor
from ctxgrad.autograd._grad import grad as _autograd_grad
from ctxgrad.autograd.function import Function as _CtxFunction
from ctxgrad.autograd.grad_mode import no_grad
from ctxgrad.optim.sgd import SGD as _CtxSGD

__all__ = ["SGD", "Function", "GradManager", "Module", "Parameter", "Tensor", "tensor"]


class _Call:
    """What one call of an instance-style Function hands to its ctxgrad Function: the instance
    (forward reads it), then what backward needs to rebuild it (no tensors: those are saved)."""

    __slots__ = ("cls", "initial", "input_shapes", "instance", "state", "tensor_names")

    def __init__(self, instance: Function) -> None:
        self.instance: Function | None = instance
        self.cls = type(instance)
        self.initial = dict(vars(instance))  # (what a replay of a trace starts each run from)
        self.state: dict[str, Any] = {}
        self.tensor_names: tuple[str, ...] = ()
        self.input_shapes: tuple[tuple[int, ...], ...] = ()

    def again(self) -> _Call:
        """The same call on a fresh instance with the attributes this one started with: what
        a replay of ``ctxgrad.trace`` applies (each run keeps its own state for backward)."""
        instance = object.__new__(self.cls)
        vars(instance).update(self.initial)
        return _Call(instance)


class _InstanceCall(_CtxFunction):
    """The ctxgrad Function behind every instance-style subclass (one per subclass, named as it)."""

    @staticmethod
    def forward(ctx: Any, call: _Call, *inputs: _CtxTensor) -> Any:
        if call.instance is None:  # run again (a replay of ctxgrad.trace): on a fresh instance
            call = call.again()
        instance = call.instance
        assert instance is not None
        call.instance = None  # the node keeps the state, not the object the caller holds
        ctx.set_materialize_grads(False)
        name = call.cls.__name__
        out = instance.forward(*inputs)
        outs = out if isinstance(out, tuple) else (out,)
        for i, o in enumerate(outs):
            if not isinstance(o, _CtxTensor):
                where = "" if not isinstance(out, tuple) else f" as output {i}"
                raise TypeError(
                    f"{name}.forward returned a {type(o).__name__}{where}; it must return a tensor or a tuple of "
                    "tensors (wrap a NumPy result with ctxgrad.as_tensor(...))"
                )
        names, tensors = [], []
        for key, value in vars(instance).items():
            if isinstance(value, _CtxTensor):
                names.append(key)
                tensors.append(value)
            else:
                call.state[key] = value
        call.tensor_names = tuple(names)
        call.input_shapes = tuple(tuple(t.shape) for t in inputs)
        ctx.save_for_backward(*tensors)
        ctx.call = call
        return out

    @staticmethod
    def backward(ctx: Any, *output_grads: _CtxTensor | None) -> Any:
        call: _Call = ctx.call
        n = len(call.input_shapes)
        if all(g is None for g in output_grads):
            return (None,) * (n + 1)  # MegEngine does not call backward without a gradient
        instance = object.__new__(call.cls)
        vars(instance).update(call.state)
        vars(instance).update(zip(call.tensor_names, ctx.saved_tensors))
        got = call.cls.backward(instance, *output_grads)
        grads = tuple(got) if isinstance(got, (tuple, list)) else (got,)
        name = call.cls.__name__
        if len(grads) != n:
            raise RuntimeError(
                f"{name}.backward returned {len(grads)} gradient{'s' * (len(grads) != 1)}, but {name}.forward took "
                f"{n} input{'s' * (n != 1)}: return one per input (a tensor when there is one input, else a tuple), "
                "None where no gradient flows"
            )
        for i, (g, shape) in enumerate(zip(grads, call.input_shapes)):
            if g is None:
                continue
            if not isinstance(g, _CtxTensor):
                raise TypeError(
                    f"{name}.backward returned a {type(g).__name__} as the gradient of input {i}; expected a tensor "
                    "or None (wrap a NumPy result with ctxgrad.as_tensor(...))"
                )
            if tuple(g.shape) != shape:
                raise RuntimeError(
                    f"{name}.backward returned a gradient of shape {list(g.shape)} for input {i}, which has shape "
                    f"{list(shape)}"
                )
        return (None, *grads)


class Function:
    """Base class of MegEngine-style ops: override ``forward(self, *inputs)`` and
    ``backward(self, *output_grads)``, then call an instance: ``Sigmoid()(x)``.

    ``forward`` takes tensors and returns a tensor or a tuple of tensors; keep what backward
    needs on ``self``. ``backward`` gets one gradient per output (None for an output that did
    not reach the loss) and returns a tensor, or a tuple with one gradient or None per input.
    An instance may be called again: each call keeps its own state for its backward.
    """

    _ctxgrad_function: type[_CtxFunction] = _InstanceCall

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        # An ordinary ctxgrad Function per subclass, so its node is <Name>Backward.
        cls._ctxgrad_function = type(
            cls.__name__, (_InstanceCall,), {"__module__": cls.__module__, "__qualname__": cls.__qualname__}
        )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        pass

    def __call__(self, *inputs: Any) -> Any:
        cls = type(self)
        name = cls.__name__
        for i, x in enumerate(inputs):
            if not isinstance(x, _CtxTensor):
                raise TypeError(
                    f"op Function expect type Tensor as inputs, got {type(x)} (input {i} of {name}(); MegEngine's "
                    "Function takes only tensors: make it one with tensor(...), or keep it on self)"
                )
        if not inputs:
            raise TypeError(f"{name}() needs at least one tensor input")
        return _as_megengine(cls._ctxgrad_function.apply(_Call(self), *inputs))

    apply = __call__

    def forward(self, *inputs: Any) -> Any:
        """The outputs (a tensor or a tuple of tensors) from the input tensors."""
        raise NotImplementedError(f"{type(self).__name__} must override forward(self, *inputs)")

    def backward(self, *output_grads: Any) -> Any:
        """One gradient (or None) per input from one gradient (or None) per output."""
        raise NotImplementedError(f"{type(self).__name__} must override backward(self, *output_grads)")


# --------------------------------------------------------------------------- tensors
def _float32_default(data: Any, dtype: Any) -> Any:
    """MegEngine's default dtype: a float64 array (or Python floats) becomes float32."""
    if dtype is not None:
        return dtype
    kind = np.asarray(data._data if isinstance(data, _CtxTensor) else data).dtype
    return np.float32 if kind == np.float64 else kind


class Tensor(_CtxTensor):
    """A MegEngine tensor: a ctxgrad tensor whose ``numpy()`` always gives its values (a copy),
    as MegEngine's does, with no ``requires_grad`` refusal (MegEngine tracks gradients through
    :class:`GradManager`, not per tensor). ``Tensor(data, dtype=None, device=None, name=None)``;
    float64 data becomes float32, MegEngine's default."""

    def __init__(self, data: Any = (), dtype: Any = None, device: Any = None, name: str | None = None) -> None:
        if device not in (None, "cpu", "cpu0", "xpux", "cpux"):
            raise ValueError(f"Tensor: device {device!r} is not available here; ctxgrad computes on the CPU ('cpu')")
        if isinstance(data, _CtxTensor):
            data = data.detach().numpy().copy()
        super().__init__(data, dtype=_float32_default(data, dtype))
        self.name = name

    def numpy(self, *, force: bool = False) -> np.ndarray[Any, Any]:
        """The values as a new NumPy array (MegEngine's ``numpy()`` copies to the host)."""
        values: np.ndarray[Any, Any] = _CtxTensor.numpy(self, force=True).copy()
        return values


class Parameter(Tensor):
    """A tensor a :class:`Module` owns and :meth:`Module.parameters` lists."""


def tensor(data: Any, dtype: Any = None, device: Any = None, name: str | None = None) -> Tensor:
    """``megengine.tensor``: the same as ``Tensor(data, dtype, device)``."""
    return Tensor(data, dtype=dtype, device=device, name=name)


def _as_megengine(out: Any) -> Any:
    """The ctxgrad tensors in ``out`` (a tensor, or a tuple or list of them) made MegEngine
    tensors, in place (their class only: values, graph and identity stay)."""
    if type(out) is _CtxTensor:
        out.__class__ = Tensor
    elif isinstance(out, (tuple, list)):
        for o in out:
            _as_megengine(o)
    return out


# --------------------------------------------------------------------------- modules
class Module:
    """MegEngine's ``Module``: subclass it, set Parameters and sub-Modules as attributes, and
    define ``forward``; calling the module runs ``forward`` (its tensors come back as
    MegEngine tensors)."""

    def __init__(self, name: str | None = None) -> None:
        self.name = name
        self.training = True

    def forward(self, *inputs: Any, **kwargs: Any) -> Any:
        """What calling the module computes."""
        raise NotImplementedError(f"{type(self).__name__} must override forward(self, ...)")

    def __call__(self, *inputs: Any, **kwargs: Any) -> Any:
        return _as_megengine(self.forward(*inputs, **kwargs))

    def _attributes(self) -> Iterator[tuple[str, Any]]:
        """Each attribute, and each item of a list, tuple or dict attribute, sorted by name
        (the order MegEngine lists them in)."""
        for key in sorted(vars(self)):
            value = vars(self)[key]
            if isinstance(value, (list, tuple)):
                yield from ((f"{key}.{i}", v) for i, v in enumerate(value))
            elif isinstance(value, dict):
                yield from ((f"{key}.{k}", v) for k, v in sorted(value.items(), key=lambda kv: str(kv[0])))
            else:
                yield key, value

    def named_parameters(self, prefix: str | None = None, recursive: bool = True) -> Iterator[tuple[str, Parameter]]:
        """``(name, parameter)`` pairs, each parameter once, sub-modules' too when ``recursive``."""
        seen: set[int] = set()
        stack: list[tuple[str, Module]] = [("" if prefix is None else prefix + ".", self)]
        while stack:
            at, module = stack.pop(0)
            for key, value in module._attributes():
                if isinstance(value, Parameter) and id(value) not in seen:
                    seen.add(id(value))
                    yield at + key, value
                elif recursive and isinstance(value, Module):
                    stack.append((at + key + ".", value))

    def parameters(self, recursive: bool = True) -> Iterator[Parameter]:
        """Each :class:`Parameter` of this module (and of its sub-modules when ``recursive``)."""
        for _, p in self.named_parameters(recursive=recursive):
            yield p

    def children(self) -> Iterator[Module]:
        """The sub-modules directly held."""
        for _, value in self._attributes():
            if isinstance(value, Module):
                yield value

    def train(self, mode: bool = True) -> Module:
        """Set training mode on this module and its sub-modules."""
        self.training = mode
        for child in self.children():
            child.train(mode)
        return self

    def eval(self) -> Module:
        """``train(False)``."""
        return self.train(False)


# --------------------------------------------------------------------------- gradients
_RECORDING: list[GradManager] = []  # the GradManagers recording now (MegEngine's are global too)


class GradManager:
    """Computes gradients of the attached tensors while it records, as MegEngine's does::

        gm = GradManager().attach(model.parameters())
        with gm:                       # record
            loss = model(data)
            gm.backward(loss)          # gradients accumulate into each attached tensor's .grad

    ``backward(y, dy=None)``: ``dy`` defaults to ones; after it (or at the end of the ``with``)
    the manager stops recording and its graph is freed. Attached tensors require grad only
    while some manager that has them attached records.
    """

    def __init__(self) -> None:
        self._attached: dict[int, tuple[weakref.ref[_CtxTensor], list[Callable[..., Any]]]] = {}
        self._recording = False
        self._switched_on: list[_CtxTensor] = []

    def attached_tensors(self) -> list[_CtxTensor]:
        """The tensors attached (and still alive)."""
        return [t for ref, _ in self._attached.values() if (t := ref()) is not None]

    def attach(
        self, tensors: _CtxTensor | Iterable[_CtxTensor], callbacks: Callable[..., Any] | Iterable[Any] | None = None
    ) -> GradManager:
        """Track the operations on ``tensors`` from now on (while recording), so that
        ``backward`` gives them gradients. ``callbacks(tensor, grad) -> grad`` run on each
        gradient before it is accumulated. Returns the manager."""
        cbs = [] if callbacks is None else [callbacks] if callable(callbacks) else list(callbacks)
        for x in [tensors] if isinstance(tensors, _CtxTensor) else list(tensors):
            if not isinstance(x, _CtxTensor):
                raise TypeError(f"Object to be attached should be Tensor, got {type(x).__name__}")
            if x.dtype.is_complex or not x.dtype.is_floating_point:
                raise TypeError(
                    "Only tensors of floating point dtype can be attached to get gradients, get tensor dtype: "
                    f"{x.dtype} and shape: {tuple(x.shape)}"
                )
            entry = self._attached.get(id(x))
            if entry is None:
                self._attached[id(x)] = entry = (weakref.ref(x, self._forget(id(x))), [])
                if self._recording:
                    self._switch_on(x)
            entry[1].extend(cbs)
        return self

    def _forget(self, key: int) -> Callable[[Any], None]:
        me = weakref.ref(self)

        def forget(_: Any) -> None:
            manager = me()
            if manager is not None:
                manager._attached.pop(key, None)

        return forget

    def _switch_on(self, x: _CtxTensor) -> None:
        if x.grad_fn is None and not x.requires_grad:
            x.requires_grad_(True)
            self._switched_on.append(x)

    def record(self) -> None:
        """Start recording operations on the attached tensors."""
        if self._recording:
            raise RuntimeError("already recording")
        self._recording = True
        _RECORDING.append(self)
        for x in self.attached_tensors():
            self._switch_on(x)

    def release(self) -> None:
        """Stop recording (the attached tensors stop requiring grad, unless another recording
        manager has them attached)."""
        if not self._recording:
            return
        self._recording = False
        _RECORDING.remove(self)
        for x in self._switched_on:
            other = next((m for m in _RECORDING if id(x) in m._attached), None)
            if other is not None:
                other._switched_on.append(x)
            else:
                x.requires_grad_(False)
        self._switched_on = []

    def backward(self, y: Any = None, dy: Any = None) -> None:
        """Accumulate into each attached tensor's ``.grad`` the vector-Jacobian product of
        ``y`` (a tensor or a list) with ``dy`` (ones by default), then stop recording."""
        if not self._recording:
            raise RuntimeError(
                "no computation history. did you forget record() or call a method that clears the history?"
            )
        try:
            ys = [] if y is None else list(y) if isinstance(y, (tuple, list)) else [y]
            _as_megengine(ys)  # (``gm.backward(loss)``, then ``loss.numpy()``, as MegEngine's loops do)
            if dy is None:
                dys = [None] * len(ys)
            else:
                dys = list(dy) if isinstance(dy, (tuple, list)) else [dy]
                if len(dys) != len(ys):
                    raise ValueError(f"GradManager.backward: {len(ys)} tensors y but {len(dys)} gradients dy")
            pairs = [(t, g) for t, g in zip(ys, dys) if isinstance(t, _CtxTensor) and t.requires_grad]
            targets = [x for x in self.attached_tensors() if x.requires_grad]
            if not pairs or not targets:
                return
            outs = [t for t, _ in pairs]
            seeds = [_seed(t, g) for t, g in pairs]
            grads = _autograd_grad(outs, targets, seeds, allow_unused=True)
            for x, g in zip(targets, grads):
                for cb in self._attached[id(x)][1]:
                    g = cb(x, g)
                if g is None:
                    continue
                g = _as_megengine(g.detach())
                with no_grad():
                    if x.grad is None:
                        x.grad = g
                    else:
                        x.grad = _as_megengine(x.grad + g)
        finally:
            self.release()

    def __enter__(self) -> GradManager:
        self.record()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _seed(y: _CtxTensor, dy: Any) -> _CtxTensor:
    if dy is None:
        return ones_like(y)
    if not isinstance(dy, _CtxTensor):
        raise TypeError(f"GradManager.backward: dy must be a Tensor, got {type(dy).__name__}")
    if tuple(dy.shape) != tuple(y.shape):
        raise ValueError(f"GradManager.backward: dy has shape {tuple(dy.shape)}, but y has shape {tuple(y.shape)}")
    return dy


# --------------------------------------------------------------------------- optimizers
class SGD(_CtxSGD):
    """MegEngine's ``optimizer.SGD(params, lr, momentum=0.0, nesterov=False,
    weight_decay=0.0)``: ctxgrad's SGD with MegEngine's names; ``clear_grad()`` sets every
    ``.grad`` to None, ``step()`` updates in place (a parameter without a gradient is skipped)."""

    def __init__(
        self,
        params: Any,
        lr: float,
        momentum: float = 0.0,
        nesterov: bool = False,
        weight_decay: float = 0.0,
    ) -> None:
        super().__init__(params, lr=lr, momentum=momentum, nesterov=nesterov, weight_decay=weight_decay)

    def clear_grad(self) -> None:
        """Set each parameter's ``.grad`` to None."""
        self.zero_grad(set_to_none=True)

    def step(self, closure: Any = None) -> Any:
        """Update the parameters in place from their ``.grad`` (outside any recording)."""
        with no_grad():
            return super().step(closure)

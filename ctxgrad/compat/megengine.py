"""MegEngine's instance-style ``Function`` (also torch's before 0.4), on ctxgrad's one mechanism.

In MegEngine a custom op is an *object*: ``forward(self, *inputs)`` and ``backward(self,
*output_grads)`` are ordinary methods, whatever ``backward`` needs is kept on ``self``, and the
op is called as ``Sigmoid()(x)``, one new instance per call:

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
* ``backward`` runs on a copy of the instance with those attributes restored. It gets one
  gradient per output, ``None`` for an output that did not reach the loss (MegEngine passes
  None, not zeros: ``ctx.set_materialize_grads(False)``), and is not called at all when no
  output got a gradient. It returns a tensor (one input) or a tuple with one gradient (or
  None) per input. Written in ctxgrad ops it is differentiable again (double backward).

Differences from MegEngine: the inputs are ctxgrad tensors (as in MegEngine, anything else
is refused); calling an instance a second time raises instead of silently mixing two calls'
state; attributes set by ``backward`` are not seen on the instance you hold (it ran on a copy).
A function that calls instances can be traced (``ctxgrad.trace``): each replay runs ``forward``
on a fresh copy of the instance as it was before its call.
"""

from __future__ import annotations

from typing import Any

from ctxgrad._tensor import Tensor
from ctxgrad.autograd.function import Function as _CtxFunction

__all__ = ["Function"]


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
    def forward(ctx: Any, call: _Call, *inputs: Tensor) -> Any:
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
            if not isinstance(o, Tensor):
                where = "" if not isinstance(out, tuple) else f" as output {i}"
                raise TypeError(
                    f"{name}.forward returned a {type(o).__name__}{where}; it must return a tensor or a tuple of "
                    "tensors (wrap a NumPy result with ctxgrad.as_tensor(...))"
                )
        names, tensors = [], []
        for key, value in vars(instance).items():
            if isinstance(value, Tensor):
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
    def backward(ctx: Any, *output_grads: Tensor | None) -> Any:
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
            if not isinstance(g, Tensor):
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
    Each instance is called once.
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
        if vars(self).get("_ctxgrad_called"):
            raise RuntimeError(
                f"this {name} instance has already been called: an instance-style Function is used for one call "
                f"(its state on self belongs to that call). Make a new instance for each call: {name}()(...)"
            )
        if not inputs:
            raise TypeError(f"{name}() needs at least one tensor input")
        for i, x in enumerate(inputs):
            if not isinstance(x, Tensor):
                raise TypeError(
                    f"{name}() expects tensors as inputs, but input {i} is a {type(x).__name__} (MegEngine's "
                    "Function takes only tensors: make it one with ctxgrad.tensor(...))"
                )
        out = cls._ctxgrad_function.apply(_Call(self), *inputs)
        self._ctxgrad_called = True
        return out

    apply = __call__

    def forward(self, *inputs: Any) -> Any:
        """The outputs (a tensor or a tuple of tensors) from the input tensors."""
        raise NotImplementedError(f"{type(self).__name__} must override forward(self, *inputs)")

    def backward(self, *output_grads: Any) -> Any:
        """One gradient (or None) per input from one gradient (or None) per output."""
        raise NotImplementedError(f"{type(self).__name__} must override backward(self, *output_grads)")

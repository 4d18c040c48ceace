"""loupe's array ``Function``, on ctxgrad's one mechanism.

In loupe (a library for optical modelling) an op is a class whose *instance is its result*:
``Expc(x)`` runs ``forward(self)``, which reads the inputs' NumPy data (``self.inputs[0].data``
or ``.getdata()``), keeps what backward needs with ``cache_for_backward``, and returns an
ndarray; ``backward(self, grad)`` gets the output's gradient as an ndarray and pushes each
input's gradient into it with ``self.inputs[i].backward(g)``. Complex data works (loupe models
optical fields as complex arrays), with torch's convention (``docs/complex.md``):

>>> import numpy as np
>>> import ctxgrad
>>> from ctxgrad.compat import loupe
>>> class Expc(loupe.Function):
...     '''exp(i x): the field of a phase screen x.'''
...     def __init__(self, x):
...         self.input = loupe.asarray(x)
...         super().__init__(self.input)
...
...     def forward(self):
...         result = np.exp(1j * self.input.getdata())
...         self.cache_for_backward(result)
...         return result
...
...     def backward(self, grad):
...         (result,) = self.cache
...         self.input.backward(np.imag(grad * np.conj(result)))
>>> phase = loupe.array([0.0, np.pi / 2], requires_grad=True)
>>> field = Expc(phase)
>>> field.data.round(6)
array([1.+0.j, 0.+1.j])
>>> field
tensor([1.0000e+00+0.j, 6.1232e-17+1.j], dtype=ctxgrad.complex128, grad_fn=<ExpcBackward>)
>>> field.imag.sum().backward()          # d/dx sin(x) = cos(x)
>>> phase.grad
tensor([1.0000e+00, 6.1232e-17], dtype=ctxgrad.float64)

How it maps onto ctxgrad (the lesson: the instance is both the output and the ctx). Each
subclass gets an ordinary :class:`ctxgrad.autograd.Function` of the same name, so its node is
``<Name>Backward`` and the one engine runs it:

* constructing the instance applies that Function: ``forward(self)`` runs with grad mode off,
  its ndarray becomes the instance's values, and the instance is wired into the graph as the
  output (it is a ctxgrad :class:`~ctxgrad.Tensor`, with loupe's ``data`` (an ndarray),
  ``shape``, ``dtype``, ``ndim``, ``requires_grad`` and ``getdata(copy, dtype)``);
* the engine calls your ``backward`` on a copy of the instance in which each input is replaced
  by a *sink*: ``self.inputs[i].backward(g)`` (or ``self.input.backward(g)``, any attribute
  that holds an input) adds ``g`` to that input's gradient instead of starting a backward of
  its own, and the engine then carries the gradients on, as it does for any node. A real input
  gets the real part of what is pushed into it (loupe does the same);
* ``y.backward(grad)`` on a result, as loupe code calls it, starts the engine at ``y``, and
  accepts an ndarray or a number as ``grad``. Leaves (:class:`array`) get ``.grad`` as a
  ctxgrad tensor (``np.asarray(x.grad)`` for the ndarray).

Differences from loupe: ``data`` is the value computed when the instance was made (loupe
re-runs ``forward`` on every read); to evaluate again with new input values, build the
expression again, as in torch. ``backward`` is once-differentiable (NumPy inside).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ctxgrad._tensor import Tensor
from ctxgrad.autograd.function import Function as _CtxFunction
from ctxgrad.autograd.function import once_differentiable

__all__ = ["Function", "array", "asarray"]


class _LoupeValues(Tensor):
    """What loupe's arrays and Function results have besides a ctxgrad tensor's API."""

    @property  # type: ignore[misc]  # loupe's data is the ndarray (read-only here)
    def data(self) -> np.ndarray[Any, Any]:  # type: ignore[override]
        """The values, an ndarray (loupe's ``data``; shared, not a copy)."""
        return self.array

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray[Any, Any]:
        """``np.asarray(y)``: the values (loupe's, also for a result that requires grad)."""
        return np.array(self.array, dtype=dtype, copy=True) if copy else np.asarray(self.array, dtype=dtype)

    def getdata(self, copy: bool = False, dtype: Any = None) -> np.ndarray[Any, Any]:
        """The values as an ndarray: a copy with ``copy=True``, cast to ``dtype`` when given."""
        data = self.array.copy() if copy else self.array
        return data if dtype is None else data.astype(dtype)

    def backward(
        self, grad: Any = None, retain_graph: bool | None = None, create_graph: bool = False, inputs: Any = None
    ) -> None:
        """Run the engine from here; ``grad`` may be an ndarray or a number (loupe passes those)."""
        if grad is not None and not isinstance(grad, Tensor):
            grad = Tensor(np.asarray(grad).astype(self.dtype))
        Tensor.backward(self, grad, retain_graph, create_graph, inputs)


class array(_LoupeValues):
    """loupe's array: a leaf tensor made from array-like data (NumPy's dtype rules: Python
    floats give float64). ``mask`` is kept as loupe keeps it (True marks invalid entries)."""

    def __init__(self, object: Any, dtype: Any = None, mask: Any = None, requires_grad: bool = False) -> None:
        super().__init__(np.asarray(object, dtype=dtype), requires_grad=requires_grad)
        self.mask = np.asarray(mask, dtype=bool)


def asarray(a: Any) -> _LoupeValues:
    """``a`` as a loupe value: an :class:`array` or a :class:`Function` result as it is, a ctxgrad
    tensor as a view of it (its gradient flows back to ``a``), anything else as a new array."""
    if isinstance(a, _LoupeValues):
        return a
    if isinstance(a, Tensor):
        view = a.view_as(a)
        view.__class__ = array  # the same tensor, with loupe's data/getdata
        return view  # type: ignore[return-value]
    return array(a)


class _Sink:
    """An input as a loupe backward sees it: ``backward(g)`` adds ``g`` to its gradient."""

    def __init__(self, tensor: Tensor, needed: bool, owner: str, index: int) -> None:
        self.tensor = tensor
        self.requires_grad = needed
        self.owner = owner
        self.index = index
        self.grad: np.ndarray[Any, Any] | None = None

    @property
    def data(self) -> np.ndarray[Any, Any]:
        return self.tensor.array

    def getdata(self, copy: bool = False, dtype: Any = None) -> np.ndarray[Any, Any]:
        data = self.tensor.array.copy() if copy else self.tensor.array
        return data if dtype is None else data.astype(dtype)

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.tensor.shape)

    @property
    def dtype(self) -> np.dtype[Any]:
        return self.tensor.dtype

    @property
    def ndim(self) -> int:
        return self.tensor.ndim

    def backward(self, grad: Any) -> None:
        if not self.requires_grad:
            return  # (loupe ignores a gradient pushed into an input that does not need one)
        g = np.asarray(grad)
        if g.shape != self.shape:
            raise RuntimeError(
                f"{self.owner}.backward pushed a gradient of shape {list(g.shape)} into inputs[{self.index}], "
                f"which has shape {list(self.shape)}"
            )
        if self.dtype.kind != "c":
            g = g.real  # a real input: the real part, as loupe's array.backward takes
        g = g.astype(self.dtype, copy=False)
        self.grad = g.copy() if self.grad is None else self.grad + g


class _Call:
    """One construction of a loupe Function: the instance (forward reads it), then the state
    its backward needs (the instance's attributes; the inputs are saved tensors)."""

    __slots__ = ("cls", "initial", "instance", "state")

    def __init__(self, instance: Function) -> None:
        self.instance: Function | None = instance
        self.cls = type(instance)
        self.initial = dict(vars(instance))  # (what a replay of a trace starts each run from)
        self.state: dict[str, Any] = {}

    def again(self, inputs: tuple[Tensor, ...]) -> _Call:
        """The same construction on ``inputs``: a fresh instance with the attributes this one
        started with, each input replaced by the new one (as a loupe value).  What a replay of
        ``ctxgrad.trace`` applies."""
        new = {id(old): asarray(t) for old, t in zip(self.initial["_inputs"], inputs)}
        instance = object.__new__(self.cls)
        vars(instance).update({k: _swap(v, new) for k, v in self.initial.items()})
        return _Call(instance)


def _swap(value: Any, sinks: dict[int, Any]) -> Any:
    """``value`` with each input replaced by its sink (also inside a tuple or list)."""
    if isinstance(value, Tensor):
        return sinks.get(id(value), value)
    if isinstance(value, (tuple, list)) and any(isinstance(v, Tensor) for v in value):
        return type(value)(sinks.get(id(v), v) if isinstance(v, Tensor) else v for v in value)
    return value


class _LoupeCall(_CtxFunction):
    """The ctxgrad Function behind every loupe-style subclass (one per subclass, named as it)."""

    @staticmethod
    def forward(ctx: Any, call: _Call, *inputs: Tensor) -> Any:
        if call.instance is None:  # run again (a replay of ctxgrad.trace): a fresh instance on these inputs
            call = call.again(inputs)
        instance = call.instance
        assert instance is not None
        call.instance = None  # the node keeps the state, not the result (no reference cycle)
        name = call.cls.__name__
        result = instance.forward()
        if isinstance(result, Tensor):
            result = result.array
        arr = np.asarray(result)
        if arr.dtype.kind not in "biufc":
            raise TypeError(
                f"{name}.forward returned {type(result).__name__} of dtype {arr.dtype}; it must return a numeric "
                "ndarray (or a number)"
            )
        Tensor.__init__(instance, arr)
        call.state = dict(vars(instance))
        ctx.save_for_backward(*inputs)
        ctx.call = call
        return instance

    @staticmethod
    @once_differentiable
    def backward(ctx: Any, grad: Tensor) -> Any:
        call: _Call = ctx.call
        inputs = ctx.saved_tensors
        name = call.cls.__name__
        needs = ctx.needs_input_grad[1:]
        sinks = [_Sink(t, need, name, i) for i, (t, need) in enumerate(zip(inputs, needs))]
        by_id = {id(t): s for t, s in zip(inputs, sinks)}
        # The inputs as the forward saw them (the saved tensors unpack as new objects).
        originals = call.state["_inputs"]
        by_id.update({id(t): s for t, s in zip(originals, sinks)})
        twin = object.__new__(call.cls)
        vars(twin).update({k: _swap(v, by_id) for k, v in call.state.items()})
        call.cls._loupe_backward(twin, grad.array)
        grads = [None if s.grad is None else Tensor(s.grad) for s in sinks]
        return (None, *grads)


class Function(_LoupeValues):
    """Base class of loupe-style ops: ``__init__`` takes the inputs (call
    ``super().__init__(*inputs)`` last), ``forward(self)`` returns an ndarray computed from
    ``self.inputs[i].data`` / ``.getdata()``, and ``backward(self, grad)`` pushes each input's
    gradient with ``self.inputs[i].backward(g)``. The instance is the result."""

    _ctxgrad_function: type[_CtxFunction] = _LoupeCall

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        rule = cls.__dict__.get("backward")
        if rule is not None:
            # The subclass's backward is the rule the engine calls; ``y.backward(g)`` on a
            # result starts the engine (as _LoupeValues.backward), which calls the rule.
            cls._loupe_backward = rule  # type: ignore[method-assign]
            cls.backward = _LoupeValues.backward  # type: ignore[method-assign]
        cls._ctxgrad_function = type(
            cls.__name__, (_LoupeCall,), {"__module__": cls.__module__, "__qualname__": cls.__qualname__}
        )

    def __init__(self, *inputs: Any) -> None:
        self._inputs = tuple(asarray(x) for x in inputs)
        self._cache: tuple[Any, ...] = ()
        type(self)._ctxgrad_function.apply(_Call(self), *self._inputs)

    @property
    def inputs(self) -> tuple[Any, ...]:
        """The inputs the function operates on (loupe arrays or results)."""
        return self._inputs

    @property
    def cache(self) -> tuple[Any, ...]:
        """What :meth:`cache_for_backward` kept."""
        return self._cache

    def cache_for_backward(self, *data: Any) -> None:
        """Keep data (ndarrays, usually) for :meth:`backward`; call it from ``forward``."""
        self._cache = data

    def forward(self) -> Any:
        """The result, an ndarray, from the inputs' data."""
        raise NotImplementedError(f"{type(self).__name__} must override forward(self)")

    def _loupe_backward(self, grad: np.ndarray[Any, Any]) -> None:
        raise NotImplementedError(
            f"{type(self).__name__} must override backward(self, grad), pushing each input's gradient with "
            "self.inputs[i].backward(g)"
        )

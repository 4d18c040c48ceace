"""loupe's arrays and ``Function``, on ctxgrad's one mechanism.

loupe (a library for optical modelling, github andykee/loupe) builds a model once and evaluates
it many times: an op is a class whose *instance is its result*.  ``expc(x)`` keeps its inputs,
and ``forward(self)`` computes an ndarray from their data (``self.input.getdata()``), keeping
what backward needs with ``cache_for_backward``; ``backward(self, grad)`` gets the output's
gradient as an ndarray and pushes each input's gradient on with ``self.inputs[i].backward(g)``.
A leaf (:class:`array`) is a parameter: written in place between evaluations (``x[...] = v``),
its ``grad`` an ndarray that backward adds into (zero until then).  Complex data works, with
torch's convention (``docs/complex.md``):

>>> import numpy as np
>>> from ctxgrad.compat import loupe
>>> class expc(loupe.Function):
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
>>> field = expc(phase)
>>> field.data.round(6)
array([1.+0.j, 0.+1.j])
>>> cost = loupe.sum(loupe.multiply(field, [1j, 1j]))   # sum(i exp(i x)): d/dx is -exp(i x)
>>> cost.backward(1.0)
>>> phase.grad.round(6)                  # the real part of what reaches a real leaf
array([-1., -0.])
>>> phase[...] = [np.pi, 0.0]            # written in place: the model follows
>>> field.data.round(6)
array([-1.+0.j,  1.+0.j])

How it maps onto ctxgrad (the lesson: a model is a graph you can run again).  Each subclass
gets an ordinary :class:`ctxgrad.autograd.Function` of the same name (its node is
``<Name>Backward``).  Evaluating a model (constructing it, reading ``data`` after an input
changed, or calling ``backward``) applies those Functions in order, from leaf tensors holding
the arrays' current values: a fresh ctxgrad graph, run by the one engine.  The result's
``tensor`` is that graph's output, a ctxgrad tensor (``gradcheck`` it, or mix it with ctxgrad
ops).  ``y.backward(grad)`` runs the engine from that output and adds each leaf's gradient into
its ``grad``.  The engine calls your ``backward`` on a copy of the instance in which each input
is a *sink*: ``self.inputs[i].backward(g)`` hands ``g`` to the engine instead of recursing.

Differences from loupe: ``data`` is re-computed only when a leaf changed (loupe runs
``forward`` again on every read), and a node used twice runs once per evaluation (loupe runs it
once per use); a change to a Function's own attributes (``power.exp``) is not seen: build the
model again.  ``backward`` is once-differentiable (NumPy inside).  ``np.add``/``np.subtract``/
``np.multiply``/``np.power`` called on a loupe value give the loupe op, as the operators do
(loupe gives an ndarray).  The NumPy-only helpers ``zernike*``, ``centroid``, ``rebin``...: see
``docs/porting-loupe.md`` for what is here and what is not.
"""

from __future__ import annotations

import string
import sys
import threading
import types
from collections.abc import Callable, Sequence
from typing import Any, NamedTuple

import numpy as np

from ctxgrad._tensor import Tensor, as_tensor
from ctxgrad.autograd import grad as _autograd_grad
from ctxgrad.autograd.function import Function as _CtxFunction
from ctxgrad.autograd.function import once_differentiable

__all__ = [
    "Function",
    "add",
    "array",
    "asarray",
    "centroid",
    "einsum",
    "exp",
    "expc",
    "multiply",
    "ones",
    "ones_like",
    "optimize",
    "power",
    "rand",
    "randn",
    "slice",
    "sserror",
    "subtract",
    "sum",
    "zeros",
    "zeros_like",
    "zernike",
    "zernike_basis",
    "zernike_coordinates",
    "zernike_index",
]

_builtin_slice = slice
_builtin_sum = sum


# --------------------------------------------------------------------------- values
class Node:
    """What loupe's arrays and Function results share: operators that build loupe ops,
    NumPy conversion through ``__array__``, printing as an ndarray, ``getdata``."""

    # NumPy defers ``ndarray * node`` to ``node.__rmul__`` (loupe's choice), and converts a
    # node through ``__array__`` for any other NumPy function (np.conj, np.fft.fft2, ...).
    __array_priority__ = 1

    def __add__(self, other: Any) -> Function:
        return add(self, other)

    def __radd__(self, other: Any) -> Function:
        return add(other, self)

    def __sub__(self, other: Any) -> Function:
        return subtract(self, other)

    def __rsub__(self, other: Any) -> Function:
        return subtract(other, self)

    def __mul__(self, other: Any) -> Function:
        return multiply(self, other)

    def __rmul__(self, other: Any) -> Function:
        return multiply(other, self)

    def __pow__(self, exponent: Any) -> Function:
        return power(self, exponent)

    def __neg__(self) -> Function:
        return multiply(self, -1.0)

    def __getitem__(self, index: Any) -> Function:
        return slice(self, index)

    def __array__(self, dtype: Any = None, copy: bool | None = None) -> np.ndarray[Any, Any]:
        data = self.data
        return np.array(data, dtype=dtype, copy=True) if copy else np.asarray(data, dtype=dtype)

    def __array_ufunc__(self, ufunc: Any, method: str, *args: Any, **kwargs: Any) -> Any:
        """A NumPy ufunc on a loupe value: the four that loupe's operators build give the loupe
        op (so ``ndarray * x`` stays on the graph; a power only with a loupe base, as ``**``);
        any other computes on the values."""
        ops = _UFUNC_OPS.get(ufunc)
        if (
            ops is not None
            and method == "__call__"
            and len(args) == 2
            and not kwargs
            and (ufunc is not np.power or isinstance(args[0], Node))
        ):
            return ops(*args)
        plain = [np.asarray(a) if isinstance(a, Node) else a for a in args]
        return getattr(ufunc, method)(*plain, **kwargs)

    def __str__(self) -> str:
        return np.array_str(self.data)

    def __repr__(self) -> str:
        return np.array_repr(self.data)

    @property
    def data(self) -> np.ndarray[Any, Any]:
        """The values, an ndarray."""
        raise NotImplementedError

    @property
    def dtype(self) -> np.dtype[Any]:
        """The data type of the elements."""
        dtype: np.dtype[Any] = self.data.dtype
        return dtype

    @property
    def shape(self) -> tuple[int, ...]:
        """The dimensions."""
        return tuple(self.data.shape)

    @property
    def ndim(self) -> int:
        """The number of dimensions."""
        return len(self.shape)

    @property
    def size(self) -> int:
        """The number of elements."""
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def requires_grad(self) -> bool:
        """Whether backward computes a gradient for this value."""
        raise NotImplementedError

    def backward(self, grad: Any) -> None:
        """Push ``grad`` (the gradient of this value) on towards the leaves."""
        raise NotImplementedError

    def getdata(self, copy: bool = False, dtype: Any = None) -> np.ndarray[Any, Any]:
        """The values: a copy with ``copy=True``, cast to ``dtype`` when given."""
        data = self.data.copy() if copy else self.data
        return data if dtype is None else data.astype(dtype)


class array(Node):
    """loupe's array: a leaf (a parameter or a constant) made from array-like data, with NumPy's
    dtype rules.  ``mask`` marks invalid entries with True (None: none); ``grad`` is an ndarray,
    zero until a backward adds into it (float, or complex for complex data)."""

    def __init__(self, object: Any, dtype: Any = None, mask: Any = None, requires_grad: bool = False) -> None:
        if isinstance(object, Node):
            object = object.data
        self._data: np.ndarray[Any, Any] = np.asarray(object, dtype=dtype)  # (an ndarray is shared, as in loupe)
        if self._data.dtype.kind not in "biufc":
            raise TypeError(f"loupe.array holds numbers, not {self._data.dtype} (got {type(object).__name__})")
        self.mask = mask
        self.requires_grad = requires_grad
        self.zero_grad()

    @property
    def data(self) -> np.ndarray[Any, Any]:
        """The values (shared: writing into them changes the array)."""
        return self._data

    @property
    def strides(self) -> tuple[int, ...]:
        return tuple(self._data.strides)

    def __setitem__(self, index: Any, value: Any) -> None:
        self._data[index] = np.asarray(value, dtype=self._data.dtype)

    @property
    def mask(self) -> np.ndarray[Any, Any] | None:
        """True where an entry is invalid; None when the array is not masked."""
        return self._mask

    @mask.setter
    def mask(self, value: Any) -> None:
        if value is None:
            self._mask = None
            return
        mask = np.asarray(value, dtype=bool)
        if mask.shape != self._data.shape:
            raise ValueError(f"Mask must have same shape as array: got {mask.shape}, array has {self._data.shape}")
        self._mask = mask

    @property
    def requires_grad(self) -> bool:
        """Whether backward adds a gradient into :attr:`grad` (any dtype may: the gradient is a
        float array)."""
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if not isinstance(value, (bool, np.bool_)):
            raise TypeError(f"requires_grad must be a bool, not {type(value).__name__}")
        self._requires_grad = bool(value)

    @property
    def grad(self) -> Any:
        """The accumulated gradient, an ndarray (zero until a backward)."""
        return self._grad

    @grad.setter
    def grad(self, value: Any) -> None:
        self._grad = value

    def zero_grad(self) -> None:
        """Set the gradient to zeros."""
        self._grad = np.zeros(self._data.shape, dtype=complex if self._data.dtype.kind == "c" else float)

    def flatten(self, apply_mask: bool = False) -> np.ndarray[Any, Any]:
        """The values in one dimension (only the valid ones with ``apply_mask=True``)."""
        valid: np.ndarray[Any, Any] = self._data[~self._mask] if apply_mask and self._mask is not None else self._data
        return valid.flatten()

    def grad_flatten(self, apply_mask: bool = False) -> np.ndarray[Any, Any]:
        """The gradient in one dimension (only the valid entries with ``apply_mask=True``)."""
        grad: np.ndarray[Any, Any] = np.asarray(self._grad)
        return (grad[~self._mask] if apply_mask and self._mask is not None else grad).flatten()

    def backward(self, grad: Any) -> None:
        """Add ``grad`` into :attr:`grad` (its real part for real data); nothing when the array
        does not require grad."""
        if not self._requires_grad:
            return
        g = np.asarray(grad)
        if self._data.dtype.kind != "c":
            g = g.real
        self._grad = self._grad + g


class _TensorInput(Node):
    """A ctxgrad tensor used as a loupe input: its values, and its gradient through ctxgrad."""

    def __init__(self, tensor: Tensor) -> None:
        self.tensor = tensor

    @property
    def data(self) -> np.ndarray[Any, Any]:
        return self.tensor.array

    @property
    def requires_grad(self) -> bool:
        return self.tensor.requires_grad

    def backward(self, grad: Any) -> None:
        """Add ``grad`` into the tensor's ``.grad`` (nothing when it does not require grad)."""
        if self.tensor.requires_grad:
            g = as_tensor(np.array(np.asarray(grad), dtype=self.tensor.array.dtype))
            self.tensor.grad = g if self.tensor.grad is None else self.tensor.grad + g


def asarray(a: Any, dtype: Any = None, mask: Any = None, requires_grad: bool = False) -> Node:
    """``a`` as a loupe value: an array or Function result as it is (options refused there, as
    loupe refuses them), a ctxgrad tensor as an input its gradient flows back to, and numbers,
    lists, tuples and ndarrays as a new :class:`array`."""
    if isinstance(a, Node):
        if dtype is not None or mask is not None or requires_grad:
            raise ValueError("Unable to modify existing loupe array.")
        return a
    if isinstance(a, Tensor):
        return _TensorInput(a)
    if isinstance(a, (bool, int, float, complex, list, tuple, np.ndarray, np.generic)):
        return array(a, dtype=dtype, mask=mask, requires_grad=requires_grad)
    raise TypeError(f"Unsupported type. Cannot create array from {type(a).__name__}")


# --------------------------------------------------------------------------- evaluation
_current = threading.local()  # the evaluation running in this thread, if any


class _Leaf(NamedTuple):
    node: Node
    requires_grad: bool
    shape: tuple[int, ...]
    dtype: np.dtype[Any]
    values: bytes


class _Evaluation:
    """One run of a model: the leaves' values it read (to tell later whether it is still
    current) and the leaf tensors its graph starts from."""

    def __init__(self, root: Function) -> None:
        self.order: list[Function] = []
        leaves: dict[int, Node] = {}
        seen: set[int] = set()
        stack: list[tuple[Node, bool]] = [(root, False)]
        while stack:  # iterative post-order: inputs before the Functions that read them
            node, expanded = stack.pop()
            if isinstance(node, Function):
                if expanded:
                    self.order.append(node)
                elif id(node) not in seen:
                    seen.add(id(node))
                    stack.append((node, True))
                    stack.extend((i, False) for i in reversed(node._inputs))
            else:
                leaves.setdefault(id(node), node)
        self.leaves = [_Leaf(n, n.requires_grad, n.shape, n.dtype, n.data.tobytes()) for n in leaves.values()]
        self.tensors: dict[int, Tensor] = {}

    def current(self) -> bool:
        """Whether every leaf still has the values and ``requires_grad`` this run read."""
        return all(
            leaf.node.requires_grad == leaf.requires_grad
            and leaf.node.shape == leaf.shape
            and leaf.node.dtype == leaf.dtype
            and leaf.node.data.tobytes() == leaf.values
            for leaf in self.leaves
        )

    def run(self) -> None:
        for leaf in self.leaves:
            node = leaf.node
            if isinstance(node, _TensorInput):
                self.tensors[id(node)] = node.tensor
            else:
                values = node.data
                values = values.astype(np.float64) if values.dtype.kind in "biu" else values.copy()
                self.tensors[id(node)] = as_tensor(values).requires_grad_(leaf.requires_grad)
        outer = getattr(_current, "run", None)
        _current.run = self
        try:
            for fn in self.order:
                call = _Call(fn)
                out = type(fn)._ctxgrad_function.apply(call, *(self.tensors[id(i)] for i in fn._inputs))
                fn._value, fn._tensor, fn._evaluation = call.value, out, self
                self.tensors[id(fn)] = out
        finally:
            _current.run = outer
            # Each Function of the model refers to this run, and each graph node to the inputs
            # of its Function: the run keeps only the leaves' tensors, or a cycle would form.
            for fn in self.order:
                self.tensors.pop(id(fn), None)
            self.order = []

    def backward(self, output: Tensor, grad: Tensor) -> None:
        """Run the engine from ``output`` and add each leaf's gradient into it."""
        wanted = [leaf.node for leaf in self.leaves if leaf.requires_grad]
        tensors = [self.tensors[id(n)] for n in wanted]
        if output.grad_fn is None or not tensors:
            return
        grads = _autograd_grad([output], tensors, [grad], retain_graph=True, allow_unused=True)
        for node, g in zip(wanted, grads):
            if g is None:
                continue
            if isinstance(node, _TensorInput):
                t = node.tensor
                t.grad = g if t.grad is None else t.grad + g
            else:
                assert isinstance(node, array)
                node.backward(g.array)


class _Sink:
    """An input as a loupe backward sees it: ``backward(g)`` hands ``g`` to the engine."""

    def __init__(
        self, values: np.ndarray[Any, Any], dtype: np.dtype[Any], needed: bool, owner: str, index: int
    ) -> None:
        self.data = values
        self.tensor_dtype = dtype
        self.requires_grad = needed
        self.owner = owner
        self.index = index
        self.grad: np.ndarray[Any, Any] | None = None

    def getdata(self, copy: bool = False, dtype: Any = None) -> np.ndarray[Any, Any]:
        data = self.data.copy() if copy else self.data
        return data if dtype is None else data.astype(dtype)

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self.data.shape)

    @property
    def dtype(self) -> np.dtype[Any]:
        dtype: np.dtype[Any] = self.data.dtype
        return dtype

    @property
    def ndim(self) -> int:
        return self.data.ndim

    def backward(self, grad: Any) -> None:
        if not self.requires_grad:
            return  # (loupe ignores a gradient pushed into an input that does not need one)
        g = np.asarray(grad)
        if g.shape != self.shape:
            raise RuntimeError(
                f"{self.owner}.backward pushed a gradient of shape {list(g.shape)} into inputs[{self.index}], "
                f"which has shape {list(self.shape)}"
            )
        if self.tensor_dtype.kind != "c":
            g = g.real  # a real input: the real part, as loupe's array.backward takes
        g = g.astype(self.tensor_dtype, copy=False)
        self.grad = g.copy() if self.grad is None else self.grad + g


# What a Function instance keeps that a backward does not need (the graph would hold it).
_EVALUATION_FIELDS = ("_value", "_tensor", "_evaluation")


class _Call:
    """One run of a loupe Function's forward: the instance (forward reads it), then the state
    its backward needs (the instance's attributes, the inputs' values) and the result."""

    __slots__ = ("cls", "initial", "inputs", "instance", "state", "value")

    def __init__(self, instance: Function) -> None:
        self.instance: Function | None = instance
        self.cls = type(instance)
        self.initial = {k: v for k, v in vars(instance).items() if k not in _EVALUATION_FIELDS}
        self.state: dict[str, Any] = {}
        self.inputs: tuple[Node, ...] = ()
        self.value: np.ndarray[Any, Any] = np.empty(0)

    def again(self, inputs: tuple[Tensor, ...]) -> _Call:
        """The same call on ``inputs`` (ctxgrad tensors): a fresh instance with the attributes
        this one started with, each input replaced.  What a replay of ``ctxgrad.trace`` runs."""
        new = {id(old): asarray(t) for old, t in zip(self.initial["_inputs"], inputs)}
        instance = object.__new__(self.cls)
        vars(instance).update({k: _swap(v, new) for k, v in self.initial.items()})
        return _Call(instance)


def _swap(value: Any, replace: dict[int, Any]) -> Any:
    """``value`` with each input replaced (also inside a tuple or list)."""
    if isinstance(value, Node):
        return replace.get(id(value), value)
    if isinstance(value, (tuple, list)) and any(isinstance(v, Node) for v in value):
        return type(value)(replace.get(id(v), v) if isinstance(v, Node) else v for v in value)
    return value


class _LoupeCall(_CtxFunction):
    """The ctxgrad Function behind every loupe-style subclass (one per subclass, named as it)."""

    @staticmethod
    def forward(ctx: Any, call: _Call, *inputs: Tensor) -> Tensor:
        if call.instance is None:  # run again (a replay of ctxgrad.trace): a fresh instance on these inputs
            call = call.again(inputs)
        instance = call.instance
        assert instance is not None
        call.instance = None  # the node keeps the state, not the result (no reference cycle)
        name = call.cls.__name__
        result = instance.forward()
        if isinstance(result, Node):
            result = result.data
        value = np.asarray(result)
        if value.dtype.kind not in "biufc":
            raise TypeError(
                f"{name}.forward returned {type(result).__name__} of dtype {value.dtype}; it must return a numeric "
                "ndarray (or a number)"
            )
        call.value = value
        call.inputs = instance._inputs
        call.state = {k: v for k, v in vars(instance).items() if k not in _EVALUATION_FIELDS}
        ctx.call = call
        ctx.input_dtypes = [t.dtype for t in inputs]
        return as_tensor(value.astype(np.float64) if value.dtype.kind in "biu" else value.copy())

    @staticmethod
    @once_differentiable
    def backward(ctx: Any, grad: Tensor) -> Any:
        call: _Call = ctx.call
        name = call.cls.__name__
        needs = ctx.needs_input_grad[1:]
        sinks = [
            _Sink(np.asarray(node.data), np.dtype(dtype), need, name, i)
            for i, (node, dtype, need) in enumerate(zip(call.inputs, ctx.input_dtypes, needs))
        ]
        twin = object.__new__(call.cls)
        vars(twin).update({k: _swap(v, {id(n): s for n, s in zip(call.inputs, sinks)}) for k, v in call.state.items()})
        call.cls._loupe_backward(twin, np.array(grad.array))  # (a copy: loupe's own ops change it in place)
        return (None, *(None if s.grad is None else as_tensor(s.grad) for s in sinks))


class Function(Node):
    """Base class of loupe ops: ``__init__`` keeps the inputs (and calls
    ``super().__init__(*inputs)`` last), ``forward(self)`` returns an ndarray computed from
    ``self.inputs[i].getdata()``, and ``backward(self, grad)`` pushes each input's gradient
    with ``self.inputs[i].backward(g)``.  The instance is the result; ``data`` follows its
    inputs, ``backward(grad)`` may run any number of times."""

    _ctxgrad_function: type[_CtxFunction] = _LoupeCall
    _evaluation: _Evaluation | None = None
    _tensor: Tensor
    _value: np.ndarray[Any, Any]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        rule = cls.__dict__.get("backward")
        if rule is not None:
            # The subclass's backward is the rule the engine calls; ``y.backward(g)`` on a
            # result starts the engine (Function.backward), which calls the rule.
            cls._loupe_backward = rule  # type: ignore[method-assign]
            cls.backward = Function.backward  # type: ignore[method-assign]
        cls._ctxgrad_function = type(
            cls.__name__, (_LoupeCall,), {"__module__": cls.__module__, "__qualname__": cls.__qualname__}
        )

    def __init__(self, *inputs: Any) -> None:
        self._inputs = tuple(asarray(x) for x in inputs)
        self._cache: tuple[Any, ...] = ()
        _Evaluation(self).run()

    def _evaluated(self) -> _Evaluation:
        run = self._evaluation
        if run is None or (run is not getattr(_current, "run", None) and not run.current()):
            run = _Evaluation(self)
            run.run()
        return run

    @property
    def data(self) -> np.ndarray[Any, Any]:
        """The result, computed again first if an input changed since it was last computed."""
        self._evaluated()
        return self._value

    @property
    def dtype(self) -> np.dtype[Any]:
        dtype: np.dtype[Any] = self._value.dtype
        return dtype

    @property
    def shape(self) -> tuple[int, ...]:
        return tuple(self._value.shape)

    @property
    def tensor(self) -> Tensor:
        """The result as a ctxgrad tensor, the output of the graph of the latest evaluation."""
        self._evaluated()
        return self._tensor

    @property
    def inputs(self) -> tuple[Any, ...]:
        """The inputs the function operates on."""
        return self._inputs

    @property
    def requires_grad(self) -> bool:
        """True if any input requires grad."""
        return any(i.requires_grad for i in self._inputs)

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

    def backward(self, grad: Any) -> None:
        """Add the gradients of this result (given ``grad``, an array-like broadcastable to its
        shape) into every leaf that requires grad."""
        run = self._evaluated()
        out = self._tensor
        g = np.asarray(grad)
        if g.dtype.kind not in "biufc":
            raise TypeError(f"{type(self).__name__}.backward: grad must be numbers, got {type(grad).__name__}")
        if g.dtype.kind == "c" and out.array.dtype.kind != "c":
            raise TypeError(f"{type(self).__name__}.backward: a complex grad for a real result")
        try:
            g = np.broadcast_to(g, tuple(out.shape))
        except ValueError:
            raise ValueError(
                f"{type(self).__name__}.backward: grad of shape {g.shape} does not match the result's shape "
                f"{tuple(out.shape)}"
            ) from None
        run.backward(out, as_tensor(np.array(g, dtype=out.array.dtype)))

    def _loupe_backward(self, grad: np.ndarray[Any, Any]) -> None:
        raise NotImplementedError(
            f"{type(self).__name__} must override backward(self, grad), pushing each input's gradient with "
            "self.inputs[i].backward(g)"
        )


#: ``loupe.core``: loupe's module of ``array`` and ``Function`` (here, this module).
core: types.ModuleType = sys.modules[__name__]


# --------------------------------------------------------------------------- loupe's ops
def _unbroadcast(grad: np.ndarray[Any, Any], shape: tuple[int, ...]) -> np.ndarray[Any, Any]:
    """``grad`` summed down to ``shape`` (the dimensions broadcasting added or stretched)."""
    grad = np.asarray(grad)
    lead = grad.ndim - len(shape)
    if lead > 0:
        grad = grad.sum(axis=tuple(range(lead)))
    stretched = tuple(i for i, n in enumerate(shape) if n == 1 and grad.shape[i] != 1)
    return grad.sum(axis=stretched, keepdims=True) if stretched else grad


class _Binary(Function):
    def __init__(self, x1: Any, x2: Any) -> None:
        self.left = asarray(x1)
        self.right = asarray(x2)
        super().__init__(self.left, self.right)


class add(_Binary):
    """x1 + x2, element-wise (broadcasting)."""

    def forward(self) -> Any:
        left, right = self.left.getdata(), self.right.getdata()
        self.cache_for_backward(left.shape, right.shape)
        return np.add(left, right)

    def backward(self, grad: Any) -> None:
        left, right = self.cache
        if self.left.requires_grad:
            self.left.backward(_unbroadcast(grad, left))
        if self.right.requires_grad:
            self.right.backward(_unbroadcast(grad, right))


class subtract(_Binary):
    """x1 - x2, element-wise (broadcasting)."""

    def forward(self) -> Any:
        left, right = self.left.getdata(), self.right.getdata()
        self.cache_for_backward(left.shape, right.shape)
        return np.subtract(left, right)

    def backward(self, grad: Any) -> None:
        left, right = self.cache
        if self.left.requires_grad:
            self.left.backward(_unbroadcast(grad, left))
        if self.right.requires_grad:
            self.right.backward(_unbroadcast(-grad, right))


class multiply(_Binary):
    """x1 * x2, element-wise (broadcasting; complex: the gradient is conj(other) * grad)."""

    def forward(self) -> Any:
        left, right = self.left.getdata(), self.right.getdata()
        self.cache_for_backward(left, right)
        return np.multiply(left, right)

    def backward(self, grad: Any) -> None:
        left, right = self.cache
        if self.left.requires_grad:
            self.left.backward(_unbroadcast(np.conj(right) * grad, left.shape))
        if self.right.requires_grad:
            self.right.backward(_unbroadcast(np.conj(left) * grad, right.shape))


class power(Function):
    """x1 ** x2, differentiable in the base x1; the exponent x2 is a constant (a number, an
    ndarray, or a loupe value that does not require grad, read when the base is)."""

    def __init__(self, x1: Any, x2: Any) -> None:
        if isinstance(x2, Node) and x2.requires_grad:
            raise TypeError(
                "power: the exponent requires grad, but loupe's power differentiates the base only; write the "
                "power as exp(x2 * log(x1)) with a Function of your own"
            )
        self.input = asarray(x1)
        self.exp = x2
        super().__init__(self.input)

    def _exponent(self) -> Any:
        return self.exp.data if isinstance(self.exp, Node) else self.exp

    def forward(self) -> Any:
        x = self.input.getdata()
        exponent = self._exponent()
        self.cache_for_backward(x, exponent)
        return np.power(x, exponent)

    def backward(self, grad: Any) -> None:
        x, exponent = self.cache
        self.input.backward(_unbroadcast(exponent * np.power(x, np.subtract(exponent, 1)) * grad, x.shape))


class exp(Function):
    """e ** x, element-wise."""

    def __init__(self, x: Any) -> None:
        self.input = asarray(x)
        super().__init__(self.input)

    def forward(self) -> Any:
        result = np.exp(self.input.getdata())
        self.cache_for_backward(result)
        return result

    def backward(self, grad: Any) -> None:
        (result,) = self.cache
        self.input.backward(grad * np.conj(result))


class expc(Function):
    """exp(1j * x), element-wise: the field of a phase x."""

    def __init__(self, x: Any) -> None:
        self.input = asarray(x)
        super().__init__(self.input)

    def forward(self) -> Any:
        result = np.exp(1j * self.input.getdata())
        self.cache_for_backward(result)
        return result

    def backward(self, grad: Any) -> None:
        (result,) = self.cache
        self.input.backward(np.imag(grad * np.conj(result)))


class sum(Function):  # (loupe's name, shadowing the builtin here)
    """The sum of all elements."""

    def __init__(self, x: Any) -> None:
        self.input = asarray(x)
        super().__init__(self.input)

    def forward(self) -> Any:
        x = self.input.getdata()
        self.cache_for_backward(x.shape)
        return np.sum(x)

    def backward(self, grad: Any) -> None:
        (shape,) = self.cache
        self.input.backward(np.broadcast_to(grad, shape))


class slice(Function):  # (loupe's name, shadowing the builtin here)
    """``x[index]`` (what ``x[...]`` builds): the gradient goes back into the selected places."""

    def __init__(self, x: Any, slc: Any) -> None:
        self.input = asarray(x)
        self.slc = slc
        super().__init__(self.input)

    def forward(self) -> Any:
        x = self.input.getdata()
        self.cache_for_backward(x.shape, x.dtype)
        return x[self.slc]

    def backward(self, grad: Any) -> None:
        shape, dtype = self.cache
        full = np.zeros(shape, dtype=np.result_type(dtype, np.asarray(grad).dtype, np.float64))
        np.add.at(full, self.slc, grad)  # (a repeated index gets each of its gradients)
        self.input.backward(full)


_UFUNC_OPS: dict[Any, Callable[[Any, Any], Function]] = {
    np.add: add,
    np.subtract: subtract,
    np.multiply: multiply,
    np.power: power,
}


def _einsum_parts(subscripts: Any, count: int) -> tuple[list[str], str]:
    if not isinstance(subscripts, str):
        raise TypeError(f"einsum: subscripts must be a str (as 'ij,j->i'), not {type(subscripts).__name__}")
    spec = subscripts.replace(" ", "")
    if "." in spec:
        raise NotImplementedError("einsum: '...' in subscripts is not supported here; name every axis")
    ins, arrow, out = spec.partition("->")
    parts = ins.split(",")
    if len(parts) != count:
        raise ValueError(f"einsum: subscripts name {len(parts)} operands, {count} given")
    if any(c not in string.ascii_letters for c in "".join(parts) + out):
        raise ValueError(f"einsum: subscripts may hold letters, ',' and '->' only: {subscripts!r}")
    if not arrow:  # implicit output: the letters that occur once, in order
        letters = "".join(parts)
        out = "".join(sorted(c for c in set(letters) if letters.count(c) == 1))
    return parts, out


class einsum(Function):
    """``einsum(subscripts, *operands)``: NumPy's Einstein summation, differentiable in each
    operand (an axis repeated within one operand, a diagonal, is refused)."""

    def __init__(self, subscripts: Any, *operands: Any, dtype: Any = None) -> None:
        self.in_subs, self.out_sub = _einsum_parts(subscripts, len(operands))
        for sub in self.in_subs:
            if len(set(sub)) != len(sub):
                raise NotImplementedError(f"einsum: a repeated axis within one operand ({sub!r}) is not supported")
        self.operands = [asarray(o) for o in operands]
        self.dtype_arg = dtype
        super().__init__(*self.operands)

    def forward(self) -> Any:
        values = [o.getdata() for o in self.operands]
        self.cache_for_backward(*values)
        spec = ",".join(self.in_subs) + "->" + self.out_sub
        return np.einsum(spec, *values) if self.dtype_arg is None else np.einsum(spec, *values, dtype=self.dtype_arg)

    def backward(self, grad: Any) -> None:
        values = self.cache
        for i, operand in enumerate(self.operands):
            if not operand.requires_grad:
                continue
            others = [s for j, s in enumerate(self.in_subs) if j != i]
            target = self.in_subs[i]
            available = set(self.out_sub).union(*others) if others else set(self.out_sub)
            kept = "".join(c for c in target if c in available)
            spec = ",".join([self.out_sub, *others]) + "->" + kept
            g = np.einsum(spec, grad, *(np.conj(v) for j, v in enumerate(values) if j != i))
            if kept != target:  # an axis summed within this operand alone: the same gradient along it
                g = g.reshape([n if c in kept else 1 for n, c in zip(values[i].shape, target)])
            operand.backward(np.broadcast_to(g, values[i].shape))


_LETTERS = "abcdefghijklmnopqrstuvwxyz"


class sserror(Function):
    """The normalised sum squared error between a model ``g`` and data ``f``: the mean over
    measurements of ``sum |g - f|^2 / sum |f|^2``, with the model's gain and bias fitted out first
    when ``gain_bias_invariant`` (Thurman and Fienup 2009).  ``mask``: True where valid."""

    def __init__(self, model: Any, data: Any, mask: Any = None, gain_bias_invariant: bool = True) -> None:
        self.f = np.asarray(data)
        self.g = asarray(model)
        if self.f.shape != self.g.shape:
            raise ValueError(f"model and data shape mismatch: {self.g.shape} != {self.f.shape}")
        self.mask = None if mask is None else np.broadcast_to(np.asarray(mask), self.f.shape)
        self.gain_bias_invariant = gain_bias_invariant
        self._f = self._G(self.f, self.mask)
        self._K = self.f.shape[0] if self.f.ndim == 3 else 1
        self._D = np.sum(self.f**2) if self.mask is None else np.sum(self.f**2 * self.mask)
        super().__init__(self.g)

    @staticmethod
    def _G(data: np.ndarray[Any, Any], mask: Any) -> np.ndarray[Any, Any]:
        """``data`` minus its mean over each image (over the valid pixels)."""
        if mask is None:
            mean = np.sum(data, axis=(-2, -1)) / np.prod(data.shape[-2:])
        else:
            mean = np.sum(mask * data, axis=(-2, -1)) / np.sum(mask, axis=(-2, -1))
        centred: np.ndarray[Any, Any] = data - (mean[:, None, None] if data.ndim == 3 else mean)
        return centred

    @staticmethod
    def _fit_gain(_f: np.ndarray[Any, Any], _g: np.ndarray[Any, Any], mask: Any) -> Any:
        """The least-squares gain from ``_g`` to ``_f`` (both mean-free), per image."""
        weight = 1 if mask is None else mask
        denominator = np.sum(weight * np.square(_g), axis=(-2, -1))
        if np.any(denominator == 0):
            raise ZeroDivisionError("g must be nonzero")
        return np.sum(weight * _f * _g, axis=(-2, -1)) / denominator

    @staticmethod
    def _fit_bias(f: np.ndarray[Any, Any], g: np.ndarray[Any, Any], mask: Any, gain: Any) -> Any:
        """The bias left between ``f`` and ``gain * g``, per image."""
        gain = np.asarray(gain)
        resid = f - np.einsum(f"{_LETTERS[: g.ndim]},{_LETTERS[: gain.ndim]}->{_LETTERS[: g.ndim]}", g, gain)
        if mask is None:
            return np.sum(resid, axis=(-2, -1)) / np.prod(f.shape[-2:])
        return np.sum(mask * resid, axis=(-2, -1)) / np.sum(mask, axis=(-2, -1))

    def residual(self) -> np.ndarray[Any, Any]:
        """The residual between model and data (after the gain and bias fit, if any)."""
        return self._residual(self.g.getdata())[0]

    def _residual(self, g: np.ndarray[Any, Any]) -> tuple[np.ndarray[Any, Any], Any]:
        if self.gain_bias_invariant:
            _g = self._G(g, self.mask)
            alpha = self._fit_gain(self._f, _g, self.mask)
            spec = f"{_LETTERS[: _g.ndim]},{_LETTERS[: np.ndim(alpha)]}->{_LETTERS[: _g.ndim]}"
            resid = np.einsum(spec, _g, alpha) - self._f
        else:
            alpha = np.array(1.0)
            resid = g - self.f
        return (resid if self.mask is None else self.mask * resid), alpha

    def forward(self) -> Any:
        resid, alpha = self._residual(self.g.getdata())
        valid = 1 if self.mask is None else self.mask
        if self.gain_bias_invariant:
            norm = np.sum(valid * np.square(self.f)) * self._K
        else:  # each image normalised by its own data
            norm = np.sum(valid * np.square(self.f), axis=(-2, -1)) * self._K
        self.cache_for_backward(resid, alpha, norm)
        return float(np.sum(np.sum(np.square(resid), axis=(-2, -1)) / norm))

    def backward(self, grad: Any) -> None:
        # d/dg of sum |alpha g' - f'|^2 / norm: the fitted gain and bias are optimal, so their
        # own change does not count (Jurling and Fienup 2014, eq. 53), and resid is mean-free.
        resid, alpha, norm = self.cache
        per_image = np.asarray(2 * grad * alpha / norm)
        if resid.ndim == 3 and per_image.ndim == 1:
            per_image = per_image[:, None, None]
        self.g.backward(resid * per_image)


# --------------------------------------------------------------------------- making arrays
def zeros(shape: Any, dtype: Any = None, requires_grad: bool = False) -> array:
    """A new array of zeros."""
    return array(np.zeros(shape), dtype=dtype, requires_grad=requires_grad)


def zeros_like(a: Any, dtype: Any = None, requires_grad: bool = False) -> array:
    """A new array of zeros with the shape of ``a``."""
    return zeros(np.shape(a), dtype=dtype, requires_grad=requires_grad)


def ones(shape: Any, dtype: Any = None, requires_grad: bool = False) -> array:
    """A new array of ones."""
    return array(np.ones(shape), dtype=dtype, requires_grad=requires_grad)


def ones_like(a: Any, dtype: Any = None, requires_grad: bool = False) -> array:
    """A new array of ones with the shape of ``a``."""
    return ones(np.shape(a), dtype=dtype, requires_grad=requires_grad)


def rand(
    low: float = 0.0, high: float = 1.0, size: Any = None, dtype: Any = None, requires_grad: bool = False
) -> array:
    """A new array drawn uniformly from [low, high) (NumPy's global generator, as loupe)."""
    return array(np.random.uniform(low=low, high=high, size=size), dtype=dtype, requires_grad=requires_grad)


def randn(
    loc: float = 0.0, std: float = 1.0, size: Any = None, dtype: Any = None, requires_grad: bool = False
) -> array:
    """A new array drawn from a normal distribution (NumPy's global generator, as loupe)."""
    return array(np.random.normal(loc=loc, scale=std, size=size), dtype=dtype, requires_grad=requires_grad)


# --------------------------------------------------------------------------- optimize
class _Blueprint:
    """The parameters of a model as one flat float vector (only the valid entries of a masked
    parameter), and the cost and gradient as functions of that vector, for SciPy."""

    def __init__(self, fun: Function, params: Sequence[array]) -> None:
        self.fun = fun
        leaves = _leaves(fun)
        for p in params:
            if not isinstance(p, array):
                raise TypeError(f"optimize: params must be loupe arrays, got {type(p).__name__}")
            if not any(p is leaf for leaf in leaves):
                raise ValueError("optimize: a parameter is not an input of fun")
        for leaf in leaves:  # the parameters, and only they, require grad (by identity)
            if isinstance(leaf, array):
                leaf.requires_grad = any(leaf is p for p in params)
        self.params: list[tuple[array, _builtin_slice]] = []
        start = 0
        for p in params:
            n = p.flatten(apply_mask=True).size
            self.params.append((p, _builtin_slice(start, start + n)))
            start += n
        self.size = start
        self.leaves = leaves

    @property
    def x(self) -> np.ndarray[Any, Any]:
        out = np.empty(self.size, dtype=np.float64)
        for p, where in self.params:
            out[where] = p.flatten(apply_mask=True)
        return out

    @x.setter
    def x(self, value: Any) -> None:
        value = np.asarray(value)
        for p, where in self.params:
            if p.mask is not None:
                p[~p.mask] = value[where]
            else:
                p[...] = value[where].reshape(p.shape)

    def cost(self, x: Any) -> float:
        self.x = x
        return float(np.real(self.fun.getdata()))

    def grad(self, x: Any) -> np.ndarray[Any, Any]:
        self.x = x
        for leaf in self.leaves:
            if isinstance(leaf, array):
                leaf.zero_grad()
        self.fun.backward(np.array(1.0))
        out = np.zeros(self.size, dtype=np.float64)
        for p, where in self.params:
            out[where] = np.real(p.grad_flatten(apply_mask=True))
        return out


def _leaves(fun: Function) -> list[Node]:
    seen: dict[int, Node] = {}
    stack: list[Node] = [fun]
    visited: set[int] = set()
    while stack:
        node = stack.pop()
        if isinstance(node, Function):
            if id(node) not in visited:
                visited.add(id(node))
                stack.extend(node.inputs)
        else:
            seen.setdefault(id(node), node)
    return list(seen.values())


def optimize(
    fun: Function,
    params: Any,
    ftol: float = 1e-9,
    gtol: float = 1e-5,
    maxiter: int = 1000,
    analytic_grad: bool = True,
) -> Any:
    """Minimise the scalar ``fun`` over ``params`` (an array or a list of arrays) with SciPy's
    L-BFGS-B, the gradient from backward (or finite differences with ``analytic_grad=False``).
    The parameters end at the solution; returns SciPy's ``OptimizeResult``."""
    if not isinstance(fun, Function):
        raise TypeError(f"optimize: fun must be a loupe Function (the cost), got {type(fun).__name__}")
    if fun.size != 1:
        raise ValueError(f"optimize: fun must be a scalar cost, but its shape is {fun.shape}")
    try:
        import scipy.optimize  # type: ignore[import-untyped, import-not-found, unused-ignore]
    except ImportError as error:  # pragma: no cover (scipy is installed where the tests run)
        raise ImportError("loupe.optimize needs SciPy (pip install scipy), as loupe does") from error
    plan = _Blueprint(fun, list(params) if isinstance(params, (list, tuple)) else [params])
    options = {"ftol": ftol, "gtol": gtol, "maxiter": maxiter}
    result = scipy.optimize.minimize(
        plan.cost, plan.x, method="L-BFGS-B", jac=plan.grad if analytic_grad else None, options=options
    )
    plan.x = result.x  # (SciPy's last evaluation need not be at its answer)
    return result


# --------------------------------------------------------------------------- Zernike polynomials
def centroid(img: Any) -> tuple[float, float]:
    """The (x, y) centroid of an image."""
    img = np.asarray(img, dtype=float)
    img = img / np.sum(img)
    rows, cols = np.mgrid[0 : img.shape[0], 0 : img.shape[1]]
    return float(np.sum(cols * img)), float(np.sum(rows * img))


def zernike_index(j: int) -> tuple[int, int]:
    """Noll's index j as the azimuthal and radial indices (m, n)."""
    if j < 1:
        raise ValueError("Zernike index j must be a positive integer")
    n = 0
    while (n + 1) * (n + 2) // 2 < j:
        n += 1
    # the row's m values by |m|, each |m| > 0 twice: even j gets cos (m > 0), odd j sin (m < 0)
    first = n * (n + 1) // 2 + 1
    ms = [m for m in range(n % 2, n + 1, 2) for _ in range(1 if m == 0 else 2)]
    m = ms[j - first]
    return (m if j % 2 == 0 or m == 0 else -m), n


def _radial(m: int, n: int, rho: np.ndarray[Any, Any]) -> Any:
    from math import factorial

    m, n = abs(m), abs(n)
    if (n - m) % 2:
        return 0
    return _builtin_sum(
        (-1) ** k
        * factorial(n - k)
        / (factorial(k) * factorial((n + m) // 2 - k) * factorial((n - m) // 2 - k))
        * rho ** (n - 2 * k)
        for k in range((n - m) // 2 + 1)
    )


def zernike_coordinates(mask: Any, shift: Any = None, rotate: float = 0) -> tuple[Any, Any]:
    """The polar coordinates (rho, theta) of a mask's pixels, rho 1 at its edge, the origin at
    its centroid (or shifted by ``shift`` pixels), theta turned by ``rotate`` degrees."""
    mask = np.asarray(mask)
    if shift is None:
        cx, cy = centroid(mask)
        shift = (cy - mask.shape[0] / 2, cx - mask.shape[1] / 2)
    x = np.arange(mask.shape[1]) - np.floor(mask.shape[1] / 2) - shift[1]
    y = np.arange(mask.shape[0]) - np.floor(mask.shape[0] / 2) - shift[0]
    xx, yy = np.meshgrid(x, y)
    r = np.hypot(xx, yy)
    rho = r / np.max(r * mask)
    turn = np.exp(1j * (90 - rotate) * np.pi / 180)
    theta = np.angle((xx + 1j * yy) * turn)
    return rho, theta


def zernike(mask: Any, index: int, normalize: bool = True, rho: Any = None, theta: Any = None) -> Any:
    """Noll's Zernike polynomial ``index`` over ``mask`` (orthonormal on the unit circle when
    ``normalize``)."""
    mask = np.asarray(mask)
    m, n = zernike_index(int(index))
    if rho is None:
        rho, theta = zernike_coordinates(mask)
    elif theta is None:
        raise ValueError("Both rho and theta must be specified")
    if m == 0:
        return mask if n == 0 else (np.sqrt(n + 1) if normalize else 1) * _radial(m, n, rho) * mask
    angular = np.cos(m * theta) if m > 0 else np.sin(m * theta)
    return (np.sqrt(2 * (n + 1)) if normalize else 1) * _radial(m, n, rho) * angular * mask


def zernike_basis(
    mask: Any, modes: Any, vectorize: bool = False, normalize: bool = True, rho: Any = None, theta: Any = None
) -> np.ndarray[Any, Any]:
    """The Zernike polynomials ``modes`` (Noll indices) over ``mask``, stacked: (modes, rows,
    cols), or (modes, rows*cols) with ``vectorize``."""
    modes = np.atleast_1d(np.asarray(modes))
    mask = np.asarray(mask)
    basis = np.zeros(modes.shape + mask.shape)
    for index, mode in np.ndenumerate(modes):
        basis[index] = zernike(mask, int(mode), normalize, rho, theta)
    return basis.reshape(basis.shape[0], -1) if vectorize else basis


_NOT_HERE = {
    "dft2": "a differentiable matrix-Fourier transform",
    "tensordot": "a differentiable tensordot (einsum covers it: loupe.einsum('ij,jk->ik', a, b))",
    "absolute_square": "|x|^2 (write it as a Function: docs/porting-loupe.md has one)",
    "abs_square": "|x|^2 (write it as a Function: docs/porting-loupe.md has one)",
    "rebin": "rebinning",
    "normavg": "normalised averaging",
    "circle": "shape masks",
    "circlemask": "shape masks",
    "hexagon": "shape masks",
    "slit": "shape masks",
    "shift": "FFT shifting",
    "register": "image registration",
    "medfix2": "median fixing",
    "zernike_compose": "Zernike composition (np.einsum('ijk,i->jk', loupe.zernike_basis(...), coeffs))",
    "zernike_fit": "Zernike fitting",
    "zernike_remove": "Zernike removal",
}


def __getattr__(name: str) -> Any:
    if name in _NOT_HERE:
        raise AttributeError(
            f"ctxgrad.compat.loupe has no {name!r}: loupe's {_NOT_HERE[name]} is not ported "
            "(docs/porting-loupe.md lists what is)"
        )
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

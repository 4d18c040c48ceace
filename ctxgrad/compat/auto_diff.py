"""auto_diff's define-then-run API (the seed era of CyberZHG/toy-auto-diff), on ctxgrad's engine.

In auto_diff you first *define* a graph of operations, with placeholders for the data and
variables for the weights, and then *run* it: ``op.forward(feed_dict)`` computes it for the
values fed to the placeholders, and ``op.backward()`` gives every operation below ``op`` its
``.gradient``, which is itself an operation: ``w.gradient.forward(feed_dict)`` is the gradient
of ``op`` with respect to ``w`` for that feed. Each operation is a class (``OpDot``,
``OpReshape``, ``OpTranspose``, ...) with a shortcut (``dot``, ``reshape``, ``transpose``, ...)
and a method, as in auto_diff, whose names and shapes follow NumPy's:

>>> import numpy as np
>>> import ctxgrad.compat.auto_diff as ad
>>> x = ad.placeholder(shape=(2, 2), name="X")
>>> w = ad.variable(np.array([[1.0], [2.0]]), name="W")
>>> y = ad.dot(x, w).sum()
>>> y, y.shape
(sum(dot(X, W)), (1,))
>>> feed = {x: np.array([[1.0, 1.0], [3.0, 0.0]])}
>>> y.forward(feed)
array([6.])
>>> y.backward()
>>> w.gradient.forward(feed)
array([[4.],
       [1.]])

How it maps onto ctxgrad (the lesson: a gradient *operation* is a question asked of the one
engine). Running an operation builds, for that feed, a ctxgrad graph of its operations:
the built-in ones are ctxgrad ops; one you write by subclassing :class:`Operation` with
``_forward`` and ``_backward`` becomes a ctxgrad ``Function`` (node ``<YourOp>Backward``)
whose backward runs your ``_backward`` on the incoming gradient and evaluates the gradient
operations it hands each input. A gradient operation, run, builds that graph and asks
``ctxgrad.autograd.grad`` for the gradient with respect to its operation. There is no second
autodiff: auto_diff's symbolic gradients (one new operation per rule) are answered by
ctxgrad's engine, and a value used twice gets the sum of both paths' gradients.

Shapes are inferred while the graph is built, so a mismatch raises there. ``None`` in a
placeholder's shape is a size given at run time, and a placeholder may also be fed by its
name (``{"X": ...}``); both are additions to auto_diff. ``docs/porting-auto-diff.md`` lists
what runs and what differs.
"""

from __future__ import annotations

import builtins
import contextlib
import itertools
import math
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any, ClassVar

import numpy as np

from ctxgrad._tensor import Tensor, as_tensor
from ctxgrad.autograd._grad import grad as _autograd_grad
from ctxgrad.autograd.function import Function
from ctxgrad.ops.linalg import tensordot

__all__ = [
    "OpAdd",
    "OpConstant",
    "OpDivide",
    "OpDot",
    "OpExpandDims",
    "OpFlatten",
    "OpGradient",
    "OpMultiply",
    "OpNegative",
    "OpOnes",
    "OpOnesLike",
    "OpPlaceholder",
    "OpReshape",
    "OpSquare",
    "OpSqueeze",
    "OpSubtract",
    "OpSum",
    "OpTranspose",
    "OpVariable",
    "OpZeros",
    "OpZerosLike",
    "Operation",
    "Session",
    "add",
    "array",
    "constant",
    "divide",
    "dot",
    "expand_dims",
    "flatten",
    "multiply",
    "negative",
    "ones",
    "ones_like",
    "placeholder",
    "reshape",
    "simplify",
    "square",
    "squeeze",
    "subtract",
    "sum",
    "transpose",
    "variable",
    "zeros",
    "zeros_like",
]

Shape = tuple[Any, ...]
_counter = itertools.count()


def _floats(value: Any, what: str) -> np.ndarray[Any, Any]:
    try:
        return np.array(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{what}: expected an array of numbers, got {type(value).__name__} ({exc})") from None


class Operation:
    """A node of the graph. A subclass sets ``self.inputs`` (the operations it reads) and
    ``self.shape`` before calling ``super().__init__(**kwargs)``, and defines
    ``_get_name`` (shown), ``_get_op_name`` (for indexing), ``_forward(feed_dict)`` (the value,
    a NumPy array, from ``self.inputs[i].forward(feed_dict)``) and ``_backward(gradient)``
    (for each input ``i``: ``self.inputs[i].backward(<the gradient operation of input i>)``).
    ``name=`` names any operation."""

    #: The key of the step number in a feed dict (:class:`Session` sets it): an operation
    #: run twice in one step computes once.
    STEP_KEY: ClassVar[str] = "__step__"
    _builtin: ClassVar[bool] = False

    shape: Any
    inputs: Sequence[Operation]

    def __init__(self, **kwargs: Any) -> None:
        if not hasattr(self, "name"):
            self.name: str = kwargs["name"] if "name" in kwargs else self._get_name()
        if not hasattr(self, "shape"):
            self.shape = None
            raise NotImplementedError("Shape not defined")
        if not hasattr(self, "inputs"):
            self.inputs = []
        self.gradient: Operation | None = None
        self._op_index = next(_counter)
        self._op_name = self._get_op_name()
        self._last_step: Any = -1
        self._last_forward: Any = None

    def _get_name(self) -> str:
        """The name shown (``str(op)``)."""
        raise NotImplementedError("Get name not implemented")

    def _get_op_name(self) -> str:
        """The name for indexing."""
        raise NotImplementedError("Get operation name not implemented")

    @property
    def dim(self) -> int:
        """The number of axes."""
        return len(self.shape)

    def isscalar(self) -> bool:
        """True for the shapes auto_diff treats as a scalar: ``()`` and ``(1,)``."""
        return tuple(self.shape) in [(), (1,)]

    # ------------------------------------------------------------------ running
    def forward(self, feed_dict: Mapping[Any, Any] | None = None) -> Any:
        """The value for the arrays fed to the placeholders (keyed by placeholder or by name)."""
        if feed_dict is None:
            feed_dict = {}
        if self.STEP_KEY in feed_dict and feed_dict[self.STEP_KEY] == self._last_step:
            return self._last_forward
        output = self._forward(feed_dict)
        if self.STEP_KEY in feed_dict:
            self._last_step = feed_dict[self.STEP_KEY]
            self._last_forward = output
        return output

    def _forward(self, feed_dict: Mapping[Any, Any]) -> Any:
        """The value (a built-in operation computes it with ctxgrad's ops)."""
        if not self._builtin:
            raise NotImplementedError("Forward operation not implemented")
        value: np.ndarray[Any, Any] = _evaluate(self, feed_dict)[0].detach().numpy().copy()
        return value

    def backward(self, gradient: Operation | None = None) -> None:
        """Give this operation ``gradient`` (ones of its shape by default) and every operation
        below it the operation that computes its gradient (:class:`OpGradient`)."""
        if gradient is None:
            gradient = OpConstant(np.ones(self.shape), name=f"ones{self.shape}")
        elif not isinstance(gradient, Operation):
            raise TypeError(
                f"{self.name}.backward: the gradient must be an Operation (auto_diff's backward takes one: wrap an "
                f"array with constant(...)), got {type(gradient).__name__}"
            )
        capture = _CAPTURE[-1] if _CAPTURE else None
        if capture is not None and id(self) in capture:  # (a user's _backward, run by the engine)
            capture[id(self)].append(gradient)
            return
        self.gradient = gradient
        if not self._builtin:
            with _capturing(self.inputs):  # a rule of your own: raises when it is missing
                self._backward(gradient)
        for node in _nodes(self):
            if node is not self:
                node.gradient = OpGradient(self, node, gradient)

    def _backward(self, gradient: Operation) -> None:
        """Hand each input its gradient operation (``self.inputs[i].backward(...)``)."""
        raise NotImplementedError("Backward operation not implemented")

    def _compute(self, *inputs: Tensor) -> Tensor:
        """A built-in operation's value from its inputs' values, in ctxgrad ops."""
        raise NotImplementedError

    # ------------------------------------------------------------------ building
    def transpose(self, axes: Sequence[int] | None = None, **kwargs: Any) -> Operation:
        """See :class:`OpTranspose`."""
        return OpTranspose(self, axes, **kwargs)

    def reshape(self, shape: Sequence[int], **kwargs: Any) -> Operation:
        """See :class:`OpReshape`."""
        return OpReshape(self, shape, **kwargs)

    def flatten(self, **kwargs: Any) -> Operation:
        """See :class:`OpFlatten`."""
        return OpFlatten(self, **kwargs)

    def expand_dims(self, axis: int | None = None, **kwargs: Any) -> Operation:
        """See :class:`OpExpandDims`."""
        return OpExpandDims(self, axis, **kwargs)

    def squeeze(self, axis: int | Sequence[int] | None = None, **kwargs: Any) -> Operation:
        """See :class:`OpSqueeze`."""
        return OpSqueeze(self, axis, **kwargs)

    def sum(self, axis: int | Sequence[int] | None = None, keepdims: bool = False, **kwargs: Any) -> Operation:
        """See :class:`OpSum`."""
        return OpSum(self, axis, keepdims, **kwargs)

    def dot(self, x: Any, **kwargs: Any) -> Operation:
        """See :class:`OpDot`."""
        return OpDot(self, _op(x), **kwargs)

    def simplify(self) -> Operation:
        """See :func:`simplify`."""
        return simplify(self)

    def __add__(self, other: Any) -> Operation:
        return OpAdd(self, _op(other))

    def __radd__(self, other: Any) -> Operation:
        return OpAdd(_op(other), self)

    def __sub__(self, other: Any) -> Operation:
        return OpSubtract(self, _op(other))

    def __rsub__(self, other: Any) -> Operation:
        return OpSubtract(_op(other), self)

    def __mul__(self, other: Any) -> Operation:
        return OpMultiply(self, _op(other))

    def __rmul__(self, other: Any) -> Operation:
        return OpMultiply(_op(other), self)

    def __truediv__(self, other: Any) -> Operation:
        return OpDivide(self, _op(other))

    def __rtruediv__(self, other: Any) -> Operation:
        return OpDivide(_op(other), self)

    def __neg__(self) -> Operation:
        return OpNegative(self)

    def __hash__(self) -> int:
        return hash(self._op_index)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Operation):
            return NotImplemented
        return self._op_index == other._op_index

    def __str__(self) -> str:
        return self.name

    __repr__ = __str__

    def __unicode__(self) -> str:
        return self.__str__()


def _op(x: Any) -> Operation:
    return x if isinstance(x, Operation) else OpConstant(x)


# --------------------------------------------------------------------------- running a graph
def _nodes(root: Operation) -> Iterator[Operation]:
    """Every operation ``root`` depends on, each once, inputs before their users (no recursion)."""
    seen: set[int] = set()
    stack: list[tuple[Operation, bool]] = [(root, False)]
    while stack:
        op, done = stack.pop()
        if done:
            yield op
            continue
        if id(op) in seen:
            continue
        seen.add(id(op))
        stack.append((op, True))
        stack.extend((i, False) for i in reversed(op.inputs))


def _evaluate(
    root: Operation, feed_dict: Mapping[Any, Any], wrt: Operation | None = None
) -> tuple[Tensor, Tensor | None]:
    """``root``'s value as a ctxgrad tensor with its graph, and ``wrt``'s value in that graph
    as a leaf that requires grad (so that the gradient with respect to it can be asked)."""
    values: dict[int, Tensor] = {}
    wrt_value = None
    for node in _nodes(root):
        if isinstance(node, (OpPlaceholder, OpVariable, OpConstant, OpGradient)) or (
            not node.inputs and not node._builtin
        ):
            value = as_tensor(_floats(node.forward(feed_dict), node.name))
        elif node._builtin:
            value = node._compute(*(values[id(i)] for i in node.inputs))
        else:
            value = _function_of(type(node)).apply(node, feed_dict, *(values[id(i)] for i in node.inputs))
        if node is wrt:
            value = wrt_value = value.detach().requires_grad_()
        values[id(node)] = value
    return values[id(root)], wrt_value


class _UserOperation(Function):
    """The ctxgrad Function behind an Operation subclass of a user's (one per subclass, named
    as it): forward is its ``_forward``; backward runs its ``_backward`` on the gradient and
    evaluates the gradient operation each input was handed."""

    @staticmethod
    def forward(ctx: Any, op: Operation, feed_dict: Mapping[Any, Any], *inputs: Tensor) -> Tensor:
        ctx.op, ctx.feed_dict = op, feed_dict
        return as_tensor(_floats(op._forward(feed_dict), f"{type(op).__name__}._forward"))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Any:
        op: Operation = ctx.op
        captured: dict[int, list[Operation]] = {id(i): [] for i in op.inputs}
        _CAPTURE.append(captured)
        try:
            op._backward(OpConstant(grad.detach().numpy().copy(), name=f"gradient({op.name})"))
        finally:
            _CAPTURE.pop()
        grads: list[Tensor | None] = []
        done: set[int] = set()
        for inp in op.inputs:  # (an input given twice gets its total once)
            given = captured[id(inp)] if id(inp) not in done else []
            done.add(id(inp))
            total = builtins.sum((_floats(g.forward(ctx.feed_dict), g.name) for g in given), start=np.zeros(()))
            grads.append(as_tensor(total) if given else None)
        return (None, None, *grads)


_FUNCTIONS: dict[type, type[Function]] = {}
_CAPTURE: list[dict[int, list[Operation]]] = []


def _function_of(cls: type[Operation]) -> type[Function]:
    fn = _FUNCTIONS.get(cls)
    if fn is None:
        fn = _FUNCTIONS[cls] = type(cls.__name__, (_UserOperation,), {"__module__": cls.__module__})
    return fn


@contextlib.contextmanager
def _capturing(inputs: Sequence[Operation]) -> Iterator[dict[int, list[Operation]]]:
    captured: dict[int, list[Operation]] = {id(i): [] for i in inputs}
    _CAPTURE.append(captured)
    try:
        yield captured
    finally:
        _CAPTURE.pop()


# --------------------------------------------------------------------------- leaves
class OpConstant(Operation):
    """A constant: a number (shape ``(1,)``, as auto_diff has it) or an array."""

    _builtin = True

    def __init__(self, x: Any, **kwargs: Any) -> None:
        if isinstance(x, int):
            x = float(x)
        if not np.isscalar(x) and not isinstance(x, np.ndarray):
            x = _floats(x, "OpConstant")
        self.x = x
        self.shape = (1,) if np.isscalar(x) else x.shape
        super().__init__(**kwargs)

    def _get_name(self) -> str:
        return str(self.x) if np.isscalar(self.x) else f"C{self.x.shape}"

    def _get_op_name(self) -> str:
        return f"c_{self._op_index}"

    def _forward(self, feed_dict: Mapping[Any, Any]) -> Any:
        return self.x

    def _backward(self, gradient: Operation) -> None:
        pass


class OpPlaceholder(Operation):
    """Data fed at run time: ``op.forward({placeholder: array})`` (or ``{name: array}``).
    ``None`` in ``shape`` is a size that may differ from run to run."""

    _builtin = True

    def __init__(self, shape: Sequence[int | None], **kwargs: Any) -> None:
        self.shape = tuple(shape)
        super().__init__(**kwargs)

    def _get_name(self) -> str:
        return f"X{self.shape}"

    def _get_op_name(self) -> str:
        return f"x_{self._op_index}"

    def _forward(self, feed_dict: Mapping[Any, Any]) -> Any:
        if self in feed_dict:
            value = feed_dict[self]
        elif self.name in feed_dict:
            value = feed_dict[self.name]
        else:
            raise KeyError(f"OpPlaceholder {self.name!r} (shape {self.shape}) is not fed: add it to the feed dict")
        arr = np.asarray(value)
        if arr.dtype.kind not in "biuf":
            raise TypeError(f"OpPlaceholder {self.name!r}: expected an array of numbers, got {type(value).__name__}")
        if arr.ndim != len(self.shape) or any(d is not None and d != s for d, s in zip(self.shape, arr.shape)):
            raise ValueError(f"OpPlaceholder {self.name!r}: fed an array of shape {arr.shape}, expected {self.shape}")
        return value

    def _backward(self, gradient: Operation) -> None:
        pass


class OpVariable(Operation):
    """A weight: ``initializer`` as an array (or a number), or a function called with
    ``shape``. ``update(value)`` sets it; after ``backward``, ``gradient`` computes its
    gradient."""

    _builtin = True

    def __init__(self, initializer: Any, shape: Sequence[int] | None = None, **kwargs: Any) -> None:
        if callable(initializer):
            if shape is None:
                raise ValueError("OpVariable: an initializer function needs the shape to call it with")
            self.x = _floats(initializer(tuple(shape)), "OpVariable initializer")
        else:
            self.x = _floats(initializer, "OpVariable")
        self.shape = self.x.shape
        super().__init__(**kwargs)

    @property
    def value(self) -> np.ndarray[Any, Any]:
        """The current value (a copy)."""
        value: np.ndarray[Any, Any] = self.x.copy()
        return value

    def update(self, value: Any) -> None:
        """Set the value (of the same shape)."""
        arr = _floats(value, "OpVariable.update")
        if self.x.shape != arr.shape:
            raise ValueError(f"The shape of two tensors should be equal, got {self.x.shape} and {arr.shape}")
        self.x = arr

    def _get_name(self) -> str:
        return f"W{self.x.shape}"

    def _get_op_name(self) -> str:
        return f"w_{self._op_index}"

    def _forward(self, feed_dict: Mapping[Any, Any]) -> Any:
        return self.x

    def _backward(self, gradient: Operation) -> None:
        pass


class OpGradient(Operation):
    """The gradient of ``y`` (seeded with ``dy``) with respect to ``x``, an operation below it:
    what ``y.backward(dy)`` gives ``x`` as ``x.gradient``. Running it asks ctxgrad's engine
    (zeros where ``y`` does not depend on ``x``). A gradient is not differentiated again."""

    _builtin = True

    def __init__(self, y: Operation, x: Operation, dy: Operation, **kwargs: Any) -> None:
        self.y, self.x, self.dy = y, x, dy
        self.shape = x.shape
        super().__init__(**kwargs)

    def _get_name(self) -> str:
        return f"gradient({self.y.name}, {self.x.name})"

    def _get_op_name(self) -> str:
        return f"gradient({self.y._op_name}, {self.x._op_name})"

    def _forward(self, feed_dict: Mapping[Any, Any]) -> Any:
        out, at = _evaluate(self.y, feed_dict, wrt=self.x)
        assert at is not None
        seed = as_tensor(np.broadcast_to(_floats(self.dy.forward(feed_dict), self.dy.name), out.shape).copy())
        if not out.requires_grad:
            return np.zeros(at.shape)
        (g,) = _autograd_grad([out], [at], [seed], allow_unused=True)
        return np.zeros(at.shape) if g is None else g.detach().numpy().copy()

    def _backward(self, gradient: Operation) -> None:
        pass


class _Filled(Operation):
    _builtin = True
    _fill: ClassVar[float]
    _word: ClassVar[str]

    def __init__(self, shape: int | Sequence[int], **kwargs: Any) -> None:
        self.shape = (shape,) if isinstance(shape, int) else tuple(shape)
        super().__init__(**kwargs)

    def _get_name(self) -> str:
        return f"{self._word}({self.shape[0]})" if len(self.shape) == 1 else f"{self._word}{self.shape}"

    _get_op_name = _get_name

    def _compute(self, *inputs: Tensor) -> Tensor:
        return as_tensor(np.full(self.shape, self._fill))


class OpOnes(_Filled):
    """A tensor of ones of ``shape``."""

    _fill, _word = 1.0, "ones"


class OpZeros(_Filled):
    """A tensor of zeros of ``shape``."""

    _fill, _word = 0.0, "zeros"


class _FilledLike(Operation):
    _builtin = True
    _fill: ClassVar[float]
    _word: ClassVar[str]

    def __init__(self, x: Operation, **kwargs: Any) -> None:
        self.inputs = [x]
        self.shape = x.shape
        super().__init__(**kwargs)

    def _get_name(self) -> str:
        return f"{self._word}({self.inputs[0].name})"

    def _get_op_name(self) -> str:
        return f"{self._word}({self.inputs[0]._op_name})"

    def _compute(self, *inputs: Tensor) -> Tensor:
        return as_tensor(np.full(inputs[0].shape, self._fill))


class OpOnesLike(_FilledLike):
    """Ones of the shape of ``x``."""

    _fill, _word = 1.0, "ones_like"


class OpZerosLike(_FilledLike):
    """Zeros of the shape of ``x``."""

    _fill, _word = 0.0, "zeros_like"


# --------------------------------------------------------------------------- movements
class OpTranspose(Operation):
    """The axes permuted by ``axes`` (reversed when None); its gradient is the inverse
    permutation."""

    _builtin = True

    def __init__(self, x: Operation, axes: Sequence[int] | None = None, **kwargs: Any) -> None:
        self.inputs = [x]
        self.axes = axes
        n = len(x.shape)
        perm = tuple(range(n))[::-1] if axes is None else tuple(axes)
        if sorted(a % n if -n <= a < n else a for a in perm) != list(range(n)):
            raise ValueError(f"OpTranspose: axes {perm} are not a permutation of the {n} axes of shape {x.shape}")
        self._perm = tuple(a % n for a in perm)
        self.shape = tuple(x.shape[a] for a in self._perm)
        super().__init__(**kwargs)

    def _args(self, name: str) -> str:
        return f"transpose({name})" if self.axes is None else f"transpose({name}, axes={self.axes})"

    def _get_name(self) -> str:
        return self._args(self.inputs[0].name)

    def _get_op_name(self) -> str:
        return self._args(self.inputs[0]._op_name)

    def _compute(self, *inputs: Tensor) -> Tensor:
        return inputs[0].permute(*self._perm)


class OpReshape(Operation):
    """The values in ``shape`` (one ``-1`` is inferred); its gradient is reshaped back."""

    _builtin = True

    def __init__(self, x: Operation, shape: Sequence[int], **kwargs: Any) -> None:
        self.inputs = [x]
        self._given = shape
        self.shape = _reshape_shape(tuple(x.shape), tuple(shape))
        self.old_shape = x.shape
        super().__init__(**kwargs)

    def _get_name(self) -> str:
        return f"reshape({self.inputs[0].name}, shape={self._given})"

    def _get_op_name(self) -> str:
        return f"reshape({self.inputs[0]._op_name}, shape={self._given})"

    def _compute(self, *inputs: Tensor) -> Tensor:
        return inputs[0].reshape(*(-1 if d is None else d for d in self.shape))


class OpFlatten(OpReshape):
    """The values as one axis."""

    def __init__(self, x: Operation, **kwargs: Any) -> None:
        size = None if None in x.shape else math.prod(x.shape)
        super().__init__(x, shape=(-1 if size is None else size,), **kwargs)

    def _get_name(self) -> str:
        return f"flatten({self.inputs[0].name})"

    def _get_op_name(self) -> str:
        return f"flatten({self.inputs[0]._op_name})"


class OpExpandDims(Operation):
    """A new axis of size 1 at ``axis`` (the last when None, as auto_diff has it)."""

    _builtin = True

    def __init__(self, x: Operation, axis: int | None = None, **kwargs: Any) -> None:
        self.inputs = [x]
        self.axis = -1 if axis is None else axis
        n = len(x.shape)
        if not -n - 1 <= self.axis <= n:
            raise ValueError(f"OpExpandDims: axis {self.axis} is out of range for shape {x.shape}")
        self._at = self.axis % (n + 1)
        self.shape = tuple(x.shape[: self._at]) + (1,) + tuple(x.shape[self._at :])
        super().__init__(**kwargs)

    def _args(self, name: str) -> str:
        return f"expand_dims({name})" if self.axis == -1 else f"expand_dims({name}, axis={self.axis})"

    def _get_name(self) -> str:
        return self._args(self.inputs[0].name)

    def _get_op_name(self) -> str:
        return self._args(self.inputs[0]._op_name)

    def _compute(self, *inputs: Tensor) -> Tensor:
        return inputs[0].unsqueeze(self._at)


class OpSqueeze(Operation):
    """The axes ``axis`` of size 1 removed (the last when None, as auto_diff has it)."""

    _builtin = True

    def __init__(self, x: Operation, axis: int | Sequence[int] | None = None, **kwargs: Any) -> None:
        self.inputs = [x]
        self.axis = -1 if axis is None else axis
        n = len(x.shape)
        axes = (self.axis,) if isinstance(self.axis, int) else tuple(self.axis)
        for a in axes:
            if not -n <= a < n or x.shape[a] not in (1, None):
                raise ValueError(f"OpSqueeze: cannot squeeze axis {a} of shape {x.shape} (not of size 1)")
        self._axes = tuple(sorted({a % n for a in axes}))
        self.shape = tuple(d for i, d in enumerate(x.shape) if i not in self._axes)
        super().__init__(**kwargs)

    def _args(self, name: str) -> str:
        return f"squeeze({name})" if self.axis == -1 else f"squeeze({name}, axis={self.axis})"

    def _get_name(self) -> str:
        return self._args(self.inputs[0].name)

    def _get_op_name(self) -> str:
        return self._args(self.inputs[0]._op_name)

    def _compute(self, *inputs: Tensor) -> Tensor:
        return inputs[0].squeeze(self._axes)


# --------------------------------------------------------------------------- reductions
class OpSum(Operation):
    """The sum over ``axis`` (all axes when None), keeping them as size 1 with ``keepdims``.
    A sum to a single value has shape ``(1,)``, as in auto_diff."""

    _builtin = True

    def __init__(
        self, x: Operation, axis: int | Sequence[int] | None = None, keepdims: bool = False, **kwargs: Any
    ) -> None:
        self.inputs = [x]
        self.axis, self.keepdims = axis, keepdims
        n = len(x.shape)
        axes = range(n) if axis is None else (axis,) if isinstance(axis, int) else tuple(axis)
        for a in axes:
            if not -n <= a < n:
                raise ValueError(f"OpSum: axis {a} is out of range for {n} dimensions")
        self._axes = tuple(sorted({a % n for a in axes}))
        shape = tuple(1 if i in self._axes else d for i, d in enumerate(x.shape) if keepdims or i not in self._axes)
        self.shape = shape if shape or keepdims else (1,)
        super().__init__(**kwargs)

    def _args(self, name: str) -> str:
        args = [name]
        if self.axis is not None:
            args.append(f"axis={self.axis}")
        if self.keepdims:
            args.append(f"keepdims={self.keepdims}")
        return "sum(" + ", ".join(args) + ")"

    def _get_name(self) -> str:
        return self._args(self.inputs[0].name)

    def _get_op_name(self) -> str:
        return self._args(self.inputs[0]._op_name)

    def _compute(self, *inputs: Tensor) -> Tensor:
        out = inputs[0].sum(dim=self._axes, keepdim=self.keepdims) if self._axes else inputs[0] * 1.0
        return out.reshape(1) if out.ndim == 0 else out


# --------------------------------------------------------------------------- elementwise
class _Binary(Operation):
    _builtin = True
    _format: ClassVar[str]
    _word: ClassVar[str]

    def __init__(self, x: Operation, y: Operation, **kwargs: Any) -> None:
        self.inputs = [x, y]
        self.shape = _broadcast(type(self).__name__, tuple(x.shape), tuple(y.shape))
        super().__init__(**kwargs)

    def _get_name(self) -> str:
        return self._format % (self.inputs[0].name, self.inputs[1].name)

    def _get_op_name(self) -> str:
        return f"{self._word}({self.inputs[0]._op_name}, {self.inputs[1]._op_name})"


class OpAdd(_Binary):
    """``x + y``, broadcast; each gradient is summed over the axes its input was broadcast along."""

    _format, _word = "(%s + %s)", "add"

    def _compute(self, *inputs: Tensor) -> Tensor:
        return inputs[0] + inputs[1]


class OpSubtract(_Binary):
    """``x - y``, broadcast."""

    _format, _word = "(%s - %s)", "subtract"

    def _compute(self, *inputs: Tensor) -> Tensor:
        return inputs[0] - inputs[1]


class OpMultiply(_Binary):
    """``x * y``, broadcast."""

    _format, _word = "%s * %s", "multiply"

    def _compute(self, *inputs: Tensor) -> Tensor:
        return inputs[0] * inputs[1]


class OpDivide(_Binary):
    """``x / y``, broadcast (auto_diff added it after the seed era)."""

    _format, _word = "%s / %s", "divide"

    def _compute(self, *inputs: Tensor) -> Tensor:
        return inputs[0] / inputs[1]


class _Unary(Operation):
    """An elementwise op of one operand, named ``_format % x`` and ``word(x)``."""

    _builtin = True
    _format: ClassVar[str]
    _word: ClassVar[str]

    def __init__(self, x: Operation, **kwargs: Any) -> None:
        self.inputs = [x]
        self.shape = x.shape
        super().__init__(**kwargs)

    def _get_name(self) -> str:
        return self._format % self.inputs[0].name

    def _get_op_name(self) -> str:
        return f"{self._word}({self.inputs[0]._op_name})"


class OpNegative(_Unary):
    """``-x``."""

    _format, _word = "(-%s)", "negative"

    def _compute(self, *inputs: Tensor) -> Tensor:
        return -inputs[0]


class OpSquare(_Unary):
    """``x * x``."""

    _format, _word = "square(%s)", "square"

    def _compute(self, *inputs: Tensor) -> Tensor:
        return inputs[0] * inputs[0]


class OpDot(Operation):
    """NumPy's ``dot``: a product with a scalar; the inner product of two vectors; the matrix
    product; for N-D operands, the sum product over the last axis of ``x`` and the
    second-to-last of ``y`` (the only axis of a vector ``y``)."""

    _builtin = True

    def __init__(self, x: Operation, y: Operation, **kwargs: Any) -> None:
        self.inputs = [x, y]
        xs, ys = tuple(x.shape), tuple(y.shape)
        if x.isscalar() or y.isscalar():
            self.shape = ys if x.isscalar() else xs
        else:
            k_y = ys[0] if len(ys) == 1 else ys[-2]
            if xs[-1] is not None and k_y is not None and xs[-1] != k_y:
                raise ValueError(
                    f"OpDot: shapes {xs} and {ys} are not aligned: {xs[-1]} (dim {len(xs) - 1} of the first) != "
                    f"{k_y} (dim {0 if len(ys) == 1 else len(ys) - 2} of the second)"
                )
            self.shape = xs[:-1] + (ys[:-2] + ys[-1:] if len(ys) > 1 else ())
        super().__init__(**kwargs)

    def _get_name(self) -> str:
        return f"dot({self.inputs[0].name}, {self.inputs[1].name})"

    def _get_op_name(self) -> str:
        return f"dot({self.inputs[0]._op_name}, {self.inputs[1]._op_name})"

    def _compute(self, *inputs: Tensor) -> Tensor:
        x, y = inputs
        if self.inputs[0].isscalar() or self.inputs[1].isscalar():
            out = x * y
            same = tuple(out.shape) == tuple(self.shape) or None in self.shape
            return out if same else out.reshape(*self.shape)
        return tensordot(x, y, dims=([x.ndim - 1], [max(y.ndim - 2, 0)]))


# --------------------------------------------------------------------------- shapes
def _broadcast(kind: str, a: Shape, b: Shape) -> Shape:
    out: list[Any] = []
    for da, db in itertools.zip_longest(reversed(a), reversed(b), fillvalue=1):
        if da is None or db is None:
            other = db if da is None else da
            out.append(None if other in (None, 1) else other)
        elif da == db or db == 1:
            out.append(da)
        elif da == 1:
            out.append(db)
        else:
            raise ValueError(f"{kind}: cannot broadcast with shape {a} and {b}")
    return tuple(reversed(out))


def _reshape_shape(old: Shape, new: tuple[int, ...]) -> Shape:
    if builtins.sum(d == -1 for d in new) > 1:
        raise ValueError(f"OpReshape: only one dimension can be -1, got {new}")
    if None in old:
        return tuple(None if d == -1 else d for d in new)
    size = math.prod(old)
    known = math.prod(d for d in new if d != -1)
    if -1 in new and known and size % known == 0:
        return tuple(size // known if d == -1 else d for d in new)
    if -1 in new or known != size:
        raise ValueError(f"OpReshape: cannot reshape {old} ({size} values) to {new}")
    return new


# --------------------------------------------------------------------------- shortcuts
def constant(x: Any, **kwargs: Any) -> Operation:
    """See :class:`OpConstant`."""
    return OpConstant(x, **kwargs)


array = constant


def placeholder(shape: Sequence[int | None], **kwargs: Any) -> Operation:
    """See :class:`OpPlaceholder`."""
    return OpPlaceholder(shape, **kwargs)


def variable(initializer: Any, shape: Sequence[int] | None = None, **kwargs: Any) -> OpVariable:
    """See :class:`OpVariable`."""
    return OpVariable(initializer, shape, **kwargs)


def ones(shape: int | Sequence[int], **kwargs: Any) -> Operation:
    """See :class:`OpOnes`."""
    return OpOnes(shape, **kwargs)


def zeros(shape: int | Sequence[int], **kwargs: Any) -> Operation:
    """See :class:`OpZeros`."""
    return OpZeros(shape, **kwargs)


def ones_like(x: Operation, **kwargs: Any) -> Operation:
    """See :class:`OpOnesLike`."""
    return OpOnesLike(x, **kwargs)


def zeros_like(x: Operation, **kwargs: Any) -> Operation:
    """See :class:`OpZerosLike`."""
    return OpZerosLike(x, **kwargs)


def transpose(x: Operation, axes: Sequence[int] | None = None, **kwargs: Any) -> Operation:
    """See :class:`OpTranspose`."""
    return OpTranspose(x, axes, **kwargs)


def reshape(x: Operation, shape: Sequence[int], **kwargs: Any) -> Operation:
    """See :class:`OpReshape`."""
    return OpReshape(x, shape, **kwargs)


def flatten(x: Operation, **kwargs: Any) -> Operation:
    """See :class:`OpFlatten`."""
    return OpFlatten(x, **kwargs)


def expand_dims(x: Operation, axis: int | None = None, **kwargs: Any) -> Operation:
    """See :class:`OpExpandDims`."""
    return OpExpandDims(x, axis, **kwargs)


def squeeze(x: Operation, axis: int | Sequence[int] | None = None, **kwargs: Any) -> Operation:
    """See :class:`OpSqueeze`."""
    return OpSqueeze(x, axis, **kwargs)


def sum(x: Operation, axis: int | Sequence[int] | None = None, keepdims: bool = False, **kwargs: Any) -> Operation:
    """See :class:`OpSum`."""
    return OpSum(x, axis, keepdims, **kwargs)


def add(x: Any, y: Any, **kwargs: Any) -> Operation:
    """See :class:`OpAdd`."""
    return OpAdd(_op(x), _op(y), **kwargs)


def subtract(x: Any, y: Any, **kwargs: Any) -> Operation:
    """See :class:`OpSubtract`."""
    return OpSubtract(_op(x), _op(y), **kwargs)


def multiply(x: Any, y: Any, **kwargs: Any) -> Operation:
    """See :class:`OpMultiply`."""
    return OpMultiply(_op(x), _op(y), **kwargs)


def divide(x: Any, y: Any, **kwargs: Any) -> Operation:
    """See :class:`OpDivide`."""
    return OpDivide(_op(x), _op(y), **kwargs)


def dot(x: Any, y: Any, **kwargs: Any) -> Operation:
    """See :class:`OpDot`."""
    return OpDot(_op(x), _op(y), **kwargs)


def negative(x: Operation, **kwargs: Any) -> Operation:
    """See :class:`OpNegative`."""
    return OpNegative(x, **kwargs)


def square(x: Operation, **kwargs: Any) -> Operation:
    """See :class:`OpSquare`."""
    return OpSquare(x, **kwargs)


def simplify(op: Operation, simplifies: Sequence[Callable[[Operation], Operation]] | None = None) -> Operation:
    """``op`` with each sub-graph that reads only constants replaced by one constant (auto_diff's
    only simplification, ``sp_const_sub_tree``); ``simplifies`` replaces that list."""
    for simplification in [_const_sub_tree] if simplifies is None else simplifies:
        op = simplification(op)
    return op


def _const_sub_tree(op: Operation) -> Operation:
    folded: dict[int, Operation] = {}
    for node in _nodes(op):
        node.inputs = [folded.get(id(i), i) for i in node.inputs]
        if node.inputs and all(isinstance(i, OpConstant) for i in node.inputs):
            folded[id(node)] = OpConstant(node.forward())
    return folded.get(id(op), op)


class Session:
    """Runs operations once per step: ``run(fetches, feed_dict)`` with an operation, a list or
    a dict of them; ``prepare()`` starts a new step (an operation run twice in one step, as an
    input of two others, computes once)."""

    _step: ClassVar[list[int]] = [0]  # (one step count for all sessions, as in auto_diff)

    def __init__(self) -> None:
        self.prepare()

    def prepare(self) -> None:
        """Start a new step."""
        self._step[0] += 1

    def run(self, fetches: Any, feed_dict: dict[Any, Any] | None = None) -> Any:
        """The values of ``fetches`` (an operation, a list or a dict of them)."""
        if feed_dict is None:
            feed_dict = {}
        feed_dict[Operation.STEP_KEY] = self._step[0]
        if isinstance(fetches, Operation):
            return fetches.forward(feed_dict)
        if isinstance(fetches, list):
            return [fetch.forward(feed_dict) for fetch in fetches]
        if isinstance(fetches, dict):
            return {key: fetch.forward(feed_dict) for key, fetch in fetches.items()}
        raise NotImplementedError(f"Unknown type of fetches: {type(fetches)}")

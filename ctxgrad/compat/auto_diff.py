"""auto_diff's define-then-run API on top of :func:`ctxgrad.trace`.

In auto_diff you first *define* a graph of operations, with placeholders for the data and
variables for the weights, and then *run* it: ``op.forward(feed_dict)`` computes it for the
values fed to the placeholders, and ``op.backward()`` fills each variable's ``.gradient``.
Here every operation is a recipe in ctxgrad ops; the first ``forward`` traces the recipe
with :func:`ctxgrad.trace` and every later one replays the recording (the Python that
walks the graph does not run again), with the variables as live inputs of the trace, so
their gradients flow and an update between runs is seen.

Shapes are inferred while the graph is built, so a mismatch raises there, naming the
operation and both shapes; ``None`` in a placeholder's shape is a size fed at run time.

>>> import numpy as np
>>> from ctxgrad.compat.auto_diff import OpPlaceholder, OpVariable
>>> x = OpPlaceholder((None, 2), name="x")
>>> w = OpVariable(np.array([[1.0], [2.0]]))
>>> y = x.dot(w).sum()
>>> y.shape
()
>>> y.forward({x: np.array([[1.0, 1.0], [3.0, 0.0]])})
array(6.)
>>> y.backward()
>>> w.gradient
array([[4.],
       [1.]])
>>> y.forward({"x": np.array([[0.0, 1.0]])})       # by name; another batch size traces again
array(2.)
>>> x.dot(OpVariable(np.ones((3, 1))))
Traceback (most recent call last):
...
ValueError: OpDot: shapes (None, 2) and (3, 1) are not aligned: 2 (dim 1 of the first) != 3 (dim 0 of the second)
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterator, Mapping
from typing import Any

import numpy as np

from ctxgrad._tensor import Tensor, as_tensor
from ctxgrad.autograd.grad_mode import no_grad
from ctxgrad.ops.linalg import matmul
from ctxgrad.trace import TracedFunction

__all__ = ["Operation", "OpConstant", "OpPlaceholder", "OpVariable"]

Shape = tuple[int | None, ...]
_names = itertools.count()


def _as_array(value: Any, what: str) -> np.ndarray[Any, Any]:
    try:
        arr = np.array(value, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{what}: expected an array of numbers, got {type(value).__name__} ({exc})") from None
    return arr


def _show(shape: Shape) -> str:
    return "(" + ", ".join(str(d) for d in shape) + ("," if len(shape) == 1 else "") + ")"


class Operation:
    """A node of the graph: its ``shape`` (``None`` for a size known only at run time), its
    ``inputs``, and how to compute it from their values in ctxgrad ops."""

    def __init__(
        self,
        kind: str,
        inputs: tuple[Operation, ...],
        shape: Shape,
        compute: Callable[..., Tensor] | None = None,
        name: str | None = None,
    ) -> None:
        self.kind = kind
        self.inputs = inputs
        self.shape: Shape = tuple(shape)
        self.name = name if name is not None else f"{kind}_{next(_names)}"
        self._compute = compute
        self._traced: TracedFunction | None = None
        self._output: Tensor | None = None

    def __repr__(self) -> str:
        return f"{self.kind}(name={self.name!r}, shape={_show(self.shape)})"

    # ------------------------------------------------------------------ building
    def _binary(
        self, kind: str, other: Any, compute: Callable[[Tensor, Tensor], Tensor], swap: bool = False
    ) -> Operation:
        o = other if isinstance(other, Operation) else OpConstant(other)
        a, b = (o, self) if swap else (self, o)
        return Operation(kind, (a, b), _broadcast(kind, a.shape, b.shape), compute)

    def __add__(self, other: Any) -> Operation:
        return self._binary("OpAdd", other, lambda a, b: a + b)

    def __radd__(self, other: Any) -> Operation:
        return self._binary("OpAdd", other, lambda a, b: a + b, swap=True)

    def __sub__(self, other: Any) -> Operation:
        return self._binary("OpSubtract", other, lambda a, b: a - b)

    def __rsub__(self, other: Any) -> Operation:
        return self._binary("OpSubtract", other, lambda a, b: a - b, swap=True)

    def __mul__(self, other: Any) -> Operation:
        return self._binary("OpMultiply", other, lambda a, b: a * b)

    def __rmul__(self, other: Any) -> Operation:
        return self._binary("OpMultiply", other, lambda a, b: a * b, swap=True)

    def __truediv__(self, other: Any) -> Operation:
        return self._binary("OpDivide", other, lambda a, b: a / b)

    def __rtruediv__(self, other: Any) -> Operation:
        return self._binary("OpDivide", other, lambda a, b: a / b, swap=True)

    def __neg__(self) -> Operation:
        return Operation("OpNegative", (self,), self.shape, lambda a: -a)

    def dot(self, other: Any) -> Operation:
        """Matrix product (``np.dot`` of 1-D and 2-D operands)."""
        o = other if isinstance(other, Operation) else OpConstant(other)
        return Operation("OpDot", (self, o), _dot_shape(self.shape, o.shape), matmul)

    def sum(self, axis: int | tuple[int, ...] | None = None, keepdims: bool = False) -> Operation:
        """The sum over ``axis`` (all axes when None), keeping them as size 1 with ``keepdims``."""
        axes = _axes("OpSum", axis, len(self.shape))
        shape = tuple(1 if i in axes else d for i, d in enumerate(self.shape) if keepdims or i not in axes)

        def compute(a: Tensor) -> Tensor:
            return a.sum(dim=tuple(sorted(axes)), keepdim=keepdims) if axes else a * 1.0

        return Operation("OpSum", (self,), shape, compute)

    def transpose(self, axes: tuple[int, ...] | list[int] | None = None) -> Operation:
        """The axes permuted (reversed when None)."""
        n = len(self.shape)
        perm = tuple(range(n))[::-1] if axes is None else tuple(axes)
        if sorted(a % n if n and -n <= a < n else a for a in perm) != list(range(n)):
            raise ValueError(
                f"OpTranspose: axes {perm} are not a permutation of the {n} axes of shape {_show(self.shape)}"
            )
        perm = tuple(a % n for a in perm)
        return Operation("OpTranspose", (self,), tuple(self.shape[a] for a in perm), lambda a: a.permute(*perm))

    def reshape(self, shape: tuple[int, ...] | list[int]) -> Operation:
        """The same values in ``shape`` (one ``-1`` is inferred)."""
        new = _reshape_shape(self.shape, tuple(shape))
        return Operation("OpReshape", (self,), new, lambda a: a.reshape(*shape))

    def flatten(self) -> Operation:
        """The values as one axis."""
        known = None not in self.shape
        size = math.prod(d for d in self.shape if d is not None) if known else None
        return Operation("OpFlatten", (self,), (size,), lambda a: a.reshape(-1))

    def expand_dims(self, axis: int) -> Operation:
        """A new axis of size 1 at ``axis``."""
        n = len(self.shape)
        if not -n - 1 <= axis <= n:
            raise ValueError(
                f"OpExpandDims: axis {axis} is out of range for shape {_show(self.shape)} (expected {-n - 1} to {n})"
            )
        at = axis % (n + 1)
        return Operation("OpExpandDims", (self,), self.shape[:at] + (1,) + self.shape[at:], lambda a: a.unsqueeze(at))

    # ------------------------------------------------------------------ running
    def _nodes(self) -> Iterator[Operation]:
        """Every operation this one depends on, each once, inputs before their users."""
        seen: set[int] = set()
        stack: list[tuple[Operation, bool]] = [(self, False)]
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

    def forward(self, feed_dict: Mapping[Any, Any] | None = None) -> np.ndarray[Any, Any]:
        """The value of this operation for the arrays fed to its placeholders (keyed by
        placeholder or by name), as a NumPy array."""
        nodes = list(self._nodes())
        placeholders = [n for n in nodes if isinstance(n, OpPlaceholder)]
        feeds = _feeds(placeholders, feed_dict or {})

        if self._traced is None:

            def run(**values: Tensor) -> Tensor:
                computed: dict[int, Tensor] = {}
                for n in nodes:
                    if isinstance(n, OpPlaceholder):
                        computed[id(n)] = values[n.name]
                    elif isinstance(n, (OpVariable, OpConstant)):
                        computed[id(n)] = n.tensor
                    else:
                        assert n._compute is not None
                        computed[id(n)] = n._compute(*(computed[id(i)] for i in n.inputs))
                return computed[id(self)]

            run.__name__ = self.name
            self._traced = TracedFunction(run, strict=False, fast=True)  # (as trace(run, **feeds) makes it)
            self._traced.record((), feeds)
        self._output = out = self._traced(**feeds)
        value: np.ndarray[Any, Any] = out.detach().numpy().copy()
        return value

    def backward(self, gradient: Any = None) -> None:
        """Fill ``.gradient`` of every variable this operation depends on: the gradient of
        the last ``forward``'s value (seeded with ``gradient``, ones by default) with respect
        to the variable, an array of its shape (zeros for one the value does not depend on)."""
        out = self._output
        if out is None:
            raise RuntimeError(f"{self.kind} {self.name!r}: call forward(feed_dict) before backward()")
        seed = np.ones(out.shape) if gradient is None else _as_array(gradient, f"{self.kind}.backward gradient")
        if seed.shape != tuple(out.shape):
            raise ValueError(
                f"{self.kind}.backward: gradient of shape {_show(seed.shape)} for a value of shape "
                f"{_show(tuple(out.shape))}"
            )
        variables = [n for n in self._nodes() if isinstance(n, OpVariable)]
        for v in variables:
            v.tensor.grad = None
        if out.requires_grad:
            out.backward(as_tensor(seed), retain_graph=True)
        for v in variables:
            g = v.tensor.grad
            v.gradient = np.zeros(v.value.shape) if g is None else g.numpy().copy()


class OpPlaceholder(Operation):
    """Data fed at run time: ``op.forward({placeholder: array})`` or ``{name: array}``.
    ``None`` in ``shape`` is a size that may differ from run to run."""

    def __init__(self, shape: tuple[int | None, ...] | list[int | None], name: str | None = None) -> None:
        super().__init__("OpPlaceholder", (), tuple(shape), name=name)


class OpVariable(Operation):
    """A weight: its ``value`` (``initializer`` as an array, or ``initializer(shape)``), and
    after ``backward`` its ``gradient``.  Change it with :meth:`update`."""

    def __init__(
        self, initializer: Any, shape: tuple[int, ...] | list[int] | None = None, name: str | None = None
    ) -> None:
        if callable(initializer):
            if shape is None:
                raise ValueError("OpVariable: an initializer function needs the shape to call it with")
            value = _as_array(initializer(tuple(shape)), "OpVariable initializer")
        else:
            value = _as_array(initializer, "OpVariable")
        if shape is not None and value.shape != tuple(shape):
            raise ValueError(
                f"OpVariable: the initial value has shape {_show(value.shape)}, but shape {_show(tuple(shape))} "
                "was given"
            )
        super().__init__("OpVariable", (), value.shape, name=name)
        self.tensor = as_tensor(value)
        self.tensor.requires_grad_()
        self.gradient: np.ndarray[Any, Any] | None = None

    @property
    def value(self) -> np.ndarray[Any, Any]:
        """The current value (a copy)."""
        value: np.ndarray[Any, Any] = self.tensor.detach().numpy().copy()
        return value

    def update(self, value: Any) -> None:
        """Set the value, in place (traced graphs that use this variable see it)."""
        arr = _as_array(value, "OpVariable.update")
        if arr.shape != self.tensor.shape:
            raise ValueError(
                f"OpVariable.update: {self.name!r} has shape {_show(tuple(self.tensor.shape))}, got {_show(arr.shape)}"
            )
        with no_grad():
            self.tensor.copy_(as_tensor(arr))


class OpConstant(Operation):
    """A fixed array (numbers combined with operations become constants)."""

    def __init__(self, x: Any, name: str | None = None) -> None:
        value = _as_array(x, "OpConstant")
        super().__init__("OpConstant", (), value.shape, name=name)
        self.tensor = as_tensor(value)


# --------------------------------------------------------------------------- shapes
def _broadcast(kind: str, a: Shape, b: Shape) -> Shape:
    out: list[int | None] = []
    for da, db in itertools.zip_longest(reversed(a), reversed(b), fillvalue=1):
        if da is None or db is None:
            other = db if da is None else da
            out.append(None if other in (None, 1) else other)
        elif da == db or db == 1:
            out.append(da)
        elif da == 1:
            out.append(db)
        else:
            raise ValueError(f"{kind}: shapes {_show(a)} and {_show(b)} cannot be broadcast together")
    return tuple(reversed(out))


def _dot_shape(a: Shape, b: Shape) -> Shape:
    if not 1 <= len(a) <= 2 or not 1 <= len(b) <= 2:
        raise ValueError(f"OpDot: takes 1-D and 2-D operands, got shapes {_show(a)} and {_show(b)}")
    k_b = b[0]
    if a[-1] is not None and k_b is not None and a[-1] != k_b:
        raise ValueError(
            f"OpDot: shapes {_show(a)} and {_show(b)} are not aligned: {a[-1]} (dim {len(a) - 1} of the first) != "
            f"{k_b} (dim 0 of the second)"
        )
    return a[:-1] + b[1:]


def _axes(kind: str, axis: int | tuple[int, ...] | None, n: int) -> set[int]:
    if axis is None:
        return set(range(n))
    axes = (axis,) if isinstance(axis, int) else tuple(axis)
    for a in axes:
        if not -n <= a < n:
            raise ValueError(f"{kind}: axis {a} is out of range for {n} dimensions")
    return {a % n for a in axes}


def _reshape_shape(old: Shape, new: tuple[int, ...]) -> Shape:
    if sum(d == -1 for d in new) > 1:
        raise ValueError(f"OpReshape: only one dimension can be -1, got {_show(new)}")
    if None in old:
        return tuple(None if d == -1 else d for d in new)
    size = math.prod(d for d in old if d is not None)
    known = math.prod(d for d in new if d != -1)
    if -1 in new:
        if known == 0 or size % known:
            raise ValueError(f"OpReshape: cannot reshape {_show(old)} ({size} values) to {_show(new)}")
        return tuple(size // known if d == -1 else d for d in new)
    if known != size:
        raise ValueError(f"OpReshape: cannot reshape {_show(old)} ({size} values) to {_show(new)}")
    return new


def _feeds(placeholders: list[OpPlaceholder], feed_dict: Mapping[Any, Any]) -> dict[str, Tensor]:
    """Each placeholder's fed array, checked against its shape, as a tensor by its name."""
    out: dict[str, Tensor] = {}
    for p in placeholders:
        if p.name in out:
            raise ValueError(
                f"OpPlaceholder: two placeholders of this graph are named {p.name!r}; give them distinct names"
            )
        if p in feed_dict:
            value = feed_dict[p]
        elif p.name in feed_dict:
            value = feed_dict[p.name]
        else:
            raise KeyError(
                f"OpPlaceholder {p.name!r} (shape {_show(p.shape)}) is not fed: add it to the feed dict, by the "
                "placeholder or by its name"
            )
        arr = _as_array(value, f"OpPlaceholder {p.name!r}")
        if len(arr.shape) != len(p.shape) or any(d is not None and d != s for d, s in zip(p.shape, arr.shape)):
            raise ValueError(
                f"OpPlaceholder {p.name!r}: fed an array of shape {_show(arr.shape)}, expected {_show(p.shape)}"
            )
        out[p.name] = as_tensor(arr)
    return out

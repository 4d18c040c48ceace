"""mini_ctxgrad: the whole idea of ctxgrad in one file. Read this first.

- ``Tensor``: a NumPy array plus ``requires_grad``, ``grad`` and ``grad_fn``, the node that
  made it (ctxgrad/_tensor.py).
- ``Function``: ``forward(ctx, ...)`` computes; ``backward(ctx, grad)`` is the chain rule by
  hand. ``apply`` runs forward with grad mode off and, when some input requires grad, makes
  the ctx the output's node: the ctx *is* the node (ctxgrad/autograd/function.py).
- ``AccumulateGrad``: the node of a leaf; it adds its gradient into ``leaf.grad``
  (ctxgrad/autograd/graph.py).
- ``backward``: count the edges pointing at each node, then run a node once all of them
  have delivered, a ``None`` gradient included (a ready queue, no recursion)
  (ctxgrad/autograd/engine.py).

ctxgrad adds checks of what backward returns, version counters, views, double backward,
forward mode and hooks on top; the idea stays this one. Run ``python mini_ctxgrad.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

GRAD_ENABLED = [True]  # a one-element list, so functions can switch it off and on


class Tensor:
    """An array that remembers the node (``grad_fn``) which made it."""

    def __init__(self, data: Any, requires_grad: bool = False) -> None:
        self.data = np.asarray(data, dtype=np.float64)
        self.requires_grad = requires_grad
        self.grad: np.ndarray | None = None
        self.grad_fn: Context | None = None  # None: a leaf (made by the user)
        self.accumulator: AccumulateGrad | None = None  # a leaf's node, made when first used

    def backward(self) -> None:
        backward(self)

    # Every operator is a Function, built-in or not: one mechanism.
    def __add__(self, other: Any) -> Tensor:
        return Add.apply(self, as_tensor(other))

    def __mul__(self, other: Any) -> Tensor:
        return Mul.apply(self, as_tensor(other))

    __radd__, __rmul__ = __add__, __mul__

    def __matmul__(self, other: Tensor) -> Tensor:
        return MatMul.apply(self, other)

    def sum(self) -> Tensor:
        return Sum.apply(self)

    def tanh(self) -> Tensor:
        return Tanh.apply(self)


def as_tensor(value: Any) -> Tensor:
    return value if isinstance(value, Tensor) else Tensor(value)


class Context:
    """The ctx that ``forward`` fills in, and the graph node that ``backward`` runs on."""

    def __init__(self, function: type[Function], needs_input_grad: tuple[bool, ...]) -> None:
        self.function = function
        self.needs_input_grad = needs_input_grad
        self.saved_tensors: tuple[Any, ...] = ()
        self.next_functions: tuple[Any, ...] = ()  # one edge per input: where its gradient goes

    def save_for_backward(self, *tensors: Any) -> None:
        self.saved_tensors = tensors

    def run(self, grad: np.ndarray) -> tuple[np.ndarray | None, ...]:
        grads = self.function.backward(self, grad)
        return grads if isinstance(grads, tuple) else (grads,)


class AccumulateGrad:
    """The node of a leaf: its 'backward' adds the gradient into ``leaf.grad``."""

    next_functions: tuple[Any, ...] = ()

    def __init__(self, leaf: Tensor) -> None:
        self.leaf = leaf

    def run(self, grad: np.ndarray) -> tuple[np.ndarray | None, ...]:
        leaf = self.leaf
        leaf.grad = grad.copy() if leaf.grad is None else leaf.grad + grad
        return ()


def edge_of(t: Any) -> Context | AccumulateGrad | None:
    """Where the gradient of ``t`` must go: its ``grad_fn``, its leaf's node, or nowhere."""
    if not isinstance(t, Tensor) or not t.requires_grad:
        return None
    if t.grad_fn is not None:
        return t.grad_fn
    if t.accumulator is None:
        t.accumulator = AccumulateGrad(t)
    return t.accumulator


class Function:
    """Subclass it with static ``forward(ctx, *args)`` and ``backward(ctx, grad)``."""

    @classmethod
    def apply(cls, *args: Any) -> Tensor:
        needs = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
        ctx = Context(cls, needs)
        GRAD_ENABLED[0], was = False, GRAD_ENABLED[0]  # forward's own ops record nothing
        try:
            out = cls.forward(ctx, *args)
        finally:
            GRAD_ENABLED[0] = was
        if was and any(needs):  # record: the ctx becomes the output's node
            ctx.next_functions = tuple(edge_of(a) for a in args)
            out.requires_grad, out.grad_fn = True, ctx
        return out

    @staticmethod
    def forward(ctx: Context, *args: Any) -> Tensor:
        raise NotImplementedError

    @staticmethod
    def backward(ctx: Context, grad: np.ndarray) -> Any:
        raise NotImplementedError


def backward(root: Tensor) -> None:
    """Run every node between ``root`` and the leaves, each once, after all its inputs."""
    # Prepare: count the edges pointing at each node (an explicit stack, not recursion).
    deps: dict[Any, int] = {root.grad_fn: 0}
    stack = [root.grad_fn]
    while stack:
        for child in stack.pop().next_functions:
            if child is None:
                continue
            if child not in deps:
                deps[child] = 0
                stack.append(child)
            deps[child] += 1
    # Execute: a node is ready when all its edges have delivered; sum what they deliver.
    buffers: dict[Any, np.ndarray] = {root.grad_fn: np.ones_like(root.data)}
    ready = [root.grad_fn]
    while ready:
        node = ready.pop()
        grad_in = buffers.pop(node, None)  # None: every edge into it delivered no gradient
        grads = node.run(grad_in) if grad_in is not None else (None,) * len(node.next_functions)
        for child, grad in zip(node.next_functions, grads):
            if child is None:
                continue
            if grad is not None:  # a None gradient adds nothing, but its edge has delivered
                buffers[child] = buffers[child] + grad if child in buffers else grad
            deps[child] -= 1
            if deps[child] == 0:
                ready.append(child)


def unbroadcast(grad: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    """Sum a gradient back to the shape of an input that NumPy broadcast."""
    while grad.ndim > len(shape):
        grad = grad.sum(axis=0)
    for axis, size in enumerate(shape):
        if size == 1:
            grad = grad.sum(axis=axis, keepdims=True)
    return grad


# The built-in ops: ordinary Functions, exactly like the ones a user writes.
class Add(Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.shapes = a.data.shape, b.data.shape
        return Tensor(a.data + b.data)

    @staticmethod
    def backward(ctx, grad):
        return unbroadcast(grad, ctx.shapes[0]), unbroadcast(grad, ctx.shapes[1])


class Mul(Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return Tensor(a.data * b.data)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        grad_a = unbroadcast(grad * b.data, a.data.shape) if ctx.needs_input_grad[0] else None
        grad_b = unbroadcast(grad * a.data, b.data.shape) if ctx.needs_input_grad[1] else None
        return grad_a, grad_b


class MatMul(Function):
    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return Tensor(a.data @ b.data)

    @staticmethod
    def backward(ctx, grad):
        a, b = ctx.saved_tensors
        return grad @ b.data.T, a.data.T @ grad


class Sum(Function):
    @staticmethod
    def forward(ctx, a):
        ctx.shape = a.data.shape
        return Tensor(a.data.sum())

    @staticmethod
    def backward(ctx, grad):
        return np.broadcast_to(grad, ctx.shape).copy()


class Tanh(Function):
    @staticmethod
    def forward(ctx, a):
        out = Tensor(np.tanh(a.data))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def backward(ctx, grad):
        (out,) = ctx.saved_tensors
        return grad * (1.0 - out.data**2)


if __name__ == "__main__":

    class Exp(Function):  # your own op: written exactly like the built-in ones
        @staticmethod
        def forward(ctx, a):
            out = Tensor(np.exp(a.data))
            ctx.save_for_backward(out)  # d exp(a) / da = exp(a): keep the output
            return out

        @staticmethod
        def backward(ctx, grad):
            (out,) = ctx.saved_tensors
            return grad * out.data

    x = Tensor([0.0, 1.0], requires_grad=True)
    y = (Exp.apply(x) * x + x).sum()  # SumBackward <- AddBackward <- MulBackward <- ExpBackward ...
    y.backward()
    print("x.grad =", x.grad, "= exp(x) (1 + x) + 1")
    assert np.allclose(x.grad, np.exp([0.0, 1.0]) * [1.0, 2.0] + 1)

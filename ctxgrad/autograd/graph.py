"""The pieces of a backward graph: nodes, edges, hooks and saved tensors.

A graph is made of :class:`Node` objects.  Every ``Function`` call that records makes one
node, its ctx, an instance of the generated class ``<Name>Backward``; a leaf that requires
grad gets an :class:`AccumulateGrad` node the first time an op uses it.  A node's
``_edges`` hold, for each argument of the forward call, where that argument's gradient
goes::

    x (leaf) ──► AccumulateGrad ◄── edge 0 ── MulBackward0 ◄── edge 0 ── SumBackward0
                                                  ▲                          ▲
                                                  y = x * 2                  loss = y.sum()

Edges point from a node to the nodes that made its inputs, the direction in which
gradients flow; nothing points the other way, so a graph is freed by reference counting
as soon as its last output is dropped.  A leaf refers to its ``AccumulateGrad`` only
weakly for the same reason.

An edge is ``(node, output_nr, shape, dtype)`` for a tensor argument, with ``node`` None
when that tensor does not require grad; a non-tensor argument has none.  The shape and
dtype let the engine check each gradient a backward returns.  A node keeps its edges in one
flat tuple, four entries per argument (:mod:`._edges` says why).
"""

from __future__ import annotations

import itertools
import threading
import weakref
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from ctxgrad._memory_format import contiguous_format, copied_for_grad
from ctxgrad._state import _state
from ctxgrad.autograd._edges import Edge as Edge
from ctxgrad.autograd._edges import edges_of
from ctxgrad.autograd._mutation import allow_mutation_on_saved_tensors as allow_mutation_on_saved_tensors
from ctxgrad.autograd._node_api import NodeAPI
from ctxgrad.autograd._readonly import is_saved_array_lock_enabled as is_saved_array_lock_enabled
from ctxgrad.autograd._readonly import relock, writable
from ctxgrad.autograd._readonly import set_saved_array_lock_enabled as set_saved_array_lock_enabled
from ctxgrad.autograd.hooks import _NodeHooks, _run_tensor_hooks, run_prehooks
from ctxgrad.autograd.hooks import disable_saved_tensors_hooks as disable_saved_tensors_hooks
from ctxgrad.autograd.hooks import register_multi_grad_hook as register_multi_grad_hook
from ctxgrad.autograd.hooks import save_on_cpu as save_on_cpu
from ctxgrad.autograd.hooks import saved_tensors_hooks as saved_tensors_hooks
from ctxgrad.autograd.values import is_value_dtype

if TYPE_CHECKING:
    from ctxgrad._tensor import Tensor

_sequence = itertools.count()
# AccumulateGrad nodes run as soon as they are ready, as in torch (UINT64_MAX there too).
_ACCUMULATE_GRAD_SEQUENCE = 2**64 - 1


class Node(NodeAPI):
    """A node of the backward graph.

    ``name()`` is the class name (``MulBackward0``, ``MyFnBackward``, ``AccumulateGrad``);
    ``next_functions`` lists, per tensor argument of the forward call, the pair
    ``(node, output_nr)`` its gradient flows to (``(None, 0)`` when it needs none).  Hooks,
    ``metadata``, saved values by name and calling a node by hand come from
    :class:`~ctxgrad.autograd._node_api.NodeAPI`.
    """

    __slots__ = ("__dict__", "__weakref__", "_edges", "_seq")

    _edges: tuple[Any, ...]  # (four entries per forward argument: node, output_nr, shape, dtype)
    _seq: int
    # Rarely set, so class defaults: a node stores them only once something is registered.
    _hooks: _NodeHooks | None = None
    _metadata: dict[str, Any] | None = None
    # One entry per output: (shape, dtype) of a tensor output, None otherwise.
    _out_meta: tuple[tuple[tuple[int, ...], np.dtype[Any]] | None, ...]

    def name(self) -> str:
        """The node's class name, e.g. ``MulBackward0``."""
        return type(self).__name__

    @property
    def next_functions(self) -> tuple[tuple[Node | None, int], ...]:
        """``(node, output_nr)`` for each tensor argument of the forward call (empty for
        a ctx whose call recorded nothing)."""
        return tuple((e[0], e[1]) for e in edges_of(self) if e is not None)

    def _num_outputs(self) -> int:
        raise NotImplementedError

    def _output_grads(self, buf: list[Tensor | None]) -> list[Tensor | None]:
        """Run the tensor hooks and retain_grad of each output on the incoming gradients."""
        hooks = self._hooks
        if hooks is None or not (hooks.tensor_pre or hooks.retain):
            return buf
        buf = list(buf)
        for nr, fns in hooks.tensor_pre.items():
            g = buf[nr]
            if g is not None and fns:
                buf[nr] = _run_tensor_hooks(fns, g)
        for nr, ref in hooks.retain.items():
            g = buf[nr]
            t = ref()
            if g is not None and t is not None:
                _accumulate_into(t, g)
        return buf

    def _run(self, grads: list[Tensor | None]) -> list[Tensor | None]:
        """Compute one gradient per edge from one gradient per output."""
        raise NotImplementedError

    def _release(self) -> None:
        """Free what backward no longer needs (saved tensors) after a non-retained run."""

    def __repr__(self) -> str:
        return f"<{self.name()} object at {id(self):#x}>"


def _accumulate_into(t: Tensor, grad: Tensor) -> None:
    """Add ``grad`` into ``t.grad`` (in place unless a graph is being built; a value that
    is not an array, see :mod:`.values`, with its own ``+``)."""
    from ctxgrad._tensor import Tensor, _wrap

    old = t._grad
    if type(grad) is not Tensor and is_value_dtype(grad._data.dtype):
        t._grad = grad if old is None else old + grad
    elif _state.modes.grad_enabled:
        # create_graph: keep the history of the gradient, so never write in place; and
        # copy, so that .grad never aliases a tensor someone else holds.
        t._grad = (
            (grad.clone(memory_format=contiguous_format) if t._data.flags.c_contiguous else grad.clone())
            if old is None
            else old + grad
        )
    elif old is None:  # (in the leaf's layout, as torch: see copied_for_grad)
        t._grad = _wrap(copied_for_grad(grad._data, t._data))
    elif old._requires_grad:
        t._grad = old + grad.detach()
    else:
        flipped = writable(old._data)
        np.add(old._data, grad._data, out=old._data, casting="unsafe")
        relock(flipped)
        old._bump_version()


class AccumulateGrad(Node):
    """The node that adds the gradient reaching a leaf into ``leaf.grad``.

    ``variable`` is the leaf.  Its tensor hooks run first and may replace the gradient;
    its post-accumulate-grad hooks run after ``.grad`` is updated.
    """

    __slots__ = ("variable",)
    _out_meta = (None,)

    def __init__(self, variable: Tensor) -> None:
        self.variable = variable
        self._edges = ()
        self._seq = _ACCUMULATE_GRAD_SEQUENCE

    def name(self) -> str:
        return "AccumulateGrad"

    def _num_outputs(self) -> int:
        return 1

    def _output_grads(self, buf: list[Tensor | None]) -> list[Tensor | None]:
        hooks = self.variable._hooks
        if hooks and buf[0] is not None:
            buf = [_run_tensor_hooks(hooks, buf[0])]
        return super()._output_grads(buf)

    def _run(self, grads: list[Tensor | None]) -> list[Tensor | None]:
        hooks = self._hooks
        if hooks is not None and hooks.pre:
            grads = run_prehooks(hooks.pre, grads)
        grad = grads[0]
        var = self.variable
        if grad is None or not var._requires_grad:  # (requires_grad_(False) since the forward: none)
            return []
        if isinstance(var._grad_dtype, np.dtype):  # a grad_dtype other than the leaf's own
            grad = grad.to(var._grad_dtype)
        _accumulate_into(var, grad)
        post = var._post_acc_hooks
        if post:  # (before the node's post hooks, in the engine's grad mode, as in torch)
            for hook in tuple(post):
                if hook(var) is not None:
                    raise RuntimeError("Tensor post accumulate grad hooks should return None.")
        if hooks is not None and hooks.post:
            for hook in tuple(hooks.post):
                hook((), (grad,))
        return []


def _accumulator_of(t: Tensor) -> AccumulateGrad:
    """The leaf's AccumulateGrad node, made on first use and shared while a graph holds it."""
    ref = t._accumulator
    node = ref() if ref is not None else None
    if node is None:
        # Two threads using a fresh leaf at once must get the same node: one lock for the
        # (rare) creation, none for the common lookup above.
        with _accumulator_lock:
            ref = t._accumulator
            node = ref() if ref is not None else None
            if node is None:
                node = AccumulateGrad(t)
                t._accumulator = weakref.ref(node)
    return node


_accumulator_lock = threading.Lock()


class GradientEdge(NamedTuple):
    """Where a tensor's gradient enters the graph: ``(node, output_nr)``."""

    node: Node
    output_nr: int


def get_gradient_edge(tensor: Tensor) -> GradientEdge:
    """The edge through which gradients for ``tensor`` flow."""
    if not tensor._requires_grad:
        raise RuntimeError("It is not possible to get the gradient edge for a Tensor that does not require gradients")
    if tensor._grad_fn is not None:
        return GradientEdge(tensor._grad_fn, tensor._output_nr)
    return GradientEdge(_accumulator_of(tensor), 0)


def increment_version(tensor: Tensor) -> None:
    """Bump the version counter by hand, as an in-place change would."""
    tensor._bump_version()

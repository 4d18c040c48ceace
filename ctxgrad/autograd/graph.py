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

An edge is a tuple ``(node, output_nr, shape, dtype)`` for a tensor argument, with
``node`` None when that tensor does not require grad, and ``None`` for a non-tensor
argument.  The shape and dtype let the engine check each gradient a backward returns.
"""

from __future__ import annotations

import itertools
import threading
import weakref
from collections import deque
from collections.abc import Callable, MutableSequence
from types import TracebackType
from typing import TYPE_CHECKING, Any, NamedTuple

import numpy as np

from ctxgrad import _dtypes
from ctxgrad._state import _state
from ctxgrad.autograd.hooks import run_prehooks

if TYPE_CHECKING:
    from ctxgrad._tensor import Tensor

Edge = tuple["Node | None", int, tuple[int, ...], np.dtype[Any]]

_sequence = itertools.count()
# AccumulateGrad nodes run as soon as they are ready, as in torch (UINT64_MAX there too).
_ACCUMULATE_GRAD_SEQUENCE = 2**64 - 1


class RemovableHandle:
    """Returned by every ``register_*hook``; ``remove()`` takes the hook out again."""

    __slots__ = ("_hook", "_hooks")

    def __init__(self, hooks: MutableSequence[Any], hook: Any) -> None:
        hooks.append(hook)
        self._hooks: MutableSequence[Any] | None = hooks
        self._hook = hook

    def remove(self) -> None:
        """Remove the hook; removing twice does nothing."""
        hooks = self._hooks
        if hooks is not None:
            for i, h in enumerate(hooks):
                if h is self._hook:
                    del hooks[i]
                    break
            self._hooks = None

    def __enter__(self) -> RemovableHandle:
        return self

    def __exit__(self, *exc: object) -> None:
        self.remove()


class _NodeHooks:
    """The hooks of one node, made only when a hook is registered."""

    __slots__ = ("post", "pre", "retain", "tensor_pre")

    def __init__(self) -> None:
        self.pre: list[Callable[..., Any]] = []
        self.post: list[Callable[..., Any]] = []
        self.tensor_pre: dict[int, list[Callable[[Tensor], Tensor | None]]] = {}
        self.retain: dict[int, weakref.ref[Tensor]] = {}


def _hook_name(hook: Any) -> str:
    return getattr(hook, "__name__", type(hook).__name__)


def _run_tensor_hooks(hooks: list[Callable[[Tensor], Tensor | None]], grad: Tensor) -> Tensor:
    """Apply tensor hooks in order; a hook that returns a tensor replaces the gradient."""
    from ctxgrad._tensor import Tensor

    for hook in tuple(hooks):
        new = hook(grad)
        if new is None:
            continue
        if not isinstance(new, Tensor):
            raise TypeError(f"expected Variable, but hook returned '{type(new).__name__}' (hook '{_hook_name(hook)}')")
        if new._data.shape != grad._data.shape:
            raise RuntimeError(
                f"hook '{_hook_name(hook)}' has changed the size of value (from {list(grad._data.shape)} to "
                f"{list(new._data.shape)})"
            )
        if new._data.dtype != grad._data.dtype:
            raise RuntimeError(
                f"hook '{_hook_name(hook)}' has changed the type of value (was "
                f"ctxgrad.{_dtypes.type_name(grad._data.dtype)} got ctxgrad.{_dtypes.type_name(new._data.dtype)})"
            )
        grad = new
    return grad


class Node:
    """A node of the backward graph.

    ``name()`` is the class name (``MulBackward0``, ``MyFnBackward``, ``AccumulateGrad``);
    ``next_functions`` lists, per tensor argument of the forward call, the pair
    ``(node, output_nr)`` its gradient flows to (``(None, 0)`` when it needs none).
    """

    __slots__ = ("__weakref__", "_edges", "_hooks", "_metadata", "_seq")

    _edges: tuple[Edge | None, ...]
    _seq: int
    _hooks: _NodeHooks | None
    _metadata: dict[str, Any] | None
    # One entry per output: (shape, dtype) of a tensor output, None otherwise.
    _out_meta: tuple[tuple[tuple[int, ...], np.dtype[Any]] | None, ...]

    def name(self) -> str:
        """The node's class name, e.g. ``MulBackward0``."""
        return type(self).__name__

    @property
    def next_functions(self) -> tuple[tuple[Node | None, int], ...]:
        """``(node, output_nr)`` for each tensor argument of the forward call (empty for
        a ctx whose call recorded nothing)."""
        edges: tuple[Edge | None, ...] = getattr(self, "_edges", ())
        return tuple((e[0], e[1]) for e in edges if e is not None)

    @property
    def metadata(self) -> dict[str, Any]:
        """A dict for anything you want to keep on the node (anomaly mode adds ``traceback_``)."""
        md = self._metadata
        if md is None:
            md = self._metadata = {}
        return md

    def _sequence_nr(self) -> int:
        seq: int = getattr(self, "_seq", -1)
        return seq

    def _node_hooks(self) -> _NodeHooks:
        h = self._hooks
        if h is None:
            h = self._hooks = _NodeHooks()
        return h

    def register_prehook(self, fn: Callable[[tuple[Tensor | None, ...]], Any]) -> RemovableHandle:
        """``fn(grad_outputs)`` runs before the node; returning a tuple replaces them."""
        return RemovableHandle(self._node_hooks().pre, fn)

    def register_hook(
        self, fn: Callable[[tuple[Tensor | None, ...], tuple[Tensor | None, ...]], Any]
    ) -> RemovableHandle:
        """``fn(grad_inputs, grad_outputs)`` runs after the node; returning a tuple replaces grad_inputs.

        ``grad_inputs`` has one entry per tensor argument, like ``next_functions``.
        """
        return RemovableHandle(self._node_hooks().post, fn)

    def _add_tensor_hook(self, output_nr: int, hook: Callable[[Tensor], Tensor | None]) -> RemovableHandle:
        hooks = self._node_hooks().tensor_pre.setdefault(output_nr, [])
        return RemovableHandle(hooks, hook)

    def _add_retain_grad(self, output_nr: int, tensor: Tensor) -> None:
        self._node_hooks().retain[output_nr] = weakref.ref(tensor)

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
    """Add ``grad`` into ``t.grad`` (in place unless a graph is being built)."""
    from ctxgrad._tensor import _wrap

    old = t._grad
    if _state.grad_enabled:
        # create_graph: keep the history of the gradient, so never write in place; and
        # copy, so that .grad never aliases a tensor someone else holds.
        t._grad = grad.clone() if old is None else old + grad
    elif old is None:
        t._grad = _wrap(np.array(grad._data, copy=True))
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
        self._hooks = None
        self._metadata = None

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
        if grad is None:
            return []
        var = self.variable
        _accumulate_into(var, grad)
        if hooks is not None and hooks.post:
            for hook in tuple(hooks.post):
                hook((), (grad,))
        post = var._post_acc_hooks
        if post:
            prev = _state.grad_enabled
            _state.grad_enabled = False
            try:
                for hook in tuple(post):
                    hook(var)
            finally:
                _state.grad_enabled = prev
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


# --------------------------------------------------------------------------- saved tensors
_FREED_MSG = (
    "Trying to backward through the graph a second time (or directly access saved tensors "
    "after they have already been freed). Saved intermediate values of the graph are freed "
    "when you call .backward() or autograd.grad(). Specify retain_graph=True if you need to "
    "backward through the graph a second time or if you need to access saved tensors after "
    "calling backward."
)


# --------------------------------------------------------------------------- read-only saved arrays
# An array held by a saved tensor is read-only while it is saved, so that NumPy code that
# writes into it behind ctxgrad's back (``t.detach().numpy()[0] = 1``) fails at once instead
# of making a later backward silently wrong: the version counter only sees ctxgrad's own
# in-place ops.  Those stay allowed (as in torch): they lift the lock for their write
# (``writable``), bump the version, and the version check reports the change at backward.
# Per array: [array, how many saved tensors hold it, whether it was writeable before].
#
# Why no finaliser can hang on ``_locks_guard``: the cyclic garbage collector can run in the
# middle of any bytecode, including inside ``lock_array`` while this thread holds the guard,
# and it then runs ``SavedTensor.__del__`` in the same thread.  A finaliser that waited for
# the guard would wait on its own thread forever (seen on Python 3.12 and 3.13).  So releases
# never wait: ``unlock_array`` appends the array to ``_pending_unlocks`` (an atomic deque
# append) and then only *tries* the guard.  Whoever holds the guard drains the queue after
# letting go of it (``_drain_pending``), so a release queued while the guard was busy, by
# this thread's collector or by another thread, is applied as soon as the holder is done:
# the append happens before the failed try, the failed try before the holder's release, and
# the holder looks at the queue after its release.
_locks: dict[int, list[Any]] = {}
_locks_guard = threading.Lock()
_pending_unlocks: deque[np.ndarray[Any, Any]] = deque()


def lock_array(arr: np.ndarray[Any, Any]) -> np.ndarray[Any, Any] | None:
    """Make ``arr`` read-only for one more saved tensor; returns it (to unlock later).

    Only an array that owns its memory is locked: a view's flag could not be given back
    while its base is locked, and views made of a locked array are read-only anyway."""
    if arr.base is not None:
        return None
    with _locks_guard:
        entry = _locks.get(id(arr))
        if entry is None:
            writeable = bool(arr.flags.writeable)
            if writeable:
                arr.flags.writeable = False
            _locks[id(arr)] = [arr, 1, writeable]
        else:
            entry[1] += 1
    _drain_pending()
    return arr


def unlock_array(arr: np.ndarray[Any, Any] | None) -> None:
    """One saved tensor fewer holds ``arr``; the last one gives its writeability back.

    Safe to call from a finaliser: it never waits for the guard (see above)."""
    if arr is None:
        return
    _pending_unlocks.append(arr)
    _drain_pending()


def _drain_pending() -> None:
    while _pending_unlocks:
        if not _locks_guard.acquire(blocking=False):
            return  # the holder drains after its release
        try:
            while _pending_unlocks:
                arr = _pending_unlocks.popleft()
                entry = _locks.get(id(arr))
                if entry is None or entry[0] is not arr:
                    continue
                entry[1] -= 1
                if entry[1] == 0:
                    del _locks[id(arr)]
                    if entry[2]:
                        arr.flags.writeable = True
        finally:
            _locks_guard.release()


def writable(arr: np.ndarray[Any, Any]) -> list[np.ndarray[Any, Any]]:
    """Lift the saved-tensor lock from ``arr`` (and the arrays it is a view of) for one of
    ctxgrad's own writes; give the result to :func:`relock` afterwards.  An array that is
    read-only for another reason stays so (NumPy then raises, as it would anyway)."""
    if arr.flags.writeable:
        return []
    chain = []
    a: Any = arr
    while isinstance(a, np.ndarray):
        chain.append(a)
        a = a.base
    if not any(id(a) in _locks for a in chain):
        return []
    flipped = []
    for a in reversed(chain):  # the owner first: a view can be made writeable only after its base
        if not a.flags.writeable:
            a.flags.writeable = True
            flipped.append(a)
    return flipped


def relock(flipped: list[np.ndarray[Any, Any]]) -> None:
    for a in reversed(flipped):
        a.flags.writeable = False


class _OutputMarker(Node):
    """Stands for "the node that saved this tensor" in a SavedTensor."""


_OUTPUT = _OutputMarker()


class SavedTensor:
    """One tensor saved for backward, with the version it had when it was saved.

    An output of the saving node is kept as its array alone and rebuilt on unpack with
    ``grad_fn`` set to the node: keeping the tensor itself would make a reference cycle
    (output → node → saved output).  Inputs and intermediates are kept as they are.
    """

    __slots__ = (
        "_accumulator",
        "_base",
        "_data",
        "_fw",
        "_grad_fn",
        "_locked",
        "_output_nr",
        "_packed",
        "_requires_grad",
        "_tensor",
        "_unpack",
        "_vc",
        "_version",
    )

    def __init__(self, tensor: Tensor, node: Node) -> None:
        vc = tensor._get_vc()
        self._vc = vc
        self._version = vc.value
        self._locked = lock_array(tensor._data)
        self._tensor: Tensor | None = None
        self._data: np.ndarray[Any, Any] | None = None
        self._fw: dict[int, Tensor] | None = None  # a saved output's tangents (forward mode)
        self._unpack: Callable[[Any], Any] | None = None
        hooks = _state.saved_hooks
        if hooks:
            pack, unpack = hooks[-1]
            self._packed = pack(tensor)
            if vc.value != self._version:
                raise RuntimeError(
                    "A saved tensor pack hook is modifying its input in place. Tensors provided as "
                    "input to pack hook cannot be modified by in-place operations as this can lead "
                    "to unexpected side-effects. Please open an issue if you need to perform in-place "
                    "operations on the input to a pack hook."
                )
            self._unpack = unpack
            self._data = tensor._data
            # Remember the history, so that what unpack returns can be given it back (a
            # saved output's node is the unpacking node itself: no reference kept to it).
            self._output_nr = tensor._output_nr
            self._requires_grad = tensor._requires_grad
            fn = tensor._grad_fn
            self._grad_fn = _OUTPUT if fn is node else fn
            self._accumulator = _accumulator_of(tensor) if fn is None and tensor._requires_grad else None
            self._base = None
        elif tensor._grad_fn is node:
            self._data = tensor._data
            self._output_nr = tensor._output_nr
            self._requires_grad = tensor._requires_grad
            self._base = tensor._base
        else:
            self._tensor = tensor

    def __del__(self) -> None:
        unlock_array(self._locked)

    def unpack(self, node: Node, index: int) -> Tensor:
        """The saved tensor, after checking that no in-place change happened since saving."""
        from ctxgrad._tensor import Tensor, _wrap

        if self._vc.value != self._version:
            raise RuntimeError(self._version_message(node, index))
        if self._unpack is not None:
            out = self._unpack(self._packed)
            if not isinstance(out, Tensor):
                raise TypeError(
                    "Output of saved tensor unpack_hook expected to be a Tensor but got result of "
                    f"type {type(out).__name__}"
                )
            return self._with_history(out, node)
        t = self._tensor
        if t is not None:
            return t
        assert self._data is not None
        t = _wrap(self._data)
        t._vc = self._vc
        t._grad_fn = node
        t._output_nr = self._output_nr
        t._requires_grad = self._requires_grad
        if self._base is not None:
            t._base = self._base
        if self._fw:
            t._fw = self._fw  # shared: leaving a dual level drops the tangent here too
        return t

    def _with_history(self, out: Tensor, node: Node) -> Tensor:
        """What an unpack hook returned, linked into the graph where the saved tensor was,
        so that double backward works through hooked saved tensors too."""
        from ctxgrad._tensor import _wrap

        if not self._requires_grad:
            return out
        t = _wrap(out._data)
        t._vc = out._get_vc()
        t._requires_grad = True
        fn = self._grad_fn
        if fn is _OUTPUT:
            t._grad_fn = node
            t._output_nr = self._output_nr
        elif fn is not None:
            t._grad_fn = fn
            t._output_nr = self._output_nr
        elif self._accumulator is not None:
            t._accumulator = weakref.ref(self._accumulator)
        return t

    def _version_message(self, node: Node, index: int) -> str:
        t = self._tensor
        if t is not None:
            data = t._data
            fn = t._grad_fn
            what = f"which is output {t._output_nr} of {fn.name()}" if fn is not None else "which is a leaf"
        else:
            assert self._data is not None
            data = self._data
            what = f"which is output {getattr(self, '_output_nr', 0)} of {node.name()}"
        return (
            "one of the variables needed for gradient computation has been modified by an inplace "
            f"operation: [ctxgrad.{_dtypes.type_name(data.dtype)} {list(data.shape)}], {what}, is at "
            f"version {self._vc.value}; expected version {self._version} instead. It was saved for "
            f"backward by {node.name()} as saved_tensors[{index}]. Hint: enable anomaly detection to "
            "find the operation that failed to compute its gradient, with "
            "ctxgrad.autograd.set_detect_anomaly(True)."
        )


class saved_tensors_hooks:
    """Pack each tensor saved for backward with ``pack_hook`` and unpack it with ``unpack_hook``.

    ``pack_hook(tensor)`` runs once when a tensor is saved and may return anything;
    ``unpack_hook(packed)`` runs on every access to ``saved_tensors`` and must return a
    tensor.  Only the innermost pair applies.  A pack hook that returns its input itself
    keeps it alive with the graph; return ``tensor.detach()`` or a copy instead.

    >>> import ctxgrad
    >>> x = ctxgrad.ones(3, requires_grad=True)
    >>> with ctxgrad.autograd.graph.saved_tensors_hooks(lambda t: t.detach() * 1, lambda p: p):
    ...     y = x.exp()
    >>> y.sum().backward()
    >>> x.grad
    tensor([2.7183, 2.7183, 2.7183])
    """

    def __init__(self, pack_hook: Callable[[Tensor], Any], unpack_hook: Callable[[Any], Tensor]) -> None:
        self.pack_hook = pack_hook
        self.unpack_hook = unpack_hook

    def __enter__(self) -> saved_tensors_hooks:
        msg = _state.saved_hooks_disabled
        if msg is not None:
            raise RuntimeError(msg)
        _state.saved_hooks = (*_state.saved_hooks, (self.pack_hook, self.unpack_hook))
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        _state.saved_hooks = _state.saved_hooks[:-1]


class save_on_cpu(saved_tensors_hooks):
    """Saved-tensor hooks that keep saved tensors on the CPU, where ctxgrad keeps them anyway."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        super().__init__(lambda t: t.detach(), lambda t: t)


class disable_saved_tensors_hooks:
    """Inside this block, entering ``saved_tensors_hooks`` raises ``RuntimeError(error_message)``."""

    def __init__(self, error_message: str) -> None:
        self.error_message = error_message
        self._prev: str | None = None

    def __enter__(self) -> None:
        self._prev = _state.saved_hooks_disabled
        _state.saved_hooks_disabled = self.error_message

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        _state.saved_hooks_disabled = self._prev

"""Hooks: the handle every ``register_*hook`` returns, where a node keeps its hooks, and
running them.

Tensor hooks see the gradient of one tensor and may replace it.
A node pre-hook sees the node's incoming gradients (one per output) and may replace them; a
post-hook sees the gradients the node computed (one per tensor argument, as
``next_functions`` lists them) and the incoming ones, and may replace the former.  Both may
return None to leave them as they are.

Saved-tensor hooks (``saved_tensors_hooks``, also importable from ``autograd.graph`` as in
torch) see each tensor saved for backward as it is packed and unpacked.
"""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable, MutableSequence, Sequence
from types import TracebackType
from typing import TYPE_CHECKING, Any

from ctxgrad import _dtypes
from ctxgrad._state import _state
from ctxgrad._tensor import Tensor
from ctxgrad.autograd._edges import edges_of

if TYPE_CHECKING:
    from ctxgrad.autograd.graph import Node

__all__ = [
    "RemovableHandle",
    "register_multi_grad_hook",
    "disable_saved_tensors_hooks",
    "run_posthooks",
    "run_prehooks",
    "save_on_cpu",
    "saved_tensors_hooks",
]


def run_prehooks(hooks: list[Callable[..., Any]], grads: list[Tensor | None]) -> list[Tensor | None]:
    for hook in tuple(hooks):
        new = hook(tuple(grads))
        if new is None:
            continue
        if not isinstance(new, tuple):
            raise TypeError(f"expected tuple, but hook returned '{type(new).__name__}'")
        if len(new) != len(grads):
            raise RuntimeError(
                f"hook '{getattr(hook, '__name__', hook)}' has returned an incorrect number of values "
                f"(got {len(new)}, but expected {len(grads)})"
            )
        grads = list(new)
    return grads


def run_posthooks(
    node: Node, hooks: list[Callable[..., Any]], checked: list[Tensor | None], grads: list[Tensor | None]
) -> list[Tensor | None]:
    # Hooks see one gradient per tensor argument, as next_functions lists them.
    slots = [i for i, e in enumerate(edges_of(node)) if e is not None]
    grad_inputs = tuple(checked[i] for i in slots)
    for hook in tuple(hooks):
        new = hook(grad_inputs, tuple(grads))
        if new is None:
            continue
        if not isinstance(new, tuple):
            raise TypeError(f"expected tuple, but hook returned '{type(new).__name__}'")
        if len(new) != len(grad_inputs):
            raise RuntimeError(
                f"hook '{getattr(hook, '__name__', hook)}' has returned an incorrect number of values "
                f"(got {len(new)}, but expected {len(grad_inputs)})"
            )
        for old, g in zip(grad_inputs, new):
            if g is not None and old is not None and g._data.shape != old._data.shape:
                raise RuntimeError(f"hook '{getattr(hook, '__name__', hook)}' has changed the size of value")
        grad_inputs = new
    checked = list(checked)
    for i, g in zip(slots, grad_inputs):
        checked[i] = g
    return checked


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


class _MultiHandle(RemovableHandle):
    """The handle of a multi-grad hook: ``remove()`` removes the hook from every tensor."""

    __slots__ = ("_handles",)

    def __init__(self, handles: list[RemovableHandle]) -> None:
        self._handles = handles
        self._hooks = None

    def remove(self) -> None:
        for h in self._handles:
            h.remove()


def register_multi_grad_hook(
    tensors: Sequence[Tensor], fn: Callable[..., None], *, mode: str = "all"
) -> RemovableHandle:
    """Call ``fn`` once per backward, after the gradients of several tensors are computed.

    ``mode="all"``: ``fn(grads)`` gets one entry per tensor, in order, once every tensor
    of ``tensors`` that this backward reaches has its gradient (None for those it does not
    reach).  ``mode="any"``: ``fn(grad)`` gets the first gradient computed among them, once
    per backward.  Tensors that do not require grad are skipped.

    >>> import ctxgrad
    >>> from ctxgrad.autograd.graph import register_multi_grad_hook
    >>> a, b = ctxgrad.ones(2, requires_grad=True), ctxgrad.ones(2, requires_grad=True)
    >>> seen = []
    >>> _ = register_multi_grad_hook((a, b), lambda grads: seen.append(grads))
    >>> (a * 3).sum().backward()
    >>> seen
    [(tensor([3., 3.]), None)]
    """
    if mode not in ("all", "any"):
        raise ValueError(f"Expects mode to be one of ('all', 'any') but got {mode}")
    handles: list[RemovableHandle] = []
    lock = threading.Lock()
    # Per backward call (found by identity among the calls running in this thread): for
    # "any", whether fn ran; for "all", the gradients so far and how many are still to come.
    seen: list[tuple[int, Any, list[Tensor | None], int]] = []
    n = len(tensors)

    def entry_of(run: Any) -> int:
        me = threading.get_ident()
        running = _state.modes.backward_runs
        # Forget the calls of this thread that have ended.
        seen[:] = [e for e in seen if e[0] != me or any(r is e[1] for r in running)]
        for k, e in enumerate(seen):
            if e[1] is run:
                return k
        if mode == "any":
            seen.append((me, run, [], 0))
        else:
            expected = sum(1 for t in tensors if t.requires_grad and run.will_run(_grad_node(t)))
            seen.append((me, run, [None] * n, expected))
        return len(seen) - 1

    def make_hook(i: int) -> Callable[[Tensor], None]:
        def hook(grad: Tensor) -> None:
            run = _state.modes.backward_runs[-1]
            with lock:
                k = entry_of(run)
                me, _, buffer, left = seen[k]
                if mode == "any":
                    if left:
                        return
                    seen[k] = (me, run, buffer, 1)
                else:
                    buffer[i] = grad
                    seen[k] = (me, run, buffer, left - 1)
                    if left - 1 > 0:
                        return
            fn(grad if mode == "any" else tuple(buffer))

        return hook

    for i, t in enumerate(tensors):
        if t.requires_grad:
            handles.append(t.register_hook(make_hook(i)))
    return _MultiHandle(handles)


def _grad_node(t: Tensor) -> Any:
    """The node a tensor's hooks run at: its ``grad_fn``, or a leaf's ``AccumulateGrad``."""
    fn = t.grad_fn
    if fn is not None:
        return fn
    ref = t._accumulator
    return ref() if ref is not None else None


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


# --------------------------------------------------------------------------- Tensor methods
# (attached to Tensor by ctxgrad/_surface.py)
def register_hook(self: Tensor, hook: Callable[[Tensor], Tensor | None]) -> RemovableHandle:
    """Call ``hook(grad)`` when this tensor's gradient is computed; a return replaces it.

    >>> import ctxgrad
    >>> x = ctxgrad.ones(2, requires_grad=True)
    >>> h = x.register_hook(lambda g: g * 10)
    >>> x.sum().backward()
    >>> x.grad
    tensor([10., 10.])
    >>> h.remove()
    """
    # A view whose base was changed in place since is re-read first (as reading grad_fn does):
    # the hook goes on its history as it is now, which the gradient will go through.
    fn = self._grad_fn if self._base is None else self._history()
    if not self._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if fn is not None:
        return fn._add_tensor_hook(self._output_nr, hook)
    if self._hooks is None:
        self._hooks = []
    return RemovableHandle(self._hooks, hook)


def register_post_accumulate_grad_hook(self: Tensor, hook: Callable[[Tensor], None]) -> RemovableHandle:
    """Call ``hook(tensor)`` after a leaf's ``.grad`` has been updated."""
    if self._grad_fn is not None:
        raise RuntimeError("post accumulate grad hooks cannot be registered on non-leaf tensors")
    if not self._requires_grad:
        raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
    if self._post_acc_hooks is None:
        self._post_acc_hooks = []
    return RemovableHandle(self._post_acc_hooks, _checked_post_accumulate_hook(hook))


def _checked_post_accumulate_hook(hook: Callable[[Tensor], Any]) -> Callable[[Tensor], Any]:
    """``hook`` with torch's check of what it returns: the tensor itself passes (as None), anything
    but a tensor is a TypeError; another tensor is refused by the engine (a RuntimeError)."""

    def checked(tensor: Tensor) -> Any:
        result = hook(tensor)
        if result is None or result is tensor:
            return None
        if not isinstance(result, Tensor):
            raise TypeError(f"expected Variable, but hook returned '{type(result).__name__}'")
        return result

    return checked


# --------------------------------------------------------------------------- saved-tensor hooks
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
        msg = _state.modes.saved_hooks_disabled
        if msg is not None:
            raise RuntimeError(msg)
        _state.modes.saved_hooks = (*_state.modes.saved_hooks, (self.pack_hook, self.unpack_hook))
        return self

    def __exit__(self, *exc: object) -> None:
        _state.modes.saved_hooks = _state.modes.saved_hooks[:-1]


class save_on_cpu(saved_tensors_hooks):
    """Saved-tensor hooks that keep saved tensors on the CPU, where ctxgrad keeps them anyway;
    with ``pin_memory``, a copy of each (torch copies into pinned memory), so that a later
    in-place change of the tensor does not reach what backward reads."""

    def __init__(self, pin_memory: bool = False, device_type: str = "cuda") -> None:
        super().__init__((lambda t: t.detach().clone()) if pin_memory else (lambda t: t.detach()), lambda t: t)


class disable_saved_tensors_hooks:
    """Inside this block, entering ``saved_tensors_hooks`` raises ``RuntimeError(error_message)``;
    entering the block itself raises it while such hooks are on (as in torch: the code that
    disables them, ``ctxgrad.func.vjp``, cannot honour hooks set outside either)."""

    def __init__(self, error_message: str) -> None:
        self.error_message = error_message
        self._prev: str | None = None

    def __enter__(self) -> None:
        if _state.modes.saved_hooks:
            raise RuntimeError(self.error_message)
        self._prev = _state.modes.saved_hooks_disabled
        _state.modes.saved_hooks_disabled = self.error_message

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        _state.modes.saved_hooks_disabled = self._prev

"""Saved tensors: what ``save_for_backward`` keeps, and how it is given back.

A :class:`SavedTensor` remembers the version its tensor had when it was saved; unpacking it
after an in-place change raises, naming the node and the tensor.  An output of the saving
node is kept as its array alone and rebuilt on unpack (keeping the tensor would make a
reference cycle output → node → output).  While saved, an array is read-only, so that NumPy
code cannot change it behind the version counter's back (a :class:`LockedSavedTensor`, unless
``set_saved_array_lock_enabled(False)`` turned that off).
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from typing import Any

import numpy as np

from ctxgrad import _dtypes
from ctxgrad._tensor import Tensor, _VersionCounter, _wrap
from ctxgrad.autograd._readonly import lock_array, relock, unlock_array, writable
from ctxgrad.autograd.grad_mode import run_in_grad_mode
from ctxgrad.autograd.graph import Node, _accumulator_of
from ctxgrad.autograd.values import wrap_like

__all__ = [
    "READ_BY_OTHER",
    "LockedSavedTensor",
    "SavedTensor",
    "SavedValue",
    "lock_array",
    "relock",
    "save_for_gradients",
    "unlock_array",
    "unpack_saved",
    "writable",
]


# --------------------------------------------------------------------------- saved tensors


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

    #: Make the memory read-only while saved: :class:`LockedSavedTensor`, the default, does
    #: (``set_saved_array_lock_enabled(False)`` saves into this class, which has no finaliser
    #: to run when it is freed).
    locks = False

    def __init__(self, tensor: Tensor, node: Node, hooks: tuple[Any, ...] = ()) -> None:
        """``hooks``: the open ``saved_tensors_hooks`` pairs (``_state.modes.saved_hooks``, read
        once per call by the caller); the innermost packs."""
        self._locked = lock_array(tensor._data) if self.locks else None
        self._fw: dict[int, Tensor] | None = None  # a saved output's tangents (forward mode)
        self._unpack: Callable[[Any], Any] | None = None
        if not hooks and tensor._grad_fn is not node:
            # Kept as it is (an input or an intermediate), the common case.  Its version is
            # read through it, so a tensor that has no version counter yet (none has changed
            # it in place) gets none here: it is at version 0 until one is made.
            vc = tensor._vc
            self._vc: _VersionCounter | None = vc
            self._version = 0 if vc is None else vc.value
            self._tensor: Tensor | None = tensor
            self._data: np.ndarray[Any, Any] | None = None
            return
        vc = tensor._vc  # (an output or a hooked tensor shares the counter: it is made now)
        if vc is None:
            vc = tensor._vc = _VersionCounter()
        self._vc = vc
        self._version = vc.value
        self._tensor = None
        self._data = None
        if hooks:
            self._hook(tensor, node, *hooks[-1])
        else:
            self._data = tensor._data
            self._output_nr = tensor._output_nr
            self._requires_grad = tensor._requires_grad
            self._base = tensor._base

    def _hook(self, tensor: Tensor, node: Node, pack: Callable[[Tensor], Any], unpack: Callable[[Any], Any]) -> None:
        """Keep ``pack(tensor)`` in place of the tensor, to be given back through ``unpack``."""
        vc = tensor._get_vc()
        version = vc.value
        self._packed = run_in_grad_mode(False, pack, tensor)  # (torch packs with grad mode off)
        if vc.value != version:
            raise RuntimeError(
                "A saved tensor pack hook is modifying its input in place. Tensors provided as "
                "input to pack hook cannot be modified by in-place operations as this can lead "
                "to unexpected side-effects. Please open an issue if you need to perform in-place "
                "operations on the input to a pack hook."
            )
        self._unpack = unpack
        self._tensor = None
        self._data = tensor._data
        # Remember the history, so that what unpack returns can be given it back (a
        # saved output's node is the unpacking node itself: no reference kept to it).
        self._output_nr = tensor._output_nr
        self._requires_grad = tensor._requires_grad
        fn = tensor._grad_fn
        self._grad_fn = _OUTPUT if fn is node else fn
        self._accumulator = _accumulator_of(tensor) if fn is None and tensor._requires_grad else None
        self._base = None

    def unpack(self, node: Node, index: int) -> Tensor:
        """The saved tensor, after checking that no in-place change happened since saving
        (not when hooks packed it: what ``unpack_hook`` gives back is the hooks' business, and
        a hook that packed a copy gives back the values as they were, as in torch)."""
        if self._unpack is None and self.version_now() != self._version:
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
        t = _wrap(self._data) if self._data.dtype.metadata is None else wrap_like(self._data)
        t._vc = self._vc
        t._grad_fn = node
        t._output_nr = self._output_nr
        t._requires_grad = self._requires_grad
        if self._base is not None:
            t._base = self._base
        if self._fw:
            t._fw = self._fw  # shared: leaving a dual level drops the tangent here too
        return t

    def version_now(self) -> int:
        """The version of what is saved now (a kept tensor's own counter, which it may have
        got after the save)."""
        t = self._tensor
        vc = self._vc if t is None else t._vc
        return 0 if vc is None else vc.value

    def _with_history(self, out: Tensor, node: Node) -> Tensor:
        """What an unpack hook returned, linked into the graph where the saved tensor was,
        so that double backward works through hooked saved tensors too."""
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
            what = f"which is output {t._output_nr} of {_op_name(fn)}" if fn is not None else "which is a leaf"
        else:
            assert self._data is not None
            data = self._data
            what = f"which is output {getattr(self, '_output_nr', 0)} of {_op_name(node)}"
        return (
            "one of the variables needed for gradient computation has been modified by an inplace "
            f"operation: [ctxgrad.{_dtypes.type_name(data.dtype)} {list(data.shape)}], {what}, is at "
            f"version {self.version_now()}; expected version {self._version} instead. It was saved for "
            f"backward by {node.name()} as saved_tensors[{index}]. Hint: enable anomaly detection to "
            "find the operation that failed to compute its gradient, with "
            "ctxgrad.autograd.set_detect_anomaly(True)."
        )


class LockedSavedTensor(SavedTensor):
    """A saved tensor whose memory is read-only while it is saved (the default): freeing it
    gives the memory back its writeability."""

    __slots__ = ()
    locks = True

    def __del__(self) -> None:
        unlock_array(self._locked)


class SavedValue(LockedSavedTensor):
    """A plain Python value (a string, say) that a Function over non-array values saved with
    ``save_for_backward`` (afnio's Functions do): given back as it is.  To the code that
    inspects saved tensors (printing, in-place tracking) it looks like a saved 0-d object
    array that nothing can change."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:  # (no super().__init__: there is no tensor to lock)
        self.value = value
        holder = np.empty(1, dtype=object)
        holder[0] = value  # (an element assignment: a tuple or list is stored, not spread)
        self._data = holder.reshape(())
        self._tensor = None
        self._vc = _VersionCounter()
        self._version = 0
        self._locked = lock_array(self._data)  # (its own holder: __del__ unlocks it as for any)
        self._unpack = None
        self._fw = None

    def unpack(self, node: Node, index: int) -> Any:
        return self.value


def unpack_saved(node: Node, saved: tuple[SavedTensor | None, ...]) -> tuple[Any, ...]:
    """``ctx.saved_tensors``: each of ``saved`` unpacked as :meth:`SavedTensor.unpack` does it,
    the common case inline (every backward that saves passes here): a tensor kept as it is,
    unchanged in place since (no counter yet, or one at the saved version), comes back itself."""
    out: list[Any] = []
    i = 0  # (counted by hand: cheaper than enumerate for the one or two tensors a node saves)
    for s in saved:
        if s is not None and (t := s._tensor) is not None and ((vc := t._vc) is None or vc.value == s._version):
            out.append(t)
        else:
            out.append(None if s is None else s.unpack(node, i))
        i += 1
    return tuple(out)


def _op_name(node: Node) -> str:
    """The op a node records, as torch's version error names it: the node's name without its
    ``Backward`` suffix (``AddBackward0`` is ``Add``, a user's ``ReLU_Backward`` is ``ReLU_``)."""
    name = node.name()
    stem = name.rstrip("0123456789")
    return stem[: -len("Backward")] if stem.endswith("Backward") and len(stem) > len("Backward") else name


# --------------------------------------------------------------------------- saving per needed gradient
#: A product's operands: each read only by the other's gradient (``a * b``, ``a @ b``).
READ_BY_OTHER = ((1,), (0,))


def save_for_gradients(ctx: Any, tensors: tuple[Any, ...], read_by: tuple[tuple[int, ...], ...]) -> None:
    """``ctx.save_for_backward(*tensors)``, keeping ``tensors[k]`` only when the gradient of
    an input in ``read_by[k]`` (the inputs whose gradient formulas read it) is needed.

    Torch's generated nodes save this way (per ``needs_input_grad``), as a user's Function
    would: ``y = x @ w`` with ``w`` frozen keeps ``w`` but not ``x``, so an in-place change
    of ``x`` afterwards (``h[0] = h[2] @ w``) leaves backward working, and nothing is kept
    alive for a gradient that is never computed.  In forward mode (``jvp`` runs right after
    ``forward`` and reads every operand) all are kept.  The built-in products use it, and a
    user's Function can too:

    >>> import ctxgrad
    >>> from ctxgrad.autograd.saved import READ_BY_OTHER, save_for_gradients
    >>> class Mul(ctxgrad.autograd.Function):
    ...     @staticmethod
    ...     def forward(ctx, a, b):
    ...         save_for_gradients(ctx, (a, b), READ_BY_OTHER)  # a only for b's gradient
    ...         return a * b
    ...     @staticmethod
    ...     def backward(ctx, grad):
    ...         a, b = ctx.saved_tensors
    ...         return grad * b if b is not None else None, grad * a if a is not None else None
    >>> x, w = ctxgrad.ones(2, requires_grad=True), ctxgrad.tensor([2.0, 3.0])
    >>> h = x * 1
    >>> y = Mul.apply(h, w)  # w needs no gradient, so h is not kept
    >>> h.add_(1)  # and may change afterwards
    tensor([2., 2.], grad_fn=<AddBackward0>)
    >>> y.sum().backward()
    >>> x.grad
    tensor([2., 3.])
    """
    needs = ctx._needs  # (needs_input_grad without the property's call: every binary op passes here)
    if True not in needs and "_dual" not in ctx.__dict__:
        return  # (no gradient is needed: an op inside another's forward or backward keeps nothing)
    if "_dual" in ctx.__dict__:  # (set by apply while forward mode computes tangents)
        ctx.save_for_backward(*tensors)
        return
    kept: list[Any] | None = None  # (None while nothing is kept: x * 2.0 saves nothing, cheaply)
    for k, t in enumerate(tensors):
        if t is not None:
            for i in read_by[k]:
                if needs[i]:
                    if kept is None:
                        kept = [None] * len(tensors)
                    kept[k] = t
                    break
    if kept is not None:
        ctx.save_for_backward(*kept)

"""Per-thread mode flags read on every op: grad mode, inference mode, anomaly mode, tracing and
the saved-tensor hooks.

A module of its own with no imports, so that the tensor (which reads the flags) and the
autograd package (which sets them) can both import it first.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any


class Modes:
    """One thread's mode flags (``_state.modes``, each thread its own): an object with slots,
    so that ``Function.apply`` fetches it once per call and then reads each flag as a plain
    attribute, not as a ``threading.local`` lookup (about 550 instructions each)."""

    __slots__ = (
        "_fw_levels",
        "_inference",
        "_recorder",
        "_vmap_levels",
        "allow_mutation",
        "anomaly",
        "anomaly_check_nan",
        "anomaly_parent",
        "backward_runs",
        "func_transforms",
        "fw_dual_tensors",
        "fw_hidden",
        "grad_enabled",
        "lock_saved",
        "node_runner",
        "once_dropped",
        "once_watch",
        "saved_hooks",
        "saved_hooks_disabled",
        "special",
        "tracer",
        "transforming",
    )

    grad_enabled: bool
    anomaly: bool
    anomaly_check_nan: bool
    # What the engine runs each node through while a mode watches backward (anomaly mode,
    # a trace): ``node_runner(node, grads)``; None runs ``node._run(grads)`` directly, so
    # with no mode on the engine pays nothing per node.  ``tracer`` is the open trace.
    node_runner: Callable[[Any, list[Any]], list[Any]] | None
    tracer: Any
    anomaly_parent: Any  # the node whose backward is running, in anomaly mode
    # Innermost last: (pack, unpack) pairs of ``saved_tensors_hooks`` blocks.
    saved_hooks: tuple[tuple[Callable[[Any], Any], Callable[[Any], Any]], ...]
    saved_hooks_disabled: str | None
    # The open levels while forward grad is switched off (``forward_ad._set_fwd_grad_enabled``):
    # hidden from the ops, which then compute no tangents, as torch's switch makes them.
    fw_hidden: tuple[int, ...] | None
    # Per open forward-mode dual level, the tensors given a tangent at it (weak references), so
    # that leaving the level can drop those tangents.
    fw_dual_tensors: dict[int, list[Any]] | None
    # The grad/vjp/jvp transforms (``ctxgrad.func``) running: inside one, a tensor made in
    # inference mode may be saved for backward, as torch's transforms allow.
    func_transforms: int
    # Of those, the ones running the function they transform (not a ``vjp_fn``): inside one,
    # as inside ``vmap``, ``requires_grad_()`` and ``retain_grad()`` are refused, as torch's are.
    transforming: int
    # The ``once_differentiable`` backward (its node's name) that, in the last backward call,
    # gave results without a graph under ``create_graph`` although its inputs require grad,
    # as torch does (a derivative of them is silently zero): an error then names it.  And
    # while the functional API computes a second derivative, the list of all such nodes.
    once_dropped: str | None
    once_watch: list[str] | None
    # The backward calls running in this thread, innermost last (what multi-grad hooks ask).
    backward_runs: tuple[Any, ...]
    # The open ``allow_mutation_on_saved_tensors`` context, if any (autograd/_mutation.py).
    allow_mutation: Any
    # Saving a tensor for backward makes its memory read-only while saved (autograd/_readonly.py,
    # autograd/saved.py's LockedSavedTensor); ``set_saved_array_lock_enabled(False)`` turns that
    # off in this thread, for speed.
    lock_saved: bool

    # ------------------------------------------------------------------ the special modes
    # Four modes change what ``Function.apply`` does: an open trace, vmap, forward mode and
    # inference mode.  ``special`` is true while any of them is on, so that ``apply`` (and the
    # operators' NumPy shortcut) reads one flag instead of four; setting one of the four, through
    # the properties below, keeps it up to date.
    special: bool
    _recorder: Any
    _vmap_levels: tuple[Any, ...]
    _fw_levels: tuple[int, ...]
    _inference: bool

    def __init__(self) -> None:
        """Every new thread's defaults."""
        self.grad_enabled = True
        self.anomaly = False
        self.anomaly_check_nan = True
        self.node_runner = None
        self.tracer = None
        self.anomaly_parent = None
        self.saved_hooks = ()
        self.saved_hooks_disabled = None
        self.fw_hidden = None
        self.fw_dual_tensors = None
        self.func_transforms = 0
        self.transforming = 0
        self.once_dropped = None
        self.once_watch = None
        self.backward_runs = ()
        self.allow_mutation = None
        self.lock_saved = True
        self.special = False
        self._recorder = None
        self._vmap_levels = ()
        self._fw_levels = ()
        self._inference = False

    def _update_special(self) -> None:
        special = bool(self._recorder is not None or self._vmap_levels or self._fw_levels or self._inference)
        if special:  # (registered before the flag is set, dropped after it is cleared: see below)
            special_modes[id(self)] = None
            self.special = True
        else:
            self.special = False
            special_modes.pop(id(self), None)

    def __del__(self) -> None:
        # (a thread that ended inside a special mode: its flags go with it)
        if self.special:
            special_modes.pop(id(self), None)

    @property
    def recorder(self) -> Any:
        """The recorder of an open ``ctxgrad.trace`` (ctxgrad/trace.py): ``Function.apply`` hands
        it each call, and ``Tensor.item()`` and its kin tell it of each value read."""
        return self._recorder

    @recorder.setter
    def recorder(self, value: Any) -> None:
        self._recorder = value
        self._update_special()

    @property
    def vmap_levels(self) -> tuple[Any, ...]:
        """The open vmap levels (``autograd/_batched.py``), innermost last."""
        return self._vmap_levels

    @vmap_levels.setter
    def vmap_levels(self, value: tuple[Any, ...]) -> None:
        self._vmap_levels = value
        self._update_special()

    @property
    def fw_levels(self) -> tuple[int, ...]:
        """The open forward-mode dual levels, innermost last."""
        return self._fw_levels

    @fw_levels.setter
    def fw_levels(self, value: tuple[int, ...]) -> None:
        self._fw_levels = value
        self._update_special()

    @property
    def inference(self) -> bool:
        """Inference mode is on."""
        return self._inference

    @inference.setter
    def inference(self, value: bool) -> None:
        self._inference = value
        self._update_special()


# The Modes of the threads that have a special mode on, by id: empty in the common case, so
# that code that only needs to know that this thread has none (``as_tensor``) can skip the
# ``threading.local`` lookup of the thread's flags, which costs more than the rest of such a
# check.  A thread's entry is there whenever its ``special`` is True.  (A dict's insert and pop
# are atomic: no lock, so that a finaliser may run them anywhere.)
special_modes: dict[int, None] = {}


class _PerThread(threading.local):
    """The thread's :class:`Modes`, made on its first use in each thread."""

    modes: Modes

    def __init__(self) -> None:
        self.modes = Modes()


_state = _PerThread()

# torch's words (its three sentences run together, as its message prints them).
INFERENCE_WRITE = (
    "Inplace update to inference tensor outside InferenceMode is not allowed.You can make a clone to get a "
    "normal tensor before doing inplace update.See https://github.com/pytorch/rfcs/pull/17 for more details."
)


def refuse_inference_write(t: Any) -> None:
    """Refuse a change in place (a written value, a new shape, an ``out=`` result) of ``t``,
    an inference tensor, outside inference mode, before anything is changed, as torch does."""
    if t._inference and not _state.modes._inference:
        raise RuntimeError(INFERENCE_WRITE)

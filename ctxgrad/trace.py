"""``ctxgrad.trace(fn, *example_inputs)``: run ``fn`` once, record the Functions it applies,
and replay them on new inputs without running ``fn``'s Python code again (define-then-run).

Every op is a :class:`~ctxgrad.autograd.Function` that goes through ``Function.apply``, so a
trace needs no list of ops: while ``fn`` runs, ``apply`` hands each call to the open
recorder, which notes the Function class and where each argument came from (an input of
``fn``, the output of an earlier step, or a tensor from outside), then lets the call happen.
Calls made *inside* a Function's ``forward`` are not recorded: the replay runs that
``forward`` again, and it makes them.

>>> import ctxgrad
>>> def f(x, w):
...     return (x * w).tanh().sum()
>>> w = ctxgrad.tensor([0.5, -1.0], requires_grad=True)        # closed over below
>>> traced = ctxgrad.trace(lambda x: f(x, w), ctxgrad.tensor([1.0, 2.0]))
>>> print(traced.graph)
trace of <lambda>: 1 input, 3 steps
  %0 = input 'x'                float32[2]
  %1 = tensor from outside      float32[2] requires grad
  %2 = Mul(%0, %1)              float32[2]
  %3 = Tanh(%2)                 float32[2]
  %4 = Sum(%3, None, False)     float32[]
  return %4
>>> loss = traced(ctxgrad.tensor([3.0, 4.0]))                  # no Python of f runs
>>> loss.backward()
>>> w.grad                                                      # x * (1 - tanh(x w) ** 2)
tensor([0.5421, 0.0054])

What is recorded, and what a replay uses:

* **inputs** of ``fn`` (tensors, also inside tuples, lists and dicts) are the replay's
  arguments, by position or by parameter name, as a feed dict would give them;
* **tensors from outside** (parameters closed over, constants made inside ``fn`` with
  ``ctxgrad.tensor``/``ones``/...) are held by reference: a replay reads their current
  values, so an optimizer's in-place update between replays is seen, and gradients flow into
  those that require grad.  Rebinding a name (``self.w = new_tensor``) is not seen: trace again;
* **ops that read tensor values or draw random numbers in Python** (``cross_entropy``'s
  targets, ``x[mask]``, ``y[i] = v``, ``nonzero``, ``dropout``, ``randn``, ...: the frontends
  decorated with :func:`ctxgrad._replayed.replayed_whole`) are one step each, which a replay
  calls again on its own tensors: their labels, indices and masks are inputs of the replay,
  and each replay draws from the generator anew (after ``manual_seed``, the same numbers as
  eager calls); ``detach()`` and ``.data`` of a traced tensor replay as ``detach``;
* **Python values** (numbers, shapes, flags) are constants of the trace, and so is every
  decision ``fn``'s Python code made: the branches an ``if`` took, the trips of a loop.

Guards: a call with new shapes or dtypes (or other Python values) traces ``fn`` again and
keeps both recordings; with ``strict=True`` it raises instead, naming the argument.
Reading a value while tracing (``.item()``, ``bool(t)``, ``float(t)``, ``.tolist()``,
``.numpy()``) warns with a :class:`TracerWarning` naming your line, since the replay will not
read it again; so does a random draw outside any op a replay runs again, and a replay in
which an op whose shape depends on the values (``nonzero``, ``x[mask]``) gives another shape
than when traced (Python numbers ``fn`` computed from that shape are the trace's).

A replay is part of the autograd graph: ``backward``, ``autograd.grad``, double backward,
forward mode and ``vmap`` work through it wherever the recorded Functions support them.
When every recorded step is a plain one (one tensor out, no in-place write),
the replay runs the recorded ``forward`` methods directly and makes **one** graph node,
``TracedBackward``, whose backward runs the recorded backward methods in reverse (and
records the ops they apply, so that later backwards run those directly); with
``create_graph=True`` that node replays step by step instead, so double backward works.
When every step, and every op a recorded backward applies, is one NumPy ufunc call on real
floating arrays (``+ - * /`` and the one-input elementwise ops such as ``tanh``, ``exp``,
``sin``; see :mod:`ctxgrad._trace_program`), both are written out as generated Python
functions of those ufunc calls, compiled once: from then on a replay's forward is one call
and its backward another, with the same values bit for bit.
Otherwise (and inside forward mode, ``vmap`` or anomaly mode) each step is applied as
``fn`` applied it, one node per step (``traced(..., fast=False)`` asks for this always).
"""

from __future__ import annotations

import functools
import inspect
import os
import sys
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ctxgrad._state import _state
from ctxgrad._tensor import Tensor, as_tensor
from ctxgrad._trace_program import Const, Instruction, Meta, Program, lower, ufunc_of
from ctxgrad.autograd import Function, grad
from ctxgrad.autograd._dot import new_digraph
from ctxgrad.autograd._edges import flatten
from ctxgrad.autograd._outputs import meta_of, pack_saved
from ctxgrad.autograd._validate import check_grads
from ctxgrad.autograd.grad_mode import enable_grad
from ctxgrad.func import vmap
from ctxgrad.func._pytree import TreeSpec, tree_flatten, tree_unflatten
from ctxgrad.ops.linalg_composed import trace as _matrix_trace

__all__ = ["Graph", "Step", "Traced", "TracedFunction", "TracerWarning", "trace"]

_PACKAGE_DIR = os.path.dirname(os.path.abspath(__file__))


class TracerWarning(UserWarning):
    """A traced function did something a replay will not repeat (read a tensor's value)."""


# --------------------------------------------------------------------------- the recording
@dataclass(frozen=True)
class _Slot:
    """An argument of a step that is a tensor of the trace: value number ``i``."""

    i: int


@dataclass
class Step:
    """One recorded ``cls.apply(*args)``: ``args`` holds :class:`_Slot` where a tensor of the
    trace went (tuples and lists of them kept as they were) and the Python values as they
    were; ``outs`` numbers the tensors of its result, in order."""

    cls: Any  # a Function class, or a _Call (a frontend recorded whole)
    args: tuple[Any, ...]
    outs: tuple[int, ...]
    metas: tuple[tuple[tuple[int, ...], np.dtype[Any]], ...]
    plain: bool  # replayable, and its output is a fresh array (not a view): a replay may return it
    needs: tuple[bool, ...] = ()
    edges: tuple[Any, ...] = ()
    out_meta: Any = None
    replayable: bool = False  # one tensor out, not written in place: the fast replay may run it
    general_backward: bool = False  # run its backward through the node's own _run (boxed grads)
    nested: bool = False
    call: bool = False  # a frontend recorded whole (a _Call): the replay calls it again

    def __post_init__(self) -> None:
        # (looked up once: the fast replay runs ``forward`` directly on a ctx of this class)
        self.node_cls = self.cls._backward_cls
        self.forward = self.cls.forward
        self.setup_style = self.cls._setup_style


@dataclass
class Graph:
    """What one run of ``fn`` applied: ``print`` it for a listing, :meth:`to_dot` to draw it.

    Values are numbered ``%0, %1, ...``: first the inputs, then the tensors from outside
    ``fn`` (held by reference), then the outputs of each step.
    """

    name: str
    input_labels: list[str]
    input_metas: list[tuple[tuple[int, ...], np.dtype[Any]]]
    outside: list[Tensor] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    out_spec: TreeSpec | None = None
    out_refs: list[Any] = field(default_factory=list)  # a _Slot, or a Python value
    n_values: int = 0

    # per pattern of the outputs that got a gradient: the recording of what backward computes
    # (None: it could not be recorded faithfully)
    backward_plans: dict[tuple[bool, ...], Graph | None] = field(default_factory=dict)
    outside_grad: tuple[bool, ...] = ()  # requires_grad of each outside tensor when recorded
    fast: bool = False  # can a replay run the forwards directly under one TracedBackward node?
    lowered: _Lowered | None = None  # the fast replay as generated NumPy code, where it can be
    outputs_read: tuple[int, ...] = ()  # the outputs a recorded backward reads (saved by each replay)

    @property
    def first_step(self) -> int:
        """The number of the first value a step made (after the inputs and outside tensors)."""
        return len(self.input_labels) + len(self.outside)

    def finish(self) -> None:
        """Decide :attr:`fast` (and lower it to NumPy code where it can be), once the
        recording is complete."""
        outs = [r.i for r in self.out_refs if isinstance(r, _Slot)]
        first = len(self.input_labels) + len(self.outside)
        self.outside_grad = tuple(t.requires_grad for t in self.outside)
        made_by = {i: s for s in self.steps for i in s.outs}
        self.fast = (
            all(s.replayable for s in self.steps)
            and all(made_by[i].plain for i in outs if i in made_by)
            and len(outs) == len(self.out_refs)
            and len(set(outs)) == len(outs)
            and all(i >= first for i in outs)
        )
        if self.fast:
            self.lowered = _Lowered.of(self)

    def _lines(self) -> Iterator[tuple[str, str]]:
        def meta(m: tuple[tuple[int, ...], np.dtype[Any]]) -> str:
            return f"{m[1]}[{', '.join(map(str, m[0]))}]"

        for i, (label, m) in enumerate(zip(self.input_labels, self.input_metas)):
            yield f"%{i} = input {label}", meta(m)
        first = len(self.input_labels)
        for i, t in enumerate(self.outside):
            grad = " requires grad" if t.requires_grad else ""
            yield f"%{first + i} = tensor from outside", meta((t.shape, t._data.dtype)) + grad
        for s in self.steps:
            lhs = ", ".join(f"%{i}" for i in s.outs) or "_"
            yield f"{lhs} = {s.cls.__name__}({', '.join(_show(a) for a in s.args)})", ", ".join(map(meta, s.metas))

    def __str__(self) -> str:
        n = len(self.input_labels)
        head = f"trace of {self.name}: {n} input{'s' * (n != 1)}, {len(self.steps)} step{'s' * (len(self.steps) != 1)}"
        rows = list(self._lines())
        width = max([len(a) for a, _ in rows] + [28]) + 2
        body = [f"  {a:<{width}}{b}".rstrip() for a, b in rows]
        outs = [_show(r) for r in self.out_refs]
        return "\n".join([head, *body, f"  return {', '.join(outs)}"])

    __repr__ = __str__

    def to_dot(self) -> Any:
        """The recorded steps as a graph to draw: inputs and outside tensors as ovals, steps
        as boxes, arrows the way values flow (a ``graphviz.Digraph``, or ctxgrad's DOT
        writer without the ``graphviz`` package: see :func:`ctxgrad.viz.make_dot`)."""
        dot = new_digraph(graph_attr={"rankdir": "TB"}, node_attr={"fontsize": "11"}, text=str(self))
        made: dict[int, str] = {}
        for i, (label, _) in enumerate(self._lines()):
            if i >= len(self.input_labels) + len(self.outside):
                break
            made[i] = f"v{i}"
            dot.node(f"v{i}", label.split(" = ", 1)[1], shape="oval", fillcolor="lightblue", style="filled")
        for k, s in enumerate(self.steps):
            name = f"s{k}"
            dot.node(name, s.cls.__name__, shape="box")
            for a in _slots_in(s.args):
                if a.i in made:
                    dot.edge(made[a.i], name, label=f"%{a.i}")
            for i in s.outs:
                made[i] = name
        for r in self.out_refs:
            if isinstance(r, _Slot) and r.i in made:
                dot.node(f"out{r.i}", f"output %{r.i}", shape="oval", fillcolor="darkolivegreen1", style="filled")
                dot.edge(made[r.i], f"out{r.i}")
        return dot


class _Call:
    """A frontend recorded whole (``ctxgrad._replayed``): ``apply`` calls it again, with the
    recorded positional arguments, then the recorded keyword arguments in order."""

    _backward_cls = None
    forward = None
    _setup_style = False

    def __init__(self, frontend: Callable[..., Any], keywords: tuple[str, ...]) -> None:
        self.frontend = frontend
        self.keywords = keywords
        self.__name__ = frontend.__name__.lstrip("_")  # (a private helper's name, as a step's)

    def apply(self, *args: Any) -> Any:
        n = len(args) - len(self.keywords)
        return self.frontend(*args[:n], **dict(zip(self.keywords, args[n:])))


def _int_or_bool_array_in(a: Any) -> bool:
    if isinstance(a, np.ndarray):
        return a.dtype.kind in "biu"
    return isinstance(a, (tuple, list)) and any(_int_or_bool_array_in(x) for x in a)


def _detach(t: Tensor) -> Tensor:
    """What ``t.detach()`` (or ``t.data``) made while a trace recorded: replayed as ``detach``."""
    return t.detach()


def _rebuild(a: tuple[Any, ...] | list[Any], items: Iterator[Any]) -> Any:
    """A tuple or list like ``a`` (a NamedTuple too) holding ``items``."""
    make = getattr(type(a), "_make", None)
    return make(items) if make is not None else type(a)(items)


def _holds(a: Any, kind: type) -> bool:
    """Whether ``a`` is, or holds in its tuples and lists, an instance of ``kind``."""
    if isinstance(a, kind):
        return True
    return isinstance(a, (tuple, list)) and any(_holds(x, kind) for x in a)


def _show(a: Any) -> str:
    if isinstance(a, _Slot):
        return f"%{a.i}"
    if isinstance(a, (tuple, list)):
        inner = ", ".join(_show(x) for x in a) + ("," if len(a) == 1 and isinstance(a, tuple) else "")
        return f"({inner})" if isinstance(a, tuple) else f"[{inner}]"
    return repr(a)


def _slots_in(args: Any) -> Iterator[_Slot]:
    for a in args:
        if isinstance(a, _Slot):
            yield a
        elif isinstance(a, (tuple, list)):
            yield from _slots_in(a)


def _tensors_in(out: Any) -> list[Tensor]:
    """The tensors of a Function's result, in order (a tensor, or tuples and lists of them)."""
    if isinstance(out, Tensor):
        return [out]
    if isinstance(out, (tuple, list)):
        return [t for o in out for t in _tensors_in(o)]
    return []


def _user_frame() -> tuple[str, int]:
    """The file and line of the innermost frame outside the ctxgrad package."""
    frame = sys._getframe(1)
    while frame.f_back is not None and os.path.abspath(frame.f_code.co_filename).startswith(_PACKAGE_DIR):
        frame = frame.f_back
    return frame.f_code.co_filename, frame.f_lineno


class _Recorder:
    """Open while ``fn`` runs under :func:`trace`: ``Function.apply`` hands it each call."""

    def __init__(self, graph: Graph, inputs: list[Tensor]) -> None:
        self.graph = graph
        self.slot_of: dict[int, int] = {}
        self.keep: list[Tensor] = []  # (holds every numbered tensor, so no id is reused)
        self.arrays: dict[int, int] = {}  # id of each traced array's owner -> its value number
        self.same: dict[int, int] = {}  # id of each traced array -> the number of its latest tensor
        self.outside_numbers: list[int] = []  # the number of each tensor of graph.outside
        for t in inputs:
            self._number(t)

    def _number(self, t: Tensor) -> int:
        i = self.graph.n_values
        self.graph.n_values += 1
        self.slot_of[id(t)] = i
        self.keep.append(t)
        data = t._data
        self.arrays[id(data if data.base is None else data.base)] = i
        self.same[id(data)] = i
        return i

    def ref(self, a: Any, where: str) -> Any:
        """The template of one argument: a :class:`_Slot` for a tensor, the value otherwise."""
        if isinstance(a, Tensor):
            i = self.slot_of.get(id(a))
            if i is None:
                self.unknown_tensor()
                data = a._data
                same = self.same.get(id(data))
                if same is not None:  # (detach(), .data: the replay detaches the replay's tensor)
                    return _Slot(self._record_call(_Call(_detach, ()), (_Slot(same),), a))
                if id(data if data.base is None else data.base) in self.arrays:
                    self.warn(
                        f"{where} is a tensor made from a traced tensor without a Function (a NumPy view of its "
                        "array): the trace keeps the values it had now, and a replay does not recompute it"
                    )
                i = self._number(a)
                self.graph.outside.append(a)
                self.outside_numbers.append(i)
            return _Slot(i)
        if isinstance(a, (tuple, list)) and _holds(a, Tensor):
            return _rebuild(a, (self.ref(x, where) for x in a))
        return a

    def _refuse_backward(self, name: str) -> None:
        if _state.modes.backward_runs and not self.in_backward:
            raise RuntimeError(
                f"ctxgrad.trace: {self.graph.name} ran a backward pass while being traced ({name} was "
                "applied by it); a trace records forward computations only: call backward on the replay's "
                "outputs instead"
            )

    def call(self, frontend: Callable[..., Any], args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """Record a call of a frontend that reads tensor values or draws random numbers in
        Python (``ctxgrad._replayed``) as one step, then make the call with no recorder open."""
        name = frontend.__name__
        self._refuse_backward(name)
        values = (*args, *kwargs.values())
        tmpl = tuple(self.ref(a, f"argument {k} of {name}") for k, a in enumerate(values))
        _state.modes.recorder = None
        try:
            out = frontend(*args, **kwargs)
        finally:
            _state.modes.recorder = self
        self._record_call(_Call(frontend, tuple(kwargs)), tmpl, out)
        return out

    def _record_call(self, call: _Call, tmpl: tuple[Any, ...], out: Any) -> int:
        """Add a step that calls ``call`` again, made ``out``; the number of its last tensor."""
        tensors = _tensors_in(out)
        metas = tuple((t.shape, t._data.dtype) for t in tensors)
        step = Step(call, tmpl, tuple(self._number(t) for t in tensors), metas, False)
        step.nested = step.call = True
        self.graph.steps.append(step)
        return self.graph.n_values - 1

    def __call__(self, cls: type[Function], args: tuple[Any, ...]) -> Any:
        """Record ``cls.apply(*args)``, then make the call (with no recorder open, so that the
        calls inside its forward are not recorded)."""
        self._refuse_backward(cls.__name__)
        tmpl = tuple(self.ref(a, f"argument {k} of {cls.__name__}") for k, a in enumerate(args))
        if cls.__module__.startswith("ctxgrad.") and any(_holds(a, np.ndarray) for a in args):
            self.array_argument(cls, args)
        _state.modes.recorder = None
        try:
            out = cls.apply(*args)
        finally:
            _state.modes.recorder = self
        tensors = _tensors_in(out)
        nested = any(isinstance(a, (tuple, list)) and any(True for _ in _slots_in(a)) for a in tmpl)
        # replayable: one tensor out, not written in place, no output marked non-differentiable:
        # the fast replay may run its forward directly (and a backward's recording may too)
        replayable = (
            type(out) is Tensor
            and not any(out is a for a in args)
            and not nested
            and (
                out.requires_grad
                or not _state.modes.grad_enabled
                or not any(isinstance(a, Tensor) and a.requires_grad for a in args)
            )
        )
        # plain: also a fresh array, not a view of an argument (what a replay may return)
        plain = (
            replayable
            and not cls.returns_views
            and out._data.base is None
            and not any(isinstance(a, Tensor) and np.may_share_memory(a._data, out._data) for a in args)
        )
        step = Step(
            cls, tmpl, tuple(self._number(t) for t in tensors), tuple((t.shape, t._data.dtype) for t in tensors), plain
        )
        step.replayable = replayable
        if replayable:
            step.out_meta = meta_of(out._data)
            step.general_backward = cls.boxed_grads_call
            step.needs = tuple(isinstance(a, Tensor) and a.requires_grad for a in args)
            step.edges = flatten(
                (True if n else None, 0, a._data.shape, a._data.dtype) if isinstance(a, Tensor) else None  # type: ignore[misc]
                for a, n in zip(args, step.needs)
            )
        step.nested = nested
        self.graph.steps.append(step)
        return out

    in_backward = False  # (records a backward: see _BackwardRecorder)

    def unknown_tensor(self) -> None:
        """An argument is a tensor the recording has not seen (it becomes an outside tensor)."""

    def value_read(self, what: str) -> None:
        """Called by ``Tensor.item()`` and its kin while ``fn`` runs under the trace."""
        self.warn(
            f"{what} read a tensor's value while {self.graph.name} was traced: Python decisions made from it are "
            "frozen in the trace, and a replay will not read it again (its result may differ on other inputs)"
        )

    def array_argument(self, cls: type[Function], args: tuple[Any, ...]) -> None:
        """A built-in Function got a NumPy array that its frontend computed.  Computed from
        shapes or numbers, it is a constant; an integer or bool one computed from a tensor's
        values (positions, a mask) means that frontend should be decorated with replayed_whole."""
        if any(_int_or_bool_array_in(a) for a in args):
            self.warn(
                f"{cls.__name__} got an integer or bool NumPy array that its frontend computed while "
                f"{self.graph.name} was traced: a replay uses that array as it is now, so if it came from a "
                "tensor's values the replay is wrong on other inputs"
            )

    def random_draw(self, what: str) -> None:
        """Called by the generator when ``fn`` draws outside a Function or a frontend recorded whole."""
        self.warn(
            f"{what} drew random numbers while {self.graph.name} was traced, outside any op a replay runs again: "
            "the trace keeps the numbers drawn now, and every replay uses them"
        )

    def warn(self, message: str) -> None:
        _warn(message)


def _warn(message: str) -> None:
    """A :class:`TracerWarning` that names the innermost line outside ctxgrad."""
    filename, lineno = _user_frame()
    warnings.warn_explicit(f"ctxgrad.trace: {message}", TracerWarning, filename, lineno)


class _BackwardRecorder(_Recorder):
    """Records what the recorded backwards of a fast replay compute, so that the next
    backward of the same graph can run those ops' forwards directly.  Its inputs are every
    value of the forward replay and the incoming gradients; anything it cannot replay
    faithfully (a tensor it has not seen, a value read, a step that is not plain) makes it
    give up, and that graph's backwards keep running the recorded backward methods."""

    in_backward = True
    unsafe = False

    def unknown_tensor(self) -> None:
        self.unsafe = True

    def value_read(self, what: str) -> None:
        self.unsafe = True

    def random_draw(self, what: str) -> None:
        self.unsafe = True

    def array_argument(self, cls: type[Function], args: tuple[Any, ...]) -> None:
        self.unsafe = True  # (an array from one replay's ctx would be wrong in the next one)


# --------------------------------------------------------------------------- the replay
def _fill(a: Any, values: list[Any]) -> Any:
    if isinstance(a, _Slot):
        return values[a.i]
    if isinstance(a, (tuple, list)) and _holds(a, _Slot):
        return _rebuild(a, (_fill(x, values) for x in a))
    return a


def _replay_steps(graph: Graph, values: list[Any]) -> list[Any]:
    """The general replay: each step applied as ``fn`` applied it (one node per step)."""
    for s in graph.steps:
        args = (
            [_fill(a, values) for a in s.args] if s.nested else [values[a.i] if type(a) is _Slot else a for a in s.args]
        )
        out = s.cls.apply(*args)
        if len(s.outs) == 1 and type(out) is Tensor and not s.call:
            values[s.outs[0]] = out
        else:
            tensors = _tensors_in(out)
            for i, t in zip(s.outs, tensors):
                values[i] = t
            if s.call and any(t._data.shape != m[0] for t, m in zip(tensors, s.metas)):
                _warn_new_shape(graph, s, tensors)
    return [values[r.i] if isinstance(r, _Slot) else r for r in graph.out_refs]


def _warn_new_shape(graph: Graph, step: Step, tensors: list[Tensor]) -> None:
    now = ", ".join(str(list(t.shape)) for t in tensors)
    then = ", ".join(str(list(m[0])) for m in step.metas)
    _warn(
        f"{step.cls.__name__} gave a result of shape {now} in this replay of {graph.name}, but of shape {then} "
        "when it was traced (its shape depends on the values): the values are this replay's, but any Python "
        "value that the traced function computed from that shape (x.shape[0], len(x), a loop over it) is the "
        "one from the trace"
    )


# A lowered backward: its program, the (shape, dtype) of each gradient it was made for, where
# each parameter comes from, and where each returned gradient that is a parameter comes from.
_BackwardCode = tuple[Program, tuple[Meta, ...], tuple[tuple[int, int], ...], tuple["tuple[int, int] | None", ...]]


class _Build:
    """One consistent state of a :class:`_Lowered`: the forward program returns the outputs,
    then the values in ``kept`` (those its backward programs read); ``backward`` has, per
    pattern of the outputs that got a gradient, the program, the (shape, dtype) of each
    gradient it was made for, and where each of its parameters comes from (0: the replay's
    input or outside tensor number ``i``; 1: ``kept[i]``; 2: the ``i``-th gradient given)."""

    __slots__ = ("backward", "forward", "kept")

    def __init__(
        self,
        forward: Program | None,
        kept: tuple[int, ...],
        backward: dict[tuple[bool, ...], _BackwardCode],
    ) -> None:
        self.forward, self.kept, self.backward = forward, kept, backward


class _Lowered:
    """A fast replay as generated NumPy code (``ctxgrad._trace_program``): the forward as one
    function call, and each backward plan (``Graph.backward_plans``) once it is recorded.  A
    replay uses it once a backward plan is lowered (or when no gradient is needed), since the
    first backward must run the recorded backward methods to record its plan."""

    def __init__(self, graph: Graph, metas: dict[int, Meta], build: _Build) -> None:
        self.graph = graph
        self.metas = metas  # (shape, dtype) of every value of the forward
        self.outside_metas = [metas[i] for i in range(len(graph.input_labels), graph.first_step)]
        self.build = build  # (replaced whole when a backward is added: a run keeps the one it used)

    @staticmethod
    def of(graph: Graph) -> _Lowered | None:
        """The forward of ``graph`` lowered, or None if a step has no exact NumPy ufunc."""
        metas: dict[int, Meta] = {}
        for i, (shape, dtype) in enumerate(graph.input_metas):
            metas[i] = (tuple(shape), dtype)
        for i, t in enumerate(graph.outside, len(graph.input_labels)):
            metas[i] = (tuple(t._data.shape), t._data.dtype)
        instructions = _instructions(graph, metas)
        if instructions is None:
            return None
        known = dict(metas)
        for cls, args, out, meta in instructions:
            if ufunc_of(cls, args, known, meta) is None:
                return None
            known[out] = meta
        return _Lowered(graph, metas, _Build(None, (), {}))  # (the code is written when first run)

    def ready(self, needs: tuple[bool, ...], tensors: tuple[Tensor, ...]) -> _Build | None:
        """The build a replay runs: once a backward is lowered, or when no gradient is needed
        (a first backward must run the recorded backward methods to record its plan)."""
        build = self.build
        if not (build.backward or not any(needs)) or not self.fits(tensors):
            return None
        if build.forward is None:
            build.forward = _lower_forward(self.graph, self.metas, build.kept)
        return build

    def add_backward(self, key: tuple[bool, ...], plan: Graph, grad_metas: tuple[Meta, ...]) -> None:
        """Lower the backward plan just recorded for ``key`` (nothing if it has a step without an
        exact ufunc: its backwards run the plan's Functions), and the forward again if that
        backward reads values the forward did not keep."""
        graph, n_values = self.graph, self.graph.n_values
        metas = {**self.metas, **{n_values + k: m for k, m in enumerate(grad_metas)}}
        instructions = _instructions(plan, metas)
        if instructions is None:
            return
        made = {out for _, _, out, _ in instructions}
        read = {a for _, args, _, _ in instructions for a in args if not isinstance(a, Const)}
        returns = [r.i if isinstance(r, _Slot) else None for r in plan.out_refs]
        params = sorted((read | {r for r in returns if r is not None}) - made)
        program = lower("backward", instructions, params, metas, returns)
        if program is None:
            return
        old = self.build
        kept = tuple(sorted({*old.kept, *(p for p in params if graph.first_step <= p < n_values)}))
        forward = old.forward if kept == old.kept else None  # (written again when first run)
        entries = {**{k: (e[0], e[1]) for k, e in old.backward.items()}, key: (program, grad_metas)}

        def source(p: int) -> tuple[int, int]:
            if p < graph.first_step:
                return (0, p)
            if p < n_values:
                return (1, kept.index(p))
            return (2, p - n_values)

        def code(prog: Program, gm: tuple[Meta, ...]) -> _BackwardCode:
            params = set(prog.params)
            returned = tuple(source(r) if r in params else None for r in prog.returns)
            return (prog, gm, tuple(source(p) for p in prog.params), returned)

        self.build = _Build(forward, kept, {k: code(*entry) for k, entry in entries.items()})

    def fits(self, tensors: tuple[Tensor, ...]) -> bool:
        """Whether the outside tensors still have the shapes and dtypes the code was made for
        (the inputs' are the recording's key)."""
        n = len(self.graph.input_labels)
        return all(t._data.dtype == m[1] and t._data.shape == m[0] for t, m in zip(tensors[n:], self.outside_metas))


def _instructions(graph: Graph, metas: dict[int, Meta]) -> list[Instruction] | None:
    """The steps of ``graph`` for ``ctxgrad._trace_program.lower`` (None if a step has other
    than one output); adds each step's result to ``metas``."""
    out: list[Instruction] = []
    for s in graph.steps:
        if len(s.outs) != 1 or s.call:
            return None
        args = [a.i if type(a) is _Slot else Const(a) for a in s.args]
        shape, dtype = s.metas[0]
        metas[s.outs[0]] = (tuple(shape), dtype)
        out.append((s.cls, args, s.outs[0], metas[s.outs[0]]))
    return out


def _lower_forward(graph: Graph, metas: dict[int, Meta], kept: tuple[int, ...]) -> Program | None:
    instructions = _instructions(graph, dict(metas))
    if instructions is None:
        return None
    returns = [*(r.i for r in graph.out_refs), *kept]
    return lower("forward", instructions, range(graph.first_step), metas, returns)


class _LoweredRun:
    """One replay run by a :class:`_Lowered`'s code: the build it used and the arrays it kept."""

    __slots__ = ("build", "graph", "kept")

    def __init__(self, graph: Graph, build: _Build, kept: tuple[Any, ...]) -> None:
        self.graph, self.build, self.kept = graph, build, kept


class _Run:
    """One fast replay, kept on its node for backward: the step ctxs and every value."""

    __slots__ = ("graph", "nodes", "values")

    def __init__(self, graph: Graph, nodes: list[Any], values: list[Any]) -> None:
        self.graph, self.nodes, self.values = graph, nodes, values


class Traced(Function):
    """The whole replay of a plain trace as one Function: ``forward`` runs each recorded
    step's ``forward`` directly (no argument binding, no per-step node); ``backward`` runs
    the recorded ``backward`` methods in reverse, or, while building a graph
    (``create_graph=True``), replays step by step and differentiates that."""

    @staticmethod
    def forward(ctx: Any, graph: Graph, *tensors: Tensor) -> Any:
        lowered = graph.lowered
        build = None if lowered is None else lowered.ready(ctx._needs, tensors)
        outs: tuple[Tensor, ...]
        if build is not None and build.forward is not None:
            # (one generated function: the outputs, then the values its backward reads)
            result = build.forward.fn(*[t._data for t in tensors])
            n = len(graph.out_refs)
            ctx.run = _LoweredRun(graph, build, result[n:])
            outs = tuple(as_tensor(a) for a in result[:n])
        else:
            values: list[Any] = [*tensors, *([None] * (graph.n_values - len(tensors)))]
            nodes: list[Any] = []
            _run_forwards(graph, values, nodes)
            ctx.run = _Run(graph, nodes, values)
            outs = tuple(values[r.i].detach() for r in graph.out_refs)  # (fresh tensors: no cycle)
        # (an output a backward reads is saved too: changed in place before backward, it raises)
        ctx.save_for_backward(*tensors, *[outs[k] for k in graph.outputs_read])
        ctx.set_materialize_grads(False)
        return outs if len(outs) != 1 else outs[0]

    @staticmethod
    def vmap(info: Any, in_dims: tuple[int | None, ...], graph: Graph, *tensors: Tensor) -> Any:
        """Under ``vmap`` (a replay that a trace recorded, replayed inside vmap): the
        step-by-step replay, vmapped, so each step uses its own batching rule."""

        def replay(*ts: Tensor) -> Any:
            outs = _replay_steps(graph, [*ts, *([None] * (graph.n_values - len(ts)))])
            return outs[0] if len(outs) == 1 else tuple(outs)

        return vmap(replay, in_dims=in_dims[1:])(*tensors), 0

    @staticmethod
    def backward(ctx: Any, *grads: Tensor | None) -> Any:
        saved = ctx.saved_tensors  # (checks that nothing saved was changed in place since)
        run: _Run | _LoweredRun = ctx.run
        graph = run.graph
        inputs = saved[: graph.first_step]  # (then the outputs a backward reads)
        if _state.modes.grad_enabled:  # create_graph=True: differentiate the step-by-step replay
            return (None, *_differentiate(graph, inputs, grads))
        key = tuple(g is not None for g in grads)
        if type(run) is _LoweredRun:
            lowered_grads = _run_lowered_backward(run, key, inputs, grads)
            if lowered_grads is not None:
                return (None, *lowered_grads)
            # (no code for this pattern of gradients yet, or gradients of other shapes: the
            # forward's steps again, deterministic as they are, to run their backward methods)
            nodes: list[Any] = []
            values: list[Any] = [*inputs, *([None] * (graph.n_values - len(inputs)))]
            _run_forwards(graph, values, nodes)
            ctx.run = run = _Run(graph, nodes, values)
        assert type(run) is _Run
        plan = graph.backward_plans.get(key)
        if plan is not None:  # the ops this graph's backward computes, recorded: run them directly
            return (None, *_run_forwards(plan, [*run.values, *[g for g in grads if g is not None]]))
        present = [g for g in grads if g is not None]
        known = [*run.values, *present]
        if key in graph.backward_plans or _state.modes.recorder is not None or len({id(v) for v in known}) < len(known):
            # (already given up; or inside a trace, whose recorder sees this; or one tensor in two
            # places, which a recording could not tell apart on the next run)
            return (None, *_run_backwards(graph, run.nodes, grads, len(inputs)))
        recorder = _BackwardRecorder(Graph(f"backward of {graph.name}", [], []), known)
        _state.modes.recorder = recorder
        try:
            result = _run_backwards(graph, run.nodes, grads, len(inputs))
        finally:
            _state.modes.recorder = None
        plan = recorder.graph
        if recorder.unsafe or plan.outside or not all(s.replayable for s in plan.steps):
            graph.backward_plans[key] = None  # (give up: run the recorded backwards every time)
        else:
            plan.out_refs = [None if r is None else _Slot(recorder.slot_of[id(r)]) for r in result]
            graph.backward_plans[key] = plan
            read = {a.i for s in plan.steps for a in _slots_in(s.args)} | {r.i for r in plan.out_refs if r is not None}
            graph.outputs_read = tuple(
                k for k, r in enumerate(graph.out_refs) if k in graph.outputs_read or r.i in read
            )
            if graph.lowered is not None:
                graph.lowered.add_backward(key, plan, tuple((tuple(g.shape), g._data.dtype) for g in present))
        return (None, *result)


def _run_lowered_backward(
    run: _LoweredRun, key: tuple[bool, ...], inputs: tuple[Tensor, ...], grads: tuple[Tensor | None, ...]
) -> list[Tensor | None] | None:
    """The gradients of a lowered replay's inputs by the generated backward for ``key``; None
    if there is none, or the gradients have other shapes or dtypes than it was made for."""
    entry = run.build.backward.get(key)
    if entry is None:
        return None
    program, grad_metas, sources, returned = entry
    given = [g for g in grads if g is not None]
    present = [g._data for g in given]
    if any(a.dtype != m[1] or a.shape != m[0] for a, m in zip(present, grad_metas)):
        return None
    from_inputs = [t._data for t in inputs]
    pools = (from_inputs, run.kept, present)
    result = program.fn(*[pools[k][i] for k, i in sources])
    # (a gradient passed through unchanged, or an input itself, is that tensor, as in the plan)
    tensors = (inputs, None, given)
    return [
        None if a is None else as_tensor(a) if r is None or r[0] == 1 else tensors[r[0]][r[1]]  # type: ignore[index]
        for a, r in zip(result, returned)
    ]


def _release(node: Any) -> None:
    """After a backward without ``retain_graph``: free the saved inputs, as every node does,
    and the replay's values and step ctxs with them."""
    node._saved = None
    node.run = None


Traced._backward_cls._release = _release  # type: ignore[method-assign, assignment]


def _run_backwards(graph: Graph, nodes: list[Any], grads: tuple[Tensor | None, ...], n: int) -> list[Any]:
    """The gradients of a fast replay's ``n`` inputs: each recorded step's backward, in reverse."""
    g: list[Any] = [None] * graph.n_values
    for r, gr in zip(graph.out_refs, grads):
        g[r.i] = gr
    for s, node in zip(reversed(graph.steps), reversed(nodes)):
        go = g[s.outs[0]]
        if go is None and s.cls.skips_without_gradient:
            continue
        if go is None or s.general_backward or go._data.dtype.kind == "c":
            result = node._run([go])  # (materialized zeros, complex conjugation, boxed grads)
        else:
            result = check_grads(node, s.cls._backward_impl(node, go))
        for a, r in zip(s.args, result):
            if r is not None and type(a) is _Slot:
                g[a.i] = r if g[a.i] is None else g[a.i] + r
    return g[:n]


def _run_forwards(graph: Graph, values: list[Any], nodes: list[Any] | None = None) -> list[Any]:
    """Run each (plain) step's ``forward`` directly on ``values`` (the graph's inputs first,
    filled in as the steps run); with ``nodes``, keep each step's ctx ready for its
    backward.  Returns the values the graph returns."""
    if len(values) < graph.n_values:
        values += [None] * (graph.n_values - len(values))
    for s in graph.steps:
        args = [values[a.i] if type(a) is _Slot else a for a in s.args]
        node = s.node_cls()
        node._needs = s.needs
        if s.setup_style:
            out = s.forward(*args)
            s.cls.setup_context(node, tuple(args), out)
        else:
            out = s.forward(node, *args)
        values[s.outs[0]] = out
        if nodes is not None:
            node._edges = s.edges
            node._out_meta = s.out_meta
            if node.to_save is not None:
                pack_saved(s.cls, node, node.to_save)
            nodes.append(node)
    return [None if r is None else values[r.i] for r in graph.out_refs]


def _differentiate(graph: Graph, inputs: tuple[Any, ...], grads: tuple[Tensor | None, ...]) -> list[Tensor | None]:
    with enable_grad():
        outs = _replay_steps(graph, [*inputs, *([None] * (graph.n_values - len(inputs)))])
    pairs = [(o, g) for o, g in zip(outs, grads) if g is not None and isinstance(o, Tensor) and o.requires_grad]
    wrt = [(k, t) for k, t in enumerate(inputs) if t is not None and t.requires_grad]
    result: list[Tensor | None] = [None] * len(inputs)
    if pairs and wrt:
        found = grad(
            [o for o, _ in pairs], [t for _, t in wrt], [g for _, g in pairs], create_graph=True, allow_unused=True
        )
        for (k, _), gk in zip(wrt, found):
            result[k] = gk
    return result


# --------------------------------------------------------------------------- trace()
def _flatten_inputs(values: dict[str, Any]) -> tuple[list[Any], list[str]]:
    """The leaves of the bound arguments, each with a label naming it (``'x'``, ``'xs'[1]``)."""
    leaves: list[Any] = []
    labels: list[str] = []

    def walk(v: Any, label: str) -> None:
        if isinstance(v, (tuple, list)):
            for k, x in enumerate(v):
                walk(x, f"{label}[{k}]")
        elif isinstance(v, dict):
            for k, x in v.items():
                walk(x, f"{label}[{k!r}]")
        else:
            leaves.append(v)
            labels.append(label)

    for name, v in values.items():
        walk(v, name)
    return leaves, labels


def _key(leaves: list[Any]) -> tuple[Any, ...]:
    """What a recording depends on: each tensor's shape, dtype and requires_grad, and each
    other value (a Python value is a constant of the trace)."""
    key: list[Any] = []
    for v in leaves:
        if isinstance(v, Tensor):
            key.append((v.shape, v._data.dtype, v.requires_grad))
        else:
            try:
                hash(v)
                key.append(("value", type(v), v))
            except TypeError:
                key.append(("object", id(v)))
    return tuple(key)


def _describe(k: Any) -> str:
    if isinstance(k, tuple) and len(k) == 3 and isinstance(k[1], np.dtype):
        return f"a tensor of shape {tuple(k[0])} and dtype {k[1]}" + (" requiring grad" if k[2] else "")
    if isinstance(k, tuple) and k[0] == "value":
        return f"the value {k[2]!r}"
    return "a Python object"


class TracedFunction:
    """What :func:`trace` returns: call it like ``fn`` (positionally or by parameter name)."""

    def __init__(self, fn: Callable[..., Any], strict: bool, fast: bool) -> None:
        self.fn = fn
        self.strict = strict
        self.fast = fast
        self.name = getattr(fn, "__name__", type(fn).__name__)
        self.signature = inspect.signature(fn)
        self.graphs: dict[tuple[Any, ...], Graph] = {}  # one recording per kind of input
        self.graph: Graph | None = None  # the latest recording
        functools.update_wrapper(self, fn)  # (its name, docstring and signature)

    def __repr__(self) -> str:
        n = len(self.graphs)
        return f"<ctxgrad.trace of {self.name}: {n} recording{'s' * (n != 1)}>"

    def _bind(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> dict[str, Any]:
        try:
            bound = self.signature.bind(*args, **kwargs)
        except TypeError as exc:
            raise TypeError(f"ctxgrad.trace({self.name}): {exc}") from None
        bound.apply_defaults()
        return dict(bound.arguments)

    def record(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        """Run ``fn`` with a recorder open; keep the graph; return what ``fn`` returned."""
        leaves, labels = _flatten_inputs(self._bind(args, kwargs))
        tensors = [t for t in leaves if isinstance(t, Tensor)]
        graph = Graph(
            self.name,
            [repr(label) if "[" not in label else label for lb, label in zip(leaves, labels) if isinstance(lb, Tensor)],
            [(t.shape, t._data.dtype) for t in tensors],
        )
        recorder = _Recorder(graph, tensors)
        if _state.modes.recorder is not None:
            raise RuntimeError(
                f"ctxgrad.trace: {self.name} is being traced inside another trace; trace the outer function only"
            )
        _state.modes.recorder = recorder
        try:
            out = self.fn(*args, **kwargs)
        finally:
            _state.modes.recorder = None
        out_leaves, graph.out_spec = tree_flatten(out)
        for o in out_leaves:
            if isinstance(o, Tensor):
                i = recorder.slot_of.get(id(o))
                if i is None:
                    i = recorder._number(o)
                    graph.outside.append(o)
                    recorder.outside_numbers.append(i)
                graph.out_refs.append(_Slot(i))
            else:
                graph.out_refs.append(o)
        self._renumber(graph, recorder.outside_numbers)
        graph.finish()
        self.graphs[_key(leaves)] = self.graph = graph
        return out

    @staticmethod
    def _renumber(graph: Graph, outside_numbers: list[int]) -> None:
        """Number the values as a replay lays them out: the inputs, the outside tensors (both
        are arguments of a replay), then the outputs of each step in order."""
        n_in = len(graph.input_labels)
        new = {old: n_in + k for k, old in enumerate(outside_numbers)}
        nxt = n_in + len(outside_numbers)
        for old in range(n_in, graph.n_values):
            if old not in new:
                new[old], nxt = nxt, nxt + 1

        def move(a: Any) -> Any:
            if isinstance(a, _Slot):
                return _Slot(new.get(a.i, a.i))
            if isinstance(a, (tuple, list)) and _holds(a, _Slot):
                return _rebuild(a, (move(x) for x in a))
            return a

        for s in graph.steps:
            s.args = tuple(move(a) for a in s.args)
            s.outs = tuple(new[i] for i in s.outs)
        graph.out_refs = [move(r) for r in graph.out_refs]

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        leaves, labels = _flatten_inputs(self._bind(args, kwargs))
        key = _key(leaves)
        graph = self.graphs.get(key)
        if graph is not None and any(t.requires_grad is not r for t, r in zip(graph.outside, graph.outside_grad)):
            graph = None  # (a tensor from outside started or stopped requiring grad: record again)
        if graph is None:
            if self.strict and self.graph is not None:
                self._refuse(key, labels)
            return self.record(args, kwargs)
        inputs = [t for t in leaves if isinstance(t, Tensor)]
        values = [*inputs, *graph.outside]
        if (
            self.fast
            and graph.fast
            and not (_state.modes.fw_levels or _state.modes.vmap_levels or _state.modes.anomaly)
        ):
            out = Traced.apply(graph, *values)
            outs = list(out) if isinstance(out, tuple) else [out]
        else:
            outs = _replay_steps(graph, [*values, *([None] * (graph.n_values - len(values)))])
        assert graph.out_spec is not None
        return tree_unflatten(outs, graph.out_spec)

    def _refuse(self, key: tuple[Any, ...], labels: list[str]) -> None:
        old = next(iter(k for k in self.graphs))
        if len(old) != len(key):
            raise RuntimeError(
                f"ctxgrad.trace({self.name}): got {len(key)} input values where the trace has {len(old)} "
                "(strict=True: no re-trace)"
            )
        for label, was, now in zip(labels, old, key):
            if was != now:
                raise RuntimeError(
                    f"ctxgrad.trace({self.name}): argument {label} is {_describe(now)}, but the trace was recorded "
                    f"with {_describe(was)} (strict=True: no re-trace; without it a new shape or dtype traces again)"
                )


_NO_FN: Any = object()


def trace(
    fn: Any = _NO_FN, /, *example_inputs: Any, strict: bool = False, fast: bool = True, **example_kwargs: Any
) -> Any:
    """Trace ``fn`` on the example inputs and return a :class:`TracedFunction` that replays it.

    ``ctxgrad.trace(t)`` on a tensor is still torch's ``trace`` (the sum of the diagonal of a
    matrix); a callable first argument is traced.  ``strict=True`` raises on inputs of other
    shapes or dtypes instead of tracing again; ``fast=False`` always replays step by step.
    """
    if fn is _NO_FN and list(example_kwargs) == ["input"]:  # (torch.trace(input=t))
        return _matrix_trace(example_kwargs["input"])
    if fn is _NO_FN:
        raise TypeError('trace() missing 1 required positional arguments: "input"')
    if not isinstance(fn, Tensor) and not callable(fn) and not (example_inputs or example_kwargs):
        raise TypeError(f"trace(): argument 'input' (position 1) must be Tensor, not {type(fn).__name__}")
    if isinstance(fn, Tensor) or not callable(fn):
        if example_inputs or example_kwargs:
            raise TypeError(
                "trace() takes a tensor (the sum of its diagonal) or a function and its example inputs "
                f"(a traced replay), but got {type(fn).__name__} and {len(example_inputs) + len(example_kwargs)} more"
            )
        return _matrix_trace(fn)
    traced = TracedFunction(fn, strict, fast)
    traced.record(example_inputs, example_kwargs)
    return traced

"""Watch backward run: ``with ctxgrad.autograd.trace() as t: loss.backward()``.

While the block is open, every node the engine runs in this thread is recorded, in the
order it ran, as a :class:`TraceStep`: its name, the gradient that arrived for each of its
outputs, what it returned for each tensor argument of its forward call and where that went
(to which node, or, for an ``AccumulateGrad`` node, into which leaf's ``.grad``), and how
long it took.  ``print(t)`` shows them as a table; ``t.to_dot()`` draws the nodes that ran,
coloured from light yellow (first) to orange (last), with arrows the way the gradients went.

>>> import ctxgrad
>>> x = ctxgrad.tensor([1.0, 2.0], dtype=ctxgrad.float64, requires_grad=True)
>>> y = ctxgrad.tensor([3.0, 4.0], dtype=ctxgrad.float64, requires_grad=True)
>>> loss = (x * y).sum()
>>> with ctxgrad.autograd.trace(params={"x": x, "y": y}) as t:
...     loss.backward()
>>> [step.name for step in t]
['SumBackward0', 'MulBackward0', 'AccumulateGrad', 'AccumulateGrad']
>>> mul = t[1]
>>> [str(r.grad) for r in mul.results]     # d loss/dx = y, d loss/dy = x
['[2] float64 [3, 4]', '[2] float64 [1, 2]']
>>> sorted(f"{r.to} -> {r.leaf_name}" for r in mul.results)
['AccumulateGrad -> x', 'AccumulateGrad -> y']

It works the same for ``autograd.grad`` and with ``create_graph=True`` (the gradients are
recorded without their history).  Only the nodes that run are recorded: a node that no
gradient reached, a node pruned because no requested input lies behind it, and, with
``autograd.grad``, the ``AccumulateGrad`` of an input whose gradient is returned instead.

Like the other modes, a trace is per thread: a backward run by another thread is not
recorded.  Traces nest; the innermost open one records.  With no trace open, the engine
runs each node directly, paying nothing for this feature (it runs nodes through the same
hook as anomaly mode, :func:`ctxgrad.autograd.anomaly_mode.choose_runner`).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from types import TracebackType
from typing import Any

import numpy as np

from ctxgrad._state import _state
from ctxgrad._tensor import Tensor
from ctxgrad.autograd._dot import new_digraph
from ctxgrad.autograd._edges import edges_of
from ctxgrad.autograd.anomaly_mode import choose_runner, run_checked
from ctxgrad.autograd.graph import AccumulateGrad, Node
from ctxgrad.autograd.printing import param_names

__all__ = ["GradInfo", "Result", "TraceStep", "trace"]


def _number(v: Any) -> str:
    return f"{v:.4g}"


def summarize(a: np.ndarray[Any, Any]) -> str:
    """A short summary of a gradient's values: all of them when there are at most six,
    else the mean, the smallest and the largest (the largest magnitude, for complex ones).

    >>> summarize(np.array([1.0, 0.5]))
    '[1, 0.5]'
    >>> summarize(np.arange(12.0).reshape(3, 4))
    'mean 5.5, min 0, max 11'
    """
    if a.ndim == 0:
        return _number(a.item())
    if a.size <= 6:
        return "[" + ", ".join(_number(v) for v in a.ravel().tolist()) + "]"
    if a.dtype.kind == "c":
        return f"mean {_number(a.mean())}, max |g| {_number(np.abs(a).max())}"
    return f"mean {_number(a.mean())}, min {_number(a.min())}, max {_number(a.max())}"


@dataclass(frozen=True)
class GradInfo:
    """One gradient as recorded: its shape, dtype name, a summary of its values, and the
    gradient itself (without history)."""

    shape: tuple[int, ...]
    dtype: str
    summary: str
    tensor: Tensor

    @classmethod
    def of(cls, grad: Tensor) -> GradInfo:
        data = grad._data
        return cls(tuple(data.shape), grad.dtype.name, summarize(data), grad.detach())

    def __str__(self) -> str:
        return f"{list(self.shape)} {self.dtype} {self.summary}"


@dataclass(frozen=True)
class Result:
    """What a node returned for one tensor argument of its forward call, and where it went.

    ``input`` is the argument's position in the forward call; ``grad`` the gradient (None
    when the node returned none); ``to`` the name of the node it was passed to, None when
    the argument needs no gradient; ``output_nr`` which output of that node it is the
    gradient of; ``leaf`` the leaf when ``to`` is an ``AccumulateGrad``.
    """

    input: int
    grad: GradInfo | None
    to: str | None
    to_id: int | None
    output_nr: int
    leaf: Tensor | None
    leaf_name: str | None


@dataclass(frozen=True)
class TraceStep:
    """One node run by the engine, as a trace recorded it.

    ``index`` counts from 1 in the order the nodes ran; ``node_id`` tells nodes apart
    within the trace (two steps of two backward calls through the same node share it).
    ``grads_in`` has one entry per output of the node (None: no gradient arrived for it),
    ``results`` one per tensor argument of its forward call.  For an ``AccumulateGrad``
    step, ``leaf`` is the leaf and ``accumulated`` says whether its ``.grad`` changed.
    ``error`` is the exception's message when the node raised.
    """

    index: int
    name: str
    node_id: int
    grads_in: tuple[GradInfo | None, ...]
    results: tuple[Result, ...]
    seconds: float
    leaf: Tensor | None = None
    leaf_name: str | None = None
    accumulated: bool = False
    error: str | None = None


def _time_text(seconds: float) -> str:
    us = seconds * 1e6
    return f"{us:.1f} µs" if us < 1000 else f"{us / 1000:.2f} ms"


def _ramp(i: int, n: int) -> str:
    """From light yellow (first) to orange (last)."""
    f = 0.0 if n <= 1 else i / (n - 1)
    start, end = (255, 255, 178), (253, 141, 60)
    r, g, b = (round(s + (e - s) * f) for s, e in zip(start, end))
    return f"#{r:02x}{g:02x}{b:02x}"


class trace:
    """Context manager that records every node backward runs in this thread, in order.

    ``params`` (a dict of name -> tensor, e.g. ``dict(model.named_parameters())``) names
    the leaves; other leaves are numbered ``leaf #1``, ``leaf #2``, ... in the order they
    appear.  The trace is the object ``with`` gives: a sequence of :class:`TraceStep`,
    printed as a table, drawn by :meth:`to_dot`.  See the module docstring.
    """

    def __init__(self, params: Mapping[str, Tensor] | None = None) -> None:
        self.steps: list[TraceStep] = []
        self._names = param_names(params, "trace")
        self._leaf_numbers: dict[int, int] = {}
        self._leaves: list[Tensor] = []  # keeps the numbered leaves (and so their ids) alive
        self._keys: dict[Node, int] = {}  # emptied on exit, so the trace holds no graph
        self._prev: Any = None

    def __enter__(self) -> trace:
        self._prev = _state.modes.tracer
        _state.modes.tracer = self
        choose_runner()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        _state.modes.tracer = self._prev
        self._prev = None
        self._keys = {}
        choose_runner()

    # ------------------------------------------------------------------ recording
    def _key(self, node: Node) -> int:
        key = self._keys.get(node)
        if key is None:
            key = self._keys[node] = len(self._keys)
        return key

    def _leaf_name(self, leaf: Tensor) -> str:
        name = self._names.get(id(leaf))
        if name is not None:
            return name
        k = self._leaf_numbers.get(id(leaf))
        if k is None:
            k = self._leaf_numbers[id(leaf)] = len(self._leaf_numbers) + 1
            self._leaves.append(leaf)
        return f"leaf #{k}"

    def _run_node(self, node: Node, grads: list[Tensor | None]) -> list[Tensor | None]:
        """Run ``node`` as the engine would (through anomaly mode's checks when it is on),
        timing it, and record the step."""
        start = time.perf_counter()
        try:
            out = run_checked(node, grads) if _state.modes.anomaly else node._run(grads)
        except Exception as exc:
            self._record(node, grads, None, time.perf_counter() - start, f"{type(exc).__name__}: {exc}")
            raise
        self._record(node, grads, out, time.perf_counter() - start, None)
        return out

    def _record(
        self, node: Node, grads: list[Tensor | None], out: list[Tensor | None] | None, seconds: float, error: str | None
    ) -> None:
        grads_in = tuple(None if g is None else GradInfo.of(g) for g in grads)
        results: list[Result] = []
        for i, edge in enumerate(edges_of(node)):
            if edge is None:
                continue  # not a tensor argument
            g = out[i] if out is not None and i < len(out) else None
            child, nr = edge[0], edge[1]
            leaf = child.variable if isinstance(child, AccumulateGrad) else None
            results.append(
                Result(
                    input=i,
                    grad=None if g is None else GradInfo.of(g),
                    to=None if child is None else child.name(),
                    to_id=None if child is None else self._key(child),
                    output_nr=nr,
                    leaf=leaf,
                    leaf_name=None if leaf is None else self._leaf_name(leaf),
                )
            )
        step_leaf = node.variable if isinstance(node, AccumulateGrad) else None
        self.steps.append(
            TraceStep(
                index=len(self.steps) + 1,
                name=node.name(),
                node_id=self._key(node),
                grads_in=grads_in,
                results=tuple(results),
                seconds=seconds,
                leaf=step_leaf,
                leaf_name=None if step_leaf is None else self._leaf_name(step_leaf),
                accumulated=step_leaf is not None
                and error is None
                and grads_in[0] is not None
                and step_leaf._requires_grad,
                error=error,
            )
        )

    # ------------------------------------------------------------------ reading
    def __len__(self) -> int:
        return len(self.steps)

    def __iter__(self) -> Iterator[TraceStep]:
        return iter(self.steps)

    def __getitem__(self, index: int) -> TraceStep:
        return self.steps[index]

    @property
    def total_seconds(self) -> float:
        """The time all recorded nodes took together."""
        return sum(s.seconds for s in self.steps)

    def _first_run(self) -> dict[int, int]:
        first: dict[int, int] = {}
        for s in self.steps:
            first.setdefault(s.node_id, s.index)
        return first

    def format(self) -> str:
        """The steps as a table: one row per step, more when a node has several outputs
        or arguments (what :func:`print` shows)."""
        if not self.steps:
            return "(no backward node ran while the trace was open)"
        first = self._first_run()
        header = ("step", "node", "gradient in", "returned", "went to", "time")
        rows: list[tuple[str, ...]] = [header]
        for s in self.steps:
            many_in = len(s.grads_in) > 1
            ins = [f"{k}: " * many_in + ("None" if g is None else str(g)) for k, g in enumerate(s.grads_in)]
            outs: list[str] = []
            tos: list[str] = []
            if s.leaf is not None:
                outs.append("-")
                tos.append(f"{s.leaf_name}.grad" if s.accumulated else "(nothing accumulated)")
            for r in s.results:
                outs.append(f"{r.input}: " + ("None" if r.grad is None else str(r.grad)))
                if r.to is None:
                    tos.append("(needs no gradient)")
                else:
                    where = f" {r.leaf_name}" if r.leaf_name is not None else ""
                    output = f" (output {r.output_nr})" if r.output_nr else ""
                    ran = first.get(r.to_id) if r.to_id is not None else None
                    tos.append(f"{r.to}{where}{output}" + (f", step {ran}" if ran is not None else ", not run"))
            if s.error is not None:
                outs, tos = [f"raised {s.error}"], [""]
            height = max(len(ins), len(outs), 1)
            for k in range(height):
                rows.append(
                    (
                        str(s.index) if k == 0 else "",
                        s.name if k == 0 else "",
                        ins[k] if k < len(ins) else "",
                        outs[k] if k < len(outs) else "",
                        tos[k] if k < len(tos) else "",
                        _time_text(s.seconds) if k == 0 else "",
                    )
                )
        widths = [max(len(row[c]) for row in rows) for c in range(len(header))]
        lines = []
        for row in rows:
            cells = [row[0].rjust(widths[0])] + [row[c].ljust(widths[c]) for c in range(1, len(row) - 1)]
            cells.append(row[-1].rjust(widths[-1]))
            lines.append("  ".join(cells).rstrip())
        lines.append(
            f"{len(self.steps)} node{'s' if len(self.steps) != 1 else ''} ran in {_time_text(self.total_seconds)}"
        )
        return "\n".join(lines)

    def __str__(self) -> str:
        return self.format()

    def __repr__(self) -> str:
        return f"<trace: {len(self.steps)} steps>"

    def _repr_mimebundle_(self, include: Any = None, exclude: Any = None, **kwargs: Any) -> dict[str, str]:
        return {"text/plain": self.format()}

    def to_dot(self) -> Any:
        """The nodes that ran, as a Graphviz graph coloured by the order they ran in.

        Each node that ran is a box ``step. Name`` with its time, filled from light yellow
        (first) to orange (last); an arrow goes from a node to where each gradient it
        returned went, labelled with the gradient's shape (a dashed one when it returned
        None); a node that got a gradient but did not run is a white box; a leaf is a light
        blue box under its ``AccumulateGrad``.  A ``graphviz.Digraph`` when the ``graphviz``
        package is installed, else a :class:`ctxgrad.viz.DotGraph` with the same source.
        """
        node_attr = {"style": "filled", "shape": "box", "fontsize": "10", "fontname": "monospace", "height": "0.2"}
        dot = new_digraph(node_attr=node_attr, text=self.format())
        drawn: set[str] = set()
        n = len(self.steps)
        for s in self.steps:
            ident = f"n{s.node_id}"
            if ident not in drawn:
                drawn.add(ident)
                dot.node(ident, f"{s.index}. {s.name}\n{_time_text(s.seconds)}", fillcolor=_ramp(s.index - 1, n))
            if s.leaf is not None and s.accumulated:
                leaf_ident = f"leaf{s.node_id}"
                shape = "(" + ", ".join(str(n) for n in s.leaf.shape) + ")"  # as make_dot writes it
                dot.node(leaf_ident, f"{s.leaf_name}\n {shape}", fillcolor="lightblue")
                dot.edge(ident, leaf_ident, label=".grad +=")
        first = self._first_run()
        for s in self.steps:
            for r in s.results:
                if r.to_id is None:
                    continue
                target = f"n{r.to_id}"
                if r.to_id not in first and target not in drawn:
                    drawn.add(target)
                    label = r.to if r.leaf_name is None else f"{r.to}\n({r.leaf_name})"
                    dot.node(target, label, fillcolor="white")
                if r.grad is None:
                    dot.edge(f"n{s.node_id}", target, label="None", style="dashed")
                else:
                    dot.edge(f"n{s.node_id}", target, label=str(list(r.grad.shape)))
        return dot

"""The backward engine: dependency counting and a ready queue, no recursion anywhere.

``run_backward`` works in two steps:

1. **Prepare** (:func:`_prepare`).  Walk the graph from the roots with an explicit stack
   and count, for every node, how many edges point at it (``deps``).  When ``inputs`` are
   given, keep only the nodes from which an input can be reached (nothing else runs) and
   note which node's incoming gradient is each input's.
2. **Execute** (:func:`_execute`).  A node is *ready* when every edge into it has delivered
   its gradient (``deps`` reached zero).  Ready nodes wait in a heap ordered by creation,
   newest first, as torch orders them (``AccumulateGrad`` nodes first of all: their
   sequence number is the largest there is, as in torch).  Running a node, the body of
   the loop and the one place where that happens, applies its tensor hooks, calls
   ``node._run`` (the user's ``backward`` for a Function node, the ``.grad`` update for
   ``AccumulateGrad``; through ``_state.modes.node_runner`` when anomaly mode or a trace
   watches), and adds each gradient it returns into the buffer of the node the edge
   leads to.

Each node runs once, so a graph of ``N`` nodes and ``E`` edges costs ``O(N + E)``, and a
chain of a million ops needs no more stack than a chain of ten.  Without
``retain_graph``, each node frees its saved tensors right after it runs.  Grad mode is
``create_graph`` while the engine runs, so a backward built from ctxgrad ops records a
graph of its own for double backward.
"""

from __future__ import annotations

import gc
import heapq
from collections.abc import Sequence

from ctxgrad._state import _state
from ctxgrad._tensor import Tensor
from ctxgrad.autograd.grad_mode import run_in_grad_mode
from ctxgrad.autograd.graph import AccumulateGrad, GradientEdge, Node, _accumulate_into, _accumulator_of

Buffer = list["Tensor | None"]


def _edge_of(t: Tensor) -> tuple[Node, int]:
    fn = t._grad_fn if t._base is None else t._history()
    if fn is not None:
        return fn, t._output_nr
    return _accumulator_of(t), 0


def _input_edge(t: Tensor | GradientEdge) -> tuple[Node | None, int]:
    """Where gradients for ``t`` arrive, or ``(None, 0)`` for a leaf no graph has used."""
    if isinstance(t, GradientEdge):
        return t.node, t.output_nr
    fn = t._grad_fn
    if fn is not None:
        return fn, t._output_nr
    ref = t._accumulator
    node = ref() if ref is not None else None
    return node, 0


def _count_dependencies(roots: list[Node]) -> dict[Node, int]:
    """For each node reachable from ``roots``, the number of edges pointing at it."""
    deps: dict[Node, int] = dict.fromkeys(roots, 0)
    stack = list(roots)
    while stack:
        for child in stack.pop()._edges[::4]:  # (each argument's node: four entries each, _edges.py)
            if child is None:
                continue
            n = deps.get(child)
            if n is None:
                deps[child] = 1
                stack.append(child)
            else:
                deps[child] = n + 1
    return deps


def _nodes_leading_to(deps: dict[Node, int], roots: list[Node], targets: set[Node]) -> set[Node]:
    """The nodes from which some target can be reached (targets included)."""
    # Kahn's order visits parents before children; walking it backwards sees children first.
    remaining = dict(deps)
    order: list[Node] = []
    stack = [r for r in roots if remaining[r] == 0]
    while stack:
        node = stack.pop()
        order.append(node)
        for child in node._edges[::4]:
            if child is not None:
                remaining[child] -= 1
                if remaining[child] == 0:
                    stack.append(child)
    leading: set[Node] = set()
    for node in reversed(order):
        if node in targets or any(child in leading for child in node._edges[::4]):
            leading.add(node)
    return leading


class _Run:
    """What *prepare* decides for one backward call, and what *execute* works through."""

    __slots__ = ("accumulate", "buffers", "captured", "captures", "deps", "inputs", "ready", "runnable", "visit")

    def __init__(self, inputs: Sequence[Tensor | GradientEdge] | None, accumulate: bool) -> None:
        self.inputs = inputs
        self.accumulate = accumulate
        self.buffers: dict[Node, Buffer] = {}
        self.captures: dict[Node, list[tuple[int, int]]] = {}  # node -> (output nr, index in inputs)
        self.captured: list[Tensor | None] = [None] * len(inputs) if inputs is not None else []
        self.visit: set[Node] | None = None  # with inputs: the nodes that lead to one
        self.runnable: set[Node] | None = None  # with inputs: the nodes whose backward must run
        self.deps: dict[Node, int] = {}
        self.ready: list[tuple[int, int, Node]] = []

    def will_run(self, node: Node | None) -> bool:
        """True when ``node`` is part of this backward (torch's ``_will_engine_execute_node``)."""
        return node is not None and node in self.deps and (self.visit is None or node in self.visit)


def run_backward(
    roots: Sequence[Tensor],
    seeds: Sequence[Tensor],
    keep_graph: bool,
    create_graph: bool,
    inputs: Sequence[Tensor | GradientEdge] | None = None,
    accumulate: bool = True,
) -> list[Tensor | None]:
    """Propagate ``seeds`` (one gradient per root) back through the graph.

    With ``accumulate`` (``backward``), gradients are added into ``.grad`` of the leaves
    (only of ``inputs`` when given).  Without it (``autograd.grad``), the gradients that
    reach each of ``inputs`` are returned and no ``.grad`` changes.
    """
    run = _prepare(roots, seeds, inputs, accumulate)
    outer, hooks = _state.modes.backward_runs, _state.modes.saved_hooks
    _state.modes.backward_runs = (*outer, run)  # (a multi-grad hook asks which nodes will run)
    # The graph is acyclic and freed by reference counting; the cyclic collector, triggered by
    # the tensors a backward allocates, would only re-scan the graph (12% of a long chain's time).
    collecting = gc.isenabled()
    gc.disable()
    try:
        run_in_grad_mode(create_graph, _execute, run, keep_graph)
    finally:  # (saved-tensor hooks entered during backward do not outlive it, as in torch)
        _state.modes.backward_runs, _state.modes.saved_hooks = outer, hooks
        if collecting:
            gc.enable()
    return run.captured


def _prepare(
    roots: Sequence[Tensor], seeds: Sequence[Tensor], inputs: Sequence[Tensor | GradientEdge] | None, accumulate: bool
) -> _Run:
    """Seed the roots' buffers, count dependencies, and with ``inputs``, prune the graph to
    the nodes that lead to them and note where their gradients are captured."""
    run = _Run(inputs, accumulate)
    buffers = run.buffers
    root_nodes: list[Node] = []
    for t, seed in zip(roots, seeds):
        root, nr = _edge_of(t)
        root_buf = buffers.get(root)
        if root_buf is None:
            root_buf = buffers[root] = [None] * len(root._out_meta)
            root_nodes.append(root)
        prev = root_buf[nr]
        root_buf[nr] = seed if prev is None else prev + seed
    run.deps = deps = _count_dependencies(root_nodes)
    if inputs is not None:
        for k, target in enumerate(inputs):
            node_or_none, nr = _input_edge(target)
            if node_or_none is not None and node_or_none in deps:
                if accumulate and isinstance(node_or_none, AccumulateGrad):
                    continue  # backward(inputs=leaf): its AccumulateGrad runs and fills .grad
                run.captures.setdefault(node_or_none, []).append((nr, k))
        targets: set[Node] = set(run.captures)
        if accumulate:
            targets |= {n for t in inputs for n in [_input_edge(t)[0]] if isinstance(n, AccumulateGrad)}
        run.visit = visit = _nodes_leading_to(deps, root_nodes, targets)
        run.runnable = {n for n in visit if any(child in visit for child in n._edges[::4])}
        if accumulate:
            run.runnable |= {n for n in targets if isinstance(n, AccumulateGrad)}
    run.ready = [(-n._seq, id(n), n) for n in root_nodes if deps[n] == 0]
    heapq.heapify(run.ready)
    return run


def _execute(run: _Run, keep_graph: bool) -> None:
    """Run the ready nodes, newest first, until none is left; the one place a node runs."""
    buffers, deps, ready, captures = run.buffers, run.deps, run.ready, run.captures
    visit, runnable, runner = run.visit, run.runnable, _state.modes.node_runner
    pop, push = heapq.heappop, heapq.heappush
    run_it = True
    following = None  # a node that became ready while the heap was empty: it runs next, past the heap
    while ready or following is not None:
        if following is not None:
            node, following = following, None
        else:
            node = pop(ready)[2]
        buf = buffers.pop(node, None)
        if buf is None:  # no gradient reached it: a built-in op passes none on, as torch's do
            buf = [None] * len(node._out_meta)
            if getattr(node, "skips_without_gradient", False) and node._hooks is None:
                run_it = False
        if node._hooks is not None or type(node) is AccumulateGrad:
            buf = node._output_grads(buf)
        if captures and node in captures:
            _capture(run, node, buf)
        if runnable is not None and node not in runnable:
            continue
        grads: list[Tensor | None]
        if not run_it:
            grads, run_it = [None] * (len(node._edges) // 4), True
        else:
            grads = node._run(buf) if runner is None else runner(node, buf)  # (anomaly mode, trace)
        if not keep_graph:
            node._release()
        edges = node._edges  # (node, output_nr, shape, dtype for each argument: _edges.py)
        for i in range(len(grads)):
            child = edges[4 * i]
            if child is None:
                continue
            g = grads[i]
            if g is not None:
                cbuf = buffers.get(child)
                if cbuf is None:
                    cbuf = buffers[child] = [None] * len(child._out_meta)
                nr = edges[4 * i + 1]
                prev = cbuf[nr]
                cbuf[nr] = g if prev is None else prev + g
            n = deps[child] - 1
            deps[child] = n
            if n == 0 and (visit is None or child in visit):
                if following is None and not ready:  # (a chain's next node: no heap push and pop)
                    following = child
                    continue
                if following is not None:
                    push(ready, (-following._seq, id(following), following))
                    following = None
                push(ready, (-child._seq, id(child), child))


def _capture(run: _Run, node: Node, buf: Buffer) -> None:
    """Keep the gradients arriving at ``node`` that ``inputs`` asked for (``backward(inputs=)``
    of a non-leaf also accumulates them into its ``.grad``)."""
    for nr, k in run.captures[node]:
        g = run.captured[k] = buf[nr]
        if run.accumulate and g is not None:
            wanted = run.inputs[k]  # type: ignore[index]
            if isinstance(wanted, Tensor) and not wanted._retains_grad:
                _accumulate_into(wanted, g)  # (else retain_grad filled it)

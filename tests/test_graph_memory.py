"""Memory, op family by op family: a graph dies with its last output, and a backward without
``retain_graph`` releases what the graph saved.

``test_memory.py`` checks the mechanism on one custom Function and a chain of pointwise ops;
this file runs the same promises over a representative of every built-in op family
(pointwise, reduction, linalg, shape views, indexing, sorting, in-place) and over custom
Functions that save inputs, outputs, intermediates, a dirty input and a non-differentiable
output, in both definition styles.

Every test runs with the cycle collector disabled, so an object kept alive by a reference
cycle shows up as a weak reference that is still alive.  Weak references are taken to every
node of the graph and to every object a node saved (the tensor, or for a saved output the
array it keeps), except what the test itself holds (the leaf, and in the backward tests the
outputs).
"""

from __future__ import annotations

import gc
import os
import subprocess
import sys
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import ctxgrad
from ctxgrad.autograd import Function
from ctxgrad.autograd.graph import Node


@pytest.fixture(autouse=True)
def _no_cycle_collector() -> Iterator[None]:
    # No gc.collect() first: it costs a tenth of a second per test once torch is loaded, and
    # the tests only watch objects they make themselves.
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


# --------------------------------------------------------------------------- custom Functions
class SavesInput(Function):
    """y = x * exp(x), saving the input."""

    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        ctx.save_for_backward(x)
        return x * x.exp()

    @staticmethod
    def backward(ctx: Any, g: Any) -> Any:
        (x,) = ctx.saved_tensors
        return g * (1 + x) * x.exp()


class SavesOutput(Function):
    """y = exp(x), saving the output (kept without a cycle: see SavedTensor)."""

    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx: Any, g: Any) -> Any:
        (y,) = ctx.saved_tensors
        return g * y


class SavesIntermediate(Function):
    """y = sin(2x), saving cos(2x), a tensor made inside forward."""

    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        doubled = x * 2
        ctx.save_for_backward(doubled.cos())
        return doubled.sin()

    @staticmethod
    def backward(ctx: Any, g: Any) -> Any:
        (cos,) = ctx.saved_tensors
        return 2 * g * cos


class SavesEverything(Function):
    """Two outputs (exp(x) and x**2); saves the input, the first output and an intermediate."""

    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        y = x.exp()
        twice = x * 2
        ctx.save_for_backward(x, y, twice)
        return y, x * x

    @staticmethod
    def backward(ctx: Any, g_exp: Any, g_square: Any) -> Any:
        _x, y, twice = ctx.saved_tensors
        return g_exp * y + g_square * twice


class DoublesInPlace(Function):
    """x *= 2 in place (mark_dirty), saving the changed input, which is also the output."""

    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        x.mul_(2)
        ctx.mark_dirty(x)
        ctx.save_for_backward(x)
        return x

    @staticmethod
    def backward(ctx: Any, g: Any) -> Any:
        (_x,) = ctx.saved_tensors
        return g * 2


class ArgmaxAndMax(Function):
    """(max, argmax) along dim 1; the argmax is non-differentiable and saved."""

    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        index = x.argmax(1, keepdim=True)
        ctx.mark_non_differentiable(index)
        ctx.save_for_backward(index)
        ctx.shape = x.shape
        return x.gather(1, index), index

    @staticmethod
    def backward(ctx: Any, g: Any, _g_index: Any) -> Any:
        (index,) = ctx.saved_tensors
        return ctxgrad.zeros(ctx.shape, dtype=g.dtype).scatter(1, index, g)


class SquareWithSetupContext(Function):
    """x**2, in the forward + setup_context style, saving the input and the output."""

    @staticmethod
    def forward(x: Any) -> Any:
        return x * x

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> None:
        ctx.save_for_backward(inputs[0], output)

    @staticmethod
    def backward(ctx: Any, g: Any) -> Any:
        x, _y = ctx.saved_tensors
        return 2 * x * g


def _in_place_ops(x: Any) -> Any:
    y = x * 1
    y.exp_()  # saves its result
    y[0:2].mul_(3)  # through a view: CopySlices on y
    y += x
    return y


# Each case: the leaf (3 x 3, float64, invertible) in, an output or a tuple of outputs out.
CASES: dict[str, Callable[[Any], Any]] = {
    "pointwise": lambda x: x.tanh() * x,  # tanh saves its output, mul its inputs
    "reduction": lambda x: (x.logsumexp(1), x.max(1).values),
    "linalg": lambda x: ctxgrad.linalg.inv(x) @ x,
    "shape view": lambda x: x.t().reshape(-1)[1:].unsqueeze(0).expand(2, 8),
    "indexing": lambda x: x[[0, 2]].gather(1, ctxgrad.tensor([[1], [0]])),
    "sorting": lambda x: x.sort(1).values * x.topk(1, dim=0).values,
    "in-place": _in_place_ops,
    "custom, saves input": lambda x: SavesInput.apply(x * 1),
    "custom, saves output": lambda x: SavesOutput.apply(x),
    "custom, saves intermediate": lambda x: SavesIntermediate.apply(x),
    "custom, saves all, two outputs": lambda x: SavesEverything.apply(x.sin()),
    "custom, mark_dirty": lambda x: DoublesInPlace.apply(x * 1),
    "custom, non-differentiable output": lambda x: ArgmaxAndMax.apply(x),
    "custom, setup_context": lambda x: SquareWithSetupContext.apply(x),
}
# Which op families the built-in cases stand for: the test below checks each one is there.
FAMILIES = ("pointwise", "reduction", "linalg", "shape view", "indexing", "sorting", "in-place")


def _leaf() -> Any:
    values = np.array([[2.0, 0.5, 0.1], [0.3, 1.5, -0.2], [0.1, 0.4, 1.0]])
    return ctxgrad.tensor(values, requires_grad=True)


def _outputs(result: Any) -> list[Any]:
    items = result if isinstance(result, tuple) else (result,)
    return [t for t in items if isinstance(t, ctxgrad.Tensor) and t.requires_grad]


def _loss(result: Any) -> Any:
    total = None
    for t in _outputs(result):
        total = t.sum() if total is None else total + t.sum()
    return total


def _graph_refs(outputs: list[Any], keep: list[Any]) -> dict[str, weakref.ref[Any]]:
    """Weak references to every node reachable from ``outputs`` and to every object the
    nodes saved, except the objects in ``keep`` (compared by identity)."""
    refs: dict[str, weakref.ref[Any]] = {}
    stack = [o.grad_fn for o in outputs]
    seen: set[int] = set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        refs[f"node {node.name()} #{len(seen)}"] = weakref.ref(node)
        for i, slot in enumerate(_saved_slots(node)):
            if slot is None:
                continue
            held = slot._tensor if slot._tensor is not None else slot._data
            if not any(held is k for k in keep):
                refs[f"{node.name()} saved[{i}] ({type(held).__name__})"] = weakref.ref(held)
        stack.extend(fn for fn, _ in node.next_functions)
    return refs


def _saved_slots(node: Any) -> tuple[Any, ...]:
    return getattr(node, "_saved", None) or ()


def _alive(refs: dict[str, weakref.ref[Any]]) -> list[str]:
    return [name for name, ref in refs.items() if ref() is not None]


def _saved_refs(refs: dict[str, weakref.ref[Any]]) -> dict[str, weakref.ref[Any]]:
    return {name: ref for name, ref in refs.items() if " saved[" in name}


CASE_PARAMS = [pytest.param(make, id=name) for name, make in CASES.items()]
# The cases whose graph saves nothing for backward (views need only shapes).
SAVES_NOTHING = {CASES["shape view"]}


def test_every_op_family_has_a_case() -> None:
    assert [name for name in FAMILIES if name not in CASES] == []


def test_gc_is_disabled_in_these_tests() -> None:
    assert not gc.isenabled()


@pytest.mark.parametrize("make", CASE_PARAMS)
def test_deleting_the_outputs_frees_every_node_and_everything_saved(make: Callable[[Any], Any]) -> None:
    x = _leaf()
    result = make(x)
    refs = _graph_refs(_outputs(result), keep=[x, x._data])
    assert len(refs) > 1, refs  # a graph was recorded
    assert _alive(refs) == list(refs)
    del result
    assert _alive(refs) == []
    assert x.grad is None


@pytest.mark.parametrize("make", CASE_PARAMS)
def test_backward_without_retain_graph_releases_everything_saved(make: Callable[[Any], Any]) -> None:
    x = _leaf()
    result = make(x)
    outputs = _outputs(result)
    held = [t for t in (result if isinstance(result, tuple) else (result,)) if isinstance(t, ctxgrad.Tensor)]
    refs = _graph_refs(outputs, keep=[x, x._data, *held, *(t._data for t in held)])
    nodes = [ref() for name, ref in refs.items() if name.startswith("node ")]
    saving = [node for node in nodes if node is not None and _saved_slots(node)]
    assert bool(saving) is (make not in SAVES_NOTHING)
    saved = _saved_refs(refs)
    _loss(result).backward()
    assert x.grad is not None
    assert [n.name() for n in saving if n._saved is not None] == []
    assert _alive(saved) == []
    del nodes, saving


@pytest.mark.parametrize("make", CASE_PARAMS)
def test_a_graph_retained_by_backward_is_freed_when_its_outputs_die(make: Callable[[Any], Any]) -> None:
    x = _leaf()
    result = make(x)
    refs = _graph_refs(_outputs(result), keep=[x, x._data])
    _loss(result).backward(retain_graph=True)
    assert _alive(_saved_refs(refs)) == list(_saved_refs(refs))  # retained ...
    del result
    assert _alive(refs) == []  # ... until the graph dies


@pytest.mark.parametrize("make", CASE_PARAMS)
def test_double_backward_graphs_are_freed_without_gc(make: Callable[[Any], Any]) -> None:
    x = _leaf()
    result = make(x)
    (g,) = ctxgrad.autograd.grad(_loss(result), x, create_graph=True)
    refs = _graph_refs(_outputs(result), keep=[x, x._data])
    if g.requires_grad:
        refs.update({f"grad graph: {k}": v for k, v in _graph_refs([g], keep=[x, x._data]).items()})
        (gg,) = ctxgrad.autograd.grad(g.sum(), x, allow_unused=True, materialize_grads=True)
        assert gg.shape == x.shape
    del result, g
    assert _alive(refs) == []


def _arrays_kept_as_attributes(node: Any) -> list[str]:
    attributes = getattr(node, "__dict__", {})
    return [
        f"{node.name()}.{key}"
        for key, value in attributes.items()
        if isinstance(value, (np.ndarray, ctxgrad.Tensor)) and getattr(value, "size", 2) > 1
    ]


@pytest.mark.parametrize("family", FAMILIES)
def test_built_in_nodes_keep_no_arrays_after_backward(family: str) -> None:
    x = _leaf()
    result = CASES[family](x)
    _loss(result).backward()
    refs = _graph_refs(_outputs(result), keep=[])
    nodes = [ref() for name, ref in refs.items() if name.startswith("node ")]
    assert [kept for node in nodes for kept in _arrays_kept_as_attributes(node)] == []


def test_a_node_keeps_no_attribute_dict_unless_its_function_sets_an_attribute() -> None:
    # The fields the core sets on every node are slots; past a Function's first calls (whose
    # ctx attributes are checked for tensors), nothing makes a node an attribute dict object:
    # x + y and tanh set no attribute, x * 2.0 keeps its number as one (ctx.scalars, which
    # CPython stores inline), and a Function's own attributes are there as set.
    x = ctxgrad.linspace(-1.0, 1.0, 5, dtype=ctxgrad.float64, requires_grad=True)
    y = ctxgrad.ones(5, dtype=ctxgrad.float64, requires_grad=True)

    class Scale(Function):
        @staticmethod
        def forward(ctx: Any, t: Any) -> Any:
            ctx.factor = 3.0
            return t * 3.0

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g * ctx.factor

    for _ in range(40):
        product, total, squashed, scaled = x * 2.0, x + y, ctxgrad.tanh(x), Scale.apply(x)
    kept = [vars(t.grad_fn) for t in (product, total, squashed, scaled)]
    assert kept == [{"scalars": (None, 2.0)}, {}, {}, {"factor": 3.0}]
    assert product.grad_fn._saved_other.item() == 2.0  # (the number, as torch's field gives it)
    (product + total + squashed + scaled).sum().backward()
    expected = 2.0 + 1.0 + (1.0 - np.tanh(x.detach().numpy()) ** 2) + 3.0
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-15)
    np.testing.assert_array_equal(y.grad.numpy(), np.ones(5))


_INLINE_ATTRIBUTES = """
import gc
import ctxgrad
x = ctxgrad.linspace(-1.0, 1.0, 5, dtype=ctxgrad.float64, requires_grad=True)
y = ctxgrad.ones(5, dtype=ctxgrad.float64, requires_grad=True)
for _ in range(40):
    product, total, squashed, viewed = x * 2.0, x + y, ctxgrad.tanh(x), x[1:]
# (whether a node holds a dict object for its attributes, asked without making one as reading
# __dict__ would: attributes CPython keeps inline show as their values)
print([any(type(r) is dict for r in gc.get_referents(t.grad_fn)) for t in (product, total, squashed, viewed)])
"""


@pytest.mark.skipif(
    not (3, 11) <= sys.version_info[:2] <= (3, 12),
    reason="CPython keeps attributes inline in 3.11 and 3.12; 3.10 keeps every instance's in a dict "
    "object, and 3.13 makes one for a node whose class's earlier instances showed theirs",
)
def test_built_in_nodes_keep_their_attributes_inline() -> None:
    # Whether CPython keeps a class's instance attributes inline depends on every instance of
    # the class made before in the process (one that set other attributes, in another order,
    # makes later ones keep dict objects), so it is asked of a fresh interpreter.
    root = Path(__file__).resolve().parent.parent
    result = subprocess.run(
        [sys.executable, "-c", _INLINE_ATTRIBUTES],
        capture_output=True,
        text=True,
        cwd=root,
        env={**os.environ, "PYTHONPATH": str(root)},
    )
    assert result.stdout.strip() == "[False, False, False, False]", result.stderr


def test_nodes_of_one_needs_pattern_share_one_tuple() -> None:
    # A node's needs_input_grad is shared by the nodes of its pattern (an object fewer per node
    # to hold and for the cyclic collector to count): equal patterns are one object, each
    # node's values are its own call's, and arguments past 62 (beyond a C long) count too.
    x = ctxgrad.ones(3, dtype=ctxgrad.float64, requires_grad=True)
    c = ctxgrad.ones(3, dtype=ctxgrad.float64)
    first, second, third = x * 2.0, x * 3.0, c * x

    assert first.grad_fn._needs is second.grad_fn._needs
    assert first.grad_fn._needs == (True, False)
    assert third.grad_fn._needs == (False, True)

    class Many(Function):
        seen: list[tuple[bool, ...]] = []

        @staticmethod
        def forward(ctx: Any, *tensors: Any) -> Any:
            Many.seen.append(ctx.needs_input_grad)
            return tensors[0] * 1.0

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            Many.seen.append(ctx.needs_input_grad)
            return (g,) + (None,) * (len(ctx.needs_input_grad) - 1)

    args = [x if k % 3 == 0 else (c if k % 3 == 1 else 5) for k in range(70)]
    Many.apply(*args).sum().backward()
    expected = tuple(k % 3 == 0 for k in range(70))
    assert Many.seen == [expected, expected]
    np.testing.assert_array_equal(x.grad.numpy(), np.ones(3))  # (the first argument's gradient only)


def test_the_shared_needs_table_starts_again_past_its_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    from ctxgrad.autograd import _outputs

    monkeypatch.setattr(_outputs, "_NEEDS_MAX", 2)
    _outputs._NEEDS.clear()
    x = ctxgrad.ones(2, dtype=ctxgrad.float64, requires_grad=True)
    results = [ctxgrad.add(x, x), x * 2.0, ctxgrad.add(x, x, alpha=2.0), 2.0 * x]
    assert len(_outputs._NEEDS) <= 2
    assert [r.grad_fn._needs for r in results] == [(True, True), (True, False), (True, True), (True, False)]


def test_a_nodes_edges_are_one_flat_tuple() -> None:
    # Four entries per forward argument (node, output_nr, shape, dtype), in one tuple: no tuple
    # per argument for the cyclic collector to track.  A non-tensor argument's are None, 0,
    # None, None; the library reads one argument's edge through edge_at and edges_of.
    from ctxgrad.autograd._edges import edge_at, edges_of, flatten

    x = ctxgrad.ones(5, dtype=ctxgrad.float64, requires_grad=True)
    c = ctxgrad.ones(5, dtype=ctxgrad.float32)

    class AddScaled(Function):
        @staticmethod
        def forward(ctx: Any, a: Any, b: Any, k: float) -> Any:
            return a + b * k

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g, None, None

    total = AddScaled.apply(x, c, 2.0)
    node = total.grad_fn
    acc = node.next_functions[0][0]
    f64, f32 = np.dtype(np.float64), np.dtype(np.float32)
    assert node._edges == (acc, 0, (5,), f64, None, 0, (5,), f32, None, 0, None, None)
    assert not any(type(entry) is tuple and entry and isinstance(entry[0], Node) for entry in node._edges)
    assert edges_of(node) == ((acc, 0, (5,), f64), (None, 0, (5,), f32), None)
    assert [edge_at(node._edges, i) for i in range(3)] == list(edges_of(node))
    assert flatten(edges_of(node)) == node._edges
    assert node.next_functions == ((acc, 0), (None, 0))
    total.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.ones(5))

"""Property-based fuzzing: random expression graphs run on ctxgrad and on torch must agree,
and random custom Functions assembled from correct pieces must match finite differences.

The strategies and the interpreter are in ``_fuzz.py``.  By default the tests run the
Hypothesis profile ``ci`` (a few dozen examples each); ``--hypothesis-profile=long`` or
``CTXGRAD_FUZZ=long`` runs 10,000 examples per test without a deadline.

What a graph test compares, node by node: shape, dtype, ``requires_grad`` and values; then
the gradients of a weighted sum of the outputs with respect to every leaf (and which ones
are None); then, with ``create_graph=True``, the gradients of a random projection of those
gradients (second order).  Examples whose values leave a safe range, or come close to a
kink of a non-smooth op (a tie of ``maximum``, ``relu`` at 0, a ``clamp`` bound), are
skipped with ``assume``: there the two libraries may legitimately differ.

Mismatches the fuzzer found are kept below as plain regression tests with their minimal
example.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest
from _fuzz import (
    FunctionSpec,
    Graph,
    Leaf,
    Node,
    function_specs,
    fuzz_settings,
    graphs,
    kink_margin,
    loss_of,
    make_function,
    make_leaves,
    run_graph,
    spec_forward,
    spec_outputs,
)
from hypothesis import assume, event, given, note
from hypothesis.control import currently_in_test_context

import ctxgrad

torch = pytest.importorskip("torch")

#: Values beyond this magnitude, anywhere in a graph, make float32 rounding too coarse to compare.
MAX_MAGNITUDE = 1e4
#: The least distance from a kink (relative to 1) that an example must keep.
MIN_KINK_MARGIN = 1e-3
#: Ops after which the first gradient's ``requires_grad`` (with ``create_graph=True``) is known
#: to differ from torch's; each has a strict-xfail regression test at the end of this file.
GRAD_REQUIRES_GRAD_KNOWN_BUGS: frozenset[str] = frozenset()


def to_numpy(t: Any) -> np.ndarray:
    """A ctxgrad or torch tensor's values as float64 (torch's ZeroTensor gradients included)."""
    if isinstance(t, torch.Tensor):
        if t._is_zerotensor():
            # torch's .numpy(force=True) of some ZeroTensor gradients crashed the interpreter
            # (a segmentation fault in a long run): never read their storage
            return np.zeros(tuple(t.shape))
        return np.asarray(t.detach().numpy(), dtype=np.float64)
    return np.asarray(t.detach().numpy(), dtype=np.float64)


def dtype_name(dt: Any) -> str:
    return str(dt).removeprefix("torch.")


def tolerance(graph: Graph) -> float:
    """The normwise relative tolerance of a graph: float32 anywhere makes it coarse."""
    has_float32 = any(leaf.dtype == "float32" for leaf in graph.leaves) or any(
        n.op == "to_float32" for n in graph.nodes
    )
    return 2e-3 if has_float32 else 1e-7


def assert_close(ours: np.ndarray, theirs: np.ndarray, rtol: float, what: str, reference: str = "torch") -> None:
    """``max |ours - theirs| <= rtol * max(1, max |theirs|)``: normwise, so that a small
    element that is the difference of large ones is not held to a relative tolerance."""
    assert ours.shape == theirs.shape, f"{what}: shape {ours.shape} != {reference}'s {theirs.shape}"
    if ours.size == 0:
        return
    scale = max(1.0, float(np.max(np.abs(theirs))))
    error = float(np.max(np.abs(ours - theirs)))
    assert error <= rtol * scale, (
        f"{what}: max error {error:.3g} (scale {scale:.3g})\nours={ours}\n{reference}={theirs}"
    )


def run_both(graph: Graph) -> tuple[list[Any], list[Any], list[Any], list[Any]]:
    """``(ctxgrad leaves, ctxgrad values, torch leaves, torch values)``."""
    ours_leaves, theirs_leaves = make_leaves(ctxgrad, graph), make_leaves(torch, graph)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        ours = run_graph(ctxgrad, graph, ours_leaves)
    theirs = run_graph(torch, graph, theirs_leaves)
    return ours_leaves, ours, theirs_leaves, theirs


def require(condition: bool) -> None:
    """``assume(condition)`` inside a Hypothesis test; outside one (a fixed example), the
    example must satisfy it."""
    if currently_in_test_context():
        assume(condition)
    else:
        assert condition, "the fixed example is not a safe one"


def assume_safe(graph: Graph, theirs: Sequence[Any]) -> None:
    """Skip examples that leave the safe range or come close to a kink (judged on torch's values)."""
    arrays = [to_numpy(v) for v in theirs]
    for a in arrays:
        require(bool(np.all(np.isfinite(a))) and (a.size == 0 or float(np.max(np.abs(a))) <= MAX_MAGNITUDE))
    for v in graph.values:
        if isinstance(v, Node):
            margin = kink_margin(v, [arrays[a] for a in v.args])
            require(margin > MIN_KINK_MARGIN)


@dataclass
class Evaluation:
    """One library's run of a graph: every value, the loss, the first gradients of the loss
    with respect to the leaves that require grad (None where unused; ``create_graph=True``)
    and the second-order gradients (of a random projection of the first ones)."""

    values: list[Any]
    loss: Any
    grads: list[Any]
    second: list[Any]


def evaluate(lib: Any, graph: Graph, promote: bool = False) -> Evaluation:
    """Run ``graph`` with ``lib``; ``promote`` runs it all in float64 (the conditioning reference)."""
    wanted = [i for i, leaf in enumerate(graph.leaves) if leaf.requires_grad]
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        leaves = make_leaves(lib, graph, promote)
        values = run_graph(lib, graph, leaves, promote)
        loss = loss_of(lib, graph, values)
        if not loss.requires_grad:
            return Evaluation(values, loss, [], [])
        inputs = [leaves[i] for i in wanted]
        grads = list(lib.autograd.grad(loss, inputs, allow_unused=True, create_graph=True))
        rng = np.random.default_rng(graph.seed + 2)
        projected = None
        for i, g in zip(wanted, grads):
            p = rng.uniform(-1.0, 1.0, size=graph.leaves[i].shape)
            if g is not None:
                term = (g * lib.tensor(p)).sum()
                projected = term if projected is None else projected + term
        if projected is None or not projected.requires_grad:
            return Evaluation(values, loss, grads, [None] * len(wanted))
        second = list(lib.autograd.grad(projected, inputs, allow_unused=True))
    return Evaluation(values, loss, grads, second)


def arrays_of(graph: Graph, run: Evaluation) -> list[tuple[str, np.ndarray]]:
    """Every number of a run, labelled; a None gradient counts as zeros."""
    wanted = [i for i, leaf in enumerate(graph.leaves) if leaf.requires_grad]
    out = [(f"v{i}", to_numpy(v)) for i, v in enumerate(run.values)] + [("loss", to_numpy(run.loss))]
    for label, grads in (("grad", run.grads), ("second-order grad", run.second)):
        for i, g in zip(wanted, grads):
            out.append((f"{label} of leaf {i}", np.zeros(graph.leaves[i].shape) if g is None else to_numpy(g)))
    return out


def assume_well_conditioned(graph: Graph, theirs: Evaluation, rtol: float) -> None:
    """Skip float32 examples where torch itself, in float32, strays from its own float64 run by more
    than a quarter of the tolerance: rounding is amplified there (``sin`` of a large argument ...),
    and two correct float32 implementations may differ by more than the tolerance."""
    reference = evaluate(torch, graph, promote=True)
    for (what, a), (_, b) in zip(arrays_of(graph, theirs), arrays_of(graph, reference)):
        scale = max(1.0, float(np.max(np.abs(b)))) if b.size else 1.0
        factor = 10 if what.startswith("second") else 1
        require(b.size == 0 or float(np.max(np.abs(a - b))) <= factor * rtol / 4 * scale)


def compare_graph(graph: Graph) -> list[str]:
    """Run ``graph`` on both libraries and compare everything (see the module docstring);
    return what the example covered, as Hypothesis events."""
    theirs = evaluate(torch, graph)
    assume_safe(graph, theirs.values)
    rtol = tolerance(graph)
    if rtol > 1e-6:
        assume_well_conditioned(graph, theirs, rtol)
    ours = evaluate(ctxgrad, graph)
    for i, (a, b) in enumerate(zip(ours.values, theirs.values)):
        what = f"v{i}"
        assert tuple(a.shape) == tuple(b.shape), f"{what}: shape {tuple(a.shape)} != torch's {tuple(b.shape)}"
        assert dtype_name(a.dtype) == dtype_name(b.dtype), f"{what}: dtype {a.dtype} != torch's {b.dtype}"
        assert a.requires_grad == b.requires_grad, f"{what}: requires_grad {a.requires_grad} != torch's"
    assert ours.loss.requires_grad == theirs.loss.requires_grad
    for k, (g, h) in enumerate(zip(ours.grads, theirs.grads)):
        what = f"grad {k}"
        assert (g is None) == (h is None), f"{what}: ours is {g}, torch's is {h}"
        if h is None:
            continue
        assert dtype_name(g.dtype) == dtype_name(h.dtype), f"{what}: dtype {g.dtype} != torch's {h.dtype}"
        if not any(n.op in GRAD_REQUIRES_GRAD_KNOWN_BUGS for n in graph.nodes):
            assert g.requires_grad == h.requires_grad, f"{what}: requires_grad {g.requires_grad} != torch's"
    assert len(ours.second) == len(theirs.second)
    for (what, a), (_, b) in zip(arrays_of(graph, ours), arrays_of(graph, theirs)):
        assert_close(a, b, 10 * rtol if what.startswith("second") else rtol, what)
    return [
        "mixed float32 and float64" if len({leaf.dtype for leaf in graph.leaves}) > 1 else "one dtype",
        "second order compared" if any(h is not None for h in theirs.second) else "first order only",
    ]


def fuzz_graph(graph: Graph) -> None:
    note(repr(graph))
    for covered in compare_graph(graph):
        event(covered)


@given(graph=graphs())
@fuzz_settings()
def test_random_graph_matches_torch(graph: Graph) -> None:
    fuzz_graph(graph)


@given(graph=graphs(min_nodes=1, max_nodes=4))
@fuzz_settings()
def test_small_random_graph_matches_torch(graph: Graph) -> None:
    fuzz_graph(graph)


# --------------------------------------------------------------------------- custom Functions
def spec_inputs(spec: FunctionSpec) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(spec.seed)
    return rng.uniform(-1.5, 1.5, size=spec.x_shape), rng.uniform(-1.5, 1.5, size=spec.w_shape)


def weighted_loss(spec: FunctionSpec, outputs: Any) -> Any:
    outs = outputs if isinstance(outputs, tuple) else (outputs,)
    rng = np.random.default_rng(spec.seed + 1)
    return sum(((o * ctxgrad.tensor(rng.uniform(-1.0, 1.0, size=tuple(o.shape)))).sum() for o in outs), start=0.0)


def central_difference(f: Any, arrays: list[np.ndarray], which: int, eps: float = 1e-6) -> np.ndarray:
    """The gradient of the scalar ``f(*arrays)`` with respect to ``arrays[which]``."""
    base = arrays[which]
    out = np.zeros(base.shape)
    for idx in np.ndindex(*base.shape):
        plus, minus = base.copy(), base.copy()
        plus[idx] += eps
        minus[idx] -= eps
        out[idx] = f(*arrays[:which], plus, *arrays[which + 1 :]) - f(*arrays[:which], minus, *arrays[which + 1 :])
        out[idx] /= 2 * eps
    return out


@given(spec=function_specs())
@fuzz_settings()
def test_random_custom_function_matches_finite_differences(spec: FunctionSpec) -> None:
    note(repr(spec))
    calls: list[tuple[bool, ...]] = []
    fuzzed = make_function(spec, calls)
    x_values, w_values = spec_inputs(spec)
    rg_x, rg_w = spec.requires_grad

    def loss_value(xv: np.ndarray, wv: np.ndarray) -> float:
        with ctxgrad.no_grad():
            return float(weighted_loss(spec, fuzzed.apply(ctxgrad.tensor(xv), spec.c, ctxgrad.tensor(wv))).item())

    with ctxgrad.no_grad(), np.errstate(all="ignore"):
        intermediates = spec_forward(spec, ctxgrad.tensor(x_values), spec.c, ctxgrad.tensor(w_values))
    # exp(exp(exp(x))) and friends: finite differences mean nothing there
    assume(all(float(np.max(np.abs(h.numpy()))) <= 1e2 for h in intermediates))
    x = ctxgrad.tensor(x_values, requires_grad=rg_x)
    w = ctxgrad.tensor(w_values, requires_grad=rg_w)
    outputs = fuzzed.apply(x, spec.c, w)
    # the values are those of the same composition of built-in ops
    expected = spec_outputs(spec, spec_forward(spec, x, spec.c, w))
    for out, exp in zip(
        outputs if isinstance(outputs, tuple) else (outputs,),
        (expected if isinstance(expected, tuple) else (expected,)),
    ):
        assert_close(to_numpy(out), to_numpy(exp), 1e-12, "output", "the built-in ops")
    inputs = [t for t in (x, w) if t.requires_grad]
    grads = ctxgrad.autograd.grad(weighted_loss(spec, outputs), inputs)
    assert calls == [(rg_x, False, rg_w)], "backward runs once and sees needs_input_grad of (x, c, w)"

    # first order: finite differences in float64
    positions = [k for k, rg in enumerate((rg_x, rg_w)) if rg]
    for k, g in zip(positions, grads):
        numerical = central_difference(loss_value, [x_values, w_values], k)
        assert_close(to_numpy(g), numerical, 1e-5, f"gradient of {'xw'[k]}", "finite differences")

    # the same gradients through the built-in ops' own backward
    plain = ctxgrad.autograd.grad(weighted_loss(spec, expected), inputs)
    for g, p in zip(grads, plain):
        assert_close(to_numpy(g), to_numpy(p), 1e-10, "gradient", "the built-in ops")

    # second order, when backward saved only inputs and outputs (then its graph is complete)
    event("setup_context style" if spec.setup_context else "forward(ctx, ...) style")
    n = len(spec.pieces) + 1
    if not set(spec.saved) <= {0, n, spec.mid}:
        event("an intermediate saved: first order only")
        return
    projections = [np.random.default_rng(spec.seed + 2).uniform(-1, 1, size=tuple(t.shape)) for t in inputs]

    def first_order_projection(xv: np.ndarray, wv: np.ndarray) -> float:
        xt = ctxgrad.tensor(xv, requires_grad=rg_x)
        wt = ctxgrad.tensor(wv, requires_grad=rg_w)
        gs = ctxgrad.autograd.grad(
            weighted_loss(spec, fuzzed.apply(xt, spec.c, wt)), [t for t in (xt, wt) if t.requires_grad]
        )
        return float(sum(float((g.detach().numpy() * p).sum()) for g, p in zip(gs, projections)))

    first = ctxgrad.autograd.grad(weighted_loss(spec, fuzzed.apply(x, spec.c, w)), inputs, create_graph=True)
    projected = sum(((g * ctxgrad.tensor(p)).sum() for g, p in zip(first, projections)), start=0.0)
    if not getattr(projected, "requires_grad", False):
        return
    second = ctxgrad.autograd.grad(projected, inputs, allow_unused=True)
    event("second order checked")
    for k, g in zip(positions, second):
        numerical = central_difference(first_order_projection, [x_values, w_values], k, eps=1e-5)
        values = np.zeros(numerical.shape) if g is None else to_numpy(g)
        assert_close(values, numerical, 1e-4, f"second-order gradient of {'xw'[k]}", "finite differences")


def test_profiles_are_registered() -> None:
    from hypothesis import settings

    assert settings.get_profile("long").max_examples == 10_000
    assert settings.get_profile("long").deadline is None
    assert settings.get_profile("ci").max_examples < 100


def test_fuzz_environment_variable_selects_the_profile(monkeypatch: pytest.MonkeyPatch) -> None:
    from hypothesis import settings

    if settings.get_current_profile_name() in ("ci", "long"):
        pytest.skip("--hypothesis-profile chose the profile")
    monkeypatch.setenv("CTXGRAD_FUZZ", "long")
    assert fuzz_settings().max_examples == 10_000
    monkeypatch.delenv("CTXGRAD_FUZZ")
    assert fuzz_settings().max_examples == settings.get_profile("ci").max_examples


SIN_GRAPH = Graph((Leaf((3,), "float64", True), Node("sin", (0,), (), (3,))), (1,), 0)


class CosWithWrongDerivative(ctxgrad.autograd.Function):
    """``cos`` whose backward forgets the minus sign."""

    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        ctx.save_for_backward(x)
        return x.cos()

    @staticmethod
    def backward(ctx: Any, g: Any) -> Any:
        (x,) = ctx.saved_tensors
        return g * x.sin()


def sin_with(scale: float, cos: Any) -> Any:
    """``sin`` as a custom Function whose derivative is ``scale * cos(x)``."""

    class Sin(ctxgrad.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x.sin()

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            (x,) = ctx.saved_tensors
            return g * cos(x) * scale

    return Sin.apply


def test_comparison_catches_a_wrong_first_derivative(monkeypatch: pytest.MonkeyPatch) -> None:
    compare_graph(SIN_GRAPH)
    monkeypatch.setattr(ctxgrad, "sin", sin_with(1.001, ctxgrad.cos))
    with pytest.raises(AssertionError, match="grad of leaf 0"):
        compare_graph(SIN_GRAPH)


def test_comparison_catches_a_wrong_second_derivative(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ctxgrad, "sin", sin_with(1.0, CosWithWrongDerivative.apply))
    with pytest.raises(AssertionError, match="second-order grad of leaf 0"):
        compare_graph(SIN_GRAPH)


def test_interpreter_sees_a_wrong_gradient() -> None:
    """The comparison can fail: a graph whose torch side is perturbed is caught."""
    graph = Graph((Leaf((3,), "float64", True), Node("sin", (0,), (), (3,))), (1,), 0)
    _, ours, _, theirs = run_both(graph)
    assert_close(to_numpy(ours[1]), to_numpy(theirs[1]), 1e-12, "sin")
    with pytest.raises(AssertionError, match="max error"):
        assert_close(to_numpy(ours[1]), to_numpy(theirs[1]) * (1 + 1e-6) + 1e-6, 1e-9, "sin")
    assert math.isinf(kink_margin(graph.nodes[0], [np.zeros(3)]))


# --------------------------------------------------------------------------- regressions found by the fuzzer
def test_leaky_relu_gradient_requires_grad_with_create_graph() -> None:
    for lib in (torch, ctxgrad):
        x = lib.tensor(0.7, requires_grad=True)
        (g,) = lib.autograd.grad(lib.nn.functional.leaky_relu(x, 0.5), x, create_graph=True)
        assert g.requires_grad, lib.__name__
        (gg,) = lib.autograd.grad(g, x)
        assert float(gg) == 0.0


def test_tensor_select_picks_one_index_of_a_dimension() -> None:
    x = ctxgrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = x.select(1, -1)
    y.sum().backward()
    assert y.tolist() == [2.0, 4.0]
    assert x.grad.tolist() == [[0.0, 1.0], [0.0, 1.0]]


def test_float32_example_with_amplified_rounding_is_skipped_not_failed() -> None:
    """Found by the long run: ``expm1`` in float32 differs from torch's by one ulp, and
    ``sin((x * x + 0.5) ** 5.95)`` (an argument near 5500) amplifies it to 3e-3.  Torch's own
    float32 run strays as far from its float64 run, so the example is rejected as ill-conditioned."""
    graph = Graph(
        (
            Leaf((), "float32", True),
            Node("clamp", (0,), (-1.0, None), ()),
            Node("expm1", (1,), (), ()),
            Node("relu", (2,), (), ()),
            Node("pow_tensor", (0, 3), (), ()),
            Node("sin", (4,), (), ()),
        ),
        (5,),
        11924617,
    )
    with pytest.raises(AssertionError, match="not a safe one"):
        compare_graph(graph)


def test_mixed_dtypes_and_shared_subexpressions_match_torch() -> None:
    """A fixed graph with what the fuzzer draws: float32 and float64 leaves, a node used twice
    (``v2`` in ``cat``), broadcasting, a reduction with keepdim, ``@`` across dtypes and ``where``."""
    graph = Graph(
        (
            Leaf((2, 3), "float32", True),
            Leaf((3,), "float64", True),
            Node("mul", (0, 1), (), (2, 3)),
            Node("cat", (2, 0, 2), (0,), (6, 3)),
            Node("logsumexp", (3,), (1, True), (6, 1)),
            Node("matmul", (3, 1), (), (6,)),
            Node("where", (4, 3, 1), (), (6, 3)),
            Node("softmax", (6,), (-1,), (6, 3)),
        ),
        (5, 7),
        3,
    )
    assert compare_graph(graph) == ["mixed float32 and float64", "second order compared"]

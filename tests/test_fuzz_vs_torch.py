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

The leaves may be float32, float64, int64 or bool (where torch refuses an op, ctxgrad must
raise the same type of exception; the example is then set aside), complex (a graph over the
ops torch takes complex for, with the loss ``Re(sum(out * w))``), or hold special values: then
nothing is skipped, values must have NaN, the infinities and the signs of zeros where torch
has them, and gradients are compared where both are finite (torch's own kernels disagree on
where a NaN input's gradient is NaN).

Mismatches the fuzzer found are kept below as plain regression tests with their minimal
example (strict xfails for the ones not fixed).
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
    ALL_OPS,
    COMPLEX_DTYPES,
    COMPLEX_OPS,
    INPLACE_OPS,
    OVERLAPPING_VIEWS,
    REAL_DTYPES,
    REDUCTIONS,
    SAVED_OPERAND_OPS,
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
    view_shape,
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
#: torch's errors that ctxgrad does better than (it computes the result): a part of the message.
TORCH_LIMITATIONS = (
    # where(c, real, complex): torch's backward refuses the complex gradient of the real input,
    # ctxgrad gives it the real part (test_where_of_a_real_and_a_complex_tensor_has_gradients)
    "(input_is_complex == grad_is_complex)",
)


def to_numpy(t: Any) -> np.ndarray:
    """A ctxgrad or torch tensor's values as float64, or complex128 (torch's ZeroTensor
    gradients included)."""
    wide = np.complex128 if t.is_complex() else np.float64
    if isinstance(t, torch.Tensor):
        if t._is_zerotensor():
            # torch's .numpy(force=True) of some ZeroTensor gradients crashed the interpreter
            # (a segmentation fault in a long run): never read their storage
            return np.zeros(tuple(t.shape), dtype=wide)
        return np.asarray(t.detach().resolve_conj().numpy(), dtype=wide)
    return np.asarray(t.detach().numpy(), dtype=wide)


def dtype_name(dt: Any) -> str:
    return str(dt).removeprefix("torch.").removeprefix("ctxgrad.")


def tolerance(graph: Graph) -> float:
    """The normwise relative tolerance of a graph: float32 anywhere makes it coarse."""
    # (integer and bool leaves make float32 values: the default dtype of exp(int) ...)
    has_float32 = any(leaf.dtype in ("float32", "complex64", "int64", "bool") for leaf in graph.leaves) or any(
        n.op == "to_float32" for n in graph.nodes
    )
    return 2e-3 if has_float32 else 1e-7


def assert_close(
    ours: np.ndarray, theirs: np.ndarray, rtol: float, what: str, reference: str = "torch", finite_only: bool = False
) -> None:
    """``max |ours - theirs| <= rtol * max(1, max |theirs|)``: normwise, so that a small
    element that is the difference of large ones is not held to a relative tolerance."""
    assert ours.shape == theirs.shape, f"{what}: shape {ours.shape} != {reference}'s {theirs.shape}"
    if ours.size == 0:
        return
    if finite_only:
        # (gradients at NaN inputs: torch's vectorized and scalar kernels differ, so where
        # the NaN and the infinities go is no oracle there; the finite elements are compared)
        finite = np.isfinite(theirs) & np.isfinite(ours)
        ours, theirs = np.where(finite, ours, 0), np.where(finite, theirs, 0)
    elif not np.all(np.isfinite(theirs)) or not np.all(np.isfinite(ours)):
        # special values: NaN where torch has NaN, the same infinities, the finite rest close;
        # a complex number is only finite or not (torch's complex arithmetic spreads NaN to the
        # other part where IEEE does not: 0-d + (0 + nan j) is nan + nan j)
        if np.iscomplexobj(theirs) or np.iscomplexobj(ours):
            assert np.array_equal(np.isfinite(ours), np.isfinite(theirs)), (
                f"{what}: not finite at other places\nours={ours}\n{reference}={theirs}"
            )
        for part in () if np.iscomplexobj(theirs) or np.iscomplexobj(ours) else ("real",):
            a, b = getattr(np.asarray(ours), part), getattr(np.asarray(theirs), part)
            assert np.array_equal(np.isnan(a), np.isnan(b)), (
                f"{what} ({part}): NaN at other places\nours={ours}\n{reference}={theirs}"
            )
            infinite = np.isinf(b)
            assert np.array_equal(a[infinite], b[infinite]) and not np.any(np.isinf(a[~infinite])), (
                f"{what} ({part}): other infinities\nours={ours}\n{reference}={theirs}"
            )
        finite = np.isfinite(theirs) & np.isfinite(ours)
        ours, theirs = np.where(finite, ours, 0), np.where(finite, theirs, 0)
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
                term = term.real if term.is_complex() else term
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


def evaluate_both(graph: Graph) -> Evaluation:
    """torch's run of ``graph``; where torch raises, ctxgrad must raise the same type of
    exception, and the example is then set aside."""
    try:
        return evaluate(torch, graph)
    except Exception as exc:
        theirs = exc
    try:
        evaluate(ctxgrad, graph)
    except Exception as exc:
        assert type(exc) is type(theirs) or isinstance(exc, type(theirs)), (
            f"torch raises {type(theirs).__name__}: {theirs}\nctxgrad raises {type(exc).__name__}: {exc}"
        )
    else:
        if not any(limit in str(theirs) for limit in TORCH_LIMITATIONS):
            raise AssertionError(f"torch raises {type(theirs).__name__}: {theirs}\nctxgrad does not")
    record(f"torch refuses it: {type(theirs).__name__}")
    require(False)
    raise AssertionError("unreachable")


def record(label: str) -> None:
    """A Hypothesis event inside a test (a fixed example runs outside one)."""
    if currently_in_test_context():
        event(label)


#: Ops after which the sign of a zero is not specified: those that pick one of equal values
#: (0.0 or -0.0?) and the sums (BLAS adds in its own order: -0.0 + 0.0 or 0.0 + -0.0).
UNSIGNED_ZERO_OPS = frozenset(
    {"amax", "amin", "max_dim", "maximum", "minimum", "clamp", "sort", "sort_descending", "matmul", "softmax",
     "log_softmax", "cumsum", *REDUCTIONS}
)  # fmt: skip


def ties_of_zeros(graph: Graph) -> bool:
    return any(n.op in UNSIGNED_ZERO_OPS for n in graph.nodes)


def has_special(graph: Graph) -> bool:
    return any(leaf.special for leaf in graph.leaves)


def assert_same_zero_signs(ours: np.ndarray, theirs: np.ndarray, what: str) -> None:
    """Where torch's value is ±0, ours is the same zero."""
    for part in ("real", "imag") if np.iscomplexobj(theirs) else ("real",):
        a, b = getattr(ours, part), getattr(theirs, part)
        zero = b == 0
        assert np.array_equal(np.signbit(a[zero]), np.signbit(b[zero])), (
            f"{what}: the sign of a zero\nours={ours}\ntorch={theirs}"
        )


def compare_graph(graph: Graph) -> list[str]:
    """Run ``graph`` on both libraries and compare everything (see the module docstring);
    return what the example covered, as Hypothesis events."""
    theirs = evaluate_both(graph)
    if has_special(graph):
        # NaN, ±inf and ±0 are the point: no range or kink is avoided, and the values and
        # gradients must have NaN, the infinities and (values) the signs of zeros where torch's have them
        return compare_evaluations(graph, theirs, tolerance(graph)) + ["special values"]
    assume_safe(graph, theirs.values)
    rtol = tolerance(graph)
    if rtol > 1e-6:
        assume_well_conditioned(graph, theirs, rtol)
    return compare_evaluations(graph, theirs, rtol)


def compare_evaluations(graph: Graph, theirs: Evaluation, rtol: float) -> list[str]:
    """ctxgrad's run of ``graph`` against torch's ``theirs``."""
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
        if has_special(graph) and what.startswith("second"):
            # torch's backward of sgn (in the double backward of abs, l1_loss, norm(1)) is an
            # "efficient zero tensor", and 0 * inf is 0 there, NaN in ctxgrad (a design gap,
            # docs/differences.md section 25): test_zero_gradient_times_inf_is_zero_as_in_torch
            continue
        # (the loss of complex values is finite or not as torch's complex products spread NaN)
        complex_graph = any(leaf.dtype.startswith("complex") for leaf in graph.leaves)
        finite_only = has_special(graph) and not what.startswith("v") and (what != "loss" or complex_graph)
        assert_close(a, b, 10 * rtol if what.startswith("second") else rtol, what, finite_only=finite_only)
        if has_special(graph) and what.startswith("v") and not np.iscomplexobj(b) and not ties_of_zeros(graph):
            assert_same_zero_signs(a, b, what)
    kinds = {leaf.dtype for leaf in graph.leaves}
    for kind, label in (("int64", "integer leaves"), ("bool", "bool leaves")):
        if kind in kinds:
            record(label)
    if any(k.startswith("complex") for k in kinds):
        record("complex leaves")
    if any(n.op in ("inplace_on_view", "view_of_inplace") for n in graph.nodes):
        record("in-place on a view")
    if any(n.op == "view_of_inplace" and n.params[0][0] in OVERLAPPING_VIEWS for n in graph.nodes):
        record("overlapping view of a changed base")
    return [
        "mixed float32 and float64" if len({leaf.dtype for leaf in graph.leaves}) > 1 else "one dtype",
        "second order compared" if any(h is not None for h in theirs.second) else "first order only",
    ]


def fuzz_graph(graph: Graph) -> None:
    note(repr(graph))
    for covered in compare_graph(graph):
        event(covered)


@given(graph=graphs(dtypes=REAL_DTYPES))
@fuzz_settings()
def test_random_graph_matches_torch(graph: Graph) -> None:
    fuzz_graph(graph)


@given(graph=graphs(min_nodes=1, max_nodes=4, dtypes=REAL_DTYPES))
@fuzz_settings()
def test_small_random_graph_matches_torch(graph: Graph) -> None:
    fuzz_graph(graph)


#: The ops of the saved-operand graphs: an operand changed in place after use, among the
#: ops that feed it and the ones that use the result.
SAVED_OPERAND_GRAPH_OPS = (*SAVED_OPERAND_OPS, *SAVED_OPERAND_OPS, "mul", "matmul", "sin", "reshape", "select", "sum")


@given(graph=graphs(min_nodes=1, max_nodes=5, ops=SAVED_OPERAND_GRAPH_OPS, dtypes=REAL_DTYPES))
@fuzz_settings()
def test_random_graph_changing_a_used_operand_in_place_matches_torch(graph: Graph) -> None:
    """Inputs that do not require grad mixed in, and an operand changed in place after an op
    used it: backward works exactly where torch's does (each op keeps what its needed
    gradients read), and raises torch's version error elsewhere."""
    fuzz_graph(graph)


@given(graph=graphs(min_nodes=1, max_nodes=8, ops=COMPLEX_OPS, dtypes=COMPLEX_DTYPES))
@fuzz_settings()
def test_random_complex_graph_matches_torch(graph: Graph) -> None:
    fuzz_graph(graph)


#: The ops of the special-value graphs: all but ``gelu``, whose float32 kernel in torch gives
#: NaN for inf (its float64 one gives inf, as ctxgrad does), and ``relu``, whose gradient at
#: NaN is 0 in ctxgrad and 1 in torch (a documented difference, docs/differences.md).
SPECIAL_OPS = tuple(op for op in ALL_OPS if op not in ("gelu", "relu"))


@given(graph=graphs(min_nodes=1, max_nodes=4, ops=SPECIAL_OPS, dtypes=("float64", "float32"), special=True))
@fuzz_settings()
def test_special_values_match_torch(graph: Graph) -> None:
    fuzz_graph(graph)


#: The complex ops of the special-value graphs: not ``pow``, since torch's complex power of
#: an infinite base to the exponent 0 is NaN (C99's cpow, NumPy's and ctxgrad's: 1).
COMPLEX_SPECIAL_OPS = tuple(op for op in COMPLEX_OPS if op not in ("pow_tensor", "pow_pos"))


@given(graph=graphs(min_nodes=1, max_nodes=4, ops=COMPLEX_SPECIAL_OPS, dtypes=("complex128", "float64"), special=True))
@fuzz_settings()
def test_complex_special_values_match_torch(graph: Graph) -> None:
    fuzz_graph(graph)


#: The ops of the in-place graphs: the in-place ones, between a few that make and mix values.
IN_PLACE_GRAPH_OPS = (*INPLACE_OPS, *INPLACE_OPS, "sin", "mul", "add", "sum", "expand", "transpose")


@given(graph=graphs(min_nodes=1, max_nodes=5, ops=IN_PLACE_GRAPH_OPS, dtypes=("float64", "float32")))
@fuzz_settings()
def test_random_in_place_graph_matches_torch(graph: Graph) -> None:
    """In-place changes through views and of bases whose views are read later, among them
    views that read an element more than once (expand, unfold, as_strided, ...)."""
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


# The fuzzer's dtypes, in-place ops on views, special values and complex leaves (found by it).
def test_subtraction_with_a_bool_tensor_is_refused() -> None:
    b, f = ctxgrad.tensor([True, False]), ctxgrad.tensor([1.0, 2.0])
    for program in (lambda: 0.5 - b, lambda: b - f, lambda: f - b, lambda: ctxgrad.sub(b, 1)):
        with pytest.raises(RuntimeError, match="Subtraction, the `-` operator, with a bool tensor is not supported"):
            program()


def test_relu_and_abs_refuse_bool_and_square_of_bool_is_int64() -> None:
    b = ctxgrad.tensor([True, False])
    with pytest.raises(RuntimeError, match="Boolean inputs not supported for relu"):
        ctxgrad.relu(b)
    with pytest.raises(NotImplementedError, match="\"abs_cpu\" not implemented for 'Bool'"):
        ctxgrad.abs(b)
    assert ctxgrad.square(b).dtype == ctxgrad.int64 == torch.square(torch.tensor([True])).numpy().dtype


@pytest.mark.parametrize("lib", ["ctxgrad", "torch"])
def test_a_view_requires_grad_once_its_base_is_changed_by_a_tensor_requiring_grad(lib: str) -> None:
    m: Any = ctxgrad if lib == "ctxgrad" else torch
    x = m.tensor([[1.0, 2.0], [3.0, 4.0]])
    y = m.tensor(2.0, requires_grad=True)
    out = x.clone()
    view = out[0]
    out.mul_(y)
    assert view.requires_grad
    (g,) = m.autograd.grad((-view).sum(), y)  # used in an op before anything else asks
    assert float(g) == -3.0


def test_elu_second_derivative_at_zero_is_zero_as_in_torch() -> None:
    results = []
    for m in (ctxgrad, torch):
        x = m.tensor([0.0, -0.0, -0.5, 0.5], dtype=m.float64, requires_grad=True)
        (g,) = m.autograd.grad(m.nn.functional.elu(x, alpha=0.5).sum(), x, create_graph=True)
        (gg,) = m.autograd.grad(g.sum(), x)
        results.append(gg.numpy().tolist())
    assert results[0] == results[1] and results[0][:2] == [0.0, 0.0]


def test_float64_and_complex64_make_complex128_as_in_torch() -> None:
    a, z = ctxgrad.tensor([1.0], dtype=ctxgrad.float64), ctxgrad.tensor([1j], dtype=ctxgrad.complex64)
    for out in (a + z, ctxgrad.cat([a, z]), ctxgrad.stack([a[0], z[0]]), a + z[0]):
        assert out.dtype == ctxgrad.complex128
    assert (a.float() + z).dtype == ctxgrad.complex64 and (z + a[0]).dtype == ctxgrad.complex64


def test_cumsum_turns_negative_zero_into_zero_as_in_torch() -> None:
    out = ctxgrad.cumsum(ctxgrad.tensor([-0.0, 1.0]), 0)
    assert not np.signbit(out.numpy()[0]) and not np.signbit(torch.cumsum(torch.tensor([-0.0, 1.0]), 0)[0].item())


def test_abs_gradient_at_an_infinite_complex_number_is_nan_as_in_torch() -> None:
    z = ctxgrad.tensor(np.array([complex(np.inf, 1.0), 3 + 4j]), requires_grad=True)
    z.abs().sum().backward()
    assert np.isnan(z.grad.numpy()[0]) and z.grad.numpy()[1] == 0.6 + 0.8j


def test_the_gradient_of_zero_is_a_constant_as_in_torch() -> None:
    for m in (ctxgrad, torch):
        x = m.tensor([1.0, 2.0], dtype=m.float64, requires_grad=True)
        out = x.clone()
        out.zero_()
        (g,) = m.autograd.grad((out.exp() * 2).sum(), x, create_graph=True)
        assert not g.requires_grad and g.tolist() == [0.0, 0.0], m.__name__


def test_where_of_a_real_and_a_complex_tensor_has_gradients() -> None:
    """torch's backward refuses it (the real input gets a complex gradient: "Expected
    isFloatingType(grad.scalar_type()) || (input_is_complex == grad_is_complex)"); ctxgrad
    gives the real input the real part, as for any real input of a complex computation."""
    x = ctxgrad.tensor([1.0, -1.0], dtype=ctxgrad.float64, requires_grad=True)
    z = ctxgrad.tensor(np.array([1 + 1j, 2 - 1j]), requires_grad=True)
    out = ctxgrad.where(ctxgrad.tensor([True, False]), x, z)
    (out * ctxgrad.tensor(np.array([2 - 1j, 3 + 1j]))).real.sum().backward()
    assert x.grad.tolist() == [2.0, 0.0] and z.grad.numpy().tolist() == [0j, 3 - 1j]
    with pytest.raises(RuntimeError, match=r"input_is_complex == grad_is_complex"):
        xt = torch.tensor([1.0, -1.0], dtype=torch.float64, requires_grad=True)
        zt = torch.tensor(np.array([1 + 1j, 2 - 1j]), requires_grad=True)
        out_t = torch.where(torch.tensor([True, False]), xt, zt)
        (out_t * torch.tensor(np.array([2 - 1j, 3 + 1j]))).real.sum().backward()


#: The ops whose double backward goes through torch's sgn backward (an efficient zero tensor),
#: as docs/differences.md section 25 lists them, and one (sign) whose zero is an ordinary one.
SGN_ZERO_OPS: dict[str, Any] = {
    "abs": lambda m, u: u.abs().sum(),
    "l1_loss": lambda m, u: m.nn.functional.l1_loss(u, m.zeros_like(u)),
    "norm(1)": lambda m, u: u.norm(1),
    "norm(inf)": lambda m, u: u.norm(float("inf")),
    "vector_norm(1)": lambda m, u: m.linalg.vector_norm(u, 1),
    "matrix_norm(1)": lambda m, u: m.linalg.matrix_norm(u.reshape(1, -1), 1),
}


def _second_derivative_at_inf(m: Any, f: Any) -> list[float]:
    x = m.tensor([math.inf, 2.0, 1.0], dtype=m.float64, requires_grad=True)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        (g,) = m.autograd.grad(f(m, x * x), x, create_graph=True)
        (h,) = m.autograd.grad(g.sum(), x)
    return [float(v) for v in h.tolist()]


@pytest.mark.parametrize("op", SGN_ZERO_OPS)
def test_a_zero_gradient_meeting_inf_is_nan_where_torchs_is_an_efficient_zero(op: str) -> None:
    """The documented difference: torch's is finite at the infinite element, ctxgrad's NaN;
    the finite elements agree."""
    ours, theirs = (
        _second_derivative_at_inf(ctxgrad, SGN_ZERO_OPS[op]),
        _second_derivative_at_inf(torch, SGN_ZERO_OPS[op]),
    )
    assert math.isnan(ours[0]) and math.isfinite(theirs[0])
    assert ours[1:] == theirs[1:]


def test_an_ordinary_zero_gradient_meeting_inf_is_nan_in_both() -> None:
    f = lambda m, u: (u.sign() * u).sum()  # noqa: E731  (sign's backward: zeros_like(grad) in torch)
    ours, theirs = _second_derivative_at_inf(ctxgrad, f), _second_derivative_at_inf(torch, f)
    assert math.isnan(ours[0]) and math.isnan(theirs[0]) and ours[1:] == theirs[1:]


@pytest.mark.xfail(
    strict=True,
    reason="a design gap (docs/differences.md section 25): torch's backward of sgn (abs's derivative) returns "
    "an efficient zero tensor, which mul keeps zero, so 0 * inf is 0 in the second derivative of abs(x * x) at "
    "inf; ctxgrad's zero gradient is an array of zeros, and 0 * inf is NaN",
)
def test_zero_gradient_times_inf_is_zero_as_in_torch() -> None:
    graph = Graph(
        (Leaf((), "float64", True, special=True), Node("mul_self", (0, 0), (), ()), Node("abs", (1,), (), ())),
        (2,),
        0,
    )
    ours, theirs = evaluate(ctxgrad, graph), evaluate(torch, graph)
    assert np.isinf(float(to_numpy(ours.values[0])))
    assert_close(to_numpy(ours.second[0]), to_numpy(theirs.second[0]), 1e-12, "second-order grad")


def test_prod_over_a_dimension_of_one_with_a_zero_has_a_constant_gradient() -> None:
    for m in (ctxgrad, torch):
        x = m.tensor([[0.0, -0.6]], dtype=m.float64, requires_grad=True)
        (g,) = m.autograd.grad(x.prod(0).sum(), x, create_graph=True)
        assert g.tolist() == [[1.0, 1.0]]
        assert not g.requires_grad, m.__name__


def test_in_place_ops_on_views_and_integer_leaves_match_torch() -> None:
    """A fixed graph with the new kinds of node and leaf: an in-place op through a view of a
    clone, a view taken before an in-place change of its base, an int64 and a bool leaf."""
    graph = Graph(
        (
            Leaf((2, 3), "float64", True),
            Leaf((3,), "float64", True),
            Leaf((2, 3), "int64", False),
            Leaf((3,), "bool", False),
            Node("inplace_on_view", (0, 1), (("row", 1), "mul_"), (2, 3)),
            Node("view_of_inplace", (4, 2), (("transpose",), "add_"), (3, 2)),
            Node("mul", (4, 3), (), (2, 3)),
            Node("mul", (5, 5), (), (3, 2)),
        ),
        (6, 7),
        5,
    )
    assert compare_graph(graph) == ["mixed float32 and float64", "second order compared"]


@pytest.mark.parametrize(
    "view",
    [("expand", 3), ("expand_as", 2), ("broadcast_to", 2), ("unfold", 1, 2, 1), ("as_strided", 3, 3, 2, 1)],
    ids=lambda v: v[0],
)
def test_an_overlapping_view_of_a_base_changed_in_place_matches_torch(view: tuple[Any, ...]) -> None:
    """The class the in-place graphs draw since issue 25: a view that reads an element more
    than once, taken of a clone that is then changed in place (its gradient, at first and
    second order, adds every reading)."""
    shape = (2, 4)
    graph = Graph(
        (
            Leaf(shape, "float64", True),
            Leaf(shape, "float64", True),
            Node("view_of_inplace", (0, 1), (view, "mul_"), view_shape(shape, view)),
            Node("mul", (2, 2), (), view_shape(shape, view)),
        ),
        (3,),
        11,
    )
    assert compare_graph(graph) == ["one dtype", "second order compared"]


@pytest.mark.parametrize(
    "binop,side,frozen,works",
    [
        ("mul", "left", True, True),
        ("matmul", "left", True, True),
        ("div", "left", True, True),
        ("matmul", "right", True, False),
        ("mul", "left", False, False),
        ("atan2", "left", True, False),
    ],
)
def test_an_operand_changed_in_place_after_use_matches_torch(binop: str, side: str, frozen: bool, works: bool) -> None:
    """Found by the saved-operand graphs (the first one on the first run): ``t = x * 1.0;
    out = t * c; t.add_(0.5)`` with ``c`` a leaf that does not require grad raised a version
    error at backward where torch, which saves only ``c``, gives the gradient.  Where a needed
    gradient reads the changed operand (the other one requires grad, or ``atan2`` reads
    both), both raise."""
    right_shape = (3,)
    out_shape = (2,) if binop == "matmul" else (2, 3)
    graph = Graph(
        (
            Leaf((2, 3), "float64", True),
            Leaf(right_shape, "float64", not frozen),
            Node("mutate_after_use", (0, 1), (binop, side, "add_"), out_shape),
            Node("sin", (2,), (), out_shape),
        ),
        (3,),
        7,
    )
    if works:
        assert compare_graph(graph)[1] == "second order compared"
    else:
        with pytest.raises(AssertionError, match="the fixed example is not a safe one"):
            compare_graph(graph)  # torch refuses it (a version error), and so does ctxgrad
    theirs_error = None
    try:
        evaluate(torch, graph)
    except RuntimeError as exc:
        theirs_error = str(exc)
    assert (theirs_error is None) == works
    if not works:
        assert theirs_error is not None and "modified by an inplace operation" in theirs_error


@pytest.mark.xfail(
    strict=True,
    reason="torch's matmul of a vector and a batch of matrices folds the batch into one matrix, a copy, and "
    "saves that copy: changing the batch in place after the product is harmless there; ctxgrad saves the "
    "operand itself and raises its version error (loud, never a wrong gradient)",
)
def test_batched_matmul_operand_changed_after_use() -> None:
    graph = Graph(
        (
            Leaf((2,), "float64", True),
            Leaf((2, 2, 2), "float64", False),
            Node("mutate_after_use", (0, 1), ("matmul", "right", "add_"), (2, 2)),
        ),
        (2,),
        0,
    )
    assert compare_graph(graph)[1] == "first order only"

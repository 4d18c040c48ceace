"""ctxgrad.autograd.trace: watch backward run, node by node, with gradients worked by hand."""

from __future__ import annotations

import re
import threading
import warnings
from typing import Any

import numpy as np
import pytest

import ctxgrad
from ctxgrad._state import _state
from ctxgrad.autograd import Function, trace
from ctxgrad.autograd.anomaly_mode import run_checked
from ctxgrad.autograd.tracing import GradInfo, TraceStep, summarize


def leaf(*values: float) -> ctxgrad.Tensor:
    return ctxgrad.tensor(list(values), dtype=ctxgrad.float64, requires_grad=True)


def values(info: GradInfo | None) -> list[float] | None:
    return None if info is None else info.tensor.array.tolist()


def by_leaf(t: trace) -> dict[str, TraceStep]:
    return {s.leaf_name: s for s in t if s.leaf_name is not None}


def small_graph() -> tuple[ctxgrad.Tensor, ctxgrad.Tensor, ctxgrad.Tensor]:
    """loss = sum(x * y + x) at x = [1, 2], y = [3, 4]: d loss/dx = y + 1 = [4, 5] (by two
    paths, [3, 4] through the product and [1, 1] directly), d loss/dy = x = [1, 2]."""
    x, y = leaf(1.0, 2.0), leaf(3.0, 4.0)
    return x, y, (x * y + x).sum()


def test_each_node_is_recorded_in_the_order_it_ran_with_its_gradients() -> None:
    x, y, loss = small_graph()
    with trace(params={"x": x, "y": y}) as t:
        loss.backward()
    assert [s.name for s in t][:3] == ["SumBackward0", "AddBackward0", "MulBackward0"]
    assert sorted(s.name for s in t[3:]) == ["AccumulateGrad", "AccumulateGrad"]
    assert [s.index for s in t] == [1, 2, 3, 4, 5]

    total, add, mul = t[0], t[1], t[2]
    assert [values(g) for g in total.grads_in] == [1.0]  # the seed, d loss/d loss
    assert total.grads_in[0] is not None and total.grads_in[0].shape == ()
    assert [(r.to, values(r.grad)) for r in total.results] == [("AddBackward0", [1.0, 1.0])]

    assert [values(g) for g in add.grads_in] == [[1.0, 1.0]]
    assert [(r.input, r.to, r.leaf_name, values(r.grad)) for r in add.results] == [
        (0, "MulBackward0", None, [1.0, 1.0]),
        (1, "AccumulateGrad", "x", [1.0, 1.0]),
    ]
    assert [(r.input, r.to, r.leaf_name, values(r.grad)) for r in mul.results] == [
        (0, "AccumulateGrad", "x", [3.0, 4.0]),  # y
        (1, "AccumulateGrad", "y", [1.0, 2.0]),  # x
    ]
    leaves = by_leaf(t)
    assert values(leaves["x"].grads_in[0]) == [4.0, 5.0]  # the two paths, summed
    assert values(leaves["y"].grads_in[0]) == [1.0, 2.0]
    assert leaves["x"].accumulated and leaves["y"].accumulated
    assert leaves["x"].results == ()
    assert x.grad is not None and x.grad.tolist() == [4.0, 5.0]
    assert all(s.seconds >= 0 and s.error is None for s in t)
    assert t.total_seconds == pytest.approx(sum(s.seconds for s in t))


def test_a_gradient_info_gives_shape_dtype_and_a_summary() -> None:
    _, _, loss = small_graph()
    with trace() as t:
        loss.backward()
    info = t[2].results[0].grad
    assert info is not None
    assert (info.shape, info.dtype, info.summary) == ((2,), "float64", "[3, 4]")
    assert str(info) == "[2] float64 [3, 4]"
    assert not info.tensor.requires_grad
    assert summarize(np.arange(12.0)) == "mean 5.5, min 0, max 11"
    assert summarize(np.array([1 + 1j] * 8)) == "mean 1+1j, max |g| 1.414"


def test_an_input_that_needs_no_gradient_goes_nowhere() -> None:
    x = leaf(1.0, 2.0)
    w = ctxgrad.tensor([5.0, 6.0], dtype=ctxgrad.float64)
    with trace() as t:
        (x * w).sum().backward()
    mul = t[1]
    assert [(r.input, r.to) for r in mul.results] == [(0, "AccumulateGrad"), (1, None)]
    assert mul.results[1].to_id is None and mul.results[1].grad is None
    assert "(needs no gradient)" in str(t)
    assert values(mul.results[0].grad) == [5.0, 6.0]
    assert mul.results[0].leaf_name == "leaf #1"  # not in params: numbered


def test_a_node_with_several_outputs_records_a_gradient_per_output() -> None:
    class Halves(Function):
        @staticmethod
        def forward(ctx: Any, x: ctxgrad.Tensor) -> tuple[ctxgrad.Tensor, ctxgrad.Tensor]:
            return x * 0.5, x * 0.5

        @staticmethod
        def backward(ctx: Any, ga: ctxgrad.Tensor, gb: ctxgrad.Tensor | None) -> ctxgrad.Tensor:
            return ga * 0.5 if gb is None else (ga + gb) * 0.5

    x = leaf(4.0)
    a, _ = Halves.apply(x)
    with trace() as t:
        (a * 3.0).sum().backward()
    halves = next(s for s in t if s.name == "HalvesBackward")
    # only output 0 got a gradient; the engine gives backward zeros for output 1
    assert [values(g) for g in halves.grads_in] == [[3.0], None]
    assert values(halves.results[0].grad) == [1.5]
    mul = next(s for s in t if s.name == "MulBackward0")
    assert mul.results[0].output_nr == 0 and mul.results[0].to == "HalvesBackward"


def test_autograd_grad_is_traced_and_the_inputs_accumulate_grad_does_not_run() -> None:
    x, y, loss = small_graph()
    with trace(params={"x": x, "y": y}) as t:
        (gx,) = ctxgrad.autograd.grad(loss, [x])
    assert gx.tolist() == [4.0, 5.0]
    assert [s.name for s in t] == ["SumBackward0", "AddBackward0", "MulBackward0"]
    assert "AccumulateGrad x, not run" in str(t)


def test_create_graph_and_double_backward_are_traced() -> None:
    x = leaf(1.0, 2.0)
    loss = (x**3).sum()
    with trace(params={"x": x}) as first:
        (g,) = ctxgrad.autograd.grad(loss, x, create_graph=True)
    assert g.requires_grad
    pow_step = next(s for s in first if s.name == "PowBackward0")
    assert values(pow_step.results[0].grad) == [3.0, 12.0]  # 3 x^2
    assert pow_step.results[0].grad is not None and not pow_step.results[0].grad.tensor.requires_grad
    with trace(params={"x": x}) as second:
        g.sum().backward()
    assert x.grad is not None and x.grad.tolist() == [6.0, 12.0]  # 6 x
    assert values(by_leaf(second)["x"].grads_in[0]) == [6.0, 12.0]
    assert second[0].name == "SumBackward0"


def test_print_shows_a_table_of_the_steps() -> None:
    x, y, loss = small_graph()
    with trace(params={"x": x, "y": y}) as t:
        loss.backward()
    text = re.sub(r"\d+\.\d+ (µs|ms)", "T", str(t))
    lines = text.splitlines()
    assert re.split(r"\s{2,}", lines[0]) == ["step", "node", "gradient in", "returned", "went to", "time"]
    rows = [re.split(r"\s{2,}", line.strip()) for line in lines[1:6]]
    assert rows[0] == ["1", "SumBackward0", "[] float64 1", "0: [2] float64 [1, 1]", "AddBackward0, step 2", "T"]
    assert rows[1] == ["2", "AddBackward0", "[2] float64 [1, 1]", "0: [2] float64 [1, 1]", "MulBackward0, step 3", "T"]
    assert rows[2][0] == "1: [2] float64 [1, 1]" and re.fullmatch(r"AccumulateGrad x, step [45]", rows[2][1])
    assert rows[3][:3] == ["3", "MulBackward0", "[2] float64 [1, 1]"]
    assert any(
        re.fullmatch(r"\d\s+AccumulateGrad\s+\[2\] float64 \[4, 5\]\s+-\s+x\.grad\s+T", line.strip()) for line in lines
    )
    assert lines[-1] == "5 nodes ran in T"
    assert t._repr_mimebundle_() == {"text/plain": str(t)}
    assert str(trace()) == "(no backward node ran while the trace was open)"


def test_to_dot_colours_the_nodes_by_the_order_they_ran() -> None:
    from test_viz import parse

    x, y, loss = small_graph()
    with trace(params={"x": x, "y": y}) as t:
        loss.backward()
    nodes, edges = parse(str(t.to_dot()))
    ran = {a["label"].split("\n")[0]: a["fillcolor"] for a in nodes.values() if a.get("label", "")[:1].isdigit()}
    assert ran["1. SumBackward0"] == "#ffffb2"  # first: light yellow
    assert ran["2. AddBackward0"] not in ("#ffffb2", "#fd8d3c")
    assert sorted(ran)[-1].startswith("5. AccumulateGrad") and ran[sorted(ran)[-1]] == "#fd8d3c"  # last: orange
    leaves = sorted(a["label"] for a in nodes.values() if a.get("fillcolor") == "lightblue")
    assert leaves == ["x\n (2)", "y\n (2)"]
    labels = {i: a["label"].split("\n")[0] for i, a in nodes.items()}
    flows = sorted((labels[a], labels[b], attrs) for a, b, attrs in edges)
    assert ("1. SumBackward0", "2. AddBackward0", 'label="[2]"') in flows
    assert ("2. AddBackward0", "3. MulBackward0", 'label="[2]"') in flows
    assert sum(1 for f in flows if f[2] == 'label=".grad +="') == 2


def test_a_node_that_raises_is_recorded_with_its_error() -> None:
    class Breaks(Function):
        @staticmethod
        def forward(ctx: Any, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
            return x * 1.0

        @staticmethod
        def backward(ctx: Any, grad: ctxgrad.Tensor) -> ctxgrad.Tensor:
            raise ValueError("boom")

    x = leaf(1.0)
    loss = Breaks.apply(x).sum()
    with trace() as t, pytest.raises(ValueError, match="boom"):
        loss.backward()
    assert [(s.name, s.error) for s in t] == [("SumBackward0", None), ("BreaksBackward", "ValueError: boom")]
    assert "raised ValueError: boom" in str(t)


def test_with_anomaly_mode_the_trace_runs_its_checks_and_records_the_nan() -> None:
    class MakesNan(Function):
        @staticmethod
        def forward(ctx: Any, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
            return x * 1.0

        @staticmethod
        def backward(ctx: Any, grad: ctxgrad.Tensor) -> ctxgrad.Tensor:
            return grad * float("nan")

    x = leaf(1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loss = MakesNan.apply(x).sum()
        with ctxgrad.autograd.detect_anomaly():
            with trace() as t, pytest.raises(RuntimeError, match="returned nan values in its 0th output"):
                loss.backward()
            assert _state.modes.node_runner is run_checked  # the trace closed: anomaly mode's alone
    assert t[-1].name == "MakesNanBackward"
    assert t[-1].error == "RuntimeError: Function 'MakesNanBackward' returned nan values in its 0th output."


def test_no_trace_no_runner_and_traces_nest() -> None:
    assert _state.modes.node_runner is None and _state.modes.tracer is None  # the engine calls node._run directly
    x, _, loss = small_graph()
    with trace() as outer:
        assert _state.modes.node_runner == outer._run_node
        with trace() as inner:
            assert _state.modes.node_runner == inner._run_node
            loss.backward(retain_graph=True)
        assert _state.modes.node_runner == outer._run_node
        loss.backward()
    assert _state.modes.node_runner is None and _state.modes.tracer is None
    assert len(inner) == 5 and len(outer) == 5  # each recorded one backward
    assert x.grad is not None and x.grad.tolist() == [8.0, 10.0]


def test_a_trace_is_per_thread() -> None:
    _, _, loss = small_graph()
    _, _, loss2 = small_graph()
    seen_there: list[Any] = []
    ready, go = threading.Event(), threading.Event()

    def other_thread() -> None:
        seen_there.append(_state.modes.node_runner)
        with trace() as mine:
            ready.set()
            go.wait(10)
            loss2.backward()
        seen_there.append(len(mine))

    with trace() as here:
        worker = threading.Thread(target=other_thread)
        worker.start()
        ready.wait(10)
        loss.backward()
        go.set()
        worker.join(10)
    assert seen_there == [None, 5]  # the main thread's trace did not reach the worker
    assert len(here) == 5  # and the worker's backward did not reach the main thread's


def test_bad_params_name_trace() -> None:
    with pytest.raises(TypeError, match=r"trace: params\['x'\] must be a Tensor, got int"):
        trace(params={"x": 1})  # type: ignore[dict-item]

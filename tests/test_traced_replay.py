"""ctxgrad.trace: record the Functions a Python function applies, replay them on new inputs.

(``tests/test_trace.py`` is about ``ctxgrad.autograd.trace``, which watches backward run.)
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import ctxgrad
from ctxgrad._state import _state
from ctxgrad.autograd import Function
from ctxgrad.autograd import forward_ad as fwAD
from ctxgrad.trace import TracedFunction, TracerWarning


def t64(values: Any, requires_grad: bool = False) -> ctxgrad.Tensor:
    return ctxgrad.tensor(values, dtype=ctxgrad.float64, requires_grad=requires_grad)


def mlp(w: ctxgrad.Tensor, b: ctxgrad.Tensor) -> Any:
    def f(x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        return ((x @ w + b).tanh() ** 2).mean()

    return f


RNG = np.random.default_rng(0)
W0, B0 = RNG.normal(size=(3, 2)), RNG.normal(size=2)
X1, X2 = RNG.normal(size=(4, 3)), RNG.normal(size=(4, 3))


def test_a_replay_gives_the_values_and_gradients_of_running_fn() -> None:
    w, b = t64(W0, True), t64(B0, True)
    f = mlp(w, b)
    traced = ctxgrad.trace(f, t64(X1))
    out = traced(t64(X2))
    out.backward()
    assert out.grad_fn is not None and out.grad_fn.name() == "TracedBackward"
    got = (out.item(), w.grad.numpy().copy(), b.grad.numpy().copy())  # type: ignore[union-attr]
    w.grad = b.grad = None
    eager = f(t64(X2))
    eager.backward()
    assert got[0] == pytest.approx(eager.item(), rel=1e-14)
    np.testing.assert_allclose(got[1], w.grad.numpy(), rtol=1e-13)  # type: ignore[union-attr]
    np.testing.assert_allclose(got[2], b.grad.numpy(), rtol=1e-13)  # type: ignore[union-attr]


def test_a_replay_matches_torch() -> None:
    torch = pytest.importorskip("torch")
    w, b = t64(W0, True), t64(B0, True)
    traced = ctxgrad.trace(mlp(w, b), t64(X1))
    x = t64(X2, True)
    (gx, gw) = ctxgrad.autograd.grad(traced(x), [x, w])
    tw, tb = torch.tensor(W0, requires_grad=True), torch.tensor(B0)
    tx = torch.tensor(X2, requires_grad=True)
    ref = torch.autograd.grad(((tx @ tw + tb).tanh() ** 2).mean(), [tx, tw])
    np.testing.assert_allclose(gx.numpy(), ref[0].numpy(), rtol=1e-12)
    np.testing.assert_allclose(gw.numpy(), ref[1].numpy(), rtol=1e-12)


def test_the_python_code_of_fn_does_not_run_again() -> None:
    calls = []

    def f(x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        calls.append(1)
        return x * 2 + 1

    traced = ctxgrad.trace(f, t64([1.0, 2.0]))
    assert traced(t64([5.0, 6.0])).tolist() == [11.0, 13.0]
    assert len(calls) == 1


def test_inputs_by_position_or_by_name_and_pytree_outputs() -> None:
    def f(x: ctxgrad.Tensor, y: ctxgrad.Tensor, scale: float = 2.0) -> Any:
        return {"sum": x + y, "parts": (x * scale, [y * scale])}

    traced = ctxgrad.trace(f, t64([1.0]), y=t64([2.0]))
    for out in (traced(t64([3.0]), t64([4.0])), traced(y=t64([4.0]), x=t64([3.0]))):
        assert out["sum"].tolist() == [7.0]
        assert out["parts"][0].tolist() == [6.0]
        assert out["parts"][1][0].tolist() == [8.0]
    assert len(traced.graphs) == 1  # (one recording served both)


def test_double_backward_through_a_replay() -> None:
    torch = pytest.importorskip("torch")

    def f(x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        return (x.sin() * x * x).sum()

    traced = ctxgrad.trace(f, t64([0.1, 0.2]))
    x = t64([0.5, -1.5], True)
    (g,) = ctxgrad.autograd.grad(traced(x), x, create_graph=True)
    (gg,) = ctxgrad.autograd.grad(g.sum(), x)
    tx = torch.tensor([0.5, -1.5], dtype=torch.float64, requires_grad=True)
    (tg,) = torch.autograd.grad((tx.sin() * tx * tx).sum(), tx, create_graph=True)
    (tgg,) = torch.autograd.grad(tg.sum(), tx)
    np.testing.assert_allclose(g.detach().numpy(), tg.detach().numpy(), rtol=1e-13)
    np.testing.assert_allclose(gg.numpy(), tgg.numpy(), rtol=1e-13)


def test_forward_mode_through_a_replay() -> None:
    def f(x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        return x.exp() * x

    traced = ctxgrad.trace(f, t64([0.0, 0.0]))
    x, v = t64([0.5, 2.0]), t64([1.0, -1.0])
    with fwAD.dual_level():
        out = traced(fwAD.make_dual(x, v))
        primal, tangent = fwAD.unpack_dual(out)
    expected = np.exp([0.5, 2.0]) * (np.array([0.5, 2.0]) + 1) * np.array([1.0, -1.0])
    np.testing.assert_allclose(tangent.numpy(), expected, rtol=1e-14)
    np.testing.assert_allclose(primal.numpy(), np.exp([0.5, 2.0]) * [0.5, 2.0], rtol=1e-14)


def test_vmap_over_a_replay() -> None:
    traced = ctxgrad.trace(lambda x: (x * x).sum(), t64([1.0, 2.0]))
    out = ctxgrad.vmap(traced)(t64([[1.0, 2.0], [3.0, 4.0]]))
    assert out.tolist() == [5.0, 25.0]


def test_vmap_over_a_replay_that_contains_a_replay() -> None:
    inner = ctxgrad.trace(lambda x: (x * x).sum(), t64([1.0, 2.0]))
    outer = ctxgrad.trace(lambda x, y: inner(x) * y, t64([1.0, 2.0]), t64(1.0))
    assert [s.cls.__name__ for s in graph_of(outer).steps] == ["Traced", "Mul"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # (no fallback to vmap's loop)
        out = ctxgrad.vmap(outer, in_dims=(0, None))(t64([[1.0, 2.0], [3.0, 4.0]]), t64(2.0))
    assert out.tolist() == [10.0, 50.0]


class CtxSquare(Function):
    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx: Any, g: ctxgrad.Tensor) -> ctxgrad.Tensor:
        (x,) = ctx.saved_tensors
        return 2 * x * g


class SetupScale(Function):
    @staticmethod
    def forward(x: ctxgrad.Tensor, k: float) -> ctxgrad.Tensor:
        return x * k

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> None:
        ctx.k = inputs[1]

    @staticmethod
    def backward(ctx: Any, g: ctxgrad.Tensor) -> tuple[ctxgrad.Tensor, None]:
        return g * ctx.k, None


@pytest.mark.parametrize("fast", [True, False])
def test_custom_functions_of_both_styles_are_recorded_as_one_step_each(fast: bool) -> None:
    def f(x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        return SetupScale.apply(CtxSquare.apply(x), 3.0).sum()

    traced = ctxgrad.trace(f, t64([1.0, 1.0], True), fast=fast)
    assert graph_of(traced).steps[0].cls is CtxSquare  # (the x * x inside its forward is not a step)
    assert [s.cls.__name__ for s in graph_of(traced).steps] == ["CtxSquare", "SetupScale", "Sum"]
    x = t64([2.0, -3.0], True)
    out = traced(x)
    out.backward()
    assert out.item() == 3 * (4 + 9)
    assert x.grad.tolist() == [12.0, -18.0]  # type: ignore[union-attr]
    assert (out.grad_fn.name() == "TracedBackward") is fast  # type: ignore[union-attr]


def graph_of(traced: TracedFunction) -> Any:
    assert traced.graph is not None
    return traced.graph


def test_step_by_step_replay_builds_one_node_per_step() -> None:
    traced = ctxgrad.trace(lambda x: (x * 2).exp(), t64([1.0]), fast=False)
    out = traced(t64([0.5], True))
    assert out.grad_fn.name() == "ExpBackward0"  # type: ignore[union-attr]
    assert out.grad_fn.next_functions[0][0].name() == "MulBackward0"  # type: ignore[union-attr]


def test_a_closed_over_parameter_is_a_live_input_updated_in_place_between_replays() -> None:
    w = t64([1.0, 2.0], True)
    traced = ctxgrad.trace(lambda x: (x * w).sum(), t64([1.0, 1.0]))
    x = t64([3.0, 4.0])
    for _ in range(3):
        loss = traced(x)
        assert loss.item() == pytest.approx(float((x.numpy() * w.detach().numpy()).sum()))
        loss.backward()
        assert w.grad.tolist() == [3.0, 4.0]  # type: ignore[union-attr]
        with ctxgrad.no_grad():
            w -= 0.1 * w.grad  # type: ignore[operator]  # (an optimizer step, in place)
        w.grad = None
    opt_w = t64([1.0, 2.0], True)
    opt = ctxgrad.optim.SGD([opt_w], lr=0.1)
    traced = ctxgrad.trace(lambda x: (x * opt_w).sum(), x)
    for _ in range(3):
        opt.zero_grad()
        traced(x).backward()
        opt.step()
    np.testing.assert_allclose(opt_w.detach().numpy(), w.detach().numpy(), rtol=1e-14)


def test_a_parameter_that_starts_to_require_grad_traces_again() -> None:
    w = t64([1.0, 2.0])
    traced = ctxgrad.trace(lambda x: (x * w).sum(), t64([1.0, 1.0]))
    w.requires_grad_()
    traced(t64([3.0, 4.0])).backward()
    assert w.grad.tolist() == [3.0, 4.0]  # type: ignore[union-attr]
    assert len(traced.graphs) == 1  # (the new recording replaced the old)


def test_constants_made_inside_fn_are_kept() -> None:
    def f(x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        return x + ctxgrad.tensor([10.0, 20.0], dtype=ctxgrad.float64) * ctxgrad.ones(2, dtype=ctxgrad.float64)

    traced = ctxgrad.trace(f, t64([0.0, 0.0]))
    assert traced(t64([1.0, 2.0])).tolist() == [11.0, 22.0]


def test_a_new_shape_or_dtype_traces_again() -> None:
    calls = []

    def f(x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        calls.append(x.shape)
        return x * 3

    traced = ctxgrad.trace(f, t64([1.0]))
    assert traced(t64([1.0, 2.0])).tolist() == [3.0, 6.0]
    assert traced(ctxgrad.tensor([1.0])).dtype == ctxgrad.float32
    assert traced(t64([4.0, 5.0])).tolist() == [12.0, 15.0]
    assert len(calls) == 3 and len(traced.graphs) == 3
    assert repr(traced) == "<ctxgrad.trace of f: 3 recordings>"


def test_strict_raises_naming_the_argument_expected_and_got() -> None:
    traced = ctxgrad.trace(lambda x, y: x * y, t64([1.0]), t64([2.0, 3.0]), strict=True)
    with pytest.raises(RuntimeError) as e:
        traced(t64([1.0]), t64([1.0, 2.0, 3.0]))
    assert str(e.value) == (
        "ctxgrad.trace(<lambda>): argument y is a tensor of shape (3,) and dtype float64, but the trace was "
        "recorded with a tensor of shape (2,) and dtype float64 (strict=True: no re-trace; without it a new "
        "shape or dtype traces again)"
    )
    with pytest.raises(RuntimeError, match="argument x is a tensor of shape \\(1,\\) and dtype float32"):
        traced(ctxgrad.tensor([1.0]), t64([1.0, 2.0]))


def test_reading_a_value_while_tracing_warns_naming_the_line() -> None:
    def f(x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        if x.sum().item() > 0:  # the line the warning names
            return x * 2
        return x * -1

    with pytest.warns(TracerWarning, match=r"item\(\) read a tensor's value while f was traced") as record:
        traced = ctxgrad.trace(f, t64([1.0]))
    assert record[0].filename == __file__
    assert record[0].lineno == f.__code__.co_firstlineno + 1
    assert traced(t64([-1.0])).tolist() == [-2.0]  # the branch was frozen, as the warning says


@pytest.mark.parametrize(
    "read", [lambda t: bool(t > 0), lambda t: float(t), lambda t: t.tolist(), lambda t: t.detach().numpy()]
)
def test_each_kind_of_value_read_warns(read: Any) -> None:
    def f(x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        read(x)
        return x + 1

    with pytest.warns(TracerWarning, match="read a tensor's value"):
        ctxgrad.trace(f, t64(1.0))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        read(t64(1.0))  # (outside a trace: no warning)


def test_a_tensor_made_from_a_traced_one_without_a_function_warns() -> None:
    with pytest.warns(TracerWarning, match="made from a traced tensor without a Function"):
        ctxgrad.trace(lambda x: x[:1] * ctxgrad.as_tensor(x.array[1:]), t64([1.0, 2.0]))


def test_detach_and_data_are_replayed_on_the_new_input() -> None:
    def f(x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        return x * x.detach() + x.data

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        traced = ctxgrad.trace(f, t64([1.0, 2.0], requires_grad=True))
    x = t64([3.0, -1.0], requires_grad=True)
    traced(x).sum().backward()
    assert x.grad is not None and x.grad.tolist() == [3.0, -1.0]  # (no gradient through the detached factor)
    assert traced(x).tolist() == f(x).tolist() == [12.0, 0.0]


def test_value_reads_inside_a_functions_forward_do_not_warn() -> None:
    class ReadsItem(Function):
        @staticmethod
        def forward(ctx: Any, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
            return x * x.sum().item()

        @staticmethod
        def backward(ctx: Any, g: ctxgrad.Tensor) -> ctxgrad.Tensor:
            return g

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        traced = ctxgrad.trace(lambda x: ReadsItem.apply(x), t64([1.0, 2.0]))
    assert traced(t64([2.0, 2.0])).tolist() == [8.0, 8.0]  # (its forward ran again)


def test_in_place_ops_and_views_replay_step_by_step() -> None:
    def f(x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        y = x * 1.0
        y[0] = 5.0
        y.mul_(2)
        return y.T.sum(0)

    traced = ctxgrad.trace(f, t64([[1.0, 2.0], [3.0, 4.0]]))
    assert not graph_of(traced).fast
    x = t64([[1.0, 1.0], [2.0, 2.0]], True)
    out = traced(x)
    out.sum().backward()
    assert out.tolist() == [20.0, 8.0] == f(x).tolist()
    assert x.grad.tolist() == [[0.0, 0.0], [2.0, 2.0]]  # type: ignore[union-attr]  # (row 0 overwritten)


def test_an_output_changed_in_place_after_a_fast_replay_is_caught_at_backward() -> None:
    traced = ctxgrad.trace(lambda x: x.tanh(), t64([1.0]))
    out = traced(t64([0.5], True))
    out.add_(1)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()


def test_the_graph_prints_and_draws() -> None:
    w = t64([1.0, 2.0], True)

    def model(x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        return (x * w).relu()

    traced = ctxgrad.trace(model, t64([1.0, 2.0]))
    assert str(traced.graph) == (
        "trace of model: 1 input, 2 steps\n"
        "  %0 = input 'x'                float64[2]\n"
        "  %1 = tensor from outside      float64[2] requires grad\n"
        "  %2 = Mul(%0, %1)              float64[2]\n"
        "  %3 = Relu(%2)                 float64[2]\n"
        "  return %3"
    )
    source = graph_of(traced).to_dot().source
    assert "s0 [label=Mul shape=box]" in source and "v1 -> s0" in source and "s1 -> out3" in source


def test_tracing_leaves_nothing_open_and_the_matrix_trace_is_still_there() -> None:
    with pytest.raises(ZeroDivisionError):
        ctxgrad.trace(lambda x: x * (1 / 0), t64([1.0]))
    assert _state.modes.recorder is None
    m = t64([[1.0, 2.0], [3.0, 4.0]], True)
    assert ctxgrad.trace(input=m).item() == 5.0
    out = ctxgrad.trace(m)
    out.backward()
    assert out.item() == 5.0 and m.grad.tolist() == [[1.0, 0.0], [0.0, 1.0]]  # type: ignore[union-attr]


def test_the_matrix_trace_refuses_as_torch_does() -> None:
    torch = pytest.importorskip("torch")
    for call in (lambda m: m.trace([1.0]), lambda m: m.trace()):
        with pytest.raises(TypeError) as ours:
            call(ctxgrad)
        with pytest.raises(TypeError) as theirs:
            call(torch)
        assert str(ours.value) == str(theirs.value)


def test_bad_calls_raise_naming_the_problem() -> None:
    traced = ctxgrad.trace(lambda x: x + 1, t64([1.0]))
    with pytest.raises(TypeError, match=r"ctxgrad.trace\(<lambda>\): missing a required argument: 'x'"):
        traced()
    with pytest.raises(TypeError, match=r"takes a tensor .* or a function and its example inputs"):
        ctxgrad.trace([1.0, 2.0], t64([1.0]))
    with pytest.raises(TypeError, match="missing a required argument: 'y'"):
        ctxgrad.trace(lambda x, y: x + y, t64([1.0]))


def test_a_backward_inside_fn_is_refused() -> None:
    def f(x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        y = x * x
        (g,) = ctxgrad.autograd.grad(y.sum(), x)
        return g

    with pytest.raises(RuntimeError, match="ran a backward pass while being traced"):
        ctxgrad.trace(f, t64([1.0], True))
    assert _state.modes.recorder is None


def test_a_replayed_graph_is_freed_after_backward() -> None:
    traced = ctxgrad.trace(lambda x: (x * 2).sin().sum(), t64([1.0], True))
    out = traced(t64([0.3], True))
    out.backward(retain_graph=True)
    assert out.grad_fn.run is not None  # type: ignore[union-attr]  # (kept for the next backward)
    out.backward()
    assert out.grad_fn.run is None  # type: ignore[union-attr]  # (the replay's values are freed)
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        out.backward()


class MaskInAttribute(Function):
    """Keeps a tensor made in forward as a ctx attribute (a plan cannot replay that)."""

    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        ctx.mask = ctxgrad.as_tensor((x.array > 0).astype(x.array.dtype))
        return x * ctx.mask

    @staticmethod
    def backward(ctx: Any, g: ctxgrad.Tensor) -> ctxgrad.Tensor:
        return g * ctx.mask


class ReadsInBackward(Function):
    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        ctx.save_for_backward(x)
        return x * 3

    @staticmethod
    def backward(ctx: Any, g: ctxgrad.Tensor) -> ctxgrad.Tensor:
        (x,) = ctx.saved_tensors
        return g * 3 if x.sum().item() > 0 else g * -1  # (a value read: no plan)


@pytest.mark.filterwarnings("ignore:MaskInAttribute stores a Tensor")
@pytest.mark.parametrize(
    ("name", "fn", "plan"),
    [
        ("chain", lambda x, w: ((x * 1.5 + 0.1).tanh() * w).sum(), True),
        ("fan-in and broadcasting", lambda x, w: ((x * x + w) * (x - w.sin())).mean(), True),
        ("matmul", lambda x, w: (x.reshape(2, 2) @ w.reshape(2, 2)).exp().sum(), True),
        ("a ctx tensor attribute", lambda x, w: MaskInAttribute.apply(x * w).sum(), False),
        ("a value read in backward", lambda x, w: ReadsInBackward.apply(x + w).sum(), False),
    ],
)
def test_later_backwards_replay_the_recorded_backward_ops_and_stay_right(name: str, fn: Any, plan: bool) -> None:
    w = t64([0.5, -1.0, 2.0, 0.25], True)
    traced = ctxgrad.trace(lambda x: fn(x, w), t64([1.0, 1.0, 1.0, 1.0], True))
    for values in ([0.3, -0.2, 1.1, 2.0], [-1.0, 0.5, 0.25, -0.75], [2.0, 2.0, -3.0, 0.1]):
        x = t64(values, True)
        gx, gw = ctxgrad.autograd.grad(traced(x), [x, w])
        ex, ew = ctxgrad.autograd.grad(fn(x, w), [x, w])
        np.testing.assert_allclose(gx.numpy(), ex.numpy(), rtol=1e-14, err_msg=name)
        np.testing.assert_allclose(gw.numpy(), ew.numpy(), rtol=1e-14, err_msg=name)
    (recorded,) = graph_of(traced).backward_plans.values()
    assert (recorded is not None) is plan


def test_a_view_inside_is_replayed_on_the_fast_path_but_a_view_returned_is_not() -> None:
    inside = ctxgrad.trace(lambda x: (x.reshape(2, 2) @ x.reshape(2, 2).T).sum(), t64([1.0, 2.0, 3.0, 4.0]))
    assert graph_of(inside).fast
    x = t64([1.0, 0.0, 2.0, 1.0], True)
    inside(x).backward()
    m = x.detach().numpy().reshape(2, 2)
    # d/dX sum(X X^T) at (a, b) = 2 * sum_i X[i, b]: each row is twice the column sums
    np.testing.assert_allclose(x.grad.numpy(), (2 * np.ones((2, 2)) @ m).ravel())  # type: ignore[union-attr]
    returned = ctxgrad.trace(lambda x: (x * 2).reshape(2, 2), t64([1.0, 2.0, 3.0, 4.0]))
    assert not graph_of(returned).fast
    assert returned(t64([1.0, 2.0, 3.0, 4.0])).tolist() == [[2.0, 4.0], [6.0, 8.0]]


def test_a_retained_replay_backs_up_twice_with_the_same_gradients() -> None:
    traced = ctxgrad.trace(lambda x: (x.exp() * x).sum(), t64([1.0, 2.0], True))
    x = t64([0.5, 1.5], True)
    out = traced(x)
    out.backward(retain_graph=True)
    first = x.grad.numpy().copy()  # type: ignore[union-attr]
    out.backward()
    np.testing.assert_allclose(x.grad.numpy(), 2 * first, rtol=1e-15)  # type: ignore[union-attr]
    np.testing.assert_allclose(first, np.exp([0.5, 1.5]) * (np.array([0.5, 1.5]) + 1), rtol=1e-14)


def test_a_gradient_that_is_also_an_input_does_not_confuse_the_recorded_backward() -> None:
    traced = ctxgrad.trace(lambda x, w: x * w, t64([1.0, 1.0]), t64([1.0, 1.0], True))
    for k, values in enumerate(([1.0, 2.0], [3.0, -1.0], [0.5, 0.25])):
        x, w = t64(values), t64([2.0, 3.0], True)
        seed = x if k == 0 else t64([1.0, -1.0])  # (first the input x itself)
        traced(x, w).backward(seed)
        np.testing.assert_allclose(w.grad.numpy(), x.numpy() * seed.numpy())  # type: ignore[union-attr]
    traced = ctxgrad.trace(lambda x: x * x, t64([1.0, 1.0], True))
    x = t64([0.5, 4.0], True)
    y = traced(x)
    y.backward(y.detach())  # the seed is the output's own values
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.array([0.5, 4.0]) ** 3)  # type: ignore[union-attr]


def test_a_replay_inside_a_trace_is_one_step_and_its_backward_there_is_refused() -> None:
    inner = ctxgrad.trace(lambda x: x * x, t64([1.0], True))
    outer = ctxgrad.trace(lambda x: inner(x) + 1, t64([1.0], True))
    assert [s.cls.__name__ for s in graph_of(outer).steps] == ["Traced", "Add"]
    x = t64([3.0], True)
    outer(x).backward()
    assert x.grad.tolist() == [6.0]  # type: ignore[union-attr]

    def differentiates(x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        (g,) = ctxgrad.autograd.grad(inner(x), x)
        return g

    with pytest.raises(RuntimeError, match="ran a backward pass while being traced"):
        ctxgrad.trace(differentiates, t64([1.0], True))
    assert _state.modes.recorder is None


def test_a_fast_replays_graph_is_freed_by_reference_counting() -> None:
    import gc
    import weakref

    traced = ctxgrad.trace(lambda x: (x * 2).tanh() * x, t64([1.0, 2.0], True))
    gc.disable()
    try:
        x = t64([0.5, 1.5], True)
        out = traced(x)
        node = weakref.ref(out.grad_fn)  # type: ignore[arg-type]
        saved = weakref.ref(out.grad_fn.run.values[3])  # type: ignore[union-attr]  # (the last step's own output)
        out.sum().backward()
        del out
        assert node() is None and saved() is None
    finally:
        gc.enable()


def test_a_trace_records_only_its_own_thread() -> None:
    import threading

    started, other_done = threading.Event(), threading.Event()
    results: list[Any] = []

    def other() -> None:
        started.wait()
        results.append((t64([1.0]) * 5).exp())  # ops in another thread while the trace is open
        other_done.set()

    def f(x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        started.set()
        other_done.wait(10)
        return x + 1

    thread = threading.Thread(target=other)
    thread.start()
    traced = ctxgrad.trace(f, t64([1.0]))
    thread.join()
    assert [s.cls.__name__ for s in graph_of(traced).steps] == ["Add"]
    assert results[0].item() == pytest.approx(np.exp(5.0))

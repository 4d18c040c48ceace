"""ctxgrad.trace: a fast replay of elementwise ufunc ops runs as generated NumPy code
(``ctxgrad._trace_program``), and gives exactly what running the function gives.

A replay is lowered once its first backward has recorded the ops that backward applies;
values and gradients are compared bit for bit with running ``fn`` eagerly, since each
generated line is the ufunc call the Function's ``forward`` makes.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ctxgrad
from ctxgrad.trace import TracedFunction

Program = Callable[..., ctxgrad.Tensor]


def tensor(values: Any, dtype: Any = ctxgrad.float64, requires_grad: bool = False) -> ctxgrad.Tensor:
    return ctxgrad.tensor(values, dtype=dtype, requires_grad=requires_grad)


def graph_of(traced: TracedFunction) -> Any:
    assert traced.graph is not None
    return traced.graph


def run_kind(out: ctxgrad.Tensor) -> str:
    """How the replay that made ``out`` ran: ``_LoweredRun`` (generated code) or ``_Run``."""
    return type(out.grad_fn.run).__name__  # type: ignore[union-attr]


def eager_and_replays(
    fn: Program, inputs: list[list[Any]], dtype: Any, seeds: int = 3
) -> tuple[TracedFunction, list[tuple[str, np.ndarray, list[np.ndarray]]]]:
    """Trace ``fn`` on the first inputs, then replay it ``seeds`` times on each set of inputs
    and run it eagerly: per replay, how it ran, and that the output and every input's
    gradient equal the eager ones bit for bit."""
    traced = ctxgrad.trace(fn, *[tensor(v, dtype, True) for v in inputs[0]])
    runs = []
    for k in range(seeds):
        for values in inputs:
            xs = [tensor(v, dtype, True) for v in values]
            out = traced(*xs)
            kind = run_kind(out)
            out.sum().backward()
            got = [x.grad.numpy().copy() for x in xs]  # type: ignore[union-attr]
            es = [tensor(v, dtype, True) for v in values]
            eager = fn(*es)
            eager.sum().backward()
            assert out.dtype == eager.dtype and out.shape == eager.shape
            assert np.array_equal(out.detach().numpy(), eager.detach().numpy(), equal_nan=True), (k, values)
            for g, e in zip(got, es):
                assert np.array_equal(g, e.grad.numpy(), equal_nan=True), (k, values)  # type: ignore[union-attr]
            runs.append((kind, out.detach().numpy(), got))
    return traced, runs


def w2_chain(x: ctxgrad.Tensor) -> ctxgrad.Tensor:
    y = x
    for i in range(1, 41):
        y = y * 1.0001 + 0.001
        if i % 10 == 0:
            y = ctxgrad.tanh(y)
    return y


@pytest.mark.parametrize("dtype", [ctxgrad.float64, ctxgrad.float32, ctxgrad.float16])
def test_the_w2_chain_replays_as_generated_code_bit_for_bit(dtype: Any) -> None:
    inputs = [[np.linspace(-2, 2, 16)], [np.linspace(0.5, -3, 16)]]
    traced, runs = eager_and_replays(w2_chain, inputs, dtype)
    # the first replay runs the Functions (its backward records the ops backward applies);
    # every later one is the generated forward and backward
    assert [kind for kind, _, _ in runs] == ["_Run"] + ["_LoweredRun"] * (len(runs) - 1)
    code = graph_of(traced).lowered.build
    assert list(code.backward) == [(True,)]
    # one line per step, between the def and the return; the chain writes into its own arrays
    assert len(code.forward.source.splitlines()) == len(graph_of(traced).steps) + 2
    assert "    v2 = add(v1, c1, v1)" in code.forward.source.splitlines()


TWO_INPUTS = [[[0.3, -1.2, 2.0], [1.5, 0.5, -0.25]], [[-0.7, 0.1, 1.0], [2.0, -3.0, 0.75]]]


@pytest.mark.parametrize(
    ("name", "fn"),
    [
        ("a number on either side", lambda x, w: (2.0 - x) / 3 + 1.5 * x - x / 0.5 + (x - 1) * w),
        ("two tensors", lambda x, w: (x * w + x / w - w).exp()),
        ("one-input ufuncs", lambda x, w: x.sin().cos() + x.exp().log1p() - (-x).tanh() + (w * w).sqrt()),
        ("a value read twice: its gradients summed", lambda x, w: x * x + x + w.tanh() * x),
        ("more one-input ufuncs", lambda x, w: x.atan() * w + (w * 0.5).sinh().cosh() + (x * x + 1).log()),
    ],
)
@pytest.mark.parametrize("dtype", [ctxgrad.float64, ctxgrad.float32])
def test_elementwise_programs_replay_as_generated_code_bit_for_bit(name: str, fn: Program, dtype: Any) -> None:
    traced, runs = eager_and_replays(fn, TWO_INPUTS, dtype)
    assert all(kind == "_LoweredRun" for kind, _, _ in runs[1:]), name
    assert graph_of(traced).lowered is not None


def test_a_zero_dimensional_program_replays_as_generated_code() -> None:
    _, runs = eager_and_replays(lambda x: (x * 2 + x.tanh()) * x - 1, [[0.5], [-2.0]], ctxgrad.float32)
    # NumPy 1.x promotes a 0-d float32 array with a Python float by value, not as torch does,
    # so there such a step keeps its Function (the same values, checked above)
    expected = "_LoweredRun" if np.lib.NumpyVersion(np.__version__) >= "2.0.0" else "_Run"
    assert [kind for kind, _, _ in runs[1:]] == [expected] * (len(runs) - 1)
    assert all(out.shape == () and out.dtype == np.float32 for _, out, _ in runs)


class Doubles(ctxgrad.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        return x * 2

    @staticmethod
    def backward(ctx: Any, g: ctxgrad.Tensor) -> ctxgrad.Tensor:
        return g * 2


@pytest.mark.parametrize(
    ("name", "fn", "forward_lowered"),
    [
        ("matmul: no ufunc", lambda x, w: (x.reshape(3, 1) @ w.reshape(1, 3)).tanh().sum(0), False),
        ("sigmoid: a forward of its own", lambda x, w: (x * w).sigmoid(), False),
        ("a custom Function", lambda x, w: Doubles.apply(x) * w, False),
        ("a bool constant", lambda x, w: x * True + w, False),
        ("an integer tensor: promoted", lambda x, w: x * ctxgrad.tensor([1, 2, 3]) + w, False),
        ("a tensor of another dtype: promoted", lambda x, w: x * w.float() + w, False),
        ("asin: its backward applies rsqrt, which has a forward of its own", lambda x, w: (x * 0.3).asin() * w, True),
    ],
)
def test_what_has_no_exact_ufunc_runs_the_functions_as_before(name: str, fn: Program, forward_lowered: bool) -> None:
    traced, runs = eager_and_replays(fn, TWO_INPUTS, ctxgrad.float64, seeds=2)
    lowered = graph_of(traced).lowered
    assert (lowered is not None) is forward_lowered, name
    assert not (lowered is not None and lowered.build.backward), name  # (no generated backward)
    assert all(kind == "_Run" for kind, _, _ in runs), name


def test_broadcasting_lowers_the_forward_but_not_the_backward_that_sums() -> None:
    fn: Program = lambda x, w: (x * w + w).tanh()  # noqa: E731
    inputs = [[[0.3, -1.2, 2.0], [1.5]], [[-0.7, 0.1, 1.0], [-0.5]]]
    traced, runs = eager_and_replays(fn, inputs, ctxgrad.float64, seeds=2)
    lowered = graph_of(traced).lowered
    assert lowered is not None and not lowered.build.backward
    assert all(kind == "_Run" for kind, _, _ in runs)


def test_a_complex_program_is_not_lowered() -> None:
    traced = ctxgrad.trace(lambda x: (x * 2.0).exp(), ctxgrad.tensor([1 + 1j, 2 - 1j]))
    assert graph_of(traced).lowered is None
    x = ctxgrad.tensor([0.5 + 0.25j, -1j], requires_grad=True)
    traced(x).abs().sum().backward()
    e = ctxgrad.tensor([0.5 + 0.25j, -1j], requires_grad=True)
    (e * 2.0).exp().abs().sum().backward()
    assert np.array_equal(x.grad.numpy(), e.grad.numpy())  # type: ignore[union-attr]


def test_inputs_outside_tensors_and_earlier_outputs_are_never_written() -> None:
    w = tensor([0.5, 2.0, -1.0], requires_grad=True)
    traced = ctxgrad.trace(lambda x: ((x + 1) * w).tanh() * 3 - x, tensor([1.0, 2.0, 3.0], requires_grad=True))
    x1 = tensor([0.1, 0.2, 0.3], requires_grad=True)
    traced(x1).sum().backward()  # (records the backward: the next replays are generated code)
    x2, x3 = tensor([1.0, -1.0, 0.5], requires_grad=True), tensor([3.0, 0.0, -2.0], requires_grad=True)
    first = traced(x2)
    assert run_kind(first) == "_LoweredRun"
    kept = first.detach().numpy().copy()
    second = traced(x3)
    second.sum().backward()
    first.sum().backward()
    assert np.array_equal(first.detach().numpy(), kept)
    assert x2.tolist() == [1.0, -1.0, 0.5] and x3.tolist() == [3.0, 0.0, -2.0] and w.tolist() == [0.5, 2.0, -1.0]
    for x in (x2, x3):
        e, ew = tensor(x.tolist(), requires_grad=True), tensor(w.tolist(), requires_grad=True)
        (((e + 1) * ew).tanh() * 3 - e).sum().backward()
        assert np.array_equal(x.grad.numpy(), e.grad.numpy())  # type: ignore[union-attr]


def test_an_outside_tensor_is_read_at_each_replay_and_one_of_another_dtype_runs_the_functions() -> None:
    w = tensor([0.5, 2.0, -1.0], requires_grad=True)
    traced = ctxgrad.trace(lambda x: (x * w).exp(), tensor([1.0, 2.0, 3.0], requires_grad=True))
    x = tensor([0.25, -0.5, 1.0], requires_grad=True)
    traced(x).sum().backward()
    with ctxgrad.no_grad():
        w.mul_(2)  # (an optimizer's step)
    out = traced(x)
    assert run_kind(out) == "_LoweredRun"
    np.testing.assert_array_equal(out.detach().numpy(), np.exp(x.detach().numpy() * np.array([1.0, 4.0, -2.0])))
    w.data = ctxgrad.tensor([1.0, 1.0, 1.0], dtype=ctxgrad.float32)  # (the code was made for float64)
    out = traced(x)
    assert run_kind(out) == "_Run"
    e = tensor(x.tolist(), requires_grad=True)
    assert np.array_equal(out.detach().numpy(), (e * w).exp().detach().numpy())


def test_several_outputs_and_a_new_pattern_of_gradients() -> None:
    def fn(x: ctxgrad.Tensor) -> tuple[ctxgrad.Tensor, ctxgrad.Tensor]:
        y = (x * 0.5).tanh()
        return y * y, x * 3 - y

    traced = ctxgrad.trace(fn, tensor([1.0, 2.0], requires_grad=True))
    values = [[0.3, -1.5], [2.0, 0.25], [-0.5, 1.0], [1.0, 1.0]]
    for k, v in enumerate(values):
        x, e = tensor(v, requires_grad=True), tensor(v, requires_grad=True)
        a, b = traced(x)
        kinds = run_kind(a)
        ea, eb = fn(e)
        if k < 2:  # only the first output gets a gradient
            a.sum().backward()
            ea.sum().backward()
        else:  # then both: a pattern with no generated backward yet, then with one
            (a.sum() + b.sum()).backward()
            (ea.sum() + eb.sum()).backward()
        assert kinds == ["_Run", "_LoweredRun", "_LoweredRun", "_LoweredRun"][k]
        assert np.array_equal(a.detach().numpy(), ea.detach().numpy())
        assert np.array_equal(b.detach().numpy(), eb.detach().numpy())
        assert np.array_equal(x.grad.numpy(), e.grad.numpy()), k  # type: ignore[union-attr]
    assert set(graph_of(traced).lowered.build.backward) == {(True, False), (True, True)}


def test_a_retained_lowered_replay_backs_up_twice_with_the_same_gradients() -> None:
    traced = ctxgrad.trace(lambda x: (x.exp() * x + 1).tanh(), tensor([1.0, 2.0], requires_grad=True))
    traced(tensor([0.0, 0.0], requires_grad=True)).sum().backward()
    x = tensor([0.5, 1.5], requires_grad=True)
    out = traced(x)
    assert run_kind(out) == "_LoweredRun"
    out.sum().backward(retain_graph=True)
    first = x.grad.numpy().copy()  # type: ignore[union-attr]
    out.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), 2 * first)  # type: ignore[union-attr]
    e = tensor([0.5, 1.5], requires_grad=True)
    (e.exp() * e + 1).tanh().sum().backward()
    np.testing.assert_array_equal(first, e.grad.numpy())  # type: ignore[union-attr]


def test_an_output_changed_in_place_after_a_lowered_replay_is_caught_at_backward() -> None:
    traced = ctxgrad.trace(lambda x: (x * 2).tanh(), tensor([1.0], requires_grad=True))
    traced(tensor([0.5], requires_grad=True)).sum().backward()
    out = traced(tensor([0.5], requires_grad=True))
    assert run_kind(out) == "_LoweredRun"
    out.add_(1)
    with pytest.raises(RuntimeError, match=r"modified by an inplace operation: .* output 0 of Traced, is at version 1"):
        out.sum().backward()
    # an output that no backward reads may be changed, as in eager
    scaled = ctxgrad.trace(lambda x: x.tanh() * 2, tensor([1.0], requires_grad=True))
    scaled(tensor([0.5], requires_grad=True)).sum().backward()
    x = tensor([0.5], requires_grad=True)
    out = scaled(x)
    out.add_(1)
    out.sum().backward()
    assert x.grad.tolist() == pytest.approx([2 * (1 - np.tanh(0.5) ** 2)], rel=1e-15)  # type: ignore[union-attr]


def test_double_backward_through_a_lowered_replay() -> None:
    traced = ctxgrad.trace(lambda x: (x * x).sin() * x, tensor([1.0, 2.0], requires_grad=True))
    traced(tensor([1.0, 1.0], requires_grad=True)).sum().backward()
    x, e = tensor([0.3, -0.8], requires_grad=True), tensor([0.3, -0.8], requires_grad=True)
    out = traced(x)
    assert run_kind(out) == "_LoweredRun"
    (g,) = ctxgrad.autograd.grad(out.sum(), x, create_graph=True)
    (gg,) = ctxgrad.autograd.grad(g.sum(), x)
    (eg,) = ctxgrad.autograd.grad(((e * e).sin() * e).sum(), e, create_graph=True)
    (egg,) = ctxgrad.autograd.grad(eg.sum(), e)
    np.testing.assert_allclose(g.detach().numpy(), eg.detach().numpy(), rtol=1e-15)
    np.testing.assert_allclose(gg.numpy(), egg.numpy(), rtol=1e-15)


def test_a_replay_that_needs_no_gradient_is_generated_code_from_the_first() -> None:
    traced = ctxgrad.trace(w2_chain, tensor(np.linspace(-1, 1, 5)))
    build = graph_of(traced).lowered.build
    assert build.forward is None  # (written when a replay first runs it)
    x = tensor(np.linspace(2, -2, 5))
    out = traced(x)
    code: Any = build.forward
    generated, calls = code.fn, []

    def counted(*arrays: Any) -> Any:
        calls.append(len(arrays))
        return generated(*arrays)

    code.fn = counted
    again = traced(x)
    assert calls == [1] and out.grad_fn is None
    assert np.array_equal(out.numpy(), w2_chain(x).numpy()) and np.array_equal(again.numpy(), out.numpy())


UNARY = ["tanh", "exp", "sin", "cos", "atan", "neg", "expm1", "log1p"]
BINARY = ["add", "sub", "mul", "div"]


def random_program(rng: np.random.Generator, n_inputs: int, length: int) -> Program:
    """A straight-line program of the ops the replay lowers (numbers kept small enough for exp)."""
    steps: list[tuple[str, int, Any]] = []
    for k in range(length):
        n_values = n_inputs + k
        if rng.random() < 0.4:
            steps.append((str(rng.choice(UNARY)), int(rng.integers(n_values)), None))
        else:
            other: Any = int(rng.integers(n_values)) if rng.random() < 0.5 else float(rng.normal())
            swap = bool(rng.random() < 0.3)
            steps.append((str(rng.choice(BINARY)), int(rng.integers(n_values)), (other, swap)))

    def program(*xs: ctxgrad.Tensor) -> ctxgrad.Tensor:
        values = list(xs)
        for name, a, extra in steps:
            x = values[a]
            if extra is None:
                if name in ("exp", "expm1", "log1p"):
                    x = x.tanh()  # (in their domain, without overflow)
                values.append(-x if name == "neg" else getattr(x, name)())
            else:
                other, swap = extra
                b = values[other] if isinstance(other, int) else other
                left, right = (b, x) if swap else (x, b)
                if name == "div":
                    right = right * right + 0.5 if isinstance(right, ctxgrad.Tensor) else right + 2.0
                values.append(getattr(operator, name.replace("div", "truediv"))(left, right))
        return values[-1] + values[-2] + xs[0] * xs[1]  # (every input has a gradient)

    return program


@pytest.mark.parametrize("seed", range(20))
def test_random_elementwise_programs_replay_as_generated_code_bit_for_bit(seed: int) -> None:
    rng = np.random.default_rng(seed)
    program = random_program(rng, 2, int(rng.integers(3, 12)))
    dtype = [ctxgrad.float64, ctxgrad.float32][seed % 2]
    inputs = [[rng.normal(size=4), rng.normal(size=4)] for _ in range(2)]
    _, runs = eager_and_replays(program, inputs, dtype, seeds=2)
    assert [kind for kind, _, _ in runs][1:] == ["_LoweredRun"] * (len(runs) - 1)

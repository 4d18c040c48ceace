"""Threads: what ctxgrad promises when several threads use it at once (docs/guarantees.md).

Promised, and tested here with the threads really running at the same time (a
``threading.Barrier`` holds each thread at the point where the other one is inside its
block, and a tiny switch interval makes the interpreter switch threads often):

- every mode is per thread: grad mode, inference mode, anomaly mode, saved-tensor hooks and
  forward-mode dual levels; a new thread starts with the defaults;
- threads that build and differentiate separate graphs get the right gradients, also when
  the graphs share leaves that the threads only read (``autograd.grad``).

Not promised (so not tested as working): a backward through one graph from two threads at
once, and two threads accumulating into the ``.grad`` of one leaf at once.
"""

from __future__ import annotations

import sys
import threading
import warnings
from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest

import ctxgrad
from ctxgrad.autograd import Function
from ctxgrad.autograd import forward_ad as fwAD
from ctxgrad.autograd.graph import saved_tensors_hooks


@pytest.fixture(autouse=True)
def _switch_threads_often() -> Iterator[None]:
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(old)


def _barrier(parties: int) -> threading.Barrier:
    """A barrier that breaks (BrokenBarrierError in every waiting thread) rather than hang
    when a thread fails before reaching it."""
    return threading.Barrier(parties, timeout=10)


def run_together(*workers: Callable[[], Any]) -> list[Any]:
    """Run each worker in its own thread, all at once; return their results, or raise the
    first exception one of them raised (in this thread, so that pytest shows it)."""
    results: list[Any] = [None] * len(workers)
    errors: list[BaseException] = []

    def run(k: int) -> None:
        try:
            results[k] = workers[k]()
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(k,), daemon=True) for k in range(len(workers))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads), "a worker thread hangs"
    if errors:
        raise errors[0]
    return results


def _leaf(*values: float) -> ctxgrad.Tensor:
    return ctxgrad.tensor(list(values), dtype=ctxgrad.float64, requires_grad=True)


# --------------------------------------------------------------------------- grad mode
MODES_THAT_STOP_RECORDING: dict[str, Callable[[], Any]] = {
    "no_grad": ctxgrad.no_grad,
    "set_grad_enabled(False)": lambda: ctxgrad.set_grad_enabled(False),
    "inference_mode": ctxgrad.inference_mode,
}


@pytest.mark.parametrize("mode", MODES_THAT_STOP_RECORDING.values(), ids=MODES_THAT_STOP_RECORDING.keys())
def test_a_mode_that_stops_recording_in_one_thread_leaves_another_recording(mode: Callable[[], Any]) -> None:
    inside = _barrier(2)
    done = _barrier(2)
    x = _leaf(1.0, 2.0)

    def quiet() -> tuple[bool, bool]:
        with mode():
            inside.wait()  # the other thread records while this one is in the block
            y = x * 2
            done.wait()
            return y.requires_grad, ctxgrad.is_grad_enabled()

    def recording() -> tuple[bool, bool, str]:
        inside.wait()
        y = (x * 3).exp()
        enabled = ctxgrad.is_grad_enabled()
        done.wait()
        assert y.grad_fn is not None
        return y.requires_grad, enabled, y.grad_fn.name()

    assert run_together(quiet, recording) == [(False, False), (True, True, "ExpBackward0")]
    assert ctxgrad.is_grad_enabled()


def test_enable_grad_in_one_thread_does_not_switch_recording_on_in_another() -> None:
    inside = _barrier(2)
    done = _barrier(2)
    x = _leaf(1.0)

    def enabling() -> bool:
        with ctxgrad.no_grad(), ctxgrad.enable_grad():
            inside.wait()
            done.wait()
            return bool((x * 2).requires_grad)

    def quiet() -> bool:
        with ctxgrad.no_grad():
            inside.wait()
            y = x * 2
            done.wait()
            return bool(y.requires_grad)

    assert run_together(enabling, quiet) == [True, False]


def test_a_new_thread_starts_with_every_mode_at_its_default() -> None:
    packed: list[Any] = []

    def pack(t: Any) -> Any:
        packed.append(t)
        return t

    def defaults() -> dict[str, Any]:
        x = _leaf(1.0, 2.0)
        y = x.exp()  # saves its output: a pack hook of another thread must not see it
        try:
            fwAD.make_dual(ctxgrad.zeros(1), ctxgrad.ones(1))
            dual_level_open = True
        except RuntimeError:
            dual_level_open = False
        return {
            "grad": ctxgrad.is_grad_enabled(),
            "inference": ctxgrad.is_inference_mode_enabled(),
            "anomaly": ctxgrad.autograd.is_anomaly_enabled(),
            "records": y.requires_grad,
            "dual level open": dual_level_open,
        }

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "Anomaly Detection has been enabled"
        with (
            ctxgrad.autograd.detect_anomaly(),
            saved_tensors_hooks(pack, lambda t: t),
            fwAD.dual_level(),
            ctxgrad.inference_mode(),
        ):
            (seen,) = run_together(defaults)
    assert seen == {"grad": True, "inference": False, "anomaly": False, "records": True, "dual level open": False}
    assert packed == []


def test_saved_tensor_hooks_are_per_thread() -> None:
    inside = _barrier(2)
    done = _barrier(2)
    packed: dict[str, int] = {"hooked": 0, "plain": 0}
    x = _leaf(0.5, 1.5)

    def count_as(name: str) -> Callable[[Any], Any]:
        def pack(t: Any) -> Any:
            packed[name] += 1
            return t

        return pack

    def hooked() -> list[float]:
        with saved_tensors_hooks(count_as("hooked"), lambda t: t):
            inside.wait()
            y = x.sin()  # saves x
            done.wait()
        (g,) = ctxgrad.autograd.grad(y.sum(), x)
        return list(g.tolist())

    def plain() -> list[float]:
        inside.wait()
        y = x.sin() * x.exp()
        done.wait()
        (g,) = ctxgrad.autograd.grad(y.sum(), x)
        return list(g.tolist())

    hooked_grad, plain_grad = run_together(hooked, plain)
    values = np.array([0.5, 1.5])
    assert hooked_grad == pytest.approx(np.cos(values))
    assert plain_grad == pytest.approx((np.cos(values) + np.sin(values)) * np.exp(values))
    assert packed == {"hooked": 1, "plain": 0}


# --------------------------------------------------------------------------- separate graphs at once
class ScaledCube(Function):
    """y = k * x**3; saves its input, its output and an intermediate; checks that it runs in the
    grad mode its thread asked for."""

    @staticmethod
    def forward(ctx: Any, x: Any, k: float) -> Any:
        assert not ctxgrad.is_grad_enabled()
        square = x * x
        y = square * x * k
        ctx.save_for_backward(x, y, square)
        ctx.k = k
        return y

    @staticmethod
    def backward(ctx: Any, g: Any) -> Any:
        _x, _y, square = ctx.saved_tensors
        return g * 3 * ctx.k * square, None


def _model_step(seed: int, w: Any, x: Any) -> tuple[list[float], list[float]]:
    """A small model mixing built-in op families and a custom Function; returns the loss
    gradients of ``w`` and ``x``."""
    h = (x @ w).tanh()  # linalg, pointwise
    h = ScaledCube.apply(h, 0.5 + seed)
    h = h[:, ::2].clone()  # indexing
    h.mul_(1.5)  # in place
    top, _ = h.sort(dim=1, descending=True)  # sorting
    loss = top.reshape(-1).softmax(0).max() + h.mean(dim=0).sum()  # shape, reduction
    gw, gx = ctxgrad.autograd.grad(loss, (w, x))
    return gw.reshape(-1).tolist(), gx.reshape(-1).tolist()


def _inputs(seed: int) -> tuple[Any, Any]:
    rng = np.random.default_rng(seed)
    w = ctxgrad.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    x = ctxgrad.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    return w, x


def test_threads_differentiating_separate_graphs_at_once_get_the_right_gradients() -> None:
    iterations = 60
    seeds = (0, 1, 2)
    expected = {seed: _model_step(seed, *_inputs(seed)) for seed in seeds}
    start = _barrier(len(seeds))

    def worker(seed: int) -> list[tuple[list[float], list[float]]]:
        start.wait()
        return [_model_step(seed, *_inputs(seed)) for _ in range(iterations)]

    results = run_together(*(lambda s=s: worker(s) for s in seeds))
    for seed, got in zip(seeds, results):
        assert got == [expected[seed]] * iterations


def test_threads_backward_into_their_own_leaves_at_once_and_double_backward() -> None:
    iterations = 150
    start = _barrier(2)

    def first_order(k: float) -> list[list[float]]:
        start.wait()
        grads = []
        for i in range(iterations):
            x = _leaf(1.0, float(i))
            ScaledCube.apply(x, k).sum().backward()
            assert x.grad is not None
            grads.append(x.grad.tolist())
        return grads

    def second_order() -> list[list[float]]:
        start.wait()
        grads = []
        for i in range(iterations):
            x = _leaf(1.0, float(i))
            (g,) = ctxgrad.autograd.grad((x**3).sum(), x, create_graph=True)
            (gg,) = ctxgrad.autograd.grad(g.sum(), x)
            grads.append(gg.tolist())
        return grads

    cubes, seconds = run_together(lambda: first_order(2.0), second_order)
    assert cubes == [[6.0, 6.0 * i * i] for i in range(iterations)]
    assert seconds == [[6.0, 6.0 * i] for i in range(iterations)]


def test_threads_may_share_a_leaf_they_only_read() -> None:
    # Data-parallel style: one weight, each thread differentiates its own graph with
    # autograd.grad (which writes no .grad), and sums the results itself.  ``anchor`` keeps
    # the weight's AccumulateGrad node alive, so that the threads do not make it at the same
    # moment (the bug of the next test).
    w = _leaf(0.5, -1.0, 2.0)
    anchor = w * 1
    iterations = 100
    start = _barrier(2)

    def worker(scale: float) -> list[float]:
        start.wait()
        total = np.zeros(3)
        for _ in range(iterations):
            loss = ((w * scale).exp() * w).sum()
            (g,) = ctxgrad.autograd.grad(loss, w)
            total += g.numpy()
        return list(total)

    values = np.array([0.5, -1.0, 2.0])
    for scale, got in zip((1.0, 0.5), run_together(lambda: worker(1.0), lambda: worker(0.5))):
        one = np.exp(scale * values) * (1 + scale * values)
        assert got == pytest.approx(iterations * one)
    assert w.grad is None
    del anchor


def test_two_threads_using_a_fresh_leaf_at_the_same_moment_share_its_accumulate_grad_node(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from ctxgrad.autograd import graph

    # Hold each thread inside the making of the node until the other one is there too: the
    # interleaving that happens by chance about once in fifty tries.  Then each thread has
    # its own node, and which gradient is lost (or whether grad raises instead) depends on the
    # order in which the threads go on.  With a lock around the check-and-make, the second
    # thread waits for the lock instead, the barrier times out, and both get the one node.
    both_making = _barrier(2)
    make = graph.AccumulateGrad.__init__

    def slow_make(self: Any, variable: Any) -> None:
        try:
            both_making.wait(timeout=0.5)
        except threading.BrokenBarrierError:
            pass
        make(self, variable)

    monkeypatch.setattr(graph.AccumulateGrad, "__init__", slow_make)
    w = _leaf(0.5, -1.0, 2.0)
    both_recorded = _barrier(2)

    def worker(scale: float) -> tuple[Any, list[float]]:
        y = w * scale
        both_recorded.wait()  # both graphs are alive: they must share the leaf's one AccumulateGrad node
        assert y.grad_fn is not None
        node = y.grad_fn.next_functions[0][0]
        (g,) = ctxgrad.autograd.grad((y.exp() * w).sum(), w)
        return node, list(g.tolist())

    (node_a, grad_a), (node_b, grad_b) = run_together(lambda: worker(1.0), lambda: worker(0.5))
    assert node_a is node_b
    values = np.array([0.5, -1.0, 2.0])
    for scale, got in ((1.0, grad_a), (0.5, grad_b)):
        assert got == pytest.approx(np.exp(scale * values) * (1 + scale * values))


# --------------------------------------------------------------------------- anomaly mode
class NanGrad(Function):
    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        return x * 2

    @staticmethod
    def backward(ctx: Any, g: Any) -> Any:
        return g * float("nan")


def test_anomaly_mode_in_one_thread_does_not_check_another_running_at_once() -> None:
    inside = _barrier(2)
    done = _barrier(2)

    def anomalous() -> tuple[str, bool]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            with ctxgrad.autograd.detect_anomaly():
                y = NanGrad.apply(_leaf(1.0))
                inside.wait()  # the other thread runs its NaN backward while this one is in anomaly mode
                done.wait()
                try:
                    y.sum().backward()
                except RuntimeError as exc:
                    return str(exc), "traceback_" in y.grad_fn.metadata
        return "no error", False

    def plain() -> tuple[bool, bool, bool]:
        inside.wait()
        x = _leaf(1.0)
        y = NanGrad.apply(x)
        y.sum().backward()  # no anomaly check here: the NaN goes through
        enabled = ctxgrad.autograd.is_anomaly_enabled()
        done.wait()
        assert x.grad is not None
        return enabled, bool(np.isnan(x.grad.numpy()).all()), "traceback_" in y.grad_fn.metadata

    caught, plain_result = run_together(anomalous, plain)
    assert caught == ("Function 'NanGradBackward' returned nan values in its 0th output.", True)
    assert plain_result == (False, True, False)


# --------------------------------------------------------------------------- forward mode
def _jvp_of_exp(value: float, direction: float) -> float:
    with fwAD.dual_level():
        dual = fwAD.make_dual(ctxgrad.tensor([value], dtype=ctxgrad.float64), ctxgrad.tensor([direction]))
        tangent = fwAD.unpack_dual(dual.exp() * 3).tangent
        assert tangent is not None
        return float(tangent.item())


def test_a_dual_level_open_in_one_thread_is_not_open_in_another() -> None:
    inside = _barrier(2)
    done = _barrier(2)

    def with_level() -> float:
        with fwAD.dual_level():
            dual = fwAD.make_dual(ctxgrad.tensor([0.0], dtype=ctxgrad.float64), ctxgrad.tensor([2.0]))
            inside.wait()
            done.wait()
            tangent = fwAD.unpack_dual(dual * 5).tangent
            assert tangent is not None
            return float(tangent.item())

    def without_level() -> str:
        inside.wait()
        try:
            fwAD.make_dual(ctxgrad.zeros(1), ctxgrad.ones(1))
        except RuntimeError as exc:
            return str(exc)
        finally:
            done.wait()
        return "no error"

    tangent, error = run_together(with_level, without_level)
    assert tangent == 10.0
    assert error.startswith("Trying to create a dual Tensor for forward AD but no level exists")


def test_dual_levels_in_two_threads_one_after_the_other_compute_the_right_tangents() -> None:
    assert run_together(lambda: _jvp_of_exp(0.0, 1.0)) == [3.0]
    assert run_together(lambda: _jvp_of_exp(0.0, 2.0)) == [6.0]


def test_leaving_a_dual_level_in_one_thread_keeps_the_tangents_of_another() -> None:
    both_inside = _barrier(2)
    made = _barrier(2)
    left = _barrier(2)

    def leaves_first() -> None:
        with fwAD.dual_level():
            both_inside.wait()
            made.wait()
        left.wait()

    def keeps_its_level() -> Any:
        with fwAD.dual_level():
            both_inside.wait()
            dual = fwAD.make_dual(ctxgrad.tensor([1.0]), ctxgrad.tensor([4.0]))
            made.wait()
            left.wait()  # the other thread has left its level
            return fwAD.unpack_dual(dual).tangent

    _, tangent = run_together(leaves_first, keeps_its_level)
    assert tangent is not None and tangent.tolist() == [4.0]


def test_make_dual_works_after_another_thread_left_its_level() -> None:
    both_inside = _barrier(2)
    left = _barrier(2)

    def leaves_first() -> None:
        with fwAD.dual_level():
            both_inside.wait()
        left.wait()

    def makes_a_dual_later() -> float:
        with fwAD.dual_level():
            both_inside.wait()
            left.wait()
            dual = fwAD.make_dual(ctxgrad.tensor([1.0]), ctxgrad.tensor([4.0]))
            tangent = fwAD.unpack_dual(dual * 2).tangent
            assert tangent is not None
            return float(tangent.item())

    assert run_together(leaves_first, makes_a_dual_later)[1] == 8.0

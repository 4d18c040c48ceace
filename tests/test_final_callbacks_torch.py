"""``Variable._execution_engine.queue_callback`` against torch's: a callback runs when the
backward call that was running when it was queued ends: a reentrant backward (started inside
a custom backward) calls its own before control returns to the outer one; callbacks run in
the order queued, those queued by a callback after it; none may be queued outside backward;
an error raised by one comes out of ``backward``.  Each program runs on both libraries and
records what happened in a list; the lists must agree."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import ctxgrad

torch = pytest.importorskip("torch")


def _events(program: Callable[[Any, list[Any]], Any], lib: Any) -> Any:
    log: list[Any] = []
    try:
        result = program(lib, log)
    except Exception as exc:  # (the error is part of what is compared)
        return log, (type(exc).__name__, str(exc))
    return log, result


def _same(program: Callable[[Any, list[Any]], Any]) -> Any:
    got, want = _events(program, ctxgrad), _events(program, torch)
    assert got == want
    return want


def _queue(lib: Any, callback: Callable[[], Any]) -> None:
    lib.autograd.Variable._execution_engine.queue_callback(callback)


def _reentrant(lib: Any, log: list[Any], inner: Callable[[Any], Any]) -> Any:
    """A Function whose backward runs ``inner(y)`` (a backward of its own) on a new graph,
    queueing a callback of the outer backward before and after it."""

    class Reentrant(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x * 2

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            _queue(lib, lambda: log.append("outer callback queued before the inner backward"))
            with lib.enable_grad():
                y = lib.ones(2, requires_grad=True)
                z = y * 3

                def hook(g: Any) -> Any:
                    _queue(lib, lambda: log.append("inner callback"))
                    log.append("inner hook")
                    return g

                z.register_hook(hook)
                log.append(("inner result", inner(z, y)))
            _queue(lib, lambda: log.append("outer callback queued after the inner backward"))
            log.append("outer backward returns")
            return grad * 2

    return Reentrant


@pytest.mark.parametrize("inner", ["backward", "autograd.grad"])
def test_a_reentrant_backward_calls_its_own_callbacks_when_it_ends(inner: str) -> None:
    def run_inner(lib: Any) -> Callable[[Any, Any], Any]:
        if inner == "backward":
            return lambda z, y: (z.sum().backward(), y.grad.tolist())[1]
        return lambda z, y: lib.autograd.grad(z.sum(), y)[0].tolist()

    def program(lib: Any, log: list[Any]) -> Any:
        x = lib.ones(2, requires_grad=True)
        _reentrant(lib, log, run_inner(lib)).apply(x).sum().backward()
        log.append("outer backward ended")
        return x.grad.tolist()

    log, grad = _same(program)
    assert grad == [2.0, 2.0]  # (what the custom backward gives)
    assert log == [
        "inner hook",
        "inner callback",
        ("inner result", [3.0, 3.0]),
        "outer backward returns",
        "outer callback queued before the inner backward",
        "outer callback queued after the inner backward",
        "outer backward ended",
    ]


def test_callbacks_run_in_order_after_the_gradients_are_in() -> None:
    def program(lib: Any, log: list[Any]) -> Any:
        x = lib.ones(2, requires_grad=True)
        y = x * 2

        def third() -> None:
            log.append(("third sees", x.grad.tolist()))

        def second() -> None:
            log.append("second")
            _queue(lib, third)

        def hook(g: Any) -> Any:
            _queue(lib, lambda: log.append(("first sees", x.grad.tolist())))
            _queue(lib, second)
            log.append(("hook sees", x.grad))
            return g

        y.register_hook(hook)
        y.sum().backward()
        return x.grad.tolist()

    assert _same(program) == (
        [("hook sees", None), ("first sees", [2.0, 2.0]), "second", ("third sees", [2.0, 2.0])],
        [2.0, 2.0],
    )


def test_no_callback_outside_backward() -> None:
    def program(lib: Any, log: list[Any]) -> Any:
        _queue(lib, lambda: log.append("never"))

    assert _same(program) == ([], ("RuntimeError", "Final callbacks can only be installed during backward pass."))


def test_an_error_in_a_callback_comes_out_of_backward() -> None:
    def program(lib: Any, log: list[Any]) -> Any:
        x = lib.ones(1, requires_grad=True)
        y = x * 2

        def failing() -> None:
            log.append("called")
            raise ValueError("the callback failed")

        y.register_hook(lambda g: _queue(lib, failing))
        y.sum().backward()

    assert _same(program) == (["called"], ("ValueError", "the callback failed"))

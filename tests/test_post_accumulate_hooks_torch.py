"""``register_post_accumulate_grad_hook`` against torch's: where its hooks run among a leaf's
tensor hooks, ``retain_grad``, the AccumulateGrad node's own hooks and other post-accumulate
hooks (in the order registered, each seeing ``.grad`` after the whole accumulation), the grad
mode they run in (the engine's: on under ``create_graph``), and the misuses torch refuses.
Each program runs on both libraries and records what happened in a list."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import pytest

import ctxgrad

torch = pytest.importorskip("torch")


def _events(program: Callable[[Any, list[Any]], Any], lib: Any) -> Any:
    log: list[Any] = []
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (backward's create_graph warning)
            program(lib, log)
    except Exception as exc:  # (the error is part of what is compared)
        log.append((type(exc).__name__, str(exc)))
    return log


def _same(program: Callable[[Any, list[Any]], Any]) -> list[Any]:
    got, want = _events(program, ctxgrad), _events(program, torch)
    assert got == want
    return want


def test_post_hooks_run_after_the_tensor_hooks_in_the_order_registered() -> None:
    def program(lib: Any, log: list[Any]) -> None:
        a = lib.ones(2, requires_grad=True)
        a.register_post_accumulate_grad_hook(lambda t: log.append(("first post", t.grad.tolist())))
        a.register_hook(lambda g: (log.append(("tensor hook", g.tolist())), g * 2)[1])
        a.register_post_accumulate_grad_hook(lambda t: log.append(("second post", t.grad.tolist())))
        a.register_hook(lambda g: (log.append(("second tensor hook", g.tolist())), g + 1)[1])
        for _ in range(2):
            (a * 3).sum().backward()

    assert _same(program) == [
        ("tensor hook", [3.0, 3.0]),
        ("second tensor hook", [6.0, 6.0]),
        ("first post", [7.0, 7.0]),
        ("second post", [7.0, 7.0]),
        ("tensor hook", [3.0, 3.0]),
        ("second tensor hook", [6.0, 6.0]),
        ("first post", [14.0, 14.0]),
        ("second post", [14.0, 14.0]),
    ]


def test_post_hooks_among_the_accumulate_grad_nodes_hooks() -> None:
    def program(lib: Any, log: list[Any]) -> None:
        a = lib.ones(2, requires_grad=True)
        a.register_post_accumulate_grad_hook(lambda t: log.append("post accumulate"))
        node = (a * 1).grad_fn.next_functions[0][0]
        node.register_hook(lambda grad_inputs, grad_outputs: log.append(("node hook", len(grad_inputs))))
        node.register_prehook(lambda grad_outputs: log.append(("node prehook", grad_outputs[0].tolist())))
        a.register_hook(lambda g: log.append("tensor hook"))
        a.retain_grad()  # (a leaf: nothing to do)
        (a * 3).sum().backward()

    assert _same(program) == ["tensor hook", ("node prehook", [3.0, 3.0]), "post accumulate", ("node hook", 0)]


def test_a_post_hook_sees_the_grad_added_to_an_existing_one_and_may_change_it() -> None:
    def program(lib: Any, log: list[Any]) -> None:
        a = lib.ones(2, requires_grad=True)
        a.grad = lib.tensor([10.0, 20.0])

        def halve(t: Any) -> None:
            log.append(("post", t.grad.tolist()))
            t.grad.mul_(0.5)

        a.register_post_accumulate_grad_hook(halve)
        a.register_post_accumulate_grad_hook(lambda t: log.append("removed")).remove()
        (a * 3).sum().backward()
        log.append(("grad", a.grad.tolist()))

    assert _same(program) == [("post", [13.0, 23.0]), ("grad", [6.5, 11.5])]


@pytest.mark.parametrize("create_graph", [False, True])
def test_post_hooks_run_in_the_engines_grad_mode(create_graph: bool) -> None:
    def program(lib: Any, log: list[Any]) -> None:
        a = lib.ones(2, requires_grad=True)
        a.register_post_accumulate_grad_hook(lambda t: log.append((lib.is_grad_enabled(), t.grad.requires_grad)))
        (a * a).sum().backward(create_graph=create_graph)

    assert _same(program) == [(create_graph, create_graph)]


def test_only_backward_runs_post_hooks_and_only_for_the_inputs_asked() -> None:
    def program(lib: Any, log: list[Any]) -> None:
        a = lib.ones(2, requires_grad=True)
        b = lib.ones(2, requires_grad=True)
        a.register_post_accumulate_grad_hook(lambda t: log.append("a"))
        b.register_post_accumulate_grad_hook(lambda t: log.append("b"))
        lib.autograd.grad((a * b).sum(), a)
        log.append("grad() ran")
        (a * b).sum().backward(inputs=[b])

    assert _same(program) == ["grad() ran", "b"]


MISUSE = {
    "a tensor that is not a leaf": lambda lib: (lib.ones(2, requires_grad=True) * 2).register_post_accumulate_grad_hook(
        lambda t: None
    ),
    "a tensor that does not require grad": lambda lib: lib.ones(2).register_post_accumulate_grad_hook(lambda t: None),
}


@pytest.mark.parametrize("name", sorted(MISUSE))
def test_where_post_hooks_are_refused(name: str) -> None:
    outcome = _same(lambda lib, log: MISUSE[name](lib))
    assert outcome[0][0] == "RuntimeError"


def test_a_post_hook_returning_a_value_is_refused() -> None:
    def program(lib: Any, log: list[Any]) -> None:
        a = lib.ones(2, requires_grad=True)
        a.register_post_accumulate_grad_hook(lambda t: 5)
        (a * 3).sum().backward()

    assert _same(program) == [("TypeError", "expected Variable, but hook returned 'int'")]

"""``autograd.functional``'s checks of what it is given and what the function returns, against
torch's: the same exception types and messages (which print ``ctxgrad.Size`` and name
``ctxgrad.autograd.functional.jacobian`` where torch's name torch's: docs/differences.md), and
``create_graph=True`` results that carry a graph for inputs that require none, as torch's."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import ctxgrad

torch = pytest.importorskip("torch")


def _outcome(program: Callable[[Any], Any], lib: Any) -> Any:
    try:
        program(lib)
    except Exception as exc:  # (the error is the result compared)
        return type(exc).__name__, str(exc).replace("ctxgrad.", "torch.")
    return None


def _cube_sum(t: Any) -> Any:
    return (t**3).sum()


def _square(t: Any) -> Any:
    return t**2


def _x(lib: Any) -> Any:
    return lib.tensor([1.0, 2.0])


CHECKS: dict[str, Callable[[Any], Any]] = {
    "vjp, a number for inputs": lambda lib: lib.autograd.functional.vjp(_square, 3.0, _x(lib)),
    "vjp, a number among the inputs": lambda lib: lib.autograd.functional.vjp(
        lambda a, b: a * b, (_x(lib), 2.0), _x(lib)
    ),
    "vjp, a function returning a number": lambda lib: lib.autograd.functional.vjp(lambda t: 3.0, _x(lib), _x(lib)),
    "vjp, v of another shape": lambda lib: lib.autograd.functional.vjp(_square, _x(lib), lib.ones(3)),
    "vjp, no v for several outputs": lambda lib: lib.autograd.functional.vjp(_square, _x(lib)),
    "vjp, strict and an output independent of the input": lambda lib: lib.autograd.functional.vjp(
        lambda t: lib.ones(2), _x(lib), _x(lib), strict=True
    ),
    "jvp, a list for inputs": lambda lib: lib.autograd.functional.jvp(_square, [_x(lib)], _x(lib)),
    "jvp, a number for v": lambda lib: lib.autograd.functional.jvp(_square, _x(lib), 1.0),
    "jvp, no v for an input of several elements": lambda lib: lib.autograd.functional.jvp(_square, _x(lib)),
    "jacobian, a string for inputs": lambda lib: lib.autograd.functional.jacobian(_square, "a"),
    "jacobian, a function returning a list": lambda lib: lib.autograd.functional.jacobian(lambda t: [t], _x(lib)),
    "jacobian, strict and vectorize": lambda lib: lib.autograd.functional.jacobian(
        _square, _x(lib), strict=True, vectorize=True
    ),
    "hessian, a number for inputs": lambda lib: lib.autograd.functional.hessian(_cube_sum, 3),
    "hessian, a function of several elements": lambda lib: lib.autograd.functional.hessian(_square, _x(lib)),
    "hessian, strict and a linear function": lambda lib: lib.autograd.functional.hessian(
        lambda t: t.sum(), _x(lib), strict=True
    ),
    "hvp, a number among the inputs": lambda lib: lib.autograd.functional.hvp(_cube_sum, (_x(lib), 1), _x(lib)),
    "hvp, a function returning a number": lambda lib: lib.autograd.functional.hvp(lambda t: 1.0, _x(lib), _x(lib)),
    "hvp, no v": lambda lib: lib.autograd.functional.hvp(_cube_sum, _x(lib)),
    "vhp, a list for v": lambda lib: lib.autograd.functional.vhp(_cube_sum, _x(lib), [_x(lib)]),
    "vhp, a function returning a tuple": lambda lib: lib.autograd.functional.vhp(lambda t: (t, t), _x(lib), _x(lib)),
}


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_bad_arguments_get_torchs_errors(name: str) -> None:
    got, want = _outcome(CHECKS[name], ctxgrad), _outcome(CHECKS[name], torch)
    assert want is not None
    assert got == want


RESULTS: dict[str, Callable[[Any, bool], Any]] = {
    "jacobian": lambda lib, cg: lib.autograd.functional.jacobian(_square, _x(lib), create_graph=cg),
    "jacobian, vectorized": lambda lib, cg: lib.autograd.functional.jacobian(
        _square, _x(lib), create_graph=cg, vectorize=True
    ),
    "hessian": lambda lib, cg: lib.autograd.functional.hessian(_cube_sum, _x(lib), create_graph=cg),
    "vjp": lambda lib, cg: lib.autograd.functional.vjp(_square, _x(lib), _x(lib), create_graph=cg),
    "jvp": lambda lib, cg: lib.autograd.functional.jvp(_square, _x(lib), _x(lib), create_graph=cg),
    "hvp": lambda lib, cg: lib.autograd.functional.hvp(_cube_sum, _x(lib), _x(lib), create_graph=cg),
    "vhp": lambda lib, cg: lib.autograd.functional.vhp(_cube_sum, _x(lib), _x(lib), create_graph=cg),
}


def _facts(value: Any) -> Any:
    if isinstance(value, (tuple, list)):
        return [_facts(v) for v in value]
    return value.detach().numpy().round(6).tolist(), value.requires_grad, value.grad_fn is not None


@pytest.mark.parametrize("create_graph", [False, True])
@pytest.mark.parametrize("name", sorted(RESULTS))
def test_results_carry_a_graph_as_torchs_do(name: str, create_graph: bool) -> None:
    got = _facts(RESULTS[name](ctxgrad, create_graph))
    want = _facts(RESULTS[name](torch, create_graph))
    assert got == want

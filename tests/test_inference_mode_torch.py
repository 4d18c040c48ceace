"""Inference tensors against torch's: what is one (a view of one is one, in or out of
inference mode; an in-place change of an ordinary tensor inside the mode leaves it ordinary),
what may not be done to one outside the mode (any change in place: a written value, an
in-place view op, ``resize_``, an ``out=`` result; its ``_version``), and the transforms run
under ``inference_mode``.  Each program runs on both libraries; results and errors must agree."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ctxgrad

torch = pytest.importorskip("torch")


def _outcome(program: Callable[[Any], Any], lib: Any) -> Any:
    """What ``program(lib)`` gives: its result, with tensors as (values, is_inference,
    requires_grad), or the type and message of the error it raises."""
    try:
        result = program(lib)
    except Exception as exc:  # (the error is the result compared)
        return ("raises", type(exc).__name__, str(exc))
    return _plain(result, lib)


def _plain(value: Any, lib: Any) -> Any:
    if isinstance(value, (tuple, list)):
        return tuple(_plain(v, lib) for v in value)
    if isinstance(value, lib.Tensor):
        return (value.detach().numpy().tolist(), value.is_inference(), value.requires_grad)
    return value


def _same(program: Callable[[Any], Any]) -> Any:
    got, want = _outcome(program, ctxgrad), _outcome(program, torch)
    assert got == want
    return want


def _made_in_inference_mode(lib: Any) -> Any:
    with lib.inference_mode():
        return lib.arange(6.0).reshape(2, 3)


# ----------------------------------------------------------------------------- what is one
VIEWS = {
    "view": lambda x: x.view(6),
    "select": lambda x: x[1],
    "slice": lambda x: x[:, 1:],
    "transpose": lambda x: x.t(),
    "unbind": lambda x: x.unbind(0)[1],
    "detach": lambda x: x.detach(),
    "data": lambda x: x.data,
}


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_a_view_of_an_inference_tensor_taken_outside_the_mode_is_one(name: str) -> None:
    outcome = _same(lambda lib: VIEWS[name](_made_in_inference_mode(lib)))
    assert outcome[1] is True  # (an inference tensor that does not require grad)


@pytest.mark.parametrize("name", sorted(VIEWS))
def test_a_view_of_an_ordinary_tensor_taken_inside_the_mode_is_not_one(name: str) -> None:
    def program(lib: Any) -> Any:
        x = lib.arange(6.0).reshape(2, 3)
        with lib.inference_mode():
            return VIEWS[name](x)

    assert _same(program)[1] is False


def test_a_new_tensor_from_an_inference_tensor_outside_the_mode_is_ordinary() -> None:
    def program(lib: Any) -> Any:
        x = _made_in_inference_mode(lib)
        w = lib.ones(2, 3, requires_grad=True)
        return x * 2, x.clone(), w + x, lib.stack([x, w])

    got = _same(program)
    assert [t[1:] for t in got] == [(False, False), (False, False), (False, True), (False, True)]


def test_changing_an_ordinary_tensor_inside_the_mode_leaves_it_ordinary() -> None:
    def program(lib: Any) -> Any:
        x = lib.ones(3)
        view = x[1:]
        with lib.inference_mode():
            x.add_(1)
            view.mul_(3)
            x[0] = 5.0
        return x, view, x._version

    assert _same(program) == (([5.0, 6.0, 6.0], False, False), ([6.0, 6.0], False, False), 3)


# ----------------------------------------------------------------------------- no change outside
CHANGES = {
    "add_": lambda x: x.add_(1),
    "add_ of a view": lambda x: x[0].add_(1),
    "setitem": lambda x: x.__setitem__(0, 1.0),
    "zero_": lambda x: x.zero_(),
    "copy_": lambda x: x.copy_(x.new_ones(2, 3)),
    "unsqueeze_": lambda x: x.unsqueeze_(0),
    "t_": lambda x: x.t_(),
    "resize_": lambda x: x.resize_(6),
    "out=": lambda x: ctxgrad_or_torch(x).add(x.new_ones(2, 3), 1, out=x),
    "out= into a view": lambda x: ctxgrad_or_torch(x).sum(x.new_ones(4, 3), 0, out=x[0]),
    "unbind piece": lambda x: x.unbind(0)[0].mul_(2),
}


def ctxgrad_or_torch(x: Any) -> Any:
    return torch if isinstance(x, torch.Tensor) else ctxgrad


@pytest.mark.parametrize("name", sorted(CHANGES))
def test_an_inference_tensor_is_not_changed_in_place_outside_the_mode(name: str) -> None:
    def program(lib: Any) -> Any:
        return CHANGES[name](_made_in_inference_mode(lib))

    outcome = _same(program)
    assert outcome[:2] == ("raises", "RuntimeError")
    assert outcome[2].startswith("Inplace update to inference tensor outside InferenceMode is not allowed.")
    # ctxgrad refuses before anything changes; torch writes the values (or the shape) first and
    # then refuses (docs/differences.md: in-place changes of inference tensors).
    x = _made_in_inference_mode(ctxgrad)
    with pytest.raises(RuntimeError, match=r"^Inplace update to inference tensor"):
        CHANGES[name](x)
    assert x.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]


@pytest.mark.parametrize("mode", ["outside", "inference_mode(False)"])
def test_a_view_made_inside_and_changed_outside_is_refused(mode: str) -> None:
    def program(lib: Any) -> Any:
        with lib.inference_mode():
            x = lib.ones(3)
            view = x[:2]
            if mode == "inference_mode(False)":
                with lib.inference_mode(False):
                    view.add_(1)
        view.add_(1)

    outcome = _same(program)
    assert outcome[:2] == ("raises", "RuntimeError")


def test_inside_the_mode_an_inference_tensor_may_change() -> None:
    def program(lib: Any) -> Any:
        with lib.inference_mode():
            x = lib.ones(2, 3)
            x[0].add_(1)
            x.unsqueeze_(0)
            lib.mul(x.new_ones(1, 2, 3), 3, out=x)
            return x

    assert _same(program) == ([[[3.0] * 3] * 2], True, False)


def test_an_inference_tensor_has_no_version_counter() -> None:
    def program(lib: Any) -> Any:
        return _made_in_inference_mode(lib)._version

    def ordinary(lib: Any) -> Any:
        x = lib.ones(2)
        with lib.inference_mode():
            x.add_(1)
            return x._version

    assert _same(program) == ("raises", "RuntimeError", "Inference tensors do not track version counter.")
    assert _same(ordinary) == 1


def test_an_inference_tensor_does_not_take_requires_grad_or_get_saved() -> None:
    def requires_grad(lib: Any) -> Any:
        _made_in_inference_mode(lib).requires_grad_()

    def saved(lib: Any) -> Any:
        w = lib.ones(2, 3, requires_grad=True)
        return w * _made_in_inference_mode(lib)

    outcome = _same(requires_grad)
    assert outcome == (
        "raises",
        "RuntimeError",
        "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.",
    )
    got = _outcome(saved, ctxgrad)
    want = _outcome(saved, torch)
    assert got[:2] == want[:2] == ("raises", "RuntimeError")
    # (ctxgrad's message names its own no_grad and inference_mode, and the node that saves)
    assert got[2].startswith(want[2].split(" `torch.no_grad()`")[0])


# ----------------------------------------------------------------------------- transforms
def _transform_outcome(lib: Any) -> Any:
    func = lib.func
    with lib.inference_mode():
        x = lib.tensor([0.5, 1.0, 2.0])
        w = lib.tensor([1.0, -1.0, 3.0])
        grad = func.grad(lambda t: (t.sin() * w).sum())(x)
        batched = func.vmap(lambda t: t * w)(x.view(3, 1).expand(3, 3))
        jac = func.jacrev(lambda t: t.exp() * w)(x)
        primal, tangent = func.jvp(lambda t: t.cos(), (x,), (lib.ones(3),))
        out, vjp_fn = func.vjp(lambda t: t * t, x)
        hess = func.hessian(lambda t: t.pow(3).sum())(x)
        return grad, batched, jac, primal, tangent, out, vjp_fn(lib.ones(3))[0], hess


def test_transforms_run_under_inference_mode_as_torch() -> None:
    got = _plain(_transform_outcome(ctxgrad), ctxgrad)
    want = _plain(_transform_outcome(torch), torch)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g[0], w[0], rtol=1e-6, atol=1e-7)
        assert g[1:] == w[1:]


def test_a_transform_of_inference_tensors_outside_the_mode() -> None:
    def program(lib: Any) -> Any:
        x = _made_in_inference_mode(lib)[0]
        return lib.func.grad(lambda t: (t * t).sum())(x), lib.func.vmap(lambda t: t * 2)(x)

    assert _same(program) == (([0.0, 2.0, 4.0], False, False), ([0.0, 2.0, 4.0], False, False))


def test_an_in_place_change_of_an_inference_tensor_under_vmap_is_refused() -> None:
    def program(lib: Any) -> Any:
        lib.func.vmap(lambda t: t.add_(1))(_made_in_inference_mode(lib))

    outcome = _same(program)
    assert outcome[:2] == ("raises", "RuntimeError")
    assert outcome[2].startswith("Inplace update to inference tensor outside InferenceMode")


def test_grad_mode_inside_inference_mode_records_nothing() -> None:
    def program(lib: Any) -> Any:
        leaf = lib.ones(3, requires_grad=True)
        with lib.inference_mode(), lib.enable_grad():
            product = leaf * 2
            view = leaf[1:]
            view_history = view.grad_fn
            leaf.add_(1)  # (nothing is recorded, so a leaf that requires grad may change)
            return lib.is_grad_enabled(), product.grad_fn is None, view_history is None, product, leaf

    assert _same(program) == (True, True, True, ([2.0, 2.0, 2.0], True, False), ([2.0, 2.0, 2.0], False, True))


def test_a_parameter_of_an_inference_tensor_is_one() -> None:
    def inside(lib: Any) -> Any:
        with lib.inference_mode():
            return lib.nn.Parameter(lib.ones(2))

    def outside(lib: Any) -> Any:
        return lib.nn.Parameter(_made_in_inference_mode(lib))

    assert _same(inside) == ([1.0, 1.0], True, True)
    assert _same(outside) == (
        "raises",
        "RuntimeError",
        "Setting requires_grad=True on inference tensor outside InferenceMode is not allowed.",
    )

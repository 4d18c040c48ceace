"""Saved-tensor hooks against torch's: the pack hook gets the tensor the op saved (the input
itself, or the output, with its history) with grad mode off; once hooks packed a tensor, what
``unpack_hook`` gives back is used without a version check (a hook that packed a copy gives
the values as they were before a later in-place change, an identity hook the changed ones);
hooks set on one saved tensor (``grad_fn._raw_saved_*.register_hooks``) and ``save_on_cpu``
behave as torch's; ``disable_saved_tensors_hooks`` may not be entered while hooks are on.
Each program runs on both libraries; results and errors must agree."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ctxgrad

torch = pytest.importorskip("torch")


def _outcome(program: Callable[[Any], Any], lib: Any) -> Any:
    try:
        return _plain(program(lib), lib)
    except Exception as exc:  # (the error is the result compared)
        return ("raises", type(exc).__name__, str(exc))


def _plain(value: Any, lib: Any) -> Any:
    if isinstance(value, (tuple, list)):
        return tuple(_plain(v, lib) for v in value)
    if isinstance(value, lib.Tensor):
        return np.round(value.detach().numpy(), 5).tolist()
    return value


def _same(program: Callable[[Any], Any]) -> Any:
    got, want = _outcome(program, ctxgrad), _outcome(program, torch)
    assert got == want
    return want


def _leaf(lib: Any) -> Any:
    return lib.tensor([1.0, 2.0, 3.0], requires_grad=True)


def _not_leaf(lib: Any) -> Any:
    return 1 + lib.tensor([1.0, 2.0, 3.0], requires_grad=True)


# ----------------------------------------------------------------------------- what pack gets
def test_pack_gets_what_the_op_saved_with_grad_mode_off() -> None:
    def program(lib: Any) -> Any:
        a = _leaf(lib)
        packed: list[Any] = []

        def pack(t: Any) -> Any:
            packed.append((t, lib.is_grad_enabled()))
            return t

        with lib.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
            b = a.clone()
            c = b.exp()  # (saves its result)
            b * c

        return [(t is a, t is b, t is c, grad_mode, t.grad_fn is None) for t, grad_mode in packed]

    # (each library packs the two operands of the product in its own order)
    got, want = _outcome(program, ctxgrad), _outcome(program, torch)
    assert got[0] == want[0] == (False, False, True, False, False)
    assert sorted(got[1:]) == sorted(want[1:])


@pytest.mark.parametrize("make", [_leaf, _not_leaf], ids=["leaf", "not a leaf"])
def test_a_pack_hook_that_changes_its_input_in_place_is_refused(make: Callable[[Any], Any]) -> None:
    def double_in_place(t: Any) -> Any:
        t *= 2
        return t

    def default_hooks(lib: Any) -> Any:
        a = make(lib)
        with lib.autograd.graph.saved_tensors_hooks(double_in_place, lambda t: t):
            a * a

    def hooks_of_one_saved_tensor(lib: Any) -> Any:
        a = make(lib)
        (a * a).grad_fn._raw_saved_self.register_hooks(double_in_place, lambda t: t / 2)

    for program in (default_hooks, hooks_of_one_saved_tensor):
        outcome = _same(program)
        assert outcome[:2] == ("raises", "RuntimeError")
        assert outcome[2].startswith("A saved tensor pack hook is modifying its input in place.")


# ----------------------------------------------------------------------------- no version check
HOOKS = {
    "identity": lambda lib: lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t),
    "a copy": lambda lib: lib.autograd.graph.saved_tensors_hooks(lambda t: t.clone(), lambda t: t),
    "save_on_cpu": lambda lib: lib.autograd.graph.save_on_cpu(),
    "save_on_cpu, pinned": lambda lib: lib.autograd.graph.save_on_cpu(pin_memory=True),
}


@pytest.mark.parametrize("hooks", sorted(HOOKS))
def test_unpacked_tensors_are_not_version_checked(hooks: str) -> None:
    def program(lib: Any) -> Any:
        a = _leaf(lib)
        with HOOKS[hooks](lib):
            b = a.clone()
            y = (b * b).sum()
        b.add_(1)
        y.backward()
        return a.grad

    # (save_on_cpu packs a CPU tensor itself, and a pinned copy of it with pin_memory)
    expected = [2.0, 4.0, 6.0] if hooks in ("a copy", "save_on_cpu, pinned") else [4.0, 6.0, 8.0]
    assert _same(program) == expected


def test_without_hooks_the_change_is_refused() -> None:
    def program(lib: Any) -> Any:
        b = _leaf(lib).clone()
        y = (b * b).sum()
        b.add_(1)
        y.backward()

    got, want = _outcome(program, ctxgrad), _outcome(program, torch)
    assert got[:2] == want[:2] == ("raises", "RuntimeError")
    assert got[2].startswith(want[2].split("[torch.")[0])


@pytest.mark.parametrize("hooks", sorted(HOOKS))
def test_second_derivatives_through_hooks(hooks: str) -> None:
    def program(lib: Any) -> Any:
        a = _leaf(lib)
        with HOOKS[hooks](lib):
            y = (a * a.exp()).sum()
            (g,) = lib.autograd.grad(y, a, create_graph=True)
        g.sum().backward()
        return g, a.grad

    got, want = _outcome(program, ctxgrad), _outcome(program, torch)
    np.testing.assert_allclose(got, want, rtol=1e-5)


# ----------------------------------------------------------------------------- one saved tensor
UNPACKS = {"halve": lambda t: t / 2, "keep": lambda t: t}


@pytest.mark.parametrize("make", [_leaf, _not_leaf], ids=["leaf", "not a leaf"])
@pytest.mark.parametrize("unpack", sorted(UNPACKS))
def test_hooks_of_one_saved_input(make: Callable[[Any], Any], unpack: str) -> None:
    def program(lib: Any) -> Any:
        a = make(lib)
        history = a.grad_fn
        y = a * a
        y.grad_fn._raw_saved_self.register_hooks(lambda t: 2 * t, UNPACKS[unpack])
        saved = y.grad_fn._saved_self
        (grad,) = lib.autograd.grad(y.sum(), a)
        # (what unpack gives comes back with the history of the tensor saved)
        return saved, saved.grad_fn is history, grad

    factor = 1.0 if unpack == "halve" else 2.0
    values = [1.0, 2.0, 3.0] if make is _leaf else [2.0, 3.0, 4.0]
    assert _same(program) == ([factor * v for v in values], True, [(1 + factor) * v for v in values])


def test_hooks_of_a_saved_output_keep_its_history() -> None:
    def program(lib: Any) -> Any:
        a = _leaf(lib)
        y = a.exp()
        y.grad_fn._raw_saved_result.register_hooks(lambda t: t, lambda t: t)
        saved = y.grad_fn._saved_result
        facts = (saved is y, saved.grad_fn is y.grad_fn)
        y.sum().backward()
        return facts, a.grad

    got, want = _outcome(program, ctxgrad), _outcome(program, torch)
    assert got[0] == want[0] == (False, True)
    np.testing.assert_allclose(got[1], want[1], rtol=1e-6)


MISUSE = {
    "twice": lambda lib, y: [y.grad_fn._raw_saved_result.register_hooks(lambda t: t, lambda t: t) for _ in "ab"],
    "an unpack hook returning a number": lambda lib, y: (
        y.grad_fn._raw_saved_result.register_hooks(lambda t: t, lambda t: 1),
        y.grad_fn._saved_result,
    ),
    "after backward freed it": lambda lib, y: (
        y.sum().backward(),
        y.grad_fn._raw_saved_result.register_hooks(lambda t: t, lambda t: t),
    ),
}


@pytest.mark.parametrize("name", sorted(MISUSE))
def test_misuse_of_hooks_of_one_saved_tensor(name: str) -> None:
    def program(lib: Any) -> Any:
        return MISUSE[name](lib, _leaf(lib).exp())

    outcome = _same(program)
    assert outcome[0] == "raises"


def test_hooks_set_by_a_block_leave_no_room_for_more() -> None:
    def program(lib: Any) -> Any:
        a = _leaf(lib)
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            y = a * a
        y.grad_fn._raw_saved_self.register_hooks(lambda t: t, lambda t: t)

    assert _same(program) == (
        "raises",
        "RuntimeError",
        "Calling register_hooks on a saved tensor whose hooks have already been set. Hint: only one pair of "
        "hooks is allowed at a time.",
    )


@pytest.mark.parametrize("order", ["hooks inside the block", "the block inside hooks"])
def test_disable_saved_tensors_hooks(order: str) -> None:
    def program(lib: Any) -> Any:
        graph = lib.autograd.graph
        if order == "hooks inside the block":
            with graph.disable_saved_tensors_hooks("hooks are off here"), graph.save_on_cpu():
                pass
        else:
            with graph.save_on_cpu(), graph.disable_saved_tensors_hooks("hooks are off here"):
                pass

    assert _same(program) == ("raises", "RuntimeError", "hooks are off here")

"""``set_saved_array_lock_enabled``: the read-only lock on saved arrays, switched off for speed.

With the lock off, saving a tensor leaves its memory writeable: a NumPy write into it goes
uncaught and the backward reads the new values, as in torch (compared below with torch's
own answer); ctxgrad's in-place ops are still caught by the version counter.  The switch is
per thread and works as a call, a ``with`` block and a decorator, like ``set_grad_enabled``.
"""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pytest

import ctxgrad
from ctxgrad.autograd import Function
from ctxgrad.autograd.graph import (
    allow_mutation_on_saved_tensors,
    is_saved_array_lock_enabled,
    set_saved_array_lock_enabled,
)


def leaf(*values: float) -> Any:
    return ctxgrad.tensor(list(values), dtype=ctxgrad.float64, requires_grad=True)


class SquashOnArrays(Function):
    """x / (1 + x²) on arrays, saving x."""

    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        ctx.save_for_backward(x)
        a = x.array
        return ctxgrad.as_tensor(a / (1 + a * a))

    @staticmethod
    def backward(ctx: Any, g: ctxgrad.Tensor) -> ctxgrad.Tensor:
        (x,) = ctx.saved_tensors
        a = x.array
        return ctxgrad.as_tensor(g.array * (1 - a * a) / (1 + a * a) ** 2)


def test_the_lock_is_on_by_default_and_back_on_after_a_with_block() -> None:
    assert is_saved_array_lock_enabled()
    x = leaf(0.0, 1.0)
    with set_saved_array_lock_enabled(False):
        assert not is_saved_array_lock_enabled()
        y = x.exp()  # ExpBackward0 saves its output
    assert is_saved_array_lock_enabled()
    y.detach().numpy()[0] = 5.0  # not locked: saved while the lock was off
    z = x.exp()
    with pytest.raises(ValueError, match="read-only"):
        z.detach().numpy()[0] = 5.0


def test_called_it_switches_at_once_and_as_a_decorator_only_inside() -> None:
    set_saved_array_lock_enabled(False)
    try:
        assert not is_saved_array_lock_enabled()
    finally:
        set_saved_array_lock_enabled(True)
    assert is_saved_array_lock_enabled()

    @set_saved_array_lock_enabled(False)
    def inside() -> bool:
        return is_saved_array_lock_enabled()

    assert is_saved_array_lock_enabled()  # (decorating does not switch it)
    assert inside() is False
    assert is_saved_array_lock_enabled()


def test_the_lock_is_restored_when_the_block_raises() -> None:
    with pytest.raises(KeyError):
        with set_saved_array_lock_enabled(False):
            raise KeyError("inside")
    assert is_saved_array_lock_enabled()


def test_unlocked_a_users_array_stays_writeable_while_saved_and_after() -> None:
    a = np.array([1.0, 2.0, 3.0])
    t = ctxgrad.from_numpy(a).requires_grad_()
    with set_saved_array_lock_enabled(False):
        y = (t * t).sum()
    assert a.flags.writeable
    y.backward()
    assert a.flags.writeable
    np.testing.assert_array_equal(t.grad.numpy(), [2.0, 4.0, 6.0])


def test_gradients_are_the_same_with_the_lock_on_and_off() -> None:
    def gradient() -> np.ndarray:
        x = ctxgrad.tensor(np.linspace(-2.0, 2.0, 7), requires_grad=True)
        y = x
        for _ in range(5):
            y = SquashOnArrays.apply(y)
        y.sum().backward()
        assert x.grad is not None
        return x.grad.numpy()

    locked = gradient()
    with set_saved_array_lock_enabled(False):
        unlocked = gradient()
    np.testing.assert_array_equal(locked, unlocked)


def test_ctxgrads_own_inplace_change_is_still_caught_without_the_lock() -> None:
    x = leaf(0.0, 1.0)
    with set_saved_array_lock_enabled(False):
        y = x.exp()
        y.mul_(2)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            y.sum().backward()


def test_a_tensor_saved_unlocked_then_locked_is_read_only_until_the_locking_graph_goes() -> None:
    x = leaf(1.0, 2.0)
    y = x * 3
    with set_saved_array_lock_enabled(False):
        unlocked = y * y  # saves y, unlocked
    locked = y.sin()  # saves y, locked
    with pytest.raises(ValueError, match="read-only"):
        y.detach().numpy()[0] = 0.0
    del locked
    y.detach().numpy()[0] = 0.0  # the unlocked graph still holds y, but holds no lock
    del unlocked
    assert y.tolist() == [0.0, 6.0]


def test_allow_mutation_keeps_its_copy_unlocked_when_the_original_was() -> None:
    with allow_mutation_on_saved_tensors(), set_saved_array_lock_enabled(False):
        a = ctxgrad.ones(3, requires_grad=True)
        b = a.clone()
        out = (b**2).sum()
        b.mul_(3)  # the saved b is copied first; the copy is not locked, as b was not
        saved = out.grad_fn.next_functions[0][0]._saved_self
        assert saved.numpy(force=True).flags.writeable
        out.backward()
    np.testing.assert_array_equal(a.grad.numpy(), [2.0, 2.0, 2.0])


def test_the_switch_is_per_thread() -> None:
    seen: list[bool] = []

    def other() -> None:
        seen.append(is_saved_array_lock_enabled())
        x = leaf(0.0, 1.0)
        y = x.exp()
        try:
            y.detach().numpy()[0] = 5.0
            seen.append(False)
        except ValueError:
            seen.append(True)

    with set_saved_array_lock_enabled(False):
        thread = threading.Thread(target=other)
        thread.start()
        thread.join()
        assert not is_saved_array_lock_enabled()
    assert seen == [True, True]  # the other thread kept its default and locked


def test_unlocked_a_numpy_write_changes_the_gradient_as_in_torch() -> None:
    torch = pytest.importorskip("torch")

    def run(lib: Any) -> list[float]:
        x = lib.tensor([0.0, 1.0], dtype=lib.float64, requires_grad=True)
        y = x.exp()  # saves its output; the backward reads it
        y.detach().numpy()[0] = 5.0  # a NumPy write: torch does not see it
        y.sum().backward()
        return [float(v) for v in x.grad]

    with set_saved_array_lock_enabled(False):
        ours = run(ctxgrad)
    assert ours == run(torch) == [5.0, float(np.exp(1.0))]

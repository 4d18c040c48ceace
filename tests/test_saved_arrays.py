"""Saved arrays are read-only while a graph holds them.

The version counter sees ctxgrad's own in-place ops, not NumPy code that writes into a
tensor's array (``t.detach().numpy()[0] = 1``); such a write to a tensor saved for backward
would make that backward silently wrong (in torch too).  So ctxgrad makes the array of
every saved tensor read-only while it is saved: the NumPy write fails at once.  Its own
in-place ops stay allowed, with torch's semantics (the version error at backward).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import ctxgrad


def leaf(*values: float) -> Any:
    return ctxgrad.tensor(list(values), dtype=ctxgrad.float64, requires_grad=True)


def test_numpy_write_into_a_saved_output_is_refused_until_backward_frees_it() -> None:
    x = leaf(0.0, 1.0)
    y = x.exp()  # ExpBackward0 saves y
    with pytest.raises(ValueError, match="read-only"):
        y.detach().numpy()[0] = 5.0
    y.sum().backward()  # frees what was saved
    y.detach().numpy()[0] = 5.0
    assert y.tolist()[0] == 5.0
    np.testing.assert_allclose(x.grad.numpy(), np.exp([0.0, 1.0]))


def test_deleting_the_graph_gives_the_array_back() -> None:
    x = leaf(1.0, 2.0)
    y = x * 3
    z = y * y  # saves y (twice: one lock per saved tensor)
    with pytest.raises(ValueError, match="read-only"):
        y.detach().numpy()[...] = 0.0
    del z
    y.detach().numpy()[...] = 0.0
    assert y.tolist() == [0.0, 0.0]


def test_a_users_numpy_array_is_protected_while_saved() -> None:
    a = np.array([1.0, 2.0, 3.0])
    t = ctxgrad.from_numpy(a).requires_grad_()
    y = (t * t).sum()
    assert not a.flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        a[0] = 10.0
    y.backward()
    assert a.flags.writeable
    np.testing.assert_array_equal(t.grad.numpy(), [2.0, 4.0, 6.0])


def test_an_array_that_was_read_only_stays_read_only() -> None:
    a = np.array([1.0, 2.0])
    a.flags.writeable = False
    t = ctxgrad.from_numpy(a).requires_grad_()
    y = (t * t).sum()
    y.backward()
    assert not a.flags.writeable


def test_ctxgrads_own_inplace_ops_keep_torchs_semantics() -> None:
    """Allowed while saved; the version check reports the change at backward."""
    x = leaf(1.0, 2.0)
    y = x * 1
    z = y * y
    y.mul_(2)
    y[0] = 7.0
    assert y.tolist() == [7.0, 4.0]
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        z.sum().backward()


def test_an_optimizer_step_on_saved_parameters_works() -> None:
    w = leaf(1.0, -2.0)
    loss = (w * w).sum()  # saves w
    loss.backward(retain_graph=True)
    opt = ctxgrad.optim.SGD([w], lr=0.1)
    opt.step()
    assert w.tolist() == pytest.approx([0.8, -1.6])
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        loss.backward()


def test_gradcheck_perturbs_inputs_that_a_live_graph_saved() -> None:
    x = leaf(0.5, 1.5)
    kept = x.sin() * x  # a graph that saved x, alive during the check
    assert ctxgrad.autograd.gradcheck(lambda t: (t * t).exp(), (x,))
    assert kept.requires_grad
    assert x.tolist() == [0.5, 1.5]


def test_a_numpy_write_in_forward_names_the_function_and_argument() -> None:
    class AddOne(ctxgrad.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            x.detach().numpy()[...] += 1
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g

    x = leaf(1.0) * 1
    kept = x.exp() * x  # saves x
    with pytest.raises(RuntimeError) as info:
        AddOne.apply(x)
    assert str(info.value).startswith("AddOne.forward wrote into the array of argument 'x' (index 0) with NumPy")
    assert kept.requires_grad

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
    assert str(info.value).startswith("AddOne.forward failed (ValueError: ")
    assert "while the array of argument 'x' (index 0) is read-only: a graph has saved that tensor" in str(info.value)
    assert kept.requires_grad


# --------------------------------------------------------------------------- views: the boundary
# What is locked is the memory: the array that owns it, and the saved tensor's own array when
# it is a view.  Views made of that memory later are read-only too; a view made *before* the
# save keeps its own flag (NumPy does not tie a view's flag to its base's), so a write through
# it is not caught.  torch catches none of these writes (its version counter does not see NumPy).


def test_a_saved_view_locks_its_memory() -> None:
    t = leaf(1.0, 2.0, 3.0) * 1
    v = t[1:]
    y = v.sin()  # SinBackward0 saves the view v
    with pytest.raises(ValueError, match="read-only"):
        v.detach().numpy()[0] = 5.0  # the saved view's own array
    with pytest.raises(ValueError, match="read-only"):
        t.detach().numpy()[1] = 5.0  # the array that owns the memory
    y.sum().backward()
    v.detach().numpy()[0] = 5.0
    t.detach().numpy()[2] = 6.0
    assert t.tolist() == [1.0, 5.0, 6.0]


def test_from_numpy_of_a_view_locks_the_array_it_views() -> None:
    a = np.arange(4.0)
    t = ctxgrad.from_numpy(a[1:]).requires_grad_()
    y = t.sin().sum()
    with pytest.raises(ValueError, match="read-only"):
        a[1] = 10.0
    y.backward()
    assert a.flags.writeable
    np.testing.assert_allclose(t.grad.numpy(), np.cos([1.0, 2.0, 3.0]))


@pytest.mark.parametrize("lib", ["ctxgrad", "torch"])
def test_a_view_taken_while_its_base_was_saved_can_be_changed_after(lib: str) -> None:
    """ctxgrad's in-place ops through it work once the graph is freed, as in torch."""
    m: Any = ctxgrad if lib == "ctxgrad" else pytest.importorskip("torch")
    u = m.tensor([1.0, 2.0, 3.0], dtype=m.float64, requires_grad=True) * 1
    y = u.sin()  # saves u
    w = u[0:2]  # taken while u is saved
    y.sum().backward()
    w.mul_(2)
    w[1] = 7.0
    assert u.tolist() == [2.0, 7.0, 3.0]


def test_a_view_taken_while_its_base_was_saved_is_writeable_with_numpy_after() -> None:
    u = leaf(1.0, 2.0, 3.0) * 1
    y = u.sin()
    w = u.t()[1:]  # two view ops while u is saved
    with pytest.raises(ValueError, match="read-only"):
        w.detach().numpy()[0] = 5.0
    del y  # the graph is freed
    w.detach().numpy()[0] = 5.0
    assert u.tolist() == [1.0, 5.0, 3.0]


def test_an_expanded_view_stays_read_only() -> None:
    """A view with a stride 0 is read-only for its own sake, saved or not."""
    u = leaf(1.0, 2.0) * 1
    y = u.sin()
    e = u.expand(3, 2)
    del y
    with pytest.raises(ValueError, match="read-only"):
        e.detach().numpy()[0, 0] = 5.0
    assert u.tolist() == [1.0, 2.0]


@pytest.mark.parametrize("lib", ["ctxgrad", "torch"])
def test_a_numpy_view_taken_before_the_save_is_not_protected(lib: str) -> None:
    """The boundary of the promise: this write is not caught (in torch neither), and the
    backward uses the new value."""
    m: Any = ctxgrad if lib == "ctxgrad" else pytest.importorskip("torch")
    t = m.tensor([0.0, 1.0, 2.0], dtype=m.float64, requires_grad=True)
    before = t.detach().numpy()[0:2]  # a NumPy view, taken before the save
    y = t.sin()  # saves t
    before[0] = 3.0  # not caught
    y.sum().backward()
    np.testing.assert_allclose(t.grad.numpy(), np.cos([3.0, 1.0, 2.0]))


def test_the_array_of_a_ctxgrad_view_taken_before_the_save_is_not_protected() -> None:
    t = leaf(0.0, 1.0, 2.0)
    earlier = t[1:].detach().numpy()  # a ctxgrad view's array, taken before the save
    y = t.sin()
    earlier[0] = 3.0  # not caught
    y.sum().backward()
    np.testing.assert_allclose(t.grad.numpy(), np.cos([0.0, 3.0, 2.0]))


def test_a_numpy_view_taken_while_saved_stays_read_only_after() -> None:
    """NumPy gives a new view its base's flag, and ctxgrad does not know the views NumPy code
    makes: one taken while the array was locked stays read-only (``.copy()`` it, or take it
    again)."""
    t = leaf(0.0, 1.0)
    y = t.sin()
    during = t.detach().numpy()[0:1]
    y.sum().backward()
    assert t.detach().numpy().flags.writeable
    with pytest.raises(ValueError, match="read-only"):
        during[0] = 3.0
    t.detach().numpy()[0:1][0] = 3.0
    assert t.tolist() == [3.0, 1.0]


def test_memory_from_a_writeable_buffer_is_writeable_again_after_the_graph() -> None:
    # The array that owns the memory views a bytearray: locked while saved, given back after.
    a = np.frombuffer(bytearray(np.array([1.0, 2.0]).tobytes()), dtype=np.float64)
    t = ctxgrad.from_numpy(a).requires_grad_()
    y = (t * t).sum()
    assert not a.flags.writeable
    y.backward()
    assert a.flags.writeable
    a[0] = 3.0
    np.testing.assert_array_equal(t.grad.numpy(), [2.0, 4.0])


def test_memory_from_a_read_only_buffer_stays_read_only_after_the_graph() -> None:
    a = np.frombuffer(np.array([1.0, 2.0]).tobytes(), dtype=np.float64)  # (bytes: read-only)
    t = ctxgrad.from_numpy(a).requires_grad_()
    y = (t * t).sum()
    y.backward()
    assert not a.flags.writeable
    np.testing.assert_array_equal(t.grad.numpy(), [2.0, 4.0])


def test_the_flag_helpers_agree_with_numpy_in_either_build() -> None:
    # _arrayflags is the lock's access to the write flag: Python here, C in the compiled core.
    from ctxgrad.autograd import _arrayflags

    a = np.zeros(3)
    view = a[1:]
    assert _arrayflags.is_writeable(a) is True
    _arrayflags.set_read_only(a)
    assert a.flags.writeable is False and _arrayflags.is_writeable(a) is False
    assert view.flags.writeable is True  # (a view's flag is its own)
    _arrayflags.set_writeable(a)
    assert a.flags.writeable is True
    _arrayflags.setflags(view, False)
    assert _arrayflags.is_writeable(view) is False
    compiled = "ctxgrad.autograd._arrayflags" in ctxgrad.version.compiled_modules
    with pytest.raises(TypeError if compiled else AttributeError):
        _arrayflags.is_writeable([0.0])


def test_memory_owned_by_a_torch_tensor_stays_read_only_after_the_graph() -> None:
    # NumPy cannot ask a torch tensor whether its memory may be written, so it refuses to set
    # the flag back (docs/guarantees.md): the array stays read-only, and a copy is writeable.
    torch = pytest.importorskip("torch")
    a = torch.ones(3, dtype=torch.float64).numpy()
    t = ctxgrad.from_numpy(a).requires_grad_()
    (t * t).sum().backward()
    assert not a.flags.writeable
    assert np.array(a).flags.writeable
    np.testing.assert_array_equal(t.grad.numpy(), [2.0, 2.0, 2.0])

"""``ctxgrad.autograd.is_recording``: whether ops run now can be recorded or transformed, the
question a backward asks before computing on arrays (docs/custom-functions.md, section 10)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import ctxgrad
from ctxgrad.autograd import Function, is_recording
from ctxgrad.autograd import forward_ad as fwAD


def test_grad_mode_decides_outside_any_transform() -> None:
    assert is_recording()
    with ctxgrad.no_grad():
        assert not is_recording()
        with ctxgrad.enable_grad():
            assert is_recording()
    with ctxgrad.inference_mode():
        assert is_recording()  # (inference mode changes what ops return: not a plain call)


def test_transforms_and_traces_count_as_recording_even_without_grad() -> None:
    seen: list[bool] = []

    def probe(x: Any) -> Any:
        with ctxgrad.no_grad():
            seen.append(is_recording())
        return x * 2

    ctxgrad.func.vmap(probe)(ctxgrad.ones(3, 2))
    with fwAD.dual_level():
        probe(fwAD.make_dual(ctxgrad.ones(2), ctxgrad.ones(2)))
    ctxgrad.trace(probe, ctxgrad.ones(2))
    assert seen == [True, True, True]


class CubeBothWays(Function):
    """The pattern the docs teach: NumPy when nothing records, ops otherwise."""

    arrays_used = 0

    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        ctx.save_for_backward(x)
        return ctxgrad.as_tensor(x.array**3)

    @staticmethod
    def backward(ctx: Any, grad: Any) -> Any:
        (x,) = ctx.saved_tensors
        if not is_recording():
            CubeBothWays.arrays_used += 1
            return ctxgrad.as_tensor(3 * x.array**2 * grad.array)
        return 3 * x**2 * grad


def test_a_backward_takes_the_arrays_only_when_nothing_records() -> None:
    CubeBothWays.arrays_used = 0
    x = ctxgrad.tensor([2.0, -1.5], requires_grad=True)
    CubeBothWays.apply(x).sum().backward()
    assert CubeBothWays.arrays_used == 1
    np.testing.assert_array_equal(x.grad.numpy(), [12.0, 6.75])
    (dx,) = ctxgrad.autograd.grad(CubeBothWays.apply(x).sum(), x, create_graph=True)
    assert CubeBothWays.arrays_used == 1 and dx.requires_grad  # (the ops: a graph of the gradient)
    (ddx,) = ctxgrad.autograd.grad(dx.sum(), x)
    np.testing.assert_array_equal(ddx.numpy(), [12.0, -9.0])  # 6x


@pytest.mark.filterwarnings("ignore:vmap. CubeBothWays has no batching rule")
def test_the_pattern_batches_under_vmap_of_grad() -> None:
    CubeBothWays.arrays_used = 0
    xs = ctxgrad.tensor([[1.0, 2.0], [3.0, -1.0]])
    grads = ctxgrad.func.vmap(ctxgrad.func.grad(lambda x: CubeBothWays.apply(x).sum()))(xs)
    np.testing.assert_array_equal(grads.numpy(), 3 * xs.numpy() ** 2)
    assert CubeBothWays.arrays_used == 0


def test_is_recording_is_exported_beside_is_grad_enabled() -> None:
    assert "is_recording" in ctxgrad.autograd.__all__
    assert ctxgrad.autograd.is_recording is ctxgrad.autograd.grad_mode.is_recording


@pytest.mark.parametrize("create_graph", [False, True])
def test_the_built_in_shortcuts_follow_is_recording(create_graph: bool) -> None:
    # mm's backward on arrays (nothing records) or through Mm (recorded): the same values.
    a = ctxgrad.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    b = ctxgrad.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
    ga, gb = ctxgrad.autograd.grad((a @ b).sum(), (a, b), create_graph=create_graph)
    assert ga.requires_grad is create_graph and gb.requires_grad is create_graph
    np.testing.assert_array_equal(ga.detach().numpy(), np.ones((2, 2)) @ b.detach().numpy().T)
    np.testing.assert_array_equal(gb.detach().numpy(), a.detach().numpy().T @ np.ones((2, 2)))

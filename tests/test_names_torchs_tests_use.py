"""More names torch's own test files use that ctxgrad lacked, each against torch:
``multiply`` and ``subtract`` (aliases of ``mul`` and ``sub``, with their in-place variants),
``nn.Buffer``, and forward-mode AD's private switch ``_set_fwd_grad_enabled``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import ctxgrad

torch = pytest.importorskip("torch")


@pytest.mark.torch_names(
    "torch.multiply", "Tensor.multiply", "Tensor.multiply_", "torch.subtract", "Tensor.subtract", "Tensor.subtract_"
)
def test_multiply_and_subtract_are_mul_and_sub() -> None:
    values, others = np.array([1.5, -2.0, 3.0]), np.array([2.0, 0.5, -1.0])

    def run(m: Any) -> tuple[Any, ...]:
        x = m.tensor(values, requires_grad=True)
        y = m.tensor(others, requires_grad=True)
        (m.multiply(x, y) + x.multiply(2) + m.subtract(x, y, alpha=3) + x.subtract(y)).sum().backward()
        z = m.tensor(values)
        z.multiply_(m.tensor(others)).subtract_(1.0, alpha=2)
        return x.grad.tolist(), y.grad.tolist(), z.tolist()

    assert run(ctxgrad) == run(torch)
    assert ctxgrad.multiply is ctxgrad.mul and ctxgrad.subtract is ctxgrad.sub


@pytest.mark.torch_names("torch.nn.Buffer")
def test_buffer_assigned_to_a_module_is_registered_as_in_torch() -> None:
    def run(m: Any) -> tuple[Any, ...]:
        module = m.nn.Module()
        data = m.tensor([1.0, 2.0], requires_grad=True)
        module.kept = m.nn.Buffer(data)
        module.scratch = m.nn.Buffer(m.zeros(3), persistent=False)
        module.plain = m.ones(1)
        module.kept = m.tensor([5.0])  # (a plain tensor assigned to a buffer's name stays a buffer)
        marked = m.nn.Buffer(data)
        data.detach().mul_(2)  # (the Buffer shares data's storage)
        return (
            sorted(name for name, _ in module.named_buffers()),
            sorted(module.state_dict()),
            type(marked).__name__,
            isinstance(marked, m.nn.Buffer),
            isinstance(data, m.nn.Buffer),
            marked.requires_grad,
            marked.is_leaf,
            marked.tolist(),
            m.nn.Buffer().shape == (0,),
        )

    assert run(ctxgrad) == run(torch)


def test_buffer_refuses_a_plain_attributes_name_and_non_tensors_as_torch() -> None:
    def errors(m: Any) -> list[tuple[type, str]]:
        module = m.nn.Module()
        module.taken = 3
        found = []
        for action in (
            lambda: setattr(module, "taken", m.nn.Buffer(m.ones(1))),
            lambda: (module.register_buffer("b", m.ones(1)), setattr(module, "b", "text")),
        ):
            with pytest.raises(Exception) as caught:
                action()
            found.append((type(caught.value), str(caught.value).replace("ctxgrad", "torch")))
        return found

    assert errors(ctxgrad) == errors(torch)


@pytest.mark.torch_names("torch.autograd.forward_ad._set_fwd_grad_enabled")
def test_switching_forward_grad_off_as_torch() -> None:
    def run(m: Any) -> list[Any]:
        fw = m.autograd.forward_ad
        seen: list[Any] = []

        def tangent(t: Any) -> Any:
            found = fw.unpack_dual(t).tangent
            return None if found is None else found.tolist()

        with fw.dual_level():
            x = fw.make_dual(m.ones(2), m.full((2,), 3.0))
            with fw._set_fwd_grad_enabled(False):
                seen += [fw._is_fwd_grad_enabled(), tangent(x * 2), tangent(x)]
                seen.append(tangent(fw.make_dual(m.ones(2), m.ones(2))))
            seen += [fw._is_fwd_grad_enabled(), tangent(x * 2)]
            fw._set_fwd_grad_enabled(False)  # (called, not entered: it switches at once)
            seen.append(fw._is_fwd_grad_enabled())
            fw._set_fwd_grad_enabled(True)
            seen += [fw._is_fwd_grad_enabled(), tangent(x.sin() * 0 + x)]
        return seen

    assert run(ctxgrad) == run(torch)


def test_forward_grad_switch_decorates_a_function() -> None:
    """(torch's own decorator form fails: its clone() calls the class without ``mode``.)"""
    fw = ctxgrad.autograd.forward_ad

    @fw._set_fwd_grad_enabled(False)
    def without_tangents(t: Any) -> Any:
        return fw._is_fwd_grad_enabled(), fw.unpack_dual(t * 5).tangent

    with fw.dual_level():
        x = fw.make_dual(ctxgrad.ones(2), ctxgrad.ones(2))
        assert fw._is_fwd_grad_enabled()
        assert without_tangents(x) == (False, None)
        assert fw._is_fwd_grad_enabled()
        assert fw.unpack_dual(x * 5).tangent.tolist() == [5.0, 5.0]


def test_a_dual_level_closes_while_forward_grad_is_off_as_in_torch() -> None:
    def run(m: Any) -> list[Any]:
        fw = m.autograd.forward_ad
        with fw.dual_level():
            fw.make_dual(m.ones(2), m.ones(2))
            fw._set_fwd_grad_enabled(False)
        seen = [fw._is_fwd_grad_enabled()]
        fw._set_fwd_grad_enabled(True)
        with fw.dual_level():
            seen.append(fw.unpack_dual(fw.make_dual(m.ones(2), m.ones(2)) * 2).tangent.tolist())
        return seen

    assert run(ctxgrad) == run(torch)

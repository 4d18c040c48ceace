"""Names torch's own test files use that ctxgrad lacked (issue 27's list), each against torch:
``multiply`` and ``subtract`` (aliases of ``mul`` and ``sub``, with their in-place variants)."""

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

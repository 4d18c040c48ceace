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

"""``ctxgrad.bridge.to_torch``: a ctxgrad Function inside a torch model trains as the same
model with a native torch Function does."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest

import ctxgrad
from ctxgrad.autograd import Function
from ctxgrad.bridge import to_torch

torch = pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parent.parent


class SoftClip(Function):
    """x / (1 + |x|), a smooth clip, written for ctxgrad."""

    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        ctx.save_for_backward(x)
        return x / (1 + x.abs())

    @staticmethod
    def backward(ctx: Any, grad: ctxgrad.Tensor) -> ctxgrad.Tensor:
        (x,) = ctx.saved_tensors
        return grad / (1 + x.abs()) ** 2


class TorchSoftClip(torch.autograd.Function):
    """The same op, written for torch."""

    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        ctx.save_for_backward(x)
        return x / (1 + x.abs())

    @staticmethod
    def backward(ctx: Any, grad: Any) -> Any:
        (x,) = ctx.saved_tensors
        return grad / (1 + x.abs()) ** 2


class ScaledMul(Function):
    """x * w * scale, and the sign of x as a non-differentiable integer output."""

    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor, w: ctxgrad.Tensor, scale: float) -> tuple[ctxgrad.Tensor, ctxgrad.Tensor]:
        ctx.save_for_backward(x, w)
        ctx.scale = scale
        sign = (x > 0).long()
        ctx.mark_non_differentiable(sign)
        return x * w * scale, sign

    @staticmethod
    def backward(ctx: Any, grad: ctxgrad.Tensor, grad_sign: Any) -> tuple[Any, Any, None]:
        x, w = ctx.saved_tensors
        return grad * w * ctx.scale, grad * x * ctx.scale, None


def train(activation: Any) -> list[float]:
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 8), torch.nn.Linear(8, 1)).double()
    data = torch.randn(32, 4, dtype=torch.float64)
    target = torch.sin(data.sum(1, keepdim=True))
    optimiser = torch.optim.SGD(model.parameters(), lr=0.1)
    losses = []
    for _ in range(20):
        optimiser.zero_grad()
        hidden = activation.apply(model[0](data))
        loss = torch.nn.functional.mse_loss(model[1](hidden), target)
        loss.backward()
        optimiser.step()
        losses.append(loss.item())
    return losses


def test_a_bridged_function_trains_a_torch_model_as_the_native_one_does() -> None:
    bridged = train(to_torch(SoftClip))
    native = train(TorchSoftClip)
    np.testing.assert_allclose(bridged, native, rtol=1e-12)
    assert bridged[-1] < bridged[0]  # it learns


def test_gradients_non_tensor_arguments_and_non_differentiable_outputs() -> None:
    bridged = to_torch(ScaledMul)
    assert bridged.__name__ == "ScaledMulTorch" and bridged.ctxgrad_function is ScaledMul
    x = torch.tensor([1.0, -2.0, 3.0], dtype=torch.float64, requires_grad=True)
    w = torch.tensor([0.5, 0.25, -1.0], dtype=torch.float64, requires_grad=True)
    y, sign = bridged.apply(x, w, 2.0)
    assert sign.tolist() == [1, 0, 1] and not sign.requires_grad
    assert y.tolist() == [1.0, -1.0, -6.0] and y.requires_grad
    (y * torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0, -6.0]
    assert w.grad.tolist() == [2.0, -8.0, 18.0]
    # Only the inputs that require grad get one.
    z = torch.tensor([1.0, 2.0], dtype=torch.float64)
    v = torch.tensor([3.0, 4.0], dtype=torch.float64, requires_grad=True)
    bridged.apply(z, v, 1.0)[0].sum().backward()
    assert v.grad.tolist() == [1.0, 2.0] and z.grad is None


def test_the_result_equals_torch_autograd_gradcheck() -> None:
    x = torch.tensor([0.3, -1.2, 2.0], dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradcheck(to_torch(SoftClip).apply, (x,))


def test_only_functions_are_bridged() -> None:
    with pytest.raises(TypeError, match="to_torch expects a ctxgrad Function subclass"):
        to_torch(TorchSoftClip)


def test_importing_the_bridge_does_not_import_torch() -> None:
    code = "import sys, ctxgrad, ctxgrad.bridge; print('torch' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT)}
    )
    assert result.stdout.strip() == "False", result.stderr

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
from ctxgrad.autograd.function import once_differentiable
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


class TorchScaledMul(torch.autograd.Function):
    """ScaledMul written for torch."""

    @staticmethod
    def forward(ctx: Any, x: Any, w: Any, scale: float) -> tuple[Any, Any]:
        ctx.save_for_backward(x, w)
        ctx.scale = scale
        sign = (x > 0).long()
        ctx.mark_non_differentiable(sign)
        return x * w * scale, sign

    @staticmethod
    def backward(ctx: Any, grad: Any, grad_sign: Any) -> tuple[Any, Any, None]:
        x, w = ctx.saved_tensors
        return grad * w * ctx.scale, grad * x * ctx.scale, None


def derivatives(apply: Any, orders: int = 3) -> list[Any]:
    """The first ``orders`` derivatives of sum(weights * apply(x)), each through
    torch.autograd.grad with create_graph=True."""
    x = torch.tensor([0.3, -1.2, 2.0], dtype=torch.float64, requires_grad=True)
    weights = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
    found, value = [], (apply(x) * weights).sum()
    for _ in range(orders):
        (value,) = torch.autograd.grad(value.sum(), x, create_graph=True)
        found.append(value.detach())
        value = value * weights
    return found


def test_double_and_third_backward_through_the_bridge_equal_torchs_native() -> None:
    bridged = derivatives(to_torch(SoftClip).apply)
    native = derivatives(TorchSoftClip.apply)
    for order, (b, n) in enumerate(zip(bridged, native), 1):
        torch.testing.assert_close(b, n, rtol=1e-12, atol=0.0, msg=f"derivative {order}")
    x = torch.tensor([0.3, -1.2, 2.0], dtype=torch.float64, requires_grad=True)
    assert torch.autograd.gradgradcheck(to_torch(SoftClip).apply, (x,))


def test_double_backward_of_several_inputs_outputs_and_a_number() -> None:
    results = []
    for fn in (to_torch(ScaledMul), TorchScaledMul):
        x = torch.tensor([1.0, -2.0, 3.0], dtype=torch.float64, requires_grad=True)
        w = torch.tensor([0.5, 0.25, -1.0], dtype=torch.float64, requires_grad=True)
        y, _ = fn.apply(x, w, 2.0)
        gx, gw = torch.autograd.grad((y * y).sum(), (x, w), create_graph=True)
        second = torch.autograd.grad((gx * gw).sum(), (x, w))
        results.append([gx.detach(), gw.detach(), *second])
    for b, n in zip(*results):
        torch.testing.assert_close(b, n, rtol=1e-12, atol=0.0)


class TorchSoftClipForFunc(torch.autograd.Function):
    """SoftClip for torch in the style torch.func needs (setup_context, a vmap rule)."""

    generate_vmap_rule = True

    @staticmethod
    def forward(x: Any) -> Any:
        return x / (1 + x.abs())

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> None:
        ctx.save_for_backward(inputs[0])

    @staticmethod
    def backward(ctx: Any, grad: Any) -> Any:
        (x,) = ctx.saved_tensors
        return grad / (1 + x.abs()) ** 2


def test_torch_func_reverse_transforms_and_vmap_take_the_bridged_function() -> None:
    bridged, native = to_torch(SoftClip).apply, TorchSoftClipForFunc.apply
    x = torch.tensor([0.3, -1.2, 2.0], dtype=torch.float64)
    batch = torch.tensor([[0.3, -1.2, 2.0], [1.0, 0.5, -0.1]], dtype=torch.float64)
    func = torch.func
    cases = {
        "grad": lambda f: func.grad(lambda v: f(v).sum())(x),
        "vjp": lambda f: func.vjp(f, x)[1](torch.ones(3, dtype=torch.float64))[0],
        "jacrev": lambda f: func.jacrev(f)(x),
        "jacrev(jacrev)": lambda f: func.jacrev(func.jacrev(f))(x),
        "grad(grad)": lambda f: func.grad(lambda v: func.grad(lambda u: f(u).sum())(v).sum())(x),
        "vmap": lambda f: func.vmap(f)(batch),
        "vmap(grad)": lambda f: func.vmap(func.grad(lambda v: f(v).sum()))(batch),
    }
    for name, run in cases.items():
        torch.testing.assert_close(run(bridged), run(native), rtol=1e-12, atol=0.0, msg=name)


def test_forward_mode_transforms_say_why_not() -> None:
    x = torch.tensor([0.3, -1.2], dtype=torch.float64)
    for transform in (torch.func.jacfwd, lambda f: torch.func.hessian(lambda v: f(v).sum())):
        with pytest.raises(NotImplementedError) as raised:
            transform(to_torch(SoftClip).apply)(x)
        assert str(raised.value).startswith(
            "SoftClipTorch (ctxgrad.bridge.to_torch) has no forward-mode derivative in torch: torch.func.jvp, jacfwd "
            "and hessian need one"
        )
        assert "a Hessian as jacrev(jacrev(f))" in str(raised.value)


class OnceCube(Function):
    """x ** 3, its backward marked once_differentiable."""

    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    @once_differentiable
    def backward(ctx: Any, grad: ctxgrad.Tensor) -> ctxgrad.Tensor:
        (x,) = ctx.saved_tensors
        return 3 * x * x * grad


class TorchOnceCube(torch.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    @torch.autograd.function.once_differentiable
    def backward(ctx: Any, grad: Any) -> Any:
        (x,) = ctx.saved_tensors
        return 3 * x * x * grad


def test_a_once_differentiable_backward_raises_torchs_error_at_the_second_derivative() -> None:
    messages = []
    for fn in (to_torch(OnceCube), TorchOnceCube):
        x = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
        seed = torch.ones(2, dtype=torch.float64, requires_grad=True)  # (torch's own check looks at it)
        (g,) = torch.autograd.grad(fn.apply(x), x, seed, create_graph=True)
        assert g.tolist() == [3.0, 12.0]
        with pytest.raises(RuntimeError) as raised:
            g.sum().backward()
        messages.append(str(raised.value))
    assert messages[1].startswith("trying to differentiate twice a function that was marked with @once_differentiable")
    assert messages[0] == (
        "trying to differentiate twice a function that was marked with @once_differentiable "
        "(OnceCube.backward, run through ctxgrad.bridge.to_torch)"
    )


def test_only_functions_are_bridged() -> None:
    with pytest.raises(TypeError, match="to_torch expects a ctxgrad Function subclass"):
        to_torch(TorchSoftClip)


def test_importing_the_bridge_does_not_import_torch() -> None:
    code = "import sys, ctxgrad, ctxgrad.bridge; print('torch' in sys.modules)"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, env={"PYTHONPATH": str(ROOT)}
    )
    assert result.stdout.strip() == "False", result.stderr

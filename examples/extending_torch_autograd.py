"""The custom Functions of PyTorch's note "Extending torch.autograd", written for ctxgrad.

Three ops, each in the style the note uses for it:

- ``Exp``: ``forward(ctx, x)`` saves its *output* (``d exp(x) / dx = exp(x)``), so backward
  needs no recomputation;
- ``LinearFunction``: ``forward(input, weight, bias)`` plus ``setup_context``, and a
  backward that computes only the gradients ``ctx.needs_input_grad`` asks for;
- ``MulConstant``: a non-tensor argument kept as a ctx attribute, with ``None`` as its
  gradient.

Each is checked against finite differences with ``gradcheck`` (float64) and against the
formula it implements. The only change from the torch code is ``torch`` -> ``ctxgrad``.
Run it: ``python examples/extending_torch_autograd.py`` (exits 0 when every check passes).
"""

from __future__ import annotations

from typing import Any

import numpy as np

import ctxgrad
from ctxgrad import Tensor
from ctxgrad.autograd import Function, gradcheck


class Exp(Function):
    @staticmethod
    def forward(ctx: Any, i: Tensor) -> Tensor:
        result = i.exp()
        ctx.save_for_backward(result)  # the output: backward multiplies by it
        return result

    @staticmethod
    def backward(ctx: Any, grad_output: Tensor) -> Tensor:
        (result,) = ctx.saved_tensors
        return grad_output * result


class LinearFunction(Function):
    @staticmethod
    def forward(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
        output = input.mm(weight.t())
        if bias is not None:
            output += bias.unsqueeze(0).expand_as(output)
        return output

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Tensor) -> None:
        input, weight, bias = inputs
        ctx.save_for_backward(input, weight, bias)

    @staticmethod
    def backward(ctx: Any, grad_output: Tensor) -> tuple[Tensor | None, ...]:
        input, weight, bias = ctx.saved_tensors
        grad_input = grad_weight = grad_bias = None
        # Only what is asked for: a frozen weight costs no grad_weight matmul.
        if ctx.needs_input_grad[0]:
            grad_input = grad_output.mm(weight)
        if ctx.needs_input_grad[1]:
            grad_weight = grad_output.t().mm(input)
        if bias is not None and ctx.needs_input_grad[2]:
            grad_bias = grad_output.sum(0)
        return grad_input, grad_weight, grad_bias


class MulConstant(Function):
    @staticmethod
    def forward(tensor: Tensor, constant: float) -> Tensor:
        return tensor * constant

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Tensor) -> None:
        _, constant = inputs
        ctx.constant = constant  # a number: a ctx attribute, not save_for_backward

    @staticmethod
    def backward(ctx: Any, grad_output: Tensor) -> tuple[Tensor, None]:
        return grad_output * ctx.constant, None  # no gradient for the constant


def main() -> None:
    ctxgrad.manual_seed(0)
    x = ctxgrad.randn(5, dtype=ctxgrad.float64, requires_grad=True)
    assert gradcheck(Exp.apply, (x,))
    Exp.apply(x).sum().backward()
    assert np.allclose(x.grad.array, np.exp(x.array))
    print("Exp: gradcheck passed; x.grad == exp(x)")

    input = ctxgrad.randn(4, 3, dtype=ctxgrad.float64, requires_grad=True)
    weight = ctxgrad.randn(2, 3, dtype=ctxgrad.float64, requires_grad=True)
    bias = ctxgrad.randn(2, dtype=ctxgrad.float64, requires_grad=True)
    assert gradcheck(LinearFunction.apply, (input, weight, bias))
    out = LinearFunction.apply(input, weight, bias)
    assert np.allclose(out.array, input.array @ weight.array.T + bias.array)
    frozen = weight.detach()  # needs no gradient: backward skips grad_weight
    node = LinearFunction.apply(input, frozen, bias).grad_fn
    print("LinearFunction: gradcheck passed; needs_input_grad with a frozen weight:", node.needs_input_grad)
    assert node.needs_input_grad == (True, False, True)

    assert gradcheck(lambda t: MulConstant.apply(t, 2.5), (x,))
    x.grad = None
    MulConstant.apply(x, 2.5).sum().backward()
    assert np.allclose(x.grad.array, 2.5)
    print("MulConstant: gradcheck passed; x.grad == 2.5")


if __name__ == "__main__":
    main()

"""An in-place ReLU: a Function that changes its input, declared with ``ctx.mark_dirty``.

``forward`` clamps its input in place with ctxgrad's in-place op ``clamp_`` (the version
counter sees it), tells autograd with ``ctx.mark_dirty(x)``, and returns ``x`` itself.
ctxgrad then moves ``x``'s history onto the ReLU node, so the result *is* the input tensor,
now with ``grad_fn=<ReLU_Backward>``. It saves its output, the only thing backward needs.

The demo checks the gradient against the out-of-place ``relu``, then shows the two
mistakes autograd catches: an in-place change of a leaf that requires grad, and an
in-place change of a tensor some node saved for backward. Run it:
``python examples/inplace_relu.py``.
"""

from __future__ import annotations

from typing import Any

import numpy as np

import ctxgrad
from ctxgrad import Tensor
from ctxgrad.autograd import Function


class ReLU_(Function):
    @staticmethod
    def forward(ctx: Any, x: Tensor) -> Tensor:
        x.clamp_(min=0)  # in place, through ctxgrad (not x.array[...] = ...)
        ctx.mark_dirty(x)
        ctx.save_for_backward(x)  # the output (x is the output now)
        return x

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        (out,) = ctx.saved_tensors
        return grad * (out > 0).to(grad.dtype)


def main() -> None:
    x = ctxgrad.tensor([-1.0, 0.5, 2.0, -3.0], requires_grad=True)
    h = x * 2  # not a leaf, so it may be changed in place
    y = ReLU_.apply(h)
    print("y is h:", y is h, "  y =", y)
    assert y is h and y.grad_fn.name() == "ReLU_Backward"
    (y * ctxgrad.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
    reference = x.detach().requires_grad_()
    ((reference * 2).relu() * ctxgrad.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
    print("x.grad:", x.grad, " (out-of-place relu gives", reference.grad, ")")
    assert np.array_equal(x.grad.array, reference.grad.array)

    try:
        ReLU_.apply(ctxgrad.tensor([1.0], requires_grad=True))
    except RuntimeError as error:
        print("on a leaf:", error)
        assert "a leaf Variable that requires grad" in str(error)
    else:
        raise AssertionError("an in-place change of a leaf must raise")

    h = x * 2
    z = h.sin()  # sin saves its input h for backward ...
    ReLU_.apply(h)  # ... which then changes
    try:
        z.sum().backward()
    except RuntimeError as error:
        print("on a saved tensor:", str(error).split(";")[0])
        assert "modified by an inplace operation" in str(error)
    else:
        raise AssertionError("backward through a changed saved tensor must raise")


if __name__ == "__main__":
    main()

"""Arithmetic: ``+``, ``-``, ``*``, ``/``, ``**``, unary ``-`` and ``@``.

Binary ops take tensors or Python numbers on either side; :func:`promote_operands`
applies torch's dtype promotion before NumPy computes.  A gradient for a number is None.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ctxgrad._dtypes import get_default_dtype, promote_operands
from ctxgrad._tensor import Tensor
from ctxgrad.autograd.function import Function
from ctxgrad.ops._util import arrays, operands, save_operands, wrap


class Add(Function[Tensor]):
    """``a + b``; the gradient passes through to both sides."""

    _backward_name = "AddBackward0"

    @staticmethod
    def forward(ctx: Any, a: Any, b: Any) -> Tensor:
        x, y = arrays(a, b)
        return wrap(x + y)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        need_a, need_b = ctx.needs_input_grad
        return (grad if need_a else None, grad if need_b else None)


class Sub(Function[Tensor]):
    """``a - b``."""

    _backward_name = "SubBackward0"

    @staticmethod
    def forward(ctx: Any, a: Any, b: Any) -> Tensor:
        x, y = arrays(a, b)
        return wrap(x - y)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        need_a, need_b = ctx.needs_input_grad
        return (grad if need_a else None, -grad if need_b else None)


class Mul(Function[Tensor]):
    """``a * b``: each side's gradient is the gradient times the other side."""

    _backward_name = "MulBackward0"

    @staticmethod
    def forward(ctx: Any, a: Any, b: Any) -> Tensor:
        x, y = arrays(a, b)
        save_operands(ctx, a, b)
        return wrap(x * y)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a, b, _ = operands(ctx)
        need_a, need_b = ctx.needs_input_grad
        return (grad * b if need_a else None, grad * a if need_b else None)


class Div(Function[Tensor]):
    """``a / b`` (true division: integer inputs give a floating result)."""

    _backward_name = "DivBackward0"

    @staticmethod
    def forward(ctx: Any, a: Any, b: Any) -> Tensor:
        x, y = arrays(a, b)
        out = np.true_divide(x, y)
        if _integral(x) and _integral(y):
            out = np.asarray(out, dtype=get_default_dtype())  # torch: int / int is a float tensor
        save_operands(ctx, a, b)
        return wrap(out)

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a, b, _ = operands(ctx)
        need_a, need_b = ctx.needs_input_grad
        return (grad / b if need_a else None, -grad * a / (b * b) if need_b else None)


def _integral(v: Any) -> bool:
    dt = getattr(v, "dtype", None)
    return dt is not None and dt.kind in "iub"


class Neg(Function[Tensor]):
    """``-a``."""

    _backward_name = "NegBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor) -> Tensor:
        return wrap(np.negative(a._data))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> Tensor:
        return -grad


class Pow(Function[Tensor]):
    """``a ** b`` for a tensor or number on either side.

    d/da = b * a**(b-1); d/db = a**b * log(a), taken as 0 where a == 0 (as torch does).
    """

    _backward_name = "PowBackward0"

    @staticmethod
    def forward(ctx: Any, a: Any, b: Any) -> Tensor:
        x, y = arrays(a, b)
        out = wrap(np.power(x, y))
        save_operands(ctx, a, b, out)
        return out

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        from ctxgrad.ops.pointwise import Log, Where

        base, exponent, out = operands(ctx)
        need_a, need_b = ctx.needs_input_grad
        grad_a = grad * exponent * base ** (exponent - 1) if need_a else None
        grad_b = None
        if need_b:
            if isinstance(base, Tensor):
                zero = base == 0
                safe_base = Where.apply(zero, 1.0, base)
                grad_b = Where.apply(zero, 0.0, grad * out * Log.apply(safe_base))
            else:
                grad_b = grad * out * float(np.log(base))
        return grad_a, grad_b


class MatMul(Function[Tensor]):
    """``a @ b`` with NumPy's ``matmul`` rules: 1-D, 2-D and broadcast batches.

    For matrices, grad_a = grad @ bᵀ and grad_b = aᵀ @ grad; a 1-D side is treated as a
    row (left) or column (right) and squeezed back.  Batch dimensions that were broadcast
    are summed away by the engine.
    """

    _backward_name = "MmBackward0"

    @staticmethod
    def forward(ctx: Any, a: Tensor, b: Tensor) -> Tensor:
        if a._data.ndim == 0 or b._data.ndim == 0:
            raise RuntimeError("both arguments to matmul need to be at least 1D, but they are "
                               f"{a._data.ndim}D and {b._data.ndim}D")
        x, y = promote_operands(a._data, b._data)
        if x.shape[-1] != y.shape[-2 if y.ndim > 1 else 0]:
            raise RuntimeError(
                f"mat1 and mat2 shapes cannot be multiplied ({'x'.join(map(str, x.shape))} and "
                f"{'x'.join(map(str, y.shape))})"
            )
        ctx.save_for_backward(a, b)
        return wrap(np.matmul(x, y))

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[Tensor | None, Tensor | None]:
        a, b = ctx.saved_tensors
        need_a, need_b = ctx.needs_input_grad
        a_vec, b_vec = a.ndim == 1, b.ndim == 1
        if a_vec and b_vec:
            return (grad * b if need_a else None, grad * a if need_b else None)
        # Lift vectors to matrices so that one rule covers every case.
        a2 = a.reshape(1, -1) if a_vec else a
        b2 = b.reshape(-1, 1) if b_vec else b
        g2 = grad
        if a_vec:
            g2 = g2.reshape(*g2.shape[:-1], 1, g2.shape[-1])
        if b_vec:
            g2 = g2.reshape(*g2.shape, 1)
        grad_a = grad_b = None
        if need_a:
            grad_a = g2 @ b2.mT
            if a_vec:
                grad_a = grad_a.reshape(*grad_a.shape[:-2], grad_a.shape[-1])
        if need_b:
            grad_b = a2.mT @ g2
            if b_vec:
                grad_b = grad_b.reshape(*grad_b.shape[:-1])
        return grad_a, grad_b

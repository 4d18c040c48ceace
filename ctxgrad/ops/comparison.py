"""Comparisons: ``==``, ``!=``, ``<``, ``<=``, ``>``, ``>=``; bool results, never differentiable."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np

from ctxgrad._dtypes import promote_operands
from ctxgrad._tensor import Tensor
from ctxgrad.autograd.function import Function
from ctxgrad.ops._util import broadcast_error, raw, wrap


class _Compare(Function[Tensor]):
    """Apply the class's ``ufunc``.  The bool output does not require grad, so the engine
    never calls ``backward``; it exists for completeness."""

    ufunc: ClassVar[Callable[..., Any]]

    @staticmethod
    def forward(ctx: Any, a: Any, b: Any) -> Tensor:
        x, y = promote_operands(raw(a), raw(b))
        try:
            return wrap(ctx._forward_cls.ufunc(x, y))
        except ValueError:
            raise broadcast_error(x, y) from None

    @staticmethod
    def backward(ctx: Any, grad: Tensor) -> tuple[None, None]:
        return None, None


class Eq(_Compare):
    """Elementwise ``a == b``."""

    ufunc = np.equal


class Ne(_Compare):
    """Elementwise ``a != b``."""

    ufunc = np.not_equal


class Lt(_Compare):
    """Elementwise ``a < b``."""

    ufunc = np.less


class Le(_Compare):
    """Elementwise ``a <= b``."""

    ufunc = np.less_equal


class Gt(_Compare):
    """Elementwise ``a > b``."""

    ufunc = np.greater


class Ge(_Compare):
    """Elementwise ``a >= b``."""

    ufunc = np.greater_equal

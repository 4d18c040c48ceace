"""The named tuples that ``sort``, ``topk``, ``kthvalue`` and ``median(dim)`` return, named as
torch's ``torch.return_types``; a module of their own, so that the frontends in
:mod:`ctxgrad.ops.sorting` can have the same names."""

from __future__ import annotations

from typing import NamedTuple

from ctxgrad._tensor import Tensor


class sort(NamedTuple):  # torch.return_types.sort
    """``(values, indices)`` of :meth:`Tensor.sort`."""

    values: Tensor
    indices: Tensor


class topk(NamedTuple):  # torch.return_types.topk
    """``(values, indices)`` of :meth:`Tensor.topk`."""

    values: Tensor
    indices: Tensor


class kthvalue(NamedTuple):  # torch.return_types.kthvalue
    """``(values, indices)`` of :meth:`Tensor.kthvalue`."""

    values: Tensor
    indices: Tensor


class median(NamedTuple):  # torch.return_types.median
    """``(values, indices)`` of :meth:`Tensor.median` along a dimension."""

    values: Tensor
    indices: Tensor


class frexp(NamedTuple):  # torch.return_types.frexp
    """``(mantissa, exponent)`` of :func:`ctxgrad.frexp`."""

    mantissa: Tensor
    exponent: Tensor

"""The named tuples that ``sort``, ``topk``, ``kthvalue``, ``median(dim)``, ``aminmax``,
``cummax``/``cummin``, ``mode``, ``nanmedian(dim)`` and ``histogram`` return, named as
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


class aminmax(NamedTuple):  # torch.return_types.aminmax
    """``(min, max)`` of :func:`ctxgrad.aminmax`."""

    min: Tensor
    max: Tensor


class cummax(NamedTuple):  # torch.return_types.cummax
    """``(values, indices)`` of :meth:`Tensor.cummax`."""

    values: Tensor
    indices: Tensor


class cummin(NamedTuple):  # torch.return_types.cummin
    """``(values, indices)`` of :meth:`Tensor.cummin`."""

    values: Tensor
    indices: Tensor


class mode(NamedTuple):  # torch.return_types.mode
    """``(values, indices)`` of :meth:`Tensor.mode`."""

    values: Tensor
    indices: Tensor


class nanmedian(NamedTuple):  # torch.return_types.nanmedian
    """``(values, indices)`` of :meth:`Tensor.nanmedian` along a dimension."""

    values: Tensor
    indices: Tensor


class histogram(NamedTuple):  # torch.return_types.histogram
    """``(hist, bin_edges)`` of :func:`ctxgrad.histogram`."""

    hist: Tensor
    bin_edges: Tensor


class histogramdd(NamedTuple):  # torch.return_types.histogramdd
    """``(hist, bin_edges)`` of :func:`ctxgrad.histogramdd`: one tensor of edges per dimension."""

    hist: Tensor
    bin_edges: tuple[Tensor, ...]

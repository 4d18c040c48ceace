"""The pooling of ``ctxgrad.nn.functional``: max and average pooling in 1, 2 and 3 dimensions,
and their adaptive forms."""

from __future__ import annotations

from typing import Any

import numpy as np

from ctxgrad._replayed import replayed_whole
from ctxgrad._tensor import Tensor, as_tensor
from ctxgrad.nn import _ops
from ctxgrad.nn._functional_activations import _where
from ctxgrad.ops.convolution import (
    Im2Col,
    _check_input_dim,
    _check_window,
    _pair,
    _single,
    _stack,
    _triple,
    _unbatch,
)


# =========================================================================== 1-d and adaptive pooling
def avg_pool1d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
) -> Tensor:
    """The mean of each ``kernel_size`` window of ``(N, C, L)`` (or ``(C, L)``) input: an
    :func:`avg_pool2d` over a height of 1."""
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument #1 'self' "
            "(while checking arguments for avg_pool1d)"
        )
    k = _single(kernel_size)
    s = k if stride is None or (not isinstance(stride, int) and len(stride) == 0) else _single(stride)
    out = avg_pool2d(input.unsqueeze(-2), (1, k), (1, s), (0, _single(padding)), ceil_mode, count_include_pad)
    return out.squeeze(-2)


@replayed_whole
def max_pool1d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """The maximum of each ``kernel_size`` window of ``(N, C, L)`` (or ``(C, L)``) input: a
    :func:`max_pool2d` over a height of 1 (indices are positions along ``L``)."""
    if input.ndim not in (2, 3):
        raise RuntimeError(
            "max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for input, but "
            f"got:{list(input.shape)}"
        )
    k = _single(kernel_size)
    if k <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {k}")
    s = k if stride is None or (not isinstance(stride, int) and len(stride) == 0) else _single(stride)
    result = max_pool2d(
        input.unsqueeze(-2), (1, k), (1, s), (0, _single(padding)), (1, _single(dilation)), ceil_mode, return_indices
    )
    if return_indices:
        out, indices = result
        return out.squeeze(-2), indices.squeeze(-2)
    squeezed: Tensor = result.squeeze(-2)
    return squeezed


def _adaptive_bounds(size: int, out: int) -> list[tuple[int, int]]:
    """torch's adaptive windows: output ``j`` covers ``[floor(j size / out), ceil((j + 1) size / out))``."""
    return [((j * size) // out, -((-(j + 1) * size) // out)) for j in range(out)]


def _output_pair(output_size: Any, spatial: tuple[int, ...], name: str) -> tuple[int, ...]:
    """``output_size`` as one int per spatial dimension (``None`` keeps the input's size)."""
    n = len(spatial)
    if isinstance(output_size, (int, np.integer)):
        sizes: list[Any] = [int(output_size)] * n
    else:
        sizes = list(output_size)
        if len(sizes) != n:
            if n == 1:
                raise RuntimeError(f"{name}() argument 'output_size' should contain one int (got {len(sizes)})")
            raise RuntimeError(f"{name}: output_size must be {n}")
    return tuple(spatial[i] if s is None else int(s) for i, s in enumerate(sizes))


def _averaging_matrix(size: int, out: int, dtype: Any) -> Tensor:
    """``(out, size)``: row ``j`` averages the input positions of adaptive window ``j``."""
    matrix = np.zeros((out, size), dtype=dtype)
    for j, (lo, hi) in enumerate(_adaptive_bounds(size, out)):
        matrix[j, lo:hi] = 1.0 / (hi - lo)
    return as_tensor(matrix)


def adaptive_avg_pool1d(input: Tensor, output_size: Any) -> Tensor:
    """Average ``(N, C, L)`` (or ``(C, L)``) input over ``output_size`` windows of (nearly) equal
    length, as torch chooses them."""
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument #1 'self' "
            "(while checking arguments for adaptive_avg_pool1d)"
        )
    (out,) = _output_pair(output_size, (input.shape[-1],), "adaptive_avg_pool1d")
    return input @ _averaging_matrix(input.shape[-1], out, input.dtype).mT


def adaptive_avg_pool2d(input: Tensor, output_size: Any) -> Tensor:
    """Average ``(N, C, H, W)`` (or ``(C, H, W)``) input over an ``output_size`` grid of windows
    (a matrix product on each side, so gradients and vmap come from ``matmul``)."""
    if input.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {list(input.shape)}")
    h, w = input.shape[-2], input.shape[-1]
    oh, ow = _output_pair(output_size, (h, w), "adaptive_avg_pool2d")
    rows = _averaging_matrix(h, oh, input.dtype)
    cols = _averaging_matrix(w, ow, input.dtype)
    return rows @ input @ cols.mT


@replayed_whole
def _adaptive_max(input: Tensor, sizes: tuple[int, ...], return_indices: bool) -> Any:
    """The maximum of each adaptive window of the last ``len(sizes)`` dimensions (and, with
    ``return_indices``, its flat position within those dimensions)."""
    spatial = tuple(input.shape[input.ndim - len(sizes) :])
    lead = input.ndim - len(sizes)
    # Per axis, the window of output j is [lo_j, hi_j); all windows are gathered at the widest
    # one's width, the positions past a window's end masked to -inf (they never win a max):
    # windows[..., j1, k1, j2, k2, ...] is input[..., lo_j1 + k1, lo_j2 + k2, ...].
    index_arrays, starts, valid = [], [], np.ones((), dtype=bool)
    for axis, (size, count) in enumerate(zip(spatial, sizes)):
        bounds = np.array(_adaptive_bounds(size, count), dtype=np.int64).reshape(count, 2)
        width = int((bounds[:, 1] - bounds[:, 0]).max()) if count else 0
        positions = bounds[:, :1] + np.arange(width)  # (out, width)
        shape = [1] * (2 * len(sizes))
        shape[2 * axis], shape[2 * axis + 1] = count, width
        index_arrays.append(np.minimum(positions, size - 1).reshape(shape))
        valid = valid & (positions < bounds[:, 1:]).reshape(shape)
        starts.append(bounds[:, 0])
    key: tuple[Any, ...] = (Ellipsis, *[as_tensor(i) for i in index_arrays])
    gathered = input[key]
    windows = _where(as_tensor(valid), gathered, float("-inf"))
    # each cell's window flattened in row-major order: max(-1) takes its first maximum (a NaN,
    # when there is one) and sends the gradient there, as torch
    window_dims = list(range(lead + 1, lead + 2 * len(sizes), 2))
    order = [*range(lead), *range(lead, lead + 2 * len(sizes), 2), *window_dims]
    widths = tuple(i.shape[2 * a + 1] for a, i in enumerate(index_arrays))
    flat = windows.permute(*order).reshape(*input.shape[:lead], *sizes, int(np.prod(widths)))
    out, local = flat.max(-1)
    if not return_indices:
        return out
    # the flat position within the spatial dimensions: each axis's start plus its offset
    position = local.new_zeros(())
    for axis in range(len(sizes)):
        inner = int(np.prod(widths[axis + 1 :]))
        offset = (local // inner) % widths[axis]
        start = as_tensor(starts[axis].reshape([-1] + [1] * (len(sizes) - axis - 1)))
        position = position * spatial[axis] + start + offset
    return out, position


def adaptive_max_pool1d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """The maximum over ``output_size`` adaptive windows of ``(N, C, L)`` (or ``(C, L)``) input."""
    if input.ndim not in (2, 3):
        raise RuntimeError(
            f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument #1 'self' "
            "(while checking arguments for adaptive_max_pool1d)"
        )
    sizes = _output_pair(output_size, (input.shape[-1],), "adaptive_max_pool1d")
    return _adaptive_max(input, sizes, return_indices)


def adaptive_max_pool2d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """The maximum over an ``output_size`` grid of adaptive windows of ``(N, C, H, W)`` (or
    ``(C, H, W)``) input; indices are flat positions within ``H * W``."""
    if input.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_max_pool2d(): Expected 3D or 4D tensor, but got: {list(input.shape)}")
    sizes = _output_pair(output_size, (input.shape[-2], input.shape[-1]), "adaptive_max_pool2d")
    return _adaptive_max(input, sizes, return_indices)


def _pool3d_args(
    kernel_size: Any, stride: Any, padding: Any
) -> tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...]]:
    kernel = _triple(kernel_size, "kernel_size")
    st = kernel if stride is None or (not isinstance(stride, int) and len(stride) == 0) else _triple(stride, "stride")
    pd = _triple(padding, "padding")
    _check_window(kernel, st, "THW")
    if any(p > k // 2 for p, k in zip(pd, kernel)):
        raise RuntimeError(
            f"pad should be at most half of effective kernel size, but got pad={max(pd)}, "
            f"kernel_size={max(kernel)} and dilation=1"
        )
    return kernel, st, pd


@replayed_whole
def max_pool3d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Tensor:
    """The maximum of each ``kernel_size`` window of ``(N, C, D, H, W)`` (or ``(C, D, H, W)``)
    input: the maximum over each window's depths of :func:`max_pool2d` of them all at once."""
    if return_indices or ceil_mode or dilation != 1:
        raise NotImplementedError(
            "ctxgrad.nn.functional.max_pool3d: return_indices, ceil_mode and dilation are not supported"
        )
    if input.ndim not in (4, 5):
        raise RuntimeError(f"max_pool3d: Expected 4D or 5D tensor for input, but got: {list(input.shape)}")
    kernel, st, pd = _pool3d_args(kernel_size, stride, padding)
    unbatched = input.ndim == 4
    x = input.unsqueeze(0) if unbatched else input
    n, c, depth, h, w = x.shape
    out_depth = (depth + 2 * pd[0] - kernel[0]) // st[0] + 1
    # every depth of every window side by side, one max_pool2d over them all, then the first
    # depth holding the maximum: torch's choice (and gradient) among ties, depth first; the
    # depths in the padding are masked to -inf after the pooling (they never win a max)
    depths = np.arange(out_depth)[:, None] * st[0] + np.arange(kernel[0])[None, :] - pd[0]
    inside = (depths >= 0) & (depths < depth)
    planes = x[:, :, as_tensor(np.clip(depths, 0, depth - 1))].reshape(n, c * out_depth * kernel[0], h, w)
    pooled = max_pool2d(planes, kernel[1:], st[1:], pd[1:])
    pooled = pooled.reshape(n, c, out_depth, kernel[0], *pooled.shape[2:])
    if not inside.all():
        pooled = _where(as_tensor(inside[:, :, None, None]), pooled, float("-inf"))
    out: Tensor = pooled.max(3).values
    return out.squeeze(0) if unbatched else out


def avg_pool3d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Tensor:
    """The mean of each ``kernel_size`` window of ``(N, C, D, H, W)`` (or ``(C, D, H, W)``) input
    (zero padding counts): the mean over the window's depth of :func:`avg_pool2d`."""
    if ceil_mode or not count_include_pad or divisor_override is not None:
        raise NotImplementedError(
            "ctxgrad.nn.functional.avg_pool3d: ceil_mode, count_include_pad=False and divisor_override are not "
            "supported"
        )
    if input.ndim not in (4, 5):
        raise RuntimeError(f"avg_pool3d: Expected 4D or 5D tensor for input, but got: {list(input.shape)}")
    kernel, st, pd = _pool3d_args(kernel_size, stride, padding)
    unbatched = input.ndim == 4
    x = input.unsqueeze(0) if unbatched else input
    depth = x.shape[2]
    out_depth = (depth + 2 * pd[0] - kernel[0]) // st[0] + 1
    slices = []
    for o in range(out_depth):  # padded depths add zeros but count in the mean
        first = o * st[0] - pd[0]
        planes = [
            avg_pool2d(x[:, :, first + kd], kernel[1:], st[1:], pd[1:])
            for kd in range(kernel[0])
            if 0 <= first + kd < depth
        ]
        slices.append(_stack(planes, 0).sum(0) / kernel[0])
    out = _stack(slices, 2)
    return out.squeeze(0) if unbatched else out


def adaptive_avg_pool3d(input: Tensor, output_size: Any) -> Tensor:
    """Average ``(N, C, D, H, W)`` (or ``(C, D, H, W)``) input over an ``output_size`` grid of
    adaptive windows (a matrix product along each dimension)."""
    if input.ndim not in (4, 5):
        raise RuntimeError(f"adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got {list(input.shape)}")
    d, h, w = input.shape[-3], input.shape[-2], input.shape[-1]
    od, oh, ow = _output_pair(output_size, (d, h, w), "adaptive_avg_pool3d")
    from ctxgrad.ops.table import frontend

    out: Tensor = frontend("einsum")(
        "...dhw,ad,bh,cw->...abc",
        input,
        _averaging_matrix(d, od, input.dtype),
        _averaging_matrix(h, oh, input.dtype),
        _averaging_matrix(w, ow, input.dtype),
    )
    return out


def adaptive_max_pool3d(input: Tensor, output_size: Any, return_indices: bool = False) -> Any:
    """The maximum over an ``output_size`` grid of adaptive windows of ``(N, C, D, H, W)`` (or
    ``(C, D, H, W)``) input; indices are flat positions within ``D * H * W``."""
    if input.ndim not in (4, 5):
        raise RuntimeError(f"adaptive_max_pool3d(): Expected 4D or 5D tensor, but got: {list(input.shape)}")
    sizes = _output_pair(output_size, tuple(input.shape[-3:]), "adaptive_max_pool3d")
    return _adaptive_max(input, sizes, return_indices)


def _pool_args(kernel_size: Any, stride: Any, padding: Any) -> tuple[tuple[int, int], tuple[int, int], tuple[int, int]]:
    kernel = _pair(kernel_size, "kernel_size")
    st = kernel if stride is None or (not isinstance(stride, int) and len(stride) == 0) else _pair(stride, "stride")
    pad = _pair(padding, "padding")
    _check_window(kernel, st, "HW")
    if pad[0] > kernel[0] // 2 or pad[1] > kernel[1] // 2:
        raise RuntimeError(
            f"pad should be at most half of effective kernel size, but got pad={max(pad)}, "
            f"kernel_size={max(kernel)} and dilation=1"
        )
    return kernel, st, pad


@replayed_whole
def max_pool2d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    dilation: Any = 1,
    ceil_mode: bool = False,
    return_indices: bool = False,
) -> Any:
    """The maximum of each ``kernel_size`` window of a ``(N, C, H, W)`` (or ``(C, H, W)``) input;
    with ``return_indices=True`` also the flat position of each maximum within its ``H*W`` plane."""
    _check_input_dim(input, (3, 4), "max_pool2d")
    kernel, st, pad = _pool_args(kernel_size, stride, padding)
    unbatched = input.ndim == 3
    x = input.unsqueeze(0) if unbatched else input
    dilation2 = _pair(dilation, "dilation")
    out = _ops.MaxPool2d.apply(x, kernel, st, pad, dilation2, bool(ceil_mode))
    node = out.grad_fn  # the pooling node, before any squeeze
    if unbatched:
        out = out.squeeze(0)
    if return_indices:
        if node is not None:
            indices = as_tensor(node.indices)  # type: ignore[attr-defined]
        else:
            indices = as_tensor(_ops.max_pool2d_with_indices(x._data, kernel, st, pad, dilation2, bool(ceil_mode))[1])
        return out, (indices.squeeze(0) if unbatched else indices)
    return out


def avg_pool2d(
    input: Tensor,
    kernel_size: Any,
    stride: Any = None,
    padding: Any = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
    divisor_override: int | None = None,
) -> Tensor:
    """The mean of each ``kernel_size`` window (zero padding counts unless ``count_include_pad=False``;
    with ``ceil_mode`` the last, partial windows average over what they cover of the padded input)."""
    _check_input_dim(input, (3, 4), "avg_pool2d")
    kernel, st, pad = _pool_args(kernel_size, stride, padding)
    unbatched = input.ndim == 3
    x = input.unsqueeze(0) if unbatched else input
    n, c, h, w = x.shape
    out_sizes, extra = [], []
    for size, k, s, p in zip((h, w), kernel, st, pad):
        o = _ops.pool_out_size(size, k, s, p, 1, ceil_mode)
        out_sizes.append(o)
        extra.append(max(0, (o - 1) * s + k - (size + 2 * p)))  # room the partial ceil_mode windows need
    oh, ow = out_sizes
    pads = (pad[0], pad[0] + extra[0], pad[1], pad[1] + extra[1])
    sums = Im2Col.apply(x, kernel, (1, 1), pads, st).reshape(n, c, kernel[0] * kernel[1], oh, ow).sum(2)
    if divisor_override is not None:
        return _unbatch(sums / divisor_override, unbatched)
    if not any(extra) and (count_include_pad or not any(pad)):
        return _unbatch(sums / (kernel[0] * kernel[1]), unbatched)
    # How many elements each window averages: those of the padded input (count_include_pad)
    # or of the input itself, never the extra room of ceil_mode.
    if count_include_pad:
        ones: np.ndarray[Any, Any] = np.ones((1, 1, h + 2 * pad[0], w + 2 * pad[1]), dtype=x.dtype)
        count_pads = (0, extra[0], 0, extra[1])
    else:
        ones = np.ones((1, 1, h, w), dtype=x.dtype)
        count_pads = pads
    counts = Im2Col.apply(as_tensor(ones), kernel, (1, 1), count_pads, st).reshape(1, 1, -1, oh, ow).sum(2)
    return _unbatch(sums / counts, unbatched)

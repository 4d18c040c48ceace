"""Sampling at given points: ``grid_sample`` and ``affine_grid`` (spatial transformers), and
``gumbel_softmax``, composed from ctxgrad ops so that gradients (with respect to the input
and to the grid), double backward and forward mode come for free.

``grid_sample`` works in any number of spatial dimensions (4-d input: images, 5-d: volumes)
with one rule: a grid point's coordinates are unnormalised to pixel positions, then padded
(``zeros``: points outside read 0; ``border``: clipped; ``reflection``: mirrored, then clipped),
and the output is the sum over the corners of the cell around the point of the corner's value
times its weight (``bilinear``; the product of the distances to the opposite corner) or the
value of the nearest pixel (``nearest``), as torch computes them.
"""

from __future__ import annotations

import itertools
import warnings

import numpy as np

from ctxgrad import _factories
from ctxgrad._tensor import Tensor
from ctxgrad.autograd.grad_mode import no_grad
from ctxgrad.ops.pointwise import where

__all__ = ["affine_grid", "grid_sample", "gumbel_softmax"]

_ALIGN_WARNING = (
    "Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. Please specify "
    "align_corners=True if the old behavior is desired. See the documentation of grid_sample for details."
)


def _align(align_corners: bool | None) -> bool:
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, UserWarning, stacklevel=3)
        return False
    return bool(align_corners)


def _unnormalize(coord: Tensor, size: int, align_corners: bool) -> Tensor:
    """Grid coordinates in [-1, 1] as pixel positions (corner pixels' centres, or their edges)."""
    if align_corners:
        return (coord + 1) / 2 * (size - 1)
    return ((coord + 1) * size - 1) / 2


def _reflect(coord: Tensor, twice_low: int, twice_high: int) -> Tensor:
    """``coord`` mirrored into [twice_low / 2, twice_high / 2] (torch's reflect_coordinates)."""
    if twice_low == twice_high:
        return coord * 0
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    distance = (coord - low).abs()
    extra = distance.fmod(span)
    flips = (distance / span).floor().detach()
    even = flips.fmod(2) == 0
    reflected: Tensor = where(even, extra + low, span - extra + low)
    return reflected


def _source_positions(grid: Tensor, sizes: tuple[int, ...], padding_mode: str, align_corners: bool) -> list[Tensor]:
    """Each spatial dimension's pixel positions (outermost first): the grid's last entries are
    x (the last dimension), y, z, as in torch."""
    positions = []
    for axis, size in enumerate(sizes):
        coord = _unnormalize(grid[..., len(sizes) - 1 - axis], size, align_corners)
        if padding_mode == "border":
            coord = coord.clamp(0, size - 1)
        elif padding_mode == "reflection":
            twice = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
            coord = _reflect(coord, *twice).clamp(0, size - 1)
        positions.append(coord)
    return positions


def _gather(flat: Tensor, index: list[Tensor], sizes: tuple[int, ...], channels: int) -> tuple[Tensor, Tensor]:
    """The input's values at integer positions ``index`` (one tensor per spatial dimension, of
    shape (N, *out)), and whether each position is inside the input (0 outside)."""
    inside = None
    linear = None
    for position, size in zip(index, sizes):
        ok = (position >= 0) & (position <= size - 1)
        inside = ok if inside is None else inside & ok
        clipped = position.clamp(0, size - 1)
        linear = clipped if linear is None else linear * size + clipped
    assert linear is not None and inside is not None
    n = linear.shape[0]
    flat_index = linear.reshape(n, 1, -1).long().expand(n, channels, -1)
    values = flat.gather(2, flat_index).reshape(n, channels, *linear.shape[1:])
    return values, inside.unsqueeze(1).to(flat.dtype)


def grid_sample(
    input: Tensor, grid: Tensor, mode: str = "bilinear", padding_mode: str = "zeros", align_corners: bool | None = None
) -> Tensor:
    """The values of ``input`` ``(N, C, *spatial)`` at the points of ``grid`` ``(N, *out, d)``, in
    [-1, 1] coordinates: see the module's docstring.  ``bicubic`` is not supported."""
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(
            f"nn.functional.grid_sample(): expected mode to be 'bilinear', 'nearest' or 'bicubic', but got: '{mode}'"
        )
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(
            "nn.functional.grid_sample(): expected padding_mode to be 'zeros', 'border', or 'reflection', "
            f"but got: '{padding_mode}'"
        )
    aligned = _align(align_corners)
    if input.dim() not in (4, 5) or grid.dim() != input.dim() or grid.shape[0] != input.shape[0]:
        raise RuntimeError(
            "grid_sampler(): expected grid and input to have same batch size, but got input with sizes "
            f"{list(input.shape)} and grid with sizes {list(grid.shape)}"
        )
    spatial = input.dim() - 2
    if grid.shape[-1] != spatial:
        raise RuntimeError(
            f"grid_sampler(): expected grid to have size {spatial} in last dimension, but got grid with sizes "
            f"{list(grid.shape)}"
        )
    if mode == "bicubic":
        if spatial != 2:
            raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
        raise NotImplementedError("ctxgrad.nn.functional.grid_sample: mode='bicubic' is not supported")
    sizes = tuple(int(s) for s in input.shape[2:])
    n, channels = int(input.shape[0]), int(input.shape[1])
    flat = input.reshape(n, channels, -1)
    positions = _source_positions(grid.to(input.dtype), sizes, padding_mode, aligned)
    if mode == "nearest":
        with no_grad():  # (the nearest pixel: no gradient with respect to the grid, as torch)
            nearest = [_factories.as_tensor(np.rint(p.detach().numpy())) for p in positions]
        values, inside = _gather(flat, nearest, sizes, channels)
        return values * inside
    lows = [p.detach().floor() for p in positions]
    out = None
    for corner in itertools.product((0, 1), repeat=spatial):
        weight = None
        for position, low, upper in zip(positions, lows, corner):
            # the weight of a corner: the distance from the point to the opposite corner
            along = (position - low) if upper else (low + 1 - position)
            weight = along if weight is None else weight * along
        assert weight is not None
        values, inside = _gather(flat, [low + upper for low, upper in zip(lows, corner)], sizes, channels)
        term = values * inside * weight.unsqueeze(1)
        out = term if out is None else out + term
    assert out is not None
    return out


def affine_grid(theta: Tensor, size: list[int] | tuple[int, ...], align_corners: bool | None = None) -> Tensor:
    """The sampling grid ``(N, *spatial, d)`` of the affine maps ``theta`` ``(N, d, d + 1)`` for
    an output of ``size`` ``(N, C, *spatial)``: ``grid_sample``'s grid for a spatial transformer."""
    aligned = _align(align_corners)
    if not theta.is_floating_point():
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = tuple(int(s) for s in size)
    spatial = len(size) - 2
    if spatial not in (2, 3):
        raise NotImplementedError(
            "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, respectively. "
            f"Got size {size}."
        )
    if theta.dim() != 3 or tuple(theta.shape[1:]) != (spatial, spatial + 1):
        kind = "2D affine matrices of shape Nx2x3" if spatial == 2 else "3D affine matrices of shape Nx3x4"
        raise ValueError(f"Expected a batch of {kind} for size {size}. Got {theta.shape}.")
    if min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    if aligned and min(size[2:]) == 1:
        warnings.warn(
            "Since version 1.3.0, affine_grid behavior has changed for unit-size grids when align_corners=True. "
            "This is not an intended use case of affine_grid. See the documentation of affine_grid for details.",
            UserWarning,
            stacklevel=2,
        )
    axes = []
    for length in reversed(size[2:]):  # x (the last dimension) first, as the grid's entries
        steps = np.linspace(-1.0, 1.0, length) if length > 1 else np.zeros(1)
        axes.append(steps if aligned else steps * (length - 1) / length)
    mesh = np.meshgrid(*reversed(axes), indexing="ij")  # each (*spatial), outermost first
    base = np.stack([*reversed(mesh), np.ones_like(mesh[0])], axis=-1).astype(theta.array.dtype)
    points = _factories.as_tensor(base.reshape(1, -1, spatial + 1))
    if theta.shape[0] != size[0]:
        raise RuntimeError(
            f"Expected size for first two dimensions of batch2 tensor to be: [{size[0]}, {spatial + 1}] but got: "
            f"[{theta.shape[0]}, {spatial + 1}]."
        )
    grid = points @ theta.transpose(1, 2)
    return grid.reshape(size[0], *size[2:], spatial)


def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1) -> Tensor:
    """A sample of the Gumbel-softmax (concrete) distribution over ``dim``: softmax of
    ``(logits + g) / tau`` with ``g`` Gumbel noise; with ``hard``, one-hot at the largest
    entry in the forward pass with the soft sample's gradient (straight-through), as torch."""
    gumbels = -_factories.empty_like(logits).exponential_().log()
    soft = ((logits + gumbels) / tau).softmax(dim)
    if not hard:
        return soft
    index = soft.max(dim, keepdim=True)[1]
    one_hot = _factories.zeros_like(logits).scatter_(dim, index, 1.0)
    return one_hot - soft.detach() + soft

"""F.interpolate and the Upsample modules against torch: nearest, nearest-exact, linear and
bilinear (with and without align_corners), by size and by scale factor (recomputed or not),
in float64 (values and gradients) and float32; errors; numerical derivatives and vmap."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import ctxgrad
import ctxgrad.nn.functional as F
from ctxgrad.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(8)


def randn(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape)


CASES: list[tuple[tuple[int, ...], dict[str, Any]]] = [
    ((2, 3, 5), {"size": 9}),
    ((2, 3, 7), {"size": 3}),
    ((2, 3, 5), {"scale_factor": 2.5}),
    ((2, 3, 5), {"scale_factor": 1.7, "recompute_scale_factor": True}),
    ((1, 2, 4, 5), {"size": (7, 3)}),
    ((1, 2, 4, 5), {"scale_factor": (2, 1.5)}),
    ((1, 2, 6, 6), {"scale_factor": 0.6}),
    ((1, 2, 3, 4, 5), {"size": (5, 2, 7)}),
]
MODES: list[tuple[str, bool | None]] = [
    ("nearest", None),
    ("nearest-exact", None),
    ("linear", False),
    ("linear", True),
    ("bilinear", False),
    ("bilinear", True),
]


def _applies(shape: tuple[int, ...], mode: str) -> bool:
    return {"linear": 3, "bilinear": 4}.get(mode, len(shape)) == len(shape)


PAIRS = [(s, k, m, a) for s, k in CASES for m, a in MODES if _applies(s, m)]


@pytest.mark.parametrize(
    ("shape", "kwargs", "mode", "align"), PAIRS, ids=[f"{p[0]}-{p[1]}-{p[2]}-{p[3]}" for p in PAIRS]
)
def test_matches_torch(
    torch: Any, shape: tuple[int, ...], kwargs: dict[str, Any], mode: str, align: bool | None
) -> None:
    data = randn(*shape)
    c_x, t_x = ctxgrad.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    c_out = F.interpolate(c_x, mode=mode, align_corners=align, **kwargs)
    t_out = torch.nn.functional.interpolate(t_x, mode=mode, align_corners=align, **kwargs)
    assert tuple(c_out.shape) == tuple(t_out.shape)
    np.testing.assert_allclose(c_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-12, atol=1e-14)
    up = randn(*t_out.shape)
    c_out.backward(ctxgrad.tensor(up))
    t_out.backward(torch.tensor(up))
    np.testing.assert_allclose(c_x.grad.numpy(), t_x.grad.numpy(), rtol=1e-12, atol=1e-14)
    data32 = data.astype(np.float32)
    ours = F.interpolate(ctxgrad.tensor(data32), mode=mode, align_corners=align, **kwargs)
    theirs = torch.nn.functional.interpolate(torch.tensor(data32), mode=mode, align_corners=align, **kwargs)
    assert ours.dtype == ctxgrad.float32
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=1e-6)


ERRORS = [
    lambda m: m.nn.functional.interpolate(m.ones(1, 1, 4), size=3, mode="nearest", align_corners=True),
    lambda m: m.nn.functional.interpolate(m.ones(1, 1, 4), size=3, scale_factor=2),
    lambda m: m.nn.functional.interpolate(m.ones(1, 1, 4)),
    lambda m: m.nn.functional.interpolate(m.ones(1, 1, 4, 4), size=3, mode="linear"),
    lambda m: m.nn.functional.interpolate(m.ones(1, 1, 4), size=3, mode="bilinear"),
    lambda m: m.nn.functional.interpolate(m.ones(1, 1, 4), size=3, mode="foo"),
    lambda m: m.nn.functional.interpolate(m.ones(1, 1, 4), size=(3, 3)),
]


@pytest.mark.parametrize("call", ERRORS)
def test_errors_match_torch(torch: Any, call: Any) -> None:
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(Exception) as ours:
        call(ctxgrad)
    assert type(ours.value) is type(theirs.value)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize(
    "build",
    [
        lambda m: m.nn.Upsample(scale_factor=2),
        lambda m: m.nn.Upsample(size=(3, 4), mode="bilinear", align_corners=True),
        lambda m: m.nn.Upsample(size=5),
        lambda m: m.nn.UpsamplingNearest2d(scale_factor=2),
        lambda m: m.nn.UpsamplingBilinear2d(size=3),
    ],
)
def test_upsample_modules_match_torch(torch: Any, build: Any) -> None:
    ours, theirs = build(ctxgrad), build(torch)
    assert repr(ours) == repr(theirs)
    data = randn(1, 2, 4, 4)
    np.testing.assert_allclose(ours(ctxgrad.tensor(data)).numpy(), theirs(torch.tensor(data)).numpy(), rtol=1e-12)


@pytest.mark.parametrize(
    "fn",
    [
        lambda x: F.interpolate(x, size=(5, 3), mode="bilinear"),
        lambda x: F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=True),
        lambda x: F.interpolate(x, scale_factor=1.5),
    ],
)
def test_numerical_derivatives_and_vmap(fn: Any) -> None:
    from ctxgrad.func import vmap

    x = ctxgrad.tensor(randn(1, 2, 3, 4), requires_grad=True)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))
    batch = ctxgrad.tensor(randn(3, 1, 2, 3, 4))
    looped = ctxgrad.stack([fn(batch[i]) for i in range(3)])
    np.testing.assert_allclose(vmap(fn)(batch).numpy(), looped.numpy(), rtol=1e-12)

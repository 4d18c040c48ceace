"""1-d and adaptive pooling against torch in float64: outputs, indices and gradients, the
modules' reprs and torch's errors; numerical second derivatives and vmap without torch."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import ctxgrad
import ctxgrad.nn.functional as F
from ctxgrad import nn
from ctxgrad.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(99)


def randn(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape)


def run(torch: Any, name: str, data: np.ndarray, *args: Any, **kwargs: Any) -> None:
    c_x, t_x = ctxgrad.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    c_out, t_out = getattr(F, name)(c_x, *args, **kwargs), getattr(torch.nn.functional, name)(t_x, *args, **kwargs)
    if kwargs.get("return_indices"):
        (c_out, c_idx), (t_out, t_idx) = c_out, t_out
        np.testing.assert_array_equal(c_idx.numpy(), t_idx.numpy())
        assert c_idx.dtype == ctxgrad.int64
    np.testing.assert_allclose(c_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-12, atol=1e-14)
    up = randn(*t_out.shape)
    c_out.backward(ctxgrad.tensor(up))
    t_out.backward(torch.tensor(up))
    np.testing.assert_allclose(c_x.grad.numpy(), t_x.grad.numpy(), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize(
    ("shape", "args", "kwargs"),
    [
        ((2, 3, 9), (3,), {}),
        ((3, 10), (4, 2, 1), {}),
        ((2, 3, 9), (3, 2, 1), {"ceil_mode": True, "count_include_pad": False}),
    ],
)
def test_avg_pool1d(torch: Any, shape: tuple[int, ...], args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    run(torch, "avg_pool1d", randn(*shape), *args, **kwargs)


@pytest.mark.parametrize(
    ("shape", "args", "kwargs"),
    [
        ((2, 3, 9), (3,), {}),
        ((3, 10), (4, 2, 1), {"return_indices": True}),
        ((2, 3, 11), (3, 2, 1, 2), {"ceil_mode": True, "return_indices": True}),
    ],
)
def test_max_pool1d(torch: Any, shape: tuple[int, ...], args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    run(torch, "max_pool1d", randn(*shape), *args, **kwargs)


@pytest.mark.parametrize(("shape", "size"), [((2, 3, 10), 4), ((3, 7), 3), ((2, 3, 5), 8), ((1, 2, 6), (1,))])
def test_adaptive_pool1d(torch: Any, shape: tuple[int, ...], size: Any) -> None:
    run(torch, "adaptive_avg_pool1d", randn(*shape), size)
    run(torch, "adaptive_max_pool1d", randn(*shape), size)
    run(torch, "adaptive_max_pool1d", randn(*shape), size, return_indices=True)


@pytest.mark.parametrize(
    ("shape", "size"),
    [((2, 3, 10, 7), (4, 3)), ((3, 5, 5), 2), ((1, 2, 6, 9), (None, 4)), ((1, 1, 3, 3), 5), ((2, 2, 7, 7), 1)],
)
def test_adaptive_pool2d(torch: Any, shape: tuple[int, ...], size: Any) -> None:
    run(torch, "adaptive_avg_pool2d", randn(*shape), size)
    if not (isinstance(size, tuple) and None in size):
        run(torch, "adaptive_max_pool2d", randn(*shape), size)
        run(torch, "adaptive_max_pool2d", randn(*shape), size, return_indices=True)


MODULES = [
    ("AdaptiveAvgPool1d", (3,), (2, 3, 8)),
    ("AdaptiveAvgPool2d", ((3, None),), (2, 3, 7, 5)),
    ("AdaptiveAvgPool2d", (1,), (2, 3, 7, 5)),
    ("AdaptiveMaxPool1d", (4,), (2, 3, 9)),
    ("AdaptiveMaxPool2d", (2,), (2, 3, 7, 5)),
    ("AvgPool1d", (3,), (2, 3, 9)),
    ("AvgPool1d", (3, 2, 1, True, False), (2, 3, 9)),
    ("MaxPool1d", (3,), (2, 3, 9)),
    ("MaxPool1d", (3, 2, 1, 2, False, True), (2, 3, 9)),
]


@pytest.mark.parametrize(("name", "args", "shape"), MODULES, ids=[f"{m[0]}{m[1]}" for m in MODULES])
def test_modules_match_torch(torch: Any, name: str, args: tuple[Any, ...], shape: tuple[int, ...]) -> None:
    c, t = getattr(nn, name)(*args), getattr(torch.nn, name)(*args)
    assert repr(c) == repr(t)
    data = randn(*shape)
    c_x, t_x = ctxgrad.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    c_out, t_out = c(c_x), t(t_x)
    np.testing.assert_allclose(c_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-12)
    c_out.sum().backward()
    t_out.sum().backward()
    np.testing.assert_allclose(c_x.grad.numpy(), t_x.grad.numpy(), rtol=1e-12)


ERRORS = [
    lambda m: m.nn.functional.adaptive_avg_pool2d(m.ones(3), 2),
    lambda m: m.nn.functional.adaptive_max_pool2d(m.ones(2, 3), 2),
    lambda m: m.nn.functional.adaptive_avg_pool1d(m.ones(2, 3, 4), (2, 2)),
    lambda m: m.nn.functional.adaptive_avg_pool1d(m.ones(3), 2),
    lambda m: m.nn.functional.adaptive_avg_pool2d(m.ones(1, 2, 3, 3), (2, 2, 2)),
    lambda m: m.nn.functional.avg_pool1d(m.ones(3), 2),
    lambda m: m.nn.functional.max_pool1d(m.ones(2, 3, 4, 5), 2),
]


@pytest.mark.parametrize("call", ERRORS)
def test_errors_match_torch(torch: Any, call: Any) -> None:
    with pytest.raises(RuntimeError) as theirs:
        call(torch)
    with pytest.raises(RuntimeError) as ours:
        call(ctxgrad)
    assert str(ours.value) == str(theirs.value)


NUMERIC = [
    ("adaptive_avg_pool2d", lambda x: F.adaptive_avg_pool2d(x, (2, 3)), (1, 2, 5, 4)),
    ("adaptive_max_pool2d", lambda x: F.adaptive_max_pool2d(x, 2), (1, 2, 5, 4)),
    ("adaptive_avg_pool1d", lambda x: F.adaptive_avg_pool1d(x, 3), (2, 7)),
    ("avg_pool1d", lambda x: F.avg_pool1d(x, 3, 2, 1), (1, 2, 7)),
    ("max_pool1d", lambda x: F.max_pool1d(x, 3, 2), (1, 2, 7)),
]


@pytest.mark.parametrize(("name", "fn", "shape"), NUMERIC, ids=[n[0] for n in NUMERIC])
def test_numerical_derivatives_and_vmap(name: str, fn: Any, shape: tuple[int, ...]) -> None:
    from ctxgrad.func import vmap

    x = ctxgrad.tensor(randn(*shape), requires_grad=True)
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))
    batch = ctxgrad.tensor(randn(3, *shape))
    looped = ctxgrad.stack([fn(batch[i]) for i in range(3)])
    np.testing.assert_allclose(vmap(fn)(batch).numpy(), looped.numpy(), rtol=1e-12)


def test_max_pool2d_indices_of_an_unbatched_input_that_requires_grad(torch: Any) -> None:
    run(torch, "max_pool2d", randn(2, 5, 4), 2, return_indices=True)


# --------------------------------------------------------------------------- 3-d pooling
@pytest.mark.parametrize(
    ("name", "args", "shape"),
    [
        ("max_pool3d", (2,), (2, 3, 4, 5, 4)),
        ("max_pool3d", ((3, 2, 2), (2, 1, 2), (1, 1, 0)), (1, 2, 5, 4, 5)),
        ("avg_pool3d", (2,), (2, 3, 4, 5, 4)),
        ("avg_pool3d", ((3, 2, 2), (2, 1, 2), (1, 1, 0)), (1, 2, 5, 4, 5)),
        ("adaptive_avg_pool3d", ((2, 3, 1),), (2, 3, 5, 4, 5)),
        ("adaptive_avg_pool3d", ((None, 2, 2),), (2, 3, 5, 4, 5)),
        ("adaptive_max_pool3d", ((2, 3, 2),), (1, 2, 5, 4, 5)),
        ("max_pool3d", (2,), (3, 4, 4, 4)),
    ],
)
def test_pool3d_matches_torch(torch: Any, name: str, args: tuple[Any, ...], shape: tuple[int, ...]) -> None:
    run(torch, name, randn(*shape), *args)


def test_adaptive_max_pool3d_indices_and_modules_match_torch(torch: Any) -> None:
    run(torch, "adaptive_max_pool3d", randn(1, 2, 5, 4, 5), (2, 3, 2), return_indices=True)
    for name, args in [
        ("MaxPool3d", (2,)),
        ("AvgPool3d", (3, 2, 1)),
        ("AdaptiveAvgPool3d", (2,)),
        ("AdaptiveMaxPool3d", (2,)),
    ]:
        c, t = getattr(nn, name)(*args), getattr(torch.nn, name)(*args)
        assert repr(c) == repr(t)
        data = randn(1, 2, 4, 5, 4)
        np.testing.assert_allclose(c(ctxgrad.tensor(data)).numpy(), t(torch.tensor(data)).numpy(), rtol=1e-12)


@pytest.mark.parametrize(
    ("name", "shape", "output_size"),
    [
        ("adaptive_max_pool1d", (3, 11), 5),
        ("adaptive_max_pool1d", (2, 3, 11), 4),
        ("adaptive_max_pool2d", (2, 3, 10, 10), 4),
        ("adaptive_max_pool2d", (3, 7, 9), (3, 5)),
        ("adaptive_max_pool2d", (2, 3, 10, 10), (None, 3)),
        ("adaptive_max_pool2d", (2, 3, 4, 4), (6, 7)),
        ("adaptive_max_pool2d", (0, 3, 5, 5), 2),
        ("adaptive_max_pool3d", (1, 2, 5, 4, 5), (2, 3, 2)),
    ],
)
def test_adaptive_max_on_ties_nan_and_minus_inf_matches_torch(
    torch: Any, name: str, shape: tuple[int, ...], output_size: Any
) -> None:
    """The windows gathered at once: the first maximum of each window (a NaN when there is
    one) is the value, the index and where the whole gradient goes, as torch."""
    data = np.random.default_rng(5).integers(-3, 3, size=shape).astype(np.float64)  # many ties
    if data.size:
        data.flat[3], data.flat[5] = np.nan, -np.inf
    c_x, t_x = ctxgrad.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    c_out, c_idx = getattr(F, name)(c_x, output_size, return_indices=True)
    t_out, t_idx = getattr(torch.nn.functional, name)(t_x, output_size, return_indices=True)
    np.testing.assert_array_equal(c_out.detach().numpy(), t_out.detach().numpy())
    np.testing.assert_array_equal(c_idx.numpy(), t_idx.numpy())
    assert c_idx.dtype == ctxgrad.int64 and tuple(c_idx.shape) == tuple(t_idx.shape)
    weights = np.random.default_rng(6).standard_normal(tuple(t_out.shape))
    (c_out * ctxgrad.tensor(weights)).sum().backward()
    (t_out * torch.tensor(weights)).sum().backward()
    assert c_x.grad is not None and t_x.grad is not None
    np.testing.assert_array_equal(c_x.grad.numpy(), t_x.grad.numpy())


@pytest.mark.parametrize(
    ("shape", "args"),
    [
        ((2, 3, 8, 8, 8), (2,)),
        ((1, 2, 5, 4, 5), ((3, 2, 2), (2, 1, 2), (1, 1, 0))),
        ((3, 4, 4, 4), (2,)),
        ((2, 2, 7, 6, 5), ((3, 3, 3), (2, 2, 2), (1, 1, 1))),
    ],
)
def test_max_pool3d_on_ties_matches_torch(torch: Any, shape: tuple[int, ...], args: tuple[Any, ...]) -> None:
    """All the windows' depths pooled at once: the first maximum in (depth, height, width)
    order gets the gradient, as torch, also next to the padding."""
    data = np.random.default_rng(7).integers(-2, 2, size=shape).astype(np.float64)  # many ties
    c_x, t_x = ctxgrad.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    c_out, t_out = F.max_pool3d(c_x, *args), torch.nn.functional.max_pool3d(t_x, *args)
    np.testing.assert_array_equal(c_out.detach().numpy(), t_out.detach().numpy())
    weights = np.random.default_rng(8).standard_normal(tuple(t_out.shape))
    (c_out * ctxgrad.tensor(weights)).sum().backward()
    (t_out * torch.tensor(weights)).sum().backward()
    assert c_x.grad is not None and t_x.grad is not None
    np.testing.assert_allclose(c_x.grad.numpy(), t_x.grad.numpy(), rtol=1e-12, atol=0)

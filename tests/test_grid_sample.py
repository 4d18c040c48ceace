"""``F.grid_sample``, ``F.affine_grid`` and ``F.gumbel_softmax`` against torch 2.13: values and
gradients (with respect to the input and to the grid) for every mode, padding mode and
``align_corners``, in 2-d and 3-d; torch's errors; Gumbel-softmax's distribution and its
straight-through gradient (seeded values are not torch's: its generator is another)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import ctxgrad

torch = pytest.importorskip("torch")

LIBS = [ctxgrad, torch]


def _sample(lib: Any, x: np.ndarray[Any, Any], g: np.ndarray[Any, Any], **kwargs: Any) -> tuple[Any, ...]:
    xi, gi = lib.tensor(x, requires_grad=True), lib.tensor(g, requires_grad=True)
    out = lib.nn.functional.grid_sample(xi, gi, **kwargs)
    (out * lib.arange(float(out.numel()), dtype=lib.float64).reshape(out.shape).sin()).sum().backward()
    grid_grad = gi.grad.numpy() if gi.grad is not None else np.zeros_like(g)
    return out.detach().numpy(), xi.grad.numpy(), grid_grad


@pytest.mark.torch_names("torch.nn.functional.grid_sample")
@pytest.mark.parametrize("mode", ["bilinear", "nearest"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize(
    ("shape", "grid_shape"),
    [((2, 3, 4, 5), (2, 3, 2, 2)), ((1, 2, 3, 4, 5), (1, 2, 3, 2, 3)), ((1, 1, 1, 4), (1, 2, 2, 2))],
)
def test_grid_sample_matches_torch_with_gradients(
    mode: str, padding_mode: str, align_corners: bool, shape: tuple[int, ...], grid_shape: tuple[int, ...]
) -> None:
    rng = np.random.default_rng(sum(shape) + len(mode) + len(padding_mode))
    x, g = rng.standard_normal(shape), rng.uniform(-1.4, 1.4, grid_shape)
    ours, theirs = (
        _sample(lib, x, g, mode=mode, padding_mode=padding_mode, align_corners=align_corners) for lib in LIBS
    )
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


@pytest.mark.torch_names("torch.nn.functional.grid_sample")
def test_grid_sample_in_float32_keeps_the_dtype_as_torch() -> None:
    x = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)
    g = np.array([[[[0.25, -0.5], [1.2, 0.0]]]], dtype=np.float32)
    ours = ctxgrad.nn.functional.grid_sample(ctxgrad.tensor(x), ctxgrad.tensor(g), align_corners=False)
    theirs = torch.nn.functional.grid_sample(torch.tensor(x), torch.tensor(g), align_corners=False)
    assert ours.dtype == ctxgrad.float32 and theirs.dtype == torch.float32
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)


@pytest.mark.torch_names("torch.nn.functional.grid_sample", "torch.nn.functional.affine_grid")
def test_without_align_corners_both_warn_as_torch() -> None:
    for lib in LIBS:
        with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
            lib.nn.functional.grid_sample(lib.zeros(1, 1, 2, 2), lib.zeros(1, 1, 1, 2))
        with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
            lib.nn.functional.affine_grid(lib.eye(2, 3)[None], [1, 1, 2, 2])


def _raised(call: Any) -> tuple[str, str]:
    try:
        call()
    except Exception as error:
        return type(error).__name__, str(error).replace("ctxgrad", "torch")
    raise AssertionError("nothing was raised")


_BAD_CALLS = [
    lambda lib: lib.nn.functional.grid_sample(
        lib.zeros(1, 1, 3, 3), lib.zeros(1, 2, 2, 2), mode="foo", align_corners=False
    ),
    lambda lib: lib.nn.functional.grid_sample(
        lib.zeros(1, 1, 3, 3), lib.zeros(1, 2, 2, 2), padding_mode="foo", align_corners=False
    ),
    lambda lib: lib.nn.functional.grid_sample(lib.zeros(1, 1, 3, 3), lib.zeros(1, 2, 2, 3), align_corners=False),
    lambda lib: lib.nn.functional.grid_sample(lib.zeros(1, 1, 3, 3), lib.zeros(2, 2, 2, 2), align_corners=False),
    lambda lib: lib.nn.functional.grid_sample(
        lib.zeros(1, 1, 3, 3, 3), lib.zeros(1, 2, 2, 2, 3), mode="bicubic", align_corners=False
    ),
    lambda lib: lib.nn.functional.affine_grid(lib.eye(2, 3)[None], (1, 1, 2, 2, 2), align_corners=False),
    lambda lib: lib.nn.functional.affine_grid(lib.eye(2, 3)[None].long(), (1, 1, 2, 2), align_corners=False),
]


@pytest.mark.torch_names("torch.nn.functional.grid_sample", "torch.nn.functional.affine_grid")
@pytest.mark.parametrize("call", _BAD_CALLS)
def test_bad_arguments_are_refused_as_torch(call: Any) -> None:
    assert _raised(lambda: call(ctxgrad)) == _raised(lambda: call(torch))


@pytest.mark.torch_names("torch.nn.functional.grid_sample")
def test_bicubic_is_refused_naming_it() -> None:
    with pytest.raises(NotImplementedError, match="mode='bicubic' is not supported"):
        ctxgrad.nn.functional.grid_sample(ctxgrad.zeros(1, 1, 3, 3), ctxgrad.zeros(1, 2, 2, 2), mode="bicubic")


@pytest.mark.torch_names("torch.nn.functional.affine_grid")
@pytest.mark.filterwarnings("ignore:Since version 1.3.0, affine_grid behavior has changed for unit-size grids")
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("size", [(2, 3, 4, 5), (2, 1, 3, 4, 2), (2, 1, 1, 3)])
def test_affine_grid_matches_torch_with_gradients(align_corners: bool, size: tuple[int, ...]) -> None:
    spatial = len(size) - 2
    theta = np.random.default_rng(len(size)).standard_normal((2, spatial, spatial + 1))
    results = []
    for lib in LIBS:
        t = lib.tensor(theta, requires_grad=True)
        grid = lib.nn.functional.affine_grid(t, size, align_corners=align_corners)
        (grid * grid).sum().backward()
        results.append((grid.detach().numpy(), t.grad.numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0], rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-12)


@pytest.mark.torch_names("torch.nn.functional.affine_grid")
def test_a_unit_size_grid_with_align_corners_warns_as_torch() -> None:
    for lib in LIBS:
        with pytest.warns(UserWarning, match="affine_grid behavior has changed for unit-size grids"):
            lib.nn.functional.affine_grid(lib.eye(2, 3, dtype=lib.float64)[None], [1, 1, 1, 3], align_corners=True)


@pytest.mark.torch_names("torch.nn.functional.affine_grid", "torch.nn.functional.grid_sample")
def test_a_spatial_transformer_trains_its_theta_as_torch() -> None:
    image = np.random.default_rng(7).standard_normal((1, 1, 6, 6))
    theta0 = np.array([[[0.9, 0.1, 0.05], [-0.1, 1.1, 0.0]]])
    grads = []
    for lib in LIBS:
        theta = lib.tensor(theta0, requires_grad=True)
        grid = lib.nn.functional.affine_grid(theta, [1, 1, 6, 6], align_corners=False)
        warped = lib.nn.functional.grid_sample(lib.tensor(image), grid, align_corners=False)
        ((warped - lib.tensor(image)) ** 2).mean().backward()
        grads.append(theta.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-10)


# --------------------------------------------------------------------------- gumbel_softmax
@pytest.mark.torch_names("torch.nn.functional.gumbel_softmax")
@pytest.mark.parametrize("hard", [False, True])
@pytest.mark.parametrize("dim", [-1, 0])
def test_gumbel_softmax_samples_are_distributions_of_torchs_shape(hard: bool, dim: int) -> None:
    logits = np.random.default_rng(0).standard_normal((4, 5))
    for lib in LIBS:
        lib.manual_seed(0)
        y = lib.nn.functional.gumbel_softmax(lib.tensor(logits), tau=0.5, hard=hard, dim=dim)
        assert tuple(y.shape) == (4, 5) and str(y.dtype).endswith("float64")
        values = y.numpy()
        np.testing.assert_allclose(values.sum(axis=dim), 1.0, rtol=1e-12)
        assert (values >= 0).all()
        if hard:
            assert set(np.unique(values)) <= {0.0, 1.0}


@pytest.mark.torch_names("torch.nn.functional.gumbel_softmax")
def test_gumbel_softmax_frequencies_follow_the_softmax_of_the_logits() -> None:
    # the argmax of logits + Gumbel noise is distributed as softmax(logits), whatever tau
    logits = np.log(np.array([0.1, 0.2, 0.7]))
    ctxgrad.manual_seed(1)
    draws = ctxgrad.nn.functional.gumbel_softmax(ctxgrad.tensor(logits).expand(20000, 3), tau=0.3, hard=True)
    frequencies = draws.numpy().mean(axis=0)
    np.testing.assert_allclose(frequencies, [0.1, 0.2, 0.7], atol=0.015)  # ~4 standard errors


@pytest.mark.torch_names("torch.nn.functional.gumbel_softmax")
@pytest.mark.parametrize("dim", [-1, 1])
def test_hard_gumbel_softmax_is_one_hot_with_the_soft_samples_gradient_as_torch(dim: int) -> None:
    # the same seed draws the same noise: the hard sample is one-hot at the soft sample's
    # largest entry, and its gradient is the soft sample's (straight-through), in both libraries
    rng = np.random.default_rng(2)
    logits, weights = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    for lib in LIBS:
        grads = []
        samples = []
        for hard in (False, True):
            x = lib.tensor(logits, requires_grad=True)
            lib.manual_seed(5)
            y = lib.nn.functional.gumbel_softmax(x, tau=0.7, hard=hard, dim=dim)
            (y * lib.tensor(weights)).sum().backward()
            grads.append(x.grad.numpy())
            samples.append(y.detach().numpy())
        soft, hard_sample = samples
        expected = (soft == soft.max(axis=dim, keepdims=True)).astype(np.float64)
        np.testing.assert_array_equal(hard_sample, expected)
        np.testing.assert_allclose(grads[1], grads[0], rtol=1e-12)
        assert np.abs(grads[0]).sum() > 0

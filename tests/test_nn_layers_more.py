"""Padding layers, pixel shuffle, group / instance / RMS / local-response normalisation and
channel-wise and alpha dropout, against torch in float64: outputs, input and parameter
gradients, running statistics, reprs and errors; numerical second derivatives and vmap
against a loop without torch."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import ctxgrad
import ctxgrad.nn.functional as F
from ctxgrad import nn
from ctxgrad.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(1717)


def randn(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape)


def compare(torch: Any, t_module: Any, c_module: nn.Module, data: np.ndarray, rtol: float = 1e-10) -> None:
    """Same repr, state keys, output and gradients (input and parameters) for one input."""
    t_module = t_module.double()
    c_module = c_module.double()
    assert repr(c_module) == repr(t_module)
    assert list(c_module.state_dict()) == list(t_module.state_dict())
    c_module.load_state_dict({k: ctxgrad.tensor(v.detach().numpy()) for k, v in t_module.state_dict().items()})
    c_x, t_x = ctxgrad.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    c_out, t_out = c_module(c_x), t_module(t_x)
    np.testing.assert_allclose(c_out.detach().numpy(), t_out.detach().numpy(), rtol=rtol, atol=1e-12)
    up = randn(*t_out.shape)
    c_out.backward(ctxgrad.tensor(up))
    t_out.backward(torch.tensor(up))
    np.testing.assert_allclose(c_x.grad.numpy(), t_x.grad.numpy(), rtol=rtol, atol=1e-11)
    c_params = dict(c_module.named_parameters())
    for name, tp in t_module.named_parameters():
        np.testing.assert_allclose(c_params[name].grad.numpy(), tp.grad.numpy(), rtol=rtol, atol=1e-11, err_msg=name)
    for name, tb in t_module.named_buffers():
        np.testing.assert_allclose(dict(c_module.named_buffers())[name].numpy(), tb.numpy(), rtol=rtol, err_msg=name)


# --------------------------------------------------------------------------- padding
PADDINGS: list[tuple[str, tuple[Any, ...], tuple[int, ...]]] = [
    ("ZeroPad1d", (2,), (2, 3, 5)),
    ("ZeroPad2d", ((1, 0, 2, 3),), (2, 3, 4, 5)),
    ("ZeroPad3d", (1,), (1, 2, 3, 3, 3)),
    ("ConstantPad1d", ((2, 1), 3.5), (3, 5)),
    ("ConstantPad2d", (1, -1.0), (2, 3, 4, 5)),
    ("ConstantPad3d", ((1, 0, 0, 1, 2, 0), 0.5), (2, 3, 3, 3)),
    ("ReflectionPad1d", ((3, 1),), (2, 3, 5)),
    ("ReflectionPad2d", (2,), (2, 3, 4, 5)),
    ("ReflectionPad3d", (1,), (1, 2, 3, 3, 3)),
    ("ReplicationPad1d", (2,), (3, 5)),
    ("ReplicationPad2d", ((1, 3, 0, 2),), (2, 3, 4, 5)),
    ("ReplicationPad3d", (1,), (2, 3, 3, 3)),
    ("CircularPad1d", (2,), (2, 3, 5)),
    ("CircularPad2d", ((1, 2, 2, 1),), (2, 3, 4, 5)),
    ("CircularPad3d", (1,), (1, 2, 3, 3, 3)),
]


@pytest.mark.parametrize(("name", "args", "shape"), PADDINGS, ids=[p[0] + str(p[1]) for p in PADDINGS])
def test_padding_layers_match_torch(torch: Any, name: str, args: tuple[Any, ...], shape: tuple[int, ...]) -> None:
    compare(torch, getattr(torch.nn, name)(*args), getattr(nn, name)(*args), randn(*shape))


def test_non_constant_padding_of_the_wrong_rank_is_refused_as_torch(torch: Any) -> None:
    for lib in (torch, ctxgrad):
        with pytest.raises(NotImplementedError) as info:
            lib.nn.ReflectionPad1d(2)(lib.ones(2, 3, 4, 5))
        assert str(info.value).startswith(
            "Padding size 2 is not supported for 4D input tensor.\nSupported combinations"
        )


# --------------------------------------------------------------------------- pixel shuffle
@pytest.mark.parametrize(("factor", "shape"), [(2, (2, 8, 3, 4)), (3, (9, 2, 2)), (2, (2, 1, 12, 2, 3))])
def test_pixel_shuffle_and_unshuffle_match_torch(torch: Any, factor: int, shape: tuple[int, ...]) -> None:
    compare(torch, torch.nn.PixelShuffle(factor), nn.PixelShuffle(factor), randn(*shape))
    up_shape = (*shape[:-3], shape[-3] // factor**2, shape[-2] * factor, shape[-1] * factor)
    compare(torch, torch.nn.PixelUnshuffle(factor), nn.PixelUnshuffle(factor), randn(*up_shape))
    x = ctxgrad.tensor(randn(*shape))
    np.testing.assert_array_equal(F.pixel_unshuffle(F.pixel_shuffle(x, factor), factor).numpy(), x.numpy())


PIXEL_ERRORS = [
    lambda m: m.nn.functional.pixel_shuffle(m.ones(2, 3), 2),
    lambda m: m.nn.functional.pixel_shuffle(m.ones(1, 3, 2, 2), 2),
    lambda m: m.nn.functional.pixel_shuffle(m.ones(1, 4, 2, 2), 0),
    lambda m: m.nn.functional.pixel_unshuffle(m.ones(1, 3, 3, 4), 2),
    lambda m: m.nn.functional.pixel_unshuffle(m.ones(1, 3, 4, 3), 2),
    lambda m: m.nn.functional.pixel_unshuffle(m.ones(1, 4, 2, 2), 0),
]


@pytest.mark.parametrize("call", PIXEL_ERRORS)
def test_pixel_shuffle_errors_match_torch(torch: Any, call: Any) -> None:
    with pytest.raises(RuntimeError) as theirs:
        call(torch)
    with pytest.raises(RuntimeError) as ours:
        call(ctxgrad)
    assert str(ours.value) == str(theirs.value)


# --------------------------------------------------------------------------- normalisation
@pytest.mark.parametrize(
    ("args", "kwargs", "shape"),
    [((2, 4), {}, (3, 4, 5)), ((1, 6), {"eps": 1e-3}, (2, 6, 3, 2)), ((3, 3), {"affine": False}, (2, 3, 4))],
)
def test_group_norm_matches_torch(
    torch: Any, args: tuple[int, int], kwargs: dict[str, Any], shape: tuple[int, ...]
) -> None:
    t = torch.nn.GroupNorm(*args, **kwargs)
    if t.weight is not None:
        with torch.no_grad():
            t.weight.normal_()
            t.bias.normal_()
    compare(torch, t, nn.GroupNorm(*args, **kwargs), randn(*shape) * 2 + 1)


@pytest.mark.parametrize("name", ["InstanceNorm1d", "InstanceNorm2d"])
@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"affine": True},
        {"track_running_stats": True, "momentum": 0.3},
        {"affine": True, "track_running_stats": True},
    ],
    ids=["plain", "affine", "tracked", "affine-tracked"],
)
@pytest.mark.parametrize("unbatched", [False, True])
def test_instance_norm_train_then_eval_matches_torch(
    torch: Any, name: str, kwargs: dict[str, Any], unbatched: bool
) -> None:
    shape = (3, 5) if name == "InstanceNorm1d" else (3, 4, 5)
    if not unbatched:
        shape = (2, *shape)
    t, c = getattr(torch.nn, name)(3, **kwargs), getattr(nn, name)(3, **kwargs)
    if kwargs.get("affine"):
        with torch.no_grad():
            t.weight.normal_()
            t.bias.normal_()
    compare(torch, t, c, randn(*shape) * 3 + 1)
    compare(torch, t, c, randn(*shape))  # a second batch: the running statistics fold in again
    compare(torch, t.eval(), c.eval(), randn(*shape))


def test_instance_norm_errors_and_warning_match_torch(torch: Any) -> None:
    for lib in (torch, ctxgrad):
        with pytest.raises(
            ValueError, match=r"expected input's size at dim=1 to match num_features \(3\), but got: 4\."
        ):
            lib.nn.InstanceNorm1d(3, affine=True)(lib.ones(2, 4, 5))
        with pytest.warns(UserWarning, match="input's size at dim=1 does not match num_features"):
            lib.nn.InstanceNorm1d(3)(lib.ones(2, 4, 5))
        with pytest.raises(ValueError, match=r"expected 3D or 4D input \(got 2D input\)"):
            lib.nn.InstanceNorm2d(3)(lib.ones(2, 4))
        with pytest.raises(ValueError, match="Expected more than 1 spatial element when training"):
            lib.nn.functional.instance_norm(lib.ones(2, 3, 1))


@pytest.mark.parametrize(
    ("shape", "eps", "affine", "data_shape"),
    [(4, None, True, (3, 4)), ((3, 4), 1e-3, False, (2, 3, 4)), ([5], 0.1, True, (2, 2, 5))],
)
def test_rms_norm_matches_torch(torch: Any, shape: Any, eps: Any, affine: bool, data_shape: tuple[int, ...]) -> None:
    t = torch.nn.RMSNorm(shape, eps=eps, elementwise_affine=affine)
    if affine:
        with torch.no_grad():
            t.weight.normal_()
    compare(torch, t, nn.RMSNorm(shape, eps=eps, elementwise_affine=affine), randn(*data_shape))


def test_rms_norm_default_eps_is_the_dtype_epsilon(torch: Any) -> None:
    data = np.full((1, 3), 1e-9, dtype=np.float32)
    ours = F.rms_norm(ctxgrad.tensor(data), [3]).numpy()
    theirs = torch.nn.functional.rms_norm(torch.tensor(data), [3]).numpy()
    np.testing.assert_allclose(ours, theirs, rtol=1e-6)
    with pytest.raises(RuntimeError) as t_info:
        torch.nn.functional.rms_norm(torch.ones(2, 3), [4])
    with pytest.raises(RuntimeError) as c_info:
        F.rms_norm(ctxgrad.ones(2, 3), [4])
    assert str(c_info.value) == str(t_info.value)


@pytest.mark.parametrize(
    ("args", "shape"), [((3,), (2, 5, 4)), ((2, 1e-2, 0.5, 2.0), (2, 6, 3, 3)), ((4,), (1, 3, 2, 2, 2))]
)
def test_local_response_norm_matches_torch(torch: Any, args: tuple[Any, ...], shape: tuple[int, ...]) -> None:
    compare(torch, torch.nn.LocalResponseNorm(*args), nn.LocalResponseNorm(*args), randn(*shape) * 3)


def test_local_response_norm_needs_three_dimensions(torch: Any) -> None:
    with pytest.raises(ValueError) as theirs:
        torch.nn.functional.local_response_norm(torch.ones(2, 3), 2)
    with pytest.raises(ValueError) as ours:
        F.local_response_norm(ctxgrad.ones(2, 3), 2)
    assert str(ours.value) == str(theirs.value)


def test_group_norm_errors_match_torch(torch: Any) -> None:
    for lib in (torch, ctxgrad):
        with pytest.raises(
            RuntimeError, match=r"divisible by num_groups, but got input of shape \[2, 5, 3\] and num_groups=2"
        ):
            lib.nn.functional.group_norm(lib.ones(2, 5, 3), 2)
        with pytest.raises(ValueError, match=r"num_channels \(5\) must be divisible by num_groups \(2\)"):
            lib.nn.GroupNorm(2, 5)


NUMERIC = [
    ("group_norm", lambda x, w, b: F.group_norm(x, 2, w, b), [(2, 4, 3), (4,), (4,)]),
    ("instance_norm", lambda x, w: F.instance_norm(x, weight=w), [(2, 3, 4), (3,)]),
    ("rms_norm", lambda x, w: F.rms_norm(x, [3], w, 1e-3), [(2, 3), (3,)]),
    ("local_response_norm", lambda x: F.local_response_norm(x, 3, 0.1, 0.75, 1.0), [(2, 4, 3)]),
    ("pixel_shuffle", lambda x: F.pixel_shuffle(x, 2), [(1, 4, 2, 2)]),
    ("reflect_pad", lambda x: F.pad(x, (1, 2, 2, 0), "reflect"), [(1, 2, 3, 4)]),
]


@pytest.mark.parametrize(("name", "fn", "shapes"), NUMERIC, ids=[n[0] for n in NUMERIC])
def test_numerical_first_and_second_derivatives(name: str, fn: Any, shapes: list[tuple[int, ...]]) -> None:
    inputs = tuple(ctxgrad.tensor(randn(*s), requires_grad=True) for s in shapes)
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)


@pytest.mark.parametrize(("name", "fn", "shapes"), NUMERIC, ids=[n[0] for n in NUMERIC])
def test_vmap_matches_a_loop_over_samples(name: str, fn: Any, shapes: list[tuple[int, ...]]) -> None:
    from ctxgrad.func import vmap

    first = ctxgrad.tensor(randn(3, *shapes[0]))
    rest = [ctxgrad.tensor(randn(*s)) for s in shapes[1:]]
    looped = ctxgrad.stack([fn(first[i], *rest) for i in range(3)])
    batched = vmap(fn, in_dims=(0,) + (None,) * len(rest))(first, *rest)
    np.testing.assert_allclose(batched.numpy(), looped.numpy(), rtol=1e-12, atol=1e-14)


# --------------------------------------------------------------------------- dropout
@pytest.mark.parametrize(
    ("name", "shape"),
    [
        ("dropout1d", (4, 50, 6)),
        ("dropout1d", (50, 6)),
        ("dropout2d", (4, 50, 3, 2)),
        ("dropout3d", (3, 50, 2, 2, 2)),
        ("dropout3d", (50, 2, 3, 2)),
    ],
)
def test_channel_dropout_drops_whole_channels_and_scales(name: str, shape: tuple[int, ...]) -> None:
    ctxgrad.manual_seed(0)
    x = ctxgrad.tensor(np.abs(randn(*shape)) + 1.0, requires_grad=True)
    y = getattr(F, name)(x, 0.3)
    ratio = (y / x).detach().numpy()
    spatial = {"dropout1d": 1, "dropout2d": 2, "dropout3d": 3}[name]
    per_channel = ratio.reshape(*ratio.shape[: ratio.ndim - spatial], -1)
    np.testing.assert_allclose(per_channel.min(-1), per_channel.max(-1), rtol=1e-12)  # one draw per channel
    assert set(np.round(np.unique(per_channel), 9)) <= {0.0, round(1 / 0.7, 9)}
    dropped = (per_channel[..., 0] == 0).mean()
    assert 0.15 < dropped < 0.45
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), ratio)  # the gradient is the mask
    assert getattr(F, name)(x, 0.3, training=False) is x


def test_alpha_dropout_keeps_mean_and_variance_of_normal_input() -> None:
    ctxgrad.manual_seed(1)
    data = RNG.standard_normal(400_000)
    y = F.alpha_dropout(ctxgrad.tensor(data), 0.2, training=True).numpy()
    assert abs(y.mean()) < 0.01 and abs(y.var() - 1) < 0.01
    saturation, p = 1.7580993408473766, 0.2
    a = 1 / np.sqrt((saturation**2 * p + 1) * (1 - p))
    dropped = np.isclose(y, saturation * a * (p - 1))  # SELU's saturation, shifted and scaled
    kept = np.isclose(y, a * data + saturation * a * p)
    assert np.all(dropped | kept) and 0.18 < dropped.mean() < 0.22
    x = ctxgrad.ones(3)
    assert F.alpha_dropout(x, 0.2) is x  # training=False by default, as torch


def test_dropout_modules_match_torch_reprs_and_eval(torch: Any) -> None:
    for name, args in [
        ("Dropout3d", (0.2,)),
        ("Dropout1d", ()),
        ("Dropout2d", (0.3,)),
        ("AlphaDropout", (0.2,)),
        ("FeatureAlphaDropout", (0.1, True)),
    ]:
        c, t = getattr(nn, name)(*args), getattr(torch.nn, name)(*args)
        assert repr(c) == repr(t)
        x = ctxgrad.ones(2, 3, 4)
        assert c.eval()(x) is x
    for lib in (torch, ctxgrad):
        with pytest.raises(ValueError, match=r"dropout probability has to be between 0 and 1, but got 1\.5"):
            lib.nn.Dropout2d(1.5)
        with pytest.raises(RuntimeError, match="dropout1d: Expected 2D or 3D input, but received a 4D input"):
            lib.nn.functional.dropout1d(lib.ones(2, 3, 4, 5))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.nn.functional.dropout2d(lib.ones(2, 3, 4))
        assert "Received a 3D input to dropout2d" in str(caught[0].message)

"""conv_transpose1d/2d and ConvTranspose1d/2d against torch in float64: outputs and the
gradients of input, weight and bias over strides, padding, output padding, groups and
dilation; module parameters, initialisation bounds and reprs; torch's errors; numerical
second derivatives and vmap without torch."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import ctxgrad
import ctxgrad.nn.functional as F
from ctxgrad import nn
from ctxgrad.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(5)


def randn(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape)


def run(torch: Any, name: str, arrays: list[np.ndarray | None], **kwargs: Any) -> None:
    c_in = [None if a is None else ctxgrad.tensor(a, requires_grad=True) for a in arrays]
    t_in = [None if a is None else torch.tensor(a, requires_grad=True) for a in arrays]
    c_out = getattr(F, name)(*c_in, **kwargs)
    t_out = getattr(torch.nn.functional, name)(*t_in, **kwargs)
    assert tuple(c_out.shape) == tuple(t_out.shape)
    np.testing.assert_allclose(c_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-11, atol=1e-12)
    up = randn(*t_out.shape)
    c_out.backward(ctxgrad.tensor(up))
    t_out.backward(torch.tensor(up))
    for i, (c, t) in enumerate(zip(c_in, t_in)):
        if t is not None:
            np.testing.assert_allclose(c.grad.numpy(), t.grad.numpy(), rtol=1e-11, atol=1e-12, err_msg=str(i))


CASES_2D = [
    ({}, 1),
    ({"stride": 2}, 1),
    ({"stride": 2, "padding": 1, "output_padding": 1}, 1),
    ({"stride": (2, 3), "padding": (0, 1), "output_padding": (1, 2), "dilation": (1, 2)}, 1),
    ({"stride": 1, "padding": 2, "dilation": 2, "output_padding": 1}, 1),
    ({"groups": 2, "stride": 2, "padding": 1}, 2),
]


@pytest.mark.parametrize(("kwargs", "groups"), CASES_2D, ids=[str(c[0]) for c in CASES_2D])
@pytest.mark.parametrize("with_bias", [True, False])
def test_conv_transpose2d_matches_torch(torch: Any, kwargs: dict[str, Any], groups: int, with_bias: bool) -> None:
    bias = randn(3 * groups) if with_bias else None
    run(torch, "conv_transpose2d", [randn(2, 4, 5, 4), randn(4, 3, 3, 2), bias], **kwargs)


def test_conv_transpose2d_unbatched(torch: Any) -> None:
    run(torch, "conv_transpose2d", [randn(4, 3, 3), randn(4, 2, 2, 2), randn(2)], stride=2)


@pytest.mark.parametrize(
    "kwargs", [{}, {"stride": 3, "padding": 1, "output_padding": 2}, {"groups": 2, "dilation": 2}], ids=str
)
def test_conv_transpose1d_matches_torch(torch: Any, kwargs: dict[str, Any]) -> None:
    run(torch, "conv_transpose1d", [randn(2, 4, 6), randn(4, 3, 3), randn(3 * kwargs.get("groups", 1))], **kwargs)
    run(torch, "conv_transpose1d", [randn(4, 6), randn(4, 3, 3), None], **kwargs)


@pytest.mark.parametrize(
    ("name", "args", "kwargs", "shape"),
    [
        ("ConvTranspose2d", (4, 6, 3), {"stride": 2, "padding": 1, "output_padding": 1, "groups": 2}, (2, 4, 5, 5)),
        ("ConvTranspose2d", (3, 2, (2, 3)), {"dilation": 2, "bias": False}, (1, 3, 4, 4)),
        ("ConvTranspose1d", (3, 5, 2), {"stride": 2}, (2, 3, 7)),
    ],
)
def test_modules_match_torch(
    torch: Any, name: str, args: tuple[Any, ...], kwargs: dict[str, Any], shape: tuple[int, ...]
) -> None:
    t_mod = getattr(torch.nn, name)(*args, **kwargs).double()
    c_mod = getattr(nn, name)(*args, **kwargs).double()
    assert repr(c_mod) == repr(t_mod)
    # torch's init draws weight and bias from U(-1/sqrt(fan_in), 1/sqrt(fan_in)), fan_in from the
    # weight's dimension 1 and kernel (its reset_parameters); ctxgrad's stay in that range too
    weight = c_mod.weight
    fan_in = weight.shape[1] * int(np.prod(weight.shape[2:]))
    for (cn, cp), (tn, tp) in zip(c_mod.named_parameters(), t_mod.named_parameters()):
        assert cn == tn and tuple(cp.shape) == tuple(tp.shape)
        assert float(cp.detach().abs().max()) <= fan_in**-0.5
        assert float(tp.detach().abs().max()) <= fan_in**-0.5
    c_mod.load_state_dict({k: ctxgrad.tensor(v.detach().numpy()) for k, v in t_mod.state_dict().items()})
    data = randn(*shape)
    c_x, t_x = ctxgrad.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    c_out, t_out = c_mod(c_x), t_mod(t_x)
    np.testing.assert_allclose(c_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-11, atol=1e-12)
    c_out.sum().backward()
    t_out.sum().backward()
    np.testing.assert_allclose(c_x.grad.numpy(), t_x.grad.numpy(), rtol=1e-11, atol=1e-12)
    for (_, cp), (_, tp) in zip(c_mod.named_parameters(), t_mod.named_parameters()):
        np.testing.assert_allclose(cp.grad.numpy(), tp.grad.numpy(), rtol=1e-11, atol=1e-12)


def test_output_size_picks_the_output_padding_as_torch(torch: Any) -> None:
    t_mod = torch.nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1).double()
    c_mod = nn.ConvTranspose2d(2, 3, 3, stride=2, padding=1).double()
    c_mod.load_state_dict({k: ctxgrad.tensor(v.detach().numpy()) for k, v in t_mod.state_dict().items()})
    data = randn(1, 2, 4, 4)
    for size in ([7, 7], [8, 8], [1, 3, 8, 7]):
        ours = c_mod(ctxgrad.tensor(data), output_size=size)
        theirs = t_mod(torch.tensor(data), output_size=size)
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-11)
    with pytest.raises(ValueError):
        c_mod(ctxgrad.tensor(data), output_size=[9, 9])


ERRORS = [
    lambda m: m.nn.functional.conv_transpose2d(m.ones(1, 3, 5, 5), m.ones(4, 2, 3, 3)),
    lambda m: m.nn.functional.conv_transpose2d(m.ones(1, 4, 5, 5), m.ones(4, 2, 3, 3), stride=2, output_padding=2),
    lambda m: m.nn.functional.conv_transpose2d(m.ones(4, 5), m.ones(4, 2, 3, 3)),
]


@pytest.mark.parametrize("call", ERRORS)
def test_errors_match_torch(torch: Any, call: Any) -> None:
    with pytest.raises(RuntimeError) as theirs:
        call(torch)
    with pytest.raises(RuntimeError) as ours:
        call(ctxgrad)
    assert str(ours.value) == str(theirs.value)


def _convt(x: ctxgrad.Tensor, w: ctxgrad.Tensor, b: ctxgrad.Tensor) -> ctxgrad.Tensor:
    return F.conv_transpose2d(x, w, b, stride=2, padding=1, output_padding=1, groups=2)


def test_numerical_first_and_second_derivatives() -> None:
    inputs = (
        ctxgrad.tensor(randn(1, 4, 3, 3), requires_grad=True),
        ctxgrad.tensor(randn(4, 1, 3, 2), requires_grad=True),
        ctxgrad.tensor(randn(2), requires_grad=True),
    )
    assert gradcheck(_convt, inputs)
    assert gradgradcheck(_convt, inputs)


@pytest.mark.filterwarnings("ignore:vmap. Col2Im has no batching rule")  # fold runs once per sample
def test_vmap_matches_a_loop_over_samples() -> None:
    from ctxgrad.func import vmap

    x, w, b = ctxgrad.tensor(randn(3, 2, 4, 3, 3)), ctxgrad.tensor(randn(4, 1, 3, 2)), ctxgrad.tensor(randn(2))
    looped = ctxgrad.stack([_convt(x[i], w, b) for i in range(3)])
    batched = vmap(_convt, in_dims=(0, None, None))(x, w, b)
    np.testing.assert_allclose(batched.numpy(), looped.numpy(), rtol=1e-12)

"""conv3d and Conv3d against torch in float64: outputs and the gradients of input, weight and
bias over stride, padding (numbers, 'same', 'valid'), dilation and groups; unbatched input;
module repr and parameters; errors; numerical second derivatives."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import ctxgrad
import ctxgrad.nn.functional as F
from ctxgrad import nn
from ctxgrad.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(3)


def randn(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape)


CASES: list[dict[str, Any]] = [
    {},
    {"stride": 2, "padding": 1},
    {"stride": (1, 2, 1), "padding": (1, 0, 2), "dilation": (2, 1, 1)},
    {"padding": "same", "dilation": 2},
    {"padding": "valid", "groups": 2},
]


@pytest.mark.parametrize("kwargs", CASES, ids=str)
@pytest.mark.parametrize("unbatched", [False, True])
def test_conv3d_matches_torch(torch: Any, kwargs: dict[str, Any], unbatched: bool) -> None:
    groups = kwargs.get("groups", 1)
    shape = (4, 5, 6, 5) if unbatched else (2, 4, 5, 6, 5)
    arrays = [randn(*shape), randn(6, 4 // groups, 3, 2, 3), randn(6)]
    c_in = [ctxgrad.tensor(a, requires_grad=True) for a in arrays]
    t_in = [torch.tensor(a, requires_grad=True) for a in arrays]
    c_out, t_out = F.conv3d(*c_in, **kwargs), torch.nn.functional.conv3d(*t_in, **kwargs)
    assert tuple(c_out.shape) == tuple(t_out.shape)
    np.testing.assert_allclose(c_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-11, atol=1e-12)
    up = randn(*t_out.shape)
    c_out.backward(ctxgrad.tensor(up))
    t_out.backward(torch.tensor(up))
    for c, t in zip(c_in, t_in):
        np.testing.assert_allclose(c.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-11)


def test_module_matches_torch(torch: Any) -> None:
    c, t = (
        nn.Conv3d(2, 4, 3, stride=2, padding=1, groups=2).double(),
        torch.nn.Conv3d(2, 4, 3, stride=2, padding=1, groups=2).double(),
    )
    assert repr(c) == repr(t)
    assert [(n, tuple(p.shape)) for n, p in c.named_parameters()] == [
        (n, tuple(p.shape)) for n, p in t.named_parameters()
    ]
    c.load_state_dict({k: ctxgrad.tensor(v.detach().numpy()) for k, v in t.state_dict().items()})
    data = randn(1, 2, 5, 5, 5)
    np.testing.assert_allclose(
        c(ctxgrad.tensor(data)).detach().numpy(), t(torch.tensor(data)).detach().numpy(), rtol=1e-11
    )


def test_errors_match_torch(torch: Any) -> None:
    for lib in (torch, ctxgrad):
        with pytest.raises(RuntimeError, match=r"Expected 4D \(unbatched\) or 5D \(batched\) input to conv3d"):
            lib.nn.functional.conv3d(lib.ones(2, 3, 4), lib.ones(1, 3, 1, 1, 1))
        with pytest.raises(RuntimeError, match="padding='same' is not supported for strided convolutions"):
            lib.nn.functional.conv3d(lib.ones(1, 1, 3, 3, 3), lib.ones(1, 1, 1, 1, 1), stride=2, padding="same")


def test_numerical_first_and_second_derivatives() -> None:
    def fn(x: ctxgrad.Tensor, w: ctxgrad.Tensor) -> ctxgrad.Tensor:
        return F.conv3d(x, w, stride=(2, 1, 1), padding=1)

    inputs = (
        ctxgrad.tensor(randn(1, 2, 3, 3, 2), requires_grad=True),
        ctxgrad.tensor(randn(2, 2, 2, 2, 2), requires_grad=True),
    )
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)

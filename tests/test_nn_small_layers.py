"""CosineSimilarity, PairwiseDistance, Unfold, Fold, ChannelShuffle and BatchNorm3d against
torch in float64: reprs, outputs, gradients, running statistics and the rank error."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import ctxgrad
from ctxgrad import nn

RNG = np.random.default_rng(13)

CASES: list[tuple[str, tuple[Any, ...], dict[str, Any], list[tuple[int, ...]]]] = [
    ("CosineSimilarity", (), {}, [(4, 5), (4, 5)]),
    ("CosineSimilarity", (0, 1e-6), {}, [(4, 5), (4, 5)]),
    ("PairwiseDistance", (), {}, [(4, 5), (4, 5)]),
    ("PairwiseDistance", (1.0,), {"keepdim": True}, [(4, 5), (4, 5)]),
    ("Unfold", (2,), {}, [(2, 3, 4, 5)]),
    ("Unfold", ((2, 3),), {"dilation": 2, "padding": 1, "stride": 2}, [(2, 3, 5, 6)]),
    ("Fold", ((4, 5), 2), {}, [(2, 12, 12)]),
    ("ChannelShuffle", (2,), {}, [(2, 6, 3, 2)]),
    ("ChannelShuffle", (3,), {}, [(2, 6, 4)]),
]


@pytest.mark.parametrize(("name", "args", "kwargs", "shapes"), CASES, ids=[f"{c[0]}{c[1]}" for c in CASES])
def test_layers_match_torch(
    torch: Any, name: str, args: tuple[Any, ...], kwargs: dict[str, Any], shapes: list[tuple[int, ...]]
) -> None:
    c_mod, t_mod = getattr(nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    assert repr(c_mod) == repr(t_mod)
    arrays = [RNG.standard_normal(s) for s in shapes]
    c_in = [ctxgrad.tensor(a, requires_grad=True) for a in arrays]
    t_in = [torch.tensor(a, requires_grad=True) for a in arrays]
    c_out, t_out = c_mod(*c_in), t_mod(*t_in)
    np.testing.assert_allclose(c_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-12)
    up = RNG.standard_normal(tuple(t_out.shape))
    c_out.backward(ctxgrad.tensor(up))
    t_out.backward(torch.tensor(up))
    for c, t in zip(c_in, t_in):
        np.testing.assert_allclose(c.grad.numpy(), t.grad.numpy(), rtol=1e-11, atol=1e-13)


def test_batch_norm3d_train_then_eval_matches_torch(torch: Any) -> None:
    c_mod, t_mod = nn.BatchNorm3d(3).double(), torch.nn.BatchNorm3d(3).double()
    assert repr(c_mod) == repr(t_mod)
    for _ in range(2):
        data = RNG.standard_normal((2, 3, 2, 3, 2))
        np.testing.assert_allclose(
            c_mod(ctxgrad.tensor(data)).detach().numpy(), t_mod(torch.tensor(data)).detach().numpy(), rtol=1e-11
        )
    for name, buffer in t_mod.named_buffers():
        np.testing.assert_allclose(dict(c_mod.named_buffers())[name].numpy(), buffer.numpy(), rtol=1e-11)
    data = RNG.standard_normal((2, 3, 2, 3, 2))
    c_mod.eval()
    t_mod.eval()
    np.testing.assert_allclose(
        c_mod(ctxgrad.tensor(data)).detach().numpy(), t_mod(torch.tensor(data)).detach().numpy(), rtol=1e-11
    )
    for lib in (torch, ctxgrad):
        with pytest.raises(ValueError, match=r"expected 5D input \(got 3D input\)"):
            lib.nn.BatchNorm3d(3)(lib.ones(2, 3, 4))

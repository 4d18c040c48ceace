"""nn.utils.weight_norm / remove_weight_norm and nn.utils.rnn.pad_sequence / unpad_sequence
against torch: parameters, values and gradients of g and v, the recomputation before each
forward, removal; padded batches on either side."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import ctxgrad
from ctxgrad import nn
from ctxgrad.nn.utils.rnn import pad_sequence, unpad_sequence

RNG = np.random.default_rng(64)


@pytest.mark.parametrize(
    ("build", "dim", "shape"),
    [
        (lambda m: m.nn.Linear(3, 4), 0, (5, 3)),
        (lambda m: m.nn.Conv2d(2, 3, 2), None, (1, 2, 4, 4)),
        (lambda m: m.nn.Conv2d(2, 3, 2), 1, (1, 2, 4, 4)),
    ],
)
def test_weight_norm_matches_torch(torch: Any, build: Any, dim: Any, shape: tuple[int, ...]) -> None:
    t_mod = build(torch).double()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        torch.nn.utils.weight_norm(t_mod, dim=dim)
    with pytest.warns(FutureWarning, match="is deprecated in favor of .*parametrizations.weight_norm"):
        c_mod = nn.utils.weight_norm(build(ctxgrad).double(), dim=dim)
    assert [(n, tuple(p.shape)) for n, p in c_mod.named_parameters()] == [
        (n, tuple(p.shape)) for n, p in t_mod.named_parameters()
    ]
    with torch.no_grad():
        for p in t_mod.parameters():
            p.copy_(torch.randn(p.shape, dtype=torch.float64))
    c_mod.load_state_dict({k: ctxgrad.tensor(v.detach().numpy()) for k, v in t_mod.state_dict().items()})
    data = RNG.standard_normal(shape)
    c_out, t_out = c_mod(ctxgrad.tensor(data)), t_mod(torch.tensor(data))
    np.testing.assert_allclose(c_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-12)
    c_out.pow(2).sum().backward()
    t_out.pow(2).sum().backward()
    for (name, cp), (_, tp) in zip(c_mod.named_parameters(), t_mod.named_parameters()):
        np.testing.assert_allclose(cp.grad.numpy(), tp.grad.numpy(), rtol=1e-11, err_msg=name)


def test_weight_is_recomputed_before_each_forward_and_removal_keeps_it(torch: Any) -> None:
    with pytest.warns(FutureWarning):
        layer = nn.utils.weight_norm(nn.Linear(2, 2).double())
    with ctxgrad.no_grad():
        layer.weight_g.mul_(2.0)
    x = ctxgrad.ones(1, 2, dtype=ctxgrad.float64)
    expected = x @ (layer.weight_v * (layer.weight_g / layer.weight_v.norm(2, 1, keepdim=True))).T + layer.bias
    np.testing.assert_allclose(layer(x).detach().numpy(), expected.detach().numpy(), rtol=1e-13)
    before = layer.weight.detach().numpy().copy()
    nn.utils.remove_weight_norm(layer)
    assert [n for n, _ in layer.named_parameters()] == ["bias", "weight"]
    np.testing.assert_allclose(layer.weight.detach().numpy(), before, rtol=1e-13)
    for lib in (torch, ctxgrad):
        with pytest.raises(ValueError, match="weight_norm of 'weight' not found in Linear"):
            lib.nn.utils.remove_weight_norm(lib.nn.Linear(2, 2))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", FutureWarning)
            twice = lib.nn.utils.weight_norm(lib.nn.Linear(2, 2))
            with pytest.raises(
                RuntimeError, match="Cannot register two weight_norm hooks on the same parameter weight"
            ):
                lib.nn.utils.weight_norm(twice)


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("padding_side", ["right", "left"])
def test_pad_sequence_matches_torch(torch: Any, batch_first: bool, padding_side: str) -> None:
    arrays = [RNG.standard_normal((n, 3)) for n in (4, 1, 3)]
    c_in = [ctxgrad.tensor(a, requires_grad=True) for a in arrays]
    t_in = [torch.tensor(a, requires_grad=True) for a in arrays]
    ours = pad_sequence(c_in, batch_first=batch_first, padding_value=-1.0, padding_side=padding_side)
    theirs = torch.nn.utils.rnn.pad_sequence(
        t_in, batch_first=batch_first, padding_value=-1.0, padding_side=padding_side
    )
    np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())
    up = RNG.standard_normal(tuple(theirs.shape))
    ours.backward(ctxgrad.tensor(up))
    theirs.backward(torch.tensor(up))
    for c, t in zip(c_in, t_in):
        np.testing.assert_array_equal(c.grad.numpy(), t.grad.numpy())
    if padding_side == "right":
        back = unpad_sequence(ours.detach(), ctxgrad.tensor([4, 1, 3]), batch_first=batch_first)
        for b, a in zip(back, arrays):
            np.testing.assert_array_equal(b.numpy(), a)

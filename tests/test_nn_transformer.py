"""TransformerEncoderLayer / DecoderLayer and their stacks against torch in float64 (weights
copied, evaluation mode so dropout is off): outputs and the gradients of inputs and every
parameter, post- and pre-norm, masks, gelu; state-dict names; the causal mask helper."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import ctxgrad
from ctxgrad import nn

RNG = np.random.default_rng(31)


def randn(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape)


def copy_weights(torch: Any, t_mod: Any, c_mod: Any) -> None:
    assert list(c_mod.state_dict()) == list(t_mod.state_dict())
    c_mod.load_state_dict({k: ctxgrad.tensor(v.detach().numpy()) for k, v in t_mod.state_dict().items()})


def compare(torch: Any, c_mod: Any, t_mod: Any, arrays: list[np.ndarray], **masks: Any) -> None:
    c_in = [ctxgrad.tensor(a, requires_grad=True) for a in arrays]
    t_in = [torch.tensor(a, requires_grad=True) for a in arrays]
    c_kw = {k: None if v is None else ctxgrad.tensor(v) for k, v in masks.items()}
    t_kw = {k: None if v is None else torch.tensor(v) for k, v in masks.items()}
    c_out, t_out = c_mod(*c_in, **c_kw), t_mod(*t_in, **t_kw)
    np.testing.assert_allclose(c_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-9, atol=1e-11)
    up = randn(*t_out.shape)
    c_out.backward(ctxgrad.tensor(up))
    t_out.backward(torch.tensor(up))
    for c, t in zip(c_in, t_in):
        np.testing.assert_allclose(c.grad.numpy(), t.grad.numpy(), rtol=1e-8, atol=1e-10)
    for (name, cp), (_, tp) in zip(c_mod.named_parameters(), t_mod.named_parameters()):
        np.testing.assert_allclose(cp.grad.numpy(), tp.grad.numpy(), rtol=1e-8, atol=1e-10, err_msg=name)


CONFIGS = [{}, {"norm_first": True}, {"activation": "gelu", "batch_first": True}, {"bias": False}]


@pytest.mark.parametrize("kwargs", CONFIGS, ids=str)
def test_encoder_layer_matches_torch(torch: Any, kwargs: dict[str, Any]) -> None:
    t_mod = torch.nn.TransformerEncoderLayer(8, 2, 16, **kwargs).double().eval()
    c_mod = nn.TransformerEncoderLayer(8, 2, 16, **kwargs).double().eval()
    copy_weights(torch, t_mod, c_mod)
    compare(torch, c_mod, t_mod, [randn(5, 3, 8)])
    mask = np.triu(np.full((5, 5), -np.inf), 1) if not kwargs.get("batch_first") else None
    if kwargs.get("batch_first"):
        compare(torch, c_mod, t_mod, [randn(3, 5, 8)])
    padding = RNG.random((3, 5)) < 0.3
    padding[:, 0] = False
    if mask is not None:
        compare(torch, c_mod, t_mod, [randn(5, 3, 8)], src_mask=mask, src_key_padding_mask=padding)


@pytest.mark.parametrize("kwargs", CONFIGS, ids=str)
def test_decoder_layer_matches_torch(torch: Any, kwargs: dict[str, Any]) -> None:
    t_mod = torch.nn.TransformerDecoderLayer(8, 2, 16, **kwargs).double().eval()
    c_mod = nn.TransformerDecoderLayer(8, 2, 16, **kwargs).double().eval()
    copy_weights(torch, t_mod, c_mod)
    if kwargs.get("batch_first"):
        compare(torch, c_mod, t_mod, [randn(3, 4, 8), randn(3, 6, 8)])
    else:
        compare(torch, c_mod, t_mod, [randn(4, 3, 8), randn(6, 3, 8)])
        mask = np.triu(np.full((4, 4), -np.inf), 1)
        compare(torch, c_mod, t_mod, [randn(4, 3, 8), randn(6, 3, 8)], tgt_mask=mask)


def test_stacks_match_torch(torch: Any) -> None:
    t_enc = torch.nn.TransformerEncoder(
        torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0),
        2,
        norm=torch.nn.LayerNorm(8),
        enable_nested_tensor=False,
    )
    c_enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 2, norm=nn.LayerNorm(8))
    t_enc, c_enc = t_enc.double().eval(), c_enc.double().eval()
    copy_weights(torch, t_enc, c_enc)
    compare(torch, c_enc, t_enc, [randn(5, 2, 8)])
    t_dec = torch.nn.TransformerDecoder(torch.nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0), 2).double().eval()
    c_dec = nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0), 2).double().eval()
    copy_weights(torch, t_dec, c_dec)
    compare(torch, c_dec, t_dec, [randn(4, 2, 8), randn(5, 2, 8)])


def test_square_subsequent_mask_matches_torch(torch: Any) -> None:
    ours = nn.Transformer.generate_square_subsequent_mask(4)
    theirs = torch.nn.Transformer.generate_square_subsequent_mask(4)
    assert ours.dtype == ctxgrad.float32
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_training_mode_uses_dropout() -> None:
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.5).double()
    x = ctxgrad.tensor(randn(5, 2, 8))
    ctxgrad.manual_seed(0)
    a = layer(x)
    ctxgrad.manual_seed(1)
    b = layer(x)
    assert not np.allclose(a.detach().numpy(), b.detach().numpy())
    layer.eval()
    np.testing.assert_array_equal(layer(x).detach().numpy(), layer(x).detach().numpy())


def test_whole_transformer_matches_torch(torch: Any) -> None:
    kwargs = {"d_model": 8, "nhead": 2, "num_encoder_layers": 2, "num_decoder_layers": 1, "dim_feedforward": 16}
    t_mod = torch.nn.Transformer(**kwargs).double().eval()
    c_mod = nn.Transformer(**kwargs).double().eval()
    assert [(n, tuple(p.shape)) for n, p in c_mod.named_parameters()] == [
        (n, tuple(p.shape)) for n, p in t_mod.named_parameters()
    ]
    bound = np.sqrt(6 / (8 + 24))  # xavier_uniform_ of the (3E, E) in_proj_weight
    assert float(c_mod.encoder.layers[0].self_attn.in_proj_weight.abs().max()) <= bound
    copy_weights(torch, t_mod, c_mod)
    mask = np.triu(np.full((4, 4), -np.inf), 1)
    src, tgt = randn(5, 2, 8), randn(4, 2, 8)
    c_src, c_tgt = ctxgrad.tensor(src, requires_grad=True), ctxgrad.tensor(tgt, requires_grad=True)
    t_src, t_tgt = torch.tensor(src, requires_grad=True), torch.tensor(tgt, requires_grad=True)
    ours = c_mod(c_src, c_tgt, tgt_mask=ctxgrad.tensor(mask))
    theirs = t_mod(t_src, t_tgt, tgt_mask=torch.tensor(mask))
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-9, atol=1e-11)
    ours.sum().backward()
    theirs.sum().backward()
    np.testing.assert_allclose(c_src.grad.numpy(), t_src.grad.numpy(), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(c_tgt.grad.numpy(), t_tgt.grad.numpy(), rtol=1e-8, atol=1e-10)

"""scaled_dot_product_attention and MultiheadAttention against torch in float64: outputs,
attention weights and gradients (inputs and parameters) with boolean, float, causal and
key-padding masks, batch_first, unbatched input, separate key/value sizes; reprs and
parameter names; numerical second derivatives and vmap without torch."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import ctxgrad
import ctxgrad.nn.functional as F
from ctxgrad import nn
from ctxgrad.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(21)


def randn(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape)


def bool_mask(*shape: int) -> np.ndarray:
    mask = RNG.random(shape) > 0.3
    mask[..., 0] = True  # every row keeps one position (an all-masked row is NaN in both)
    return mask


SDPA_CASES: list[tuple[str, dict[str, Any], Any]] = [
    ("plain", {}, None),
    ("scale", {"scale": 0.3}, None),
    ("causal", {"is_causal": True}, None),
    ("bool-mask", {}, lambda: bool_mask(4, 6)),
    ("float-mask", {}, lambda: randn(2, 1, 4, 6)),
]


@pytest.mark.parametrize(("label", "kwargs", "mask"), SDPA_CASES, ids=[c[0] for c in SDPA_CASES])
def test_scaled_dot_product_attention_matches_torch(torch: Any, label: str, kwargs: dict[str, Any], mask: Any) -> None:
    arrays = [randn(2, 3, 4, 5), randn(2, 3, 6, 5), randn(2, 3, 6, 7)]
    if label == "causal":
        arrays[1], arrays[2] = randn(2, 3, 4, 5), randn(2, 3, 4, 7)
    c_in = [ctxgrad.tensor(a, requires_grad=True) for a in arrays]
    t_in = [torch.tensor(a, requires_grad=True) for a in arrays]
    m = None if mask is None else mask()
    c_out = F.scaled_dot_product_attention(*c_in, attn_mask=None if m is None else ctxgrad.tensor(m), **kwargs)
    t_out = torch.nn.functional.scaled_dot_product_attention(
        *t_in, attn_mask=None if m is None else torch.tensor(m), **kwargs
    )
    np.testing.assert_allclose(c_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-11, atol=1e-13)
    up = randn(*t_out.shape)
    c_out.backward(ctxgrad.tensor(up))
    t_out.backward(torch.tensor(up))
    for c, t in zip(c_in, t_in):
        np.testing.assert_allclose(c.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_grouped_query_attention_matches_torch(torch: Any) -> None:
    q, k, v = randn(2, 4, 3, 5), randn(2, 2, 6, 5), randn(2, 2, 6, 5)
    ours = F.scaled_dot_product_attention(ctxgrad.tensor(q), ctxgrad.tensor(k), ctxgrad.tensor(v), enable_gqa=True)
    theirs = torch.nn.functional.scaled_dot_product_attention(
        torch.tensor(q), torch.tensor(k), torch.tensor(v), enable_gqa=True
    )
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-11)


def test_attention_numerical_derivatives_and_vmap() -> None:
    from ctxgrad.func import vmap

    def fn(q: ctxgrad.Tensor, k: ctxgrad.Tensor, v: ctxgrad.Tensor) -> ctxgrad.Tensor:
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)

    inputs = tuple(ctxgrad.tensor(randn(2, 3, 2), requires_grad=True) for _ in range(3))
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)
    batch = [ctxgrad.tensor(randn(4, 2, 3, 2)) for _ in range(3)]
    looped = ctxgrad.stack([fn(*(b[i] for b in batch)) for i in range(4)])
    np.testing.assert_allclose(vmap(fn)(*batch).numpy(), looped.numpy(), rtol=1e-12)


def mha_twins(torch: Any, *args: Any, **kwargs: Any) -> tuple[Any, Any]:
    t_mod = torch.nn.MultiheadAttention(*args, **kwargs).double()
    c_mod = nn.MultiheadAttention(*args, **kwargs).double()
    assert repr(c_mod) == repr(t_mod)
    assert [(n, tuple(p.shape)) for n, p in c_mod.named_parameters()] == [
        (n, tuple(p.shape)) for n, p in t_mod.named_parameters()
    ]
    with torch.no_grad():
        for p in t_mod.parameters():
            p.copy_(torch.randn(p.shape, dtype=torch.float64))
    c_mod.load_state_dict({k: ctxgrad.tensor(v.detach().numpy()) for k, v in t_mod.state_dict().items()})
    return c_mod, t_mod


MHA_CASES: list[tuple[str, dict[str, Any], dict[str, Any]]] = [
    ("plain", {}, {}),
    ("batch-first-no-bias", {"batch_first": True, "bias": False}, {}),
    ("per-head-weights", {}, {"average_attn_weights": False}),
    ("attn-mask-bool", {}, {"attn_mask": "bool"}),
    ("attn-mask-float", {}, {"attn_mask": "float"}),
    ("key-padding", {}, {"key_padding_mask": True}),
    ("kdim-vdim", {"kdim": 3, "vdim": 5}, {}),
    ("no-weights", {}, {"need_weights": False}),
]


@pytest.mark.parametrize(("label", "kwargs", "call"), MHA_CASES, ids=[c[0] for c in MHA_CASES])
def test_multihead_attention_matches_torch(
    torch: Any, label: str, kwargs: dict[str, Any], call: dict[str, Any]
) -> None:
    c_mod, t_mod = mha_twins(torch, 6, 2, **kwargs)
    length, source, batch = 4, 5, 3
    kdim, vdim = kwargs.get("kdim", 6), kwargs.get("vdim", 6)
    if kwargs.get("batch_first"):
        arrays = [randn(batch, length, 6), randn(batch, source, kdim), randn(batch, source, vdim)]
    else:
        arrays = [randn(length, batch, 6), randn(source, batch, kdim), randn(source, batch, vdim)]
    extra_c: dict[str, Any] = {k: v for k, v in call.items() if k not in ("attn_mask", "key_padding_mask")}
    extra_t = dict(extra_c)
    if call.get("attn_mask") == "bool":
        m = ~bool_mask(length, source)
        extra_c["attn_mask"], extra_t["attn_mask"] = ctxgrad.tensor(m), torch.tensor(m)
    elif call.get("attn_mask") == "float":
        m = randn(batch * 2, length, source)
        extra_c["attn_mask"], extra_t["attn_mask"] = ctxgrad.tensor(m), torch.tensor(m)
    if call.get("key_padding_mask"):
        m = ~bool_mask(batch, source)
        extra_c["key_padding_mask"], extra_t["key_padding_mask"] = ctxgrad.tensor(m), torch.tensor(m)
    c_in = [ctxgrad.tensor(a, requires_grad=True) for a in arrays]
    t_in = [torch.tensor(a, requires_grad=True) for a in arrays]
    c_out, c_w = c_mod(*c_in, **extra_c)
    t_out, t_w = t_mod(*t_in, **extra_t)
    np.testing.assert_allclose(c_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-10, atol=1e-12)
    if t_w is None:
        assert c_w is None
    else:
        np.testing.assert_allclose(c_w.detach().numpy(), t_w.detach().numpy(), rtol=1e-10, atol=1e-12)
    up = randn(*t_out.shape)
    c_out.backward(ctxgrad.tensor(up))
    t_out.backward(torch.tensor(up))
    for c, t in zip(c_in, t_in):
        np.testing.assert_allclose(c.grad.numpy(), t.grad.numpy(), rtol=1e-9, atol=1e-11)
    for (name, cp), (_, tp) in zip(c_mod.named_parameters(), t_mod.named_parameters()):
        np.testing.assert_allclose(cp.grad.numpy(), tp.grad.numpy(), rtol=1e-9, atol=1e-11, err_msg=name)


def test_multihead_attention_unbatched_matches_torch(torch: Any) -> None:
    c_mod, t_mod = mha_twins(torch, 4, 2)
    q, k = randn(3, 4), randn(5, 4)
    c_out, c_w = c_mod(ctxgrad.tensor(q), ctxgrad.tensor(k), ctxgrad.tensor(k))
    t_out, t_w = t_mod(torch.tensor(q), torch.tensor(k), torch.tensor(k))
    np.testing.assert_allclose(c_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-10)
    np.testing.assert_allclose(c_w.detach().numpy(), t_w.detach().numpy(), rtol=1e-10)


def test_multihead_attention_init_matches_torch_ranges(torch: Any) -> None:
    c_mod = nn.MultiheadAttention(8, 2)
    assert c_mod.in_proj_bias is not None and float(c_mod.in_proj_bias.abs().max()) == 0.0
    bound = np.sqrt(6 / (8 + 24))  # xavier_uniform_ of the (3E, E) in_proj_weight
    assert float(c_mod.in_proj_weight.abs().max()) <= bound
    with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
        nn.MultiheadAttention(6, 4)

"""``MultiheadAttention``: torch's parameters (``in_proj_weight`` or separate ``q/k/v_proj_weight``,
``out_proj``) and forward, composed from ``linear``, ``matmul`` and ``softmax``.

>>> import ctxgrad
>>> from ctxgrad import nn
>>> attention = nn.MultiheadAttention(8, num_heads=2, batch_first=True)
>>> x = ctxgrad.randn(3, 5, 8)
>>> out, weights = attention(x, x, x)
>>> tuple(out.shape), tuple(weights.shape)
((3, 5, 8), (3, 5, 5))
"""

from __future__ import annotations

import math
from typing import Any

from ctxgrad._factories import empty
from ctxgrad._tensor import Tensor
from ctxgrad.nn import functional as F
from ctxgrad.nn import init
from ctxgrad.nn.modules.linear import Linear
from ctxgrad.nn.modules.module import Module
from ctxgrad.nn.parameter import Parameter

__all__ = ["MultiheadAttention", "NonDynamicallyQuantizableLinear"]


class NonDynamicallyQuantizableLinear(Linear):
    """A :class:`Linear` under torch's name for the output projection of attention."""


def _float_mask(mask: Tensor | None, like: Tensor) -> Tensor | None:
    """A boolean mask (``True``: not allowed) as 0 / -inf of ``like``'s dtype; a float mask as it is."""
    if mask is None:
        return None
    if str(mask.dtype).endswith("bool"):
        from ctxgrad.ops.pointwise import where

        out: Tensor = where(mask, float("-inf"), 0.0).to(like.dtype)
        return out
    return mask


class MultiheadAttention(Module):
    """Attention over ``num_heads`` heads of ``embed_dim / num_heads`` each:
    ``out_proj(concat_h softmax(q_h k_hᵀ / √d + mask) v_h)``.

    ``forward(query, key, value, key_padding_mask=None, need_weights=True, attn_mask=None,
    average_attn_weights=True, is_causal=False)`` returns ``(output, weights)``; inputs are
    ``(L, N, E)`` (``(N, L, E)`` with ``batch_first``) or unbatched ``(L, E)``.  Boolean masks
    mark the positions *not* allowed to attend (``True``), as in torch; float masks are added.
    """

    in_proj_weight: Parameter | None
    in_proj_bias: Parameter | None
    q_proj_weight: Parameter | None
    k_proj_weight: Parameter | None
    v_proj_weight: Parameter | None

    def __init__(
        self,
        embed_dim: int,
        num_heads: int,
        dropout: float = 0.0,
        bias: bool = True,
        add_bias_kv: bool = False,
        add_zero_attn: bool = False,
        kdim: int | None = None,
        vdim: int | None = None,
        batch_first: bool = False,
        device: Any = None,
        dtype: Any = None,
    ) -> None:
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(
                f"embed_dim and num_heads must be greater than 0, got embed_dim={embed_dim} and num_heads={num_heads} "
                "instead"
            )
        super().__init__()
        if add_bias_kv or add_zero_attn:
            raise NotImplementedError("ctxgrad.nn.MultiheadAttention: add_bias_kv and add_zero_attn are not supported")
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads = num_heads
        self.dropout = dropout
        self.batch_first = batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if self._qkv_same_embed_dim:
            self.in_proj_weight = Parameter(empty((3 * embed_dim, embed_dim), dtype=dtype, device=device))
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        else:
            self.q_proj_weight = Parameter(empty((embed_dim, embed_dim), dtype=dtype, device=device))
            self.k_proj_weight = Parameter(empty((embed_dim, self.kdim), dtype=dtype, device=device))
            self.v_proj_weight = Parameter(empty((embed_dim, self.vdim), dtype=dtype, device=device))
            self.register_parameter("in_proj_weight", None)
        if bias:
            self.in_proj_bias = Parameter(empty(3 * embed_dim, dtype=dtype, device=device))
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias, device=device, dtype=dtype)
        self._reset_parameters()

    def _reset_parameters(self) -> None:
        """Xavier-uniform projections, zero biases (the output projection keeps Linear's weight init)."""
        for weight in (self.in_proj_weight, self.q_proj_weight, self.k_proj_weight, self.v_proj_weight):
            if weight is not None:
                init.xavier_uniform_(weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            assert self.out_proj.bias is not None
            init.constant_(self.out_proj.bias, 0.0)

    def _projections(self, query: Tensor, key: Tensor, value: Tensor) -> tuple[Tensor, Tensor, Tensor]:
        e = self.embed_dim
        b = self.in_proj_bias
        b_q, b_k, b_v = (None, None, None) if b is None else (b[:e], b[e : 2 * e], b[2 * e :])
        if self.in_proj_weight is not None:
            w = self.in_proj_weight
            w_q, w_k, w_v = w[:e], w[e : 2 * e], w[2 * e :]
        else:
            assert self.q_proj_weight is not None and self.k_proj_weight is not None and self.v_proj_weight is not None
            w_q, w_k, w_v = self.q_proj_weight, self.k_proj_weight, self.v_proj_weight
        return F.linear(query, w_q, b_q), F.linear(key, w_k, b_k), F.linear(value, w_v, b_v)

    def forward(
        self,
        query: Tensor,
        key: Tensor,
        value: Tensor,
        key_padding_mask: Tensor | None = None,
        need_weights: bool = True,
        attn_mask: Tensor | None = None,
        average_attn_weights: bool = True,
        is_causal: bool = False,
    ) -> tuple[Tensor, Tensor | None]:
        unbatched = query.ndim == 2
        if unbatched:
            query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
            if key_padding_mask is not None:
                key_padding_mask = key_padding_mask.unsqueeze(0)
        elif self.batch_first:
            query, key, value = query.transpose(0, 1), key.transpose(0, 1), value.transpose(0, 1)
        length, batch, _ = query.shape
        source = key.shape[0]
        heads, head_dim = self.num_heads, self.head_dim
        if is_causal and attn_mask is None:
            raise RuntimeError(
                "Need attn_mask if specifying the is_causal hint. You may use the Transformer module method "
                "`generate_square_subsequent_mask` to create this mask."
            )
        q, k, v = self._projections(query, key, value)
        # (L, N, E) -> (N * heads, L, head_dim), as torch arranges the heads.
        q = q.reshape(length, batch * heads, head_dim).transpose(0, 1)
        k = k.reshape(source, batch * heads, head_dim).transpose(0, 1)
        v = v.reshape(source, batch * heads, head_dim).transpose(0, 1)
        bias = _float_mask(attn_mask, q)
        if bias is not None and bias.ndim == 2:
            bias = bias.unsqueeze(0)
        padding = _float_mask(key_padding_mask, q)
        if padding is not None:
            padding = (
                padding.reshape(batch, 1, 1, source).expand(batch, heads, 1, source).reshape(batch * heads, 1, source)
            )
            bias = padding if bias is None else bias + padding
        scores = (q * (1.0 / math.sqrt(head_dim))) @ k.transpose(-2, -1)
        if bias is not None:
            scores = scores + bias
        weights = scores.softmax(-1)
        if self.dropout > 0.0 and self.training:
            weights = F.dropout(weights, self.dropout, True)
        out = (weights @ v).transpose(0, 1).reshape(length * batch, self.embed_dim)
        out = self.out_proj(out).reshape(length, batch, self.embed_dim)
        if unbatched:
            out = out.squeeze(1)
        elif self.batch_first:
            out = out.transpose(0, 1)
        if not need_weights:
            return out, None
        per_head = weights.reshape(batch, heads, length, source)
        result = per_head.mean(1) if average_attn_weights else per_head
        return out, (result.squeeze(0) if unbatched else result)

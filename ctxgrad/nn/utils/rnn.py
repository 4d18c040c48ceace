"""``pad_sequence`` and ``unpad_sequence``: variable-length sequences to one padded batch and back.

>>> import ctxgrad
>>> from ctxgrad.nn.utils.rnn import pad_sequence
>>> pad_sequence([ctxgrad.tensor([1.0, 2.0, 3.0]), ctxgrad.tensor([4.0])], batch_first=True)
tensor([[1., 2., 3.],
        [4., 0., 0.]])
"""

from __future__ import annotations

from collections.abc import Sequence

from ctxgrad._tensor import Tensor
from ctxgrad.nn import functional as F
from ctxgrad.ops.shape import stack

__all__ = ["pad_sequence", "unpad_sequence"]


def pad_sequence(
    sequences: Tensor | Sequence[Tensor],
    batch_first: bool = False,
    padding_value: float = 0.0,
    padding_side: str = "right",
) -> Tensor:
    """Stack ``(L_i, *)`` tensors into ``(L_max, B, *)`` (``(B, L_max, *)`` with ``batch_first``),
    each padded with ``padding_value`` after its end (or before, ``padding_side='left'``)."""
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got {padding_side}.")
    seqs = list(sequences.unbind(0)) if isinstance(sequences, Tensor) else list(sequences)
    longest = max(s.shape[0] for s in seqs)
    padded = []
    for s in seqs:
        extra = longest - s.shape[0]
        amounts = [0, 0] * (s.ndim - 1) + ([0, extra] if padding_side == "right" else [extra, 0])
        padded.append(F.pad(s, amounts, value=padding_value) if extra else s)
    out: Tensor = stack(padded, 0 if batch_first else 1)
    return out


def unpad_sequence(padded_sequences: Tensor, lengths: Tensor, batch_first: bool = False) -> list[Tensor]:
    """The inverse of :func:`pad_sequence`: the first ``lengths[i]`` steps of each sequence."""
    batch = padded_sequences if batch_first else padded_sequences.transpose(0, 1)
    return [batch[i][: int(n)] for i, n in enumerate(lengths.tolist())]

"""Variable-length sequences: ``pad_sequence``/``unpad_sequence`` (one padded batch and back) and
``PackedSequence`` with ``pack_padded_sequence``, ``pack_sequence`` and ``pad_packed_sequence``
(which the recurrent layers take and return).

>>> import ctxgrad
>>> from ctxgrad.nn.utils.rnn import pad_sequence
>>> pad_sequence([ctxgrad.tensor([1.0, 2.0, 3.0]), ctxgrad.tensor([4.0])], batch_first=True)
tensor([[1., 2., 3.],
        [4., 0., 0.]])
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

from ctxgrad._made_functions import cat, stack
from ctxgrad._tensor import Tensor, as_tensor
from ctxgrad.nn import functional as F

__all__ = [
    "PackedSequence",
    "pack_padded_sequence",
    "pack_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "unpad_sequence",
]


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


class PackedSequence(NamedTuple):
    """Sequences of different lengths packed time step by time step: ``data`` holds, for each
    step, the rows of the sequences still running (longest first); ``batch_sizes[t]`` says how
    many.  ``sorted_indices`` / ``unsorted_indices`` map between the caller's order and the
    sorted one (``None`` when the input was already sorted)."""

    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None = None
    unsorted_indices: Tensor | None = None


def _lengths_array(lengths: Any) -> np.ndarray[Any, Any]:
    if isinstance(lengths, Tensor):
        return lengths.detach().numpy().astype(np.int64).reshape(-1)
    return np.asarray(lengths, dtype=np.int64).reshape(-1)


def pack_padded_sequence(
    input: Tensor, lengths: Any, batch_first: bool = False, enforce_sorted: bool = True
) -> PackedSequence:
    """Pack a padded ``(T, B, *)`` batch (``(B, T, *)`` with ``batch_first``) of sequences of
    ``lengths``; with ``enforce_sorted=False`` the lengths may come in any order."""
    sizes = _lengths_array(lengths)
    if enforce_sorted:
        if np.any(np.diff(sizes) > 0):
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is True. You can pass "
                "`enforce_sorted=False` to pack_padded_sequence and/or pack_sequence to sidestep this requirement "
                "if you do not need ONNX exportability."
            )
        order = None
    else:
        order = np.argsort(-sizes, kind="stable")
        sizes = sizes[order]
    x = input.transpose(0, 1) if batch_first else input
    if order is not None:
        x = x.index_select(1, as_tensor(order))
    if sizes.size and sizes[-1] <= 0:
        raise RuntimeError(
            "Length of all samples has to be greater than 0, but found an element in 'lengths' that is <= 0"
        )
    steps = int(sizes[0]) if sizes.size else 0
    batch_sizes = np.array([(sizes > t).sum() for t in range(steps)], dtype=np.int64)
    data = cat([x[t, : int(b)] for t, b in enumerate(batch_sizes)], 0)
    if order is None:
        return PackedSequence(data, as_tensor(batch_sizes), None, None)
    return PackedSequence(data, as_tensor(batch_sizes), as_tensor(order), as_tensor(np.argsort(order, kind="stable")))


def pack_sequence(sequences: Sequence[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of ``(L_i, *)`` tensors (longest first, unless ``enforce_sorted=False``)."""
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def pad_packed_sequence(
    sequence: PackedSequence, batch_first: bool = False, padding_value: float = 0.0, total_length: int | None = None
) -> tuple[Tensor, Tensor]:
    """The inverse of :func:`pack_padded_sequence`: the padded batch and each sequence's length
    (in the caller's order)."""
    data, batch_sizes_t, _, unsorted = sequence
    batch_sizes = batch_sizes_t.detach().numpy().astype(np.int64)
    steps, batch = len(batch_sizes), int(batch_sizes[0])
    if total_length is not None:
        if total_length < steps:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in input, but got "
                f"total_length={total_length} and max sequence length being {steps}"
            )
    rows, offset = [], 0
    for b in batch_sizes:
        block = data[offset : offset + int(b)]
        offset += int(b)
        missing = batch - int(b)
        if missing:
            block = F.pad(block, [0, 0] * (block.ndim - 1) + [0, missing], value=padding_value)
        rows.append(block)
    extra = (total_length or steps) - steps
    if extra:
        filler = F.pad(rows[0][:0], [0, 0] * (rows[0].ndim - 1) + [0, batch], value=padding_value)
        rows.extend([filler] * extra)
    padded: Tensor = stack(rows, 0)
    lengths = np.array([(batch_sizes > i).sum() for i in range(batch)], dtype=np.int64)
    if unsorted is not None:
        padded = padded.index_select(1, unsorted)
        lengths = lengths[unsorted.detach().numpy()]
    if batch_first:
        padded = padded.transpose(0, 1)
    return padded, as_tensor(lengths)

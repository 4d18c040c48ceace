"""torch's argument helpers for layers (``torch.nn.modules.utils``): private in torch, but
libraries written for torch import them (``from torch.nn.modules.utils import _pair``), so a
program that does runs unchanged."""

from __future__ import annotations

import collections.abc
from collections.abc import Callable, Iterable
from itertools import repeat
from typing import Any

__all__ = ["consume_prefix_in_state_dict_if_present"]


def _ntuple(n: int, name: str = "parse") -> Callable[[Any], tuple[Any, ...]]:
    """A parser that repeats a single value ``n`` times and keeps an iterable as a tuple."""

    def parse(x: Any) -> tuple[Any, ...]:
        if isinstance(x, collections.abc.Iterable):
            return tuple(x)
        return tuple(repeat(x, n))

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t: Iterable[Any], n: int) -> tuple[Any, ...]:
    """Reverse ``t`` and repeat each element ``n`` times: a layer's padding as ``F.pad`` takes it."""
    return tuple(x for x in reversed(tuple(t)) for _ in range(n))


def consume_prefix_in_state_dict_if_present(state_dict: dict[str, Any], prefix: str) -> None:
    """Strip ``prefix`` from the keys of ``state_dict`` in place (a ``DataParallel`` model's
    ``"module."``), and from its ``_metadata`` when it has one, as torch does."""
    for key in list(state_dict):
        if key.startswith(prefix):
            state_dict[key[len(prefix) :]] = state_dict.pop(key)
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is not None:
        for key in list(metadata):
            if key and (key == prefix.replace(".", "") or key.startswith(prefix)):
                metadata[key[len(prefix) :]] = metadata.pop(key)

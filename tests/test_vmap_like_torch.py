"""The ``*_like`` factories and the ``new_*`` methods of a tensor inside ``vmap``, against
``torch.func.vmap`` running the same code: inside, the result has the shape of one sample;
it is batched (one per sample) where torch's is, so that writing into it in place keeps the
samples apart; outside, the batch dimension is where ``out_dims`` says."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ctxgrad
from ctxgrad.autograd.batching import BatchedTensor

torch = pytest.importorskip("torch")

VALUES = np.arange(24.0, dtype=np.float32).reshape(2, 3, 4)

MAKERS: dict[str, Callable[[Any, Any], Any]] = {
    "zeros_like": lambda lib, t: lib.zeros_like(t),
    "ones_like": lambda lib, t: lib.ones_like(t),
    "empty_like, filled": lambda lib, t: lib.empty_like(t).fill_(3),
    "full_like": lambda lib, t: lib.full_like(t, 7),
    "zeros_like(dtype=int64)": lambda lib, t: lib.zeros_like(t, dtype=lib.int64),
    "ones_like(dtype=float64)": lambda lib, t: lib.ones_like(t, dtype=lib.float64),
    "new_zeros": lambda lib, t: t.new_zeros(2),
    "new_ones": lambda lib, t: t.new_ones((2, 2)),
    "new_empty, filled": lambda lib, t: t.new_empty(5).fill_(3),
    "new_full": lambda lib, t: t.new_full((2,), 5.0),
    "new_full(dtype=int64)": lambda lib, t: t.new_full((3,), 2, dtype=lib.int64),
    "zeros_like, then += the sample": lambda lib, t: lib.zeros_like(t).add_(t),
    "new_zeros, then += a row of the sample": lambda lib, t: t.new_zeros(t.shape[-1]).add_(t[0]),
    "full_like, then *= the sample": lambda lib, t: lib.full_like(t, 2).mul_(t),
}


def _is_batched(lib: Any, t: Any) -> bool:
    if lib is torch:
        return bool(torch._C._functorch.is_batchedtensor(t))
    return isinstance(t, BatchedTensor)


def _observe(lib: Any, make: Callable[[Any, Any], Any], in_dims: int, out_dims: int) -> Any:
    seen = {}

    def f(t: Any) -> Any:
        made = make(lib, t)
        seen["inside"] = (tuple(made.shape), made.dim(), _is_batched(lib, made))
        return made

    out = lib.func.vmap(f, in_dims=in_dims, out_dims=out_dims)(lib.tensor(VALUES))
    return seen["inside"], tuple(out.shape), str(out.dtype).split(".")[-1], out.tolist()


@pytest.mark.parametrize(("in_dims", "out_dims"), [(0, 0), (1, 0), (2, 1), (-1, -1)])
@pytest.mark.parametrize("name", list(MAKERS))
def test_like_and_new_factories_batch_as_torch(name: str, in_dims: int, out_dims: int) -> None:
    got = _observe(ctxgrad, MAKERS[name], in_dims, out_dims)
    want = _observe(torch, MAKERS[name], in_dims, out_dims)
    assert got == want


@pytest.mark.parametrize("in_dims", [0, 1])
def test_new_tensor_is_not_batched_as_torch(in_dims: int) -> None:
    """``new_tensor`` copies the values it is given, shared by every sample. (With an
    ``out_dims`` other than 0 torch's result fails to expand, with sizes it made up; not
    compared.)"""
    make = lambda lib, t: t.new_tensor([1.0, 2.0])  # noqa: E731
    assert _observe(ctxgrad, make, in_dims, 0) == _observe(torch, make, in_dims, 0)


@pytest.mark.parametrize("name", ["zeros_like", "full_like", "new_zeros", "new_full", "zeros_like, then += the sample"])
def test_like_and_new_factories_under_nested_vmap_as_torch(name: str) -> None:
    def run(lib: Any) -> Any:
        make = MAKERS[name]
        out = lib.func.vmap(lib.func.vmap(lambda t: make(lib, t)), in_dims=1)(lib.tensor(VALUES))
        return tuple(out.shape), out.tolist()

    assert run(ctxgrad) == run(torch)

"""Fuzzing ``vmap``'s ``randomness`` modes against ``torch.func.vmap``.

Hypothesis draws a random op (a sampler, a ``*_like`` or ``new_*`` factory followed by an
in-place random fill, dropout, ...), a mode (``"error"``, ``"different"``, ``"same"``), a
batch size, a ``chunk_size`` and a sample shape, and runs ``vmap`` of it with both
libraries on a batch of equal samples.  The two libraries draw different numbers, so what
is compared is what torch defines: whether it raises (then ctxgrad raises the same type with
the same message), the shape and dtype of the result, and whether the samples came out
equal (``"same"``: one draw for the whole batch, chunks included) or not (``"different"``:
each sample its own).  Each sample has at least 32 elements, so that two independent draws
of a 0/1 mask coincide with probability at most 2**-32.

``CTXGRAD_FUZZ=long`` runs 10,000 examples (see ``_fuzz.fuzz_settings``).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _fuzz import fuzz_settings
from hypothesis import given, note
from hypothesis import strategies as st

import ctxgrad

torch = pytest.importorskip("torch")
torch_func = pytest.importorskip("torch.func")

Op = Callable[[Any, Any], Any]

# Each op gets the library and one sample ``x`` (batched), and returns a float tensor.
OPS: dict[str, Op] = {
    "rand": lambda lib, x: lib.rand(*x.shape),
    "randn": lambda lib, x: lib.randn(x.shape, dtype=lib.float64),
    "randint": lambda lib, x: lib.randint(0, 2**20, tuple(x.shape)).double(),
    "rand_like": lambda lib, x: lib.rand_like(x),
    "randn_like": lambda lib, x: lib.randn_like(x),
    "randint_like": lambda lib, x: lib.randint_like(x, 2**20),
    "x + rand_like": lambda lib, x: x + lib.rand_like(x),
    "dropout": lambda lib, x: lib.nn.functional.dropout(x, 0.5),
    "dropout(ones_like)": lambda lib, x: lib.nn.functional.dropout(lib.ones_like(x), 0.5),
    "bernoulli(full_like)": lambda lib, x: lib.bernoulli(lib.full_like(x, 0.5)),
    "bernoulli(p=)": lambda lib, x: lib.bernoulli(x, 0.5),
    "normal(x, 1)": lambda lib, x: lib.normal(x, 1.0),
    "normal(0, 1, size)": lambda lib, x: lib.normal(0.0, 1.0, size=tuple(x.shape)),
    "ones_like.uniform_": lambda lib, x: lib.ones_like(x).uniform_(),
    "zeros_like.normal_": lambda lib, x: lib.zeros_like(x).normal_(),
    "empty_like.bernoulli_": lambda lib, x: lib.empty_like(x).bernoulli_(0.5),
    "new_zeros.uniform_": lambda lib, x: x.new_zeros(x.shape).uniform_(),
    "new_ones.exponential_": lambda lib, x: x.new_ones(tuple(x.shape)).exponential_(),
    "new_empty.normal_": lambda lib, x: x.new_empty(tuple(x.shape)).normal_(),
    "new_full.uniform_": lambda lib, x: x.new_full(tuple(x.shape), 2.0).uniform_(),
    "zeros.uniform_ (unbatched)": lambda lib, x: lib.zeros(x.shape, dtype=x.dtype).uniform_(),
    "x.clone().uniform_": lambda lib, x: x.clone().uniform_(),
    "ones_like + zeros_like.bernoulli_": lambda lib, x: lib.ones_like(x) + lib.zeros_like(x).bernoulli_(0.5),
}


def _run(lib: Any, vmap: Any, op: Op, mode: str, chunk: int | None, batch: np.ndarray[Any, Any]) -> Any:
    try:
        out = vmap(lambda x: op(lib, x), randomness=mode, chunk_size=chunk)(lib.tensor(batch))
    except Exception as err:  # (what it raised is compared with torch)
        return type(err), str(err)
    values = out.detach().numpy()
    same = all(np.array_equal(values[0], v) for v in values[1:])
    return values.shape, str(values.dtype), same


@given(
    name=st.sampled_from(sorted(OPS)),
    mode=st.sampled_from(["error", "different", "same"]),
    size=st.integers(2, 5),
    chunk=st.one_of(st.none(), st.integers(1, 5)),
    shape=st.sampled_from([(32,), (4, 8), (2, 4, 4)]),
    dtype=st.sampled_from(["float32", "float64"]),
)
@fuzz_settings()
def test_vmap_randomness_modes_as_torch(
    name: str, mode: str, size: int, chunk: int | None, shape: tuple[int, ...], dtype: str
) -> None:
    batch = np.ones((size, *shape), dtype=dtype)  # equal samples: only randomness tells them apart
    got = _run(ctxgrad, ctxgrad.func.vmap, OPS[name], mode, chunk, batch)
    want = _run(torch, torch_func.vmap, OPS[name], mode, chunk, batch)
    note(f"ctxgrad: {got}\ntorch: {want}")
    if isinstance(want[0], type):
        assert got == want
        return
    assert got == want
    if mode == "same":
        assert got[2], "randomness='same' must give every sample the same draw"
    if mode == "different":
        assert not got[2], "randomness='different' must give each sample its own draw"


@pytest.mark.parametrize("chunk", [1, 2, 3])
def test_same_randomness_is_one_draw_for_the_whole_batch_whatever_the_chunks(chunk: int) -> None:
    ctxgrad.manual_seed(5)
    whole = ctxgrad.func.vmap(lambda x: x + ctxgrad.rand(3), randomness="same")(ctxgrad.zeros(5, 3))
    ctxgrad.manual_seed(5)
    chunked = ctxgrad.func.vmap(lambda x: x + ctxgrad.rand(3), randomness="same", chunk_size=chunk)(ctxgrad.zeros(5, 3))
    np.testing.assert_array_equal(chunked.numpy(), whole.numpy())
    np.testing.assert_array_equal(whole.numpy(), np.broadcast_to(whole.numpy()[0], (5, 3)))


@pytest.mark.parametrize(
    "make",
    [
        lambda lib, x: lib.zeros_like(x).add_(x),
        lambda lib, x: lib.ones_like(x).mul_(x),
        lambda lib, x: lib.full_like(x, 2.0).sub_(x),
        lambda lib, x: lib.empty_like(x).copy_(x),
        lambda lib, x: x.new_zeros(x.shape).add_(x),
        lambda lib, x: x.new_ones(3).mul_(x[:3]),
        lambda lib, x: x.new_empty(2, 2).copy_(x[:4].reshape(2, 2)),
        lambda lib, x: x.new_full((3,), 5.0).div_(x[1:4]),
        lambda lib, x: lib.func.vmap(lambda y: lib.zeros_like(y).add_(y))(x.reshape(2, 2)),
    ],
)
def test_like_and_new_factories_of_a_batched_tensor_are_batched_as_torch(make: Op) -> None:
    batch = np.arange(12.0).reshape(3, 4) + 1
    got = ctxgrad.func.vmap(lambda x: make(ctxgrad, x))(ctxgrad.tensor(batch))
    want = torch_func.vmap(lambda x: make(torch, x))(torch.tensor(batch))
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.numpy(), want.numpy())

"""``vmap`` refusing what ``torch.func.vmap`` refuses, with torch's exception and message:
``mm``, ``mv``, ``dot``, ``vdot`` and ``bmm`` of samples of the wrong rank or with inner
sizes that do not match (the batched product under them would broadcast)."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

import ctxgrad

torch = pytest.importorskip("torch")
torch_func = pytest.importorskip("torch.func")

BATCH = 2


def _sample_shape(rank: int, side: str, inner: int) -> tuple[int, ...]:
    """A sample of ``rank`` dimensions whose product dimension has size ``inner``: the last
    for the left operand, the second to last (or only) for the right one."""
    if rank == 0:
        return ()
    if side == "a":
        return (3,) * (rank - 1) + (inner,)
    if rank == 1:
        return (inner,)
    return (3,) * (rank - 2) + (inner, 5)


CASES = [
    (op, in_dims, rank_a, rank_b, inner_b)
    for op in ("mm", "mv", "dot", "vdot", "bmm")
    for in_dims in ((0, 0), (0, None), (None, 0))
    for rank_a, rank_b in itertools.product(range(4), repeat=2)
    for inner_b in (4, 6)
]


def _outcome(lib: Any, vmap: Any, op: str, in_dims: tuple[Any, ...], a_shape: Any, b_shape: Any) -> Any:
    a = lib.tensor(np.arange(np.prod(a_shape, dtype=int)).reshape(a_shape) * 0.5)
    b = lib.tensor(np.arange(np.prod(b_shape, dtype=int)).reshape(b_shape) * 0.25 - 1)
    try:
        return vmap(getattr(lib, op), in_dims=in_dims)(a, b)
    except Exception as err:  # (the exception is what is compared)
        return type(err), str(err)


@pytest.mark.parametrize(("op", "in_dims", "rank_a", "rank_b", "inner_b"), CASES)
def test_products_under_vmap_check_shapes_as_torch(
    op: str, in_dims: tuple[Any, ...], rank_a: int, rank_b: int, inner_b: int
) -> None:
    a_shape = ((BATCH,) if in_dims[0] == 0 else ()) + _sample_shape(rank_a, "a", 4)
    b_shape = ((BATCH,) if in_dims[1] == 0 else ()) + _sample_shape(rank_b, "b", inner_b)
    got = _outcome(ctxgrad, ctxgrad.func.vmap, op, in_dims, a_shape, b_shape)
    want = _outcome(torch, torch_func.vmap, op, in_dims, a_shape, b_shape)
    if isinstance(want, tuple):
        assert isinstance(got, tuple), f"torch raises {want}, ctxgrad returned a result"
        assert got[0] is want[0] and got[1] == want[1]
    else:
        assert not isinstance(got, tuple), got
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12)


def test_bmm_samples_whose_batch_sizes_differ_raise_as_torch() -> None:
    for lib, vmap in ((ctxgrad, ctxgrad.func.vmap), (torch, torch_func.vmap)):
        with pytest.raises(RuntimeError, match=r"The size of tensor a \(3\) must match the size of tensor b \(2\)"):
            vmap(lib.bmm)(lib.ones(2, 3, 4, 5), lib.ones(2, 2, 5, 6))

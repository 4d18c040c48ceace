"""Names of torch's surface that real programs reach (issue 26's list), each against torch:
the constants, ``nn.init.orthogonal_``/``dirac_``, ``Tensor.ndimension``, ``nbytes``,
``itemsize``, ``is_sparse``, ``byte`` and ``absolute``."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

import ctxgrad

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("name", ["pi", "e", "inf", "nan", "newaxis"])
def test_the_constants_are_torchs(name: str) -> None:
    ours, theirs = getattr(ctxgrad, name), getattr(torch, name)
    assert type(ours) is type(theirs)
    assert ours is theirs or ours == theirs or (math.isnan(ours) and math.isnan(theirs))
    assert name in ctxgrad.__all__


def test_newaxis_indexes_as_in_torch() -> None:
    assert ctxgrad.ones(3)[ctxgrad.newaxis].shape == torch.ones(3)[torch.newaxis].shape


@pytest.mark.parametrize("shape", [(3, 3), (2, 5), (5, 2), (4, 2, 3)])
def test_orthogonal_gives_orthonormal_rows_or_columns(shape: tuple[int, ...]) -> None:
    w = ctxgrad.nn.init.orthogonal_(ctxgrad.empty(*shape, dtype=ctxgrad.float64), gain=2.0)
    flat = w.numpy().reshape(shape[0], -1)
    small = min(flat.shape)
    gram = flat @ flat.T if flat.shape[0] == small else flat.T @ flat
    np.testing.assert_allclose(gram, 4.0 * np.eye(small), atol=1e-12)
    theirs = torch.nn.init.orthogonal_(torch.empty(*shape, dtype=torch.float64), gain=2.0).numpy().reshape(flat.shape)
    np.testing.assert_allclose(np.sort(np.linalg.svd(flat)[1]), np.sort(np.linalg.svd(theirs)[1]), atol=1e-12)


def test_orthogonal_refuses_a_vector_as_torch() -> None:
    with pytest.raises(ValueError, match="Only tensors with 2 or more dimensions are supported"):
        torch.nn.init.orthogonal_(torch.empty(3))
    with pytest.raises(ValueError, match="Only tensors with 2 or more dimensions are supported"):
        ctxgrad.nn.init.orthogonal_(ctxgrad.empty(3))


@pytest.mark.parametrize(("shape", "groups"), [((3, 3, 3), 1), ((4, 2, 3, 3), 2), ((2, 3, 1, 3, 3), 1), ((6, 2, 5), 3)])
def test_dirac_matches_torch(shape: tuple[int, ...], groups: int) -> None:
    ours = ctxgrad.nn.init.dirac_(ctxgrad.empty(*shape), groups=groups)
    theirs = torch.nn.init.dirac_(torch.empty(*shape), groups=groups)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize(("shape", "groups", "message"), [((3, 3), 1, "3, 4, or 5"), ((4, 3, 3), 3, "divisible")])
def test_dirac_refuses_as_torch(shape: tuple[int, ...], groups: int, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        torch.nn.init.dirac_(torch.empty(*shape), groups=groups)
    with pytest.raises(ValueError, match=message):
        ctxgrad.nn.init.dirac_(ctxgrad.empty(*shape), groups=groups)


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "uint8", "bool", "complex64"])
def test_sizes_and_layout_as_torch(dtype: str) -> None:
    ours = ctxgrad.zeros(2, 3, dtype=getattr(ctxgrad, dtype))
    theirs = torch.zeros(2, 3, dtype=getattr(torch, dtype))
    got = (ours.ndimension(), ours.nbytes, ours.itemsize, ours.is_sparse)
    assert got == (theirs.ndimension(), theirs.nbytes, theirs.itemsize, theirs.is_sparse)


def test_byte_and_absolute_as_torch() -> None:
    values = np.array([-3.7, 0.0, 2.2, 300.0])

    def run(m: Any) -> tuple[Any, ...]:
        x = m.tensor(values)
        y = m.tensor(values, requires_grad=True)
        m.absolute(y).sum().backward()
        z = m.tensor(values)
        z.absolute_()
        byte = x.byte()
        return byte.tolist(), str(byte.dtype).split(".")[-1], m.absolute(x).tolist(), y.grad.tolist(), z.tolist()

    assert run(ctxgrad) == run(torch)

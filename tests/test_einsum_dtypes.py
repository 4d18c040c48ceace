"""einsum with operands of different dtypes, as torch decides them: a pairwise product that
sums a shared letter is a batched matrix product and needs one dtype; a broadcast product
promotes; letters summed inside one operand first turn booleans and integers into int64."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest

import ctxgrad

torch = pytest.importorskip("torch")

DTYPES = ["float32", "float64", "int64", "int32", "bool", "complex64"]
EQUATIONS = [
    ("n,bn->bn", [(3,), (4, 3)]),
    ("i,j->ij", [(2,), (3,)]),
    ("i,i->", [(2,), (2,)]),
    ("i,j->", [(2,), (3,)]),
    ("ij,j->i", [(2, 2), (2,)]),
    ("i,i,k->k", [(2,), (2,), (2,)]),
    ("i,j,j->i", [(2,), (2,), (2,)]),
    (",i->i", [(), (3,)]),
    ("i->", [(3,)]),
    ("ii->i", [(2, 2)]),
]


def _outcome(m: Any, equation: str, arrays: list[np.ndarray[Any, Any]]) -> tuple[str, Any]:
    try:
        result = m.einsum(equation, *[m.tensor(a) for a in arrays])
    except Exception as error:  # the type and the message are the outcome compared
        return type(error).__name__, str(error)
    return str(result.dtype).rsplit(".", 1)[-1], result.tolist()


@pytest.mark.torch_names("torch.einsum")
@pytest.mark.parametrize(("equation", "shapes"), EQUATIONS)
def test_mixed_dtypes_give_torchs_dtype_values_or_error(equation: str, shapes: list[tuple[int, ...]]) -> None:
    for dtypes in itertools.product(DTYPES, repeat=len(shapes)):
        arrays = [(np.arange(int(np.prod(s))) % 2 + 1).reshape(s).astype(d) for s, d in zip(shapes, dtypes)]
        assert _outcome(ctxgrad, equation, arrays) == _outcome(torch, equation, arrays), (equation, dtypes)


@pytest.mark.torch_names("torch.einsum")
def test_float_operand_with_integer_operand_gets_its_gradient() -> None:
    # torchlogix's truth tables: float weights broadcast against an integer table
    weights = np.array([0.5, -1.0, 2.0], dtype=np.float32)
    table = np.array([[1, 0, 1], [0, 1, 1]], dtype=np.int32)
    grads = []
    for m in (ctxgrad, torch):
        w = m.tensor(weights, requires_grad=True)
        out = m.einsum("n,bn->bn", w, m.tensor(table))
        (out * m.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])).sum().backward()
        assert str(out.dtype).endswith("float32")
        grads.append(np.asarray(w.grad.tolist()))
    np.testing.assert_allclose(grads[0], grads[1])
    np.testing.assert_allclose(grads[0], [1.0, 5.0, 9.0])

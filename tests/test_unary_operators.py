"""Python's unary operators on tensors, as torch's: ``abs(t)``, ``-t``, ``+t``, ``~t`` are the
dunders of the op table's rows (abs, neg, positive, and the ``~`` handler of bitwise_not);
``round``, ``math.floor``, ``math.ceil`` and ``math.trunc`` do what they do on a torch tensor
(torch defines no ``__round__``, ``__floor__``, ``__ceil__`` or ``__trunc__``)."""

from __future__ import annotations

import math
import operator
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ctxgrad
from ctxgrad.ops.table import OPS

torch = pytest.importorskip("torch")

DTYPES = ["float32", "float64", "int8", "int64", "uint8", "bool", "complex64"]
VALUES = [1.5, -2.5, 0.0, 3.0]


def _pair(dtype: str) -> tuple[Any, Any]:
    values: Any = [abs(v) for v in VALUES] if dtype == "uint8" else VALUES
    array = np.array([v != 0 for v in values]) if dtype == "bool" else np.array(values).astype(dtype)
    return ctxgrad.tensor(array), torch.tensor(array)


def _outcome(fn: Callable[[Any], Any], t: Any) -> Any:
    try:
        result = fn(t)
    except Exception as exc:  # the type and message are compared with torch's
        return type(exc).__name__, str(exc)
    return result


@pytest.mark.parametrize("op", [abs, operator.neg, operator.pos, operator.invert], ids=lambda f: f.__name__)
@pytest.mark.parametrize("dtype", DTYPES)
def test_unary_operators_match_torch_in_values_dtypes_and_errors(op: Callable[[Any], Any], dtype: str) -> None:
    ours_in, theirs_in = _pair(dtype)
    ours, theirs = _outcome(op, ours_in), _outcome(op, theirs_in)
    if isinstance(theirs, tuple):
        assert ours == theirs
        return
    assert isinstance(ours, ctxgrad.Tensor)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("op", [abs, operator.neg, operator.pos], ids=lambda f: f.__name__)
def test_unary_operators_give_torchs_gradients_and_nodes(op: Callable[[Any], Any]) -> None:
    x = ctxgrad.tensor(VALUES, requires_grad=True)
    tx = torch.tensor(VALUES, dtype=torch.float64, requires_grad=True)
    y, ty = op(x), op(tx)
    assert (y is x) == (ty is tx)  # +t is t itself in torch
    if ty.grad_fn is not None:
        assert type(y.grad_fn).__name__ == type(ty.grad_fn).__name__
    (y * ctxgrad.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
    (ty * torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.float64)).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy())


@pytest.mark.parametrize("fn", [round, math.trunc, math.floor, math.ceil, lambda t: round(t, 1)])
@pytest.mark.parametrize("shape", [(), (1,), (3,)])
def test_round_floor_ceil_trunc_do_what_they_do_on_a_torch_tensor(
    fn: Callable[[Any], Any], shape: tuple[int, ...]
) -> None:
    array = np.full(shape, -2.5)
    ours, theirs = _outcome(fn, ctxgrad.tensor(array)), _outcome(fn, torch.tensor(array))
    assert ours == theirs
    if not isinstance(theirs, tuple):
        assert type(ours) is type(theirs)


def test_the_unary_dunders_come_from_the_rows_of_the_table() -> None:
    rows = {dunder: op.name for op in OPS for dunder in op.dunders}
    assert rows["__abs__"] == "abs"
    assert rows["__neg__"] == "neg"
    assert rows["__pos__"] == "positive"
    assert ctxgrad.Tensor.__abs__ is ctxgrad.Tensor.abs
    assert ctxgrad.Tensor.__pos__ is ctxgrad.Tensor.positive
    for name in ("__round__", "__floor__", "__ceil__", "__trunc__"):
        assert hasattr(ctxgrad.Tensor, name) == hasattr(torch.Tensor, name)

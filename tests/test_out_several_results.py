"""``out=`` for the ops with several results (``sort``, ``topk``, ``max(dim)``, ``svd``, ...):
a tuple or list of tensors, written and returned as torch's named tuple of them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _support import raised

import ctxgrad

torch = pytest.importorskip("torch")

_X = [[3.0, 1.0, 2.0], [0.5, 4.0, -1.0], [2.0, 2.0, 7.0]]

#: name -> (call with out, the dtypes of the results)
_CALLS: dict[str, Callable[[Any, Any, Any], Any]] = {
    "sort": lambda L, x, out: L.sort(x, 1, out=out),
    "topk": lambda L, x, out: L.topk(x, 2, out=out),
    "max": lambda L, x, out: L.max(x, 0, out=out),
    "min": lambda L, x, out: L.min(x, 1, keepdim=True, out=out),
    "aminmax": lambda L, x, out: L.aminmax(x, dim=1, out=out),
    "cummax": lambda L, x, out: L.cummax(x, 1, out=out),
    "cummin": lambda L, x, out: L.cummin(x, 0, out=out),
    "mode": lambda L, x, out: L.mode(x, 1, out=out),
    "median": lambda L, x, out: L.median(x, 1, out=out),
    "nanmedian": lambda L, x, out: L.nanmedian(x, 0, out=out),
    "kthvalue": lambda L, x, out: L.kthvalue(x, 2, 1, out=out),
    "frexp": lambda L, x, out: L.frexp(x, out=out),
    "slogdet": lambda L, x, out: L.slogdet(x, out=out),
    "qr": lambda L, x, out: L.qr(x, out=out),
}


def _facts(L: Any, name: str, as_list: bool) -> tuple[Any, ...]:
    fields = type(_CALLS[name](ctxgrad, ctxgrad.tensor(_X, dtype=ctxgrad.float64), None))._fields
    x = L.tensor(_X, dtype=L.float64)
    plain = _CALLS[name](L, x, None)
    targets = [L.empty(0, dtype=r.dtype) for r in plain]
    returned = _CALLS[name](L, x, list(targets) if as_list else tuple(targets))
    return (
        type(returned).__name__,
        all(getattr(returned, field) is t for field, t in zip(fields, targets)),  # (torch's are structseqs)
        all(r is t for r, t in zip(returned, targets)),
        [np.asarray(t.numpy()).tolist() for t in targets],
        [np.asarray(p.numpy()).tolist() for p in plain],
    )


@pytest.mark.parametrize("as_list", [False, True], ids=["tuple", "list"])
@pytest.mark.parametrize("name", sorted(_CALLS))
def test_out_takes_one_tensor_per_result_as_torch_does(name: str, as_list: bool) -> None:
    ours, theirs = _facts(ctxgrad, name, as_list), _facts(torch, name, as_list)
    assert ours[0] == theirs[0]  # (torch.return_types.sort_out prints as sort_out; ours too)
    assert ours[1] == theirs[1] and ours[2] is theirs[2] is True
    for k in (3, 4):
        np.testing.assert_allclose(np.asarray(ours[k][0]), np.asarray(theirs[k][0]), rtol=1e-12)
    assert ours[4][1:] == ours[3][1:]


def test_out_of_the_wrong_length_dtype_or_kind_is_refused_as_torch_refuses() -> None:
    def refusals(L: Any) -> list[tuple[str, str]]:
        x = L.tensor([3.0, 1.0, 2.0])
        return [
            raised(lambda: L.sort(x, out=(L.empty(0),)), L),
            raised(lambda: L.sort(x, out=(L.empty(0, dtype=L.int64), L.empty(0, dtype=L.int64))), L),
            raised(lambda: L.sort(x.requires_grad_(), out=(L.empty(0), L.empty(0, dtype=L.int64))), L),
        ]

    assert refusals(ctxgrad) == refusals(torch)
    assert refusals(ctxgrad)[0] == ("TypeError", "expected tuple of 2 elements but got 1")
    with pytest.raises(TypeError, match=r"sort\(\): argument 'out' must be tuple of Tensors, not Tensor"):
        ctxgrad.sort(ctxgrad.tensor([3.0, 1.0]), out=ctxgrad.empty(0))
    with pytest.raises(TypeError):
        torch.sort(torch.tensor([3.0, 1.0]), out=torch.empty(0))

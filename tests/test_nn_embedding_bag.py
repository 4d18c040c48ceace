"""embedding_bag and EmbeddingBag against torch in float64: sum, mean and max over 2-D input
and 1-D input with offsets (include_last_offset, empty bags), per_sample_weights,
padding_idx, max_norm; values and gradients of the weight and the per-sample weights;
reprs and torch's errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import ctxgrad
import ctxgrad.nn.functional as F
from ctxgrad import nn

RNG = np.random.default_rng(12)

CASES: list[tuple[str, Any, Any, dict[str, Any]]] = [
    ("2d", [[1, 2, 4], [4, 3, 0]], None, {}),
    ("offsets", [1, 2, 4, 5, 4, 3, 2, 9], [0, 4], {}),
    ("empty-bag", [1, 2, 4, 5], [0, 0, 3], {}),
    ("last-offset", [1, 2, 4, 5, 4], [0, 2, 5], {"include_last_offset": True}),
    ("padding", [1, 0, 4, 0, 0, 3], [0, 2, 4], {"padding_idx": 0}),
]


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize(("label", "input", "offsets", "kwargs"), CASES, ids=[c[0] for c in CASES])
def test_matches_torch(torch: Any, label: str, input: Any, offsets: Any, kwargs: dict[str, Any], mode: str) -> None:
    weight = RNG.standard_normal((10, 3))
    c_w, t_w = ctxgrad.tensor(weight, requires_grad=True), torch.tensor(weight, requires_grad=True)
    c_off = None if offsets is None else ctxgrad.tensor(offsets)
    t_off = None if offsets is None else torch.tensor(offsets)
    ours = F.embedding_bag(ctxgrad.tensor(input), c_w, c_off, mode=mode, **kwargs)
    theirs = torch.nn.functional.embedding_bag(torch.tensor(input), t_w, t_off, mode=mode, **kwargs)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12)
    up = RNG.standard_normal(tuple(theirs.shape))
    ours.backward(ctxgrad.tensor(up))
    theirs.backward(torch.tensor(up))
    np.testing.assert_allclose(c_w.grad.numpy(), t_w.grad.numpy(), rtol=1e-12, atol=1e-14)


def test_per_sample_weights_match_torch(torch: Any) -> None:
    weight, psw = RNG.standard_normal((10, 3)), RNG.standard_normal(6)
    input, offsets = [1, 2, 4, 5, 4, 3], [0, 2]
    c_w, t_w = ctxgrad.tensor(weight, requires_grad=True), torch.tensor(weight, requires_grad=True)
    c_p, t_p = ctxgrad.tensor(psw, requires_grad=True), torch.tensor(psw, requires_grad=True)
    ours = F.embedding_bag(ctxgrad.tensor(input), c_w, ctxgrad.tensor(offsets), mode="sum", per_sample_weights=c_p)
    theirs = torch.nn.functional.embedding_bag(
        torch.tensor(input), t_w, torch.tensor(offsets), mode="sum", per_sample_weights=t_p
    )
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12)
    ours.sum().backward()
    theirs.sum().backward()
    np.testing.assert_allclose(c_w.grad.numpy(), t_w.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(c_p.grad.numpy(), t_p.grad.numpy(), rtol=1e-12)


def test_module_matches_torch(torch: Any) -> None:
    for args, kwargs in [
        ((10, 3), {}),
        ((10, 3), {"mode": "sum", "padding_idx": 0}),
        ((10, 3), {"mode": "max", "max_norm": 1.0}),
    ]:
        c, t = nn.EmbeddingBag(*args, **kwargs).double(), torch.nn.EmbeddingBag(*args, **kwargs).double()
        assert repr(c) == repr(t)
        if "padding_idx" in kwargs:
            assert float(c.weight[0].abs().sum()) == 0.0
        c.load_state_dict({"weight": ctxgrad.tensor(t.weight.detach().numpy())})
        input, offsets = [1, 2, 4, 5, 4, 3], [0, 2]
        ours = c(ctxgrad.tensor(input), ctxgrad.tensor(offsets))
        theirs = t(torch.tensor(input), torch.tensor(offsets))
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12)
        np.testing.assert_allclose(c.weight.detach().numpy(), t.weight.detach().numpy(), rtol=1e-12)  # max_norm renorms


ERRORS = [
    lambda m, w: m.nn.functional.embedding_bag(m.tensor([[0, 1]]), w, offsets=m.tensor([0])),
    lambda m, w: m.nn.functional.embedding_bag(m.tensor([0, 1]), w),
    lambda m, w: m.nn.functional.embedding_bag(m.tensor([0, 1]), w, m.tensor([0]), per_sample_weights=m.ones(2)),
    lambda m, w: m.nn.functional.embedding_bag(m.tensor([0, 1]), w, m.tensor([0]), mode="foo"),
    lambda m, w: m.nn.functional.embedding_bag(m.tensor([0, 1]), w, m.tensor([1])),
]


@pytest.mark.parametrize("call", ERRORS)
def test_errors_match_torch(torch: Any, call: Any) -> None:
    with pytest.raises(Exception) as theirs:
        call(torch, torch.ones(5, 2))
    with pytest.raises(Exception) as ours:
        call(ctxgrad, ctxgrad.ones(5, 2))
    assert type(ours.value) is type(theirs.value)
    # torch's messages end with the offending tensor printed ("of type <class ...>", "[ torch.LongTensor{} ]")
    assert str(ours.value).split(" of type ")[0] == str(theirs.value).split(" of type ")[0].split("\n")[0]

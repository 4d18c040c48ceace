"""ParameterList and ParameterDict against torch: registration (names, state dict, the
optimizer seeing them), conversion of plain tensors to parameters, list and dict behaviour,
reprs, and training through them."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import ctxgrad
from ctxgrad import nn


def build_list(lib: Any) -> Any:
    return lib.nn.ParameterList(
        [lib.nn.Parameter(lib.ones(2, 3)), lib.zeros(2), lib.nn.Parameter(lib.ones(4, dtype=lib.float64))]
    )


def build_dict(lib: Any) -> Any:
    return lib.nn.ParameterDict({"b": lib.zeros(3), "a": lib.nn.Parameter(lib.ones(2))})


def test_parameter_list_matches_torch(torch: Any) -> None:
    ours, theirs = build_list(ctxgrad), build_list(torch)
    assert repr(ours) == repr(theirs).replace("torch.", "ctxgrad.")
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()] == ["0", "1", "2"]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert isinstance(ours[1], nn.Parameter) and ours[1].requires_grad
    assert len(ours) == 3 and ours[-1] is ours[2]
    ours.append(ctxgrad.ones(1))
    ours += [ctxgrad.ones(5)]
    assert len(ours) == 5 and [tuple(p.shape) for p in ours][-2:] == [(1,), (5,)]
    sliced = ours[1:3]
    assert isinstance(sliced, nn.ParameterList) and sliced[0] is ours[1]
    with pytest.raises(IndexError):
        ours[7]
    assert repr(nn.ParameterList()) == repr(torch.nn.ParameterList()) == "ParameterList()"


def test_parameter_list_keeps_objects_that_are_not_tensors(torch: Any) -> None:
    ours = nn.ParameterList([nn.Parameter(ctxgrad.ones(2)), 5])
    theirs = torch.nn.ParameterList([torch.nn.Parameter(torch.ones(2)), 5])
    assert repr(ours) == repr(theirs).replace("torch.", "ctxgrad.")
    assert ours[1] == 5 and len(list(ours.parameters())) == 1


def test_parameter_dict_matches_torch(torch: Any) -> None:
    ours, theirs = build_dict(ctxgrad), build_dict(torch)
    assert repr(ours) == repr(theirs).replace("torch.", "ctxgrad.")
    assert list(ours.keys()) == list(theirs.keys()) == ["a", "b"]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert isinstance(ours["b"], nn.Parameter) and "a" in ours and "c" not in ours
    ours["c"] = ctxgrad.ones(1)
    assert [k for k, _ in ours.named_parameters()] == ["a", "b", "c"]
    popped = ours.pop("a")
    assert tuple(popped.shape) == (2,) and list(ours) == ["b", "c"]
    assert ours.get("zz") is None and ours.setdefault("d", ctxgrad.zeros(2)) is ours["d"]
    ours.update([("e", ctxgrad.ones(3))])
    assert len(ours) == 4
    ours.clear()
    assert len(ours) == 0 and list(ours.parameters()) == []
    with pytest.raises(ValueError, match="ParameterDict update sequence element #0 has length 3; 2 is required"):
        ours.update([("a", 1, 2)])


def test_training_through_parameter_containers_matches_torch(torch: Any) -> None:
    data = np.random.default_rng(3).standard_normal((5, 3))

    def run(lib: Any) -> list[np.ndarray]:
        lib.manual_seed(0)
        weights = lib.nn.ParameterList([lib.tensor(np.full((3, 4), 0.1)), lib.tensor(np.full((4,), -0.2))])
        extra = lib.nn.ParameterDict({"scale": lib.tensor(np.array([1.5]))})
        model = lib.nn.Module()
        model.weights = weights
        model.extra = extra
        opt = lib.optim.SGD(model.parameters(), lr=0.1)
        for _ in range(3):
            opt.zero_grad()
            out = ((lib.tensor(data) @ weights[0] + weights[1]).tanh() * extra["scale"]).pow(2).mean()
            out.backward()
            opt.step()
        return [p.detach().numpy().copy() for p in model.parameters()]

    for a, b in zip(run(ctxgrad), run(torch)):
        np.testing.assert_allclose(a, b, rtol=1e-12)

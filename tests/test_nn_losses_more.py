"""The ranking, embedding and likelihood losses against torch in float64: values and
gradients of every differentiable input for each reduction, the modules' reprs, and
torch's errors; numerical second derivatives without torch."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import ctxgrad
import ctxgrad.nn.functional as F
from ctxgrad import nn
from ctxgrad.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(4242)


def randn(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape)


def signs(*shape: int) -> np.ndarray:
    return RNG.choice([-1.0, 1.0], size=shape)


def run(torch: Any, name: str, arrays: list[np.ndarray], differentiable: tuple[int, ...], **kwargs: Any) -> None:
    c_in = [ctxgrad.tensor(a, requires_grad=i in differentiable) for i, a in enumerate(arrays)]
    t_in = [torch.tensor(a, requires_grad=i in differentiable) for i, a in enumerate(arrays)]
    c_out = getattr(F, name)(*c_in, **kwargs)
    t_out = getattr(torch.nn.functional, name)(*t_in, **kwargs)
    np.testing.assert_allclose(c_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-11, atol=1e-13)
    up = randn(*t_out.shape)
    c_out.backward(ctxgrad.tensor(up))
    t_out.backward(torch.tensor(up))
    for i in differentiable:
        np.testing.assert_allclose(c_in[i].grad.numpy(), t_in[i].grad.numpy(), rtol=1e-10, atol=1e-13, err_msg=str(i))


CASES: list[tuple[str, Any, tuple[int, ...], dict[str, Any]]] = [
    ("margin_ranking_loss", lambda: [randn(6), randn(6), signs(6)], (0, 1), {}),
    ("margin_ranking_loss", lambda: [randn(6), randn(6), signs(6)], (0, 1), {"margin": 0.5}),
    ("hinge_embedding_loss", lambda: [np.abs(randn(4, 3)), signs(4, 3)], (0,), {}),
    ("hinge_embedding_loss", lambda: [randn(5), signs(5)], (0,), {"margin": 0.3}),
    ("soft_margin_loss", lambda: [randn(4, 3), signs(4, 3)], (0,), {}),
    ("cosine_embedding_loss", lambda: [randn(5, 4), randn(5, 4), signs(5)], (0, 1), {}),
    ("cosine_embedding_loss", lambda: [randn(5, 4), randn(5, 4), signs(5)], (0, 1), {"margin": -0.2}),
    ("cosine_embedding_loss", lambda: [randn(4), randn(4), np.array(-1.0)], (0, 1), {}),
    ("triplet_margin_loss", lambda: [randn(5, 4), randn(5, 4), randn(5, 4)], (0, 1, 2), {}),
    ("triplet_margin_loss", lambda: [randn(5, 4), randn(5, 4), randn(5, 4)], (0, 1, 2), {"p": 1.0, "margin": 2.0}),
    ("triplet_margin_loss", lambda: [randn(5, 4), randn(5, 4), randn(5, 4)], (0, 1, 2), {"swap": True}),
    ("multilabel_soft_margin_loss", lambda: [randn(4, 5), RNG.integers(0, 2, (4, 5)).astype(float)], (0,), {}),
    (
        "multilabel_soft_margin_loss",
        lambda: [randn(4, 5), RNG.integers(0, 2, (4, 5)).astype(float), np.abs(randn(5))],
        (0,),
        {},
    ),
    ("poisson_nll_loss", lambda: [randn(6), RNG.poisson(2.0, 6).astype(float)], (0,), {}),
    (
        "poisson_nll_loss",
        lambda: [np.abs(randn(6)) + 0.1, RNG.poisson(3.0, 6).astype(float)],
        (0,),
        {"log_input": False},
    ),
    ("poisson_nll_loss", lambda: [randn(3, 4), RNG.poisson(3.0, (3, 4)).astype(float)], (0,), {"full": True}),
    ("gaussian_nll_loss", lambda: [randn(5, 2), randn(5, 2), np.abs(randn(5, 2))], (0, 1, 2), {}),
    ("gaussian_nll_loss", lambda: [randn(5, 2), randn(5, 2), np.abs(randn(5))], (0, 2), {"full": True}),
    ("gaussian_nll_loss", lambda: [randn(5, 2), randn(5, 2), np.abs(randn(5, 1)) * 1e-8], (0, 2), {}),
]


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize(("name", "make", "differentiable", "kwargs"), CASES, ids=[f"{c[0]}{c[3]}" for c in CASES])
def test_losses_match_torch(
    torch: Any, name: str, make: Any, differentiable: tuple[int, ...], kwargs: dict[str, Any], reduction: str
) -> None:
    arrays = make()
    if name == "multilabel_soft_margin_loss" and len(arrays) == 3:
        run(torch, name, arrays[:2], differentiable, weight=None, reduction=reduction)
        c = F.multilabel_soft_margin_loss(
            ctxgrad.tensor(arrays[0]), ctxgrad.tensor(arrays[1]), ctxgrad.tensor(arrays[2]), reduction=reduction
        )
        t = torch.nn.functional.multilabel_soft_margin_loss(
            torch.tensor(arrays[0]), torch.tensor(arrays[1]), torch.tensor(arrays[2]), reduction=reduction
        )
        np.testing.assert_allclose(c.numpy(), t.numpy(), rtol=1e-11)
        return
    run(torch, name, arrays, differentiable, reduction=reduction, **kwargs)


# name, constructor arguments, inputs, how many leading inputs require grad (not the targets)
MODULES: list[tuple[str, dict[str, Any], Any, int]] = [
    ("MarginRankingLoss", {"margin": 0.1}, lambda: [randn(5), randn(5), signs(5)], 2),
    ("HingeEmbeddingLoss", {"margin": 2.0, "reduction": "sum"}, lambda: [randn(5), signs(5)], 1),
    ("SoftMarginLoss", {}, lambda: [randn(5), signs(5)], 1),
    ("CosineEmbeddingLoss", {"margin": 0.2}, lambda: [randn(3, 4), randn(3, 4), signs(3)], 2),
    ("TripletMarginLoss", {"margin": 0.5, "swap": True}, lambda: [randn(3, 4), randn(3, 4), randn(3, 4)], 3),
    ("MultiLabelSoftMarginLoss", {}, lambda: [randn(3, 4), RNG.integers(0, 2, (3, 4)).astype(float)], 1),
    ("PoissonNLLLoss", {"full": True}, lambda: [randn(5), RNG.poisson(4.0, 5).astype(float)], 1),
    ("GaussianNLLLoss", {"full": True}, lambda: [randn(5, 2), randn(5, 2), np.abs(randn(5, 2))], 3),
]


@pytest.mark.parametrize(("name", "kwargs", "make", "n_grad"), MODULES, ids=[m[0] for m in MODULES])
def test_loss_modules_match_torch(torch: Any, name: str, kwargs: dict[str, Any], make: Any, n_grad: int) -> None:
    c_mod, t_mod = getattr(nn, name)(**kwargs), getattr(torch.nn, name)(**kwargs)
    assert repr(c_mod) == repr(t_mod)
    arrays = make()
    c_in = [ctxgrad.tensor(a, requires_grad=i < n_grad) for i, a in enumerate(arrays)]
    t_in = [torch.tensor(a, requires_grad=i < n_grad) for i, a in enumerate(arrays)]
    c_out, t_out = c_mod(*c_in), t_mod(*t_in)
    np.testing.assert_allclose(c_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-11)
    c_out.backward()
    t_out.backward()
    for c, t in zip(c_in, t_in):
        if t.grad is not None:
            np.testing.assert_allclose(c.grad.numpy(), t.grad.numpy(), rtol=1e-10, atol=1e-13)


ERRORS = [
    lambda m: m.nn.functional.gaussian_nll_loss(m.ones(3, 2), m.ones(3, 2), m.ones(2)),
    lambda m: m.nn.functional.gaussian_nll_loss(m.ones(3), m.ones(3), -m.ones(3)),
    lambda m: m.nn.functional.gaussian_nll_loss(m.ones(3), m.ones(3), m.ones(3), reduction="x"),
    lambda m: m.nn.functional.triplet_margin_loss(m.ones(3, 2), m.ones(3, 2), m.ones(3)),
    lambda m: m.nn.TripletMarginLoss(margin=0.0),
    lambda m: m.nn.functional.soft_margin_loss(m.ones(3), m.ones(3), reduction="average"),
]


@pytest.mark.parametrize("call", ERRORS)
def test_errors_match_torch(torch: Any, call: Any) -> None:
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(Exception) as ours:
        call(ctxgrad)
    assert type(ours.value) is type(theirs.value)
    assert str(ours.value) == str(theirs.value)


NUMERIC = [
    ("margin_ranking", lambda a, b: F.margin_ranking_loss(a, b, ctxgrad.tensor([1.0, -1.0, 1.0]), 2.0), [(3,), (3,)]),
    ("soft_margin", lambda a: F.soft_margin_loss(a, ctxgrad.tensor([1.0, -1.0, 1.0])), [(3,)]),
    (
        "cosine_embedding",
        lambda a, b: F.cosine_embedding_loss(a, b, ctxgrad.tensor([1.0, -1.0]), -1.0),
        [(2, 3), (2, 3)],
    ),
    ("triplet", lambda a, p, n: F.triplet_margin_loss(a, p, n, margin=5.0), [(2, 3), (2, 3), (2, 3)]),
    ("multilabel", lambda a: F.multilabel_soft_margin_loss(a, ctxgrad.tensor([[1.0, 0.0, 1.0]])), [(1, 3)]),
    ("poisson", lambda a: F.poisson_nll_loss(a, ctxgrad.tensor([0.0, 2.0, 5.0]), full=True), [(3,)]),
    ("gaussian", lambda a, v: F.gaussian_nll_loss(a, ctxgrad.zeros(3), v * v + 0.5), [(3,), (3,)]),
]


@pytest.mark.parametrize(("name", "fn", "shapes"), NUMERIC, ids=[n[0] for n in NUMERIC])
def test_numerical_first_and_second_derivatives(name: str, fn: Any, shapes: list[tuple[int, ...]]) -> None:
    inputs = tuple(ctxgrad.tensor(randn(*s), requires_grad=True) for s in shapes)
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)


# --------------------------------------------------------------------------- margin losses over classes
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("kwargs", [{}, {"p": 2, "margin": 0.5}, {"weight": True}], ids=str)
def test_multi_margin_loss_matches_torch(torch: Any, reduction: str, kwargs: dict[str, Any]) -> None:
    x, target = randn(4, 5), np.array([0, 3, 4, 1])
    weight = np.abs(randn(5)) if kwargs.pop("weight", False) else None
    c_x, t_x = ctxgrad.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ours = F.multi_margin_loss(
        c_x,
        ctxgrad.tensor(target),
        weight=None if weight is None else ctxgrad.tensor(weight),
        reduction=reduction,
        **kwargs,
    )
    theirs = torch.nn.functional.multi_margin_loss(
        t_x,
        torch.tensor(target),
        weight=None if weight is None else torch.tensor(weight),
        reduction=reduction,
        **kwargs,
    )
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12)
    up = randn(*theirs.shape)
    ours.backward(ctxgrad.tensor(up))
    theirs.backward(torch.tensor(up))
    np.testing.assert_allclose(c_x.grad.numpy(), t_x.grad.numpy(), rtol=1e-11, atol=1e-13)


@pytest.mark.parametrize("reduction", ["mean", "none"])
def test_multilabel_margin_loss_matches_torch(torch: Any, reduction: str) -> None:
    x, target = randn(3, 4), np.array([[3, 0, -1, 1], [1, 2, 3, -1], [0, -1, 2, 2]])
    c_x, t_x = ctxgrad.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ours = F.multilabel_margin_loss(c_x, ctxgrad.tensor(target), reduction=reduction)
    theirs = torch.nn.functional.multilabel_margin_loss(t_x, torch.tensor(target), reduction=reduction)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12)
    up = randn(*theirs.shape)
    ours.backward(ctxgrad.tensor(up))
    theirs.backward(torch.tensor(up))
    np.testing.assert_allclose(c_x.grad.numpy(), t_x.grad.numpy(), rtol=1e-11, atol=1e-13)


@pytest.mark.parametrize("swap", [False, True])
def test_triplet_margin_with_distance_loss_matches_torch(torch: Any, swap: bool) -> None:
    arrays = [randn(4, 3) for _ in range(3)]
    for name, kwargs in (("default", {}), ("cosine", {"margin": 0.5})):
        c_in = [ctxgrad.tensor(a, requires_grad=True) for a in arrays]
        t_in = [torch.tensor(a, requires_grad=True) for a in arrays]
        c_dist = (lambda a, b: 1 - F.cosine_similarity(a, b)) if name == "cosine" else None
        t_dist = (lambda a, b: 1 - torch.nn.functional.cosine_similarity(a, b)) if name == "cosine" else None
        ours = nn.TripletMarginWithDistanceLoss(distance_function=c_dist, swap=swap, **kwargs)(*c_in)
        theirs = torch.nn.TripletMarginWithDistanceLoss(distance_function=t_dist, swap=swap, **kwargs)(*t_in)
        np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-12)
        ours.backward()
        theirs.backward()
        for c, t in zip(c_in, t_in):
            np.testing.assert_allclose(c.grad.numpy(), t.grad.numpy(), rtol=1e-11, atol=1e-13)
    assert repr(nn.TripletMarginWithDistanceLoss()) == repr(torch.nn.TripletMarginWithDistanceLoss())
    assert repr(nn.MultiMarginLoss()) == repr(torch.nn.MultiMarginLoss())
    for lib in (torch, ctxgrad):
        with pytest.raises(ValueError, match="only p == 1 and p == 2 supported"):
            lib.nn.functional.multi_margin_loss(lib.ones(2, 3), lib.tensor([0, 1]), p=3)
        with pytest.raises(RuntimeError, match="target out of range"):
            lib.nn.functional.multi_margin_loss(lib.ones(2, 3), lib.tensor([0, 5]))

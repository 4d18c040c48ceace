"""ctc_loss and CTCLoss against torch in float64: values for padded and concatenated targets,
every reduction, repeated labels, unbatched input, infinite losses and zero_infinity; the
gradient through log_softmax equal to torch's; the true derivative with respect to the
log-probabilities by finite differences (torch's adds exp(log_probs), see docs/differences.md)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import ctxgrad
import ctxgrad.nn.functional as F
from ctxgrad import nn
from ctxgrad.autograd import gradcheck

RNG = np.random.default_rng(6)
T, N, C = 8, 3, 5
LOGITS = RNG.standard_normal((T, N, C))
TARGETS = np.array([[1, 2, 2, 3], [4, 4, 0, 0], [2, 0, 0, 0]])
TARGET_LENGTHS = [4, 2, 1]
INPUT_LENGTHS = [8, 6, 5]


def run(lib: Any, logits: np.ndarray, targets: Any, input_lengths: Any, target_lengths: Any, **kwargs: Any) -> Any:
    x = lib.tensor(logits, requires_grad=True)
    loss = lib.nn.functional.ctc_loss(x.log_softmax(-1), targets, input_lengths, target_lengths, **kwargs)
    loss.sum().backward()
    return loss.detach().numpy(), x.grad.numpy()


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("concatenated", [False, True])
def test_values_and_gradients_through_log_softmax_match_torch(torch: Any, reduction: str, concatenated: bool) -> None:
    targets = np.concatenate([row[:n] for row, n in zip(TARGETS, TARGET_LENGTHS)]) if concatenated else TARGETS
    ours = run(ctxgrad, LOGITS, ctxgrad.tensor(targets), INPUT_LENGTHS, TARGET_LENGTHS, reduction=reduction)
    theirs = run(
        torch,
        LOGITS,
        torch.tensor(targets),
        torch.tensor(INPUT_LENGTHS),
        torch.tensor(TARGET_LENGTHS),
        reduction=reduction,
    )
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-10, atol=1e-13)


def test_unbatched_and_blank_index_match_torch(torch: Any) -> None:
    logits = RNG.standard_normal((6, C))
    ours = run(ctxgrad, logits, ctxgrad.tensor([1, 3]), [6], [2], blank=4)
    theirs = run(torch, logits, torch.tensor([1, 3]), torch.tensor([6]), torch.tensor([2]), blank=4)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("zero_infinity", [False, True])
def test_an_impossible_alignment_matches_torch(torch: Any, zero_infinity: bool) -> None:
    targets, lengths = np.array([[1, 1, 1]]), [3]  # three repeats need five steps, there are three
    logits = RNG.standard_normal((3, 1, C))
    ours = run(ctxgrad, logits, ctxgrad.tensor(targets), [3], lengths, reduction="none", zero_infinity=zero_infinity)
    theirs = run(
        torch,
        logits,
        torch.tensor(targets),
        torch.tensor([3]),
        torch.tensor(lengths),
        reduction="none",
        zero_infinity=zero_infinity,
    )
    assert ours[0].tolist() == theirs[0].tolist()
    if zero_infinity:
        np.testing.assert_array_equal(ours[1], theirs[1])


def test_the_gradient_is_the_derivative_of_the_loss() -> None:
    lp = ctxgrad.tensor(np.log(RNG.dirichlet(np.ones(4), (5, 2))), requires_grad=True)

    def fn(x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        return F.ctc_loss(x, ctxgrad.tensor([[1, 2], [3, 0]]), [5, 4], [2, 1], reduction="sum")

    assert gradcheck(fn, (lp,))


def test_module_matches_torch(torch: Any) -> None:
    assert repr(nn.CTCLoss(blank=2, zero_infinity=True)) == repr(torch.nn.CTCLoss(blank=2, zero_infinity=True))
    lp = np.log(RNG.dirichlet(np.ones(C), (T, N)))
    ours = nn.CTCLoss()(ctxgrad.tensor(lp), ctxgrad.tensor(TARGETS), INPUT_LENGTHS, TARGET_LENGTHS)
    theirs = torch.nn.CTCLoss()(torch.tensor(lp), torch.tensor(TARGETS), INPUT_LENGTHS, TARGET_LENGTHS)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("zero_infinity", [False, True])
def test_long_batches_with_empty_repeated_and_impossible_targets_match_torch(
    torch: Any, reduction: str, zero_infinity: bool
) -> None:
    """The recursion vectorised over the batch: samples of different input and target lengths
    (an empty target, repeats, one too long to fit its input) in one call."""
    rng = np.random.default_rng(11)
    steps, batch, classes = 40, 6, 7
    logits = rng.standard_normal((steps, batch, classes))
    input_lengths = [40, 33, 1, 40, 12, 25]
    target_lengths = [15, 0, 1, 10, 9, 20]  # sample 4: 9 repeated labels need 17 steps, it has 12
    targets = rng.integers(1, classes, (batch, 20))
    targets[3, :10] = [2, 2, 3, 3, 3, 1, 1, 4, 4, 2]
    targets[4, :9] = 5
    kwargs = {"reduction": reduction, "zero_infinity": zero_infinity}
    ours = run(ctxgrad, logits, ctxgrad.tensor(targets), input_lengths, target_lengths, **kwargs)
    theirs = run(
        torch, logits, torch.tensor(targets), torch.tensor(input_lengths), torch.tensor(target_lengths), **kwargs
    )
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12)
    if zero_infinity or reduction == "none":
        finite = np.isfinite(theirs[1])
        np.testing.assert_allclose(ours[1][finite], theirs[1][finite], rtol=1e-10, atol=1e-13)


def test_float32_matches_torch_and_a_second_derivative_raises_as_in_torch(torch: Any) -> None:
    logits = RNG.standard_normal((T, N, C)).astype(np.float32)
    ours = run(ctxgrad, logits, ctxgrad.tensor(TARGETS), INPUT_LENGTHS, TARGET_LENGTHS)
    theirs = run(torch, logits, torch.tensor(TARGETS), torch.tensor(INPUT_LENGTHS), torch.tensor(TARGET_LENGTHS))
    assert ours[0].dtype == ours[1].dtype == np.float32
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-5)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-4, atol=1e-6)
    messages = {
        ctxgrad: "went through CtcLossBackward0, whose backward is marked @once_differentiable",
        torch: "derivative for aten::_ctc_loss_backward is not implemented",
    }
    for lib, message in messages.items():
        lp = lib.tensor(np.log(RNG.dirichlet(np.ones(C), (T, N))), requires_grad=True)
        loss = lib.nn.functional.ctc_loss(lp, lib.tensor(TARGETS), INPUT_LENGTHS, TARGET_LENGTHS)
        (g,) = lib.autograd.grad(loss, lp, create_graph=True)
        with pytest.raises(RuntimeError, match=message):
            g.sum().backward()


def test_vmap_over_log_probs_matches_a_loop(torch: Any) -> None:
    """The batching rule folds vmap's samples into the loss's batch: the same values and
    gradients as one call per sample, and as torch.func.vmap."""
    rng = np.random.default_rng(12)
    stacked = np.log(rng.dirichlet(np.ones(C), (4, T, N)))

    def loss(lib: Any, lp: Any) -> Any:
        return lib.nn.functional.ctc_loss(lp, lib.tensor(TARGETS), INPUT_LENGTHS, TARGET_LENGTHS, reduction="sum")

    x = ctxgrad.tensor(stacked, requires_grad=True)
    batched = ctxgrad.func.vmap(lambda lp: loss(ctxgrad, lp))(x)
    looped = [float(loss(ctxgrad, ctxgrad.tensor(s))) for s in stacked]
    np.testing.assert_allclose(batched.detach().numpy(), looped, rtol=1e-13)
    theirs = torch.func.vmap(lambda lp: loss(torch, lp))(torch.tensor(stacked))
    np.testing.assert_allclose(batched.detach().numpy(), theirs.numpy(), rtol=1e-12)
    (batched * ctxgrad.tensor([1.0, 2.0, 3.0, 4.0])).sum().backward()
    assert x.grad is not None
    for k, sample in enumerate(stacked):
        one = ctxgrad.tensor(sample, requires_grad=True)
        loss(ctxgrad, one).backward()
        assert one.grad is not None
        np.testing.assert_allclose(x.grad.numpy()[k], (k + 1) * one.grad.numpy(), rtol=1e-12, atol=1e-15)

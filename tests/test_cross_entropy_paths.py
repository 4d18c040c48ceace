"""The fused cross-entropy's shortcuts give exactly what its general paths give.

``cross_entropy`` with class indices is one Function.  Its backward computes on the arrays
when nothing records (no ``create_graph``, no transform) and with ctxgrad ops otherwise; its
forward leaves out the row mask when no row is ignored.  Each shortcut is the same sequence of
NumPy operations as the path it replaces, so the values must be equal bit for bit."""

from __future__ import annotations

import numpy as np
import pytest

import ctxgrad
import ctxgrad.nn.functional as F

DTYPES = [np.float16, np.float32, np.float64]


def _inputs(dtype: type, ignored: bool) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(7)
    logits = (rng.standard_normal((12, 5)) * 3).astype(dtype)
    target = rng.integers(0, 5, 12)
    if ignored:
        target[[2, 7]] = -100
    return logits, target


def _loss_and_grad(logits: np.ndarray, target: np.ndarray, reduction: str, create_graph: bool, **kw: int):
    x = ctxgrad.tensor(logits, requires_grad=True)
    loss = F.cross_entropy(x, ctxgrad.tensor(target), reduction=reduction, **kw)
    upstream = ctxgrad.tensor(0.3, dtype=x.dtype)  # (not 1: every product of the formula rounds)
    (g,) = ctxgrad.autograd.grad(loss, x, upstream, create_graph=create_graph)
    return loss.detach().numpy(), g.detach().numpy(), g.requires_grad


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", ["mean", "sum"])
@pytest.mark.parametrize("ignored", [False, True])
def test_the_array_backward_equals_the_ops_backward(dtype: type, reduction: str, ignored: bool) -> None:
    logits, target = _inputs(dtype, ignored)
    loss_a, grad_arrays, builds_a = _loss_and_grad(logits, target, reduction, create_graph=False)
    loss_b, grad_ops, builds_b = _loss_and_grad(logits, target, reduction, create_graph=True)
    assert (builds_a, builds_b) == (False, True)  # (the second took the ops, recording)
    assert grad_arrays.dtype == grad_ops.dtype == np.dtype(dtype)
    np.testing.assert_array_equal(loss_a, loss_b)
    np.testing.assert_array_equal(grad_arrays, grad_ops)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("reduction", ["mean", "sum"])
@pytest.mark.parametrize("create_graph", [False, True])
def test_no_row_ignored_equals_the_masked_path(dtype: type, reduction: str, create_graph: bool) -> None:
    # An ignore_index that is a class none of the targets has takes the masked path, with a
    # mask of all ones; the default ignore_index (-100) leaves the mask out.
    logits, target = _inputs(dtype, ignored=False)
    unused_class = 4
    target[target == unused_class] = 0
    plain = _loss_and_grad(logits, target, reduction, create_graph)
    masked = _loss_and_grad(logits, target, reduction, create_graph, ignore_index=unused_class)
    np.testing.assert_array_equal(plain[0], masked[0])
    np.testing.assert_array_equal(plain[1], masked[1])


@pytest.mark.parametrize("ignored", [False, True])
def test_both_paths_match_torch(ignored: bool) -> None:
    torch = pytest.importorskip("torch")
    logits, target = _inputs(np.float64, ignored)
    for create_graph in (False, True):
        loss, grad, _ = _loss_and_grad(logits, target, "mean", create_graph)
        x = torch.tensor(logits, requires_grad=True)
        expected = torch.nn.functional.cross_entropy(x, torch.tensor(target))
        (expected_grad,) = torch.autograd.grad(expected, x, torch.tensor(0.3, dtype=x.dtype), create_graph=create_graph)
        np.testing.assert_allclose(loss, expected.detach().numpy(), rtol=1e-12)
        np.testing.assert_allclose(grad, expected_grad.detach().numpy(), rtol=1e-12, atol=1e-15)


def test_every_row_ignored_gives_nan_and_a_zero_gradient_on_both_paths() -> None:
    logits, target = _inputs(np.float32, ignored=False)
    target[:] = -100
    for create_graph in (False, True):
        loss, grad, _ = _loss_and_grad(logits, target, "mean", create_graph)
        assert np.isnan(loss)
        np.testing.assert_array_equal(grad, np.zeros_like(logits))

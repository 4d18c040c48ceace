"""Random sampling: ``randperm``, ``normal`` (its four overloads), ``bernoulli``,
``multinomial``, ``poisson``, ``randint_like`` and the in-place samplers (``uniform_``,
``normal_``, ``bernoulli_``, ``exponential_``, ``random_``, ``log_normal_``, ``geometric_``,
``cauchy_``).

ctxgrad's random streams are NumPy's, so the numbers cannot match torch's: the tests check
each distribution's moments on many draws (a fixed seed, tolerances several standard errors
wide), reproducibility under ``manual_seed``, and against torch the shapes, dtypes, grad_fn
names, (zero) gradients and errors.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _support import raised

import ctxgrad

N = 40_000


def _draws(fill: Callable[[Any], Any], dtype: Any = ctxgrad.float64) -> np.ndarray:
    ctxgrad.manual_seed(1234)
    return fill(ctxgrad.zeros(N, dtype=dtype)).numpy().astype(np.float64)


# (sampler, expected mean, expected variance)
MOMENTS: dict[str, tuple[Callable[[Any], Any], float, float]] = {
    "uniform_": (lambda x: x.uniform_(-1.0, 3.0), 1.0, 16 / 12),
    "normal_": (lambda x: x.normal_(2.0, 0.5), 2.0, 0.25),
    "bernoulli_": (lambda x: x.bernoulli_(0.3), 0.3, 0.21),
    "exponential_": (lambda x: x.exponential_(4.0), 0.25, 1 / 16),
    "log_normal_": (lambda x: x.log_normal_(0.0, 0.5), np.exp(0.125), (np.exp(0.25) - 1) * np.exp(0.25)),
    "geometric_": (lambda x: x.geometric_(0.25), 4.0, 0.75 / 0.0625),
    "random_-to": (lambda x: x.random_(6), 2.5, 35 / 12),
    "random_-from-to": (lambda x: x.random_(-3, 2), -1.0, 2.0),
    "normal-tensor-tensor": (lambda x: ctxgrad.normal(x + 1.0, x + 2.0), 1.0, 4.0),
    "normal-tensor-number": (lambda x: ctxgrad.normal(x - 1.0, 3.0), -1.0, 9.0),
    "normal-number-tensor": (lambda x: ctxgrad.normal(0.5, x + 0.1), 0.5, 0.01),
    "normal-size": (lambda x: ctxgrad.normal(1.0, 2.0, (N,), dtype=ctxgrad.float64), 1.0, 4.0),
    "bernoulli": (lambda x: ctxgrad.bernoulli(x + 0.7), 0.7, 0.21),
    "bernoulli-p": (lambda x: x.bernoulli(0.2), 0.2, 0.16),
    "poisson": (lambda x: ctxgrad.poisson(x + 3.0), 3.0, 3.0),
    "randint_like": (lambda x: ctxgrad.randint_like(x, 2, 5), 3.0, 2 / 3),
}


@pytest.mark.parametrize("name", MOMENTS)
def test_samples_have_the_distribution_s_mean_and_variance(name: str) -> None:
    fill, mean, variance = MOMENTS[name]
    x = _draws(fill)
    assert abs(x.mean() - mean) < 5 * np.sqrt(variance / N)
    assert abs(x.var() - variance) < 0.05 * variance


def test_cauchy_samples_have_the_median_and_quartiles() -> None:
    x = _draws(lambda t: t.cauchy_(1.0, 2.0))
    q1, median, q3 = np.quantile(x, [0.25, 0.5, 0.75])
    assert abs(median - 1.0) < 0.05 and abs(q1 - (-1.0)) < 0.1 and abs(q3 - 3.0) < 0.1


def test_random_without_bounds_draws_integers_the_dtype_holds_exactly() -> None:
    x = _draws(lambda t: t.random_(), ctxgrad.float32)
    assert (x == np.round(x)).all() and x.min() >= 0 and x.max() <= 2**24
    assert x.max() > 2**23  # spread over the whole range


def test_randperm_is_a_permutation_with_uniform_positions() -> None:
    ctxgrad.manual_seed(5)
    perms = np.stack([ctxgrad.randperm(4).numpy() for _ in range(4000)])
    assert (np.sort(perms, axis=1) == np.arange(4)).all()
    first = np.bincount(perms[:, 0], minlength=4) / 4000
    np.testing.assert_allclose(first, 0.25, atol=0.03)


def test_multinomial_frequencies_follow_the_weights() -> None:
    ctxgrad.manual_seed(7)
    weights = ctxgrad.tensor([[1.0, 2.0, 5.0], [0.0, 1.0, 1.0]])
    draws = ctxgrad.multinomial(weights, N, replacement=True).numpy()
    np.testing.assert_allclose(np.bincount(draws[0], minlength=3) / N, [0.125, 0.25, 0.625], atol=0.01)
    np.testing.assert_allclose(np.bincount(draws[1], minlength=3) / N, [0.0, 0.5, 0.5], atol=0.01)


def test_multinomial_without_replacement_draws_each_category_once() -> None:
    ctxgrad.manual_seed(8)
    rows = ctxgrad.multinomial(ctxgrad.ones(200, 5), 5).numpy()
    assert (np.sort(rows, axis=1) == np.arange(5)).all()
    picked = ctxgrad.multinomial(ctxgrad.tensor([0.0, 3.0, 0.0, 1.0]), 2).numpy()
    assert sorted(picked.tolist()) == [1, 3]


SAMPLERS: dict[str, Callable[[], Any]] = {
    "uniform_": lambda: ctxgrad.zeros(5).uniform_(),
    "normal_": lambda: ctxgrad.zeros(5).normal_(),
    "bernoulli_-tensor": lambda: ctxgrad.zeros(5).bernoulli_(ctxgrad.full((5,), 0.5)),
    "exponential_": lambda: ctxgrad.zeros(5).exponential_(),
    "random_": lambda: ctxgrad.zeros(5, dtype=ctxgrad.int64).random_(),
    "log_normal_": lambda: ctxgrad.zeros(5).log_normal_(),
    "geometric_": lambda: ctxgrad.zeros(5).geometric_(0.5),
    "cauchy_": lambda: ctxgrad.zeros(5).cauchy_(),
    "randperm": lambda: ctxgrad.randperm(10),
    "normal": lambda: ctxgrad.normal(ctxgrad.zeros(3), 1.0),
    "bernoulli": lambda: ctxgrad.bernoulli(ctxgrad.full((5,), 0.5)),
    "multinomial": lambda: ctxgrad.multinomial(ctxgrad.ones(4), 2),
    "poisson": lambda: ctxgrad.poisson(ctxgrad.ones(5)),
    "randint_like": lambda: ctxgrad.randint_like(ctxgrad.zeros(5), 100),
}


@pytest.mark.parametrize("name", SAMPLERS)
def test_manual_seed_makes_every_sampler_reproducible(name: str) -> None:
    ctxgrad.manual_seed(42)
    first = SAMPLERS[name]().tolist()
    ctxgrad.manual_seed(42)
    again = SAMPLERS[name]().tolist()
    later = SAMPLERS[name]().tolist()
    assert first == again
    if name not in ("multinomial",):
        assert later != first  # the stream moves on


SHAPES: dict[str, Callable[[Any], Any]] = {
    "randperm": lambda m: m.randperm(5),
    "randperm-dtype": lambda m: m.randperm(3, dtype=m.float64),
    "normal-size": lambda m: m.normal(0.0, 1.0, (2, 3)),
    "normal-broadcast": lambda m: m.normal(m.zeros(2, 1, dtype=m.float64), m.ones(3)),
    "normal-tensor-number": lambda m: m.normal(m.zeros(2, dtype=m.float64), 2.0),
    "normal-number-tensor": lambda m: m.normal(1.0, m.ones(2, 2)),
    "bernoulli": lambda m: m.bernoulli(m.full((2, 3), 0.5, dtype=m.float64)),
    "bernoulli-p": lambda m: m.zeros(3).bernoulli(0.5),
    "multinomial": lambda m: m.ones(2, 4).multinomial(3),
    "multinomial-1d": lambda m: m.multinomial(m.ones(4), 6, True),
    "poisson": lambda m: m.poisson(m.ones(2, 2, dtype=m.float64)),
    "randint_like": lambda m: m.randint_like(m.zeros(2, 3), 4),
    "randint_like-low-high": lambda m: m.randint_like(m.zeros(2, dtype=m.int32), 1, 4),
    "random_-float": lambda m: m.zeros(3).random_(10),
    "geometric_-int": lambda m: m.zeros(3, dtype=m.int64).geometric_(0.5),
    "bernoulli_-int": lambda m: m.zeros(3, dtype=m.int64).bernoulli_(0.5),
}


@pytest.mark.parametrize("name", SHAPES)
def test_shapes_and_dtypes_match_torch(torch: Any, name: str) -> None:
    c, t = SHAPES[name](ctxgrad), SHAPES[name](torch)
    assert tuple(c.shape) == tuple(t.shape)
    assert str(c.dtype) == str(t.dtype).replace("torch.", "ctxgrad.")
    assert c.requires_grad == t.requires_grad


GRADS: dict[str, Callable[[Any, Any], Any]] = {
    "normal-tensor-tensor": lambda m, x: m.normal(x, x * 2.0),
    "normal-tensor-number": lambda m, x: m.normal(x, 2.0),
    "normal-number-tensor": lambda m, x: m.normal(0.0, x),
    "bernoulli": lambda m, x: m.bernoulli(x * 0.5),
    "poisson": lambda m, x: m.poisson(x),
    "uniform_": lambda m, x: (x * 1.0).uniform_(),
    "normal_": lambda m, x: (x * 1.0).normal_(),
    "bernoulli_": lambda m, x: (x * 1.0).bernoulli_(0.5),
    "bernoulli_-tensor": lambda m, x: (x * 1.0).bernoulli_(x * 0.5),
    "exponential_": lambda m, x: (x * 1.0).exponential_(),
    "random_": lambda m, x: (x * 1.0).random_(),
    "random_-to": lambda m, x: (x * 1.0).random_(4),
    "random_-from-to": lambda m, x: (x * 1.0).random_(1, 4),
    "log_normal_": lambda m, x: (x * 1.0).log_normal_(),
    "geometric_": lambda m, x: (x * 1.0).geometric_(0.5),
    "cauchy_": lambda m, x: (x * 1.0).cauchy_(),
}


@pytest.mark.parametrize("name", GRADS)
def test_samples_have_torch_s_node_and_a_zero_gradient(torch: Any, name: str) -> None:
    for m in (ctxgrad, torch):
        x = m.tensor([0.5, 1.0, 1.5], dtype=m.float64, requires_grad=True)
        y = GRADS[name](m, x)
        assert y.requires_grad
        names = type(y.grad_fn).__name__
        (y * m.tensor([1.0, 2.0, 3.0], dtype=m.float64)).sum().backward()
        assert x.grad.tolist() == [0.0, 0.0, 0.0]
        if m is ctxgrad:
            c_name = names
    assert c_name == names


def test_in_place_samplers_refuse_a_leaf_that_requires_grad(torch: Any) -> None:
    def run(m: Any) -> Any:
        return m.zeros(3, requires_grad=True).uniform_()

    assert raised(lambda: run(ctxgrad), ctxgrad) == raised(lambda: run(torch), torch)


def test_in_place_samplers_return_self_and_bump_the_version() -> None:
    x = ctxgrad.zeros(4)
    before = x._version
    assert x.normal_() is x and x._version == before + 1


ERRORS: dict[str, Callable[[Any], Any]] = {
    "multinomial-too-many": lambda m: m.multinomial(m.tensor([0.2, 0.8]), 3),
    "multinomial-negative": lambda m: m.multinomial(m.tensor([-0.2, 0.8]), 1),
    "multinomial-zero-sum": lambda m: m.multinomial(m.tensor([0.0, 0.0]), 1),
    "multinomial-3d": lambda m: m.multinomial(m.zeros(2, 2, 2), 1),
    "multinomial-int": lambda m: m.multinomial(m.tensor([1, 2]), 1),
    "multinomial-zero-samples": lambda m: m.multinomial(m.tensor([1.0, 2.0]), 0),
    "normal-negative-std": lambda m: m.normal(m.zeros(2), -1.0),
    "normal-negative-std-tensor": lambda m: m.normal(0.0, m.tensor([-1.0])),
    "normal-shapes": lambda m: m.normal(m.zeros(2), m.ones(3)),
    "bernoulli-p-out-of-range": lambda m: m.bernoulli(m.tensor([1.5])),
    "bernoulli-int": lambda m: m.bernoulli(m.ones(2, dtype=m.int64)),
    "randperm-negative": lambda m: m.randperm(-1),
    "poisson-negative": lambda m: m.poisson(m.tensor([-1.0])),
    "poisson-int": lambda m: m.poisson(m.ones(2, dtype=m.int64)),
    "randint_like-bounds": lambda m: m.randint_like(m.zeros(2), 3, 1),
    "uniform_-bounds": lambda m: m.zeros(2).uniform_(2, 1),
    "uniform_-int": lambda m: m.zeros(2, dtype=m.int64).uniform_(),
    "normal_-std": lambda m: m.zeros(2).normal_(0, -1),
    "normal_-int": lambda m: m.zeros(2, dtype=m.int64).normal_(),
    "exponential_-lambda": lambda m: m.zeros(2).exponential_(-1),
    "geometric_-p-zero": lambda m: m.zeros(2).geometric_(0),
    "geometric_-p-large": lambda m: m.zeros(2).geometric_(1.5),
    "log_normal_-std": lambda m: m.zeros(2).log_normal_(0, -1),
    "cauchy_-sigma": lambda m: m.zeros(2).cauchy_(0, -1),
    "random_-bounds": lambda m: m.zeros(2).random_(5, 2),
    "bernoulli_-p": lambda m: m.zeros(2).bernoulli_(1.5),
}


@pytest.mark.parametrize("name", ERRORS)
def test_errors_match_torch(torch: Any, name: str) -> None:
    assert raised(lambda: ERRORS[name](ctxgrad), ctxgrad) == raised(lambda: ERRORS[name](torch), torch)


def test_the_tangent_of_a_sample_is_zero_with_the_sample_s_shape() -> None:
    """(torch raises here: it gives the tangent the shape of `mean`, not of the broadcast sample.)"""
    import ctxgrad.autograd.forward_ad as fwad

    with fwad.dual_level():
        mean = fwad.make_dual(ctxgrad.zeros(2, 1, dtype=ctxgrad.float64), ctxgrad.ones(2, 1, dtype=ctxgrad.float64))
        out = ctxgrad.normal(mean, ctxgrad.ones(3, dtype=ctxgrad.float64))
        tangent = fwad.unpack_dual(out).tangent
    assert tangent is not None and tangent.shape == (2, 3) and not tangent.numpy().any()

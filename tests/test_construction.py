"""Construction and comparison utilities against torch: ``linspace``, ``logspace``, ``eye``,
the ``new_*`` methods, the ``*_like`` factories, ``type_as``, ``isclose``, ``allclose`` and
``equal``.  Each test runs the same call on ctxgrad and torch and compares values, dtype,
shape and ``requires_grad`` (or the exception type and message)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import numpy as np
import pytest
from _support import assert_matches_torch, dtype_name, raised, to_numpy

import ctxgrad


@pytest.fixture
def default_float64(torch: Any) -> Iterator[None]:
    """Both libraries with float64 as the default dtype for the test."""
    ctxgrad.set_default_dtype(ctxgrad.float64)
    torch.set_default_dtype(torch.float64)
    try:
        yield
    finally:
        ctxgrad.set_default_dtype(ctxgrad.float32)
        torch.set_default_dtype(torch.float32)


def same(c: Any, t: Any, rtol: float = 0.0, atol: float = 0.0) -> None:
    assert isinstance(c, ctxgrad.Tensor)
    assert tuple(c.shape) == tuple(t.shape)
    assert dtype_name(c.dtype) == dtype_name(t.dtype)
    assert c.requires_grad == t.requires_grad
    a, b = to_numpy(c), t.detach().numpy()
    if rtol or atol:
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)
    else:
        np.testing.assert_array_equal(a, b)


# --------------------------------------------------------------------------- linspace, logspace, eye

LINSPACE = [
    ((0, 1, 7), {}),
    ((-3.3, 7.1, 50), {}),
    ((5, -5, 11), {"dtype": "float64"}),
    ((0.1, 0.7, 1000), {"dtype": "float64"}),
    ((2, 5, 1), {}),
    ((2, 5, 0), {}),
    ((0, 1, 5), {"requires_grad": True}),
    ((0, 10, 4), {"dtype": "int64"}),
    ((-3.3, 7.1, 50), {"dtype": "int32"}),
    ((0.001, 2.5, 101), {"dtype": "int64"}),
]


def _kwargs(m: Any, kwargs: dict[str, Any]) -> dict[str, Any]:
    return {k: getattr(m, v) if k == "dtype" else v for k, v in kwargs.items()}


@pytest.mark.parametrize(("args", "kwargs"), LINSPACE)
def test_linspace_matches_torch(torch: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    c = ctxgrad.linspace(*args, **_kwargs(ctxgrad, kwargs))
    t = torch.linspace(*args, **_kwargs(torch, kwargs))
    # Floats may differ from torch's vectorised kernel in the last bit; integers are exact.
    same(c, t, rtol=1e-6 if t.dtype.is_floating_point else 0.0, atol=1e-6 if t.dtype.is_floating_point else 0.0)
    if t.numel():
        assert to_numpy(c)[0] == t[0].item() and to_numpy(c)[-1] == t[-1].item()


def test_linspace_takes_0d_tensors_and_follows_the_default_dtype(torch: Any, default_float64: None) -> None:
    same(
        ctxgrad.linspace(ctxgrad.tensor(2.0), ctxgrad.tensor(5.0), 3),
        torch.linspace(torch.tensor(2.0), torch.tensor(5.0), 3),
    )
    same(ctxgrad.linspace(0, 1, 3), torch.linspace(0, 1, 3))
    same(ctxgrad.logspace(0, 1, 3), torch.logspace(0, 1, 3), rtol=1e-12)
    same(ctxgrad.eye(2), torch.eye(2))


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [
        ((0, 2, 3), {}),
        ((0, 2, 3), {"base": 2}),
        ((-1.5, 2.5, 9), {"dtype": "float64"}),
        ((0, 3, 4), {"dtype": "int64"}),
    ],
)
def test_logspace_matches_torch(torch: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    c = ctxgrad.logspace(*args, **_kwargs(ctxgrad, kwargs))
    t = torch.logspace(*args, **_kwargs(torch, kwargs))
    same(c, t, rtol=1e-6 if t.dtype.is_floating_point else 0.0)


@pytest.mark.parametrize(
    ("args", "kwargs"),
    [
        ((3,), {}),
        ((2, 3), {}),
        ((3, 2), {"dtype": "int64"}),
        ((2,), {"dtype": "bool"}),
        ((0,), {}),
        ((2, 0), {}),
        ((2,), {"requires_grad": True}),
        ((2,), {"dtype": "float64"}),
    ],
)
def test_eye_matches_torch(torch: Any, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    same(ctxgrad.eye(*args, **_kwargs(ctxgrad, kwargs)), torch.eye(*args, **_kwargs(torch, kwargs)))


FACTORY_ERRORS = [
    ("linspace negative steps", lambda m: m.linspace(2, 5, -1)),
    ("linspace int requires grad", lambda m: m.linspace(0, 1, 5, dtype=m.int64, requires_grad=True)),
    ("eye negative n", lambda m: m.eye(-1)),
    ("eye negative m", lambda m: m.eye(2, -1)),
    ("new_zeros int requires grad", lambda m: m.tensor([1, 2]).new_zeros(2, requires_grad=True)),
    ("new_full int size", lambda m: m.tensor([1.0]).new_full(2, 3)),
    ("zeros_like int requires grad", lambda m: m.zeros_like(m.tensor([1, 2]), requires_grad=True)),
    ("rand_like int", lambda m: m.rand_like(m.tensor([1, 2]))),
    ("randn_like int", lambda m: m.randn_like(m.tensor([1, 2]))),
    ("isclose dtypes", lambda m: m.isclose(m.tensor([1.0]), m.tensor([1.0], dtype=m.float64))),
    ("isclose number", lambda m: m.isclose(m.tensor([1.0]), 1.0)),
    ("isclose negative rtol", lambda m: m.isclose(m.tensor([1.0]), m.tensor([1.0]), rtol=-1)),
    ("isclose negative atol", lambda m: m.isclose(m.tensor([1.0]), m.tensor([1.0]), atol=-1)),
    ("allclose dtypes", lambda m: m.allclose(m.tensor([1.0]), m.tensor([1.0], dtype=m.float64))),
]


@pytest.mark.parametrize(("label", "fn"), FACTORY_ERRORS, ids=[n for n, _ in FACTORY_ERRORS])
def test_errors_match_torch(torch: Any, label: str, fn: Callable[[Any], Any]) -> None:
    expected = raised(lambda: fn(torch), torch)
    got = raised(lambda: fn(ctxgrad), ctxgrad)
    assert_matches_torch(got, expected)


# --------------------------------------------------------------------------- new_* and *_like

NEW = [
    lambda m, x: x.new_zeros(2, 3),
    lambda m, x: x.new_zeros((2, 3)),
    lambda m, x: x.new_zeros([2], dtype=m.float64),
    lambda m, x: x.new_ones(3),
    lambda m, x: x.new_ones((1, 2), dtype=m.int32),
    lambda m, x: x.new_full((2,), 3.7),
    lambda m, x: x.new_full([2, 2], 3),
    lambda m, x: x.new_full((2,), 1, dtype=m.float64),
    lambda m, x: x.new_tensor([1.5, 2.0]),
    lambda m, x: x.new_tensor([1, 2], dtype=m.float64),
    lambda m, x: x.new_empty(2, 3).zero_(),
    lambda m, x: x.new_empty((0,)),
]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "int32", "bool"])
@pytest.mark.parametrize("form", range(len(NEW)))
def test_new_methods_inherit_the_dtype_as_torch(torch: Any, form: int, dtype: str) -> None:
    c = NEW[form](ctxgrad, ctxgrad.tensor([1, 0, 1], dtype=getattr(ctxgrad, dtype)))
    t = NEW[form](torch, torch.tensor([1, 0, 1], dtype=getattr(torch, dtype)))
    same(c, t)


def test_new_methods_take_requires_grad(torch: Any) -> None:
    for fn in (
        lambda m, x: x.new_zeros(2, requires_grad=True),
        lambda m, x: x.new_ones(2, requires_grad=True),
        lambda m, x: x.new_full((2,), 1.0, requires_grad=True),
        lambda m, x: x.new_tensor([1, 2], requires_grad=True),
        lambda m, x: x.new_empty(2, requires_grad=True).detach().zero_().requires_grad_(),
    ):
        c = fn(ctxgrad, ctxgrad.ones(2, requires_grad=True))
        t = fn(torch, torch.ones(2, requires_grad=True))
        same(c, t)
        assert c.is_leaf


LIKE = [
    lambda m, x: m.zeros_like(x),
    lambda m, x: m.zeros_like(x, dtype=m.float64),
    lambda m, x: m.ones_like(x, dtype=m.int64),
    lambda m, x: m.full_like(x, 2.7),
    lambda m, x: m.full_like(x, 2, dtype=m.float64),
    lambda m, x: m.empty_like(x).zero_(),
    lambda m, x: m.empty_like(x, dtype=m.int32).zero_(),
]


@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
@pytest.mark.parametrize("form", range(len(LIKE)))
def test_like_factories_match_torch(torch: Any, form: int, dtype: str) -> None:
    c = LIKE[form](ctxgrad, ctxgrad.tensor([[1, 0, 1]], dtype=getattr(ctxgrad, dtype)))
    t = LIKE[form](torch, torch.tensor([[1, 0, 1]], dtype=getattr(torch, dtype)))
    same(c, t)


@pytest.mark.parametrize("name", ["zeros_like", "ones_like", "empty_like", "rand_like", "randn_like"])
def test_like_factories_take_dtype_and_requires_grad(torch: Any, name: str) -> None:
    for kwargs in ({}, {"dtype": "float64"}, {"requires_grad": True}, {"dtype": "float64", "requires_grad": True}):
        c = getattr(ctxgrad, name)(ctxgrad.ones(2, 3), **_kwargs(ctxgrad, kwargs))
        t = getattr(torch, name)(torch.ones(2, 3), **_kwargs(torch, kwargs))
        assert tuple(c.shape) == tuple(t.shape)
        assert dtype_name(c.dtype) == dtype_name(t.dtype)
        assert c.requires_grad == t.requires_grad and c.is_leaf
    full = ctxgrad.full_like(ctxgrad.ones(2), 1.0, requires_grad=True)
    assert full.requires_grad and full.is_leaf


def test_rand_like_and_randn_like_draw_from_their_distributions() -> None:
    ctxgrad.manual_seed(0)
    u = to_numpy(ctxgrad.rand_like(ctxgrad.zeros(10000, dtype=ctxgrad.float64)))
    n = to_numpy(ctxgrad.randn_like(ctxgrad.zeros(10000)))
    assert u.min() >= 0.0 and u.max() < 1.0 and abs(u.mean() - 0.5) < 0.02
    assert abs(n.mean()) < 0.05 and abs(n.std() - 1.0) < 0.05
    ctxgrad.manual_seed(0)
    again = to_numpy(ctxgrad.rand_like(ctxgrad.zeros(10000, dtype=ctxgrad.float64)))
    np.testing.assert_array_equal(u, again)


def test_type_as_matches_torch_and_keeps_the_gradient(torch: Any) -> None:
    for src, other in (("float32", "float64"), ("float64", "int64"), ("int64", "float32"), ("float32", "float32")):
        c = (
            ctxgrad.tensor([1.5, -2.0])
            .to(getattr(ctxgrad, src))
            .type_as(ctxgrad.zeros(1, dtype=getattr(ctxgrad, other)))
        )
        t = torch.tensor([1.5, -2.0]).to(getattr(torch, src)).type_as(torch.zeros(1, dtype=getattr(torch, other)))
        same(c, t)
    x = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    y = x.type_as(ctxgrad.zeros(1, dtype=ctxgrad.float64))
    (y * 3).sum().backward()
    assert x.grad is not None and dtype_name(x.grad.dtype) == "float32"
    assert to_numpy(x.grad).tolist() == [3.0, 3.0]


# --------------------------------------------------------------------------- isclose, allclose, equal

NAN, INF = float("nan"), float("inf")
CLOSE = [
    ([1.0, NAN, 2.0], [1.0 + 1e-9, NAN, 2.1], {}),
    ([1.0, NAN, 2.0], [1.0 + 1e-9, NAN, 2.1], {"equal_nan": True}),
    ([INF, -INF, INF, 1.0], [INF, INF, 1e30, 1.0], {}),
    ([1.0, 2.0], [1.0001, 2.1], {"rtol": 1e-3}),
    ([1.0, 2.0], [1.5, 2.1], {"atol": 0.2, "rtol": 0.0}),
    ([1, 2, 3], [1, 3, 3], {}),
    ([True, False], [True, True], {}),
]


@pytest.mark.parametrize(("a", "b", "kwargs"), CLOSE)
def test_isclose_and_allclose_match_torch(torch: Any, a: list[Any], b: list[Any], kwargs: dict[str, Any]) -> None:
    ca, cb, ta, tb = ctxgrad.tensor(a), ctxgrad.tensor(b), torch.tensor(a), torch.tensor(b)
    same(ctxgrad.isclose(ca, cb, **kwargs), torch.isclose(ta, tb, **kwargs))
    same(ca.isclose(cb, **kwargs), ta.isclose(tb, **kwargs))
    assert ctxgrad.allclose(ca, cb, **kwargs) is torch.allclose(ta, tb, **kwargs)
    assert ca.allclose(cb, **kwargs) is ta.allclose(tb, **kwargs)


def test_isclose_broadcasts_and_allclose_of_equal_tensors(torch: Any) -> None:
    same(
        ctxgrad.isclose(ctxgrad.tensor([1.0, 2.0]), ctxgrad.tensor(1.0)),
        torch.isclose(torch.tensor([1.0, 2.0]), torch.tensor(1.0)),
    )
    assert ctxgrad.allclose(ctxgrad.tensor([1.0, 1.0]), ctxgrad.tensor(1.0)) is True
    assert ctxgrad.allclose(ctxgrad.tensor([1.0, 2.0]), ctxgrad.tensor([1.0, 2.0001])) is torch.allclose(
        torch.tensor([1.0, 2.0]), torch.tensor([1.0, 2.0001])
    )


@pytest.mark.parametrize(
    ("a", "b"),
    [
        ([1.0, 2.0], [1.0, 2.0]),
        ([1.0, 1.0], 1.0),
        ([1.0, 2.0], [1, 2]),
        ([NAN], [NAN]),
        ([[1.0, 2.0]], [1.0, 2.0]),
        ([1.0, 2.0], [1.0, 2.5]),
    ],
)
def test_equal_matches_torch(torch: Any, a: Any, b: Any) -> None:
    got = ctxgrad.equal(ctxgrad.tensor(a), ctxgrad.tensor(b))
    assert got is torch.equal(torch.tensor(a), torch.tensor(b))
    assert ctxgrad.tensor(a).equal(ctxgrad.tensor(b)) is got

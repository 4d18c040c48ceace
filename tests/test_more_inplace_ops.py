"""The in-place variants torch has for ctxgrad's pointwise, scan and triangle ops
(``sin_`` ... ``trunc_``, ``logit_``, ``clamp_min_``/``clamp_max_``, ``cumsum_``/``cumprod_``,
``tril_``/``triu_``): each writes into its tensor, returns it, has the op's node, and its
gradient flows through the write as torch's does (checked on a non-leaf and through a view)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _support import raised

import ctxgrad

UNARY = (
    "acos asin atan ceil cos cosh erf erfc exp2 expm1 floor frac log10 log1p log2 reciprocal round rsqrt sign sin "
    "sinh square tan trunc"
).split()

OPS: dict[str, Callable[[Any, Any], Any]] = {
    name + "_": (lambda m, x, name=name: getattr(x, name + "_")()) for name in UNARY
}
OPS.update(
    {
        "logit_": lambda m, x: x.logit_(),
        "logit_-eps": lambda m, x: x.logit_(0.3),
        "clamp_min_": lambda m, x: x.clamp_min_(0.4),
        "clamp_min_-tensor": lambda m, x: x.clamp_min_(m.full((3,), 0.4, dtype=m.float64)),
        "clamp_max_": lambda m, x: x.clamp_max_(0.4),
        "clamp_max_-tensor": lambda m, x: x.clamp_max_(m.full((2, 1), 0.4, dtype=m.float64)),
        "cumsum_": lambda m, x: x.cumsum_(1),
        "cumprod_": lambda m, x: x.cumprod_(0),
        "tril_": lambda m, x: x.tril_(),
        "triu_": lambda m, x: x.triu_(1),
        "renorm_": lambda m, x: x.renorm_(2, 0, 0.9),
        "atan2_": lambda m, x: x.atan2_(m.full((3,), -0.5, dtype=m.float64)),
        "arctan2_": lambda m, x: x.arctan2_(x * 2.0 - 1.0),
        "lerp_": lambda m, x: x.lerp_(m.ones(2, 3, dtype=m.float64), 0.25),
        "lerp_-tensor-weight": lambda m, x: x.lerp_(x * 3.0, m.full((3,), 0.5, dtype=m.float64)),
        "remainder_": lambda m, x: x.remainder_(0.3),
        "remainder_-tensor": lambda m, x: x.remainder_(m.full((3,), 0.25, dtype=m.float64)),
        "fmod_": lambda m, x: x.fmod_(-0.3),
        "fmod_-tensor": lambda m, x: x.fmod_(x * 0.0 + 0.25),
    }
)

_VALUES = np.array([[0.2, 0.45, 0.7], [0.35, 0.6, 0.85]])  # inside every op's domain (acos, logit, ...)


@pytest.mark.parametrize("name", OPS)
def test_in_place_variant_matches_torch(torch: Any, name: str) -> None:
    results = []
    for m in (ctxgrad, torch):
        leaf = m.tensor(_VALUES, dtype=m.float64, requires_grad=True)
        x = leaf * 1.0
        out = OPS[name](m, x)
        assert out is x
        node = type(x.grad_fn).__name__
        (x * m.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], dtype=m.float64)).sum().backward()
        results.append((x.detach().numpy().copy(), node, leaf.grad.numpy().copy()))
    (cv, cn, cg), (tv, tn, tg) = results
    np.testing.assert_allclose(cv, tv, rtol=1e-12)
    assert cn == tn
    np.testing.assert_allclose(cg, tg, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", ["sin_", "cumsum_", "tril_", "clamp_min_"])
def test_in_place_variant_through_a_view_updates_the_base_s_gradient(torch: Any, name: str) -> None:
    grads = []
    for m in (ctxgrad, torch):
        leaf = m.tensor(np.arange(12.0).reshape(2, 2, 3) / 13.0, dtype=m.float64, requires_grad=True)
        base = leaf * 1.0
        OPS[name](m, base[1])
        (base * base).sum().backward()
        grads.append(leaf.grad.numpy().copy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-10)


def test_in_place_variant_refuses_a_float_result_in_an_integer_tensor(torch: Any) -> None:
    def run(m: Any) -> Any:
        return m.tensor([1, 2]).sin_()

    assert raised(lambda: run(ctxgrad), ctxgrad) == raised(lambda: run(torch), torch)


# Not differentiable: floor_divide_, the logical and the bitwise ops (values and dtypes only).
VALUE_OPS: dict[str, Callable[[Any], Any]] = {
    "floor_divide_": lambda m: m.tensor([5.0, -5.0, 7.5]).floor_divide_(2),
    "floor_divide_-int": lambda m: m.tensor([5, -5, 7]).floor_divide_(m.tensor([2, 2, -3])),
    "logical_and_": lambda m: m.tensor([0.0, 1.5, 2.0]).logical_and_(m.tensor([1, 0, 3])),
    "logical_or_-bool": lambda m: m.tensor([False, True, False]).logical_or_(m.tensor([0.0, 0.0, 2.0])),
    "logical_xor_-int": lambda m: m.tensor([0, 1, 2]).logical_xor_(m.tensor([True, True, False])),
    "logical_not_": lambda m: m.tensor([0.0, 2.0]).logical_not_(),
    "bitwise_and_": lambda m: m.tensor([12, 10]).bitwise_and_(6),
    "bitwise_or_-tensor": lambda m: m.tensor([12, 10]).bitwise_or_(m.tensor([1, 4])),
    "bitwise_xor_-bool": lambda m: m.tensor([True, False]).bitwise_xor_(m.tensor([True, True])),
    "bitwise_not_": lambda m: m.tensor([12, -1], dtype=m.int32).bitwise_not_(),
}


@pytest.mark.parametrize("name", VALUE_OPS)
def test_value_in_place_variant_matches_torch(torch: Any, name: str) -> None:
    c, t = VALUE_OPS[name](ctxgrad), VALUE_OPS[name](torch)
    assert c.tolist() == t.tolist()
    assert str(c.dtype) == str(t.dtype).replace("torch.", "ctxgrad.")


VALUE_ERRORS: dict[str, Callable[[Any], Any]] = {
    "bitwise_and_-float": lambda m: m.tensor([1.0]).bitwise_and_(1),
    "floor_divide_-float-into-int": lambda m: m.tensor([5]).floor_divide_(2.5),
    "atan2_-not-tensor": lambda m: m.tensor([1.0]).atan2_(2.0),
}


@pytest.mark.parametrize("name", VALUE_ERRORS)
def test_value_in_place_variant_errors_match_torch(torch: Any, name: str) -> None:
    fn = VALUE_ERRORS[name]
    assert raised(lambda: fn(ctxgrad), ctxgrad) == raised(lambda: fn(torch), torch)


COMPARES: dict[str, Callable[[Any, Any], Any]] = {
    "eq_": lambda m, x: x.eq_(0.45),
    "ne_-tensor": lambda m, x: x.ne_(m.tensor([0.2, 0.6, 0.0], dtype=m.float64)),
    "lt_": lambda m, x: x.lt_(0.5),
    "le_-tensor": lambda m, x: x.le_(m.full((2, 1), 0.45, dtype=m.float64)),
    "gt_": lambda m, x: x.gt_(0.5),
    "ge_-tensor": lambda m, x: x.ge_(x.detach() * 0.0 + 0.6),
}


@pytest.mark.parametrize("name", COMPARES)
def test_in_place_comparisons_write_one_or_zero_with_a_zero_gradient_as_torch(torch: Any, name: str) -> None:
    results = []
    for m in (ctxgrad, torch):
        leaf = m.tensor(_VALUES, dtype=m.float64, requires_grad=True)
        x = leaf * 1.0
        assert COMPARES[name](m, x) is x
        node = type(x.grad_fn).__name__
        x.sum().backward()
        results.append((x.detach().numpy().copy(), node, leaf.grad.numpy().copy()))
    (cv, cn, cg), (tv, tn, tg) = results
    np.testing.assert_array_equal(cv, tv)
    assert cn == tn
    np.testing.assert_array_equal(cg, tg)


def test_in_place_comparison_of_integers_matches_torch(torch: Any) -> None:
    c, t = (m.tensor([1, 2, 3]).ge_(2) for m in (ctxgrad, torch))
    assert c.tolist() == t.tolist() and c.dtype == ctxgrad.int64


def test_conj_physical_and_true_divide_in_place_match_torch(torch: Any) -> None:
    results = []
    for m in (ctxgrad, torch):
        leaf = m.tensor(np.array([1 + 2j, -0.5j]), requires_grad=True)
        z = leaf * 1.0
        assert z.conj_physical_() is z
        node = type(z.grad_fn).__name__
        (z * m.tensor(np.array([1.0 + 1j, 2.0]))).real.sum().backward()
        r = m.tensor([1.0, 3.0])
        assert r.true_divide_(2.0) is r
        results.append((z.detach().numpy().copy(), node, leaf.grad.numpy().copy(), r.tolist()))
    (cz, cn, cg, cr), (tz, tn, tg, tr) = results
    np.testing.assert_allclose(cz, tz)
    assert cn == tn and cr == tr
    np.testing.assert_allclose(cg, tg)

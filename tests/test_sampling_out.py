"""``out=`` of ``normal``, ``bernoulli`` and ``multinomial``: written into ``out`` with the
values the call without ``out`` draws, with torch's checks, dtypes, resizing and errors."""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ctxgrad

# Each case: a call on a library ``L`` (ctxgrad or torch) and the new tensor ``E = L.empty``.
Call = Callable[[Any], Any]


def _with_out(make_out: Call, call: Callable[[Any, Any], Any]) -> Call:
    return lambda L: (lambda out: (call(L, out), out))(make_out(L))


# --------------------------------------------------------------------------- same draw, same tensor

DRAWS: dict[str, tuple[Call, Call, Callable[[Any, Any], Any]]] = {
    # name: (out, the call with out, the call without it)
    "normal tensor/tensor": (
        lambda L: L.empty(3),
        lambda L, o: L.normal(L.arange(3.0), L.ones(3), out=o),
        lambda L, _: L.normal(L.arange(3.0), L.ones(3)),
    ),
    "normal tensor/number": (
        lambda L: L.empty(3),
        lambda L, o: L.normal(L.arange(3.0), 2.0, out=o),
        lambda L, _: L.normal(L.arange(3.0), 2.0),
    ),
    "normal number/tensor": (
        lambda L: L.empty(3),
        lambda L, o: L.normal(1.0, L.full((3,), 2.0), out=o),
        lambda L, _: L.normal(1.0, L.full((3,), 2.0)),
    ),
    "normal number/number/size": (
        lambda L: L.empty(0),
        lambda L, o: L.normal(1.0, 2.0, (2, 3), out=o),
        lambda L, _: L.normal(1.0, 2.0, (2, 3)),
    ),
    "bernoulli": (
        lambda L: L.empty(6),
        lambda L, o: L.bernoulli(L.full((6,), 0.5), out=o),
        lambda L, _: L.bernoulli(L.full((6,), 0.5)),
    ),
    "bernoulli int64 out": (
        lambda L: L.empty(6, dtype=L.int64),
        lambda L, o: L.bernoulli(L.full((6,), 0.5), out=o),
        lambda L, _: L.bernoulli(L.full((6,), 0.5)).long(),
    ),
    "multinomial": (
        lambda L: L.empty(2, 3, dtype=L.int64),
        lambda L, o: L.multinomial(L.ones(2, 5), 3, out=o),
        lambda L, _: L.multinomial(L.ones(2, 5), 3),
    ),
}


@pytest.mark.parametrize("name", DRAWS)
def test_out_gets_the_draw_without_out(name: str) -> None:
    make_out, with_out, without = DRAWS[name]
    out = make_out(ctxgrad)
    ctxgrad.manual_seed(7)
    result = with_out(ctxgrad, out)
    assert result is out
    written = out.numpy().copy()
    ctxgrad.manual_seed(7)
    expected = without(ctxgrad, None)
    assert out.dtype == expected.dtype
    assert out.shape == expected.shape
    np.testing.assert_array_equal(written, expected.numpy())


def test_out_with_a_generator_gets_the_draw_without_out() -> None:
    g = ctxgrad.Generator()
    g.manual_seed(11)
    out = ctxgrad.empty(4)
    assert ctxgrad.normal(ctxgrad.zeros(4), 1.0, generator=g, out=out) is out
    g.manual_seed(11)
    np.testing.assert_array_equal(out.numpy(), ctxgrad.normal(ctxgrad.zeros(4), 1.0, generator=g).numpy())


def test_bernoulli_out_writes_in_outs_dtype() -> None:
    out = ctxgrad.empty(4, dtype=ctxgrad.bool)
    ctxgrad.bernoulli(ctxgrad.tensor([0.0, 1.0, 1.0, 0.0]), out=out)
    assert out.dtype == ctxgrad.bool
    assert out.tolist() == [False, True, True, False]


def test_normal_out_draws_in_outs_dtype() -> None:
    out = ctxgrad.empty(3, dtype=ctxgrad.float64)
    ctxgrad.normal(ctxgrad.zeros(3, dtype=ctxgrad.int64), 1.0, out=out)  # (an int mean: fine with out=)
    assert out.dtype == ctxgrad.float64


def test_normal_number_overload_out_takes_requires_grad() -> None:
    out = ctxgrad.empty(3)
    assert ctxgrad.normal(0.0, 1.0, (3,), requires_grad=True, out=out) is out
    assert out.requires_grad


def test_out_in_no_grad_takes_an_input_that_requires_grad() -> None:
    out = ctxgrad.empty(3)
    with ctxgrad.no_grad():
        result = ctxgrad.normal(ctxgrad.zeros(3, requires_grad=True), 1.0, out=out)
    assert result is out
    assert not out.requires_grad


def test_bernoulli_out_with_p_is_refused() -> None:
    with pytest.raises(TypeError, match=r"bernoulli\(\): out= cannot be combined with p="):
        ctxgrad.bernoulli(ctxgrad.full((3,), 0.5), p=0.5, out=ctxgrad.empty(3))


def test_out_must_be_a_tensor() -> None:
    with pytest.raises(TypeError, match=r"bernoulli\(\): argument 'out' must be Tensor, not list"):
        ctxgrad.bernoulli(ctxgrad.full((3,), 0.5), out=[ctxgrad.empty(3)])


def test_a_trace_replays_the_out_call_with_a_new_draw() -> None:
    ctxgrad.manual_seed(5)
    traced = ctxgrad.trace(lambda x, o: ctxgrad.normal(x, 1.0, out=o), ctxgrad.zeros(3), ctxgrad.empty(3))
    out = ctxgrad.empty(3)
    first = traced(ctxgrad.zeros(3), out).numpy().copy()
    np.testing.assert_array_equal(first, out.numpy())
    second = traced(ctxgrad.zeros(3), out).numpy()
    assert not np.array_equal(first, second)


# --------------------------------------------------------------------------- against torch

CASES: dict[str, tuple[Call, str | None]] = {
    # name: (the call, returning (result, out); a regex both messages match, None: it succeeds)
    "bernoulli int64 out": (
        _with_out(lambda L: L.empty(3, dtype=L.int64), lambda L, o: L.bernoulli(L.full((3,), 0.5), out=o)),
        None,
    ),
    "bernoulli float64 out": (
        _with_out(lambda L: L.empty(3, dtype=L.float64), lambda L, o: L.bernoulli(L.full((3,), 0.5), out=o)),
        None,
    ),
    "bernoulli bool out": (
        _with_out(lambda L: L.empty(3, dtype=L.bool), lambda L, o: L.bernoulli(L.full((3,), 0.5), out=o)),
        None,
    ),
    "bernoulli complex out": (
        _with_out(lambda L: L.empty(3, dtype=L.complex64), lambda L, o: L.bernoulli(L.full((3,), 0.5), out=o)),
        r"\"bernoulli_tensor_cpu_self_\" not implemented for 'ComplexFloat'",
    ),
    "bernoulli resized without warning": (
        _with_out(lambda L: L.empty(5), lambda L, o: L.bernoulli(L.full((3,), 0.5), out=o)),
        None,
    ),
    "bernoulli p=": (
        _with_out(lambda L: L.empty(3), lambda L, o: L.bernoulli(L.full((3,), 0.5), p=0.5, out=o)),
        r"bernoulli\(\)",
    ),
    "bernoulli integer input": (
        _with_out(lambda L: L.empty(3, dtype=L.int64), lambda L, o: L.bernoulli(L.ones(3, dtype=L.int64), out=o)),
        r"\"bernoulli_tensor_cpu_p_\" not implemented for 'Long'",
    ),
    "bernoulli p out of range": (
        _with_out(lambda L: L.empty(3), lambda L, o: L.bernoulli(L.full((3,), 2.0), out=o)),
        r"Expected p_in >= 0 && p_in <= 1",
    ),
    "bernoulli input requires grad": (
        _with_out(lambda L: L.empty(3), lambda L, o: L.bernoulli(L.full((3,), 0.5, requires_grad=True), out=o)),
        r"^bernoulli\(\): functions with out=\.\.\. arguments don't support automatic differentiation",
    ),
    "multinomial int32 out": (
        _with_out(lambda L: L.empty(4, dtype=L.int32), lambda L, o: L.multinomial(L.ones(3), 4, True, out=o)),
        r"^multinomial expects Long tensor out, got: Int$",
    ),
    "multinomial float out": (
        _with_out(lambda L: L.empty(4), lambda L, o: L.multinomial(L.ones(3), 4, True, out=o)),
        r"^multinomial expects Long tensor out, got: Float$",
    ),
    "multinomial bad input before out": (
        _with_out(
            lambda L: L.empty(4, dtype=L.int32), lambda L, o: L.multinomial(L.ones(3, dtype=L.int64), 4, True, out=o)
        ),
        r"^multinomial only supports floating-point dtypes for input, got: Long$",
    ),
    "multinomial out before count": (
        _with_out(lambda L: L.empty(4, dtype=L.int32), lambda L, o: L.multinomial(L.ones(3), 0, True, out=o)),
        r"^multinomial expects Long tensor out, got: Int$",
    ),
    "multinomial resized without warning": (
        _with_out(lambda L: L.empty(7, dtype=L.int64), lambda L, o: L.multinomial(L.ones(2, 3), 2, out=o)),
        None,
    ),
    "multinomial input requires grad": (
        _with_out(
            lambda L: L.empty(4, dtype=L.int64),
            lambda L, o: L.multinomial(L.ones(3, requires_grad=True), 4, True, out=o),
        ),
        None,
    ),
    "normal tensor/tensor float64 out": (
        _with_out(lambda L: L.empty(3, dtype=L.float64), lambda L, o: L.normal(L.zeros(3), L.ones(3), out=o)),
        None,
    ),
    "normal tensor/number float64 out": (
        _with_out(lambda L: L.empty(3, dtype=L.float64), lambda L, o: L.normal(L.zeros(3), 1.0, out=o)),
        None,
    ),
    "normal number/tensor float64 out": (
        _with_out(lambda L: L.empty(3, dtype=L.float64), lambda L, o: L.normal(0.0, L.ones(3), out=o)),
        None,
    ),
    "normal number/number resized without warning": (
        _with_out(lambda L: L.empty(5), lambda L, o: L.normal(0.0, 1.0, (2, 3), out=o)),
        None,
    ),
    "normal tensor/tensor resized with warning": (
        _with_out(lambda L: L.empty(3), lambda L, o: L.normal(L.zeros(3, 1), L.ones(2), out=o)),
        None,
    ),
    "normal number/tensor resized with warning": (
        _with_out(lambda L: L.empty(5), lambda L, o: L.normal(0.0, L.ones(3), out=o)),
        None,
    ),
    "normal tensor/number mean broadcast with out": (
        _with_out(lambda L: L.empty(2, 3), lambda L, o: L.normal(L.zeros(3), 1.0, out=o)),
        None,
    ),
    "normal tensor/number out of another shape": (
        _with_out(lambda L: L.empty(5), lambda L, o: L.normal(L.zeros(3), 1.0, out=o)),
        r"^The size of tensor a \(3\) must match the size of tensor b \(5\) at non-singleton dimension 0$",
    ),
    "normal integer out": (
        _with_out(lambda L: L.empty(3, dtype=L.int64), lambda L, o: L.normal(L.zeros(3), 1.0, out=o)),
        r"^\"normal_kernel_cpu\" not implemented for 'Long'$",
    ),
    "normal number/number integer out": (
        _with_out(lambda L: L.empty(3, dtype=L.int64), lambda L, o: L.normal(0.0, 1.0, (3,), out=o)),
        r"^\"normal_kernel_cpu\" not implemented for 'Long'$",
    ),
    "normal number/tensor bool out": (
        _with_out(lambda L: L.empty(3, dtype=L.bool), lambda L, o: L.normal(0.0, L.ones(3), out=o)),
        r"^\"normal_kernel_cpu\" not implemented for 'Bool'$",
    ),
    "normal negative std before out dtype": (
        _with_out(lambda L: L.empty(3, dtype=L.int64), lambda L, o: L.normal(L.zeros(3), -L.ones(3), out=o)),
        r"^normal expects all elements of std >= 0.0$",
    ),
    "normal shapes before out dtype": (
        _with_out(lambda L: L.empty(5, dtype=L.int64), lambda L, o: L.normal(L.zeros(3), L.ones(2), out=o)),
        r"^The size of tensor a \(3\) must match the size of tensor b \(2\) at non-singleton dimension 0$",
    ),
    "normal complex std": (
        _with_out(lambda L: L.empty(3), lambda L, o: L.normal(L.zeros(3), L.ones(3, dtype=L.complex64), out=o)),
        r"^normal expects standard deviation to be non-complex$",
    ),
    "normal complex mean, float out": (
        _with_out(lambda L: L.empty(3), lambda L, o: L.normal(L.zeros(3, dtype=L.complex64), 1.0, out=o)),
        r"^result type ComplexFloat can't be cast to the desired output type Float$",
    ),
    "normal integer mean and std": (
        _with_out(
            lambda L: L.empty(3), lambda L, o: L.normal(L.zeros(3, dtype=L.int64), L.ones(3, dtype=L.int64), out=o)
        ),
        None,
    ),
    "normal mean requires grad": (
        _with_out(lambda L: L.empty(3), lambda L, o: L.normal(L.zeros(3, requires_grad=True), 1.0, out=o)),
        r"^normal\(\): functions with out=\.\.\. arguments don't support automatic differentiation, but one of "
        r"the arguments requires grad\.$",
    ),
    "normal out requires grad": (
        _with_out(lambda L: L.empty(3, requires_grad=True), lambda L, o: L.normal(0.0, L.ones(3), out=o)),
        r"^normal\(\): functions with out=\.\.\. arguments don't support automatic differentiation",
    ),
    "normal number/number out requires grad": (
        _with_out(lambda L: L.empty(3, requires_grad=True), lambda L, o: L.normal(0.0, 1.0, (3,), out=o)),
        r"^aten::normal\(\): functions with out=\.\.\. arguments don't support automatic differentiation",
    ),
    "normal number/number dtype= of another dtype": (
        _with_out(lambda L: L.empty(3), lambda L, o: L.normal(0.0, 1.0, (3,), dtype=L.float64, out=o)),
        r"^dtype Double does not match dtype of out parameter \(Float\)$",
    ),
    "normal number/number without size": (
        _with_out(lambda L: L.empty(3), lambda L, o: L.normal(0.0, 1.0, out=o)),
        r"^normal\(\) received an invalid combination of arguments - got \(float, float",
    ),
    "normal tensor with a size": (
        _with_out(lambda L: L.empty(3), lambda L, o: L.normal(L.zeros(3), 1.0, (3,), out=o)),
        r"^normal\(\)",
    ),
}


def _outcome(lib: Any, call: Call, pattern: str | None) -> tuple[Any, ...]:
    """What ``call`` did on ``lib``: the exception's type (its message checked against
    ``pattern``), or the result's dtype and shape, whether it is out, and whether a resize
    warned."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result, out = call(lib)
        except Exception as exc:
            assert pattern is not None, f"{lib.__name__}: {exc!r}"
            assert re.search(pattern, str(exc)), f"{lib.__name__}: {exc}"
            return (type(exc).__name__,)
    assert pattern is None, f"{lib.__name__} raised nothing"
    resized = any("was resized" in str(w.message) for w in caught)
    return str(out.dtype).split(".")[-1], tuple(out.shape), result is out, out.requires_grad, resized


@pytest.mark.parametrize("name", CASES)
def test_out_matches_torch(name: str) -> None:
    torch = pytest.importorskip("torch")
    call, pattern = CASES[name]
    assert _outcome(ctxgrad, call, pattern) == _outcome(torch, call, pattern)


def test_bernoulli_out_values_are_zeros_and_ones_like_torch() -> None:
    torch = pytest.importorskip("torch")
    for lib in (ctxgrad, torch):
        out = lib.empty(4, dtype=lib.int64)
        lib.bernoulli(lib.tensor([0.0, 1.0, 1.0, 0.0]), out=out)
        assert out.tolist() == [0, 1, 1, 0]


def test_normal_number_overload_out_requires_grad_like_torch() -> None:
    torch = pytest.importorskip("torch")
    for lib in (ctxgrad, torch):
        out = lib.empty(3)
        lib.normal(0.0, 1.0, (3,), requires_grad=True, out=out)
        assert out.requires_grad


@pytest.mark.parametrize(
    "call",
    [
        lambda L: L.tensor([0.2, 0.8]).bernoulli(out=L.empty(2)),
        lambda L: L.tensor([0.2, 0.8]).multinomial(2, True, out=L.empty(2, dtype=L.int64)),
    ],
    ids=["bernoulli", "multinomial"],
)
def test_the_methods_take_no_out_as_torch_s(call: Call) -> None:
    """Only the functions take ``out=``: torch's ``Tensor.bernoulli`` and ``Tensor.multinomial``
    refuse it with a TypeError that names the method (in words of their own)."""
    torch = pytest.importorskip("torch")
    for lib in (ctxgrad, torch):
        with pytest.raises(TypeError, match=r"^(bernoulli|multinomial)\(\) .*\bout\b"):
            call(lib)

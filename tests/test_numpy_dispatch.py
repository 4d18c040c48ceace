"""NumPy's ufuncs and array functions on tensors run the ctxgrad op (``ctxgrad/_numpy.py``).

Each mapped ufunc and function: the value and dtype against NumPy on the same arrays, the
result a Tensor whose graph is kept (gradients against torch for the ufuncs, against central
differences with ``gradcheck`` for the functions); mixed ndarray/tensor operands give what the
Tensor's operators give; and the refusals (``out=``, the ufunc methods, unmapped functions,
``np.asarray`` of a tensor that requires grad) raise the documented errors.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ctxgrad
from ctxgrad._numpy import FUNCTIONS, UFUNCS
from ctxgrad.autograd import gradcheck

RNG = np.random.default_rng(0)


def _values(domain: str, shape: tuple[int, ...] = (2, 3), dtype: Any = np.float64) -> np.ndarray:
    lo, hi = {"any": (-2.0, 2.0), "pos": (0.5, 3.0), "unit": (-0.9, 0.9), "gt1": (1.2, 3.0)}[domain]
    return RNG.uniform(lo, hi, shape).astype(dtype)


def _plain(result: Any) -> np.ndarray:
    """A tensor result's values (detached), as an array."""
    assert isinstance(result, ctxgrad.Tensor), type(result)
    return result.detach().numpy()


# --------------------------------------------------------------------------- ufuncs

#: numpy ufunc -> (torch function of the same maths, or None; the inputs' domain)
UNARY: dict[str, tuple[str | None, str]] = {
    "negative": ("neg", "any"),
    "positive": ("positive", "any"),
    "exp": ("exp", "any"),
    "exp2": ("exp2", "any"),
    "expm1": ("expm1", "any"),
    "log": ("log", "pos"),
    "log2": ("log2", "pos"),
    "log10": ("log10", "pos"),
    "log1p": ("log1p", "pos"),
    "sqrt": ("sqrt", "pos"),
    "square": ("square", "any"),
    "reciprocal": ("reciprocal", "pos"),
    "sin": ("sin", "any"),
    "cos": ("cos", "any"),
    "tan": ("tan", "unit"),
    "arcsin": ("asin", "unit"),
    "arccos": ("acos", "unit"),
    "arctan": ("atan", "any"),
    "sinh": ("sinh", "any"),
    "cosh": ("cosh", "any"),
    "tanh": ("tanh", "any"),
    "absolute": ("abs", "any"),
    "fabs": ("abs", "any"),
    "sign": ("sign", "any"),
    "floor": ("floor", "any"),
    "ceil": ("ceil", "any"),
    "trunc": ("trunc", "any"),
    "rint": ("round", "any"),
    "arccosh": ("acosh", "gt1"),
    "arcsinh": ("asinh", "any"),
    "arctanh": ("atanh", "unit"),
    "deg2rad": ("deg2rad", "any"),
    "radians": ("deg2rad", "any"),
    "rad2deg": ("rad2deg", "any"),
    "degrees": ("rad2deg", "any"),
}

#: numpy ufunc -> (torch function, the inputs' domain); both operands are float tensors
BINARY: dict[str, tuple[str, str]] = {
    "add": ("add", "any"),
    "subtract": ("sub", "any"),
    "multiply": ("mul", "any"),
    "divide": ("div", "pos"),
    "power": ("pow", "pos"),
    "floor_divide": ("floor_divide", "pos"),
    "remainder": ("remainder", "pos"),
    "fmod": ("fmod", "pos"),
    "maximum": ("maximum", "any"),
    "minimum": ("minimum", "any"),
    "arctan2": ("atan2", "any"),
    "hypot": ("hypot", "any"),
    "logaddexp": ("logaddexp", "any"),
    "logaddexp2": ("logaddexp2", "any"),
    "copysign": ("copysign", "any"),
    "fmax": ("fmax", "any"),
    "fmin": ("fmin", "any"),
    "float_power": ("float_power", "pos"),
}

COMPARISONS = ["equal", "not_equal", "less", "less_equal", "greater", "greater_equal"]
LOGICAL = ["logical_and", "logical_or", "logical_xor"]
BITWISE = ["bitwise_and", "bitwise_or", "bitwise_xor"]


def test_every_mapped_ufunc_is_tested_here() -> None:
    tested = {*UNARY, *BINARY, *COMPARISONS, *LOGICAL, *BITWISE}
    tested |= {"matmul", "logical_not", "isnan", "isinf", "isfinite", "invert", "signbit", "ldexp", "gcd", "lcm"}
    assert tested == set(UFUNCS)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name", list(UNARY))
def test_unary_ufunc_values_match_numpy(name: str, dtype: Any) -> None:
    ufunc = getattr(np, name)
    a = _values(UNARY[name][1], dtype=dtype)
    got = ufunc(ctxgrad.tensor(a))
    expected = ufunc(a)
    assert _plain(got).dtype == expected.dtype
    np.testing.assert_allclose(_plain(got), expected, rtol=1e-6 if dtype == np.float32 else 1e-12)


@pytest.mark.parametrize("name", list(UNARY))
def test_unary_ufunc_gradient_matches_torch(name: str) -> None:
    torch = pytest.importorskip("torch")
    a = _values(UNARY[name][1])
    x = ctxgrad.tensor(a, requires_grad=True)
    y = getattr(np, name)(x)
    assert isinstance(y, ctxgrad.Tensor)
    (y * ctxgrad.tensor(np.arange(1.0, 7.0).reshape(2, 3))).sum().backward()
    tx = torch.tensor(a, requires_grad=True)
    (getattr(torch, UNARY[name][0])(tx) * torch.arange(1.0, 7.0, dtype=torch.float64).reshape(2, 3)).sum().backward()
    assert x.grad is not None
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_integer_exponent_and_integer_ufuncs_run_the_ctxgrad_ops() -> None:
    x = ctxgrad.tensor([0.5, -1.0], requires_grad=True)
    out = np.ldexp(x, np.array([3, -1]))
    assert isinstance(out, ctxgrad.Tensor) and out.requires_grad
    np.testing.assert_array_equal(_plain(out), np.ldexp(np.array([0.5, -1.0]), np.array([3, -1])))
    np.testing.assert_array_equal(_plain(np.signbit(x)), [False, True])
    i = ctxgrad.tensor([12, -18, 7])
    np.testing.assert_array_equal(_plain(np.gcd(i, 8)), np.gcd([12, -18, 7], 8))
    np.testing.assert_array_equal(_plain(np.lcm(i, np.array([8, 4, 0]))), np.lcm([12, -18, 7], [8, 4, 0]))


def test_the_ufunc_runs_the_ctxgrad_op() -> None:
    x = ctxgrad.tensor([0.5, 1.0], requires_grad=True)
    assert np.exp(x).grad_fn.name() == "ExpBackward0"
    assert np.arcsin(x * 0.5).grad_fn.name() == "AsinBackward0"
    assert np.add(x, 1).grad_fn.name() == "AddBackward0"
    assert np.positive(x) is x  # as +x and torch.positive


def test_the_issue_example_np_exp_keeps_the_graph() -> None:
    x = ctxgrad.tensor([0.0, 1.0, 2.0], requires_grad=True)
    np.exp(x).sum().backward()
    assert x.grad is not None
    np.testing.assert_allclose(x.grad.numpy(), np.exp([0.0, 1.0, 2.0]), rtol=1e-6)


@pytest.mark.parametrize("name", list(BINARY))
def test_binary_ufunc_values_and_gradients(name: str) -> None:
    torch = pytest.importorskip("torch")
    ufunc = getattr(np, name)
    domain = BINARY[name][1]
    a, b = _values(domain), _values(domain, (3,))
    x, y = ctxgrad.tensor(a, requires_grad=True), ctxgrad.tensor(b, requires_grad=True)
    got = ufunc(x, y)
    assert _plain(got).dtype == ufunc(a, b).dtype
    np.testing.assert_allclose(_plain(got), ufunc(a, b), rtol=1e-12)
    if name in ("floor_divide",):
        return  # no gradient in torch either (zero almost everywhere)
    got.sum().backward()
    tx, ty = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    getattr(torch, BINARY[name][0])(tx, ty).sum().backward()
    for mine, theirs in ((x, tx), (y, ty)):
        assert mine.grad is not None
        np.testing.assert_allclose(mine.grad.numpy(), theirs.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("name", list(BINARY))
@pytest.mark.parametrize("side", ["tensor-array", "array-tensor", "tensor-number", "number-tensor"])
def test_binary_ufunc_with_an_array_or_a_number_on_either_side(name: str, side: str) -> None:
    ufunc = getattr(np, name)
    domain = BINARY[name][1]
    a, b = _values(domain), _values(domain, (3,))
    if side.endswith("number"):
        b = np.float64(1.5)
    if side.startswith("number"):
        a = np.float64(1.5)
    first = ctxgrad.tensor(a, requires_grad=True) if side.startswith("tensor") else a
    second = ctxgrad.tensor(b, requires_grad=True) if side.endswith("tensor") else b
    if side.endswith("number"):
        second = 1.5
    if side.startswith("number"):
        first = 1.5
    got = ufunc(first, second)
    np.testing.assert_allclose(_plain(got), ufunc(a, b), rtol=1e-12)
    assert got.requires_grad  # floor_divide too, as in torch (its grad_fn refuses backward)


def test_matmul_values_and_gradients() -> None:
    torch = pytest.importorskip("torch")
    a, b = _values("any", (2, 3)), _values("any", (3, 4))
    x, y = ctxgrad.tensor(a, requires_grad=True), ctxgrad.tensor(b, requires_grad=True)
    got = np.matmul(x, y)
    np.testing.assert_allclose(_plain(got), a @ b, rtol=1e-12)
    got.sum().backward()
    tx, ty = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    (tx @ ty).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(y.grad.numpy(), ty.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(_plain(a @ x.detach()[0]), a @ a[0])  # an ndarray on the left


@pytest.mark.parametrize("name", COMPARISONS)
def test_comparison_ufuncs(name: str) -> None:
    ufunc = getattr(np, name)
    a = np.array([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0]])
    b = np.array([2.0, 2.0, 2.0])
    for first, second in ((ctxgrad.tensor(a), ctxgrad.tensor(b)), (a, ctxgrad.tensor(b)), (ctxgrad.tensor(a), b)):
        got = ufunc(first, second)
        assert _plain(got).dtype == np.bool_
        np.testing.assert_array_equal(_plain(got), ufunc(a, b))
    np.testing.assert_array_equal(_plain(ufunc(ctxgrad.tensor(a), 2.0)), ufunc(a, 2.0))
    np.testing.assert_array_equal(_plain(ufunc(2.0, ctxgrad.tensor(a))), ufunc(2.0, a))


@pytest.mark.parametrize("name", LOGICAL)
def test_logical_ufuncs(name: str) -> None:
    ufunc = getattr(np, name)
    a = np.array([True, True, False, False])
    b = np.array([True, False, True, False])
    np.testing.assert_array_equal(_plain(ufunc(ctxgrad.tensor(a), ctxgrad.tensor(b))), ufunc(a, b))
    np.testing.assert_array_equal(_plain(ufunc(a, ctxgrad.tensor(b))), ufunc(a, b))
    np.testing.assert_array_equal(_plain(np.logical_not(ctxgrad.tensor(a))), np.logical_not(a))


@pytest.mark.parametrize("name", BITWISE)
def test_bitwise_ufuncs(name: str) -> None:
    ufunc = getattr(np, name)
    a, b = np.array([12, 10, 7]), np.array([10, 6, 1])
    got = ufunc(ctxgrad.tensor(a), ctxgrad.tensor(b))
    assert _plain(got).dtype == np.int64
    np.testing.assert_array_equal(_plain(got), ufunc(a, b))
    np.testing.assert_array_equal(_plain(np.invert(ctxgrad.tensor(a))), np.invert(a))


@pytest.mark.parametrize("name", ["isnan", "isinf", "isfinite"])
def test_tests_of_floats(name: str) -> None:
    a = np.array([1.0, np.nan, np.inf, -np.inf])
    np.testing.assert_array_equal(_plain(getattr(np, name)(ctxgrad.tensor(a))), getattr(np, name)(a))


def test_a_ufunc_result_dtype_is_the_ctxgrad_ops() -> None:
    # torch's promotion, not NumPy's: int / int is the default float dtype, a NumPy scalar a number
    i = ctxgrad.tensor([1, 2])
    assert np.divide(i, i).dtype == ctxgrad.float32
    assert np.multiply(ctxgrad.tensor([1.0], dtype=ctxgrad.float32), np.float64(2.0)).dtype == ctxgrad.float32


# --------------------------------------------------------------------------- mixed operands


OPERATORS: dict[str, Callable[[Any, Any], Any]] = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
    "/": lambda a, b: a / b,
    "**": lambda a, b: a**b,
    "//": lambda a, b: a // b,
    "%": lambda a, b: a % b,
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "==": lambda a, b: a == b,
    "!=": lambda a, b: a != b,
}

REFLECTED: dict[str, Callable[[Any, Any], Any]] = {
    "+": lambda t, a: type(t).__radd__(t, a),
    "-": lambda t, a: type(t).__rsub__(t, a),
    "*": lambda t, a: type(t).__rmul__(t, a),
    "/": lambda t, a: type(t).__rtruediv__(t, a),
    "**": lambda t, a: type(t).__rpow__(t, a),
    "//": lambda t, a: type(t).__rfloordiv__(t, a),
    "%": lambda t, a: type(t).__rmod__(t, a),
    "<": lambda t, a: type(t).__gt__(t, a),
    "<=": lambda t, a: type(t).__ge__(t, a),
    ">": lambda t, a: type(t).__lt__(t, a),
    ">=": lambda t, a: type(t).__le__(t, a),
    "==": lambda t, a: type(t).__eq__(t, a),
    "!=": lambda t, a: type(t).__ne__(t, a),
}


@pytest.mark.parametrize("array_dtype", [np.float64, np.float32, np.int64])
@pytest.mark.parametrize("op", list(OPERATORS))
def test_ndarray_operator_tensor_is_the_tensors_reflected_operator(op: str, array_dtype: Any) -> None:
    a = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]).astype(array_dtype)
    t = ctxgrad.tensor([1.5, 2.0, 2.5], requires_grad=True)
    got = OPERATORS[op](a, t)  # NumPy calls the ufunc, which Tensor.__array_ufunc__ runs
    expected = REFLECTED[op](t, a)
    assert isinstance(got, ctxgrad.Tensor)
    assert got.dtype == expected.dtype
    assert got.requires_grad == expected.requires_grad
    assert (got.grad_fn is None) == (expected.grad_fn is None)
    if got.grad_fn is not None:
        assert got.grad_fn.name() == expected.grad_fn.name()
    np.testing.assert_array_equal(_plain(got), _plain(expected))
    np.testing.assert_allclose(_plain(got), OPERATORS[op](a, t.detach().numpy()), rtol=1e-6)


def test_ndarray_times_tensor_flows_gradient_to_the_tensor() -> None:
    a = np.array([2.0, 3.0])
    t = ctxgrad.tensor([1.0, 1.0], requires_grad=True)
    (a * t).sum().backward()
    assert t.grad is not None
    np.testing.assert_array_equal(t.grad.numpy(), [2.0, 3.0])


def test_numpy_scalars_on_the_left_act_as_numbers() -> None:
    t = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    for scalar in (np.float64(2.0), np.int64(2), np.float32(2.0)):
        got = scalar * t
        assert isinstance(got, ctxgrad.Tensor) and got.dtype == ctxgrad.float32 and got.requires_grad
        np.testing.assert_array_equal(_plain(got), [2.0, 4.0])


# --------------------------------------------------------------------------- errors of ufuncs


def test_out_is_refused_naming_the_ctxgrad_spelling() -> None:
    t = ctxgrad.tensor([1.0, 2.0])
    with pytest.raises(TypeError, match=r"ctxgrad tensors do not support NumPy's out=.*ctxgrad\.exp\(t\)"):
        np.exp(t, out=ctxgrad.zeros(2))
    with pytest.raises(TypeError, match=r"do not support NumPy's out=.*ctxgrad\.add\(a, b\)"):
        np.add(t, 1, out=np.zeros(2))


def test_in_place_operator_on_an_ndarray_is_refused() -> None:
    a = np.zeros(2)
    with pytest.raises(TypeError, match=r"array \+= tensor"):
        a += ctxgrad.tensor([1.0, 2.0])
    np.testing.assert_array_equal(a, [0.0, 0.0])


@pytest.mark.parametrize(
    ("call", "spelling"),
    [
        (lambda t: np.add.reduce(t), "ctxgrad.sum"),
        (lambda t: np.multiply.reduce(t), "ctxgrad.prod"),
        (lambda t: np.maximum.reduce(t), "ctxgrad.amax"),
        (lambda t: np.add.accumulate(t), "ctxgrad.cumsum"),
        (lambda t: np.multiply.accumulate(t), "ctxgrad.cumprod"),
        (lambda t: np.multiply.outer(t, t), "ctxgrad.outer"),
    ],
)
def test_ufunc_methods_name_the_ctxgrad_spelling(call: Callable[[Any], Any], spelling: str) -> None:
    with pytest.raises(TypeError, match=rf"is not dispatched on ctxgrad tensors; use {spelling}\("):
        call(ctxgrad.tensor([1.0, 2.0]))


@pytest.mark.parametrize(
    "call", [lambda t: np.add.outer(t, t), lambda t: np.add.at(t, [0], 1.0), lambda t: np.add.reduceat(t, [0])]
)
def test_ufunc_methods_without_an_equivalent_say_so(call: Callable[[Any], Any]) -> None:
    with pytest.raises(
        TypeError, match=r"ctxgrad has no equivalent of numpy\.add\.\w+ on tensors.*detach\(\)\.numpy\(\)"
    ):
        call(ctxgrad.tensor([1.0, 2.0]))


def test_an_unmapped_ufunc_says_how_to_leave_the_graph() -> None:
    with pytest.raises(
        TypeError, match=r"ctxgrad has no op for numpy\.cbrt; .*t\.detach\(\)\.numpy\(\) to leave the graph"
    ):
        np.cbrt(ctxgrad.tensor([1.0]))


def test_ufunc_keywords_are_refused() -> None:
    with pytest.raises(TypeError, match=r"numpy\.exp on ctxgrad tensors takes no keyword arguments \(got dtype\)"):
        np.exp(ctxgrad.tensor([1.0]), dtype=np.float64)


def test_np_asarray_still_refuses_a_tensor_that_requires_grad() -> None:
    t = ctxgrad.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on Tensor that requires grad"):
        np.asarray(t)
    with pytest.raises(RuntimeError, match=r"Can't call numpy\(\) on Tensor that requires grad"):
        np.array(t)
    np.testing.assert_array_equal(np.asarray(t.detach()), [1.0])


# --------------------------------------------------------------------------- array functions

A = RNG.uniform(-2.0, 2.0, (3, 4))
A_POS = RNG.uniform(0.5, 2.0, (3, 4))
V = RNG.permutation(np.arange(6.0)) - 2.5  # distinct values: a unique sort order, max, argmax
B = RNG.uniform(-2.0, 2.0, (4, 2))
C3 = RNG.uniform(-2.0, 2.0, (2, 3, 4))
SQUARE = RNG.uniform(-1.0, 1.0, (3, 3)) + 3 * np.eye(3)

#: (id, call, the arrays it is called on); each call takes NumPy's arguments.  ``grad``: the
#: result is differentiable in the float inputs (checked with gradcheck).
FUNCTION_CASES: list[tuple[str, Callable[..., Any], tuple[np.ndarray, ...], bool]] = [
    ("sum", lambda a: np.sum(a), (A,), True),
    ("sum-axis", lambda a: np.sum(a, axis=0), (A,), True),
    ("sum-axes-keepdims", lambda a: np.sum(a, axis=(0, 1), keepdims=True), (A,), True),
    ("sum-ints", lambda a: np.sum(a, axis=1), (np.arange(12).reshape(3, 4),), False),
    ("mean", lambda a: np.mean(a), (A,), True),
    ("mean-axis-keepdims", lambda a: np.mean(a, axis=1, keepdims=True), (A,), True),
    ("mean-ints", lambda a: np.mean(a, axis=0), (np.arange(12).reshape(3, 4),), False),
    ("prod", lambda a: np.prod(a), (A_POS,), True),
    ("prod-axis", lambda a: np.prod(a, axis=1), (A_POS,), True),
    ("prod-axes-keepdims", lambda a: np.prod(a, axis=(0, 1), keepdims=True), (A_POS,), True),
    ("prod-all-keepdims", lambda a: np.prod(a, keepdims=True), (A_POS,), True),
    ("std", lambda a: np.std(a), (A,), True),
    ("std-ddof", lambda a: np.std(a, axis=0, ddof=1), (A,), True),
    ("var", lambda a: np.var(a), (A,), True),
    ("var-axis-keepdims", lambda a: np.var(a, axis=1, keepdims=True), (A,), True),
    ("max", lambda a: np.max(a), (A,), True),
    ("amax-axis", lambda a: np.amax(a, axis=1), (A,), True),
    ("min-axis-keepdims", lambda a: np.min(a, axis=0, keepdims=True), (A,), True),
    ("amin", lambda a: np.amin(a), (A,), True),
    ("argmax", lambda a: np.argmax(a), (V,), False),
    ("argmax-axis", lambda a: np.argmax(a, axis=1), (V.reshape(2, 3),), False),
    ("argmin-axis", lambda a: np.argmin(a, axis=0), (V.reshape(2, 3),), False),
    ("cumsum", lambda a: np.cumsum(a), (A,), True),
    ("cumsum-axis", lambda a: np.cumsum(a, axis=1), (A,), True),
    ("cumprod-axis", lambda a: np.cumprod(a, axis=0), (A_POS,), True),
    ("all", lambda a: np.all(a), (A > 0,), False),
    ("any-axis", lambda a: np.any(a, axis=1), (A > 1,), False),
    # (the handlers made from the rows with numpy_dims: NumPy's signature bound, then the op)
    ("argmax-keepdims", lambda a: np.argmax(a, keepdims=True), (V.reshape(2, 3),), False),
    ("cumprod-positional-dtype", lambda a: np.cumprod(a, None, np.float32), (A_POS,), False),
    ("nansum", lambda a: np.nansum(a), (np.array([1.0, np.nan, 2.5]),), False),
    ("nansum-axis-keepdims", lambda a: np.nansum(a, axis=1, keepdims=True), (A,), True),
    ("nanmean-axis", lambda a: np.nanmean(a, axis=0), (A,), True),
    ("nanmean-ints", lambda a: np.nanmean(a), (np.arange(12).reshape(3, 4),), False),
    ("count_nonzero", lambda a: np.count_nonzero(a), (np.array([[0.0, 1.0], [2.0, 0.0]]),), False),
    ("count_nonzero-axis", lambda a: np.count_nonzero(a, axis=1), (np.array([[0.0, 1.0], [2.0, 3.0]]),), False),
    ("concatenate", lambda a, b: np.concatenate([a, b.T]), (A, B), True),
    ("concatenate-axis", lambda a, b: np.concatenate((a, b.T), axis=1), (A[:2], B), True),
    ("concatenate-none", lambda a, b: np.concatenate([a, b], axis=None), (A, B), True),
    ("stack", lambda a, b: np.stack([a, b[:3]], axis=1), (A[:, :2], B), True),
    ("vstack", lambda a, b: np.vstack([a, b.T]), (A, B), True),
    ("hstack", lambda a, b: np.hstack([a.T, b]), (A, B), True),
    ("reshape", lambda a: np.reshape(a, (2, 6)), (A,), True),
    ("reshape-minus-one", lambda a: np.reshape(a, -1), (A,), True),
    ("ravel", lambda a: np.ravel(a), (A,), True),
    ("transpose", lambda a: np.transpose(a), (C3,), True),
    ("transpose-axes", lambda a: np.transpose(a, (1, 0, 2)), (C3,), True),
    ("squeeze", lambda a: np.squeeze(a), (A.reshape(3, 1, 4, 1),), True),
    ("squeeze-axis", lambda a: np.squeeze(a, axis=1), (A.reshape(3, 1, 4, 1),), True),
    ("expand_dims", lambda a: np.expand_dims(a, 1), (A,), True),
    ("expand_dims-axes", lambda a: np.expand_dims(a, (0, -1)), (A,), True),
    ("where", lambda c, a, b: np.where(c > 0, a, b), (A, A_POS, A), True),
    ("where-number", lambda a: np.where(a > 0, a, 0.0), (A,), True),
    ("dot-vectors", lambda a, b: np.dot(a, b), (V, V[::-1].copy()), True),
    ("dot-matrices", lambda a, b: np.dot(a, b), (A, B), True),
    ("dot-nd", lambda a, b: np.dot(a, b), (C3, B), True),
    ("clip", lambda a: np.clip(a, -0.5, 0.5), (A,), True),
    ("clip-min-only", lambda a: np.clip(a, -0.5, None), (A,), True),
    ("flip", lambda a: np.flip(a), (A,), True),
    ("flip-axis", lambda a: np.flip(a, axis=1), (A,), True),
    ("tile", lambda a: np.tile(a, (2, 1)), (A,), True),
    ("tile-int", lambda a: np.tile(a, 2), (A,), True),
    ("einsum", lambda a, b: np.einsum("ij,jk->ik", a, b), (A, B), True),
    ("einsum-trace", lambda a: np.einsum("ii", a), (SQUARE,), True),
    ("tensordot", lambda a, b: np.tensordot(a, b, axes=1), (A, B), True),
    ("tensordot-pairs", lambda a, b: np.tensordot(a, b, axes=([1], [0])), (A, B), True),
    ("outer", lambda a, b: np.outer(a, b), (V, A[0]), True),
    ("sort", lambda a: np.sort(a), (V.reshape(2, 3),), True),
    ("sort-axis-none", lambda a: np.sort(a, axis=None), (V.reshape(2, 3),), True),
    ("argsort", lambda a: np.argsort(a), (V.reshape(2, 3),), False),
    ("argsort-axis", lambda a: np.argsort(a, axis=0, kind="stable"), (V.reshape(2, 3),), False),
    ("diag-vector", lambda a: np.diag(a), (V,), True),
    ("diag-matrix-k", lambda a: np.diag(a, k=1), (A,), True),
    ("diagonal", lambda a: np.diagonal(a, offset=1), (A,), True),
    ("tril", lambda a: np.tril(a, k=-1), (A,), True),
    ("triu", lambda a: np.triu(a), (A,), True),
    ("roll", lambda a: np.roll(a, 2, axis=1), (A,), True),
    ("broadcast_to", lambda a: np.broadcast_to(a, (2, 3, 4)), (A,), True),
    ("swapaxes", lambda a: np.swapaxes(a, 0, 2), (C3,), True),
    ("moveaxis", lambda a: np.moveaxis(a, 0, -1), (C3,), True),
    ("take_along_axis", lambda a, i: np.take_along_axis(a, i, axis=1), (A, np.argsort(A, axis=1)), True),
    ("round", lambda a: np.round(a), (A,), True),
    ("around", lambda a: np.around(a), (A,), True),
    ("copy", lambda a: np.copy(a), (A,), True),
    ("zeros_like", lambda a: np.zeros_like(a), (A,), False),
    ("ones_like", lambda a: np.ones_like(a, dtype=np.float32), (A,), False),
    ("empty_like-shape", lambda a: np.empty_like(a, shape=(2, 2)).shape, (A,), False),
    ("full_like", lambda a: np.full_like(a, 7.0), (A,), False),
    ("isclose", lambda a, b: np.isclose(a, b), (A, A + 1e-9), False),
    ("norm", lambda a: np.linalg.norm(a), (A,), True),
    ("norm-axis", lambda a: np.linalg.norm(a, axis=1), (A,), True),
    ("norm-ord-1", lambda a: np.linalg.norm(a, ord=1, axis=0, keepdims=True), (A,), True),
    ("det", lambda a: np.linalg.det(a), (SQUARE,), True),
    ("inv", lambda a: np.linalg.inv(a), (SQUARE,), True),
]


@pytest.mark.parametrize(
    ("call", "arrays", "grad"), [c[1:] for c in FUNCTION_CASES], ids=[c[0] for c in FUNCTION_CASES]
)
def test_array_function_values_match_numpy(
    call: Callable[..., Any], arrays: tuple[np.ndarray, ...], grad: bool
) -> None:
    expected = call(*arrays)
    got = call(*(ctxgrad.tensor(a) for a in arrays))
    if isinstance(expected, tuple):  # a shape
        assert got == expected
        return
    got_values = _plain(got)
    assert got_values.shape == np.shape(expected)
    assert got_values.dtype == np.asarray(expected).dtype, (got_values.dtype, np.asarray(expected).dtype)
    if "empty" not in str(call):
        np.testing.assert_allclose(got_values, expected, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize(
    ("call", "arrays"), [c[1:3] for c in FUNCTION_CASES if c[3]], ids=[c[0] for c in FUNCTION_CASES if c[3]]
)
def test_array_function_gradients(call: Callable[..., Any], arrays: tuple[np.ndarray, ...]) -> None:
    inputs = [ctxgrad.tensor(a, requires_grad=a.dtype.kind == "f") for a in arrays]
    assert call(*inputs).requires_grad
    assert gradcheck(lambda *xs: call(*xs), inputs)


def test_every_array_function_handler_is_tested_here() -> None:
    tested = {c[0].split("-")[0] for c in FUNCTION_CASES}
    names = {func.__name__ for func in FUNCTIONS}
    elsewhere = {"shape", "ndim", "size", "allclose", "array_equal", "nonzero", "argwhere"}
    untested = names - tested - elsewhere - {"concat", "permute_dims", "row_stack"}
    assert not untested


def test_sum_and_std_gradients_match_torch() -> None:
    torch = pytest.importorskip("torch")
    x = ctxgrad.tensor(A, requires_grad=True)
    (np.sum(np.exp(x), axis=0) * np.std(x, axis=1).sum()).sum().backward()
    tx = torch.tensor(A, requires_grad=True)
    (torch.sum(torch.exp(tx), dim=0) * torch.std(tx, dim=1, correction=0).sum()).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-10)


def test_std_uses_numpys_ddof_default_not_torchs_correction() -> None:
    t = ctxgrad.tensor(V)
    np.testing.assert_allclose(_plain(np.std(t)), np.std(V))
    assert not np.isclose(float(np.std(t)), float(t.std()))  # t.std() is torch's: correction=1
    np.testing.assert_allclose(_plain(np.var(t, ddof=1)), np.var(V, ddof=1))


def test_shape_ndim_size() -> None:
    t = ctxgrad.tensor(C3, requires_grad=True)
    assert np.shape(t) == (2, 3, 4) and type(np.shape(t)) is tuple
    assert np.ndim(t) == 3
    assert np.size(t) == 24 and np.size(t, 1) == 3


def test_allclose_returns_a_bool() -> None:
    assert np.allclose(ctxgrad.tensor(A), A + 1e-10) is True
    assert np.allclose(ctxgrad.tensor(A), A + 1) is False
    assert np.allclose(ctxgrad.tensor(A, dtype=ctxgrad.float32), A) is True


@pytest.mark.parametrize("name", ["where", "nonzero"])
def test_one_argument_where_and_nonzero(name: str) -> None:
    a = np.array([[0.0, 1.0], [2.0, 0.0]])
    got = getattr(np, name)(ctxgrad.tensor(a))
    for mine, theirs in zip(got, getattr(np, name)(a), strict=True):
        np.testing.assert_array_equal(_plain(mine), theirs)
    np.testing.assert_array_equal(_plain(np.argwhere(ctxgrad.tensor(a))), np.argwhere(a))


def test_array_equal_returns_a_bool() -> None:
    a = np.array([1.0, np.nan])
    for equal_nan in (False, True):
        assert np.array_equal(ctxgrad.tensor(a), a, equal_nan=equal_nan) is np.array_equal(a, a, equal_nan=equal_nan)
    assert np.array_equal(ctxgrad.tensor(A), A) is True
    assert np.array_equal(ctxgrad.tensor(A), A[:2]) is False


def test_an_array_function_with_ndarrays_among_the_tensors() -> None:
    t = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    got = np.concatenate([t, np.array([3.0])])
    assert got.requires_grad and _plain(got).tolist() == [1.0, 2.0, 3.0]
    assert np.stack([np.zeros(2), t]).grad_fn.name() == "StackBackward0"


def test_an_unmapped_array_function_names_it_and_what_to_do() -> None:
    t = ctxgrad.tensor([1.0, 2.0])
    with pytest.raises(
        TypeError, match=r"ctxgrad has no function for numpy\.median on tensors; .*detach\(\)\.numpy\(\)"
    ):
        np.median(t)
    with pytest.raises(TypeError, match=r"numpy\.linalg\.\w+"):
        np.linalg.eigvals(ctxgrad.tensor(SQUARE))


@pytest.mark.parametrize(
    "call",
    [
        lambda t: np.sum(t, out=np.zeros(())),
        lambda t: np.mean(t, out=np.zeros(())),
        lambda t: np.cumsum(t, out=np.zeros(2)),
        lambda t: np.concatenate([t, t], out=np.zeros(4)),
    ],
)
def test_out_is_refused_by_array_functions(call: Callable[[Any], Any]) -> None:
    with pytest.raises(TypeError, match=r"ctxgrad tensors do not support NumPy's out="):
        call(ctxgrad.tensor([1.0, 2.0]))


def test_arguments_without_a_counterpart_are_refused() -> None:
    t = ctxgrad.tensor([1.0, 2.0])
    with pytest.raises(TypeError, match=r"numpy\.sum on ctxgrad tensors does not take where="):
        np.sum(t, where=np.array([True, False]))
    with pytest.raises(TypeError, match=r"numpy\.sum on ctxgrad tensors does not take initial="):
        np.sum(t, initial=1.0)
    with pytest.raises(TypeError, match=r"order='C' only"):
        np.reshape(t, (2, 1), order="F")
    with pytest.raises(TypeError, match=r"decimals=0"):
        np.round(t, 2)


def test_squeeze_of_an_axis_not_of_size_one_is_numpys_error() -> None:
    with pytest.raises(ValueError, match="cannot select an axis to squeeze out"):
        np.squeeze(ctxgrad.tensor(A), axis=0)


# --------------------------------------------------------------------------- NumPy's keyword names


@pytest.mark.parametrize("name", ["cat", "concat", "stack"])
def test_joining_functions_take_axis_as_torch_does(name: str) -> None:
    torch = pytest.importorskip("torch")
    a, b = A[:2, :3], A[:2, :3] * 2
    got = getattr(ctxgrad, name)([ctxgrad.tensor(a), ctxgrad.tensor(b)], axis=1)
    expected = getattr(torch, name)([torch.tensor(a), torch.tensor(b)], axis=1)
    np.testing.assert_array_equal(_plain(got), expected.numpy())
    with pytest.raises(TypeError, match=rf"{name}\(\) got an unexpected keyword argument 'axis'"):
        getattr(ctxgrad, name)([ctxgrad.tensor(a)], 1, axis=1)
    with pytest.raises(TypeError, match=rf"{name}\(\) got an unexpected keyword argument 'axis'"):
        getattr(torch, name)([torch.tensor(a)], 1, axis=1)

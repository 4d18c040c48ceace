"""The unary pointwise ops (``abs`` ... ``frac``) against torch and against central differences.

One table of cases: the op written once as ``fn(m, a)`` for ``m`` = ``ctxgrad`` or ``torch``,
and the domain its inputs are drawn from (chosen away from the points where the op has a
kink, a jump or a singularity, so that central differences are meaningful).  Every row is
checked for

* values and dtype against torch for float32, float64 and int64 inputs (0-d and 2-D), and
  values and gradients at special points (signed zeros, halves, overflow, inf, NaN);
* the method form ``x.name()`` against the function form ``ctxgrad.name(x)``;
* values, gradients and the backward node's name against torch in float64;
* gradients against central differences in float64;
* double backward against torch (whether the first gradient is differentiable, and the
  second derivative where it is), and against central differences of the first gradient;
* forward mode (``jvp``): the tangent against torch's forward AD and against a central
  difference along the tangent, and at the special points against torch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
import pytest
from _opcheck import jvp_of, tangents_for
from _support import dtype_name, to_numpy

import ctxgrad


@pytest.fixture(scope="module")
def torch() -> Any:
    return pytest.importorskip("torch")


class Case(NamedTuple):
    name: str
    fn: Callable[[Any, Any], Any]
    domain: str


CASES = [
    Case("abs", lambda m, a: m.abs(a), "nz"),
    Case("sign", lambda m, a: m.sign(a), "nz"),
    Case("sqrt", lambda m, a: m.sqrt(a), "pos"),
    Case("rsqrt", lambda m, a: m.rsqrt(a), "pos"),
    Case("square", lambda m, a: m.square(a), "any"),
    Case("reciprocal", lambda m, a: m.reciprocal(a), "nz"),
    Case("exp2", lambda m, a: m.exp2(a), "any"),
    Case("expm1", lambda m, a: m.expm1(a), "any"),
    Case("log2", lambda m, a: m.log2(a), "pos"),
    Case("log10", lambda m, a: m.log10(a), "pos"),
    Case("log1p", lambda m, a: m.log1p(a), "gt-1"),
    Case("sin", lambda m, a: m.sin(a), "any"),
    Case("cos", lambda m, a: m.cos(a), "any"),
    Case("tan", lambda m, a: m.tan(a), "tan"),
    Case("asin", lambda m, a: m.asin(a), "unit"),
    Case("acos", lambda m, a: m.acos(a), "unit"),
    Case("atan", lambda m, a: m.atan(a), "any"),
    Case("sinh", lambda m, a: m.sinh(a), "any"),
    Case("cosh", lambda m, a: m.cosh(a), "any"),
    Case("sigmoid", lambda m, a: m.sigmoid(a), "any"),
    Case("relu", lambda m, a: m.relu(a), "nz"),
    Case("floor", lambda m, a: m.floor(a), "nonint"),
    Case("ceil", lambda m, a: m.ceil(a), "nonint"),
    Case("round", lambda m, a: m.round(a), "nonint"),
    Case("trunc", lambda m, a: m.trunc(a), "nonint"),
    Case("frac", lambda m, a: m.frac(a), "nonint"),
]

# Integer inputs in each domain (torch turns them into floats for most ops; ``frac`` refuses them).
INT_INPUTS = {
    "any": [[-3, -1, 0], [1, 2, 5]],
    "nz": [[-3, -1, 2], [1, 2, 5]],
    "pos": [[1, 2, 3], [4, 9, 16]],
    "gt-1": [[0, 1, 2], [3, 4, 9]],
    "unit": [[-1, 0, 1], [0, 1, -1]],
    "tan": [[-1, 0, 1], [1, 0, -1]],
    "nonint": [[-3, -1, 0], [1, 2, 5]],
}
NO_INT = {"frac"}


def ids(cases: list[Case]) -> list[Any]:
    return [pytest.param(c, id=c.name) for c in cases]


def make_input(domain: str, shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    """float64 values of ``shape`` drawn from ``domain``."""
    rng = np.random.default_rng(seed)
    if domain == "any":
        a = rng.uniform(-2.0, 2.0, shape)
    elif domain == "nz":  # away from 0 (abs, sign, relu, reciprocal)
        a = rng.uniform(0.5, 2.0, shape) * rng.choice([-1.0, 1.0], shape)
    elif domain == "pos":
        a = rng.uniform(0.5, 2.0, shape)
    elif domain == "gt-1":
        a = rng.uniform(-0.5, 2.0, shape)
    elif domain == "unit":  # inside (-1, 1), where asin and acos are smooth
        a = rng.uniform(-0.9, 0.9, shape)
    elif domain == "tan":  # inside (-pi/2, pi/2)
        a = rng.uniform(-1.2, 1.2, shape)
    elif domain == "nonint":  # away from integers and from halves (the rounding ops' jumps)
        whole = rng.integers(-3, 3, shape)
        part = rng.uniform(0.1, 0.4, shape) + rng.choice([0.0, 0.5], shape)
        a = whole + part
    else:
        raise ValueError(domain)
    return np.asarray(a, dtype=np.float64)


def weights(shape: tuple[int, ...], seed: int = 0) -> np.ndarray:
    return np.asarray(np.random.default_rng(seed + 1000).standard_normal(shape), dtype=np.float64)


def numerical_gradient(f: Callable[[np.ndarray], float], x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    """Central differences of the scalar function ``f`` at ``x``."""
    out = np.zeros_like(x)
    for idx in np.ndindex(x.shape):
        plus, minus = x.copy(), x.copy()
        plus[idx] += eps
        minus[idx] -= eps
        out[idx] = (f(plus) - f(minus)) / (2 * eps)
    return out


def as_array(t: Any) -> np.ndarray:
    """Like ``to_numpy``, but also for the ZeroTensors torch's double backward may return."""
    return np.asarray(t.detach().numpy(force=True))


def assert_values(ct: Any, tt: Any, rtol: float, atol: float) -> None:
    assert tuple(ct.shape) == tuple(tt.shape)
    assert dtype_name(ct.dtype) == dtype_name(tt.dtype)
    a, b = to_numpy(ct), as_array(tt)
    if a.dtype.kind == "f":
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol)
    else:
        np.testing.assert_array_equal(a, b)


# --------------------------------------------------------------------------- forward


@pytest.mark.parametrize("shape", [(), (2, 3)], ids=["0d", "2d"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("case", ids(CASES))
def test_forward_matches_torch(torch: Any, case: Case, dtype: str, shape: tuple[int, ...]) -> None:
    x = make_input(case.domain, shape)
    c = case.fn(ctxgrad, ctxgrad.tensor(x, dtype=getattr(ctxgrad, dtype)))
    t = case.fn(torch, torch.tensor(x, dtype=getattr(torch, dtype)))
    tol = {"float32": (1e-5, 1e-6), "float64": (1e-12, 1e-14)}[dtype]
    assert_values(c, t, *tol)


@pytest.mark.parametrize("case", ids([c for c in CASES if c.name not in NO_INT]))
def test_int64_input_matches_torch(torch: Any, case: Case) -> None:
    data = INT_INPUTS[case.domain]
    c = case.fn(ctxgrad, ctxgrad.tensor(data, dtype=ctxgrad.int64))
    t = case.fn(torch, torch.tensor(data, dtype=torch.int64))
    assert_values(c, t, 1e-6, 1e-7)


@pytest.mark.parametrize("case", ids([c for c in CASES if c.name in NO_INT]))
def test_int64_input_refused_as_torch_refuses(torch: Any, case: Case) -> None:
    with pytest.raises(RuntimeError) as c_err:
        case.fn(ctxgrad, ctxgrad.tensor([1, 2], dtype=ctxgrad.int64))
    with pytest.raises(RuntimeError) as t_err:
        case.fn(torch, torch.tensor([1, 2], dtype=torch.int64))
    assert str(c_err.value) == str(t_err.value)


@pytest.mark.parametrize("case", ids(CASES))
def test_method_matches_function(case: Case) -> None:
    x = ctxgrad.tensor(make_input(case.domain, (2, 3)), requires_grad=True)
    by_method = getattr(x, case.name)()
    by_function = case.fn(ctxgrad, x)
    np.testing.assert_array_equal(to_numpy(by_method), to_numpy(by_function))
    assert by_method.dtype == by_function.dtype
    assert type(by_method.grad_fn) is type(by_function.grad_fn)


SPECIAL_VALUES = [0.0, -0.0, 0.5, 1.5, 2.5, -0.5, -2.5, 1000.0, -1000.0, np.inf, -np.inf, np.nan]


@pytest.mark.parametrize("case", ids(CASES))
def test_special_values_match_torch(torch: Any, case: Case) -> None:
    """Zeros (with their sign), halves, overflow, inf and NaN: values and gradients in float64.

    relu's gradient at NaN is left out: torch passes the gradient there, ctxgrad gives 0."""
    values = SPECIAL_VALUES[:-1] if case.name == "relu" else SPECIAL_VALUES
    results = []
    for m in (ctxgrad, torch):
        x = m.tensor(values, dtype=m.float64, requires_grad=True)
        with np.errstate(all="ignore"):
            out = case.fn(m, x)
            out.sum().backward()
        results.append((to_numpy(out), to_numpy(x.grad)))
    (c_out, c_grad), (t_out, t_grad) = results
    np.testing.assert_allclose(c_out, t_out, rtol=1e-12, atol=0, equal_nan=True)
    zeros = t_out == 0
    np.testing.assert_array_equal(np.signbit(c_out[zeros]), np.signbit(t_out[zeros]), err_msg="signs of zeros")
    np.testing.assert_allclose(c_grad, t_grad, rtol=1e-12, atol=0, equal_nan=True)


# --------------------------------------------------------------------------- gradients


def value_and_grad(m: Any, case: Case, x: np.ndarray) -> tuple[Any, Any]:
    xt = m.tensor(x, dtype=m.float64, requires_grad=True)
    out = case.fn(m, xt)
    (out * m.tensor(weights(x.shape), dtype=m.float64)).sum().backward()
    return out, xt.grad


@pytest.mark.parametrize("case", ids(CASES))
def test_gradients_match_torch(torch: Any, case: Case) -> None:
    x = make_input(case.domain, (2, 3))
    c_out, c_grad = value_and_grad(ctxgrad, case, x)
    t_out, t_grad = value_and_grad(torch, case, x)
    assert c_out.requires_grad and t_out.requires_grad
    assert c_out.grad_fn.name() == t_out.grad_fn.name()
    assert_values(c_out, t_out, 1e-12, 1e-14)
    assert_values(c_grad, t_grad, 1e-12, 1e-14)


@pytest.mark.parametrize("case", ids(CASES))
def test_gradients_match_central_differences(case: Case) -> None:
    x = make_input(case.domain, (2, 3))
    w = ctxgrad.tensor(weights(x.shape))
    _, grad = value_and_grad(ctxgrad, case, x)

    def objective(v: np.ndarray) -> float:
        return float((case.fn(ctxgrad, ctxgrad.tensor(v)) * w).sum().item())

    np.testing.assert_allclose(to_numpy(grad), numerical_gradient(objective, x), rtol=1e-5, atol=1e-7)


def test_the_numerical_check_catches_a_wrong_gradient() -> None:
    """The central differences are sharp enough to tell a wrong derivative (2 cos x for sin)."""
    x = make_input("any", (3,))
    w = weights(x.shape)

    def objective(v: np.ndarray) -> float:
        return float((ctxgrad.tensor(v).sin() * ctxgrad.tensor(w)).sum().item())

    numeric = numerical_gradient(objective, x)
    np.testing.assert_allclose(np.cos(x) * w, numeric, rtol=1e-5, atol=1e-7)
    assert not np.allclose(2 * np.cos(x) * w, numeric, rtol=1e-5, atol=1e-7)


# --------------------------------------------------------------------------- double backward


def first_and_second(m: Any, case: Case, x: np.ndarray, v: np.ndarray) -> tuple[Any, Any]:
    """The first gradient of ``(fn(x) * w).sum()`` with a graph, and the gradient of
    ``(first * v).sum()`` (None when the first gradient does not require grad)."""
    xt = m.tensor(x, dtype=m.float64, requires_grad=True)
    out = case.fn(m, xt)
    (first,) = m.autograd.grad((out * m.tensor(weights(x.shape), dtype=m.float64)).sum(), xt, create_graph=True)
    if not first.requires_grad:
        return first, None
    (second,) = m.autograd.grad((first * m.tensor(v, dtype=m.float64)).sum(), xt, allow_unused=True)
    return first, second


@pytest.mark.parametrize("case", ids(CASES))
def test_double_backward_matches_torch(torch: Any, case: Case) -> None:
    x = make_input(case.domain, (2, 3))
    v = make_input("any", (2, 3), seed=7)
    c_first, c_second = first_and_second(ctxgrad, case, x, v)
    t_first, t_second = first_and_second(torch, case, x, v)
    assert c_first.requires_grad == t_first.requires_grad
    assert_values(c_first, t_first, 1e-12, 1e-14)
    if t_second is None or c_second is None:
        assert t_second is None or not as_array(t_second).any()
        assert c_second is None or not to_numpy(c_second).any()
    else:
        assert_values(c_second, t_second, 1e-10, 1e-12)


SMOOTH = [c for c in CASES if c.name not in {"sign", "floor", "ceil", "round", "trunc", "frac"}]


@pytest.mark.parametrize("case", ids(SMOOTH))
def test_double_backward_matches_central_differences(case: Case) -> None:
    """The gradient of ``x -> (dL/dx * v).sum()`` against central differences of it."""
    x = make_input(case.domain, (2, 3))
    v = make_input("any", (2, 3), seed=7)
    first, second = first_and_second(ctxgrad, case, x, v)
    assert first.requires_grad

    def first_dot_v(values: np.ndarray) -> float:
        g, _ = first_and_second(ctxgrad, case, values, v)
        return float((to_numpy(g) * v).sum())

    analytic = np.zeros_like(x) if second is None else to_numpy(second)
    np.testing.assert_allclose(analytic, numerical_gradient(first_dot_v, x), rtol=1e-5, atol=1e-7)


# --------------------------------------------------------------------------- forward mode


@pytest.mark.parametrize("shape", [(), (2, 3)], ids=["0d", "2d"])
@pytest.mark.parametrize("case", ids(CASES))
def test_jvp_matches_torch(torch: Any, case: Case, shape: tuple[int, ...]) -> None:
    x = make_input(case.domain, shape)
    (tx,) = tangents_for([x], 0)
    c_out, c_tangent = jvp_of(ctxgrad, lambda m, a: case.fn(m, a), [x], [tx])
    t_out, t_tangent = jvp_of(torch, lambda m, a: case.fn(m, a), [x], [tx])
    assert_values(c_out, t_out, 1e-12, 1e-14)
    assert c_tangent is not None and t_tangent is not None
    assert_values(c_tangent, t_tangent, 1e-12, 1e-14)


@pytest.mark.parametrize("case", ids(CASES))
def test_jvp_matches_central_differences(case: Case) -> None:
    """The tangent is the derivative along the tangent direction: (f(x+εv) - f(x-εv)) / 2ε."""
    x = make_input(case.domain, (2, 3))
    (v,) = tangents_for([x], 0)
    _, tangent = jvp_of(ctxgrad, lambda m, a: case.fn(m, a), [x], [v])
    eps = 1e-6

    def at(sign: float) -> np.ndarray:
        return to_numpy(case.fn(ctxgrad, ctxgrad.tensor(x + sign * eps * v)))

    np.testing.assert_allclose(to_numpy(tangent), (at(1.0) - at(-1.0)) / (2 * eps), rtol=1e-5, atol=1e-7)


@pytest.mark.parametrize("case", ids(CASES))
def test_jvp_at_special_values_matches_torch(torch: Any, case: Case) -> None:
    """The tangent (all ones) at zeros, halves, overflow, inf and NaN (relu at NaN left out,
    as in test_special_values_match_torch)."""
    values = np.array(SPECIAL_VALUES[:-1] if case.name == "relu" else SPECIAL_VALUES)
    with np.errstate(all="ignore"):
        _, c_tangent = jvp_of(ctxgrad, lambda m, a: case.fn(m, a), [values], [np.ones_like(values)])
    _, t_tangent = jvp_of(torch, lambda m, a: case.fn(m, a), [values], [np.ones_like(values)])
    np.testing.assert_allclose(to_numpy(c_tangent), as_array(t_tangent), rtol=1e-12, atol=0, equal_nan=True)

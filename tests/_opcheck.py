"""The op test kit: one table of cases per op family, every case checked the same way.

A family's test module writes its ops once, as ``fn(m, *inputs)`` run with ``m`` = ``ctxgrad``,
``torch`` or ``numpy``, and subclasses :class:`OpFamilyTests`::

    class TestReductions(OpFamilyTests):
        cases = [Case("sum-dim0", lambda m, a: a.sum(0), any_((2, 3))), ...]
        double_cases = [...]  # the cases whose second derivative is checked

``conftest.py`` parametrizes every test method below over ``cases`` (the double-backward
tests over ``double_cases``).  Each case is checked for

* values against NumPy in float64 (``ref`` when NumPy spells the op differently);
* values, dtype, shape, requires_grad, grad_fn presence and gradients against torch in
  float64, and again (looser) in float32; the float64 comparison also against torch's
  results stored in ``tests/torch_reference/`` (``_torch_reference.py`` writes them), so
  that it runs without torch;
* gradients against central differences in float64;
* forward mode: the tangent of a dual input against torch's forward AD and against a
  central difference along the tangent;
* double backward against torch and against central differences of the first gradient.

Complex inputs: a domain ``"complex:<domain>"`` draws complex128 values (see
:func:`make_inputs`); a complex case runs in complex128 and complex64 (where a real one runs
in float64 and float32), its loss is the real part of ``sum(out * w)`` with complex
weights, its central differences perturb the real and the imaginary part (the gradient is
``dL/dx + i dL/dy``, torch's convention) and its tangents are complex.

A case that is expected to fail one check names it in ``bugs`` (``{"torch": "why"}``, or
``"all"``): the test is then a strict xfail, so it is noticed when it starts passing.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pytest
from _support import dtype_name, to_numpy
from _torch_reference import stored as stored_reference

import ctxgrad

Domain = str | Callable[[np.random.Generator, tuple[int, ...]], np.ndarray]
InputSpec = tuple[tuple[int, ...], Domain]


@dataclass
class Case:
    """One op: ``fn(m, *inputs)`` with ``m`` a module; ``ref`` the NumPy reference
    (``fn(np, ...)`` when None); ``bugs`` maps a check to the reason it is expected to fail.

    ``inputs`` are ``(shape, domain)`` pairs, see :func:`make_inputs`."""

    id: str
    fn: Callable[..., Any]
    inputs: list[InputSpec]
    ref: Callable[..., Any] | None = None
    bugs: dict[str, str] = field(default_factory=dict)
    seed: int = 0


def any_(*shapes: tuple[int, ...]) -> list[InputSpec]:
    """Inputs of these shapes with standard-normal values."""
    return [(s, "any") for s in shapes]


def make_inputs(specs: Sequence[InputSpec], seed: int) -> list[np.ndarray]:
    """float64 arrays for ``(shape, domain)`` specs.

    Domains: ``any`` standard normal; ``pos`` in [0.5, 2]; ``nz`` magnitude in [0.5, 2] with
    random sign; ``unit`` in (-0.9, 0.9); ``prob`` in (0.05, 0.95); ``distinct`` a shuffled
    permutation of well-separated values (no ties: max, sort, median); ``wellcond`` square
    matrices ``I*n + noise``, safely invertible; or a callable ``(rng, shape) -> array``.

    ``complex:<domain>`` is complex128: ``any`` and ``nz`` get an imaginary part of the same
    kind, ``pos`` a phase in (-2, 2) (away from the cut of ``log`` and ``sqrt``), ``unit`` is
    scaled by 0.6 and gets an imaginary part in (-0.54, 0.54) (inside the unit disc, away from
    the cuts of ``asin``), the others an imaginary part in (-0.5, 0.5).
    """
    rng = np.random.default_rng(seed)
    arrays = []
    for shape, domain in specs:
        if isinstance(domain, str) and domain.startswith("complex:"):
            arrays.append(_complex_values(rng, shape, domain.removeprefix("complex:")))
            continue
        if callable(domain):
            a = domain(rng, shape)
        elif domain == "any":
            a = rng.standard_normal(shape)
        elif domain == "pos":
            a = rng.uniform(0.5, 2.0, shape)
        elif domain == "nz":
            a = rng.uniform(0.5, 2.0, shape) * rng.choice([-1.0, 1.0], shape)
        elif domain == "unit":
            a = rng.uniform(-0.9, 0.9, shape)
        elif domain == "prob":
            a = rng.uniform(0.05, 0.95, shape)
        elif domain == "distinct":
            n = int(np.prod(shape))
            a = (rng.permutation(n) - n / 2) * 0.37 + rng.uniform(-0.05, 0.05, n)
            a = a.reshape(shape)
        elif domain == "wellcond":
            n = shape[-1]
            a = np.eye(n) * n + rng.standard_normal(shape) * 0.5
        else:
            raise ValueError(domain)
        arrays.append(np.asarray(a, dtype=np.float64))
    return arrays


def _complex_values(rng: np.random.Generator, shape: tuple[int, ...], domain: str) -> np.ndarray:
    (real,) = make_inputs([(shape, domain)], int(rng.integers(2**31)))
    if domain == "pos":
        return np.asarray(real * np.exp(1j * rng.uniform(-2.0, 2.0, shape)), dtype=np.complex128)
    if domain == "any":
        imag = rng.standard_normal(shape)
    elif domain == "nz":
        imag = rng.uniform(0.5, 2.0, shape) * rng.choice([-1.0, 1.0], shape)
    elif domain == "unit":
        real, imag = 0.6 * real, rng.uniform(-0.54, 0.54, shape)
    else:
        imag = rng.uniform(-0.5, 0.5, shape)
    return np.asarray(real + 1j * imag, dtype=np.complex128)


def weights_for(shape: tuple[int, ...], seed: int, complex_: bool = False) -> np.ndarray:
    """Fixed random weights of the loss ``sum(out * w)`` (complex for a complex output)."""
    rng = np.random.default_rng(seed + 1000)
    w = np.asarray(rng.standard_normal(shape), dtype=np.float64)
    return w + 1j * rng.standard_normal(shape) if complex_ else w


def _is_complex(t: Any) -> bool:
    return bool(t.is_complex())


def real_sum(t: Any) -> Any:
    """``t.sum()``, its real part when ``t`` is complex: a real loss (torch refuses a complex one)."""
    total = t.sum()
    return total.real if _is_complex(total) else total


def dtype_of(m: Any, array: np.ndarray, dtype: str) -> Any:
    """``m``'s dtype named ``dtype`` (``float64``, ``float32``), complex for a complex array."""
    if array.dtype.kind == "c":
        dtype = {"float64": "complex128", "float32": "complex64"}.get(dtype, dtype)
    return getattr(m, dtype)


def assert_same(ct: Any, tt: Any, rtol: float = 1e-10, atol: float = 1e-12) -> None:
    """A ctxgrad tensor matches a torch tensor: shape, dtype, requires_grad and values."""
    assert isinstance(ct, ctxgrad.Tensor), type(ct)
    assert tuple(ct.shape) == tuple(tt.shape)
    assert dtype_name(ct.dtype) == dtype_name(tt.dtype)
    assert ct.requires_grad == tt.requires_grad
    a, b = to_numpy(ct), as_array(tt)
    if a.dtype.kind in "fc":
        np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True)
    else:
        np.testing.assert_array_equal(a, b)


def assert_same_as_stored(ct: Any, values: np.ndarray, dtype: str, requires_grad: bool, where: str) -> None:
    """``assert_same`` against torch's stored results: shape, dtype name, requires_grad, values."""
    assert isinstance(ct, ctxgrad.Tensor), type(ct)
    assert tuple(ct.shape) == values.shape, where
    assert dtype_name(ct.dtype) == dtype, where
    assert ct.requires_grad == requires_grad, where
    a = to_numpy(ct)
    if a.dtype.kind in "fc":
        np.testing.assert_allclose(a, values, rtol=1e-10, atol=1e-12, equal_nan=True, err_msg=where)
    else:
        np.testing.assert_array_equal(a, values, err_msg=where)


def as_array(t: Any) -> np.ndarray:
    """The values of a ctxgrad or torch tensor (also torch's ZeroTensors)."""
    if isinstance(t, ctxgrad.Tensor):
        return to_numpy(t)
    return np.asarray(t.detach().numpy(force=True))


def numerical_gradient_check(
    fn: Callable[..., Any],
    arrays: Sequence[np.ndarray],
    seed: int = 0,
    eps: float = 1e-6,
    rtol: float = 1e-5,
    atol: float = 1e-7,
) -> None:
    """Compare ctxgrad's gradient of ``(fn(*xs) * w).sum()`` with central differences.

    ``fn`` takes ctxgrad tensors (requiring grad, float64) and returns a tensor; ``w`` is a
    fixed random array of the output's shape.  Each element of each input is moved by
    ``eps`` up and down.
    """
    xs = [ctxgrad.tensor(a, requires_grad=True) for a in arrays]
    out = fn(*xs)
    assert out.dtype in (np.float64, np.complex128)
    w = ctxgrad.tensor(weights_for(tuple(out.shape), seed, _is_complex(out)))
    real_sum(out * w).backward()

    def objective(values: list[np.ndarray]) -> float:
        ts = [ctxgrad.tensor(v, requires_grad=True) for v in values]
        return float(real_sum(fn(*ts) * w).item())

    def difference(i: int, idx: tuple[int, ...], step: complex) -> float:
        plus = [v.copy() for v in arrays]
        minus = [v.copy() for v in arrays]
        plus[i][idx] += step
        minus[i][idx] -= step
        return (objective(plus) - objective(minus)) / (2 * eps)

    for i, a in enumerate(arrays):
        numeric = np.zeros_like(a)
        for idx in np.ndindex(a.shape):
            # a complex input: dL/dx + i dL/dy, torch's convention
            numeric[idx] = difference(i, idx, eps) + (1j * difference(i, idx, 1j * eps) if a.dtype.kind == "c" else 0)
        grad = xs[i].grad
        analytic = np.zeros_like(a) if grad is None else to_numpy(grad)
        assert analytic.shape == a.shape
        np.testing.assert_allclose(analytic, numeric, rtol=rtol, atol=atol, err_msg=f"input {i}")


def grads_of(m: Any, fn: Callable[..., Any], arrays: Sequence[np.ndarray], dtype: str, seed: int) -> tuple[Any, ...]:
    """``(out, grad_0, grad_1, ...)`` of ``(fn(m, *xs) * w).sum()`` on ``m`` (ctxgrad or torch)."""
    xs = [m.tensor(a, dtype=dtype_of(m, a, dtype), requires_grad=True) for a in arrays]
    out = fn(m, *xs)
    if out.requires_grad:
        w = m.tensor(weights_for(tuple(out.shape), seed, _is_complex(out)), dtype=out.dtype)
        real_sum(out * w).backward()
    return (out, *(x.grad for x in xs))


def tangents_for(arrays: Sequence[np.ndarray], seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed + 31)
    out = []
    for a in arrays:
        t = rng.standard_normal(a.shape)
        out.append(t + 1j * rng.standard_normal(a.shape) if a.dtype.kind == "c" else t)
    return out


def jvp_of(m: Any, fn: Callable[..., Any], arrays: Sequence[np.ndarray], tangents: Sequence[np.ndarray]) -> Any:
    """``(out, tangent_of_out)`` with every input made dual (float64, not requiring grad)."""
    fw = m.autograd.forward_ad
    with fw.dual_level():
        xs = [fw.make_dual(m.tensor(a), m.tensor(t)) for a, t in zip(arrays, tangents)]
        out = fn(m, *xs)
        primal, tangent = fw.unpack_dual(out)
        return primal.detach(), None if tangent is None else tangent.detach()


def first_and_second(m: Any, fn: Callable[..., Any], arrays: Sequence[np.ndarray], seed: int) -> tuple[Any, ...]:
    """First gradients of ``(fn(xs) * w).sum()`` with a graph, and the gradients of
    ``sum_i (g_i * v_i).sum()`` over the first gradients that require grad."""
    xs = [m.tensor(a, requires_grad=True) for a in arrays]
    out = fn(m, *xs)
    w = m.tensor(weights_for(tuple(out.shape), seed, _is_complex(out)))
    firsts = m.autograd.grad(real_sum(out * w), xs, create_graph=True, allow_unused=True)
    rng = np.random.default_rng(seed + 7)
    total = None
    for g in firsts:
        if g is not None and g.requires_grad:
            term = real_sum(g * m.tensor(_projection(rng, g)))
            total = term if total is None else total + term
    assert total is not None, "the function is linear: no second derivative to check"
    seconds = m.autograd.grad(total, xs, allow_unused=True)
    return tuple(firsts), tuple(seconds)


def _projection(rng: np.random.Generator, g: Any) -> np.ndarray:
    """A random array of ``g``'s shape (complex for a complex ``g``) to project it on."""
    v = rng.standard_normal(tuple(g.shape))
    return v + 1j * rng.standard_normal(tuple(g.shape)) if _is_complex(g) else v


def _differentiable(out: Any) -> bool:
    return bool(out.dtype.is_floating_point or out.dtype.is_complex)  # (a ctxgrad or a torch dtype)


class OpFamilyTests:
    """The checks every op case gets; a family subclasses it and sets ``cases``."""

    cases: Sequence[Case] = ()
    double_cases: Sequence[Case] = ()

    def test_values_match_numpy(self, case: Case) -> None:
        arrays = make_inputs(case.inputs, case.seed)
        out = case.fn(ctxgrad, *(ctxgrad.tensor(a) for a in arrays))
        ref = case.ref or case.fn
        expected = np.asarray(ref(np, *(a.copy() for a in arrays)))
        assert isinstance(out, ctxgrad.Tensor)
        assert tuple(out.shape) == expected.shape
        if expected.dtype.kind in "fc":
            assert out.dtype == (np.complex128 if expected.dtype.kind == "c" else np.float64)
            np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12, atol=1e-14)
        else:
            np.testing.assert_array_equal(out.numpy(), expected)

    def test_values_and_gradients_match_torch(self, torch: Any, case: Case) -> None:
        arrays = make_inputs(case.inputs, case.seed)
        c = grads_of(ctxgrad, case.fn, arrays, "float64", case.seed)
        t = grads_of(torch, case.fn, arrays, "float64", case.seed)
        assert_same(c[0], t[0])
        assert c[0].is_leaf == t[0].is_leaf
        assert (c[0].grad_fn is None) == (t[0].grad_fn is None)
        for i, (cg, tg) in enumerate(zip(c[1:], t[1:])):
            assert (cg is None) == (tg is None), f"input {i}"
            if tg is not None:
                assert_same(cg, tg)

    def test_values_and_gradients_match_stored_torch(self, case: Case) -> None:
        """The comparison above against torch's results stored by tests/_torch_reference.py,
        so that it runs without torch too."""
        reference = stored_reference(type(self), case.id)
        if reference is None:
            pytest.skip(f"no stored torch values for {case.id}: run python tests/_torch_reference.py --write")
        meta, (t_out, *t_grads) = reference
        assert t_out is not None
        arrays = make_inputs(case.inputs, case.seed)
        out, *grads = grads_of(ctxgrad, case.fn, arrays, "float64", case.seed)
        stale = " (or the stored values are stale: python tests/_torch_reference.py --write)"
        assert_same_as_stored(out, t_out, meta["dtypes"][0], meta["requires_grad"], stale)
        assert out.is_leaf == meta["is_leaf"]
        assert (out.grad_fn is not None) == meta["has_grad_fn"]
        assert len(grads) == len(t_grads), stale
        for i, (g, t_g, t_dtype) in enumerate(zip(grads, t_grads, meta["dtypes"][1:])):
            assert (g is None) == (t_g is None), f"input {i}"
            if g is not None and t_g is not None:
                assert_same_as_stored(g, t_g, t_dtype, False, f"input {i}{stale}")

    def test_float32_matches_torch(self, torch: Any, case: Case) -> None:
        arrays = make_inputs(case.inputs, case.seed)
        c = grads_of(ctxgrad, case.fn, arrays, "float32", case.seed)
        t = grads_of(torch, case.fn, arrays, "float32", case.seed)
        for i, (ct, tt) in enumerate(zip(c, t)):
            assert (ct is None) == (tt is None), f"item {i}"
            if tt is not None:
                assert_same(ct, tt, rtol=1e-4, atol=1e-5)

    def test_gradients_match_central_differences(self, case: Case) -> None:
        arrays = make_inputs(case.inputs, case.seed)
        if not _differentiable(case.fn(ctxgrad, *(ctxgrad.tensor(a) for a in arrays))):
            return
        numerical_gradient_check(lambda *xs: case.fn(ctxgrad, *xs), arrays, case.seed)

    def test_jvp_matches_torch(self, torch: Any, case: Case) -> None:
        arrays = make_inputs(case.inputs, case.seed)
        tangents = tangents_for(arrays, case.seed)
        c_out, c_tangent = jvp_of(ctxgrad, case.fn, arrays, tangents)
        t_out, t_tangent = jvp_of(torch, case.fn, arrays, tangents)
        assert_same(c_out, t_out)
        assert (c_tangent is None) == (t_tangent is None)
        if t_tangent is not None:
            assert_same(c_tangent, t_tangent)

    def test_jvp_matches_central_differences(self, case: Case) -> None:
        """The tangent is the derivative along the tangent direction: (f(x+εv) - f(x-εv)) / 2ε."""
        arrays = make_inputs(case.inputs, case.seed)
        tangents = tangents_for(arrays, case.seed)
        out, tangent = jvp_of(ctxgrad, case.fn, arrays, tangents)
        if not _differentiable(out):
            assert tangent is None
            return
        eps = 1e-6

        def at(sign: float) -> np.ndarray:
            return to_numpy(case.fn(ctxgrad, *(ctxgrad.tensor(a + sign * eps * t) for a, t in zip(arrays, tangents))))

        numeric = (at(1.0) - at(-1.0)) / (2 * eps)
        analytic = np.zeros_like(numeric) if tangent is None else to_numpy(tangent)
        np.testing.assert_allclose(analytic, numeric, rtol=1e-5, atol=1e-7)

    def test_double_backward_matches_torch(self, torch: Any, case: Case) -> None:
        arrays = make_inputs(case.inputs, case.seed)
        c_first, c_second = first_and_second(ctxgrad, case.fn, arrays, case.seed)
        t_first, t_second = first_and_second(torch, case.fn, arrays, case.seed)
        for i, (cg, tg) in enumerate(zip(c_first, t_first)):
            assert (cg is None) == (tg is None), f"first gradient {i}"
            if tg is None:
                continue
            assert cg.requires_grad == tg.requires_grad, f"first gradient {i}"
            assert (cg.grad_fn is None) == (tg.grad_fn is None), f"first gradient {i}"
            assert_same(cg, tg)
        for i, (cg, tg) in enumerate(zip(c_second, t_second)):
            c_val = np.zeros_like(arrays[i]) if cg is None else to_numpy(cg)
            t_val = np.zeros_like(arrays[i]) if tg is None else as_array(tg)
            np.testing.assert_allclose(c_val, t_val, rtol=1e-10, atol=1e-12, err_msg=f"second gradient {i}")
            if cg is not None and tg is not None:
                assert dtype_name(cg.dtype) == dtype_name(tg.dtype)

    def test_double_backward_matches_central_differences(self, case: Case) -> None:
        """The gradient of ``x -> sum_i (dL/dx_i * v_i)``, checked by central differences of the
        first gradient: the second derivative without torch."""
        arrays = make_inputs(case.inputs, case.seed)
        rng = np.random.default_rng(case.seed + 7)
        vs = [ctxgrad.tensor(_projection(rng, ctxgrad.tensor(a))) for a in arrays]

        def first_gradient_dot_v(*xs: Any) -> Any:
            out = case.fn(ctxgrad, *xs)
            w = ctxgrad.tensor(weights_for(tuple(out.shape), case.seed, _is_complex(out)))
            firsts = ctxgrad.autograd.grad(real_sum(out * w), xs, create_graph=True, allow_unused=True)
            total = ctxgrad.tensor(0.0, dtype=ctxgrad.float64)
            for g, v in zip(firsts, vs):
                if g is not None:
                    total = total + real_sum(g * v)
            return total

        numerical_gradient_check(first_gradient_dot_v, arrays, case.seed)


# The short name of each check, as used in ``Case.bugs``.
CHECKS = {
    "test_values_match_numpy": "numpy",
    "test_values_and_gradients_match_torch": "torch",
    "test_values_and_gradients_match_stored_torch": "torch",
    "test_float32_matches_torch": "float32",
    "test_gradients_match_central_differences": "numerical",
    "test_jvp_matches_torch": "jvp",
    "test_jvp_matches_central_differences": "jvp-numerical",
    "test_double_backward_matches_torch": "double-torch",
    "test_double_backward_matches_central_differences": "double-numerical",
}


def case_params(cases: Sequence[Case], check: str) -> list[Any]:
    """pytest params for ``cases``, a strict xfail where a case names ``check`` in its bugs."""
    out = []
    for c in cases:
        reason = c.bugs.get(check) or c.bugs.get("all")
        marks = pytest.mark.xfail(strict=True, reason=f"BUG: {reason}") if reason else ()
        out.append(pytest.param(c, id=c.id, marks=marks))
    return out

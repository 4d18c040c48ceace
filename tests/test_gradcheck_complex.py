"""``gradcheck`` and ``gradgradcheck`` on complex inputs and outputs, as torch does them.

torch checks complex numbers through real quantities: a complex input is perturbed along
its real and its imaginary part (the gradient to match is ``ds/dx + i ds/dy``, its
convention), a complex output is checked as its real and its imaginary part.  So a correct
complex backward passes and one that forgets a conjugation fails, in slow and in fast mode,
and forward mode (``check_forward_ad``) moves a complex input along both parts.  The
Functions below are written once for ``m`` = ctxgrad or torch, and the two libraries'
gradchecks must agree on every one of them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ctxgrad
from ctxgrad.autograd import GradcheckError, gradcheck, gradgradcheck
from ctxgrad.testing import OpTestCase

Z = np.array([1 + 2j, -0.5 + 0.25j, 3 - 1j])
X = np.array([0.5, -1.0, 2.0])


def functions(m: Any) -> dict[str, tuple[type, np.ndarray]]:
    """name -> (a Function of ``m``, the values of its input)."""
    F = m.autograd.Function

    class CubeConj(F):  # correct: grad * conj(3 z^2)
        @staticmethod
        def forward(ctx: Any, z: Any) -> Any:
            ctx.save_for_backward(z)
            ctx.save_for_forward(z)  # what jvp reads from ctx.saved_tensors
            return z * z * z

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            (z,) = ctx.saved_tensors
            return g * (3 * z * z).conj()

        @staticmethod
        def jvp(ctx: Any, t: Any) -> Any:
            (z,) = ctx.saved_tensors
            return t * 3 * z * z

    class CubeNoConj(F):  # wrong: the conjugation is missing
        @staticmethod
        def forward(ctx: Any, z: Any) -> Any:
            ctx.save_for_backward(z)
            ctx.save_for_forward(z)  # what jvp reads from ctx.saved_tensors
            return z * z * z

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            (z,) = ctx.saved_tensors
            return g * 3 * z * z

        @staticmethod
        def jvp(ctx: Any, t: Any) -> Any:  # wrong too: the conjugate derivative
            (z,) = ctx.saved_tensors
            return t * (3 * z * z).conj()

    class AbsSquared(F):  # complex -> real, correct: d|z|^2 = 2 Re(conj(z) dz), gradient 2 z g
        @staticmethod
        def forward(ctx: Any, z: Any) -> Any:
            ctx.save_for_backward(z)
            ctx.save_for_forward(z)  # what jvp reads from ctx.saved_tensors
            return (z * z.conj()).real

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            (z,) = ctx.saved_tensors
            return g * 2 * z

        @staticmethod
        def jvp(ctx: Any, t: Any) -> Any:
            (z,) = ctx.saved_tensors
            return 2 * (z.conj() * t).real

    class AbsSquaredConj(F):  # wrong: 2 conj(z) g
        @staticmethod
        def forward(ctx: Any, z: Any) -> Any:
            ctx.save_for_backward(z)
            ctx.save_for_forward(z)  # what jvp reads from ctx.saved_tensors
            return (z * z.conj()).real

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            (z,) = ctx.saved_tensors
            return g * 2 * z.conj()

    class Phase(F):  # real -> complex, correct: exp(i x), gradient Re(conj(i exp(i x)) g)
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            out = m.polar(m.ones_like(x), x)
            ctx.save_for_backward(out)
            ctx.save_for_forward(out)
            return out

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            (out,) = ctx.saved_tensors
            return (g * (1j * out).conj()).real

        @staticmethod
        def jvp(ctx: Any, t: Any) -> Any:
            (out,) = ctx.saved_tensors
            return 1j * out * t

    class PhaseNoConj(F):  # wrong: Re(i exp(i x) g)
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            out = m.polar(m.ones_like(x), x)
            ctx.save_for_backward(out)
            ctx.save_for_forward(out)
            return out

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            (out,) = ctx.saved_tensors
            return (g * 1j * out).real

    class ImagOnlyWrong(F):  # z -> z * 2i with backward grad * 2i (should be grad * -2i)
        @staticmethod
        def forward(ctx: Any, z: Any) -> Any:
            return z * 2j

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g * 2j

    return {
        "cube": (CubeConj, Z),
        "cube without conj": (CubeNoConj, Z),
        "abs squared": (AbsSquared, Z),
        "abs squared with conj": (AbsSquaredConj, Z),
        "phase": (Phase, X),
        "phase without conj": (PhaseNoConj, X),
        "times 2i without conj": (ImagOnlyWrong, Z),
    }


CORRECT = {"cube", "abs squared", "phase"}
WITH_JVP = {"cube", "cube without conj", "abs squared", "phase"}


def run_check(m: Any, name: str, check: str, fast_mode: bool) -> bool:
    cls, values = functions(m)[name]
    x = m.tensor(values, requires_grad=True)
    if check == "gradcheck":
        return bool(m.autograd.gradcheck(cls.apply, (x,), fast_mode=fast_mode, raise_exception=False))
    if check == "forward":
        return bool(
            m.autograd.gradcheck(
                cls.apply,
                (x,),
                fast_mode=fast_mode,
                check_forward_ad=True,
                check_backward_ad=False,
                check_undefined_grad=False,
                raise_exception=False,
            )
        )
    return bool(m.autograd.gradgradcheck(cls.apply, (x,), fast_mode=fast_mode, raise_exception=False))


CHECKS = [
    (name, check)
    for name in functions(ctxgrad)
    for check in ("gradcheck", "gradgradcheck", "forward")
    if check != "forward" or name in WITH_JVP
]


@pytest.mark.parametrize("fast_mode", [False, True], ids=["slow", "fast"])
@pytest.mark.parametrize(("name", "check"), CHECKS, ids=[f"{n}-{c}" for n, c in CHECKS])
def test_gradcheck_agrees_with_torch(torch: Any, name: str, check: str, fast_mode: bool) -> None:
    ours = run_check(ctxgrad, name, check, fast_mode)
    if (name, check) != ("abs squared", "forward"):
        # (torch 2.13's forward AD of a custom Function that returns the view .real fails an
        # internal assert, "the tangent have the same layout as primal": no comparison there)
        assert ours == run_check(torch, name, check, fast_mode)
    if check == "gradcheck":
        assert ours == (name in CORRECT)
    if check == "forward":
        assert ours == (name != "cube without conj")


@pytest.mark.parametrize("fast_mode", [False, True], ids=["slow", "fast"])
def test_a_missing_conjugation_fails_with_a_hint(fast_mode: bool) -> None:
    cls, values = functions(ctxgrad)["cube without conj"]
    z = ctxgrad.tensor(values, requires_grad=True)
    with pytest.raises(GradcheckError, match="Jacobian mismatch for output 0 with respect to input 0") as info:
        gradcheck(cls.apply, (z,), fast_mode=fast_mode)
    assert "a conjugate missing from backward?" in str(info.value)


def test_a_wrong_complex_tangent_fails_forward_mode() -> None:
    cls, values = functions(ctxgrad)["cube without conj"]
    z = ctxgrad.tensor(values, requires_grad=True)
    with pytest.raises(GradcheckError, match="Jacobian computed with forward mode mismatch") as info:
        gradcheck(cls.apply, (z,), check_forward_ad=True, check_backward_ad=False, check_undefined_grad=False)
    assert "shape [6, 3]" in str(info.value)  # rows along the real parts, then the imaginary parts


#: Built-in ops on complex inputs: holomorphic ones, and real functions of complex numbers.
BUILTINS: dict[str, Callable[[Any], Any]] = {
    "exp": lambda z: z.exp(),
    "log": lambda z: z.log(),
    "sin": lambda z: z.sin(),
    "tanh": lambda z: z.tanh(),
    "sqrt": lambda z: z.sqrt(),
    "reciprocal": lambda z: z.reciprocal(),
    "sigmoid": lambda z: (z * 0.5).sigmoid(),
    "pow": lambda z: z**3,
    "mul div": lambda z: z * z.flip(0) / (z + 4),
    "matmul": lambda z: ctxgrad.outer(z, z) @ z,
    "prod cumprod": lambda z: z.cumprod(0) + z.prod(),
    "abs": lambda z: z.abs(),
    "angle": lambda z: ctxgrad.angle(z),
    "conj": lambda z: z.conj() * z,
    "real imag": lambda z: ctxgrad.complex(z.real * z.imag, z.real),
    "norm": lambda z: z.norm(),
    "var": lambda z: z.var(),
}


@pytest.mark.parametrize("fast_mode", [False, True], ids=["slow", "fast"])
@pytest.mark.parametrize("name", BUILTINS)
def test_builtin_complex_ops_pass(name: str, fast_mode: bool) -> None:
    z = ctxgrad.tensor(Z, requires_grad=True)
    assert gradcheck(BUILTINS[name], (z,), fast_mode=fast_mode, check_forward_ad=True)
    assert gradgradcheck(BUILTINS[name], (z,), fast_mode=fast_mode)


def test_a_complex_output_of_real_inputs_is_checked_in_both_parts() -> None:
    x = ctxgrad.tensor(X, requires_grad=True)
    assert gradcheck(lambda t: ctxgrad.polar(t * t + 1, t), (x,), check_forward_ad=True)
    assert gradcheck(lambda t: ctxgrad.polar(t * t + 1, t), (x,), fast_mode=True, check_forward_ad=True)


# --------------------------------------------------------------------------- OpTestCase
class HolomorphicCube(ctxgrad.autograd.Function):
    """``z ** 3`` with its backward written as for real numbers, declared holomorphic."""

    holomorphic = True

    @staticmethod
    def forward(ctx: Any, z: Any) -> Any:
        ctx.save_for_backward(z)
        return z**3

    @staticmethod
    def backward(ctx: Any, grad: Any) -> Any:
        (z,) = ctx.saved_tensors
        return 3 * z * z * grad

    @staticmethod
    def jvp(ctx: Any, tangent: Any) -> Any:
        (z,) = ctx.saved_tensors
        return 3 * z * z * tangent


class UndeclaredCube(HolomorphicCube):
    """The same backward without ``holomorphic = True``: the conjugation is missing."""

    holomorphic = False


class TestComplexOpTestCase(OpTestCase):
    """OpTestCase takes complex inputs (complex128, and complex64 for ``float32``)."""

    function = HolomorphicCube

    def inputs(self) -> list[tuple[np.ndarray, ...]]:
        return [(np.array([0.5 + 1j, -1.0 + 0j, 2.0 - 0.5j]),), (np.array(1.5j),)]

    def reference(self, z: np.ndarray) -> np.ndarray:
        return z**3


def test_op_test_case_catches_a_missing_conjugation() -> None:
    class TestUndeclared(TestComplexOpTestCase):
        function = UndeclaredCube

    with pytest.raises(AssertionError, match="check 'backward' failed for 1 case") as info:
        TestUndeclared().test_backward()
    assert "a conjugate missing from backward?" in str(info.value)

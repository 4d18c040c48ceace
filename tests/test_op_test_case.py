"""``ctxgrad.testing.OpTestCase``: a correct op passes every generated test; an op with one
deliberate mistake fails the check that is about that mistake, with a message naming the
check, the input case, the dtype and which inputs required grad."""

from __future__ import annotations

import unittest
from typing import Any

import numpy as np
import pytest

import ctxgrad
from ctxgrad.autograd import Function, once_differentiable
from ctxgrad.testing import OpTestCase

pytest_plugins = ["pytester"]

GENERATED = [
    "test_backward",
    "test_double_backward",
    "test_forward",
    "test_forward_mode",
    "test_inputs_are_supplied",
    "test_requires_grad_subsets",
]


def outcomes(cls: type[OpTestCase]) -> dict[str, str]:
    """Run every generated test of ``cls`` by hand: ``"passed"``, ``"skipped"`` or the failure message."""
    results: dict[str, str] = {}
    instance = cls()
    for name in GENERATED:
        try:
            getattr(instance, name)()
        except unittest.SkipTest:
            results[name] = "skipped"
        except AssertionError as exc:
            results[name] = str(exc)
        else:
            results[name] = "passed"
    return results


def failing(cls: type[OpTestCase]) -> dict[str, str]:
    return {name: message for name, message in outcomes(cls).items() if message not in ("passed", "skipped")}


# --------------------------------------------------------------------------- correct ops
class Mul(Function):
    @staticmethod
    def forward(ctx: Any, x: Any, y: Any) -> Any:
        ctx.save_for_backward(x, y)
        return x * y

    @staticmethod
    def backward(ctx: Any, grad: Any) -> Any:
        x, y = ctx.saved_tensors
        return grad * y, grad * x

    @staticmethod
    def jvp(ctx: Any, tx: Any, ty: Any) -> Any:
        x, y = ctx.saved_tensors
        return tx * y + ty * x


class MulTests(OpTestCase):
    function = Mul

    def generate_inputs(self, rng: np.random.Generator, dtype: str) -> list[tuple[Any, ...]]:
        return [
            (rng.standard_normal((2, 3)).astype(dtype), rng.standard_normal((2, 3)).astype(dtype)),
            (rng.standard_normal(3), rng.standard_normal(3)),
            (np.array(1.5), np.array(-2.0)),
        ]

    def reference(self, x: np.ndarray, y: np.ndarray) -> np.ndarray:
        return x * y


class Cube(Function):
    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx: Any, grad: Any) -> Any:
        (x,) = ctx.saved_tensors
        return 3 * x * x * grad

    @staticmethod
    def jvp(ctx: Any, tangent: Any) -> Any:
        (x,) = ctx.saved_tensors
        return 3 * x * x * tangent


class CubeTests(OpTestCase):
    function = Cube

    def inputs(self) -> list[tuple[Any, ...]]:
        return [(np.array([0.5, -1.0, 2.0]),), (ctxgrad.tensor([[1.5, -0.25]]),)]

    def reference(self, x: np.ndarray) -> np.ndarray:
        return x**3


def test_a_correct_function_passes_every_check() -> None:
    assert outcomes(MulTests) == dict.fromkeys(GENERATED, "passed")
    assert outcomes(CubeTests) == dict.fromkeys(GENERATED, "passed")


def test_a_plain_callable_with_number_and_integer_arguments_passes() -> None:
    def power_then_gather(x: Any, n: int, index: Any) -> Any:
        return (x**n)[index]

    class PowerTests(OpTestCase):
        function = power_then_gather  # a plain function: not bound as a method

        def inputs(self) -> list[tuple[Any, ...]]:
            return [(np.array([1.0, 2.0, -0.5]), 3, np.array([2, 0, 0]))]

        def reference(self, x: np.ndarray, n: int, index: np.ndarray) -> np.ndarray:
            assert index.dtype.kind == "i", "integer arrays are not cast to the float dtype"
            return (x**n)[index]

    assert outcomes(PowerTests) == dict.fromkeys(GENERATED, "passed")


def test_a_function_with_several_outputs_passes() -> None:
    class SinCosTests(OpTestCase):
        function = staticmethod(lambda x: (x.sin(), x.cos()))

        def inputs(self) -> list[tuple[Any, ...]]:
            return [(np.linspace(-1.0, 1.0, 4),)]

        def reference(self, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
            return np.sin(x), np.cos(x)

    assert outcomes(SinCosTests) == dict.fromkeys(GENERATED, "passed")


# --------------------------------------------------------------------------- deliberate mistakes
def test_a_wrong_factor_in_backward_fails_the_backward_check() -> None:
    class HalfWrongCube(Cube):
        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            (x,) = ctx.saved_tensors
            return 2 * x * x * grad

    class Tests(CubeTests):
        function = HalfWrongCube

    failures = failing(Tests)
    assert "test_backward" in failures
    message = failures["test_backward"]
    assert "check 'backward' failed for 2 case(s) of" in message
    assert "HalfWrongCube" in message
    assert "input case 0 (float64[3]), dtype float64, requires grad: inputs[0]" in message
    assert "input case 1 (float64[1, 2]), dtype float64" in message
    assert "Jacobian mismatch for output 0 with respect to input 0" in message
    # The forward and the jvp are right: those checks pass.
    assert "test_forward" not in failures and "test_forward_mode" not in failures


def test_a_backward_wrong_only_in_float32_is_caught_against_float64() -> None:
    class Float32Bug(Cube):
        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            (x,) = ctx.saved_tensors
            factor = 3.3 if x.dtype == ctxgrad.float32 else 3.0
            return factor * x * x * grad

    class Tests(CubeTests):
        function = Float32Bug

    failures = failing(Tests)
    assert set(failures) == {"test_backward"}
    message = failures["test_backward"]
    assert "input case 0 (float32[3]), dtype float32, requires grad: inputs[0]" in message
    assert "the gradient of inputs[0] in float32 differs from float64's" in message
    assert "compared with float64 on the same values" in message


def test_an_output_of_the_wrong_dtype_fails_the_forward_check() -> None:
    class AlwaysDouble(Cube):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return (x**3).to(ctxgrad.float64)

    class Tests(CubeTests):
        function = AlwaysDouble

    message = failing(Tests)["test_forward"]
    assert "check 'forward' failed for 2 case(s)" in message
    assert "dtype float32, requires grad: none" in message
    assert "output 0 has dtype float64, expected float32" in message


def test_a_wrong_forward_value_fails_against_the_reference() -> None:
    class Tests(CubeTests):
        def reference(self, x: np.ndarray) -> np.ndarray:
            return x**3 + (x > 1.9)  # disagrees at x = 2 only

    message = failing(Tests)["test_forward"]
    assert "input case 0 (float64[3]), dtype float64" in message
    assert "output 0 differs from the reference: largest difference 1 at [2]: got 8.0, expected 9.0" in message
    assert "input case 1" not in message


def test_a_reference_of_another_shape_fails_the_forward_check() -> None:
    class Tests(CubeTests):
        def reference(self, x: np.ndarray) -> np.ndarray:
            return (x**3).sum()

    assert "output 0 has shape [3], the reference []" in failing(Tests)["test_forward"]


def test_a_backward_outside_ctxgrad_ops_fails_the_double_backward_check() -> None:
    class NumpyBackward(Cube):
        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            (x,) = ctx.saved_tensors
            return ctxgrad.tensor(3 * x.detach().numpy() ** 2 * grad.detach().numpy())

    class Tests(CubeTests):
        function = NumpyBackward

    failures = failing(Tests)
    assert set(failures) == {"test_double_backward"}
    message = failures["test_double_backward"]
    assert "check 'double backward' failed for 2 case(s) of" in message
    assert "input case 0 (float64[3]), dtype float64, requires grad: inputs[0]" in message
    assert "GradcheckError" in message


def test_a_once_differentiable_backward_fails_double_backward_unless_turned_off() -> None:
    class Once(Cube):
        @staticmethod
        @once_differentiable
        def backward(ctx: Any, grad: Any) -> Any:
            (x,) = ctx.saved_tensors
            return 3 * x * x * grad

    class Tests(CubeTests):
        function = Once

    assert "once_differentiable" in failing(Tests)["test_double_backward"]

    class TurnedOff(Tests):
        check_double_backward = False

    assert outcomes(TurnedOff)["test_double_backward"] == "skipped"
    assert failing(TurnedOff) == {}


def test_a_broken_jvp_fails_the_forward_mode_check() -> None:
    class WrongJvp(Cube):
        @staticmethod
        def jvp(ctx: Any, tangent: Any) -> Any:
            (x,) = ctx.saved_tensors
            return 3 * x * tangent

    class Tests(CubeTests):
        function = WrongJvp

    failures = failing(Tests)
    assert set(failures) == {"test_forward_mode"}
    message = failures["test_forward_mode"]
    assert "check 'forward mode' failed" in message
    assert "input case 0 (float64[3]), dtype float64, tangents on: inputs[0]" in message
    assert "Jacobian computed with forward mode mismatch for output 0 with respect to input 0" in message


def test_a_missing_jvp_says_how_to_turn_the_check_off() -> None:
    class NoJvp(Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @once_differentiable
        def backward(ctx: Any, grad: Any) -> Any:
            (x,) = ctx.saved_tensors
            return 2 * x * grad

    class Tests(OpTestCase):
        function = NoJvp
        check_double_backward = False

        def inputs(self) -> list[tuple[Any, ...]]:
            return [(np.array([1.0, 2.0]),)]

    message = failing(Tests)["test_forward_mode"]
    assert "NoJvp has no jvp" in message
    assert "set `check_forward_mode = False`" in message


class NeedsGradMul(Mul):
    """Mul whose backward returns a wrong-shaped gradient for ``y`` when ``y`` does not require grad."""

    @staticmethod
    def backward(ctx: Any, grad: Any) -> Any:
        x, y = ctx.saved_tensors
        grad_y = grad * x if ctx.needs_input_grad[1] else grad.sum()
        return grad * y, grad_y


def test_a_wrong_shaped_gradient_for_an_input_not_requiring_grad_fails_the_subset_check() -> None:
    class Tests(MulTests):
        function = NeedsGradMul

    failures = failing(Tests)
    assert set(failures) == {"test_requires_grad_subsets"}
    message = failures["test_requires_grad_subsets"]
    # Cases 0 and 1; in case 2 (0-d inputs) grad.sum() happens to have the right shape.
    assert "check 'requires_grad subsets' failed for 2 case(s) of" in message
    assert "input case 0 (float64[2, 3], float64[2, 3]), dtype float64, requires grad: inputs[0]:" in message
    assert "backward raised RuntimeError" in message
    assert "invalid gradient at index 1" in message
    # Only the subset {x} is wrong: {y} alone is fine.
    assert "requires grad: inputs[1]:" not in message


def test_a_gradient_that_changes_when_another_input_does_not_require_grad_fails_the_subset_check() -> None:
    class ShortcutMul(Mul):
        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            x, y = ctx.saved_tensors
            if not ctx.needs_input_grad[1]:
                return grad * y * 2, None  # a "fast path" with a bug
            return grad * y, grad * x

    class Tests(MulTests):
        function = ShortcutMul

    message = failing(Tests)["test_requires_grad_subsets"]
    assert "requires grad: inputs[0]:" in message
    assert "the gradient of inputs[0] differs from the one when every input requires grad" in message


def test_an_output_requiring_grad_when_no_input_does_fails_the_subset_check() -> None:
    class Tests(OpTestCase):
        function = staticmethod(lambda x: x * ctxgrad.tensor(2.0, dtype=x.dtype, requires_grad=True))

        def inputs(self) -> list[tuple[Any, ...]]:
            return [(np.array([1.0, 2.0]),)]

    message = failing(Tests)["test_requires_grad_subsets"]
    assert "output(s) [0] require grad although no input does" in message


def test_many_failing_cases_are_listed_up_to_five() -> None:
    class HalfWrongCube(Cube):
        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            (x,) = ctx.saved_tensors
            return 2 * x * x * grad

    class Tests(OpTestCase):
        function = HalfWrongCube

        def inputs(self) -> list[tuple[Any, ...]]:
            return [(np.array([float(k + 1)]),) for k in range(7)]

    message = failing(Tests)["test_backward"]
    # float64 fails all 7 against gradcheck; float32 agrees with float64 (both equally wrong).
    assert "failed for 7 case(s)" in message
    assert "input case 4 (float64[1])" in message
    assert "input case 5 (float64[1])" not in message
    assert "... and 2 more failing case(s)" in message


# --------------------------------------------------------------------------- set-up mistakes and options
def test_a_subclass_without_inputs_fails_once_saying_how_to_give_them() -> None:
    class Tests(OpTestCase):
        function = Mul

    results = outcomes(Tests)
    message = results.pop("test_inputs_are_supplied")
    assert message.startswith("Tests has no input cases for Mul: give it inputs: define `def inputs(self)")
    assert "def generate_inputs(self, rng, dtype)" in message
    assert set(results.values()) == {"skipped"}


def test_a_subclass_without_function_fails_saying_how_to_set_it() -> None:
    class Tests(OpTestCase):
        def inputs(self) -> list[tuple[Any, ...]]:
            return [(np.ones(2),)]

    message = failing(Tests)["test_inputs_are_supplied"]
    assert "has no `function`: set `function = MyFunction`" in message


def test_turned_off_checks_are_skipped() -> None:
    class Tests(MulTests):
        check_backward = False
        check_double_backward = False
        check_forward_mode = False
        check_requires_grad_subsets = False

    results = outcomes(Tests)
    assert results == {
        **dict.fromkeys(GENERATED, "skipped"),
        "test_forward": "passed",
        "test_inputs_are_supplied": "passed",
    }


def test_tolerances_are_per_dtype() -> None:
    class Tests(CubeTests):
        def reference(self, x: np.ndarray) -> np.ndarray:
            return x**3 * (1 + 1e-5)

    assert "test_forward" in failing(Tests)

    class Loose(Tests):
        tolerances = {"float64": {"rtol": 1e-4}, "float32": {"rtol": 1e-4}}

    assert failing(Loose) == {}


def test_only_the_listed_dtypes_are_used_for_values() -> None:
    seen: list[str] = []

    class Tests(MulTests):
        dtypes = ("float32",)

        def generate_inputs(self, rng: np.random.Generator, dtype: str) -> list[tuple[Any, ...]]:
            seen.append(dtype)
            return super().generate_inputs(rng, dtype)

    assert failing(Tests) == {}
    # float32 for the values; float64 for the numerical checks all the same.
    assert set(seen) == {"float32", "float64"}


# --------------------------------------------------------------------------- collection
def test_unittest_collects_and_runs_the_generated_tests() -> None:
    class WithUnittest(CubeTests, unittest.TestCase):
        pass

    class WrongWithUnittest(WithUnittest):
        def reference(self, x: np.ndarray) -> np.ndarray:
            return x**2

    suite = unittest.TestLoader().loadTestsFromTestCase(WithUnittest)
    assert suite.countTestCases() == len(GENERATED)
    result = unittest.TestResult()
    suite.run(result)
    assert result.wasSuccessful(), result.failures + result.errors

    wrong = unittest.TestResult()
    unittest.TestLoader().loadTestsFromTestCase(WrongWithUnittest).run(wrong)
    assert {t.id().rsplit(".", 1)[1] for t, _ in wrong.failures} == {"test_forward"}


def test_pytest_collects_the_generated_tests(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(
        """
        import numpy as np
        from ctxgrad.testing import OpTestCase

        class TestExp(OpTestCase):
            function = staticmethod(lambda x: x.exp())

            def inputs(self):
                return [(np.array([0.0, 1.0]),)]

            def reference(self, x):
                return np.exp(x)

        class TestWrongReference(TestExp):
            def reference(self, x):
                return np.exp(x) + 1

        class TestNoInputs(OpTestCase):
            function = staticmethod(lambda x: x.exp())
        """
    )
    result = pytester.runpytest_inprocess("-q", "-p", "no:cacheprovider")
    # 6 + 6 generated tests; the wrong reference fails test_forward only; no inputs: 1 failure, 5 skips.
    result.assert_outcomes(passed=11, failed=2, skipped=5)
    result.stdout.fnmatch_lines(["*TestWrongReference::test_forward*", "*TestNoInputs::test_inputs_are_supplied*"])


def test_an_op_without_differentiable_outputs_passes() -> None:
    class ArgmaxTests(OpTestCase):
        function = staticmethod(lambda x: x.argmax(dim=-1))

        def inputs(self) -> list[tuple[Any, ...]]:
            return [(np.array([[0.1, 0.7, -0.3], [2.0, 1.0, 0.5]]),)]

        def reference(self, x: np.ndarray) -> np.ndarray:
            return x.argmax(axis=-1)

    assert outcomes(ArgmaxTests) == dict.fromkeys(GENERATED, "passed")


def test_inputs_attached_by_the_example_decorator_are_used() -> None:
    from ctxgrad.testing import example

    @example(ctxgrad.tensor([0.5, -1.0, 2.0]), scale=3.0)
    class Scale(Function):
        @staticmethod
        def forward(ctx: Any, x: Any, scale: float = 1.0) -> Any:
            ctx.scale = scale
            return x * scale

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            return grad * (ctx.scale if ctx.needs_input_grad[0] else 0.0), None

        @staticmethod
        def jvp(ctx: Any, tangent: Any, _: Any) -> Any:
            return tangent * ctx.scale

    seen: list[tuple[Any, ...]] = []

    class Tests(OpTestCase):
        function = Scale

        def reference(self, x: np.ndarray, scale: float) -> np.ndarray:
            seen.append((x, scale))
            return x * scale

    assert outcomes(Tests) == dict.fromkeys(GENERATED, "passed")
    assert [s for _, s in seen] == [3.0, 3.0]  # float64 and float32, one case each
    np.testing.assert_array_equal(seen[0][0], [0.5, -1.0, 2.0])


def test_an_example_inputs_staticmethod_is_used() -> None:
    class CubeWithExamples(Cube):
        @staticmethod
        def example_inputs() -> tuple[Any, ...]:
            return (ctxgrad.tensor([2.0, 3.0]),)

    class Tests(OpTestCase):
        function = CubeWithExamples

        def reference(self, x: np.ndarray) -> np.ndarray:
            return x**3 + 1

    message = failing(Tests)["test_forward"]
    assert "input case 0 (float64[2]), dtype float64" in message


def test_a_jvp_wrong_only_in_float32_is_caught_against_float64() -> None:
    class Float32JvpBug(Cube):
        @staticmethod
        def jvp(ctx: Any, tangent: Any) -> Any:
            (x,) = ctx.saved_tensors
            factor = 2.0 if x.dtype == ctxgrad.float32 else 3.0
            return factor * x * x * tangent

    class Tests(CubeTests):
        function = Float32JvpBug

    failures = failing(Tests)
    assert set(failures) == {"test_forward_mode"}
    message = failures["test_forward_mode"]
    assert "input case 0 (float32[3]), dtype float32, tangents on: inputs[0]" in message
    assert "the tangent of output 0 in float32 differs from float64's" in message


def test_an_output_that_is_not_a_tensor_fails_the_forward_check() -> None:
    class Tests(OpTestCase):
        function = staticmethod(lambda x: x.detach().numpy() * 2)

        def inputs(self) -> list[tuple[Any, ...]]:
            return [(np.array([1.0, 2.0]),)]

    assert "output 0 is of type ndarray, not a Tensor" in failing(Tests)["test_forward"]

"""``ctxgrad.checks.check_function``: each diagnosis on a Function with exactly that mistake
(the files of examples/checks/mistakes/), and no finding on correct Functions."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

import numpy as np
import pytest

import ctxgrad
from ctxgrad.autograd import Function, once_differentiable
from ctxgrad.checks import CheckReport, Finding, check_function, example

CHECKS = Path(__file__).resolve().parent.parent / "examples" / "checks"


def load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"_checks_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def functions_of(module: ModuleType) -> list[type[Function]]:
    return [
        v
        for v in vars(module).values()
        if isinstance(v, type) and issubclass(v, Function) and v.__module__ == module.__name__
    ]


def only_function(path: Path) -> type[Function]:
    (fn,) = functions_of(load(path))
    return fn


# file in examples/checks/mistakes -> (the one finding it must give, its severity, check_function kwargs)
MISTAKES: dict[str, tuple[str, str, dict[str, Any]]] = {
    "wrong_gradient_count": ("wrong-gradient-count", "error", {}),
    "wrong_gradient_shape": ("wrong-gradient-shape", "error", {}),
    "wrong_gradient_dtype": ("wrong-gradient-dtype", "error", {}),
    "gradient_for_non_tensor": ("gradient-for-non-tensor", "error", {}),
    "gradient_wrong_one_input": ("gradient-wrong", "error", {}),
    "gradient_constant_factor": ("gradient-constant-factor", "error", {}),
    "gradient_wrong_sign": ("gradient-wrong-sign", "error", {}),
    "gradient_transposed": ("gradient-transposed", "error", {}),
    "inplace_without_mark_dirty": ("inplace-without-mark-dirty", "error", {}),
    "tensor_as_ctx_attribute": ("tensor-as-ctx-attribute", "error", {}),
    "saved_intermediate": ("saved-intermediate", "error", {}),
    "numpy_backward": ("backward-not-differentiable", "error", {"double": True}),
    "needs_input_grad_ignored": ("needs-input-grad-ignored", "hint", {}),
    "nondeterministic_backward": ("nondeterministic-backward", "error", {}),
    "jvp_disagrees": ("jvp-disagrees-with-backward", "error", {"forward": True}),
    "once_differentiable_without_jvp": ("missing-jvp", "error", {"forward": True}),
    "backward_not_linear": ("backward-not-linear", "error", {}),
    "backward_uses_grad_magnitude": ("backward-not-linear", "error", {}),
    "contiguous_only_backward": ("wrong-for-strided-input", "error", {}),
    "complex_conjugate_missing": ("gradient-conjugate-missing", "error", {}),
    "numpy_grad_in_backward": ("backward-leaves-graph", "error", {}),
    "ignores_second_output_gradient": ("output-gradient-ignored", "error", {}),
}


def test_every_mistake_file_is_in_the_table() -> None:
    assert sorted(p.stem for p in (CHECKS / "mistakes").glob("*.py")) == sorted(MISTAKES)


@pytest.mark.parametrize("stem", sorted(MISTAKES))
def test_each_mistake_gives_exactly_its_finding(stem: str) -> None:
    name, severity, kwargs = MISTAKES[stem]
    report = check_function(only_function(CHECKS / "mistakes" / f"{stem}.py"), **kwargs)
    assert [(f.name, f.severity) for f in report.findings] == [(name, severity)], str(report)
    finding = report.findings[0]
    assert finding.message and finding.fix and "\n" not in finding.fix
    assert report.ok is (severity == "hint")


@pytest.mark.parametrize("fn", functions_of(load(CHECKS / "good_ops.py")), ids=lambda f: f.__name__)
def test_a_correct_function_gets_no_finding(fn: type[Function]) -> None:
    report = check_function(fn, double=True, forward=True)  # a jvp of its own or derived from backward
    assert report.findings == [], str(report)
    assert report.ok
    assert not any(c.status == "fail" for c in report.checks)
    assert {"gradient", "backward-returns", "double-backward"} <= {c.name for c in report.checks if c.status == "pass"}


def test_correct_functions_pass_in_float32_too() -> None:
    for fn in functions_of(load(CHECKS / "good_ops.py")):
        report = check_function(fn, dtype="float32")
        assert report.ok, str(report)
        assert "as float32" in report.checks[0].detail


# --------------------------------------------------------------------------- what the findings say
def test_the_wrong_input_is_named_when_only_one_is_wrong() -> None:
    report = check_function(only_function(CHECKS / "mistakes" / "gradient_wrong_one_input.py"))
    finding = report.findings[0]
    assert "'w' (index 1) (the only input whose gradient is wrong)" in finding.message
    assert next(c for c in report.checks if c.name == "gradient").detail.endswith("for w")


def test_constant_factor_is_given() -> None:
    finding = check_function(only_function(CHECKS / "mistakes" / "gradient_constant_factor.py")).findings[0]
    assert "backward = 0.3333 x the finite differences" in finding.message
    assert finding.fix.startswith("multiply the gradient of 'x' (index 0) by 3 ")


def test_wrong_sign_and_transpose_say_so() -> None:
    sign = check_function(only_function(CHECKS / "mistakes" / "gradient_wrong_sign.py")).findings[0]
    assert "has the wrong sign: backward = -1 x" in sign.message
    transposed = check_function(only_function(CHECKS / "mistakes" / "gradient_transposed.py")).findings[0]
    assert "'x' (index 1)" in transposed.message and "is transposed" in transposed.message


def test_structural_findings_name_the_argument() -> None:
    count = check_function(only_function(CHECKS / "mistakes" / "wrong_gradient_count.py")).findings[0]
    assert count.message == "Power.backward returned 1 value but forward takes 2 arguments (x, power)"
    shape = check_function(only_function(CHECKS / "mistakes" / "wrong_gradient_shape.py")).findings[0]
    assert "shape [2] for argument 'x' (index 0), which has shape [2, 3]" in shape.message
    dtype = check_function(only_function(CHECKS / "mistakes" / "wrong_gradient_dtype.py")).findings[0]
    assert "a float32 gradient for argument 'x' (index 0), which is float64" in dtype.message
    non_tensor = check_function(only_function(CHECKS / "mistakes" / "gradient_for_non_tensor.py")).findings[0]
    assert "argument 'scale' (index 1), which is not a tensor (float)" in non_tensor.message


def test_jvp_finding_says_which_side_is_wrong() -> None:
    finding = check_function(only_function(CHECKS / "mistakes" / "jvp_disagrees.py")).findings[0]
    assert finding.message.endswith("finite differences agree with backward, so the jvp is wrong")


def test_a_mistake_found_early_skips_the_checks_that_depend_on_it() -> None:
    report = check_function(only_function(CHECKS / "mistakes" / "inplace_without_mark_dirty.py"))
    statuses = {c.name: c.status for c in report.checks}
    assert statuses["in-place"] == "fail" and statuses["gradient"] == "skip"


# --------------------------------------------------------------------------- more Functions
class Cube(Function):
    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    def backward(ctx: Any, grad: ctxgrad.Tensor) -> ctxgrad.Tensor:
        (x,) = ctx.saved_tensors
        return 3 * x * x * grad


def vector() -> ctxgrad.Tensor:
    return ctxgrad.tensor([0.5, -1.0, 2.0])


def test_without_example_inputs_the_report_says_how_to_give_them() -> None:
    report = check_function(Cube)
    assert not report.ok
    assert [f.name for f in report.findings] == ["no-example-inputs"]
    message = report.findings[0].message
    assert "example_inputs()" in message and "@ctxgrad.checks.example(arg0, arg1, ...)" in message


def test_inputs_argument_and_example_inputs_staticmethod() -> None:
    assert check_function(Cube, (vector(),)).ok

    class WithExamples(Cube):
        @staticmethod
        def example_inputs() -> tuple[ctxgrad.Tensor]:
            return (vector(),)

    assert check_function(WithExamples).ok


def test_example_decorator_binds_keywords_and_rejects_non_functions() -> None:
    @example(ctxgrad.tensor([1.0, 2.0]), power=3.0)
    class Power(Function):
        @staticmethod
        def forward(ctx: Any, x: ctxgrad.Tensor, power: float = 2.0) -> ctxgrad.Tensor:
            ctx.save_for_backward(x)
            ctx.power = power
            return x**power

        @staticmethod
        def backward(ctx: Any, grad: ctxgrad.Tensor) -> tuple[ctxgrad.Tensor, None]:
            (x,) = ctx.saved_tensors
            return grad * ctx.power * x ** (ctx.power - 1), None

    assert check_function(Power).ok
    with pytest.raises(TypeError, match=r"@example\(\.\.\.\) decorates a Function subclass"):
        example(1)(int)


def test_a_forward_that_raises_is_a_finding() -> None:
    class Broken(Function):
        @staticmethod
        def forward(ctx: Any, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
            raise ValueError("x must be positive")

        @staticmethod
        def backward(ctx: Any, grad: ctxgrad.Tensor) -> ctxgrad.Tensor:
            return grad

    report = check_function(Broken, (vector(),))
    assert [f.name for f in report.findings] == ["forward-raises"]
    assert "Broken.apply(*example inputs) raised ValueError: x must be positive" in report.findings[0].message


def test_wrong_second_derivative_without_intermediate() -> None:
    class DetachedCube(Cube):
        @staticmethod
        def backward(ctx: Any, grad: ctxgrad.Tensor) -> ctxgrad.Tensor:
            (x,) = ctx.saved_tensors
            return 3 * x.detach() ** 2 * grad  # right first derivative, no second

    assert check_function(DetachedCube, (vector(),)).ok  # double backward not asked for
    report = check_function(DetachedCube, (vector(),), double=True)
    assert [f.name for f in report.findings] == ["wrong-second-derivative"]


def test_once_differentiable_is_accepted_unless_double_is_asked_for() -> None:
    class NumpyCube(Cube):
        @staticmethod
        @once_differentiable
        def backward(ctx: Any, grad: ctxgrad.Tensor) -> ctxgrad.Tensor:
            (x,) = ctx.saved_tensors
            return ctxgrad.from_numpy(3 * x.detach().numpy() ** 2 * grad.numpy())

    assert check_function(NumpyCube, (vector(),)).ok
    report = check_function(NumpyCube, (vector(),), double=True)
    assert [f.name for f in report.findings] == ["once-differentiable"]


def test_forward_true_checks_the_jvp_forward_mode_derives_from_backward() -> None:
    """No jvp, but a differentiable backward: forward mode derives the tangents, so
    forward=True checks those and passes, saying they were derived."""
    report = check_function(Cube, (vector(),), forward=True)
    assert report.ok and report.findings == [], str(report)
    jvp = next(c for c in report.checks if c.name == "jvp")
    assert jvp.status == "pass"
    assert jvp.detail == "jvp derived from backward (Cube defines none) agrees with finite differences"
    # Without forward=True a missing jvp is not checked at all.
    skipped = next(c for c in check_function(Cube, (vector(),)).checks if c.name == "jvp")
    assert (skipped.status, skipped.detail) == ("skip", "Cube has no jvp")


def test_forward_true_fails_where_forward_mode_itself_fails() -> None:
    class OnceCube(Cube):
        @staticmethod
        @once_differentiable
        def backward(ctx: Any, grad: ctxgrad.Tensor) -> ctxgrad.Tensor:
            (x,) = ctx.saved_tensors
            return 3 * x * x * grad

    assert check_function(OnceCube, (vector(),)).ok  # reverse mode alone is fine
    report = check_function(OnceCube, (vector(),), forward=True)
    assert [f.name for f in report.findings] == ["missing-jvp"]
    finding = report.findings[0]
    assert "OnceCube defines no jvp and its backward is marked @once_differentiable" in finding.message
    assert "NoJvpError" in finding.message
    assert finding.fix.startswith("define `jvp(ctx, *tangents)` on OnceCube")
    jvp = next(c for c in report.checks if c.name == "jvp")
    assert (jvp.status, jvp.detail) == ("fail", "OnceCube has no jvp, and forward mode cannot derive one")


def test_forward_true_with_a_numpy_backward_is_a_missing_jvp_too() -> None:
    report = check_function(only_function(CHECKS / "mistakes" / "numpy_backward.py"), forward=True)
    assert [f.name for f in report.findings] == ["backward-not-differentiable", "missing-jvp"]
    assert "its backward computes its gradients outside ctxgrad ops" in report.findings[1].message


def test_a_wrong_backward_fails_the_derived_jvp_too() -> None:
    class HalfCube(Cube):
        @staticmethod
        def backward(ctx: Any, grad: ctxgrad.Tensor) -> ctxgrad.Tensor:
            (x,) = ctx.saved_tensors
            return 1.5 * x * x * grad  # half the derivative

    assert [f.name for f in check_function(HalfCube, (vector(),)).findings] == ["gradient-constant-factor"]
    report = check_function(HalfCube, (vector(),), forward=True)
    assert [f.name for f in report.findings] == ["gradient-constant-factor", "derived-jvp-wrong"]
    statuses = {c.name: c.status for c in report.checks}
    assert statuses["gradient"] == "fail" and statuses["jvp"] == "fail"
    derived = report.findings[1]
    assert "HalfCube defines no jvp, so forward mode derives its tangents from HalfCube.backward" in derived.message
    assert "backward's gradient is wrong there too" in derived.message
    assert derived.fix.startswith("fix HalfCube.backward")


def test_a_backward_not_linear_in_its_gradient_is_named_with_or_without_forward() -> None:
    """One-hot grad_outputs pass it; random g, 2g, h and g + h do not."""
    for forward in (False, True):
        report = check_function(only_function(CHECKS / "mistakes" / "backward_not_linear.py"), forward=forward)
        statuses = {c.name: c.status for c in report.checks}
        assert statuses["linearity"] == "fail" and statuses["gradient"] == statuses["jvp"] == "skip"
        (finding,) = report.findings
        assert finding.name == "backward-not-linear"
        assert finding.message.startswith(
            "backward is not linear in grad_output: backward(2g) != 2 backward(g) for the gradient of 'x' (index 0)"
        )
        assert "(3 * Cube.apply(x)).sum()" in finding.message
        assert finding.fix.startswith("multiply grad_output by the derivative and do nothing else with it")


def test_a_jvp_of_its_own_is_checked_as_before_with_forward_true() -> None:
    report = check_function(only_function(CHECKS / "mistakes" / "jvp_disagrees.py"), forward=True)
    assert [f.name for f in report.findings] == ["jvp-disagrees-with-backward"]
    assert "derived" not in next(c for c in report.checks if c.name == "jvp").detail


def test_bad_arguments_raise() -> None:
    with pytest.raises(TypeError, match="expects a Function subclass"):
        check_function(len)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="floating-point or complex dtype"):
        check_function(Cube, (vector(),), dtype="int64")


def test_report_text_and_dict() -> None:
    report = check_function(only_function(CHECKS / "mistakes" / "gradient_wrong_sign.py"))
    text = str(report)
    assert text.splitlines()[0] == "== Cos"
    assert "  FAIL  gradient                 backward disagrees with finite differences for x" in text
    assert "  error: [gradient-wrong-sign] " in text and "    fix: negate the gradient" in text
    assert text.splitlines()[-1] == "Cos: 9 passed, 1 failed, 3 skipped; 1 error, 0 hints -> FAILED"
    data = report.to_dict()
    assert data["ok"] is False and data["function"] == "Cos"
    assert data["findings"][0]["name"] == "gradient-wrong-sign"
    assert {"name": "gradient", "status": "fail", "detail": "backward disagrees with finite differences for x"} in (
        data["checks"]
    )
    assert isinstance(report, CheckReport) and isinstance(report.finding("gradient-wrong-sign"), Finding)
    assert report.finding("nothing") is None


def test_the_user_inputs_are_not_changed() -> None:
    x = vector()
    before = np.array(x.detach().numpy(), copy=True)
    check_function(only_function(CHECKS / "mistakes" / "inplace_without_mark_dirty.py"), (x,))
    np.testing.assert_array_equal(x.detach().numpy(), before)


# --------------------------------------------------------------------------- correct Functions of other shapes
class MulTwoInPlace(Function):
    """Changes its input and says so: not an in-place mistake."""

    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        x.mul_(2)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx: Any, grad: ctxgrad.Tensor) -> ctxgrad.Tensor:
        return grad * 2


class ArgmaxAndMax(Function):
    """Two outputs, one of them an integer index marked non-differentiable."""

    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor) -> tuple[ctxgrad.Tensor, ctxgrad.Tensor]:
        index = x.argmax(1)
        ctx.mark_non_differentiable(index)
        ctx.save_for_backward(x, index)
        return x.amax(1), index

    @staticmethod
    def backward(ctx: Any, grad: ctxgrad.Tensor, grad_index: ctxgrad.Tensor) -> ctxgrad.Tensor:
        x, index = ctx.saved_tensors
        mask = ctxgrad.zeros_like(x)
        mask[ctxgrad.arange(x.shape[0]), index] = 1.0
        return mask * grad.unsqueeze(1)


class MulSetupContext(Function):
    """The forward(...) + setup_context style, with an integer tensor passed through."""

    @staticmethod
    def forward(x: ctxgrad.Tensor, y: ctxgrad.Tensor, count: ctxgrad.Tensor) -> ctxgrad.Tensor:
        return x * y * count

    @staticmethod
    def setup_context(ctx: Any, inputs: tuple[Any, ...], output: Any) -> None:
        ctx.save_for_backward(*inputs)

    @staticmethod
    def backward(ctx: Any, grad: ctxgrad.Tensor) -> tuple[ctxgrad.Tensor | None, ctxgrad.Tensor | None, None]:
        x, y, count = ctx.saved_tensors
        grad = grad * count
        return (grad * y if ctx.needs_input_grad[0] else None, grad * x if ctx.needs_input_grad[1] else None, None)


@pytest.mark.parametrize(
    ("fn", "inputs"),
    [
        (MulTwoInPlace, (vector(),)),
        (ArgmaxAndMax, (ctxgrad.tensor([[0.5, -1.0, 2.0], [3.0, 0.1, -0.2]]),)),
        (MulSetupContext, (vector(), ctxgrad.tensor([1.0, 2.0, 3.0]), ctxgrad.tensor([1, 2, 3]))),
    ],
    ids=lambda v: getattr(v, "__name__", ""),
)
def test_correct_functions_of_other_kinds_get_no_finding(fn: type[Function], inputs: tuple[Any, ...]) -> None:
    report = check_function(fn, inputs, double=True)
    assert report.findings == [] and report.ok, str(report)
    assert report.checks[0].detail.startswith(f"{2 if fn is MulSetupContext else 1} tensor input")


# --------------------------------------------------------------------------- the remaining findings
class CubeBackwardRaises(Cube):
    @staticmethod
    def backward(ctx: Any, grad: ctxgrad.Tensor) -> ctxgrad.Tensor:
        raise IndexError("tuple index out of range")


class CubeReturnsArray(Cube):
    @staticmethod
    def backward(ctx: Any, grad: ctxgrad.Tensor) -> Any:
        (x,) = ctx.saved_tensors
        return 3 * x.detach().numpy() ** 2 * grad.detach().numpy()


class CubeReturnsNone(Cube):
    @staticmethod
    def backward(ctx: Any, grad: ctxgrad.Tensor) -> None:
        return None


class Sign(Function):
    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        return (x > 0).long()

    @staticmethod
    def backward(ctx: Any, grad: ctxgrad.Tensor) -> None:
        return None


class CubeFailsWhenDifferentiated(Cube):
    @staticmethod
    def backward(ctx: Any, grad: ctxgrad.Tensor) -> ctxgrad.Tensor:
        if ctxgrad.is_grad_enabled():
            raise KeyError("surprise")
        (x,) = ctx.saved_tensors
        return 3 * x * x * grad


@pytest.mark.parametrize(
    ("fn", "inputs", "name", "fragment"),
    [
        (CubeBackwardRaises, (vector(),), "backward-raises", "raised IndexError: tuple index out of range"),
        (CubeReturnsArray, (vector(),), "gradient-not-a-tensor", "returned a ndarray as the gradient of argument 'x'"),
        (CubeReturnsNone, (vector(),), "gradient-missing", "'x' (index 0) is zero (or None)"),
        (Sign, (vector(),), "no-differentiable-output", "returned no floating-point tensor that requires grad"),
        (Cube, (ctxgrad.tensor([1, 2]),), "no-differentiable-input", "none of the example inputs of Cube"),
        (
            CubeFailsWhenDifferentiated,
            (vector(),),
            "check-raised",
            "the backward-differentiable check (it runs backward with create_graph=True (grad_outputs that require "
            "grad)) raised KeyError: 'surprise', in backward (",
        ),
    ],
    ids=lambda v: v if isinstance(v, str) and "-" in v else "",
)
def test_remaining_findings(fn: type[Function], inputs: tuple[Any, ...], name: str, fragment: str) -> None:
    report = check_function(fn, inputs)
    assert [f.name for f in report.findings] == [name], str(report)
    assert fragment in report.findings[0].message
    assert not report.ok


def test_example_inputs_that_raise_or_do_not_bind() -> None:
    class RaisingExamples(Cube):
        @staticmethod
        def example_inputs() -> tuple[ctxgrad.Tensor]:
            raise OSError("data file missing")

    report = check_function(RaisingExamples)
    assert [f.name for f in report.findings] == ["no-example-inputs"]
    assert report.findings[0].message.endswith("could not be made: OSError: data file missing")

    unbound = example(vector(), power=2.0)(type("Unbound", (Cube,), {}))
    message = check_function(unbound).findings[0].message
    assert "got an unexpected keyword argument 'power'" in message

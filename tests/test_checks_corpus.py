"""The op author's corpus (issue 30): each subtly wrong Function is named by its own finding,
with its message; correct Functions of every kind (real, complex, strided, several outputs,
outputs that are not differentiable) pass every check.  The mistakes of
examples/checks/mistakes/ are in test_checks.py; these are the ones only random
grad_outputs, strided inputs or complex inputs show."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_checks import CHECKS, functions_of, load, only_function
from test_checks import MISTAKES as MISTAKE_FINDINGS

import ctxgrad
from ctxgrad.autograd import Function
from ctxgrad.checks import check_function

MISTAKES = CHECKS / "mistakes"


def test_the_issues_nonlinear_backward_is_really_wrong_and_named() -> None:
    """``2 * x * grad * |grad|``: one-hot cotangents see 2x, but (3 * f(x)).sum() gives 18 at
    x = 1 where 6 is right."""
    square = only_function(MISTAKES / "backward_uses_grad_magnitude.py")
    x = ctxgrad.tensor([1.0], requires_grad=True)
    (3 * square.apply(x)).sum().backward()
    assert x.grad is not None and x.grad.tolist() == [18.0]
    report = check_function(square)
    assert [f.name for f in report.findings] == ["backward-not-linear"]
    assert report.findings[0].message.startswith("backward is not linear in grad_output: backward(2g) != 2 backward(g)")


def test_a_backward_right_only_for_c_contiguous_input() -> None:
    fn = only_function(MISTAKES / "contiguous_only_backward.py")
    # Right for the contiguous input, which is all the gradient check sees.
    statuses = {c.name: c.status for c in check_function(fn).checks}
    assert statuses["gradient"] == "pass" and statuses["strided"] == "fail"
    (finding,) = check_function(fn).findings
    assert finding.name == "wrong-for-strided-input"
    assert finding.message.startswith(
        "Square.backward gives a different gradient for 'x' (index 0) when 'x' (index 0) is a transposed view "
        "with the same values, not C-contiguous"
    )
    assert "x.contiguous()" in finding.fix


def test_a_transposed_input_given_through_inputs_is_checked_as_laid_out() -> None:
    """The issue's complaint: a transposed input in ``inputs=`` was made contiguous (by
    ``clone``); now the strided run keeps its strides, and says so."""
    fn = only_function(MISTAKES / "contiguous_only_backward.py")
    x = ctxgrad.tensor([[0.5, -1.0, 2.0], [1.5, 0.3, -0.7]]).t()
    assert x.clone().stride() == x.stride() == (1, 3)  # clone keeps the strides, as torch's
    report = check_function(fn, (x,))
    (finding,) = report.findings
    assert finding.name == "wrong-for-strided-input"
    assert finding.message.startswith(
        "Square.backward gives a different gradient for 'x' (index 0) when 'x' (index 0) is as given "
        "(strides (1, 3)) with the same values, not C-contiguous"
    )
    # A step-2 slice given: its clone is contiguous (torch's rule), so the checker's own
    # transposed view is the strided run.
    sliced = ctxgrad.tensor([[0.5, 9.0, -1.0, 9.0, 2.0], [1.5, 9.0, 0.3, 9.0, -0.7]])[:, ::2]
    assert [f.message[:100] for f in check_function(fn, (sliced,)).findings] == [
        "Square.backward gives a different gradient for 'x' (index 0) when 'x' (index 0) is a transposed view"
    ]


def test_a_forward_right_only_for_c_contiguous_input_is_named_as_forward() -> None:
    class FlatSquare(Function):
        @staticmethod
        def forward(ctx: Any, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
            ctx.save_for_backward(x)
            flat = x.detach().numpy().ravel(order="K")  # the memory order
            return ctxgrad.from_numpy(flat.reshape(x.shape) ** 2)

        @staticmethod
        def backward(ctx: Any, grad: ctxgrad.Tensor) -> ctxgrad.Tensor:
            (x,) = ctx.saved_tensors
            return 2 * x * grad

    report = check_function(FlatSquare, (ctxgrad.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]),))
    assert [f.name for f in report.findings] == ["wrong-for-strided-input"]
    assert report.findings[0].message.startswith("FlatSquare.forward gives a different output 0 when 'x' (index 0)")


def test_a_strided_vector_is_a_step_2_slice_and_only_the_culprit_is_named() -> None:
    class ReadsMemory(Function):
        @staticmethod
        def forward(ctx: Any, x: ctxgrad.Tensor, y: ctxgrad.Tensor) -> ctxgrad.Tensor:
            ctx.save_for_backward(x, y)
            return x * y

        @staticmethod
        def backward(ctx: Any, grad: ctxgrad.Tensor) -> tuple[ctxgrad.Tensor | None, ctxgrad.Tensor | None]:
            x, y = ctx.saved_tensors
            values = y.detach().numpy()
            # A kernel that assumes unit stride: reads the next element of memory, not of y.
            unit = np.lib.stride_tricks.as_strided(values, shape=values.shape, strides=(values.itemsize,))
            grad_x = grad * ctxgrad.from_numpy(unit.copy()) if ctx.needs_input_grad[0] else None
            return grad_x, grad * x if ctx.needs_input_grad[1] else None

    x, y = ctxgrad.tensor([1.0, 2.0, 3.0]), ctxgrad.tensor([4.0, 5.0, 6.0])
    report = check_function(ReadsMemory, (x, y))
    assert [f.name for f in report.findings] == ["wrong-for-strided-input"], str(report)
    assert report.findings[0].message.startswith(
        "ReadsMemory.backward gives a different gradient for 'x' (index 0) when 'y' (index 1) is a step-2 slice"
    )


def test_a_complex_op_with_the_conjugate_forgotten_gets_gradchecks_hint() -> None:
    (finding,) = check_function(only_function(MISTAKES / "complex_conjugate_missing.py")).findings
    assert finding.name == "gradient-conjugate-missing"
    assert finding.message.startswith("the gradient of 'z' (index 0) is the conjugate of the right one")
    assert "a conjugate missing from backward?" in finding.message
    assert finding.fix.startswith("conjugate the derivative in backward: grad_input = grad_output * conj(f'(z))")


def test_dtype_complex_makes_real_inputs_complex() -> None:
    cube = next(f for f in functions_of(load(CHECKS / "good_ops.py")) if f.__name__ == "Cube")
    report = check_function(cube, dtype="complex128")
    assert report.checks[0].detail == "1 tensor input checked, as complex128"
    assert [f.name for f in report.findings] == ["gradient-conjugate-missing"]  # 3 * x * x * grad: no conj
    assert check_function(cube, dtype="complex64").findings[0].name == "gradient-conjugate-missing"


def test_numpy_inside_backward_is_named_with_its_fix() -> None:
    (finding,) = check_function(only_function(MISTAKES / "numpy_grad_in_backward.py")).findings
    assert finding.name == "backward-leaves-graph"
    assert finding.message.startswith(
        "backward leaves the graph (numpy()): Cube.backward calls .numpy() on a tensor that requires grad"
    )
    assert "numpy_grad_in_backward.py, line 26)" in finding.message
    assert "@once_differentiable" in finding.fix


def test_numpy_on_a_saved_input_in_a_plain_backward_is_named_too() -> None:
    class SavedNumpy(Function):
        @staticmethod
        def forward(ctx: Any, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx: Any, grad: ctxgrad.Tensor) -> ctxgrad.Tensor:
            (x,) = ctx.saved_tensors
            return grad * ctxgrad.from_numpy(2 * x.numpy())

    report = check_function(SavedNumpy, (ctxgrad.tensor([1.0, 2.0]),))
    assert [f.name for f in report.findings] == ["backward-leaves-graph"]
    assert "when backward runs with create_graph=True (double backward, forward mode)" in report.findings[0].message


def test_an_ignored_gradient_of_a_second_output_is_named() -> None:
    report = check_function(only_function(MISTAKES / "ignores_second_output_gradient.py"))
    (finding,) = report.findings
    assert finding.name == "output-gradient-ignored"
    assert finding.message.startswith("SinCos.backward ignores the gradient of output 1")
    assert next(c for c in report.checks if c.name == "gradient").detail == "backward ignores the gradient of output 1"


def test_an_ignored_output_beside_a_wrong_gradient_gives_both() -> None:
    class HalfSinCos(Function):
        @staticmethod
        def forward(ctx: Any, x: ctxgrad.Tensor) -> tuple[ctxgrad.Tensor, ctxgrad.Tensor]:
            ctx.save_for_backward(x)
            return x.sin(), x.cos()

        @staticmethod
        def backward(ctx: Any, grad_sin: ctxgrad.Tensor, grad_cos: ctxgrad.Tensor) -> ctxgrad.Tensor:
            (x,) = ctx.saved_tensors
            return -grad_sin * x.cos()

    report = check_function(HalfSinCos, (ctxgrad.tensor([0.5, -1.0, 2.0]),))
    assert [f.name for f in report.findings] == ["output-gradient-ignored", "gradient-wrong-sign"]


def test_a_check_that_raises_says_which_check_and_where() -> None:
    class FailsInStridedRun(Function):
        @staticmethod
        def forward(ctx: Any, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
            if not x.is_contiguous():
                raise MemoryError("only contiguous buffers")
            return x * 2

        @staticmethod
        def backward(ctx: Any, grad: ctxgrad.Tensor) -> ctxgrad.Tensor:
            return grad * 2

    report = check_function(FailsInStridedRun, (ctxgrad.tensor([[1.0, 2.0], [3.0, 4.0]]),))
    (finding,) = report.findings
    assert finding.name == "check-raised"
    assert finding.message.startswith(
        "the strided check (it runs forward and backward on transposed or sliced views of the inputs) raised "
        "MemoryError: only contiguous buffers, in forward ("
    )
    assert f"{Path(__file__).name}, line" in finding.message
    assert finding.fix.startswith("fix forward (")
    assert ("strided", "fail") in [(c.name, c.status) for c in report.checks]


def test_inputs_are_guessed_from_forward_only_when_asked() -> None:
    class Mul(Function):
        @staticmethod
        def forward(ctx: Any, x: ctxgrad.Tensor, y: ctxgrad.Tensor, scale: float = 3.0) -> ctxgrad.Tensor:
            ctx.save_for_backward(x, y)
            ctx.scale = scale
            return x @ y * scale

        @staticmethod
        def backward(ctx: Any, grad: ctxgrad.Tensor) -> tuple[Any, Any, None]:
            x, y = ctx.saved_tensors
            grad = grad * ctx.scale
            return (
                grad @ y.T if ctx.needs_input_grad[0] else None,
                x.T @ grad if ctx.needs_input_grad[1] else None,
                None,
            )

    assert [f.name for f in check_function(Mul).findings] == ["no-example-inputs"]
    report = check_function(Mul, guess_inputs=True)
    assert report.ok and [f.name for f in report.findings] == ["inputs-guessed"]
    assert report.checks[0].detail == (
        "2 tensor inputs checked, as float64; no example inputs, so guessed from forward's signature: "
        "x: [3, 3] float64, y: [3, 3] float64, scale=3.0"
    )


# --------------------------------------------------------------------------- correct Functions
# examples/checks/good_kinds.py: one correct Function of each kind, with its example inputs.
KINDS = load(CHECKS / "good_kinds.py")
ComplexMul, MatMulNumpyForward = KINDS.ComplexMul, KINDS.MatMulNumpyForward
SinCos, SortValues, ClampedSquare = KINDS.SinCos, KINDS.SortValues, KINDS.ClampedSquare

# (Function, inputs (None: its example inputs), check_function keywords)
CORRECT: list[tuple[type[Function], tuple[Any, ...] | None, dict[str, Any]]] = [
    *((fn, None, {}) for fn in functions_of(KINDS)),
    (ComplexMul, (ctxgrad.tensor([1.0, 2.0]), ctxgrad.tensor([0.5, -1.0])), {"dtype": "complex128"}),
]


@pytest.mark.parametrize(("fn", "inputs", "kwargs"), CORRECT, ids=lambda v: getattr(v, "__name__", ""))
def test_a_correct_function_of_every_kind_passes(
    fn: type[Function], inputs: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    report = check_function(fn, inputs, double=True, **kwargs)
    assert report.findings == [] and report.ok, str(report)
    statuses = {c.name: c.status for c in report.checks}
    assert statuses["gradient"] == statuses["linearity"] == "pass"
    assert statuses["strided"] in ("pass", "skip")


def test_the_strided_check_runs_on_the_strided_corpus() -> None:
    for fn, inputs, kwargs in CORRECT:
        if fn in (MatMulNumpyForward, SinCos, SortValues, ClampedSquare):
            strided = next(c for c in check_function(fn, inputs, **kwargs).checks if c.name == "strided")
            assert (strided.status, strided.detail) == (
                "pass",
                "the same outputs and gradients for transposed or sliced inputs",
            )


def test_both_corpora_each_mistake_named_by_its_own_finding_each_correct_function_passing() -> None:
    """The two corpora in one run: every file of examples/checks/mistakes gives exactly its own
    finding, and every correct Function (examples/checks/good_ops.py and good_kinds.py) passes
    every check, double backward included."""
    named = {}
    for path in sorted(MISTAKES.glob("*.py")):
        expected, severity, kwargs = MISTAKE_FINDINGS[path.stem]
        report = check_function(only_function(path), **kwargs)
        named[path.stem] = [(f.name, f.severity) for f in report.findings]
        assert named[path.stem] == [(expected, severity)], str(report)
    assert len(named) == len(MISTAKE_FINDINGS) >= 22
    correct = [*functions_of(load(CHECKS / "good_ops.py")), *functions_of(KINDS)]
    assert [fn.__name__ for fn in correct] == [
        "Cube",
        "Exp",
        "ScaledMatVec",
        "ComplexMul",
        "AbsSquared",
        "MatMulNumpyForward",
        "SinCos",
        "SortValues",
        "ClampedSquare",
    ]
    for fn in correct:
        report = check_function(fn, double=True)
        assert report.ok and report.findings == [], str(report)
        assert {c.name: c.status for c in report.checks}["double-backward"] == "pass", str(report)

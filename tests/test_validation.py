"""One validation (Core v2, item 6): what ``backward`` and ``jvp`` return is judged by one set of
rules, :func:`gradient_problems` and :func:`tangent_problems`, which return structured
:class:`Problem` records.  The engine raises the first fatal one (its exception carries it as
``problem``, with torch's type and message), ``ctxgrad check`` reports each as a finding, and
code that must tell one failure from another catches a typed exception instead of reading
a message.

Each problem kind has its own tiny Function: the record's fields, then the engine's exception.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ctxgrad
from ctxgrad.autograd import Function, GradcheckError, GradientTypeError, gradgradcheck
from ctxgrad.autograd._validate import (
    Problem,
    check_grads,
    check_tangents,
    gradient_problems,
    problem_of,
    tangent_problems,
)
from ctxgrad.autograd.errors import (
    NoJvpError,
    OnceDifferentiableError,
    ReshapeSizeError,
    SavedArrayWriteError,
)
from ctxgrad.checks import check_function
from ctxgrad.testing.op_test_case import _lacks_jvp


def returning(name: str, grads: Callable[[Any], Any], *, two_args: bool = False) -> type[Function]:
    """A Function ``name`` whose forward is ``x * 2`` (``x * scale`` with ``two_args``) and whose
    backward returns ``grads(grad_output)``."""

    def forward_one(ctx: Any, x: Any) -> Any:
        return x * 2

    def forward_two(ctx: Any, x: Any, scale: Any) -> Any:
        return x * scale

    def backward(ctx: Any, grad: Any) -> Any:
        return grads(grad)

    forward = forward_two if two_args else forward_one
    return type(name, (Function,), {"forward": staticmethod(forward), "backward": staticmethod(backward)})


def x3(dtype: Any = ctxgrad.float64, shape: tuple[int, ...] = (3,)) -> ctxgrad.Tensor:
    return ctxgrad.ones(*shape, dtype=dtype).requires_grad_()


def engine_error(fn: type[Function], *args: Any) -> BaseException:
    """What the engine raises when it differentiates ``fn.apply(*args)``."""
    with pytest.raises(Exception) as info:
        fn.apply(*args).sum().backward()
    return info.value


def problems_of(fn: type[Function], *args: Any, grads: Any = None) -> list[Problem]:
    """gradient_problems for what ``fn``'s backward returns on ``fn.apply(*args)``, from its node."""
    node = fn.apply(*args).grad_fn
    seed = ctxgrad.ones(3, dtype=ctxgrad.float64) if grads is None else grads
    return gradient_problems(node, fn.backward(node, seed))


# --------------------------------------------------------------------------- gradients, kind by kind
def test_count() -> None:
    TwoGrads = returning("TwoGrads", lambda g: (g, g))
    x = x3()
    [problem] = problems_of(TwoGrads, x)
    assert (problem.kind, problem.index, problem.name, problem.expected, problem.got) == ("count", None, None, 1, 2)
    assert problem.fatal
    exc = engine_error(TwoGrads, x)
    assert type(exc) is RuntimeError
    assert (
        str(exc)
        == problem.message
        == (
            "function TwoGradsBackward returned an incorrect number of gradients (expected 1, got 2); forward "
            "takes (x), so backward must return one gradient (or None) for each"
        )
    )
    assert problem_of(exc) == problem


def test_extra_trailing_nones_are_not_a_problem() -> None:
    TrailingNone = returning("TrailingNone", lambda g: (g * 2, None, None))
    x = x3()
    assert problems_of(TrailingNone, x) == []
    TrailingNone.apply(x).sum().backward()
    assert x.grad is not None and x.grad.tolist() == [2.0, 2.0, 2.0]


def test_gradient_for_non_tensor() -> None:
    Scaled = returning("Scaled", lambda g: (g * 2, g), two_args=True)
    x = x3()
    [problem] = problems_of(Scaled, x, 2.0)
    assert (problem.kind, problem.index, problem.name, problem.expected, problem.got) == (
        "gradient-for-non-tensor",
        1,
        "scale",
        "None",
        "Tensor",
    )
    exc = engine_error(Scaled, x, 2.0)
    assert type(exc) is GradientTypeError and isinstance(exc, TypeError) and isinstance(exc, RuntimeError)
    assert (
        str(exc)
        == problem.message
        == (
            "function ScaledBackward returned a gradient different than None at position 2, but the corresponding "
            "forward input was not a Variable (argument 'scale' (index 1) is not a tensor; return None for it)"
        )
    )
    assert problem_of(exc) == problem


def test_not_a_tensor() -> None:
    FloatGrad = returning("FloatGrad", lambda g: 1.5)
    x = x3()
    [problem] = problems_of(FloatGrad, x)
    assert (problem.kind, problem.index, problem.name, problem.expected, problem.got) == (
        "not-a-tensor",
        0,
        "x",
        "Tensor",
        "float",
    )
    exc = engine_error(FloatGrad, x)
    assert type(exc) is GradientTypeError
    assert (
        str(exc)
        == problem.message
        == (
            "expected Variable or None (got float): function FloatGradBackward returned it as the gradient of "
            "argument 'x' (index 0); wrap it with ctxgrad.tensor or return None"
        )
    )
    assert problem_of(exc) == problem


def test_shape() -> None:
    BadShape = returning("BadShape", lambda g: ctxgrad.ones(4, dtype=ctxgrad.float64))
    x = x3()
    [problem] = problems_of(BadShape, x)
    assert (problem.kind, problem.index, problem.name, problem.expected, problem.got) == ("shape", 0, "x", (3,), (4,))
    exc = engine_error(BadShape, x)
    assert type(exc) is RuntimeError
    assert (
        str(exc)
        == problem.message
        == (
            "Function BadShapeBackward returned an invalid gradient at index 0 - got [4] but expected shape compatible "
            "with [3] (argument 'x' (index 0) of BadShape.forward has shape [3]; a gradient must have the argument's "
            "shape or a shape it broadcasts to)"
        )
    )
    assert problem_of(exc) == problem


def test_a_shape_that_broadcasts_is_summed_down_not_a_problem() -> None:
    Broadcast = returning("Broadcast", lambda g: ctxgrad.ones(2, 3, dtype=ctxgrad.float64))
    x = x3()
    assert problems_of(Broadcast, x) == []
    Broadcast.apply(x).sum().backward()
    assert x.grad is not None and x.grad.tolist() == [2.0, 2.0, 2.0]


def test_complex_for_real() -> None:
    ComplexGrad = returning("ComplexGrad", lambda g: g.to(ctxgrad.complex128))
    x = x3()
    [problem] = problems_of(ComplexGrad, x)
    assert (problem.kind, problem.index, problem.name, problem.expected, problem.got) == (
        "complex-for-real",
        0,
        "x",
        "float64",
        "complex128",
    )
    exc = engine_error(ComplexGrad, x)
    assert type(exc) is RuntimeError
    assert (
        str(exc)
        == problem.message
        == (
            "Function ComplexGradBackward returned a complex gradient for argument 'x' (index 0), which is real "
            "(float64); return the real part or make the input complex"
        )
    )
    assert problem_of(exc) == problem


def test_dtype_is_a_problem_the_engine_fixes_by_casting() -> None:
    Float32Grad = returning("Float32Grad", lambda g: g.to(ctxgrad.float32))
    x = x3()
    [problem] = problems_of(Float32Grad, x)
    assert (problem.kind, problem.index, problem.name, problem.expected, problem.got) == (
        "dtype",
        0,
        "x",
        "float64",
        "float32",
    )
    assert not problem.fatal
    assert "Float32Grad.backward returned a float32 gradient for argument 'x' (index 0), which is float64" in (
        problem.message
    )
    Float32Grad.apply(x).sum().backward()  # no error: cast, as torch does
    assert x.grad is not None and x.grad.dtype == ctxgrad.float64


def test_every_problem_is_found_and_the_engine_raises_the_first_fatal_one() -> None:
    def wrong(g: Any) -> Any:
        return g.to(ctxgrad.float32), ctxgrad.ones(5, dtype=ctxgrad.float64), "three"

    Many = returning("Many", wrong, two_args=True)
    x, w = x3(), x3()
    problems = problems_of(Many, x, w)
    assert [(p.kind, p.index) for p in problems] == [("count", None), ("dtype", 0), ("shape", 1)]
    exc = engine_error(Many, x, w)
    assert problem_of(exc) == problems[0]


def test_a_function_class_with_its_inputs_gives_the_problems_of_its_node() -> None:
    def wrong(g: Any) -> Any:
        return ctxgrad.ones(4, dtype=ctxgrad.float64), 1.0

    Wrong = returning("Wrong", wrong, two_args=True)
    x = x3()
    node = Wrong.apply(x, 2.0).grad_fn
    result = Wrong.backward(node, ctxgrad.ones(3, dtype=ctxgrad.float64))
    from_node = gradient_problems(node, result)
    assert [p.kind for p in from_node] == ["shape", "gradient-for-non-tensor"]
    assert gradient_problems(Wrong, result, (x, 2.0)) == from_node
    with pytest.raises(TypeError, match=r"give the arguments of its apply call as inputs"):
        gradient_problems(Wrong, result)


def test_a_star_args_argument_is_named_by_its_place_in_args() -> None:
    class Star(Function):
        @staticmethod
        def forward(ctx: Any, *xs: Any) -> Any:
            return xs[0] * xs[1]

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            return grad, 2.0

    a, b = x3(), x3()
    [problem] = problems_of(Star, a, b)
    assert (problem.kind, problem.index, problem.name, problem.argument) == (
        "not-a-tensor",
        1,
        "args[1]",
        "'args[1]' (index 1)",
    )


def test_check_grads_passes_an_exact_gradient_and_fits_the_others() -> None:
    Mul = returning("Mul", lambda g: (g, g), two_args=True)
    x, w = x3(), x3(shape=(1, 3))
    node = Mul.apply(x, w).grad_fn
    exact = ctxgrad.ones(1, 3, dtype=ctxgrad.float64)
    wide32 = ctxgrad.ones(2, 3, dtype=ctxgrad.float32)
    fitted, passed = check_grads(node, (wide32, exact))
    assert passed is exact
    assert fitted is not None and fitted.dtype == ctxgrad.float64 and fitted.tolist() == [2.0, 2.0, 2.0]


def test_errors_not_from_validation_carry_no_problem() -> None:
    assert problem_of(RuntimeError("something else")) is None


# --------------------------------------------------------------------------- tangents, kind by kind
def with_jvp(name: str, forward: Callable[[Any], Any], jvp: Callable[[Any], Any]) -> type[Function]:
    def fw(ctx: Any, x: Any) -> Any:
        return forward(x)

    def backward(ctx: Any, *grads: Any) -> Any:
        return grads[0] * 2

    def jvp_(ctx: Any, t: Any) -> Any:
        return jvp(t)

    namespace = {"forward": staticmethod(fw), "backward": staticmethod(backward), "jvp": staticmethod(jvp_)}
    return type(name, (Function,), namespace)


def forward_mode(fn: type[Function]) -> tuple[Any, BaseException | None]:
    """``fn.apply`` on a dual tensor: the tangent of its first output, or what it raised."""
    fw = ctxgrad.autograd.forward_ad
    with fw.dual_level():
        x = fw.make_dual(ctxgrad.ones(3, dtype=ctxgrad.float64), ctxgrad.ones(3, dtype=ctxgrad.float64))
        try:
            out = fn.apply(x)
        except Exception as exc:
            return None, exc
        first = out[0] if isinstance(out, tuple) else out
        return fw.unpack_dual(first).tangent, None


TANGENT_CASES = [  # (forward, jvp, (kind, index, expected, got), exception type, message)
    pytest.param(
        lambda x: x * 2,
        lambda t: (t, t),
        ("tangent-count", None, 1, 2),
        RuntimeError,
        "function TangentCase.jvp returned an incorrect number of tangents (expected 1, got 2)",
        id="tangent-count",
    ),
    pytest.param(
        lambda x: (x * 2, (x > 0).long()),
        lambda t: (t * 2, t),
        ("tangent-for-non-differentiable", 1, "None", "Tensor"),
        RuntimeError,
        "function TangentCase.jvp returned a tangent at position 1, but the corresponding forward output is "
        "not a differentiable Tensor (not floating point, or marked non-differentiable). You should return None at "
        "that position instead.",
        id="tangent-for-non-differentiable",
    ),
    pytest.param(
        lambda x: x * 2,
        lambda t: 2.0,
        ("tangent-not-a-tensor", 0, "Tensor", "float"),
        TypeError,
        "function TangentCase.jvp returned a float as tangent 0; expected a Tensor or None",
        id="tangent-not-a-tensor",
    ),
    pytest.param(
        lambda x: x * 2,
        lambda t: ctxgrad.ones(4, dtype=ctxgrad.float64),
        ("tangent-shape", 0, (3,), (4,)),
        RuntimeError,
        "function TangentCase.jvp returned an invalid tangent at index 0 - got [4] but expected shape "
        "compatible with [3]",
        id="tangent-shape",
    ),
]


@pytest.mark.parametrize(("forward", "jvp", "fields", "exc_type", "message"), TANGENT_CASES)
def test_tangent_problems_are_what_forward_mode_raises(
    forward: Callable[[Any], Any],
    jvp: Callable[[Any], Any],
    fields: tuple[Any, ...],
    exc_type: type[Exception],
    message: str,
) -> None:
    fn = with_jvp("TangentCase", forward, jvp)
    outs = fn.apply(ctxgrad.ones(3, dtype=ctxgrad.float64))
    outs = outs if isinstance(outs, tuple) else (outs,)
    result = jvp(ctxgrad.ones(3, dtype=ctxgrad.float64))
    [problem] = tangent_problems(fn, outs, result)
    assert (problem.kind, problem.index, problem.expected, problem.got) == fields
    assert problem.name is None and problem.message == message
    _, exc = forward_mode(fn)
    assert type(exc) is exc_type and str(exc) == message
    assert problem_of(exc) in (None, problem)  # (None until _dual.py calls check_tangents)
    with pytest.raises(exc_type) as info:
        check_tangents(fn, outs, result)
    assert type(info.value) is exc_type and str(info.value) == message and problem_of(info.value) == problem


def test_a_tangent_of_another_dtype_is_cast() -> None:
    fn = with_jvp("Float32Tangent", lambda x: x * 2, lambda t: (t * 2).to(ctxgrad.float32))
    out = fn.apply(ctxgrad.ones(3, dtype=ctxgrad.float64))
    result = (ctxgrad.ones(3) * 2).to(ctxgrad.float32)
    [problem] = tangent_problems(fn, (out,), result)
    assert (problem.kind, problem.index, problem.expected, problem.got, problem.fatal) == (
        "tangent-dtype",
        0,
        "float64",
        "float32",
        False,
    )
    [cast] = check_tangents(fn, (out,), result)
    assert cast is not None and cast.dtype == ctxgrad.float64
    tangent, exc = forward_mode(fn)
    assert exc is None and tangent.dtype == ctxgrad.float64 and tangent.tolist() == [2.0, 2.0, 2.0]


def test_none_tangents_and_marked_outputs() -> None:
    class TwoOuts(Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            a, b = x * 2, x * 3
            ctx.mark_non_differentiable(b)
            return a, b

        @staticmethod
        def backward(ctx: Any, ga: Any, gb: Any) -> Any:
            return ga * 2

    a, b = TwoOuts.apply(ctxgrad.ones(3, dtype=ctxgrad.float64))
    t = ctxgrad.ones(3, dtype=ctxgrad.float64)
    assert tangent_problems(TwoOuts, (a, b), (t, None), (b,)) == []
    assert check_tangents(TwoOuts, (a, b), (t, None), (b,)) == [t, None]
    [problem] = tangent_problems(TwoOuts, (a, b), (t, t), (b,))
    assert (problem.kind, problem.index) == ("tangent-for-non-differentiable", 1)


# --------------------------------------------------------------------------- one source of truth
def cube_returning(name: str, grads: Callable[[Any, Any], Any]) -> type[Function]:
    """A cube Function whose backward returns ``grads(x, grad_output)``, and takes a scale."""

    def forward(ctx: Any, x: Any, scale: Any) -> Any:
        ctx.save_for_backward(x)
        return x**3 * scale

    def backward(ctx: Any, grad: Any) -> Any:
        (x,) = ctx.saved_tensors
        return grads(x, grad)

    return type(name, (Function,), {"forward": staticmethod(forward), "backward": staticmethod(backward)})


MISTAKEN = [
    pytest.param(lambda x, g: 3 * x * x * g, "count", "wrong-gradient-count", id="count"),
    pytest.param(lambda x, g: (3 * x * x * g, g.sum()), "gradient-for-non-tensor", "gradient-for-non-tensor", id="nt"),
    pytest.param(lambda x, g: ((3 * x * x * g).tolist(), None), "not-a-tensor", "gradient-not-a-tensor", id="type"),
    pytest.param(lambda x, g: ((3 * x * x * g)[:2], None), "shape", "wrong-gradient-shape", id="shape"),
    pytest.param(
        lambda x, g: ((3 * x * x * g).to(ctxgrad.complex128), None),
        "complex-for-real",
        "wrong-gradient-dtype",
        id="complex",
    ),
]


@pytest.mark.parametrize(("grads", "kind", "finding"), MISTAKEN)
def test_check_function_reports_the_problem_the_engine_raises(
    grads: Callable[[Any, Any], Any], kind: str, finding: str
) -> None:
    fn = cube_returning("Mistaken", grads)
    x = ctxgrad.tensor([0.5, -1.0, 2.0], dtype=ctxgrad.float64, requires_grad=True)
    problem = problem_of(engine_error(fn, x, 2.0))
    assert problem is not None and problem.kind == kind

    report = check_function(fn, (ctxgrad.tensor([0.5, -1.0, 2.0]), 2.0))
    assert [f.name for f in report.findings] == [finding], str(report)
    message = report.findings[0].message
    if kind == "count":
        assert f"returned {problem.got} value" in message and f"takes {problem.expected} arguments" in message
    else:
        assert f"argument {problem.argument}" in message
    if kind == "shape":
        assert f"shape {list(problem.got)} for argument 'x' (index 0), which has shape {list(problem.expected)}" in (
            message
        )
    failed = next(c for c in report.checks if c.name == "backward-returns")
    assert failed.status == "fail" and failed.detail == "1 problem with the gradients backward returns"


def test_check_function_reports_a_dtype_the_engine_casts() -> None:
    fn = cube_returning("Float32Cube", lambda x, g: ((3 * x * x * g).to(ctxgrad.float32), None))
    [problem] = problems_of(fn, x3(), 2.0, grads=ctxgrad.ones(3, dtype=ctxgrad.float64))
    report = check_function(fn, (ctxgrad.tensor([0.5, -1.0, 2.0]), 2.0))
    [finding] = report.findings
    assert finding.name == "wrong-gradient-dtype"
    assert f"a {problem.got} gradient for argument {problem.argument}, which is {problem.expected}" in finding.message


def test_check_function_uses_the_engine_s_rules(monkeypatch: pytest.MonkeyPatch) -> None:
    """The checker has no rules of its own: what gradient_problems says is what it reports."""
    import ctxgrad.checks

    invented = Problem("count", None, None, 7, 9, "invented")
    monkeypatch.setattr(ctxgrad.checks, "gradient_problems", lambda *args: [invented])
    report = check_function(cube_returning("Fine", lambda x, g: (3 * x * x * g * 2.0, None)), (x3(), 2.0))
    assert [f.name for f in report.findings] == ["wrong-gradient-count"]
    assert report.findings[0].message.startswith("Fine.backward returned 9 values but forward takes 7 arguments")


# --------------------------------------------------------------------------- typed errors instead of messages
def test_typed_errors_are_subclasses_of_torch_s_types() -> None:
    assert issubclass(GradientTypeError, TypeError) and issubclass(GradientTypeError, RuntimeError)
    assert issubclass(OnceDifferentiableError, RuntimeError)
    assert issubclass(NoJvpError, NotImplementedError)
    assert issubclass(ReshapeSizeError, RuntimeError)
    assert issubclass(SavedArrayWriteError, RuntimeError)


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda: ctxgrad.zeros(2, 3).reshape(4), id="reshape"),
        pytest.param(lambda: ctxgrad.zeros(2, 3).view(-1, 4), id="view"),
    ],
)
def test_a_shape_of_the_wrong_size_raises_reshape_size_error(call: Callable[[], Any]) -> None:
    with pytest.raises(ReshapeSizeError, match=r"is invalid for input of size 6"):
        call()


def test_unflatten_tells_a_wrong_size_from_other_shape_errors() -> None:
    x = ctxgrad.zeros(2, 6)
    with pytest.raises(RuntimeError) as size:
        x.unflatten(1, (4, 2))
    assert str(size.value) == (
        "unflatten: Provided sizes [4, 2] don't multiply up to the size of dim 1 (6) in the input tensor"
    )
    with pytest.raises(RuntimeError) as other:
        x.unflatten(1, (-1, -1))
    assert str(other.value) == "unflatten got an unexpected error:\nonly one dimension can be inferred"


def raising_backward(exc: Exception) -> type[Function]:
    """A square whose backward, when differentiated again, raises ``exc``."""

    class Raises(Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x * 1.0

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            raise exc

    class Square(Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            (x,) = ctx.saved_tensors
            return Raises.apply(2 * x * grad)

    return Square


@pytest.mark.parametrize(
    "exc",
    [
        pytest.param(OnceDifferentiableError("the typed error, whatever its words"), id="once-differentiable"),
        pytest.param(NoJvpError("no tangents here"), id="no-jvp"),
    ],
)
def test_gradgradcheck_reads_the_type_not_the_message(exc: Exception) -> None:
    x = ctxgrad.tensor([0.5, 1.5], dtype=ctxgrad.float64, requires_grad=True)
    with pytest.raises(GradcheckError, match="the backward cannot be differentiated") as info:
        gradgradcheck(raising_backward(exc).apply, (x,))
    assert info.value.__cause__ is exc


def test_gradgradcheck_lets_other_runtime_errors_through() -> None:
    x = ctxgrad.tensor([0.5, 1.5], dtype=ctxgrad.float64, requires_grad=True)
    with pytest.raises(RuntimeError, match="an unrelated failure"):
        gradgradcheck(raising_backward(RuntimeError("an unrelated failure")).apply, (x,))


def test_op_test_case_says_how_to_turn_forward_mode_off_only_for_a_missing_jvp() -> None:
    assert _lacks_jvp(NoJvpError("anything"))
    wrapped = GradcheckError("forward mode failed")
    wrapped.__cause__ = NoJvpError("anything")
    assert _lacks_jvp(wrapped)
    assert not _lacks_jvp(RuntimeError("function F.jvp returned an incorrect number of tangents"))


def test_the_engine_still_passes_an_exact_gradient_through() -> None:
    Identity = returning("Identity", lambda g: g)
    x = x3()
    Identity.apply(x).sum().backward()
    assert x.grad is not None and np.array_equal(x.grad.numpy(), np.full(3, 1.0))

"""``ctxgrad.autograd.gradcheck`` and ``gradgradcheck``: right backwards pass, wrong ones
fail with a message that names the input and output, and the pass/fail decisions match
``torch.autograd.gradcheck`` on the same functions.

Most functions here are written once against a ``lib`` argument (``ctxgrad`` or ``torch``):
ctxgrad mirrors torch's API, so the same body builds the ctxgrad and the torch version.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ctxgrad
from ctxgrad.autograd import Function, GradcheckError, gradcheck, gradgradcheck, once_differentiable

RNG = np.random.default_rng(1234)
X3 = RNG.uniform(0.5, 1.5, 3) * np.array([1.0, -1.0, 1.0])
A22 = RNG.standard_normal((2, 2))
B23 = RNG.standard_normal((2, 3))
W24 = RNG.standard_normal((2, 4))
X34 = RNG.standard_normal((3, 4))


def leaf(lib: Any, arr: Any) -> Any:
    return lib.tensor(np.array(arr, dtype=np.float64), dtype=lib.float64, requires_grad=True)


# --------------------------------------------------------------------------- functions, in either library
def cube(lib: Any, factor: float = 3.0) -> Callable[..., Any]:
    """x ** 3 with backward ``factor * x**2 * g`` (right when factor is 3) and a right jvp."""

    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            (x,) = ctx.saved_tensors
            return factor * x * x * grad

        @staticmethod
        def jvp(ctx: Any, tangent: Any) -> Any:
            (x,) = ctx.saved_tensors
            return 3 * x * x * tangent

    return Cube.apply


def linear(lib: Any, weight_factor: float = 1.0) -> Callable[..., Any]:
    """``x @ w.T * scale`` (scale a Python float): only the weight gradient can be wrong."""

    class Linear(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any, w: Any, scale: float) -> Any:
            ctx.save_for_backward(x, w)
            ctx.scale = scale
            return x.matmul(w.t()) * scale

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            x, w = ctx.saved_tensors
            return grad.matmul(w) * ctx.scale, grad.t().matmul(x) * ctx.scale * weight_factor, None

    return Linear.apply


def left_matmul(lib: Any, transposed: bool = False) -> Callable[..., Any]:
    """``a @ b`` with a square ``a``; ``transposed`` returns the transpose of a's gradient."""

    class MatMul(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, a: Any, b: Any) -> Any:
            ctx.save_for_backward(a, b)
            return a.matmul(b)

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            a, b = ctx.saved_tensors
            grad_a = grad.matmul(b.t())
            return (grad_a.t() if transposed else grad_a), a.t().matmul(grad)

    return MatMul.apply


def two_outputs(lib: Any, second_factor: float = 1.0) -> Callable[..., Any]:
    """``(2 x, x * x)``; the second output's gradient can be wrong."""

    class Pair(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x * 2, x * x

        @staticmethod
        def backward(ctx: Any, grad_double: Any, grad_square: Any) -> Any:
            (x,) = ctx.saved_tensors
            return grad_double * 2 + grad_square * 2 * x * second_factor

    return Pair.apply


def sum_of_cubes_ignoring_grad(lib: Any) -> Callable[..., Any]:
    """A scalar output whose backward forgets to multiply by the incoming gradient."""

    class SumCubes(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return (x**3).sum()

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            (x,) = ctx.saved_tensors
            return 3 * x * x

    return SumCubes.apply


def builtin_mix(lib: Any) -> Callable[..., Any]:
    return lambda a, b: ((a.sin() * b).sum(0) / (1 + b.exp().sum()), a.tanh().matmul(b.t()))


# (name, builder, input arrays, whether the backward is right)
CASES: list[tuple[str, Callable[[Any], Callable[..., Any]], tuple[Any, ...], bool]] = [
    ("cube", cube, (X3,), True),
    ("cube, wrong factor", lambda lib: cube(lib, 2.0), (X3,), False),
    ("cube, wrong sign", lambda lib: cube(lib, -3.0), (X3,), False),
    ("linear", linear, (X34, W24, 1.5), True),
    ("linear, wrong for the weight only", lambda lib: linear(lib, 2.0), (X34, W24, 1.5), False),
    ("matmul", left_matmul, (A22, B23), True),
    ("matmul, transposed gradient", lambda lib: left_matmul(lib, True), (A22, B23), False),
    ("two outputs", two_outputs, (X3,), True),
    ("two outputs, second wrong", lambda lib: two_outputs(lib, 0.5), (X3,), False),
    ("not multiplied by grad_output", sum_of_cubes_ignoring_grad, (X3,), False),
    ("built-in ops", builtin_mix, (X34, X34 + 1), True),
]


def build(lib: Any, case: tuple[str, Callable[[Any], Callable[..., Any]], tuple[Any, ...], bool]) -> tuple[Any, ...]:
    _, builder, arrays, _ = case
    inputs = tuple(leaf(lib, a) if isinstance(a, np.ndarray) else a for a in arrays)
    return builder(lib), inputs


@pytest.mark.parametrize("fast_mode", [False, True], ids=["slow", "fast"])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_pass_fail_decision_is_torchs(case: Any, fast_mode: bool, torch: Any) -> None:
    func, inputs = build(ctxgrad, case)
    ours = gradcheck(func, inputs, fast_mode=fast_mode, raise_exception=False)
    torch_func, torch_inputs = build(torch, case)
    theirs = torch.autograd.gradcheck(torch_func, torch_inputs, fast_mode=fast_mode, raise_exception=False)
    assert ours is theirs is case[3]
    if not case[3]:
        # The first line of the message is torch's, so a search for torch's message finds it.
        with pytest.raises(GradcheckError) as info:
            gradcheck(func, inputs, fast_mode=fast_mode)
        # torch exports GradcheckError from torch.autograd.gradcheck only (ctxgrad also from ctxgrad.autograd).
        with pytest.raises(sys.modules["torch.autograd.gradcheck"].GradcheckError) as torch_info:
            torch.autograd.gradcheck(torch_func, torch_inputs, fast_mode=fast_mode)
        assert str(info.value).startswith(str(torch_info.value).splitlines()[0])


def test_forward_over_reverse_scalar_and_non_leaf_inputs() -> None:
    s = ctxgrad.tensor(0.7, dtype=ctxgrad.float64, requires_grad=True)
    x = leaf(ctxgrad, X3) * 2  # not a leaf: perturbed all the same
    assert gradcheck(lambda a, b: a * b.exp(), (s, x), check_forward_ad=True) is True
    assert gradgradcheck(lambda a, b: a * b.exp(), (s, x), check_fwd_over_rev=True) is True


def test_right_custom_function_and_builtins_pass_with_forward_ad() -> None:
    x = leaf(ctxgrad, X3)
    assert gradcheck(cube(ctxgrad), (x,), check_forward_ad=True) is True
    assert gradcheck(cube(ctxgrad), (x,), check_forward_ad=True, fast_mode=True) is True
    a, b = leaf(ctxgrad, X34), leaf(ctxgrad, X34 + 1)
    assert gradcheck(builtin_mix(ctxgrad), (a, b), check_forward_ad=True) is True
    assert gradcheck(builtin_mix(ctxgrad), (a, b), check_forward_ad=True, check_backward_ad=False) is True


def test_single_tensor_input_and_inputs_left_unchanged() -> None:
    x = leaf(ctxgrad, X34)
    before, version = x.detach().numpy().copy(), x._version
    assert gradcheck(lambda t: ctxgrad.nn.functional.softmax(t, dim=1), x) is True
    assert gradcheck(lambda t: ctxgrad.nn.functional.softmax(t, dim=1), x, fast_mode=True) is True
    np.testing.assert_array_equal(x.detach().numpy(), before)
    assert x._version == version and x.grad is None


# --------------------------------------------------------------------------- messages
def failure(func: Callable[..., Any], inputs: Any, **kwargs: Any) -> str:
    with pytest.raises(GradcheckError) as info:
        gradcheck(func, inputs, **kwargs)
    return str(info.value)


@pytest.mark.parametrize("fast_mode", [False, True], ids=["slow", "fast"])
def test_wrong_factor_names_input_output_and_the_factor(fast_mode: bool) -> None:
    message = failure(cube(ctxgrad, 2.0), (leaf(ctxgrad, X3),), fast_mode=fast_mode)
    assert message.startswith("Jacobian mismatch for output 0 with respect to input 0,\n")
    assert "input 0 is inputs[0] (argument 'x' of Cube.forward): shape [3], float64" in message
    assert "analytical = 0.666667 x numerical" in message
    assert "largest absolute error" in message and "largest relative error: 0.333333" in message
    assert "numerical:tensor(" in message and "analytical:tensor(" in message
    assert ("fast mode: for random unit directions" in message) is fast_mode


def test_wrong_sign_is_called_a_sign_error() -> None:
    message = failure(cube(ctxgrad, -3.0), (leaf(ctxgrad, X3),))
    assert "analytical = -1 x numerical: a sign error" in message


def test_wrong_for_one_input_only_names_that_input_by_name() -> None:
    x, w = leaf(ctxgrad, X34), leaf(ctxgrad, W24)
    message = failure(linear(ctxgrad, 2.0), (x, w, 1.5))
    assert message.startswith("Jacobian mismatch for output 0 with respect to input 1,")
    assert "input 1 is inputs[1] (argument 'w' of Linear.forward): shape [2, 4]" in message
    assert "/ d w[" in message


def test_transposed_gradient_is_recognized() -> None:
    message = failure(left_matmul(ctxgrad, True), (leaf(ctxgrad, A22), leaf(ctxgrad, B23)))
    assert message.startswith("Jacobian mismatch for output 0 with respect to input 0,")
    assert "argument 'a' of MatMul.forward" in message
    assert "input transposed" in message


def test_wrong_second_output_names_output_1() -> None:
    message = failure(two_outputs(ctxgrad, 0.5), (leaf(ctxgrad, X3),))
    assert message.startswith("Jacobian mismatch for output 1 with respect to input 0,")
    assert "output 1 is func's result[1]: shape [3]" in message


def test_non_tensor_inputs_pass_through_and_are_not_counted() -> None:
    def scaled(k: int, x: Any, mode: str, y: Any) -> Any:
        assert mode == "mul"
        return x * y * k

    x, y = leaf(ctxgrad, X3), leaf(ctxgrad, X3 + 2)
    assert gradcheck(scaled, (2, x, "mul", y)) is True

    class WrongSecond(Function):
        @staticmethod
        def forward(ctx: Any, k: int, x: Any, y: Any) -> Any:
            ctx.save_for_backward(x, y)
            return x * y * k

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            x, y = ctx.saved_tensors
            return None, grad * y * 2, grad * x  # y's gradient lacks the factor k = 2

    message = failure(WrongSecond.apply, (2, x, y))
    assert message.startswith("Jacobian mismatch for output 0 with respect to input 1,")
    assert "input 1 is inputs[2] (argument 'y' of WrongSecond.forward)" in message


def test_large_jacobian_shows_its_worst_entries_instead() -> None:
    x = leaf(ctxgrad, RNG.uniform(0.5, 1.5, 12))
    message = failure(cube(ctxgrad, 2.9), (x,))
    assert "the 5 worst entries (of 144):" in message
    assert "numerical:tensor(" not in message
    assert message.count("Jacobian[") >= 5 + 2


def test_not_multiplied_by_grad_output() -> None:
    message = failure(sum_of_cubes_ignoring_grad(ctxgrad), (leaf(ctxgrad, X3),))
    assert message.startswith("backward not multiplied by grad_output")
    assert "input 0 (inputs[0] (argument 'x' of SumCubes.forward))" in message


def test_raise_exception_false_returns_false() -> None:
    assert gradcheck(cube(ctxgrad, 2.0), (leaf(ctxgrad, X3),), raise_exception=False) is False
    assert gradgradcheck(cube(ctxgrad), (leaf(ctxgrad, X3),), raise_exception=False) is True


def test_gradcheck_error_is_a_runtime_error_importable_like_torchs() -> None:
    assert issubclass(GradcheckError, RuntimeError)
    module = sys.modules["ctxgrad.autograd.gradcheck"]
    assert module.GradcheckError is GradcheckError and module.gradgradcheck is gradgradcheck
    # As in torch, the attribute is the function, so torch-style calls work.
    assert ctxgrad.autograd.gradcheck is gradcheck
    assert {"gradcheck", "gradgradcheck", "GradcheckError"} <= set(ctxgrad.autograd.__all__)


def test_wrong_forward_ad_jvp_is_caught() -> None:
    class BadJvp(Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x.exp()

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            (x,) = ctx.saved_tensors
            return grad * x.exp()

        @staticmethod
        def jvp(ctx: Any, tangent: Any) -> Any:
            (x,) = ctx.saved_tensors
            return -tangent * x.exp()

    x = leaf(ctxgrad, X3)
    assert gradcheck(BadJvp.apply, (x,)) is True
    for fast_mode in (False, True):
        message = failure(BadJvp.apply, (x,), check_forward_ad=True, fast_mode=fast_mode)
        assert message.startswith("Jacobian computed with forward mode mismatch for output 0 with respect to input 0,")


def test_nondeterministic_backward(torch: Any) -> None:
    def noisy(lib: Any) -> Callable[..., Any]:
        class Noisy(lib.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                return x * 2

            @staticmethod
            def backward(ctx: Any, grad: Any) -> Any:
                return grad * (2 + 1e-7 * float(np.random.default_rng().random()))

        return Noisy.apply

    x = leaf(ctxgrad, X3)
    message = failure(noisy(ctxgrad), (x,))
    assert message.startswith("Backward is not reentrant")
    assert gradcheck(noisy(ctxgrad), (x,), nondet_tol=1e-5) is True
    assert torch.autograd.gradcheck(noisy(torch), (leaf(torch, X3),), raise_exception=False) is False


def test_undefined_output_gradients_must_not_crash() -> None:
    class NoneUnsafe(Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.set_materialize_grads(False)
            return x * 2

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            return grad * 2  # fails when the gradient is undefined (None)

    class NoneSafe(NoneUnsafe):
        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            return None if grad is None else grad * 2

    x = leaf(ctxgrad, X3)
    message = failure(NoneUnsafe.apply, (x,))
    assert message.startswith("Expected backward function to handle undefined output grads.")
    assert "TypeError" in message and "when the gradient of every output was undefined" in message
    assert gradcheck(NoneUnsafe.apply, (x,), check_undefined_grad=False) is True
    assert gradcheck(NoneSafe.apply, (x,)) is True


def test_no_differentiable_output_must_not_depend_on_the_input(torch: Any) -> None:
    x = leaf(ctxgrad, X3)
    message = failure(lambda t: t.detach() * 2, (x,))
    assert message.startswith("Numerical gradient for function expected to be zero")
    assert gradcheck(lambda t: ctxgrad.ones(3, dtype=ctxgrad.float64), (x,)) is True
    assert torch.autograd.gradcheck(lambda t: t.detach() * 2, (leaf(torch, X3),), raise_exception=False) is False


# --------------------------------------------------------------------------- dtypes and warnings
def test_float32_input_warns_with_torchs_text(torch: Any) -> None:
    def messages(lib: Any) -> list[str]:
        x = lib.tensor(X3, dtype=lib.float32, requires_grad=True)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.autograd.gradcheck(lambda t: t * 2, (x,), eps=1e-3, atol=1e-2, rtol=1e-2)
        return [str(w.message) for w in caught if w.category is UserWarning]

    ours = messages(ctxgrad)
    assert ours == messages(torch)
    assert ours == [
        "Input #0 requires gradient and is not a double precision floating point or complex. This check will "
        "likely fail if all the inputs are not of double precision floating point or complex. "
    ]


def test_float32_backward_is_caught_only_by_check_grad_dtypes(torch: Any) -> None:
    def float32_backward(lib: Any) -> Callable[..., Any]:
        class Float32Grad(lib.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                return x * 2

            @staticmethod
            def backward(ctx: Any, grad: Any) -> Any:
                return (grad * 2).float()

        return Float32Grad.apply

    x = leaf(ctxgrad, X3)
    assert gradcheck(float32_backward(ctxgrad), (x,)) is True  # the engine casts, the values are close
    message = failure(float32_backward(ctxgrad), (x,), check_grad_dtypes=True)
    assert message.startswith("Gradient has dtype mismatch: Float32Grad.backward returned a float32 gradient")
    assert "argument 'x' (index 0), which is float64" in message
    # torch cannot see the dtype before its engine casts it: a deliberate difference.
    assert torch.autograd.gradcheck(float32_backward(torch), (leaf(torch, X3),), check_grad_dtypes=True) is True


def test_complex_input_and_output(torch: Any) -> None:
    c = np.array([2.0 - 1.0j, 0.5 + 3.0j])
    z0 = np.array([1.0 + 2.0j, -0.5 + 0.25j])

    def times_c(lib: Any, conjugate: bool) -> Callable[..., Any]:
        class TimesC(lib.autograd.Function):
            @staticmethod
            def forward(ctx: Any, z: Any) -> Any:
                return z * lib.tensor(c)

            @staticmethod
            def backward(ctx: Any, grad: Any) -> Any:
                return grad * lib.tensor(np.conj(c) if conjugate else c)

        return TimesC.apply

    for conjugate in (True, False):
        z = ctxgrad.tensor(z0, requires_grad=True)
        ours = gradcheck(times_c(ctxgrad, conjugate), (z,), raise_exception=False)
        zt = torch.tensor(z0, requires_grad=True)
        theirs = torch.autograd.gradcheck(times_c(torch, conjugate), (zt,), raise_exception=False)
        assert ours is theirs is conjugate
    message = failure(times_c(ctxgrad, False), (ctxgrad.tensor(z0, requires_grad=True),))
    assert message.startswith(
        "While considering the imaginary part of complex outputs only, Jacobian mismatch for output 0 with respect "
        "to input 0,"
    )
    assert "hint: analytical = -conj(numerical): a conjugate missing from backward?" in message


# --------------------------------------------------------------------------- arguments
def test_batched_checks_pass_for_a_correct_batching_rule() -> None:
    x = leaf(ctxgrad, X3)
    assert gradcheck(cube(ctxgrad), (x,), check_batched_grad=True)
    assert gradcheck(
        cube(ctxgrad), (x,), check_batched_grad=True, check_forward_ad=True, check_batched_forward_grad=True
    )
    assert gradgradcheck(cube(ctxgrad), (x,), check_batched_grad=True)


def test_batched_check_finds_a_batching_rule_that_mixes_the_samples() -> None:
    class Scale(ctxgrad.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
            return x * 2

        @staticmethod
        def backward(ctx: Any, g: ctxgrad.Tensor) -> ctxgrad.Tensor:
            return g * 2

        @staticmethod
        def vmap(info: Any, in_dims: Any, x: ctxgrad.Tensor) -> Any:
            return Scale.apply(x.flip(0)), 0  # wrong: sample k gets sample B-1-k's result

    x = leaf(ctxgrad, X3)
    assert gradcheck(Scale.apply, (x,))
    with pytest.raises(GradcheckError, match="Batched computation failed: vmap over apply gives output 0"):
        gradcheck(Scale.apply, (x,), check_batched_grad=True)
    assert gradcheck(Scale.apply, (x,), check_batched_grad=True, raise_exception=False) is False


def test_is_grads_batched_as_torch() -> None:
    torch = pytest.importorskip("torch")
    v = np.random.default_rng(3).standard_normal((4, 3))
    results = []
    for lib in (ctxgrad, torch):
        x = lib.tensor(X3, requires_grad=True)
        y = x.sin() * x
        results.append(lib.autograd.grad(y, x, lib.tensor(v), is_grads_batched=True)[0])
    np.testing.assert_allclose(results[0].numpy(), results[1].numpy(), rtol=1e-12)


def test_bad_arguments() -> None:
    x = leaf(ctxgrad, X3)
    with pytest.raises(ValueError, match="at least one of check_forward_ad or check_backward_ad"):
        gradcheck(cube(ctxgrad), (x,), check_backward_ad=False)
    with pytest.raises(ValueError, match="none of them have requires_grad=True"):
        gradcheck(cube(ctxgrad), (x.detach(),))
    expanded = ctxgrad.tensor([1.0], dtype=ctxgrad.float64).expand(3).requires_grad_()
    with pytest.raises(RuntimeError, match="The 0th input has a dimension with stride 0"):
        gradcheck(lambda t: t * 2, (expanded,))


# --------------------------------------------------------------------------- gradgradcheck
def test_gradgradcheck_passes_on_right_ops(torch: Any) -> None:
    x, y = leaf(ctxgrad, X34), leaf(ctxgrad, X34 + 1)
    assert gradgradcheck(builtin_mix(ctxgrad), (x, y)) is True
    assert gradgradcheck(cube(ctxgrad), (leaf(ctxgrad, X3),), fast_mode=True) is True
    assert gradgradcheck(linear(ctxgrad), (x, leaf(ctxgrad, W24), 1.5), gen_non_contig_grad_outputs=True) is True
    assert torch.autograd.gradgradcheck(linear(torch), (leaf(torch, X34), leaf(torch, W24), 1.5)) is True


def test_gradgradcheck_finds_a_wrong_double_backward(torch: Any) -> None:
    # The first derivative is right; its own derivative (3 * x * x is 6x) is not: x.detach().
    def bad_second(lib: Any) -> Callable[..., Any]:
        class Cube(lib.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                ctx.save_for_backward(x)
                return x**3

            @staticmethod
            def backward(ctx: Any, grad: Any) -> Any:
                (x,) = ctx.saved_tensors
                return 3 * x * x.detach() * grad

        return Cube.apply

    assert gradcheck(bad_second(ctxgrad), (leaf(ctxgrad, X3),)) is True
    with pytest.raises(GradcheckError) as info:
        gradgradcheck(bad_second(ctxgrad), (leaf(ctxgrad, X3),))
    assert str(info.value).startswith("Jacobian mismatch for output 0 with respect to input 0,")
    assert "the first-order gradient with respect to inputs[0] (argument 'x' of Cube.forward)" in str(info.value)
    assert torch.autograd.gradgradcheck(bad_second(torch), (leaf(torch, X3),), raise_exception=False) is False


def test_gradgradcheck_of_a_once_differentiable_backward_fails(torch: Any) -> None:
    class Square(Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @once_differentiable
        def backward(ctx: Any, grad: Any) -> Any:
            (x,) = ctx.saved_tensors
            return 2 * x * grad

    x = leaf(ctxgrad, X3)
    assert gradcheck(Square.apply, (x,)) is True
    with pytest.raises(GradcheckError, match="once_differentiable") as info:
        gradgradcheck(Square.apply, (x,))
    assert isinstance(info.value.__cause__, RuntimeError)
    assert gradgradcheck(Square.apply, (x,), raise_exception=False) is False

    class TorchSquare(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @torch.autograd.function.once_differentiable
        def backward(ctx: Any, grad: Any) -> Any:
            (x,) = ctx.saved_tensors
            return 2 * x * grad

    assert torch.autograd.gradgradcheck(TorchSquare.apply, (leaf(torch, X3),), raise_exception=False) is False


def test_gradgradcheck_of_a_numpy_backward_fails() -> None:
    class NumpySquare(Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            (x,) = ctx.saved_tensors
            return ctxgrad.tensor(2 * x.detach().numpy() * grad.detach().numpy())

    x = leaf(ctxgrad, X3)
    assert gradcheck(NumpySquare.apply, (x,)) is True
    with pytest.raises(GradcheckError, match="Numerical gradient for function expected to be zero"):
        gradgradcheck(NumpySquare.apply, (x,))


# --------------------------------------------------------------------------- a property
@settings(max_examples=25, deadline=None)
@given(
    shape=st.lists(st.integers(1, 3), min_size=0, max_size=2).map(tuple),
    factor=st.floats(0.5, 2.0).filter(lambda f: abs(f - 1) > 0.01),
    fast_mode=st.booleans(),
    seed=st.integers(0, 2**16),
)
def test_any_constant_error_in_backward_is_caught(
    shape: tuple[int, ...], factor: float, fast_mode: bool, seed: int
) -> None:
    """Scaling a right backward by any factor other than 1 fails, at any shape and point;
    the right backward passes."""

    class ScaledTanh(Function):
        @staticmethod
        def forward(ctx: Any, x: Any, k: float) -> Any:
            y = x.tanh()
            ctx.save_for_backward(y)
            ctx.k = k
            return y

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            (y,) = ctx.saved_tensors
            return grad * (1 - y * y) * ctx.k, None

    values = np.random.default_rng(seed).uniform(-2, 2, shape)
    x = leaf(ctxgrad, values)
    assert gradcheck(ScaledTanh.apply, (x, 1.0), fast_mode=fast_mode) is True
    assert gradcheck(ScaledTanh.apply, (x, factor), fast_mode=fast_mode, raise_exception=False) is False


def test_builtin_complex_multiplication_passes() -> None:
    z = ctxgrad.tensor(np.array([1.0 + 2.0j, -0.5 + 0.25j]), requires_grad=True)
    assert gradcheck(lambda t: t * t, (z,)) is True


class _SinTimesX(ctxgrad.autograd.Function):
    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        ctx.save_for_backward(x)
        return x.sin() * x

    @staticmethod
    def backward(ctx: Any, grad: Any) -> Any:
        (x,) = ctx.saved_tensors
        return grad * (x.cos() * x + x.sin())


class _SinTimesXSlightlyWrong(_SinTimesX):
    @staticmethod
    def backward(ctx: Any, grad: Any) -> Any:
        (x,) = ctx.saved_tensors
        return grad * (x.cos() * x + x.sin()) * (1 + 1e-9)


def test_complex_step_gives_derivatives_exact_to_rounding() -> None:
    """The complex step has no cancellation: a backward wrong by one part in 10⁹ passes
    central differences at any sensible tolerance, and fails the complex step at 1e-12."""
    x = ctxgrad.tensor([0.3, -1.2, 2.5], dtype=ctxgrad.float64, requires_grad=True)
    assert ctxgrad.autograd.gradcheck(_SinTimesX.apply, (x,), complex_step=True, atol=1e-14, rtol=1e-13)
    assert ctxgrad.autograd.gradcheck(_SinTimesXSlightlyWrong.apply, (x,))
    with pytest.raises(ctxgrad.autograd.GradcheckError, match="Jacobian mismatch for output 0 with respect to input 0"):
        ctxgrad.autograd.gradcheck(_SinTimesXSlightlyWrong.apply, (x,), complex_step=True, atol=1e-14, rtol=1e-13)


def test_complex_step_needs_a_func_that_takes_complex_inputs() -> None:
    x = ctxgrad.tensor([0.3, 1.2], dtype=ctxgrad.float64, requires_grad=True)
    with pytest.raises(ctxgrad.autograd.GradcheckError, match="needs a func that accepts complex inputs"):
        ctxgrad.autograd.gradcheck(lambda t: t.floor() + t, (x,), complex_step=True)
    z = ctxgrad.tensor([0.3 + 1j], dtype=ctxgrad.complex128, requires_grad=True)
    with pytest.raises(ValueError, match="takes real inputs only"):
        ctxgrad.autograd.gradcheck(lambda t: t * 2, (z,), complex_step=True)

"""gradcheck's forward-mode options against torch's: ``check_forward_ad`` (a wrong ``jvp`` fails,
a wrong ``backward`` does not with ``check_backward_ad=False``), ``check_batched_forward_grad``,
``check_undefined_grad`` (a backward that gives a gradient for an undefined one fails, with
torch's warning), the option combinations torch refuses (with its ``AssertionError``), and a
Function without ``jvp`` (``NotImplementedError`` where its backward cannot be differentiated).
Each check runs on both libraries, in slow and fast mode."""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import pytest

import ctxgrad

torch = pytest.importorskip("torch")


def _functions(lib: Any) -> dict[str, Any]:
    """Custom Functions of ``lib``: sin with a right jvp and backward, and with a wrong one."""
    Function = lib.autograd.Function

    class Sin(Function):
        @staticmethod
        def forward(x: Any) -> Any:
            return x.sin()

        @staticmethod
        def setup_context(ctx: Any, inputs: Any, output: Any) -> None:
            ctx.save_for_backward(inputs[0])
            ctx.save_for_forward(inputs[0])

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            (x,) = ctx.saved_tensors
            return grad * x.cos()

        @staticmethod
        def jvp(ctx: Any, tangent: Any) -> Any:
            (x,) = ctx.saved_tensors
            return tangent * x.cos()

    class WrongJvp(Sin):
        @staticmethod
        def jvp(ctx: Any, tangent: Any) -> Any:
            (x,) = ctx.saved_tensors
            return 2 * tangent * x.cos()

    class WrongBackward(Sin):
        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            (x,) = ctx.saved_tensors
            return 2 * grad * x.cos()

    class OnceDifferentiable(Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x * 2

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx: Any, grad: Any) -> Any:
            return grad * 2

    class GradientForUndefined(Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.set_materialize_grads(False)
            return x * 2

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            return lib.ones(2, dtype=lib.float64) if grad is None else grad * 2

    return {
        "sin": Sin,
        "wrong jvp": WrongJvp,
        "wrong backward": WrongBackward,
        "once differentiable": OnceDifferentiable,
        "gradient for undefined": GradientForUndefined,
    }


CASES: dict[str, tuple[str, dict[str, Any]]] = {
    "forward and backward": ("sin", {"check_forward_ad": True}),
    "forward only": ("sin", {"check_forward_ad": True, "check_backward_ad": False}),
    "batched forward grad": ("sin", {"check_forward_ad": True, "check_batched_forward_grad": True}),
    "undefined grad": ("sin", {"check_undefined_grad": True}),
    "a wrong jvp, forward checked": ("wrong jvp", {"check_forward_ad": True}),
    "a wrong jvp, forward not checked": ("wrong jvp", {}),
    "a wrong backward, backward not checked": (
        "wrong backward",
        {"check_forward_ad": True, "check_backward_ad": False},
    ),
    "a wrong backward": ("wrong backward", {"check_forward_ad": True}),
    "a wrong jvp, without raising": ("wrong jvp", {"check_forward_ad": True, "raise_exception": False}),
    "no jvp, a backward not differentiable": ("once differentiable", {"check_forward_ad": True}),
    "a gradient for an undefined one": ("gradient for undefined", {"check_batched_grad": False}),
    "a gradient for an undefined one, without raising": (
        "gradient for undefined",
        {"check_batched_grad": False, "raise_exception": False},
    ),
    "a gradient for an undefined one, not checked": (
        "gradient for undefined",
        {"check_batched_grad": False, "check_undefined_grad": False},
    ),
    "neither mode": ("sin", {"check_forward_ad": False, "check_backward_ad": False}),
    "batched forward grad without forward mode": ("sin", {"check_batched_forward_grad": True}),
    "batched grad without backward mode": (
        "sin",
        {"check_forward_ad": True, "check_backward_ad": False, "check_batched_grad": True},
    ),
}

FIRST_LINES = {
    "GradcheckError": (
        "Jacobian computed with forward mode mismatch for output 0 with respect to input 0,",
        "Jacobian mismatch for output 0 with respect to input 0,",
        "Expected all input grads to be undefined or zero when all output grads are undefined or zero.",
    )
}


def _outcome(lib: Any, name: str, fast_mode: bool) -> Any:
    function, options = CASES[name]
    x = lib.tensor([0.5, 1.5], dtype=lib.float64, requires_grad=True)
    apply: Callable[..., Any] = _functions(lib)[function].apply
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            result: Any = lib.autograd.gradcheck(apply, (x,), fast_mode=fast_mode, **options)
        except AssertionError as exc:  # (torch's option checks are asserts; ctxgrad's are caught so too)
            result = ("AssertionError", str(exc))
        except NotImplementedError as exc:  # (ctxgrad's is its subclass NoJvpError)
            result = ("NotImplementedError", str(exc))
        except Exception as exc:  # (the error is the result compared)
            first = str(exc).splitlines()[0] if str(exc) else ""
            result = (type(exc).__name__, first)
    backwards_compatibility = [w for w in caught if str(w.message).startswith("Backwards compatibility")]
    return result, len(backwards_compatibility)


@pytest.mark.parametrize("fast_mode", [False, True])
@pytest.mark.parametrize("name", sorted(CASES))
def test_gradcheck_options_as_torch(name: str, fast_mode: bool) -> None:
    (got, got_warnings), (want, want_warnings) = _outcome(ctxgrad, name, fast_mode), _outcome(torch, name, fast_mode)
    assert got_warnings == want_warnings
    if isinstance(want, bool):
        assert got is want
        return
    assert got[0] == want[0]
    if want[0] == "NotImplementedError":
        # (ctxgrad's message names the Function and says why no tangent can be derived)
        assert got[1].startswith("OnceDifferentiable has no jvp, and its backward cannot be differentiated")
    elif want[0] == "GradcheckError":
        assert want[1].startswith(FIRST_LINES["GradcheckError"])
        assert got[1] == want[1]
    else:
        assert got == want


def test_a_function_without_jvp_gets_tangents_from_its_backward() -> None:
    """torch refuses forward mode for a Function without jvp; ctxgrad derives the tangents from
    a differentiable backward (docs/differences.md: forward mode, the functional API and
    gradcheck), so gradcheck's forward check passes where torch's raises."""

    def program(lib: Any) -> Any:
        class Double(lib.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                return x * 2

            @staticmethod
            def backward(ctx: Any, grad: Any) -> Any:
                return grad * 2

        x = lib.tensor([0.5, 1.5], dtype=lib.float64, requires_grad=True)
        return lib.autograd.gradcheck(Double.apply, (x,), check_forward_ad=True, check_backward_ad=False)

    assert program(ctxgrad) is True
    with pytest.raises(NotImplementedError, match="You must implement the jvp function"):
        program(torch)

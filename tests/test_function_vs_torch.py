"""The same custom Functions run on ctxgrad and on torch: values, gradients, node names,
``needs_input_grad`` and exception types must agree.

Every Function is written once, in a factory that takes the library module (``ctxgrad``
or ``torch``), so the code under test is literally the same on both sides.  Numbers in
test names refer to the conformance list (section 3) of
``/work/shared/reference/torch-autograd-function.md``.  Where ctxgrad is deliberately
louder than torch, the test says so and checks both behaviours.
"""

from __future__ import annotations

import gc
import warnings
import weakref
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ctxgrad

torch = pytest.importorskip("torch")

LIBS = (ctxgrad, torch)


# --------------------------------------------------------------------------- helpers
def tensor(lib: Any, data: Any, requires_grad: bool = False, dtype: str | None = None) -> Any:
    dt = getattr(lib, dtype) if dtype else None
    return lib.tensor(data, dtype=dt, requires_grad=requires_grad)


def values(t: Any) -> np.ndarray:
    return np.asarray(t.detach().numpy())


def dtype_name(dt: Any) -> str:
    return str(dt).replace("torch.", "").replace("ctxgrad.", "")


def inplace_mul_(lib: Any, t: Any, k: float) -> None:
    """Change ``t`` in place with the library's in-place op: data changed, version bumped once."""
    with lib.no_grad():
        t.mul_(k)


def both(fn: Callable[[Any], Any]) -> tuple[Any, Any]:
    """``fn(ctxgrad), fn(torch)``."""
    return fn(ctxgrad), fn(torch)


def assert_same_values(fn: Callable[[Any], Any]) -> None:
    """``fn(lib)`` returns a tuple of tensors/arrays/None; both libraries must agree."""
    ours, theirs = both(fn)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        if b is None:
            assert a is None
            continue
        a = values(a) if hasattr(a, "detach") else np.asarray(a)
        b = values(b) if hasattr(b, "detach") else np.asarray(b)
        assert a.shape == b.shape
        assert a.dtype == b.dtype
        np.testing.assert_allclose(a, b, rtol=1e-6)


def raised(fn: Callable[[Any], Any], lib: Any) -> BaseException:
    try:
        fn(lib)
    except Exception as exc:  # any type: the caller compares them
        return exc
    pytest.fail(f"{lib.__name__}: no exception raised")


def assert_same_error(fn: Callable[[Any], Any], *phrases: str) -> tuple[BaseException, BaseException]:
    """Both raise; ctxgrad's exception is an instance of torch's type; both messages hold ``phrases``."""
    ours, theirs = raised(fn, ctxgrad), raised(fn, torch)
    assert isinstance(ours, type(theirs)), f"ctxgrad raised {type(ours).__name__}, torch {type(theirs).__name__}"
    for phrase in phrases:
        assert phrase in str(theirs), f"torch: {theirs}"
        assert phrase in str(ours), f"ctxgrad: {ours}"
    return ours, theirs


def warnings_of(fn: Callable[[], Any]) -> list[warnings.WarningMessage]:
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        fn()
    return list(record)


# --------------------------------------------------------------------------- factories
def make_square(lib: Any) -> type:
    class Square(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g

    return Square


def make_square_setup(lib: Any) -> type:
    class SquareS(lib.autograd.Function):
        @staticmethod
        def forward(x, scale=1.0):
            return x * x * scale

        @staticmethod
        def setup_context(ctx, inputs, output):
            x, scale = inputs
            ctx.save_for_backward(x)
            ctx.scale = scale
            ctx.inputs_len = len(inputs)

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 2 * x * g * ctx.scale, None

    return SquareS


def make_double(lib: Any) -> type:
    class F(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    return F


def make_returning(lib: Any, grads: Callable[[Any, Any], Any]) -> type:
    """``F(x, *rest)`` with forward ``x * 1`` whose backward returns ``grads(lib, g)``."""

    class F(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x, *rest):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return grads(lib, g)

    return F


def make_probe(lib: Any, seen: dict[str, Any]) -> type:
    class Probe(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b, k):
            seen["forward_grad"] = lib.is_grad_enabled()
            seen["forward_needs"] = tuple(ctx.needs_input_grad)
            return a * b * k

        @staticmethod
        def backward(ctx, g):
            seen["backward_grad"] = lib.is_grad_enabled()
            seen["backward_needs"] = tuple(ctx.needs_input_grad)
            return g, g, None

    return Probe


def make_mul2_(lib: Any) -> type:
    class Mul2_(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            inplace_mul_(lib, x, 2.0)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 2

    return Mul2_


def make_identity(lib: Any) -> type:
    class Identity(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x

        @staticmethod
        def backward(ctx, g):
            return g * 3

    return Identity


def make_once_square(lib: Any) -> type:
    class OnceSquare(lib.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return lib.tensor(2 * x.numpy() * g.numpy())

    return OnceSquare


# =========================================================================== 1: the node
def test_01_node_name_class_and_next_functions():
    def run(lib):
        x = tensor(lib, [1.0, 2.0], requires_grad=True)
        y = make_double(lib).apply(x)
        node = y.grad_fn
        ((acc, nr),) = node.next_functions
        assert acc.variable is x
        assert "AccumulateGrad" in acc.name()
        return type(node).__name__, node.name(), isinstance(node, lib.autograd.graph.Node), nr

    ours, theirs = both(run)
    assert ours == theirs == ("FBackward", "FBackward", True, 0)


def test_grad_fn_is_the_ctx_on_both():
    def run(lib):
        seen = {}

        class Keep(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                seen["ctx"] = ctx
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

        y = Keep.apply(tensor(lib, [1.0], requires_grad=True))
        return y.grad_fn is seen["ctx"]

    assert both(run) == (True, True)


def test_next_functions_for_non_leaf_no_grad_tensor_and_non_tensor():
    def run(lib):
        class Two(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, g1, g2):
                return g1 * 2 + g2 * 3

        class Three(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, k, b):
                return a * b * k

            @staticmethod
            def backward(ctx, g):
                return g, None, g

        _, second = Two.apply(tensor(lib, [1.0], requires_grad=True))
        y = Three.apply(second, 5, tensor(lib, [2.0]))
        nf = y.grad_fn.next_functions
        return len(nf), nf[0][0] is second.grad_fn, nf[0][1], nf[1]

    ours, theirs = both(run)
    assert ours == theirs == (2, True, 1, (None, 0))


def test_node_metadata_is_a_dict_on_both():
    def run(lib):
        y = make_double(lib).apply(tensor(lib, [1.0], requires_grad=True))
        y.grad_fn.metadata["k"] = 1
        return type(y.grad_fn.metadata), y.grad_fn.metadata

    assert both(run) == ((dict, {"k": 1}), (dict, {"k": 1}))


@pytest.mark.parametrize("style", ["combined", "setup_context"])
def test_metadata_written_while_defining_the_node_is_kept(style):
    def run(lib):
        if style == "combined":

            class Tag(lib.autograd.Function):
                @staticmethod
                def forward(ctx, x):
                    ctx.metadata["tag"] = 1
                    return x * 2

                @staticmethod
                def backward(ctx, g):
                    return g * 2

        else:

            class Tag(lib.autograd.Function):
                @staticmethod
                def forward(x):
                    return x * 2

                @staticmethod
                def setup_context(ctx, inputs, output):
                    ctx.metadata["tag"] = 1

                @staticmethod
                def backward(ctx, g):
                    return g * 2

        return dict(Tag.apply(tensor(lib, [1.0], requires_grad=True)).grad_fn.metadata)

    ours, theirs = both(run)
    assert theirs == {"tag": 1}
    assert ours == theirs


def test_node_prehook_registered_in_forward():
    def run(lib):
        class Hooked(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.register_prehook(lambda grads: (grads[0] * 10,))
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

        x = tensor(lib, [1.0], requires_grad=True)
        Hooked.apply(x).sum().backward()
        return (x.grad,)

    assert_same_values(run)


def test_node_hooks_on_grad_fn_match():
    def run(lib):
        order = []
        x = tensor(lib, [1.0], requires_grad=True)
        y = make_double(lib).apply(x)
        y.register_hook(lambda g: order.append("tensor") or g * 2)
        y.grad_fn.register_prehook(lambda grads: order.append("pre") or (grads[0] * 10,))
        y.grad_fn.register_hook(lambda gi, go: order.append("post") or (gi[0] + 1,))
        y.sum().backward()
        return order, values(x.grad).tolist()

    ours, theirs = both(run)
    assert ours == theirs == (["tensor", "pre", "post"], [41.0])


def test_next_functions_of_ctx_whose_call_recorded_nothing():
    def run(lib):
        seen = {}

        class Keep(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                seen["ctx"] = ctx
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

        Keep.apply(tensor(lib, [1.0]))
        return seen["ctx"].next_functions

    ours, theirs = both(run)
    assert ours == theirs == ()


# =========================================================================== definition styles, values, grads
def test_combined_style_values_and_gradients_match():
    def run(lib):
        x = tensor(lib, [1.0, -2.0, 3.0], requires_grad=True)
        y = make_square(lib).apply(x)
        y.sum().backward()
        return y, x.grad

    assert_same_values(run)


def test_setup_context_style_values_gradients_and_defaults_match():
    def run(lib):
        F = make_square_setup(lib)
        x = tensor(lib, [1.0, -2.0], requires_grad=True)
        y = F.apply(x)
        y2 = F.apply(x, scale=3.0)
        (y + y2).sum().backward()
        return y, y2, x.grad, np.array(y.grad_fn.inputs_len), np.array(y2.grad_fn.scale)

    assert_same_values(run)


def test_grad_fn_names_match():
    def run(lib):
        x = tensor(lib, [1.0], requires_grad=True)
        return (
            make_square(lib).apply(x).grad_fn.name(),
            make_square_setup(lib).apply(x).grad_fn.name(),
            make_identity(lib).apply(x).grad_fn.name(),
        )

    ours, theirs = both(run)
    assert ours == theirs == ("SquareBackward", "SquareSBackward", "IdentityBackward")


# =========================================================================== 2, 3: grad modes
def test_02_forward_without_grad_backward_with_grad_only_under_create_graph():
    def run(lib):
        modes = []
        seen = {}
        Probe = make_probe(lib, seen)
        a, b = tensor(lib, [1.0], requires_grad=True), tensor(lib, [2.0], requires_grad=True)
        Probe.apply(a, b, 3).sum().backward()
        modes += [seen["forward_grad"], seen["backward_grad"]]
        lib.autograd.grad(Probe.apply(a, b, 3).sum(), a, create_graph=True)
        modes += [seen["forward_grad"], seen["backward_grad"]]
        return modes

    ours, theirs = both(run)
    assert ours == theirs == [False, False, False, True]


def test_03_no_input_requiring_grad_or_no_grad_gives_plain_outputs():
    def run(lib):
        F = make_double(lib)
        y1 = F.apply(tensor(lib, [1.0]))
        with lib.no_grad():
            y2 = F.apply(tensor(lib, [1.0], requires_grad=True))
        return y1.requires_grad, y1.grad_fn, y2.requires_grad, y2.grad_fn

    ours, theirs = both(run)
    assert ours == theirs == (False, None, False, None)


# =========================================================================== 4-14: gradient checks
def test_04_too_many_gradients():
    def run(lib):
        F = make_returning(lib, lambda lib, g: (g, g))
        F.apply(tensor(lib, [1.0, 2.0, 3.0], requires_grad=True)).sum().backward()

    assert_same_error(run, "function FBackward returned an incorrect number of gradients (expected 1, got 2)")


def test_05_extra_trailing_nones_accepted():
    def run(lib):
        F = make_returning(lib, lambda lib, g: (g * 2, None, None))
        x = tensor(lib, [1.0, 2.0], requires_grad=True)
        F.apply(x).sum().backward()
        return (x.grad,)

    assert_same_values(run)


def test_06_too_few_gradients():
    def run(lib):
        F = make_returning(lib, lambda lib, g: g)
        F.apply(tensor(lib, [1.0], requires_grad=True), tensor(lib, [1.0], requires_grad=True)).sum().backward()

    assert_same_error(run, "incorrect number of gradients (expected 2, got 1)")


def test_07_gradient_of_wrong_shape():
    def run(lib):
        F = make_returning(lib, lambda lib, g: lib.ones(4))
        F.apply(tensor(lib, [1.0, 2.0, 3.0], requires_grad=True)).sum().backward()

    assert_same_error(
        run,
        "Function FBackward returned an invalid gradient at index 0 - got [4] but expected shape compatible with [3]",
    )


def test_08_gradient_with_extra_dimension_is_summed_down():
    def run(lib):
        F = make_returning(lib, lambda lib, g: lib.ones(2, 3))
        x = tensor(lib, [1.0, 2.0, 3.0], requires_grad=True)
        F.apply(x).sum().backward()
        return (x.grad,)

    assert_same_values(run)


@pytest.mark.parametrize(("grad_shape", "input_shape"), [((3, 4), (3, 1)), ((1, 3), (3,))])
def test_08_broadcast_gradients_are_summed_to_input_shape(grad_shape, input_shape):
    def run(lib):
        F = make_returning(lib, lambda lib, g: lib.ones(*grad_shape))
        x = lib.zeros(*input_shape, requires_grad=True)
        F.apply(x).sum().backward()
        return (x.grad,)

    assert_same_values(run)


@pytest.mark.parametrize("grad_shape", [(1,), ()])
def test_09_smaller_gradient_is_rejected(grad_shape):
    def run(lib):
        F = make_returning(lib, lambda lib, g: lib.ones(grad_shape))
        F.apply(tensor(lib, [1.0, 2.0, 3.0], requires_grad=True)).sum().backward()

    assert_same_error(run, "returned an invalid gradient at index 0", "but expected shape compatible with [3]")


def test_10_float64_gradient_is_cast_to_float32():
    def run(lib):
        F = make_returning(lib, lambda lib, g: lib.ones(3, dtype=lib.float64) * 2)
        x = tensor(lib, [1.0, 2.0, 3.0], requires_grad=True)
        F.apply(x).sum().backward()
        return (x.grad,)

    assert_same_values(run)  # compares dtypes too: float32 on both


def test_11_python_float_gradient():
    def run(lib):
        F = make_returning(lib, lambda lib, g: 1.0)
        F.apply(tensor(lib, [1.0], requires_grad=True)).sum().backward()

    ours, _ = assert_same_error(run, "expected Variable or None (got float)")
    assert isinstance(ours, TypeError)


def test_12_gradient_for_non_tensor_argument():
    def run(lib):
        F = make_returning(lib, lambda lib, g: (g, g))
        F.apply(tensor(lib, [1.0], requires_grad=True), 3).sum().backward()

    ours, _ = assert_same_error(
        run,
        "function FBackward returned a gradient different than None at position 2, "
        "but the corresponding forward input was not a Variable",
    )
    assert isinstance(ours, TypeError)


def test_13_gradient_for_tensor_not_requiring_grad_is_dropped():
    def run(lib):
        class Two(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                return a * b

            @staticmethod
            def backward(ctx, g):
                return g, g

        a, b = tensor(lib, [1.0, 2.0], requires_grad=True), tensor(lib, [3.0, 4.0])
        Two.apply(a, b).sum().backward()
        return a.grad, b.grad

    assert_same_values(run)


def test_13_wrong_shaped_gradient_for_tensor_not_requiring_grad_torch_drops_ctxgrad_rejects():
    # Documented difference: torch drops it unchecked; ctxgrad checks every gradient.
    def run(lib):
        class Two(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                return a * b

            @staticmethod
            def backward(ctx, g):
                return g, lib.ones(7)

        a, b = tensor(lib, [1.0, 2.0], requires_grad=True), tensor(lib, [3.0, 4.0])
        Two.apply(a, b).sum().backward()
        return a.grad

    np.testing.assert_allclose(values(run(torch)), [1.0, 1.0])
    with pytest.raises(RuntimeError, match="returned an invalid gradient"):
        run(ctxgrad)


def test_14_none_gradient_leaves_grad_none():
    def run(lib):
        class Two(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                return a * b

            @staticmethod
            def backward(ctx, g):
                return g, None

        a, b = tensor(lib, [1.0], requires_grad=True), tensor(lib, [2.0], requires_grad=True)
        Two.apply(a, b).sum().backward()
        return a.grad, b.grad

    assert_same_values(run)


# =========================================================================== misuse of the class
def test_missing_backward_raises_same_type_at_backward():
    def run(lib):
        class NoBackward(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

        y = NoBackward.apply(tensor(lib, [1.0], requires_grad=True))
        y.sum().backward()

    assert_same_error(run, "You must implement either the backward or vjp method")


def test_missing_forward_raises_same_type_at_apply():
    def run(lib):
        class NoForward(lib.autograd.Function):
            @staticmethod
            def backward(ctx, g):
                return g

        NoForward.apply(tensor(lib, [1.0], requires_grad=True))

    assert_same_error(run, "You must implement the forward function for custom autograd.Function.")


def test_backward_and_vjp_both_defined_raise_same_type_at_backward():
    def run(lib):
        class Both(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g

            @staticmethod
            def vjp(ctx, g):
                return g

        y = Both.apply(tensor(lib, [1.0], requires_grad=True))
        y.sum().backward()

    assert_same_error(run, "Implementing both 'backward' and 'vjp' for a custom Function is not allowed.")


def test_instantiation_warns_and_calling_instance_raises_on_both():
    def run(lib):
        F = make_double(lib)
        caught = warnings_of(F)
        assert any(issubclass(w.category, DeprecationWarning) for w in caught)
        assert any("should not be instantiated" in str(w.message) for w in caught)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DeprecationWarning)
            f = F()
        f(tensor(lib, [1.0], requires_grad=True))

    assert_same_error(run, "Legacy autograd function with non-static forward method is deprecated")


def test_calling_forward_directly_records_no_custom_node_on_both():
    def run(lib):
        x = tensor(lib, [2.0], requires_grad=True)
        y = make_double(lib).forward(None, x)
        return y.grad_fn is not None, y.grad_fn.name() != "FBackward"

    assert both(run) == ((True, True), (True, True))


# =========================================================================== 20-24: saved tensors
def test_20_second_backward_without_retain_graph():
    def run(lib):
        y = make_square(lib).apply(tensor(lib, [2.0], requires_grad=True)).sum()
        y.backward()
        y.backward()

    assert_same_error(run, "Trying to backward through the graph a second time")


def test_21_retain_graph_accumulates_in_place():
    def run(lib):
        x = tensor(lib, [2.0], requires_grad=True)
        y = make_square(lib).apply(x).sum()
        y.backward(retain_graph=True)
        first = x.grad
        y.backward()
        assert x.grad is first
        return (x.grad,)

    assert_same_values(run)


def test_22_saved_tensors_in_forward_is_empty():
    def run(lib):
        seen = {}

        class Look(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                seen["saved"] = ctx.saved_tensors
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

        Look.apply(tensor(lib, [1.0], requires_grad=True))
        return seen["saved"]

    assert both(run) == ((), ())


def test_22_saved_tensors_after_backward_raise():
    def run(lib):
        y = make_square(lib).apply(tensor(lib, [2.0], requires_grad=True))
        y.sum().backward()
        y.grad_fn.saved_tensors

    assert_same_error(run, "Trying to backward through the graph a second time")


def test_22_saved_tensors_after_backward_raise_even_when_nothing_was_saved():
    def run(lib):
        y = make_double(lib).apply(tensor(lib, [2.0], requires_grad=True))
        y.sum().backward()
        y.grad_fn.saved_tensors

    assert_same_error(run, "Trying to backward through the graph a second time")


def test_23_save_for_backward_of_int():
    def run(lib):
        class SaveInt(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x, 3)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

        SaveInt.apply(tensor(lib, [1.0], requires_grad=True))

    assert_same_error(run, "save_for_backward can only save variables, but argument 1 is of type int")


def test_23_saved_none_comes_back_as_none():
    def run(lib):
        seen = {}

        class SaveNone(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(None, x)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                seen["saved"] = ctx.saved_tensors
                return g * 2

        x = tensor(lib, [1.0], requires_grad=True)
        SaveNone.apply(x).sum().backward()
        return seen["saved"][0] is None, seen["saved"][1] is x

    assert both(run) == ((True, True), (True, True))


def test_24_second_save_for_backward_replaces_first():
    def run(lib):
        seen = {}

        class Twice(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x, x, x)
                ctx.save_for_backward(x)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                seen["n"] = len(ctx.saved_tensors)
                return g * 2

        Twice.apply(tensor(lib, [1.0], requires_grad=True)).sum().backward()
        return seen["n"]

    assert both(run) == (1, 1)


def test_saved_tensor_modified_in_place_raises_version_error():
    def run(lib):
        x = tensor(lib, [1.0, 2.0, 3.0], requires_grad=True) * 1
        y = make_square(lib).apply(x)
        lib.autograd.graph.increment_version(x)
        y.sum().backward()

    ours, _ = assert_same_error(
        run, "modified by an inplace operation", "[3]], which is output 0 of Mul", "is at version 1; expected version 0"
    )
    assert "SquareBackward" in str(ours)


def test_saved_tensor_modified_by_dirty_function_raises_version_error():
    def run(lib):
        x = tensor(lib, [1.0, 2.0, 3.0], requires_grad=True) * 1
        y = make_square(lib).apply(x)
        make_mul2_(lib).apply(x)
        y.sum().backward()

    assert_same_error(run, "modified by an inplace operation", "is at version 2; expected version 0")


# =========================================================================== 25: needs_input_grad
def test_25_needs_input_grad_fixed_at_forward_time():
    def run(lib):
        seen = {}
        Probe = make_probe(lib, seen)
        a, b = tensor(lib, [1.0], requires_grad=True), tensor(lib, [2.0], requires_grad=True)
        out = Probe.apply(a, b, 3)
        lib.autograd.grad(out.sum(), [a])
        return seen["forward_needs"], seen["backward_needs"]

    ours, theirs = both(run)
    assert ours == theirs == ((True, True, False), (True, True, False))


def test_needs_input_grad_inside_no_grad_matches():
    def run(lib):
        seen = {}
        Probe = make_probe(lib, seen)
        with lib.no_grad():
            Probe.apply(tensor(lib, [1.0], requires_grad=True), tensor(lib, [2.0]), 3)
        return seen["forward_needs"]

    ours, theirs = both(run)
    assert ours == theirs == (True, False, False)


def test_needs_input_grad_of_no_grad_call_is_fixed_at_call_time():
    def run(lib):
        seen = {}

        class Keep(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                seen["ctx"] = ctx
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

        x = tensor(lib, [1.0])
        with lib.no_grad():
            Keep.apply(x)
        x.requires_grad_(True)
        return tuple(seen["ctx"].needs_input_grad)

    ours, theirs = both(run)
    assert theirs == (False,)
    assert ours == theirs


# =========================================================================== 26-31: outputs
def test_26_non_tensor_outputs_pass_through():
    def run(lib):
        seen = {}

        class Mixed(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2, 5, None, "tag"

            @staticmethod
            def backward(ctx, g, g5, gnone, gtag):
                seen["grads"] = (g5, gnone, gtag)
                return g * 2

        x = tensor(lib, [1.0], requires_grad=True)
        y, five, none, tag = Mixed.apply(x)
        y.sum().backward()
        return (five, none, tag), seen["grads"], values(x.grad).tolist()

    ours, theirs = both(run)
    assert ours == theirs == ((5, None, "tag"), (None, None, None), [2.0])


def test_one_tuple_return_gives_one_tuple_on_both():
    def run(lib):
        class One(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return (x * 2,)

            @staticmethod
            def backward(ctx, g):
                return g * 2

        out = One.apply(tensor(lib, [1.0], requires_grad=True))
        return type(out), len(out), out[0].grad_fn.name()

    ours, theirs = both(run)
    assert ours == theirs == (tuple, 1, "OneBackward")


@pytest.mark.parametrize("container", ["list", "dict"])
def test_27_list_or_dict_output_torch_loses_gradients_ctxgrad_raises(container):
    # Documented difference: torch silently returns untracked tensors; ctxgrad refuses.
    def run(lib):
        class Contained(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y = x * 2
                return [y] if container == "list" else {"y": y}

            @staticmethod
            def backward(ctx, g):
                return g * 2

        return Contained.apply(tensor(lib, [1.0], requires_grad=True))

    out = run(torch)
    inner = out[0] if container == "list" else out["y"]
    assert inner.grad_fn is None and not inner.requires_grad
    with pytest.raises(TypeError, match=f"{container} of tensors"):
        run(ctxgrad)


@pytest.mark.parametrize("materialize", [True, False])
def test_28_unused_output_gets_zeros_or_none(materialize):
    def run(lib):
        seen = {}

        class Two(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(materialize)
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, g1, g2):
                seen["g2"] = g2
                return g1 * 2 if g2 is None else g1 * 2 + g2 * 3

        x = tensor(lib, [1.0, 2.0], requires_grad=True)
        a, _ = Two.apply(x)
        a.sum().backward()
        return seen["g2"], x.grad

    assert_same_values(run)


@pytest.mark.parametrize("materialize", [True, False])
def test_29_mark_non_differentiable(materialize):
    def run(lib):
        seen = {}

        class Sort(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.set_materialize_grads(materialize)
                idx = lib.tensor([1, 0])
                flag = x * 0
                ctx.mark_non_differentiable(idx, flag)
                return x * 2, idx, flag

            @staticmethod
            def backward(ctx, g, gidx, gflag):
                seen["grads"] = (gidx, gflag)
                return g * 2

        x = tensor(lib, [1.0, 2.0], requires_grad=True)
        y, idx, flag = Sort.apply(x)
        assert not idx.requires_grad and not flag.requires_grad
        y.sum().backward()
        return (*seen["grads"], x.grad)

    assert_same_values(run)  # int64 and float32 zeros, or None


def test_29_mark_non_differentiable_on_input_returned_as_is():
    def run(lib):
        class PassThrough(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.mark_non_differentiable(x)
                return x, x * 2

            @staticmethod
            def backward(ctx, g_same, g_double):
                return g_double * 2

        same, double = PassThrough.apply(tensor(lib, [1.0], requires_grad=True))
        return same.requires_grad, same.grad_fn, double.requires_grad

    ours, theirs = both(run)
    assert theirs == (False, None, True)
    assert ours == theirs


@pytest.mark.parametrize("method", ["mark_dirty", "mark_non_differentiable"])
def test_ctx_marks_of_non_tensor_raise_same_type(method):
    def run(lib):
        class Marks(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                getattr(ctx, method)(3)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

        Marks.apply(tensor(lib, [1.0], requires_grad=True))

    assert_same_error(run, method)


def test_30_integer_and_bool_outputs_are_non_differentiable():
    def run(lib):
        seen = {}

        class Ints(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2, (x * 2).long(), x > 0

            @staticmethod
            def backward(ctx, g, gi, gb):
                seen["grads"] = (gi, gb)
                return g * 2

        x = tensor(lib, [1.0, 2.0], requires_grad=True)
        y, i, b = Ints.apply(x)
        assert (i.requires_grad, i.grad_fn, b.requires_grad, b.grad_fn) == (False, None, False, None)
        y.sum().backward()
        return (*seen["grads"], x.grad)

    assert_same_values(run)


def test_31_input_returned_as_is_is_a_new_view_with_custom_grad_fn():
    def run(lib):
        x = tensor(lib, [1.0, 2.0], requires_grad=True)
        out = make_identity(lib).apply(x)
        facts = (out is not x, out._base is x, out.grad_fn.name())
        out.sum().backward()
        return facts, values(x.grad).tolist()

    ours, theirs = both(run)
    assert ours == theirs == ((True, True, "IdentityBackward"), [3.0, 3.0])


def test_31_input_returned_as_is_without_grad_is_a_new_view():
    def run(lib):
        x = tensor(lib, [1.0, 2.0])
        out = make_identity(lib).apply(x)
        return out is not x, out._base is x, out.grad_fn

    ours, theirs = both(run)
    assert ours == theirs == (True, True, None)


def test_input_returned_as_is_under_no_grad_is_a_new_alias():
    def run(lib):
        x = tensor(lib, [1.0, 2.0], requires_grad=True)
        with lib.no_grad():
            out = make_identity(lib).apply(x)
        return out is not x, np.shares_memory(values(out), values(x)), out.grad_fn

    ours, theirs = both(run)
    assert ours == theirs == (True, True, None)


# =========================================================================== 33-35: mark_dirty
def test_33_mark_dirty_same_object_version_and_grad_fn():
    def run(lib):
        a = tensor(lib, [1.0, 2.0], requires_grad=True)
        x = a * 1
        v0 = x._version
        y = make_mul2_(lib).apply(x)
        facts = (y is x, x._version - v0, x.grad_fn.name())
        (x * x).sum().backward()
        return facts, values(a.grad).tolist()

    ours, theirs = both(run)
    assert ours == theirs == ((True, 2, "Mul2_Backward"), [8.0, 16.0])


def test_mark_dirty_without_grad_same_object_and_version():
    def run(lib):
        x = tensor(lib, [1.0, 2.0])
        y = make_mul2_(lib).apply(x)
        return y is x, x._version, x.grad_fn

    ours, theirs = both(run)
    assert ours == theirs == (True, 2, None)


def test_mark_dirty_on_a_view_rebases_its_base():
    """A custom in-place Function applied to a view: the base's history goes through it
    (CopySlices), and the view is re-read from the base (AsStridedBackward0), as in torch."""

    def run(lib):
        a = tensor(lib, [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
        b = a * 1
        v = b[0]
        out = make_mul2_(lib).apply(v)
        facts = (out is v, b._version, b.grad_fn.name().removeprefix("torch::autograd::"), v.grad_fn.name())
        (b * b).sum().backward()
        return facts, values(a.grad).tolist(), values(b).tolist()

    ours, theirs = both(run)
    assert ours == theirs
    assert ours[1] == [[8.0, 16.0, 24.0], [8.0, 10.0, 12.0]]


def test_mark_dirty_on_a_view_of_a_leaf_requiring_grad():
    def run(lib):
        make_mul2_(lib).apply(tensor(lib, [[1.0]], requires_grad=True)[0])

    assert_same_error(run, "a view of a leaf Variable that requires grad")


def test_34_mark_dirty_on_leaf_requiring_grad():
    def run(lib):
        make_mul2_(lib).apply(tensor(lib, [1.0], requires_grad=True))

    assert_same_error(run, "a leaf Variable that requires grad has been used in an in-place operation")


def test_35_dirty_tensor_not_returned():
    def run(lib):
        class NotReturned(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.mark_dirty(x)
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

        NotReturned.apply(tensor(lib, [1.0], requires_grad=True) * 1)

    assert_same_error(run, "Some elements marked as dirty during the forward method were not returned as output")


def test_mark_dirty_of_non_input_warns_on_both():
    def run(lib):
        class DirtyNew(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y = x * 2
                ctx.mark_dirty(y)
                return y

            @staticmethod
            def backward(ctx, g):
                return g * 2

        caught = warnings_of(lambda: DirtyNew.apply(tensor(lib, [1.0], requires_grad=True)))
        return [w.category for w in caught if "received a tensor that was not an input" in str(w.message)]

    ours, theirs = both(run)
    assert ours == theirs == [UserWarning]


# =========================================================================== 37-41: engine entry points
def test_37_backward_of_non_scalar_without_gradient():
    def run(lib):
        make_double(lib).apply(tensor(lib, [1.0, 2.0], requires_grad=True)).backward()

    assert_same_error(run, "grad can be implicitly created only for scalar outputs")


def test_38_backward_of_tensor_without_history():
    def run(lib):
        make_double(lib).apply(tensor(lib, [1.0])).sum().backward()

    assert_same_error(run, "element 0 of tensors does not require grad and does not have a grad_fn")


def test_39_unused_input_to_grad_raises():
    def run(lib):
        x, unused = tensor(lib, [1.0], requires_grad=True), tensor(lib, [1.0], requires_grad=True)
        lib.autograd.grad(make_double(lib).apply(x).sum(), [x, unused])

    assert_same_error(run, "appears to not have been used in the graph. Set allow_unused=True")


def test_39_unused_input_with_allow_unused_or_materialize_grads():
    def run(lib):
        F = make_double(lib)
        x, unused = tensor(lib, [1.0], requires_grad=True), tensor(lib, [1.0, 1.0], requires_grad=True)
        g1 = lib.autograd.grad(F.apply(x).sum(), [x, unused], allow_unused=True)
        g2 = lib.autograd.grad(F.apply(x).sum(), [x, unused], materialize_grads=True)
        return (*g1, *g2)

    assert_same_values(run)


def test_39_allow_unused_false_with_materialize_grads():
    def run(lib):
        x = tensor(lib, [1.0], requires_grad=True)
        lib.autograd.grad(make_double(lib).apply(x).sum(), [x], allow_unused=False, materialize_grads=True)

    assert_same_error(run, "Expected allow_unused to be True or not passed when materialize_grads=True")


def test_40_grad_outputs_of_wrong_shape():
    def run(lib):
        x = tensor(lib, [1.0], requires_grad=True)
        y = make_double(lib).apply(x).sum()
        lib.autograd.grad(y, x, grad_outputs=lib.ones(2))

    assert_same_error(run, "Mismatch in shape: grad_output[0] has a shape of", "and output[0] has a shape of")


def test_41_backward_inputs_fills_only_those():
    def run(lib):
        class Mul(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, b):
                ctx.save_for_backward(a, b)
                return a * b

            @staticmethod
            def backward(ctx, g):
                a, b = ctx.saved_tensors
                return g * b, g * a

        a, b = tensor(lib, [2.0], requires_grad=True), tensor(lib, [3.0], requires_grad=True)
        Mul.apply(a, b).sum().backward(inputs=[a])
        return a.grad, b.grad

    assert_same_values(run)


def test_41_backward_with_empty_inputs():
    def run(lib):
        x = tensor(lib, [1.0], requires_grad=True)
        make_double(lib).apply(x).sum().backward(inputs=[])

    assert_same_error(run, "`inputs` argument to `backward()` cannot be empty.")


# =========================================================================== 42: double backward
def test_42_double_backward_through_custom_backward():
    def run(lib):
        x = tensor(lib, 3.0, requires_grad=True)
        y = make_square(lib).apply(x)
        (g,) = lib.autograd.grad(y, x, create_graph=True)
        (gg,) = lib.autograd.grad(g, x, retain_graph=True)
        (again,) = lib.autograd.grad(y, x)  # the graph stayed usable
        return g, gg, again

    assert_same_values(run)
    ours, _ = both(run)
    np.testing.assert_allclose([values(t) for t in ours], [6.0, 2.0, 6.0])


def test_custom_functions_inside_another_backward():
    def run(lib):
        Square = make_square(lib)

        class Times3(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                return x * 3

            @staticmethod
            def backward(ctx, g):
                return Times3.apply(g)

        class Cube(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x * x

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return Times3.apply(Square.apply(x)) * g

        x = tensor(lib, 2.0, requires_grad=True)
        (g,) = lib.autograd.grad(Cube.apply(x), x, create_graph=True)
        (gg,) = lib.autograd.grad(g, x)
        return g, gg

    assert_same_values(run)


def test_double_backward_through_saved_output():
    def run(lib):
        class Exp(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y = x.exp()
                ctx.save_for_backward(y)
                return y

            @staticmethod
            def backward(ctx, g):
                (y,) = ctx.saved_tensors
                return g * y

        x = tensor(lib, 0.5, requires_grad=True)
        (g,) = lib.autograd.grad(Exp.apply(x), x, create_graph=True)
        (gg,) = lib.autograd.grad(g, x)
        return g, gg

    assert_same_values(run)


def make_add_both(lib: Any) -> type:
    class AddBoth(lib.autograd.Function):
        @staticmethod
        def forward(ctx, a, b):
            return a + b

        @staticmethod
        def backward(ctx, g):
            return g, g

    return AddBoth


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
def test_create_graph_backward_gives_each_leaf_its_own_grad():
    def run(lib):
        a, b = tensor(lib, [1.0, 2.0], requires_grad=True), tensor(lib, [1.0, 2.0], requires_grad=True)
        make_add_both(lib).apply(a, b).sum().backward(create_graph=True)
        return a.grad is b.grad

    ours, theirs = both(run)
    assert (ours, theirs) == (False, False)


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
def test_plain_backward_after_create_graph_backward_accumulates():
    def run(lib):
        a, b = tensor(lib, [1.0, 2.0], requires_grad=True), tensor(lib, [1.0, 2.0], requires_grad=True)
        F = make_add_both(lib)
        F.apply(a, b).sum().backward(create_graph=True)
        F.apply(a, b).sum().backward()
        return a.grad, b.grad

    assert_same_values(run)


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
def test_backward_after_create_graph_backward_leaves_the_seed_alone():
    def run(lib):
        x = tensor(lib, [1.0, 2.0], requires_grad=True)
        seed = tensor(lib, [1.0, 1.0])
        F = make_returning(lib, lambda lib, g: g)
        F.apply(x).backward(seed, create_graph=True)
        F.apply(x).backward(seed)
        return x.grad, seed

    assert_same_values(run)


# =========================================================================== once_differentiable
def test_once_differentiable_first_order_and_no_grad_inside():
    def run(lib):
        x = tensor(lib, [3.0], requires_grad=True)
        make_once_square(lib).apply(x).sum().backward()
        return (x.grad,)

    assert_same_values(run)


def _once_first_derivative(lib):
    x = tensor(lib, [3.0], requires_grad=True)
    y = make_once_square(lib).apply(x)
    (g,) = lib.autograd.grad((y * y).sum(), x, create_graph=True)
    return x, g


def test_once_differentiable_second_derivative_through_backward():
    def run(lib):
        _, g = _once_first_derivative(lib)
        g.sum().backward()

    assert_same_error(run, "trying to differentiate twice a function that was marked with @once_differentiable")


def test_once_differentiable_second_derivative_through_grad_ctxgrad_is_louder():
    # Documented difference: torch's error node hangs off detached copies, so grad() reports
    # "not used in the graph"; ctxgrad reports the real cause.
    def run(lib):
        x, g = _once_first_derivative(lib)
        lib.autograd.grad(g.sum(), x)

    theirs = raised(run, torch)
    assert isinstance(theirs, RuntimeError) and "appears to not have been used in the graph" in str(theirs)
    ours = raised(run, ctxgrad)
    assert isinstance(ours, RuntimeError)
    assert "trying to differentiate twice a function that was marked with @once_differentiable" in str(ours)


# =========================================================================== 48: saved input and output
def test_48_saved_input_is_identical_saved_output_is_new_view_of_node():
    def run(lib):
        seen = {}

        class SaveBoth(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y = x.exp()
                ctx.save_for_backward(x, y)
                return y

            @staticmethod
            def backward(ctx, g):
                seen["saved"] = ctx.saved_tensors
                return g * seen["saved"][1]

        x = tensor(lib, [0.0, 1.0], requires_grad=True)
        y = SaveBoth.apply(x)
        node = y.grad_fn
        y.sum().backward()
        sx, sy = seen["saved"]
        return sx is x, sy is not y, np.shares_memory(values(sy), values(y)), sy.grad_fn is node

    ours, theirs = both(run)
    assert ours == theirs == (True, True, True, True)


def test_saving_output_frees_it_by_reference_counting():
    def run(lib):
        class Exp(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y = x.exp()
                ctx.save_for_backward(y)
                return y

            @staticmethod
            def backward(ctx, g):
                (y,) = ctx.saved_tensors
                return g * y

        gc.collect()
        gc.disable()
        try:
            y = Exp.apply(tensor(lib, [1.0], requires_grad=True))
            node = weakref.ref(y.grad_fn)
            out = weakref.ref(y)
            del y
            return out() is None, node() is None
        finally:
            gc.enable()

    ours, theirs = both(run)
    assert ours == theirs == (True, True)


# =========================================================================== 60-62
def test_60_keyword_argument_fills_its_slot():
    def run(lib):
        seen = {}

        class KW(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, scale=2.0):
                ctx.save_for_backward(a, scale)
                seen["needs"] = tuple(ctx.needs_input_grad)
                return a * scale

            @staticmethod
            def backward(ctx, g):
                a, scale = ctx.saved_tensors
                return g * scale, g * a

        a, b = tensor(lib, [1.0, 2.0], requires_grad=True), tensor(lib, [3.0, 4.0], requires_grad=True)
        y = KW.apply(a, scale=b)
        y.sum().backward()
        return y, a.grad, b.grad, np.array(seen["needs"])

    assert_same_values(run)


def test_60_keyword_argument_counts_in_number_of_gradients():
    def run(lib):
        class KW(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, scale=2.0):
                return a * scale

            @staticmethod
            def backward(ctx, g):
                return g * 2

        a, b = tensor(lib, [1.0], requires_grad=True), tensor(lib, [3.0], requires_grad=True)
        KW.apply(a, scale=b).sum().backward()

    assert_same_error(run, "incorrect number of gradients (expected 2, got 1)")


def test_60_forward_with_var_keyword_rejects_unknown_keyword():
    def run(lib):
        class KW(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, **kw):
                return a * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

        KW.apply(tensor(lib, [1.0], requires_grad=True), foo=1)

    assert_same_error(run, "unexpected keyword argument 'foo'")


@pytest.mark.parametrize(
    ("kwargs", "phrase"),
    [({"bad": 1}, "unexpected keyword argument 'bad'"), ({"a": 1.0}, "multiple values for argument 'a'")],
)
def test_apply_bad_keyword_raises_type_error_on_both(kwargs, phrase):
    def run(lib):
        class KW(lib.autograd.Function):
            @staticmethod
            def forward(ctx, a, scale=2.0):
                return a * scale

            @staticmethod
            def backward(ctx, g):
                return g * 2, None

        KW.apply(tensor(lib, [1.0], requires_grad=True), **kwargs)

    assert_same_error(run, phrase)


def test_setup_context_unknown_keyword_raises_type_error_on_both():
    def run(lib):
        make_square_setup(lib).apply(tensor(lib, [1.0], requires_grad=True), j=2)

    assert_same_error(run, "unexpected keyword argument 'j'")


def test_61_diamond_runs_newest_node_first():
    def run(lib):
        order = []

        def tracer(name):
            class T(lib.autograd.Function):
                @staticmethod
                def forward(ctx, *xs):
                    out = xs[0] * 1
                    for x in xs[1:]:
                        out = out + x
                    return out

                @staticmethod
                def backward(ctx, g):
                    order.append(name)
                    return (g,) * len(ctx.needs_input_grad)

            return T

        A, B, C, D = (tracer(n) for n in "ABCD")
        x = tensor(lib, [1.0], requires_grad=True)
        a = A.apply(x)
        D.apply(B.apply(a), C.apply(a)).sum().backward()
        return order, values(x.grad).tolist()

    ours, theirs = both(run)
    assert ours == theirs == (["D", "C", "B", "A"], [2.0])


def test_62_same_tensor_returned_twice():
    def run(lib):
        seen = {}

        class Twice(lib.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                y = x * 2
                return y, y

            @staticmethod
            def backward(ctx, g1, g2):
                seen["grads"] = (g1, g2)
                return g1 * 2 + g2 * 2

        x = tensor(lib, [1.0], requires_grad=True)
        a, b = Twice.apply(x)
        assert a is b
        a.sum().backward()
        return (*seen["grads"], x.grad)

    assert_same_values(run)


# =========================================================================== class attributes (torch 2.13)
def test_clear_saved_tensors_on_access_matches():
    def run(lib):
        seen = {}

        class ClearOnce(lib.autograd.Function):
            clear_saved_tensors_on_access = True

            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                try:
                    ctx.saved_tensors
                except RuntimeError as exc:
                    seen["error"] = str(exc)
                return 2 * x * g

        x = tensor(lib, [3.0], requires_grad=True)
        ClearOnce.apply(x).sum().backward()
        return "saved_tensors can only be accessed once" in seen.get("error", ""), values(x.grad).tolist()

    ours, theirs = both(run)
    assert ours == theirs == (True, [6.0])


def test_boxed_grads_call_matches():
    def run(lib):
        seen = {}

        class Boxed(lib.autograd.Function):
            boxed_grads_call = True

            @staticmethod
            def forward(ctx, x):
                return x * 2, x * 3

            @staticmethod
            def backward(ctx, grads):
                seen["type"] = type(grads)
                seen["len"] = len(grads)
                g1, g2 = grads.pop(0), grads.pop(0)
                return g1 * 2 + g2 * 3

        x = tensor(lib, [1.0], requires_grad=True)
        a, b = Boxed.apply(x)
        (a + b).sum().backward()
        return seen["type"], seen["len"], values(x.grad).tolist()

    ours, theirs = both(run)
    assert ours == theirs == (list, 2, [5.0])

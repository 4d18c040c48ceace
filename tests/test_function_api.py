"""Behaviour of ``ctxgrad.autograd.Function`` and its ctx (which is the graph node).

Each test states one behaviour, named for it.  The expected behaviour is torch's
(``/work/shared/reference/torch-autograd-function.md``), except where ctxgrad is
deliberately louder (list/dict outputs, once_differentiable through ``grad``).
"""

from __future__ import annotations

import gc
import weakref
from typing import Any

import numpy as np
import pytest

import ctxgrad
from ctxgrad.autograd import Function, GradientTypeError, once_differentiable
from ctxgrad.autograd.errors import OnceDifferentiableError
from ctxgrad.autograd.graph import AccumulateGrad, Node, increment_version


# --------------------------------------------------------------------------- helpers
def leaf(data: Any, dtype: Any = None) -> ctxgrad.Tensor:
    """A leaf that requires grad."""
    return ctxgrad.tensor(data, dtype=dtype, requires_grad=True)


def values(t: ctxgrad.Tensor) -> np.ndarray:
    return t.detach().numpy()


def inplace_add_(t: ctxgrad.Tensor, value: float) -> None:
    """An in-place change as a built-in in-place op would make it: data changed, version bumped."""
    arr = t.detach().numpy()
    arr += value
    increment_version(t)


@pytest.fixture
def no_gc():
    """Run the test with the cycle collector off, so only reference counting frees objects."""
    was_enabled = gc.isenabled()
    gc.collect()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


class Square(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return 2 * x * g


class Double(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, g):
        return g * 2


def make_returning(grads_fn):
    """A Function of (x,) or more args whose backward returns ``grads_fn(g)``."""

    class F(Function):
        @staticmethod
        def forward(ctx, x, *rest):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return grads_fn(g)

    return F


# =========================================================================== definition styles
def test_combined_style_computes_value_and_gradient():
    x = leaf([1.0, 2.0, 3.0])
    y = Square.apply(x)
    np.testing.assert_allclose(values(y), [1.0, 4.0, 9.0])
    y.sum().backward()
    np.testing.assert_allclose(values(x.grad), [2.0, 4.0, 6.0])


def test_setup_context_style_computes_value_and_gradient():
    class Cube(Function):
        @staticmethod
        def forward(x):
            return x * x * x

        @staticmethod
        def setup_context(ctx, inputs, output):
            (x,) = inputs
            ctx.save_for_backward(x)

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return 3 * x * x * g

    x = leaf([1.0, 2.0])
    y = Cube.apply(x)
    np.testing.assert_allclose(values(y), [1.0, 8.0])
    y.sum().backward()
    np.testing.assert_allclose(values(x.grad), [3.0, 12.0])


def test_setup_context_receives_inputs_with_defaults_filled_in():
    seen = {}

    class Scale(Function):
        @staticmethod
        def forward(x, scale=2.0, shift=0.5):
            return x * scale + shift

        @staticmethod
        def setup_context(ctx, inputs, output):
            seen["inputs"] = inputs
            ctx.scale = inputs[1]

        @staticmethod
        def backward(ctx, g):
            return g * ctx.scale, None, None

    x = leaf([1.0])
    y = Scale.apply(x, shift=1.0)
    assert seen["inputs"][0] is x
    assert seen["inputs"][1:] == (2.0, 1.0)
    assert len(seen["inputs"]) == 3
    np.testing.assert_allclose(values(y), [3.0])
    y.sum().backward()
    np.testing.assert_allclose(values(x.grad), [2.0])


def test_setup_context_receives_forward_output_as_returned():
    seen = {}

    class Two(Function):
        @staticmethod
        def forward(x):
            return x * 2, x * 3

        @staticmethod
        def setup_context(ctx, inputs, output):
            seen["output"] = output

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 * 2 + g2 * 3

    Two.apply(leaf([1.0]))
    out = seen["output"]
    assert type(out) is tuple and len(out) == 2
    np.testing.assert_allclose(values(out[0]), [2.0])
    np.testing.assert_allclose(values(out[1]), [3.0])


def test_setup_context_style_needs_no_ctx_in_forward():
    class Plain(Function):
        @staticmethod
        def forward(x):
            return x + 1

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, g):
            return g

    y = Plain.apply(leaf([1.0]))
    assert y.grad_fn.name() == "PlainBackward"


# =========================================================================== keyword arguments to apply
class ScaleKW(Function):
    @staticmethod
    def forward(ctx, a, scale=2.0):
        ctx.save_for_backward(a, scale if isinstance(scale, ctxgrad.Tensor) else None)
        ctx.seen_needs = ctx.needs_input_grad
        return a * scale

    @staticmethod
    def backward(ctx, g):
        a, scale = ctx.saved_tensors
        if scale is None:
            return g * 2.0, None
        return g * scale, g * a


def test_apply_keyword_argument_fills_its_slot():
    a = leaf([1.0, 2.0])
    b = leaf([3.0, 4.0])
    y = ScaleKW.apply(a, scale=b)
    np.testing.assert_allclose(values(y), [3.0, 8.0])
    y.sum().backward()
    np.testing.assert_allclose(values(a.grad), [3.0, 4.0])
    np.testing.assert_allclose(values(b.grad), [1.0, 2.0])


def test_apply_keyword_argument_counts_in_needs_input_grad():
    a = leaf([1.0])
    b = leaf([3.0])
    y = ScaleKW.apply(a, scale=b)
    assert y.grad_fn.needs_input_grad == (True, True)
    assert len(y.grad_fn.next_functions) == 2


def test_apply_keyword_argument_counts_in_number_of_gradients():
    class OneGrad(Function):
        @staticmethod
        def forward(ctx, a, scale=2.0):
            return a * scale

        @staticmethod
        def backward(ctx, g):
            return g * 2

    y = OneGrad.apply(leaf([1.0]), scale=leaf([2.0]))
    with pytest.raises(RuntimeError, match=r"incorrect number of gradients \(expected 2, got 1\)"):
        y.sum().backward()


def test_apply_unknown_keyword_raises_type_error_naming_it():
    with pytest.raises(TypeError, match="unexpected keyword argument 'bad'"):
        ScaleKW.apply(leaf([1.0]), bad=3)


def test_apply_duplicated_keyword_raises_type_error_naming_it():
    with pytest.raises(TypeError, match="multiple values for argument 'a'"):
        ScaleKW.apply(leaf([1.0]), a=leaf([1.0]))


def test_apply_keyword_for_positional_given_positionally_raises():
    with pytest.raises(TypeError, match="multiple values for argument 'scale'"):
        ScaleKW.apply(leaf([1.0]), 2.0, scale=3.0)


def test_forward_with_var_keyword_rejects_unknown_keyword():
    class KW(Function):
        @staticmethod
        def forward(ctx, a, **kw):
            return a * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    with pytest.raises(TypeError, match="unexpected keyword argument 'foo'"):
        KW.apply(leaf([1.0]), foo=1)


def test_apply_missing_required_argument_raises_type_error():
    class Two(Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, g):
            return g, g

    with pytest.raises(TypeError, match="'b'"):
        Two.apply(leaf([1.0]))


def test_setup_context_style_unknown_keyword_raises_type_error():
    class S(Function):
        @staticmethod
        def forward(x, k=1):
            return x * k

        @staticmethod
        def setup_context(ctx, inputs, output):
            pass

        @staticmethod
        def backward(ctx, g):
            return g, None

    with pytest.raises(TypeError, match="unexpected keyword argument 'j'"):
        S.apply(leaf([1.0]), j=2)


# =========================================================================== legacy misuse
def test_instantiating_function_warns_deprecation():
    with pytest.warns(DeprecationWarning, match="should not be instantiated"):
        Double()


def test_calling_function_instance_raises_legacy_error():
    with pytest.warns(DeprecationWarning):
        f = Double()
    with pytest.raises(RuntimeError, match="Legacy autograd function with non-static forward method is deprecated"):
        f(leaf([1.0]))


def test_instantiating_function_with_arguments_raises_naming_apply():
    with pytest.raises(RuntimeError, match=r"apply"):
        Double(leaf([1.0]))


def test_missing_forward_raises_not_implemented_at_apply():
    class NoForward(Function):
        @staticmethod
        def backward(ctx, g):
            return g

    with pytest.raises(NotImplementedError, match="You must implement the forward function"):
        NoForward.apply(leaf([1.0]))


def test_missing_backward_raises_not_implemented_at_backward():
    class NoBackward(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

    y = NoBackward.apply(leaf([1.0]))  # apply itself is fine
    with pytest.raises(NotImplementedError, match="You must implement either the backward or vjp method"):
        y.sum().backward()


def test_both_backward_and_vjp_raise_at_backward():
    class Both(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

        @staticmethod
        def vjp(ctx, g):
            return g * 2

    y = Both.apply(leaf([1.0]))
    with pytest.raises(RuntimeError, match="Implementing both 'backward' and 'vjp'"):
        y.sum().backward()


def test_vjp_alone_is_used_as_backward():
    class OnlyVjp(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def vjp(ctx, g):
            return g * 5

    x = leaf([1.0])
    OnlyVjp.apply(x).sum().backward()
    np.testing.assert_allclose(values(x.grad), [5.0])


def test_calling_forward_directly_records_no_custom_node():
    x = leaf([2.0])
    y = Double.forward(None, x)
    assert y.grad_fn is not None
    assert y.grad_fn.name() != "DoubleBackward"
    np.testing.assert_allclose(values(y), [4.0])


# =========================================================================== the ctx is the node
def test_grad_fn_is_the_ctx_seen_in_forward():
    seen = {}

    class Keep(Function):
        @staticmethod
        def forward(ctx, x):
            seen["ctx"] = ctx
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    y = Keep.apply(leaf([1.0]))
    assert y.grad_fn is seen["ctx"]


def test_node_class_is_named_function_name_plus_backward():
    y = Double.apply(leaf([1.0]))
    assert type(y.grad_fn).__name__ == "DoubleBackward"
    assert y.grad_fn.name() == "DoubleBackward"


def test_node_is_instance_of_graph_node():
    y = Double.apply(leaf([1.0]))
    assert isinstance(y.grad_fn, Node)
    assert isinstance(y.grad_fn, ctxgrad.autograd.graph.Node)


def test_next_functions_of_leaf_is_its_accumulate_grad():
    x = leaf([1.0])
    y = Double.apply(x)
    ((node, nr),) = y.grad_fn.next_functions
    assert isinstance(node, AccumulateGrad)
    assert node.name() == "AccumulateGrad"
    assert node.variable is x
    assert nr == 0


def test_next_functions_of_non_leaf_is_its_grad_fn_and_output_nr():
    class Two(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 * 2 + g2 * 3

    a, b = Two.apply(leaf([1.0]))
    y = Double.apply(b)
    assert y.grad_fn.next_functions == ((b.grad_fn, 1),)
    assert b.grad_fn is a.grad_fn
    assert b.output_nr == 1


def test_next_functions_of_tensor_not_requiring_grad_is_none():
    class Mul(Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, g):
            return g, g

    x = leaf([1.0])
    y = Mul.apply(x, ctxgrad.tensor([2.0]))
    assert y.grad_fn.next_functions[1] == (None, 0)
    assert len(y.grad_fn.next_functions) == 2


def test_next_functions_leave_out_non_tensor_arguments():
    class ScaleBy(Function):
        @staticmethod
        def forward(ctx, x, k, name):
            return x * k

        @staticmethod
        def backward(ctx, g):
            return g * 3, None, None

    x = leaf([1.0])
    y = ScaleBy.apply(x, 3, "name")
    assert len(y.grad_fn.next_functions) == 1
    assert y.grad_fn.next_functions[0][0].variable is x


def test_node_metadata_is_a_dict_kept_on_the_node():
    y = Double.apply(leaf([1.0]))
    md = y.grad_fn.metadata
    assert isinstance(md, dict)
    md["tag"] = 7
    assert y.grad_fn.metadata["tag"] == 7


def test_ctx_attributes_are_readable_on_grad_fn():
    class Attr(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.k = 3
            return x * 3

        @staticmethod
        def backward(ctx, g):
            return g * ctx.k

    y = Attr.apply(leaf([1.0]))
    assert y.grad_fn.k == 3


def test_nested_function_class_gives_short_node_name():
    def make():
        class Inner(Function):
            @staticmethod
            def forward(ctx, x):
                return x * 2

            @staticmethod
            def backward(ctx, g):
                return g * 2

        return Inner

    assert make().apply(leaf([1.0])).grad_fn.name() == "InnerBackward"


def test_metadata_set_in_forward_is_kept_on_the_node():
    class Tag(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.metadata["tag"] = "from forward"
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    y = Tag.apply(leaf([1.0]))
    assert y.grad_fn.metadata == {"tag": "from forward"}


def test_metadata_set_in_setup_context_is_kept_on_the_node():
    class Tag(Function):
        @staticmethod
        def forward(x):
            return x * 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            ctx.metadata["tag"] = "from setup_context"

        @staticmethod
        def backward(ctx, g):
            return g * 2

    y = Tag.apply(leaf([1.0]))
    assert y.grad_fn.metadata == {"tag": "from setup_context"}


def test_node_prehook_registered_in_forward_runs():
    class Hooked(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.register_prehook(lambda grads: (grads[0] * 10,))
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = leaf([1.0])
    Hooked.apply(x).sum().backward()
    np.testing.assert_allclose(values(x.grad), [20.0])


def test_node_hooks_registered_on_grad_fn_run_around_backward():
    order = []
    x = leaf([1.0])
    y = Double.apply(x)
    y.grad_fn.register_prehook(lambda grads: order.append("pre") or (grads[0] * 10,))
    y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: order.append("post") or (grad_inputs[0] + 1,))
    y.sum().backward()
    assert order == ["pre", "post"]
    np.testing.assert_allclose(values(x.grad), [21.0])


def test_next_functions_of_ctx_whose_call_recorded_nothing_is_empty():
    seen = {}

    class Keep(Function):
        @staticmethod
        def forward(ctx, x):
            seen["ctx"] = ctx
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    Keep.apply(ctxgrad.tensor([1.0]))
    assert seen["ctx"].next_functions == ()


# =========================================================================== grad modes
def test_forward_runs_with_grad_disabled():
    seen = {}

    class Probe(Function):
        @staticmethod
        def forward(ctx, x):
            seen["grad"] = ctxgrad.is_grad_enabled()
            inner = x * 2
            seen["inner_requires_grad"] = inner.requires_grad
            return inner

        @staticmethod
        def backward(ctx, g):
            return g * 2

    Probe.apply(leaf([1.0]))
    assert seen == {"grad": False, "inner_requires_grad": False}
    assert ctxgrad.is_grad_enabled()


def test_setup_context_runs_with_grad_disabled():
    seen = {}

    class Probe(Function):
        @staticmethod
        def forward(x):
            return x * 2

        @staticmethod
        def setup_context(ctx, inputs, output):
            seen["grad"] = ctxgrad.is_grad_enabled()

        @staticmethod
        def backward(ctx, g):
            return g * 2

    Probe.apply(leaf([1.0]))
    assert seen["grad"] is False


def _grad_mode_probe():
    seen = []

    class Probe(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            seen.append(ctxgrad.is_grad_enabled())
            return g * 2

    return Probe, seen


def test_backward_runs_with_grad_disabled():
    Probe, seen = _grad_mode_probe()
    Probe.apply(leaf([1.0])).sum().backward()
    assert seen == [False]


def test_backward_runs_with_grad_enabled_under_create_graph():
    Probe, seen = _grad_mode_probe()
    x = leaf([1.0])
    ctxgrad.autograd.grad(Probe.apply(x).sum(), x, create_graph=True)
    assert seen == [True]


def test_no_input_requiring_grad_gives_outputs_without_history():
    y = Double.apply(ctxgrad.tensor([1.0]))
    assert y.requires_grad is False
    assert y.grad_fn is None


def test_call_under_no_grad_gives_outputs_without_history():
    with ctxgrad.no_grad():
        y = Double.apply(leaf([1.0]))
    assert y.requires_grad is False
    assert y.grad_fn is None


def test_call_under_no_grad_still_runs_forward():
    with ctxgrad.no_grad():
        y = Square.apply(leaf([3.0]))
    np.testing.assert_allclose(values(y), [9.0])


def test_forward_history_built_with_enable_grad_is_replaced_by_custom_node():
    class EnableInside(Function):
        @staticmethod
        def forward(ctx, x):
            with ctxgrad.enable_grad():
                return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 7

    x = leaf([1.0])
    y = EnableInside.apply(x)
    assert y.grad_fn.name() == "EnableInsideBackward"
    y.sum().backward()
    np.testing.assert_allclose(values(x.grad), [7.0])


# =========================================================================== needs_input_grad
def _needs_probe():
    seen = {}

    class Probe(Function):
        @staticmethod
        def forward(ctx, a, b, k):
            seen["forward"] = ctx.needs_input_grad
            return a * b * k

        @staticmethod
        def backward(ctx, g):
            seen["backward"] = ctx.needs_input_grad
            return g, g, None

    return Probe, seen


def test_needs_input_grad_has_one_bool_per_argument():
    Probe, seen = _needs_probe()
    a, b = leaf([1.0]), ctxgrad.tensor([2.0])
    Probe.apply(a, b, 3).sum().backward()
    assert seen == {"forward": (True, False, False), "backward": (True, False, False)}


def test_needs_input_grad_is_fixed_at_forward_time():
    Probe, seen = _needs_probe()
    a, b = leaf([1.0]), leaf([2.0])
    out = Probe.apply(a, b, 3)
    ctxgrad.autograd.grad(out.sum(), [a])
    assert seen["forward"] == (True, True, False)
    assert seen["backward"] == (True, True, False)


def test_needs_input_grad_is_not_narrowed_by_backward_inputs():
    Probe, seen = _needs_probe()
    a, b = leaf([1.0]), leaf([2.0])
    Probe.apply(a, b, 3).sum().backward(inputs=[b])
    assert seen["backward"] == (True, True, False)
    assert a.grad is None
    np.testing.assert_allclose(values(b.grad), [1.0])


def test_needs_input_grad_inside_no_grad_follows_requires_grad():
    Probe, seen = _needs_probe()
    with ctxgrad.no_grad():
        Probe.apply(leaf([1.0]), leaf([2.0]), 3)
    assert seen["forward"] == (True, True, False)


def test_needs_input_grad_of_no_grad_call_does_not_change_later():
    seen = {}

    class Keep(Function):
        @staticmethod
        def forward(ctx, x):
            seen["ctx"] = ctx
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = ctxgrad.tensor([1.0])
    with ctxgrad.no_grad():
        Keep.apply(x)
    x.requires_grad_(True)
    assert seen["ctx"].needs_input_grad == (False,)


def test_needs_input_grad_in_setup_context_style():
    seen = {}

    class S(Function):
        @staticmethod
        def forward(a, b):
            return a * b

        @staticmethod
        def setup_context(ctx, inputs, output):
            seen["setup"] = ctx.needs_input_grad

        @staticmethod
        def backward(ctx, g):
            return g, g

    S.apply(ctxgrad.tensor([1.0]), leaf([2.0]))
    assert seen["setup"] == (False, True)


# =========================================================================== save_for_backward / saved_tensors
def _saver(what):
    """A Function that saves ``what(x, y, mid)`` and records saved_tensors in backward."""
    seen = {}

    class Saver(Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            mid = x * 3
            seen["mid"] = mid
            ctx.save_for_backward(*what(x, y, mid))
            seen["in_forward"] = ctx.saved_tensors
            return y

        @staticmethod
        def backward(ctx, g):
            seen["saved"] = ctx.saved_tensors
            return g * 0

    return Saver, seen


def test_saved_input_comes_back_as_the_identical_object():
    Saver, seen = _saver(lambda x, y, mid: (x,))
    x = leaf([1.0])
    Saver.apply(x).sum().backward()
    assert seen["saved"][0] is x


def test_saved_output_comes_back_as_new_object_sharing_storage_with_grad_fn_node():
    Saver, seen = _saver(lambda x, y, mid: (y,))
    x = leaf([1.0])
    y = Saver.apply(x)
    node = y.grad_fn
    y.sum().backward()
    (s,) = seen["saved"]
    assert s is not y
    assert np.shares_memory(values(s), values(y))
    assert s.grad_fn is node
    assert s.requires_grad


def test_saved_intermediate_comes_back_without_history():
    Saver, seen = _saver(lambda x, y, mid: (mid,))
    x = leaf([1.0])
    Saver.apply(x).sum().backward()
    (s,) = seen["saved"]
    assert s.grad_fn is None
    np.testing.assert_allclose(values(s), [3.0])


def test_saved_none_comes_back_as_none():
    Saver, seen = _saver(lambda x, y, mid: (x, None, y))
    x = leaf([1.0])
    Saver.apply(x).sum().backward()
    assert len(seen["saved"]) == 3
    assert seen["saved"][1] is None


def test_saved_tensors_are_returned_in_save_order():
    Saver, seen = _saver(lambda x, y, mid: (mid, x))
    x = leaf([1.0])
    Saver.apply(x).sum().backward()
    np.testing.assert_allclose(values(seen["saved"][0]), [3.0])
    assert seen["saved"][1] is x


def test_saved_tensors_inside_forward_is_empty():
    Saver, seen = _saver(lambda x, y, mid: (x,))
    Saver.apply(leaf([1.0]))
    assert seen["in_forward"] == ()


def test_second_save_for_backward_replaces_first():
    seen = {}

    class Twice(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, x)
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            seen["saved"] = ctx.saved_tensors
            return g * 2

    x = leaf([1.0])
    Twice.apply(x).sum().backward()
    assert len(seen["saved"]) == 1
    assert seen["saved"][0] is x


def test_save_for_backward_of_non_tensor_raises_type_error():
    class SaveInt(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x, 3)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    with pytest.raises(TypeError, match="save_for_backward can only save variables, but argument 1 is of type int"):
        SaveInt.apply(leaf([1.0]))


def test_saved_tensors_readable_from_grad_fn_before_backward():
    x = leaf([2.0])
    y = Square.apply(x)
    (s,) = y.grad_fn.saved_tensors
    assert s is x


def test_saved_tensor_bumped_by_increment_version_raises_at_backward():
    x = leaf([1.0]) * 1  # a non-leaf, so it may be changed in place
    y = Square.apply(x)
    increment_version(x)
    with pytest.raises(RuntimeError, match="modified by an inplace operation") as info:
        y.sum().backward()
    msg = str(info.value)
    assert "is at version 1; expected version 0" in msg
    assert "SquareBackward" in msg


class AddOne_(Function):
    """Adds one in place and marks the input dirty (the user's change does not bump the version)."""

    @staticmethod
    def forward(ctx, x):
        x.numpy()[...] += 1
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, g):
        return g


class AddOneInPlace_(Function):
    """Adds one in place with ctxgrad's in-place op (tracked by the version counter)."""

    @staticmethod
    def forward(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, g):
        return g


def test_saved_array_written_by_numpy_in_forward_is_refused_at_once():
    """A graph's saved arrays are read-only while saved: a NumPy write into one (which the
    version counter cannot see) fails in forward, naming the Function and the argument,
    instead of making the later backward silently wrong (torch raises only at backward)."""
    a = leaf([1.0, 2.0, 3.0])
    x = a * 1
    y = Square.apply(x)  # saves x
    with pytest.raises(RuntimeError) as info:
        AddOne_.apply(x)
    msg = str(info.value)
    assert msg.startswith("AddOne_.forward failed (ValueError: ")
    assert "while the array of argument 'x' (index 0) is read-only: a graph has saved that tensor" in msg
    assert isinstance(info.value, ValueError)  # (the type of NumPy's refusal, which it replaces)
    assert "x.mul_(2)" in msg
    assert y.requires_grad
    z = a * 1
    AddOne_.apply(z)  # nothing saved z: the write is allowed
    assert z.tolist() == [2.0, 3.0, 4.0]


def test_saved_tensor_changed_by_dirty_function_raises_at_backward():
    a = leaf([1.0, 2.0, 3.0])
    x = a * 1
    y = Square.apply(x)
    AddOneInPlace_.apply(x)
    with pytest.raises(RuntimeError, match="modified by an inplace operation") as info:
        y.sum().backward()
    msg = str(info.value)
    assert "is at version 2; expected version 0" in msg  # add_ and mark_dirty, as in torch
    assert "SquareBackward" in msg
    assert "[3]" in msg


def test_saved_output_changed_in_place_raises_at_backward():
    class Exp(Function):
        @staticmethod
        def forward(ctx, x):
            y = x.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, g):
            (y,) = ctx.saved_tensors
            return g * y

    y = Exp.apply(leaf([0.0]))
    increment_version(y)
    with pytest.raises(RuntimeError, match="is at version 1; expected version 0"):
        y.sum().backward()


def test_saved_tensors_after_backward_raise_freed_error():
    x = leaf([2.0])
    y = Square.apply(x)
    y.sum().backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.grad_fn.saved_tensors


def test_second_backward_without_retain_graph_raises_freed_error():
    x = leaf([2.0])
    y = Square.apply(x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.backward()


def test_retain_graph_allows_second_backward_and_accumulates_in_place():
    x = leaf([2.0])
    y = Square.apply(x).sum()
    y.backward(retain_graph=True)
    first = x.grad
    y.backward()
    assert x.grad is first
    np.testing.assert_allclose(values(x.grad), [8.0])


def test_saved_tensors_still_readable_after_retained_backward():
    x = leaf([2.0])
    y = Square.apply(x)
    y.sum().backward(retain_graph=True)
    assert y.grad_fn.saved_tensors[0] is x


def test_saved_tensors_of_node_that_saved_nothing_raise_after_backward():
    y = Double.apply(leaf([1.0]))
    y.sum().backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.grad_fn.saved_tensors


def test_saved_variables_is_a_deprecated_alias():
    x = leaf([2.0])
    y = Square.apply(x)
    with pytest.warns(DeprecationWarning, match="saved_variables"):
        (s,) = y.grad_fn.saved_variables
    assert s is x


# =========================================================================== reference cycles
class SaveOutput(Function):
    @staticmethod
    def forward(ctx, x):
        y = x.exp()
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, g):
        (y,) = ctx.saved_tensors
        return g * y


def test_saving_an_output_creates_no_reference_cycle(no_gc):
    x = leaf([1.0])
    y = SaveOutput.apply(x)
    node_ref = weakref.ref(y.grad_fn)
    out_ref = weakref.ref(y)
    del y
    assert out_ref() is None
    assert node_ref() is None


def test_saving_input_and_output_creates_no_reference_cycle(no_gc):
    class SaveBoth(Function):
        @staticmethod
        def forward(ctx, x):
            y = x * 2
            ctx.save_for_backward(x, y)
            return y

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = leaf([1.0]) * 1
    y = SaveBoth.apply(x)
    node_ref = weakref.ref(y.grad_fn)
    del y
    assert node_ref() is None


def test_graph_of_chain_is_freed_when_last_output_dies(no_gc):
    x = leaf([-5.0])
    y = SaveOutput.apply(x)
    first = weakref.ref(y.grad_fn)
    for _ in range(3):
        y = SaveOutput.apply(y)
    del y
    assert first() is None


def test_backward_without_retain_graph_releases_saved_intermediate(no_gc):
    holder = {}

    class SaveMid(Function):
        @staticmethod
        def forward(ctx, x):
            mid = x * 3
            holder["ref"] = weakref.ref(mid)
            ctx.save_for_backward(mid)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    x = leaf([1.0])
    y = SaveMid.apply(x)
    assert holder["ref"]() is not None
    y.sum().backward()
    assert holder["ref"]() is None


# =========================================================================== mark_dirty
class MulTwo_(Function):
    """Doubles x in place, as an in-place op would (version bumped by the change itself)."""

    @staticmethod
    def forward(ctx, x):
        x.numpy()[...] *= 2
        increment_version(x)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, g):
        return g * 2


def test_mark_dirty_returns_the_same_object():
    x = leaf([1.0, 2.0]) * 1
    y = MulTwo_.apply(x)
    assert y is x
    np.testing.assert_allclose(values(x), [2.0, 4.0])


def test_mark_dirty_bumps_the_version_once_more():
    x = leaf([1.0, 2.0]) * 1
    before = x._version
    MulTwo_.apply(x)
    assert x._version == before + 2  # the change itself, then autograd


def test_mark_dirty_makes_the_node_the_grad_fn():
    x = leaf([1.0, 2.0]) * 1
    y = MulTwo_.apply(x)
    assert x.grad_fn is y.grad_fn
    assert x.grad_fn.name() == "MulTwo_Backward"


def test_mark_dirty_gradient_flows_through_custom_backward():
    a = leaf([1.0, 2.0])
    x = a * 1
    MulTwo_.apply(x)
    (x * x).sum().backward()
    # d/da (2a)^2 = 8a
    np.testing.assert_allclose(values(a.grad), [8.0, 16.0])


def test_mark_dirty_on_leaf_requiring_grad_raises():
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad has been used in an in-place operation"):
        MulTwo_.apply(leaf([1.0]))


def test_mark_dirty_without_grad_returns_same_object_and_bumps_version():
    x = ctxgrad.tensor([1.0])
    y = MulTwo_.apply(x)
    assert y is x
    assert x._version == 2
    assert x.grad_fn is None


def test_mark_dirty_tensor_not_returned_raises():
    class NotReturned(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_dirty(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    with pytest.raises(RuntimeError, match="Some elements marked as dirty during the forward method were not returned"):
        NotReturned.apply(leaf([1.0]) * 1)


def test_mark_dirty_of_non_input_warns():
    class DirtyNew(Function):
        @staticmethod
        def forward(ctx, x):
            y = x * 2
            ctx.mark_dirty(y)
            return y

        @staticmethod
        def backward(ctx, g):
            return g * 2

    with pytest.warns(UserWarning, match=r"mark_dirty\(\) received a tensor that was not an input"):
        DirtyNew.apply(leaf([1.0]))


# =========================================================================== mark_non_differentiable
def _non_diff(materialize=True):
    seen = {}

    class ArgMaxish(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(materialize)
            y = x * 2
            flag = x * 0
            idx = ctxgrad.tensor([0, 1, 2])[: x.shape[0]]
            ctx.mark_non_differentiable(flag, idx)
            return y, flag, idx

        @staticmethod
        def backward(ctx, gy, gflag, gidx):
            seen["grads"] = (gy, gflag, gidx)
            return gy * 2

    return ArgMaxish, seen


def test_mark_non_differentiable_output_does_not_require_grad():
    F, _ = _non_diff()
    y, flag, idx = F.apply(leaf([1.0, 2.0]))
    assert y.requires_grad
    assert flag.requires_grad is False and flag.grad_fn is None
    assert idx.requires_grad is False


def test_non_differentiable_outputs_get_zeros_of_their_dtype_in_backward():
    F, seen = _non_diff()
    y, _, _ = F.apply(leaf([1.0, 2.0]))
    y.sum().backward()
    _, gflag, gidx = seen["grads"]
    np.testing.assert_array_equal(values(gflag), [0.0, 0.0])
    assert gflag.dtype == ctxgrad.float32
    np.testing.assert_array_equal(values(gidx), [0, 0])
    assert gidx.dtype == ctxgrad.int64


def test_non_differentiable_outputs_get_none_without_materialize_grads():
    F, seen = _non_diff(materialize=False)
    y, _, _ = F.apply(leaf([1.0, 2.0]))
    y.sum().backward()
    assert seen["grads"][1] is None
    assert seen["grads"][2] is None


def test_mark_non_differentiable_on_input_returned_as_is():
    class PassThrough(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.mark_non_differentiable(x)
            return x, x * 2

        @staticmethod
        def backward(ctx, g_same, g_double):
            return g_double * 2

    x = leaf([1.0])
    same, double = PassThrough.apply(x)
    assert double.requires_grad
    assert same.requires_grad is False
    assert same.grad_fn is None


def test_integer_and_bool_outputs_are_automatically_non_differentiable():
    seen = {}

    class Ints(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, (x * 2).long(), x > 0

        @staticmethod
        def backward(ctx, g, gi, gb):
            seen["grads"] = (gi, gb)
            return g * 2

    x = leaf([1.0, 2.0])
    y, i, b = Ints.apply(x)
    assert y.requires_grad
    assert i.requires_grad is False and i.grad_fn is None
    assert b.requires_grad is False and b.grad_fn is None
    y.sum().backward()
    np.testing.assert_allclose(values(x.grad), [2.0, 2.0])
    gi, gb = seen["grads"]
    np.testing.assert_array_equal(values(gi), [0, 0])
    assert gi.dtype == ctxgrad.int64
    np.testing.assert_array_equal(values(gb), [False, False])


# =========================================================================== outputs
class Split(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2, x * 3

    @staticmethod
    def backward(ctx, g1, g2):
        return g1 * 2 + g2 * 3


def test_tuple_return_is_split_into_outputs():
    a, b = Split.apply(leaf([1.0]))
    assert a.grad_fn is b.grad_fn
    assert (a.output_nr, b.output_nr) == (0, 1)
    np.testing.assert_allclose(values(a), [2.0])
    np.testing.assert_allclose(values(b), [3.0])


def test_non_tensor_outputs_pass_through_and_get_none_gradients():
    seen = {}

    class Mixed(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, 5, None, "tag"

        @staticmethod
        def backward(ctx, g, g_int, g_none, g_str):
            seen["grads"] = (g_int, g_none, g_str)
            return g * 2

    x = leaf([1.0])
    y, five, none, tag = Mixed.apply(x)
    assert (five, none, tag) == (5, None, "tag")
    y.sum().backward()
    assert seen["grads"] == (None, None, None)
    np.testing.assert_allclose(values(x.grad), [2.0])


def test_one_tuple_return_gives_one_tuple():
    class One(Function):
        @staticmethod
        def forward(ctx, x):
            return (x * 2,)

        @staticmethod
        def backward(ctx, g):
            return g * 2

    out = One.apply(leaf([1.0]))
    assert type(out) is tuple and len(out) == 1
    assert out[0].grad_fn.name() == "OneBackward"


def _two_outputs(materialize=True):
    seen = {}

    class Two(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.set_materialize_grads(materialize)
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            seen["g2"] = g2
            return g1 * 2 + (0 if g2 is None else g2 * 3)

    return Two, seen


def test_unused_output_gets_zero_gradient():
    Two, seen = _two_outputs()
    x = leaf([1.0, 2.0])
    a, _ = Two.apply(x)
    a.sum().backward()
    np.testing.assert_array_equal(values(seen["g2"]), [0.0, 0.0])
    np.testing.assert_allclose(values(x.grad), [2.0, 2.0])


def test_unused_output_gets_none_without_materialize_grads():
    Two, seen = _two_outputs(materialize=False)
    x = leaf([1.0, 2.0])
    a, _ = Two.apply(x)
    a.sum().backward()
    assert seen["g2"] is None


class Identity(Function):
    @staticmethod
    def forward(ctx, x):
        return x

    @staticmethod
    def backward(ctx, g):
        return g * 3


def test_input_returned_as_is_comes_back_as_new_view_with_custom_grad_fn():
    x = leaf([1.0, 2.0])
    out = Identity.apply(x)
    assert out is not x
    assert out._base is x
    assert np.shares_memory(values(out), values(x))
    assert out.grad_fn.name() == "IdentityBackward"
    out.sum().backward()
    np.testing.assert_allclose(values(x.grad), [3.0, 3.0])


def test_input_returned_as_is_without_grad_is_still_a_new_view():
    x = ctxgrad.tensor([1.0, 2.0])
    out = Identity.apply(x)
    assert out is not x
    assert out._base is x
    assert out.grad_fn is None


def test_input_returned_as_is_under_no_grad_is_a_new_alias():
    x = leaf([1.0, 2.0])
    with ctxgrad.no_grad():
        out = Identity.apply(x)
    assert out is not x
    assert np.shares_memory(values(out), values(x))
    assert out.grad_fn is None


def test_same_tensor_returned_twice_is_one_object_wired_to_last_slot():
    seen = {}

    class Twice(Function):
        @staticmethod
        def forward(ctx, x):
            y = x * 2
            return y, y

        @staticmethod
        def backward(ctx, g1, g2):
            seen["grads"] = (g1, g2)
            return g1 * 2 + g2 * 2

    x = leaf([1.0])
    a, b = Twice.apply(x)
    assert a is b
    assert a.output_nr == 1
    a.sum().backward()
    g1, g2 = seen["grads"]
    np.testing.assert_array_equal(values(g1), [0.0])
    np.testing.assert_array_equal(values(g2), [1.0])


@pytest.mark.parametrize("container", [list, dict])
def test_list_or_dict_of_tensors_returned_raises_type_error(container):
    class Contained(Function):
        @staticmethod
        def forward(ctx, x):
            y = x * 2
            return [y] if container is list else {"y": y}

        @staticmethod
        def backward(ctx, g):
            return g * 2

    with pytest.raises(TypeError, match=f"returned a {container.__name__} of tensors; return the tensors as"):
        Contained.apply(leaf([1.0]))


@pytest.mark.parametrize("record", [True, False])
def test_list_of_tensors_inside_a_returned_tuple_raises_type_error(record):
    class Nested(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, [x * 3]

        @staticmethod
        def backward(ctx, g, g_list):
            return g * 2

    x = leaf([1.0]) if record else ctxgrad.tensor([1.0])
    with pytest.raises(TypeError, match=r"Nested\.forward returned a list of tensors as output 1"):
        Nested.apply(x)


def test_list_without_tensors_inside_a_returned_tuple_passes_through():
    class WithNames(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, ["doubled"]

        @staticmethod
        def backward(ctx, g, names):
            return g * 2

    x = leaf([1.0])
    y, names = WithNames.apply(x)
    assert names == ["doubled"]
    y.sum().backward()
    np.testing.assert_allclose(values(x.grad), [2.0])


# =========================================================================== central gradient checks
def test_too_many_gradients_raises():
    F = make_returning(lambda g: (g, g))
    y = F.apply(leaf([1.0, 2.0, 3.0]))
    with pytest.raises(RuntimeError, match=r"returned an incorrect number of gradients \(expected 1, got 2\)") as info:
        y.sum().backward()
    assert "FBackward" in str(info.value)


def test_extra_trailing_none_gradients_are_accepted():
    F = make_returning(lambda g: (g * 2, None, None))
    x = leaf([1.0])
    F.apply(x).sum().backward()
    np.testing.assert_allclose(values(x.grad), [2.0])


def test_too_few_gradients_raises():
    F = make_returning(lambda g: g)
    y = F.apply(leaf([1.0]), leaf([2.0]))
    with pytest.raises(RuntimeError, match=r"incorrect number of gradients \(expected 2, got 1\)"):
        y.sum().backward()


def test_one_tuple_gradient_is_accepted_for_one_input():
    F = make_returning(lambda g: (g * 4,))
    x = leaf([1.0])
    F.apply(x).sum().backward()
    np.testing.assert_allclose(values(x.grad), [4.0])


def test_gradient_of_wrong_shape_raises_naming_index_and_argument():
    F = make_returning(lambda g: ctxgrad.ones(4))
    y = F.apply(leaf([1.0, 2.0, 3.0]))
    with pytest.raises(RuntimeError) as info:
        y.sum().backward()
    msg = str(info.value)
    assert "returned an invalid gradient at index 0 - got [4] but expected shape compatible with [3]" in msg
    assert "'x'" in msg
    assert "FBackward" in msg


def test_gradient_with_extra_broadcast_dimension_is_summed_down():
    F = make_returning(lambda g: ctxgrad.ones(2, 3))
    x = leaf([1.0, 2.0, 3.0])
    F.apply(x).sum().backward()
    assert tuple(x.grad.shape) == (3,)
    np.testing.assert_allclose(values(x.grad), [2.0, 2.0, 2.0])


@pytest.mark.parametrize(("grad_shape", "input_shape"), [((3, 4), (3, 1)), ((1, 3), (3,)), ((2, 3, 4), (3, 4))])
def test_gradient_of_broadcast_shape_is_summed_to_input_shape(grad_shape, input_shape):
    F = make_returning(lambda g: ctxgrad.ones(*grad_shape))
    x = ctxgrad.zeros(*input_shape, requires_grad=True)
    F.apply(x).sum().backward()
    assert tuple(x.grad.shape) == input_shape
    n = int(np.prod(grad_shape)) // int(np.prod(input_shape))
    np.testing.assert_allclose(values(x.grad), np.full(input_shape, float(n)))


@pytest.mark.parametrize(("grad_shape", "input_shape"), [((1,), (3,)), ((), (3,)), ((3,), (3, 1))])
def test_gradient_smaller_than_input_is_rejected(grad_shape, input_shape):
    F = make_returning(lambda g: ctxgrad.ones(*grad_shape))
    y = F.apply(ctxgrad.zeros(*input_shape, requires_grad=True))
    with pytest.raises(RuntimeError, match="returned an invalid gradient at index 0"):
        y.sum().backward()


def test_float64_gradient_is_cast_to_float32_input_dtype():
    F = make_returning(lambda g: ctxgrad.ones(3, dtype=ctxgrad.float64))
    x = leaf([1.0, 2.0, 3.0])
    F.apply(x).sum().backward()
    assert x.grad.dtype == ctxgrad.float32
    np.testing.assert_allclose(values(x.grad), [1.0, 1.0, 1.0])


def test_integer_gradient_is_cast_to_float32_input_dtype():
    F = make_returning(lambda g: ctxgrad.tensor([1, 2, 3]))
    x = leaf([1.0, 2.0, 3.0])
    F.apply(x).sum().backward()
    assert x.grad.dtype == ctxgrad.float32
    np.testing.assert_allclose(values(x.grad), [1.0, 2.0, 3.0])


def test_complex_gradient_for_real_input_raises():
    F = make_returning(lambda g: ctxgrad.ones(3, dtype=ctxgrad.complex64))
    y = F.apply(leaf([1.0, 2.0, 3.0]))
    with pytest.raises(RuntimeError, match="complex"):
        y.sum().backward()


def test_python_float_gradient_raises_gradient_type_error():
    F = make_returning(lambda g: 1.0)
    y = F.apply(leaf([1.0]))
    with pytest.raises(GradientTypeError, match=r"expected Variable or None \(got float\)") as info:
        y.sum().backward()
    assert isinstance(info.value, TypeError)
    assert isinstance(info.value, RuntimeError)


def test_list_gradient_raises_gradient_type_error():
    F = make_returning(lambda g: [g])
    y = F.apply(leaf([1.0]))
    with pytest.raises(GradientTypeError, match=r"expected Variable or None \(got list\)"):
        y.sum().backward()


def test_gradient_for_non_tensor_argument_raises_gradient_type_error():
    F = make_returning(lambda g: (g, g))
    y = F.apply(leaf([1.0]), 3)
    with pytest.raises(GradientTypeError, match="returned a gradient different than None at position 2") as info:
        y.sum().backward()
    assert isinstance(info.value, TypeError)
    assert isinstance(info.value, RuntimeError)
    assert "FBackward" in str(info.value)


def test_none_gradient_for_input_requiring_grad_leaves_grad_none():
    class Two(Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, g):
            return g, None

    a, b = leaf([1.0]), leaf([2.0])
    Two.apply(a, b).sum().backward()
    np.testing.assert_allclose(values(a.grad), [1.0])
    assert b.grad is None


def test_gradient_for_tensor_not_requiring_grad_is_dropped():
    class Two(Function):
        @staticmethod
        def forward(ctx, a, b):
            return a * b

        @staticmethod
        def backward(ctx, g):
            return g, g

    a, b = leaf([1.0]), ctxgrad.tensor([2.0])
    Two.apply(a, b).sum().backward()
    assert b.grad is None
    np.testing.assert_allclose(values(a.grad), [1.0])


def test_gradient_computed_with_history_is_detached_without_create_graph():
    class WithHistory(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            with ctxgrad.enable_grad():
                return g * x

    x = leaf([3.0])
    WithHistory.apply(x).sum().backward()
    assert x.grad.grad_fn is None
    assert x.grad.requires_grad is False


def test_exception_raised_in_backward_keeps_its_type():
    class Boom(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2

        @staticmethod
        def backward(ctx, g):
            raise KeyError("boom in backward")

    y = Boom.apply(leaf([1.0]))
    with pytest.raises(KeyError, match="boom in backward"):
        y.sum().backward()


def test_backward_with_too_few_parameters_raises_python_type_error():
    class WrongArity(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g):
            return g

    a, b = WrongArity.apply(leaf([1.0]))
    with pytest.raises(TypeError, match="positional argument"):
        (a + b).sum().backward()


# =========================================================================== tensors stored on ctx
def _stores_on_ctx():
    class StoresTensor(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.x = x
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    return StoresTensor


def test_tensor_stored_as_ctx_attribute_warns():
    F = _stores_on_ctx()
    with pytest.warns(UserWarning, match="save_for_backward") as record:
        F.apply(leaf([1.0]))
    assert any("ctx.x" in str(w.message) for w in record)


def test_tensor_stored_as_ctx_attribute_warns_only_once_per_class(recwarn):
    F = _stores_on_ctx()
    with pytest.warns(UserWarning, match="save_for_backward"):
        F.apply(leaf([1.0]))
    recwarn.clear()
    F.apply(leaf([1.0]))
    assert not [w for w in recwarn if "save_for_backward" in str(w.message)]
    G = _stores_on_ctx()
    with pytest.warns(UserWarning, match="save_for_backward"):
        G.apply(leaf([1.0]))


def test_non_tensor_ctx_attribute_does_not_warn(recwarn):
    class StoresNumber(Function):
        @staticmethod
        def forward(ctx, x):
            ctx.k = 2.0
            ctx.shape = (1,)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * ctx.k

    StoresNumber.apply(leaf([1.0]))
    assert not [w for w in recwarn if "save_for_backward" in str(w.message)]


# =========================================================================== once_differentiable
class OnceSquare(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    @once_differentiable
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        OnceSquare.grad_mode_seen = ctxgrad.is_grad_enabled()
        return ctxgrad.tensor(2 * x.numpy() * g.numpy())


def test_once_differentiable_first_order_gradient_is_correct():
    x = leaf([3.0])
    OnceSquare.apply(x).sum().backward()
    np.testing.assert_allclose(values(x.grad), [6.0])


def test_once_differentiable_backward_runs_under_no_grad_even_with_create_graph():
    x = leaf([3.0])
    ctxgrad.autograd.grad(OnceSquare.apply(x).sum(), x, create_graph=True)
    assert OnceSquare.grad_mode_seen is False


def _once_grad(x):
    """First derivative of (x^2)^2 through the once-differentiable node, with create_graph."""
    y = OnceSquare.apply(x)
    z = (y * y).sum()  # the incoming gradient 2y has history
    (g,) = ctxgrad.autograd.grad(z, x, create_graph=True)
    return g


def test_once_differentiable_second_derivative_through_backward_raises():
    x = leaf([3.0])
    g = _once_grad(x)
    np.testing.assert_allclose(values(g), [4 * 27.0])
    with pytest.raises(RuntimeError, match="trying to differentiate twice a function that was marked with @once_"):
        g.sum().backward()


def test_once_differentiable_second_derivative_through_grad_raises():
    x = leaf([3.0])
    g = _once_grad(x)
    with pytest.raises(RuntimeError, match="trying to differentiate twice a function that was marked with @once_"):
        ctxgrad.autograd.grad(g.sum(), x)


def _once_square_in(lib: Any) -> Any:
    class TwiceX(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        @lib.autograd.function.once_differentiable
        def backward(ctx: Any, g: Any) -> Any:
            (x,) = ctx.saved_tensors
            return lib.tensor(2 * x.numpy() * g.numpy())

    return TwiceX


@pytest.mark.parametrize("how", ["backward", "grad"])
def test_once_differentiable_gradient_under_create_graph_does_not_require_grad_as_in_torch(how: str) -> None:
    torch = pytest.importorskip("torch")

    def run(lib: Any) -> Any:
        x = lib.tensor([3.0, -1.0], requires_grad=True)
        y = _once_square_in(lib).apply(x).sum()
        if how == "backward":
            y.backward(create_graph=True)
            g = x.grad
        else:
            (g,) = lib.autograd.grad(y, x, create_graph=True)
        return g.requires_grad, g.grad_fn is None, g.detach().numpy()

    ours, theirs = run(ctxgrad), run(torch)
    assert ours[:2] == theirs[:2] == (False, True)
    np.testing.assert_allclose(ours[2], theirs[2])


def test_once_differentiable_gradient_without_history_differentiated_again_names_the_function() -> None:
    torch = pytest.importorskip("torch")
    no_history = "element 0 of tensors does not require grad and does not have a grad_fn"
    for lib, error in ((ctxgrad, OnceDifferentiableError), (torch, RuntimeError)):
        x = lib.tensor([3.0], requires_grad=True)
        (g,) = lib.autograd.grad(_once_square_in(lib).apply(x).sum(), x, create_graph=True)
        with pytest.raises(error, match=no_history):
            lib.autograd.grad(g.sum(), x)
    x = leaf([3.0])
    (g,) = ctxgrad.autograd.grad(_once_square_in(ctxgrad).apply(x).sum(), x, create_graph=True)
    with pytest.raises(OnceDifferentiableError, match=r"went through TwiceXBackward, whose backward is marked @once_d"):
        ctxgrad.autograd.grad(g.sum(), x)
    ctxgrad.autograd.grad((x * 2).sum(), x)  # a later backward forgets it
    with pytest.raises(RuntimeError, match=f"^{no_history}$"):
        ctxgrad.autograd.grad(g.sum(), x)


def test_once_differentiable_without_create_graph_gives_plain_gradient():
    x = leaf([3.0])
    (g,) = ctxgrad.autograd.grad(OnceSquare.apply(x).sum(), x)
    assert g.grad_fn is None
    np.testing.assert_allclose(values(g), [6.0])


# =========================================================================== double backward
def test_double_backward_through_backward_written_in_ctxgrad_ops():
    x = leaf(3.0)
    y = Square.apply(x)
    (g,) = ctxgrad.autograd.grad(y, x, create_graph=True)
    np.testing.assert_allclose(values(g), 6.0)
    assert g.requires_grad
    (gg,) = ctxgrad.autograd.grad(g, x)
    np.testing.assert_allclose(values(gg), 2.0)


def test_graph_stays_usable_after_create_graph():
    x = leaf(3.0)
    y = Square.apply(x)
    ctxgrad.autograd.grad(y, x, create_graph=True)
    (again,) = ctxgrad.autograd.grad(y, x)
    np.testing.assert_allclose(values(again), 6.0)


def test_double_backward_through_saved_output():
    x = leaf(0.5)
    y = SaveOutput.apply(x)  # exp, saving its output
    (g,) = ctxgrad.autograd.grad(y, x, create_graph=True)
    (gg,) = ctxgrad.autograd.grad(g, x)
    np.testing.assert_allclose(values(gg), np.exp(0.5), rtol=1e-6)


class TimesThree(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 3

    @staticmethod
    def backward(ctx, g):
        return TimesThree.apply(g)


class CubeViaCustom(Function):
    """x**3 whose backward uses other custom Functions (Square, TimesThree)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, g):
        (x,) = ctx.saved_tensors
        return TimesThree.apply(Square.apply(x)) * g


def test_custom_function_used_inside_another_backward():
    x = leaf(2.0)
    y = CubeViaCustom.apply(x)
    (g,) = ctxgrad.autograd.grad(y, x, create_graph=True)
    np.testing.assert_allclose(values(g), 12.0)
    assert g.grad_fn is not None
    (gg,) = ctxgrad.autograd.grad(g, x)
    np.testing.assert_allclose(values(gg), 12.0)  # 6x


def test_create_graph_backward_fills_grad_with_history():
    x = leaf(3.0)
    with pytest.warns(UserWarning, match="reference cycle"):
        Square.apply(x).backward(create_graph=True)
    assert x.grad.requires_grad
    np.testing.assert_allclose(values(x.grad), 6.0)


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
def test_create_graph_backward_gives_each_leaf_its_own_grad():
    class AddBoth(Function):
        @staticmethod
        def forward(ctx, a, b):
            return a + b

        @staticmethod
        def backward(ctx, g):
            return g, g

    a, b = leaf([1.0, 2.0]), leaf([1.0, 2.0])
    AddBoth.apply(a, b).sum().backward(create_graph=True)
    assert a.grad is not b.grad


@pytest.mark.filterwarnings("ignore:Using backward\\(\\) with create_graph=True")
def test_backward_after_create_graph_backward_leaves_the_seed_alone():
    class PassGrad(Function):
        @staticmethod
        def forward(ctx, x):
            return x * 1

        @staticmethod
        def backward(ctx, g):
            return g

    x = leaf([1.0, 2.0])
    seed = ctxgrad.tensor([1.0, 1.0])
    PassGrad.apply(x).backward(seed, create_graph=True)
    PassGrad.apply(x).backward(seed)
    np.testing.assert_allclose(values(x.grad), [2.0, 2.0])
    np.testing.assert_allclose(values(seed), [1.0, 1.0])


# =========================================================================== class attributes
def test_clear_saved_tensors_on_access_second_read_raises():
    seen = {}

    class ClearOnce(Function):
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

    x = leaf([3.0])
    ClearOnce.apply(x).sum().backward()
    np.testing.assert_allclose(values(x.grad), [6.0])
    assert "saved_tensors can only be accessed once when clear_saved_tensors_on_access=True" in seen["error"]


def test_clear_saved_tensors_on_access_from_outside():
    class ClearOnce(Function):
        clear_saved_tensors_on_access = True

        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * 2

        @staticmethod
        def backward(ctx, g):
            return g * 2

    y = ClearOnce.apply(leaf([1.0]))
    y.grad_fn.saved_tensors
    with pytest.raises(RuntimeError, match="can only be accessed once"):
        y.grad_fn.saved_tensors


def test_boxed_grads_call_backward_receives_one_list():
    seen = {}

    class Boxed(Function):
        boxed_grads_call = True

        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, grads):
            seen["grads"] = grads
            seen["type"] = type(grads)
            g1 = grads.pop(0)
            g2 = grads.pop(0)
            return g1 * 2 + g2 * 3

    x = leaf([1.0])
    a, b = Boxed.apply(x)
    (a + b).sum().backward()
    assert seen["type"] is list
    np.testing.assert_allclose(values(x.grad), [5.0])


def test_maybe_clear_saved_tensors_frees_them():
    x = leaf([2.0])
    y = Square.apply(x)
    y.grad_fn.maybe_clear_saved_tensors()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        y.grad_fn.saved_tensors


def test_set_materialize_grads_false_with_all_outputs_used_gives_tensors():
    Two, seen = _two_outputs(materialize=False)
    x = leaf([1.0])
    a, b = Two.apply(x)
    (a + b).sum().backward()
    np.testing.assert_allclose(values(seen["g2"]), [1.0])
    np.testing.assert_allclose(values(x.grad), [5.0])


# =========================================================================== graph order and engine
def test_diamond_of_custom_nodes_runs_newest_first():
    order = []

    def tracer(name):
        class T(Function):
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
    x = leaf([1.0])
    a = A.apply(x)
    b = B.apply(a)
    c = C.apply(a)
    d = D.apply(b, c)
    d.sum().backward()
    assert order == ["D", "C", "B", "A"]
    np.testing.assert_allclose(values(x.grad), [2.0])

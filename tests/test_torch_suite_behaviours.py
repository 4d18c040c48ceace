"""Behaviours torch's own autograd tests expect where ctxgrad used to differ: errors torch
raises, anomaly mode, hooks, values and printing.

Each scenario is a function of the library module ``L``: the ``*_matches_torch`` tests run it
on both and compare (exception type and message as ``raised`` gives them); the others state
ctxgrad's result on its own.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from _support import raised

import ctxgrad


def _run(fn: Any, L: Any) -> Any:
    """``fn(L)``'s result, or its exception as ``raised`` gives it."""
    try:
        return ("OK", fn(L))
    except Exception:
        return raised(lambda: fn(L), L)


def _same(torch: Any, fn: Any) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _run(fn, ctxgrad) == _run(fn, torch)


# --------------------------------------------------------------------------- errors torch raises
def _inplace_on_view_of_intermediate(L: Any) -> Any:
    class F(L.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return (x * 2)[0:1]  # a view of an intermediate

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g

    out = F.apply(L.ones(3, requires_grad=True))
    out.mul_(2)


def test_a_custom_functions_view_of_an_intermediate_may_not_change_in_place() -> None:
    kind, message = raised(lambda: _inplace_on_view_of_intermediate(ctxgrad), ctxgrad)
    assert kind == "RuntimeError"
    assert message.startswith("Output 0 of F is a view and is being modified inplace. This view was created inside")


def test_a_custom_functions_view_of_an_intermediate_matches_torch(torch: Any) -> None:
    _same(torch, _inplace_on_view_of_intermediate)


def _dirty_non_differentiable(L: Any) -> Any:
    class F(L.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            x.mul_(2)
            ctx.mark_dirty(x)
            ctx.mark_non_differentiable(x)
            return x

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g

    x = L.ones(2, requires_grad=True)
    y = x.clone()
    o = F.apply(y)
    shares = o.data_ptr() == y.data_ptr()
    o.add_(1)  # one version counter
    (y * 1).sum().backward()
    return o is y, o.requires_grad, o.grad_fn is None, y.requires_grad, shares, y._version, x.grad.tolist()


def test_a_dirty_output_marked_non_differentiable_leaves_the_input_its_history() -> None:
    assert _dirty_non_differentiable(ctxgrad) == (False, False, True, True, True, 3, [1.0, 1.0])


def test_a_dirty_output_marked_non_differentiable_matches_torch(torch: Any) -> None:
    _same(torch, _dirty_non_differentiable)


def _post_accumulate_hook_returning_a_value(L: Any) -> Any:
    a = L.ones(2, requires_grad=True)
    a.register_post_accumulate_grad_hook(lambda t: t * 2)
    (a * 2).sum().backward()


def test_a_post_accumulate_grad_hook_must_return_none(torch: Any) -> None:
    assert raised(lambda: _post_accumulate_hook_returning_a_value(ctxgrad), ctxgrad) == (
        "RuntimeError",
        "Tensor post accumulate grad hooks should return None.",
    )
    _same(torch, _post_accumulate_hook_returning_a_value)


def _dual_of_a_dual(L: Any) -> Any:
    from importlib import import_module

    fwAD = import_module(f"{L.__name__}.autograd.forward_ad")
    with fwAD.dual_level():
        x = fwAD.make_dual(L.ones(2), L.ones(2))
        fwAD.make_dual(x, L.ones(2))


def test_a_second_tangent_at_the_same_level_is_refused(torch: Any) -> None:
    assert raised(lambda: _dual_of_a_dual(ctxgrad), ctxgrad)[0] == "RuntimeError"
    _same(torch, _dual_of_a_dual)


def _write_into_an_expanded_gradient(L: Any) -> Any:
    g = L.ones(1).clone().expand(3)
    g[0] = 0  # one memory location, shared by the three elements
    return g.tolist()


def test_an_element_of_an_expanded_tensor_can_be_written(torch: Any) -> None:
    assert _write_into_an_expanded_gradient(ctxgrad) == [0.0, 0.0, 0.0]
    _same(torch, _write_into_an_expanded_gradient)
    for L in (ctxgrad, torch):  # the whole expanded tensor still may not be written in place
        with pytest.raises(RuntimeError, match="more than one element of the written-to tensor"):
            L.ones(1).clone().expand(3).add_(1)


# --------------------------------------------------------------------------- anomaly mode
def _anomaly_nan(L: Any, fail_0th: bool) -> Any:
    size = 10

    class MyFunc(L.autograd.Function):
        @staticmethod
        def forward(ctx: Any, inp1: Any, inp2: Any, fail_0th: bool) -> Any:
            ctx.fail_0th = fail_0th
            return inp1.sum(0, keepdim=True)

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            gi = g.clone().expand(size)
            gi[0] = 0
            gi[0] /= 0  # a NaN
            return (gi, None, None) if ctx.fail_0th else (None, gi, None)

    inp = L.rand(size, requires_grad=True)
    MyFunc.apply(inp, inp, fail_0th).backward()  # without anomaly mode: no error
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with L.autograd.detect_anomaly():
            inp = L.rand(size, requires_grad=True)
            MyFunc.apply(inp, inp, fail_0th).backward()


@pytest.mark.parametrize("fail_0th", [True, False])
def test_anomaly_mode_finds_a_nan_written_into_a_gradient(torch: Any, fail_0th: bool) -> None:
    which = "0th" if fail_0th else "1th"
    assert raised(lambda: _anomaly_nan(ctxgrad, fail_0th), ctxgrad) == (
        "RuntimeError",
        f"Function 'MyFuncBackward' returned nan values in its {which} output.",
    )
    _same(torch, lambda L: _anomaly_nan(L, fail_0th))


def _nested_anomaly(L: Any) -> Any:
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with L.autograd.detect_anomaly(check_nan=False):
            out.append((L.is_anomaly_enabled(), L.is_anomaly_check_nan_enabled()))
            with L.autograd.detect_anomaly(check_nan=True):
                out.append((L.is_anomaly_enabled(), L.is_anomaly_check_nan_enabled()))
            out.append((L.is_anomaly_enabled(), L.is_anomaly_check_nan_enabled()))
            with L.autograd.set_detect_anomaly(False):
                out.append((L.is_anomaly_enabled(), L.is_anomaly_check_nan_enabled()))
        out.append((L.is_anomaly_enabled(), L.is_anomaly_check_nan_enabled()))
    return out


def test_nested_anomaly_modes_restore_what_was_there() -> None:
    assert _nested_anomaly(ctxgrad) == [(True, False), (True, True), (True, False), (False, True), (False, True)]


def test_nested_anomaly_modes_match_torch(torch: Any) -> None:
    _same(torch, _nested_anomaly)


def _no_forward_information(L: Any) -> Any:
    class F(L.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x.clone()

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            raise RuntimeError("boom")

    y = F.apply(L.ones(3, requires_grad=True))  # recorded outside anomaly mode
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        with L.autograd.detect_anomaly():
            error = raised(lambda: y.sum().backward(), L)
    return error, [str(w.message).split(" (Triggered internally")[0] for w in caught]


def test_no_forward_pass_information_is_said_as_torch_says_it(torch: Any) -> None:
    error, messages = _no_forward_information(ctxgrad)
    assert error == ("RuntimeError", "boom")
    assert messages[-1] == (
        "Error detected in FBackward. No forward pass information available. Enable detect anomaly during "
        "forward pass for more information."
    )
    _same(torch, _no_forward_information)


# --------------------------------------------------------------------------- printing
def _dual_reprs(L: Any) -> list[str]:
    from importlib import import_module

    fwAD = import_module(f"{L.__name__}.autograd.forward_ad")
    out = []
    with fwAD.dual_level() as level:
        out.append(str(level))
        x = fwAD.make_dual(L.ones(2, requires_grad=True), L.ones(2))
        out.append(repr(x))
        y = fwAD.make_dual(L.ones(2, 3, dtype=L.float64), L.ones(2, 3, dtype=L.float64) * 3)
        out.append(repr(y))
    with fwAD.dual_level() as level:
        out.append(str(level))  # numbered by depth: 0 again
    out.append(repr(x))  # outside the level: no tangent
    return [s.replace(L.__name__ + ".", "LIB.") for s in out]


def test_a_dual_tensor_shows_its_tangent() -> None:
    got = _dual_reprs(ctxgrad)
    assert got[0] == "0" and got[3] == "0"
    assert got[1] == "tensor([1., 1.], grad_fn=<ViewBackward0>, tangent=tensor([1., 1.]))"
    assert got[4] == "tensor([1., 1.], grad_fn=<ViewBackward0>)"


def test_dual_tensors_print_and_levels_count_as_in_torch(torch: Any) -> None:
    assert _dual_reprs(ctxgrad) == _dual_reprs(torch)


def test_nested_levels_are_numbered_by_depth() -> None:
    import ctxgrad.autograd.forward_ad as fwAD

    with fwAD.dual_level() as outer, fwAD.dual_level() as inner:
        x = fwAD.make_dual(ctxgrad.ones(1), ctxgrad.ones(1) * 2, level=outer)
        y = fwAD.make_dual(x, ctxgrad.ones(1) * 3, level=inner)
        assert (outer, inner) == (0, 1)
        assert fwAD.unpack_dual(y, level=0).tangent.tolist() == [2.0]
        assert fwAD.unpack_dual(y, level=1).tangent.tolist() == [3.0]
        with pytest.raises(RuntimeError, match="not the last one that was created \\(level 0, innermost 1\\)"):
            fwAD.exit_dual_level(level=0)


# --------------------------------------------------------------------------- hooks
def _hook_order(L: Any) -> list[Any]:
    order: list[Any] = []
    a = L.ones(2, requires_grad=True)
    a.register_hook(lambda g: order.append("leaf tensor hook"))
    a.register_post_accumulate_grad_hook(lambda t: order.append(("post accumulate", t.grad.tolist())))
    b = a * 2
    b.register_hook(lambda g: order.append("tensor hook"))
    b.grad_fn.register_prehook(lambda g: order.append("node pre-hook"))
    b.grad_fn.register_hook(lambda gi, go: order.append("node post-hook"))
    acc = b.grad_fn.next_functions[0][0]
    acc.register_prehook(lambda g: order.append("accumulate pre-hook"))
    acc.register_hook(lambda gi, go: order.append("accumulate post-hook"))
    b.sum().backward()
    return order


def test_hooks_run_in_torchs_order() -> None:
    assert _hook_order(ctxgrad) == [
        "tensor hook",
        "node pre-hook",
        "node post-hook",
        "leaf tensor hook",
        "accumulate pre-hook",
        ("post accumulate", [2.0, 2.0]),  # before the AccumulateGrad node's post-hooks
        "accumulate post-hook",
    ]


def test_hook_order_matches_torch(torch: Any) -> None:
    _same(torch, _hook_order)


def _hook_counts(L: Any) -> list[Any]:
    calls: list[Any] = []
    a = L.ones(2, requires_grad=True)
    a.register_hook(lambda g: calls.append(("leaf", [round(v, 4) for v in g.tolist()])) or g * 2)
    a.register_post_accumulate_grad_hook(lambda t: calls.append(("post", [round(v, 3) for v in t.grad.tolist()])))
    b = a * 1
    b.register_hook(lambda g: calls.append("b"))
    (b * 2 + b * 3).sum().backward()  # b's hook runs once, on the summed gradient
    (a * 3).sum().backward()
    with L.autograd.graph.saved_tensors_hooks(
        lambda x: (calls.append("pack"), x)[1], lambda x: (calls.append("unpack"), x)[1]
    ):
        y = a.exp()
    (g,) = L.autograd.grad(y.sum(), a, create_graph=True)
    g.sum().backward()
    return calls


def test_hooks_run_as_often_as_in_torch(torch: Any) -> None:
    _same(torch, _hook_counts)


# --------------------------------------------------------------------------- printing, warnings
def _decorate_a_class(L: Any) -> Any:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")

        @L.no_grad()
        class Made:
            def __init__(self) -> None:
                self.grad_enabled = L.is_grad_enabled()

    made = Made()
    return [(w.category.__name__, str(w.message)) for w in caught], made.grad_enabled, L.is_grad_enabled()


def test_decorating_a_class_with_a_grad_mode_warns_and_makes_it_in_the_mode() -> None:
    warned, inside, after = _decorate_a_class(ctxgrad)
    assert warned[0][0] == "FutureWarning"
    assert warned[0][1].startswith("Decorating classes is deprecated and will be disabled in future versions.")
    assert (inside, after) == (False, True)


def test_decorating_a_class_matches_torch(torch: Any) -> None:
    _same(torch, _decorate_a_class)


def _invalid_grad_fn_reprs(L: Any) -> list[str]:
    a = L.ones(3, requires_grad=True).clone()
    with L.no_grad():
        v = a[:2]  # a view made in no_grad mode ...
    a.mul_(2)  # ... whose base then changed in place: its grad_fn cannot be derived
    b = L.ones(3, requires_grad=True).clone()
    u = b.unbind(0)
    b.mul_(2)
    return [repr(v), repr(u[0]), raised(lambda: v.grad_fn, L)[0]]


def test_a_tensor_whose_grad_fn_is_invalid_prints_a_placeholder() -> None:
    assert _invalid_grad_fn_reprs(ctxgrad) == [
        "tensor([2., 2.], grad_fn=<Invalid>)",
        "tensor(2., grad_fn=<Invalid>)",
        "RuntimeError",
    ]


def test_a_tensor_whose_grad_fn_is_invalid_prints_as_in_torch(torch: Any) -> None:
    _same(torch, _invalid_grad_fn_reprs)


# --------------------------------------------------------------------------- views of views
def _view_of_a_no_grad_view(L: Any) -> Any:
    a = L.ones(3, requires_grad=True).clone()
    with L.no_grad():
        v = a[:2]
    v[:1].mul_(2)


def _view_of_a_multi_output_view(L: Any) -> Any:
    a = L.ones(2, 3, requires_grad=True).clone()
    a.unbind(0)[0].view(3).mul_(2)


def _custom_view_after_its_base_changed(L: Any) -> Any:
    class F(L.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x.view_as(x)

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g

    x = L.ones(3, requires_grad=True).clone()
    out = F.apply(x)
    x.mul_(2)
    return out.grad_fn


@pytest.mark.parametrize(
    "scenario", [_view_of_a_no_grad_view, _view_of_a_multi_output_view, _custom_view_after_its_base_changed]
)
def test_in_place_changes_of_guarded_views_of_views_match_torch(torch: Any, scenario: Any) -> None:
    assert raised(lambda: scenario(ctxgrad), ctxgrad)[0] == "RuntimeError"
    _same(torch, scenario)


# --------------------------------------------------------------------------- saved-tensor hooks entered in backward
def test_saved_tensor_hooks_entered_during_backward_do_not_leak() -> None:
    import gc
    import weakref

    def scope() -> Any:
        def unpack(x: Any) -> Any:
            weak_ctx().__enter__()  # entered during backward and never left
            return x

        ctx = ctxgrad.autograd.graph.saved_tensors_hooks(lambda x: x, unpack)
        weak_ctx = weakref.ref(ctx)
        x = ctxgrad.randn(3, 3, requires_grad=True)
        with ctx:
            x.sin().sum().backward()
        return weakref.ref(unpack)

    gc.disable()
    try:
        assert scope()() is None  # freed by reference counting alone
    finally:
        gc.enable()
    y = ctxgrad.ones(2, requires_grad=True).exp()  # no hooks left on the stack: saved plainly
    assert y.grad_fn._raw_saved_result.data.tolist() == y.tolist()


def test_saved_tensor_hooks_left_during_backward_do_not_crash(torch: Any) -> None:
    def run(L: Any) -> str:
        def unpack(x: Any) -> Any:
            inner.__exit__()
            return x

        inner = L.autograd.graph.saved_tensors_hooks(lambda x: x, unpack)
        outer = L.autograd.graph.saved_tensors_hooks(lambda x: x, lambda x: x)
        for _ in range(3):
            with outer:
                inner.__enter__()
                L.randn(3, 3, requires_grad=True).sin().sum().backward()
        for _ in range(3):
            inner.__exit__()
        a = L.tensor(1.0, requires_grad=True).exp()
        a.grad_fn._raw_saved_result.register_hooks(lambda x: x, lambda x: x)
        return "ok"

    assert run(ctxgrad) == run(torch) == "ok"


# --------------------------------------------------------------------------- values
def _non_differentiable_outputs(L: Any) -> list[Any]:
    from importlib import import_module

    fwAD = import_module(f"{L.__name__}.autograd.forward_ad")
    seen: list[Any] = []

    class F(L.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.set_materialize_grads(False)
            a, b = x.clone(), x.clone()
            ctx.mark_non_differentiable(b)
            return a, b, x > 0

        @staticmethod
        def jvp(ctx: Any, t: Any) -> Any:
            return t * 2, None, None

        @staticmethod
        def backward(ctx: Any, ga: Any, gb: Any, gc: Any) -> Any:
            seen.append((ga is None, gb is None, gc is None))
            return ga

    x = L.ones(2, requires_grad=True)
    a, b, c = F.apply(x)
    (a * 2 + b).sum().backward()
    out: list[Any] = [seen, x.grad.tolist()]
    with fwAD.dual_level():
        a, b, c = F.apply(fwAD.make_dual(L.ones(2), L.ones(2)))
        out += [fwAD.unpack_dual(t).tangent for t in (b, c)]
        out.append(fwAD.unpack_dual(a + b).tangent.tolist())
    return out


def test_non_differentiable_outputs_get_none_in_both_modes() -> None:
    assert _non_differentiable_outputs(ctxgrad) == [[(False, True, True)], [2.0, 2.0], None, None, [2.0, 2.0]]


def test_non_differentiable_outputs_match_torch(torch: Any) -> None:
    _same(torch, _non_differentiable_outputs)


def _nested_anomaly_warnings(L: Any, fail_0th: bool, record_forward: bool) -> Any:
    """A NaN in the backward of a node that another node's backward made (double backward)."""
    size = 4

    class Outer(L.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x.sum(0, keepdim=True)

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            (x,) = ctx.saved_tensors
            e = g.clone().expand(size)
            return Inner.apply(e * x, e + x)

    class Inner(L.autograd.Function):
        @staticmethod
        def forward(ctx: Any, a: Any, b: Any) -> Any:
            return a * 2.0 + b

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            ga, gb = g.clone(), g.clone()
            (ga if fail_0th else gb)[0] = float("nan")
            return ga, gb

    inp = L.rand(size, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if record_forward:
            with L.autograd.detect_anomaly():
                (g,) = L.autograd.grad(Outer.apply(inp), (inp,), create_graph=True)
                error = raised(lambda: g.sum().backward(), L)
        else:
            (g,) = L.autograd.grad(Outer.apply(inp), (inp,), create_graph=True)
            with L.autograd.detect_anomaly():
                error = raised(lambda: g.sum().backward(), L)
    firsts = []
    for w in caught:
        if w.category is UserWarning:
            text = str(w.message).split(" (Triggered internally")[0]
            firsts.append((text.strip().splitlines()[0], "Outer.apply" in text, "Inner.apply" in text))
    return error, firsts


@pytest.mark.parametrize("record_forward", [True, False])
@pytest.mark.parametrize("fail_0th", [True, False])
def test_anomaly_mode_names_the_backward_that_made_the_failing_node(
    torch: Any, fail_0th: bool, record_forward: bool
) -> None:
    error, firsts = _nested_anomaly_warnings(ctxgrad, fail_0th, record_forward)
    assert error[1] == f"Function 'InnerBackward' returned nan values in its {0 if fail_0th else 1}th output."
    if record_forward:
        assert firsts[-1] == (
            "Previous calculation was induced by OuterBackward. Traceback of forward call that induced the "
            "previous calculation:",
            True,
            False,
        )
    assert (error, firsts) == _nested_anomaly_warnings(torch, fail_0th, record_forward)


def _once_differentiable_node(L: Any) -> Any:
    class Twice(L.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x * 2

        @staticmethod
        @L.autograd.function.once_differentiable
        def backward(ctx: Any, g: Any) -> Any:
            return g * 2

    x = L.ones(2, requires_grad=True)
    seed = L.ones(2, requires_grad=True)
    (g,) = L.autograd.grad(Twice.apply(x), x, seed, create_graph=True)
    return repr(g), raised(lambda: g.sum().backward(), L)[1][:79]


def test_once_differentiable_results_hang_from_an_error_node_as_in_torch(torch: Any) -> None:
    assert _once_differentiable_node(ctxgrad) == (
        "tensor([2., 2.], grad_fn=<Error>)",
        "trying to differentiate twice a function that was marked with @once_differentia",
    )
    _same(torch, _once_differentiable_node)


def _no_grad_view_changed_in_no_grad(L: Any) -> Any:
    a = L.ones(1, requires_grad=True)
    with L.no_grad():
        b = a[:]
        b *= 2  # the view and the change both in no_grad mode
    return repr(b), raised(lambda: b * 2, L)[0]


def test_a_no_grad_view_changed_in_no_grad_is_invalid_in_grad_mode(torch: Any) -> None:
    assert _no_grad_view_changed_in_no_grad(ctxgrad) == ("tensor([2.], grad_fn=<Invalid>)", "RuntimeError")
    _same(torch, _no_grad_view_changed_in_no_grad)


def _custom_function_corner_cases(L: Any) -> list[Any]:
    from importlib import import_module

    fwAD = import_module(f"{L.__name__}.autograd.forward_ad")

    class DirtyIntermediateView(L.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            out = x.clone().view_as(x)
            ctx.mark_dirty(out)  # not an input
            return out

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g

    class NeitherJvpNorBackward(L.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x.clone()

    class ChangesAViewOfAnIntermediate(L.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            view = x.clone()[:2]
            view += 2  # in place, inside forward
            return view

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return L.cat([g, L.zeros(1)])

    x = L.ones(3, requires_grad=True)
    out: list[Any] = [raised(lambda: DirtyIntermediateView.apply(x.clone()), L)[1][:70]]
    with fwAD.dual_level():
        dual = fwAD.make_dual(L.ones(1), L.ones(1))
        kind, message = raised(lambda: NeitherJvpNorBackward.apply(dual), L)
    out.append((kind, message[:90]))
    y = ChangesAViewOfAnIntermediate.apply(x)
    out.append(type(y.grad_fn).__name__)
    y.sum().backward()
    out.append(x.grad.tolist())
    return out


def test_custom_function_corner_cases_match_torch(torch: Any) -> None:
    ours = _custom_function_corner_cases(ctxgrad)
    assert ours[0] == "ctx.mark_dirty() received a tensor that was not an input. Only input T"
    assert ours[1][1].startswith("You must implement the jvp function for custom autograd.Function")
    assert ours[2:] == ["ChangesAViewOfAnIntermediateBackward", [1.0, 1.0, 0.0]]
    theirs = _custom_function_corner_cases(torch)
    assert ours[0] == theirs[0] and ours[2:] == theirs[2:]
    assert ours[1][1] == theirs[1][1]
    # torch raises NotImplementedError; ctxgrad its subclass NoJvpError (both are RuntimeErrors).
    assert (ours[1][0], theirs[1][0]) == ("NoJvpError", "NotImplementedError")
    assert issubclass(ctxgrad.autograd.NoJvpError, NotImplementedError)


def _views_made_without_grad(L: Any) -> list[Any]:
    out = []
    for mode in (L.no_grad, L.inference_mode):
        x = L.zeros(2)
        with mode():
            y = x.view(2)
        y.requires_grad_(True)  # the view itself requires grad
        out.append(raised(lambda y=y: y.view(2).div_(2), L))
        x = L.zeros(2, requires_grad=True).clone()
        with mode():
            y = x.view(2)
        out.append(raised(lambda y=y: y.mul_(2), L))
        x.mul_(2)
        out.append(raised(lambda y=y: y.grad_fn, L))
    x = L.zeros(2)
    with L.no_grad():
        v = x[:1]
    v.add_(1)  # nothing needs a gradient: allowed
    out.append(raised(lambda: v.add_(L.ones(1, requires_grad=True)), L))  # an operand needs one
    out.append(v.tolist())
    return out


def test_views_made_without_grad_are_guarded_as_in_torch(torch: Any) -> None:
    ours = _views_made_without_grad(ctxgrad)
    assert ours[0][1].startswith("Output 0 of View is a view of a view which was created in no_grad mode")
    assert ours[3][1].startswith("Output 0 of View is a view of a view which was created in inference mode")
    assert ours[-1] == [1.0]
    _same(torch, _views_made_without_grad)


def _in_place_function_in_forward_mode(L: Any, changes_tangent_in_place: bool) -> Any:
    from importlib import import_module

    fwAD = import_module(f"{L.__name__}.autograd.forward_ad")

    class Double(L.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            x.mul_(2)
            ctx.mark_dirty(x)
            return x

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g * 2

        @staticmethod
        def jvp(ctx: Any, t: Any) -> Any:
            return t.mul_(2) if changes_tangent_in_place else t * 2

    x = L.tensor(1.0, requires_grad=True).clone()
    with fwAD.dual_level():
        tangent = L.ones_like(x)
        dual = fwAD.make_dual(x, tangent)
        try:
            out = Double.apply(dual)
        except RuntimeError as exc:
            return "RuntimeError", str(exc)
        return out is dual, fwAD.unpack_dual(out).tangent is tangent, tangent.item()


@pytest.mark.parametrize("changes_tangent_in_place", [True, False])
def test_an_in_place_function_changes_its_tangent_in_place_as_in_torch(
    torch: Any, changes_tangent_in_place: bool
) -> None:
    ours = _in_place_function_in_forward_mode(ctxgrad, changes_tangent_in_place)
    if changes_tangent_in_place:
        assert ours == (True, True, 2.0)
    else:
        assert ours[1].startswith("An inplace custom Function is not modifying the forward mode gradients inplace.")
    assert ours == _in_place_function_in_forward_mode(torch, changes_tangent_in_place)


def _view_outputs_in_forward_mode(L: Any) -> list[Any]:
    from importlib import import_module

    fwAD = import_module(f"{L.__name__}.autograd.forward_ad")
    out = []
    for tangent_of in (lambda t: t.view_as(t), lambda t: t, lambda t: t * 2):

        class ReturnsAnInput(L.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any, y: Any) -> Any:
                return x + y, x  # the second output is an input, as-is

            @staticmethod
            def backward(ctx: Any, g1: Any, g2: Any) -> Any:
                return g1 + g2, g1

            @staticmethod
            def jvp(ctx: Any, tx: Any, ty: Any, f: Any = tangent_of) -> Any:
                return tx + ty, f(tx)

        a = L.tensor(1.0, dtype=L.float64, requires_grad=True)
        b = L.tensor(1.0, dtype=L.float64, requires_grad=True)
        with fwAD.dual_level():
            t = L.tensor(1.0, dtype=L.float64)
            try:
                _, second = ReturnsAnInput.apply(fwAD.make_dual(a, t), b)
                out.append(fwAD.unpack_dual(second).tangent._base is t)
            except RuntimeError as exc:
                out.append(str(exc))
    return out


def test_a_view_output_needs_a_view_tangent_as_in_torch(torch: Any) -> None:
    ours = _view_outputs_in_forward_mode(ctxgrad)
    assert ours[0] is True
    assert (
        ours[1]
        == ours[2]
        == ("A custom Function's forward is returning a view (or an input as-is) but the jvp is not returning a view.")
    )
    assert ours == _view_outputs_in_forward_mode(torch)


def _full_backward_hook_under_double_backward(L: Any) -> list[int]:
    x = L.rand(1, requires_grad=True)
    loss = L.nn.MSELoss()
    calls = [0]
    loss.register_full_backward_hook(lambda module, grad_input, grad_output: calls.__setitem__(0, calls[0] + 1))
    (gx,) = L.autograd.grad(loss(x, L.rand(1)), x, create_graph=True)
    counts = [calls[0]]
    L.autograd.grad(gx, x)  # through the module's inputs only: no hook
    counts.append(calls[0])
    return counts


def test_full_backward_hooks_do_not_run_again_in_double_backward(torch: Any) -> None:
    assert (
        _full_backward_hook_under_double_backward(ctxgrad) == [1, 1] == _full_backward_hook_under_double_backward(torch)
    )

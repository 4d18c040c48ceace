"""ctxgrad.compat.afnio: text Variables whose gradients are feedback, through the one engine."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest

import ctxgrad
import ctxgrad.compat.afnio as hf
from ctxgrad.autograd.errors import GradientTypeError
from ctxgrad.compat.afnio import SEPARATOR, Function, Variable


# afnio's Function docstring example, with only its imports changed.
class Func(Function):
    @staticmethod
    def forward(ctx, x: hf.Variable):  # type: ignore[no-untyped-def]
        reverse = x.data[::-1]
        out = hf.Variable(data=reverse, role=x.role, requires_grad=True)
        ctx.save_for_backward(x, reverse, out)
        return out

    @staticmethod
    def backward(ctx, grad_out):  # type: ignore[no-untyped-def]
        x, reverse, out = ctx.saved_variables  # noqa: RUF059 (afnio's example, verbatim)
        grad = f"Here is the feedback for {x.role} (reversed): {grad_out.grad}"
        role = f"Feedback to {x.role}"
        x.grad = hf.Variable(data=grad, role=role)
        return x.grad


class Tagged(Function):
    """A Function that writes its tag into the feedback (and logs when its backward runs)."""

    log: list[str] = []

    @staticmethod
    def forward(ctx: Any, x: Variable, tag: str) -> Variable:
        ctx.tag = tag
        return Variable(f"{x.data}<{tag}>", role=x.role)

    @staticmethod
    def backward(ctx: Any, g: Variable) -> tuple[Variable, None]:
        Tagged.log.append(ctx.tag)
        return Variable(f"{ctx.tag}: {g.data}", role="feedback"), None


class Pair(Function):
    @staticmethod
    def forward(ctx: Any, a: Variable, b: Variable) -> Variable:
        return Variable(f"{a.data} | {b.data}", role="pair")

    @staticmethod
    def backward(ctx: Any, g: Variable) -> tuple[Variable, Variable]:
        return g, g


def test_function_is_ctxgrads_own_and_refuses_instances_as_afnio_does() -> None:
    assert issubclass(hf.Function, ctxgrad.autograd.Function)
    assert hf.backward is ctxgrad.autograd.backward and hf.grad is ctxgrad.autograd.grad
    assert hf.GradientEdge is ctxgrad.autograd.graph.GradientEdge
    with pytest.raises(
        RuntimeError, match=r"should not be instantiated\. Methods on autodiff functions are all static"
    ):
        Tagged()


def test_afnio_docstring_example_fails_as_on_afnio() -> None:
    """afnio's Function docstring example assigns one Variable to ``x.grad``; afnio's
    ``.grad`` is a list, and its setter refuses, as here (the first half runs)."""
    a = hf.Variable(data="This is a string", role="Input string", requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # saved_variables is afnio's name here: no deprecation warning
        c = Func.apply(a)
        assert c.data == "gnirts a si sihT" and c.role == "Input string"
        assert c.grad_fn is not None and c.grad_fn.name() == "FuncBackward" and not c.is_leaf
        assert repr(c) == "Variable(data='gnirts a si sihT', role='Input string', grad_fn=<FuncBackward>)"
        with pytest.raises(TypeError, match=r"`\.grad` expects a list of Variables .*, but got Variable\."):
            c.backward(hf.Variable("too long", role="feedback"))
    assert a.grad == []


def test_saved_variables_still_warns_for_tensors() -> None:
    class Sq(ctxgrad.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            (x,) = ctx.saved_variables
            return 2 * x * g

    x = ctxgrad.tensor([3.0], requires_grad=True)
    with pytest.warns(DeprecationWarning, match="saved_variables"):
        Sq.apply(x).sum().backward()
    assert x.grad is not None and x.grad.tolist() == [6.0]


def test_two_step_example_joins_both_feedbacks_in_engine_order() -> None:
    Tagged.log.clear()
    x = Variable("answer", role="answer", requires_grad=True)
    out = Pair.apply(Tagged.apply(x, "style"), Tagged.apply(x, "facts"))
    assert out.data == "answer<style> | answer<facts>"
    out.backward(Variable("shorter"))
    # The engine runs the newer node first, so its feedback arrives first and comes first.
    assert Tagged.log == ["facts", "style"]
    assert [g.data for g in x.grad] == ["facts: shorter", "style: shorter"]
    assert [g.role for g in x.grad] == ["feedback", "feedback"]
    assert all(g.grad_fn is None and not g.requires_grad for g in x.grad)


def test_accumulation_order_is_the_order_torch_runs_the_same_graph() -> None:
    torch = pytest.importorskip("torch")
    ran: list[str] = []

    class TTagged(torch.autograd.Function):  # type: ignore[misc]
        @staticmethod
        def forward(ctx: Any, x: Any, tag: str) -> Any:
            ctx.tag = tag
            return x * 1.0

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            ran.append(ctx.tag)
            return g, None

    class TPair(torch.autograd.Function):  # type: ignore[misc]
        @staticmethod
        def forward(ctx: Any, a: Any, b: Any) -> Any:
            return a + b

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g, g

    tx = torch.ones(1, requires_grad=True)
    TPair.apply(TTagged.apply(tx, "a"), TPair.apply(TTagged.apply(tx, "b"), TTagged.apply(tx, "c"))).sum().backward()

    Tagged.log.clear()
    x = Variable("t", requires_grad=True)
    Pair.apply(Tagged.apply(x, "a"), Pair.apply(Tagged.apply(x, "b"), Tagged.apply(x, "c"))).backward(Variable("g"))
    assert Tagged.log == ran
    assert [g.data for g in x.grad] == [f"{t}: g" for t in ran]


def test_grad_accumulates_across_backward_calls() -> None:
    x = Variable("q", requires_grad=True)
    Tagged.apply(x, "one").backward(Variable("first"))
    Tagged.apply(x, "two").backward(Variable("second"))
    assert [g.data for g in x.grad] == ["one: first", "two: second"]
    x.grad = []  # afnio's reset
    assert x.grad == []
    x.append_grad(Variable("by hand"))
    assert [g.data for g in x.grad] == ["by hand"]


def test_autograd_grad_with_text_leaves_grad_untouched() -> None:
    x = Variable("q", role="question", requires_grad=True)
    y = Variable("ctx", requires_grad=True)
    out = Pair.apply(Tagged.apply(x, "k"), y)
    gx, gy = ctxgrad.autograd.grad(out, (x, y), grad_outputs=Variable("fix it"))
    assert isinstance(gx, Variable) and gx.data == "k: fix it"
    assert isinstance(gy, Variable) and gy.data == "fix it"
    assert x.grad == [] and y.grad == []


def test_text_and_tensor_inputs_in_one_function() -> None:
    class Weighted(Function):
        @staticmethod
        def forward(ctx: Any, text: Variable, w: Any) -> Variable:
            return Variable(f"{text.data} x{float(w.item()):g}")

        @staticmethod
        def backward(ctx: Any, g: Variable) -> tuple[Variable, Any]:
            return Variable("about the text: " + g.data), ctxgrad.tensor(float(len(g.data)))

    t = Variable("hi", requires_grad=True)
    w = ctxgrad.tensor(2.0, requires_grad=True)
    Weighted.apply(t, w).backward(Variable("abcd"))
    assert [g.data for g in t.grad] == ["about the text: abcd"]
    assert w.grad is not None and w.grad.item() == 4.0


def test_hooks_see_and_replace_feedback() -> None:
    x = Variable("q", requires_grad=True)
    seen: list[str] = []

    def hook(g: Variable) -> Variable:
        seen.append(g.data)
        return Variable(g.data.upper(), role=g.role)

    x.register_hook(hook)
    mid = Tagged.apply(x, "t")
    mid.register_hook(lambda g: seen.append("mid " + g.data))
    mid.backward(Variable("go"))
    assert seen == ["mid go", "t: go"]
    assert [g.data for g in x.grad] == ["T: GO"]


def test_output_without_feedback_gets_the_zero() -> None:
    got: list[str] = []

    class Two(Function):
        @staticmethod
        def forward(ctx: Any, x: Variable) -> tuple[Variable, Variable]:
            return Variable(x.data + "1"), Variable(x.data + "2")

        @staticmethod
        def backward(ctx: Any, g1: Variable, g2: Variable) -> Variable:
            got.extend([g1.data, g2.data])
            return g1 + g2

    x = Variable("v", requires_grad=True)
    first, _ = Two.apply(x)
    first.backward(Variable("only the first"))
    assert got == ["only the first", ""]  # the zero of text is empty feedback
    assert [g.data for g in x.grad] == ["only the first"]  # and joining skips it


def test_plus_is_afnios_add_and_join_keeps_feedbacks_apart() -> None:
    a = Variable("A", role="r", requires_grad=True)
    b = Variable("B", role="s", requires_grad=True)
    added = a + b
    assert added.data == "AB" and added.role == "r and s" and added.grad_fn.name() == "AddBackward"
    assert (Variable(2) + Variable(3)).data == 5 and (Variable([1, 2]) + Variable([3, 4])).data == [4, 6]
    assert (Variable("n=") + Variable(3)).data == "n=3"
    j = hf.Join.apply(a, b)
    assert j.data == "A" + SEPARATOR + "B" and j.role == "r; s" and j.grad_fn is not None
    j.backward(Variable("fb"))
    assert [g.data for g in a.grad] == [g.data for g in b.grad] == ["fb"]
    with pytest.raises(ValueError, match="Add: both Variables must hold lists of the same length"):
        Variable([1, 2]) + Variable([1, 2, 3])


def test_next_functions_are_afnios_gradient_edges() -> None:
    x, y = Variable("abc", role="first", requires_grad=True), Variable("def", role="second")
    out = hf.Add.apply(x, y)
    first, second = out.grad_fn.next_functions
    assert isinstance(first, hf.GradientEdge) and first.output_nr == 0
    assert type(first.node).__name__ == "AccumulateGrad" and first.node.variable is x
    assert second.node is None and second == (None, 0)
    assert str(out.grad_fn).startswith("<AddBackward object at 0x")
    assert repr(out.grad_fn).startswith("<ctxgrad.compat.afnio.AddBackward object at 0x")


def test_grad_of_a_non_leaf_is_refused_as_afnio_refuses_it() -> None:
    out = Tagged.apply(Variable("q", requires_grad=True), "t")
    with pytest.raises(RuntimeError, match=r"Attempted to access \.grad for a non-leaf Variable without retain_grad"):
        out.grad  # (reading it raises)
    with pytest.raises(RuntimeError, match=r"Attempted to set \.grad for a non-leaf Variable"):
        out.grad = []
    out.retain_grad()
    out.backward(Variable("fb"))
    assert [g.data for g in out.grad] == ["fb"]
    with pytest.raises(TypeError, match=r"`\.grad` expects a list of Variables .*, but got str\."):
        Variable("x").grad = "feedback"  # type: ignore[assignment]


def test_requires_grad_leaf_rules() -> None:
    v = Variable("x")
    assert not v.requires_grad and v.is_leaf
    assert v.requires_grad_() is v and v.requires_grad
    v.requires_grad = False
    assert not v.requires_grad
    out = Tagged.apply(Variable("y", requires_grad=True), "t")
    with pytest.raises(RuntimeError, match="leaf variables"):
        out.requires_grad_(False)
    with ctxgrad.no_grad():
        assert Tagged.apply(Variable("y", requires_grad=True), "t").grad_fn is None


# ---------------------------------------------------------------------------- errors
@pytest.mark.parametrize(
    ("data", "kept"),
    [
        ("text", "text"),
        (3, 3),
        (2.5, 2.5),
        (["a", "b"], ["a", "b"]),
        ((1, 2), [1, 2]),
        ([1, 2.5], [1.0, 2.5]),
        ([], []),
    ],
)
def test_data_is_afnios_str_int_float_or_list(data: Any, kept: Any) -> None:
    v = Variable(data)
    assert v.data == kept and type(v.data) is type(kept)


@pytest.mark.parametrize("bad", [None, b"x", {"a": 1}, object()])
def test_other_data_is_refused(bad: Any) -> None:
    with pytest.raises(
        TypeError,
        match=rf"`data` must be a single value \(str, int, float\) or a list/tuple of such values, not "
        rf"{type(bad).__name__}",
    ):
        Variable(bad)


def test_mixed_lists_and_non_string_roles_are_refused() -> None:
    with pytest.raises(TypeError, match="When `data` is a list, it must be either all strings or all numbers"):
        Variable(["a", 1])
    with pytest.raises(TypeError, match=r"Variable\(\): argument 'role' \(position 2\) must be str, not int"):
        Variable("x", role=3)  # type: ignore[arg-type]
    v = Variable("x")
    with pytest.raises(TypeError, match="`data` must be a single value"):
        v.data = None
    v.data = ["positive", "neutral"]  # afnio programs write a batch's predictions so
    assert v.data == ["positive", "neutral"]


def test_array_gradient_for_text_input_names_function_argument_and_kinds() -> None:
    class Bad(Function):
        @staticmethod
        def forward(ctx: Any, x: Variable) -> Variable:
            return Variable(x.data)

        @staticmethod
        def backward(ctx: Any, g: Variable) -> Any:
            return ctxgrad.ones(3)

    with pytest.raises(GradientTypeError) as info:
        Bad.apply(Variable("t", requires_grad=True)).backward(Variable("g"))
    msg = str(info.value)
    assert "BadBackward" in msg and "'x' (index 0)" in msg and "which is a Variable" in msg
    assert "returned a Tensor" in msg
    assert isinstance(info.value, TypeError) and isinstance(info.value, RuntimeError)
    problem = info.value.problem  # type: ignore[attr-defined]
    assert (problem.kind, problem.index, problem.expected, problem.got) == ("wrong-kind", 0, "Variable", "Tensor")


def test_string_gradient_for_text_input_is_refused() -> None:
    class Bad(Function):
        @staticmethod
        def forward(ctx: Any, x: Variable) -> Variable:
            return Variable(x.data)

        @staticmethod
        def backward(ctx: Any, g: Variable) -> Any:
            return "plain text"

    with pytest.raises(
        GradientTypeError,
        match=r"BadBackward returned a str as the gradient of argument 'x' \(index 0\), which is a Variable",
    ):
        Bad.apply(Variable("t", requires_grad=True)).backward(Variable("g"))


def test_text_gradient_for_tensor_input_is_refused() -> None:
    class Bad(ctxgrad.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x * 2

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return Variable("feedback")

    x = ctxgrad.ones(2, requires_grad=True)
    with pytest.raises(GradientTypeError) as info:
        Bad.apply(x).sum().backward()
    msg = str(info.value)
    assert "BadBackward returned a Variable as the gradient of argument 'x' (index 0), which is a Tensor" in msg


def test_string_gradient_for_tensor_input_matches_torch() -> None:
    torch = pytest.importorskip("torch")

    def make(lib: Any) -> Any:
        class Bad(lib.autograd.Function):  # type: ignore[misc,name-defined]
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                return x * 2

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                return "abc"

        return Bad

    for lib in (torch, ctxgrad):
        x = lib.ones(2, requires_grad=True)
        with pytest.raises(RuntimeError, match=r"expected Variable or None \(got str\)"):
            make(lib).apply(x).sum().backward()


def test_backward_seeds_empty_feedback_and_refuses_a_leaf() -> None:
    x = Variable("q", requires_grad=True)
    Tagged.apply(x, "t").backward()  # afnio allows it: empty feedback
    assert [g.data for g in x.grad] == ["t: "]
    with pytest.raises(TypeError, match="must be a Variable, but got str"):
        Tagged.apply(x, "t").backward("text")  # type: ignore[arg-type]
    with pytest.raises(RuntimeError, match="Variable does not require grad or does not have a grad_fn"):
        x.backward(Variable("fb"))


def test_join_refuses_non_variables_and_arithmetic_is_refused() -> None:
    with pytest.raises(TypeError, match=r"Only Variables can be added to each other \(Variable \+ str\)"):
        Variable("a") + "b"  # type: ignore[operator]
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for \*: 'Variable' and 'int'"):
        Variable("a") * 2
    with pytest.raises(TypeError, match=r"unsupported operand type\(s\) for -: 'float' and 'Variable'"):
        1.0 - Variable("a")
    with pytest.raises(TypeError, match=r"for \+: 'str' and 'Variable'"):
        "b" + Variable("a")  # type: ignore[operator]


def test_detach_keeps_text_and_drops_history() -> None:
    out = Tagged.apply(Variable("q", role="r", requires_grad=True), "t")
    d = out.detach()
    assert isinstance(d, Variable) and (d.data, d.role) == ("q<t>", "r")
    assert d.grad_fn is None and not d.requires_grad and d.is_leaf


def test_plain_values_are_saved_only_by_functions_over_text() -> None:
    class SavesStr(ctxgrad.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x, "not a tensor")
            return x * 2

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g

    with pytest.raises(TypeError, match="save_for_backward can only save variables, but argument 1 is of type str"):
        SavesStr.apply(ctxgrad.ones(1, requires_grad=True))


@pytest.mark.parametrize(
    ("make", "exc"),
    [
        (lambda t: t.tensor(["a"]), ValueError),
        (lambda t: t.tensor("a"), TypeError),
        (lambda t: t.tensor(np.array(["a"])), TypeError),
        (lambda t: t.tensor(np.array(["a"], dtype=object)), TypeError),
        (lambda t: t.as_tensor(np.array([object()])), TypeError),
        (lambda t: t.tensor(np.array([1.0], dtype=object)), TypeError),
    ],
)
def test_tensor_of_strings_or_objects_is_refused_like_torch(make: Any, exc: type[Exception]) -> None:
    torch = pytest.importorskip("torch")
    with pytest.raises(exc):
        make(torch)
    with pytest.raises(exc, match=r"for text, use ctxgrad.compat.afnio.Variable"):
        make(ctxgrad)


def test_saved_plain_values_come_back_as_they_are_and_print() -> None:
    from ctxgrad.autograd.printing import format_graph

    class Saves(Function):
        @staticmethod
        def forward(ctx: Any, x: Variable) -> Variable:
            ctx.save_for_backward(x, "reversed", ("a", "b"), None)
            return Variable(x.data[::-1])

        @staticmethod
        def backward(ctx: Any, g: Variable) -> Variable:
            x, r, pair, nothing = ctx.saved_variables
            assert isinstance(x, Variable) and r == "reversed" and pair == ("a", "b") and nothing is None
            return g

    x = Variable("ab", requires_grad=True)
    out = Saves.apply(x)
    assert (
        format_graph(out, show_saved=True).splitlines()[0]
        == "SavesBackward (saved: [] object, [] object, [] object, None)"
    )
    out.backward(Variable("fb"))
    assert [g.data for g in x.grad] == ["fb"]


@pytest.mark.parametrize("name", ["sum", "exp", "item", "tolist", "numpy", "float", "clone", "to"])
def test_tensors_numeric_methods_are_not_a_variables(name: str) -> None:
    v = Variable("abc", requires_grad=True)
    assert not hasattr(v, name)
    with pytest.raises(
        AttributeError, match=rf"'Variable' object has no attribute '{name}' \(a Variable is not a tensor"
    ):
        getattr(v, name)


def test_copy_and_pickle_keep_text_role_and_flag() -> None:
    import copy
    import pickle

    v = Variable("abc", role="r", requires_grad=True)
    for w in (copy.deepcopy(v), pickle.loads(pickle.dumps(v)), copy.copy(v)):
        assert isinstance(w, Variable) and (w.data, w.role, w.requires_grad) == ("abc", "r", True)


def test_gradient_problems_reports_the_wrong_kind_for_a_function_class() -> None:
    from ctxgrad.autograd._validate import gradient_problems

    [problem] = gradient_problems(Pair, (Variable("f"), ctxgrad.ones(2)), (Variable("a"), Variable("b")))
    assert (problem.kind, problem.index, problem.name, problem.expected, problem.got) == (
        "wrong-kind",
        1,
        "b",
        "Variable",
        "Tensor",
    )
    assert gradient_problems(Pair, (Variable("f"), Variable("g")), (Variable("a"), Variable("b"))) == []


def test_ctxgrad_check_reports_a_variable_returned_for_a_tensor() -> None:
    from ctxgrad.checks import check_function

    class Feedback(ctxgrad.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x * 2

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return Variable("feedback")

    report = check_function(Feedback, (ctxgrad.tensor([1.0, 2.0], dtype=ctxgrad.float64, requires_grad=True),))
    names = [f.name for f in report.findings]
    assert "gradient-not-a-tensor" in names and not report.ok, str(report)
    finding = report.findings[names.index("gradient-not-a-tensor")]
    assert "returned a Variable as the gradient of argument 'x'" in finding.message


def test_the_parts_of_afnio_that_call_servers_are_refused_by_name() -> None:
    with pytest.raises(AttributeError, match=r"ctxgrad\.compat\.afnio has no 'cognitive': modules, Parameter"):
        hf.cognitive  # (reading it raises)
    with pytest.raises(AttributeError, match=r"no 'set_backward_model_client': the backward model client calls"):
        hf.set_backward_model_client  # (reading it raises)
    with pytest.raises(AttributeError, match="has no attribute 'nothing'"):
        hf.nothing  # (reading it raises)


def test_sum_split_and_the_evaluator_refuse_bad_input_clearly() -> None:
    x = Variable("a b", requires_grad=True)
    with pytest.raises(TypeError, match=r"Sum\.apply takes one argument, a list of Variables"):
        hf.Sum.apply(x, x)
    with pytest.raises(TypeError, match="Sum: item 1 of the list must be a Variable, not str"):
        hf.Sum.apply([x, "b"])
    with pytest.raises(ValueError, match=r"Sum\.apply needs at least one Variable"):
        hf.Sum.apply([])
    with pytest.raises(TypeError, match="Split: x must hold text or a list of texts, not a int"):
        hf.Split.apply(Variable(3))
    with pytest.raises(TypeError, match="DeterministicEvaluator: eval_fn must be callable, not str"):
        hf.DeterministicEvaluator.apply(x, "a", "exact", "purpose")
    with pytest.raises(ValueError, match="a batch of 2 predictions needs as many targets, got a list of 1"):
        hf.DeterministicEvaluator.apply(Variable(["a", "b"]), ["a"], lambda p, t: p == t, "match")


def test_evaluator_success_fn_skips_feedback_and_unreduced_batches_keep_their_scores() -> None:
    p = Variable(["a", "b"], role="guess", requires_grad=True)
    score, explanation = hf.DeterministicEvaluator.apply(p, ["a", "c"], lambda x, y: int(x == y), "match")
    assert score.data == [1, 0] and explanation.data.endswith("The individual scores are: [1, 0].")
    explanation.backward()
    assert [g.data for g in p.grad] == ["Reassess the criteria that led to the initial prediction of 'b'."]
    q = Variable("a", requires_grad=True)
    _, explanation = hf.DeterministicEvaluator.apply(q, "b", lambda x, y: int(x == y), "match", lambda s: True)
    explanation.backward()
    assert q.grad == []

"""afnio's own tests and docstring examples, run on ctxgrad.compat.afnio with only their
imports changed.

Ported from afnio (https://github.com/Tellurio-AI/afnio, commit 1c5db5d), file
tests/tellurio/test_function_sync.py: the ``variables`` fixture and the tests of the forward
and backward passes of ``Add``, ``Split`` and ``DeterministicEvaluator``, imports changed
(``afnio._variable``, ``afnio.autodiff.*`` -> ``ctxgrad.compat.afnio``) and afnio's module
path in one expected ``repr`` changed to this module's; ``test_backward_clear_pending_grad``
without its tracking of ``_pending_grad`` (afnio's wait for its server), which has no
counterpart here.  Not ported: the module fixture that logs in to Tellurio's server and
``test_backward_chat_completion`` (it calls OpenAI's API), see docs/porting-afnio.md.  Then
the examples of the docstrings of afnio/autodiff/basic_ops.py (``Add``, ``Sum``, ``Split``),
afnio/autodiff/evaluator.py (``DeterministicEvaluator``) and afnio/autodiff/function.py
(``Function``), as tests.

afnio is licensed under the GNU Affero General Public License, version 3
(https://www.gnu.org/licenses/agpl-3.0.html); the code taken from it in this file is under
that licence.
"""

import pytest

import ctxgrad.compat.afnio as hf
from ctxgrad.compat.afnio import Add, DeterministicEvaluator, Function, Split, Sum, Variable, no_grad


@pytest.fixture
def variables():
    x = Variable(data="abc", role="first input", requires_grad=True)
    y = Variable(data="def", role="second input", requires_grad=False)
    return x, y


class TestFunctionSync:
    """
    Tests for forward and backward passes of Function operations in afnio.autodiff.
    """

    def test_forward_add(self, variables):
        """
        Test the Add function's forward pass with two Variable inputs.
        """
        x, y = variables
        result = Add.apply(x, y)
        assert isinstance(result, Variable)
        assert result.data == "abcdef"
        assert result.role == "first input and second input"
        assert result.requires_grad is True
        assert "<AddBackward" in str(result.grad_fn)
        assert "<ctxgrad.compat.afnio.AddBackward" in repr(result.grad_fn)
        assert len(result.grad_fn.next_functions) == 2
        assert "<AccumulateGrad" in str(result.grad_fn.next_functions[0].node)
        result.grad_fn.next_functions[0].output_nr == 0  # noqa: B015 (afnio's line, verbatim)
        assert "None" in str(result.grad_fn.next_functions[1].node)
        result.grad_fn.next_functions[1].output_nr == 0  # noqa: B015 (afnio's line, verbatim)
        assert result.is_leaf is False

    def test_forward_add_no_grad(self, variables):
        """
        Test the Add function's forward pass with two Variable inputs
        and using the `no_grad()` context manager.
        """
        x, y = variables
        with no_grad():
            result = Add.apply(x, y)
        assert isinstance(result, Variable)
        assert result.data == "abcdef"
        assert result.role == "first input and second input"
        assert result.requires_grad is False
        assert result.grad_fn is None
        assert result.is_leaf is True

    def test_forward_split(self, variables):
        """
        Test the Split function's forward pass with single Variable input.
        """
        x, _ = variables
        x.data = "a b c"
        result = Split.apply(x, sep=" ")
        assert isinstance(result, tuple)
        assert all(isinstance(v, Variable) for v in result)
        assert [v.data for v in result] == ["a", "b", "c"]
        expected_roles = [f"split part {i} of first input" for i in range(len(result))]
        for i, v in enumerate(result):
            assert v.role == expected_roles[i]
            assert v.requires_grad is True
            assert "<SplitBackward" in str(result[i].grad_fn)
            assert "<ctxgrad.compat.afnio.SplitBackward" in repr(result[i].grad_fn)
            assert len(v.grad_fn.next_functions) == 1
            assert "<AccumulateGrad" in str(v.grad_fn.next_functions[0].node)
            assert v.grad_fn.next_functions[0].output_nr == 0

    def test_forward_deterministic_evaluator(self):
        """
        Test the DeterministicEvaluator function's forward pass with Callable input.
        """

        def exact_match_fn(pred: str, tgt: str) -> int:
            return 1 if pred == tgt else 0

        fn_purpose = "exact match"
        prediction = Variable(data="green", role="color prediction", requires_grad=True)
        target = Variable(data="red", role="expected color")
        result = DeterministicEvaluator.apply(prediction, target, exact_match_fn, fn_purpose, None, None, None)
        score, explanation = result
        assert isinstance(result, tuple)
        assert isinstance(score, Variable)
        assert isinstance(explanation, Variable)

        # Check score and explanation attributes
        assert score.data == 0
        assert score.role == "Evaluation result score of color prediction"
        assert score.requires_grad is True
        assert explanation.data == (
            "The evaluation function, designed for 'exact match', "
            "compared the <DATA> field of the predicted variable ('green') with "
            "the <DATA> field of the target variable ('red'), "
            "resulting in a score: 0."
        )
        assert explanation.role == "Evaluation result explanation of color prediction"
        assert explanation.requires_grad is True

        # Check grad_fn for score and explanation
        for var in (score, explanation):
            assert "<DeterministicEvaluatorBackward" in str(var.grad_fn)
            assert len(var.grad_fn.next_functions) == 2
            assert "<AccumulateGrad" in str(var.grad_fn.next_functions[0].node)
            assert var.grad_fn.next_functions[0].output_nr == 0
            assert "None" in str(var.grad_fn.next_functions[1].node)
            assert var.grad_fn.next_functions[1].output_nr == 0

    def test_backward_add(self, variables):
        """
        Test the Add function's backward pass.
        """
        x, y = variables
        result = Add.apply(x, y)
        assert isinstance(result, Variable)
        assert result.data == "abcdef"

        gradient = Variable(data="MY_FEEDBACK", role="add gradient")
        result.backward(gradient)

        assert len(x.grad) == 1
        assert y.grad == []  # requires_grad=False, so no gradient
        assert x.grad[0].data == (
            "Here is the combined feedback we got for this specific first input and other variables: MY_FEEDBACK"
        )
        assert x.grad[0].role == "feedback to first input"

    def test_backward_clear_pending_grad(self):
        """
        Test that _pending_grad is set during backward
        and cleared after 'clear_backward'.

        DAG:
                b → c → d
              ↗           ↘
            a  → → → → → → e
        """
        # Initial variable
        a = Variable(data="abc_", role="first input", requires_grad=True)

        # Build the DAG and perform backward
        b = a + Variable(data="def_", role="second input")
        c = b + Variable(data="ghi_", role="third input")
        d = c + Variable(data="jkl_", role="fourth input")
        e = Add.apply(a, d)

        gradient = Variable(data="MY_FEEDBACK", role="add gradient")
        e.backward(gradient)

        assert len(a.grad) == 2


# afnio/autodiff/basic_ops.py, the examples of Add's docstring
def test_add_docstring_scalar_inputs():
    x = Variable(data="abc", role="first input", requires_grad=True)
    y = Variable(data="def", role="second input", requires_grad=False)
    result = Add.apply(x, y)
    assert result.data == "abcdef"
    assert result.role == "first input and second input"
    assert result.requires_grad is True
    g = Variable(data="MY_FEEDBACK", role="add gradient")
    result.backward(g)
    assert x.grad[0].data == (
        "Here is the combined feedback we got for this specific first input and other variables: MY_FEEDBACK"
    )
    assert x.grad[0].role == "feedback to first input"


def test_add_docstring_batched_inputs():
    x = Variable(data=[1, 2, 3], role="first input", requires_grad=True)
    y = Variable(data=[4, 5, 6], role="second input", requires_grad=False)
    result = Add.apply(x, y)
    assert result.data == [5, 7, 9]
    assert result.role == "first input and second input"
    assert result.requires_grad is True


# afnio/autodiff/basic_ops.py, the examples of Sum's docstring
def test_sum_docstring_scalar_inputs():
    x = Variable(data="abc", role="first input", requires_grad=True)
    y = Variable(data="def", role="second input", requires_grad=False)
    result = Sum.apply([x, y])
    assert result.data == "<ITEM>abc</ITEM><ITEM>def</ITEM>"
    assert result.role == "first input and second input"
    assert result.requires_grad is True
    g = Variable(data="MY_FEEDBACK", role="add gradient")
    result.backward(g)
    assert x.grad[0].data == (
        "Here is the combined feedback we got for this specific first input and other variables: MY_FEEDBACK"
    )
    assert x.grad[0].role == "feedback to first input"


def test_sum_docstring_batched_inputs():
    x = Variable(data=[1, 2, 3.5], role="first input", requires_grad=True)
    y = Variable(data=[4, 5, 6], role="second input", requires_grad=False)
    result = Sum.apply([x, y])
    assert result.data == [5, 7, 9.5]
    assert result.role == "first input and second input"
    assert result.requires_grad is True


# afnio/autodiff/basic_ops.py, the examples of Split's docstring
def test_split_docstring_scalar_inputs():
    x = Variable(data="afnio is great!", role="sentence", requires_grad=True)
    result = Split.apply(x, sep=" ", maxsplit=1)
    assert [var.data for var in result] == ["afnio", "is great!"]
    assert result[0].role == "split part 0 of sentence"
    g_1 = Variable(data="MY_FIRST_FEEDBACK", role="gradient")
    g_2 = Variable(data="MY_SECOND_FEEDBACK", role="gradient")
    result[0].backward(g_1, retain_graph=True)
    result[1].backward(g_2)
    assert x.grad[0].data == (
        "Here is the combined feedback we got for this specific sentence and other variables: "
        "<ITEM>MY_FIRST_FEEDBACK</ITEM><ITEM></ITEM>"
    )
    assert x.grad[0].role == "feedback to sentence"
    assert x.grad[1].data == (
        "Here is the combined feedback we got for this specific sentence and other variables: "
        "<ITEM></ITEM><ITEM>MY_SECOND_FEEDBACK</ITEM>"
    )
    assert x.grad[1].role == "feedback to sentence"


def test_split_docstring_batched_inputs():
    x = Variable(data=["afnio is great!", "Deep learning"], role="sentences", requires_grad=True)
    result = Split.apply(x, sep=" ", maxsplit=2)
    assert [var.data for var in result] == [["afnio", "Deep"], ["is", "learning"], ["great!", ""]]
    g = Variable(data="MY_FEEDBACK", role="gradient")
    result[1].backward(g)
    assert x.grad[0].data == (
        "Here is the combined feedback we got for this specific sentences and other variables: "
        "<ITEM></ITEM><ITEM>MY_FEEDBACK</ITEM><ITEM></ITEM>"
    )
    assert x.grad[0].role == "feedback to sentences"


# afnio/autodiff/evaluator.py, the examples of DeterministicEvaluator's docstring
def test_deterministic_evaluator_docstring_scalar_inputs():
    prediction = Variable(data="green", role="color prediction", requires_grad=True)
    target = "red"

    def exact_match_fn(p: str, t: str) -> int:
        return 1 if p == t else 0

    score, explanation = DeterministicEvaluator.apply(prediction, target, exact_match_fn, "exact match")
    assert score.data == 0
    assert explanation.data == (
        "The evaluation function, designed for 'exact match', compared the <DATA> field of the predicted "
        "variable ('green') with the <DATA> field of the target variable ('red'), resulting in a score: 0."
    )
    explanation.backward()
    assert prediction.grad[0].data == "Reassess the criteria that led to the initial prediction of 'green'."


def test_deterministic_evaluator_docstring_batched_inputs():
    prediction = Variable(data=["green", "blue"], role="color prediction", requires_grad=True)
    target = ["red", "blue"]

    def exact_match_fn(p: str, t: str) -> int:
        return 1 if p == t else 0

    score, explanation = DeterministicEvaluator.apply(
        prediction, target, exact_match_fn, "exact match", reduction_fn=sum, reduction_fn_purpose="summation"
    )
    assert score.data == 1
    assert explanation.data == (
        "The evaluation function, designed for 'exact match', compared the <DATA> fields of the predicted "
        "variable and the target variable across all samples in the batch, generating individual scores for "
        "each pair. These scores were then aggregated using the reduction function 'summation', resulting in a "
        "final aggregated score: 1."
    )
    explanation.backward()
    assert prediction.grad[0].data == "Reassess the criteria that led to the initial prediction of 'green'."


# afnio/autodiff/function.py, the example of Function's docstring
class Func(Function):
    @staticmethod
    def forward(ctx, x: hf.Variable):
        reverse = x.data[::-1]
        out = hf.Variable(data=reverse, role=x.role, requires_grad=True)
        ctx.save_for_backward(x, reverse, out)
        return out

    @staticmethod
    def backward(ctx, grad_out):
        x, reverse, out = ctx.saved_variables  # noqa: RUF059 (afnio's example, verbatim)
        grad = f"Here is the feedback for {x.role} (reversed): {grad_out.grad}"
        role = f"Feedback to {x.role}"
        x.grad = hf.Variable(data=grad, role=role)
        return x.grad


def test_function_docstring_example():
    # As on afnio itself: ``.grad`` is a list of Variables there, and the example assigns one
    # Variable to ``x.grad``, which afnio's setter refuses with this TypeError.
    a = hf.Variable(data="This is a string", role="Input string", requires_grad=True)
    c = Func.apply(a)
    assert c.data == "gnirts a si sihT"
    with pytest.raises(TypeError, match=r"`\.grad` expects a list of Variables for the gradient to accumulate"):
        c.backward(hf.Variable("too long", role="feedback"))


def test_function_is_not_instantiated():
    with pytest.raises(
        RuntimeError, match=r"should not be instantiated\. Methods on autodiff functions are all static"
    ):
        Func()

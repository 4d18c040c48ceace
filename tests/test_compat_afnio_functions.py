"""afnio's built-in text Functions (``Add``, ``Sum``, ``Split``, ``DeterministicEvaluator``)
forward and backward, written for ctxgrad from afnio's documented behaviour: the joined text
and role, the graph behind a result, and the feedback each input receives (a list of feedback
Variables in ``.grad``)."""

from __future__ import annotations

from ctxgrad.compat.afnio import Add, DeterministicEvaluator, Split, Sum, Variable, no_grad

FEEDBACK = "Here is the combined feedback we got for this specific {role} and other variables: {text}"


def test_add_joins_text_and_roles_and_links_to_the_inputs_that_need_feedback() -> None:
    question = Variable(data="Why is the sky ", role="question start", requires_grad=True)
    ending = Variable(data="blue?", role="question end")
    joined = Add.apply(question, ending)
    assert (joined.data, joined.role, joined.requires_grad, joined.is_leaf) == (
        "Why is the sky blue?",
        "question start and question end",
        True,
        False,
    )
    first, second = joined.grad_fn.next_functions
    assert "AccumulateGrad" in str(first.node) and first.output_nr == 0
    assert second.node is None


def test_add_under_no_grad_records_nothing() -> None:
    a = Variable(data="x", role="a", requires_grad=True)
    with no_grad():
        out = Add.apply(a, Variable(data="y", role="b"))
    assert (out.data, out.requires_grad, out.grad_fn, out.is_leaf) == ("xy", False, None, True)


def test_add_of_numbers_adds_them_elementwise() -> None:
    scores = Add.apply(Variable(data=[0.5, 1, 2], role="a", requires_grad=True), Variable(data=[1, 1, 1], role="b"))
    assert scores.data == [1.5, 2, 3]


def test_add_sends_the_feedback_to_the_input_that_requires_it() -> None:
    a = Variable(data="one", role="draft", requires_grad=True)
    b = Variable(data="two", role="suffix")
    Add.apply(a, b).backward(Variable(data="be shorter", role="critique"))
    assert [g.data for g in a.grad] == [FEEDBACK.format(role="draft", text="be shorter")]
    assert a.grad[0].role == "feedback to draft"
    assert b.grad == []


def test_a_variable_reached_twice_gets_two_feedbacks() -> None:
    a = Variable(data="a", role="seed", requires_grad=True)
    longer = (a + Variable(data="b", role="x")) + Variable(data="c", role="y")
    Add.apply(a, longer).backward(Variable(data="more", role="critique"))
    assert len(a.grad) == 2


def test_sum_wraps_each_item() -> None:
    a = Variable(data="p", role="first", requires_grad=True)
    total = Sum.apply([a, Variable(data="q", role="second")])
    assert (total.data, total.role) == ("<ITEM>p</ITEM><ITEM>q</ITEM>", "first and second")
    total.backward(Variable(data="ok", role="critique"))
    assert a.grad[0].data == FEEDBACK.format(role="first", text="ok")


def test_split_parts_send_their_feedback_in_their_own_slot() -> None:
    sentence = Variable(data="red green blue", role="colours", requires_grad=True)
    parts = Split.apply(sentence, sep=" ")
    assert [p.data for p in parts] == ["red", "green", "blue"]
    assert [p.role for p in parts] == [f"split part {i} of colours" for i in range(3)]
    parts[1].backward(Variable(data="greener", role="critique"))
    assert sentence.grad[0].data == FEEDBACK.format(
        role="colours", text="<ITEM></ITEM><ITEM>greener</ITEM><ITEM></ITEM>"
    )


def test_deterministic_evaluator_scores_and_explains() -> None:
    guess = Variable(data="cat", role="animal guess", requires_grad=True)
    score, explanation = DeterministicEvaluator.apply(
        guess, Variable(data="dog", role="answer"), lambda p, t: int(p == t), "same word", None, None, None
    )
    assert (score.data, score.role) == (0, "Evaluation result score of animal guess")
    assert explanation.data == (
        "The evaluation function, designed for 'same word', compared the <DATA> field of the predicted "
        "variable ('cat') with the <DATA> field of the target variable ('dog'), resulting in a score: 0."
    )
    assert explanation.requires_grad and "DeterministicEvaluatorBackward" in str(score.grad_fn)

"""afnio's idea in ctxgrad: text flows forward, written feedback flows backward.

An answer is checked by two critics (two Functions); the feedback on the combined verdict
flows back through both, and the answer, used twice, receives both feedbacks (its ``.grad``
is afnio's list of feedback Variables).  The Functions are ordinary
``ctxgrad.autograd.Function`` subclasses (afnio's ``Function`` is one); only the values are
text.  Then a Function written as afnio's docstring shows one (it reverses a string, and its
backward assigns one feedback Variable to ``x.grad``) runs up to where afnio itself refuses
it.  afnio's built-in Functions are
tested in ``tests/test_compat_afnio_functions.py`` (in our words: afnio's own tests are AGPL-3.0).

Run: ``python examples/seeds/afnio_text_feedback.py`` (exits non-zero if a check fails).
"""

from __future__ import annotations

from typing import Any

import ctxgrad.compat.afnio as hf
from ctxgrad.compat.afnio import Function


class Critic(Function):
    """Annotates the answer with the aspect it judges; passes feedback back, labelled."""

    @staticmethod
    def forward(ctx: Any, answer: hf.Variable, aspect: str) -> hf.Variable:
        ctx.aspect = aspect
        ctx.save_for_backward(answer)
        return hf.Variable(f"[{aspect}] {answer.data}", role=f"{aspect} review")

    @staticmethod
    def backward(ctx: Any, feedback: hf.Variable) -> tuple[hf.Variable, None]:
        (answer,) = ctx.saved_variables
        text = f"On the {ctx.aspect} of '{answer.data}': {feedback.data}"
        return hf.Variable(text, role=f"feedback to {answer.role}"), None


class Verdict(Function):
    """Combines two reviews; each review gets the feedback on the verdict."""

    @staticmethod
    def forward(ctx: Any, a: hf.Variable, b: hf.Variable) -> hf.Variable:
        return hf.Variable(f"{a.data} + {b.data}", role="verdict")

    @staticmethod
    def backward(ctx: Any, feedback: hf.Variable) -> tuple[hf.Variable, hf.Variable]:
        return feedback, feedback


# The pattern of afnio's Function docstring (in our words; afnio is AGPL-3.0): forward
# reverses the text, backward writes one feedback Variable into x.grad and returns it.
class ReverseText(Function):
    @staticmethod
    def forward(ctx: Any, text: hf.Variable) -> hf.Variable:
        ctx.save_for_backward(text)
        return hf.Variable(data=text.data[::-1], role=text.role, requires_grad=True)

    @staticmethod
    def backward(ctx: Any, feedback: hf.Variable) -> hf.Variable:
        (text,) = ctx.saved_variables
        text.grad = hf.Variable(data=f"On {text.role}, reversed: {feedback.grad}", role=f"feedback to {text.role}")
        return text.grad  # type: ignore[no-any-return]


def main() -> None:
    answer = hf.Variable("The Eiffel Tower is in Rome.", role="answer", requires_grad=True)
    verdict = Verdict.apply(Critic.apply(answer, "style"), Critic.apply(answer, "facts"))
    print(verdict)
    verdict.backward(hf.Variable("Wrong city; keep it to one sentence.", role="critique"))
    print(f"{len(answer.grad)} feedbacks reaching the answer:")
    for feedback in answer.grad:
        print(f"  ({feedback.role}) {feedback.data}")
    # The engine runs the newer Critic first, so its feedback comes first (torch's order).
    expected = [
        "On the facts of 'The Eiffel Tower is in Rome.': Wrong city; keep it to one sentence.",
        "On the style of 'The Eiffel Tower is in Rome.': Wrong city; keep it to one sentence.",
    ]
    assert [g.data for g in answer.grad] == expected, answer.grad
    assert [g.role for g in answer.grad] == ["feedback to answer"] * 2

    a = hf.Variable(data="This is a string", role="Input string", requires_grad=True)
    c = ReverseText.apply(a)
    print(c)
    assert c.data == "gnirts a si sihT" and c.grad_fn is not None and c.grad_fn.name() == "ReverseTextBackward"
    # afnio's .grad is a list of Variables: a backward that assigns one Variable to x.grad, as
    # its docstring's does, is refused by afnio's setter, and by this one, with afnio's TypeError.
    try:
        c.backward(hf.Variable("too long"))
    except TypeError as error:
        print(f"as on afnio: {error}")
        assert "`.grad` expects a list of Variables" in str(error)
    else:
        raise AssertionError("a backward assigned a single Variable to .grad")
    print("ok")


if __name__ == "__main__":
    main()

"""afnio's idea in ctxgrad: text flows forward, written feedback flows backward.

An answer is checked by two critics (two Functions); the feedback on the combined verdict
flows back through both, and the answer, used twice, receives both feedbacks (its ``.grad``
is afnio's list of feedback Variables).  The Functions are ordinary
``ctxgrad.autograd.Function`` subclasses (afnio's ``Function`` is one); only the values are
text.  Then afnio's own docstring example (a Function that reverses a string) runs with only
its imports changed, up to where afnio itself refuses it.  afnio's built-in Functions are
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


# afnio's Function docstring example, imports changed (``import afnio as hf`` before): quoted
# from the docstring of ``Function`` in afnio/autodiff/function.py (Tellurio-AI/afnio, commit
# 1c5db5d, AGPL-3.0) so that afnio's users see their own example run; the rest of this file
# and afnio's tests are in our own words.
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
    c = Func.apply(a)
    print(c)
    assert c.data == "gnirts a si sihT" and c.grad_fn is not None and c.grad_fn.name() == "FuncBackward"
    # afnio's .grad is a list of Variables: its docstring's backward assigns one Variable to
    # x.grad, which afnio's setter refuses, and so does this one, with afnio's TypeError.
    try:
        c.backward(hf.Variable("too long"))
    except TypeError as error:
        print(f"as on afnio: {error}")
        assert "`.grad` expects a list of Variables" in str(error)
    else:
        raise AssertionError("afnio's docstring backward assigned a Variable to .grad")
    print("ok")


if __name__ == "__main__":
    main()

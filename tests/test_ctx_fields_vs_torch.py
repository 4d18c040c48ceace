"""torch's ctx fields by name (``dirty_tensors``, ``non_differentiable``, ``saved_for_forward``),
``mark_shared_storage`` and ``func.jvp`` with a jvp that returns its tangent: the same code on
ctxgrad and on torch (torchlogix's ``GradFactor`` is the Function its users meet these in)."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

import ctxgrad

torch = pytest.importorskip("torch")


def _fields_seen(L: Any) -> list[Any]:
    """What the ctx fields hold before the marks, after them, after apply and in backward."""
    seen: list[Any] = []

    class Marks(L.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any, y: Any) -> Any:
            seen.append((ctx.dirty_tensors, ctx.non_differentiable, ctx.saved_for_forward))
            y.mul_(2)
            ctx.mark_dirty(y)
            positive = x > 0
            ctx.mark_non_differentiable(positive)
            ctx.save_for_forward(x, None)
            seen.append(
                (
                    ctx.dirty_tensors[0] is y and len(ctx.dirty_tensors) == 1,
                    ctx.non_differentiable[0] is positive,
                    ctx.saved_for_forward[0] is x,
                    ctx.saved_for_forward[1],
                )
            )
            return x.clone(), y, positive

        @staticmethod
        def backward(ctx: Any, gx: Any, gy: Any, _: Any) -> Any:
            seen.append((ctx.dirty_tensors, ctx.non_differentiable, ctx.saved_for_forward))
            return gx, gy * 2

    x = L.tensor([1.0, -2.0], requires_grad=True)
    a, b, _ = Marks.apply(x, L.ones(2, requires_grad=True) * 1)
    node = a.grad_fn
    seen.append((node.dirty_tensors, node.non_differentiable, node.saved_for_forward))
    (a.sum() + b.sum()).backward()
    seen.append(x.grad.tolist())
    return seen


def test_the_ctx_fields_hold_what_the_marks_set_and_are_none_otherwise() -> None:
    ours = _fields_seen(ctxgrad)
    assert ours == [
        (None, None, None),
        (True, True, True, None),
        (None, None, None),
        (None, None, None),
        [1.0, 1.0],
    ]
    assert ours == _fields_seen(torch)


def _assigned(L: Any) -> list[Any]:
    """Assigning a field is the same as calling its mark (torch's methods only assign)."""

    class Assigns(L.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            x.add_(1)
            ctx.dirty_tensors = (x,)
            index = x.argmax()
            ctx.non_differentiable = (index,)
            ctx.saved_for_forward = None
            return x, index

        @staticmethod
        def backward(ctx: Any, g: Any, _: Any) -> Any:
            return g * 3

    x = L.tensor([1.0, 5.0], requires_grad=True)
    y, i = Assigns.apply(x * 1)
    y.sum().backward()
    return [y.tolist(), i.requires_grad, x.grad.tolist(), type(y.grad_fn).__name__]


def test_assigning_a_field_marks_as_the_method_does() -> None:
    ours = _assigned(ctxgrad)
    assert ours == [[2.0, 6.0], False, [3.0, 3.0], "AssignsBackward"]
    assert ours == _assigned(torch)


def test_a_field_assigned_a_list_is_refused_with_torchs_sentence() -> None:
    def run(L: Any) -> str:
        class Lists(L.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                y = x.clone()
                ctx.non_differentiable = [y]
                return y

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                return g

        with pytest.raises(RuntimeError) as info:
            Lists.apply(L.ones(2, requires_grad=True))
        return str(info.value)

    ours, theirs = run(ctxgrad), run(torch)
    assert "non_differentiable attribute is expected to be a tuple but is" in theirs
    assert ours.startswith("non_differentiable attribute is expected to be a tuple but is list")


def _shared_storage(L: Any) -> tuple[list[Any], list[float]]:
    class Shares(L.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            y = x.view(-1)
            ctx.mark_shared_storage((x, y))
            return y * 2

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g * 2

    x = L.ones(2, requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        Shares.apply(x).sum().backward()
    return [(w.category, str(w.message)) for w in caught], x.grad.tolist()


def test_mark_shared_storage_warns_and_continues_as_torch_does() -> None:
    ours = _shared_storage(ctxgrad)
    assert ours == (
        [
            (
                FutureWarning,
                "`mark_shared_storage` is deprecated. Tensors with shared storages are automatically tracked. "
                "Note that calls to `set_()` are not tracked",
            )
        ],
        [2.0, 2.0],
    )
    assert ours == _shared_storage(torch)


def _grad_factor_jvp(L: Any, returns: str) -> Any:
    """torchlogix's GradFactor (forward returns its input as-is), with a jvp."""

    class GradFactor(L.autograd.Function):
        @staticmethod
        def forward(x: Any, f: float) -> Any:
            return x

        @staticmethod
        def setup_context(ctx: Any, inputs: Any, output: Any) -> None:
            ctx.f = inputs[1]

        @staticmethod
        def backward(ctx: Any, grad_y: Any) -> Any:
            return grad_y * ctx.f, None

        @staticmethod
        def jvp(ctx: Any, dx: Any, df: Any) -> Any:
            return dx if returns == "given" else dx * 1

    out, tangent = L.func.jvp(lambda x: GradFactor.apply(x, 2.0) * 3, (L.tensor([1.0, 2.0]),), (L.tensor([1.0, -1.0]),))
    return out.tolist(), tangent.tolist()


@pytest.mark.parametrize("returns", ["given", "new"])
def test_func_jvp_takes_a_jvp_that_returns_its_tangent_for_an_input_returned_as_is(returns: str) -> None:
    ours = _grad_factor_jvp(ctxgrad, returns)
    assert ours == ([3.0, 6.0], [3.0, -3.0])
    assert ours == _grad_factor_jvp(torch, returns)


def test_forward_ad_still_asks_for_a_view_tangent_there_as_torch_does() -> None:
    def run(L: Any) -> str:
        class Same(L.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                return x

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                return g

            @staticmethod
            def jvp(ctx: Any, dx: Any) -> Any:
                return dx

        fw = L.autograd.forward_ad
        with fw.dual_level(), pytest.raises(RuntimeError) as info:
            Same.apply(fw.make_dual(L.ones(2), L.ones(2)))
        return str(info.value)

    assert (
        run(ctxgrad)
        == run(torch)
        == ("A custom Function's forward is returning a view (or an input as-is) but the jvp is not returning a view.")
    )


@pytest.mark.parametrize("output", ["fresh", "view", "tuple"])
def test_saved_for_forward_is_none_after_apply_for_every_kind_of_output(output: str) -> None:
    """``ctx.saved_for_forward`` holds the tensors during ``forward`` and is None on the node
    after ``apply``, as in torch, whatever the Function returns (a fresh tensor, a view, a
    tuple): the node keeps no reference to them, so an output saved for forward makes no
    reference cycle through its own node."""
    seen: list[Any] = []
    for L in (ctxgrad, torch):

        class SavesForForward(L.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                out = x.view(-1) if output == "view" else x * 2
                ctx.save_for_forward(x, out)
                seen.append(ctx.saved_for_forward[1] is out)
                return (out, x + 1) if output == "tuple" else out

            @staticmethod
            def backward(ctx: Any, g: Any, *rest: Any) -> Any:
                return g.view(2, 2) if output == "view" else g

        result = SavesForForward.apply(L.ones(2, 2, requires_grad=True))
        out = result[0] if output == "tuple" else result
        seen.append(out.grad_fn.saved_for_forward)
    assert seen == [True, None, True, None]

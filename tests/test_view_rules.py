"""Views that torch guards (its CreationMeta), and the silent wrong answers they prevent: a
view made under ``no_grad``, a view a custom Function returned (or an input it returned
as-is), and one of several views a function returned (``split``, ``unbind``) may not be
changed in place, nor used after their base changed in place, while grad mode is on.

Without the guard a gradient-reversal layer written as torch documents it
(``return x.view_as(x)``) silently stops reversing once its input is changed in place."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import ctxgrad


def make_functions(m: Any) -> tuple[Any, Any, Any]:
    class Reverse(m.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x.view_as(x)

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            return -grad

    class FirstTwo(m.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x[:2]

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            return m.cat([grad, grad.new_zeros(1)])

    class Same(m.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            return grad

    return Reverse, FirstTwo, Same


def nonleaf(m: Any, n: int = 3) -> Any:
    return m.ones(n, requires_grad=True) * 1


def reversed_then_base_changed(m: Any) -> None:
    Reverse, _, _ = make_functions(m)
    h = nonleaf(m)
    y = Reverse.apply(h)
    h.mul_(2)
    y.sum().backward()


def custom_view_changed(m: Any) -> None:
    _, FirstTwo, _ = make_functions(m)
    FirstTwo.apply(nonleaf(m)).mul_(2)


def returned_input_changed(m: Any) -> None:
    _, _, Same = make_functions(m)
    Same.apply(nonleaf(m)).mul_(2)


def view_of_custom_view_changed(m: Any) -> None:
    _, FirstTwo, _ = make_functions(m)
    FirstTwo.apply(nonleaf(m))[0].mul_(2)


def no_grad_view_changed(m: Any) -> None:
    x = nonleaf(m)
    with m.no_grad():
        v = x[:2]
    v.mul_(2)


def no_grad_view_used_after_base_changed(m: Any) -> None:
    x = nonleaf(m)
    with m.no_grad():
        v = x[:2]
    x.mul_(2)
    v.grad_fn


def view_of_no_grad_view_changed(m: Any) -> None:
    x = nonleaf(m)
    with m.no_grad():
        v = x[:2]
    v[0].mul_(2)


def split_output_changed(m: Any) -> None:
    nonleaf(m, 4).split(2)[0].mul_(2)


def chunk_output_changed(m: Any) -> None:
    nonleaf(m, 3).chunk(3)[1].add_(1)


def unbind_output_changed(m: Any) -> None:
    nonleaf(m, 4).unbind()[0].mul_(2)


def split_output_used_after_base_changed(m: Any) -> None:
    x = nonleaf(m, 4)
    parts = x.split(2)
    x.mul_(2)
    parts[0].grad_fn


CUSTOM = (
    "This view was created inside a custom Function (or because an input was returned as-is) and the autograd "
    "logic to handle view+inplace would override the custom backward associated with the custom Function, "
    "leading to incorrect gradients. This behavior is forbidden. You can fix this by cloning the output of the "
    "custom Function."
)
NO_GRAD = (
    "with grad mode enabled. Given that this use case is ambiguous and error-prone, it is forbidden. You can "
    "clarify your code by moving both the view and the inplace either both inside the no_grad block (if you "
    "don't want the inplace to be tracked) or both outside (if you want the inplace to be tracked)."
)
MULTIPLE = (
    "This view is the output of a function that returns multiple views. Such functions do not allow the output "
    "views to be modified inplace. You should replace the inplace operation by an out-of-place one."
)

#: name -> (program, the message it raises)
GUARDED: dict[str, tuple[Callable[[Any], None], str]] = {
    "gradient reversal, base changed": (
        reversed_then_base_changed,
        "Output 0 of Reverse is a view and its base or another view of its base has been modified inplace. " + CUSTOM,
    ),
    "custom view changed": (
        custom_view_changed,
        "Output 0 of FirstTwo is a view and is being modified inplace. " + CUSTOM,
    ),
    "input returned as-is, changed": (
        returned_input_changed,
        "Output 0 of Same is a view and is being modified inplace. " + CUSTOM,
    ),
    "view of a custom view changed": (
        view_of_custom_view_changed,
        "Output 0 of Select is a view and is being modified inplace. " + CUSTOM,
    ),
    "no_grad view changed": (
        no_grad_view_changed,
        "A view was created in no_grad mode and is being modified inplace " + NO_GRAD,
    ),
    "no_grad view, base changed": (
        no_grad_view_used_after_base_changed,
        "A view was created in no_grad mode and its base or another view of its base has been modified inplace "
        + NO_GRAD,
    ),
    "view of a no_grad view changed": (
        view_of_no_grad_view_changed,
        "Output 0 of Select is a view of a view which was created in no_grad mode and is being modified inplace "
        + NO_GRAD,
    ),
    "split output changed": (
        split_output_changed,
        "Output 0 of Split is a view and is being modified inplace. " + MULTIPLE,
    ),
    "chunk output changed": (
        chunk_output_changed,
        "Output 1 of Split is a view and is being modified inplace. " + MULTIPLE,
    ),
    "unbind output changed": (
        unbind_output_changed,
        "Output 0 of Unbind is a view and is being modified inplace. " + MULTIPLE,
    ),
    "split output, base changed": (
        split_output_used_after_base_changed,
        "Output 0 of Split is a view and its base or another view of its base has been modified inplace. " + MULTIPLE,
    ),
}


def message(m: Any, program: Callable[[Any], None]) -> str:
    with pytest.raises(RuntimeError) as info:
        program(m)
    return str(info.value)


@pytest.mark.parametrize("name", GUARDED)
def test_a_guarded_view_refuses(name: str) -> None:
    program, expected = GUARDED[name]
    assert message(ctxgrad, program) == expected


@pytest.mark.parametrize("name", GUARDED)
def test_a_guarded_view_refuses_as_torch_does(torch: Any, name: str) -> None:
    program = GUARDED[name][0]
    assert message(ctxgrad, program) == message(torch, program)


# Assignment into an output of split/chunk/unbind: torch's indexing first makes a view of it
# (select for an integer, slice, unsqueeze for None or True; none for a slice of a whole
# dimension, an Ellipsis or an advanced index alone) and writes through that view, which is
# guarded as the output and named as itself.
def pieces(m: Any, how: str) -> Any:
    x = m.ones(4, 3, requires_grad=True) * 1
    if how == "unbind":
        return x.reshape(2, 2, 3).unbind()
    return {"split": x.split(2), "chunk": x.chunk(2), "one piece": x.split(4)}[how]


#: name -> (the write, the view it names)
WRITES: dict[str, tuple[Callable[[Any, Any], None], str]] = {
    "integer": (lambda m, a: a.__setitem__(0, 5.0), "Output 0 of Select"),
    "negative integer": (lambda m, a: a.__setitem__(-1, 5.0), "Output 0 of Select"),
    "two integers": (lambda m, a: a.__setitem__((0, 1), 5.0), "Output 0 of Select"),
    "0-d integer tensor": (lambda m, a: a.__setitem__(m.tensor(1), 5.0), "Output 0 of Select"),
    "part slice": (lambda m, a: a.__setitem__(slice(0, 1), 5.0), "Output 0 of Slice"),
    "negative start": (lambda m, a: a.__setitem__(slice(-1, None), 5.0), "Output 0 of Slice"),
    "step 2": (lambda m, a: a.__setitem__(slice(None, None, 2), 5.0), "Output 0 of Slice"),
    "whole slice": (lambda m, a: a.__setitem__(slice(None), 5.0), ""),
    "slice past the end": (lambda m, a: a.__setitem__(slice(0, 100), 5.0), ""),
    "ellipsis": (lambda m, a: a.__setitem__(Ellipsis, 5.0), ""),
    "ellipsis then integer": (lambda m, a: a.__setitem__((Ellipsis, 0), 5.0), "Output 0 of Select"),
    "None": (lambda m, a: a.__setitem__(None, 5.0), "Output 0 of Unsqueeze"),
    "None then integer": (lambda m, a: a.__setitem__((None, 0), 5.0), "Output 0 of Select"),
    "True": (lambda m, a: a.__setitem__(True, 5.0), "Output 0 of Unsqueeze"),
    "list": (lambda m, a: a.__setitem__([0], 5.0), ""),
    "integer then list": (lambda m, a: a.__setitem__((0, [0]), 5.0), "Output 0 of Select"),
    "mask": (lambda m, a: a.__setitem__(a > 0, 5.0), ""),
    "mul_": (lambda m, a: a.mul_(2), ""),
    "add_": (lambda m, a: a.add_(1), ""),
    "zero_": (lambda m, a: a.zero_(), ""),
    "copy_": (lambda m, a: a.copy_(m.zeros(tuple(a.shape))), ""),
    "+=": (lambda m, a: a.__iadd__(1), ""),
    "slice then mul_": (lambda m, a: a[:1].mul_(2), "Output 0 of Slice"),
}
PIECE = {"split": "Output 1 of Split", "chunk": "Output 1 of Split", "unbind": "Output 1 of Unbind"}


def write_into_piece(m: Any, how: str, write: str) -> str:
    parts = pieces(m, how)
    with pytest.raises(RuntimeError) as info:
        WRITES[write][0](m, parts[-1])
    return str(info.value)


@pytest.mark.parametrize("how", ["split", "chunk", "unbind"])
@pytest.mark.parametrize("write", WRITES)
def test_a_write_into_a_piece_names_the_view_it_goes_through(how: str, write: str) -> None:
    expected = WRITES[write][1] or PIECE[how]
    assert write_into_piece(ctxgrad, how, write) == f"{expected} is a view and is being modified inplace. " + MULTIPLE


@pytest.mark.parametrize("how", ["split", "chunk", "unbind"])
@pytest.mark.parametrize("write", WRITES)
def test_a_write_into_a_piece_refuses_as_torch_does(torch: Any, how: str, write: str) -> None:
    assert write_into_piece(ctxgrad, how, write) == write_into_piece(torch, how, write)


@pytest.mark.parametrize("write", ["integer", "mul_", "whole slice"])
def test_a_split_into_one_piece_still_refuses_as_torch_does(torch: Any, write: str) -> None:
    """split, chunk and unbind are functions that return several views, even when they return
    one: its only piece is guarded all the same."""
    ours = write_into_piece(ctxgrad, "one piece", write)
    assert ours == write_into_piece(torch, "one piece", write)
    assert ours.startswith(WRITES[write][1] or "Output 0 of Split")
    for m in (ctxgrad, torch):
        (only,) = (m.ones(3, 1, requires_grad=True) * 1).unbind(1)
        with pytest.raises(RuntimeError, match="Output 0 of Unbind is a view and is being modified inplace"):
            only.add_(1)


@pytest.mark.parametrize("index", [0, slice(1, None), slice(None), [0]], ids=["integer", "slice", "whole", "list"])
@pytest.mark.parametrize("kind", ["no_grad", "custom"])
def test_a_write_into_another_guarded_view_names_the_view_as_torch(torch: Any, kind: str, index: Any) -> None:
    def run(m: Any) -> str:
        x = m.ones(4, requires_grad=True) * 1
        if kind == "no_grad":
            with m.no_grad():
                v = x[1:]
        else:
            _, FirstTwo, _ = make_functions(m)
            v = FirstTwo.apply(x)
        with pytest.raises(RuntimeError) as info:
            v[index] = 5.0
        return str(info.value)

    assert run(ctxgrad) == run(torch)


@pytest.mark.parametrize("lib", ["ctxgrad", "torch"])
def test_an_assignment_at_index_false_writes_and_checks_nothing(lib: str) -> None:
    m: Any = ctxgrad if lib == "ctxgrad" else pytest.importorskip("torch")
    piece = pieces(m, "split")[0]
    piece[False] = 5.0  # a guarded view: no error, as nothing is written
    leaf = m.ones(3, requires_grad=True)
    leaf[False] = m.zeros(5)  # a leaf, and a value of another shape
    assert piece.tolist() == [[1.0] * 3] * 2 and leaf.tolist() == [1.0] * 3


@pytest.mark.parametrize(
    "index", [(0, [1]), [0], 0, slice(None), Ellipsis], ids=["integer-list", "list", "integer", "whole", "ellipsis"]
)
def test_a_write_into_a_leaf_says_view_where_torch_makes_one(torch: Any, index: Any) -> None:
    def run(m: Any) -> str:
        with pytest.raises(RuntimeError) as info:
            m.ones(2, 3, requires_grad=True)[index] = 5.0
        return str(info.value)

    assert run(ctxgrad) == run(torch)


def unguarded(m: Any) -> list[Any]:
    """The same changes where nothing is guarded: no grad needed, or both inside no_grad."""
    results = []
    x = m.ones(4) * 1  # requires no grad: its views may change freely
    x.split(2)[0].mul_(2)
    results.append(x.tolist())
    y = nonleaf(m)
    with m.no_grad():
        v = y[:2]
        v.mul_(3)
    results.append(y.tolist())
    _, FirstTwo, _ = make_functions(m)
    with m.no_grad():
        z = FirstTwo.apply(nonleaf(m))
        z.mul_(2)
    results.append(z.tolist())
    return results


def test_unguarded_changes_are_allowed() -> None:
    assert unguarded(ctxgrad) == [[2.0, 2.0, 1.0, 1.0], [3.0, 3.0, 1.0], [2.0, 2.0]]


def test_unguarded_changes_match_torch(torch: Any) -> None:
    assert unguarded(ctxgrad) == unguarded(torch)


def test_a_gradient_reversal_layer_still_reverses() -> None:
    Reverse, _, _ = make_functions(ctxgrad)
    x = ctxgrad.ones(2, requires_grad=True)
    (Reverse.apply(x * 1) * 3).sum().backward()
    assert x.grad.tolist() == [-3.0, -3.0]


def frozen_leaf(m: Any) -> Any:
    x = m.tensor([1.0, 2.0], requires_grad=True)
    y = (x * 2).sum()
    x.requires_grad_(False)
    y.backward()
    return x.grad


def test_a_leaf_frozen_between_forward_and_backward_gets_no_grad() -> None:
    assert frozen_leaf(ctxgrad) is None


def test_a_leaf_frozen_between_forward_and_backward_matches_torch(torch: Any) -> None:
    assert frozen_leaf(torch) is None and frozen_leaf(ctxgrad) is None


def retained_then_view_changed(m: Any) -> tuple[list[float], list[float]]:
    x = m.tensor([1.0, -2.0, 3.0], requires_grad=True)
    a = x * 3
    a.retain_grad()
    a[1:].mul_(2)  # a has a new history: its .grad is the gradient of its new value
    (a * a).sum().backward()
    return a.grad.tolist(), x.grad.tolist()


def test_retain_grad_follows_an_in_place_change() -> None:
    assert retained_then_view_changed(ctxgrad) == ([6.0, -24.0, 36.0], [18.0, -144.0, 216.0])


def test_retain_grad_follows_an_in_place_change_as_torch(torch: Any) -> None:
    assert retained_then_view_changed(ctxgrad) == retained_then_view_changed(torch)


def hooked_view_then_changed(m: Any) -> list[float]:
    x = m.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = x * 1
    v = b[1:]
    v.register_hook(lambda g: g * 10)  # on the view's old node, which the write bypasses
    v.mul_(2)
    b.sum().backward()
    return x.grad.tolist()


def test_a_hook_on_a_view_changed_in_place_does_not_scale_the_new_gradient() -> None:
    assert hooked_view_then_changed(ctxgrad) == [1.0, 2.0, 2.0]


def test_a_hook_on_a_view_changed_in_place_matches_torch(torch: Any) -> None:
    assert hooked_view_then_changed(ctxgrad) == hooked_view_then_changed(torch)


def none_then_nodes(m: Any) -> tuple[Any, Any, Any]:
    """A backward returns None for one input; behind it, a built-in node and a custom one."""

    class HalfGrad(m.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any, y: Any) -> Any:
            return x * y

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            return grad, None

    class Double(m.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x * 2

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            return grad * 2

    x = m.tensor([1.0], requires_grad=True)
    y = m.tensor([2.0], requires_grad=True)
    w = m.tensor([3.0], requires_grad=True)
    HalfGrad.apply(x, y * 1).sum().backward()  # y's built-in node gets nothing: y.grad stays None
    HalfGrad.apply(x, Double.apply(w)).sum().backward()  # a custom node runs on zeros: w.grad is 0
    return x.grad.tolist(), y.grad, w.grad.tolist()


def test_no_gradient_through_a_built_in_node_leaves_grad_none() -> None:
    assert none_then_nodes(ctxgrad) == ([2.0], None, [0.0])


def test_no_gradient_through_a_built_in_node_matches_torch(torch: Any) -> None:
    assert none_then_nodes(ctxgrad) == none_then_nodes(torch)

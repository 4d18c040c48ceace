"""The backward engine: ``Tensor.backward``, ``autograd.backward`` and ``autograd.grad``.

Most scenarios are written once as a function of the library module ``L`` (``ctxgrad`` or
``torch``) and return plain Python values: a ``test_*`` asserts ctxgrad's values, and a
``test_torch_parity_*`` runs the same scenario on torch and compares.
"""

from __future__ import annotations

import inspect
import sys
import warnings
import weakref
from typing import Any

import pytest
from _support import assert_matches_torch, import_torch, raised

import ctxgrad
from ctxgrad.autograd import Function


# --------------------------------------------------------------------------- entry points
def test_backward_on_scalar_fills_leaf_grad() -> None:
    x = ctxgrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (x * x).sum().backward()
    assert x.grad.tolist() == [2.0, 4.0, 6.0]


def test_backward_with_gradient_argument_weights_the_outputs() -> None:
    x = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    (x * 3).backward(ctxgrad.tensor([1.0, 10.0]))
    assert x.grad.tolist() == [3.0, 30.0]


def test_backward_on_a_leaf_itself() -> None:
    x = ctxgrad.tensor(2.0, requires_grad=True)
    x.backward()
    assert x.grad.item() == 1.0


def test_autograd_backward_sums_several_roots() -> None:
    x = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    y1 = x * 2
    y2 = x * x
    ctxgrad.autograd.backward([y1, y2], [ctxgrad.ones(2), ctxgrad.ones(2) * 2])
    assert x.grad.tolist() == [6.0, 10.0]


def test_autograd_backward_accepts_a_single_tensor() -> None:
    x = ctxgrad.tensor(3.0, requires_grad=True)
    ctxgrad.autograd.backward(x * x)
    assert x.grad.item() == 6.0


def test_grad_returns_a_tuple_and_leaves_grad_alone() -> None:
    x = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    w = ctxgrad.tensor([3.0, 4.0], requires_grad=True)
    gx, gw = ctxgrad.autograd.grad((x * w).sum(), [x, w])
    assert gx.tolist() == [3.0, 4.0]
    assert gw.tolist() == [1.0, 2.0]
    assert x.grad is None
    assert w.grad is None


def test_grad_does_not_change_existing_grad_of_leaves() -> None:
    x = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    x.grad = ctxgrad.tensor([5.0, 5.0])
    held = x.grad
    (g,) = ctxgrad.autograd.grad((x * x).sum(), x)
    assert g.tolist() == [2.0, 4.0]
    assert x.grad is held
    assert x.grad.tolist() == [5.0, 5.0]


def test_grad_result_has_no_history_without_create_graph() -> None:
    x = ctxgrad.tensor(3.0, requires_grad=True)
    (g,) = ctxgrad.autograd.grad(x * x, x)
    assert g.item() == 6.0
    assert not g.requires_grad
    assert g.grad_fn is None


def test_grad_of_a_tensor_with_respect_to_itself_is_the_seed() -> None:
    x = ctxgrad.tensor(2.0, requires_grad=True)
    y = x * 3
    assert ctxgrad.autograd.grad(y, y)[0].item() == 1.0
    assert ctxgrad.autograd.grad(x, x)[0].item() == 1.0


def test_torch_parity_entry_point_signatures() -> None:
    torch = import_torch()

    def params(fn: Any) -> list[tuple[str, Any]]:
        return [(p.name, p.default) for p in inspect.signature(fn).parameters.values()]

    assert params(ctxgrad.Tensor.backward) == params(torch.Tensor.backward)
    assert params(ctxgrad.autograd.backward) == params(torch.autograd.backward)
    assert params(ctxgrad.autograd.grad) == params(torch.autograd.grad)


def _gradient_edge_scenario(L: Any) -> list[Any]:
    x = L.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    z = (y * y).sum()
    edge = L.autograd.graph.get_gradient_edge(y)
    (gy,) = L.autograd.grad(z, edge, retain_graph=True)
    (gx,) = L.autograd.grad(z, [L.autograd.graph.get_gradient_edge(x)])
    return [gy.tolist(), gx.tolist()]


def test_grad_accepts_gradient_edges_as_inputs() -> None:
    assert _gradient_edge_scenario(ctxgrad) == [[6.0, 12.0], [18.0, 36.0]]


def test_torch_parity_grad_accepts_gradient_edges() -> None:
    torch = import_torch()
    assert _gradient_edge_scenario(torch) == [[6.0, 12.0], [18.0, 36.0]]


def _dict_inputs_scenario(L: Any) -> dict[str, list[float]]:
    x = L.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    grads = L.autograd.grad((y * y).sum(), {"y": y, "x": x})
    return {k: v.tolist() for k, v in grads.items()}


def test_grad_accepts_a_dict_of_inputs() -> None:
    assert _dict_inputs_scenario(ctxgrad) == {"y": [6.0, 12.0], "x": [18.0, 36.0]}


def test_torch_parity_grad_dict_inputs() -> None:
    torch = import_torch()
    assert _dict_inputs_scenario(torch) == {"y": [6.0, 12.0], "x": [18.0, 36.0]}


# --------------------------------------------------------------------------- accumulation into leaves
def _accumulate_scenario(L: Any) -> tuple[list[float], list[float], bool]:
    x = L.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).sum()
    y.backward(retain_graph=True)
    first = x.grad
    first_values = first.tolist()
    y.backward()
    return first_values, x.grad.tolist(), x.grad is first


def test_second_backward_with_retain_graph_doubles_grad_in_the_same_object() -> None:
    first, second, same = _accumulate_scenario(ctxgrad)
    assert first == [2.0, 4.0]
    assert second == [4.0, 8.0]
    assert same


def test_torch_parity_accumulation_in_place() -> None:
    torch = import_torch()
    assert _accumulate_scenario(ctxgrad) == _accumulate_scenario(torch)


def test_gradients_from_separate_graphs_accumulate() -> None:
    x = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    (x * 2).sum().backward()
    (x * x).sum().backward()
    assert x.grad.tolist() == [4.0, 6.0]


def _seed_alias_scenario(L: Any) -> tuple[bool, bool, list[float]]:
    # The seed reaches the leaf unchanged (backward on the leaf itself, and through +, whose
    # backward passes the gradient on as it is); .grad must still be a tensor of its own.
    x = L.tensor([1.0, 2.0], requires_grad=True)
    seed = L.tensor([1.0, 1.0])
    x.backward(seed)
    direct = x.grad is seed
    z = L.tensor([1.0, 2.0], requires_grad=True)
    seed2 = L.tensor([1.0, 1.0])
    (z + 1.0).backward(seed2)
    through_add = z.grad is seed2
    (z * 1.0).sum().backward()  # in-place accumulation into z.grad must not write into seed2
    return direct, through_add, seed2.tolist()


def test_first_grad_is_not_aliased_to_the_seed() -> None:
    assert _seed_alias_scenario(ctxgrad) == (False, False, [1.0, 1.0])


def test_torch_parity_first_grad_not_aliased() -> None:
    torch = import_torch()
    assert _seed_alias_scenario(ctxgrad) == _seed_alias_scenario(torch)


def _seed_alias_create_graph_scenario(L: Any) -> tuple[bool, bool, bool, list[float], list[float]]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # the create_graph reference-cycle warning
        x = L.tensor([1.0, 2.0], requires_grad=True)
        z = L.tensor([1.0, 2.0], requires_grad=True)
        seed = L.tensor([1.0, 1.0])
        (x + z).backward(seed, create_graph=True)
        aliases = (x.grad is seed, z.grad is seed, x.grad is z.grad)
        (x * 1.0).sum().backward()  # accumulates into x.grad
    return (*aliases, seed.tolist(), z.grad.tolist())


def test_first_grad_is_not_aliased_to_the_seed_with_create_graph() -> None:
    assert _seed_alias_create_graph_scenario(ctxgrad) == (False, False, False, [1.0, 1.0], [1.0, 1.0])


def test_torch_parity_first_grad_not_aliased_with_create_graph() -> None:
    torch = import_torch()
    assert _seed_alias_create_graph_scenario(torch) == (False, False, False, [1.0, 1.0], [1.0, 1.0])


# --------------------------------------------------------------------------- retain_grad
def test_retain_grad_fills_grad_of_a_non_leaf() -> None:
    x = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.retain_grad()
    (y * y).sum().backward()
    assert y.retains_grad
    assert y.grad.tolist() == [4.0, 8.0]
    assert x.grad.tolist() == [8.0, 16.0]


def _retain_grad_twice_scenario(L: Any) -> tuple[list[float], list[float], list[float]]:
    x = L.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.retain_grad()
    z = (y * y).sum()
    z.backward(retain_graph=True)
    first = y.grad.tolist()
    z.backward()
    return first, y.grad.tolist(), x.grad.tolist()


def test_retain_grad_accumulates_across_two_backwards() -> None:
    assert _retain_grad_twice_scenario(ctxgrad) == ([4.0, 8.0], [8.0, 16.0], [16.0, 32.0])


def test_torch_parity_retain_grad_accumulates() -> None:
    torch = import_torch()
    assert _retain_grad_twice_scenario(ctxgrad) == _retain_grad_twice_scenario(torch)


def test_non_leaf_grad_is_none_without_retain_grad() -> None:
    x = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    y.sum().backward()
    with pytest.warns(UserWarning, match="not a leaf Tensor is being accessed"):
        assert y.grad is None


# --------------------------------------------------------------------------- errors of backward
def test_implicit_grad_only_for_scalar_outputs() -> None:
    x = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        x.exp().backward()
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar outputs"):
        ctxgrad.autograd.grad(x * 2, x)


def test_implicit_grad_for_a_one_element_tensor() -> None:
    x = ctxgrad.tensor([3.0], requires_grad=True)
    (x * x).backward()
    assert x.grad.tolist() == [6.0]


def test_backward_on_a_tensor_without_historyraised() -> None:
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad and does not have a grad_fn"):
        ctxgrad.tensor(1.0).backward()
    x = ctxgrad.tensor(1.0, requires_grad=True)
    with ctxgrad.no_grad():
        y = x * 2
    with pytest.raises(RuntimeError, match="element 0 of tensors does not require grad"):
        y.backward()


@pytest.mark.parametrize("op", ["exp", "square"])
def test_second_backward_through_freed_graphraised(op: str) -> None:
    x = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    y = (x.exp() if op == "exp" else x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time") as info:
        y.backward()
    assert "retain_graph=True" in str(info.value)


def test_saved_tensors_of_a_freed_node_raise() -> None:
    x = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    y.sum().backward()
    with pytest.raises(RuntimeError, match="directly access saved tensors after they have already been freed"):
        y.grad_fn.saved_tensors


def test_grad_without_retain_graph_also_frees() -> None:
    x = ctxgrad.tensor(2.0, requires_grad=True)
    y = x.exp()
    ctxgrad.autograd.grad(y, x)
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        ctxgrad.autograd.grad(y, x)


def test_retain_graph_allows_a_second_backward() -> None:
    x = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp().sum()
    y.backward(retain_graph=True)
    y.backward(retain_graph=True)
    y.backward()
    assert x.grad.tolist() == pytest.approx([3 * 2.718281828, 3 * 7.389056099], rel=1e-5)


def test_torch_parity_second_backward_message() -> None:
    torch = import_torch()

    def scenario(L: Any) -> tuple[str, str]:
        x = L.tensor([1.0, 2.0], requires_grad=True)
        y = (x * x).sum()
        y.backward()
        return raised(y.backward, L)

    assert_matches_torch(scenario(ctxgrad), scenario(torch))


def test_torch_parity_backward_errors() -> None:
    torch = import_torch()

    def scenarios(L: Any) -> list[tuple[str, str]]:
        x = L.tensor([1.0, 2.0], requires_grad=True)
        return [
            raised(lambda: x.exp().backward(), L),
            raised(lambda: L.tensor(1.0).backward(), L),
            raised(lambda: (x * 2).sum().backward(inputs=[]), L),
        ]

    assert_matches_torch(scenarios(ctxgrad), scenarios(torch))


# --------------------------------------------------------------------------- double backward
def test_create_graph_double_backward_of_cube() -> None:
    x = ctxgrad.tensor(3.0, requires_grad=True)
    (g,) = ctxgrad.autograd.grad(x**3, x, create_graph=True)
    assert g.item() == 27.0
    assert g.requires_grad
    (gg,) = ctxgrad.autograd.grad(g, x)
    assert gg.item() == 18.0


def test_create_graph_through_accumulation_of_several_paths() -> None:
    # d/dx (x^2 + x^3) = 2x + 3x^2 = 33 at 3; d2/dx2 = 2 + 6x = 20.  The first gradient is
    # the sum the engine forms from several paths into x; it must keep its history.
    x = ctxgrad.tensor(3.0, requires_grad=True)
    y = x * x + x * x * x
    (g,) = ctxgrad.autograd.grad(y, x, create_graph=True)
    assert g.item() == 33.0
    (gg,) = ctxgrad.autograd.grad(g, x)
    assert gg.item() == 20.0


def test_create_graph_with_backward_accumulates_a_differentiable_grad() -> None:
    x = ctxgrad.tensor(3.0, requires_grad=True)
    with pytest.warns(UserWarning, match="create_graph=True will create a reference cycle"):
        (x**3).backward(create_graph=True)
    assert x.grad.item() == 27.0
    assert x.grad.requires_grad
    (gg,) = ctxgrad.autograd.grad(x.grad, x)
    assert gg.item() == 18.0


class _SquareInOps(Function):
    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx: Any, g: Any) -> Any:
        (x,) = ctx.saved_tensors
        return 2 * x * g


def test_custom_function_double_backward_with_create_graph() -> None:
    x = ctxgrad.tensor(3.0, requires_grad=True)
    y = _SquareInOps.apply(x)
    (g,) = ctxgrad.autograd.grad(y, x, create_graph=True)
    assert g.item() == 6.0
    (gg,) = ctxgrad.autograd.grad(g, x)
    assert gg.item() == 2.0
    # create_graph retains the graph: a second first-order pass still works.
    assert ctxgrad.autograd.grad(y, x)[0].item() == 6.0


def test_torch_parity_double_backward() -> None:
    torch = import_torch()

    def scenario(L: Any) -> list[float]:
        x = L.tensor(3.0, requires_grad=True)
        y = x * x + x * x * x
        (g,) = L.autograd.grad(y, x, create_graph=True)
        (gg,) = L.autograd.grad(g, x)
        z = L.tensor(3.0, requires_grad=True)
        (g3,) = L.autograd.grad(z**3, z, create_graph=True)
        (gg3,) = L.autograd.grad(g3, z)
        return [g.item(), gg.item(), g3.item(), gg3.item()]

    assert scenario(ctxgrad) == scenario(torch) == [33.0, 20.0, 27.0, 18.0]


# --------------------------------------------------------------------------- grad(): outputs and inputs
def test_grad_outputs_shape_mismatch() -> None:
    x = ctxgrad.tensor(1.0, requires_grad=True)
    with pytest.raises(RuntimeError) as info:
        ctxgrad.autograd.grad(x * 2, x, grad_outputs=ctxgrad.ones(2))
    assert str(info.value) == (
        "Mismatch in shape: grad_output[0] has a shape of ctxgrad.Size([2]) and output[0] has a shape of "
        "ctxgrad.Size([])."
    )


def test_backward_gradient_shape_mismatch() -> None:
    x = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="Mismatch in shape: grad_output\\[0\\] has a shape of"):
        (x * 2).backward(ctxgrad.ones(3))


def test_grad_outputs_count_mismatch() -> None:
    # torch raises only when there are fewer gradients than outputs and silently ignores
    # extra ones; ctxgrad rejects both.
    x = ctxgrad.tensor(1.0, requires_grad=True)
    with pytest.raises(RuntimeError, match="got 1 tensors and 2 gradients"):
        ctxgrad.autograd.grad(x * 2, x, grad_outputs=[ctxgrad.ones(()), ctxgrad.ones(())])
    with pytest.raises(RuntimeError, match="got 2 tensors and 1 gradients"):
        ctxgrad.autograd.grad([x * 2, x * 3], x, grad_outputs=[ctxgrad.ones(())])


def test_grad_outputs_with_none_for_a_scalar_output() -> None:
    x = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    (g,) = ctxgrad.autograd.grad([x.sum(), x * 2], x, grad_outputs=[None, ctxgrad.ones(2)])
    assert g.tolist() == [3.0, 3.0]


def test_grad_outputs_of_another_dtype_are_accepted() -> None:
    x = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    (x * 2).backward(ctxgrad.tensor([1.0, 1.0], dtype=ctxgrad.float64))
    assert x.grad.tolist() == [2.0, 2.0]
    assert x.grad.dtype == ctxgrad.float32


def test_grad_unused_inputraised() -> None:
    x = ctxgrad.ones(2, requires_grad=True)
    unused = ctxgrad.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError) as info:
        ctxgrad.autograd.grad((x * 2).sum(), [x, unused])
    msg = str(info.value)
    assert "The differentiated Tensor at index 1 appears to not have been used in the graph" in msg
    assert "Set allow_unused=True" in msg


def test_grad_allow_unused_gives_none() -> None:
    x = ctxgrad.ones(2, requires_grad=True)
    unused = ctxgrad.ones(2, requires_grad=True)
    gx, gu = ctxgrad.autograd.grad((x * 2).sum(), [x, unused], allow_unused=True)
    assert gx.tolist() == [2.0, 2.0]
    assert gu is None


def test_grad_materialize_grads_gives_zeros() -> None:
    x = ctxgrad.ones(2, requires_grad=True)
    unused = ctxgrad.ones(3, requires_grad=True)
    gx, gu = ctxgrad.autograd.grad((x * 2).sum(), [x, unused], materialize_grads=True)
    assert gx.tolist() == [2.0, 2.0]
    assert gu.tolist() == [0.0, 0.0, 0.0]


def test_grad_allow_unused_false_with_materialize_grads_is_a_value_error() -> None:
    x = ctxgrad.ones(2, requires_grad=True)
    with pytest.raises(ValueError, match="Expected allow_unused to be True or not passed when materialize_grads=True"):
        ctxgrad.autograd.grad((x * 2).sum(), x, allow_unused=False, materialize_grads=True)


def test_grad_input_not_requiring_gradraised() -> None:
    x = ctxgrad.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="One of the differentiated Tensors does not require grad"):
        ctxgrad.autograd.grad((x * 2).sum(), [x, ctxgrad.ones(2)])


def test_grad_empty_inputsraised() -> None:
    x = ctxgrad.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="`inputs` argument to `grad\\(\\)` cannot be empty"):
        ctxgrad.autograd.grad((x * 2).sum(), [])


def test_torch_parity_grad_errors_and_unused() -> None:
    torch = import_torch()

    def scenario(L: Any) -> list[Any]:
        x = L.ones(2, requires_grad=True)
        u = L.ones(2, requires_grad=True)
        s = L.tensor(1.0, requires_grad=True)
        out: list[Any] = [
            raised(lambda: L.autograd.grad((x * 2).sum(), [x, u]), L),
            raised(lambda: L.autograd.grad((x * 2).sum(), [x, u], allow_unused=False, materialize_grads=True), L),
            raised(lambda: L.autograd.grad((x * 2).sum(), [x, L.ones(2)]), L),
            raised(lambda: L.autograd.grad(s * 2, s, grad_outputs=L.ones(2)), L),
            raised(lambda: L.autograd.grad([s * 2, s * 3], s, grad_outputs=[L.ones(())]), L),
            raised(lambda: L.autograd.grad((x * 2).sum(), []), L),
        ]
        gx, gu = L.autograd.grad((x * 2).sum(), [x, u], allow_unused=True)
        out.append((gx.tolist(), gu))
        gx, gu = L.autograd.grad((x * 2).sum(), [x, u], materialize_grads=True)
        out.append((gx.tolist(), gu.tolist()))
        return out

    assert scenario(ctxgrad) == scenario(torch)


# --------------------------------------------------------------------------- backward(inputs=...)
def test_backward_inputs_fills_only_the_listed_leaves() -> None:
    x = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    w = ctxgrad.tensor([3.0, 4.0], requires_grad=True)
    (x * w).sum().backward(inputs=[x])
    assert x.grad.tolist() == [3.0, 4.0]
    assert w.grad is None


def test_backward_inputs_accepts_a_single_tensor() -> None:
    x = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    w = ctxgrad.tensor([3.0, 4.0], requires_grad=True)
    ctxgrad.autograd.backward((x * w).sum(), inputs=w)
    assert w.grad.tolist() == [1.0, 2.0]
    assert x.grad is None


def test_backward_empty_inputsraised() -> None:
    x = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="`inputs` argument to `backward\\(\\)` cannot be empty"):
        (x * 2).sum().backward(inputs=[])


def test_backward_inputs_non_leaf_gets_grad() -> None:
    x = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    w = ctxgrad.tensor([3.0, 4.0], requires_grad=True)
    y = x * w
    (y * y).sum().backward(inputs=[x, y])
    assert y.grad.tolist() == [6.0, 16.0]
    assert x.grad.tolist() == [18.0, 64.0]
    assert w.grad is None


def test_backward_inputs_unused_leaf_stays_none() -> None:
    x = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    u = ctxgrad.tensor([1.0], requires_grad=True)
    (x * 2).sum().backward(inputs=[u])
    assert u.grad is None
    assert x.grad is None


def _inputs_with_retain_grad_scenario(L: Any) -> tuple[list[float], Any]:
    x = L.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.retain_grad()
    (y * y).sum().backward(inputs=[y])
    return y.grad.tolist(), x.grad


def test_backward_inputs_non_leaf_that_retains_grad_is_filled_once() -> None:
    assert _inputs_with_retain_grad_scenario(ctxgrad) == ([6.0, 12.0], None)


def test_torch_parity_backward_inputs() -> None:
    torch = import_torch()

    def scenario(L: Any) -> list[Any]:
        x = L.tensor([1.0, 2.0], requires_grad=True)
        w = L.tensor([3.0, 4.0], requires_grad=True)
        y = x * w
        (y * y).sum().backward(inputs=[y])
        a = (y.grad.tolist(), x.grad, w.grad)
        x2 = L.tensor([1.0, 2.0], requires_grad=True)
        w2 = L.tensor([3.0, 4.0], requires_grad=True)
        y2 = x2 * w2
        (y2 * y2).sum().backward(inputs=[x2, y2])
        b = (y2.grad.tolist(), x2.grad.tolist(), w2.grad)
        return [a, b]

    assert scenario(ctxgrad) == scenario(torch)
    assert _inputs_with_retain_grad_scenario(torch) == ([6.0, 12.0], None)


# --------------------------------------------------------------------------- broadcasting
def test_broadcast_gradients_of_add_and_mul_are_reduced_to_input_shapes() -> None:
    a = ctxgrad.ones(3, 1, requires_grad=True)
    b = ctxgrad.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    ((a + b) * (a * b)).sum().backward()
    assert a.grad.shape == ctxgrad.Size([3, 1])
    assert b.grad.shape == ctxgrad.Size([4])
    # d/da sum((a+b)ab) = sum_j (2ab + b^2) = 2*10 + 30 = 50; d/db_j = sum_i (a^2 + 2ab) = 3 * (1 + 2 b_j)
    assert a.grad.reshape(-1).tolist() == [50.0, 50.0, 50.0]
    assert b.grad.tolist() == [9.0, 15.0, 21.0, 27.0]


class _BroadcastAdd(Function):
    @staticmethod
    def forward(ctx: Any, a: Any, b: Any) -> Any:
        return a + b

    @staticmethod
    def backward(ctx: Any, g: Any) -> Any:
        return g, g  # unreduced: the engine sums each down to its input's shape


def test_engine_sums_a_broadcast_gradient_down_for_custom_functions() -> None:
    a = ctxgrad.zeros(3, 1, requires_grad=True)
    b = ctxgrad.zeros(4, requires_grad=True)
    _BroadcastAdd.apply(a, b).sum().backward()
    assert a.grad.shape == ctxgrad.Size([3, 1])
    assert a.grad.reshape(-1).tolist() == [4.0, 4.0, 4.0]
    assert b.grad.tolist() == [3.0, 3.0, 3.0, 3.0]


def test_torch_parity_broadcasting() -> None:
    torch = import_torch()

    def scenario(L: Any) -> list[Any]:
        a = L.ones(3, 1, requires_grad=True)
        b = L.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
        ((a + b) * (a * b)).sum().backward()
        return [list(a.grad.shape), a.grad.reshape(-1).tolist(), list(b.grad.shape), b.grad.tolist()]

    assert scenario(ctxgrad) == scenario(torch)


# --------------------------------------------------------------------------- execution order, reentrancy
def _diamond_scenario(L: Any) -> tuple[list[str], list[float]]:
    order: list[str] = []

    def passthrough(name: str) -> Any:
        class Node(L.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                return x.clone()

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                order.append(name)
                return g

        return Node

    class Join(L.autograd.Function):
        @staticmethod
        def forward(ctx: Any, b: Any, c: Any) -> Any:
            return b + c

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            order.append("D")
            return g, g

    A, B, C = passthrough("A"), passthrough("B"), passthrough("C")
    x = L.ones(2, requires_grad=True)
    a = A.apply(x)
    b = B.apply(a)
    c = C.apply(a)
    Join.apply(b, c).sum().backward()
    return order, x.grad.tolist()


def test_diamond_of_custom_nodes_runs_newest_first() -> None:
    assert _diamond_scenario(ctxgrad) == (["D", "C", "B", "A"], [2.0, 2.0])


def test_torch_parity_diamond_order() -> None:
    torch = import_torch()
    assert _diamond_scenario(ctxgrad) == _diamond_scenario(torch)


def test_each_node_runs_once_after_all_its_gradients_arrived() -> None:
    calls: list[list[float]] = []

    class Spy(Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x.clone()

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            calls.append(g.tolist())
            return g

    x = ctxgrad.tensor([1.0], requires_grad=True)
    s = Spy.apply(x)
    (s * 2 + s * 3 + s).sum().backward()
    assert calls == [[6.0]]
    assert x.grad.tolist() == [6.0]


def _accumulate_grad_priority_scenario(L: Any) -> list[str]:
    # x2's AccumulateGrad node is made early (by an unrelated op that keeps it alive), so it
    # is older than A and B.  torch runs an AccumulateGrad as soon as it is ready, whatever
    # its age; x2's hook therefore fires right after C, before B and A.
    log: list[str] = []

    def passthrough(name: str, n: int = 1) -> Any:
        class Node(L.autograd.Function):
            @staticmethod
            def forward(ctx: Any, *xs: Any) -> Any:
                return xs[0].clone() if n == 1 else xs[0] + xs[1]

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                log.append(name)
                return g if n == 1 else (g, g)

        return Node

    A, B, C = passthrough("A"), passthrough("B"), passthrough("C", 2)
    x1 = L.ones(2, requires_grad=True)
    x2 = L.ones(2, requires_grad=True)
    unrelated = x2 * 1
    x1.register_hook(lambda g: log.append("x1 hook"))
    x2.register_hook(lambda g: log.append("x2 hook"))
    y = C.apply(B.apply(A.apply(x1)), x2)
    y.sum().backward()
    del unrelated
    return log


def test_ready_accumulate_grad_runs_before_other_ready_nodes() -> None:
    assert _accumulate_grad_priority_scenario(ctxgrad) == ["C", "x2 hook", "B", "A", "x1 hook"]


def test_torch_parity_accumulate_grad_priority() -> None:
    torch = import_torch()
    assert _accumulate_grad_priority_scenario(torch) == ["C", "x2 hook", "B", "A", "x1 hook"]


def _none_gradient_scenario(L: Any) -> tuple[list[str], list[float]]:
    log: list[str] = []

    class Upstream(L.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x.clone()

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            log.append(f"Upstream got {g.tolist()}")
            return g

    class ReturnsNone(L.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x.clone()

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            log.append("ReturnsNone")
            return None

    x = L.ones(2, requires_grad=True)
    ReturnsNone.apply(Upstream.apply(x)).sum().backward()
    return log, x.grad.tolist()


def test_node_that_gets_no_gradient_still_runs_with_zeros() -> None:
    assert _none_gradient_scenario(ctxgrad) == (["ReturnsNone", "Upstream got [0.0, 0.0]"], [0.0, 0.0])


def test_torch_parity_node_that_gets_no_gradient() -> None:
    torch = import_torch()
    assert _none_gradient_scenario(ctxgrad) == _none_gradient_scenario(torch)


def test_backward_and_create_graph_work_inside_no_grad() -> None:
    x = ctxgrad.tensor(2.0, requires_grad=True)
    y = x**3
    with ctxgrad.no_grad():
        (g,) = ctxgrad.autograd.grad(y, x, create_graph=True)
        assert not ctxgrad.is_grad_enabled()
        assert g.requires_grad  # the engine records with create_graph=True even inside no_grad
        y.backward()
        assert not ctxgrad.is_grad_enabled()
    assert g.item() == 12.0
    assert x.grad.item() == 12.0
    assert ctxgrad.autograd.grad(g, x)[0].item() == 12.0


def _reentrant_scenario(L: Any) -> list[float]:
    class SquareViaGrad(L.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            (x,) = ctx.saved_tensors
            with L.enable_grad():
                xd = x.detach().requires_grad_()
                (dx,) = L.autograd.grad((xd * xd).sum(), xd)
            return g * dx

    x = L.tensor([1.0, 2.0, 3.0], requires_grad=True)
    (SquareViaGrad.apply(x) * 10).sum().backward()
    return x.grad.tolist()


def test_reentrant_backward_calls_grad_inside_a_custom_backward() -> None:
    assert _reentrant_scenario(ctxgrad) == [20.0, 40.0, 60.0]


def test_torch_parity_reentrant_backward() -> None:
    torch = import_torch()
    assert _reentrant_scenario(ctxgrad) == _reentrant_scenario(torch)


def test_grad_mode_inside_backward_follows_create_graph() -> None:
    seen: list[bool] = []

    class Probe(Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            seen.append(ctxgrad.is_grad_enabled())
            return x.clone()

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            seen.append(ctxgrad.is_grad_enabled())
            return g

    x = ctxgrad.tensor(1.0, requires_grad=True)
    ctxgrad.autograd.grad(Probe.apply(x), x)
    ctxgrad.autograd.grad(Probe.apply(x), x, create_graph=True)
    assert seen == [False, False, False, True]
    assert ctxgrad.is_grad_enabled()


def test_exception_in_backward_propagates_and_restores_grad_mode() -> None:
    class Boom(Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x.clone()

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            raise ValueError("boom in backward")

    x = ctxgrad.tensor([1.0], requires_grad=True)
    with pytest.raises(ValueError, match="boom in backward"):
        Boom.apply(x).sum().backward(create_graph=False)
    assert ctxgrad.is_grad_enabled()
    with pytest.raises(ValueError, match="boom in backward"):
        ctxgrad.autograd.grad(Boom.apply(x).sum(), x, create_graph=True)
    assert ctxgrad.is_grad_enabled()


# --------------------------------------------------------------------------- a million ops
class _Inc(Function):
    """A trivial custom op: y = x + 1, dy/dx = 1."""

    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        return x + 1.0

    @staticmethod
    def backward(ctx: Any, g: Any) -> Any:
        return g


def test_million_op_chain_forward_backward_and_free_with_default_recursion_limit() -> None:
    n = 1_000_000
    old_limit = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)  # Python's default: nothing may recurse per node
    try:
        x = ctxgrad.tensor(0.0, requires_grad=True)
        y = _Inc.apply(x)
        first = weakref.ref(y.grad_fn)  # the node deepest in the graph, nearest the leaf
        for _ in range(n - 1):
            y = _Inc.apply(y)
        assert y.item() == float(n)
        last = weakref.ref(y.grad_fn)
        y.backward(retain_graph=True)
        assert x.grad.item() == 1.0
        del y
        assert first() is None
        assert last() is None
    finally:
        sys.setrecursionlimit(old_limit)


def test_graph_memory_is_a_bounded_constant_per_node() -> None:
    """What a recorded op keeps alive (node, edges, output tensor and its 0-d array) is a
    constant per node: measured with tracemalloc at two chain lengths (about 480 bytes)."""
    import tracemalloc

    def bytes_per_node(n: int) -> float:
        x = ctxgrad.tensor(0.0, requires_grad=True)
        tracemalloc.start()
        try:
            before = tracemalloc.get_traced_memory()[0]
            y = _Inc.apply(x)
            for _ in range(n - 1):
                y = _Inc.apply(y)
            used = tracemalloc.get_traced_memory()[0] - before
        finally:
            tracemalloc.stop()
        del y
        return used / n

    short, long = bytes_per_node(10_000), bytes_per_node(40_000)
    assert long < 1024, f"{long:.0f} bytes per node"
    assert abs(long - short) < 0.1 * short, f"{short:.0f} vs {long:.0f} bytes per node: not a constant"

"""Hooks: tensor hooks, post-accumulate-grad hooks, node pre/post hooks, saved-tensor hooks.

Scenarios written as functions of the library module ``L`` run on ctxgrad and, in the
``test_torch_parity_*`` tests, on torch too.
"""

from __future__ import annotations

from typing import Any

import pytest
from _support import assert_matches_torch, import_torch, raised

import ctxgrad
from ctxgrad.autograd import Function


def _identity(L: Any, log: list[Any] | None = None) -> Any:
    """A custom Function ``F`` with identity backward (logs "backward" when it runs)."""

    class F(L.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x.clone()

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            if log is not None:
                log.append("backward")
            return g

    return F


# --------------------------------------------------------------------------- tensor hooks
def test_tensor_hook_on_a_leaf_replaces_the_grad() -> None:
    x = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    x.register_hook(lambda g: g * 10)
    (x * 2).sum().backward()
    assert x.grad.tolist() == [20.0, 20.0]


def test_tensor_hook_on_a_non_leaf_changes_what_flows_on() -> None:
    x = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    seen: list[list[float]] = []
    y.register_hook(lambda g: seen.append(g.tolist()))
    y.register_hook(lambda g: g + 1)
    y.sum().backward()
    assert seen == [[1.0, 1.0]]
    assert x.grad.tolist() == [4.0, 4.0]


def test_tensor_hooks_run_in_registration_order_on_the_replaced_value() -> None:
    x = ctxgrad.tensor([1.0], requires_grad=True)
    x.register_hook(lambda g: g + 1)
    x.register_hook(lambda g: g * 10)
    (x * 1).sum().backward()
    assert x.grad.tolist() == [20.0]


def test_tensor_hook_returning_none_keeps_the_grad() -> None:
    x = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    x.register_hook(lambda g: None)
    (x * 3).sum().backward()
    assert x.grad.tolist() == [3.0, 3.0]


def test_removed_tensor_hook_no_longer_runs() -> None:
    x = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    handle = x.register_hook(lambda g: g * 10)
    (x * 1).sum().backward()
    assert x.grad.tolist() == [10.0, 10.0]
    handle.remove()
    handle.remove()  # a second remove does nothing
    x.grad = None
    (x * 1).sum().backward()
    assert x.grad.tolist() == [1.0, 1.0]


def test_removed_non_leaf_hook_no_longer_runs() -> None:
    x = ctxgrad.tensor([1.0], requires_grad=True)
    y = x * 1
    handle = y.register_hook(lambda g: g * 10)
    handle.remove()
    y.sum().backward()
    assert x.grad.tolist() == [1.0]


def test_tensor_hook_changing_the_shaperaised() -> None:
    x = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    x.register_hook(lambda g: ctxgrad.ones(3))
    with pytest.raises(RuntimeError, match="hook '<lambda>' has changed the size of value"):
        (x * 2).sum().backward()


def test_tensor_hook_changing_the_dtyperaised() -> None:
    x = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    x.register_hook(lambda g: g.to(ctxgrad.float64))
    with pytest.raises(RuntimeError, match="hook '<lambda>' has changed the type of value"):
        (x * 2).sum().backward()


def test_tensor_hook_returning_a_non_tensor_raises_type_error() -> None:
    x = ctxgrad.tensor([1.0, 2.0], requires_grad=True)

    def bad_hook(g: Any) -> Any:
        return 3

    x.register_hook(bad_hook)
    with pytest.raises(TypeError, match="expected Variable, but hook returned 'int'"):
        (x * 2).sum().backward()


def test_register_hook_on_a_tensor_not_requiring_gradraised() -> None:
    with pytest.raises(RuntimeError, match="cannot register a hook on a tensor that doesn't require gradient"):
        ctxgrad.ones(2).register_hook(lambda g: g)


def test_leaf_hook_runs_for_autograd_grad_too() -> None:
    x = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    x.register_hook(lambda g: g * 10)
    (g,) = ctxgrad.autograd.grad((x * 2).sum(), x)
    assert g.tolist() == [20.0, 20.0]
    assert x.grad is None


def test_torch_parity_tensor_hooks() -> None:
    torch = import_torch()

    def scenario(L: Any) -> list[Any]:
        x = L.tensor([1.0, 2.0], requires_grad=True)
        out: list[Any] = []
        h = x.register_hook(lambda g: L.ones(3))
        out.append(raised(lambda: (x * 2).sum().backward(), L))
        h.remove()

        def bad_hook(g: Any) -> Any:
            return 3

        h = x.register_hook(bad_hook)
        out.append(raised(lambda: (x * 2).sum().backward(), L))
        h.remove()
        out.append(raised(lambda: L.ones(2).register_hook(lambda g: g), L))
        x.grad = None
        h = x.register_hook(lambda g: g * 10)
        out.append(L.autograd.grad((x * 2).sum(), x)[0].tolist())
        (x * 2).sum().backward()
        out.append(x.grad.tolist())
        return out

    assert_matches_torch(scenario(ctxgrad), scenario(torch))


# --------------------------------------------------------------------------- post-accumulate-grad hooks
def test_post_accumulate_grad_hook_runs_after_grad_is_updated() -> None:
    x = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    seen: list[Any] = []

    def hook(param: Any) -> None:
        seen.append((param is x, param.grad.tolist(), ctxgrad.is_grad_enabled()))

    x.register_post_accumulate_grad_hook(hook)
    y = (x * 3).sum()
    y.backward(retain_graph=True)
    y.backward()
    assert seen == [(True, [3.0, 3.0], False), (True, [6.0, 6.0], False)]


def test_post_accumulate_grad_hook_can_be_removed() -> None:
    x = ctxgrad.tensor([1.0], requires_grad=True)
    calls: list[int] = []
    handle = x.register_post_accumulate_grad_hook(lambda p: calls.append(1))
    handle.remove()
    (x * 2).sum().backward()
    assert calls == []
    assert x.grad.tolist() == [2.0]


def test_post_accumulate_grad_hook_on_a_non_leafraised() -> None:
    x = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="post accumulate grad hooks cannot be registered on non-leaf tensors"):
        (x * 2).register_post_accumulate_grad_hook(lambda p: None)


def test_post_accumulate_grad_hook_does_not_run_for_autograd_grad() -> None:
    x = ctxgrad.ones(2, requires_grad=True)
    calls: list[int] = []
    x.register_post_accumulate_grad_hook(lambda p: calls.append(1))
    ctxgrad.autograd.grad((x * 2).sum(), x)
    assert calls == []
    assert x.grad is None


def test_torch_parity_post_accumulate_grad_hook() -> None:
    torch = import_torch()

    def scenario(L: Any) -> list[Any]:
        x = L.tensor([1.0, 2.0], requires_grad=True)
        seen: list[Any] = []
        x.register_post_accumulate_grad_hook(lambda p: seen.append((p.grad.tolist(), L.is_grad_enabled())))
        y = (x * 3).sum()
        y.backward(retain_graph=True)
        y.backward()
        seen.append(raised(lambda: (x * 2).register_post_accumulate_grad_hook(lambda p: None), L))
        seen.append(raised(lambda: L.ones(2).register_post_accumulate_grad_hook(lambda p: None), L))
        L.autograd.grad((x * 2).sum(), x)  # runs no post-accumulate hook
        return seen

    assert scenario(ctxgrad) == scenario(torch)


# --------------------------------------------------------------------------- node hooks
def _node_hooks_scenario(L: Any) -> float:
    F = _identity(L)
    x = L.tensor(1.0, requires_grad=True)
    y = F.apply(x)
    y.grad_fn.register_prehook(lambda grad_outputs: (grad_outputs[0] * 10,))
    y.grad_fn.register_hook(lambda grad_inputs, grad_outputs: (grad_inputs[0] + 1,))
    y.backward(L.tensor(2.0))
    return float(x.grad.item())


def test_node_prehook_and_posthook_replace_gradients() -> None:
    # seed 2 -> prehook 20 -> identity backward 20 -> posthook 21
    assert _node_hooks_scenario(ctxgrad) == 21.0


def test_torch_parity_node_hooks() -> None:
    torch = import_torch()
    assert _node_hooks_scenario(ctxgrad) == _node_hooks_scenario(torch) == 21.0


def test_node_posthook_sees_grad_inputs_per_tensor_argument() -> None:
    class Scale(Function):
        @staticmethod
        def forward(ctx: Any, x: Any, k: float) -> Any:
            ctx.k = k
            return x * k

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g * ctx.k, None

    seen: list[Any] = []
    x = ctxgrad.tensor([1.0], requires_grad=True)
    y = Scale.apply(x, 3.0)
    y.grad_fn.register_hook(lambda gi, go: seen.append((len(gi), gi[0].tolist(), go[0].tolist())))
    y.sum().backward()
    assert seen == [(1, [3.0], [1.0])]


def test_node_prehook_returning_the_wrong_number_of_valuesraised() -> None:
    F = _identity(ctxgrad)
    x = ctxgrad.tensor([1.0], requires_grad=True)
    y = F.apply(x)
    y.grad_fn.register_prehook(lambda go: (go[0], go[0]))
    with pytest.raises(RuntimeError) as info:
        y.sum().backward()
    assert str(info.value) == "hook '<lambda>' has returned an incorrect number of values (got 2, but expected 1)"


def test_node_posthook_returning_a_tensor_instead_of_a_tupleraised() -> None:
    F = _identity(ctxgrad)
    x = ctxgrad.tensor([1.0], requires_grad=True)
    y = F.apply(x)
    y.grad_fn.register_hook(lambda gi, go: gi[0])
    with pytest.raises(TypeError, match="expected tuple, but hook returned 'Tensor'"):
        y.sum().backward()


def test_node_posthook_changing_the_sizeraised() -> None:
    F = _identity(ctxgrad)
    x = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    y = F.apply(x)
    y.grad_fn.register_hook(lambda gi, go: (ctxgrad.ones(3),))
    with pytest.raises(RuntimeError, match="hook '<lambda>' has changed the size of value"):
        y.sum().backward()


def test_removed_node_hooks_no_longer_run() -> None:
    F = _identity(ctxgrad)
    x = ctxgrad.tensor(1.0, requires_grad=True)
    y = F.apply(x)
    pre = y.grad_fn.register_prehook(lambda go: (go[0] * 10,))
    post = y.grad_fn.register_hook(lambda gi, go: (gi[0] + 1,))
    pre.remove()
    post.remove()
    y.backward()
    assert x.grad.item() == 1.0


def test_node_hooks_on_built_in_op_nodes() -> None:
    x = ctxgrad.tensor(2.0, requires_grad=True)
    y = x * 3
    y.grad_fn.register_prehook(lambda go: (go[0] * 10,))
    y.backward()
    assert x.grad.item() == 30.0


def test_torch_parity_node_hook_errors() -> None:
    torch = import_torch()

    def scenario(L: Any) -> list[Any]:
        F = _identity(L)
        x = L.tensor([1.0], requires_grad=True)
        y = F.apply(x)
        y.grad_fn.register_prehook(lambda go: (go[0], go[0]))
        z = F.apply(x)
        z.grad_fn.register_hook(lambda gi, go: gi[0])
        return [raised(lambda: y.sum().backward(), L), raised(lambda: z.sum().backward(), L)]

    assert scenario(ctxgrad) == scenario(torch)


def _accumulate_grad_node_hooks_scenario(L: Any) -> tuple[list[Any], list[float]]:
    x = L.tensor([1.0, 2.0], requires_grad=True)
    y = x * 2
    acc = y.grad_fn.next_functions[0][0]
    log: list[Any] = []
    acc.register_prehook(lambda go: log.append(("pre", [g.tolist() for g in go])))
    acc.register_hook(lambda gi, go: log.append(("post", len(gi), [g.tolist() for g in go])))
    y.sum().backward()
    return log, x.grad.tolist()


def test_hooks_on_an_accumulate_grad_node_run() -> None:
    log, grad = _accumulate_grad_node_hooks_scenario(ctxgrad)
    assert grad == [2.0, 2.0]
    assert log == [("pre", [[2.0, 2.0]]), ("post", 0, [[2.0, 2.0]])]


def test_torch_parity_accumulate_grad_node_hooks() -> None:
    torch = import_torch()
    expected = ([("pre", [[2.0, 2.0]]), ("post", 0, [[2.0, 2.0]])], [2.0, 2.0])
    assert _accumulate_grad_node_hooks_scenario(torch) == expected


def _prehook_unused_output_scenario(L: Any) -> list[Any]:
    class Two(L.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x.clone(), x.clone()

        @staticmethod
        def backward(ctx: Any, g1: Any, g2: Any) -> Any:
            return g1 + g2

    x = L.tensor([1.0, 2.0], requires_grad=True)
    a, _b = Two.apply(x)
    seen: list[Any] = []
    a.grad_fn.register_prehook(lambda go: seen.append([None if g is None else g.tolist() for g in go]))
    a.sum().backward()
    return seen


def test_node_prehook_sees_none_for_an_output_without_gradient() -> None:
    assert _prehook_unused_output_scenario(ctxgrad) == [[[1.0, 1.0], None]]


def test_torch_parity_prehook_sees_none_for_unused_output() -> None:
    torch = import_torch()
    assert _prehook_unused_output_scenario(torch) == [[[1.0, 1.0], None]]


# --------------------------------------------------------------------------- order of all hooks
def _hook_order_scenario(L: Any) -> tuple[list[Any], list[float], list[float]]:
    log: list[Any] = []
    F = _identity(L, log)
    x = L.tensor([1.0, 2.0], requires_grad=True)
    y = F.apply(x)

    def y_hook_1(g: Any) -> Any:
        log.append(("y hook 1", g.tolist()))
        return g * 2

    def y_hook_2(g: Any) -> Any:
        log.append(("y hook 2", g.tolist()))
        return g + 1

    y.register_hook(y_hook_1)
    y.retain_grad()  # registered between the two hooks, it still sees the value after both
    y.register_hook(y_hook_2)
    y.grad_fn.register_prehook(lambda go: log.append(("node prehook", go[0].tolist())))
    y.grad_fn.register_hook(lambda gi, go: log.append(("node posthook", gi[0].tolist())))
    x.register_hook(lambda g: log.append(("x hook", g.tolist(), x.grad)))
    x.register_post_accumulate_grad_hook(lambda p: log.append(("x post accumulate", p.grad.tolist())))
    y.sum().backward()
    return log, y.grad.tolist(), x.grad.tolist()


def test_hook_order_tensor_hooks_retain_grad_node_hooks_accumulate_post_accumulate() -> None:
    log, y_grad, x_grad = _hook_order_scenario(ctxgrad)
    assert log == [
        ("y hook 1", [1.0, 1.0]),
        ("y hook 2", [2.0, 2.0]),
        ("node prehook", [3.0, 3.0]),
        "backward",
        ("node posthook", [3.0, 3.0]),
        ("x hook", [3.0, 3.0], None),  # before accumulation: .grad still empty
        ("x post accumulate", [3.0, 3.0]),
    ]
    assert y_grad == [3.0, 3.0]  # retain_grad saw the hook-modified value
    assert x_grad == [3.0, 3.0]


def test_torch_parity_hook_order() -> None:
    torch = import_torch()
    assert _hook_order_scenario(ctxgrad) == _hook_order_scenario(torch)


# --------------------------------------------------------------------------- saved-tensor hooks
class _SaveInput(Function):
    @staticmethod
    def forward(ctx: Any, x: Any) -> Any:
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx: Any, g: Any) -> Any:
        (x,) = ctx.saved_tensors
        return 2 * x * g


def _saved_hooks_scenario(L: Any) -> tuple[list[str], list[str], list[float]]:
    class SaveInput(L.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            (x,) = ctx.saved_tensors
            (_x_again,) = ctx.saved_tensors  # a second access unpacks again
            return 2 * x * g

    calls: list[str] = []

    def pack(t: Any) -> Any:
        calls.append("pack")
        return t.detach()

    def unpack(p: Any) -> Any:
        calls.append("unpack")
        return p

    x = L.tensor([1.0, 2.0], requires_grad=True)
    with L.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = SaveInput.apply(x)
    at_save = list(calls)
    y.sum().backward()
    return at_save, calls, x.grad.tolist()


def test_saved_tensors_hooks_pack_once_and_unpack_on_each_access() -> None:
    at_save, calls, grad = _saved_hooks_scenario(ctxgrad)
    assert at_save == ["pack"]
    assert calls == ["pack", "unpack", "unpack"]
    assert grad == [2.0, 4.0]


def test_torch_parity_saved_tensors_hooks() -> None:
    torch = import_torch()
    assert _saved_hooks_scenario(ctxgrad) == _saved_hooks_scenario(torch)


def test_saved_tensors_unpack_receives_what_pack_returned() -> None:
    packed: list[list[float]] = []

    def pack(t: Any) -> Any:
        packed.append(t.tolist())
        return t.detach() * 2  # unpack sees the doubled value

    x = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    with ctxgrad.autograd.graph.saved_tensors_hooks(pack, lambda p: p):
        y = _SaveInput.apply(x)
    y.sum().backward()
    assert packed == [[1.0, 2.0]]
    assert x.grad.tolist() == [4.0, 8.0]


def _built_in_pack_scenario(L: Any) -> tuple[int, int, list[float]]:
    counts = {"pack": 0, "unpack": 0}

    def pack(t: Any) -> Any:
        counts["pack"] += 1
        return t.detach()

    def unpack(p: Any) -> Any:
        counts["unpack"] += 1
        return p

    x = L.tensor([1.0, 2.0], requires_grad=True)
    with L.autograd.graph.saved_tensors_hooks(pack, unpack):
        y = (x * x).exp()
    packs = counts["pack"]
    y.sum().backward()
    return packs, counts["unpack"], [round(v, 3) for v in x.grad.tolist()]


def test_saved_tensors_hooks_apply_to_built_in_ops() -> None:
    packs, unpacks, grad = _built_in_pack_scenario(ctxgrad)
    assert packs == 3  # x and x for the product, the output for exp
    assert unpacks == 3
    assert grad == [5.437, 218.393]  # 2x * exp(x^2)


def test_torch_parity_saved_tensors_hooks_on_built_in_ops() -> None:
    torch = import_torch()
    assert _built_in_pack_scenario(ctxgrad) == _built_in_pack_scenario(torch)


def _saved_hooks_double_backward_scenario(L: Any) -> list[float]:
    # The hooks see only data; the unpacked tensor must get back the saved tensor's autograd
    # identity (history of a saved input, grad_fn of a saved output), or create_graph loses terms.
    x = L.tensor(1.0, requires_grad=True)
    with L.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda p: p):
        y = x.exp()  # saves its output
        z = x * x  # saves its inputs
    (gy,) = L.autograd.grad(y, x, create_graph=True)
    (gz,) = L.autograd.grad(z, x, create_graph=True)
    return [
        round(gy.item(), 4),
        round(L.autograd.grad(gy, x)[0].item(), 4),
        gz.item(),
        L.autograd.grad(gz, x)[0].item(),
    ]


def test_saved_tensors_hooks_keep_double_backward_working() -> None:
    assert _saved_hooks_double_backward_scenario(ctxgrad) == [2.7183, 2.7183, 2.0, 2.0]


def test_torch_parity_saved_tensors_hooks_double_backward() -> None:
    torch = import_torch()
    assert _saved_hooks_double_backward_scenario(torch) == [2.7183, 2.7183, 2.0, 2.0]


def test_saved_tensors_pack_hook_sees_the_output_with_its_grad_fn() -> None:
    seen: list[bool] = []

    class SaveOutput(Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            y = x * 2
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g * 2

    def pack(t: Any) -> Any:
        seen.append(t.grad_fn is not None and t.grad_fn.name() == "SaveOutputBackward")
        return t.detach()

    with ctxgrad.autograd.graph.saved_tensors_hooks(pack, lambda p: p):
        SaveOutput.apply(ctxgrad.ones(1, requires_grad=True))
    assert seen == [True]


def test_saved_tensors_hooks_innermost_pair_applies() -> None:
    calls: list[str] = []
    outer = ctxgrad.autograd.graph.saved_tensors_hooks(lambda t: calls.append("outer") or t.detach(), lambda p: p)
    inner = ctxgrad.autograd.graph.saved_tensors_hooks(lambda t: calls.append("inner") or t.detach(), lambda p: p)
    x = ctxgrad.tensor([1.0], requires_grad=True)
    with outer:
        with inner:
            _SaveInput.apply(x)
        _SaveInput.apply(x)
    _SaveInput.apply(x)
    assert calls == ["inner", "outer"]


def test_saved_tensors_unpack_hook_returning_a_non_tensor_raises_type_error() -> None:
    x = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    with ctxgrad.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda p: 5):
        y = _SaveInput.apply(x)
    with pytest.raises(TypeError) as info:
        y.sum().backward()
    assert str(info.value) == "Output of saved tensor unpack_hook expected to be a Tensor but got result of type int"


def test_torch_parity_unpack_hook_non_tensor() -> None:
    torch = import_torch()

    def scenario(L: Any) -> tuple[str, str]:
        x = L.tensor([1.0, 2.0], requires_grad=True)
        with L.autograd.graph.saved_tensors_hooks(lambda t: t.detach(), lambda p: 5):
            y = x.exp()
        return raised(lambda: y.sum().backward(), L)

    assert scenario(ctxgrad) == scenario(torch)

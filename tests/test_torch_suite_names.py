"""Names torch's own autograd tests use: ``is_inference``, ``Variable``, ``del t.grad``,
``set_``, ``data_ptr``, ``grad_dtype``, calling a node by hand, and a node's saved values by
torch's names (``grad_fn._saved_self``, ``grad_fn._raw_saved_result``).

Each behaviour runs on ctxgrad and, where torch is installed, on torch too, as functions of
the library module ``L``.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pytest
from _support import raised, to_numpy

import ctxgrad
from ctxgrad.autograd import Variable


# --------------------------------------------------------------------------- is_inference
def _inference_flags(L: Any) -> tuple[bool, bool, bool]:
    with L.inference_mode():
        t = L.ones(1)
    return L.is_inference(t), t.is_inference(), L.is_inference(L.ones(1))


def test_is_inference_tells_a_tensor_made_in_inference_mode() -> None:
    assert _inference_flags(ctxgrad) == (True, True, False)


def test_is_inference_refuses_a_non_tensor_as_torch_does(torch: Any) -> None:
    assert _inference_flags(torch) == _inference_flags(ctxgrad)
    assert raised(lambda: ctxgrad.is_inference([1]), ctxgrad) == raised(lambda: torch.is_inference([1]), torch)


# --------------------------------------------------------------------------- Variable
def _variable_facts(L: Any) -> tuple[Any, ...]:
    V = L.autograd.Variable
    x = L.ones(2)
    v = V(x, requires_grad=True)
    shares = v.data_ptr() == x.data_ptr()
    v.detach().add_(1)  # a change through v shows in x, and counts in x's version
    y = L.ones(2, requires_grad=True) * 2
    w = V(y)
    return (
        v is x,
        v.requires_grad,
        x.requires_grad,
        v.is_leaf,
        shares,
        x.tolist(),
        x._version,
        isinstance(x, V),
        w.grad_fn is None,
        w.requires_grad,
        V().tolist(),
    )


def test_variable_makes_a_leaf_that_shares_the_values() -> None:
    facts = _variable_facts(ctxgrad)
    assert facts == (False, True, False, True, True, [2.0, 2.0], 1, True, True, False, [])


def test_variable_matches_torch(torch: Any) -> None:
    assert _variable_facts(ctxgrad) == _variable_facts(torch)
    assert raised(lambda: ctxgrad.autograd.Variable([1.0]), ctxgrad) == raised(
        lambda: torch.autograd.Variable([1.0]), torch
    )
    assert raised(lambda: Variable(ctxgrad.ones(2, dtype=ctxgrad.int64), requires_grad=True), ctxgrad) == raised(
        lambda: torch.autograd.Variable(torch.ones(2, dtype=torch.int64), requires_grad=True), torch
    )


def test_variable_volatile_warns_that_it_has_no_effect() -> None:
    with pytest.warns(UserWarning, match="volatile was removed and now has no effect"):
        v = Variable(ctxgrad.ones(1), volatile=True)
    assert not v.requires_grad


# --------------------------------------------------------------------------- del t.grad
def test_del_grad_clears_it() -> None:
    a = ctxgrad.ones(2, requires_grad=True)
    a.sum().backward()
    del a.grad
    assert a.grad is None
    a.sum().backward()
    assert a.grad.tolist() == [1.0, 1.0]


# --------------------------------------------------------------------------- set_ and data_ptr
def _set_facts(L: Any) -> tuple[Any, ...]:
    b = L.ones(3)
    c = L.zeros(2)
    same = b.set_(c) is b
    shares = b.data_ptr() == c.data_ptr()
    b.add_(1)
    emptied = L.ones(2).set_()
    return same, shares, c.tolist(), list(b.shape), list(emptied.shape), L.ones(3)[1:].data_ptr() > 0


def test_set_makes_a_tensor_share_another_ones_values() -> None:
    assert _set_facts(ctxgrad) == (True, True, [1.0, 1.0], [2], [0], True)


def test_set_and_data_ptr_match_torch(torch: Any) -> None:
    assert _set_facts(ctxgrad) == _set_facts(torch)
    for L in (ctxgrad, torch):
        t = L.ones(4)
        assert t[1:].data_ptr() - t.data_ptr() == t.element_size()
    assert raised(lambda: ctxgrad.ones(2, requires_grad=True).set_(ctxgrad.zeros(2)), ctxgrad) == raised(
        lambda: torch.ones(2, requires_grad=True).set_(torch.zeros(2)), torch
    )
    assert raised(lambda: ctxgrad.ones(2).set_(ctxgrad.ones(2, dtype=ctxgrad.float64)), ctxgrad) == raised(
        lambda: torch.ones(2).set_(torch.ones(2, dtype=torch.float64)), torch
    )


def test_set_from_a_tensor_that_requires_grad_is_refused_with_grad_mode_on() -> None:
    with pytest.raises(RuntimeError, match="set_ is not differentiable in ctxgrad"):
        ctxgrad.ones(2).set_(ctxgrad.ones(2, requires_grad=True))
    with ctxgrad.no_grad():
        t = ctxgrad.ones(3).set_(ctxgrad.zeros(2, requires_grad=True))
    assert not t.requires_grad and t.tolist() == [0.0, 0.0]


# --------------------------------------------------------------------------- grad_dtype
def _grad_dtype_facts(L: Any) -> tuple[Any, ...]:
    d = L.ones(2, requires_grad=True)
    own = str(d.grad_dtype)
    d.grad_dtype = L.float64
    (d * 2).sum().backward()
    accumulated = str(d.grad.dtype)
    d.grad = None
    wrong = raised(lambda: setattr(d, "grad", L.ones(2)), L)
    d.grad_dtype = None
    d.grad = L.ones(2, dtype=L.float16)
    anything = str(d.grad.dtype)
    y = d * 2
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (torch warns that a non-leaf's .grad is read, on its way)
        leaf_only = raised(lambda: setattr(y, "grad_dtype", L.float64), L)
    read_leaf_only = raised(lambda: y.grad_dtype, L)
    not_a_dtype = raised(lambda: setattr(d, "grad_dtype", "x"), L)
    return own, accumulated, wrong, anything, leaf_only, read_leaf_only, not_a_dtype


def test_grad_dtype_sets_the_dtype_of_grad() -> None:
    own, accumulated, wrong, anything, *_ = _grad_dtype_facts(ctxgrad)
    assert (own, accumulated, anything) == ("ctxgrad.float32", "ctxgrad.float64", "ctxgrad.float16")
    assert wrong[0] == "RuntimeError" and "grad_dtype 'Double'" in wrong[1]


def test_grad_dtype_matches_torch(torch: Any) -> None:
    ours = _grad_dtype_facts(ctxgrad)
    theirs = _grad_dtype_facts(torch)
    assert [s.replace("torch.", "ctxgrad.") for s in theirs[:2]] == list(ours[:2])
    assert ours[2:] == theirs[2:3] + (theirs[3].replace("torch.", "ctxgrad."),) + theirs[4:]


def test_assigning_grad_of_another_dtype_says_how_to_allow_it(torch: Any) -> None:
    def assign(L: Any) -> None:
        t = L.ones(2, requires_grad=True)
        t.grad = L.ones(2, dtype=L.float64)

    assert raised(lambda: assign(ctxgrad), ctxgrad) == raised(lambda: assign(torch), torch)


def test_data_set_to_a_non_tensor_says_so_as_torch(torch: Any) -> None:
    assert raised(lambda: setattr(ctxgrad.ones(2), "data", [1]), ctxgrad) == raised(
        lambda: setattr(torch.ones(2), "data", [1]), torch
    )


# --------------------------------------------------------------------------- calling a node
def _call_node(L: Any) -> tuple[Any, ...]:
    a = L.ones(2, requires_grad=True)
    b = L.full((2,), 3.0, requires_grad=True)
    y = a * b
    ga, gb = y.grad_fn(L.ones(2))
    s = a.sum().grad_fn(L.tensor(2.0))
    none = y.grad_fn(None)
    acc = y.grad_fn.next_functions[0][0]
    out = acc(L.ones(2))
    return ga.tolist(), gb.tolist(), ga.requires_grad, s.tolist(), none, out, a.grad.tolist()


def test_calling_a_node_runs_its_backward() -> None:
    assert _call_node(ctxgrad) == ([3.0, 3.0], [1.0, 1.0], True, [2.0, 2.0], (None, None), (), [1.0, 1.0])


def test_calling_a_node_matches_torch(torch: Any) -> None:
    assert _call_node(ctxgrad) == _call_node(torch)
    for make in (
        lambda L, n: n(),
        lambda L, n: n(L.ones(2), L.ones(2)),
        lambda L, n: n(1),
        lambda L, n: n(grad=L.ones(2)),
    ):

        def run(L: Any, make: Any = make) -> Any:
            y = L.ones(2, requires_grad=True) * 2
            return make(L, y.grad_fn)

        assert raised(lambda: run(ctxgrad), ctxgrad) == raised(lambda: run(torch), torch)


def test_calling_a_multi_output_node_takes_one_gradient_per_output(torch: Any) -> None:
    def run(L: Any, n: int) -> Any:
        u = L.ones(2, 3, requires_grad=True).unbind(0)
        return u[0].grad_fn(*[L.ones(3)] * n)

    assert raised(lambda: run(ctxgrad, 1), ctxgrad) == raised(lambda: run(torch, 1), torch)
    assert [t.tolist() for t in [run(ctxgrad, 2)]] == [run(torch, 2).tolist()]


# --------------------------------------------------------------------------- saved values by name
_SAVED_OPS: dict[str, Any] = {
    "mul": lambda L, a, b: a * b,
    "mul_number": lambda L, a, b: a * 2,
    "div": lambda L, a, b: a / b,
    "add": lambda L, a, b: a + b,
    "sub": lambda L, a, b: a - b,
    "exp": lambda L, a, b: a.exp(),
    "log": lambda L, a, b: a.log(),
    "log1p": lambda L, a, b: a.log1p(),
    "sin": lambda L, a, b: a.sin(),
    "cos": lambda L, a, b: a.cos(),
    "tanh": lambda L, a, b: a.tanh(),
    "sigmoid": lambda L, a, b: a.sigmoid(),
    "sqrt": lambda L, a, b: a.sqrt(),
    "rsqrt": lambda L, a, b: a.rsqrt(),
    "reciprocal": lambda L, a, b: a.reciprocal(),
    "relu": lambda L, a, b: a.relu(),
    "abs": lambda L, a, b: a.abs(),
    "pow_number": lambda L, a, b: a**3,
    "square": lambda L, a, b: a.square(),
    "sum": lambda L, a, b: a.sum(),
    "mean": lambda L, a, b: a.mean(),
    "mm": lambda L, a, b: a @ b.t(),
    "view": lambda L, a, b: a.view(6),
    "reshape": lambda L, a, b: a.reshape(3, 2),
    "unsqueeze": lambda L, a, b: a.unsqueeze(1),
    "cat": lambda L, a, b: L.cat([a, b], 1),
    "stack": lambda L, a, b: L.stack([a, b]),
}


def _operands(L: Any) -> tuple[Any, Any]:
    a = L.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
    b = L.tensor([[2.0, 1.0, 3.0], [1.0, 2.0, 0.5]], requires_grad=True)
    return a, b


def _saved(L: Any, op: str) -> dict[str, Any]:
    a, b = _operands(L)
    fn = _SAVED_OPS[op](L, a, b).grad_fn
    names = [n for n in dir(fn) if n.startswith("_saved_") and not n.endswith("_strides")]
    out: dict[str, Any] = {}
    for n in sorted(names):
        v = getattr(fn, n)
        out[n] = ("tensor", to_numpy(v).tolist()) if hasattr(v, "grad_fn") else v
    out["name"] = fn.name()
    out["self is a"] = getattr(fn, "_saved_self", None) is a
    return out


def test_saved_values_have_torch_names() -> None:
    assert _saved(ctxgrad, "mul")["_saved_other"] == ("tensor", [[2.0, 1.0, 3.0], [1.0, 2.0, 0.5]])
    assert _saved(ctxgrad, "mul")["self is a"]
    assert _saved(ctxgrad, "pow_number")["_saved_exponent"] == 3
    assert _saved(ctxgrad, "sum")["_saved_self_sym_sizes"] == (2, 3)
    np.testing.assert_allclose(_saved(ctxgrad, "exp")["_saved_result"][1], np.exp([[1, 2, 3], [4, 5, 6]]), rtol=1e-6)


@pytest.mark.parametrize("op", sorted(_SAVED_OPS))
def test_saved_values_match_torch(torch: Any, op: str) -> None:
    ours, theirs = _saved(ctxgrad, op), _saved(torch, op)
    assert ours.keys() == theirs.keys()
    for k, v in theirs.items():
        if isinstance(v, tuple) and v and v[0] == "tensor":
            np.testing.assert_allclose(ours[k][1], v[1], rtol=1e-6)
        else:
            assert ours[k] == v, k


def test_an_unknown_saved_name_is_an_attribute_error(torch: Any) -> None:
    for L in (ctxgrad, torch):
        y = L.ones(2, requires_grad=True).pow(2)
        with pytest.raises(AttributeError, match="'PowBackward0' object has no attribute '_saved_foo'"):
            y.grad_fn._saved_foo
        with pytest.raises(AttributeError, match="_raw_saved_exponent"):
            y.grad_fn._raw_saved_exponent  # (a number has no raw form)


def _after_backward(L: Any) -> tuple[Any, ...]:
    a = L.ones(2, requires_grad=True)
    z = a.pow(2)
    s = a.sum()
    s.backward()
    z.sum().backward()
    return (
        s.grad_fn._saved_self_sym_sizes,
        z.grad_fn._saved_exponent,
        raised(lambda: z.grad_fn._saved_self, L)[1].split(" (")[0],
        z.grad_fn._raw_saved_self.data,
        raised(lambda: z.grad_fn._raw_saved_self.register_hooks(lambda x: x, lambda x: x), L),
    )


def test_saved_tensors_are_freed_by_backward_and_numbers_stay(torch: Any) -> None:
    assert _after_backward(ctxgrad) == _after_backward(torch)


def _raw_hooks(L: Any) -> tuple[Any, ...]:
    calls: list[str] = []
    b = L.ones(2, requires_grad=True)
    w = b.exp()
    raw = w.grad_fn._raw_saved_result
    data = raw.data.tolist()
    raw.register_hooks(lambda x: (calls.append("pack"), x * 2)[1], lambda x: (calls.append("unpack"), x)[1])
    after_register = list(calls)
    seen = w.grad_fn._saved_result.tolist()
    again = raised(lambda: raw.register_hooks(lambda x: x, lambda x: x), L)
    w.sum().backward()
    return data, after_register, seen, again, np.round(to_numpy(b.grad), 4).tolist(), calls


def test_raw_saved_tensor_hooks_pack_now_and_unpack_on_each_read() -> None:
    data, after_register, seen, again, grad, calls = _raw_hooks(ctxgrad)
    e = float(np.e)
    assert data == pytest.approx([e, e])
    assert after_register == ["pack"]
    assert seen == pytest.approx([2 * e, 2 * e])
    assert again[0] == "RuntimeError"
    assert grad == pytest.approx([round(2 * e, 4)] * 2)
    assert calls == ["pack", "unpack", "unpack"]


def test_raw_saved_tensor_hooks_match_torch(torch: Any) -> None:
    ours, theirs = _raw_hooks(ctxgrad), _raw_hooks(torch)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-6)
    assert ours[1] == theirs[1]
    np.testing.assert_allclose(ours[2], theirs[2], rtol=1e-6)
    assert ours[3:] == theirs[3:]


def test_a_saved_tensor_name_of_a_users_function_is_missing(torch: Any) -> None:
    for L in (ctxgrad, torch):

        class F(L.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                ctx.save_for_backward(x)
                return x * 2

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                return g

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            o = F.apply(L.ones(2, requires_grad=True))
        with pytest.raises(AttributeError, match="'FBackward' object has no attribute '_saved_self'"):
            o.grad_fn._saved_self


# --------------------------------------------------------------------------- out=
_OUT_OPS: dict[str, Any] = {
    "add": lambda L, a, out: L.add(a, 1, out=out),
    "sub": lambda L, a, out: L.sub(a, a, alpha=2, out=out),
    "mul": lambda L, a, out: L.mul(a, a, out=out),
    "div": lambda L, a, out: L.div(a, 2, out=out),
    "exp": lambda L, a, out: L.exp(a, out=out),
    "matmul": lambda L, a, out: L.matmul(a, a, out=out),
    "sum": lambda L, a, out: L.sum(a.expand(2, 2), 0, out=out),
    "mean": lambda L, a, out: L.mean(a.expand(2, 2), 0, out=out),
}


def _out_facts(L: Any, op: str) -> tuple[Any, ...]:
    f = _OUT_OPS[op]
    a = L.tensor([1.0, 2.0], requires_grad=True)
    refused = raised(lambda: f(L, a, L.empty(2)), L)
    target = L.zeros(2) if op != "matmul" else L.zeros(())
    with L.no_grad():
        same = f(L, a, target) is target
    written = np.round(to_numpy(target), 4).tolist()
    empty = L.empty(0)
    f(L, a.detach(), empty)
    into_grad = raised(lambda: f(L, a.detach(), L.ones(2, requires_grad=True)), L)
    return refused, same, written, target.requires_grad, np.round(to_numpy(empty), 4).tolist(), into_grad


@pytest.mark.parametrize("op", sorted(_OUT_OPS))
def test_out_variants_write_into_out_and_refuse_autograd(op: str) -> None:
    refused, same, written, requires_grad, _, into_grad = _out_facts(ctxgrad, op)
    assert refused == (
        "RuntimeError",
        f"{op}(): functions with out=... arguments don't support automatic differentiation, but one of the "
        "arguments requires grad.",
    )
    assert same and not requires_grad
    expected = {
        "add": [2.0, 3.0],
        "sub": [-1.0, -2.0],
        "mul": [1.0, 4.0],
        "div": [0.5, 1.0],
        "matmul": 5.0,
        "sum": [2.0, 4.0],
        "mean": [1.0, 2.0],
    }
    np.testing.assert_allclose(written, expected.get(op, np.exp([1.0, 2.0])), atol=1e-4)
    assert into_grad[0] == "RuntimeError"


@pytest.mark.parametrize("op", sorted(_OUT_OPS))
def test_out_variants_match_torch(torch: Any, op: str) -> None:
    assert _out_facts(ctxgrad, op) == _out_facts(torch, op)


def test_out_refuses_a_result_it_cannot_hold_as_torch(torch: Any) -> None:
    for L in (ctxgrad, torch):
        with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
            L.add(L.ones(2), 1.5, out=L.empty(2, dtype=L.int64))
        with pytest.raises(TypeError, match=r"add\(\): argument 'out' must be Tensor, not list"):
            L.add(L.ones(2), 1, out=[1])
        t = L.zeros(3)
        with pytest.warns(UserWarning, match="An output with one or more elements was resized"):
            L.add(L.ones(2), 1, out=t)
        assert t.tolist() == [2.0, 2.0]


def _grad_dtype_of_incoming_gradients(L: Any) -> list[Any]:
    class ToDouble(L.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x * 2

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g.to(L.float64)  # a gradient of another dtype than the input's

    out = []
    for grad_dtype in ("own", None, L.float16):
        t = L.tensor([1.0, 2.0], requires_grad=True)
        if grad_dtype != "own":
            t.grad_dtype = grad_dtype
        ToDouble.apply(t).sum().backward()
        out.append(str(t.grad.dtype).removeprefix("torch.").removeprefix("ctxgrad."))
    k = L.tensor([1.0, 2.0], requires_grad=True)
    k.grad_dtype = None
    (k * 2).sum().backward()
    k.grad = k.grad.to(L.float16)
    (k * 3).sum().backward()  # accumulated into the existing .grad: its dtype stays
    out.append(str(k.grad.dtype).removeprefix("torch.").removeprefix("ctxgrad."))
    g = L.tensor([1.0, 2.0], requires_grad=True)
    g.grad = L.tensor([1.0, 1.0])
    out.append(raised(lambda: setattr(g, "grad_dtype", L.float16), L))
    return out


def test_grad_dtype_decides_what_backward_casts_to() -> None:
    got = _grad_dtype_of_incoming_gradients(ctxgrad)
    assert got[:4] == ["float32", "float64", "float16", "float16"]
    assert got[4][0] == "RuntimeError" and got[4][1].startswith("Cannot set grad_dtype to 'Half'")


def test_grad_dtype_of_incoming_gradients_matches_torch(torch: Any) -> None:
    assert _grad_dtype_of_incoming_gradients(ctxgrad) == _grad_dtype_of_incoming_gradients(torch)


# --------------------------------------------------------------------------- attribute deletion, volatile
def _attribute_deletion(L: Any) -> list[Any]:
    x = L.ones(2, requires_grad=True)
    del x.grad
    return [
        x.grad,
        raised(lambda: delattr(x, "data"), L),
        raised(lambda: setattr(x, "data", None), L),
        raised(lambda: delattr(x, "requires_grad"), L),
    ]


def test_deleting_tensor_attributes_matches_torch(torch: Any) -> None:
    assert _attribute_deletion(ctxgrad) == _attribute_deletion(torch)


def test_volatile_is_always_false_with_a_warning(torch: Any) -> None:
    for L in (ctxgrad, torch):
        with pytest.warns(UserWarning, match=r"volatile was removed \(Variable.volatile is always False\)"):
            assert L.ones(1).volatile is False


# --------------------------------------------------------------------------- set_ under no_grad
def _set_under_no_grad(L: Any) -> list[Any]:
    x = L.rand(2, requires_grad=True)
    edge = L.autograd.graph.get_gradient_edge(x)
    out = x.clone()
    with L.no_grad():
        x.set_(L.ones(2))
    return [
        raised(lambda: L.autograd.grad(out.sum(), x), L),
        [g.tolist() for g in L.autograd.grad(out.sum(), edge)],  # the edge still leads to the old graph
        x.requires_grad,
    ]


def test_set_under_no_grad_gives_the_leaf_a_new_place_in_graphs(torch: Any) -> None:
    assert _set_under_no_grad(ctxgrad)[0][1].startswith("The differentiated Tensor at index 0 appears to not")
    assert _set_under_no_grad(ctxgrad) == _set_under_no_grad(torch)


def _attr_bindings(L: Any) -> list[Any]:
    """The saved-value scenarios of torch's own attribute-binding test, in our words."""
    a = L.ones(1, requires_grad=True)
    b = L.zeros(1, requires_grad=True)
    stacked = L.stack([a, b], dim=0)
    prod = (a * 2) * b
    out: list[Any] = [stacked.grad_fn._saved_dim, type(stacked.grad_fn._saved_dim).__name__]
    out.append(prod.grad_fn._saved_self.tolist())
    prod.grad_fn._raw_saved_self.register_hooks(lambda x: x, lambda x: x)
    prod.sum().backward()
    out.append(raised(lambda: prod.grad_fn._saved_self, L)[1].split(" (")[0][-60:])
    m = L.ones(2, 2, requires_grad=True)
    out.append(tuple(m.mean().grad_fn._saved_self_sym_sizes))
    out.append(tuple(m[:, L.tensor([0, 1])].grad_fn._saved_self_sym_sizes))
    sq = m * m
    sq.grad_fn._raw_saved_self.register_hooks(lambda x: x, lambda x: x)
    sq.sum().backward()
    out.append(raised(lambda: sq.grad_fn._raw_saved_self.register_hooks(lambda x: x, lambda x: x), L)[1][:60])
    p = L.ones(1, 1, 2, requires_grad=True) * 0.5
    out.append((L.logit(p, 0.25).grad_fn._saved_eps, L.logit(p).grad_fn._saved_eps))
    return out


def test_saved_value_bindings_match_torchs(torch: Any) -> None:
    ours = _attr_bindings(ctxgrad)
    assert ours[:3] == [0, "int", [2.0]]
    assert ours == _attr_bindings(torch)

"""In-place ops, ``__setitem__`` and writes through views, against torch.

Each scenario is written once as ``fn(m)`` for ``m`` = ``ctxgrad`` or ``torch`` and returns a
dict of named results (tensors, gradients, grad_fn names, versions); both libraries must give
the same dict.  The error table runs misuse on both and compares exception type and message.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from _support import dtype_name

import ctxgrad


def leaf(m: Any, values: Any) -> Any:
    return m.tensor(values, dtype=m.float64, requires_grad=True)


def name(t: Any) -> str | None:
    fn = t.grad_fn
    return None if fn is None else type(fn).__name__


M23 = [[1.0, -2.0, 3.0], [4.0, 5.0, -6.0]]


def s_mul_(m: Any) -> dict[str, Any]:
    a = leaf(m, M23)
    y = a * 2
    y.mul_(3)
    (y * y).sum().backward()
    return {"y": y, "grad": a.grad, "fn": name(y), "version": y._version}


def s_ops_chain(m: Any) -> dict[str, Any]:
    a = leaf(m, M23)
    y = a * 1
    y.add_(1, alpha=2).sub_(a).mul_(a).div_(1.5).pow_(2)
    y += a
    y -= 1
    y *= a
    y /= 2
    y **= 1
    y.sum().backward()
    return {"y": y, "grad": a.grad, "fn": name(y), "version": y._version}


def s_unary_chain(m: Any) -> dict[str, Any]:
    a = leaf(m, [[0.5, 0.25, 1.5], [0.1, 0.2, 0.3]])
    outs = [
        op(a * 1)
        for op in (
            lambda y: y.exp_(),
            lambda y: y.log_(),
            lambda y: y.tanh_(),
            lambda y: y.sigmoid_(),
            lambda y: y.abs_(),
            lambda y: y.sqrt_(),
            lambda y: y.neg_(),
            lambda y: (y - 0.2).relu_(),
            lambda y: y.neg_().abs_(),
        )
    ]
    sum(o * o for o in outs).sum().backward()
    return {"outs": outs, "grad": a.grad, "fns": [name(o) for o in outs]}


def s_mul_by_tensor_needs_original(m: Any) -> dict[str, Any]:
    """``y.mul_(b)`` needs y's old value for b's gradient (torch's "original self")."""
    a = leaf(m, M23)
    b = leaf(m, [2.0, 3.0, 4.0])
    y = a + 1
    y.mul_(b)
    y.sum().backward()
    return {"y": y, "grad_a": a.grad, "grad_b": b.grad, "fn": name(y)}


def s_inplace_on_plain_tensor(m: Any) -> dict[str, Any]:
    """A tensor that does not require grad becomes part of the graph by an in-place op."""
    a = leaf(m, [1.0, 2.0, 3.0])
    y = m.ones(3, dtype=m.float64)
    y.mul_(a)
    y.add_(a * a)
    y.sum().backward()
    return {"y": y, "grad": a.grad, "fn": name(y), "requires_grad": y.requires_grad, "is_leaf": y.is_leaf}


def s_write_through_view(m: Any) -> dict[str, Any]:
    a = leaf(m, M23)
    b = a * 1
    v = b[0]
    v.mul_(2)
    (b * b).sum().backward()
    return {"b": b, "v": v, "grad": a.grad, "b_fn": name(b), "v_fn": name(v), "version": b._version}


def s_write_through_transposed_view(m: Any) -> dict[str, Any]:
    a = leaf(m, M23)
    b = a * 1
    b.t()[1:, 0].add_(a[1, 1:] * 10)
    (b * b).sum().backward()
    return {"b": b, "grad": a.grad, "b_fn": name(b)}


def s_write_through_view_of_view(m: Any) -> dict[str, Any]:
    a = leaf(m, [[1.0, 2.0, 3.0, 4.0], [5.0, 6.0, 7.0, 8.0], [9.0, 10.0, 11.0, 12.0]])
    b = a * 2
    v = b[1:]
    w = v[:, ::2]
    w.mul_(a[0, :2])
    (b * a).sum().backward()
    return {"b": b, "grad": a.grad, "version": b._version, "v_version": v._version}


def s_view_then_read_view(m: Any) -> dict[str, Any]:
    """After the write, the view itself is re-read from the new base."""
    a = leaf(m, M23)
    b = a * 1
    v = b[:, 1]
    v.exp_()
    (v * 3).sum().backward()
    return {"v": v, "grad": a.grad, "v_fn": name(v)}


def s_setitem_basic(m: Any) -> dict[str, Any]:
    a = leaf(m, M23)
    z = m.zeros(2, 3, dtype=m.float64)
    z[0] = a[1] * 3
    z[:, 2] = 7.0
    z[1, 0] = a[0, 0]
    (z * z).sum().backward()
    return {"z": z, "grad": a.grad, "fn": name(z), "version": z._version}


def s_setitem_advanced(m: Any) -> dict[str, Any]:
    a = leaf(m, M23)
    z = a * 1
    z[[1, 0], [0, 2]] = a[0, :2] * 5
    z[m.tensor([[True, False, False], [False, False, True]])] = 0.5
    (z * z).sum().backward()
    return {"z": z, "grad": a.grad, "fn": name(z)}


def s_setitem_mixed_indices(m: Any) -> dict[str, Any]:
    a = leaf(m, [[1.0, -2.0, 3.0, 0.5], [4.0, 5.0, -6.0, 1.5], [0.1, 0.2, 0.3, 0.4]])
    z = a * 1
    z[1, [0, 2]] = a[0, :2] * 3
    z[:, [3, 0]] = a[:, 1:3] * 2
    z[z > 4] = a[2, 0]
    z[..., m.tensor(1)] = -1.0
    v = z[1:]
    v[[0, 1], [1, 2]] = a[0, 3]
    (z * z).sum().backward()
    return {"z": z, "grad": a.grad, "fn": name(z), "v": v}


def s_setitem_broadcast_value(m: Any) -> dict[str, Any]:
    a = leaf(m, M23)
    v = leaf(m, [1.0, 2.0])
    z = a * 1
    z[:, 1:] = v
    z[0, :] = v[0]
    (z * z).sum().backward()
    return {"z": z, "grad_a": a.grad, "grad_v": v.grad}


def s_setitem_into_view(m: Any) -> dict[str, Any]:
    a = leaf(m, M23)
    b = a * 1
    v = b[1]
    v[1:] = a[0, 1:] * 2
    (b * b).sum().backward()
    return {"b": b, "grad": a.grad, "b_fn": name(b)}


def s_zero_fill_copy(m: Any) -> dict[str, Any]:
    a = leaf(m, M23)
    s = leaf(m, 2.0)
    x = a * 1
    x[0].zero_()
    y = a * 1
    y.fill_(s)
    z = a * 1
    z.copy_(a[0] * 4)
    w = a * 1
    w.fill_(3.5)
    (x * y + z * w).sum().backward()
    return {"x": x, "y": y, "z": z, "grad_a": a.grad, "grad_s": s.grad, "fns": [name(x), name(y), name(z), name(w)]}


def s_copy_casts_dtype(m: Any) -> dict[str, Any]:
    a = leaf(m, [1.5, 2.5])
    y = m.zeros(2, dtype=m.float32)
    y.copy_(a * 2)
    i = m.zeros(2, dtype=m.int64)
    i.copy_(m.tensor([1.7, -2.7]))
    y.sum().backward()
    return {"y": y, "i": i, "grad": a.grad, "dtype": dtype_name(y.dtype)}


def s_no_grad_update_of_leaf(m: Any) -> dict[str, Any]:
    """The optimizer pattern: a leaf changed in place under no_grad keeps being a leaf."""
    w = leaf(m, [1.0, 2.0])
    (w * w).sum().backward()
    with m.no_grad():
        w -= 0.1 * w.grad
        w[0] = 5.0
    return {"w": w, "leaf": w.is_leaf, "requires_grad": w.requires_grad, "version": w._version}


def s_int_tensor_inplace(m: Any) -> dict[str, Any]:
    x = m.tensor([1, 2, 3])
    x += 2
    x.mul_(3)
    x[1] = 0
    return {"x": x, "dtype": dtype_name(x.dtype), "version": x._version}


def s_float32_inplace_with_float64(m: Any) -> dict[str, Any]:
    a = leaf(m, [1.0, 2.0])
    y = m.ones(2, dtype=m.float32)
    y.mul_(a)
    y.sum().backward()
    return {"y": y, "grad": a.grad, "dtype": dtype_name(y.dtype)}


def s_double_backward_through_inplace(m: Any) -> dict[str, Any]:
    a = leaf(m, [0.5, 1.0, 2.0])
    y = a * a
    y.mul_(a)
    y[1:].exp_()
    (g,) = m.autograd.grad(y.sum(), a, create_graph=True)
    (gg,) = m.autograd.grad(g.sum(), a)
    return {"g": g, "gg": gg}


def s_sibling_view_sees_write(m: Any) -> dict[str, Any]:
    """A write through one view reaches the gradient of another view of the same base."""
    a = leaf(m, M23)
    b = a * 1
    v1 = b[0]
    v2 = b[:, 1]
    v1.mul_(2)
    (v2 * v2).sum().backward()
    return {"v2": v2, "grad": a.grad, "v2_fn": name(v2)}


def s_view_after_base_inplace(m: Any) -> dict[str, Any]:
    a = leaf(m, M23)
    b = a * 1
    v = b[1]
    w = b.t()
    b.mul_(3)
    v.sum().backward(retain_graph=True)
    (w * w).sum().backward()
    return {"v": v, "grad": a.grad, "v_fn": name(v)}


def s_view_of_leaf_after_no_grad_update(m: Any) -> dict[str, Any]:
    w = leaf(m, [1.0, 2.0, 3.0])
    v = w[1:]
    with m.no_grad():
        w.mul_(2)
    (v * v).sum().backward()
    return {"v": v, "grad": w.grad}


SCENARIOS = [
    s_sibling_view_sees_write,
    s_view_after_base_inplace,
    s_view_of_leaf_after_no_grad_update,
    s_mul_,
    s_ops_chain,
    s_unary_chain,
    s_mul_by_tensor_needs_original,
    s_inplace_on_plain_tensor,
    s_write_through_view,
    s_write_through_transposed_view,
    s_write_through_view_of_view,
    s_view_then_read_view,
    s_setitem_basic,
    s_setitem_advanced,
    s_setitem_mixed_indices,
    s_setitem_broadcast_value,
    s_setitem_into_view,
    s_zero_fill_copy,
    s_copy_casts_dtype,
    s_no_grad_update_of_leaf,
    s_int_tensor_inplace,
    s_float32_inplace_with_float64,
    s_double_backward_through_inplace,
]


def assert_same_result(c: Any, t: Any, key: str) -> None:
    """Tensors: same dtype and values; lists item by item; anything else equal."""
    if isinstance(t, list):
        assert isinstance(c, list) and len(c) == len(t), key
        for i, (cv, tv) in enumerate(zip(c, t)):
            assert_same_result(cv, tv, f"{key}[{i}]")
    elif hasattr(t, "detach"):
        assert dtype_name(c.dtype) == dtype_name(t.dtype), key
        np.testing.assert_allclose(c.detach().numpy(), t.detach().numpy(), rtol=1e-12, atol=1e-14, err_msg=key)
    else:
        assert c == t, key


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda f: f.__name__.removeprefix("s_"))
def test_scenario_matches_torch(torch: Any, scenario: Callable[[Any], dict[str, Any]]) -> None:
    c = scenario(ctxgrad)
    t = scenario(torch)
    assert c.keys() == t.keys()
    for key in c:
        assert_same_result(c[key], t[key], key)


# --------------------------------------------------------------------------- errors

ERRORS = [
    pytest.param(
        lambda m: leaf(m, [1.0]).mul_(2),
        RuntimeError,
        "a leaf Variable that requires grad is being used in an in-place operation.",
        id="leaf",
    ),
    pytest.param(
        lambda m: leaf(m, [1.0]).__iadd__(1),
        RuntimeError,
        "a leaf Variable that requires grad is being used in an in-place operation.",
        id="leaf-iadd",
    ),
    pytest.param(
        lambda m: leaf(m, [[1.0]])[0].add_(1),
        RuntimeError,
        "a view of a leaf Variable that requires grad is being used in an in-place operation.",
        id="view-of-leaf",
    ),
    pytest.param(
        lambda m: leaf(m, [1.0, 2.0]).__setitem__(0, 3.0),
        RuntimeError,
        "a view of a leaf Variable that requires grad is being used in an in-place operation.",
        id="setitem-leaf",
    ),
    pytest.param(
        lambda m: m.ones(3, dtype=m.int64).mul_(1.5),
        RuntimeError,
        "result type Float can't be cast to the desired output type Long",
        id="int-times-float",
    ),
    pytest.param(
        lambda m: m.ones(3).add_(m.ones(2, 3)),
        RuntimeError,
        "output with shape [3] doesn't match the broadcast shape [2, 3]",
        id="broadcast-grows",
    ),
    pytest.param(
        lambda m: m.ones(3).expand(2, 3).mul_(2),
        RuntimeError,
        "unsupported operation: more than one element of the written-to tensor refers to a single "
        "memory location. Please clone() the tensor before performing the operation.",
        id="expanded",
    ),
    pytest.param(
        lambda m: m.ones(2, 3).__setitem__((slice(None), 0), m.ones(3)),
        RuntimeError,
        "The expanded size of the tensor (2) must match the existing size (3) at non-singleton dimension 0.",
        id="setitem-shape",
    ),
    pytest.param(
        lambda m: m.ones(2, 3).__setitem__(([0, 1], 0), m.ones(3)),
        RuntimeError,
        "shape mismatch: value tensor of shape [3] cannot be broadcast to indexing result of shape [2]",
        id="setitem-advanced-shape",
    ),
    pytest.param(
        lambda m: m.ones(3).__setitem__([0, 5], 1.0),
        IndexError,
        "index 5 is out of bounds for dimension 0 with size 3",
        id="setitem-index-range",
    ),
    pytest.param(
        lambda m: m.ones(3).fill_(m.ones(2)),
        RuntimeError,
        "fill_ only supports 0-dimension value tensor but got tensor with 1 dimensions.",
        id="fill-1d",
    ),
]


@pytest.mark.parametrize(("fn", "exc", "message"), ERRORS)
def test_errors_match_torch(torch: Any, fn: Callable[[Any], Any], exc: type[BaseException], message: str) -> None:
    for m in (torch, ctxgrad):
        with pytest.raises(exc) as info:
            fn(m)
        assert str(info.value).startswith(message), f"{m.__name__}: {info.value}"


VERSION_MSG = "one of the variables needed for gradient computation has been modified by an inplace operation"


@pytest.mark.parametrize(
    "fn",
    [
        pytest.param(lambda m, a: (lambda y: (y * y, y.add_(1)))(a * 1)[0], id="saved-input"),
        pytest.param(lambda m, a: (lambda y: (y * 1, y.mul_(2)))((a * 0.1).exp())[0], id="saved-output-modified"),
        pytest.param(lambda m, a: (lambda b: (b[0] * b[0], b[0].mul_(2)))(a * 1)[0], id="saved-view-base-modified"),
        pytest.param(lambda m, a: (lambda b: (b * b, b[1].zero_()))(a * 1)[0], id="saved-base-view-modified"),
        pytest.param(lambda m, a: (lambda y: (y.tanh(), y.tanh_()))(a * 1)[0], id="tanh-then-tanh_"),
    ],
)
def test_version_errors_match_torch(torch: Any, fn: Callable[[Any, Any], Any]) -> None:
    """A backward that needs a value changed in place since it was saved raises (both libraries),
    and one that does not, does not."""
    outcomes = []
    for m in (torch, ctxgrad):
        a = leaf(m, M23)
        out = fn(m, a)
        try:
            out.sum().backward()
            outcomes.append(("ok", np.asarray(a.grad.numpy())))
        except RuntimeError as exc:
            assert str(exc).startswith(VERSION_MSG), str(exc)
            outcomes.append(("error", None))
    assert outcomes[0][0] == outcomes[1][0]
    if outcomes[0][0] == "ok":
        np.testing.assert_allclose(outcomes[1][1], outcomes[0][1])


def test_result_saved_by_an_inplace_op_survives_a_later_inplace_op(torch: Any) -> None:
    """A documented difference (docs/differences.md): ``y.sqrt_()`` saves its result for
    backward; torch then refuses the backward after ``y.neg_()`` changed it, ctxgrad (which
    keeps the op's result apart from ``y``'s storage) gives the right gradient."""

    def run(m: Any) -> Any:
        a = leaf(m, [0.25, 4.0])
        y = a * 1
        y.sqrt_()
        y.neg_()
        y.sum().backward()
        return a.grad

    with pytest.raises(RuntimeError, match=VERSION_MSG):
        run(torch)
    assert run(ctxgrad).tolist() == [-1.0, -0.25]  # d(-sqrt a)/da = -1 / (2 sqrt a)


def _square_saving_input(m: Any) -> Any:
    """``x * x`` as a custom Function saving its input (the same code for both libraries)."""

    class Square(m.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            (x,) = ctx.saved_tensors
            return 2 * g * x

    return Square


@pytest.mark.parametrize(
    "change",
    [
        pytest.param(lambda x: x.add_(1), id="itself"),
        pytest.param(lambda x: x[0].mul_(2), id="through-a-view-made-after-the-save"),
        pytest.param(lambda x: x.view(-1)[1:].zero_(), id="through-a-view-of-a-view"),
        pytest.param(lambda x: None, id="unchanged"),
    ],
)
def test_saved_tensor_without_a_version_counter_yet_sees_a_later_change(
    torch: Any, change: Callable[[Any], Any]
) -> None:
    """A fresh tensor saved before anything gave it a version counter (ctxgrad makes one only
    when needed) is at version 0: a change after the save, to it or through a view made
    after it, raises torch's error at backward, with the versions; no change, no error."""
    outcomes = []
    for m in (torch, ctxgrad):
        a = leaf(m, M23)
        x = a.detach() * 1  # fresh, no history: saved as it is
        x.requires_grad_(True)
        y = _square_saving_input(m).apply(x)
        change(x.detach())
        try:
            y.sum().backward()
            outcomes.append(np.asarray(x.grad.numpy()))
        except RuntimeError as exc:
            assert str(exc).startswith(VERSION_MSG), str(exc)
            assert "is at version 1; expected version 0 instead" in str(exc), str(exc)
            outcomes.append(None)
    assert (outcomes[0] is None) == (outcomes[1] is None)
    if outcomes[0] is not None:
        np.testing.assert_allclose(outcomes[1], outcomes[0])


def test_version_error_names_the_node_and_versions() -> None:
    a = leaf(ctxgrad, [1.0, 2.0])
    y = a * 1
    z = y * y
    y.add_(1)
    with pytest.raises(RuntimeError) as info:
        z.sum().backward()
    message = str(info.value)
    assert "MulBackward0" in message
    assert "is at version 1; expected version 0 instead" in message


def test_inplace_returns_self_and_bumps_version_once() -> None:
    x = ctxgrad.zeros(3)
    for op in (
        lambda t: t.add_(1),
        lambda t: t.mul_(2),
        lambda t: t.zero_(),
        lambda t: t.fill_(2.0),
        lambda t: t.copy_(ctxgrad.ones(3)),
        lambda t: t.exp_(),
    ):
        before = x._version
        assert op(x) is x
        assert x._version == before + 1


def test_views_see_inplace_changes_of_their_base_and_share_its_version() -> None:
    x = ctxgrad.zeros(2, 3)
    row = x[1]
    col = x.t()[2]
    x.add_(1)
    x[1, 2] = 5.0
    assert row.tolist() == [1.0, 1.0, 5.0]
    assert col.tolist() == [1.0, 5.0]
    assert row._version == col._version == x._version == 2


def test_forward_mode_tangent_follows_inplace_op() -> None:
    fw = ctxgrad.autograd.forward_ad
    with fw.dual_level():
        x = fw.make_dual(ctxgrad.tensor([1.0, 2.0]), ctxgrad.tensor([1.0, 0.5]))
        y = x * 1
        y.mul_(x)
        assert fw.unpack_dual(y).tangent.tolist() == [2.0, 2.0]


def view_and_base_tangents(m: Any, write: str) -> tuple[list[float], list[float]]:
    """The tangents of a base and of its view after an in-place change of the view."""
    fw = m.autograd.forward_ad
    with fw.dual_level():
        x = fw.make_dual(m.tensor([1.0, 2.0, 3.0], dtype=m.float64), m.tensor([1.0, 0.5, 0.25], dtype=m.float64))
        base = x * 1
        view = base[1:]
        if write == "mul_":
            view.mul_(x[:2])
        else:
            view[0] = x[2] * 5
        return fw.unpack_dual(base).tangent.tolist(), fw.unpack_dual(view).tangent.tolist()


@pytest.mark.parametrize("write", ["mul_", "setitem"])
def test_forward_mode_in_place_change_of_a_view_reaches_view_and_base(write: str) -> None:
    base, view = view_and_base_tangents(ctxgrad, write)
    # d/dt of base = [x0, x1 * x0, x2 * x1] (mul_) or [x0, 5 x2, x2] (setitem), tangents [1, .5, .25]
    expected_base = [1.0, 2.5, 2.0] if write == "mul_" else [1.0, 1.25, 0.25]
    assert base == expected_base
    assert view == expected_base[1:]


@pytest.mark.parametrize("write", ["mul_", "setitem"])
def test_forward_mode_in_place_change_of_a_view_matches_torch(torch: Any, write: str) -> None:
    assert view_and_base_tangents(ctxgrad, write) == view_and_base_tangents(torch, write)


def test_a_built_in_in_place_op_is_its_function_made_in_place() -> None:
    from ctxgrad.ops.arithmetic import Mul

    y = leaf(ctxgrad, [1.0, 2.0]) * 1
    y.mul_(3.0)
    function = type(y.grad_fn)._forward_cls
    assert issubclass(function, Mul) and function is not Mul
    assert function.backward is Mul.backward and y.grad_fn.name() == "MulBackward0"


def test_write_in_place_refuses_a_setup_context_function_whether_or_not_anything_records() -> None:
    """``in_place`` needs a forward that takes ctx; the path that records nothing refuses such a
    Function the same way, rather than writing without the check."""
    from ctxgrad.autograd.inplace import write_in_place

    class Double(ctxgrad.autograd.Function):
        @staticmethod
        def forward(x: Any) -> Any:
            return x * 2

        @staticmethod
        def setup_context(ctx: Any, inputs: Any, output: Any) -> None:
            pass

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g * 2

    for records in (True, False):
        x = ctxgrad.ones(2, requires_grad=records) * 1 if records else ctxgrad.ones(2)
        with pytest.raises(TypeError, match=r"in_place\(Double\): a forward that takes ctx is needed"):
            write_in_place(Double, x)
        assert x.tolist() == [1.0, 1.0]

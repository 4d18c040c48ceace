"""Forward mode (dual tensors), the part the op library needs: levels, ``make_dual`` /
``unpack_dual``, tangents through built-in ops and through a custom Function's ``jvp``.

The per-op tangents are checked by the op test kit (``tests/_opcheck.py``) for every case
of every op family; here are the API and its errors, against torch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ctxgrad


def dual_run(m: Any, fn: Callable[[Any, Any], Any]) -> tuple[Any, Any]:
    fw = m.autograd.forward_ad
    with fw.dual_level():
        x = fw.make_dual(m.tensor([0.5, -1.0, 2.0], dtype=m.float64), m.tensor([1.0, 2.0, -1.0], dtype=m.float64))
        primal, tangent = fw.unpack_dual(fn(m, x))
        return primal.detach().numpy(), None if tangent is None else tangent.detach().numpy()


@pytest.mark.parametrize(
    "fn",
    [
        pytest.param(lambda m, x: x * x + x.exp() / (x * x + 1), id="arithmetic"),
        pytest.param(lambda m, x: (x.reshape(3, 1) @ x.reshape(1, 3)).t().sum(0), id="matmul-shape"),
        pytest.param(lambda m, x: m.where(x > 0, x.exp(), x**2).mean(), id="where-mean"),
        pytest.param(lambda m, x: x[1:] * 2 - x[:2], id="indexing"),
        pytest.param(lambda m, x: x.tanh() ** 3, id="tanh-pow"),
        pytest.param(lambda m, x: x > 0, id="comparison-has-no-tangent"),
        pytest.param(lambda m, x: x * m.tensor([1.0, 2.0, 3.0], dtype=m.float64), id="with-plain-tensor"),
    ],
)
def test_tangents_match_torch(torch: Any, fn: Callable[[Any, Any], Any]) -> None:
    c_primal, c_tangent = dual_run(ctxgrad, fn)
    t_primal, t_tangent = dual_run(torch, fn)
    np.testing.assert_allclose(c_primal, t_primal, rtol=1e-12)
    assert (c_tangent is None) == (t_tangent is None)
    if t_tangent is not None:
        np.testing.assert_allclose(c_tangent, t_tangent, rtol=1e-12)


def test_levels_drop_their_tangents_on_exit(torch: Any) -> None:
    for m in (ctxgrad, torch):
        fw = m.autograd.forward_ad
        with fw.dual_level():
            x = fw.make_dual(m.tensor([1.0]), m.tensor([2.0]))
            y = x * 3
            assert fw.unpack_dual(y).tangent.tolist() == [6.0]
        assert fw.unpack_dual(x).tangent is None
        assert fw.unpack_dual(y).tangent is None


def test_reverse_mode_through_a_dual_computation(torch: Any) -> None:
    """backward() through ops applied to dual tensors, and a tangent that carries a graph."""
    results = []
    for m in (ctxgrad, torch):
        fw = m.autograd.forward_ad
        a = m.tensor([0.5, 2.0], dtype=m.float64, requires_grad=True)
        with fw.dual_level():
            x = fw.make_dual(a, m.tensor([1.0, -1.0], dtype=m.float64))
            y = (x * x).sin()
            tangent = fw.unpack_dual(y).tangent
            assert tangent.requires_grad
            (y.sum() + tangent.sum()).backward()
        results.append(a.grad.numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-12)


def test_custom_function_jvp_and_save_for_forward(torch: Any) -> None:
    def make(m: Any) -> Any:
        class Cube(m.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any, scale: float) -> Any:
                ctx.save_for_forward(x)
                ctx.scale = scale
                return x * x * x * scale

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                raise AssertionError("not used")

            @staticmethod
            def jvp(ctx: Any, tx: Any, t_scale: Any) -> Any:
                assert t_scale is None
                (x,) = ctx.saved_tensors
                return 3 * x * x * tx * ctx.scale

        return Cube

    outs = []
    for m in (ctxgrad, torch):
        fw = m.autograd.forward_ad
        cube = make(m)
        with fw.dual_level():
            x = fw.make_dual(m.tensor([1.0, 2.0], dtype=m.float64), m.tensor([1.0, 0.5], dtype=m.float64))
            outs.append(fw.unpack_dual(cube.apply(x, 2.0)).tangent.numpy())
    np.testing.assert_allclose(outs[0], outs[1])
    np.testing.assert_allclose(outs[0], [6.0, 12.0])


class ScaledCube(ctxgrad.autograd.Function):
    """No jvp: forward mode derives the tangents from the backward (written in ctxgrad ops)."""

    @staticmethod
    def forward(ctx: Any, x: Any, y: Any, scale: float) -> Any:
        ctx.save_for_backward(x, y)
        ctx.scale = scale
        return x * x * x * y * scale, (x + y).argmax()

    @staticmethod
    def backward(ctx: Any, g: Any, _: Any) -> Any:
        x, y = ctx.saved_tensors
        need_x, need_y, _ = ctx.needs_input_grad
        return (
            g * 3 * x * x * y * ctx.scale if need_x else None,
            (g * x * x * x * ctx.scale).sum(0) if need_y else None,
            None,
        )


def test_custom_function_without_jvp_gets_tangents_from_its_backward(torch: Any) -> None:
    """torch raises NotImplementedError here; ctxgrad derives J v from the backward (a
    documented difference), equal to torch's tangent of the same function."""
    x0, y0 = np.array([[0.5, -1.0], [2.0, 1.5]]), np.array([1.0, -2.0])
    tx, ty = np.array([[1.0, 0.5], [-1.0, 2.0]]), np.array([0.25, 1.0])
    fw = ctxgrad.autograd.forward_ad
    with fw.dual_level():
        x = fw.make_dual(ctxgrad.tensor(x0), ctxgrad.tensor(tx))
        y = fw.make_dual(ctxgrad.tensor(y0), ctxgrad.tensor(ty))
        out, index = ScaledCube.apply(x, y, 2.0)
        tangent = fw.unpack_dual(out).tangent
        assert fw.unpack_dual(index).tangent is None
    _, expected = torch.func.jvp(
        lambda a, b: a**3 * b * 2.0, (torch.tensor(x0), torch.tensor(y0)), (torch.tensor(tx), torch.tensor(ty))
    )
    np.testing.assert_allclose(tangent.numpy(), expected.numpy(), rtol=1e-12)


def test_derived_tangents_respect_inputs_without_requires_grad() -> None:
    """The backward is asked for the inputs that have tangents, whatever their requires_grad."""
    fw = ctxgrad.autograd.forward_ad
    with fw.dual_level():
        x = fw.make_dual(ctxgrad.tensor([1.0, 2.0]), ctxgrad.tensor([1.0, 1.0]))
        y = ctxgrad.tensor([3.0, 4.0], requires_grad=True)  # no tangent: contributes nothing
        out, _ = ScaledCube.apply(x, y, 1.0)
        assert fw.unpack_dual(out).tangent.tolist() == [9.0, 48.0]  # 3 x^2 y


@pytest.mark.parametrize("kind", ["once_differentiable", "numpy-backward"])
def test_no_jvp_and_a_backward_that_cannot_be_differentiated_raises(torch: Any, kind: str) -> None:
    """torch raises NotImplementedError for any Function without jvp; ctxgrad raises the same
    type only when it cannot derive the tangents, and says what to add."""
    if kind == "once_differentiable":

        class Twice(ctxgrad.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                return x * 2

            @staticmethod
            @ctxgrad.autograd.once_differentiable
            def backward(ctx: Any, g: Any) -> Any:
                return g * 2

    else:

        class Twice(ctxgrad.autograd.Function):  # type: ignore[no-redef]
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                return x * 2

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                return ctxgrad.tensor(g.detach().numpy() * 2)

    fw = ctxgrad.autograd.forward_ad
    with fw.dual_level(), pytest.raises(NotImplementedError) as info:
        Twice.apply(fw.make_dual(ctxgrad.tensor([1.0]), ctxgrad.tensor([1.0])))
    message = str(info.value)
    assert message.startswith("Twice has no jvp, and its backward cannot be differentiated")
    assert "staticmethod jvp(ctx, *tangents)" in message


def test_jvp_returning_the_wrong_shape_names_the_function() -> None:
    class BadJvp(ctxgrad.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            return x * 2

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            return g * 2

        @staticmethod
        def jvp(ctx: Any, t: Any) -> Any:
            return t.sum()

    fw = ctxgrad.autograd.forward_ad
    with fw.dual_level(), pytest.raises(RuntimeError) as info:
        BadJvp.apply(fw.make_dual(ctxgrad.tensor([1.0, 2.0]), ctxgrad.tensor([1.0, 1.0])))
    assert str(info.value) == (
        "function BadJvp.jvp returned an invalid tangent at index 0 - got [] but expected shape compatible with [2]"
    )


def test_nested_levels_give_second_directional_derivatives() -> None:
    """Forward over forward (torch does not support nested forward AD): the outer tangent of
    the inner tangent of f(x) = sum(sin x e^x) is v1' H v2, with H = diag(2 cos x e^x)."""
    x0, v1, v2 = np.array([0.5, 1.5]), np.array([1.0, -1.0]), np.array([2.0, 1.0])
    fw = ctxgrad.autograd.forward_ad
    with fw.dual_level():
        x = fw.make_dual(ctxgrad.tensor(x0), ctxgrad.tensor(v1))
        with fw.dual_level():
            xx = fw.make_dual(x, ctxgrad.tensor(v2))
            y = (xx.sin() * xx.exp()).sum()
            inner = fw.unpack_dual(y).tangent
        outer = fw.unpack_dual(inner).tangent
    first = np.exp(x0) * (np.sin(x0) + np.cos(x0))
    np.testing.assert_allclose(float(inner), (first * v2).sum(), rtol=1e-12)
    np.testing.assert_allclose(float(outer), (v1 * 2 * np.cos(x0) * np.exp(x0) * v2).sum(), rtol=1e-12)


def test_forward_over_reverse_gives_a_hessian_vector_product(torch: Any) -> None:
    results = []
    for m in (ctxgrad, torch):
        fw = m.autograd.forward_ad
        a = m.tensor([0.5, 1.5, -1.0], dtype=m.float64, requires_grad=True)
        with fw.dual_level():
            x = fw.make_dual(a, m.tensor([1.0, 0.0, 2.0], dtype=m.float64))
            (g,) = m.autograd.grad((x * x * x.tanh()).sum(), x, create_graph=True)
            results.append(fw.unpack_dual(g).tangent.detach().numpy())
    np.testing.assert_allclose(results[0], results[1], rtol=1e-12)


@pytest.mark.parametrize(
    ("fn", "exc", "message"),
    [
        pytest.param(
            lambda m: m.autograd.forward_ad.make_dual(m.ones(2), m.ones(2)),
            RuntimeError,
            "Trying to create a dual Tensor for forward AD but no level exists, make sure to enter_dual_level() first.",
            id="no-level",
        ),
    ],
)
def test_errors_outside_a_level_match_torch(
    torch: Any, fn: Callable[[Any], Any], exc: type[BaseException], message: str
) -> None:
    for m in (torch, ctxgrad):
        with pytest.raises(exc) as info:
            fn(m)
        assert str(info.value) == message


@pytest.mark.parametrize(
    ("tangent", "exc", "message"),
    [
        pytest.param(
            lambda m: m.ones(3),
            RuntimeError,
            "Trying to set a forward gradient that has a different size than that of the original Tensor, "
            "this is not supported. Tensor is of size [2] while the given forward gradient is of size [3].",
            id="wrong-size",
        ),
        pytest.param(
            lambda m: m.ones(2, dtype=m.int64),
            ValueError,
            "Expected tangent to be floating point or complex, but got: LIB.int64",
            id="int-tangent",
        ),
    ],
)
def test_make_dual_errors_match_torch(
    torch: Any, tangent: Callable[[Any], Any], exc: type[BaseException], message: str
) -> None:
    for m in (torch, ctxgrad):
        fw = m.autograd.forward_ad
        with fw.dual_level(), pytest.raises(exc) as info:
            fw.make_dual(m.ones(2), tangent(m))
        assert str(info.value) == message.replace("LIB", m.__name__)


def test_mark_dirty_and_setup_context_styles_match_torch(torch: Any) -> None:
    """An in-place custom Function (mark_dirty; its jvp updates the input's tangent in place,
    as torch requires) and a setup_context-style Function with two outputs."""

    def make(m: Any) -> tuple[Any, Any]:
        class ScaleInPlace(m.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                x.mul_(3)
                ctx.mark_dirty(x)
                return x

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                return g * 3

            @staticmethod
            def jvp(ctx: Any, tx: Any) -> Any:
                return tx.mul_(3)

        class SinCos(m.autograd.Function):
            @staticmethod
            def forward(x: Any) -> Any:
                return x.sin(), x.cos()

            @staticmethod
            def setup_context(ctx: Any, inputs: Any, output: Any) -> None:
                (x,) = inputs
                ctx.save_for_forward(x)

            @staticmethod
            def backward(ctx: Any, gs: Any, gc: Any) -> Any:
                raise AssertionError("not used")

            @staticmethod
            def jvp(ctx: Any, tx: Any) -> Any:
                (x,) = ctx.saved_tensors
                return x.cos() * tx, -x.sin() * tx

        return ScaleInPlace, SinCos

    results = []
    for m in (ctxgrad, torch):
        scale_in_place, sin_cos = make(m)
        fw = m.autograd.forward_ad
        with fw.dual_level():
            x = fw.make_dual(m.tensor([0.5, 2.0], dtype=m.float64), m.tensor([1.0, -1.0], dtype=m.float64))
            y = x * 1
            out = scale_in_place.apply(y)
            assert out is y
            s, c = sin_cos.apply(y)
            results.append([np.asarray(fw.unpack_dual(t).tangent.numpy()) for t in (y, s, c)])
    for c_t, t_t in zip(*results):
        np.testing.assert_allclose(c_t, t_t, rtol=1e-12)


@pytest.mark.parametrize("tangent_for_rounded", [False, True], ids=["none", "a-tensor"])
def test_an_output_marked_non_differentiable_gets_no_tangent(torch: Any, tangent_for_rounded: bool) -> None:
    """Its jvp must return None there (both libraries refuse a tensor)."""
    results = []
    for m in (ctxgrad, torch):

        class DoubledAndRounded(m.autograd.Function):
            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                rounded = x.round()
                ctx.mark_non_differentiable(rounded)
                return x * 2, rounded

            @staticmethod
            def backward(ctx: Any, g: Any, _: Any) -> Any:
                return g * 2

            @staticmethod
            def jvp(ctx: Any, t: Any) -> Any:
                return t * 2, (t if tangent_for_rounded else None)

        fw = m.autograd.forward_ad
        with fw.dual_level():
            x = fw.make_dual(m.tensor([0.4, 1.6]), m.tensor([1.0, 2.0]))
            if tangent_for_rounded:
                with pytest.raises(RuntimeError, match="not a differentiable Tensor"):
                    DoubledAndRounded.apply(x)
                continue
            doubled, rounded = DoubledAndRounded.apply(x)
            results.append((fw.unpack_dual(doubled).tangent.tolist(), fw.unpack_dual(rounded).tangent))
    if not tangent_for_rounded:
        assert results[0] == results[1] == ([2.0, 4.0], None)


# --------------------------------------------------------------------------- views and in-place changes
# Torch's rule: a view's tangent is a view of its base's tangent.  After an in-place change of
# the base, every view of it reads the base's new tangent; after an in-place change of a view,
# the base's tangent changes at the view's elements.  Each program takes the module and a dual
# tensor of 4 elements, and returns the tensors whose tangents are compared.


def _base_changed(m: Any, x: Any) -> list[Any]:
    y = x * 1
    v = y[1:]
    y.mul_(3)
    return [v, v * 2, y]


def _view_then_base_changed(m: Any, x: Any) -> list[Any]:
    y = x * 1
    v = y[1:]
    v += 1
    w = v * 2
    y.mul_(3)
    return [v * 2, w, v, y]


def _several_views(m: Any, x: Any) -> list[Any]:
    y = x * 1
    a, b, c = y[:2], y[1:], y[::2]
    y.add_(x * x)
    return [a, b, c, a * b[:2]]


def _view_of_a_view(m: Any, x: Any) -> list[Any]:
    y = x * 1
    v = y[1:]
    u = v[1:]
    y.mul_(x)
    first = u * 1
    u.mul_(2)
    return [first, u, v, y]


def _one_view_changed_then_another_read(m: Any, x: Any) -> list[Any]:
    y = x * 1
    a, b = y[:3], y[1:]
    a.mul_(x[1:])
    after_a = b * 1
    b.add_(x[:3] ** 2)
    return [after_a, a, b, y]


def _setitem_on_the_base(m: Any, x: Any) -> list[Any]:
    y = x * 1
    v = y[1:]
    y[0] = x[3] * 5
    y[1:3] = x[:2] ** 2
    return [v, y]


def _setitem_on_a_view(m: Any, x: Any) -> list[Any]:
    y = x * 1
    a, b = y[:2], y[1:]
    a[1] = x[0] * 7
    return [b, y]


def _copy_into_the_base(m: Any, x: Any) -> list[Any]:
    y = x * 1
    v = y[::2]
    y.copy_(x.exp())
    return [v, v.sum()]


def _transposed_views(m: Any, x: Any) -> list[Any]:
    y = x.reshape(2, 2) * 1
    t = y.t()
    d = y.diagonal()
    y.mul_(x.reshape(2, 2))
    return [t, d, t @ y]


def _base_without_a_tangent_gets_one(m: Any, x: Any) -> list[Any]:
    y = m.ones(4, dtype=m.float64)
    v = y[1:]
    y.add_(x * 2)
    return [v]


@pytest.mark.parametrize(
    "program",
    [
        _base_changed,
        _view_then_base_changed,
        _several_views,
        _view_of_a_view,
        _one_view_changed_then_another_read,
        _setitem_on_the_base,
        _setitem_on_a_view,
        _copy_into_the_base,
        _transposed_views,
        _base_without_a_tangent_gets_one,
    ],
)
def test_a_view_reads_its_base_tangent_after_in_place_changes_as_in_torch(
    torch: Any, program: Callable[[Any, Any], list[Any]]
) -> None:
    def run(m: Any) -> list[tuple[Any, Any]]:
        fw = m.autograd.forward_ad
        with fw.dual_level():
            x = fw.make_dual(
                m.tensor([1.0, 2.0, 3.0, 4.0], dtype=m.float64), m.tensor([1.0, -2.0, 0.5, 3.0], dtype=m.float64)
            )
            out = []
            for r in program(m, x):
                primal, tangent = fw.unpack_dual(r)
                out.append((primal.detach().numpy().copy(), None if tangent is None else tangent.numpy().copy()))
            return out

    for (c_primal, c_tangent), (t_primal, t_tangent) in zip(run(ctxgrad), run(torch), strict=True):
        np.testing.assert_allclose(c_primal, t_primal, rtol=1e-12)
        assert c_tangent is not None and t_tangent is not None
        np.testing.assert_allclose(c_tangent, t_tangent, rtol=1e-12)


def test_the_smallest_case_by_hand() -> None:
    """y = x * 1; v = y[1:]; y.mul_(3): v's tangent is 3 times x's (it was x's before the fix)."""
    fw = ctxgrad.autograd.forward_ad
    with fw.dual_level():
        x = fw.make_dual(ctxgrad.tensor([1.0, 2.0, 3.0]), ctxgrad.tensor([1.0, 2.0, 4.0]))
        y = x * 1
        v = y[1:]
        y.mul_(3)
        assert fw.unpack_dual(v).tangent.tolist() == [6.0, 12.0]
        assert fw.unpack_dual(v * 2).tangent.tolist() == [12.0, 24.0]


def test_a_dual_view_keeps_its_tangent_when_its_plain_base_changes(torch: Any) -> None:
    """make_dual's result is a view of a base without a tangent: a change of that base leaves
    the view's own tangent (there is no base tangent to take it from), as in torch."""
    for m in (ctxgrad, torch):
        fw = m.autograd.forward_ad
        x = m.tensor([1.0, 2.0, 3.0])
        with fw.dual_level():
            d = fw.make_dual(x, m.tensor([1.0, 1.0, 1.0]))
            x.mul_(2)
            assert fw.unpack_dual(x).tangent is None
            assert fw.unpack_dual(d).tangent.tolist() == [1.0, 1.0, 1.0]
            assert fw.unpack_dual(d * 1).primal.tolist() == [2.0, 4.0, 6.0]


def _writes_through_views(m: Any, x: Any) -> Any:
    y = x * 1
    v = y[1:]
    u = v[1:]
    v += 1
    w = v * 2
    y.mul_(x)
    y[0] = x[3] * 5
    return m.cat([v * 2, w, u, y.exp()])


def test_jacfwd_agrees_with_jacrev_and_with_torch_func(torch: Any) -> None:
    x = np.array([1.0, 2.0, 3.0, 4.0])
    c_fwd = ctxgrad.func.jacfwd(lambda t: _writes_through_views(ctxgrad, t))(ctxgrad.tensor(x))
    c_rev = ctxgrad.func.jacrev(lambda t: _writes_through_views(ctxgrad, t))(ctxgrad.tensor(x))
    t_fwd = torch.func.jacfwd(lambda t: _writes_through_views(torch, t))(torch.tensor(x))
    np.testing.assert_allclose(c_fwd.numpy(), c_rev.numpy(), rtol=1e-12)
    np.testing.assert_allclose(c_fwd.numpy(), t_fwd.numpy(), rtol=1e-12)


def test_jvp_and_vmapped_jvp_match_torch_func(torch: Any) -> None:
    x = np.arange(1.0, 9.0).reshape(2, 4)
    t = np.array([[1.0, 0.5, -1.0, 2.0], [0.0, 1.0, 3.0, -0.5]])

    def run(m: Any) -> tuple[Any, Any]:
        f = lambda a: _writes_through_views(m, a)  # noqa: E731
        _, single = m.func.jvp(f, (m.tensor(x[0]),), (m.tensor(t[0]),))
        batched = m.func.vmap(lambda a, b: m.func.jvp(f, (a,), (b,))[1])(m.tensor(x), m.tensor(t))
        return single.numpy(), batched.numpy()

    for c, expected in zip(run(ctxgrad), run(torch), strict=True):
        np.testing.assert_allclose(c, expected, rtol=1e-12)


@pytest.mark.parametrize(
    "write",
    [
        pytest.param(lambda y, x: y.mul_(x), id="mul_"),
        pytest.param(lambda y, x: y.div_(x + 5), id="div_"),
        pytest.param(lambda y, x: y.pow_(3), id="pow_"),
        pytest.param(lambda y, x: y.sin_(), id="sin_"),
        pytest.param(lambda y, x: y[1:].mul_(x[:3]), id="mul_-of-a-view"),
    ],
)
def test_forward_over_reverse_through_an_in_place_op_matches_torch(torch: Any, write: Any) -> None:
    """The old values an in-place op saves for backward keep their tangents: jacfwd(jacrev(f))
    is the Hessian (it lost the old values' share before)."""

    def hessians(m: Any) -> tuple[Any, Any]:
        def f(x: Any) -> Any:
            y = x * x
            write(y, x)
            return (y * x).sum()

        x = m.tensor([0.5, 1.0, 1.5, 2.0], dtype=m.float64)
        return m.func.jacfwd(m.func.jacrev(f))(x).numpy(), m.func.jacrev(m.func.jacrev(f))(x).numpy()

    fwd_rev, rev_rev = hessians(ctxgrad)
    expected, _ = hessians(torch)
    np.testing.assert_allclose(fwd_rev, expected, rtol=1e-10)
    np.testing.assert_allclose(rev_rev, expected, rtol=1e-10)

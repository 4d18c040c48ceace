"""Forward mode under ``ctxgrad.func`` against ``torch.func``: in-place writes through views
of a ``jvp``'s primals, and custom Functions with ``generate_vmap_rule = True`` and a
``jvp`` of their own under ``vmap``, ``jacfwd`` and ``hessian``."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import ctxgrad

torch = pytest.importorskip("torch")
torch_func = pytest.importorskip("torch.func")


def _close(got: Any, want: Any) -> None:
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want)
        for g, w in zip(got, want):
            _close(g, w)
        return
    assert tuple(got.shape) == tuple(want.shape)
    np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-6, atol=1e-7)


def _both(program: Any) -> None:
    _close(program(ctxgrad, ctxgrad.func), program(torch, torch_func))


# ----------------------------------------------------------------------------- views
def _copy_into_view(lib: Any, b: Any, y: Any) -> Any:
    b[1:3].copy_(y)
    return b * 1


def _mul_into_strided_view(lib: Any, b: Any, y: Any) -> Any:
    b[::2].mul_(y)
    return b.exp()


def _write_into_view_of_view(lib: Any, b: Any, y: Any) -> Any:
    v = b[1:]
    v[:2].add_(y * y)
    return b.sin()


@pytest.mark.parametrize("body", [_copy_into_view, _mul_into_strided_view, _write_into_view_of_view])
def test_a_write_into_a_view_of_a_primal_keeps_the_rest_of_its_tangent_as_torch(body: Any) -> None:
    b0, y0 = np.array([1.0, 2.0, 3.0, 4.0]), np.array([5.0, -6.0])

    def program(lib: Any, fn: Any) -> Any:
        def f(b: Any, y: Any) -> Any:
            return body(lib, b, y)

        b, y = lib.tensor(b0), lib.tensor(y0)
        tb, ty = lib.tensor([1.0, 2.0, 3.0, 4.0]), lib.tensor([0.5, 0.25])
        batch_b, batch_y = lib.tensor(np.stack([b0, 2 * b0])), lib.tensor(np.stack([y0, y0]))
        per_sample = fn.vmap(lambda p, q, tp, tq: fn.jvp(f, (p.clone(), q), (tp, tq))[1])(
            batch_b, batch_y, lib.stack([tb, -tb]), lib.stack([ty, ty * 3])
        )
        b_jac = lib.tensor(b0)  # (jacfwd writes into its input, as torch does)
        jac = fn.jacfwd(f)(b_jac, y)
        return (*fn.jvp(f, (b.clone(), y), (tb, ty)), per_sample, jac, b_jac)

    _both(program)


def test_jacfwd_of_a_copy_into_a_view_of_an_input_as_torch() -> None:
    def program(lib: Any, fn: Any) -> Any:
        b = lib.tensor([1.0, 2.0, 3.0, 4.0])
        return (*fn.jacfwd(lambda b, y: _copy_into_view(lib, b, y), argnums=(0, 1))(b, lib.tensor([5.0, 6.0])), b)

    _both(program)


def test_plain_forward_ad_keeps_a_dual_tensors_tangent_outside_the_written_view_as_torch() -> None:
    def program(lib: Any, fn: Any) -> Any:
        fw = lib.autograd.forward_ad
        primal = lib.tensor([1.0, 2.0, 3.0, 4.0])
        with fw.dual_level():
            dual = fw.make_dual(primal, lib.tensor([1.0, 2.0, 3.0, 4.0]))
            dual[1:3].copy_(fw.make_dual(lib.tensor([5.0, 6.0]), lib.tensor([7.0, 8.0])))
            got = fw.unpack_dual(dual)
            other = fw.make_dual(lib.tensor([1.0, 2.0]), lib.tensor([3.0, 4.0]))
            other.mul_(2)
            return got.primal, got.tangent, fw.unpack_dual(other).tangent, primal

    _both(program)
    fw = ctxgrad.autograd.forward_ad
    primal = ctxgrad.tensor([1.0, 2.0])
    with fw.dual_level():
        fw.make_dual(primal, ctxgrad.ones(2)).mul_(2)
        assert fw.unpack_dual(primal).tangent is None  # (torch: the primal itself has no tangent)


def test_an_in_place_write_into_an_input_of_a_reverse_transform_raises_as_torch() -> None:
    for body, message in [
        (lambda x: x.mul_(2).sum(), "a leaf Variable that requires grad is being used in an in-place operation."),
        (lambda x: x[::2].mul_(2).sum(), "a view of a leaf Variable that requires grad is being used in an in-place"),
    ]:
        for lib, fn in ((ctxgrad, ctxgrad.func), (torch, torch_func)):
            with pytest.raises(RuntimeError, match=message):
                fn.grad(body)(lib.ones(2))


# ----------------------------------------------------------------------------- custom jvp
def _sin_function(lib: Any, scale: float, ctx_first: bool) -> Any:
    """sin with a backward and a jvp ``scale`` times its derivative: a result that ignored
    the jvp (or the backward) would show."""
    if ctx_first:

        class ScaledSinCtx(lib.autograd.Function):
            generate_vmap_rule = True

            @staticmethod
            def forward(ctx: Any, x: Any) -> Any:
                ctx.save_for_backward(x)
                ctx.save_for_forward(x)
                return x.sin()

            @staticmethod
            def backward(ctx: Any, g: Any) -> Any:
                (x,) = ctx.saved_tensors
                return g * scale * x.cos()

            @staticmethod
            def jvp(ctx: Any, t: Any) -> Any:
                (x,) = ctx.saved_tensors
                return t * scale * x.cos()

        return ScaledSinCtx

    class ScaledSin(lib.autograd.Function):
        generate_vmap_rule = True

        @staticmethod
        def forward(x: Any) -> Any:
            return x.sin()

        @staticmethod
        def setup_context(ctx: Any, inputs: Any, output: Any) -> None:
            ctx.save_for_backward(inputs[0])
            ctx.save_for_forward(inputs[0])

        @staticmethod
        def backward(ctx: Any, g: Any) -> Any:
            (x,) = ctx.saved_tensors
            return g * scale * x.cos()

        @staticmethod
        def jvp(ctx: Any, t: Any) -> Any:
            (x,) = ctx.saved_tensors
            return t * scale * x.cos()

    return ScaledSin


@pytest.mark.parametrize("ctx_first", [False, True])
@pytest.mark.parametrize("scale", [1.0, 3.0])
def test_a_generated_vmap_rule_runs_the_functions_own_jvp_as_torch(scale: float, ctx_first: bool) -> None:
    x0 = np.array([0.3, 0.7, -1.1])

    def program(lib: Any, fn: Any) -> Any:
        # (torch refuses a ctx-first Function in its transforms; ctxgrad runs both styles,
        # docs/differences.md: the ctx-first one is checked against torch's setup_context one)
        f = _sin_function(lib, scale, ctx_first and lib is ctxgrad).apply
        x, batch = lib.tensor(x0), lib.tensor(np.stack([x0, 2 * x0]))
        return (
            fn.jacfwd(f)(x),
            fn.vmap(lambda p, t: fn.jvp(f, (p,), (t,))[1])(batch, lib.ones(2, 3)),
            fn.jvp(fn.vmap(f), (batch,), (lib.ones(2, 3),))[1],
            fn.vmap(fn.vmap(lambda p: fn.jvp(f, (p,), (p,))[1]))(batch.reshape(2, 3, 1)),
            fn.hessian(lambda v: f(v).sum())(x),
            fn.jacrev(f)(x),
        )

    _both(program)


def test_a_per_sample_write_into_an_unbatched_primal_raises_as_torch() -> None:
    """Torch refuses the write itself; ctxgrad computes each sample apart and refuses when it
    would have to put several samples' values into the one primal (the primal is unchanged)."""

    def program(lib: Any, fn: Any, primal: Any) -> Any:
        def per_sample(y: Any) -> Any:
            return fn.jvp(lambda b: b.mul_(y) * 1, (primal,), (lib.ones(3),))[1]

        return fn.vmap(per_sample)(lib.tensor([[2.0, 2.0, 2.0], [3.0, 3.0, 3.0]]))

    messages = {}
    for lib, fn in ((ctxgrad, ctxgrad.func), (torch, torch_func)):
        primal = lib.tensor([1.0, 2.0, 3.0])
        with pytest.raises(RuntimeError) as err:
            program(lib, fn, primal)
        np.testing.assert_array_equal(primal.numpy(), [1.0, 2.0, 3.0])
        messages[lib.__name__] = str(err.value)
    assert "not possible because there exists a Tensor `other` in extra_args" in messages["torch"]
    assert "changed a primal in place with values that differ per sample" in messages["ctxgrad"]


def test_jacfwd_of_a_write_of_one_input_into_another_as_torch() -> None:
    def program(lib: Any, fn: Any) -> Any:
        def body(b: Any, y: Any) -> Any:
            b[::2].mul_(y)
            return b.exp()

        b = lib.tensor([1.0, 2.0, 3.0, 4.0])
        return (*fn.jacfwd(body, argnums=(0, 1))(b, lib.tensor([0.5, -0.7])), b)

    _both(program)

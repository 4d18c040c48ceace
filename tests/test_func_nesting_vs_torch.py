"""``ctxgrad.func`` transforms against ``torch.func`` where the code around a transform decides
what it returns: ``no_grad`` around an inner transform, a ``vjp_fn`` made outside the
transform that calls it, tensors closed over that require grad (MAML), ``inference_mode``,
and repeated ``argnums``.  Each program runs on both libraries with the same inputs."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import ctxgrad

torch = pytest.importorskip("torch")
torch_func = pytest.importorskip("torch.func")


def _run(program: Any) -> tuple[Any, Any]:
    return program(ctxgrad, ctxgrad.func), program(torch, torch_func)


def _close(got: Any, want: Any) -> None:
    if isinstance(want, (tuple, list)):
        assert isinstance(got, (tuple, list)) and len(got) == len(want)
        for g, w in zip(got, want):
            _close(g, w)
    elif isinstance(want, torch.Tensor):
        assert tuple(got.shape) == tuple(want.shape)
        assert got.requires_grad == want.requires_grad
        np.testing.assert_allclose(got.detach().numpy(), want.detach().numpy(), rtol=1e-6, atol=1e-6)
    else:
        assert got == want


# ----------------------------------------------------------------------------- no_grad
def _no_grad_nested_simple(lib: Any, fn: Any) -> Any:  # torch's test_no_grad_nested_simple
    def h(x: Any) -> Any:
        with lib.no_grad():
            shift = fn.grad(lambda x: 0.25 * x**4)(x)
        return x**3 - shift

    x = lib.tensor(1.5, requires_grad=True)
    y = fn.grad(h)(x)
    (z,) = lib.autograd.grad(y, x)
    return y, z


def _no_grad_nested_complicated(lib: Any, fn: Any) -> Any:  # torch's test_no_grad_nested_complicated
    def f(x: Any, y: Any) -> Any:
        with lib.no_grad():
            shift = x**3
        return x**3 - shift + y

    def g(x: Any) -> Any:
        with lib.no_grad():
            shift = fn.grad(f)(x, x)
        return x**3 - shift

    x = lib.tensor(1.5, requires_grad=True)
    y = fn.grad(g)(x)
    (z,) = lib.autograd.grad(y, x)
    return y, z


def _grad_and_value_under_no_grad(lib: Any, fn: Any) -> Any:
    def g(x: Any) -> Any:
        with lib.no_grad():
            slope, value = fn.grad_and_value(lambda z: z**3)(x)
        return slope * x + value

    return fn.grad(g)(lib.tensor(1.5))


def _no_grad_outside(lib: Any, fn: Any) -> Any:  # torch's test_no_grad_outside
    x = lib.tensor(0.7, requires_grad=True)
    with lib.no_grad():
        y = fn.grad(lib.sin)(x)
    return y


def _no_grad_inside(lib: Any, fn: Any) -> Any:  # torch's test_no_grad_inside
    def f(x: Any) -> Any:
        with lib.no_grad():
            shift = x**2
        return x**2 - shift

    x = lib.tensor(0.8, requires_grad=True)
    y = fn.grad(f)(x)
    (z,) = lib.autograd.grad(y, x)
    return fn.grad(f)(lib.tensor(0.8)), fn.grad(fn.grad(f))(lib.tensor(0.8)), z


@pytest.mark.parametrize(
    "program",
    [
        _no_grad_nested_simple,
        _no_grad_nested_complicated,
        _grad_and_value_under_no_grad,
        _no_grad_outside,
        _no_grad_inside,
    ],
)
def test_no_grad_around_a_transform_as_torch(program: Any) -> None:
    got, want = _run(program)
    _close(got, want)


def test_the_outer_gradient_through_a_no_grad_inner_grad_is_torchs_value() -> None:
    got, want = _run(_no_grad_nested_simple)
    assert float(want[0].detach()) == pytest.approx(6.75)
    assert float(got[0]) == pytest.approx(6.75)


# ----------------------------------------------------------------------------- vjp_fn
def _vjp_fn_made_outside(lib: Any, fn: Any) -> Any:
    _, vjp_fn = fn.vjp(lib.sin, lib.tensor([0.5, -1.2]))
    return (
        fn.grad(lambda t: vjp_fn(t)[0].sum())(lib.tensor([1.0, 2.0])),
        fn.jacrev(lambda t: vjp_fn(t * t)[0])(lib.tensor([1.0, 2.0])),
        fn.vmap(lambda t: vjp_fn(t)[0])(lib.tensor([[1.0, 2.0], [3.0, 4.0]])),
    )


def test_grad_through_a_vjp_fn_made_outside_the_transform_as_torch() -> None:
    got, want = _run(_vjp_fn_made_outside)
    _close(got, want)
    np.testing.assert_allclose(got[0].numpy(), np.cos([0.5, -1.2]), rtol=1e-6)


# ----------------------------------------------------------------------------- argnums
@pytest.mark.parametrize("transform", ["grad", "grad_and_value", "jacrev", "jacfwd"])
@pytest.mark.parametrize("argnums", [(0, 0), (0, -2), (1, 1, 0)])
def test_repeated_argnums_raise_as_torch(transform: str, argnums: tuple[int, ...]) -> None:
    messages = []
    for lib, fn in ((ctxgrad, ctxgrad.func), (torch, torch_func)):
        with pytest.raises(RuntimeError) as err:
            getattr(fn, transform)(lambda a, b: (a * b).sum(), argnums=argnums)(lib.ones(2), lib.ones(2))
        messages.append(str(err.value))
    assert messages[0] == messages[1]
    assert "argnums elements must be unique" in messages[0]


# ----------------------------------------------------------------------------- closed over
def _maml(lib: Any, fn: Any) -> Any:
    """A MAML step: the inner loop adapts with ``grad`` of a loss that closes over the
    meta-parameters; the outer loss's ``backward`` reaches them through the adapted ones."""
    meta = lib.tensor([0.3, -0.8, 0.5], requires_grad=True)
    scale = lib.tensor(1.5, requires_grad=True)
    xs = lib.tensor([[0.5, 1.5, -1.0], [1.0, 2.0, 0.5]])
    ys = lib.tensor([0.7, -0.3])

    def inner_loss(p: Any) -> Any:
        return ((xs @ p - ys) ** 2).mean() + scale * (p - meta).pow(2).sum()

    p = meta
    for _ in range(2):
        p = p - 0.1 * fn.grad(inner_loss)(p)
    outer = ((xs @ p - ys) ** 2).mean()
    outer.backward()
    return p, meta.grad, scale.grad


def _closed_over(lib: Any, fn: Any) -> Any:
    w = lib.tensor([1.0, -2.0], requires_grad=True)
    x = lib.tensor([0.5, 1.5])
    g = fn.grad(lambda p: (p * w * p).sum())(x)
    jr = fn.jacrev(lambda p: p * w * p)(x)
    jf = fn.jacfwd(lambda p: p * w * p)(x)
    vg = fn.vmap(fn.grad(lambda p: (p * w * p).sum()))(lib.stack([x, x * 2]))
    h = fn.hessian(lambda p: (p * w * p * p).sum())(x)
    primal, tangent = fn.jvp(lambda p: p * w * p, (x,), (lib.ones(2),))
    out, vjp_fn = fn.vjp(lambda p: p * w * p, x)
    total = g.sum() + jr.sum() + jf.sum() + vg.sum() + h.sum() + tangent.sum() + vjp_fn(lib.ones(2))[0].sum()
    (dw,) = lib.autograd.grad(total + out.sum() + primal.sum(), w)
    not_closed = fn.grad(lambda p: (p * x * p).sum())(x)
    return g, jr, jf, vg, h, tangent, dw, not_closed


def _vmap_maml(lib: Any, fn: Any) -> Any:
    w = lib.tensor([1.0, -2.0], requires_grad=True)
    tasks = lib.tensor([[0.5, 1.5], [1.0, 2.0], [3.0, -1.0]])

    def task(x: Any) -> Any:
        def loss(p: Any) -> Any:
            return ((p * x).sum() - 1.0) ** 2

        p = w
        for _ in range(2):
            p = p - 0.1 * fn.grad(loss)(p)
        return loss(p)

    fn.vmap(task)(tasks).sum().backward()
    return w.grad


@pytest.mark.parametrize("program", [_maml, _closed_over, _vmap_maml])
def test_a_closed_over_tensor_that_requires_grad_keeps_its_gradient_as_torch(program: Any) -> None:
    got, want = _run(program)
    _close(got, want)


def test_a_gradient_that_does_not_depend_on_a_closed_over_tensor_has_no_history() -> None:
    w = ctxgrad.tensor([1.0, -2.0], requires_grad=True)
    x = ctxgrad.tensor([0.5, 1.5])
    g = ctxgrad.func.grad(lambda p: (p * p).sum() + w.sum())(x)
    assert g.grad_fn is None and not g.requires_grad
    np.testing.assert_allclose(g.numpy(), [1.0, 3.0])


# ----------------------------------------------------------------------------- inference
def _under_inference_mode(lib: Any, fn: Any) -> Any:
    w = lib.tensor([1.0, -2.0], requires_grad=True)
    outside = lib.tensor([0.25, 0.5])
    with lib.inference_mode():
        x = lib.tensor([1.0, 2.0])
        made_inside = lib.tensor([3.0, 4.0])
        results = [
            fn.grad(lambda v: (v**2 * made_inside).sum())(x),
            fn.vjp(lib.sin, x)[1](lib.ones(2))[0],
            *fn.jvp(lib.sin, (x,), (lib.ones(2),)),
            fn.jacrev(lib.sin)(x),
            fn.jacfwd(lib.sin)(x),
            fn.hessian(lambda v: (v**3).sum())(x),
            fn.vmap(fn.grad(lambda v: (v**2).sum()))(lib.ones(2, 2)),
            fn.grad(lambda v: ((v * w).sum()) ** 2)(x),
        ]
        vmapped = fn.vmap(lambda v: v * 2)(lib.ones(2, 2))
    results.append(fn.grad(lambda v: (v * made_inside).sum())(outside))
    results.append(fn.grad(lambda v: (v**2).sum())(made_inside))
    flags = [r.is_inference() for r in results] + [vmapped.is_inference()]
    return results, flags


def test_transforms_under_inference_mode_as_torch() -> None:
    got, want = _run(_under_inference_mode)
    _close(got, want)


# ----------------------------------------------------------------------------- compositions
def _aux_closed_over(lib: Any, fn: Any) -> Any:
    w = lib.tensor([1.0, -2.0], requires_grad=True)
    out, vjp_fn, aux = fn.vjp(lambda p: ((p * p).sum(), p * w), lib.tensor([0.5, 1.5]), has_aux=True)
    g, aux2 = fn.grad(lambda p: ((p * p).sum(), p * w), has_aux=True)(lib.tensor([0.5, 1.5]))
    return out, aux, vjp_fn(lib.tensor(1.0))[0], g, aux2


def _second_order_closed_over(lib: Any, fn: Any) -> Any:
    w = lib.tensor(2.0, requires_grad=True)
    x = lib.tensor([0.5, 1.5])

    def f(z: Any) -> Any:
        return (z**3 * w).sum()

    per_sample = fn.vmap(fn.jacrev(lambda p: p * w * p))(lib.stack([x, x * 2]))
    results = (
        fn.hessian(f)(x),
        fn.jacfwd(fn.jacrev(f))(x),
        fn.jacrev(fn.jacfwd(f))(x),
        fn.jacrev(fn.jacrev(lambda p: p * w * p * p))(x).sum(0),
        per_sample,
    )
    (dw,) = lib.autograd.grad(sum(r.sum() for r in results), w)
    return (*results, dw)


def _forward_mode_ignores_no_grad(lib: Any, fn: Any) -> Any:
    x = lib.tensor([0.5, 1.5])
    w = lib.tensor(2.0, requires_grad=True)

    def f(z: Any) -> Any:
        with lib.no_grad():
            return fn.grad(lambda y: (y**3).sum())(z)

    with lib.no_grad():
        quiet = fn.jvp(lambda z: z * w, (x,), (lib.ones(2),))
    return (*fn.jvp(f, (x,), (lib.ones(2),)), *fn.jvp(lambda z: z * w, (x,), (lib.ones(2),)), *quiet)


def _transforms_of_transforms(lib: Any, fn: Any) -> Any:
    x = lib.tensor([0.5, 1.5])

    def inner_vjp(z: Any) -> Any:
        _, vjp_fn = fn.vjp(lib.sin, z)
        return vjp_fn(lib.ones(2))[0].sum()

    _, cube_vjp = fn.vjp(lambda z: z**3, x)
    return (
        fn.grad(lambda z: fn.grad(lambda y: (y**3).sum())(z).sum())(x),
        fn.grad(inner_vjp)(x),
        fn.jacrev(lambda t: cube_vjp(t)[0])(lib.ones(2)),
        fn.vmap(lambda t: cube_vjp(t)[0])(lib.eye(2)),
    )


@pytest.mark.parametrize(
    "program", [_aux_closed_over, _second_order_closed_over, _forward_mode_ignores_no_grad, _transforms_of_transforms]
)
def test_compositions_keep_what_outer_code_differentiates_as_torch(program: Any) -> None:
    got, want = _run(program)
    _close(got, want)

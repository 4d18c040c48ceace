"""What ``ctxgrad.func`` refuses inside a function it transforms, against ``torch.func``: setting
``requires_grad_()``, ``retain_grad()``, saved-tensor hooks under ``grad``/``vjp`` (and what
each allows: the ``requires_grad`` setter, factories with ``requires_grad=True``, hooks under
``vmap`` and ``jvp``); and the custom Functions ctxgrad transforms where torch refuses them
(docs/differences.md §11 and §23): the answers are the ones torch gives for the same Function
written the way torch accepts.  Every program runs on both libraries."""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ctxgrad

torch = pytest.importorskip("torch")
pytest.importorskip("torch.func")

LIBS = (ctxgrad, torch)


def _outcome(program: Callable[[Any], Any], lib: Any) -> Any:
    """What ``program(lib)`` gives: its values as arrays, or the type and message it raised."""
    try:
        result = program(lib)
    except Exception as exc:  # the refusal is the answer being compared
        return (type(exc).__name__, str(exc))
    return _arrays(result)


def _arrays(result: Any) -> Any:
    if isinstance(result, (tuple, list)):
        return tuple(_arrays(r) for r in result)
    if isinstance(result, (ctxgrad.Tensor, torch.Tensor)):
        return result.detach().numpy()
    return result


def _same(got: Any, want: Any) -> None:
    if isinstance(want, tuple) and want and isinstance(want[0], str):
        assert got == want
    elif isinstance(want, tuple):
        assert isinstance(got, tuple) and len(got) == len(want)
        for g, w in zip(got, want):
            _same(g, w)
    elif isinstance(want, np.ndarray):
        assert isinstance(got, np.ndarray), got
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)
    else:
        assert got == want


def _as_torch(program: Callable[[Any], Any]) -> Any:
    got, want = (_outcome(program, lib) for lib in LIBS)
    _same(got, want)
    return want


def _refused(want: Any, words: str) -> None:
    assert isinstance(want, tuple) and want[0] == "RuntimeError" and words in want[1], want


_REQUIRES_GRAD = "You are attempting to call Tensor.requires_grad_()"
_RETAIN_GRAD = "You are attempting to call Tensor.retain_grad()"
_HOOKS = "don't yet support saved tensor hooks"


def _x(lib: Any) -> Any:
    return lib.tensor([0.5, 1.0, 2.0])


# Each transform, called on a function of one input that returns a tensor.
TRANSFORMS: dict[str, Callable[[Any, Callable[[Any], Any], Any], Any]] = {
    "grad": lambda lib, f, x: lib.func.grad(lambda v: f(v).sum())(x),
    "vjp": lambda lib, f, x: lib.func.vjp(f, x)[1](lib.ones(3)),
    "jvp": lambda lib, f, x: lib.func.jvp(f, (x,), (lib.ones(3),)),
    "vmap": lambda lib, f, x: lib.func.vmap(f)(x),
    "jacrev": lambda lib, f, x: lib.func.jacrev(f)(x),
    "jacfwd": lambda lib, f, x: lib.func.jacfwd(f)(x),
}


# ----------------------------------------------------------------------------- requires_grad_
@pytest.mark.parametrize("transform", sorted(TRANSFORMS))
@pytest.mark.parametrize("flag", [True, False])
def test_requires_grad_inside_a_transform_is_refused_as_torch(transform: str, flag: bool) -> None:
    def program(lib: Any) -> Any:
        def f(v: Any) -> Any:
            v.requires_grad_(flag)
            return v.sin()

        return TRANSFORMS[transform](lib, f, _x(lib))

    _refused(_as_torch(program), _REQUIRES_GRAD)


@pytest.mark.parametrize("transform", ["grad", "vmap"])
def test_requires_grad_of_a_tensor_made_or_closed_over_inside_is_refused_as_torch(transform: str) -> None:
    def made_inside(lib: Any) -> Any:
        return TRANSFORMS[transform](lib, lambda v: v * lib.ones(3).requires_grad_(), _x(lib))

    def detached(lib: Any) -> Any:
        return TRANSFORMS[transform](lib, lambda v: v * v.detach().requires_grad_(), _x(lib))

    _refused(_as_torch(made_inside), _REQUIRES_GRAD)
    _refused(_as_torch(detached), _REQUIRES_GRAD)


@pytest.mark.parametrize("transform", ["grad", "vmap"])
def test_the_functional_api_inside_a_transform_is_refused_as_torch(transform: str) -> None:
    # It sets requires_grad_ on its inputs; the message names it.  (ctxgrad gave zeros here.)
    def program(lib: Any) -> Any:
        jacobian = importlib.import_module(f"{lib.__name__}.autograd.functional").jacobian
        return TRANSFORMS[transform](lib, lambda v: jacobian(lambda u: u.sin(), v).sum(-1), _x(lib))

    want = _as_torch(program)
    _refused(want, _REQUIRES_GRAD)
    assert "autograd.functional" in want[1]


def test_what_a_transform_allows_gives_torch_values() -> None:
    # The setter, factories with requires_grad=True, a Parameter and a Linear made inside.
    def setter(lib: Any) -> Any:
        def f(v: Any) -> Any:
            v.requires_grad = True
            return (v * v).sum()

        return lib.func.grad(f)(_x(lib))

    def factory(lib: Any) -> Any:
        return lib.func.grad(lambda v: (v * lib.full((3,), 3.0, requires_grad=True)).sum())(_x(lib))

    def parameter(lib: Any) -> Any:
        return lib.func.grad(lambda v: (v * lib.nn.Parameter(lib.full((3,), 2.0))).sum())(_x(lib))

    for program in (setter, factory, parameter):
        want = _as_torch(program)
        assert isinstance(want, np.ndarray)


def test_requires_grad_outside_a_transform_after_a_refusal_still_works() -> None:
    for lib in LIBS:
        with pytest.raises(RuntimeError, match=r"Tensor\.requires_grad_\(\)"):
            lib.func.grad(lambda v: v.requires_grad_().sum())(_x(lib))
        x = _x(lib).requires_grad_()
        (x * x).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), [1.0, 2.0, 4.0])


def _recomputing_sin(lib: Any) -> Any:
    """sin, whose backward recomputes it on a detached copy that it sets to require grad."""

    def forward(x: Any) -> Any:
        return x.sin()

    def setup_context(ctx: Any, inputs: Any, output: Any) -> None:
        ctx.save_for_backward(inputs[0])

    def backward(ctx: Any, g: Any) -> Any:
        (x,) = ctx.saved_tensors
        with lib.enable_grad():
            at = x.detach().requires_grad_()
            return lib.autograd.grad(at.sin(), at, g)[0]

    body = {"forward": forward, "setup_context": setup_context, "backward": backward}
    return type("RecomputingSin", (lib.autograd.Function,), {k: staticmethod(v) for k, v in body.items()})


def test_a_backward_that_sets_requires_grad_runs_in_a_vjp_fn_called_outside_and_is_refused_in_grad() -> None:
    # torch runs grad's backward inside the transform, and a vjp_fn called later outside it.
    def vjp_fn_outside(lib: Any) -> Any:
        _, vjp_fn = lib.func.vjp(_recomputing_sin(lib).apply, _x(lib))
        return vjp_fn(lib.ones(3))

    def in_grad(lib: Any) -> Any:
        return lib.func.grad(lambda v: _recomputing_sin(lib).apply(v).sum())(_x(lib))

    np.testing.assert_allclose(_as_torch(vjp_fn_outside)[0], np.cos([0.5, 1.0, 2.0]), rtol=1e-6)
    _refused(_as_torch(in_grad), _REQUIRES_GRAD)


# ----------------------------------------------------------------------------- retain_grad
@pytest.mark.parametrize("transform", sorted(TRANSFORMS))
@pytest.mark.parametrize("which", ["input", "intermediate"])
def test_retain_grad_inside_a_transform_as_torch(transform: str, which: str) -> None:
    # Refused where the tensor requires grad (grad, vjp, jacrev); elsewhere torch's own
    # "requires_grad=False" error comes first.
    def program(lib: Any) -> Any:
        def f(v: Any) -> Any:
            y = v.sin()
            (v if which == "input" else y).retain_grad()
            return y

        return TRANSFORMS[transform](lib, f, _x(lib))

    want = _as_torch(program)
    if transform in ("grad", "vjp", "jacrev"):
        _refused(want, _RETAIN_GRAD)
    else:
        assert want == ("RuntimeError", "can't retain_grad on Tensor that has requires_grad=False")


# ----------------------------------------------------------------------------- saved-tensor hooks
def _with_hooks(lib: Any, f: Callable[[Any], Any]) -> Callable[[Any], Any]:
    def hooked(v: Any) -> Any:
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            return f(v)

    return hooked


@pytest.mark.parametrize("transform", sorted(TRANSFORMS))
def test_saved_tensor_hooks_inside_a_transform_as_torch(transform: str) -> None:
    # Refused by the reverse-mode transforms (grad, vjp, jacrev); vmap, jvp and jacfwd keep them.
    def program(lib: Any) -> Any:
        return TRANSFORMS[transform](lib, _with_hooks(lib, lambda v: v.sin() * v), _x(lib))

    want = _as_torch(program)
    if transform in ("grad", "vjp", "jacrev"):
        assert want == (
            "RuntimeError",
            "torch.func.{grad, vjp, jacrev, hessian} don't yet support saved tensor hooks. Please open an issue "
            "with your use case.",
        )
    else:
        assert not (isinstance(want, tuple) and isinstance(want[0], str)), want


@pytest.mark.parametrize("transform", sorted(TRANSFORMS))
def test_a_transform_inside_saved_tensor_hooks_as_torch(transform: str) -> None:
    def program(lib: Any) -> Any:
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            return TRANSFORMS[transform](lib, lambda v: v.sin() * v, _x(lib))

    want = _as_torch(program)
    if transform in ("grad", "vjp", "jacrev"):
        _refused(want, _HOOKS)


def test_hessian_checkpoint_and_save_on_cpu_are_refused_under_grad_as_torch() -> None:
    def hessian(lib: Any) -> Any:
        return lib.func.hessian(_with_hooks(lib, lambda v: (v.sin() * v).sum()))(_x(lib))

    def checkpointed(lib: Any) -> Any:
        checkpoint = importlib.import_module(f"{lib.__name__}.utils.checkpoint").checkpoint
        return lib.func.grad(lambda v: checkpoint(lambda u: u.sin() * u, v, use_reentrant=False).sum())(_x(lib))

    def on_cpu(lib: Any) -> Any:
        def f(v: Any) -> Any:
            with lib.autograd.graph.save_on_cpu():
                return (v.sin() * v).sum()

        return lib.func.grad(f)(_x(lib))

    for program in (hessian, checkpointed, on_cpu):
        _refused(_as_torch(program), _HOOKS)


def test_a_vjp_fn_runs_under_saved_tensor_hooks_and_hooks_work_after_a_refusal() -> None:
    def program(lib: Any) -> Any:
        _, vjp_fn = lib.func.vjp(lambda v: v.sin() * v, _x(lib))
        with lib.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
            (g,) = vjp_fn(lib.ones(3))
        with pytest.raises(RuntimeError, match="saved tensor hooks"):
            lib.func.grad(_with_hooks(lib, lambda v: (v * v).sum()))(_x(lib))
        packed: list[Any] = []
        x = _x(lib).requires_grad_()
        with lib.autograd.graph.saved_tensors_hooks(lambda t: packed.append(t) or t, lambda t: t):
            y = (x * x).sum()
        y.backward()
        return g, x.grad, len(packed) > 0, lib.func.grad(lambda v: (v * v).sum())(_x(lib))

    _as_torch(program)


def test_disabling_saved_tensor_hooks_while_they_are_on_raises_as_torch() -> None:
    def program(lib: Any) -> Any:
        graph = lib.autograd.graph
        with graph.saved_tensors_hooks(lambda t: t, lambda t: t), graph.disable_saved_tensors_hooks("not here"):
            return lib.ones(1)

    assert _as_torch(program) == ("RuntimeError", "not here")


# ----------------------------------------------------------------------------- custom Functions
def _cube(lib: Any, ctx_first: bool) -> Any:
    """x ** 3, with a backward and a jvp of its own: in torch's accepted style
    (``setup_context``) or in the ctx-first style torch refuses under transforms."""

    def backward(ctx: Any, g: Any) -> Any:
        (x,) = ctx.saved_tensors
        return 3 * x**2 * g

    def jvp(ctx: Any, t: Any) -> Any:
        (x,) = ctx.saved_tensors
        return 3 * x**2 * t

    if ctx_first:

        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            ctx.save_for_forward(x)
            return x**3

        body = {"forward": staticmethod(forward)}
    else:

        def forward_only(x: Any) -> Any:
            return x**3

        def setup_context(ctx: Any, inputs: Any, output: Any) -> None:
            ctx.save_for_backward(inputs[0])
            ctx.save_for_forward(inputs[0])

        body = {"forward": staticmethod(forward_only), "setup_context": staticmethod(setup_context)}
    body.update(backward=staticmethod(backward), jvp=staticmethod(jvp), generate_vmap_rule=True)
    return type("Cube", (lib.autograd.Function,), body)


@pytest.mark.parametrize("transform", sorted(TRANSFORMS))
def test_a_ctx_first_function_under_a_transform_gives_what_torch_gives_with_setup_context(transform: str) -> None:
    # torch refuses the ctx-first style under every transform; ctxgrad runs it (§23), with the
    # answers torch gives for the same Function written with setup_context.
    def program(lib: Any, ctx_first: bool) -> Any:
        return _arrays(TRANSFORMS[transform](lib, _cube(lib, ctx_first).apply, _x(lib)))

    with pytest.raises(RuntimeError, match="it must override the setup_context staticmethod"):
        program(torch, True)
    _same(program(ctxgrad, True), program(torch, False))
    _same(program(ctxgrad, False), program(torch, False))


def _returns_input(lib: Any, save: str, workaround: bool) -> Any:
    """The identity, saving its input (or output) for a backward and a jvp that scale by it;
    with ``workaround``, as torch asks: returning and saving a view of the input instead."""

    def forward(x: Any) -> Any:
        return x.view_as(x) if workaround else x

    def setup_context(ctx: Any, inputs: Any, output: Any) -> None:
        kept = output if save == "output" or workaround else inputs[0]
        ctx.save_for_backward(kept)
        ctx.save_for_forward(kept)

    def backward(ctx: Any, g: Any) -> Any:
        (kept,) = ctx.saved_tensors
        return g * kept

    def jvp(ctx: Any, t: Any) -> Any:
        (kept,) = ctx.saved_tensors
        return t * kept

    body = {
        "forward": staticmethod(forward),
        "setup_context": staticmethod(setup_context),
        "backward": staticmethod(backward),
        "jvp": staticmethod(jvp),
        "generate_vmap_rule": True,
    }
    return type("Identity", (lib.autograd.Function,), body)


@pytest.mark.parametrize("save", ["input", "output"])
@pytest.mark.parametrize("transform", ["grad", "vjp", "jvp", "jacrev", "jacfwd"])
def test_a_function_that_returns_and_saves_its_input_gives_torch_values_of_the_view_workaround(
    save: str, transform: str
) -> None:
    # torch refuses an input returned as-is and saved (§11); ctxgrad runs it, with the values
    # torch gives when the Function returns and saves x.view_as(x) instead.
    def program(lib: Any, workaround: bool) -> Any:
        identity = _returns_input(lib, save, workaround)
        return _arrays(TRANSFORMS[transform](lib, lambda v: identity.apply(v.clone()), _x(lib)))

    with pytest.raises(RuntimeError, match="returned as-is as output is being saved"):
        program(torch, False)
    _same(program(ctxgrad, False), program(torch, True))

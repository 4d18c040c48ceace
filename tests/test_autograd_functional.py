"""ctxgrad.autograd.functional: jacobian, hessian, vjp, jvp, hvp, vhp.

Each function of a table is written once against a library module (``ctxgrad`` or ``torch``)
and run through both libraries' functional API on the same inputs: values, output structure,
``requires_grad`` of the results and exceptions are compared.  A few are checked against NumPy
central differences without torch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ctxgrad
from ctxgrad.autograd import Function, once_differentiable
from ctxgrad.autograd import functional as F

RNG_SEED = 20261122


# --------------------------------------------------------------------------- helpers
def _arrays(shapes: Any, seed: int = 0) -> Any:
    """Arrays of the given shape(s) (a shape, or a tuple of shapes), away from 0."""
    rng = np.random.default_rng(RNG_SEED + seed)

    def one(shape: tuple[int, ...]) -> np.ndarray:
        return rng.uniform(0.5, 1.5, size=shape) * rng.choice([-1.0, 1.0], size=shape)

    if shapes and isinstance(shapes[0], tuple):
        return tuple(one(s) for s in shapes)
    return one(shapes)


def _tensors(lib: Any, arrays: Any, requires_grad: bool = False) -> Any:
    if isinstance(arrays, tuple):
        return tuple(_tensors(lib, a, requires_grad) for a in arrays)
    return lib.tensor(arrays, dtype=lib.float64, requires_grad=requires_grad)


def _assert_same(ours: Any, theirs: Any, path: str = "result") -> None:
    """Same nesting of tuples, same shapes, values and requires_grad."""
    if isinstance(theirs, (tuple, list)):
        assert isinstance(ours, tuple), f"{path}: expected a tuple, got {type(ours).__name__}"
        assert len(ours) == len(theirs), f"{path}: length {len(ours)} != {len(theirs)}"
        for k, (a, b) in enumerate(zip(ours, theirs)):
            _assert_same(a, b, f"{path}[{k}]")
        return
    assert isinstance(ours, ctxgrad.Tensor), f"{path}: expected a Tensor, got {type(ours).__name__}"
    assert tuple(ours.shape) == tuple(theirs.shape), f"{path}: shape {tuple(ours.shape)} != {tuple(theirs.shape)}"
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-10, atol=1e-12, err_msg=path)
    assert ours.requires_grad == theirs.requires_grad, f"{path}: requires_grad differs"


def _raised(fn: Callable[[], Any]) -> tuple[type[BaseException], str]:
    try:
        fn()
    except Exception as exc:
        return type(exc), str(exc).replace("torch.", "LIB.").replace("ctxgrad.", "LIB.")
    raise AssertionError("no exception raised")


def _same_error(ours: Callable[[], Any], theirs: Callable[[], Any]) -> None:
    our_type, our_message = _raised(ours)
    their_type, their_message = _raised(theirs)
    assert issubclass(our_type, their_type), f"{our_type.__name__} is not a {their_type.__name__}"
    assert our_message == their_message


# --------------------------------------------------------------------------- custom Functions
def _cube_function(lib: Any, with_jvp: bool) -> Any:
    """x ** 3 as a custom Function, its backward in differentiable ops."""

    class Cube(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            ctx.save_for_forward(x)
            return x**3

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            (x,) = ctx.saved_tensors
            return grad * 3 * x**2

    if with_jvp:

        def jvp(ctx: Any, tangent: Any) -> Any:
            (x,) = ctx.saved_tensors
            return tangent * 3 * x**2

        Cube.jvp = staticmethod(jvp)
    return Cube


def _mul_add_function(lib: Any) -> Any:
    """(x * y, x + y): a custom Function with two inputs and two outputs."""

    class MulAdd(lib.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any, y: Any) -> Any:
            ctx.save_for_backward(x, y)
            return x * y, x + y

        @staticmethod
        def backward(ctx: Any, g_mul: Any, g_add: Any) -> Any:
            x, y = ctx.saved_tensors
            return g_mul * y + g_add, g_mul * x + g_add

    return MulAdd


# --------------------------------------------------------------------------- the table
# name -> (make(lib) -> func, input shape(s), output is a single element)
def _pointwise(lib: Any) -> Any:
    return lambda x: (x.sin() * x.exp() + x.tanh() ** 2) / (1 + x * x)


def _reduction(lib: Any) -> Any:
    return lambda x: (x.exp().sum(dim=1), x.pow(2).mean(), x.prod())


def _matmul(lib: Any) -> Any:
    w = lib.tensor([[1.0, -2.0, 0.5], [0.25, 1.5, -1.0]], dtype=lib.float64)
    return lambda x, y: ((x @ w).tanh() @ y, (x * x).sum())


def _indexing(lib: Any) -> Any:
    index = lib.tensor([2, 0])
    return lambda x: (x[1:, ::2] * x[0, index].unsqueeze(1), x[:, 1].gather(0, lib.tensor([1, 1, 0])))


def _scalar_pointwise(lib: Any) -> Any:
    return lambda x: (x.sin() * x.cos().exp() + x**4).sum()


def _scalar_two_inputs(lib: Any) -> Any:
    return lambda x, y: ((x @ y).tanh() * x.sum() + (y**3).sum() / (1 + (x * x).sum())).sum()


def _scalar_indexing(lib: Any) -> Any:
    return lambda x: (x[1:] * x[:-1]).sum() + x[lib.tensor([0, 0, 2])].pow(3).sum()


def _custom_cube(lib: Any) -> Any:
    cube = _cube_function(lib, with_jvp=True)
    return lambda x: cube.apply(x).sin()


def _custom_cube_no_jvp(lib: Any) -> Any:
    cube = _cube_function(lib, with_jvp=False)
    return lambda x: cube.apply(x) * 2


def _custom_two_in_two_out(lib: Any) -> Any:
    mul_add = _mul_add_function(lib)
    return lambda x, y: mul_add.apply(x.exp(), y)


def _custom_scalar(lib: Any) -> Any:
    cube = _cube_function(lib, with_jvp=False)
    mul_add = _mul_add_function(lib)
    return lambda x, y: (cube.apply(x) * mul_add.apply(x, y)[0]).sum()


def _independent_input(lib: Any) -> Any:
    return lambda x, y: (x**2, x.sum() * 3)


CASES: dict[str, tuple[Callable[[Any], Any], Any]] = {
    "pointwise": (_pointwise, (3,)),
    "reduction": (_reduction, (2, 3)),
    "matmul": (_matmul, ((2, 2), (3,))),
    "indexing": (_indexing, (3, 3)),
    "custom_with_jvp": (_custom_cube, (2, 2)),
    "custom_without_jvp": (_custom_cube_no_jvp, (3,)),
    "custom_two_in_two_out": (_custom_two_in_two_out, ((2,), (2,))),
    "independent_input": (_independent_input, ((3,), (2,))),
}
SCALAR_CASES: dict[str, tuple[Callable[[Any], Any], Any]] = {
    "scalar_pointwise": (_scalar_pointwise, (2, 2)),
    "scalar_two_inputs": (_scalar_two_inputs, ((2, 3), (3,))),
    "scalar_indexing": (_scalar_indexing, (4,)),
    "scalar_custom": (_custom_scalar, ((3,), (3,))),
}
ALL_CASES = {**CASES, **SCALAR_CASES}


def _both(torch: Any, name: str, call: Callable[[Any, Any, Any], Any], requires_grad: bool = False) -> None:
    """Run ``call(functional module, func, inputs)`` with both libraries and compare."""
    make, shapes = ALL_CASES[name]
    arrays = _arrays(shapes)
    ours = call(F, make(ctxgrad), _tensors(ctxgrad, arrays, requires_grad))
    theirs = call(torch.autograd.functional, make(torch), _tensors(torch, arrays, requires_grad))
    _assert_same(ours, theirs)


def _v_like(lib: Any, reference: Any, seed: int = 7) -> Any:
    """A vector with the structure and shapes of ``reference`` (tensors or tuples of them)."""
    if isinstance(reference, tuple):
        return tuple(_v_like(lib, r, seed + k) for k, r in enumerate(reference))
    return _tensors(lib, _arrays(tuple(reference.shape), seed))


# --------------------------------------------------------------------------- jacobian
@pytest.mark.parametrize("name", list(ALL_CASES))
@pytest.mark.parametrize("strategy", ["reverse-mode", "forward-mode"])
def test_jacobian_matches_torch(torch: Any, name: str, strategy: str) -> None:
    # Our forward mode is compared with torch's reverse mode: torch's forward mode needs
    # vectorize=True, a jvp on every custom Function, ops that vmap supports, and returns
    # lists where its docs promise tuples.
    _both(
        torch,
        name,
        lambda fn, f, x: fn.jacobian(f, x, strategy=strategy if fn is F else "reverse-mode"),
    )


@pytest.mark.parametrize("name", ["pointwise", "matmul", "custom_two_in_two_out", "scalar_two_inputs"])
def test_jacobian_vectorize_gives_the_unvectorized_result(torch: Any, name: str) -> None:
    _both(torch, name, lambda fn, f, x: fn.jacobian(f, x, vectorize=True))


@pytest.mark.parametrize("name", ["pointwise", "matmul", "independent_input", "custom_with_jvp"])
def test_jacobian_create_graph_matches_torch(torch: Any, name: str) -> None:
    _both(torch, name, lambda fn, f, x: fn.jacobian(f, x, create_graph=True), requires_grad=True)


def test_jacobian_create_graph_can_be_differentiated_again(torch: Any) -> None:
    def second(lib: Any, fn: Any) -> Any:
        x = lib.tensor([0.3, -0.7, 1.1], dtype=lib.float64, requires_grad=True)
        jac = fn.jacobian(lambda t: t.sin() * t.sum(), x, create_graph=True)
        return lib.autograd.grad((jac * jac).sum(), x)

    _assert_same(second(ctxgrad, F), second(torch, torch.autograd.functional))


def test_jacobian_without_create_graph_is_detached() -> None:
    x = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    jac = F.jacobian(lambda t: t * t, x)
    assert not jac.requires_grad and jac.grad_fn is None


def test_jacobian_of_independent_output_is_zeros_without_strict() -> None:
    # torch returns zeros here too, silently: zeros are the right value, strict=True says so loudly.
    jx, jy = F.jacobian(lambda x, y: x * 2, (ctxgrad.ones(2), ctxgrad.ones(3)))
    np.testing.assert_array_equal(jy.numpy(), np.zeros((2, 3)))
    np.testing.assert_array_equal(jx.numpy(), 2 * np.eye(2))


@pytest.mark.parametrize("strategy", ["reverse-mode", "forward-mode"])
def test_jacobian_forward_mode_keeps_output_dtype(strategy: str) -> None:
    x = ctxgrad.tensor([1.0, 2.0], dtype=ctxgrad.float32)
    jac = F.jacobian(lambda t: t.to(ctxgrad.float64) * 3, x, strategy=strategy)  # type: ignore[arg-type]
    assert jac.dtype == (ctxgrad.float64 if strategy == "forward-mode" else ctxgrad.float32)


# --------------------------------------------------------------------------- hessian
@pytest.mark.parametrize("name", list(SCALAR_CASES))
@pytest.mark.parametrize("strategy", ["reverse-mode", "forward-mode"])
def test_hessian_matches_torch(torch: Any, name: str, strategy: str) -> None:
    # As for jacobian, our forward-over-reverse is compared with torch's reverse-over-reverse
    # (torch's forward-mode result also keeps a graph although create_graph=False).
    _both(
        torch,
        name,
        lambda fn, f, x: fn.hessian(f, x, outer_jacobian_strategy=strategy if fn is F else "reverse-mode"),
    )


@pytest.mark.parametrize("name", ["scalar_pointwise", "scalar_two_inputs"])
def test_hessian_create_graph_matches_torch(torch: Any, name: str) -> None:
    _both(torch, name, lambda fn, f, x: fn.hessian(f, x, create_graph=True), requires_grad=True)


def test_hessian_create_graph_can_be_differentiated_again(torch: Any) -> None:
    def third(lib: Any, fn: Any) -> Any:
        x = lib.tensor([0.3, -0.7], dtype=lib.float64, requires_grad=True)
        h = fn.hessian(lambda t: (t.exp() * t.sum()).sum(), x, create_graph=True)
        return lib.autograd.grad(h.sum(), x)

    _assert_same(third(ctxgrad, F), third(torch, torch.autograd.functional))


# --------------------------------------------------------------------------- vjp, jvp, vhp, hvp
@pytest.mark.parametrize("name", list(ALL_CASES))
@pytest.mark.parametrize("create_graph", [False, True])
def test_vjp_matches_torch(torch: Any, name: str, create_graph: bool) -> None:
    def call(fn: Any, f: Any, x: Any) -> Any:
        lib = ctxgrad if fn is F else torch
        out = f(*x) if isinstance(x, tuple) else f(x)
        if fn is F and name == "independent_input":
            # the same zeros as torch, and a warning where torch says nothing
            with pytest.warns(UserWarning, match="vjp: the result does not depend on input 1, so its entry is zeros"):
                return fn.vjp(f, x, _v_like(lib, out), create_graph=create_graph)
        return fn.vjp(f, x, _v_like(lib, out), create_graph=create_graph)

    _both(torch, name, call, requires_grad=create_graph)


@pytest.mark.parametrize("name", list(ALL_CASES))
@pytest.mark.parametrize("create_graph", [False, True])
def test_jvp_matches_torch(torch: Any, name: str, create_graph: bool) -> None:
    def call(fn: Any, f: Any, x: Any) -> Any:
        lib = ctxgrad if fn is F else torch
        return fn.jvp(f, x, _v_like(lib, x), create_graph=create_graph)

    _both(torch, name, call, requires_grad=create_graph)


@pytest.mark.parametrize("name", list(SCALAR_CASES))
@pytest.mark.parametrize("which", ["vhp", "hvp"])
@pytest.mark.parametrize("create_graph", [False, True])
def test_vhp_and_hvp_match_torch(torch: Any, name: str, which: str, create_graph: bool) -> None:
    def call(fn: Any, f: Any, x: Any) -> Any:
        lib = ctxgrad if fn is F else torch
        return getattr(fn, which)(f, x, _v_like(lib, x), create_graph=create_graph)

    _both(torch, name, call, requires_grad=create_graph)


@pytest.mark.parametrize("which", ["vjp", "jvp", "vhp", "hvp"])
def test_v_may_be_omitted_for_one_element(torch: Any, which: str) -> None:
    def call(lib: Any, fn: Any) -> Any:
        x = lib.tensor([0.7], dtype=lib.float64)
        return getattr(fn, which)(lambda t: (t.exp() * t).sum(), x)

    _assert_same(call(ctxgrad, F), call(torch, torch.autograd.functional))


@pytest.mark.parametrize("which", ["vjp", "jvp", "vhp", "hvp"])
def test_products_with_create_graph_can_be_differentiated_again(torch: Any, which: str) -> None:
    def call(lib: Any, fn: Any) -> Any:
        x = lib.tensor([0.3, -0.7, 1.1], dtype=lib.float64, requires_grad=True)
        v = lib.tensor([1.0, 0.5, -2.0], dtype=lib.float64)
        f = (lambda t: (t.sin() * t.sum()).sum()) if which in ("vhp", "hvp") else (lambda t: t.sin() * t.sum())
        _, product = getattr(fn, which)(f, x, v, create_graph=True)
        return lib.autograd.grad((product * product).sum(), x)

    _assert_same(call(ctxgrad, F), call(torch, torch.autograd.functional))


def test_grad_mode_off_outside_is_respected() -> None:
    x = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    with ctxgrad.no_grad():
        out, product = F.vjp(lambda t: t * t, x, ctxgrad.ones(2))
    np.testing.assert_array_equal(product.numpy(), [2.0, 4.0])
    assert not out.requires_grad and not product.requires_grad


# --------------------------------------------------------------------------- strict mode
def _strict_calls(lib: Any, fn: Any) -> dict[str, Callable[[], Any]]:
    def x() -> Any:
        return lib.tensor([1.0, 2.0], dtype=lib.float64)

    def y() -> Any:
        return lib.tensor([3.0, 4.0], dtype=lib.float64)

    ones = lib.ones(2, dtype=lib.float64)
    return {
        "jacobian_independent": lambda: fn.jacobian(lambda a, b: a * 2, (x(), y()), strict=True),
        "jacobian_constant_output": lambda: fn.jacobian(lambda a: ones, x(), strict=True),
        "jacobian_create_graph_linear": lambda: fn.jacobian(lambda a: a * 2, x(), strict=True, create_graph=True),
        "jacobian_forward_strict": lambda: fn.jacobian(lambda a: a, x(), strict=True, strategy="forward-mode"),
        "vjp_independent": lambda: fn.vjp(lambda a, b: a * 2, (x(), y()), (ones,), strict=True),
        "vjp_constant_output": lambda: fn.vjp(lambda a: ones, x(), ones, strict=True),
        "jvp_independent": lambda: fn.jvp(lambda a, b: a * 2, (x(), y()), (ones, ones), strict=True),
        "jvp_constant_output": lambda: fn.jvp(lambda a: ones, x(), ones, strict=True),
        "hessian_quadratic_create_graph": lambda: fn.hessian(
            lambda a: (a * a).sum(), x(), strict=True, create_graph=True
        ),
        "vhp_quadratic_create_graph": lambda: fn.vhp(
            lambda a: (a * a).sum(), x(), ones, strict=True, create_graph=True
        ),
        "hvp_quadratic_create_graph": lambda: fn.hvp(
            lambda a: (a * a).sum(), x(), ones, strict=True, create_graph=True
        ),
        "hessian_linear": lambda: fn.hessian(lambda a: (a * 2).sum(), x(), strict=True),
        "hessian_independent": lambda: fn.hessian(lambda a, b: (a**3).sum(), (x(), y()), strict=True),
        "vhp_linear": lambda: fn.vhp(lambda a: (a * 2).sum(), x(), ones, strict=True),
        "vhp_independent_second_input": lambda: fn.vhp(
            lambda a, b: (a**3).sum() + (b * 2).sum(), (x(), y()), (ones, ones), strict=True
        ),
        "hvp_linear": lambda: fn.hvp(lambda a: (a * 2).sum(), x(), ones, strict=True),
        "hvp_independent_second_input": lambda: fn.hvp(
            lambda a, b: (a**3).sum() + (b * 2).sum(), (x(), y()), (ones, ones), strict=True
        ),
    }


@pytest.mark.parametrize("case", list(_strict_calls(ctxgrad, F)))
def test_strict_errors_match_torch(torch: Any, case: str) -> None:
    _same_error(_strict_calls(ctxgrad, F)[case], _strict_calls(torch, torch.autograd.functional)[case])


def test_strict_passes_when_every_derivative_exists(torch: Any) -> None:
    def call(lib: Any, fn: Any) -> Any:
        x = lib.tensor([0.5, 1.5], dtype=lib.float64)
        return fn.hessian(lambda a: (a**3).prod(), x, strict=True)

    _assert_same(call(ctxgrad, F), call(torch, torch.autograd.functional))


def test_strict_with_vectorize_refuses_as_torch(torch: Any) -> None:
    for lib, fn in ((ctxgrad, F), (torch, torch.autograd.functional)):
        ones = (lib.ones(2), lib.ones(2))
        for call in (
            lambda: fn.jacobian(lambda a, b: a * 2, ones, strict=True, vectorize=True),  # noqa: B023
            lambda: fn.hessian(lambda a, b: (a * b).sum(), ones, strict=True, vectorize=True),  # noqa: B023
        ):
            with pytest.raises(RuntimeError, match="`strict=True` and `vectorized=True` are not supported together"):
                call()


@pytest.mark.parametrize("strategy", ["reverse-mode", "forward-mode"])
def test_vectorize_gives_the_same_blocks_as_torch(torch: Any, strategy: str) -> None:
    x, y = np.random.default_rng(0).standard_normal((2, 3))

    def call(lib: Any, fn: Any, vectorize: bool) -> Any:
        def f(a: Any, b: Any) -> Any:
            return (a.sin() * b).sum(), a * b.exp()

        def g(a: Any, b: Any) -> Any:
            return (a.sin() * b.exp() ** 2).sum()

        ins = (lib.tensor(x), lib.tensor(y))
        return (
            fn.jacobian(f, ins, vectorize=vectorize, strategy=strategy),
            fn.hessian(g, ins, vectorize=vectorize, outer_jacobian_strategy=strategy),
        )

    theirs = call(torch, torch.autograd.functional, True)
    for vectorize in (False, True):
        ours = call(ctxgrad, F, vectorize)
        for k in range(2):
            for i in range(2):
                for j in range(2):
                    np.testing.assert_allclose(ours[k][i][j].numpy(), theirs[k][i][j].detach().numpy(), rtol=1e-12)


# --------------------------------------------------------------------------- bad inputs
def _bad_calls(lib: Any, fn: Any) -> dict[str, Callable[[], Any]]:
    def x() -> Any:
        return lib.tensor([1.0, 2.0], dtype=lib.float64)

    return {
        "jacobian_non_tensor_input": lambda: fn.jacobian(lambda a: a, 3.0),
        "jacobian_non_tensor_in_tuple": lambda: fn.jacobian(lambda a, b: a, (x(), [1.0])),
        "jacobian_returns_float": lambda: fn.jacobian(lambda a: 1.0, x()),
        "jacobian_returns_tuple_with_int": lambda: fn.jacobian(lambda a: (a, 3), x()),
        "jacobian_vectorized_returns_tuple_with_str": lambda: fn.jacobian(lambda a: (a, "bar"), x(), vectorize=True),
        "jacobian_bad_strategy": lambda: fn.jacobian(lambda a: a, x(), strategy="sideways"),
        "jacobian_forward_create_graph": lambda: fn.jacobian(
            lambda a: a, x(), create_graph=True, strategy="forward-mode", vectorize=True
        ),
        "vjp_non_tensor_input": lambda: fn.vjp(lambda a: a, [x()], x()),
        "vjp_v_wrong_shape": lambda: fn.vjp(lambda a: a * 2, x(), lib.ones(3, dtype=lib.float64)),
        "vjp_v_tuple_wrong_length": lambda: fn.vjp(lambda a: (a, a), x(), (x(),)),
        "vjp_v_tuple_wrong_shape": lambda: fn.vjp(lambda a: (a, a.sum()), x(), (x(), x())),
        "vjp_v_single_for_tuple_output": lambda: fn.vjp(lambda a: a * 2, x(), (x(), x())),
        "vjp_v_non_tensor": lambda: fn.vjp(lambda a: a * 2, x(), 1.0),
        "vjp_v_missing": lambda: fn.vjp(lambda a: a * 2, x()),
        "vjp_returns_list": lambda: fn.vjp(lambda a: [a], x(), x()),
        "jvp_v_wrong_shape": lambda: fn.jvp(lambda a: a * 2, x(), lib.ones(3, dtype=lib.float64)),
        "jvp_v_missing": lambda: fn.jvp(lambda a: a * 2, x()),
        "jvp_returns_none": lambda: fn.jvp(lambda a: None, x(), x()),
        "hessian_non_scalar": lambda: fn.hessian(lambda a: a * 2, x()),
        "hessian_tuple_output": lambda: fn.hessian(lambda a: (a.sum(),), x()),
        "hessian_vectorized_returns_tuple_with_str": lambda: fn.hessian(
            lambda a: (a.sum(), "bar"), x(), vectorize=True
        ),
        "hessian_bad_strategy": lambda: fn.hessian(lambda a: a.sum(), x(), outer_jacobian_strategy="up"),
        "hessian_non_tensor_input": lambda: fn.hessian(lambda a: a.sum(), "x"),
        "vhp_non_scalar": lambda: fn.vhp(lambda a: a * 2, x(), x()),
        "vhp_tuple_output": lambda: fn.vhp(lambda a: (a.sum(),), x(), x()),
        "vhp_v_missing": lambda: fn.vhp(lambda a: a.sum(), x()),
        "vhp_v_tuple_wrong_length": lambda: fn.vhp(lambda a, b: a.sum(), (x(), x()), (x(),)),
        "hvp_non_scalar": lambda: fn.hvp(lambda a: a * 2, x(), x()),
        "hvp_v_wrong_shape": lambda: fn.hvp(lambda a: a.sum(), x(), lib.ones(1, 2, dtype=lib.float64)),
        "hvp_tuple_output": lambda: fn.hvp(lambda a: (a.sum(),), x(), x()),
    }


@pytest.mark.parametrize("case", list(_bad_calls(ctxgrad, F)))
def test_bad_input_errors_match_torch(torch: Any, case: str) -> None:
    _same_error(_bad_calls(ctxgrad, F)[case], _bad_calls(torch, torch.autograd.functional)[case])


def test_bad_strategy_is_also_a_value_error() -> None:
    with pytest.raises(ValueError, match='Expected strategy to be either "forward-mode" or "reverse-mode"'):
        F.jacobian(lambda a: a, ctxgrad.ones(2), strategy="sideways")  # type: ignore[arg-type]


# --------------------------------------------------------------------------- once_differentiable
class NumpyCube(Function):
    """x ** 3 with a NumPy backward: first derivatives only."""

    @staticmethod
    def forward(ctx: Any, x: ctxgrad.Tensor) -> ctxgrad.Tensor:
        ctx.save_for_backward(x)
        return x**3

    @staticmethod
    @once_differentiable
    def backward(ctx: Any, grad: ctxgrad.Tensor) -> ctxgrad.Tensor:
        (x,) = ctx.saved_tensors
        return ctxgrad.tensor(grad.numpy() * 3 * x.numpy() ** 2)


ONCE = r"trying to differentiate twice a function that was marked with @once_differentiable \(NumpyCubeBackward\)"


def test_once_differentiable_first_derivatives_work() -> None:
    x = ctxgrad.tensor([1.0, 2.0], dtype=ctxgrad.float64)
    np.testing.assert_allclose(F.jacobian(NumpyCube.apply, x).numpy(), np.diag([3.0, 12.0]))
    _, product = F.vjp(lambda t: NumpyCube.apply(t).sum(), x)
    np.testing.assert_allclose(product.numpy(), [3.0, 12.0])


@pytest.mark.parametrize(
    "call",
    [
        pytest.param(lambda x: F.hessian(lambda t: NumpyCube.apply(t).sum(), x), id="hessian"),
        pytest.param(lambda x: F.hessian(lambda t: NumpyCube.apply(t).sum(), x, create_graph=True), id="hessian-cg"),
        pytest.param(lambda x: F.hvp(lambda t: NumpyCube.apply(t).sum(), x, x), id="hvp"),
        pytest.param(lambda x: F.vhp(lambda t: NumpyCube.apply(t).sum(), x, x), id="vhp"),
        pytest.param(lambda x: F.vhp(lambda t: (NumpyCube.apply(t) * t).sum(), x, x), id="vhp-mixed"),
        pytest.param(lambda x: F.jvp(NumpyCube.apply, x, x), id="jvp"),
    ],
)
def test_once_differentiable_raises_naming_the_function_where_a_second_derivative_is_needed(call: Any) -> None:
    x = ctxgrad.tensor([1.0, 2.0], dtype=ctxgrad.float64)
    with pytest.raises(RuntimeError, match=ONCE):
        call(x)


def test_once_differentiable_in_forward_over_reverse_hessian_names_the_function() -> None:
    # func itself sees dual inputs there: NumpyCube needs a jvp, and its backward cannot give one.
    with pytest.raises(RuntimeError, match="NumpyCube has no jvp, and its backward cannot be differentiated"):
        F.hessian(lambda t: NumpyCube.apply(t).sum(), ctxgrad.ones(2), outer_jacobian_strategy="forward-mode")


def test_once_differentiable_in_forward_mode_jacobian_names_the_function() -> None:
    # Forward mode without a jvp derives tangents from backward, which must be differentiable.
    with pytest.raises(RuntimeError, match="NumpyCube"):
        F.jacobian(NumpyCube.apply, ctxgrad.tensor([1.0, 2.0]), strategy="forward-mode")


# --------------------------------------------------------------------------- finite differences
def _central_jacobian(f: Callable[[np.ndarray], np.ndarray], x: np.ndarray, eps: float = 1e-6) -> np.ndarray:
    out_shape = np.shape(f(x))
    jac = np.zeros((*out_shape, x.size))
    flat = x.reshape(-1)
    for k in range(x.size):
        step = np.zeros_like(flat)
        step[k] = eps
        jac[..., k] = (f((flat + step).reshape(x.shape)) - f((flat - step).reshape(x.shape))) / (2 * eps)
    return jac.reshape(*out_shape, *x.shape)


def _ctx_fn(f: Callable[[ctxgrad.Tensor], ctxgrad.Tensor]) -> Callable[[np.ndarray], np.ndarray]:
    return lambda a: f(ctxgrad.tensor(a, dtype=ctxgrad.float64)).numpy()


FD_FUNCTIONS: dict[str, Callable[[ctxgrad.Tensor], ctxgrad.Tensor]] = {
    "softmax_matmul": lambda x: ctxgrad.softmax(x @ x.T, dim=-1),
    "log_cumsum": lambda x: (x * x + 1).log().cumsum(dim=0),
    "norm_division": lambda x: x / ctxgrad.linalg.norm(x),
}


@pytest.mark.parametrize("name", list(FD_FUNCTIONS))
@pytest.mark.parametrize("strategy", ["reverse-mode", "forward-mode"])
def test_jacobian_matches_central_differences(name: str, strategy: str) -> None:
    f = FD_FUNCTIONS[name]
    x = _arrays((2, 3), seed=3)
    jac = F.jacobian(f, ctxgrad.tensor(x, dtype=ctxgrad.float64), strategy=strategy)  # type: ignore[arg-type]
    np.testing.assert_allclose(jac.numpy(), _central_jacobian(_ctx_fn(f), x), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("name", list(FD_FUNCTIONS))
def test_hessian_and_hvp_match_central_differences_of_the_gradient(name: str) -> None:
    def scalar(t: ctxgrad.Tensor) -> ctxgrad.Tensor:
        out = FD_FUNCTIONS[name](t)
        return (out * ctxgrad.arange(out.numel(), dtype=ctxgrad.float64).reshape(out.shape)).sum()

    def gradient(a: np.ndarray) -> np.ndarray:
        _, g = F.vjp(scalar, ctxgrad.tensor(a, dtype=ctxgrad.float64))
        return np.asarray(g.numpy())

    x = _arrays((2, 3), seed=4)
    expected = _central_jacobian(gradient, x)
    h = F.hessian(scalar, ctxgrad.tensor(x, dtype=ctxgrad.float64))
    np.testing.assert_allclose(h.numpy(), expected, rtol=1e-5, atol=1e-7)
    v = _arrays((2, 3), seed=5)
    _, hv = F.hvp(scalar, ctxgrad.tensor(x, dtype=ctxgrad.float64), ctxgrad.tensor(v, dtype=ctxgrad.float64))
    np.testing.assert_allclose(hv.numpy(), np.tensordot(expected, v, axes=2), rtol=1e-5, atol=1e-7)


def test_functional_is_reachable_after_import_ctxgrad() -> None:
    assert ctxgrad.autograd.functional is F
    assert set(F.__all__) == {"jacobian", "hessian", "vjp", "jvp", "hvp", "vhp"}


def test_torch_silently_returns_zeros_through_once_differentiable(torch: Any) -> None:
    # The behaviour docs/functional.md and docs/differences.md describe: torch gives zeros
    # (a wrong Hessian) where ctxgrad raises.
    class TorchNumpyCube(torch.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            ctx.save_for_backward(x)
            return x**3

        @staticmethod
        @torch.autograd.function.once_differentiable
        def backward(ctx: Any, grad: Any) -> Any:
            (x,) = ctx.saved_tensors
            return torch.tensor(grad.numpy() * 3 * x.numpy() ** 2)

    x = torch.tensor([1.0, 2.0], dtype=torch.float64)
    h = torch.autograd.functional.hessian(lambda t: TorchNumpyCube.apply(t).sum(), x)
    np.testing.assert_array_equal(h.numpy(), np.zeros((2, 2)))  # the true Hessian is diag(6, 12)


@pytest.mark.parametrize("strategy", ["reverse-mode", "forward-mode"])
def test_zero_dim_input_and_output_match_torch(torch: Any, strategy: str) -> None:
    def call(lib: Any, fn: Any) -> Any:
        x = lib.tensor(2.0, dtype=lib.float64)
        return (
            fn.jacobian(lambda t: t * t, x, strategy=strategy, vectorize=True),
            fn.hessian(lambda t: t**3, x, outer_jacobian_strategy=strategy, vectorize=True),
        )

    ours, theirs = call(ctxgrad, F), call(torch, torch.autograd.functional)
    _assert_same(ours[0], theirs[0])
    np.testing.assert_allclose(ours[1].numpy(), theirs[1].detach().numpy())


@pytest.mark.parametrize("strategy", ["reverse-mode", "forward-mode"])
def test_empty_output_gives_an_empty_jacobian(strategy: str) -> None:
    # torch raises "stack expects a non-empty TensorList" here.
    jac = F.jacobian(lambda t: t[:0] * 2, ctxgrad.ones(3), strategy=strategy)  # type: ignore[arg-type]
    assert tuple(jac.shape) == (0, 3)


def test_forward_mode_result_is_detached_even_when_inputs_require_grad() -> None:
    # torch's forward-mode Jacobian keeps a graph here although create_graph=False.
    x = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    jac = F.jacobian(lambda t: t**3, x, strategy="forward-mode")
    h = F.hessian(lambda t: (t**3).sum(), x, outer_jacobian_strategy="forward-mode")
    np.testing.assert_allclose(jac.numpy(), np.diag([3.0, 12.0]))
    np.testing.assert_allclose(h.numpy(), np.diag([6.0, 12.0]))
    assert not jac.requires_grad and not h.requires_grad

"""Complex numbers: the complex ops (``real``, ``imag``, ``conj``, ``angle``, ``complex``,
``polar``, ``view_as_real``, ``view_as_complex``), their values and gradients, against
torch and against the convention torch documents: for a real loss ``L`` of ``z = x + iy``,
``z.grad = dL/dx + i dL/dy``."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ctxgrad

Z = [1 + 2j, -0.5 + 0.25j, 3 - 1j]
W = [0.3 - 1j, 2 + 0.5j, -1 + 1j]


def real_loss(m: Any, out: Any) -> Any:
    """A real loss of ``out``: ``Re(sum(out * w))`` for a complex ``out``, ``sum(out * c)`` for a real one."""
    if out.is_complex():
        return m.real(out * m.tensor(np.array(W[: out.shape[0]], dtype=np.complex128))).sum()
    weights = m.tensor(np.linspace(1.5, -2.0, out.numel()).reshape(tuple(out.shape)), dtype=out.dtype)
    return (out * weights).sum()


#: name -> the op applied to one complex128 leaf ``z`` of the values Z
UNARY: dict[str, Callable[[Any, Any], Any]] = {
    "real": lambda m, z: m.real(z),
    "real property": lambda m, z: z.real,
    "imag": lambda m, z: m.imag(z),
    "imag property": lambda m, z: z.imag,
    "conj": lambda m, z: m.conj(z),
    "conj method": lambda m, z: z.conj(),
    "conj_physical": lambda m, z: m.conj_physical(z),
    "resolve_conj of conj": lambda m, z: m.resolve_conj(z.conj()),
    "angle": lambda m, z: m.angle(z),
    "abs": lambda m, z: m.abs(z),
    "view_as_real": lambda m, z: m.view_as_real(z),
    "view_as_real imag column": lambda m, z: m.view_as_real(z)[:, 1],
    "view_as_complex of view_as_real": lambda m, z: m.view_as_complex(m.view_as_real(z)),
}


def run_unary(m: Any, name: str) -> tuple[Any, Any]:
    z = m.tensor(np.array(Z, dtype=np.complex128), requires_grad=True)
    out = UNARY[name](m, z)
    real_loss(m, out).backward()
    return out.detach().resolve_conj().numpy().copy(), z.grad.resolve_conj().numpy().copy()


@pytest.mark.parametrize("name", UNARY)
def test_complex_op_matches_torch(torch: Any, name: str) -> None:
    ours, theirs = run_unary(ctxgrad, name), run_unary(torch, name)
    assert ours[0].dtype == theirs[0].dtype
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(ours[1], theirs[1], rtol=1e-12, atol=1e-15)


def test_the_gradient_is_dL_dx_plus_i_dL_dy() -> None:
    # L = Re(sum(conj(z) * w)) = sum(x Re w + y Im w): dL/dx + i dL/dy = w
    _, grad = run_unary(ctxgrad, "conj")
    np.testing.assert_allclose(grad, np.array(W), rtol=1e-15)
    # L = sum(c * imag(z)): the gradient is i c
    _, grad = run_unary(ctxgrad, "imag")
    np.testing.assert_allclose(grad, 1j * np.linspace(1.5, -2.0, 3), rtol=1e-15)


def two_real_inputs(m: Any, op: str) -> tuple[Any, Any, Any]:
    x = m.tensor([1.0, 2.0, 0.5], dtype=m.float64, requires_grad=True)  # polar: abs >= 0
    y = m.tensor([0.5, -1.0, 2.0], dtype=m.float64, requires_grad=True)
    out = m.complex(x, y) if op == "complex" else m.polar(x, y)
    real_loss(m, out).backward()
    return out.detach().numpy().copy(), x.grad.numpy().copy(), y.grad.numpy().copy()


@pytest.mark.parametrize("op", ["complex", "polar"])
def test_complex_from_two_real_tensors_matches_torch(torch: Any, op: str) -> None:
    for ours, theirs in zip(two_real_inputs(ctxgrad, op), two_real_inputs(torch, op)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_view_as_complex_matches_torch(torch: Any) -> None:
    results = []
    for m in (ctxgrad, torch):
        r = m.tensor([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]], dtype=m.float64, requires_grad=True)
        v = m.view_as_complex(r)
        real_loss(m, v).backward()
        results.append((v.detach().numpy().copy(), r.grad.numpy().copy()))
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)


def test_real_and_imag_are_views() -> None:
    z = ctxgrad.tensor(np.array([1 + 2j, 3 - 4j]))
    z.real.mul_(10)
    z.imag.zero_()
    assert z.tolist() == [10 + 0j, 30 + 0j]


def test_conj_of_a_real_tensor_is_the_tensor() -> None:
    x = ctxgrad.tensor([1.0, 2.0])
    assert x.conj() is x and ctxgrad.real(x) is x and not x.is_conj()
    assert ctxgrad.conj_physical(x) is not x


@pytest.mark.parametrize(
    ("program", "kind", "message"),
    [
        (
            lambda m: m.imag(m.tensor([1.0])),
            RuntimeError,
            "imag is not implemented for tensors with non-complex dtypes.",
        ),
        (lambda m: m.view_as_real(m.tensor([1.0])), RuntimeError, "view_as_real is only supported for complex tensors"),
        (
            lambda m: m.view_as_complex(m.tensor([1.0, 2.0, 3.0])),
            RuntimeError,
            "Tensor must have a last dimension of size 2",
        ),
        (
            lambda m: m.complex(m.tensor([1.0]), m.tensor([1.0], dtype=m.float64)),
            RuntimeError,
            "Expected object of scalar type Float but got scalar type Double for second argument",
        ),
    ],
    ids=["imag of real", "view_as_real of real", "view_as_complex odd", "complex of mixed dtypes"],
)
@pytest.mark.parametrize("lib", ["ctxgrad", "torch"])
def test_complex_errors_are_torch_s(lib: str, program: Any, kind: type[Exception], message: str) -> None:
    m: Any = ctxgrad if lib == "ctxgrad" else pytest.importorskip("torch")
    with pytest.raises(kind, match=message.replace("(", r"\(").replace(")", r"\)")):
        program(m)


def test_mH_conjugates() -> None:
    a = ctxgrad.tensor(np.array([[1 + 1j, 2 - 1j], [0.5j, 3.0]]))
    np.testing.assert_array_equal(a.mH.numpy(), np.conj(a.numpy()).T)


# --- gradients through the ordinary ops, with complex inputs ---------------------------------

A = [[1 + 2j, -0.5 + 0.25j], [0.3 - 1j, 2.0 + 0.0j]]
B = [[0.5 - 1j, 1.5 + 0.5j], [-1 + 1j, 0.25 + 2j]]

#: name -> a program of two complex128 leaves ``a``, ``b`` (2x2) returning a complex tensor
PROGRAMS: dict[str, Callable[[Any, Any, Any], Any]] = {
    "mul": lambda m, a, b: a * b,
    "div": lambda m, a, b: a / b,
    "add sub": lambda m, a, b: a + b - 2 * a,
    "exp": lambda m, a, b: a.exp(),
    "log": lambda m, a, b: a.log(),
    "sin cos": lambda m, a, b: a.sin() * b.cos(),
    "tan": lambda m, a, b: a.tan(),
    "tanh": lambda m, a, b: a.tanh(),
    "sinh cosh": lambda m, a, b: a.sinh() + b.cosh(),
    "sqrt": lambda m, a, b: a.sqrt(),
    "rsqrt": lambda m, a, b: a.rsqrt(),
    "square": lambda m, a, b: a.square(),
    "pow number": lambda m, a, b: a**2,
    "pow 3": lambda m, a, b: a**3,
    "pow float": lambda m, a, b: a**1.5,
    "pow tensor": lambda m, a, b: a**b,
    "reciprocal": lambda m, a, b: a.reciprocal(),
    "sigmoid": lambda m, a, b: a.sigmoid(),
    "log2 log10 log1p": lambda m, a, b: a.log2() + a.log10() + b.log1p(),
    "exp2 expm1": lambda m, a, b: a.exp2() + b.expm1(),
    "asin acos atan": lambda m, a, b: (a * 0.3).asin() + (b * 0.2).acos() + a.atan(),
    "matmul": lambda m, a, b: a @ b,
    "mm": lambda m, a, b: m.mm(a, b),
    "mv": lambda m, a, b: m.mv(a, b[0]),
    "dot": lambda m, a, b: m.dot(a[0], b[1]),
    "einsum": lambda m, a, b: m.einsum("ij,jk->ik", a, b),
    "tensordot": lambda m, a, b: m.tensordot(a, b, dims=1),
    "hstack vstack": lambda m, a, b: m.hstack([a, b]) * m.vstack([b, a]).t(),
    "sum broadcast": lambda m, a, b: (a + b[0]).sum(0),
    "mean": lambda m, a, b: (a * b).mean(1),
    "prod": lambda m, a, b: (a * b).prod(1),
    "prod all": lambda m, a, b: a.prod(),
    "cumsum": lambda m, a, b: (a * b).cumsum(0),
    "cumprod": lambda m, a, b: a.cumprod(1),
    "indexing": lambda m, a, b: a[0] * b[:, 1],
    "advanced indexing": lambda m, a, b: a[[1, 0, 1]] * 2.0,
    "transpose reshape": lambda m, a, b: (a.t() @ b).reshape(4),
    "where": lambda m, a, b: m.where(m.tensor([[True, False], [False, True]]), a, b),
    "abs": lambda m, a, b: (a * b).abs(),
    "conj in a product": lambda m, a, b: a.conj() * b,
    "real and imag": lambda m, a, b: m.complex(a.real * b.imag, a.imag),
    "inverse": lambda m, a, b: m.linalg.inv(a),
    "det": lambda m, a, b: m.linalg.det(a @ b),
    "solve": lambda m, a, b: m.linalg.solve(a, b),
    "real input times complex": lambda m, a, b: a.real * b,
}


def run_program(m: Any, name: str) -> tuple[Any, Any, Any]:
    a = m.tensor(np.array(A), requires_grad=True)
    b = m.tensor(np.array(B), requires_grad=True)
    out = PROGRAMS[name](m, a, b)
    weights = m.tensor(np.linspace(0.5, 2.0, out.numel()).reshape(tuple(out.shape)) * (1 - 0.5j))
    loss = (out * weights).real.sum() if out.is_complex() else (out * weights.real).sum()
    loss.backward()
    grads = [None if t.grad is None else t.grad.resolve_conj().numpy().copy() for t in (a, b)]
    return out.detach().resolve_conj().numpy().copy(), grads[0], grads[1]


@pytest.mark.parametrize("name", PROGRAMS)
def test_complex_gradients_match_torch(torch: Any, name: str) -> None:
    ours, theirs = run_program(ctxgrad, name), run_program(torch, name)
    for got, want in zip(ours, theirs):
        if want is None:
            assert got is None
        else:
            np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


def test_the_gradient_of_a_product_is_the_other_factor_conjugated() -> None:
    # L = Re(sum(z * w)): dL/dx + i dL/dy = conj(w)
    z = ctxgrad.tensor(np.array(Z), requires_grad=True)
    w = ctxgrad.tensor(np.array(W))
    (z * w).real.sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), np.conj(np.array(W)), rtol=1e-15)


def test_the_gradient_of_exp_matches_finite_differences() -> None:
    z0 = np.array(Z)
    z = ctxgrad.tensor(z0, requires_grad=True)
    loss = lambda v: float(np.real(np.exp(v) * np.array(W)).sum())  # noqa: E731
    (z.exp() * ctxgrad.tensor(np.array(W))).real.sum().backward()
    h = 1e-7
    numeric = np.array(
        [
            (loss(z0 + h * e) - loss(z0 - h * e)) / (2 * h)
            + 1j * (loss(z0 + 1j * h * e) - loss(z0 - 1j * h * e)) / (2 * h)
            for e in np.eye(3)
        ]
    )
    np.testing.assert_allclose(z.grad.numpy(), numeric, rtol=1e-6)


def real_plus_complex(m: Any) -> list[float]:
    x = m.tensor([1.0, -2.0], dtype=m.float64, requires_grad=True)
    z = m.tensor(np.array([0.5 + 1j, 2 - 1j]))
    (x + z).abs().sum().backward()
    return x.grad.tolist()


def test_a_real_input_of_a_complex_computation_gets_the_real_part() -> None:
    # d/dx sum |x + z| = Re(x + z) / |x + z|
    expected = [(1.5) / abs(1.5 + 1j), (0.0) / abs(0.0 - 1j)]
    np.testing.assert_allclose(real_plus_complex(ctxgrad), expected, rtol=1e-15)


def test_a_real_input_of_a_complex_computation_matches_torch(torch: Any) -> None:
    assert real_plus_complex(ctxgrad) == real_plus_complex(torch)


def test_a_user_function_may_declare_itself_holomorphic() -> None:
    class Cube(ctxgrad.autograd.Function):
        holomorphic = True  # backward is written as for real numbers: 3 z^2 g

        @staticmethod
        def forward(ctx: Any, z: Any) -> Any:
            ctx.save_for_backward(z)
            return z * z * z

        @staticmethod
        def backward(ctx: Any, grad: Any) -> Any:
            (z,) = ctx.saved_tensors
            return grad * 3 * z * z

    z = ctxgrad.tensor(np.array(Z), requires_grad=True)
    assert ctxgrad.autograd.gradcheck(Cube.apply, (z,))
    z.grad = None
    Cube.apply(z).real.sum().backward()
    np.testing.assert_allclose(z.grad.numpy(), np.conj(3 * np.array(Z) ** 2), rtol=1e-14)


PROMOTIONS = [
    ("float32", (1,), "complex128", ()),
    ("float64", (1,), "complex64", ()),
    ("float64", (1,), "complex64", (1,)),
    ("float32", (1,), "complex128", (1,)),
    ("float64", (), "complex64", ()),
]


@pytest.mark.parametrize(("real", "real_shape", "cplx", "cplx_shape"), PROMOTIONS)
def test_real_and_complex_tensors_promote_as_torch(
    torch: Any, real: str, real_shape: tuple[int, ...], cplx: str, cplx_shape: tuple[int, ...]
) -> None:
    # a 0-d complex tensor with a dimensioned float one: the complex type of the float's precision
    def result(m: Any) -> str:
        x = m.tensor(np.ones(real_shape, dtype=real))
        z = m.tensor(np.full(cplx_shape, 1j, dtype=cplx))
        return str((x + z).dtype).split(".")[-1]

    assert result(ctxgrad) == result(torch)


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean"])
def test_scatter_reduce_takes_complex_values_but_refuses_their_gradients_as_torch(torch: Any, reduce: str) -> None:
    a = np.array([[1 + 2j, -0.5j], [0.25 + 1j, 2 - 1j]])
    b = np.array([[0.5 - 1j, 1j], [2 + 0.5j, -1 + 0.25j]])
    index = [[0, 1], [0, 0]]
    values = [m.tensor(a).scatter_reduce(0, m.tensor(index), m.tensor(b), reduce).numpy() for m in (ctxgrad, torch)]
    np.testing.assert_allclose(values[0], values[1], rtol=1e-12)

    def with_grad(m: Any) -> Any:
        return m.tensor(a, requires_grad=True).scatter_reduce(0, m.tensor(index), m.tensor(b), reduce)

    errors = []
    for m in (ctxgrad, torch):
        with pytest.raises(RuntimeError) as info:
            with_grad(m)
        errors.append(str(info.value))
    assert (
        errors[0]
        == errors[1]
        == "scatter_reduce does not support automatic differentiation for outputs with complex dtype."
    )


def test_bincount_refuses_a_complex_input_and_takes_the_real_part_of_complex_weights(torch: Any) -> None:
    messages = []
    for m in (ctxgrad, torch):
        with pytest.raises(NotImplementedError) as info:
            m.bincount(m.tensor(np.array([1 + 1j])))
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    with pytest.warns(UserWarning, match="discards the imaginary part"):
        c = ctxgrad.bincount(ctxgrad.tensor([1, 1]), ctxgrad.tensor(np.array([1 + 1j, 2j])))
    t = torch.bincount(torch.tensor([1, 1]), torch.tensor(np.array([1 + 1j, 2j])))
    assert c.tolist() == t.tolist() and c.dtype == ctxgrad.float64


SCATTERS: dict[str, Callable[[Any, Any, Any], Any]] = {
    "select_scatter": lambda m, a, b: m.select_scatter(a, b[0], 0, 1),
    "slice_scatter": lambda m, a, b: m.slice_scatter(a, b, 1, 0, None, 2),
}


@pytest.mark.parametrize("name", SCATTERS)
def test_select_and_slice_scatter_take_complex_values_but_refuse_their_gradients_as_torch(
    torch: Any, name: str
) -> None:
    a = np.array([[1 + 2j, -0.5j, 3.0], [0.25 + 1j, 2 - 1j, 1j]])
    b = np.array([[0.5 - 1j, 1j], [2 + 0.5j, -1 + 0.25j]])
    fn = SCATTERS[name]
    if name == "select_scatter":
        b = np.array([[0.5 - 1j, 1j, 2.0], [0.0, 0.0, 0.0]])
    values = [fn(m, m.tensor(a), m.tensor(b)).numpy() for m in (ctxgrad, torch)]
    np.testing.assert_array_equal(values[0], values[1])
    errors = []
    for m in (ctxgrad, torch):
        with pytest.raises(RuntimeError) as info:
            fn(m, m.tensor(a, requires_grad=True), m.tensor(b))
        errors.append(str(info.value))
    assert errors[0] == errors[1]

"""The activations of ctxgrad.nn (functions and modules) against torch: values and gradients
in float64 (away from and at the kinks), torch's gradient at the kinks, in-place forms,
reprs and errors; and torch-free checks: numerical first and second derivatives, forward mode
against reverse mode, and vmap against a loop over samples."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import ctxgrad
import ctxgrad.nn.functional as F
from ctxgrad import nn
from ctxgrad.autograd import gradcheck, gradgradcheck

RNG = np.random.default_rng(17)


def randn(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape)


# name, positional args after the input, keyword args
FUNCTIONS: list[tuple[str, tuple[Any, ...], dict[str, Any]]] = [
    ("hardtanh", (), {}),
    ("hardtanh", (-2.0, 0.5), {}),
    ("relu6", (), {}),
    ("selu", (), {}),
    ("celu", (), {}),
    ("celu", (0.5,), {}),
    ("celu", (-0.5,), {}),
    ("mish", (), {}),
    ("hardswish", (), {}),
    ("hardsigmoid", (), {}),
    ("logsigmoid", (), {}),
    ("softmin", (1,), {}),
    ("softmin", (), {"dim": 0}),
    ("softsign", (), {}),
    ("tanhshrink", (), {}),
    ("softshrink", (), {}),
    ("softshrink", (1.5,), {}),
    ("hardshrink", (), {}),
    ("hardshrink", (1.5,), {}),
    ("threshold", (0.3, -2.0), {}),
    ("glu", (), {}),
    ("glu", (), {"dim": 0}),
    ("rrelu", (0.1, 0.4), {}),
    ("normalize", (), {}),
    ("normalize", (1.0, 0), {}),
    ("normalize", (3.0, -1), {}),
]
IDS = [f"{n}{a}{k}" for n, a, k in FUNCTIONS]
ELEMENTWISE = [c for c in FUNCTIONS if c[0] not in ("glu", "normalize")]

# torch's celu gradient uses 1 / alpha rounded to float32 (so alphas here are powers of 2);
# torch's hardsigmoid gradient is 1/6 rounded to float32 (0.16666667163), also in float64;
# ctxgrad's is 1/6.  Everything else agrees to rounding.
RTOL = {"hardsigmoid": 1e-7}


def run_both(torch: Any, name: str, data: np.ndarray, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    c_x = ctxgrad.tensor(data, requires_grad=True)
    t_x = torch.tensor(data, requires_grad=True)
    c_out = getattr(F, name)(c_x, *args, **kwargs)
    t_out = getattr(torch.nn.functional, name)(t_x, *args, **kwargs)
    rtol = RTOL.get(name, 1e-10)
    np.testing.assert_allclose(c_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-12, atol=1e-14)
    up = randn(*t_out.shape)
    c_out.backward(ctxgrad.tensor(up))
    t_out.backward(torch.tensor(up))
    np.testing.assert_allclose(c_x.grad.numpy(), t_x.grad.numpy(), rtol=rtol, atol=1e-14)


@pytest.mark.parametrize(("name", "args", "kwargs"), FUNCTIONS, ids=IDS)
def test_values_and_gradients_match_torch(torch: Any, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    run_both(torch, name, randn(4, 6) * 4, args, kwargs)


KINKS = np.array([-6.0, -3.0, -2.0, -1.5, -1.0, -0.5, 0.0, 0.3, 0.5, 1.0, 1.5, 3.0, 6.0, 40.0, -40.0, 800.0, -800.0])


@pytest.mark.parametrize(("name", "args", "kwargs"), ELEMENTWISE, ids=[f"{n}{a}{k}" for n, a, k in ELEMENTWISE])
def test_gradients_at_the_kinks_match_torch(
    torch: Any, name: str, args: tuple[Any, ...], kwargs: dict[str, Any]
) -> None:
    if name == "softmin":
        kwargs = {"dim": 0}
        args = ()
    run_both(torch, name, KINKS.copy(), args, kwargs)


@pytest.mark.parametrize(("name", "args", "kwargs"), FUNCTIONS, ids=IDS)
def test_numerical_first_and_second_derivatives(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    data = randn(4, 4) * 2
    data[np.abs(np.abs(data) - 3.0) < 0.05] += 0.2  # keep finite differences off the kinks
    data[np.abs(data) < 0.05] += 0.2
    x = ctxgrad.tensor(data, requires_grad=True)

    def fn(t: ctxgrad.Tensor) -> ctxgrad.Tensor:
        out: ctxgrad.Tensor = getattr(F, name)(t, *args, **kwargs)
        return out

    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


@pytest.mark.parametrize(("name", "args", "kwargs"), FUNCTIONS, ids=IDS)
def test_forward_mode_agrees_with_reverse_mode(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    from ctxgrad.func import jvp, vjp

    x, t = ctxgrad.tensor(randn(4, 4) * 3), ctxgrad.tensor(randn(4, 4))

    def fn(v: ctxgrad.Tensor) -> ctxgrad.Tensor:
        out: ctxgrad.Tensor = getattr(F, name)(v, *args, **kwargs)
        return out

    out, tangent = jvp(fn, (x,), (t,))
    up = ctxgrad.tensor(randn(*out.shape))
    _, pullback = vjp(fn, x)
    (cotangent,) = pullback(up)
    # <up, J t> == <J^T up, t>
    np.testing.assert_allclose((up * tangent).sum().item(), (cotangent * t).sum().item(), rtol=1e-10)


@pytest.mark.parametrize(("name", "args", "kwargs"), FUNCTIONS, ids=IDS)
def test_vmap_matches_a_loop_over_samples(name: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> None:
    from ctxgrad.func import vmap

    x = ctxgrad.tensor(randn(5, 4, 6) * 3)

    def fn(v: ctxgrad.Tensor) -> ctxgrad.Tensor:
        out: ctxgrad.Tensor = getattr(F, name)(v, *args, **kwargs)
        return out

    looped = ctxgrad.stack([fn(x[i]) for i in range(5)])
    np.testing.assert_allclose(vmap(fn)(x).numpy(), looped.numpy(), rtol=1e-12, atol=1e-14)


def test_logsigmoid_is_stable_and_has_torch_node_name(torch: Any) -> None:
    x = ctxgrad.tensor([-1000.0, 1000.0], requires_grad=True)
    y = F.logsigmoid(x)
    assert y.tolist() == [-1000.0, 0.0]
    assert (
        type(y.grad_fn).__name__
        == type(torch.nn.functional.logsigmoid(torch.ones(1, requires_grad=True)).grad_fn).__name__
    )
    y.sum().backward()
    assert x.grad.tolist() == [1.0, 0.0]


@pytest.mark.parametrize(
    ("name", "kernel"),
    [
        ("logsigmoid", "log_sigmoid_cpu"),
        ("mish", "mish_cpu"),
        ("hardswish", "hardswish_cpu"),
        ("selu", "elu_cpu"),
        ("softshrink", "softshrink_check"),
    ],
)
def test_integer_inputs_are_refused_as_torch(torch: Any, name: str, kernel: str) -> None:
    message = f"\"{kernel}\" not implemented for 'Long'"
    with pytest.raises(NotImplementedError, match=message):
        getattr(torch.nn.functional, name)(torch.tensor([1, 2]))
    with pytest.raises(NotImplementedError, match=message):
        getattr(F, name)(ctxgrad.tensor([1, 2]))


ERRORS: list[tuple[str, Any, type[Exception], str]] = [
    (
        "glu odd",
        lambda m: m.nn.functional.glu(m.ones(2, 3)),
        RuntimeError,
        "Halving dimension must be even, but dimension 1 is size 3",
    ),
    (
        "glu scalar",
        lambda m: m.nn.functional.glu(m.ones(())),
        RuntimeError,
        "glu does not support scalars because halving size must be even",
    ),
    (
        "softshrink",
        lambda m: m.nn.functional.softshrink(m.ones(2, dtype=m.float64), -1.0),
        RuntimeError,
        "lambda must be in range [0, 1.79769e+308] for input dtype Double, but found -1",
    ),
    (
        "celu",
        lambda m: m.nn.functional.celu(m.ones(2), 0.0),
        RuntimeError,
        "ZeroDivisionError: alpha cannot be 0 for CELU",
    ),
    (
        "hardtanh",
        lambda m: m.nn.functional.hardtanh(m.ones(2), 2.0, 1.0),
        ValueError,
        "min_val cannot be greater than max_val",
    ),
    (
        "prelu count",
        lambda m: m.nn.functional.prelu(m.ones(2, 3), m.ones(2)),
        RuntimeError,
        "Mismatch of parameter numbers and input channel size. Found parameter numbers = 2 and channel size = 3.",
    ),
    (
        "prelu ndim",
        lambda m: m.nn.functional.prelu(m.ones(2, 3), m.ones(1, 1)),
        RuntimeError,
        "prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = 2",
    ),
    (
        "rrelu",
        lambda m: m.nn.functional.rrelu(m.ones(2), 0.5, 0.1),
        RuntimeError,
        "Lower bound should be less than or equal to the upper bound",
    ),
]


@pytest.mark.parametrize(("label", "call", "kind", "message"), ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_match_torch(torch: Any, label: str, call: Any, kind: type[Exception], message: str) -> None:
    with pytest.raises(kind) as t_error:
        call(torch)
    with pytest.raises(kind) as c_error:
        call(ctxgrad)
    assert str(t_error.value) == message
    assert str(c_error.value) == message


@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 5), (2, 3, 4, 4), (6,)])
@pytest.mark.parametrize("per_channel", [False, True])
def test_prelu_matches_torch(torch: Any, shape: tuple[int, ...], per_channel: bool) -> None:
    if per_channel and len(shape) < 2:
        pytest.skip("a 1-D input has one channel")
    data, weight = randn(*shape), randn(shape[1] if per_channel else 1)
    c_x, c_w = ctxgrad.tensor(data, requires_grad=True), ctxgrad.tensor(weight, requires_grad=True)
    t_x, t_w = torch.tensor(data, requires_grad=True), torch.tensor(weight, requires_grad=True)
    c_out, t_out = F.prelu(c_x, c_w), torch.nn.functional.prelu(t_x, t_w)
    np.testing.assert_allclose(c_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-12)
    up = randn(*shape)
    c_out.backward(ctxgrad.tensor(up))
    t_out.backward(torch.tensor(up))
    np.testing.assert_allclose(c_x.grad.numpy(), t_x.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(c_w.grad.numpy(), t_w.grad.numpy(), rtol=1e-10)


@pytest.mark.parametrize(
    ("shape1", "shape2", "dim"), [((4, 5), (4, 5), 1), ((3, 1, 5), (1, 4, 5), -1), ((5,), (5,), 0)]
)
def test_cosine_similarity_matches_torch(
    torch: Any, shape1: tuple[int, ...], shape2: tuple[int, ...], dim: int
) -> None:
    a, b = randn(*shape1), randn(*shape2)
    c_a, c_b = ctxgrad.tensor(a, requires_grad=True), ctxgrad.tensor(b, requires_grad=True)
    t_a, t_b = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    c_out, t_out = F.cosine_similarity(c_a, c_b, dim), torch.nn.functional.cosine_similarity(t_a, t_b, dim)
    np.testing.assert_allclose(c_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-12)
    up = randn(*t_out.shape)
    c_out.backward(ctxgrad.tensor(up))
    t_out.backward(torch.tensor(up))
    np.testing.assert_allclose(c_a.grad.numpy(), t_a.grad.numpy(), rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(c_b.grad.numpy(), t_b.grad.numpy(), rtol=1e-10, atol=1e-14)


@pytest.mark.parametrize(("p", "keepdim"), [(2.0, False), (1.0, True), (3.0, False)])
def test_pairwise_distance_matches_torch(torch: Any, p: float, keepdim: bool) -> None:
    a, b = randn(4, 5), randn(4, 5)
    c_a, c_b = ctxgrad.tensor(a, requires_grad=True), ctxgrad.tensor(b, requires_grad=True)
    t_a, t_b = torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)
    c_out = F.pairwise_distance(c_a, c_b, p, keepdim=keepdim)
    t_out = torch.nn.functional.pairwise_distance(t_a, t_b, p, keepdim=keepdim)
    assert tuple(c_out.shape) == tuple(t_out.shape)
    np.testing.assert_allclose(c_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-12)
    up = randn(*t_out.shape)
    c_out.backward(ctxgrad.tensor(up))
    t_out.backward(torch.tensor(up))
    np.testing.assert_allclose(c_a.grad.numpy(), t_a.grad.numpy(), rtol=1e-10, atol=1e-14)


def test_normalize_of_a_zero_row_is_zero_with_torch_gradient(torch: Any) -> None:
    data = np.array([[0.0, 0.0], [3.0, 4.0]])
    run_both(torch, "normalize", data, (), {})
    assert F.normalize(ctxgrad.tensor(data)).tolist() == [[0.0, 0.0], [0.6, 0.8]]


# --------------------------------------------------------------------------- in place
INPLACE = ["hardtanh", "relu6", "selu", "celu", "mish", "hardswish", "hardsigmoid", "rrelu"]


@pytest.mark.parametrize("name", INPLACE)
def test_inplace_writes_into_the_input_and_backpropagates_as_torch(torch: Any, name: str) -> None:
    data = randn(3, 4) * 4
    c_leaf, t_leaf = ctxgrad.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    c_mid, t_mid = c_leaf * 1.5, t_leaf * 1.5
    c_out = getattr(F, name)(c_mid, inplace=True)
    t_out = getattr(torch.nn.functional, name)(t_mid, inplace=True)
    assert c_out is c_mid
    np.testing.assert_allclose(c_mid.detach().numpy(), t_mid.detach().numpy(), rtol=1e-12)
    up = randn(3, 4)
    c_out.backward(ctxgrad.tensor(up))
    t_out.backward(torch.tensor(up))
    np.testing.assert_allclose(c_leaf.grad.numpy(), t_leaf.grad.numpy(), rtol=RTOL.get(name, 1e-10))


def test_threshold_inplace_function() -> None:
    x = ctxgrad.tensor([0.1, 0.5, -2.0])
    assert F.threshold_(x, 0.3, 9.0) is x
    assert x.tolist() == [9.0, 0.5, 9.0]


def test_inplace_on_a_leaf_that_requires_grad_is_refused_as_torch(torch: Any) -> None:
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation"):
        torch.nn.functional.relu6(torch.ones(2, requires_grad=True), inplace=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place operation"):
        F.relu6(ctxgrad.ones(2, requires_grad=True), inplace=True)


def test_rrelu_training_draws_seeded_slopes_in_range() -> None:
    data = -np.abs(randn(1000)) - 0.1
    ctxgrad.manual_seed(3)
    x = ctxgrad.tensor(data, requires_grad=True)
    y = F.rrelu(x, 0.1, 0.3, training=True)
    slopes = y.detach().numpy() / data
    assert 0.1 <= slopes.min() and slopes.max() <= 0.3 and slopes.std() > 0.03
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), slopes, rtol=1e-12)  # the gradient is each element's slope
    ctxgrad.manual_seed(3)
    again = F.rrelu(ctxgrad.tensor(data), 0.1, 0.3, training=True)
    np.testing.assert_array_equal(again.numpy(), y.detach().numpy())
    positive = ctxgrad.tensor([0.0, 2.0])
    assert F.rrelu(positive, training=True).tolist() == [0.0, 2.0]


# --------------------------------------------------------------------------- modules
MODULES: list[tuple[str, tuple[Any, ...]]] = [
    ("Hardtanh", ()),
    ("Hardtanh", (-2.0, 2.0)),
    ("ReLU6", ()),
    ("SELU", ()),
    ("CELU", (0.5,)),
    ("Mish", ()),
    ("Hardswish", ()),
    ("Hardsigmoid", ()),
    ("LogSigmoid", ()),
    ("Softmin", (1,)),
    ("Softsign", ()),
    ("Tanhshrink", ()),
    ("Softshrink", (0.7,)),
    ("Hardshrink", (0.7,)),
    ("Threshold", (0.1, 20.0)),
    ("GLU", ()),
    ("GLU", (0,)),
    ("PReLU", ()),
    ("PReLU", (3, 0.1)),
    ("RReLU", (0.1, 0.3)),
    ("Softmax2d", ()),
]


@pytest.mark.parametrize(("name", "args"), MODULES, ids=[f"{n}{a}" for n, a in MODULES])
def test_modules_match_torch(torch: Any, name: str, args: tuple[Any, ...]) -> None:
    t_module = getattr(torch.nn, name)(*args).double().eval()
    c_module = getattr(nn, name)(*args).double().eval()
    assert repr(c_module) == repr(t_module)
    state = {k: ctxgrad.tensor(v.detach().numpy()) for k, v in t_module.state_dict().items()}
    c_module.load_state_dict(state)
    assert sorted(dict(c_module.named_parameters())) == sorted(dict(t_module.named_parameters()))
    data = randn(2, 4, 3, 5) if name == "Softmax2d" else randn(4, 3, 2) * 3
    if name == "PReLU" and args:
        data = randn(4, 3, 2)
    c_x, t_x = ctxgrad.tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    c_out, t_out = c_module(c_x), t_module(t_x)
    np.testing.assert_allclose(c_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-12, atol=1e-14)
    up = randn(*t_out.shape)
    c_out.backward(ctxgrad.tensor(up))
    t_out.backward(torch.tensor(up))
    np.testing.assert_allclose(c_x.grad.numpy(), t_x.grad.numpy(), rtol=1e-7 if name == "Hardsigmoid" else 1e-10)
    for pname, tp in t_module.named_parameters():
        np.testing.assert_allclose(dict(c_module.named_parameters())[pname].grad.numpy(), tp.grad.numpy(), rtol=1e-10)


@pytest.mark.parametrize(
    "build",
    [
        lambda m: m.nn.Hardtanh(-2, 2, True),
        lambda m: m.nn.ReLU6(True),
        lambda m: m.nn.SELU(True),
        lambda m: m.nn.CELU(0.5, True),
        lambda m: m.nn.Mish(True),
        lambda m: m.nn.Hardswish(True),
        lambda m: m.nn.Threshold(0.1, 20, True),
        lambda m: m.nn.RReLU(0.1, 0.3, True),
        lambda m: m.nn.Softmin(),
        lambda m: m.nn.PReLU(3),
    ],
)
def test_module_reprs_match_torch(torch: Any, build: Any) -> None:
    assert repr(build(ctxgrad)) == repr(build(torch))


def test_prelu_parameter_defaults_match_torch(torch: Any) -> None:
    c, t = nn.PReLU(4, 0.3), torch.nn.PReLU(4, 0.3)
    assert c.weight.dtype == ctxgrad.float32 and c.weight.requires_grad
    np.testing.assert_array_equal(c.weight.detach().numpy(), t.weight.detach().numpy())


def test_hardtanh_module_refuses_an_empty_range(torch: Any) -> None:
    with pytest.raises(AssertionError):
        torch.nn.Hardtanh(1.0, 1.0)
    with pytest.raises(AssertionError):
        nn.Hardtanh(1.0, 1.0)


def test_softmin_without_dim_warns_as_torch(torch: Any) -> None:
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmin has been deprecated"):
        nn.Softmin()(ctxgrad.ones(2, 3))
    with pytest.warns(UserWarning, match="Implicit dimension choice for softmin has been deprecated"):
        torch.nn.Softmin()(torch.ones(2, 3))

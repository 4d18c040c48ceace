"""torch's keywords, accepted as torch accepts them: ``size=`` of the factories that take
``*size`` (one normaliser, ``_factories._size``), and ``inplace=`` of the activations of
``nn.functional`` and their modules (the activation's Function made in place with
``ctxgrad.autograd.inplace.write_in_place``, never a copy of its body).  Each against torch."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ctxgrad
import ctxgrad.nn.functional as F

torch = pytest.importorskip("torch")
import torch.nn.functional as TF  # noqa: E402

FACTORIES = ["zeros", "ones", "empty", "rand", "randn"]


def _outcome(fn: Callable[[], Any]) -> Any:
    try:
        return fn()
    except Exception as exc:  # the type and message are compared with torch's
        return type(exc).__name__, str(exc)


@pytest.mark.parametrize("name", FACTORIES)
@pytest.mark.parametrize("size", [[3], (2, 3), [], "Size"])
def test_size_keyword_of_a_factory_as_torch(name: str, size: Any) -> None:
    ours = getattr(ctxgrad, name)(size=ctxgrad.Size([2, 1]) if size == "Size" else size, dtype=ctxgrad.float64)
    theirs = getattr(torch, name)(size=torch.Size([2, 1]) if size == "Size" else size, dtype=torch.float64)
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert ours.dtype == ctxgrad.float64
    if name in ("zeros", "ones"):
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.parametrize("name", ["zeros", "ones", "empty"])
def test_size_keyword_of_a_new_factory_method_as_torch(name: str) -> None:
    ours = getattr(ctxgrad.ones(1, dtype=ctxgrad.int64), f"new_{name}")(size=[2, 3])
    theirs = getattr(torch.ones(1, dtype=torch.int64), f"new_{name}")(size=[2, 3])
    assert tuple(ours.shape) == tuple(theirs.shape) and str(ours.dtype) == "ctxgrad.int64"


@pytest.mark.parametrize("name", FACTORIES)
@pytest.mark.parametrize(
    "call",
    [
        lambda f, m: f(3, size=[2]),  # both
        lambda f, m: f(size=3),  # not a sequence
        lambda f, m: f(size=None),
        lambda f, m: f(size=[-1]),
    ],
    ids=["both", "int", "none", "negative"],
)
def test_a_bad_size_keyword_is_refused_as_torch(name: str, call: Any) -> None:
    ours = _outcome(lambda: call(getattr(ctxgrad, name), ctxgrad))
    theirs = _outcome(lambda: call(getattr(torch, name), torch))
    assert ours[0] == theirs[0]
    if "received an invalid combination of arguments" in theirs[1]:  # torch lists rand's overloads
        assert ours[1] == f"{name}() got multiple values for argument 'size'"
    else:
        assert ours[1] == theirs[1]


# --------------------------------------------------------------------------- inplace=
ACTIVATIONS: list[tuple[str, Callable[..., Any], Callable[..., Any]]] = [
    ("elu", lambda m, x, i: m.elu(x, 0.7, inplace=i), lambda nn, i: nn.ELU(0.7, inplace=i)),
    ("leaky_relu", lambda m, x, i: m.leaky_relu(x, 0.1, inplace=i), lambda nn, i: nn.LeakyReLU(0.1, inplace=i)),
    ("silu", lambda m, x, i: m.silu(x, inplace=i), lambda nn, i: nn.SiLU(inplace=i)),
    ("relu", lambda m, x, i: m.relu(x, inplace=i), lambda nn, i: nn.ReLU(inplace=i)),
    ("hardtanh", lambda m, x, i: m.hardtanh(x, -0.7, 1.2, inplace=i), lambda nn, i: nn.Hardtanh(-0.7, 1.2, inplace=i)),
    ("relu6", lambda m, x, i: m.relu6(x, inplace=i), lambda nn, i: nn.ReLU6(inplace=i)),
    ("selu", lambda m, x, i: m.selu(x, inplace=i), lambda nn, i: nn.SELU(inplace=i)),
    ("celu", lambda m, x, i: m.celu(x, 0.6, inplace=i), lambda nn, i: nn.CELU(0.6, inplace=i)),
    ("mish", lambda m, x, i: m.mish(x, inplace=i), lambda nn, i: nn.Mish(inplace=i)),
    ("hardswish", lambda m, x, i: m.hardswish(x, inplace=i), lambda nn, i: nn.Hardswish(inplace=i)),
    ("hardsigmoid", lambda m, x, i: m.hardsigmoid(x, inplace=i), lambda nn, i: nn.Hardsigmoid(inplace=i)),
    ("rrelu", lambda m, x, i: m.rrelu(x, 0.2, 0.4, inplace=i), lambda nn, i: nn.RReLU(0.2, 0.4, inplace=i).eval()),
    (
        "threshold",
        lambda m, x, i: m.threshold(x, 0.3, -1.5, inplace=i),
        lambda nn, i: nn.Threshold(0.3, -1.5, inplace=i),
    ),
]
VALUES = [-4.0, -2.0, -0.5, 0.0, 0.5, 2.0, 4.0]


def _run(lib: Any, fn: Callable[[], Any], x_of: Callable[[Any], Any]) -> tuple[Any, ...]:
    """(output, input, its version bump, grad_fn name, gradient of the leaf)."""
    leaf = lib.tensor(VALUES, dtype=lib.float64, requires_grad=True)
    x = leaf * 1.0
    before = x._version
    out = fn()(x)
    (out * lib.arange(len(VALUES), dtype=lib.float64)).sum().backward()
    return out, x, x._version - before, out.grad_fn.name(), leaf.grad


@pytest.mark.parametrize(("name", "functional", "module"), ACTIVATIONS, ids=[a[0] for a in ACTIVATIONS])
@pytest.mark.parametrize("form", ["functional", "module"])
def test_inplace_activation_matches_torch(name: str, functional: Any, module: Any, form: str) -> None:
    def made(lib: Any, nn_functional: Any) -> Callable[[], Any]:
        if form == "module":
            return lambda: module(lib.nn, True)
        return lambda: lambda x: functional(nn_functional, x, True)

    ours = _run(ctxgrad, made(ctxgrad, F), lambda t: t)
    theirs = _run(torch, made(torch, TF), lambda t: t)
    out, x, bump, node, grad = ours
    t_out, t_x, t_bump, t_node, t_grad = theirs
    assert out is x and t_out is t_x  # the input itself, changed in place
    np.testing.assert_allclose(x.detach().numpy(), t_x.detach().numpy())
    assert bump == t_bump == 1
    assert node == t_node
    np.testing.assert_allclose(grad.numpy(), t_grad.numpy())


@pytest.mark.parametrize(("name", "functional", "module"), ACTIVATIONS, ids=[a[0] for a in ACTIVATIONS])
def test_out_of_place_activation_records_torchs_node_and_gradient(name: str, functional: Any, module: Any) -> None:
    ours = _run(ctxgrad, lambda: lambda x: functional(F, x, False), lambda t: t)
    theirs = _run(torch, lambda: lambda x: functional(TF, x, False), lambda t: t)
    np.testing.assert_allclose(
        ours[0].detach().numpy(), theirs[0].detach().numpy(), rtol=1e-6
    )  # (torch computes some constants in float32)
    assert ours[2] == theirs[2] == 0  # the input is not changed
    assert ours[3] == theirs[3]
    np.testing.assert_allclose(
        ours[4].numpy(), theirs[4].numpy(), rtol=1e-6
    )  # (torch computes some constants in float32)


@pytest.mark.parametrize(("name", "functional", "module"), ACTIVATIONS, ids=[a[0] for a in ACTIVATIONS])
def test_inplace_and_out_of_place_give_the_same_values_and_gradients(name: str, functional: Any, module: Any) -> None:
    results = []
    for inplace in (False, True):
        leaf = ctxgrad.tensor(VALUES, dtype=ctxgrad.float64, requires_grad=True)
        out = functional(F, leaf * 1.0, inplace)
        out.sum().backward()
        results.append((out.detach().numpy(), leaf.grad.numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0])
    np.testing.assert_allclose(results[0][1], results[1][1])


@pytest.mark.parametrize(("name", "functional", "module"), ACTIVATIONS, ids=[a[0] for a in ACTIVATIONS])
def test_inplace_on_a_leaf_that_requires_grad_is_refused_as_torch(name: str, functional: Any, module: Any) -> None:
    ours = _outcome(lambda: functional(F, ctxgrad.tensor(VALUES, requires_grad=True), True))
    theirs = _outcome(lambda: functional(TF, torch.tensor(VALUES, requires_grad=True), True))
    assert ours == theirs
    assert ours[0] == "RuntimeError"


def test_rrelu_in_training_in_place_draws_the_same_slopes_as_out_of_place() -> None:
    results = []
    for inplace in (False, True):
        ctxgrad.manual_seed(5)
        leaf = ctxgrad.tensor(VALUES, dtype=ctxgrad.float64, requires_grad=True)
        x = leaf * 1.0
        out = F.rrelu(x, 0.1, 0.3, training=True, inplace=inplace)
        assert (out is x) == inplace
        assert out.grad_fn.name() == ("RreluWithNoiseBackward1" if inplace else "RreluWithNoiseBackward0")
        out.sum().backward()
        results.append((out.detach().numpy(), leaf.grad.numpy()))
    np.testing.assert_array_equal(results[0][0], results[1][0])
    np.testing.assert_array_equal(results[0][1], results[1][1])
    slopes = results[0][1][np.array(VALUES) < 0]
    assert ((0.1 <= slopes) & (slopes <= 0.3)).all()


@pytest.mark.parametrize(
    ("name", "args"),
    [
        ("relu_", ()),
        ("elu_", (0.7,)),
        ("leaky_relu_", (0.1,)),
        ("selu_", ()),
        ("celu_", (0.6,)),
        ("hardtanh_", (-0.5, 0.5)),
        ("threshold_", (0.3, -1.0)),
    ],
)
def test_the_in_place_functions_of_nn_functional_match_torch(name: str, args: tuple[Any, ...]) -> None:
    ours = _run(ctxgrad, lambda: lambda x: getattr(F, name)(x, *args), lambda t: t)
    theirs = _run(torch, lambda: lambda x: getattr(TF, name)(x, *args), lambda t: t)
    assert ours[0] is ours[1] and theirs[0] is theirs[1]
    np.testing.assert_allclose(ours[1].detach().numpy(), theirs[1].detach().numpy(), rtol=1e-6)
    assert ours[2] == theirs[2] == 1
    assert ours[3] == theirs[3]
    np.testing.assert_allclose(ours[4].numpy(), theirs[4].numpy(), rtol=1e-6)

"""nn.utils.parametrize against torch: the parametrized tensor's value and the gradient of
the original, state-dict names, the class swap and repr, chaining, assignment through
right_inverse, removal (keeping the value or the original) and errors."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import ctxgrad


def symmetric(lib: Any) -> Any:
    class Symmetric(lib.nn.Module):
        def forward(self, X: Any) -> Any:
            return X.triu() + X.triu(1).mT

    return Symmetric()


def scaled(lib: Any, factor: float) -> Any:
    class Scale(lib.nn.Module):
        def forward(self, X: Any) -> Any:
            return X * factor

        def right_inverse(self, X: Any) -> Any:
            return X / factor

    return Scale()


def build(lib: Any, chain: bool) -> Any:
    layer = lib.nn.Linear(3, 3).double()
    with lib.no_grad():
        layer.weight.copy_(lib.tensor(np.arange(9.0).reshape(3, 3) / 7 - 0.5))
        layer.bias.copy_(lib.tensor([0.1, -0.2, 0.3]))
    lib.nn.utils.parametrize.register_parametrization(layer, "weight", symmetric(lib))
    if chain:
        lib.nn.utils.parametrize.register_parametrization(layer, "weight", scaled(lib, 2.0))
    return layer


@pytest.mark.parametrize("chain", [False, True])
def test_parametrized_layer_matches_torch(torch: Any, chain: bool) -> None:
    ours, theirs = build(ctxgrad, chain), build(torch, chain)
    assert type(ours).__name__ == type(theirs).__name__ == "ParametrizedLinear"
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    np.testing.assert_allclose(ours.weight.detach().numpy(), theirs.weight.detach().numpy(), rtol=1e-13)
    x = np.random.default_rng(0).standard_normal((4, 3))
    ours(ctxgrad.tensor(x)).pow(2).sum().backward()
    theirs(torch.tensor(x)).pow(2).sum().backward()
    c_orig = ours.parametrizations.weight.original
    t_orig = theirs.parametrizations.weight.original
    np.testing.assert_allclose(c_orig.grad.numpy(), t_orig.grad.numpy(), rtol=1e-12)


def test_assignment_goes_through_right_inverse(torch: Any) -> None:
    for lib in (torch, ctxgrad):
        layer = lib.nn.Linear(2, 2).double()
        lib.nn.utils.parametrize.register_parametrization(layer, "weight", scaled(lib, 4.0))
        layer.weight = lib.tensor([[4.0, 8.0], [12.0, 16.0]], dtype=lib.float64)
        assert layer.parametrizations.weight.original.tolist() == [[1.0, 2.0], [3.0, 4.0]]
        assert layer.weight.tolist() == [[4.0, 8.0], [12.0, 16.0]]


@pytest.mark.parametrize("leave_parametrized", [True, False])
def test_removal_matches_torch(torch: Any, leave_parametrized: bool) -> None:
    ours, theirs = build(ctxgrad, True), build(torch, True)
    ctxgrad.nn.utils.parametrize.remove_parametrizations(ours, "weight", leave_parametrized=leave_parametrized)
    torch.nn.utils.parametrize.remove_parametrizations(theirs, "weight", leave_parametrized=leave_parametrized)
    assert type(ours).__name__ == type(theirs).__name__ == "Linear"
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    np.testing.assert_allclose(ours.weight.detach().numpy(), theirs.weight.detach().numpy(), rtol=1e-13)
    assert not ctxgrad.nn.utils.parametrize.is_parametrized(ours)


def test_errors_and_queries(torch: Any) -> None:
    for lib in (torch, ctxgrad):
        layer = lib.nn.Linear(2, 2)
        assert not lib.nn.utils.parametrize.is_parametrized(layer)
        with pytest.raises(ValueError, match="does not have a parameter, a buffer, or a parametrized element"):
            lib.nn.utils.parametrize.register_parametrization(layer, "nothing", symmetric(lib))
        with pytest.raises(ValueError, match="does not have a parametrization on weight"):
            lib.nn.utils.parametrize.remove_parametrizations(layer, "weight")
        lib.nn.utils.parametrize.register_parametrization(layer, "weight", symmetric(lib))
        assert lib.nn.utils.parametrize.is_parametrized(layer, "weight")
        assert not lib.nn.utils.parametrize.is_parametrized(layer, "bias")


@pytest.mark.parametrize(
    ("build", "dim", "shape"),
    [
        (lambda m: m.nn.Linear(3, 4), 0, (5, 3)),
        (lambda m: m.nn.Conv2d(2, 3, 2), None, (1, 2, 4, 4)),
        (lambda m: m.nn.Conv2d(2, 3, 2), 1, (1, 2, 4, 4)),
    ],
)
def test_parametrizations_weight_norm_matches_torch(torch: Any, build: Any, dim: Any, shape: tuple[int, ...]) -> None:
    t_mod = torch.nn.utils.parametrizations.weight_norm(build(torch).double(), dim=dim)
    c_mod = ctxgrad.nn.utils.parametrizations.weight_norm(build(ctxgrad).double(), dim=dim)
    assert repr(c_mod) == repr(t_mod)
    assert list(c_mod.state_dict()) == list(t_mod.state_dict())
    c_mod.load_state_dict({k: ctxgrad.tensor(v.detach().numpy()) for k, v in t_mod.state_dict().items()})
    data = np.random.default_rng(1).standard_normal(shape)
    c_out, t_out = c_mod(ctxgrad.tensor(data)), t_mod(torch.tensor(data))
    np.testing.assert_allclose(c_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-12)
    c_out.pow(2).sum().backward()
    t_out.pow(2).sum().backward()
    for (name, cp), (_, tp) in zip(c_mod.named_parameters(), t_mod.named_parameters()):
        np.testing.assert_allclose(cp.grad.numpy(), tp.grad.numpy(), rtol=1e-11, err_msg=name)


@pytest.mark.parametrize(
    ("build", "shape"),
    [
        (lambda m: m.nn.Linear(3, 4), (5, 3)),
        (lambda m: m.nn.Conv2d(2, 3, 2), (1, 2, 4, 4)),
        (lambda m: m.nn.ConvTranspose2d(2, 3, 2), (1, 2, 3, 3)),
    ],
)
@pytest.mark.parametrize("training", [True, False])
def test_spectral_norm_matches_torch(torch: Any, build: Any, shape: tuple[int, ...], training: bool) -> None:
    t_mod = torch.nn.utils.parametrizations.spectral_norm(build(torch).double())
    c_mod = ctxgrad.nn.utils.parametrizations.spectral_norm(build(ctxgrad).double())
    assert repr(c_mod) == repr(t_mod)
    assert list(c_mod.state_dict()) == list(t_mod.state_dict())
    c_mod.load_state_dict({k: ctxgrad.tensor(v.detach().numpy()) for k, v in t_mod.state_dict().items()})
    c_mod.train(training)
    t_mod.train(training)
    data = np.random.default_rng(2).standard_normal(shape)
    for _ in range(3):  # each training-mode access runs one more power iteration
        c_out, t_out = c_mod(ctxgrad.tensor(data)), t_mod(torch.tensor(data))
        np.testing.assert_allclose(c_out.detach().numpy(), t_out.detach().numpy(), rtol=1e-11)
    c_out.pow(2).sum().backward()
    t_out.pow(2).sum().backward()
    for (name, cp), (_, tp) in zip(c_mod.named_parameters(), t_mod.named_parameters()):
        np.testing.assert_allclose(cp.grad.numpy(), tp.grad.numpy(), rtol=1e-10, err_msg=name)
    u = c_mod.parametrizations.weight[0]._u
    np.testing.assert_allclose(u.numpy(), t_mod.parametrizations.weight[0]._u.numpy(), rtol=1e-11)

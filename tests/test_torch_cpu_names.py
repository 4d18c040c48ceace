"""What a CPU-only torch answers, against torch 2.13: the legacy ``Tensor(...)`` constructor,
factories' ``size=``, activations' ``inplace=``, the module paths and names that ported
programs reach (``nn.DataParallel``, ``torch.hub``, ``torch.multiprocessing``, memory formats,
``torch.cuda``'s legacy types, ...).  Each test runs the same code on both libraries."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np
import pytest

import ctxgrad

torch = pytest.importorskip("torch")


def raised(call: Callable[[], Any]) -> tuple[str, str]:
    """The exception a call raises, as (type name, message with the library's name dropped)."""
    try:
        call()
    except Exception as error:  # noqa: BLE001 - the point is to compare what was raised
        return type(error).__name__, str(error).replace("ctxgrad", "torch")
    raise AssertionError("nothing was raised")


# --------------------------------------------------------------------------- Tensor(...)
@pytest.mark.torch_names("torch.Tensor")
@pytest.mark.parametrize("args", [(40,), (2, 3), (0,), (np.int64(3),), ()])
def test_the_constructor_reads_ints_as_a_size_of_float32(args: tuple[Any, ...]) -> None:
    ours, theirs = ctxgrad.Tensor(*args), torch.Tensor(*args)
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1] == "float32"


@pytest.mark.torch_names("torch.Tensor")
@pytest.mark.parametrize("data", [[1, 2], [[True, False]], np.array([1, 2], dtype=np.int64), [1.5, -2.0], (3,)])
def test_the_constructor_converts_data_to_float32(data: Any) -> None:
    ours, theirs = ctxgrad.Tensor(data), torch.Tensor(data)
    assert ours.dtype == ctxgrad.float32 and theirs.dtype == torch.float32
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


@pytest.mark.torch_names("torch.Tensor")
def test_the_constructor_follows_the_default_dtype() -> None:
    before_ours, before_theirs = ctxgrad.get_default_dtype(), torch.get_default_dtype()
    try:
        ctxgrad.set_default_dtype(ctxgrad.float64)
        torch.set_default_dtype(torch.float64)
        assert ctxgrad.Tensor([1, 2]).dtype == ctxgrad.float64 and torch.Tensor([1, 2]).dtype == torch.float64
        assert ctxgrad.Tensor(3).dtype == ctxgrad.float64 and torch.Tensor(3).dtype == torch.float64
    finally:
        ctxgrad.set_default_dtype(before_ours)
        torch.set_default_dtype(before_theirs)


@pytest.mark.torch_names("torch.Tensor")
def test_the_constructor_shares_a_tensor_keeping_its_dtype() -> None:
    ours_source, theirs_source = ctxgrad.tensor([1, 2]), torch.tensor([1, 2])
    ours, theirs = ctxgrad.Tensor(ours_source), torch.Tensor(theirs_source)
    assert ours.dtype == ctxgrad.int64 and theirs.dtype == torch.int64
    ours[0], theirs[0] = 7, 7
    assert ours_source.tolist() == theirs_source.tolist() == [7, 2]


@pytest.mark.torch_names("torch.Tensor", "torch.nn.Parameter")
def test_a_parameter_of_a_legacy_size_is_float32_and_trains() -> None:
    for lib in (ctxgrad, torch):
        weight = lib.nn.Parameter(lib.Tensor(3, 2))
        lib.nn.init.constant_(weight, 0.5)
        (weight * 2).sum().backward()
        assert weight.shape == (3, 2) and str(weight.dtype).endswith("float32")
        assert weight.grad.tolist() == [[2.0, 2.0]] * 3


@pytest.mark.torch_names("torch.Tensor")
@pytest.mark.parametrize("args", [(3.5,), (-1,), (2, -3), (2, "a"), (True,)])
def test_the_constructor_refuses_as_torch(args: tuple[Any, ...]) -> None:
    assert raised(lambda: ctxgrad.Tensor(*args)) == raised(lambda: torch.Tensor(*args))


# --------------------------------------------------------------------------- size=
@pytest.mark.torch_names("torch.zeros", "torch.ones", "torch.empty", "torch.rand", "torch.randn", "torch.full")
@pytest.mark.parametrize("name", ["zeros", "ones", "empty", "rand", "randn"])
def test_factories_take_size_as_a_keyword(name: str) -> None:
    for size in ([3], (2, 4), ctxgrad.Size([2, 1])):
        ours = getattr(ctxgrad, name)(size=size)
        theirs = getattr(torch, name)(size=tuple(size))
        assert tuple(ours.shape) == tuple(theirs.shape) and ours.dtype == ctxgrad.float32
        if name in ("zeros", "ones"):
            np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    ours_int = getattr(ctxgrad, name)(size=[2], dtype=ctxgrad.float64)
    assert ours_int.dtype == ctxgrad.float64 and getattr(torch, name)(size=[2], dtype=torch.float64).dtype == torch.float64
    ours_error, theirs_error = raised(lambda: getattr(ctxgrad, name)(3, size=(3,))), raised(lambda: getattr(torch, name)(3, size=(3,)))
    assert ours_error[0] == theirs_error[0] == "TypeError" and ours_error[1].startswith(f"{name}() ")
    if name in ("zeros", "ones", "empty"):  # torch's random factories list their signatures instead
        assert ours_error == theirs_error


@pytest.mark.torch_names("torch.full")
def test_full_takes_size_and_fill_value_as_keywords() -> None:
    ours, theirs = ctxgrad.full(size=(2,), fill_value=3), torch.full(size=(2,), fill_value=3)
    assert ours.tolist() == theirs.tolist() == [3, 3] and ours.dtype == ctxgrad.int64 and theirs.dtype == torch.int64


# --------------------------------------------------------------------------- inplace=
_INPLACE_ACTIVATIONS = [
    "CELU",
    "ELU",
    "Hardsigmoid",
    "Hardswish",
    "Hardtanh",
    "LeakyReLU",
    "Mish",
    "ReLU",
    "ReLU6",
    "SELU",
    "SiLU",
]


@pytest.mark.torch_names("torch.nn.ELU", "torch.nn.ReLU", "torch.nn.LeakyReLU", "torch.nn.SiLU", "torch.nn.Hardtanh")
@pytest.mark.parametrize("name", _INPLACE_ACTIVATIONS)
def test_activation_modules_write_into_their_input_with_inplace(name: str) -> None:
    values = [[-2.0, -0.5, 0.0, 0.7, 3.0]]
    ours_x, theirs_x = ctxgrad.tensor(values), torch.tensor(values)
    ours = getattr(ctxgrad.nn, name)(inplace=True)(ours_x)
    theirs = getattr(torch.nn, name)(inplace=True)(theirs_x)
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6, atol=1e-7)
    np.testing.assert_allclose(ours_x.numpy(), theirs_x.numpy(), rtol=1e-6, atol=1e-7)
    assert repr(getattr(ctxgrad.nn, name)(inplace=True)) == repr(getattr(torch.nn, name)(inplace=True))


@pytest.mark.torch_names("torch.nn.ELU", "torch.nn.ReLU")
@pytest.mark.parametrize("name", ["ELU", "ReLU", "LeakyReLU"])
def test_inplace_activation_after_a_layer_has_torchs_gradient(name: str) -> None:
    rng = np.random.default_rng(0)
    w, x = rng.standard_normal((3, 4)), rng.standard_normal((2, 4))
    grads = []
    for lib in (ctxgrad, torch):
        weight = lib.tensor(w, requires_grad=True)
        out = getattr(lib.nn, name)(inplace=True)(lib.tensor(x) @ weight.T)
        (out * out).sum().backward()
        grads.append(weight.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12)

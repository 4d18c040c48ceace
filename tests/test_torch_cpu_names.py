"""What a CPU-only torch answers, against torch 2.13: the legacy ``Tensor(...)`` constructor,
factories' ``size=``, activations' ``inplace=``, the module paths and names that ported
programs reach (``nn.DataParallel``, ``torch.hub``, ``torch.multiprocessing``, memory formats,
``torch.cuda``'s legacy types, ...).  Each test runs the same code on both libraries."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ctxgrad

torch = pytest.importorskip("torch")


def raised(call: Callable[[], Any]) -> tuple[str, str]:
    """The exception a call raises, as (type name, message with the library's name dropped)."""
    try:
        call()
    except Exception as error:
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
    assert (
        ours_int.dtype == ctxgrad.float64 and getattr(torch, name)(size=[2], dtype=torch.float64).dtype == torch.float64
    )
    ours_error, theirs_error = (
        raised(lambda: getattr(ctxgrad, name)(3, size=(3,))),
        raised(lambda: getattr(torch, name)(3, size=(3,))),
    )
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


# --------------------------------------------------------------------------- Module.to('meta')
@pytest.mark.torch_names("torch.nn.Module.to")
def test_module_to_meta_is_refused_naming_why() -> None:
    assert torch.nn.Linear(2, 3).to("meta").weight.is_meta  # torch: shapes without data
    with pytest.raises(RuntimeError, match=r"no meta device .*shape and no data are not supported"):
        ctxgrad.nn.Linear(2, 3).to("meta")
    with pytest.raises(RuntimeError, match="no meta device"):
        ctxgrad.zeros(2, device="meta")


@pytest.mark.torch_names("torch.nn.Module.to_empty")
@pytest.mark.parametrize("recurse", [True, False])
def test_to_empty_keeps_parameters_shapes_dtypes_and_flags(recurse: bool) -> None:
    results = []
    for lib in (ctxgrad, torch):
        net = lib.nn.Sequential(lib.nn.Linear(2, 3), lib.nn.BatchNorm1d(3)).double()
        weight = net[0].weight
        assert net.to_empty(device="cpu", recurse=recurse) is net
        assert net[0].weight is weight
        results.append(
            [(n, tuple(p.shape), str(p.dtype).split(".")[-1], p.requires_grad) for n, p in net.named_parameters()]
        )
        results.append([(n, tuple(b.shape), str(b.dtype).split(".")[-1]) for n, b in net.named_buffers()])
    assert results[0] == results[2] and results[1] == results[3]


@pytest.mark.torch_names("torch.nn.Module.register_backward_hook")
@pytest.mark.filterwarnings("ignore:Using a non-full backward hook")  # torch's, for its older hook
@pytest.mark.parametrize("name", ["Sigmoid", "Tanh", "ReLU"])
def test_register_backward_hook_sees_a_one_op_modules_gradients_as_torch(name: str) -> None:
    seen = []
    for lib in (ctxgrad, torch):
        got: list[Any] = []
        module = getattr(lib.nn, name)()
        handle = module.register_backward_hook(lambda m, gi, go, got=got: got.append((gi[0].tolist(), go[0].tolist())))
        x = lib.tensor([-1.0, 0.5, 2.0], requires_grad=True)
        (module(x) * lib.tensor([1.0, 2.0, 3.0])).sum().backward()
        handle.remove()
        module(x).sum().backward()
        seen.append(got)
    assert len(seen[0]) == len(seen[1]) == 1
    np.testing.assert_allclose(np.array(seen[0][0][0]), np.array(seen[1][0][0]), rtol=1e-6)
    assert seen[0][0][1] == seen[1][0][1]


# --------------------------------------------------------------------------- nn names
@pytest.mark.torch_names("torch.nn.DataParallel", "torch.nn.parallel", "torch.nn.parallel.DataParallel")
def test_data_parallel_is_a_pass_through_on_the_cpu() -> None:
    import torch.nn.parallel

    import ctxgrad.nn.parallel

    assert ctxgrad.nn.parallel.DataParallel is ctxgrad.nn.DataParallel
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4, 2))
    outs, grads, keys, reprs = [], [], [], []
    for lib in (ctxgrad, torch):
        inner = lib.nn.Linear(2, 3).double()
        with lib.no_grad():
            inner.weight.copy_(lib.tensor(np.arange(6.0).reshape(3, 2)))
            inner.bias.fill_(0.5)
        net = lib.nn.DataParallel(inner, device_ids=None)
        assert net.module is inner and net.device_ids == []
        out = net(lib.tensor(x))
        out.pow(2).sum().backward()
        outs.append(out.detach().numpy())
        grads.append(inner.weight.grad.numpy())
        keys.append(list(net.state_dict()))
        reprs.append(repr(net))
        net.load_state_dict(net.state_dict())
    np.testing.assert_allclose(outs[0], outs[1], rtol=1e-12)
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12)
    assert keys[0] == keys[1] == ["module.weight", "module.bias"]
    assert reprs[0] == reprs[1]


@pytest.mark.torch_names("torch.nn.parallel")
def test_the_functional_data_parallel_is_refused_as_torch_without_a_gpu() -> None:
    assert raised(lambda: ctxgrad.nn.parallel.data_parallel(ctxgrad.nn.Linear(2, 1), ctxgrad.ones(1, 2))) == raised(
        lambda: torch.nn.parallel.data_parallel(torch.nn.Linear(2, 1), torch.ones(1, 2))
    )


@pytest.mark.torch_names("torch.nn.RNNBase")
def test_rnn_base_builds_torchs_parameters_and_refuses_an_unknown_mode() -> None:
    ours, theirs = ctxgrad.nn.RNNBase("LSTM", 3, 4, num_layers=2), torch.nn.RNNBase("LSTM", 3, 4, num_layers=2)
    assert [(n, tuple(p.shape)) for n, p in ours.named_parameters()] == [
        (n, tuple(p.shape)) for n, p in theirs.named_parameters()
    ]
    assert issubclass(ctxgrad.nn.LSTM, ctxgrad.nn.RNNBase) and issubclass(torch.nn.LSTM, torch.nn.RNNBase)
    assert raised(lambda: ctxgrad.nn.RNNBase("FOO", 3, 4)) == raised(lambda: torch.nn.RNNBase("FOO", 3, 4))


@pytest.mark.torch_names("torch.nn.modules.batchnorm.BatchNorm2d")
def test_batchnorm_has_torchs_module_path() -> None:
    from torch.nn.modules.batchnorm import BatchNorm2d as TorchBatchNorm2d

    from ctxgrad.nn.modules.batchnorm import BatchNorm2d

    x = np.random.default_rng(1).standard_normal((2, 3, 4, 4))
    ours, theirs = BatchNorm2d(3).double()(ctxgrad.tensor(x)), TorchBatchNorm2d(3).double()(torch.tensor(x))
    assert BatchNorm2d is ctxgrad.nn.BatchNorm2d
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.torch_names("torch.nn.init.constant")
@pytest.mark.parametrize("name", ["constant", "uniform", "normal", "xavier_uniform", "kaiming_normal", "orthogonal"])
def test_the_old_init_names_warn_and_run_the_new_ones(name: str) -> None:
    args = (0.25,) if name == "constant" else ()
    messages = []
    for lib in (ctxgrad, torch):
        lib.manual_seed(0)
        with pytest.warns(FutureWarning) as record:
            out = getattr(lib.nn.init, name)(lib.empty(3, 4), *args)
        messages.append(str(record[0].message))
        assert tuple(out.shape) == (3, 4)
        if name == "constant":
            assert out.tolist() == [[0.25] * 4] * 3
    assert messages[0] == messages[1] == f"`nn.init.{name}` is now deprecated in favor of `nn.init.{name}_`."


# --------------------------------------------------------------------------- attention backends
@pytest.mark.torch_names("torch.nn.attention.sdpa_kernel", "torch.nn.attention.SDPBackend")
@pytest.mark.parametrize("choice", ["MATH", "FLASH_ATTENTION", ["MATH", "EFFICIENT_ATTENTION"], ["CUDNN_ATTENTION"]])
def test_sdpa_kernel_sets_the_backend_switches_for_its_block_as_torch(choice: Any) -> None:
    from torch.nn.attention import SDPBackend as TorchSDPBackend
    from torch.nn.attention import sdpa_kernel as torch_sdpa_kernel

    from ctxgrad.nn.attention import SDPBackend, sdpa_kernel

    assert {m.name: m.value for m in SDPBackend} == {
        name: member.value for name, member in TorchSDPBackend.__members__.items()
    }
    q = np.random.default_rng(2).standard_normal((1, 2, 3, 4))
    switches, outs = [], []
    for lib, backend, kernel in ((ctxgrad, SDPBackend, sdpa_kernel), (torch, TorchSDPBackend, torch_sdpa_kernel)):
        chosen = [getattr(backend, c) for c in choice] if isinstance(choice, list) else getattr(backend, choice)
        with kernel(chosen):
            switches.append(_sdp_switches(lib))
            if lib.backends.cuda.math_sdp_enabled():
                t = lib.tensor(q)
                outs.append(lib.nn.functional.scaled_dot_product_attention(t, t, t).numpy())
        assert _sdp_switches(lib) == (True, True, True, True)
    assert switches[0] == switches[1]
    if outs:
        np.testing.assert_allclose(outs[0], outs[1], rtol=1e-10)


def _sdp_switches(lib: Any) -> tuple[bool, ...]:
    cuda = lib.backends.cuda
    return (
        cuda.flash_sdp_enabled(),
        cuda.mem_efficient_sdp_enabled(),
        cuda.math_sdp_enabled(),
        cuda.cudnn_sdp_enabled(),
    )


@pytest.mark.torch_names("torch.nn.attention.sdpa_kernel")
def test_sdpa_kernel_refuses_what_is_not_a_backend_as_torch() -> None:
    from torch.nn.attention import sdpa_kernel as torch_sdpa_kernel

    from ctxgrad.nn.attention import sdpa_kernel

    assert raised(lambda: sdpa_kernel("math")) == raised(lambda: torch_sdpa_kernel("math").__enter__())


@pytest.mark.torch_names("torch.backends.cuda.sdp_kernel")
def test_the_deprecated_sdp_kernel_warns_and_sets_the_switches_as_torch() -> None:
    for lib in (ctxgrad, torch):
        with pytest.warns(FutureWarning, match=r"`torch.backends.cuda.sdp_kernel\(\)` is deprecated"):
            block = lib.backends.cuda.sdp_kernel(enable_flash=False, enable_cudnn=False)
        with block:
            assert _sdp_switches(lib) == (False, True, True, False)
        assert _sdp_switches(lib) == (True, True, True, True)

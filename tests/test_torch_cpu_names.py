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

LIBS = [ctxgrad, torch]


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
@pytest.mark.torch_names("torch.nn.attention", "torch.nn.attention.sdpa_kernel", "torch.nn.attention.SDPBackend")
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


# --------------------------------------------------------------------------- torch.hub
@pytest.mark.torch_names(
    "torch.hub", "torch.hub.load_state_dict_from_url", "torch.hub.load_state_dict_from_url(map_location=)"
)
@pytest.mark.parametrize("check_hash", [False, True])
def test_load_state_dict_from_url_downloads_a_file_url_once_and_loads_it(tmp_path: Any, check_hash: bool) -> None:
    import hashlib

    loaded = []
    for lib in LIBS:
        source = tmp_path / lib.__name__ / "weights.pt"
        source.parent.mkdir()
        lib.save({"w": lib.arange(3.0)}, str(source))
        digest = hashlib.sha256(source.read_bytes()).hexdigest()[:8]
        named = source.with_name(f"weights-{digest}.pt")
        source.rename(named)
        cache = tmp_path / lib.__name__ / "cache"
        state = lib.hub.load_state_dict_from_url(named.as_uri(), model_dir=str(cache), check_hash=check_hash)
        named.unlink()  # cached now: a second call reads the cache, with no download
        again = lib.hub.load_state_dict_from_url(named.as_uri(), model_dir=str(cache), map_location="cpu")
        loaded.append((state["w"].tolist(), again["w"].tolist(), sorted(p.name for p in cache.iterdir())))
    assert loaded[0][:2] == loaded[1][:2] == ([0.0, 1.0, 2.0], [0.0, 1.0, 2.0])
    assert len(loaded[0][2]) == len(loaded[1][2]) == 1


@pytest.mark.torch_names("torch.hub.download_url_to_file", "torch.hub.HASH_REGEX")
def test_download_checks_the_hash_prefix_and_keeps_no_file_on_a_mismatch(tmp_path: Any) -> None:
    source = tmp_path / "data.bin"
    source.write_bytes(b"ctxgrad")
    assert ctxgrad.hub.HASH_REGEX.pattern == torch.hub.HASH_REGEX.pattern
    assert ctxgrad.hub.HASH_REGEX.search("resnet18-5c106cde.pth").group(1) == "5c106cde"
    for lib in LIBS:
        target = tmp_path / f"{lib.__name__}.bin"
        lib.hub.download_url_to_file(source.as_uri(), str(target), progress=False)
        assert target.read_bytes() == b"ctxgrad"
        bad = tmp_path / f"{lib.__name__}-bad.bin"
        with pytest.raises(RuntimeError, match=r'invalid hash value \(expected "ffff", got "'):
            lib.hub.download_url_to_file(source.as_uri(), str(bad), hash_prefix="ffff", progress=False)
        assert not bad.exists()


@pytest.mark.torch_names("torch.hub.download_url_to_file", "torch.hub.load_state_dict_from_url")
def test_a_url_that_cannot_be_reached_fails_with_urllibs_error_saying_what_to_do(tmp_path: Any) -> None:
    import urllib.error

    url = "http://127.0.0.1:9/weights.pt"  # the discard port: refused at once, no network needed
    with pytest.raises(urllib.error.URLError):
        torch.hub.download_url_to_file(url, str(tmp_path / "t.pt"), progress=False)
    with pytest.raises(urllib.error.URLError, match=r"ctxgrad.hub: cannot download .*put the file at .*file://"):
        ctxgrad.hub.load_state_dict_from_url(url, model_dir=str(tmp_path / "cache"))


@pytest.mark.torch_names("torch.hub.load")
def test_hub_load_runs_a_local_hubconf_entry_point_as_torch(tmp_path: Any) -> None:
    (tmp_path / "hubconf.py").write_text(
        "from helper import scale\n\ndef tiny(lib_name, factor=1.0):\n"
        "    import importlib\n    lib = importlib.import_module(lib_name)\n"
        "    return lib.nn.Linear(2, 1), scale(factor)\n"
    )
    (tmp_path / "helper.py").write_text("def scale(x):\n    return 2 * x\n")
    results = []
    for lib in LIBS:
        model, value = lib.hub.load(str(tmp_path), "tiny", lib.__name__, source="local", factor=3.0)
        results.append((type(model).__name__, value))
        with pytest.raises(RuntimeError, match="Cannot find callable missing in hubconf"):
            lib.hub.load(str(tmp_path), "missing", source="local")
        with pytest.raises(ValueError, match='Unknown source: "nowhere"'):
            lib.hub.load(str(tmp_path), "tiny", source="nowhere")
    assert results[0] == results[1] == ("Linear", 6.0)


@pytest.mark.torch_names("torch.hub.load")
def test_hub_load_from_github_refuses_to_download_code_naming_the_local_way(tmp_path: Any) -> None:
    ctxgrad.hub.set_dir(str(tmp_path))
    try:
        with pytest.raises(RuntimeError, match=r"ctxgrad downloads no code: clone it and pass its directory"):
            ctxgrad.hub.load("owner/repo", "model")
    finally:
        ctxgrad.hub._hub_dir = None


# --------------------------------------------------------------------------- torch.multiprocessing
def _put_square(i: int, queue: Any) -> None:
    queue.put((i, i * i))


def _fail_on_one(i: int) -> None:
    if i == 1:
        raise ValueError("worker one failed")


@pytest.mark.torch_names("torch.multiprocessing", "torch.multiprocessing.cpu_count")
def test_start_processes_runs_fn_with_its_index_in_each_process_as_torch() -> None:
    import multiprocessing

    results = []
    for lib in LIBS:
        queue = multiprocessing.get_context("fork").SimpleQueue()
        assert lib.multiprocessing.start_processes(_put_square, args=(queue,), nprocs=3, start_method="fork") is None
        results.append(sorted(queue.get() for _ in range(3)))
        assert lib.multiprocessing.cpu_count() == multiprocessing.cpu_count()
        assert lib.multiprocessing.Process is multiprocessing.Process
    assert results[0] == results[1] == [(0, 0), (1, 1), (2, 4)]


_CHILDS_ERROR = """
import ctxgrad, torch

def fail_on_one(i):
    if i == 1:
        raise ValueError("worker one failed")

if __name__ == "__main__":
    for lib in (ctxgrad, torch):
        try:
            lib.multiprocessing.start_processes(fail_on_one, nprocs=2, start_method="fork")
        except lib.multiprocessing.ProcessRaisedException as error:
            message = str(error)
            print(lib.__name__, error.error_index, type(error).__mro__[1].__name__,
                  "-- Process 1 terminated with the following error:" in message,
                  "ValueError: worker one failed" in message)
        else:
            print(lib.__name__, "did not raise")
"""


@pytest.mark.torch_names("torch.multiprocessing")
def test_a_childs_error_is_raised_in_the_parent_as_torch(tmp_path: Any) -> None:
    # (from a script, as a program runs it; repeated runs of this test found a race in
    # ProcessContext.join, which read the exit codes twice and could lose a child's error)
    import subprocess
    import sys

    script = tmp_path / "childs_error.py"
    script.write_text(_CHILDS_ERROR, encoding="utf-8")
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.split("\n")[:2] == [
        "ctxgrad 1 ProcessException True True",
        "torch 1 ProcessException True True",
    ]


_SPAWN = """
import math
import warnings

import ctxgrad, torch

if __name__ == "__main__":
    for lib in (ctxgrad, torch):
        print(lib.__name__, lib.multiprocessing.spawn(math.sqrt, nprocs=1))  # sqrt(0) in the child
        try:
            lib.multiprocessing.spawn(math.log, nprocs=1)  # log(0) in the child
        except lib.multiprocessing.ProcessRaisedException as error:
            print(lib.__name__, "ValueError: math domain error" in str(error))
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            lib.multiprocessing.spawn(math.sqrt, nprocs=1, start_method="fork")
        print(lib.__name__, [str(w.message).splitlines()[0] for w in caught if w.category is FutureWarning])
"""


@pytest.mark.torch_names("torch.multiprocessing.spawn")
def test_spawn_starts_fresh_interpreters_and_raises_a_childs_error_as_torch(tmp_path: Any) -> None:
    # (from a script, as a program runs it)
    import subprocess
    import sys

    script = tmp_path / "spawn.py"
    script.write_text(_SPAWN, encoding="utf-8")
    result = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    warning = "This method only supports start_method=spawn (got: fork)."
    assert result.stdout.splitlines() == [
        "ctxgrad None",
        "ctxgrad True",
        f"ctxgrad [{warning!r}]",
        "torch None",
        "torch True",
        f"torch [{warning!r}]",
    ]


@pytest.mark.torch_names("torch.multiprocessing.set_start_method", "torch.multiprocessing")
def test_multiprocessing_has_torchs_names() -> None:
    import torch.multiprocessing

    for name in ("set_start_method", "get_start_method", "Queue", "Pool", "Manager", "get_context", "start_processes"):
        assert callable(getattr(ctxgrad.multiprocessing, name)) and callable(getattr(torch.multiprocessing, name))
    assert ctxgrad.multiprocessing.get_all_sharing_strategies() == torch.multiprocessing.get_all_sharing_strategies()
    assert ctxgrad.multiprocessing.get_sharing_strategy() == torch.multiprocessing.get_sharing_strategy()


# --------------------------------------------------------------------------- CUDA, accelerators, versions
@pytest.mark.torch_names("torch.cuda.FloatTensor", "torch.cuda.LongTensor")
@pytest.mark.parametrize("name", ["FloatTensor", "LongTensor", "DoubleTensor", "ByteTensor", "BoolTensor"])
def test_cuda_legacy_types_exist_match_nothing_and_refuse_to_make_tensors(name: str) -> None:
    ours, theirs = getattr(ctxgrad.cuda, name), getattr(torch.cuda, name)
    assert isinstance(ours, type) and isinstance(theirs, type)
    assert not isinstance(ctxgrad.ones(1), ours) and not isinstance(torch.ones(1), theirs)
    ours_error, theirs_error = raised(lambda: ours([1])), raised(lambda: theirs([1]))
    assert ours_error[0] == theirs_error[0] == "TypeError"
    assert ours_error[1].startswith(f"type torch.cuda.{name} not available.") and theirs_error[1].startswith(
        f"type torch.cuda.{name} not available."
    )


@pytest.mark.torch_names("torch.cuda.OutOfMemoryError")
def test_out_of_memory_error_is_a_runtime_error_to_catch() -> None:
    for lib in LIBS:
        assert issubclass(lib.cuda.OutOfMemoryError, RuntimeError)
        with pytest.raises(lib.cuda.OutOfMemoryError):
            raise lib.cuda.OutOfMemoryError("out of memory")


@pytest.mark.torch_names("torch.version.cuda", "torch.accelerator.is_available", "torch.accelerator.device_count")
def test_the_build_and_accelerator_questions_get_a_cpu_only_torchs_answers() -> None:
    import torch.version

    import ctxgrad.version

    assert ctxgrad.version.cuda is torch.version.cuda is None
    assert ctxgrad.version.hip is torch.version.hip is None
    assert ctxgrad.cuda._initialized is torch.cuda._initialized is False
    assert ctxgrad.accelerator.is_available() is torch.accelerator.is_available() is False
    assert ctxgrad.accelerator.device_count() == torch.accelerator.device_count() == 0


@pytest.mark.torch_names("torch.accelerator.current_accelerator")
def test_current_accelerator_is_none_as_torch_without_one() -> None:
    for check in (False, True):
        assert ctxgrad.accelerator.current_accelerator(check) is torch.accelerator.current_accelerator(check) is None


@pytest.mark.torch_names("torch.distributed.is_available")
def test_distributed_is_not_available_where_torchs_cpu_build_has_gloo() -> None:
    assert torch.distributed.is_available() is True  # docs/differences.md: ctxgrad runs in one process
    assert ctxgrad.distributed.is_available() is False
    assert ctxgrad.distributed.is_initialized() is torch.distributed.is_initialized() is False


@pytest.mark.torch_names("torch.set_num_threads")
def test_set_num_threads_as_torch() -> None:
    before = ctxgrad.get_num_threads(), torch.get_num_threads()
    assert before[0] == before[1]
    try:
        for lib in LIBS:
            lib.set_num_threads(1)
            assert lib.get_num_threads() == 1
        for bad in (0, -2, 2.5, "2"):
            assert raised(lambda b=bad: ctxgrad.set_num_threads(b)) == raised(lambda b=bad: torch.set_num_threads(b))
    finally:
        ctxgrad.set_num_threads(before[0])
        torch.set_num_threads(before[1])


# --------------------------------------------------------------------------- testing, autograd, serialization
@pytest.mark.torch_names("torch.testing.assert_allclose")
@pytest.mark.parametrize(
    ("actual", "expected", "dtype"),
    [
        ([1.0, 2.0], [1.0, 2.00001], "float32"),
        ([1.0], [1.1], "float32"),
        ([1.0, float("nan")], [1.0, float("nan")], "float64"),
        ([1, 2], [1, 3], "int64"),
    ],
)
def test_assert_allclose_is_deprecated_and_compares_as_torch(actual: Any, expected: Any, dtype: str) -> None:
    outcomes = []
    for lib in LIBS:
        with pytest.warns(FutureWarning, match=r"assert_allclose\(\)` is deprecated since 1.12"):
            outcomes.append(
                raised_or_none(
                    lambda lib=lib: lib.testing.assert_allclose(lib.tensor(actual, dtype=getattr(lib, dtype)), expected)
                )
            )
    assert outcomes[0] == outcomes[1]


def raised_or_none(call: Callable[[], Any]) -> tuple[str, str] | None:
    try:
        call()
    except AssertionError as error:
        first = str(error).splitlines()[0]
        return type(error).__name__, first
    return None


@pytest.mark.torch_names("torch.autograd.profiler.record_function")
def test_record_function_labels_a_block_and_a_function_as_torch() -> None:
    for lib in LIBS:
        with lib.autograd.profiler.record_function("step") as block:
            assert block.name == "step"
            y = (lib.ones(2, requires_grad=True) * 3).sum()

        @lib.autograd.profiler.record_function("double")
        def double(x: Any) -> Any:
            return x * 2

        assert y.item() == 6.0 and double(lib.tensor(2.0)).item() == 4.0


@pytest.mark.torch_names("torch.autograd._is_checkpoint_valid")
def test_is_checkpoint_valid_outside_backward_as_torch() -> None:
    assert ctxgrad.autograd._is_checkpoint_valid() is torch.autograd._is_checkpoint_valid() is True


class _Point:
    def __init__(self, x: float) -> None:
        self.x = x


@pytest.mark.torch_names("torch.serialization.safe_globals")
def test_safe_globals_lets_weights_only_load_an_allowed_class_as_torch(tmp_path: Any) -> None:
    for lib in LIBS:
        path = str(tmp_path / f"{lib.__name__}.pt")
        lib.save({"point": _Point(2.5), "w": lib.ones(2)}, path)
        with pytest.raises(Exception, match="Weights only load failed") as info:
            lib.load(path, weights_only=True)
        assert type(info.value).__name__ == "UnpicklingError"
        with lib.serialization.safe_globals([_Point]):
            loaded = lib.load(path, weights_only=True)
        with lib.serialization.safe_globals([lib.Size]), pytest.raises(Exception, match=r"GLOBAL .*_Point was not an"):
            lib.load(path, weights_only=True)
        assert loaded["point"].x == 2.5 and loaded["w"].tolist() == [1.0, 1.0]
        assert _Point not in lib.serialization.get_safe_globals()


@pytest.mark.torch_names("torch.return_types.values", "torch.return_types.indices")
@pytest.mark.parametrize("op", ["max", "min", "sort", "topk", "median", "kthvalue", "mode", "cummax"])
def test_return_types_have_values_and_indices_as_torch(op: str) -> None:
    data = [[3.0, 1.0, 2.0], [0.5, 4.0, 4.0]]
    args = {"topk": (2,), "kthvalue": (2,), "cummax": (1,)}.get(
        op, (1,) if op in ("max", "min", "median", "mode") else ()
    )
    ours, theirs = getattr(ctxgrad.tensor(data), op)(*args), getattr(torch.tensor(data), op)(*args)
    assert type(ours).__name__ == type(theirs).__name__ == op
    assert isinstance(ours, getattr(ctxgrad.return_types, op)) and isinstance(theirs, getattr(torch.return_types, op))
    assert ours.values.tolist() == theirs.values.tolist() and ours.indices.tolist() == theirs.indices.tolist()
    values, indices = ours
    assert values.tolist() == theirs[0].tolist() and indices.tolist() == theirs[1].tolist()


# --------------------------------------------------------------------------- utils
def _stream_class(lib: Any, with_len: bool) -> Any:
    class Numbers(lib.utils.data.IterableDataset):
        def __init__(self, n: int) -> None:
            self.n = n

        def __iter__(self) -> Any:
            return iter([lib.tensor([float(i), float(-i)]) for i in range(self.n)])

    if with_len:
        Numbers.__len__ = lambda self: self.n  # type: ignore[attr-defined]
    return Numbers


@pytest.mark.torch_names("torch.utils.data.IterableDataset", "torch.utils.data.DataLoader")
@pytest.mark.parametrize(("batch_size", "drop_last"), [(3, False), (3, True), (None, False), (7, False)])
def test_a_data_loader_batches_an_iterable_dataset_as_torch(batch_size: int | None, drop_last: bool) -> None:
    seen = []
    for lib in LIBS:
        loader = lib.utils.data.DataLoader(_stream_class(lib, True)(7), batch_size=batch_size, drop_last=drop_last)
        seen.append(([b.tolist() for b in loader], len(loader)))
    assert seen[0] == seen[1]


@pytest.mark.torch_names("torch.utils.data.IterableDataset")
@pytest.mark.parametrize("option", [{"shuffle": True}, {"sampler": [0, 1]}, {"batch_sampler": [[0]]}])
def test_an_iterable_dataset_refuses_samplers_and_shuffling_as_torch(option: dict[str, Any]) -> None:
    assert raised(lambda: ctxgrad.utils.data.DataLoader(_stream_class(ctxgrad, False)(3), **option)) == raised(
        lambda: torch.utils.data.DataLoader(_stream_class(torch, False)(3), **option)
    )


@pytest.mark.torch_names("torch.utils.data.IterableDataset")
def test_a_stream_without_len_has_no_loader_length_as_torch() -> None:
    ours = raised(lambda: len(ctxgrad.utils.data.DataLoader(_stream_class(ctxgrad, False)(3), batch_size=2)))
    theirs = raised(lambda: len(torch.utils.data.DataLoader(_stream_class(torch, False)(3), batch_size=2)))
    assert ours == theirs


@pytest.mark.torch_names("torch.utils.data.get_worker_info")
def test_get_worker_info_is_none_in_the_main_process_as_torch() -> None:
    assert ctxgrad.utils.data.get_worker_info() is torch.utils.data.get_worker_info() is None


@pytest.mark.torch_names(
    "torch.utils.data.sampler",
    "torch.utils.data.sampler.SubsetRandomSampler",
    "torch.utils.data.dataloader",
    "torch.utils.data.dataloader.default_collate",
)
def test_the_sampler_and_dataloader_module_paths_as_torch() -> None:
    from torch.utils.data.dataloader import default_collate as torch_collate
    from torch.utils.data.sampler import SubsetRandomSampler as TorchSubsetRandomSampler

    from ctxgrad.utils.data.dataloader import default_collate
    from ctxgrad.utils.data.sampler import SubsetRandomSampler

    indices = [7, 3, 9, 1]
    ours, theirs = SubsetRandomSampler(indices), TorchSubsetRandomSampler(indices)
    assert len(ours) == len(theirs) == 4
    assert sorted(ours) == sorted(theirs) == sorted(indices)
    batch = [(np.float64(1.5), [1, 2]), (np.float64(2.5), [3, 4])]
    ours_batch, theirs_batch = default_collate(batch), torch_collate(batch)
    assert ours_batch[0].tolist() == theirs_batch[0].tolist() and str(ours_batch[0].dtype).endswith("float64")
    assert [t.tolist() for t in ours_batch[1]] == [t.tolist() for t in theirs_batch[1]]


@pytest.mark.torch_names("torch.utils.hooks", "torch.utils.hooks.RemovableHandle")
def test_removable_handle_has_torchs_path_and_removes_a_hook() -> None:
    import torch.utils.hooks

    import ctxgrad.utils.hooks

    for lib, handle_type in (
        (ctxgrad, ctxgrad.utils.hooks.RemovableHandle),
        (torch, torch.utils.hooks.RemovableHandle),
    ):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        handle = x.register_hook(lambda g: g * 10)
        assert isinstance(handle, handle_type)
        handle.remove()
        (x * 3).sum().backward()
        assert x.grad.tolist() == [3.0, 3.0]


@pytest.mark.torch_names("torch.utils.benchmark", "torch.utils.benchmark.Timer")
def test_the_benchmark_timer_runs_the_statement_as_torchs() -> None:
    import torch.utils.benchmark

    import ctxgrad.utils.benchmark

    for module in (ctxgrad.utils.benchmark, torch.utils.benchmark):
        calls: list[int] = []
        measurement = module.Timer("calls.append(1)", globals={"calls": calls}, label="append").timeit(25)
        assert len(calls) == 25 + 2  # a warm-up of 2 runs first, as torch
        assert measurement.number_per_run == 25 and len(measurement.times) == 1
        assert measurement.times[0] >= 0 and measurement.mean == measurement.median == measurement.times[0]
        assert measurement.title == "append"
        blocked = module.Timer("x + 1", globals={"x": 1}).blocked_autorange(min_run_time=0.001)
        assert blocked.number_per_run >= 1 and len(blocked.times) >= 1 and blocked.median >= 0


# --------------------------------------------------------------------------- memory formats
def _formats(lib: Any) -> dict[str, Any]:
    names = ("contiguous_format", "preserve_format", "channels_last", "channels_last_3d")
    return {name: getattr(lib, name) for name in names}


@pytest.mark.torch_names("torch.contiguous_format", "torch.channels_last", "torch.preserve_format", "Tensor.contiguous")
@pytest.mark.parametrize("name", ["contiguous_format", "channels_last"])
@pytest.mark.parametrize("permuted", [False, True])
def test_contiguous_to_and_clone_lay_out_as_torch(name: str, permuted: bool) -> None:
    data = np.arange(2 * 3 * 4 * 5, dtype=np.float32).reshape(2, 3, 4, 5)
    seen = []
    for lib in LIBS:
        fmt = _formats(lib)[name]
        x = lib.tensor(data, requires_grad=True)
        source = x.permute(0, 2, 3, 1).permute(0, 3, 1, 2) if permuted else x * 1
        outs = [
            source.contiguous(memory_format=fmt),
            source.to(memory_format=fmt),
            source.clone(memory_format=fmt),
            source.clone(),
            lib.zeros_like(source, memory_format=fmt),
            lib.empty_like(source),
            source.to(lib.float64, memory_format=fmt),
        ]
        (outs[0] * lib.arange(120.0).reshape(2, 3, 4, 5)).sum().backward()
        seen.append(
            [(o.stride(), o.is_contiguous(), o.is_contiguous(memory_format=fmt)) for o in outs]
            + [outs[0].detach().numpy().tolist(), x.grad.numpy().tolist()]
        )
    assert seen[0] == seen[1]


@pytest.mark.torch_names("torch.channels_last", "torch.contiguous_format")
def test_channels_last_3d_and_the_format_checks_as_torch() -> None:
    assert (
        ctxgrad.zeros(1, 2, 3, 4, 5).contiguous(memory_format=ctxgrad.channels_last_3d).stride()
        == torch.zeros(1, 2, 3, 4, 5).contiguous(memory_format=torch.channels_last_3d).stride()
    )
    calls = [
        lambda lib: lib.zeros(2, 3).contiguous(memory_format=lib.channels_last),
        lambda lib: lib.zeros(1, 2, 3, 4).contiguous(memory_format=lib.channels_last_3d),
        lambda lib: lib.zeros(2, 3).to(memory_format=lib.channels_last),
        lambda lib: lib.zeros(2, 3).clone(memory_format=lib.channels_last),
        lambda lib: lib.zeros(2, 3).t().contiguous(memory_format=lib.preserve_format),
        lambda lib: lib.zeros(2, 3).clone(memory_format=3),
    ]
    for call in calls:
        assert raised(lambda c=call: c(ctxgrad)) == raised(lambda c=call: c(torch))
    assert repr(ctxgrad.channels_last) == "ctxgrad.channels_last" and repr(torch.channels_last) == "torch.channels_last"


# --------------------------------------------------------------------------- Tensor names
@pytest.mark.torch_names("Tensor.storage", "Tensor.untyped_storage")
@pytest.mark.filterwarnings("ignore:TypedStorage is deprecated")
def test_storages_report_the_owning_memory_as_torch() -> None:
    seen = []
    for lib in LIBS:
        x = lib.arange(12, dtype=lib.float64).reshape(3, 4)
        view = x[1:, ::2]
        typed, untyped = view.storage(), view.untyped_storage()
        seen.append(
            (
                typed.size(),
                len(typed),
                typed.nbytes(),
                typed.element_size(),
                untyped.size(),
                untyped.nbytes(),
                untyped.element_size(),
                typed.data_ptr() == untyped.data_ptr() == x.data_ptr(),
                view.data_ptr() - x.data_ptr(),
                typed.tolist()[:3],
                str(typed.dtype).split(".")[-1],
                untyped.is_shared(),
            )
        )
    assert seen[0] == seen[1]


@pytest.mark.torch_names("Tensor.share_memory_")
def test_share_memory_lets_a_forked_process_write_the_values_as_torch() -> None:
    import multiprocessing

    def write(x: Any) -> None:
        x[1] = 42.0

    for lib in LIBS:
        x = lib.zeros(3)
        assert not x.is_shared()
        assert x.share_memory_() is x and x.is_shared()
        process = multiprocessing.get_context("fork").Process(target=write, args=(x,))
        process.start()
        process.join()
        assert process.exitcode == 0 and x.tolist() == [0.0, 42.0, 0.0]


@pytest.mark.torch_names("Tensor.share_memory_")
def test_share_memory_of_a_view_is_refused_naming_the_base() -> None:
    torch.ones(4)[1:].share_memory_()  # torch moves the whole storage; docs/differences.md
    with pytest.raises(RuntimeError, match=r"share_memory_\(\): .* is a view .*call share_memory_\(\) on the tensor"):
        ctxgrad.ones(4)[1:].share_memory_()


@pytest.mark.torch_names("Tensor.resize_as_")
def test_resize_as_takes_the_templates_size_as_torch() -> None:
    for lib in LIBS:
        x = lib.arange(6.0)
        assert x.resize_as_(lib.zeros(2, 2)) is x
        assert tuple(x.shape) == (2, 2) and x.tolist() == [[0.0, 1.0], [2.0, 3.0]]


@pytest.mark.torch_names("Tensor.layout")
def test_layout_is_strided_as_torch() -> None:
    assert repr(ctxgrad.ones(2).layout) == "ctxgrad.strided" and ctxgrad.ones(2).layout is ctxgrad.strided
    assert torch.ones(2).layout is torch.strided


@pytest.mark.torch_names("Tensor.H")
@pytest.mark.parametrize("data", [[[1 + 2j, 3 - 1j], [0.5j, 2]], [[1.0, 2.0, 3.0]]])
def test_h_is_the_conjugate_transpose_with_its_gradient_as_torch(data: Any) -> None:
    results = []
    for lib in LIBS:
        x = lib.tensor(data, requires_grad=True)
        h = x.H
        weights = lib.arange(float(h.numel())).reshape(h.shape).to(h.dtype)
        (h * weights).sum().abs().backward()
        results.append((h.detach().resolve_conj().numpy(), x.grad.numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0])
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-6)


@pytest.mark.torch_names("Tensor.H")
def test_h_refuses_other_ranks_and_warns_on_0d_as_torch() -> None:
    for shape in [(3,), (2, 2, 2)]:
        assert raised(lambda s=shape: ctxgrad.ones(*s).H) == raised(lambda s=shape: torch.ones(*s).H)
    for lib in LIBS:
        with pytest.warns(UserWarning, match="Tensor.H is deprecated on 0-D tensors"):
            assert lib.tensor(1 + 2j).H.item() == 1 - 2j


@pytest.mark.torch_names("Tensor.__abs__", "Tensor.abs")
def test_builtin_abs_of_a_tensor_with_its_gradient_as_torch() -> None:
    results = []
    for lib in LIBS:
        x = lib.tensor([-2.0, 0.5, -0.25], requires_grad=True)
        y = abs(x)
        (y * lib.tensor([1.0, 2.0, 3.0])).sum().backward()
        results.append((y.detach().tolist(), x.grad.tolist(), str(abs(lib.tensor([-3])).dtype).split(".")[-1]))
    assert results[0] == results[1]


@pytest.mark.torch_names("Tensor.unsqueeze_", "Tensor.squeeze_")
def test_unsqueeze_and_squeeze_in_place_as_torch() -> None:
    results = []
    for lib in LIBS:
        x = lib.ones(2, 1, 3)
        same = x.squeeze_(1) is x
        shapes = [tuple(x.shape)]
        x.unsqueeze_(0)
        shapes.append(tuple(x.shape))
        x.unsqueeze_(-1).squeeze_()
        shapes.append(tuple(x.shape))
        results.append((same, shapes))
    assert results[0] == results[1] == (True, [(2, 3), (1, 2, 3), (2, 3)])


@pytest.mark.torch_names("torch.optim.Optimizer.param_groups")
def test_param_groups_hold_the_parameters_and_settings_as_torch() -> None:
    seen = []
    for lib in LIBS:
        a, b = lib.nn.Parameter(lib.ones(2)), lib.nn.Parameter(lib.ones(3))
        opt = lib.optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1, momentum=0.9)
        for group in opt.param_groups:
            group["lr"] *= 2  # how schedulers written by hand change the learning rate
        (a.sum() + b.sum()).backward()
        opt.step()
        seen.append(([g["lr"] for g in opt.param_groups], a.detach().tolist(), b.detach().tolist()))
        assert opt.param_groups[1]["params"][0] is b and opt.param_groups[0]["momentum"] == 0.9
    assert seen[0] == seen[1]


@pytest.mark.torch_names("torch.is_storage", "Tensor.untyped_storage")
@pytest.mark.filterwarnings("ignore:TypedStorage is deprecated")
def test_is_storage_recognises_storages_as_torch() -> None:
    for lib in LIBS:
        x = lib.ones(2)
        assert lib.is_storage(x.untyped_storage()) and lib.is_storage(x.storage())
        assert not lib.is_storage(x)


# --------------------------------------------------------------------------- torch.embedding, optim.ASGD
@pytest.mark.torch_names("torch.embedding")
@pytest.mark.parametrize(("padding_idx", "scale"), [(-1, False), (0, False), (-1, True), (2, True)])
def test_embedding_takes_the_weight_first_with_torchs_gradients(padding_idx: int, scale: bool) -> None:
    w = np.random.default_rng(3).standard_normal((4, 3))
    results = []
    for lib in LIBS:
        weight = lib.tensor(w, requires_grad=True)
        out = lib.embedding(weight, lib.tensor([[0, 3], [0, 2]]), padding_idx, scale)
        (out * lib.arange(12.0, dtype=lib.float64).reshape(2, 2, 3)).sum().backward()
        results.append((out.detach().numpy(), weight.grad.numpy()))
    np.testing.assert_allclose(results[0][0], results[1][0])
    np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-12)


@pytest.mark.torch_names("torch.embedding")
def test_embedding_refuses_bad_indices_as_torch() -> None:
    for bad in ([5], [-1]):
        assert raised(lambda b=bad: ctxgrad.embedding(ctxgrad.ones(4, 2), ctxgrad.tensor(b))) == raised(
            lambda b=bad: torch.embedding(torch.ones(4, 2), torch.tensor(b))
        )


@pytest.mark.torch_names("torch.optim.ASGD")
@pytest.mark.parametrize(
    "kwargs",
    [{}, {"lambd": 0.1, "t0": 2, "alpha": 0.5}, {"weight_decay": 0.1, "maximize": True, "t0": 0}, {"lr": 0.3}],
)
def test_asgd_steps_and_averages_as_torch(kwargs: dict[str, Any]) -> None:
    x0 = np.array([1.5, -2.0, 0.25])
    runs = []
    for lib in LIBS:
        w = lib.tensor(x0, requires_grad=True)
        opt = lib.optim.ASGD([w], **kwargs)
        for _ in range(5):
            opt.zero_grad()
            ((w - 1.0) ** 4).sum().backward()
            opt.step()
        state = opt.state[w]
        runs.append(
            (w.detach().numpy(), state["ax"].numpy(), state["eta"].item(), state["mu"].item(), state["step"].item())
        )
    np.testing.assert_allclose(runs[0][0], runs[1][0], rtol=1e-6)
    np.testing.assert_allclose(runs[0][1], runs[1][1], rtol=1e-6)
    assert runs[0][2:] == pytest.approx(runs[1][2:], rel=1e-6)


@pytest.mark.torch_names("torch.optim.ASGD")
@pytest.mark.parametrize("kwargs", [{"lr": -1.0}, {"weight_decay": -0.5}])
def test_asgd_refuses_bad_settings_as_torch(kwargs: dict[str, Any]) -> None:
    assert raised(lambda: ctxgrad.optim.ASGD([ctxgrad.ones(1, requires_grad=True)], **kwargs)) == raised(
        lambda: torch.optim.ASGD([torch.ones(1, requires_grad=True)], **kwargs)
    )


@pytest.mark.torch_names("torch.channels_last")
def test_channels_last_inside_vmap_is_refused_as_torch() -> None:
    calls = [
        lambda lib: lib.vmap(lambda x: x.contiguous(memory_format=lib.channels_last))(lib.ones(3, 2, 2, 2, 2)),
        lambda lib: lib.vmap(lambda x: x.clone(memory_format=lib.channels_last))(lib.ones(3, 2, 2, 2, 2)),
    ]
    for call in calls:
        assert raised(lambda c=call: c(ctxgrad)) == raised(lambda c=call: c(torch))
    for lib in LIBS:  # the row-major formats are fine there
        out = lib.vmap(lambda x, lib=lib: x.clone(memory_format=lib.contiguous_format) * 2)(lib.ones(3, 2))
        assert out.tolist() == [[2.0, 2.0]] * 3

"""The porting shims: devices and CUDA on a CPU, cuDNN's and MPS's flags, the default device,
the legacy tensor types and ``Tensor.new``/``Tensor.type``, dtype facts and promotion, and the
random generator's state.  Each runs the same code on ctxgrad and torch where torch has it."""

from __future__ import annotations

import pickle
from typing import Any

import numpy as np
import pytest
from _support import dtype_name, raised

import ctxgrad


def both(call: Any, torch: Any) -> tuple[tuple[str, str], tuple[str, str]]:
    """The error of ``call(ctxgrad)`` and of ``call(torch)``, as ``raised`` gives them."""
    return raised(lambda: call(ctxgrad), ctxgrad), raised(lambda: call(torch), torch)


# --- ctxgrad.device -----------------------------------------------------------------------------

DEVICE_ARGS: list[tuple[Any, ...]] = [
    ("cpu",),
    ("cpu", 0),
    ("cpu:0",),
    ("cuda",),
    ("cuda:1",),
    ("cuda", 2),
    ("meta",),
    ("mps",),
]


@pytest.mark.parametrize("args", DEVICE_ARGS, ids=str)
def test_device_type_index_str_and_repr_match_torch(torch: Any, args: tuple[Any, ...]) -> None:
    ours, theirs = ctxgrad.device(*args), torch.device(*args)
    assert (ours.type, ours.index, str(ours)) == (theirs.type, theirs.index, str(theirs))
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize(
    "args",
    [("xyz",), ("CPU",), (" cpu",), ("cpu:x",), ("cpu:00",), ("cpu:-1",), ("cpu:0", 0), ("cpu", -1), (0,)],
    ids=str,
)
def test_device_refuses_what_torch_refuses_with_its_message(torch: Any, args: tuple[Any, ...]) -> None:
    assert raised(lambda: ctxgrad.device(*args), ctxgrad) == raised(lambda: torch.device(*args), torch)


def test_device_argument_types_are_checked(torch: Any) -> None:
    for args in [(None,), ("cpu", "0")]:
        ours, theirs = both(lambda lib, args=args: lib.device(*args), torch)
        assert ours[0] == theirs[0] == "TypeError"


def test_device_equality_and_hash_as_torch(torch: Any) -> None:
    pairs = [(("cpu",), ("cpu",)), (("cpu",), ("cpu", 0)), (("cpu", 0), ("cpu:0",)), (("cuda", 1), ("cuda:1",))]
    for a, b in pairs:
        assert (ctxgrad.device(*a) == ctxgrad.device(*b)) == (torch.device(*a) == torch.device(*b))
    for text in ["cpu", "cpu:0"]:  # a device never equals a string, in torch as here
        assert (ctxgrad.device(text) == text) == (torch.device(text) == text) is False
        assert (text == ctxgrad.device(text)) == (text == torch.device(text)) is False
    assert len({ctxgrad.device("cpu"), ctxgrad.device(ctxgrad.device("cpu")), ctxgrad.device("cpu", 0)}) == 2


def test_device_pickles_and_is_a_tensors_device() -> None:
    d = ctxgrad.device("cpu", 0)
    assert pickle.loads(pickle.dumps(d)) == d
    assert ctxgrad.zeros(1).device == ctxgrad.device("cpu")
    assert ctxgrad.zeros(1, device=d).device.type == "cpu"
    assert ctxgrad.zeros(1).to(d).device.type == "cpu"


def test_device_methods_of_a_tensor_match_torch(torch: Any) -> None:
    assert ctxgrad.ones(1).get_device() == torch.ones(1).get_device() == -1
    assert ctxgrad.ones(1).is_pinned() is torch.ones(1).is_pinned() is False
    ours, theirs = both(lambda lib: lib.ones(1).pin_memory(), torch)
    assert ours == theirs


def test_a_device_is_a_context_for_the_cpu_only(torch: Any) -> None:
    with ctxgrad.device("cpu") as d, torch.device("cpu"):
        assert d == ctxgrad.device("cpu") and ctxgrad.zeros(1).device.type == torch.zeros(1).device.type
    with pytest.raises(AssertionError, match="CPU only"), ctxgrad.device("cuda"):
        pass


# --- CUDA: the same failure as a CPU-only torch ---------------------------------------------------

CUDA_REQUESTS = {
    "factory": lambda lib: lib.zeros(2, device="cuda"),
    "factory_index": lambda lib: lib.tensor([1.0], device="cuda:0"),
    "factory_device": lambda lib: lib.ones(2, device=lib.device("cuda")),
    "method": lambda lib: lib.zeros(2).cuda(),
    "method_index": lambda lib: lib.zeros(2).cuda(0),
    "module_index": lambda lib: lib.nn.Linear(2, 2).cuda(0),
    "to": lambda lib: lib.zeros(2).to("cuda"),
    "to_keyword": lambda lib: lib.zeros(2).to(device="cuda:0"),
    "to_index": lambda lib: lib.zeros(2).to(0),
    "module": lambda lib: lib.nn.Linear(2, 2).cuda(),
    "module_to": lambda lib: lib.nn.Linear(2, 2).to("cuda"),
    "new_zeros": lambda lib: lib.ones(1).new_zeros(2, device="cuda"),
    "as_tensor": lambda lib: lib.as_tensor([1.0], device="cuda"),
    "set_default_device": lambda lib: lib.set_default_device("cuda") or lib.zeros(1),
    "current_device": lambda lib: lib.cuda.current_device(),
    "get_device_name": lambda lib: lib.cuda.get_device_name(),
    "init": lambda lib: lib.cuda.init(),
    "get_rng_state": lambda lib: lib.cuda.get_rng_state(),
    "fork_rng_devices": lambda lib: lib.random.fork_rng(devices=[0]).__enter__(),
}


@pytest.mark.parametrize("request_", CUDA_REQUESTS.values(), ids=CUDA_REQUESTS.keys())
def test_asking_for_cuda_fails_as_in_cpu_only_torch(torch: Any, request_: Any) -> None:
    try:
        expected = raised(lambda: request_(torch), torch)
    finally:
        torch.set_default_device(None)
    kind, message = raised(lambda: request_(ctxgrad), ctxgrad)
    assert kind == expected[0]
    if kind == "AssertionError":  # torch: "Torch not compiled with CUDA enabled"
        assert "runs on the CPU only" in message and "CUDA" in message
    else:  # a bare device index: no accelerator
        assert (kind, message) == expected


def test_other_devices_fail_for_a_tensor_with_the_cpu_named() -> None:
    for dev in ["mps", "meta", "xla:0"]:
        with pytest.raises(RuntimeError, match=f"CPU only: it has no {dev.split(':')[0]} device"):
            ctxgrad.zeros(1, device=dev)
    with pytest.raises(RuntimeError, match="Expected one of cpu, cuda"):
        ctxgrad.zeros(1, device="gpu")


def test_cuda_answers_match_cpu_only_torch(torch: Any) -> None:
    for name in ["is_available", "device_count", "is_initialized", "is_bf16_supported", "memory_allocated"]:
        assert getattr(ctxgrad.cuda, name)() == getattr(torch.cuda, name)(), name
    for name in ["max_memory_allocated", "memory_reserved", "max_memory_reserved", "get_rng_state_all"]:
        assert getattr(ctxgrad.cuda, name)() == getattr(torch.cuda, name)(), name
    assert ctxgrad.cuda.memory_stats() == torch.cuda.memory_stats() == {}
    for name in ["empty_cache", "seed", "seed_all"]:
        assert getattr(ctxgrad.cuda, name)() is None and getattr(torch.cuda, name)() is None
    assert ctxgrad.cuda.synchronize() is None  # torch without CUDA fails here: ctxgrad has nothing to wait for


def test_cuda_seeding_does_nothing_but_checks_the_seed(torch: Any) -> None:
    _ = ctxgrad.manual_seed(3)
    before = ctxgrad.get_rng_state()
    assert ctxgrad.cuda.manual_seed(5) is None and ctxgrad.cuda.manual_seed_all(5) is None
    assert ctxgrad.equal(ctxgrad.get_rng_state(), before)
    assert raised(lambda: ctxgrad.cuda.manual_seed("a"), ctxgrad) == raised(lambda: torch.cuda.manual_seed("a"), torch)


def test_the_cuda_idiom_picks_the_cpu() -> None:
    device = ctxgrad.device("cuda" if ctxgrad.cuda.is_available() else "cpu")
    model = ctxgrad.nn.Linear(2, 1).to(device)
    assert model(ctxgrad.ones(3, 2, device=device)).shape == (3, 1)


# --- backends and the default device ------------------------------------------------------------


def test_cudnn_flags_have_torchs_defaults_and_check_bools(torch: Any) -> None:
    for name in ["enabled", "benchmark", "deterministic", "allow_tf32"]:
        assert getattr(ctxgrad.backends.cudnn, name) == getattr(torch.backends.cudnn, name), name
    assert ctxgrad.backends.cudnn.is_available() is torch.backends.cudnn.is_available() is False
    assert ctxgrad.backends.cudnn.version() is None
    kind, message = raised(lambda: setattr(ctxgrad.backends.cudnn, "deterministic", "x"), ctxgrad)
    assert (kind, message) == raised(lambda: setattr(torch.backends.cudnn, "deterministic", "x"), torch)
    assert ctxgrad.backends.cudnn.deterministic is False


def test_cudnn_flags_are_set_by_assignment_and_by_the_flags_context() -> None:
    cudnn = ctxgrad.backends.cudnn
    try:
        cudnn.deterministic = True
        cudnn.benchmark = True
        assert cudnn.deterministic is True and cudnn.benchmark is True
        with cudnn.flags(enabled=False, deterministic=False):
            assert (cudnn.enabled, cudnn.deterministic, cudnn.benchmark) == (False, False, False)
        assert (cudnn.enabled, cudnn.deterministic, cudnn.benchmark) == (True, True, True)
    finally:
        cudnn.deterministic = False
        cudnn.benchmark = False
    with pytest.raises(AttributeError, match="has no attribute 'nope'"):
        _ = cudnn.nope


def test_deterministic_algorithms_switch_as_torch(torch: Any) -> None:
    try:
        for mode, warn_only in [(True, False), (True, True), (False, False)]:
            ctxgrad.use_deterministic_algorithms(mode, warn_only=warn_only)
            torch.use_deterministic_algorithms(mode, warn_only=warn_only)
            assert ctxgrad.are_deterministic_algorithms_enabled() is torch.are_deterministic_algorithms_enabled()
            assert (
                ctxgrad.is_deterministic_algorithms_warn_only_enabled()
                is torch.is_deterministic_algorithms_warn_only_enabled()
            )
        ours, theirs = both(lambda lib: lib.use_deterministic_algorithms(1), torch)
        assert ours == theirs
    finally:
        ctxgrad.use_deterministic_algorithms(False)
        torch.use_deterministic_algorithms(False)


def test_cuda_backend_flags_as_torch(torch: Any) -> None:
    ours, theirs = ctxgrad.backends.cuda, torch.backends.cuda
    assert ours.is_built() is theirs.is_built() is False
    for name in ["flash_sdp_enabled", "mem_efficient_sdp_enabled", "math_sdp_enabled"]:
        assert getattr(ours, name)() == getattr(theirs, name)()
    names = ["allow_tf32", "allow_fp16_reduced_precision_reduction", "allow_bf16_reduced_precision_reduction"]
    for name in names:
        assert getattr(ours.matmul, name) == getattr(theirs.matmul, name), name
    for call in [
        lambda lib: setattr(lib.backends.cuda.matmul, "allow_tf32", "x"),
        lambda lib: setattr(lib.backends.cuda.matmul, "nope", 1),
        lambda lib: lib.backends.cuda.matmul.nope,
    ]:
        mine, torchs = both(call, torch)
        assert mine == torchs
    try:
        ours.matmul.allow_tf32 = True
        assert ours.matmul.allow_tf32 is True
    finally:
        ours.matmul.allow_tf32 = False


def test_float32_matmul_precision_as_torch(torch: Any) -> None:
    try:
        for precision in ["high", "medium", "highest"]:
            ctxgrad.set_float32_matmul_precision(precision)
            torch.set_float32_matmul_precision(precision)
            assert ctxgrad.get_float32_matmul_precision() == torch.get_float32_matmul_precision() == precision
        with pytest.warns(UserWarning, match="x is not one of 'highest', 'high', or 'medium'"):
            ctxgrad.set_float32_matmul_precision("x")
        assert ctxgrad.get_float32_matmul_precision() == "highest"
        ours, theirs = both(lambda lib: lib.set_float32_matmul_precision(1), torch)
        assert ours == theirs
    finally:
        ctxgrad.set_float32_matmul_precision("highest")
        torch.set_float32_matmul_precision("highest")


def test_mps_is_not_available(torch: Any) -> None:
    assert ctxgrad.backends.mps.is_available() is torch.backends.mps.is_available() is False
    assert ctxgrad.backends.mps.is_built() is False


def test_default_device_is_the_cpu(torch: Any) -> None:
    assert ctxgrad.set_default_device("cpu") is None and ctxgrad.set_default_device(None) is None
    assert ctxgrad.get_default_device() == ctxgrad.device("cpu")
    assert repr(ctxgrad.get_default_device()) == repr(torch.get_default_device())


# --- legacy constructors, Tensor.new, Tensor.type ---------------------------------------------------

LEGACY = ["FloatTensor", "DoubleTensor", "HalfTensor", "LongTensor", "IntTensor", "ShortTensor", "CharTensor"]
LEGACY += ["ByteTensor", "BoolTensor"]

LEGACY_CALLS: dict[str, Any] = {
    "data": lambda lib, T: T([1, 0, 3]),
    "nested": lambda lib, T: T([[1, 2], [3, 0]]),
    "tuple_is_data": lambda lib, T: T((2, 3)),
    "float_data_truncated": lambda lib, T: T([1.7, 0.2]),
    "numpy_data": lambda lib, T: T(np.array([1, 2])),
    "empty": lambda lib, T: T(),
}


@pytest.mark.parametrize("call", LEGACY_CALLS.values(), ids=LEGACY_CALLS.keys())
@pytest.mark.parametrize("name", LEGACY)
def test_legacy_constructors_with_data_match_torch(torch: Any, name: str, call: Any) -> None:
    ours, theirs = call(ctxgrad, getattr(ctxgrad, name)), call(torch, getattr(torch, name))
    assert dtype_name(ours.dtype) == dtype_name(theirs.dtype)
    assert ours.shape == tuple(theirs.shape)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    assert type(ours) is ctxgrad.Tensor and not ours.requires_grad


@pytest.mark.parametrize("sizes", [(2,), (2, 3), (0, 4), "Size"], ids=str)
def test_legacy_constructors_with_sizes_match_torch(torch: Any, sizes: Any) -> None:
    for name in ["FloatTensor", "LongTensor", "BoolTensor"]:
        args_ours = (ctxgrad.Size([2, 3]),) if sizes == "Size" else sizes
        args_theirs = (torch.Size([2, 3]),) if sizes == "Size" else sizes
        ours, theirs = getattr(ctxgrad, name)(*args_ours), getattr(torch, name)(*args_theirs)
        assert ours.shape == tuple(theirs.shape) and dtype_name(ours.dtype) == dtype_name(theirs.dtype)


LEGACY_ERRORS: dict[str, Any] = {
    "scalar_data": lambda lib: lib.FloatTensor(3.5),
    "bool_scalar": lambda lib: lib.FloatTensor(True),
    "string": lambda lib: lib.FloatTensor("a"),
    "negative_size": lambda lib: lib.FloatTensor(-1),
    "other_dtype_tensor": lambda lib: lib.FloatTensor(lib.tensor([1, 2])),
}


@pytest.mark.parametrize("call", LEGACY_ERRORS.values(), ids=LEGACY_ERRORS.keys())
def test_legacy_constructor_errors_match_torch(torch: Any, call: Any) -> None:
    assert raised(lambda: call(ctxgrad), ctxgrad) == raised(lambda: call(torch), torch)


def test_legacy_constructors_take_only_device_as_torch(torch: Any) -> None:
    for kwargs in [{"dtype": None}, {"requires_grad": True}]:
        ours, theirs = both(lambda lib, kwargs=kwargs: lib.FloatTensor(2, **kwargs), torch)
        assert ours[0] == theirs[0] == "TypeError"
        assert ours[1].splitlines()[0] == theirs[1].splitlines()[0]
    assert ctxgrad.FloatTensor(2, device="cpu").shape == (2,)
    with pytest.raises(AssertionError, match="CPU only"):
        ctxgrad.FloatTensor(2, device="cuda")


def test_legacy_types_in_isinstance_as_torch(torch: Any) -> None:
    for dtype in ["float32", "float64", "int64", "bool"]:
        ours = ctxgrad.zeros(2, dtype=getattr(ctxgrad, dtype if dtype != "bool" else "bool"))
        theirs = torch.zeros(2, dtype=getattr(torch, dtype))
        for name in LEGACY:
            assert isinstance(ours, getattr(ctxgrad, name)) == isinstance(theirs, getattr(torch, name)), (dtype, name)
    assert not isinstance(np.zeros(2, np.float32), ctxgrad.FloatTensor)
    assert not issubclass(ctxgrad.FloatTensor, ctxgrad.Tensor)  # nor in torch
    assert ctxgrad.FloatTensor.dtype == ctxgrad.float32 and ctxgrad.FloatTensor.__name__ == "FloatTensor"
    assert repr(ctxgrad.LongTensor) == "<class 'ctxgrad.LongTensor'>"


def test_legacy_constructor_of_a_same_dtype_tensor_shares_its_storage() -> None:
    t = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    alias = ctxgrad.FloatTensor(t)
    assert not alias.requires_grad and np.shares_memory(alias.array, t.array)
    assert t.new(t).array is t.array


NEW_CALLS: dict[str, Any] = {
    "sizes": lambda x: x.new(2, 3),
    "data": lambda x: x.new([1, 2]),
    "tuple_is_data": lambda x: x.new((2, 3)),
    "empty": lambda x: x.new(),
}


@pytest.mark.parametrize("call", NEW_CALLS.values(), ids=NEW_CALLS.keys())
@pytest.mark.parametrize("dtype", ["float64", "int32"])
def test_tensor_new_matches_torch(torch: Any, call: Any, dtype: str) -> None:
    ours = call(ctxgrad.zeros(1, dtype=getattr(ctxgrad, dtype), requires_grad=dtype == "float64"))
    theirs = call(torch.zeros(1, dtype=getattr(torch, dtype), requires_grad=dtype == "float64"))
    assert ours.shape == tuple(theirs.shape) and dtype_name(ours.dtype) == dtype_name(theirs.dtype)
    assert ours.requires_grad is theirs.requires_grad is False
    if call is not NEW_CALLS["sizes"]:
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_tensor_new_errors_match_torch(torch: Any) -> None:
    for call in [lambda lib: lib.tensor([1.0]).new(lib.tensor([1])), lambda lib: lib.tensor([1.0]).new(2.5)]:
        ours, theirs = both(call, torch)
        assert ours == theirs


@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "int64", "int32", "int8", "uint8", "bool"])
def test_type_without_argument_is_torchs_name_spelt_ctxgrad(torch: Any, dtype: str) -> None:
    ours = ctxgrad.zeros(1, dtype=getattr(ctxgrad, dtype)).type()
    theirs = torch.zeros(1, dtype=getattr(torch, dtype)).type()
    assert ours == theirs.replace("torch.", "ctxgrad.")


def test_complex_type_names_match_torch(torch: Any) -> None:
    assert ctxgrad.tensor([1j]).type() == torch.tensor([1j]).type().replace("torch.", "ctxgrad.")


TYPE_CONVERSIONS: dict[str, Any] = {
    "dtype": lambda lib: lib.float64,
    "legacy_type": lambda lib: lib.DoubleTensor,
    "torch_name": lambda lib: "torch.DoubleTensor",
    "int": lambda lib: lib.int32,
}


@pytest.mark.parametrize("target", TYPE_CONVERSIONS.values(), ids=TYPE_CONVERSIONS.keys())
def test_type_with_an_argument_converts_with_a_gradient_as_torch(torch: Any, target: Any) -> None:
    x, tx = ctxgrad.tensor([1.5, -2.0], requires_grad=True), torch.tensor([1.5, -2.0], requires_grad=True)
    ours, theirs = x.type(target(ctxgrad)), tx.type(target(torch))
    assert dtype_name(ours.dtype) == dtype_name(theirs.dtype)
    np.testing.assert_array_equal(ours.detach().numpy(), theirs.detach().numpy())
    if ours.is_floating_point():
        assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
        (ours * 3).sum().backward()
        (theirs * 3).sum().backward()
        np.testing.assert_array_equal(x.grad.numpy(), tx.grad.numpy())


def test_type_of_the_same_type_is_the_tensor_and_ctxgrad_names_are_taken() -> None:
    x = ctxgrad.tensor([1.0])
    assert x.type(ctxgrad.float32) is x and x.type("ctxgrad.FloatTensor") is x
    assert x.type("ctxgrad.LongTensor").dtype == ctxgrad.int64
    assert x.type(dtype=ctxgrad.float64).dtype == ctxgrad.float64


def test_type_errors_match_torch(torch: Any) -> None:
    kind, message = raised(lambda: ctxgrad.tensor([1.0]).type("float"), ctxgrad)
    assert (kind, message) == raised(lambda: torch.tensor([1.0]).type("float"), torch)
    with pytest.raises(AssertionError, match="CPU only"):
        ctxgrad.tensor([1.0]).type("torch.cuda.FloatTensor")


# --- finfo, iinfo, result_type, promote_types, can_cast --------------------------------------------

FLOATS = ["float16", "float32", "float64", "complex64", "complex128"]
INTS = ["uint8", "int8", "int16", "int32", "int64"]


@pytest.mark.parametrize("dtype", FLOATS)
def test_finfo_matches_torch(torch: Any, dtype: str) -> None:
    ours, theirs = ctxgrad.finfo(getattr(ctxgrad, dtype)), torch.finfo(getattr(torch, dtype))
    for name in ["bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"]:
        assert getattr(ours, name) == getattr(theirs, name), name
        assert type(getattr(ours, name)) is type(getattr(theirs, name)), name
    assert repr(ours) == repr(theirs)


def test_finfo_without_a_type_is_the_default_dtype_and_compares_by_dtype(torch: Any) -> None:
    assert ctxgrad.finfo() == ctxgrad.finfo(ctxgrad.float32) != ctxgrad.finfo(ctxgrad.float64)
    assert repr(ctxgrad.finfo()) == repr(torch.finfo())
    assert np.finfo(np.float32).eps == ctxgrad.finfo().eps  # torch-free: NumPy's own facts


@pytest.mark.parametrize("dtype", INTS)
def test_iinfo_matches_torch(torch: Any, dtype: str) -> None:
    ours, theirs = ctxgrad.iinfo(getattr(ctxgrad, dtype)), torch.iinfo(getattr(torch, dtype))
    for name in ["bits", "max", "min", "dtype"]:
        assert getattr(ours, name) == getattr(theirs, name), name
    assert repr(ours) == repr(theirs)


INFO_ERRORS: dict[str, Any] = {
    "finfo_int": lambda lib: lib.finfo(lib.int32),
    "finfo_str": lambda lib: lib.finfo("float32"),
    "iinfo_float": lambda lib: lib.iinfo(lib.float32),
    "iinfo_bool": lambda lib: lib.iinfo(lib.bool),
}


@pytest.mark.parametrize("call", INFO_ERRORS.values(), ids=INFO_ERRORS.keys())
def test_finfo_and_iinfo_errors_match_torch(torch: Any, call: Any) -> None:
    assert raised(lambda: call(ctxgrad), ctxgrad) == raised(lambda: call(torch), torch)


RESULT_TYPES: dict[str, Any] = {
    "int_tensor_float": lambda lib: lib.result_type(lib.tensor([1, 2]), 1.0),
    "dims_and_0d": lambda lib: lib.result_type(lib.tensor([1, 2]), lib.tensor(1.0, dtype=lib.float64)),
    "float_and_0d_double": lambda lib: lib.result_type(lib.tensor([1.0]), lib.tensor(1.0, dtype=lib.float64)),
    "two_numbers": lambda lib: lib.result_type(1, 2.0),
    "two_ints": lambda lib: lib.result_type(1, 2),
    "bool_int": lambda lib: lib.result_type(True, 2),
    "complex_number": lambda lib: lib.result_type(lib.tensor([1.0]), 1j),
    "uint8_int8": lambda lib: lib.result_type(lib.tensor([1], dtype=lib.uint8), lib.tensor([1], dtype=lib.int8)),
    "keywords": lambda lib: lib.result_type(tensor=lib.tensor([1.0]), other=1),
}


@pytest.mark.parametrize("call", RESULT_TYPES.values(), ids=RESULT_TYPES.keys())
def test_result_type_matches_torch(torch: Any, call: Any) -> None:
    assert dtype_name(call(ctxgrad)) == dtype_name(call(torch))


def test_result_type_is_the_dtype_of_the_op() -> None:
    # torch-free: what result_type says is what addition gives
    a, b = ctxgrad.tensor([1], dtype=ctxgrad.int32), ctxgrad.tensor(2.5, dtype=ctxgrad.float64)
    assert ctxgrad.result_type(a, b) == (a + b).dtype == ctxgrad.float64
    assert ctxgrad.result_type(a, 2.5) == (a + 2.5).dtype == ctxgrad.float32


def test_two_python_numbers_in_an_op_promote_as_torch(torch: Any) -> None:
    # where(cond, int, float): the default float dtype, not NumPy's float64
    for x, y in [(1, 2.0), (True, 2), (1, 2j), (2.0, 1)]:
        ours = ctxgrad.where(ctxgrad.tensor([True, False]), x, y)
        theirs = torch.where(torch.tensor([True, False]), x, y)
        assert dtype_name(ours.dtype) == dtype_name(theirs.dtype), (x, y)
        np.testing.assert_array_equal(ours.numpy(), theirs.numpy())


def test_result_type_refuses_what_is_not_a_tensor_or_number(torch: Any) -> None:
    for call in [lambda lib: lib.result_type(lib.tensor([1.0]), "a"), lambda lib: lib.result_type([1], 1)]:
        ours, theirs = both(call, torch)
        assert ours[0] == theirs[0] == "TypeError"
        assert ours[1].splitlines()[0] == theirs[1].splitlines()[0]


ALL_DTYPES = ["bool", *INTS, "float16", "float32", "float64", "complex64", "complex128"]


def test_promote_types_and_can_cast_match_torch_for_every_pair(torch: Any) -> None:
    for a in ALL_DTYPES:
        for b in ALL_DTYPES:
            da, db, ta, tb = getattr(ctxgrad, a), getattr(ctxgrad, b), getattr(torch, a), getattr(torch, b)
            assert dtype_name(ctxgrad.promote_types(da, db)) == dtype_name(torch.promote_types(ta, tb)), (a, b)
            assert ctxgrad.can_cast(da, db) == torch.can_cast(ta, tb), (a, b)


def test_promote_types_and_can_cast_check_their_arguments(torch: Any) -> None:
    for call in [lambda lib: lib.promote_types(lib.float32, 1), lambda lib: lib.can_cast(lib.int8, "a")]:
        ours, theirs = both(call, torch)
        assert ours == theirs
    assert ctxgrad.can_cast(from_=ctxgrad.int8, to=ctxgrad.uint8) is torch.can_cast(from_=torch.int8, to=torch.uint8)


# --- the random generator's state ---------------------------------------------------------------------


def test_get_and_set_rng_state_replay_the_draws() -> None:
    _ = ctxgrad.manual_seed(7)
    _ = ctxgrad.randn(5)
    state = ctxgrad.get_rng_state()
    assert state.dtype == ctxgrad.uint8 and state.ndim == 1 and isinstance(state, ctxgrad.ByteTensor)
    first = (
        ctxgrad.rand(4),
        ctxgrad.randn(3),
        ctxgrad.randint(0, 100, (5,)),
        ctxgrad.nn.init.normal_(ctxgrad.empty(3)),
    )
    ctxgrad.manual_seed(99)
    ctxgrad.set_rng_state(state)
    second = (
        ctxgrad.rand(4),
        ctxgrad.randn(3),
        ctxgrad.randint(0, 100, (5,)),
        ctxgrad.nn.init.normal_(ctxgrad.empty(3)),
    )
    for a, b in zip(first, second):
        assert ctxgrad.equal(a, b)
    assert ctxgrad.initial_seed() == 7  # the state carries the seed it came from


def test_an_odd_draw_count_is_replayed_exactly() -> None:
    # PCG64 buffers half of a 64-bit word after a 32-bit draw: the state keeps it
    _ = ctxgrad.manual_seed(1)
    _ = ctxgrad.rand(3, dtype=ctxgrad.float32)
    _ = ctxgrad.randint(0, 2**31, (1,), dtype=ctxgrad.int32)
    state = ctxgrad.get_rng_state()
    a = ctxgrad.randint(0, 7, (5,), dtype=ctxgrad.int32)
    ctxgrad.set_rng_state(state)
    assert ctxgrad.equal(ctxgrad.randint(0, 7, (5,), dtype=ctxgrad.int32), a)


def test_set_rng_state_errors_as_torch(torch: Any) -> None:
    ours, theirs = (
        raised(lambda: ctxgrad.set_rng_state([1, 2]), ctxgrad),
        raised(lambda: torch.set_rng_state([1, 2]), torch),
    )
    assert ours == theirs
    ours, theirs = both(lambda lib: lib.set_rng_state(lib.get_rng_state().float()), torch)
    assert ours == theirs
    kind, message = raised(lambda: ctxgrad.set_rng_state(ctxgrad.zeros(3, dtype=ctxgrad.uint8)), ctxgrad)
    assert kind == raised(lambda: torch.set_rng_state(torch.zeros(3, dtype=torch.uint8)), torch)[0] == "RuntimeError"
    assert "found the input RNG state size to be 3" in message


def test_manual_seed_takes_torchs_range(torch: Any) -> None:
    for seed in [-1, 2**64 - 1, 1.5, 0]:
        ctxgrad.manual_seed(seed)
        torch.manual_seed(seed)
        assert ctxgrad.initial_seed() == torch.initial_seed()
    assert raised(lambda: ctxgrad.manual_seed(2**64), ctxgrad) == raised(lambda: torch.manual_seed(2**64), torch)
    ctxgrad.manual_seed(5)
    a = ctxgrad.rand(3)
    ctxgrad.manual_seed(5)
    assert ctxgrad.equal(a, ctxgrad.rand(3))


def test_seed_draws_a_new_seed_that_initial_seed_reports() -> None:
    s = ctxgrad.seed()
    assert 0 <= s < 2**64 and ctxgrad.initial_seed() == s
    a = ctxgrad.rand(3)
    ctxgrad.manual_seed(s)
    assert ctxgrad.equal(ctxgrad.rand(3), a)


def test_fork_rng_restores_the_state_as_torch(torch: Any) -> None:
    def run(lib: Any, enabled: bool) -> bool:
        lib.manual_seed(0)
        with lib.random.fork_rng(enabled=enabled):
            inside = lib.rand(2)
        after = lib.rand(2)
        return bool(lib.equal(inside, after))

    for enabled in [True, False]:
        assert run(ctxgrad, enabled) == run(torch, enabled) == enabled


def test_fork_rng_survives_a_seed_inside_and_an_error() -> None:
    ctxgrad.manual_seed(4)
    expected = ctxgrad.rand(3)
    ctxgrad.manual_seed(4)
    with pytest.raises(ValueError, match="inside"), ctxgrad.random.fork_rng():
        ctxgrad.manual_seed(123)
        _ = ctxgrad.rand(10)
        raise ValueError("inside")
    assert ctxgrad.equal(ctxgrad.rand(3), expected) and ctxgrad.initial_seed() == 4
    with ctxgrad.random.fork_rng(devices=[], device_type="cuda"):
        pass

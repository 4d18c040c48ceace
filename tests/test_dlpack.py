"""DLPack: ``np.from_dlpack(t)`` and ``torch.from_dlpack(t)`` share a ctxgrad tensor's memory,
and ``ctxgrad.from_dlpack`` shares theirs."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import ctxgrad

DTYPES = [
    "float32",
    "float64",
    "float16",
    "complex64",
    "complex128",
    "int64",
    "int32",
    "int16",
    "int8",
    "uint8",
    "bool",
]


def sample(dtype: str) -> ctxgrad.Tensor:
    return ctxgrad.tensor([[1, 0, 3], [4, 5, 0]]).to(getattr(ctxgrad, dtype))


def test_numpy_takes_a_tensor_sharing_its_memory() -> None:
    t = ctxgrad.tensor([1.0, 2.0, 3.0])
    a = np.from_dlpack(t)
    assert np.shares_memory(a, t.array)
    if a.flags.writeable:  # (NumPy before 2 imports DLPack memory read-only)
        a[1] = 7.0
        assert t.tolist() == [1.0, 7.0, 3.0]
    assert t.__dlpack_device__() == (1, 0)


@pytest.mark.parametrize("dtype", DTYPES)
def test_torch_takes_a_tensor_of_every_dtype_sharing_its_memory(torch: Any, dtype: str) -> None:
    t = sample(dtype)
    theirs = torch.from_dlpack(t)
    assert str(theirs.dtype) == f"torch.{dtype}" and tuple(theirs.shape) == t.shape
    np.testing.assert_array_equal(theirs.numpy(), t.numpy())
    theirs[0, 1] = 1
    assert t.array[0, 1] == 1  # one memory


def test_a_transposed_view_keeps_its_strides(torch: Any) -> None:
    t = ctxgrad.arange(6.0).reshape(2, 3).t()
    theirs = torch.from_dlpack(t)
    assert theirs.stride() == (1, 3) and theirs.tolist() == t.tolist()
    theirs[2, 1] = -1.0
    assert t[2, 1].item() == -1.0


def test_a_negative_stride_is_exported_as_a_copy(torch: Any) -> None:
    t = ctxgrad.from_numpy(np.arange(4.0)[::-1])
    assert t.array.strides[0] < 0
    theirs = torch.from_dlpack(t)  # torch cannot take a negative stride: it would abort
    assert theirs.tolist() == [3.0, 2.0, 1.0, 0.0]
    assert np.from_dlpack(t).tolist() == [3.0, 2.0, 1.0, 0.0]
    with pytest.raises(BufferError, match="negative stride cannot be exported without a copy"):
        t.__dlpack__(copy=False)


def test_a_tensor_that_requires_grad_refuses_as_torch(torch: Any) -> None:
    t, tt = ctxgrad.tensor([1.0], requires_grad=True), torch.tensor([1.0], requires_grad=True)
    for take in [np.from_dlpack, torch.from_dlpack]:
        with pytest.raises(BufferError) as ours:
            take(t)
        with pytest.raises(BufferError) as theirs:
            take(tt)
        assert str(ours.value) == str(theirs.value) == "Can't export tensors that require gradient, use tensor.detach()"
    assert np.from_dlpack(t.detach()).tolist() == [1.0]
    with ctxgrad.no_grad():  # as numpy(): allowed where no graph is recorded
        assert np.from_dlpack(t).tolist() == [1.0]


def test_the_protocol_arguments_are_checked() -> None:
    t = ctxgrad.tensor([1.0])
    assert t.__dlpack__(stream=None) is not None and t.__dlpack__(stream=-1) is not None
    with pytest.raises(BufferError, match="stream must be None"):
        t.__dlpack__(stream=3)
    with pytest.raises(BufferError, match=r"DLPack device \(1, 0\) \(got \(2, 0\)\)"):
        t.__dlpack__(dl_device=(2, 0))
    assert t.__dlpack__(dl_device=(1, 0), max_version=(1, 0)) is not None


def test_from_dlpack_shares_numpys_memory() -> None:
    a = np.arange(3.0)
    t = ctxgrad.from_dlpack(a)
    assert isinstance(t, ctxgrad.Tensor) and t.dtype == ctxgrad.float64 and not t.requires_grad
    a[0] = 9.0
    assert t.tolist() == [9.0, 1.0, 2.0]
    copied = ctxgrad.from_dlpack(a, copy=True)
    a[0] = 0.0
    assert copied.tolist() == [9.0, 1.0, 2.0]


@pytest.mark.parametrize("dtype", DTYPES)
def test_from_dlpack_shares_torchs_memory(torch: Any, dtype: str) -> None:
    theirs = torch.tensor([[1, 0, 3], [4, 5, 0]]).to(getattr(torch, dtype))
    t = ctxgrad.from_dlpack(theirs)
    assert t.dtype == getattr(ctxgrad, dtype)
    np.testing.assert_array_equal(t.numpy(), theirs.numpy())
    theirs[1, 2] = 1
    assert t.array[1, 2] == 1


def test_from_dlpack_takes_a_capsule_and_round_trips(torch: Any) -> None:
    theirs = torch.arange(4.0)
    t = ctxgrad.from_dlpack(torch.utils.dlpack.to_dlpack(theirs))
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0]
    back = ctxgrad.from_dlpack(ctxgrad.tensor([1.0, 2.0]))
    assert back.tolist() == [1.0, 2.0]


def test_from_dlpack_refuses_what_has_no_dlpack_and_other_devices(torch: Any) -> None:
    with pytest.raises(TypeError, match=r"expected an object with __dlpack__.*got list"):
        ctxgrad.from_dlpack([1.0])
    with pytest.raises(AssertionError, match="CPU only"):
        ctxgrad.from_dlpack(np.arange(2.0), device="cuda")
    with pytest.raises(BufferError, match="require gradient"):
        ctxgrad.from_dlpack(torch.ones(1, requires_grad=True))


def test_gradients_flow_after_an_exchange(torch: Any) -> None:
    # a tensor from torch is a leaf like any other: it can require grad here
    x = ctxgrad.from_dlpack(torch.tensor([1.0, 2.0])).requires_grad_()
    (x * x).sum().backward()
    assert x.grad.tolist() == [2.0, 4.0]

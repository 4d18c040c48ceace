"""ctxgrad.utils.safetensors: state dicts in safetensors files, readable by safetensors.torch
(skipped without the safetensors package)."""

from __future__ import annotations

import importlib.util
import pathlib
import subprocess
import sys
from typing import Any

import numpy as np
import pytest

import ctxgrad
from ctxgrad.utils import safetensors as st

needs_safetensors = pytest.mark.skipif(importlib.util.find_spec("safetensors") is None, reason="needs safetensors")

DTYPES = ["float32", "float64", "float16", "int64", "int32", "int16", "int8", "uint8", "bool"]


def tensors() -> dict[str, ctxgrad.Tensor]:
    out = {dtype: ctxgrad.tensor([[1, 0], [3, 1]]).to(getattr(ctxgrad, dtype)) for dtype in DTYPES}
    out["scalar"] = ctxgrad.tensor(2.5)
    out["empty"] = ctxgrad.zeros(0, 3)
    return out


def assert_same(loaded: dict[str, Any], original: dict[str, ctxgrad.Tensor]) -> None:
    assert sorted(loaded) == sorted(original)
    for name, value in original.items():
        assert isinstance(loaded[name], ctxgrad.Tensor) and not loaded[name].requires_grad
        assert loaded[name].dtype == value.dtype and loaded[name].shape == value.shape
        np.testing.assert_array_equal(loaded[name].numpy(), value.detach().numpy())


@needs_safetensors
def test_a_file_round_trips_every_dtype_with_metadata(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "t.safetensors"
    st.save_file(tensors(), path, metadata={"step": "3"})
    assert_same(st.load_file(path), tensors())
    from safetensors import safe_open

    with safe_open(str(path), framework="numpy") as f:
        assert f.metadata() == {"step": "3"}


@needs_safetensors
def test_bytes_round_trip() -> None:
    data = st.save(tensors())
    assert isinstance(data, bytes)
    assert_same(st.load(data), tensors())


@needs_safetensors
def test_a_tensor_that_requires_grad_is_saved_by_value(tmp_path: pathlib.Path) -> None:
    w = ctxgrad.tensor([1.0, 2.0], requires_grad=True)
    st.save_file({"w": w * 2}, tmp_path / "w.safetensors")
    assert st.load_file(tmp_path / "w.safetensors")["w"].tolist() == [2.0, 4.0]


@needs_safetensors
def test_torch_reads_ctxgrads_file_and_the_reverse(torch: Any, tmp_path: pathlib.Path) -> None:
    import safetensors.torch

    ours = tmp_path / "ours.safetensors"
    st.save_file(tensors(), ours)
    theirs = safetensors.torch.load_file(ours)
    for name, value in tensors().items():
        assert str(theirs[name].dtype) == str(value.dtype).replace("ctxgrad.", "torch.")
        np.testing.assert_array_equal(theirs[name].numpy(), value.numpy())
    back = tmp_path / "theirs.safetensors"
    safetensors.torch.save_file({"w": torch.arange(6.0).reshape(2, 3)}, back)
    assert st.load_file(back)["w"].tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]


@needs_safetensors
def test_a_model_round_trips(tmp_path: pathlib.Path) -> None:
    ctxgrad.manual_seed(0)
    model = ctxgrad.nn.Sequential(ctxgrad.nn.Linear(3, 4), ctxgrad.nn.ReLU(), ctxgrad.nn.Linear(4, 1))
    path = tmp_path / "model.safetensors"
    st.save_model(model, path)
    fresh = ctxgrad.nn.Sequential(ctxgrad.nn.Linear(3, 4), ctxgrad.nn.ReLU(), ctxgrad.nn.Linear(4, 1))
    assert st.load_model(fresh, path) == ([], [])
    x = ctxgrad.randn(2, 3)
    np.testing.assert_array_equal(fresh(x).detach().numpy(), model(x).detach().numpy())


@needs_safetensors
def test_load_model_strict_names_the_keys(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "m.safetensors"
    st.save_file({"weight": ctxgrad.zeros(1, 2), "extra": ctxgrad.zeros(1)}, path)
    model = ctxgrad.nn.Linear(2, 1)
    with pytest.raises(RuntimeError) as error:
        st.load_model(model, path)
    assert str(error.value) == (
        "Error(s) in loading state_dict for Linear:\n"
        '    Missing key(s) in state_dict: "bias"\n'
        '    Unexpected key(s) in state_dict: "extra"'
    )
    assert st.load_model(model, path, strict=False) == (["bias"], ["extra"])
    assert model.weight.tolist() == [[0.0, 0.0]]


@needs_safetensors
def test_what_is_not_a_dict_of_contiguous_tensors_is_refused(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "x.safetensors"
    with pytest.raises(TypeError, match="the value of 'w' is a list, not a Tensor"):
        st.save_file({"w": [1.0]}, path)  # type: ignore[dict-item]
    with pytest.raises(TypeError, match="the names must be str, got int"):
        st.save_file({1: ctxgrad.zeros(1)}, path)  # type: ignore[dict-item]
    with pytest.raises(TypeError, match="expected a dict of str to Tensor, got list"):
        st.save([ctxgrad.zeros(1)])  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="non contiguous tensor: `t`"):
        st.save_file({"t": ctxgrad.zeros(2, 3).t()}, path)
    model = ctxgrad.nn.Linear(2, 2)
    model.weight.data = model.weight.data.t()  # a view: save_model packs it with force_contiguous
    st.save_model(model, path, force_contiguous=True)
    assert st.load_file(path)["weight"].shape == (2, 2)
    with pytest.raises(AssertionError, match="CPU only"):
        st.load_file(path, device="cuda")


def test_without_the_package_the_module_imports_and_each_function_says_what_to_install() -> None:
    code = (
        "import sys; sys.modules['safetensors'] = None\n"
        "from ctxgrad.utils import safetensors as st\n"
        "try:\n"
        "    st.save({})\n"
        "except ImportError as error:\n"
        "    print(error)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert "needs the safetensors package: pip install 'ctxgrad[safetensors]'" in out

"""ctxgrad.save / ctxgrad.load keep tensors that share memory sharing it, as torch keeps tensors
that share a storage: after loading, a write into the loaded base is seen by the loaded views
and the other way round, and each view keeps its strides."""

from __future__ import annotations

import io
import json
import zipfile
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ctxgrad


def round_trip(lib: Any, obj: Any) -> Any:
    buffer = io.BytesIO()
    lib.save(obj, buffer)
    buffer.seek(0)
    return lib.load(buffer)


def views_of(lib: Any) -> dict[str, Any]:
    base = lib.arange(12.0)
    return {
        "base": base,
        "slice": base[2:7],
        "transposed": base.view(3, 4).t(),
        "expanded": base[:3].expand(2, 3),
        "windows": base.unfold(0, 4, 2),
        "row": base.view(3, 4)[1],
        "element": base[5],
        "alone": lib.ones(3),
    }


WRITES: dict[str, Callable[[dict[str, Any]], Any]] = {
    "into_the_base": lambda loaded: loaded["base"].mul_(10),
    "into_a_slice": lambda loaded: loaded["slice"].add_(100),
    "into_a_transposed_view": lambda loaded: loaded["transposed"][1].fill_(-1),
}


@pytest.mark.parametrize("write", sorted(WRITES))
def test_loaded_views_share_memory_with_the_loaded_base_as_in_torch(torch: Any, write: str) -> None:
    def run(lib: Any) -> dict[str, Any]:
        loaded = round_trip(lib, views_of(lib))
        WRITES[write](loaded)
        return {name: (t.tolist(), tuple(t.stride())) for name, t in loaded.items()}

    assert run(ctxgrad) == run(torch)


def test_loaded_views_are_not_views_in_autograd_terms_as_in_torch(torch: Any) -> None:
    for lib in (ctxgrad, torch):
        loaded = round_trip(lib, views_of(lib))
        assert loaded["slice"]._base is None  # leaves sharing memory, as torch's rebuilt tensors
        assert not loaded["slice"].requires_grad


def test_shared_memory_is_stored_once_as_the_bytes_the_views_read() -> None:
    big = ctxgrad.arange(1000.0, dtype=ctxgrad.float64)
    buffer = io.BytesIO()
    ctxgrad.save({"a": big[100:110], "b": big[105:120], "c": ctxgrad.ones(2)}, buffer)
    with zipfile.ZipFile(io.BytesIO(buffer.getvalue())) as archive:
        assert sorted(archive.namelist()) == ["__ctxgrad__.npy", "storage_0.npy", "tensor_2.npy"]
        with archive.open("storage_0.npy") as entry:
            storage = np.lib.format.read_array(entry)
        with archive.open("__ctxgrad__.npy") as entry:
            structure = json.loads(np.lib.format.read_array(entry).tobytes())
    # elements 100..119, from the 16-byte boundary at or before element 100 (800 bytes in)
    assert storage.dtype == np.uint8 and storage.size == 20 * 8
    assert structure["version"] == 3
    assert structure["views"]["tensor_1"] == {"storage": 0, "dtype": "<f8", "shape": [15], "strides": [8], "offset": 40}
    buffer.seek(0)
    loaded = ctxgrad.load(buffer)
    assert loaded["a"].tolist() == [float(i) for i in range(100, 110)]
    loaded["b"][0] = -1.0  # element 105 of both
    assert loaded["a"][5].item() == -1.0


def test_tensors_that_share_no_memory_are_written_as_before() -> None:
    buffer = io.BytesIO()
    ctxgrad.save([ctxgrad.ones(2), ctxgrad.arange(3.0)[1:]], buffer)
    with zipfile.ZipFile(io.BytesIO(buffer.getvalue())) as archive:
        assert sorted(archive.namelist()) == ["__ctxgrad__.npy", "tensor_0.npy", "tensor_1.npy"]
        with archive.open("__ctxgrad__.npy") as entry:
            structure = json.loads(np.lib.format.read_array(entry).tobytes())
    assert structure["version"] == 1 and "views" not in structure


def test_numpy_arrays_that_share_memory_come_back_sharing_it() -> None:
    base = np.arange(6, dtype=np.int32).reshape(2, 3)
    loaded = round_trip(ctxgrad, {"base": base, "column": base[:, 1]})
    loaded["base"][1, 1] = 40
    assert loaded["column"].tolist() == [1, 40]
    assert loaded["column"].strides == (12,)


def _archive(views: Any, **arrays: Any) -> io.BytesIO:
    structure = {"format": "ctxgrad.save", "version": 3, "object": {"tensor": 0}, "views": views}
    buffer = io.BytesIO()
    np.savez(buffer, __ctxgrad__=np.frombuffer(json.dumps(structure).encode(), dtype=np.uint8), **arrays)
    buffer.seek(0)
    return buffer


GOOD = {"storage": 0, "dtype": "<f8", "shape": [2], "strides": [8], "offset": 0}
BYTES = np.zeros(16, dtype=np.uint8)


@pytest.mark.parametrize(
    ("views", "arrays", "message"),
    [
        ([], {"storage_0": BYTES}, "'views' is not a mapping"),
        ({"tensor_0": GOOD}, {}, r"the view 'tensor_0' cannot be read \('storage_0'\)"),
        ({"tensor_0": {**GOOD, "offset": 8}}, {"storage_0": BYTES}, "the view 'tensor_0' cannot be read"),
        ({"tensor_0": {**GOOD, "strides": [-8]}}, {"storage_0": BYTES}, "the view 'tensor_0' cannot be read"),
        ({"tensor_0": {**GOOD, "offset": -8}}, {"storage_0": BYTES}, "the view 'tensor_0' cannot be read"),
        ({"tensor_0": {**GOOD, "dtype": "|O"}}, {"storage_0": BYTES}, "a view of dtype object is not a tensor's"),
        ({"tensor_0": {**GOOD, "dtype": "<U2"}}, {"storage_0": BYTES}, "a view of dtype <U2 is not a tensor's"),
        ({"tensor_0": GOOD}, {"storage_0": np.zeros(2)}, "the storage 0 is not bytes"),
    ],
)
def test_a_damaged_view_is_refused_naming_it(views: Any, arrays: dict[str, Any], message: str) -> None:
    with pytest.raises(RuntimeError, match=r"ctxgrad.load: .* is damaged: " + ".*" + message):
        ctxgrad.load(_archive(views, **arrays))


def test_a_crafted_view_inside_its_storage_loads() -> None:
    loaded = ctxgrad.load(_archive({"tensor_0": GOOD}, storage_0=np.arange(2.0).view(np.uint8)))
    assert loaded.tolist() == [0.0, 1.0]

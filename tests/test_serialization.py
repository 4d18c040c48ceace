"""ctxgrad.save / ctxgrad.load: round trips through .npz without pickle, and every error."""

from __future__ import annotations

import io
import json
import pathlib
import pickle
import re
import zipfile
from collections import OrderedDict
from typing import Any

import numpy as np
import pytest

import ctxgrad


def round_trip(obj: Any) -> Any:
    buffer = io.BytesIO()
    ctxgrad.save(obj, buffer)
    buffer.seek(0)
    return ctxgrad.load(buffer)


def assert_same_tensor(loaded: Any, original: ctxgrad.Tensor) -> None:
    assert isinstance(loaded, ctxgrad.Tensor)
    assert loaded.dtype == original.dtype
    assert loaded.shape == original.shape
    np.testing.assert_array_equal(loaded.numpy(), original.detach().numpy())


@pytest.mark.parametrize(
    "original",
    [
        ctxgrad.tensor(3.5, dtype=ctxgrad.float64),
        ctxgrad.arange(12, dtype=ctxgrad.float32).reshape(3, 4),
        ctxgrad.tensor([1, -2, 3], dtype=ctxgrad.int64),
        ctxgrad.tensor([1, 2], dtype=ctxgrad.int8),
        ctxgrad.tensor([250, 3], dtype=ctxgrad.uint8),
        ctxgrad.tensor([0.5, 1.5], dtype=ctxgrad.float16),
        ctxgrad.tensor([True, False]),
        ctxgrad.tensor([1 + 2j, -1j], dtype=ctxgrad.complex128),
        ctxgrad.zeros(0, 3),
        ctxgrad.arange(6.0).reshape(2, 3).t(),  # not contiguous
        ctxgrad.tensor([float("nan"), float("inf"), -0.0]),
    ],
    ids=lambda t: f"{t.dtype}-{tuple(t.shape)}",
)
def test_a_tensor_comes_back_with_its_dtype_shape_and_values(original: ctxgrad.Tensor) -> None:
    assert_same_tensor(round_trip(original), original)


def test_loaded_tensors_are_leaves_without_grad() -> None:
    w = ctxgrad.ones(2, requires_grad=True)
    y = w * 2
    loaded = round_trip({"w": w, "y": y})
    for t in loaded.values():
        assert t.is_leaf and not t.requires_grad and t.grad_fn is None
    assert loaded["y"].tolist() == [2.0, 2.0]


def test_nested_containers_and_plain_values_round_trip() -> None:
    t = ctxgrad.ones(2)
    obj = {
        "state": {0: {"step": ctxgrad.tensor(3.0), "buf": t}, 1: {}},
        "param_groups": [{"lr": 0.1, "betas": (0.9, 0.999), "foreach": None, "nesterov": False, "params": [0, 1]}],
        "name": "run-é",
        "counts": [1, 2.0, True, None, "x", -7, 1e300, float("inf")],
        "nested": ((1, (2, [3])), []),
        2.5: "float key",
        None: "none key",
        True: "bool key",
        "array": np.arange(3, dtype=np.int16),
    }
    loaded = round_trip(obj)
    assert list(loaded) == list(obj)
    assert loaded["param_groups"] == obj["param_groups"]
    assert type(loaded["param_groups"][0]["betas"]) is tuple
    assert loaded["counts"] == obj["counts"]
    assert [type(v) for v in loaded["counts"]] == [type(v) for v in obj["counts"]]
    assert loaded["nested"] == ((1, (2, [3])), [])
    assert list(loaded["state"]) == [0, 1] and loaded["state"][1] == {}
    assert_same_tensor(loaded["state"][0]["step"], obj["state"][0]["step"])
    assert_same_tensor(loaded["state"][0]["buf"], t)
    assert loaded[2.5] == "float key" and loaded[None] == "none key" and loaded[True] == "bool key"
    assert isinstance(loaded["array"], np.ndarray) and loaded["array"].dtype == np.int16
    assert loaded["name"] == "run-é"


def test_nan_in_structure_round_trips() -> None:
    loaded = round_trip([float("nan"), float("-inf")])
    assert np.isnan(loaded[0]) and loaded[1] == float("-inf")


def test_ordered_dicts_stay_ordered_dicts() -> None:
    obj = OrderedDict([("b", ctxgrad.ones(1)), ("a", 2)])
    loaded = round_trip(obj)
    assert type(loaded) is OrderedDict and list(loaded) == ["b", "a"]


def test_a_tensor_referenced_twice_is_stored_once_and_loads_as_one_object() -> None:
    t = ctxgrad.arange(1000.0)
    buffer = io.BytesIO()
    ctxgrad.save([t, {"again": t}], buffer)
    with zipfile.ZipFile(io.BytesIO(buffer.getvalue())) as archive:
        assert sorted(archive.namelist()) == ["__ctxgrad__.npy", "tensor_0.npy"]
    buffer.seek(0)
    first, inner = ctxgrad.load(buffer)
    assert inner["again"] is first


def test_paths_as_str_and_pathlib_and_no_suffix_added(tmp_path: pathlib.Path) -> None:
    t = ctxgrad.tensor([1.0, 2.0])
    ctxgrad.save(t, str(tmp_path / "weights.pt"))
    ctxgrad.save({"t": t}, tmp_path / "state")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["state", "weights.pt"]
    assert_same_tensor(ctxgrad.load(tmp_path / "weights.pt"), t)
    assert_same_tensor(ctxgrad.load(str(tmp_path / "state"))["t"], t)


def test_open_file_objects(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "f.npz"
    with open(path, "wb") as f:
        ctxgrad.save([1, ctxgrad.ones(1)], f)
    with open(path, "rb") as f:
        loaded = ctxgrad.load(f, map_location="cpu", weights_only=True)
    assert loaded[0] == 1


def test_the_file_is_plain_npz_readable_without_pickle(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "x"
    ctxgrad.save({"w": ctxgrad.tensor([1.0, 2.0])}, path)
    with np.load(path, allow_pickle=False) as archive:
        structure = json.loads(archive["__ctxgrad__"].tobytes())
        assert structure["format"] == "ctxgrad.save" and structure["version"] == 1
        assert structure["object"] == {"dict": [["w", {"tensor": 0}]]}
        assert archive["tensor_0"].tolist() == [1.0, 2.0]


def test_an_optimizer_state_dict_round_trips() -> None:
    w = ctxgrad.ones(3, requires_grad=True)
    opt = ctxgrad.optim.Adam([w], lr=0.1, amsgrad=True)
    (w * w).sum().backward()
    opt.step()
    sd = opt.state_dict()
    loaded = round_trip(sd)
    assert loaded["param_groups"] == sd["param_groups"]
    for key, value in sd["state"][0].items():
        assert_same_tensor(loaded["state"][0][key], value)


# --------------------------------------------------------------------------- errors
def test_missing_file_is_file_not_found_naming_the_path(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "nope.pt"
    with pytest.raises(FileNotFoundError, match=r"nope\.pt"):
        ctxgrad.load(path)


def test_a_file_that_is_not_a_zip_archive(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "text.pt"
    path.write_bytes(b"hello world")
    with pytest.raises(RuntimeError, match=r"text.pt is not a file written by ctxgrad.save: it starts with b'hell'"):
        ctxgrad.load(path)
    path.write_bytes(b"")
    with pytest.raises(RuntimeError, match="it is empty"):
        ctxgrad.load(path)


def test_a_bare_pickle_file_is_refused_without_running_it(tmp_path: pathlib.Path) -> None:
    import pickle

    path = tmp_path / "evil.pt"
    path.write_bytes(pickle.dumps({"a": 1}))
    with pytest.raises(RuntimeError, match=r"not a file written by ctxgrad\.save"):
        ctxgrad.load(path)


def test_an_npz_archive_not_written_by_ctxgrad(tmp_path: pathlib.Path) -> None:
    path = tmp_path / "plain.npz"
    np.savez(path, weights=np.ones(2))
    with pytest.raises(
        RuntimeError, match=r"a zip archive but not one written by ctxgrad.save \(no '__ctxgrad__' entry"
    ):
        ctxgrad.load(path)


def test_a_truncated_archive(tmp_path: pathlib.Path) -> None:
    buffer = io.BytesIO()
    ctxgrad.save({"w": ctxgrad.arange(100.0)}, buffer)
    path = tmp_path / "cut.pt"
    path.write_bytes(buffer.getvalue()[:200])
    with pytest.raises(RuntimeError, match=r"cut\.pt is damaged or not a ctxgrad file"):
        ctxgrad.load(path)


def _archive_with_structure(structure: Any, **arrays: Any) -> io.BytesIO:
    buffer = io.BytesIO()
    text = structure if isinstance(structure, str) else json.dumps(structure)
    np.savez(buffer, __ctxgrad__=np.frombuffer(text.encode(), dtype=np.uint8), **arrays)
    buffer.seek(0)
    return buffer


@pytest.mark.parametrize(
    ("structure", "message"),
    [
        ("{not json", "damaged structure entry"),
        ({"format": "other"}, "'__ctxgrad__' entry that ctxgrad.save did not write"),
        (
            {"format": "ctxgrad.save", "version": 99, "object": None},
            "format version 99; this ctxgrad reads versions up to 3",
        ),
        ({"format": "ctxgrad.save", "version": 1, "object": {"tensor": 5}}, "the array 'tensor_5' is missing"),
        ({"format": "ctxgrad.save", "version": 1, "object": {"set": [1]}}, "unexpected structure node"),
    ],
)
def test_a_damaged_structure(structure: Any, message: str) -> None:
    with pytest.raises(RuntimeError, match=message):
        ctxgrad.load(_archive_with_structure(structure))


def test_an_array_of_objects_in_the_archive_is_refused() -> None:
    structure = {"format": "ctxgrad.save", "version": 1, "object": {"tensor": 0}}
    with pytest.raises(
        RuntimeError, match="damaged or not a ctxgrad file: Object arrays cannot be loaded when allow_pickle=False"
    ):
        ctxgrad.load(_archive_with_structure(structure, tensor_0=np.array([{"a": 1}], dtype=object)))


class Point:
    """An object of a user's class, which only pickle can store."""

    def __init__(self, x: Any) -> None:
        self.x = x

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Point) and other.x == self.x


@pytest.mark.parametrize(
    ("obj", "message"),
    [
        ({1, 2}, r"an object of type builtins.set at obj without pickle;"),
        ({"state": {0: {"fn": print}}}, r"builtins.builtin_function_or_method at obj\['state'\]\[0\]\['fn'\]"),
        ([1, (2, Point(3))], r"test_serialization.Point at obj\[1\]\[1\]"),
        ({"a": {(1, 2): 3}}, r"a dict key of type tuple \(\(1, 2\)\) in obj\['a'\]"),
        ({"a": np.array([None])}, r"an array of Python objects \(dtype object\) at obj\['a'\]"),
        ([np.int64(3)], r"numpy.int64 at obj\[0\]"),
    ],
)
def test_what_needs_pickle_is_pickled_and_refused_by_default_naming_where_it_is(obj: Any, message: str) -> None:
    buffer = io.BytesIO()
    ctxgrad.save(obj, buffer)
    buffer.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed") as refused:
        ctxgrad.load(buffer)
    assert "`weights_only` set to `False`" in str(refused.value)
    assert re.search(message, str(refused.value))
    buffer.seek(0)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        ctxgrad.load(buffer, weights_only=True)
    buffer.seek(0)
    loaded = ctxgrad.load(buffer, weights_only=False)
    if isinstance(obj, dict) and "a" in obj and isinstance(obj["a"], np.ndarray):
        assert loaded["a"].tolist() == [None]
    else:
        assert loaded == obj


def test_refusing_a_pickle_runs_none_of_it(tmp_path: pathlib.Path) -> None:
    ran: list[int] = []
    Bomb.ran = ran
    path = tmp_path / "bomb.pt"
    ctxgrad.save(Bomb(), path)
    with pytest.raises(pickle.UnpicklingError):
        ctxgrad.load(path)
    assert ran == []
    ctxgrad.load(path, weights_only=False)
    assert ran == [1]


class Bomb:
    """Unpickling it records a call: the code a pickle runs."""

    ran: list[int] = []

    def __reduce__(self) -> Any:
        return (Bomb.record, ())

    @staticmethod
    def record() -> None:
        Bomb.ran.append(1)


def test_a_whole_module_round_trips_with_weights_only_false() -> None:
    ctxgrad.manual_seed(0)
    model = ctxgrad.nn.Sequential(ctxgrad.nn.Linear(3, 4), ctxgrad.nn.Tanh(), ctxgrad.nn.Linear(4, 2))
    buffer = io.BytesIO()
    ctxgrad.save(model, buffer)
    buffer.seek(0)
    loaded = ctxgrad.load(buffer, weights_only=False)
    assert type(loaded) is ctxgrad.nn.Sequential and loaded is not model
    x = ctxgrad.randn(5, 3)
    np.testing.assert_array_equal(loaded(x).detach().numpy(), model(x).detach().numpy())
    assert all(p.requires_grad for p in loaded.parameters())
    loaded(x).sum().backward()
    assert loaded[0].weight.grad is not None and model[0].weight.grad is None


def test_a_state_dict_still_loads_without_pickle() -> None:
    model = ctxgrad.nn.Linear(3, 2)
    buffer = io.BytesIO()
    ctxgrad.save(model.state_dict(), buffer)
    buffer.seek(0)
    assert b"__pickle__" not in buffer.getvalue()
    loaded = ctxgrad.load(buffer)  # weights_only by default
    assert list(loaded) == ["weight", "bias"]
    assert ctxgrad.equal(loaded["weight"], model.weight.detach())


def test_pickle_module_and_protocol_are_used() -> None:
    calls: list[str] = []

    class Recording:
        @staticmethod
        def dumps(obj: Any, protocol: int) -> bytes:
            calls.append(f"dumps {protocol}")
            return pickle.dumps(obj, protocol=protocol)

        @staticmethod
        def loads(data: bytes, **kwargs: Any) -> Any:
            calls.append(f"loads {sorted(kwargs)}")
            return pickle.loads(data, **kwargs)

    buffer = io.BytesIO()
    ctxgrad.save({1, 2}, buffer, pickle_module=Recording, pickle_protocol=4)
    buffer.seek(0)
    assert ctxgrad.load(buffer, pickle_module=Recording, weights_only=False, encoding="utf-8") == {1, 2}
    assert calls == ["dumps 4", "loads ['encoding']"]


def test_a_container_that_contains_itself_is_pickled() -> None:
    loop: list[Any] = [1]
    loop.append({"again": loop})
    buffer = io.BytesIO()
    ctxgrad.save(loop, buffer)
    buffer.seek(0)
    with pytest.raises(pickle.UnpicklingError, match=r"cannot store obj\[1\]\['again'\] without pickle: it contains"):
        ctxgrad.load(buffer)
    buffer.seek(0)
    loaded = ctxgrad.load(buffer, weights_only=False)
    assert loaded[1]["again"] is loaded


def test_a_pickle_file_without_its_entry_is_damaged() -> None:
    structure = {"format": "ctxgrad.save", "version": 2, "pickled": "a set"}
    with pytest.raises(RuntimeError, match="the entry '__pickle__' is missing"):
        ctxgrad.load(_archive_with_structure(structure), weights_only=False)


def test_torch_refuses_a_whole_object_by_default_too(torch: Any, tmp_path: pathlib.Path) -> None:
    path = tmp_path / "point.pt"
    torch.save(Point(1), path)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        torch.load(path)
    assert torch.load(path, weights_only=False) == Point(1)
    ctxgrad.save(Point(1), path)
    with pytest.raises(pickle.UnpicklingError, match="Weights only load failed"):
        ctxgrad.load(path)
    assert ctxgrad.load(path, weights_only=False) == Point(1)


def test_map_location_other_than_cpu() -> None:
    buffer = io.BytesIO()
    ctxgrad.save(1, buffer)
    buffer.seek(0)
    with pytest.raises(RuntimeError, match="map_location must be None or 'cpu'"):
        ctxgrad.load(buffer, map_location="cuda:0")


def test_map_location_forms_that_mean_the_cpu(torch: Any) -> None:
    forms: list[Any] = [None, "cpu", ctxgrad.device("cpu"), {"cuda:0": "cpu"}, lambda storage, loc: storage]
    for form in forms:
        buffer = io.BytesIO()
        ctxgrad.save({"w": ctxgrad.ones(2)}, buffer)
        buffer.seek(0)
        assert ctxgrad.load(buffer, map_location=form)["w"].tolist() == [1.0, 1.0]
        theirs = io.BytesIO()
        torch.save({"w": torch.ones(2)}, theirs)
        theirs.seek(0)
        torch_form = torch.device("cpu") if isinstance(form, ctxgrad.device) else form
        assert torch.load(theirs, map_location=torch_form)["w"].tolist() == [1.0, 1.0]
    with pytest.raises(RuntimeError, match="map_location must be None or 'cpu'"):
        ctxgrad.load(io.BytesIO(), map_location={"cpu": "cuda:0"})


def test_a_file_from_torch_save_is_named_with_the_way_across(torch: Any, tmp_path: pathlib.Path) -> None:
    path = tmp_path / "torch.pt"
    torch.save({"w": torch.ones(2)}, path)
    with pytest.raises(RuntimeError, match=r"It looks like a file from torch\.save: load it with torch\.load"):
        ctxgrad.load(path)
    state = torch.load(path)
    converted = {name: ctxgrad.from_dlpack(t) for name, t in state.items()}
    ctxgrad.save(converted, tmp_path / "ours.pt")
    assert ctxgrad.load(tmp_path / "ours.pt")["w"].tolist() == [1.0, 1.0]

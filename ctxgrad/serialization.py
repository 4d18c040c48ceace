"""``save`` and ``load``: tensors, state dicts and (as torch) whole objects in a file.

``torch.save`` pickles, so ``torch.load`` of an untrusted file could run code; since torch 2.6
``torch.load`` refuses what a pickle would have to import unless ``weights_only=False`` is
passed.  ctxgrad does the same with a format in which weights never need pickle: NumPy's
``.npz`` (a zip archive of ``.npy`` arrays), read back with ``allow_pickle=False``:

* each tensor (and NumPy array) is one array in the archive, ``tensor_0``, ``tensor_1``, ...;
* the structure around them (dicts, lists, tuples, numbers, strings, booleans, None) is one
  JSON document, stored as UTF-8 bytes in the entry ``__ctxgrad__``, where a tensor appears
  as ``{"tensor": 0}``.

A tensor referenced twice is stored once and comes back as one object. Tensors come back
with their dtype, shape and values, as leaves that do not require grad.  Tensors that share
memory (a tensor and views of it, as torch keeps tensors that share a storage) are stored as
the bytes they span, once (the entry ``storage_0``, ...), and each as a view of them (its
dtype, shape, byte strides and byte offset, under ``"views"`` in the JSON document; format
version 3): after loading they share memory again, so a write into one is seen by the others.

>>> import io
>>> import ctxgrad
>>> buffer = io.BytesIO()
>>> ctxgrad.save({"step": 3, "weights": [ctxgrad.ones(2), ctxgrad.arange(3)]}, buffer)
>>> _ = buffer.seek(0)
>>> ctxgrad.load(buffer)
{'step': 3, 'weights': [tensor([1., 1.]), tensor([0, 1, 2])]}

Anything else (a whole ``nn.Module``, an object of your own class, a set) is saved as torch
saves it, with pickle, in the same archive (the entry ``__pickle__``, format version 2).
Loading it runs the pickle, which can run any code, so :func:`load` refuses it with torch's
``pickle.UnpicklingError`` unless ``weights_only=False`` is passed, for files you trust:

>>> model = ctxgrad.nn.Linear(2, 1)
>>> buffer = io.BytesIO()
>>> ctxgrad.save(model, buffer)
>>> _ = buffer.seek(0)
>>> ctxgrad.load(buffer)
Traceback (most recent call last):
  ...
_pickle.UnpicklingError: Weights only load failed. ...
>>> _ = buffer.seek(0)
>>> ctxgrad.load(buffer, weights_only=False)
Linear(in_features=2, out_features=1, bias=True)
"""

from __future__ import annotations

import io
import json
import os
import pickle
import zipfile
from collections import OrderedDict
from typing import IO, Any

import numpy as np

from ctxgrad._tensor import _DTYPES, Tensor, _wrap

__all__ = ["add_safe_globals", "clear_safe_globals", "get_safe_globals", "load", "safe_globals", "save"]

FORMAT_NAME = "ctxgrad.save"
FORMAT_VERSION = 1  #: the version of a file without pickle (what ctxgrad has always written)
PICKLE_FORMAT_VERSION = 2  #: the version of a file whose object is a pickle
SHARED_FORMAT_VERSION = 3  #: the version of a file in which tensors share memory (views)
_NEWEST_VERSION = SHARED_FORMAT_VERSION
_STRUCTURE_ENTRY = "__ctxgrad__"
_PICKLE_ENTRY = "__pickle__"
_FROM_TORCH = (
    ". It looks like a file from torch.save: load it with torch.load, then save the state dict as tensors "
    "ctxgrad reads, e.g. {name: ctxgrad.from_dlpack(t) for name, t in state.items()}, or as a safetensors "
    "file (ctxgrad.utils.safetensors.load_file reads it)"
)
_ZIP_MAGIC = b"PK\x03\x04"
_KEY_TYPES = (str, int, float, bool, type(None))

FileLike = str | os.PathLike[str] | IO[bytes]


# --------------------------------------------------------------------------- save
def save(
    obj: Any,
    f: FileLike,
    pickle_module: Any = None,
    pickle_protocol: int = 2,
    _use_new_zipfile_serialization: bool = True,
    _disable_byteorder_record: bool = False,
) -> None:
    """Write ``obj`` to ``f`` (a path, or a binary file object open for writing).

    A tensor, a NumPy array, or a dict, list or tuple nesting tensors, arrays, numbers,
    strings, booleans and None (an optimizer's or a module's ``state_dict``), with dict keys
    that are strings, numbers, booleans or None, is written without pickle: it loads with
    the default ``weights_only=True``.  Anything else (a module, an object of any class, a
    set, a container that contains itself) is pickled as torch pickles it (with
    ``pickle_module``, default :mod:`pickle`, and ``pickle_protocol``), and loads only with
    ``weights_only=False``.

    Tensors (and arrays) that share memory, such as a tensor and views of it, are stored as
    that memory once and load sharing it again, as torch keeps a storage shared.

    The file is an ``.npz`` archive whatever its name (no suffix is added), whatever torch's
    ``_use_new_zipfile_serialization`` and ``_disable_byteorder_record`` say: they choose
    between torch's own formats, and are taken so that code that passes them runs.
    """
    arrays: dict[str, np.ndarray[Any, Any]] = {}
    structure: dict[str, Any]
    try:
        structure = {
            "format": FORMAT_NAME,
            "version": FORMAT_VERSION,
            "object": _encode(obj, "obj", arrays, {}, set()),
        }
        views = _share_memory(arrays)
        if views:
            structure["version"] = SHARED_FORMAT_VERSION
            structure["views"] = views
    except (TypeError, ValueError) as reason:  # not weights only: pickle the whole object
        module = pickle if pickle_module is None else pickle_module
        arrays = {_PICKLE_ENTRY: np.frombuffer(module.dumps(obj, protocol=pickle_protocol), dtype=np.uint8)}
        structure = {"format": FORMAT_NAME, "version": PICKLE_FORMAT_VERSION, "pickled": str(reason)}
    text = json.dumps(structure, allow_nan=True)
    arrays[_STRUCTURE_ENTRY] = np.frombuffer(text.encode("utf-8"), dtype=np.uint8)
    if isinstance(f, (str, os.PathLike)):
        with open(f, "wb") as file:
            np.savez(file, **arrays)  # type: ignore[arg-type]
    else:
        np.savez(f, **arrays)  # type: ignore[arg-type]


def _encode(
    obj: Any, where: str, arrays: dict[str, np.ndarray[Any, Any]], stored: dict[int, int], active: set[int]
) -> Any:
    """The JSON form of ``obj`` (found at ``where``), adding its arrays to ``arrays``."""
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, int):
        return int(obj)
    if isinstance(obj, float):
        return float(obj)
    if isinstance(obj, (Tensor, np.ndarray)):
        kind = "tensor" if isinstance(obj, Tensor) else "ndarray"
        if id(obj) not in stored:
            data = obj.detach().numpy() if isinstance(obj, Tensor) else obj
            if data.dtype.hasobject:
                raise TypeError(
                    f"ctxgrad.save cannot store an array of Python objects (dtype object) at {where} without pickle"
                )
            stored[id(obj)] = len(stored)
            arrays[f"tensor_{stored[id(obj)]}"] = data
        return {kind: stored[id(obj)]}
    if isinstance(obj, (dict, list, tuple)):
        if id(obj) in active:
            raise ValueError(f"ctxgrad.save cannot store {where} without pickle: it contains itself")
        active.add(id(obj))
        try:
            if isinstance(obj, dict):
                items = []
                for key, value in obj.items():
                    if not isinstance(key, _KEY_TYPES):
                        raise TypeError(
                            f"ctxgrad.save cannot store a dict key of type {type(key).__name__} ({key!r}) in {where} "
                            "without pickle; "
                            "keys must be str, int, float, bool or None"
                        )
                    items.append([key, _encode(value, f"{where}[{key!r}]", arrays, stored, active)])
                return {"odict" if isinstance(obj, OrderedDict) else "dict": items}
            kind = "list" if isinstance(obj, list) else "tuple"
            return {kind: [_encode(v, f"{where}[{i}]", arrays, stored, active) for i, v in enumerate(obj)]}
        finally:
            active.discard(id(obj))
    raise TypeError(
        f"ctxgrad.save cannot store an object of type {type(obj).__module__}.{type(obj).__qualname__} at {where} "
        "without pickle; "
        "it stores Tensor, numpy.ndarray, dict, list, tuple, str, int, float, bool and None"
    )


def _owner(arr: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """The array at the end of ``arr``'s chain of NumPy views (one memory block when contiguous)."""
    while isinstance(arr.base, np.ndarray):
        arr = arr.base
    return arr


def _address(arr: np.ndarray[Any, Any]) -> int:
    """The address of ``arr``'s first element (index 0 in every dimension)."""
    address: int = arr.__array_interface__["data"][0]
    return address


def _byte_span(arr: np.ndarray[Any, Any]) -> tuple[int, int]:
    """The addresses of the first and one past the last byte that a non-empty ``arr`` reads."""
    start = end = _address(arr)
    for n, stride in zip(arr.shape, arr.strides):
        if stride < 0:
            start += (n - 1) * stride
        else:
            end += (n - 1) * stride
    return start, end + arr.itemsize


_ALIGN = 16  # a storage starts at this alignment of its memory, so the views keep their alignment


def _share_memory(arrays: dict[str, np.ndarray[Any, Any]]) -> dict[str, dict[str, Any]]:
    """Replace the arrays of ``arrays`` that share a memory block with that block's bytes (the
    span they read, once, as ``storage_N``) and return how each reads it (a view's dtype, shape,
    byte strides and byte offset, by entry name)."""
    groups: dict[int, list[str]] = {}
    owners: dict[int, np.ndarray[Any, Any]] = {}
    for key, arr in arrays.items():
        owner = _owner(arr)
        if arr.size and (owner.flags.c_contiguous or owner.flags.f_contiguous):
            groups.setdefault(id(owner), []).append(key)
            owners[id(owner)] = owner
    views: dict[str, dict[str, Any]] = {}
    shared = [(owners[k], keys) for k, keys in groups.items() if len(keys) > 1]
    for n, (owner, keys) in enumerate(shared):
        spans = [_byte_span(arrays[key]) for key in keys]
        origin = _address(owner)
        start = origin + (min(lo for lo, _ in spans) - origin) // _ALIGN * _ALIGN
        end = max(hi for _, hi in spans)
        memory = owner.ravel(order="K").view(np.uint8)  # (a contiguous owner's bytes in memory order: no copy)
        arrays[f"storage_{n}"] = memory[start - origin : end - origin]
        for key in keys:
            arr = arrays.pop(key)
            views[key] = {
                "storage": n,
                "dtype": arr.dtype.str,
                "shape": list(arr.shape),
                "strides": list(arr.strides),
                "offset": _address(arr) - start,
            }
    return views


# --------------------------------------------------------------------------- load
def load(
    f: FileLike,
    map_location: Any = None,
    pickle_module: Any = None,
    *,
    weights_only: bool | None = None,
    mmap: Any = None,
    **pickle_load_args: Any,
) -> Any:
    """Read back an object written by :func:`save` from ``f`` (a path or a binary file object).

    Tensors and containers of them (what ``save`` writes without pickle) always load, without
    running any code.  A whole object (what ``save`` pickled) loads only with
    ``weights_only=False``: unpickling can run any code, so do it only for a file you trust.
    With the default (``None``, which is ``True``, as in torch 2.6+) it is torch's
    ``pickle.UnpicklingError``, saying what was pickled and where.

    ``map_location`` may be None, ``"cpu"``, a CPU device, a dict mapping locations to the
    CPU, or a function (``lambda storage, loc: storage``, not called: every tensor is on the
    CPU already); anything else names a device ctxgrad does not have.  ``mmap`` is
    accepted for torch's signature; ``pickle_module`` and ``pickle_load_args`` are used to
    unpickle.

    Raises ``FileNotFoundError`` for a missing path, and ``RuntimeError`` saying what is wrong
    for a file that is not one written by :func:`save` (not a zip archive, no ctxgrad
    structure, a damaged archive, or a newer format version).
    """
    _check_map_location(map_location)
    unpickle = _Unpickle(weights_only is False, pickle_module, pickle_load_args)
    name = os.fspath(f) if isinstance(f, (str, os.PathLike)) else getattr(f, "name", repr(f))
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as file:
            return _load_from(file, name, unpickle)
    return _load_from(f, name, unpickle)


def _check_map_location(map_location: Any) -> None:
    """Accept the ``map_location`` forms that all mean the CPU (see :func:`load`)."""
    if map_location is None or callable(map_location):
        return
    targets = map_location.values() if isinstance(map_location, dict) else [map_location]
    for target in targets:
        if str(target).split(":")[0] != "cpu":
            raise RuntimeError(
                f"ctxgrad.load: map_location must be None or 'cpu' (ctxgrad has only the CPU), got {map_location!r}"
            )


class _Unpickle:
    """Whether a pickled object may be loaded, and with what."""

    def __init__(self, allowed: bool, module: Any, kwargs: dict[str, Any]) -> None:
        self.allowed, self.module, self.kwargs = allowed, pickle if module is None else module, kwargs

    def __call__(self, raw: np.ndarray[Any, Any], reason: Any) -> Any:
        if self.allowed:
            return self.module.loads(raw.tobytes(), **self.kwargs)
        if _SAFE_GLOBALS:
            # Only the globals the user allowed (and ctxgrad's tensors): nothing else is imported.
            try:
                return _AllowListUnpickler(io.BytesIO(raw.tobytes())).load()
            except pickle.UnpicklingError as error:
                reason = f"{reason}, and {error}"
        raise pickle.UnpicklingError(
            "Weights only load failed. This file can still be loaded, to do so you have two options, "
            "do those steps only if you trust the source of the checkpoint.\n"
            "\t(1) Re-running `ctxgrad.load` with `weights_only` set to `False` will likely succeed, but it can "
            "result in arbitrary code execution. Do it only if you got the file from a trusted source.\n"
            "\t(2) Alternatively, save only what loads without pickle: tensors, NumPy arrays, and dicts, lists "
            "and tuples of them with numbers, strings, booleans and None (a `state_dict()`).\n"
            f"\tThe file holds a pickle since {reason}"
        )


# --------------------------------------------------------------------------- safe globals
#: The classes and functions a pickle may import under ``weights_only`` (torch's allow-list),
#: added by :func:`add_safe_globals` and :class:`safe_globals`.
_SAFE_GLOBALS: list[Any] = []


def _qualified(obj: Any) -> str:
    return f"{obj.__module__}.{obj.__qualname__}"


class _AllowListUnpickler(pickle.Unpickler):
    """An unpickler that imports only the allowed globals, ctxgrad's tensors and NumPy's arrays."""

    def find_class(self, module: str, name: str) -> Any:
        from ctxgrad import _tensor
        from ctxgrad.nn import parameter

        allowed = [*_SAFE_GLOBALS, _tensor.Tensor, _tensor._rebuild_tensor, parameter.Parameter]
        allowed += [parameter._rebuild_parameter, OrderedDict, np.ndarray, np.dtype]
        for candidate in allowed:
            target = candidate[0] if isinstance(candidate, tuple) else candidate
            spelled = candidate[1] if isinstance(candidate, tuple) else _qualified(candidate)
            if spelled == f"{module}.{name}":
                return target
        if module in ("numpy.core.multiarray", "numpy._core.multiarray") and name == "_reconstruct":
            return super().find_class(module, name)  # a NumPy array's own rebuild function
        if (module, name) == ("_codecs", "encode"):
            return super().find_class(module, name)  # how pickle's protocol 2 spells bytes (torch allows it)
        if module.startswith("numpy.dtypes") or (module in ("numpy", "numpy.core.multiarray") and name == "scalar"):
            return super().find_class(module, name)
        raise pickle.UnpicklingError(
            f"Unsupported global: GLOBAL {module}.{name} was not an allowed global by default. Please use "
            f"`ctxgrad.serialization.add_safe_globals([{module}.{name}])` or the "
            f"`ctxgrad.serialization.safe_globals([{module}.{name}])` context manager to allowlist this global "
            "if you trust this class/function."
        )


def add_safe_globals(safe_globals: list[Any]) -> None:
    """Allow these classes and functions (or ``(object, "module.name")`` pairs) in a pickle
    that :func:`load` reads with ``weights_only``, as torch's ``add_safe_globals``."""
    _SAFE_GLOBALS.extend(safe_globals)


def get_safe_globals() -> list[Any]:
    """The globals :func:`add_safe_globals` allowed."""
    return list(_SAFE_GLOBALS)


def clear_safe_globals() -> None:
    """Forget the globals :func:`add_safe_globals` allowed."""
    _SAFE_GLOBALS.clear()


class safe_globals:
    """``with safe_globals([MyClass]):``: :func:`add_safe_globals` for the block only."""

    def __init__(self, safe_globals: list[Any]) -> None:
        self.safe_globals = safe_globals

    def __enter__(self) -> None:
        self._before = list(_SAFE_GLOBALS)
        add_safe_globals(self.safe_globals)

    def __exit__(self, *exc: object) -> None:
        _SAFE_GLOBALS[:] = self._before


def _load_from(file: IO[bytes], name: Any, unpickle: _Unpickle) -> Any:
    start = file.tell()
    magic = file.read(len(_ZIP_MAGIC))
    file.seek(start)
    if magic != _ZIP_MAGIC:
        what = "it is empty" if not magic else f"it starts with {magic!r}, not a zip archive's signature"
        raise RuntimeError(f"ctxgrad.load: {name} is not a file written by ctxgrad.save: {what}")
    try:
        with np.load(file, allow_pickle=False) as archive:
            if _STRUCTURE_ENTRY not in archive.files:
                torch_file = any(entry.endswith("data.pkl") for entry in archive.files)
                raise RuntimeError(
                    f"ctxgrad.load: {name} is a zip archive but not one written by ctxgrad.save "
                    f"(no '{_STRUCTURE_ENTRY}' entry; entries: {archive.files[:5]})"
                    + (_FROM_TORCH if torch_file else "")
                )
            structure = _read_structure(archive[_STRUCTURE_ENTRY], name)
            arrays = {key: archive[key] for key in archive.files if key != _STRUCTURE_ENTRY}
    except (zipfile.BadZipFile, EOFError, OSError, ValueError) as error:
        raise RuntimeError(f"ctxgrad.load: {name} is damaged or not a ctxgrad file: {error}") from error
    if "pickled" in structure:
        if _PICKLE_ENTRY not in arrays:
            raise RuntimeError(f"ctxgrad.load: {name} is damaged: the entry '{_PICKLE_ENTRY}' is missing")
        return unpickle(arrays[_PICKLE_ENTRY], structure["pickled"])
    _make_views(structure.get("views", {}), arrays, name)
    return _decode(structure["object"], arrays, {}, name)


def _make_views(views: Any, arrays: dict[str, np.ndarray[Any, Any]], name: Any) -> None:
    """Add to ``arrays`` the arrays that the file stored as views of a shared storage (see
    :func:`_share_memory`), each a view of one loaded copy of its storage's bytes."""
    if not isinstance(views, dict):
        raise RuntimeError(f"ctxgrad.load: {name} is damaged: 'views' is not a mapping")
    storages: dict[int, np.ndarray[Any, Any]] = {}
    for key, spec in views.items():
        try:
            n = spec["storage"]
            raw = arrays[f"storage_{n}"]
            if raw.dtype != np.uint8 or raw.ndim != 1:
                raise ValueError(f"the storage {n} is not bytes")
            dtype = np.dtype(spec["dtype"])
            if dtype.kind not in "biufc":
                raise ValueError(f"a view of dtype {dtype} is not a tensor's")
            storage = storages.get(n)
            if storage is None:  # (copied into memory of the alignment it was saved with)
                aligned = np.empty(-(-raw.size // _ALIGN), dtype=np.complex128).view(np.uint8)
                storage = storages[n] = aligned[: raw.size]
                storage[...] = raw
            shape = tuple(int(d) for d in spec["shape"])
            strides = tuple(int(d) for d in spec["strides"])
            arrays[key] = np.ndarray(shape, dtype, buffer=storage, offset=int(spec["offset"]), strides=strides)
        except (KeyError, TypeError, ValueError) as error:
            raise RuntimeError(f"ctxgrad.load: {name} is damaged: the view '{key}' cannot be read ({error})") from error


def _read_structure(raw: np.ndarray[Any, Any], name: Any) -> dict[str, Any]:
    try:
        structure = json.loads(raw.tobytes().decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise RuntimeError(f"ctxgrad.load: {name} has a damaged structure entry: {error}") from error
    if (
        not isinstance(structure, dict)
        or structure.get("format") != FORMAT_NAME
        or ("object" not in structure and "pickled" not in structure)
    ):
        raise RuntimeError(f"ctxgrad.load: {name} has a '{_STRUCTURE_ENTRY}' entry that ctxgrad.save did not write")
    version = structure.get("version")
    if not isinstance(version, int) or version > _NEWEST_VERSION:
        raise RuntimeError(
            f"ctxgrad.load: {name} was written in format version {version!r}; this ctxgrad reads versions up to "
            f"{_NEWEST_VERSION}: upgrade ctxgrad"
        )
    return structure


def _tensor_of(array: np.ndarray[Any, Any], entry: str, name: Any) -> Tensor:
    """The tensor stored as ``array``: one of a dtype a tensor holds (in the other byte order:
    converted), else the file is refused (``save`` never writes strings, datetimes or records
    as a tensor; a crafted file can)."""
    native = array.dtype.newbyteorder("=")
    if native not in _DTYPES:
        raise RuntimeError(
            f"ctxgrad.load: {name} is damaged: the tensor '{entry}' has dtype {array.dtype.str!r} "
            f"({array.dtype.name}), which a tensor cannot hold (expected bool, an integer, float or complex dtype)"
        )
    return _wrap(array if array.dtype == native else array.astype(native))


def _decode(node: Any, arrays: dict[str, np.ndarray[Any, Any]], made: dict[tuple[str, int], Any], name: Any) -> Any:
    """The object that the JSON ``node`` describes (one object per stored array)."""
    if node is None or isinstance(node, (bool, int, float, str)):
        return node
    if isinstance(node, dict) and len(node) == 1:
        ((kind, value),) = node.items()
        if kind in ("tensor", "ndarray") and isinstance(value, int):
            key = (kind, value)
            if key not in made:
                entry = f"tensor_{value}"
                if entry not in arrays:
                    raise RuntimeError(f"ctxgrad.load: {name} is damaged: the array '{entry}' is missing")
                made[key] = _tensor_of(arrays[entry], entry, name) if kind == "tensor" else arrays[entry]
            return made[key]
        if kind in ("list", "tuple") and isinstance(value, list):
            items = [_decode(v, arrays, made, name) for v in value]
            return items if kind == "list" else tuple(items)
        if kind in ("dict", "odict") and isinstance(value, list):
            pairs = [(_decode(k, arrays, made, name), _decode(v, arrays, made, name)) for k, v in value]
            return dict(pairs) if kind == "dict" else OrderedDict(pairs)
    raise RuntimeError(f"ctxgrad.load: {name} is damaged: unexpected structure node {str(node)[:80]}")

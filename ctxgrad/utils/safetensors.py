"""Safetensors files for ctxgrad tensors, as ``safetensors.torch`` does for torch's: a
state dict of named tensors in the format many model hubs use, which loading never runs
code from.

Needs the optional ``safetensors`` package (``pip install "ctxgrad[safetensors]"``); this
module imports without it, and each function says so when it is called.  The functions
mirror ``safetensors.torch``::

    from ctxgrad.utils.safetensors import load_file, save_file

    save_file(model.state_dict(), "model.safetensors", metadata={"step": "10"})
    model.load_state_dict(load_file("model.safetensors"))

A file written here loads with ``safetensors.torch.load_file`` (and the reverse), with the same
names, dtypes, shapes and values: the format is the library's, not ctxgrad's.  Tensors come
back as leaves that do not require grad.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np

from ctxgrad._device import check_device
from ctxgrad._tensor import Tensor, as_tensor

__all__ = ["load", "load_file", "load_model", "save", "save_file", "save_model"]


def _numpy_api() -> Any:
    try:
        import safetensors.numpy
    except ImportError as error:  # pragma: no cover - run only without the extra
        raise ImportError(
            "ctxgrad.utils.safetensors needs the safetensors package: pip install 'ctxgrad[safetensors]' "
            "(or pip install safetensors)"
        ) from error
    return safetensors.numpy


def _arrays(tensors: Any, function: str) -> dict[str, np.ndarray[Any, Any]]:
    """The arrays of a dict of named tensors, checked as safetensors checks torch's."""
    if not isinstance(tensors, dict):
        raise TypeError(f"{function}(): expected a dict of str to Tensor, got {type(tensors).__name__}")
    arrays: dict[str, np.ndarray[Any, Any]] = {}
    for name, value in tensors.items():
        if not isinstance(name, str):
            raise TypeError(f"{function}(): the names must be str, got {type(name).__name__} ({name!r})")
        if not isinstance(value, Tensor):
            raise TypeError(f"{function}(): the value of '{name}' is a {type(value).__name__}, not a Tensor")
        array = value.detach().array
        if not array.flags.c_contiguous:
            raise ValueError(
                f"You are trying to save a non contiguous tensor: `{name}` which is not allowed. Call "
                "`.contiguous()` on it to pack it before saving."
            )
        arrays[name] = array
    return arrays


def _tensors(arrays: dict[str, np.ndarray[Any, Any]]) -> dict[str, Tensor]:
    return {name: as_tensor(np.array(array)) for name, array in arrays.items()}


def save(tensors: dict[str, Tensor], metadata: dict[str, str] | None = None) -> bytes:
    """The bytes of a safetensors file holding ``tensors`` (and the text ``metadata``)."""
    data: bytes = _numpy_api().save(_arrays(tensors, "save"), metadata=metadata)
    return data


def save_file(
    tensors: dict[str, Tensor], filename: str | os.PathLike[str], metadata: dict[str, str] | None = None
) -> None:
    """Write ``tensors`` (a dict of names to contiguous tensors, such as a ``state_dict()``)
    to the safetensors file ``filename``, with the text ``metadata``."""
    _numpy_api().save_file(_arrays(tensors, "save_file"), filename, metadata=metadata)


def load(data: bytes) -> dict[str, Tensor]:
    """The named tensors in the bytes of a safetensors file."""
    return _tensors(_numpy_api().load(data))


def load_file(filename: str | os.PathLike[str], device: str | int = "cpu") -> dict[str, Tensor]:
    """The named tensors of the safetensors file ``filename`` (``device`` must be the CPU)."""
    check_device(device)
    return _tensors(_numpy_api().load_file(filename))


def save_model(
    model: Any, filename: str | os.PathLike[str], metadata: dict[str, str] | None = None, force_contiguous: bool = False
) -> None:
    """Write ``model.state_dict()`` to ``filename`` (``force_contiguous`` packs views first)."""
    state = model.state_dict()
    if force_contiguous:
        state = {name: value.contiguous() for name, value in state.items()}
    save_file(state, filename, metadata=metadata)


def load_model(
    model: Any, filename: str | os.PathLike[str], strict: bool = True, device: str | int = "cpu"
) -> tuple[list[str], list[str]]:
    """Load the safetensors file ``filename`` into ``model`` (``load_state_dict``); returns the
    names the model has that the file lacks and those the file has that the model lacks.
    With ``strict``, either is torch's ``RuntimeError``."""
    state = load_file(filename, device=device)
    missing, unexpected = model.load_state_dict(state, strict=False)
    missing, unexpected = list(missing), list(unexpected)
    if strict and (missing or unexpected):
        error = f"Error(s) in loading state_dict for {type(model).__name__}:"
        if missing:
            error += "\n    Missing key(s) in state_dict: " + ", ".join(f'"{k}"' for k in sorted(missing))
        if unexpected:
            error += "\n    Unexpected key(s) in state_dict: " + ", ".join(f'"{k}"' for k in sorted(unexpected))
        raise RuntimeError(error)
    return missing, unexpected

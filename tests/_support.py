"""Helpers shared by the test modules (imported as ``from _support import ...``)."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest


def import_torch() -> Any:
    """torch, or skip the calling test when it is not installed."""
    return pytest.importorskip("torch")


def raised(fn: Any, lib: Any) -> tuple[str, str]:
    """Run ``fn()`` and return its exception's type name and message, with the library's
    name replaced by ``LIB`` so that ctxgrad's and torch's messages can be compared."""
    try:
        fn()
    except Exception as exc:
        return type(exc).__name__, str(exc).replace(lib.__name__, "LIB")
    raise AssertionError("no exception raised")


def dtype_name(dt: Any) -> str:
    """``float32`` for ``np.dtype("float32")``, ``ctxgrad.float32`` and ``torch.float32``."""
    return str(dt).removeprefix("torch.").removeprefix("ctxgrad.")


def to_numpy(t: Any) -> np.ndarray:
    """The values of a ctxgrad or torch tensor as an array."""
    return np.asarray(t.detach().numpy())


def assert_matches_torch(ours: Any, theirs: Any) -> None:
    """ctxgrad's results equal torch's, where an error, as ``raised`` gives it, matches when
    its type is the same and its message is torch's, possibly followed by ctxgrad's detail
    (which names the culprit: a node, a shape, a dtype)."""
    if (
        isinstance(theirs, tuple)
        and len(theirs) == 2
        and all(isinstance(v, str) for v in theirs)
        and theirs[0].endswith(("Error", "Exception"))
    ):
        assert isinstance(ours, tuple) and ours[0] == theirs[0], (ours, theirs)
        assert ours[1].startswith(theirs[1]), (ours, theirs)
    elif isinstance(theirs, (list, tuple)) and isinstance(ours, (list, tuple)) and len(ours) == len(theirs):
        for o, t in zip(ours, theirs):
            assert_matches_torch(o, t)
    else:
        assert ours == theirs

"""torch's float64 values and gradients for the op families' cases, stored, so that a user
without torch still checks every case against torch's numbers.

``python tests/_torch_reference.py --write`` (with torch installed, the pinned version CI
uses) computes, for every case of every op family (``OpFamilyTests`` subclass), what
``test_values_and_gradients_match_torch`` compares, ``grads_of(torch, ...)`` in float64, and
writes it to ``tests/torch_reference/<module>.<Family>.npz``: per case the output and the
gradient of each input, their dtypes, ``requires_grad``, ``is_leaf`` and whether the output has
a ``grad_fn``.  ``--check`` exits with 1 when a stored file differs from what torch gives now.
Run ``--write`` after adding or changing a case; ``test_values_and_gradients_match_stored_torch``
skips a case with no stored values, and tests/test_torch_reference.py (with torch) fails
while the files are stale.
"""

from __future__ import annotations

import functools
import importlib
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

TESTS = Path(__file__).resolve().parent
STORE = TESTS / "torch_reference"


def path_for(family: type) -> Path:
    return STORE / f"{family.__module__}.{family.__qualname__}.npz"


@functools.cache
def _load(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    with np.load(path, allow_pickle=False) as stored:
        arrays = {key: stored[key] for key in stored.files}
    index = json.loads(str(arrays.pop("index")))
    return {case_id: (meta, arrays) for case_id, meta in index.items()}


def stored(family: type, case_id: str) -> tuple[dict[str, Any], list[np.ndarray | None]] | None:
    """``(meta, [out, grad_0, ...])`` stored for a case (None for a gradient torch did not
    give), or None when nothing is stored for it."""
    entry = _load(path_for(family)).get(case_id)
    if entry is None:
        return None
    meta, arrays = entry
    values = [arrays[key] if key is not None else None for key in meta["arrays"]]
    return meta, values


def _record(torch: Any, case: Any) -> tuple[dict[str, Any], list[np.ndarray | None]]:
    from _opcheck import as_array, grads_of, make_inputs
    from _support import dtype_name

    arrays = make_inputs(case.inputs, case.seed)
    out, *grads = grads_of(torch, case.fn, arrays, "float64", case.seed)
    values = [as_array(out), *(None if g is None else as_array(g) for g in grads)]
    meta = {
        "dtypes": [dtype_name(out.dtype), *(None if g is None else dtype_name(g.dtype) for g in grads)],
        "requires_grad": bool(out.requires_grad),
        "is_leaf": bool(out.is_leaf),
        "has_grad_fn": out.grad_fn is not None,
    }
    return meta, values


def compute(torch: Any, family: type) -> dict[str, np.ndarray]:
    """The arrays of one family's file; a case torch cannot run (a strict xfail) is left out."""
    index: dict[str, Any] = {}
    arrays: dict[str, np.ndarray] = {}
    for n, case in enumerate(family.cases):  # type: ignore[attr-defined]
        try:
            meta, values = _record(torch, case)
        except Exception:
            continue
        keys = []
        for i, value in enumerate(values):
            key = None if value is None else f"c{n}_{i}"
            if value is not None:
                arrays[f"c{n}_{i}"] = value
            keys.append(key)
        index[case.id] = {**meta, "arrays": keys}
    arrays["index"] = np.array(json.dumps(index, sort_keys=True))
    return arrays


def families() -> list[type]:
    """Every op family of the test modules."""
    if str(TESTS) not in sys.path:
        sys.path.insert(0, str(TESTS))
    from _opcheck import OpFamilyTests

    for path in sorted(TESTS.glob("test_*.py")):
        if "(OpFamilyTests):" in path.read_text(encoding="utf-8"):
            importlib.import_module(path.stem)
    found: list[type] = []
    pending = list(OpFamilyTests.__subclasses__())
    while pending:
        cls = pending.pop(0)
        pending.extend(cls.__subclasses__())
        if cls.__dict__.get("cases") or any(b is not OpFamilyTests and "cases" in vars(b) for b in cls.__mro__[1:]):
            found.append(cls)
    return sorted(found, key=lambda c: (c.__module__, c.__qualname__))


def _close(a: np.ndarray, b: np.ndarray) -> bool:
    if a.dtype != b.dtype or a.shape != b.shape:
        return False
    if a.dtype.kind in "fc":  # torch's threaded sums may round differently from run to run
        return bool(np.allclose(a, b, rtol=1e-12, atol=1e-15, equal_nan=True))
    return bool(np.array_equal(a, b))


def same(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> bool:
    """The same arrays: names, dtypes, shapes, and values up to the last bits."""
    return a.keys() == b.keys() and all(_close(a[k], b[k]) for k in a)


def main(argv: list[str]) -> int:
    import torch

    stale = []
    for family in families():
        arrays = compute(torch, family)
        path = path_for(family)
        if path.exists():
            with np.load(path, allow_pickle=False) as old:
                if same(arrays, {k: old[k] for k in old.files}):
                    continue
        stale.append(path)
        if "--write" in argv:
            STORE.mkdir(exist_ok=True)
            np.savez_compressed(path, **arrays)  # type: ignore[arg-type]  # (array names only)
            print(f"wrote {path.relative_to(TESTS.parent)}")
    if "--check" in argv and stale:
        for path in stale:
            print(f"{path.relative_to(TESTS.parent)} is stale: run python tests/_torch_reference.py --write")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

"""The torch values stored for the op families' cases (tests/torch_reference/) are what torch
gives now, for every case: regenerate them with ``python tests/_torch_reference.py --write``."""

from __future__ import annotations

from typing import Any

import numpy as np
from _torch_reference import compute, families, path_for, same


def test_every_family_s_stored_torch_values_are_what_torch_gives(torch: Any) -> None:
    stale = []
    for family in families():
        path = path_for(family)
        if not path.exists():
            stale.append(f"{path.name} (missing)")
            continue
        with np.load(path, allow_pickle=False) as stored:
            if not same(compute(torch, family), {key: stored[key] for key in stored.files}):
                stale.append(path.name)
    assert not stale, f"stale: {stale}; run python tests/_torch_reference.py --write"


def test_the_stored_values_are_small() -> None:
    """Committed to the repository: a few hundred kilobytes in all."""
    sizes = [path_for(family).stat().st_size for family in families()]
    assert len(sizes) >= 10 and sum(sizes) < 1_000_000

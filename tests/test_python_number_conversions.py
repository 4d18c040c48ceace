"""``float(t)``, ``int(t)`` and ``complex(t)`` of a one-element tensor, against torch: a
complex value converts to a real number only when its imaginary part is zero."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import ctxgrad

torch = pytest.importorskip("torch")

VALUES = [np.array(1 + 2j), np.array(3 + 0j), np.array(1.5), np.array([2.5]), np.array(7), np.array([1.0, 2.0])]


def _converted(convert: Any, value: Any) -> Any:
    try:
        return convert(value)
    except (RuntimeError, ValueError, TypeError) as exc:
        return type(exc), str(exc)


@pytest.mark.parametrize("convert", [float, int, complex])
@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_conversions_match_torch(convert: Any, value: np.ndarray) -> None:
    ours = _converted(convert, ctxgrad.tensor(value))
    theirs = _converted(convert, torch.tensor(value))
    assert ours == theirs
    assert type(ours) is type(theirs)

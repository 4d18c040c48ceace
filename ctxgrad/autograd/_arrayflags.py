"""What the saved-array lock asks of and does to a NumPy array, for every saved tensor: is it
writeable, make it read-only, make it writeable again.

These are the readable versions, which a plain install runs.  The compiled core
(tools/build_compiled.py) builds ``_arrayflags.pyx`` in their place: the same functions written
on NumPy's C structure (its flag bits, through NumPy's own inline accessors).  Reading ``arr.flags.writeable`` makes a
flags object and ``setflags`` parses its arguments: together most of the lock's cost.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

__all__ = ["is_writeable", "set_read_only", "set_writeable", "setflags"]

# ``setflags`` with the write flag positional (NumPy takes it so; its stubs say keyword-only):
# a fifth of the cost of setting ``arr.flags.writeable``, which makes a flags object and calls
# ``setflags`` by keyword.  With NumPy's checks: for views, whose base may forbid writing.
setflags: Callable[[np.ndarray[Any, Any], bool], None] = np.ndarray.setflags  # type: ignore[assignment]


def is_writeable(arr: np.ndarray[Any, Any]) -> bool:
    """NumPy's write flag of ``arr``."""
    return bool(arr.flags.writeable)


def set_read_only(arr: np.ndarray[Any, Any]) -> None:
    """Clear the write flag of ``arr``."""
    setflags(arr, False)


def set_writeable(arr: np.ndarray[Any, Any]) -> None:
    """Set the write flag of ``arr``; a ValueError where NumPy refuses it (memory that ``arr``
    does not own, whose owner does not say that it may be written)."""
    setflags(arr, True)

"""``ctxgrad.backends``: torch's backend switches, so code that sets them ports unchanged.

ctxgrad computes with NumPy on the CPU; :mod:`~ctxgrad.backends.cudnn` keeps the flags that
training scripts set for reproducibility (``cudnn.deterministic = True``,
``cudnn.benchmark = False``), and :mod:`~ctxgrad.backends.mps` answers that there is no Apple
GPU.  Setting a flag changes nothing in how ctxgrad computes: its ops are deterministic.
"""

from __future__ import annotations

from ctxgrad.backends import cudnn, mps

__all__ = [
    "are_deterministic_algorithms_enabled",
    "cudnn",
    "is_deterministic_algorithms_warn_only_enabled",
    "mps",
    "use_deterministic_algorithms",
]

_deterministic = {"mode": False, "warn_only": False}


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Ask for deterministic algorithms (``ctxgrad.use_deterministic_algorithms``, torch's
    switch): recorded, and nothing changes, since every ctxgrad op is deterministic already.
    ``mode`` must be a bool, as in torch."""
    if not isinstance(mode, bool):
        raise TypeError(
            f"_set_deterministic_algorithms(): argument 'mode' (position 1) must be bool, not {type(mode).__name__}"
        )
    _deterministic["mode"], _deterministic["warn_only"] = mode, bool(warn_only)


def are_deterministic_algorithms_enabled() -> bool:
    """What :func:`use_deterministic_algorithms` was last given (False at first)."""
    return _deterministic["mode"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    """The ``warn_only`` that :func:`use_deterministic_algorithms` was last given."""
    return _deterministic["warn_only"]

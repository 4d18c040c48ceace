"""``ctxgrad.backends``: torch's backend switches, so code that sets them ports unchanged.

ctxgrad computes with NumPy on the CPU; :mod:`~ctxgrad.backends.cudnn` keeps the flags that
training scripts set for reproducibility (``cudnn.deterministic = True``,
``cudnn.benchmark = False``), and :mod:`~ctxgrad.backends.mps` answers that there is no Apple
GPU, and :mod:`~ctxgrad.backends.cuda` keeps CUDA's matmul flags.  Setting a flag changes
nothing in how ctxgrad computes: its ops are deterministic, in the dtype asked for.
"""

from __future__ import annotations

import warnings

from ctxgrad.backends import cuda, cudnn, mps

__all__ = [
    "are_deterministic_algorithms_enabled",
    "cuda",
    "cudnn",
    "get_float32_matmul_precision",
    "is_deterministic_algorithms_warn_only_enabled",
    "mps",
    "set_float32_matmul_precision",
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


_matmul_precision = ["highest"]


def set_float32_matmul_precision(precision: str) -> None:
    """Record torch's float32 matmul precision (``"highest"``, ``"high"`` or ``"medium"``);
    ctxgrad's float32 matmul is always NumPy's, the highest.  Another string warns and is
    ignored, as in torch."""
    if not isinstance(precision, str):
        raise RuntimeError(f"set_float32_matmul_precision expects a str, but got {type(precision).__name__}")
    if precision not in ("highest", "high", "medium"):
        warnings.warn(
            f"{precision} is not one of 'highest', 'high', or 'medium'; the current "
            "set_float32_matmul_precision call has no effect.",
            UserWarning,
            stacklevel=2,
        )
        return
    _matmul_precision[0] = precision


def get_float32_matmul_precision() -> str:
    """What :func:`set_float32_matmul_precision` was last given (``"highest"`` at first)."""
    return _matmul_precision[0]

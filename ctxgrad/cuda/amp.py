"""``ctxgrad.cuda.amp``: torch.cuda.amp's deprecated spellings of :mod:`ctxgrad.amp` for
``"cuda"``, each with torch's ``FutureWarning``; with no GPU, ``autocast`` and ``GradScaler``
warn and disable themselves, as in a CPU-only torch (the ``GradScaler`` passes the loss and
the optimizer step through unchanged)."""

from __future__ import annotations

import warnings
from typing import Any

from ctxgrad import amp as _amp
from ctxgrad._dtypes import float16

__all__ = ["GradScaler", "autocast", "custom_bwd", "custom_fwd"]


def _deprecated(old: str, new: str) -> None:
    warnings.warn(
        f"`ctxgrad.cuda.amp.{old}(args...)` is deprecated. Please use `ctxgrad.amp.{new}` instead.",
        FutureWarning,
        stacklevel=3,
    )


class autocast(_amp.autocast):
    """``ctxgrad.amp.autocast("cuda", ...)``: disabled, with torch's warnings."""

    def __init__(self, enabled: bool = True, dtype: Any = float16, cache_enabled: bool = True) -> None:
        _deprecated("autocast", "autocast('cuda', args...)")
        super().__init__("cuda", enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class GradScaler(_amp.GradScaler):
    """``ctxgrad.amp.GradScaler("cuda", ...)``: disabled, with torch's warnings."""

    def __init__(
        self,
        init_scale: float = 2.0**16,
        growth_factor: float = 2.0,
        backoff_factor: float = 0.5,
        growth_interval: int = 2000,
        enabled: bool = True,
    ) -> None:
        _deprecated("GradScaler", "GradScaler('cuda', args...)")
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled)


def custom_fwd(fwd: Any = None, *, cast_inputs: Any = None) -> Any:
    """``ctxgrad.amp.custom_fwd(device_type="cuda")``, with torch's warning."""
    _deprecated("custom_fwd", "custom_fwd(args..., device_type='cuda')")
    return _amp.custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


def custom_bwd(bwd: Any = None) -> Any:
    """``ctxgrad.amp.custom_bwd(device_type="cuda")``, with torch's warning."""
    _deprecated("custom_bwd", "custom_bwd(args..., device_type='cuda')")
    return _amp.custom_bwd(bwd, device_type="cuda")

"""``ctxgrad.accelerator``: torch's device-agnostic accelerator questions, answered as on a
machine without one (ctxgrad computes on the CPU, which torch does not count as an accelerator)."""

from __future__ import annotations

from ctxgrad._device import device

__all__ = ["current_accelerator", "device_count", "is_available"]


def is_available() -> bool:
    """False: there is no accelerator."""
    return False


def device_count() -> int:
    """0: there is no accelerator."""
    return 0


def current_accelerator(check_available: bool = False) -> device | None:
    """None: there is no accelerator."""
    return None

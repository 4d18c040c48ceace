"""``ctxgrad.utils.hooks``: the handle a ``register_*_hook`` call returns, at torch's path
(``torch.utils.hooks.RemovableHandle``); ``handle.remove()`` unregisters the hook."""

from __future__ import annotations

from ctxgrad.autograd.hooks import RemovableHandle

__all__ = ["RemovableHandle"]

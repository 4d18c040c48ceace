"""What calling a Function's class, or an instance of it, does: torch's errors and warning.

Functions are used through their class (``Exp.apply(x)``).  torch warns when one is
instantiated, and refuses an instance called as a function (the legacy style of torch
before 0.4); :class:`LegacyCalls`, a base class of ``Function``, gives both.
"""

from __future__ import annotations

import warnings
from typing import Any

__all__ = ["LegacyCalls"]


class LegacyCalls:
    """``Function()`` warns (with arguments: raises) and ``Function()(x)`` raises, as in torch."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        cls = type(self)
        if args or kwargs:
            raise RuntimeError(
                f"{cls.__name__} should not be instantiated: Functions are used through their class. "
                f"Call {cls.__name__}.apply(...) with these arguments instead."
            )
        warnings.warn(
            f"{cls} should not be instantiated. Methods on autograd functions are all static, so you "
            "should invoke them on the class itself. Instantiating an autograd function will raise an "
            "error in a future version of PyTorch.",
            DeprecationWarning,
            stacklevel=2,
        )

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        raise RuntimeError(
            "Legacy autograd function with non-static forward method is deprecated. Please use "
            f"new-style autograd function with static forward method: call {type(self).__name__}.apply(...). "
            "(For instance-style forward(self, ...)/backward(self, ...) called as F()(x), as in MegEngine or "
            "torch before 0.4, subclass ctxgrad.compat.megengine.Function instead.)"
        )

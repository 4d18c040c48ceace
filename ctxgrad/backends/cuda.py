"""``ctxgrad.backends.cuda``: CUDA's switches, kept as torch keeps them, with no effect.

Training scripts set ``torch.backends.cuda.matmul.allow_tf32 = True``; here the flag is
kept (a bool, torch's default, torch's ``RuntimeError`` for anything else) and nothing
changes: ctxgrad computes in the dtype asked for, on the CPU.

>>> import ctxgrad
>>> ctxgrad.backends.cuda.is_built(), ctxgrad.backends.cuda.matmul.allow_tf32
(False, False)
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator
from typing import Any

__all__ = [
    "cudnn_sdp_enabled",
    "enable_cudnn_sdp",
    "enable_flash_sdp",
    "enable_math_sdp",
    "enable_mem_efficient_sdp",
    "flash_sdp_enabled",
    "is_built",
    "math_sdp_enabled",
    "matmul",
    "mem_efficient_sdp_enabled",
    "sdp_kernel",
]


def is_built() -> bool:
    """False: ctxgrad is not built with CUDA."""
    return False


# The scaled-dot-product-attention backends' switches: kept and reported as torch keeps them
# (all on), set by ``enable_*_sdp``, ``sdp_kernel`` and ``nn.attention.sdpa_kernel``; ctxgrad
# always computes attention one way (torch's "math" backend), whatever they say.
_SDP_ENABLED = {"flash": True, "mem_efficient": True, "math": True, "cudnn": True}


def flash_sdp_enabled() -> bool:
    """Whether the flash-attention switch is on (torch's default True; no effect here)."""
    return _SDP_ENABLED["flash"]


def mem_efficient_sdp_enabled() -> bool:
    """Whether the memory-efficient-attention switch is on (default True; no effect here)."""
    return _SDP_ENABLED["mem_efficient"]


def math_sdp_enabled() -> bool:
    """Whether the math-attention switch is on (default True)."""
    return _SDP_ENABLED["math"]


def cudnn_sdp_enabled() -> bool:
    """Whether the cuDNN-attention switch is on (default True; no effect here)."""
    return _SDP_ENABLED["cudnn"]


def enable_flash_sdp(enabled: bool) -> None:
    """Set the flash-attention switch."""
    _SDP_ENABLED["flash"] = bool(enabled)


def enable_mem_efficient_sdp(enabled: bool) -> None:
    """Set the memory-efficient-attention switch."""
    _SDP_ENABLED["mem_efficient"] = bool(enabled)


def enable_math_sdp(enabled: bool) -> None:
    """Set the math-attention switch."""
    _SDP_ENABLED["math"] = bool(enabled)


def enable_cudnn_sdp(enabled: bool) -> None:
    """Set the cuDNN-attention switch."""
    _SDP_ENABLED["cudnn"] = bool(enabled)


@contextlib.contextmanager
def _sdp_switches(**switches: bool) -> Iterator[None]:
    """Set the attention switches for a ``with`` block, then put the old ones back."""
    before = dict(_SDP_ENABLED)
    _SDP_ENABLED.update(switches)
    try:
        yield
    finally:
        _SDP_ENABLED.update(before)


def sdp_kernel(
    enable_flash: bool = True, enable_math: bool = True, enable_mem_efficient: bool = True, enable_cudnn: bool = True
) -> contextlib.AbstractContextManager[None]:
    """Set the attention switches for a ``with`` block; deprecated in torch, with its
    ``FutureWarning`` (``nn.attention.sdpa_kernel`` is the new spelling)."""
    warnings.warn(
        "`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this context manager will be removed. "
        "Please see `torch.nn.attention.sdpa_kernel()` for the new context manager, with updated signature.",
        FutureWarning,
        stacklevel=2,
    )
    return _sdp_switches(
        flash=bool(enable_flash),
        math=bool(enable_math),
        mem_efficient=bool(enable_mem_efficient),
        cudnn=bool(enable_cudnn),
    )


#: torch's names for the setter of each matmul flag, which its error message names.
_MATMUL_SETTERS = {
    "allow_tf32": "set_allow_tf32_cublas",
    "allow_fp16_reduced_precision_reduction": "set_allow_fp16_reduced_precision_reduction",
    "allow_bf16_reduced_precision_reduction": "set_allow_bf16_reduced_precision_reduction",
}


class _Matmul:
    """``matmul``'s flags: ``allow_tf32`` (False), and the reduced-precision reductions of
    float16 and bfloat16 (True), each a bool, as torch's ``cuBLASModule``."""

    def __init__(self) -> None:
        flags = {
            "allow_tf32": False,
            "allow_fp16_reduced_precision_reduction": True,
            "allow_bf16_reduced_precision_reduction": True,
        }
        object.__setattr__(self, "_flags", flags)

    def __getattr__(self, name: str) -> Any:
        flags: dict[str, bool] = object.__getattribute__(self, "_flags")
        if name in flags:
            return flags[name]
        raise AttributeError(f"Unknown attribute {name}")

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in _MATMUL_SETTERS:
            raise AttributeError(f"Unknown attribute {name}")
        if not isinstance(value, bool):
            raise RuntimeError(f"{_MATMUL_SETTERS[name]} expects a bool, but got {type(value).__name__}")
        self._flags[name] = value


matmul = _Matmul()

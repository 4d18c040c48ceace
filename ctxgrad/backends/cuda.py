"""``ctxgrad.backends.cuda``: CUDA's switches, kept as torch keeps them, with no effect.

Training scripts set ``torch.backends.cuda.matmul.allow_tf32 = True``; here the flag is
kept (a bool, torch's default, torch's ``RuntimeError`` for anything else) and nothing
changes: ctxgrad computes in the dtype asked for, on the CPU.

>>> import ctxgrad
>>> ctxgrad.backends.cuda.is_built(), ctxgrad.backends.cuda.matmul.allow_tf32
(False, False)
"""

from __future__ import annotations

from typing import Any

__all__ = ["flash_sdp_enabled", "is_built", "math_sdp_enabled", "matmul", "mem_efficient_sdp_enabled"]


def is_built() -> bool:
    """False: ctxgrad is not built with CUDA."""
    return False


def flash_sdp_enabled() -> bool:
    """True, torch's default (the switch has no effect here)."""
    return True


def mem_efficient_sdp_enabled() -> bool:
    """True, torch's default (the switch has no effect here)."""
    return True


def math_sdp_enabled() -> bool:
    """True, torch's default."""
    return True


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

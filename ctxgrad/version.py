"""``ctxgrad.version``: what ``torch.version`` says about a build; ctxgrad is built for the
CPU only, so every accelerator's version is None (``torch.version.cuda is None`` is how
ported code asks whether CUDA is there)."""

from __future__ import annotations

__all__ = ["__version__", "cuda", "debug", "hip", "rocm", "xpu"]

__version__ = "0.1.0"  # ctxgrad's own (ctxgrad.__version__)
debug = False
cuda: str | None = None
hip: str | None = None
rocm: str | None = None
xpu: str | None = None

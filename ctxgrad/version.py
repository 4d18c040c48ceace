"""``ctxgrad.version``: what ``torch.version`` says about a build; ctxgrad is built for the
CPU only, so every accelerator's version is None (``torch.version.cuda is None`` is how
ported code asks whether CUDA is there).  And ctxgrad's own question: does the compiled core
run (``compiled``), or the pure-Python one?"""

from __future__ import annotations

import importlib.util
import sys

__all__ = ["COMPILABLE", "__version__", "compiled", "compiled_modules", "cuda", "debug", "hip", "rocm", "xpu"]

__version__ = "0.1.0"  # ctxgrad's own (ctxgrad.__version__)
debug = False
cuda: str | None = None
hip: str | None = None
rocm: str | None = None
xpu: str | None = None

#: The modules the optional compiled build compiles, with Cython, from their ``.py`` files as they
#: are: ``python tools/build_compiled.py`` in a checkout.  A plain install runs them as Python.
COMPILABLE: tuple[str, ...] = (
    "ctxgrad._state",
    "ctxgrad._tensor_base",
    "ctxgrad._tensor",
    "ctxgrad._shortcut",
    "ctxgrad.autograd.function",
    "ctxgrad.autograd.engine",
    "ctxgrad.autograd.graph",
    "ctxgrad.autograd.grad_mode",
    "ctxgrad.autograd._validate",
    "ctxgrad.autograd._outputs",
    "ctxgrad.ops.arithmetic",
    "ctxgrad.ops._util",
    "ctxgrad.autograd.saved",
    "ctxgrad.autograd._readonly",
    "ctxgrad.autograd._arrayflags",
    "ctxgrad.autograd._views",
    "ctxgrad.autograd._grad",
    "ctxgrad.autograd.values",
    "ctxgrad.ops.linalg",
    "ctxgrad.ops.shape",
    "ctxgrad.ops.pointwise",
    "ctxgrad.ops.losses",
    "ctxgrad.ops.softmax",
)


def _runs_compiled(module: str) -> bool:
    """True when ``module`` is (or, imported, would be) a compiled extension, not its ``.py``."""
    loaded = sys.modules.get(module)
    origin = getattr(loaded, "__file__", None) if loaded is not None else None
    if origin is None:
        spec = importlib.util.find_spec(module)
        origin = spec.origin if spec is not None else None
    return origin is not None and not origin.endswith(".py")


#: The modules of :data:`COMPILABLE` that run compiled in this process (empty in a plain install).
compiled_modules: tuple[str, ...] = tuple(m for m in COMPILABLE if _runs_compiled(m))
#: True when the compiled core runs (``tools/build_compiled.py`` built it).
compiled: bool = bool(compiled_modules)

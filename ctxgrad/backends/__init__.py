"""``ctxgrad.backends``: torch's backend switches, so code that sets them ports unchanged.

ctxgrad computes with NumPy on the CPU; :mod:`~ctxgrad.backends.cudnn` keeps the flags that
training scripts set for reproducibility (``cudnn.deterministic = True``,
``cudnn.benchmark = False``), and :mod:`~ctxgrad.backends.mps` answers that there is no Apple
GPU.  Setting a flag changes nothing in how ctxgrad computes: its ops are deterministic.
"""

from __future__ import annotations

from ctxgrad.backends import cudnn, mps

__all__ = ["cudnn", "mps"]

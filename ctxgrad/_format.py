"""Torch-style text for tensors: ``tensor([0.1000, 2.0000], requires_grad=True)``.

Floats print with four decimals, or as ``1.`` when every value is a whole number, or in
scientific notation when the values span more than three orders of magnitude; all entries
share one width; rows wrap at 80 columns; tensors with more than 1000 elements show three
items at each edge of every dimension.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

_LINEWIDTH = 80
_THRESHOLD = 1000
_EDGEITEMS = 3
_PRECISION = 4


class _Formatter:
    def __init__(self, values: np.ndarray[Any, Any]) -> None:
        self.kind = values.dtype.kind
        self.int_mode = True
        self.sci_mode = False
        if self.kind == "b":
            self.max_width = max((len(str(bool(v))) for v in values.ravel()), default=1)
            return
        if self.kind in "iu":
            self.max_width = max((len(str(int(v))) for v in values.ravel()), default=1)
            return
        finite = values[np.isfinite(values)]
        nonzero = np.abs(finite[finite != 0]).astype(np.float64)
        strs: list[str]
        if nonzero.size == 0:
            strs = [self._fixed_int(float(v)) for v in values.ravel()]
            self.max_width = max((len(s) for s in strs), default=1)
            return
        lo, hi = float(nonzero.min()), float(nonzero.max())
        self.int_mode = bool(np.all(nonzero == np.ceil(nonzero)))
        if self.int_mode:
            self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8
        else:
            self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4
        strs = [self.format_plain(float(v)) for v in values.ravel()]
        self.max_width = max((len(s) for s in strs), default=1)

    @staticmethod
    def _fixed_int(v: float) -> str:
        if math.isnan(v) or math.isinf(v):
            return str(v).replace("inf", "inf")
        return f"{v:.0f}."

    def format_plain(self, v: float) -> str:
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        if self.sci_mode:
            return f"{v:.{_PRECISION}e}"
        if self.int_mode:
            return f"{v:.0f}."
        return f"{v:.{_PRECISION}f}"

    def format(self, v: Any) -> str:
        if self.kind == "b":
            s = str(bool(v))
        elif self.kind in "iu":
            s = str(int(v))
        else:
            s = self.format_plain(float(v))
        return s.rjust(self.max_width)


def _summarized(data: np.ndarray[Any, Any]) -> np.ndarray[Any, Any]:
    """The entries that are printed when a large tensor is summarised."""
    if data.ndim == 0:
        return data.reshape(1)
    if data.shape[0] > 2 * _EDGEITEMS:
        parts = [data[:_EDGEITEMS], data[-_EDGEITEMS:]]
    else:
        parts = [data]
    flat = [_summarized(p[i]).ravel() for p in parts for i in range(p.shape[0])]
    return np.concatenate(flat) if flat else data.ravel()


def _format_nested(data: np.ndarray[Any, Any], fmt: _Formatter, indent: int, summarize: bool) -> str:
    if data.ndim == 0:
        return fmt.format(data[()])
    if data.ndim == 1:
        n = data.shape[0]
        if summarize and n > 2 * _EDGEITEMS:
            items = [fmt.format(v) for v in data[:_EDGEITEMS]] + ["..."]
            items += [fmt.format(v) for v in data[-_EDGEITEMS:]]
        else:
            items = [fmt.format(v) for v in data]
        per_line = max(1, (_LINEWIDTH - indent) // (fmt.max_width + 2))
        lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    n = data.shape[0]
    if summarize and n > 2 * _EDGEITEMS:
        rows = [_format_nested(data[i], fmt, indent + 1, summarize) for i in range(_EDGEITEMS)]
        rows.append("...")
        rows += [_format_nested(data[i], fmt, indent + 1, summarize) for i in range(n - _EDGEITEMS, n)]
    else:
        rows = [_format_nested(data[i], fmt, indent + 1, summarize) for i in range(n)]
    sep = "," + "\n" * (data.ndim - 1) + " " * (indent + 1)
    return "[" + sep.join(rows) + "]"


def format_array(data: np.ndarray[Any, Any], indent: int) -> str:
    """The bracketed body of a tensor's repr, laid out as torch lays it out."""
    summarize = data.size > _THRESHOLD
    shown = _summarized(data) if summarize else data
    fmt = _Formatter(np.asarray(shown))
    return _format_nested(data, fmt, indent, summarize)

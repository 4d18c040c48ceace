"""Torch-style text for tensors: ``tensor([0.1000, 2.0000], requires_grad=True)``.

Floats print with four decimals, or as ``1.`` when every value is a whole number, or in
scientific notation when the values span more than three orders of magnitude; all entries
share one width; rows wrap at 80 columns; tensors with more than 1000 elements show three
items at each edge of every dimension.  A complex entry is its real part and its imaginary
part, each printed by the rule above for all the real (all the imaginary) parts:
``1.0000e+10+1.j``.
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
    """Decides how every entry of one tensor is printed, as torch's formatter does: the
    mode (whole numbers, fixed, scientific) and the width come from the nonzero finite
    values only, so nan, inf and 0 never widen a column."""

    def __init__(self, values: np.ndarray[Any, Any]) -> None:
        self.kind = values.dtype.kind
        self.int_mode = True
        self.sci_mode = False
        self.max_width = 1
        flat = values.ravel()
        if self.kind in "biu":
            self.max_width = max((len(self._plain_int(v)) for v in flat), default=1)
            return
        finite = flat[np.isfinite(flat)]
        nonzero = finite[finite != 0].astype(np.float64)
        if nonzero.size == 0:
            return
        magnitudes = np.abs(nonzero)
        lo, hi = float(magnitudes.min()), float(magnitudes.max())
        self.int_mode = bool(np.all(nonzero == np.ceil(nonzero)))
        if self.int_mode:
            self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8
            if not self.sci_mode:
                self.max_width = max(len(f"{v:.0f}") + 1 for v in nonzero.tolist())
        else:
            self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4
            if not self.sci_mode:
                self.max_width = max(len(f"{v:.{_PRECISION}f}") for v in nonzero.tolist())
        if self.sci_mode:
            self.max_width = max(len(f"{v:.{_PRECISION}e}") for v in nonzero.tolist())

    def _plain_int(self, v: Any) -> str:
        return str(bool(v)) if self.kind == "b" else str(int(v))

    def format(self, v: Any) -> str:
        if self.kind in "biu":
            text = self._plain_int(v)
        else:
            x = float(v)
            if self.sci_mode:
                text = f"{x:.{_PRECISION}e}"
            elif self.int_mode:
                text = f"{x:.0f}"
                if not (math.isinf(x) or math.isnan(x)):
                    text += "."
            else:
                text = f"{x:.{_PRECISION}f}"
        return text.rjust(self.max_width)


class _ComplexFormatter:
    """Torch's rule for complex entries: the real parts share one formatter, the imaginary
    parts another; an entry is ``real`` then the signed ``imag`` and ``j``."""

    def __init__(self, values: np.ndarray[Any, Any]) -> None:
        self.real = _Formatter(values.real)
        self.imag = _Formatter(values.imag)
        # The width of an entry, less the 2 (", ") the line layout adds: + sign and j.
        self.max_width = self.real.max_width + self.imag.max_width + 1

    def format(self, v: Any) -> str:
        real = self.real.format(v.real)
        imag = (self.imag.format(v.imag) + "j").lstrip()
        return real + imag if imag[0] in "+-" else real + "+" + imag


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


def _format_nested(
    data: np.ndarray[Any, Any], fmt: _Formatter | _ComplexFormatter, indent: int, summarize: bool
) -> str:
    if data.ndim == 0:
        return fmt.format(data[()])
    if data.ndim == 1:
        n = data.shape[0]
        if summarize and n > 2 * _EDGEITEMS:
            items = [fmt.format(v) for v in data[:_EDGEITEMS]] + [" ..."]
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
    shown = np.asarray(shown)
    fmt = _ComplexFormatter(shown) if shown.dtype.kind == "c" else _Formatter(shown)
    return _format_nested(data, fmt, indent, summarize)


def add_suffixes(text: str, suffixes: list[str], indent: int) -> str:
    """Append ``, dtype=...``-style suffixes, starting a new line where one would pass 80
    columns, as torch does."""
    parts = [text]
    last_line = len(text) - text.rfind("\n") + 1
    for suffix in suffixes:
        if last_line + len(suffix) + 2 > _LINEWIDTH:
            parts.append(",\n" + " " * indent + suffix)
            last_line = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line += len(suffix) + 2
    parts.append(")")
    return "".join(parts)

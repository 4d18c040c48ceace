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


class _PrintOptions:
    """What :func:`set_printoptions` sets (torch's ``PRINT_OPTS``): digits after the point,
    the element count above which a tensor is summarised, the items kept at each edge
    then, the line width, and scientific notation forced on (True), off (False) or chosen
    from the values (None)."""

    precision = 4
    threshold: float = 1000
    edgeitems = 3
    linewidth = 80
    sci_mode: bool | None = None


PRINT_OPTS = _PrintOptions()

#: torch's profiles: (precision, threshold, edgeitems, linewidth).
_PROFILES = {"default": (4, 1000, 3, 80), "short": (2, 1000, 2, 80), "full": (4, math.inf, 3, 80)}


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Set how tensors print, as torch's ``set_printoptions``: ``profile`` (``"default"``,
    ``"short"``, ``"full"``) sets the first four, then each option given overrides;
    ``sci_mode`` is set every call (None: chosen from the values, as by default).

    >>> import ctxgrad
    >>> ctxgrad.set_printoptions(precision=2)
    >>> ctxgrad.tensor([1.2345, 2.0])
    tensor([1.23, 2.00])
    >>> ctxgrad.set_printoptions(profile="default")
    """
    if profile is not None and profile in _PROFILES:
        PRINT_OPTS.precision, PRINT_OPTS.threshold, PRINT_OPTS.edgeitems, PRINT_OPTS.linewidth = _PROFILES[profile]
    if precision is not None:
        PRINT_OPTS.precision = precision
    if threshold is not None:
        PRINT_OPTS.threshold = threshold
    if edgeitems is not None:
        PRINT_OPTS.edgeitems = edgeitems
    if linewidth is not None:
        PRINT_OPTS.linewidth = linewidth
    PRINT_OPTS.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """The options :func:`set_printoptions` set, as a dict (torch's ``get_printoptions``)."""
    return {
        name: getattr(PRINT_OPTS, name) for name in ("precision", "threshold", "edgeitems", "linewidth", "sci_mode")
    }


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
        forced, precision = PRINT_OPTS.sci_mode, PRINT_OPTS.precision
        self.sci_mode = hi / lo > 1000.0 or hi > 1.0e8 or lo < 1.0e-4 if forced is None else forced
        if self.sci_mode:
            self.max_width = max(len(f"{v:.{precision}e}") for v in nonzero.tolist())
        elif self.int_mode:
            self.max_width = max(len(f"{v:.0f}") + 1 for v in nonzero.tolist())
        else:
            self.max_width = max(len(f"{v:.{precision}f}") for v in nonzero.tolist())

    def _plain_int(self, v: Any) -> str:
        return str(bool(v)) if self.kind == "b" else str(int(v))

    def format(self, v: Any) -> str:
        if self.kind in "biu":
            text = self._plain_int(v)
        else:
            x, precision = float(v), PRINT_OPTS.precision
            if self.sci_mode:
                text = f"{x:.{precision}e}"
            elif self.int_mode:
                text = f"{x:.0f}"
                if not (math.isinf(x) or math.isnan(x)):
                    text += "."
            else:
                text = f"{x:.{precision}f}"
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
    edge = PRINT_OPTS.edgeitems
    if data.ndim == 0:
        return data.reshape(1)
    if data.shape[0] > 2 * edge:
        parts = [data[:edge], data[-edge:]]
    else:
        parts = [data]
    flat = [_summarized(p[i]).ravel() for p in parts for i in range(p.shape[0])]
    return np.concatenate(flat) if flat else data.ravel()


def _format_nested(
    data: np.ndarray[Any, Any], fmt: _Formatter | _ComplexFormatter, indent: int, summarize: bool
) -> str:
    edge = PRINT_OPTS.edgeitems
    if data.ndim == 0:
        return fmt.format(data[()])
    if data.ndim == 1:
        n = data.shape[0]
        if summarize and n > 2 * edge:
            items = [fmt.format(v) for v in data[:edge]] + [" ..."]
            items += [fmt.format(v) for v in data[-edge:]]
        else:
            items = [fmt.format(v) for v in data]
        per_line = max(1, (PRINT_OPTS.linewidth - indent) // (fmt.max_width + 2))
        lines = [", ".join(items[i : i + per_line]) for i in range(0, len(items), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    n = data.shape[0]
    if summarize and n > 2 * edge:
        rows = [_format_nested(data[i], fmt, indent + 1, summarize) for i in range(edge)]
        rows.append("...")
        rows += [_format_nested(data[i], fmt, indent + 1, summarize) for i in range(n - edge, n)]
    else:
        rows = [_format_nested(data[i], fmt, indent + 1, summarize) for i in range(n)]
    sep = "," + "\n" * (data.ndim - 1) + " " * (indent + 1)
    return "[" + sep.join(rows) + "]"


def format_array(data: np.ndarray[Any, Any], indent: int) -> str:
    """The bracketed body of a tensor's repr, laid out as torch lays it out."""
    summarize = data.size > PRINT_OPTS.threshold
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
        if last_line + len(suffix) + 2 > PRINT_OPTS.linewidth:
            parts.append(",\n" + " " * indent + suffix)
            last_line = indent + len(suffix)
        else:
            parts.append(", " + suffix)
            last_line += len(suffix) + 2
    parts.append(")")
    return "".join(parts)

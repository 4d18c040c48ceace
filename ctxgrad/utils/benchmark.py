"""``ctxgrad.utils.benchmark``: torch's ``Timer`` for Python statements, a small real timer.

``Timer(stmt, setup, globals=...)`` compiles ``stmt`` once, then :meth:`Timer.timeit` runs it
``number`` times and :meth:`Timer.blocked_autorange` runs blocks of it until ``min_run_time``
seconds have passed; both return a :class:`Measurement` whose ``times`` are seconds per run, as
torch's.  torch's C++ statements, instruction counts (``collect_callgrind``) and thread
settings are not here: ctxgrad's ops run in NumPy on the calling thread.

>>> from ctxgrad.utils.benchmark import Timer
>>> m = Timer("x + 1", globals={"x": 1}).timeit(100)
>>> m.number_per_run, len(m.times)
(100, 1)
"""

from __future__ import annotations

import statistics
import timeit as _timeit
from collections.abc import Callable
from typing import Any

__all__ = ["Measurement", "Timer"]


class Measurement:
    """The result of a :class:`Timer`: ``raw_times`` are the seconds each block of
    ``number_per_run`` runs took, ``times`` the seconds per run of each block."""

    def __init__(self, number_per_run: int, raw_times: list[float], stmt: str, label: str | None = None,
                 sub_label: str | None = None, description: str | None = None) -> None:  # fmt: skip
        self.number_per_run = number_per_run
        self.raw_times = raw_times
        self.stmt = stmt
        self.label, self.sub_label, self.description = label, sub_label, description

    @property
    def times(self) -> list[float]:
        """Seconds per run, one per block."""
        return [t / self.number_per_run for t in self.raw_times]

    @property
    def mean(self) -> float:
        """The mean of :attr:`times`."""
        return statistics.fmean(self.times)

    @property
    def median(self) -> float:
        """The median of :attr:`times`."""
        return statistics.median(self.times)

    @property
    def iqr(self) -> float:
        """The interquartile range of :attr:`times` (0 for a single block)."""
        if len(self.times) < 2:
            return 0.0
        quartiles = statistics.quantiles(self.times, n=4)
        return quartiles[2] - quartiles[0]

    @property
    def title(self) -> str:
        """The label and sub-label (or the statement), as torch's title."""
        if self.label is not None:
            return self.label + (f": {self.sub_label}" if self.sub_label else "")
        return self.stmt

    def __repr__(self) -> str:
        runs = len(self.raw_times)
        lines = [f"<{type(self).__module__}.{type(self).__name__} object at {hex(id(self))}>", self.title]
        if self.description:
            lines.append(self.description)
        lines.append(f"  {_format_seconds(self.median)}")
        lines.append(f"  {runs} measurement{'s' if runs > 1 else ''}, {self.number_per_run} runs , 1 thread")
        return "\n".join(lines)


def _format_seconds(seconds: float) -> str:
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6)):
        if seconds >= scale:
            return f"{seconds / scale:.2f} {unit}"
    return f"{seconds / 1e-9:.2f} ns"


class Timer:
    """Time a Python statement, as ``torch.utils.benchmark.Timer`` (Python statements only)."""

    def __init__(
        self,
        stmt: str = "pass",
        setup: str = "pass",
        global_setup: str = "",
        timer: Callable[[], float] = _timeit.default_timer,
        globals: dict[str, Any] | None = None,
        label: str | None = None,
        sub_label: str | None = None,
        description: str | None = None,
        env: str | None = None,
        num_threads: int = 1,
        language: str = "python",
    ) -> None:
        if str(language).lower().rsplit(".", 1)[-1] != "python":
            raise ValueError(f"Timer: language={language!r}: ctxgrad times Python statements only")
        if global_setup:
            raise ValueError("Timer: global_setup is only supported for C++ statements")
        self.stmt, self.label, self.sub_label, self.description = stmt, label, sub_label, description
        self._timer = _timeit.Timer(stmt=stmt, setup=setup, timer=timer, globals=dict(globals or {}))

    def _measure(self, number: int, raw_times: list[float]) -> Measurement:
        return Measurement(number, raw_times, self.stmt, self.label, self.sub_label, self.description)

    def timeit(self, number: int = 1000000) -> Measurement:
        """Run the statement ``number`` times (after the setup), as one block, after a
        warm-up of ``max(number // 100, 2)`` runs, as torch's."""
        self._timer.timeit(max(number // 100, 2))
        return self._measure(number, [self._timer.timeit(number)])

    def blocked_autorange(
        self, callback: Callable[[int, float], None] | None = None, min_run_time: float = 0.2
    ) -> Measurement:
        """Run blocks of the statement until ``min_run_time`` seconds have been spent; each
        block has as many runs as take about a tenth of ``min_run_time`` (at least one)."""
        once = self._timer.timeit(1)
        number = max(1, int(min_run_time / 10 / max(once, 1e-9)))
        raw_times: list[float] = []
        while not raw_times or sum(raw_times) < min_run_time:
            raw_times.append(self._timer.timeit(number))
            if callback is not None:
                callback(number, raw_times[-1])
        return self._measure(number, raw_times)

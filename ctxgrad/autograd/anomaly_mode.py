"""Anomaly detection: find the node whose backward produced NaN, and where it was made.

With anomaly mode on during forward, ``Function.apply`` stores the Python stack of the
call in ``grad_fn.metadata["traceback_"]``.  With it on during backward, the engine checks
every gradient a node returns for NaN and raises ``RuntimeError: Function 'XBackward'
returned nan values in its 0th output.``; on any error inside a node it warns with the
stored forward stack and attaches that stack to the exception (``exc.forward_traceback``
and, on Python 3.11+, a note shown in the traceback).

Unlike torch, where this flag is process-wide, the flag is per thread, like grad mode
(see ``docs/differences.md``).
"""

from __future__ import annotations

import warnings
from types import TracebackType

from ctxgrad._state import _state
from ctxgrad.autograd.grad_mode import _DecoratorContextManager


def is_anomaly_enabled() -> bool:
    """True when anomaly detection is on in this thread."""
    return _state.anomaly


def is_anomaly_check_nan_enabled() -> bool:
    """True when anomaly detection also checks backward results for NaN."""
    return _state.anomaly_check_nan


def _warn_enabled() -> None:
    warnings.warn(
        "Anomaly Detection has been enabled. This mode will increase the runtime and "
        "should only be enabled for debugging.",
        UserWarning,
        stacklevel=3,
    )


class detect_anomaly(_DecoratorContextManager):
    """Context manager and decorator that turns anomaly detection on for its block.

    >>> import warnings, ctxgrad
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     with ctxgrad.autograd.detect_anomaly():
    ...         ctxgrad.autograd.is_anomaly_enabled()
    True
    """

    def __init__(self, check_nan: bool = True) -> None:
        self.check_nan = check_nan
        self._prev = False
        self._prev_nan = True

    def clone(self) -> detect_anomaly:
        return self.__class__(self.check_nan)

    def __enter__(self) -> None:
        _warn_enabled()
        self._prev = _state.anomaly
        self._prev_nan = _state.anomaly_check_nan
        _state.anomaly = True
        _state.anomaly_check_nan = self.check_nan

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        _state.anomaly = self._prev
        _state.anomaly_check_nan = self._prev_nan


class set_detect_anomaly:
    """Set anomaly detection at once; as a context manager, restore it on exit."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self._prev = _state.anomaly
        self._prev_nan = _state.anomaly_check_nan
        if mode and not self._prev:
            _warn_enabled()
        _state.anomaly = bool(mode)
        _state.anomaly_check_nan = check_nan

    def __enter__(self) -> None:
        pass

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        _state.anomaly = self._prev
        _state.anomaly_check_nan = self._prev_nan

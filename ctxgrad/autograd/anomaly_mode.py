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

import os
import traceback
import warnings
from types import TracebackType
from typing import TYPE_CHECKING, Any

import numpy as np

from ctxgrad._state import _state
from ctxgrad.autograd._decorator import _DecoratorContextManager

# The frames at the top of a recorded stack that are ``apply`` recording the call, not the call:
# dropped by file rather than counted, since a compiled core (tools/build_compiled.py) has none.
_RECORDING_FILES = frozenset(
    {os.path.abspath(__file__), os.path.join(os.path.dirname(os.path.abspath(__file__)), "function.py")}
)

if TYPE_CHECKING:
    from ctxgrad._tensor import Tensor
    from ctxgrad.autograd.graph import Node


def is_anomaly_enabled() -> bool:
    """True when anomaly detection is on in this thread."""
    return _state.modes.anomaly


def is_anomaly_check_nan_enabled() -> bool:
    """True when anomaly detection also checks backward results for NaN."""
    return _state.modes.anomaly_check_nan


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
        self._prev = _state.modes.anomaly
        self._prev_nan = _state.modes.anomaly_check_nan
        _state.modes.anomaly = True
        _state.modes.anomaly_check_nan = self.check_nan
        choose_runner()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        _state.modes.anomaly = self._prev
        _state.modes.anomaly_check_nan = self._prev_nan
        choose_runner()


class set_detect_anomaly:
    """Set anomaly detection at once; as a context manager, restore it on exit."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self._prev = _state.modes.anomaly
        self._prev_nan = _state.modes.anomaly_check_nan
        if mode and not self._prev:
            _warn_enabled()
        _state.modes.anomaly = bool(mode)
        _state.modes.anomaly_check_nan = check_nan
        choose_runner()

    def __enter__(self) -> None:
        pass

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        _state.modes.anomaly = self._prev
        _state.modes.anomaly_check_nan = self._prev_nan
        choose_runner()


def choose_runner() -> None:
    """Set what the engine runs each node through in this thread, from the modes that are
    on: an open trace (which runs :func:`run_checked` itself in anomaly mode), else anomaly
    mode's :func:`run_checked`, else nothing (``node._run`` directly)."""
    tracer = _state.modes.tracer
    if tracer is not None:
        _state.modes.node_runner = tracer._run_node
    elif _state.modes.anomaly:
        _state.modes.node_runner = run_checked
    else:
        _state.modes.node_runner = None


def record_forward(node: Node) -> None:
    """In anomaly mode, keep on a new node the stack of the call that made it and, when it is
    made by another node's backward (``create_graph``), that node: its "parent"."""
    md = node.metadata
    stack = traceback.extract_stack()
    while stack and os.path.abspath(stack[-1].filename) in _RECORDING_FILES:
        stack.pop()
    md["traceback_"] = traceback.format_list(stack)
    parent = _state.modes.anomaly_parent
    if parent is not None:
        md["parent_"] = parent


def run_checked(node: Node, buf: list[Tensor | None]) -> list[Tensor | None]:
    """Run one node in anomaly mode: check its results for NaN and report where it was made."""
    outer = _state.modes.anomaly_parent
    _state.modes.anomaly_parent = node  # (nodes its backward records remember it)
    try:
        grads = node._run(buf)
        if _state.modes.anomaly_check_nan:
            for i, g in enumerate(grads):
                if g is not None and g._data.dtype.kind in "fc" and np.isnan(g._data).any():
                    raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")
        return grads
    except Exception as exc:
        _report_anomaly(node, exc)
        raise
    finally:
        _state.modes.anomaly_parent = outer


def _report_anomaly(node: Node, exc: Exception) -> None:
    md = node._metadata
    stack = md.get("traceback_") if md else None
    if stack:
        text = "".join(stack)
        message = f"Error detected in {node.name()}. Traceback of forward call that caused the error:\n{text}"
    else:
        text = ""
        message = (
            f"Error detected in {node.name()}. No forward pass information available. Enable detect "
            "anomaly during forward pass for more information."
        )
    warnings.warn(message, UserWarning, stacklevel=4)
    parent = md.get("parent_") if stack and md else None
    while parent is not None:  # the backward calls that built this node, innermost first
        pmd = parent._metadata or {}
        pstack = pmd.get("traceback_")
        if pstack:
            warnings.warn(
                f"\n\nPrevious calculation was induced by {parent.name()}. Traceback of forward call that induced "
                f"the previous calculation:\n{''.join(pstack)}",
                UserWarning,
                stacklevel=4,
            )
        else:
            warnings.warn(
                f"Error detected in {parent.name()}. No forward pass information available. Enable detect "
                "anomaly during forward pass for more information.",
                UserWarning,
                stacklevel=4,
            )
        parent = pmd.get("parent_")
    exc.forward_traceback = text  # type: ignore[attr-defined]
    add_note: Any = getattr(exc, "add_note", None)
    if add_note is not None:
        add_note(message)

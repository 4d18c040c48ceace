"""``@replayed_whole``: a frontend that ``ctxgrad.trace`` records as one step, which a replay
calls again.

A trace records the Functions that the traced function applies, and a replay applies them
again to its new tensors.  That is enough for a frontend that only normalises its arguments
and applies a Function.  It is not enough for a frontend that does work of its own in Python
before it applies its Functions.  Such a frontend reads the values of an integer or bool tensor
into NumPy (class labels, an index or a mask, counts, pooling indices) or draws random numbers.
What that work makes reaches the recorded Functions as a constant, so a replay would use the
first batch's labels, or the same dropout mask every time.

Those frontends are decorated with :func:`replayed_whole`.  While a trace records, a call to
one of them is one step of the trace, and its tensor arguments are the step's arguments.  A
replay calls the frontend again on the replay's tensors: it reads their values and draws from
the generator again, and what it applies runs as it does outside a trace, with its own graph
nodes.  Outside a trace the decorator costs one attribute read per call.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

from ctxgrad._state import _state

__all__ = ["replayed_whole"]

_F = TypeVar("_F", bound=Callable[..., Any])


def replayed_whole(frontend: _F) -> _F:
    """Make a trace record each call of ``frontend`` as one step that a replay calls again (see
    the module docstring): for frontends that read tensor values or draw random numbers in Python."""

    @functools.wraps(frontend)
    def call(*args: Any, **kwargs: Any) -> Any:
        recorder = _state.modes.recorder
        if recorder is None:
            return frontend(*args, **kwargs)
        return recorder.call(frontend, args, kwargs)

    return call  # type: ignore[return-value]

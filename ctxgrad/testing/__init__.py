"""Tools for testing differentiable ops: :class:`OpTestCase`, a base class that turns an op,
its inputs and a NumPy reference into forward, backward, double-backward, forward-mode and
requires-grad tests (pytest and unittest collect them).

``example`` (from :mod:`ctxgrad.checks`) attaches example inputs to a Function class; an
``OpTestCase`` whose ``function`` carries them needs no ``inputs`` method.

Needs only NumPy (not torch): the oracles are central differences, float64 and your reference.
"""

from __future__ import annotations

from ctxgrad.checks import example
from ctxgrad.testing.op_test_case import OpTestCase

__all__ = ["OpTestCase", "example"]

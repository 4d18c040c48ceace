"""Tools for testing: :func:`assert_close` (torch's ``torch.testing.assert_close``), and for
differentiable ops :class:`OpTestCase`, a base class that turns an op,
its inputs and a NumPy reference into forward, backward, double-backward, forward-mode and
requires-grad tests (pytest and unittest collect them).

``example`` (from :mod:`ctxgrad.checks`) attaches example inputs to a Function class; an
``OpTestCase`` whose ``function`` carries them needs no ``inputs`` method.

Needs only NumPy (not torch): the oracles are central differences, float64 and your reference.
"""

from __future__ import annotations

from ctxgrad.checks import example
from ctxgrad.testing._comparison import assert_allclose, assert_close
from ctxgrad.testing.op_test_case import OpTestCase

__all__ = ["OpTestCase", "assert_allclose", "assert_close", "example"]

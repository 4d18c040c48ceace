"""A 0-d float32 input keeps its dtype through the ops that mix it with Python numbers.

NumPy 1 promotes a 0-d array with a Python number by value (``float32 0-d * 0.5`` is float64);
torch, and NumPy 2, keep float32.  These ops compute with Python numbers inside ``forward``, so
on the floor NumPy they widened their result; ``ops._util.keep_dtype`` keeps it.  The first test
needs no torch, so it guards the floor NumPy; the second runs the same programs on torch.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import ctxgrad

#: Each op as a program of a library module ``m`` (ctxgrad or torch) and a 0-d tensor ``x``.
OPS: dict[str, Callable[[Any, Any], Any]] = {
    "sigmoid": lambda m, x: m.sigmoid(x),
    "rsqrt": lambda m, x: m.rsqrt(x),
    "logit": lambda m, x: m.logit(x),
    "sinc": lambda m, x: m.sinc(x),
    "elu": lambda m, x: m.nn.functional.elu(x),
    "selu": lambda m, x: m.nn.functional.selu(x),
    "gelu": lambda m, x: m.nn.functional.gelu(x),
    "gelu-tanh": lambda m, x: m.nn.functional.gelu(x, approximate="tanh"),
    "leaky_relu": lambda m, x: m.nn.functional.leaky_relu(x),
    "silu": lambda m, x: m.nn.functional.silu(x),
    "softplus": lambda m, x: m.nn.functional.softplus(x),
    "softplus-beta": lambda m, x: m.nn.functional.softplus(x, beta=2.0),
    "logsigmoid": lambda m, x: m.nn.functional.logsigmoid(x),
    "hardshrink": lambda m, x: m.nn.functional.hardshrink(x),
    "softshrink": lambda m, x: m.nn.functional.softshrink(x),
    "where-number": lambda m, x: m.where(x > 0, x, 0.0),
    "dropout": lambda m, x: m.nn.functional.dropout(x, 0.5),
}


@pytest.mark.parametrize("name", OPS)
def test_a_zero_d_float32_input_keeps_its_dtype(name: str) -> None:
    x = ctxgrad.tensor(0.3, requires_grad=True)
    y = OPS[name](ctxgrad, x)
    assert y.dtype == ctxgrad.float32, f"{name}: {y.dtype}"
    y.backward()
    assert x.grad is not None and x.grad.dtype == ctxgrad.float32


@pytest.mark.parametrize("name", [n for n in OPS if n != "dropout"])
def test_the_zero_d_results_are_torchs(name: str) -> None:
    torch = pytest.importorskip("torch")
    ours, theirs = OPS[name](ctxgrad, ctxgrad.tensor(0.3)), OPS[name](torch, torch.tensor(0.3))
    assert str(ours.dtype) == str(theirs.dtype).replace("torch.", "ctxgrad.")
    assert abs(ours.item() - theirs.item()) < 1e-6

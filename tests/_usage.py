"""The kit of the usage tests (tests/test_usage_*.py): one piece of code run on ctxgrad and on
torch, and what it returns compared.

A case is ``fn(m)`` with ``m`` the library (``ctxgrad`` or ``torch``), written once, as a
program written against torch would be.  :func:`assert_same` compares what the two runs return,
recursively: a tensor by shape, dtype, ``requires_grad`` and values; a dtype, device or Size by
its torch spelling; tuples, lists and dicts item by item; numbers, strings and bools by value.
:func:`grads` runs a function and the backward pass of a weighted sum of its output, so a case
compares the gradients too.  :func:`error` turns an exception into its type and message (the
library's name replaced), to compare what bad input raises.

Each case carries ``pytest.mark.torch_names(...)``: the names of torch-usage.tsv it checks
(tools/torch_usage_coverage.py counts them).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

import ctxgrad

torch_names = pytest.mark.torch_names


def _name(value: Any) -> str:
    return str(value).removeprefix("torch.").removeprefix("ctxgrad.")


def values(t: Any) -> np.ndarray:
    """A ctxgrad or torch tensor's values as an array (complex and bool kept)."""
    return np.asarray(t.detach().cpu().numpy() if not isinstance(t, ctxgrad.Tensor) else t.detach().numpy())


def assert_same(ours: Any, theirs: Any, rtol: float = 1e-6, atol: float = 1e-7, where: str = "result") -> None:
    """What ctxgrad returned equals what torch returned (see the module docstring)."""
    import torch

    if isinstance(theirs, torch.Tensor):
        assert isinstance(ours, ctxgrad.Tensor), f"{where}: {type(ours).__name__}, torch gives a Tensor"
        assert tuple(ours.shape) == tuple(theirs.shape), f"{where}: shape {tuple(ours.shape)} != {tuple(theirs.shape)}"
        assert _name(ours.dtype) == _name(theirs.dtype), f"{where}: dtype {ours.dtype} != {theirs.dtype}"
        assert ours.requires_grad == theirs.requires_grad, f"{where}: requires_grad"
        a, b = values(ours), values(theirs)
        if a.dtype.kind in "fc":
            np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True, err_msg=where)
        else:
            np.testing.assert_array_equal(a, b, err_msg=where)
    elif isinstance(theirs, (torch.dtype, torch.device)):
        assert _name(ours) == _name(theirs), f"{where}: {ours} != {theirs}"
    elif isinstance(theirs, torch.Size):
        assert type(ours).__name__ == "Size" and tuple(ours) == tuple(theirs), f"{where}: {ours!r} != {theirs!r}"
    elif isinstance(theirs, dict):
        assert isinstance(ours, dict) and list(ours) == list(theirs), f"{where}: keys {list(ours)} != {list(theirs)}"
        for key in theirs:
            assert_same(ours[key], theirs[key], rtol, atol, f"{where}[{key!r}]")
    elif isinstance(theirs, (tuple, list)):
        assert isinstance(ours, (tuple, list)), f"{where}: {type(ours).__name__} != {type(theirs).__name__}"
        assert len(ours) == len(theirs), f"{where}: {len(ours)} items != {len(theirs)}"
        for i, (o, t) in enumerate(zip(ours, theirs)):
            assert_same(o, t, rtol, atol, f"{where}[{i}]")
    elif isinstance(theirs, float) and not isinstance(ours, bool):
        assert isinstance(ours, (float, int)), f"{where}: {type(ours).__name__}, torch gives a float"
        assert math.isclose(ours, theirs, rel_tol=rtol, abs_tol=atol) or (math.isnan(ours) and math.isnan(theirs)), (
            f"{where}: {ours} != {theirs}"
        )
    elif isinstance(theirs, np.ndarray):
        assert isinstance(ours, np.ndarray), f"{where}: {type(ours).__name__} != ndarray"
        assert ours.dtype == theirs.dtype, f"{where}: {ours.dtype} != {theirs.dtype}"
        np.testing.assert_allclose(ours, theirs, rtol=rtol, atol=atol, err_msg=where)
    else:
        assert type(ours) is type(theirs), f"{where}: {type(ours).__name__} != {type(theirs).__name__}"
        assert ours == theirs, f"{where}: {ours!r} != {theirs!r}"


def check(fn: Callable[[Any], Any], torch: Any, rtol: float = 1e-6, atol: float = 1e-7) -> None:
    """``fn(ctxgrad)`` returns what ``fn(torch)`` returns."""
    assert_same(fn(ctxgrad), fn(torch), rtol, atol)


def grads(m: Any, f: Callable[..., Any], *inputs: Sequence[Any] | float, dtype: str = "float64") -> tuple[Any, ...]:
    """``(out, grad_0, grad_1, ...)`` of ``(f(*xs) * w).sum()``, ``xs`` made from ``inputs``
    (requiring grad) and ``w`` fixed weights of the output's shape."""
    xs = [m.tensor(v, dtype=getattr(m, dtype), requires_grad=True) for v in inputs]
    out = f(*xs)
    w = np.linspace(-1.0, 1.5, max(1, int(np.prod(tuple(out.shape))))).reshape(tuple(out.shape))
    (out * m.tensor(w, dtype=out.dtype)).sum().backward()
    return (out, *(x.grad for x in xs))


def error(fn: Callable[[], Any], lib: Any) -> tuple[str, str]:
    """``fn()``'s exception: its type name and message with the library's name as ``LIB``."""
    try:
        fn()
    except Exception as exc:
        return type(exc).__name__, str(exc).replace(lib.__name__, "LIB")
    raise AssertionError("no exception raised")


def random_like_torch(fn: Callable[[Any], Any], torch: Any) -> None:
    """A random draw: the same shape, dtype and requires_grad as torch's, and the same values
    again after the same ``manual_seed`` (each library its own stream)."""
    results = []
    for m in (ctxgrad, torch):
        m.manual_seed(3)
        first = fn(m)
        m.manual_seed(3)
        again = fn(m)
        np.testing.assert_array_equal(values(first), values(again))
        results.append(first)
    ours, theirs = results
    assert tuple(ours.shape) == tuple(theirs.shape)
    assert _name(ours.dtype) == _name(theirs.dtype)
    assert ours.requires_grad == theirs.requires_grad

"""Writing in place through a view that changes the dtype's kind (``view_as_complex`` of a
real tensor, ``view_as_real`` of a complex one) reaches the base's gradient whole: both the
real and the imaginary parts, as in torch (from torch's test_autograd/test_complex.py
``test_view_func_for_complex_views``).  Each case runs the same code on ctxgrad and torch."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ctxgrad

REAL = np.random.default_rng(0).standard_normal((3, 2, 2))
COMPLEX = REAL[..., 0] + 1j * REAL[..., 1]


def _complex_view_scaled(lib: Any, b: Any, w: Any) -> Any:
    c = lib.view_as_complex(b)
    c.mul_(2 - 1j)
    return c


def _complex_view_row_written(lib: Any, b: Any, w: Any) -> Any:
    c = lib.view_as_complex(b).reshape(-1)
    c[1:3] = lib.view_as_complex(w[0])
    return c


def _real_view_of_complex_scaled(lib: Any, b: Any, w: Any) -> Any:
    r = lib.view_as_real(b)
    r.mul_(3)
    return r


def _real_parts_only_written(lib: Any, b: Any, w: Any) -> Any:
    r = lib.view_as_real(b)
    r[..., 0].mul_(w[:, 0, 0].reshape(3, 1))
    return r


CASES: dict[str, tuple[bool, Callable[[Any, Any, Any], Any]]] = {
    "complex_view_scaled": (False, _complex_view_scaled),
    "complex_view_row_written": (False, _complex_view_row_written),
    "real_view_of_complex_scaled": (True, _real_view_of_complex_scaled),
    "real_parts_only_written": (True, _real_parts_only_written),
}


def _grads(lib: Any, case: str) -> list[np.ndarray[Any, Any]]:
    complex_base, write = CASES[case]
    x = lib.tensor(COMPLEX if complex_base else REAL, requires_grad=True)
    w = lib.tensor(REAL * 0.5, requires_grad=True)
    b = x.clone()
    out = write(lib, b, w)
    (out.abs().sum() + b.abs().pow(2).sum()).backward()
    return [x.grad.detach().numpy(), w.grad.detach().numpy() if w.grad is not None else np.zeros(REAL.shape)]


@pytest.mark.parametrize("case", list(CASES))
def test_in_place_through_a_kind_changing_view_matches_torch(torch: Any, case: str) -> None:
    for ours, theirs in zip(_grads(ctxgrad, case), _grads(torch, case)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)


def _tangents(lib: Any, complex_base: bool) -> list[np.ndarray[Any, Any]]:
    fw = lib.autograd.forward_ad
    rng = np.random.default_rng(1)
    primal, tangent = rng.standard_normal((3, 2)), rng.standard_normal((3, 2))
    with fw.dual_level():
        if complex_base:
            as_complex = [p[:, 0] + 1j * p[:, 1] for p in (primal, tangent)]
            x = fw.make_dual(lib.tensor(as_complex[0]), lib.tensor(as_complex[1]))
            b = x.clone()
            view = lib.view_as_real(b)
            view[:, 1].mul_(3)
        else:
            x = fw.make_dual(lib.tensor(primal), lib.tensor(tangent))
            b = x.clone()
            view = lib.view_as_complex(b)
            view.mul_(2j)
        return [fw.unpack_dual(b * 1.5).tangent.numpy(), (fw.unpack_dual(view).tangent * 1).numpy()]


@pytest.mark.parametrize("complex_base", [False, True])
def test_tangents_through_a_kind_changing_view_match_torch(torch: Any, complex_base: bool) -> None:
    for ours, theirs in zip(_tangents(ctxgrad, complex_base), _tangents(torch, complex_base)):
        np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)

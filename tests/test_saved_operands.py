"""Built-in ops save only the operands their needed gradients read (as torch's nodes do, per
``needs_input_grad``), so an in-place change of an operand no needed gradient reads leaves
backward working; tested against torch, same code on both."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ctxgrad

torch = pytest.importorskip("torch")

# (name, f(lib, x, const)): x is an intermediate that requires grad, const a tensor that does not.
CASES: list[tuple[str, Callable[[Any, Any, Any], Any]]] = [
    ("mul", lambda lib, x, c: x * c),
    ("rmul", lambda lib, x, c: c * x),
    ("mul-number", lambda lib, x, c: x * 3.0),
    ("div", lambda lib, x, c: x / (c.abs() + 1)),
    ("remainder", lambda lib, x, c: lib.remainder(x, c.abs() + 1)),
    ("matmul", lambda lib, x, c: x @ c.mT),
    ("matmul-vec", lambda lib, x, c: x[0] @ c[0]),
    ("matmul-mat-vec", lambda lib, x, c: x @ c[0]),
    ("rmatmul", lambda lib, x, c: c @ x.mT),
    ("mm", lambda lib, x, c: lib.mm(x, c.mT)),
    ("bmm", lambda lib, x, c: lib.bmm(x[None], c.mT[None])),
    ("mv", lambda lib, x, c: lib.mv(c, x[0])),
    ("dot", lambda lib, x, c: lib.dot(x[0], c[0])),
    ("vdot", lambda lib, x, c: lib.vdot(c[1], x[1])),
    ("einsum", lambda lib, x, c: lib.einsum("ij,kj->ik", x, c)),
    ("einsum-3", lambda lib, x, c: lib.einsum("ij,kj,k->i", x, c, c[:, 0])),
    ("linear", lambda lib, x, c: lib.nn.functional.linear(x, c, c[0, :2])),
    ("addmm", lambda lib, x, c: lib.addmm(c[0, :2], x, c.mT)),
    ("addcmul", lambda lib, x, c: lib.addcmul(c, x, c, value=0.5)),
    ("addcdiv", lambda lib, x, c: lib.addcdiv(c, x, c.abs() + 1, value=0.5)),
    ("lerp", lambda lib, x, c: lib.lerp(x, c, c.sigmoid())),
    ("tensordot", lambda lib, x, c: lib.tensordot(x, c, ([1], [1]))),
]


def _run(lib: Any, f: Callable[[Any, Any, Any], Any]) -> tuple[Any, Any]:
    rng = np.random.default_rng(0)
    leaf = lib.tensor(rng.standard_normal((2, 3)), requires_grad=True)
    const = lib.tensor(rng.standard_normal((2, 3)))
    x = leaf * 1.0
    y = f(lib, x, const)
    x.add_(1.0)  # x's own gradient never reads x: nothing saved it
    y.sum().backward()
    return leaf.grad.numpy(), y.detach().numpy()


@pytest.mark.parametrize("name,f", CASES, ids=[c[0] for c in CASES])
def test_an_operand_no_needed_gradient_reads_may_change_in_place(name: str, f: Any) -> None:
    grad, out = _run(ctxgrad, f)
    want_grad, want_out = _run(torch, f)
    np.testing.assert_allclose(out, want_out, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(grad, want_grad, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("exponent", [2, 0.5, 0, -1])
def test_a_power_with_a_number_exponent_does_not_save_its_result(exponent: float) -> None:
    def run(lib: Any) -> Any:
        leaf = lib.tensor([0.5, 2.0, 3.0], requires_grad=True)
        y = (leaf * 1.0) ** exponent
        y.mul_(2.0)  # torch's PowBackward0 keeps self and the exponent only
        y.sum().backward()
        return y.detach().numpy(), leaf.grad.numpy()

    (out, grad), (want_out, want_grad) = run(ctxgrad), run(torch)
    np.testing.assert_allclose(out, want_out, rtol=1e-12)
    np.testing.assert_allclose(grad, want_grad, rtol=1e-12)


@pytest.mark.parametrize("lib", [ctxgrad, torch], ids=["ctxgrad", "torch"])
def test_the_operand_a_needed_gradient_reads_still_raises(lib: Any) -> None:
    leaf = lib.ones(3, requires_grad=True)
    const = lib.ones(3)
    y = leaf * const  # leaf's gradient reads const
    const.add_(1.0)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_recurrence_through_rows_of_one_buffer_with_a_frozen_weight() -> None:
    def run(lib: Any) -> Any:
        rng = np.random.default_rng(1)
        w = lib.tensor(rng.standard_normal((3, 3)))  # frozen
        x0 = lib.tensor(rng.standard_normal(3), requires_grad=True)
        h = lib.zeros(3, 3, dtype=lib.float64)
        h[2] = x0 * 2.0
        h[0] = h[2] @ w  # h[2] is not saved: the write into h leaves backward working
        h[1] = (h[0] @ w).tanh()
        h.sum().backward()
        return x0.grad.numpy()

    np.testing.assert_allclose(run(ctxgrad), run(torch), rtol=1e-12)


@pytest.mark.parametrize(
    "name,make",
    [
        ("mul", lambda lib, x, c: x * c),
        ("div", lambda lib, x, c: x / c),
        ("rdiv", lambda lib, x, c: c / x),
        ("mm", lambda lib, x, c: lib.mm(x, c)),
    ],
)
def test_saved_fields_are_none_where_torch_saves_nothing(name: str, make: Any) -> None:
    fields = {"mul": ("self", "other"), "div": ("self", "other"), "rdiv": ("self", "other"), "mm": ("self", "mat2")}
    for lib in (ctxgrad, torch):
        x = lib.ones(2, 2, requires_grad=True) * 1.0
        c = lib.full((2, 2), 2.0)
        node = make(lib, x, c).grad_fn
        got = [getattr(node, f"_saved_{f}") is None for f in fields[name]]
        ref = make(torch, torch.ones(2, 2, requires_grad=True) * 1.0, torch.full((2, 2), 2.0)).grad_fn
        want = [getattr(ref, f"_saved_{f}") is None for f in fields[name]]
        assert got == want, (name, got, want)


@pytest.mark.parametrize("name", [c[0] for c in CASES])
def test_forward_mode_still_reads_every_operand(name: str) -> None:
    f = dict(CASES)[name]

    def run(lib: Any, fwad: Any) -> Any:
        rng = np.random.default_rng(2)
        x = lib.tensor(rng.standard_normal((2, 3)))
        c = lib.tensor(rng.standard_normal((2, 3)))
        with fwad.dual_level():
            dual = fwad.make_dual(x, lib.ones(2, 3, dtype=lib.float64))
            return fwad.unpack_dual(f(lib, dual, c)).tangent.numpy()

    import torch.autograd.forward_ad as torch_fwad

    import ctxgrad.autograd.forward_ad as fwad

    np.testing.assert_allclose(run(ctxgrad, fwad), run(torch, torch_fwad), rtol=1e-12, atol=1e-12)

"""Calls torch takes that ctxgrad used to refuse or crash on: ``bincount`` of a narrow
integer dtype at its maximum, in-place integer arithmetic that wraps, ``transpose`` of a 0-d
tensor, several Ellipses in one index, and ``kl_divergence(Gumbel, Gumbel)``; each against
torch, same code on both."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import ctxgrad

torch = pytest.importorskip("torch")


def _same(ours: Any, theirs: Any) -> None:
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16"])
@pytest.mark.parametrize("weighted", [False, True])
def test_bincount_of_a_narrow_integer_dtype_at_its_maximum(dtype: str, weighted: bool) -> None:
    top = int(np.iinfo(dtype).max)

    def run(lib: Any) -> Any:
        x = lib.tensor([top, 0, 1, top], dtype=getattr(lib, dtype))
        return lib.bincount(x, weights=lib.tensor([0.5, 1.0, 2.0, 0.25]) if weighted else None)

    ours, theirs = run(ctxgrad), run(torch)
    _same(ours, theirs)
    assert ours[top].item() == (0.75 if weighted else 2)


IN_PLACE = [
    ("u8 += i8", lambda lib, a, b: a.__iadd__(b), "uint8", "int8"),
    ("u8.add_(i64)", lambda lib, a, b: a.add_(b), "uint8", "int64"),
    ("u8.sub_(i16)", lambda lib, a, b: a.sub_(b), "uint8", "int16"),
    ("u8 *= i8", lambda lib, a, b: a.__imul__(b), "uint8", "int8"),
    ("i8.add_(u8)", lambda lib, a, b: a.add_(b), "int8", "uint8"),
    ("i16.mul_(i64)", lambda lib, a, b: a.mul_(b), "int16", "int64"),
    ("u8.add_(i64, alpha)", lambda lib, a, b: a.add_(b, alpha=3), "uint8", "int64"),
]


@pytest.mark.parametrize("name,op,left,right", IN_PLACE, ids=[c[0] for c in IN_PLACE])
def test_in_place_integer_arithmetic_wraps_into_the_written_dtype(name: str, op: Any, left: str, right: str) -> None:
    def run(lib: Any) -> Any:
        a = lib.tensor([120, 3, 100, 0], dtype=getattr(lib, left))
        b = lib.tensor([10, 5, 100, 1] if right == "uint8" else [10, -5, 100, -1], dtype=getattr(lib, right))
        out = op(lib, a, b)
        assert out is a
        return a

    _same(run(ctxgrad), run(torch))


def test_an_integer_result_written_with_out_wraps_as_in_torch() -> None:
    def run(lib: Any) -> Any:
        out = lib.empty(2, dtype=lib.uint8)
        lib.add(lib.tensor([250, 3], dtype=lib.uint8), lib.tensor([10, -5], dtype=lib.int8), out=out)
        return out

    _same(run(ctxgrad), run(torch))


@pytest.mark.parametrize(
    "source,target", [("float32", "uint8"), ("int64", "bool"), ("complex64", "float32"), ("float64", "int64")]
)
def test_in_place_results_of_a_lower_category_are_still_refused(source: str, target: str) -> None:
    for lib in (ctxgrad, torch):
        a = lib.zeros(2, dtype=getattr(lib, target))
        b = lib.ones(2, dtype=getattr(lib, source))
        with pytest.raises(RuntimeError, match="can't be cast to the desired output type"):
            a.add_(b)


@pytest.mark.parametrize("dims", [(0, 0), (0, -1), (-1, -1), (-1, 0)])
@pytest.mark.parametrize("method", ["transpose", "swapaxes", "swapdims"])
def test_transpose_of_a_zero_dim_tensor(dims: tuple[int, int], method: str) -> None:
    def run(lib: Any) -> Any:
        x = lib.tensor(2.0, requires_grad=True)
        y = getattr(x, method)(*dims)
        (y * 3).backward()
        return y, x.grad, type(y.grad_fn).__name__

    (y, g, node), (ty, tg, tnode) = run(ctxgrad), run(torch)
    _same(y, ty)
    _same(g, tg)
    assert node == tnode == "TransposeBackward0"


@pytest.mark.parametrize("dims", [(0, 1), (1, 0), (-2, 0)])
def test_transpose_of_a_zero_dim_tensor_past_its_dims_raises_as_torch(dims: tuple[int, int]) -> None:
    messages = []
    for lib in (ctxgrad, torch):
        with pytest.raises(IndexError) as info:
            lib.tensor(1.0).transpose(*dims)
        messages.append(str(info.value))
    assert messages[0] == messages[1]
    assert "Dimension out of range (expected to be in range of [-1, 0]" in messages[0]


ELLIPSES = [
    "x[..., ...]",
    "x[(Ellipsis, Ellipsis)]",
    "x[..., ..., ...]",
    "x[..., None, ...]",
    "x[None, ..., ...]",
    "x[..., 0, ...]",
    "x[0, ..., ...]",
    "x[0, ..., ..., 1]",
    "x[..., 1:, ...]",
    "x[..., lib.tensor([1, 0]), ...]",
    "x[..., x > 2, ...]",
]


@pytest.mark.parametrize("expr", ELLIPSES)
def test_several_ellipses_in_an_index_read_as_torch_reads_them(expr: str) -> None:
    def run(lib: Any) -> Any:
        leaf = lib.arange(6.0).reshape(2, 3).requires_grad_()
        x = leaf * 1.0
        y = eval(expr, {"x": x, "lib": lib})
        (y * lib.arange(1.0, y.numel() + 1).reshape(y.shape)).sum().backward()
        return y, leaf.grad

    (y, g), (ty, tg) = run(ctxgrad), run(torch)
    _same(y, ty)
    _same(g, tg)


@pytest.mark.parametrize("expr", ["x[..., 1:, ...]", "x[1, ..., ...]", "x[..., ...]"])
def test_several_ellipses_in_an_index_written_to_as_torch(expr: str) -> None:
    def run(lib: Any) -> Any:
        x = lib.arange(6.0).reshape(2, 3)
        exec(f"{expr} = 9.0", {"x": x})
        return x

    _same(run(ctxgrad), run(torch))


@pytest.mark.parametrize("expr", ["x[..., ..., 0]", "x[..., ..., None]", "x[..., ..., 1:]"])
def test_several_ellipses_that_leave_an_item_past_the_last_dimension_raise_index_error(expr: str) -> None:
    for lib in (ctxgrad, torch):
        with pytest.raises(IndexError):
            eval(expr, {"x": lib.arange(6.0).reshape(2, 3)})


def test_kl_divergence_of_two_gumbels() -> None:
    def run(lib: Any) -> Any:
        loc_p = lib.tensor([0.0, 1.0, -2.0], dtype=lib.float64, requires_grad=True)
        scale_p = lib.tensor([1.0, 2.0, 0.3], dtype=lib.float64, requires_grad=True)
        loc_q = lib.tensor([0.5, -1.0, -2.0], dtype=lib.float64, requires_grad=True)
        scale_q = lib.tensor([2.0, 0.5, 0.3], dtype=lib.float64, requires_grad=True)
        dist = lib.distributions
        kl = dist.kl_divergence(dist.Gumbel(loc_p, scale_p), dist.Gumbel(loc_q, scale_q))
        kl.sum().backward()
        return kl, [t.grad for t in (loc_p, scale_p, loc_q, scale_q)]

    (kl, grads), (want, want_grads) = run(ctxgrad), run(torch)
    _same(kl, want)
    assert abs(kl[2].item()) < 1e-12  # the same distribution
    for g, w in zip(grads, want_grads):
        _same(g, w)

"""``forward_ad.make_dual``'s checks and the tangent it keeps, against torch's: the primal's
dtype is checked before the tangent's; a tangent laid out otherwise than its primal (other
strides, another storage offset or size) is copied into memory laid out as the primal's, so
that a change of the unpacked tangent leaves the given one alone; a tangent laid out as the
primal is kept as it is.  Each program runs on both libraries."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import ctxgrad

torch = pytest.importorskip("torch")


def _outcome(program: Callable[[Any], Any], lib: Any) -> Any:
    try:
        return program(lib)
    except Exception as exc:  # (the error is the result compared)
        # (dtypes print with their library's name: docs/differences.md, names in messages)
        return ("raises", type(exc).__name__, str(exc).replace("ctxgrad.", "torch."))


def _same(program: Callable[[Any], Any]) -> Any:
    got, want = _outcome(program, ctxgrad), _outcome(program, torch)
    assert got == want
    return want


def _unpacked(lib: Any, primal: Any, tangent: Any) -> Any:
    """The unpacked tangent's values, strides, storage offset, whether it is the tangent
    given, and the given tangent's values after the unpacked one was doubled in place."""
    fw = lib.autograd.forward_ad
    with fw.dual_level():
        dual = fw.make_dual(primal, tangent)
        got = fw.unpack_dual(dual).tangent
        facts = (got.tolist(), got.stride(), got.storage_offset(), got is tangent, str(got.dtype).split(".")[1])
        got.mul_(2)
        return (*facts, tangent.tolist())


DTYPES = {
    "integral primal, float tangent": ("int64", "float32"),
    "integral primal and tangent": ("int64", "int64"),
    "bool primal": ("bool", "bool"),
    "float primal, integral tangent": ("float32", "int32"),
    "float primal, double tangent": ("float32", "float64"),
    "complex primal, float tangent": ("complex64", "float32"),
    "float primal, complex tangent": ("float32", "complex128"),
}


@pytest.mark.parametrize("name", sorted(DTYPES))
def test_dtypes_of_the_primal_and_the_tangent(name: str) -> None:
    primal_dtype, tangent_dtype = DTYPES[name]

    def program(lib: Any) -> Any:
        primal = lib.tensor([1, 0, 1]).to(getattr(lib, primal_dtype))
        tangent = lib.tensor([2, 1, 0]).to(getattr(lib, tangent_dtype))
        return _unpacked(lib, primal, tangent)

    outcome = _same(program)
    if "integral" in name or "bool" in name:
        which = "primal" if primal_dtype in ("int64", "bool") else "tangent"
        assert outcome[:2] == ("raises", "ValueError")
        assert outcome[2].startswith(f"Expected {which} to be floating point or complex, but got: torch.")


LAYOUTS = {
    # (primal, tangent): each from a function of the library
    "the same layout": (lambda lib: lib.ones(2, 3), lambda lib: lib.arange(6.0).reshape(2, 3)),
    "a tangent sliced from a bigger tensor": (
        lambda lib: lib.ones(2, 3),
        lambda lib: lib.arange(12.0).reshape(3, 4)[:2, :3],
    ),
    "a transposed primal": (lambda lib: lib.ones(3, 2).t(), lambda lib: lib.arange(6.0).reshape(2, 3)),
    "a transposed tangent": (lambda lib: lib.ones(2, 3), lambda lib: lib.arange(6.0).reshape(3, 2).t()),
    "a primal with an offset in a bigger storage": (
        lambda lib: lib.zeros(10)[2:5],
        lambda lib: lib.arange(3.0),
    ),
    "a primal with steps": (lambda lib: lib.zeros(8)[::2], lambda lib: lib.arange(4.0)),
    "an expanded tangent": (lambda lib: lib.zeros(3), lambda lib: lib.ones(1).expand(3)),
    "a primal and a tangent of the same bigger storage layout": (
        lambda lib: lib.zeros(10)[2:5],
        lambda lib: lib.arange(10.0)[2:5],
    ),
    "an expanded primal": (lambda lib: lib.zeros(1).expand(3), lambda lib: lib.arange(3.0)),
}


@pytest.mark.parametrize("name", sorted(LAYOUTS))
def test_a_tangent_is_laid_out_as_its_primal(name: str) -> None:
    make_primal, make_tangent = LAYOUTS[name]
    outcome = _same(lambda lib: _unpacked(lib, make_primal(lib), make_tangent(lib)))
    if name == "an expanded primal":
        assert outcome[:2] == ("raises", "RuntimeError")


def test_views_of_a_dual_with_a_copied_tangent() -> None:
    def program(lib: Any) -> Any:
        fw = lib.autograd.forward_ad
        primal = lib.arange(12.0).reshape(3, 4)[1:, ::2]
        tangent = lib.tensor([[1.0, 2.0], [3.0, 4.0]])
        with fw.dual_level():
            dual = fw.make_dual(primal, tangent)
            pieces = (dual[1], dual.t(), dual.reshape(4), (dual * dual).sum(0))
            return [(p.tolist(), fw.unpack_dual(p).tangent.tolist()) for p in pieces]

    assert _same(program)[3] == ([80.0, 136.0], [56.0, 104.0])


def test_making_a_dual_outside_a_level_and_twice_at_one_level() -> None:
    def outside(lib: Any) -> Any:
        return lib.autograd.forward_ad.make_dual(lib.ones(2), lib.ones(2))

    def twice(lib: Any) -> Any:
        fw = lib.autograd.forward_ad
        with fw.dual_level():
            fw.make_dual(fw.make_dual(lib.ones(2), lib.ones(2)), lib.ones(2))

    assert _same(outside) == (
        "raises",
        "RuntimeError",
        "Trying to create a dual Tensor for forward AD but no level exists, make sure to enter_dual_level() first.",
    )
    assert _same(twice)[:2] == ("raises", "RuntimeError")


def test_shapes_must_agree() -> None:
    def program(lib: Any) -> Any:
        return _unpacked(lib, lib.ones(2, 3), lib.ones(3))

    assert _same(program) == (
        "raises",
        "RuntimeError",
        "Trying to set a forward gradient that has a different size than that of the original Tensor, this is "
        "not supported. Tensor is of size [2, 3] while the given forward gradient is of size [3].",
    )


def test_an_empty_tensor_of_any_strides_may_be_changed_in_place() -> None:
    def program(lib: Any) -> Any:
        empty = lib.zeros(3, 0).t()
        return empty.mul_(2).tolist(), empty.add_(empty).shape == (0, 3)

    assert _same(program) == ([], True)


def test_a_conjugated_or_negated_primal_takes_its_tangent_as_given() -> None:
    def program(lib: Any) -> Any:
        fw = lib.autograd.forward_ad
        values = lib.tensor([[1 + 2j, 3 - 1j], [0.5j, 2]], dtype=lib.complex128)
        tangent = lib.tensor([[1 + 1j, 2], [3, 4j]], dtype=lib.complex128)
        with fw.dual_level():
            conjugated = fw.make_dual(values.conj(), tangent)
            negated = fw.make_dual(values.conj().imag, tangent.imag)
            pieces = (conjugated[1:], conjugated.conj_physical(), conjugated.conj() * 2, negated[1:], negated.neg())
            return [fw.unpack_dual(p).tangent.tolist() for p in pieces]

    assert _same(program)[0] == [[3 + 0j, 4j]]


def test_a_tangent_copied_into_a_bigger_storage_is_found_by_as_strided() -> None:
    def program(lib: Any) -> Any:
        fw = lib.autograd.forward_ad
        primal = lib.arange(5.0)[:4]
        tangent = lib.arange(4.0) * 10
        with fw.dual_level():
            dual = fw.make_dual(primal, tangent)
            fw.unpack_dual(dual).tangent.mul_(2)
            return tangent.tolist(), fw.unpack_dual(dual.as_strided((2,), (2,), 1)).tangent.tolist()

    assert _same(program) == ([0.0, 10.0, 20.0, 30.0], [20.0, 60.0])


def test_forward_mode_transforms_under_vmap() -> None:
    """A batched primal with an unbatched tangent (and the reverse) is made dual as it is."""

    def program(lib: Any) -> Any:
        func = lib.func
        x = lib.arange(6.0).reshape(2, 3)
        along_ones = func.vmap(lambda a: func.jvp(lib.sin, (a,), (lib.ones(3),))[1])(x)
        batched_tangents = func.vmap(lambda t: func.jvp(lib.sin, (x[0],), (t,))[1])(x)
        jacobians = func.vmap(func.jacfwd(lib.sin))(x.t())
        return [_rounded(t.tolist()) for t in (along_ones, batched_tangents, jacobians)]

    _same(program)


def _rounded(values: Any) -> Any:
    if isinstance(values, list):
        return [_rounded(v) for v in values]
    return round(values, 6)

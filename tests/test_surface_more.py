"""The last names of the torch-surface measure (tools/torch_surface.py) and the porting gaps
found before: each against torch, run the same way on both."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import pytest

import ctxgrad

torch = pytest.importorskip("torch")


def raised(fn: Callable[[], Any]) -> tuple[str, str]:
    """The exception ``fn`` raises, as (type name, message); torch's names read as ctxgrad's."""
    try:
        fn()
    except Exception as exc:
        return type(exc).__name__, str(exc).replace("torch.", "ctxgrad.")
    raise AssertionError("nothing was raised")


# --------------------------------------------------------------------------- strides
_LAYOUTS: list[Callable[[Any], Any]] = [
    lambda m: m.zeros(2, 3),
    lambda m: m.zeros(2, 3).t(),
    lambda m: m.zeros(2, 3).expand(4, 2, 3),
    lambda m: m.zeros(4, 5)[1:, ::2],
    lambda m: m.zeros(3, 4, 5)[:, 1].t(),
    lambda m: m.zeros(()),
    lambda m: m.zeros(6)[2:],
]


@pytest.mark.parametrize("make", _LAYOUTS)
def test_stride_storage_offset_and_dim_order_match_torch(make: Callable[[Any], Any]) -> None:
    ours, theirs = make(ctxgrad), make(torch)
    assert ours.stride() == theirs.stride()
    assert ours.storage_offset() == theirs.storage_offset()
    assert ours.dim_order() == theirs.dim_order()
    for d in range(-max(ours.dim(), 1), max(ours.dim(), 1)):
        if theirs.dim():
            assert ours.stride(d) == theirs.stride(d)
        else:
            assert raised(lambda d=d: ours.stride(d)) == raised(lambda d=d: theirs.stride(d))


@pytest.mark.parametrize("shape", [(2, 3, 4, 5), (1, 3, 1, 2), (2, 1, 3, 1), (3, 3, 3, 3), (2, 2, 1)])
def test_dim_order_of_every_permutation_is_torchs(shape: tuple[int, ...]) -> None:
    for perm in itertools.permutations(range(len(shape))):
        ours, theirs = ctxgrad.zeros(*shape).permute(*perm), torch.zeros(*shape).permute(*perm)
        assert ours.dim_order() == theirs.dim_order(), perm
        assert ours[..., ::2].dim_order() == theirs[..., ::2].dim_order(), perm


def test_stride_and_dim_order_refuse_as_torch() -> None:
    for dim in (2, -3):
        assert raised(lambda d=dim: ctxgrad.zeros(2, 3).stride(d)) == raised(lambda d=dim: torch.zeros(2, 3).stride(d))
    assert raised(lambda: ctxgrad.zeros(2).stride("a"))[0] == "TypeError"
    assert raised(lambda: ctxgrad.zeros(2, 1).dim_order(ambiguity_check=True)) == raised(
        lambda: torch.zeros(2, 1).dim_order(ambiguity_check=True)
    )


# --------------------------------------------------------------------------- Tensor(2, 3)
def test_the_tensor_constructor_takes_sizes_as_torchs_legacy_one() -> None:
    for args in [(2, 3), (3,), (ctxgrad.Size([2, 4]),), ()]:
        targs = tuple(torch.Size(a) if isinstance(a, ctxgrad.Size) else a for a in args)
        ours, theirs = ctxgrad.Tensor(*args), torch.Tensor(*targs)
        assert tuple(ours.shape) == tuple(theirs.shape) and ours.dtype == ctxgrad.float32
    assert raised(lambda: ctxgrad.Tensor(2, "a")) == raised(lambda: torch.Tensor(2, "a"))


def test_writing_into_an_expanded_tensor_is_torchs() -> None:
    for index in [0, (0, 0), slice(0, 1), (slice(None), 0), Ellipsis]:
        ours, theirs = ctxgrad.zeros(3).expand(2, 3), torch.zeros(3).expand(2, 3)

        def put(t: Any, index: Any = index) -> None:
            t[index] = 1.0

        try:
            put(theirs)
        except RuntimeError:
            assert raised(lambda t=ours: put(t)) == raised(lambda: put(torch.zeros(3).expand(2, 3)))
        else:
            put(ours)
            assert ours.tolist() == theirs.tolist()


# --------------------------------------------------------------------------- Generator
def test_a_generator_draws_its_own_reproducible_stream() -> None:
    g = ctxgrad.Generator()
    assert g.initial_seed() == torch.Generator().initial_seed()
    assert g.manual_seed(7) is g and g.initial_seed() == 7 and g.device == ctxgrad.device("cpu")
    state = g.get_state()
    ctxgrad.manual_seed(0)
    default_before = ctxgrad.get_rng_state()
    draws = [
        ctxgrad.rand(3, generator=g),
        ctxgrad.randn(2, generator=g),
        ctxgrad.randint(0, 10, (4,), generator=g),
        ctxgrad.randperm(5, generator=g),
        ctxgrad.normal(0.0, 1.0, size=(2,), generator=g),
        ctxgrad.bernoulli(ctxgrad.full((3,), 0.5), generator=g),
        ctxgrad.multinomial(ctxgrad.ones(4), 2, generator=g),
        ctxgrad.zeros(3).uniform_(generator=g),
        ctxgrad.nn.init.normal_(ctxgrad.empty(3), generator=g),
    ]
    assert ctxgrad.equal(ctxgrad.get_rng_state(), default_before)  # the default generator did not move
    assert g.set_state(state) is g
    again = [
        ctxgrad.rand(3, generator=g),
        ctxgrad.randn(2, generator=g),
        ctxgrad.randint(0, 10, (4,), generator=g),
        ctxgrad.randperm(5, generator=g),
        ctxgrad.normal(0.0, 1.0, size=(2,), generator=g),
        ctxgrad.bernoulli(ctxgrad.full((3,), 0.5), generator=g),
        ctxgrad.multinomial(ctxgrad.ones(4), 2, generator=g),
        ctxgrad.zeros(3).uniform_(generator=g),
        ctxgrad.nn.init.normal_(ctxgrad.empty(3), generator=g),
    ]
    assert all(ctxgrad.equal(a, b) for a, b in zip(draws, again))
    s = g.seed()
    assert g.initial_seed() == s and 0 <= s < 2**64


def test_generator_misuse_raises_as_torch() -> None:
    g, tg = ctxgrad.Generator(), torch.Generator()
    assert raised(lambda: g.manual_seed(1.5)) == raised(lambda: tg.manual_seed(1.5))
    assert raised(lambda: g.set_state(ctxgrad.zeros(3))) == raised(lambda: tg.set_state(torch.zeros(3)))
    assert raised(lambda: ctxgrad.rand(2, generator=3))[0] == raised(lambda: torch.rand(2, generator=3))[0]
    with pytest.raises(AssertionError, match="CPU only"):
        ctxgrad.Generator(device="cuda")

"""The factories take every keyword torch's take (``layout=``, ``out=``, ``generator=``,
``pin_memory=``, ``requires_grad=``), and do with each what torch does, run side by side with
torch on the same code."""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ctxgrad

torch = pytest.importorskip("torch")

LIBS = (ctxgrad, torch)

FACTORIES = (
    "arange",
    "empty",
    "empty_like",
    "empty_permuted",
    "empty_strided",
    "eye",
    "full",
    "full_like",
    "linspace",
    "logspace",
    "ones",
    "ones_like",
    "rand",
    "rand_like",
    "randint",
    "randint_like",
    "randn",
    "randn_like",
    "randperm",
    "range",
    "zeros",
    "zeros_like",
)
NEW_METHODS = ("new_empty", "new_full", "new_ones", "new_tensor", "new_zeros")


def _torch_keywords(fn: Any, name: str) -> set[str]:
    """The keywords of the signature lines of torch's docstring for ``name``."""
    keywords: set[str] = set()
    for line in (fn.__doc__ or "").splitlines():
        if line.startswith(name + "("):
            keywords |= set(re.findall(r"(\w+)=", line))
    return keywords


def _ours(fn: Any) -> set[str]:
    import inspect

    return set(inspect.signature(fn).parameters)


@pytest.mark.parametrize("name", FACTORIES)
def test_a_factory_takes_every_keyword_torchs_takes(name: str) -> None:
    theirs = _torch_keywords(getattr(torch, name), name)
    assert theirs, f"no signature line found in torch.{name}'s docstring"
    assert theirs - _ours(getattr(ctxgrad, name)) == set()


@pytest.mark.parametrize("name", NEW_METHODS)
def test_a_new_method_takes_every_keyword_torchs_takes(name: str) -> None:
    theirs = _torch_keywords(getattr(torch.Tensor, name), name)
    assert theirs
    assert theirs - _ours(getattr(ctxgrad.Tensor, name)) == set()


# ------------------------------------------------------------------------------------ layout=
CALLS_WITH_LAYOUT: dict[str, Callable[[Any, Any], Any]] = {
    "zeros": lambda lib, lay: lib.zeros(2, 3, layout=lay),
    "ones": lambda lib, lay: lib.ones(2, layout=lay),
    "full": lambda lib, lay: lib.full((2,), 1.5, layout=lay),
    "arange": lambda lib, lay: lib.arange(4, layout=lay),
    "linspace": lambda lib, lay: lib.linspace(0, 1, 5, layout=lay),
    "logspace": lambda lib, lay: lib.logspace(0, 2, 3, layout=lay),
    "eye": lambda lib, lay: lib.eye(3, layout=lay),
    "zeros_like": lambda lib, lay: lib.zeros_like(lib.ones(2, 2), layout=lay),
    "ones_like": lambda lib, lay: lib.ones_like(lib.zeros(3), layout=lay),
    "full_like": lambda lib, lay: lib.full_like(lib.zeros(3), 7.0, layout=lay),
    "empty_like": lambda lib, lay: lib.empty_like(lib.zeros(3), layout=lay).shape,
    "empty": lambda lib, lay: lib.empty(2, 3, layout=lay).shape,
    "empty_strided": lambda lib, lay: lib.empty_strided((2, 3), (3, 1), layout=lay).stride(),
    "empty_permuted": lambda lib, lay: lib.empty_permuted((2, 3), (1, 0), layout=lay).stride(),
    "rand": lambda lib, lay: lib.rand(2, layout=lay).shape,
    "randn": lambda lib, lay: lib.randn(2, layout=lay).shape,
    "randint": lambda lib, lay: lib.randint(0, 4, (3,), layout=lay).dtype,
    "randperm": lambda lib, lay: sorted(lib.randperm(4, layout=lay).tolist()),
    "rand_like": lambda lib, lay: lib.rand_like(lib.zeros(2), layout=lay).shape,
    "randn_like": lambda lib, lay: lib.randn_like(lib.zeros(2), layout=lay).shape,
    "randint_like": lambda lib, lay: lib.randint_like(lib.zeros(2), 3, layout=lay).dtype,
    "new_zeros": lambda lib, lay: lib.ones(1).new_zeros(2, layout=lay),
    "new_ones": lambda lib, lay: lib.ones(1).new_ones(2, layout=lay),
    "new_empty": lambda lib, lay: lib.ones(1).new_empty(2, layout=lay).shape,
    "new_full": lambda lib, lay: lib.ones(1).new_full((2,), 4.0, layout=lay),
}


def _plain(value: Any) -> Any:
    """A result made comparable across the two libraries."""
    if isinstance(value, (ctxgrad.Tensor, torch.Tensor)):
        return (str(value.dtype).split(".")[-1], tuple(value.shape), value.detach().numpy().tolist())
    if isinstance(value, (ctxgrad.dtype, torch.dtype)):
        return str(value).split(".")[-1]
    return tuple(value) if isinstance(value, (tuple, list)) or type(value).__name__ in ("Size",) else value


@pytest.mark.parametrize("name", sorted(CALLS_WITH_LAYOUT))
def test_layout_strided_is_taken_and_changes_nothing_as_in_torch(name: str) -> None:
    call = CALLS_WITH_LAYOUT[name]
    got = [_plain(call(lib, lib.strided)) for lib in LIBS]
    assert got[0] == got[1]
    assert _plain(call(ctxgrad, None)) == got[0]  # (None: the default)


@pytest.mark.parametrize("name", ["zeros", "arange", "zeros_like", "rand_like", "new_zeros", "empty_strided"])
def test_a_layout_that_is_not_one_is_torchs_type_error(name: str) -> None:
    call = CALLS_WITH_LAYOUT[name]
    with pytest.raises(TypeError):
        call(torch, "strided")  # (torch's words differ where the function has overloads)
    with pytest.raises(TypeError) as caught:
        call(ctxgrad, "strided")
    assert str(caught.value) == f"{name}(): argument 'layout' must be ctxgrad.layout, not str"


def test_a_layout_object_other_than_strided_is_refused() -> None:
    with pytest.raises(RuntimeError, match=r"zeros\(\): ctxgrad has only the strided layout, not ctxgrad.sparse_coo"):
        ctxgrad.zeros(2, layout=ctxgrad.layout("sparse_coo"))


# ------------------------------------------------------------------------------------ out=
CALLS_WITH_OUT: dict[str, Callable[[Any, Any], Any]] = {
    "zeros": lambda lib, out: lib.zeros(2, 3, out=out),
    "ones": lambda lib, out: lib.ones(4, out=out),
    "full": lambda lib, out: lib.full((3,), 2.5, out=out),
    "arange": lambda lib, out: lib.arange(5, out=out),
    "linspace": lambda lib, out: lib.linspace(0, 1, 5, out=out),
    "logspace": lambda lib, out: lib.logspace(0, 2, 3, out=out),
    "eye": lambda lib, out: lib.eye(2, 3, out=out),
    "range": lambda lib, out: lib.range(0, 3, out=out),
}


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
@pytest.mark.parametrize("name", sorted(CALLS_WITH_OUT))
def test_out_is_written_resized_and_returned_as_in_torch(name: str, dtype: str) -> None:
    got = []
    for lib in LIBS:
        out = lib.zeros(2, dtype=getattr(lib, dtype))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # (range is deprecated, in both)
            made = CALLS_WITH_OUT[name](lib, out)
        assert made is out
        got.append(_plain(out))
    assert got[0] == got[1]


@pytest.mark.parametrize("name", sorted(CALLS_WITH_OUT))
def test_out_that_requires_grad_is_refused_as_torch(name: str) -> None:
    errors = []
    for lib in LIBS:
        out = lib.zeros(2, requires_grad=True)
        with pytest.raises(RuntimeError) as caught, warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            CALLS_WITH_OUT[name](lib, out)
        errors.append(str(caught.value))
    assert errors[0] == errors[1]
    assert errors[0] == (
        f"aten::{name}(): functions with out=... arguments don't support automatic differentiation, "
        "but one of the arguments requires grad."
    )


@pytest.mark.parametrize(
    ("name", "call"),
    [
        ("rand", lambda lib, out: lib.rand(2, out=out)),
        ("randint", lambda lib, out: lib.randint(0, 5, (2,), out=out)),
        ("randperm", lambda lib, out: lib.randperm(2, out=out)),
    ],
    ids=["rand", "randint", "randperm"],
)
def test_random_factories_refuse_out_that_requires_grad_as_torch(name: str, call: Callable[[Any, Any], Any]) -> None:
    errors = []
    for lib in LIBS:
        with pytest.raises(RuntimeError) as caught:
            call(lib, lib.zeros(2, requires_grad=True))
        errors.append(str(caught.value))
    assert errors[0] == errors[1]
    assert errors[0].startswith(f"aten::{name}(): functions with out=... arguments don't support")


@pytest.mark.parametrize("name", ["empty", "randn"])
def test_the_factories_that_resize_out_first_refuse_it_as_torchs_resize_does(name: str) -> None:
    errors = []
    for lib in LIBS:
        with pytest.raises(RuntimeError) as caught:
            getattr(lib, name)(2, out=lib.zeros(2, requires_grad=True))
        errors.append(str(caught.value))
    assert errors == ["cannot resize variables that require grad"] * 2


def test_out_under_no_grad_takes_a_leaf_that_requires_grad() -> None:
    out = ctxgrad.ones(3, requires_grad=True)
    with ctxgrad.no_grad():
        made = ctxgrad.zeros(3, out=out)
    assert made is out and out.requires_grad
    np.testing.assert_array_equal(out.detach().numpy(), np.zeros(3))


def test_out_with_another_dtype_given_is_refused_as_torch() -> None:
    errors = []
    for lib in LIBS:
        with pytest.raises(RuntimeError) as caught:
            lib.zeros(2, dtype=lib.float32, out=lib.empty(2, dtype=lib.float64))
        errors.append(str(caught.value))
    assert errors == ["dtype Float does not match dtype of out parameter (Double)"] * 2


# ------------------------------------------------------------------------------------ generator=
@pytest.mark.parametrize(
    "draw",
    [
        lambda lib, g: lib.rand_like(lib.zeros(4), generator=g),
        lambda lib, g: lib.randn_like(lib.zeros(4, dtype=lib.float64), generator=g),
        lambda lib, g: lib.randint_like(lib.zeros(4), 0, 100, generator=g),
    ],
    ids=["rand_like", "randn_like", "randint_like"],
)
def test_a_like_factory_draws_from_its_generator_and_leaves_the_default_one_alone(
    draw: Callable[[Any, Any], Any],
) -> None:
    for lib in LIBS:
        g = lib.Generator().manual_seed(7)
        lib.manual_seed(0)
        first = draw(lib, g).numpy()
        after = lib.rand(3).numpy()  # the default generator's next draw: not moved by `g`'s
        g.manual_seed(7)
        lib.manual_seed(0)
        np.testing.assert_array_equal(draw(lib, g).numpy(), first)
        np.testing.assert_array_equal(lib.rand(3).numpy(), after)
        lib.manual_seed(0)
        np.testing.assert_array_equal(lib.rand(3).numpy(), after)


def test_a_generator_that_is_not_one_is_refused() -> None:
    with pytest.raises(TypeError, match=r"rand_like\(\): argument 'generator' must be ctxgrad.Generator, not int"):
        ctxgrad.rand_like(ctxgrad.zeros(2), generator=3)


# ------------------------------------------------------------------------------------ randint's requires_grad=
def test_randint_takes_requires_grad_as_torch() -> None:
    for lib in LIBS:
        made = lib.randint(0, 5, (3,), dtype=lib.float32, requires_grad=True)
        assert made.requires_grad and made.is_leaf
    errors = []
    for lib in LIBS:
        with pytest.raises(RuntimeError) as caught:
            lib.randint(0, 5, (3,), requires_grad=True)
        errors.append(str(caught.value))
    assert errors[1] == "Only Tensors of floating point and complex dtype can require gradients"
    assert errors[0] == errors[1] + " (this tensor is ctxgrad.int64)"  # (ctxgrad names the dtype too)


# ------------------------------------------------------------------------------------ pin_memory=
@pytest.mark.parametrize(
    "call",
    [
        lambda lib: lib.zeros_like(lib.zeros(2), pin_memory=True),
        lambda lib: lib.rand_like(lib.zeros(2), pin_memory=True),
        lambda lib: lib.linspace(0, 1, 3, pin_memory=True),
        lambda lib: lib.eye(2, pin_memory=True),
        lambda lib: lib.randint(0, 3, (2,), pin_memory=True),
        lambda lib: lib.ones(1).new_zeros(2, pin_memory=True),
        lambda lib: lib.empty_strided((2,), (1,), pin_memory=True),
    ],
    ids=["zeros_like", "rand_like", "linspace", "eye", "randint", "new_zeros", "empty_strided"],
)
def test_pin_memory_is_refused_as_torch_refuses_it_without_an_accelerator(call: Callable[[Any], Any]) -> None:
    errors = []
    for lib in LIBS:
        with pytest.raises(RuntimeError) as caught:
            call(lib)
        errors.append(str(caught.value))
    assert errors[0] == errors[1]
    assert errors[0].startswith("pin_memory=True requires a CUDA or other accelerator backend")

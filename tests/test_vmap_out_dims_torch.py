"""``vmap``'s ``out_dims`` (and the structure checks it shares with ``in_dims``) against
``torch.func.vmap`` running the same code: what is accepted gives the same values, what is
refused raises the same exception type with the same message."""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ctxgrad

torch = pytest.importorskip("torch")

Pair = namedtuple("Pair", "a b")
VALUES = np.arange(24.0).reshape(2, 3, 4)


def _outcome(lib: Any, program: Callable[[Any, Any], Any]) -> Any:
    """The program's result as nested lists (tensors as their values), or what it raised."""
    try:
        out = program(lib, lib.tensor(VALUES))
    except Exception as exc:  # (what it raised is compared with torch's)
        return type(exc), str(exc)
    return _plain(lib, out)


def _plain(lib: Any, out: Any) -> Any:
    if isinstance(out, lib.Tensor):
        return ("tensor", tuple(out.shape), out.tolist())
    if isinstance(out, (tuple, list)):
        return (type(out).__name__, [_plain(lib, o) for o in out])
    if isinstance(out, dict):
        return ("dict", {k: _plain(lib, v) for k, v in out.items()})
    return out


def _same_as_torch(program: Callable[[Any, Any], Any]) -> Any:
    got, want = _outcome(ctxgrad, program), _outcome(torch, program)
    assert got == want
    return want


@pytest.mark.parametrize("out_dims", [(1,), (2,), (-1,), (0,), (None,)])
def test_a_one_tuple_out_dims_for_a_single_tensor_output_as_torch(out_dims: tuple[Any, ...]) -> None:
    """A function returning one tensor takes ``out_dims=(d,)`` as ``out_dims=d``."""
    want = _same_as_torch(lambda lib, x: lib.func.vmap(lambda t: t * 2, out_dims=out_dims)(x))
    if out_dims != (None,):
        alone = _outcome(torch, lambda lib, x: lib.func.vmap(lambda t: t * 2, out_dims=out_dims[0])(x))
        assert want == alone


@pytest.mark.parametrize("chunk_size", [1, 2])
def test_a_one_tuple_out_dims_with_chunks_as_without(chunk_size: int) -> None:
    """(torch raises an AssertionError here, from its chunking: docs/differences.md.)"""
    x = ctxgrad.tensor(VALUES)
    got = ctxgrad.func.vmap(lambda t: t * 2, out_dims=(1,), chunk_size=chunk_size)(x)
    want = torch.func.vmap(lambda t: t * 2, out_dims=1)(torch.tensor(VALUES))
    np.testing.assert_array_equal(got.numpy(), want.numpy())


PROGRAMS: dict[str, Callable[[Any, Any], Any]] = {
    "(1,) for a list of one tensor": lambda lib, x: lib.func.vmap(lambda t: [t], out_dims=(1,))(x),
    "(0, 0) for one tensor": lambda lib, x: lib.func.vmap(lambda t: t, out_dims=(0, 0))(x),
    "four for three": lambda lib, x: lib.func.vmap(lambda t: (t, t, t), out_dims=(0, 0, 0, 0))(x),
    "one for two": lambda lib, x: lib.func.vmap(lambda t: (t, t), out_dims=(0,))(x),
    "two for three": lambda lib, x: lib.func.vmap(lambda t: (t, t, t), out_dims=(0, 0))(x),
    "a list for a tuple": lambda lib, x: lib.func.vmap(lambda t: (t, t), out_dims=[0, 1])(x),
    "a tuple for a list": lambda lib, x: lib.func.vmap(lambda t: [t, t], out_dims=(0, 1))(x),
    "a list inside for a tuple": lambda lib, x: lib.func.vmap(lambda t: (t, (t,)), out_dims=(0, [1]))(x),
    "a tuple for a named tuple": lambda lib, x: lib.func.vmap(lambda t: Pair(t, t), out_dims=(0, 1))(x),
    "a named tuple for a tuple": lambda lib, x: lib.func.vmap(lambda t: (t, t), out_dims=Pair(0, 1))(x),
    "a named tuple for a named tuple": lambda lib, x: lib.func.vmap(lambda t: Pair(t, t.sum(0)), out_dims=Pair(0, 1))(
        x
    ),
    "a list for a list": lambda lib, x: lib.func.vmap(lambda t: [t, t.sum(0)], out_dims=[1, 0])(x),
    "a dict": lambda lib, x: lib.func.vmap(lambda t: {"a": t, "b": t.sum(1)}, out_dims={"a": 1, "b": 0})(x),
    "a dict with other keys": lambda lib, x: lib.func.vmap(lambda t: {"a": t}, out_dims={"b": 1})(x),
    "a string": lambda lib, x: lib.func.vmap(lambda t: t, out_dims="lol")(x),
    "a tuple of a string": lambda lib, x: lib.func.vmap(lambda t: t, out_dims=("lol",))(x),
    "a float": lambda lib, x: lib.func.vmap(lambda t: t, out_dims=1.5)(x),
    "a float among ints": lambda lib, x: lib.func.vmap(lambda t: (t, t), out_dims=(0, 1.0))(x),
    "out of range": lambda lib, x: lib.func.vmap(lambda t: t, out_dims=3)(x),
    "negative out of range": lambda lib, x: lib.func.vmap(lambda t: t, out_dims=-4)(x),
    "None for a batched output": lambda lib, x: lib.func.vmap(lambda t: t, out_dims=None)(x),
    "None for a non-tensor": lambda lib, x: lib.func.vmap(lambda t: (t, "hello"), out_dims=(0, None))(x),
    "a non-tensor output": lambda lib, x: lib.func.vmap(lambda t: (t, 3.0))(x),
    "in_dims: a list inside for a tuple": lambda lib, x: lib.func.vmap(lambda z: z[0] + z[1], in_dims=([0, 0],))(
        (x, x)
    ),
    "in_dims: a tuple inside for a list": lambda lib, x: lib.func.vmap(lambda z: z[0] + z[1], in_dims=((0, 1),))(
        [x, x.transpose(0, 1)]
    ),
    "in_dims: a tuple for a named tuple": lambda lib, x: lib.func.vmap(lambda p: p.a + p.b, in_dims=((0, 1),))(
        Pair(x, x.transpose(0, 1))
    ),
    "in_dims: a list inside for a list": lambda lib, x: lib.func.vmap(lambda z: z[0] + z[1], in_dims=([0, 1],))(
        [x, x.transpose(0, 1)]
    ),
}


@pytest.mark.parametrize("name", list(PROGRAMS))
def test_out_dims_accepted_and_refused_as_torch(name: str) -> None:
    _same_as_torch(PROGRAMS[name])


def _refuses_before_running(lib: Any, out_dims: Any) -> list[Any]:
    calls: list[Any] = []
    with pytest.raises(ValueError, match="`out_dims` must be an int, None or a python collection of ints"):
        lib.func.vmap(lambda t: calls.append(t) or t, out_dims=out_dims)(lib.ones(2, 3))
    return calls


@pytest.mark.parametrize("out_dims", ["lol", ("lol",), 1.5, (0, [None, "x"])])
def test_out_dims_of_a_wrong_type_refuse_before_the_function_runs_as_torch(out_dims: Any) -> None:
    assert _refuses_before_running(ctxgrad, out_dims) == _refuses_before_running(torch, out_dims) == []

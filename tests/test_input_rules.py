"""Torch's rules for inputs: each case runs on ctxgrad (and, where installed, on torch) and
must raise the same exception type with the same message, or give the same result."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import ctxgrad


def leaf_square_sum(m: Any) -> tuple[Any, Any]:
    x = m.tensor([1.0, 2.0], requires_grad=True)
    return x, (x * x).sum()


def grad_with_generator_inputs(m: Any) -> list[float]:
    x, y = leaf_square_sum(m)
    (g,) = m.autograd.grad(y, (t for t in [x]))
    return g.tolist()


def grad_with_generator_outputs(m: Any) -> list[float]:
    x, y = leaf_square_sum(m)
    (g,) = m.autograd.grad((t for t in [y]), x)
    return g.tolist()


def _interleaved_add(m: Any) -> list[float]:
    y = m.arange(6.0)
    y[::2].add_(y[1::2])  # the two views share no element: allowed
    return y.tolist()


def _self_add(m: Any) -> list[float]:
    y = m.arange(4.0)
    y.add_(y)  # the same elements: allowed
    return y.tolist()


def randint_shape(*args: Any, **kwargs: Any) -> Callable[[Any], tuple[int, ...]]:
    return lambda m: tuple(m.randint(*args, **kwargs).shape)


_PARTIAL = (
    "unsupported operation: some elements of the input tensor and the written-to tensor refer to a single "
    "memory location. Please clone() the tensor before performing the operation."
)


def _shifted_write(m: Any) -> None:
    y = m.arange(5.0)
    y[1:] = y[:-1]


_SQUARE: dict[str, Any] = {}


def _square(m: Any) -> Any:
    _SQUARE[m.__name__] = y = m.arange(4.0).reshape(2, 2)
    return y


def _square_t(m: Any) -> Any:
    return _SQUARE[m.__name__].t()


def _self_transpose_add(m: Any) -> None:
    y = m.arange(4.0).reshape(2, 2)
    y.add_(y.t())


def _dirty_view_two_outputs(m: Any) -> None:
    class DoubleAndTriple(m.autograd.Function):
        @staticmethod
        def forward(ctx: Any, x: Any) -> Any:
            x.mul_(2)
            ctx.mark_dirty(x)
            return x, x * 3

        @staticmethod
        def backward(ctx: Any, g1: Any, g2: Any) -> Any:
            return g1 * 2 + g2 * 6

    base = m.ones(4, requires_grad=True) * 1
    DoubleAndTriple.apply(base[:2])


#: name -> (program, the exception type and message it raises, or None and its result)
RAISES: dict[str, tuple[Callable[[Any], Any], type[Exception], str]] = {
    "arange step 0": (lambda m: m.arange(0, 5, 0), RuntimeError, "step must be nonzero"),
    "arange float step 0": (lambda m: m.arange(0.0, 5.0, 0.0), RuntimeError, "step must be nonzero"),
    "arange backwards": (
        lambda m: m.arange(5, 0),
        RuntimeError,
        "upper bound and lower bound inconsistent with step sign",
    ),
    "arange float backwards": (
        lambda m: m.arange(1.0, 0.0, 0.5),
        RuntimeError,
        "upper bound and lower bound inconsistent with step sign",
    ),
    "zeros negative": (lambda m: m.zeros(-1), RuntimeError, "zeros: Dimension size must be non-negative."),
    "zeros negative tuple": (lambda m: m.zeros((2, -1)), RuntimeError, "zeros: Dimension size must be non-negative."),
    "ones negative": (
        lambda m: m.ones(2, -1),
        RuntimeError,
        "Trying to create tensor with negative dimension -1: [2, -1]",
    ),
    "empty negative": (
        lambda m: m.empty(-3),
        RuntimeError,
        "Trying to create tensor with negative dimension -3: [-3]",
    ),
    "full negative": (
        lambda m: m.full((-1,), 1.0),
        RuntimeError,
        "Trying to create tensor with negative dimension -1: [-1]",
    ),
    "randn negative": (
        lambda m: m.randn(2, -1),
        RuntimeError,
        "Trying to create tensor with negative dimension -1: [2, -1]",
    ),
    "randint empty range": (
        lambda m: m.randint(5, 3, (2,)),
        RuntimeError,
        "random_ expects 'from' to be less than 'to', but got from=5 >= to=3",
    ),
    "randint high 0": (
        lambda m: m.randint(0, (3,)),
        RuntimeError,
        "random_ expects 'from' to be less than 'to', but got from=0 >= to=0",
    ),
    "float of 2 elements": (
        lambda m: float(m.tensor([1.0, 2.0])),
        ValueError,
        "only one element tensors can be converted to Python scalars",
    ),
    "int of 2 elements": (
        lambda m: int(m.tensor([1.0, 2.0])),
        ValueError,
        "only one element tensors can be converted to Python scalars",
    ),
    "item of 2 elements": (
        lambda m: m.tensor([1.0, 2.0]).item(),
        RuntimeError,
        "a Tensor with 2 elements cannot be converted to Scalar",
    ),
    "tensor of a string": (lambda m: m.tensor("a"), TypeError, "new(): invalid data type 'str'"),
    "tensor of strings": (lambda m: m.tensor(["a", "b"]), ValueError, "too many dimensions 'str'"),
    "tensor of a number and a string": (lambda m: m.tensor([1.0, "a"]), TypeError, "new(): invalid data type 'str'"),
    "tensor of None": (lambda m: m.tensor(None), RuntimeError, "Could not infer dtype of NoneType"),
    "tensor of [None]": (lambda m: m.tensor([1.0, None]), RuntimeError, "Could not infer dtype of NoneType"),
    "tensor of an object": (lambda m: m.tensor([object()]), RuntimeError, "Could not infer dtype of object"),
    "write from an overlapping slice": (lambda m: _shifted_write(m), RuntimeError, _PARTIAL),
    "copy_ of the transpose": (lambda m: _square(m).copy_(_square_t(m)), RuntimeError, _PARTIAL),
    "add_ of the transpose": (lambda m: _self_transpose_add(m), RuntimeError, _PARTIAL),
    "mark_dirty on a view, two outputs": (
        lambda m: _dirty_view_two_outputs(m),
        RuntimeError,
        "If your Function modifies inplace an input that is a view of another Tensor, your Function cannot "
        "return more than one Tensor.",
    ),
}

RESULTS: dict[str, tuple[Callable[[Any], Any], Any]] = {
    "randint(high, size)": (randint_shape(10, (3,)), (3,)),
    "randint(low, high, size)": (randint_shape(0, 10, (2, 2)), (2, 2)),
    "randint(high, size=)": (randint_shape(10, size=(4,)), (4,)),
    "arange down": (lambda m: m.arange(5, 0, -2).tolist(), [5, 3, 1]),
    "arange empty": (lambda m: m.arange(3, 3).tolist(), []),
    "interleaved views add": (lambda m: _interleaved_add(m), [1.0, 1.0, 5.0, 3.0, 9.0, 5.0]),
    "add_ of itself": (lambda m: _self_add(m), [0.0, 2.0, 4.0, 6.0]),
    "grad inputs generator": (grad_with_generator_inputs, [2.0, 4.0]),
    "grad outputs generator": (grad_with_generator_outputs, [2.0, 4.0]),
    "numpy float64 in a list": (lambda m: str(m.tensor([np.float64(1.0), 2.0]).dtype).split(".")[-1], "float64"),
    "numpy float32 in a list": (lambda m: str(m.tensor([np.float32(1.0), 2.0]).dtype).split(".")[-1], "float32"),
    "numpy complex128 in a list": (
        lambda m: str(m.tensor([np.complex128(1j), 1.0]).dtype).split(".")[-1],
        "complex128",
    ),
    "python complex": (lambda m: str(m.tensor([1 + 1j]).dtype).split(".")[-1], "complex64"),
}


def raised(m: Any, program: Callable[[Any], Any]) -> tuple[type[Exception], str]:
    try:
        program(m)
    except Exception as exc:
        return type(exc), str(exc)
    raise AssertionError("no exception")


@pytest.mark.parametrize("name", RAISES)
def test_raises_as_torch_documents(name: str) -> None:
    program, kind, message = RAISES[name]
    with pytest.raises(kind, match=re.escape(message)):
        program(ctxgrad)


@pytest.mark.parametrize("name", RAISES)
def test_raises_as_torch(torch: Any, name: str) -> None:
    """The same type, and torch's message (ctxgrad may add the culprit's name after it)."""
    program = RAISES[name][0]
    ours, theirs = raised(ctxgrad, program), raised(torch, program)
    assert ours[0] is theirs[0]
    assert ours[1].startswith(theirs[1]), (ours[1], theirs[1])


@pytest.mark.parametrize("name", RESULTS)
def test_result(name: str) -> None:
    program, expected = RESULTS[name]
    assert program(ctxgrad) == expected


@pytest.mark.parametrize("name", RESULTS)
def test_result_as_torch(torch: Any, name: str) -> None:
    program = RESULTS[name][0]
    assert program(ctxgrad) == program(torch)


# --- crashes where torch works ---------------------------------------------------------------


def diagonal_of_a_view_taken_before_the_save(m: Any) -> list[list[float]]:
    x = m.ones(3, 3, requires_grad=True)
    b = x * 1
    v = b[1:]  # taken before b is saved (b's array becomes read-only while saved)
    y = b * b
    (y.sum() + v.diagonal().sum()).backward()
    return x.grad.tolist()


def repeated_index_write(m: Any) -> tuple[list[float], list[float], list[float]]:
    y = m.zeros(3)
    y[[0, 0]] = 5.0
    z = m.zeros(3)
    z[m.tensor([0, 0, 2])] += 1  # read, add, write: the repeated index counts once, as in torch
    x = m.ones(3, requires_grad=True)
    w = x * 1
    w[m.tensor([0, 0])] = m.tensor([2.0, 3.0])  # the last value written wins
    w.sum().backward()
    return y.tolist(), z.tolist(), x.grad.tolist()


def view_made_in_inference_mode(m: Any) -> list[float]:
    x = m.ones(3)
    with m.inference_mode():
        v = x[:2]  # a view of an ordinary tensor is ordinary
    v.mul_(2)
    return x.tolist()


def softmax_of_a_0d_tensor_twice(m: Any) -> list[Any]:
    results = []
    for name in ("softmax", "log_softmax"):
        x = m.tensor(1.5, dtype=m.float64, requires_grad=True)
        (g,) = m.autograd.grad(getattr(m, name)(x, 0), x, create_graph=True)
        (gg,) = m.autograd.grad(g, x, allow_unused=True)
        results.append((g.item(), None if gg is None else gg.item()))
    return results


CRASHES: dict[str, tuple[Callable[[Any], Any], Any]] = {
    "diagonal of a view taken before the save": (
        diagonal_of_a_view_taken_before_the_save,
        [[2.0, 2.0, 2.0], [3.0, 2.0, 2.0], [2.0, 3.0, 2.0]],
    ),
    "repeated index write": (repeated_index_write, ([5.0, 0.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 1.0])),
    "view made in inference mode": (view_made_in_inference_mode, [2.0, 2.0, 1.0]),
    "softmax of a 0-d tensor, twice": (softmax_of_a_0d_tensor_twice, [(0.0, 0.0), (0.0, 0.0)]),
}


@pytest.mark.parametrize("name", CRASHES)
def test_runs_where_torch_runs(name: str) -> None:
    program, expected = CRASHES[name]
    assert program(ctxgrad) == expected


@pytest.mark.parametrize("name", CRASHES)
def test_runs_as_torch_runs(torch: Any, name: str) -> None:
    program = CRASHES[name][0]
    assert program(ctxgrad) == program(torch)
